"""Textures: formats, Falcor's to_numpy/from_numpy shapes, zero-copy views and DLPack."""
import numpy as np
import pytest

import falcor
from falcor import ResourceFormat as RF


@pytest.mark.parametrize("fmt,dtype,shape", [
    (RF.RGBA32Float, np.float32, (3, 5, 4)),
    (RF.R32Float, np.float32, (3, 5)),
    (RF.RG16Float, np.float16, (3, 5, 2)),
    (RF.R32Uint, np.uint32, (3, 5)),
    (RF.RGBA16Int, np.int16, (3, 5, 4)),
    (RF.RGBA8Uint, np.uint8, (3, 5, 4)),
    (RF.RGBA8Unorm, np.uint8, (60,)),      # Falcor: unorm formats read back as raw bytes
    (RF.BGRA8UnormSrgb, np.uint8, (60,)),
    (RF.R11G11B10Float, np.uint8, (60,)),  # packed formats too
])
def test_to_numpy_follows_falcor(fmt, dtype, shape):
    t = falcor.Texture(5, 3, fmt)
    a = t.to_numpy()
    assert a.dtype == dtype and a.shape == shape


def test_to_numpy_drops_unit_dims():
    assert falcor.Texture(7, 1, RF.RGBA32Float).to_numpy().shape == (7, 4)


def test_from_numpy_round_trip_and_size_check():
    t = falcor.Texture(4, 2, RF.RGBA32Float)
    data = np.arange(32, dtype=np.float32).reshape(2, 4, 4)
    t.from_numpy(data)
    np.testing.assert_array_equal(t.to_numpy(), data)
    with pytest.raises(falcor.RuntimeError, match="from_numpy: data has 16 bytes"):
        t.from_numpy(np.zeros(4, np.float32))


def test_buffer_view_is_zero_copy_with_natural_shape():
    t = falcor.Texture(4, 2, RF.RGBA8Unorm)
    view = np.asarray(t)
    assert view.shape == (2, 4, 4) and view.dtype == np.uint8
    view[1, 2] = [10, 20, 30, 40]
    np.testing.assert_array_equal(t.to_numpy().reshape(2, 4, 4)[1, 2], [10, 20, 30, 40])
    assert np.asarray(falcor.Texture(3, 2, RF.RGB10A2Unorm)).shape == (2, 3)  # one word per texel


def test_float32_decoding_of_formats():
    t = falcor.Texture(2, 1, RF.BGRA8UnormSrgb)
    np.asarray(t)[0, 0] = [255, 0, 188, 128]  # stored B, G, R, A
    v = t.to_float32()[0, 0]
    np.testing.assert_allclose(v, [0.5029, 0.0, 1.0, 128 / 255], atol=1e-3)  # sRGB decoded; alpha linear


def test_blit_encodes_and_converts():
    src = falcor.Texture(2, 2, RF.RGBA32Float)
    np.asarray(src)[...] = [[[0.5, 0.25, 2.0, 1.0]]]
    dst = falcor.Texture(2, 2, RF.RGBA8UnormSrgb)
    falcor.RenderContext().blit(src, dst)
    np.testing.assert_array_equal(np.asarray(dst)[0, 0], [188, 137, 255, 255])


def test_half_float_conversion_matches_numpy():
    values = np.array([0, 1e-8, 6e-5, 0.1, 1, 65504, 70000, -2.5, np.inf, -np.inf], np.float32)
    src = falcor.Texture(len(values), 1, RF.R32Float)
    np.asarray(src)[...] = values
    dst = falcor.Texture(len(values), 1, RF.R16Float)
    falcor.RenderContext().blit(src, dst)
    with np.errstate(over="ignore"):  # 70000 overflows to inf, as the GPU conversion does
        expected = values.astype(np.float16)
    np.testing.assert_array_equal(np.asarray(dst).reshape(-1), expected)


def test_dlpack_shares_memory():
    t = falcor.Texture(4, 3, RF.RGBA32Float)
    a = np.from_dlpack(t)
    assert a.shape == (3, 4, 4)
    a[2, 1, 0] = 7.0
    assert t.to_numpy()[2, 1, 0] == 7.0
    assert t.__dlpack_device__() == (1, 0)


def test_dlpack_legacy_capsule_for_older_consumers():
    # Consumers that don't ask for DLPack 1.0 (older torch/numpy) get the unversioned capsule.
    t = falcor.Texture(3, 2, RF.RGBA16Float)
    t.from_numpy(np.arange(24, dtype=np.float16).reshape(2, 3, 4))

    class LegacyOnly:
        def __dlpack__(self, **kwargs):
            return t.__dlpack__()

        def __dlpack_device__(self):
            return t.__dlpack_device__()

    a = np.from_dlpack(LegacyOnly())
    assert a.dtype == np.float16 and a.shape == (2, 3, 4)
    np.testing.assert_array_equal(a, t.to_numpy())


def test_srgb_encoding_matches_the_formula():
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.random(200_000, dtype=np.float32), np.linspace(0, 1, 4097, dtype=np.float32),
                             np.array([-1, 0, 1e-9, 0.0031308, 1, 2, np.inf, np.nan], np.float32)])
    values = np.resize(values, (len(values) + 4095) // 4096 * 4096)  # rows of 4096 (textures are at most 16384 wide)
    src = falcor.Texture(4096, len(values) // 4096, RF.R32Float)
    np.asarray(src)[...] = values.reshape(-1, 4096)
    dst = falcor.Texture(4096, len(values) // 4096, RF.RGBA8UnormSrgb)
    falcor.RenderContext().blit(src, dst)
    got = np.asarray(dst)[..., 0].reshape(-1).astype(np.int64)
    v = np.clip(np.nan_to_num(values.astype(np.float64), nan=0.0), 0.0, 1.0)
    srgb = np.clip(np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(np.clip(v, 0, None), 1 / 2.4) - 0.055), 0, 1)
    expected = np.floor(srgb * 255 + 0.5).astype(np.int64)
    near_tie = np.abs(srgb * 255 + 0.5 - np.round(srgb * 255 + 0.5)) < 1e-4  # float32 vs float64 rounding
    assert np.all((got == expected) | near_tie)
    assert np.mean(got == expected) > 0.999
