"""RTXDIPass (ReSTIR DI on the CPU): its unbiased modes converge to the path tracer's direct
lighting (PathTracer with maxSurfaceBounces 0) on the Cornell box and on a scene with every light
type RTXDI samples; the biased modes stay finite and close; options, errors, outputs, thread-count
determinism; Falcor's RTXDI script and image-test graph under mogwai.

Convergence is judged per region of the image: RTXDI's frames are correlated (reservoirs are
reused over time and space), so its standard error comes from the spread of independent runs
(graph seeds); the path tracer's frames are independent, so its error comes from their spread."""
from pathlib import Path

import falcor
import numpy as np
import pytest
from helpers import run_mogwai, run_python

ROOT = Path(__file__).resolve().parents[2]
CORNELL = ROOT / "Scenes" / "CornellBox.pyscene"
SIZE = 32
REGION = 8  # 4x4 regions of 8x8 pixels
LUMA = np.array([0.2126, 0.7152, 0.0722])
OUTPUTS = ["color", "emission", "diffuseIllumination", "diffuseReflectance", "specularIllumination", "specularReflectance"]

# Every light kind RTXDI samples: emissive triangles, point and spot lights (local), directional and
# distant lights (infinite), an env map; floor and spheres with specular lobes.
MIXED_SCENE = """
floor = StandardMaterial('Floor')
floor.baseColor = float4(0.6, 0.6, 0.6, 1.0)
floor.roughness = 0.5
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform(scaling=float3(6, 1, 6))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), floor))
shiny = StandardMaterial('Shiny')
shiny.baseColor = float4(0.8, 0.5, 0.3, 1.0)
shiny.roughness = 0.3
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Ball', Transform(translation=float3(-0.5, 0.4, 0), scaling=0.4)),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createSphere(1.0, 16, 8), shiny))
glow = StandardMaterial('Glow')
glow.baseColor = float4(0, 0, 0, 1)
glow.emissiveColor = float3(1.0, 0.6, 0.2)
glow.emissiveFactor = 3.0
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Lamp', Transform(translation=float3(0.7, 0.3, 0.3), scaling=0.3)),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createSphere(1.0, 12, 6), glow))
point = PointLight('Point')
point.position = float3(-1.5, 1, 1)
point.intensity = float3(2, 2, 2)
sceneBuilder.addLight(point)
spot = PointLight('Spot')
spot.position = float3(1, 2, -0.5)
spot.direction = float3(0, -1, 0)
spot.openingAngle = 0.5
spot.intensity = float3(6, 6, 6)
sceneBuilder.addLight(spot)
directional = DirectionalLight('Directional')
directional.direction = float3(1, -1, 0)
directional.intensity = float3(0.3, 0.3, 0.3)
sceneBuilder.addLight(directional)
sun = DistantLight('Sun')
sun.direction = float3(0, -1, -1)
sun.angle = 0.1
sun.intensity = float3(0.5, 0.5, 0.5)
sceneBuilder.addLight(sun)
envMap = EnvMap(r'{envmap}')
envMap.intensity = 0.3
sceneBuilder.envMap = envMap
camera = Camera('Main')
camera.position = float3(0, 1.6, 2.6)
camera.target = float3(0, 0.3, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


@pytest.fixture(scope="module")
def renderer():
    return falcor.Renderer()


@pytest.fixture(scope="module")
def mixed_scene(tmp_path_factory):
    path = tmp_path_factory.mktemp("rtxdi") / "Mixed.pyscene"
    path.write_text(MIXED_SCENE.format(envmap=ROOT / "Scenes" / "Images" / "Sunset.exr"))
    return path


def direct_graph(name, tracer, props, seed=0):
    """VBufferRT (pixel centres) -> tracer -> AccumulatePass."""
    g = falcor.RenderGraph(name)
    g.seed = seed
    g.create_pass("VBuffer", "VBufferRT", {"samplePattern": "Center"})
    g.create_pass("Tracer", tracer, props)
    g.add_edge("VBuffer.vbuffer", "Tracer.vbuffer")
    if tracer == "RTXDIPass":
        g.add_edge("VBuffer.mvec", "Tracer.mvec")
    g.create_pass("Accumulate", "AccumulatePass", {"precisionMode": "Double"})
    g.add_edge("Tracer.color", "Accumulate.input")
    g.mark_output("Accumulate.output")
    g.mark_output("Tracer.color")
    return g


def load(m, scene):
    m.loadScene(str(scene))
    m.resizeFrameBuffer(SIZE, SIZE)


def render(m, g, frames, per_frame=None):
    m.addGraph(g)
    m.setActiveGraph(g)
    for _ in range(frames):
        m.renderFrame()
        if per_frame is not None:
            per_frame(np.array(g.getOutput("Tracer.color"))[..., :3] @ LUMA)
    mean = np.array(g.getOutput("Accumulate.output"))[..., :3] @ LUMA
    m.removeGraph(g)
    return mean


def region_means(lum):
    return lum.reshape(SIZE // REGION, REGION, SIZE // REGION, REGION).mean(axis=(1, 3))


def reference(m, frames):
    """Region means of the path tracer's direct lighting and their standard errors (frames are independent)."""
    samples = []
    render(m, direct_graph("pt_direct", "PathTracer", {"maxSurfaceBounces": 0}), frames, lambda lum: samples.append(region_means(lum)))
    samples = np.array(samples)
    return samples.mean(0), samples.std(0, ddof=1) / np.sqrt(frames)


