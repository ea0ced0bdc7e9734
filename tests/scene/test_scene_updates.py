"""Edits between frames reach the renderer on the next update, with Falcor's change flags; the
accumulation pass restarts on scene changes."""
import math

import numpy as np
import pytest
from PIL import Image

import falcor
from falcor import (Animation, PointLight, RenderPass, RenderPassReflection, ResourceFormat, SceneBuilder,
                    StandardMaterial, Transform, TriangleMesh, float3, float4)
from scenes_for_tests import CORNELL, quad_scene, rays_down

F = falcor.SceneUpdateFlags


def test_camera_light_material_edits_take_effect_next_frame():
    light = PointLight("l")
    material = StandardMaterial("q")
    scene = quad_scene(lights=[light], material=material)
    native = scene.native
    assert scene.update(0.0) == 0
    scene.camera.position = float3(0, 5, 5)
    light.intensity = float3(2, 2, 2)
    light.position = float3(0, 1, 0)
    material.emissiveColor = float3(1, 0, 0)
    assert native.camera_data["posW"] == pytest.approx((0, 0, 0))  # nothing reaches the renderer before the update
    flags = scene.update(0.0)
    assert flags == int(F.CameraMoved | F.LightIntensityChanged | F.LightsMoved | F.MaterialsChanged | F.EmissiveMaterialsChanged)
    assert native.camera_data["posW"] == pytest.approx((0, 5, 5))
    assert native.get_light(0)["intensity"] == pytest.approx((2, 2, 2)) and native.get_light(0)["posW"] == pytest.approx((0, 1, 0))
    assert native.get_material_emission(0, (0, 0)) == pytest.approx((1, 0, 0))
    material.roughness = 0.5
    assert scene.update(0.0) & ~int(F.CameraPropertiesChanged) == int(F.MaterialsChanged)  # roughness is not emission
    light.active = False
    assert scene.update(0.0) == int(F.LightCountChanged) and native.active_light_count == 0
    scene.renderSettings = falcor.SceneRenderSettings(useAnalyticLights=False)
    assert scene.update(0.0) == int(F.RenderSettingsChanged)
    assert native.updates == int(F.RenderSettingsChanged) and scene.update(0.0) == 0 and native.update_count >= 7


def test_camera_switch_and_viewpoints():
    b = SceneBuilder()
    b.addMeshInstance(b.addNode("n"), b.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial()))
    c0, c1 = falcor.Camera("a"), falcor.Camera("b")
    c1.position = float3(3, 0, 0)
    b.addCamera(c0)
    b.addCamera(c1)
    scene = b.getScene()
    scene.camera = c1
    assert scene.update(0.0) & int(F.CameraSwitched) and scene.native.camera_data["posW"] == pytest.approx((3, 0, 0))
    scene.camera = falcor.Camera("stranger")  # not in the scene: ignored with a warning
    assert scene.camera is c1
    scene.addViewpoint(float3(1, 1, 1), float3(0, 0, 0), float3(0, 1, 0), 0)
    scene.selectViewpoint(1)
    assert scene.camera is c0 and c0.position == float3(1, 1, 1)
    scene.selectViewpoint(0)  # the default viewpoint: camera a at its original place
    assert c0.position == float3(0, 0, 0)
    scene.removeViewpoint()  # can't remove the default one


def slide_quad(builder, node):
    """The quad's node slides from x = 0 to x = 4 over 2 s."""
    a = Animation("slide", node, 2.0)
    a.addKeyframe(0.0, Transform(translation=float3(0, 0, 0)))
    a.addKeyframe(2.0, Transform(translation=float3(4, 0, 0)))
    builder.addAnimation(a)


def test_animated_node_moves_instances_and_keeps_previous_matrices():
    scene = quad_scene(animate=slide_quad)
    native = scene.native
    assert scene.update(0.0) == 0
    flags = scene.update(0.5)
    assert flags == int(F.GeometryMoved | F.SceneGraphChanged)
    inst = native.get_instance(0)
    assert inst["world"][0, 3] == pytest.approx(1.0) and inst["prev_world"][0, 3] == pytest.approx(0.0)
    v = native.get_vertex_data(0, 0, (0.0, 0.0))
    assert v["posW"][0] - v["prevPosW"][0] == pytest.approx(1.0)
    o, d = rays_down([(1.4, 0.0), (0.0, 0.0)])  # the unit quad now covers x in [0.5, 1.5]
    assert list(scene.cast_rays(o, d)["hit"]) == [True, False]  # the acceleration structure follows
    assert scene.bounds.min_point.x == pytest.approx(0.5)
    scene.update(0.5)  # same time: one more update settles the previous matrices (Falcor's rule)
    assert native.get_instance(0)["prev_world"][0, 3] == pytest.approx(1.0)
    assert scene.update(0.5) == 0
    scene.update(3.0)  # loops: 3 s into a 2 s animation is 1 s
    assert native.get_instance(0)["world"][0, 3] == pytest.approx(2.0)
    scene.loopAnimations = False
    scene.update(3.5)
    assert native.get_instance(0)["world"][0, 3] == pytest.approx(4.0)  # post-infinity Constant
    scene.animated = False
    scene.update(4.0)
    assert native.get_instance(0)["world"][0, 3] == pytest.approx(0.0)  # static transform back


