"""The USD importer: the USD files of ../shared/assets (OpenUSD's own test scenes) against what they hold,
read off the .usda text by hand, and small stages written here for what those files don't exercise."""
from __future__ import annotations

import importlib.util
import math
import os
import sys
import textwrap

import falcor
import numpy as np
import pytest
from asset_checks import assert_renders_finite, load_both_ways
from shared_files import shared_path

_CI = os.environ.get("CI", "").strip().lower() in ("true", "1")
if importlib.util.find_spec("pxr") is None and not _CI:  # under CI the tests run and fail instead
    pytest.skip('pxr is not installed (pip install "falcor-cpu[usd]")', allow_module_level=True)

from falcor.scene.importers.usd import load_usd


def usd_asset(*parts):
    return shared_path("assets", "usd", *parts)


def write_usdc_mesh(path, positions, indices):
    """A binary USD file holding one triangle mesh (for benchmarks: e.g. a 1M-triangle grid)."""
    from pxr import Usd, UsdGeom, Vt

    stage = Usd.Stage.CreateNew(str(path))
    UsdGeom.SetStageUpAxis(stage, UsdGeom.Tokens.y)
    UsdGeom.SetStageMetersPerUnit(stage, 1.0)
    mesh = UsdGeom.Mesh.Define(stage, "/Mesh")
    indices = np.ascontiguousarray(indices, np.int32).reshape(-1)
    mesh.CreatePointsAttr(Vt.Vec3fArray.FromNumpy(np.ascontiguousarray(positions, np.float32)))
    mesh.CreateFaceVertexCountsAttr(Vt.IntArray.FromNumpy(np.full(len(indices) // 3, 3, np.int32)))
    mesh.CreateFaceVertexIndicesAttr(Vt.IntArray.FromNumpy(indices))
    mesh.CreateSubdivisionSchemeAttr("none")
    stage.GetRootLayer().Save()
    return path


def grid(n: int):
    """(positions, triangle indices) of an n x n quad grid: 2 n^2 triangles."""
    ij = np.stack(np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij"), -1).reshape(-1, 2)
    positions = np.column_stack([ij[:, 0], np.zeros(len(ij)), ij[:, 1]]).astype(np.float32) / n
    a = (np.arange(n)[:, None] * (n + 1) + np.arange(n)[None, :]).reshape(-1)
    quads = np.stack([a, a + n + 1, a + n + 2, a + 1], 1)
    return positions, np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])


def usda(tmp_path, text: str, name="scene.usda"):
    path = tmp_path / name
    path.write_text("#usda 1.0\n" + textwrap.dedent(text))
    return path


def by_name(items, name):
    (item,) = [i for i in items if i.name == name]
    return item


# --- the shared assets ---------------------------------------------------------------------------------


def test_native_default_spheres_camera_light_and_dome(tmp_path):
    path = usd_asset("nativeDefault.usda")
    scene, _ = load_both_ways(path, tmp_path)
    stats = scene.stats
    # Five implicit Spheres, each Storm's 10 x 10 tessellation: 20 fan triangles + 8 strips of 10 quads.
    assert (stats["meshCount"], stats["meshInstanceCount"], stats["uniqueTriangleCount"]) == (5, 5, 5 * 180)
    assert stats["uniqueVertexCount"] == 5 * 92 and stats["materialCount"] == 5
    for k, roughness in enumerate((0.0, 0.25, 0.5, 0.75, 1.0), start=1):
        material = by_name(scene.materials, f"/Materials/USD_Default_0{k}")
        assert material.roughness == pytest.approx(roughness, abs=1e-3)
        assert material.metallic == 0
        # diffuseColor is not authored: UsdPreviewSurface's fallback 0.18 (Falcor would read black).
        np.testing.assert_allclose(np.asarray(material.baseColor)[:3], 0.18, atol=1e-3)
    # No metersPerUnit: USD's fallback is centimetres, scaled by 0.01 as in Falcor. Z-up stage: the camera
    # at (0, 0, 35) rotated 90 degrees about X sits at USD (0, -35, 0), so at Falcor (0, 0, 0.35) looking
    # down -Z; USD's default lens: focal length 50, vertical aperture 15.2908.
    (camera,) = scene.cameras
    np.testing.assert_allclose(camera.position, [0, 0, 0.35], atol=1e-6)
    direction = np.asarray(camera.target) - np.asarray(camera.position)
    np.testing.assert_allclose(direction / np.linalg.norm(direction), [0, 0, -1], atol=1e-6)
    assert camera.focalLength == pytest.approx(50) and camera.frameHeight == pytest.approx(15.2908, rel=1e-5)
    # Spheres of radius 1 at x = -5 ... 5 along USD's X (Falcor's X too), in centimetres.
    # The rings lie in USD's XY plane with a point every 36 degrees: along USD's Y (Falcor's -Z) they
    # reach sin(72 degrees) of the radius.
    reach = 0.01 * math.sin(math.radians(72))
    np.testing.assert_allclose(scene.bounds.minPoint, [-0.06, -0.01, -reach], atol=1e-6)
    np.testing.assert_allclose(scene.bounds.maxPoint, [0.06, 0.01, reach], atol=1e-6)
    (light,) = scene.lights
    assert isinstance(light, falcor.SphereLight)
    np.testing.assert_allclose(light.intensity, [5, 5, 5])
    np.testing.assert_allclose(light._trans_mat()[:3, 3], [0, 0, 0.5], atol=1e-6)  # USD (0, -50, 0) cm
    np.testing.assert_allclose(light._axis_lengths(), [0.25, 0.25, 0.25])
    env = scene.envMap
    assert env is not None and env.path.name == "StinsonBeach.hdr"
    # The dome's world rotation is the identity (rotateX 90 in a Z-up stage), so its lat-long texture has
    # +Y up as Falcor's; USD puts longitude 0 on +Z and Falcor the image centre on -Z: 180 degrees about Y.
    from falcor.scene.envmap import rotation_xyz
    np.testing.assert_allclose(rotation_xyz(env.rotation), np.diag([-1.0, 1.0, -1.0]), atol=1e-6)
    assert_renders_finite(scene)


def test_native_metallic_gold(tmp_path):
    scene, _ = load_both_ways(usd_asset("nativeMetallic.usda"), tmp_path)
    gold = by_name(scene.materials, "/Materials/USD_Gold_01")
    np.testing.assert_allclose(np.asarray(gold.baseColor)[:3], [0.944, 0.776, 0.373], atol=2e-3)
    assert gold.metallic == pytest.approx(1) and gold.roughness == pytest.approx(0)
    assert gold.indexOfRefraction == pytest.approx(50, rel=1e-3)
    assert scene.stats["meshCount"] == 5
    assert_renders_finite(scene)


def test_native_emissive(tmp_path):
    scene, _ = load_both_ways(usd_asset("nativeEmissive.usda"), tmp_path)
    material = by_name(scene.materials, "/Materials/USD_Emissive_03")
    np.testing.assert_allclose(np.asarray(material.emissiveColor), [0.2, 0.7, 0.0], atol=1e-3)
    np.testing.assert_allclose(np.asarray(material.baseColor)[:3], [0.7, 0.2, 0.0], atol=2e-3)
    assert material.roughness == pytest.approx(0.5, abs=1e-3)
    assert_renders_finite(scene)


def test_native_normal_map_planes_lights_and_camera(tmp_path):
    path = usd_asset("nativeNormalMap.usda")
    scene, _ = load_both_ways(path, tmp_path)
    assert (scene.stats["meshCount"], scene.stats["uniqueTriangleCount"]) == (2, 4)
    (material,) = scene.materials
    normal_map = material.getTexture(falcor.MaterialTextureSlot.Normal)
    assert normal_map is not None and normal_map.width > 0
    np.testing.assert_allclose(np.asarray(material.baseColor)[:3], 0.2, atol=1e-3)
    red, blue = by_name(scene.lights, "LeftRed"), by_name(scene.lights, "RightBlue")
    np.testing.assert_allclose(red.intensity, [40, 0, 0])
    np.testing.assert_allclose(blue.intensity, [0, 0, 40])
    np.testing.assert_allclose(red._trans_mat()[:3, 3], [-0.015, 0, 0.01])  # Y-up stage, centimetres
    (camera,) = scene.cameras
    # focalLength 35 and horizontalAperture 36 (authored, so the frame width), clippingRange (0.1, 10000).
    assert camera.focalLength == pytest.approx(35) and camera.frameWidth == pytest.approx(36)
    assert (camera.nearPlane, camera.farPlane) == (pytest.approx(0.001), pytest.approx(100))
    assert camera.apertureRadius == pytest.approx(0.001 * 0.5 * 35 / 4.5)  # fStop 4.5, Falcor's formula
    np.testing.assert_allclose(camera.position, [0, -0.013, 0.08], atol=1e-6)
    # The planes' st (0,0) (1,0) (1,1) (0,1) on corners (-1,-1) (1,-1) (1,1) (-1,1) (in the mesh's own
    # units): v flips to the top-left origin.
    ir = load_usd(path)
    mesh = ir.meshes[0]
    for p, uv in zip(mesh.positions, mesh.texcoords):
        np.testing.assert_allclose(uv, [(p[0] + 1) / 2, 1 - (p[1] + 1) / 2], atol=1e-6)
    assert_renders_finite(scene)


def test_native_opacity_to_transmission_and_cutout(tmp_path):
    scene, _ = load_both_ways(usd_asset("nativeOpacity.usda"), tmp_path)
    clear = by_name(scene.materials, "/Materials/USD_Opacity_01")  # opacity 0, no threshold
    assert clear.specularTransmission == pytest.approx(1.0)
    assert clear.indexOfRefraction == pytest.approx(1.52, rel=1e-3)  # stored in half precision
    high_ior = by_name(scene.materials, "/Materials/USD_Opacity_05")
    assert high_ior.indexOfRefraction == pytest.approx(25, rel=1e-3)
    assert high_ior.specularTransmission == pytest.approx(0.9999, abs=1e-3)
    cutout = by_name(scene.materials, "/Materials/USD_Opacity_06")  # opacity 0.1, threshold 0.1
    assert cutout.alphaThreshold == pytest.approx(0.1, abs=1e-3)
    assert float(np.asarray(cutout.baseColor)[3]) == pytest.approx(0.1, abs=1e-3)
    assert cutout.specularTransmission == 0
    assert scene.stats["meshCount"] == 7
    assert_renders_finite(scene)


def test_instancing_cube_without_binding_uses_display_color(tmp_path):
    scene, _ = load_both_ways(usd_asset("instancing", "cube.usda"), tmp_path)
    (material,) = scene.materials
    np.testing.assert_allclose(np.asarray(material.baseColor)[:3], 0.5, atol=1e-3)  # primvars:displayColor
    assert material.roughness == pytest.approx(0.3, abs=1e-3)
    assert (scene.stats["meshCount"], scene.stats["uniqueTriangleCount"]) == (1, 12)


def test_two_instances_share_one_mesh_and_the_prototype_material(tmp_path):
    scene, _ = load_both_ways(usd_asset("instancing", "ni_2instances_shaded.usda"), tmp_path)
    stats = scene.stats
    assert (stats["meshCount"], stats["meshInstanceCount"], stats["materialCount"]) == (1, 2, 1)
    (red,) = scene.materials
    np.testing.assert_allclose(np.asarray(red.baseColor)[:3], [1, 0, 0], atol=1e-3)
    assert red.metallic == pytest.approx(0.1, abs=1e-3)
    # Instances at x = -3 and 3 of a 2-wide cube (Z-up: X stays X), centimetres.
    np.testing.assert_allclose(scene.bounds.minPoint[0], -0.04, atol=1e-6)
    np.testing.assert_allclose(scene.bounds.maxPoint[0], 0.04, atol=1e-6)
    assert_renders_finite(scene)


def test_nested_instances_resolve_material_bindings_as_the_file_says(tmp_path):
    """The file's own comment: columns OuterInstanceA / Inner / OuterInstanceB, rows top to bottom:
    Cyan Green Green / Cyan Green Green / Cyan Red Red."""
    path = usd_asset("instancing", "ni_ni_material_binding_resolution.usda")
    scene, _ = load_both_ways(path, tmp_path)
    assert scene.stats["meshInstanceCount"] == 9
    ir = load_usd(path)
    colours = {}
    for index, node in enumerate(ir.nodes):
        for mesh in node.meshes:
            x, y = ir.world_matrix(index)[:2, 3] * 100  # centimetres
            colours[(round(x), round(y))] = tuple(round(c, 2) for c in ir.materials[ir.meshes[mesh].material].base_color[:3])
    cyan, green, red = (0.0, 0.7, 0.7), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)
    expected = {(-3, 3): cyan, (0, 3): green, (3, 3): green, (-3, 0): cyan, (0, 0): green, (3, 0): green,
                (-3, -3): cyan, (0, -3): red, (3, -3): red}
    assert colours == expected
    # Two prototypes, each mesh shared by the instances that resolve to the same material.
    assert len(ir.meshes) == 6
    (sun,) = [light for light in scene.lights if isinstance(light, falcor.DistantLight)]
    np.testing.assert_allclose(sun.direction, [0, 0, -1], atol=1e-6)  # default direction, Y-up stage
    assert sun.angle == pytest.approx(0.5 * math.radians(0.53))  # UsdLux's default angle, halved as Falcor
    assert_renders_finite(scene)


def test_layers_and_textures_read_by_pxr_are_recorded():
    from falcor.scene.asset_log import recording_assets

    instancing = usd_asset("instancing", "ni_2instances_shaded.usda")
    with recording_assets() as files:
        load_usd(instancing)
    assert {str(instancing), str(instancing.parent / "cubeShaded.usda")} <= files
    normal_map = usd_asset("nativeNormalMap.usda")
    with recording_assets() as files:
        load_usd(normal_map)
    assert str(normal_map.parent / "mtlxFiles" / "normalMap.png") in files
    with recording_assets() as files:
        load_usd(usd_asset("nativeDefault.usda"))
    assert str(usd_asset("StinsonBeach.hdr")) in files


# --- small stages for what the assets don't exercise ------------------------------------------------------


def test_implicit_prims_vertices_follow_storms_generators(tmp_path):
    path = usda(tmp_path, """\
        (upAxis = "Y")
        def Sphere "S" {
            double radius = 2
        }
        def Cube "C" {
            double size = 3
        }
        def Cylinder "Y" {
            double radius = 0.5
            double height = 4
            uniform token axis = "X"
        }
        def Cone "K" {
            double radius = 1
            double height = 2
            uniform token axis = "Y"
        }
        def Capsule "P" {
            double radius = 0.5
            double height = 1
        }
        def Plane "L" {
            double width = 4
            double length = 2
        }
        """)
    ir = load_usd(path)
    meshes = {m.name: m for m in ir.meshes}
    sphere = meshes["/S"]
    # 92 points; ring k at latitude (k/10 - 1/2) pi: the first ring has z = 2 sin(-0.4 pi), radius 2 cos(0.4 pi).
    assert len(sphere.indices) == 180
    ring = sphere.positions[np.isclose(sphere.positions[:, 2], 2 * math.sin(-0.4 * math.pi), atol=1e-5)]
    np.testing.assert_allclose(np.hypot(ring[:, 0], ring[:, 1]), 2 * math.cos(0.4 * math.pi), atol=1e-5)
    assert len(ring) == 10 and any(np.allclose(p, [2 * math.cos(0.4 * math.pi), 0, ring[0, 2]], atol=1e-5) for p in ring)
    assert np.isclose(sphere.positions[:, 2].min(), -2) and np.isclose(sphere.positions[:, 2].max(), 2)
    # Smooth normals of a sphere point outwards.
    assert np.all(np.sum(sphere.normals * sphere.positions, axis=1) > 0)
    cube = meshes["/C"]
    assert len(cube.indices) == 12 and np.allclose(np.abs(cube.positions), 1.5)
    cylinder = meshes["/Y"]  # axis X: the spine is X, the rings lie in YZ
    assert np.isclose(cylinder.positions[:, 0].min(), -2) and np.isclose(cylinder.positions[:, 0].max(), 2)
    np.testing.assert_allclose(np.abs(cylinder.positions[:, 1:]).max(), 0.5, atol=1e-6)
    assert len(cylinder.indices) == 10 + 20 + 10
    cone = meshes["/K"]  # axis Y: apex at y = +1, base ring radius 1 at y = -1
    assert np.isclose(cone.positions[:, 1].max(), 1) and np.isclose(cone.positions[:, 1].min(), -1)
    assert len(cone.indices) == 10 + 20
    capsule = meshes["/P"]  # radius 0.5, height 1 along Z: tips at z = +-1
    assert np.isclose(capsule.positions[:, 2].max(), 1) and np.isclose(capsule.positions[:, 2].min(), -1)
    assert len(capsule.indices) == 20 + 7 * 20
    plane = meshes["/L"]
    np.testing.assert_allclose(np.ptp(plane.positions, axis=0), [4, 2, 0])
    np.testing.assert_allclose(plane.normals, np.tile([0, 0, 1], (len(plane.normals), 1)))


def test_mesh_primvars_winding_subdivision_and_subsets(tmp_path):
    path = usda(tmp_path, """\
        (upAxis = "Y")
        def Mesh "Quad" {
            int[] faceVertexCounts = [4]
            int[] faceVertexIndices = [0, 1, 2, 3]
            point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
            normal3f[] primvars:normals = [(0, 0, 1)] (interpolation = "constant")
            texCoord2f[] primvars:uvs = [(0, 0), (1, 0), (1, 1), (0, 1)] (interpolation = "faceVarying")
            uniform token subdivisionScheme = "none"
        }
        def Mesh "Left" {
            int[] faceVertexCounts = [3]
            int[] faceVertexIndices = [0, 1, 2]
            point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
            uniform token orientation = "leftHanded"
            uniform token subdivisionScheme = "none"
        }
        def Mesh "Cage" {
            int refinementLevel = 1
            int[] faceVertexCounts = [4, 4, 4, 4, 4, 4]
            int[] faceVertexIndices = [0, 1, 2, 3, 4, 5, 6, 7, 0, 6, 5, 1, 4, 7, 3, 2, 0, 3, 7, 6, 4, 2, 1, 5]
            point3f[] points = [(1, 1, 1), (-1, 1, 1), (-1, -1, 1), (1, -1, 1), (-1, -1, -1), (-1, 1, -1), (1, 1, -1), (1, -1, -1)]
        }
        def Mesh "Split" (prepend apiSchemas = ["MaterialBindingAPI"]) {
            int[] faceVertexCounts = [3, 3]
            int[] faceVertexIndices = [0, 1, 2, 0, 2, 3]
            point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
            uniform token subdivisionScheme = "none"
            rel material:binding = </M/Red>
            def GeomSubset "Second" (prepend apiSchemas = ["MaterialBindingAPI"]) {
                uniform token elementType = "face"
                uniform token familyName = "materialBind"
                int[] indices = [1]
                rel material:binding = </M/Blue>
            }
        }
        def Scope "M" {
            def Material "Red" {
                token outputs:surface.connect = </M/Red/S.outputs:surface>
                def Shader "S" {
                    uniform token info:id = "UsdPreviewSurface"
                    color3f inputs:diffuseColor = (1, 0, 0)
                    token outputs:surface
                }
            }
            def Material "Blue" {
                token outputs:surface.connect = </M/Blue/S.outputs:surface>
                def Shader "S" {
                    uniform token info:id = "UsdPreviewSurface"
                    color3f inputs:diffuseColor = (0, 0, 1)
                    token outputs:surface
                }
            }
        }
        """)
    ir = load_usd(path)
    quad = next(m for m in ir.meshes if m.name == "/Quad")
    assert len(quad.indices) == 2
    np.testing.assert_allclose(quad.normals, np.tile([0, 0, 1], (len(quad.normals), 1)))
    for p, uv in zip(quad.positions, quad.texcoords):  # a texCoord2f primvar of any name, v flipped
        np.testing.assert_allclose(uv, [p[0], 1 - p[1]], atol=1e-6)
    left = next(m for m in ir.meshes if m.name == "/Left")
    a, b, c = left.positions[left.indices[0]]
    assert np.cross(b - a, c - a)[2] < 0  # leftHanded: clockwise seen from +Z is the front
    assert np.allclose(left.normals, [0, 0, -1])
    cage = next(m for m in ir.meshes if m.name == "/Cage")
    assert len(cage.indices) == 24 * 2  # one Catmull-Clark step: 6 quads -> 24
    # A cube corner of valence 3 moves to (F + 2R) / 3 with F the mean of its face centres (1/3, 1/3, 1/3)
    # and R the mean of its edge midpoints (2/3, 2/3, 2/3): (5/9, 5/9, 5/9).
    assert any(np.allclose(p, [5 / 9] * 3, atol=1e-6) for p in cage.positions)
    split = sorted((m for m in ir.meshes if m.name.startswith("/Split")), key=lambda m: m.name)
    colours = sorted(tuple(ir.materials[m.material].base_color[:3]) for m in split)
    assert colours == [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0)] and all(len(m.indices) == 1 for m in split)


