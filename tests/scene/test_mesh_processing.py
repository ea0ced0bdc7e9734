"""Per-vertex mesh processing in C++ (Scene/MeshProcessing.h): tangent frames and flat-shading
expansion, checked against closed forms and against a direct numpy statement of the same sums."""
import numpy as np
import pytest

from falcor import falcor_ext as ext


def grid(n=8, seed=3):
    """A bumpy n x n height field with shared vertices, smooth normals and uv = (x, y)."""
    rng = np.random.default_rng(seed)
    x, y = np.meshgrid(np.linspace(0, 1, n), np.linspace(0, 1, n), indexing="xy")
    z = 0.05 * rng.standard_normal((n, n))
    positions = np.stack([x, y, z], -1).reshape(-1, 3).astype(np.float32)
    texcoords = np.stack([x, y], -1).reshape(-1, 2).astype(np.float32)
    i = np.arange(n * n).reshape(n, n)
    a, b, c, d = i[:-1, :-1].ravel(), i[:-1, 1:].ravel(), i[1:, :-1].ravel(), i[1:, 1:].ravel()
    triangles = np.concatenate([np.stack([a, b, d], 1), np.stack([a, d, c], 1)])
    normals = np.zeros_like(positions, dtype=np.float64)
    p = positions[triangles].astype(np.float64)
    face = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    for k in range(3):
        np.add.at(normals, triangles[:, k], face)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return positions, normals.astype(np.float32), texcoords, triangles


def reference_tangents(positions, normals, texcoords, triangles):
    """The same angle-weighted sums written directly in numpy (float64)."""
    p, t = positions.astype(np.float64)[triangles], texcoords.astype(np.float64)[triangles]
    e1, e2, d1, d2 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 0], t[:, 1] - t[:, 0], t[:, 2] - t[:, 0]
    inv = 1.0 / (d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1])
    face_t = (e1 * d2[:, 1:2] - e2 * d1[:, 1:2]) * inv[:, None]
    face_b = (e2 * d1[:, 0:1] - e1 * d2[:, 0:1]) * inv[:, None]
    sum_t, sum_b = np.zeros_like(positions, np.float64), np.zeros_like(positions, np.float64)
    for c in range(3):
        u, v = p[:, (c + 1) % 3] - p[:, c], p[:, (c + 2) % 3] - p[:, c]
        angle = np.arccos(np.clip(np.sum(u * v, 1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1)), -1, 1))
        np.add.at(sum_t, triangles[:, c], face_t * angle[:, None])
        np.add.at(sum_b, triangles[:, c], face_b * angle[:, None])
    n = normals.astype(np.float64)
    tangent = sum_t - n * np.sum(sum_t * n, 1, keepdims=True)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    w = np.where(np.sum(np.cross(n, tangent) * sum_b, 1) < 0, -1.0, 1.0)
    return np.concatenate([tangent, w[:, None]], 1)


def test_tangents_match_the_angle_weighted_sums():
    positions, normals, texcoords, triangles = grid()
    tangents = ext.generate_tangents(positions, normals, texcoords, triangles)
    assert tangents.shape == (len(positions), 4) and tangents.dtype == np.float32
    np.testing.assert_allclose(tangents, reference_tangents(positions, normals, texcoords, triangles), atol=2e-6)
    # Unit length, orthogonal to the normal, pointing along +u on this nearly flat grid.
    np.testing.assert_allclose(np.linalg.norm(tangents[:, :3], axis=1), 1, atol=1e-6)
    np.testing.assert_allclose(np.sum(tangents[:, :3] * normals, 1), 0, atol=1e-6)
    assert (tangents[:, 0] > 0.5).all() and (tangents[:, 3] == 1).all()


def test_mirrored_uv_flips_handedness_and_unshared_corners_take_the_fast_path():
    positions, normals, texcoords, triangles = grid()
    mirrored = texcoords * np.float32([1, -1])
    assert (ext.generate_tangents(positions, normals, mirrored, triangles)[:, 3] == -1).all()
    # Unshared corners (index i is vertex i): each vertex gets its own triangle's tangent.
    corners = triangles.reshape(-1)
    flat = ext.generate_tangents(positions[corners], normals[corners], texcoords[corners], np.arange(len(corners)).reshape(-1, 3))
    expected = reference_tangents(positions[corners], normals[corners], texcoords[corners], np.arange(len(corners)).reshape(-1, 3))
    np.testing.assert_allclose(flat, expected, atol=2e-6)


def test_a_vertex_without_uv_gradient_gets_a_perpendicular_tangent():
    positions = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0]])
    normals = np.float32([[0, 0, 1]] * 3)
    tangents = ext.generate_tangents(positions, normals, np.zeros((3, 2), np.float32), [[0, 1, 2]])
    assert np.isfinite(tangents).all()
    np.testing.assert_allclose(np.linalg.norm(tangents[:, :3], axis=1), 1, atol=1e-6)
    np.testing.assert_allclose(tangents[:, 2], 0, atol=1e-6)


def test_bad_input_raises_naming_the_function_and_triangle():
    positions, normals, texcoords, triangles = grid(3)
    bad = triangles.copy()
    bad[2, 1] = len(positions)
    with pytest.raises(Exception, match=r"generate_tangents: triangle 2 refers to vertex 9 of 9"):
        ext.generate_tangents(positions, normals, texcoords, bad)
    with pytest.raises(Exception, match="generate_tangents.*must match"):
        ext.generate_tangents(positions, normals[:-1], texcoords, triangles)
    with pytest.raises(Exception, match=r"expand_flat: triangle 0 refers to vertex -1"):
        ext.expand_flat(positions, texcoords, [[-1, 0, 1]])
    with pytest.raises(Exception, match=r"\(M, 3\)"):
        ext.expand_flat(positions, texcoords, [0, 1, 2])


def test_expand_flat_gives_each_triangle_its_vertices_and_unit_face_normal():
    positions = np.float32([[0, 0, 0], [1, 0, 0], [0, 1, 0], [2, 2, 2]])
    texcoords = np.float32([[0, 0], [1, 0], [0, 1], [5, 5]])
    triangles = np.array([[0, 1, 2], [0, 2, 1], [3, 3, 3]])  # the last is degenerate
    p, n, uv = ext.expand_flat(positions, texcoords, triangles)
    np.testing.assert_array_equal(p, positions[triangles.reshape(-1)])
    np.testing.assert_array_equal(uv, texcoords[triangles.reshape(-1)])
    np.testing.assert_array_equal(n, np.float32([[0, 0, 1]] * 3 + [[0, 0, -1]] * 3 + [[0, 0, 0]] * 3))
