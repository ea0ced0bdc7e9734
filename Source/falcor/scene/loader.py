"""Loading a scene file (or pyscene text) into a `Scene`."""
from __future__ import annotations

import os
import time
from pathlib import Path

from .. import falcor_ext as _ext
from ..settings import Settings
from .scene import Scene
from .scene_builder import SceneBuilder, SceneBuilderFlags


def load_scene(path: str | os.PathLike[str], build_flags: SceneBuilderFlags | int = SceneBuilderFlags.Default,
               settings: Settings | None = None) -> Scene:
    """Imports `path` (resolved through the asset resolver: as given, then the search paths) with
    the importer of its extension and builds the scene. Raises `falcor.ImporterError` naming the
    file (and, for pyscenes, the line) on failure."""
    start = time.perf_counter()
    flags = SceneBuilderFlags(int(build_flags))
    if flags & (SceneBuilderFlags.UseCache | SceneBuilderFlags.RebuildCache):
        scene = _load_through_cache(path, flags, settings)
    else:
        builder = SceneBuilder(flags, settings)
        builder.importScene(path)
        scene = builder.getScene()
    _ext.Logger.log(_ext.Logger.Level.Info, f"Loading scene (total) took {time.perf_counter() - start:.3f} s ('{os.fspath(path)}').")
    return scene


def _load_through_cache(path: str | os.PathLike[str], flags: SceneBuilderFlags, settings: Settings | None) -> Scene:
    """UseCache / RebuildCache: see falcor.scene.cache."""
    from . import cache
    from .scene import build_contents

    resolved = _ext.AssetResolver.default_resolver.resolve_path(os.fspath(path), _ext.AssetCategory.Scene)
    if str(resolved) in ("", "."):  # let the importer raise its usual error
        SceneBuilder(flags, settings).importScene(path)
    builder = SceneBuilder(flags, settings)

    def build():
        builder.importScene(path)
        return build_contents(builder)

    return cache.load_scene_cached(Path(resolved).resolve(), flags, builder.getSettings(), build)


def load_scene_from_string(text: str, extension: str = "pyscene", build_flags: SceneBuilderFlags | int = SceneBuilderFlags.Default,
                           settings: Settings | None = None) -> Scene:
    """Builds a scene from the text of a scene file (a pyscene script by default)."""
    builder = SceneBuilder(build_flags, settings)
    builder.importSceneFromString(text, extension)
    return builder.getScene()
