"""Reading Stanford PLY files into numpy arrays (ASCII and both binary byte orders).

Shared by the PLY importer and the scene formats that reference PLY meshes (pbrt-v4's `plymesh`,
Mitsuba's `ply` shape). Binary elements whose rows all have the same layout (every vertex; faces
that are all triangles or all quads) are read as one structured numpy view, so a million-triangle
file reads in tens of milliseconds; rows of varying length are walked one by one. Every count in
the header is checked against the bytes the file holds before anything is allocated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import error

_SCALARS = {"char": "i1", "int8": "i1", "uchar": "u1", "uint8": "u1", "short": "i2", "int16": "i2",
            "ushort": "u2", "uint16": "u2", "int": "i4", "int32": "i4", "uint": "u4", "uint32": "u4",
            "float": "f4", "float32": "f4", "double": "f8", "float64": "f8"}
_FORMATS = {"ascii": None, "binary_little_endian": "<", "binary_big_endian": ">"}
_UV_NAMES = (("u", "v"), ("s", "t"), ("texture_u", "texture_v"), ("texture_s", "texture_t"))
_FACE_LISTS = ("vertex_indices", "vertex_index")
MAX_HEADER_BYTES = 1 << 20


@dataclass
class Property:
    name: str
    dtype: str  # numpy scalar code ("f4", ...); a list's item type
    count_dtype: str | None = None  # a list property's length type; None for scalars


@dataclass
class Element:
    name: str
    count: int
    properties: list[Property] = field(default_factory=list)


@dataclass
class PlyMesh:
    positions: np.ndarray  # (N, 3) float32
    indices: np.ndarray  # (T, 3) uint32, polygons split into fans
    normals: np.ndarray | None = None  # (N, 3) float32
    texcoords: np.ndarray | None = None  # (N, 2) float32, as stored (origin at the bottom-left)
    texture_files: list[str] = field(default_factory=list)  # "comment TextureFile <name>" lines


def read_ply(path: Path) -> PlyMesh:
    """The mesh a PLY file holds; ImporterError naming the file for anything malformed."""
    data = Path(path).read_bytes()
    try:
        return _Reader(path, data).mesh()
    except (ValueError, IndexError, KeyError, OverflowError) as e:
        raise error(path, f"not a valid PLY file ({e})") from e


class _Reader:
    def __init__(self, path: Path, data: bytes):
        self.path, self.data = path, data
        self.elements: list[Element] = []
        self.comments: list[str] = []
        byte_order = self._parse_header()
        self.ascii = byte_order is None
        self.order = byte_order or ""  # numpy's byte-order prefix of the binary formats

    def _parse_header(self) -> str | None:
        end = self.data.find(b"end_header", 0, MAX_HEADER_BYTES)
        if not self.data.startswith(b"ply") or end < 0:
            raise ValueError("no 'ply' magic line or no 'end_header' in the first MiB")
        newline = self.data.find(b"\n", end)
        self.body = newline + 1 if newline >= 0 else len(self.data)
        lines = self.data[:end].decode("ascii", errors="replace").splitlines()[1:]
        byte_order: str | None = "?"
        for number, line in enumerate(lines, start=2):
            words = line.split()
            if not words:
                continue
            if words[0] == "format":
                if len(words) < 2 or words[1] not in _FORMATS:
                    raise ValueError(f"line {number}: unknown format '{line.strip()}'")
                byte_order = _FORMATS[words[1]]
            elif words[0] in ("comment", "obj_info"):
                self.comments.append(line.strip())
            elif words[0] == "element":
                self.elements.append(Element(words[1], _count(words[2], number)))
            elif words[0] == "property":
                self._property(words, number)
            else:
                raise ValueError(f"line {number}: unknown header line '{line.strip()}'")
        if byte_order == "?":
            raise ValueError("the header has no 'format' line")
        return byte_order

    def _property(self, words: list[str], number: int) -> None:
        if not self.elements:
            raise ValueError(f"line {number}: a property before any element")
        if words[1] == "list":
            if len(words) != 5 or words[2] not in _SCALARS or words[3] not in _SCALARS:
                raise ValueError(f"line {number}: malformed list property")
            prop = Property(words[4], _SCALARS[words[3]], _SCALARS[words[2]])
        else:
            if len(words) != 3 or words[1] not in _SCALARS:
                raise ValueError(f"line {number}: malformed property")
            prop = Property(words[2], _SCALARS[words[1]])
        self.elements[-1].properties.append(prop)

    def mesh(self) -> PlyMesh:
        columns = self._read_elements()
        vertex = columns.get("vertex")
        if vertex is None or not {"x", "y", "z"} <= vertex.keys():
            raise ValueError("no vertex element with x, y and z")
        positions = np.column_stack([vertex[c] for c in "xyz"]).astype(np.float32)
        faces = columns.get("face", {})
        polygons = next((faces[name] for name in _FACE_LISTS if name in faces), None)
        if polygons is None:
            raise ValueError("the file holds no faces (point clouds are not supported)")
        indices = _fans(polygons)
        outside = indices[(indices < 0) | (indices >= len(positions))]
        if len(outside):
            raise ValueError(f"vertex index {int(outside[0])} is out of range (the file has {len(positions)} vertices)")
        mesh = PlyMesh(positions, indices.astype(np.uint32), texture_files=self._texture_files())
        if {"nx", "ny", "nz"} <= vertex.keys():
            mesh.normals = np.column_stack([vertex[c] for c in ("nx", "ny", "nz")]).astype(np.float32)
        uv = next((pair for pair in _UV_NAMES if set(pair) <= vertex.keys()), None)
        if uv is not None:
            mesh.texcoords = np.column_stack([vertex[uv[0]], vertex[uv[1]]]).astype(np.float32)
        return mesh

    def _texture_files(self) -> list[str]:
        return [m.group(1) for c in self.comments if (m := re.match(r"comment\s+TextureFile\s+(.+)", c))]

    def _read_elements(self) -> dict:
        if self.ascii:
            return _AsciiBody(self.data[self.body:]).read(self.elements)
        columns, offset = {}, self.body
        for element in self.elements:
            columns[element.name], offset = self._binary_element(element, offset)
        return columns

    def _binary_element(self, element: Element, offset: int) -> tuple[dict, int]:
        order = self.order
        lists = [p for p in element.properties if p.count_dtype]
        if not lists:
            dtype = np.dtype([(p.name, order + p.dtype) for p in element.properties])
            rows = _structured(self.data, offset, element.count, dtype)
            return {p.name: rows[p.name] for p in element.properties}, offset + element.count * dtype.itemsize
        fixed = self._uniform_lists(element, offset)
        if fixed is not None:
            return fixed
        return self._varying_rows(element, offset)

    def _uniform_lists(self, element: Element, offset: int):
        """Rows whose lists all have the length of the first row's (all triangles): one structured view."""
        if element.count == 0:
            return {p.name: np.zeros(0) for p in element.properties}, offset
        fields: list[tuple] = []
        cursor = offset
        for p in element.properties:
            if p.count_dtype is None:
                fields.append((p.name, self.order + p.dtype))
                cursor += np.dtype(p.dtype).itemsize
                continue
            length = int(_structured(self.data, cursor, 1, np.dtype(self.order + p.count_dtype))[0])
            fields += [(p.name + "#count", self.order + p.count_dtype), (p.name, self.order + p.dtype, (length,))]
            cursor += np.dtype(p.count_dtype).itemsize + length * np.dtype(p.dtype).itemsize
        dtype = np.dtype(fields)
        if element.count * dtype.itemsize > len(self.data) - offset:
            return None
        rows = _structured(self.data, offset, element.count, dtype)
        for p in element.properties:
            if p.count_dtype and np.any(rows[p.name + "#count"] != dtype[p.name].shape[0]):
                return None
        return {p.name: rows[p.name] for p in element.properties}, offset + element.count * dtype.itemsize

    def _varying_rows(self, element: Element, offset: int) -> tuple[dict, int]:
        """Lists of varying length: walk the rows (polygon soups of mixed sizes; slow but rare)."""
        values: dict[str, list] = {p.name: [] for p in element.properties}
        order = self.order
        _bound_rows(element, len(self.data) - offset)
        for _ in range(element.count):
            for p in element.properties:
                if p.count_dtype is None:
                    values[p.name].append(_structured(self.data, offset, 1, np.dtype(order + p.dtype))[0])
                    offset += np.dtype(p.dtype).itemsize
                    continue
                length = int(_structured(self.data, offset, 1, np.dtype(order + p.count_dtype))[0])
                offset += np.dtype(p.count_dtype).itemsize
                values[p.name].append(_structured(self.data, offset, length, np.dtype(order + p.dtype)))
                offset += length * np.dtype(p.dtype).itemsize
        return {p.name: values[p.name] if p.count_dtype else np.array(values[p.name]) for p in element.properties}, offset


