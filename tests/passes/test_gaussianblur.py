"""GaussianBlur (Utils): separable blur checked against a numpy model of Falcor's kernel."""
import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture, run_pass

RNG = np.random.default_rng(7)


def falcor_weights(kernel_width: int, sigma: float) -> np.ndarray:
    """Falcor's taps: 2D Gaussian density at |offset|, divided by the sum over all taps (float32)."""
    center = kernel_width // 2
    s2 = np.float32(sigma) * np.float32(sigma)
    x = np.arange(center + 1, dtype=np.float32)
    density = np.exp(-(x * x) / (np.float32(2) * s2)) / (np.float32(2) * np.float32(np.pi) * s2)
    total = np.float32(0)
    for i, d in enumerate(density):
        total += d if i == 0 else np.float32(2) * d
    half = density / total
    return np.concatenate([half[:0:-1], half]).astype(np.float32)


def convolve_axis(img: np.ndarray, weights: np.ndarray, axis: int) -> np.ndarray:
    """Discrete 1D convolution along `axis` with clamp-to-edge borders, taps summed in order."""
    r = len(weights) // 2
    pad = [(0, 0)] * img.ndim
    pad[axis] = (r, r)
    padded = np.pad(img, pad, mode="edge")
    n = img.shape[axis]
    out = np.zeros_like(img, dtype=np.float32)
    for i, w in enumerate(weights):
        out += np.take(padded, range(i, i + n), axis=axis) * w
    return out


def reference_blur(img: np.ndarray, kernel_width: int, sigma: float, storage=np.float32) -> np.ndarray:
    """Horizontal then vertical pass; the intermediate is stored in `storage` like Falcor's temp target."""
    w = falcor_weights(kernel_width | 1, sigma)
    horizontal = convolve_axis(img.astype(np.float32), w, axis=1).astype(storage).astype(np.float32)
    return convolve_axis(horizontal, w, axis=0).astype(storage)


def blur(img, props=None, **kwargs):
    return run_pass("GaussianBlur", props or {}, {"src": img}, ["dst"], **kwargs)["dst"]


def test_weights_model_is_a_normalized_gaussian():
    w = falcor_weights(5, 2.0)
    assert w.sum() == pytest.approx(1.0, abs=1e-6)
    expected = np.exp(-np.arange(-2, 3) ** 2 / 8.0)
    np.testing.assert_allclose(w, expected / expected.sum(), rtol=1e-6)


@pytest.mark.parametrize("kernel_width,sigma", [(5, 2.0), (1, 2.0), (3, 0.8), (9, 3.5), (15, 1.0), (7, -1.5)])
def test_matches_separable_convolution(kernel_width, sigma):
    img = RNG.random((11, 13, 4), dtype=np.float32)
    out = blur(img, {"kernelWidth": kernel_width, "sigma": sigma})
    np.testing.assert_allclose(out, reference_blur(img, kernel_width, sigma), rtol=1e-6, atol=1e-7)