def test_units_up_axis_animation_camera_and_lights(tmp_path):
    path = usda(tmp_path, """\
        (
            upAxis = "Z"
            metersPerUnit = 0.01
            timeCodesPerSecond = 10
        )
        def Xform "Mover" {
            double3 xformOp:translate.timeSamples = { 0: (0, 0, 0), 20: (100, 0, 0) }
            uniform token[] xformOpOrder = ["xformOp:translate"]
            def Camera "Cam" {
                float focalLength = 20
                float verticalAperture = 10
                float2 clippingRange = (1, 1000)
            }
            def Cube "Box" {
                double size = 100
            }
        }
        def RectLight "Rect" {
            float inputs:width = 200
            float inputs:height = 100
            float inputs:intensity = 2
            float inputs:exposure = 1
        }
        def DiskLight "Disk" {
            float inputs:radius = 50
            color3f inputs:color = (1, 0.5, 0.25)
        }
        def SphereLight "Point" {
            bool treatAsPoint = 1
            double3 xformOp:translate = (0, 0, 300)
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        def BasisCurves "Hair" {
            int[] curveVertexCounts = [2]
            point3f[] points = [(0, 0, 0), (0, 0, 1)]
        }
        """)
    scene = falcor.load_scene(path)
    # metersPerUnit 0.01: the 100-unit cube is 1 m; Z-up rotated to Y-up.
    np.testing.assert_allclose(np.asarray(scene.bounds.maxPoint) - np.asarray(scene.bounds.minPoint), [1, 1, 1], atol=1e-5)
    (animation,) = [a for a in scene.animations if "Mover" in a.name]
    assert animation.duration == pytest.approx(2.0)  # time code 20 at 10 per second
    (camera,) = scene.cameras
    assert camera.focalLength == pytest.approx(20) and camera.frameHeight == pytest.approx(10)
    assert (camera.nearPlane, camera.farPlane) == (pytest.approx(0.01), pytest.approx(10))
    assert len([a for a in scene.animations if a.name == "Cam"]) == 1  # the camera follows its animated parent
    rect = by_name(scene.lights, "Rect")
    np.testing.assert_allclose(rect.intensity, [4, 4, 4])  # 2 * 2^1
    np.testing.assert_allclose(sorted(rect._axis_lengths()), sorted([1.0, 0.5, 0.01]), atol=1e-6)  # half of 2 m x 1 m
    np.testing.assert_allclose(by_name(scene.lights, "Disk").intensity, [1, 0.5, 0.25])
    point = by_name(scene.lights, "Point")
    assert isinstance(point, falcor.PointLight)
    np.testing.assert_allclose(point.position, [0, 3, 0], atol=1e-6)  # USD z = 300 cm up
    assert_renders_finite(scene)


