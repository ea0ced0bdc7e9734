"""AABB (Falcor's math binding): construction, queries, union and intersection."""
import math

import pytest

from falcor import AABB, float3


def test_aabb():
    empty = AABB()
    assert not empty.valid and empty.min_point == float3(math.inf) and empty.max_point == float3(-math.inf)
    p = AABB(float3(1, 2, 3))
    assert p.valid and p.volume == 0 and p.center == float3(1, 2, 3)
    b = AABB(float3(0, 0, 0), float3(2, 4, 6))
    assert b.extent == float3(2, 4, 6) and b.area == 2 * (8 + 12 + 24) and b.volume == 48
    assert b.radius == pytest.approx(0.5 * math.sqrt(4 + 16 + 36))
    assert repr(b) == "AABB(min_point=float3(0.000000, 0.000000, 0.000000), max_point=float3(2.000000, 4.000000, 6.000000))"
    u = b | AABB(float3(-1, 1, 1))
    assert u.min_point == float3(-1, 0, 0) and b.min_point == float3(0)  # | makes a new box
    i = b & AABB(float3(1, 1, 1), float3(5, 5, 5))
    assert i == AABB(float3(1, 1, 1), float3(2, 4, 5)) and i != b
    c = AABB()
    c.include(float3(1, 1, 1)).include(AABB(float3(-1, 0, 0), float3(0, 0, 0)))
    assert c == AABB(float3(-1, 0, 0), float3(1, 1, 1))
    c.minPoint = float3(-2, 0, 0)  # deprecated camelCase names
    assert c.min_point == float3(-2, 0, 0)
    c.invalidate()
    assert not c.valid
    assert not (AABB(float3(0), float3(1)) & AABB(float3(2), float3(3))).valid
