"""Falcor's Buffer: raw bytes, typed (a ResourceFormat per element) or structured, in host memory.

Compute kernels (`falcor.ComputePass`) read and write the same memory that `to_numpy`,
`from_numpy`, `to_torch` and `from_torch` exchange, so there is one copy of the data. Torch is
optional (torch_interop.py).
"""
from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from . import falcor_ext as _ext
from .math_types import DataType
from .torch_interop import cpu_array, torch_module


class MemoryType(enum.Enum):
    DeviceLocal = 0
    Upload = 1
    ReadBack = 2


# Past its end a buffer carries this much zeroed memory, so a kernel's out-of-bounds access
# (redirected to element 0) of an element larger than the buffer stays in owned memory.
_SLACK_BYTES = 4096

_DATA_TYPES = {
    DataType.int8: np.int8, DataType.int16: np.int16, DataType.int32: np.int32, DataType.int64: np.int64,
    DataType.uint8: np.uint8, DataType.uint16: np.uint16, DataType.uint32: np.uint32, DataType.uint64: np.uint64,
    DataType.float16: np.float16, DataType.float32: np.float32, DataType.float64: np.float64,
}


class Buffer:
    """A buffer in host memory. `size` is in bytes."""

    def __init__(self, size: int, format: _ext.ResourceFormat | None = None, element_count: int = 0, struct_size: int = 0,
                 memory_type: MemoryType = MemoryType.DeviceLocal) -> None:
        if int(size) < 0:
            raise _ext.RuntimeError(f"Buffer: size {size} is negative.")
        self._storage = np.zeros(int(size) + _SLACK_BYTES + 64, np.uint8)
        start = (-self._storage.ctypes.data) % 64
        self._data = self._storage[start:start + int(size)]
        self.format = format
        self.element_count = int(element_count)
        self.struct_size = int(struct_size)
        self.memory_type = memory_type

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def is_typed(self) -> bool:
        return self.format is not None

    @property
    def is_structured(self) -> bool:
        return self.struct_size > 0

    def kernel_address(self) -> int:
        """Address of the first byte, for compute kernels."""
        return self._data.ctypes.data

    def _typed_view(self) -> np.ndarray:
        assert self.format is not None, "only typed buffers have a typed view"
        desc = _ext.get_format_desc(self.format)
        bits = desc["bits_per_channel"][0]
        kind = {"Float": "f", "Sint": "i", "Snorm": "i"}.get(desc["type"], "u")
        view = self._data.view(np.dtype(f"{kind}{bits // 8}"))
        return view if desc["channel_count"] == 1 else view.reshape(-1, desc["channel_count"])

    def to_numpy(self) -> np.ndarray:
        """A copy: (N) or (N, channels) of the format's type for typed buffers, else raw bytes."""
        return self._typed_view().copy() if self.is_typed else self._data.copy()

    def from_numpy(self, data: npt.ArrayLike) -> None:
        """Copies an array's bytes to the start of the buffer (it may be smaller than the buffer)."""
        raw = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        if raw.size > self._data.size:
            raise _ext.RuntimeError(f"Buffer.from_numpy: {raw.size} bytes don't fit in a buffer of {self._data.size} bytes.")
        self._data[: raw.size] = raw

    def to_torch(self, shape: Sequence[int] | None = None, dtype: DataType | npt.DTypeLike = DataType.float32) -> Any:
        """A CPU tensor sharing this buffer's memory (no copy): `shape` elements of `dtype`
        (a falcor.DataType). It aliases the buffer, so later kernel writes show through;
        `.clone()` it to keep a snapshot."""
        torch = torch_module()
        np_dtype = np.dtype(_DATA_TYPES[DataType(dtype)] if isinstance(dtype, DataType) else dtype)
        count = self._data.size // np_dtype.itemsize
        shape = [count] if shape is None else [int(s) for s in shape]
        needed = int(np.prod(shape)) * np_dtype.itemsize
        if needed > self._data.size:
            raise _ext.RuntimeError(f"Buffer.to_torch: shape {shape} of {np_dtype.name} needs {needed} bytes; "
                                    f"the buffer has {self._data.size}.")
        return torch.from_numpy(self._data[:needed].view(np_dtype).reshape(shape))

    def from_torch(self, tensor: Any) -> None:
        """Copies a CPU tensor's contents into the buffer."""
        self.from_numpy(cpu_array(tensor, "Buffer.from_torch"))

    def copy_to_torch(self, tensor: Any) -> None:
        """Copies the buffer's bytes into an existing CPU tensor."""
        target = tensor.detach().view(-1).numpy().view(np.uint8)
        if target.size > self._data.size:
            raise _ext.RuntimeError(f"Buffer.copy_to_torch: the tensor has {target.size} bytes; the buffer {self._data.size}.")
        target[:] = self._data[: target.size]

    def __array__(self, dtype: npt.DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        a = self._typed_view() if self.is_typed else self._data
        return a.astype(dtype) if dtype else a
