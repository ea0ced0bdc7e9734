"""pbrt-v4 materials, textures and spectra -> Falcor materials (Falcor 8's PBRT material mapping).

Spectra become RGB as Falcor's importer makes them: RGB values as they are; named metal and glass
spectra as the Rec.709 RGB of their CIE 1931 integral (the numbers below, computed from the
pbrt-v4 spectra Falcor ships, 1 nm steps); a scalar index of refraction from a spectrum is the mean
of its RGB. Roughness: `uroughness`/`vroughness` (else `roughness`), remapped to the GGX alpha by
sqrt when `remaproughness` is true (pbrt's default).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ... import falcor_ext as _ext
from ...math_types import float3, float4
from ..asset_log import record_asset
from ..material import (
    HairMaterial,
    MaterialTextureSlot,
    PBRTCoatedConductorMaterial,
    PBRTCoatedDiffuseMaterial,
    PBRTConductorMaterial,
    PBRTDielectricMaterial,
    PBRTDiffuseMaterial,
    PBRTDiffuseTransmissionMaterial,
    RGLMaterial,
    StandardMaterial,
)
from ._pbrt_tokenizer import Params

NAMED_SPECTRA_RGB = {
    "metal-Ag-eta": (0.155288, 0.116722, 0.138337), "metal-Ag-k": (4.82908, 3.12221, 2.14627),
    "metal-Al-eta": (1.65771, 0.880357, 0.521063), "metal-Al-k": (9.22528, 6.26945, 4.83547),
    "metal-Au-eta": (0.143146, 0.374935, 1.44204), "metal-Au-k": (3.98378, 2.3857, 1.6027),
    "metal-Cu-eta": (0.200445, 0.924036, 1.10186), "metal-Cu-k": (3.91354, 2.45281, 2.14151),
    "metal-CuZn-eta": (0.519848, 0.4885, 1.04168), "metal-CuZn-k": (4.33124, 2.54808, 1.59138),
    "metal-MgO-eta": (2.08991, 1.6507, 1.59437), "metal-MgO-k": (0.0, 0.0, 0.0),
    "metal-TiO2-eta": (3.45715, 2.80167, 2.90423), "metal-TiO2-k": (0.000102603, 0.0, 0.000634859),
    "glass-BK7": (1.82556, 1.4401, 1.38734), "glass-BAF10": (2.00852, 1.58675, 1.53358),
    "glass-FK51A": (1.78976, 1.4109, 1.35737), "glass-LASF9": (2.22238, 1.76032, 1.71121),
    "glass-F5": (2.00997, 1.59072, 1.54369), "glass-F10": (2.0756, 1.6445, 1.59902),
    "glass-F11": (2.14239, 1.69902, 1.65689),
    "stdillum-D65": (1.0, 1.0, 1.0),
}
HAIR_EUMELANIN_SIGMA_A = np.array([0.419, 0.697, 1.37])
HAIR_PHEOMELANIN_SIGMA_A = np.array([0.187, 0.4, 1.05])


class MaterialContext:
    """What material conversion needs from the importer: textures by name, file resolution, warnings."""

    def __init__(self, textures: dict, resolve, warn_once):
        self.textures, self.resolve, self.warn_once = textures, resolve, warn_once
        self.texture_cache: dict = {}

    # -- values --
    def rgb(self, params: Params, name: str, default) -> tuple | None:
        """A spectrum parameter as RGB (rgb, named spectrum, blackbody, a float), or `default`."""
        t = params.type_of(name)
        if t is None:
            return default
        if t in ("rgb", "color"):
            v = params.array(name, 3)
            return tuple(float(c) for c in v[0]) if v is not None and len(v) else default
        if t == "float":
            return (params.float(name, 0.0),) * 3
        if t == "spectrum":
            values = params.items[name].values
            if isinstance(values, list) and values and values[0] in NAMED_SPECTRA_RGB:
                return NAMED_SPECTRA_RGB[values[0]]
            self.warn_once(f"{params.where(name)}: spectrum {values[0] if isinstance(values, list) and values else '(sampled)'} "
                           f"of '{name}' is skipped (only named metal and glass spectra are converted); using {default}")
            return default
        if t == "blackbody":
            return blackbody_rgb(params.float(name, 6500.0))
        if t == "texture":
            return default
        self.warn_once(f"{params.where(name)}: '{name}' of type '{t}' is skipped; using {default}")
        return default

    def colour(self, params: Params, name: str, default):
        """(rgb, texture path or None, srgb) of a spectrum-or-texture parameter."""
        if params.type_of(name) == "texture":
            return (default,) + self.image_texture(params, name, default)
        return self.rgb(params, name, default), None, False

    def image_texture(self, params: Params, name: str, default):
        tex_name = params.string(name)
        entity = self.textures.get(tex_name)
        if entity is None:
            raise params.fail(name, f"'{name}' names texture '{tex_name}', which is not defined")
        if entity.kind == "constant":
            self.warn_once(f"{entity.where}: constant texture '{tex_name}' is used as its value")
            return None, False
        if entity.kind != "imagemap":
            self.warn_once(f"{entity.where}: texture '{tex_name}' of type '{entity.kind}' is skipped (only imagemap and "
                           f"constant are supported); '{name}' uses {default}")
            return None, False
        filename = entity.params.string("filename", "")
        path = self.resolve(filename)
        if not path.is_file():
            self.warn_once(f"{entity.where}: texture file '{filename}' not found; '{name}' uses {default}")
            return None, False
        record_asset(path)
        encoding = entity.params.string("encoding", "sRGB" if path.suffix.lower() == ".png" else "linear")
        if encoding not in ("sRGB", "linear"):
            self.warn_once(f"{entity.where}: texture encoding '{encoding}' is read as sRGB")
            encoding = "sRGB"
        for skipped in ("scale", "invert", "wrap", "maxanisotropy"):
            if entity.params.has(skipped):
                self.warn_once(f"{entity.params.where(skipped)}: texture parameter '{skipped}' is skipped")
        return path, encoding == "sRGB"

    def constant_texture_value(self, params: Params, name: str):
        if params.type_of(name) != "texture":
            return None
        entity = self.textures.get(params.string(name))
        if entity is not None and entity.kind == "constant":
            if entity.params.type_of("value") == "float":
                return (entity.params.float("value", 1.0),) * 3
            return self.rgb(entity.params, "value", (1.0, 1.0, 1.0))
        return None

    def scalar(self, params: Params, name: str, default: float) -> float:
        if params.type_of(name) == "texture":
            constant = self.constant_texture_value(params, name)
            if constant is not None:
                return constant[0]
            self.warn_once(f"{params.where(name)}: non-constant '{name}' is skipped; using {default}")
            return default
        return params.float(name, default)

    def roughness(self, params: Params, prefix: str = "") -> tuple:
        base = self.scalar(params, prefix + "roughness", 0.0)
        u = self.scalar(params, prefix + "uroughness", base) if params.has(prefix + "uroughness") else base
        v = self.scalar(params, prefix + "vroughness", base) if params.has(prefix + "vroughness") else base
        if params.bool("remaproughness", True):
            u, v = math.sqrt(max(u, 0.0)), math.sqrt(max(v, 0.0))
        return u, v

    def eta(self, params: Params, name: str = "eta", default: float = 1.5) -> float:
        if params.type_of(name) in ("spectrum", "rgb"):
            return float(np.mean(self.rgb(params, name, None) or (default,) * 3))
        return self.scalar(params, name, default)

    def conductor_eta_k(self, params: Params, prefix: str = ""):
        """Falcor's rule: a reflectance r gives eta = 1, k = 2 sqrt(r) / sqrt(1 - r); else eta and k
        (copper by default)."""
        reflectance = self.rgb(params, prefix + "reflectance", None)
        if reflectance is not None:
            r = np.clip(np.array(reflectance), 0.0, 0.9999)
            return (1.0, 1.0, 1.0), tuple(2.0 * np.sqrt(r) / np.sqrt(1.0 - r))
        return (self.rgb(params, prefix + "eta", NAMED_SPECTRA_RGB["metal-Cu-eta"]),
                self.rgb(params, prefix + "k", NAMED_SPECTRA_RGB["metal-Cu-k"]))


def blackbody_rgb(kelvin: float) -> tuple:
    """An approximate normalized RGB of a blackbody (Tanner Helland's fit, sRGB primaries, linearized)."""
    t = max(1000.0, min(40000.0, kelvin)) / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307)
    srgb = [min(max(c / 255.0, 0.0), 1.0) for c in (r, g, b)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in srgb]
    peak = max(linear) or 1.0
    return tuple(c / peak for c in linear)


