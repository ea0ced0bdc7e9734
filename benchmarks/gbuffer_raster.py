"""Rasterized against ray-traced G-buffers in ms per 1920x1080 frame, on 1 and 2 threads.

Scenes: the Cornell box (Scenes/CornellBox.pyscene, 32 triangles) and the ~1M-triangle terrain of
benchmarks/pathtracer_mitsuba.py (999,698 triangles, written to a temporary folder). Pairs:
- GBufferRaster vs GBufferRT (forceCullMode Back, so both drop the same faces) writing the same
  G-buffer: posW, normW, faceNormalW, texC, mvec, vbuffer, diffuseOpacity, specRough, depth;
- VBufferRaster vs VBufferRT (forceCullMode Back): vbuffer and depth, i.e. visibility alone (the
  rasterizer against the BVH traversal, plus barycentrics and packing per pixel).
Times are `g.pass_times` (inside execute), the median of FRAMES frames after one warm-up frame,
with the cores the process got (CPU time / wall time over those frames: the machine may be shared)
and the CPU time per frame (on a shared machine the steadier measure of the work).

Usage: PYTHONPATH=build/<dir>/python python benchmarks/gbuffer_raster.py [--frames N] [--scenes cornell,terrain]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import common
import falcor
from pathtracer_mitsuba import write_terrain_scene

WIDTH, HEIGHT = 1920, 1080
GBUFFER_OUTPUTS = ["posW", "normW", "faceNormalW", "texC", "mvec", "vbuffer", "diffuseOpacity", "specRough", "depth"]
VBUFFER_OUTPUTS = ["vbuffer", "depth"]
PASSES = [
    ("GBufferRaster", {}, GBUFFER_OUTPUTS),
    ("GBufferRT", {"forceCullMode": True, "cull": "Back"}, GBUFFER_OUTPUTS),
    ("VBufferRaster", {}, VBUFFER_OUTPUTS),
    ("VBufferRT", {"forceCullMode": True, "cull": "Back"}, VBUFFER_OUTPUTS),
]


def measure(scene: Path, pass_type: str, props: dict, outputs: list[str], threads: int, frames: int) -> tuple[list[float], float, float]:
    falcor.set_thread_count(threads)
    m = falcor.Renderer(WIDTH, HEIGHT)
    g = falcor.RenderGraph(pass_type)
    g.create_pass("P", pass_type, props)
    for o in outputs:
        g.mark_output(f"P.{o}")
    m.addGraph(g)
    m.loadScene(str(scene))
    m.clock.pause()
    m.renderFrame()
    samples = []
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(frames):
        m.renderFrame()
        samples.append(dict(g.pass_times)["P"])
    cpu = time.process_time() - cpu
    return samples, cpu / (time.perf_counter() - wall), 1000 * cpu / frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3)
    parser.add_argument("--scenes", default="cornell,terrain")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scenes = {"cornell": common.REPO_ROOT / "Scenes" / "CornellBox.pyscene"}
        if "terrain" in args.scenes:
            scenes["terrain"] = write_terrain_scene(Path(tmp))
        print(f"ms per {WIDTH}x{HEIGHT} frame (g.pass_times, median of {args.frames} after a warm-up frame)")
        for name in args.scenes.split(","):
            for pass_type, props, outputs in PASSES:
                for threads in (1, 2):
                    samples, cores, cpu_ms = measure(scenes[name], pass_type, props, outputs, threads, args.frames)
                    print(f"{name:8s} {pass_type:14s} threads={threads}: {statistics.median(samples):8.1f} ms  "
                          f"(min {min(samples):.1f}, max {max(samples):.1f}; cores used {cores:.2f}; CPU {cpu_ms:.0f} ms/frame)",
                          flush=True)


if __name__ == "__main__":
    main()
