"""Falcor's graphs that use GBufferRaster or VBufferRaster.

Through mogwai, as Falcor's image-test runner runs them (tests/image_tests/test_<X>.py with
graphs/<X>.py, on the stand-in scenes of test_run_image_tests.py): GBufferRaster,
GBufferRasterAlpha, VBufferRaster, VBufferRasterAlpha, HalfRes, with value checks on the captures.
In process, at 32x32 on our scenes: MVecRaster (Falcor's test scene, the skinned CesiumMan, is not
available; the animated instancing scene stands in), and the graphs whose other passes belong to
other plugins (TAA, SVGF, DLSS), each checked for what its raster half feeds them.
"""
import shutil
from pathlib import Path

import numpy as np
import pytest

import falcor
from image_tests.test_run_image_tests import FRAME, SCENES, image_test, media  # noqa: F401  (media is a fixture)

GBUFFER_OUTPUTS = ["posW", "normW", "tangentW", "faceNormalW", "texC", "texGrads", "mvec", "mtlData", "vbuffer", "depth", "guideNormalW",
                   "diffuseOpacity", "specRough", "emissive", "viewW", "pnFwidth", "linearZ", "mask"]
WITH_ALPHA = {"posW", "tangentW", "texGrads", "vbuffer", "diffuseOpacity", "specRough"}
CULL_RUNS = ["default", "cullback", "cullfront", "cullnone", "alphaoff"]


@pytest.fixture(scope="module")
def raster_media(media):
    """The shared stand-ins plus the alpha-test scene under the path Falcor's raster tests use."""
    path = media.root / "test_scenes/alpha_test/alpha_test.pyscene"
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SCENES / "TexturedQuads.pyscene", path)
    shutil.copytree(SCENES / "Textures", path.parent / "Textures", dirs_exist_ok=True)
    return media


def captures(names, pass_name, outputs, frames, alpha=frozenset()):
    """EXR capture names (every output here is a float or integer format: Falcor captures them as EXR)."""
    result = set()
    for name in names:
        for frame in frames:
            for o in outputs:
                result.add(f"{name}.{pass_name}.{o}.{frame}.exr")
                if o in alpha:
                    result.add(f"{name}.{pass_name}.{o}.{frame}.A.exr")
    return result


def coverage(cap, name):
    """Pixels with a surface: posW's alpha is 1 there, 0 elsewhere."""
    alpha = cap[name][..., 0]
    assert set(np.unique(alpha)) <= {0.0, 1.0}, name
    return alpha == 1


# ---- through mogwai ------------------------------------------------------------------------------

def test_GBufferRaster(raster_media, tmp_path):
    expected = captures(["default", "non-indexed"], "GBufferRaster", GBUFFER_OUTPUTS, [1, 16, 64], WITH_ALPHA)
    with image_test("GBufferRaster", expected, raster_media, tmp_path) as cap:
        def image(o, frame=1, name="default"):
            return cap[f"{name}.GBufferRaster.{o}.{frame}.exr"]
        hit = image("mask")[..., 0] == 1
        assert 0.3 < hit.mean() < 1.0
        np.testing.assert_array_equal(coverage(cap, "default.GBufferRaster.posW.1.A.exr"), hit)
        depth = image("depth")[..., 0]
        assert (depth[~hit] == 1).all() and (depth[hit] < 1).all() and (depth[hit] > 0).all()
        normals = np.linalg.norm(image("normW")[hit].astype(np.float64), axis=-1)
        np.testing.assert_allclose(normals, 1, atol=2e-3)  # half-float captures
        assert not image("viewW")[~hit].any()
        assert np.abs(image("mvec")).max() < 1e-6  # static scene and camera: rounding only
        for o in GBUFFER_OUTPUTS:  # no jitter, nothing moves: every frame and both vertex layouts agree
            for frame, name in ((16, "default"), (64, "default"), (1, "non-indexed"), (64, "non-indexed")):
                # (motion vectors: within rounding of the previous frame's matrices)
                np.testing.assert_allclose(image(o, frame, name), image(o), atol=1e-6 if o == "mvec" else 0, err_msg=f"{name} {o} {frame}")


def test_GBufferRasterAlpha(raster_media, tmp_path):
    expected = captures(CULL_RUNS, "GBufferRaster", ["posW"], [1], {"posW"})
    with image_test("GBufferRasterAlpha", expected, raster_media, tmp_path) as cap:
        hit = {run: coverage(cap, f"{run}.GBufferRaster.posW.1.A.exr") for run in CULL_RUNS}
        check_cull_and_alpha_runs(hit)


