"""Looking at textures: `falcor.show` and the PNG that Jupyter displays inline (`Texture._repr_png_`).

How texels become 8-bit display pixels (`mode`):

- ``"auto"`` (default) picks by format and content:
  sRGB formats are shown as stored; other unorm formats are taken as display values (x 255);
  float and snorm formats whose values are all >= 0 are linear radiance: ``"tonemap"``;
  float and snorm formats with negative values (normals, motion vectors) and integer formats
  (IDs, V-buffers) are ``"normalize"``-d.
- ``"tonemap"``: scaled by ``2**exposure``, clamped to [0, 1] and sRGB-encoded (what a PNG
  capture of the linear image would look like with a clamping tone map).
- ``"normalize"``: the finite range [min, max] of the shown channels maps linearly to [0, 1]
  (one range for all channels, so normals keep their hue); a constant image shows mid-grey.
- ``"raw"``: values clamped to [0, 1], no encoding.

NaN shows as 0 and infinities clamp. One channel shows grey, two show as red and green, alpha is
dropped unless ``alpha=True``.
"""
from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

import numpy as np
import numpy.typing as npt

from . import falcor_ext as _ext
from .image_io import write_png

if TYPE_CHECKING:
    from PIL import Image

Mode = Literal["auto", "tonemap", "normalize", "raw"]
MODES = ("auto", "tonemap", "normalize", "raw")
MAX_EXPOSURE = 64  # stops; float32 holds 2**+-126


def srgb_encode(linear: npt.NDArray[np.float32], in_place: bool = False) -> npt.NDArray[np.float32]:
    """The sRGB transfer function (IEC 61966-2-1) of values in [0, 1]."""
    x = linear if in_place else np.array(linear, np.float32)
    dark = x <= np.float32(0.0031308)
    dark_values = x * np.float32(12.92)
    np.power(x, np.float32(1.0 / 2.4), out=x)
    x *= np.float32(1.055)
    x -= np.float32(0.055)
    np.copyto(x, dark_values, where=dark)
    return x


