"""GBufferRaster and VBufferRaster (GBuffer library, CPU rasterizer in Rasterizer.h): output by
output against GBufferRT where both see the same (instance, primitive), coverage differences only
along edges, cull modes, alpha test, depth against the projection of posW, screen-space
derivatives against quad differences of the outputs, motion vectors after camera and object
motion, thread-count determinism, options and errors. Falcor's raster graphs: test_gbuffer_raster_graphs.py."""
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import falcor
from shared_files import shared_path

ROOT = Path(__file__).resolve().parents[2]
CORNELL = ROOT / "Scenes" / "CornellBox.pyscene"
INSTANCING = ROOT / "Scenes" / "Instancing.pyscene"

RASTER_DEFAULTS = {"outputSize": "Default", "samplePattern": "Center", "sampleCount": 16, "useAlphaTest": True,
                   "adjustShadingNormals": True, "forceCullMode": False, "cull": "Back"}
# Outputs both passes have, compared value by value where they see the same triangle.
SHARED = ["posW", "normW", "tangentW", "faceNormalW", "texC", "mvec", "mtlData", "guideNormalW", "diffuseOpacity",
          "specRough", "emissive", "viewW", "mask"]
FLOAT_TOL = 2e-5  # both interpolate the same vertices with barycentrics that differ by rounding


def mixed_pyscene(tmp_path) -> str:
    """Instanced cubes (one mirrored by a negative scale), a sphere, an alpha-masked quad whose left
    half is cut out, and a floor, seen at an angle."""
    texels = np.full((8, 8, 4), 200, np.uint8)
    texels[:, :4, 3] = 0
    Image.fromarray(texels, "RGBA").save(tmp_path / "cutout.png")
    text = f"""
def material(name, color):
    m = StandardMaterial(name)
    m.baseColor = float4(color[0], color[1], color[2], 1)
    m.roughness = 0.5
    return m

cube = sceneBuilder.addTriangleMesh(TriangleMesh.createCube(float3(0.5)), material('Cube', (0.8, 0.2, 0.1)))
for i, (x, sx) in enumerate([(-1.2, 1), (0.0, -1), (1.2, 1)]):
    node = sceneBuilder.addNode(f'Cube{{i}}', Transform(translation=float3(x, 0.25, 0), scaling=float3(sx, 1, 1),
                                                       rotationEulerDeg=float3(0, 20 * i + 10, 0)))
    sceneBuilder.addMeshInstance(node, cube)
sphere = sceneBuilder.addTriangleMesh(TriangleMesh.createSphere(0.35, 12, 24), material('Sphere', (0.2, 0.7, 0.3)))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Sphere', Transform(translation=float3(0.6, 0.35, 0.9))), sphere)
leaves = material('Leaves', (0.3, 0.6, 0.2))
leaves.loadTexture(MaterialTextureSlot.BaseColor, r'{tmp_path / "cutout.png"}')
quad = sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), leaves)
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Cutout', Transform(translation=float3(-0.5, 0.6, 1.0), scaling=float3(1.2, 1, 1.2),
                                                                      rotationEulerDeg=float3(90, 0, 0))), quad)
floor = sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), material('Floor', (0.5, 0.5, 0.5)))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Floor', Transform(scaling=float3(5, 1, 5))), floor)
camera = Camera('Main')
camera.position = float3(0.4, 1.6, 3.2)
camera.target = float3(0, 0.3, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""
    path = tmp_path / "mixed.pyscene"
    path.write_text(text)
    return str(path)


def quad_pyscene(tmp_path, camera_height) -> str:
    """A quad at y = 0 facing +Y, the camera above (height > 0) or below it."""
    text = f"""
