"""UsdGeomMesh and implicit prims to the importer's triangle meshes (the pxr side of _usd_geometry)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import _imported as ir
from . import _usd_geometry as geo
from ._usd_skel import PointInfluences


@dataclass
class Surface:
    polygons: geo.Polygons
    normals: geo.Primvar | None = None  # authored normals
    uv: geo.Primvar | None = None
    holes: np.ndarray | None = None
    influences: PointInfluences | None = None  # skinning (UsdSkel)


def _array(value, dtype, width: int | None = None) -> np.ndarray:
    a = np.asarray(value if value is not None else [], dtype)
    return a.reshape(-1, width) if width else a.reshape(-1)


def mesh_polygons(reader, prim) -> Surface | None:
    UsdGeom, t = reader.pxr.UsdGeom, reader.time
    mesh = UsdGeom.Mesh(prim)
    path = prim.GetPath()
    poly = geo.Polygons(_array(mesh.GetPointsAttr().Get(t), np.float64, 3),
                        _array(mesh.GetFaceVertexCountsAttr().Get(t), np.int64),
                        _array(mesh.GetFaceVertexIndicesAttr().Get(t), np.int64),
                        str(mesh.GetSubdivisionSchemeAttr().Get() or "catmullClark"),
                        mesh.GetOrientationAttr().Get() == "leftHanded")
    try:
        poly.validate()
    except geo.MeshDataError as e:
        raise geo.MeshDataError(f"mesh '{path}': {e}") from e
    if len(mesh.GetPointsAttr().GetTimeSamples()) > 1:
        reader.warn(path, "vertex animation (time-sampled points) is skipped; the earliest sample is used")
    holes = _array(mesh.GetHoleIndicesAttr().Get(t), np.int64)
    surface = Surface(poly, _normals(reader, mesh), _texcoords(reader, prim), holes,
                      reader.skel.influences(prim, len(poly.points)))
    return _refined(reader, prim, surface)


def _normals(reader, mesh) -> geo.Primvar | None:
    primvar = reader.pxr.UsdGeom.PrimvarsAPI(mesh).GetPrimvar("normals")
    if primvar and primvar.HasValue():
        return geo.Primvar(_array(primvar.ComputeFlattened(reader.time), np.float64, 3), str(primvar.GetInterpolation()))
    attribute = mesh.GetNormalsAttr()
    if attribute.HasAuthoredValue():
        return geo.Primvar(_array(attribute.Get(reader.time), np.float64, 3), str(mesh.GetNormalsInterpolation()))
    return None


def _texcoords(reader, prim) -> geo.Primvar | None:
    """Falcor's choice: primvars:st or st_0, else the first primvar of a texCoord2 type."""
    Sdf = reader.pxr.Sdf
    uv_types = {Sdf.ValueTypeNames.TexCoord2fArray, Sdf.ValueTypeNames.TexCoord2dArray, Sdf.ValueTypeNames.TexCoord2hArray}
    candidates = [pv for pv in reader.pxr.UsdGeom.PrimvarsAPI(prim).GetPrimvarsWithValues()
                  if pv.GetPrimvarName() in ("st", "st_0") or pv.GetTypeName() in uv_types]
    if not candidates:
        return None
    candidates.sort(key=lambda pv: pv.GetPrimvarName() not in ("st", "st_0"))
    if len(candidates) > 1:
        reader.warn(prim.GetPath(), f"{len(candidates)} sets of texture coordinates; '{candidates[0].GetPrimvarName()}' "
                                    "is used, the others are skipped")
    primvar = candidates[0]
    values = _array(primvar.ComputeFlattened(reader.time), np.float64)
    if values.size % 2:
        reader.warn(prim.GetPath(), f"texture coordinates '{primvar.GetPrimvarName()}' are not 2D; they are skipped")
        return None
    return geo.Primvar(values.reshape(-1, 2), str(primvar.GetInterpolation()))


def _refined(reader, prim, surface: Surface) -> Surface:
    """Catmull-Clark refinement to the mesh's refinementLevel when cheap, else (or for Loop) the cage."""
    poly = surface.polygons
    if poly.scheme not in ("catmullClark", "loop"):
        return surface
    level = _refinement_level(prim, reader.refinement_level)
    if level <= 0:
        return surface
    path = prim.GetPath()
    if surface.influences is not None and not surface.influences.constant:
        reader.warn(path, "a skinned mesh is not refined (its cage is used), as in Falcor: "
                          "the influences are per cage point")
        return surface
    if poly.scheme == "loop":
        reader.warn(path, "Loop subdivision is not supported; the cage is used")
        return surface
    faces = max(len(poly.counts), 1) * 4.0 ** min(level, 64)
    if level > geo.MAX_REFINEMENT_LEVEL or faces > geo.MAX_REFINED_FACES:
        reader.warn(path, f"refinement level {level} would make {faces:.3g} faces; the cage is used")
        return surface
    attributes = [a for a in ("creaseIndices", "cornerIndices") if prim.GetAttribute(a).HasAuthoredValue()]
    if attributes:
        reader.warn(path, f"{' and '.join(attributes)} are ignored by the refinement (smooth everywhere)")
    if surface.holes is not None and surface.holes.size:
        reader.warn(path, "hole faces are not kept by the refinement")
    uv = surface.uv
    if uv is not None and uv.interpolation in ("vertex", "varying"):  # refined per corner of the cage
        if len(uv.values) < len(poly.points):
            raise geo.MeshDataError(f"mesh '{path}': texture coordinates have fewer values than points")
        uv = geo.Primvar(uv.values[poly.indices], "faceVarying")
    if uv is not None and uv.interpolation == "faceVarying" and len(uv.values) < len(poly.indices):
        raise geo.MeshDataError(f"mesh '{path}': texture coordinates have fewer values than face vertices")
    refined, uv = geo.refine_catmull_clark(poly, uv, level)
    return Surface(refined, None, uv, None, surface.influences)


