"""What every asset importer produces, and the one function that adds it to a SceneBuilder.

A format parser (gltf.py, obj.py, ply.py, ...) reads a file into an `ImportedScene`: a node tree,
triangle meshes as numpy arrays, materials, cameras, lights, node animations and an environment map.
Where a format has something the neutral records below don't describe (a PBRT material, an area
light, a camera given by its own matrices), the parser puts the ready Falcor object in the same
list: a material (`IMaterial`), a light or camera already placed in world space, added as it is.
Values are already in Falcor's conventions (the parser knows how Falcor's Assimp importer treats
its format): texture coordinates have their origin at the top-left of the image, material
parameters are the ones Falcor's StandardMaterial stores, light intensities are Falcor radiance.
`add_to_scene_builder` then creates everything through the SceneBuilder (its public API, but for
nodes, which get the file's matrix as Falcor's C++ importers give it), so all formats share one
path into the scene.

Matrices are numpy (4, 4) float64 arrays acting on column vectors (p' = M @ p); quaternions are
(x, y, z, w) as in glTF.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ... import falcor_ext as _ext
from ...falcor_ext import Logger
from ...math_types import float3, float4
from ..animation import INVALID_ID
from ..animation import Animation as FalcorAnimation
from ..asset_log import record_asset
from ..camera import Camera as FalcorCamera
from ..envmap import EnvMap
from ..light import DirectionalLight, PointLight
from ..light import Light as FalcorLight
from ..material import IMaterial, MaterialTextureSlot, ShadingModel, StandardMaterial
from ..skinning import MeshSkin
from ..transform import Transform
from ..triangle_mesh import TriangleMesh
from . import error


@dataclass
class Node:
    name: str
    parent: int | None = None  # index into ImportedScene.nodes; parents come before their children
    matrix: np.ndarray = field(default_factory=lambda: np.eye(4))  # local to parent
    meshes: list[int] = field(default_factory=list)  # indices into ImportedScene.meshes instanced here


@dataclass
class Mesh:
    name: str
    positions: np.ndarray  # (N, 3) float32
    normals: np.ndarray  # (N, 3) float32
    indices: np.ndarray  # (T, 3) uint32, counter-clockwise front faces
    material: int  # index into ImportedScene.materials
    texcoords: np.ndarray | None = None  # (N, 2) float32, origin at the image's top-left
    tangents: np.ndarray | None = None  # (N, 4) float32, w = bitangent sign; the file's, when it has them
    skin: Skin | None = None  # linear blend skinning by joint nodes; None for rigid meshes


@dataclass
class Skin:
    """Linear blend skinning: vertex v is drawn in world space at

        sum_k weights[v, k] * world(joints[joint_indices[v, k]]) @ inverse_bind[joint_indices[v, k]] @ p_v

    where `world` is a joint node's world matrix in the current frame and `inverse_bind[j]` maps the
    mesh's own space to joint j's space at bind time (glTF's inverseBindMatrices, Assimp's bone
    offset matrix). The nodes that place the mesh don't move it, as glTF specifies, except that a
    vertex with no weight follows the node that places it. Weights need not be normalized (rows are
    divided by their sum); negative or non-finite weights and indices out of range are an error."""

    joints: list[int]  # node indices
    inverse_bind: np.ndarray  # (J, 4, 4) float64
    joint_indices: np.ndarray  # (N, K) integers into `joints`
    weights: np.ndarray  # (N, K) float32


@dataclass
class Material:
    """Parameters of a Falcor StandardMaterial, as Falcor's importer would set them."""

    name: str
    shading_model: str = "MetalRough"  # the format's default; SceneBuilder flags may override it
    base_color: tuple = (1.0, 1.0, 1.0, 1.0)  # RGB + opacity
    specular_params: tuple = (0.0, 0.0, 0.0, 0.0)  # MetalRough: (-, roughness, metallic, -); SpecGloss: RGB, gloss
    emissive_color: tuple = (0.0, 0.0, 0.0)
    index_of_refraction: float | None = None  # None keeps the material's default
    specular_transmission: float = 0.0
    double_sided: bool = False
    alpha_threshold: float | None = None  # None keeps the material's default
    textures: dict[str, Path | EmbeddedImage] = field(default_factory=dict)  # MaterialTextureSlot name -> image