def test_a_saved_frame_state_puts_instances_and_rays_back():
    scene = quad_scene(animate=slide_quad)
    native = scene.native
    saved, count = native.save_frame_state(), native.update_count
    scene.update(1.0)  # the quad moves to x in [1.5, 2.5]
    o, d = rays_down([(2.0, 0.0), (0.0, 0.0)])
    assert list(scene.cast_rays(o, d)["hit"]) == [True, False]
    native.restore_frame_state(saved)
    assert native.get_instance(0)["world"][0, 3] == 0.0 and list(scene.cast_rays(o, d)["hit"]) == [False, True]
    assert scene.bounds.min_point.x == pytest.approx(-0.5)
    assert native.update_count > count + 1  # still counting: caches keyed by it rebuild
    with pytest.raises(falcor.RuntimeError, match="saved from another scene"):
        quad_scene().native.restore_frame_state(saved)


def test_animated_light_and_camera_follow_their_nodes():
    light = PointLight("l")
    camera = falcor.Camera("c")

    def animate(builder, node):
        for obj, name in ((light, "lightAnim"), (camera, "cameraAnim")):
            a = builder.createAnimation(obj, name, 1.0)
            a.addKeyframe(0.0, Transform(translation=float3(0, 1, 0)))
            a.addKeyframe(1.0, Transform(translation=float3(0, 3, 0), rotationEulerDeg=float3(-90, 0, 0)))

    scene = quad_scene(lights=[light], camera=camera, animate=animate)
    assert light.position == float3(0, 1, 0) and camera.position == float3(0, 1, 0)
    flags = scene.update(1.0 - 1e-9)
    assert flags & int(F.LightsMoved) and flags & int(F.CameraMoved)
    assert light.position.y == pytest.approx(3.0, abs=1e-5)
    np.testing.assert_allclose(list(light.direction), [0, -1, 0], atol=1e-4)  # -Z of the node, turned down
    assert scene.native.get_light(0)["posW"][1] == pytest.approx(3.0, abs=1e-5)


def write_flat_hdr(path, rgb):
    """A Radiance RGBE file with uncompressed scanlines (fine for widths below 8)."""
    rgb = np.asarray(rgb, np.float64)
    h, w, _ = rgb.shape
    top = rgb.max(axis=2)
    exponent = np.where(top > 0, np.floor(np.log2(np.maximum(top, 1e-30))) + 1, 0)
    mantissa = np.where(top[..., None] > 0, rgb / np.ldexp(1.0, exponent.astype(int))[..., None] * 256, 0)
    rgbe = np.concatenate([np.clip(mantissa, 0, 255), np.where(top > 0, exponent + 128, 0)[..., None]], axis=2)
    path.write_bytes(f"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {h} +X {w}\n".encode() + rgbe.astype(np.uint8).tobytes())


def test_hdr_env_map(tmp_path):
    sky = np.zeros((4, 4, 3))
    sky[:2], sky[2:] = (0.5, 1.0, 2.0), (0.25, 0.125, 0.0625)  # exactly representable in RGBE
    write_flat_hdr(tmp_path / "sky.hdr", sky)
    scene = quad_scene()
    scene.envMap = falcor.EnvMap.createFromFile(tmp_path / "sky.hdr")
    scene.update(0.0)
    assert scene.native.eval_env_map((0, 1, 0)) == pytest.approx((0.5, 1.0, 2.0), rel=1e-3)
    assert scene.native.eval_env_map((0, -1, 0)) == pytest.approx((0.25, 0.125, 0.0625), rel=1e-3)


