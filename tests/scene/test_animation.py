"""Animation: keyframe interpolation (linear, Hermite) and pre/post-infinity behaviors."""
import math

import numpy as np
import pytest

from falcor import Animation, SceneBuilder, Transform, float3
from falcor.scene.animation import INVALID_ID

B = Animation.Behavior


def moving(duration=4.0, keys=((0.0, 0.0), (2.0, 2.0)), **settings):
    a = Animation("a", 0, duration)
    for time, x in keys:
        a.addKeyframe(time, Transform(translation=float3(x, 0, 0)))
    for k, v in settings.items():
        setattr(a, k, v)
    return a


def x_at(a, t):
    return a.animate(t)[0, 3]


def test_properties():
    a = Animation("walk", 3, 2.5)
    assert a.name == "walk" and a.nodeID == 3 and a.duration == 2.5
    assert a.preInfinityBehavior == B.Constant and a.postInfinityBehavior == B.Constant
    assert a.interpolationMode == Animation.InterpolationMode.Linear and not a.enableWarping
    with pytest.raises(TypeError):
        a.addKeyframe(time=0.0, transform=Transform())  # positional only


def test_linear_interpolation_of_translation_scaling_rotation():
    a = Animation("a", 0, 2)
    a.addKeyframe(0.0, Transform(translation=float3(0, 0, 0), scaling=float3(1), rotationEulerDeg=float3(0, 0, 0)))
    a.addKeyframe(2.0, Transform(translation=float3(4, 2, 0), scaling=float3(3), rotationEulerDeg=float3(0, 90, 0)))
    m = a.animate(0.5)
    np.testing.assert_allclose(m[:3, 3], [1, 0.5, 0])
    angle = math.radians(22.5)  # slerp: a quarter of the way
    rot = np.array([[math.cos(angle), 0, math.sin(angle)], [0, 1, 0], [-math.sin(angle), 0, math.cos(angle)]])
    np.testing.assert_allclose(m[:3, :3], rot * 1.5, atol=1e-6)


def test_keyframes_sorted_and_replaced():
    a = moving(keys=((2.0, 2.0), (0.0, 0.0), (1.0, 5.0)))
    assert a.keyframe_times == [0.0, 1.0, 2.0]
    a.addKeyframe(1.0, Transform(translation=float3(1, 0, 0)))
    assert a.keyframe_times == [0.0, 1.0, 2.0] and x_at(a, 1.0) == pytest.approx(1.0)


def test_behaviors():
    a = moving()  # x: 0 at t=0 -> 2 at t=2
    assert x_at(a, -1) == pytest.approx(0) and x_at(a, 3) == pytest.approx(2)  # Constant
    a.preInfinityBehavior = a.postInfinityBehavior = B.Linear
    assert x_at(a, -1) == pytest.approx(-1, abs=1e-3) and x_at(a, 3.5) == pytest.approx(3.5, abs=1e-3)
    a.preInfinityBehavior = a.postInfinityBehavior = B.Cycle
    assert x_at(a, 2.5) == pytest.approx(0.5) and x_at(a, -0.5) == pytest.approx(1.5) and x_at(a, 5.25) == pytest.approx(1.25)
    a.preInfinityBehavior = a.postInfinityBehavior = B.Oscillate
    assert x_at(a, 2.5) == pytest.approx(1.5) and x_at(a, 4.5) == pytest.approx(0.5) and x_at(a, -0.5) == pytest.approx(0.5)


def hermite(p0, p1, p2, p3, t):
    """Catmull-Rom tangents in Bezier form (de Casteljau), written out."""
    b = [p1, p1 + (p2 - p0) / 6, p2 - (p3 - p1) / 6, p2]
    return sum(w * c for w, c in zip([(1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t ** 2 * (1 - t), t ** 3], b))


def test_hermite():
    xs = [0.0, 1.0, 4.0, 2.0, 3.0]
    a = moving(duration=4, keys=list(zip([0.0, 1.0, 2.0, 3.0, 4.0], xs)), interpolationMode=Animation.InterpolationMode.Hermite)
    assert x_at(a, 1.25) == pytest.approx(hermite(0, 1, 4, 2, 0.25), abs=1e-6)
    assert x_at(a, 2.5) == pytest.approx(hermite(1, 4, 2, 3, 0.5), abs=1e-6)
    assert x_at(a, 0.5) == pytest.approx(hermite(0, 0, 1, 4, 0.5), abs=1e-6)  # first segment repeats the first key
    three = moving(keys=((0.0, 0.0), (1.0, 1.0), (2.0, 4.0)), interpolationMode=Animation.InterpolationMode.Hermite)
    assert x_at(three, 1.5) == pytest.approx(2.5)  # fewer than 4 keys: linear


def test_create_animation_on_scene_builder(capfd):
    from falcor import PointLight

    b = SceneBuilder()
    light = PointLight("l")
    b.addLight(light)
    a = b.createAnimation(light, "move", 10.0)
    assert isinstance(a, Animation) and a.nodeID != INVALID_ID and light.hasAnimation and light.animated
    assert b.animations == [a] and b.nodes[a.nodeID].name == "move"
    assert b.createAnimation(light, "again", 1.0) is None and "already animated" in capfd.readouterr().out
