"""The render scripts in Scripts/ run as the README says."""
from pathlib import Path

import numpy as np
import OpenEXR
from PIL import Image

import falcor
from helpers import run_mogwai

SCRIPTS = Path(__file__).resolve().parents[2] / "Scripts"


def read_exr(path) -> np.ndarray:
    with OpenEXR.File(str(path)) as f:
        return np.asarray(f.channels()["RGB"].pixels, np.float32)


def test_quick_start_tone_mapping(tmp_path):
    r = run_mogwai(["--script", str(SCRIPTS / "ToneMapping.py")], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    ldr = np.asarray(Image.open(tmp_path / "captures/ToneMapping.ToneMapper.dst.1.png"))
    hdr = read_exr(tmp_path / "captures/ToneMapping.ImageLoader.dst.1.exr")
    assert ldr.shape == (384, 768, 3) and hdr.shape == (384, 768, 3)
    assert hdr.max() > 10 and ldr.max() == 255 and ldr.min() < 60  # HDR sun, tone-mapped to [0, 255]


def test_gbuffer_script_captures_cornell_box(tmp_path):
    r = run_mogwai(["--script", str(SCRIPTS / "GBuffer.py")], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    pos = read_exr(tmp_path / "captures/GBuffer.GBufferRT.posW.1.exr")
    assert pos.shape == (512, 512, 3)
    # The box spans x in [-0.275, 0.275], y in [0, 0.55] (half-float precision).
    assert -0.28 < pos[..., 0].min() and pos[..., 0].max() < 0.28
    assert pos[..., 1].min() > -0.01 and pos[..., 1].max() < 0.56


def test_scene_debugger_script_defines_falcors_graph():
    g = falcor.RenderGraph.createFromFile(SCRIPTS / "SceneDebugger.py")
    assert g.name == "SceneDebugger" and [o for o, _ in g.outputs] == ["SceneDebugger.output"]
