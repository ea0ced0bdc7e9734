"""`Transform`: translation, rotation (a quaternion) and scaling composed in a chosen order."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from ..math_types import float3, float4x4
from . import rotation
from ._enum import BoundEnum
from ._values import Vector3Like

if TYPE_CHECKING:
    from typing_extensions import Unpack


def inverse(m: np.ndarray) -> np.ndarray:
    """The inverse of a square matrix, in double precision; a singular one (a zero scale, which
    glTF files use to hide objects) gets its pseudo-inverse, so what it flattens stays flat."""
    m = np.asarray(m, np.float64)
    try:
        return np.linalg.inv(m)
    except np.linalg.LinAlgError:
        return np.linalg.pinv(m)


class CompositionOrder(BoundEnum):
    """Order in which scaling, rotation and translation apply. SRT (the default): M = T·R·S."""

    Default = 1
    SRT = 1
    STR = 2
    RST = 3
    RTS = 4
    TRS = 5
    TSR = 6


# Matrix product for each order, left to right (the first letter of the name applies first).
_PRODUCTS = {
    CompositionOrder.SRT: "TRS", CompositionOrder.STR: "RTS", CompositionOrder.RST: "TSR",
    CompositionOrder.RTS: "STR", CompositionOrder.TRS: "SRT", CompositionOrder.TSR: "RST",
}


class TransformArgs(TypedDict, total=False):
    """What `Transform(...)` takes (as keywords)."""
    translation: float3
    scaling: float3 | float
    rotationEuler: float3
    rotationEulerDeg: float3
    position: float3
    target: float3
    up: float3
    order: CompositionOrder


class Transform:
    """Keyword-only constructor as in Falcor: `translation`, `scaling` (float3 or a number for
    uniform scaling), `rotationEuler` (radians), `rotationEulerDeg`, `position`/`target`/`up`
    (look-at, applied last when all three are given) and `order`. Vector values must be `float3`
    objects; anything else (e.g. a list) and unknown keys are silently ignored, as in Falcor."""

    def __init__(self, **kwargs: Unpack[TransformArgs]) -> None:
        self._translation = float3(0.0)
        self._scaling = float3(1.0)
        self._rotation = np.array([0.0, 0.0, 0.0, 1.0])
        self._order = CompositionOrder.Default
        look_at: dict[str, float3] = {}
        arguments: dict[str, Any] = dict(kwargs)  # checked by type here: Falcor ignores what doesn't fit
        for key, value in arguments.items():
            is_float3 = isinstance(value, float3)
            is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if key == "translation" and is_float3:
                self.translation = value
            elif key == "scaling" and (is_float3 or is_number):
                self.scaling = value if is_float3 else float3(float(value))
            elif key == "rotationEuler" and is_float3:
                self.rotationEuler = value
            elif key == "rotationEulerDeg" and is_float3:
                self.rotationEulerDeg = value
            elif key in ("position", "target", "up") and is_float3:
                look_at[key] = value
            elif key == "order":
                self.order = value
        if len(look_at) == 3:
            self.lookAt(look_at["position"], look_at["target"], look_at["up"])

    def __repr__(self) -> str:
        return "Transform()"

    @property
    def translation(self) -> float3:
        return float3(self._translation)

    @translation.setter
    def translation(self, value: Vector3Like) -> None:
        self._translation = float3(value)

    @property
    def scaling(self) -> float3:
        return float3(self._scaling)

    @scaling.setter
    def scaling(self, value: Vector3Like) -> None:
        self._scaling = float3(value)

    @property
    def rotationEuler(self) -> float3:
        return float3(rotation.euler_from_quat(self._rotation))

    @rotationEuler.setter
    def rotationEuler(self, angles: Vector3Like) -> None:
        self._rotation = rotation.quat_from_euler(float3(angles))

    @property
    def rotationEulerDeg(self) -> float3:
        return float3([math.degrees(a) for a in rotation.euler_from_quat(self._rotation)])

    @rotationEulerDeg.setter
    def rotationEulerDeg(self, angles: Vector3Like) -> None:
        self._rotation = rotation.quat_from_euler([math.radians(a) for a in float3(angles)])

    @property
    def order(self) -> CompositionOrder:
        return self._order

    @order.setter
    def order(self, value: CompositionOrder) -> None:
        if not isinstance(value, CompositionOrder):
            raise TypeError(f"Transform.order must be a CompositionOrder, not {type(value).__name__}")
        self._order = value

    @property
    def rotation(self) -> np.ndarray:
        """Extension: the rotation quaternion (x, y, z, w)."""
        return self._rotation.copy()

    def lookAt(self, position: Vector3Like, target: Vector3Like, up: Vector3Like) -> None:
        """Places the transform at `position`, its -Z axis looking at `target` (right-handed)."""
        self._translation = float3(position)
        direction = np.asarray(float3(target), np.float64) - np.asarray(self._translation, np.float64)
        self._rotation = rotation.quat_look_at(direction / np.linalg.norm(direction), np.asarray(float3(up), np.float64))

    def matrix_array(self) -> np.ndarray:
        """Extension: the matrix as a float64 (4, 4) numpy array."""
        factors = {"T": rotation.translation_matrix(self._translation), "R": rotation.rotation_matrix(self._rotation),
                   "S": rotation.scaling_matrix(self._scaling)}
        a, b, c = (factors[k] for k in _PRODUCTS[self._order])
        return a @ b @ c

    @property
    def matrix(self) -> float4x4:
        return float4x4(self.matrix_array())
