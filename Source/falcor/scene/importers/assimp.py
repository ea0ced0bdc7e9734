"""Importer of the formats Falcor 8 reads through Assimp (FBX, Collada, DirectX .x, 3DS, Blender, ...).

The file is read by the Open Asset Import Library (the `cmeel-assimp` wheel's libassimp, the library
Falcor itself uses) in a small extension module, `falcor._assimp_reader`, imported on the first read
so `import falcor` never loads libassimp. It applies Falcor's post-processing (triangulate, smooth
normals, join identical vertices, find instances, merge meshes unless the builder's DontMergeMeshes
flag is set, flip UVs to a top-left origin, ...) and hands back plain data; this module maps it
to the importer IR as Falcor 8's AssimpImporter maps an aiScene (glTF, OBJ and PLY keep their own
importers; Falcor's glTF/OBJ special cases are not needed here):

- Nodes: the aiNode tree with its matrices (FBX pivots and geometric transforms arrive as Assimp's
  `<name>_$AssimpFbx$_*` helper nodes); a mesh referenced by several nodes is instanced.
- Meshes: triangles only (a point or line mesh is skipped with Falcor's warning); the first UV set.
- Materials (StandardMaterial, MetalRough): diffuse colour -> baseColor RGB, opacity -> baseColor
  alpha and, below 1, specularTransmission = 1 - opacity; specular colour -> specularParams RGB and
  shininess -> specularParams A (Falcor's raw copy, whatever the shading model makes of them);
  emissive colour -> emissiveColor; refraction index -> indexOfRefraction; two-sided or a
  ".doubleSided" name token -> doubleSided. Textures: diffuse -> BaseColor, specular -> Specular,
  emissive -> Emissive, normals -> Normal, at the scene file's folder joined with the path
  ('\\' read as '/'). Beyond Falcor: textures embedded in the file (FBX's) are loaded.
- Cameras: placed by their node (focal length fixed at 35 mm as Falcor does for every format but glTF;
  the file's aspect ratio, near and far). Falcor uses the camera's view matrix as its local transform,
  which turns cameras that look down +X (all FBX cameras) backwards; the inverse is used here. An animated
  camera's `_$AssimpFbx$_` ancestors are set to identity (Falcor's fix-up).
- Lights: directional -> DirectionalLight, point and spot -> PointLight (opening angle = outer cone,
  penumbra = outer - inner); intensity = the light's specular colour; other kinds are skipped.
- Animations: position/rotation/scale keys become channels in seconds (ticks / ticksPerSecond, 25
  ticks per second when the file gives none; a negative first key time becomes 0), applied to every
  node of the channel's name, interpolated linearly.
- Skinning: a mesh's bones become its `Skin`: each bone names its joint node, its offset matrix is
  the joint's inverse bind matrix, and every non-zero weight of a vertex is kept (Falcor keeps
  Assimp's 4 largest per vertex and normalizes them; the engine divides by the sum too). Bone
  animation is node animation (above).
"""
from __future__ import annotations

import importlib
import importlib.util
import io
import math
from pathlib import Path

import numpy as np

from ...falcor_ext import Logger
from ..asset_log import record_asset
from . import _assimp_checks
from ._assimp_process import read_in_child
from . import _imported as ir
from . import error, register_importer

# Falcor 8's AssimpImporter extensions, less those our own importers read (gltf, glb, obj, ply).
EXTENSIONS = ["fbx", "dae", "x", "md5mesh", "3ds", "blend", "ase", "ifc", "xgl", "zgl", "dxf", "lwo", "lws", "lxo",
              "stl", "ac", "ms3d", "cob", "scn", "3d", "mdl", "mdl2", "pk3", "smd", "vta", "raw", "ter"]

# aiTextureType -> Falcor texture slot (Falcor's default mapping table).
_TEXTURE_SLOTS = ((1, "BaseColor"), (2, "Specular"), (4, "Emissive"), (6, "Normal"))
_DIRECTIONAL, _POINT, _SPOT = 1, 2, 3  # aiLightSourceType
_FBX_FOCAL_LENGTH = 35.0  # mm; Falcor's fixed focal length for Assimp cameras (glTF aside)
_FRAME_HEIGHT = 24.0  # mm; Falcor's default camera frame height
_DEFAULT_TICKS_PER_SECOND = 25.0


