"""Linear blend skinning: meshes whose vertices follow joint nodes (glTF skins, FBX and Collada
bones, UsdSkel).

A skinned mesh is drawn in world space at

    p' = sum_k w_k * world(joint_k) @ inverse_bind_k @ p

for each vertex p of its bind pose: the nodes that place it don't move it (glTF's rule, and what
Assimp's bone offset matrices and UsdSkel's bind transforms amount to), except that a vertex with
no weight follows the node that places it. The built scene keeps the skin with its bind pose and,
in every update where a joint moved, sends the native scene one matrix per joint; the native scene
skins the vertices (Scene/Skinning.h), keeps the previous positions for motion vectors and
rebuilds the mesh's bottom-level tree.
"""
from __future__ import annotations

import numpy as np

from .. import falcor_ext as _ext


class MeshSkin:
    """The joints, inverse bind matrices and per-vertex influences of one mesh. Weights are
    normalized here (rows divided by their sum); negative or non-finite weights, non-finite
    matrices and joint indices out of range raise `falcor.RuntimeError` naming the mesh."""

    def __init__(self, mesh_name: str, joints, inverse_bind, joint_indices, weights) -> None:
        self.joints = np.asarray(joints, np.int64).reshape(-1)
        self.inverse_bind = np.asarray(inverse_bind, np.float64)
        indices, weights = np.array(joint_indices), np.asarray(weights, np.float32)  # a copy: padding is rewritten
        _check(mesh_name, self.joints, self.inverse_bind, indices, weights)
        with np.errstate(over="ignore"):
            totals = weights.sum(axis=1, dtype=np.float64)
        if not np.isfinite(totals).all():
            raise _ext.RuntimeError(f"Mesh '{mesh_name}': the joint weights of a vertex sum to infinity.")
        self.unweighted = totals == 0  # vertices that follow the mesh's own node
        self.weights = (weights / np.where(self.unweighted, 1.0, totals)[:, None]).astype(np.float32)
        self.joint_indices = indices.astype(np.uint32)
        self.mesh_id = -1  # scene-order mesh id, set when the scene is built
        self.bind_positions = self.bind_normals = self.bind_tangents = np.zeros((0, 3), np.float32)

    @property
    def vertex_count(self) -> int:
        return len(self.weights)

    def placed_by(self, node: int) -> MeshSkin:
        """This skin with its unweighted vertices bound to `node` (an extra joint whose inverse
        bind matrix is the identity: the vertex follows the node as a rigid mesh would)."""
        if not self.unweighted.any():
            return self
        placed = object.__new__(MeshSkin)
        vars(placed).update(vars(self))
        placed.joints = np.append(self.joints, node)
        placed.inverse_bind = np.concatenate([self.inverse_bind, np.eye(4)[None]])
        placed.joint_indices, placed.weights = self.joint_indices.copy(), self.weights.copy()
        placed.joint_indices[self.unweighted, 0] = len(self.joints)
        placed.weights[self.unweighted, 0] = 1.0
        placed.unweighted = np.zeros_like(self.unweighted)
        return placed

    def skinning_matrices(self, world: list) -> np.ndarray:
        """(J, 4, 4) float32: each joint's world matrix times its inverse bind matrix."""
        return (np.stack([world[j] for j in self.joints]) @ self.inverse_bind).astype(np.float32)


def _check(mesh_name: str, joints: np.ndarray, inverse_bind: np.ndarray, indices: np.ndarray, weights: np.ndarray) -> None:
    def fail(problem: str):
        raise _ext.RuntimeError(f"Mesh '{mesh_name}': its skin {problem}.")

    if inverse_bind.shape != (len(joints), 4, 4):
        fail(f"has {len(joints)} joints but inverse bind matrices of shape {inverse_bind.shape}")
    if not np.isfinite(inverse_bind).all():
        fail("has an inverse bind matrix with inf/nan values")
    if indices.ndim != 2 or weights.shape != indices.shape or indices.shape[1] == 0:
        fail(f"needs (N, K) joint indices and weights of the same shape, not {indices.shape} and {weights.shape}")
    if not np.issubdtype(indices.dtype, np.integer):
        fail(f"has joint indices of type {indices.dtype}")
    if not (np.isfinite(weights).all() and (weights >= 0).all()):
        fail("has a negative or non-finite joint weight")
    used = indices[weights > 0]
    if used.size and (used.min() < 0 or used.max() >= len(joints)):
        fail(f"refers to joint {int(used.max() if used.max() >= len(joints) else used.min())} of {len(joints)}")
    # Padding slots (weight 0) may hold anything; the native scene requires them in range too.
    indices[(weights == 0) & ((indices < 0) | (indices >= max(len(joints), 1)))] = 0
