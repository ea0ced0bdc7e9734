"""`TriangleMesh`: an indexed triangle mesh built in Python (vertices with position, normal and
texture coordinate) and Falcor's procedural primitives."""
from __future__ import annotations

import enum
import math
import os
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .. import falcor_ext as _ext
from ..math_types import float2, float3
from .asset_log import record_asset
from ._values import Vector3Like
from .transform import Transform, inverse


class TriangleMeshImportFlags(enum.IntFlag):
    Default = 0x0
    GenSmoothNormals = 0x1
    JoinIdenticalVertices = 0x2


class Vertex:
    """One mesh vertex (a copy: editing it does not change the mesh)."""

    def __init__(self, position: Vector3Like = float3(0), normal: Vector3Like = float3(0),
                 texCoord: float2 | Sequence[float] = float2(0)) -> None:
        self.position, self.normal, self.texCoord = float3(position), float3(normal), float2(texCoord)

    def __repr__(self) -> str:
        return f"Vertex(position={self.position!r}, normal={self.normal!r}, texCoord={self.texCoord!r})"


class TriangleMesh:
    """Vertices and indices are stored as numpy arrays (float32 / uint32); `addVertex` and
    `addTriangle` append to pending lists that are merged on the next read."""

    Vertex = Vertex

    def __init__(self) -> None:
        self.name = ""
        self.frontFaceCW = False
        self._positions = np.zeros((0, 3), np.float32)
        self._normals = np.zeros((0, 3), np.float32)
        self._texcoords = np.zeros((0, 2), np.float32)
        self._indices = np.zeros(0, np.uint32)
        self._pending_vertices: list = []
        self._pending_indices: list = []

    @classmethod
    def from_arrays(cls, positions: npt.ArrayLike, normals: npt.ArrayLike, texcoords: npt.ArrayLike, indices: npt.ArrayLike,
                    frontFaceCW: bool = False, name: str = "") -> TriangleMesh:
        """Extension: a mesh from arrays (N, 3), (N, 3), (N, 2) and M*3 (or (M, 3)) indices."""
        mesh = cls()
        mesh.name, mesh.frontFaceCW = name, bool(frontFaceCW)
        mesh._positions = np.array(positions, np.float32).reshape(-1, 3)
        mesh._normals = np.array(normals, np.float32).reshape(-1, 3)
        mesh._texcoords = np.array(texcoords, np.float32).reshape(-1, 2)
        mesh._indices = np.array(indices, np.uint32).reshape(-1)
        if not (len(mesh._positions) == len(mesh._normals) == len(mesh._texcoords)):
            raise _ext.RuntimeError("TriangleMesh: positions, normals and texture coordinates must have the same length.")
        return mesh

    def _flush(self) -> None:
        if self._pending_vertices:
            v = np.array(self._pending_vertices, np.float32).reshape(-1, 8)
            self._positions = np.concatenate([self._positions, v[:, 0:3]])
            self._normals = np.concatenate([self._normals, v[:, 3:6]])
            self._texcoords = np.concatenate([self._texcoords, v[:, 6:8]])
            self._pending_vertices.clear()
        if self._pending_indices:
            self._indices = np.concatenate([self._indices, np.array(self._pending_indices, np.uint32)])
            self._pending_indices.clear()

    # ---- arrays (extension) ----
    @property
    def positions(self) -> np.ndarray:
        self._flush()
        return self._positions

    @property
    def normals(self) -> np.ndarray:
        self._flush()
        return self._normals

    @property
    def texcoords(self) -> np.ndarray:
        self._flush()
        return self._texcoords

    @property
    def triangles(self) -> np.ndarray:
        """(M, 3) uint32 vertex indices."""
        self._flush()
        return self._indices.reshape(-1, 3)

    # ---- Falcor API ----
    @property
    def vertices(self) -> list:
        self._flush()
        return [Vertex(p, n, t) for p, n, t in zip(self._positions.tolist(), self._normals.tolist(), self._texcoords.tolist())]

    @property
    def indices(self) -> list:
        self._flush()
        return self._indices.tolist()

    def addVertex(self, position: Vector3Like, normal: Vector3Like, texCoord: float2 | Sequence[float]) -> int:
        self._pending_vertices.append([*float3(position), *float3(normal), *float2(texCoord)])
        return len(self._positions) + len(self._pending_vertices) - 1

    def addTriangle(self, i0: int, i1: int, i2: int) -> None:
        self._pending_indices.extend((int(i0), int(i1), int(i2)))

    def applyTransform(self, transform: Transform | npt.ArrayLike) -> None:
        """Extension (Falcor has it in C++ only): transforms positions and normals; flips the
        front-face winding when the transform mirrors."""
        m = transform.matrix_array() if isinstance(transform, Transform) else np.asarray(transform, np.float64)
        self._flush()
        p = self._positions.astype(np.float64)
        self._positions = (p @ m[:3, :3].T + m[:3, 3]).astype(np.float32)
        n = self._normals.astype(np.float64) @ inverse(m[:3, :3])  # inverse-transpose applied to rows
        lengths = np.linalg.norm(n, axis=1, keepdims=True)
        self._normals = np.divide(n, lengths, out=np.zeros_like(n), where=lengths > 0).astype(np.float32)
        if np.linalg.det(m[:3, :3]) < 0:
            self.frontFaceCW = not self.frontFaceCW

    # ---- primitives ----
    @staticmethod
    def createQuad(size: float2 | float = float2(1.0)) -> TriangleMesh:
        """Quad in the XZ plane (y = 0) facing +Y."""
        size = float2(size)
        hx, hz = 0.5 * size.x, 0.5 * size.y
        positions = [(-hx, 0, -hz), (hx, 0, -hz), (-hx, 0, hz), (hx, 0, hz)]
        uvs = [(0, 0), (1, 0), (0, 1), (1, 1)]
        return TriangleMesh.from_arrays(positions, [(0, 1, 0)] * 4, uvs, [2, 1, 0, 1, 2, 3], size.x * size.y < 0)

    @staticmethod
    def createDisk(radius: float = 1.0, segments: int = 32) -> "TriangleMesh":
        """Disk in the XZ plane facing +Y: a center vertex and `segments` rim vertices."""
        phi = np.arange(segments, dtype=np.float32) / np.float32(segments) * np.float32(2 * math.pi)
        c, s = np.cos(phi), -np.sin(phi)
        positions = np.zeros((segments + 1, 3), np.float32)
        positions[1:, 0], positions[1:, 2] = c * np.float32(radius), s * np.float32(radius)
        uvs = np.full((segments + 1, 2), 0.5, np.float32)
        uvs[1:, 0], uvs[1:, 1] = 0.5 + c * 0.5, 0.5 + s * 0.5
        i = np.arange(segments)
        indices = np.stack([np.zeros(segments, np.int64), i + 1, (i + 1) % segments + 1], axis=1)
        return TriangleMesh.from_arrays(positions, np.tile([0, 1, 0], (segments + 1, 1)), uvs, indices)

    _CUBE_FACES = [  # positions of the 4 corners of each face: -Y, +Y, -Z, +Z, -X, +X
        [(-.5, -.5, -.5), (-.5, -.5, .5), (.5, -.5, .5), (.5, -.5, -.5)],
        [(-.5, .5, .5), (-.5, .5, -.5), (.5, .5, -.5), (.5, .5, .5)],
        [(-.5, .5, -.5), (-.5, -.5, -.5), (.5, -.5, -.5), (.5, .5, -.5)],
        [(.5, .5, .5), (.5, -.5, .5), (-.5, -.5, .5), (-.5, .5, .5)],
        [(-.5, .5, .5), (-.5, -.5, .5), (-.5, -.5, -.5), (-.5, .5, -.5)],
        [(.5, .5, -.5), (.5, -.5, -.5), (.5, -.5, .5), (.5, .5, .5)],
    ]
    _CUBE_NORMALS = [(0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1), (-1, 0, 0), (1, 0, 0)]

    @staticmethod
    def createCube(size: Vector3Like | float = float3(1.0)) -> TriangleMesh:
        """Unit cube scaled by `size`: 4 vertices per face with the face's normal."""
        size = np.asarray(float3(size), np.float32)
        sign = np.where(size < 0, np.float32(-1), np.float32(1))
        positions = np.array(TriangleMesh._CUBE_FACES, np.float32).reshape(-1, 3) * size
        normals = np.repeat(np.array(TriangleMesh._CUBE_NORMALS, np.float32) * sign, 4, axis=0)
        uvs = np.tile(np.array([(0, 0), (1, 0), (1, 1), (0, 1)], np.float32), (6, 1))
        base = 4 * np.arange(6)[:, None]
        indices = (base + np.array([0, 2, 1, 0, 3, 2])).reshape(-1)
        return TriangleMesh.from_arrays(positions, normals, uvs, indices, bool(np.prod(size) < 0))

    @staticmethod
    def createSphere(radius: float = 1.0, segmentsU: int = 32, segmentsV: int = 32) -> TriangleMesh:
        """UV sphere: (U+1)(V+1) vertices, u -> azimuth 2πu, v -> polar angle πv from +Y."""
        u = np.arange(segmentsU + 1, dtype=np.float32) / np.float32(segmentsU)
        v = np.arange(segmentsV + 1, dtype=np.float32) / np.float32(segmentsV)
        uu, vv = np.meshgrid(u, v)  # rows: v, columns: u
        theta, phi = uu * np.float32(2 * math.pi), vv * np.float32(math.pi)
        dirs = np.stack([np.cos(theta) * np.sin(phi), np.cos(phi), np.sin(theta) * np.sin(phi)], axis=-1).reshape(-1, 3)
        uvs = np.stack([uu, vv], axis=-1).reshape(-1, 2)
        row = segmentsU + 1
        vi, ui = np.meshgrid(np.arange(segmentsV), np.arange(segmentsU), indexing="ij")
        i0 = vi * row + ui
        i1 = vi * row + (ui + 1) % row
        i2 = (vi + 1) * row + ui
        i3 = (vi + 1) * row + (ui + 1) % row
        indices = np.stack([i0, i1, i2, i2, i1, i3], axis=-1).reshape(-1)
        return TriangleMesh.from_arrays(dirs * np.float32(radius), dirs, uvs, indices)

    @staticmethod
    def createFromFile(path: str | os.PathLike[str], smoothNormals: bool | TriangleMeshImportFlags = False) -> TriangleMesh | None:
        """Loads every mesh of a file (through trimesh), transformed into one object space and
        concatenated. The second argument is `smoothNormals` (bool) or TriangleMeshImportFlags.
        Returns None (with a warning) when the file can't be loaded."""
        flags = smoothNormals if isinstance(smoothNormals, TriangleMeshImportFlags) else (
            TriangleMeshImportFlags.GenSmoothNormals if smoothNormals else TriangleMeshImportFlags.Default)
        resolved = _ext.AssetResolver.default_resolver.resolve_path(os.fspath(path))
        if str(resolved) in ("", "."):
            _warn(f"Failed to load triangle mesh from '{path}': File not found")
            return None
        record_asset(resolved)
        try:
            return _load_with_trimesh(str(resolved), flags)
        except Exception as e:  # any reader failure means "no mesh", as in Falcor
            _warn(f"Failed to load triangle mesh from '{path}': {e}")
            return None