def check_cull_and_alpha_runs(hit):
    """Default culls back faces; None covers both sides; the alpha test cuts holes that alphaoff fills."""
    np.testing.assert_array_equal(hit["default"], hit["cullback"])
    assert (hit["cullnone"] >= hit["cullback"]).all() and (hit["cullnone"] >= hit["cullfront"]).all()
    assert hit["cullback"].sum() > hit["cullfront"].sum()  # the camera sees mostly front faces
    assert (hit["alphaoff"] >= hit["cullnone"]).all() and hit["alphaoff"].sum() > hit["cullnone"].sum() + 100


def test_VBufferRaster(raster_media, tmp_path):
    expected = captures(["default"], "VBufferRaster", ["vbuffer", "depth", "mvec", "mask"], [1, 16, 64], {"vbuffer"})
    with image_test("VBufferRaster", expected, raster_media, tmp_path) as cap:
        hit = cap["default.VBufferRaster.mask.1.exr"][..., 0] == 1
        assert 0.3 < hit.mean() < 1.0
        depth = cap["default.VBufferRaster.depth.1.exr"][..., 0]
        assert (depth[~hit] == 1).all() and (depth[hit] < 1).all()
        # A hit's header word is never 0; a miss packs to zeros.
        assert (cap["default.VBufferRaster.vbuffer.1.exr"][..., 0][hit] != 0).all()
        assert not cap["default.VBufferRaster.vbuffer.1.exr"][~hit].any()
        for o in ("vbuffer", "depth", "mask"):
            np.testing.assert_array_equal(cap[f"default.VBufferRaster.{o}.64.exr"], cap[f"default.VBufferRaster.{o}.1.exr"])


def test_VBufferRasterAlpha(raster_media, tmp_path):
    expected = captures(CULL_RUNS, "VBufferRaster", ["vbuffer"], [1], {"vbuffer"})
    with image_test("VBufferRasterAlpha", expected, raster_media, tmp_path) as cap:
        # A hit's packed header is non-zero in its first word.
        check_cull_and_alpha_runs({run: cap[f"{run}.VBufferRaster.vbuffer.1.exr"][..., 0] != 0 for run in CULL_RUNS})


