"""Small helpers shared by the scene objects (camera, lights, materials, env map)."""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Generic, TypeVar, Union, overload

import numpy as np

from .. import falcor_ext as _ext
from ..math_types import float3, float4


def f32(v: float) -> float:
    """`v` rounded to float32, as the C++ value Falcor stores."""
    return float(np.float32(float(v)))


def components(value) -> tuple[float, ...]:
    """A scalar or vector value as a tuple of floats."""
    try:
        return tuple(float(v) for v in value)
    except TypeError:
        return (float(value),)


def finite(owner: str, prop: str, given, stored):
    """`stored` (`given` as the object keeps it) if all of it is finite, else raises naming the
    owner and property: one NaN or infinite scene parameter makes NaN pixels in every renderer."""
    if all(math.isfinite(v) for v in components(stored)):
        return stored
    given = components(given)
    why = " (beyond the float range it is stored in)" if all(math.isfinite(v) for v in given) else ""
    shown = given[0] if len(given) == 1 else given
    raise _ext.RuntimeError(f"{owner}: '{prop}' must be finite, not {shown}{why}.")


class Versioned:
    """Counts edits so the scene pushes an object to the renderer only when it changed."""

    def __init__(self) -> None:
        self._version = 0

    def _touch(self) -> None:
        self._version += 1


Vector3Like = Union[float3, Sequence[float], np.ndarray]
Vector4Like = Union[float4, Sequence[float], np.ndarray]


Value = TypeVar("Value")   # what reading the property gives
Given = TypeVar("Given")   # what assigning it accepts


class StoredProperty(Generic[Value, Given]):
    """A property stored in `obj.<attr>`: writes go through `store` (the C++ field's conversion)
    and count as an edit (`_touch`); reads go through `load`."""

    def __init__(self, attr: str, doc: str = "") -> None:
        self.attr = attr
        self.__doc__ = doc

    def load(self, stored: Any) -> Value:
        return stored

    def store(self, value: Given) -> Any:
        return value

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> StoredProperty[Value, Given]: ...
    @overload
    def __get__(self, obj: Versioned, owner: type | None = None) -> Value: ...
    def __get__(self, obj: Versioned | None, owner: type | None = None) -> StoredProperty[Value, Given] | Value:
        return self if obj is None else self.load(getattr(obj, self.attr))

    def __set__(self, obj: Versioned, value: Given) -> None:
        setattr(obj, self.attr, self.store(value))
        obj._touch()


class VectorProperty(StoredProperty[float3, Vector3Like]):
    """A float3: reads return a copy, writes convert any 3-sequence."""

    def load(self, stored: Any) -> float3:
        return float3(stored)

    def store(self, value: Vector3Like) -> float3:
        return float3(value)


class Float32Property(StoredProperty[float, float]):
    """A scalar rounded to float32, as the C++ field holds it."""

    def store(self, value: float) -> float:
        return f32(value)
