"""Skinned meshes per frame: linear blend skinning and the bottom-level rebuild, against Embree
building a BVH over the same posed triangles.

Mesh (generated here, deterministically): a tube along +Y (an arm), `--sizes` vertices, skinned
to 4 joints in a chain with 2 influences per vertex (smooth weights between neighbouring joints);
the joints bend about Z, a new pose every frame (frames at 30 Hz).

Ours: `Scene.update(t)` per frame, split into skinning (`set_skinning_matrices`: the C++ skin of
every vertex on the pool) and the rest of the update (the mesh's bottom-level tree rebuilt, the
top level, bounds). Embree (through `embreex`, in a subprocess of a separate venv, as
bvh_embree.py: `python3 -m venv /tmp/venv-embree && /tmp/venv-embree/bin/pip install embreex numpy`)
gets the posed vertices of the same frames and builds its BVH over them (rtcCommitScene; embreex's
Python-side mesh copy not counted). Embree doesn't skin: the comparison is of our whole frame
(skinning included) against its build alone. Threads: ours `falcor.set_thread_count`; Embree's
one-thread run is its process pinned to one CPU (its TBB threads follow the affinity mask).

Usage: PYTHONPATH=build/<dir>/python python3 benchmarks/skinning.py [--threads 1,2] [--sizes 10000,100000,1000000]
       [--embree-python PATH]
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np  # noqa: E402

JOINTS, FRAMES = 4, 12


def tube(vertex_count: int):
    """(positions, triangles, joint indices, weights): rings of 32 vertices along y in [0, 4]."""
    ring, rows = 32, max(2, vertex_count // 32)
    angle = np.linspace(0, 2 * np.pi, ring, endpoint=False)
    y = np.linspace(0.0, float(JOINTS), rows)
    positions = np.stack([np.tile(0.2 * np.cos(angle), rows), np.repeat(y, ring), np.tile(0.2 * np.sin(angle), rows)], 1)
    i = np.arange(rows - 1)[:, None] * ring + np.arange(ring)[None]
    j = (i + 1) - ((np.arange(ring) + 1) // ring * ring)[None]  # the next vertex of the ring, wrapping
    quads = np.stack([i, j, i + ring, j, j + ring, i + ring], -1).reshape(-1, 3)
    along = np.clip(positions[:, 1] - 0.5, 0, JOINTS - 1.0)  # joint k owns [k - 0.5, k + 0.5]
    first = np.minimum(np.floor(along), JOINTS - 2).astype(np.int64)
    blend = (along - first).astype(np.float32)
    return positions.astype(np.float32), quads.astype(np.uint32), np.stack([first, first + 1], 1), np.stack([1 - blend, blend], 1)


def skinned_scene(vertex_count: int):
    from falcor.math_types import float3
    from falcor.scene.animation import Animation
    from falcor.scene.material import StandardMaterial
    from falcor.scene.scene_builder import SceneBuilder
    from falcor.scene.skinning import MeshSkin
    from falcor.scene.transform import Transform
    from falcor.scene.triangle_mesh import TriangleMesh

    positions, triangles, indices, weights = tube(vertex_count)
    b = SceneBuilder()
    joints, parent = [], -1
    for k in range(JOINTS):
        joints.append(b.addNode(f"j{k}", Transform(translation=float3(0, 1 if k else 0, 0)), parent) if k else b.addNode("j0"))
        parent = joints[-1]
        bend = Animation(f"bend{k}", joints[-1], FRAMES / 30)
        for f in range(FRAMES + 1):
            bend.addKeyframe(f / 30, Transform(translation=float3(0, 1 if k else 0, 0), rotationEuler=float3(0, 0, 0.3 * math.sin(f + k))))
        b.addAnimation(bend)
    normals = positions * [1, 0, 1]
    mesh = TriangleMesh.from_arrays(positions, normals, np.zeros((len(positions), 2)), triangles.reshape(-1), name="tube")
    mesh_id = b.addTriangleMesh(mesh, StandardMaterial("Skin"), True)
    b.addMeshInstance(b.addNode("holder"), mesh_id)
    inverse_bind = np.stack([np.linalg.inv(_translation(0, k, 0)) for k in range(JOINTS)])
    b._set_mesh_skin(mesh_id, MeshSkin("tube", joints, inverse_bind, indices, weights))
    return b.getScene(), triangles


def _translation(x, y, z):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def measure_ours(scene, data_dir: Path, vertex_count: int) -> dict:
    """Median ms per frame of skinning and of the rest of the update; saves each frame's posed vertices."""
    skin = scene._geometry.skins[0]
    skinning, rest = [], []
    for f in range(1, FRAMES):
        t = f / 30 + 1e-3
        scene._animate(t)
        matrices = skin.skinning_matrices(scene._geometry.world)
        t0 = time.perf_counter()
        scene.native.set_skinning_matrices(skin.mesh_id, matrices)
        t1 = time.perf_counter()
        scene.native.update(0)
        t2 = time.perf_counter()
        skinning.append(t1 - t0)
        rest.append(t2 - t1)
        np.save(data_dir / f"pos_{vertex_count}_{f}.npy", scene.native.get_mesh_arrays(0)["positions"])
    return {"skin_ms": float(np.median(skinning)) * 1e3, "rebuild_ms": float(np.median(rest)) * 1e3}


