"""TriangleMesh primitives: vertex layouts, normals, UVs and winding exactly as Falcor builds them."""
import math

import numpy as np
import pytest

from falcor import Transform, TriangleMesh, TriangleMeshImportFlags, float2, float3


def arrays(mesh):
    v = mesh.vertices
    return (np.array([list(x.position) for x in v]), np.array([list(x.normal) for x in v]),
            np.array([list(x.texCoord) for x in v]), np.array(mesh.indices).reshape(-1, 3))


def face_normals(p, tri):
    n = np.cross(p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]])
    return n / np.linalg.norm(n, axis=1, keepdims=True)


def test_quad():
    m = TriangleMesh.createQuad(float2(2, 4))
    p, n, uv, tri = arrays(m)
    np.testing.assert_array_equal(p, [[-1, 0, -2], [1, 0, -2], [-1, 0, 2], [1, 0, 2]])
    np.testing.assert_array_equal(n, [[0, 1, 0]] * 4)
    np.testing.assert_array_equal(uv, [[0, 0], [1, 0], [0, 1], [1, 1]])
    assert m.indices == [2, 1, 0, 1, 2, 3]
    np.testing.assert_allclose(face_normals(p, tri), [[0, 1, 0]] * 2)  # counter-clockwise seen from +Y
    assert not m.frontFaceCW and TriangleMesh.createQuad(float2(-1, 1)).frontFaceCW
    assert len(TriangleMesh.createQuad().vertices) == 4


def test_disk():
    m = TriangleMesh.createDisk(2.0, 8)
    p, n, uv, tri = arrays(m)
    assert len(p) == 9 and tri.shape == (8, 3)
    phi = np.arange(8) / 8 * 2 * math.pi
    np.testing.assert_allclose(p[1:], np.stack([2 * np.cos(phi), 0 * phi, -2 * np.sin(phi)], 1), atol=1e-6)
    np.testing.assert_allclose(uv[0], [0.5, 0.5])
    np.testing.assert_allclose(uv[1:], np.stack([0.5 + 0.5 * np.cos(phi), 0.5 - 0.5 * np.sin(phi)], 1), atol=1e-6)
    np.testing.assert_array_equal(tri, [[0, i + 1, (i + 1) % 8 + 1] for i in range(8)])
    np.testing.assert_allclose(face_normals(p, tri), [[0, 1, 0]] * 8, atol=1e-6)
    np.testing.assert_array_equal(n, [[0, 1, 0]] * 9)


def test_cube():
    m = TriangleMesh.createCube(float3(2, 4, 6))
    p, n, uv, tri = arrays(m)
    assert len(p) == 24 and tri.shape == (12, 3)
    expected_normals = [(0, -1, 0), (0, 1, 0), (0, 0, -1), (0, 0, 1), (-1, 0, 0), (1, 0, 0)]
    np.testing.assert_array_equal(n, np.repeat(expected_normals, 4, axis=0))
    np.testing.assert_array_equal(uv, np.tile([[0, 0], [1, 0], [1, 1], [0, 1]], (6, 1)))
    base = 4 * np.arange(6)[:, None]
    np.testing.assert_array_equal(tri.reshape(6, 6), base + [0, 2, 1, 0, 3, 2])
    np.testing.assert_array_equal(p[:4], [[-1, -2, -3], [-1, -2, 3], [1, -2, 3], [1, -2, -3]])
    # Every face sits on its side of the box and its triangles face outwards.
    for f, normal in enumerate(expected_normals):
        face = p[4 * f:4 * f + 4]
        np.testing.assert_allclose(face @ normal, [np.abs(np.array([1, 2, 3])) @ np.abs(normal)] * 4)
        np.testing.assert_allclose(face_normals(p, tri[2 * f:2 * f + 2]), [normal] * 2, atol=1e-6)
    assert not m.frontFaceCW
    mirrored = TriangleMesh.createCube(float3(-1, 1, 1))
    assert mirrored.frontFaceCW
    np.testing.assert_array_equal(arrays(mirrored)[1][16:20], [[1, 0, 0]] * 4)  # -X face normal flips with the sign


