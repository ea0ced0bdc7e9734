"""USD cameras, lights and the dome light, as Falcor 8's USDImporter maps them (see usd.py's docstring)."""
from __future__ import annotations

import math

import numpy as np

from ...math_types import float3
from ..camera import Camera
from ..envmap import EnvMap
from ..light import DiscLight, DistantLight, PointLight, RectLight, SphereLight
from . import _imported as ir
from ._usd_materials import resolve_asset


def camera(reader, prim) -> Camera | None:
    """Falcor: focal length as given; frame width from the horizontal aperture when authored, else frame
    height from the vertical one (both in the same unit, so the field of view is USD's)."""
    UsdGeom = reader.pxr.UsdGeom
    usd_camera = UsdGeom.Camera(prim)
    gf = usd_camera.GetCamera(reader.time)
    path = prim.GetPath()
    if usd_camera.GetProjectionAttr().Get() == "orthographic":
        reader.warn(path, "the orthographic projection is imported as a perspective one (as in Falcor)")
    values = [gf.focalLength, gf.horizontalAperture, gf.verticalAperture, gf.clippingRange.min, gf.clippingRange.max]
    if not all(math.isfinite(v) and v > 0 for v in values) or gf.clippingRange.min >= gf.clippingRange.max:
        reader.warn(path, f"camera values {values} are not usable (positive, near < far); Falcor's defaults are used")
        return Camera(prim.GetName())
    c = Camera(prim.GetName())
    c.focalLength = gf.focalLength
    if prim.GetAttribute("horizontalAperture").HasAuthoredValue():
        c.frameWidth = gf.horizontalAperture
    else:
        c.frameHeight = gf.verticalAperture
    mpu = reader.meters_per_unit
    c.nearPlane, c.farPlane = gf.clippingRange.min * mpu, gf.clippingRange.max * mpu
    depth_of_field = prim.GetAttribute("depthOfField")
    fstop = gf.fStop if not (depth_of_field and depth_of_field.Get() is False) else 0.0
    if math.isfinite(fstop) and fstop > 0:
        c.apertureRadius = 0.001 * 0.5 * gf.focalLength / fstop  # Falcor's formula (mm to m)
    if math.isfinite(gf.focusDistance):
        c.focalDistance = mpu * max(1.0, gf.focusDistance)
    return c


def _value(reader, prim, schema_attribute, legacy: str, default):
    """An attribute of the UsdLux schema (inputs:...), else its pre-21.02 name, as Falcor reads both."""
    for attribute in (schema_attribute, prim.GetAttribute(legacy)):
        if attribute and attribute.HasAuthoredValue():
            value = attribute.Get(reader.time)
            if value is not None:
                return value
    return default


def intensity(reader, prim) -> np.ndarray:
    """intensity * 2^exposure * color (* the blackbody colour when enableColorTemperature)."""
    UsdLux = reader.pxr.UsdLux
    api = UsdLux.LightAPI(prim)
    value = float(_value(reader, prim, api.GetIntensityAttr(), "intensity", 1.0))
    exposure = float(_value(reader, prim, api.GetExposureAttr(), "exposure", 0.0))
    color = np.array(_value(reader, prim, api.GetColorAttr(), "color", (1.0, 1.0, 1.0)), float)
    if _value(reader, prim, api.GetEnableColorTemperatureAttr(), "enableColorTemperature", False):
        kelvin = float(_value(reader, prim, api.GetColorTemperatureAttr(), "colorTemperature", 6500.0))
        color = color * np.array(UsdLux.BlackbodyTemperatureAsRgb(kelvin), float)
    with np.errstate(over="ignore", invalid="ignore"):
        result = value * (2.0 ** min(exposure, 1000.0)) * color
    if not np.all(np.isfinite(result)) or np.max(np.abs(result)) > 3.0e38:
        reader.warn(prim.GetPath(), f"light intensity {result.tolist()} is not finite; the light is black")
        return np.zeros(3)
    return result