def _refinement_level(prim, default: int) -> int:
    override = prim.GetAttribute("refinementEnableOverride")
    if override and override.Get() is False:
        return default
    attribute = prim.GetAttribute("refinementLevel")
    value = attribute.Get() if attribute else None
    try:
        return int(value) if value is not None else default
    except (TypeError, ValueError, OverflowError):
        return default


def implicit_polygons(reader, prim) -> Surface:
    """The implicit prim as Storm tessellates it."""
    t, type_name = reader.time, str(prim.GetTypeName())

    def get(name, default):
        attribute = prim.GetAttribute(name)
        value = attribute.Get(t) if attribute else None
        return float(value) if value is not None else default

    def axis():
        attribute = prim.GetAttribute("axis")
        return str(attribute.Get(t) or "Z") if attribute else "Z"

    if type_name == "Sphere":
        poly = geo.sphere(get("radius", 1.0))
    elif type_name == "Cube":
        poly = geo.cube(get("size", 2.0))
    elif type_name.startswith("Cylinder"):
        radius = get("radius", 1.0)
        poly = geo.cylinder(get("radiusBottom", radius), get("radiusTop", radius), get("height", 2.0), axis())
    elif type_name == "Cone":
        poly = geo.cone(get("radius", 1.0), get("height", 2.0), axis())
    elif type_name.startswith("Capsule"):
        radius = get("radius", 0.5)
        poly = geo.capsule(get("radiusBottom", radius), get("radiusTop", radius), get("height", 1.0), axis())
    else:
        poly = geo.plane(get("width", 2.0), get("length", 2.0), axis())
    try:
        poly.validate()
    except geo.MeshDataError as e:
        raise geo.MeshDataError(f"{type_name} '{prim.GetPath()}': {e}") from e
    # No texture coordinates: Storm generates none for implicit prims.
    return Surface(poly, influences=reader.skel.influences(prim, None))


def meshes_of(reader, prim, surface: Surface, parts) -> list[ir.Mesh]:
    """The triangle meshes of a surface: one per material part (materialBind subsets, then the rest)."""
    poly = surface.polygons
    tris = geo.triangulate(poly, surface.holes if surface.holes is not None else ())
    normals = surface.normals
    if normals is None:
        if poly.scheme in ("catmullClark", "loop"):
            normals = geo.Primvar(geo.smooth_normals(poly), "vertex")
        else:
            normals = geo.Primvar(geo.flat_normals(poly, tris), "uniform")
    name = str(prim.GetPath())
    vertex_normals = geo.primvar_per_corner(normals, poly, tris, f"normals of '{name}'")
    uv = None if surface.uv is None else geo.primvar_per_corner(surface.uv, poly, tris, f"texture coordinates of '{name}'")
    if not np.all(np.isfinite(vertex_normals)) or (uv is not None and not np.all(np.isfinite(uv))):
        raise geo.MeshDataError(f"mesh '{name}' has normals or texture coordinates that are not finite")
    shared = geo.is_per_point(normals) and geo.is_per_point(surface.uv)
    meshes = []
    assigned = np.zeros(len(tris.faces), bool)
    for material, faces in parts:
        if faces is None:
            select = ~assigned
        else:
            select = np.isin(tris.faces, faces) & ~assigned
            assigned |= select
        if not select.any():
            continue
        part_name = name if faces is None else f"{name}:{material}"
        part_uv = uv
        transform = reader.materials.uv_transforms.get(material)
        if uv is not None and transform is not None:
            part_uv = uv @ transform[:2, :2].T + transform[:2, 2]
        mesh, points = _triangle_mesh(part_name, poly, tris, select, vertex_normals, part_uv, material, shared)
        if surface.influences is not None:
            mesh.skin = surface.influences.skin(points)
            reader.skel.skinned(surface.influences, mesh)
        meshes.append(mesh)
    return meshes


def _triangle_mesh(name, poly, tris, select, corner_normals, corner_uv, material, shared) -> tuple[ir.Mesh, np.ndarray]:
    """The mesh of the selected triangles, and the point each of its vertices comes from."""
    if shared:  # every attribute is per point: keep the points shared (compacted to those used)
        used, indices = np.unique(tris.points[select], return_inverse=True)
        first_corner = np.zeros(len(poly.points), np.int64)
        flat_points = tris.points.reshape(-1)
        first_corner[flat_points[::-1]] = np.arange(len(flat_points))[::-1]
        corner = first_corner[used]
        normals = corner_normals.reshape(-1, 3)[corner]
        uv = None if corner_uv is None else corner_uv.reshape(-1, 2)[corner]
        points = used
        indices = indices.reshape(-1, 3)
    else:  # some attribute varies per face or corner: every triangle corner is its own vertex
        points = tris.points[select].reshape(-1)
        normals = corner_normals[select].reshape(-1, 3)
        uv = None if corner_uv is None else corner_uv[select].reshape(-1, 2)
        indices = np.arange(len(points)).reshape(-1, 3)
    positions = poly.points[points]
    if uv is not None:
        uv = np.column_stack([uv[:, 0], 1.0 - uv[:, 1]])  # USD's origin is the image's bottom-left
    return ir.Mesh(name, positions.astype(np.float32), normals.astype(np.float32), indices.astype(np.uint32),
                   material, None if uv is None else uv.astype(np.float32)), points
