"""Ray-tracing acceleration structure: falcor.TriangleAccel against Embree (through `embreex`).

Scenes (generated here, deterministically; nothing is downloaded):
  sphere   a displaced cube-sphere of ~1M triangles (one mesh, one instance).
  cornell  the Cornell box of Falcor's test scenes: a quad mesh and a cube mesh placed by 8
           instances (5 walls, 2 boxes, the light), transforms from the oracle's scene facts.
  terrain  pathtracer_mitsuba.py's heightfield of 999,698 triangles (one mesh, one instance).
Rays per scene:
  coherent    pinhole camera rays, one per pixel of a 512x512 image looking at the scene.
  incoherent  random origins inside the scene bounds, random directions (sphere, cornell).
  bounce      what a path tracer traces from the terrain's surface (terrain): origins at uniform
              points of random triangles, just above them, cosine-distributed directions.

Ours traces each ray set twice: one ray at a time (`closest_hit`) and as interleaved streams
(`closest_hit(..., stream=True)`, SceneAccel::closestHitStream: 8 rays in flight per thread, each
one's next node prefetched while the others work; camera-like streams fall back to one at a time).
Both give the same bits (checked here).

Both engines get the same triangles and rays (.npy files in a temporary folder). Ours runs in this
process (`closest_hit`, batch query on the engine's thread pool); Embree runs in a subprocess in a
separate virtual environment holding `embreex` (default /tmp/venv-embree, created with
`python3 -m venv /tmp/venv-embree && /tmp/venv-embree/bin/pip install embreex numpy`). embreex
has no instancing, so Embree sees the Cornell box as 8 world-space meshes (indexed, as ours); its `run` traces one
ray at a time with rtcIntersect1 in a GIL-free loop, so 2 threads = 2 Python threads, each with
half of the rays. One Embree thread = the subprocess pinned to one CPU (its TBB build threads
follow the affinity mask). Embree runs twice: default scene flags and RTC_SCENE_FLAG_ROBUST
(watertight, as our triangle test always is).

Columns: build times are medians of wall time (Embree's = rtcCommitScene only; embreex's own
Python-side mesh copy is shown apart). Ray throughputs are medians of wall time; "ours/embree
CPU" compares rays per CPU-second of each process, which stays meaningful when other work shares
the machine. "same tri"/"same t": fraction of rays where both engines report the same triangle /
the same distance (coplanar overlapping triangles tie in t and may be resolved differently).

Usage: PYTHONPATH=build/<dir>/python python3 benchmarks/bvh_embree.py [--threads 1,2] [--scenes sphere,cornell,terrain]
       [--embree-python PATH]
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from pathtracer_mitsuba import terrain_mesh  # noqa: E402

# numpy's BLAS threads spin after each call and would compete with the measured threads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

IMAGE_SIZE = 512
INCOHERENT_RAYS = 512 * 512
SPHERE_FACE_CELLS = 289  # 6 faces x 289^2 cells x 2 = 1,002,252 triangles


# ---------------------------------------------------------------------------------------------
# Scenes and rays
# ---------------------------------------------------------------------------------------------
def displaced_sphere(n=SPHERE_FACE_CELLS):
    """Cube-sphere: each cube face an n x n grid projected to the sphere and displaced along the
    radius by a sum of sines (bumps of several sizes)."""
    s = np.linspace(-1.0, 1.0, n + 1)
    u, v = np.meshgrid(s, s, indexing="ij")
    one = np.ones_like(u)
    faces = [(one, u, v), (-one, v, u), (u, one, v), (v, -one, u), (u, v, one), (v, u, -one)]
    positions, triangles = [], []
    for f, (x, y, z) in enumerate(faces):
        p = np.stack([x, y, z], -1).reshape(-1, 3)
        p /= np.linalg.norm(p, axis=1, keepdims=True)
        r = 1 + 0.04 * np.sin(9 * p[:, 0]) * np.sin(11 * p[:, 1]) * np.sin(13 * p[:, 2]) + 0.01 * np.sin(57 * p[:, 0] + 43 * p[:, 2])
        positions.append(p * r[:, None])
        idx = f * (n + 1) ** 2 + np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
        a, b, c, d = idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]
        triangles.append(np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]))
    return np.concatenate(positions).astype(np.float32), np.concatenate(triangles).astype(np.uint32)


def quad_mesh():
    """Falcor's TriangleMesh.createQuad(): unit square in the xz plane, normal +y."""
    p = np.array([[-0.5, 0, -0.5], [0.5, 0, -0.5], [-0.5, 0, 0.5], [0.5, 0, 0.5]], np.float32)
    return p, np.array([[0, 2, 1], [1, 2, 3]], np.uint32)


