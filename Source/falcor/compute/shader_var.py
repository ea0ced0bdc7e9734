"""`ComputePass.globals`: a kernel's parameters, set from Python by name.

Every parameter block lives in host memory laid out as the kernel reads it (see layout.py).
Resources are bound by writing what Slang's CPU types hold: buffers as (pointer, count), textures
and samplers as pointers to views the kernel library creates. A block starts with every resource
bound to an empty one (reads give zero, as a GPU's null descriptor), so a kernel never sees a
null pointer: read-only ones view zeros that no kernel writes, read-write ones a sink of their own
that takes the writes a GPU would drop and is cleared before every dispatch.
"""
from __future__ import annotations

import ctypes
import enum
import threading
import weakref
from typing import Union

import numpy as np

from .. import falcor_ext as _ext
from ..buffer import Buffer
from .layout import TEXTURE_DIMENSIONS, Layout

# The size of what empty and unbound buffers point to: any element index the kernel's bounds check
# falls back to (element 0 of at most this many bytes) stays inside it.
SCRATCH_BYTES = 65536


def _aligned_zeros() -> tuple[np.ndarray, int]:
    """SCRATCH_BYTES of zeros starting at a 64-byte boundary: (the allocation, the address)."""
    memory = np.zeros(SCRATCH_BYTES + 64, np.uint8)
    return memory, (memory.ctypes.data + 63) // 64 * 64


# What empty and unbound read-only buffers view; only read-write bindings are written, and those
# never point here.
_zeros, _ZEROS_ADDRESS = _aligned_zeros()

_INT_KINDS = "iub"


class ShaderVarError(_ext.RuntimeError):
    pass


class KernelLibrary:
    """The exported helpers of one kernel library (kernel_runtime.h)."""

    def __init__(self, lib: ctypes.CDLL) -> None:
        self.lib = lib
        vp, u32 = ctypes.c_void_p, ctypes.c_uint32
        lib.falcorKernelCreateTexture.restype = vp
        lib.falcorKernelCreateTexture.argtypes = [ctypes.c_char_p, u32, u32, u32]
        lib.falcorKernelCreateSampler.restype = vp
        lib.falcorKernelCreateSampler.argtypes = [ctypes.c_char_p]
        lib.falcorKernelDestroyTexture.argtypes = [vp]
        lib.falcorKernelDestroySampler.argtypes = [vp]
        lib.falcorKernelTakeOutOfBoundsCount.restype = ctypes.c_uint64

    def take_out_of_bounds_count(self) -> int:
        return int(self.lib.falcorKernelTakeOutOfBoundsCount())


class _OwnedObject:
    """A texture view or sampler created by a kernel library, destroyed with its binding; keeps the
    engine resource it points into alive (`resource`, what `globals` returns, and `storage`, the
    texture viewed when that is a sink's)."""

    def __init__(self, address: int, destroy, resource, storage=None) -> None:
        self.address, self.resource, self.storage = address, resource, storage
        self._finalizer = weakref.finalize(self, destroy, address)


class _BufferSink:
    """The memory behind an empty or unbound read-write buffer. `resource` is what was bound."""

    def __init__(self, resource) -> None:
        self.resource = resource
        self.memory, self.address = _aligned_zeros()

    def clear(self) -> None:
        self.memory.fill(0)


class _TextureSink:
    """The texture behind an unbound read-write texture: one RGBA32Float texel (the largest texel a
    shader element type reads)."""

    def __init__(self) -> None:
        self.texture = _ext.Texture(1, 1, _ext.ResourceFormat.RGBA32Float, 1, 1, 1)

    def clear(self) -> None:
        self.texture.from_numpy(np.zeros((1, 1, 4), np.float32))


