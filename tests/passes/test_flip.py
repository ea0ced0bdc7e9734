"""FLIPPass: LDR-FLIP and HDR-FLIP against a numpy implementation written from the FLIP papers
(Andersson et al., HPG 2020 and EGSR 2021) with Falcor's choices (one filter window for the CSF and
feature kernels, exposure range from the reference's median/max luminance), plus display outputs,
pooled values and properties."""
import math

import numpy as np
import pytest

import falcor
from helpers import ArraySource, run_pass

OUTPUTS = ["errorMap", "errorMapDisplay", "exposureMapDisplay"]

# A few entries of matplotlib's magma and viridis maps (CC0), by index.
MAGMA = {0: (0.001462, 0.000466, 0.013866), 32: (0.113094, 0.065492, 0.276784), 64: (0.316654, 0.071690, 0.485380),
         96: (0.512831, 0.148179, 0.507648), 128: (0.716387, 0.214982, 0.475290), 160: (0.904281, 0.319610, 0.388137),
         192: (0.986700, 0.535582, 0.382210), 255: (0.987053, 0.991438, 0.749504)}
VIRIDIS = {0: (0.267004, 0.004874, 0.329415), 128: (0.127568, 0.566949, 0.550556), 255: (0.993248, 0.906157, 0.143936)}


# ---- numpy FLIP, from the papers' definitions ----------------------------------------------------

def ppd(width_px=3840, width_m=0.7, distance_m=0.7):
    return distance_m * width_px / width_m * np.pi / 180


RGB2XYZ = np.array([[10135552 / 24577794, 8788810 / 24577794, 4435075 / 24577794],
                    [2613072 / 12288897, 8788810 / 12288897, 887015 / 12288897],
                    [1425312 / 73733382, 8788810 / 73733382, 70074185 / 73733382]])
XYZ2RGB = np.linalg.inv(RGB2XYZ)
WHITE = RGB2XYZ @ np.ones(3)  # D65 white of linear sRGB


def to_ycxcz(rgb):
    xyz = rgb @ RGB2XYZ.T / WHITE
    return np.stack([116 * xyz[..., 1] - 16, 500 * (xyz[..., 0] - xyz[..., 1]), 200 * (xyz[..., 1] - xyz[..., 2])], -1)


def from_ycxcz(ycc):
    y = (ycc[..., 0] + 16) / 116
    xyz = np.stack([ycc[..., 1] / 500 + y, y, y - ycc[..., 2] / 200], -1) * WHITE
    return xyz @ XYZ2RGB.T


