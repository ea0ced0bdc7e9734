"""`EnvMap`: a lat-long environment map (HDR or EXR) with rotation, intensity and tint."""
from __future__ import annotations

import functools
import math
import os
from pathlib import Path

import numpy as np

from .. import falcor_ext as _ext
from ..math_types import float3
from . import textures
from ._values import Vector3Like, Versioned, f32, finite


def rotation_xyz(degrees: Vector3Like) -> np.ndarray:
    """Falcor's matrixFromRotationXYZ of angles given in degrees (3x3)."""
    c1, c2, c3 = (math.cos(-math.radians(a)) for a in degrees)
    s1, s2, s3 = (math.sin(-math.radians(a)) for a in degrees)
    return np.array([
        [c2 * c3, c2 * s3, -s2],
        [-c1 * s3 + s1 * s2 * c3, c1 * c3 + s1 * s2 * s3, s1 * c2],
        [s1 * s3 + c1 * s2 * c3, -s1 * c3 + c1 * s2 * s3, c1 * c2],
    ])


def _short(v) -> str:
    return "(" + ", ".join(f"{float(c):g}" for c in v) + ")"


class EnvMap(Versioned):
    """`EnvMap(path)` / `EnvMap.createFromFile(path)` load the image (linear, with mips) and raise
    if it can't be loaded. The radiance seen along a direction is texel · intensity · tint.

    Every value must be finite: texels with NaN or infinities, NaN or infinite rotation,
    intensity or tint, and an intensity or tint that makes the radiance overflow float raise
    naming the file and property (they would make NaN pixels, or stop the env-map sampler)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        resolved = textures.resolve(path)
        texture = textures.load_texture(resolved, srgb=False) if resolved is not None else None
        if texture is None:
            raise _ext.RuntimeError(f"Failed to load environment map from '{os.fspath(path)}'.")
        self._set_image(Path(resolved), texture)

    @staticmethod
    def createFromFile(path: str | os.PathLike[str]) -> EnvMap:
        return EnvMap(path)

    @classmethod
    def from_texels(cls, texels: np.ndarray, name: str) -> EnvMap:
        """An environment map of a lat-long image computed in memory (an importer's conversion of a
        format's own mapping), (H, W, 3 or 4) float radiance; `name` stands for the path in messages."""
        texels = np.asarray(texels, np.float32)
        if texels.ndim != 3 or texels.shape[2] not in (3, 4) or min(texels.shape[:2]) < 1:
            raise _ext.RuntimeError(f"EnvMap '{name}': expected an (H, W, 3 or 4) image, got shape {texels.shape}.")
        rgba = np.ones(texels.shape[:2] + (4,), np.float32)
        rgba[..., :3] = texels[..., :3]
        env = cls.__new__(cls)
        Versioned.__init__(env)
        env._set_image(Path(name), textures.texture_from_pixels(rgba, _ext.ResourceFormat.RGBA32Float, srgb=False))
        return env

    def _set_image(self, path: Path, texture) -> None:
        bad = textures.non_finite_texels(texture)
        if bad:
            raise _ext.RuntimeError(f"EnvMap '{path}': the image has {bad} NaN or infinite values.")
        self._path = path
        self.texture = texture
        self._rotation = float3(0.0)
        self._intensity = 1.0
        self._tint = float3(1.0)

    def __repr__(self) -> str:
        return f"EnvMap('{self._path}')"

    @property
    def path(self) -> Path:
        return self._path

    def _finite(self, prop: str, given, stored):
        return finite(f"EnvMap '{self._path}'", prop, given, stored)

    @property
    def rotation(self) -> float3:
        """Rotation in degrees about X, Y and Z."""
        return float3(self._rotation)

    @rotation.setter
    def rotation(self, value: Vector3Like) -> None:
        self._rotation = float3(self._finite("rotation", value, tuple(float3(value))))
        self._touch()

    @property
    def intensity(self) -> float:
        return self._intensity

    @intensity.setter
    def intensity(self, value: float) -> None:
        intensity = self._finite("intensity", value, f32(value))
        self._check_radiance("intensity", intensity, self._tint)
        self._intensity = intensity
        self._touch()

    @property
    def tint(self) -> float3:
        return float3(self._tint)

    @tint.setter
    def tint(self, value: Vector3Like) -> None:
        tint = float3(self._finite("tint", value, tuple(float3(value))))
        self._check_radiance("tint", self._intensity, tint)
        self._tint = tint
        self._touch()

    @functools.cached_property
    def _texel_peak(self) -> np.ndarray:
        """Largest |texel| per channel (mip 0: the other mips are averages of it)."""
        lo, hi = textures.value_range(self.texture)
        return np.maximum(np.abs(lo[:3]), np.abs(hi[:3])).astype(np.float32)

    def _check_radiance(self, prop: str, intensity: float, tint: float3) -> None:
        """Finite texels, intensity and tint can still multiply beyond the float range."""
        with np.errstate(over="ignore"):
            radiance = self._texel_peak * np.float32(intensity) * np.asarray(tint, np.float32)
        if not np.isfinite(radiance).all():
            raise _ext.RuntimeError(f"EnvMap '{self._path}': '{prop}' makes the radiance overflow float (texels up to "
                                    f"{_short(self._texel_peak)}, intensity {intensity:g}, tint {_short(tint)}).")

    def _native_data(self) -> dict:
        return {"texture": self.texture, "transform": rotation_xyz(self._rotation), "intensity": self._intensity,
                "tint": tuple(self._tint)}
