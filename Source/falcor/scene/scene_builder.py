"""`SceneBuilder`: collects meshes, materials, a node hierarchy, lights, cameras and animations
(from pyscenes, importers or Python code), then builds a `Scene`."""
from __future__ import annotations

import enum
import os
from typing import TYPE_CHECKING

import numpy as np

from .. import falcor_ext as _ext
from ..settings import Settings
from . import importers
from .animation import INVALID_ID, Animatable, Animation
from .asset_log import record_asset
from .camera import Camera
from .envmap import EnvMap
from .light import Light
from .material import IMaterial, MaterialTextureSlot, StandardMaterial
from .render_settings import SceneRenderSettings
from .skinning import MeshSkin
from .transform import Transform
from .triangle_mesh import TriangleMesh

if TYPE_CHECKING:
    from .scene import Scene


class SceneLighting:
    """`renderSettings` and `envMap`, which SceneBuilder and Scene both expose: the settings are
    copied on assignment; the env map must be an EnvMap or None."""

    _render_settings: SceneRenderSettings
    _env_map: "EnvMap | None"

    @property
    def renderSettings(self) -> SceneRenderSettings:
        return self._render_settings

    @renderSettings.setter
    def renderSettings(self, settings: SceneRenderSettings) -> None:
        self._render_settings = settings._copy()

    @property
    def envMap(self) -> EnvMap | None:
        return self._env_map

    @envMap.setter
    def envMap(self, env_map: EnvMap | None) -> None:
        if env_map is not None and not isinstance(env_map, EnvMap):
            raise TypeError(f"envMap must be an EnvMap or None, not {type(env_map).__name__}")
        self._env_map = env_map


class SceneBuilderFlags(enum.IntFlag):
    """Scene build flags (values as in Falcor); `|` and `&` combine them."""

    Default = 0x0
    DontMergeMaterials = 0x1
    UseOriginalTangentSpace = 0x2
    AssumeLinearSpaceTextures = 0x4
    DontMergeMeshes = 0x8
    UseSpecGlossMaterials = 0x10
    UseMetalRoughMaterials = 0x20
    NonIndexedVertices = 0x40
    Force32BitIndices = 0x80
    RTDontMergeStatic = 0x100
    RTDontMergeDynamic = 0x200
    RTDontMergeInstanced = 0x400
    FlattenStaticMeshInstances = 0x800
    DontOptimizeGraph = 0x1000
    DontOptimizeMaterials = 0x2000
    DontUseDisplacement = 0x4000
    UseCompressedHitInfo = 0x8000
    TessellateCurvesIntoPolyTubes = 0x10000
    UseCache = 0x10000000
    RebuildCache = 0x20000000


def _warn(message: str) -> None:
    _ext.Logger.log(_ext.Logger.Level.Warning, message)


class MeshSpec:
    """A mesh as added: its arrays (copied), material, winding and animation flag."""

    def __init__(self, mesh: TriangleMesh, material: IMaterial, is_animated: bool) -> None:
        self.name = mesh.name
        self.positions = mesh.positions.copy()
        self.normals = mesh.normals.copy()
        self.texcoords = mesh.texcoords.copy()
        self.triangles = mesh.triangles.copy()
        self.front_face_cw = bool(mesh.frontFaceCW)
        self.material = material
        self.is_animated = bool(is_animated)
        self.material_id = -1  # set when the scene is built
        self.tangents: np.ndarray | None = None
        self.skin: MeshSkin | None = None  # set by importers for meshes that follow joints


class Node:
    """A scene-graph node: local transform (4x4), parent (INVALID_ID for roots), meshes it places."""

    def __init__(self, name: str, matrix: np.ndarray, parent: int) -> None:
        self.name, self.matrix, self.parent = name, matrix, parent
        self.mesh_ids: list[int] = []


def _checked_matrix(name: str, matrix: np.ndarray) -> np.ndarray:
    # Array methods and a list compare: np.all / np.array_equal cost more than the check itself, and
    # importers add a node per instance (100,000 of them in a point instancer).
    if not np.isfinite(matrix).all():
        raise _ext.RuntimeError(f"Node '{name}' transform matrix has inf/nan values")
    if matrix[3].tolist() != [0.0, 0.0, 0.0, 1.0]:
        _warn(f"SceneBuilder::addNode() - Node '{name}' transform matrix is not affine. Setting last row to (0,0,0,1).")
        matrix = matrix.copy()
        matrix[3] = [0.0, 0.0, 0.0, 1.0]
    return matrix


