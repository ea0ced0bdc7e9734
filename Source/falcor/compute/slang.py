"""The Slang compiler from the `slangpy` wheel (the `slang` extra).

Slang translates one compute entry point to C++ (its `cpp` target) and reports the CPU layout of
its parameters as JSON reflection; `build.py` compiles that C++ into a kernel library. The
compiler runs in a separate process (slang_worker.py). Nothing is downloaded: the compiler is
the shared library that `pip install "falcor-cpu[slang]"` installed.
"""
from __future__ import annotations

import functools
import glob
import importlib.metadata
import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .. import falcor_ext as _ext
from ..interpreter import python_executable

SHADER_LIBRARY = Path(os.path.abspath(__file__)).parents[1] / "shaders"
"""Falcor's shader-library modules written for this engine (`import Utils.Math.HashUtils;`)."""

_WORKER = Path(os.path.abspath(__file__)).parent / "slang_worker.py"
_MISSING_SLANG = ('compiling Slang shaders needs the Slang compiler from the `slang` extra: '
                  'pip install "falcor-cpu[slang]" (it installs the slangpy wheel, which carries it)')


class SlangCompileError(_ext.RuntimeError):
    """A shader that does not compile. `file`, `line` and `message` locate the first error;
    `diagnostics` is Slang's whole report."""

    def __init__(self, file: str, line: int, message: str, diagnostics: str) -> None:
        self.file, self.line, self.message, self.diagnostics = file, line, message, diagnostics
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: error: {message}\n{diagnostics.rstrip()}")


@dataclass
class SlangOutput:
    """One entry point translated to C++."""
    cpp_source: str
    reflection: dict
    dependencies: list[str] = field(default_factory=list)
    warnings: str = ""


def find_library() -> Path:
    """The Slang compiler library inside the installed slangpy package."""
    spec = importlib.util.find_spec("slangpy")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(_MISSING_SLANG)
    for folder in spec.submodule_search_locations:
        found = sorted(glob.glob(os.path.join(folder, "libslang-compiler.so*")) +
                       glob.glob(os.path.join(folder, "libslang.so*")))
        if found:
            return Path(found[0])
    raise ImportError(f"{_MISSING_SLANG}; the installed slangpy has no libslang-compiler library")


@functools.cache
def version() -> str:
    """Identifies the compiler for the kernel cache: the slangpy release and its library file."""
    library = find_library()
    return f"slangpy {importlib.metadata.version('slangpy')} {library.name} {library.stat().st_size}"


def _worker_python() -> str:
    """A Python interpreter for the worker (it needs only the standard library)."""
    found = python_executable()
    if found is None:
        raise _ext.RuntimeError("compiling Slang shaders needs a python3 interpreter for the compiler's worker process; "
                                f"none found (looked at {sys.executable}, {sys.prefix}/bin/python3 and PATH)")
    return found


def _run_worker(file: Path, what: str, **request) -> dict:
    request.update({"library": str(find_library()), "file": str(file)})
    request["include_dirs"] = [str(d) for d in request["include_dirs"]]
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    r = subprocess.run([_worker_python(), str(_WORKER)], input=json.dumps(request), capture_output=True, text=True,
                       env=env)
    if r.returncode != 0:
        raise SlangCompileError(str(file), 0, f"the Slang compiler failed (exit code {r.returncode})", r.stderr[-4000:])
    result = json.loads(r.stdout)
    if not result["ok"]:
        if result.get("missing"):
            raise _ext.RuntimeError(result["diagnostics"])
        raise _compile_error(file, what, result["diagnostics"])
    return result


def compile_entry_point(file: Path, entry: str, defines: dict[str, str], include_dirs: list[Path]) -> SlangOutput:
    """Translates `entry` of `file` to C++; raises SlangCompileError naming the file and line."""
    result = _run_worker(file, entry, entry=entry, defines=defines, include_dirs=include_dirs)
    return SlangOutput(result["cpp_source"], result["reflection"], result["dependencies"], result["diagnostics"])


def function_signature(file: Path, function: str, defines: dict[str, str], include_dirs: list[Path]) -> dict:
    """{"params": [{"name", "type"}], "result": type, "dependencies": [files Slang read]} of a
    function; a type is {"kind": scalar | vector | matrix | other, "scalar", "shape", "name"}."""
    return _run_worker(file, function, function=function, defines=defines, include_dirs=include_dirs)


# Slang reports `error[E30015]: message` then `--> file:line:col`; older releases `file(line): error 123: message`.
_RUST_STYLE = re.compile(r"^error(?:\[\w+\])?: (?P<msg>.*)\n\s*--> (?P<file>.*?):(?P<line>\d+)(?::\d+)?", re.M)
_CLASSIC_STYLE = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): (?:fatal )?error \d*: ?(?P<msg>.*)$", re.M)


def _compile_error(file: Path, entry: str, diagnostics: str) -> SlangCompileError:
    m = _RUST_STYLE.search(diagnostics) or _CLASSIC_STYLE.search(diagnostics)
    if m:
        return SlangCompileError(m.group("file"), int(m.group("line")), m.group("msg").strip(), diagnostics)
    first = next((line for line in diagnostics.splitlines() if line.strip()), f"entry point '{entry}' did not compile")
    return SlangCompileError(str(file), 0, first.strip(), diagnostics)
