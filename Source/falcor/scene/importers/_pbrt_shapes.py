"""pbrt-v4 shapes -> triangle arrays in the shape's object space.

Each function returns a `Geometry`: positions (N, 3), optional normals (N, 3), optional texture
coordinates (N, 2) in pbrt's convention (v up), triangles (T, 3). Analytic shapes are tessellated
at a fixed resolution (a file can't ask for more triangles); Loop subdivision is capped at
`MAX_SUBDIV_TRIANGLES`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import falcor_ext as _ext
from . import error
from ._pbrt_tokenizer import Params

SPHERE_SEGMENTS = (64, 32)  # (around phi, along theta)
DISK_SEGMENTS = 64
MAX_SUBDIV_TRIANGLES = 1_000_000


@dataclass
class Geometry:
    positions: np.ndarray
    normals: np.ndarray | None
    texcoords: np.ndarray | None
    triangles: np.ndarray


def _indices(params: Params, name: str, per_face: int, vertex_count: int, shape: str) -> np.ndarray:
    raw = params.array(name)
    if raw is None or len(raw) == 0:
        if vertex_count == per_face:  # pbrt: a single face may omit its indices
            return np.arange(per_face).reshape(1, per_face)
        raise params.fail(name, f"{shape}: parameter '{name}' is missing")
    if len(raw) % per_face:
        raise params.fail(name, f"{shape}: {len(raw)} indices are not a multiple of {per_face}")
    if raw.min() < 0 or raw.max() >= vertex_count:  # checked before the cast: 1e300 has no int64
        bad = raw.max() if raw.max() >= vertex_count else raw.min()
        raise params.fail(name, f"{shape}: vertex index {bad:g} is out of range (the shape has {vertex_count} vertices)")
    return raw.astype(np.int64).reshape(-1, per_face)


def _per_vertex(params: Params, name: str, width: int, count: int, shape: str, warn) -> np.ndarray | None:
    values = params.array(name, width)
    if values is None:
        return None
    if len(values) != count:
        warn(f"{params.where(name)}: {shape}: '{name}' has {len(values)} entries for {count} vertices; it is skipped")
        return None
    return values


def _positions(params: Params, shape: str) -> np.ndarray:
    p = params.array("P", 3)
    if p is None or len(p) == 0:
        raise params.fail("P", f"{shape}: parameter 'P' (vertex positions) is missing")
    return p


def trianglemesh(params: Params, warn) -> Geometry:
    p = _positions(params, "trianglemesh")
    tri = _indices(params, "indices", 3, len(p), "trianglemesh")
    uv = _per_vertex(params, "uv", 2, len(p), "trianglemesh", warn)
    if uv is None and params.has("st"):  # pbrt-v3 spelling
        uv = _per_vertex(params, "st", 2, len(p), "trianglemesh", warn)
    return Geometry(p, _per_vertex(params, "N", 3, len(p), "trianglemesh", warn), uv, tri)


def bilinearmesh(params: Params, warn) -> Geometry:
    """Each patch (p00, p10, p01, p11) becomes the triangles (p00, p10, p11) and (p00, p11, p01), whose
    normals point along pbrt's patch normal cross(dp/du, dp/dv)."""
    p = _positions(params, "bilinearmesh")
    quads = _indices(params, "indices", 4, len(p), "bilinearmesh")
    tri = np.concatenate([quads[:, [0, 1, 3]], quads[:, [0, 3, 2]]], axis=1).reshape(-1, 3)
    uv = _per_vertex(params, "uv", 2, len(p), "bilinearmesh", warn)
    return Geometry(p, _per_vertex(params, "N", 3, len(p), "bilinearmesh", warn), uv, tri)


def _grid_triangles(rows: int, cols: int) -> np.ndarray:
    """Triangles of a (rows + 1) x (cols + 1) vertex grid, counter-clockwise seen from +u x +v."""
    r, c = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
    i00 = r * (cols + 1) + c
    i01, i10, i11 = i00 + 1, i00 + cols + 1, i00 + cols + 2
    return np.stack([i00, i01, i11, i00, i11, i10], axis=-1).reshape(-1, 3)


def sphere(params: Params, warn) -> Geometry:
    """pbrt's sphere about the z axis: radius, zmin, zmax, phimax (degrees); normals point outwards."""
    radius = params.float("radius", 1.0)
    zmin = float(np.clip(min(params.float("zmin", -radius), params.float("zmax", radius)), -abs(radius), abs(radius)))
    zmax = float(np.clip(max(params.float("zmin", -radius), params.float("zmax", radius)), -abs(radius), abs(radius)))
    phimax = math.radians(float(np.clip(params.float("phimax", 360.0), 0.0, 360.0)))
    if radius == 0 or phimax == 0 or zmin == zmax:
        return Geometry(np.zeros((0, 3)), None, None, np.zeros((0, 3), np.int64))
    theta_min, theta_max = math.acos(zmin / abs(radius)), math.acos(zmax / abs(radius))
    cols, rows = SPHERE_SEGMENTS
    u = np.linspace(0.0, 1.0, cols + 1)
    v = np.linspace(0.0, 1.0, rows + 1)
    vv, uu = np.meshgrid(v, u, indexing="ij")
    phi, theta = uu * phimax, theta_min + vv * (theta_max - theta_min)
    n = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], axis=-1).reshape(-1, 3)
    uv = np.stack([uu, vv], axis=-1).reshape(-1, 2)
    return Geometry(n * abs(radius), n.copy(), uv, _grid_triangles(rows, cols))


