"""Instructions per path-traced sample, counted by callgrind: the steady figure for comparing
builds on a shared machine, where wall-clock rates of the same build swing by 20 % between runs.

One `falcor.render` of the scene with pathtracer_mitsuba.py's settings (PathTracer, power emissive
sampler, no Russian roulette, 3 bounces) on one thread, under `valgrind --tool=callgrind` with
collection switched on only inside `RenderGraph::execute`: scene loading, the BVH build and Python
are not counted, VBufferRT and the PathTracer are. Prints instructions per sample and the image
mean (equal means across builds show the change kept the light transport).

Usage: PYTHONPATH=build/<dir>/python python benchmarks/render_instructions.py [--scene PATH|terrain]
       [--width 160] [--height 90] [--spp 4] [--json out.json]
Needs valgrind (Debian: apt-get install valgrind); the product never does.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROPERTIES = {"emissiveSampler": "Power", "useRussianRoulette": False}


def render_child(args) -> None:
    """Runs under callgrind: one render, then its image mean on stdout."""
    import falcor

    falcor.set_thread_count(1)
    scene = falcor.load_scene(args.scene)
    image = falcor.render(scene, spp=args.spp, width=args.width, height=args.height, max_bounces=3, properties=PROPERTIES)
    print(json.dumps({"mean": float(image.mean())}))


def total_instructions(callgrind_file: Path) -> int:
    """The `totals:` (or `summary:`) line callgrind writes at the end of its output file."""
    for line in reversed(callgrind_file.read_text().splitlines()):
        match = re.match(r"(?:totals|summary):\s+(\d+)", line)
        if match:
            return int(match.group(1))
    raise RuntimeError(f"{callgrind_file}: no instruction total (did the render run?)")


def count(scene: Path, args) -> dict:
    if not shutil.which("valgrind"):
        raise SystemExit("render_instructions.py needs valgrind (apt-get install valgrind)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        # sys.executable itself, not a launcher script (pyenv shims exec python, which callgrind would not follow).
        cmd = ["valgrind", "--tool=callgrind", "--toggle-collect=falcor::RenderGraph::execute*", f"--callgrind-out-file={out}",
               os.path.realpath(sys.executable), __file__, "--child", "--scene", str(scene), "--spp", str(args.spp),
               "--width", str(args.width), "--height", str(args.height)]
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        run = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if run.returncode != 0:
            raise RuntimeError(f"the render under callgrind failed:\n{run.stderr[-3000:]}")
        mean = json.loads(run.stdout.strip().splitlines()[-1])["mean"]
        samples = args.width * args.height * args.spp
        instructions = total_instructions(out)
        return {"scene": scene.name, "samples": samples, "instructions": instructions,
                "instructions_per_sample": instructions / samples, "mean": mean}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scene", default=str(REPO / "Scenes" / "CornellBoxDiffuse.pyscene"),
                        help="a scene file, or 'terrain' (pathtracer_mitsuba.py's 1M-triangle terrain under a sky)")
    parser.add_argument("--spp", type=int, default=4)
    parser.add_argument("--width", type=int, default=160)
    parser.add_argument("--height", type=int, default=90)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return render_child(args)
    with tempfile.TemporaryDirectory() as tmp:
        if args.scene == "terrain":
            sys.path.insert(0, str(Path(__file__).resolve().parent))
            from pathtracer_mitsuba import write_terrain_scene

            scene = write_terrain_scene(Path(tmp))
        else:
            scene = Path(args.scene)
        result = count(scene, args)
    print(f"{result['scene']}: {result['instructions_per_sample']:,.0f} instructions per sample "
          f"({args.width}x{args.height}, {args.spp} spp), image mean {result['mean']:.7g}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