class SceneBuilder(SceneLighting):
    """The global `sceneBuilder` of pyscenes; `getScene()` (extension) builds the scene once."""

    def __init__(self, flags: SceneBuilderFlags | int = SceneBuilderFlags.Default, settings: Settings | None = None) -> None:
        self._flags = SceneBuilderFlags(int(flags))
        self._settings = settings if settings is not None else Settings()
        self._meshes: list[MeshSpec] = []
        self._materials: list[IMaterial] = []
        self._nodes: list[Node] = []
        self._lights: list[Light] = []
        self._cameras: list[Camera] = []
        self._animations: list[Animation] = []
        self._custom_primitives: list = []
        self._selected_camera = 0
        self._env_map = None
        self._render_settings = SceneRenderSettings()
        self._camera_speed = 1.0
        self.import_paths: list = []
        self.import_dicts: list = []
        self._scene: Scene | None = None

    # ---- properties ----
    @property
    def flags(self) -> SceneBuilderFlags:
        return self._flags

    @property
    def materials(self) -> list:
        return list(self._materials)

    @property
    def gridVolumes(self) -> list:
        return []

    volumes = gridVolumes

    @property
    def lights(self) -> list:
        return list(self._lights)

    @property
    def cameras(self) -> list:
        return list(self._cameras)

    @property
    def animations(self) -> list:
        return list(self._animations)

    @property
    def selectedCamera(self) -> Camera | None:
        return self._cameras[self._selected_camera] if self._selected_camera < len(self._cameras) else None

    @selectedCamera.setter
    def selectedCamera(self, camera: Camera) -> None:
        self._selected_camera = next((i for i, c in enumerate(self._cameras) if c is camera), 0)

    @property
    def cameraSpeed(self) -> float:
        return self._camera_speed

    @cameraSpeed.setter
    def cameraSpeed(self, speed: float) -> None:
        self._camera_speed = float(np.float32(speed))

    @property
    def assetResolver(self) -> _ext.AssetResolver:
        return _ext.AssetResolver.default_resolver

    @property
    def nodes(self) -> list:
        """Extension: the scene graph as added (read only)."""
        return list(self._nodes)

    @property
    def meshes(self) -> list:
        """Extension: the meshes as added (MeshSpec records)."""
        return list(self._meshes)

    def getSettings(self) -> Settings:
        return self._settings

    # ---- import ----
    def importScene(self, path: str | os.PathLike[str], dict: dict | None = None) -> None:
        """Imports a file through the importer registered for its extension."""
        resolver = _ext.AssetResolver.default_resolver
        resolved = resolver.resolve_path(os.fspath(path), _ext.AssetCategory.Scene)
        if str(resolved) in ("", "."):
            tried = resolver.describe_search(os.fspath(path), _ext.AssetCategory.Scene)
            raise importers.error(path, f"Can't find scene file '{os.fspath(path)}'. Tried: {tried}.")
        _ext.Logger.log(_ext.Logger.Level.Info, f"Importing scene: {os.fspath(path)}")
        record_asset(resolved)
        short_names = {k: v for k, v in (dict or {}).items() if isinstance(k, str) and isinstance(v, str)}
        self.import_paths.append(resolved)
        self.import_dicts.append(short_names)
        importer = importers.find_importer(resolved.suffix)
        if importer is None:
            raise importers.error(resolved, "Unknown file extension.")
        try:
            importer(resolved, self, short_names)
        except (_ext.ImporterError, MemoryError):
            raise
        except Exception as e:  # an importer's own failure: still name the file
            raise importers.error(resolved, f"{type(e).__name__}: {e}") from e

    def importSceneFromString(self, text: str, extension: str = "pyscene") -> None:
        """Extension (Falcor's importFromMemory for pyscenes)."""
        from .pyscene import import_pyscene_from_string

        self.import_paths.append("<memory>")
        self.import_dicts.append({})
        if str(extension).lower().lstrip(".") != "pyscene":
            raise importers.error("", "Unknown file extension.")
        import_pyscene_from_string(text, self)

    # ---- geometry and materials ----
    def addTriangleMesh(self, triangleMesh: TriangleMesh, material: IMaterial, isAnimated: bool = False) -> int:
        """Adds a mesh (its arrays are copied) with its material; returns the mesh ID for addMeshInstance."""
        if triangleMesh is None:
            raise _ext.RuntimeError("'pTriangleMesh' is missing")
        if material is None:
            raise _ext.RuntimeError("'pMaterial' is missing")
        spec = MeshSpec(triangleMesh, material, isAnimated)
        for what, count in (("faces", len(spec.triangles)), ("vertices", len(spec.positions))):
            if count == 0:
                raise _ext.RuntimeError(f"Error when adding the mesh '{spec.name}' to the scene. The mesh is missing {what}.")
        if spec.triangles.size and int(spec.triangles.max()) >= len(spec.positions):
            raise _ext.RuntimeError(f"Error when adding the mesh '{spec.name}' to the scene. An index is out of range.")
        self.addMaterial(material)
        self._meshes.append(spec)
        return len(self._meshes) - 1

    def _set_mesh_skin(self, mesh_id: int, skin: MeshSkin) -> None:
        """Makes a mesh skinned (importers; Falcor's Python API has no skinning): it is drawn in
        world space where its joints put it (see falcor.scene.skinning)."""
        spec = self._meshes[mesh_id]
        if skin.vertex_count != len(spec.positions):
            raise _ext.RuntimeError(f"Mesh '{spec.name}' has {len(spec.positions)} vertices but its skin weights {skin.vertex_count}.")
        if len(skin.joints) and not (0 <= skin.joints.min() and skin.joints.max() < len(self._nodes)):
            raise _ext.RuntimeError(f"Mesh '{spec.name}': a joint of its skin is not a node of the scene.")
        spec.skin, spec.is_animated = skin, True

    def addMaterial(self, material: IMaterial) -> int:
        """Adds a material (once: adding it again returns the same ID); returns its ID."""
        if material is None:
            raise _ext.RuntimeError("'pMaterial' is missing")
        for i, m in enumerate(self._materials):
            if m is material:
                return i
        self._materials.append(material)
        return len(self._materials) - 1

    def replaceMaterial(self, material: IMaterial, replacement: IMaterial) -> None:
        """Makes every mesh that uses `material` use `replacement` instead. Raises falcor.RuntimeError if
        `material` is not part of the scene."""
        if material is None or replacement is None:
            raise _ext.RuntimeError("'pMaterial' is missing" if material is None else "'pReplacement' is missing")
        index = next((i for i, m in enumerate(self._materials) if m is material), None)
        if index is None:
            raise _ext.RuntimeError(f"Material '{material.name}' is not part of the scene.")
        self._materials[index] = replacement
        for mesh in self._meshes:
            if mesh.material is material:
                mesh.material = replacement

    def getMaterial(self, name: str) -> IMaterial | None:
        return next((m for m in self._materials if m.name == name), None)

    def loadMaterialTexture(self, material: IMaterial, slot: MaterialTextureSlot, path: str | os.PathLike[str]) -> None:
        """Loads the texture now (Falcor loads asynchronously; the result is the same)."""
        if material is None:
            raise _ext.RuntimeError("'pMaterial' is missing")
        srgb = not (self._flags & SceneBuilderFlags.AssumeLinearSpaceTextures)
        material.loadTexture(slot, path, srgb)

    def waitForMaterialTextureLoading(self) -> None:
        pass

    def addSDFGrid(self, sdfGrid, material) -> None:
        raise _ext.RuntimeError("SDF grids are not supported by the CPU engine.")

    def addSDFGridInstance(self, nodeID, sdfGridID, /) -> None:
        raise _ext.RuntimeError("SDF grids are not supported by the CPU engine.")

    def addCustomPrimitive(self, userID, aabb, /) -> None:
        """Recorded (Falcor ray-traces them with user intersection shaders); the CPU renderer ignores them."""
        _ext.Logger.log_once(_ext.Logger.Level.Warning, "Custom primitives are recorded but not rendered by the CPU engine.")
        self._custom_primitives.append((int(userID), aabb))

    def addGridVolume(self, gridVolume, nodeID=INVALID_ID) -> None:
        raise _ext.RuntimeError("Grid volumes are not supported by the CPU engine.")

    addVolume = addGridVolume

    def getGridVolume(self, name: str):
        return None

    getVolume = getGridVolume

    # ---- lights, cameras, animation ----
    def addLight(self, light: Light) -> int:
        """Adds an analytic light; returns its ID. Raises falcor.RuntimeError for None."""
        if light is None:
            raise _ext.RuntimeError("'pLight' is missing")
        self._lights.append(light)
        return len(self._lights) - 1

    def getLight(self, name: str) -> Light | None:
        return next((l for l in self._lights if l.name == name), None)

    def loadLightProfile(self, filename: str | os.PathLike[str], normalize: bool = True) -> None:
        _ext.Logger.log_once(_ext.Logger.Level.Warning, "Light profiles are not supported by the CPU engine; ignored.")

    def addCamera(self, camera: Camera) -> int:
        """Adds a camera (the first one added is selected); returns its index."""
        if camera is None:
            raise _ext.RuntimeError("'pCamera' is missing")
        self._cameras.append(camera)
        return len(self._cameras) - 1

    def addAnimation(self, animation: Animation) -> None:
        """Adds an animation of a scene-graph node (see createAnimation)."""
        if animation is None:
            raise _ext.RuntimeError("'pAnimation' is missing")
        self._animations.append(animation)

    def createAnimation(self, animatable: Animatable, name: str, duration: float) -> Animation | None:
        """A new animation of the animatable's node (a node is created if it has none); None with
        a warning when that node is already animated."""
        if animatable is None:
            raise _ext.RuntimeError("'pAnimatable' is missing")
        node_id = animatable._node_id
        if node_id != INVALID_ID and self._is_node_animated(node_id):
            _warn("Animatable object is already animated.")
            return None
        if node_id == INVALID_ID:
            node_id = self._add_node(name, np.eye(4), INVALID_ID)
        animatable._node_id = node_id
        animatable._has_animation = True
        animatable._is_animated = True
        animation = Animation(name, node_id, duration)
        self.addAnimation(animation)
        return animation

    def _is_node_animated(self, node_id: int) -> bool:
        animated = {a.nodeID for a in self._animations}
        while node_id != INVALID_ID:
            if node_id in animated:
                return True
            node_id = self._nodes[node_id].parent
        return False

    # ---- scene graph ----
    def addNode(self, name: str, transform: Transform | None = None, parent: int = INVALID_ID) -> int:
        """Adds a scene-graph node placed by `transform` relative to `parent` (default: the root); returns its ID."""
        matrix = (transform if transform is not None else Transform()).matrix_array()
        return self._add_node(name, matrix, int(parent))

    def _add_node(self, name: str, matrix: np.ndarray, parent: int) -> int:
        matrix = _checked_matrix(name, np.asarray(matrix, np.float64))
        if parent != INVALID_ID and not 0 <= parent < len(self._nodes):
            raise _ext.RuntimeError("Node parent is out of range")
        self._nodes.append(Node(str(name), matrix, parent))
        return len(self._nodes) - 1

    def addMeshInstance(self, nodeID: int, meshID: int, /) -> None:
        """Places a mesh at a node. Raises falcor.RuntimeError naming an unknown node or mesh ID."""
        nodeID, meshID = int(nodeID), int(meshID)
        if not 0 <= nodeID < len(self._nodes):
            raise _ext.RuntimeError(f"'nodeID' ({nodeID}) is out of range")
        if not 0 <= meshID < len(self._meshes):
            raise _ext.RuntimeError(f"'meshID' ({meshID}) is out of range")
        self._nodes[nodeID].mesh_ids.append(meshID)

    # ---- build ----
    def getScene(self) -> Scene:
        """Extension: builds the scene (once) and returns it."""
        if self._scene is None:
            from .scene import build_scene

            self._scene = build_scene(self)
        return self._scene

    def _add_dummy_mesh(self) -> None:
        _warn("Scene contains no meshes. Creating a dummy mesh.")
        mesh = TriangleMesh.from_arrays([(0, 0, 0)], [(0, 1, 0)], [(0, 0)], [0, 0, 0])
        mesh_id = self.addTriangleMesh(mesh, StandardMaterial("Dummy"))
        self.addMeshInstance(self.addNode("Dummy"), mesh_id)
