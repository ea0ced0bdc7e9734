"""`EnvMap`: a lat-long environment map (HDR or EXR) with rotation, intensity and tint."""
from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from .. import falcor_ext as _ext
from ..math_types import float3
from . import textures
from ._values import Vector3Like, Versioned, VectorProperty, f32


def rotation_xyz(degrees: Vector3Like) -> np.ndarray:
    """Falcor's matrixFromRotationXYZ of angles given in degrees (3x3)."""
    c1, c2, c3 = (math.cos(-math.radians(a)) for a in degrees)
    s1, s2, s3 = (math.sin(-math.radians(a)) for a in degrees)
    return np.array([
        [c2 * c3, c2 * s3, -s2],
        [-c1 * s3 + s1 * s2 * c3, c1 * c3 + s1 * s2 * s3, s1 * c2],
        [s1 * s3 + c1 * s2 * c3, -s1 * c3 + c1 * s2 * s3, c1 * c2],
    ])


class EnvMap(Versioned):
    """`EnvMap(path)` / `EnvMap.createFromFile(path)` load the image (linear, with mips) and raise
    if it can't be loaded. The radiance seen along a direction is texel · intensity · tint."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        resolved = textures.resolve(path)
        texture = textures.load_texture(resolved, srgb=False) if resolved is not None else None
        if texture is None:
            raise _ext.RuntimeError(f"Failed to load environment map from '{os.fspath(path)}'.")
        self._path = resolved
        self.texture = texture
        self._rotation = float3(0.0)
        self._intensity = 1.0
        self._tint = float3(1.0)

    @staticmethod
    def createFromFile(path: str | os.PathLike[str]) -> EnvMap:
        return EnvMap(path)

    def __repr__(self) -> str:
        return f"EnvMap('{self._path}')"

    @property
    def path(self) -> Path:
        return self._path

    rotation = VectorProperty("_rotation", "Rotation in degrees about X, Y and Z.")

    @property
    def intensity(self) -> float:
        return self._intensity

    @intensity.setter
    def intensity(self, value: float) -> None:
        self._intensity = f32(value)
        self._touch()

    tint = VectorProperty("_tint")

    def _native_data(self) -> dict:
        return {"texture": self.texture, "transform": rotation_xyz(self._rotation), "intensity": self._intensity,
                "tint": tuple(self._tint)}