def cylinder(params: Params, warn) -> Geometry:
    """pbrt's cylinder about the z axis: radius, zmin, zmax, phimax (degrees); normals point outwards."""
    radius = abs(params.float("radius", 1.0))
    z0, z1 = sorted((params.float("zmin", -1.0), params.float("zmax", 1.0)))
    phimax = math.radians(float(np.clip(params.float("phimax", 360.0), 0.0, 360.0)))
    if radius == 0 or phimax == 0 or z0 == z1:
        return Geometry(np.zeros((0, 3)), None, None, np.zeros((0, 3), np.int64))
    u = np.linspace(0.0, 1.0, SPHERE_SEGMENTS[0] + 1)
    v = np.linspace(0.0, 1.0, 2)
    vv, uu = np.meshgrid(v, u, indexing="ij")
    phi = uu * phimax
    n = np.stack([np.cos(phi), np.sin(phi), np.zeros_like(phi)], axis=-1).reshape(-1, 3)
    p = n * radius
    p[:, 2] = (z0 + vv * (z1 - z0)).reshape(-1)
    return Geometry(p, n, np.stack([uu, vv], axis=-1).reshape(-1, 2), _grid_triangles(1, SPHERE_SEGMENTS[0]))


def disk(params: Params, warn) -> Geometry:
    """pbrt's disk in the plane z = height facing +z: radius, innerradius, phimax (degrees)."""
    radius, inner = abs(params.float("radius", 1.0)), abs(params.float("innerradius", 0.0))
    height = params.float("height", 0.0)
    phimax = math.radians(float(np.clip(params.float("phimax", 360.0), 0.0, 360.0)))
    if radius == inner or phimax == 0:
        return Geometry(np.zeros((0, 3)), None, None, np.zeros((0, 3), np.int64))
    rings = 1
    u = np.linspace(0.0, 1.0, DISK_SEGMENTS + 1)
    v = np.linspace(0.0, 1.0, rings + 1)
    vv, uu = np.meshgrid(v, u, indexing="ij")
    r = radius + vv * (inner - radius)  # pbrt: v = (rMax - r) / (rMax - rInner)
    phi = uu * phimax
    p = np.stack([r * np.cos(phi), r * np.sin(phi), np.full_like(r, height)], axis=-1).reshape(-1, 3)
    uv = np.stack([uu, vv], axis=-1).reshape(-1, 2)
    normals = np.tile([0.0, 0.0, 1.0], (len(p), 1))
    return Geometry(p, normals, uv, _grid_triangles(rings, DISK_SEGMENTS))


def plymesh(params: Params, path_of, warn) -> Geometry:
    """Through the shared numpy PLY reader (`_ply_reader.read_ply`): positions, triangles (polygons as
    fans), normals and texture coordinates when the file has them (stored with pbrt's v-up origin)."""
    from ._ply_reader import read_ply

    filename = params.string("filename", "")
    if not filename:
        raise params.fail("filename", "plymesh: parameter 'filename' is missing")
    for name in ("displacement", "displacement.edgelength"):
        if params.has(name):
            warn(f"{params.where(name)}: plymesh '{name}' is skipped (no displacement)")
    path = path_of(filename)
    try:
        if not path.is_file():
            raise OSError("no such file")
        mesh = read_ply(path)
    except (_ext.ImporterError, OSError) as e:
        raise params.fail("filename", f"plymesh '{filename}': {e}") from None
    tri = np.asarray(mesh.indices, np.int64).reshape(-1, 3)
    if len(tri) and (tri.min() < 0 or tri.max() >= len(mesh.positions)):
        raise params.fail("filename", f"plymesh '{filename}': a vertex index is out of range")
    return Geometry(np.asarray(mesh.positions, np.float64), None if mesh.normals is None else np.asarray(mesh.normals, np.float64),
                    None if mesh.texcoords is None else np.asarray(mesh.texcoords, np.float64), tri)


# --- Loop subdivision ------------------------------------------------------------------------------

def loopsubdiv(params: Params, warn) -> Geometry:
    p = _positions(params, "loopsubdiv")
    tri = _indices(params, "indices", 3, len(p), "loopsubdiv")
    levels = max(0, params.int("levels", 3))
    allowed = 0
    while allowed < levels and len(tri) * 4 ** (allowed + 1) <= MAX_SUBDIV_TRIANGLES:
        allowed += 1
    if allowed < levels:
        warn(f"{params.where('levels')}: loopsubdiv: {levels} levels would make {len(tri)}·4^{levels} triangles; "
             f"subdivided {allowed} levels (at most {MAX_SUBDIV_TRIANGLES} triangles)")
    for _ in range(allowed):
        p, tri = loop_subdivide_once(p, tri)
    if allowed > 0:
        p = _loop_limit_positions(p, tri)
    return Geometry(p, smooth_normals(p, tri), None, tri)


