"""Materials: `IMaterial` (every material), `BasicMaterial` (the parameter set shared by the
standard, cloth, hair and PBRT materials) and each concrete type.

Values are stored as Falcor stores them: half floats where Falcor's material data is float16
(reading back gives the half-rounded value), float32 elsewhere. Every change bumps `_version`,
which is how the scene notices edits between frames.
"""
from __future__ import annotations

import enum
import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import falcor_ext as _ext
from ._values import Vector3Like, Vector4Like, f32 as _f32, finite as _finite
from ..math_types import float2, float3, float4
from . import textures
from ._enum import BoundEnum
from .transform import Transform


class MaterialType(BoundEnum):
    Standard = 1
    Cloth = 2
    Hair = 3
    MERL = 4
    MERLMix = 5
    PBRTDiffuse = 6
    PBRTDiffuseTransmission = 7
    PBRTConductor = 8
    PBRTDielectric = 9
    PBRTCoatedConductor = 10
    PBRTCoatedDiffuse = 11
    RGL = 12


class AlphaMode(BoundEnum):
    Opaque = 0
    Mask = 1


class ShadingModel(BoundEnum):
    MetalRough = 0
    SpecGloss = 1


class MaterialTextureSlot(BoundEnum):
    BaseColor = 0
    Specular = 1
    Emissive = 2
    Normal = 3
    Transmission = 4
    Displacement = 5
    Index = 6


class NormalMapType(enum.IntEnum):
    None_ = 0
    RGB = 1
    RG = 2


class _Slot:
    """What a material type does with a texture slot: which channels it reads, whether sRGB."""

    def __init__(self, name: str, channels: str, srgb: bool) -> None:
        self.name, self.channels, self.srgb = name, channels, srgb


_S = MaterialTextureSlot
_MAX_NESTED_PRIORITY = 15
_MAX_VOLUME_ANISOTROPY = 0.99

# Falcor's parameter layouts for differentiable rendering (offsets into a 20-float vector).
_PARAM_LAYOUTS = {
    MaterialType.Standard: {"base_color": (0, 3), "metallic": (3, 1), "roughness": (4, 1), "ior": (5, 1),
                            "transmission_color": (6, 3), "diffuse_transmission": (9, 1),
                            "specular_transmission": (10, 1), "emissive_color": (11, 3), "emissive_factor": (14, 1)},
    MaterialType.PBRTDiffuse: {"diffuse": (0, 3)},
    MaterialType.PBRTConductor: {"eta": (0, 3), "k": (3, 3), "roughness": (6, 2)},
}


def get_material_param_layout(type: MaterialType) -> dict:
    return {name: {"offset": o, "size": s} for name, (o, s) in _PARAM_LAYOUTS.get(type, {}).items()}


MATERIAL_PARAM_LAYOUTS = {t.name: get_material_param_layout(t) for t in MaterialType}


def _half(v) -> float:
    with np.errstate(over="ignore"):  # beyond the half range: inf, refused by the setters
        return float(np.float16(float(v)))


def _warn(message: str) -> None:
    _ext.Logger.log(_ext.Logger.Level.Warning, message)


