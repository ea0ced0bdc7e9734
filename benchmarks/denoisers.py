"""OptixDenoiser and NRD (the CPU replacements over Intel Open Image Denoise) in ms per 1920x1080
frame, on 1 and 2 threads.

Inputs are synthetic and written once by a Python source pass (benchmarks/common.py), so each
frame runs only the denoisers; times are `g.pass_times` (inside execute), the median of FRAMES
frames after one warm-up frame (OIDN builds its filter on the first), with the cores the process
got (CPU time / wall time over those frames: the machine may be shared). The Cornell box is loaded
only because both passes, like Falcor's, denoise only when a scene is set.
- OptixDenoiser: model 'HDR' with the albedo and normal guides (one RT filter).
- NRD: method 'RelaxDiffuseSpecular' (two RT filters, diffuse and specular, with normal guides).

Usage: PYTHONPATH=build/<dir>/python python benchmarks/denoisers.py [--frames N]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import common
import falcor

WIDTH, HEIGHT = 1920, 1080


def synthetic_inputs(rng: np.random.Generator) -> None:
    def image(values):
        return np.ascontiguousarray(values, dtype=np.float32)

    noise = rng.random((HEIGHT, WIDTH, 4)) ** 8 * 20  # Sparse fireflies over a dim background, like 1 spp.
    normal = np.zeros((HEIGHT, WIDTH, 4)); normal[..., 2] = 1
    common.WriteOnceSource.images.update({
        "color": image(noise), "albedo": image(np.full((HEIGHT, WIDTH, 4), 0.5)), "normal": image(normal),
        "packedNormal": image(np.full((HEIGHT, WIDTH, 4), 0.5)),  # Octahedral (0.5, 0.5) = +z, roughness 0.5.
        "viewZ": image(np.full((HEIGHT, WIDTH, 4), 3.0)), "mvec": image(np.zeros((HEIGHT, WIDTH, 4))),
    })


def graph(denoiser: str) -> falcor.RenderGraph:
    g = falcor.RenderGraph(denoiser)
    for key in common.WriteOnceSource.images:
        g.create_pass(key, "WriteOnceSource", {"key": key})
    if denoiser == "OptixDenoiser":
        g.create_pass("D", "OptixDenoiser", {"model": "HDR"})
        edges = [("color", "color"), ("albedo", "albedo"), ("normal", "normal")]
        g.mark_output("D.output")
    else:
        g.create_pass("D", "NRD", {"method": "RelaxDiffuseSpecular"})
        edges = [("color", "diffuseRadianceHitDist"), ("color", "specularRadianceHitDist"), ("viewZ", "viewZ"),
                 ("packedNormal", "normWRoughnessMaterialID"), ("mvec", "mvec")]
        g.mark_output("D.filteredDiffuseRadianceHitDist")
        g.mark_output("D.filteredSpecularRadianceHitDist")
    for src, dst in edges:
        g.add_edge(f"{src}.dst", f"D.{dst}")
    return g


def measure(denoiser: str, threads: int, frames: int) -> tuple[list[float], float]:
    falcor.set_thread_count(threads)
    m = falcor.Renderer(WIDTH, HEIGHT)
    g = graph(denoiser)
    m.addGraph(g)
    m.loadScene(str(common.REPO_ROOT / "Scenes" / "CornellBox.pyscene"))
    m.clock.pause()
    m.renderFrame()
    samples = []
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(frames):
        m.renderFrame()
        samples.append(dict(g.pass_times)["D"])
    return samples, (time.process_time() - cpu) / (time.perf_counter() - wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=3)
    args = parser.parse_args()
    synthetic_inputs(np.random.default_rng(7))
    print(f"ms per {WIDTH}x{HEIGHT} frame (g.pass_times, median of {args.frames} after a warm-up frame)")
    for denoiser in ("OptixDenoiser", "NRD"):
        for threads in (1, 2):
            samples, cores = measure(denoiser, threads, args.frames)
            print(f"{denoiser:14s} threads={threads}: {statistics.median(samples):8.1f} ms  (min {min(samples):.1f}, "
                  f"max {max(samples):.1f}; cores used {cores:.2f})")


if __name__ == "__main__":
    main()
