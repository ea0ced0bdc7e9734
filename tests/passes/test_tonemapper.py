"""ToneMapper: values against a numpy model of Falcor's ToneMapper (ToneMapper.cpp, ToneMapping.ps.slang,
Luminance.ps.slang, Utils/Color/ColorUtils.h), plus properties and Python attributes."""
import math

import numpy as np
import pytest

import falcor
from helpers import ArraySource, run_pass

FLOAT_OUT = {"outputFormat": "RGBA32Float"}
LUMA = np.array([0.299, 0.587, 0.114])


# ---- numpy model of Falcor's definitions ---------------------------------------------------------

def luminance(rgb):
    return rgb @ LUMA


def uc2(x):
    a, b, c, d, e, f = 0.22, 0.3, 0.1, 0.2, 0.01, 0.3
    return (x * (a * x + c * b) + d * e) / (x * (a * x + b) + d * f) - e / f


def tone_curve(rgb, op, white_max_luminance=1.0, white_scale=11.2):
    L = luminance(rgb)[..., None]
    if op == "Linear":
        return rgb
    if op == "Reinhard":
        return rgb * ((L / (L + 1)) / L)
    if op == "ReinhardModified":  # Falcor multiplies by (1 + L); the textbook operator divides.
        return rgb * (L * (1 + L / white_max_luminance**2) * (1 + L) / L)
    if op == "HejiHableAlu":
        x = np.maximum(0.0, rgb - 0.004)
        return ((x * (6.2 * x + 0.5)) / (x * (6.2 * x + 1.7) + 0.06)) ** 2.2
    if op == "HableUc2":
        return uc2(2.0 * rgb) / uc2(white_scale)
    if op == "Aces":
        x = rgb * 0.6
        return np.clip((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0, 1)
    raise ValueError(op)


RGB_TO_XYZ = np.array([[0.4123907992659595, 0.3575843393838780, 0.1804807884018343],
                       [0.2126390058715104, 0.7151686787677559, 0.0721923153607337],
                       [0.0193308187155918, 0.1191947797946259, 0.9505321522496608]])
XYZ_TO_LMS_CAT02 = np.array([[0.7328, 0.4296, -0.1624], [-0.7036, 1.6975, 0.0061], [0.0030, 0.0136, 0.9834]])


def blackbody_xyz(t):
    """Kang et al. 2002 chromaticity fit of a blackbody at t kelvin, as XYZ with Y = 1."""
    if t < 4000:
        x = -0.2661239e9 / t**3 - 0.2343580e6 / t**2 + 0.8776956e3 / t + 0.179910
    else:
        x = -3.0258469e9 / t**3 + 2.1070379e6 / t**2 + 0.2226347e3 / t + 0.240390
    if t < 2222:
        y = -1.1063814 * x**3 - 1.34811020 * x**2 + 2.18555832 * x - 0.20219683
    elif t < 4000:
        y = -0.9549476 * x**3 - 1.37418593 * x**2 + 2.09137015 * x - 0.16748867
    else:
        y = 3.0817580 * x**3 - 5.87338670 * x**2 + 3.75112997 * x - 0.37001483
    return np.array([x / y, 1.0, (1 - x - y) / y])


def white_balance(t):
    """von Kries scaling in CAT02 LMS that maps the t-kelvin white to the 6500 K white (exact inverses here)."""
    rgb_to_lms = XYZ_TO_LMS_CAT02 @ RGB_TO_XYZ
    scale = (XYZ_TO_LMS_CAT02 @ blackbody_xyz(6500.0)) / (XYZ_TO_LMS_CAT02 @ blackbody_xyz(t))
    return np.linalg.inv(rgb_to_lms) @ np.diag(scale) @ rgb_to_lms


def tone_map(img, op="Aces", clamp=True, ec=0.0, film_speed=100.0, f_number=1.0, shutter=1.0, white_point=None,
             auto_exposure_scale=None, **curve):
    """Falcor's per-pixel pipeline on an (H, W, 4) image of the output size."""
    rgb = img[..., :3].astype(np.float64)
    if auto_exposure_scale is None:
        scale = 2.0**ec * (film_speed / 100) / (shutter * f_number**2)
    else:
        scale = 2.0**ec * auto_exposure_scale
    m = scale * (white_balance(white_point) if white_point else np.eye(3))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = tone_curve(rgb @ m.T, op, **curve)
    if clamp:
        out = np.where(out > 0, np.minimum(out, 1), 0)  # GPU saturate: NaN -> 0
    return np.concatenate([out, img[..., 3:]], axis=-1)


def bilinear_resize(img, w, h):
    """GPU bilinear clamp-to-edge sampling at the texel centers of a w x h target."""
    sh, sw = img.shape[:2]

    def axis(n_dst, n_src):
        x = (np.arange(n_dst) + 0.5) / n_dst * n_src - 0.5
        x0 = np.floor(x)
        t = x - x0
        return np.clip(x0, 0, n_src - 1).astype(int), np.clip(x0 + 1, 0, n_src - 1).astype(int), t

    x0, x1, tx = axis(w, sw)
    y0, y1, ty = axis(h, sh)
    tx, ty = tx[None, :, None], ty[:, None, None]
    top = img[y0][:, x0] * (1 - tx) + img[y0][:, x1] * tx
    bottom = img[y1][:, x0] * (1 - tx) + img[y1][:, x1] * tx
    return top * (1 - ty) + bottom * ty


def auto_exposure_scale(img):
    """0.042 / exp2(mean log2 luminance) over the power-of-two (bit-floor) bilinear resample of img."""
    h, w = img.shape[:2]
    small = bilinear_resize(img.astype(np.float64), 1 << (w.bit_length() - 1), 1 << (h.bit_length() - 1))
    log_lum = np.log2(np.maximum(1e-4, luminance(small[..., :3])))
    return 0.042 / 2.0 ** log_lum.mean()


def point_resize(img, w, h):
    """GPU point sampling at the texel centers of a w x h target (float32 coordinate math)."""
    sh, sw = img.shape[:2]
    xs = np.minimum(((np.arange(w, dtype=np.float32) + 0.5) / w * sw).astype(int), sw - 1)
    ys = np.minimum(((np.arange(h, dtype=np.float32) + 0.5) / h * sh).astype(int), sh - 1)
    return img[ys][:, xs]


def hdr_image(w=16, h=8, seed=1, hi=6.0):
    rng = np.random.default_rng(seed)
    img = rng.uniform(0.0, hi, (h, w, 4)).astype(np.float32)
    img[..., 3] = rng.uniform(0.0, 1.0, (h, w))
    return img


def tonemapper(props=None):
    g = falcor.RenderGraph("tm")
    g.create_pass("T", "ToneMapper", props or {})
    return g, g.get_pass("T")


def graph_with_source(img, props, key="tm_graph"):
    """ArraySource -> ToneMapper graph (pass "T") at the image's size, with T.dst marked as output."""
    ArraySource.images[key] = img
    g = falcor.RenderGraph("tm")
    g.create_pass("S", "ArraySource", {"key": key})
    g.create_pass("T", "ToneMapper", props)
    g.add_edge("S.out", "T.src")
    g.resize(img.shape[1], img.shape[0])
    g.mark_output("T.dst")
    return g


def run(img, props, **kw):
    return run_pass("ToneMapper", props, {"src": img}, ["dst"], **kw)["dst"]


# ---- tone mapping values ---------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Linear", "Reinhard", "ReinhardModified", "HejiHableAlu", "HableUc2", "Aces"])
def test_operator_matches_falcor_curve(op):
    img = hdr_image()
    img[0, 0, :3] = [0.001, 0.002, 0.0]  # below HejiHableAlu's black offset in one channel
    props = {**FLOAT_OUT, "operator": op, "clamp": False, "whiteMaxLuminance": 2.5, "whiteScale": 4.0}
    out = run(img, props)
    ref = tone_map(img, op, clamp=False, white_max_luminance=2.5, white_scale=4.0)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(out[..., 3], img[..., 3])


def test_default_is_unit_exposure_aces():
    img = hdr_image(hi=3.0)
    np.testing.assert_allclose(run(img, FLOAT_OUT), tone_map(img), rtol=1e-6, atol=1e-6)


def test_manual_exposure_and_compensation():
    img = hdr_image(hi=2.0)
    props = {**FLOAT_OUT, "operator": "Linear", "clamp": False, "filmSpeed": 400.0, "fNumber": 2.0, "shutter": 8.0,
             "exposureCompensation": 1.5}
    out = run(img, props)
    np.testing.assert_allclose(out, tone_map(img, "Linear", clamp=False, ec=1.5, film_speed=400.0, f_number=2.0, shutter=8.0),
                               rtol=1e-6, atol=1e-8)
    # (400 / 100) / (8 * 2^2) * 2^1.5
    np.testing.assert_allclose(out[..., :3] / img[..., :3], 0.125 * 2**1.5, rtol=1e-6)


def test_white_balance_6500k_is_identity():
    img = hdr_image(hi=2.0)
    out = run(img, {**FLOAT_OUT, "operator": "Linear", "clamp": False, "whiteBalance": True, "whitePoint": 6500.0})
    np.testing.assert_allclose(out, img, rtol=0, atol=2e-6)


@pytest.mark.parametrize("kelvin", [2000.0, 3200.0, 9000.0])
def test_white_balance_matches_cat02_von_kries(kelvin):
    img = hdr_image(hi=2.0)
    props = {**FLOAT_OUT, "operator": "Linear", "clamp": False, "whiteBalance": True, "whitePoint": kelvin}
    ref = tone_map(img, "Linear", clamp=False, white_point=kelvin)
    np.testing.assert_allclose(run(img, props), ref, rtol=1e-6, atol=2e-6)
    # Light of the source temperature becomes neutral.
    src_white = np.linalg.solve(white_balance(kelvin), np.ones(3))
    assert np.ptp(src_white) > 0.05


def test_white_point_below_range_clamps_to_1905k():
    img = hdr_image(hi=2.0)
    base = {**FLOAT_OUT, "operator": "Linear", "clamp": False, "whiteBalance": True}
    np.testing.assert_array_equal(run(img, {**base, "whitePoint": 1000.0}), run(img, {**base, "whitePoint": 1905.0}))


@pytest.mark.parametrize("size", [(16, 8), (12, 10)])
def test_auto_exposure_uses_log_average_luminance(size):
    img = hdr_image(*size, hi=20.0)
    img[1, 2, :3] = 0.0  # log luminance floors at 1e-4
    # Auto exposure replaces the manual camera settings; compensation still applies.
    props = {**FLOAT_OUT, "operator": "Linear", "clamp": False, "autoExposure": True, "exposureCompensation": -1.0,
             "filmSpeed": 800.0, "shutter": 3.0}
    scale = auto_exposure_scale(img)
    ref = tone_map(img, "Linear", clamp=False, ec=-1.0, auto_exposure_scale=scale)
    np.testing.assert_allclose(run(img, props), ref, rtol=2e-6, atol=1e-8)


def test_auto_exposure_is_thread_count_independent():
    img = hdr_image(300, 70, hi=50.0)  # several reduction chunks
    props = {**FLOAT_OUT, "operator": "Linear", "clamp": False, "autoExposure": True}
    threads = falcor.get_thread_count()
    try:
        falcor.set_thread_count(1)
        serial = run(img, props)
        falcor.set_thread_count(max(2, threads))
        parallel = run(img, props)
    finally:
        falcor.set_thread_count(threads)
    np.testing.assert_array_equal(serial, parallel)


def test_clamp_on_and_off():
    img = hdr_image(hi=3.0)
    img[0, 0, :3] = [-0.5, 0.25, 2.0]
    lin = run(img, {**FLOAT_OUT, "operator": "Linear", "clamp": False})
    np.testing.assert_allclose(lin[..., :3], img[..., :3], rtol=1e-6)
    clamped = run(img, {**FLOAT_OUT, "operator": "Linear", "clamp": True})
    np.testing.assert_allclose(clamped[..., :3], np.clip(img[..., :3], 0, 1), rtol=1e-6)
    np.testing.assert_array_equal(clamped[0, 0, :3], [0.0, 0.25, 1.0])


def test_reinhard_black_pixel_saturates_to_zero():
    # Reinhard divides by the luminance: black is 0/0 = NaN, and a GPU saturate turns NaN into 0.
    img = hdr_image()
    img[0, 0, :3] = 0.0
    clamped = run(img, {**FLOAT_OUT, "operator": "Reinhard", "clamp": True})
    np.testing.assert_array_equal(clamped[0, 0, :3], 0.0)
    unclamped = run(img, {**FLOAT_OUT, "operator": "Reinhard", "clamp": False})
    assert np.isnan(unclamped[0, 0, :3]).all()


def test_srgb_output_format_encodes():
    img = hdr_image(hi=2.0)
    out = run(img, {"outputFormat": "RGBA8UnormSrgb"})
    assert out.dtype == np.uint8
    lin = tone_map(img)
    srgb = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * np.power(lin, 1 / 2.4) - 0.055)
    srgb[..., 3] = lin[..., 3]  # alpha is stored linearly
    assert np.abs(out.astype(int) - np.round(srgb * 255)).max() <= 1