class IMaterial:
    """Base of all materials. Construction works anywhere (Falcor requires a pyscene context for
    most material constructors; here they are plain objects)."""

    PARAM_COUNT = 20
    _TYPE: MaterialType = MaterialType.Standard
    _IS_BASIC = False

    def __init__(self, name: str = "") -> None:
        self._name = str(name)
        self._double_sided = False
        self._thin_surface = False
        self._alpha_mode = AlphaMode.Opaque
        self._alpha_threshold = _half(0.5)
        self._nested_priority = 0
        self._ior = _half(1.0)
        self._texture_transform = Transform()
        self._slots: dict[MaterialTextureSlot, _Slot] = {}
        self._textures: dict[MaterialTextureSlot, _ext.Texture] = {}
        self._version = 0
        self._emissive_version = 0  # bumped when emission may have changed (light collection rebuild)

    def _changed(self, emissive: bool = False) -> None:
        self._version += 1
        if emissive:
            self._emissive_version += 1

    def _set(self, attr: str, value, emissive: bool = False) -> bool:
        if getattr(self, attr) == value:
            return False
        setattr(self, attr, value)
        self._changed(emissive)
        return True

    # Every float parameter is stored through these, which refuse NaN and infinities.
    def _finite(self, prop: str, given, stored):
        return _finite(f"Material '{self._name}'", prop, given, stored)

    def _half_param(self, prop: str, value) -> float:
        return self._finite(prop, value, _half(value))

    def _halves_param(self, prop: str, value, n: int, given=None) -> tuple:
        """`value` as n halves; `given` (default `value`) is what errors show."""
        halves = tuple(_half(x) for x in (float4, float3, float2)[4 - n](value))
        return self._finite(prop, value if given is None else given, halves)

    def _f32_param(self, prop: str, value) -> float:
        return self._finite(prop, value, _f32(value))

    def __repr__(self):
        return f"{type(self).__name__}('{self._name}')"

    @property
    def type(self) -> MaterialType:
        return self._TYPE

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = str(value)

    @property
    def doubleSided(self) -> bool:
        return self._double_sided

    @doubleSided.setter
    def doubleSided(self, value: bool) -> None:
        self._set("_double_sided", bool(value))

    @property
    def thinSurface(self) -> bool:
        return self._thin_surface

    @thinSurface.setter
    def thinSurface(self, value: bool) -> None:
        self._set("_thin_surface", bool(value))

    @property
    def emissive(self) -> bool:
        return False

    @property
    def alphaMode(self) -> AlphaMode:
        return self._alpha_mode

    @alphaMode.setter
    def alphaMode(self, mode: AlphaMode) -> None:
        self._set_alpha_mode(mode)

    @property
    def alphaThreshold(self) -> float:
        return self._alpha_threshold

    @alphaThreshold.setter
    def alphaThreshold(self, value: float) -> None:
        self._set_alpha_threshold(value)

    # Materials with alpha override these two.
    def _set_alpha_mode(self, mode: AlphaMode) -> None:
        _warn(f"Material '{self._name}' of type '{self._TYPE.name}' does not support alpha. Ignoring call to setAlphaMode().")

    def _set_alpha_threshold(self, value: float) -> None:
        _warn(f"Material '{self._name}' of type '{self._TYPE.name}' does not support alpha. Ignoring call to setAlphaThreshold().")

    @property
    def nestedPriority(self) -> int:
        return self._nested_priority

    @nestedPriority.setter
    def nestedPriority(self, priority: int) -> None:
        priority = int(priority)
        if priority > _MAX_NESTED_PRIORITY:
            _warn(f"Requested nested priority {priority} for material '{self._name}' is out of range. "
                  f"Clamping to {_MAX_NESTED_PRIORITY}.")
            priority = _MAX_NESTED_PRIORITY
        self._set("_nested_priority", priority)

    @property
    def indexOfRefraction(self) -> float:
        return self._ior

    @indexOfRefraction.setter
    def indexOfRefraction(self, value: float) -> None:
        self._set("_ior", self._half_param("indexOfRefraction", value))

    @property
    def textureTransform(self) -> Transform:
        return self._texture_transform

    @textureTransform.setter
    def textureTransform(self, transform: Transform) -> None:
        self._texture_transform = transform
        self._changed()

    # ---- textures ----
    def hasTextureSlot(self, slot: MaterialTextureSlot) -> bool:
        return slot in self._slots

    def setTexture(self, slot: MaterialTextureSlot, texture: _ext.Texture | None) -> bool:
        return self._set_texture(slot, texture)

    def _set_texture(self, slot: MaterialTextureSlot, texture: _ext.Texture | None, source=None) -> bool:
        """setTexture; `source` names the texture's file in errors."""
        if slot not in self._slots:
            _warn(f"Material '{self._name}' does not have texture slot '{slot.name}'. Ignoring call to setTexture().")
            return False
        if self._textures.get(slot) is texture:
            return False
        if texture is None:
            self._textures.pop(slot, None)
        else:
            self._check_texels(slot, texture, source)
            self._textures[slot] = texture
        self._changed(emissive=slot == MaterialTextureSlot.Emissive)
        self._on_texture_changed(slot)
        return True

    def _check_texels(self, slot: MaterialTextureSlot, texture: _ext.Texture, source) -> None:
        bad = textures.non_finite_texels(texture)
        if bad:
            where = f" from '{os.fspath(source)}'" if source is not None else ""
            raise _ext.RuntimeError(f"Material '{self._name}': the '{self._slots[slot].name}' texture{where} "
                                    f"has {bad} NaN or infinite values.")

    def _on_texture_changed(self, slot: MaterialTextureSlot) -> None:
        pass

    def getTexture(self, slot: MaterialTextureSlot) -> _ext.Texture | None:
        return self._textures.get(slot)

    def clearTexture(self, slot: MaterialTextureSlot) -> None:
        self.setTexture(slot, None)

    def loadTexture(self, slot: MaterialTextureSlot, path: str | os.PathLike[str], useSrgb: bool = True) -> bool:
        if slot not in self._slots:
            _warn(f"Material '{self._name}' does not have texture slot '{slot.name}'. Ignoring call to loadTexture().")
            return False
        texture = textures.load_texture(path, useSrgb and self._slots[slot].srgb)
        if texture is None:
            return False
        self._set_texture(slot, texture, path)
        return True

    def _load_embedded_texture(self, slot: MaterialTextureSlot, data: bytes, name: str, use_srgb: bool = True) -> bool:
        """loadTexture of an image file's bytes embedded in a scene file; `name` names it in messages."""
        if slot not in self._slots:
            _warn(f"Material '{self._name}' does not have texture slot '{slot.name}'. Ignoring the embedded texture '{name}'.")
            return False
        texture = textures.texture_from_encoded(data, name, use_srgb and self._slots[slot].srgb)
        if texture is None:
            return False
        self._set_texture(slot, texture, name)
        return True

    def load_texture(self, slot: MaterialTextureSlot, path: str | os.PathLike[str], use_srgb: bool = True) -> bool:
        return self.loadTexture(slot, path, use_srgb)

    def setRoughnessMollification(self, value: float) -> None:
        pass

    # ---- scene side ----
    def _duplicate_key(self) -> tuple:
        """Equal for materials Falcor considers duplicates: same type, everything but the name."""
        return (type(self),) + self._comparable()

    def _comparable(self) -> tuple:
        tt = self._texture_transform
        return (self._double_sided, self._thin_surface, self._alpha_mode, self._alpha_threshold, self._nested_priority,
                self._ior, tuple(tt.translation), tuple(tt.scaling), tuple(tt.rotation.tolist()), tt.order,
                tuple(sorted((s.value, id(t)) for s, t in self._textures.items())))

    def _update(self) -> None:
        """Per-frame fix-ups Falcor applies before rendering (none for most types)."""

    def _optimize(self) -> None:
        """Build-time texture optimization (SceneBuilder, unless DontOptimizeMaterials)."""

    def _native_data(self) -> dict:
        """The flat material record the renderer reads (see Scene/SceneTypes.h, MaterialData)."""
        return {
            "type": int(self._TYPE.value), "doubleSided": self._double_sided, "thinSurface": self._thin_surface,
            "alphaMode": int(self._alpha_mode.value), "alphaThreshold": self._alpha_threshold,
            "nestedPriority": self._nested_priority, "ior": self._ior, "emissive": self.emissive,
            "isBasic": self._IS_BASIC, "textures": {int(s.value): t for s, t in self._textures.items()},
        }


