"""DebugPasses plugin: ColorMapPass, InvalidPixelDetectionPass, SideBySidePass, SplitScreenPass.

References below are numpy transcriptions of Falcor's shaders: ColorMapPass.ps.slang with
Utils/Color/ColorMap.slang, InvalidPixelDetection.ps.slang, and Comparison.ps.slang with
SideBySide.ps.slang / SplitScreen.ps.slang.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture, run_pass

F32 = falcor.ResourceFormat.RGBA32Float
_keys = itertools.count()


class PassGraph:
    """One pass fed by ArraySource inputs, run frame by frame.

    The graph's default format is RGBA32Float unless told otherwise, so default-format outputs come
    back as exact floats instead of sRGB bytes.
    """

    def __init__(self, pass_type, props, inputs, outputs, size=None, default_format=F32, input_formats=None):
        self.graph = falcor.RenderGraph("debugpasses")
        self.graph.create_pass("P", pass_type, props)
        self.keys = {}
        for field, img in inputs.items():
            self.keys[field] = f"debugpasses{next(_keys)}"
            ArraySource.images[self.keys[field]] = img
            fmt = (input_formats or {}).get(field)
            self.graph.create_pass(f"Src_{field}", "ArraySource", {"key": self.keys[field], **({"format": fmt} if fmt else {})})
            self.graph.add_edge(f"Src_{field}.out", f"P.{field}")
        first = next(iter(inputs.values()))
        w, h = size or (first.shape[1], first.shape[0])
        self.graph.resize(w, h, default_format)
        self.outputs = outputs
        for o in outputs:
            self.graph.mark_output(f"P.{o}")

    def set_input(self, field, img):
        ArraySource.images[self.keys[field]] = img

    def run(self, frames=1):
        for _ in range(frames):
            self.graph.execute()
        return {o: read_texture(self.graph.get_output(f"P.{o}")) for o in self.outputs}

    @property
    def props(self):
        return self.graph.get_pass("P").getDictionary()

    def round_trip(self):
        before = self.props
        self.graph.update_pass("P", before)
        return before, self.props


def gpu_saturate(v):
    """HLSL saturate: clamp to [0, 1], NaN -> 0."""
    return np.fmin(np.fmax(v, np.float32(0)), np.float32(1))


# ---------------------------------------------------------------------------------------------
# ColorMapPass
# ---------------------------------------------------------------------------------------------

# Falcor's ColorMap.slang: degree-6 polynomial fits (c0..c6, RGB) of the matplotlib maps.
POLYNOMIALS = {
    "Viridis": [
        (0.2777273272234177, 0.005407344544966578, 0.3340998053353061),
        (0.1050930431085774, 1.404613529898575, 1.384590162594685),
        (-0.3308618287255563, 0.214847559468213, 0.09509516302823659),
        (-4.634230498983486, -5.799100973351585, -19.33244095627987),
        (6.228269936347081, 14.17993336680509, 56.69055260068105),
        (4.776384997670288, -13.74514537774601, -65.35303263337234),
        (-5.435455855934631, 4.645852612178535, 26.3124352495832),
    ],
    "Plasma": [
        (0.05873234392399702, 0.02333670892565664, 0.5433401826748754),
        (2.176514634195958, 0.2383834171260182, 0.7539604599784036),
        (-2.689460476458034, -7.455851135738909, 3.110799939717086),
        (6.130348345893603, 42.3461881477227, -28.51885465332158),
        (-11.10743619062271, -82.66631109428045, 60.13984767418263),
        (10.02306557647065, 71.41361770095349, -54.07218655560067),
        (-3.658713842777788, -22.93153465461149, 18.19190778539828),
    ],
    "Magma": [
        (-0.002136485053939582, -0.000749655052795221, -0.005386127855323933),
        (0.2516605407371642, 0.6775232436837668, 2.494026599312351),
        (8.353717279216625, -3.577719514958484, 0.3144679030132573),
        (-27.66873308576866, 14.26473078096533, -13.64921318813922),
        (52.17613981234068, -27.94360607168351, 12.94416944238394),
        (-50.76852536473588, 29.04658282127291, 4.23415299384598),
        (18.65570506591883, -11.48977351997711, -5.601961508734096),
    ],
    "Inferno": [
        (0.0002189403691192265, 0.001651004631001012, -0.01948089843709184),
        (0.1065134194856116, 0.5639564367884091, 3.932712388889277),
        (11.60249308247187, -3.972853965665698, -15.9423941062914),
        (-41.70399613139459, 17.43639888205313, 44.35414519872813),
        (77.162935699427, -33.40235894210092, -81.80730925738993),
        (-71.31942824499214, 32.62606426397723, 73.20951985803202),
        (25.13112622477341, -12.24266895238567, -23.07032500287172),
    ],
}
COLOR_MAPS = ["Grey", "Jet", "Viridis", "Plasma", "Magma", "Inferno"]


def color_map(name, x):
    """RGB of Falcor's color map `name` at values x (any shape), in float32."""
    x = gpu_saturate(np.asarray(x, np.float32))[..., None]
    if name == "Grey":
        return np.repeat(x, 3, axis=-1)
    if name == "Jet":
        return gpu_saturate(np.float32(1.5) - np.abs(np.float32(4) * x - np.float32([3, 2, 1])))
    coeffs = np.float32(POLYNOMIALS[name])
    c = coeffs[6]
    for k in range(5, -1, -1):
        c = coeffs[k] + x * c
    return gpu_saturate(c)