def test_default_output_format_is_graph_default():
    g = graph_with_source(hdr_image(), {})
    g.execute()
    assert g.get_output("T.dst").format == falcor.ResourceFormat.BGRA8UnormSrgb


def test_output_size_half_point_samples(capfd):
    img = hdr_image(16, 8)
    out = run(img, {**FLOAT_OUT, "outputSize": "Half", "operator": "Linear", "clamp": False})
    assert out.shape == (4, 8, 4)
    np.testing.assert_array_equal(out, img[1::2, 1::2])
    assert "ToneMapper pass I/O has different dimensions. The image will be resampled." in capfd.readouterr().out


def test_output_size_fixed():
    img = hdr_image(8, 6)
    props = {**FLOAT_OUT, "outputSize": "Fixed", "fixedOutputSize": [5, 3], "operator": "Reinhard"}
    out = run(img, props)
    assert out.shape == (3, 5, 4)
    np.testing.assert_allclose(out, tone_map(point_resize(img, 5, 3), "Reinhard"), rtol=1e-6, atol=1e-6)


# ---- properties ------------------------------------------------------------------------------------

DEFAULTS = {"outputSize": "Default", "useSceneMetadata": True, "exposureCompensation": 0.0, "autoExposure": False,
            "filmSpeed": 100.0, "whiteBalance": False, "whitePoint": 6500.0, "operator": "Aces", "clamp": True,
            "whiteMaxLuminance": 1.0, "whiteScale": 11.2, "fNumber": 1.0, "shutter": 1.0,
            "exposureMode": "AperturePriority"}