def load_assimp(path, merge_meshes: bool = True) -> ir.ImportedScene:
    """Read a scene file with Assimp; raises falcor.ImporterError naming the file if it can't be read."""
    path = ir.require_file(Path(path), "scene file")
    result = _read(path, merge_meshes)
    return _SceneMapper(path, result["scene"]).map()


def import_assimp(path, builder, dict_=None):
    merge = not (builder.flags & type(builder.flags).DontMergeMeshes)
    ir.add_to_scene_builder(load_assimp(path, merge), builder)


# --- reading --------------------------------------------------------------------------------------


def reader(path=None):
    """falcor._assimp_reader, imported (tests call it directly; the importer runs it in a child)."""
    try:
        return importlib.import_module("falcor._assimp_reader")
    except ImportError as e:
        raise error(path, _MISSING_READER.format(e)) from e


def reader_file(path=None) -> str:
    """Where falcor._assimp_reader is, without loading libassimp into this process."""
    spec = importlib.util.find_spec("falcor._assimp_reader")
    if spec is None or not spec.origin:
        raise error(path, _MISSING_READER.format("no module falcor._assimp_reader"))
    return spec.origin


_MISSING_READER = ("Assimp formats need the Assimp reader, which is unavailable ({}); "
                   "install the package with its dependencies (pip install cmeel-assimp)")


def _read(path: Path, merge_meshes: bool) -> dict:
    problem = _assimp_checks.check(path)
    if problem is not None:
        raise error(path, problem)
    try:
        # Only files in the scene's folder and below may be opened (secondary files some formats name).
        result = read_in_child(reader_file(path), path, [str(path.parent)], merge_meshes)
    except (OSError, ValueError) as e:  # the child could not be started, or its result is malformed
        raise error(path, f"Assimp failed to read it ({type(e).__name__}: {e})") from e
    for opened in dict.fromkeys(result["files"]):
        record_asset(opened)
    for refused in dict.fromkeys(result["refused"]):
        Logger.log_once(Logger.Level.Warning, f"'{path}': the file '{refused}' it refers to is not read (only "
                                              "regular files in the scene's folder and below are opened).")
    if result["error"] is not None:
        raise error(path, f"Assimp can't read it: {result['error']}")
    return result


# --- mapping --------------------------------------------------------------------------------------


