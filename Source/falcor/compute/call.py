"""Calling Slang functions on numpy arrays (SlangPy's call model, on the CPU).

`module = falcor.compute.load_module("shading.slang")`, then `module.shade(normals, light, 0.5)`
runs `shade` once per element of the broadcast arguments and returns the results as an array:
a parameter of type float3 takes arrays whose last axis has 3 entries, a float takes any array
(or a Python number), and the leading axes of all arguments broadcast as in numpy. The call is a
generated compute kernel (one thread per element) that goes through ComputePass, so it is compiled
once and cached on disk like any kernel.
"""
from __future__ import annotations

import hashlib
import os
import json

import numpy as np

from .. import falcor_ext as _ext
from ..buffer import Buffer
from . import build, slang
from .compute_pass import ComputePass, resolve_shader_file
from .layout import SCALAR_DTYPES

_THREADS_PER_GROUP = 64


def load_module(file: str | os.PathLike[str], defines: dict | None = None, device: object = None) -> SlangModule:
    """A Slang file whose functions can be called on arrays."""
    return SlangModule(file, defines, device)


class SlangModule:
    def __init__(self, file: str | os.PathLike[str], defines: dict | None = None, device: object = None) -> None:
        self.file = resolve_shader_file(file)
        self.defines = {str(k): str(v) for k, v in dict(defines or {}).items()}
        self.device = device
        self._functions: dict[str, SlangFunction] = {}

    def __getattr__(self, name: str) -> "SlangFunction":
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._functions:
            self._functions[name] = SlangFunction(self, name)
        return self._functions[name]


