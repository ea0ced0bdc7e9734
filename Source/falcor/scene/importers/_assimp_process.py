"""Running the Assimp reader in a child process, so that libassimp never runs in ours.

libassimp has crashed (stack overflows, wild reads and writes) and allocated without bound on
damaged files; `_assimp_checks` refuses the cases fuzzing has found, but only a process boundary
makes "a bad file never takes the process down" hold for the ones not found yet. The child is a
bare interpreter (it loads `falcor._assimp_reader` by its path, not the `falcor` package: about
30 ms to start) under an address-space limit of the machine's memory. A crash or an exhausted
limit there becomes an `ImporterError` naming the file.

The child's result comes back as data, whoever could have written it: one JSON document in a
private temporary folder, in which every large array is a reference to a `.npy` file beside it
(read with `allow_pickle=False`, dtype checked) and every small array or byte string is inline.
"""
from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ...interpreter import python_executable
from ..asset_log import not_recording
from . import error

_DTYPES = {"float32", "float64", "uint8", "uint32", "int32", "int64", "uint64"}
_INLINE_ELEMENTS = 256  # arrays up to this size travel inside the document (node matrices, keys)
_MAX_DOCUMENT_BYTES = 1 << 30

CHILD = r'''
import base64, itertools, json, os, resource, sys
from importlib.util import module_from_spec, spec_from_file_location
import numpy as np

module_path, scene_path, roots, merge, out, limit = sys.argv[1:7]
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
if int(limit):  # lower than ours when we run under a limit already (the hard one can't be raised)
    lowest = min(v for v in (int(limit), soft, hard) if v != resource.RLIM_INFINITY)
    resource.setrlimit(resource.RLIMIT_AS, (lowest, hard))
spec = spec_from_file_location("_assimp_reader", module_path)
reader = module_from_spec(spec)
spec.loader.exec_module(reader)
files = itertools.count()


def encode(value):
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, bytes):
        if len(value) <= INLINE:
            return {"__bytes__": base64.b64encode(value).decode()}
        return dict(encode(np.frombuffer(value, np.uint8)), bytes=True)
    if isinstance(value, np.ndarray):
        if value.size <= INLINE:
            return {"__array__": value.tolist(), "dtype": value.dtype.name}
        index = next(files)
        np.save(os.path.join(out, f"{index}.npy"), value, allow_pickle=False)
        return {"__file__": index, "dtype": value.dtype.name, "shape": list(value.shape)}
    return value


try:
    result = reader.read_scene(scene_path, json.loads(roots), merge == "1")
except (RuntimeError, MemoryError, ValueError) as e:
    result = {"exception": f"{type(e).__name__}: {e}"}
with open(os.path.join(out, "result.json"), "w") as f:
    json.dump(encode(result), f)
'''.replace("INLINE", str(_INLINE_ELEMENTS))


def read_in_child(module_path: str, path: Path, roots: list[str], merge_meshes: bool) -> dict:
    """`_assimp_reader.read_scene(path, roots, merge_meshes)`, run in a child process. The files the
    child read are in the result's "files"; the scratch files read here are no scene's inputs."""
    with not_recording(), tempfile.TemporaryDirectory(prefix="falcor-assimp-") as out:
        python = python_executable()
        if python is None:
            raise error(path, "reading it needs a python3 interpreter for the Assimp reader's process; none found")
        args = [module_path, str(path), json.dumps(roots), "1" if merge_meshes else "0", out, str(_memory_limit())]
        child = subprocess.run([python, "-c", CHILD, *args], capture_output=True, text=True)
        document = Path(out) / "result.json"
        if child.returncode != 0 or not document.is_file():
            raise error(path, f"Assimp failed while reading it ({_how_it_ended(child)})")
        if document.stat().st_size > _MAX_DOCUMENT_BYTES:
            raise error(path, "Assimp's description of it is larger than 1 GiB")
        result = _decode(json.loads(document.read_text()), Path(out))
    if "exception" in result:
        raise error(path, f"Assimp failed to read it ({result['exception']})")
    return result


def _memory_limit() -> int:
    """The machine's physical memory as the child's address-space limit; none under AddressSanitizer,
    which reserves terabytes of address space for itself (it has its own allocation limit)."""
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        return 0
    return max(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"), 2 << 30)


def _how_it_ended(child: subprocess.CompletedProcess) -> str:
    if child.returncode < 0:
        try:
            name = signal.Signals(-child.returncode).name
        except ValueError:
            name = f"signal {-child.returncode}"
        return f"libassimp crashed: {name}"
    last = (child.stderr or "").strip().splitlines()[-1:] or ["no message"]
    if "MemoryError" in last[0]:
        return "it needed more memory than the reader may use"
    return f"exit status {child.returncode}: {last[0][:500]}"


def _decode(value, folder: Path):
    if isinstance(value, list):
        return [_decode(v, folder) for v in value]
    if not isinstance(value, dict):
        return value
    if "__bytes__" in value:
        return base64.b64decode(value["__bytes__"])
    if "__array__" in value:
        return np.array(value["__array__"], dtype=_dtype(value["dtype"]))
    if "__file__" in value:
        array = np.load(folder / f"{int(value['__file__'])}.npy", allow_pickle=False)
        if array.dtype != _dtype(value["dtype"]) or list(array.shape) != value["shape"]:
            raise ValueError("an array of Assimp's result does not match its description")
        return array.tobytes() if value.get("bytes") else array
    return {k: _decode(v, folder) for k, v in value.items()}


def _dtype(name: str) -> np.dtype:
    if name not in _DTYPES:
        raise ValueError(f"unexpected array type '{name}' in Assimp's result")
    return np.dtype(name)
