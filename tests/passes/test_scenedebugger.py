"""SceneDebugger: options, the `mode` attribute, scene-less frames, and every mode's colors against
numpy references of Falcor's definitions (hash pseudocolors, normal remapping, facing flags, ...).
Conformance of the default mode with native Falcor: test_scenedebugger_oracle.py."""
import math
from pathlib import Path

import numpy as np
import pytest

import falcor

CORNELL = Path(__file__).resolve().parents[2] / "Scenes" / "CornellBox.pyscene"
SIZE = 32
LUMA = np.array([0.2126, 0.7152, 0.0722])


def jenkins(a):
    a = np.asarray(a, np.uint64)
    m = np.uint64(0xFFFFFFFF)

    def step(x):
        return x & m

    a = step((a + np.uint64(0x7ED55D16)) + (a << np.uint64(12)))
    a = step((a ^ np.uint64(0xC761C23C)) ^ (a >> np.uint64(19)))
    a = step((a + np.uint64(0x165667B1)) + (a << np.uint64(5)))
    a = step((a + np.uint64(0xD3A2646C)) ^ (a << np.uint64(9)))
    a = step((a + np.uint64(0xFD7046C5)) + (a << np.uint64(3)))
    a = step((a ^ np.uint64(0xB55A4F09)) ^ (a >> np.uint64(16)))
    return a


def pseudocolor(ids):
    h = jenkins(ids)
    return np.stack([h & np.uint64(0xFF), (h >> np.uint64(8)) & np.uint64(0xFF), (h >> np.uint64(16)) & np.uint64(0xFF)], -1) / 255.0


def checkerboard(shape):
    py, px = np.mgrid[0 : shape[0], 0 : shape[1]]
    return np.where((((px ^ py) & 8) != 0)[..., None], 1.0, 0.5) * np.ones(3)


@pytest.fixture(scope="module")
def cornell():
    """The Cornell box with a V-buffer (hit ids) and a G-buffer (geometry) beside the debugger."""
    m = falcor.Renderer(SIZE, SIZE)
    g = falcor.RenderGraph("G")
    g.create_pass("V", "VBufferRT", {})
    g.create_pass("G", "GBufferRT", {"adjustShadingNormals": False})
    g.create_pass("D", "SceneDebugger", {})
    for o in ("V.vbuffer", "G.posW", "G.faceNormalW", "G.normW", "G.tangentW", "G.texC", "G.viewW", "G.mask", "G.emissive", "D.output"):
        g.mark_output(o)
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.clock.pause()

    def run(mode):
        g.get_pass("D").mode = mode
        m.renderFrame()
        return g.get_output("D.output").to_numpy()

    m.renderFrame()
    data = {o: g.get_output(o).to_numpy() for o in ("V.vbuffer", "G.posW", "G.faceNormalW", "G.normW", "G.tangentW", "G.texC",
                                                    "G.viewW", "G.mask", "G.emissive")}
    return m, run, data


def hits_and_ids(data):
    vb = data["V.vbuffer"]
    hit = vb[..., 0] >> 29 == 1
    # Cornell box: 8 instances (3 bits), at most 12 triangles per mesh (4 bits).
    return hit, (vb[..., 0] >> 4) & 7, vb[..., 0] & 15


def shade_gray(face_n):
    return 0.75 * (np.abs(face_n[..., :3]) @ LUMA) + 0.25


def flat_shaded(data):
    d = -data["G.viewW"][..., :3]
    n = data["G.faceNormalW"][..., :3]
    front = np.where((np.sum(d * n, -1) < 0)[..., None], n, -n)
    return 0.8 * np.clip(np.sum(-front * d, -1), 0, 1) + 0.2


# ---- options ----------------------------------------------------------------------------------

def test_properties_attribute_and_warnings(capfd):
    p = falcor.createPass("SceneDebugger")
    assert list(p.getDictionary().items()) == [("mode", "FaceNormal"), ("showVolumes", True), ("useVBuffer", False)]
    q = falcor.createPass("SceneDebugger", {"mode": "InstanceID", "showVolumes": False, "useVBuffer": True, "bogus": 1})
    assert "(Warning) Unknown property 'bogus' in SceneDebugger properties." in capfd.readouterr().out
    g = falcor.RenderGraph("G")
    g.create_pass("D", "SceneDebugger", q.getDictionary())
    g.update_pass("D", g.get_pass("D").getDictionary())
    assert g.get_pass("D").getDictionary() == {"mode": "InstanceID", "showVolumes": False, "useVBuffer": True}
    d = g.get_pass("D")
    assert d.mode == "InstanceID"
    d.mode = "TexCoords"
    assert d.mode == "TexCoords" and d.getDictionary()["mode"] == "TexCoords"
    with pytest.raises(Exception):
        d.mode = "Normals"
    with pytest.raises(Exception, match="mode"):
        falcor.createPass("SceneDebugger", {"mode": "faceNormal"})


