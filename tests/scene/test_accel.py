"""falcor.TriangleAccel (the scene's BVH) against a float64 numpy brute-force ray/triangle intersector."""
import numpy as np
import pytest

import falcor

MISS = 0xFFFFFFFF
# A float32 hit and the float64 reference may disagree only when the reference hit is this close
# to a triangle edge (in barycentric units) or to the ends of [t_min, t_max].
EDGE_SLACK = 1e-4
T_RTOL = 1e-4


# ---------------------------------------------------------------------------------------------
# Scene generation
# ---------------------------------------------------------------------------------------------
def triangle_soup(rng, count, degenerate=0):
    """Random triangles of random sizes in [-1, 1]^3, plus degenerate ones (repeated vertex
    indices, collinear and zero-area triangles)."""
    centers = rng.uniform(-1, 1, (count, 1, 3))
    sizes = rng.uniform(0.05, 0.8, (count, 1, 1))
    pos = (centers + sizes * rng.normal(size=(count, 3, 3))).reshape(-1, 3)
    tris = np.arange(3 * count).reshape(-1, 3)
    if degenerate:
        d = rng.choice(count, degenerate, replace=False)
        third = len(d) // 3
        tris[d[:third], 2] = tris[d[:third], 0]  # repeated index
        a, b = pos[tris[d[third:2 * third], 0]], pos[tris[d[third:2 * third], 1]]
        pos[tris[d[third:2 * third], 2]] = 0.5 * (a + b)  # collinear
        pos[tris[d[2 * third:]].reshape(-1)] = np.repeat(pos[tris[d[2 * third:], 0]], 3, axis=0)  # a point
    return pos.astype(np.float32), tris.astype(np.uint32)


def random_transform(rng, mirror=False):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    scale = rng.uniform(0.5, 2.0, 3)
    if mirror:
        scale[rng.integers(3)] *= -1
    m = np.eye(4)
    m[:3, :3] = q @ np.diag(scale)
    m[:3, 3] = rng.uniform(-0.7, 0.7, 3)
    return m.astype(np.float32)


def world_triangles(meshes, instances):
    """(T, 3, 3) float64 world-space vertices with the instance and primitive of each."""
    verts, inst, prim = [], [], []
    for i, (mesh_id, m, _) in enumerate(instances):
        pos, tris, _ = meshes[mesh_id]
        p = pos.astype(np.float64) @ np.asarray(m, np.float64)[:3, :3].T + np.asarray(m, np.float64)[:3, 3]
        verts.append(p[tris.astype(np.int64)])
        inst.append(np.full(len(tris), i))
        prim.append(np.arange(len(tris)))
    return np.concatenate(verts), np.concatenate(inst), np.concatenate(prim)


def random_rays(rng, count, lo, hi):
    """Origins in the middle of the bounds (inside many boxes), random directions, a quarter of
    them axis-parallel (one or two zero components, some of them -0.0), and random lengths."""
    center, half = 0.5 * (lo + hi), 0.3 * (hi - lo)
    o = rng.uniform(center - half, center + half, (count, 3))
    d = rng.normal(size=(count, 3)) * rng.uniform(0.1, 3.0, (count, 1))
    axis = rng.random(count) < 0.25
    zero = rng.random((count, 3)) < 0.5
    zero[np.arange(count), rng.integers(0, 3, count)] = False  # keep one component
    d[axis[:, None] & zero] = 0.0
    d[(axis[:, None] & zero) & (rng.random((count, 3)) < 0.5)] = -0.0
    return o.astype(np.float32), d.astype(np.float32)


# ---------------------------------------------------------------------------------------------
# Reference
# ---------------------------------------------------------------------------------------------
def reference_candidates(tri, origins, dirs):
    """t, u, v, margin (smallest barycentric), facing (dot(n, d) < 0) for every ray x triangle in
    float64 (Moller-Trumbore without an epsilon)."""
    o = origins.astype(np.float64)[:, None, :]
    d = dirs.astype(np.float64)[:, None, :]
    p0, e1, e2 = tri[None, :, 0], tri[None, :, 1] - tri[None, :, 0], tri[None, :, 2] - tri[None, :, 0]
    pv = np.cross(d, e2)
    det = np.sum(e1 * pv, axis=-1)
    inv = 1.0 / det
    s = o - p0
    u = np.sum(s * pv, axis=-1) * inv
    qv = np.cross(s, e1)
    v = np.sum(d * qv, axis=-1) * inv
    t = np.sum(e2 * qv, axis=-1) * inv
    margin = np.minimum(np.minimum(u, v), 1 - u - v)
    n = np.cross(e1, e2)
    facing_front = np.sum(n * d, axis=-1) < 0
    return t, u, v, margin, facing_front, det


