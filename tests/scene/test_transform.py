"""Transform: Falcor's composition conventions against numpy rotation matrices."""
import math

import numpy as np
import pytest

import falcor
from falcor import CompositionOrder, Transform, float3


def rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def homogeneous(m3=None, t=(0, 0, 0)):
    m = np.eye(4)
    if m3 is not None:
        m[:3, :3] = m3
    m[:3, 3] = t
    return m


def test_defaults_and_repr():
    t = Transform()
    assert repr(t) == "Transform()"
    assert t.translation == float3(0) and t.scaling == float3(1) and t.rotationEuler == float3(0)
    assert t.order == CompositionOrder.Default == CompositionOrder.SRT
    assert isinstance(t.matrix, falcor.float4x4)
    assert np.array_equal(np.asarray(t.matrix), np.eye(4))


def test_euler_order_is_z_y_x():
    angles = (0.3, -0.7, 1.1)
    t = Transform(rotationEuler=float3(*angles))
    expected = rz(angles[2]) @ ry(angles[1]) @ rx(angles[0])
    np.testing.assert_allclose(np.asarray(t.matrix)[:3, :3], expected, atol=1e-6)
    np.testing.assert_allclose(list(t.rotationEuler), angles, atol=1e-6)  # principal range round trip


def test_degrees_and_single_axes():
    np.testing.assert_allclose(np.asarray(Transform(rotationEulerDeg=float3(90, 0, 0)).matrix)[:3, :3], rx(math.pi / 2), atol=1e-6)
    np.testing.assert_allclose(np.asarray(Transform(rotationEulerDeg=float3(0, 0, -90)).matrix)[:3, :3], rz(-math.pi / 2), atol=1e-6)
    t = Transform()
    t.rotationEulerDeg = [0, 45, 0]  # property setters accept sequences
    np.testing.assert_allclose(list(t.rotationEulerDeg), [0, 45, 0], atol=1e-4)


def test_srt_is_t_r_s():
    t = Transform(translation=float3(1, 2, 3), rotationEuler=float3(0.2, 0.4, 0.6), scaling=float3(2, 3, 4))
    T = homogeneous(t=(1, 2, 3))
    R = homogeneous(rz(0.6) @ ry(0.4) @ rx(0.2))
    S = np.diag([2, 3, 4, 1.0])
    np.testing.assert_allclose(np.asarray(t.matrix), T @ R @ S, atol=1e-5)
    products = {CompositionOrder.SRT: T @ R @ S, CompositionOrder.STR: R @ T @ S, CompositionOrder.RST: T @ S @ R,
                CompositionOrder.RTS: S @ T @ R, CompositionOrder.TRS: S @ R @ T, CompositionOrder.TSR: R @ S @ T}
    for order, expected in products.items():
        t.order = order
        np.testing.assert_allclose(np.asarray(t.matrix), expected, atol=1e-5, err_msg=str(order))


def test_kwargs_rules():
    # Lists are silently ignored (only real float3 objects count); unknown keys too.
    t = Transform(translation=[1, 2, 3], scaling=[2, 2, 2], rotationEulerDeg=[90, 0, 0], bogus=5)
    assert np.array_equal(np.asarray(t.matrix), np.eye(4))
    assert Transform(scaling=2).scaling == float3(2) and Transform(scaling=0.5).scaling == float3(0.5)
    with pytest.raises(TypeError):
        Transform(float3(1, 2, 3))  # keyword-only
    with pytest.raises(TypeError):
        Transform(order="SRT")


def test_look_at():
    t = Transform(position=float3(1, 2, 3), target=float3(1, 2, 0), up=float3(0, 1, 0), translation=float3(9, 9, 9))
    m = np.asarray(t.matrix)
    np.testing.assert_allclose(m[:3, 3], [1, 2, 3])  # lookAt is applied last
    np.testing.assert_allclose(m[:3, :3], np.eye(3), atol=1e-6)  # looking down -Z already
    t.lookAt(float3(0, 0, 0), float3(1, 0, 0), float3(0, 1, 0))
    m = np.asarray(t.matrix)
    np.testing.assert_allclose(m[:3, :3] @ [0, 0, -1], [1, 0, 0], atol=1e-6)  # -Z maps onto the direction
    np.testing.assert_allclose(m[:3, :3] @ [0, 1, 0], [0, 1, 0], atol=1e-6)
    # Incomplete look-at keys are ignored.
    assert np.array_equal(np.asarray(Transform(position=float3(1, 0, 0)).matrix), np.eye(4))
