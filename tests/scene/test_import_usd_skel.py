"""UsdSkel in the USD importer: stages authored here with pxr (a two-joint arm), checked against the
importer's IR (joint nodes, inverse binds, weights, animation channels) and against pxr's own skinning
(UsdSkel.SkinningQuery.ComputeSkinnedPoints) at two times, through the IR and through the built scene."""
from __future__ import annotations

import importlib.util
import math
import os

import falcor
import numpy as np
import pytest

_CI = os.environ.get("CI", "").strip().lower() in ("true", "1")
if importlib.util.find_spec("pxr") is None and not _CI:
    pytest.skip('pxr is not installed (pip install "falcor-cpu[usd]")', allow_module_level=True)

from falcor.scene.importers import _imported as ir
from falcor.scene.importers.usd import load_usd
from pxr import Gf, Sdf, Usd, UsdGeom, UsdSkel, Vt

FPS = 24.0
JOINTS = ["Shoulder", "Shoulder/Elbow"]
# The arm's quad strip: three columns of two points, x = 0 (shoulder), 2 (elbow), 4 (hand).
POINTS = [(0, 0, 0), (2, 0, 0), (4, 0, 0), (0, 1, 0), (2, 1, 0), (4, 1, 0)]
# The mesh lists its joints elbow first (skel:joints), so index 0 is the elbow, 1 the shoulder.
MESH_JOINTS = ["Shoulder/Elbow", "Shoulder"]
INDICES = [1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1]
WEIGHTS = [1, 0, 0.25, 0.75, 1, 0, 1, 0, 0.25, 0.75, 1, 0]
GEOM_BIND = Gf.Matrix4d().SetScale(Gf.Vec3d(1, 2, 1)) * Gf.Matrix4d().SetTranslate(Gf.Vec3d(0, -0.5, 0))


def _translate(x, y, z):
    return Gf.Matrix4d().SetTranslate(Gf.Vec3d(x, y, z))


def _rotate_z(degrees):
    return Gf.Quatf(Gf.Rotation(Gf.Vec3d(0, 0, 1), degrees).GetQuat())