def reference(*args, **kwargs):
    # Parallel rays and degenerate triangles give inf/nan, which compare false as they should.
    with np.errstate(all="ignore"):
        return _reference(*args, **kwargs)


def _reference(meshes, instances, origins, dirs, t_min=0.0, t_max=np.inf, cull="None", alpha_mask=None):
    """Closest hit per ray by brute force with the engine's rules, and which rays a float32 test
    could legitimately decide otherwise ("doubtful")."""
    tri, inst, prim = world_triangles(meshes, instances)
    k = len(origins)
    t_min = np.broadcast_to(np.asarray(t_min, np.float64), (k,))
    t_max = np.broadcast_to(np.asarray(t_max, np.float64), (k,))
    cw = np.array([instances[i][2] for i in inst])
    opaque = np.array([meshes[instances[i][0]][2] for i in inst])
    accepted = np.ones(len(tri), bool)
    if alpha_mask is not None:
        for j, (i, p) in enumerate(zip(inst, prim)):
            if not opaque[j] and alpha_mask[i] is not None:
                accepted[j] = alpha_mask[i][p]
    out = {"t": np.full(k, np.inf), "instance_id": np.full(k, MISS, np.uint32), "primitive_index": np.full(k, MISS, np.uint32),
           "barycentrics": np.zeros((k, 2)), "doubtful": np.zeros(k, bool)}
    for b in range(0, k, 256):
        e = min(k, b + 256)
        t, u, v, margin, front, det = reference_candidates(tri, origins[b:e], dirs[b:e])
        front = front ^ cw[None, :]
        keep = accepted[None, :] & (det != 0)
        if cull == "Front":
            keep &= ~front
        elif cull == "Back":
            keep &= front
        in_range = (t >= t_min[b:e, None]) & (t <= t_max[b:e, None])
        hit = keep & in_range & (margin >= 0)
        # Candidates that a float32 test could decide either way.
        near_edge = keep & (np.abs(margin) < EDGE_SLACK) & (t >= t_min[b:e, None] * (1 - 1e-3) - 1e-6) & (t <= t_max[b:e, None] * (1 + 1e-3) + 1e-6)
        near_ends = keep & (margin >= -EDGE_SLACK) & ((np.abs(t - t_min[b:e, None]) < 1e-4) | (np.abs(t - t_max[b:e, None]) < 1e-4 * np.maximum(1, np.abs(t))))
        grazing = keep & (margin >= -EDGE_SLACK) & (np.abs(det) < 1e-9)
        tt = np.where(hit, t, np.inf)
        best = np.argmin(tt, axis=1)  # ties: lowest index = lowest instance, then primitive
        rows = np.arange(e - b)
        has = np.isfinite(tt[rows, best])
        out["t"][b:e] = np.where(has, tt[rows, best], np.inf)
        out["instance_id"][b:e] = np.where(has, inst[best], MISS)
        out["primitive_index"][b:e] = np.where(has, prim[best], MISS)
        out["barycentrics"][b:e] = np.where(has[:, None], np.stack([u[rows, best], v[rows, best]], 1), 0)
        # A doubtful ray has an ambiguous candidate at or before the reference's closest hit.
        closest = np.where(has, tt[rows, best], t_max[b:e])
        ambiguous = (near_edge | near_ends | grazing) & (t <= closest[:, None] * (1 + 1e-4) + 1e-6)
        out["doubtful"][b:e] = ambiguous.any(axis=1)
    return out