def test_point_instancer_instances_one_mesh(tmp_path):
    path = usda(tmp_path, """\
        (
            upAxis = "Y"
            metersPerUnit = 1
        )
        def PointInstancer "Field" {
            rel prototypes = [</Field/Protos/Ball>]
            int[] protoIndices = [0, 0, 0]
            point3f[] positions = [(0, 0, 0), (5, 0, 0), (10, 0, 0)]
            def Scope "Protos" {
                def Sphere "Ball" {
                    double radius = 1
                }
            }
        }
        """)
    scene = falcor.load_scene(path)
    assert (scene.stats["meshCount"], scene.stats["meshInstanceCount"]) == (1, 3)
    np.testing.assert_allclose(scene.bounds.maxPoint[0], 11, atol=1e-5)


def test_textured_roughness_and_metallic_combine_into_the_specular_texture(tmp_path):
    from PIL import Image

    rough, metal = np.uint8([[51, 102], [153, 204]]), np.uint8([[204, 0], [0, 204]])  # not constant: kept as textures
    Image.fromarray(rough).save(tmp_path / "rough.png")
    Image.fromarray(metal).save(tmp_path / "metal.png")
    path = usda(tmp_path, """\
        (upAxis = "Y")
        def Sphere "S" (prepend apiSchemas = ["MaterialBindingAPI"]) {
            rel material:binding = </M>
        }
        def Material "M" {
            token outputs:surface.connect = </M/S.outputs:surface>
            def Shader "S" {
                uniform token info:id = "UsdPreviewSurface"
                float inputs:roughness.connect = </M/R.outputs:r>
                float inputs:metallic.connect = </M/T.outputs:r>
                token outputs:surface
            }
            def Shader "R" {
                uniform token info:id = "UsdUVTexture"
                asset inputs:file = @rough.png@
                float outputs:r
            }
            def Shader "T" {
                uniform token info:id = "UsdUVTexture"
                asset inputs:file = @metal.png@
                float outputs:r
            }
        }
        """)
    scene = falcor.load_scene(path)
    (material,) = scene.materials
    from helpers import read_texture

    texels = read_texture(material.getTexture(falcor.MaterialTextureSlot.Specular))
    # Falcor's specular texture of a metal-rough material: G roughness, B metallic.
    np.testing.assert_allclose(texels[:, :, 1], rough, atol=1)
    np.testing.assert_allclose(texels[:, :, 2], metal, atol=1)


