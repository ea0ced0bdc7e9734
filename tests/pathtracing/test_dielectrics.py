"""Glass, volume absorption and nested dielectrics against closed forms: a camera looks at an
emitter through slabs at (near) normal incidence. A non-absorbing-interface slab with
reflectance R and internal transmittance τ passes T = (1-R)²τ / (1 - R²τ²) of the light,
all inter-reflections included."""
import math

import numpy as np
import pytest

from pt_helpers import make_renderer, mean_and_stderr, render_frames, vbuffer_graph

R_GLASS = ((1.5 - 1.0) / (1.5 + 1.0)) ** 2

SCENE = """
def glass(name, absorption, priority):
    m = StandardMaterial(name)
    m.baseColor = float4(0, 0, 0, 1)
    m.roughness = 0.0
    m.specularTransmission = 1.0
    m.indexOfRefraction = 1.5
    m.volumeAbsorption = float3(absorption)
    m.nestedPriority = priority
    return m

emitter = StandardMaterial('Emitter')
emitter.baseColor = float4(0, 0, 0, 1)
emitter.indexOfRefraction = 1.0
emitter.emissiveColor = float3(1, 1, 1)
cube, quad = TriangleMesh.createCube(), TriangleMesh.createQuad()
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Emitter', Transform(scaling=float3(20, 1, 20), translation=float3(0, 0, -2),
                             rotationEulerDeg=float3(90, 0, 0))), sceneBuilder.addTriangleMesh(quad, emitter))
{slabs}
camera = Camera()
camera.position = float3(0, 0, 4)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
camera.focalLength = 400.0
sceneBuilder.addCamera(camera)
"""

SLAB = ("sceneBuilder.addMeshInstance(sceneBuilder.addNode('{name}', Transform(scaling=float3({size}, {size}, {depth}))), "
        "sceneBuilder.addTriangleMesh(cube, glass('{name}', {absorption}, {priority})))")


def transmitted(tmp_path, slabs):
    scene = tmp_path / "slabs.pyscene"
    scene.write_text(SCENE.format(slabs="\n".join(SLAB.format(**s) for s in slabs)))
    props = {"maxSurfaceBounces": 64, "maxSpecularBounces": 64, "maxTransmissionBounces": 64}
    g = vbuffer_graph("PathTracer", props, {"samplePattern": "Center"})
    m = make_renderer(scene, 8, 8, g)
    frames = render_frames(m, g, 64)
    return mean_and_stderr(frames.reshape(-1, 3), axis=0)


def slab_transmittance(tau):
    r = R_GLASS
    return (1 - r) ** 2 * tau / (1 - r * r * tau * tau)


def check(mean, se, expected):
    assert np.all(np.abs(mean - expected) <= 4.5 * se + 1e-3 * expected), (mean, se, expected)


def test_clear_glass_slab(tmp_path):
    mean, se = transmitted(tmp_path, [dict(name="A", size=4, depth=0.5, absorption=0.0, priority=0)])
    check(mean, se, slab_transmittance(1.0))


def test_absorbing_glass_slab(tmp_path):
    mean, se = transmitted(tmp_path, [dict(name="A", size=4, depth=0.5, absorption=1.2, priority=0)])
    check(mean, se, slab_transmittance(math.exp(-1.2 * 0.5)))


def test_nested_higher_priority_volume_replaces_the_outer_one(tmp_path):
    """B (priority 2) inside A (priority 1): B's surfaces are real, between equal IoRs they
    neither reflect nor refract, and inside B only B absorbs."""
    mean, se = transmitted(tmp_path, [dict(name="A", size=4, depth=0.5, absorption=1.0, priority=1),
                                      dict(name="B", size=3.9, depth=0.3, absorption=3.0, priority=2)])
    check(mean, se, slab_transmittance(math.exp(-1.0 * 0.2 - 3.0 * 0.3)))


def test_nested_lower_priority_volume_is_ignored(tmp_path):
    """B (priority 1) inside A (priority 2): B's surfaces are false intersections."""
    mean, se = transmitted(tmp_path, [dict(name="A", size=4, depth=0.5, absorption=1.0, priority=2),
                                      dict(name="B", size=3.9, depth=0.3, absorption=3.0, priority=1)])
    check(mean, se, slab_transmittance(math.exp(-1.0 * 0.5)))
