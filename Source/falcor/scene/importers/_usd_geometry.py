"""Polygon meshes of the USD importer: triangulation, primvars, normals, Catmull-Clark refinement and
the implicit prims (Sphere, Cube, Cylinder, Cone, Capsule, Plane) tessellated as USD's renderer
(Hydra/Storm's GeomUtil mesh generators, 10 radial segments) does.

Everything here works on numpy arrays; pxr is only touched by the callers in usd.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Storm's tessellation of the implicit prims (hdsi implicitSurfaceSceneIndex).
NUM_RADIAL = 10
NUM_SPHERE_AXIAL = 10
NUM_CAPSULE_CAP_AXIAL = 4
# Refinement stops (and the cage is used) past this many refined faces or levels.
MAX_REFINED_FACES = 2_000_000
MAX_REFINEMENT_LEVEL = 8


class MeshDataError(ValueError):
    """The mesh's arrays contradict each other (counts, indices, primvar sizes)."""


@dataclass
class Polygons:
    """A polygon mesh as USD stores it: face vertex counts and indices into points."""

    points: np.ndarray  # (V, 3) float64
    counts: np.ndarray  # (F,) int64
    indices: np.ndarray  # (sum(counts),) int64
    scheme: str = "none"  # subdivision scheme: none, catmullClark, loop, bilinear
    left_handed: bool = False

    def validate(self):
        if self.counts.size and self.counts.min() < 0:
            raise MeshDataError("faceVertexCounts has a negative count")
        if int(self.counts.sum()) != len(self.indices):
            raise MeshDataError(f"faceVertexCounts adds up to {int(self.counts.sum())} but there are "
                                f"{len(self.indices)} faceVertexIndices")
        if self.indices.size and (self.indices.min() < 0 or self.indices.max() >= len(self.points)):
            raise MeshDataError(f"a face vertex index is outside the {len(self.points)} points")
        if not np.all(np.isfinite(self.points)):
            raise MeshDataError("points are not all finite")


@dataclass
class Primvar:
    """A primvar flattened to one value per element of its interpolation."""

    values: np.ndarray  # (K, C)
    interpolation: str  # constant, uniform, varying, vertex, faceVarying


@dataclass
class Triangles:
    """Fan triangulation of Polygons: for each triangle its 3 point indices, its 3 face-vertex (corner)
    indices and the polygon it came from."""

    points: np.ndarray  # (T, 3) indices into Polygons.points
    corners: np.ndarray  # (T, 3) indices into Polygons.indices
    faces: np.ndarray  # (T,) index of the polygon


def triangulate(poly: Polygons, holes=()) -> Triangles:
    """Fan triangulation (as Falcor's and Hydra's): polygon (v0, v1, ..., vn) gives (v0, vk, vk+1);
    left-handed polygons swap the last two so that front faces are counter-clockwise. Faces with
    fewer than 3 vertices and hole faces give no triangles."""
    counts = poly.counts
    starts = np.cumsum(counts) - counts
    per_face = np.maximum(counts - 2, 0)
    if len(holes):
        hole = np.asarray(holes, np.int64)
        per_face[hole[(hole >= 0) & (hole < len(counts))]] = 0
    faces = np.repeat(np.arange(len(counts)), per_face)
    k = np.arange(len(faces)) - np.repeat(np.cumsum(per_face) - per_face, per_face)
    first = starts[faces]
    second, third = (first + k + 2, first + k + 1) if poly.left_handed else (first + k + 1, first + k + 2)
    corners = np.stack([first, second, third], axis=1)
    return Triangles(poly.indices[corners], corners, faces)


def flat_normals(poly: Polygons, tris: Triangles) -> np.ndarray:
    """One normal per polygon (the sum of its fan triangles' normals), as Falcor generates for meshes
    without normals; (F, 3), zero for degenerate polygons."""
    p = poly.points
    a, b, c = p[tris.points[:, 0]], p[tris.points[:, 1]], p[tris.points[:, 2]]
    e1, e2 = b - a, c - a
    # By components: np.cross and np.add.at are each several times slower on a million triangles.
    cross = np.column_stack([e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1], e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2],
                             e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]])
    if len(tris.faces) == len(poly.counts) and np.array_equal(tris.faces, np.arange(len(poly.counts))):
        # every polygon one triangle: its normal is its cross product
        return _normalize(cross)
    normals = np.zeros((len(poly.counts), 3))
    for axis in range(3):
        normals[:, axis] = np.bincount(tris.faces, weights=cross[:, axis], minlength=len(poly.counts))
    return _normalize(normals)