def test_warnings_name_file_and_prim_for_what_is_skipped(tmp_path, capfd):
    path = usda(tmp_path, """\
        def BasisCurves "Hair" {
            int[] curveVertexCounts = [2]
            point3f[] points = [(0, 0, 0), (0, 0, 1)]
        }
        def Sphere "S" {}
        """)
    falcor.load_scene(path)
    out = capfd.readouterr().out
    assert str(path) in out and "/Hair" in out and "BasisCurves" in out


def test_missing_pxr_names_the_file_and_the_extra(tmp_path, monkeypatch):
    path = usda(tmp_path, 'def Sphere "S" {}\n')
    monkeypatch.setitem(sys.modules, "pxr", None)
    with pytest.raises(falcor.ImporterError) as raised:
        falcor.load_scene(path)
    assert str(path) in str(raised.value) and 'pip install "falcor-cpu[usd]"' in str(raised.value)


def test_unreadable_file_names_the_file_and_pxrs_reason(tmp_path):
    path = tmp_path / "broken.usda"
    path.write_text("#usda 1.0\ndef Sphere \"S\" {\n  double radius = \n")
    with pytest.raises(falcor.ImporterError) as raised:
        falcor.load_scene(path)
    assert str(path) in str(raised.value) and "pxr" in str(raised.value)