class _AsciiBody:
    """The whitespace-separated values after the header, consumed element by element."""

    def __init__(self, body: bytes):
        self.tokens = body.split()
        self.next = 0

    def read(self, elements: list[Element]) -> dict:
        columns = {}
        for element in elements:
            _bound_rows(element, len(self.tokens) - self.next)
            if all(p.count_dtype is None for p in element.properties):
                columns[element.name] = self._table(element)
            else:
                columns[element.name] = self._rows(element)
        return columns

    def _table(self, element: Element) -> dict:
        width = len(element.properties)
        end = self.next + element.count * width
        if end > len(self.tokens):
            raise ValueError(f"the file ends inside element '{element.name}'")
        table = np.array(self.tokens[self.next:end], dtype=np.float64).reshape(element.count, width)
        self.next = end
        return {p.name: table[:, i] for i, p in enumerate(element.properties)}

    def _rows(self, element: Element) -> dict:
        values: dict[str, list] = {p.name: [] for p in element.properties}
        for _ in range(element.count):
            for p in element.properties:
                if p.count_dtype is None:
                    values[p.name].append(float(self._take(1)[0]))
                else:
                    length = int(self._take(1)[0])
                    values[p.name].append(np.array(self._take(length), dtype=np.int64))
        return values

    def _take(self, n: int) -> list:
        if n < 0 or self.next + n > len(self.tokens):
            raise ValueError("the file ends inside an element")
        taken = self.tokens[self.next:self.next + n]
        self.next += n
        return taken