def assert_matches(got, ref, min_agreement=0.995):
    """Exact identity and close t/barycentrics for every ray the reference decides clearly."""
    clear = ~ref["doubtful"]
    assert clear.mean() > 0.9, "test scene too ambiguous"
    same = (got["instance_id"] == ref["instance_id"]) & (got["primitive_index"] == ref["primitive_index"])
    # Equal-t hits on coplanar duplicates may resolve either way only through rounding; the
    # reference and the engine use the same tie rule, so clear rays must agree exactly.
    bad = clear & ~same
    assert not bad.any(), f"{bad.sum()} clear rays disagree, e.g. ray {np.flatnonzero(bad)[:5]}: got " \
        f"{got['instance_id'][bad][:5]}/{got['primitive_index'][bad][:5]} t={got['t'][bad][:5]}, ref " \
        f"{ref['instance_id'][bad][:5]}/{ref['primitive_index'][bad][:5]} t={ref['t'][bad][:5]}"
    assert same.mean() >= min_agreement
    hit = same & (ref["instance_id"] != MISS)
    np.testing.assert_allclose(got["t"][hit], ref["t"][hit], rtol=T_RTOL, atol=1e-5)
    np.testing.assert_allclose(got["barycentrics"][hit], ref["barycentrics"][hit], atol=1e-3)
    assert np.all(np.isinf(got["t"][got["instance_id"] == MISS]))