def embree_worker(data_dir: Path, threads: int) -> None:
    """Runs in the embreex venv: median rtcCommitScene ms over the saved frames of each size."""
    if threads == 1:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    from embreex import rtcore_scene
    from embreex.mesh_construction import TriangleMesh

    results = {}
    for size in json.loads((data_dir / "sizes.json").read_text()):
        triangles = np.load(data_dir / f"tri_{size}.npy").astype(np.int32)
        builds = []
        for f in range(1, FRAMES):
            scene = rtcore_scene.EmbreeScene()
            TriangleMesh(scene, np.load(data_dir / f"pos_{size}_{f}.npy"), triangles)
            start = time.perf_counter()
            scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32))  # commits (builds) the scene
            builds.append(time.perf_counter() - start)
        results[str(size)] = float(np.median(builds)) * 1e3
    (data_dir / f"embree_{threads}.json").write_text(json.dumps(results))


def main() -> None:
    import common
    import falcor

    parser = common.argument_parser(__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="comma-separated vertex counts")
    parser.add_argument("--embree-python", default="/tmp/venv-embree/bin/python", help="Python of the venv with embreex")
    args = parser.parse_args()
    env = common.environment()
    print(common.environment_line(env))
    sizes = [int(s) for s in args.sizes.split(",")]
    rows, results = [], []
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp)
        (data_dir / "sizes.json").write_text(json.dumps(sizes))
        for threads in (int(t) for t in args.threads.split(",")):
            falcor.set_thread_count(threads)
            ours = {}
            for size in sizes:
                scene, triangles = skinned_scene(size)
                np.save(data_dir / f"tri_{size}.npy", triangles)
                ours[size] = measure_ours(scene, data_dir, size)
            embree = {}
            if Path(args.embree_python).exists():
                subprocess.run([args.embree_python, __file__, "--embree-worker", tmp, str(threads)], check=True)
                embree = json.loads((data_dir / f"embree_{threads}.json").read_text())
            for size in sizes:
                o, e = ours[size], embree.get(str(size))
                total = o["skin_ms"] + o["rebuild_ms"]
                rows.append([size, threads, o["skin_ms"], o["rebuild_ms"], total, e if e is not None else "n/a",
                             f"{e / total:.2f}x" if e else "n/a"])
                results.append({"vertices": size, "threads": threads, **o, "embree_build_ms": e})
    common.print_table("Skinned tube, ms per frame (median of 11 frames)",
                       ["vertices", "threads", "skin", "tree+update", "ours total", "embree build", "embree/ours"], rows)
    common.write_json(args.json, env, skinning=results)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--embree-worker":
        embree_worker(Path(sys.argv[2]), int(sys.argv[3]))
    else:
        main()