def _count(word: str, number: int) -> int:
    count = int(word)
    if count < 0:
        raise ValueError(f"line {number}: negative element count {count}")
    return count


def _bound_rows(element: Element, available: int) -> None:
    """Every row takes at least one byte (binary) or one token (ASCII): a count beyond that is a lie."""
    if element.count > available:
        raise ValueError(f"element '{element.name}' claims {element.count} rows; the file has room for fewer")


def _structured(data: bytes, offset: int, count: int, dtype: np.dtype) -> np.ndarray:
    if offset + count * dtype.itemsize > len(data):
        raise ValueError("the file ends inside an element")
    return np.frombuffer(data, dtype, count, offset)


def _fans(polygons) -> np.ndarray:
    """Triangles of polygons (0, i, i + 1) as trimesh and Assimp split them; polygons with fewer than
    three corners are dropped."""
    if isinstance(polygons, np.ndarray) and polygons.ndim == 2:
        corners = polygons.shape[1]
        if corners < 3:
            return np.zeros((0, 3), np.int64)
        fan = [np.column_stack([polygons[:, 0], polygons[:, i], polygons[:, i + 1]]) for i in range(1, corners - 1)]
        return np.stack(fan, axis=1).reshape(-1, 3).astype(np.int64)
    triangles = [np.column_stack([np.full(len(p) - 2, p[0]), p[1:-1], p[2:]]) for p in polygons if len(p) >= 3]
    return np.concatenate(triangles).astype(np.int64) if triangles else np.zeros((0, 3), np.int64)
