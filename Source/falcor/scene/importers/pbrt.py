"""pbrt-v4 scene importer (.pbrt), our own parser (`_pbrt_tokenizer`, `_pbrt_parser`).

The mapping follows Falcor 8's PBRTImporter with its `usePBRTMaterials` option on (see
docs/importers/pbrt.md for the table and the differences):

- Shapes: trianglemesh, plymesh (through _ply_reader.read_ply), bilinearmesh (two triangles per patch),
  sphere, cylinder and disk (tessellated), loopsubdiv (Loop subdivision in numpy, capped), each a mesh whose
  vertices are in world space (the CTM baked in); an object's shapes (`ObjectBegin`) are meshes added
  once, placed by one node per `ObjectInstance`. Triangles face the side pbrt's surface normal is on
  (the N array, else the winding, flipped by ReverseOrientation), so one-sided emission and
  dielectric entry/exit match pbrt. Texture coordinates are flipped to Falcor's top-left origin.
- Materials: PBRT materials (diffuse, coateddiffuse, conductor, coatedconductor, dielectric,
  diffusetransmission), thindielectric as Falcor's thin StandardMaterial, hair -> HairMaterial,
  measured -> RGLMaterial; others a grey StandardMaterial with a warning (`_pbrt_materials`).
- Lights: distant -> DirectionalLight (L · scale, · illuminance when given), point/spot ->
  PointLight (I · scale, power normalization), infinite -> env map (L: one texel; filename: the
  equal-area octahedral image converted to lat-long), AreaLightSource "diffuse" -> an emissive
  StandardMaterial (L · scale) on the shapes that follow.
- Camera: perspective (fov on the shorter image axis, lensradius, focaldistance); Film resolution
  sets the camera's aspect ratio.
- Handedness: pbrt's image x axis is the camera's +x; Falcor's is cross(forward, up). When the
  camera frame makes those opposite (pbrt's LookAt and most files), the whole scene is mirrored across
  the camera's vertical plane so the image matches pbrt's (Falcor 8's importer shows it mirrored).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from ...falcor_ext import Logger
from ...math_types import float3
from ..camera import Camera as FalcorCamera
from ..envmap import EnvMap
from ..light import DirectionalLight, PointLight
from . import _imported as ir
from . import _pbrt_shapes as shapes
from . import error, register_importer
from ._imported import add_to_scene_builder
from ._pbrt_envmap import octahedral_to_latlong
from ._pbrt_materials import MaterialContext, create_material, emissive_material
from ._pbrt_parser import Entity, PbrtScene, parse

FRAME_HEIGHT = 24.0  # Falcor's default film height (mm); the focal length is derived from the fov against it


def warn_once(message: str) -> None:
    Logger.log_once(Logger.Level.Warning, message)


def load_pbrt(path) -> ir.ImportedScene:
    """Parse a pbrt-v4 file (and the files it includes); raises falcor.ImporterError naming the file and line."""
    path = Path(path).resolve()
    scene = parse(path, warn_once)
    return _Converter(scene).convert()


def import_pbrt(path, builder, dict_=None):
    add_to_scene_builder(load_pbrt(path), builder)


class _Converter:
    def __init__(self, scene: PbrtScene):
        self.scene = scene
        self.out = ir.ImportedScene(scene.path)
        self.ctx = MaterialContext(scene.textures, self._resolve, warn_once)
        self.named: dict[str, object] = {}
        self.anonymous: dict[int, object] = {}
        self.material_index: dict[int, int] = {}  # id(Falcor material) -> index in out.materials
        self.emissive: dict[tuple, int] = {}
        self.world_fix = self._handedness_fix()

    def _resolve(self, name: str) -> Path:
        p = Path(name)
        return p if p.is_absolute() else self.scene.path.parent / p

    # -- the whole scene --
    def convert(self) -> ir.ImportedScene:
        for name, entity in self.scene.named_materials.items():
            self.named[name] = create_material(entity, self.ctx)
        for i, entity in enumerate(self.scene.materials):
            self.anonymous[i] = create_material(entity, self.ctx)
        root = self._node("pbrt", None, np.eye(4))
        for entity in self.scene.shapes:
            self._add_shape(entity, root)
        self._add_instances(root)
        self._add_camera()
        for entity in self.scene.lights:
            self._add_light(entity)
        return self.out

    def _node(self, name: str, parent: int | None, matrix: np.ndarray) -> int:
        self.out.nodes.append(ir.Node(name, parent, matrix))
        return len(self.out.nodes) - 1

    def _handedness_fix(self) -> np.ndarray:
        """A mirror across the camera's y-z plane when pbrt's image x (camera +x) is opposite Falcor's
        image x (cross(forward, up)); else the identity."""
        camera_from_world = self.scene.camera.ctm if self.scene.camera is not None else np.eye(4)
        world_from_camera = np.linalg.inv(camera_from_world)
        if np.linalg.det(world_from_camera[:3, :3]) < 0:
            return np.eye(4)
        return world_from_camera @ np.diag([-1.0, 1.0, 1.0, 1.0]) @ camera_from_world

    # -- materials --
    def _material_of(self, entity: Entity):
        ref = entity.material
        if ref is None:
            return self._default_material()
        if ref[0] == "named":
            if ref[1] not in self.named:
                raise error(ref[2], f"line {ref[3]}: NamedMaterial '{ref[1]}' is not defined")
            return self.named[ref[1]]
        return self.anonymous[ref[1]]

    def _default_material(self):
        if "__default__" not in self.named:
            from ...math_types import float4
            from ..material import PBRTDiffuseMaterial
            m = PBRTDiffuseMaterial("Default")
            m.baseColor = float4(0.5, 0.5, 0.5, 1.0)
            m.doubleSided = True
            self.named["__default__"] = m
        return self.named["__default__"]

    def _index(self, material) -> int:
        key = id(material)
        if key not in self.material_index:
            self.out.materials.append(material)
            self.material_index[key] = len(self.out.materials) - 1
        return self.material_index[key]

    def _shape_material(self, entity: Entity) -> int | None:
        base = self._material_of(entity)
        if entity.area_light is None:
            if base is None:
                warn_once(f"{entity.where}: shape with the 'interface' material is skipped (it only bounds media)")
                return None
            return self._index(base)
        key = (id(base), id(entity.area_light))
        if key not in self.emissive:
            name = f"{getattr(base, 'name', 'Light')}_Emissive{len(self.emissive)}"
            self.emissive[key] = self._index(emissive_material(base, entity.params, entity.area_light, self.ctx, name))
        return self.emissive[key]

    # -- shapes --
    def _geometry(self, entity: Entity):
        kind, params = entity.kind, entity.params
        makers = {"trianglemesh": shapes.trianglemesh, "bilinearmesh": shapes.bilinearmesh, "sphere": shapes.sphere,
                  "disk": shapes.disk, "cylinder": shapes.cylinder, "loopsubdiv": shapes.loopsubdiv,
                  "plymesh": lambda p, w: shapes.plymesh(p, self._resolve, w)}
        if kind == "curve":
            warn_once(f"{entity.where}: curve shapes are skipped (no curve primitive)")
            return None
        if kind not in makers:
            warn_once(f"{entity.where}: shape '{kind}' is skipped (not supported)")
            return None
        if params.has("alpha"):
            warn_once(f"{params.where('alpha')}: shape 'alpha' is skipped")
        g = makers[kind](params, warn_once)
        shapes.check_finite(g, params, kind)
        return g

    def _add_shape(self, entity: Entity, parent: int | None, name_prefix: str = "") -> int | None:
        """The shape as a mesh with its CTM baked in (and the handedness fix unless it belongs to an
        object, whose instances carry it), instanced under `parent`; the mesh index."""
        material = self._shape_material(entity)
        if material is None:
            return None
        g = self._geometry(entity)
        if g is None or len(g.triangles) == 0:
            return None
        ctm = entity.ctm if parent is None else self.world_fix @ entity.ctm
        with np.errstate(over="ignore", invalid="ignore"):
            mesh = _baked_mesh(g, ctm, entity.reverse, f"{name_prefix}{entity.kind}{len(self.out.meshes)}", material, entity.where)
        if len(mesh.indices) == 0:
            return None
        if not (np.all(np.isfinite(mesh.positions)) and np.all(np.isfinite(mesh.normals))):
            raise error(entity.params.path, f"line {entity.params.line}: shape '{entity.kind}': its vertices are beyond "
                        "float range once transformed")
        self.out.meshes.append(mesh)
        index = len(self.out.meshes) - 1
        if parent is not None:
            self.out.nodes[parent].meshes.append(index)
        return index

    def _add_instances(self, root: int):
        definitions: dict[str, list[int]] = {}
        for name, ctm, params in self.scene.instances:
            if name not in self.scene.objects:
                raise error(params.path, f"line {params.line}: ObjectInstance '{name}' is not defined")
            if name not in definitions:
                meshes = [self._add_shape(e, None, f"{name}.") for e in self.scene.objects[name]]
                definitions[name] = [m for m in meshes if m is not None]
            node = self._node(f"{name}.instance", root, self.world_fix @ ctm)
            self.out.nodes[node].meshes.extend(definitions[name])

    # -- camera --
    def _add_camera(self):
        entity = self.scene.camera
        aspect = self._film_aspect()
        camera = FalcorCamera("Camera")
        world_from_camera = self.world_fix @ np.linalg.inv(entity.ctm if entity is not None else np.eye(4))
        position = world_from_camera @ np.array([0.0, 0.0, 0.0, 1.0])
        forward = world_from_camera[:3, 2] / np.linalg.norm(world_from_camera[:3, 2])
        up = world_from_camera[:3, 1] / np.linalg.norm(world_from_camera[:3, 1])
        camera.position = float3(*position[:3])
        camera.target = float3(*(position[:3] + forward))
        camera.up = float3(*up)
        params = entity.params if entity is not None else None
        if entity is not None and entity.kind != "perspective":
            warn_once(f"{entity.where}: camera '{entity.kind}' is not supported; a perspective camera with fov 90 is used")
            params = None
        fov = math.radians(params.float("fov", 90.0) if params is not None else 90.0)
        if params is not None:
            aspect = params.float("frameaspectratio", aspect)
            camera.apertureRadius = params.float("lensradius", 0.0)
            camera.focalDistance = params.float("focaldistance", 1e6)
            if params.has("screenwindow"):
                warn_once(f"{params.where('screenwindow')}: camera 'screenwindow' is skipped")
        if not (0.0 < fov < math.pi):
            message = "camera fov must be between 0 and 180 degrees"
            raise _fail(entity, message) if entity is not None else error(self.scene.path, message)
        fov_y = fov if aspect >= 1.0 else 2.0 * math.atan(math.tan(0.5 * fov) / aspect)
        camera.aspectRatio = aspect
        camera.frameHeight = FRAME_HEIGHT
        camera.focalLength = FRAME_HEIGHT / (2.0 * math.tan(0.5 * fov_y))
        camera.farPlane = self._far_plane(position[:3])
        self.out.cameras.append(camera)

    def _film_aspect(self) -> float:
        film = self.scene.film
        x = film.params.int("xresolution", 1280) if film else 1280
        y = film.params.int("yresolution", 720) if film else 720
        if film is not None and (x <= 0 or y <= 0):
            raise _fail(film, "film resolution must be positive")
        return x / y

    def _far_plane(self, eye: np.ndarray) -> float:
        """Falcor's default far plane (1000) unless the scene reaches further from the camera."""
        farthest = 0.0
        for mesh in self.out.meshes:
            if len(mesh.positions):  # the farthest corner of the mesh's bounds
                far_corner = np.maximum(np.abs(mesh.positions.min(axis=0) - eye), np.abs(mesh.positions.max(axis=0) - eye))
                farthest = max(farthest, float(np.linalg.norm(far_corner.astype(np.float64))))
        return float(max(1000.0, 2.0 * farthest)) if math.isfinite(farthest) else 1000.0

    # -- lights --
    def _light_point(self, ctm: np.ndarray, p) -> np.ndarray:
        return (self.world_fix @ ctm @ np.array([*p, 1.0]))[:3]

    def _light_vector(self, entity: Entity, v) -> np.ndarray:
        d = (self.world_fix @ entity.ctm)[:3, :3] @ np.asarray(v, np.float64)
        n = np.linalg.norm(d)
        if not (n > 0 and math.isfinite(n)):
            raise _fail(entity, f"light '{entity.kind}': its direction is zero or not finite")
        return d / n

    def _add_light(self, entity: Entity):
        handler = {"distant": self._distant, "point": self._point, "spot": self._point, "infinite": self._infinite}.get(entity.kind)
        if handler is None:
            warn_once(f"{entity.where}: light '{entity.kind}' is skipped (not supported)")
            return
        handler(entity)

    def _distant(self, entity: Entity):
        p = entity.params
        L = np.array(self.ctx.rgb(p, "L", (1.0, 1.0, 1.0))) * p.float("scale", 1.0)
        if p.float("illuminance", -1.0) > 0:
            L = L * p.float("illuminance", -1.0)
        light = DirectionalLight(f"DistantLight{len(self.out.lights)}")
        light.intensity = float3(*L)
        frm, to = _point3(p, "from", (0, 0, 0)), _point3(p, "to", (0, 0, 1))
        light.direction = float3(*self._light_vector(entity, to - frm))
        self.out.lights.append(light)

    def _point(self, entity: Entity):
        p = entity.params
        intensity = np.array(self.ctx.rgb(p, "I", (1.0, 1.0, 1.0))) * p.float("scale", 1.0)
        light = PointLight(f"{entity.kind.capitalize()}Light{len(self.out.lights)}")
        frm = _point3(p, "from", (0, 0, 0))
        light.position = float3(*self._light_point(entity.ctm, frm))
        solid_angle = 4.0 * math.pi
        if entity.kind == "spot":
            cone = float(np.clip(p.float("coneangle", 30.0), 0.0, 180.0))
            delta = float(np.clip(p.float("conedeltaangle", 5.0), 0.0, cone))
            light.direction = float3(*self._light_vector(entity, _point3(p, "to", (0, 0, 1)) - frm))
            light.openingAngle = math.radians(cone)
            light.penumbraAngle = math.radians(delta)
            solid_angle = 2.0 * math.pi * (1.0 - 0.5 * (math.cos(math.radians(cone - delta)) + math.cos(math.radians(cone))))
        if p.float("power", -1.0) > 0 and solid_angle > 0:
            intensity = intensity * p.float("power", -1.0) / solid_angle
        light.intensity = float3(*intensity)
        self.out.lights.append(light)

    def _infinite(self, entity: Entity):
        p = entity.params
        if self.out.env_map is not None:
            warn_once(f"{entity.where}: a second infinite light is skipped (one environment map)")
            return
        if p.has("L") and p.has("filename"):
            raise _fail(entity, "infinite light with both 'L' and 'filename'")
        for skipped in ("portal", "illuminance"):
            if p.has(skipped):
                warn_once(f"{p.where(skipped)}: infinite light '{skipped}' is skipped")
        if p.has("filename"):
            env = self._env_from_image(entity, p.string("filename"))
        else:
            texel = np.array(self.ctx.rgb(p, "L", (1.0, 1.0, 1.0)), np.float32).reshape(1, 1, 3)
            env = EnvMap.from_texels(texel, f"{entity.where}:infinite")
        env.intensity = p.float("scale", 1.0)
        self.out.env_map = env

    def _env_from_image(self, entity: Entity, filename: str) -> EnvMap:
        from ...image_io import read_image
        from ..asset_log import record_asset

        path = self._resolve(filename)
        try:
            pixels, _ = read_image(path)
        except Exception as e:  # noqa: BLE001 - the image readers raise several kinds; all mean "not an image"
            raise _fail(entity, f"can't read environment image '{filename}': {e}") from None
        record_asset(path)
        image = np.asarray(pixels)[..., :3].astype(np.float32)
        if np.issubdtype(np.asarray(pixels).dtype, np.integer):
            image = image / float(np.iinfo(np.asarray(pixels).dtype).max)
            image = np.where(image <= 0.04045, image / 12.92, ((image + 0.055) / 1.055) ** 2.4)
        if image.shape[0] != image.shape[1]:
            raise _fail(entity, f"environment image '{filename}' is {image.shape[1]}x{image.shape[0]}; "
                        "pbrt-v4 needs a square equal-area octahedral image")
        light_from_world = np.linalg.inv((self.world_fix @ entity.ctm)[:3, :3])
        warn_once(f"{entity.where}: environment image '{filename}' is converted from equal-area octahedral to lat-long")
        return EnvMap.from_texels(octahedral_to_latlong(image, light_from_world), str(path))


