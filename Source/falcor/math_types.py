"""Falcor's small math value types: bool/int/uint/float/float16_t vectors and opaque matrices.

Behaviour follows Falcor 8's bindings: fields x/y/z/w, constructors T(), T(c), T(x, y, ...), T(seq),
component-wise + - * / with the same type or a scalar on the right, repr `float3(1.000000, ...)`,
str `[1.000000, ...]`, pickling. Components are stored with the C++ type's precision (float32,
int32, uint32, half).

Documented extensions (Falcor lacks them): reflected operators (`2 * v`), unary minus, `==`/`!=`
comparing components, indexing, `len`, iteration, and numpy conversion (`np.asarray(v)`).
"""
from __future__ import annotations

import enum
import math
import struct
from collections.abc import Iterator
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "bool2", "bool3", "bool4", "int2", "int3", "int4", "uint2", "uint3", "uint4",
    "float2", "float3", "float4", "float16_t", "float16_t2", "float16_t3", "float16_t4",
    "float3x3", "float3x4", "float4x4", "DataType",
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64",
]

_FIELDS = ("x", "y", "z", "w")


def _to_f32(v) -> float:
    return struct.unpack("f", struct.pack("f", float(v)))[0] if math.isfinite(float(v)) else float(v)


def _to_f16(v) -> float:
    return float(np.float16(float(v)))


def _to_i32(v) -> int:
    v = int(v)
    return (v + 2**31) % 2**32 - 2**31


def _to_u32(v) -> int:
    return int(v) % 2**32


class _Vector:
    """Base of the vector classes; subclasses set _n, _prefix, _convert, _numeric, _np_dtype."""

    __slots__ = ("_v",)
    _n = 0
    _prefix = ""
    _convert: Any = staticmethod(float)
    _numeric = True
    _np_dtype: Any = np.float32
    _scalar_types: tuple = (int, float)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        n = self._n
        if kwargs:
            if "c" in kwargs and not args and len(kwargs) == 1:
                values = [kwargs["c"]] * n
            else:
                names = _FIELDS[:n]
                if set(kwargs) - set(names) or args:
                    raise TypeError(f"{type(self).__name__}() takes {', '.join(names)} or c as keywords")
                values = [kwargs[k] for k in names]
        elif not args:
            values = [0] * n
        elif len(args) == 1 and isinstance(args[0], _Vector):
            if len(args[0]) != n:
                raise TypeError(f"{type(self).__name__}() needs a vector of {n} components")
            values = list(args[0]._v)
        elif len(args) == 1 and not isinstance(args[0], (int, float, bool, np.number)):
            values = list(args[0])
            if len(values) != n:
                raise TypeError(f"{type(self).__name__}() needs a sequence of exactly {n} values, got {len(values)}")
        elif len(args) == 1:
            values = [args[0]] * n
        elif len(args) == n:
            values = list(args)
        else:
            raise TypeError(f"{type(self).__name__}() takes 0, 1 or {n} positional arguments")
        object.__setattr__(self, "_v", [self._convert(v) for v in values])

    # ---- fields ----
    def __getattr__(self, name: str) -> Any:
        i = _FIELDS.index(name) if name in _FIELDS else -1
        if 0 <= i < self._n:
            return self._v[i]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        i = _FIELDS.index(name) if name in _FIELDS else -1
        if not 0 <= i < self._n:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self._v[i] = self._convert(value)

    # ---- extensions: sequence protocol and numpy ----
    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> Any:
        return self._v[i]

    def __setitem__(self, i: int, value: Any) -> None:
        if isinstance(i, slice):
            raise TypeError("slice assignment is not supported")
        self._v[i] = self._convert(value)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._v)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return np.array(self._v, dtype=dtype or self._np_dtype)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Vector):
            return type(other) is type(self) and self._v == other._v
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]  # mutable, like the C++ value it mirrors

    # ---- text ----
    def _fmt(self, v) -> str:
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, int):
            return str(v)
        return "%f" % v

    def __repr__(self) -> str:
        return f"{self._prefix}{self._n}({', '.join(self._fmt(v) for v in self._v)})"

    def __str__(self) -> str:
        return f"[{', '.join(self._fmt(v) for v in self._v)}]"

    def __reduce__(self):
        return (type(self), tuple(self._v))