def normalize(v, lo, hi):
    lo, hi = np.float32(lo), np.float32(hi)
    if lo == hi:
        return np.zeros_like(v, np.float32)
    return gpu_saturate((np.float32(v) - lo) / (hi - lo))


def color_map_output(name, v, lo, hi):
    rgb = color_map(name, normalize(v, lo, hi))
    return np.concatenate([rgb, np.ones(rgb.shape[:-1] + (1,), np.float32)], axis=-1)


def ramp(w, h, lo, hi):
    return np.linspace(lo, hi, w * h, dtype=np.float32).reshape(h, w, 1)


@pytest.mark.parametrize("name", COLOR_MAPS)
def test_color_map_values(name):
    # Endpoints, midpoints and out-of-range values, with a manual range of [0, 1].
    values = np.float32([0, 1, 0.5, 0.25, 0.75, 0.125, 0.375, -0.5, 1.5, 1e-3, 0.999, 0.6]).reshape(3, 4, 1)
    values = np.concatenate([values, ramp(4, 13, 0, 1)], axis=0)
    out = PassGraph("ColorMapPass", {"colorMap": name, "autoRange": False}, {"input": values}, ["output"]).run()["output"]
    np.testing.assert_allclose(out, color_map_output(name, values[..., 0], 0, 1), rtol=0, atol=2e-6)


# matplotlib's own endpoint colors; Falcor's polynomial fits are within ~0.02 of them.
MATPLOTLIB_ENDPOINTS = {
    "Viridis": [(0.267004, 0.004874, 0.329415), (0.993248, 0.906157, 0.143936)],
    "Plasma": [(0.050383, 0.029803, 0.527975), (0.940015, 0.975158, 0.131326)],
    "Magma": [(0.001462, 0.000466, 0.013866), (0.987053, 0.991438, 0.749504)],
    "Inferno": [(0.001462, 0.000466, 0.013866), (0.988362, 0.998364, 0.644924)],
    "Jet": [(0, 0, 0.5), (0.5, 0, 0)],
    "Grey": [(0, 0, 0), (1, 1, 1)],
}


@pytest.mark.parametrize("name", COLOR_MAPS)
def test_color_map_endpoints_resemble_matplotlib(name):
    out = PassGraph("ColorMapPass", {"colorMap": name, "autoRange": False}, {"input": np.float32([[[0], [1]]])}, ["output"]).run()["output"]
    np.testing.assert_allclose(out[0, :, :3], MATPLOTLIB_ENDPOINTS[name], atol=0.03)


def test_jet_known_values():
    out = PassGraph("ColorMapPass", {"autoRange": False}, {"input": np.float32([[[0.25], [0.5], [0.75]]])}, ["output"]).run()["output"]
    np.testing.assert_array_equal(out[0, :, :3], [[0, 0.5, 1], [0.5, 1, 0.5], [1, 0.5, 0]])