def arm_stage(path, *, animated=True, geom_bind=GEOM_BIND, rigid_hand=True, extra=None):
    """A SkelRoot (moved) holding a Skeleton (moved and turned) with a shoulder and an elbow 2 units out,
    a quad strip skinned to both, a SkelAnimation listing the joints in the other order that turns the
    elbow 90 and the shoulder 30 degrees about Z over one second, and a box rigidly bound to the elbow."""
    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    stage.SetTimeCodesPerSecond(FPS)
    root = UsdSkel.Root.Define(stage, "/Root")
    root.AddTranslateOp().Set(Gf.Vec3d(1, 0, 0))
    skeleton = UsdSkel.Skeleton.Define(stage, "/Root/Skel")
    skeleton.AddTranslateOp().Set(Gf.Vec3d(0, 3, 0))
    skeleton.AddRotateYOp().Set(90.0)
    skeleton.GetJointsAttr().Set(JOINTS)
    skeleton.GetBindTransformsAttr().Set(Vt.Matrix4dArray([Gf.Matrix4d(1), _translate(2, 0, 0)]))
    skeleton.GetRestTransformsAttr().Set(Vt.Matrix4dArray([Gf.Matrix4d(1), _translate(2, 0, 0)]))
    if animated:
        animation = UsdSkel.Animation.Define(stage, "/Root/Skel/Anim")
        animation.GetJointsAttr().Set(list(reversed(JOINTS)))
        animation.GetTranslationsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(2, 0, 0), Gf.Vec3f(0, 0, 0)]))
        animation.GetScalesAttr().Set(Vt.Vec3hArray([Gf.Vec3h(1, 1, 1), Gf.Vec3h(1, 1, 1)]))
        rotations = animation.GetRotationsAttr()
        rotations.Set(Vt.QuatfArray([_rotate_z(0), _rotate_z(0)]), 0.0)
        rotations.Set(Vt.QuatfArray([_rotate_z(90), _rotate_z(30)]), FPS)
        UsdSkel.BindingAPI.Apply(skeleton.GetPrim()).CreateAnimationSourceRel().SetTargets([animation.GetPath()])
    mesh = UsdGeom.Mesh.Define(stage, "/Root/Arm")
    mesh.AddTranslateOp().Set(Gf.Vec3d(5, 5, 5))  # ignored: skinned points are in the skeleton's space
    mesh.GetPointsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(*p) for p in POINTS]))
    mesh.GetFaceVertexCountsAttr().Set([4, 4])
    mesh.GetFaceVertexIndicesAttr().Set([0, 1, 4, 3, 1, 2, 5, 4])
    mesh.GetSubdivisionSchemeAttr().Set("none")
    binding = UsdSkel.BindingAPI.Apply(mesh.GetPrim())
    binding.CreateSkeletonRel().SetTargets([skeleton.GetPath()])
    binding.CreateJointsAttr().Set(MESH_JOINTS)
    binding.CreateJointIndicesPrimvar(False, 2).Set(INDICES)
    binding.CreateJointWeightsPrimvar(False, 2).Set(WEIGHTS)
    if geom_bind is not None:
        binding.CreateGeomBindTransformAttr().Set(geom_bind)
    if rigid_hand:
        hand = UsdGeom.Cube.Define(stage, "/Root/Hand")
        hand.GetSizeAttr().Set(0.5)
        hand_binding = UsdSkel.BindingAPI.Apply(hand.GetPrim())
        hand_binding.CreateSkeletonRel().SetTargets([skeleton.GetPath()])
        hand_binding.CreateJointsAttr().Set(["Shoulder/Elbow"])
        hand_binding.CreateJointIndicesPrimvar(True, 1).Set([0])
        hand_binding.CreateJointWeightsPrimvar(True, 1).Set([1.0])
        hand_binding.CreateGeomBindTransformAttr().Set(_translate(4, 0, 0))
    if extra:
        extra(stage)
    stage.GetRootLayer().Save()
    return path


def pxr_skinned_world(path, prim_path, points, time_code, root="/Root"):
    """World positions of `points` of the skinned prim, as pxr's UsdSkel skins them at time_code."""
    stage = Usd.Stage.Open(str(path))
    cache = UsdSkel.Cache()
    cache.Populate(UsdSkel.Root(stage.GetPrimAtPath(root)), Usd.TraverseInstanceProxies(Usd.PrimDefaultPredicate))
    skeleton = UsdSkel.Skeleton(stage.GetPrimAtPath(f"{root}/Skel"))
    query = cache.GetSkinningQuery(stage.GetPrimAtPath(prim_path))
    transforms = cache.GetSkelQuery(skeleton).ComputeSkinningTransforms(time_code)
    skinned = Vt.Vec3fArray([Gf.Vec3f(*map(float, p)) for p in points])
    assert query.ComputeSkinnedPoints(transforms, skinned, time_code)
    world = np.array(skeleton.ComputeLocalToWorldTransform(time_code)).reshape(4, 4)  # row vectors
    return np.c_[np.array(skinned, float), np.ones(len(points))] @ world[:, :3]


def ir_skinned(scene: ir.ImportedScene, mesh: ir.Mesh, seconds: float) -> np.ndarray:
    """The mesh's vertices posed by the IR: sum_k w_k world(joint_k) @ inverse_bind_k @ p at `seconds`."""
    channels = [c for a in scene.animations for c in a.channels]
    skin = mesh.skin
    matrices = np.array([ir.world_matrix_at(scene, node, channels, seconds) @ skin.inverse_bind[k]
                         for k, node in enumerate(skin.joints)])
    weights = skin.weights / skin.weights.sum(axis=1, keepdims=True)
    points = np.c_[mesh.positions.astype(float), np.ones(len(mesh.positions))]
    posed = np.einsum("vk,vkij,vj->vi", weights, matrices[skin.joint_indices], points)
    return posed[:, :3]


def by_name(items, name):
    (item,) = [i for i in items if i.name == name]
    return item


