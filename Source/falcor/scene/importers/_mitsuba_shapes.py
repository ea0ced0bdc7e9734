"""Mitsuba shapes as Falcor triangle meshes (part of the Mitsuba importer; see mitsuba.py).

Shapes are triangle meshes in world space (their to_world is applied to the vertices, so any affine
transform, shear included, is exact). Mitsuba's analytic shapes are tessellated as Mitsuba defines
their local geometry: rectangle [-1, 1]^2 at z = 0 facing +z, disk of radius 1 at z = 0 facing +z,
cube [-1, 1]^3 facing out, sphere of `radius` around `center` facing out.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from ... import falcor_ext as _ext
from . import _imported as ir
from ._mitsuba_materials import shape_material
from ._mitsuba_xml import Obj

SPHERE_SEGMENTS = (64, 32)  # longitude x latitude
DISK_SEGMENTS = 64
MAX_SHAPES = 100_000
MAX_TRIANGLES = 20_000_000  # over all shapes: instances and repeated analytic shapes are expanded


# --- shapes -----------------------------------------------------------------------------------------


def add_shape(b, obj: Obj, parent: np.ndarray) -> None:
    if obj.type == "shapegroup":
        return  # drawn by its instances
    if obj.type == "instance":
        return _instance(b, obj, parent)
    geometry = _geometry(b, obj)
    if geometry is None:
        return
    positions, normals, texcoords, indices = geometry
    b.triangles += len(indices)
    if b.triangles > MAX_TRIANGLES or len(b.scene.meshes) >= MAX_SHAPES:
        raise b.fail(obj.where, f"the scene expands to more than {MAX_SHAPES} shapes or {MAX_TRIANGLES} triangles")
    matrix = parent @ b.transform(obj)
    if b.value(obj, "flip_normals", "boolean", False):
        indices = indices[:, [0, 2, 1]]
        normals = -normals
    positions, normals = _to_world(b, obj, matrix, positions, normals)
    material = shape_material(b, obj)
    if material is None:
        return
    name = obj.id or _default_name(b, obj)
    b.scene.meshes.append(ir.Mesh(name, positions.astype(np.float32), normals.astype(np.float32),
                                  np.ascontiguousarray(indices, np.uint32), material,
                                  None if texcoords is None else texcoords.astype(np.float32)))
    b.scene.nodes[0].meshes.append(len(b.scene.meshes) - 1)
    for name in obj.props:
        if name not in ("to_world", "filename", "face_normals", "flip_normals", "center", "radius", "flip_tex_coords"):
            b.warn(obj.props[name].where, f"'{name}' of <shape type=\"{obj.type}\"> is skipped")


def _default_name(b, obj: Obj) -> str:
    filename = obj.props.get("filename")
    if filename is not None and filename.kind == "string":
        return Path(str(filename.value).replace("\\", "/")).stem
    return f"{obj.type}{len(b.scene.meshes)}"


def _instance(b, obj: Obj, parent: np.ndarray) -> None:
    groups = [g for _, g in obj.nested("shape") if g.type == "shapegroup"]
    if len(groups) != 1:
        raise b.fail(obj.where, "an instance needs exactly one shapegroup reference")
    matrix = parent @ b.transform(obj)
    for _, shape in groups[0].nested("shape"):
        if shape.type in ("shapegroup", "instance"):
            raise b.fail(shape.where, "a shapegroup can't hold shapegroups or instances")
        add_shape(b, shape, matrix)


def _to_world(b, obj: Obj, matrix: np.ndarray, positions: np.ndarray, normals: np.ndarray):
    linear = matrix[:3, :3]
    if abs(np.linalg.det(linear)) < 1e-30:
        raise b.fail(obj.where, "the shape's to_world is singular (it would have no area)")
    p = positions.astype(np.float64) @ linear.T + matrix[:3, 3]
    n = normals.astype(np.float64) @ np.linalg.inv(linear)  # inverse transpose, applied to rows
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.divide(n, length, out=np.zeros_like(n), where=length > 0)
    if not np.all(np.isfinite(p)) or np.max(np.abs(p), initial=0.0) > 3.0e38:
        raise b.fail(obj.where, "the shape's vertices overflow float in world space")
    return p, n


def _geometry(b, obj: Obj):
    """(positions, normals, texcoords or None, (T, 3) indices) in the shape's local space."""
    if obj.type in ("obj", "ply"):
        return _mesh_file(b, obj)
    if obj.type == "rectangle":
        p = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], float)
        return p, np.tile([0.0, 0.0, 1.0], (4, 1)), (p[:, :2] + 1) / 2, np.array([[0, 1, 2], [0, 2, 3]])
    if obj.type == "disk":
        return _disk()
    if obj.type == "cube":
        return _cube()
    if obj.type == "sphere":
        return _sphere(b, obj)
    b.warn(obj.where, f"<shape type=\"{obj.type}\"> is skipped (not mapped to Falcor)")
    return None