def light(reader, prim, node: int):
    """(ready Falcor light, node to place it at) or None; the dome light sets the environment map."""
    UsdLux = reader.pxr.UsdLux
    path = prim.GetPath()
    if prim.IsA(UsdLux.DomeLight) or prim.IsA(UsdLux.DomeLight_1):
        _dome(reader, prim, node)
        return None
    radiance = intensity(reader, prim)
    name = prim.GetName()
    if prim.IsA(UsdLux.DistantLight):
        sun = DistantLight(name)
        sun.intensity = float3(*radiance)
        angle = float(_value(reader, prim, UsdLux.DistantLight(prim).GetAngleAttr(), "angle", 0.53))
        sun.angle = 0.5 * math.radians(angle) if math.isfinite(angle) else 0.0
        return sun, node
    if prim.IsA(UsdLux.RectLight):
        rect = UsdLux.RectLight(prim)
        if rect.GetTextureFileAttr().HasAuthoredValue():
            reader.warn(path, "the rect light's texture is skipped")
        w = float(_value(reader, prim, rect.GetWidthAttr(), "width", 1.0))
        h = float(_value(reader, prim, rect.GetHeightAttr(), "height", 1.0))
        # Falcor's unit rect spans [-1, 1]^2 and emits along +Z; USD's spans [-0.5, 0.5]^2 and emits along -Z.
        return _area(reader, prim, RectLight(name), node, (-w / 2, h / 2, -1.0), w * h, radiance)
    if prim.IsA(UsdLux.DiskLight):
        r = float(_value(reader, prim, UsdLux.DiskLight(prim).GetRadiusAttr(), "radius", 0.5))
        return _area(reader, prim, DiscLight(name), node, (-r, r, -1.0), math.pi * r * r, radiance)
    if prim.IsA(UsdLux.SphereLight):
        sphere = UsdLux.SphereLight(prim)
        r = float(_value(reader, prim, sphere.GetRadiusAttr(), "radius", 0.5))
        if sphere.GetTreatAsPointAttr().Get() or r == 0.0:
            point = PointLight(name)
            point.intensity = float3(*radiance)
            return point, node
        return _area(reader, prim, SphereLight(name), node, (r, r, r), 4 * math.pi * r * r, radiance)
    reader.warn(path, f"light of type '{prim.GetTypeName()}' is skipped (not supported)")
    return None


def _area(reader, prim, area_light, node: int, shape_scale, local_area: float, radiance):
    """An area light at a child node that scales Falcor's unit shape to USD's."""
    if not all(math.isfinite(s) and s != 0 for s in shape_scale):
        reader.warn(prim.GetPath(), f"light size {shape_scale} is not usable; the light is skipped")
        return None
    if reader.pxr.UsdLux.LightAPI(prim).GetNormalizeAttr().Get():
        world = reader.scene.world_matrix(node)[:3, :3]
        area = local_area * _area_scale(world, area_light)
        radiance = radiance / area if area > 0 and math.isfinite(area) else radiance
    area_light.intensity = float3(*radiance)
    shape = len(reader.scene.nodes)
    reader.scene.nodes.append(ir.Node(f"{prim.GetPath()}.shape", node, np.diag([*shape_scale, 1.0])))
    return area_light, shape


def _area_scale(world: np.ndarray, area_light) -> float:
    sx, sy, sz = np.linalg.norm(world, axis=0)
    if isinstance(area_light, SphereLight):
        return float((sx * sy + sy * sz + sx * sz) / 3.0)
    return float(sx * sy)


