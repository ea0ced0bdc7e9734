"""Hit distances are right at every scene scale the docs promise (1e-30 to 1e30), including hits
as close as the scene's own size: at 1e-15 the triangle test's t · det (a product of three
coordinates) is a denormal, which once gave t = 0 for a hit at distance 1e-16."""
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


@pytest.mark.parametrize("scale", SCALES)
def test_scene_cast_rays_hits_at_the_scene_scale(tmp_path, scale):
    # A single static instance: the scene pre-transforms it, so its world coordinates are tiny or huge.
    scene_file = tmp_path / "quad.pyscene"
    scene_file.write_text(
        "quad = TriangleMesh.createQuad()\n"  # xz-plane, normal +y, corners at +-0.5
        f"node = sceneBuilder.addNode('quad', Transform(scaling=float3({2 * scale!r}), rotationEulerDeg=float3(-90, 0, 0)))\n"
        "sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(quad, StandardMaterial('m')))\n")
    scene = falcor.load_scene(str(scene_file))
    hits = scene.cast_rays((ORIGINS * scale).astype(np.float32), DIRECTIONS)
    assert hits["hit"].all()
    np.testing.assert_allclose(hits["t"], expected_t(scale), rtol=1e-5)