def cube_mesh():
    """Unit cube centered at the origin, 12 outward-facing triangles (counter-clockwise)."""
    p = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], np.float32)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return p, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))], np.uint32)


def trs(scale, translation=(0, 0, 0), rotation_rad=(0, 0, 0)):
    """Translation x rotation (x, then y, then z) x scale."""
    cx, cy, cz = np.cos(rotation_rad)
    sx, sy, sz = np.sin(rotation_rad)
    rx = np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]])
    ry = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]])
    m = np.eye(4)
    m[:3, :3] = rz @ ry @ rx @ np.diag(np.broadcast_to(scale, 3))
    m[:3, 3] = translation
    return m.astype(np.float32)


def cornell_box():
    """(meshes, instances) of the Cornell box: mesh 0 = quad, mesh 1 = cube."""
    deg = np.radians
    wall = (0.55, 1.0, 0.56)
    instances = [
        (0, trs(wall)),                                                   # floor
        (0, trs(wall, (0, 0.55, 0), deg((180, 0, 0)))),                   # ceiling
        (0, trs(wall, (0, 0.275, -0.275), deg((90, 0, 0)))),              # back wall
        (0, trs(wall, (-0.275, 0.275, 0), deg((0, 0, -90)))),             # left wall
        (0, trs(wall, (0.275, 0.275, 0), deg((0, 0, 90)))),               # right wall
        (1, trs((0.165, 0.33, 0.165), (-0.093, 0.165, -0.071), (0, -1.27, 0))),  # large box
        (1, trs((0.165, 0.165, 0.165), (0.09, 0.0825, 0.111), (0, -0.29, 0))),   # small box
        (0, trs(0.13, (0, 0.549, 0), deg((180, 0, 0)))),                  # light
    ]
    return [quad_mesh(), cube_mesh()], instances


def camera_rays(position, target, vfov_deg, size=IMAGE_SIZE):
    forward = np.subtract(target, position) / np.linalg.norm(np.subtract(target, position))
    right = np.cross(forward, (0, 1, 0))
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    h = np.tan(np.radians(vfov_deg) / 2)
    px = (np.arange(size) + 0.5) / size * 2 - 1
    x, y = np.meshgrid(px * h, -px * h)
    d = forward + x[..., None] * right + y[..., None] * up
    o = np.broadcast_to(np.asarray(position, np.float32), (size * size, 3))
    return np.ascontiguousarray(o, np.float32), d.reshape(-1, 3).astype(np.float32)


def random_rays(lo, hi, count, seed):
    rng = np.random.default_rng(seed)
    o = rng.uniform(lo, hi, (count, 3)).astype(np.float32)
    d = rng.normal(size=(count, 3)).astype(np.float32)
    return o, d