class BasicMaterial(IMaterial):
    """Parameters shared by the standard, cloth, hair and PBRT materials (stored as float16 unless
    noted). Alpha mode follows the parameters: Mask exactly when the lowest possible alpha (the
    constant base-color alpha, or the base-color texture's alpha range) is below the threshold."""

    _IS_BASIC = True

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._ior = _half(1.5)
        self._base_color = (1.0, 1.0, 1.0, 1.0)
        self._specular = (0.0, 0.0, 0.0, 0.0)
        self._emissive_color = (0.0, 0.0, 0.0)
        self._emissive_factor = 1.0
        self._transmission = (1.0, 1.0, 1.0)
        self._diffuse_transmission = 0.0
        self._specular_transmission = 0.0
        self._volume_absorption = (0.0, 0.0, 0.0)
        self._volume_scattering = (0.0, 0.0, 0.0)
        self._volume_anisotropy = 0.0
        self._displacement_scale = 0.0
        self._displacement_offset = 0.0
        self._alpha_range = (1.0, 1.0)
        self._slots[_S.Displacement] = _Slot("displacement", "RGB", False)

    def _init_slots(self, slots: dict) -> None:
        self._slots.update(slots)
        self._update_alpha_mode()

    # ---- alpha ----
    def _alpha_supported(self) -> bool:
        slot = self._slots.get(_S.BaseColor)
        return slot is not None and "A" in slot.channels

    def _update_alpha_mode(self) -> None:
        if not self._alpha_supported():
            return
        texture = self._textures.get(_S.BaseColor)
        if texture is None or not textures.has_alpha(texture):
            self._alpha_range = (self._base_color[3], self._base_color[3])
        self._set("_alpha_mode", AlphaMode.Mask if self._alpha_range[0] < self._alpha_threshold else AlphaMode.Opaque)

    def _set_alpha_mode(self, mode: AlphaMode) -> None:
        if not self._alpha_supported():
            return super()._set_alpha_mode(mode)
        self._set("_alpha_mode", AlphaMode(mode))

    def _set_alpha_threshold(self, value: float) -> None:
        if not self._alpha_supported():
            return super()._set_alpha_threshold(value)
        if self._set("_alpha_threshold", self._half_param("alphaThreshold", value)):
            self._update_alpha_mode()

    def _on_texture_changed(self, slot: MaterialTextureSlot) -> None:
        if slot == _S.BaseColor:
            if slot in self._textures:
                self._alpha_range = (0.0, 1.0)  # assume the full range until the texture is analyzed
            self._update_alpha_mode()

    # ---- parameters ----
    @property
    def baseColor(self) -> float4:
        return float4(self._base_color)

    @baseColor.setter
    def baseColor(self, color: Vector4Like) -> None:
        if self._set("_base_color", self._halves_param("baseColor", color, 4)):
            self._update_alpha_mode()

    @property
    def specularParams(self) -> float4:
        return float4(self._specular)

    @specularParams.setter
    def specularParams(self, value: Vector4Like) -> None:
        self._set_specular(value)

    def _set_specular(self, value: Vector4Like, prop: str = "specularParams", given=None) -> None:
        """Sets the specular parameters; `prop` and `given` name what the caller set in errors."""
        self._set("_specular", self._halves_param(prop, value, 4, given))

    @property
    def transmissionColor(self) -> float3:
        return float3(self._transmission)

    @transmissionColor.setter
    def transmissionColor(self, value: Vector3Like) -> None:
        self._set("_transmission", self._halves_param("transmissionColor", value, 3))

    @property
    def diffuseTransmission(self) -> float:
        return self._diffuse_transmission

    @diffuseTransmission.setter
    def diffuseTransmission(self, value: float) -> None:
        self._set("_diffuse_transmission", self._half_param("diffuseTransmission", value))

    @property
    def specularTransmission(self) -> float:
        return self._specular_transmission

    @specularTransmission.setter
    def specularTransmission(self, value: float) -> None:
        self._set("_specular_transmission", self._half_param("specularTransmission", value))

    @property
    def volumeAbsorption(self) -> float3:
        return float3(self._volume_absorption)

    @volumeAbsorption.setter
    def volumeAbsorption(self, value: Vector3Like) -> None:
        self._set("_volume_absorption", self._halves_param("volumeAbsorption", value, 3))

    @property
    def volumeScattering(self) -> float3:
        return float3(self._volume_scattering)

    @volumeScattering.setter
    def volumeScattering(self, value: Vector3Like) -> None:
        self._set("_volume_scattering", self._halves_param("volumeScattering", value, 3))

    @property
    def volumeAnisotropy(self) -> float:
        return self._volume_anisotropy

    @volumeAnisotropy.setter
    def volumeAnisotropy(self, value: float) -> None:
        clamped = min(max(self._f32_param("volumeAnisotropy", value), -_MAX_VOLUME_ANISOTROPY), _MAX_VOLUME_ANISOTROPY)
        self._set("_volume_anisotropy", _half(clamped))

    @property
    def displacementScale(self) -> float:
        return self._displacement_scale

    @displacementScale.setter
    def displacementScale(self, value: float) -> None:
        self._set("_displacement_scale", self._f32_param("displacementScale", value))

    @property
    def displacementOffset(self) -> float:
        return self._displacement_offset

    @displacementOffset.setter
    def displacementOffset(self, value: float) -> None:
        self._set("_displacement_offset", self._f32_param("displacementOffset", value))

    @property
    def emissive(self) -> bool:
        if self._emissive_factor <= 0.0:
            return False
        return _S.Emissive in self._textures or any(c != 0.0 for c in self._emissive_color)

    # ---- scene side ----
    def _update(self) -> None:
        # Transmissive and displaced materials are rendered double sided (as Falcor does).
        if self._diffuse_transmission > 0 or self._specular_transmission > 0 or _S.Displacement in self._textures:
            self.doubleSided = True

    def _optimize(self) -> None:
        """Replaces constant textures by values and narrows the alpha range to the texture's, as
        Falcor's material optimization does (the alpha test is dropped when it can never fail)."""
        for slot in list(self._textures):
            if slot == _S.Normal or slot == _S.Displacement:
                continue
            texture = self._textures[slot]
            lo, hi = textures.value_range(texture)
            channels = [i for i, c in enumerate("RGBA") if c in self._slots[slot].channels]
            constant = all(lo[i] == hi[i] for i in channels)
            if slot == _S.BaseColor:
                self._optimize_base_color(texture, lo, hi)
            elif constant:
                self.clearTexture(slot)
                self._apply_constant(slot, lo)

    def _optimize_base_color(self, texture, lo, hi) -> None:
        alpha = self._alpha_supported() and textures.has_alpha(texture)
        if alpha:
            self._alpha_range = (float(lo[3]), float(hi[3]))
        color_constant = all(lo[i] == hi[i] for i in range(3))
        alpha_constant = lo[3] == hi[3]
        color = list(self._base_color)
        if color_constant:
            color[:3] = lo[:3]
        if alpha and alpha_constant:
            color[3] = lo[3]
        self.baseColor = color
        if color_constant and (not alpha or alpha_constant):
            self.clearTexture(_S.BaseColor)
        self._update_alpha_mode()

    def _apply_constant(self, slot: MaterialTextureSlot, value) -> None:
        if slot == _S.Specular:
            self.specularParams = value
        elif slot == _S.Emissive:
            self._set("_emissive_color", tuple(_f32(v) for v in value[:3]), emissive=True)
        elif slot == _S.Transmission:
            self.transmissionColor = value[:3]

    def _comparable(self) -> tuple:
        return super()._comparable() + (
            self._base_color, self._specular, self._emissive_color, self._emissive_factor, self._transmission,
            self._diffuse_transmission, self._specular_transmission, self._volume_absorption, self._volume_scattering,
            self._volume_anisotropy, self._displacement_scale, self._displacement_offset)

    def _native_data(self) -> dict:
        d = super()._native_data()
        normal = self._textures.get(_S.Normal)
        normal_type = NormalMapType.None_
        if normal is not None:
            normal_type = NormalMapType.RG if _ext.get_format_desc(normal.format)["channel_count"] == 2 else NormalMapType.RGB
        d.update(baseColor=self._base_color, specular=self._specular, emissiveColor=self._emissive_color,
                 emissiveFactor=self._emissive_factor, transmission=self._transmission,
                 diffuseTransmission=self._diffuse_transmission, specularTransmission=self._specular_transmission,
                 volumeAbsorption=self._volume_absorption, volumeScattering=self._volume_scattering,
                 volumeAnisotropy=self._volume_anisotropy, displacementScale=self._displacement_scale,
                 displacementOffset=self._displacement_offset, normalMapType=int(normal_type), shadingModel=0)
        return d


