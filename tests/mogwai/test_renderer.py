"""The Renderer (`m`): graphs, active-graph rule, frame capture naming and formats, profiler, Testbed."""
import os

import numpy as np
import OpenEXR
import pytest
from PIL import Image

import falcor
from falcor import ResourceFormat as RF, TextureChannelFlags as TCF
from helpers import ArraySource


def source_graph(name, fmt="RGBA32Float", masks=(TCF.RGB,), image=None):
    key = f"{name}-{fmt}"
    ArraySource.images[key] = image if image is not None else np.random.default_rng(0).random((4, 6, 4), dtype=np.float32)
    g = falcor.RenderGraph(name)
    g.create_pass("Src", "ArraySource", {"key": key})
    g.create_pass("Out", "BlitPass", {"outputFormat": fmt, "filter": "Point"})
    g.add_edge("Src.out", "Out.src")
    for mask in masks:
        g.mark_output("Out.dst", mask)
    return g


def test_add_graph_replaces_same_name_and_first_stays_active(capfd):
    m = falcor.Renderer(6, 4)
    a, b = source_graph("A"), source_graph("B")
    m.addGraph(a)
    m.addGraph(b)
    assert m.activeGraph is a
    a2 = source_graph("A")
    m.addGraph(a2)
    assert "Replacing existing graph \"A\"" in capfd.readouterr().out
    assert m.activeGraph is a2 and m.getGraph("B") is b
    m.setActiveGraph(b)
    assert m.activeGraph is b
    m.removeGraph("B")
    assert m.activeGraph is a2
    with pytest.raises(falcor.RuntimeError, match="Can't find a graph named 'B'"):
        m.removeGraph("B")
    with pytest.raises(falcor.RuntimeError):
        m.addGraph(None)


def test_resize_reaches_graphs():
    m = falcor.Renderer(6, 4)
    g = source_graph("G")
    m.addGraph(g)
    m.resizeFrameBuffer(12, 8)
    m.renderFrame()
    assert (g.get_output("Out.dst").width, g.get_output("Out.dst").height) == (12, 8)


@pytest.mark.parametrize("fmt,mask,suffix,ext", [
    ("RGBA32Float", TCF.RGB, "", "exr"),
    ("RGBA32Float", TCF.RGBA, ".RGBA", "exr"),
    ("RGBA32Float", TCF.Alpha, ".A", "exr"),
    ("RGBA16Float", TCF.Red, ".R", "exr"),
    ("RGBA8UnormSrgb", TCF.RGB, "", "png"),
    ("BGRA8UnormSrgb", TCF.RGBA, ".RGBA", "png"),
    ("RGBA8Unorm", TCF.Green, ".G", "png"),
    ("RGBA32Uint", TCF.Blue, ".B", "exr"),
    ("R32Uint", TCF.RGB, "", "exr"),
    ("RGBA8Uint", TCF.RGB, "", "png"),
    ("RGB10A2Unorm", TCF.RGB, "", "png"),
])
def test_capture_file_names_and_formats(tmp_path, fmt, mask, suffix, ext):
    img = np.random.default_rng(1).random((4, 6, 4), dtype=np.float32)
    if fmt == "RGBA8Uint":
        img = np.floor(img * 200).astype(np.float32)
    elif "Uint" in fmt:  # large words, as packed hit info holds
        img = np.floor(img * 2**31).astype(np.float32)
    m = falcor.Renderer(6, 4)
    m.addGraph(source_graph("G", fmt, (mask,), img))
    m.frameCapture.outputDir = tmp_path
    m.frameCapture.baseFilename = "cap"
    m.clock.framerate = 60
    m.clock.frame = 12
    m.renderFrame()
    m.frameCapture.capture()
    m.frameCapture.flush()
    name = f"cap.Out.dst.12{suffix}.{ext}"
    assert os.listdir(tmp_path) == [name]
    path = tmp_path / name
    channels = {TCF.Red: 0, TCF.Green: 1, TCF.Blue: 2, TCF.Alpha: 3}
    if ext == "exr":
        with OpenEXR.File(str(path)) as f:
            (layer, data), = f.channels().items()
            pixels = np.asarray(data.pixels, np.float32)
        expected = img
        if "Uint" in fmt:  # Falcor normalizes 16/32-bit integers by the type's maximum
            expected = img / np.float64(2**32 - 1)
        if mask in channels:
            assert layer == "RGB"
            np.testing.assert_allclose(pixels[..., 0], expected[..., channels[mask]], rtol=1e-3)
            assert np.all(pixels[..., 1:] == 0)
        else:
            n = 4 if mask == TCF.RGBA else 3
            assert layer == ("RGBA" if n == 4 else "RGB")
            count = 1 if fmt == "R32Uint" else n
            np.testing.assert_allclose(pixels[..., :count], expected[..., :count], rtol=1e-3)
    else:
        pixels = np.asarray(Image.open(path))
        if fmt == "RGBA8Uint":  # Falcor swaps only 8-bit unorm RGBA; other 32-bit texels are read as B, G, R
            np.testing.assert_array_equal(pixels, img[..., [2, 1, 0]].astype(np.uint8))
        elif fmt == "RGB10A2Unorm":  # raw texel bytes read as B, G, R
            q = np.rint(np.clip(img, 0, 1) * [1023, 1023, 1023, 3]).astype(np.uint32)
            words = q[..., 0] | q[..., 1] << 10 | q[..., 2] << 20 | q[..., 3] << 30
            raw = words.astype("<u4").view(np.uint8).reshape(4, 6, 4)
            np.testing.assert_array_equal(pixels, raw[..., [2, 1, 0]])
        elif mask in channels:
            assert pixels.ndim == 2
            np.testing.assert_array_equal(pixels, np.rint(img[..., channels[mask]] * 255).astype(np.uint8))
        else:
            srgb = np.where(img <= 0.0031308, img * 12.92, 1.055 * img ** (1 / 2.4) - 0.055)
            expected = np.rint(srgb * 255)
            expected[..., 3] = np.rint(img[..., 3] * 255)
            n = 4 if mask == TCF.RGBA else 3
            assert pixels.shape == (4, 6, n)
            assert np.abs(pixels.astype(int) - expected[..., :n]).max() <= 1


