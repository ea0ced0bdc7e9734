"""Writing graph outputs to files, as Mogwai's FrameCapture and Testbed.capture_output do.

File names: `<outputDir>/<baseFilename>.<Pass>.<field>.<frame>[<suffix>].<ext>` with suffix
`.RGBA`, `.R`, `.G`, `.B`, `.A` for the non-RGB channel masks. Extension: `exr` when the
(channel-extracted) format is a float format or has 16/32-bit integer channels, else `png`.
EXR files hold half floats (as Falcor's FreeImage writer stores them); PNGs are 8-bit.
"""
from __future__ import annotations

import concurrent.futures
import threading
from pathlib import Path

import numpy as np

from . import image_io
from .falcor_ext import Logger, TextureChannelFlags, get_format_desc

_SINGLE = {
    TextureChannelFlags.Red: (0, ".R"),
    TextureChannelFlags.Green: (1, ".G"),
    TextureChannelFlags.Blue: (2, ".B"),
    TextureChannelFlags.Alpha: (3, ".A"),
}


def mask_suffix(mask) -> str | None:
    """File-name suffix of a channel mask; None for masks Falcor can't capture."""
    if mask == TextureChannelFlags.RGB:
        return ""
    if mask == TextureChannelFlags.RGBA:
        return ".RGBA"
    if mask in _SINGLE:
        return _SINGLE[mask][1]
    return None


def _is_exr(fmt_type: str, bits: int) -> bool:
    return fmt_type == "Float" or (fmt_type in ("Uint", "Sint") and bits >= 16)


def prepare_output(tex, mask) -> tuple[np.ndarray, str] | None:
    """Pixels to write for one marked output and mask, and the file extension ('png' | 'exr').

    Returns None (after a warning) for masks Falcor does not capture.
    """
    desc = get_format_desc(tex.format)
    fmt_type, bits = desc["type"], max(desc["bits_per_channel"])
    if mask in _SINGLE:
        # Falcor first copies the channel into a single-channel texture of the same kind.
        channel = _SINGLE[mask][0]
        if _is_exr(fmt_type, bits):
            values = _decoded(tex, fmt_type)[..., channel]
            rgb = np.zeros(values.shape + (3,), np.float32)
            rgb[..., 0] = values
            return rgb, "exr"
        return _to_png_channel(tex, fmt_type, channel), "png"
    if mask not in (TextureChannelFlags.RGB, TextureChannelFlags.RGBA):
        Logger.log(Logger.Level.Warning, f"Frame capture: channel mask {mask} is not supported; output skipped.")
        return None
    channels = 4 if mask == TextureChannelFlags.RGBA else 3
    if _is_exr(fmt_type, bits):
        return np.ascontiguousarray(_decoded(tex, fmt_type)[..., :channels]), "exr"
    return _to_png(tex, fmt_type, desc, channels), "png"


def _decoded(tex, fmt_type: str) -> np.ndarray:
    """Float32 (H, W, 4) as Falcor's writer sees the texels: floats as stored (missing channels 0,
    alpha 1); 16/32-bit integers normalized by their type's maximum (unsigned to [0, 1], signed to
    [-1, 1]) with missing channels, alpha included, 0."""
    if fmt_type not in ("Uint", "Sint"):
        return tex.to_float32()
    raw = np.asarray(tex)
    raw = raw.reshape(raw.shape[0], raw.shape[1], -1)
    out = np.zeros(raw.shape[:2] + (4,), np.float32)
    out[..., : raw.shape[2]] = raw.astype(np.float64) / np.iinfo(raw.dtype).max
    return out


def _unorm8(values: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(np.nan_to_num(values) * 255.0), 0, 255).astype(np.uint8)