class _SceneMapper:
    def __init__(self, path: Path, data: dict):
        self.path = path
        self.data = data
        self.scene = ir.ImportedScene(path)
        self.mesh_map: dict[int, int] = {}  # Assimp mesh index -> scene mesh index (skipped meshes absent)
        self.nodes_by_name: dict[str, list[int]] = {}
        self.skins: list[tuple[int, dict]] = []  # (scene mesh index, the reader's skin) of skinned meshes

    def map(self) -> ir.ImportedScene:
        # (The reader gives None for a null pointer in the aiScene's arrays; Assimp leaves none in a valid scene.)
        materials = self.data["materials"]
        self.scene.materials = [self._material(m or [], i) for i, m in enumerate(materials)]
        for index, mesh in enumerate(self.data["meshes"]):
            if mesh is not None:
                self._add_mesh(index, mesh, len(materials))
        self._add_nodes()
        self._add_skins()
        for index, animation in enumerate(self.data["animations"]):
            if animation is not None:
                self._add_animation(index, animation)
        for camera in filter(None, self.data["cameras"]):
            self._add_camera(camera)
        for light in filter(None, self.data["lights"]):
            self._add_light(light)
        return self.scene

    def _warn(self, message: str):
        Logger.log_once(Logger.Level.Warning, f"'{self.path}': {message}")

    # --- nodes and meshes ---

    def _add_nodes(self):
        for index, node in enumerate(self.data["nodes"]):
            matrix = np.asarray(node["matrix"], float)
            if not np.isfinite(matrix).all():
                raise error(self.path, f"node '{node['name']}' has a non-finite transform")
            meshes = [self.mesh_map[m] for m in node["meshes"] if m in self.mesh_map]
            if any(m >= len(self.data["meshes"]) for m in node["meshes"]):
                raise error(self.path, f"node '{node['name']}' refers to a mesh that does not exist")
            self.scene.nodes.append(ir.Node(node["name"], node["parent"], matrix, meshes))
            self.nodes_by_name.setdefault(node["name"], []).append(index)

    def _add_mesh(self, index: int, mesh: dict, material_count: int):
        name = mesh["name"] or f"meshes[{index}]"
        if mesh["faces"] is None or mesh["positions"] is None or not len(mesh["faces"]):
            self._warn(f"mesh '{name}' is not a triangle mesh (points or lines, or no faces); it is ignored.")
            return
        if not 0 <= mesh["material"] < material_count:
            raise error(self.path, f"mesh '{name}' refers to material {mesh['material']}, which does not exist")
        positions, normals, faces = mesh["positions"], mesh["normals"], mesh["faces"]
        ir.check_indices(self.path, faces, len(positions))
        if not np.isfinite(positions).all():
            raise error(self.path, f"mesh '{name}' has non-finite vertex positions")
        if mesh["morph_targets"]:
            self._warn(f"mesh '{name}' has morph targets, which are not supported; they are ignored.")
        texcoords, skin = mesh["texcoords"], mesh["skin"]
        if skin is not None:
            self._check_skin(name, skin, len(positions))
        if normals is None or not np.isfinite(normals).all():
            corners = faces.reshape(-1)  # the source vertex of each expanded one
            positions, normals, texcoords, faces = ir.flat_shaded(positions, faces, texcoords)
            if skin is not None:
                skin = dict(skin, joint_indices=skin["joint_indices"][corners], weights=skin["weights"][corners])
        self.mesh_map[index] = len(self.scene.meshes)
        if skin is not None:
            self.skins.append((len(self.scene.meshes), skin))
        self.scene.meshes.append(ir.Mesh(name, positions, normals, faces, mesh["material"], texcoords))

    def _check_skin(self, name: str, skin: dict, vertex_count: int):
        """The reader's skin arrays must fit the mesh and each other before they are indexed (they
        crossed a process boundary); their values are checked by the engine's MeshSkin."""
        offsets, joints, weights = skin["offsets"], skin["joint_indices"], skin["weights"]
        if (offsets.shape != (len(skin["bones"]), 4, 4) or joints.ndim != 2 or joints.shape != weights.shape
                or len(joints) != vertex_count or joints.dtype.kind not in "iu"):
            raise error(self.path, f"mesh '{name}': Assimp's bone arrays do not match the mesh")

    def _add_skins(self):
        """Each skinned mesh's Skin, once the nodes its bones name are known."""
        for mesh_index, skin in self.skins:
            mesh = self.scene.meshes[mesh_index]
            joints = []
            for bone in skin["bones"]:
                nodes = self.nodes_by_name.get(bone)
                if not nodes:
                    raise error(self.path, f"mesh '{mesh.name}': bone '{bone}' names no node of the scene")
                if len(nodes) > 1:
                    self._warn(f"bone '{bone}' names {len(nodes)} nodes; the first is its joint (as in Falcor).")
                joints.append(nodes[0])
            mesh.skin = ir.Skin(joints, np.asarray(skin["offsets"], np.float64),
                                skin["joint_indices"], np.asarray(skin["weights"], np.float32))

    # --- materials ---

    def _material(self, properties: list, index: int) -> ir.Material:
        values = {(key, semantic, i): value for key, semantic, i, value in properties}

        def get(key, semantic=0):
            return values.get((key, semantic, 0))

        name = get("?mat.name") or ""
        if not isinstance(name, str) or not name:
            self._warn(f"material {index} has no name; it is named 'unnamed' (as in Falcor).")
            name = "unnamed"
        base = [1.0, 1.0, 1.0, 1.0]
        specular = [0.0, 0.0, 0.0, 0.0]
        opacity = _scalar(get("$mat.opacity"), 1.0)
        base[3] = opacity
        specular[3] = _scalar(get("$mat.shininess"), 0.0)
        base[:3] = _color(get("$clr.diffuse"), base[:3])
        specular[:3] = _color(get("$clr.specular"), specular[:3])
        two_sided = get("$mat.twosided")
        self._check_name_tokens(name)
        return ir.Material(
            name=name,
            base_color=tuple(base),
            specular_params=tuple(specular),
            emissive_color=tuple(_color(get("$clr.emissive"), [0.0, 0.0, 0.0])),
            index_of_refraction=_scalar(get("$mat.refracti"), None),
            specular_transmission=1.0 - opacity if opacity < 1.0 else 0.0,
            double_sided=bool(two_sided and two_sided[0]) or ir.name_says_double_sided(name),
            textures=self._textures(get, name))

    def _check_name_tokens(self, name: str):
        for token in name.split(".")[1:]:
            if token.lower() != "doublesided":
                self._warn(f"material '{name}' has an unknown material property: '{token}' (Falcor reads "
                           "tokens after '.' in a material name as flags).")

    def _textures(self, get, material_name: str) -> dict:
        textures: dict[str, Path | ir.EmbeddedImage] = {}
        for ai_type, slot in _TEXTURE_SLOTS:
            file = get("$tex.file", ai_type)
            if not isinstance(file, str):
                continue
            if not file:
                self._warn(f"material '{material_name}' has a {slot} texture with an empty file name; it is ignored.")
                continue
            embedded = self._embedded_texture(file)
            textures[slot] = embedded if embedded is not None else self.path.parent / file.replace("\\", "/")
        return textures

    def _embedded_texture(self, file: str) -> ir.EmbeddedImage | None:
        """The texture the file holds for a "*N" reference or a path named like an embedded one (Assimp's rule)."""
        embedded = self.data["textures"]
        texture = None
        if file.startswith("*"):
            index = int(file[1:]) if file[1:].isdigit() else -1
            texture = embedded[index] if 0 <= index < len(embedded) else None
        else:
            short = _short_name(file)
            texture = next((t for t in embedded if t is not None and _short_name(t["filename"]) == short), None)
        if texture is None:
            return None
        return ir.EmbeddedImage(f"{self.path}:{texture['filename'] or file}", _image_bytes(texture))

    # --- cameras and lights ---

    def _anchor(self, name: str, suffix: str, local: np.ndarray) -> int:
        """A node holding `local` below the first node named `name` (at the root if there is none)."""
        parents = self.nodes_by_name.get(name)
        self.scene.nodes.append(ir.Node(f"{name}.{suffix}", parents[0] if parents else None, local))
        return len(self.scene.nodes) - 1

    def _add_camera(self, c: dict):
        position, look_at, up = (np.asarray(c[k], float) for k in ("position", "look_at", "up"))
        camera_to_node = _frame(position, look_at, up)
        if camera_to_node is None or not all(math.isfinite(c[k]) for k in ("near", "far", "aspect")):
            self._warn(f"camera '{c['name']}' has an invalid frame or clip range; it is ignored.")
            return
        if self._node_is_animated(c["name"]):
            self._reset_fbx_helpers(c["name"])
        node = self._anchor(c["name"], "LocalTransform", camera_to_node)
        fov_y = 2.0 * math.atan(0.5 * _FRAME_HEIGHT / _FBX_FOCAL_LENGTH)
        self.scene.cameras.append(ir.Camera(c["name"], node, fov_y=fov_y, near=c["near"], far=c["far"],
                                            aspect_ratio=c["aspect"] or None))

    def _node_is_animated(self, name: str) -> bool:
        return any(ch["node"] == name for a in filter(None, self.data["animations"]) for ch in a["channels"])

    def _reset_fbx_helpers(self, name: str):
        """Falcor's fix-up of Assimp's animated FBX cameras: the helper ancestors hold the rest pose again."""
        for index in self.nodes_by_name.get(name, [])[:1]:
            parent = self.scene.nodes[index].parent
            while parent is not None and self.scene.nodes[parent].name.startswith(f"{name}_$AssimpFbx$_"):
                self.scene.nodes[parent].matrix = np.eye(4)
                parent = self.scene.nodes[parent].parent

    def _add_light(self, l: dict):
        kind = {_DIRECTIONAL: "directional", _POINT: "point", _SPOT: "point"}.get(l["type"])
        if kind is None:
            self._warn(f"light '{l['name']}' has unsupported type {l['type']}; it is ignored (as in Falcor).")
            return
        position = np.zeros(3) if kind == "directional" else np.asarray(l["position"], float)
        direction = np.asarray(l["direction"], float)
        if not np.any(direction):
            direction = np.array([0.0, 0.0, -1.0])  # Falcor's default for lights that give none (glTF)
        frame = _frame(position, direction, np.asarray(l["up"], float))
        intensity = tuple(float(v) for v in l["specular"])
        if frame is None or not all(math.isfinite(v) for v in intensity):
            self._warn(f"light '{l['name']}' has an invalid direction or intensity; it is ignored.")
            return
        node = self._anchor(l["name"], "BaseMatrix", frame)
        outer = min(float(l["outer_cone"]), math.pi) if math.isfinite(l["outer_cone"]) else math.pi
        inner = float(l["inner_cone"]) if math.isfinite(l["inner_cone"]) else outer
        self.scene.lights.append(ir.Light(l["name"], node, kind, intensity, opening_angle=outer,
                                          penumbra_angle=max(0.0, min(outer, outer - inner))))

    # --- animations ---

    def _add_animation(self, index: int, animation: dict):
        ticks = animation["ticks_per_second"] or _DEFAULT_TICKS_PER_SECOND
        if not math.isfinite(ticks) or ticks <= 0:
            ticks = _DEFAULT_TICKS_PER_SECOND
        if animation["mesh_channels"]:
            self._warn(f"animation '{animation['name']}' animates meshes (morphing), which is not supported.")
        channels = []
        for channel in animation["channels"]:
            for node in self.nodes_by_name.get(channel["node"], []):
                for path in ("translation", "rotation", "scale"):
                    times, values = channel[path]
                    keys = _keys(times, values, ticks)
                    if keys is not None:
                        channels.append(ir.Channel(node, path, *keys))
        if channels:
            self.scene.animations.append(ir.Animation(animation["name"] or f"animations[{index}]", channels))