def test_write_usdc_mesh_round_trips(tmp_path):
    positions, indices = grid(8)
    path = write_usdc_mesh(tmp_path / "grid.usdc", positions, indices)
    scene = falcor.load_scene(path)
    assert (scene.stats["meshCount"], scene.stats["uniqueTriangleCount"]) == (1, 128)
    np.testing.assert_allclose(np.asarray(scene.bounds.maxPoint), [1, 0, 1], atol=1e-6)


@pytest.mark.parametrize("through_reference", [False, True])
def test_deep_nesting_is_refused_before_pxr_parses_it(tmp_path, through_reference):
    """pxr's text parser crashes (stack overflow) on some 60,000 nested prims; the importer refuses
    text layers nested over 10,000 levels, the root's and those it brings in, before pxr reads them."""
    depth = 60_000
    deep = tmp_path / "deep.usda"
    deep.write_text("#usda 1.0\n" + 'def Xform "n" {\n' * depth + "}\n" * depth)
    path = usda(tmp_path, 'def Xform "Root" (references = @deep.usda@</n>) {\n}\n', "root.usda") if through_reference else deep
    with pytest.raises(falcor.ImporterError) as raised:
        load_usd(path)
    assert str(path) in str(raised.value) and "10000 levels" in str(raised.value)
    if through_reference:
        assert "deep.usda" in str(raised.value)