def _with_base_colour(material, colour, ctx: MaterialContext, slot=MaterialTextureSlot.BaseColor):
    rgb, path, srgb = colour
    material.baseColor = float4(*rgb, 1.0)
    if path is not None:
        material.loadTexture(slot, Path(path), srgb)
    return material


def create_material(entity, ctx: MaterialContext):
    """The Falcor material of a pbrt Material/MakeNamedMaterial entity, or None for `interface`."""
    kind, params, name = entity.kind, entity.params, entity.name
    if kind in ("interface", "", "none"):
        return None
    material = _MAKERS.get(kind, _fallback)(name, params, ctx, entity)
    normalmap = params.string("normalmap", "") if params.has("normalmap") else ""
    if normalmap:
        path = ctx.resolve(normalmap)
        if path.is_file():
            record_asset(path)
            material.loadTexture(MaterialTextureSlot.Normal, path, False)
        else:
            ctx.warn_once(f"{params.where('normalmap')}: normal map '{normalmap}' not found; skipped")
    if params.has("displacement"):
        ctx.warn_once(f"{params.where('displacement')}: displacement is skipped")
    return material


def _diffuse(name, params, ctx, entity):
    m = _with_base_colour(PBRTDiffuseMaterial(name), ctx.colour(params, "reflectance", (0.5, 0.5, 0.5)), ctx)
    m.doubleSided = True
    return m


