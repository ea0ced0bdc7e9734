"""Path tracing throughput: our PathTracer against Mitsuba 3 on the same scene, side by side.

Scene: the Lambertian Cornell box of shared/reference (Scenes/CornellBoxDiffuse.pyscene),
exported triangle for triangle (world space, PLY) to Mitsuba, or with --scene another .pyscene
of diffuse materials and emitters (their meshes, base colors and emission go to Mitsuba the same
way, and an environment map that varies with height only), or `--scene terrain`: a generated
heightfield of 999,698 triangles under a sky environment map. Both
engines: 640x360, independent uniform pixel samples with a box filter, next-event estimation
with MIS, no Russian roulette; ours `maxSurfaceBounces` B = Mitsuba `max_depth` B + 2 (see
shared/reference/README.md), ours with the power emissive sampler.

Mitsuba runs in a subprocess of a separate virtual environment (default /work/mitsuba-venv,
created with `python3 -m venv /work/mitsuba-venv && /work/mitsuba-venv/bin/pip install mitsuba`;
llvm_ad_rgb needs the system's libLLVM). Thread counts: both processes are pinned to that many
CPUs; ours also sets falcor.set_thread_count, Mitsuba drjit's pool. Mitsuba's LLVM variant
compiles its kernels on the first render: its timed render is the second one with the same
settings (the first, compile included, is reported apart).

With --profile-mitsuba, each Mitsuba run is repeated under `perf record` (Linux perf; only this
option needs it) and its samples are split between Embree's traversal (libembree) and the rest
of its rendering (Mitsuba's libraries and plugins, drjit, the kernels the LLVM variant compiled):
where Mitsuba's own time goes, and so how much of a sample's time budget traversal at Embree's
speed would leave for shading. With --repeats N, ours and Mitsuba are timed N times in
alternation per thread count; rates and ratios are medians, ratios taken within each round.

Reported: samples per second (width x height x spp / wall seconds of the render call), the ratio
ours / Mitsuba per variant and thread count, and the relative difference of the image means (a
check that both rendered the same light transport; expect a few 0.1 % at these sample counts).

Usage: PYTHONPATH=build/<dir>/python python benchmarks/pathtracer_mitsuba.py [--scene PATH|terrain] [--spp 64]
       [--threads 1,2] [--variants scalar_rgb,llvm_ad_rgb] [--bounces 3] [--mitsuba-python PATH] [--quick]
       [--repeats 1] [--profile-mitsuba]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads spin and would compete.

import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------------------------
# Exporting our scene for Mitsuba (runs with falcor)

def write_ply(path: Path, positions: np.ndarray, triangles: np.ndarray):
    """Binary little-endian PLY of world-space triangles."""
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(positions)}\n"
              "property float x\nproperty float y\nproperty float z\n"
              f"element face {len(triangles)}\nproperty list uchar int vertex_indices\nend_header\n")
    with open(path, "wb") as f:
        f.write(header.encode())
        f.write(np.asarray(positions, "<f4").tobytes())
        faces = np.empty(len(triangles), dtype=[("n", "u1"), ("i", "<i4", 3)])
        faces["n"], faces["i"] = 3, triangles
        f.write(faces.tobytes())


def export_scene(scene_path: Path, folder: Path) -> dict:
    """The scene as Mitsuba needs it: one PLY per instance with its material's diffuse color and
    emission (constants), and the camera. Only diffuse reflection and emission carry over."""
    import falcor

    scene = falcor.load_scene(str(scene_path))
    native = scene.native
    shapes = []
    for instance_id in range(native.instance_count):
        inst = native.get_instance(instance_id)
        mesh = native.get_mesh_arrays(inst["mesh_id"])
        matrix = np.asarray(inst["world"], np.float64)
        positions = mesh["positions"] @ matrix[:3, :3].T + matrix[:3, 3]
        # Mitsuba's front faces wind counter-clockwise; so do ours unless the instance says otherwise.
        triangles = mesh["triangles"][:, ::-1] if inst.get("front_face_cw", False) else mesh["triangles"]
        ply = folder / f"shape{instance_id}.ply"
        write_ply(ply, positions, triangles)
        material_id = inst["material_id"]
        shapes.append({"ply": str(ply), "reflectance": list(native.get_material_base_color(material_id, (0, 0)))[:3],
                       "emission": list(native.get_material_emission(material_id, (0, 0)))})
    env = None
    if scene.envMap is not None and scene.renderSettings.useEnvLight:
        # Our lat-long map and Mitsuba's agree in the polar angle (v) and differ by half a turn
        # in u: fine for skies that vary only with height, the only kind exported.
        if any(abs(float(r)) > 0 for r in (scene.envMap.rotation.x, scene.envMap.rotation.z)):
            raise ValueError("only env maps rotated about the up axis carry over to Mitsuba")
        env = {"filename": str(scene.envMap.path), "scale": float(scene.envMap.intensity)}
    cam = scene.camera
    return {
        "shapes": shapes,
        "envmap": env,
        "camera": {"origin": list(cam.position), "target": list(cam.target), "up": list(cam.up),
                   "fov_y": math.degrees(2 * math.atan(0.5 * cam.frameHeight / cam.focalLength))},
    }


# ---------------------------------------------------------------------------------------------
# Mitsuba worker (runs in the Mitsuba environment, without falcor)

def mitsuba_scene(mi, desc: dict, width: int, height: int, spp: int, max_depth: int) -> dict:
    cam = desc["camera"]
    scene = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": max_depth, "rr_depth": 1 << 20},
        "sensor": {
            "type": "perspective", "fov": cam["fov_y"], "fov_axis": "y",
            "to_world": mi.ScalarTransform4f().look_at(origin=cam["origin"], target=cam["target"], up=cam["up"]),
            "sampler": {"type": "independent", "sample_count": spp},
            "film": {"type": "hdrfilm", "width": width, "height": height, "rfilter": {"type": "box"}, "pixel_format": "rgb"},
        },
    }
    for i, shape in enumerate(desc["shapes"]):
        entry = {"type": "ply", "filename": shape["ply"], "face_normals": True,
                 "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": shape["reflectance"]}}}
        if any(e > 0 for e in shape["emission"]):
            entry["emitter"] = {"type": "area", "radiance": {"type": "rgb", "value": shape["emission"]}}
        scene[f"shape{i}"] = entry
    if desc.get("envmap"):
        scene["sky"] = {"type": "envmap", "filename": desc["envmap"]["filename"], "scale": desc["envmap"]["scale"]}
    return scene


# ---------------------------------------------------------------------------------------------
# The large scene: a terrain of about a million triangles under a sky

TERRAIN_SCENE = """
mesh = TriangleMesh.createFromFile(r'{ply}')
ground = PBRTDiffuseMaterial('Ground')
ground.baseColor = float4(0.6, 0.55, 0.45, 1)
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Terrain', Transform()), sceneBuilder.addTriangleMesh(mesh, ground))
envMap = EnvMap(r'{sky}')
sceneBuilder.envMap = envMap
sceneBuilder.renderSettings = SceneRenderSettings(useEnvLight=True, useAnalyticLights=False, useEmissiveLights=False)
camera = Camera('Main')
camera.position = float3(0, 1.2, 3.2)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def terrain_mesh(quads_per_side: int = 707) -> tuple[np.ndarray, np.ndarray]:
    """A rolling heightfield of 2 x quads_per_side² triangles (707: 999,698) over [-2, 2]²:
    float32 positions and uint32 triangles, counter-clockwise seen from above (+y)."""
    n = quads_per_side + 1
    x, z = np.meshgrid(np.linspace(-2, 2, n), np.linspace(-2, 2, n))
    y = 0.15 * np.sin(3 * x) * np.cos(2.5 * z) + 0.05 * np.sin(11 * x + 7 * z) + 0.02 * np.cos(23 * z - 5 * x)
    positions = np.stack([x, y, z], -1).reshape(-1, 3)
    i = np.arange(quads_per_side)
    a = (i[:, None] * n + i[None, :]).ravel()  # Lower-left corner of each quad.
    triangles = np.concatenate([np.stack([a, a + n, a + 1], -1), np.stack([a + 1, a + n, a + n + 1], -1)])
    return positions.astype(np.float32), triangles.astype(np.uint32)


