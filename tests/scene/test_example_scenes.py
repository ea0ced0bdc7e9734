"""The example scenes in Scenes/: textures (with alpha testing), instancing with animation, every
light type, and an environment map."""
import math
from pathlib import Path

import numpy as np
import pytest

import falcor
from falcor import AlphaMode, MaterialTextureSlot, float3

SCENES = Path(__file__).resolve().parents[2] / "Scenes"


def test_textured_quads_alpha_test():
    scene = falcor.load_scene(SCENES / "TexturedQuads.pyscene")
    checker, leaves = scene.materials
    assert checker.getTexture(MaterialTextureSlot.BaseColor).format == falcor.ResourceFormat.RGBA8UnormSrgb
    assert checker.alphaMode == AlphaMode.Opaque  # an RGB image: its alpha is 1 everywhere
    assert leaves.alphaMode == AlphaMode.Mask
    # The leaves quad stands at z = 0 with uv = (x + 0.5, 1 - y): a ray hits a disk, not the gaps.
    origins = np.array([[-0.1875, 0.6875, 1.0], [0.4, 0.1, 1.0]], np.float32)
    r = scene.cast_rays(origins, [[0, 0, -1]] * 2)
    assert list(r["hit"]) == [True, False] and r["t"][0] == pytest.approx(1.0)
    assert scene.native.get_material_base_color(1, (0.3125, 0.3125))[3] == pytest.approx(1.0)
    checker_dark = ((60 / 255 + 0.055) / 1.055) ** 2.4
    assert scene.native.get_material_base_color(0, (1.5 / 64, 9.5 / 64))[0] == pytest.approx(checker_dark, abs=1e-3)


def test_instancing_and_turntable_animation():
    scene = falcor.load_scene(SCENES / "Instancing.pyscene")
    assert scene.stats["meshInstanceCount"] == 17 and scene.stats["meshCount"] == 2
    assert scene.stats["instancedTriangleCount"] == 16 * 12 + 2
    # As in Falcor, the static ground (pre-transformed, identity instance) comes first, then the
    # instanced cube's placements by node: instance 1 is Cube00 at (-1.5, 0.15, -1.5).
    ground, first = scene.native.get_instance(0), scene.native.get_instance(1)
    assert ground["mesh_id"] == 0 and first["mesh_id"] == 1
    np.testing.assert_array_equal(ground["world"], np.eye(4))
    np.testing.assert_allclose(first["world"][:3, 3], [-1.5, 0.15, -1.5], atol=1e-6)
    scene.update(2.0)  # a quarter turn about +Y
    np.testing.assert_allclose(scene.native.get_instance(1)["world"][:3, 3], [-1.5, 0.15, 1.5], atol=1e-5)


def test_lights_scene():
    scene = falcor.load_scene(SCENES / "Lights.pyscene")
    stats = scene.stats
    assert (stats["pointLightCount"], stats["directionalLightCount"], stats["distantLightCount"], stats["rectLightCount"],
            stats["discLightCount"], stats["sphereLightCount"]) == (2, 1, 1, 1, 1, 1)
    rect = scene.native.get_light(4)
    assert rect["type"] == 3 and rect["surfaceArea"] == pytest.approx(4 * 0.5 * 0.25)
    np.testing.assert_allclose(rect["transMat"][:3, 3], [0, 3, -3], atol=1e-6)
    glow = scene.materials[1]
    assert glow.emissive and scene.native.get_material_emission(1, (0.5, 0.5)) == pytest.approx((4, 2.4, 0.8))


def test_env_map_scene():
    scene = falcor.load_scene(SCENES / "EnvMap.pyscene")
    env = scene.envMap
    assert env.intensity == 1.5 and env.rotation == float3(0, 90, 0) and env.texture.mip_count > 1
    assert not scene.renderSettings.useAnalyticLights and scene.native.has_env_map
    # The radiance seen straight up is the top row of the image, times the intensity.
    top = env.texture.to_float32(0, 0)[0, :, :3].mean(axis=0) * 1.5
    np.testing.assert_allclose(scene.native.eval_env_map((0, 1, 0)), top, rtol=0.1)
