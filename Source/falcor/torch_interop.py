"""PyTorch interop for buffers and textures. Torch is optional: it is imported when called."""
from __future__ import annotations

import numpy as np

from . import falcor_ext as _ext


def torch_module():
    try:
        import torch  # noqa: PLC0415 (optional dependency)
    except ImportError as e:
        raise ImportError("to_torch/from_torch need PyTorch (pip install torch); the engine runs without it") from e
    return torch


def cpu_array(tensor, what: str) -> np.ndarray:
    """A CPU tensor's contents as a contiguous numpy array; a clear error for other devices."""
    device = getattr(tensor, "device", None)
    if device is not None and device.type != "cpu":
        raise _ext.RuntimeError(f"{what}: the tensor is on '{device}'; the CPU engine takes CPU tensors "
                                "(use .cpu(), or create it without .cuda()).")
    return tensor.detach().contiguous().numpy()


def texture_to_torch(texture, mip_level: int = 0, array_slice: int = 0):
    """Mip 0 of slice 0 shares the texture's memory (DLPack, no copy); other subresources are copied."""
    torch = torch_module()
    if mip_level == 0 and array_slice == 0:
        return torch.from_dlpack(texture)
    return torch.from_numpy(texture.to_numpy(mip_level, array_slice))


def texture_from_torch(texture, tensor, mip_level: int = 0, array_slice: int = 0) -> None:
    """Copies a CPU tensor (Falcor's to_numpy shape and type) into a subresource."""
    texture.from_numpy(cpu_array(tensor, "Texture.from_torch"), mip_level, array_slice)