def rtxdi_runs(m, options, runs, frames):
    """Region means of `runs` independent RTXDI runs (graph seeds 1..runs), `frames` frames each."""
    return np.array([region_means(render(m, direct_graph(f"rtxdi_{seed}", "RTXDIPass", {"options": options}, seed), frames))
                     for seed in range(1, runs + 1)])


def t_scores(runs, ref_mean, ref_se):
    """Differences in standard errors; regions of env map only have no noise, so rounding (1e-5
    relative: per-frame float sums against one double accumulation) bounds the error from below."""
    se = runs.std(0, ddof=1) / np.sqrt(len(runs))
    return (runs.mean(0) - ref_mean) / np.sqrt(se ** 2 + ref_se ** 2 + (1e-5 * ref_mean) ** 2)


# Unbiased configurations. 8 runs give 7 degrees of freedom per region: |t| > 5.4 has probability
# 1e-3 each, so 16 regions x 6 runs pass by chance unless a mode is biased by several standard errors.
UNBIASED = [
    {"mode": "NoResampling"},
    {"mode": "TemporalResampling", "biasCorrection": "RayTraced"},
    {"mode": "SpatialResampling", "biasCorrection": "RayTraced", "spatialIterations": 2},
    {"mode": "SpatiotemporalResampling", "biasCorrection": "RayTraced", "spatialSampleCount": 2},
]
T_LIMIT = 5.4


@pytest.mark.parametrize("scene, modes", [("cornell", UNBIASED), ("mixed", UNBIASED[::3])], ids=["cornell", "mixed"])  # reuse is light-agnostic
def test_unbiased_modes_converge_to_the_path_tracers_direct_lighting(renderer, mixed_scene, scene, modes):
    load(renderer, CORNELL if scene == "cornell" else mixed_scene)
    ref_mean, ref_se = reference(renderer, 512)
    lit = ref_mean > 1e-3 * ref_mean.max()
    for options in modes:
        runs = rtxdi_runs(renderer, options, 8, 12)
        t = t_scores(runs, ref_mean, ref_se)
        assert np.abs(t[lit]).max() < T_LIMIT, (options, np.round(t, 2))
        # The whole image too (its error is far smaller than any region's): within 1.5% of the tracer.
        assert abs(runs.mean() / ref_mean.mean() - 1) < 0.015, (options, runs.mean(), ref_mean.mean())


@pytest.mark.parametrize("bias_correction", ["Off", "Basic", "Pairwise"])
def test_biased_corrections_stay_finite_and_close(renderer, bias_correction):
    """Off (1/M), Basic (1/Z without visibility) and Pairwise (MIS ignoring occlusion) weight reused
    samples as if every neighbour saw them: biased near shadow edges, so only finite, non-negative
    values and an image mean within 3% of the path tracer's are required (measured: under 1%)."""
    load(renderer, CORNELL)
    ref_mean, _ = reference(renderer, 256)
    img = render(renderer, direct_graph("rtxdi_biased", "RTXDIPass", {"options": {"biasCorrection": bias_correction}}, 1), 48)
    assert np.isfinite(img).all() and img.min() >= 0
    assert abs(img.mean() / ref_mean.mean() - 1) < 0.03