def assert_props(actual, expected):
    assert list(actual) == list(expected)
    for k, v in expected.items():
        assert actual[k] == (pytest.approx(v) if isinstance(v, float) else v), k


def test_default_properties_and_order():
    _, p = tonemapper()
    assert_props(p.getDictionary(), DEFAULTS)


def test_property_round_trip():
    props = {"outputSize": "Fixed", "fixedOutputSize": [64, 32], "outputFormat": "RGBA16Float", "useSceneMetadata": False,
             "exposureCompensation": -2.5, "autoExposure": True, "filmSpeed": 200.0, "whiteBalance": True,
             "whitePoint": 4500.0, "operator": "HableUc2", "clamp": False, "whiteMaxLuminance": 3.0, "whiteScale": 6.0,
             "fNumber": 2.8, "shutter": 60.0, "exposureMode": "ShutterPriority"}
    g, p = tonemapper(props)
    d = p.getDictionary()
    assert_props(d, props)
    g.update_pass("T", d)
    assert g.get_pass("T").getDictionary() == d


def test_properties_are_clamped():
    _, p = tonemapper({"exposureCompensation": 20.0, "filmSpeed": 0.0, "fNumber": 1000.0, "shutter": 0.01,
                       "whitePoint": 1000.0, "whiteScale": 0.0, "whiteMaxLuminance": 0.0})
    d = p.getDictionary()
    assert (d["exposureCompensation"], d["filmSpeed"], d["fNumber"]) == (12.0, 1.0, 100.0)
    assert d["shutter"] == pytest.approx(0.1) and d["whitePoint"] == 1905.0
    assert d["whiteScale"] == pytest.approx(0.001)
    assert d["whiteMaxLuminance"] == 0.0  # Falcor does not clamp it


