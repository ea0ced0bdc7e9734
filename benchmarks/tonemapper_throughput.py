"""ToneMapper throughput in megapixels per second, with a numpy ACES reference for scale.

A Python source pass writes a synthetic HDR image (RGBA32Float) once; afterwards each frame only
runs the ToneMapper, whose time is read from `g.pass_times` (time inside its execute). Operators
Aces and Reinhard, autoExposure off/on, output RGBA8UnormSrgb and RGBA32Float, at 1920x1080 and
3840x2160, on each thread count. The machine may be shared: each measurement also records how
many cores the process got (CPU time / wall time) and is retried when that falls short.

Reference: the same image through numpy, written out from Falcor's ToneMapping shader for the
default settings (exposure 1, no white balance): color *= 0.6, then per channel
saturate(x(2.51x + 0.03) / (x(2.43x + 0.59) + 0.14)), then sRGB-encoded to uint8 (alpha to uint8
as is). The ratio is numpy time / ToneMapper time for ToneMapper {Aces, no autoExposure,
RGBA8UnormSrgb}; the largest difference between the two uint8 images is printed as a check that
both compute the same thing.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np

import common
import falcor

SIZES = [(1920, 1080), (3840, 2160)]
OPERATORS = ["Aces", "Reinhard"]
AUTO_EXPOSURE = [False, True]
FORMATS = ["RGBA8UnormSrgb", "RGBA32Float"]
MAX_TRIES = 3
RETRY_BUDGET_S = 40.0  # Total time all retries may take, so a busy machine can't stretch the run much.


def hdr_image(width: int, height: int) -> np.ndarray:
    """Deterministic HDR test image: log-normal radiance (median ~0.6, a few values above 50), alpha 1."""
    rng = np.random.default_rng(2024)
    img = np.ones((height, width, 4), np.float32)
    img[..., :3] = rng.lognormal(mean=-0.5, sigma=1.5, size=(height, width, 3))
    return img


def numpy_aces_srgb8(img: np.ndarray) -> np.ndarray:
    """Falcor's ACES tone mapping at default exposure, then sRGB-encoded to uint8, in float32 numpy."""
    x = img[..., :3] * np.float32(0.6)
    y = (x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14)
    np.clip(y, 0.0, 1.0, out=y)
    srgb = np.where(y <= 0.0031308, y * 12.92, 1.055 * np.power(y, 1 / 2.4) - 0.055)
    out = np.empty(img.shape, np.uint8)
    out[..., :3] = srgb * 255 + 0.5
    out[..., 3] = np.clip(img[..., 3], 0.0, 1.0) * 255 + 0.5
    return out


