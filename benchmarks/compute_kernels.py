"""Compute kernels from Python: falcor.ComputePass against numpy and slangpy's CPU device.

The same Slang kernels (benchmarks/kernels/) run through our dispatch on 1 and 2 threads and
through slangpy's CPU device; numpy computes the same images vectorized over pixels. Every
engine's output is checked against ours before its time is reported.

    PYTHONPATH=build/dev/python python benchmarks/compute_kernels.py --threads 1,2
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import falcor
from common import argument_parser, cpu_seconds, environment, environment_line, measure, print_table, set_threads, \
    thread_counts, write_json

KERNELS = Path(__file__).resolve().parent / "kernels"
SHADER_LIBRARY = Path(falcor.__file__).resolve().parent / "shaders"


def jenkins_hash(a: np.ndarray) -> np.ndarray:
    a = a.astype(np.uint32)
    with np.errstate(over="ignore"):
        for add, shift, op in [(0x7ED55D16, 12, "+"), (0xC761C23C, 19, "^"), (0x165667B1, 5, "+"),
                               (0xD3A2646C, 9, "^+"), (0xFD7046C5, 3, "+"), (0xB55A4F09, 16, "^")]:
            if op == "+":
                a = (a + np.uint32(add)) + (a << np.uint32(shift))
            elif op == "^":
                a = (a ^ np.uint32(add)) ^ (a >> np.uint32(shift))
            else:
                a = (a + np.uint32(add)) ^ (a << np.uint32(shift))
    return a


class Balls:
    name, file, entry = "balls render 1024x1024, 100 balls", "balls_render.slang", "render"
    resolution, count, radius = 1024, 100, 0.1

    def __init__(self, rng):
        self.balls = (rng.random((self.count, 4), dtype=np.float32) * 2 - 1).astype(np.float32)

    def bind_ours(self, device, kernel):
        buf = device.create_structured_buffer(struct_size=16, element_count=self.count)
        buf.from_numpy(self.balls)
        self.texture = device.create_texture(width=self.resolution, height=self.resolution,
                                             format=falcor.ResourceFormat.RGBA32Float, mip_levels=1)
        g = kernel.globals
        g.g_balls, g.g_ball_count, g.g_ball_radius = buf, self.count, self.radius
        g.g_resolution, g.g_output = self.resolution, self.texture
        return lambda: self.texture.to_numpy()[..., :3]

    def bind_slangpy(self, spy, device):
        buf = device.create_buffer(element_count=self.count, struct_size=16, usage=spy.BufferUsage.shader_resource,
                                   data=self.balls)
        tex = device.create_texture(format=spy.Format.rgba32_float, width=self.resolution, height=self.resolution,
                                    usage=spy.TextureUsage.unordered_access | spy.TextureUsage.shader_resource)
        vars = dict(g_balls=buf, g_ball_count=self.count, g_ball_radius=self.radius, g_output=tex,
                    g_resolution=self.resolution)
        return vars, lambda: tex.to_numpy()[..., :3]

    def numpy(self) -> np.ndarray:
        n, r = self.resolution, np.float32(self.radius)
        y, x = np.mgrid[0:n, 0:n].astype(np.float32)
        px, py = x / np.float32(n) * 2 - 1, y / np.float32(n) * 2 - 1
        colors = jenkins_hash(np.arange(self.count))
        rgb = np.stack([colors & 255, (colors >> 8) & 255, (colors >> 16) & 255], -1).astype(np.float32) / 255
        image = np.zeros((n, n, 3), np.float32)
        for i, (bx, by) in enumerate(self.balls[:, :2]):
            d = np.hypot(bx - px, by - py)
            t = np.clip((d - r) / (np.float32(0.8) * r - r), 0, 1)
            weight = np.where(d < r, t * t * (3 - 2 * t), 0).astype(np.float32)
            image += weight[..., None] * rgb[i]
        return image


class Splat:
    name, file, entry = "gaussian splat 512x512, 256 Gaussians", "splat_forward.slang", "splat"
    resolution, count = 512, 256

    def __init__(self, rng):
        b = np.zeros((self.count, 8), np.float32)
        b[:, :2] = rng.random((self.count, 2))
        b[:, 2:4] = 0.01 + 0.05 * rng.random((self.count, 2))
        b[:, 4:7] = rng.random((self.count, 3))
        b[:, 7] = rng.random(self.count) * 2 * np.pi
        self.blobs = b

    def bind_ours(self, device, kernel):
        buf = device.create_structured_buffer(struct_size=32, element_count=self.count)
        buf.from_numpy(self.blobs)
        self.image = device.create_structured_buffer(struct_size=16, element_count=self.resolution ** 2)
        g = kernel.globals
        g.g_blobs, g.g_blob_count, g.g_resolution, g.g_image = buf, self.count, self.resolution, self.image
        return lambda: self.image.to_numpy().view(np.float32).reshape(self.resolution, self.resolution, 4)[..., :3]

    def bind_slangpy(self, spy, device):
        buf = device.create_buffer(element_count=self.count, struct_size=32, usage=spy.BufferUsage.shader_resource,
                                   data=self.blobs)
        image = device.create_buffer(element_count=self.resolution ** 2, struct_size=16,
                                     usage=spy.BufferUsage.unordered_access | spy.BufferUsage.shader_resource)
        vars = dict(g_blobs=buf, g_blob_count=self.count, g_resolution=self.resolution, g_image=image)
        n = self.resolution
        return vars, lambda: image.to_numpy().view(np.float32).reshape(n, n, 4)[..., :3]

    def numpy(self) -> np.ndarray:
        n = self.resolution
        y, x = np.mgrid[0:n, 0:n].astype(np.float32) / np.float32(n)
        image = np.zeros((n, n, 3), np.float32)
        for cx, cy, sx, sy, r, g, b, angle in self.blobs:
            c, s = np.cos(angle), np.sin(angle)
            dx, dy = x - cx, y - cy
            lx, ly = (c * dx + s * dy) / sx, (-s * dx + c * dy) / sy
            image += np.exp(np.float32(-0.5) * (lx * lx + ly * ly))[..., None] * np.array([r, g, b], np.float32)
        return image


def timed(run, repeats: int):
    """Median wall time (ms) and CPU time per wall time (how many cores the run kept busy)."""
    stats = measure(run, repeats)
    wall, cpu = time.perf_counter(), cpu_seconds()
    run()
    busy = (cpu_seconds() - cpu) / max(time.perf_counter() - wall, 1e-9)
    return stats, busy


def compile_times(device, case) -> list:
    """Creating the ComputePass with an empty kernel cache (Slang + C++ compile) and again (cache hit)."""
    import os
    import tempfile
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        previous = os.environ.get("FALCOR_KERNEL_CACHE_DIR")
        os.environ["FALCOR_KERNEL_CACHE_DIR"] = cache
        try:
            for label in ("empty cache", "cache hit"):
                start = time.perf_counter()
                falcor.ComputePass(device, file=KERNELS / case.file, cs_entry=case.entry)
                rows.append([case.name, label, (time.perf_counter() - start) * 1000])
        finally:
            if previous is None:
                del os.environ["FALCOR_KERNEL_CACHE_DIR"]
            else:
                os.environ["FALCOR_KERNEL_CACHE_DIR"] = previous
    return rows


def main():
    args = argument_parser(__doc__.splitlines()[0]).parse_args()
    repeats = args.repeats or 5
    env = environment()
    print(environment_line(env))
    import slangpy as spy
    spy_device = spy.create_device(type=spy.DeviceType.cpu, include_paths=[KERNELS, SHADER_LIBRARY])
    device = falcor.Device()
    rows, results, compiles = [], [], []
    for case in (Balls(np.random.default_rng(1)), Splat(np.random.default_rng(2))):
        compiles += compile_times(device, case)
        kernel = falcor.ComputePass(device, file=KERNELS / case.file, cs_entry=case.entry)
        read_ours = case.bind_ours(device, kernel)
        n = case.resolution
        ours = {}
        for threads in thread_counts(args.threads):
            set_threads(threads)
            ours[threads] = timed(lambda: kernel.execute(n, n), repeats)
        reference = read_ours()

        numpy_image = case.numpy()
        numpy_error = float(np.abs(numpy_image - reference).max())
        numpy_stats = timed(case.numpy, max(1, repeats // 2))

        spy_kernel = spy_device.create_compute_kernel(spy_device.load_program(case.file, [case.entry]))
        spy_vars, read_spy = case.bind_slangpy(spy, spy_device)
        spy_run = lambda: (spy_kernel.dispatch(thread_count=[n, n, 1], vars=spy_vars), spy_device.wait())  # noqa: E731
        spy_stats = timed(spy_run, repeats)
        spy_error = float(np.abs(read_spy() - reference).max())

        base = ours[min(ours)][0].median
        for label, (stats, busy), error in ([(f"ours {t} thr", ours[t], 0.0) for t in sorted(ours)] +
                                            [("numpy", numpy_stats, numpy_error), ("slangpy CPU", spy_stats, spy_error)]):
            rows.append([case.name, label, stats.median, stats.spread(), busy, stats.median / base, error])
            results.append({"case": case.name, "engine": label, "ms": stats, "cores_busy": busy,
                            "max_abs_difference_from_ours": error})
    set_threads(max(thread_counts(args.threads)))
    print_table("Per-pixel kernels (ms per dispatch; ratio = time / ours on 1 thread; diff = max |output - ours|)",
                ["kernel", "engine", "median ms", "spread", "cores busy", "ratio", "diff"], rows)
    print_table("Creating a ComputePass (ms)", ["kernel", "kernel cache", "ms"], compiles)
    write_json(args.json, env, kernels=results, compile=[dict(zip(["kernel", "cache", "ms"], r)) for r in compiles])


if __name__ == "__main__":
    main()
