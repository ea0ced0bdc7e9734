"""DLSSPass (the CPU temporal upscaler standing in for NVIDIA DLSS) in ms per frame, 960x540 input
upscaled to 1920x1080 output, on 1 and 2 threads.

Inputs are synthetic and written once by a Python source pass (benchmarks/common.py), so each
frame runs only the upscaler; times are `g.pass_times` (inside execute), the median of FRAMES
frames after one warm-up frame (the first has no history), with the cores the process got (CPU
time / wall time over those frames: the machine may be shared). The Cornell box is loaded only
because the pass, like Falcor's, upscales only when a scene is set (its camera gives the jitter).
Color is HDR noise over a gradient; the view moves by 0.3 input pixels per frame (constant motion
vectors, 'Relative'), so the history is reprojected with Catmull-Rom and clamped everywhere (a
still view reads its history without filtering: the "still" line).
- "default": Falcor's defaults (isHDR, sharpness 0); "sharpened": sharpness 0.5; "still": defaults, no motion.

Usage: PYTHONPATH=build/<dir>/python python benchmarks/dlss.py [--frames N]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import common
import falcor

IN_WIDTH, IN_HEIGHT = 960, 540
OUT_WIDTH, OUT_HEIGHT = 1920, 1080
VARIANTS = {"default": ({}, 0.3), "sharpened": ({"sharpness": 0.5}, 0.3), "still": ({}, 0.0)}


def synthetic_inputs(rng: np.random.Generator, motion_pixels: float) -> None:
    y, x = np.mgrid[0:IN_HEIGHT, 0:IN_WIDTH] / IN_HEIGHT
    color = np.stack([x, y, np.full_like(x, 0.5), np.ones_like(x)], -1) + (rng.random((IN_HEIGHT, IN_WIDTH, 4)) ** 8) * 10
    depth = np.broadcast_to(np.stack([0.9 + 0.05 * x, np.zeros_like(x), np.zeros_like(x), np.zeros_like(x)], -1), color.shape)
    mvec = np.broadcast_to(np.array([motion_pixels / IN_WIDTH, motion_pixels / IN_HEIGHT, 0, 0]), color.shape)
    common.WriteOnceSource.images.update({name: np.ascontiguousarray(img, dtype=np.float32)
                                          for name, img in (("color", color), ("depth", depth), ("mvec", mvec))})


def graph(props: dict) -> falcor.RenderGraph:
    g = falcor.RenderGraph("DLSS")
    g.create_pass("D", "DLSSPass", {"motionVectorScale": "Relative", **props})
    for key in ("color", "depth", "mvec"):
        g.create_pass(key, "WriteOnceSource", {"key": key})
        g.add_edge(f"{key}.dst", f"D.{key}")
    g.mark_output("D.output")
    return g


def measure(props: dict, threads: int, frames: int) -> tuple[list[float], float, float]:
    """Pass times (ms) of `frames` frames after a warm-up, the cores the process got meanwhile, and
    its CPU ms per frame (all threads): on a shared machine the steadier figure."""
    falcor.set_thread_count(threads)
    m = falcor.Renderer(OUT_WIDTH, OUT_HEIGHT)
    g = graph(props)
    m.addGraph(g)
    m.loadScene(str(common.REPO_ROOT / "Scenes" / "CornellBox.pyscene"))
    m.clock.pause()
    m.renderFrame()
    output = g.getOutput("D.output")
    assert (output.width, output.height) == (OUT_WIDTH, OUT_HEIGHT)
    samples = []
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(frames):
        m.renderFrame()
        samples.append(dict(g.pass_times)["D"])
    cpu_seconds = time.process_time() - cpu
    return samples, cpu_seconds / (time.perf_counter() - wall), cpu_seconds * 1000 / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3)
    args = parser.parse_args()
    print(f"ms per frame, {IN_WIDTH}x{IN_HEIGHT} -> {OUT_WIDTH}x{OUT_HEIGHT} (g.pass_times, median of {args.frames} after a warm-up frame)")
    for name, (props, motion) in VARIANTS.items():
        synthetic_inputs(np.random.default_rng(7), motion)
        for threads in (1, 2):
            samples, cores, cpu_ms = measure(props, threads, args.frames)
            print(f"DLSSPass {name:9s} threads={threads}: {statistics.median(samples):8.1f} ms  (min {min(samples):.1f}, "
                  f"max {max(samples):.1f}; cores used {cores:.2f}; CPU {cpu_ms:.1f} ms per frame)")


if __name__ == "__main__":
    main()
