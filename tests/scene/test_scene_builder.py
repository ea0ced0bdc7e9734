"""SceneBuilder API: node hierarchy, instances, materials, lights, cameras, settings, importers."""
import math

import numpy as np
import pytest

import falcor
from falcor import (Camera, EnvMap, PointLight, SceneBuilder, SceneBuilderFlags, SceneRenderSettings, StandardMaterial,
                    Transform, TriangleMesh, float3, float4)
from falcor.scene import importers
from falcor.scene.animation import INVALID_ID
from scenes_for_tests import rays_down


def test_flags_and_properties():
    assert SceneBuilderFlags.Default == 0 and SceneBuilderFlags.UseCache == 0x10000000
    assert (SceneBuilderFlags.DontMergeMaterials | SceneBuilderFlags.UseCache) & SceneBuilderFlags.UseCache
    assert falcor.SceneBuilderFlags is SceneBuilderFlags and falcor.testbed.__dict__.get("SceneBuilderFlags") is SceneBuilderFlags
    b = SceneBuilder(SceneBuilderFlags.DontMergeMaterials)
    assert b.flags == SceneBuilderFlags.DontMergeMaterials
    assert b.materials == [] and b.lights == [] and b.cameras == [] and b.animations == [] and b.gridVolumes == []
    assert b.envMap is None and b.selectedCamera is None and b.cameraSpeed == 1.0
    assert isinstance(b.assetResolver, falcor.AssetResolver)
    assert isinstance(b.getSettings(), falcor.Settings)
    assert repr(b.renderSettings) == ("SceneRenderSettings(useEnvLight=True, useAnalyticLights=True, useEmissiveLights=True, "
                                      "useGridVolumes=True, diffuseAlbedoMultiplier=1)")
    b.renderSettings = SceneRenderSettings(useEnvLight=False, diffuseAlbedoMultiplier=0.5)
    assert not b.renderSettings.useEnvLight and "diffuseAlbedoMultiplier=0.5" in repr(b.renderSettings)


def test_materials_and_meshes():
    b = SceneBuilder()
    red = StandardMaterial("Red")
    assert b.addMaterial(red) == 0 and b.addMaterial(red) == 0  # the same object is added once
    mesh = TriangleMesh.createQuad()
    assert b.addTriangleMesh(mesh, red) == 0 and b.addTriangleMesh(mesh, StandardMaterial("Blue")) == 1
    assert b.getMaterial("Blue") is b.materials[1] and b.getMaterial("none") is None
    green = StandardMaterial("Green")
    b.replaceMaterial(b.materials[1], green)
    assert b.materials[1] is green and b.meshes[1].material is green
    with pytest.raises(falcor.RuntimeError, match="missing faces"):
        b.addTriangleMesh(TriangleMesh(), red)


def test_node_hierarchy_and_instances():
    b = SceneBuilder()
    mesh_id = b.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial("m"))
    parent = b.addNode("parent", Transform(translation=float3(10, 0, 0), rotationEulerDeg=float3(0, 90, 0)))
    child = b.addNode("child", Transform(translation=float3(0, 0, -2), scaling=2), parent)
    root = b.addNode("root")
    assert (parent, child, root) == (0, 1, 2) and b.nodes[1].parent == 0 and b.nodes[2].parent == INVALID_ID
    with pytest.raises(falcor.RuntimeError, match="out of range"):
        b.addNode("orphan", Transform(), 7)
    with pytest.raises(TypeError):
        b.addMeshInstance(nodeID=child, meshID=mesh_id)  # positional only
    with pytest.raises(falcor.RuntimeError):
        b.addMeshInstance(child, 5)
    b.addMeshInstance(child, mesh_id)
    b.addMeshInstance(root, mesh_id)
    scene = b.getScene()
    assert b.getScene() is scene and scene.native.instance_count == 2
    expected = (Transform(translation=float3(10, 0, 0), rotationEulerDeg=float3(0, 90, 0)).matrix_array()
                @ Transform(translation=float3(0, 0, -2), scaling=2).matrix_array())
    np.testing.assert_allclose(scene.native.get_instance(0)["world"], expected, atol=1e-5)
    np.testing.assert_allclose(expected[:3, 3], [8, 0, 0], atol=1e-6)  # -2 along z rotated 90° about y
    # The child's quad (2x2 after scaling, turned about y) covers x in [7, 9].
    o, d = rays_down([(8.0, 0.0), (7.5, 0.5), (9.5, 0.0)], height=1)
    assert list(scene.cast_rays(o, d)["hit"]) == [True, True, False]