def build_graph(key: str, size: tuple[int, int], operator: str, auto_exposure: bool, fmt: str) -> falcor.RenderGraph:
    g = falcor.RenderGraph("ToneMapperBench")
    g.create_pass("Source", "WriteOnceSource", {"key": key})
    g.create_pass("ToneMapper", "ToneMapper", {"operator": operator, "autoExposure": auto_exposure, "outputFormat": fmt})
    g.add_edge("Source.dst", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    g.resize(*size)
    return g


def tone_mapper_ms(g: falcor.RenderGraph, repeats: int) -> tuple[common.Stats, float]:
    """ToneMapper execute time per frame, after one warm-up frame (which also fills the source),
    and the cores the process got meanwhile (CPU time / wall time)."""
    g.execute()
    samples = []
    cpu, wall = common.cpu_seconds(), time.perf_counter()
    for _ in range(repeats):
        g.execute()
        samples.append(dict(g.pass_times)["ToneMapper"])
    cores = (common.cpu_seconds() - cpu) / (time.perf_counter() - wall)
    return common.Stats.of(samples), cores


@dataclass
class RetryBudget:
    seconds: float


def measure_uncontended(g: falcor.RenderGraph, threads: int, repeats: int, budget: RetryBudget) -> tuple[common.Stats, float, int]:
    """Measures up to MAX_TRIES times while the process got under 90% of `threads` cores (other
    work on the machine) and retry time is left in `budget`; keeps the try that got the most
    cores. Returns (stats, cores, tries)."""
    best = None
    for tries in range(1, MAX_TRIES + 1):
        start = time.monotonic()
        ms, cores = tone_mapper_ms(g, repeats)
        if tries > 1:
            budget.seconds -= time.monotonic() - start
        if best is None or cores > best[1]:
            best = (ms, cores)
        if cores >= 0.9 * threads or budget.seconds <= 0:
            break
    return best[0], best[1], tries


def run(threads: list[int], repeats: int) -> tuple[list[dict], list[dict]]:
    results, references = [], []
    retry_budget = RetryBudget(RETRY_BUDGET_S)
    for size in SIZES:
        key = f"{size[0]}x{size[1]}"
        common.WriteOnceSource.images[key] = img = hdr_image(*size)
        megapixels = size[0] * size[1] / 1e6
        numpy_out = numpy_aces_srgb8(img)
        numpy_ms = common.measure(lambda: numpy_aces_srgb8(img), repeats=max(3, repeats // 2), warmup=0)
        for operator, auto_exposure, fmt in itertools.product(OPERATORS, AUTO_EXPOSURE, FORMATS):
            g = build_graph(key, size, operator, auto_exposure, fmt)
            for n in threads:
                common.set_threads(n)
                ms, cores, tries = measure_uncontended(g, n, repeats, retry_budget)
                results.append({"size": key, "threads": n, "operator": operator, "autoExposure": auto_exposure, "format": fmt,
                                "ms": ms, "megapixels_per_s": megapixels / (ms.median * 1e-3), "cores_used": cores, "tries": tries})
                if (operator, auto_exposure, fmt) == ("Aces", False, "RGBA8UnormSrgb"):
                    engine_out = np.asarray(g.get_output("ToneMapper.dst"))
                    max_diff = int(np.abs(engine_out.astype(np.int16) - numpy_out).max())
                    references.append({"size": key, "threads": n, "numpy_ms": numpy_ms, "tone_mapper_ms": ms.median,
                                       "numpy_over_tone_mapper": numpy_ms.median / ms.median, "max_diff_lsb": max_diff})
            del g
        del common.WriteOnceSource.images[key]
    return results, references


def print_results(results: list[dict], references: list[dict]) -> None:
    threads = sorted({r["threads"] for r in results})
    configs = {}  # (size, operator, autoExposure, format) -> {threads: result}, in run order
    for r in results:
        configs.setdefault((r["size"], r["operator"], r["autoExposure"], r["format"]), {})[r["threads"]] = r
    columns = ["size", "operator", "autoExp", "output"]
    for n in threads:
        columns += [f"ms@{n}", f"spread%@{n}", f"MP/s@{n}", f"cores@{n}", f"tries@{n}"]
    if len(threads) > 1:
        columns.append(f"speedup {threads[-1]}/{threads[0]}")
    rows = []
    for (size, operator, auto_exposure, fmt), by_threads in configs.items():
        row = [size, operator, "on" if auto_exposure else "off", fmt]
        for n in threads:
            r = by_threads[n]
            row += [r["ms"].median, r["ms"].spread() * 100, r["megapixels_per_s"], r["cores_used"], r["tries"]]
        if len(threads) > 1:
            row.append(by_threads[threads[0]]["ms"].median / by_threads[threads[-1]]["ms"].median)
        rows.append(row)
    common.print_table("ToneMapper execute time (g.pass_times, median over frames; spread = (max-min)/median), throughput at the "
                       "median, cores the process got (CPU time / wall time; below the thread count = machine busy; "
                       f"re-measured up to {MAX_TRIES} tries within {RETRY_BUDGET_S:.0f} s of retries in all, keeping the try "
                       "with the most cores)", columns, rows)
    rows = [[r["size"], r["threads"], r["numpy_ms"].median, r["tone_mapper_ms"], r["numpy_over_tone_mapper"], r["max_diff_lsb"]]
            for r in references]
    common.print_table("numpy ACES + sRGB8 reference vs ToneMapper {Aces, autoExposure off, RGBA8UnormSrgb}",
                       ["size", "threads", "numpy ms", "ToneMapper ms", "numpy/ToneMapper", "max diff (LSB)"], rows)


def main() -> None:
    args = common.argument_parser(__doc__.splitlines()[0]).parse_args()
    env = common.environment()
    print(common.environment_line(env))
    results, references = run(common.thread_counts(args.threads), args.repeats or 5)
    print_results(results, references)
    common.write_json(args.json, env, results=results, numpy_reference=references)


if __name__ == "__main__":
    main()
