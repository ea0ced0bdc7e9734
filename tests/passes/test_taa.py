"""TAA against a numpy version of Falcor's TAA.ps.slang: YCgCo color box of the 3x3 neighbourhood,
history along the longest motion vector with Catmull-Rom filtering (bilinear taps, wrap addressing),
clamp, anti-flicker and blend; the history kept across frames; properties, members and errors."""
import numpy as np
import pytest

import falcor
from helpers import ArraySource
from scene.scenes_for_tests import CORNELL

f32 = np.float32
H, W = 12, 16
# Falcor's neighbour order (it decides which of two equally long motion vectors wins).
OFFSETS = [(-1, -1), (-1, 1), (1, -1), (1, 1), (1, 0), (0, -1), (0, 1), (-1, 0)]


def ycgco(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    return np.stack([r * f32(0.25) + g * f32(0.5) + b * f32(0.25), r * f32(-0.25) + g * f32(0.5) + b * f32(-0.25),
                     r * f32(0.5) + b * f32(-0.5)], -1)


def rgb_from_ycgco(c):
    t = c[..., 0] - c[..., 1]
    return np.stack([t + c[..., 2], c[..., 0] + c[..., 1], t - c[..., 2]], -1)


def neighbours(img):
    """The image moved by each 3x3 offset, reading 0 outside (a GPU Load): center first, then OFFSETS."""
    padded = np.pad(img, ((1, 1), (1, 1), (0, 0)))
    h, w = img.shape[:2]
    return [padded[1 + dy:1 + dy + h, 1 + dx:1 + dx + w] for dx, dy in [(0, 0)] + OFFSETS]


def bilinear_wrap(img, u, v):
    h, w = img.shape[:2]
    x, y = u * f32(w) - f32(0.5), v * f32(h) - f32(0.5)
    x0, y0 = np.floor(x), np.floor(y)
    i0, i1 = np.mod(x0, w).astype(int), np.mod(x0 + 1, w).astype(int)
    j0, j1 = np.mod(y0, h).astype(int), np.mod(y0 + 1, h).astype(int)
    tx, ty = (x - x0)[..., None], (y - y0)[..., None]
    top = img[j0, i0] + (img[j0, i1] - img[j0, i0]) * tx
    bottom = img[j1, i0] + (img[j1, i1] - img[j1, i0]) * tx
    return top + (bottom - top) * ty


def catmull_rom_taps(pos, size):
    tc = np.floor(pos - f32(0.5)) + f32(0.5)
    f = pos - tc
    f2 = f * f
    f3 = f2 * f
    w0 = f2 - f32(0.5) * (f3 + f)
    w1 = f32(1.5) * f3 - f32(2.5) * f2 + f32(1)
    w3 = f32(0.5) * (f3 - f2)
    w2 = f32(1) - w0 - w1 - w3
    w12 = w1 + w2
    inv = f32(1) / f32(size)
    return [(tc - 1) * inv, (tc + w2 / w12) * inv, (tc + 2) * inv], [w0, w12, w3]


def catmull_rom(img, pos):
    (cx, wx), (cy, wy) = catmull_rom_taps(pos[..., 0], img.shape[1]), catmull_rom_taps(pos[..., 1], img.shape[0])
    out = np.zeros(pos.shape[:-1] + (3,), f32)
    for i in range(3):
        for j in range(3):
            out += bilinear_wrap(img[..., :3], cx[i], cy[j]) * (wx[i] * wy[j])[..., None]
    return out


def taa_reference(color, motion, history, alpha=0.1, sigma=1.0, anti_flicker=True):
    """One output frame of Falcor's TAA (RGBA, alpha 1)."""
    h, w = color.shape[:2]
    alpha, sigma = f32(alpha), f32(sigma)
    taps = [ycgco(c) for c in neighbours(color[..., :3])]
    mean, mean_sq = np.zeros_like(taps[0]), np.zeros_like(taps[0])
    for c in taps:
        mean, mean_sq = mean + c, mean_sq + c * c
    mean, mean_sq = mean * f32(1 / 9), mean_sq * f32(1 / 9)
    std = np.sqrt(np.maximum(f32(0), mean_sq - mean * mean))
    box_min, box_max = mean - sigma * std, mean + sigma * std

    mv = neighbours(motion[..., :2])
    longest = mv[0]
    for m in mv[1:]:
        longer = (m * m).sum(-1) > (longest * longest).sum(-1)
        longest = np.where(longer[..., None], m, longest)
    dims = np.array([w, h], f32)
    tex_c = (np.stack(np.meshgrid(np.arange(w), np.arange(h)), -1).astype(f32) + f32(0.5)) / dims
    past = ycgco(catmull_rom(history, (tex_c + longest) * dims))

    a = np.full((h, w), alpha, f32)
    if anti_flicker:
        dist = np.minimum(np.abs(box_min[..., 0] - past[..., 0]), np.abs(box_max[..., 0] - past[..., 0]))
        with np.errstate(invalid="ignore"):
            a = np.fmin(np.fmax((alpha * dist) / (dist + box_max[..., 0] - box_min[..., 0]), 0), 1)  # NaN (0 / 0) -> 0, as on a GPU
    past = np.fmin(np.fmax(past, box_min), box_max)
    rgb = rgb_from_ycgco(past + (taps[0] - past) * a[..., None])
    return np.concatenate([rgb, np.ones((h, w, 1), f32)], -1)


class TaaGraph:
    """TAA fed by sources whose images change between frames; `float_output` stores colorOut as
    RGBA32Float (through FormatCopy), otherwise it takes the graph's default format."""

    def __init__(self, props=None, float_output=True, size=(W, H)):
        self.g = falcor.RenderGraph("taa")
        self.taa = self.g.create_pass("TAA", "TAA", props or {})
        self.keys = {f: f"taa_{id(self)}_{f}" for f in ("colorIn", "motionVecs")}
        ArraySource.images[self.keys["colorIn"]] = np.zeros((size[1], size[0], 4), f32)
        ArraySource.images[self.keys["motionVecs"]] = np.zeros((size[1], size[0], 2), f32)
        for field, key in self.keys.items():
            self.g.create_pass(f"S{field}", "ArraySource", {"key": key})
            self.g.add_edge(f"S{field}.out", f"TAA.{field}")
        self.output = "TAA.colorOut"
        if float_output:
            self.g.create_pass("Copy", "FormatCopy", {"format": "RGBA32Float"})
            self.g.add_edge("TAA.colorOut", "Copy.src")
            self.output = "Copy.dst"
        self.g.mark_output(self.output)
        self.g.resize(*size)

    def run(self, color, motion):
        ArraySource.images[self.keys["colorIn"]] = color
        ArraySource.images[self.keys["motionVecs"]] = motion
        self.g.execute()
        return np.array(self.g.get_output(self.output)).astype(f32)


def frame_inputs(seed, h=H, w=W, motion_scale=0.15):
    rng = np.random.default_rng(seed)
    color = (rng.random((h, w, 4)) * 2).astype(f32)
    # Motion in UV units, some reaching past the border (wrap addressing) .
    motion = ((rng.random((h, w, 2)) - 0.5) * motion_scale).astype(f32)
    return color, motion


@pytest.mark.parametrize("props", [{}, {"alpha": 0.3, "colorBoxSigma": 2.0}, {"antiFlicker": False, "colorBoxSigma": 0.5}])
def test_frames_match_reference(props):
    """The first frame blends with a black history, later ones with the previous output."""
    graph = TaaGraph(props)
    args = dict(alpha=props.get("alpha", 0.1), sigma=props.get("colorBoxSigma", 1.0), anti_flicker=props.get("antiFlicker", True))
    history = np.zeros((H, W, 4), f32)
    for frame in range(3):
        color, motion = frame_inputs(seed=frame)
        out = graph.run(color, motion)
        expected = taa_reference(color, motion, history, **args)
        np.testing.assert_allclose(out, expected, rtol=2e-5, atol=2e-6, err_msg=f"frame {frame}")
        history = out
    assert np.abs(history[..., :3] - color[..., :3]).max() > 0.01  # the history mattered


def test_flat_image_is_finite():
    """A flat neighbourhood whose history sits in its (point-sized) box gives the anti-flicker ratio
    0 / 0; a GPU's clamp turns it into 0, and so must the pass (it once returned NaN)."""
    graph = TaaGraph()
    color, motion = np.full((H, W, 4), 0.5, f32), np.zeros((H, W, 2), f32)
    history = np.zeros((H, W, 4), f32)
    for frame in range(3):
        out = graph.run(color, motion)
        assert np.isfinite(out).all()
        np.testing.assert_allclose(out, taa_reference(color, motion, history), rtol=2e-5, atol=2e-6, err_msg=f"frame {frame}")
        history = out


def test_history_is_the_stored_output_format():
    """With the default (8-bit sRGB) output, the history is what the texture kept: the reference fed with
    the quantized first frame predicts the second to within the format's step."""
    graph = TaaGraph(float_output=False)
    c0, m0 = frame_inputs(seed=10, motion_scale=0.0)
    c1, m1 = frame_inputs(seed=11)
    first = graph.run(np.clip(c0, 0, 1), m0)[..., [2, 1, 0, 3]]  # the texels' order is B, G, R, A
    assert graph.g.get_output(graph.output).format == falcor.ResourceFormat.BGRA8UnormSrgb
    assert first.max() > 1  # bytes, 0..255
    second = graph.run(np.clip(c1, 0, 1), m1)[..., [2, 1, 0, 3]]
    srgb_to_linear = lambda v: np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4).astype(f32)
    history = srgb_to_linear(first / 255)
    expected = taa_reference(np.clip(c1, 0, 1), m1, history)
    np.testing.assert_allclose(srgb_to_linear(second[..., :3] / 255), expected[..., :3], atol=6e-3)


