"""DLSSPass, the CPU replacement of Falcor's DLSS pass (a temporal anti-aliasing upscaler): options
and errors as Falcor's, the output size per profile and outputSize, convergence of a jittered
upscaled image to the supersampled one, no ghosting under a moving camera, determinism across
thread counts, Falcor's DLSS graph, and path-traced HDR input as scripts/PathTracerNRD.py feeds it
(that script's whole graph runs in test_oidn_denoisers.py)."""
from pathlib import Path

import numpy as np
import pytest

import falcor
from helpers import ArraySource, run_python
from test_gbuffer_raster_graphs import dlss_graph

f32 = np.float32
CORNELL = str(Path(__file__).resolve().parents[2] / "Scenes" / "CornellBox.pyscene")
DEFAULTS = {"enabled": True, "outputSize": "Default", "profile": "Balanced", "motionVectorScale": "Absolute", "isHDR": True,
            "sharpness": 0.0, "exposure": 0.0}
LOW, HIGH = 16, 32  # input and output sizes of the scene tests


def test_defaults_and_round_trip():
    assert falcor.createPass("DLSSPass").getDictionary() == DEFAULTS
    props = {"enabled": False, "outputSize": "Fixed", "profile": "MaxQuality", "motionVectorScale": "Relative", "isHDR": False,
             "sharpness": -0.5, "exposure": 1.5}
    assert falcor.createPass("DLSSPass", props).getDictionary() == props
    for profile in ("MaxPerf", "Balanced", "MaxQuality"):
        assert falcor.createPass("DLSSPass", {"profile": profile}).getDictionary()["profile"] == profile


@pytest.mark.parametrize("props, words", [
    ({"enabled": "yes"}, ["DLSSPass", "enabled"]),
    ({"profile": "UltraPerformance"}, ["DLSSPass", "profile", "MaxQuality"]),
    ({"motionVectorScale": "Pixels"}, ["DLSSPass", "motionVectorScale", "Relative"]),
    ({"outputSize": "Triple"}, ["DLSSPass", "outputSize"]),
    ({"sharpness": 1.5}, ["DLSSPass", "sharpness", "[-1, 1]"]),
    ({"exposure": float("nan")}, ["DLSSPass", "exposure", "finite"]),
])
def test_bad_options_name_pass_and_property(props, words):
    with pytest.raises(Exception) as info:
        falcor.createPass("DLSSPass", props)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_warns_once_that_it_is_not_dlss():
    result = run_python("import falcor\nfor _ in range(3): falcor.createPass('DLSSPass')\n")
    log = result.stdout + result.stderr
    assert log.count("not NVIDIA DLSS") == 1, log


def source_graph(name, size, props, inputs=None):
    """DLSSPass fed by ArraySource images (color, depth, mvec) of `size` (w, h)."""
    g = falcor.RenderGraph(name)
    g.create_pass("DLSS", "DLSSPass", props)
    w, h = size
    inputs = inputs or {}
    for field, channels in (("color", 4), ("depth", 1), ("mvec", 2)):
        key = f"dlss_{name}_{field}"
        ArraySource.images[key] = inputs.get(field, np.zeros((h, w, channels), f32))
        g.create_pass(f"S{field}", "ArraySource", {"key": key})
        g.add_edge(f"S{field}.out", f"DLSS.{field}")
    g.mark_output("DLSS.output")
    return g


def dlss_output_size(size, ratio):
    """NGX's render size of an output as large as the input is round(ratio * size); DLSS's output
    grows the input by size / render size, truncated (Falcor's DLSSPass)."""
    return tuple(int(s * s / max(1, round(s * ratio))) for s in size)


@pytest.mark.parametrize("profile, ratio", [("MaxPerf", 0.5), ("Balanced", 0.58), ("MaxQuality", 2 / 3)])
def test_fixed_output_size_per_profile(profile, ratio):
    size = (40, 24)
    g = source_graph(f"fixed_{profile}", size, {"outputSize": "Fixed", "profile": profile})
    g.resize(64, 64)
    g.execute()
    out = g.get_output("DLSS.output")
    assert (out.width, out.height) == dlss_output_size(size, ratio)
    assert out.format == falcor.ResourceFormat.RGBA32Float
    expected = {"MaxPerf": (80, 48), "Balanced": (69, 41), "MaxQuality": (59, 36)}[profile]
    assert (out.width, out.height) == expected


