"""Render-graph overhead per frame: a chain of 10 passes at 1920x1080, RGBA32Float.

Graphs (each fed by `Source`, a Python pass that fills its output once and then returns at once):
  source-only   Source alone: the fixed cost of one g.execute() call from Python.
  cpp-trivial   Source -> 10 x AccumulatePass {maxFrameCount: 1}. After its first frame an
                AccumulatePass with a reached frame limit and overflowMode 'Stop' returns from
                execute without touching a pixel: the cheapest C++ pass there is.
  py-trivial    Source -> 10 x a Python pass whose execute is `pass`: adds the cost of calling
                into Python (GIL, pybind11 dispatch) per pass.
  blit          Source -> 10 x BlitPass (same size and format: one memcpy of 33 MB per pass), the
                cheapest pass that does real per-pixel work.

Per-pass overhead = (chain ms - source-only ms) / 10, minus the passes' own work where it is
measurable (`g.pass_times`, the time inside each pass's execute). Compile time is measured on a
fresh graph (first compile: includes allocating textures) and after `request_recompile()`
(recompile: textures come from the previous compilation's pool).
"""
from __future__ import annotations

import time

import numpy as np

import common
import falcor

WIDTH, HEIGHT = 1920, 1080
CHAIN_LENGTH = 10
FORMAT = falcor.ResourceFormat.RGBA32Float


class BenchNop(falcor.RenderPass):
    """Declares src -> dst and does nothing in execute."""

    def __init__(self, props):
        super().__init__()

    def reflect(self, compile_data):
        r = falcor.RenderPassReflection()
        r.add_input("src", "ignored")
        r.add_output("dst", "never written").format(FORMAT)
        return r

    def execute(self, render_context, render_data):
        pass


falcor.register_render_pass(BenchNop, "BenchNop")

# name -> (pass type, properties, input field, output field); None = no chain.
CHAINS = {
    "source-only": None,
    "cpp-trivial": ("AccumulatePass", {"maxFrameCount": 1, "overflowMode": "Stop"}, "input", "output"),
    "py-trivial": ("BenchNop", {}, "src", "dst"),
    "blit": ("BlitPass", {}, "src", "dst"),
}


def build_graph(chain: str) -> falcor.RenderGraph:
    g = falcor.RenderGraph(chain)
    common.WriteOnceSource.images.setdefault("gray", np.full((HEIGHT, WIDTH, 4), 0.5, np.float32))
    g.create_pass("Source", "WriteOnceSource", {"key": "gray"})
    last = "Source.dst"
    if CHAINS[chain]:
        pass_type, props, src, dst = CHAINS[chain]
        for i in range(CHAIN_LENGTH):
            g.create_pass(f"P{i}", pass_type, props)
            g.add_edge(last, f"P{i}.{src}")
            last = f"P{i}.{dst}"
    g.mark_output(last)
    g.resize(WIDTH, HEIGHT, FORMAT)
    return g


def frames_per_block(g: falcor.RenderGraph, seconds: float) -> int:
    """Frames that take about `seconds`, so timer resolution and call jitter don't matter."""
    for _ in range(3):  # Warm-up: first frames do the one-off work (Source fill, first accumulation).
        g.execute()
    start = time.perf_counter()
    for _ in range(10):
        g.execute()
    per_frame = (time.perf_counter() - start) / 10
    return max(5, int(seconds / per_frame))


def time_frames(g: falcor.RenderGraph, frames: int, samples: int) -> tuple[common.Stats, common.Stats]:
    """`samples` blocks of `frames` frames. Returns us/frame of g.execute() and us/frame spent inside
    the chain passes' execute (pass_times without Source), each as median/min over blocks."""
    frame_us, inside_us = [], []
    for _ in range(samples):
        total, inside_ms = 0.0, 0.0
        for _ in range(frames):
            start = time.perf_counter()
            g.execute()
            total += time.perf_counter() - start
            inside_ms += sum(ms for name, ms in g.pass_times if name != "Source")
        frame_us.append(total * 1e6 / frames)
        inside_us.append(inside_ms * 1e3 / frames)
    return common.Stats.of(frame_us), common.Stats.of(inside_us)