def test_captures_are_written_atomically(tmp_path):
    m = falcor.Renderer(6, 4)
    m.addGraph(source_graph("G"))
    m.frameCapture.outputDir = tmp_path
    m.renderFrame()
    m.frameCapture.capture()
    m.frameCapture.flush()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]  # no temporary files left


def test_capture_write_errors_surface(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    m = falcor.Renderer(6, 4)
    m.addGraph(source_graph("G"))
    m.frameCapture.outputDir = blocker / "sub"  # a folder under a file: can't be created
    m.renderFrame()
    m.frameCapture.capture()
    with pytest.raises(OSError):
        m.frameCapture.flush()


def test_add_frames_by_unknown_graph_name():
    m = falcor.Renderer()
    with pytest.raises(falcor.RuntimeError, match="Can't find a graph named 'Nope'"):
        m.frameCapture.addFrames("Nope", [1])


def test_capture_all_outputs(tmp_path):
    m = falcor.Renderer(6, 4)
    g = source_graph("G")
    m.addGraph(g)
    m.frameCapture.outputDir = tmp_path
    m.frameCapture.captureAllOutputs = True
    m.renderFrame()
    m.frameCapture.capture()
    m.frameCapture.flush()
    assert sorted(os.listdir(tmp_path)) == ["Mogwai.Out.dst.1.exr", "Mogwai.Src.out.1.exr"]
    assert [o for o, _ in g.outputs] == ["Out.dst"]  # temporary marks removed


def test_profiler_records_per_pass_cpu_time():
    m = falcor.Renderer(6, 4)
    m.addGraph(source_graph("G"))
    m.profiler.start_capture()
    for _ in range(3):
        m.renderFrame()
    events = m.profiler.events
    key = "/onFrameRender/RenderGraphExe::execute()/Out/cpu_time"
    assert key in events and events[key]["stats"]["min"] >= 0
    capture = m.profiler.end_capture()
    assert capture["frame_count"] == 3 and len(capture["events"][key]["records"]) == 3
    with m.profiler.event("custom"):
        pass
    m.profiler.end_frame()
    assert "/custom/cpu_time" in m.profiler.events


def test_timing_capture(tmp_path):
    m = falcor.Renderer(6, 4)
    path = tmp_path / "times.txt"
    m.timingCapture.captureFrameTime(path)
    for _ in range(4):
        m.renderFrame()
    m.timingCapture.captureFrameTime("")
    lines = path.read_text().split()
    assert len(lines) == 3 and all(float(v) >= 0 for v in lines)


def test_testbed_standalone_loop_and_capture_output(tmp_path):
    tb = falcor.Testbed(width=6, height=4)
    g = tb.create_render_graph("TB")
    ArraySource.images["tb"] = np.full((4, 6, 4), 0.5, np.float32)
    g.create_pass("Src", "ArraySource", {"key": "tb"})
    g.create_pass("Out", "BlitPass", {"outputFormat": "RGBA32Float"})
    g.add_edge("Src.out", "Out.src")
    g.mark_output("Out.dst")
    tb.render_graph = g
    for _ in range(2):
        tb.frame()
    assert tb.clock.frame == 2
    np.testing.assert_allclose(tb.render_graph.get_output("Out.dst").to_numpy(), 0.5)
    tb.capture_output(tmp_path / "out.exr")
    assert (tmp_path / "out.exr").exists()


def test_device_textures_and_buffers():
    d = falcor.Device()
    t = d.create_texture(128, 0, 0, RF.R8Uint, mip_levels=1)
    assert t.to_numpy().shape == (128,)
    t2 = d.create_texture(128, 64, format=RF.RGBA32Float, mip_levels=1)
    assert t2.to_numpy().shape == (64, 128, 4)
    b = d.create_typed_buffer(RF.RG16Float, 10)
    assert b.to_numpy().shape == (10, 2) and b.to_numpy().dtype == np.float16
    b.from_numpy(np.ones((5, 2), np.float16))
    assert b.to_numpy()[:5].sum() == 10
    raw = d.create_buffer(16)
    assert raw.to_numpy().dtype == np.uint8 and raw.size == 16
    other = d.create_buffer(16)
    raw.from_numpy(np.arange(16, dtype=np.uint8))
    d.render_context.copy_resource(other, raw)
    np.testing.assert_array_equal(other.to_numpy(), np.arange(16))
    t3 = d.create_texture(8, 4, 2, RF.RG16Float, mip_levels=1)  # 3D
    data = np.arange(8 * 4 * 2 * 2, dtype=np.float16).reshape(2, 4, 8, 2)
    t3.from_numpy(data)
    assert t3.to_numpy().shape == (2, 4, 8, 2) and t3.depth == 2
    np.testing.assert_array_equal(t3.to_numpy(), data)
    assert d.limits.max_shader_visible_samplers > 0


def _capturable_formats():
    """Every ResourceFormat a texture can have on the CPU, except depth formats (not captured)."""
    formats = []
    for name, fmt in falcor.ResourceFormat.__members__.items():
        try:
            falcor.Texture(1, 1, fmt)
        except falcor.RuntimeError:
            continue  # block-compressed: no CPU texture can have it
        formats.append(name)
    return formats


@pytest.mark.parametrize("fmt", _capturable_formats())
def test_every_format_can_be_captured(tmp_path, fmt):
    img = np.random.default_rng(2).random((4, 6, 4), dtype=np.float32)
    m = falcor.Renderer(6, 4)
    m.addGraph(source_graph("G", fmt, (TCF.RGB, TCF.RGBA, TCF.Red), img))
    m.frameCapture.outputDir = tmp_path
    m.renderFrame()
    m.frameCapture.capture()
    m.frameCapture.flush()
    assert len(os.listdir(tmp_path)) == 3


def test_captures_of_views_hold_their_own_frame(tmp_path):
    """The background writer must not see later frames' pixels (R8Unorm captures were views)."""
    frames = [np.full((4, 6, 4), v, np.float32) for v in (0.2, 0.6, 1.0)]
    m = falcor.Renderer(6, 4)
    g = source_graph("G", "R8Unorm", (TCF.RGB,), frames[0].copy())
    m.addGraph(g)
    m.frameCapture.outputDir = tmp_path
    m.frameCapture.baseFilename = "f"
    for i, frame in enumerate(frames):
        ArraySource.images["G-R8Unorm"][...] = frame
        m.clock.frame = i
        m.renderFrame()
        m.frameCapture.capture()
    m.frameCapture.flush()
    for i, frame in enumerate(frames):
        got = np.asarray(Image.open(tmp_path / f"f.Out.dst.{i}.png"))
        assert np.all(got == round(frame[0, 0, 0] * 255)), f"frame {i} holds {np.unique(got)}"
