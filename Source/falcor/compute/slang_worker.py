"""Runs the Slang compiler in a separate process: `python slang_worker.py` reads a request
(JSON on stdin) and writes Slang's C++, reflection, dependencies and diagnostics, or a function's
signature, as JSON on stdout.

A separate process keeps the compiler's own memory and faults out of the user's process (and out
of sanitizer runs); it uses the standard library only, so it starts without the engine.
"""
import contextlib
import ctypes
import json
import sys


class _Compiler:
    """The Slang library's C API and a session."""

    def __init__(self, library: str):
        lib = ctypes.CDLL(library)
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
            ("spReflection_FindFunctionByName", p, [p, s]),
            ("spReflectionFunction_GetParameterCount", ctypes.c_uint, [p]),
            ("spReflectionFunction_GetParameter", p, [p, ctypes.c_uint]),
            ("spReflectionFunction_GetResultType", p, [p]),
            ("spReflectionVariable_GetName", s, [p]),
            ("spReflectionVariable_GetType", p, [p]),
            ("spReflectionType_GetKind", ctypes.c_uint, [p]),
            ("spReflectionType_GetName", s, [p]),
            ("spReflectionType_GetElementCount", ctypes.c_size_t, [p]),
            ("spReflectionType_GetScalarType", ctypes.c_uint, [p]),
            ("spReflectionType_GetRowCount", ctypes.c_uint, [p]),
            ("spReflectionType_GetColumnCount", ctypes.c_uint, [p]),
        ]:
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes
        self.lib = lib
        self.session = lib.spCreateSession(None)

    @contextlib.contextmanager
    def _request(self, file: str, defines: dict, include_dirs: list, extra: list):
        """Compiles `file` for the CPU; yields (request, failed, diagnostics) and frees the request."""
        args = [file, "-target", "cpp", "-matrix-layout-row-major", "-DFALCOR_CPU=1", *extra]
        for folder in include_dirs:
            args += ["-I", folder]
        for name, value in defines.items():
            args += ["-D", f"{name}={value}" if value != "" else name]
        lib = self.lib
        request = lib.spCreateCompileRequest(self.session)
        try:
            argv = (ctypes.c_char_p * len(args))(*[a.encode() for a in args])
            failed = lib.spProcessCommandLineArguments(request, argv, len(args)) < 0 or lib.spCompile(request) < 0
            yield request, failed, (lib.spGetDiagnosticOutput(request) or b"").decode(errors="replace")
        finally:
            lib.spDestroyCompileRequest(request)

    def compile(self, file: str, entry: str, defines: dict, include_dirs: list) -> dict:
        lib = self.lib
        with self._request(file, defines, include_dirs, ["-stage", "compute", "-entry", entry]) as (request, failed,
                                                                                                  diagnostics):
            source = None if failed else lib.spGetEntryPointSource(request, 0)
            if not source:
                return {"ok": False, "diagnostics": diagnostics or "Slang produced no C++ for the entry point"}
            return {"ok": True, "cpp_source": source.decode(), "reflection": self._reflection_json(request),
                    "dependencies": self._dependencies(request), "diagnostics": diagnostics}

    def _dependencies(self, request) -> list:
        """Every file Slang read: the shader, its includes and imported modules."""
        lib = self.lib
        return [lib.spGetDependencyFilePath(request, k).decode() for k in range(lib.spGetDependencyFileCount(request))]

    def signature(self, file: str, function: str, defines: dict, include_dirs: list) -> dict:
        """Parameter and result types of a function in a module compiled without entry points."""
        lib = self.lib
        with self._request(file, defines, include_dirs, []) as (request, failed, diagnostics):
            if failed:
                return {"ok": False, "diagnostics": diagnostics}
            fn = lib.spReflection_FindFunctionByName(lib.spGetReflection(request), function.encode())
            if not fn:
                return {"ok": False, "missing": True, "diagnostics": f"no function '{function}' in {file}"}
            params = []
            for k in range(lib.spReflectionFunction_GetParameterCount(fn)):
                var = lib.spReflectionFunction_GetParameter(fn, k)
                params.append({"name": lib.spReflectionVariable_GetName(var).decode(),
                               "type": self._value_type(lib.spReflectionVariable_GetType(var))})
            return {"ok": True, "params": params, "result": self._value_type(lib.spReflectionFunction_GetResultType(fn)),
                    "dependencies": self._dependencies(request)}

    def _value_type(self, t) -> dict:
        # slang.h: SlangTypeKind SCALAR = 5, VECTOR = 4, MATRIX = 3; SlangScalarType values below.
        lib = self.lib
        kind = {5: "scalar", 4: "vector", 3: "matrix"}.get(lib.spReflectionType_GetKind(t), "other")
        scalar = {1: "void", 2: "bool", 3: "int32", 4: "uint32", 5: "int64", 6: "uint64", 7: "float16", 8: "float32",
                  9: "float64", 10: "int8", 11: "uint8", 12: "int16", 13: "uint16"}.get(lib.spReflectionType_GetScalarType(t))
        shape = []
        if kind == "vector":
            shape = [lib.spReflectionType_GetElementCount(t)]
        elif kind == "matrix":
            shape = [lib.spReflectionType_GetRowCount(t), lib.spReflectionType_GetColumnCount(t)]
        name = (lib.spReflectionType_GetName(t) or b"").decode()
        return {"kind": kind, "scalar": scalar, "shape": shape, "name": name}

    def _reflection_json(self, request) -> dict:
        blob = ctypes.c_void_p()
        if self.lib.spReflection_ToJson(self.lib.spGetReflection(request), request, ctypes.byref(blob)) < 0:
            raise RuntimeError("Slang could not describe the shader's parameters (reflection failed)")
        # ISlangBlob is a COM object: vtable slots 3 and 4 are getBufferPointer and getBufferSize,
        # slot 2 is release.
        vtable = ctypes.cast(ctypes.cast(blob, ctypes.POINTER(ctypes.c_void_p))[0], ctypes.POINTER(ctypes.c_void_p))
        method = lambda slot, restype: ctypes.CFUNCTYPE(restype, ctypes.c_void_p)(vtable[slot])  # noqa: E731
        text = ctypes.string_at(method(3, ctypes.c_void_p)(blob), method(4, ctypes.c_size_t)(blob))
        method(2, ctypes.c_uint32)(blob)
        return json.loads(text)


def main():
    request = json.load(sys.stdin)
    compiler = _Compiler(request["library"])
    if "function" in request:
        result = compiler.signature(request["file"], request["function"], request["defines"], request["include_dirs"])
    else:
        result = compiler.compile(request["file"], request["entry"], request["defines"], request["include_dirs"])
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
