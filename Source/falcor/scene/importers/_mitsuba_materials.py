"""Mitsuba BSDFs and textures as Falcor materials (part of the Mitsuba importer; see mitsuba.py)."""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ... import falcor_ext as _ext
from ...math_types import float4
from .. import textures
from ..asset_log import record_asset
from ..material import (
    MaterialTextureSlot,
    PBRTCoatedDiffuseMaterial,
    PBRTConductorMaterial,
    PBRTDielectricMaterial,
    PBRTDiffuseMaterial,
    StandardMaterial,
)
from . import _mitsuba_tables as tables
from ._mitsuba_xml import Obj

MAX_CHECKER_TEXELS = 1024
ROUGH_DEFAULT_ALPHA = 0.1  # Mitsuba's default alpha of the rough BSDFs


# --- materials ------------------------------------------------------------------------------------


def shape_material(b, shape: Obj) -> int | None:
    """The material index of a shape: its BSDF (Mitsuba's default: diffuse 0.5), made emissive
    when it carries an area emitter."""
    bsdfs = shape.nested("bsdf")
    if len(bsdfs) > 1:
        b.warn(shape.where, "a shape with several BSDFs uses the first (Mitsuba refuses this)")
    bsdf = bsdfs[0][1] if bsdfs else None
    for _, medium in shape.nested("medium"):
        b.warn(medium.where, f"<medium type=\"{medium.type}\"> is skipped (participating media are not mapped)")
    emitters = [e for _, e in shape.nested("emitter")]
    if emitters and emitters[0].type == "area":
        return _emissive_material(b, shape, bsdf, emitters[0])
    for e in emitters:
        b.warn(e.where, f"<emitter type=\"{e.type}\"> on a shape is skipped (only area emitters are mapped)")
    if bsdf is not None and bsdf.type == "null":
        b.warn(bsdf.where, "a shape with a null BSDF is skipped (it is invisible in Mitsuba)")
        return None
    key = ("bsdf", id(bsdf), False)
    if key not in b.materials:
        b.materials[key] = len(b.scene.materials)
        b.scene.materials.append(make_bsdf(b, bsdf, double_sided=False) if bsdf is not None else _default_diffuse())
    return b.materials[key]


def _default_diffuse():
    m = PBRTDiffuseMaterial("default")
    m.baseColor = float4(0.5, 0.5, 0.5, 1.0)
    return m


def _emissive_material(b, shape: Obj, bsdf: Obj | None, emitter: Obj) -> int:
    """Falcor's emissive surfaces are StandardMaterials (PBRT materials don't emit): the radiance is
    the emissive colour, the surface reflects as a rough diffuse StandardMaterial of the BSDF's
    diffuse reflectance, as Falcor's Mitsuba importer does. Emission is one-sided (front faces), as
    in Mitsuba."""
    radiance = b.color(emitter, "radiance", 1.0, emitter=True)
    for name in emitter.props:
        if name != "radiance":
            b.warn(emitter.props[name].where, f"the area emitter's '{name}' is skipped")
    inner = _unwrap_twosided(b, bsdf) if bsdf is not None else None
    if inner is not None and inner.type != "diffuse":
        b.warn(inner.where, f"the emitting shape's <bsdf type=\"{inner.type}\"> reflects as a diffuse StandardMaterial")
    material = StandardMaterial(emitter.id or (f"{bsdf.id}.emitter" if bsdf is not None and bsdf.id else f"emitter{len(b.scene.materials)}"))
    base = b.color(inner, "reflectance", 0.5) if inner is not None and inner.type == "diffuse" else np.full(3, 0.5)
    material.baseColor = float4(*base, 1.0)
    material.roughness = 1.0
    material.metallic = 0.0
    material.emissiveColor = tuple(float(c) for c in radiance)
    material.doubleSided = bsdf is not None and bsdf.type == "twosided"
    b.scene.materials.append(material)
    return len(b.scene.materials) - 1


def _unwrap_twosided(b, bsdf: Obj) -> Obj:
    if bsdf.type != "twosided":
        return bsdf
    inner = bsdf.nested("bsdf")
    if not inner:
        raise b.fail(bsdf.where, "a twosided BSDF needs a nested BSDF")
    if len(inner) > 1:
        b.warn(bsdf.where, "a twosided BSDF with two BSDFs (front and back) uses the front one on both sides")
    return inner[0][1]


