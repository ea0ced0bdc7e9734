"""Pre-transformation of static meshes and Falcor's mesh/instance order (SceneBuilder's
pretransformStaticMeshes, createMeshGroups, createMeshInstanceData), against numpy references."""
import numpy as np
import pytest

from falcor import Animation, SceneBuilder, SceneBuilderFlags, StandardMaterial, Transform, TriangleMesh, float3


def quad(builder, name="m"):
    return builder.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial(name))


def normalized(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_static_mesh_moves_to_world_space_through_its_node_chain():
    b = SceneBuilder()
    mesh_id = quad(b)
    parent = b.addNode("parent", Transform(translation=float3(1, 2, 3), rotationEulerDeg=float3(30, 45, 0)))
    child = b.addNode("child", Transform(scaling=float3(2, -1, 0.5)), parent)  # mirrors: winding flips
    b.addMeshInstance(child, mesh_id)
    source = b.meshes[mesh_id]
    scene = b.getScene()

    inst = scene.native.get_instance(0)
    np.testing.assert_array_equal(inst["world"], np.eye(4))
    assert inst["node_id"] == len(b.nodes)  # the appended identity node
    assert inst["front_face_cw"] != source.front_face_cw

    m = b.nodes[parent].matrix @ b.nodes[child].matrix
    arrays = scene.native.get_mesh_arrays(0)
    np.testing.assert_allclose(arrays["positions"], source.positions @ m[:3, :3].T + m[:3, 3], atol=1e-6)
    normal_matrix = np.linalg.inv(m[:3, :3]).T
    np.testing.assert_allclose(arrays["normals"], normalized(source.normals @ normal_matrix.T), atol=1e-6)
    t = source.tangents  # object space, generated at build
    np.testing.assert_allclose(arrays["tangents"][:, :3], normalized(t[:, :3] @ m[:3, :3].T), atol=1e-6)
    np.testing.assert_array_equal(arrays["tangents"][:, 3], t[:, 3])  # the bitangent sign is kept (as Falcor)
    assert b.meshes[mesh_id].positions is source.positions  # the builder's mesh is not modified


def test_axis_aligned_walls_become_exact():
    """A 90° rotation leaves ~1e-16 in the matrix; in single precision it vanishes from the
    vertices, so the wall lies exactly in its plane and its face normal is exactly an axis."""
    b = SceneBuilder()
    node = b.addNode("wall", Transform(translation=float3(0, 0.275, -0.275), rotationEulerDeg=float3(90, 0, 0)))
    b.addMeshInstance(node, quad(b))
    scene = b.getScene()
    positions = scene.native.get_mesh_arrays(0)["positions"]
    assert np.all(positions[:, 2] == np.float32(-0.275))
    v = scene.native.get_vertex_data(0, 0, (0.25, 0.25))
    assert list(v["faceNormalW"]) == [0.0, 0.0, 1.0]


@pytest.mark.parametrize("case", ["animated node", "animated parent", "vertex animation", "instanced"])
def test_meshes_that_stay_in_object_space(case):
    b = SceneBuilder()
    mesh = TriangleMesh.createQuad()
    mesh_id = b.addTriangleMesh(mesh, StandardMaterial("m"), isAnimated=(case == "vertex animation"))
    parent = b.addNode("parent", Transform(translation=float3(0, 1, 0)))
    node = b.addNode("node", Transform(translation=float3(5, 0, 0)), parent)
    b.addMeshInstance(node, mesh_id)
    if case == "instanced":
        b.addMeshInstance(b.addNode("other"), mesh_id)
    if case.startswith("animated"):  # a one-key animation that holds the node where it is
        animated = node if case == "animated node" else parent
        animation = Animation("a", animated, 1.0)
        animation.addKeyframe(0.0, Transform(translation=float3(5, 0, 0) if animated == node else float3(0, 1, 0)))
        b.addAnimation(animation)
    scene = b.getScene()
    inst = scene.native.get_instance(0)
    np.testing.assert_allclose(inst["world"], b.nodes[parent].matrix @ b.nodes[node].matrix, atol=1e-6)
    np.testing.assert_array_equal(scene.native.get_mesh_arrays(0)["positions"], mesh.positions)


def build_groups(flags):
    """A and B placed by the same two nodes, C static, D on an animated node (added D, A, C, B).
    Returns the instances as (material name, node) and the node IDs (n1, n2, moving, identity)."""
    b = SceneBuilder(flags | SceneBuilderFlags.DontMergeMaterials)
    n1, n2, moving, still = (b.addNode(n, Transform(translation=float3(i, 0, 0))) for i, n in enumerate(["n1", "n2", "moving", "still"]))
    d, a, c, bb = (quad(b, n) for n in "DACB")
    for node, mesh in [(n2, a), (n1, a), (n1, bb), (n2, bb), (still, c), (moving, d)]:
        b.addMeshInstance(node, mesh)
    b.addAnimation(Animation("spin", moving, 1.0))
    scene = b.getScene()
    names = [m.material.name for m in scene._geometry.meshes]
    return [(names[scene.native.get_instance(i)["mesh_id"]], scene.native.get_instance(i)["node_id"])
            for i in range(scene.native.instance_count)], (n1, n2, moving, len(b.nodes))


@pytest.mark.parametrize("flags", [SceneBuilderFlags.Default, SceneBuilderFlags.RTDontMergeInstanced])
def test_instance_order_follows_falcors_mesh_groups(flags):
    """Static group first, then per-node dynamic groups, then instanced groups: within a merged
    group the instances go node by node; RTDontMergeInstanced gives each mesh its own group."""
    order, (n1, n2, moving, identity) = build_groups(flags)
    if flags == SceneBuilderFlags.Default:
        instanced = [("A", n1), ("B", n1), ("A", n2), ("B", n2)]
    else:
        instanced = [("A", n1), ("A", n2), ("B", n1), ("B", n2)]
    assert order == [("C", identity), ("D", moving)] + instanced
