"""Buffers and textures to and from numpy and PyTorch: one memory shared with kernels."""
import textwrap
from types import SimpleNamespace

import numpy as np
import pytest

import falcor


def test_buffer_numpy_round_trips():
    device = falcor.Device()
    typed = device.create_typed_buffer(falcor.ResourceFormat.RG32Float, 3)
    typed.from_numpy(np.arange(6, dtype=np.float32))
    assert typed.to_numpy().shape == (3, 2) and typed.to_numpy()[2].tolist() == [4, 5]
    structured = device.create_structured_buffer(struct_size=8, element_count=4)
    structured.from_numpy(np.array([7, 8], np.uint32))          # smaller data fills the start
    assert structured.to_numpy().view(np.uint32).tolist() == [7, 8, 0, 0, 0, 0, 0, 0]
    with pytest.raises(falcor.RuntimeError, match="don't fit"):
        structured.from_numpy(np.zeros(9, np.float32))
    assert structured.size == 32 and structured.is_structured and not structured.is_typed


def test_tensors_on_another_device_are_refused_by_name():
    gpu_tensor = SimpleNamespace(device=SimpleNamespace(type="cuda"))
    buffer = falcor.Device().create_buffer(16)
    with pytest.raises(falcor.RuntimeError, match="Buffer.from_torch: the tensor is on.*cuda.*CPU tensors"):
        buffer.from_torch(gpu_tensor)


def test_torch_views_share_memory_with_kernels(tmp_path):
    torch = pytest.importorskip("torch", reason="PyTorch interop is optional (pip install torch)")
    device = falcor.Device()
    path = tmp_path / "k.cs.slang"
    path.write_text(textwrap.dedent("""
        RWStructuredBuffer<float> values;
        RWTexture2D<float4> image;
        [numthreads(4, 4, 1)]
        void main(uint3 tid: SV_DispatchThreadID)
        {
            values[tid.y * 4 + tid.x] *= 2;
            image[tid.xy] = float4(tid.x, tid.y, 0, 1);
        }
    """))
    k = falcor.ComputePass(device, file=path)
    values = device.create_structured_buffer(struct_size=4, element_count=16)
    values.from_torch(torch.arange(16, dtype=torch.float32))
    image = device.create_texture(width=4, height=4, format=falcor.ResourceFormat.RGBA32Float, mip_levels=1)
    k.globals.values, k.globals.image = values, image
    view = values.to_torch([4, 4], falcor.float32)
    pixels = image.to_torch()
    k.execute(4, 4)
    assert view.flatten().tolist() == [2.0 * i for i in range(16)]         # the kernel's writes show through
    assert pixels.shape == (4, 4, 4) and pixels[2, 3].tolist() == [3, 2, 0, 1]
    image.from_torch(torch.zeros(4, 4, 4))
    assert float(pixels.abs().sum()) == 0
    with pytest.raises(falcor.RuntimeError, match="needs 128 bytes"):
        values.to_torch([32], falcor.float32)