def test_default_kernel_and_identity_width_one():
    img = RNG.random((6, 8, 4), dtype=np.float32)
    np.testing.assert_allclose(blur(img), reference_blur(img, 5, 2.0), rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(blur(img, {"kernelWidth": 1}), img)


def test_edges_are_clamped():
    # A bright first column: with clamping the border texel is counted for every tap past the edge.
    img = np.zeros((5, 9, 4), dtype=np.float32)
    img[:, 0, :] = 1.0
    out = blur(img, {"kernelWidth": 5, "sigma": 1.0})
    w = falcor_weights(5, 1.0)
    # Column 0 sees taps -2, -1 (clamped to col 0) and 0; column 1 sees taps -2 and -1; column 2 sees -2.
    np.testing.assert_allclose(out[2, :3, 0], [w[0] + w[1] + w[2], w[0] + w[1], w[0]], rtol=1e-6)
    assert np.all(out[:, 3:, :] == 0)
    # A constant image stays constant (the kernel is normalized and borders clamp).
    flat = np.full((4, 4, 4), 0.25, dtype=np.float32)
    np.testing.assert_allclose(blur(flat, {"kernelWidth": 9, "sigma": 4.0}), flat, rtol=1e-6)


def test_mirrors_half_float_format_and_size():
    img = RNG.random((7, 10, 4)).astype(np.float16)
    out = blur(img, {"kernelWidth": 7, "sigma": 1.5}, size=(16, 16), input_formats={"src": "RGBA16Float"})
    assert out.dtype == np.float16 and out.shape == (7, 10, 4)
    np.testing.assert_array_equal(out, reference_blur(img, 7, 1.5, storage=np.float16))


def test_mirrors_single_channel_format():
    img = RNG.random((5, 6, 1), dtype=np.float32)
    out = blur(img, {"kernelWidth": 3, "sigma": 1.0})
    assert out.dtype == np.float32 and out.shape == (5, 6, 1)
    np.testing.assert_allclose(out, reference_blur(img, 3, 1.0), rtol=1e-6, atol=1e-7)


def make_graph(img):
    ArraySource.images["gauss_graph"] = img
    g = falcor.RenderGraph("blur")
    g.create_pass("Src", "ArraySource", {"key": "gauss_graph"})
    blur_pass = g.create_pass("Blur", "GaussianBlur", {})
    g.add_edge("Src.out", "Blur.src")
    g.mark_output("Blur.dst")
    return g, blur_pass


def test_python_attributes_take_effect_on_next_execute():
    img = RNG.random((6, 9, 4), dtype=np.float32)
    g, p = make_graph(img)
    assert (p.kernelWidth, p.sigma) == (5, 2.0)
    g.execute()
    p.kernelWidth = 6  # made odd
    p.sigma = 0.75
    assert (p.kernelWidth, p.sigma) == (7, 0.75)
    g.execute()
    out = read_texture(g.get_output("Blur.dst"))
    np.testing.assert_allclose(out, reference_blur(img, 7, 0.75), rtol=1e-6, atol=1e-7)
    assert g.get_pass("Blur").getDictionary() == {"kernelWidth": 7, "sigma": 0.75}


def test_degenerate_sigma_is_rejected_and_keeps_old_kernel():
    g, p = make_graph(RNG.random((4, 4, 4), dtype=np.float32))
    with pytest.raises(falcor.RuntimeError, match="sigma"):
        p.sigma = 0.0
    assert p.sigma == 2.0
    with pytest.raises(falcor.RuntimeError, match="sigma"):
        g.create_pass("Bad", "GaussianBlur", {"sigma": 0.0})


def test_properties_round_trip_and_order():
    g = falcor.RenderGraph("props")
    p = g.create_pass("B", "GaussianBlur", {"sigma": 1.25, "kernelWidth": 9})
    d = p.getDictionary()
    assert list(d.items()) == [("kernelWidth", 9), ("sigma", 1.25)]
    g.update_pass("B", d)
    assert g.get_pass("B").getDictionary() == d
    assert g.create_pass("D", "GaussianBlur", {}).getDictionary() == {"kernelWidth": 5, "sigma": 2.0}
    assert g.create_pass("E", "GaussianBlur", {"kernelWidth": 4}).getDictionary()["kernelWidth"] == 5


def test_unknown_key_warns_and_wrong_type_raises(capfd):
    falcor.RenderGraph("w").create_pass("B", "GaussianBlur", {"blurRadiusGaussTest": 3})
    assert "Unknown property 'blurRadiusGaussTest' in GaussianBlur properties." in capfd.readouterr().out
    with pytest.raises(falcor.RuntimeError, match="kernelWidth"):
        falcor.RenderGraph("t").create_pass("B", "GaussianBlur", {"kernelWidth": "wide"})
    with pytest.raises(falcor.RuntimeError, match="sigma"):
        falcor.RenderGraph("t").create_pass("B", "GaussianBlur", {"sigma": "soft"})


def test_unconnected_src_is_an_error():
    g = falcor.RenderGraph("unconnected")
    g.create_pass("Blur", "GaussianBlur", {})
    g.mark_output("Blur.dst")
    g.resize(8, 8)
    with pytest.raises(falcor.RuntimeError, match="src"):
        g.execute()
