"""Small helpers shared by the scene objects (camera, lights, materials, env map)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Union, overload

import numpy as np

from ..math_types import float3, float4


def f32(v: float) -> float:
    """`v` rounded to float32, as the C++ value Falcor stores."""
    return float(np.float32(float(v)))


class Versioned:
    """Counts edits so the scene pushes an object to the renderer only when it changed."""

    def __init__(self) -> None:
        self._version = 0

    def _touch(self) -> None:
        self._version += 1


Vector3Like = Union[float3, Sequence[float], np.ndarray]
Vector4Like = Union[float4, Sequence[float], np.ndarray]


class VectorProperty:
    """A float3 stored in `obj.<attr>`: reads return a copy, writes convert any 3-sequence and
    count as an edit (`_touch`)."""

    def __init__(self, attr: str, doc: str = "") -> None:
        self.attr = attr
        self.__doc__ = doc

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> VectorProperty: ...
    @overload
    def __get__(self, obj: Versioned, owner: type | None = None) -> float3: ...
    def __get__(self, obj: Versioned | None, owner: type | None = None) -> VectorProperty | float3:
        return self if obj is None else float3(getattr(obj, self.attr))

    def __set__(self, obj: Versioned, value: Vector3Like) -> None:
        setattr(obj, self.attr, float3(value))
        obj._touch()


class Float32Property:
    """A scalar stored in `obj.<attr>` rounded to float32 (as the C++ field); writes count as an edit."""

    def __init__(self, attr: str, doc: str = "") -> None:
        self.attr = attr
        self.__doc__ = doc

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Float32Property: ...
    @overload
    def __get__(self, obj: Versioned, owner: type | None = None) -> float: ...
    def __get__(self, obj: Versioned | None, owner: type | None = None) -> Float32Property | float:
        return self if obj is None else getattr(obj, self.attr)

    def __set__(self, obj: Versioned, value: float) -> None:
        setattr(obj, self.attr, f32(value))
        obj._touch()
