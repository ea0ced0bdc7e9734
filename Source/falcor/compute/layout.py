"""Where a kernel's parameters live in memory on the CPU.

Slang's reflection gives each parameter's type; its CPU target stores them as a C++ compiler
lays out the generated structs: scalars, vectors and matrices at their scalar's alignment,
resources as pointers (textures, samplers, parameter blocks) or pointer + count (buffers), structs
padded to their widest member. Offsets are computed here from the types by those rules rather
than read from the reflection, whose sizes are wrong for typed buffers (`Buffer<T>`: 8 instead of 16).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

SCALAR_DTYPES = {
    "bool": np.dtype(np.bool_), "int8": np.dtype(np.int8), "uint8": np.dtype(np.uint8),
    "int16": np.dtype(np.int16), "uint16": np.dtype(np.uint16), "float16": np.dtype(np.float16),
    "int32": np.dtype(np.int32), "uint32": np.dtype(np.uint32), "float32": np.dtype(np.float32),
    "int64": np.dtype(np.int64), "uint64": np.dtype(np.uint64), "float64": np.dtype(np.float64),
}

BUFFER_SHAPES = {"structuredBuffer", "byteAddressBuffer"}
TEXTURE_DIMENSIONS = {"texture1D": 1, "texture2D": 2, "texture3D": 3}
POINTER_KINDS = {"parameterBlock", "constantBuffer"}


@dataclass
class Layout:
    """A type as the kernel sees it. `kind` is scalar, vector, matrix, array, struct, buffer,
    texture, sampler or block (a ParameterBlock/ConstantBuffer: a pointer to its own memory)."""
    kind: str
    name: str
    size: int
    align: int
    dtype: np.dtype | None = None          # scalar, vector and matrix element type
    shape: tuple = ()                      # vector (n,), matrix (rows, cols), array (count,)
    fields: dict[str, tuple[int, "Layout"]] = field(default_factory=dict)  # struct: name -> (offset, layout)
    element: "Layout | None" = None        # array element, buffer element, block contents, texture result
    shape_name: str = ""                   # buffer/texture: Slang's base shape
    writable: bool = False                 # buffer/texture: read-write access
    is_array_texture: bool = False

    @property
    def inner(self) -> Layout:
        """The element of an array, buffer or block, which they always have."""
        assert self.element is not None, f"{self.name} has no element type"
        return self.element

    @property
    def scalar(self) -> np.dtype:
        """The element type of a scalar, vector or matrix, which they always have."""
        assert self.dtype is not None, f"{self.name} has no scalar type"
        return self.dtype


def _round_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


def type_name(t: dict) -> str:
    kind = t["kind"]
    if kind == "scalar":
        return t["scalarType"]
    if kind == "vector":
        return f"{type_name(t['elementType'])}{t['elementCount']}"
    if kind == "matrix":
        return f"{type_name(t['elementType'])}{t['rowCount']}x{t['columnCount']}"
    if kind == "array":
        return f"{type_name(t['elementType'])}[{t['elementCount']}]"
    if kind == "resource":
        access = "RW" if t.get("access") == "readWrite" else ""
        inner = f"<{type_name(t['resultType'])}>" if "resultType" in t else ""
        return f"{access}{t['baseShape']}{inner}"
    return t.get("name", kind)


def layout_of(t: dict) -> Layout:
    kind, name = t["kind"], type_name(t)
    if kind == "scalar":
        dtype = SCALAR_DTYPES.get(t["scalarType"])
        if dtype is None:
            raise TypeError(f"scalar type '{t['scalarType']}' is not supported on the CPU")
        return Layout("scalar", name, dtype.itemsize, dtype.itemsize, dtype=dtype)
    if kind in ("vector", "matrix"):
        elem = layout_of(t["elementType"])
        shape = (t["elementCount"],) if kind == "vector" else (t["rowCount"], t["columnCount"])
        return Layout(kind, name, elem.size * int(np.prod(shape)), elem.align, dtype=elem.dtype, shape=shape)
    if kind == "array":
        elem = layout_of(t["elementType"])
        count = t["elementCount"]
        if count == 0:
            raise TypeError(f"unsized array '{name}' is not supported on the CPU")
        return Layout("array", name, _round_up(elem.size, elem.align) * count, elem.align, shape=(count,), element=elem)
    if kind == "struct":
        offset, align, fields = 0, 1, {}
        for f in t["fields"]:
            fl = layout_of(f["type"])
            offset = _round_up(offset, fl.align)
            fields[f["name"]] = (offset, fl)
            offset += fl.size
            align = max(align, fl.align)
        return Layout("struct", name, _round_up(max(offset, 1), align) if fields else 1, align, fields=fields)
    if kind in POINTER_KINDS:
        return Layout("block", name, 8, 8, element=layout_of(t["elementType"]))
    if kind == "samplerState":
        return Layout("sampler", name, 8, 8)
    if kind == "resource":
        shape = t["baseShape"]
        writable = t.get("access") == "readWrite"
        result = layout_of(t["resultType"]) if "resultType" in t else None
        if shape == "textureBuffer":
            raise TypeError(f"typed buffers ({name}: Buffer<T>, RWBuffer<T>) are not supported by Slang's CPU "
                            "target, whose C++ output has no body for their loads; use StructuredBuffer<T>")
        if shape in BUFFER_SHAPES:
            return Layout("buffer", name, 16, 8, element=result, shape_name=shape, writable=writable)
        if shape in TEXTURE_DIMENSIONS:
            return Layout("texture", name, 8, 8, element=result, shape_name=shape, writable=writable,
                          is_array_texture=bool(t.get("array")))
        raise TypeError(f"resource '{name}' ({shape}) is not supported on the CPU")
    raise TypeError(f"parameter type '{name}' ({kind}) is not supported on the CPU")


def globals_layout(reflection: dict) -> Layout:
    """The kernel's global parameters as one struct (Slang's `GlobalParams`)."""
    return layout_of({"kind": "struct", "name": "globals", "fields": reflection.get("parameters", [])})


def entry_point_layout(reflection: dict) -> Layout:
    """The entry point's uniform parameters (`uniform` arguments of the entry function)."""
    entry = reflection["entryPoints"][0]
    params = [p for p in entry.get("parameters", []) if "semanticName" not in p]
    return layout_of({"kind": "struct", "name": "entryPointParams", "fields": params})