def point_of(mesh: ir.Mesh) -> np.ndarray:
    """The USD point each IR vertex of the arm came from (the points are distinct)."""
    distance = np.linalg.norm(mesh.positions[:, None, :] - np.array(POINTS, np.float32)[None], axis=2)
    assert np.all(distance.min(axis=1) == 0)
    return distance.argmin(axis=1)


# --- the IR ---------------------------------------------------------------------------------------


def test_joints_become_nodes_under_the_skeleton_node(tmp_path):
    scene = load_usd(arm_stage(tmp_path / "arm.usda"))
    names = [n.name for n in scene.nodes]
    skeleton, shoulder, elbow = names.index("/Root/Skel"), names.index("Shoulder"), names.index("Shoulder/Elbow")
    assert scene.nodes[shoulder].parent == skeleton and scene.nodes[elbow].parent == shoulder
    assert scene.nodes[skeleton].parent == names.index("/Root")
    # The local pose at the earliest time: the animation's (no rotation yet), the elbow 2 along the shoulder's x.
    np.testing.assert_allclose(scene.nodes[shoulder].matrix, np.eye(4), atol=1e-7)
    np.testing.assert_allclose(scene.nodes[elbow].matrix, ir.trs_matrix([2, 0, 0], [0, 0, 0, 1], [1, 1, 1]), atol=1e-7)


def test_inverse_binds_follow_the_meshs_joint_order_and_include_the_geom_bind_transform(tmp_path):
    scene = load_usd(arm_stage(tmp_path / "arm.usda"))
    arm = by_name(scene.meshes, "/Root/Arm")
    names = [scene.nodes[j].name for j in arm.skin.joints]
    assert names == MESH_JOINTS
    # Column-vector form: inverse(bind) @ geomBind, geomBind = translate(0, -0.5, 0) @ scale(1, 2, 1).
    geom_bind = np.array([[1, 0, 0, 0], [0, 2, 0, -0.5], [0, 0, 1, 0], [0, 0, 0, 1]], float)
    elbow_bind = np.eye(4)
    elbow_bind[0, 3] = 2
    np.testing.assert_allclose(arm.skin.inverse_bind[0], np.linalg.inv(elbow_bind) @ geom_bind, atol=1e-12)
    np.testing.assert_allclose(arm.skin.inverse_bind[1], geom_bind, atol=1e-12)


def test_weights_and_indices_follow_each_vertex_point(tmp_path):
    scene = load_usd(arm_stage(tmp_path / "arm.usda"))
    arm = by_name(scene.meshes, "/Root/Arm")
    points = point_of(arm)
    expected_indices = np.array(INDICES).reshape(6, 2)[points]
    expected_weights = np.array(WEIGHTS, np.float32).reshape(6, 2)[points]
    np.testing.assert_array_equal(arm.skin.joint_indices, expected_indices)
    np.testing.assert_array_equal(arm.skin.weights, expected_weights)


def test_animation_channels_go_to_the_joints_the_animation_names(tmp_path):
    """The SkelAnimation lists the elbow first; its rotations reach the right nodes, in seconds."""
    scene = load_usd(arm_stage(tmp_path / "arm.usda"))
    (animation,) = [a for a in scene.animations if a.name == "/Root/Skel/Anim"]
    rotation = {scene.nodes[c.node].name: c for c in animation.channels if c.path == "rotation"}
    np.testing.assert_allclose(rotation["Shoulder"].times, [0, 1])
    half = math.sqrt(0.5)
    np.testing.assert_allclose(rotation["Shoulder/Elbow"].values[-1], [0, 0, half, half], atol=1e-6)
    np.testing.assert_allclose(rotation["Shoulder"].values[-1], [0, 0, math.sin(math.radians(15)),
                                                                math.cos(math.radians(15))], atol=1e-6)


