"""Ray streams (TriangleAccel closest_hit/any_hit with stream=True, SceneAccel::closestHitStream):
several rays traced interleaved give the bits of one ray at a time, on every instruction set."""
import os
import subprocess
import sys

import falcor
import numpy as np
import pytest
from scene.test_accel import build, cornell_like, make_scene, random_rays

ISAS = ("sse2", "avx2", "avx512")


@pytest.fixture(autouse=True)
def restore_isa():
    yield
    falcor.set_isa_limit(None)


def large_mesh(rng, count=100_000):
    """A bumpy grid of `count` small triangles (a terrain-like mesh: deep tree, incoherent misses)."""
    side = int(np.sqrt(count / 2)) + 1
    x, z = np.meshgrid(np.linspace(-1, 1, side), np.linspace(-1, 1, side))
    y = 0.05 * np.sin(9 * x) * np.cos(7 * z) + 0.01 * rng.normal(size=x.shape)
    pos = np.stack([x, y, z], -1).reshape(-1, 3).astype(np.float32)
    i = np.arange(side * side).reshape(side, side)[:-1, :-1].reshape(-1)
    tris = np.concatenate([np.stack([i, i + side, i + 1], -1), np.stack([i + 1, i + side, i + side + 1], -1)])
    return pos, tris[:count].astype(np.uint32)


def scenes():
    """(name, meshes, instances): instanced and transformed soups (some mirrored, front_face_cw),
    the Cornell box's quads and cubes, and a 100k-triangle mesh under a rotation."""
    rng = np.random.default_rng(11)
    soup = make_scene(1)
    pos, tris = large_mesh(rng)
    rotation = np.eye(4, dtype=np.float32)
    rotation[:3, :3] = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    yield "soup", *soup
    yield "cornell", *cornell_like()
    yield "large", [(pos, tris, True)], [(0, rotation, False)]


def ray_set(accel, count, seed):
    """Random rays through the scene with per-ray t ranges (some empty, some reversed)."""
    rng = np.random.default_rng(seed)
    lo, hi = np.array(accel.bounds[0]), np.array(accel.bounds[1])
    origins, dirs = random_rays(rng, count, lo, hi)
    t_min = np.where(rng.random(count) < 0.3, rng.uniform(0, 0.5, count), 0).astype(np.float32)
    t_max = np.where(rng.random(count) < 0.3, rng.uniform(0, 2, count), np.inf).astype(np.float32)
    return origins, dirs, t_min, t_max


def assert_same_hits(a, b):
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def trace_both(accel, rays, **kwargs):
    """(single-ray results, stream results) of closest_hit and any_hit."""
    origins, dirs, t_min, t_max = rays
    return [(accel.closest_hit(origins, dirs, t_min, t_max, stream=s, **kwargs),
             accel.any_hit(origins, dirs, t_min, t_max, stream=s, **kwargs)) for s in (False, True)]


@pytest.mark.parametrize("name, meshes, instances", [pytest.param(*s, id=s[0]) for s in scenes()])
def test_streams_equal_single_rays_on_every_isa(name, meshes, instances):
    accel = build(meshes, instances)
    rays = ray_set(accel, 3000, seed=len(name))
    per_isa = []
    for isa in ISAS:
        falcor.set_isa_limit(isa)
        for cull in ("None", "Back", "Front"):
            (single_hits, single_any), (stream_hits, stream_any) = trace_both(accel, rays, cull=cull)
            assert_same_hits(single_hits, stream_hits)
            np.testing.assert_array_equal(single_any, stream_any)
            per_isa.append((single_hits, single_any))
    hit_fraction = np.mean(per_isa[0][0]["instance_id"] != 0xFFFFFFFF)
    assert 0.2 < hit_fraction < 0.98  # the rays both hit and miss: the comparison means something
    # Every ISA gives the same bits (same cull mode compared: entries 0, 3, 6 are cull='None').
    for other in per_isa[3::3]:
        assert_same_hits(per_isa[0][0], other[0])
        np.testing.assert_array_equal(per_isa[0][1], other[1])


