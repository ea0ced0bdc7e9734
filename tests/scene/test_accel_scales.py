"""Hit distances are right at every scene scale the docs promise (1e-30 to 1e30), including hits
as close as the scene's own size: at 1e-15 the triangle test's t · det (a product of three
coordinates) is a denormal, which once gave t = 0 for a hit at distance 1e-16. The shading data
too: squared lengths of normals, tangents, face normals (a product of two edges) and camera axes
overflow or underflow single precision beyond ~1e±19, which once gave NaN or zero normals."""
import warnings

import numpy as np
import pytest

import falcor

SCALES = [1e-30, 1e-20, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1.0, 1e12, 1e20, 1e30]
# Hits at 0.1, 1 and 3 times the scale, the last one oblique.
ORIGINS = np.array([[0.3, 0.2, -0.1], [0.3, 0.2, -1.0], [0.3, 0.2, -3.0]])
DIRECTIONS = np.float32([[0, 0, 1], [0, 0, 1], [0.05, -0.1, 1]])


def expected_t(scale):
    return np.float32([0.1, 1.0, 3.0]) * np.float32(scale)


def unit_quad(scale: float):
    positions = (np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]]) * scale).astype(np.float32)
    return positions, np.array([[0, 1, 2], [0, 2, 3]], np.uint32)


@pytest.mark.parametrize("scale", SCALES)
def test_triangle_accel_hits_at_the_scene_scale(scale):
    accel = falcor.TriangleAccel()
    accel.build([(*unit_quad(scale), True)], [(0, np.eye(4, dtype=np.float32), False)])
    hits = accel.closest_hit((ORIGINS * scale).astype(np.float32), DIRECTIONS)
    assert (hits["primitive_index"] <= 1).all()
    np.testing.assert_allclose(hits["t"], expected_t(scale), rtol=1e-5)
    np.testing.assert_allclose(hits["barycentrics"].sum(axis=1)[:2], 0.65, atol=1e-5)  # (0.3, 0.2) in triangle 0


def quad_scene_file(tmp_path, scale: float, extra_lines: str = ""):
    """A pyscene with one quad covering [-scale, scale]² in the z = 0 plane, facing -z. A single
    static instance: the scene pre-transforms it, so its world coordinates are tiny or huge."""
    scene_file = tmp_path / "quad.pyscene"
    scene_file.write_text(
        "quad = TriangleMesh.createQuad()\n"  # xz-plane, normal +y, corners at +-0.5
        f"node = sceneBuilder.addNode('quad', Transform(scaling=float3({2 * scale!r}), rotationEulerDeg=float3(-90, 0, 0)))\n"
        "sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(quad, StandardMaterial('m')))\n" + extra_lines)
    return scene_file


def load_without_warnings(scene_file):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow warnings from float32 squared lengths
        return falcor.load_scene(str(scene_file))


@pytest.mark.parametrize("scale", SCALES)
def test_scene_cast_rays_hits_at_the_scene_scale(tmp_path, scale):
    scene = falcor.load_scene(str(quad_scene_file(tmp_path, scale)))
    hits = scene.cast_rays((ORIGINS * scale).astype(np.float32), DIRECTIONS)
    assert hits["hit"].all()
    np.testing.assert_allclose(hits["t"], expected_t(scale), rtol=1e-5)


@pytest.mark.parametrize("scale", SCALES)
def test_vertex_data_is_unit_length_at_the_scene_scale(tmp_path, scale):
    scene = load_without_warnings(quad_scene_file(tmp_path, scale))
    v = scene.native.get_vertex_data(0, 0, (0.3, 0.3))
    for name, expected in [("normalW", (0, 0, -1)), ("faceNormalW", (0, 0, -1)), ("tangentW", (1, 0, 0))]:
        np.testing.assert_allclose(v[name][:3], expected, atol=1e-6, err_msg=name)
    assert v["tangentW"][3] == -1.0


def lit_quad_scene_file(tmp_path, scale: float):
    """The quad seen by a camera 3·scale in front of it, lit by the sun (an image independent of scale)."""
    return quad_scene_file(tmp_path, scale,
        "camera = Camera('camera')\n"
        f"camera.position = float3({0.3 * scale!r}, {0.2 * scale!r}, {-3 * scale!r})\n"
        "camera.target = float3(0, 0, 0)\n"
        "camera.up = float3(0, 1, 0)\n"
        f"camera.nearPlane, camera.farPlane = {0.1 * scale!r}, {10 * scale!r}\n"
        "sceneBuilder.addCamera(camera)\n"
        "sun = DirectionalLight('sun')\n"
        "sun.direction = float3(0.2, -0.3, 1)\n"
        "sceneBuilder.addLight(sun)\n")


@pytest.mark.parametrize("integrator", ["MinimalPathTracer", "PathTracer"])
def test_render_is_the_same_at_every_scene_scale(tmp_path, integrator):
    reference = falcor.render(lit_quad_scene_file(tmp_path, 1.0), spp=1, width=8, height=8, integrator=integrator)
    assert reference.max() > 0.0  # the quad is lit and seen
    for scale in [1e-30, 1e-20, 1e20, 1e30]:
        image = falcor.render(load_without_warnings(lit_quad_scene_file(tmp_path, scale)), spp=1, width=8, height=8,
                              integrator=integrator)
        np.testing.assert_allclose(image, reference, rtol=1e-5, atol=1e-6, err_msg=f"scale {scale}")


def test_pretransform_normalize_keeps_ordinary_bits_and_rescales_extreme_rows():
    from falcor.scene.pretransform import _normalized
    ordinary = np.random.default_rng(1).normal(size=(64, 3)).astype(np.float32)
    squared = ordinary[:, 0] * ordinary[:, 0] + ordinary[:, 1] * ordinary[:, 1] + ordinary[:, 2] * ordinary[:, 2]
    assert np.array_equal(_normalized(ordinary), ordinary * (np.float32(1) / np.sqrt(squared))[:, None])
    extreme = np.float32([[3e30, -4e30, 0], [3e-30, 4e-30, 0], [1e-40, 0, 0]])
    np.testing.assert_allclose(_normalized(extreme), [[0.6, -0.8, 0], [0.6, 0.8, 0], [1, 0, 0]], rtol=1e-6)


@pytest.mark.parametrize("scale", [1e-30, 1e20, 1e30])
def test_bounds_radius_at_the_scene_scale(scale):
    bounds = falcor.AABB(falcor.float3(-scale), falcor.float3(scale))
    assert bounds.radius == pytest.approx(3 ** 0.5 * scale, rel=1e-6)