@pytest.mark.parametrize("channel", [0, 1, 2, 3])
def test_channel_selection_and_manual_range(channel):
    rng = np.random.default_rng(channel)
    img = rng.uniform(-3, 5, (6, 7, 4)).astype(np.float32)
    props = {"colorMap": "Viridis", "channel": channel, "autoRange": False, "minValue": -1.0, "maxValue": 3.0}
    out = PassGraph("ColorMapPass", props, {"input": img}, ["output"]).run()["output"]
    np.testing.assert_allclose(out, color_map_output("Viridis", img[..., channel], -1, 3), atol=2e-6)


def test_empty_range_maps_everything_to_start():
    img = ramp(5, 3, -2, 2)
    out = PassGraph("ColorMapPass", {"autoRange": False, "minValue": 0.5, "maxValue": 0.5}, {"input": img}, ["output"]).run()["output"]
    np.testing.assert_array_equal(out, np.broadcast_to(color_map_output("Jet", 0, 0, 1), out.shape))


def test_missing_channels_read_as_gpu_defaults():
    # A one-channel input reads (r, 0, 0, 1): green is 0, alpha is 1.
    img = ramp(4, 2, 0, 1)
    for channel, expected in [(1, 0.0), (3, 1.0)]:
        props = {"colorMap": "Grey", "channel": channel, "autoRange": False}
        out = PassGraph("ColorMapPass", props, {"input": img}, ["output"]).run()["output"]
        np.testing.assert_array_equal(out[..., :3], expected)


@pytest.mark.parametrize("dtype", [np.uint32, np.int32])
def test_integer_inputs(dtype):
    img = np.arange(-6, 6).reshape(3, 4, 1).astype(dtype) if dtype == np.int32 else np.arange(12, dtype=dtype).reshape(3, 4, 1) * 7
    props = {"colorMap": "Plasma", "autoRange": False, "minValue": -2.0, "maxValue": 40.0}
    out = PassGraph("ColorMapPass", props, {"input": img}, ["output"]).run()["output"]
    np.testing.assert_allclose(out, color_map_output("Plasma", img[..., 0].astype(np.float32), -2, 40), atol=2e-6)


def test_default_output_format_is_srgb_bytes():
    # With the usual BGRA8UnormSrgb frame buffer the colors are sRGB-encoded bytes (B, G, R, A order).
    img = ramp(8, 2, 0, 1)
    out = run_pass("ColorMapPass", {"autoRange": False, "colorMap": "Magma"}, {"input": img}, ["output"])["output"]
    linear = color_map_output("Magma", img[..., 0], 0, 1)
    srgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.power(linear, 1 / 2.4) - 0.055)
    np.testing.assert_allclose(out[..., [2, 1, 0, 3]], np.round(srgb * 255), atol=1)


def simulate_auto_range(frames, channel_range, lo=0.0, hi=1.0):
    """Falcor's auto range over a frame sequence: yields the (minValue, maxValue) each frame uses.

    The GPU min/max reduction is read back one frame late, so frame 0 keeps the manual range and
    frame n uses the range of frame n-1's input: it grows at once and shrinks by lerp(0.01).
    """
    tracked, pending = None, None
    for img in frames:
        if pending is None:
            tracked = [float(lo), float(hi)]
        else:
            mn, mx = float(pending[0]), float(pending[1])  # Falcor tracks the range in double
            tracked[0] = (1 - 0.01) * min(tracked[0], mn) + 0.01 * mn
            tracked[1] = (1 - 0.01) * max(tracked[1], mx) + 0.01 * mx
            lo, hi = np.float32(tracked[0]), np.float32(tracked[1])
        pending = channel_range(img)
        yield float(lo), float(hi)