_V = TypeVar("_V", bound="_ArithmeticVector")


class _ArithmeticVector(_Vector):
    """int/uint/float vectors: component-wise arithmetic."""

    __slots__ = ()

    def _to_property(self):
        """Pass options take int/uint/float vectors as arrays (bool and half vectors are rejected)."""
        return list(self._v)

    def _operand(self, other):
        if isinstance(other, type(self)):
            return other._v
        if isinstance(other, (int, float, np.number)) and not isinstance(other, bool):
            return [other] * self._n
        return None

    def _binary(self, other, op, reflected=False):
        o = self._operand(other)
        if o is None:
            return NotImplemented
        a, b = (o, self._v) if reflected else (self._v, o)
        return type(self)([op(x, y) for x, y in zip(a, b)])

    def _div(self, x, y):
        if self._convert is float or self._convert is _to_f32 or self._convert is _to_f16:
            return x / y if y != 0 else math.copysign(math.inf, x) * math.copysign(1.0, y) if x != 0 else math.nan
        if y == 0:
            raise ZeroDivisionError("integer vector division by zero")
        q = abs(x) // abs(y)  # C++ integer division truncates toward zero
        return q if (x >= 0) == (y >= 0) else -q

    def __add__(self: _V, o: _V | float) -> _V: return self._binary(o, lambda x, y: x + y)
    def __sub__(self: _V, o: _V | float) -> _V: return self._binary(o, lambda x, y: x - y)
    def __mul__(self: _V, o: _V | float) -> _V: return self._binary(o, lambda x, y: x * y)
    def __truediv__(self: _V, o: _V | float) -> _V: return self._binary(o, self._div)
    def __radd__(self: _V, o: float) -> _V: return self._binary(o, lambda x, y: x + y, True)
    def __rsub__(self: _V, o: float) -> _V: return self._binary(o, lambda x, y: x - y, True)
    def __rmul__(self: _V, o: float) -> _V: return self._binary(o, lambda x, y: x * y, True)
    def __rtruediv__(self: _V, o: float) -> _V: return self._binary(o, self._div, True)

    def _inplace(self, result):
        if result is NotImplemented:
            return result
        self._v[:] = result._v
        return self

    def __iadd__(self: _V, o: _V | float) -> _V: return self._inplace(self + o)
    def __isub__(self: _V, o: _V | float) -> _V: return self._inplace(self - o)
    def __imul__(self: _V, o: _V | float) -> _V: return self._inplace(self * o)
    def __itruediv__(self: _V, o: _V | float) -> _V: return self._inplace(self / o)

    def __neg__(self: _V) -> _V:
        return type(self)([-v for v in self._v])


