"""PathTracer: its sampling strategies converge to one image, determinism, properties and
Python members, bad input, and agreement with native Falcor's oracle-cornell frame."""
import os
import subprocess
import sys

import numpy as np
import pytest

import falcor
import gbuffer_oracle as go
from pt_helpers import SCENES, agree, make_renderer, mean_and_stderr, render_frames, vbuffer_graph


def block_means(scene, props, size=32, frames=256, block=8):
    g = vbuffer_graph("PathTracer", props)
    m = make_renderer(scene, size, size, g)
    f = render_frames(m, g, frames)
    n = size // block
    return mean_and_stderr(f.reshape(frames, n, block, n, block, 3).mean(axis=(2, 4)))


@pytest.mark.parametrize(
    "scene, strategies",
    [
        ("CornellBox.pyscene", [{"useNEE": False}, {"useMIS": False}, {"misHeuristic": "PowerTwo"}, {"emissiveSampler": "Uniform"},
                                {"emissiveSampler": "Power"}]),
        ("EnvMap.pyscene", [{"useNEE": False}, {"useMIS": False}, {"misHeuristic": "PowerExp", "misPowerExponent": 3.0}]),
        ("Lights.pyscene", [{"useMIS": False}, {"useRussianRoulette": True}, {"emissiveSampler": "Null"}, {"emissiveSampler": "Uniform"},
                            {"emissiveSampler": "LightBVH", "lightBVHOptions": {"buildOptions": {"maxTriangleCountPerLeaf": 1}}},
                            {"emissiveSampler": "LightBVH", "lightBVHOptions": {"useBoundingCone": False, "useLightingCone": False}},
                            {"emissiveSampler": "LightBVH", "lightBVHOptions": {"useUniformTriangleSampling": False, "solidAngleBoundMethod": "BoxToCenter",
                                                                                "buildOptions": {"splitHeuristicSelection": "BinnedSAH"}}}]),
    ],
)
def test_sampling_strategies_converge_to_the_same_image(scene, strategies):
    """NEE only, BSDF sampling only, MIS with each heuristic and each emissive sampler are
    unbiased estimators of one image: 8x8-pixel block means (large enough for the mean of
    BSDF-only hits on a small light to be near normal) agree within 4.5 combined standard errors."""
    base, se_base = block_means(SCENES / scene, {"maxSurfaceBounces": 2})
    for props in strategies:
        other, se_other = block_means(SCENES / scene, {"maxSurfaceBounces": 2, **props})
        ok = agree(other, se_other, base, se_base, sigmas=4.5)
        assert ok.all(), (props, np.abs(other - base).max())


def test_same_bits_on_any_thread_count(tmp_path):
    code = (
        "import sys, numpy as np; sys.path.insert(0, %r)\n"
        "from pt_helpers import *\n"
        "g = vbuffer_graph('PathTracer', {'samplesPerPixel': 2})\n"
        "m = make_renderer(SCENES / 'CornellBox.pyscene', 48, 32, g)\n"
        "np.save(sys.argv[1], render_frames(m, g, 2))\n" % os.path.dirname(__file__)
    )
    images = []
    for threads in ("1", "2", "7"):
        out = tmp_path / f"t{threads}.npy"
        env = dict(os.environ, FALCOR_NUM_THREADS=threads)
        subprocess.run([sys.executable, "-c", code, str(out)], check=True, env=env, capture_output=True)
        images.append(np.load(out))
    assert np.array_equal(images[0], images[1]) and np.array_equal(images[0], images[2])


def test_fixed_seed_repeats_frames_and_reset_restarts():
    g = vbuffer_graph("PathTracer", {"fixedSeed": 7}, {"samplePattern": "Center"})
    m = make_renderer(SCENES / "CornellBox.pyscene", 24, 24, g)
    a, b = render_frames(m, g, 2)
    assert np.array_equal(a, b)
    tracer = g.get_pass("tracer")
    assert tracer.useFixedSeed and tracer.fixedSeed == 7
    tracer.useFixedSeed = False
    c, d = render_frames(m, g, 2)
    assert not np.array_equal(c, d)
    tracer.reset()
    e = render_frames(m, g, 1)[0]
    g2 = vbuffer_graph("PathTracer", {}, {"samplePattern": "Center"})
    m2 = make_renderer(SCENES / "CornellBox.pyscene", 24, 24, g2)
    assert np.array_equal(e, render_frames(m2, g2, 1)[0])


