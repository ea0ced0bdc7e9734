"""UsdSkel for the USD importer: skeletons become joint nodes (with their SkelAnimation as node
animation), skinned prims get an `ir.Skin`.

A Skeleton's joints become IR nodes named by their joint paths, parented as the joint hierarchy under the
Skeleton prim's own node, so a joint's world matrix is the skeleton's world matrix times the joint's
skeleton-space transform, as UsdSkel defines it. Their matrices are the local pose at the earliest time
(the bound SkelAnimation's, else `restTransforms`, else the pose `bindTransforms` imply). A SkelAnimation
with samples at two or more times becomes one animation with translation / rotation / scale channels per
joint it animates, keyed at every authored time (USD interpolates translations and scales linearly and
rotations by slerp, as the keyframes are).

A prim's skin (primvars:skel:jointIndices / jointWeights, vertex or constant interpolation) refers to the
joints in the prim's `skel:joints` order (else the skeleton's); inverse_bind[j] is
inverse(bindTransforms[j]) @ geomBindTransform in column-vector form. The joints' node indices are filled
in by `SkelReader.resolve` after the walk, because a skinned prim may come before its Skeleton.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _imported as ir
from . import _usd_geometry as geo


class SkelDataError(geo.MeshDataError):
    """Skeleton, animation or skin data that contradicts itself (counts, indices, weights)."""


@dataclass
class PointInfluences:
    """A prim's joint influences per point (or one row for all points: constant interpolation)."""

    joint_indices: np.ndarray  # (P, K) or (1, K) int64, into the prim's joint order
    weights: np.ndarray  # (P, K) or (1, K) float32
    inverse_bind: np.ndarray  # (J, 4, 4) float64, per joint of the prim's joint order
    joints: list[int]  # node indices per joint of the prim's joint order; filled by SkelReader.resolve

    @property
    def constant(self) -> bool:
        return len(self.joint_indices) == 1

    def skin(self, points: np.ndarray) -> ir.Skin:
        """The skin of vertices made from these point indices (the rows they came from)."""
        rows = np.zeros(len(points), np.int64) if self.constant else points
        return ir.Skin(self.joints, self.inverse_bind, self.joint_indices[rows], self.weights[rows])


@dataclass
class _JointAnimation:
    name: str  # the SkelAnimation's path
    rows: list[int]  # the skeleton joint of each animated joint
    times: np.ndarray  # (T,) authored time codes; empty for default values only
    translations: np.ndarray  # (max(T, 1), len(rows), 3)
    rotations: np.ndarray  # (max(T, 1), len(rows), 4) unit quaternions, xyzw
    scales: np.ndarray  # (max(T, 1), len(rows), 3)


@dataclass
class _Pending:
    skeleton: str  # the Skeleton prim's path
    prim: str  # the skinned prim's path
    skeleton_joint: np.ndarray  # per joint of the prim's order, its skeleton index (-1: not in the skeleton)
    influences: PointInfluences
    meshes: list[ir.Mesh] = field(default_factory=list)