@dataclass
class EmbeddedImage:
    """An image file's bytes held inside the scene file (FBX, glb, data URI, USDZ); Falcor skips these."""

    name: str  # how messages name it: "<scene file>:<texture name>"
    data: bytes


@dataclass
class Camera:
    """A camera looking down the local -Z axis of its node with +Y up."""

    name: str
    node: int
    fov_y: float  # vertical field of view, radians; 0 means orthographic
    near: float
    far: float
    aspect_ratio: float | None = None  # None keeps Falcor's default
    ortho_half_size: float = 0.0  # orthographic cameras: half the view size in scene units


@dataclass
class Light:
    """A punctual light at its node's origin, shining along the node's -Z axis."""

    name: str
    node: int
    kind: str  # "point" (also spot lights) or "directional"
    intensity: tuple  # Falcor radiance (RGB)
    opening_angle: float = math.pi  # half-angle, radians; pi is omnidirectional
    penumbra_angle: float = 0.0


@dataclass
class Channel:
    """One animated property of a node, sampled as glTF defines its interpolation modes."""

    node: int
    path: str  # "translation", "rotation" (quaternion xyzw) or "scale"
    times: np.ndarray  # (K,) seconds, increasing
    values: np.ndarray  # (K, C); CUBICSPLINE: (K, 3, C) holding in-tangent, value, out-tangent
    interpolation: str = "LINEAR"  # "LINEAR", "STEP" or "CUBICSPLINE"


@dataclass
class Animation:
    name: str
    channels: list[Channel] = field(default_factory=list)

    @property
    def duration(self) -> float:
        return max((float(c.times[-1]) for c in self.channels), default=0.0)


@dataclass
class ImportedScene:
    path: Path
    nodes: list[Node] = field(default_factory=list)
    meshes: list[Mesh] = field(default_factory=list)
    materials: list[Material | IMaterial] = field(default_factory=list)
    cameras: list[Camera | FalcorCamera] = field(default_factory=list)
    lights: list[Light | FalcorLight] = field(default_factory=list)
    animations: list[Animation] = field(default_factory=list)
    env_map: EnvMap | None = None
    # Ready cameras and lights (in `cameras` / `lights`) placed at a node: (object, node). They are
    # animated with the node's world transform when it or an ancestor is animated.
    followers: list[tuple[FalcorCamera | FalcorLight, int]] = field(default_factory=list)

    def world_matrix(self, index: int) -> np.ndarray:
        node = self.nodes[index]
        if node.parent is None:
            return node.matrix
        return self.world_matrix(node.parent) @ node.matrix


# --- errors and file checks ---------------------------------------------------------------------


def require_file(path: Path, what: str = "file", referenced_by: Path | None = None) -> Path:
    """The absolute path of an existing file, or an ImporterError naming it and the folder searched."""
    path = Path(path)
    candidate = path if path.is_absolute() else Path.cwd() / path
    if candidate.is_file():
        record_asset(candidate)
        return candidate
    source = f", referenced by '{referenced_by}'," if referenced_by else ""
    raise error(referenced_by or path, f"Can't find {what} '{path}'{source} (searched: '{candidate.parent}').")


def warn(message: str):
    Logger.log(Logger.Level.Warning, message)


def name_says_double_sided(material_name: str) -> bool:
    """Falcor reads tokens after '.' in a material name as flags; "doubleSided" (any case) is the one it knows."""
    return "doublesided" in (token.lower() for token in material_name.split(".")[1:])


# --- geometry helpers ---------------------------------------------------------------------------


