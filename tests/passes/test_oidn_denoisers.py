"""OptixDenoiser and NRD, the CPU replacements over Intel Open Image Denoise (the `denoise` extra):
options as Falcor's, the error without the extra, determinism across thread counts, and the error
of a 1-spp Cornell box against a converged render before and after denoising. Also SDFEditor's
error (an unavailable Falcor pass)."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import falcor
import helpers  # noqa: F401 (registers ArraySource)

pytest.importorskip("pyoidn")  # The `denoise` extra (part of `test`).

CORNELL = str(Path(__file__).resolve().parents[2] / "Scenes" / "CornellBox.pyscene")
SIZE = 48
REFERENCE_SPP = 512


def test_optix_denoiser_options_round_trip():
    p = falcor.createPass("OptixDenoiser")
    assert p.getDictionary() == {"enabled": True, "blend": 0.0, "model": "HDR", "denoiseAlpha": False}
    props = {"enabled": False, "blend": 0.25, "model": "LDR", "denoiseAlpha": True}
    p = falcor.createPass("OptixDenoiser", props)
    assert p.getDictionary() == props
    assert p.enabled is False
    p.enabled = True
    assert p.getDictionary()["enabled"] is True
    for model in ("LDR", "HDR", "AOV", "Temporal"):
        assert falcor.createPass("OptixDenoiser", {"model": model}).getDictionary()["model"] == model


@pytest.mark.parametrize("props, words", [
    ({"enabled": "yes"}, ["OptixDenoiser", "enabled"]),
    ({"model": "Fast"}, ["OptixDenoiser", "model", "Temporal"]),
    ({"blend": 1.5}, ["OptixDenoiser", "blend", "[0, 1]"]),
])
def test_optix_denoiser_errors_name_pass_and_property(props, words):
    with pytest.raises(falcor.RuntimeError) as e:
        falcor.createPass("OptixDenoiser", props)
    assert all(w in str(e.value) for w in words), str(e.value)


def test_nrd_options_follow_falcors_dictionary_order_rule():
    d = falcor.createPass("NRD").getDictionary()
    assert list(d)[:6] == ["enabled", "method", "outputSize", "worldSpaceMotion", "disocclusionThreshold", "maxIntensity"]
    assert d["method"] == "RelaxDiffuseSpecular" and len(d) == 6 + 31
    # Falcor's overrides of NRD 3.1's defaults.
    assert d["diffusePrepassBlurRadius"] == 16.0 and d["atrousIterationNum"] == 6
    assert d["enableSpecularVirtualHistoryClamping"] is False and d["enableRoughnessEdgeStopping"] is True
    # A tuning key goes to the settings of the method read so far: `method` must come first.
    after = falcor.createPass("NRD", {"method": "RelaxDiffuse", "diffusePrepassBlurRadius": 5.0}).getDictionary()
    before = falcor.createPass("NRD", {"diffusePrepassBlurRadius": 5.0, "method": "RelaxDiffuse"}).getDictionary()
    assert after["diffusePrepassBlurRadius"] == 5.0 and before["diffusePrepassBlurRadius"] == 16.0
    assert len(after) == 6 + 17 and "specularPhiLuminance" not in after
    for method in ("SpecularReflectionMv", "SpecularDeltaMv"):
        assert len(falcor.createPass("NRD", {"method": method}).getDictionary()) == 6
    props = dict(falcor.createPass("NRD", {"method": "ReblurDiffuseSpecular", "maxIntensity": 250.0, "atrousIterationNum": 3}).getDictionary())
    assert falcor.createPass("NRD", props).getDictionary() == props


@pytest.mark.parametrize("props, words", [
    ({"method": "Relax"}, ["NRD", "method", "SpecularDeltaMv"]),
    ({"atrousIterationNum": -1}, ["NRD", "atrousIterationNum"]),
    ({"maxIntensity": 0.0}, ["NRD", "maxIntensity"]),
])
def test_nrd_errors_name_pass_and_property(props, words):
    with pytest.raises(falcor.RuntimeError) as e:
        falcor.createPass("NRD", props)
    assert all(w in str(e.value) for w in words), str(e.value)


@pytest.mark.parametrize("pass_type, words, closest", [
    ("SDFEditor", ("SDF grid", "interactive UI"), "SceneDebugger"),
    ("WARDiffPathTracer", ("automatic differentiation", "forward only"), "PathTracer"),
])
def test_unavailable_passes_say_why(pass_type, words, closest):
    with pytest.raises(falcor.RuntimeError) as e:
        falcor.createPass(pass_type)
    message = str(e.value)
    assert all(w in message for w in words) and f"'{closest}'" in message
    assert "no such class" not in message
    g = falcor.RenderGraph("G")
    with pytest.raises(falcor.RuntimeError, match=closest):
        g.create_pass("P", pass_type, {})


@pytest.mark.parametrize("pass_type", ["OptixDenoiser", "NRD"])
def test_missing_extra_names_it(pass_type):
    code = ("import sys; sys.modules['pyoidn'] = None\n"  # Python's way of hiding an installed package.
            "import falcor\n"
            f"try:\n    falcor.createPass('{pass_type}')\nexcept falcor.RuntimeError as e:\n    print('ERROR', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"ERROR {pass_type}:" in out.stdout and 'pip install "falcor[denoise]"' in out.stdout and "pyoidn" in out.stdout


def cornell_graph(denoiser_props=None, nrd_props=None):
    """1-spp path tracing of the Cornell box, denoised by OptixDenoiser (`D.output`) and by NRD
    remodulated (`M.output`)."""
    g = falcor.RenderGraph("Denoise")
    g.create_pass("G", "GBufferRT", {})
    g.create_pass("PT", "PathTracer", {"samplesPerPixel": 1})
    g.create_pass("D", "OptixDenoiser", denoiser_props or {"model": "HDR"})
    g.create_pass("NRD", "NRD", nrd_props or {})
    g.create_pass("M", "ModulateIllumination", {"useResidualRadiance": False})
    for src, dst in [("G.vbuffer", "PT.vbuffer"), ("G.viewW", "PT.viewW"), ("PT.color", "D.color"), ("PT.albedo", "D.albedo"),
                     ("PT.guideNormal", "D.normal"),
                     ("PT.nrdDiffuseRadianceHitDist", "NRD.diffuseRadianceHitDist"),
                     ("PT.nrdSpecularRadianceHitDist", "NRD.specularRadianceHitDist"), ("G.mvecW", "NRD.mvec"),
                     ("G.normWRoughnessMaterialID", "NRD.normWRoughnessMaterialID"), ("G.linearZ", "NRD.viewZ"),
                     ("PT.nrdEmission", "M.emission"), ("PT.nrdDiffuseReflectance", "M.diffuseReflectance"),
                     ("NRD.filteredDiffuseRadianceHitDist", "M.diffuseRadiance"),
                     ("PT.nrdSpecularReflectance", "M.specularReflectance"),
                     ("NRD.filteredSpecularRadianceHitDist", "M.specularRadiance")]:
        g.add_edge(src, dst)
    for o in ("PT.color", "D.output", "M.output"):
        g.mark_output(o)
    return g


def render_cornell(threads=None, size=SIZE, **graph_args):
    previous = falcor.get_thread_count()
    if threads:
        falcor.set_thread_count(threads)
    try:
        m = falcor.Renderer(size, size)
        g = cornell_graph(**graph_args)
        m.addGraph(g)
        m.loadScene(CORNELL)
        m.clock.pause()
        m.renderFrame()
        return {o: g.get_output(o).to_numpy()[..., :3].copy() for o in ("PT.color", "D.output", "M.output")}
    finally:
        falcor.set_thread_count(previous)


@pytest.fixture(scope="module")
def frames():
    return render_cornell(), render_cornell(nrd_props={"enabled": False})


@pytest.fixture(scope="module")
def reference():
    return falcor.render(CORNELL, spp=REFERENCE_SPP, width=SIZE, height=SIZE, max_bounces=10)


def mse(image, reference):
    """ErrorMeasurePass's mean squared RGB error over colors clipped to [0, 1], as displayed (the
    light, radiance ~17, would dominate otherwise); checked against numpy's."""
    h, w = image.shape[:2]
    for key, rgb in (("mse_source", image), ("mse_reference", reference)):
        helpers.ArraySource.images[key] = np.concatenate([np.clip(rgb, 0, 1), np.ones((h, w, 1))], axis=2).astype(np.float32)
    g = falcor.RenderGraph("ErrorMeasure")
    g.create_pass("Source", "ArraySource", {"key": "mse_source"})
    g.create_pass("Reference", "ArraySource", {"key": "mse_reference"})
    g.create_pass("E", "ErrorMeasurePass", {"ComputeSquaredDifference": True, "ComputeAverage": True, "ReportRunningError": False})
    g.add_edge("Source.out", "E.Source")
    g.add_edge("Reference.out", "E.Reference")
    g.mark_output("E.Output")
    g.resize(w, h)
    g.execute()
    error = float(g.getPass("E").avgError)
    assert error == pytest.approx(float(np.mean((np.clip(image, 0, 1) - np.clip(reference, 0, 1)) ** 2)), rel=1e-4)
    return error