@pytest.mark.parametrize("selection, expected", [("Default", (64, 48)), ("Full", (64, 48)), ("Half", (32, 24)), ("Double", (128, 96))])
def test_output_size_follows_io_size(selection, expected):
    g = source_graph(f"io_{selection}", (20, 12), {"outputSize": selection})
    g.resize(64, 48)
    g.execute()
    out = g.get_output("DLSS.output")
    assert (out.width, out.height) == expected


def test_without_scene_blits_color():
    """As Falcor's pass, no scene (or enabled False) copies `color` to the output (resized bilinearly)."""
    color = np.random.default_rng(1).random((12, 16, 4)).astype(f32)
    g = source_graph("blit", (16, 12), {}, {"color": color})
    g.resize(16, 12)
    g.execute()
    np.testing.assert_array_equal(g.get_output("DLSS.output").to_numpy(), color)


def test_mismatched_input_size_names_the_field():
    g = source_graph("mismatch", (16, 12), {}, {"depth": np.zeros((6, 8, 1), f32)})
    g.resize(16, 12)
    with pytest.raises(Exception, match="DLSSPass.*depth.*8x6"):
        g.execute()


class SceneFrames:
    """One Renderer on the Cornell box at HIGH x HIGH; a GBufferRT at LOW x LOW (Halton jitter) feeds
    DLSSPass with its diffuse albedo (sharp edges, no noise), as Falcor's DLSS graph does."""

    def __init__(self, scene=CORNELL):
        self.m = falcor.Renderer(HIGH, HIGH)
        self.m.loadScene(scene)
        self.m.clock.pause()

    def add(self, graph):
        self.m.addGraph(graph)
        self.m.setActiveGraph(graph)
        return graph

    def dlss(self, name, props=None, zero_motion=False, gbuffer=None):
        g = falcor.RenderGraph(name)
        g.create_pass("GBuffer", "GBufferRT", {"samplePattern": "Halton", "sampleCount": 16, "outputSize": "Fixed",
                                               "fixedOutputSize": [LOW, LOW], **(gbuffer or {})})
        g.create_pass("DLSS", "DLSSPass", {"motionVectorScale": "Relative", **(props or {})})
        g.add_edge("GBuffer.diffuseOpacity", "DLSS.color")
        g.add_edge("GBuffer.depth", "DLSS.depth")
        if zero_motion:  # the history is never moved: what reprojection prevents
            key = f"zero_{name}"
            ArraySource.images[key] = np.zeros((LOW, LOW, 2), f32)
            g.create_pass("Zero", "ArraySource", {"key": key})
            g.add_edge("Zero.out", "DLSS.mvec")
        else:
            g.add_edge("GBuffer.mvec", "DLSS.mvec")
        g.mark_output("DLSS.output")
        return self.add(g)

    def reference(self, name, frames=64):
        """The supersampled image: the mean of `frames` Halton-jittered albedo frames at HIGH x HIGH."""
        g = falcor.RenderGraph(name)
        g.create_pass("GBuffer", "GBufferRT", {"samplePattern": "Halton", "sampleCount": frames})
        g.create_pass("Accumulate", "AccumulatePass", {})
        g.add_edge("GBuffer.diffuseOpacity", "Accumulate.input")
        g.mark_output("Accumulate.output")
        self.add(g)
        for _ in range(frames):
            self.m.renderFrame()
        return g.getOutput("Accumulate.output").to_numpy()[..., :3]

    def run(self, graph, frames, each_frame=None):
        self.m.setActiveGraph(graph)
        for i in range(frames):
            if each_frame:
                each_frame(i)
            self.m.renderFrame()
        return graph.getOutput("DLSS.output").to_numpy()[..., :3]


def mean_abs_error(a, b):
    return float(np.abs(a - b).mean())


@pytest.fixture(scope="module")
def frames():
    return SceneFrames()


def aliased_native(frames, name):
    """One unjittered albedo frame rendered at the output size: the aliased native image."""
    g = falcor.RenderGraph(name)
    g.create_pass("GBuffer", "GBufferRT", {})
    g.mark_output("GBuffer.diffuseOpacity")
    frames.add(g)
    frames.m.renderFrame()
    return g.getOutput("GBuffer.diffuseOpacity").to_numpy()[..., :3]


