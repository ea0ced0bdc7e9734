"""SimplePostFX against a float32 numpy re-implementation of Falcor's SimplePostFX.cs.slang / .cpp."""
import itertools

import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture, run_pass

f32 = np.float32
LUMA = np.array([0.2126, 0.7152, 0.0722], dtype=f32)
IDENTITY_GRADE = {"saturationCurve": [1, 1, 1], "colorOffset": [0.5] * 3, "colorScale": [0.5] * 3, "colorPower": [0.5] * 3}
_keys = itertools.count()


def rand_image(h, w, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return (rng.random((h, w, 4)) * scale).astype(f32)


def postfx(img, **props):
    return run_pass("SimplePostFX", props, {"src": img}, ["dst"])["dst"]


def make_graph(img, props, size=None):
    key = f"postfx{next(_keys)}"
    ArraySource.images[key] = img
    g = falcor.RenderGraph("postfx")
    g.create_pass("Src", "ArraySource", {"key": key})
    g.create_pass("FX", "SimplePostFX", props)
    g.add_edge("Src.out", "FX.src")
    g.mark_output("FX.dst")
    h, w = img.shape[:2]
    g.resize(*(size or (w, h)))
    return g


# ---------------------------------------------------------------- numpy reference of Falcor's math


def sample(img, u, v):
    """Bilinear fetch at normalized (u, v) with border addressing (transparent black outside)."""
    h, w = img.shape[:2]
    x = u * f32(w) - f32(0.5)
    y = v * f32(h) - f32(0.5)
    x0, y0 = np.floor(x), np.floor(y)
    tx, ty = (x - x0)[..., None], (y - y0)[..., None]
    i = np.clip(np.nan_to_num(x0, nan=-5), -5, w + 5).astype(np.int64)
    j = np.clip(np.nan_to_num(y0, nan=-5), -5, h + 5).astype(np.int64)

    def texel(ii, jj):
        inside = (ii >= 0) & (ii < w) & (jj >= 0) & (jj < h)
        vals = img[np.clip(jj, 0, h - 1), np.clip(ii, 0, w - 1)]
        return np.where(inside[..., None], vals, f32(0))

    top = texel(i, j) + (texel(i + 1, j) - texel(i, j)) * tx
    bottom = texel(i, j + 1) + (texel(i + 1, j + 1) - texel(i, j + 1)) * tx
    return top + (bottom - top) * ty


def pixel_centers(w, h):
    inv = (f32(1) / f32(w), f32(1) / f32(h))
    u = (np.arange(w, dtype=f32) + f32(0.5)) * inv[0]
    v = (np.arange(h, dtype=f32) + f32(0.5)) * inv[1]
    uu, vv = np.meshgrid(u, v)
    return uu, vv, inv


# (offset, weight) bilinear taps of Falcor's separable binomial kernels (5x5 keeps its 11/512 weight).
TAPS5 = [(-(3.5 + 1 / 10), 11 / 512), (-(1.5 + 36 / 120), 120 / 512), (0, 252 / 512), (1.5 + 36 / 120, 120 / 512),
         (3.5 + 1 / 10, 11 / 512)]
TAPS3 = [(-(1.5 + 1 / 6), 6 / 32), (0, 20 / 32), (1.5 + 1 / 6, 6 / 32)]


def separable(img, uu, vv, texel, taps):
    acc = np.zeros(uu.shape + (4,), f32)
    for ov, wv in taps:
        for ou, wu in taps:
            acc += sample(img, uu + f32(ou) * texel[0], vv + f32(ov) * texel[1]) * (f32(wu) * f32(wv))
    return acc


def to_half(a):
    return a.astype(np.float16).astype(f32)


def downsample(fine):
    h, w = fine.shape[:2]
    uu, vv, inv = pixel_centers(max(1, w >> 1), max(1, h >> 1))
    return to_half(separable(fine, uu, vv, (inv[0] * f32(0.5), inv[1] * f32(0.5)), TAPS5))


def star(coarse, uu, vv, inv, angle):
    steps = []
    a = f32(angle)
    for _ in range(3):
        steps.append((f32(np.sin(a)) * inv[0] * f32(4), f32(np.cos(a)) * inv[1] * f32(4)))
        a = f32(a + f32(np.pi) / f32(3))
    acc = np.zeros(uu.shape + (4,), f32)
    for i in range(-20, 21):
        lines = sum(sample(coarse, uu + su * f32(i), vv + sv * f32(i)) for su, sv in steps)
        acc += lines * (f32(1) / f32(10 + i * i))
    return acc * f32(1 / 1.793358534742959)


def upsample(fine, coarse, amount, star_amount, star_angle, level):
    h, w = fine.shape[:2]
    uu, vv, inv = pixel_centers(w, h)
    value = fine + (separable(coarse, uu, vv, inv, TAPS3) - fine) * f32(amount)
    if star_amount > 0 and level in (1, 2):
        value = value + (star(coarse, uu, vv, inv, star_angle) - value) * f32(star_amount)
    return to_half(value)


def bloom_reference(src, amount, star_amount=0.0, star_angle=0.1):
    pyramid = [src]
    for _ in range(8):
        pyramid.append(downsample(pyramid[-1]))
    result = pyramid[8]
    for level in range(7, -1, -1):
        result = upsample(pyramid[level], result, amount, star_amount, star_angle, level)
    return result


def postfx_reference(src, wipe=0.0, bloomAmount=0.0, starAmount=0.0, starAngle=0.1, vignetteAmount=0.0,
                     chromaticAberrationAmount=0.0, barrelDistortAmount=0.0, saturationCurve=(1, 1, 1),
                     colorOffset=(0.5,) * 3, colorScale=(0.5,) * 3, colorPower=(0.5,) * 3, colorOffsetScalar=0.0,
                     colorScaleScalar=0.0, colorPowerScalar=0.0):
    h, w = src.shape[:2]
    img = bloom_reference(src, bloomAmount, starAmount, starAngle) if bloomAmount > 0 else src
    inv_x, inv_y = f32(1) / f32(w), f32(1) / f32(h)
    px, py = np.meshgrid(np.arange(w, dtype=f32), np.arange(h, dtype=f32))
    cx = ((px + f32(0.5)) * f32(2) - f32(w)) * inv_y
    cy = ((py + f32(0.5)) * f32(2) - f32(h)) * inv_y
    r2 = cx * cx + cy * cy
    k = f32(barrelDistortAmount) * f32(0.125)
    barrel = (f32(1) + r2 * k) * (f32(1) / (f32(1) + f32(4) * k))
    ox, oy = cx * barrel * (f32(h) * inv_x * f32(0.5)), cy * barrel * f32(0.5)
    ca = f32(1) + f32(chromaticAberrationAmount) * f32(1 / 64)
    col = np.stack([sample(img, ox / ca + f32(0.5), oy / ca + f32(0.5))[..., 0],
                    sample(img, ox + f32(0.5), oy + f32(0.5))[..., 1],
                    sample(img, ox * ca + f32(0.5), oy * ca + f32(0.5))[..., 2]], axis=-1)
    col = col * np.maximum(f32(0), f32(1) - r2 * f32(vignetteAmount))[..., None]

    # Saturation quadratic through (0, shadows), (1/2, midtones), (1, highlights) of squashed luma.
    s = np.array(saturationCurve, f32)
    mid, high = s[1] - s[0], s[2] - s[0]
    qa = f32(2) * high - f32(4) * mid
    qb, qc = high - qa, s[0]
    luma = col @ LUMA
    t = np.clip(luma / (luma + f32(0.5)), 0, 1)
    sat = np.maximum(f32(0), qc + t * qb + t * t * qa)[..., None]
    col = luma[..., None] + (col - luma[..., None]) * sat

    offset = np.array(colorOffset, f32) + f32(colorOffsetScalar) - f32(0.5)
    scale = np.array(colorScale, f32) * f32(2.0 ** (1 + 2 * colorScaleScalar))
    power = np.exp2(f32(3) * (f32(0.5) - np.array(colorPower, f32) - f32(colorPowerScalar)))
    col = np.maximum(f32(0), col * scale + offset) ** power

    out = np.concatenate([col, np.ones((h, w, 1), f32)], axis=-1)
    wiped = (px < f32(wipe) * f32(w))[..., None]
    return np.where(wiped, src, out)


# ---------------------------------------------------------------- pass-through cases


def test_identity_settings_copy_input_exactly():
    img = rand_image(23, 31, seed=1) - 0.5  # negative values too: the copy must not clamp them
    assert np.array_equal(postfx(img), img)
    assert np.array_equal(postfx(img, **IDENTITY_GRADE, colorOffsetScalar=0.0), img)


def test_disabled_copies_input():
    img = rand_image(20, 24, seed=2)
    out = postfx(img, enabled=False, bloomAmount=0.5, colorScaleScalar=1.0, barrelDistortAmount=0.5)
    assert np.array_equal(out, img)


def test_full_wipe_copies_input():
    img = rand_image(20, 24, seed=3)
    assert np.array_equal(postfx(img, wipe=1.0, bloomAmount=0.5, colorScaleScalar=1.0), img)


def test_vignette_or_star_alone_counts_as_identity_like_falcor():
    # Falcor's early-out test ignores vignetteAmount and starAmount (the star only exists inside the bloom).
    img = rand_image(20, 24, seed=4)
    assert np.array_equal(postfx(img, vignetteAmount=0.8), img)
    assert np.array_equal(postfx(img, starAmount=0.8), img)


# ---------------------------------------------------------------- per-pixel effects


def check(img, rtol=2e-5, atol=2e-6, **props):
    out = postfx(img, **props)
    np.testing.assert_allclose(out, postfx_reference(img, **props), rtol=rtol, atol=atol)
    return out


def test_color_grading_matches_reference():
    img = rand_image(24, 32, seed=5)
    out = check(img, saturationCurve=[0.5, 0.75, 1.0], colorOffset=[0.4, 0.45, 0.5], colorScale=[0.4, 0.3, 0.2],
                colorPower=[0.4, 0.5, 0.6])
    assert np.all(out[..., 3] == 1)


def test_scalar_grading_matches_reference():
    img = rand_image(24, 32, seed=6)
    check(img, colorOffsetScalar=-0.1)
    check(img, colorScaleScalar=0.5)
    check(img, colorPowerScalar=0.13)
    check(img, colorOffsetScalar=0.1, colorScaleScalar=1.0, colorPowerScalar=-0.3, saturationCurve=[1.5, 0.2, 0.0])


def test_default_grading_path_is_max0_with_unit_alpha():
    # colorScale 0.5 -> factor 1, offset 0.5 -> 0, power 0.5 -> 1: the graded image is max(0, color).
    img = rand_image(16, 16, seed=7) - 0.5
    out = postfx(img, saturationCurve=[1, 1, 1.0000001])  # any non-identity value leaves the early-out
    np.testing.assert_allclose(out[..., :3], np.maximum(img[..., :3], 0), atol=2e-6)
    assert np.all(out[..., 3] == 1)


def test_vignette_matches_reference():
    img = rand_image(30, 40, seed=8)
    out = check(img, vignetteAmount=0.7, colorScaleScalar=0.25)
    # Vignette darkens corners more than the center.
    ratio = out[..., :3].sum(-1) / np.maximum(postfx(img, colorScaleScalar=0.25)[..., :3].sum(-1), 1e-6)
    assert ratio[0, 0] < ratio[15, 20]


def test_barrel_distortion_matches_reference():
    img = rand_image(30, 40, seed=9)
    check(img, barrelDistortAmount=0.6, atol=1e-5)
    check(img, barrelDistortAmount=-0.5, atol=1e-5)


def test_chromatic_aberration_matches_reference():
    img = rand_image(30, 40, seed=10)
    out = check(img, chromaticAberrationAmount=20.0, atol=1e-5)
    # Green is sampled without radial scaling: it stays (bilinearly) where it was.
    np.testing.assert_allclose(out[..., 1], img[..., 1], atol=1e-4)
    assert not np.allclose(out[..., 0], img[..., 0], atol=1e-3)


def test_lens_effects_combined_match_reference():
    img = rand_image(27, 35, seed=11)
    check(img, barrelDistortAmount=0.3, chromaticAberrationAmount=8.0, vignetteAmount=0.3, colorPowerScalar=0.1,
          atol=1e-5)


def test_wipe_splits_source_and_processed():
    img = rand_image(20, 40, seed=12)
    props = dict(wipe=0.33, colorScaleScalar=0.5, vignetteAmount=0.2)
    out = check(img, **props)
    split = int(np.ceil(0.33 * 40))  # x < 13.2 -> columns 0..13 show the source
    assert np.array_equal(out[:, :split], img[:, :split])
    assert np.all(out[:, split:, 3] == 1)


# ---------------------------------------------------------------- bloom


def test_bloom_matches_pyramid_reference():
    img = rand_image(37, 50, seed=13, scale=4.0)
    out = postfx(img, bloomAmount=0.4)
    np.testing.assert_allclose(out, postfx_reference(img, bloomAmount=0.4), rtol=1e-3, atol=1e-4)


def test_bloom_with_star_matches_reference():
    img = np.zeros((48, 64, 4), f32)
    img[20:22, 30:32] = 50.0
    img[5, 7] = 10.0
    props = dict(bloomAmount=0.5, starAmount=0.4, starAngle=0.3)
    out = postfx(img, **props)
    np.testing.assert_allclose(out, postfx_reference(img, **props), rtol=1e-3, atol=1e-4)
    assert not np.allclose(out, postfx(img, bloomAmount=0.5), atol=1e-3)  # the star adds streaks


def test_bloom_of_a_point_spreads_symmetrically_and_preserves_energy():
    n = 64
    img = np.zeros((n, n, 4), f32)
    img[n // 2 - 1:n // 2 + 1, n // 2 - 1:n // 2 + 1, :3] = 100.0
    out = postfx(img, bloomAmount=0.3)[..., 0]
    # Kernels and sample grids are symmetric about the image center.
    np.testing.assert_allclose(out, out[::-1, :], rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(out, out[:, ::-1], rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(out, out.T, rtol=2e-3, atol=1e-4)
    # Each level is lerp(level, blurred coarser level, amount): the center keeps about (1 - amount) of its
    # value and light spreads outward, monotonically decreasing.
    c = n // 2
    assert 0.7 * 100 < out[c, c] < 0.75 * 100
    row = out[c, c:]
    assert np.all(np.diff(row) <= 1e-3) and row[10] > 0
    # Falcor's blend is energy preserving up to the 514/512 kernel gain and border losses at coarse levels.
    ref = postfx_reference(img, bloomAmount=0.3)[..., 0]
    assert abs(out.sum() / ref.sum() - 1) < 1e-3
    assert 0.97 < out.sum() / img[..., 0].sum() < 1.03


# ---------------------------------------------------------------- sizes, properties, Python


def test_size_mismatch_logs_error_and_disables(capfd):
    img = rand_image(20, 24, seed=14)
    g = make_graph(img, {"outputSize": "Fixed", "fixedOutputSize": [12, 10], "colorScaleScalar": 1.0})
    g.execute()
    assert "SimplePostFX I/O sizes don't match. The pass will be disabled." in capfd.readouterr().out
    assert g.get_pass("FX").enabled is False
    out = read_texture(g.get_output("FX.dst"))
    assert out.shape == (10, 12, 4)
    # Disabled: a bilinear blit of the source (2x downscale = average of 2x2 blocks).
    np.testing.assert_allclose(out, img.reshape(10, 2, 12, 2, 4).mean(axis=(1, 3)), rtol=1e-5)


def test_output_size_options():
    img = rand_image(16, 20, seed=15)
    g = make_graph(img, {"outputSize": "Full", "enabled": False})
    g.execute()
    assert read_texture(g.get_output("FX.dst")).shape == (16, 20, 4)
    g = make_graph(img, {"outputSize": "Half", "enabled": False})
    g.execute()
    assert read_texture(g.get_output("FX.dst")).shape == (8, 10, 4)


DEFAULTS = {
    "enabled": True, "outputSize": "Default", "wipe": 0.0, "bloomAmount": 0.0, "starAmount": 0.0,
    "starAngle": pytest.approx(0.1), "vignetteAmount": 0.0, "chromaticAberrationAmount": 0.0,
    "barrelDistortAmount": 0.0, "saturationCurve": [1.0, 1.0, 1.0], "colorOffset": [0.5, 0.5, 0.5],
    "colorScale": [0.5, 0.5, 0.5], "colorPower": [0.5, 0.5, 0.5], "colorOffsetScalar": 0.0,
    "colorScaleScalar": 0.0, "colorPowerScalar": 0.0,
}


def test_default_properties_and_order():
    d = falcor.createPass("SimplePostFX", {}).getDictionary()
    assert list(d) == list(DEFAULTS)
    assert d == DEFAULTS


def test_property_round_trip_like_falcor_test():
    g = falcor.RenderGraph("rt")
    props = {"bloomAmount": 0.5, "starAmount": 0.3, "vignetteAmount": 0.3, "chromaticAberrationAmount": 0.5,
             "barrelDistortAmount": 0.1, "saturationCurve": falcor.float3(0.5, 0.75, 1.0),
             "colorOffset": [0.4, 0.4, 0.5], "colorScale": [0.4, 0.3, 0.2], "colorPower": [0.4, 0.5, 0.6],
             "colorOffsetScalar": 0.1, "colorScaleScalar": 1.0, "colorPowerScalar": 0.13, "enabled": True,
             "wipe": 0.33, "outputSize": "Fixed", "fixedOutputSize": [64, 32]}
    g.create_pass("FX", "SimplePostFX", props)
    d = g.get_pass("FX").getDictionary()
    assert list(d)[:4] == ["enabled", "outputSize", "fixedOutputSize", "wipe"]
    assert d["fixedOutputSize"] == [64, 32]
    assert d["colorScale"] == pytest.approx([0.4, 0.3, 0.2])
    g.update_pass("FX", d)
    assert g.get_pass("FX").getDictionary() == d
    d["bloomAmount"] = 0.0
    d["enabled"] = False
    g.update_pass("FX", d)
    assert g.get_pass("FX").getDictionary() == d


def test_fixed_output_size_only_written_when_fixed():
    d = falcor.createPass("SimplePostFX", {"fixedOutputSize": [64, 32]}).getDictionary()
    assert "fixedOutputSize" not in d


def test_unknown_key_warns(capfd):
    falcor.createPass("SimplePostFX", {"bloomAmmount": 0.5})
    assert "Unknown property 'bloomAmmount' in SimplePostFX properties." in capfd.readouterr().out


@pytest.mark.parametrize("props", [{"enabled": 1}, {"wipe": "half"}, {"saturationCurve": [1, 2]},
                                   {"colorScale": 0.5}, {"outputSize": "Huge"}])
def test_wrong_types_raise(props):
    with pytest.raises(falcor.RuntimeError, match=f"'{next(iter(props))}'"):
        falcor.createPass("SimplePostFX", props)


def test_python_attributes():
    p = falcor.createPass("SimplePostFX", {})
    for name, value in DEFAULTS.items():
        if name != "outputSize":
            assert getattr(p, name) == value
    floats = ["wipe", "bloomAmount", "starAmount", "starAngle", "vignetteAmount", "chromaticAberrationAmount",
              "barrelDistortAmount", "colorOffsetScalar", "colorScaleScalar", "colorPowerScalar"]
    for i, name in enumerate(floats):
        setattr(p, name, 0.25 + i)
        assert getattr(p, name) == 0.25 + i
        assert p.getDictionary()[name] == 0.25 + i
    for name in ["saturationCurve", "colorOffset", "colorScale", "colorPower"]:
        setattr(p, name, [0.25, 0.5, 0.75])
        assert getattr(p, name) == [0.25, 0.5, 0.75]
        setattr(p, name, falcor.float3(1, 2, 3))
        assert p.getDictionary()[name] == [1.0, 2.0, 3.0]
    p.enabled = False
    assert p.enabled is False and p.getDictionary()["enabled"] is False


def test_attribute_changes_apply_on_next_frame():
    img = rand_image(16, 16, seed=16)
    g = make_graph(img, {})
    g.execute()
    assert np.array_equal(read_texture(g.get_output("FX.dst")), img)
    g.get_pass("FX").colorScaleScalar = 0.5
    g.execute()
    np.testing.assert_allclose(read_texture(g.get_output("FX.dst")), postfx_reference(img, colorScaleScalar=0.5),
                               rtol=2e-5, atol=2e-6)


def test_result_independent_of_thread_count():
    img = rand_image(40, 52, seed=17)
    props = dict(bloomAmount=0.5, starAmount=0.2, barrelDistortAmount=0.2, chromaticAberrationAmount=4.0)
    n = falcor.get_thread_count()
    try:
        falcor.set_thread_count(1)
        single = postfx(img, **props)
        falcor.set_thread_count(max(2, n))
        multi = postfx(img, **props)
    finally:
        falcor.set_thread_count(n)
    assert np.array_equal(single, multi)