# --- helpers --------------------------------------------------------------------------------------


def _keys(times: np.ndarray, values: np.ndarray, ticks: float):
    """(seconds, values) of one property's keys: finite, strictly increasing, the first not negative."""
    if not len(times):
        return None
    keep = np.isfinite(times) & np.isfinite(values).all(axis=1)
    times, values = times[keep] / ticks, values[keep]
    if not len(times):
        return None
    times[0] = max(times[0], 0.0)
    increasing = np.concatenate(([True], times[1:] > np.maximum.accumulate(times)[:-1]))
    times, values = times[increasing], values[increasing]
    if values.shape[1] == 4:  # quaternions: unit length (a zero one becomes the identity)
        norms = np.linalg.norm(values, axis=1, keepdims=True)
        values = np.where(norms > 0, values / np.where(norms > 0, norms, 1.0), [0.0, 0.0, 0.0, 1.0])
    return times, values


def _frame(position, forward, up) -> np.ndarray | None:
    """The node-space matrix of a camera or light at `position` looking along `forward` (-Z) with
    `up` (+Y) as near as possible; None if the vectors can't make a frame."""
    if not (np.isfinite(position).all() and np.isfinite(forward).all() and np.isfinite(up).all()):
        return None
    f_len = np.linalg.norm(forward)
    if f_len == 0:
        return None
    f = forward / f_len
    right = np.cross(f, up)
    if np.linalg.norm(right) < 1e-9:  # up parallel to the direction: any perpendicular will do
        right = np.cross(f, [0.0, 1.0, 0.0] if abs(f[1]) < 0.9 else [1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    matrix = np.eye(4)
    matrix[:3, 0], matrix[:3, 1], matrix[:3, 2], matrix[:3, 3] = right, np.cross(right, f), -f, position
    return matrix


def _scalar(value, default):
    return float(value[0]) if isinstance(value, list) and value and math.isfinite(value[0]) else default


def _color(value, default) -> list:
    if isinstance(value, list) and len(value) >= 3 and all(math.isfinite(v) for v in value[:3]):
        return [float(v) for v in value[:3]]
    return list(default)


def _short_name(file: str) -> str:
    return file.replace("\\", "/").rsplit("/", 1)[-1]


def _image_bytes(texture: dict) -> bytes:
    """An embedded texture as image file bytes: as stored, or texels (BGRA) encoded as PNG."""
    data = texture["data"]
    if isinstance(data, bytes):
        return data
    from PIL import Image

    rgba = np.ascontiguousarray(data[:, :, [2, 1, 0, 3]])
    out = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(out, format="PNG")
    return out.getvalue()


register_importer(EXTENSIONS, import_assimp)