def test_static_scene_converges_to_supersampled_image(frames):
    """16x16 jittered albedo upscaled to 32x32 against the 64-sample mean at 32x32. Measured mean
    absolute error: 0.0306 after 1 frame, 0.0144 after 32 frames; an unjittered frame rendered at
    32x32 has 0.0184. Asserted: 32 frames below 0.6x the first frame's error and below the
    native aliased frame's."""
    reference = frames.reference("dlss_reference")
    g = frames.dlss("dlss_static")
    first = mean_abs_error(frames.run(g, 1), reference)
    converged = mean_abs_error(frames.run(g, 31), reference)
    native = mean_abs_error(aliased_native(frames, "dlss_native"), reference)
    assert converged < 0.6 * first, (converged, first)
    assert converged < native, (converged, native)


def pan_camera(m, frame):
    """Moves the camera (and its target) 0.01 to the right per frame, about a third of an output pixel."""
    x = 0.01 * frame
    m.scene.camera.position = falcor.float3(x, 0.28, 1.2)
    m.scene.camera.target = falcor.float3(x, 0.28, 0.0)


def test_moving_camera_does_not_ghost(frames):
    """The camera pans for 24 frames; the output at the last frame against the supersampled image from
    there. Measured mean absolute error: 0.0132 with the G-buffer's motion vectors, 0.0468 with zero
    motion vectors (the history smeared along the pan), 0.0160 for a fresh pass's first frame there
    (no history). Asserted: below 0.5x the zero-motion error and below 1.2x the fresh frame's."""
    try:
        moving = frames.run(frames.dlss("dlss_moving"), 24, lambda i: pan_camera(frames.m, i))
        pan_camera(frames.m, 0)
        frames.m.renderFrame()
        smeared = frames.run(frames.dlss("dlss_zero_motion", zero_motion=True), 24, lambda i: pan_camera(frames.m, i))
        reference = frames.reference("dlss_moving_reference")
        fresh = frames.run(frames.dlss("dlss_fresh"), 1)
    finally:
        pan_camera(frames.m, 0)
    moving_error, ghost_error, fresh_error = (mean_abs_error(img, reference) for img in (moving, smeared, fresh))
    assert moving_error < 0.5 * ghost_error, (moving_error, ghost_error)
    assert moving_error < 1.2 * fresh_error, (moving_error, fresh_error)


TWO_CAMERAS = f"""from pathlib import Path
_cornell = Path(r'{CORNELL}')
exec(compile(_cornell.read_text(), str(_cornell), 'exec'), {{**globals(), '__file__': str(_cornell)}})
second = Camera('second')  # the same view as the first: only the switch itself differs
second.position = float3(0, 0.28, 1.2)
second.target = float3(0, 0.28, 0)
second.up = float3(0, 1, 0)
second.focalLength = 35.0
second.aspectRatio = 1.0  # the renderer sets only the selected camera's to the frame's (square here)
sceneBuilder.addCamera(second)
"""


@pytest.mark.parametrize("event", ["new scene", "camera switch"])
def test_history_restarts(event, tmp_path):
    """Without jitter the inputs repeat, yet the history's clamp makes later frames differ from the
    first; loading the scene again, or switching to an identical camera, restarts the history, so the
    next frame equals the first."""
    scene_path = tmp_path / "two_cameras.pyscene"
    scene_path.write_text(TWO_CAMERAS)
    scene = SceneFrames(str(scene_path))
    g = scene.dlss("dlss_restart", gbuffer={"samplePattern": "Center"})
    first = scene.run(g, 1)
    later = scene.run(g, 6)
    assert np.abs(later - first).max() > 1e-3
    if event == "new scene":
        scene.m.loadScene(str(scene_path))
    else:
        scene.m.scene.camera = scene.m.scene.cameras[1]
    np.testing.assert_array_equal(scene.run(g, 1), first)


def render_dlss(threads, props):
    falcor.set_thread_count(threads)
    try:
        scene = SceneFrames()
        return scene.run(scene.dlss(f"dlss_threads_{threads}", props), 3)
    finally:
        falcor.set_thread_count(2)


@pytest.mark.parametrize("props", [{}, {"sharpness": 0.7, "isHDR": False}])
def test_bit_identical_on_one_and_two_threads(props):
    np.testing.assert_array_equal(render_dlss(1, props), render_dlss(2, props))


