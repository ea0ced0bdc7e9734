"""Skinning from Assimp's formats: the importer IR's Skin (joints, inverse bind matrices, per-vertex
influences) against what the files hold, read from the files themselves: the shared FBX asset's
clusters (tests/scene/fbx_binary.py) and a small Collada skin written here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import falcor
from falcor.scene.importers import assimp
from falcor.scene.importers._imported import add_to_scene_builder, world_matrix_at
from falcor.scene.scene_builder import SceneBuilder

import fbx_binary
from shared_files import shared_path


def skin_of(scene):
    """The one skinned mesh of an imported scene, and the node placing it."""
    (mesh,) = [m for m in scene.meshes if m.skin is not None]
    (node,) = [i for i, n in enumerate(scene.nodes) if scene.meshes.index(mesh) in n.meshes]
    return mesh, node


def dense_weights(skin, joint_count: int) -> np.ndarray:
    """(N, joints) weight of every joint at every vertex (slots of one joint added up)."""
    dense = np.zeros((len(skin.weights), joint_count))
    rows = np.repeat(np.arange(len(skin.weights)), skin.weights.shape[1])
    np.add.at(dense, (rows, skin.joint_indices.ravel()), skin.weights.ravel())
    return dense


# --- the shared FBX asset -----------------------------------------------------------------------


def skeleton_fbx() -> Path:
    return Path(shared_path("assets", "fbx", "animation_with_skeleton.fbx"))


def fbx_matrix(record) -> np.ndarray:
    """An FBX matrix property (16 doubles, column-major) as a column-vector matrix."""
    return np.array(record.props[0][1]).reshape(4, 4).T


def test_fbx_skin_matches_the_files_clusters(capfd):
    path = skeleton_fbx()
    objects = next(r for r in fbx_binary.read(path.read_bytes()) if r.name == "Objects")
    clusters = {d.props[1][1].split(b"\0")[0].decode(): d for d in objects.find("Deformer") if d.props[2][1] == b"Cluster"}
    control_points = np.array(objects.find("Geometry")[0].find("Vertices")[0].props[0][1]).reshape(-1, 3)
    scene = assimp.load_assimp(path)
    mesh, mesh_node = skin_of(scene)
    skin = mesh.skin
    names = [scene.nodes[j].name for j in skin.joints]
    # every cluster: Bone.001 too, which Falcor's LimitBoneWeights step drops (never among a vertex's 4 largest)
    assert sorted(names) == sorted(clusters) and len(names) == 14
    mesh_world = scene.world_matrix(mesh_node)
    for name, inverse_bind in zip(names, skin.inverse_bind):
        cluster = clusters[name]
        # Blender writes each cluster's Transform as the mesh-to-bone matrix Assimp computes
        np.testing.assert_allclose(inverse_bind, fbx_matrix(cluster.find("Transform")[0]), atol=1e-5)
        # the bone's bind-time world matrix (TransformLink) times its inverse bind is the mesh's world matrix
        bind_world = fbx_matrix(cluster.find("TransformLink")[0])
        np.testing.assert_allclose(bind_world @ inverse_bind, mesh_world, atol=1e-5 * np.abs(mesh_world).max())
    # each vertex carries the weights its control point has in the clusters (all of them, as stored)
    expected = np.zeros((len(control_points), len(names)))
    for j, name in enumerate(names):
        cluster = clusters[name]
        np.add.at(expected[:, j], cluster.find("Indexes")[0].props[0][1], cluster.find("Weights")[0].props[0][1])
    point_of = {tuple(p): i for i, p in enumerate(control_points.astype(np.float32).tolist())}
    points = np.array([point_of[tuple(p)] for p in mesh.positions.tolist()])
    np.testing.assert_allclose(dense_weights(skin, len(names)), expected[points], rtol=1e-6)
    assert skin.weights.shape[1] == (expected > 0).sum(axis=1).max() == 6  # Falcor would keep 4
    sums = skin.weights.sum(axis=1)
    assert sums.min() < 0.95 and sums.max() > 1.3  # the file's weights are not normalized; kept as they are
    assert skin.joint_indices.shape == skin.weights.shape == (len(mesh.positions), 6)
    assert "skinn" not in capfd.readouterr().out  # no warning: the skin is imported


def skinned_by_formula(scene, mesh, t: float) -> np.ndarray:
    """The mesh's vertices at time t by the IR Skin's formula, in numpy: weights over their sum,
    joints posed by the scene's channels."""
    skin = mesh.skin
    channels = [c for a in scene.animations for c in a.channels]
    matrices = np.stack([world_matrix_at(scene, j, channels, t) @ m for j, m in zip(skin.joints, skin.inverse_bind)])
    weights = skin.weights / skin.weights.sum(axis=1, keepdims=True)
    points = np.concatenate([mesh.positions, np.ones((len(mesh.positions), 1))], 1)
    return np.einsum("vk,vkij,vj->vi", weights, matrices[skin.joint_indices], points)[:, :3]