def test_auto_range_over_frames():
    rng = np.random.default_rng(7)
    narrow = rng.uniform(0.2, 0.6, (5, 6, 4)).astype(np.float32)
    wide = rng.uniform(-1, 2, (5, 6, 4)).astype(np.float32)
    wide[0, 0, 1], wide[4, 5, 1] = -1, 2
    small = rng.uniform(0.4, 0.5, (5, 6, 4)).astype(np.float32)
    small[2, 3, 1] = np.nan  # ignored by the reduction, shown as the start of the map
    frames = [narrow] * 3 + [wide] * 2 + [small] * 6

    g = PassGraph("ColorMapPass", {"channel": 1, "colorMap": "Inferno"}, {"input": narrow}, ["output"])
    channel_range = lambda img: (np.nanmin(img[..., 1]), np.nanmax(img[..., 1]))
    for img, (lo, hi) in zip(frames, simulate_auto_range(frames, channel_range)):
        g.set_input("input", img)
        out = g.run()["output"]
        props = g.props
        assert (props["minValue"], props["maxValue"]) == (lo, hi)
        np.testing.assert_allclose(out, color_map_output("Inferno", img[..., 1], lo, hi), atol=2e-6)

    # Growth was immediate (the wide range was fully covered one frame after it appeared), and the
    # shrink is slow: after several small frames the range is still close to the wide one.
    assert props["minValue"] < -0.9 and props["maxValue"] > 1.9


def test_auto_range_starts_from_given_range():
    img = ramp(4, 4, 10, 20)
    g = PassGraph("ColorMapPass", {"minValue": 12.0, "maxValue": 18.0}, {"input": img}, ["output"])
    expected = list(simulate_auto_range([img] * 3, lambda i: (float(i.min()), float(i.max())), 12.0, 18.0))
    for lo, hi in expected:
        out = g.run()["output"]
        np.testing.assert_allclose(out, color_map_output("Jet", img[..., 0], lo, hi), atol=2e-6)
    assert (g.props["minValue"], g.props["maxValue"]) == expected[-1]
    assert expected[0] == (12.0, 18.0) and expected[1] == (10.0, 20.0)


def test_auto_range_of_missing_alpha_is_zero():
    # Falcor's reduction zeroes the alpha of formats without one, though pixels read alpha as 1.
    img = ramp(4, 4, 0, 1)
    g = PassGraph("ColorMapPass", {"channel": 3, "colorMap": "Grey"}, {"input": img}, ["output"])
    g.run(frames=2)
    assert (g.props["minValue"], g.props["maxValue"]) == (0.0, float(np.float32(0.99)))


def test_color_map_properties():
    g = PassGraph("ColorMapPass", {}, {"input": ramp(4, 4, 0, 1)}, ["output"])
    assert g.props == {"colorMap": "Jet", "channel": 0, "autoRange": True, "minValue": 0.0, "maxValue": 1.0}
    props = {"colorMap": "Magma", "channel": 2, "autoRange": False, "minValue": -0.25, "maxValue": 8.5}
    g = PassGraph("ColorMapPass", props, {"input": ramp(4, 4, 0, 1)}, ["output"])
    before, after = g.round_trip()
    assert before == after == props


def test_color_map_property_errors(capfd):
    g = falcor.RenderGraph("errors")
    with pytest.raises(falcor.RuntimeError, match="colorMap"):
        g.create_pass("A", "ColorMapPass", {"colorMap": 3})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'Turbo'"):
        g.create_pass("B", "ColorMapPass", {"colorMap": "Turbo"})
    with pytest.raises(falcor.RuntimeError, match="channel"):
        g.create_pass("C", "ColorMapPass", {"channel": 4})
    with pytest.raises(falcor.RuntimeError, match="autoRange"):
        g.create_pass("D", "ColorMapPass", {"autoRange": 1})
    g.create_pass("E", "ColorMapPass", {"colorMapX": "Jet"})
    assert "Unknown property 'colorMapX' in ColorMapPass properties." in capfd.readouterr().out


# ---------------------------------------------------------------------------------------------
# InvalidPixelDetectionPass
# ---------------------------------------------------------------------------------------------