@pytest.mark.parametrize("count", [0, 1, 7, 1000])
def test_stream_lengths(count):
    """Empty streams, streams shorter than the rays in flight, and long ones (several chunks)."""
    meshes, instances = make_scene(3)
    accel = build(meshes, instances)
    (single_hits, single_any), (stream_hits, stream_any) = trace_both(accel, ray_set(accel, count, seed=count))
    assert len(stream_any) == count
    assert_same_hits(single_hits, stream_hits)
    np.testing.assert_array_equal(single_any, stream_any)


def test_camera_streams():
    """Camera rays (one origin, neighbouring directions) are traced one at a time by the stream
    call (interleaving gains nothing on them); a stream mixing them with random rays is not."""
    meshes, instances = cornell_like()
    accel = build(meshes, instances)
    u, v = np.meshgrid(np.linspace(-0.3, 0.3, 40), np.linspace(-0.3, 0.3, 40))
    dirs = np.stack([u, v, -np.ones_like(u)], -1).reshape(-1, 3).astype(np.float32)
    origins = np.tile(np.float32([0, 0.28, 1.2]), (len(dirs), 1))
    rand_o, rand_d, _, _ = ray_set(accel, len(dirs), seed=9)
    mixed_o, mixed_d = np.where(np.arange(len(dirs))[:, None] % 2 == 0, origins, rand_o), np.where(
        np.arange(len(dirs))[:, None] % 2 == 0, dirs, rand_d)
    for o, d in ((origins, dirs), (mixed_o, mixed_d)):
        assert_same_hits(accel.closest_hit(o, d), accel.closest_hit(o, d, stream=True))
        np.testing.assert_array_equal(accel.any_hit(o, d), accel.any_hit(o, d, stream=True))


def test_alpha_tested_streams():
    meshes, instances = make_scene(4, opaque=(False, True, False))
    accel = build(meshes, instances)
    rng = np.random.default_rng(6)
    masks = [rng.random(len(meshes[mesh_id][1])) < 0.5 for mesh_id, _, _ in instances]
    rays = ray_set(accel, 3000, seed=7)
    (single_hits, single_any), (stream_hits, stream_any) = trace_both(accel, rays, alpha_mask=masks)
    assert_same_hits(single_hits, stream_hits)
    np.testing.assert_array_equal(single_any, stream_any)
    # The mask matters: without it some rays hit triangles it rejects.
    unmasked = accel.closest_hit(*rays, stream=True)
    assert np.any(unmasked["primitive_index"] != stream_hits["primitive_index"])


def test_untraceable_rays_in_a_stream_are_reported():
    meshes, instances = make_scene(3)
    accel = build(meshes, instances)
    origins, dirs, _, _ = ray_set(accel, 100, seed=1)
    dirs[42] = np.nan
    with pytest.raises(falcor.RuntimeError, match="ray 42"):
        accel.closest_hit(origins, dirs, stream=True)


def test_isa_limit():
    """set_isa_limit caps the active ISA at the host's; unknown names raise ValueError."""
    host = falcor.host_isa()
    assert host in ISAS
    for isa in ISAS:
        falcor.set_isa_limit(isa)
        assert falcor.active_isa() == ISAS[min(ISAS.index(isa), ISAS.index(host))]
    falcor.set_isa_limit(None)
    assert falcor.active_isa() == host
    with pytest.raises(ValueError, match="name='avx1024'"):
        falcor.set_isa_limit("avx1024")


def test_bad_isa_environment_variable_fails_the_import_clearly():
    env = {**os.environ, "FALCOR_ISA": "bogus"}
    result = subprocess.run([sys.executable, "-c", "import falcor"], env=env, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode != 0
    assert "FALCOR_ISA='bogus'" in result.stderr and "sse2, avx2, avx512" in result.stderr
    env["FALCOR_ISA"] = "sse2"
    result = subprocess.run([sys.executable, "-c", "import falcor; print(falcor.active_isa())"], env=env, capture_output=True, check=False,
                            text=True, timeout=60)
    assert result.stdout.split()[-1] == "sse2"
