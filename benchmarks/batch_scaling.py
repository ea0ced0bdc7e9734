"""Batch capture at scale: falcor-batch on 1 and 2 workers, its per-task overhead against one
`mogwai` script rendering the same frames, and scene-load time and peak memory.

- Job: an animated Cornell box (the small box slides across the floor), 64 frames at 60 fps,
  320x180, Falcor's PathTracer graph (Scripts/PathTracer.py) with 4 accumulated frames per
  capture, ToneMapper.dst to PNG. Each configuration runs as its own command into a fresh output
  folder; frames per minute = 64 captures / wall minutes of the whole command (process start,
  scene loads and worker start-up included, as a user sees it).
- Workers: `--processes 1` and `--processes 2` with one render thread each (scaling efficiency =
  rate at 2 / (2 x rate at 1)), the same on a Dask LocalCluster (`--workers`), and a serial run
  on one thread.
- Overhead: the serial one-thread run against a render script doing the same work in one
  `mogwai` process (clock frame, 4 frames, FrameCapture.capture per captured frame), per task.
- Loading: `falcor.load_scene` of the Cornell box (median of 5, in process) and of the generated
  999,698-triangle terrain (benchmarks/pathtracer_mitsuba.py) in fresh processes (the fastest of
  3): without the scene cache, with `UseCache` on an empty cache (builds and writes it), and with
  `UseCache` on the written cache: wall time and peak resident memory (ru_maxrss) against the
  process before loading.

Usage: PYTHONPATH=build/<dir>/python python benchmarks/batch_scaling.py [--mogwai PATH] [--skip-dask] [--loading-only]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import falcor  # noqa: E402

REPO = common.REPO_ROOT
FRAMES, ACCUMULATE, WIDTH, HEIGHT = 64, 4, 320, 180

ANIMATED_CORNELL = """
# The Cornell box with its small box sliding across the floor over 64 frames at 60 fps.
exec(open(r'{repo}/Scenes/CornellBox.pyscene').read().replace('Path(__file__)', "Path(r'{repo}/Scenes/CornellBox.pyscene')"))
slide = Animation('Slide', 6, {duration})
for t, x in ((0.0, 0.09), ({duration}, -0.05)):
    slide.addKeyframe(t, Transform(scaling=float3(0.165, 0.165, 0.165), translation=float3(x, 0.0825, 0.111),
                                   rotationEuler=float3(0, -0.29, 0)))
sceneBuilder.addAnimation(slide)
"""

MOGWAI_SCRIPT = """
graph_file = {{"__name__": "graph"}}  # the graph file without `m`, as falcor-batch runs it (no render loop)
exec("from falcor import *", graph_file)
exec(open(r'{graph}').read(), graph_file)
m.addGraph(graph_file['PathTracer'])
m.loadScene(r'{scene}')
m.resizeFrameBuffer({width}, {height})
m.frameCapture.outputDir = r'{out}'
m.frameCapture.baseFilename = 'Animated'
m.clock.framerate = 60
m.clock.pause()
for frame in range({frames}):
    m.clock.frame = frame
    for _ in range({accumulate}):
        m.renderFrame()
    m.frameCapture.capture()