def test_rigid_constant_binding_gives_every_vertex_the_one_joint(tmp_path):
    scene = load_usd(arm_stage(tmp_path / "arm.usda"))
    hand = by_name(scene.meshes, "/Root/Hand")
    assert [scene.nodes[j].name for j in hand.skin.joints] == ["Shoulder/Elbow"]
    assert hand.skin.joint_indices.shape == (len(hand.positions), 1) and not hand.skin.joint_indices.any()
    np.testing.assert_array_equal(hand.skin.weights, 1)


@pytest.mark.parametrize("time_code", [0.0, 12.0, 24.0])
def test_ir_skinning_matches_pxrs(tmp_path, time_code):
    """The IR posed by its own node animation lands where pxr's UsdSkel skins the points (mid-way:
    the keyframes' slerp against USD's quaternion interpolation)."""
    path = arm_stage(tmp_path / "arm.usda")
    scene = load_usd(path)
    arm = by_name(scene.meshes, "/Root/Arm")
    expected = pxr_skinned_world(path, "/Root/Arm", POINTS, time_code)[point_of(arm)]
    np.testing.assert_allclose(ir_skinned(scene, arm, time_code / FPS), expected, atol=1e-5)
    hand = by_name(scene.meshes, "/Root/Hand")
    np.testing.assert_allclose(ir_skinned(scene, hand, time_code / FPS),
                               pxr_skinned_world(path, "/Root/Hand", hand.positions, time_code), atol=1e-5)


def test_skeleton_without_animation_rests_and_the_mesh_keeps_its_bind_pose_shape(tmp_path):
    path = arm_stage(tmp_path / "arm.usda", animated=False, geom_bind=None)
    scene = load_usd(path)
    assert not scene.animations
    arm = by_name(scene.meshes, "/Root/Arm")
    # At rest = bind: every skinning matrix is the skeleton's world matrix.
    np.testing.assert_allclose(ir_skinned(scene, arm, 0.0),
                               pxr_skinned_world(path, "/Root/Arm", POINTS, 0.0)[point_of(arm)], atol=1e-5)


def test_a_mesh_before_its_skeleton_is_skinned_once_the_skeleton_is_read(tmp_path):
    def skeleton_last(stage):
        stage.GetPrimAtPath("/Root").SetChildrenReorder(["Arm", "Hand", "Skel"])

    path = arm_stage(tmp_path / "arm.usda", extra=skeleton_last)
    scene = load_usd(path)
    names = [n.name for n in scene.nodes]
    assert names.index("/Root/Arm") < names.index("/Root/Skel")
    arm = by_name(scene.meshes, "/Root/Arm")
    assert [scene.nodes[j].name for j in arm.skin.joints] == MESH_JOINTS
    expected = pxr_skinned_world(path, "/Root/Arm", POINTS, FPS)[point_of(arm)]
    np.testing.assert_allclose(ir_skinned(scene, arm, 1.0), expected, atol=1e-5)


def test_each_native_instance_is_skinned_by_its_own_skeleton(tmp_path):
    arm_stage(tmp_path / "arm.usda")
    path = tmp_path / "instances.usda"
    path.write_text("""#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Y"
    timeCodesPerSecond = 24
)
def "Left" (instanceable = true
    references = @arm.usda@</Root>) {
    double3 xformOp:translate = (-10, 0, 0)
}
def "Right" (instanceable = true
    references = @arm.usda@</Root>) {
    double3 xformOp:translate = (10, 0, 0)
}
""")
    scene = load_usd(path)
    for side in ("Left", "Right"):
        arm = by_name(scene.meshes, f"/{side}/Arm")
        assert {scene.nodes[scene.nodes[j].parent].name for j in arm.skin.joints} == {f"/{side}/Skel", "Shoulder"}
        expected = pxr_skinned_world(path, f"/{side}/Arm", POINTS, FPS, root=f"/{side}")[point_of(arm)]
        np.testing.assert_allclose(ir_skinned(scene, arm, 1.0), expected, atol=1e-5)


