"""Composite (Utils): out = (scaleA*A) <mode> (scaleB*B) over the default frame."""
import numpy as np
import pytest

import falcor
from helpers import ArraySource, read_texture, run_pass

RNG = np.random.default_rng(3)


def composite(props, inputs, **kwargs):
    return run_pass("Composite", props, inputs, ["out"], **kwargs)["out"]


def as_float4(img: np.ndarray) -> np.ndarray:
    """What a GPU float4 load returns: missing channels 0, missing alpha 1."""
    h, w, c = img.shape
    out = np.zeros((h, w, 4), dtype=np.float32)
    out[..., 3] = 1.0
    out[..., :c] = img
    return out


@pytest.mark.parametrize("mode", ["Add", "Multiply"])
def test_modes_with_scales(mode):
    a = RNG.standard_normal((5, 7, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 7, 4)).astype(np.float32)
    sa, sb = np.float32(1.5), np.float32(-0.25)
    out = composite({"mode": mode, "scaleA": 1.5, "scaleB": -0.25}, {"A": a, "B": b})
    expected = sa * a + sb * b if mode == "Add" else (sa * a) * (sb * b)
    assert out.dtype == np.float32 and out.shape == (5, 7, 4)
    np.testing.assert_array_equal(out, expected)


def test_default_is_plain_sum():
    a = RNG.random((3, 4, 4), dtype=np.float32)
    b = RNG.random((3, 4, 4), dtype=np.float32)
    np.testing.assert_array_equal(composite({}, {"A": a, "B": b}), a + b)


@pytest.mark.parametrize("mode", ["Add", "Multiply"])
def test_missing_inputs_read_as_zero(mode):
    a = RNG.random((4, 6, 4), dtype=np.float32)
    only_a = composite({"mode": mode, "scaleA": 2.0}, {"A": a})
    only_b = composite({"mode": mode, "scaleB": 3.0}, {"B": a})
    if mode == "Add":
        np.testing.assert_array_equal(only_a, np.float32(2) * a)
        np.testing.assert_array_equal(only_b, np.float32(3) * a)
    else:
        assert not only_a.any() and not only_b.any()
    assert not composite({"mode": mode}, {}, size=(5, 3)).any()


def test_fewer_channels_load_like_a_gpu():
    a = RNG.random((3, 5, 1), dtype=np.float32)
    b = RNG.random((3, 5, 2), dtype=np.float32)
    out = composite({"scaleA": 0.5, "scaleB": 2.0}, {"A": a, "B": b})
    np.testing.assert_array_equal(out, np.float32(0.5) * as_float4(a) + np.float32(2) * as_float4(b))


def test_runs_over_default_frame_dims():
    # The frame is 6x4: A (3x2) reads as 0 outside its extent, B (8x5) is cropped.
    a = RNG.random((2, 3, 4), dtype=np.float32)
    b = RNG.random((5, 8, 4), dtype=np.float32)
    out = composite({}, {"A": a, "B": b}, size=(6, 4))
    assert out.shape == (4, 6, 4)
    expected = b[:4, :6].copy()
    expected[:2, :3] += a
    np.testing.assert_array_equal(out, expected)


def test_integer_output_rounds_to_nearest_even():
    a = np.array([[0.5, 1.5, 2.5, 3.49, 3.5, 7.6, 100.0, 254.5]], dtype=np.float32)[..., None]
    out = composite({"outputFormat": "R8Uint", "mode": "Multiply", "scaleB": 2.0}, {"A": a, "B": np.full_like(a, 0.5)})
    assert out.dtype == np.uint8 and out.shape == (1, 8, 1)
    np.testing.assert_array_equal(out[0, :, 0], [0, 2, 2, 3, 4, 8, 100, 254])


def test_signed_integer_output():
    a = np.array([[-2.5, -1.5, -0.4, 1.2]], dtype=np.float32)[..., None]
    out = composite({"outputFormat": "R32Int"}, {"A": a})
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out[0, :, 0], [-2, -2, 0, 1])




def test_unknown_output_format_takes_the_consumers_format():
    ArraySource.images["composite_u8"] = np.array([[[1.25], [2.5], [3.5], [9.0]]], dtype=np.float32)
    g = falcor.RenderGraph("u8")
    g.create_pass("Src", "ArraySource", {"key": "composite_u8"})
    g.create_pass("C", "Composite", {"outputFormat": "Unknown", "scaleA": 2.0})
    g.create_pass("Sink", "FormatCopy", {"format": "R8Uint"})
    g.add_edge("Src.out", "C.A")
    g.add_edge("C.out", "Sink.src")
    g.mark_output("Sink.dst")
    g.resize(4, 1)
    g.execute()
    out = read_texture(g.get_output("Sink.dst"))
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out[0, :, 0], [2, 5, 7, 18])
    assert "outputFormat" not in g.get_pass("C").getDictionary()


def test_unknown_output_format_defaults_to_graph_format():
    a = np.full((2, 2, 4), 0.5, dtype=np.float32)
    out = composite({"outputFormat": "Unknown"}, {"A": a})  # graph default: BGRA8UnormSrgb
    assert out.dtype == np.uint8
    assert abs(int(out[0, 0, 0]) - 188) <= 1  # sRGB encoding of 0.5


def test_properties_round_trip_and_order():
    g = falcor.RenderGraph("props")
    p = g.create_pass("C", "Composite", {"outputFormat": "RGBA16Float", "scaleB": 0.5, "mode": "Multiply"})
    d = p.getDictionary()
    assert list(d.items()) == [("mode", "Multiply"), ("scaleA", 1.0), ("scaleB", 0.5), ("outputFormat", "RGBA16Float")]
    g.update_pass("C", d)
    assert g.get_pass("C").getDictionary() == d
    defaults = g.create_pass("D", "Composite", {}).getDictionary()
    assert defaults == {"mode": "Add", "scaleA": 1.0, "scaleB": 1.0, "outputFormat": "RGBA32Float"}


def test_unknown_key_warns_and_wrong_types_raise(capfd):
    falcor.RenderGraph("w").create_pass("C", "Composite", {"blendCompositeTest": 1})
    assert "Unknown property 'blendCompositeTest' in Composite properties." in capfd.readouterr().out
    for bad in [{"mode": "Subtract"}, {"mode": 1}, {"scaleA": "big"}, {"outputFormat": "NoSuchFormat"}]:
        with pytest.raises(falcor.RuntimeError):
            falcor.RenderGraph("t").create_pass("C", "Composite", bad)