class Block:
    """Host memory for one struct of parameters, with what its pointers refer to kept alive."""

    def __init__(self, layout: Layout, library: KernelLibrary, owner: str, lock=None,
                 sinks: weakref.WeakSet | None = None) -> None:
        self.layout, self.library, self.owner = layout, library, owner
        # Shared by a pass's blocks: execute() holds it while the kernel runs, assignments wait.
        self.lock = lock or threading.RLock()
        # Shared too: the sinks bound anywhere in the pass, which execute() clears.
        self.sinks = sinks if sinks is not None else weakref.WeakSet()
        self._storage = np.zeros(layout.size + 64, np.uint8)
        start = (-self._storage.ctypes.data) % 64
        self.data = self._storage[start:start + layout.size]
        self.address = self.data.ctypes.data
        self.bound: dict[int, object] = {}   # offset -> Buffer/Texture/sampler/sub-block kept alive
        self._bind_defaults(layout, 0)

    def _bind_defaults(self, layout: Layout, offset: int) -> None:
        if layout.kind == "struct":
            for field_offset, fl in layout.fields.values():
                self._bind_defaults(fl, offset + field_offset)
        elif layout.kind == "array" and layout.inner.kind in ("struct", "array", "buffer", "texture", "sampler", "block"):
            stride = layout.size // layout.shape[0]
            for i in range(layout.shape[0]):
                self._bind_defaults(layout.inner, offset + i * stride)
        elif layout.kind == "buffer":
            bind_empty_buffer(self, offset, layout, None)
        elif layout.kind == "texture":
            bind_texture(self, offset, layout, None, "")
        elif layout.kind == "block":
            sub = Block(layout.inner, self.library, self.owner, self.lock, self.sinks)
            self.write_pointer(offset, sub.address, None, sub)

    def clear_sinks(self) -> None:
        """Zeroes what kernels wrote to unbound read-write resources, so that it is never read back."""
        for sink in list(self.sinks):
            sink.clear()

    def write_pointer(self, offset: int, address: int, count: int | None, keep) -> None:
        words = self.data[offset:offset + (16 if count is not None else 8)].view(np.uint64)
        words[0] = address
        if count is not None:
            words[1] = count
        self.bound[offset] = keep


class ShaderVar:
    """A parameter or member: read and assign members as attributes (`var.blobs = buffer`),
    array elements by index."""

    __slots__ = ("_block", "_layout", "_offset", "_path")

    def __init__(self, block: Block, layout: Layout, offset: int, path: str) -> None:
        object.__setattr__(self, "_block", block)
        object.__setattr__(self, "_layout", layout)
        object.__setattr__(self, "_offset", offset)
        object.__setattr__(self, "_path", path)

    def _member(self, name: str) -> "ShaderVar":
        layout, block, offset = self._layout, self._block, self._offset
        if layout.kind == "block":
            block = block.bound[offset]
            layout, offset = layout.element, 0
        if layout.kind != "struct" or name not in layout.fields:
            known = ", ".join(layout.fields) if layout.kind == "struct" else f"a {layout.name} has no members"
            raise ShaderVarError(f"{block.owner}: '{self._path}' has no member '{name}' ({known})")
        field_offset, fl = layout.fields[name]
        return ShaderVar(block, fl, offset + field_offset, f"{self._path}.{name}")

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return self._member(name)._get()

    def __setattr__(self, name: str, value) -> None:
        self._member(name).set(value)

    def __getitem__(self, index: int):
        return self._element(index)._get()

    def __setitem__(self, index: int, value) -> None:
        self._element(index).set(value)

    def __dir__(self):
        layout = self._layout.element if self._layout.kind == "block" else self._layout
        return list(layout.fields) if layout.kind == "struct" else []

    def __repr__(self):
        return f"ShaderVar({self._path}: {self._layout.name})"

    def _element(self, index: int) -> "ShaderVar":
        layout = self._layout
        if layout.kind != "array":
            raise ShaderVarError(f"{self._block.owner}: '{self._path}' ({layout.name}) is not an array")
        count = layout.shape[0]
        if not -count <= index < count:
            raise ShaderVarError(f"{self._block.owner}: index {index} is out of range for '{self._path}' ({layout.name})")
        index %= count
        stride = layout.size // count
        return ShaderVar(self._block, layout.element, self._offset + index * stride, f"{self._path}[{index}]")

    def _get(self):
        layout = self._layout
        if layout.kind in ("scalar", "vector", "matrix"):
            raw = self._block.data[self._offset:self._offset + layout.size].view(layout.dtype)
            return raw[0].item() if layout.kind == "scalar" else raw.reshape(layout.shape).copy()
        if layout.kind in ("buffer", "texture", "sampler"):
            bound = self._block.bound.get(self._offset)
            return getattr(bound, "resource", bound)
        return self

    def set(self, value) -> None:
        """Assigns a value of the variable's type (numbers, vectors, matrices, buffers, textures,
        samplers, or a dict/sequence for structs and arrays)."""
        with self._block.lock:
            self._set(value)

    def _set(self, value) -> None:
        kind = self._layout.kind
        if kind in ("scalar", "vector", "matrix"):
            self._set_numeric(value)
        elif kind == "buffer":
            bind_buffer(self._block, self._offset, self._layout, value, self._path)
        elif kind == "texture":
            bind_texture(self._block, self._offset, self._layout, value, self._path)
        elif kind == "sampler":
            bind_sampler(self._block, self._offset, value, self._path)
        elif kind == "struct" and isinstance(value, dict):
            for name, v in value.items():
                self._member(name)._set(v)
        elif kind == "array" and not isinstance(value, (str, bytes)) and hasattr(value, "__len__"):
            if len(value) != self._layout.shape[0]:
                self._type_error(value, f"{len(value)} elements")
            for i, v in enumerate(value):
                self._element(i)._set(v)
        else:
            self._type_error(value)

    def _type_error(self, value, detail: str = "") -> None:
        got = detail or type(value).__name__
        raise ShaderVarError(f"{self._block.owner}: cannot assign {got} to '{self._path}' of type {self._layout.name}")

    def _set_numeric(self, value) -> None:
        layout = self._layout
        if isinstance(value, (str, bytes, Buffer, _ext.Texture, Sampler)) or not _is_numeric(value):
            self._type_error(value)
        array = np.asarray(value)
        if array.dtype == object or array.dtype.kind not in "biuf":
            self._type_error(value)
        if array.size != int(np.prod(layout.shape, dtype=int)):
            self._type_error(value, f"{array.size} component(s)")
        converted = self._exact_integers(value) if layout.dtype.kind in _INT_KINDS else array.astype(layout.dtype)
        self._block.data[self._offset:self._offset + layout.size] = converted.reshape(-1).view(np.uint8)

    def _exact_integers(self, value) -> np.ndarray:
        """`value` in the variable's integer type, checked on Python integers: numpy holds integers
        beyond int64 (and mixes of them) as rounded float64, which would pass or fail wrongly."""
        values = np.asarray(value, dtype=object).reshape(-1).tolist()
        if not all(isinstance(v, (int, np.integer)) or float(v).is_integer() for v in values):
            self._type_error(value, "a non-integer")
        integers = [int(v) for v in values]
        if self._layout.dtype.kind != "b":
            info = np.iinfo(self._layout.dtype)
            if not all(info.min <= v <= info.max for v in integers):
                self._type_error(value, f"{value!r} (out of range)")
        return np.array(integers, self._layout.dtype)


