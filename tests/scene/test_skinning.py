"""Linear blend skinning (falcor.scene.skinning, Scene/Skinning.h): skinned vertices against the
formula evaluated here in numpy, previous-frame positions for motion vectors, the acceleration
structure following the pose, borrowed renders and the scene cache leaving the pose as it was,
thread-count determinism, bad skins refused by name, and glTF skins against the glTF spec's
definition evaluated from the file's own data."""
from __future__ import annotations

import base64
import json
import math

import falcor
import numpy as np
import pytest
from falcor.math_types import float3
from falcor.scene.animation import Animation
from falcor.scene.material import StandardMaterial
from falcor.scene.scene_builder import SceneBuilder, SceneBuilderFlags
from falcor.scene.skinning import MeshSkin
from falcor.scene.transform import Transform
from falcor.scene.triangle_mesh import TriangleMesh
from shared_files import shared_path

BEND_TIME, BEND_ANGLE = 1.0, math.pi / 4  # the elbow's angle at BEND_TIME (the animation's halfway key)


def strip(rows: int = 4):
    """A unit-wide strip of quads along +Y (two vertices per row), normals +Z."""
    y = np.repeat(np.arange(rows + 1, dtype=np.float32), 2)
    positions = np.stack([np.tile([0.0, 1.0], rows + 1), y, np.zeros_like(y)], 1).astype(np.float32)
    quads = [(2 * r, 2 * r + 1, 2 * r + 2, 2 * r + 1, 2 * r + 3, 2 * r + 2) for r in range(rows)]
    return positions, np.array(quads, np.uint32).reshape(-1)


def arm_builder(weights):
    """A strip skinned to a shoulder (at the origin) and an elbow (at y = 2) that bends about Z
    from 0 to 90 degrees over 2 s; the strip is placed by a 'holder' node, which skinning ignores
    but for unweighted vertices."""
    b = SceneBuilder()
    root = b.addNode("root")
    shoulder = b.addNode("shoulder", Transform(), root)
    elbow = b.addNode("elbow", Transform(translation=float3(0, 2, 0)), shoulder)
    positions, triangles = strip()
    mesh = TriangleMesh.from_arrays(positions, np.tile([0, 0, 1], (len(positions), 1)), np.zeros((len(positions), 2)), triangles, name="arm")
    mesh_id = b.addTriangleMesh(mesh, StandardMaterial("Skin"), True)
    b.addMeshInstance(b.addNode("holder", Transform(translation=float3(5, 0, 0))), mesh_id)
    inverse_bind = np.stack([np.eye(4), np.linalg.inv(translation(0, 2, 0))])
    b._set_mesh_skin(mesh_id, MeshSkin("arm", [shoulder, elbow], inverse_bind, np.tile([0, 1], (len(positions), 1)), weights))
    bend = Animation("bend", elbow, 2.0)
    bend.addKeyframe(0.0, Transform(translation=float3(0, 2, 0)))
    bend.addKeyframe(2.0, Transform(translation=float3(0, 2, 0), rotationEuler=float3(0, 0, math.pi / 2)))
    b.addAnimation(bend)
    return b, positions, inverse_bind


def translation(x, y, z):
    m = np.eye(4)
    m[:3, 3] = (x, y, z)
    return m


def rotation_z(angle):
    c, s = math.cos(angle), math.sin(angle)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    return m


def elbow_weights(rows: int = 4):
    """Rows below the elbow follow the shoulder, rows above it the elbow, the elbow row half each."""
    y = np.repeat(np.arange(rows + 1), 2)
    w_elbow = np.clip(y - 1.0, 0.0, 1.0).astype(np.float32)
    w_elbow[y == 2] = 0.5
    return np.stack([1 - w_elbow, w_elbow], 1)


def expected_positions(positions, weights, inverse_bind, elbow_world):
    skinning = [np.eye(4) @ inverse_bind[0], elbow_world @ inverse_bind[1]]
    p = np.concatenate([positions, np.ones((len(positions), 1))], 1)
    return sum(w[:, None] * (p @ m.T)[:, :3] for w, m in zip(weights.T, skinning))