def _dome(reader, prim, node: int):
    UsdLux = reader.pxr.UsdLux
    path = prim.GetPath()
    if reader.scene.env_map is not None:
        reader.warn(path, "a second dome light is skipped (Falcor has one environment map)")
        return
    dome = UsdLux.DomeLight(prim)
    api = UsdLux.LightAPI(prim)
    asset = _value(reader, prim, dome.GetTextureFileAttr(), "texture:file", None)
    env = None
    if asset is not None and asset.path:
        image = resolve_asset(asset, reader.path)
        if image is None:
            reader.warn(path, f"the dome light's texture '{asset.path}' can't be found; the dome is skipped")
            return
        try:
            env = _env_map(image)
        except Exception as e:  # noqa: BLE001 - the image loaders raise several kinds; the scene goes on without the dome
            reader.warn(path, f"the dome light's texture can't be loaded ({e}); the dome is skipped")
            return
    else:  # beyond Falcor (which skips it): a dome without texture is a constant environment
        env = EnvMap.from_texels(np.ones((8, 16, 3), np.float32), f"{reader.path}:{path}")
    exposure = float(_value(reader, prim, api.GetExposureAttr(), "exposure", 0.0))
    scale = float(_value(reader, prim, api.GetIntensityAttr(), "intensity", 1.0)) * 2.0 ** min(exposure, 1000.0)
    color = tuple(float(c) for c in _value(reader, prim, api.GetColorAttr(), "color", (1.0, 1.0, 1.0)))
    if not (math.isfinite(scale) and all(math.isfinite(c) for c in color)):
        reader.warn(path, "the dome light's intensity is not finite; the dome is skipped")
        return
    env.intensity = scale
    env.tint = float3(*color)
    env.rotation = float3(*dome_rotation(reader.scene.world_matrix(node), _z_pole(reader, prim)))
    reader.scene.env_map = env


def _z_pole(reader, prim) -> bool:
    """DomeLight_1's poleAxis: "Z", or "scene" in a Z-up stage, puts the texture's pole on local +Z."""
    attribute = prim.GetAttribute("poleAxis")
    pole = attribute.Get() if attribute and attribute.HasAuthoredValue() else "Y"
    if pole == "scene":
        pole = reader.pxr.UsdGeom.GetStageUpAxis(reader.stage)
    return pole == "Z"


def _env_map(image) -> EnvMap:
    """The env map of a dome texture: a file, or the bytes of one inside a .usdz."""
    if isinstance(image, ir.EmbeddedImage):
        from ...image_io import decode_image

        pixels, _ = decode_image(image.data, image.name)
        return EnvMap.from_texels(np.asarray(pixels, np.float32)[:, :, :3], image.name)
    return EnvMap(image)


def dome_rotation(world: np.ndarray, z_pole: bool = False) -> tuple:
    """The env map rotation (degrees, XYZ, as Falcor's EnvMap takes it) that shows a dome light's lat-long
    texture as USD's renderer does. USD's dome has its pole along local +Y (+Z when poleAxis says so)
    and its longitude 0 along local +Z (Storm's ProjectToLatLong); Falcor's lat-long map has +Y up and
    its centre along -Z: the two differ by 180 degrees about Y. (Falcor 8 itself applies RotY(90) and
    RotX(90), Omniverse's Z-up dome convention; on USD's own test scenes that lays the horizon vertical.)"""
    rotation = world[:3, :3] / np.linalg.norm(world[:3, :3], axis=0)
    m = rotation @ (_rot_x(90.0) if z_pole else np.eye(3)) @ _rot_y(180.0)
    t1 = math.atan2(m[1, 2], m[2, 2])  # Falcor's extractEulerAngleXYZ, the inverse of matrixFromRotationXYZ
    c2 = math.hypot(m[0, 0], m[0, 1])
    t2 = math.atan2(-m[0, 2], c2)
    s1, c1 = math.sin(t1), math.cos(t1)
    t3 = math.atan2(s1 * m[2, 0] - c1 * m[1, 0], c1 * m[1, 1] - s1 * m[2, 1])
    return tuple(math.degrees(-a) for a in (t1, t2, t3))


def _rot_x(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rot_y(degrees):
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])