def clamp_unit(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Clamps to [0, 1] in place, NaN to 0 (fmax/fmin return the number when one side is NaN)."""
    np.fmax(x, np.float32(0.0), out=x)
    return np.fmin(x, np.float32(1.0), out=x)


def texture_values(texture: _ext.Texture, mip_level: int, array_slice: int) -> tuple[npt.NDArray[np.float32], str, int]:
    """(H, W, C) float32 texels as stored (sRGB formats re-encoded), the format type, C."""
    desc = _ext.get_format_desc(texture.format)
    channels = int(desc["channel_count"])
    values = texture.to_float32(mip_level, array_slice)[..., :channels]
    if desc["type"] == "UnormSrgb":  # to_float32 linearized them; show them as stored
        values = np.concatenate([srgb_encode(clamp_unit(np.array(values[..., :3]))), values[..., 3:]], axis=-1)
    return values, str(desc["type"]), channels


def array_values(array: npt.ArrayLike) -> tuple[npt.NDArray[np.float32], str, int]:
    a = np.asarray(array)
    if a.ndim == 2:
        a = a[..., None]
    if a.ndim != 3 or not 1 <= a.shape[2] <= 4:
        raise ValueError(f"falcor.show: an array must be (H, W) or (H, W, 1..4), not {a.shape}")
    if a.dtype == np.uint8:
        return a.astype(np.float32) / 255.0, "Unorm", a.shape[2]
    kind = "Float" if np.issubdtype(a.dtype, np.floating) else "Uint"
    return a.astype(np.float32), kind, a.shape[2]


def resolve_mode(mode: Mode, kind: str, color: npt.NDArray[np.float32]) -> Mode:
    if mode not in MODES:
        raise ValueError(f"falcor.show: mode must be one of {', '.join(MODES)}, not {mode!r}")
    if mode != "auto":
        return mode
    if kind in ("Unorm", "UnormSrgb"):
        return "raw"
    if kind in ("Uint", "Sint"):
        return "normalize"
    lowest = np.fmin.reduce(color, axis=None) if color.size else 0.0  # NaN ignored
    if lowest == -np.inf:
        finite = color[np.isfinite(color)]
        lowest = finite.min() if finite.size else 0.0
    return "normalize" if lowest < 0 else "tonemap"


def to_display(color: npt.NDArray[np.float32], mode: Mode, exposure: float) -> npt.NDArray[np.float32]:
    """Display values in [0, 1] (a new contiguous array) of the shown channels."""
    if mode == "tonemap":
        return srgb_encode(clamp_unit(np.multiply(color, np.float32(2.0 ** exposure), dtype=np.float32)), in_place=True)
    if mode == "normalize":
        finite = color[np.isfinite(color)]
        low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
        with np.errstate(invalid="ignore"):
            scaled = ((color - np.float32(low)) / np.float32(high - low) if high > low
                      else np.where(np.isfinite(color), np.float32(0.5), color))
        return clamp_unit(scaled.astype(np.float32, copy=False))
    return clamp_unit(np.array(color, np.float32))


def display_pixels(image: _ext.Texture | npt.ArrayLike, mode: Mode = "auto", exposure: float = 0.0, alpha: bool = False,
                   mip_level: int = 0, array_slice: int = 0) -> npt.NDArray[np.uint8]:
    """(H, W, 1|3|4) uint8 display pixels of a texture or array (see the module docstring)."""
    if not -MAX_EXPOSURE <= exposure <= MAX_EXPOSURE:  # also rejects NaN
        raise ValueError(f"falcor.show: exposure must be within [-{MAX_EXPOSURE}, {MAX_EXPOSURE}] stops, not {exposure!r}")
    if isinstance(image, _ext.Texture):
        values, kind, channels = texture_values(image, mip_level, array_slice)
    else:
        values, kind, channels = array_values(image)
    color_count = 1 if channels == 1 else min(channels, 3)
    color = values[..., :color_count]
    shown = to_display(color, resolve_mode(mode, kind, color), exposure)
    if color_count == 2:
        shown = np.concatenate([shown, np.zeros_like(shown[..., :1])], axis=-1)
    if alpha and channels == 4:
        shown = np.concatenate([shown, clamp_unit(np.array(values[..., 3:4]))], axis=-1)
    shown *= np.float32(255.0)
    shown += np.float32(0.5)
    return shown.astype(np.uint8)


@overload
def show(image: _ext.Texture | npt.ArrayLike, path: None = None, *, mode: Mode = "auto", exposure: float = 0.0,
         alpha: bool = False, mip_level: int = 0, array_slice: int = 0) -> Image.Image: ...
@overload
def show(image: _ext.Texture | npt.ArrayLike, path: str | os.PathLike[str], *, mode: Mode = "auto", exposure: float = 0.0,
         alpha: bool = False, mip_level: int = 0, array_slice: int = 0) -> Path: ...
def show(image: _ext.Texture | npt.ArrayLike, path: str | os.PathLike[str] | None = None, *, mode: Mode = "auto",
         exposure: float = 0.0, alpha: bool = False, mip_level: int = 0, array_slice: int = 0) -> Image.Image | Path:
    """Shows a texture (or an (H, W[, C]) array) as an 8-bit image: a PIL image, or with `path` a PNG
    file written atomically (its path is returned). `mode` and `exposure` choose how float values
    are brought to display range (module docstring of falcor.display); `alpha=True` keeps alpha."""
    pixels = display_pixels(image, mode, exposure, alpha, mip_level, array_slice)
    if path is not None:
        target = Path(os.fspath(path))
        write_png(target, pixels)
        return target
    from PIL import Image  # noqa: PLC0415 (a runtime dependency, loaded when first needed)
    return Image.fromarray(pixels[..., 0] if pixels.shape[2] == 1 else pixels)


def texture_png(texture: _ext.Texture) -> bytes:
    """PNG bytes of a texture as `show` draws it with the defaults (Jupyter's `_repr_png_`)."""
    buffer = io.BytesIO()
    show(texture).save(buffer, format="PNG", compress_level=1)  # shown, not archived: encode fast
    return buffer.getvalue()