def test_no_scene_gives_zeros():
    g = falcor.RenderGraph("G")
    g.create_pass("D", "SceneDebugger", {})
    g.mark_output("D.output")
    g.resize(8, 8)
    g.execute()
    assert not g.get_output("D.output").to_numpy().any()


# ---- modes ------------------------------------------------------------------------------------

def test_face_normal_default_mode(cornell):
    _, run, data = cornell
    out = run("FaceNormal")
    hit = data["G.mask"] == 1
    np.testing.assert_allclose(out[..., 3], 1.0)
    np.testing.assert_allclose(out[hit][:, :3], np.clip(data["G.faceNormalW"][hit][:, :3] * 0.5 + 0.5, 0, 1), atol=1e-6)
    np.testing.assert_allclose(out[~hit][:, :3], checkerboard(out.shape)[~hit])


def test_id_modes_are_hash_pseudocolors(cornell):
    m, run, data = cornell
    hit, instance, primitive = hits_and_ids(data)
    native = m.scene.native
    mesh = np.array([native.get_instance(i)["mesh_id"] for i in range(8)])
    material = np.array([native.get_instance(i)["material_id"] for i in range(8)])
    flat = flat_shaded(data)[..., None]
    expected = {
        "HitType": pseudocolor(np.ones_like(instance)),
        "InstanceID": pseudocolor(instance),
        "PrimitiveID": pseudocolor(primitive),
        "GeometryID": pseudocolor(mesh[instance]),
        "BlasID": pseudocolor(np.zeros_like(instance)),  # static, non-instanced meshes share one BLAS
        "MaterialID": pseudocolor(material[instance]) * flat,
        "MaterialType": pseudocolor(np.ones_like(instance)) * flat,  # StandardMaterial = 1
    }
    for mode, colors in expected.items():
        out = run(mode)
        np.testing.assert_allclose(out[hit][:, :3], colors[hit], atol=1e-6, err_msg=mode)
        np.testing.assert_allclose(out[~hit][:, :3], checkerboard(out.shape)[~hit], err_msg=mode)
    assert len({tuple(c) for c in pseudocolor(np.arange(8))}) == 8


def test_shading_modes(cornell):
    _, run, data = cornell
    hit = data["G.mask"] == 1
    n, t = data["G.normW"][..., :3], data["G.tangentW"]
    tangent = t[..., :3] - n * np.sum(t[..., :3] * n, -1, keepdims=True)
    tangent /= np.maximum(np.linalg.norm(tangent, axis=-1, keepdims=True), 1e-12)
    bitangent = np.cross(n, tangent) * t[..., 3:4]
    gray = shade_gray(data["G.faceNormalW"])
    uv = data["G.texC"]
    expected = {
        "ShadingNormal": n * 0.5 + 0.5,
        "ShadingTangent": tangent * 0.5 + 0.5,
        "ShadingBitangent": bitangent * 0.5 + 0.5,
        "FrontFacingFlag": np.stack([np.zeros_like(gray), gray, np.zeros_like(gray)], -1),  # all seen from the front
        "BackfacingShadingNormal": np.repeat(gray[..., None], 3, -1),
        "TexCoords": np.stack([np.mod(uv[..., 0] * 0.5 + 0.5, 1), np.mod(uv[..., 1] * 0.5 + 0.5, 1), np.zeros_like(gray)], -1),
        "FlatShaded": np.repeat(flat_shaded(data)[..., None], 3, -1),
        "InstancedGeometry": np.stack([gray, np.zeros_like(gray), np.zeros_like(gray)], -1),  # every mesh placed once
        "BSDFProperties": np.clip(data["G.emissive"][..., :3], 0, 1),  # Falcor's default property: emission
    }
    for mode, colors in expected.items():
        out = run(mode)
        np.testing.assert_allclose(out[hit][:, :3], np.clip(colors[hit], 0, 1), atol=2e-6, err_msg=mode)
    assert run("BSDFProperties")[hit][:, :3].max() == 1.0  # the light, clamped