def bounce_rays(positions, triangles, count, seed):
    """Rays leaving random points of random triangles (1e-5 above them), cosine-distributed
    about the triangles' normals: the secondary rays of a path tracer on that surface."""
    rng = np.random.default_rng(seed)
    v = positions.astype(np.float64)[triangles[rng.integers(len(triangles), size=count)].astype(np.int64)]
    r1, r2 = rng.random(count), rng.random(count)
    flip = r1 + r2 > 1
    r1, r2 = np.where(flip, 1 - r1, r1), np.where(flip, 1 - r2, r2)
    points = v[:, 0] + r1[:, None] * (v[:, 1] - v[:, 0]) + r2[:, None] * (v[:, 2] - v[:, 0])
    n = np.cross(v[:, 1] - v[:, 0], v[:, 2] - v[:, 0])
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    t = np.cross(n, np.where(np.abs(n[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]]))
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    b = np.cross(n, t)
    phi, r = 2 * np.pi * rng.random(count), np.sqrt(rng.random(count))
    d = (r * np.cos(phi))[:, None] * t + (r * np.sin(phi))[:, None] * b + np.sqrt(1 - r * r)[:, None] * n
    return (points + 1e-5 * n).astype(np.float32), d.astype(np.float32)


def world_meshes(meshes, instances):
    """One (world-space positions, triangles) pair per instance: what Embree gets."""
    out = []
    for mesh_id, m in instances:
        p, t = meshes[mesh_id]
        w = p.astype(np.float64) @ m[:3, :3].T.astype(np.float64) + m[:3, 3]
        out.append((w.astype(np.float32), t))
    return out


def scenes(names=("sphere", "cornell", "terrain")):
    """name -> (meshes, instances, {ray set: (origins, dirs)}) of the scenes `names`."""
    # Falcor's default camera: 35 mm focal length on a 24 mm high frame.
    falcor_fov = np.degrees(2 * np.arctan(12 / 35))

    def closed(meshes, instances, eye, target, fov, seed):
        corners = np.concatenate([p for p, _ in world_meshes(meshes, instances)])
        lo, hi = corners.min(0), corners.max(0)
        return meshes, instances, {"coherent": camera_rays(eye, target, fov), "incoherent": random_rays(lo, hi, INCOHERENT_RAYS, seed)}

    def sphere():
        return closed([displaced_sphere()], [(0, np.eye(4, dtype=np.float32))], (0.3, 0.4, 3.0), (0, 0, 0), 45.0, 0)

    def cornell():
        return closed(*cornell_box(), (0, 0.28, 1.2), (0, 0.28, 0), falcor_fov, 1)

    def terrain():
        pos, tris = terrain_mesh()
        return ([(pos, tris)], [(0, np.eye(4, dtype=np.float32))],
                {"coherent": camera_rays((0, 1.2, 3.2), (0, 0, 0), falcor_fov), "bounce": bounce_rays(pos, tris, INCOHERENT_RAYS, 3)})

    makers = {"sphere": sphere, "cornell": cornell, "terrain": terrain}
    unknown = sorted(set(names) - set(makers))
    if unknown:
        raise SystemExit(f"bvh_embree.py: unknown scene(s) {unknown}; choose from {sorted(makers)}")
    return {name: makers[name]() for name in names}


# ---------------------------------------------------------------------------------------------
# Embree side (runs in the embreex venv; imports neither falcor nor the benchmark helpers)
# ---------------------------------------------------------------------------------------------
def embree_worker(data_dir: Path, threads: int, repeats: int) -> None:
    if threads == 1:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    from concurrent.futures import ThreadPoolExecutor

    import embreex
    from embreex import rtcore_scene
    from embreex.mesh_construction import TriangleMesh

    spec = json.loads((data_dir / "spec.json").read_text())
    results = {"embreex": getattr(embreex, "__version__", "unknown")}
    pool = ThreadPoolExecutor(threads)
    for scene, info in spec.items():
        meshes = [(np.load(data_dir / f"{scene}_pos{i}.npy"), np.load(data_dir / f"{scene}_tri{i}.npy").astype(np.int32))
                  for i in range(info["instances"])]
        for robust in (False, True):
            key = f"{scene}/{'robust' if robust else 'default'}"
            start = time.perf_counter()
            s = rtcore_scene.EmbreeScene(robust=robust)
            for p, t in meshes:
                TriangleMesh(s, p, t)
            copied = time.perf_counter()
            s.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32))  # commits (builds) the scene
            results[key] = {"build_ms": (time.perf_counter() - copied) * 1e3, "mesh_ms": (copied - start) * 1e3}
            for rays in info["rays"]:
                o = np.load(data_dir / f"{scene}_{rays}_o.npy")
                d = np.load(data_dir / f"{scene}_{rays}_d.npy")
                parts = np.array_split(np.arange(len(o)), threads)

                def trace():
                    outs = list(pool.map(lambda p: s.run(o[p[0]:p[-1] + 1], d[p[0]:p[-1] + 1], output=1), parts))
                    return {k: np.concatenate([r[k] for r in outs]) for k in ("tfar", "primID", "geomID")}

                trace()
                wall, cpu = [], []
                for _ in range(repeats):
                    t0, c0 = time.perf_counter(), time.process_time()
                    hits = trace()
                    wall.append(time.perf_counter() - t0)
                    cpu.append(time.process_time() - c0)
                results[key][rays] = {"seconds": float(np.median(wall)), "cpu_seconds": float(np.median(cpu)), "rays": len(o)}
                if not robust:
                    for k, v in hits.items():
                        np.save(data_dir / f"embree_{scene}_{rays}_{k}.npy", v)
    (data_dir / f"embree_{threads}.json").write_text(json.dumps(results))


