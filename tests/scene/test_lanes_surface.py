"""The surface code over SIMD lanes (Scene::getVertexData, ShadingFrameT, prepare/loadShadingData,
computeRayOrigin) gives every lane the bits of the one-path functions, at every lane width this
machine runs (4, 8, 16 lanes: sse2, avx2, avx512), through the `_lanes_surface` and
`_lanes_shading_frame` test hooks (Scene/SurfaceLanesCheck.h)."""
import numpy as np
import pytest

import falcor
from falcor import SceneBuilder, StandardMaterial, Transform, TriangleMesh, falcor_ext, float3, float4

from helpers import HOST_ISAS, isa_fixture

INVALID = 0xFFFFFFFF


isa = pytest.fixture(params=HOST_ISAS)(isa_fixture)


def random_mesh(rng, triangles, scale=1.0, frontFaceCW=False, zero_normals=False):
    n = triangles * 3
    positions = rng.normal(size=(n, 3)) * scale
    positions[3:6] = positions[3] + np.outer([0.0, 1.0, 2.0], positions[4] - positions[3])  # triangle 1: zero area
    normals = np.zeros((n, 3)) if zero_normals else rng.normal(size=(n, 3))
    return TriangleMesh.from_arrays(positions, normals, rng.random((n, 2)), np.arange(n), frontFaceCW=frontFaceCW)


@pytest.fixture(scope="module")
def scene():
    """Meshes at scales 1, 1e-25 (face normals underflow: the rescaled path) and 1e20 (overflow),
    with clockwise front faces and zero normals; instances pre-transformed (identity) and placed
    by translations, rotations, scalings and a mirror, with different materials."""
    rng = np.random.default_rng(27)
    b = SceneBuilder()
    materials = [StandardMaterial(f"m{i}") for i in range(4)]
    for i, material in enumerate(materials):
        material.baseColor = float4(0.1 * i, 0.5, 0.5, 1)
    unit = b.addTriangleMesh(random_mesh(rng, 60), materials[0])
    clockwise = b.addTriangleMesh(random_mesh(rng, 60, frontFaceCW=True), materials[1])
    tiny = b.addTriangleMesh(random_mesh(rng, 20, scale=1e-25, zero_normals=True), materials[2])
    huge = b.addTriangleMesh(random_mesh(rng, 20, scale=1e20), materials[3])
    b.addMeshInstance(b.addNode("static"), unit)
    b.addMeshInstance(b.addNode("tiny"), tiny)
    b.addMeshInstance(b.addNode("huge"), huge)
    for i, transform in enumerate([Transform(translation=float3(1, 2, 3)),
                                   Transform(translation=float3(-1, 0, 2), rotationEulerDeg=float3(30, 45, 10), scaling=float3(2, -1, 0.5)),
                                   Transform(scaling=float3(3, 3, 3))]):
        b.addMeshInstance(b.addNode(f"placed{i}"), clockwise)
    built = b.getScene()
    yield built.native
    del built


def instance_meshes(native):
    return [native.get_mesh_arrays(native.get_instance(i)["mesh_id"]) for i in range(native.instance_count)]


def triangle_counts(native):
    return np.array([len(mesh["triangles"]) for mesh in instance_meshes(native)])


def tiny_instance(native):
    return next(i for i, mesh in enumerate(instance_meshes(native)) if np.abs(mesh["positions"]).max() < 1e-20)


