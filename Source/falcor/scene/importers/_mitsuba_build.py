"""The second half of the Mitsuba importer: plugin objects (from _mitsuba_xml) to an ImportedScene.

See mitsuba.py for the mapping table. Everything is read and checked here before anything reaches a
SceneBuilder; what can't be rendered is skipped with one warning per (file, thing) naming file:line.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ... import falcor_ext as _ext
from ...falcor_ext import Logger
from ...math_types import float3
from ..camera import Camera
from ..envmap import EnvMap, rotation_xyz
from ..light import DirectionalLight, PointLight
from . import _imported as ir
from . import _mitsuba_materials as materials
from . import _mitsuba_shapes as shapes
from . import _mitsuba_tables as tables
from ._mitsuba_xml import Obj, Reader, fail

DEFAULT_FILM = (768, 576)  # Mitsuba's hdrfilm default size


@dataclass
class Settings:
    """What the file says about rendering, which a scene does not hold (the script sets it)."""

    width: int = DEFAULT_FILM[0]
    height: int = DEFAULT_FILM[1]
    spp: int | None = None
    max_depth: int | None = None  # Mitsuba's: -1 is unlimited
    integrator: str | None = None

    @property
    def max_surface_bounces(self) -> int | None:
        """PathTracer.maxSurfaceBounces giving the same paths: Mitsuba's max_depth counts path
        vertices from the camera (1: emitters seen directly; 2: direct light), Falcor's bounces
        count scatterings after the primary hit, so N bounces = max_depth N + 2."""
        if self.max_depth is None or self.max_depth < 0:
            return None
        return max(self.max_depth - 2, 0)


class Builder:
    def __init__(self, reader: Reader, scene_obj: Obj):
        self.reader = reader
        self.path = reader.main
        self.scene = ir.ImportedScene(reader.main)
        self.settings = Settings()
        self.materials: dict[tuple, int] = {}
        self.building: list[int] = []  # ids of BSDF objects being built (reference cycles)
        self.triangles = 0
        self.root = scene_obj
        self.scene.nodes.append(ir.Node(reader.main.name))

    # --- messages ---

    def warn(self, where: str, what: str) -> None:
        Logger.log_once(Logger.Level.Warning, f"{where}: {what}")

    def fail(self, where: str, message: str) -> Exception:
        return fail(where, message, self.path)

    # --- property access ---

    def value(self, obj: Obj, name: str, kind: str | tuple, default: Any = None) -> Any:
        prop = obj.props.get(name)
        if prop is None:
            return default
        kinds = (kind,) if isinstance(kind, str) else kind
        if prop.kind not in kinds:
            raise self.fail(prop.where, f"'{name}' of <{obj.tag} type=\"{obj.type}\"> must be {' or '.join(kinds)}, not {prop.kind}")
        if prop.kind == "integer" and "float" in kinds:
            return float(prop.value)
        return prop.value

    def number(self, obj: Obj, name: str, default: float) -> float:
        return float(self.value(obj, name, ("float", "integer"), default))

    def color(self, obj: Obj, name: str, default, emitter: bool = False, bounded: bool = True) -> np.ndarray:
        """A colour property as Mitsuba's RGB variants read it (see _mitsuba_tables)."""
        prop = obj.props.get(name)
        if prop is None:
            return np.array(default, float) * np.ones(3)
        if prop.kind in ("float", "integer"):
            return np.full(3, float(prop.value))
        if prop.kind == "rgb":
            return np.asarray(prop.value, float)
        if prop.kind == "spectrum":
            if prop.value[0] == "uniform":
                v = prop.value[1]
                return tables.uniform_emitter_rgb(v) if emitter else np.full(3, v)
            rgb, clamped = tables.spectrum_to_rgb(prop.value[1], prop.value[2], emitter, bounded)
            if clamped:
                self.warn(prop.where, f"the spectrum '{name}' is out of the sRGB gamut; it is clamped as Mitsuba does")
            return rgb
        raise self.fail(prop.where, f"'{name}' must be a colour (rgb, spectrum or float), not {prop.kind}")

    def transform(self, obj: Obj, name: str = "to_world") -> np.ndarray:
        return np.asarray(self.value(obj, name, "transform", np.eye(4)))

    def named(self, obj: Obj, name: str) -> Obj | None:
        for child_name, child in obj.nested():
            if child_name == name:
                return child
        return None

    def skip_unknown_properties(self, obj: Obj, known: set) -> None:
        for name, prop in obj.props.items():
            if name not in known:
                self.warn(prop.where, f"'{name}' of <{obj.tag} type=\"{obj.type}\"> is skipped (not mapped to Falcor)")

    # --- the scene ---

    def build(self) -> tuple[ir.ImportedScene, Settings]:
        for _, obj in self.root.nested():
            try:
                self.top_level(obj)
            except _ext.ImporterError:
                raise
            except (_ext.RuntimeError, ValueError, OverflowError, FloatingPointError) as e:  # a Falcor setter refused a value
                raise self.fail(obj.where, f"<{obj.tag} type=\"{obj.type}\">: {e}") from e
        return self.scene, self.settings

    def top_level(self, obj: Obj) -> None:
        if obj.tag == "shape":
            self.shape(obj, np.eye(4))
        elif obj.tag == "sensor":
            self.sensor(obj)
        elif obj.tag == "emitter":
            self.emitter(obj)
        elif obj.tag == "integrator":
            self.integrator(obj)
        elif obj.tag not in ("bsdf", "texture", "spectrum"):  # those are built where a shape or BSDF uses them
            self.warn(obj.where, f"<{obj.tag} type=\"{obj.type}\"> is skipped (Falcor's scenes have no {obj.tag} plugins)")

    def integrator(self, obj: Obj) -> None:
        self.settings.integrator = obj.type
        if obj.type not in ("path", "volpath", "aov", "direct", "moment"):
            self.warn(obj.where, f"<integrator type=\"{obj.type}\"> is read for its max_depth only (Falcor's integrator is the render graph)")
        if obj.type in ("aov", "moment"):
            nested = obj.nested("integrator")
            if nested:
                obj = nested[0][1]
        depth = self.value(obj, "max_depth", "integer")
        if depth is not None:
            if depth < -1:
                raise self.fail(obj.props["max_depth"].where, f"max_depth {depth} is invalid (-1 or more)")
            self.settings.max_depth = depth
        elif obj.type == "direct":
            self.settings.max_depth = 2
        else:
            self.settings.max_depth = -1  # Mitsuba's path integrator default: unlimited
        for name in obj.props:
            if name != "max_depth":
                self.warn(obj.props[name].where, f"the integrator's '{name}' is skipped (set the PathTracer's properties in the script)")

    # --- sensors ---

    def film(self, sensor: Obj) -> tuple[int, int]:
        width, height = DEFAULT_FILM
        for _, film in sensor.nested("film"):
            if film.type not in ("hdrfilm", "specfilm"):
                self.warn(film.where, f"<film type=\"{film.type}\"> is read as an hdrfilm (its size)")
            width = int(self.value(film, "width", "integer", width))
            height = int(self.value(film, "height", "integer", height))
            if not (1 <= width <= 65536 and 1 <= height <= 65536):
                raise self.fail(film.where, f"film size {width}x{height} is invalid (1 to 65536)")
            for name in film.props:
                if name not in ("width", "height", "pixel_format", "component_format", "file_format"):
                    self.warn(film.props[name].where, f"the film's '{name}' is skipped (the script sets the frame)")
            for _, rfilter in film.nested("rfilter"):
                if rfilter.type != "box":
                    self.warn(rfilter.where, f"<rfilter type=\"{rfilter.type}\"> is skipped (Falcor's jittered pixel samples reconstruct with a box filter)")
        return width, height

    def sensor(self, obj: Obj) -> None:
        width, height = self.film(obj)
        for _, sampler in obj.nested("sampler"):
            for name in sampler.props:
                if name != "sample_count":
                    self.warn(sampler.props[name].where, f"the sampler's '{name}' is skipped")
            spp = self.value(sampler, "sample_count", "integer")
            if spp is not None and not self.scene.cameras:
                self.settings.spp = int(spp)
        if not self.scene.cameras:
            self.settings.width, self.settings.height = width, height
        if obj.type not in ("perspective", "thinlens"):
            self.warn(obj.where, f"<sensor type=\"{obj.type}\"> is skipped (only perspective and thinlens sensors are mapped)")
            return
        camera = Camera(obj.id or f"sensor{len(self.scene.cameras)}")
        matrix = self.transform(obj)
        linear = matrix[:3, :3]
        forward, up = linear[:, 2], linear[:, 1]
        if np.linalg.norm(forward) == 0 or np.linalg.norm(np.cross(forward, up)) == 0:
            raise self.fail(obj.where, "the sensor's to_world is singular")
        if np.linalg.det(linear) < 0:
            self.warn(obj.where, "the sensor's to_world mirrors the image, which a Falcor camera can't; the image is not mirrored")
        forward = forward / np.linalg.norm(forward)
        aspect = width / height
        fov_y = self.vertical_fov(obj, aspect)
        focal_length = camera.frameHeight / (2.0 * math.tan(0.5 * fov_y))
        finite32(self, obj, "the camera's placement or focal length", matrix[:3, 3], matrix[:3, 3] + forward, focal_length)
        camera.position = float3(*matrix[:3, 3])
        camera.target = float3(*(matrix[:3, 3] + forward))
        camera.up = float3(*(up / np.linalg.norm(up)))
        camera.aspectRatio = aspect
        camera.focalLength = focal_length
        camera.nearPlane = self.positive(obj, "near_clip", 1e-2)
        camera.farPlane = self.positive(obj, "far_clip", 1e4)
        if camera.farPlane <= camera.nearPlane:
            raise self.fail(obj.where, "far_clip must be larger than near_clip")
        if obj.type == "thinlens":
            camera.apertureRadius = self.number(obj, "aperture_radius", 0.0)
            camera.focalDistance = self.positive(obj, "focus_distance", 0.0) if "focus_distance" in obj.props else camera.focalDistance
        for name in obj.props:
            if name not in ("to_world", "fov", "fov_axis", "focal_length", "near_clip", "far_clip", "aperture_radius", "focus_distance"):
                self.warn(obj.props[name].where, f"the sensor's '{name}' is skipped")
        self.scene.cameras.append(camera)

    def positive(self, obj: Obj, name: str, default: float) -> float:
        value = self.number(obj, name, default)
        if not value > 0:
            raise self.fail(obj.props[name].where, f"'{name}' must be positive, not {value}")
        return value

    def vertical_fov(self, obj: Obj, aspect: float) -> float:
        """Mitsuba's fov along fov_axis (x, y, diagonal, smaller, larger), or its 35 mm
        focal_length (along the diagonal), as the vertical field of view (radians)."""
        if "fov" in obj.props and "focal_length" in obj.props:
            raise self.fail(obj.where, "a sensor takes fov or focal_length, not both")
        if "fov" in obj.props:
            fov = self.number(obj, "fov", 0.0)
            axis = str(self.value(obj, "fov_axis", "string", "x")).lower()
            if axis == "smaller":
                axis = "y" if aspect > 1 else "x"
            elif axis == "larger":
                axis = "x" if aspect > 1 else "y"
        else:
            text = str(self.value(obj, "focal_length", "string", "50mm")).strip()
            focal = self.reader.number(text.removesuffix("mm"), obj.where)
            if not focal > 0:
                raise self.fail(obj.where, f"focal_length {text} is invalid")
            fov, axis = 2.0 * math.degrees(math.atan(math.hypot(36.0, 24.0) / (2.0 * focal))), "diagonal"
        if not 0.0 < fov < 180.0:
            raise self.fail(obj.props.get("fov", obj).where, f"fov {fov} is not between 0 and 180 degrees")
        half = math.tan(math.radians(0.5 * fov))
        if axis == "x":
            return 2.0 * math.atan(half / aspect)
        if axis == "y":
            return math.radians(fov)
        if axis == "diagonal":
            return 2.0 * math.atan(half / math.hypot(aspect, 1.0))
        raise self.fail(obj.props["fov_axis"].where, f"fov_axis '{axis}' is not x, y, diagonal, smaller or larger")

    # --- emitters ---

    def emitter(self, obj: Obj) -> None:
        name = obj.id or f"{obj.type}{len(self.scene.lights)}"
        if obj.type == "point":
            light = PointLight(name)
            if "position" in obj.props and "to_world" in obj.props:
                raise self.fail(obj.where, "a point emitter takes position or to_world, not both")
            position = self.value(obj, "position", "point")
            light.position = float3(*(position if position is not None else self.transform(obj)[:3, 3]))
            light.intensity = float3(*self.color(obj, "intensity", 1.0, emitter=True))
            self.scene.lights.append(light)
        elif obj.type == "spot":
            self.spot(obj, name)
        elif obj.type == "directional":
            sun = DirectionalLight(name)
            direction = self.value(obj, "direction", "vector")
            if direction is None:
                direction = self.transform(obj)[:3, :3] @ np.array([0.0, 0.0, 1.0])
            if not np.any(direction):
                raise self.fail(obj.where, "the directional emitter's direction is zero")
            sun.direction = float3(*direction)
            sun.intensity = float3(*self.color(obj, "irradiance", 1.0, emitter=True))
            self.scene.lights.append(sun)
        elif obj.type == "constant":
            self.set_env_map(obj, EnvMap.from_texels(self.color(obj, "radiance", 1.0, emitter=True).reshape(1, 1, 3), f"{self.path}:{name}"))
        elif obj.type == "envmap":
            self.envmap(obj)
        elif obj.type == "area":
            self.warn(obj.where, "an area emitter outside a shape is skipped (Mitsuba attaches it to its shape)")
        else:
            self.warn(obj.where, f"<emitter type=\"{obj.type}\"> is skipped (not mapped to Falcor)")

    def spot(self, obj: Obj, name: str) -> None:
        light = PointLight(name)
        matrix = self.transform(obj)
        cutoff = self.number(obj, "cutoff_angle", 20.0)
        beam = self.number(obj, "beam_width", cutoff * 3.0 / 4.0)
        light.position = float3(*matrix[:3, 3])
        direction = matrix[:3, :3] @ np.array([0.0, 0.0, 1.0])
        if not np.any(direction):
            raise self.fail(obj.where, "the spot emitter's to_world is singular")
        light.direction = float3(*direction)
        light.openingAngle = math.radians(min(max(cutoff, 0.0), 180.0))
        light.penumbraAngle = math.radians(max(cutoff - beam, 0.0))
        light.intensity = float3(*self.color(obj, "intensity", 1.0, emitter=True))
        if "texture" in obj.props or obj.nested("texture"):
            self.warn(obj.where, "the spot emitter's texture is skipped")
        self.scene.lights.append(light)

    def set_env_map(self, obj: Obj, env_map: EnvMap) -> None:
        if self.scene.env_map is not None:
            self.warn(obj.where, f"<emitter type=\"{obj.type}\"> is skipped: Falcor's scene has one environment map, and an earlier emitter set it")
            return
        self.scene.env_map = env_map

    def envmap(self, obj: Obj) -> None:
        filename = self.value(obj, "filename", "string")
        if filename is None:
            self.warn(obj.where, "an envmap without a filename is skipped (bitmap objects are not mapped)")
            return
        path = self.reader.resolve(filename, Path(obj.where.rsplit(":", 1)[0]))
        if path is None:
            raise self.fail(obj.where, f"can't find the environment map '{filename}'")
        try:
            env_map = EnvMap.from_texels(mitsuba_latlong_rows(materials.read_texels(path, srgb=True)), str(path))
        except (_ext.RuntimeError, ValueError, OSError) as e:
            raise self.fail(obj.where, f"can't load the environment map '{filename}' ({e})") from e
        env_map.intensity = self.number(obj, "scale", 1.0)
        env_map.rotation = float3(*envmap_rotation(self.transform(obj)[:3, :3], self, obj))
        self.set_env_map(obj, env_map)

    # --- shapes, BSDFs and textures: see _mitsuba_shapes ---

    def shape(self, obj: Obj, parent: np.ndarray) -> None:
        shapes.add_shape(self, obj, parent)