node = sceneBuilder.addNode('Quad', Transform(scaling=float3(2, 1, 2)))
sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial('Quad')))
camera = Camera()
camera.position = float3(0, {camera_height}, 0)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 0, -1)
sceneBuilder.addCamera(camera)
"""
    path = tmp_path / f"quad_{camera_height}.pyscene"
    path.write_text(text)
    return str(path)


def render_passes(scene, passes, size=(48, 40), frames=1, between=None):
    """Renders graph passes {name: (type, props, outputs)} with mogwai's per-frame flow; `between(m,
    frame)` runs before each frame after the first. Returns (renderer, {"name.output": array})."""
    m = falcor.Renderer(*size)
    g = falcor.RenderGraph("G")
    for name, (pass_type, props, outputs) in passes.items():
        g.create_pass(name, pass_type, props)
        for o in outputs:
            g.mark_output(f"{name}.{o}")
    m.addGraph(g)
    if scene is not None:
        m.loadScene(str(scene))
    m.clock.pause()
    for frame in range(frames):
        if frame and between:
            between(m, frame)
        m.renderFrame()
    return m, {f"{n}.{o}": g.get_output(f"{n}.{o}").to_numpy() for n, (_, _, outs) in passes.items() for o in outs}


def ids(vbuffer):
    """(instance, primitive) words of packed hits; rows of zeros are misses."""
    return vbuffer[..., :2]


def edge_pixels(id_image):
    """Pixels with a 4-neighbour of another (instance, primitive) or at the border."""
    key = id_image[..., 0].astype(np.uint64) << np.uint64(32) | id_image[..., 1].astype(np.uint64)
    padded = np.pad(key, 1, mode="edge")
    edge = np.zeros(key.shape, bool)
    for dy, dx in ((0, 1), (2, 1), (1, 0), (1, 2)):
        edge |= padded[dy:dy + key.shape[0], dx:dx + key.shape[1]] != key
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    return edge


def compare_with_raytraced(scene, raster_props, rt_props, size=(48, 40)):
    """Raster vs GBufferRT output by output; returns the fraction of pixels whose triangle differs."""
    _, out = render_passes(scene, {"R": ("GBufferRaster", raster_props, SHARED + ["vbuffer", "depth"]),
                                   "T": ("GBufferRT", rt_props, SHARED + ["vbuffer", "depth"])}, size)
    rid, tid = ids(out["R.vbuffer"]), ids(out["T.vbuffer"])
    same = np.all(rid == tid, -1)
    hit = out["T.mask"] == 1
    assert hit.sum() > 100 and (same & hit).sum() > 0.8 * hit.sum()
    # Coverage may differ only along edges of the ray-traced triangles.
    differs = ~same
    assert not (differs & ~edge_pixels(tid)).any(), np.argwhere(differs & ~edge_pixels(tid))[:5]
    both = same & hit
    for o in SHARED:
        r, t = out[f"R.{o}"][both].astype(np.float64), out[f"T.{o}"][both].astype(np.float64)
        np.testing.assert_allclose(r, t, atol=FLOAT_TOL, err_msg=o)
    # Depth: the rasterizer's plane through snapped vertices vs z/w of the traced point.
    np.testing.assert_allclose(out["R.depth"][both], out["T.depth"][both], atol=1e-4)
    assert np.all(out["R.depth"][~(out["R.mask"] == 1)] == 1.0)
    return differs.mean()


# ---- agreement with the ray tracer ---------------------------------------------------------------

def test_cornell_box_matches_gbufferrt():
    # Raster culls back faces by default; the ray tracer culls them when forced.
    assert compare_with_raytraced(CORNELL, {}, {"forceCullMode": True, "cull": "Back"}) < 0.02


@pytest.mark.parametrize("cull", ["None", "Back", "Front"])
def test_instanced_mirrored_alpha_tested_scene_matches_gbufferrt(tmp_path, cull):
    scene = mixed_pyscene(tmp_path)
    props = {"forceCullMode": True, "cull": cull}
    assert compare_with_raytraced(scene, props, props) < 0.05


def test_alpha_test_off_matches_gbufferrt(tmp_path):
    props = {"useAlphaTest": False, "forceCullMode": True, "cull": "None"}
    # (odd sizes: the last row and column have helper pixels beyond the frame in their quads)
    assert compare_with_raytraced(mixed_pyscene(tmp_path), props, props, size=(47, 39)) < 0.05


def test_jittered_frames_match_gbufferrt():
    """Both passes follow the camera's jitter: the rasterizer samples through the jittered matrix."""
    props = {"samplePattern": "Halton", "sampleCount": 8}
    _, out = render_passes(CORNELL, {"R": ("GBufferRaster", props, ["posW", "vbuffer"]),
                                     "T": ("GBufferRT", {**props, "forceCullMode": True}, ["posW", "vbuffer"])}, frames=3)
    same = np.all(ids(out["R.vbuffer"]) == ids(out["T.vbuffer"]), -1) & (out["T.vbuffer"][..., 0] != 0)
    np.testing.assert_allclose(out["R.posW"][same], out["T.posW"][same], atol=FLOAT_TOL)


def test_vbuffer_raster_matches_vbuffer_rt(tmp_path):
    scene = mixed_pyscene(tmp_path)
    _, out = render_passes(scene, {"R": ("VBufferRaster", {}, ["vbuffer", "mvec", "mask", "depth"]),
                                   "T": ("VBufferRT", {"forceCullMode": True}, ["vbuffer", "mvec", "mask"])})
    rid, tid = ids(out["R.vbuffer"]), ids(out["T.vbuffer"])
    same = np.all(rid == tid, -1)
    assert not (~same & ~edge_pixels(tid)).any()
    hit = same & (out["T.mask"] == 1)
    bary_r = out["R.vbuffer"][..., 2:].view(np.float32)[hit]
    bary_t = out["T.vbuffer"][..., 2:].view(np.float32)[hit]
    np.testing.assert_allclose(bary_r, bary_t, atol=5e-5)
    np.testing.assert_array_equal(out["R.mask"], (out["R.vbuffer"][..., 0] != 0).astype(np.float32))


# ---- culling and alpha test -------------------------------------------------------------------

@pytest.mark.parametrize("pass_type", ["GBufferRaster", "VBufferRaster"])
@pytest.mark.parametrize("force, cull, above, below", [
    (False, "Front", True, False),  # raster culls back faces unless a mode is forced
    (True, "None", True, True),
    (True, "Back", True, False),
    (True, "Front", False, True),
])
def test_cull_modes(tmp_path, pass_type, force, cull, above, below):
    for height, expected in ((2.0, above), (-2.0, below)):
        _, out = render_passes(quad_pyscene(tmp_path, height), {"P": (pass_type, {"forceCullMode": force, "cull": cull}, ["mask"])},
                               size=(8, 8))
        assert bool(out["P.mask"][4, 4]) == expected, (height, cull)


@pytest.mark.parametrize("pass_type", ["GBufferRaster", "VBufferRaster"])
def test_alpha_test_cuts_out_the_masked_half(tmp_path, pass_type):
    scene = mixed_pyscene(tmp_path)
    hits = {}
    for props in ({}, {"useAlphaTest": False}, {"disableAlphaTest": True}):
        _, out = render_passes(scene, {"P": (pass_type, {"forceCullMode": True, "cull": "None", **props}, ["vbuffer"])})
        hit_ids = ids(out["P.vbuffer"]).astype(np.uint64)
        hits[str(props)] = hit_ids[..., 0] << np.uint64(32) | hit_ids[..., 1]
    cut, opaque = hits["{}"], hits["{'useAlphaTest': False}"]
    np.testing.assert_array_equal(opaque, hits["{'disableAlphaTest': True}"])
    changed = cut != opaque
    # Only the masked quad's two triangles lose pixels, about half of them (its left half is cut out).
    quad = np.unique(opaque[changed])
    assert quad.size == 2
    assert 0.3 < changed.sum() / np.isin(opaque, quad).sum() < 0.7


# ---- depth and screen-space derivatives -------------------------------------------------------

def test_depth_is_the_projection_of_posw():
    """D32Float depth = z/w of posW through the view-projection, within what snapping vertices to
    1/256 pixel moves the depth plane: |∇z| · 1/256 pixel, plus float rounding."""
    m, out = render_passes(CORNELL, {"P": ("GBufferRaster", {}, ["posW", "mask", "depth"])}, size=(64, 48))
    assert out["P.depth"].dtype == np.float32 and out["P.depth"].ndim == 2
    hit = out["P.mask"] == 1
    vp = np.array(m.scene.native.camera_data["viewProjMat"], np.float64)
    clip = out["P.posW"].astype(np.float64) @ vp.T
    expected = clip[..., 2] / clip[..., 3]
    gy, gx = np.gradient(out["P.depth"].astype(np.float64))
    tolerance = (np.abs(gx) + np.abs(gy)) / 256 + 1e-6
    interior = hit & ~edge_pixels(np.stack([hit.astype(np.uint32)] * 2, -1))
    assert (np.abs(out["P.depth"] - expected) <= tolerance)[interior].all()
    assert (out["P.depth"][~hit] == 1.0).all()


def quad_difference(image, axis):
    """A GPU's fine derivative where a 2x2 quad is covered by one triangle: odd minus even pixel."""
    a = np.take(image, np.arange(0, image.shape[axis] // 2 * 2, 2), axis)
    b = np.take(image, np.arange(1, image.shape[axis] // 2 * 2, 2), axis)
    return np.repeat(b - a, 2, axis)


def test_derivatives_are_quad_differences():
    """texGrads, linearZ (clip-space z and its largest quad difference) and pnFwidth (length of
    fwidth(posW)) equal differences across 2x2 quads that one triangle covers."""
    m, out = render_passes(CORNELL, {"P": ("GBufferRaster", {}, ["posW", "texC", "texGrads", "linearZ", "pnFwidth", "vbuffer",
                                                                 "guideNormalW"])}, size=(64, 48))
    tri = out["P.vbuffer"][..., :2].astype(np.int64)
    key = tri[..., 0] * (1 << 32) + tri[..., 1]
    quads = key.reshape(24, 2, 32, 2).transpose(0, 2, 1, 3).reshape(24, 32, 4)
    one_triangle = np.all(quads == quads[..., :1], -1) & (quads[..., 0] != 0)
    covered = np.repeat(np.repeat(one_triangle, 2, 0), 2, 1)
    assert covered.mean() > 0.3

    texc = out["P.texC"].astype(np.float64)
    grads = np.concatenate([quad_difference(texc, 1), quad_difference(texc, 0)], -1)
    np.testing.assert_allclose(out["P.texGrads"][covered], grads[covered], atol=2e-3, rtol=2e-3)  # RGBA16Float

    vp = np.array(m.scene.native.camera_data["viewProjMatNoJitter"], np.float64)
    clip_z = (out["P.posW"].astype(np.float64) @ vp.T)[..., 2]
    np.testing.assert_allclose(out["P.linearZ"][..., 0][covered], clip_z[covered], atol=1e-5)
    slope = np.maximum(np.abs(quad_difference(clip_z, 1)), np.abs(quad_difference(clip_z, 0)))
    np.testing.assert_allclose(out["P.linearZ"][..., 1][covered], slope[covered], atol=1e-5)

    pos = out["P.posW"][..., :3].astype(np.float64)
    fwidth = np.abs(quad_difference(pos, 1)) + np.abs(quad_difference(pos, 0))
    np.testing.assert_allclose(out["P.pnFwidth"][..., 0][covered], np.linalg.norm(fwidth, axis=-1)[covered], atol=1e-5)
    normal = out["P.guideNormalW"][..., :3].astype(np.float64)
    nwidth = np.abs(quad_difference(normal, 1)) + np.abs(quad_difference(normal, 0))
    np.testing.assert_allclose(out["P.pnFwidth"][..., 1][covered], np.linalg.norm(nwidth, axis=-1)[covered], atol=1e-5)


# ---- motion ------------------------------------------------------------------------------------

def test_motion_vectors_match_gbufferrt_after_camera_and_object_motion():
    """The turntable of the instancing scene spins and the camera moves: raster motion vectors come
    from the previous frame's transforms as the ray tracer's do."""
    def move(m, frame):
        m.clock.time = 0.25 * frame
        m.scene.camera.position = falcor.float3(0.3, 4.2, 5.1)

    _, out = render_passes(INSTANCING, {"R": ("GBufferRaster", {}, ["mvec", "vbuffer"]), "V": ("VBufferRaster", {}, ["mvec"]),
                                        "T": ("GBufferRT", {"forceCullMode": True}, ["mvec", "vbuffer"])}, frames=2, between=move)
    same = np.all(ids(out["R.vbuffer"]) == ids(out["T.vbuffer"]), -1) & (out["T.vbuffer"][..., 0] != 0)
    assert np.abs(out["T.mvec"][same]).max() > 0.01
    np.testing.assert_allclose(out["R.mvec"][same], out["T.mvec"][same], atol=1e-5)
    np.testing.assert_array_equal(out["V.mvec"], out["R.mvec"])
    assert not out["R.mvec"][out["R.vbuffer"][..., 0] == 0].any()  # nothing at misses, as Falcor's cleared targets


def test_motion_vectors_of_a_skinned_mesh_match_gbufferrt(tmp_path):
    """Skinned vertices move between frames (the glTF's elbow turns): both passes take the previous
    positions through Scene::getPrevPosW."""
    pyscene = tmp_path / "skin.pyscene"
    pyscene.write_text(f"sceneBuilder.importScene({str(shared_path('assets', 'gltf', 'simple_skin.gltf'))!r})\n"
                       "camera = Camera('Front')\ncamera.position = float3(0, 1, 4)\ncamera.target = float3(0, 1, 0)\n"
                       "camera.up = float3(0, 1, 0)\nsceneBuilder.addCamera(camera)\n")

    def bend(m, frame):
        m.clock.time = 0.5 * frame

    _, out = render_passes(pyscene, {"R": ("GBufferRaster", {"forceCullMode": True, "cull": "None"}, ["mvec", "vbuffer"]),
                                     "T": ("GBufferRT", {}, ["mvec", "vbuffer"])}, frames=2, between=bend)
    same = np.all(ids(out["R.vbuffer"]) == ids(out["T.vbuffer"]), -1) & (out["T.vbuffer"][..., 0] != 0)
    assert same.sum() > 100 and np.abs(out["T.mvec"][same]).max() > 0.01
    np.testing.assert_allclose(out["R.mvec"][same], out["T.mvec"][same], atol=1e-5)


# ---- determinism -------------------------------------------------------------------------------

def test_same_bits_on_any_thread_count(tmp_path):
    scene = mixed_pyscene(tmp_path)
    outputs = ["posW", "vbuffer", "depth", "pnFwidth", "linearZ", "mvec"]

    def frames(threads):
        falcor.set_thread_count(threads)
        try:
            _, out = render_passes(scene, {"P": ("GBufferRaster", {"samplePattern": "Stratified", "sampleCount": 4}, outputs)},
                                   size=(71, 41), frames=2)
            return [out[f"P.{o}"].tobytes() for o in outputs]
        finally:
            falcor.set_thread_count(2)

    assert frames(1) == frames(3)


# ---- options, channels, errors -----------------------------------------------------------------

@pytest.mark.parametrize("pass_type", ["GBufferRaster", "VBufferRaster"])
def test_default_properties_and_round_trip(pass_type):
    assert dict(falcor.createPass(pass_type).getDictionary().items()) == RASTER_DEFAULTS
    props = {"outputSize": "Fixed", "fixedOutputSize": [20, 10], "samplePattern": "DirectX", "disableAlphaTest": True,
             "forceCullMode": True, "cull": "None", "useDOF": False}
    d = falcor.createPass(pass_type, props).getDictionary()
    assert d["fixedOutputSize"] == [20, 10] and d["useAlphaTest"] is False and d["samplePattern"] == "DirectX"
    assert "useDOF" not in d and "disableAlphaTest" not in d


@pytest.mark.parametrize("pass_type", ["GBufferRaster", "VBufferRaster"])
def test_wrong_option_type_names_the_key(pass_type):
    with pytest.raises(Exception, match="cull"):
        falcor.createPass(pass_type, {"cull": 3})


def test_channels_formats_and_required_outputs():
    _, out = render_passes(CORNELL, {"G": ("GBufferRaster", {}, ["depth", "pnFwidth", "linearZ", "texGrads", "vbuffer", "mask"]),
                                     "V": ("VBufferRaster", {}, ["depth", "vbuffer"])}, size=(8, 8))
    assert out["G.depth"].dtype == np.float32 and out["G.pnFwidth"].shape == (8, 8, 2) and out["G.linearZ"].shape == (8, 8, 2)
    assert out["G.texGrads"].dtype == np.float16 and out["G.vbuffer"].dtype == np.uint32 and out["G.mask"].shape == (8, 8)
    np.testing.assert_array_equal(out["G.depth"], out["V.depth"])
    np.testing.assert_array_equal(out["G.vbuffer"], out["V.vbuffer"])
    for pass_type, missing in (("GBufferRaster", "mvecW"), ("VBufferRaster", "viewW")):
        g2 = falcor.RenderGraph("H")
        g2.create_pass("P", pass_type, {})
        with pytest.raises(Exception, match=missing):
            g2.mark_output(f"P.{missing}")
            g2.compile()


@pytest.mark.parametrize("pass_type", ["GBufferRaster", "VBufferRaster"])
def test_no_scene_clears_outputs_and_depth_to_one(pass_type):
    outputs = ["depth", "vbuffer", "mvec", "mask"]
    m = falcor.Renderer(8, 8)
    g = falcor.RenderGraph("G")
    g.create_pass("P", pass_type, {})
    for o in outputs:
        g.mark_output(f"P.{o}")
    m.addGraph(g)
    m.renderFrame()
    out = {o: g.get_output(f"P.{o}").to_numpy() for o in outputs}
    assert (out["depth"] == 1.0).all()
    assert not out["vbuffer"].any() and not out["mvec"].any() and not out["mask"].any()