def test_a_pixels_samples_are_the_single_sample_frames_of_their_seeds():
    """Sample s of a frame with fixed seed K and n samples per pixel is seeded K * n + s (Falcor's
    seeding), starts from the pixel's one primary hit, and the pixel is the mean of its samples.
    So an n-sample frame is the mean of the one-sample frames with seeds K * n + s."""
    def frame(spp, seed):
        g = vbuffer_graph("PathTracer", {"samplesPerPixel": spp, "fixedSeed": seed}, {"samplePattern": "Center"})
        return render_frames(make_renderer(SCENES / "Materials.pyscene", 40, 24, g), g, 1)[0]

    n, seed = 3, 5
    singles = [frame(1, seed * n + s) for s in range(n)]
    assert not np.array_equal(singles[0], singles[1])
    np.testing.assert_allclose(frame(n, seed), sum(singles) / n, rtol=1e-6, atol=1e-7)


def test_properties_defaults_and_bounce_rules():
    g = falcor.RenderGraph("g")
    p = g.create_pass("pt", "PathTracer", {})
    props = p.properties
    assert props["samplesPerPixel"] == 1 and props["maxSurfaceBounces"] == 10
    assert (props["maxDiffuseBounces"], props["maxSpecularBounces"], props["maxTransmissionBounces"]) == (3, 3, 10)
    assert props["emissiveSampler"] == "LightBVH" and props["misHeuristic"] == "Balance" and props["colorFormat"] == "LogLuvHDR"
    p = g.create_pass("pt2", "PathTracer", {"maxSurfaceBounces": 4, "maxDiffuseBounces": 2})
    assert (p.properties["maxSurfaceBounces"], p.properties["maxDiffuseBounces"], p.properties["maxSpecularBounces"]) == (4, 2, 4)
    p.set_properties({"samplesPerPixel": 40, "specularRoughnessThreshold": 2.0})
    assert p.properties["samplesPerPixel"] == 16 and p.properties["specularRoughnessThreshold"] == 1.0


@pytest.mark.parametrize(
    "props, message",
    [
        ({"maxSurfaceBounces": -1}, "maxSurfaceBounces"),
        ({"emissiveSampler": "Nearest"}, "emissiveSampler"),
        ({"misHeuristic": 3}, "misHeuristic"),
        ({"sampleGenerator": 4}, "sampleGenerator"),
        ({"lightBVHOptions": 1}, "lightBVHOptions"),
    ],
)
def test_bad_properties_raise_naming_the_property(props, message):
    g = falcor.RenderGraph("g")
    with pytest.raises(Exception, match=message):
        g.create_pass("pt", "PathTracer", props)
    p = g.create_pass("ok", "PathTracer", {"maxDiffuseBounces": 5})
    with pytest.raises(Exception, match=message):
        p.set_properties(props)
    assert p.properties["maxDiffuseBounces"] == 5  # A rejected update changes nothing.


def test_sample_count_input_sets_per_pixel_samples():
    """With `sampleCount` connected, each pixel takes min(count, 16) samples; 0 gives black."""
    import helpers

    counts = np.zeros((16, 16), np.uint8)
    counts[:, 8:] = 4
    helpers.ArraySource.images["spp"] = counts
    g = vbuffer_graph("PathTracer", {}, {"samplePattern": "Center"}, outputs=("color", "rayCount", "pathLength"))
    g.create_pass("spp", "ArraySource", {"key": "spp"})
    g.add_edge("spp.out", "tracer.sampleCount")
    m = make_renderer(SCENES / "CornellBox.pyscene", 16, 16, g)
    m.renderFrame()
    color = np.asarray(g.getOutput("tracer.color"))
    rays = np.asarray(g.getOutput("tracer.rayCount"))
    assert not color[:, :8, :3].any() and not rays[:, :8].any()
    # Pixels that see the box trace at least one ray per sample (the frame's border sees nothing).
    assert (rays[:, 8:] >= 4).mean() > 0.5 and color[:, 8:, :3].any()


