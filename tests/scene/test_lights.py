"""Lights: defaults and setter rules of each type, and the records the renderer receives."""
import math

import numpy as np
import pytest

import falcor
from falcor import (AnalyticAreaLight, DirectionalLight, DiscLight, DistantLight, Light, PointLight, RectLight, SphereLight,
                    Transform, float3)
from scenes_for_tests import quad_scene


def test_point_light_defaults_and_rules(capfd):
    l = PointLight("p")
    assert isinstance(l, Light) and isinstance(l, falcor.Animatable)
    assert l.name == "p" and l.active and l.animated and not l.hasAnimation
    assert l.intensity == float3(1) and l.position == float3(0) and l.direction == float3(0, -1, 0)
    assert l.openingAngle == pytest.approx(math.pi) and l.penumbraAngle == 0
    l.direction = float3(0, 0, 2)
    assert l.direction == float3(0, 0, 1)
    l.direction = float3(0, 0, 0)  # ignored with a warning
    assert l.direction == float3(0, 0, 1) and "zero length" in capfd.readouterr().out
    l.openingAngle = 5.0
    assert l.openingAngle == pytest.approx(math.pi)
    l.penumbraAngle = 0.4
    l.openingAngle = 0.3  # the penumbra can't exceed the opening
    assert l.openingAngle == pytest.approx(0.3) and l.penumbraAngle == pytest.approx(0.3)
    l.penumbraAngle = -1
    assert l.penumbraAngle == 0
    l.openingAngle = -1
    assert l.openingAngle == 0


def test_directional_and_distant():
    d = DirectionalLight()
    d.direction = float3(1, -1, 0)
    assert np.allclose(list(d.direction), [math.sqrt(0.5), -math.sqrt(0.5), 0])
    s = DistantLight("sun")
    assert s.angle == pytest.approx(0.5 * 0.53 * math.pi / 180) and s.direction == float3(0, -1, 0)
    s.angle = 3
    assert s.angle == pytest.approx(math.pi / 2)
    assert not isinstance(s, DirectionalLight)


def test_area_lights():
    with pytest.raises(TypeError):
        AnalyticAreaLight()
    rect, disc, sphere = RectLight("r"), DiscLight("d"), SphereLight("s")
    assert rect._native_data()["surfaceArea"] == pytest.approx(4.0)
    assert disc._native_data()["surfaceArea"] == pytest.approx(math.pi)
    # Placement comes from a node: scaling (2, 3, 1) makes the rect 4 x 6 wide.
    rect.updateFromAnimation(Transform(scaling=float3(2, 3, 1)).matrix_array())
    assert rect._native_data()["surfaceArea"] == pytest.approx(24.0)
    assert not hasattr(rect, "position")


def test_lights_reach_the_renderer():
    spot = PointLight("spot")
    spot.position, spot.intensity, spot.openingAngle = float3(1, 2, 3), float3(3, 3, 3), 0.5
    sun = DistantLight("sun")
    sun.direction = float3(0, -1, -1)
    off = PointLight("off")
    off.active = False
    scene = quad_scene(lights=[spot, off, sun])
    native = scene.native
    assert native.active_light_count == 2
    s = native.get_light(0)
    assert s["type"] == 0 and s["posW"] == pytest.approx((1, 2, 3)) and s["intensity"] == pytest.approx((3, 3, 3))
    d = native.get_light(1)
    assert d["type"] == 2 and d["dirW"] == pytest.approx((0, -math.sqrt(0.5), -math.sqrt(0.5)), abs=1e-6)
    # transMat rotates +Z onto the direction towards the light.
    np.testing.assert_allclose(d["transMat"][:3, :3] @ [0, 0, 1], [0, math.sqrt(0.5), math.sqrt(0.5)], atol=1e-6)
    assert scene.getLight("sun") is sun and scene.getLight(1) is off and scene.getLight(7) is None
    assert scene.stats["pointLightCount"] == 2 and scene.stats["distantLightCount"] == 1 and scene.stats["activeLightCount"] == 2