def _signature(module: SlangModule, name: str) -> dict:
    """The function's signature, cached on disk beside the kernels: valid while every file Slang
    read for it (the module, its includes and imports) has the content it had, as kernels are."""
    include_dirs = [module.file.parent, slang.SHADER_LIBRARY]
    key = hashlib.sha256(json.dumps([str(module.file), name, sorted(module.defines.items()),
                                     [str(d) for d in include_dirs], slang.version()]).encode()).hexdigest()[:32]
    path = build.entry_dir("signatures") / f"{key}.json"
    try:
        entry = build.decode_checked(build.read_cache_file(path))
        if build.dependencies_unchanged(entry["dependencies"]):
            return _checked_signature(entry["signature"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        pass  # missing, damaged or out of date: looked up again
    found = slang.function_signature(module.file, name, module.defines, include_dirs)
    sig = {"params": found["params"], "result": found["result"]}
    entry = {"signature": sig, "dependencies": build.dependency_digests(module.file, found["dependencies"])}
    try:
        build.write_atomic(path, build.encode_checked(entry))
    except OSError:
        pass  # an unwritable cache costs the next process a signature lookup
    return sig


_SHAPE_LENGTHS = {"scalar": 0, "vector": 1, "matrix": 2}


def _checked_signature(sig: dict) -> dict:
    """A signature read from the cache when it has the form function_signature gives (types become
    generated code), else ValueError."""
    types = [p["type"] for p in sig["params"]] + [sig["result"]]
    for t in types:
        shape = t["shape"]
        if not (t["kind"] in (*_SHAPE_LENGTHS, "other") and isinstance(t["name"], str)
                and (t["scalar"] is None or isinstance(t["scalar"], str)) and isinstance(shape, list)
                and len(shape) == _SHAPE_LENGTHS.get(t["kind"], len(shape))
                and all(type(n) is int and 1 <= n <= 4 for n in shape)):
            raise ValueError(f"malformed type {t!r}")
    if not all(isinstance(p["name"], str) for p in sig["params"]):
        raise ValueError("malformed parameter name")
    return {"params": sig["params"], "result": sig["result"]}


def _slang_type(t: dict) -> str:
    scalar = {"float32": "float", "float64": "double", "int32": "int", "uint32": "uint", "bool": "bool",
              "float16": "half", "int64": "int64_t", "uint64": "uint64_t"}[t["scalar"]]
    return scalar + "".join(str(n) if i == 0 else f"x{n}" for i, n in enumerate(t["shape"]))


class SlangFunction:
    def __init__(self, module: SlangModule, name: str) -> None:
        self.module, self.name = module, name
        sig = _signature(module, name)
        self.params, self.result = sig["params"], sig["result"]
        for t in [p["type"] for p in self.params] + [self.result]:
            if t["kind"] not in ("scalar", "vector", "matrix") or t["scalar"] not in SCALAR_DTYPES or \
                    t["scalar"] in ("int8", "uint8", "int16", "uint16"):
                raise _ext.RuntimeError(f"{module.file.name}: {name}: type '{t['name']}' cannot be called on arrays "
                                        "(scalars, vectors and matrices of float, double, int, uint and bool can)")
        self._kernel: ComputePass | None = None

    def _wrapper(self) -> ComputePass:
        if self._kernel is None:
            args = ", ".join(f"falcorCallArg{i}[i]" for i in range(len(self.params)))
            buffers = "".join(f"StructuredBuffer<{_slang_type(p['type'])}> falcorCallArg{i};\n"
                              for i, p in enumerate(self.params))
            text = (f'#include "{self.module.file.as_posix()}"\n{buffers}'
                    f"RWStructuredBuffer<{_slang_type(self.result)}> falcorCallResult;\nuniform uint falcorCallCount;\n"
                    f"[numthreads({_THREADS_PER_GROUP}, 1, 1)]\nvoid falcor_call(uint3 tid: SV_DispatchThreadID)\n{{\n"
                    f"    const uint i = tid.x;\n    if (i < falcorCallCount)\n"
                    f"        falcorCallResult[i] = {self.name}({args});\n}}\n")
            path = build.entry_dir("calls") / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.slang"
            if not (path.is_file() and path.read_bytes() == text.encode()):  # written, and not damaged since
                build.write_atomic(path, text.encode())
            self._kernel = ComputePass(self.module.device, file=path, cs_entry="falcor_call", defines=self.module.defines)
        return self._kernel

    def __call__(self, *args, _result: str = "numpy"):
        if len(args) != len(self.params):
            names = ", ".join(p["name"] for p in self.params)
            raise TypeError(f"{self.name}({names}) takes {len(self.params)} arguments, got {len(args)}")
        if _result not in ("numpy", "torch"):
            raise ValueError(f"_result must be 'numpy' or 'torch', not {_result!r}")
        arrays, batch_shapes = [], []
        for p, a in zip(self.params, args):
            t = p["type"]
            array = np.asarray(a.detach().cpu().numpy() if hasattr(a, "detach") else a, SCALAR_DTYPES[t["scalar"]])
            elem = tuple(t["shape"])
            if array.shape[array.ndim - len(elem):] != elem or array.ndim < len(elem):
                raise _ext.RuntimeError(f"{self.name}: argument '{p['name']}' ({t['name']}) needs arrays whose last "
                                        f"axes are {elem}; got shape {array.shape}")
            arrays.append(array)
            batch_shapes.append(array.shape[:array.ndim - len(elem)])
        try:
            batch = np.broadcast_shapes(*batch_shapes)
        except ValueError:
            raise _ext.RuntimeError(f"{self.name}: argument shapes {batch_shapes} do not broadcast") from None
        count = int(np.prod(batch, dtype=np.int64))
        result_elem = tuple(self.result["shape"])
        result_dtype = SCALAR_DTYPES[self.result["scalar"]]
        out = np.empty(batch + result_elem, result_dtype)
        if count:
            kernel = self._wrapper()
            for i, (p, array) in enumerate(zip(self.params, arrays)):
                full = np.ascontiguousarray(np.broadcast_to(array, batch + tuple(p["type"]["shape"])))
                argument = Buffer(full.nbytes)
                argument.from_numpy(full)
                setattr(kernel.globals, f"falcorCallArg{i}", argument)
            result = Buffer(out.nbytes)
            kernel.globals.falcorCallResult = result
            kernel.globals.falcorCallCount = count
            kernel.execute(count)
            out[...] = result.to_numpy().view(result_dtype).reshape(out.shape)
        if _result == "torch":
            from ..torch_interop import torch_module
            return torch_module().from_numpy(out)
        return out

