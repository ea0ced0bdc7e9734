"""Fits an image with 2D Gaussians: Slang kernels render it and differentiate it (bwd_diff),
PyTorch optimizes, buffers go between them with from_torch/to_torch.

The structure of Falcor's scripts/python/gaussian2d example, on the CPU: tensors stay on the
CPU where Falcor's script calls `.cuda()` (the one change such scripts need). Sizes and the
target image come from the environment so tests can run it small:
GAUSSIAN2D_BLOBS, GAUSSIAN2D_RESOLUTION, GAUSSIAN2D_ITERATIONS, GAUSSIAN2D_TARGET (an image
file; default: a procedural picture).
"""
import os
from pathlib import Path

import numpy as np
import torch
from PIL import Image

import falcor

HERE = Path(__file__).parent
BLOB_COUNT = int(os.environ.get("GAUSSIAN2D_BLOBS", 1024))
RESOLUTION = int(os.environ.get("GAUSSIAN2D_RESOLUTION", 256))
ITERATIONS = int(os.environ.get("GAUSSIAN2D_ITERATIONS", 400))
TARGET = os.environ.get("GAUSSIAN2D_TARGET")


class Splat2D:
    """The forward and backward kernels and their buffers."""

    def __init__(self, device):
        self.device = device
        access = (falcor.ResourceBindFlags.ShaderResource | falcor.ResourceBindFlags.UnorderedAccess
                  | falcor.ResourceBindFlags.Shared)
        self.blobs = device.create_structured_buffer(struct_size=32, element_count=BLOB_COUNT, bind_flags=access)
        self.grad_blobs = device.create_structured_buffer(struct_size=32, element_count=BLOB_COUNT, bind_flags=access)
        pixels = RESOLUTION * RESOLUTION
        self.image = device.create_structured_buffer(struct_size=12, element_count=pixels, bind_flags=access)
        self.grad_image = device.create_structured_buffer(struct_size=12, element_count=pixels, bind_flags=access)
        self.forward_pass = falcor.ComputePass(device, file=HERE / "splat2d.cs.slang", cs_entry="forward_main")
        self.backward_pass = falcor.ComputePass(device, file=HERE / "splat2d.cs.slang", cs_entry="backward_main")

    def forward(self, blobs):
        self.blobs.from_torch(blobs.detach())
        self.device.render_context.wait_for_cuda()
        v = self.forward_pass.globals.forward
        v.blobs, v.blob_count, v.image = self.blobs, BLOB_COUNT, self.image
        v.resolution = falcor.uint2(RESOLUTION, RESOLUTION)
        self.forward_pass.execute(threads_x=RESOLUTION, threads_y=RESOLUTION)
        self.device.render_context.wait_for_falcor()
        # The tensor aliases the buffer: clone so the next forward pass does not change it.
        return self.image.to_torch([RESOLUTION, RESOLUTION, 3], falcor.float32).clone()

    def backward(self, blobs, grad_image):
        self.grad_blobs.from_torch(torch.zeros([BLOB_COUNT, 8]))
        self.blobs.from_torch(blobs.detach())
        self.grad_image.from_torch(grad_image.detach())
        v = self.backward_pass.globals.backward
        v.blobs, v.grad_blobs, v.blob_count, v.grad_image = self.blobs, self.grad_blobs, BLOB_COUNT, self.grad_image
        v.resolution = falcor.uint2(RESOLUTION, RESOLUTION)
        self.backward_pass.execute(threads_x=RESOLUTION, threads_y=RESOLUTION)
        return self.grad_blobs.to_torch([BLOB_COUNT, 8], falcor.float32).clone()


class Splat2DFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, blobs):
        ctx.save_for_backward(blobs)
        return splat2d.forward(blobs)

    @staticmethod
    def backward(ctx, grad_image):
        return splat2d.backward(ctx.saved_tensors[0], grad_image)


def target_image() -> torch.Tensor:
    if TARGET:
        picture = Image.open(TARGET).convert("RGB").resize([RESOLUTION, RESOLUTION])
        return torch.from_numpy(np.asarray(picture).astype(np.float32) / 255.0)
    # A few soft colored shapes on a gradient.
    y, x = np.mgrid[0:RESOLUTION, 0:RESOLUTION] / RESOLUTION
    r = np.clip(1.5 - 6 * np.hypot(x - 0.35, y - 0.4), 0, 1)
    g = 0.6 * y + 0.4 * (np.abs(x - 0.7) < 0.12)
    b = np.clip(1.2 - 5 * np.hypot(x - 0.7, y - 0.75), 0, 1) + 0.2 * x
    return torch.from_numpy(np.stack([r, g, b], -1).astype(np.float32).clip(0, 1))


testbed = falcor.Testbed(create_window=True, width=RESOLUTION, height=RESOLUTION)
testbed.show_ui = False
device = testbed.device
testbed.render_texture = device.create_texture(width=RESOLUTION, height=RESOLUTION, format=falcor.ResourceFormat.RGB32Float,
                                               mip_levels=1, bind_flags=falcor.ResourceBindFlags.ShaderResource)
splat2d = Splat2D(device)

centers = torch.rand([BLOB_COUNT, 2])
log_scales = torch.log(torch.ones([BLOB_COUNT, 2]) * 0.02)
angles = torch.rand([BLOB_COUNT, 1]) * (2 * np.pi)
colors = torch.rand([BLOB_COUNT, 3]) * 0.5 + 0.25
params = (centers, log_scales, colors, angles)
for p in params:
    p.requires_grad = True
target = target_image()
losses: list[float] = []


def optimize():
    optimizer = torch.optim.Adam(params, lr=0.01)
    for iteration in range(ITERATIONS):
        optimizer.zero_grad()
        blobs = torch.concat((centers, torch.exp(log_scales), torch.sigmoid(colors), angles), dim=1)
        image = Splat2DFunction.apply(blobs)
        loss = torch.nn.functional.l1_loss(image, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if iteration % 5 == 0:
            print(f"iteration={iteration}, loss={loss.item():.5f}")
            testbed.render_texture.from_numpy(torch.pow(image.detach(), 2.2).numpy())
            testbed.frame()
            if testbed.should_close:
                break


optimize()
