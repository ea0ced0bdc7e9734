"""Materials: defaults, half-float storage, the alpha-mode rule, texture slots and loading."""
import numpy as np
import pytest
from PIL import Image

import falcor
from falcor import (AlphaMode, BasicMaterial, ClothMaterial, HairMaterial, IMaterial, Material, MaterialTextureSlot,
                    MaterialType, PBRTCoatedConductorMaterial, PBRTConductorMaterial, PBRTDiffuseMaterial, ShadingModel,
                    StandardMaterial, float2, float3, float4)


def half(v):
    return float(np.float16(v))


def test_standard_defaults():
    m = StandardMaterial()
    assert isinstance(m, BasicMaterial) and isinstance(m, IMaterial) and Material is StandardMaterial
    assert m.type == MaterialType.Standard and m.shadingModel == ShadingModel.MetalRough and m.name == ""
    assert m.baseColor == float4(1) and m.specularParams == float4(0)
    assert m.roughness == 0 and m.metallic == 0 and m.indexOfRefraction == 1.5
    assert m.emissiveColor == float3(0) and m.emissiveFactor == 1.0 and not m.emissive
    assert m.transmissionColor == float3(1) and m.diffuseTransmission == 0 and m.specularTransmission == 0
    assert m.volumeAbsorption == float3(0) and m.volumeScattering == float3(0) and m.volumeAnisotropy == 0
    assert m.displacementScale == 0 and m.displacementOffset == 0
    assert not m.doubleSided and not m.thinSurface and m.nestedPriority == 0
    assert m.alphaMode == AlphaMode.Opaque and m.alphaThreshold == 0.5
    assert repr(m.textureTransform) == "Transform()" and not m.entryPointVolumeProperties
    assert IMaterial.PARAM_COUNT == 20 and StandardMaterial.PARAM_COUNT == 20
    assert int(MaterialTextureSlot.Normal) == 3 and AlphaMode.Mask != 1  # pybind-like enums: int() works, not ints


def test_half_storage():
    m = StandardMaterial("m")
    m.baseColor = float4(0.1, 0.2, 0.3, 0.4)
    assert list(m.baseColor) == [half(0.1), half(0.2), half(0.3), half(0.4)]
    m.roughness = 0.123456
    assert m.roughness == half(0.123456) and m.specularParams.y == half(0.123456)
    m.metallic = 0.7
    assert m.specularParams == float4(0, half(0.123456), half(0.7), 0)
    m.indexOfRefraction = 1.33
    assert m.indexOfRefraction == half(1.33)
    m.alphaThreshold = 0.3
    assert m.alphaThreshold == half(0.3)
    m.volumeAnisotropy = 2.0  # clamped to 0.99 then stored as half
    assert m.volumeAnisotropy == half(0.99)
    m.emissiveColor = float3(0.1, 17, 4)  # full float
    assert m.emissiveColor == float3(0.1, 17, 4)
    m.displacementScale = 0.1
    assert m.displacementScale == float(np.float32(0.1))


def test_emissive_flag():
    m = StandardMaterial()
    m.emissiveColor = float3(17, 12, 4)
    assert m.emissive
    m.emissiveFactor = 0
    assert not m.emissive
    m.emissiveFactor = 5
    assert m.emissive and m.emissiveFactor == 5


def test_alpha_mode_follows_alpha_and_threshold():
    m = StandardMaterial()
    m.baseColor = float4(1, 1, 1, 0.25)
    assert m.alphaMode == AlphaMode.Mask  # 0.25 < 0.5
    m.alphaThreshold = 0.2
    assert m.alphaMode == AlphaMode.Opaque
    m.alphaMode = AlphaMode.Mask  # explicit setting sticks until alpha or threshold change again
    assert m.alphaMode == AlphaMode.Mask
    m.baseColor = float4(1, 1, 1, 1)
    assert m.alphaMode == AlphaMode.Opaque


def test_spec_gloss_ignores_roughness_and_metallic(capfd):
    m = StandardMaterial("sg", ShadingModel.SpecGloss)
    m.roughness = 0.5
    m.metallic = 0.5
    assert m.roughness == 0 and m.metallic == 0 and m.specularParams == float4(0)
    assert "does not use the metallic/roughness shading model" in capfd.readouterr().out
    assert not m.entryPointVolumeProperties