def test_sphere():
    m = TriangleMesh.createSphere(2.0, 8, 4)
    p, n, uv, tri = arrays(m)
    assert len(p) == 9 * 5 and tri.shape == (8 * 4 * 2, 3)
    u, v = np.meshgrid(np.arange(9) / 8, np.arange(5) / 4)
    theta, phi = 2 * math.pi * u.ravel(), math.pi * v.ravel()
    d = np.stack([np.cos(theta) * np.sin(phi), np.cos(phi), np.sin(theta) * np.sin(phi)], 1)
    np.testing.assert_allclose(p, 2 * d, atol=1e-6)
    np.testing.assert_allclose(n, d, atol=1e-6)
    np.testing.assert_allclose(uv, np.stack([u.ravel(), v.ravel()], 1), atol=1e-7)
    i0, i1, i2, i3 = 1 * 9 + 2, 1 * 9 + 3, 2 * 9 + 2, 2 * 9 + 3  # quad (v=1, u=2)
    q = (1 * 8 + 2) * 2
    np.testing.assert_array_equal(tri[q:q + 2], [[i0, i1, i2], [i2, i1, i3]])
    # Counter-clockwise seen from outside: the triangles face outwards.
    fn = face_normals(p, tri[q:q + 2])
    assert np.all(np.einsum("ij,ij->i", fn, d[[i0, i2]]) > 0)


def test_add_vertex_and_triangle():
    m = TriangleMesh()
    assert m.vertices == [] and m.indices == [] and m.name == "" and not m.frontFaceCW
    assert m.addVertex(float3(0, 0, 0), float3(0, 0, 1), float2(0, 0)) == 0
    assert m.addVertex([1, 0, 0], [0, 0, 1], [1, 0]) == 1
    assert m.addVertex(float3(0, 1, 0), float3(0, 0, 1), float2(0, 1)) == 2
    m.addTriangle(0, 1, 2)
    assert m.indices == [0, 1, 2]
    assert m.vertices[1].position == float3(1, 0, 0) and m.vertices[2].texCoord == float2(0, 1)
    m.vertices[0].position = float3(5, 5, 5)  # copies
    assert m.vertices[0].position == float3(0, 0, 0)


def test_apply_transform_flips_winding_when_mirrored():
    m = TriangleMesh.createQuad()
    m.applyTransform(Transform(scaling=float3(2, 1, 1), translation=float3(0, 1, 0)))
    p, n, _, _ = arrays(m)
    np.testing.assert_allclose(p[0], [-1, 1, -0.5])
    np.testing.assert_allclose(n[0], [0, 1, 0])
    assert not m.frontFaceCW
    m.applyTransform(Transform(scaling=float3(1, -1, 1)))
    assert m.frontFaceCW
    np.testing.assert_allclose(arrays(m)[1][0], [0, -1, 0])


def test_create_from_file(tmp_path):
    obj = tmp_path / "tri.obj"
    obj.write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 1 1\nf 1/1 2/2 3/3\nf 2/2 4/4 3/3\n")
    flat = TriangleMesh.createFromFile(obj)
    p, n, uv, tri = arrays(flat)
    assert tri.shape == (2, 3) and len(p) == 6  # flat normals: each triangle has its own vertices
    np.testing.assert_allclose(n, [[0, 0, 1]] * 6, atol=1e-6)
    np.testing.assert_allclose(uv[0], [0, 1])  # v flipped to a top-left texture origin
    smooth = TriangleMesh.createFromFile(obj, True)
    assert len(smooth.vertices) == 4
    assert TriangleMesh.createFromFile(obj, TriangleMeshImportFlags.GenSmoothNormals) is not None


def test_create_from_file_failure_returns_none(tmp_path, capfd):
    assert TriangleMesh.createFromFile(tmp_path / "missing.obj") is None
    bad = tmp_path / "bad.obj"
    bad.write_text("this is not a mesh\n")
    assert TriangleMesh.createFromFile(bad) is None
    assert "Failed to load triangle mesh" in capfd.readouterr().out