def test_HalfRes(raster_media, tmp_path):
    frames = [1, 16, 64]
    expected = ({f"default.{o}.{f}.exr" for o in ("GBuffer.normW", "AccumulatePass.output", "SimplePostFX.dst") for f in frames}
                | {f"default.ToneMapper.dst.{f}.png" for f in frames})
    with image_test("HalfRes", expected, raster_media, tmp_path) as cap:
        half = (FRAME[1] // 2, FRAME[0] // 2)
        for f in frames:
            normals = cap[f"default.GBuffer.normW.{f}.exr"]
            assert normals.shape[:2] == half
        # Accumulating the stratified-jittered normals averages them over each pixel: edges soften,
        # so frame 64's accumulation differs from frame 1's raw normals only at edges.
        first, accumulated = cap["default.GBuffer.normW.1.exr"], cap["default.AccumulatePass.output.64.exr"]
        np.testing.assert_array_equal(cap["default.AccumulatePass.output.1.exr"], first)
        changed = np.abs(accumulated - first).max(-1) > 1e-2
        assert 0 < changed.mean() < 0.2
        assert np.isfinite(cap["default.SimplePostFX.dst.64.exr"]).all()


# ---- in process ----------------------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def run_graph(build, scene, frames=2, size=(32, 32), between=None):
    m = falcor.Renderer(*size)
    g = build()
    m.addGraph(g)
    m.loadScene(str(scene))
    m.clock.pause()
    for frame in range(frames):
        if frame and between:
            between(m, frame)
        m.renderFrame()
    return g


def mvec_raster_graph():
    g = falcor.RenderGraph("MVecRaster")
    g.create_pass("GBufferRaster", "GBufferRaster", {"samplePattern": "Stratified", "sampleCount": 16})
    g.mark_output("GBufferRaster.mvec")
    g.mark_output("GBufferRaster.vbuffer")
    return g


def test_MVecRaster_graph_on_moving_instances():
    def spin(m, frame):
        m.clock.time = 0.5 * frame

    g = run_graph(mvec_raster_graph, ROOT / "Scenes" / "Instancing.pyscene", between=spin)
    mvec = g.get_output("GBufferRaster.mvec").to_numpy()
    assert np.abs(mvec).max() > 0.01 and np.isfinite(mvec).all()


def taa_graph():
    g = falcor.RenderGraph("TAA")
    g.create_pass("GBufferRaster", "GBufferRaster", {"samplePattern": "Halton"})
    g.create_pass("TAA", "TAA", {})
    g.add_edge("GBufferRaster.diffuseOpacity", "TAA.colorIn")
    g.add_edge("GBufferRaster.mvec", "TAA.motionVecs")
    g.mark_output("TAA.colorOut")
    g.mark_output("GBufferRaster.diffuseOpacity")
    return g


def svgf_graph():
    g = falcor.RenderGraph("SVGF")
    g.create_pass("SVGFPass", "SVGFPass", {"Enabled": True, "Iterations": 4, "FeedbackTap": 1, "VarianceEpsilon": 1e-4, "PhiColor": 10.0,
                                           "PhiNormal": 128.0, "Alpha": 0.05, "MomentsAlpha": 0.2})
    g.create_pass("GBufferRaster", "GBufferRaster", {"cull": "Back"})
    g.create_pass("PathTracer", "PathTracer", {})
    for src, dst in [("PathTracer.color", "Color"), ("PathTracer.albedo", "Albedo"), ("GBufferRaster.emissive", "Emission"),
                     ("GBufferRaster.posW", "WorldPosition"), ("GBufferRaster.guideNormalW", "WorldNormal"),
                     ("GBufferRaster.pnFwidth", "PositionNormalFwidth"), ("GBufferRaster.linearZ", "LinearZ"),
                     ("GBufferRaster.mvec", "MotionVec")]:
        g.add_edge(src, f"SVGFPass.{dst}")
    g.add_edge("GBufferRaster.vbuffer", "PathTracer.vbuffer")
    g.mark_output("SVGFPass.Filtered image")
    g.mark_output("PathTracer.color")
    return g


def dlss_graph():
    g = falcor.RenderGraph("DLSS")
    g.create_pass("GBufferRaster", "GBufferRaster", {"samplePattern": "Halton"})
    g.create_pass("DLSSPass", "DLSSPass", {"motionVectorScale": "Relative"})
    g.add_edge("GBufferRaster.mvec", "DLSSPass.mvec")
    g.add_edge("GBufferRaster.depth", "DLSSPass.depth")
    g.add_edge("GBufferRaster.diffuseOpacity", "DLSSPass.color")
    for o in ("GBufferRaster.mvec", "GBufferRaster.depth", "GBufferRaster.diffuseOpacity", "DLSSPass.output"):
        g.mark_output(o)
    return g


CORNELL = ROOT / "Scenes" / "CornellBox.pyscene"


def test_TAA_graph_resolves_the_raster_albedo():
    g = run_graph(taa_graph, CORNELL, frames=4)
    # colorOut has the graph's default format, BGRA8UnormSrgb.
    srgb = g.get_output("TAA.colorOut").to_numpy().reshape(32, 32, 4)[..., [2, 1, 0]] / 255.0
    out = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    albedo = g.get_output("GBufferRaster.diffuseOpacity").to_numpy()[..., :3]
    # Away from edges the static albedo is the same under every jitter: TAA keeps it (8-bit steps).
    assert albedo.mean() > 0.1 and np.median(np.abs(out - albedo)) < 0.02


def test_SVGF_graph_filters_the_path_tracer_on_raster_guides():
    g = run_graph(svgf_graph, CORNELL, frames=2)
    filtered = g.get_output("SVGFPass.Filtered image").to_numpy().astype(np.float64)
    noisy = g.get_output("PathTracer.color").to_numpy().astype(np.float64)
    assert np.isfinite(filtered).all() and filtered[..., :3].mean() > 0
    assert roughness(filtered) < 0.85 * roughness(noisy)  # (SVGF's error reduction is measured in test_svgf.py)


def roughness(image):
    """Mean absolute Laplacian of the luminance: pixel noise."""
    lum = image[..., :3].mean(axis=-1)
    return float(np.abs(4 * lum[1:-1, 1:-1] - lum[:-2, 1:-1] - lum[2:, 1:-1] - lum[1:-1, :-2] - lum[1:-1, 2:]).mean())


def test_DLSS_graph_upscales_from_raster_depth_and_motion():
    g = run_graph(dlss_graph, CORNELL, frames=2)
    out = g.get_output("DLSSPass.output").to_numpy()
    assert out.shape[:2] == (32, 32) and np.isfinite(out).all() and out[..., :3].mean() > 0
