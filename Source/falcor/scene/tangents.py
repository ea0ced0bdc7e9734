"""Per-vertex tangent frames from texture coordinates (what MikkTSpace gives Falcor for meshes
whose vertices don't share attributes): angle-weighted per-corner tangents, made orthogonal to
the normal, with the bitangent's handedness in w (B = w · cross(N, T))."""
from __future__ import annotations

import numpy as np


def perp_stark(n: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to each row of `n` (Falcor's branch-free construction)."""
    a = np.abs(n)
    uyx, uzx, uzy = (a[:, 0] - a[:, 1]) < 0, (a[:, 0] - a[:, 2]) < 0, (a[:, 1] - a[:, 2]) < 0
    xm = uyx & uzx
    ym = ~xm & uzy
    zm = ~(xm | ym)
    v = np.cross(n, np.stack([xm, ym, zm], axis=1).astype(n.dtype))
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-30)


def _corner_angles(p: np.ndarray) -> np.ndarray:
    """(M, 3) interior angles of triangles given as (M, 3, 3) corner positions."""
    angles = np.empty(p.shape[:2])
    for c in range(3):
        u, v = p[:, (c + 1) % 3] - p[:, c], p[:, (c + 2) % 3] - p[:, c]
        denom = np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)
        cos = np.divide(np.einsum("ij,ij->i", u, v), denom, out=np.ones(len(u)), where=denom > 0)
        angles[:, c] = np.arccos(np.clip(cos, -1.0, 1.0))
    return angles


def _sum_per_vertex(tri: np.ndarray, face_values: np.ndarray, corner_weights: np.ndarray, count: int) -> np.ndarray:
    """Sum over the corners meeting at each vertex of weight · the face's value."""
    corners = tri.reshape(-1)
    weighted = face_values[:, None, :] * corner_weights[:, :, None]  # (M, 3 corners, 3)
    return np.stack([np.bincount(corners, weighted[..., k].reshape(-1), minlength=count) for k in range(3)], axis=1)


def generate_tangents(positions, normals, texcoords, triangles) -> np.ndarray:
    """(N, 4) float32 tangents for an indexed triangle mesh."""
    pos, nrm, uv = (np.asarray(a, np.float64) for a in (positions, normals, texcoords))
    tri = np.asarray(triangles, np.int64).reshape(-1, 3)
    p, t = pos[tri], uv[tri]
    e1, e2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]
    d1, d2 = t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
    det = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    inv = np.divide(1.0, det, out=np.zeros_like(det), where=det != 0)
    face_t = (e1 * d2[:, 1:2] - e2 * d1[:, 1:2]) * inv[:, None]
    face_b = (e2 * d1[:, 0:1] - e1 * d2[:, 0:1]) * inv[:, None]
    weights = _corner_angles(p)
    acc_t = _sum_per_vertex(tri, face_t, weights, len(pos))
    acc_b = _sum_per_vertex(tri, face_b, weights, len(pos))
    tangent = acc_t - nrm * np.einsum("ij,ij->i", acc_t, nrm)[:, None]
    length = np.linalg.norm(tangent, axis=1, keepdims=True)
    degenerate = ~(length[:, 0] > 1e-20)
    tangent = np.divide(tangent, length, out=np.zeros_like(tangent), where=~degenerate[:, None])
    if degenerate.any():
        tangent[degenerate] = perp_stark(nrm[degenerate])
    w = np.where(np.einsum("ij,ij->i", np.cross(nrm, tangent), acc_b) < 0, -1.0, 1.0)
    return np.concatenate([tangent, w[:, None]], axis=1).astype(np.float32)