def test_an_invisible_skeleton_still_poses_its_meshes(tmp_path):
    def hide(stage):
        UsdGeom.Imageable(stage.GetPrimAtPath("/Root/Skel")).MakeInvisible()

    path = arm_stage(tmp_path / "arm.usda", extra=hide)
    scene = load_usd(path)
    arm = by_name(scene.meshes, "/Root/Arm")
    np.testing.assert_allclose(ir_skinned(scene, arm, 0.5),
                               pxr_skinned_world(path, "/Root/Arm", POINTS, 12.0)[point_of(arm)], atol=1e-5)


def test_without_rest_transforms_the_joints_rest_in_the_bind_pose(tmp_path):
    def drop_rest(stage):
        UsdSkel.Skeleton(stage.GetPrimAtPath("/Root/Skel")).GetRestTransformsAttr().Clear()

    scene = load_usd(arm_stage(tmp_path / "arm.usda", animated=False, extra=drop_rest))
    elbow = by_name(scene.nodes, "Shoulder/Elbow")
    np.testing.assert_allclose(elbow.matrix, ir.trs_matrix([2, 0, 0], [0, 0, 0, 1], [1, 1, 1]), atol=1e-12)
    arm = by_name(scene.meshes, "/Root/Arm")
    # At bind pose every skinning matrix is skeleton world @ geomBind: the mesh keeps its bound shape.
    skeleton_world = scene.world_matrix([n.name for n in scene.nodes].index("/Root/Skel"))
    geom_bind = np.array(GEOM_BIND).reshape(4, 4).T
    expected = (skeleton_world @ geom_bind @ np.c_[arm.positions, np.ones(len(arm.positions))].T).T[:, :3]
    np.testing.assert_allclose(ir_skinned(scene, arm, 0.0), expected, atol=1e-6)


def test_an_animation_source_inherited_from_the_skel_root_animates_the_skeleton(tmp_path):
    def bind_on_root(stage):
        UsdSkel.BindingAPI(stage.GetPrimAtPath("/Root/Skel")).GetAnimationSourceRel().ClearTargets(True)
        root = UsdSkel.BindingAPI.Apply(stage.GetPrimAtPath("/Root"))
        root.CreateAnimationSourceRel().SetTargets(["/Root/Skel/Anim"])

    path = arm_stage(tmp_path / "arm.usda", extra=bind_on_root)
    scene = load_usd(path)
    arm = by_name(scene.meshes, "/Root/Arm")
    np.testing.assert_allclose(ir_skinned(scene, arm, 0.5),
                               pxr_skinned_world(path, "/Root/Arm", POINTS, 12.0)[point_of(arm)], atol=1e-5)
    assert [a.name for a in scene.animations] == ["/Root/Skel/Anim"]


# --- warnings and errors ----------------------------------------------------------------------------


def _blend_shapes(stage):
    UsdSkel.BindingAPI(stage.GetPrimAtPath("/Root/Arm")).CreateBlendShapesAttr().Set(["smile"])
    UsdSkel.BlendShape.Define(stage, "/Root/Arm/smile").GetOffsetsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(0, 1, 0)]))


def _loose_mesh(stage):
    """A mesh with joint influences outside any SkelRoot: UsdSkel does not skin it."""
    mesh = UsdGeom.Mesh.Define(stage, "/Loose")
    mesh.GetPointsAttr().Set(Vt.Vec3fArray([Gf.Vec3f(0, 0, 0), Gf.Vec3f(1, 0, 0), Gf.Vec3f(0, 1, 0)]))
    mesh.GetFaceVertexCountsAttr().Set([3])
    mesh.GetFaceVertexIndicesAttr().Set([0, 1, 2])
    binding = UsdSkel.BindingAPI.Apply(mesh.GetPrim())
    binding.CreateJointIndicesPrimvar(True, 1).Set([0])
    binding.CreateJointWeightsPrimvar(True, 1).Set([1.0])


def _refined(stage):
    mesh = UsdGeom.Mesh(stage.GetPrimAtPath("/Root/Arm"))
    mesh.GetSubdivisionSchemeAttr().Set("catmullClark")
    mesh.GetPrim().CreateAttribute("refinementLevel", Sdf.ValueTypeNames.Int).Set(2)


