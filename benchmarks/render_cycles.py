"""CPU cycles per path-traced sample of two or more builds, in alternating rounds: the figure that
decides whether a change made rendering faster, on a machine whose wall-clock rates drift.

Instruction counts (render_instructions.py) are steady but can mislead: the path tracer's time is
mostly the latency of each path's chain of dependent work, and changes that remove instructions
from that chain often leave its cycles where they were (benchmarks/README.md, 2026-11-27). This
script counts the cycles themselves, with Linux perf, inside the timed render only: each build
renders in its own process (the scene loaded and a 1-spp warm-up first, with counting off), and
perf counts user-mode cycles and instructions while `falcor.render` runs (perf's control FIFO
switches counting on and off around it). Builds run in turn, round after round, on the same CPUs,
so slow phases of the machine fall on all of them; per build the median over rounds is reported,
and per round the cycle ratio of each build to the first.

Usage: python benchmarks/render_cycles.py --build build/dev/python --build /tmp/base/build/python
       [--scene PATH|terrain] [--spp 16] [--width 640] [--height 360] [--rounds 5] [--threads 1] [--properties JSON]
Needs Linux perf (Debian: apt-get install linux-perf); the product never does.
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
from pathlib import Path

from render_instructions import PROPERTIES  # The benchmark's PathTracer settings (as pathtracer_mitsuba.py's).

REPO = Path(__file__).resolve().parent.parent


def render_child(args) -> None:
    """Runs under perf with counting off: loads and warms up, then counts the render alone."""
    import falcor

    falcor.set_thread_count(args.threads)
    scene = falcor.load_scene(args.scene)

    def render(spp: int):
        return falcor.render(scene, spp=spp, width=args.width, height=args.height, max_bounces=3,
                             properties={**PROPERTIES, **json.loads(args.properties)})

    render(1)
    with open(args.ctl, "w") as ctl, open(args.ack) as ack:
        def command(word: str) -> None:
            ctl.write(word + "\n")
            ctl.flush()
            ack.readline()

        command("enable")
        image = render(args.spp)
        command("disable")
    print(json.dumps({"mean": float(image.mean())}))


def run_build(build: str, args, samples: int) -> dict:
    """One counted render of `build` (a folder holding the falcor package)."""
    with tempfile.TemporaryDirectory() as tmp:
        ctl, ack = Path(tmp) / "ctl", Path(tmp) / "ack"
        os.mkfifo(ctl)
        os.mkfifo(ack)
        cmd = ["perf", "stat", "-x,", "-e", "cycles:u,instructions:u", "--delay=-1", f"--control=fifo:{ctl},{ack}", "--",
               os.path.realpath(sys.executable), __file__, "--child", "--scene", str(args.scene), "--spp", str(args.spp),
               "--width", str(args.width), "--height", str(args.height), "--threads", str(args.threads), "--properties", args.properties,
               "--ctl", str(ctl), "--ack", str(ack)]
        env = dict(os.environ, PYTHONPATH=build, OPENBLAS_NUM_THREADS="1")
        cpus = sorted(os.sched_getaffinity(0))[: args.threads]
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    if run.returncode != 0:
        raise RuntimeError(f"{build}: the counted render failed:\n{run.stderr[-3000:]}")
    counts = {}
    for line in run.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in ("cycles:u", "instructions:u") and fields[0].isdigit():
            counts[fields[2].split(":")[0]] = int(fields[0])
    if set(counts) != {"cycles", "instructions"}:
        raise RuntimeError(f"{build}: perf reported no cycle or instruction count:\n{run.stderr[-3000:]}")
    mean = json.loads(run.stdout.strip().splitlines()[-1])["mean"]
    return {"cycles": counts["cycles"] / samples, "instructions": counts["instructions"] / samples, "mean": mean}


def write_terrain(folder: Path, build: str) -> Path:
    """pathtracer_mitsuba.py's terrain scene, written by a process that imports the first build."""
    code = "import sys; from pathlib import Path; from pathtracer_mitsuba import write_terrain_scene; print(write_terrain_scene(Path(sys.argv[1])))"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([build, str(Path(__file__).parent)]))
    run = subprocess.run([sys.executable, "-c", code, str(folder)], capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise RuntimeError(f"writing the terrain scene failed:\n{run.stderr[-3000:]}")
    return Path(run.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", action="append", default=[], help="a build's python folder (give two or more)")
    parser.add_argument("--scene", default=str(REPO / "Scenes" / "CornellBoxDiffuse.pyscene"),
                        help="a scene file, or 'terrain' (pathtracer_mitsuba.py's generated 1M-triangle terrain)")
    parser.add_argument("--spp", type=int, default=16)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--properties", default="{}", help='further PathTracer properties as JSON, e.g. \'{"samplesPerPixel": 4}\'')
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ctl", help=argparse.SUPPRESS)
    parser.add_argument("--ack", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return render_child(args)
    if len(set(args.build)) < 2 or len(set(args.build)) != len(args.build) or args.rounds < 1 or args.spp < 1:
        parser.error("give at least two different --build folders (each once), and positive --rounds and --spp")
    try:
        json.loads(args.properties)
    except json.JSONDecodeError as e:
        parser.error(f"--properties is not JSON: {e}")
    if not shutil.which("perf"):
        raise SystemExit("render_cycles.py needs Linux perf (apt-get install linux-perf)")

    samples = args.width * args.height * args.spp
    with tempfile.TemporaryDirectory() as tmp:
        if args.scene == "terrain":
            args.scene = write_terrain(Path(tmp), args.build[0])
        results = {build: [] for build in args.build}
        for _ in range(args.rounds):
            for build in args.build:
                results[build].append(run_build(build, args, samples))

    first = args.build[0]
    print(f"\n{Path(args.scene).name}, {args.width}x{args.height}, {args.spp} spp, {args.threads} thread(s), "
          f"{args.rounds} rounds, properties {args.properties}; per pixel and frame (one path each unless samplesPerPixel "
          f"says more), medians over rounds\n")
    print("| build | cycles | instructions | cycles / first build's, per round | image mean |")
    print("|---|---:|---:|---|---|")
    for build, runs in results.items():
        ratios = ", ".join(f"{r['cycles'] / f['cycles']:.3f}" for r, f in zip(runs, results[first]))
        print(f"| {build} | {statistics.median(r['cycles'] for r in runs):,.0f} | "
              f"{statistics.median(r['instructions'] for r in runs):,.0f} | {ratios} | {runs[0]['mean']:.7g} |")


if __name__ == "__main__":
    main()
