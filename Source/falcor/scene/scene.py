"""`Scene`: the loaded scene users edit (`m.scene`, `testbed.scene`, `falcor.load_scene`).

It is the source of truth; its `native` snapshot (`falcor.NativeScene`) is what render passes
read. `update(time)` runs once per frame: it evaluates animations, then pushes to the snapshot
only what changed (instance transforms, camera, lights, materials, environment map, settings)
and returns the SceneUpdateFlags bits of the frame.
"""
from __future__ import annotations

import copy
import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt

from .. import falcor_ext as _ext
from ..math_types import float3
from ..settings import Settings
from ._values import Vector3Like
from .aabb import AABB
from .light import Light
from .animation import INVALID_ID
from .camera import Camera
from .envmap import EnvMap
from .material import IMaterial
from .mesh_groups import order_meshes_and_instances
from .pretransform import pretransform_static_meshes
from .render_settings import SceneRenderSettings
from .scene_builder import SceneBuilder, SceneBuilderFlags, SceneLighting
from .tangents import generate_tangents
from .transform import inverse
from .update_flags import SceneUpdateFlags

_F = SceneUpdateFlags


def _warn(message: str) -> None:
    _ext.Logger.log(_ext.Logger.Level.Warning, message)


def _required(buffers: dict, name: str):
    if name not in buffers:
        raise _ext.RuntimeError(f"Mesh data buffer '{name}' is missing.")
    return buffers[name]


def _write_buffer(buffer, data: np.ndarray) -> None:
    if isinstance(buffer, np.ndarray):
        buffer.reshape(-1)[: data.size] = data.reshape(-1)
    else:
        buffer.from_numpy(np.ascontiguousarray(data))


def _read_floats(buffer, count: int, width: int) -> np.ndarray:
    raw = buffer if isinstance(buffer, np.ndarray) else buffer.to_numpy()
    values = raw.reshape(-1).view(np.float32) if raw.dtype == np.uint8 else raw.astype(np.float32).reshape(-1)
    if values.size < count * width:
        raise _ext.RuntimeError(f"Mesh data buffer holds {values.size} floats; {count * width} are needed.")
    return values[: count * width].reshape(count, width)


class MeshDesc:
    """What `Scene.get_mesh` returns."""

    def __init__(self, vertex_count: int, triangle_count: int) -> None:
        self.vertex_count, self.triangle_count = vertex_count, triangle_count


class BuiltMesh:
    """A mesh of a built scene as Python keeps it: its arrays live in the native scene."""

    def __init__(self, spec) -> None:
        self.name, self.material, self.material_id = spec.name, spec.material, spec.material_id
        self.vertex_count, self.triangle_count = len(spec.positions), len(spec.triangles)
        self.front_face_cw, self.is_animated = spec.front_face_cw, spec.is_animated


class _Geometry:
    """Meshes, instances and the node hierarchy of a built scene."""

    def __init__(self, meshes: list, instances: list, node_matrices: list, node_parents: list, skins: list) -> None:
        self.meshes = meshes            # BuiltMesh records
        self.instances = instances      # (mesh_id, node_id)
        self.skins = skins              # MeshSkin of each skinned mesh, with its mesh_id and bind pose
        self.local = [m.copy() for m in node_matrices]
        self.static_local = node_matrices
        self.parents = node_parents
        self.world = self._world_matrices()

    def _world_matrices(self) -> list:
        world: list[np.ndarray] = []
        for local, parent in zip(self.local, self.parents):
            world.append(local if parent == INVALID_ID else world[parent] @ local)
        return world

    def recompute_world(self) -> None:
        self.world = self._world_matrices()

    def instance_matrices(self) -> np.ndarray:
        return np.array([self.world[node] for _, node in self.instances], np.float32).reshape(-1, 4, 4)


# ---- building ----

def _merge_duplicate_materials(materials: list) -> tuple[list, dict]:
    """Falcor keeps one of each set of materials equal in everything but the name."""
    unique: list = []
    id_map: dict[int, int] = {}
    first_with_key: dict = {}
    for i, m in enumerate(materials):
        key = m._duplicate_key()
        j = first_with_key.get(key)
        if j is None:
            first_with_key[key] = id_map[i] = len(unique)
            unique.append(m)
        else:
            _ext.Logger.log(_ext.Logger.Level.Info, f"Removing duplicate material '{m.name}' (duplicate of '{unique[j].name}').")
            id_map[i] = j
    return unique, id_map