# ---------------------------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------------------------
def make_scene(seed, opaque=(True, True, True)):
    rng = np.random.default_rng(seed)
    meshes = [(*triangle_soup(rng, n, degenerate=n // 10), o) for n, o in zip((400, 150, 60), opaque)]
    instances = [(0, np.eye(4, dtype=np.float32), False),
                 (1, random_transform(rng), False),
                 (0, random_transform(rng, mirror=True), True),
                 (2, random_transform(rng, mirror=True), False),
                 (1, random_transform(rng), True)]
    return meshes, instances


def build(meshes, instances):
    accel = falcor.TriangleAccel()
    accel.build(meshes, instances)
    return accel


@pytest.fixture(scope="module")
def scene():
    meshes, instances = make_scene(1)
    accel = build(meshes, instances)
    lo, hi = np.array(accel.bounds[0]), np.array(accel.bounds[1])
    origins, dirs = random_rays(np.random.default_rng(2), 3000, lo, hi)
    return meshes, instances, accel, origins, dirs


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------
def test_bounds_and_stats(scene):
    meshes, instances, accel, _, _ = scene
    # As Falcor's scene bounds: the union of each instance's transformed mesh box (corners).
    corners = []
    for mesh_id, m, _ in instances:
        p = meshes[mesh_id][0][meshes[mesh_id][1].reshape(-1)]  # referenced vertices
        lo, hi = p.min(0), p.max(0)
        box = np.array([[(hi if i >> k & 1 else lo)[k] for k in range(3)] for i in range(8)], np.float64)
        corners.append(box @ np.float64(m)[:3, :3].T + np.float64(m)[:3, 3])
    corners = np.concatenate(corners)
    np.testing.assert_allclose(accel.bounds[0], corners.min(0), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(accel.bounds[1], corners.max(0), rtol=1e-5, atol=1e-5)
    s = accel.stats
    assert s["triangle_count"] == sum(len(m[1]) for m in meshes)
    assert s["blas_node_count"] > 0 and s["tlas_node_count"] > 0 and s["memory_bytes"] > 0
    assert s["blas_build_ms"] >= 0 and s["tlas_build_ms"] >= 0
    assert accel.instance_count == len(instances)


def test_closest_hit_matches_brute_force(scene):
    meshes, instances, accel, origins, dirs = scene
    got = accel.closest_hit(origins, dirs)
    ref = reference(meshes, instances, origins, dirs)
    assert (ref["instance_id"] != MISS).mean() > 0.3
    assert_matches(got, ref)
    assert got["t"].dtype == np.float32 and got["barycentrics"].shape == (len(origins), 2)


def test_t_range(scene):
    meshes, instances, accel, origins, dirs = scene
    rng = np.random.default_rng(3)
    t_min = rng.uniform(0, 1, len(origins)).astype(np.float32)
    t_max = (t_min + rng.uniform(0, 2, len(origins))).astype(np.float32)
    got = accel.closest_hit(origins, dirs, t_min, t_max)
    assert_matches(got, reference(meshes, instances, origins, dirs, t_min, t_max))
    got = accel.closest_hit(origins, dirs, t_min=0.5, t_max=1.5)
    assert_matches(got, reference(meshes, instances, origins, dirs, 0.5, 1.5))
    empty = accel.closest_hit(origins[:10], dirs[:10], t_min=2.0, t_max=1.0)
    assert np.all(empty["instance_id"] == MISS)


@pytest.mark.parametrize("cull", ["Front", "Back"])
def test_culling(scene, cull):
    meshes, instances, accel, origins, dirs = scene
    got = accel.closest_hit(origins, dirs, cull=cull)
    assert_matches(got, reference(meshes, instances, origins, dirs, cull=cull))


def test_culling_single_triangle_winding():
    # Counter-clockwise seen from +z; a mirrored instance and front_face_cw each flip the front.
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    tris = np.array([[0, 1, 2]], np.uint32)
    mirror = np.diag([-1.0, 1.0, 1.0, 1.0])  # x -> -x: the triangle now runs clockwise seen from +z
    o_top = np.array([[0.25, 0.25, 1.0], [-0.25, 0.25, 1.0]], np.float32)
    d = np.array([[0, 0, -1.0], [0, 0, -1.0]], np.float32)
    for transform, cw, front_from_top in [(np.eye(4), False, True), (np.eye(4), True, False), (mirror, False, False), (mirror, True, True)]:
        accel = build([(pos, tris, True)], [(0, transform, cw)])
        o = o_top[1:] if transform is mirror else o_top[:1]
        assert accel.any_hit(o, d[:1])[0]
        assert accel.any_hit(o, d[:1], cull="Back")[0] == front_from_top
        assert accel.any_hit(o, d[:1], cull="Front")[0] != front_from_top


def test_any_hit_agrees(scene):
    meshes, instances, accel, origins, dirs = scene
    rng = np.random.default_rng(4)
    t_max = rng.uniform(0.05, 2.0, len(origins)).astype(np.float32)
    for cull in ("None", "Back"):
        ref = reference(meshes, instances, origins, dirs, 0.0, t_max, cull)
        closest = accel.closest_hit(origins, dirs, 0.0, t_max, cull)
        anyh = accel.any_hit(origins, dirs, 0.0, t_max, cull)
        assert anyh.dtype == bool
        np.testing.assert_array_equal(anyh, closest["instance_id"] != MISS)
        clear = ~ref["doubtful"]
        np.testing.assert_array_equal(anyh[clear], ref["instance_id"][clear] != MISS)


def test_alpha_mask():
    meshes, instances = make_scene(5, opaque=(False, True, False))
    accel = build(meshes, instances)
    rng = np.random.default_rng(6)
    origins, dirs = random_rays(rng, 2000, np.array(accel.bounds[0]), np.array(accel.bounds[1]))
    mask = [rng.random(len(meshes[m][1])) < 0.5 for m, _, _ in instances]
    mask[3] = None  # accept everything on this instance
    got = accel.closest_hit(origins, dirs, alpha_mask=mask)
    ref = reference(meshes, instances, origins, dirs, alpha_mask=mask)
    assert_matches(got, ref)
    # The mask changed results (non-opaque meshes), and opaque meshes ignore it.
    plain = accel.closest_hit(origins, dirs)
    assert np.any(plain["primitive_index"] != got["primitive_index"])
    all_rejected = [np.zeros(len(meshes[m][1]), bool) for m, _, _ in instances]
    only_opaque = accel.closest_hit(origins, dirs, alpha_mask=all_rejected)
    hit = only_opaque["instance_id"] != MISS
    assert hit.any() and np.all(np.isin(only_opaque["instance_id"][hit], [1, 4]))  # mesh 1 is opaque
    shadow = accel.any_hit(origins, dirs, alpha_mask=mask)
    np.testing.assert_array_equal(shadow, got["instance_id"] != MISS)
    with pytest.raises(falcor.RuntimeError, match="alpha_mask"):
        accel.closest_hit(origins, dirs, alpha_mask=mask[:2])


def test_update_transforms_equals_fresh_build(scene):
    meshes, instances, _, origins, dirs = scene
    accel = build(meshes, instances)
    rng = np.random.default_rng(7)
    moved = [(m, random_transform(rng, mirror=bool(i % 2)), cw) for i, (m, _, cw) in enumerate(instances)]
    blas_ms = accel.stats["blas_build_ms"]
    accel.update_instance_transforms([t for _, t, _ in moved])
    assert accel.stats["blas_build_ms"] == blas_ms  # meshes were not rebuilt
    fresh = build(meshes, moved)
    a, b = accel.closest_hit(origins, dirs), fresh.closest_hit(origins, dirs)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    np.testing.assert_array_equal(accel.bounds, fresh.bounds)
    assert_matches(a, reference(meshes, moved, origins, dirs))
    with pytest.raises(falcor.RuntimeError, match="transforms"):
        accel.update_instance_transforms([np.eye(4)])


def test_large_mesh_parallel_build_is_deterministic():
    """A mesh large enough for parallel binning and subtree builds: identical on 1 and 2 threads
    and correct on a sample of rays."""
    rng = np.random.default_rng(8)
    pos, tris = triangle_soup(rng, 70000)
    pos *= np.float32(4.0)
    meshes = [(pos, tris, True)]
    instances = [(0, np.eye(4, dtype=np.float32), False), (0, random_transform(rng, mirror=True), False)]
    before = falcor.get_thread_count()
    results = []
    try:
        for threads in (1, 2):
            falcor.set_thread_count(threads)
            accel = build(meshes, instances)
            origins, dirs = random_rays(np.random.default_rng(9), 20000, np.array(accel.bounds[0]), np.array(accel.bounds[1]))
            results.append((accel.stats, accel.closest_hit(origins, dirs), accel.any_hit(origins, dirs, t_max=0.3)))
    finally:
        falcor.set_thread_count(before)
    (s1, h1, a1), (s2, h2, a2) = results
    assert s1["blas_node_count"] == s2["blas_node_count"]
    for key in h1:
        np.testing.assert_array_equal(h1[key], h2[key])
    np.testing.assert_array_equal(a1, a2)
    sample = slice(0, 40)
    ref = reference(meshes, instances, origins[sample], dirs[sample])
    assert_matches({k: v[sample] for k, v in h1.items()}, ref)


def test_large_ordered_mesh_partitions_correctly_on_the_pool():
    """A sphere stored face by face (as generated meshes are): the top-level splits partition it
    on the pool in chunks, many of them entirely on one side, which the swap of misplaced
    elements must handle. A ray from the center through each triangle's centroid must hit that
    triangle (the sphere is star-shaped from its center), so a primitive lost or misfiled by a
    partition shows up as a miss or a wrong hit."""
    n = 289  # a cube-sphere: six n x n grids, face after face, cell after cell, bumped along the radius
    s = np.linspace(-1.0, 1.0, n + 1)
    u, v = np.meshgrid(s, s, indexing="ij")
    one = np.ones_like(u)
    positions, triangles = [], []
    for f, (x, y, z) in enumerate([(one, u, v), (-one, v, u), (u, one, v), (v, -one, u), (u, v, one), (v, u, -one)]):
        q = np.stack([x, y, z], -1).reshape(-1, 3)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        positions.append(q * (1 + 0.04 * np.sin(9 * q[:, 0]) * np.sin(11 * q[:, 1]) * np.sin(13 * q[:, 2]))[:, None])
        idx = f * (n + 1) ** 2 + np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
        a, b, c, d = idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]
        triangles.append(np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]))
    pos, tris = np.concatenate(positions).astype(np.float32), np.concatenate(triangles).astype(np.uint32)
    assert len(tris) > 100_000  # above the size at which splits run on the pool
    accel = build([(pos, tris, True)], [(0, np.eye(4, dtype=np.float32), False)])
    p = pos[tris].astype(np.float64)
    area = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1)
    aimed = np.flatnonzero(area > 1e-9)  # the poles' degenerate triangles can't be aimed at
    centroids = p[aimed].mean(axis=1)
    hit = accel.closest_hit(np.zeros((len(aimed), 3), np.float32), centroids.astype(np.float32))
    assert (hit["t"] < np.inf).all(), f"{(hit['t'] == np.inf).sum()} rays through a triangle missed"
    np.testing.assert_allclose(hit["t"], 1.0, atol=1e-4)  # dir = centroid: the centroid is at t = 1