def check_indices(path, indices: np.ndarray, vertex_count: int) -> None:
    """Raises an ImporterError naming the file if a triangle refers to a vertex that does not exist."""
    if len(indices) and int(indices.max()) >= vertex_count:
        raise error(path, f"vertex index {int(indices.max())} is out of range (the mesh has {vertex_count} vertices)")


def flat_shaded(positions, indices, texcoords=None):
    """Unshares every triangle corner and gives it its face normal (for meshes stored without normals;
    zero for degenerate triangles), in C++ (`falcor_ext.expand_flat`).

    Returns (positions, normals, texcoords, indices) of the expanded mesh."""
    tri = np.asarray(indices).reshape(-1, 3)
    uv = texcoords if texcoords is not None else np.zeros((len(positions), 2), np.float32)
    p, normals, uv = _ext.expand_flat(positions, uv, tri)
    return p, normals, (uv if texcoords is not None else None), np.arange(len(p), dtype=np.uint32).reshape(-1, 3)


# --- transforms -----------------------------------------------------------------------------------


def _tf():
    """trimesh's transformations module, imported on first use: trimesh brings scipy with it, most
    of a second that every `import falcor` would otherwise pay."""
    import trimesh.transformations

    return trimesh.transformations


def quaternion_matrix(q_xyzw) -> np.ndarray:
    x, y, z, w = q_xyzw
    return _tf().quaternion_matrix([w, x, y, z])


def trs_matrix(translation, rotation_xyzw, scale) -> np.ndarray:
    return _tf().translation_matrix(translation) @ quaternion_matrix(rotation_xyzw) @ np.diag([*scale, 1.0])


def decompose(matrix, what: str):
    """(translation, rotationEuler, scaling) of an affine matrix as Falcor's Transform holds them
    (animation keyframes): M = T * R * S with R = Rz * Ry * Rx (angles in radians). Shear cannot be
    expressed; it is dropped with a warning naming `what`."""
    try:
        scale, shear, angles, translate, _ = _tf().decompose_matrix(matrix)
    except ValueError:  # singular: a zero scale (glTF uses it to hide nodes) leaves no rotation to recover
        warn(f"{what}: its transform is singular; it is imported as a scaling without rotation.")
        return matrix[:3, 3], np.zeros(3), np.linalg.norm(matrix[:3, :3], axis=0)
    if np.max(np.abs(shear)) > 1e-5:
        warn(f"{what}: its transform has shear, which a Falcor Transform can't hold; the shear is dropped.")
    return translate, np.asarray(angles), scale


def world_matrix_at(scene: ImportedScene, node: int, channels: list[Channel], t: float) -> np.ndarray:
    """A node's world matrix at time t, with every animated ancestor posed by the channels."""
    animated = {c.node for c in channels}
    matrix = np.eye(4)
    current: int | None = node
    while current is not None:
        local = trs_matrix(*local_trs_at(scene, current, channels, t)) if current in animated else scene.nodes[current].matrix
        matrix = local @ matrix
        current = scene.nodes[current].parent
    return matrix


# --- animation sampling ---------------------------------------------------------------------------

STEP_EDGE = 1e-4  # a STEP key becomes a jump over this fraction of the interval before it
CUBIC_SUBDIVISIONS = 8  # a CUBICSPLINE interval is sampled at this many sub-intervals


def sample_channel(channel: Channel, t: float) -> np.ndarray:
    """The channel's value at time t (glTF 2.0 animation sampler semantics; clamped outside the keys)."""
    times = channel.times
    cubic = channel.interpolation == "CUBICSPLINE"
    values = channel.values[:, 1] if cubic else channel.values
    if t <= times[0]:
        return values[0]
    if t >= times[-1]:
        return values[-1]
    k = int(np.searchsorted(times, t, side="right")) - 1
    dt = times[k + 1] - times[k]
    s = (t - times[k]) / dt
    if channel.interpolation == "STEP":
        return values[k]
    if cubic:
        v = _hermite(values[k], dt * channel.values[k, 2], values[k + 1], dt * channel.values[k + 1, 0], s)
        return v / np.linalg.norm(v) if channel.path == "rotation" else v
    if channel.path == "rotation":
        return _slerp(values[k], values[k + 1], s)
    return (1.0 - s) * values[k] + s * values[k + 1]


