"""Fuzz: hostile integer parameters for kernel arithmetic, and damaged or forged kernel-cache files.

Arithmetic: divisors, dividends and shift counts drawn around 0, -1, INT_MIN, INT_MAX and the type's
width, for 32- and 64-bit, signed and unsigned, scalars and vectors, set as a ComputePass's globals:
every dispatch gives the documented GPU values (test_integer_arithmetic.expected), never SIGFPE.
Cache: a kernel entry's meta.json and library and a load_module signature file are truncated, have
bytes flipped, or are rewritten with a valid checksum around hostile fields; reading them back
must give the entry as written or nothing (then it is rebuilt), never an exception, a hang or a
library from outside the entry. `FALCOR_FUZZ_EXAMPLES` scales the number of cases (CI: 25).
"""
import json
import os
import textwrap

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import falcor
from falcor.compute import build, call, load_module
from test_integer_arithmetic import expected

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

TYPES = {"int": np.int32, "uint": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64}
OPS = ["/", "%", "<<", ">>"]


def arithmetic_kernel() -> str:
    """out[type][op] = a op b for uniform scalars and 2-vectors of every type."""
    lines, body = [], []
    for t in TYPES:
        lines += [f"uniform {t} a_{t}; uniform {t} b_{t}; uniform vector<{t}, 2> va_{t}; uniform vector<{t}, 2> vb_{t};",
                  f"RWStructuredBuffer<{t}> out_{t};"]
        for k, op in enumerate(OPS):
            body += [f"out_{t}[{3 * k}] = a_{t} {op} b_{t};",
                     f"vector<{t}, 2> v{k}_{t} = va_{t} {op} vb_{t};",
                     f"out_{t}[{3 * k + 1}] = v{k}_{t}.x; out_{t}[{3 * k + 2}] = v{k}_{t}.y;"]
    return "\n".join(lines) + "\n[numthreads(1, 1, 1)]\nvoid main(uint3 tid: SV_DispatchThreadID)\n{\n    " + \
        "\n    ".join(body) + "\n}\n"


def hostile_integers(dtype):
    info, bits = np.iinfo(dtype), np.dtype(dtype).itemsize * 8
    special = [0, 1, 2, bits - 1, bits, bits + 1, 2 * bits, info.max, info.min, info.max - 1]
    if info.min < 0:
        special += [-1, -2, info.min + 1, -bits]
    return st.one_of(st.sampled_from(special), st.integers(int(info.min), int(info.max)))


def test_hostile_integer_arithmetic(tmp_path):
    path = tmp_path / "arith.cs.slang"
    path.write_text(arithmetic_kernel())
    kernel = falcor.ComputePass(file=path)
    outputs = {t: falcor.Buffer(3 * len(OPS) * np.dtype(d).itemsize) for t, d in TYPES.items()}
    for t, buffer in outputs.items():
        setattr(kernel.globals, f"out_{t}", buffer)
    operands = st.fixed_dictionaries({t: st.lists(hostile_integers(d), min_size=6, max_size=6) for t, d in TYPES.items()})

    @FUZZ
    @given(operands)
    def run(values):
        for t, (a, b, va0, va1, vb0, vb1) in values.items():
            g = kernel.globals
            setattr(g, f"a_{t}", a), setattr(g, f"b_{t}", b)
            setattr(g, f"va_{t}", [va0, va1]), setattr(g, f"vb_{t}", [vb0, vb1])
        kernel.execute(1)
        for t, dtype in TYPES.items():
            a, b, va0, va1, vb0, vb1 = values[t]
            lhs, rhs = np.array([a, va0, va1], dtype), np.array([b, vb0, vb1], dtype)
            want = np.concatenate([expected(op, lhs, rhs) for op in OPS])
            np.testing.assert_array_equal(outputs[t].to_numpy().view(dtype), want, err_msg=f"{t}: {values[t]}")

    run()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() |
    st.sampled_from(["", "/dev/zero", "/usr/lib/x86_64-linux-gnu/libc.so.6", "../kernel.so", "system", "main_0",
                     "kernel-0123456789abcdef.so", "scalarType", "int32", "float32"]) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def damage(data: bytes, how: str, position: int, value: int) -> bytes:
    position %= max(len(data), 1)
    if how == "truncate":
        return data[:position]
    if how == "flip":
        return data[:position] + bytes([data[position] ^ (value or 1)]) + data[position + 1:]
    return data[:position] + bytes([value]) * 7 + data[position:]


