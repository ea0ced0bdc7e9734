"""GBufferRT against native Falcor 8 frames (shared/oracle/falcor8): the image-test graph
'GBufferRT' over the Cornell box (every captured channel), the motion-vector test with a
stratified pattern, and the glTF quad's texC/posW.

Float outputs are compared through our own frame capture (half-float EXR, as Falcor's). Integer
outputs are compared through Falcor's capture conversion applied to our textures (see
gbuffer_oracle.py): our FrameCapture writes integer channels numerically (huge words overflow
half floats), where Falcor divides them by 2^32-1 first.

Allowed differences: geometry may flip on a thin silhouette band (at most 0.2% of the pixels off
by more than 1e-2) and the mean absolute error must stay at half-float rounding level.
"""
import numpy as np
import pytest

import gbuffer_oracle as go

BASE = "oracle-imgtest-gbufferrt2"
WITH_ALPHA = {"posW", "tangentW", "texGrads", "vbuffer", "diffuseOpacity", "specRough"}
FLOAT_OUTPUTS = ["posW", "normW", "tangentW", "faceNormalW", "texC", "texGrads", "mvec", "depth", "mvecW", "guideNormalW",
                 "diffuseOpacity", "specRough", "emissive", "viewW", "disocclusion", "mask"]
ALL_OUTPUTS = FLOAT_OUTPUTS[:7] + ["mtlData", "vbuffer", "depth", "linearZ", "mvecW", "normWRoughnessMaterialID"] + FLOAT_OUTPUTS[9:]
MAX_BAD_FRACTION = 0.002
# Our FrameCapture converts the integer outputs numerically; their huge words overflow half floats.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast")
MAX_MAE = 1e-4


@pytest.fixture(scope="module")
def gbufferrt2(tmp_path_factory):
    go.oracle_dir()
    tmp = tmp_path_factory.mktemp("gbufferrt2")
    marks = [(f, a) for f in ALL_OUTPUTS for a in ([False, True] if f in WITH_ALPHA else [False])]
    m, g = go.render_case(tmp, BASE, "GBufferRT", {}, marks)
    return tmp, g


def texels(graph, field):
    return np.asarray(graph.get_output(f"GBufferRT.{field}")).view(np.uint32).reshape(256, 256, -1)


@pytest.mark.parametrize("field, alpha", [(f, False) for f in FLOAT_OUTPUTS] + [(f, True) for f in FLOAT_OUTPUTS if f in WITH_ALPHA])
def test_float_outputs(gbufferrt2, field, alpha):
    tmp, _ = gbufferrt2
    name = go.capture_name(BASE, "GBufferRT", field, alpha)
    frac, mae = go.difference(go.read_image(tmp / name), go.read_image(go.oracle_dir() / name))
    assert frac <= MAX_BAD_FRACTION and mae <= MAX_MAE, (name, frac, mae)


@pytest.mark.parametrize("field, alpha", [("mtlData", False), ("vbuffer", False), ("vbuffer", True)])
def test_packed_outputs(gbufferrt2, field, alpha):
    float_words = (2, 3) if field == "vbuffer" else ()
    go.check_packed_capture(texels(gbufferrt2[1], field), go.oracle_dir() / go.capture_name(BASE, "GBufferRT", field, alpha), alpha,
                            float_words)


def test_linear_z(gbufferrt2):
    """linearZ = (clip w, max |Δw| over a one-pixel step on the surface plane), both channels on
    every pixel. The slope along a camera axis parallel to a wall is NaN, which the max ignores;
    that needs exactly axis-aligned face normals, which our scene build (as Falcor's) gets by
    pre-transforming static meshes to world space in single precision."""
    tmp, _ = gbufferrt2
    name = go.capture_name(BASE, "GBufferRT", "linearZ", False)
    ours, oracle = go.read_image(tmp / name), go.read_image(go.oracle_dir() / name)
    frac, mae = go.difference(ours[..., :1], oracle[..., :1])
    assert frac == 0.0 and mae <= MAX_MAE
    frac, mae = go.difference(ours[..., 1:2], oracle[..., 1:2])
    assert frac <= MAX_BAD_FRACTION and mae <= MAX_MAE, (frac, mae)


def test_norm_w_roughness_material_id(gbufferrt2):
    """RGB10A2 (octahedral guide normal, roughness, material ID 0); Falcor's capture writes the
    raw texel bytes to PNG, which hold the R and G fields and B's low 4 bits. The GPU rounds exact
    ties (0.5 · 1023) down, our encoder up: allow one step."""
    _, g = gbufferrt2
    ours = go.unpack_rgb10(go.falcor_rgb10a2_capture(texels(g, "normWRoughnessMaterialID")[..., 0]))
    oracle = go.unpack_rgb10(go.read_image(go.oracle_dir() / f"{BASE}.GBufferRT.normWRoughnessMaterialID.0.png"))
    d = np.abs(ours - oracle)
    d[..., 2] = np.minimum(d[..., 2], 16 - d[..., 2])  # B's low bits wrap
    assert (d.max(-1) > 1).mean() <= MAX_BAD_FRACTION


def test_motion_vectors_with_stratified_jitter(tmp_path):
    """oracle-imgtest-mvecrt: the oracle frame has no camera history (its previous camera is the
    current one, unlike the other cases whose previous frame is the scene's 16:9 initial camera),
    so one warm-up frame at 256x256 reproduces it. Motion must be zero up to rounding despite the
    stratified jitter: the jitter is removed."""
    go.oracle_dir()
    import falcor
    m = falcor.Renderer()
    g = falcor.RenderGraph("MVecRT")
    g.create_pass("GBufferRT", "GBufferRT", {"samplePattern": "Stratified", "sampleCount": 16})
    g.mark_output("GBufferRT.mvec")
    m.addGraph(g)
    m.loadScene(str(go.CORNELL))
    m.resizeFrameBuffer(256, 256)
    m.clock.time = 0
    m.clock.pause()
    m.renderFrame()
    m.renderFrame()
    assert m.scene.native.camera_data["jitterX"] != 0.0
    m.frameCapture.outputDir = str(tmp_path)
    m.frameCapture.baseFilename = "oracle-imgtest-mvecrt"
    m.frameCapture.capture()
    m.frameCapture.flush()
    name = "oracle-imgtest-mvecrt.GBufferRT.mvec.0.exr"
    ours, oracle = go.read_image(tmp_path / name), go.read_image(go.oracle_dir() / name)
    assert np.abs(ours - oracle).max() <= 5e-7


def test_quad_texc_posw(tmp_path):
    go.oracle_dir()
    go.render_case(tmp_path, "oracle", "GBufferRT", {}, [("texC", False), ("posW", False)], scene="quad")
    for field in ("texC", "posW"):
        name = go.capture_name("oracle", "GBufferRT", field, False)
        frac, mae = go.difference(go.read_image(tmp_path / name), go.read_image(go.oracle_dir() / name))
        assert frac <= MAX_BAD_FRACTION and mae <= MAX_MAE, (field, frac, mae)
