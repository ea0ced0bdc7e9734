"""glTF 2.0 importer (.gltf, .glb).

pygltflib reads the container (JSON, GLB chunks); this module decodes accessors with numpy and maps the
asset to Falcor's scene as Falcor 8's Assimp-based importer does:

- Texture coordinates: glTF's origin is the image's top-left, as Falcor's; they pass through unchanged.
- Materials (metal-rough StandardMaterial): baseColorFactor -> baseColor (alpha = opacity; opacity < 1 also
  sets specularTransmission = 1 - opacity, Falcor's workaround); specularParams = (0, roughness, metallic,
  1000 * (1 - roughness)^2) (the last is the Phong shininess Assimp derives and Falcor stores; unused by
  MetalRough); emissiveFactor -> emissiveColor; doubleSided, or a ".doubleSided" token in the name;
  KHR_materials_ior -> indexOfRefraction. Textures: baseColor -> BaseColor, metallicRoughness -> Specular
  (glTF packs roughness in G and metallic in B, which is the MetalRough specular layout; R, occlusion, is
  unused), normal -> Normal, emissive -> Emissive; occlusion textures are ignored as in Falcor. Beyond
  Falcor, which skips them with a warning: images embedded in the file (data URIs, GLB buffer views) are
  loaded.
  Beyond Falcor: alphaMode MASK sets alphaThreshold = alphaCutoff (Falcor keeps 0.5, glTF's default cutoff).
- Primitives without a material get glTF's default material (white, metallic 1, roughness 1).
- Missing normals are generated flat (glTF's rule; Falcor's Assimp path smooths them instead).
- Cameras (named after their node): focalLength from yfov for the camera's frameHeight (24 mm), aspectRatio
  if given, near = znear, far = zfar or 100 (Assimp's default). Placement comes from the node's world
  transform (looking down -Z, +Y up). Orthographic cameras become Falcor orthographic cameras (focal length
  0) whose half view size is ymag.
- KHR_lights_punctual (named after their node): intensity = color * intensity, no unit conversion (Falcor
  uses the glTF value as radiance). point -> PointLight; spot -> PointLight with openingAngle = outerConeAngle
  and penumbraAngle = outer - inner; directional -> DirectionalLight. Position and direction (-Z) come from
  the node's world transform; `range` is ignored, as in Falcor.
- Animations: translation/rotation/scale channels become one Falcor Animation per (glTF animation, node),
  named "<node name>.<k>" as Falcor names them; see _imported.keyframe_times for how STEP and CUBICSPLINE
  are represented with Falcor's linear keyframes. Morph weights are not supported (warning).
- Skins: a mesh on a node with a skin gets the skin's joints (nodes) and inverseBindMatrices (identity
  when absent) and each vertex's JOINTS_n / WEIGHTS_n influences (all sets pygltflib reads), as
  glTF defines linear blend skinning; the node's own transform does not move it. A mesh used by
  nodes with different skins (or also rigidly) is imported once per skin. The `skeleton` hint is
  not needed.
"""
from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote

import numpy as np

if TYPE_CHECKING:
    import pygltflib

from . import _imported as ir
from . import error, register_importer
from ._imported import add_to_scene_builder, warn

_COMPONENT_TYPES = {5120: np.int8, 5121: np.uint8, 5122: np.int16, 5123: np.uint16, 5125: np.uint32,
                    5126: np.float32}
_TYPE_WIDTHS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
_TRIANGLES, _TRIANGLE_STRIP, _TRIANGLE_FAN = 4, 5, 6
# Required extensions this importer can honour (or, like texture transforms, ignore as Falcor does).
_KNOWN_EXTENSIONS = {"KHR_lights_punctual", "KHR_materials_ior", "KHR_materials_emissive_strength",
                     "KHR_texture_transform", "KHR_mesh_quantization"}
# Assimp's values for absent camera parameters (Falcor's cameras get them through Assimp).
_DEFAULT_YFOV, _DEFAULT_ZNEAR, _DEFAULT_ZFAR = math.pi / 2, 0.01, 100.0
_TEXTURE_SLOTS = (("BaseColor", lambda m: m.pbrMetallicRoughness and m.pbrMetallicRoughness.baseColorTexture),
                  ("Specular", lambda m: m.pbrMetallicRoughness and m.pbrMetallicRoughness.metallicRoughnessTexture),
                  ("Normal", lambda m: m.normalTexture),
                  ("Emissive", lambda m: m.emissiveTexture))