def write_terrain_scene(folder: Path, quads_per_side: int = 707) -> Path:
    """terrain_mesh under a sky that brightens towards the zenith (rows only, so both renderers'
    lat-long maps agree), as a .pyscene with its PLY and EXR beside it."""
    from falcor.image_io import write_exr

    write_ply(folder / "terrain.ply", *terrain_mesh(quads_per_side))
    theta = (np.arange(64) + 0.5) / 64 * np.pi
    sky = (0.4 + 1.6 * np.clip(np.cos(theta), 0, 1) ** 2)[:, None, None] * np.array([0.55, 0.7, 1.0])
    write_exr(folder / "sky.exr", np.broadcast_to(sky, (64, 128, 3)).astype(np.float32), half=False)
    scene = folder / "Terrain.pyscene"
    scene.write_text(TERRAIN_SCENE.format(ply=folder / "terrain.ply", sky=folder / "sky.exr"))
    return scene


def run_mitsuba_worker(args):
    """Times one variant at one thread count and prints a JSON line."""
    import drjit as dr
    import mitsuba as mi

    mi.set_variant(args.variant)
    # A pool of one thread deadlocks while Mitsuba loads an environment map (seen with 3.9.1):
    # keep two, the CPU pinning still limits the worker to `threads` cores.
    dr.set_thread_count(max(2, args.threads))
    desc = json.loads(Path(args.scene_json).read_text())
    scene = mi.load_dict(mitsuba_scene(mi, desc, args.width, args.height, args.spp, args.bounces + 2))
    start = time.perf_counter()
    image = np.asarray(mi.render(scene, spp=args.spp))  # Kernels compiled here (LLVM).
    first = time.perf_counter() - start
    start = time.perf_counter()
    image = np.asarray(mi.render(scene, spp=args.spp, seed=1))
    timed = time.perf_counter() - start
    print(json.dumps({"first_seconds": first, "seconds": timed, "mean": float(image.mean())}))