def _slots(*entries) -> dict:
    return {slot: _Slot(name, channels, srgb) for slot, name, channels, srgb in entries}


class StandardMaterial(BasicMaterial):
    """Falcor's standard material: metal-rough (default) or spec-gloss shading model."""

    _TYPE = MaterialType.Standard

    def __init__(self, name: str = "", model: ShadingModel = ShadingModel.MetalRough) -> None:
        super().__init__(name)
        if not isinstance(model, ShadingModel):
            raise _ext.RuntimeError("'model' must be MetalRough or SpecGloss")
        self._shading_model = model
        self._entry_point_volume_properties = False
        spec_gloss = model == ShadingModel.SpecGloss
        self._init_slots(_slots(
            (_S.BaseColor, "diffuse" if spec_gloss else "baseColor", "RGBA", True),
            (_S.Specular, "specular", "RGBA", True) if spec_gloss else (_S.Specular, "spec", "GB", False),
            (_S.Normal, "normal", "RGB", False),
            (_S.Emissive, "emissive", "RGB", True),
            (_S.Transmission, "transmission", "RGB", True)))

    @property
    def shadingModel(self) -> ShadingModel:
        return self._shading_model

    def _metal_rough(self, what: str) -> bool:
        if self._shading_model != ShadingModel.MetalRough:
            _warn(f"Ignoring set{what}(). Material '{self._name}' does not use the metallic/roughness shading model.")
            return False
        return True

    @property
    def roughness(self) -> float:
        return self._specular[1] if self._shading_model == ShadingModel.MetalRough else 0.0

    @roughness.setter
    def roughness(self, value: float) -> None:
        if self._metal_rough("Roughness"):
            s = list(self._specular)
            s[1] = value
            self._set_specular(s, "roughness", value)

    @property
    def metallic(self) -> float:
        return self._specular[2] if self._shading_model == ShadingModel.MetalRough else 0.0

    @metallic.setter
    def metallic(self, value: float) -> None:
        if self._metal_rough("Metallic"):
            s = list(self._specular)
            s[2] = value
            self._set_specular(s, "metallic", value)

    @property
    def emissiveColor(self) -> float3:
        return float3(self._emissive_color)

    @emissiveColor.setter
    def emissiveColor(self, color: Vector3Like) -> None:
        self._set("_emissive_color", self._finite("emissiveColor", color, tuple(float3(color))), emissive=True)

    @property
    def emissiveFactor(self) -> float:
        return self._emissive_factor

    @emissiveFactor.setter
    def emissiveFactor(self, factor: float) -> None:
        self._set("_emissive_factor", self._f32_param("emissiveFactor", factor), emissive=True)

    @property
    def entryPointVolumeProperties(self) -> bool:
        return False if self._shading_model == ShadingModel.SpecGloss else self._entry_point_volume_properties

    @entryPointVolumeProperties.setter
    def entryPointVolumeProperties(self, value: bool) -> None:
        self._set("_entry_point_volume_properties", bool(value))

    def _comparable(self) -> tuple:
        return super()._comparable() + (self._shading_model, self._entry_point_volume_properties)

    def _native_data(self) -> dict:
        d = super()._native_data()
        d["shadingModel"] = int(self._shading_model.value)
        return d