def test_oracle_cornell_statistics():
    """Native Falcor's 1-spp PathTracer frame (LightBVH sampler) against our converged image:
    the image mean and 32x32 block means agree within the oracle's own noise."""
    oracle = go.read_image(go.oracle_dir() / "oracle-cornell.PathTracer.color.0.exr").astype(np.float64)
    props = {"samplesPerPixel": 1, "maxSurfaceBounces": 3, "maxDiffuseBounces": 3, "maxSpecularBounces": 3,
             "maxTransmissionBounces": 10, "useRussianRoulette": False, "emissiveSampler": "LightBVH", "useSER": False}
    g = vbuffer_graph("PathTracer", props, {"useAlphaTest": False, "samplePattern": "Center"})
    m = make_renderer(go.CORNELL, 256, 256, g)
    ours, se_ours = mean_and_stderr(render_frames(m, g, 32))
    blocks = lambda img: img.reshape(8, 32, 8, 32, 3)
    ob = blocks(oracle)
    oracle_mean = ob.mean(axis=(1, 3))
    # The oracle is one sample per pixel: its block noise is the pixel spread over sqrt(1024).
    oracle_se = ob.std(axis=(1, 3), ddof=1) / 32.0
    ours_b, se_b = blocks(ours).mean(axis=(1, 3)), np.sqrt((blocks(se_ours) ** 2).sum(axis=(1, 3))) / 1024
    assert agree(ours_b, se_b, oracle_mean, oracle_se, sigmas=4.0).all()
    image_se = oracle.reshape(-1, 3).std(axis=0, ddof=1) / np.sqrt(oracle.shape[0] * oracle.shape[1])
    assert agree(ours.mean(axis=(0, 1)), 0.0, oracle.mean(axis=(0, 1)), image_se, sigmas=4.0).all()


def test_mismatched_field_sizes_raise_instead_of_reading_out_of_bounds():
    g = vbuffer_graph("PathTracer", {"outputSize": "Half"})
    m = make_renderer(SCENES / "CornellBox.pyscene", 32, 32, g)
    with pytest.raises(Exception, match="PathTracer: field 'color' is 16x16 but the frame is 32x32"):
        m.renderFrame()


def test_env_map_edits_show_on_the_next_frame():
    g = vbuffer_graph("PathTracer", {"fixedSeed": 1}, {"samplePattern": "Center"})
    m = make_renderer(SCENES / "EnvMap.pyscene", 32, 16, g)
    before = render_frames(m, g, 1)[0]
    m.scene.envMap.intensity = 2.0 * m.scene.envMap.intensity
    after = render_frames(m, g, 1)[0]
    # All light comes from the env map and the seed is fixed: the image scales exactly.
    assert np.allclose(after, 2.0 * before, rtol=1e-5, atol=1e-6)


def test_pixel_stats_count_the_rays_traced():
    g = vbuffer_graph("PathTracer", {"maxSurfaceBounces": 2}, {"samplePattern": "Center"}, outputs=("color",))
    m = make_renderer(SCENES / "CornellBox.pyscene", 32, 32, g)
    tracer = g.get_pass("tracer")
    assert "pixelStats" in dir(tracer)
    assert tracer.pixelStats.enabled is False
    m.renderFrame()
    assert tracer.pixelStats.stats["totalRays"] == 0  # Disabled: nothing reported.
    tracer.pixelStats.enabled = True
    g.mark_output("tracer.rayCount")
    g.mark_output("tracer.pathLength")
    m.renderFrame()
    stats = tracer.pixelStats.stats
    rays = np.asarray(g.getOutput("tracer.rayCount")).astype(np.int64)
    assert stats["totalRays"] == rays.sum() == stats["visibilityRays"] + stats["closestHitRays"] > 0
    assert stats["avgTotalRays"] == pytest.approx(rays.sum() / rays.size)
    assert stats["avgPathLength"] == pytest.approx(np.asarray(g.getOutput("tracer.pathLength")).astype(np.int64).sum() / rays.size)
    # With at most 2 bounces a path traces at most 3 scatter rays and 3 shadow rays.
    assert rays.max() <= 6 and 0 < stats["avgPathLength"] <= 2
    with pytest.raises(AttributeError):
        tracer.pixelStats.bogus = 1
    with pytest.raises(Exception, match="read-only"):
        tracer.pixelStats.stats = {}


