"""The numpy PLY reader against trimesh's (an independent implementation) on every encoding and face
layout, and its refusals of malformed files."""
from __future__ import annotations

import numpy as np
import pytest
import trimesh

import falcor
from falcor.scene.importers._ply_reader import read_ply

RNG = np.random.default_rng(7)


def header(encoding: str, vertices: int, faces: int, vertex_props: list[str], list_type="uchar int",
           extra: str = "") -> bytes:
    lines = ["ply", f"format {encoding} 1.0", "comment TextureFile wood.png", f"element vertex {vertices}"]
    lines += [f"property float {p}" for p in vertex_props]
    lines += [extra] if extra else []
    lines += [f"element face {faces}", f"property list {list_type} vertex_indices", "end_header"]
    return ("\n".join(lines) + "\n").encode()


def binary_file(encoding, vertices, polygons, props, list_type="uchar int") -> bytes:
    order = "<" if encoding == "binary_little_endian" else ">"
    count_type, index_type = ({"uchar": "u1", "ushort": "u2", "int": "i4", "uint": "u4"}[t] for t in list_type.split())
    body = np.asarray(vertices, order + "f4").tobytes()
    for polygon in polygons:
        body += np.array([len(polygon)], order + count_type).tobytes() + np.array(polygon, order + index_type).tobytes()
    return header(encoding, len(vertices), len(polygons), props, list_type) + body


def ascii_file(vertices, polygons, props) -> bytes:
    rows = [" ".join(f"{v:.9g}" for v in row) for row in vertices]
    rows += [" ".join(str(i) for i in [len(p), *p]) for p in polygons]
    return header("ascii", len(vertices), len(polygons), props) + ("\n".join(rows) + "\n").encode()


def fan(polygons):
    return np.array([[p[0], p[i], p[i + 1]] for p in polygons for i in range(1, len(p) - 1)])


CASES = {
    "triangles": [[0, 1, 2], [2, 1, 3], [3, 4, 5]],
    "quads": [[0, 1, 2, 3], [2, 3, 4, 5]],
    "mixed": [[0, 1, 2], [1, 2, 3, 4], [0, 2, 3, 4, 5]],
}


@pytest.mark.parametrize("encoding", ["ascii", "binary_little_endian", "binary_big_endian"])
@pytest.mark.parametrize("layout", sorted(CASES))
def test_matches_trimesh(tmp_path, encoding, layout):
    props = ["x", "y", "z", "nx", "ny", "nz", "u", "v"]
    vertices = RNG.random((6, len(props))).astype(np.float32)
    polygons = CASES[layout]
    data = ascii_file(vertices, polygons, props) if encoding == "ascii" else binary_file(encoding, vertices, polygons, props)
    path = tmp_path / "mesh.ply"
    path.write_bytes(data)
    mesh = read_ply(path)
    # trimesh refuses binary polygon soups of mixed sizes: its reference reads the ASCII twin.
    (tmp_path / "twin.ply").write_bytes(ascii_file(vertices, polygons, props))
    reference = trimesh.load(tmp_path / "twin.ply", process=False, maintain_order=True)
    np.testing.assert_array_equal(mesh.positions, np.asarray(reference.vertices, np.float32))
    np.testing.assert_array_equal(mesh.indices, fan(polygons))
    np.testing.assert_array_equal(mesh.normals, vertices[:, 3:6])
    np.testing.assert_array_equal(mesh.texcoords, vertices[:, 6:8])
    assert mesh.texture_files == ["wood.png"]


def test_other_elements_and_index_types_are_skipped_in_order(tmp_path):
    # A ushort list count and an extra scalar vertex property (a colour) between the positions.
    props = ["x", "y", "z", "red"]
    vertices = RNG.random((4, 4)).astype(np.float32)
    data = binary_file("binary_little_endian", vertices, [[0, 1, 2, 3]], props, list_type="ushort uint")
    (tmp_path / "m.ply").write_bytes(data)
    mesh = read_ply(tmp_path / "m.ply")
    np.testing.assert_array_equal(mesh.positions, vertices[:, :3])
    np.testing.assert_array_equal(mesh.indices, [[0, 1, 2], [0, 2, 3]])
    assert mesh.normals is None and mesh.texcoords is None


@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:-5], "ends inside"),
    (lambda d: d.replace(b"element face 2", b"element face 99999999999"), "room for fewer"),
    (lambda d: d.replace(b"format binary_little_endian", b"format utf8"), "unknown format"),
    (lambda d: d.replace(b"end_header", b"end_hxader"), "end_header"),
    (lambda d: d.replace(b"element vertex 6", b"element vertex -1"), "negative"),
])
def test_malformed_files_raise_naming_the_file(tmp_path, damage, message):
    vertices = RNG.random((6, 3)).astype(np.float32)
    data = binary_file("binary_little_endian", vertices, CASES["quads"], ["x", "y", "z"])
    path = tmp_path / "bad.ply"
    path.write_bytes(damage(data))
    with pytest.raises(falcor.ImporterError, match=message) as info:
        read_ply(path)
    assert str(path) in str(info.value)


def test_out_of_range_index_is_refused(tmp_path):
    data = binary_file("binary_little_endian", RNG.random((3, 3)), [[0, 1, 7]], ["x", "y", "z"])
    (tmp_path / "m.ply").write_bytes(data)
    with pytest.raises(falcor.ImporterError, match="vertex index 7 is out of range"):
        read_ply(tmp_path / "m.ply")