def test_env_map(tmp_path):
    import OpenEXR

    h, w = 8, 16
    sky = np.zeros((h, w, 3), np.float32)
    sky[: h // 2] = (0.2, 0.4, 0.8)  # upper hemisphere blue
    sky[h // 2:] = (0.3, 0.2, 0.1)   # lower hemisphere brown
    with OpenEXR.File({"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}, {"RGB": sky}) as f:
        f.write(str(tmp_path / "sky.exr"))
    scene = quad_scene()
    assert scene.setEnvMap(tmp_path / "sky.exr") and not scene.setEnvMap(tmp_path / "none.exr")
    env = scene.envMap
    assert env.intensity == 1 and env.tint == float3(1) and env.rotation == float3(0) and env.path.name == "sky.exr"
    assert scene.update(0.0) == int(F.EnvMapChanged) and scene.native.has_env_map
    assert scene.native.eval_env_map((0, 1, 0)) == pytest.approx((0.2, 0.4, 0.8), abs=1e-3)
    env.intensity, env.tint = 2.0, float3(1, 0.5, 1)
    assert scene.update(0.0) == int(F.EnvMapPropertiesChanged)
    assert scene.native.eval_env_map((0, -1, 0)) == pytest.approx((0.6, 0.2, 0.2), abs=1e-3)
    env.rotation = float3(180, 0, 0)  # upside down
    scene.update(0.0)
    assert scene.native.eval_env_map((0, 1, 0)) == pytest.approx((0.6, 0.2, 0.2), abs=1e-3)
    scene.envMap = None
    assert scene.update(0.0) == int(F.EnvMapChanged) and not scene.native.has_env_map


class FrameValue(RenderPass):
    """Writes the number of frames it has run as every pixel's value."""

    def __init__(self, props=None):
        super().__init__()
        self.frame = 0

    def reflect(self, compile_data):
        r = RenderPassReflection()
        r.add_output("out", "").format(ResourceFormat.RGBA32Float)
        return r

    def execute(self, ctx, rd):
        self.frame += 1
        np.asarray(rd["out"])[...] = self.frame


falcor.register_render_pass(FrameValue, "FrameValue")


def test_accumulation_restarts_on_scene_changes():
    m = falcor.Renderer(8, 8)
    g = falcor.RenderGraph("Acc")
    g.create_pass("Value", "FrameValue", {})
    g.create_pass("Acc", "AccumulatePass", {"precisionMode": "Double"})
    g.add_edge("Value.out", "Acc.input")
    g.mark_output("Acc.output")
    m.addGraph(g)
    m.loadScene(CORNELL)
    m.clock.pause()

    def frame():
        m.renderFrame()
        return float(np.asarray(g.get_output("Acc.output"))[0, 0, 0])

    frame(), frame()  # loading changed the aspect ratio: restarts, then the History change, ...
    assert frame() == pytest.approx(2.0)  # ... then frames 3 accumulates: mean(1..3) after the restart at frame 1
    assert frame() == pytest.approx(2.5)
    m.scene.camera.position = float3(0, 0.3, 1.2)  # camera moved: restart
    assert frame() == pytest.approx(5.0)
    frame()  # History (previous matrices changed) is ignored by the accumulation
    assert frame() == pytest.approx(6.0)
    m.scene.materials[0].roughness = 0.9  # a material change restarts too
    assert frame() == pytest.approx(8.0)
    g.get_pass("Acc").reset()
    assert frame() == pytest.approx(9.0)


def test_mesh_vertices_round_trip_through_buffers():
    scene = quad_scene()
    device = falcor.Device()
    buffers = {name: device.create_structured_buffer(12, n) for name, n in
               (("positions", 4), ("texcrds", 4), ("triangleIndices", 2), ("normals", 4), ("tangents", 4))}
    scene.get_mesh_vertices_and_indices(0, buffers)
    positions = buffers["positions"].to_numpy().view(np.float32).reshape(4, 3)
    np.testing.assert_array_equal(positions, [[-0.5, 0, -0.5], [0.5, 0, -0.5], [-0.5, 0, 0.5], [0.5, 0, 0.5]])
    assert buffers["triangleIndices"].to_numpy().view(np.uint32).tolist() == [2, 1, 0, 1, 2, 3]
    buffers["positions"].from_numpy(positions + np.float32([0, 1, 0]))  # lift the quad by 1
    buffers["normals"].from_numpy(np.tile(np.float32([0, 1, 0]), 4))
    buffers["tangents"].from_numpy(np.tile(np.float32([1, 0, 0]), 4))
    scene.set_mesh_vertices(0, buffers)
    assert scene.update(0.0) == int(F.MeshesChanged)
    r = scene.cast_rays([[0, 3, 0]], [[0, -1, 0]])
    assert r["t"][0] == pytest.approx(2.0) and scene.bounds.min_point.y == pytest.approx(1.0)
    with pytest.raises(falcor.RuntimeError, match="'normals' is missing"):
        scene.set_mesh_vertices(0, {"positions": positions})