def _hermite(p0, m0, p1, m1, s):
    s2, s3 = s * s, s * s * s
    return (2 * s3 - 3 * s2 + 1) * p0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * p1 + (s3 - s2) * m1


def _slerp(q0, q1, s):
    wxyz = _tf().quaternion_slerp(np.roll(q0, 1), np.roll(q1, 1), s, shortestpath=True)
    return np.roll(wxyz, -1)


def keyframe_times(channels: list[Channel]) -> np.ndarray:
    """Times at which Falcor keyframes (linearly interpolated) reproduce the channels: every key, plus a
    point just before each STEP key (so the value jumps) and sub-samples of each CUBICSPLINE interval."""
    times = set()
    for c in channels:
        times.update(c.times.tolist())
        if c.interpolation == "STEP":
            times.update((c.times[1:] - STEP_EDGE * np.diff(c.times)).tolist())
        elif c.interpolation == "CUBICSPLINE":
            for t0, t1 in zip(c.times[:-1], c.times[1:]):
                times.update(np.linspace(t0, t1, CUBIC_SUBDIVISIONS + 1)[1:-1].tolist())
    return np.array(sorted(times))


def local_trs_at(scene: ImportedScene, node: int, channels: list[Channel], t: float):
    """(translation, rotation xyzw, scale) of a node at time t: its rest pose overridden by its channels."""
    translate, angles, scale = decompose(scene.nodes[node].matrix, f"Node '{scene.nodes[node].name}'")
    w, x, y, z = _tf().quaternion_from_euler(angles[0], angles[1], angles[2], axes="sxyz")
    trs = {"translation": translate, "rotation": np.array([x, y, z, w]), "scale": scale}
    for c in channels:
        if c.node == node:
            trs[c.path] = sample_channel(c, t)
    return trs["translation"], trs["rotation"], trs["scale"]




# --- into a SceneBuilder --------------------------------------------------------------------------


def add_to_scene_builder(scene: ImportedScene, builder):
    """Add an imported scene through the public SceneBuilder API, in the order Falcor's importer uses:
    nodes, meshes (creating materials as meshes need them) and their instances, skins, animations, cameras, lights."""
    skins = [_checked_skin(scene, mesh) for mesh in scene.meshes]  # before anything is added: no half-built scene
    node_ids: list[int] = []
    for node in scene.nodes:
        node_ids.append(_add_node(scene, node, node_ids, builder))
    materials: dict = {}
    mesh_ids = [builder.addTriangleMesh(_triangle_mesh(scene, mesh, builder),
                                        _material(scene.materials, mesh.material, materials, builder), mesh.skin is not None)
                for mesh in scene.meshes]
    for mesh_id, skin in zip(mesh_ids, skins):
        if skin is not None:
            skin.joints = np.asarray(node_ids, np.int64)[skin.joints]
            builder._set_mesh_skin(mesh_id, skin)
    for node, node_id in zip(scene.nodes, node_ids):
        for mesh in node.meshes:
            builder.addMeshInstance(node_id, mesh_ids[mesh])
    for animation in scene.animations:
        _add_node_animations(scene, animation, node_ids, builder)
    follows = {id(obj): node for obj, node in scene.followers}

    def placed(obj, node):
        return obj if node is None else _follow_node(scene, node, obj, builder)

    for camera in scene.cameras:
        if isinstance(camera, FalcorCamera):
            builder.addCamera(placed(camera, follows.get(id(camera))))
        else:
            builder.addCamera(placed(_camera(scene, camera), camera.node))
    for light in scene.lights:
        if isinstance(light, FalcorLight):
            builder.addLight(placed(light, follows.get(id(light))))
        else:
            builder.addLight(placed(_light(scene, light), light.node))
    if scene.env_map is not None:
        builder.envMap = scene.env_map


