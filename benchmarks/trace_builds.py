"""Ray throughput of two builds of falcor side by side: the same scenes and rays as
bvh_embree.py, our `closest_hit` only. Used to check that a change to the traversal kernels costs
nothing on ordinary rays (e.g. the hardening of NaN rays and extreme coordinates).

Usage: python3 benchmarks/trace_builds.py BASE_PYTHONPATH NEW_PYTHONPATH [--threads 1] [--rounds 5]

Each round runs every build once per scene and ray set, alternating builds so drift in the
machine's speed affects both alike; the table gives the median Mrays/s of each build and the
ratio new/base.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def worker(data_dir: Path, threads: int) -> None:
    """Runs in a subprocess with one build on PYTHONPATH; prints {case: ms} as JSON."""
    import falcor
    from common import measure

    falcor.set_thread_count(threads)
    times = {}
    for scene_dir in sorted(p for p in data_dir.iterdir() if p.is_dir()):
        meshes = [(np.load(scene_dir / f"pos{i}.npy"), np.load(scene_dir / f"tri{i}.npy"), True)
                  for i in range(len(list(scene_dir.glob("pos*.npy"))))]
        instances = json.loads((scene_dir / "instances.json").read_text())
        accel = falcor.TriangleAccel()
        accel.build(meshes, [(m, np.asarray(t, np.float32), False) for m, t in instances])
        for rays in sorted(f.name.removesuffix("_o.npy") for f in scene_dir.glob("*_o.npy")):
            o, d = np.load(scene_dir / f"{rays}_o.npy"), np.load(scene_dir / f"{rays}_d.npy")
            times[f"{scene_dir.name} {rays}"] = (measure(lambda: accel.closest_hit(o, d), repeats=3).median, len(o))
    print(json.dumps(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from bvh_embree import scenes

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp)
        for name, (meshes, instances, rays) in scenes().items():
            folder = data / name
            folder.mkdir()
            for i, (pos, tri) in enumerate(meshes):
                np.save(folder / f"pos{i}.npy", pos), np.save(folder / f"tri{i}.npy", tri)
            (folder / "instances.json").write_text(json.dumps([(m, np.asarray(t).tolist()) for m, t in instances]))
            for set_name, (o, d) in rays.items():
                np.save(folder / f"{set_name}_o.npy", o), np.save(folder / f"{set_name}_d.npy", d)
        results = {"base": [], "new": []}
        for _ in range(args.rounds):
            for build in ("base", "new"):
                env = {**os.environ, "PYTHONPATH": os.pathsep.join([getattr(args, build), str(HERE)])}
                out = subprocess.run([sys.executable, __file__, "--worker", str(data), str(args.threads)], env=env,
                                     capture_output=True, text=True, check=True).stdout
                results[build].append(json.loads(out.strip().splitlines()[-1]))
    print(f"{'case':22} {'base Mrays/s':>13} {'new Mrays/s':>12} {'new/base':>9}")
    for case in results["base"][0]:
        rate = {b: float(np.median([r[case][1] / r[case][0] / 1e3 for r in results[b]])) for b in results}
        print(f"{case:22} {rate['base']:13.2f} {rate['new']:12.2f} {rate['new'] / rate['base']:9.3f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.path.insert(0, str(HERE))
        worker(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