def _coated_diffuse(name, params, ctx, entity):
    m = _with_base_colour(PBRTCoatedDiffuseMaterial(name), ctx.colour(params, "reflectance", (0.5, 0.5, 0.5)), ctx)
    m.roughness = ctx.roughness(params)
    m.indexOfRefraction = ctx.eta(params)
    m.doubleSided = True
    for skipped in ("thickness", "albedo", "g", "maxdepth", "nsamples"):
        if params.has(skipped):
            ctx.warn_once(f"{params.where(skipped)}: coateddiffuse '{skipped}' is skipped")
    return m


def _conductor(name, params, ctx, entity):
    eta, k = ctx.conductor_eta_k(params)
    m = PBRTConductorMaterial(name)
    m.baseColor = float4(*eta, 1.0)
    m.transmissionColor = float3(*k)
    m.roughness = ctx.roughness(params)
    m.doubleSided = True
    return m


def _coated_conductor(name, params, ctx, entity):
    eta, k = ctx.conductor_eta_k(params, "conductor.")
    m = PBRTCoatedConductorMaterial(name)
    m.baseColor = float4(*eta, 1.0)
    m.transmissionColor = float3(*k)
    m.roughness = ctx.roughness(params, "interface.") + ctx.roughness(params, "conductor.")
    m.indexOfRefraction = ctx.eta(params, "interface.eta")
    m.doubleSided = True
    return m


def _dielectric(name, params, ctx, entity):
    m = PBRTDielectricMaterial(name)
    m.roughness = ctx.roughness(params)
    m.indexOfRefraction = ctx.eta(params)
    return m


def _thin_dielectric(name, params, ctx, entity):
    """As Falcor 8: a thin, fully transmissive StandardMaterial."""
    m = StandardMaterial(name)
    m.metallic, m.roughness = 0.0, 0.0
    m.indexOfRefraction = ctx.eta(params)
    m.specularTransmission = 1.0
    m.thinSurface = True
    return m


def _diffuse_transmission(name, params, ctx, entity):
    scale = params.float("scale", 1.0)
    rgb, path, srgb = ctx.colour(params, "reflectance", (0.25, 0.25, 0.25))
    m = _with_base_colour(PBRTDiffuseTransmissionMaterial(name), (tuple(scale * c for c in rgb), path, srgb), ctx)
    trgb, tpath, tsrgb = ctx.colour(params, "transmittance", (0.25, 0.25, 0.25))
    m.transmissionColor = float3(*(scale * c for c in trgb))
    if tpath is not None:
        m.loadTexture(MaterialTextureSlot.Transmission, tpath, tsrgb)
    m.doubleSided = True
    return m


def hair_colour_from_sigma_a(sigma_a, beta_n: float) -> tuple:
    """The inverse of pbrt's SigmaAFromReflectance (Chiang et al. 2016)."""
    d = 5.969 - 0.215 * beta_n + 2.532 * beta_n ** 2 - 10.73 * beta_n ** 3 + 5.574 * beta_n ** 4 + 0.245 * beta_n ** 5
    return tuple(float(c) for c in np.exp(-np.sqrt(np.maximum(np.asarray(sigma_a, np.float64), 0.0)) * d))


