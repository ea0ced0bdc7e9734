"""Pre-transformation of static meshes to world space, as Falcor's SceneBuilder does at build.

A mesh placed by exactly one node, with no animated node on the way to the root and no vertex
animation of its own, is static: its vertices are moved to world space once and the mesh is
re-linked to one identity node. Ray tracing then sees world-space triangles directly, and
axis-aligned geometry has exactly axis-aligned positions (a rotation's 1e-16 residues vanish
when they are added to coordinates in single precision). Falcor does this for every scene; no
build flag turns it off.
"""
from __future__ import annotations

import copy

import numpy as np

from .. import falcor_ext as _ext
from .animation import INVALID_ID
from .transform import inverse

F32 = np.float32
_SMALLEST_NORMAL, _LARGEST = np.finfo(F32).tiny, np.finfo(F32).max


def _node_chain_matrix(node_id: int, matrices: list, parents: list) -> np.ndarray:
    """Object-to-world matrix of a node, composed root-most last in single precision (Falcor's
    nodes hold float matrices)."""
    world = np.eye(4, dtype=F32)
    while node_id != INVALID_ID:
        world = _mul(matrices[node_id].astype(F32), world)
        node_id = parents[node_id]
    return world


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b in float32 with each entry summed left to right (as a shader's dot product)."""
    result = np.zeros((a.shape[0], b.shape[1]), F32)
    for k in range(a.shape[1]):
        result += np.outer(a[:, k], b[k, :]).astype(F32)
    return result


def _transform_rows(m: np.ndarray, v: np.ndarray, translate: bool) -> np.ndarray:
    """Rows of `v` (N, 3) times the 3x3 part of `m` (plus its translation for points), float32
    sums left to right (Falcor's transformPoint / transformVector)."""
    out = np.empty_like(v, dtype=F32)
    for r in range(3):
        s = v[:, 0] * m[r, 0] + v[:, 1] * m[r, 1] + v[:, 2] * m[r, 2]
        out[:, r] = s + m[r, 3] if translate else s
    return out


def _squared_lengths(v: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # rows beyond ~1.8e19 give inf; _normalized redoes them
        return v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1] + v[:, 2] * v[:, 2]


def _normalized(v: np.ndarray) -> np.ndarray:
    """v * rsqrt(dot(v, v)) in float32 (Falcor's normalize), unit length at any scale: a row whose
    squared length overflows or is below the smallest normal float (|v| beyond ~1e±19, as the
    normals of a scene at scale 1e±20 are) is first divided by its largest absolute component.
    Other rows keep their bits; zero, inf and NaN rows give NaN as before."""
    squared = _squared_lengths(v)
    suspect = np.flatnonzero(~((squared >= _SMALLEST_NORMAL) & (squared <= _LARGEST)))
    largest = np.abs(v[suspect]).max(axis=1)  # only the rare rows: a per-row max over millions is slow
    rescale = suspect[(largest > 0) & np.isfinite(largest)]
    if len(rescale):
        v = v.copy()
        v[rescale] /= np.abs(v[rescale]).max(axis=1)[:, None]
        squared[rescale] = _squared_lengths(v[rescale])
    with np.errstate(divide="ignore", invalid="ignore"):
        return v * (F32(1) / np.sqrt(squared))[:, None]


def _to_world(spec, m: np.ndarray):
    """A copy of `spec` with positions, normals and tangents moved to world space by `m`.
    Tangents keep their bitangent sign even when `m` mirrors (as Falcor)."""
    spec = copy.copy(spec)
    if np.linalg.det(m[:3, :3].astype(np.float64)) < 0.0:
        spec.front_face_cw = not spec.front_face_cw
    if np.array_equal(m, np.eye(4, dtype=F32)):
        return spec
    inverse_transpose = inverse(m).T.astype(F32)
    spec.positions = _transform_rows(m, spec.positions.astype(F32, copy=False), True)
    spec.normals = _normalized(_transform_rows(inverse_transpose, spec.normals.astype(F32, copy=False), False))
    tangents = spec.tangents.astype(F32)  # a copy: the xyz are replaced, the sign is kept
    tangents[:, :3] = _normalized(_transform_rows(m, tangents[:, :3], False))
    spec.tangents = tangents
    return spec


class Pretransformed:
    """Meshes after pre-transformation: `meshes` and their `placements` (node lists), the node
    `matrices` and `parents` with the identity node appended, and the `static` mesh indices."""

    def __init__(self, meshes: list, placements: list, matrices: list, parents: list, static: set) -> None:
        self.meshes, self.placements, self.matrices, self.parents, self.static = meshes, placements, matrices, parents, static


def pretransform_static_meshes(meshes: list, placements: list, matrices: list, parents: list,
                               animated_nodes: set) -> Pretransformed:
    """Moves every static single-instance mesh to world space and places it by a new identity
    node (Falcor's "Identity", appended after the existing nodes). Skinned meshes are drawn in
    world space too (their joints place them), by the identity node.

    `placements[i]` lists the nodes that place mesh i; `animated_nodes` are the nodes with an
    animation of their own. The given meshes are not modified (moved ones are copies)."""
    identity = len(matrices)
    matrices = matrices + [np.eye(4)]
    parents = parents + [INVALID_ID]
    meshes, placements, static = list(meshes), [list(p) for p in placements], set()
    for i, (spec, nodes) in enumerate(zip(meshes, placements)):
        if spec.skin is not None:
            meshes[i], placements[i] = _skinned_in_world(spec, nodes), [identity]
            continue
        if len(nodes) != 1 or spec.is_animated or _is_animated(nodes[0], parents, animated_nodes):
            continue
        meshes[i] = _to_world(spec, _node_chain_matrix(nodes[0], matrices, parents))
        placements[i] = [identity]
        static.add(i)
    return Pretransformed(meshes, placements, matrices, parents, static)


def _skinned_in_world(spec, nodes: list):
    """A copy of a skinned mesh whose unweighted vertices follow the node that places it."""
    if len(nodes) > 1:
        _ext.Logger.log_once(_ext.Logger.Level.Warning, f"Skinned mesh '{spec.name}' is placed by {len(nodes)} nodes; its joints "
                             "place it, so it is drawn once (unweighted vertices follow the first node).")
    spec = copy.copy(spec)
    spec.skin = spec.skin.placed_by(nodes[0])
    return spec


def _is_animated(node_id: int, parents: list, animated_nodes: set) -> bool:
    while node_id != INVALID_ID:
        if node_id in animated_nodes:
            return True
        node_id = parents[node_id]
    return False