def smooth_normals(poly: Polygons) -> np.ndarray:
    """Per-point normals as Hydra computes them for subdivision surfaces: at every polygon corner the
    cross product of its two edges, summed over the corners sharing a point; (V, 3)."""
    counts, idx, p = poly.counts, poly.indices, poly.points
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    local = np.arange(len(idx)) - starts
    n = np.repeat(counts, counts)
    nxt = idx[starts + (local + 1) % np.maximum(n, 1)]
    prv = idx[starts + (local - 1) % np.maximum(n, 1)]
    cur = p[idx]
    cross = np.cross(p[nxt] - cur, p[prv] - cur)
    if poly.left_handed:
        cross = -cross
    normals = np.zeros_like(p)
    np.add.at(normals, idx, cross)
    return _normalize(normals)


def _normalize(v: np.ndarray) -> np.ndarray:
    length = np.linalg.norm(v, axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(length > 0, v / np.where(length > 0, length, 1), 0.0)


def primvar_per_corner(pv: Primvar, poly: Polygons, tris: Triangles, what: str) -> np.ndarray:
    """A primvar's value at each triangle corner, (T, 3, C), checking its size against the mesh."""
    expected = {"constant": 1, "uniform": len(poly.counts), "vertex": len(poly.points),
                "varying": len(poly.points), "faceVarying": len(poly.indices)}.get(pv.interpolation)
    if expected is None:
        raise MeshDataError(f"{what} has unknown interpolation '{pv.interpolation}'")
    if len(pv.values) < expected:
        raise MeshDataError(f"{what} has {len(pv.values)} values; its {pv.interpolation} interpolation needs {expected}")
    if pv.interpolation == "constant":
        return np.broadcast_to(pv.values[0], (len(tris.faces), 3, pv.values.shape[1]))
    if pv.interpolation == "uniform":
        return np.repeat(pv.values[tris.faces][:, None, :], 3, axis=1)
    if pv.interpolation == "faceVarying":
        return pv.values[tris.corners]
    return pv.values[tris.points]


def is_per_point(pv: Primvar | None) -> bool:
    return pv is None or pv.interpolation in ("vertex", "varying")


# --- Catmull-Clark refinement -----------------------------------------------------------------------


def refine_catmull_clark(poly: Polygons, uv: Primvar | None, levels: int):
    """`levels` steps of Catmull-Clark subdivision (smooth boundaries, corners kept; creases are not
    read). Texture coordinates are interpolated linearly within each face. Returns (Polygons, uv)."""
    for _ in range(levels):
        poly, uv = _catmull_clark_step(poly, uv)
    return poly, uv


def _catmull_clark_step(poly: Polygons, uv: Primvar | None):
    counts, idx, p = poly.counts, poly.indices, poly.points
    keep = counts >= 3
    if not np.all(keep):  # points and lines are not surfaces: drop them before refining
        corner_keep = np.repeat(keep, counts)
        if uv is not None and uv.interpolation == "faceVarying":
            uv = Primvar(uv.values[:len(idx)][corner_keep], uv.interpolation)
        counts, idx = counts[keep], idx[corner_keep]
    num_faces, num_points = len(counts), len(p)
    starts = np.cumsum(counts) - counts
    face_of = np.repeat(np.arange(num_faces), counts)
    local = np.arange(len(idx)) - starts[face_of]
    n = counts[face_of]
    nxt = idx[starts[face_of] + (local + 1) % n]
    prev_corner = starts[face_of] + (local - 1) % n

    face_points = np.zeros((num_faces, 3))
    np.add.at(face_points, face_of, p[idx])
    face_points /= counts[:, None]

    pairs = np.sort(np.stack([idx, nxt], axis=1), axis=1)
    edges, edge_of = np.unique(pairs, axis=0, return_inverse=True)
    edge_of = edge_of.reshape(-1)
    edge_faces = np.bincount(edge_of, minlength=len(edges))
    boundary = edge_faces == 1
    mid = 0.5 * (p[edges[:, 0]] + p[edges[:, 1]])
    face_sum = np.zeros((len(edges), 3))
    np.add.at(face_sum, edge_of, face_points[face_of])
    edge_points = np.where(boundary[:, None], mid,
                           (p[edges[:, 0]] + p[edges[:, 1]] + face_sum) / (2 + edge_faces)[:, None])

    vertex_points = _refined_vertices(p, idx, face_of, face_points, edges, boundary, mid)

    # New quads (vertex, edge after it, face centre, edge before it): the orientation is kept.
    e_after, e_before = edge_of, edge_of[prev_corner]
    base_e, base_f = num_points, num_points + len(edges)
    quads = np.stack([idx, base_e + e_after, base_f + face_of, base_e + e_before], axis=1).reshape(-1)
    points = np.concatenate([vertex_points, edge_points, face_points])
    refined = Polygons(points, np.full(len(idx), 4, np.int64), quads, poly.scheme, poly.left_handed)
    return refined, _refined_uv(uv, idx, face_of, counts, starts, prev_corner, len(points))


def _refined_vertices(p, idx, face_of, face_points, edges, boundary, mid):
    num_points = len(p)
    valence = np.bincount(edges.reshape(-1), minlength=num_points).astype(float)
    face_avg = np.zeros_like(p)
    np.add.at(face_avg, idx, face_points[face_of])
    faces_at = np.bincount(idx, minlength=num_points).astype(float)
    face_avg /= np.maximum(faces_at, 1)[:, None]
    mid_avg = np.zeros_like(p)
    np.add.at(mid_avg, edges[:, 0], mid)
    np.add.at(mid_avg, edges[:, 1], mid)
    mid_avg /= np.maximum(valence, 1)[:, None]
    safe_valence = np.maximum(valence, 1)[:, None]
    interior = (face_avg + 2 * mid_avg + (safe_valence - 3) * p) / safe_valence
    # Boundary points follow the boundary curve (1/8, 6/8, 1/8); corners (two edges, both boundary) stay.
    boundary_edges = edges[boundary]
    boundary_count = np.bincount(boundary_edges.reshape(-1), minlength=num_points)
    neighbour_sum = np.zeros_like(p)
    np.add.at(neighbour_sum, boundary_edges[:, 0], p[boundary_edges[:, 1]])
    np.add.at(neighbour_sum, boundary_edges[:, 1], p[boundary_edges[:, 0]])
    on_curve = (6 * p + neighbour_sum) / 8
    corner = (boundary_count >= 2) & (valence == 2)
    result = np.where((boundary_count == 2)[:, None], on_curve, interior)
    result = np.where(((boundary_count > 2) | corner | (valence == 0))[:, None], p, result)
    return result


def _refined_uv(uv, idx, face_of, counts, starts, prev_corner, num_points):
    if uv is None:
        return None
    if uv.interpolation in ("vertex", "varying"):
        return None  # per-point values can't follow the new points cheaply; the caller warns
    if uv.interpolation == "constant":
        return uv
    if uv.interpolation == "uniform":
        return Primvar(uv.values[face_of], "uniform")
    corner_uv = uv.values[:len(idx)]
    face_uv = np.zeros((len(counts), corner_uv.shape[1]))
    np.add.at(face_uv, face_of, corner_uv)
    face_uv /= counts[:, None]
    next_corner = starts[face_of] + (np.arange(len(idx)) - starts[face_of] + 1) % counts[face_of]
    after = 0.5 * (corner_uv + corner_uv[next_corner])
    before = 0.5 * (corner_uv + corner_uv[prev_corner])
    values = np.stack([corner_uv, after, face_uv[face_of], before], axis=1).reshape(-1, corner_uv.shape[1])
    return Primvar(values, "faceVarying")


# --- implicit prims, as Storm tessellates them --------------------------------------------------------


def _ring(radius: float, num_radial: int = NUM_RADIAL) -> np.ndarray:
    angle = np.arange(num_radial) / num_radial * 2 * math.pi
    return np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)


