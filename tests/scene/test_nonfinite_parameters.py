"""NaN and infinite material and env-map values are refused where they are set, naming the object
and property (or file), and leave the object unchanged: one such value made NaN pixels in
MinimalPathTracer and WhittedRayTracer and stopped the PathTracer's env-map sampler. Rendering
after a refused edit is checked in tests/pathtracing/test_nonfinite_scene_values.py."""
import json
from pathlib import Path

import numpy as np
import pytest

import falcor
from falcor import (ClothMaterial, EnvMap, HairMaterial, MaterialTextureSlot, PBRTCoatedConductorMaterial, PBRTCoatedDiffuseMaterial,
                    PBRTConductorMaterial, PBRTDielectricMaterial, PBRTDiffuseMaterial, PBRTDiffuseTransmissionMaterial,
                    StandardMaterial, float3)
from falcor.image_io import write_exr
from falcor.scene.material import merl_fit

SCENES = Path(__file__).resolve().parents[2] / "Scenes"

BASIC = ["baseColor", "specularParams", "transmissionColor", "diffuseTransmission", "specularTransmission", "volumeAbsorption",
         "volumeScattering", "volumeAnisotropy", "displacementScale", "displacementOffset", "indexOfRefraction", "alphaThreshold"]
PARAMETERS = {
    StandardMaterial: BASIC + ["roughness", "metallic", "emissiveColor", "emissiveFactor"],
    ClothMaterial: BASIC + ["roughness"],
    HairMaterial: ["baseColor", "specularParams", "indexOfRefraction"],
    PBRTDiffuseMaterial: BASIC,
    PBRTDiffuseTransmissionMaterial: ["baseColor", "transmissionColor", "indexOfRefraction"],
    PBRTConductorMaterial: ["roughness", "baseColor", "transmissionColor"],
    PBRTDielectricMaterial: ["roughness", "indexOfRefraction"],
    PBRTCoatedConductorMaterial: ["roughness", "baseColor"],
    PBRTCoatedDiffuseMaterial: ["roughness", "baseColor"],
}
CASES = [(cls, prop) for cls, props in PARAMETERS.items() for prop in props]


def with_component(value, bad):
    """`value` (scalar or vector) with its last component replaced by `bad`."""
    try:
        components = list(value)
    except TypeError:
        return bad
    components[-1] = bad
    return components


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("cls, prop", CASES, ids=[f"{c.__name__}.{p}" for c, p in CASES])
def test_material_parameters_refuse_non_finite_values(cls, prop, bad):
    m = cls("Mat")
    before = getattr(m, prop)
    with pytest.raises(RuntimeError, match=rf"Material 'Mat': '{prop}' must be finite, not .*{bad}"):
        setattr(m, prop, with_component(before, bad))
    assert repr(getattr(m, prop)) == repr(before)


def test_values_beyond_the_half_range_are_refused_naming_why():
    m = StandardMaterial("Mat")
    with pytest.raises(RuntimeError, match=r"'roughness' must be finite, not 100000.0 \(beyond the float range it is stored in\)"):
        m.roughness = 1e5  # Stored as float16: inf.
    m.emissiveFactor = 1e5  # float32: fine.
    assert m.emissiveFactor == 1e5 and m.roughness == 0


def test_textures_with_non_finite_texels_are_refused_naming_the_file(tmp_path):
    pixels = np.full((4, 4, 3), 0.5, np.float32)
    pixels[1, 2, 0] = np.nan
    pixels[3, 3, 1] = np.inf
    path = tmp_path / "bad.exr"
    write_exr(path, pixels)
    m = StandardMaterial("Mat")
    with pytest.raises(RuntimeError, match=rf"Material 'Mat': the 'baseColor' texture from '.*bad\.exr' has 2 NaN or infinite values"):
        m.loadTexture(MaterialTextureSlot.BaseColor, path)
    texture = falcor.Texture(2, 2, falcor.ResourceFormat.RGBA32Float)
    texture.from_numpy(np.array([[[0, 0, 0, 1], [0, 0, 0, 1]], [[0, 0, 0, 1], [np.nan, 0, 0, 1]]], np.float32))
    with pytest.raises(RuntimeError, match=r"Material 'Mat': the 'emissive' texture has 1 NaN or infinite values"):
        m.setTexture(MaterialTextureSlot.Emissive, texture)
    assert m.getTexture(MaterialTextureSlot.BaseColor) is None and m.getTexture(MaterialTextureSlot.Emissive) is None