def test_triangle_density(cornell):
    m, run, data = cornell
    hit, instance, primitive = hits_and_ids(data)
    native = m.scene.native
    areas = {}
    for i in range(8):
        inst = native.get_instance(i)
        arrays = native.get_mesh_arrays(inst["mesh_id"])
        world = np.asarray(inst["world"], np.float64)
        p = np.asarray(arrays["positions"], np.float64) @ world[:3, :3].T + world[:3, 3]
        tri = np.asarray(arrays["triangles"]).reshape(-1, 3)
        areas[i] = 0.5 * np.linalg.norm(np.cross(p[tri[:, 1]] - p[tri[:, 0]], p[tri[:, 2]] - p[tri[:, 0]]), axis=1)
    area = np.array([areas[i][p] if h else 1.0 for i, p, h in zip(instance.ravel(), primitive.ravel(), hit.ravel())]).reshape(hit.shape)
    x = np.clip((np.log2(1 / area) + 16) / 32, 0, 1)[..., None]
    c = np.array([[0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
                  [0.1050930431085774, 1.404613529898575, 1.384590162594685],
                  [-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
                  [-4.634230498983486, -5.799100973351585, -19.33244095627987],
                  [6.228269936347081, 14.17993336680509, 56.69055260068105],
                  [4.776384997670288, -13.74514537774601, -65.35303263337234],
                  [-5.435455855934631, 4.645852612178535, 26.3124352495832]])
    viridis = np.clip(sum(c[k] * x**k for k in range(7)), 0, 1)
    out = run("TriangleDensity")
    np.testing.assert_allclose(out[hit][:, :3], viridis[hit], atol=1e-4)


def test_front_facing_flag_and_backfacing_normals(tmp_path):
    """A quad facing +Y seen from below: back-facing (red); its shading normal faces away, so
    BackfacingShadingNormal draws yellow/black zebra stripes (8-pixel diagonal bands that shift
    by one pixel per frame)."""
    scene = tmp_path / "under.pyscene"
    scene.write_text("""
node = sceneBuilder.addNode('Quad', Transform(scaling=float3(4, 1, 4)))
sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial('Quad')))
camera = Camera()
camera.position = float3(0, -2, 0)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 0, 1)
sceneBuilder.addCamera(camera)
""")
    m = falcor.Renderer(SIZE, SIZE)
    g = falcor.RenderGraph("G")
    g.create_pass("D", "SceneDebugger", {"mode": "FrontFacingFlag"})
    g.mark_output("D.output")
    m.addGraph(g)
    m.loadScene(str(scene))
    m.renderFrame()
    gray = 0.75 * LUMA[1] + 0.25
    np.testing.assert_allclose(g.get_output("D.output").to_numpy()[..., :3], np.tile([gray, 0, 0], (SIZE, SIZE, 1)), atol=1e-6)
    g.get_pass("D").mode = "BackfacingShadingNormal"
    m.renderFrame()  # the debugger's second frame: frame count 1
    py, px = np.mgrid[0:SIZE, 0:SIZE]
    stripe = (((px + py - 1) & 8) != 0).astype(float)
    np.testing.assert_allclose(g.get_output("D.output").to_numpy()[..., :3], np.stack([stripe, stripe, 0 * stripe], -1))


def test_vbuffer_input(cornell):
    """useVBuffer: hits come from a connected V-buffer instead of the debugger's own rays."""
    m = falcor.Renderer(SIZE, SIZE)
    g = falcor.RenderGraph("G")
    g.create_pass("V", "VBufferRT", {})
    g.create_pass("D", "SceneDebugger", {"mode": "PrimitiveID", "useVBuffer": True})
    g.create_pass("Own", "SceneDebugger", {"mode": "PrimitiveID"})
    g.add_edge("V.vbuffer", "D.vbuffer")
    g.mark_output("D.output")
    g.mark_output("Own.output")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.renderFrame()
    np.testing.assert_array_equal(g.get_output("D.output").to_numpy(), g.get_output("Own.output").to_numpy())


def test_vbuffer_requested_without_input(capfd):
    m = falcor.Renderer(8, 8)
    g = falcor.RenderGraph("G")
    g.create_pass("D", "SceneDebugger", {"useVBuffer": True})
    g.mark_output("D.output")
    m.addGraph(g)
    m.loadScene(str(CORNELL))
    m.renderFrame()
    assert "SceneDebugger cannot use vbuffer as none is connected" in capfd.readouterr().out
    assert g.get_pass("D").getDictionary()["useVBuffer"] is False
    assert g.get_output("D.output").to_numpy()[..., 3].min() == 1.0