def test_usdz_package_textures_are_read_from_the_archive(tmp_path):
    from falcor.scene.asset_log import recording_assets
    from helpers import read_texture
    from PIL import Image
    from pxr import UsdUtils

    texels = np.uint8([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [255, 255, 255]]])
    Image.fromarray(texels).save(tmp_path / "checker.png")
    source = usda(tmp_path, """\
        (
            upAxis = "Y"
            metersPerUnit = 1
        )
        def Cube "Box" (prepend apiSchemas = ["MaterialBindingAPI"]) {
            rel material:binding = </M>
        }
        def Material "M" {
            token outputs:surface.connect = </M/S.outputs:surface>
            def Shader "S" {
                uniform token info:id = "UsdPreviewSurface"
                color3f inputs:diffuseColor.connect = </M/T.outputs:rgb>
                token outputs:surface
            }
            def Shader "T" {
                uniform token info:id = "UsdUVTexture"
                asset inputs:file = @checker.png@
                float3 outputs:rgb
            }
        }
        """, "box.usda")
    package = tmp_path / "box.usdz"
    assert UsdUtils.CreateNewUsdzPackage(str(source), str(package))
    (tmp_path / "checker.png").unlink()  # only the copy inside the package is left
    with recording_assets() as files:
        scene = falcor.load_scene(package)
    (material,) = scene.materials
    np.testing.assert_array_equal(read_texture(material.getTexture(falcor.MaterialTextureSlot.BaseColor))[:, :, :3], texels)
    assert str(package) in files