# ---------------------------------------------------------------------------------------------
# Driver (runs with falcor)

ALL_CPUS = sorted(os.sched_getaffinity(0))


def pin(threads: int) -> list[int]:
    """The first `threads` CPUs this process was allowed to use at start."""
    return ALL_CPUS[:threads]


def time_ours(scene_path: Path, args, threads: int) -> dict:
    import falcor

    falcor.set_thread_count(threads)
    props = {"emissiveSampler": "Power", "useRussianRoulette": False}
    # Loaded once, as Mitsuba's scene: the timed render is the render alone (BVH built at the warm-up).
    scene = falcor.load_scene(str(scene_path))
    falcor.render(scene, spp=1, width=args.width, height=args.height, max_bounces=args.bounces, properties=props)  # Warm-up.
    start = time.perf_counter()
    image = falcor.render(scene, spp=args.spp, width=args.width, height=args.height, max_bounces=args.bounces, properties=props)
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "mean": float(image.mean())}


def launch_mitsuba_worker(args, scene_json: Path, variant: str, threads: int, prefix: tuple = ()) -> str:
    """The Mitsuba worker in the Mitsuba venv, pinned to `threads` CPUs, its command line behind
    `prefix` (a profiler); returns its standard output."""
    cmd = [*prefix, args.mitsuba_python, __file__, "--mitsuba-worker", "--variant", variant, "--threads", str(threads), "--scene-json",
           str(scene_json), "--spp", str(args.spp), "--width", str(args.width), "--height", str(args.height), "--bounces", str(args.bounces)]
    cpus = pin(threads)
    run = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=lambda: os.sched_setaffinity(0, cpus))
    if run.returncode != 0:
        raise RuntimeError(f"Mitsuba worker failed ({variant}, {threads} threads{', ' + prefix[0] if prefix else ''}):\n{run.stderr[-3000:]}")
    return run.stdout