def _edges(tri: np.ndarray):
    """Unique undirected edges, each half-edge's edge index, and how many faces share each edge."""
    half = np.stack([tri, np.roll(tri, -1, axis=1)], axis=-1).reshape(-1, 2)  # (v0,v1), (v1,v2), (v2,v0)
    key = np.sort(half, axis=1)
    edges, edge_of_half, faces_per_edge = np.unique(key, axis=0, return_inverse=True, return_counts=True)
    return edges, edge_of_half.reshape(-1), faces_per_edge


def _neighbour_sums(p, edges, boundary_edge):
    """Per vertex: the sum and number of its neighbours, and the same over boundary edges only."""
    n = len(p)
    a, b = edges[:, 0], edges[:, 1]
    total = np.zeros_like(p)
    np.add.at(total, a, p[b])
    np.add.at(total, b, p[a])
    valence = np.bincount(a, minlength=n) + np.bincount(b, minlength=n)
    bsum = np.zeros_like(p)
    ba, bb = a[boundary_edge], b[boundary_edge]
    np.add.at(bsum, ba, p[bb])
    np.add.at(bsum, bb, p[ba])
    bcount = np.bincount(ba, minlength=n) + np.bincount(bb, minlength=n)
    return total, valence, bsum, bcount


def loop_subdivide_once(p: np.ndarray, tri: np.ndarray):
    """One level of Loop subdivision (pbrt's rules: beta = 3/16 at valence 3 else 3/(8n); boundary
    vertices 3/4 · v + 1/8 · each boundary neighbour; boundary edge points at the midpoint)."""
    edges, edge_of_half, faces_per_edge = _edges(tri)
    boundary = faces_per_edge != 2
    opposite = np.roll(tri, -2, axis=1).reshape(-1)  # the vertex across each half-edge
    opp_sum = np.zeros((len(edges), 3))
    np.add.at(opp_sum, edge_of_half, p[opposite])
    mid = 0.5 * (p[edges[:, 0]] + p[edges[:, 1]])
    edge_points = np.where(boundary[:, None], mid, 0.75 * mid + 0.125 * opp_sum)

    total, valence, bsum, bcount = _neighbour_sums(p, edges, boundary)
    v = np.maximum(valence, 1)[:, None]
    beta = np.where(v == 3, 3.0 / 16.0, 3.0 / (8.0 * v))
    interior = (1.0 - v * beta) * p + beta * total
    on_boundary = (bcount >= 2)[:, None]
    vertex_points = np.where(on_boundary, 0.75 * p + 0.125 * bsum, interior)
    vertex_points = np.where((valence == 0)[:, None], p, vertex_points)

    e = len(p) + edge_of_half.reshape(-1, 3)  # e[:,0]: edge v0v1, e[:,1]: v1v2, e[:,2]: v2v0
    v0, v1, v2 = tri[:, 0], tri[:, 1], tri[:, 2]
    new_tri = np.concatenate([
        np.stack([v0, e[:, 0], e[:, 2]], 1), np.stack([v1, e[:, 1], e[:, 0]], 1),
        np.stack([v2, e[:, 2], e[:, 1]], 1), np.stack([e[:, 0], e[:, 1], e[:, 2]], 1)])
    return np.concatenate([vertex_points, edge_points]), new_tri


def _loop_limit_positions(p, tri):
    """Moves vertices to the Loop limit surface (pbrt does this after the last level)."""
    edges, _, faces_per_edge = _edges(tri)
    total, valence, bsum, bcount = _neighbour_sums(p, edges, faces_per_edge != 2)
    v = np.maximum(valence, 1)[:, None]
    beta = np.where(v == 3, 3.0 / 16.0, 3.0 / (8.0 * v))
    gamma = 1.0 / (v + 3.0 / (8.0 * beta))
    interior = (1.0 - v * gamma) * p + gamma * total
    boundary = 0.6 * p + 0.2 * bsum
    out = np.where((bcount >= 2)[:, None], boundary, interior)
    return np.where((valence == 0)[:, None], p, out)


def smooth_normals(p: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals (for subdivision surfaces)."""
    face = np.cross(p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]])
    n = np.zeros_like(p)
    for k in range(3):
        np.add.at(n, tri[:, k], face)
    length = np.linalg.norm(n, axis=1, keepdims=True)
    return np.where(length > 0, n / np.where(length > 0, length, 1.0), np.array([0.0, 0.0, 1.0]))


def check_finite(geometry: Geometry, params: Params, shape: str) -> None:
    for name, a in (("P", geometry.positions), ("N", geometry.normals), ("uv", geometry.texcoords)):
        if a is not None and not np.all(np.isfinite(a)):
            raise error(params.path, f"line {params.line}: {shape}: '{name}' holds NaN or infinite values")
