"""The Assimp importer (FBX, Collada and Falcor's other Assimp formats): every FBX and Collada file in
../shared/assets loaded through load_scene and a pyscene, checked against values read from the files
themselves (by hand, or with tests/scene/fbx_binary.py), rendered finite; plus small files written here
for what the assets don't exercise."""
from __future__ import annotations

import base64
import io
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import falcor
from falcor.scene.importers import assimp
from falcor.scene.material import MaterialTextureSlot, ShadingModel
from falcor.scene.scene_builder import SceneBuilderFlags

import fbx_binary
from asset_checks import assert_renders_finite, builder_world, imported, load_both_ways
from helpers import read_texture
from shared_files import shared_path


def fbx_asset(name: str) -> Path:
    return Path(shared_path("assets", "fbx", name))


def dae_asset(name: str) -> Path:
    return Path(shared_path("assets", "collada", name))


def world_vertices(builder) -> np.ndarray:
    """Every mesh instance's vertices in world space."""
    points = []
    for index, node in enumerate(builder.nodes):
        for mesh_id in node.mesh_ids:
            p = np.asarray(builder.meshes[mesh_id].positions, np.float64)
            points.append(p @ builder_world(builder, index)[:3, :3].T + builder_world(builder, index)[:3, 3])
    return np.concatenate(points)


def same_point_sets(a: np.ndarray, b: np.ndarray, tol: float):
    """Every point of a is within tol of one of b and the other way round."""
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    assert d.min(axis=1).max() < tol and d.min(axis=0).max() < tol


# --- every shared asset: counts from the files, both ways in, finite render ---------------------

# (meshes, instances, unique triangles, materials, cameras, lights): triangles are the file's polygons
# triangulated (box: 6 quads; phong_cube: 6 quads; maxPbr: 6 quads; cubes: 3 x 6 quads + 1 x 192 quads;
# teapot: one <triangles count="1024"> used by two nodes; skeleton: 1056 quads).
ASSETS = {
    "box.fbx": (1, 1, 12, 1, 0, 0),
    "phong_cube.fbx": (1, 1, 12, 1, 0, 0),
    "maxPbrMaterial_metalRough.fbx": (1, 1, 12, 1, 0, 0),
    "box_orphant_embedded_texture.fbx": (1, 1, 12, 1, 0, 0),
    "cubes_with_mirroring_and_pivot.fbx": (3, 4, 408, 2, 0, 0),
    "animation_with_skeleton.fbx": (1, 1, 2112, 1, 1, 1),
    "teapot_instancenodes.DAE": (1, 2, 1024, 1, 0, 0),
    "box_nested_animation.dae": (1, 1, 12, 1, 0, 0),
}


@pytest.mark.parametrize("name", sorted(ASSETS))
def test_shared_asset_loads_both_ways_and_renders(name, tmp_path):
    path = dae_asset(name) if name.lower().endswith(".dae") else fbx_asset(name)
    scene, _ = load_both_ways(path, tmp_path)
    meshes, instances, triangles, materials, cameras, lights = ASSETS[name]
    stats = scene.stats
    assert (stats["meshCount"], stats["meshInstanceCount"], stats["uniqueTriangleCount"], stats["materialCount"]) == \
        (meshes, instances, triangles, materials)
    assert (len(imported(path).cameras), stats["totalLightCount"]) == (cameras, lights)  # the scene adds a default camera
    assert_renders_finite(scene)


# --- materials against the files' Properties70 ----------------------------------------------------


def fbx_material_properties(path: Path) -> dict:
    objects = next(r for r in fbx_binary.read(path.read_bytes()) if r.name == "Objects")
    return {m.props[1][1].split(b"\0")[0].decode(): fbx_binary.properties70(m) for m in objects.find("Material")}