def load_gltf(path) -> ir.ImportedScene:
    """Parse a .gltf or .glb file; raises falcor.ImporterError naming the file if it is missing or invalid."""
    path = ir.require_file(Path(path), "glTF file")
    try:
        return _GltfParser(path).parse()
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OSError) as e:
        raise error(path, f"invalid glTF data ({type(e).__name__}: {e})") from e


def import_gltf(path, builder, dict_=None):
    add_to_scene_builder(load_gltf(path), builder)


def _read_container(path: Path) -> pygltflib.GLTF2:
    import pygltflib  # On first use, as trimesh (see _imported._tf): a tenth of `import falcor` otherwise.

    data = path.read_bytes()
    try:
        gltf = pygltflib.GLTF2.load_from_bytes(data) if data[:4] == b"glTF" else \
            pygltflib.GLTF2.gltf_from_json(data.decode("utf-8"))
    except Exception as e:  # whatever the JSON/GLB decoders reject
        raise error(path, f"not a glTF file ({type(e).__name__}: {e})") from e
    if gltf is None:
        raise error(path, "the GLB file has no JSON chunk")
    if not str(gltf.asset.version).startswith("2"):
        raise error(path, f"glTF version {gltf.asset.version} is not supported (2.x expected)")
    unsupported = sorted(set(gltf.extensionsRequired or ()) - _KNOWN_EXTENSIONS)
    if unsupported:
        raise error(path, f"the file requires unsupported glTF extensions: {', '.join(unsupported)}")
    return gltf