def test_outputs_compose_the_color(renderer, mixed_scene):
    """color = emission + diffuseIllumination x diffuseReflectance + specularIllumination x
    specularReflectance (Falcor's demodulation), illumination alpha = light distance or 10000."""
    load(renderer, mixed_scene)
    g = falcor.RenderGraph("rtxdi_outputs")
    g.create_pass("VBuffer", "VBufferRT", {"samplePattern": "Center"})
    g.create_pass("RTXDI", "RTXDIPass", {})
    g.add_edge("VBuffer.vbuffer", "RTXDI.vbuffer")
    for name in OUTPUTS:
        g.mark_output(f"RTXDI.{name}")
    renderer.addGraph(g)
    renderer.setActiveGraph(g)
    renderer.renderFrame()
    out = {name: np.array(g.getOutput(f"RTXDI.{name}")) for name in OUTPUTS}
    renderer.removeGraph(g)
    diffuse, specular = out["diffuseIllumination"][..., :3], out["specularIllumination"][..., :3]
    composed = out["emission"][..., :3] + diffuse * out["diffuseReflectance"][..., :3] + specular * out["specularReflectance"][..., :3]
    np.testing.assert_allclose(out["color"][..., :3], composed, rtol=1e-4, atol=1e-6)
    assert (out["emission"][..., :3].max(-1) > 0).any() and (specular.max(-1) > 0).any() and (diffuse.max(-1) > 0).any()
    distance = out["diffuseIllumination"][..., 3]
    assert np.all((distance == 10000) | ((distance > 0) & (distance < 10000)))
    assert (distance < 10000).any()  # local lights at a finite distance (the others report 10000)


def test_temporal_reuse_follows_the_motion_vectors(renderer):
    """A camera panning ~1.2 pixels per frame: with `mvec` connected, each pixel takes its history
    from where its surface was (single-frame error after 12 frames measured at 0.042 of the mean);
    without it, from the same pixel, which the depth/normal tests then accept or reject by chance
    (0.088, worse than no reuse at 0.073)."""
    load(renderer, CORNELL)
    camera = renderer.scene.camera
    position, target = camera.position, camera.target

    def place(dx):
        camera.position = falcor.float3(position.x + dx, position.y, position.z)
        camera.target = falcor.float3(target.x + dx, target.y, target.z)

    def final_frame_error(connect_mvec):
        g = falcor.RenderGraph("rtxdi_motion")
        g.create_pass("VBuffer", "VBufferRT", {"samplePattern": "Center"})
        g.create_pass("RTXDI", "RTXDIPass", {"options": {"mode": "TemporalResampling"}})
        g.add_edge("VBuffer.vbuffer", "RTXDI.vbuffer")
        if connect_mvec:
            g.add_edge("VBuffer.mvec", "RTXDI.mvec")
        g.mark_output("RTXDI.color")
        renderer.addGraph(g)
        renderer.setActiveGraph(g)
        for frame in range(12):
            place(0.03 * frame)
            renderer.renderFrame()
        img = np.array(g.getOutput("RTXDI.color"))[..., :3] @ LUMA
        renderer.removeGraph(g)
        return img

    try:
        with_mvec, without_mvec = final_frame_error(True), final_frame_error(False)
        ref = render(renderer, direct_graph("pt_motion", "PathTracer", {"maxSurfaceBounces": 0}), 256)
    finally:
        place(0.0)
    error = {name: np.sqrt(((img - ref) ** 2).mean()) / ref.mean() for name, img in [("mvec", with_mvec), ("none", without_mvec)]}
    assert error["mvec"] < 0.7 * error["none"], error


@pytest.mark.parametrize("options", [{}, {"mode": "SpatialResampling", "biasCorrection": "Pairwise", "spatialSampleCount": 3}])
def test_same_bits_on_one_and_two_threads(renderer, options):
    load(renderer, CORNELL)
    results = []
    for threads in (1, 2):
        falcor.set_thread_count(threads)
        g = direct_graph(f"rtxdi_threads_{threads}", "RTXDIPass", {"options": options}, 7)
        render(renderer, g, 4)
        results.append(np.array(g.getOutput("Accumulate.output")))
    falcor.set_thread_count(2)
    assert results[0].tobytes() == results[1].tobytes()
    assert results[0][..., :3].max() > 0


FALCOR_DEFAULTS = {
    "mode": "SpatiotemporalResampling", "presampledTileCount": 128, "presampledTileSize": 1024, "storeCompactLightInfo": True,
    "localLightCandidateCount": 24, "infiniteLightCandidateCount": 8, "envLightCandidateCount": 8, "brdfCandidateCount": 1,
    "brdfCutoff": 0.0, "testCandidateVisibility": True, "biasCorrection": "Basic", "depthThreshold": 0.1, "normalThreshold": 0.5,
    "samplingRadius": 30.0, "spatialSampleCount": 1, "spatialIterations": 5, "maxHistoryLength": 20, "boilingFilterStrength": 0.0,
    "rayEpsilon": 1e-3, "useEmissiveTextures": False, "enableVisibilityShortcut": False, "enablePermutationSampling": False,
}


