"""Fuzz: random meshes and rays, including NaN, infinities, huge and tiny values.

Rays with non-finite components are refused naming the first one; every other ray gets a miss or
a hit with finite t inside its range, and where a double-precision reference is unambiguous
(the hit point clearly inside or outside every triangle) the result agrees with it.
`FALCOR_FUZZ_EXAMPLES` sets the number of cases (CI: 60; long profile: 10,000).
"""
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings, strategies as st

import falcor

EXAMPLES = int(os.environ.get("FALCOR_FUZZ_EXAMPLES", "60"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

scales = st.sampled_from([1e-20, 1e-12, 1e-3, 1.0, 1e3, 1e12, 1e20])
unit = st.floats(-1, 1, allow_nan=False, width=32)
hostile = st.sampled_from([math.nan, math.inf, -math.inf, 3e38, -3e38, 1e-45, 0.0])


@st.composite
def meshes(draw):
    count = draw(st.integers(1, 12))
    scale = draw(scales)
    positions = np.array(draw(st.lists(st.tuples(unit, unit, unit), min_size=3 * count, max_size=3 * count)), np.float64) * scale
    for _ in range(draw(st.integers(0, 2))):  # a few hostile vertex coordinates
        positions[draw(st.integers(0, len(positions) - 1)), draw(st.integers(0, 2))] = draw(hostile)
    return positions.astype(np.float32), np.arange(3 * count, dtype=np.uint32).reshape(count, 3), scale


@st.composite
def rays(draw, scale):
    count = draw(st.integers(1, 16))
    origins = np.array(draw(st.lists(st.tuples(unit, unit, unit), min_size=count, max_size=count)), np.float64) * 3 * scale
    dirs = np.array(draw(st.lists(st.tuples(unit, unit, unit), min_size=count, max_size=count)), np.float64)
    bad = None
    if draw(st.booleans()):
        bad = draw(st.integers(0, count - 1))
        (origins if draw(st.booleans()) else dirs)[bad, draw(st.integers(0, 2))] = draw(st.sampled_from([math.nan, math.inf, -math.inf]))
    return origins.astype(np.float32), dirs.astype(np.float32), bad


def reference(positions, triangles, o, d):
    """Per ray: (t, robust) from a double-precision Moller-Trumbore; robust when no triangle is
    near an edge or grazing, so float rounding can't change the answer."""
    out = []
    for ray_o, ray_d in zip(o.astype(np.float64), d.astype(np.float64)):
        best, robust = math.inf, True
        for tri in triangles:
            a, b, c = positions[tri].astype(np.float64)
            if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b)) and np.all(np.isfinite(c))):
                continue
            e1, e2 = b - a, c - a
            p = np.cross(ray_d, e2)
            det = np.dot(e1, p)
            scale = np.linalg.norm(e1) * np.linalg.norm(e2) * np.linalg.norm(ray_d)
            if scale == 0 or abs(det) < 1e-3 * scale:
                robust = robust and abs(det) == 0 and scale == 0
                continue
            s = ray_o - a
            u = np.dot(s, p) / det
            q = np.cross(s, e1)
            v = np.dot(ray_d, q) / det
            t = np.dot(e2, q) / det
            margin = min(u, v, 1 - u - v)
            if abs(margin) < 1e-3 or abs(t) < 1e-3 * (np.linalg.norm(s) / max(np.linalg.norm(ray_d), 1e-300) + 1e-300):
                robust = False
            if margin > 0 and t >= 0:
                best = min(best, t)
        out.append((best, robust))
    return out


@FUZZ
@given(st.data())
def test_random_rays_against_random_meshes(data):
    positions, triangles, scale = data.draw(meshes())
    accel = falcor.TriangleAccel()
    accel.build([(positions, triangles, True)], [(0, np.eye(4, dtype=np.float32), False)])
    o, d, bad = data.draw(rays(scale))
    if bad is not None:
        with pytest.raises(falcor.RuntimeError, match=f"ray {bad} can't be traced"):
            accel.closest_hit(o, d)
        return
    hits = accel.closest_hit(o, d)
    t = hits["t"]
    assert np.all((t == np.inf) | (np.isfinite(t) & (t >= 0))), t
    assert np.all((t == np.inf) == (hits["instance_id"] == 0xFFFFFFFF))
    assert np.array_equal(accel.any_hit(o, d), t != np.inf)
    for i, (expected, robust) in enumerate(reference(positions, triangles, o, d)):
        if not robust:
            continue
        event("robust hit" if expected != math.inf else "robust miss")
        if expected == math.inf:
            assert t[i] == np.inf, f"ray {i}: hit at {t[i]} where the reference misses"
        else:
            assert t[i] == pytest.approx(expected, rel=1e-4), f"ray {i}: t {t[i]} vs reference {expected}"