class ScaleColor(falcor.RenderPass):
    """Multiplies `src` (RGB) by the `scale` property into an RGBA32Float `dst`."""

    def __init__(self, props):
        super().__init__()
        self.scale = f32(props["scale"])

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_input("src", "")
        r.add_output("dst", "").format(falcor.ResourceFormat.RGBA32Float).texture2D(LOW, LOW)
        return r

    def execute(self, render_context, render_data):
        src = np.asarray(render_data["src"])
        dst = np.asarray(render_data["dst"])
        dst[..., :3] = src[..., :3] * self.scale
        dst[..., 3] = 1


falcor.register_render_pass(ScaleColor, "DLSSTestScaleColor", "Test pass scaling a color")


def twin_graph(frames, name, variants, scale=None):
    """One jittered LOW x LOW G-buffer feeding several DLSSPasses (`variants`: name -> options) with the
    same inputs on the same frames; `scale` maps a variant to a factor its color is multiplied by."""
    g = falcor.RenderGraph(name)
    g.create_pass("GBuffer", "GBufferRT", {"samplePattern": "Halton", "sampleCount": 16, "outputSize": "Fixed",
                                           "fixedOutputSize": [LOW, LOW]})
    for variant, props in variants.items():
        g.create_pass(variant, "DLSSPass", {"motionVectorScale": "Relative", **props})
        color = "GBuffer.diffuseOpacity"
        if scale and variant in scale:
            g.create_pass(f"Scale{variant}", "DLSSTestScaleColor", {"scale": scale[variant]})
            g.add_edge(color, f"Scale{variant}.src")
            color = f"Scale{variant}.dst"
        g.add_edge(color, f"{variant}.color")
        g.add_edge("GBuffer.depth", f"{variant}.depth")
        g.add_edge("GBuffer.mvec", f"{variant}.mvec")
        g.mark_output(f"{variant}.output")
    frames.add(g)
    return g


def sharpen_reference(rgb, sharpness):
    """DLSSPass's sharpening of an LDR image: in YCgCo, c + s (c - mean of the 4 neighbours, edges
    clamped), kept within the 5 taps' range; negative RGB stored as 0."""
    c = ycgco(rgb)
    padded = np.pad(c, ((1, 1), (1, 1), (0, 0)), mode="edge")
    taps = [padded[1:-1, :-2], padded[1:-1, 2:], padded[:-2, 1:-1], padded[2:, 1:-1]]
    mean = sum(t * f32(0.25) for t in taps)
    low, high = np.minimum.reduce([c] + taps), np.maximum.reduce([c] + taps)
    return np.maximum(rgb_from_ycgco(np.clip(c + (c - mean) * f32(sharpness), low, high)), 0)