class SkelReader:
    def __init__(self, reader):
        self.reader = reader
        self.UsdSkel = reader.pxr.UsdSkel
        self.cache = self.UsdSkel.Cache()
        self.skeleton_nodes: dict[str, tuple[int, list[int]]] = {}  # path -> (skeleton node, joint nodes)
        self.pending: dict[int, _Pending] = {}  # id(PointInfluences) -> its pending joints

    def populate(self, root_prim) -> None:
        """Skinning queries are only valid below a SkelRoot the cache has seen (UsdSkel skins nothing else)."""
        self.cache.Populate(self.UsdSkel.Root(root_prim), self.reader.predicate)

    # --- skeletons ---

    def add_skeleton(self, prim, node: int) -> None:
        skeleton = self.UsdSkel.Skeleton(prim)
        path = str(prim.GetPath())
        sampled = [a.GetName() for a in (skeleton.GetJointsAttr(), skeleton.GetBindTransformsAttr(),
                                         skeleton.GetRestTransformsAttr()) if a.GetNumTimeSamples()]
        if sampled:
            self.reader.warn(path, f"time samples of {' and '.join(sampled)} are skipped: UsdSkel reads their default "
                                   "values (joints move only through a SkelAnimation)")
        joints = [str(j) for j in skeleton.GetJointsAttr().Get() or []]
        parents = self._parents(path, joints)
        locals_ = self._rest_locals(skeleton, path, joints, parents)
        animation = self._animation(prim, path, joints)
        if animation is not None:  # its pose at the earliest time
            for k, row in enumerate(animation.rows):
                locals_[row] = ir.trs_matrix(animation.translations[0, k], animation.rotations[0, k],
                                             animation.scales[0, k])
        nodes = self.reader.scene.nodes
        joint_nodes: list[int] = []
        for j, name in enumerate(joints):
            joint_nodes.append(len(nodes))
            nodes.append(ir.Node(name, node if parents[j] < 0 else joint_nodes[parents[j]], locals_[j]))
        self.skeleton_nodes[path] = (node, joint_nodes)
        if animation is not None and len(animation.times) >= 2:
            self._add_channels(animation, joint_nodes)

    def _add_channels(self, animation: _JointAnimation, joint_nodes: list[int]) -> None:
        seconds = animation.times / self.reader.fps
        channels = [ir.Channel(joint_nodes[row], name, seconds, values[:, k])
                    for k, row in enumerate(animation.rows)
                    for name, values in (("translation", animation.translations), ("rotation", animation.rotations),
                                         ("scale", animation.scales))]
        self.reader.scene.animations.append(ir.Animation(animation.name, channels))

    def _parents(self, path: str, joints: list[str]) -> list[int]:
        topology = self.UsdSkel.Topology(joints)
        valid, why = topology.Validate()
        if not valid:
            raise SkelDataError(f"skeleton '{path}': {why}")
        return [int(p) for p in topology.GetParentIndices()]

    def _rest_locals(self, skeleton, path: str, joints: list[str], parents: list[int]) -> list[np.ndarray]:
        """The joints' local matrices at rest: `restTransforms`, else the pose `bindTransforms` imply, else identity."""
        rest = _matrices(skeleton.GetRestTransformsAttr().Get(), f"skeleton '{path}': restTransforms")
        if len(rest) == len(joints):
            return list(rest)
        bind = _matrices(skeleton.GetBindTransformsAttr().Get(), f"skeleton '{path}': bindTransforms")
        if len(bind) != len(joints):
            self.reader.warn(path, "neither restTransforms nor bindTransforms has a matrix per joint; "
                                   "joints rest at identity")
            return [np.eye(4) for _ in joints]
        if len(rest):
            self.reader.warn(path, f"restTransforms has {len(rest)} matrices for {len(joints)} joints; "
                                   "the bind pose is the rest pose")
        return [bind[j] if p < 0 else _inverse(bind[p], path) @ bind[j] for j, p in enumerate(parents)]

    def bind_transforms(self, skeleton, path: str, joint_count: int) -> np.ndarray:
        bind = _matrices(skeleton.GetBindTransformsAttr().Get(), f"skeleton '{path}': bindTransforms")
        if len(bind) != joint_count:
            raise SkelDataError(f"skeleton '{path}': bindTransforms has {len(bind)} matrices for {joint_count} joints")
        return bind

    def _animation(self, prim, path: str, joints: list[str]) -> _JointAnimation | None:
        """The bound SkelAnimation's samples for the skeleton's joints, or None when there is none to apply."""
        source = self.UsdSkel.BindingAPI(prim).GetInheritedAnimationSource()
        if not source:
            return None
        if not source.IsA(self.UsdSkel.Animation):
            self.reader.warn(path, f"skel:animationSource '{source.GetPath()}' is not a SkelAnimation; "
                                   "the rest pose is used")
            return None
        animation = self.UsdSkel.Animation(source)
        if animation.GetBlendShapeWeightsAttr().HasAuthoredValue():
            self.reader.warn(source.GetPath(), "blend shape weights are skipped (blend shapes are not supported)")
        attributes = (animation.GetTranslationsAttr(), animation.GetRotationsAttr(), animation.GetScalesAttr())
        missing = [a.GetName() for a in attributes if not a.HasValue()]
        if missing:  # pxr ignores such an animation too
            self.reader.warn(source.GetPath(), f"{' and '.join(missing)} not authored; "
                                               "the skeleton's rest pose is used")
            return None
        anim_joints = [str(j) for j in animation.GetJointsAttr().Get() or []]
        index = {name: j for j, name in enumerate(joints)}
        used = [k for k, name in enumerate(anim_joints) if name in index]  # UsdSkel ignores unknown joints
        sampled = self._sample_times(source.GetPath(), attributes)
        where = f"SkelAnimation '{source.GetPath()}'"
        posed_at = sampled if len(sampled) else [self.reader.time]  # default values only: one pose
        samples = [self._components(attributes, t, len(anim_joints), where) for t in posed_at]
        translations, rotations, scales = (np.array([sample[c][used] for sample in samples]) for c in range(3))
        return _JointAnimation(str(source.GetPath()), [index[anim_joints[k]] for k in used], sampled,
                               translations, rotations, scales)

    def _sample_times(self, path, attributes) -> np.ndarray:
        """Every authored time of the components (linear and slerp keys between them are exact), at most
        MAX_KEYFRAMES (more are resampled evenly, as for transforms)."""
        from .usd import MAX_KEYFRAMES

        times = np.array(sorted({t for a in attributes for t in a.GetTimeSamples()}), float)
        if len(times) > MAX_KEYFRAMES:
            self.reader.warn(path, f"{len(times)} joint transform samples are resampled to {MAX_KEYFRAMES}")
            times = np.linspace(times[0], times[-1], MAX_KEYFRAMES)
        return times

    def _components(self, attributes, time, joint_count: int, where: str):
        arrays = []
        for attribute, width in zip(attributes, (3, 4, 3)):
            a = np.array(attribute.Get(time), float).reshape(-1, width)  # Vt's quaternion buffer is (x, y, z, w)
            if len(a) != joint_count:
                raise SkelDataError(f"{where}: {attribute.GetName()} has {len(a)} values for {joint_count} joints")
            if not np.all(np.isfinite(a)):
                raise SkelDataError(f"{where}: {attribute.GetName()} has values that are not finite")
            arrays.append(a)
        length = np.linalg.norm(arrays[1], axis=1, keepdims=True)
        if np.any(length == 0):
            raise SkelDataError(f"{where}: rotations has a zero quaternion")
        arrays[1] = arrays[1] / length
        return arrays

    # --- skinned prims ---

    def influences(self, prim, point_count: int | None) -> PointInfluences | None:
        """The prim's joint influences, or None when it isn't skinned (with a warning if it means to be).
        `point_count` is None for prims without points (implicit prims): only constant influences apply."""
        path = prim.GetPath()
        query = self.cache.GetSkinningQuery(prim)
        binding = self.UsdSkel.BindingAPI(prim)
        if binding.GetBlendShapesAttr().HasAuthoredValue():
            self.reader.warn(path, "blend shapes (skel:blendShapes) are skipped (not supported)")
        # The query resolves primvars inherited from ancestors; outside a SkelRoot there is no query.
        indices_pv = query.GetJointIndicesPrimvar() if query else binding.GetJointIndicesPrimvar()
        weights_pv = query.GetJointWeightsPrimvar() if query else binding.GetJointWeightsPrimvar()
        has_indices = bool(indices_pv and indices_pv.HasValue())
        has_weights = bool(weights_pv and weights_pv.HasValue())
        if not (has_indices or has_weights):
            return None
        if has_indices != has_weights:
            raise SkelDataError(f"'{path}': primvars:skel:jointIndices and jointWeights must be authored together")
        if point_count is None and str(indices_pv.GetInterpolation()) == "vertex":
            self.reader.warn(path, "per-vertex joint influences on an implicit prim are skipped (UsdSkel binds "
                                   "prims without points rigidly: constant interpolation)")
            return None
        joint_indices, weights = self._influence_arrays(path, indices_pv, weights_pv, point_count)
        skeleton = binding.GetInheritedSkeleton()
        unskinned = self._unskinned_reason(query, skeleton)
        if unskinned:
            self.reader.warn(path, unskinned)
            return None
        if str(query.GetSkinningMethod()) not in ("", "classicLinear"):
            self.reader.warn(path, f"skel:skinningMethod '{query.GetSkinningMethod()}' is not supported; "
                                   "linear blend skinning is used")
        return self._influences(prim, query, skeleton, joint_indices, weights)

    def _unskinned_reason(self, query, skeleton) -> str | None:
        if not query:
            return "joint influences outside a SkelRoot are skipped (UsdSkel skins only below one)"
        if not skeleton:
            return "joint influences without a bound skeleton (skel:skeleton) are skipped"
        if self.reader.prototype_depth:
            return "skinning inside a PointInstancer prototype is not supported; the bind pose is used"
        return None

    def _influence_arrays(self, path, indices_pv, weights_pv, point_count: int | None):
        size, interpolation = indices_pv.GetElementSize(), str(indices_pv.GetInterpolation())
        if (size, interpolation) != (weights_pv.GetElementSize(), str(weights_pv.GetInterpolation())):
            raise SkelDataError(f"'{path}': jointIndices and jointWeights differ in elementSize or interpolation")
        if interpolation == "constant":
            rows = 1
        elif interpolation == "vertex" and point_count is not None:
            rows = point_count
        else:
            raise SkelDataError(f"'{path}': joint influences with '{interpolation}' interpolation (UsdSkel takes "
                                "vertex or constant)")
        indices = np.asarray(indices_pv.Get(), np.int64).reshape(-1)
        weights = np.asarray(weights_pv.Get(), np.float64).reshape(-1)
        for name, values in (("jointIndices", indices), ("jointWeights", weights)):
            if len(values) != rows * size:
                raise SkelDataError(f"'{path}': {name} has {len(values)} values; {rows} "
                                    f"{'point' if rows == 1 else 'points'} of elementSize {size} need {rows * size}")
        if not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise SkelDataError(f"'{path}': jointWeights has negative or non-finite weights")
        return indices.reshape(rows, size), weights.reshape(rows, size).astype(np.float32)

    def _influences(self, prim, query, skeleton, joint_indices, weights) -> PointInfluences:
        path, skeleton_path = prim.GetPath(), str(skeleton.GetPath())
        skeleton_joints = [str(j) for j in skeleton.GetJointsAttr().Get() or []]
        order = query.GetJointOrder()
        own_joints = [str(j) for j in order] if order is not None else skeleton_joints
        if joint_indices.size and (joint_indices.min() < 0 or joint_indices.max() >= len(own_joints)):
            raise SkelDataError(f"'{path}': jointIndices refer to joints outside the {len(own_joints)} "
                                "joints it is bound to")
        index = {name: j for j, name in enumerate(skeleton_joints)}
        skeleton_joint = np.array([index.get(name, -1) for name in own_joints], np.int64)
        if np.any(skeleton_joint < 0):
            missing = [name for name, j in zip(own_joints, skeleton_joint) if j < 0]
            self.reader.warn(path, f"skel:joints {missing[:3]} are not joints of '{skeleton_path}'; "
                                   "their points follow the skeleton (as UsdSkel)")
        bind = self.bind_transforms(skeleton, skeleton_path, len(skeleton_joints))
        geom_bind = _matrices([query.GetGeomBindTransform()], f"'{path}': geomBindTransform")[0]
        inverse_bind = np.array([geom_bind if j < 0 else _inverse(bind[j], skeleton_path) @ geom_bind
                                 for j in skeleton_joint]).reshape(-1, 4, 4)
        influences = PointInfluences(joint_indices, weights, inverse_bind, [])
        self.pending[id(influences)] = _Pending(skeleton_path, str(path), skeleton_joint, influences)
        return influences

    def skinned(self, influences: PointInfluences, mesh: ir.Mesh) -> None:
        """Records that `mesh` carries a skin of these influences (undone if its skeleton is never read)."""
        self.pending[id(influences)].meshes.append(mesh)

    def resolve(self) -> None:
        """Fills every skin's joints with node indices, now that the skeletons' nodes exist."""
        for pending in self.pending.values():
            found = self.skeleton_nodes.get(pending.skeleton)
            if found is None:
                self.reader.warn(pending.prim, f"its skeleton '{pending.skeleton}' is not imported (pruned or "
                                               "outside the stage's traversal); the mesh is in its bind pose")
                for mesh in pending.meshes:
                    mesh.skin = None
                continue
            skeleton_node, joint_nodes = found
            pending.influences.joints[:] = [skeleton_node if j < 0 else joint_nodes[j] for j in pending.skeleton_joint]
        self.pending.clear()


def _matrices(value, what: str) -> np.ndarray:
    """Gf matrices (row vectors) as (N, 4, 4) column-vector matrices, checked finite."""
    rows = np.array(value if value is not None else [], float).reshape(-1, 4, 4)
    if not np.all(np.isfinite(rows)):
        raise SkelDataError(f"{what} has matrices that are not finite")
    return rows.transpose(0, 2, 1)


def _inverse(matrix: np.ndarray, path: str) -> np.ndarray:
    if abs(np.linalg.det(matrix)) < 1e-12:
        raise SkelDataError(f"skeleton '{path}': a bind transform is singular")
    return np.linalg.inv(matrix)