def options_of(p):
    options = p.getDictionary()["options"]
    return {k: pytest.approx(v) if isinstance(v, float) else v for k, v in options.items()}


def test_options_have_falcors_keys_and_defaults_and_round_trip():
    assert options_of(falcor.createPass("RTXDIPass")) == FALCOR_DEFAULTS
    changed = {"mode": "TemporalResampling", "biasCorrection": "RayTraced", "localLightCandidateCount": 4, "samplingRadius": 12.5,
               "testCandidateVisibility": False}
    p = falcor.createPass("RTXDIPass", {"options": changed})
    assert options_of(p) == {**FALCOR_DEFAULTS, **changed}
    assert options_of(falcor.createPass("RTXDIPass", p.getDictionary())) == options_of(p)


@pytest.mark.parametrize("options, match", [
    ({"mode": "Bogus"}, r"RTXDIPass.*options\.mode"),
    ({"biasCorrection": 2.5}, r"RTXDIPass.*options\.biasCorrection"),
    ({"spatialSampleCount": -1}, r"RTXDIPass.*options\.spatialSampleCount"),
    ({"samplingRadius": "far"}, r"RTXDIPass.*options\.samplingRadius"),
    (3, r"RTXDIPass.*'options' must be a dict"),
])
def test_bad_options_raise_naming_the_pass_and_key(options, match):
    with pytest.raises(Exception, match=match):
        falcor.createPass("RTXDIPass", {"options": options})


def test_out_of_range_values_are_clamped_and_unknown_keys_warn(capfd):
    p = falcor.createPass("RTXDIPass", {"options": {"samplingRadius": 80.0, "maxHistoryLength": 99, "colour": 1}})
    options = p.getDictionary()["options"]
    assert options["samplingRadius"] == 50.0 and options["maxHistoryLength"] == 50
    err = capfd.readouterr()
    text = err.out + err.err
    assert "samplingRadius" in text and "options.colour" in text


def test_falcors_use_vbuffer_key_is_warned_about():
    """Falcor's RTXDI graph passes `useVBuffer`, which the pass ignores; the warning is once per
    process, so it is looked for in a fresh one."""
    r = run_python("import falcor\nfalcor.createPass('RTXDIPass', {'useVBuffer': False})\n")
    assert r.returncode == 0 and "useVBuffer" in r.stdout + r.stderr, r.stdout + r.stderr


def test_no_scene_clears_the_outputs():
    g = falcor.RenderGraph("rtxdi_no_scene")
    g.create_pass("VBuffer", "VBufferRT", {})
    g.create_pass("RTXDI", "RTXDIPass", {})
    g.add_edge("VBuffer.vbuffer", "RTXDI.vbuffer")
    g.mark_output("RTXDI.color")
    g.execute()
    assert not np.array(g.getOutput("RTXDI.color")).any()


def test_falcors_rtxdi_script_runs_under_mogwai(tmp_path):
    r = run_mogwai(["--script", str(ROOT / "Scripts" / "RTXDI.py"), "--width", "48", "--height", "32"], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "captures" / "RTXDI.ToneMapper.dst.16.png").exists()
    hdr = np.asarray(__import__("OpenEXR").File(str(tmp_path / "captures" / "RTXDI.RTXDIPass.color.16.exr")).channels()["RGB"].pixels)
    assert hdr.shape == (32, 48, 3) and np.isfinite(hdr).all() and hdr.max() > 1  # the light is seen directly


def test_falcors_rtxdi_image_test_graph_runs_under_mogwai(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import sys\n"
        f"sys.path.insert(0, r'{ROOT / 'tests' / 'image_tests'}')\n"
        "from graphs.RTXDI import RTXDI as g\n"
        "m.addGraph(g)\n"
        f"m.loadScene(r'{CORNELL}')\n"
        "m.resizeFrameBuffer(24, 16)\n"
        "for _ in range(3):\n"
        "    m.renderFrame()\n"
        "import numpy as np\n"
        "dst = np.array(g.getOutput('ToneMappingPass.dst'))\n"
        "print('RESULT', dst.shape, float(dst[..., :3].max()))\n"
        "exit()\n")
    r = run_mogwai(["--script", str(script)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "RESULT (16, 24, 4)" in r.stdout and "useVBuffer" in r.stdout + r.stderr
    assert float(r.stdout.split("RESULT")[1].split(")")[1]) > 0.5