Material = StandardMaterial


class ClothMaterial(BasicMaterial):
    _TYPE = MaterialType.Cloth

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._init_slots(_slots((_S.BaseColor, "baseColor", "RGBA", True), (_S.Specular, "specular", "G", False),
                                (_S.Normal, "normal", "RGB", False)))

    @property
    def roughness(self) -> float:
        return self._specular[1]

    @roughness.setter
    def roughness(self, value: float) -> None:
        s = list(self._specular)
        s[1] = value
        self._set_specular(s, "roughness", value)


class HairMaterial(BasicMaterial):
    _TYPE = MaterialType.Hair

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._init_slots(_slots((_S.BaseColor, "baseColor", "RGB", True), (_S.Specular, "specular", "RGB", False)))


class _PBRTMaterial(BasicMaterial):
    def __init__(self, name: str = "", slots: tuple = ()) -> None:
        super().__init__(name)
        self._init_slots(_slots(*slots))


class _RoughPBRTMaterial(_PBRTMaterial):
    """PBRT materials with a roughness: kept in the first `_ROUGHNESS_SIZE` specular channels."""

    _ROUGHNESS_SIZE = 2

    @property
    def roughness(self) -> float2 | float4:
        values = self._specular[: self._ROUGHNESS_SIZE]
        return float2(values) if self._ROUGHNESS_SIZE == 2 else float4(values)

    @roughness.setter
    def roughness(self, value: float2 | float4 | Sequence[float]) -> None:
        v = (float2 if self._ROUGHNESS_SIZE == 2 else float4)(value)
        self._set_specular(list(v) + list(self._specular[self._ROUGHNESS_SIZE:]), "roughness", v)