def test_invalid_pixels_falcor_unit_test():
    # Falcor's InvalidPixelDetectionTests: a 2x4 R32Float image into a BGRA8UnormSrgb target.
    snan = np.array([0x7FA00000], np.uint32).view(np.float32)[0]
    data = np.float32([np.nan, snan, np.inf, -np.inf, 0.0, 255.0, 125.8, 1.0]).reshape(4, 2, 1)
    g = PassGraph("InvalidPixelDetectionPass", {}, {"src": data}, ["dst"], default_format=falcor.ResourceFormat.BGRA8UnormSrgb)
    packed = np.ascontiguousarray(g.run()["dst"]).view(np.uint32).reshape(-1)
    np.testing.assert_array_equal(packed, [0xFFFF0000] * 2 + [0xFF00FF00] * 2 + [0xFF000000] * 4)


def test_invalid_pixels_any_channel_and_nan_first():
    rng = np.random.default_rng(3)
    img = rng.normal(size=(6, 9, 4)).astype(np.float32)
    img[0, 0, 3] = np.nan
    img[1, 2, 1] = -np.inf
    img[2, 4, 2] = np.nan
    img[2, 4, 0] = np.inf  # NaN wins over Inf
    img[5, 8, 3] = np.inf
    out = PassGraph("InvalidPixelDetectionPass", {}, {"src": img}, ["dst"]).run()["dst"]
    expected = np.zeros_like(img)
    expected[..., 3] = 1
    inf = np.isinf(img).any(-1)
    nan = np.isnan(img).any(-1)
    expected[inf & ~nan] = [0, 1, 0, 1]
    expected[nan] = [1, 0, 0, 1]
    np.testing.assert_array_equal(out, expected)


def test_invalid_pixels_output_mirrors_src_size():
    img = np.full((3, 5, 1), np.inf, np.float32)
    g = PassGraph("InvalidPixelDetectionPass", {}, {"src": img}, ["dst"], size=(16, 12))
    out = g.run()["dst"]
    assert out.shape == (3, 5, 4)
    np.testing.assert_array_equal(out, np.broadcast_to([0, 1, 0, 1], out.shape))


def test_invalid_pixels_non_float_warns_once(capfd):
    img = np.arange(12, dtype=np.uint8).reshape(3, 4, 1)
    g = PassGraph("InvalidPixelDetectionPass", {}, {"src": img}, ["dst"])
    out = g.run(frames=3)["dst"]
    np.testing.assert_array_equal(out, np.broadcast_to([0, 0, 0, 1], out.shape))
    log = capfd.readouterr().out
    assert log.count("InvalidPixelDetectionPass: input format R8Uint can't hold NaN or Inf values") == 1


def test_invalid_pixels_needs_src():
    g = falcor.RenderGraph("unconnected")
    g.create_pass("P", "InvalidPixelDetectionPass", {})
    g.mark_output("P.dst")
    with pytest.raises(falcor.RuntimeError, match="src"):
        g.execute()


def test_invalid_pixels_ignores_properties_silently(capfd):
    g = PassGraph("InvalidPixelDetectionPass", {"someKey": 1, "other": "x"}, {"src": ramp(2, 2, 0, 1)}, ["dst"])
    assert g.props == {}
    before, after = g.round_trip()
    assert before == after == {}
    assert "Unknown property" not in capfd.readouterr().out


# ---------------------------------------------------------------------------------------------
# SideBySidePass / SplitScreenPass (Comparison.ps.slang)
# ---------------------------------------------------------------------------------------------

def comparison_reference(left, right, out_size, split, left_offset, right_offset, divider):
    """Output of Comparison.ps.slang: column x shows left[x + left_offset] if x < split, else
    right[x + right_offset], clamped to >= 0 (NaN -> 0); texels outside an input read 0; columns with
    |x - split| < 2 show the divider color."""
    w, h = out_size

    def texel(img, x, y):
        return img[y, x] if 0 <= y < img.shape[0] and 0 <= x < img.shape[1] else np.zeros(4, np.float32)

    out = np.zeros((h, w, 4), np.float32)
    for y in range(h):
        for x in range(w):
            if abs(x - split) < 2:
                out[y, x] = divider
            else:
                color = texel(left, x + left_offset, y) if x < split else texel(right, x + right_offset, y)
                out[y, x] = np.fmax(color, 0)
    return out