def _is_numeric(value) -> bool:
    if isinstance(value, (bool, int, float, np.number, np.bool_, np.ndarray)):
        return True
    return hasattr(value, "__array__") or (hasattr(value, "__len__") and all(_is_numeric(v) for v in value))


def bind_buffer(block: Block, offset: int, layout: Layout, buffer, path: str) -> None:
    if not isinstance(buffer, Buffer):
        raise ShaderVarError(f"{block.owner}: '{path}' is a {layout.name}; cannot bind {type(buffer).__name__} "
                             "(create one with device.create_structured_buffer/create_typed_buffer/create_buffer)")
    nbytes = buffer.size
    if layout.shape_name == "byteAddressBuffer":
        count = nbytes // 4 * 4
    else:
        stride = layout.inner.size
        if stride > SCRATCH_BYTES:
            raise ShaderVarError(f"{block.owner}: '{path}': elements of {stride} bytes are larger than the CPU "
                                 f"engine supports ({SCRATCH_BYTES})")
        count = nbytes // stride
    if count:
        block.write_pointer(offset, buffer.kernel_address(), count, buffer)
    else:
        bind_empty_buffer(block, offset, layout, buffer)


def bind_empty_buffer(block: Block, offset: int, layout: Layout, buffer) -> None:
    """Binds zero elements (`buffer` is None or empty) over memory the kernel may touch at element 0."""
    if layout.writable:
        sink = _BufferSink(buffer)
        block.sinks.add(sink)
        block.write_pointer(offset, sink.address, 0, sink)
    else:
        block.write_pointer(offset, _ZEROS_ADDRESS, 0, buffer)


