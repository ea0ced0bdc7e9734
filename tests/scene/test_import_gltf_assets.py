"""The glTF files of ../shared/assets (from Assimp's test suite): what they hold, read off their JSON by
hand, against what the importer made of them."""
from __future__ import annotations

import base64
import io
import json
import math

import numpy as np
import pytest
from PIL import Image

import falcor
from asset_checks import assert_renders_finite, load_both_ways
from helpers import read_texture
from shared_files import shared_path


def gltf_asset(*parts):
    return shared_path("assets", "gltf", *parts)


@pytest.mark.parametrize("name", ["BoxTextured.glb", "BoxTextured-embedded.gltf"])
def test_box_textured_with_its_embedded_texture(tmp_path, name):
    scene, _ = load_both_ways(gltf_asset(name), tmp_path)
    stats = scene.stats
    assert (stats["meshCount"], stats["uniqueTriangleCount"], stats["uniqueVertexCount"]) == (1, 12, 24)
    (material,) = scene.materials
    assert material.name == "Texture"
    texture = material.getTexture(falcor.MaterialTextureSlot.BaseColor)  # embedded: Falcor would skip it
    expected = np.asarray(Image.open(io.BytesIO(embedded_png())).convert("RGBA"))
    assert (texture.width, texture.height) == expected.shape[1::-1] == (211, 211)
    np.testing.assert_array_equal(read_texture(texture)[::50, ::50], expected[::50, ::50])
    assert_renders_finite(scene)


def embedded_png() -> bytes:
    """The image of BoxTextured-embedded.gltf, decoded from its data URI here, independently."""
    doc = json.loads(gltf_asset("BoxTextured-embedded.gltf").read_text())
    return base64.b64decode(doc["images"][0]["uri"].split(",", 1)[1])


def test_cameras(tmp_path):
    scene, _ = load_both_ways(gltf_asset("Cameras.gltf"), tmp_path)
    perspective, orthographic = scene.cameras
    # yfov 0.7 rad over Falcor's 24 mm frame height; both at translation (0.5, 0.5, 3) looking down -Z.
    assert perspective.focalLength == pytest.approx(24 / (2 * math.tan(0.35)), rel=1e-6)
    assert perspective.aspectRatio == pytest.approx(1.0)
    assert (perspective.nearPlane, perspective.farPlane) == (pytest.approx(0.01), pytest.approx(100))
    assert orthographic.focalLength == 0
    for camera in (perspective, orthographic):
        np.testing.assert_allclose(camera.position, [0.5, 0.5, 3.0])
        direction = np.asarray(camera.target) - np.asarray(camera.position)
        np.testing.assert_allclose(direction / np.linalg.norm(direction), [0, 0, -1], atol=1e-6)
    assert scene.stats["uniqueTriangleCount"] == 2
    assert_renders_finite(scene)


def test_animated_morph_cube_keeps_its_rest_shape(tmp_path, capfd):
    scene, _ = load_both_ways(gltf_asset("AnimatedMorphCube", "glTF", "AnimatedMorphCube.gltf"), tmp_path)
    assert "morph" in capfd.readouterr().out.lower()  # weights animation: not supported, said so
    assert scene.stats["uniqueTriangleCount"] == 12 and len(scene.animations) == 0
    (material,) = scene.materials
    # Falcor stores base colours in half precision.
    np.testing.assert_array_equal(material.baseColor, np.float16([0.6038274, 0.6038274, 0.6038274, 1.0]))
    # Scale 100 on a 0.02-wide cube: a box two units wide.
    extent = np.asarray(scene.bounds.maxPoint) - np.asarray(scene.bounds.minPoint)
    np.testing.assert_allclose(extent, [2, 2, 2], rtol=1e-4)
    assert_renders_finite(scene)


def test_simple_skin_is_skinned_both_ways(tmp_path, capfd):
    """(Its vertices against the glTF definition: tests/scene/test_skinning.py.)"""
    scene, through_pyscene = load_both_ways(gltf_asset("simple_skin.gltf"), tmp_path)
    assert "warning" not in capfd.readouterr().out.lower()  # nothing is left out
    assert scene.stats["uniqueTriangleCount"] == 8  # 24 indices
    assert len(scene.animations) == 1  # the joint's rotation channel, on its node
    for s in (scene, through_pyscene):
        s.update(1.0)  # the elbow at 90 degrees
    bent = scene.native.get_mesh_arrays(0)["positions"]
    np.testing.assert_array_equal(bent, through_pyscene.native.get_mesh_arrays(0)["positions"])
    assert np.abs(bent[:, 0]).max() > 0.9  # the upper half swings out past the strip's half-width 0.5
    assert_renders_finite(scene)