def test_ties_go_to_lowest_instance_then_primitive():
    # Two coincident copies of a quad (two triangles sharing the diagonal) in two instances.
    pos = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    tris = np.array([[0, 1, 2], [0, 2, 3], [0, 1, 2]], np.uint32)  # primitive 2 duplicates 0
    accel = build([(pos, tris, True)], [(0, np.eye(4), False), (0, np.eye(4), True)])
    o = np.array([[0.7, 0.2, 1], [0.5, 0.5, 1], [0.2, 0.7, 1]], np.float32)
    d = np.tile(np.float32([0, 0, -1]), (3, 1))
    h = accel.closest_hit(o, d)
    np.testing.assert_array_equal(h["instance_id"], [0, 0, 0])
    np.testing.assert_array_equal(h["primitive_index"], [0, 0, 1])  # the diagonal goes to primitive 0
    h = accel.closest_hit(o, d, cull="Back")  # instance 1 is clockwise-front: back faces from above
    np.testing.assert_array_equal(h["instance_id"], [0, 0, 0])
    h = accel.closest_hit(o, d, cull="Front")
    np.testing.assert_array_equal(h["instance_id"], [1, 1, 1])


def test_watertight_shared_edges():
    """Rays aimed exactly at shared edges and vertices of a closed mesh never slip through."""
    n = 24
    th, ph = np.meshgrid(np.linspace(0, np.pi, n + 1), np.linspace(0, 2 * np.pi, 2 * n + 1), indexing="ij")
    grid = np.stack([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th)], -1).astype(np.float32)
    grid[:, -1] = grid[:, 0]  # close the seam and the poles exactly: no cracks by construction
    grid[0], grid[-1] = (0, 0, 1), (0, 0, -1)
    idx = np.arange((n + 1) * (2 * n + 1)).reshape(n + 1, 2 * n + 1)
    a, b, c, d = idx[:-1, :-1], idx[1:, :-1], idx[1:, 1:], idx[:-1, 1:]
    tris = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]).astype(np.uint32)
    pos = grid.reshape(-1, 3)
    accel = build([(pos, tris, True)], [(0, np.eye(4), False)])
    # Rays from the center through every vertex and edge midpoint must hit (the sphere is closed).
    targets = np.concatenate([pos, 0.5 * (pos[tris[:, 0]] + pos[tris[:, 1]]), 0.5 * (pos[tris[:, 1]] + pos[tris[:, 2]])])
    origins = np.zeros_like(targets) + np.float32([1e-3, -2e-3, 3e-3])
    hits = accel.any_hit(origins, targets - origins)
    assert hits.all()


