"""Integer division, remainder and shifts in kernels: a GPU's values, never a dead process.

C++ leaves x / 0, INT_MIN / -1 and over-wide shifts undefined and x86 traps (SIGFPE) on the first
two; kernels follow D3D instead (docs/compute.md): x / 0 and x % 0 have all bits set,
INT_MIN / -1 wraps to INT_MIN with remainder 0, and a shift uses the low bits of its count.
"""
import textwrap

import numpy as np
import pytest

import falcor
from falcor.compute import load_module

TYPES = {"int": np.int32, "uint": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64}


def expected(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The documented rule, element by element, on Python integers wrapped to the type."""
    info, bits = np.iinfo(a.dtype), a.dtype.itemsize * 8

    def wrap(v: int) -> int:
        v %= 2**bits
        return v - 2**bits if v > info.max else v

    def one(x: int, y: int) -> int:
        if op == "<<":
            return wrap(x << y % bits)
        if op == ">>":
            return x >> y % bits
        if y == 0:
            return wrap(-1)                                              # all bits set
        quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)   # truncated toward zero
        return wrap(quotient) if op == "/" else x - y * quotient

    return np.array([one(int(x), int(y)) for x, y in zip(a.ravel(), b.ravel())], dtype=a.dtype).reshape(a.shape)


def operands(dtype) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(dtype)
    values = sorted({0, 1, 7, info.max, info.min, info.min + 1, (-1 if info.min < 0 else info.max - 1)},
                    key=lambda v: v)
    a, b = np.meshgrid(np.array(values, dtype), np.array(values + [3], dtype), indexing="ij")
    return a.ravel(), b.ravel()


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    path = tmp_path_factory.mktemp("integers") / "integers.slang"
    functions = []
    for name in TYPES:
        for op, fn in (("/", "div"), ("%", "rem"), ("<<", "shl"), (">>", "shr")):
            functions.append(f"{name} {fn}_{name}({name} a, {name} b) {{ return a {op} b; }}")
            functions.append(f"vector<{name}, 3> {fn}3_{name}(vector<{name}, 3> a, vector<{name}, 3> b) "
                             f"{{ return a {op} b; }}")
    path.write_text("\n".join(functions) + "\n")
    return load_module(path)


@pytest.mark.parametrize("name", TYPES)
@pytest.mark.parametrize("op, fn", [("/", "div"), ("%", "rem"), ("<<", "shl"), (">>", "shr")])
def test_load_module_functions_give_the_gpu_values(module, name, op, fn):
    a, b = operands(TYPES[name])
    want = expected(op, a, b)
    np.testing.assert_array_equal(getattr(module, f"{fn}_{name}")(a, b), want)
    n = len(a) // 3 * 3
    vector = getattr(module, f"{fn}3_{name}")(a[:n].reshape(-1, 3), b[:n].reshape(-1, 3))
    np.testing.assert_array_equal(vector.ravel(), want[:n])


def test_unset_divisor_global_of_a_compute_pass(tmp_path):
    path = tmp_path / "divide.cs.slang"
    path.write_text(textwrap.dedent("""
        RWStructuredBuffer<int> out;
        uniform int divisor;           // never set: reads 0, as on a GPU
        uniform uint udivisor;
        uniform int2 vdivisor;
        [numthreads(1, 1, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            out[0] = 7 / divisor;
            out[1] = 7 % divisor;
            out[2] = int(7u / udivisor);
            int2 q = int2(3, -4) / vdivisor;
            out[3] = q.x;
            out[4] = (int2(3, -4) % vdivisor).y;
            out[5] = int(0x80000000) / (divisor - 1);   // INT_MIN / -1
            out[6] = 1 << (divisor + 33);
            int2x2 m = int2x2(1, 2, 3, 4) / int2x2(divisor, 1, 1, divisor);
            out[7] = m[0][0];
            out[8] = m[0][1];
        }
    """))
    kernel = falcor.ComputePass(file=path)
    out = falcor.Buffer(9 * 4)
    kernel.globals.out = out
    kernel.execute(1)
    assert out.to_numpy().view(np.int32).tolist() == [-1, -1, -1, -1, -1, -2**31, 2, -1, 2]