def _fail(entity: Entity, message: str):
    return error(entity.params.path, f"line {entity.params.line}: {message}")


def _point3(params, name: str, default) -> np.ndarray:
    v = params.array(name)
    if v is None or len(v) == 0:
        return np.array(default, np.float64)
    if len(v) != 3:
        raise params.fail(name, f"'{name}' needs 3 values")
    return v


def _facing_flips(p: np.ndarray, tri: np.ndarray, normals: np.ndarray | None, reverse: bool) -> np.ndarray:
    """Which triangles to rewind so Falcor's front face (counter-clockwise) is pbrt's surface normal side:
    the side of the vertex normals when there are some, else the winding's side, flipped by ReverseOrientation."""
    if normals is None:
        return np.full(len(tri), reverse)
    a, b, c = p[tri[:, 0]], p[tri[:, 1]], p[tri[:, 2]]
    e1, e2 = b - a, c - a
    shading = normals[tri[:, 0]] + normals[tri[:, 1]] + normals[tri[:, 2]]
    # dot(cross(e1, e2), shading), by components (np.cross is several times slower on large arrays)
    dot = ((e1[:, 1] * e2[:, 2] - e1[:, 2] * e2[:, 1]) * shading[:, 0] + (e1[:, 2] * e2[:, 0] - e1[:, 0] * e2[:, 2]) * shading[:, 1]
           + (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0]) * shading[:, 2])
    return dot < 0