class _GltfParser:
    def __init__(self, path: Path):
        self.path = path
        self.gltf = _read_container(path)
        self.buffers = [self._buffer_bytes(i, b) for i, b in enumerate(self.gltf.buffers)]
        self.scene = ir.ImportedScene(path)
        self.material_map: dict[int | None, int] = {}  # glTF material index -> scene material index
        self.mesh_map: dict[int, list[int]] = {}  # glTF mesh index -> scene mesh indices (one per primitive)
        self.node_map: dict[int, int] = {}  # glTF node index -> scene node index
        self.node_skins: dict[int, int] = {}  # scene node index -> glTF skin index, for skinned nodes with meshes
        self.influences: dict[int, tuple] = {}  # scene mesh index -> (joint indices, weights) per vertex

    def parse(self) -> ir.ImportedScene:
        for root in self._root_nodes():
            self._add_node(root, None)
        self._apply_skins()
        for index, animation in enumerate(self.gltf.animations):
            self._add_animation(index, animation)
        return self.scene

    # --- binary data ---

    def _buffer_bytes(self, index: int, buffer) -> bytes:
        if buffer.uri is None:
            blob = self.gltf.binary_blob()
            if blob is None:
                raise error(self.path, f"buffer {index} has no uri and there is no GLB binary chunk")
            return blob
        if buffer.uri.startswith("data:"):
            return _data_uri_bytes(buffer.uri)
        file = ir.require_file(self.path.parent / unquote(buffer.uri), "buffer file", referenced_by=self.path)
        return file.read_bytes()

    def accessor(self, index: int) -> np.ndarray:
        """The accessor's elements as a (count, components) array; normalized integers become floats."""
        acc = self.gltf.accessors[index]
        dtype = np.dtype(_COMPONENT_TYPES[acc.componentType]).newbyteorder("<")
        width = _TYPE_WIDTHS[acc.type]
        if acc.bufferView is None:
            data = np.zeros((acc.count, width), dtype)
        else:
            data = self._view_array(acc.bufferView, acc.byteOffset or 0, acc.count, dtype, width, strided=True)
        if acc.sparse is not None:
            self._apply_sparse(acc.sparse, data)
        return _normalized(data) if acc.normalized else data

    def _apply_sparse(self, sparse, data: np.ndarray):
        index_type = np.dtype(_COMPONENT_TYPES[sparse.indices.componentType]).newbyteorder("<")
        rows = self._view_array(sparse.indices.bufferView, sparse.indices.byteOffset or 0, sparse.count,
                                index_type, 1)[:, 0]
        data[rows] = self._view_array(sparse.values.bufferView, sparse.values.byteOffset or 0, sparse.count,
                                      data.dtype, data.shape[1])

    def _view_array(self, view_index, offset, count, dtype, width, strided=False) -> np.ndarray:
        view = self.gltf.bufferViews[view_index]
        element_size = dtype.itemsize * width
        stride = (view.byteStride if strided else None) or element_size
        start = (view.byteOffset or 0) + offset
        end = start + (stride * (count - 1) + element_size if count else 0)
        buffer = self.buffers[view.buffer]
        if end > (view.byteOffset or 0) + view.byteLength or end > len(buffer):
            raise error(self.path, f"bufferView {view_index} is too short for the data read from it")
        return np.ndarray((count, width), dtype, buffer=buffer, offset=start, strides=(stride, dtype.itemsize)).copy()

    # --- node tree ---

    def _root_nodes(self) -> list[int]:
        if self.gltf.scenes:
            return self.gltf.scenes[self.gltf.scene or 0].nodes or []
        children = {c for n in self.gltf.nodes for c in (n.children or [])}
        return [i for i in range(len(self.gltf.nodes)) if i not in children]

    def _add_node(self, index: int, parent: int | None):
        if index in self.node_map:
            raise error(self.path, f"node {index} appears twice in the node hierarchy")
        node = self.gltf.nodes[index]
        scene_index = len(self.scene.nodes)
        self.node_map[index] = scene_index
        name = node.name or f"nodes[{index}]"
        self.scene.nodes.append(ir.Node(name, parent, _node_matrix(node), self._node_meshes(node)))
        if node.skin is not None and node.mesh is not None:
            self.node_skins[scene_index] = node.skin
        if node.camera is not None:
            self.scene.cameras.append(self._camera(node.camera, name, scene_index))
        light = (node.extensions or {}).get("KHR_lights_punctual", {}).get("light")
        if light is not None:
            self.scene.lights.append(self._light(light, name, scene_index))
        for child in node.children or []:
            self._add_node(child, scene_index)

    def _node_meshes(self, node) -> list[int]:
        if node.mesh is None:
            return []
        if node.mesh not in self.mesh_map:
            self.mesh_map[node.mesh] = self._add_mesh(node.mesh)
        return self.mesh_map[node.mesh]

    # --- meshes ---

    def _add_mesh(self, index: int) -> list[int]:
        mesh = self.gltf.meshes[index]
        base_name = mesh.name or f"meshes[{index}]"
        added = []
        for p, primitive in enumerate(mesh.primitives):
            name = f"{base_name}-{p}" if len(mesh.primitives) > 1 else base_name
            imported = self._primitive(primitive, name)
            if imported is not None:
                added.append(len(self.scene.meshes))
                self.scene.meshes.append(imported)
        return added

    def _primitive(self, primitive, name: str) -> ir.Mesh | None:
        mode = _TRIANGLES if primitive.mode is None else primitive.mode
        if mode not in (_TRIANGLES, _TRIANGLE_STRIP, _TRIANGLE_FAN):
            warn(f"glTF '{self.path}': mesh '{name}' is not made of triangles (mode {mode}); it is ignored.")
            return None
        attributes = primitive.attributes
        if attributes.POSITION is None:
            raise error(self.path, f"mesh '{name}' has no POSITION attribute")
        if primitive.targets:
            warn(f"glTF '{self.path}': mesh '{name}' has morph targets, which are not supported; they are ignored.")
        positions = self.accessor(attributes.POSITION).astype(np.float32)
        corners = (self.accessor(primitive.indices)[:, 0] if primitive.indices is not None
                   else np.arange(len(positions))).astype(np.uint32)
        indices = _triangle_list(corners, mode)
        if indices.size and indices.max() >= len(positions):
            raise error(self.path, f"mesh '{name}' has indices beyond its {len(positions)} vertices")
        texcoords = self._optional(attributes.TEXCOORD_0)
        material = self._material_index(primitive.material)
        influences = self._influences(attributes, name, len(positions))
        if attributes.NORMAL is None:
            corners = indices.reshape(-1)
            positions, normals, texcoords, indices = ir.flat_shaded(positions, indices, texcoords)
            mesh = ir.Mesh(name, positions, normals, indices, material, texcoords)
            if influences is not None:  # the flat-shaded vertices are the triangles' corners
                influences = (influences[0][corners], influences[1][corners])
        else:
            mesh = ir.Mesh(name, positions, self._optional(attributes.NORMAL), indices, material, texcoords,
                           self._optional(attributes.TANGENT))
        if influences is not None:
            self.influences[len(self.scene.meshes)] = influences  # the index _add_mesh gives it
        return mesh

    def _influences(self, attributes, name: str, vertex_count: int) -> tuple | None:
        """(joint indices, weights), (N, 4k) each, from the JOINTS_n / WEIGHTS_n pairs; None without any."""
        joints, weights = [], []
        for n in range(8):
            j, w = getattr(attributes, f"JOINTS_{n}", None), getattr(attributes, f"WEIGHTS_{n}", None)
            if j is None or w is None:
                break
            joints.append(self.accessor(j).astype(np.int64))
            weights.append(self.accessor(w).astype(np.float32))
        if not joints:
            return None
        if any(len(a) != vertex_count or a.shape[1] != 4 for a in joints + weights):
            raise error(self.path, f"mesh '{name}': its JOINTS/WEIGHTS attributes must be VEC4 with one element per vertex")
        return np.concatenate(joints, axis=1), np.concatenate(weights, axis=1)

    def _optional(self, accessor_index):
        return None if accessor_index is None else self.accessor(accessor_index).astype(np.float32)

    # --- materials ---

    def _material_index(self, index: int | None) -> int:
        import pygltflib

        if index not in self.material_map:
            material = self.gltf.materials[index] if index is not None else pygltflib.Material()
            self.material_map[index] = len(self.scene.materials)
            self.scene.materials.append(self._material(material))
        return self.material_map[index]

    def _material(self, m) -> ir.Material:
        import pygltflib

        pbr = m.pbrMetallicRoughness or pygltflib.PbrMetallicRoughness()
        base_color = tuple(pbr.baseColorFactor or (1.0, 1.0, 1.0, 1.0))
        roughness = 1.0 if pbr.roughnessFactor is None else pbr.roughnessFactor
        metallic = 1.0 if pbr.metallicFactor is None else pbr.metallicFactor
        name = m.name or "unnamed"
        extensions = m.extensions or {}
        if "KHR_materials_emissive_strength" in extensions:
            warn(f"glTF '{self.path}': material '{name}' uses KHR_materials_emissive_strength, which Falcor "
                 "ignores; the emissive strength is not applied.")
        return ir.Material(
            name=name,
            base_color=base_color,
            specular_params=(0.0, roughness, metallic, 1000.0 * (1.0 - roughness) ** 2),
            emissive_color=tuple(m.emissiveFactor or (0.0, 0.0, 0.0)),
            index_of_refraction=extensions.get("KHR_materials_ior", {}).get("ior"),
            specular_transmission=max(0.0, 1.0 - base_color[3]),
            double_sided=bool(m.doubleSided) or ir.name_says_double_sided(name),
            alpha_threshold=(0.5 if m.alphaCutoff is None else m.alphaCutoff) if m.alphaMode == "MASK" else None,
            textures=self._textures(m, name))

    def _textures(self, material, name: str) -> dict:
        textures = {}
        for slot, get_info in _TEXTURE_SLOTS:
            info = get_info(material)
            if info is None or info.index is None:
                continue
            if info.texCoord:
                warn(f"glTF '{self.path}': material '{name}' reads its {slot} texture with TEXCOORD_{info.texCoord}; "
                     "Falcor uses TEXCOORD_0.")
            file = self._texture_file(info.index, name)
            if file is not None:
                textures[slot] = file
        return textures

    def _texture_file(self, texture_index: int, material_name: str) -> Path | ir.EmbeddedImage | None:
        """The texture's image: a file beside the glTF, or bytes held in the file (a data URI or a
        buffer view, which Falcor skips; we load them)."""
        source = self.gltf.textures[texture_index].source
        image = self.gltf.images[source] if source is not None else None
        if image is None:
            warn(f"glTF '{self.path}': material '{material_name}' uses texture {texture_index}, which has no image.")
            return None
        name = f"{self.path}:{image.name or f'image {source}'}"
        if image.bufferView is not None:
            view = self.gltf.bufferViews[image.bufferView]
            data = self.buffers[view.buffer][view.byteOffset or 0:(view.byteOffset or 0) + view.byteLength]
            if len(data) != view.byteLength:
                raise error(self.path, f"image {source}'s buffer view {image.bufferView} runs past its buffer")
            return ir.EmbeddedImage(name, bytes(data))
        if image.uri is None:
            warn(f"glTF '{self.path}': image {source} has neither a uri nor a buffer view; it is skipped.")
            return None
        if image.uri.startswith("data:"):
            return ir.EmbeddedImage(name, _data_uri_bytes(image.uri))
        return self.path.parent / unquote(image.uri).replace("\\", "/")

    # --- cameras and lights ---

    def _camera(self, index: int, name: str, node: int) -> ir.Camera:
        camera = self.gltf.cameras[index]
        if camera.type == "orthographic" or (camera.perspective is None and camera.orthographic is not None):
            o = camera.orthographic
            return ir.Camera(name, node, fov_y=0.0, near=o.znear, far=o.zfar,
                             aspect_ratio=o.xmag / o.ymag if o.ymag else None, ortho_half_size=o.ymag)
        p = camera.perspective
        return ir.Camera(name, node, fov_y=_value_or(p.yfov, _DEFAULT_YFOV), near=_value_or(p.znear, _DEFAULT_ZNEAR),
                         far=_value_or(p.zfar, _DEFAULT_ZFAR), aspect_ratio=p.aspectRatio or None)

    def _light(self, index: int, name: str, node: int) -> ir.Light:
        light = self.gltf.extensions["KHR_lights_punctual"]["lights"][index]
        intensity = np.asarray(light.get("color", (1.0, 1.0, 1.0)), float) * float(light.get("intensity", 1.0))
        kind = light["type"]
        if kind not in ("point", "spot", "directional"):
            raise error(self.path, f"light '{name}' has unknown type '{kind}'")
        if kind == "directional":
            return ir.Light(name, node, "directional", tuple(intensity))
        if kind == "point":
            return ir.Light(name, node, "point", tuple(intensity))
        spot = light.get("spot", {})
        outer = float(spot.get("outerConeAngle", math.pi / 4))
        inner = float(spot.get("innerConeAngle", 0.0))
        return ir.Light(name, node, "point", tuple(intensity), opening_angle=outer, penumbra_angle=outer - inner)

    # --- skins ---

    def _apply_skins(self):
        """Gives the meshes of skinned nodes their skin: in place when all of a mesh's nodes have the
        same skin, else a copy per skin (rigid nodes keep the mesh as it is)."""
        users: dict[int, list] = {}  # scene mesh index -> the skins of its nodes (None: a rigid node)
        for node_index, node in enumerate(self.scene.nodes):
            for m in node.meshes:
                users.setdefault(m, []).append(self.node_skins.get(node_index))
        skinned: dict[tuple, int] = {}  # (mesh, skin) -> the mesh index with that skin
        for m, skins in users.items():
            rigid_use = None in skins
            for k, skin in enumerate(s for s in dict.fromkeys(skins) if s is not None):
                skinned[m, skin] = self._skinned_mesh(m, skin, in_place=k == 0 and not rigid_use)
        for node_index, skin in self.node_skins.items():
            node = self.scene.nodes[node_index]
            node.meshes = [skinned.get((m, skin), m) for m in node.meshes]

    def _skinned_mesh(self, mesh_index: int, skin_index: int, in_place: bool) -> int:
        mesh = self.scene.meshes[mesh_index]
        if mesh_index not in self.influences:
            warn(f"glTF '{self.path}': mesh '{mesh.name}' is on a skinned node but has no JOINTS_0/WEIGHTS_0; it is rigid.")
            return mesh_index
        joints, inverse_bind = self._skin(skin_index)
        skinned = dataclasses.replace(mesh, skin=ir.Skin(joints, inverse_bind, *self.influences[mesh_index]))
        if in_place:
            self.scene.meshes[mesh_index] = skinned
            return mesh_index
        self.scene.meshes.append(skinned)
        return len(self.scene.meshes) - 1

    def _skin(self, index: int) -> tuple[list[int], np.ndarray]:
        """(joint scene nodes, inverse bind matrices (J, 4, 4)) of a glTF skin."""
        skin = self.gltf.skins[index]
        missing = [j for j in skin.joints if j not in self.node_map]
        if missing:
            raise error(self.path, f"skin {index} uses node {missing[0]}, which is not in the scene's node tree")
        joints = [self.node_map[j] for j in skin.joints]
        if skin.inverseBindMatrices is None:
            return joints, np.tile(np.eye(4), (len(joints), 1, 1))
        matrices = self.accessor(skin.inverseBindMatrices).astype(np.float64)
        if matrices.shape != (len(joints), 16):
            raise error(self.path, f"skin {index} has {len(joints)} joints but inverseBindMatrices of shape {matrices.shape}")
        return joints, matrices.reshape(-1, 4, 4).transpose(0, 2, 1)  # glTF stores matrices column-major

    # --- animations ---

    def _add_animation(self, index: int, animation):
        channels = []
        for channel in animation.channels:
            target = channel.target
            if target.node is None or target.node not in self.node_map:
                continue
            if target.path not in ("translation", "rotation", "scale"):
                warn(f"glTF '{self.path}': animation {index} animates '{target.path}', which is not supported.")
                continue
            channels.append(self._channel(animation.samplers[channel.sampler], self.node_map[target.node],
                                          target.path))
        if channels:
            self.scene.animations.append(ir.Animation(animation.name or f"animations[{index}]", channels))

    def _channel(self, sampler, node: int, path: str) -> ir.Channel:
        times = self.accessor(sampler.input)[:, 0].astype(np.float64)
        values = self.accessor(sampler.output).astype(np.float64)
        interpolation = sampler.interpolation or "LINEAR"
        if interpolation == "CUBICSPLINE":
            values = values.reshape(len(times), 3, values.shape[1])
        if len(values) != len(times) or len(times) == 0:
            raise error(self.path, f"an animation sampler of node '{self.scene.nodes[node].name}' has "
                                   f"{len(times)} key times but {len(values)} values")
        return ir.Channel(node, path, times, values, interpolation)