def test_fixed_output_size_only_written_when_fixed():
    _, p = tonemapper({"outputSize": "Half", "fixedOutputSize": [64, 32]})
    d = p.getDictionary()
    assert d["outputSize"] == "Half" and "fixedOutputSize" not in d and "outputFormat" not in d


def test_exposure_value_key_is_unknown(capfd):
    _, p = tonemapper({"exposureValue": 3.0})
    assert "(Warning) Unknown property 'exposureValue' in ToneMapper properties." in capfd.readouterr().out
    assert "exposureValue" not in p.getDictionary()
    assert p.shutter == 1.0 and p.exposureValue == 0.0


@pytest.mark.parametrize("props", [{"operator": 3}, {"operator": "Filmic"}, {"filmSpeed": "fast"},
                                   {"clamp": 1}, {"exposureMode": "Manual"}, {"fixedOutputSize": [1, 2, 3]}])
def test_wrong_types_raise(props):
    with pytest.raises(Exception):
        tonemapper(props)


# ---- Python attributes -----------------------------------------------------------------------------

def test_attributes_read_write_and_clamp():
    _, p = tonemapper()
    assert p.operator == "Aces" and p.exposureMode == "AperturePriority" and p.clamp is True
    p.operator = "Reinhard"
    p.exposureMode = "ShutterPriority"
    p.clamp = False
    p.autoExposure = True
    p.whiteBalance = True
    p.whiteMaxLuminance = 4.0
    p.exposureCompensation = -30.0
    p.filmSpeed = 10000.0
    p.whitePoint = 30000.0
    p.whiteScale = -1.0
    p.fNumber = 0.0
    p.shutter = 20000.0
    assert (p.operator, p.exposureMode, p.clamp, p.autoExposure, p.whiteBalance) == \
        ("Reinhard", "ShutterPriority", False, True, True)
    assert (p.whiteMaxLuminance, p.exposureCompensation, p.filmSpeed, p.whitePoint) == (4.0, -12.0, 6400.0, 25000.0)
    assert p.whiteScale == pytest.approx(0.001) and p.fNumber == pytest.approx(0.1) and p.shutter == 10000.0
    d = p.getDictionary()
    assert d["operator"] == "Reinhard" and d["exposureMode"] == "ShutterPriority" and d["shutter"] == 10000.0
    with pytest.raises(Exception):
        p.operator = "Filmic"


