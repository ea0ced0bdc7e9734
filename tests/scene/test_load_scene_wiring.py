"""Scene loading in Mogwai (`m.loadScene`), Testbed and standalone, and per-frame scene updates."""
import numpy as np
import pytest

import falcor
from falcor import RenderPass, RenderPassReflection, ResourceFormat, float3
from scenes_for_tests import CORNELL
from helpers import run_mogwai

F = falcor.SceneUpdateFlags


class SceneSpy(RenderPass):
    """Records what the graph tells it about the scene."""

    log = []

    def __init__(self, props=None):
        super().__init__()

    def reflect(self, compile_data):
        r = RenderPassReflection()
        r.add_output("out", "").format(ResourceFormat.RGBA32Float)
        return r

    def execute(self, ctx, rd):
        SceneSpy.log.append(("execute",))

    def set_scene(self, scene):
        SceneSpy.log.append(("set_scene", scene))

    def on_scene_updates(self, flags):
        SceneSpy.log.append(("updates", flags))


falcor.register_render_pass(SceneSpy, "SceneSpy")


def spy_graph(name="G"):
    g = falcor.RenderGraph(name)
    g.create_pass("Spy", "SceneSpy", {})
    g.mark_output("Spy.out")
    return g


def test_mogwai_load_scene_wiring():
    SceneSpy.log.clear()
    m = falcor.Renderer(300, 200)
    g1, g2 = spy_graph("A"), spy_graph("B")
    m.addGraph(g1)
    m.addGraph(g2)
    m.clock.time = 5.0
    m.renderFrame()
    assert m.clock.time == 5.0
    m.loadScene(CORNELL)
    scene = m.scene
    assert isinstance(scene, falcor.Scene) and scene.camera.aspectRatio == pytest.approx(1.5)
    assert m.clock.time == 0.0  # reset immediately
    assert g1.scene is scene.native and g2.scene is scene.native  # every graph, not only the active one
    assert ("set_scene", scene.native) in SceneSpy.log
    m.resizeFrameBuffer(100, 100)
    assert scene.camera.aspectRatio == 1.0
    # Each frame updates the scene; the active graph hears about changes before executing.
    SceneSpy.log.clear()
    m.renderFrame()
    assert SceneSpy.log[0][0] == "updates" and SceneSpy.log[0][1] & int(F.CameraPropertiesChanged)  # aspect changed
    SceneSpy.log.clear()
    m.renderFrame()  # the previous-frame matrices still change (Falcor's History camera change)
    assert SceneSpy.log == [("updates", int(F.CameraPropertiesChanged)), ("execute",)]
    SceneSpy.log.clear()
    m.renderFrame()
    assert SceneSpy.log == [("execute",)]  # nothing changed
    scene.camera.position = float3(0, 0.3, 1.2)
    SceneSpy.log.clear()
    m.renderFrame()
    assert SceneSpy.log[0] == ("updates", int(F.CameraMoved))
    # A graph added later gets the current scene.
    g3 = spy_graph("C")
    m.addGraph(g3)
    assert g3.scene is scene.native
    m.unloadScene()
    assert m.scene is None and g1.scene is None and g3.scene is None and m.clock.time == 0.0


def test_cache_flags_are_added_to_loads():
    m = falcor.Renderer(64, 64)
    m.scene_build_flags = int(falcor.SceneBuilderFlags.RebuildCache)  # what --rebuild-cache sets
    m.loadScene(CORNELL, falcor.SceneBuilderFlags.DontMergeMaterials)
    assert m.scene._flags == falcor.SceneBuilderFlags.RebuildCache | falcor.SceneBuilderFlags.DontMergeMaterials
    assert len(m.scene.materials) == 8


def test_update_callback_sees_scene_and_time():
    m = falcor.Renderer(64, 64)
    m.loadScene(CORNELL)
    seen = []
    m.sceneUpdateCallback = lambda scene, t: seen.append((scene, t))
    m.renderFrame()
    assert seen and seen[0][0] is m.scene


def test_save_config_reloads_the_scene(tmp_path):
    m = falcor.Renderer(64, 64)
    m.loadScene(CORNELL)
    m.scene.camera.position = float3(0.1, 0.2, 1.5)
    config = tmp_path / "config.py"
    m.saveConfig(config)
    text = config.read_text()
    assert f"m.loadScene('{str(CORNELL)}')" in text and "m.scene.renderSettings = SceneRenderSettings(" in text
    assert "m.scene.camera.position = float3(0.100000, 0.200000, 1.500000)" in text


def test_testbed_load_scene():
    tb = falcor.Testbed(64, 32)
    g = spy_graph()
    tb.render_graph = g
    tb.clock.time = 3.0
    tb.frame()
    tb.load_scene(CORNELL)
    assert g.scene is tb.scene.native
    assert tb.scene.camera.aspectRatio == pytest.approx(1.7777777)  # Testbed leaves the aspect alone until a resize
    assert [p.name for p in tb.get_import_paths()] == ["CornellBox.pyscene"] and tb.get_import_dicts() == [{}]
    tb.frame()
    tb.resize_frame_buffer(32, 32)
    assert tb.scene.camera.aspectRatio == 1.0


def test_standalone_load_and_graph_set_scene():
    scene = falcor.load_scene(CORNELL, falcor.SceneBuilderFlags.DontMergeMaterials)
    assert len(scene.materials) == 8
    g = spy_graph()
    g.set_scene(scene)
    assert g.scene is scene.native
    g.set_scene(None)
    assert g.scene is None


def test_mogwai_scene_flag(tmp_path):
    script = tmp_path / "check.py"
    script.write_text("print('materials', len(m.scene.materials) if m.scene else None)\n")
    # --script runs before --scene: the script sees no scene; a deferred one runs after.
    out = run_mogwai(["--headless", "--script", str(script), "--scene", str(CORNELL), "--deferred"])
    assert out.returncode == 0, out.stderr
    assert "materials 4" in out.stdout
    bad = tmp_path / "bad.pyscene"
    bad.write_text("oops(\n")
    out = run_mogwai(["--headless", "--scene", str(bad)])
    assert out.returncode == 1 and "Failed to load scene." in out.stderr and str(bad) in out.stderr
