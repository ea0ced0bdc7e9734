"""Running trimesh's file loaders (OBJ, PLY) with Falcor's error behaviour: a missing or unreadable asset
raises falcor.ImporterError naming it; a missing file it references (MTL, texture) is a warning."""
from __future__ import annotations

import re
from pathlib import Path

import trimesh

from . import error
from ..asset_log import record_asset
from ._imported import require_file, warn


class _RecordingResolver(trimesh.resolvers.FilePathResolver):
    """Resolves names relative to the asset's folder (also above it, as Falcor does) and remembers them."""

    def __init__(self, path: Path):
        super().__init__(str(path), allow_anywhere=True)
        self.requested: list[str] = []
        self.missing: list[str] = []

    def get(self, name: str):
        self.requested.append(name)
        try:
            data = super().get(name)
            record_asset(Path(self.parent) / name)
        except (OSError, ValueError):
            self.missing.append(name)
            raise
        return _grey_colours_as_triples(data) if name.lower().endswith(".mtl") else data


# An MTL colour may be one value meaning grey ("Kd 0.8"); trimesh rejects the whole library for it, so such
# lines are handed to it as triples, which is how Assimp reads them.
_GREY_COLOUR = re.compile(rb"^([ \t]*K[ads][ \t]+)([^ \t\r\n]+)([ \t]*\r?)$", re.MULTILINE)


def _grey_colours_as_triples(mtl: bytes) -> bytes:
    return _GREY_COLOUR.sub(rb"\1\2 \2 \2\3", mtl)


def read_with_trimesh(path, loader, what: str, **options):
    """Run a trimesh exchange loader (e.g. trimesh.exchange.obj.load_obj) on a file.

    Returns (the loader's result, the resolver, the file's absolute path)."""
    path = require_file(Path(path), what)
    resolver = _RecordingResolver(path)
    try:
        with open(path, "rb") as file:
            loaded = loader(file, resolver=resolver, **options)
    except Exception as e:  # whatever trimesh's parser rejects
        raise error(path, f"not a valid {what} ({type(e).__name__}: {e})") from e
    for name in resolver.missing:
        warn(f"'{path}' references '{name}', which can't be found (searched: '{resolver.parent}').")
    return loaded, resolver, path
