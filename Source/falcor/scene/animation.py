"""Keyframe animation of scene-graph nodes (and through them of cameras and lights)."""
from __future__ import annotations

import bisect
import math

import numpy as np

from . import rotation
from ._enum import BoundEnum

INVALID_ID = 0xFFFFFFFF
_EPSILON_TIME = 1e-5


class Animatable:
    """Something a scene-graph node can move: `updateFromAnimation(matrix)` receives the node's
    world matrix each frame while `animated` is on."""

    def __init__(self) -> None:
        super().__init__()  # cooperative: subclasses may also derive from Versioned
        self._has_animation = False
        self._is_animated = True
        self._node_id = INVALID_ID

    @property
    def hasAnimation(self) -> bool:
        return self._has_animation

    @property
    def animated(self) -> bool:
        return self._is_animated

    @animated.setter
    def animated(self, value: bool) -> None:
        self._is_animated = bool(value)

    def updateFromAnimation(self, matrix: np.ndarray) -> None:
        raise NotImplementedError


class _Keyframe:
    __slots__ = ("time", "translation", "scaling", "rotation")

    def __init__(self, time, translation, scaling, rotation_quat) -> None:
        self.time = float(time)
        self.translation = np.asarray(translation, np.float64)
        self.scaling = np.asarray(scaling, np.float64)
        self.rotation = np.asarray(rotation_quat, np.float64)


def _lerp(a, b, t):
    return a + (b - a) * t


def _bezier(p0, p1, p2, p3, t, mix):
    """Bezier form of a Hermite (Catmull-Rom tangents) segment between p1 and p2."""
    b0, b1, b2, b3 = p1, p1 + (p2 - p0) * 0.5 / 3.0, p2 - (p3 - p1) * 0.5 / 3.0, p2
    q0, q1, q2 = mix(b0, b1, t), mix(b1, b2, t), mix(b2, b3, t)
    return mix(mix(q0, q1, t), mix(q1, q2, t), t)


def _interpolate_linear(k0: _Keyframe, k1: _Keyframe, t: float) -> _Keyframe:
    """Also extrapolates for t outside [0, 1]."""
    return _Keyframe(_lerp(k0.time, k1.time, t), _lerp(k0.translation, k1.translation, t),
                     _lerp(k0.scaling, k1.scaling, t), rotation.slerp(k0.rotation, k1.rotation, t))


def _interpolate_hermite(k0, k1, k2, k3, t: float) -> _Keyframe:
    return _Keyframe(_lerp(k1.time, k2.time, t),
                     _bezier(k0.translation, k1.translation, k2.translation, k3.translation, t, _lerp),
                     _lerp(k1.scaling, k2.scaling, t),
                     _bezier(k0.rotation, k1.rotation, k2.rotation, k3.rotation, t, rotation.slerp))


class Animation:
    """Keyframes (translation, scaling, rotation) of one node, `duration` seconds long. Outside the
    keyframe range the pre/post-infinity behavior applies: Constant (hold), Linear (extrapolate
    the end segment), Cycle (repeat) or Oscillate (ping-pong)."""

    class InterpolationMode(BoundEnum):
        Linear = 0
        Hermite = 1

    class Behavior(BoundEnum):
        Constant = 0
        Linear = 1
        Cycle = 2
        Oscillate = 3

    def __init__(self, name: str, nodeID: int, duration: float) -> None:
        self._name = str(name)
        self._node_id = int(nodeID)
        self._duration = float(duration)
        self._keyframes: list[_Keyframe] = []
        self.preInfinityBehavior = Animation.Behavior.Constant
        self.postInfinityBehavior = Animation.Behavior.Constant
        self.interpolationMode = Animation.InterpolationMode.Linear
        self.enableWarping = False

    def __repr__(self):
        return f"Animation('{self._name}', nodeID={self._node_id}, duration={self._duration})"

    @property
    def name(self) -> str:
        return self._name

    @property
    def nodeID(self) -> int:
        return self._node_id

    @property
    def duration(self) -> float:
        return self._duration

    @property
    def keyframe_times(self) -> list:
        """Extension: times of the keyframes, sorted."""
        return [k.time for k in self._keyframes]

    def addKeyframe(self, time: float, transform, /) -> None:
        """Adds (or replaces, at an existing time) a keyframe from a Transform's translation,
        scaling and rotation."""
        k = _Keyframe(time, np.asarray(transform.translation, np.float64), np.asarray(transform.scaling, np.float64),
                      transform.rotation)
        times = self.keyframe_times
        i = bisect.bisect_left(times, k.time)
        if i < len(times) and times[i] == k.time:
            self._keyframes[i] = k
        else:
            self._keyframes.insert(i, k)

    # ---- evaluation ----
    def animate(self, time: float) -> np.ndarray:
        """The node's local matrix (4x4, T·R·S) at `time` seconds."""
        if not self._keyframes:
            return np.eye(4)
        first, last = self._keyframes[0], self._keyframes[-1]
        if time < first.time or time > last.time:
            time = self._sample_time(time)
        pre_linear = time < first.time and self.preInfinityBehavior == Animation.Behavior.Linear
        post_linear = time > last.time and self.postInfinityBehavior == Animation.Behavior.Linear
        if pre_linear and len(self._keyframes) > 1:
            k1 = self._interpolate(first.time + _EPSILON_TIME)
            k = _interpolate_linear(first, k1, (time - first.time) / (k1.time - first.time))
        elif post_linear and len(self._keyframes) > 1:
            k0 = self._interpolate(last.time - _EPSILON_TIME)
            k = _interpolate_linear(k0, last, (time - k0.time) / (last.time - k0.time))
        else:
            k = self._interpolate(time)
        return rotation.compose(k.translation, k.rotation, k.scaling)

    def _sample_time(self, time: float) -> float:
        """Maps a time outside the keyframe range by the behavior on that side (Linear keeps it)."""
        first, last = self._keyframes[0].time, self._keyframes[-1].time
        length = last - first
        behavior = self.preInfinityBehavior if time < first else self.postInfinityBehavior
        if behavior == Animation.Behavior.Constant:
            return min(max(time, first), last)
        if behavior == Animation.Behavior.Cycle:
            t = first + math.fmod(time - first, length)
            return t + length if t < first else t
        if behavior == Animation.Behavior.Oscillate:
            offset = math.fmod(time - first, 2 * length)
            if offset < 0:
                offset += 2 * length
            if offset > length:
                offset = 2 * length - offset
            return first + offset
        return time

    def _neighbor(self, index: int, offset: int) -> int:
        n = len(self._keyframes)
        return (index + n + offset) % n if self.enableWarping else min(max(index + offset, 0), n - 1)

    def _segment_t(self, k0: _Keyframe, k1: _Keyframe, time: float) -> float:
        duration = k1.time - k0.time
        if self.enableWarping and duration < 0:
            duration += self._duration
        return min(max((time - k0.time) / duration if duration > 0 else 1.0, 0.0), 1.0)

    def _interpolate(self, time: float) -> _Keyframe:
        index = max(bisect.bisect_right(self.keyframe_times, time) - 1, 0)
        k = self._keyframes
        if self.interpolationMode == Animation.InterpolationMode.Linear or len(k) < 4:
            k0, k1 = k[index], k[self._neighbor(index, 1)]
            return _interpolate_linear(k0, k1, self._segment_t(k0, k1, time))
        k0, k1, k2, k3 = (k[self._neighbor(index, o)] for o in (-1, 0, 1, 2))
        return _interpolate_hermite(k0, k1, k2, k3, self._segment_t(k1, k2, time))
