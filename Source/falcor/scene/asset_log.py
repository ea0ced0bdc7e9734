"""Which files a scene import reads: the inputs the scene cache (falcor.scene.cache) and batch
fingerprints hash.

Every file opened for reading while `recording_assets()` runs is recorded, by any route: Python's
`open`, `pathlib`, numpy, Pillow and other libraries raise the `open` audit event, which one
process-wide audit hook sees; C++ reads of asset files (images, measured BRDFs) raise the same
event (AssetResolver::reportRead); importers also report the files they resolve to
`record_asset`; scripts run with `script_builtins()` record the modules they import. Recording is
per thread, so imports running side by side on several threads each get their own files. Files
of the interpreter, its libraries and the falcor package are not recorded: the engine build
covers them (cache.build_identity); nor are the files of the engine's caches
(register_cache_folder).
"""
from __future__ import annotations

import builtins
import contextlib
import importlib.util
import os
import sys
import threading
import types

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
_thread = threading.local()  # .recorders: the sets of the recordings running on this thread


def _not_inputs() -> tuple:
    """Folders whose files are the environment, not inputs of a scene."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folders = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, package, os.path.realpath(package)}
    prefixes = {os.path.join(os.path.abspath(f), "") for f in folders}
    return tuple(prefixes - {os.path.join(os.path.abspath(os.sep), "")}) + ("/proc/", "/sys/", "/dev/")


_NOT_INPUTS = _not_inputs()
_cache_folders: list = []  # functions naming the folders of the engine's caches (see register_cache_folder)


def register_cache_folder(folder) -> None:
    """Files in the folder `folder()` names (asked at each record: it may follow the environment)
    are a cache's, derived from inputs: reading them is not reading an input."""
    _cache_folders.append(folder)


def record_asset(path) -> None:
    """Notes that the scene being imported on this thread read the file at `path` (no-op outside
    a recording)."""
    recorders = getattr(_thread, "recorders", None)
    if not recorders or path is None:
        return
    absolute = os.path.abspath(os.fsdecode(path))
    if absolute.endswith(".pyc"):  # a module's compiled code: its source is the input
        with contextlib.suppress(ValueError):
            absolute = importlib.util.source_from_cache(absolute)
    if absolute.startswith(_NOT_INPUTS + tuple(os.path.join(os.path.abspath(f()), "") for f in _cache_folders)):
        return
    for files in recorders:
        files.add(absolute)


def script_builtins() -> dict:
    """Builtins for a script (a pyscene, a batch graph) whose imports are inputs too: the source
    of every module it imports is recorded, even one imported earlier, which opens no file now."""
    return {**vars(builtins), "__import__": _recording_import}


def _recording_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = builtins.__import__(name, globals, locals, fromlist, level)
    if getattr(_thread, "recorders", None):
        _record_modules([module] + [getattr(module, n, None) for n in fromlist or ()])
    return module


def _record_modules(values: list) -> None:
    """Records the source of the modules among `values` (or homes of classes and functions among
    them), and of the modules those use in turn; built-in ones and the environment's are skipped."""
    pending, seen = _modules_of(values), set()
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        source = getattr(module, "__file__", None)
        if source and not os.path.abspath(source).startswith(_NOT_INPUTS):
            record_asset(source)
            pending += _modules_of(list(vars(module).values()))


def _modules_of(values: list) -> list:
    modules = []
    for value in values:
        if isinstance(value, (type, types.FunctionType)):
            value = sys.modules.get(value.__module__)
        if isinstance(value, types.ModuleType):
            modules.append(value)
    return modules


@contextlib.contextmanager
def recording_assets():
    """Collects the files this thread reads (and is told about) while the block runs."""
    files: set = set()
    recorders = _thread.__dict__.setdefault("recorders", [])
    recorders.append(files)
    try:
        yield files
    finally:
        recorders.remove(files)


@contextlib.contextmanager
def not_recording():
    """Files this thread reads while the block runs are the engine's own scratch files (a helper
    process's results), not inputs of the scene: no recording sees them."""
    saved = _thread.__dict__.get("recorders")
    _thread.recorders = []
    try:
        yield
    finally:
        _thread.recorders = saved if saved is not None else []


def _is_read(mode, flags) -> bool:
    if isinstance(mode, str):
        return not any(c in mode for c in "wax+")
    return isinstance(flags, int) and not flags & _WRITE_FLAGS  # os.open: no mode, only flags


def _audit(event: str, args: tuple) -> None:
    """The audit hook: must never raise (the open it audits would fail)."""
    if event == "open" and len(args) == 3 and getattr(_thread, "recorders", None):
        path, mode, flags = args
        if isinstance(path, (str, bytes, os.PathLike)) and _is_read(mode, flags):
            with contextlib.suppress(Exception):
                record_asset(path)


sys.addaudithook(_audit)
