"""Scene loading per file format: the same ~1M-triangle mesh as PLY, pbrt-v4 (`plymesh`), USD (usdc)
and FBX, each loaded by `falcor.load_scene` in a fresh process, without the scene cache and from it.

The mesh is pathtracer_mitsuba.py's terrain (999,698 triangles) with smooth vertex normals, as a
modelling tool exports it (a file without normals costs more: flat ones are generated; Assimp's
GenSmoothNormals step alone takes about 2 s for this mesh in FBX). The pbrt file references the PLY,
as pbrt-v4 scenes do; the usdc file is written with usd-core and the FBX file by Assimp's own
exporter (the `assimp` tool of the cmeel-assimp wheel), so neither is shaped by our importers.
Each figure is the fastest of `--repeats` fresh processes: `load` is `load_scene` alone, `process`
the whole `python -c` run (interpreter start, `import falcor`, the load), what a user waits for.
A format whose writer is missing (no usd-core, no assimp tool) is reported as skipped, naming it.

Usage: PYTHONPATH=build/<dir>/python python benchmarks/scene_loading.py [--repeats 3] [--json out.json]
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np

import common
from pathtracer_mitsuba import terrain_mesh

LOAD = """
import sys, time
import falcor
start = time.perf_counter()
scene = falcor.load_scene(sys.argv[1], falcor.SceneBuilderFlags(int(sys.argv[2])))
print(time.perf_counter() - start, scene.stats["uniqueTriangleCount"])
"""


def vertex_normals(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Area-weighted smooth normals, unit length (float32)."""
    a, b, c = (positions[indices[:, k]].astype(np.float64) for k in range(3))
    face = np.cross(b - a, c - a)
    normals = np.zeros((len(positions), 3))
    for k in range(3):
        for axis in range(3):
            normals[:, axis] += np.bincount(indices[:, k], weights=face[:, axis], minlength=len(positions))
    return (normals / np.linalg.norm(normals, axis=1, keepdims=True)).astype(np.float32)


def write_ply(path: Path, positions: np.ndarray, normals: np.ndarray, indices: np.ndarray) -> None:
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(positions)}\n"
              "property float x\nproperty float y\nproperty float z\nproperty float nx\nproperty float ny\nproperty float nz\n"
              f"element face {len(indices)}\nproperty list uchar int vertex_indices\nend_header\n")
    faces = np.zeros(len(indices), dtype=[("count", "u1"), ("corners", "<i4", (3,))])
    faces["count"], faces["corners"] = 3, indices
    path.write_bytes(header.encode() + np.hstack([positions, normals]).astype("<f4").tobytes() + faces.tobytes())


def write_pbrt(folder: Path, ply: Path) -> Path:
    path = folder / "terrain.pbrt"
    path.write_text('LookAt 0 3 3  0 0 0  0 1 0\nCamera "perspective" "float fov" [45]\nWorldBegin\n'
                    'Material "diffuse" "rgb reflectance" [0.5 0.5 0.5]\n'
                    f'Shape "plymesh" "string filename" ["{ply.name}"]\n')
    return path


def write_usdc(folder: Path, positions: np.ndarray, normals: np.ndarray, indices: np.ndarray) -> Path:
    from pxr import Sdf, Usd, UsdGeom, Vt

    path = folder / "terrain.usdc"
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    mesh = UsdGeom.Mesh.Define(stage, Sdf.Path("/Terrain"))
    mesh.GetPointsAttr().Set(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(positions, np.float32)))
    mesh.GetFaceVertexCountsAttr().Set(Vt.IntArray.FromNumpy(np.full(len(indices), 3, np.int32)))
    mesh.GetFaceVertexIndicesAttr().Set(Vt.IntArray.FromNumpy(np.ascontiguousarray(indices.ravel(), np.int32)))
    mesh.GetNormalsAttr().Set(Vt.Vec3fArray.FromNumpy(normals))
    mesh.SetNormalsInterpolation(UsdGeom.Tokens.vertex)
    mesh.GetSubdivisionSchemeAttr().Set(UsdGeom.Tokens.none)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.GetRootLayer().Save()
    return path


def assimp_tool() -> str | None:
    scripts = Path(sysconfig.get_paths()["scripts"])
    return shutil.which("assimp", path=f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}")


def write_fbx(folder: Path, ply: Path) -> Path:
    tool = assimp_tool()
    if tool is None:
        raise FileNotFoundError("the 'assimp' tool of the cmeel-assimp wheel")
    path = folder / "terrain.fbx"
    subprocess.run([tool, "export", str(ply), str(path), "-ffbx"], check=True, capture_output=True)
    return path


def scene_files(folder: Path) -> list[tuple[str, Path | str]]:
    """(format, file) per format; file is the reason instead when its writer is missing."""
    positions, indices = terrain_mesh(707)
    normals = vertex_normals(positions, indices)
    ply = folder / "terrain.ply"
    write_ply(ply, positions, normals, indices)
    files: list[tuple[str, Path | str]] = [("PLY", ply), ("pbrt-v4 (plymesh)", write_pbrt(folder, ply))]
    for name, write in (("USD (usdc)", lambda: write_usdc(folder, positions, normals, indices)),
                        ("FBX (binary)", lambda: write_fbx(folder, ply))):
        try:
            files.append((name, write()))
        except (ImportError, FileNotFoundError, subprocess.CalledProcessError) as e:
            files.append((name, f"skipped: {e}"))
    return files


def fresh_load(path: Path, flags: int, env: dict) -> tuple[float, float, int]:
    """(load seconds, process seconds, triangles) of one fresh `python -c` process."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", LOAD, str(path), str(flags)], capture_output=True, text=True,
                            env=env, check=True)
    process = time.perf_counter() - start
    load, triangles = result.stdout.split()[-2:]
    return float(load), process, int(triangles)


def measure(path: Path, repeats: int, cache: Path) -> dict:
    import falcor

    env = {**os.environ, "FALCOR_SCENE_CACHE_DIR": str(cache)}
    use_cache = int(falcor.SceneBuilderFlags.UseCache)
    plain = min(fresh_load(path, 0, env) for _ in range(repeats))
    fresh_load(path, use_cache, env)  # the miss: builds and writes the cache
    cached = min(fresh_load(path, use_cache, env) for _ in range(repeats))
    return {"load_s": plain[0], "process_s": plain[1], "cached_load_s": cached[0], "cached_process_s": cached[1],
            "triangles": plain[2]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per figure (the fastest is kept)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    env = common.environment()
    print(common.environment_line(env))
    rows, table = [], []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, file in scene_files(folder):
            if isinstance(file, str):
                table.append([name, file, "-", "-", "-", "-"])
                continue
            try:
                r = {"format": name, **measure(file, args.repeats, folder / f"cache-{file.suffix[1:]}")}
            except subprocess.CalledProcessError as e:
                table.append([name, f"failed: {(e.stderr or '').strip().splitlines()[-1:]}", "-", "-", "-", "-"])
                continue
            rows.append(r)
            table.append([name, r["triangles"], r["load_s"], r["process_s"], r["cached_load_s"], r["cached_process_s"]])
    common.print_table("Loading a 999,698-triangle mesh (fresh process each; fastest of the repeats)",
                       ["format", "triangles", "load s", "process s", "cached load s", "cached process s"], table)
    common.write_json(args.json, env, loads=rows)


if __name__ == "__main__":
    main()
