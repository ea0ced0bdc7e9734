"""The sample generators, the PBRT materials and the standard material over SIMD lanes give every lane the bits of the
one-path code, at every lane width this machine runs (4, 8, 16 lanes: sse2, avx2, avx512), through
the `_lanes_bsdf_*` test hooks (Rendering/Materials/MaterialLanesCheck.h): masked draws advance only
the active lanes, streams move between lanes and scalar generators intact, and eval, evalPdf and
sample of the material instance (world-space frame, sidedness checks) match bit for bit."""
import numpy as np
import pytest

import falcor
from falcor import falcor_ext

from helpers import HOST_ISAS, isa_fixture
ROWS = 10007  # Not a multiple of any lane width: the last chunk is partial.
PARAMS = 16  # Material parameters per row (MaterialLanesCheck::kParams).


isa = pytest.fixture(params=HOST_ISAS)(isa_fixture)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


def both(check, *args, **kwargs):
    """The hook's results from the lanes and from the scalar code."""
    return check(*args, lanes=True, **kwargs), check(*args, lanes=False, **kwargs)


@pytest.mark.parametrize("generator", ["TinyUniform", "Uniform"])
def test_sample_generator_lanes(isa, generator):
    rng = np.random.default_rng(7)
    active = rng.random((6, ROWS)) < 0.7
    active[:, 0] = False  # A stream that never draws.
    active[:, 1] = True
    lanes, scalar = both(falcor_ext.rendering._lanes_bsdf_sample_generator, generator, active.astype(np.uint8), 3)
    drawn = lanes["numbers"][active]
    assert np.array_equal(bits(drawn), bits(scalar["numbers"][active]))
    # Each row continues where its own draws left it.
    assert np.array_equal(lanes["final_next"], scalar["final_next"])
    assert drawn.min() >= 0 and drawn.max() < 1 and len(np.unique(drawn)) > 0.99 * drawn.size


def random_frames(rng, n):
    """Orthonormal (T, B, N) rows from random rotations, in float32."""
    q = rng.normal(size=(n, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q.T
    T = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)], axis=1)
    B = np.stack([2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)], axis=1)
    N = np.cross(T, B)
    return T.astype(np.float32), B.astype(np.float32), N.astype(np.float32)


