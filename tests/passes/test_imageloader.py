"""ImageLoader: PNG/EXR/HDR decoding (sRGB handling), output sizing and rescaling, mips, asset
search paths, errors and options."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import falcor
from falcor.image_io import write_exr
from helpers import read_texture

F32 = np.float32


def srgb_to_linear(c):
    c = np.asarray(c, np.float64)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def bilinear(img, w, h):
    """Clamp-to-edge bilinear resample with taps at output texel centers (as a GPU blit)."""
    H, W = img.shape[:2]

    def taps(n_out, n_in):
        c = (np.arange(n_out, dtype=np.float64) + 0.5) / n_out * n_in - 0.5
        f = np.floor(c)
        i = f.astype(int)
        return np.clip(i, 0, n_in - 1), np.clip(i + 1, 0, n_in - 1), c - f

    y0, y1, ty = taps(h, H)
    x0, x1, tx = taps(w, W)
    tx, ty = tx[None, :, None], ty[:, None, None]
    top = img[y0][:, x0] * (1 - tx) + img[y0][:, x1] * tx
    bottom = img[y1][:, x0] * (1 - tx) + img[y1][:, x1] * tx
    return top * (1 - ty) + bottom * ty


def load(props, size=(16, 16), fmt=falcor.ResourceFormat.BGRA8UnormSrgb):
    """Runs one frame of a graph holding only ImageLoader 'L'; returns (dst texture, pass, graph)."""
    g = falcor.RenderGraph("loader")
    p = g.create_pass("L", "ImageLoader", props)
    g.mark_output("L.dst")
    g.resize(size[0], size[1], fmt)
    g.execute()
    return g.get_output("L.dst"), p, g


def as_float(props, size=(16, 16)):
    tex, _, _ = load({"outputFormat": "RGBA32Float", **props}, size)
    return read_texture(tex)


@pytest.fixture
def rgba8(tmp_path):
    pixels = np.random.default_rng(0).integers(0, 256, (3, 5, 4), dtype=np.uint8)
    path = tmp_path / "color.png"
    Image.fromarray(pixels, "RGBA").save(path)
    return path, pixels


@pytest.fixture
def float_image(tmp_path):
    pixels = (np.random.default_rng(1).random((3, 5, 4)) * 8 - 2).astype(F32)
    path = tmp_path / "float.exr"
    write_exr(path, pixels, half=False)
    return path, pixels


@pytest.fixture
def search_paths():
    """Restores the default resolver's search paths after the test."""
    resolver = falcor.AssetResolver.default_resolver
    saved = list(resolver.get_search_paths())
    yield resolver
    resolver.set_search_paths(saved)


# ---- Decoding --------------------------------------------------------------------------------

def test_png_srgb_is_linearized(rgba8):
    path, pixels = rgba8
    out = as_float({"filename": str(path), "outputSize": "Fixed"})
    expected = srgb_to_linear(pixels / 255.0)
    expected[..., 3] = pixels[..., 3] / 255.0  # alpha is never sRGB-encoded
    np.testing.assert_allclose(out, expected, atol=2e-6)


def test_png_raw_when_srgb_false(rgba8):
    path, pixels = rgba8
    out = as_float({"filename": str(path), "outputSize": "Fixed", "srgb": False})
    np.testing.assert_allclose(out, pixels / 255.0, atol=1e-7)


def test_default_output_format_keeps_srgb_bytes(rgba8):
    path, pixels = rgba8
    tex, p, _ = load({"filename": str(path), "outputSize": "Fixed"})
    assert tex.format == falcor.ResourceFormat.BGRA8UnormSrgb
    # Decode (linearize) then re-encode gives the file's bytes back.
    np.testing.assert_array_equal(np.rint(tex.to_float32()[..., 3] * 255), pixels[..., 3])
    linear = tex.to_float32()[..., :3]
    np.testing.assert_allclose(linear, srgb_to_linear(pixels[..., :3] / 255.0), atol=2e-6)
    # As in Falcor, the format the graph chose is remembered and reported from then on.
    assert p.getDictionary()["outputFormat"] == "BGRA8UnormSrgb"