def test_lights_cameras_and_selection():
    b = SceneBuilder()
    l = PointLight("lamp")
    assert b.addLight(l) == 0 and b.getLight("lamp") is l and b.getLight("x") is None
    c0, c1 = Camera("a"), Camera("b")
    assert b.addCamera(c0) == 0 and b.addCamera(c1) == 1
    assert b.selectedCamera is c0
    b.selectedCamera = c1
    assert b.selectedCamera is c1
    b.selectedCamera = Camera("stranger")  # not in the list: index 0
    assert b.selectedCamera is c0
    b.cameraSpeed = 2.5
    assert b.cameraSpeed == 2.5


def test_empty_scene_gets_a_dummy_mesh_and_a_default_camera(capfd):
    scene = SceneBuilder().getScene()
    assert "Creating a dummy mesh" in capfd.readouterr().out
    assert len(scene.materials) == 1 and scene.materials[0].name == "Dummy" and len(scene.cameras) == 1


def test_default_camera_fits_the_bounds():
    b = SceneBuilder()
    b.addMeshInstance(b.addNode("n", Transform(scaling=float3(100, 1, 40))), b.addTriangleMesh(TriangleMesh.createQuad(), StandardMaterial()))
    scene = b.getScene()
    c = scene.camera
    r = math.sqrt(100 ** 2 + 40 ** 2) / 2
    assert c.position == float3(0) and c.target == float3(0, 0, -1) and c.up == float3(0, 1, 0)
    assert c.nearPlane == pytest.approx(max(0.1, r / 750)) and c.farPlane == pytest.approx(50 * r)
    assert scene.bounds.min_point == float3(-50, 0, -20) and scene.bounds.max_point == float3(50, 0, 20)


def test_duplicate_materials_merge_unless_asked_not_to():
    def build(flags):
        b = SceneBuilder(flags)
        for name in ("A", "B"):
            m = StandardMaterial(name)
            m.baseColor = float4(0.5, 0.5, 0.5, 1)
            b.addMeshInstance(b.addNode(name), b.addTriangleMesh(TriangleMesh.createQuad(), m))
        return b.getScene()

    merged = build(SceneBuilderFlags.Default)
    assert [m.name for m in merged.materials] == ["A"] and merged.native.get_instance(1)["material_id"] == 0
    assert [m.name for m in build(SceneBuilderFlags.DontMergeMaterials).materials] == ["A", "B"]


def test_import_scene_errors_and_registry(tmp_path):
    b = SceneBuilder()
    with pytest.raises(falcor.ImporterError, match="Can't find scene file"):
        b.importScene(tmp_path / "nope.pyscene")
    resolver = falcor.AssetResolver.default_resolver
    saved = resolver.get_search_paths()
    resolver.add_search_path(str(tmp_path / "media"))
    try:  # a relative path names every location tried
        with pytest.raises(falcor.ImporterError, match=r"Tried: .*nope\.pyscene, .*media/nope\.pyscene"):
            b.importScene("nope.pyscene")
    finally:
        resolver.set_search_paths(saved)
    (tmp_path / "x.unknownext").write_text("")
    with pytest.raises(falcor.ImporterError, match="Unknown file extension"):
        b.importScene(tmp_path / "x.unknownext")
    calls = []
    importers.register_importer(["TestFmt"], lambda path, builder, d: calls.append((path.name, builder, d)))
    (tmp_path / "a.testfmt").write_text("")
    b.importScene(tmp_path / "a.testfmt", {"mat": "m", "skip": 3})
    assert calls == [("a.testfmt", b, {"mat": "m"})]
    assert importers.find_importer(".TESTFMT") is not None and "pyscene" in importers.supported_extensions()
    assert [p.name for p in b.import_paths] == ["x.unknownext", "a.testfmt"]  # recorded before importing, as Falcor


def test_env_map(tmp_path):
    b = SceneBuilder()
    with pytest.raises(falcor.RuntimeError, match="Failed to load environment map"):
        EnvMap(tmp_path / "missing.hdr")
    with pytest.raises(TypeError):
        b.envMap = "sky.hdr"


def test_the_scene_package_does_not_import_the_renderer():
    """falcor.scene is below falcor.renderer (which loads scenes): no import back up."""
    import ast
    from pathlib import Path

    import falcor.scene

    for path in Path(falcor.scene.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").endswith("renderer"), f"{path.name} imports {node.module}"
