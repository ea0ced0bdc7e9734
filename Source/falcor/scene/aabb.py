"""`AABB`: an axis-aligned bounding box; empty (invalid) while min > max."""
from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..math_types import float3
from ._values import Vector3Like

_SQRT_SMALLEST_NORMAL = math.sqrt(np.finfo(np.float32).tiny)


class AABB:
    def __init__(self, *args: Vector3Like, **kwargs: Vector3Like) -> None:
        if kwargs:
            args = args + tuple(kwargs[k] for k in ("min_point", "max_point", "p") if k in kwargs)
        if len(args) == 0:
            self.min_point, self.max_point = float3(math.inf), float3(-math.inf)
        elif len(args) == 1:
            self.min_point, self.max_point = float3(args[0]), float3(args[0])
        elif len(args) == 2:
            self.min_point, self.max_point = float3(args[0]), float3(args[1])
        else:
            raise TypeError("AABB() takes no argument, a point, or min_point and max_point")

    @classmethod
    def of_points(cls, points: npt.ArrayLike) -> AABB:
        """Extension: the bounds of an (N, 3) array (invalid when N is 0)."""
        p = np.asarray(points, np.float32).reshape(-1, 3)
        return cls() if len(p) == 0 else cls(p.min(axis=0), p.max(axis=0))

    @property
    def min_point(self) -> float3:
        return float3(self._min)

    @min_point.setter
    def min_point(self, value: Vector3Like) -> None:
        self._min = float3(value)

    @property
    def max_point(self) -> float3:
        return float3(self._max)

    @max_point.setter
    def max_point(self, value: Vector3Like) -> None:
        self._max = float3(value)

    minPoint = min_point
    maxPoint = max_point

    def __repr__(self) -> str:
        return f"AABB(min_point={self._min!r}, max_point={self._max!r})"

    def __str__(self):
        return f"[{self._min}, {self._max}]"

    @property
    def valid(self) -> bool:
        return all(hi >= lo for lo, hi in zip(self._min, self._max))

    @property
    def center(self) -> float3:
        return (self._min + self._max) * 0.5

    @property
    def extent(self) -> float3:
        return self._max - self._min

    @property
    def area(self) -> float:
        e = self.extent
        return (e.x * e.y + e.x * e.z + e.y * e.z) * 2.0

    @property
    def volume(self) -> float:
        e = self.extent
        return e.x * e.y * e.z

    @property
    def radius(self) -> float:
        extent = np.asarray(self.extent, np.float32)
        with np.errstate(over="ignore"):
            length = np.linalg.norm(extent)
        if not _SQRT_SMALLEST_NORMAL <= length < math.inf:
            # The float squared length overflowed or lost its bits (extents beyond ~1e±19): redo in double.
            length = np.float32(np.linalg.norm(extent.astype(np.float64)))
        return 0.5 * float(length)

    def invalidate(self) -> None:
        self._min, self._max = float3(math.inf), float3(-math.inf)

    def include(self, other: AABB | Vector3Like) -> AABB:
        lo, hi = (other._min, other._max) if isinstance(other, AABB) else (float3(other), float3(other))
        self._min = float3(np.minimum(np.asarray(self._min), np.asarray(lo)))
        self._max = float3(np.maximum(np.asarray(self._max), np.asarray(hi)))
        return self

    def intersection(self, other: AABB) -> AABB:
        self._min = float3(np.maximum(np.asarray(self._min), np.asarray(other._min)))
        self._max = float3(np.minimum(np.asarray(self._max), np.asarray(other._max)))
        return self

    def transform(self, matrix: npt.ArrayLike) -> AABB:
        """Extension: bounds of this box under an affine 4x4 matrix (Falcor's AABB::transform)."""
        if not self.valid:
            return AABB()
        m = np.asarray(matrix, np.float64)
        lo, hi = np.asarray(self._min, np.float64), np.asarray(self._max, np.float64)
        a, b = m[:3, :3] * lo[None, :], m[:3, :3] * hi[None, :]
        return AABB(np.minimum(a, b).sum(axis=1) + m[:3, 3], np.maximum(a, b).sum(axis=1) + m[:3, 3])

    def _copy(self) -> "AABB":
        return AABB(self._min, self._max)

    def __eq__(self, other):
        if not isinstance(other, AABB):
            return NotImplemented
        return self._min == other._min and self._max == other._max

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __or__(self, other):
        return self._copy().include(other)

    def __ior__(self, other):
        return self.include(other)

    def __and__(self, other):
        return self._copy().intersection(other)

    def __iand__(self, other):
        return self.intersection(other)