def test_16bit_png_is_not_srgb(tmp_path):
    gray = np.random.default_rng(2).integers(0, 65536, (4, 6), dtype=np.uint16)
    path = tmp_path / "gray16.png"
    Image.fromarray(gray).save(path)  # uint16 -> mode I;16
    out = as_float({"filename": str(path), "outputSize": "Fixed", "srgb": True})
    expected = np.ones((4, 6, 4))
    expected[..., :3] = (gray / 65535.0)[..., None]
    np.testing.assert_allclose(out, expected, atol=1e-7)


@pytest.mark.parametrize("srgb", [True, False])
def test_exr_float_values_exact(float_image, srgb):
    path, pixels = float_image
    out = as_float({"filename": str(path), "outputSize": "Fixed", "srgb": srgb})
    np.testing.assert_array_equal(out, pixels)


def test_exr_rgb_gets_opaque_alpha(tmp_path):
    rgb = np.random.default_rng(3).random((2, 3, 3)).astype(F32)
    write_exr(tmp_path / "rgb.exr", rgb, half=True)
    out = as_float({"filename": str(tmp_path / "rgb.exr"), "outputSize": "Fixed"})
    np.testing.assert_array_equal(out[..., :3], rgb.astype(np.float16).astype(F32))
    np.testing.assert_array_equal(out[..., 3], 1)


# ---- Radiance HDR written by hand ------------------------------------------------------------

def rle_channel(values: np.ndarray) -> bytes:
    """New-style RLE of one channel of a scanline: runs (128+n, v) and literals (n, v...)."""
    out, i, n = bytearray(), 0, len(values)
    while i < n:
        run = 1
        while i + run < n and run < 127 and values[i + run] == values[i]:
            run += 1
        if run >= 3:
            out += bytes([128 + run, values[i]])
            i += run
            continue
        j = i
        while j < n and j - i < 128 and not (j + 2 < n and values[j] == values[j + 1] == values[j + 2]):
            j += 1
        out += bytes([j - i]) + bytes(values[i:j])
        i = j
    return bytes(out)


