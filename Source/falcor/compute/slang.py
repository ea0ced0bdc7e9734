"""The Slang compiler, driven through its C API from the `slangpy` wheel (the `slang` extra).

Slang translates one compute entry point to C++ (its `cpp` target) and reports the CPU layout of
its parameters as JSON reflection; `build.py` compiles that C++ into a kernel library. Nothing is
downloaded: the compiler is the shared library that `pip install "falcor-cpu[slang]"` installed.
"""
from __future__ import annotations

import ctypes
import glob
import importlib.util
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path

from .. import falcor_ext as _ext

SHADER_LIBRARY = Path(__file__).resolve().parents[1] / "shaders"
"""Falcor's shader-library modules written for this engine (`import Utils.Math.HashUtils;`)."""

_MISSING_SLANG = ('compiling Slang shaders needs the Slang compiler from the `slang` extra: '
                  'pip install "falcor-cpu[slang]" (it installs the slangpy wheel, which carries it)')

# slang.h: SLANG_SOURCE_LANGUAGE_SLANG = 1; a SlangResult is negative on failure.
_SLANG_SOURCE_LANGUAGE_SLANG = 1


class SlangCompileError(_ext.RuntimeError):
    """A shader that does not compile. `file`, `line` and `message` locate the first error;
    `diagnostics` is Slang's whole report."""

    def __init__(self, file: str, line: int, message: str, diagnostics: str):
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


class _Compiler:
    """The Slang library and a process-wide session (creating one takes ~0.4 s). Sessions are
    not thread-safe, so compiles are serialized."""

    def __init__(self):
        self.path = find_library()
        lib = ctypes.CDLL(str(self.path))
        p, s, i = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int
        for name, restype, argtypes in [
            ("spCreateSession", p, [s]),
            ("spCreateCompileRequest", p, [p]),
            ("spDestroyCompileRequest", None, [p]),
            ("spProcessCommandLineArguments", i, [p, ctypes.POINTER(s), i]),
            ("spCompile", i, [p]),
            ("spGetDiagnosticOutput", s, [p]),
            ("spGetEntryPointSource", s, [p, i]),
            ("spGetReflection", p, [p]),
            ("spReflection_ToJson", i, [p, p, ctypes.POINTER(p)]),
            ("spGetDependencyFileCount", i, [p]),
            ("spGetDependencyFilePath", s, [p, i]),
            ("spGetBuildTagString", s, []),
        ]:
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.lib = lib
        self.version = lib.spGetBuildTagString().decode()
        self._session = None
        self.lock = threading.Lock()

    @property
    def session(self):
        # Created on the first compile only: a cache hit needs the version, not a session.
        if self._session is None:
            self._session = self.lib.spCreateSession(None)
        return self._session

    def compile(self, file: Path, entry: str, defines: dict[str, str], include_dirs: list[Path]) -> SlangOutput:
        args = [str(file), "-target", "cpp", "-stage", "compute", "-entry", entry, "-matrix-layout-row-major",
                "-DFALCOR_CPU=1"]
        for folder in include_dirs:
            args += ["-I", str(folder)]
        for name, value in defines.items():
            args += ["-D", f"{name}={value}" if value != "" else name]
        lib = self.lib
        with self.lock:
            request = lib.spCreateCompileRequest(self.session)
            try:
                argv = (ctypes.c_char_p * len(args))(*[a.encode() for a in args])
                failed = lib.spProcessCommandLineArguments(request, argv, len(args)) < 0
                failed = failed or lib.spCompile(request) < 0
                diagnostics = (lib.spGetDiagnosticOutput(request) or b"").decode(errors="replace")
                if failed:
                    raise _compile_error(file, entry, diagnostics)
                source = lib.spGetEntryPointSource(request, 0)
                if not source:
                    raise _compile_error(file, entry, diagnostics or "Slang produced no C++ for the entry point")
                deps = [lib.spGetDependencyFilePath(request, k).decode()
                        for k in range(lib.spGetDependencyFileCount(request))]
                reflection = self._reflection_json(request)
            finally:
                lib.spDestroyCompileRequest(request)
        return SlangOutput(source.decode(), reflection, deps, diagnostics)

    def _reflection_json(self, request) -> dict:
        blob = ctypes.c_void_p()
        if self.lib.spReflection_ToJson(self.lib.spGetReflection(request), request, ctypes.byref(blob)) < 0:
            raise _ext.RuntimeError("Slang could not describe the shader's parameters (reflection failed)")
        # ISlangBlob is a COM object: vtable slots 3 and 4 are getBufferPointer and getBufferSize,
        # slot 2 is release.
        vtable = ctypes.cast(ctypes.cast(blob, ctypes.POINTER(ctypes.c_void_p))[0], ctypes.POINTER(ctypes.c_void_p))
        method = lambda slot, restype: ctypes.CFUNCTYPE(restype, ctypes.c_void_p)(vtable[slot])  # noqa: E731
        text = ctypes.string_at(method(3, ctypes.c_void_p)(blob), method(4, ctypes.c_size_t)(blob))
        method(2, ctypes.c_uint32)(blob)
        return json.loads(text)


_compiler: _Compiler | None = None
_compiler_lock = threading.Lock()


def compiler() -> _Compiler:
    global _compiler
    with _compiler_lock:
        if _compiler is None:
            _compiler = _Compiler()
        return _compiler


# Slang reports `error[E30015]: message` then `--> file:line:col`; older releases `file(line): error 123: message`.
_RUST_STYLE = re.compile(r"^error(?:\[\w+\])?: (?P<msg>.*)\n\s*--> (?P<file>.*?):(?P<line>\d+)(?::\d+)?", re.M)
_CLASSIC_STYLE = re.compile(r"^(?P<file>.*?)\((?P<line>\d+)\): (?:fatal )?error \d*: ?(?P<msg>.*)$", re.M)


def _compile_error(file: Path, entry: str, diagnostics: str) -> SlangCompileError:
    m = _RUST_STYLE.search(diagnostics) or _CLASSIC_STYLE.search(diagnostics)
    if m:
        return SlangCompileError(m.group("file"), int(m.group("line")), m.group("msg").strip(), diagnostics)
    first = next((line for line in diagnostics.splitlines() if line.strip()), f"entry point '{entry}' did not compile")
    return SlangCompileError(str(file), 0, first.strip(), diagnostics)