def test_optix_denoiser_reduces_the_error_of_one_sample(frames, reference):
    denoised, _ = frames
    noisy, result = mse(denoised["PT.color"], reference), mse(denoised["D.output"], reference)
    # Measured: 1 spp 0.0280, denoised 0.0049 (5.7x). The reference's own noise adds 1/512 of 1 spp's.
    assert result < noisy / 3, (noisy, result)


def test_nrd_reduces_the_error_of_one_sample(frames, reference):
    denoised, passthrough = frames
    noisy, result = mse(passthrough["M.output"], reference), mse(denoised["M.output"], reference)
    # Disabled, NRD passes the radiance through and the remodulated image is the 1-spp color (up to
    # the half floats of NRD's outputs and the PathTracer's resolve of the NRD buffers: measured 0.0004).
    assert mse(passthrough["M.output"], passthrough["PT.color"]) < noisy / 20
    # Measured: 1 spp 0.0288, denoised 0.0057 (5.1x).
    assert result < noisy / 3, (noisy, result)


def test_denoisers_are_deterministic_across_thread_counts():
    # Large enough for OIDN to split the work between its threads.
    one, two = render_cornell(threads=1, size=160), render_cornell(threads=2, size=160)
    for o in ("D.output", "M.output"):
        assert np.array_equal(one[o], two[o]), o