class PBRTDiffuseMaterial(_PBRTMaterial):
    _TYPE = MaterialType.PBRTDiffuse

    def __init__(self, *device_and_name: Any, name: str = "") -> None:
        # Falcor also binds PBRTDiffuseMaterial(device, name=""): a leading device is accepted.
        if device_and_name and not isinstance(device_and_name[0], str):
            device_and_name = device_and_name[1:]
        super().__init__(device_and_name[0] if device_and_name else name,
                         slots=((_S.BaseColor, "baseColor", "RGBA", True), (_S.Normal, "normal", "RGB", False)))


class PBRTDiffuseTransmissionMaterial(_PBRTMaterial):
    _TYPE = MaterialType.PBRTDiffuseTransmission

    def __init__(self, name: str = "") -> None:
        super().__init__(name, ((_S.BaseColor, "baseColor", "RGBA", True), (_S.Transmission, "transmission", "RGB", True),
                                (_S.Normal, "normal", "RGB", False)))


class PBRTConductorMaterial(_RoughPBRTMaterial):
    _TYPE = MaterialType.PBRTConductor

    def __init__(self, name: str = "") -> None:
        super().__init__(name, ((_S.BaseColor, "baseColor", "RGBA", False), (_S.Transmission, "transmission", "RGB", False),
                                (_S.Specular, "specular", "RG", False), (_S.Normal, "normal", "RGB", False)))


