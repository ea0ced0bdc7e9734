"""Slang functions called on numpy arrays with broadcasting (falcor.compute.load_module)."""
import numpy as np
import pytest

import falcor
from falcor.compute import load_module

MODULE = """
import Utils.Math.HashUtils;
float3 shade(float3 n, float3 l, float k) { return max(dot(n, l), 0) * k * float3(1, 0.5, 0.25); }
float3 transform(float3x3 m, float3 v) { return mul(m, v); }
uint hash(uint x) { return jenkinsHash(x); }
int clampAdd(int a, int b) { return clamp(a + b, -10, 10); }
"""


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "functions.slang"
    path.write_text(MODULE)
    return load_module(path)


def test_arguments_broadcast_like_numpy(module):
    rng = np.random.default_rng(4)
    n, l = rng.random((4, 1, 3), np.float32), rng.random((6, 3), np.float32)
    out = module.shade(n, l, 2.0)
    expected = np.maximum((n * l).sum(-1, keepdims=True), 0) * 2 * np.array([1, 0.5, 0.25], np.float32)
    assert out.shape == (4, 6, 3) and out.dtype == np.float32
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_matrices_integers_and_the_shader_library(module):
    m = np.arange(9, dtype=np.float32).reshape(3, 3)
    v = np.eye(3, dtype=np.float32)
    np.testing.assert_array_equal(module.transform(m, v), (m @ v.T).T)   # row-major: mul(m, v) = m v
    assert module.clampAdd(np.array([1, 8, -20]), 3).tolist() == [4, 10, -10]
    from test_compute_pass import jenkins_hash
    x = np.arange(1000, dtype=np.uint32)
    np.testing.assert_array_equal(module.hash(x), jenkins_hash(x))


def test_call_errors_name_the_function_and_argument(module):
    with pytest.raises(TypeError, match=r"shade\(n, l, k\) takes 3 arguments, got 2"):
        module.shade(np.zeros(3), np.zeros(3))
    with pytest.raises(falcor.RuntimeError, match="argument 'n' .*last axes are \\(3,\\); got shape \\(4, 2\\)"):
        module.shade(np.zeros((4, 2)), np.zeros(3), 1.0)
    with pytest.raises(falcor.RuntimeError, match="do not broadcast"):
        module.shade(np.zeros((4, 3)), np.zeros((5, 3)), 1.0)
    with pytest.raises(falcor.RuntimeError, match="no function 'missing'"):
        module.missing(1)
    assert module.shade(np.zeros((0, 3)), np.zeros(3), 1.0).shape == (0, 3)


def test_results_as_torch_tensors(module):
    torch = pytest.importorskip("torch", reason="PyTorch interop is optional (pip install torch)")
    out = module.shade(torch.ones(2, 3), np.array([0, 0, 1], np.float32), 1.0, _result="torch")
    assert isinstance(out, torch.Tensor) and out.tolist() == [[1.0, 0.5, 0.25]] * 2


def test_signatures_follow_edits_of_included_files(tmp_path, monkeypatch):
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "value.slangh").write_text("typedef float Value;\n")
    path = tmp_path / "twice.slang"
    path.write_text('#include "value.slangh"\nValue twice(Value x) { return x * 2; }\n')
    assert load_module(path).twice(np.float32(1.5)) == 3.0
    # A new module object looks the signature up again, as a new process does: from the disk cache,
    # which must notice that an included file changed.
    (tmp_path / "value.slangh").write_text("typedef float2 Value;\n")
    assert load_module(path).twice(np.ones((4, 2), np.float32)).tolist() == [[2.0, 2.0]] * 4


def test_damaged_or_forged_signature_files_are_looked_up_again(tmp_path, monkeypatch):
    monkeypatch.setenv("FALCOR_KERNEL_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "functions.slang"
    path.write_text(MODULE)
    assert load_module(path).clampAdd(1, 2) == 3
    [signature] = (tmp_path / "cache" / "signatures").iterdir()
    text = signature.read_text()
    signature.write_text(text.replace('"int32"', '"int33"', 1))              # damaged: checksum
    assert load_module(path).clampAdd(1, 2) == 3
    from falcor.compute import build
    entry = build.decode_checked(signature.read_bytes())
    entry["signature"]["params"][0]["type"]["shape"] = ["1]; evil(); //"]     # forged: fields are checked
    signature.write_bytes(build.encode_checked(entry))
    assert load_module(path).clampAdd(1, 2) == 3