def time_mitsuba(args, scene_json: Path, variant: str, threads: int) -> dict:
    return json.loads(launch_mitsuba_worker(args, scene_json, variant, threads).strip().splitlines()[-1])


# Shared objects whose samples are not rendering: Python, the kernel, the loader, libc, LLVM
# (compiling the LLVM variant's kernels), Python extension modules and the PLY loader.
NOT_RENDERING = re.compile(r"python|kernel|ld-linux|libc[.-]|libLLVM|cpython|^ply[.]so")


def profile_mitsuba(args, scene_json: Path, variant: str, threads: int) -> dict:
    """The Mitsuba worker again, under `perf record`: the shares of its samples in Embree's traversal
    and in the rest of its rendering; scene loading, BVH build, LLVM compilation and Python left out."""
    if not shutil.which("perf"):
        raise SystemExit("--profile-mitsuba needs Linux perf (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "perf.data"
        launch_mitsuba_worker(args, scene_json, variant, threads, prefix=("perf", "record", "-q", "-F", "1999", "-o", str(data), "--"))
        report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "dso,sym", "--stdio"],
                                capture_output=True, text=True, check=True).stdout
    embree = rest = 0.0
    for line in report.splitlines():
        match = re.match(r"\s*([0-9.]+)%\s+(\S+(?: tid \d+)?)\s+\[.\]\s+(.*)$", line)
        if not match:
            continue
        share, dso, symbol = float(match.group(1)), match.group(2), match.group(3)
        if "embree" in dso:
            # Traversal only: Embree's BVH build (at scene load) is not rendering.
            if re.search(r"intersect|occluded", symbol, re.IGNORECASE):
                embree += share
        elif not NOT_RENDERING.search(dso):
            rest += share  # Mitsuba's libraries and plugins, drjit, and the kernels its JIT compiled ("[JIT] tid N").
    return {"embree": embree, "rest": rest}