def test_fbx_phong_material_as_falcor_maps_it():
    p = fbx_material_properties(fbx_asset("phong_cube.fbx"))["phong1"]
    m = imported(fbx_asset("phong_cube.fbx")).getMaterial("phong1")
    assert m.shadingModel == ShadingModel.MetalRough  # Falcor's choice for every Assimp format but OBJ
    diffuse = np.multiply(p["DiffuseColor"], p["DiffuseFactor"])  # (1, .5, .5) x .5
    assert list(m.baseColor) == pytest.approx([*diffuse, p["Opacity"][0]], abs=1e-3)
    assert m.specularTransmission == pytest.approx(1 - p["Opacity"][0])  # opacity .5 < 1
    # Falcor copies the specular colour and the shininess into specularParams as they are
    assert list(m.specularParams) == pytest.approx([*p["SpecularColor"], p["ShininessExponent"][0]], rel=1e-3)
    assert list(m.emissiveColor) == pytest.approx(np.multiply(p["EmissiveColor"], p["EmissiveFactor"]), abs=1e-3)
    assert not m.doubleSided


def test_fbx_box_material():
    p = fbx_material_properties(fbx_asset("box.fbx"))["Material_50"]
    b = imported(fbx_asset("box.fbx"))
    (m,) = b.materials
    assert m.name == "Material_50"
    assert list(m.baseColor) == pytest.approx([*p["DiffuseColor"], 1.0], abs=1e-3)
    assert m.specularTransmission == 0.0


def test_fbx_embedded_texture_is_loaded_from_the_file(capfd):
    path = fbx_asset("box_orphant_embedded_texture.fbx")
    text = path.read_text(errors="replace")
    assert '"..\\Primitives\\GridGrey.tga"' in text  # the texture's file is not beside the FBX: only its copy inside
    content = re.search(r'Content: ,?\s*"([A-Za-z0-9+/=\s]+)"', text).group(1)
    expected = np.asarray(Image.open(io.BytesIO(base64.b64decode(content))).convert("RGBA"))
    (m,) = imported(path).materials
    texture = m.getTexture(MaterialTextureSlot.BaseColor)
    assert texture is not None
    texels = read_texture(texture)
    assert texels.shape[:2] == expected.shape[:2]
    np.testing.assert_array_equal(texels[..., :3], expected[..., :3])


# --- transforms: FBX pivots and mirroring, Collada instances ----------------------------------------


def fbx_ascii_models(text: str):
    """Models (id -> name, Properties70 numbers), geometries (id -> vertices) and OO connections."""
    models, geometries = {}, {}
    for m in re.finditer(r'Model: (\d+), "Model::(\w+)", "Mesh" \{(.*?)\n\t\}', text, re.S):
        props = {p.group(1): [float(v) for v in p.group(2).split(",")]
                 for p in re.finditer(r'P: "([^"]+)", "[^"]*", "[^"]*", "A?",(-?[\d.]+(?:e-?\d+)?(?:,-?[\d.]+(?:e-?\d+)?)*)\s*$',
                                      m.group(3), re.M)}
        models[m.group(1)] = (m.group(2), props)
    for g in re.finditer(r'Geometry: (\d+), "Geometry::", "Mesh" \{\s*Vertices: \*\d+ \{\s*a: ([^}]+)', text):
        geometries[g.group(1)] = np.array([float(v) for v in g.group(2).replace("\n", "").split(",")]).reshape(-1, 3)
    connections = re.findall(r'C: "OO",(\d+),(\d+)', text)
    return models, geometries, connections


def fbx_local_matrix(props: dict) -> np.ndarray:
    """FBX's node transform: T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S * Sp^-1 (no
    rotations are set in the file tested: R, Rpre, Rpost are the identity)."""
    def t(v):
        m = np.eye(4)
        m[:3, 3] = v
        return m

    zero = [0.0, 0.0, 0.0]
    assert not any(np.any(props.get(k, zero)) for k in ("Lcl Rotation", "PreRotation", "PostRotation"))
    s = np.diag([*props.get("Lcl Scaling", [1, 1, 1]), 1.0])
    rp, sp = props.get("RotationPivot", zero), props.get("ScalingPivot", zero)
    return (t(props.get("Lcl Translation", zero)) @ t(props.get("RotationOffset", zero)) @ t(rp) @ t(np.negative(rp))
            @ t(props.get("ScalingOffset", zero)) @ t(sp) @ s @ t(np.negative(sp)))


