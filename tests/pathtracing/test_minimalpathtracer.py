"""MinimalPathTracer: per-pixel conformance with native Falcor 8 (oracle-pt, oracle-imgtest-mpt),
its properties, that BSDF and cosine sampling converge to the same image, and that its wavefront
gives the same bits on any thread count and with its hits shaded in SIMD lanes at every width."""
import numpy as np
import pytest

import falcor
import gbuffer_oracle as go
from helpers import HOST_ISAS, isa_fixture
from pt_helpers import SCENES, agree, make_renderer, mean_and_stderr, render_frames, vbuffer_graph
from test_wavefront import CONDUCTOR_BOX

isa = pytest.fixture(params=HOST_ISAS)(isa_fixture)


def oracle_point_light_scene(tmp_path):
    scene = tmp_path / "oracle_pt.pyscene"
    scene.write_text(
        f"sceneBuilder.importScene({str(go.oracle_dir() / 'quad.gltf')!r})\n"
        "light = PointLight('oracleLight')\n"
        "light.position = float3(0.5, 0.5, 1.5)\n"
        "light.intensity = float3(3, 3, 3)\n"
        "sceneBuilder.addLight(light)\n"
    )
    return scene


def test_oracle_pt_matches_per_pixel(tmp_path):
    g = vbuffer_graph("MinimalPathTracer", {"maxBounces": 3}, {"useAlphaTest": False, "samplePattern": "Center"})
    m = make_renderer(oracle_point_light_scene(tmp_path), 256, 256, g)
    m.scene.camera.position = falcor.float3(0.5, 0.5, 2.0)
    m.scene.camera.target = falcor.float3(0.5, 0.5, -1.0)
    m.scene.camera.up = falcor.float3(0, 1, 0)
    ours = render_frames(m, g, 1)[0]
    oracle = go.read_image(go.oracle_dir() / "oracle-pt.MinimalPathTracer.color.0.exr")
    # The oracle is stored in half precision: agree within a few half-float steps.
    assert np.all(np.abs(ours - oracle) <= 2.0**-9 * np.abs(oracle) + 1e-4)


def test_oracle_imgtest_mpt_matches_per_pixel():
    """Falcor's MinimalPathTracer image test (VBufferRT stratified -> MinimalPathTracer ->
    AccumulatePass -> ToneMapper, the tone mapper linear, unclamped, float): 1 frame. Reproducing
    the uniform sample generator, the V-buffer jitter and the standard BSDF's sampling order
    gives Falcor's exact paths, so the frame agrees per pixel, not only in the mean."""
    go.oracle_dir()
    g = vbuffer_graph("MinimalPathTracer", {"maxBounces": 3}, outputs=())
    g.create_pass("AccumulatePass", "AccumulatePass", {"enabled": True, "precisionMode": "Single"})
    g.create_pass("ToneMapper", "ToneMapper", {"autoExposure": False, "exposureCompensation": 0.0, "operator": "Linear",
                                               "clamp": False, "outputFormat": "RGBA32Float"})
    g.add_edge("tracer.color", "AccumulatePass.input")
    g.add_edge("AccumulatePass.output", "ToneMapper.src")
    g.mark_output("ToneMapper.dst")
    m = make_renderer(go.CORNELL, 256, 256, g)
    ours = render_frames(m, g, 1, "ToneMapper.dst")[0]
    oracle = go.read_image(go.oracle_dir() / "oracle-imgtest-mpt.ToneMapper.dst.0.exr")
    off = np.abs(ours - oracle) > 2.0**-9 * np.abs(oracle) + 1e-3
    assert off.any(axis=-1).mean() <= 1e-3, off.any(axis=-1).mean()


def test_properties_round_trip_and_defaults():
    g = falcor.RenderGraph("g")
    p = g.create_pass("mpt", "MinimalPathTracer", {})
    assert p.properties == {"maxBounces": 3, "computeDirect": True, "useImportanceSampling": True}
    p = g.create_pass("mpt2", "MinimalPathTracer", {"maxBounces": 1, "computeDirect": False, "useImportanceSampling": False})
    assert p.properties == {"maxBounces": 1, "computeDirect": False, "useImportanceSampling": False}


def test_no_scene_clears_output():
    g = vbuffer_graph("MinimalPathTracer", {})
    m = falcor.Renderer()
    m.addGraph(g)
    m.resizeFrameBuffer(8, 8)
    m.renderFrame()
    assert not np.asarray(g.getOutput("tracer.color")).any()


def test_compute_direct_off_removes_directly_seen_light():
    g = vbuffer_graph("MinimalPathTracer", {"computeDirect": False}, {"samplePattern": "Center"})
    m = make_renderer(SCENES / "CornellBox.pyscene", 64, 64, g)
    frame = render_frames(m, g, 1)[0]
    # The light's pixels (top center) see emission only directly: with it off they are dark.
    assert frame.max() < 85.0
    assert frame.sum() > 0.0


