"""Scene importers by file extension.

A format module in this package registers itself when imported:

    from falcor.scene.importers import register_importer
    register_importer(["gltf", "glb"], import_gltf)   # fn(path, builder, dict)

`fn` receives the resolved path, the `SceneBuilder` to fill through its public API, and the
str -> str dict given to `importScene`. It raises `ImporterError` (see `error`) on failure.
Every public module of this package is imported when the package is, so a new format needs no
other registration; modules named with a leading underscore are helpers, imported by the formats.
Format modules import scene types from `falcor.scene.<module>` (they load while the top-level
`falcor` package is still initializing).
"""
from __future__ import annotations

import importlib
import os
import pkgutil

from ... import falcor_ext as _ext

_importers: dict[str, object] = {}


def register_importer(extensions: list, fn):
    """Makes `fn(path, builder, dict)` the importer of each extension (case-insensitive, with or
    without the leading dot). A later registration of the same extension replaces the earlier."""
    if isinstance(extensions, str):
        extensions = [extensions]
    for ext in extensions:
        _importers[str(ext).lower().lstrip(".")] = fn


def find_importer(extension: str):
    """The importer registered for `extension`, or None."""
    return _importers.get(str(extension).lower().lstrip("."))


def supported_extensions() -> list:
    return sorted(_importers)


def error(path, message: str) -> Exception:
    """A `falcor.ImporterError` naming the file (its `path` attribute holds the path)."""
    path = os.fspath(path) if path else ""
    e = _ext.ImporterError(f"{path}: {message}" if path else message)
    setattr(e, "path", path)  # an attribute Python exceptions take; the stub's class lacks it
    return e


def _load_format_modules():
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue  # Helpers of the formats (loaded by them when they are used), not formats.
        try:
            importlib.import_module(f"{__name__}.{info.name}")
        except Exception as e:  # a format with missing dependencies must not break `import falcor`
            _ext.Logger.log(_ext.Logger.Level.Warning, f"Scene importer '{info.name}' is unavailable: {e}")


_load_format_modules()