def test_fbx_pivots_and_negative_scales_place_vertices_where_the_file_says():
    path = fbx_asset("cubes_with_mirroring_and_pivot.fbx")
    models, geometries, connections = fbx_ascii_models(path.read_text())
    parent = {child: par for child, par in connections if child in models}
    geometry_of = {par: child for child, par in connections if child in geometries}

    def world(model_id):
        local = fbx_local_matrix(models[model_id][1])
        return local if parent.get(model_id, "0") == "0" else world(parent[model_id]) @ local

    expected = np.concatenate([geometries[geometry_of[m]] @ world(m)[:3, :3].T + world(m)[:3, 3]
                               for m in models if m in geometry_of])
    assert any(np.prod(models[m][1].get("Lcl Scaling", [1, 1, 1])) < 0 for m in models)  # a mirrored node
    assert any("ScalingPivot" in props for _, props in models.values())  # and pivots
    b = imported(path)
    assert len(b.meshes) == 3 and sum(len(n.mesh_ids) for n in b.nodes) == 4
    same_point_sets(world_vertices(b), expected, tol=1e-5)


def test_collada_instance_node_instances_the_mesh():
    b = imported(dae_asset("teapot_instancenodes.DAE"))
    (mesh,) = b.meshes
    holders = [i for i, n in enumerate(b.nodes) if n.mesh_ids == [0]]
    assert len(holders) == 2 and len(mesh.triangles) == 1024
    # <unit meter="0.0254"/> and Z_UP: world = 0.0254 * (x, z, -y) of the node matrices' translations:
    # Teapot01 (-3.80132, 2.58064, 0); "whatever" (-120.80132, 2.58064, 0) holding an instance of Teapot01.
    translations = sorted((builder_world(b, i)[:3, 3] for i in holders), key=lambda t: t[0])
    np.testing.assert_allclose(translations[0], 0.0254 * np.array([-124.60264, 0, -5.16128]), atol=1e-5)
    np.testing.assert_allclose(translations[1], 0.0254 * np.array([-3.80132, 0, -2.58064]), atol=1e-5)


# --- skinning, cameras, lights, animation -----------------------------------------------------------


def test_skinned_fbx_camera_light_and_animation():
    """(Its skin: test_assimp_skinning.py.)"""
    path = fbx_asset("animation_with_skeleton.fbx")
    objects = next(r for r in fbx_binary.read(path.read_bytes()) if r.name == "Objects")
    attributes = {a.props[1][1].split(b"\0")[0].decode(): fbx_binary.properties70(a)
                  for a in objects.find("NodeAttribute")}
    b = imported(path)
    (camera,) = b.cameras
    cam = attributes["Camera"]
    assert camera.focalLength == pytest.approx(35.0)  # Falcor's fixed focal length for FBX
    assert camera.aspectRatio == pytest.approx(cam["AspectWidth"][0] / cam["AspectHeight"][0])
    assert (camera.nearPlane, camera.farPlane) == (pytest.approx(cam["NearPlane"][0]), pytest.approx(cam["FarPlane"][0]))
    assert list(camera.position) == pytest.approx(cam["Position"], abs=1e-3)
    # FBX cameras look down their node's +X axis; this one looks at the mesh near the origin
    forward = np.subtract(camera.target, camera.position)
    to_mesh = -np.asarray(cam["Position"])
    assert np.dot(forward, to_mesh) / np.linalg.norm(forward) / np.linalg.norm(to_mesh) > 0.99
    (light,) = b.lights
    lamp = attributes["Light"]
    assert type(light).__name__ == "PointLight"  # LightType 0
    assert list(light.intensity) == pytest.approx(np.multiply(lamp["Color"], lamp["Intensity"][0] / 100))
    # the skeleton's animation stack: 15 animated bones and the armature, 20 frames at 24 fps
    assert {a.name for a in b.animations} >= {"Armature.0", "Bone.0", "Bone.005.0", "Bone.006.0"}
    assert max(a.duration for a in b.animations) == pytest.approx(20 / 24)