def _capped_topology(num_radial: int, quad_strips: int, bottom: str, top: str):
    """GeomUtil's capped quad topology on closed rings: a triangle fan around a bottom point, quad
    strips between rings, a fan around a top point; caps either share the ring next to them or have
    their own copy of it ("separate", for a crease in the generated normals)."""
    counts, indices = [], []
    ring = np.arange(num_radial)
    nxt = (ring + 1) % num_radial
    base = 0
    if bottom != "none":
        centre, base = base, base + 1
        for r in ring:
            counts.append(3)
            indices += [base + nxt[r], base + r, centre]
        if bottom == "separate":
            base += num_radial
    for _ in range(quad_strips):
        for r in ring:
            counts.append(4)
            indices += [base + r, base + nxt[r], base + nxt[r] + num_radial, base + r + num_radial]
        base += num_radial
    if top != "none":
        if top == "separate":
            base += num_radial
        centre = base + num_radial
        for r in ring:
            counts.append(3)
            indices += [base + r, base + nxt[r], centre]
    return np.array(counts, np.int64), np.array(indices, np.int64)


def _spine_basis(axis: str) -> np.ndarray:
    """Hydra's basis for an axis token: generated x, y, z (spine) go to these world axes."""
    u, v, spine = {"X": (1, 2, 0), "Y": (2, 0, 1)}.get(axis, (0, 1, 2))
    basis = np.zeros((3, 3))
    basis[0, u] = basis[1, v] = basis[2, spine] = 1.0
    return basis