def random_hits(native, count, seed):
    """Hits on random triangles: random barycentrics plus the corners, edge midpoints and the
    middle of the triangle; random ray directions (front and back faces)."""
    rng = np.random.default_rng(seed)
    inst = rng.integers(0, native.instance_count, count).astype(np.uint32)
    prim = (rng.random(count) * triangle_counts(native)[inst]).astype(np.uint32)
    bary = rng.random((count, 2)).astype(np.float32)
    special = np.array([[0, 0], [1, 0], [0, 1], [0.5, 0.5], [0.5, 0], [0, 0.5], [1 / 3, 1 / 3]], np.float32)
    bary[: count // 4] = special[rng.integers(0, len(special), count // 4)]
    dirs = rng.normal(size=(count, 3)).astype(np.float32)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    return inst, prim, bary, dirs


def assert_fields_equal(lanes, scalar, rows, what):
    assert lanes.keys() == scalar.keys()
    for field in scalar:
        bad = np.nonzero(np.any(lanes[field][rows] != scalar[field][rows], axis=1))[0]
        assert len(bad) == 0, f"{what}: {field} differs in {len(bad)} rows, first row {np.nonzero(rows)[0][bad[0]]}"


def test_surface_lanes_match_scalar(scene, isa):
    inst, prim, bary, dirs = random_hits(scene, 12000, seed=1)
    active = np.ones(len(inst), bool)
    scalar = scene._lanes_surface(inst, prim, bary, dirs, active, scalar=True)
    # Grazing rays: along the face (V·faceN is ~0, of either sign or zero).
    face = scalar["faceNormalW"].view(np.float32)
    grazing = np.cross(face, np.random.default_rng(2).normal(size=face.shape)).astype(np.float32)
    grazing /= np.maximum(np.linalg.norm(grazing, axis=1, keepdims=True), 1e-30)
    for what, d in [("random directions", dirs), ("grazing directions", grazing)]:
        scalar = scene._lanes_surface(inst, prim, bary, d, active, scalar=True)
        assert_fields_equal(scene._lanes_surface(inst, prim, bary, d, active), scalar, active, f"{isa}, {what}")

    # The data covers what the lanes must agree on: both facings, several materials, the rescaled
    # face normals of the tiny and huge meshes, zero normals, interpolated tangent signs of 0.
    assert set(np.unique(scalar["sd.frontFacing"])) == {0, 1}
    assert len(np.unique(scalar["sd.materialID"])) == 4
    tiny = inst == tiny_instance(scene)
    assert np.all(scalar["normalW"][tiny] == 0)
    assert np.allclose(np.linalg.norm(scalar["faceNormalW"].view(np.float32)[tiny & (prim != 1)], axis=1), 1, atol=1e-6)
    assert np.count_nonzero(scalar["tangentW"].view(np.float32)[:, 3] == 0) > 0


def test_masked_off_lanes(scene, isa):
    """Inactive lanes may hold invalid IDs: they neither raise nor change the active lanes' results,
    and their rows are not written."""
    inst, prim, bary, dirs = random_hits(scene, 3001, seed=3)
    active = np.random.default_rng(4).random(len(inst)) < 0.7
    active[:20] = False  # whole chunks masked off
    inst_masked, prim_masked = inst.copy(), prim.copy()
    inst_masked[~active] = INVALID
    prim_masked[~active] = 1 << 30
    lanes = scene._lanes_surface(inst_masked, prim_masked, bary, dirs, active)
    assert_fields_equal(lanes, scene._lanes_surface(inst, prim, bary, dirs, active, scalar=True), active, f"{isa}, masked")
    assert all(np.all(lanes[field][~active] == 0) for field in lanes)
    none = scene._lanes_surface(inst_masked[:5], prim_masked[:5], bary[:5], dirs[:5], np.zeros(5, bool))
    assert all(np.all(a == 0) for a in none.values())


@pytest.mark.parametrize("scalar", [True, False])
def test_invalid_active_hit_raises(scene, isa, scalar):
    inst, prim, bary, dirs = random_hits(scene, 10, seed=5)
    inst[7] = scene.instance_count
    with pytest.raises(IndexError):
        scene._lanes_surface(inst, prim, bary, dirs, np.ones(10, bool), scalar=scalar)
    with pytest.raises(falcor.RuntimeError, match="ray_dirs"):
        scene._lanes_surface(inst, prim, bary, dirs[:, :2], np.ones(10, bool), scalar=scalar)


def frame_inputs(count, seed):
    """Random normals, tangents and vectors, then the tangents createSafe rejects or that sit at its
    thresholds, and normals on which perpStark ties."""
    rng = np.random.default_rng(seed)
    n = rng.normal(size=(count, 3)).astype(np.float32)
    t = rng.normal(size=(count, 3))
    t = np.concatenate([t / np.linalg.norm(t, axis=1, keepdims=True), rng.choice([-1.0, 1.0], (count, 1))], axis=1).astype(np.float32)
    v = rng.normal(size=(count, 3)).astype(np.float32)
    k = count // 20
    rows = rng.permutation(count)
    cases = [
        lambda r: t.__setitem__((r, slice(0, 3)), 0),  # zero tangent
        lambda r: t.__setitem__((r, slice(0, 3)), n[r] * rng.uniform(-2, 2, (len(r), 1))),  # along the normal
        lambda r: t.__setitem__((r, 3), 0),  # no bitangent sign
        lambda r: t.__setitem__((r, 3), 0.5),
        lambda r: t.__setitem__((r, 0), np.nan),
        lambda r: n.__setitem__(r, 0),  # zero normal
        lambda r: n.__setitem__(r, np.nan),
        lambda r: n.__setitem__(r, rng.choice([-1.0, 0.0, -0.0, 1.0], (len(r), 3))),  # axes, diagonals: perpStark ties
        lambda r: n.__setitem__(r, n[r] * 1e-30),  # tiny and huge lengths
        lambda r: n.__setitem__(r, n[r] * 1e30),
    ]
    for i, case in enumerate(cases):
        case(rows[i * k:(i + 1) * k])
    # |N·T| at createSafe's 0.9999 threshold: T = cos·N + sin·perp, N unit.
    r = rows[len(cases) * k:(len(cases) + 1) * k]
    n[r] /= np.linalg.norm(n[r], axis=1, keepdims=True)
    perp = np.cross(n[r], rng.normal(size=(len(r), 3)))
    perp /= np.linalg.norm(perp, axis=1, keepdims=True)
    cos = rng.choice([0.9998, 0.9999, 0.99991], (len(r), 1))
    t[r, :3] = cos * n[r] + np.sqrt(1 - cos * cos) * perp
    plain = np.ones(count, bool)
    plain[rows[:(len(cases) + 1) * k]] = False
    return n, t, v, plain


def test_shading_frame_lanes_match_scalar(isa):
    n, t, v, plain = frame_inputs(12000, seed=6)
    scalar = falcor_ext._lanes_shading_frame(n, t, v, scalar=True)
    lanes = falcor_ext._lanes_shading_frame(n, t, v)
    assert_fields_equal(lanes, scalar, np.ones(len(n), bool), isa)
    valid = scalar["safe.valid"][:, 0]
    assert 0.3 < valid.mean() < 0.9  # both sides of createSafe, mixed within chunks
    plain &= valid == 1  # random unit tangents are rarely within 0.01 rad of the normal
    assert plain.sum() > 5000
    T, B, N = (scalar[f"safe.{axis}"].view(np.float32)[plain] for axis in "TBN")
    np.testing.assert_allclose([np.sum(T * N, axis=1), np.sum(B * N, axis=1), np.sum(T * B, axis=1)], 0, atol=1e-5)
