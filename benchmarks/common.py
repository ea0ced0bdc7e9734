"""Shared helpers for the benchmarks: timing, environment description, tables and JSON output."""
from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import falcor
import numpy as np

REPO_ROOT = Path(__file__).resolve().parent.parent


class WriteOnceSource(falcor.RenderPass):
    """Outputs `images[key]` (H, W, 4 float32) on `dst` as RGBA32Float, writing it only on the first
    frame after each compile: later frames cost one Python call, so the passes after it are what a
    benchmark measures. Registered as "WriteOnceSource"; property `key`."""

    images: dict[str, np.ndarray] = {}

    def __init__(self, props):
        super().__init__()
        self.key = props["key"]
        self.written = False

    def reflect(self, compile_data):
        h, w = self.images[self.key].shape[:2]
        r = falcor.RenderPassReflection()
        r.add_output("dst", "the image").format(falcor.ResourceFormat.RGBA32Float).texture2D(w, h)
        return r

    def compile(self, render_context, compile_data):
        self.written = False

    def execute(self, render_context, render_data):
        if not self.written:
            np.asarray(render_data["dst"])[...] = self.images[self.key]
            self.written = True

    def get_properties(self):
        return {"key": self.key}


falcor.register_render_pass(WriteOnceSource, "WriteOnceSource")


@dataclass
class Stats:
    """Summary of repeated measurements, in the samples' unit (ms unless a field name says otherwise)."""

    median: float
    min: float
    max: float
    samples: list[float]

    @staticmethod
    def of(samples: list[float]) -> "Stats":
        return Stats(statistics.median(samples), min(samples), max(samples), list(samples))

    def spread(self) -> float:
        """(max - min) / median: how noisy the samples were."""
        return (self.max - self.min) / self.median if self.median else 0.0


def measure(run: Callable[[], object], repeats: int, warmup: int = 1) -> Stats:
    """Calls `run` `warmup` times untimed, then `repeats` times timed; milliseconds per call."""
    for _ in range(warmup):
        run()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append((time.perf_counter() - start) * 1e3)
    return Stats.of(samples)


def return_free_memory_to_os() -> None:
    """Makes the C allocator give freed memory back (glibc `malloc_trim`), so the next large
    allocation starts on fresh pages as in a new process, not on pages an earlier measurement
    already touched. No-op where unavailable."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads. CPU time / wall time over a region is
    the number of cores the process actually got: on a busy machine, less than the thread count."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def commit_hash() -> str | None:
    """Short hash of HEAD, with '+dirty' when the work tree has uncommitted changes; None outside git."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10)

    try:
        head = git("rev-parse", "--short", "HEAD")
        if head.returncode != 0:
            return None
        dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def environment() -> dict:
    """What a result depends on besides the code: machine, load, versions, date."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "commit": commit_hash(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "falcor_module": str(Path(falcor.__file__).parent),
    }


def environment_line(env: dict) -> str:
    load = "/".join(f"{x:.1f}" for x in env["load_average"])
    return (f"# {env['date']}  CPU: {env['cpu']} x{env['logical_cpus']}  load(1/5/15 min): {load}  "
            f"commit: {env['commit'] or 'n/a'}  Python {env['python']}, numpy {env['numpy']}")


def set_threads(count: int) -> None:
    falcor.set_thread_count(count)
    assert falcor.get_thread_count() == count


def print_table(title: str, columns: list[str], rows: list[list]) -> None:
    """Prints rows as an aligned text table; floats get 4 significant digits, whole numbers from 1000 up."""
    def cell(v):
        if isinstance(v, float):
            return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.4g}"
        return str(v)

    text = [[cell(v) for v in row] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in text)) if text else len(c) for i, c in enumerate(columns)]
    print(f"\n{title}")
    print("  ".join(c.rjust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for r in text:
        print("  ".join(v.rjust(w) for v, w in zip(r, widths)))


def argument_parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--threads", default="1,2", help="comma-separated render thread counts (default: 1,2)")
    p.add_argument("--repeats", type=int, default=None, help="timed samples per measurement (default: per benchmark)")
    p.add_argument("--json", type=Path, default=None, help="also write all results to this JSON file")
    return p


def thread_counts(arg: str) -> list[int]:
    return [int(x) for x in arg.split(",") if x.strip()]


def write_json(path: Path | None, env: dict, **sections: list[dict]) -> None:
    """Writes {"environment": env, <section>: [...], ...}; Stats become dicts."""
    if path is None:
        return

    def encode(o):
        return asdict(o) if isinstance(o, Stats) else str(o)
    path.write_text(json.dumps({"environment": env, **sections}, indent=2, default=encode) + "\n")
    print(f"\nwrote {path}")