def test_skinned_vertices_follow_the_joints_by_their_weights():
    weights = elbow_weights()
    b, positions, inverse_bind = arm_builder(weights)
    scene = b.getScene()
    rest = scene.native.get_mesh_arrays(0)
    np.testing.assert_allclose(rest["positions"], positions, atol=1e-6)  # at rest = bind pose
    scene.update(BEND_TIME)
    posed = scene.native.get_mesh_arrays(0)
    bend = rotation_z(BEND_ANGLE)
    want = expected_positions(positions, weights, inverse_bind, translation(0, 2, 0) @ bend)
    np.testing.assert_allclose(posed["positions"], want, atol=1e-5)
    assert not np.allclose(posed["positions"], positions, atol=0.1)  # it did bend
    np.testing.assert_allclose(posed["normals"], np.tile([0, 0, 1], (len(positions), 1)), atol=1e-6)  # a bend about Z keeps +Z
    top = weights[:, 1] == 1  # vertices the elbow owns: their tangents turn with it, the sign stays
    np.testing.assert_allclose(posed["tangents"][top, :3], rest["tangents"][top, :3] @ bend[:3, :3].T, atol=1e-6)
    np.testing.assert_array_equal(posed["tangents"][:, 3], rest["tangents"][:, 3])


def test_normals_use_the_inverse_transpose_of_the_blended_joints():
    """A joint that scales non-uniformly: normals of the vertices it owns turn by the inverse
    transpose (a tilted face normal under a stretch), not by the matrix itself."""
    b = SceneBuilder()
    joint = b.addNode("joint", Transform(scaling=float3(1, 3, 1)))
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 1]], np.float32)
    normal = np.cross(positions[1] - positions[0], positions[2] - positions[0])
    normal /= np.linalg.norm(normal)
    mesh = TriangleMesh.from_arrays(positions, np.tile(normal, (3, 1)), np.zeros((3, 2)), [0, 1, 2], name="tilted")
    mesh_id = b.addTriangleMesh(mesh, StandardMaterial("M"), True)
    b.addMeshInstance(b.addNode("holder"), mesh_id)
    b._set_mesh_skin(mesh_id, MeshSkin("tilted", [joint], np.eye(4)[None], np.zeros((3, 1), int), np.ones((3, 1))))
    scene = b.getScene()
    got = scene.native.get_mesh_arrays(0)["normals"][0]
    want = np.diag([1, 1 / 3, 1]) @ normal
    np.testing.assert_allclose(got, want / np.linalg.norm(want), atol=1e-6)
    assert np.linalg.norm(got - normal) > 0.05  # the stretch did turn it


def test_weights_are_normalized_and_unweighted_vertices_follow_the_placing_node():
    weights = 3.0 * elbow_weights()  # rows sum to 3
    weights[:2] = 0.0  # the bottom row has no weight: it follows the holder at x = 5
    b, positions, inverse_bind = arm_builder(weights)
    scene = b.getScene()
    scene.update(BEND_TIME)
    got = scene.native.get_mesh_arrays(0)["positions"]
    want = expected_positions(positions, elbow_weights(), inverse_bind, translation(0, 2, 0) @ rotation_z(BEND_ANGLE))
    np.testing.assert_allclose(got[2:], want[2:], atol=1e-5)
    np.testing.assert_allclose(got[:2], positions[:2] + [5, 0, 0], atol=1e-6)


def hits(scene, origin, direction) -> bool:
    return bool(scene.cast_rays(np.array([origin], np.float32), np.array([direction], np.float32))["hit"][0])