def _warn(message: str) -> None:
    _ext.Logger.log(_ext.Logger.Level.Warning, message)


def _load_with_trimesh(path: str, flags: TriangleMeshImportFlags) -> TriangleMesh:
    import trimesh

    if path.lower().endswith(".ply") and not flags & (TriangleMeshImportFlags.JoinIdenticalVertices | TriangleMeshImportFlags.GenSmoothNormals):
        return _flat_ply(path)
    mesh = trimesh.load(path, force="mesh", process=bool(flags & TriangleMeshImportFlags.JoinIdenticalVertices))
    if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
        raise ValueError("no triangles found")
    faces = np.asarray(mesh.faces, np.int64)
    positions = np.asarray(mesh.vertices, np.float32)
    texcoords = _texcoords(getattr(mesh.visual, "uv", None), len(positions))
    if flags & TriangleMeshImportFlags.GenSmoothNormals:
        return TriangleMesh.from_arrays(positions, mesh.vertex_normals, texcoords, faces)
    return _flat(positions, texcoords, faces)


def _flat_ply(path: str) -> TriangleMesh:
    """A PLY file's triangles, flat shaded: its arrays straight from trimesh's PLY parser (without
    building a trimesh.Trimesh, whose copies and caches cost more than the parsing)."""
    import trimesh

    with open(path, "rb") as file:
        loaded = trimesh.exchange.ply.load_ply(file)
    faces = loaded.get("faces")
    if faces is None or len(faces) == 0:
        raise ValueError("no triangles found")
    positions = np.asarray(loaded["vertices"], np.float32)
    faces = trimesh.geometry.triangulate_quads(faces, dtype=np.int64)
    return _flat(positions, _texcoords(getattr(loaded.get("visual"), "uv", None), len(positions)), faces)


def _texcoords(uv, count: int) -> np.ndarray:
    texcoords = np.zeros((count, 2), np.float32) if uv is None else np.asarray(uv, np.float32).copy()
    texcoords[:, 1] = 1.0 - texcoords[:, 1]  # top-left texture origin, as Falcor flips UVs on import
    return texcoords


def _flat(positions, texcoords, faces) -> TriangleMesh:
    """Flat normals: every triangle gets its own three vertices carrying the face normal."""
    flat_positions, flat_normals, flat_texcoords = _ext.expand_flat(positions, texcoords, faces)
    return TriangleMesh.from_arrays(flat_positions, flat_normals, flat_texcoords, np.arange(len(flat_positions), dtype=np.uint32))
