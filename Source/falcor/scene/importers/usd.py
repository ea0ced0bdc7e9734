"""USD importer (.usd, .usda, .usdc, .usdz), through Pixar's `pxr` package (the `usd` extra: usd-core).

pxr composes the stage (layers, references, payloads, variants, instancing); this module walks it and maps
it to Falcor's scene as Falcor 8's USDImporter does (docs/importers/usd.md has the full table):

- Stage: a root node "StageRoot" scales by metersPerUnit and, for Z-up stages, rotates by -90 degrees
  about X (Falcor is Y-up). Every Xformable prim is a node named by its path, holding its local transform
  (at the earliest time code); resetXformStack parents it to the root. Invisible prims and the guide and
  proxy purposes are pruned, as in Falcor.
- Time-sampled transforms become one node animation per prim (keys at time / timeCodesPerSecond, at the
  authored samples and between them); cameras and lights below an animated node follow it.
- UsdGeomMesh: polygons fan-triangulated (leftHanded orientation flips the winding); normals from
  primvars:normals or normals (constant, uniform, vertex, varying, faceVarying); texture coordinates from
  primvars:st / st_0 or the first texCoord2 primvar (v flipped to Falcor's top-left origin); meshes without
  normals get flat normals (scheme none/bilinear, as Falcor) or smooth normals (subdivision schemes, as
  USD's renderer draws their cage). Catmull-Clark meshes are refined to their `refinementLevel` (Falcor's
  attribute; default the stage's rtx:hydra:refinementLevel, else 0) when the result stays under 2M faces,
  else their cage is used (warning). GeomSubsets of the materialBind family become separate meshes.
- Implicit prims Sphere, Cube, Cylinder, Cone, Capsule, Plane (beyond Falcor): meshes as Storm tessellates
  them (see _usd_geometry), with their radius/height/size/axis attributes.
- Native instancing: a prim in a prototype becomes one mesh per (prototype prim, bound material), instanced
  by a node of every instance. PointInstancer: one node per instance (its transform at the earliest time)
  holding the prototype's subtree.
- Materials: UsdPreviewSurface -> StandardMaterial (see _usd_materials); material bindings are resolved
  per prim, instance proxies included (UsdShade's ComputeBoundMaterial, purpose full).
- Cameras: focalLength -> focalLength; horizontalAperture (if authored) -> frameWidth, else
  verticalAperture -> frameHeight (the same unit, so USD's tenths-of-a-unit convention keeps the field of
  view); clippingRange * metersPerUnit -> near/far; fStop -> apertureRadius (Falcor's formula).
- Lights (intensity * 2^exposure * color * blackbody): DistantLight -> DistantLight (half of angle);
  RectLight -> RectLight, DiskLight -> DiscLight (emitting along -Z), SphereLight -> SphereLight (PointLight
  when treatAsPoint or radius 0); `normalize` divides by the area. DomeLight -> the environment map
  (texture, intensity, tint, Falcor's rotation); a dome without texture is a constant environment.
- UsdSkel (see _usd_skel): a Skeleton's joints become nodes under the Skeleton's node, its bound SkelAnimation
  their node animation; skinned meshes (and rigidly bound implicit prims) get linear blend skinning.
- Skipped with a one-time warning naming the file and prim: curves, points, volumes, NURBS, blend shapes,
  render settings, MaterialX and other non-UsdPreviewSurface materials,
  vertex animation, other prim types.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ...falcor_ext import Logger
from ..asset_log import record_asset
from . import _imported as ir
from . import _usd_geometry as geo
from . import error, register_importer
from ._usd_materials import MaterialConverter
from ._usd_skel import SkelReader

INSTALL_HINT = 'pip install "falcor-cpu[usd]"'
MAX_KEYFRAMES = 10_000  # per node; longer time-sampled transforms are resampled evenly
SUBSAMPLES = 8  # keys per interval between authored transform samples (fewer than MAX_KEYFRAMES in all)
MAX_TEXT_NESTING = 10_000  # braces deep, in a text layer (see _check_text_nesting)
MAX_LAYERS = 100_000  # layers checked before the stage opens
_IMPLICIT = ("Sphere", "Cube", "Cylinder", "Cylinder_1", "Cone", "Capsule", "Capsule_1", "Plane")
# Handled through bindings (a SkelAnimation through its skeleton's); pruned quietly.
_SILENT = {"Material", "Shader", "NodeGraph", "GeomSubset", "SkelAnimation"}
_CONTAINERS = {"", "Xform", "Scope", "SkelRoot"}


def load_usd(path) -> ir.ImportedScene:
    """Read a USD stage; raises falcor.ImporterError naming the file if it can't be read."""
    path = ir.require_file(Path(path), "USD file")
    pxr = _pxr(path)
    layers = _prechecked_layers(path, pxr)  # kept open: the stage reuses them instead of parsing again
    stage = _open_stage(path, pxr)
    del layers
    _record_layers(stage)
    reader = _StageReader(path, stage, pxr)
    try:
        return reader.read()
    except geo.MeshDataError as e:
        raise error(path, str(e)) from e
    except pxr.Tf.ErrorException as e:
        raise error(path, f"USD error: {e}") from e
    except (ValueError, TypeError, IndexError, KeyError, OverflowError, RuntimeError, MemoryError) as e:
        raise error(path, f"invalid USD data ({type(e).__name__}: {e})") from e
    except Exception as e:  # pxr's C++ exceptions (Tf.CppException, ...) arrive as their own classes
        if type(e).__module__.startswith("pxr"):
            raise error(path, f"USD error: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from e
        raise
    finally:  # the stage, and with it pxr's cached layers, goes now, not at the next garbage collection
        reader.close()


def import_usd(path, builder, dict_=None):
    ir.add_to_scene_builder(load_usd(path), builder)


def _pxr(path):
    """The pxr modules, imported on first use (they take a second and are an optional extra)."""
    try:
        import pxr.Tf
        from pxr import Gf, Sdf, Usd, UsdGeom, UsdLux, UsdShade, UsdSkel
    except ImportError as e:
        raise error(path, f"reading USD files needs Pixar's pxr package ({e}); install it with {INSTALL_HINT}") from e
    return SimpleNamespace(Tf=pxr.Tf, Gf=Gf, Sdf=Sdf, Usd=Usd, UsdGeom=UsdGeom, UsdLux=UsdLux, UsdShade=UsdShade,
                           UsdSkel=UsdSkel)


def _prechecked_layers(path: Path, pxr) -> list:
    """Opens the root layer and every layer it brings in (sublayers, references, payloads, in all
    variants), checking each text file's nesting before pxr parses it (see _check_text_nesting)."""
    opened, pending, seen = [], [str(path)], set[str]()
    while pending:
        file = pending.pop()
        if file in seen or len(seen) >= MAX_LAYERS:
            continue
        seen.add(file)
        if os.path.exists(file) and not os.path.isfile(file):  # a FIFO or device could block pxr's read
            raise error(path, f"the layer '{file}' it brings in is not a regular file")
        if os.path.isfile(file):
            _check_text_nesting(path, Path(file))
        try:
            layer = pxr.Sdf.Layer.Find(file)
            if layer:  # still open from an earlier load (pxr caches open layers): re-read it if it changed
                layer.Reload()
            else:
                layer = pxr.Sdf.Layer.FindOrOpen(file)
        except Exception as e:  # pxr's errors: the root's is reported, a missing dependency is pxr's warning
            if file == str(path):
                raise error(path, f"pxr can't open the stage: {str(e).strip()}") from e
            continue
        if layer is None:
            continue
        opened.append(layer)
        pending.extend(layer.ComputeAbsolutePath(asset) for asset in layer.GetCompositionAssetDependencies() if asset)
    return opened


def _check_text_nesting(root: Path, path: Path) -> None:
    """pxr's text parser recurses once per nesting level and overflows the C++ stack (a segfault) between
    40,000 and 60,000 levels (8 MB stack), and slows down quadratically before (every prim path holds all
    its ancestors): refuse a text layer nested deeper than MAX_TEXT_NESTING before pxr sees it. Binary
    layers can't be checked without parsing them."""
    with open(path, "rb") as f:
        if f.read(5) != b"#usda":
            return
        f.seek(0)
        depth = deepest = 0
        while chunk := f.read(1 << 24):
            data = np.frombuffer(chunk, np.uint8)
            steps = (data == ord("{")).astype(np.int32) - (data == ord("}"))
            levels = depth + np.cumsum(steps)
            if levels.size:
                deepest, depth = max(deepest, int(levels.max())), int(levels[-1])
            if deepest > MAX_TEXT_NESTING:
                where = "" if path == root else f" (in the layer '{path}' it brings in)"
                raise error(root, f"the file nests more than {MAX_TEXT_NESTING} levels deep{where}; pxr's parser can't")


def _open_stage(path: Path, pxr):
    try:
        stage = pxr.Usd.Stage.Open(str(path), pxr.Usd.Stage.LoadAll)
    except Exception as e:  # pxr raises Tf.ErrorException and, for some inputs, plain RuntimeError
        raise error(path, f"pxr can't open the stage: {str(e).strip()}") from e
    if stage is None:
        raise error(path, "pxr can't open the stage")
    return stage


def _record_layers(stage) -> None:
    """pxr reads layers in C++, out of the audit hook's sight: record each one (a package, not its member)."""
    for layer in stage.GetUsedLayers():
        real = layer.realPath
        if real:
            record_asset(real.split("[", 1)[0])


class _StageReader:
    def __init__(self, path: Path, stage, pxr):
        self.path, self.stage, self.pxr = path, stage, pxr
        self.scene = ir.ImportedScene(path)
        self.time = pxr.Usd.TimeCode.EarliestTime()
        self.fps = _positive(stage.GetTimeCodesPerSecond(), 24.0)
        self.meters_per_unit = _positive(pxr.UsdGeom.GetStageMetersPerUnit(stage), 1.0)
        self.materials = MaterialConverter(self.scene, self.warn)
        self.mesh_cache: dict[tuple, list[int]] = {}
        self.refinement_level = _stage_refinement_level(stage)
        self.predicate = pxr.Usd.TraverseInstanceProxies(pxr.Usd.PrimDefaultPredicate)
        self.skel = SkelReader(self)
        self.prototype_depth = 0  # > 0 while walking a PointInstancer's prototypes

    def close(self) -> None:
        """Drops the stage and the converter (which calls back into this reader: a reference cycle)."""
        self.__dict__.clear()

    def warn(self, prim_path, message: str) -> None:
        Logger.log_once(Logger.Level.Warning, f"USD '{self.path}': {prim_path}: {message}")

    def read(self) -> ir.ImportedScene:
        up_z = self.pxr.UsdGeom.GetStageUpAxis(self.stage) == "Z"
        root = np.diag([self.meters_per_unit] * 3 + [1.0])
        if up_z:
            root = _rotation_x(-90.0) @ root
        self.scene.nodes.append(ir.Node("StageRoot", None, root))
        if "renderSettings" in dict(self.stage.GetRootLayer().customLayerData or {}):
            self.warn("/", "the layer's renderSettings (samples, bounces) are skipped")
        self._walk(self.stage.GetPseudoRoot(), 0, skip_self=True)
        self.skel.resolve()
        return self.scene

    # --- traversal ---

    def _walk(self, top, top_parent: int, skip_self: bool = False):
        """Depth-first over the prims under `top` (an explicit stack: stages can nest deeply)."""
        stack = [(child, top_parent) for child in reversed(self._children(top))] if skip_self else [(top, top_parent)]
        while stack:
            prim, parent = stack.pop()
            node = self._visit(prim, parent)
            if node is not None:
                stack.extend((child, node) for child in reversed(self._children(prim)))

    def _children(self, prim):
        return prim.GetFilteredChildren(self.predicate)

    def _visit(self, prim, parent: int) -> int | None:
        """Adds what the prim holds; returns the node its children hang from, or None to prune them."""
        UsdGeom = self.pxr.UsdGeom
        type_name = str(prim.GetTypeName())
        skeleton = prim.IsA(self.pxr.UsdSkel.Skeleton)
        # A Skeleton's visibility and purpose only concern drawing its bones; meshes are skinned by it anyway.
        if prim.IsA(UsdGeom.Imageable) and not skeleton and not self._renderable(prim):
            return None
        node = self._add_xform_node(prim, parent) if prim.IsA(UsdGeom.Xformable) else parent
        if type_name in _SILENT:
            return None
        if prim.IsA(UsdGeom.PointInstancer):
            self._point_instancer(prim, node)
            return None
        if prim.IsA(UsdGeom.Gprim) and prim.HasAPI(self.pxr.UsdLux.LightAPI):
            self.warn(prim.GetPath(), "the geometry's light (MeshLightAPI) is skipped; the geometry is imported")
        if prim.IsA(UsdGeom.Mesh):
            self._instance_meshes(prim, node, self._mesh_polygons)
        elif type_name in _IMPLICIT:
            self._instance_meshes(prim, node, self._implicit_polygons)
        elif prim.IsA(UsdGeom.Camera):
            self._camera(prim, node)
        elif self._is_light(prim):
            self._light(prim, node)
        elif type_name == "SkelRoot":
            self.skel.populate(prim)
        elif skeleton:
            self.skel.add_skeleton(prim, node)
        elif type_name not in _CONTAINERS:
            self.warn(prim.GetPath(), f"prim of type '{type_name}' is skipped (not supported)")
            return None
        return node

    def _renderable(self, prim) -> bool:
        imageable = self.pxr.UsdGeom.Imageable(prim)
        if imageable.GetPurposeAttr().Get() in ("guide", "proxy"):
            return False
        return imageable.GetVisibilityAttr().Get(self.time) != "invisible"

    # --- nodes and animation ---

    def _add_xform_node(self, prim, parent: int) -> int:
        xformable = self.pxr.UsdGeom.Xformable(prim)
        matrix = _matrix(xformable.GetLocalTransformation(self.time))
        if xformable.GetResetXformStack():
            parent = 0
        index = len(self.scene.nodes)
        self.scene.nodes.append(ir.Node(str(prim.GetPath()), parent, matrix))
        if xformable.TransformMightBeTimeVarying():
            self._animate(xformable, index)
        return index

    def _animate(self, xformable, node: int):
        times = np.asarray(xformable.GetTimeSamples(), float)
        if len(times) < 2:
            return
        if len(times) > MAX_KEYFRAMES:
            self.warn(xformable.GetPath(), f"{len(times)} transform samples are resampled to {MAX_KEYFRAMES}")
            times = np.linspace(times[0], times[-1], MAX_KEYFRAMES)
        elif len(times) * SUBSAMPLES <= MAX_KEYFRAMES:
            # USD interpolates each xformOp's values linearly; Falcor interpolates keyframes' translation
            # linearly and rotation by slerp, and cameras/lights below follow world-space keys: sampling
            # between the authored times keeps rotating hierarchies on their arcs.
            steps = np.linspace(0.0, 1.0, SUBSAMPLES, endpoint=False)
            times = np.append((times[:-1, None] + np.diff(times)[:, None] * steps).reshape(-1), times[-1])
        trs = [_trs(_matrix(xformable.GetLocalTransformation(float(t))), str(xformable.GetPath())) for t in times]
        seconds = times / self.fps
        channels = [ir.Channel(node, path, seconds, np.array([v[k] for v in trs], float))
                    for k, path in enumerate(("translation", "rotation", "scale"))]
        # One animation per node, lasting to its last sample, as Falcor's createAnimation.
        self.scene.animations.append(ir.Animation(str(xformable.GetPath()), channels))

    # --- geometry ---

    def _instance_meshes(self, prim, node: int, polygons_of):
        """The prim's meshes (converted once per prototype prim and material) instanced at its node. A
        skinned prim's meshes are its own: each instance proxy is skinned by its own skeleton's joints."""
        shared = prim.IsInstanceProxy() and not prim.HasAPI(self.pxr.UsdSkel.BindingAPI)
        source = prim.GetPrimInPrototype() if shared else prim
        parts = self._material_parts(prim)
        key = (str(source.GetPath()), tuple((m, None if f is None else f.tobytes()) for m, f in parts))
        if key not in self.mesh_cache:
            polygons = polygons_of(prim)
            self.mesh_cache[key] = self._add_meshes(prim, polygons, parts) if polygons is not None else []
        self.scene.nodes[node].meshes.extend(self.mesh_cache[key])

    def _material_parts(self, prim):
        """[(material index, face indices or None for the rest)]: the materialBind subsets, then the prim."""
        UsdShade = self.pxr.UsdShade
        binding = UsdShade.MaterialBindingAPI(prim)
        parts = []
        if prim.IsA(self.pxr.UsdGeom.Mesh):
            for subset in binding.GetMaterialBindSubsets():
                faces = np.asarray(subset.GetIndicesAttr().Get(self.time) or [], np.int64)
                material = UsdShade.MaterialBindingAPI(subset.GetPrim()).ComputeBoundMaterial(UsdShade.Tokens.full)[0]
                parts.append((self.materials.index(material or None, prim), faces))
        material = binding.ComputeBoundMaterial(UsdShade.Tokens.full)[0]
        parts.append((self.materials.index(material or None, prim), None))
        return parts

    def _add_meshes(self, prim, polygons, parts) -> list[int]:
        from ._usd_meshes import meshes_of

        added = []
        for mesh in meshes_of(self, prim, polygons, parts):
            added.append(len(self.scene.meshes))
            self.scene.meshes.append(mesh)
        return added

    def _mesh_polygons(self, prim):
        from ._usd_meshes import mesh_polygons

        return mesh_polygons(self, prim)

    def _implicit_polygons(self, prim):
        from ._usd_meshes import implicit_polygons

        return implicit_polygons(self, prim)

    def _point_instancer(self, prim, node: int):
        UsdGeom = self.pxr.UsdGeom
        instancer = UsdGeom.PointInstancer(prim)
        prototypes = instancer.GetPrototypesRel().GetForwardedTargets()
        indices = np.asarray(instancer.GetProtoIndicesAttr().Get(self.time) or [], np.int64)
        if indices.size and (indices.min() < 0 or indices.max() >= len(prototypes)):
            raise geo.MeshDataError(f"{prim.GetPath()}: protoIndices refer to prototypes that don't exist")
        matrices = instancer.ComputeInstanceTransformsAtTime(self.time, self.time, UsdGeom.PointInstancer.ExcludeProtoXform,
                                                             UsdGeom.PointInstancer.IgnoreMask)  # masked below
        if len(matrices) != len(indices):
            raise geo.MeshDataError(f"{prim.GetPath()}: the point instancer's arrays disagree in length")
        if len(instancer.GetPositionsAttr().GetTimeSamples()) > 1:
            self.warn(prim.GetPath(), "time-sampled instance positions are skipped (the earliest sample is used)")
        mask = instancer.ComputeMaskAtTime(self.time)
        roots = [self.stage.GetPrimAtPath(p) for p in prototypes]
        self.prototype_depth += 1
        try:
            self._instances(prim, node, indices, matrices, mask, roots)
        finally:
            self.prototype_depth -= 1

    def _instances(self, prim, node: int, indices, matrices, mask, roots):
        """One node per unmasked instance, holding its prototype's subtree (walked once, then copied)."""
        templates: dict[int, list[ir.Node] | None] = {}
        for i, (proto, matrix) in enumerate(zip(indices, matrices)):
            if mask and not mask[i]:
                continue
            instance_node = len(self.scene.nodes)
            self.scene.nodes.append(ir.Node(f"{prim.GetPath()}[{i}]", node, _matrix(matrix)))
            template = templates.get(int(proto))
            if template is not None:
                self._copy_subtree(template, instance_node)
            else:
                templates[int(proto)] = self._walk_template(roots[proto], instance_node)

    def _walk_template(self, root, instance_node: int) -> list[ir.Node] | None:
        """Walks a prototype once; its nodes (parents relative to the instance node, -1) are the template
        later instances copy without asking pxr again. None when it holds something that isn't a plain
        node (a camera, light or animation): then every instance walks it."""
        before = (len(self.scene.nodes), len(self.scene.cameras), len(self.scene.lights), len(self.scene.animations),
                  self.scene.env_map)
        self._walk(root, instance_node)
        start = before[0]
        if before != (start, len(self.scene.cameras), len(self.scene.lights), len(self.scene.animations),
                      self.scene.env_map):
            return None
        return [ir.Node(n.name, -1 if n.parent is None or n.parent == instance_node else n.parent - start, n.matrix,
                        n.meshes) for n in self.scene.nodes[start:]]

    def _copy_subtree(self, template: list[ir.Node], instance_node: int):
        if len(template) == 1:  # a lone prim (the common case): fold it into the instance's node
            instance = self.scene.nodes[instance_node]
            instance.matrix = instance.matrix @ template[0].matrix
            instance.meshes = list(template[0].meshes)
            return
        start = len(self.scene.nodes)
        for n in template:
            parent = instance_node if n.parent is None or n.parent == -1 else start + n.parent
            self.scene.nodes.append(ir.Node(n.name, parent, n.matrix, list(n.meshes)))

    # --- cameras and lights ---

    def _camera(self, prim, node: int):
        from ._usd_lights import camera

        self._place(camera(self, prim), node, self.scene.cameras)

    def _is_light(self, prim) -> bool:
        UsdLux = self.pxr.UsdLux
        return prim.HasAPI(UsdLux.LightAPI) or prim.IsA(UsdLux.BoundableLightBase) or prim.IsA(UsdLux.NonboundableLightBase)

    def _light(self, prim, node: int):
        from ._usd_lights import light

        placed = light(self, prim, node)
        if placed is not None:
            falcor_light, at = placed
            self._place(falcor_light, at, self.scene.lights)

    def _place(self, obj, node: int, into: list):
        """Puts a ready camera/light at its node now, and lets it follow the node if that is animated."""
        if obj is None:
            return
        obj.updateFromAnimation(self.scene.world_matrix(node))
        into.append(obj)
        self.scene.followers.append((obj, node))


# --- small helpers ----------------------------------------------------------------------------------


def _matrix(gf_matrix) -> np.ndarray:
    """A Gf.Matrix4d (row vectors: p' = p M) as a numpy matrix acting on column vectors."""
    m = np.array(gf_matrix, float).reshape(4, 4).T
    if not np.all(np.isfinite(m)):
        raise geo.MeshDataError("a transform is not finite")
    return m


def _trs(matrix: np.ndarray, what: str):
    translation, angles, scale = ir.decompose(matrix, what)
    w, x, y, z = ir._tf().quaternion_from_euler(angles[0], angles[1], angles[2], axes="sxyz")
    return np.asarray(translation, float), np.array([x, y, z, w]), np.asarray(scale, float)


def _rotation_x(degrees: float) -> np.ndarray:
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]], float)


def _positive(value, default: float) -> float:
    value = float(value) if value is not None else default
    return value if math.isfinite(value) and value > 0 else default


def _stage_refinement_level(stage) -> int:
    """Falcor reads the default refinement level from the layer's renderSettings (Omniverse's)."""
    settings = dict(stage.GetRootLayer().customLayerData or {}).get("renderSettings", {})
    try:
        return int(dict(settings).get("rtx:hydra:refinementLevel", 0))
    except (TypeError, ValueError):
        return 0


register_importer(["usd", "usda", "usdc", "usdz"], import_usd)