def test_rays_and_motion_vectors_follow_the_pose():
    b, _, _ = arm_builder(elbow_weights())
    scene = b.getScene()
    above_the_top_row = ([0.5, 3.9, 1.0], [0, 0, -1])
    assert hits(scene, *above_the_top_row)
    scene.update(BEND_TIME)
    assert not hits(scene, *above_the_top_row)  # the arm bent away: its tree was rebuilt

    last = strip()[1].reshape(-1, 3)[-1]  # the top triangle, hit at its centroid
    centroid = (1 / 3, 1 / 3)
    bent = scene.native.get_mesh_arrays(0)["positions"][last].mean(axis=0)
    assert hits(scene, bent + [0, 0, 1], [0, 0, -1])
    scene.update(1.5)
    data = scene.native.get_vertex_data(0, len(strip()[1]) // 3 - 1, centroid)
    now = scene.native.get_mesh_arrays(0)["positions"][last].mean(axis=0)
    np.testing.assert_allclose(data["posW"], now, atol=1e-5)
    np.testing.assert_allclose(data["prevPosW"], bent, atol=1e-5)  # where the previous frame drew it
    assert np.linalg.norm(now - bent) > 0.1
    scene.update(1.5)  # nothing moved since: the previous frame is where it is now
    np.testing.assert_allclose(scene.native.get_vertex_data(0, len(strip()[1]) // 3 - 1, centroid)["prevPosW"], now, atol=1e-5)


def test_borrowed_render_leaves_the_pose_and_history_as_they_were():
    b, _, _ = arm_builder(elbow_weights())
    scene = b.getScene()
    scene.update(0.5)
    scene.update(BEND_TIME)
    before = scene.native.get_mesh_arrays(0)
    prev_before = scene.native.get_vertex_data(0, 7, (0.0, 1.0))["prevPosW"]
    image = falcor.render(scene, spp=1, width=8, height=8, time=1.75)
    assert np.isfinite(image).all()
    after = scene.native.get_mesh_arrays(0)
    for key in before:
        np.testing.assert_array_equal(before[key], after[key])
    assert scene.native.get_vertex_data(0, 7, (0.0, 1.0))["prevPosW"] == prev_before
    assert hits(scene, [0.5, 0.5, 1.0], [0, 0, -1])


def test_skinning_is_bit_identical_on_any_thread_count():
    rows = 3000  # more vertices than one task of the pool takes
    positions, triangles = strip(rows)
    y = positions[:, 1] / rows
    weights = np.stack([1 - y, y], 1).astype(np.float32)
    results = []
    before = falcor.get_thread_count()
    try:
        for threads in (1, 2):
            falcor.set_thread_count(threads)
            b = SceneBuilder()
            j0, j1 = b.addNode("j0"), b.addNode("j1", Transform(rotationEuler=float3(0.3, 0.2, 0.1), scaling=float3(1, 2, 1)))
            mesh = TriangleMesh.from_arrays(positions, np.tile([0, 0, 1], (len(positions), 1)), np.zeros((len(positions), 2)), triangles)
            mesh_id = b.addTriangleMesh(mesh, StandardMaterial("M"), True)
            b.addMeshInstance(b.addNode("holder"), mesh_id)
            b._set_mesh_skin(mesh_id, MeshSkin("long", [j0, j1], np.stack([np.eye(4)] * 2), np.tile([0, 1], (len(positions), 1)), weights))
            results.append(b.getScene().native.get_mesh_arrays(0))
    finally:
        falcor.set_thread_count(before)
    for key in results[0]:
        np.testing.assert_array_equal(results[0][key], results[1][key])


@pytest.mark.parametrize("problem, skin_args", [
    ("refers to joint 2 of 2", dict(indices=[[0, 2]] * 10)),
    ("negative or non-finite joint weight", dict(weights=[[np.nan, 1.0]] * 10)),
    ("negative or non-finite joint weight", dict(weights=[[-0.5, 1.5]] * 10)),
    ("inverse bind matrices of shape", dict(inverse_bind=np.stack([np.eye(4)] * 3))),
    ("inf/nan values", dict(inverse_bind=np.stack([np.eye(4), np.full((4, 4), np.inf)]))),
])
def test_bad_skins_are_refused_naming_the_mesh(problem, skin_args):
    args = dict(indices=[[0, 1]] * 10, weights=[[0.5, 0.5]] * 10, inverse_bind=np.stack([np.eye(4)] * 2))
    args.update(skin_args)
    with pytest.raises(falcor.RuntimeError, match=rf"Mesh 'arm': its skin .*{problem}"):
        MeshSkin("arm", [0, 1], args["inverse_bind"], np.array(args["indices"]), np.array(args["weights"]))


def test_a_skin_for_another_vertex_count_is_refused():
    b, _, _ = arm_builder(elbow_weights())
    with pytest.raises(falcor.RuntimeError, match="Mesh 'arm' has 10 vertices but its skin weights 3"):
        b._set_mesh_skin(0, MeshSkin("arm", [0], np.eye(4)[None], np.zeros((3, 1), int), np.ones((3, 1))))


# ---- glTF -----------------------------------------------------------------------------------------

SIMPLE_SKIN = shared_path("assets", "gltf", "simple_skin.gltf")


def gltf_reference(path, t):
    """Skinned positions of the glTF tutorial's simple skin at key time t, from the file's data by the
    glTF 2.0 definition (joint matrix = global joint transform @ inverse bind matrix)."""
    import pygltflib
    from falcor.scene.importers._imported import trs_matrix

    g = pygltflib.GLTF2().load(str(path))
    blobs = [base64.b64decode(b.uri.partition(";base64,")[2]) for b in g.buffers]  # the file embeds its buffers

    def accessor(i, dtype, width):
        a, v = g.accessors[i], g.bufferViews[g.accessors[i].bufferView]
        start, item = (v.byteOffset or 0) + (a.byteOffset or 0), np.dtype(dtype).itemsize
        stride = v.byteStride or item * width  # the joints and weights are interleaved
        rows = np.ndarray((a.count, width), dtype, blobs[v.buffer], start, (stride, item))
        return rows.astype(np.float64)

    sampler = g.animations[0].samplers[0]
    times, rotations = accessor(sampler.input, np.float32, 1)[:, 0], accessor(sampler.output, np.float32, 4)
    key = int(np.flatnonzero(np.isclose(times, t))[0])

    def local(n):
        node = g.nodes[n]
        rotation = rotations[key] if n == g.animations[0].channels[0].target.node else (node.rotation or (0, 0, 0, 1))
        return trs_matrix(node.translation or (0, 0, 0), rotation, node.scale or (1, 1, 1))

    parents = {c: p for p, node in enumerate(g.nodes) for c in node.children or []}

    def world(n):
        return local(n) if n not in parents else world(parents[n]) @ local(n)

    skin = g.skins[0]
    ibm = accessor(skin.inverseBindMatrices, np.float32, 16).reshape(-1, 4, 4).transpose(0, 2, 1)
    prim = g.meshes[0].primitives[0]
    p = accessor(prim.attributes.POSITION, np.float32, 3)
    joints = accessor(prim.attributes.JOINTS_0, np.uint16, 4).astype(int)
    weights = accessor(prim.attributes.WEIGHTS_0, np.float32, 4)
    matrices = np.stack([world(j) @ m for j, m in zip(skin.joints, ibm)])
    ph = np.concatenate([p, np.ones((len(p), 1))], 1)
    skinned = np.einsum("vk,vkij,vj->vi", weights, matrices[joints], ph)[:, :3]
    indices = accessor(prim.indices, np.uint16, 1)[:, 0].astype(int)
    return skinned[indices]  # the file has no normals: the mesh is flat shaded, one vertex per corner


@pytest.mark.parametrize("t", [0.0, 1.0, 3.0])
def test_gltf_simple_skin_matches_the_gltf_definition(t):
    scene = falcor.load_scene(SIMPLE_SKIN)
    scene.update(t)
    got = scene.native.get_mesh_arrays(0)["positions"]
    np.testing.assert_allclose(got, gltf_reference(SIMPLE_SKIN, t), atol=1e-5)
    assert np.isfinite(falcor.render(scene, spp=1, width=8, height=8, time=t)).all()


def test_gltf_skin_survives_the_scene_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FALCOR_SCENE_CACHE_DIR", str(tmp_path / "cache"))
    built = falcor.load_scene(SIMPLE_SKIN, SceneBuilderFlags.UseCache)
    cached = falcor.load_scene(SIMPLE_SKIN, SceneBuilderFlags.UseCache)
    assert list((tmp_path / "cache").glob("*.fscene"))
    for scene in (built, cached):
        scene.update(3.0)
    np.testing.assert_array_equal(built.native.get_mesh_arrays(0)["positions"], cached.native.get_mesh_arrays(0)["positions"])
    np.testing.assert_allclose(cached.native.get_mesh_arrays(0)["positions"], gltf_reference(SIMPLE_SKIN, 3.0), atol=1e-5)


def gltf_with_skin(tmp_path, skin: dict, joints_data=None):
    """The simple skin with its skin object (and optionally its JOINTS_0 data) replaced."""
    doc = json.loads(SIMPLE_SKIN.read_text())
    doc["skins"][0].update(skin)
    path = tmp_path / "skin.gltf"
    path.write_text(json.dumps(doc))
    return path


def test_gltf_skin_errors_name_the_file(tmp_path):
    with pytest.raises(falcor.ImporterError, match=r"skin\.gltf.*skin 0 uses node 7, which is not in the scene's node tree"):
        falcor.load_scene(gltf_with_skin(tmp_path, {"joints": [1, 7]}))
    with pytest.raises(falcor.ImporterError, match=r"skin\.gltf.*refers to joint 1 of 1"):
        falcor.load_scene(gltf_with_skin(tmp_path, {"joints": [1], "inverseBindMatrices": None}))


def test_gltf_mesh_shared_by_a_rigid_and_a_skinned_node_is_imported_for_each(tmp_path):
    doc = json.loads(SIMPLE_SKIN.read_text())
    doc["nodes"].append({"mesh": 0, "translation": [3, 0, 0]})
    doc["scenes"][0]["nodes"].append(len(doc["nodes"]) - 1)
    path = tmp_path / "shared.gltf"
    path.write_text(json.dumps(doc))
    scene = falcor.load_scene(path)
    assert scene.stats["meshCount"] == 2
    scene.update(3.0)
    arrays = [scene.native.get_mesh_arrays(i)["positions"] for i in range(2)]
    skinned = [a for a in arrays if np.allclose(a, gltf_reference(SIMPLE_SKIN, 3.0), atol=1e-5)]
    assert len(skinned) == 1  # the other copy is rigid, placed at x = 3


def locate(points, triangles):
    """(triangle, barycentrics (b1, b2)) of each point (x, y) of the z = 0 plane in a planar mesh."""
    a, b, c = (triangles[:, k, :2] for k in range(3))
    d = points[:, None, :2] - a[None]
    e1, e2 = b - a, c - a
    det = e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]
    b1 = (d[..., 0] * e2[:, 1] - d[..., 1] * e2[:, 0]) / det
    b2 = (e1[:, 0] * d[..., 1] - e1[:, 1] * d[..., 0]) / det
    inside = (b1 >= -1e-4) & (b2 >= -1e-4) & (b1 + b2 <= 1 + 1e-4)
    tri = np.argmax(inside, axis=1)
    rows = np.arange(len(points))
    return tri, np.stack([b1[rows, tri], b2[rows, tri]], 1), inside.any(axis=1)


def test_gbuffer_world_motion_vectors_of_a_skinned_glTF(tmp_path):
    """Falcor's test_MVecRT / test_Skinning use a skinned glTF (CesiumMan): here the simple skin seen
    by GBufferRT across two frames. Each covered pixel's posW + mvecW must be the same point of the
    surface (same triangle, same barycentrics) on the previous frame's skinned mesh, evaluated by
    the glTF definition."""
    pyscene = tmp_path / "skin.pyscene"
    pyscene.write_text(f"sceneBuilder.importScene({str(SIMPLE_SKIN)!r})\n"
                       "camera = Camera('Front')\ncamera.position = float3(0, 1, 4)\ncamera.target = float3(0, 1, 0)\n"
                       "camera.up = float3(0, 1, 0)\nsceneBuilder.addCamera(camera)\n")
    m = falcor.Renderer(64, 64)
    g = falcor.RenderGraph("MVec")
    g.create_pass("G", "GBufferRT", {})
    for output in ("G.posW", "G.mvecW"):
        g.mark_output(output)
    m.addGraph(g)
    m.loadScene(str(pyscene))
    m.clock.pause()
    for t in (0.5, 1.0):  # the elbow turns from 45 to 90 degrees
        m.clock.time = t
        m.renderFrame()
    pos, mvec = (np.asarray(g.get_output(o).to_numpy(), np.float64) for o in ("G.posW", "G.mvecW"))
    covered = pos[..., 3] > 0  # posW.w is 1 on hits
    pos, mvec = pos[covered][:, :3], mvec[covered][:, :3]
    now, before = gltf_reference(SIMPLE_SKIN, 1.0).reshape(-1, 3, 3), gltf_reference(SIMPLE_SKIN, 0.5).reshape(-1, 3, 3)
    tri, bary, found = locate(pos, now)
    assert found.mean() > 0.99 and covered.sum() > 200
    w = np.concatenate([1 - bary.sum(1, keepdims=True), bary], 1)
    want = np.einsum("pk,pkc->pc", w, before[tri])
    np.testing.assert_allclose((pos + mvec)[found], want[found], atol=5e-3)  # mvecW is half precision
    assert np.linalg.norm(mvec[pos[:, 1] > 1.2], axis=1).min() > 0.05  # the upper half did move


def test_refit_tree_finds_the_hits_a_fresh_build_finds():
    """Posing refits the bottom-level tree built for the bind pose: rays must find exactly the hits
    (triangle, t, barycentrics) of a tree built from scratch for the posed triangles."""
    rows = 400  # 1,600 triangles: a tree several levels deep
    positions, triangles = strip(rows)
    y = positions[:, 1] / rows
    weights = np.stack([1 - y, y], 1).astype(np.float32)
    b = SceneBuilder()
    j0, j1 = b.addNode("j0"), b.addNode("j1")
    mesh = TriangleMesh.from_arrays(positions, np.tile([0, 0, 1], (len(positions), 1)), np.zeros((len(positions), 2)), triangles)
    mesh_id = b.addTriangleMesh(mesh, StandardMaterial("M"), True)
    b.addMeshInstance(b.addNode("holder"), mesh_id)
    b._set_mesh_skin(mesh_id, MeshSkin("long", [j0, j1], np.stack([np.eye(4)] * 2), np.tile([0, 1], (len(positions), 1)), weights))
    twist = Animation("twist", j1, 1.0)
    twist.addKeyframe(0.0, Transform())
    twist.addKeyframe(1.0, Transform(rotationEuler=float3(0.0, 1.2, 0.8), translation=float3(30, 0, 5)))
    b.addAnimation(twist)
    skinned = b.getScene()
    skinned.update(0.7)
    posed = skinned.native.get_mesh_arrays(0)["positions"]

    fresh = SceneBuilder()
    static = TriangleMesh.from_arrays(posed, np.tile([0, 0, 1], (len(posed), 1)), np.zeros((len(posed), 2)), triangles)
    fresh.addMeshInstance(fresh.addNode("n"), fresh.addTriangleMesh(static, StandardMaterial("M")))
    built = fresh.getScene()

    rng = np.random.default_rng(3)
    lo, hi = posed.min(0) - 1, posed.max(0) + 1
    origins = rng.uniform(lo, hi, (20000, 3)).astype(np.float32)
    targets = posed[rng.integers(0, len(posed), 20000)] + rng.normal(0, 0.3, (20000, 3))
    directions = (targets - origins).astype(np.float32)
    a, c = skinned.cast_rays(origins, directions), built.cast_rays(origins, directions)
    assert a["hit"].sum() > 5000
    for key in ("hit", "t", "primitive_index", "barycentrics"):
        np.testing.assert_array_equal(a[key], c[key])