def make_bsdf(b, bsdf: Obj, double_sided: bool):
    if id(bsdf) in b.building:
        raise b.fail(bsdf.where, "the BSDF references itself")
    b.building.append(id(bsdf))
    try:
        material = _bsdf(b, bsdf, double_sided)
    finally:
        b.building.pop()
    return material


def _bsdf(b, bsdf: Obj, double_sided: bool):
    name = bsdf.id or f"{bsdf.type}{len(b.scene.materials)}"
    kind = bsdf.type
    m: Any  # the PBRT material of the kind, or a StandardMaterial
    if kind == "twosided":
        return make_bsdf(b, _unwrap_twosided(b, bsdf), True)
    if kind in ("bumpmap", "normalmap", "mask"):
        inner = bsdf.nested("bsdf")
        b.warn(bsdf.where, f"<bsdf type=\"{kind}\"> is skipped; its nested BSDF is used as it is")
        return make_bsdf(b, inner[0][1], double_sided) if inner else _default_diffuse()
    if kind == "diffuse":
        m = PBRTDiffuseMaterial(name)
        _color_or_texture(b, m, bsdf, "reflectance", 0.5)
        known = {"reflectance"}
    elif kind in ("conductor", "roughconductor"):
        m = _conductor(b, bsdf, name)
        known = {"material", "eta", "k", "alpha", "alpha_u", "alpha_v", "distribution", "sample_visible"}
    elif kind in ("dielectric", "roughdielectric"):
        m = PBRTDielectricMaterial(name)
        m.indexOfRefraction = _ior(b, bsdf)
        m.roughness = _alpha(b, bsdf, kind.startswith("rough"))
        known = {"int_ior", "ext_ior", "alpha", "alpha_u", "alpha_v", "distribution", "sample_visible"}
    elif kind == "thindielectric":
        m = StandardMaterial(name)  # as Falcor: a thin, fully transmissive smooth StandardMaterial
        m.specularTransmission = 1.0
        m.thinSurface = True
        m.roughness = 0.0
        m.indexOfRefraction = _ior(b, bsdf)
        double_sided = True
        known = {"int_ior", "ext_ior"}
    elif kind in ("plastic", "roughplastic"):
        m = PBRTCoatedDiffuseMaterial(name)  # a dielectric coat over a Lambertian base
        m.indexOfRefraction = eta = _ior(b, bsdf, "polypropylene")
        nonlinear = bool(b.value(bsdf, "nonlinear", "boolean", False))
        _color_or_texture(b, m, bsdf, "diffuse_reflectance", 0.5, None if nonlinear else linear_plastic_base(eta))
        if kind == "plastic":
            b.warn(bsdf.where, "a smooth plastic's diffuse layer gets no light from point, spot and directional lights: "
                               "the coated-diffuse walk (as Falcor 8's LayeredBSDF) has no next-event estimate through a "
                               "specular coat; a roughplastic with a small alpha does")
        m.roughness = _alpha(b, bsdf, kind == "roughplastic")
        known = {"diffuse_reflectance", "int_ior", "ext_ior", "alpha", "distribution", "sample_visible", "nonlinear"}
    else:
        b.warn(bsdf.where, f"<bsdf type=\"{kind}\"> is skipped; the shape gets Mitsuba's default diffuse BSDF (0.5)")
        return _default_diffuse()
    m.doubleSided = double_sided
    b.skip_unknown_properties(bsdf, known)
    for child_name, child in bsdf.nested("texture"):
        if child_name not in ("reflectance", "diffuse_reflectance"):
            b.warn(child.where, f"the texture '{child_name}' of <bsdf type=\"{kind}\"> is skipped (only reflectance textures are mapped)")
    return m


def _conductor(b, bsdf: Obj, name: str) -> PBRTConductorMaterial:
    m = PBRTConductorMaterial(name)
    preset = b.value(bsdf, "material", "string", "none")
    if "eta" in bsdf.props or "k" in bsdf.props or preset == "none":
        if preset != "none":
            raise b.fail(bsdf.where, "a conductor takes a material or eta and k, not both")
        eta, k = b.color(bsdf, "eta", 0.0, bounded=False), b.color(bsdf, "k", 1.0, bounded=False)
    elif preset in tables.CONDUCTORS:
        eta, k = (np.array(v) for v in tables.CONDUCTORS[preset])
    else:
        raise b.fail(bsdf.props["material"].where, f"unknown conductor material '{preset}' (Mitsuba's presets: "
                                                    f"{', '.join(sorted(tables.CONDUCTORS))}, none)")
    m.baseColor = float4(*eta, 1.0)
    m.transmissionColor = tuple(float(c) for c in k)
    m.roughness = _alpha(b, bsdf, bsdf.type == "roughconductor")
    if "specular_reflectance" in bsdf.props:
        b.warn(bsdf.props["specular_reflectance"].where, "the conductor's specular_reflectance is skipped")
    return m