def random_unit(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def edge_local_directions(rng, n):
    """Local directions: mostly on the sphere, some exactly in the shading plane, grazing
    (|z| < 1e-6, around kMinCosTheta) or along the normal."""
    d = random_unit(rng, n)
    kind = rng.integers(0, 6, size=n)
    d[kind == 1, 2] = 0.0
    d[kind == 2, 2] = rng.choice([1e-6, 1.1e-6, 9e-7, -1e-6, 1e-7], size=(kind == 2).sum())
    d[kind == 3] = [0.0, 0.0, 1.0]
    return d


def material_rows(rng, params):
    """Rows at random frames with edge cases: grazing and below-surface views and lights, back
    faces (frontFacing false), geometric normals on either side of the shading normal, and rows
    masked off for sampling."""
    n = len(params)
    T, B, N = random_frames(rng, n)
    frame = np.stack([T, B, N], axis=1).astype(np.float64)
    to_world = lambda local: np.einsum("ni,nij->nj", local, frame).astype(np.float32)
    V = to_world(edge_local_directions(rng, n))
    wo = to_world(edge_local_directions(rng, n))
    faceN = (N + 0.3 * random_unit(rng, n)).astype(np.float32)
    faceN[rng.random(n) < 0.1] *= -1  # Shading normal on the far side of the face.
    frontFacing = (np.einsum("ij,ij->i", V, faceN) >= 0).astype(np.uint8)
    frontFacing[rng.random(n) < 0.05] ^= 1
    active = (rng.random(n) < 0.8).astype(np.uint8)
    return dict(V=V, wo=wo, T=T, B=B, N=N, faceN=faceN, frontFacing=frontFacing, active=active, params=params.astype(np.float32))


def compare_material(kind, rows, importance_sampling=True):
    lanes, scalar = both(falcor_ext.rendering._lanes_bsdf_material, kind, rows, 11, importance_sampling=importance_sampling)
    for key in ("eval", "pdf"):
        assert np.array_equal(bits(lanes[key]), bits(scalar[key])), key
    assert np.array_equal(lanes["lobe_types"], scalar["lobe_types"])
    assert np.array_equal(lanes["valid"], scalar["valid"])
    valid = scalar["valid"].astype(bool)
    for key in ("wo", "weight", "sample_pdf"):
        assert np.array_equal(bits(lanes[key][valid]), bits(scalar[key][valid])), key
    assert np.array_equal(lanes["lobe"][valid], scalar["lobe"][valid])
    # Masked-off rows drew nothing, active ones drew as the scalar sample did.
    assert np.array_equal(lanes["final_next"], scalar["final_next"])
    return scalar


def test_pbrt_diffuse_lanes(isa):
    rng = np.random.default_rng(27)
    params = np.zeros((ROWS, PARAMS))
    params[:, :3] = rng.random((ROWS, 3))
    params[:50, :3] = 0.0  # Black.
    rows = material_rows(rng, params)
    scalar = compare_material("PBRTDiffuse", rows)
    # The rows exercise both sides of every check.
    valid = scalar["valid"].astype(bool)
    lit = np.any(scalar["eval"] > 0, axis=1)
    assert 0.2 < valid.mean() < 0.6 and 0.1 < lit.mean() < 0.5
    assert not valid[rows["active"] == 0].any()


def test_pbrt_conductor_lanes(isa):
    """Rough, anisotropic and mirror (singular) conductors mixed within each chunk of lanes."""
    rng = np.random.default_rng(28)
    params = np.zeros((ROWS, PARAMS))
    params[:, 0:3] = rng.uniform(0.2, 3.0, size=(ROWS, 3))  # eta
    params[:, 3:6] = rng.uniform(0.0, 5.0, size=(ROWS, 3))  # k
    params[:, 6:8] = rng.uniform(0.02, 1.0, size=(ROWS, 2))
    kind = rng.integers(0, 4, size=ROWS)
    params[kind == 1, 6:8] = rng.uniform(0.0, 1e-3, size=((kind == 1).sum(), 2))  # Singular: a mirror.
    params[kind == 2, 6] = 1e-3  # At the singular threshold.
    rows = material_rows(rng, params)
    scalar = compare_material("PBRTConductor", rows)
    valid = scalar["valid"].astype(bool)
    mirror = valid & (scalar["lobe"] == 0x04)
    assert 0.05 < mirror.mean() and 0.1 < (valid & ~mirror).mean() and valid.mean() < 0.7
    assert np.all(scalar["sample_pdf"][mirror] == 0)


LOBE_DIFFUSE_REFLECTION, LOBE_SPECULAR_REFLECTION, LOBE_DELTA_REFLECTION = 0x01, 0x02, 0x04
LOBE_DIFFUSE_TRANSMISSION, LOBE_SPECULAR_TRANSMISSION, LOBE_DELTA_TRANSMISSION = 0x10, 0x20, 0x40


def standard_params(rng, n):
    """Standard BSDFs across the parameter space: roughness 0, below the mirror threshold
    (alpha < 0.0064), just above it and large; metallic 0..1; each transmission weight 0,
    fractional or 1; eta 1 (no refraction), below and above 1; thin or not; all lobes or a
    random subset (as disableCaustics restricts them)."""
    p = np.zeros((n, PARAMS))
    p[:, 0:3] = rng.random((n, 3))  # diffuse
    p[:, 0:3][rng.random(n) < 0.1] = 0.0
    p[:, 3:6] = rng.uniform(0.0, 1.0, (n, 3))  # specular
    p[:, 6] = rng.choice([0.0, 0.05, 0.081, 0.2, 0.5, 1.0], size=n) * rng.choice([1.0, 1.0, 1.0, rng.random()], size=n)
    p[:, 7] = rng.choice([0.0, 1.0, 0.5], size=n) * rng.choice([1.0, rng.random()], size=n)  # metallic
    p[:, 8] = rng.choice([1.0, 1 / 1.5, 1.5, 1 / 1.33, 2.4], size=n)  # eta
    p[:, 9:12] = rng.random((n, 3))  # transmission
    p[:, 12] = rng.choice([0.0, 1.0, 0.3, 0.7], size=n)  # diffuseTransmission
    p[:, 13] = rng.choice([0.0, 1.0, 0.4], size=n)  # specularTransmission
    p[:, 14] = rng.random(n) < 0.3  # thinSurface
    lobes = np.full(n, 0xFF)
    restricted = rng.random(n) < 0.3
    lobes[restricted] = rng.integers(0, 0x80, size=restricted.sum())
    p[:, 15] = lobes
    return p


def test_standard_lanes(isa):
    """Lanes of the standard material pick their own lobes, and each lane's result is the scalar
    code's: delta, glossy and diffuse, reflection and transmission mixed within each chunk."""
    rng = np.random.default_rng(29)
    rows = material_rows(rng, standard_params(rng, ROWS))
    scalar = compare_material("Standard", rows)
    valid = scalar["valid"].astype(bool)
    lobe = scalar["lobe"][valid]
    for flag in (LOBE_DIFFUSE_REFLECTION, LOBE_SPECULAR_REFLECTION, LOBE_DELTA_REFLECTION, LOBE_DIFFUSE_TRANSMISSION,
                 LOBE_SPECULAR_TRANSMISSION, LOBE_DELTA_TRANSMISSION):
        assert (lobe == flag).mean() > 0.01, hex(flag)
    assert 0.2 < valid.mean() < 0.7 and np.any(scalar["eval"] > 0, axis=1).mean() > 0.1
    assert np.all(scalar["sample_pdf"][valid][(lobe & (LOBE_DELTA_REFLECTION | LOBE_DELTA_TRANSMISSION)) != 0] == 0)
    # Every lobe sampled is one the material reports, except the straight pass-through of eta 1
    # (its interface is sampled as a delta lobe whatever the roughness).
    refracting = rows["params"][valid, 8] != 1
    assert np.all((lobe & ~scalar["lobe_types"][valid])[refracting] == 0)


def test_standard_reference_sampling_lanes(isa):
    """Without importance sampling: cosine-weighted directions, on both sides for transmissive lanes."""
    rng = np.random.default_rng(30)
    n = 2003
    rows = material_rows(rng, standard_params(rng, n))
    scalar = compare_material("Standard", rows, importance_sampling=False)
    valid = scalar["valid"].astype(bool)
    assert (valid & (scalar["lobe"] == LOBE_DIFFUSE_TRANSMISSION)).mean() > 0.05 and valid.mean() > 0.2