def test_nested_priority_clamped(capfd):
    m = StandardMaterial()
    m.nestedPriority = 20
    assert m.nestedPriority == 15
    assert "out of range" in capfd.readouterr().out


def write_png(path, rgba):
    Image.fromarray(np.asarray(rgba, np.uint8), "RGBA").save(path)


def test_textures(tmp_path):
    checker = np.zeros((4, 4, 4), np.uint8)
    checker[..., :3] = np.where((np.indices((4, 4)).sum(0) % 2)[..., None] == 1, 255, 0)
    checker[..., 3] = 255
    write_png(tmp_path / "checker.png", checker)
    m = StandardMaterial("t")
    assert m.getTexture(MaterialTextureSlot.BaseColor) is None
    assert m.loadTexture(MaterialTextureSlot.BaseColor, tmp_path / "checker.png")
    tex = m.getTexture(MaterialTextureSlot.BaseColor)
    assert tex.format == falcor.ResourceFormat.RGBA8UnormSrgb and tex.mip_count == 3
    assert m.alphaMode == AlphaMode.Mask  # textured alpha: the full range is assumed until analyzed
    assert m.load_texture(MaterialTextureSlot.Normal, tmp_path / "checker.png", use_srgb=True)
    assert m.getTexture(MaterialTextureSlot.Normal).format == falcor.ResourceFormat.RGBA8Unorm  # normal maps are linear
    assert not m.loadTexture(MaterialTextureSlot.Emissive, tmp_path / "missing.png")
    m.clearTexture(MaterialTextureSlot.Normal)
    assert m.getTexture(MaterialTextureSlot.Normal) is None
    m.setTexture(MaterialTextureSlot.Emissive, tex)
    assert m.getTexture(MaterialTextureSlot.Emissive) is tex and m.emissive
    # Hair has no alpha and no emissive slot: Falcor warns and ignores.
    hair = HairMaterial("h")
    assert not hair.setTexture(MaterialTextureSlot.Emissive, tex)
    hair.alphaMode = AlphaMode.Mask
    assert hair.alphaMode == AlphaMode.Opaque


def test_texture_optimization_narrows_alpha_and_drops_constant_textures(tmp_path):
    opaque = np.full((2, 2, 4), 255, np.uint8)
    opaque[0, 0, :3] = 0
    write_png(tmp_path / "opaque.png", opaque)
    write_png(tmp_path / "flat.png", np.full((2, 2, 4), 128, np.uint8))
    m = StandardMaterial("o")
    m.loadTexture(MaterialTextureSlot.BaseColor, tmp_path / "opaque.png")
    m.loadTexture(MaterialTextureSlot.Emissive, tmp_path / "flat.png")
    assert m.alphaMode == AlphaMode.Mask
    m._optimize()  # what the SceneBuilder does at build
    assert m.alphaMode == AlphaMode.Opaque and m.getTexture(MaterialTextureSlot.BaseColor) is not None
    assert m.getTexture(MaterialTextureSlot.Emissive) is None
    srgb_128 = ((128 / 255 + 0.055) / 1.055) ** 2.4
    np.testing.assert_allclose(list(m.emissiveColor), [srgb_128] * 3, rtol=1e-5)


def test_other_material_types():
    assert ClothMaterial("c").type == MaterialType.Cloth
    c = ClothMaterial()
    c.roughness = 0.3
    assert c.roughness == half(0.3)
    p = PBRTConductorMaterial("p")
    p.roughness = float2(0.1, 0.2)
    assert p.roughness == float2(half(0.1), half(0.2)) and p.type == MaterialType.PBRTConductor
    cc = PBRTCoatedConductorMaterial()
    cc.roughness = float4(0.1, 0.2, 0.3, 0.4)
    assert cc.specularParams == float4(half(0.1), half(0.2), half(0.3), half(0.4))
    d = PBRTDiffuseMaterial(falcor.Device(), "withDevice")
    assert d.name == "withDevice" and not hasattr(d, "roughness")
    with pytest.raises(falcor.RuntimeError):
        falcor.MERLMaterial("merl", "does/not/exist.binary")


def test_param_layouts():
    assert falcor.get_material_param_layout(MaterialType.Standard)["roughness"] == {"offset": 4, "size": 1}
    assert falcor.MATERIAL_PARAM_LAYOUTS["PBRTConductor"]["roughness"] == {"offset": 6, "size": 2}
    assert falcor.MATERIAL_PARAM_LAYOUTS["Hair"] == {}
