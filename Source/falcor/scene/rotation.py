"""Rotation math shared by transforms, animations and lights, with Falcor's conventions.

Quaternions are numpy arrays (x, y, z, w). Matrices are row-major and act on column vectors
(p' = M @ p), as in Falcor. Euler angles are radians (x, y, z) with R = Rz·Ry·Rx: the X rotation
is applied first.
"""
from __future__ import annotations

import math

import numpy as np


def quat_from_euler(angles) -> np.ndarray:
    cx, cy, cz = (math.cos(0.5 * float(a)) for a in angles)
    sx, sy, sz = (math.sin(0.5 * float(a)) for a in angles)
    return np.array([
        sx * cy * cz - cx * sy * sz,
        cx * sy * cz + sx * cy * sz,
        cx * cy * sz - sx * sy * cz,
        cx * cy * cz + sx * sy * sz,
    ])


def euler_from_quat(q) -> np.ndarray:
    """(pitch, yaw, roll): the angles `quat_from_euler` takes, in the principal range."""
    x, y, z, w = (float(v) for v in q)
    eps = np.finfo(np.float32).eps
    py, px = 2.0 * (y * z + w * x), w * w - x * x - y * y + z * z
    pitch = 2.0 * math.atan2(x, w) if abs(px) < eps and abs(py) < eps else math.atan2(py, px)
    yaw = math.asin(min(1.0, max(-1.0, -2.0 * (x * z - w * y))))
    roll = math.atan2(2.0 * (x * y + w * z), w * w + x * x - y * y - z * z)
    return np.array([pitch, yaw, roll])


def matrix_from_quat(q) -> np.ndarray:
    """3x3 rotation matrix of a (unit) quaternion."""
    x, y, z, w = (float(v) for v in q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def quat_from_matrix(m) -> np.ndarray:
    """Quaternion of a 3x3 rotation matrix (the largest-component method)."""
    m = np.asarray(m, dtype=np.float64)
    candidates = [m[0, 0] + m[1, 1] + m[2, 2], m[0, 0] - m[1, 1] - m[2, 2],
                  m[1, 1] - m[0, 0] - m[2, 2], m[2, 2] - m[0, 0] - m[1, 1]]
    biggest = max(range(4), key=lambda i: (candidates[i], -i))  # first index wins ties
    value = math.sqrt(candidates[biggest] + 1.0) * 0.5
    mult = 0.25 / value
    if biggest == 0:
        return np.array([(m[2, 1] - m[1, 2]) * mult, (m[0, 2] - m[2, 0]) * mult, (m[1, 0] - m[0, 1]) * mult, value])
    if biggest == 1:
        return np.array([value, (m[1, 0] + m[0, 1]) * mult, (m[0, 2] + m[2, 0]) * mult, (m[2, 1] - m[1, 2]) * mult])
    if biggest == 2:
        return np.array([(m[1, 0] + m[0, 1]) * mult, value, (m[2, 1] + m[1, 2]) * mult, (m[0, 2] - m[2, 0]) * mult])
    return np.array([(m[0, 2] + m[2, 0]) * mult, (m[2, 1] + m[1, 2]) * mult, value, (m[1, 0] - m[0, 1]) * mult])


def quat_look_at(direction, up) -> np.ndarray:
    """Right-handed look-at rotation: the forward direction maps onto -Z."""
    z = -np.asarray(direction, dtype=np.float64)
    x = np.cross(np.asarray(up, dtype=np.float64), z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return quat_from_matrix(np.column_stack([x, y, z]))


def slerp(q1, q2, t: float) -> np.ndarray:
    q1, q2 = np.asarray(q1, dtype=np.float64), np.asarray(q2, dtype=np.float64)
    cos_theta = float(np.dot(q1, q2))
    if cos_theta < 0.0:  # take the short way around
        q2, cos_theta = -q2, -cos_theta
    if cos_theta > 1.0 - np.finfo(np.float32).eps:
        return q1 * (1.0 - t) + q2 * t
    angle = math.acos(cos_theta)
    return (math.sin((1.0 - t) * angle) * q1 + math.sin(t * angle) * q2) / math.sin(angle)


def compose(translation, rotation_quat, scaling) -> np.ndarray:
    """4x4 matrix T·R·S."""
    m = np.eye(4)
    m[:3, :3] = matrix_from_quat(rotation_quat) * np.asarray(scaling, dtype=np.float64)[None, :]
    m[:3, 3] = np.asarray(translation, dtype=np.float64)
    return m


def translation_matrix(t) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = np.asarray(t, dtype=np.float64)
    return m


def scaling_matrix(s) -> np.ndarray:
    return np.diag([*np.asarray(s, dtype=np.float64), 1.0])


def rotation_matrix(q) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = matrix_from_quat(q)
    return m


def axis_angle_matrix(angle: float, axis) -> np.ndarray:
    """4x4 rotation by `angle` radians about `axis` (normalized here)."""
    a = np.asarray(axis, dtype=np.float64)
    a = a / np.linalg.norm(a)
    h = 0.5 * angle
    return rotation_matrix(np.array([*(a * math.sin(h)), math.cos(h)]))