def to_lab(rgb):
    t = rgb @ RGB2XYZ.T / WHITE
    d = 6 / 29
    f = np.where(t > d**3, np.cbrt(t), t / (3 * d * d) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def hunt(lab):
    return np.concatenate([lab[..., :1], lab[..., 1:] * lab[..., :1] / 100], -1)


def hyab(a, b):
    return np.abs(a[..., 0] - b[..., 0]) + np.linalg.norm(a[..., 1:] - b[..., 1:], axis=-1)


def correlate(img, kernel):
    """Correlation with clamp-to-edge borders: out(p) = sum_k kernel(k) img(p + k)."""
    r = kernel.shape[0] // 2
    pad = np.pad(img, [(r, r), (r, r)] + [(0, 0)] * (img.ndim - 2), mode="edge")
    h, w = img.shape[:2]
    out = np.zeros_like(img, dtype=np.float64)
    for j in range(2 * r + 1):
        for i in range(2 * r + 1):
            out += kernel[j, i] * pad[j:j + h, i:i + w]
    return out


def ldr_flip(reference, test, p=None):
    """Per-pixel LDR-FLIP of two (H, W, 3) linear RGB images in [0, 1]."""
    p = ppd() if p is None else p
    r = math.ceil(3 * math.sqrt(0.04 / (2 * np.pi**2)) * p)
    y, x = np.mgrid[-r:r + 1, -r:r + 1].astype(np.float64)
    d2 = (x * x + y * y) / p**2  # squared distance in degrees

    def csf(a1, b1, a2, b2):
        k = a1 * np.sqrt(np.pi / b1) * np.exp(-np.pi**2 * d2 / b1) + a2 * np.sqrt(np.pi / b2) * np.exp(-np.pi**2 * d2 / b2)
        return k / k.sum()
    csfs = [csf(1, 0.0047, 0, 1e-5), csf(1, 0.0053, 0, 1e-5), csf(34.1, 0.04, 13.5, 0.025)]

    sigma = 0.5 * 0.082 * p
    g = np.exp(-(x * x + y * y) / (2 * sigma**2))

    def lobes_normalized(k):
        pos, neg = np.where(k > 0, k, 0), np.where(k < 0, k, 0)
        return pos / pos.sum() - neg / neg.sum()
    edge_x = lobes_normalized(-x * g)
    point_x = lobes_normalized((x * x / sigma**2 - 1) * g)

    def percept(img):
        ycc = to_ycxcz(img.astype(np.float64))
        color = np.stack([correlate(ycc[..., c], csfs[c]) for c in range(3)], -1)
        lightness = (ycc[..., 0] + 16) / 116
        edge = np.hypot(correlate(lightness, edge_x), correlate(lightness, edge_x.T))
        point = np.hypot(correlate(lightness, point_x), correlate(lightness, point_x.T))
        return hunt(to_lab(np.clip(from_ycxcz(color), 0, 1))), edge, point

    lab_r, edge_r, point_r = percept(reference)
    lab_t, edge_t, point_t = percept(test)
    feature = np.sqrt(np.maximum(np.abs(edge_r - edge_t), np.abs(point_r - point_t)) / np.sqrt(2))

    cmax = hyab(hunt(to_lab(np.array([0.0, 1, 0]))), hunt(to_lab(np.array([0.0, 0, 1])))) ** 0.7
    cutoff = 0.4 * cmax
    e = hyab(lab_r, lab_t) ** 0.7
    e = np.where(e < cutoff, e * 0.95 / cutoff, 0.95 + (e - cutoff) / (cmax - cutoff) * 0.05)
    return e ** (1 - feature)


def aces(x):
    """Narkowicz's ACES fit with HDR-FLIP's 0.6 pre-exposure."""
    x = 0.6 * x
    return np.clip((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0, 1)


def hdr_flip(reference, test, exposures):
    """Max of LDR-FLIP over the exposures of the ACES tone-mapped images, and the first arg-max."""
    errors = np.stack([ldr_flip(aces(2.0**e * reference), aces(2.0**e * test)) for e in exposures])
    return errors.max(0), errors.argmax(0)


def auto_exposures(reference):
    """HDR-FLIP's exposure range: tone-mapped output 0.85 from the max down to the median luminance."""
    lum = reference @ np.array([0.2126, 0.7152, 0.0722])
    k = [0.6**2 * 2.51, 0.6 * 0.03, 0.0, 0.6**2 * 2.43, 0.6 * 0.59, 0.14]
    x = max(np.roots([k[0] - 0.85 * k[3], k[1] - 0.85 * k[4], k[2] - 0.85 * k[5]]).real)
    start, stop = math.log2(x / lum.max()), math.log2(x / np.median(lum))
    return start, stop, max(2, math.ceil(stop - start))


def srgb_to_linear(c):
    c = np.asarray(c, dtype=np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def display_bytes(linear):
    """What the RGBA8UnormSrgb display outputs hold for a linear color."""
    c = np.clip(linear, 0, 1)
    return np.round(np.where(c <= 0.0031308, c * 12.92, 1.055 * c ** (1 / 2.4) - 0.055) * 255)


# ---- inputs ---------------------------------------------------------------------------------------

def rgba(rgb):
    return np.concatenate([rgb, np.ones(rgb.shape[:2] + (1,))], -1).astype(np.float32)


def image_pair(seed=1, h=24, w=32):
    """A smooth reference with edges and a test image differing by noise, a shift and a color cast."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w] / np.array([h, w])[:, None, None]
    ref = np.stack([0.5 + 0.4 * np.sin(6 * xx), 0.5 + 0.4 * np.cos(5 * yy), (xx + yy) / 2], -1)
    ref[8:16, 10:20] = [0.9, 0.2, 0.1]
    test = ref + rng.normal(0, 0.08, ref.shape)
    test[:, 20:] = ref[:, 19:-1] * [1.0, 0.8, 1.1]
    return np.clip(ref, 0, 1), np.clip(test, 0, 1)


# ---- tests ----------------------------------------------------------------------------------------

def test_identical_images_give_zero_error():
    ref, _ = image_pair()
    out = run_pass("FLIPPass", {}, {"testImage": rgba(ref), "referenceImage": rgba(ref)}, OUTPUTS)
    err = out["errorMap"]
    assert np.all(err[..., 3] == 0)
    assert np.allclose(err[..., :3], MAGMA[0])
    assert np.array_equal(out["errorMapDisplay"][..., :3], np.broadcast_to(np.round(np.array(MAGMA[0]) * 255), err.shape[:2] + (3,)))
    assert np.all(out["exposureMapDisplay"] == 0)  # LDR-FLIP has no exposure map


@pytest.mark.parametrize("seed", [1, 2])
def test_ldr_flip_matches_numpy(seed):
    ref, test = image_pair(seed)
    out = run_pass("FLIPPass", {}, {"testImage": rgba(test), "referenceImage": rgba(ref)}, ["errorMap"])
    expected = ldr_flip(ref, test)
    assert expected.min() < 0.1 and expected.max() > 0.5  # the pair spans a wide range of errors
    np.testing.assert_allclose(out["errorMap"][..., 3], expected, atol=2e-5)


def test_random_pair_and_viewing_conditions():
    rng = np.random.default_rng(7)
    ref, test = rng.random((24, 32, 3)), rng.random((24, 32, 3))
    props = {"monitorWidthPixels": 1920, "monitorWidthMeters": 0.5, "monitorDistanceMeters": 0.6}
    out = run_pass("FLIPPass", props, {"testImage": rgba(test), "referenceImage": rgba(ref)}, ["errorMap"])
    np.testing.assert_allclose(out["errorMap"][..., 3], ldr_flip(ref, test, ppd(1920, 0.5, 0.6)), atol=2e-5)


def test_magma_and_gray_encoding():
    ref, test = image_pair(3)
    inputs = {"testImage": rgba(test), "referenceImage": rgba(ref)}
    out = run_pass("FLIPPass", {}, inputs, OUTPUTS)
    err, shown = out["errorMap"], out["errorMapDisplay"]
    index = (err[..., 3] * 255 + 0.5).astype(int)
    hits = 0
    for i, color in MAGMA.items():
        mask = index == i
        hits += mask.sum()
        assert np.allclose(err[mask][:, :3], color, atol=1e-6)
    assert hits > 0
    # The display holds the colormap's (display-encoded) colors in 8 bits, opaque.
    assert np.abs(shown[..., :3] - np.round(err[..., :3] * 255)).max() <= 1
    assert np.all(shown[..., 3] == 255)

    gray = run_pass("FLIPPass", {"useMagma": False}, inputs, OUTPUTS)
    g = gray["errorMap"]
    assert np.array_equal(g[..., 0], g[..., 3]) and np.array_equal(g[..., 1], g[..., 3]) and np.array_equal(g[..., 2], g[..., 3])
    assert np.array_equal(g[..., 3], err[..., 3])
    assert np.abs(gray["errorMapDisplay"][..., 0].astype(int) - np.round(g[..., 3] * 255)).max() <= 1


def test_invalid_errors_are_flagged_red():
    ref, test = image_pair(4)
    test = rgba(test)
    test[5, 5, 0] = np.nan
    out = run_pass("FLIPPass", {}, {"testImage": test, "referenceImage": rgba(ref)}, OUTPUTS)
    flagged = np.all(out["errorMap"] == [1, 0, 0, 1], axis=-1)
    assert flagged[5, 5] and not flagged[20, 30]  # NaN spreads over the filter window only
    assert np.all(out["errorMapDisplay"][flagged] == [255, 0, 0, 255])


def test_clamp_input():
    ref, test = image_pair(5)
    over = test * 1.5  # LDR input outside [0, 1]
    inputs = {"testImage": rgba(over), "referenceImage": rgba(ref)}
    clamped = run_pass("FLIPPass", {"clampInput": True}, inputs, ["errorMap"])["errorMap"][..., 3]
    np.testing.assert_allclose(clamped, ldr_flip(ref, np.clip(over, 0, 1)), atol=2e-5)
    unclamped = run_pass("FLIPPass", {}, inputs, ["errorMap"])["errorMap"][..., 3]
    assert np.abs(unclamped - clamped).max() > 1e-3


def hdr_pair(seed=6):
    ref, test = image_pair(seed)
    return ref * 4.0 + 0.05, test * 4.0 + 0.05


def test_hdr_custom_exposures_match_numpy_and_bound_each_exposure():
    ref, test = hdr_pair()
    inputs = {"testImage": rgba(test), "referenceImage": rgba(ref)}
    props = {"isHDR": True, "useCustomExposureParameters": True, "startExposure": -2.0, "stopExposure": 1.0, "numExposures": 3}
    out = run_pass("FLIPPass", props, inputs, OUTPUTS)
    hdr = out["errorMap"][..., 3]
    exposures = [-2.0, -0.5, 1.0]
    expected, best = hdr_flip(ref, test, exposures)
    np.testing.assert_allclose(hdr, expected, atol=2e-5)

    for e in exposures:  # a single exposure is HDR-FLIP over a degenerate range
        single = run_pass("FLIPPass", {**props, "startExposure": e, "stopExposure": e, "numExposures": 2}, inputs, ["errorMap"])
        assert np.all(hdr >= single["errorMap"][..., 3])

    # Exposure map: viridis at index / (n - 1); compare where numpy's arg-max is unambiguous.
    errors = np.stack([ldr_flip(aces(2.0**e * ref), aces(2.0**e * test)) for e in exposures])
    top2 = np.sort(errors, 0)[-2:]
    clear = top2[1] - top2[0] > 1e-3
    shown = out["exposureMapDisplay"]
    for i, idx in enumerate([0, 128, 255]):
        mask = clear & (best == i)
        assert mask.any()
        assert np.abs(shown[mask][:, :3] - np.round(np.array(VIRIDIS[idx]) * 255)).max() <= 1
    assert np.all(shown[..., 3] == 255)


def test_hdr_automatic_exposure_range():
    ref, test = hdr_pair(8)
    ref[2:6, 2:8] *= 16  # highlights widen the dynamic range to several stops
    test[2:6, 2:8] *= 14
    start, stop, count = auto_exposures(ref)
    assert count >= 4
    g = falcor.RenderGraph("flip")
    g.create_pass("F", "FLIPPass", {"isHDR": True})
    for name, img in (("testImage", test), ("referenceImage", ref)):
        ArraySource.images[f"hdr_{name}"] = rgba(img)
        g.create_pass(name, "ArraySource", {"key": f"hdr_{name}"})
        g.add_edge(f"{name}.out", f"F.{name}")
    g.resize(32, 24)
    g.mark_output("F.errorMap")
    g.execute()
    d = g.get_pass("F").getDictionary()
    assert d["startExposure"] == pytest.approx(start, abs=1e-4)
    assert d["stopExposure"] == pytest.approx(stop, abs=1e-4)
    assert d["numExposures"] == count
    expected, _ = hdr_flip(ref, test, np.linspace(start, stop, count))
    np.testing.assert_allclose(np.asarray(g.get_output("F.errorMap"))[..., 3], expected, atol=5e-5)


def test_hdr_zero_median_luminance_is_an_error():
    ref, test = hdr_pair()
    ref[:, :20] = 0
    with pytest.raises(falcor.RuntimeError, match="useCustomExposureParameters"):
        run_pass("FLIPPass", {"isHDR": True}, {"testImage": rgba(test), "referenceImage": rgba(ref)}, ["errorMap"])


def test_pooled_values():
    ref, test = image_pair(9)
    g = falcor.RenderGraph("pooled")
    flip = g.create_pass("F", "FLIPPass", {"computePooledFLIPValues": True})
    for name, img in (("testImage", test), ("referenceImage", ref)):
        ArraySource.images[f"pool_{name}"] = rgba(img)
        g.create_pass(name, "ArraySource", {"key": f"pool_{name}"})
        g.add_edge(f"{name}.out", f"F.{name}")
    g.mark_output("F.errorMap")
    g.resize(32, 24)
    assert flip.averageFLIP is None
    g.execute()
    err = np.asarray(g.get_output("F.errorMap"))[..., 3]
    assert flip.averageFLIP == pytest.approx(err.mean(), rel=1e-6)
    assert flip.minFLIP == err.min() and flip.maxFLIP == err.max()
    with pytest.raises(falcor.RuntimeError, match="read-only"):
        flip.averageFLIP = 0.0
    g.create_pass("G", "FLIPPass")
    assert g.get_pass("G").averageFLIP is None  # not computed unless computePooledFLIPValues


def test_disabled_leaves_outputs_alone():
    ref, test = image_pair()
    out = run_pass("FLIPPass", {"enabled": False}, {"testImage": rgba(test), "referenceImage": rgba(ref)}, ["errorMap"])
    assert np.all(out["errorMap"] == 0)


def test_properties_round_trip_and_order(capfd):
    g = falcor.RenderGraph("props")
    g.create_pass("A", "FLIPPass")
    assert g.get_pass("A").getDictionary() == {
        "enabled": True, "useMagma": True, "clampInput": False, "isHDR": False, "toneMapper": "ACES",
        "useCustomExposureParameters": False, "startExposure": 0.0, "stopExposure": 0.0, "numExposures": 2,
        "monitorWidthPixels": 3840, "monitorWidthMeters": pytest.approx(0.7), "monitorDistanceMeters": pytest.approx(0.7),
        "computePooledFLIPValues": False, "useRealMonitorInfo": False}
    props = {"enabled": False, "useMagma": False, "clampInput": True, "isHDR": True, "toneMapper": "Hable",
             "useCustomExposureParameters": True, "startExposure": -3.0, "stopExposure": 2.5, "numExposures": 5,
             "monitorWidthPixels": 2560, "monitorWidthMeters": 0.5, "monitorDistanceMeters": 1.0,
             "computePooledFLIPValues": True, "useRealMonitorInfo": True}
    g.create_pass("B", "FLIPPass", dict(reversed(props.items())))
    d = g.get_pass("B").getDictionary()
    assert d == props and list(d) == list(props)
    assert "useRealMonitorInfo" in capfd.readouterr().out  # warned: no monitor to query
    g.update_pass("B", d)
    assert g.get_pass("B").getDictionary() == d


def test_unknown_key_and_wrong_types(capfd):
    g = falcor.RenderGraph("bad")
    g.create_pass("A", "FLIPPass", {"monitorWidth": 1})
    assert "Unknown property 'monitorWidth' in FLIPPass properties." in capfd.readouterr().out
    with pytest.raises(falcor.RuntimeError, match="isHDR"):
        g.create_pass("B", "FLIPPass", {"isHDR": 1})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'aces'"):
        g.create_pass("C", "FLIPPass", {"toneMapper": "aces"})
    with pytest.raises(falcor.RuntimeError, match="startExposure"):
        g.create_pass("D", "FLIPPass", {"startExposure": "1"})


@pytest.mark.parametrize("tone_mapper", ["Hable", "Reinhard"])
def test_other_tone_mappers(tone_mapper):
    ref, test = hdr_pair(10)
    props = {"isHDR": True, "toneMapper": tone_mapper, "useCustomExposureParameters": True,
             "startExposure": 0.0, "stopExposure": 0.0, "numExposures": 2}
    out = run_pass("FLIPPass", props, {"testImage": rgba(test), "referenceImage": rgba(ref)}, ["errorMap"])
    if tone_mapper == "Reinhard":
        tm = lambda c: np.clip(c / (1 + c @ np.array([0.2126, 0.7152, 0.0722]))[..., None], 0, 1)
    else:  # Hable's filmic curve, exposure bias 2, white point 11.2
        A, B, C, D, E, F = 0.15, 0.5, 0.1, 0.2, 0.02, 0.3
        curve = lambda x: (x * (A * x + C * B) + D * E) / (x * (A * x + B) + D * F) - E / F
        tm = lambda c: np.clip(curve(2 * c) / curve(11.2), 0, 1)
    np.testing.assert_allclose(out["errorMap"][..., 3], ldr_flip(tm(ref), tm(test)), atol=2e-5)


@pytest.mark.parametrize("props", [{"monitorWidthMeters": -0.5}, {"monitorWidthPixels": 0},
                                   {"monitorWidthPixels": 2**31, "monitorWidthMeters": 1e-30},
                                   {"monitorDistanceMeters": float("inf")}, {"numExposures": 100000}])
def test_hostile_viewing_conditions_are_refused(props):
    """Found by fuzzing: these gave empty or overflowing filters (a crash, undefined behavior)."""
    with pytest.raises(falcor.RuntimeError, match="FLIP"):
        falcor.RenderGraph("F").create_pass("Flip", "FLIPPass", props)