def _data_uri_bytes(uri: str) -> bytes:
    """The bytes of a `data:` URI (base64 or percent-encoded), decoded without any URL opener."""
    import base64
    import binascii
    from urllib.parse import unquote_to_bytes

    header, comma, payload = uri.partition(",")
    if not comma:
        raise ValueError("a data URI without ','")
    if header.endswith(";base64"):
        try:
            return base64.b64decode(payload, validate=True)
        except binascii.Error as e:
            raise ValueError(f"a data URI's base64 is invalid ({e})") from e
    return unquote_to_bytes(payload)


def _node_matrix(node) -> np.ndarray:
    if node.matrix is not None:
        return np.asarray(node.matrix, float).reshape(4, 4).T  # glTF stores matrices column-major
    return ir.trs_matrix(node.translation or (0.0, 0.0, 0.0), node.rotation or (0.0, 0.0, 0.0, 1.0),
                         node.scale or (1.0, 1.0, 1.0))


def _value_or(value, default):
    return default if value is None else value


def _normalized(data: np.ndarray) -> np.ndarray:
    info = np.iinfo(data.dtype)
    return np.maximum(data.astype(np.float32) / info.max, -1.0)


def _triangle_list(corners: np.ndarray, mode: int) -> np.ndarray:
    """(T, 3) triangles from a list, strip or fan of corners, keeping counter-clockwise winding."""
    if mode == _TRIANGLES:
        return corners[: len(corners) // 3 * 3].reshape(-1, 3)
    k = np.arange(max(len(corners) - 2, 0))
    if mode == _TRIANGLE_FAN:
        return np.stack([corners[np.zeros_like(k)], corners[k + 1], corners[k + 2]], axis=1)
    odd = k % 2  # strip: odd triangles take their last two corners in swapped order to keep the winding
    return np.stack([corners[k], corners[k + 1 + odd], corners[k + 2 - odd]], axis=1)


register_importer(["gltf", "glb"], import_gltf)