def test_a_pyscene_setting_nan_names_the_file_and_line(tmp_path):
    scene = tmp_path / "nan.pyscene"
    scene.write_text("m = StandardMaterial('Floor')\nm.baseColor = float4(0.5, 0.5, 0.5, 1)\nm.roughness = float('nan')\n")
    with pytest.raises(falcor.ImporterError) as e:
        falcor.load_scene(str(scene))
    assert str(scene) in str(e.value) and "line 3" in str(e.value) and "'roughness' must be finite, not nan" in str(e.value)


def test_merl_fits_with_non_finite_values_fall_back_to_the_default_lobe(tmp_path, capfd):
    table = tmp_path / "table.binary"
    (tmp_path / "table.json").write_text(json.dumps({"base_color_srgb": [0.5, 0.5, 0.5], "roughness": float("nan"),
                                                     "specular": 0.5, "metallic": 0.0}))
    assert merl_fit(table) == {}
    captured = capfd.readouterr()
    assert "is not a fitted lobe (ValueError: NaN or infinite values)" in captured.out + captured.err


# ---- environment maps --------------------------------------------------------------------------

def sky(tmp_path, peak=4.0, name="sky.exr", half=True):
    pixels = np.full((8, 16, 3), 0.25, np.float32)
    pixels[2, 3] = peak
    path = tmp_path / name
    write_exr(path, pixels, half=half)
    return path


def test_env_map_files_with_non_finite_texels_are_refused_naming_the_file(tmp_path):
    with pytest.raises(RuntimeError, match=r"EnvMap '.*hot\.exr': the image has 3 NaN or infinite values"):
        EnvMap(sky(tmp_path, np.inf, "hot.exr"))


@pytest.mark.parametrize("prop, bad", [("intensity", np.inf), ("intensity", np.nan), ("tint", float3(1, np.inf, 1)),
                                       ("rotation", float3(0, np.nan, 0))])
def test_env_map_properties_refuse_non_finite_values(tmp_path, prop, bad):
    env = EnvMap(sky(tmp_path))
    before = getattr(env, prop)
    with pytest.raises(RuntimeError, match=rf"EnvMap '.*sky\.exr': '{prop}' must be finite"):
        setattr(env, prop, bad)
    assert repr(getattr(env, prop)) == repr(before)


def test_env_map_intensity_that_overflows_the_radiance_is_refused(tmp_path):
    env = EnvMap(sky(tmp_path, 1e30, half=False))
    overflow = r"EnvMap '.*sky\.exr': 'intensity' makes the radiance overflow float \(texels up to \(1e\+30, 1e\+30, 1e\+30\), intensity 1e\+10"
    with pytest.raises(RuntimeError, match=overflow):
        env.intensity = 1e10
    with pytest.raises(RuntimeError, match=r"'tint' makes the radiance overflow float"):
        env.tint = float3(1, 1e9, 1)
    env.intensity = 1e8  # 1e38: still a float.
    assert env.intensity == np.float32(1e8) and env.tint == float3(1)


# ---- the native scene: values given to it directly -----------------------------------------------

def test_the_native_scene_refuses_non_finite_material_and_env_map_fields():
    scene = falcor.load_scene(str(SCENES / "EnvMap.pyscene"))
    material = scene.getMaterial("Metal")._native_data()
    material["specular"] = (0.0, float("nan"), 1.0, 0.0)
    with pytest.raises(RuntimeError, match=r"NativeScene: field 'specular' must be finite, not nan"):
        scene.native.set_material(0, material)
    env = scene.envMap._native_data()
    env["intensity"] = float("inf")
    with pytest.raises(RuntimeError, match=r"NativeScene: field 'intensity' must be finite, not inf"):
        scene.native.set_env_map(env)
    assert all(np.isfinite(scene.native.eval_env_map((0.0, 1.0, 0.0))))  # Still the old map.