def _mesh_file(b, obj: Obj):
    from .obj import load_obj
    from .ply import load_ply

    filename = b.value(obj, "filename", "string")
    if filename is None:
        raise b.fail(obj.where, f"<shape type=\"{obj.type}\"> needs a filename")
    path = b.reader.resolve(filename, Path(obj.where.rsplit(":", 1)[0]))
    if path is None:
        raise b.fail(obj.where, f"can't find the mesh file '{filename}'")
    try:
        loaded = (load_obj if obj.type == "obj" else load_ply)(path)
    except _ext.ImporterError as e:  # name the scene file and line that use the mesh too
        raise b.fail(obj.where, str(e)) from e
    offsets = np.cumsum([0] + [len(m.positions) for m in loaded.meshes])
    positions = np.concatenate([m.positions for m in loaded.meshes])
    indices = np.concatenate([m.indices.reshape(-1, 3) + o for m, o in zip(loaded.meshes, offsets)])
    texcoords = None
    if any(m.texcoords is not None for m in loaded.meshes):
        texcoords = np.concatenate([m.texcoords if m.texcoords is not None else np.zeros((len(m.positions), 2), np.float32)
                                    for m in loaded.meshes])
        # Our readers flip v (v -> 1 - v); Mitsuba flips when flip_tex_coords is true: by default for OBJ, not for PLY.
        if not b.value(obj, "flip_tex_coords", "boolean", obj.type == "obj"):
            texcoords[:, 1] = 1.0 - texcoords[:, 1]
    has_normals = _file_has_normals(path, obj.type)
    if b.value(obj, "face_normals", "boolean", False):
        positions, normals, texcoords, indices = ir.flat_shaded(positions, indices, texcoords)
    elif has_normals:
        normals = np.concatenate([m.normals for m in loaded.meshes])
    else:
        normals = smooth_normals(positions, indices)  # Mitsuba computes vertex normals when the file has none
    return positions, normals, texcoords, indices


def _file_has_normals(path: Path, kind: str) -> bool:
    """Whether the file stores vertex normals (our readers make flat ones when it has none)."""
    with open(path, "rb") as f:
        data = f.read() if kind == "obj" else f.read(65536).split(b"end_header", 1)[0]
    if kind == "obj":
        return re.search(rb"^[ \t]*vn[ \t]", data, re.MULTILINE) is not None
    return re.search(rb"^property\s+\w+\s+nx\s*$", data, re.MULTILINE) is not None