def test_collada_animation_keys_are_seconds():
    path = dae_asset("box_nested_animation.dae")
    text = path.read_text()
    times = [float(v) for v in re.search(r'id="Armature_ArmatureAction_transform-input-array" count="\d+">([^<]+)<',
                                         text).group(1).split()]
    (animation,) = assimp.load_assimp(path).animations
    channels = {c.path: c for c in animation.channels}
    np.testing.assert_allclose(channels["translation"].times, times, atol=1e-6)
    b = imported(path)
    (falcor_animation,) = b.animations
    assert falcor_animation.name == "Armature_Bone.0" and falcor_animation.duration == pytest.approx(times[-1])


@pytest.fixture
def features(tmp_path) -> Path:
    path = tmp_path / "features.dae"
    path.write_text(FEATURES)
    return path


def test_collada_lights_cameras_and_materials(features, capfd):
    b = imported(features)
    out = capfd.readouterr().out
    assert "mesh 'line' is not a triangle mesh" in out and str(features) in out
    (camera,) = b.cameras
    assert camera.focalLength == pytest.approx(35.0)  # Falcor ignores the file's yfov (30) outside glTF
    assert (camera.aspectRatio, camera.nearPlane, camera.farPlane) == (2.0, 0.5, 50.0)
    assert list(camera.position) == pytest.approx([1, 2, 13])  # Root (1, 2, 3) + Cam (0, 0, 10)
    assert list(camera.target) == pytest.approx([1, 2, 12])  # looking down -Z
    sun, spot, lamp = (b.getLight(n) for n in ("Sun", "Spot", "Lamp"))
    assert type(sun).__name__ == "DirectionalLight" and list(sun.intensity) == [1, 2, 3]
    assert list(sun.direction) == pytest.approx([0, -1, 0], abs=1e-6)  # -Z turned by Rx(-90)
    assert type(spot).__name__ == "PointLight" and list(spot.position) == pytest.approx([1, 7, 3])
    assert list(spot.direction) == pytest.approx([0, -1, 0], abs=1e-6) and list(spot.intensity) == [4, 4, 4]
    # Assimp: inner cone = falloff_angle (60 deg); Falcor: opening = outer cone, penumbra = outer - inner
    assert spot.penumbraAngle == pytest.approx(spot.openingAngle - math.radians(60), abs=1e-5)
    assert list(lamp.position) == pytest.approx([1, 6, 3]) and list(lamp.intensity) == [0.5, 0.25, 1]
    glass = b.getMaterial("Glass")
    assert list(glass.baseColor) == pytest.approx([0.2, 0.4, 0.6, 0.25], abs=1e-3)  # transparency .25 = opacity
    assert glass.specularTransmission == pytest.approx(0.75)
    assert list(glass.specularParams) == pytest.approx([0.1, 0.2, 0.3, 40], abs=1e-3)
    assert list(glass.emissiveColor) == pytest.approx([0.5, 0.25, 0])
    assert glass.indexOfRefraction == pytest.approx(1.33, abs=1e-3) and glass.doubleSided
    textured = b.getMaterial("Textured.doubleSided")
    assert textured.doubleSided  # the name's token
    assert "textures/albedo.png" in out  # the '\' path read as '/', not found: Falcor's warning


def test_dont_merge_meshes_keeps_the_files_meshes(features):
    two_tris = FEATURES.replace('<node id="TexQuad"', '<node id="Pair"><instance_geometry url="#tri"><bind_material>'
                                '<technique_common><instance_material symbol="m" target="#tex"/></technique_common>'
                                '</bind_material></instance_geometry><instance_geometry url="#tri2"><bind_material>'
                                '<technique_common><instance_material symbol="m" target="#tex"/></technique_common>'
                                '</bind_material></instance_geometry></node><node id="TexQuad"')
    two_tris = two_tris.replace("</library_geometries>", TRI2 + "</library_geometries>")
    features.write_text(two_tris)
    merged = imported(features)
    kept = imported(features, SceneBuilderFlags.DontMergeMeshes)
    pair = lambda b: next(n for n in b.nodes if n.name == "Pair")
    assert len(pair(merged).mesh_ids) == 1 and len(pair(kept).mesh_ids) == 2