def test_falcors_optix_denoiser_graph_runs():
    # Falcor's tests/image_tests/renderpasses/graphs/OptixDenoiser.py, built through the same calls.
    g = falcor.RenderGraph("OptixDenoiser")
    for name, pass_type in [("VBufferRT", "VBufferRT"), ("AccumulatePass", "AccumulatePass"), ("ToneMappingPass", "ToneMapper"),
                            ("PathTracer", "PathTracer"), ("OptixDenoiser", "OptixDenoiser")]:
        g.addPass(falcor.createPass(pass_type), name)
    for src, dst in [("VBufferRT.vbuffer", "PathTracer.vbuffer"), ("PathTracer.color", "AccumulatePass.input"),
                     ("AccumulatePass.output", "ToneMappingPass.src"), ("ToneMappingPass.dst", "OptixDenoiser.color"),
                     ("PathTracer.albedo", "OptixDenoiser.albedo"), ("PathTracer.guideNormal", "OptixDenoiser.normal"),
                     ("VBufferRT.mvec", "OptixDenoiser.mvec")]:
        g.addEdge(src, dst)
    for o in ("OptixDenoiser.output", "PathTracer.color", "ToneMappingPass.dst"):
        g.markOutput(o)
    m = falcor.Renderer(SIZE, SIZE)
    m.addGraph(g)
    m.loadScene(CORNELL)
    m.renderFrame()
    # `mvec` connected and no `model` given: Falcor picks 'Temporal' (denoised per frame here).
    assert g.getPass("OptixDenoiser").getDictionary()["model"] == "Temporal"
    out, src = g.getOutput("OptixDenoiser.output").to_numpy(), g.getOutput("ToneMappingPass.dst").to_numpy()
    assert np.isfinite(out).all() and 0.1 < out[..., :3].mean() < 1.0
    assert np.abs(out[..., :3] - src[..., :3]).mean() > 0.005  # Filtered, not copied.