def sphere(radius: float) -> Polygons:
    ring = _ring(1.0)
    rows = [np.array([[0.0, 0.0, -radius]])]
    for k in range(1, NUM_SPHERE_AXIAL):
        latitude = (k / NUM_SPHERE_AXIAL - 0.5) * math.pi
        rows.append(np.column_stack([radius * math.cos(latitude) * ring, np.full(NUM_RADIAL, radius * math.sin(latitude))]))
    rows.append(np.array([[0.0, 0.0, radius]]))
    counts, indices = _capped_topology(NUM_RADIAL, NUM_SPHERE_AXIAL - 2, "shared", "shared")
    return Polygons(np.concatenate(rows), counts, indices, "catmullClark")


def cube(size: float) -> Polygons:
    h = 0.5 * size
    points = h * np.array([(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1),
                           (-1, -1, -1), (-1, 1, -1), (1, 1, -1), (1, -1, -1)], float)
    indices = np.array([0, 1, 2, 3, 4, 5, 6, 7, 0, 6, 5, 1, 4, 7, 3, 2, 0, 3, 7, 6, 4, 2, 1, 5], np.int64)
    return Polygons(points, np.full(6, 4, np.int64), indices, "bilinear")


def cylinder(radius_bottom: float, radius_top: float, height: float, axis: str) -> Polygons:
    ring, z = _ring(1.0), 0.5 * height
    rows = [np.array([[0.0, 0.0, -z]])]
    rows += [np.column_stack([radius_bottom * ring, np.full(NUM_RADIAL, -z)])] * 2
    rows += [np.column_stack([radius_top * ring, np.full(NUM_RADIAL, z)])] * 2
    rows.append(np.array([[0.0, 0.0, z]]))
    counts, indices = _capped_topology(NUM_RADIAL, 1, "separate", "separate")
    return Polygons(np.concatenate(rows) @ _spine_basis(axis), counts, indices, "catmullClark")


def cone(radius: float, height: float, axis: str) -> Polygons:
    ring, z = _ring(radius), 0.5 * height
    rows = [np.array([[0.0, 0.0, -z]])]
    rows += [np.column_stack([ring, np.full(NUM_RADIAL, -z)])] * 2
    rows.append(np.tile([0.0, 0.0, z], (NUM_RADIAL, 1)))
    counts, indices = _capped_topology(NUM_RADIAL, 1, "separate", "none")
    return Polygons(np.concatenate(rows) @ _spine_basis(axis), counts, indices, "catmullClark")


def capsule(radius_bottom: float, radius_top: float, height: float, axis: str) -> Polygons:
    ring, half = _ring(1.0), 0.5 * height
    tilt = math.atan((radius_bottom - radius_top) / height) if radius_bottom != radius_top and height else 0.0
    rows = [np.array([[0.0, 0.0, -(radius_bottom + half)]])]
    for k in range(1, NUM_CAPSULE_CAP_AXIAL + 1):
        latitude = -0.5 * math.pi + (tilt + 0.5 * math.pi) * k / NUM_CAPSULE_CAP_AXIAL
        rows.append(np.column_stack([math.cos(latitude) * radius_bottom * ring,
                                     np.full(NUM_RADIAL, -half + radius_bottom * math.sin(latitude))]))
    for k in range(NUM_CAPSULE_CAP_AXIAL):
        latitude = tilt + (0.5 * math.pi - tilt) * k / NUM_CAPSULE_CAP_AXIAL
        rows.append(np.column_stack([math.cos(latitude) * radius_top * ring,
                                     np.full(NUM_RADIAL, half + radius_top * math.sin(latitude))]))
    rows.append(np.array([[0.0, 0.0, radius_top + half]]))
    counts, indices = _capped_topology(NUM_RADIAL, 2 * (NUM_CAPSULE_CAP_AXIAL - 1) + 1, "shared", "shared")
    return Polygons(np.concatenate(rows) @ _spine_basis(axis), counts, indices, "catmullClark")


def plane(width: float, length: float, axis: str) -> Polygons:
    x, y = 0.5 * width, 0.5 * length
    points = np.array([(x, y, 0), (-x, y, 0), (-x, -y, 0), (x, -y, 0)], float) @ _spine_basis(axis)
    return Polygons(points, np.array([4], np.int64), np.array([0, 1, 2, 3], np.int64), "bilinear")