def _apply_texture_transform(texcoords: np.ndarray, material: IMaterial) -> np.ndarray:
    """Falcor bakes a material's texture transform into the UVs (its inverse, in 2D)."""
    m = material.textureTransform.matrix_array()
    if np.array_equal(m, np.eye(4)):
        return texcoords
    inv = inverse(m)
    return (texcoords.astype(np.float64) @ inv[:2, :2].T + inv[:2, 3]).astype(np.float32)


def _placements(builder: SceneBuilder) -> list:
    """The sorted unique nodes that place each mesh (Falcor keeps them as a set per mesh)."""
    placements: list[set[int]] = [set() for _ in builder._meshes]
    for node_id, node in enumerate(builder._nodes):
        for mesh_id in node.mesh_ids:
            placements[mesh_id].add(node_id)
    return [sorted(p) for p in placements]


def build_scene(builder: SceneBuilder) -> "Scene":
    contents, specs = build_contents(builder)
    return Scene(contents, builder.getSettings(), mesh_arrays=specs)


def build_contents(builder: SceneBuilder) -> tuple:
    """(SceneContents, the processed MeshSpecs in scene order) of what the builder holds."""
    flags = builder.flags
    if not builder._meshes:
        builder._add_dummy_mesh()
    materials = builder._materials
    if not flags & SceneBuilderFlags.DontOptimizeMaterials:
        for m in materials:
            m._optimize()
    id_map = {i: i for i in range(len(materials))}
    if not flags & SceneBuilderFlags.DontMergeMaterials:
        materials, id_map = _merge_duplicate_materials(materials)
    index_of = {id(m): i for i, m in enumerate(builder._materials)}

    placements = _placements(builder)
    used = [i for i, nodes in enumerate(placements) if nodes]
    if len(used) < len(builder._meshes):
        _warn(f"Scene has {len(builder._meshes) - len(used)} unused meshes that will be removed.")
    meshes = []
    for old in used:
        spec = builder._meshes[old]
        spec.material_id = id_map[index_of[id(spec.material)]]
        spec.texcoords = _apply_texture_transform(spec.texcoords, spec.material)
        spec.tangents = generate_tangents(spec.positions, spec.normals, spec.texcoords, spec.triangles)
        meshes.append(spec)
    moved = pretransform_static_meshes(meshes, [placements[i] for i in used], [n.matrix for n in builder._nodes],
                                       [n.parent for n in builder._nodes], {a.nodeID for a in builder._animations})
    order, instances = order_meshes_and_instances(moved.placements, moved.static, flags)
    specs = [moved.meshes[i] for i in order]
    geometry = _Geometry([BuiltMesh(m) for m in specs], instances, moved.matrices, moved.parents, _skins(specs))
    return SceneContents(builder, geometry, materials), specs


def _skins(specs: list) -> list:
    """The skins of the meshes (in scene order), each given its mesh id and the bind pose."""
    skins = []
    for mesh_id, spec in enumerate(specs):
        if spec.skin is not None:
            skin = spec.skin
            skin.mesh_id = mesh_id
            skin.bind_positions, skin.bind_normals, skin.bind_tangents = spec.positions, spec.normals, spec.tangents
            skins.append(skin)
    return skins


class SceneContents:
    """Everything a built scene is made of except the mesh arrays (which the native scene holds):
    picklable, so the scene cache can store it."""

    def __init__(self, builder: SceneBuilder, geometry: _Geometry, materials: list) -> None:
        self.geometry = geometry
        self.materials = list(materials)
        self.lights = list(builder._lights)
        self.cameras = list(builder._cameras)
        self.selected_camera = builder._selected_camera
        self.animations = list(builder._animations)
        self.env_map = builder._env_map
        self.render_settings = builder._render_settings._copy()
        self.camera_speed = builder._camera_speed
        self.flags = builder.flags
        self.import_paths = list(builder.import_paths)
        self.import_dicts = list(builder.import_dicts)