def ycgco(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return np.stack([r * 0.25 + g * 0.5 + b * 0.25, r * -0.25 + g * 0.5 + b * -0.25, r * 0.5 + b * -0.5], -1).astype(f32)


def rgb_from_ycgco(c):
    t = c[..., 0] - c[..., 1]
    return np.stack([t + c[..., 2], c[..., 0] + c[..., 1], t - c[..., 2]], -1)


def test_sharpness_filters_the_output_only(frames):
    """Three passes on the same inputs, sharpness 0, 0.8 and -1: after 6 frames the sharpened outputs
    are the unsharpened one filtered (numpy), so the history never saw the filter; 0.8 raises the
    mean horizontal step (measured 0.0475 against 0.0466) and -1 lowers it (0.0457); asserted by 1%."""
    variants = {"Plain": {"isHDR": False}, "Sharp": {"isHDR": False, "sharpness": 0.8}, "Soft": {"isHDR": False, "sharpness": -1.0}}
    g = twin_graph(frames, "dlss_sharpness", variants)
    for _ in range(6):
        frames.m.renderFrame()
    plain, sharp, soft = (g.getOutput(f"{v}.output").to_numpy()[..., :3] for v in variants)
    np.testing.assert_allclose(sharp, sharpen_reference(plain, 0.8), atol=2e-6)
    np.testing.assert_allclose(soft, sharpen_reference(plain, -1.0), atol=2e-6)
    contrast = lambda img: np.abs(np.diff(img, axis=1)).mean()
    assert contrast(sharp) > 1.01 * contrast(plain) > 1.01 * contrast(soft)


def test_exposure_sets_the_hdr_tone_map_scale(frames):
    """With isHDR, the accumulation runs on the tone map of color * 2^exposure and the output is scaled
    back: color x100 with exposure -log2(100) gives 100x the output of color with exposure 0; without
    the exposure the same bright color accumulates differently (edges average in another space)."""
    variants = {"Base": {}, "Bright": {"exposure": -float(np.log2(100))}, "BrightUnexposed": {}}
    g = twin_graph(frames, "dlss_exposure", variants, scale={"Bright": 100, "BrightUnexposed": 100})
    for _ in range(6):
        frames.m.renderFrame()
    base, bright, unexposed = (g.getOutput(f"{v}.output").to_numpy()[..., :3] for v in variants)
    np.testing.assert_allclose(bright, base * 100, rtol=1e-4, atol=1e-4)
    assert np.abs(unexposed - base * 100).max() > 1


def test_falcors_dlss_graph(frames):
    """Falcor's tests/image_tests/renderpasses/graphs/DLSS.py (built by test_gbuffer_raster_graphs.py):
    the rasterized albedo anti-aliased at the frame size. Measured mean absolute error to the
    64-sample image after 16 frames: 0.0096 against 0.0231 for the G-buffer's own (jittered,
    aliased) frame; asserted below 0.6x."""
    reference = frames.reference("dlss_graph_reference")
    g = frames.add(dlss_graph())
    for _ in range(16):
        frames.m.renderFrame()
    out = g.getOutput("DLSSPass.output")
    assert (out.width, out.height) == (HIGH, HIGH)
    upscaled = mean_abs_error(out.to_numpy()[..., :3], reference)
    aliased = mean_abs_error(g.getOutput("GBufferRaster.diffuseOpacity").to_numpy()[..., :3], reference)
    assert upscaled < 0.6 * aliased, (upscaled, aliased)


def test_hdr_path_traced_input_keeps_displayed_brightness():
    """DLSSPass as scripts/PathTracerNRD.py sets it up (Balanced, Relative, isHDR, GBufferRT's linearZ as
    depth; that script's whole graph runs in tests/passes/test_oidn_denoisers.py) on 1-spp path-traced
    HDR color of a 24x24 Cornell box, 4 frames, both tone-mapped as the script does: the displayed
    upscaled image keeps the input's brightness and is smoother. Measured: means 77.3 and 73.2 of 255
    (a smoother image displays brighter: the tone map is concave), mean horizontal steps 22.4 and 41.3.
    Asserted: the mean within -3%..+10% of the input's, the step below 0.75x. Linear means differ
    more: the HDR accumulation averages tone-mapped colors, which dims the light's few very bright
    pixels where they meet dark ones."""
    g = falcor.RenderGraph("dlss_hdr")
    g.create_pass("GBufferRT", "GBufferRT", {"samplePattern": "Halton", "sampleCount": 32})
    g.create_pass("PathTracer", "PathTracer", {"samplesPerPixel": 1})
    g.create_pass("DLSS", "DLSSPass", {"profile": "Balanced", "motionVectorScale": "Relative", "isHDR": True})
    for name in ("ToneMapperDLSS", "ToneMapperInput"):
        g.create_pass(name, "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0})
        g.mark_output(f"{name}.dst")
    for src, dst in [("GBufferRT.vbuffer", "PathTracer.vbuffer"), ("GBufferRT.viewW", "PathTracer.viewW"), ("GBufferRT.mvec", "DLSS.mvec"),
                     ("GBufferRT.linearZ", "DLSS.depth"), ("PathTracer.color", "DLSS.color"), ("DLSS.output", "ToneMapperDLSS.src"),
                     ("PathTracer.color", "ToneMapperInput.src")]:
        g.add_edge(src, dst)
    m = falcor.Renderer(24, 24)
    m.addGraph(g)
    m.loadScene(CORNELL)
    for _ in range(4):
        m.renderFrame()
    shown, noisy = (np.asarray(g.getOutput(f"{name}.dst"))[..., :3].astype(np.float64) for name in ("ToneMapperDLSS", "ToneMapperInput"))
    assert 0.97 * noisy.mean() < shown.mean() < 1.1 * noisy.mean(), (shown.mean(), noisy.mean())
    assert np.abs(np.diff(shown, axis=1)).mean() < 0.75 * np.abs(np.diff(noisy, axis=1)).mean()