def time_compile(chain: str, samples: int) -> tuple[common.Stats, common.Stats, dict]:
    """First compile of fresh graphs (textures on fresh pages, as in a new process) and recompile
    of an already compiled one, ms."""
    first, graphs = [], []
    for _ in range(samples):
        g = build_graph(chain)
        common.return_free_memory_to_os()
        start = time.perf_counter()
        g.compile()
        first.append((time.perf_counter() - start) * 1e3)
        graphs.append(g)
    report = dict(graphs[-1].compile_report)
    del graphs[:-1]  # Release the other graphs' textures.
    g = graphs[0]

    def recompile():
        g.get_pass("Source").request_recompile()
        g.compile()

    again = common.measure(recompile, repeats=samples, warmup=1)
    return common.Stats.of(first), again, report


def run(threads: list[int], repeats: int) -> list[dict]:
    results = []
    for n in threads:
        common.set_threads(n)
        for chain in CHAINS:
            g = build_graph(chain)
            g.compile()
            frames = frames_per_block(g, 0.1)
            frame, inside = time_frames(g, frames, repeats)
            del g
            first, again, report = time_compile(chain, repeats)
            results.append({"threads": n, "chain": chain, "frames_per_sample": frames, "frame_us": frame,
                            "inside_passes_us": inside, "compile_first_ms": first, "recompile_ms": again,
                            "allocated_bytes": report["allocated_bytes"], "unshared_bytes": report["unshared_bytes"],
                            "texture_count": report["texture_count"], "resource_count": report["resource_count"]})
    derive_per_pass(results)
    return results


def derive_per_pass(results: list[dict]) -> None:
    """Adds per-pass figures: total cost, own work (inside execute), and overhead = the rest."""
    base = {r["threads"]: r["frame_us"].median for r in results if r["chain"] == "source-only"}
    for r in results:
        if r["chain"] == "source-only":
            continue
        added = r["frame_us"].median - base[r["threads"]]
        own = r["inside_passes_us"].median
        r["per_pass_total_us"] = added / CHAIN_LENGTH
        r["per_pass_own_work_us"] = own / CHAIN_LENGTH
        r["per_pass_overhead_us"] = (added - own) / CHAIN_LENGTH
        if r["chain"] == "blit":
            bytes_moved = 2 * WIDTH * HEIGHT * 16 * CHAIN_LENGTH  # read + write per copy
            r["blit_GBps"] = bytes_moved / (own * 1e-6) / 1e9


def print_results(results: list[dict]) -> None:
    mb = lambda b: b / 2**20
    rows = []
    for r in results:
        rows.append([r["threads"], r["chain"], r["frame_us"].median, r["frame_us"].min, r["frame_us"].spread() * 100,
                     r.get("per_pass_total_us", "-"), r.get("per_pass_own_work_us", "-"), r.get("per_pass_overhead_us", "-")])
    common.print_table(f"g.execute() per frame, chain of {CHAIN_LENGTH} passes at {WIDTH}x{HEIGHT} RGBA32Float "
                       "(median/min over samples; per-pass figures from medians, source-only subtracted)",
                       ["threads", "chain", "us/frame", "min", "spread%", "us/pass", "own us/pass", "overhead us/pass"], rows)
    rows = []
    for r in results:
        rows.append([r["threads"], r["chain"], r["compile_first_ms"].median, r["compile_first_ms"].min, r["recompile_ms"].median,
                     r["recompile_ms"].min, r["resource_count"], r["texture_count"], mb(r["unshared_bytes"]), mb(r["allocated_bytes"])])
    common.print_table("compile (first = fresh graph incl. texture allocation; re = after request_recompile), ms; memory in MiB",
                       ["threads", "chain", "first", "min", "re", "min", "resources", "textures", "unshared", "allocated"], rows)
    for r in results:
        if "blit_GBps" in r:
            print(f"threads={r['threads']}: BlitPass memcpy throughput {r['blit_GBps']:.2f} GB/s (read+write)")


def main() -> None:
    args = common.argument_parser(__doc__.splitlines()[0]).parse_args()
    env = common.environment()
    print(common.environment_line(env))
    results = run(common.thread_counts(args.threads), args.repeats or 9)
    print_results(results)
    common.write_json(args.json, env, results=results)


if __name__ == "__main__":
    main()