def test_exposure_value_aperture_priority_sets_shutter():
    _, p = tonemapper({"fNumber": 2.0, "shutter": 4.0})
    assert p.exposureValue == pytest.approx(math.log2(4.0 * 2.0**2))
    p.exposureValue = 3.0
    assert p.fNumber == 2.0 and p.shutter == pytest.approx(2.0**3 / 2.0**2)
    assert p.exposureValue == pytest.approx(3.0)
    p.exposureValue = 100.0  # clamped to log2(10000 * 100^2), then shutter to 10000
    assert p.shutter == 10000.0 and p.exposureValue == pytest.approx(math.log2(10000 * 4.0))


def test_exposure_value_shutter_priority_sets_fnumber():
    _, p = tonemapper({"shutter": 2.0, "exposureMode": "ShutterPriority"})
    p.exposureValue = 5.0
    assert p.shutter == 2.0 and p.fNumber == pytest.approx(math.sqrt(2.0**5 / 2.0))
    p.exposureValue = -50.0  # clamped to log2(0.1 * 0.1^2), then fNumber to 0.1
    assert p.fNumber == pytest.approx(0.1) and p.exposureValue == pytest.approx(math.log2(2.0 * 0.01))


def test_attributes_change_the_image():
    img = hdr_image(hi=2.0)
    g = graph_with_source(img, {**FLOAT_OUT, "operator": "Linear", "clamp": False})
    g.execute()
    p = g.get_pass("T")
    p.fNumber = 2.0
    p.exposureValue = 4.0  # AperturePriority: shutter = 2^4 / 2^2 = 4
    p.operator = "Aces"
    g.execute()
    out = np.array(g.get_output("T.dst"), copy=True)
    np.testing.assert_allclose(out, tone_map(img, "Aces", f_number=2.0, shutter=4.0), rtol=1e-6, atol=1e-6)