def write_hdr(path, rgbe: np.ndarray, rle: bool):
    h, w = rgbe.shape[:2]
    data = bytearray(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n" + f"-Y {h} +X {w}\n".encode())
    for row in rgbe:
        if rle:
            data += bytes([2, 2, w >> 8, w & 255])
            for c in range(4):
                data += rle_channel(row[:, c])
        else:
            data += row.tobytes()
    path.write_bytes(bytes(data))


def rgbe_pixels(h, w, seed):
    rng = np.random.default_rng(seed)
    rgbe = np.empty((h, w, 4), np.uint8)
    rgbe[..., :3] = rng.integers(0, 256, (h, w, 3))
    rgbe[..., 3] = rng.integers(120, 140, (h, w))
    rgbe[:, 2:9] = rgbe[:, 2:3]  # long runs for the RLE encoder
    rgbe[0, 0, 3] = 0  # exponent 0 means black
    return rgbe


def decode_rgbe(rgbe):
    e = rgbe[..., 3].astype(np.float64)
    scale = np.where(e > 0, np.ldexp(1.0, (e - 136).astype(int)), 0.0)
    rgba = np.ones(rgbe.shape, F32)
    rgba[..., :3] = rgbe[..., :3] * scale[..., None]
    return rgba


@pytest.mark.parametrize("rle,width", [(False, 5), (False, 12), (True, 12), (True, 40)])
def test_radiance_hdr(tmp_path, rle, width):
    rgbe = rgbe_pixels(3, width, seed=width)
    if not rle:
        rgbe[:, 0, :2] = 1  # a flat scanline must not start like an RLE header
    path = tmp_path / "img.hdr"
    write_hdr(path, rgbe, rle)
    out = as_float({"filename": str(path), "outputSize": "Fixed"}, size=(4, 4))
    np.testing.assert_array_equal(out, decode_rgbe(rgbe))


# ---- Output size -----------------------------------------------------------------------------

def test_default_size_rescales_bilinearly(float_image):
    path, pixels = float_image
    out = as_float({"filename": str(path)}, size=(7, 4))
    assert out.shape == (4, 7, 4)
    np.testing.assert_allclose(out, bilinear(pixels.astype(np.float64), 7, 4), rtol=1e-5, atol=1e-5)


def test_srgb_image_is_filtered_in_linear_space(rgba8):
    path, pixels = rgba8
    out = as_float({"filename": str(path)}, size=(9, 8))
    linear = srgb_to_linear(pixels / 255.0)
    linear[..., 3] = pixels[..., 3] / 255.0
    np.testing.assert_allclose(out, bilinear(linear, 9, 8), atol=1e-5)


@pytest.mark.parametrize("selection,expected", [("Fixed", (3, 5)), ("Default", (12, 16)), ("Full", (12, 16)),
                                                ("Half", (6, 8)), ("Quarter", (3, 4)), ("Double", (24, 32))])
def test_output_size_rules(float_image, selection, expected):
    path, _ = float_image
    tex, _, _ = load({"filename": str(path), "outputSize": selection}, size=(16, 12))
    assert (tex.height, tex.width) == expected


# ---- Mips and slices -------------------------------------------------------------------------

def test_mips_and_mip_level(tmp_path):
    pixels = np.random.default_rng(4).random((8, 8, 4)).astype(F32)
    write_exr(tmp_path / "m.exr", pixels, half=False)
    mip1 = pixels.reshape(4, 2, 4, 2, 4).mean(axis=(1, 3))
    mip2 = mip1.reshape(2, 2, 2, 2, 4).mean(axis=(1, 3))
    name = str(tmp_path / "m.exr")
    # 'Half' of an 8x8 frame is mip 1's size, so the blit is a plain copy of that level.
    np.testing.assert_allclose(as_float({"filename": name, "mips": True, "mipLevel": 1, "outputSize": "Half"}, (8, 8)),
                               mip1, rtol=1e-6)
    np.testing.assert_allclose(as_float({"filename": name, "mips": True, "mipLevel": 2, "outputSize": "Quarter"}, (8, 8)),
                               mip2, rtol=1e-6)
    # Fixed is mip 0's size: the selected level is magnified bilinearly.
    np.testing.assert_allclose(as_float({"filename": name, "mips": True, "mipLevel": 1, "outputSize": "Fixed"}),
                               bilinear(mip1.astype(np.float64), 8, 8), rtol=1e-5, atol=1e-6)


def test_mip_level_and_array_index_are_clamped(tmp_path):
    pixels = np.random.default_rng(5).random((8, 8, 4)).astype(F32)
    write_exr(tmp_path / "c.exr", pixels, half=False)
    tex, p, _ = load({"filename": str(tmp_path / "c.exr"), "outputFormat": "RGBA32Float", "outputSize": "Fixed",
                      "mips": True, "mipLevel": 10, "arrayIndex": 5})
    d = p.getDictionary()
    assert d["mipLevel"] == 3 and d["arrayIndex"] == 0  # 8x8 has mips 0..3, one slice
    np.testing.assert_allclose(read_texture(tex), np.broadcast_to(pixels.mean(axis=(0, 1)), (8, 8, 4)), rtol=1e-5)
    tex, p, _ = load({"filename": str(tmp_path / "c.exr"), "outputFormat": "RGBA32Float", "outputSize": "Fixed",
                      "mipLevel": 2})
    assert p.getDictionary()["mipLevel"] == 0  # no mips generated
    np.testing.assert_array_equal(read_texture(tex), pixels)


def test_srgb_mips_average_linear_values(tmp_path):
    pixels = np.random.default_rng(6).integers(0, 256, (4, 4, 4), dtype=np.uint8)
    Image.fromarray(pixels, "RGBA").save(tmp_path / "s.png")
    out = as_float({"filename": str(tmp_path / "s.png"), "mips": True, "mipLevel": 1, "outputSize": "Half"}, (4, 4))
    linear = srgb_to_linear(pixels / 255.0)
    linear[..., 3] = pixels[..., 3] / 255.0
    expected = linear.reshape(2, 2, 2, 2, 4).mean(axis=(1, 3))
    # Mip 1 is stored as 8-bit sRGB again: allow its quantization.
    np.testing.assert_allclose(out, expected, atol=0.01)


# ---- Files and errors ------------------------------------------------------------------------

def test_missing_file_error_names_file_and_search_paths(tmp_path, search_paths):
    search_paths.add_search_path(str(tmp_path))
    g = falcor.RenderGraph("missing")
    with pytest.raises(falcor.RuntimeError) as e:
        g.create_pass("L", "ImageLoader", {"filename": "no_such_image.png"})
    msg = str(e.value)
    assert "ImageLoader: Failed to load image from 'no_such_image.png'" in msg
    assert str(tmp_path / "no_such_image.png") in msg


def test_corrupt_file_error(tmp_path):
    (tmp_path / "bad.png").write_bytes(b"not an image at all")
    with pytest.raises(falcor.RuntimeError, match="ImageLoader: Failed to load image from '.*bad.png'"):
        falcor.RenderGraph("bad").create_pass("L", "ImageLoader", {"filename": str(tmp_path / "bad.png")})


def test_relative_filename_found_in_search_path(tmp_path, search_paths, float_image):
    _, pixels = float_image  # written into tmp_path as float.exr
    (tmp_path / "textures").mkdir()
    write_exr(tmp_path / "textures" / "sub.exr", pixels[::-1], half=False)
    search_paths.add_search_path(str(tmp_path))
    out = as_float({"filename": "float.exr", "outputSize": "Fixed"})
    np.testing.assert_array_equal(out, pixels)
    tex, p, _ = load({"filename": "textures/sub.exr", "outputSize": "Fixed", "outputFormat": "RGBA32Float"})
    np.testing.assert_array_equal(read_texture(tex), pixels[::-1])
    assert p.getDictionary()["filename"] == "textures/sub.exr"  # stored as given, not resolved


def test_no_filename_fails_at_compile():
    g = falcor.RenderGraph("empty")
    g.create_pass("L", "ImageLoader")
    g.mark_output("L.dst")
    with pytest.raises(falcor.RuntimeError, match="ImageLoader: No image loaded"):
        g.execute()


# ---- Options ---------------------------------------------------------------------------------

def test_defaults_round_trip_and_key_order(float_image):
    path, _ = float_image
    g = falcor.RenderGraph("props")
    g.create_pass("A", "ImageLoader")
    assert g.get_pass("A").getDictionary() == {"outputSize": "Default", "filename": "", "mips": False, "srgb": True,
                                               "arrayIndex": 0, "mipLevel": 0}
    props = {"outputSize": "Fixed", "outputFormat": "RGBA16Float", "filename": str(path), "mips": True, "srgb": False,
             "arrayIndex": 0, "mipLevel": 1}
    g.create_pass("B", "ImageLoader", dict(reversed(props.items())))
    d = g.get_pass("B").getDictionary()
    assert d == props and list(d) == list(props)
    g.update_pass("B", d)
    assert g.get_pass("B").getDictionary() == d


def test_unknown_key_and_wrong_types(capfd, float_image):
    path, _ = float_image
    g = falcor.RenderGraph("bad")
    g.create_pass("A", "ImageLoader", {"filename": str(path), "generateMips": True})
    assert "Unknown property 'generateMips' in ImageLoader properties." in capfd.readouterr().out
    with pytest.raises(falcor.RuntimeError, match="srgb"):
        g.create_pass("B", "ImageLoader", {"srgb": 1})
    with pytest.raises(falcor.RuntimeError, match="filename"):
        g.create_pass("C", "ImageLoader", {"filename": 3})
    with pytest.raises(falcor.RuntimeError, match="Invalid enum name 'Native'"):
        g.create_pass("D", "ImageLoader", {"outputSize": "Native"})