def test_history_restarts_on_resize():
    """As in Falcor, a frame at another size replaces the history by a black one."""
    graph = TaaGraph()
    color, motion = frame_inputs(seed=4)
    first = graph.run(color, motion)
    graph.run(*frame_inputs(seed=5))
    small = frame_inputs(seed=6, h=H // 2, w=W // 2)
    graph.g.resize(W // 2, H // 2)
    graph.run(*small)
    graph.g.resize(W, H)
    np.testing.assert_array_equal(graph.run(color, motion), first)


def test_python_members_and_properties():
    taa = falcor.createPass("TAA", {"alpha": 0.25, "colorBoxSigma": 3.0, "antiFlicker": False})
    assert (taa.alpha, taa.sigma, taa.antiFlicker) == (0.25, 3.0, False)
    taa.alpha, taa.sigma, taa.antiFlicker = 0.5, 1.5, True
    assert taa.getDictionary() == {"alpha": 0.5, "colorBoxSigma": 1.5, "antiFlicker": True}
    defaults = falcor.createPass("TAA").getDictionary()
    assert defaults == {"alpha": pytest.approx(0.1), "colorBoxSigma": 1.0, "antiFlicker": True}
    copy = falcor.createPass("TAA", taa.getDictionary())
    assert copy.getDictionary() == taa.getDictionary()


def test_members_change_the_output():
    color, motion = frame_inputs(seed=6)
    graph = TaaGraph()
    graph.run(color, motion)
    graph.taa.sigma = 0.0  # the box collapses to the mean: the history no longer matters
    history = np.random.default_rng(7).random((H, W, 4)).astype(f32)
    np.testing.assert_allclose(graph.run(color, motion), taa_reference(color, motion, history, sigma=0.0), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("props, match", [({"alpha": "high"}, "alpha"), ({"colorBoxSigma": [1]}, "colorBoxSigma"),
                                          ({"antiFlicker": 1.5}, "antiFlicker"), ({"alpha": float("nan")}, "alpha")])
def test_bad_properties_raise(props, match):
    with pytest.raises(Exception, match=match):
        falcor.createPass("TAA", props)


def test_bad_member_values_raise():
    taa = falcor.createPass("TAA")
    with pytest.raises(Exception, match="sigma"):
        taa.sigma = "wide"


def test_unknown_property_warns(capfd):
    falcor.createPass("TAA", {"alfa": 0.2})
    captured = capfd.readouterr()
    assert "Unknown property 'alfa' in TAA properties" in captured.out + captured.err


def test_mismatched_sizes_raise():
    g = falcor.RenderGraph("taa_sizes")
    g.create_pass("TAA", "TAA", {})
    ArraySource.images["taa_small_motion"] = np.zeros((H // 2, W // 2, 2), f32)
    ArraySource.images["taa_color"] = np.zeros((H, W, 4), f32)
    g.create_pass("M", "ArraySource", {"key": "taa_small_motion"})
    g.create_pass("C", "ArraySource", {"key": "taa_color"})
    g.add_edge("M.out", "TAA.motionVecs")
    g.add_edge("C.out", "TAA.colorIn")
    g.mark_output("TAA.colorOut")
    g.resize(W, H)
    with pytest.raises(Exception, match="motionVecs"):
        g.execute()


def test_same_bits_on_one_and_two_threads():
    """Rows are independent, so the result never depends on the thread count (a 1080p-wide image so
    several chunks run)."""
    results = []
    for threads in (1, 2):
        falcor.set_thread_count(threads)
        graph = TaaGraph(size=(96, 64))
        for seed in (20, 21):
            out = graph.run(*frame_inputs(seed, h=64, w=96))
        results.append(out)
    falcor.set_thread_count(2)
    assert results[0].tobytes() == results[1].tobytes()


def test_antialiases_the_cornell_box():
    """Falcor's TAA graph (GBufferRaster with Halton jitter -> TAA) on the diffuse albedo of a 32x32
    Cornell box, against the mean of 64 jittered frames (the anti-aliased image). Measured mean
    absolute error after 32 frames: 0.0036 for TAA, 0.0181 for one unjittered frame (the aliased
    image); asserted with a 2x margin. Anti-flicker is off: with it, a history that starts black
    reaches the box edge with a blend weight near 0 and lightens only slowly, as in Falcor."""
    m = falcor.Renderer()

    def gbuffer_graph(name, pattern, count=16):
        g = falcor.RenderGraph(name)
        g.create_pass("GBuffer", "GBufferRaster", {"samplePattern": pattern, "sampleCount": count})
        return g

    reference = gbuffer_graph("taa_reference", "Halton", 64)
    reference.create_pass("Accumulate", "AccumulatePass", {})
    reference.add_edge("GBuffer.diffuseOpacity", "Accumulate.input")
    reference.mark_output("Accumulate.output")
    m.addGraph(reference)
    m.loadScene(str(CORNELL))
    m.resizeFrameBuffer(32, 32)
    for _ in range(64):
        m.renderFrame()
    antialiased = np.array(reference.getOutput("Accumulate.output"))[..., :3]

    aliased_graph = gbuffer_graph("taa_aliased", "Center")
    aliased_graph.mark_output("GBuffer.diffuseOpacity")
    m.addGraph(aliased_graph)
    m.setActiveGraph(aliased_graph)
    m.renderFrame()
    aliased = np.array(aliased_graph.getOutput("GBuffer.diffuseOpacity"))[..., :3]

    g = gbuffer_graph("taa_cornell", "Halton")
    g.create_pass("TAA", "TAA", {"antiFlicker": False})
    g.add_edge("GBuffer.diffuseOpacity", "TAA.colorIn")
    g.add_edge("GBuffer.mvec", "TAA.motionVecs")
    g.create_pass("Copy", "FormatCopy", {"format": "RGBA32Float"})
    g.add_edge("TAA.colorOut", "Copy.src")
    g.mark_output("Copy.dst")
    m.addGraph(g)
    m.setActiveGraph(g)
    for _ in range(32):
        m.renderFrame()
    taa_error = np.abs(np.array(g.getOutput("Copy.dst"))[..., :3] - antialiased).mean()
    aliased_error = np.abs(aliased - antialiased).mean()
    assert taa_error < 0.4 * aliased_error, (taa_error, aliased_error)