def smooth_normals(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Angle-weighted vertex normals over corners that share a position (Mitsuba's vertex normals)."""
    unique, inverse = np.unique(positions, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    p = unique[inverse[indices]].astype(np.float64)  # (T, 3 corners, 3)
    face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    length = np.linalg.norm(face, axis=1, keepdims=True)
    face = np.divide(face, length, out=np.zeros_like(face), where=length > 0)
    accum = np.zeros((len(unique), 3))
    for k in range(3):
        e1 = p[:, (k + 1) % 3] - p[:, k]
        e2 = p[:, (k + 2) % 3] - p[:, k]
        cos = np.einsum("ij,ij->i", e1, e2) / np.maximum(np.linalg.norm(e1, axis=1) * np.linalg.norm(e2, axis=1), 1e-300)
        np.add.at(accum, inverse[indices[:, k]], face * np.arccos(np.clip(cos, -1, 1))[:, None])
    length = np.linalg.norm(accum, axis=1, keepdims=True)
    accum = np.divide(accum, length, out=np.zeros_like(accum), where=length > 0)
    return accum[inverse].astype(np.float32)


def _disk():
    phi = np.linspace(0.0, 2.0 * math.pi, DISK_SEGMENTS + 1)
    ring = np.stack([np.cos(phi), np.sin(phi), np.zeros_like(phi)], axis=1)
    positions = np.vstack([np.zeros((DISK_SEGMENTS + 1, 3)), ring])  # a centre copy per segment: Mitsuba's uv = (r, phi / 2 pi)
    texcoords = np.stack([np.r_[np.zeros(DISK_SEGMENTS + 1), np.ones(DISK_SEGMENTS + 1)], np.r_[phi, phi] / (2 * math.pi)], axis=1)
    k = np.arange(DISK_SEGMENTS)
    indices = np.stack([k, DISK_SEGMENTS + 1 + k, DISK_SEGMENTS + 2 + k], axis=1)
    return positions, np.tile([0.0, 0.0, 1.0], (len(positions), 1)), texcoords, indices


def _cube():
    positions, normals, texcoords, indices = [], [], [], []
    for axis in range(3):
        for sign in (-1.0, 1.0):
            n = np.zeros(3)
            n[axis] = sign
            u, v = np.zeros(3), np.zeros(3)
            u[(axis + 1) % 3], v[(axis + 2) % 3] = 1.0, 1.0
            if sign < 0:
                u, v = v, u  # keep (u x v) = n, so the corners wind counter-clockwise seen from outside
            base = len(positions)
            for a, c in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                positions.append(n + a * u + c * v)
                normals.append(n)
                texcoords.append(((a + 1) / 2, (c + 1) / 2))
            indices += [[base, base + 1, base + 2], [base, base + 2, base + 3]]
    return np.array(positions), np.array(normals), np.array(texcoords, float), np.array(indices)


def _sphere(b, obj: Obj):
    radius = b.number(obj, "radius", 1.0)
    center = b.value(obj, "center", "point", np.zeros(3))
    if not radius > 0:
        raise b.fail(obj.props["radius"].where, f"the sphere's radius must be positive, not {radius}")
    nu, nv = SPHERE_SEGMENTS
    phi = np.linspace(0.0, 2.0 * math.pi, nu + 1)
    theta = np.linspace(0.0, math.pi, nv + 1)
    t, f = np.meshgrid(theta, phi, indexing="ij")  # (nv + 1, nu + 1)
    unit = np.stack([np.sin(t) * np.cos(f), np.sin(t) * np.sin(f), np.cos(t)], axis=-1).reshape(-1, 3)
    uv = np.stack([f / (2 * math.pi), t / math.pi], axis=-1).reshape(-1, 2)
    i, j = np.meshgrid(np.arange(nv), np.arange(nu), indexing="ij")
    a = (i * (nu + 1) + j).ravel()
    b_, c, d = a + 1, a + nu + 1, a + nu + 2
    indices = np.concatenate([np.stack([a, c, d], 1), np.stack([a, d, b_], 1)])
    # Drop the triangles that collapse at the poles.
    p = unit[indices]
    keep = np.linalg.norm(np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), axis=1) > 1e-12
    return center + radius * unit, unit, uv, indices[keep]


