"""falcor's vector/matrix value types: Falcor's behaviour plus the documented extensions."""
import pickle

import numpy as np
import pytest

import falcor
from falcor import bool3, float2, float3, float4, float4x4, float16_t3, int2, int3, uint2, uint3


def test_constructors_and_fields():
    assert list(float3()) == [0, 0, 0]
    assert list(float3(2)) == [2, 2, 2]
    assert list(float4(c=3)) == [3, 3, 3, 3]
    assert list(float3(1, 2, 3)) == [1, 2, 3]
    assert list(float2(x=1, y=2)) == [1, 2]
    assert list(float3([4, 5, 6])) == [4, 5, 6]
    v = float3(1, 2, 3)
    v.z = 9
    assert (v.x, v.y, v.z) == (1, 2, 9)
    with pytest.raises(AttributeError):
        v.w
    with pytest.raises(TypeError):
        float3([1, 2])


def test_storage_precision():
    assert float3(0.1).x == np.float32(0.1)
    assert float16_t3(0.1).x == float(np.float16(0.1))
    assert uint2(-1, 0).x == 2**32 - 1
    assert int2(2**31, 0).x == -(2**31)


def test_repr_and_str_match_falcor():
    assert repr(float3(1, 2, 3)) == "float3(1.000000, 2.000000, 3.000000)"
    assert str(float3(1, 2, 3)) == "[1.000000, 2.000000, 3.000000]"
    assert repr(int2(1, -2)) == "int2(1, -2)"
    assert repr(bool3(True, False, True)) == "bool3(1, 0, 1)"


def test_arithmetic():
    a, b = float3(1, 2, 3), float3(4, 5, 6)
    assert a + b == float3(5, 7, 9)
    assert b - a == float3(3, 3, 3)
    assert a * b == float3(4, 10, 18)
    assert b / a == float3(4, 2.5, 2)
    assert a * 2 == float3(2, 4, 6)
    assert int3(7, -7, 7) / 2 == int3(3, -3, 3)  # C++ integer division truncates
    c = float3(1, 1, 1)
    c += a
    assert c == float3(2, 3, 4)
    with pytest.raises(TypeError):
        bool3() + bool3()


def test_extensions_reflected_ops_negation_indexing_numpy():
    a = float3(1, 2, 3)
    assert 2 * a == float3(2, 4, 6)
    assert -a == float3(-1, -2, -3)
    assert a[1] == 2 and len(a) == 3
    np.testing.assert_array_equal(np.asarray(a), np.array([1, 2, 3], np.float32))
    assert np.asarray(uint3(1, 2, 3)).dtype == np.uint32
    assert float3(1, 2, 3) != float3(1, 2, 4)
    assert float3(1, 2, 3) != int3(1, 2, 3)


def test_pickling():
    for v in (float3(1, 2, 3), int2(-1, 2), uint2(3, 4), bool3(True, False, True)):
        assert pickle.loads(pickle.dumps(v)) == v


def test_matrices():
    m = float4x4()
    np.testing.assert_array_equal(np.asarray(m), np.eye(4, dtype=np.float32))
    assert m @ m == m
    with pytest.raises(TypeError):
        float4x4([[1, 2], [3, 4]])


def test_vectors_as_pass_properties():
    p = falcor.createPass("BlitPass", {"filter": "Point"})
    assert p.properties == {"filter": "Point"}
    g = falcor.RenderGraph("g")
    # int/uint/float vectors become arrays; bool vectors are rejected as in Falcor.
    with pytest.raises(falcor.RuntimeError, match="pythonToJson not implemented.*bool3"):
        g.create_pass("B", "BlitPass", {"x": bool3()})


def test_data_type_attributes():
    assert falcor.float32 == falcor.DataType.float32
    assert falcor.uint8 != falcor.int8