class PBRTDielectricMaterial(_RoughPBRTMaterial):
    _TYPE = MaterialType.PBRTDielectric

    def __init__(self, name: str = "") -> None:
        super().__init__(name, ((_S.Specular, "specular", "RG", False), (_S.Normal, "normal", "RGB", False)))


class PBRTCoatedConductorMaterial(_RoughPBRTMaterial):
    _TYPE = MaterialType.PBRTCoatedConductor
    _ROUGHNESS_SIZE = 4

    def __init__(self, name: str = "") -> None:
        super().__init__(name, ((_S.BaseColor, "baseColor", "RGBA", False), (_S.Transmission, "transmission", "RGB", False),
                                (_S.Specular, "specular", "RGBA", False), (_S.Normal, "normal", "RGB", False)))


class PBRTCoatedDiffuseMaterial(_RoughPBRTMaterial):
    _TYPE = MaterialType.PBRTCoatedDiffuse

    def __init__(self, name: str = "") -> None:
        super().__init__(name, ((_S.BaseColor, "baseColor", "RGBA", True), (_S.Specular, "specular", "RG", False),
                                (_S.Normal, "normal", "RGB", False)))


def _measured_file(path, what: str):
    resolved = textures.resolve(path)
    if resolved is None:
        raise _ext.RuntimeError(f"{what}: can't find file '{os.fspath(path)}'.")
    return resolved