def _ior(b, bsdf: Obj, interior: str = "bk7") -> float:
    def lookup(name: str, default: str) -> float:
        prop = bsdf.props.get(name)
        if prop is not None and prop.kind in ("float", "integer"):
            value = float(prop.value)
        else:
            key = str(b.value(bsdf, name, "string", default)).lower()
            if key not in tables.IOR:
                raise b.fail(prop.where if prop else bsdf.where, f"unknown index of refraction '{key}' (Mitsuba's names: {', '.join(tables.IOR)})")
            value = tables.IOR[key]
        if not 1e-3 < value < 1e3:
            raise b.fail(prop.where if prop else bsdf.where, f"the index of refraction {value} is out of range")
        return value

    for name in ("specular_reflectance", "specular_transmittance"):
        if name in bsdf.props:
            b.warn(bsdf.props[name].where, f"the BSDF's {name} is skipped")
    return lookup("int_ior", interior) / lookup("ext_ior", "air")


def _alpha(b, bsdf: Obj, rough: bool) -> tuple:
    """GGX alpha (u, v) of a rough BSDF; Mitsuba's default Beckmann distribution is approximated
    by GGX of the same alpha (with a warning)."""
    if not rough:
        return (0.0, 0.0)
    distribution = str(b.value(bsdf, "distribution", "string", "beckmann")).lower()
    if distribution != "ggx":
        b.warn(bsdf.where, f"the {distribution} microfacet distribution is approximated by GGX of the same alpha")
    for name in ("alpha", "alpha_u", "alpha_v"):
        prop = bsdf.props.get(name)
        if prop is not None and prop.kind not in ("float", "integer"):
            b.warn(prop.where, f"a textured {name} is skipped; alpha {ROUGH_DEFAULT_ALPHA} is used")
            del bsdf.props[name]
    alpha = b.number(bsdf, "alpha", ROUGH_DEFAULT_ALPHA)
    u, v = b.number(bsdf, "alpha_u", alpha), b.number(bsdf, "alpha_v", alpha)
    if not (0.0 <= u <= 10.0 and 0.0 <= v <= 10.0):
        raise b.fail(bsdf.where, f"alpha ({u}, {v}) is out of range (0 to 10)")
    return (u, v)


# --- textures -------------------------------------------------------------------------------------


def fresnel_diffuse_reflectance(eta: float) -> float:
    """Mitsuba's fit of the hemispherical average of dielectric Fresnel reflectance (fresnel.h)."""
    x = 1.0 / eta
    if eta < 1.0:  # Egan and Hilgeman
        return 0.0636 * x + eta * (eta * -1.4399 + 0.7099) + 0.6681
    return 0.919317 + x * (-3.4793 + x * (6.75335 + x * (-7.80989 + x * (4.98554 + x * -1.36881))))  # d'Eon and Irving


def linear_plastic_base(eta: float):
    """The base colour that makes our coated diffuse (a layer whose internal reflections are
    followed: albedo ~ rho / (1 - rho F)) reflect what Mitsuba's plastic does by default
    (nonlinear=false: rho / (1 - F), F its internal diffuse Fresnel reflectance): rho' = k / (1 + k F)
    with k = rho / (1 - F). Mitsuba's nonlinear=true model needs no change."""
    f = fresnel_diffuse_reflectance(1.0 / eta)

    def remap(rho: np.ndarray) -> np.ndarray:
        k = np.clip(rho, 0.0, 1.0) / (1.0 - f)
        return k / (1.0 + k * f)

    return remap


def _color_or_texture(b, material, bsdf: Obj, name: str, default: float, remap=None) -> None:
    """A reflectance as the base colour or a BaseColor texture; `remap` maps linear reflectances."""
    remap = remap or (lambda rho: rho)
    textures_named = [t for n, t in bsdf.nested() if n == name and t.tag in ("texture", "spectrum")]
    if not textures_named:
        material.baseColor = float4(*remap(b.color(bsdf, name, default)), 1.0)
        return
    texture = textures_named[0]
    material.baseColor = float4(1.0, 1.0, 1.0, 1.0)
    if texture.type == "bitmap":
        _bitmap(b, material, texture, remap)
    elif texture.type == "checkerboard":
        _checkerboard(b, material, texture, remap)
    elif texture.tag == "spectrum" or texture.type in ("srgb", "uniform"):
        value = b.color(texture, "color" if "color" in texture.props else "value", default)
        material.baseColor = float4(*remap(value), 1.0)
    else:
        b.warn(texture.where, f"<texture type=\"{texture.type}\"> is skipped; {name} is {default}")
        material.baseColor = float4(*remap(np.full(3, default)), 1.0)


