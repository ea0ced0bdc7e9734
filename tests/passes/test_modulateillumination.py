"""ModulateIllumination against a numpy version of Falcor's ModulateIllumination.cs.slang."""
import numpy as np
import pytest

import falcor
from helpers import run_pass

f32 = np.float32
CHANNELS = ["emission", "diffuseReflectance", "diffuseRadiance", "specularReflectance", "specularRadiance",
            "deltaReflectionEmission", "deltaReflectionReflectance", "deltaReflectionRadiance",
            "deltaTransmissionEmission", "deltaTransmissionReflectance", "deltaTransmissionRadiance",
            "residualRadiance"]
# (light, reflectance modulating it) in the shader's summation order.
TERMS = [("emission", None), ("diffuseRadiance", "diffuseReflectance"), ("specularRadiance", "specularReflectance"),
         ("deltaReflectionEmission", None), ("deltaReflectionRadiance", "deltaReflectionReflectance"),
         ("deltaTransmissionEmission", None), ("deltaTransmissionRadiance", "deltaTransmissionReflectance"),
         ("residualRadiance", None)]
W, H = 20, 12


def use_key(channel):
    return "use" + channel[0].upper() + channel[1:]


def images(names, seed=0, h=H, w=W):
    rng = np.random.default_rng(seed)
    return {n: (rng.random((h, w, 4)) * 2).astype(f32) for n in names}


def reference(inputs, props, h=H, w=W):
    def active(name):
        return name in inputs and props.get(use_key(name), True)

    def rgb(name):
        img = inputs[name][:h, :w]
        padded = np.zeros((h, w, 3), f32)
        padded[:img.shape[0], :img.shape[1], :img.shape[2]] = img[..., :3]
        return padded

    out = np.zeros((h, w, 4), f32)
    for light, reflectance in TERMS:
        if active(light):
            color = rgb(light)
            if reflectance and active(reflectance):
                color = color * rgb(reflectance)
            out[..., :3] += color
    return out


def modulate(inputs, props=None, size=None):
    return run_pass("ModulateIllumination", props or {}, inputs, ["output"], size=size)["output"]


def test_all_inputs_connected():
    inputs = images(CHANNELS, seed=1)
    out = modulate(inputs)
    np.testing.assert_allclose(out, reference(inputs, {}), rtol=1e-6)
    assert np.all(out[..., 3] == 0)


@pytest.mark.parametrize("names", [
    ["diffuseRadiance"],  # no reflectance: radiance passes unmodulated
    ["diffuseReflectance", "specularReflectance"],  # reflectance alone contributes nothing
    ["emission", "residualRadiance"],
    ["specularRadiance", "specularReflectance", "deltaTransmissionRadiance"],
    ["deltaReflectionEmission", "deltaReflectionRadiance", "deltaReflectionReflectance", "deltaTransmissionEmission",
     "deltaTransmissionReflectance"],
])
def test_subsets_of_inputs(names):
    inputs = images(names, seed=2)
    np.testing.assert_allclose(modulate(inputs), reference(inputs, {}), rtol=1e-6)


@pytest.mark.parametrize("disabled", [
    ["useEmission"],
    ["useDiffuseReflectance", "useSpecularReflectance"],  # radiance then passes unmodulated
    ["useDiffuseRadiance", "useDeltaTransmissionRadiance"],
    ["useDeltaReflectionEmission", "useDeltaTransmissionEmission", "useResidualRadiance"],
    ["useDeltaReflectionReflectance", "useDeltaTransmissionReflectance", "useSpecularRadiance"],
    [use_key(c) for c in CHANNELS],
])
def test_disabled_inputs_do_not_contribute(disabled):
    inputs = images(CHANNELS, seed=3)
    props = {k: False for k in disabled}
    np.testing.assert_allclose(modulate(inputs, props), reference(inputs, props), rtol=1e-6)


def test_no_inputs_gives_zero():
    out = modulate({}, size=(8, 6))
    assert out.shape == (6, 8, 4) and not out.any()


def test_single_channel_input_reads_missing_channels_as_zero():
    rng = np.random.default_rng(4)
    radiance = rng.random((H, W, 1)).astype(f32)
    out = modulate({"diffuseRadiance": radiance, "emission": images(["e"], seed=5)["e"]})
    expected = images(["e"], seed=5)["e"].copy()
    expected[..., 0] += radiance[..., 0]
    expected[..., 3] = 0
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_output_size_and_mismatched_inputs(capfd):
    inputs = images(["emission", "diffuseRadiance"], seed=6)
    out = modulate(inputs, {"outputSize": "Half"})
    assert out.shape == (H // 2, W // 2, 4)
    # Inputs larger than the output are read at the same pixel coordinates (their top-left part).
    np.testing.assert_allclose(out, reference(inputs, {}, h=H // 2, w=W // 2), rtol=1e-6)
    assert "not compatible with the FrameDim 10x6" in capfd.readouterr().out


def test_default_properties_and_order():
    d = falcor.createPass("ModulateIllumination", {}).getDictionary()
    assert list(d) == [use_key(c) for c in CHANNELS] + ["outputSize"]
    assert all(d[use_key(c)] is True for c in CHANNELS) and d["outputSize"] == "Default"


def test_property_round_trip():
    g = falcor.RenderGraph("rt")
    g.create_pass("M", "ModulateIllumination", {"useEmission": False, "useSpecularReflectance": False,
                                                "outputSize": "Quarter"})
    d = g.get_pass("M").getDictionary()
    assert d["useEmission"] is False and d["useSpecularReflectance"] is False and d["outputSize"] == "Quarter"
    g.update_pass("M", d)
    assert g.get_pass("M").getDictionary() == d


def test_unknown_key_warns_and_wrong_types_raise(capfd):
    falcor.createPass("ModulateIllumination", {"useEmision": True})
    assert "Unknown property 'useEmision' in ModulateIllumination properties." in capfd.readouterr().out
    with pytest.raises(falcor.RuntimeError, match="'useEmission' is not a boolean"):
        falcor.createPass("ModulateIllumination", {"useEmission": 1})
    with pytest.raises(falcor.RuntimeError, match="'outputSize'"):
        falcor.createPass("ModulateIllumination", {"outputSize": "Triple"})


def test_no_python_attributes():
    p = falcor.createPass("ModulateIllumination", {})
    assert not hasattr(p, "useEmission")