def _baked_mesh(g: shapes.Geometry, ctm: np.ndarray, reverse: bool, name: str, material: int, where: str) -> ir.Mesh:
    """Triangles turned to face pbrt's surface normal, then moved to world space by the CTM (a transform
    that mirrors rewinds them all, so the front stays on the same side of the surface)."""
    normals = None if g.normals is None else (-g.normals if reverse else g.normals)
    linear = ctm[:3, :3]
    det = float(np.linalg.det(linear))
    flip = _facing_flips(g.positions, g.triangles, normals, reverse) ^ (det < 0)
    tri = g.triangles.copy()
    if flip.any():
        tri[flip] = tri[flip][:, ::-1]
    if not math.isfinite(det) or det == 0:
        warn_once(f"{where}: shape '{name}' is skipped (its transform is singular)")
        tri = tri[:0]
    identity = np.array_equal(ctm, np.eye(4))
    positions = g.positions if identity else g.positions @ linear.T + ctm[:3, 3]
    uv = None if g.texcoords is None else np.column_stack([g.texcoords[:, 0], 1.0 - g.texcoords[:, 1]]).astype(np.float32)
    if normals is None:
        positions32, n32, uv, idx = ir.flat_shaded(positions.astype(np.float32), tri.astype(np.uint32), uv)
        return ir.Mesh(name, positions32, n32, idx, material, uv)
    if not identity and len(tri):
        normals = normals @ np.linalg.inv(linear)  # row vectors: n' = M^-T n
    length = np.sqrt(np.einsum("ij,ij->i", normals, normals))[:, None]
    normals = np.divide(normals, length, out=np.zeros_like(normals), where=length > 0)
    return ir.Mesh(name, positions.astype(np.float32), normals.astype(np.float32), tri.astype(np.uint32), material, uv)


register_importer(["pbrt"], import_pbrt)