def raw_texel_access(format, element: Layout | None) -> bool:
    """True when a shader element type has exactly a texel's layout (e.g. float4 on RGBA32Float)."""
    if element is None or element.kind not in ("scalar", "vector"):
        return False
    desc = _ext.get_format_desc(format)
    kind = {"Float": "f", "Uint": "u", "Sint": "i"}.get(desc["type"])
    bits = set(desc["bits_per_channel"][:desc["channel_count"]])
    count = element.shape[0] if element.kind == "vector" else 1
    return (kind == element.scalar.kind and bits == {element.scalar.itemsize * 8}
            and desc["channel_count"] == count)


_null_texture = None


def null_texture():
    """What unbound read-only texture variables view: one RGBA32Float texel of zero (the largest
    texel a shader element type reads), which no kernel writes."""
    global _null_texture
    if _null_texture is None:
        _null_texture = _ext.Texture(1, 1, _ext.ResourceFormat.RGBA32Float, 1, 1, 1)
    return _null_texture


def bind_texture(block: Block, offset: int, layout: Layout, texture, path: str) -> None:
    dimensions = TEXTURE_DIMENSIONS[layout.shape_name]
    sink = None
    if texture is None and layout.writable:
        sink = _TextureSink()
        block.sinks.add(sink)
        resource, raw = sink.texture, False
    elif texture is None:
        resource, raw = null_texture(), False
    else:
        if not isinstance(texture, _ext.Texture):
            raise ShaderVarError(f"{block.owner}: '{path}' is a {layout.name}; cannot bind {type(texture).__name__}")
        texture_dims = texture.depth > 1 and 3 or (texture.height > 1 and 2 or 1)
        if texture_dims > dimensions:
            raise ShaderVarError(f"{block.owner}: '{path}' is a {layout.name}; cannot bind a {texture_dims}D texture "
                                 f"({texture.width}x{texture.height}x{texture.depth})")
        raw = raw_texel_access(texture.format, layout.element)
        readable_as_float = layout.element is not None and layout.element.scalar.kind == "f"
        if not raw and (layout.writable or not readable_as_float):
            access = "read-write textures are accessed in place" if layout.writable else "integer texels are not converted"
            raise ShaderVarError(f"{block.owner}: '{path}' ({layout.name}) cannot use a texture of format "
                                 f"{texture.format.name} on the CPU ({access}): use a format with the element type's "
                                 "layout (e.g. RGBA32Float for float4, R32Uint for uint)")
        resource = texture
    desc = resource._kernel_desc(raw)
    lib = block.library.lib
    address = lib.falcorKernelCreateTexture(desc, dimensions, int(layout.is_array_texture), int(layout.writable))
    block.write_pointer(offset, address, None, _OwnedObject(address, lib.falcorKernelDestroyTexture, texture, sink))


class TextureAddressingMode(enum.Enum):
    Wrap = 0
    Mirror = 1
    Clamp = 2
    Border = 3
    MirrorOnce = 4


Filter = Union[int, _ext.TextureFilteringMode]
Addressing = Union[int, TextureAddressingMode]


class Sampler:
    """A texture sampler: filtering (TextureFilteringMode), addressing (TextureAddressingMode)
    and border color. Anisotropy, LOD bias/clamps and comparison are not applied on the CPU."""

    def __init__(self, min_filter: Filter = 1, mag_filter: Filter = 1, mip_filter: Filter = 1, address_u: Addressing = 2,
                 address_v: Addressing = 2, address_w: Addressing = 2,
                 border_color: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)) -> None:
        def as_int(v: Filter | Addressing) -> int:
            return int(v.value if isinstance(v, (_ext.TextureFilteringMode, TextureAddressingMode)) else v)
        self.values = [as_int(v) for v in (min_filter, mag_filter, mip_filter, address_u, address_v, address_w)]
        self.border_color = tuple(float(c) for c in border_color)

    def _desc(self) -> bytes:
        return np.array(self.values, np.uint32).tobytes() + np.array(self.border_color, np.float32).tobytes()


def bind_sampler(block: Block, offset: int, sampler, path: str) -> None:
    if not isinstance(sampler, Sampler):
        raise ShaderVarError(f"{block.owner}: '{path}' is a SamplerState; cannot bind {type(sampler).__name__} "
                             "(create one with device.create_sampler)")
    lib = block.library.lib
    address = lib.falcorKernelCreateSampler(sampler._desc())
    block.write_pointer(offset, address, None, _OwnedObject(address, lib.falcorKernelDestroySampler, sampler))