class Scene(SceneLighting):
    def __init__(self, contents: SceneContents, settings, mesh_arrays: list | None = None,
                 geometry_cache: tuple | None = None) -> None:
        """A scene from its contents, with the mesh arrays given (`mesh_arrays`: the MeshSpecs, in
        the order of contents.geometry.meshes) or read from a scene cache file (`geometry_cache`:
        (path, byte offset), which also holds the bottom-level trees)."""
        geometry = contents.geometry
        self._geometry = geometry
        self._materials = list(contents.materials)
        self._lights = list(contents.lights)
        self._cameras = list(contents.cameras)
        self._animations = list(contents.animations)
        self._env_map = contents.env_map
        self._render_settings = contents.render_settings._copy()
        self._camera_speed = contents.camera_speed
        self._settings = settings
        self._flags = contents.flags
        self.import_paths = list(contents.import_paths)
        self.import_dicts = list(contents.import_dicts)
        self._camera_bounds: AABB | None = None
        self._borrow_lock = threading.RLock()  # falcor.render calls on this scene take turns
        self._animations_enabled = True
        self.loopAnimations = True

        self.native = _ext.NativeScene()
        if geometry_cache is not None:
            self.native.read_geometry_cache(os.fspath(geometry_cache[0]), geometry_cache[1])
        for mesh in mesh_arrays or []:
            self.native.add_mesh(mesh.name, mesh.positions, mesh.normals, mesh.tangents, mesh.texcoords, mesh.triangles,
                                 mesh.material_id, mesh.front_face_cw, mesh.is_animated)
        for skin in geometry.skins:
            self.native.set_mesh_skin(skin.mesh_id, skin.bind_positions, skin.bind_normals, skin.bind_tangents,
                                      skin.joint_indices, skin.weights, len(skin.joints))
        self._skins_posed = False
        world = geometry.instance_matrices()
        for (mesh_id, node_id), matrix in zip(geometry.instances, world):
            self.native.add_instance(mesh_id, node_id, matrix)
        for i, m in enumerate(self._materials):
            m._update()
            self.native.set_material(i, m._native_data())
        self.native.finalize()

        if not self._cameras:
            self._cameras.append(self._default_camera())
        self._selected_camera = min(contents.selected_camera, len(self._cameras) - 1)
        self._viewpoints: list = []
        self._current_viewpoint = 0
        self._pushed: dict = {}  # what the snapshot last received (versions, objects)
        self._anim_state: tuple[bool, float, float] | None = None  # (enabled, time, previous time) of the last update
        self.update(0.0)  # the first frame: animations at time 0, previous-frame data = current
        self.addViewpoint()  # viewpoint 0: the selected camera as loaded

    def _default_camera(self) -> Camera:
        """A camera at the center of the bounds looking down -Z, with a depth range fitting them."""
        camera = Camera()
        bounds = self.bounds
        center, radius = bounds.center, bounds.radius
        camera.position, camera.target, camera.up = center, center + float3(0, 0, -1), float3(0, 1, 0)
        camera.nearPlane, camera.farPlane = max(0.1, radius / 750.0), radius * 50.0
        return camera

    def __repr__(self):
        return f"Scene({len(self._geometry.meshes)} meshes, {len(self._geometry.instances)} instances)"

    # ---- per-frame update ----
    def update(self, time: float) -> SceneUpdateFlags:
        """Brings the render-side snapshot to `time` (seconds); returns what changed."""
        moved_nodes = self._animate(float(time))
        extra = 0
        if moved_nodes:
            extra |= int(_F.SceneGraphChanged)
            if any(node in moved_nodes for _, node in self._geometry.instances):
                self.native.set_instance_transforms(self._geometry.instance_matrices())
        self._pose_skins(moved_nodes)
        self._push_edits(moved_nodes)
        return SceneUpdateFlags(self.native.update(extra))

    def _pose_skins(self, moved_nodes: set) -> None:
        """Skins the meshes whose joints moved (all of them in the first update: joints at rest
        need not be at their bind pose)."""
        world = self._geometry.world
        for skin in self._geometry.skins:
            if not self._skins_posed or any(int(j) in moved_nodes for j in skin.joints):
                self.native.set_skinning_matrices(skin.mesh_id, skin.skinning_matrices(world))
        self._skins_posed = True

    def _push_edits(self, moved_nodes: set) -> None:
        """Sends the snapshot what changed (animated objects on `moved_nodes` follow their nodes);
        its next update reports it."""
        self._update_camera(moved_nodes)
        self._update_lights(moved_nodes)
        self._update_materials()
        self._update_env_map()
        settings = self._render_settings._key()
        if self._pushed.get("settings") != settings:
            self.native.set_render_settings(dict(zip(("useEnvLight", "useAnalyticLights", "useEmissiveLights",
                                                      "useGridVolumes", "diffuseAlbedoMultiplier"), settings)))
            self._pushed["settings"] = settings

    @contextmanager
    def _borrowed(self) -> Iterator[None]:
        """Exclusive use of the scene for one render (`falcor.render`). Borrowers take turns (a
        lock per scene); each starts a new frame history, so it renders the same bits whatever
        ran before. Afterwards the scene is as its owner left it: cameras, lights, animation
        state and the snapshot's frame state (instance matrices, camera jitter and history) are
        put back. The owner's edits not yet sent to the snapshot are sent first, before the save:
        the render shows them, and the owner's next update still reports them. Edits from other
        threads during the render are not supported (as with any render of the scene)."""
        with self._borrow_lock:
            self._push_edits(set())
            saved = self._save_frame_state()
            try:
                self.reset_frame_history()
                yield
            finally:
                self._restore_frame_state(saved)

    def _save_frame_state(self) -> tuple:
        # Renders replace these objects' attributes and list items, never edit them in place.
        objects = [(obj, dict(vars(obj))) for obj in self._cameras + self._lights]
        geometry = (list(self._geometry.local), list(self._geometry.world))
        return self.native.save_frame_state(), objects, geometry, self._anim_state, copy.deepcopy(self._pushed)

    def _restore_frame_state(self, saved: tuple) -> None:
        native_state, objects, geometry, self._anim_state, self._pushed = saved
        for obj, attributes in objects:
            vars(obj).update(attributes)
        self._geometry.local, self._geometry.world = geometry
        self.native.restore_frame_state(native_state)

    def reset_frame_history(self) -> None:
        """Extension: the next `update` starts a new frame history, as the first one after loading
        does: animations start from the static transforms and previous-frame data (motion vectors)
        equals the current frame's. Batch tasks use it so a task renders the same bits whatever the
        scene showed before."""
        self._anim_state = None
        self.native.reset_frame_history()

    def _animate(self, time: float) -> set:
        """Evaluates the animations as Falcor's AnimationController does; returns the nodes whose
        world matrix was recomputed. The first update (and enabling/disabling animation) starts
        from the static transforms; later updates run while the time changes, plus one more
        after it stops, so previous-frame matrices settle."""
        if not self._animations:
            return set()
        length = max(a.duration for a in self._animations)
        t = math.fmod(time, length) if self.loopAnimations and length > 0 else time
        geo, enabled, state = self._geometry, self._animations_enabled, self._anim_state
        if state is None or state[0] != enabled:
            geo.local = [m.copy() for m in geo.static_local]
            animated, changed = (self._animations if enabled else []), set(range(len(geo.local)))
            self._anim_state = (enabled, t, t)
        elif enabled and (t != state[1] or state[1] != state[2]):
            animated = self._animations
            changed = self._with_descendants({a.nodeID for a in animated})
            self._anim_state = (enabled, t, state[1])
        else:
            return set()
        for a in animated:
            geo.local[a.nodeID] = a.animate(t)
        geo.recompute_world()
        return changed

    def _with_descendants(self, nodes: set) -> set:
        result = set(nodes)
        for i, parent in enumerate(self._geometry.parents):  # parents precede children
            if parent in result:
                result.add(i)
        return result

    def _animate_object(self, obj, moved_nodes: set) -> None:
        node = obj._node_id
        if node != INVALID_ID and obj.hasAnimation and obj.animated and node in moved_nodes:
            obj.updateFromAnimation(self._geometry.world[node])

    def _update_camera(self, moved_nodes: set) -> None:
        camera = self.camera
        self._animate_object(camera, moved_nodes)
        key = (id(camera), camera._version)
        if self._pushed.get("camera") != key:
            switched = "camera" in self._pushed and self._pushed["camera"][0] != id(camera)
            self.native.set_camera(camera._native_params(), switched)
            self._pushed["camera"] = key

    def _update_lights(self, moved_nodes: set) -> None:
        for light in self._lights:
            if light.active:
                self._animate_object(light, moved_nodes)
        versions = [(id(l), l._version, l.active) for l in self._lights]
        if self._pushed.get("lights") == versions:
            return
        active = [id(l) for l in self._lights if l.active]
        active_changed = self._pushed.get("active_lights") not in (None, active)
        self.native.set_lights([l._native_data() for l in self._lights if l.active], active_changed)
        self._pushed["lights"], self._pushed["active_lights"] = versions, active

    def _update_materials(self) -> None:
        seen = self._pushed.setdefault("materials", {})
        for i, m in enumerate(self._materials):
            m._update()
            if seen.get(i) != (id(m), m._version):
                if i in seen or i >= self.native.material_count:
                    self.native.set_material(i, m._native_data())
                seen[i] = (id(m), m._version)

    def _update_env_map(self) -> None:
        env = self._env_map
        key = None if env is None else (id(env), env._version)
        if self._pushed.get("envmap", "unset") != key:
            self.native.set_env_map(None if env is None else env._native_data())
            self._pushed["envmap"] = key

    # ---- cameras and viewpoints ----
    @property
    def camera(self) -> Camera:
        return self._cameras[self._selected_camera]

    @camera.setter
    def camera(self, camera: Camera) -> None:
        index = next((i for i, c in enumerate(self._cameras) if c is camera), None)
        if index is None:
            if camera is not None:
                _warn(f"Selected camera '{camera.name}' does not exist.")
            return
        self._selected_camera = index

    @property
    def cameras(self) -> list:
        return list(self._cameras)

    @property
    def cameraSpeed(self) -> float:
        return self._camera_speed

    @cameraSpeed.setter
    def cameraSpeed(self, speed: float) -> None:
        self._camera_speed = max(0.0, float(np.float32(speed)))

    def setCameraBounds(self, minPoint: Vector3Like, maxPoint: Vector3Like) -> None:
        self._camera_bounds = AABB(minPoint, maxPoint)

    def addViewpoint(self, position: Vector3Like | None = None, target: Vector3Like | None = None,
                     up: Vector3Like | None = None, cameraIndex: int = 0) -> None:
        """Without arguments: the selected camera's current placement."""
        if position is None:
            c = self.camera
            position, target, up, cameraIndex = c.position, c.target, c.up, self._selected_camera
        self._viewpoints.append((int(cameraIndex), float3(position), float3(target), float3(up)))
        self._current_viewpoint = len(self._viewpoints) - 1

    def removeViewpoint(self) -> None:
        if self._current_viewpoint == 0:
            _warn("Cannot remove default viewpoint.")
            return
        del self._viewpoints[self._current_viewpoint]
        self._current_viewpoint = min(self._current_viewpoint, len(self._viewpoints) - 1)

    def selectViewpoint(self, index: int) -> None:
        if not 0 <= index < len(self._viewpoints):
            _warn("Viewpoint does not exist.")
            return
        camera_index, position, target, up = self._viewpoints[index]
        if camera_index < len(self._cameras):
            self._selected_camera = camera_index
        camera = self.camera
        camera.position, camera.target, camera.up = position, target, up
        self._current_viewpoint = index

    # ---- lights, materials, animation, settings ----
    @property
    def lights(self) -> list:
        return list(self._lights)

    @property
    def gridVolumes(self) -> list:
        return []

    volumes = gridVolumes

    def getGridVolume(self, key: str | int) -> None:
        return None

    getVolume = getGridVolume

    def getLight(self, key: str | int) -> Light | None:
        if isinstance(key, str):
            return next((l for l in self._lights if l.name == key), None)
        return self._lights[int(key)] if 0 <= int(key) < len(self._lights) else None

    @property
    def materials(self) -> list:
        return list(self._materials)

    def get_material(self, key: str | int) -> IMaterial | None:
        if isinstance(key, str):
            return next((m for m in self._materials if m.name == key), None)
        index = int(key)
        if not 0 <= index < len(self._materials):
            raise _ext.RuntimeError(f"Material index {index} is out of range ({len(self._materials)} materials).")
        return self._materials[index]

    getMaterial = get_material

    def addMaterial(self, material: IMaterial) -> int:
        for i, m in enumerate(self._materials):
            if m is material:
                return i
        self._materials.append(material)
        return len(self._materials) - 1

    def replace_material(self, index: int, replacement_material: IMaterial) -> None:
        self.get_material(index)  # range check
        self._materials[int(index)] = replacement_material

    def getGeometryIDsForMaterial(self, material: IMaterial) -> list:
        index = next((i for i, m in enumerate(self._materials) if m is material), None)
        return [i for i, mesh in enumerate(self._geometry.meshes) if mesh.material_id == index]

    def get_mesh(self, mesh_id: int) -> MeshDesc:
        mesh = self._geometry.meshes[int(mesh_id)]
        return MeshDesc(mesh.vertex_count, mesh.triangle_count)

    def getGeometryUVTiles(self, geometryID: int) -> list:
        return []

    @property
    def animations(self) -> list:
        return list(self._animations)

    @property
    def animated(self) -> bool:
        return self._animations_enabled

    @animated.setter
    def animated(self, enabled: bool) -> None:
        self._animations_enabled = bool(enabled)

    @property
    def hasAnimation(self) -> bool:
        """Extension: whether the scene has any animation."""
        return bool(self._animations)

    def setEnvMap(self, path: str | os.PathLike[str]) -> bool:
        try:
            self._env_map = EnvMap(path)
        except _ext.RuntimeError:
            _warn(f"Failed to load environment map from '{os.fspath(path)}'.")
            return False
        return True

    def getSettings(self) -> Settings:
        return self._settings

    # ---- queries ----
    @property
    def bounds(self) -> AABB:
        lo, hi = self.native.bounds
        return AABB(lo, hi)

    def cast_rays(self, origins: npt.ArrayLike, directions: npt.ArrayLike, t_min: npt.ArrayLike = 0.0,
                  t_max: npt.ArrayLike = math.inf, any_hit: bool = False) -> dict:
        """Extension: traces world-space rays (arrays (K, 3); t ranges scalars or (K,)), alpha-tested.
        Closest hits: {'hit', 't', 'instance_id', 'primitive_index', 'barycentrics'} (misses have
        t = inf and ids 0xFFFFFFFF); with any_hit: {'hit'}."""
        return self.native.cast_rays(origins, directions, t_min, t_max, any_hit)

    @property
    def memory_usage(self) -> int:
        s = self.stats
        return s["geometryMemoryInBytes"] + s["textureMemoryInBytes"] + s["lightsMemoryInBytes"] + s["envMapMemoryInBytes"]

    @property
    def stats(self) -> dict:
        from .scene_stats import scene_stats

        return scene_stats(self)

    def get_mesh_vertices_and_indices(self, mesh_id: int, buffers: dict) -> None:
        """Writes the mesh's `positions` (float3), `texcrds` (float3, z = 0) and `triangleIndices`
        (uint3) into the given buffers (falcor Buffers or numpy arrays)."""
        a = self.native.get_mesh_arrays(int(mesh_id))
        texcrds = np.concatenate([a["texcoords"], np.zeros((len(a["texcoords"]), 1), np.float32)], axis=1)
        for name, data in (("triangleIndices", a["triangles"]), ("positions", a["positions"]), ("texcrds", texcrds)):
            _write_buffer(_required(buffers, name), data)

    def set_mesh_vertices(self, mesh_id: int, buffers: dict) -> None:
        """Replaces the mesh's vertex data from float3 buffers `positions`, `normals`, `tangents`
        (bitangent sign +1) and `texcrds` (xy used); takes effect at the next update."""
        n = self.get_mesh(mesh_id).vertex_count
        pos, nrm, tan, tex = (_read_floats(_required(buffers, k), n, 3) for k in ("positions", "normals", "tangents", "texcrds"))
        self.native.set_mesh_vertices(int(mesh_id), pos, nrm, np.concatenate([tan, np.ones((n, 1), np.float32)], axis=1),
                                      tex[:, :2])

    def get_material_params(self, material_ids_buffer, params_buffer) -> None:
        raise _ext.RuntimeError("get_material_params works on GPU buffers (differentiable rendering): not supported by the CPU engine.")

    def set_material_params(self, material_ids_buffer, params_buffer) -> None:
        raise _ext.RuntimeError("set_material_params works on GPU buffers (differentiable rendering): not supported by the CPU engine.")

    def getScript(self, var: str) -> str:
        """Python lines restoring the scene state (Falcor's config export)."""
        lines = f"{var}.renderSettings = {self._render_settings!r}\n"
        if self._animations and not self._animations_enabled:
            lines += f"{var}.animated = False\n"
        for i, l in enumerate(self._lights):
            if l.hasAnimation and not l.animated:
                lines += f"{var}.getLight({i}).animated = False\n"
        if self._selected_camera != 0:
            lines += f"{var}.camera = {var}.cameras[{self._selected_camera}]\n"
        lines += self.camera.getScript(f"{var}.camera")
        lines += f"{var}.cameraSpeed = {np.format_float_positional(np.float32(self._camera_speed), trim='-')}\n"
        return lines