def test_fbx_skinned_vertices_in_the_engine_follow_the_bones():
    path = skeleton_fbx()
    ir_scene = assimp.load_assimp(path)
    (mesh,) = ir_scene.meshes
    scene = falcor.load_scene(path)
    key_times = np.unique(np.concatenate([c.times for a in ir_scene.animations for c in a.channels]))
    posed = float(key_times[len(key_times) // 2])  # a key mid-way through the bend (the end wraps to 0: looped)
    rest, bent = (skinned_by_formula(ir_scene, mesh, t) for t in (0.0, posed))
    size = np.abs(rest).max()
    assert np.linalg.norm(bent - rest, axis=1).max() > 0.05 * size  # the pose compared is not the rest pose
    for t, expected in ((0.0, rest), (posed, bent)):
        scene.update(t)
        got = scene.native.get_mesh_arrays(0)["positions"]
        np.testing.assert_allclose(got, expected, atol=2e-6 * size)  # float32 matrices


# --- a Collada skin written here ----------------------------------------------------------------

# Five joints placed along x; a strip of positions with known weights. Position 6 lies where
# position 1 does, with the same normal, but different weights: the two must stay two vertices.
POSITIONS = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (1, 1, 0), (2, 1, 0), (1, 0, 0)]
TRIANGLES = [(0, 1, 4), (0, 4, 3), (6, 2, 5), (6, 5, 4)]
INFLUENCES = [  # per position: (joint, weight)
    [(0, 1.0)],
    [(0, 0.5), (1, 0.5)],
    [(1, 1.0)],
    [(0, 0.8), (2, 0.2)],
    [(0, 0.3), (1, 0.25), (2, 0.2), (3, 0.15), (4, 0.1)],  # five: Falcor's importer would drop 0.1
    [(1, 0.6), (3, 0.6)],  # not normalized
    [(2, 1.0)],
]
JOINT_X = [0.0, 1.0, 2.0, 3.0, 4.0]
BIND_SHAPE = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.5], [0, 0, 0, 1]], float)


def collada_skin(positions=POSITIONS, triangles=TRIANGLES, influences=INFLUENCES, joint_x=JOINT_X) -> str:
    """A Collada file: the strip skinned to joints J0, J1, ... placed at x = joint_x, bound at that pose."""
    weights = sorted({w for vertex in influences for _, w in vertex})
    index_of = {w: i for i, w in enumerate(weights)}
    v = " ".join(f"{j} {index_of[w]}" for vertex in influences for j, w in vertex)
    inverse_binds = " ".join(" ".join(f"{x:g}" for x in np.linalg.inv(_translation(x)).ravel()) for x in joint_x)
    joints = "\n".join(f'<node id="J{k}" sid="J{k}" name="J{k}" type="JOINT"><matrix sid="transform">'
                       f'{" ".join(f"{x:g}" for x in _translation(x).ravel())}</matrix></node>'
                       for k, x in enumerate(joint_x))
    return f"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries><geometry id="strip" name="strip"><mesh>
    <source id="strip-pos"><float_array id="strip-pos-array" count="{3 * len(positions)}">
      {" ".join(f"{c:g}" for p in positions for c in p)}</float_array>
      <technique_common><accessor source="#strip-pos-array" count="{len(positions)}" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <source id="strip-nrm"><float_array id="strip-nrm-array" count="3">0 0 1</float_array>
      <technique_common><accessor source="#strip-nrm-array" count="1" stride="3">
        <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
      </accessor></technique_common></source>
    <vertices id="strip-vtx"><input semantic="POSITION" source="#strip-pos"/></vertices>
    <triangles count="{len(triangles)}">
      <input semantic="VERTEX" source="#strip-vtx" offset="0"/><input semantic="NORMAL" source="#strip-nrm" offset="1"/>
      <p>{" ".join(f"{i} 0" for t in triangles for i in t)}</p></triangles>
  </mesh></geometry></library_geometries>
  <library_controllers><controller id="skin"><skin source="#strip">
    <bind_shape_matrix>{" ".join(f"{x:g}" for x in BIND_SHAPE.ravel())}</bind_shape_matrix>
    <source id="skin-joints"><Name_array id="skin-joints-array" count="{len(joint_x)}">
      {" ".join(f"J{k}" for k in range(len(joint_x)))}</Name_array>
      <technique_common><accessor source="#skin-joints-array" count="{len(joint_x)}" stride="1">
        <param name="JOINT" type="name"/></accessor></technique_common></source>
    <source id="skin-binds"><float_array id="skin-binds-array" count="{16 * len(joint_x)}">{inverse_binds}</float_array>
      <technique_common><accessor source="#skin-binds-array" count="{len(joint_x)}" stride="16">
        <param name="TRANSFORM" type="float4x4"/></accessor></technique_common></source>
    <source id="skin-weights"><float_array id="skin-weights-array" count="{len(weights)}">
      {" ".join(f"{w:g}" for w in weights)}</float_array>
      <technique_common><accessor source="#skin-weights-array" count="{len(weights)}" stride="1">
        <param name="WEIGHT" type="float"/></accessor></technique_common></source>
    <joints><input semantic="JOINT" source="#skin-joints"/><input semantic="INV_BIND_MATRIX" source="#skin-binds"/></joints>
    <vertex_weights count="{len(influences)}">
      <input semantic="JOINT" source="#skin-joints" offset="0"/><input semantic="WEIGHT" source="#skin-weights" offset="1"/>
      <vcount>{" ".join(str(len(vertex)) for vertex in influences)}</vcount>
      <v>{v}</v></vertex_weights>
  </skin></controller></library_controllers>
  <library_visual_scenes><visual_scene id="scene">
    <node id="Armature" name="Armature">{joints}</node>
    <node id="Skinned" name="Skinned"><instance_controller url="#skin"><skeleton>#J0</skeleton></instance_controller></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""