# --- files read, refused, errors ---------------------------------------------------------------------

MD5MESH = """MD5Version 10
commandline ""
numJoints 1
numMeshes 1
joints {
\t"root" -1 ( 0 0 0 ) ( 0 0 0 )
}
mesh {
\tshader "mat"
\tnumverts 3
\tvert 0 ( 0 0 ) 0 1
\tvert 1 ( 1 0 ) 1 1
\tvert 2 ( 0 1 ) 2 1
\tnumtris 1
\ttri 0 0 1 2
\tnumweights 3
\tweight 0 0 1.0 ( 0 0 0 )
\tweight 1 0 1.0 ( 1 0 0 )
\tweight 2 0 1.0 ( 0 1 0 )
}
"""


def test_files_assimp_opens_are_recorded(tmp_path, monkeypatch):
    from falcor.scene.asset_log import recording_assets

    mesh = tmp_path / "guy.md5mesh"
    mesh.write_text(MD5MESH)
    anim = tmp_path / "guy.md5anim"  # Assimp's MD5 reader opens the animation of the same name
    anim.write_text("MD5Version 10\n")
    monkeypatch.setattr(assimp._assimp_checks, "check", lambda path: None)
    with recording_assets() as files:
        try:
            assimp.load_assimp(mesh)
        except falcor.ImporterError:
            pass  # the animation is not a valid one; it was read all the same
    assert str(anim) in files


