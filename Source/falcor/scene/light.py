"""Analytic lights: point/spot, directional, distant (sun-like disc), and area lights (rect, disc,
sphere). Emissive geometry is not a light object: it comes from emissive materials.

Each light produces the record the renderer reads (`_native_data`, Falcor's LightData fields).
"""
from __future__ import annotations

import math

import numpy as np

from .. import falcor_ext as _ext
from ..math_types import float3
from . import rotation
from ._values import Vector3Like, Versioned, VectorProperty, f32 as _f32
from .animation import Animatable

# LightType values of Falcor's LightData.
POINT, DIRECTIONAL, DISTANT, RECT, DISC, SPHERE = range(6)


def _normalized_direction(direction):
    d = np.asarray(float3(direction), np.float64)
    length = float(np.linalg.norm(d))
    if not length > 0.0:  # also rejects NaN
        _ext.Logger.log(_ext.Logger.Level.Warning, "Can't set light direction to zero length vector. Ignoring call.")
        return None
    return float3(d / length)


class Light(Animatable, Versioned):
    _LIGHT_TYPE = POINT

    def __init__(self, name: str = "") -> None:
        super().__init__()
        self.name = str(name)
        self._active = True
        self._intensity = float3(1, 1, 1)

    def __repr__(self):
        return f"{type(self).__name__}('{self.name}')"

    @property
    def active(self) -> bool:
        return self._active

    @active.setter
    def active(self, value: bool) -> None:
        if bool(value) != self._active:
            self._active = bool(value)
            self._touch()

    @property
    def intensity(self) -> float3:
        """Emitted radiance (RGB)."""
        return float3(self._intensity)

    @intensity.setter
    def intensity(self, value: Vector3Like) -> None:
        self._intensity = float3(value)
        self._touch()

    def updateFromAnimation(self, matrix: np.ndarray) -> None:
        pass

    def _native_data(self) -> dict:
        """Falcor's LightData: position, direction, shape and cone parameters, transforms."""
        return {"type": self._LIGHT_TYPE, "posW": (0.0, 0.0, 0.0), "dirW": (0.0, -1.0, 0.0), "intensity": tuple(self._intensity),
                "openingAngle": math.pi, "cosOpeningAngle": -1.0, "penumbraAngle": 0.0, "cosSubtendedAngle": 0.9999893,
                "surfaceArea": 0.0, "tangent": (0.0, 0.0, 0.0), "bitangent": (0.0, 0.0, 0.0), "transMat": np.eye(4)}


class PointLight(Light):
    """Point light; a spot light when `openingAngle` (half angle, radians) is below π."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._position = float3(0, 0, 0)
        self._direction = float3(0, -1, 0)
        self._opening_angle = _f32(math.pi)
        self._penumbra_angle = 0.0

    position = VectorProperty("_position")

    @property
    def direction(self) -> float3:
        return float3(self._direction)

    @direction.setter
    def direction(self, value: Vector3Like) -> None:
        d = _normalized_direction(value)
        if d is not None:
            self._direction = d
            self._touch()

    @property
    def openingAngle(self) -> float:
        return self._opening_angle

    @openingAngle.setter
    def openingAngle(self, angle: float) -> None:
        angle = _f32(min(max(float(angle), 0.0), math.pi))
        if angle != self._opening_angle:
            self._opening_angle = angle
            self._penumbra_angle = min(self._penumbra_angle, angle)
            self._touch()

    @property
    def penumbraAngle(self) -> float:
        return self._penumbra_angle

    @penumbraAngle.setter
    def penumbraAngle(self, angle: float) -> None:
        angle = _f32(min(max(float(angle), 0.0), self._opening_angle))
        if angle != self._penumbra_angle:
            self._penumbra_angle = angle
            self._touch()

    def updateFromAnimation(self, matrix: np.ndarray) -> None:
        m = np.asarray(matrix, np.float64)
        self.position = m[:3, 3]
        self.direction = -m[:3, 2]

    def _native_data(self) -> dict:
        d = super()._native_data()
        d.update(posW=tuple(self._position), dirW=tuple(self._direction), openingAngle=self._opening_angle,
                 cosOpeningAngle=math.cos(self._opening_angle), penumbraAngle=self._penumbra_angle)
        return d


class _DirectedLight(Light):
    """A light with only a direction: the direction its light travels (towards the scene)."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._direction = float3(0, -1, 0)

    @property
    def direction(self) -> float3:
        return float3(self._direction)

    @direction.setter
    def direction(self, value: Vector3Like) -> None:
        d = _normalized_direction(value)
        if d is not None:
            self._direction = d
            self._touch()

    def updateFromAnimation(self, matrix: np.ndarray) -> None:
        self.direction = -np.asarray(matrix, np.float64)[:3, 2]

    def _native_data(self) -> dict:
        d = super()._native_data()
        d["dirW"] = tuple(self._direction)
        return d