def split_column(split_location, width):
    return int(np.float32(split_location) * np.float32(width))


def two_images(w, h, seed=0):
    rng = np.random.default_rng(seed)
    left = rng.uniform(-0.2, 1, (h, w, 4)).astype(np.float32)
    right = rng.uniform(-0.2, 1, (h, w, 4)).astype(np.float32) + 2  # disjoint values: provenance is unambiguous
    left[1, 0] = np.nan
    return left, right


SIDE_BY_SIDE_DIVIDER = [0, 0, 0, 0]  # Falcor never sets it: the zero-initialized constant
SPLIT_SCREEN_DIVIDER = [0, 0, 0, 1]


@pytest.mark.parametrize("split_location, bound", [(None, 0), (0.25, 3), (0.5, 7), (0.8, 1), (0.0, 2), (1.0, 0)])
def test_side_by_side_provenance(split_location, bound):
    w, h = 24, 5
    left, right = two_images(w, h)
    props = {"imageLeftBound": bound} | ({"splitLocation": split_location} if split_location is not None else {})
    out = PassGraph("SideBySidePass", props, {"leftInput": left, "rightInput": right}, ["output"]).run()["output"]
    split = split_column(0.5 if split_location is None else split_location, w)
    expected = comparison_reference(left, right, (w, h), split, bound, bound - split, SIDE_BY_SIDE_DIVIDER)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("split_location", [None, 0.3, 0.77, 0.0, 1.0, 3.0])
def test_split_screen_provenance(split_location):
    w, h = 20, 4
    left, right = two_images(w, h, seed=1)
    props = {"splitLocation": split_location} if split_location is not None else {}
    out = PassGraph("SplitScreenPass", props, {"leftInput": left, "rightInput": right}, ["output"]).run()["output"]
    split = split_column(0.5 if split_location is None else split_location, w)
    expected = comparison_reference(left, right, (w, h), split, 0, 0, SPLIT_SCREEN_DIVIDER)
    np.testing.assert_array_equal(out, expected)


def test_split_screen_divider_is_three_columns():
    w, h = 16, 2
    left, right = np.ones((h, w, 4), np.float32), np.full((h, w, 4), 0.5, np.float32)
    out = PassGraph("SplitScreenPass", {"splitLocation": 0.5}, {"leftInput": left, "rightInput": right}, ["output"]).run()["output"]
    black = np.all(out == [0, 0, 0, 1], axis=-1)
    assert np.flatnonzero(black[0]).tolist() == [7, 8, 9]
    np.testing.assert_array_equal(out[:, :7], 1)
    np.testing.assert_array_equal(out[:, 10:], 0.5)


@pytest.mark.parametrize("pass_type, divider, bound", [("SideBySidePass", SIDE_BY_SIDE_DIVIDER, 2), ("SplitScreenPass", SPLIT_SCREEN_DIVIDER, 0)])
def test_comparison_inputs_smaller_than_frame(pass_type, divider, bound):
    # Inputs are read at output pixel positions; the split is a fraction of the frame width.
    left, right = two_images(10, 3, seed=2)
    left1 = left[..., :1].copy()  # one channel: reads as (r, 0, 0, 1)
    props = {"splitLocation": 0.4} | ({"imageLeftBound": bound} if bound else {})
    g = PassGraph(pass_type, props, {"leftInput": left1, "rightInput": right}, ["output"], size=(18, 6))
    out = g.run()["output"]
    split = split_column(0.4, 18)
    left_rgba = np.concatenate([left1, np.zeros((3, 10, 2), np.float32), np.ones((3, 10, 1), np.float32)], -1)
    right_offset = bound - split if pass_type == "SideBySidePass" else 0
    np.testing.assert_array_equal(out, comparison_reference(left_rgba, right, (18, 6), split, bound, right_offset, divider))