def _hair(name, params, ctx, entity):
    beta_m, beta_n = ctx.scalar(params, "beta_m", 0.3), ctx.scalar(params, "beta_n", 0.3)
    m = HairMaterial(name)
    if params.has("sigma_a"):
        colour = hair_colour_from_sigma_a(ctx.rgb(params, "sigma_a", (0.06, 0.1, 0.2)), beta_n)
    elif params.has("reflectance") or params.has("color"):
        colour = ctx.rgb(params, "reflectance" if params.has("reflectance") else "color", (0.5, 0.5, 0.5))
    else:  # pbrt's default: eumelanin 1.3 unless given
        eu, pheo = ctx.scalar(params, "eumelanin", 1.3), ctx.scalar(params, "pheomelanin", 0.0)
        colour = hair_colour_from_sigma_a(eu * HAIR_EUMELANIN_SIGMA_A + pheo * HAIR_PHEOMELANIN_SIGMA_A, beta_n)
    m.baseColor = float4(*colour, 1.0)
    m.specularParams = float4(beta_m, beta_n, ctx.scalar(params, "alpha", 2.0), 0.0)
    m.indexOfRefraction = ctx.scalar(params, "eta", 1.55)
    return m


def _measured(name, params, ctx, entity):
    filename = params.string("filename", "")
    path = ctx.resolve(filename)
    try:
        with open(path, "rb") as f:  # the renderer reads the tables when the scene is built: refuse non-tensor files now
            if f.read(12) != b"tensor_file\0":
                raise ValueError("not an RGL tensor file")
        material = RGLMaterial(name, path)
        record_asset(path)
        return material
    except (OSError, ValueError, _ext.RuntimeError) as e:
        ctx.warn_once(f"{entity.where}: measured material '{filename}' can't be loaded ({e}); a grey diffuse is used")
        return _diffuse(name, Params(params.path, params.line), ctx, entity)


def _fallback(name, params, ctx, entity):
    ctx.warn_once(f"{entity.where}: material type '{entity.kind}' is not supported; a StandardMaterial "
                  "(diffuse, its 'reflectance' or grey) is used instead")
    m = StandardMaterial(name)
    rgb = ctx.rgb(params, "reflectance", (0.5, 0.5, 0.5)) if params.type_of("reflectance") != "texture" else (0.5, 0.5, 0.5)
    m.baseColor = float4(*rgb, 1.0)
    m.metallic, m.roughness = 0.0, 1.0
    m.doubleSided = True
    return m


_MAKERS = {
    "diffuse": _diffuse, "coateddiffuse": _coated_diffuse, "conductor": _conductor, "coatedconductor": _coated_conductor,
    "dielectric": _dielectric, "thindielectric": _thin_dielectric, "diffusetransmission": _diffuse_transmission,
    "hair": _hair, "measured": _measured,
}


def emissive_material(base, entity_params: Params, light_entity, ctx: MaterialContext, name: str) -> StandardMaterial:
    """The StandardMaterial of a shape under AreaLightSource "diffuse" (Falcor emits only from
    StandardMaterial): the shape material's base colour, emission L · scale."""
    params = light_entity.params
    if light_entity.kind != "diffuse":
        ctx.warn_once(f"{light_entity.where}: area light type '{light_entity.kind}' is read as 'diffuse'")
    L = np.array(ctx.rgb(params, "L", (1.0, 1.0, 1.0))) * params.float("scale", 1.0)
    for skipped, why in (("power", "it needs the emitter's area"), ("filename", "image area lights are not supported")):
        if params.has(skipped):
            ctx.warn_once(f"{params.where(skipped)}: area light '{skipped}' is skipped ({why})")
    if params.bool("twosided", False):
        ctx.warn_once(f"{params.where('twosided')}: 'twosided' area light emits from its front side only "
                      "(Falcor's emissive triangles are one-sided)")
    m = StandardMaterial(name)
    colour = getattr(base, "baseColor", None) if base is not None and type(base).__name__ in (
        "PBRTDiffuseMaterial", "PBRTCoatedDiffuseMaterial", "StandardMaterial") else None
    m.baseColor = colour if colour is not None else float4(0.0, 0.0, 0.0, 1.0)
    m.metallic, m.roughness = 0.0, 1.0
    m.emissiveColor = float3(*L)
    m.emissiveFactor = 1.0
    m.doubleSided = True
    return m