def measure_round(args, scene_json: Path, variants: list[str], threads: int, samples: int) -> dict:
    """Ours, then each Mitsuba variant, back to back: rates (samples/s) measured minutes apart on a
    shared machine drift, so ratios are taken within a round."""
    ours = time_ours(args.scene, args, threads)
    result = {"ours": samples / ours["seconds"], "ours_mean": ours["mean"]}
    for variant in variants:
        mit = time_mitsuba(args, scene_json, variant, threads)
        result[variant] = samples / mit["seconds"]
        result[variant + "_first_s"] = mit["first_seconds"]
        result[variant + "_mean_diff"] = (ours["mean"] - mit["mean"]) / mit["mean"]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scene", default=str(REPO / "Scenes" / "CornellBoxDiffuse.pyscene"),
                        help="a .pyscene of diffuse materials and emitters, or 'terrain' (generated: ~1M triangles, env map)")
    parser.add_argument("--spp", type=int, default=64)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=360)
    parser.add_argument("--bounces", type=int, default=3, help="our maxSurfaceBounces (Mitsuba max_depth = this + 2)")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--variants", default="scalar_rgb,llvm_ad_rgb")
    parser.add_argument("--mitsuba-python", default=os.environ.get("MITSUBA_PYTHON", "/work/mitsuba-venv/bin/python"))
    parser.add_argument("--quick", action="store_true", help="a smoke run: 160x90, 4 spp")
    parser.add_argument("--repeats", type=int, default=1,
                        help="rounds per thread count (ours, then Mitsuba, back to back); medians are reported")
    parser.add_argument("--profile-mitsuba", action="store_true",
                        help="also run each Mitsuba variant under perf: the share of its render in Embree")
    parser.add_argument("--mitsuba-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--variant", help=argparse.SUPPRESS)
    parser.add_argument("--scene-json", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.mitsuba_worker:
        args.threads = int(args.threads)
        return run_mitsuba_worker(args)
    if args.quick:
        args.width, args.height, args.spp = 160, 90, 4
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    threads = [int(t) for t in args.threads.split(",")]
    variants = args.variants.split(",")
    samples = args.width * args.height * args.spp
    with tempfile.TemporaryDirectory() as tmp:
        args.scene = write_terrain_scene(Path(tmp)) if args.scene == "terrain" else Path(args.scene)
        scene_json = Path(tmp) / "scene.json"
        scene_json.write_text(json.dumps(export_scene(args.scene, Path(tmp))))
        rows = []
        for n in threads:
            os.sched_setaffinity(0, pin(n))
            rounds = [measure_round(args, scene_json, variants, n, samples) for _ in range(args.repeats)]
            row = {"threads": n, "ours": statistics.median(r["ours"] for r in rounds), "ours_mean": rounds[0]["ours_mean"]}
            for variant in variants:
                row[variant] = statistics.median(r[variant] for r in rounds)
                ratios = [r["ours"] / r[variant] for r in rounds]
                row[variant + "_ratio"], row[variant + "_ratios"] = statistics.median(ratios), ratios
                row[variant + "_first_s"] = rounds[0][variant + "_first_s"]
                row[variant + "_mean_diff"] = rounds[0][variant + "_mean_diff"]
                if args.profile_mitsuba:
                    row[variant + "_profile"] = profile_mitsuba(args, scene_json, variant, n)
            rows.append(row)

    rounds = f", median of {args.repeats} rounds" if args.repeats > 1 else ""
    print(f"\nScene {args.scene.name}, {args.width}x{args.height}, {args.spp} spp, maxSurfaceBounces {args.bounces} "
          f"(Mitsuba max_depth {args.bounces + 2}); samples per second (M = 1e6){rounds}\n")
    header = "| threads | ours | " + " | ".join(f"{v} | ours/{v} | mean diff" for v in variants) + " |"
    print(header)
    print("|" + "---|" * (2 + 3 * len(variants)))
    for r in rows:
        cells = [str(r["threads"]), f"{r['ours'] / 1e6:.3f} M"]
        for v in variants:
            cells += [f"{r[v] / 1e6:.3f} M", f"{r[v + '_ratio']:.2f}", f"{100 * r[v + '_mean_diff']:+.2f} %"]
        print("| " + " | ".join(cells) + " |")
    for v in variants:
        print(f"{v}: first render (compile included) " + ", ".join(f"{r['threads']} thr {r[v + '_first_s']:.2f} s" for r in rows))
    if args.repeats > 1:
        for v in variants:
            print(f"ours/{v} per round: " + "; ".join(f"{r['threads']} thr " + ", ".join(f"{x:.2f}" for x in r[v + "_ratios"]) for r in rows))
    if args.profile_mitsuba:
        print("\nWhere Mitsuba's rendering time goes (perf samples; scene loading and Python left out):\n")
        print("| variant | threads | in Embree | rest of rendering | Embree's share | Embree ns per sample |")
        print("|---|---|---|---|---|---|")
        for r in rows:
            for v in variants:
                prof = r[v + "_profile"]
                share = prof["embree"] / max(prof["embree"] + prof["rest"], 1e-9)
                ns = 1e9 * share * r["threads"] / r[v]  # CPU time per sample, spent in Embree.
                print(f"| {v} | {r['threads']} | {prof['embree']:.1f} % | {prof['rest']:.1f} % | {100 * share:.0f} % | {ns:.0f} |")


if __name__ == "__main__":
    main()