def test_nrd_motion_methods_match_the_gbuffer_motion_of_surface_points():
    """With the secondary surface at the primary hit (SpecularDeltaMv) and a reflection hit distance
    of 0 (SpecularReflectionMv), both points are the G-buffer's own: their motion from the camera's
    move must be GBufferRT's `mvec` on the (static) Cornell box, to half-float precision (RG16Float:
    ~3e-5 at motions of 0.05)."""
    m = falcor.Renderer(SIZE, SIZE)
    g = falcor.RenderGraph("Motion")
    g.create_pass("G", "GBufferRT", {})
    g.create_pass("Zero", "Composite", {"scaleA": 0.0, "scaleB": 0.0})  # A zero image for the hit distance.
    g.create_pass("Delta", "NRD", {"method": "SpecularDeltaMv", "worldSpaceMotion": False})
    g.create_pass("Refl", "NRD", {"method": "SpecularReflectionMv", "worldSpaceMotion": False})
    for src, dst in [("G.posW", "Delta.deltaPrimaryPosW"), ("G.posW", "Delta.deltaSecondaryPosW"), ("G.mvec", "Delta.mvec"),
                     ("G.linearZ", "Zero.A"), ("G.linearZ", "Zero.B"), ("Zero.out", "Refl.specularHitDist"),
                     ("G.linearZ", "Refl.viewZ"), ("G.normWRoughnessMaterialID", "Refl.normWRoughnessMaterialID"),
                     ("G.mvec", "Refl.mvec")]:
        g.add_edge(src, dst)
    for o in ("G.mvec", "G.mask", "Delta.deltaMvec", "Refl.reflectionMvec"):
        g.mark_output(o)
    m.addGraph(g)
    m.loadScene(CORNELL)
    m.clock.pause()
    m.renderFrame()
    m.renderFrame()  # The first frame's previous camera is the one of the scene load.
    assert not g.get_output("Delta.deltaMvec").to_numpy().any()  # Static camera: no motion.
    m.scene.camera.position = m.scene.camera.position + falcor.float3(0.05, 0.03, 0.1)
    m.renderFrame()
    hit = g.get_output("G.mask").to_numpy().reshape(SIZE, SIZE) == 1
    gbuffer = g.get_output("G.mvec").to_numpy()[hit]
    assert np.abs(gbuffer).max() > 0.01
    for o in ("Delta.deltaMvec", "Refl.reflectionMvec"):
        np.testing.assert_allclose(g.get_output(o).to_numpy()[hit], gbuffer, atol=1e-4, err_msg=o)  # Measured: 1.6e-5.


def source_graph(pass_type, props, inputs, outputs):
    g = falcor.RenderGraph("Sources")
    g.create_pass("P", pass_type, props)
    for field, image in inputs.items():
        helpers.ArraySource.images[f"oidn_{field}"] = image
        g.create_pass(f"S_{field}", "ArraySource", {"key": f"oidn_{field}"})
        g.add_edge(f"S_{field}.out", f"P.{field}")
    for o in outputs:
        g.mark_output(f"P.{o}")
    height, width = next(iter(inputs.values())).shape[:2]
    g.resize(width, height)
    return g


def test_without_a_scene_optix_denoiser_copies_and_nrd_clears():
    rng = np.random.default_rng(3)
    color = rng.random((8, 8, 4)).astype(np.float32)
    g = source_graph("OptixDenoiser", {}, {"color": color}, ["output"])
    g.execute()
    np.testing.assert_array_equal(g.get_output("P.output").to_numpy(), color)  # As Falcor: filtering needs a scene.
    inputs = {f: color for f in ("diffuseRadianceHitDist", "specularRadianceHitDist", "viewZ", "normWRoughnessMaterialID", "mvec")}
    g = source_graph("NRD", {}, inputs, ["filteredDiffuseRadianceHitDist", "filteredSpecularRadianceHitDist"])
    g.execute()
    assert not g.get_output("P.filteredDiffuseRadianceHitDist").to_numpy().any()
    assert not g.get_output("P.filteredSpecularRadianceHitDist").to_numpy().any()


def test_path_tracer_nrd_script_graph_runs(reference):
    """Falcor's PathTracerNRD script (Scripts/PathTracerNRD.py: its five NRD passes,
    ModulateIllumination, DLSSPass and the reference branch) denoises the path tracer's frame."""
    g = falcor.RenderGraph.createFromFile(Path(__file__).resolve().parents[2] / "Scripts" / "PathTracerNRD.py")
    for nrd in ("NRDDiffuseSpecular", "NRDDeltaReflection", "NRDDeltaTransmission", "NRDReflectionMotionVectors", "NRDTransmissionMotionVectors"):
        assert g.getPass(nrd).type == "NRD"
    g.markOutput("ModulateIllumination.output")
    m = falcor.Renderer(SIZE, SIZE)
    m.addGraph(g)
    m.loadScene(CORNELL)
    m.renderFrame()
    assert all(np.isfinite(g.getOutput(o).to_numpy().astype(float)).all() for o in ("ToneMapperNRD.dst", "ToneMapperReference.dst"))
    image = g.getOutput("ModulateIllumination.output").to_numpy()[..., :3]
    assert np.isfinite(image).all()
    # Measured: 0.0086 denoised; 0.033 with NRDDiffuseSpecular disabled (the 1-spp frame).
    assert mse(image, reference) < 0.033 / 2.5