@pytest.mark.parametrize("bounces", [0, 2])
def test_importance_and_cosine_sampling_converge_to_the_same_image(bounces):
    """Both samplers are unbiased estimators of the same integral: 4x4-pixel block means of
    many frames agree within their combined standard error."""
    results = []
    for importance in (True, False):
        g = vbuffer_graph("MinimalPathTracer", {"maxBounces": bounces, "useImportanceSampling": importance})
        m = make_renderer(SCENES / "CornellBox.pyscene", 32, 32, g)
        frames = render_frames(m, g, 256)
        blocks = frames.reshape(256, 8, 4, 8, 4, 3).mean(axis=(2, 4))
        results.append(mean_and_stderr(blocks))
    (a, se_a), (b, se_b) = results
    ok = agree(a, se_a, b, se_b, sigmas=4.5)
    assert ok.mean() >= 0.995, (ok.mean(), np.abs(a - b).max())


COATED_FLOOR_SCENE = """
varnish = PBRTCoatedDiffuseMaterial('Varnish')
varnish.baseColor = float4(0.7, 0.3, 0.1, 1)
varnish.roughness = float2(0.2, 0.2)
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform(scaling=float3(4, 1, 4))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), varnish))
block = StandardMaterial('Block')
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Block', Transform(translation=float3(0, 0.4, 0))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createCube(float3(0.6)), block))
light = PointLight('Light')
light.position = float3(0.3, 1.6, 0.2)
light.intensity = float3(3, 3, 3)
sceneBuilder.addLight(light)
camera = Camera('Main')
camera.position = float3(0, 2.5, 2.5)
camera.target = float3(0, 0, 0)
sceneBuilder.addCamera(camera)
"""


def test_same_bits_on_one_and_two_threads(tmp_path):
    """96x70 pixels are two tiles of rows: one thread runs both, two threads one each. The floor
    is layered (coated), whose BSDF evaluation draws random numbers, and the block shadows it: such
    vertices scatter only once their shadow ray is traced, as Falcor draws only for unoccluded
    light samples."""
    scene = tmp_path / "coated_floor.pyscene"
    scene.write_text(COATED_FLOOR_SCENE)
    threads = falcor.get_thread_count()
    images = []
    try:
        for n in (1, 2):
            falcor.set_thread_count(n)
            g = vbuffer_graph("MinimalPathTracer", {"maxBounces": 3})
            images.append(render_frames(make_renderer(scene, 96, 70, g), g, 1))
    finally:
        falcor.set_thread_count(threads)
    assert images[0].any() and np.isfinite(images[0]).all()
    assert images[0].tobytes() == images[1].tobytes()


# The conductor box (PBRT diffuse and conductors, a standard emissive light) lit by analytic lights
# too: a point light and a sun of finite size, whose samples draw random numbers.
LIT_CONDUCTOR_BOX = CONDUCTOR_BOX + """
bulb = PointLight('Bulb')
bulb.position = float3(0.1, 0.45, 0.2)
bulb.intensity = float3(0.2, 0.2, 0.2)
sceneBuilder.addLight(bulb)
sun = DistantLight('Sun')
sun.direction = float3(-0.2, -1, -0.4)
sun.angle = 0.1
sceneBuilder.addLight(sun)
"""


def render_with_lanes(scene, props: dict, simd: bool):
    g = vbuffer_graph("MinimalPathTracer", props)
    m = make_renderer(scene, 64, 48, g)
    g.get_pass("tracer").setSimdShading(simd)
    return render_frames(m, g, 2), g.get_pass("tracer").simdShadingStats()


def test_hits_shaded_in_lanes_give_the_one_path_bits(tmp_path, isa):
    """PBRT diffuse, conductor and standard hits are shaded W paths at a time by the template that
    shades one path (MinimalShadeLanes.lanes.cpp); the coated floor, whose BSDF draws when
    evaluated, stays one path at a time between lane-shaded hits. Every width gives the bits of
    setSimdShading(False), with and without computeDirect and importance sampling."""
    (tmp_path / "box.pyscene").write_text(LIT_CONDUCTOR_BOX % str(SCENES / "CornellBoxGeometry.py"))
    (tmp_path / "coated.pyscene").write_text(COATED_FLOOR_SCENE)
    for scene, props, layered in [("box", {"maxBounces": 4}, False),
                                  ("coated", {"maxBounces": 3, "computeDirect": False, "useImportanceSampling": False}, True)]:
        scalar, stats = render_with_lanes(tmp_path / f"{scene}.pyscene", props, False)
        assert stats["laneShadedHits"] == 0 and stats["scalarShadedHits"] > 0
        image, stats = render_with_lanes(tmp_path / f"{scene}.pyscene", props, True)
        assert stats["laneShadedHits"] > 0 and (stats["scalarShadedHits"] > 0) == layered, stats
        assert scalar.any() and np.isfinite(scalar).all()
        assert np.array_equal(scalar.view(np.uint32), image.view(np.uint32)), f"{scene} {isa}: {np.count_nonzero(scalar != image)} values differ"