def _add_node(scene: ImportedScene, node: Node, node_ids: list[int], builder) -> int:
    """The node with its matrix as the file gives it, as Falcor's importers add nodes (their C++
    SceneBuilder takes the matrix; a `Transform` would drop shear, and decomposing costs a quarter
    of a millisecond per node: a 100,000-instance file spent most of its load there)."""
    return builder._add_node(node.name, node.matrix, INVALID_ID if node.parent is None else node_ids[node.parent])


def _checked_skin(scene: ImportedScene, mesh: Mesh) -> MeshSkin | None:
    """The mesh's skin with its joints still the file's node indices, or ImporterError naming the file."""
    skin = mesh.skin
    if skin is None:
        return None
    if any(not 0 <= j < len(scene.nodes) for j in skin.joints):
        raise error(scene.path, f"a joint of the skin of mesh '{mesh.name}' is not a node of the file")
    if len(skin.weights) != len(mesh.positions):
        raise error(scene.path, f"mesh '{mesh.name}' has {len(mesh.positions)} vertices but skin weights for {len(skin.weights)}")
    try:
        return MeshSkin(mesh.name, skin.joints, skin.inverse_bind, skin.joint_indices, skin.weights)
    except _ext.RuntimeError as e:
        raise error(scene.path, str(e)) from None


def _transform(matrix: np.ndarray, what: str) -> Transform:
    translation, rotation_euler, scaling = decompose(matrix, what)
    return Transform(translation=float3(*translation), rotationEuler=float3(*rotation_euler), scaling=float3(*scaling))


def _trs_transform(translation, rotation_xyzw, scaling) -> Transform:
    x, y, z, w = rotation_xyzw
    angles = _tf().euler_from_quaternion([w, x, y, z], axes="sxyz")
    return Transform(translation=float3(*translation), rotationEuler=float3(*angles), scaling=float3(*scaling))


def _triangle_mesh(scene: ImportedScene, mesh: Mesh, builder) -> TriangleMesh:
    if mesh.tangents is not None and builder.flags & type(builder.flags).UseOriginalTangentSpace:
        Logger.log_once(Logger.Level.Warning, f"'{scene.path}': the file's tangents can't be passed through a "
                                              "TriangleMesh; tangents are generated from the texture coordinates.")
    texcoords = mesh.texcoords if mesh.texcoords is not None else np.zeros((len(mesh.positions), 2), np.float32)
    return TriangleMesh.from_arrays(mesh.positions, mesh.normals, texcoords, mesh.indices, name=mesh.name)


def _material(materials: list[Material | IMaterial], index: int, created: dict, builder) -> IMaterial:
    if index not in created:
        m = materials[index]
        created[index] = m if isinstance(m, IMaterial) else _standard_material(m, builder)
    return created[index]


def _standard_material(m: Material, builder) -> StandardMaterial:
    material = StandardMaterial(m.name, _shading_model(m, builder.flags))
    for slot, image in m.textures.items():
        load_texture(builder, material, getattr(MaterialTextureSlot, slot), image)
    material.baseColor = float4(*m.base_color)
    material.specularParams = float4(*m.specular_params)
    material.emissiveColor = float3(*m.emissive_color)
    material.specularTransmission = m.specular_transmission
    material.doubleSided = m.double_sided
    if m.index_of_refraction is not None:
        material.indexOfRefraction = m.index_of_refraction
    if m.alpha_threshold is not None:
        material.alphaThreshold = m.alpha_threshold
    return material


