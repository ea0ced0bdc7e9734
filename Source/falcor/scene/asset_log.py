"""Which files a scene import reads: the inputs the scene cache (falcor.scene.cache) hashes.
Importers, texture loads and pyscene scripts report each file they read to `record_asset`."""
from __future__ import annotations

import contextlib
import os

_recorders: list[set] = []


def record_asset(path) -> None:
    """Notes that the scene being imported read the file at `path` (no-op outside a cached load)."""
    if _recorders and path is not None:
        absolute = os.path.abspath(os.fspath(path))
        for files in _recorders:
            files.add(absolute)


@contextlib.contextmanager
def recording_assets():
    """Collects the files `record_asset` is told about while the block runs."""
    files: set = set()
    _recorders.append(files)
    try:
        yield files
    finally:
        _recorders[:] = [r for r in _recorders if r is not files]


def recording_open(file, mode="r", *args, **kwargs):
    """`open` for pyscene scripts: files they read are inputs of the scene too."""
    if isinstance(file, (str, bytes, os.PathLike)) and not any(c in mode for c in "wax+"):
        record_asset(os.fsdecode(file))
    return open(file, mode, *args, **kwargs)