def test_dome_rotation_shows_the_texture_as_usd_does(tmp_path):
    """A dome turned 90 degrees about Y (Y-up stage): the texel USD shows along the dome's local -Z
    (longitude 0 at u = 0, Storm's ProjectToLatLong) now lies along world -X; Falcor's lat-long lookup
    (u = 0.5 + atan2(x, -z) / 2 pi on the env map's local direction) must find u = 0 there too."""
    from falcor.scene.envmap import rotation_xyz
    from PIL import Image

    Image.fromarray(np.zeros((4, 8, 3), np.uint8)).save(tmp_path / "sky.png")
    path = usda(tmp_path, """\
        (upAxis = "Y")
        def DomeLight "Dome" {
            asset inputs:texture:file = @sky.png@
            float inputs:intensity = 2
            float inputs:exposure = 1
            float xformOp:rotateY = 90
            uniform token[] xformOpOrder = ["xformOp:rotateY"]
        }
        """)
    env = load_usd(path).env_map
    assert env.intensity == pytest.approx(4)
    local = rotation_xyz(env.rotation).T @ np.array([-1.0, 0.0, 0.0])  # the lookup uses the inverse rotation
    u = 0.5 + math.atan2(local[0], -local[2]) / (2 * math.pi)
    assert u % 1.0 == pytest.approx(0.0, abs=1e-6) or u % 1.0 == pytest.approx(1.0, abs=1e-6)
    assert local[1] == pytest.approx(0.0, abs=1e-6)


def test_a_fifo_brought_in_as_a_layer_is_refused(tmp_path):
    os.mkfifo(tmp_path / "pipe.usda")
    path = usda(tmp_path, 'def Xform "A" (references = @pipe.usda@) {\n}\n', "root.usda")
    with pytest.raises(falcor.ImporterError) as raised:
        load_usd(path)
    assert str(path) in str(raised.value) and "not a regular file" in str(raised.value)