def _srgb_to_linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def merl_fit(path: str | os.PathLike[str]) -> dict:
    """The diffuse + GGX lobe a MERL table is importance sampled with (Falcor's DiffuseSpecularData):
    from the JSON file beside it (`base_color_srgb`, `roughness`, `specular`, `metallic`), else, with
    a warning as in Falcor, Falcor's defaults (half diffuse, half specular, medium roughness)."""
    sidecar = Path(os.fspath(path)).with_suffix(".json")
    try:
        doc = json.loads(sidecar.read_text())
        base_color = [_srgb_to_linear(float(c)) for c in doc["base_color_srgb"][:3]]
        lobe = {"roughness": float(doc["roughness"]), "specular": float(doc["specular"]), "metallic": float(doc["metallic"])}
        if not all(math.isfinite(v) for v in base_color + list(lobe.values())):
            raise ValueError("NaN or infinite values")
        return {"baseColor": base_color, **lobe}
    except OSError:
        _warn(f"MERL table '{os.fspath(path)}': no fitted lobe ('{sidecar}' can't be read); sampling with the default lobe.")
    except (ValueError, KeyError, TypeError, IndexError) as e:
        _warn(f"MERL table '{os.fspath(path)}': '{sidecar}' is not a fitted lobe ({type(e).__name__}: {e}); sampling with the default lobe.")
    return {}


class MERLMaterial(IMaterial):
    """A measured BRDF of the MERL database (a .binary table). The file is read when the scene is
    built; a file that is not a MERL table raises naming it. It is importance sampled with the
    lobe fitted to it in the JSON file beside it (see `merl_fit`)."""

    _TYPE = MaterialType.MERL

    def __init__(self, name: str, path: str | os.PathLike[str]) -> None:
        super().__init__(name)
        self.path = _measured_file(path, "MERLMaterial")

    def _native_data(self) -> dict:
        d = super()._native_data()
        d["merlPath"] = os.fspath(self.path)
        d["merlFit"] = merl_fit(self.path)
        return d


class MERLMixMaterial(IMaterial):
    _TYPE = MaterialType.MERLMix

    def __init__(self, name: str, paths: list) -> None:
        super().__init__(name)
        self.paths = [_measured_file(p, "MERLMixMaterial") for p in paths]
        if not self.paths:
            raise _ext.RuntimeError(f"MERLMixMaterial '{name}': needs at least one MERL file.")
        self._slots.update(_slots((_S.Normal, "normal", "RGB", False), (_S.Index, "index", "R", False)))

    def _native_data(self) -> dict:
        d = super()._native_data()
        d["merlPaths"] = [os.fspath(p) for p in self.paths]
        d["merlFits"] = [merl_fit(p) for p in self.paths]
        return d


class RGLMaterial(IMaterial):
    _TYPE = MaterialType.RGL

    def __init__(self, name: str, path: str | os.PathLike[str]) -> None:
        super().__init__(name)
        self.load(path)

    def load(self, path: str | os.PathLike[str]) -> bool:
        self.path = _measured_file(path, "RGLMaterial")
        self._changed()
        return True

    def _native_data(self) -> dict:
        d = super()._native_data()
        d["rglPath"] = os.fspath(self.path)
        return d