# ---------------------------------------------------------------------------------------------
# Our side and the comparison
# ---------------------------------------------------------------------------------------------
def main() -> None:
    import common
    import falcor

    parser = common.argument_parser(__doc__.split("\n")[0])
    parser.add_argument("--embree-python", default="/tmp/venv-embree/bin/python", help="Python of the venv with embreex")
    parser.add_argument("--scenes", default="sphere,cornell,terrain", help="comma-separated scenes (default: all)")
    args = parser.parse_args()
    repeats = args.repeats or 3
    env = common.environment()
    print(common.environment_line(env))
    t0 = time.perf_counter()
    data = scenes([n for n in args.scenes.split(",") if n])
    print(f"# scenes and rays generated in {time.perf_counter() - t0:.1f} s")

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        spec = {}
        for name, (meshes, instances, rays) in data.items():
            for i, (p, t) in enumerate(world_meshes(meshes, instances)):
                np.save(tmp / f"{name}_pos{i}.npy", p)
                np.save(tmp / f"{name}_tri{i}.npy", t)
            for r, (o, d) in rays.items():
                np.save(tmp / f"{name}_{r}_o.npy", o)
                np.save(tmp / f"{name}_{r}_d.npy", d)
            spec[name] = {"instances": len(instances), "rays": list(rays)}
        (tmp / "spec.json").write_text(json.dumps(spec))

        build_rows, ray_rows, records, phase_rows = [], [], [], []
        for threads in common.thread_counts(args.threads):
            subprocess.run([args.embree_python, __file__, "--embree-worker", str(tmp), str(threads), str(repeats)], check=True)
            embree = json.loads((tmp / f"embree_{threads}.json").read_text())
            env["embreex"] = embree["embreex"]
            common.set_threads(threads)
            for name, (meshes, instances, rays) in data.items():
                accel = falcor.TriangleAccel()
                build = lambda: accel.build([(p, t, True) for p, t in meshes], [(m, x, False) for m, x in instances])
                build_ms = common.measure(build, repeats).median
                stats = accel.stats
                if stats["blas_phases"]["bounds_ms"] > 0:  # built on the whole pool: where the time went (last build)
                    phase_rows.append([name, threads] + [stats["blas_phases"][k] for k in PHASES] + [stats["blas_build_ms"]])
                e, er = embree[f"{name}/default"], embree[f"{name}/robust"]
                build_rows.append([name, stats["triangle_count"], threads, build_ms, e["build_ms"], er["build_ms"], build_ms / e["build_ms"],
                                   e["mesh_ms"], stats["memory_bytes"] / 2**20])
                for r, (o, d) in rays.items():
                    wall, cpu = wall_and_cpu(lambda: accel.closest_hit(o, d), repeats)
                    stream_wall, stream_cpu = wall_and_cpu(lambda: accel.closest_hit(o, d, stream=True), repeats)
                    ours, theirs, theirs_robust = len(o) / wall / 1e6, e[r]["rays"] / e[r]["seconds"] / 1e6, er[r]["rays"] / er[r]["seconds"] / 1e6
                    ours_stream = len(o) / stream_wall / 1e6
                    # Rays per CPU-second: what each engine's work costs, whatever else the machine runs.
                    cpu_ratio = (len(o) / cpu) / (e[r]["rays"] / e[r]["cpu_seconds"])
                    hit = accel.closest_hit(o, d)
                    stream_hit = accel.closest_hit(o, d, stream=True)
                    if any(not np.array_equal(hit[k], stream_hit[k]) for k in hit):
                        raise SystemExit(f"bvh_embree.py: {name}/{r}: the stream's hits differ from single rays'")
                    same, same_t = agreement(hit, {k: np.load(tmp / f"embree_{name}_{r}_{k}.npy") for k in ("tfar", "primID", "geomID")})
                    ray_rows.append([name, r, threads, ours, ours_stream, cpu / stream_cpu, theirs, theirs_robust, ours / theirs,
                                     ours_stream / theirs, ours / theirs_robust, cpu_ratio, same, same_t])
                    records.append({"scene": name, "rays": r, "threads": threads, "ours_mrays": ours, "ours_stream_mrays": ours_stream,
                                    "stream_vs_single_cpu": cpu / stream_cpu, "embree_mrays": theirs,
                                    "embree_robust_mrays": theirs_robust, "ours_per_cpu_vs_embree": cpu_ratio, "build_ms": build_ms,
                                    "embree_build_ms": e["build_ms"], "same_triangle": same, "same_t": same_t})

    print(f"# Embree: embreex {env.get('embreex')} (Embree 4.4.0 inside the wheel); ours: falcor.TriangleAccel")
    common.print_table("Build (ms, median; embree = rtcCommitScene, embreex mesh = its Python-side mesh copy, not counted)",
                       ["scene", "triangles", "threads", "ours", "embree", "embree robust", "ours/embree", "embreex mesh", "ours MiB"],
                       build_rows)
    common.print_table("Our bottom-level build by phase (ms, one build)", ["scene", "threads", *PHASES, "total"], phase_rows)
    common.print_table("Closest hit (Mrays/s, median; stream = stream=True, stream/single CPU = single's CPU time / stream's)",
                       ["scene", "rays", "threads", "ours", "ours stream", "stream/single CPU", "embree", "embree robust", "ours/embree",
                        "stream/embree", "ours/robust", "ours/embree CPU", "same tri", "same t"], ray_rows)
    common.write_json(args.json, env, results=records)