def test_degenerate_inputs():
    empty = falcor.TriangleAccel()
    empty.build([], [])
    h = empty.closest_hit(np.zeros((2, 3), np.float32), np.ones((2, 3), np.float32))
    assert np.all(h["instance_id"] == MISS) and np.all(np.isinf(h["t"]))
    accel = build([(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32), True)], [(0, np.eye(4), False)])
    assert not accel.any_hit(np.zeros((1, 3)), np.ones((1, 3)))[0]
    pos = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32)
    accel = build([(pos, np.array([[0, 1, 2]], np.uint32), True)], [(0, np.eye(4), False)])
    zero_dir = accel.closest_hit(np.float32([[0.2, 0.2, 1]]), np.zeros((1, 3), np.float32))
    assert zero_dir["instance_id"][0] == MISS
    with pytest.raises(falcor.RuntimeError, match="vertex"):
        build([(pos, np.array([[0, 1, 3]], np.uint32), True)], [(0, np.eye(4), False)])
    with pytest.raises(falcor.RuntimeError, match="mesh"):
        build([(pos, np.array([[0, 1, 2]], np.uint32), True)], [(1, np.eye(4), False)])
    with pytest.raises(falcor.RuntimeError, match="cull"):
        accel.closest_hit(np.zeros((1, 3)), np.ones((1, 3)), cull="Sideways")
    # An instance whose transform has no inverse (a zero scale) is not traced; the others still are.
    accel = build([(pos, np.array([[0, 1, 2]], np.uint32), True)], [(0, np.diag([1.0, 1.0, 0.0, 1.0]), False), (0, np.eye(4), False)])
    h = accel.closest_hit(np.float32([[0.2, 0.2, 1]]), np.float32([[0, 0, -1]]))
    assert h["instance_id"][0] == 1
    # Transforms accept falcor.float4x4 as well as arrays.
    accel = build([(pos, np.array([[0, 1, 2]], np.uint32), True)], [(0, falcor.float4x4(), False)])
    assert accel.any_hit(np.float32([[0.2, 0.2, 1]]), np.float32([[0, 0, -1]]))[0]


