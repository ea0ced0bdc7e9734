"""The `.pyscene` importer: a Python script that builds a scene through the global `sceneBuilder`.

Each script runs in a fresh context (`from falcor import *` plus `sceneBuilder`), with its folder
searched first for assets while it runs. A first line like `# scene.fbx` (the legacy format) is
rejected, and so is a script importing itself (directly or through others). Any error inside the
script becomes an `ImporterError` naming the file and line.

The import state (the scripts being run, their folders on the asset resolver's search path)
belongs to the importing thread: pyscenes load on several threads at once, even the
same file, and neither sees nor undoes the others' state.
"""
from __future__ import annotations

import contextlib
import os
import re
import threading
import traceback
from pathlib import Path

from .. import falcor_ext as _ext
from .asset_log import script_builtins
from .importers import error, register_importer

_LEGACY_HEADER = re.compile(r"#\s+[\w-]+\.\w{1,10}", re.ASCII)


class _ImportState(threading.local):
    def __init__(self) -> None:
        self.importing: set = set()  # absolute paths of the pyscenes this thread is running (recursion guard)


_state = _ImportState()


def import_pyscene(path, builder, dict_=None) -> None:
    path = Path(os.fspath(path)).resolve()
    if path in _state.importing:
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
def _scoped_import(path):
    if path is None:
        yield
        return
    _state.importing.add(path)
    try:
        with thread_search_path(path.parent):
            yield
    finally:
        _state.importing.discard(path)


@contextlib.contextmanager
def thread_search_path(folder):
    """Searches `folder` first for assets, on this thread only, while the block runs."""
    resolver = _ext.AssetResolver.default_resolver
    resolver.push_thread_search_path(os.fspath(folder))
    try:
        yield
    finally:
        resolver.pop_thread_search_path()


def _run(script: str, path, builder) -> None:
    if _has_legacy_header(script):
        raise error(path, "Python scene is using old header comment syntax. Use the new 'sceneBuilder' object instead.")
    filename = str(path) if path is not None else "<pyscene>"
    with _scoped_import(path):
        context = {"__builtins__": script_builtins(), "__name__": "__main__", "__file__": filename}
        exec("from falcor import *", context)
        context["sceneBuilder"] = builder
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