class DirectionalLight(_DirectedLight):
    """Light arriving from infinitely far along `direction`."""

    _LIGHT_TYPE = DIRECTIONAL


class DistantLight(_DirectedLight):
    """A directional light subtending a cone of half angle `angle` (radians), like the sun."""

    _LIGHT_TYPE = DISTANT

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._angle = _f32(0.5 * 0.53 * math.pi / 180.0)

    @property
    def angle(self) -> float:
        return self._angle

    @angle.setter
    def angle(self, value: float) -> None:
        self._angle = _f32(min(max(float(value), 0.0), 0.5 * math.pi))
        self._touch()

    def _native_data(self) -> dict:
        d = super()._native_data()
        # transMat rotates +Z onto the direction towards the light.
        to_light = -np.asarray(self._direction, np.float64)
        axis = np.cross([0.0, 0.0, 1.0], to_light)
        sin_theta = float(np.linalg.norm(axis))
        trans = rotation.axis_angle_matrix(math.acos(float(np.clip(to_light[2], -1, 1))), axis) if sin_theta > 0 else np.eye(4)
        d.update(cosSubtendedAngle=math.cos(self._angle), transMat=trans)
        return d


class AnalyticAreaLight(Light):
    """Base of the area lights: a unit shape placed by a scene-graph node (no Python placement
    properties, as in Falcor)."""

    def __init__(self, name: str = "") -> None:
        if type(self) is AnalyticAreaLight:
            raise TypeError("AnalyticAreaLight is abstract; use RectLight, DiscLight or SphereLight.")
        super().__init__(name)
        self._transform = np.eye(4)
        self._scaling = np.ones(3)

    def updateFromAnimation(self, matrix: np.ndarray) -> None:
        self._transform = np.asarray(matrix, np.float64).copy()
        self._touch()

    def _trans_mat(self) -> np.ndarray:
        return self._transform @ rotation.scaling_matrix(self._scaling)

    def _axis_lengths(self) -> np.ndarray:
        return np.linalg.norm(self._trans_mat()[:3, :3], axis=0)

    def _surface_area(self) -> float:
        raise NotImplementedError

    def _native_data(self) -> dict:
        d = super()._native_data()
        d.update(tangent=(1.0, 0.0, 0.0), bitangent=(0.0, 1.0, 0.0), transMat=self._trans_mat(), surfaceArea=self._surface_area())
        return d


class RectLight(AnalyticAreaLight):
    """[-1, 1]² in the local XY plane, emitting towards +Z."""

    _LIGHT_TYPE = RECT

    def _surface_area(self) -> float:
        rx, ry, _ = self._axis_lengths()
        return 4.0 * rx * ry


class DiscLight(AnalyticAreaLight):
    """Unit disc in the local XY plane, emitting towards +Z."""

    _LIGHT_TYPE = DISC

    def _surface_area(self) -> float:
        rx, ry, _ = self._axis_lengths()
        return math.pi * rx * ry


class SphereLight(AnalyticAreaLight):
    """Unit sphere."""

    _LIGHT_TYPE = SPHERE

    def _surface_area(self) -> float:
        rx, ry, rz = self._axis_lengths()
        # Thomsen's ellipsoid area approximation. Falcor divides only the last term by 3 (a misplaced
        # parenthesis), which makes its sphere lights 1.70x too bright; see docs/compatibility.md.
        p = 1.6
        return 4.0 * math.pi * (((rx * ry) ** p + (ry * rz) ** p + (rx * rz) ** p) / 3.0) ** (1.0 / p)