def _dual_quaternion(stage):
    UsdSkel.BindingAPI(stage.GetPrimAtPath("/Root/Arm")).CreateSkinningMethodAttr().Set("dualQuaternion")


def _sampled_rest(stage):
    rest = UsdSkel.Skeleton(stage.GetPrimAtPath("/Root/Skel")).GetRestTransformsAttr()
    rest.Set(Vt.Matrix4dArray([Gf.Matrix4d(1), _translate(3, 0, 0)]), 10.0)


@pytest.mark.parametrize("extra, prim, words", [(_blend_shapes, "/Root/Arm", "blend shapes"),
                                                (_sampled_rest, "/Root/Skel", "time samples of restTransforms"),
                                                (_loose_mesh, "/Loose", "outside a SkelRoot"),
                                                (_refined, "/Root/Arm", "not refined"),
                                                (_dual_quaternion, "/Root/Arm", "dualQuaternion")])
def test_what_stays_unsupported_is_a_warning_naming_the_prim(tmp_path, capfd, extra, prim, words):
    path = arm_stage(tmp_path / "arm.usda", extra=extra)
    scene = load_usd(path)
    out = capfd.readouterr().out
    assert any(str(path) in line and prim in line and words in line for line in out.splitlines()), out
    assert by_name(scene.meshes, "/Root/Arm").skin is not None


def _set(prim_path, name, value, type_name=None):
    def edit(stage):
        prim = stage.GetPrimAtPath(prim_path)
        attribute = prim.GetAttribute(name) if type_name is None else prim.CreateAttribute(name, type_name)
        attribute.Set(value)
    return edit


@pytest.mark.parametrize("edit, words", [
    (_set("/Root/Arm", "primvars:skel:jointIndices", Vt.IntArray([1, 0, 2] + INDICES[3:])), "jointIndices"),
    (_set("/Root/Arm", "primvars:skel:jointWeights", Vt.FloatArray([math.nan] + WEIGHTS[1:])), "jointWeights"),
    (_set("/Root/Arm", "primvars:skel:jointWeights", Vt.FloatArray(WEIGHTS[:-2])), "jointWeights has 10 values"),
    (_set("/Root/Skel/Anim", "translations", Vt.Vec3fArray([Gf.Vec3f(0, 0, 0)])), "translations has 1 values"),
    (_set("/Root/Skel", "bindTransforms", Vt.Matrix4dArray([Gf.Matrix4d(1)])), "bindTransforms has 1"),
    (_set("/Root/Skel", "joints", Vt.TokenArray(["Shoulder/Elbow", "Shoulder"])), "mis-ordered parent"),
])
def test_contradicting_skel_data_raises_naming_file_and_prim(tmp_path, edit, words):
    path = arm_stage(tmp_path / "arm.usda", extra=edit)
    with pytest.raises(falcor.ImporterError) as raised:
        falcor.load_scene(path)
    message = str(raised.value)
    assert str(path) in message and "/Root/" in message and words in message, message


# --- the built scene --------------------------------------------------------------------------------


@pytest.mark.parametrize("time_code", [6.0, 18.0])  # not 24: Falcor loops animations (1 s is 0 s again)
def test_built_scene_draws_the_meshes_where_pxr_skins_them(tmp_path, time_code):
    """Through SceneBuilder and the engine's skinning: the native meshes (in the IR's order) after
    scene.update, against pxr's skinned points."""
    path = arm_stage(tmp_path / "arm.usda")
    meshes = load_usd(path).meshes
    scene = falcor.load_scene(path)
    scene.update(time_code / FPS)
    for index, mesh in enumerate(meshes):
        drawn = np.asarray(scene.native.get_mesh_arrays(index)["positions"], float)
        if mesh.name == "/Root/Arm":
            expected = pxr_skinned_world(path, mesh.name, POINTS, time_code)[point_of(mesh)]
        else:  # the rigid box: pxr expands its constant influences to any points
            expected = pxr_skinned_world(path, mesh.name, mesh.positions, time_code)
        np.testing.assert_allclose(drawn, expected, atol=1e-4, err_msg=mesh.name)