def _to_png(tex, fmt_type: str, desc: dict, channels: int) -> np.ndarray:
    count = desc["channel_count"]
    if fmt_type in ("Unorm", "UnormSrgb") and max(desc["bits_per_channel"]) == 8 and desc["bytes_per_texel"] == count:
        raw = np.asarray(tex)
        raw = raw.reshape(raw.shape[0], raw.shape[1], -1)
        if desc["bgr"]:
            raw = raw[..., [2, 1, 0, 3]]
        pixels = raw  # stored (sRGB-encoded where the format is) bytes, as the GPU holds them
    elif desc["bytes_per_texel"] == 4 and count > 1:
        # Other 32-bit texels (RGB10A2, RG16, ...): Falcor hands the raw words to FreeImage, which
        # reads their bytes as B, G, R, A.
        raw = np.frombuffer(tex.to_numpy().tobytes(), np.uint8).reshape(tex.height, tex.width, 4)
        return _shape_channels(raw[..., [2, 1, 0, 3]], 4, channels)
    elif fmt_type in ("Uint", "Sint"):
        pixels = np.clip(tex.to_float32(), 0, 255).astype(np.uint8)
    else:
        values = tex.to_float32()
        if fmt_type == "Snorm":
            values = values * 0.5 + 0.5
        if fmt_type == "UnormSrgb":
            values = _linear_to_srgb(values)
        pixels = _unorm8(values)
    return _shape_channels(pixels, count, channels)


def _to_png_channel(tex, fmt_type: str, channel: int) -> np.ndarray:
    values = tex.to_float32()[..., channel]
    if fmt_type in ("Uint", "Sint"):
        return np.clip(values, 0, 255).astype(np.uint8)[..., None]
    if fmt_type == "Snorm":
        values = values * 0.5 + 0.5
    return _unorm8(values)[..., None]


def _linear_to_srgb(v: np.ndarray) -> np.ndarray:
    v = np.clip(v, 0.0, None)
    return np.where(v <= 0.0031308, v * 12.92, 1.055 * np.power(v, 1 / 2.4) - 0.055)


def _shape_channels(pixels: np.ndarray, count: int, channels: int) -> np.ndarray:
    """(H, W, >= count) texels of a `count`-channel format -> a new array of the channels a PNG
    of this mask holds: one channel for 1-channel formats, else RGB(A) with missing channels 0
    (alpha 255)."""
    if count == 1:
        return pixels[..., :1].copy()
    out = np.zeros(pixels.shape[:2] + (channels,), np.uint8)
    present = min(count, channels, pixels.shape[2])
    out[..., :present] = pixels[..., :present]
    if channels == 4 and count < 4:
        out[..., 3] = 255
    return out


class CaptureWriteError(OSError):
    """A capture file could not be written; names the file and the system's reason."""


def write_output(path: Path, pixels: np.ndarray, ext: str) -> None:
    try:
        if ext == "exr":
            image_io.write_exr(path, pixels)
        else:
            image_io.write_png(path, pixels)
    except OSError as e:
        raise CaptureWriteError(e.errno, f"Frame capture can't write '{path}': {e.strerror or e}") from None


class AsyncWriter:
    """Writes captured images on a background thread so file encoding overlaps the next frame.
    Errors surface on the next `submit`/`flush`."""

    def __init__(self) -> None:
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="falcor-capture")
        self._pending: list[concurrent.futures.Future] = []
        self._lock = threading.Lock()

    def submit(self, path: Path, pixels: np.ndarray, ext: str) -> None:
        """Queues `pixels` for writing; a view of texture memory is copied first (the texture
        changes with the next frame while the file is still being encoded)."""
        if not pixels.flags.owndata:
            pixels = pixels.copy()
        self._raise_finished_errors()
        with self._lock:
            self._pending.append(self._executor.submit(write_output, path, pixels, ext))

    def flush(self) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for f in pending:
            _result(f)

    def _raise_finished_errors(self) -> None:
        with self._lock:
            done = [f for f in self._pending if f.done()]
            self._pending = [f for f in self._pending if not f.done()]
        for f in done:
            _result(f)


def _result(future: concurrent.futures.Future) -> None:
    """A write's outcome; a failure is raised here without the writer thread's frames."""
    error = future.exception()
    if error is not None:
        raise error.with_traceback(None)
