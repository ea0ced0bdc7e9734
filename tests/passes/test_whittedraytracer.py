"""WhittedRayTracer: direct light against its closed form, mirror chains, properties, bad input."""
import numpy as np
import pytest

import falcor
from helpers import render_whitted

SCENE = """
floor = PBRTDiffuseMaterial('Floor')
floor.baseColor = float4(0.5, 0.5, 0.5, 1)
mirror = StandardMaterial('Mirror')
mirror.baseColor = float4(1, 1, 1, 1)
mirror.metallic = 1.0
mirror.roughness = 0.0
mirror.indexOfRefraction = 1.0  # Whitted reflects only where the relative IoR is 1.
glow = StandardMaterial('Glow')
glow.baseColor = float4(0, 0, 0, 1)
glow.emissiveColor = float3(2, 3, 4)
quad = TriangleMesh.createQuad()
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform(scaling=float3(4, 1, 4))), sceneBuilder.addTriangleMesh(quad, floor))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Mirror', Transform(translation=float3(3, 1, 0), scaling=float3(2, 1, 2),
                             rotationEulerDeg=float3(0, 0, 90))), sceneBuilder.addTriangleMesh(quad, mirror))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Glow', Transform(translation=float3(-3, 1, 0), scaling=float3(2, 1, 2),
                             rotationEulerDeg=float3(0, 0, -90))), sceneBuilder.addTriangleMesh(quad, glow))
light = PointLight('Light')
light.position = float3(0, 2, 0)
light.intensity = float3(8, 8, 8)
sceneBuilder.addLight(light)
camera = Camera('Main')
camera.position = float3({cx}, {cy}, {cz})
camera.target = float3({tx}, {ty}, {tz})
camera.up = float3(0, 1, 0)
camera.focalLength = 200.0
sceneBuilder.addCamera(camera)
"""


def render(tmp_path, camera, target, props=None, size=9):
    scene = tmp_path / "whitted.pyscene"
    scene.write_text(SCENE.format(cx=camera[0], cy=camera[1], cz=camera[2], tx=target[0], ty=target[1], tz=target[2]))
    return render_whitted(scene, props, size)


def test_direct_light_on_a_lambertian_floor(tmp_path):
    """Looking straight down at the point below the light: L = albedo/π · I/h²."""
    img = render(tmp_path, camera=(0, 1.5, 0.0001), target=(0, 0, 0))
    np.testing.assert_allclose(img[4, 4], 0.5 / np.pi * 8 / 2**2, rtol=2e-3)


def test_mirror_shows_the_emitter_across(tmp_path):
    """A white metal mirror with relative IoR 1 reflects the glowing wall opposite it fully."""
    img = render(tmp_path, camera=(0, 1, 0), target=(3, 1, 0))
    np.testing.assert_allclose(img[4, 4], (2, 3, 4), rtol=1e-3)
    # Falcor counts bounces after the first reflected hit: with maxBounces 0 that hit's emission
    # still shows, but nothing is lit there (the wall's black base reflects no direct light anyway).
    img0 = render(tmp_path, camera=(0, 1, 0), target=(3, 1, 0), props={"maxBounces": 0})
    np.testing.assert_allclose(img0[4, 4], (2, 3, 4), rtol=1e-3)


def test_mirror_chain_carries_direct_light_only_within_max_bounces(tmp_path):
    """Seen in the mirror, the lit floor needs one bounce for its direct light."""
    view = dict(camera=(0, 1.5, 0), target=(3, 0.2, 0))  # The mirror, reflecting the floor.
    lit = render(tmp_path, **view, props={"maxBounces": 1})
    unlit = render(tmp_path, **view, props={"maxBounces": 0})
    assert lit.mean() > 0.005 and np.abs(unlit).max() < 1e-6


def test_properties_round_trip_and_bad_values():
    g = falcor.RenderGraph("g")
    p = g.create_pass("w", "WhittedRayTracer", {})
    assert p.properties == {"maxBounces": 3, "texLODMode": "Mip0", "rayConeMode": "Combo", "rayConeFilterMode": "Isotropic",
                            "rayDiffFilterMode": "Isotropic", "useRoughnessToVariance": False}
    props = {"maxBounces": 7, "texLODMode": "RayCones", "rayConeMode": "Unified", "rayConeFilterMode": "AnisotropicWhenRefraction",
             "rayDiffFilterMode": "Anisotropic", "useRoughnessToVariance": True}
    assert g.create_pass("w2", "WhittedRayTracer", props).properties == props
    with pytest.raises(Exception, match="rayConeMode"):
        g.create_pass("bad", "WhittedRayTracer", {"rayConeMode": "Cone"})
    with pytest.raises(Exception, match="maxBounces"):
        g.create_pass("bad2", "WhittedRayTracer", {"maxBounces": -1})