def test_edits_show_on_the_next_frame_and_restart_accumulation():
    """Falcor's interactive loop: a material edit changes the next frame (all light here comes
    from the edited lamp, so the frame scales exactly with a fixed seed), and an accumulation
    over a moving camera restarts."""
    g = vbuffer_graph("PathTracer", {"fixedSeed": 1}, {"samplePattern": "Center"})
    g.create_pass("acc", "AccumulatePass", {"enabled": True})
    g.add_edge("tracer.color", "acc.input")
    g.mark_output("acc.output")
    m = make_renderer(SCENES / "CornellBox.pyscene", 32, 32, g)
    before = render_frames(m, g, 1)[0]
    m.scene.getMaterial("Light").emissiveFactor = 10  # Was 5.
    after = render_frames(m, g, 1)[0]
    np.testing.assert_allclose(after, 2.0 * before, rtol=1e-5, atol=1e-6)
    m.scene.camera.position = falcor.float3(0, 0.3, 1.0)
    frame = render_frames(m, g, 1)[0]
    np.testing.assert_array_equal(np.asarray(g.getOutput("acc.output"))[..., :3], frame.astype(np.float32))


@pytest.mark.parametrize("tracer", ["PathTracer", "MinimalPathTracer"])
def test_a_scene_without_lights_renders_black(tmp_path, tracer):
    """Falcor's behaviour: nothing emits, so the image is black (and nothing fails)."""
    scene = tmp_path / "dark.pyscene"
    scene.write_text("sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform()),\n"
                     "                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial('Floor')))\n"
                     "camera = Camera('Main')\ncamera.position = float3(0, 1, 1)\ncamera.target = float3(0, 0, 0)\n"
                     "camera.up = float3(0, 1, 0)\nsceneBuilder.addCamera(camera)\n")
    g = vbuffer_graph(tracer, {})
    m = make_renderer(scene, 16, 16, g)
    frames = render_frames(m, g, 2)
    assert np.isfinite(frames).all() and not frames.any()


CAUSTIC_SCENE = """\
# A floor lit only through a mirror: the light faces up (a black shield hides its back from the
# floor), the mirror above sends its light down. Every path from the camera that reaches the light
# off the floor is diffuse-then-specular: a caustic.
quad = TriangleMesh.createQuad()
def place(name, material, **transform):
    sceneBuilder.addMeshInstance(sceneBuilder.addNode(name, Transform(**transform)), sceneBuilder.addTriangleMesh(quad, material))
floor = PBRTDiffuseMaterial('Floor')
floor.baseColor = float4(0.8, 0.8, 0.8, 1)
black = PBRTDiffuseMaterial('Shield')
black.baseColor = float4(0, 0, 0, 1)
mirror = StandardMaterial('Mirror')
mirror.baseColor = float4(1, 1, 1, 1)
mirror.metallic = 1.0
mirror.roughness = 0.0
light = StandardMaterial('Light')
light.baseColor = float4(0, 0, 0, 1)
light.emissiveColor = float3(1, 1, 1)
light.emissiveFactor = 20
place('Floor', floor, scaling=float3(4, 1, 4))
place('Light', light, scaling=float3(0.5, 1, 0.5), translation=float3(0, 0.5, 0))
place('Shield', black, scaling=float3(0.5, 1, 0.5), translation=float3(0, 0.49, 0), rotationEulerDeg=float3(180, 0, 0))
place('Mirror', mirror, scaling=float3(4, 1, 4), translation=float3(0, 2, 0), rotationEulerDeg=float3(180, 0, 0))
camera = Camera('Main')
camera.position = float3(0, 1.2, 2.5)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def test_disable_caustics_removes_exactly_the_diffuse_then_specular_light(tmp_path):
    scene = tmp_path / "caustic.pyscene"
    scene.write_text(CAUSTIC_SCENE)
    images = {}
    for disable in (False, True):
        g = vbuffer_graph("PathTracer", {"disableCaustics": disable, "samplesPerPixel": 4})
        m = make_renderer(scene, 48, 32, g)
        images[disable] = render_frames(m, g, 4).mean(axis=0)
    floor = np.s_[-8:]  # The bottom rows see only the floor.
    assert images[False][floor].mean() > 0.01  # The caustic, found by BSDF sampling off the floor.
    assert not images[True][floor].any()
    # Same random streams: without caustics each path keeps its first contributions and drops the
    # rest (every term is non-negative), so no pixel gains; the light seen directly is unchanged.
    assert (images[True] <= images[False]).all()
    assert ((images[True] == images[False]) & (images[True] > 0)).any()
