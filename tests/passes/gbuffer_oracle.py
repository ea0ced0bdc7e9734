"""Shared pieces of the conformance tests of GBufferRT, VBufferRT and SceneDebugger against frames
captured by native Falcor 8 (shared/oracle/falcor8, see its README): rendering a case the way the
oracle was rendered, reading images, and Falcor's capture conversion of integer outputs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import OpenEXR
from PIL import Image

import falcor
from shared_files import shared_path

REPO = Path(__file__).resolve().parents[2]
CORNELL = REPO / "Scenes" / "CornellBox.pyscene"


def oracle_dir() -> Path:
    """The native Falcor 8 frames (skips the calling test where the shared folder is absent)."""
    return shared_path("oracle", "falcor8")


def read_image(path: Path) -> np.ndarray:
    """(H, W, 3) float32 from a captured EXR (half RGB) or PNG (8-bit, as 0..255)."""
    if path.suffix == ".png":
        return np.asarray(Image.open(path)).astype(np.float32)
    return OpenEXR.File(str(path)).channels()["RGB"].pixels.astype(np.float32)


def render_case(tmp_path: Path, base: str, pass_type: str, props: dict, outputs: list[tuple[str, bool]], scene: str = "cornell"):
    """Renders one oracle case with mogwai's settings and captures it into tmp_path.

    `outputs`: (field, alpha) pairs marked in order (alpha: TextureChannelFlags.Alpha).
    Returns the renderer and the graph (for reading textures directly)."""
    m = falcor.Renderer()
    g = falcor.RenderGraph(pass_type)
    g.create_pass(pass_type, pass_type, props)
    for field, alpha in outputs:
        if alpha:
            g.mark_output(f"{pass_type}.{field}", falcor.TextureChannelFlags.Alpha)
        else:
            g.mark_output(f"{pass_type}.{field}")
    m.addGraph(g)
    if scene == "cornell":
        m.loadScene(str(CORNELL))
    else:
        m.loadScene(str(oracle_dir() / "quad.gltf"))
        m.scene.camera.position = falcor.float3(0.5, 0.5, 2.0)
        m.scene.camera.target = falcor.float3(0.5, 0.5, -1.0)
        m.scene.camera.up = falcor.float3(0, 1, 0)
    m.resizeFrameBuffer(256, 256)
    m.ui = False
    m.clock.time = 0
    m.clock.pause()
    m.renderFrame()
    m.frameCapture.outputDir = str(tmp_path)
    m.frameCapture.baseFilename = base
    m.frameCapture.capture()
    m.frameCapture.flush()
    return m, g


def capture_name(base: str, pass_type: str, field: str, alpha: bool, ext: str = "exr") -> str:
    return f"{base}.{pass_type}.{field}.0{'.A' if alpha else ''}.{ext}"


def falcor_uint_capture(texels: np.ndarray, alpha: bool) -> np.ndarray:
    """What Falcor's frame capture writes for a 32-bit unsigned texture: each word divided by
    2^32-1 in single precision, stored as half; RGB, or the alpha word alone in R."""
    words = texels.astype(np.float32) / np.float32(4294967295.0)
    rgb = np.zeros(words.shape[:2] + (3,), np.float32)
    if alpha:
        rgb[..., 0] = words[..., 3]
    else:
        rgb[..., : min(3, words.shape[2])] = words[..., :3]
    return rgb.astype(np.float16).astype(np.float32)


def falcor_rgb10a2_capture(words: np.ndarray) -> np.ndarray:
    """Falcor writes RGB10A2Unorm outputs to PNG as the raw texel bytes read as BGRA8."""
    b = words.astype("<u4").view(np.uint8).reshape(words.shape[0], words.shape[1], 4)
    return np.stack([b[..., 2], b[..., 1], b[..., 0]], -1).astype(np.float32)


def unpack_rgb10(png: np.ndarray) -> np.ndarray:
    """The R and G 10-bit fields and the low 4 bits of B of words written by falcor_rgb10a2_capture."""
    p = png.astype(np.int64)
    w = p[..., 2] | (p[..., 1] << 8) | (p[..., 0] << 16)
    return np.stack([w & 0x3FF, (w >> 10) & 0x3FF, (w >> 20) & 0xF], -1)


def difference(ours: np.ndarray, oracle: np.ndarray, tol: float = 1e-2) -> tuple[float, float]:
    """(fraction of pixels with a channel off by more than tol, mean absolute error). Equal
    infinities (half overflow of far distances) count as equal."""
    a, b = ours.astype(np.float64), oracle.astype(np.float64)
    same_inf = np.isinf(a) & np.isinf(b) & (np.sign(a) == np.sign(b))
    with np.errstate(invalid="ignore"):
        d = np.where(same_inf, 0.0, np.abs(a - b))
    d = np.where(np.isnan(d), np.inf, d)
    per_pixel = d.max(axis=-1) if d.ndim == 3 else d
    finite = d[np.isfinite(d)]
    return float((per_pixel > tol).mean()), float(finite.mean()) if finite.size else float("inf")


def check_packed_capture(texels: np.ndarray, oracle_path: Path, alpha: bool, float_words=(), max_bad_fraction: float = 0.002):
    """Packed 32-bit words through Falcor's capture. Words holding IDs or headers (material
    header, hit type/instance/primitive) must give identical halves; `float_words` hold float
    bits (V-buffer barycentrics, words 2 and 3), whose GPU and CPU values differ in their last
    bits: they may differ by one half-float step."""
    ours, oracle = falcor_uint_capture(texels, alpha), read_image(oracle_path)
    captured_words = [3] if alpha else [0, 1, 2]
    mismatch = np.zeros(ours.shape[:2], bool)
    for channel, word in enumerate(captured_words):
        a, b = ours[..., channel], oracle[..., channel]
        if word in float_words:
            mismatch |= np.abs(a - b) > np.abs(b) * 2.0**-10
        else:
            mismatch |= a != b
    assert mismatch.mean() <= max_bad_fraction, (oracle_path.name, mismatch.mean())