def test_a_fifo_beside_the_scene_is_not_opened(tmp_path):
    mesh = tmp_path / "guy.md5mesh"
    mesh.write_text(MD5MESH)
    os.mkfifo(tmp_path / "guy.md5anim")  # opening it would block forever
    code = ("import falcor\nfrom falcor.scene.importers import assimp\n"
            f"try:\n    assimp.load_assimp({str(mesh)!r})\nexcept falcor.ImporterError as e:\n    print(e)\n"
            "print('returned')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip().endswith("returned"), result.stderr
    assert "guy.md5anim' it refers to is not read" in result.stdout  # refused, with a warning


def test_reader_refuses_files_outside_the_allowed_folders(tmp_path):
    mesh = tmp_path / "guy.md5mesh"
    mesh.write_text(MD5MESH)
    other = tmp_path / "elsewhere"
    other.mkdir()
    result = assimp.reader().read_scene(str(mesh), [str(other)])
    assert result["error"] and str(mesh) in result["refused"] and result["files"] == []
    inside = assimp.reader().read_scene(str(mesh), [str(tmp_path)])
    assert str(mesh) in inside["files"] and inside["refused"] == []


def test_unreadable_file_raises_importer_error_naming_it(tmp_path):
    path = tmp_path / "broken.fbx"
    path.write_bytes(fbx_binary.MAGIC + b"\xe8\x1c\x00\x00" + b"\x01" * 40)
    with pytest.raises(falcor.ImporterError, match=re.escape(str(path))):
        falcor.load_scene(path)
    with pytest.raises(falcor.ImporterError, match="missing.dae"):
        falcor.load_scene(tmp_path / "missing.dae")


def test_import_falcor_does_not_load_libassimp():
    code = ("import sys, falcor\n"
            "print('falcor._assimp_reader' in sys.modules, 'libassimp' in open('/proc/self/maps').read())")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.split()[-2:] == ["False", "False"], result.stderr


def synthetic_scene(animations) -> dict:
    """What the reader returns for: root -> Cam_$AssimpFbx$_Translation (moved by 5 in x) -> Cam, a camera."""
    moved = np.eye(4)
    moved[0, 3] = 5
    nodes = [{"name": "root", "parent": None, "matrix": np.eye(4), "meshes": []},
             {"name": "Cam_$AssimpFbx$_Translation", "parent": 0, "matrix": moved, "meshes": []},
             {"name": "Cam", "parent": 1, "matrix": np.eye(4), "meshes": []}]
    camera = {"name": "Cam", "position": (0, 0, 0), "up": (0, 1, 0), "look_at": (0, 0, -1), "horizontal_fov": 1.0,
              "near": 0.1, "far": 100.0, "aspect": 0.0, "orthographic_width": 0.0}
    return {"nodes": nodes, "meshes": [], "materials": [], "textures": [], "cameras": [camera], "lights": [],
            "animations": animations}


def test_animated_fbx_camera_fixup_and_key_times(tmp_path):
    def keys(times, values):
        return np.asarray(times, float), np.asarray(values, float)

    channel = {"node": "Cam", "translation": keys([-5, 50], [[0, 0, 0], [0, 0, -10]]),
               "rotation": keys([], np.zeros((0, 4))), "scale": keys([], np.zeros((0, 3)))}
    animation = {"name": "take", "duration": 50.0, "ticks_per_second": 0.0, "mesh_channels": 0, "channels": [channel]}
    scene = assimp._SceneMapper(tmp_path / "x.fbx", synthetic_scene([animation])).map()
    np.testing.assert_array_equal(scene.nodes[1].matrix, np.eye(4))  # Falcor's fix-up: helper reset
    (a,) = scene.animations
    (c,) = a.channels
    np.testing.assert_allclose(c.times, [0.0, 2.0])  # 25 ticks per second when the file says 0; -5 -> 0
    assert scene.cameras[0].aspect_ratio is None  # 0: Falcor keeps its default
    still = assimp._SceneMapper(tmp_path / "x.fbx", synthetic_scene([])).map()
    assert still.nodes[1].matrix[0, 3] == 5  # not animated: the helper keeps its transform


def test_names_that_are_not_utf8_are_read(tmp_path):
    path = tmp_path / "latin1.fbx"
    path.write_bytes(fbx_asset("cubes_with_mirroring_and_pivot.fbx").read_bytes().replace(b"Model::Cube2", b"Model::Cub\xe92"))
    names = [n.name for n in assimp.load_assimp(path).nodes]
    assert "Cub\ufffd2" in names  # the byte that is not UTF-8 replaced, the file read


def test_own_importers_keep_gltf_obj_ply():
    from falcor.scene.importers import find_importer

    assert find_importer("fbx") is assimp.import_assimp and find_importer("DAE") is assimp.import_assimp
    assert all(find_importer(ext) is not assimp.import_assimp for ext in ("gltf", "glb", "obj", "ply"))


TRI2 = """<geometry id="tri2" name="Tri2"><mesh>
      <source id="tri2-pos"><float_array id="tri2-pos-a" count="9">0 0 1 1 0 1 0 1 1</float_array>
        <technique_common><accessor source="#tri2-pos-a" count="3" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
      <vertices id="tri2-v"><input semantic="POSITION" source="#tri2-pos"/></vertices>
      <triangles material="m" count="1"><input semantic="VERTEX" source="#tri2-v" offset="0"/><p>0 1 2</p></triangles>
    </mesh></geometry>
"""

# Cameras, lights, materials and primitives the shared assets lack: a camera, a directional, a spot and a
# point light under a translated root; a phong material with transparency, IOR, emission and Google
# Earth's double_sided; a textured lambert material whose name says ".doubleSided"; a triangle, a quad
# instanced twice and a line (skipped).
FEATURES = r"""<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_cameras>
    <camera id="cam" name="Cam"><optics><technique_common><perspective>
      <yfov>30</yfov><aspect_ratio>2</aspect_ratio><znear>0.5</znear><zfar>50</zfar>
    </perspective></technique_common></optics></camera>
  </library_cameras>
  <library_lights>
    <light id="sun" name="Sun"><technique_common><directional><color>1 2 3</color></directional></technique_common></light>
    <light id="spot" name="Spot"><technique_common><spot><color>4 4 4</color>
      <falloff_angle>60</falloff_angle><falloff_exponent>0</falloff_exponent></spot></technique_common></light>
    <light id="lamp" name="Lamp"><technique_common><point><color>0.5 0.25 1</color></point></technique_common></light>
  </library_lights>
  <library_images>
    <image id="img" name="img"><init_from>textures\albedo.png</init_from></image>
  </library_images>
  <library_effects>
    <effect id="glass-fx"><profile_COMMON><technique sid="common"><phong>
      <emission><color>0.5 0.25 0 1</color></emission>
      <diffuse><color>0.2 0.4 0.6 1</color></diffuse>
      <specular><color>0.1 0.2 0.3 1</color></specular>
      <shininess><float>40</float></shininess>
      <transparency><float>0.25</float></transparency>
      <index_of_refraction><float>1.33</float></index_of_refraction>
    </phong></technique>
    <extra><technique profile="GOOGLEEARTH"><double_sided>1</double_sided></technique></extra>
    </profile_COMMON></effect>
    <effect id="tex-fx"><profile_COMMON>
      <newparam sid="surf"><surface type="2D"><init_from>img</init_from></surface></newparam>
      <newparam sid="samp"><sampler2D><source>surf</source></sampler2D></newparam>
      <technique sid="common"><lambert><diffuse><texture texture="samp" texcoord="UV"/></diffuse></lambert></technique>
    </profile_COMMON></effect>
  </library_effects>
  <library_materials>
    <material id="glass" name="Glass"><instance_effect url="#glass-fx"/></material>
    <material id="tex" name="Textured.doubleSided"><instance_effect url="#tex-fx"/></material>
  </library_materials>
  <library_geometries>
    <geometry id="tri" name="Tri"><mesh>
      <source id="tri-pos"><float_array id="tri-pos-a" count="9">0 0 0 1 0 0 0 1 0</float_array>
        <technique_common><accessor source="#tri-pos-a" count="3" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
      <vertices id="tri-v"><input semantic="POSITION" source="#tri-pos"/></vertices>
      <triangles material="m" count="1"><input semantic="VERTEX" source="#tri-v" offset="0"/><p>0 1 2</p></triangles>
    </mesh></geometry>
    <geometry id="quad" name="Quad"><mesh>
      <source id="quad-pos"><float_array id="quad-pos-a" count="12">0 0 0 2 0 0 2 2 0 0 2 0</float_array>
        <technique_common><accessor source="#quad-pos-a" count="4" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
      <vertices id="quad-v"><input semantic="POSITION" source="#quad-pos"/></vertices>
      <polylist material="m" count="1"><input semantic="VERTEX" source="#quad-v" offset="0"/><vcount>4</vcount><p>0 1 2 3</p></polylist>
    </mesh></geometry>
    <geometry id="line" name="Line"><mesh>
      <source id="line-pos"><float_array id="line-pos-a" count="6">0 0 0 0 0 5</float_array>
        <technique_common><accessor source="#line-pos-a" count="2" stride="3"><param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/></accessor></technique_common></source>
      <vertices id="line-v"><input semantic="POSITION" source="#line-pos"/></vertices>
      <lines material="m" count="1"><input semantic="VERTEX" source="#line-v" offset="0"/><p>0 1</p></lines>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="Root" name="Root"><translate>1 2 3</translate>
        <node id="Cam" name="Cam"><translate>0 0 10</translate><instance_camera url="#cam"/></node>
        <node id="Sun" name="Sun"><rotate>1 0 0 -90</rotate><instance_light url="#sun"/></node>
        <node id="Spot" name="Spot"><translate>0 5 0</translate><rotate>1 0 0 -90</rotate><instance_light url="#spot"/></node>
        <node id="Lamp" name="Lamp"><translate>0 4 0</translate><instance_light url="#lamp"/></node>
        <node id="Shapes" name="Shapes">
          <instance_geometry url="#tri"><bind_material><technique_common><instance_material symbol="m" target="#glass"/></technique_common></bind_material></instance_geometry>
          <instance_geometry url="#quad"><bind_material><technique_common><instance_material symbol="m" target="#glass"/></technique_common></bind_material></instance_geometry>
          <instance_geometry url="#line"><bind_material><technique_common><instance_material symbol="m" target="#tex"/></technique_common></bind_material></instance_geometry>
        </node>
        <node id="TexQuad" name="TexQuad"><translate>5 0 0</translate>
          <instance_geometry url="#quad"><bind_material><technique_common><instance_material symbol="m" target="#tex"/></technique_common></bind_material></instance_geometry>
        </node>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"""