def _translation(x: float) -> np.ndarray:
    matrix = np.eye(4)
    matrix[0, 3] = x
    return matrix


@pytest.fixture
def skinned_dae(tmp_path) -> Path:
    path = tmp_path / "skinned.dae"
    path.write_text(collada_skin())
    return path


def test_collada_skin_in_the_ir(skinned_dae):
    scene = assimp.load_assimp(skinned_dae)
    mesh, _ = skin_of(scene)
    skin = mesh.skin
    names = [scene.nodes[j].name for j in skin.joints]
    assert sorted(names) == [f"J{k}" for k in range(len(JOINT_X))]
    for name, inverse_bind in zip(names, skin.inverse_bind):
        # Collada's skinning matrix is the joint's inverse bind matrix times the bind shape matrix
        np.testing.assert_allclose(inverse_bind, np.linalg.inv(_translation(JOINT_X[int(name[1:])])) @ BIND_SHAPE, atol=1e-6)
    # every vertex has its position's weights; position 6 stays apart from position 1
    assert len(mesh.positions) == len(POSITIONS) and skin.weights.shape == (len(POSITIONS), 5)
    expected = np.zeros((len(POSITIONS), len(names)))
    for p, vertex in enumerate(INFLUENCES):
        for j, w in vertex:
            expected[p, names.index(f"J{j}")] = w
    position_of = [POSITIONS.index(tuple(p)) for p in mesh.positions.astype(int).tolist()]
    dense = dense_weights(skin, len(names))
    by_weights = [next(q for q in range(len(POSITIONS)) if np.allclose(dense[v], expected[q])) for v in range(len(dense))]
    assert sorted(by_weights) == list(range(len(POSITIONS)))  # each position's weights on exactly one vertex
    assert all(POSITIONS[q] == POSITIONS[p] for p, q in zip(position_of, by_weights))
    # each triangle's corners carry the weights of the file's triangle (whatever the order of triangles and corners)
    def corner_sets(rows, triangles):
        return sorted(tuple(sorted(tuple(rows[i].round(6)) for i in t)) for t in np.asarray(triangles))

    assert corner_sets(dense, mesh.indices) == corner_sets(expected, TRIANGLES)
    # bind pose: every joint's world matrix times its inverse bind is the bind shape matrix (rigid bind)
    for j, inverse_bind in zip(skin.joints, skin.inverse_bind):
        np.testing.assert_allclose(scene.world_matrix(j) @ inverse_bind, BIND_SHAPE, atol=1e-6)


def test_collada_bind_pose_in_the_engine_is_the_bind_shape(skinned_dae):
    """At bind pose every joint's skinning matrix is the bind shape matrix: the strip is drawn lifted by 0.5 in z."""
    mesh, _ = skin_of(assimp.load_assimp(skinned_dae))
    scene = falcor.load_scene(skinned_dae)
    scene.update(0.0)
    got = scene.native.get_mesh_arrays(0)["positions"]
    np.testing.assert_allclose(got, mesh.positions + [0.0, 0.0, 0.5], atol=1e-6)