@pytest.mark.parametrize("pass_type", ["SideBySidePass", "SplitScreenPass"])
def test_comparison_properties(pass_type):
    left, right = two_images(8, 2)
    g = PassGraph(pass_type, {}, {"leftInput": left, "rightInput": right}, ["output"])
    defaults = {"splitLocation": -1.0, "showTextLabels": False, "leftLabel": "Left side", "rightLabel": "Right side"}
    assert g.props == defaults
    g.run()
    assert g.props == defaults | {"splitLocation": 0.5}  # a negative split becomes 0.5 when first executed

    props = {"splitLocation": 0.25, "showTextLabels": True, "leftLabel": "Reference", "rightLabel": "Test"}
    g = PassGraph(pass_type, props | ({"imageLeftBound": 3} if pass_type == "SideBySidePass" else {}),
                  {"leftInput": left, "rightInput": right}, ["output"])
    before, after = g.round_trip()
    assert before == after == props  # imageLeftBound is not written back (as in Falcor)


def test_side_by_side_halves_start_at_left_bound():
    left, right = two_images(12, 2)
    g = PassGraph("SideBySidePass", {"imageLeftBound": 4}, {"leftInput": left, "rightInput": right}, ["output"])
    out = g.run()["output"]  # split column 6; columns 5..7 are the divider
    np.testing.assert_array_equal(out[:, 0], np.fmax(left[:, 4], 0))
    np.testing.assert_array_equal(out[:, 4], np.fmax(left[:, 8], 0))
    np.testing.assert_array_equal(out[:, 8], np.fmax(right[:, 6], 0))  # column 6 + k shows right column 4 + k
    np.testing.assert_array_equal(out[:, 11], np.fmax(right[:, 9], 0))


@pytest.mark.parametrize("pass_type", ["SideBySidePass", "SplitScreenPass"])
def test_comparison_warnings_and_errors(pass_type, capfd):
    left, right = two_images(6, 2)
    g = PassGraph(pass_type, {"showTextLabels": True, f"{pass_type}Bogus": 1}, {"leftInput": left, "rightInput": right}, ["output"])
    g.run(frames=2)
    log = capfd.readouterr().out
    assert f"Unknown property '{pass_type}Bogus' in {pass_type} properties." in log
    assert log.count(f"{pass_type}: text labels ('Left side', 'Right side') are not drawn") == 1

    graph = falcor.RenderGraph("errors")
    with pytest.raises(falcor.RuntimeError, match="leftLabel"):
        graph.create_pass("A", pass_type, {"leftLabel": 3})
    with pytest.raises(falcor.RuntimeError, match="splitLocation"):
        graph.create_pass("B", pass_type, {"splitLocation": "half"})
    with pytest.raises(falcor.RuntimeError, match="showTextLabels"):
        graph.create_pass("C", pass_type, {"showTextLabels": "yes"})


def test_left_bound_belongs_to_side_by_side_only(capfd):
    with pytest.raises(falcor.RuntimeError, match="imageLeftBound"):
        falcor.RenderGraph("errors").create_pass("A", "SideBySidePass", {"imageLeftBound": -1})
    falcor.RenderGraph("split").create_pass("B", "SplitScreenPass", {"imageLeftBound": 2})
    assert "Unknown property 'imageLeftBound' in SplitScreenPass properties." in capfd.readouterr().out


def test_color_map_reads_zero_outside_a_smaller_input():
    img = ramp(3, 2, 0.5, 1)
    out = PassGraph("ColorMapPass", {"autoRange": False, "colorMap": "Viridis"}, {"input": img}, ["output"], size=(5, 3)).run()["output"]
    expected = np.broadcast_to(color_map_output("Viridis", np.float32(0), 0, 1), (3, 5, 4)).copy()
    expected[:2, :3] = color_map_output("Viridis", img[..., 0], 0, 1)
    np.testing.assert_allclose(out, expected, atol=2e-6)


@pytest.mark.parametrize("pass_type, key", [("ColorMapPass", "minValue"), ("ColorMapPass", "colorMap"),
                                            ("SideBySidePass", "imageLeftBound"), ("SplitScreenPass", "splitLocation"),
                                            ("InvalidPixelDetectionPass", "src")])
def test_no_python_attributes(pass_type, key):
    # Falcor binds none of these classes to Python: only the generic RenderPass API exists.
    p = falcor.RenderGraph("attrs").create_pass("P", pass_type, {})
    assert not hasattr(p, key)
    assert p.type == pass_type