PHASES = ("bounds_ms", "prim_refs_ms", "top_levels_ms", "subtrees_ms", "assemble_ms", "collapse_ms", "pack_ms")


def wall_and_cpu(run, repeats: int) -> tuple[float, float]:
    """Median wall and process CPU seconds of `run` over `repeats` calls (after one warm-up)."""
    run()
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return float(np.median(wall)), float(np.median(cpu))


def agreement(ours: dict, embree: dict) -> tuple[float, float]:
    """Fractions of rays where both engines report the same triangle (or both miss), and the same
    distance (relative 1e-5, or both miss): coplanar overlapping triangles tie in t, and each
    engine may pick a different one."""
    miss_e = embree["geomID"] == -1
    miss_o = ours["instance_id"] == 0xFFFFFFFF
    both = ~miss_e & ~miss_o
    same = (miss_e & miss_o) | (both & (ours["instance_id"] == embree["geomID"].astype(np.uint32)) &
                                (ours["primitive_index"] == embree["primID"].astype(np.uint32)))
    close = (miss_e & miss_o) | (both & (np.abs(ours["t"] - embree["tfar"]) <= 1e-5 * np.maximum(1, np.abs(embree["tfar"]))))
    return float(same.mean()), float(close.mean())


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--embree-worker":
        embree_worker(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