def replace(path, data: bytes) -> None:
    """Writes a new file over `path`: this process has the library mapped, and changing a mapped
    file in place would fault it."""
    new = path.with_name(path.name + ".new")
    new.write_bytes(data)
    new.replace(path)


def forge(document: dict, path: list, value) -> bytes:
    """The checked value of a cache file with the field at `path` replaced, under a valid checksum."""
    target = document
    for key in path[:-1]:
        target = target[key] if isinstance(target, dict) and key in target else target
    if isinstance(target, dict):
        target[path[-1]] = value
    return build.encode_checked(document)


def test_damaged_and_forged_kernel_cache_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "k.cs.slang"
    src.write_text(textwrap.dedent("""
        RWStructuredBuffer<float> out;
        uniform float scale;
        [numthreads(4, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID) { out[tid.x] = scale * tid.x; }
    """))
    falcor.ComputePass(file=src)
    [folder] = (tmp_path / "cache").glob("????????????????????????????????")
    meta_path = folder / "meta.json"
    [library] = folder.glob("kernel-*.so")
    original_meta, original_library = meta_path.read_bytes(), library.read_bytes()
    written = build.decode_checked(original_meta)
    fields = [["library"], ["library_sha256"], ["function"], ["dependencies"], ["reflection"],
              ["reflection", "parameters"], ["reflection", "entryPoints"]]

    @FUZZ
    @given(st.sampled_from(["meta", "library", "forged"]), st.sampled_from(["truncate", "flip", "insert"]),
           st.integers(0, 2**20), st.integers(0, 255), st.sampled_from(fields), json_values)
    def load(target, how, position, value, field, forged_value):
        meta_path.write_bytes(original_meta)
        replace(library, original_library)
        if target == "meta":
            meta_path.write_bytes(damage(original_meta, how, position, value))
        elif target == "library":
            replace(library, damage(original_library, how, position, value))
        else:
            meta_path.write_bytes(forge(json.loads(json.dumps(written)), field, forged_value))
        binary = build._load_cached(folder)
        if binary is not None:   # only as written: this entry's own library, unchanged
            assert binary.library == library and binary.library.read_bytes() == original_library
            assert binary.function == written["function"]

    load()
    meta_path.write_bytes(b"{}")
    assert not falcor.ComputePass(file=src).from_cache     # rebuilt
    assert falcor.ComputePass(file=src).from_cache


def test_damaged_and_forged_signature_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "f.slang"
    path.write_text("float3 scale(float3 v, int k) { return v * k; }\n")
    module = load_module(path)
    assert module.scale(np.ones(3, np.float32), 2).tolist() == [2, 2, 2]
    [signature] = (tmp_path / "cache" / "signatures").iterdir()
    original = signature.read_bytes()
    written = build.decode_checked(original)
    fields = [["signature"], ["signature", "params"], ["signature", "result"], ["dependencies"],
              ["signature", "result", "shape"], ["signature", "result", "kind"], ["signature", "result", "scalar"]]

    @FUZZ
    @given(st.booleans(), st.sampled_from(["truncate", "flip", "insert"]), st.integers(0, 2**16), st.integers(0, 255),
           st.sampled_from(fields), json_values)
    def load(forged, how, position, value, field, forged_value):
        data = forge(json.loads(json.dumps(written)), field, forged_value) if forged else \
            damage(original, how, position, value)
        signature.write_bytes(data)
        sig = call._signature(load_module(path), "scale")    # read back, or looked up again
        assert sig == written["signature"] or call._checked_signature(sig) == sig

    load()
    signature.write_bytes(original[:10])
    assert load_module(path).scale(np.ones(3, np.float32), 3).tolist() == [3, 3, 3]
