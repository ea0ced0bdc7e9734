"""TAA and SVGFPass in ms per 1920x1080 frame, on 1 and 2 threads.

Inputs are synthetic and written once by a Python source pass (benchmarks/common.py), so each
frame runs only the measured pass; times are `g.pass_times` (inside execute), the median of
FRAMES frames after warm-up frames: 1 for TAA, 4 for SVGF, whose history is then 4 frames long
everywhere (its spatial variance estimate for shorter histories then runs on disocclusions only;
its cost is the "SVGF first frame" line: the first frame after a reset, every pixel new). The
view moves by half a pixel per frame (constant motion vectors), so TAA's Catmull-Rom taps and
SVGF's bilinear reprojection do real work.
- TAA: Falcor's defaults; color in RGBA32Float, output in the graph's default BGRA8UnormSrgb.
- SVGFPass: Falcor's defaults (4 a-trous iterations, FeedbackTap 1); a plane with a normal bump
  and 1-spp-like noise.

Usage: PYTHONPATH=build/<dir>/python python benchmarks/temporal_passes.py [--frames N]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import common
import falcor

WIDTH, HEIGHT = 1920, 1080


def synthetic_inputs(rng: np.random.Generator) -> None:
    def image(values):
        return np.ascontiguousarray(np.broadcast_to(values, (HEIGHT, WIDTH, 4)), dtype=np.float32)

    y, x = np.mgrid[0:HEIGHT, 0:WIDTH] / HEIGHT
    normal = np.stack([np.sin(9 * x) * 0.3, np.cos(7 * y) * 0.3, np.ones_like(x), np.zeros_like(x)], -1)
    normal[..., :3] /= np.linalg.norm(normal[..., :3], axis=-1, keepdims=True)
    common.WriteOnceSource.images.update({
        "color": image(rng.random((HEIGHT, WIDTH, 4)) ** 4 * 4),  # Sparse bright samples, like 1 spp.
        "albedo": image(0.5),
        "emission": image(0.0),
        "posW": image(np.stack([x, y, np.zeros_like(x), np.ones_like(x)], -1)),
        "normW": image(normal),
        "pnFwidth": image(np.array([0.002, 0.01, 0, 0])),
        "linearZ": image(np.stack([5 + x, np.full_like(x, 0.002), np.zeros_like(x), np.zeros_like(x)], -1)),
        "mvec": image(np.array([0.5 / WIDTH, 0.5 / HEIGHT, 0, 0])),
    })


def graph(pass_type: str) -> falcor.RenderGraph:
    g = falcor.RenderGraph(pass_type)
    if pass_type == "TAA":
        g.create_pass("P", "TAA", {})
        edges = [("color", "colorIn"), ("mvec", "motionVecs")]
        g.mark_output("P.colorOut")
    else:
        g.create_pass("P", "SVGFPass", {})
        edges = [("albedo", "Albedo"), ("color", "Color"), ("emission", "Emission"), ("posW", "WorldPosition"), ("normW", "WorldNormal"),
                 ("pnFwidth", "PositionNormalFwidth"), ("linearZ", "LinearZ"), ("mvec", "MotionVec")]
        g.mark_output("P.Filtered image")
    for src, dst in edges:
        g.create_pass(src, "WriteOnceSource", {"key": src})
        g.add_edge(f"{src}.dst", f"P.{dst}")
    g.resize(WIDTH, HEIGHT)
    return g


WARMUP = {"TAA": 1, "SVGFPass": 4}


def measure(pass_type: str, threads: int, frames: int) -> tuple[float, list[float], list[float]]:
    """The first frame's time, and the pass times and process CPU times (ms, all threads) of
    `frames` frames after the warm-up. On a busy machine the CPU time is the steadier figure."""
    falcor.set_thread_count(threads)
    g = graph(pass_type)
    times, cpu = [], []
    for _ in range(WARMUP[pass_type] + frames):
        start = time.process_time()
        g.execute()
        cpu.append((time.process_time() - start) * 1000)
        times.append(dict(g.pass_times)["P"])
    return times[0], times[WARMUP[pass_type]:], cpu[WARMUP[pass_type]:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3)
    args = parser.parse_args()
    synthetic_inputs(np.random.default_rng(7))
    print(f"ms per {WIDTH}x{HEIGHT} frame (g.pass_times, median of {args.frames} after the warm-up frames; "
          f"CPU = process CPU time, all threads); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    for pass_type in ("TAA", "SVGFPass"):
        for threads in (1, 2):
            first, samples, cpu = measure(pass_type, threads, args.frames)
            print(f"{pass_type:9s} threads={threads}: {statistics.median(samples):8.1f} ms  (min {min(samples):.1f}, max {max(samples):.1f}), "
                  f"CPU {statistics.median(cpu):.1f} ms" + (f"; first frame {first:.1f} ms" if pass_type == "SVGFPass" else ""))


if __name__ == "__main__":
    main()
