"""Texture files for materials and environment maps: read with `falcor.read_image`, given a full
mip chain, optionally reinterpreted as sRGB; plus the value ranges scene optimization needs."""
from __future__ import annotations

import os

import numpy as np

from .. import falcor_ext as _ext
from .asset_log import record_asset

_RF = _ext.ResourceFormat
_SRGB = {_RF.RGBA8Unorm: _RF.RGBA8UnormSrgb, _RF.BGRA8Unorm: _RF.BGRA8UnormSrgb, _RF.BGRX8Unorm: _RF.BGRX8UnormSrgb}
MAX_MIPS = 0xFFFFFFFF


def resolve(path, category=None):
    """Path of an asset through the default resolver, or None when it can't be found."""
    category = _ext.AssetCategory.Any if category is None else category
    resolved = _ext.AssetResolver.default_resolver.resolve_path(os.fspath(path), category)
    if str(resolved) in ("", "."):
        return None
    record_asset(resolved)
    return resolved


def load_texture(path, srgb: bool, generate_mips: bool = True):
    """A texture from an image file (mip chain filtered from level 0), or None with a warning."""
    resolved = resolve(path, _ext.AssetCategory.Texture)
    if resolved is None:
        _ext.Logger.log(_ext.Logger.Level.Warning, f"Can't find texture file '{path}'.")
        return None
    try:
        image = _ext.read_image(resolved)
    except Exception as e:  # unreadable file: Falcor returns no texture
        _ext.Logger.log(_ext.Logger.Level.Warning, f"Failed to load texture '{path}': {e}")
        return None
    return texture_from_pixels(np.asarray(image), image.format, srgb, generate_mips)


def texture_from_pixels(pixels: np.ndarray, fmt, srgb: bool, generate_mips: bool = True):
    """A texture of decoded pixels (H, W, C) in `fmt`, reinterpreted as sRGB if asked, with mips."""
    fmt = _SRGB.get(fmt, fmt) if srgb else fmt
    texture = _ext.Texture(pixels.shape[1], pixels.shape[0], fmt, 1, MAX_MIPS if generate_mips else 1)
    texture.from_numpy(pixels)
    if generate_mips:
        texture.generate_mips()
    return texture


def texture_from_encoded(data: bytes, name: str, srgb: bool):
    """A texture from an image file's bytes held in memory (textures embedded in FBX, glb, USDZ,
    ...), or None with a warning naming it when the bytes don't decode."""
    from ..image_io import decode_image

    try:
        pixels, fmt = decode_image(data, name)
    except ValueError as e:
        _ext.Logger.log(_ext.Logger.Level.Warning, f"Failed to load texture: {e}")
        return None
    return texture_from_pixels(pixels, fmt, srgb)


def non_finite_texels(texture) -> int:
    """How many texel values are NaN or infinite in the first mip level that has any (mips are
    usually filtered from mip 0, so mip 0's count); 0 for formats that can't hold them.
    Materials and env maps refuse such textures: they would make NaN pixels."""
    if _ext.get_format_desc(texture.format)["type"] != "Float":
        return 0
    for mip in range(texture.mip_count):
        count = sum(int(np.count_nonzero(~np.isfinite(texture.to_float32(mip, layer)))) for layer in range(texture.array_size))
        if count:
            return count
    return 0


def has_alpha(texture) -> bool:
    return _ext.get_format_desc(texture.format)["channel_count"] == 4 and texture.format not in (
        _RF.BGRX8Unorm, _RF.BGRX8UnormSrgb)


def value_range(texture) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (min, max) of mip 0 as decoded float4 values."""
    texels = texture.to_float32(0, 0).reshape(-1, 4)
    return texels.min(axis=0), texels.max(axis=0)