# --- the reader's result is checked (it crossed a process boundary) ---------------------------


def map_altered(path: Path, alter):
    """The IR of `path` after `alter(mesh_dict)` changed the reader's result for its one mesh."""
    data = assimp._read(path, merge_meshes=True)["scene"]
    alter(data["meshes"][0])
    return assimp._SceneMapper(path, data).map()


def set_item(key, index, value):
    return lambda mesh: mesh["skin"][key].__setitem__(index, value)


def replace(key, change):
    return lambda mesh: mesh["skin"].__setitem__(key, change(mesh["skin"][key]))


@pytest.mark.parametrize("alter, message", [
    (replace("weights", lambda w: w[:-1]), "Assimp's bone arrays do not match the mesh"),
    (replace("offsets", lambda m: m[:-1]), "Assimp's bone arrays do not match the mesh"),
    (replace("joint_indices", lambda j: j.astype(np.float32)), "Assimp's bone arrays do not match the mesh"),
    (set_item("bones", 4, "Ghost"), "mesh 'strip': bone 'Ghost' names no node of the scene"),
    # values: the engine's skin checks (falcor.scene.skinning.MeshSkin)
    (set_item("weights", (0, 0), -0.5), "negative or non-finite joint weight"),
    (set_item("weights", (1, 0), np.nan), "negative or non-finite joint weight"),
    (set_item("joint_indices", (4, 0), 5), "refers to joint 5 of 5"),
    (set_item("offsets", (3, 0, 0), np.inf), "inverse bind matrix with inf/nan values"),
])
def test_bad_skin_data_is_an_importer_error_naming_the_file(skinned_dae, alter, message):
    with pytest.raises(falcor.ImporterError, match=message) as info:
        add_to_scene_builder(map_altered(skinned_dae, alter), SceneBuilder())
    assert str(skinned_dae) in str(info.value)


def test_flat_shading_keeps_each_corners_weights(skinned_dae):
    """A mesh whose normals are unusable is unshared per corner; each corner keeps its vertex's influences."""
    smooth = skin_of(assimp.load_assimp(skinned_dae))[0]
    flat = skin_of(map_altered(skinned_dae, lambda m: m["normals"].__setitem__((0, 0), np.nan)))[0]
    assert len(flat.positions) == 3 * len(smooth.indices)
    corners = smooth.indices.ravel()
    np.testing.assert_array_equal(flat.positions, smooth.positions[corners])
    np.testing.assert_array_equal(flat.skin.joint_indices, smooth.skin.joint_indices[corners])
    np.testing.assert_array_equal(flat.skin.weights, smooth.skin.weights[corners])


def test_a_vertex_with_too_many_influences_to_pad_is_refused(tmp_path):
    """(N, K) arrays would hold N x K entries: one vertex of 200 influences on a mesh of 3,000 would
    take 600,000 for 3,199 weights; the reader refuses beyond 16 entries per weight or vertex."""
    corners = 3000
    positions = [(float(i), float(i % 7), 0.0) for i in range(corners)]
    triangles = [tuple(range(3 * t, 3 * t + 3)) for t in range(corners // 3)]
    influences = [[(j, 0.005) for j in range(200)]] + [[(0, 1.0)]] * (corners - 1)
    path = tmp_path / "crowded.dae"
    path.write_text(collada_skin(positions, triangles, influences, [0.0] * 200))
    with pytest.raises(falcor.ImporterError, match=r"mesh 'strip': a vertex has 200 bone influences") as info:
        assimp.load_assimp(path)
    assert str(path) in str(info.value)


def test_a_controller_instanced_twice_is_drawn_once_where_its_joints_put_it(tmp_path, capfd):
    """Falcor refuses a skinned mesh with several instances; here the engine draws it once, with a warning."""
    placed = '<node id="Skinned" name="Skinned"><instance_controller url="#skin"><skeleton>#J0</skeleton></instance_controller></node>'
    again = placed.replace('"Skinned"', '"Again"').replace("<instance_controller", "<translate>0 5 0</translate><instance_controller")
    path = tmp_path / "twice.dae"
    path.write_text(collada_skin().replace(placed, placed + again))
    ir_scene = assimp.load_assimp(path)
    assert [n.meshes for n in ir_scene.nodes if n.meshes] == [[0], [0]]
    scene = falcor.load_scene(path)
    assert "Skinned mesh 'strip' is placed by 2 nodes" in capfd.readouterr().out
    assert scene.stats["meshInstanceCount"] == 1
    scene.update(0.0)
    np.testing.assert_allclose(scene.native.get_mesh_arrays(0)["positions"], ir_scene.meshes[0].positions + [0, 0, 0.5], atol=1e-6)
