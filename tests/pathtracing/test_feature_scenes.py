"""The example scenes of Scenes/ render with the PathTracer, and the features they show work:
emissive textures, depth of field, nested dielectrics."""
import numpy as np
import pytest
from PIL import Image

import falcor
from pt_helpers import SCENES, make_renderer, render_frames, vbuffer_graph

ALL_SCENES = sorted(p.name for p in SCENES.glob("*.pyscene"))


@pytest.mark.parametrize("name", ALL_SCENES)
def test_every_example_scene_renders(name):
    img = falcor.render(SCENES / name, spp=2, width=48, height=27, max_bounces=4)
    assert np.isfinite(img).all() and (img >= 0).all()
    assert img.mean() > 1e-3  # Every example is lit.


def test_emissive_texture_is_seen_and_lights_the_floor():
    """Seen directly, the lamp shows its texture times the factor (its mean over the lamp's
    pixels equals the texture's mean); and that light reaches the floor."""
    img = falcor.render(SCENES / "EmissiveTexture.pyscene", spp=4, width=160, height=90, max_bounces=1)
    texture = np.asarray(Image.open(SCENES / "Textures/checker.png"), np.float64)[..., :3] / 255.0
    # sRGB texels as linear radiance (the material's emissive texture is sRGB).
    linear = np.where(texture <= 0.04045, texture / 12.92, ((texture + 0.055) / 1.055) ** 2.4)
    lamp = img[20:40, 70:90]  # Well inside the lamp's silhouette at this size, many checker cells.
    assert abs(lamp.mean() - 4.0 * linear.mean()) < 0.05 * 4.0 * linear.mean(), (lamp.mean(), 4.0 * linear.mean())
    floor = img[80:, :]
    assert floor.mean() > 0.02


def checker_contrast(img):
    """Spread of 2x2-averaged luminance over the lit checkerboard (the averaging keeps noise out)."""
    gray = img.mean(axis=-1)
    gray = gray.reshape(gray.shape[0] // 2, 2, gray.shape[1] // 2, 2).mean(axis=(1, 3))
    return float(gray[gray.shape[0] // 2:, :].std())


def test_depth_of_field_blurs_what_is_out_of_focus():
    """With the lens open (VBufferRT useDOF) and focus far in front, the checkerboard floor blurs
    towards its mean; with the pinhole it keeps its contrast."""
    results = {}
    for use_dof in (True, False):
        g = vbuffer_graph("PathTracer", {"maxSurfaceBounces": 0}, {"samplePattern": "Stratified", "sampleCount": 16, "useDOF": use_dof})
        m = make_renderer(SCENES / "TexturedQuads.pyscene", 96, 54, g)
        m.scene.camera.focalDistance = 0.3
        m.scene.camera.apertureRadius = 0.1
        results[use_dof] = render_frames(m, g, 64).mean(axis=0)
    assert checker_contrast(results[True]) < 0.5 * checker_contrast(results[False]), (
        checker_contrast(results[True]), checker_contrast(results[False]))


GRAZING_CHECKER = """
floor = StandardMaterial('Checker')
floor.loadTexture(MaterialTextureSlot.BaseColor, {texture!r})
floor.roughness = 1.0
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform(scaling=float3(10, 1, 10))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), floor))
sun = DirectionalLight('Sun')
sun.direction = float3(0, -1, 0)
sun.intensity = float3(3, 3, 3)
sceneBuilder.addLight(sun)
camera = Camera('Main')
camera.position = float3(0, 0.5, 5)
camera.target = float3(0, 0, -5)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def test_ray_differentials_filter_distant_textures(tmp_path):
    """primaryLodMode RayDiffs picks coarser mips where a checkerboard recedes: one centered
    sample per pixel then aliases far less (lower pixel-to-pixel contrast) than with Mip0."""
    cells = (np.add.outer(np.arange(512) // 2, np.arange(512) // 2) % 2).astype(np.uint8)  # 2-texel checks
    Image.fromarray(np.stack([cells * 255] * 3, axis=-1)).save(tmp_path / "fine_checker.png")
    scene = tmp_path / "grazing.pyscene"
    scene.write_text(GRAZING_CHECKER.format(texture=str(tmp_path / "fine_checker.png")))
    images = {}
    for mode in ("Mip0", "RayDiffs"):
        g = vbuffer_graph("PathTracer", {"primaryLodMode": mode, "maxSurfaceBounces": 0}, {"samplePattern": "Center"})
        m = make_renderer(scene, 64, 36, g)
        images[mode] = render_frames(m, g, 1)[0].mean(axis=-1)
    far = slice(17, 30)  # The receding floor.
    contrast = {k: float(np.abs(np.diff(v[far], axis=1)).mean()) for k, v in images.items()}
    assert contrast["RayDiffs"] < 0.2 * contrast["Mip0"], contrast


FURNACE = """
envMap = EnvMap(r'{env}')
sceneBuilder.envMap = envMap
coated = PBRTCoatedDiffuseMaterial('Clear coat over white')
coated.baseColor = float4(1, 1, 1, 1)
coated.roughness = float2(0, 0)
coated.indexOfRefraction = 1.5
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Sphere', Transform()),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createSphere(0.5, 48, 24), coated))
sceneBuilder.renderSettings = SceneRenderSettings(useEnvLight=True, useAnalyticLights=False)
camera = Camera('Main')
camera.position = float3(0, 0, 2)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def test_clear_coat_over_white_is_invisible_in_a_white_furnace(tmp_path):
    """A clear dielectric coat over a white Lambertian base loses no energy: lit by a uniform
    white sky it renders as the sky, through the whole path tracer (material setup, the walk,
    its delta lobes' MIS)."""
    from falcor.image_io import write_exr
    env = tmp_path / "white.exr"
    write_exr(env, np.ones((8, 16, 3), np.float32), half=False)
    scene = tmp_path / "furnace.pyscene"
    scene.write_text(FURNACE.format(env=env))
    img = falcor.render(scene, spp=4, width=32, height=32, max_bounces=8)
    # Inside the silhouette every sample returns exactly the sky; at the silhouette a few
    # reflections dip below the tessellated surface and are lost (shading normals).
    np.testing.assert_allclose(img[12:20, 12:20], 1.0, rtol=1e-5)  # The sphere spans about rows 9-22, columns 8-23.
    assert img.mean() > 0.995
