"""falcor.show and Texture._repr_png_: the PNG decodes to the texture's size and the documented values."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import falcor
from helpers import ArraySource

F = falcor.ResourceFormat


def texture(values: np.ndarray, fmt: falcor.ResourceFormat) -> falcor.Texture:
    t = falcor.Texture(values.shape[1], values.shape[0], fmt)
    t.from_numpy(np.ascontiguousarray(values))
    return t


def png_pixels(t: falcor.Texture) -> np.ndarray:
    image = Image.open(io.BytesIO(t._repr_png_()))
    assert image.format == "PNG"
    return np.asarray(image)


def srgb8(linear: float) -> int:
    encoded = linear * 12.92 if linear <= 0.0031308 else 1.055 * linear ** (1 / 2.4) - 0.055
    return int(encoded * 255 + 0.5)


def test_radiance_is_clamped_and_srgb_encoded():
    values = np.zeros((3, 5, 4), np.float32)
    values[0, 0, :3] = [0.5, 0.0, 0.2]
    values[1, 2, :3] = [7.0, 1.0, 0.001]   # over-exposed red clamps to white's channel value
    values[..., 3] = 1
    pixels = png_pixels(texture(values, F.RGBA32Float))
    assert pixels.shape == (3, 5, 3)
    assert list(pixels[0, 0]) == [srgb8(0.5), 0, srgb8(0.2)]
    assert list(pixels[1, 2]) == [255, 255, srgb8(0.001)]
    assert list(pixels[2, 4]) == [0, 0, 0]


def test_exposure_scales_before_the_clamp():
    values = np.full((1, 1, 4), 0.25, np.float32)
    image = falcor.show(texture(values, F.RGBA32Float), exposure=1.0)
    assert image.getpixel((0, 0)) == (srgb8(0.5),) * 3


def test_signed_values_are_normalized_over_one_range():
    normals = np.array([[[-1, 0, 1, 1], [0, 1, 0, 1]]], np.float32)  # (1, 2, 4)
    pixels = png_pixels(texture(normals, F.RGBA32Float))
    assert pixels[0, 0].tolist() == [0, 128, 255]
    assert pixels[0, 1].tolist() == [128, 255, 128]


def test_single_channel_float_shows_grey_and_integer_ids_are_normalized():
    depth = np.array([[0.25, 0.5], [1.0, 2.0]], np.float32)
    assert png_pixels(texture(depth, F.R32Float)).tolist() == [[srgb8(0.25), srgb8(0.5)], [255, 255]]
    ids = np.array([[10, 20], [30, 50]], np.uint32)
    assert png_pixels(texture(ids, F.R32Uint)).tolist() == [[0, 64], [128, 255]]


def test_srgb_textures_show_as_stored_and_alpha_on_request():
    stored = np.array([[[10, 100, 200, 77], [255, 0, 1, 255]]], np.uint8)
    t = texture(stored, F.RGBA8UnormSrgb)
    assert np.array_equal(png_pixels(t), stored[..., :3])
    rgba = np.asarray(falcor.show(t, alpha=True))
    assert np.array_equal(rgba, stored)


def test_two_channels_show_as_red_and_green():
    motion = np.array([[[0.25, 0.75]]], np.float32)
    assert falcor.show(texture(motion, F.RG32Float), mode="raw").getpixel((0, 0)) == (64, 191, 0)


def test_non_finite_values_do_not_spoil_the_picture():
    values = np.array([[np.nan, np.inf, -np.inf, 0.5]], np.float32)
    assert np.asarray(falcor.show(values, mode="tonemap")).tolist() == [[0, 255, 0, srgb8(0.5)]]
    assert np.asarray(falcor.show(values, mode="normalize")).tolist() == [[0, 255, 0, 128]]
    ranged = np.array([[np.nan, np.inf, 1.0, 3.0]], np.float32)
    assert np.asarray(falcor.show(ranged, mode="normalize")).tolist() == [[0, 255, 0, 255]]
    assert np.asarray(falcor.show(np.full((2, 2), 3.0, np.float32), mode="normalize")).tolist() == [[128, 128]] * 2


def test_show_writes_a_png_file(tmp_path):
    values = np.random.default_rng(1).random((6, 9, 4), np.float32)
    target = falcor.show(texture(values, F.RGBA32Float), tmp_path / "sub" / "shown.png")
    assert target == tmp_path / "sub" / "shown.png"
    with Image.open(target) as image:
        assert image.size == (9, 6) and image.mode == "RGB"
    assert [p.name for p in target.parent.iterdir()] == ["shown.png"]  # no temporary left behind


def test_bad_arguments_raise_value_errors():
    t = texture(np.zeros((1, 1, 4), np.float32), F.RGBA32Float)
    with pytest.raises(ValueError, match="mode must be one of"):
        falcor.show(t, mode="bright")  # type: ignore[arg-type]
    for exposure in (1e6, -100.0, float("nan")):
        with pytest.raises(ValueError, match="exposure must be within"):
            falcor.show(t, exposure=exposure)
    with pytest.raises(ValueError, match=r"\(H, W\) or \(H, W, 1..4\)"):
        falcor.show(np.zeros((2, 2, 7)))


def test_a_graph_output_displays_inline():
    ArraySource.images["show-ramp"] = np.linspace(0, 1, 8 * 4, dtype=np.float32).reshape(4, 8, 1)
    g = falcor.RenderGraph("show")
    g.create_pass("Ramp", "ArraySource", {"key": "show-ramp"})
    g.create_pass("Blur", "GaussianBlur", {"kernelWidth": 1})
    g.add_edge("Ramp.out", "Blur.src")
    g.mark_output("Blur.dst")
    g.resize(8, 4)
    g.execute()
    pixels = png_pixels(g.get_output("Blur.dst"))
    assert pixels.shape[:2] == (4, 8)
    assert pixels[0, 0].max() == 0 and pixels[3, 7].min() == 255


def test_every_cpu_format_displays():
    shown = 0
    for name, fmt in F.__members__.items():
        if name == "Unknown" or name.startswith("BC"):  # block-compressed formats don't exist on the CPU
            continue
        t = falcor.Texture(3, 2, fmt)
        assert Image.open(io.BytesIO(t._repr_png_())).size == (3, 2), name
        shown += 1
    assert shown >= 50


def test_subresources_of_3d_and_array_textures():
    volume = falcor.Texture(4, 3, F.RGBA32Float, depth=5)
    assert falcor.show(volume).size == (4, 3)
    array = falcor.Texture(4, 3, F.RGBA32Float, array_size=2, mip_levels=2)
    assert falcor.show(array, mip_level=1, array_slice=1).size == (2, 1)
    with pytest.raises(falcor.RuntimeError, match="out of range"):
        falcor.show(array, mip_level=2)