# The vector classes, written out so that type checkers and editors see their fields. Sizes are
# separate classes (a float4 is not a float3). Each sets its size, name prefix, component
# conversion and numpy type.
class bool2(_Vector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 2, "bool", staticmethod(bool), np.bool_
    x: bool
    y: bool


class bool3(_Vector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 3, "bool", staticmethod(bool), np.bool_
    x: bool
    y: bool
    z: bool


class bool4(_Vector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 4, "bool", staticmethod(bool), np.bool_
    x: bool
    y: bool
    z: bool
    w: bool


class int2(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 2, "int", staticmethod(_to_i32), np.int32
    x: int
    y: int


class int3(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 3, "int", staticmethod(_to_i32), np.int32
    x: int
    y: int
    z: int


class int4(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 4, "int", staticmethod(_to_i32), np.int32
    x: int
    y: int
    z: int
    w: int


class uint2(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 2, "uint", staticmethod(_to_u32), np.uint32
    x: int
    y: int


class uint3(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 3, "uint", staticmethod(_to_u32), np.uint32
    x: int
    y: int
    z: int


class uint4(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 4, "uint", staticmethod(_to_u32), np.uint32
    x: int
    y: int
    z: int
    w: int


class float2(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 2, "float", staticmethod(_to_f32), np.float32
    x: float
    y: float


class float3(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 3, "float", staticmethod(_to_f32), np.float32
    x: float
    y: float
    z: float


class float4(_ArithmeticVector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 4, "float", staticmethod(_to_f32), np.float32
    x: float
    y: float
    z: float
    w: float


class float16_t2(_Vector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 2, "float16_t", staticmethod(_to_f16), np.float16
    x: float
    y: float


class float16_t3(_Vector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 3, "float16_t", staticmethod(_to_f16), np.float16
    x: float
    y: float
    z: float


class float16_t4(_Vector):
    __slots__ = ()
    _n, _prefix, _convert, _np_dtype = 4, "float16_t", staticmethod(_to_f16), np.float16
    x: float
    y: float
    z: float
    w: float


for _vector in (bool2, bool3, bool4, int2, int3, int4, uint2, uint3, uint4, float2, float3, float4,
                float16_t2, float16_t3, float16_t4):
    _vector.__module__ = "falcor"


class float16_t(float):
    """A half-precision scalar; Python floats convert to and from it."""

    def __new__(cls, value: float = 0.0) -> float16_t:
        return super().__new__(cls, _to_f16(value))

    def __repr__(self):
        return "%f" % float(self)


class _Matrix:
    """Row-major matrix value (float3x3, float3x4, float4x4). Falcor binds these as opaque types;
    as extensions they construct from nested sequences (identity by default), index by row,
    compare, multiply with `@` and convert to numpy."""

    __slots__ = ("_m",)
    _shape = (0, 0)

    def __init__(self, rows: Any = None) -> None:
        if rows is None:
            m = np.eye(*self._shape, dtype=np.float32)
        else:
            m = np.array(rows, dtype=np.float32)
            if m.shape != self._shape:
                raise TypeError(f"{type(self).__name__} needs a {self._shape[0]}x{self._shape[1]} array, got {m.shape}")
        self._m = m

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        return self._m.astype(dtype) if dtype else self._m.copy()

    def __getitem__(self, i: Any) -> Any:
        return self._m[i].tolist() if isinstance(i, int) else float(self._m[i])

    def __eq__(self, other):
        if isinstance(other, _Matrix):
            return type(other) is type(self) and bool(np.array_equal(self._m, other._m))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __matmul__(self, other: Any) -> Any:
        r = self._m @ np.asarray(other, dtype=np.float32)
        for cls in (float3x3, float3x4, float4x4):
            if r.shape == cls._shape:
                return cls(r)
        return r

    def __repr__(self):
        rows = ", ".join("[" + ", ".join("%f" % v for v in row) + "]" for row in self._m)
        return f"{type(self).__name__}({rows})"

    def __reduce__(self):
        return (type(self), (self._m.tolist(),))


class float3x3(_Matrix):
    __slots__ = ()
    _shape = (3, 3)


class float3x4(_Matrix):
    __slots__ = ()
    _shape = (3, 4)


class float4x4(_Matrix):
    __slots__ = ()
    _shape = (4, 4)


for _cls in (float3x3, float3x4, float4x4):
    _cls.__module__ = "falcor"


class DataType(enum.Enum):
    int8 = 0
    int16 = 1
    int32 = 2
    int64 = 3
    uint8 = 4
    uint16 = 5
    uint32 = 6
    uint64 = 7
    float16 = 8
    float32 = 9
    float64 = 10


int8, int16, int32, int64 = DataType.int8, DataType.int16, DataType.int32, DataType.int64
uint8, uint16, uint32, uint64 = DataType.uint8, DataType.uint16, DataType.uint32, DataType.uint64
float16, float32, float64 = DataType.float16, DataType.float32, DataType.float64
