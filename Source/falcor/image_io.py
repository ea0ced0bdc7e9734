"""Image files: reading (Pillow, OpenEXR) for ImageLoader and friends, writing for frame capture.

Writes are atomic: the image goes to a temporary file in the target folder, then is renamed, so
an interrupted capture never leaves a half-written file under the final name.
"""
from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import falcor_ext as _ext

_RF = _ext.ResourceFormat


def read_image(path: str | os.PathLike) -> tuple[np.ndarray, "_ext.ResourceFormat"]:
    """Decodes an image file into (pixels HxWxC, format). 8-bit images come back as RGBA8Unorm,
    16-bit as RGBA16Unorm, float images (EXR) as RGBA32Float. Alpha is opaque when absent."""
    path = Path(path)
    if path.suffix.lower() == ".exr":
        return _read_exr(path), _RF.RGBA32Float
    return _read_pillow(path)


def decode_image(data: bytes, name: str = "") -> tuple[np.ndarray, "_ext.ResourceFormat"]:
    """`read_image` of an image file's bytes held in memory (a texture embedded in a scene file):
    PNG, JPEG, TGA, BMP and the other formats Pillow reads, or EXR. `name` says what the bytes
    are in errors."""
    import io

    if data[:4] == b"\x76\x2f\x31\x01":  # OpenEXR's magic number
        import tempfile

        with tempfile.TemporaryDirectory() as folder:  # OpenEXR's Python API reads files only
            path = Path(folder) / "embedded.exr"
            path.write_bytes(data)
            return _read_exr(path), _RF.RGBA32Float
    try:
        return _read_pillow(io.BytesIO(data))
    except Exception as e:  # Pillow's errors for unknown or damaged data are of many types
        raise ValueError(f"can't decode the embedded image '{name}' ({type(e).__name__}: {e})") from e


def _read_pillow(path) -> tuple[np.ndarray, "_ext.ResourceFormat"]:
    from PIL import Image

    with Image.open(path) as img:
        img.load()
        if img.mode in ("I;16", "I;16B", "I;16L", "I"):
            gray = np.asarray(img, dtype=np.uint16 if img.mode.startswith("I;16") else np.uint32)
            gray = np.clip(gray, 0, 65535).astype(np.uint16)
            rgba = np.empty(gray.shape + (4,), np.uint16)
            rgba[..., :3] = gray[..., None]
            rgba[..., 3] = 65535
            return rgba, _RF.RGBA16Unorm
        if img.mode == "F":
            f = np.asarray(img, dtype=np.float32)
            rgba = np.ones(f.shape + (4,), np.float32)
            rgba[..., :3] = f[..., None]
            return rgba, _RF.RGBA32Float
        rgba = np.asarray(img.convert("RGBA"), dtype=np.uint8)
        return np.ascontiguousarray(rgba), _RF.RGBA8Unorm


def _read_exr(path: Path) -> np.ndarray:
    import OpenEXR

    with OpenEXR.File(str(path)) as f:
        channels = f.channels()
        if "RGBA" in channels:
            px = np.asarray(channels["RGBA"].pixels, dtype=np.float32)
            return np.ascontiguousarray(px)
        if "RGB" in channels:
            px = np.asarray(channels["RGB"].pixels, dtype=np.float32)
            alpha = np.ones(px.shape[:2] + (1,), np.float32)
            return np.ascontiguousarray(np.concatenate([px, alpha], axis=2))
        names = list(channels)
        first = np.asarray(channels[names[0]].pixels, dtype=np.float32)
        rgba = np.zeros(first.shape[:2] + (4,), np.float32)
        rgba[..., 3] = 1.0
        for i, name in enumerate(n for n in ("R", "G", "B", "A", "Y") if n in channels):
            idx = {"R": 0, "G": 1, "B": 2, "A": 3, "Y": 0}[name]
            rgba[..., idx] = np.asarray(channels[name].pixels, dtype=np.float32)
        if "Y" in channels and "R" not in channels:
            rgba[..., 1] = rgba[..., 2] = rgba[..., 0]
        if len(channels) and not any(n in channels for n in ("R", "G", "B", "A", "Y")):
            rgba[..., 0] = first if first.ndim == 2 else first[..., 0]
        return rgba


def temporary_path(path: Path) -> Path:
    """A unique hidden name beside `path`, for writing it atomically: in the same folder (so the
    rename is atomic), and created with the usual permissions, unlike mkstemp's private ones."""
    return path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp{path.suffix}")


def atomic_write(path: Path, write: Callable[[str], object]) -> None:
    """Calls `write(tmp)` for a temporary name beside `path`, then renames it to `path`: readers never
    see a half-written file, and a failure leaves the old file (if any) as it was."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = str(temporary_path(path))
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_png(path: str | os.PathLike, pixels: np.ndarray) -> None:
    """Writes (H, W, 1|3|4) uint8 pixels as a grey, RGB or RGBA PNG (best zlib compression, like Falcor)."""
    from PIL import Image

    pixels = np.ascontiguousarray(pixels)
    if pixels.shape[2] not in (1, 3, 4):
        raise ValueError(f"write_png: {pixels.shape[2]} channels; expected 1, 3 or 4")
    image = Image.fromarray(pixels[..., 0] if pixels.shape[2] == 1 else pixels)  # L, RGB or RGBA
    atomic_write(Path(path), lambda tmp: image.save(tmp, format="PNG", compress_level=9))


def write_exr(path: str | os.PathLike, pixels: np.ndarray, half: bool = True) -> None:
    """Writes (H, W, 3|4) float pixels as an RGB(A) EXR. Falcor's captures store half floats."""
    import OpenEXR

    dtype = np.float16 if half else np.float32
    with np.errstate(over="ignore"):  # beyond the half range becomes inf, as in Falcor's files
        pixels = np.ascontiguousarray(pixels, dtype=dtype)
    name = "RGBA" if pixels.shape[2] == 4 else "RGB"
    header = {"compression": OpenEXR.PIZ_COMPRESSION, "type": OpenEXR.scanlineimage}  # as Falcor's captures

    def write(tmp) -> None:
        with OpenEXR.File(header, {name: pixels}) as f:
            f.write(tmp)

    atomic_write(Path(path), write)


def _reader_for_engine(path: str):
    try:
        return read_image(path)
    except Exception as e:  # Re-raised by the engine as ImporterError naming the file.
        raise RuntimeError(f"{type(e).__name__}: {e}") from e


_ext._set_image_reader(_reader_for_engine)
