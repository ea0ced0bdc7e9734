"""The `.pyscene` importer: a Python script that builds a scene through the global `sceneBuilder`.

Each script runs in a fresh context (`from falcor import *` plus `sceneBuilder`), with its folder
searched first for assets while it runs. A first line like `# scene.fbx` (the legacy format) is
rejected, and so is a script importing itself (directly or through others). Any error inside the
script becomes an `ImporterError` naming the file and line.
"""
from __future__ import annotations

import contextlib
import os
import re
import traceback
from pathlib import Path

from .. import falcor_ext as _ext
from .asset_log import recording_open
from .importers import error, register_importer

_LEGACY_HEADER = re.compile(r"#\s+[\w-]+\.\w{1,10}", re.ASCII)
_importing: set = set()  # absolute paths of the pyscenes being executed (recursion guard)
_builders: list = []     # stack of the builders of running pyscenes


def active_scene_builder():
    """The SceneBuilder of the pyscene being executed, or None."""
    return _builders[-1] if _builders else None


def import_pyscene(path, builder, dict_=None) -> None:
    path = Path(os.fspath(path)).resolve()
    if path in _importing:
        raise error(path, "Scene is imported recursively.")
    try:
        script = path.read_text()
    except OSError as e:
        raise error(path, f"Can't read the file: {e}") from None
    _run(script, path, builder)


def import_pyscene_from_string(script: str, builder) -> None:
    _run(script, None, builder)


def _has_legacy_header(script: str) -> bool:
    end = next((i for i, c in enumerate(script) if c in "\r\n"), None)
    return end is not None and _LEGACY_HEADER.fullmatch(script[:end]) is not None


@contextlib.contextmanager
def _scoped_import(builder, path):
    resolver = _ext.AssetResolver.default_resolver
    saved = list(resolver.get_search_paths())
    if path is not None:
        _importing.add(path)
        resolver.add_search_path(str(path.parent), _ext.SearchPathPriority.First)
    _builders.append(builder)
    try:
        yield
    finally:
        _builders.pop()
        if path is not None:
            _importing.discard(path)
            resolver.set_search_paths(saved)


def _run(script: str, path, builder) -> None:
    if _has_legacy_header(script):
        raise error(path, "Python scene is using old header comment syntax. Use the new 'sceneBuilder' object instead.")
    filename = str(path) if path is not None else "<pyscene>"
    with _scoped_import(builder, path):
        context = {"__builtins__": __builtins__, "__name__": "__main__", "__file__": filename}
        exec("from falcor import *", context)
        context["sceneBuilder"] = builder
        context["open"] = recording_open
        try:
            exec(compile(script, filename, "exec"), context)
        except _ext.ImporterError as e:
            nested = getattr(e, "path", None)  # set by importers.error()
            if nested and nested != filename:  # a nested import failed: report where it was called
                raise error(path, f"line {_script_line(e, filename)}: {e}") from e
            raise
        except SyntaxError as e:
            raise error(path, f"line {e.lineno}: Failed to run python scene script: SyntaxError: {e.msg}") from e
        except Exception as e:
            raise error(path, f"line {_script_line(e, filename)}: Failed to run python scene script: "
                              f"{type(e).__name__}: {e}") from e


def _script_line(e: BaseException, filename: str):
    lines = [f.lineno for f in traceback.extract_tb(e.__traceback__) if f.filename == filename]
    return lines[-1] if lines else "?"


register_importer(["pyscene"], import_pyscene)
