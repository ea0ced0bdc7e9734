"""Scenes/CornellBox.pyscene against the oracle's facts, and rays against its walls."""
import math

import numpy as np
import pytest

import falcor
from falcor import float3, float4
from scenes_for_tests import CORNELL

WHITE = (0.725, 0.71, 0.68, 1)
NODES = {  # name: (base color or None for the light, scaling, translation, rotation matrix)
    "Floor": (WHITE, (0.55, 1, 0.56), (0, 0, 0), np.eye(3)),
    "Ceiling": (WHITE, (0.55, 1, 0.56), (0, 0.55, 0), np.diag([1, -1, -1])),
    "Back Wall": (WHITE, (0.55, 1, 0.56), (0, 0.275, -0.275), np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])),
    "Left Wall": ((0.63, 0.065, 0.05, 1), (0.55, 1, 0.56), (-0.275, 0.275, 0), np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 1]])),
    "Right Wall": ((0.14, 0.45, 0.091, 1), (0.55, 1, 0.56), (0.275, 0.275, 0), np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])),
    "Large Box": (WHITE, (0.165, 0.33, 0.165), (-0.093, 0.165, -0.071), None),
    "Small Box": (WHITE, (0.165, 0.165, 0.165), (0.09, 0.0825, 0.111), None),
    "Light": (None, (0.13, 0.13, 0.13), (0, 0.549, 0), np.diag([1, -1, -1])),
}


def ry(a):
    return np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])


@pytest.fixture(scope="module")
def scene():
    return falcor.load_scene(CORNELL)


def half(v):
    return float(np.float16(v))


def test_nodes_instances_and_materials(scene):
    """Every mesh is static and placed once, so (as Falcor) its vertices are pre-transformed to
    world space and its instance, placed by the appended identity node, has an identity matrix."""
    native = scene.native
    assert native.instance_count == 8 and scene.stats["meshCount"] == 8
    object_space = {"quad": falcor.TriangleMesh.createQuad().positions, "cube": falcor.TriangleMesh.createCube().positions}
    for index, (name, (color, scaling, translation, rotation)) in enumerate(NODES.items()):
        inst = native.get_instance(index)
        if rotation is None:
            rotation = ry(-1.27 if name == "Large Box" else -0.29)
        expected = np.eye(4)
        expected[:3, :3] = rotation * np.array(scaling)[None, :]
        expected[:3, 3] = translation
        np.testing.assert_array_equal(inst["world"], np.eye(4), err_msg=name)
        assert inst["mesh_id"] == index and inst["node_id"] == len(NODES)
        positions = object_space["cube" if "Box" in name else "quad"]
        world = positions @ expected[:3, :3].T + expected[:3, 3]
        np.testing.assert_allclose(native.get_mesh_arrays(index)["positions"], world, atol=1e-6, err_msg=name)
        material = scene.materials[inst["material_id"]]
        assert isinstance(material, falcor.StandardMaterial)
        if color is None:
            assert material.name == "Light" and material.emissive
            assert material.emissiveColor == float3(17, 12, 4) and material.emissiveFactor == 5
            assert material.baseColor == float4(1)
            assert native.get_material_emission(inst["material_id"], (0.5, 0.5)) == pytest.approx((85, 60, 20))
        else:
            assert material.baseColor == float4(*(half(c) for c in color)) and material.roughness == 0.5, name
    # Identical white materials are merged, as Falcor does unless DontMergeMaterials.
    assert [m.name for m in scene.materials] == ["Floor", "Left Wall", "Right Wall", "Light"]


def test_camera(scene):
    c = scene.camera
    assert c.position == float3(0, 0.28, 1.2) and c.target == float3(0, 0.28, 0) and c.up == float3(0, 1, 0)
    assert c.focalLength == 35 and c.frameHeight == 24 and c.nearPlane == pytest.approx(0.1) and len(scene.cameras) == 1
    b = scene.bounds
    # The back wall is 0.56 deep before its rotation: it reaches 0.005 below the floor and above the ceiling.
    np.testing.assert_allclose(list(b.min_point), [-0.275, -0.005, -0.28], atol=1e-6)
    np.testing.assert_allclose(list(b.max_point), [0.275, 0.555, 0.28], atol=1e-6)


CASES = [  # origin, direction, expected distance, expected node
    ((0, 0.45, 0), (0, 0, -1), 0.275, "Back Wall"),
    ((0, 0.45, 0), (-1, 0, 0), 0.275, "Left Wall"),
    ((0, 0.45, 0), (1, 0, 0), 0.275, "Right Wall"),
    ((0, 0.45, 0), (0, 1, 0), 0.099, "Light"),
    ((0.2, 0.45, 0.2), (0, 1, 0), 0.1, "Ceiling"),
    ((-0.2, 0.45, 0.2), (0, -1, 0), 0.45, "Floor"),
    ((0.09, 0.45, 0.111), (0, -1, 0), 0.285, "Small Box"),
    ((-0.093, 0.45, -0.071), (0, -1, 0), 0.12, "Large Box"),
    ((0.1, 0.2, 0), (0, 0, -1), 0.275, "Back Wall"),  # direction halved below
]


def test_rays_hit_walls_at_known_distances(scene):
    origins = np.array([c[0] for c in CASES], np.float32)
    dirs = np.array([c[1] for c in CASES], np.float32)
    dirs[-1] *= 0.5  # distances are measured in units of the direction's length
    r = scene.cast_rays(origins, dirs)
    names = list(NODES)
    expected_t = [c[2] for c in CASES]
    expected_t[-1] = 0.275 / 0.5
    # The last ray passes beside the large box (its corner reaches x = 0.023 only) and over the small one.
    np.testing.assert_allclose(r["t"], expected_t, atol=1e-5)
    assert [names[i] for i in r["instance_id"]] == [c[3] for c in CASES]
    # The hit point and normal from the barycentrics.
    for i in range(len(CASES)):
        v = scene.native.get_vertex_data(int(r["instance_id"][i]), int(r["primitive_index"][i]), r["barycentrics"][i])
        np.testing.assert_allclose(v["posW"], origins[i] + r["t"][i] * dirs[i], atol=1e-5)
        assert np.dot(v["faceNormalW"], dirs[i]) < 0  # every wall faces into the box


def test_rays_leaving_the_box(scene):
    r = scene.cast_rays([[0, 0.45, 0], [0, 0.45, 0]], [[0, 0, 1], [0, 1, 0]], t_max=[10.0, 0.05])
    assert list(r["hit"]) == [False, False] and np.all(np.isinf(r["t"]))
    assert list(r["instance_id"]) == [0xFFFFFFFF] * 2
    r = scene.cast_rays([[0, 0.45, 0]] * 2, [[0, 0, -1], [0, 0, 1]], any_hit=True)
    assert list(r["hit"]) == [True, False] and set(r) == {"hit"}