def _bitmap(b, material, texture: Obj, remap) -> None:
    filename = b.value(texture, "filename", "string")
    if filename is None:
        raise b.fail(texture.where, "a bitmap texture needs a filename")
    path = b.reader.resolve(filename, Path(texture.where.rsplit(":", 1)[0]))
    if path is None:
        raise b.fail(texture.where, f"can't find the texture '{filename}'")
    raw = bool(b.value(texture, "raw", "boolean", False))
    if remap(np.array([0.5])) == 0.5:
        loaded = textures.load_texture(path, srgb=not raw)
    else:  # the remapped reflectance of every texel, linear
        try:
            pixels = read_texels(path, srgb=not raw)
        except (_ext.RuntimeError, ValueError, OSError) as e:
            raise b.fail(texture.where, f"can't load the texture '{filename}' ({e})") from e
        rgba = np.ones(pixels.shape[:2] + (4,), np.float32)
        rgba[..., :3] = remap(pixels)
        loaded = textures.texture_from_pixels(rgba, _rgba32f(), srgb=False)
    if loaded is None:
        raise b.fail(texture.where, f"can't load the texture '{filename}'")
    material.setTexture(MaterialTextureSlot.BaseColor, loaded)
    if not np.allclose(b.transform(texture, "to_uv"), np.eye(4)):
        b.warn(texture.where, "the bitmap's to_uv is skipped (a checkerboard's is baked; a bitmap's is not)")
    for name in texture.props:
        if name not in ("filename", "raw", "to_uv"):
            b.warn(texture.props[name].where, f"the bitmap's '{name}' is skipped (Falcor samples trilinearly and wraps)")


def read_texels(path: Path, srgb: bool) -> np.ndarray:
    """(H, W, 3) linear values of an image file: 8/16-bit images decoded from sRGB unless `srgb` is False."""
    record_asset(path)
    pixels = np.asarray(_ext.read_image(path))[..., :3]
    if np.issubdtype(pixels.dtype, np.integer):
        c = pixels.astype(np.float64) / np.iinfo(pixels.dtype).max
        pixels = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4) if srgb else c
    return np.asarray(pixels, np.float32)


def _checkerboard(b, material, texture: Obj, remap) -> None:
    """Baked into a texture over the unit uv square, sampled at texel centres (to_uv applied):
    Mitsuba's pattern is color0 where frac(u') > 1/2 equals frac(v') > 1/2, else color1."""
    color0, color1 = remap(b.color(texture, "color0", 0.4)), remap(b.color(texture, "color1", 0.2))
    to_uv = b.transform(texture, "to_uv")
    linear = np.array([[to_uv[0, 0], to_uv[0, 1]], [to_uv[1, 0], to_uv[1, 1]]])
    checks = max(1.0, float(np.max(np.abs(linear))) if np.all(np.isfinite(linear)) else 1.0)
    size = int(min(MAX_CHECKER_TEXELS, max(16, 16 * math.ceil(checks))))
    if 16 * checks > MAX_CHECKER_TEXELS:
        b.warn(texture.where, f"the checkerboard has more checks than a {MAX_CHECKER_TEXELS}^2 texture shows sharply")
    centres = (np.arange(size) + 0.5) / size
    u, v = np.meshgrid(centres, centres)  # row j is v = (j + 1/2) / size: the image's top row is v = 0
    uu = to_uv[0, 0] * u + to_uv[0, 1] * v + to_uv[0, 3]
    vv = to_uv[1, 0] * u + to_uv[1, 1] * v + to_uv[1, 3]
    same = ((uu - np.floor(uu)) > 0.5) == ((vv - np.floor(vv)) > 0.5)
    rgba = np.ones((size, size, 4), np.float32)
    rgba[..., :3] = np.where(same[..., None], color0, color1)
    material.setTexture(MaterialTextureSlot.BaseColor, textures.texture_from_pixels(rgba, _rgba32f(), srgb=False))


def _rgba32f():
    return _ext.ResourceFormat.RGBA32Float