def test_kernels_bit_identical_across_instruction_sets(scene):
    """Every instruction set's kernels give the same bits; the accel uses the active one (its AVX2
    build for AVX-512)."""
    meshes, instances, accel, origins, dirs = scene
    results = []
    try:
        for isa in ("sse2", "avx2", "avx512"):
            falcor.set_isa_limit(isa)
            assert falcor.TriangleAccel.kernel_isa == ("sse2" if falcor.active_isa() == "sse2" else "avx2")
            results.append((accel.closest_hit(origins, dirs, cull="Back"), accel.any_hit(origins, dirs, t_max=0.5)))
    finally:
        falcor.set_isa_limit(None)
    (h1, a1), *others = results
    for h2, a2 in others:
        for key in h1:
            np.testing.assert_array_equal(h1[key], h2[key])
        np.testing.assert_array_equal(a1, a2)


def cornell_like():
    """Quads and cubes placed like the Cornell box: the boxes' bottom faces lie in the floor
    plane, so floor and box hits tie up to rounding."""
    quad = np.array([[-0.5, 0, -0.5], [0.5, 0, -0.5], [-0.5, 0, 0.5], [0.5, 0, 0.5]], np.float32)
    quad_tris = np.array([[2, 1, 0], [1, 2, 3]], np.uint32)
    c = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)], np.float32)
    cube_tris = np.array([[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
                          [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]], np.uint32)

    def trs(t, s, ry=0.0, rx=0.0, rz=0.0):
        cx, sx, cy, sy, cz, sz = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry), np.cos(rz), np.sin(rz)
        r = (np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1]]) @ np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
             @ np.array([[1, 0, 0], [0, cx, -sx], [0, sx, cx]]))
        m = np.eye(4)
        m[:3, :3] = r * np.asarray(s, float)
        m[:3, 3] = t
        return m.astype(np.float32)

    wall = (0.55, 1.0, 0.56)
    instances = [(0, trs((0, 0, 0), wall), False), (0, trs((0, 0.55, 0), wall, rx=np.pi), False),
                 (0, trs((0, 0.275, -0.275), wall, rx=np.pi / 2), False),
                 (0, trs((-0.275, 0.275, 0), wall, rz=-np.pi / 2), False), (0, trs((0.275, 0.275, 0), wall, rz=np.pi / 2), False),
                 (1, trs((-0.093, 0.165, -0.071), (0.165, 0.33, 0.165), ry=-1.27), False),
                 (1, trs((0.09, 0.0825, 0.111), (0.165, 0.165, 0.165), ry=-0.29), False)]
    return [(quad, quad_tris, True), (c, cube_tris, True)], instances


def test_top_level_culling_never_hides_a_closer_instance():
    """The full scene's answer equals the best of each instance traced alone (same object-space
    arithmetic, no top-level culling), bit for bit, including near-coplanar floor/box ties."""
    meshes, instances = cornell_like()
    accel = build(meshes, instances)
    lo, hi = np.array(accel.bounds[0]), np.array(accel.bounds[1])
    rng = np.random.default_rng(5)
    origins = rng.uniform(lo, hi, (60000, 3)).astype(np.float32)
    origins[:, 1] = rng.uniform(0.0, 0.01, len(origins))  # just above the floor: small t, many ties
    dirs = rng.normal(size=(len(origins), 3)).astype(np.float32)
    full = accel.closest_hit(origins, dirs)

    best_t = np.full(len(origins), np.inf, np.float32)
    best_id = np.full(len(origins), 0xFFFFFFFF, np.uint32)
    for i, inst in enumerate(instances):
        alone = build(meshes, [inst]).closest_hit(origins, dirs)
        hit = alone["instance_id"] != 0xFFFFFFFF
        better = hit & ((alone["t"] < best_t) | ((alone["t"] == best_t) & (i < best_id)))
        best_t = np.where(better, alone["t"], best_t)
        best_id = np.where(better, np.uint32(i), best_id)
    np.testing.assert_array_equal(full["t"], best_t)
    np.testing.assert_array_equal(full["instance_id"], best_id)