def load_texture(builder, material: IMaterial, slot: MaterialTextureSlot, image: Path | EmbeddedImage) -> None:
    """builder.loadMaterialTexture, for files and for images embedded in the scene file alike."""
    if isinstance(image, EmbeddedImage):
        srgb = not (builder.flags & type(builder.flags).AssumeLinearSpaceTextures)
        material._load_embedded_texture(slot, image.data, image.name, srgb)
    else:
        builder.loadMaterialTexture(material, slot, image)


def _shading_model(m: Material, flags) -> ShadingModel:
    """SceneBuilder flags override the format's default shading model, as in Falcor."""
    flag_names = type(flags)
    if flags & flag_names.UseSpecGlossMaterials:
        return ShadingModel.SpecGloss
    if flags & flag_names.UseMetalRoughMaterials:
        return ShadingModel.MetalRough
    return getattr(ShadingModel, m.shading_model)


def _add_node_animations(scene: ImportedScene, animation: Animation, node_ids: list[int], builder):
    """One Falcor Animation per animated node, named "<node name>.<k>" (k counts earlier nodes of that name)."""
    for node in dict.fromkeys(c.node for c in animation.channels):
        channels = [c for c in animation.channels if c.node == node]
        name = scene.nodes[node].name
        k = sum(1 for other in scene.nodes[:node] if other.name == name)
        falcor_animation = FalcorAnimation(f"{name}.{k}", node_ids[node], animation.duration)
        for t in keyframe_times(channels):
            falcor_animation.addKeyframe(float(t), _trs_transform(*local_trs_at(scene, node, channels, t)))
        builder.addAnimation(falcor_animation)


def _frame(matrix: np.ndarray):
    """(position, forward, up) of a node frame looking down its -Z axis with +Y up."""
    return matrix[:3, 3], -matrix[:3, 2] / np.linalg.norm(matrix[:3, 2]), matrix[:3, 1] / np.linalg.norm(matrix[:3, 1])


def _camera(scene: ImportedScene, c: Camera) -> FalcorCamera:
    camera = FalcorCamera(c.name)
    position, forward, up = _frame(scene.world_matrix(c.node))
    orthographic = c.fov_y == 0.0
    distance = 2.0 * c.ortho_half_size if orthographic else 1.0  # Falcor's ortho half size is half this
    camera.position = float3(*position)
    camera.target = float3(*(position + distance * forward))
    camera.up = float3(*up)
    camera.focalLength = 0.0 if orthographic else camera.frameHeight / (2.0 * math.tan(0.5 * c.fov_y))
    if c.aspect_ratio is not None:
        camera.aspectRatio = c.aspect_ratio
    camera.nearPlane = c.near
    camera.farPlane = c.far
    return camera


def _light(scene: ImportedScene, l: Light):
    position, direction, _ = _frame(scene.world_matrix(l.node))
    light: DirectionalLight | PointLight
    if l.kind == "directional":
        light = DirectionalLight(l.name)
    else:
        light = point = PointLight(l.name)
        point.position = float3(*position)
        point.openingAngle = l.opening_angle
        point.penumbraAngle = l.penumbra_angle
    light.direction = float3(*direction)
    light.intensity = float3(*l.intensity)
    return light


def _follow_node(scene: ImportedScene, node: int, animatable, builder):
    """If the node or an ancestor is animated, animate the camera/light with the node's world transform,
    sampled at the animations' keyframe times (Falcor attaches it to the node; the public API can't)."""
    chain: set[int] = set()
    ancestor: int | None = node
    while ancestor is not None:
        chain.add(ancestor)
        ancestor = scene.nodes[ancestor].parent
    channels = [c for a in scene.animations for c in a.channels if c.node in chain]
    if channels:
        duration = max(float(c.times[-1]) for c in channels)
        animation = builder.createAnimation(animatable, animatable.name, duration)
        for t in keyframe_times(channels):
            world = world_matrix_at(scene, node, channels, t)
            animation.addKeyframe(float(t), _transform(world, f"'{animatable.name}' of '{scene.path}'"))
    return animatable
