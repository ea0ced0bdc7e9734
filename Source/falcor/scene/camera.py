"""`Camera`: a physical camera description (film frame, focal length, lens, exposure).

The view and projection matrices are computed by the renderer's native camera (Falcor's
formulas, with jitter and previous-frame matrices); this object holds what the user sets.
"""
from __future__ import annotations

import numpy as np

from ..math_types import float3
from ._values import Float32Property, Versioned, VectorProperty, f32 as _f32
from .animation import Animatable


class Camera(Animatable, Versioned):
    """Film frame: height is authoritative after setting `frameHeight` (width = height·aspect),
    width after setting `frameWidth` (height = width / aspect); changing the aspect ratio keeps the
    authoritative side. `focalLength` 0 gives an orthographic camera."""

    _FIELDS = ("position", "target", "up", "focalLength", "frameHeight", "frameWidth", "aspectRatio", "focalDistance",
               "apertureRadius", "shutterSpeed", "ISOSpeed", "nearPlane", "farPlane")

    def __init__(self, name: str = "") -> None:
        super().__init__()
        self.name = str(name)
        self._position = float3(0, 0, 0)
        self._target = float3(0, 0, -1)
        self._up = float3(0, 1, 0)
        self._focal_length = 21.0
        self._frame_height = 24.0
        self._frame_width = _f32(42.666667)
        self._aspect_ratio = _f32(1.7777777)
        self._focal_distance = 10000.0
        self._aperture_radius = 0.0
        self._shutter_speed = _f32(0.004)
        self._iso_speed = 100.0
        self._near = _f32(0.1)
        self._far = 1000.0
        self._preserve_height = True

    def __repr__(self):
        return f"Camera('{self.name}')"

    def _derive_frame(self) -> None:
        if self._preserve_height:
            self._frame_width = _f32(np.float32(self._frame_height) * np.float32(self._aspect_ratio))
        else:
            self._frame_height = _f32(np.float32(self._frame_width) / np.float32(self._aspect_ratio))

    # ---- placement ----
    position = VectorProperty("_position")
    target = VectorProperty("_target")
    up = VectorProperty("_up")

    # ---- film and lens ----
    @property
    def aspectRatio(self) -> float:
        return self._aspect_ratio

    @aspectRatio.setter
    def aspectRatio(self, value: float) -> None:
        self._aspect_ratio = _f32(value)
        self._derive_frame()
        self._touch()

    @property
    def frameHeight(self) -> float:
        return self._frame_height

    @frameHeight.setter
    def frameHeight(self, value: float) -> None:
        self._frame_height = _f32(value)
        self._preserve_height = True
        self._derive_frame()
        self._touch()

    @property
    def frameWidth(self) -> float:
        return self._frame_width

    @frameWidth.setter
    def frameWidth(self, value: float) -> None:
        self._frame_width = _f32(value)
        self._preserve_height = False
        self._derive_frame()
        self._touch()

    focalLength = Float32Property("_focal_length", "mm; 0 gives an orthographic projection")
    focalDistance = Float32Property("_focal_distance", "distance of the plane in focus (scene units)")
    apertureRadius = Float32Property("_aperture_radius", "lens radius (scene units); > 0 enables depth of field")
    shutterSpeed = Float32Property("_shutter_speed", "seconds")
    ISOSpeed = Float32Property("_iso_speed")
    nearPlane = Float32Property("_near")
    farPlane = Float32Property("_far")

    # ---- animation and renderer side ----
    def updateFromAnimation(self, matrix: np.ndarray) -> None:
        """Places the camera like a node whose -Z axis looks forward and +Y is up."""
        m = np.asarray(matrix, np.float64)
        self.up, self.position = m[:3, 1], m[:3, 3]
        self.target = m[:3, 3] - m[:3, 2]

    def _native_params(self) -> dict:
        return {f: getattr(self, f) for f in self._FIELDS}

    def getScript(self, var: str) -> str:
        """Python lines restoring the placement (as Falcor's config export writes them)."""
        lines = []
        if self.hasAnimation and not self.animated:
            lines.append(f"{var}.animated = False")
        if not self.hasAnimation or not self.animated:
            lines += [f"{var}.position = {self.position!r}", f"{var}.target = {self.target!r}", f"{var}.up = {self.up!r}"]
        return "".join(line + "\n" for line in lines)