m.frameCapture.flush()
exit()
"""

JOB = """
name: animated-cornell
graph: {graph}
scenes: [{scene}]
resolution: [{width}, {height}]
frames: {{start: 0, stop: {frames}}}
accumulate: {accumulate}
outputs: [ToneMapper.dst]
output_dir: {out}
"""


def timed(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed


def child_env(threads: int | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(falcor.__file__).parent.parent)] + env.get("PYTHONPATH", "").split(os.pathsep))
    if threads:
        env["FALCOR_NUM_THREADS"] = str(threads)
    return env


def batch_runs(folder: Path, scene: Path, skip_dask: bool) -> list[dict]:
    configs = [("serial", []), ("processes", ["--processes", "1"]), ("processes", ["--processes", "2"])]
    if not skip_dask:
        configs += [("dask", ["--workers", "1"]), ("dask", ["--workers", "2"])]
    rows = []
    for name, extra in configs:
        out = folder / f"out-{name}-{'-'.join(extra) or 'serial'}"
        job = folder / f"{out.name}.yaml"
        job.write_text(JOB.format(graph=REPO / "Scripts" / "PathTracer.py", scene=scene, width=WIDTH, height=HEIGHT, frames=FRAMES,
                                  accumulate=ACCUMULATE, out=out))
        seconds = timed([sys.executable, "-m", "falcor.batch", "run", str(job), "--threads", "1", "--no-progress", *extra], child_env())
        workers = int(extra[1]) if extra else 1
        rows.append({"executor": name, "workers": workers, "seconds": seconds, "frames_per_min": FRAMES / seconds * 60,
                     "renders": sum(json.loads(line)["timings"]["render"] for line in (out / "manifest.jsonl").read_text().splitlines())})
    return rows


def mogwai_run(folder: Path, scene: Path, mogwai: str) -> float:
    script = folder / "animated.py"
    script.write_text(MOGWAI_SCRIPT.format(graph=REPO / "Scripts" / "PathTracer.py", scene=scene, width=WIDTH, height=HEIGHT,
                                           out=folder / "out-mogwai", frames=FRAMES, accumulate=ACCUMULATE))
    return timed([mogwai, "--script", str(script), "--headless"], child_env(threads=1))


LOAD = """
import resource, sys, time, falcor
flags = falcor.SceneBuilderFlags(int(sys.argv[2]))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
scene = falcor.load_scene(sys.argv[1], flags)
seconds = time.perf_counter() - start
print(seconds, before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def load_times(folder: Path) -> list[dict]:
    cornell = REPO / "Scenes" / "CornellBox.pyscene"
    falcor.Logger.verbosity = falcor.Logger.Level.Warning
    samples = []
    for _ in range(5):
        start = time.perf_counter()
        falcor.load_scene(str(cornell))
        samples.append(time.perf_counter() - start)
    rows = [{"scene": "Cornell box (36 triangles)", "seconds": statistics.median(samples), "peak_mib": None, "base_mib": None}]
    from pathtracer_mitsuba import write_terrain_scene

    terrain = write_terrain_scene(folder)
    env = {**child_env(), "FALCOR_SCENE_CACHE_DIR": str(folder / "scene-cache")}
    flags = falcor.SceneBuilderFlags
    for what, flag in (("no cache", flags.Default), ("cache miss (builds, writes the cache)", flags.UseCache),
                       ("cache hit", flags.UseCache)):
        samples = []
        for _ in range(3 if flag == flags.Default or what == "cache hit" else 1):
            result = subprocess.run([sys.executable, "-c", LOAD, str(terrain), str(int(flag))], capture_output=True, text=True, env=env,
                                    check=True)
            samples.append([float(v) for v in result.stdout.split()[-3:]])
        seconds, before, peak = min(samples)  # fresh processes; the fastest of the runs
        rows.append({"scene": f"terrain PLY (999,698 triangles), {what}", "seconds": seconds, "base_mib": before / 1024,
                     "peak_mib": peak / 1024})
    return rows


def print_loads(loads: list[dict]) -> None:
    common.print_table("Scene loading", ["scene", "seconds", "process before MiB", "peak MiB"],
                       [[r["scene"], r["seconds"], r["base_mib"] or "-", r["peak_mib"] or "-"] for r in loads])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mogwai", default=os.environ.get("FALCOR_MOGWAI") or shutil.which("mogwai"),
                        help="the mogwai executable (default: $FALCOR_MOGWAI, else on PATH)")
    parser.add_argument("--skip-dask", action="store_true", help="leave out the Dask runs")
    parser.add_argument("--loading-only", action="store_true", help="only the scene-loading measurements")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    env = common.environment()
    print(common.environment_line(env))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if args.loading_only:
            loads = load_times(folder)
            print_loads(loads)
            common.write_json(args.json, env, loads=loads)
            return
        scene = folder / "AnimatedCornell.pyscene"
        scene.write_text(ANIMATED_CORNELL.format(repo=REPO, duration=(FRAMES - 1) / 60))
        runs = batch_runs(folder, scene, args.skip_dask)
        one = {r["executor"]: r for r in runs if r["workers"] == 1}
        rows = []
        for r in runs:
            base = one[r["executor"]]
            efficiency = r["frames_per_min"] / (r["workers"] * base["frames_per_min"])
            rows.append([r["executor"], r["workers"], r["seconds"], r["frames_per_min"], efficiency, r["renders"]])
        common.print_table(f"{FRAMES} captures of {ACCUMULATE} frames, {WIDTH}x{HEIGHT}, one render thread per worker",
                           ["executor", "workers", "wall s", "captures/min", "efficiency", "render s (sum)"], rows)
        overhead = None
        if args.mogwai:
            mogwai_seconds = mogwai_run(folder, scene, args.mogwai)
            serial = one["serial"]["seconds"]
            overhead = (serial - mogwai_seconds) / FRAMES
            common.print_table("The same frames in one mogwai script (one thread)",
                               ["mogwai s", "falcor-batch serial s", "batch overhead ms/task"],
                               [[mogwai_seconds, serial, overhead * 1000]])
        loads = load_times(folder)
        print_loads(loads)
    common.write_json(args.json, env, runs=runs, loads=loads, overhead_s_per_task=[overhead])


if __name__ == "__main__":
    main()