def mitsuba_latlong_rows(texels: np.ndarray) -> np.ndarray:
    """The image resampled in latitude from Mitsuba's envmap rows to ours. Mitsuba 3 (3.9) places
    row j at theta = pi j / (H - 1) (its first and last rows on the poles; columns texel-centred
    like ours); ours are texel-centred, row j at theta = pi (j + 1/2) / H. Our row j takes
    Mitsuba's value at that theta: rows j0 and j0 + 1 blended linearly."""
    height = texels.shape[0]
    if height < 2:
        return texels
    position = (np.arange(height) + 0.5) * (height - 1) / height
    j0 = np.minimum(position.astype(np.int64), height - 2)
    w = (position - j0)[:, None, None]
    return ((1.0 - w) * texels[j0] + w * texels[j0 + 1]).astype(np.float32)


def finite32(b: Builder, obj: Obj, what: str, *values) -> None:
    with np.errstate(all="ignore"):
        if not all(np.all(np.isfinite(np.asarray(v, np.float32))) for v in values):
            raise b.fail(obj.where, f"{what} overflows float")


def envmap_rotation(linear: np.ndarray, builder: Builder, obj: Obj) -> np.ndarray:
    """Euler angles (degrees, EnvMap.rotation) that look up the texel Mitsuba's envmap shows.

    Mitsuba: d_local = to_world^-1 d, u = atan2(x, -z) / 2 pi, v = acos(y) / pi. Ours:
    d_local = R^-1 d with R = rotation_xyz(angles), u = atan2(x, -z) / 2 pi + 1/2. The half-turn in
    u is a 180-degree rotation about +Y, so R = to_world · Ry(180)."""
    scale = np.linalg.norm(linear, axis=0)
    if np.any(scale == 0):
        raise builder.fail(obj.where, "the envmap's to_world is singular")
    rot = linear / scale
    if np.max(np.abs(scale - scale[0])) > 1e-4 * scale[0] or abs(np.linalg.det(rot) - 1.0) > 1e-3:
        builder.warn(obj.where, "the envmap's to_world is not a rotation; its scale or shear is dropped")
        u, _, vt = np.linalg.svd(linear)
        rot = u @ vt
        if np.linalg.det(rot) < 0:
            rot = -rot
    target = rot @ np.diag([-1.0, 1.0, -1.0])
    return euler_for(target)


def euler_for(target: np.ndarray) -> np.ndarray:
    """Angles (degrees) with envmap.rotation_xyz(angles) == target (a rotation matrix)."""
    s2 = -float(np.clip(target[0, 2], -1.0, 1.0))
    c2 = math.sqrt(max(0.0, 1.0 - s2 * s2))
    if c2 > 1e-6:
        a3 = math.atan2(target[0, 1] / c2, target[0, 0] / c2)
        a1 = math.atan2(target[1, 2] / c2, target[2, 2] / c2)
    else:  # gimbal lock: angle 1 absorbed into angle 3
        a1 = 0.0
        a3 = math.atan2(-target[1, 0], target[1, 1])
    a2 = math.atan2(s2, c2)
    angles = -np.degrees([a1, a2, a3])  # rotation_xyz uses cos/sin of the negated angles
    assert np.allclose(rotation_xyz(angles), target, atol=1e-6), "envmap rotation decomposition"
    return angles