def test_point_instancer_copies_a_prototype_subtree(tmp_path):
    path = usda(tmp_path, """\
        (
            upAxis = "Y"
            metersPerUnit = 1
        )
        def PointInstancer "Field" {
            rel prototypes = [</Field/Protos/Pair>]
            int[] protoIndices = [0, 0, 0, 0]
            point3f[] positions = [(0, 0, 0), (10, 0, 0), (20, 0, 0), (30, 0, 0)]
            int64[] invisibleIds = [3]
            def Scope "Protos" {
                def Xform "Pair" {
                    double3 xformOp:translate = (0, 5, 0)
                    uniform token[] xformOpOrder = ["xformOp:translate"]
                    def Sphere "Left" {
                        double radius = 1
                    }
                    def Cube "Right" {
                        double size = 2
                        double3 xformOp:translate = (3, 0, 0)
                        uniform token[] xformOpOrder = ["xformOp:translate"]
                    }
                }
            }
        }
        """)
    ir = load_usd(path)
    placed = sorted((tuple(np.round(ir.world_matrix(i)[:3, 3], 6)), len(node.meshes))
                    for i, node in enumerate(ir.nodes) if node.meshes)
    # Three visible instances (id 3 is invisible), each with the sphere at the pair's (0, 5, 0) and the cube 3 further.
    assert placed == sorted([((x, 5.0, 0.0), 1) for x in (0.0, 10.0, 20.0)] + [((x + 3, 5.0, 0.0), 1) for x in (0.0, 10.0, 20.0)])
    assert len(ir.meshes) == 2


def test_lights_and_cameras_follow_animated_parents_on_their_arcs(tmp_path):
    path = usda(tmp_path, """\
        (
            upAxis = "Y"
            metersPerUnit = 1
            timeCodesPerSecond = 24
        )
        def Xform "Rig" {
            float xformOp:rotateY.timeSamples = { 0: 0, 48: 90 }
            uniform token[] xformOpOrder = ["xformOp:rotateY"]
            def RectLight "Panel" {
                float inputs:width = 2
                float inputs:height = 1
                double3 xformOp:translate = (0, 0, 5)
                uniform token[] xformOpOrder = ["xformOp:translate"]
            }
        }
        def Camera "Cam" {
            double3 xformOp:translate.timeSamples = { 0: (0, 0, 10), 24: (0, 0, 20) }
            uniform token[] xformOpOrder = ["xformOp:translate"]
        }
        """)
    scene = falcor.load_scene(path)
    durations = {a.name: a.duration for a in scene.animations}
    assert durations["/Rig.0"] == pytest.approx(2.0) and durations["/Cam.0"] == pytest.approx(1.0)  # per node, as Falcor
    (camera,), (panel,) = scene.cameras, scene.lights
    scene.update(0.5)
    np.testing.assert_allclose(camera.position, [0, 0, 15], atol=1e-5)
    # 22.5 degrees about Y at 0.5 s: the panel at 5 (sin, 0, cos), on the arc (a chord would give (1.25, 0, 3.75)).
    angle = math.radians(22.5)
    np.testing.assert_allclose(panel._trans_mat()[:3, 3], [5 * math.sin(angle), 0, 5 * math.cos(angle)], atol=1e-4)


def test_texture_transform_is_baked_into_the_meshes_coordinates(tmp_path):
    from PIL import Image

    Image.fromarray(np.uint8([[0, 255], [255, 0]])).save(tmp_path / "checker.png")
    path = usda(tmp_path, """\
        (upAxis = "Y")
        def Mesh "Quad" (prepend apiSchemas = ["MaterialBindingAPI"]) {
            int[] faceVertexCounts = [4]
            int[] faceVertexIndices = [0, 1, 2, 3]
            point3f[] points = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)]
            texCoord2f[] primvars:st = [(0, 0), (1, 0), (1, 1), (0, 1)] (interpolation = "vertex")
            uniform token subdivisionScheme = "none"
            rel material:binding = </M>
        }
        def Material "M" {
            token outputs:surface.connect = </M/S.outputs:surface>
            def Shader "S" {
                uniform token info:id = "UsdPreviewSurface"
                color3f inputs:diffuseColor.connect = </M/T.outputs:rgb>
                token outputs:surface
            }
            def Shader "T" {
                uniform token info:id = "UsdUVTexture"
                asset inputs:file = @checker.png@
                float2 inputs:st.connect = </M/X.outputs:result>
                float3 outputs:rgb
            }
            def Shader "X" {
                uniform token info:id = "UsdTransform2d"
                float2 inputs:scale = (2, 3)
                float inputs:rotation = 90
                float2 inputs:translation = (0.5, 0)
                float2 outputs:result
            }
        }
        """)
    (mesh,) = load_usd(path).meshes
    for p, uv in zip(mesh.positions, mesh.texcoords):
        s, t = 2 * p[0], 3 * p[1]  # scaled, then rotated 90 degrees: (s, t) -> (-t, s), then translated
        np.testing.assert_allclose(uv, [-t + 0.5, 1 - s], atol=1e-6)
