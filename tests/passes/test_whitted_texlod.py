"""WhittedRayTracer texture LOD along reflections and refractions: ray cones and ray differentials
filter a fine checker seen in a mirror, through glass and in the sky, where mip 0 aliases."""
import numpy as np
import pytest
from PIL import Image

import falcor
from helpers import render_whitted

# A 1-texel checker of 0 and 1: every mip from level 1 on is exactly 0.5, so a filtered lookup
# reads 0.5 while mip 0 reads 0 or 1 (blended bilinearly): the pixels' spread tells the level.
CHECKER_TEXELS = 512


def write_checker(path, width, height):
    y, x = np.mgrid[0:height, 0:width]
    texels = np.where((x + y) % 2 == 0, 255, 0).astype(np.uint8)
    Image.fromarray(np.stack([texels] * 3, axis=-1), "RGB").save(path)


# The camera looks down at a mirror floor (or, `glass`, through a glass pane) at a far wall that
# glows with the checker; `sky` replaces the wall with a checker environment map.
SCENE = """
wall = StandardMaterial('Wall')
wall.baseColor = float4(0, 0, 0, 1)
wall.loadTexture(MaterialTextureSlot.Emissive, r'{checker}')
wall.emissiveFactor = 1.0
mirror = StandardMaterial('Mirror')
mirror.baseColor = float4(1, 1, 1, 1)
mirror.metallic = 1.0
mirror.roughness = 0.0
mirror.indexOfRefraction = {ior}
quad = TriangleMesh.createQuad()
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Surface', Transform(translation=float3(0, 0, {surface_z}), scaling=float3(8, 1, 8),
                             rotationEulerDeg=float3({surface_rx}, 0, 0))), sceneBuilder.addTriangleMesh(quad, mirror))
if {wall}:
    sceneBuilder.addMeshInstance(sceneBuilder.addNode('Wall', Transform(translation=float3(0, 4, -30), scaling=float3(40, 1, 40),
                                 rotationEulerDeg=float3(90, 0, 0))), sceneBuilder.addTriangleMesh(quad, wall))
else:
    sceneBuilder.envMap = EnvMap(r'{checker}')
sceneBuilder.renderSettings = SceneRenderSettings(useEnvLight=True, useAnalyticLights=False, useEmissiveLights=True)
camera = Camera('Main')
camera.position = float3(0, 2, 6)
camera.target = float3(0, {target_y}, 0)
camera.up = float3(0, 1, 0)
camera.focalLength = 35.0
sceneBuilder.addCamera(camera)
"""

SETUPS = {
    # Mirror floor at y = 0 reflecting the wall.
    "mirror": dict(ior=1.0, surface_z=0, surface_rx=0, wall=True, target_y=0),
    # A vertical glass pane between camera and wall: refracted at the primary hit and again behind.
    "glass": dict(ior=1.5, surface_z=2, surface_rx=90, wall=True, target_y=2),
    # Mirror floor reflecting a checker sky.
    "sky": dict(ior=1.0, surface_z=0, surface_rx=0, wall=False, target_y=0),
}


def render(tmp_path, setup, props, size=48):
    checker = tmp_path / "checker.png"
    if not checker.exists():
        # The sky's checker is finer than a pixel only with many texels: 2048 x 1024 over the sphere.
        write_checker(checker, *((4 * CHECKER_TEXELS, 2 * CHECKER_TEXELS) if setup == "sky" else (CHECKER_TEXELS, CHECKER_TEXELS)))
    scene = tmp_path / f"{setup}.pyscene"
    scene.write_text(SCENE.format(checker=checker, **SETUPS[setup]))
    return render_whitted(scene, {"maxBounces": 3, **props}, size).mean(axis=-1)


FOOTPRINTS = [
    {"texLODMode": "RayCones", "rayConeMode": "Unified"},
    {"texLODMode": "RayCones", "rayConeMode": "Combo"},
    {"texLODMode": "RayCones", "rayConeMode": "Unified", "rayConeFilterMode": "Anisotropic"},
    {"texLODMode": "RayCones", "rayConeMode": "Combo", "rayConeFilterMode": "AnisotropicWhenRefraction",
     "useRoughnessToVariance": True},
    {"texLODMode": "RayDiffs"},
    {"texLODMode": "RayDiffs", "rayDiffFilterMode": "Anisotropic"},
]


def region(image, setup):
    """The pixels that see the checker after one reflection or refraction."""
    return image[: image.shape[0] // 3] if setup == "glass" else image[image.shape[0] * 2 // 3:]


@pytest.mark.parametrize("setup", SETUPS)
def test_footprints_filter_what_mip0_aliases(tmp_path, setup):
    aliased = region(render(tmp_path, setup, {"texLODMode": "Mip0"}), setup)
    # Pixels whose chain reaches the checker (the others find nothing: black).
    seen = region(render(tmp_path, setup, FOOTPRINTS[0]), setup) > 0.1
    assert seen.mean() > 0.5, seen.mean()
    # Mip 0 of a checker far smaller than a pixel, bilinear at scattered points: 0.5 + 0.5 (1 - 2a)(1 - 2b)
    # for uniform fractions a, b, whose standard deviation is 1/6.
    assert aliased[seen].std() > 0.1, aliased[seen].std()
    for props in FOOTPRINTS:
        filtered = region(render(tmp_path, setup, props), setup)
        # Every footprint covers many texels there: mip levels >= 1, which are 0.5.
        np.testing.assert_allclose(filtered[seen], 0.5, atol=0.02, err_msg=str(props))


def test_stochastic_samples_mip0_as_falcor(tmp_path):
    mip0 = render(tmp_path, "mirror", {"texLODMode": "Mip0"})
    np.testing.assert_array_equal(render(tmp_path, "mirror", {"texLODMode": "Stochastic"}), mip0)


def test_background_is_falcors_grey_without_an_env_map(tmp_path):
    scene = tmp_path / "empty.pyscene"
    scene.write_text("camera = Camera('Main')\ncamera.position = float3(0, 0, 1)\ncamera.target = float3(0, 0, 0)\n"
                     "camera.up = float3(0, 1, 0)\nsceneBuilder.addCamera(camera)\n"
                     "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q', Transform(translation=float3(0, 0, -50))),"
                     " sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial('M')))\n")
    np.testing.assert_array_equal(render_whitted(scene, {}, 8)[0, 0], [0.25, 0.25, 0.25])
