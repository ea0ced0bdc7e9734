"""Loading a scene file (or pyscene text) into a `Scene`."""
from __future__ import annotations

import os
import time

from .. import falcor_ext as _ext
from .scene_builder import SceneBuilder, SceneBuilderFlags


def load_scene(path, build_flags=SceneBuilderFlags.Default, settings=None):
    """Imports `path` (resolved through the asset resolver: as given, then the search paths) with
    the importer of its extension and builds the scene. Raises `falcor.ImporterError` naming the
    file (and, for pyscenes, the line) on failure."""
    start = time.perf_counter()
    builder = SceneBuilder(build_flags, settings)
    builder.importScene(path)
    scene = builder.getScene()
    _ext.Logger.log(_ext.Logger.Level.Info, f"Loading scene (total) took {time.perf_counter() - start:.3f} s ('{os.fspath(path)}').")
    return scene


def load_scene_from_string(text: str, extension: str = "pyscene", build_flags=SceneBuilderFlags.Default, settings=None):
    builder = SceneBuilder(build_flags, settings)
    builder.importSceneFromString(text, extension)
    return builder.getScene()
