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


# Falcor's seven render scripts: these six ship in Scripts/ (WARDiffPathTracer.py needs a
# differentiable path tracer, which creating its pass explains: tests/passes/test_oidn_denoisers.py).
FALCORS_SCRIPTS = {"BSDFViewer": "AccumulatePass.output", "MinimalPathTracer": "ToneMapper.dst", "PathTracer": "ToneMapper.dst",
                   "PathTracerNRD": "ToneMapperNRD.dst", "RTXDI": "ToneMapper.dst", "SceneDebugger": "SceneDebugger.output"}


def test_falcors_scripts_graphs_render_under_mogwai(tmp_path):
    """Each script's graph, loaded as Mogwai loads a graph file (its Mogwai-only part skipped), renders
    three small frames of the Cornell box in one mogwai process: its final output is finite and lit."""
    driver = tmp_path / "driver.py"
    driver.write_text(
        "import numpy as np\n"
        f"m.loadScene(r'{SCRIPTS.parent / 'Scenes' / 'CornellBox.pyscene'}')\n"
        "m.resizeFrameBuffer(32, 24)\n"
        f"for name, output in {FALCORS_SCRIPTS!r}.items():\n"
        f"    g = RenderGraph.createFromFile(r'{SCRIPTS}/' + name + '.py')\n"
        "    m.addGraph(g)\n"
        "    for _ in range(3):\n"
        "        m.renderFrame()\n"
        "    image = g.getOutput(output).to_float32()[..., :3]\n"
        "    print('SCRIPT', name, bool(np.isfinite(image).all()), float(image.mean()))\n"
        "    m.removeGraph(g)\n"
        "exit()\n")
    r = run_mogwai(["--script", str(driver)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    results = {line.split()[1]: line.split()[2:] for line in r.stdout.splitlines() if line.startswith("SCRIPT ")}
    assert set(results) == set(FALCORS_SCRIPTS), r.stdout + r.stderr
    for name, (finite, mean) in results.items():
        assert finite == "True" and float(mean) > 0.01, (name, finite, mean)
