"""Asset importers (glTF, OBJ, PLY): files written here, imported, and checked against values computed
independently in the test (hand-written matrices, Falcor's mapping rules spelled out)."""
from __future__ import annotations

import base64
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pygltflib
import pytest
import trimesh

import falcor
from falcor.scene.importers import _imported as ir
from falcor.scene.importers import gltf, obj, ply
from falcor.scene.material import MaterialTextureSlot, ShadingModel
from falcor.scene.scene_builder import SceneBuilderFlags
from helpers import read_texture
from asset_checks import builder_world, imported
from shared_files import shared_path

S45 = math.sin(math.pi / 4)


def png_bytes(rgb, size=(2, 1)) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, tuple(rgb)).save(out, "PNG")
    return out.getvalue()


EMBEDDED_PNG = png_bytes((200, 100, 50))


# ---------------------------------------------------------------------------------------------
# Writing glTF files
# ---------------------------------------------------------------------------------------------
class GltfDoc:
    """A glTF document under construction: JSON dict plus one binary buffer."""

    COMPONENT = {np.dtype(np.float32): 5126, np.dtype(np.uint16): 5123, np.dtype(np.uint32): 5125,
                 np.dtype(np.uint8): 5121, np.dtype(np.int16): 5122}
    TYPE = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}

    def __init__(self):
        self.doc = {"asset": {"version": "2.0"}, "bufferViews": [], "accessors": []}
        self.blob = bytearray()

    def view(self, data: bytes, stride=None) -> int:
        self.blob.extend(b"\0" * (-len(self.blob) % 4))
        view = {"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(data)}
        if stride:
            view["byteStride"] = stride
        self.blob.extend(data)
        self.doc["bufferViews"].append(view)
        return len(self.doc["bufferViews"]) - 1

    def accessor(self, array, normalized=False, view=None, offset=0, count=None, width=None) -> int:
        array = np.asarray(array)
        width = width or (array.shape[1] if array.ndim == 2 else 1)
        acc = {"bufferView": self.view(array.tobytes()) if view is None else view, "byteOffset": offset,
               "componentType": self.COMPONENT[array.dtype], "count": count or len(array),
               "type": self.TYPE[width]}
        if normalized:
            acc["normalized"] = True
        self.doc["accessors"].append(acc)
        return len(self.doc["accessors"]) - 1

    def add(self, key, item) -> int:
        self.doc.setdefault(key, []).append(item)
        return len(self.doc[key]) - 1

    def save_gltf(self, path: Path, external_bin=None) -> Path:
        doc = dict(self.doc)
        if external_bin:
            (path.parent / external_bin).write_bytes(bytes(self.blob))
            uri = external_bin.replace(" ", "%20")
        else:
            uri = "data:application/gltf-buffer;base64," + base64.b64encode(bytes(self.blob)).decode()
        doc["buffers"] = [{"uri": uri, "byteLength": len(self.blob)}]
        path.write_text(json.dumps(doc))
        return path

    def save_glb(self, path: Path) -> Path:
        doc = dict(self.doc)
        doc["buffers"] = [{"byteLength": len(self.blob)}]
        g = pygltflib.GLTF2.gltf_from_json(json.dumps(doc))
        g.set_binary_blob(bytes(self.blob))
        g.save_binary(str(path))
        return path


def f32(a):
    return np.asarray(a, np.float32)


def build_test_scene() -> GltfDoc:
    """A scene touching every mapped feature; the tests below spell out what each part must become."""
    g = GltfDoc()
    d = g.doc
    # mesh 0 "Tri": no normals (flat normals generated), normalized ubyte UVs, material 0
    tri_pos = g.accessor(f32([[0, 0, 0], [2, 0, 0], [0, 1, 0]]))
    tri_uv = g.accessor(np.array([[0, 0], [255, 0], [0, 51]], np.uint8), normalized=True)
    g.add("meshes", {"name": "Tri", "primitives": [
        {"attributes": {"POSITION": tri_pos, "TEXCOORD_0": tri_uv}, "material": 0}]})
    # mesh 1 (unnamed): a triangle strip with normals + an interleaved, sparse-patched primitive without material
    strip_pos = g.accessor(f32([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]))
    strip_nrm = g.accessor(f32([[0, 0, 1]] * 4))
    strip_idx = g.accessor(np.array([0, 1, 2, 3], np.uint16))
    interleaved = np.zeros((3, 6), np.float32)
    interleaved[:, :3] = [[0, 0, 0], [1, 0, 0], [0, 0, -1]]
    interleaved[:, 3:] = [0, 1, 0]
    view = g.view(interleaved.tobytes(), stride=24)
    inter_pos = g.accessor(interleaved[:, :3].copy(), view=view, offset=0, width=3)
    inter_nrm = g.accessor(interleaved[:, 3:].copy(), view=view, offset=12, width=3)
    sparse_rows = g.view(np.array([2], np.uint32).tobytes())
    sparse_vals = g.view(f32([[0, 0, -3]]).tobytes())
    d["accessors"][inter_pos]["sparse"] = {"count": 1, "indices": {"bufferView": sparse_rows, "componentType": 5125},
                                           "values": {"bufferView": sparse_vals}}
    g.add("meshes", {"primitives": [
        {"attributes": {"POSITION": strip_pos, "NORMAL": strip_nrm}, "indices": strip_idx, "mode": 5, "material": 1},
        {"attributes": {"POSITION": inter_pos, "NORMAL": inter_nrm}}]})
    # materials
    for uri in ("tex/base%20color.png", "mr.png", "n.png", "e.png"):
        g.add("textures", {"source": g.add("images", {"uri": uri})})
    g.add("textures", {"source": g.add("images", {"uri": "data:image/png;base64," + base64.b64encode(EMBEDDED_PNG).decode()})})
    g.add("materials", {"name": "Textured", "pbrMetallicRoughness": {
        "baseColorFactor": [0.5, 0.5, 0.5, 0.25], "baseColorTexture": {"index": 0},
        "metallicFactor": 0.25, "roughnessFactor": 0.75, "metallicRoughnessTexture": {"index": 1}},
        "normalTexture": {"index": 2}, "emissiveTexture": {"index": 3}, "occlusionTexture": {"index": 4},
        "emissiveFactor": [1, 0.5, 0], "alphaMode": "MASK", "alphaCutoff": 0.3,
        "extensions": {"KHR_materials_ior": {"ior": 1.4}}})
    g.add("materials", {"name": "Plain.doubleSided", "pbrMetallicRoughness": {"baseColorTexture": {"index": 4}}})
    # camera and lights
    g.add("cameras", {"type": "perspective", "perspective": {"yfov": 0.5, "aspectRatio": 1.5, "znear": 0.1}})
    d["extensionsUsed"] = ["KHR_lights_punctual", "KHR_materials_ior"]
    d["extensions"] = {"KHR_lights_punctual": {"lights": [
        {"type": "point", "color": [1, 0.5, 0.25], "intensity": 4},
        {"type": "spot", "spot": {"innerConeAngle": 0.1, "outerConeAngle": 0.5}},
        {"type": "directional", "intensity": 2}]}}
    # nodes: Root (TRS) -> Child (matrix) -> unnamed leaf; Root -> Cam, Spot, Sun; second root Lamp
    child_matrix = np.eye(4)
    child_matrix[:3, :3] = np.diag([0.5, 1, 1])
    child_matrix[:3, 3] = [0, 1, 0]
    d["nodes"] = [
        {"name": "Root", "translation": [1, 2, 3], "rotation": [0, S45, 0, S45], "scale": [2, 2, 2],
         "children": [1, 3, 4, 5]},
        {"name": "Child", "matrix": child_matrix.T.reshape(-1).tolist(), "mesh": 0, "children": [2]},
        {"mesh": 1},
        {"name": "Cam", "camera": 0, "translation": [0, 0, 5]},
        {"name": "Spot", "rotation": [-S45, 0, 0, S45], "extensions": {"KHR_lights_punctual": {"light": 1}}},
        {"name": "Sun", "extensions": {"KHR_lights_punctual": {"light": 2}}},
        {"name": "Lamp", "translation": [0, 4, 0], "extensions": {"KHR_lights_punctual": {"light": 0}}},
    ]
    d["scene"] = 0
    d["scenes"] = [{"nodes": [0, 6]}]
    # animations: Lamp translation LINEAR + scale STEP; leaf rotation LINEAR; Cam translation CUBICSPLINE
    times = g.accessor(f32([0, 1, 2]))
    lamp_t = g.accessor(f32([[0, 4, 0], [1, 4, 0], [1, 6, 0]]))
    lamp_s = g.accessor(f32([[1, 1, 1], [2, 2, 2], [3, 3, 3]]))
    leaf_r = g.accessor(f32([[0, 0, 0, 1], [0, S45, 0, S45], [0, 1, 0, 0]]))
    cubic_times = g.accessor(f32([0, 2]))
    cam_t = g.accessor(f32([[0, 0, 0], [0, 0, 5], [2, 0, 0], [0, 0, 0], [0, 0, 7], [0, 0, 0]]))
    d["animations"] = [
        {"name": "move", "samplers": [{"input": times, "output": lamp_t},
                                      {"input": times, "output": lamp_s, "interpolation": "STEP"},
                                      {"input": times, "output": leaf_r}],
         "channels": [{"sampler": 0, "target": {"node": 6, "path": "translation"}},
                      {"sampler": 1, "target": {"node": 6, "path": "scale"}},
                      {"sampler": 2, "target": {"node": 2, "path": "rotation"}}]},
        {"samplers": [{"input": cubic_times, "output": cam_t, "interpolation": "CUBICSPLINE"}],
         "channels": [{"sampler": 0, "target": {"node": 3, "path": "translation"}}]},
    ]
    return g


def translation(x, y, z):
    m = np.eye(4)
    m[:3, 3] = [x, y, z]
    return m


def linear(m3):
    m = np.eye(4)
    m[:3, :3] = m3
    return m


ROT_Y90 = linear([[0, 0, 1], [0, 1, 0], [-1, 0, 0]])  # quaternion (0, sin45, 0, cos45)
ROT_X_MINUS90 = linear([[1, 0, 0], [0, 0, 1], [0, -1, 0]])  # quaternion (-sin45, 0, 0, cos45)
ROOT_WORLD = translation(1, 2, 3) @ ROT_Y90 @ linear(np.diag([2, 2, 2]))
CHILD_LOCAL = translation(0, 1, 0) @ linear(np.diag([0.5, 1, 1]))


@pytest.fixture(scope="module")
def scene_files(tmp_path_factory):
    from PIL import Image
    folder = tmp_path_factory.mktemp("gltf")
    (folder / "tex").mkdir()
    for name in ("tex/base color.png", "mr.png", "n.png", "e.png"):
        Image.new("RGBA", (2, 2), (10, 20, 30, 255)).save(folder / name)
    doc = build_test_scene()
    return {"gltf": doc.save_gltf(folder / "scene.gltf", external_bin="scene data.bin"),
            "embedded": doc.save_gltf(folder / "embedded.gltf"),
            "glb": doc.save_glb(folder / "scene.glb")}


@pytest.fixture(scope="module")
def parsed(scene_files):
    return gltf.load_gltf(scene_files["gltf"])


def node_named(scene, name):
    return next(i for i, n in enumerate(scene.nodes) if n.name == name)


# ---------------------------------------------------------------------------------------------
# glTF: parsing
# ---------------------------------------------------------------------------------------------
def test_oracle_quad_parses_to_the_documented_facts():
    scene = gltf.load_gltf(shared_path("oracle", "falcor8", "quad.gltf"))
    assert len(scene.nodes) == 1 and scene.nodes[0].parent is None
    np.testing.assert_allclose(scene.world_matrix(0), translation(0, 0, -1))
    (mesh,) = scene.meshes
    assert scene.nodes[0].meshes == [0]
    np.testing.assert_array_equal(mesh.texcoords, mesh.positions[:, :2])
    np.testing.assert_array_equal(mesh.normals, np.tile([0, 0, 1], (4, 1)))
    assert set(map(tuple, mesh.positions.tolist())) == {(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)}
    assert len(mesh.indices) == 2
    (m,) = scene.materials
    assert m.base_color == (0.2, 0.4, 0.8, 1.0)
    assert (m.specular_params[1], m.specular_params[2]) == (0.5, 0.0)  # G = roughness, B = metallic
    assert m.double_sided and m.shading_model == "MetalRough" and m.textures == {}


def test_gltf_node_hierarchy_and_world_transforms(parsed):
    names = [n.name for n in parsed.nodes]
    assert names == ["Root", "Child", "nodes[2]", "Cam", "Spot", "Sun", "Lamp"]  # unnamed: Assimp's "nodes[i]"
    parents = [None if n.parent is None else names[n.parent] for n in parsed.nodes]
    assert parents == [None, "Root", "Child", "Root", "Root", "Root", None]
    np.testing.assert_allclose(parsed.world_matrix(0), ROOT_WORLD, atol=1e-12)
    np.testing.assert_allclose(parsed.world_matrix(2), ROOT_WORLD @ CHILD_LOCAL, atol=1e-12)
    np.testing.assert_allclose(parsed.world_matrix(6), translation(0, 4, 0), atol=1e-12)


def test_gltf_vertex_data(parsed):
    tri = parsed.meshes[parsed.nodes[node_named(parsed, "Child")].meshes[0]]
    assert tri.name == "Tri"
    # flat normals: every corner its own vertex with the face normal
    np.testing.assert_array_equal(tri.indices, [[0, 1, 2]])
    np.testing.assert_allclose(tri.normals, np.tile([0, 0, 1], (3, 1)))
    np.testing.assert_allclose(tri.texcoords, [[0, 0], [1, 0], [0, 0.2]])  # normalized ubyte
    strip, inter = (parsed.meshes[i] for i in parsed.nodes[2].meshes)
    assert (strip.name, inter.name) == ("meshes[1]-0", "meshes[1]-1")
    np.testing.assert_array_equal(strip.indices, [[0, 1, 2], [1, 3, 2]])  # strip keeps CCW winding
    np.testing.assert_allclose(inter.positions, [[0, 0, 0], [1, 0, 0], [0, 0, -3]])  # stride + sparse
    np.testing.assert_allclose(inter.normals, np.tile([0, 1, 0], (3, 1)))
    assert strip.texcoords is None and strip.tangents is None


def test_gltf_materials(parsed, scene_files):
    textured, plain, default = parsed.materials
    folder = scene_files["gltf"].parent
    assert textured.name == "Textured"
    assert textured.base_color == (0.5, 0.5, 0.5, 0.25)
    assert textured.specular_transmission == pytest.approx(0.75)  # Falcor: 1 - opacity
    assert textured.specular_params == pytest.approx((0.0, 0.75, 0.25, 1000 * 0.25 ** 2))
    assert textured.emissive_color == (1, 0.5, 0)
    assert textured.index_of_refraction == pytest.approx(1.4)
    assert textured.alpha_threshold == pytest.approx(0.3)
    assert not textured.double_sided
    # URI-decoded, relative to the file; occlusion is not a Falcor slot
    assert textured.textures == {"BaseColor": folder / "tex/base color.png", "Specular": folder / "mr.png",
                                 "Normal": folder / "n.png", "Emissive": folder / "e.png"}
    assert plain.name == "Plain.doubleSided" and plain.double_sided  # Falcor's name token
    (embedded,) = plain.textures.values()  # a data URI: Falcor skips it, we load it
    assert isinstance(embedded, ir.EmbeddedImage) and embedded.data == EMBEDDED_PNG
    assert plain.base_color == (1, 1, 1, 1) and plain.specular_params[1:3] == (1.0, 1.0)  # glTF defaults
    assert default.name == "unnamed" and default.specular_params[1:3] == (1.0, 1.0)
    assert default.alpha_threshold is None
    mesh_materials = [parsed.materials[m.material].name for m in parsed.meshes]
    assert mesh_materials == ["Textured", "Plain.doubleSided", "unnamed"]


def test_gltf_embedded_textures_are_loaded(tmp_path):
    """Images as data URIs and as GLB buffer views reach the material with their texels."""
    for kind in ("gltf", "glb"):
        g = GltfDoc()
        position = g.accessor(f32([[0, 0, 0], [1, 0, 0], [0, 1, 0]]))
        image = {"bufferView": g.view(EMBEDDED_PNG), "mimeType": "image/png"} if kind == "glb" else \
            {"uri": "data:image/png;base64," + base64.b64encode(EMBEDDED_PNG).decode()}
        g.add("textures", {"source": g.add("images", image)})
        g.add("materials", {"name": "M", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}})
        g.add("meshes", {"primitives": [{"attributes": {"POSITION": position}, "material": 0}]})
        g.add("nodes", {"mesh": 0})
        g.add("scenes", {"nodes": [0]})
        path = g.save_glb(tmp_path / "e.glb") if kind == "glb" else g.save_gltf(tmp_path / "e.gltf")
        texture = imported(path).getMaterial("M").getTexture(MaterialTextureSlot.BaseColor)
        assert texture.format == falcor.ResourceFormat.RGBA8UnormSrgb
        assert read_texture(texture)[0, 0].tolist() == [200, 100, 50, 255], kind


def test_gltf_camera_and_lights(parsed):
    (cam,) = parsed.cameras
    assert cam.name == "Cam" and parsed.nodes[cam.node].name == "Cam"
    assert (cam.fov_y, cam.aspect_ratio) == (pytest.approx(0.5), pytest.approx(1.5))
    assert (cam.near, cam.far) == (pytest.approx(0.1), 100.0)  # absent zfar: Assimp's 100
    lamp, spot, sun = sorted(parsed.lights, key=lambda l: ["Lamp", "Spot", "Sun"].index(l.name))
    assert (lamp.kind, lamp.intensity, lamp.opening_angle, lamp.penumbra_angle) == \
        ("point", (4.0, 2.0, 1.0), math.pi, 0.0)
    assert (spot.kind, spot.intensity) == ("point", (1.0, 1.0, 1.0))
    assert (spot.opening_angle, spot.penumbra_angle) == (pytest.approx(0.5), pytest.approx(0.4))
    assert (sun.kind, sun.intensity) == ("directional", (2.0, 2.0, 2.0))


def test_gltf_animation_channels_sample_like_gltf(parsed):
    move, cubic = parsed.animations
    assert move.name == "move" and move.duration == 2.0
    by_path = {(parsed.nodes[c.node].name, c.path): c for c in move.channels}
    lamp_t, lamp_s = by_path["Lamp", "translation"], by_path["Lamp", "scale"]
    leaf_r = by_path["nodes[2]", "rotation"]
    np.testing.assert_allclose(ir.sample_channel(lamp_t, 0.5), [0.5, 4, 0])
    np.testing.assert_allclose(ir.sample_channel(lamp_t, 1.5), [1, 5, 0])
    np.testing.assert_allclose(ir.sample_channel(lamp_t, 7.0), [1, 6, 0])  # clamped after the last key
    np.testing.assert_allclose(ir.sample_channel(lamp_s, 0.999), [1, 1, 1])  # STEP holds
    np.testing.assert_allclose(ir.sample_channel(lamp_s, 1.0), [2, 2, 2])
    half = math.radians(22.5)  # slerp halfway between identity and 90 degrees about Y
    np.testing.assert_allclose(ir.sample_channel(leaf_r, 0.5), [0, math.sin(half), 0, math.cos(half)], atol=1e-7)
    # CUBICSPLINE: Hermite with tangents scaled by the interval (2 s): values (0,0,5)->(0,0,7),
    # out-tangent (2,0,0), in-tangent (0,0,0); at s = 1/2: 0.5 p0 + 0.125*2*m0 + 0.5 p1 - 0.125*2*m1
    (cam_t,) = cubic.channels
    np.testing.assert_allclose(ir.sample_channel(cam_t, 1.0), [0.5, 0, 6])
    assert cubic.name == "animations[1]"


def test_keyframe_times_cover_steps_and_cubic_intervals(parsed):
    move, cubic = parsed.animations
    lamp = [c for c in move.channels if parsed.nodes[c.node].name == "Lamp"]
    times = ir.keyframe_times(lamp)
    np.testing.assert_allclose(times, [0, 1 - ir.STEP_EDGE, 1, 2 - ir.STEP_EDGE, 2])
    cubic_times = ir.keyframe_times(cubic.channels)
    assert len(cubic_times) == ir.CUBIC_SUBDIVISIONS + 1
    np.testing.assert_allclose(cubic_times, np.linspace(0, 2, ir.CUBIC_SUBDIVISIONS + 1))


def test_glb_and_embedded_buffers_give_the_same_scene(scene_files, parsed):
    for kind in ("glb", "embedded"):
        other = gltf.load_gltf(scene_files[kind])
        assert [n.name for n in other.nodes] == [n.name for n in parsed.nodes]
        for a, b in zip(other.meshes, parsed.meshes):
            np.testing.assert_array_equal(a.positions, b.positions)
            np.testing.assert_array_equal(a.indices, b.indices)
        assert [m.base_color for m in other.materials] == [m.base_color for m in parsed.materials]
        assert len(other.animations) == 2 and len(other.lights) == 3


# ---------------------------------------------------------------------------------------------
# OBJ and PLY: parsing
# ---------------------------------------------------------------------------------------------
MTL = """newmtl Red
Kd 0.63 0.065 0.05
Ks 0.1 0.2 0.3
Ns 50
Ke 1 2 3
d 0.5
Ni 1.33
map_Kd tex.png
map_Ks spec.png
map_bump -bm 0.5 bump.png
newmtl White.doubleSided
Kd 0.8
"""
OBJ = """mtllib scene.mtl
o Thing
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 0.75
vt 0 0.75
vn 0 0 1
usemtl Red
f 1/1/1 2/2/1 3/3/1 4/4/1
usemtl White.doubleSided
f 1/1/1 3/3/1 2/2/1
"""


@pytest.fixture(scope="module")
def obj_file(tmp_path_factory):
    from PIL import Image
    folder = tmp_path_factory.mktemp("obj")
    (folder / "scene.mtl").write_text(MTL)
    Image.new("RGB", (2, 2), (255, 0, 0)).save(folder / "tex.png")
    path = folder / "scene.obj"
    path.write_text(OBJ)
    return path


def test_obj_meshes_materials_and_uv_flip(obj_file):
    scene = obj.load_obj(obj_file)
    assert [n.name for n in scene.nodes] == ["scene.obj"] and scene.nodes[0].meshes == [0, 1]
    meshes = {scene.materials[m.material].name: m for m in scene.meshes}
    quad = meshes["Red"]
    assert len(quad.indices) == 2  # the quad is triangulated
    corners = quad.positions[quad.indices.reshape(-1)]
    uv = quad.texcoords[quad.indices.reshape(-1)]
    # OBJ's v runs up the image; Falcor's runs down: v -> 1 - v
    expected = {(0, 0): (0, 1), (1, 0): (1, 1), (1, 1): (1, 0.25), (0, 1): (0, 0.25)}
    for p, t in zip(corners, uv):
        assert tuple(t) == pytest.approx(expected[tuple(p[:2])])
    np.testing.assert_allclose(quad.normals, np.tile([0, 0, 1], (len(quad.normals), 1)))

    red = scene.materials[quad.material]
    assert red.shading_model == "SpecGloss"
    assert red.base_color == pytest.approx((0.63, 0.065, 0.05, 0.5))
    gloss = 1 - math.sqrt(2 / (50 + 2))
    assert red.specular_params == pytest.approx((0.1, 0.2, 0.3, gloss))
    assert red.emissive_color == (1, 2, 3) and red.index_of_refraction == pytest.approx(1.33)
    assert red.specular_transmission == pytest.approx(0.5) and not red.double_sided
    folder = obj_file.parent
    assert red.textures == {"BaseColor": folder / "tex.png", "Specular": folder / "spec.png",
                            "Normal": folder / "bump.png"}
    white = scene.materials[meshes["White.doubleSided"].material]
    assert white.base_color == (0.8, 0.8, 0.8, 1.0) and white.double_sided
    assert white.specular_params == (0, 0, 0, 0) and white.index_of_refraction == 1.0  # Assimp's OBJ defaults


def test_obj_without_normals_or_materials(tmp_path):
    path = tmp_path / "bare.obj"
    path.write_text("v 0 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n")
    scene = obj.load_obj(path)
    (mesh,) = scene.meshes
    np.testing.assert_allclose(mesh.normals, np.tile([1, 0, 0], (3, 1)))  # flat: (0,1,0) x (0,0,1)
    (m,) = scene.materials
    assert (m.name, m.base_color, m.specular_params) == ("DefaultMaterial", (0.6, 0.6, 0.6, 1.0), (0, 0, 0, 0))


def test_obj_missing_texture_warns_with_search_path(tmp_path, capfd):
    (tmp_path / "m.mtl").write_text("newmtl A\nmap_Kd gone.png\n")
    path = tmp_path / "m.obj"
    path.write_text("mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl A\nf 1 2 3\n")
    scene = obj.load_obj(path)
    assert scene.materials[0].textures == {}
    out = capfd.readouterr().out
    assert "gone.png" in out and str(tmp_path) in out


PLY = """ply
format ascii 1.0
comment TextureFile skin.png
element vertex 4
property float x
property float y
property float z
property float nx
property float ny
property float nz
property float s
property float t
property uchar red
property uchar green
property uchar blue
element face 1
property list uchar int vertex_indices
end_header
0 0 0 0 0 1 0 0 255 0 0
1 0 0 0 0 1 1 0 255 0 0
1 1 0 0 0 1 1 1 255 0 0
0 1 0 0 0 1 0 1 255 0 0
4 0 1 2 3
"""


def test_ply_mesh_and_falcor_default_material(tmp_path):
    from PIL import Image
    Image.new("RGB", (2, 2)).save(tmp_path / "skin.png")
    path = tmp_path / "quad.ply"
    path.write_text(PLY)
    scene = ply.load_ply(path)
    (mesh,) = scene.meshes
    assert len(mesh.indices) == 2
    np.testing.assert_allclose(mesh.normals, np.tile([0, 0, 1], (4, 1)))
    np.testing.assert_allclose(mesh.texcoords, np.column_stack([mesh.positions[:, 0], 1 - mesh.positions[:, 1]]))
    (m,) = scene.materials
    assert (m.name, m.shading_model, m.base_color, m.specular_params, m.double_sided) == \
        ("unnamed", "MetalRough", (1, 1, 1, 1), (1, 1, 1, 0), True)
    assert m.textures == {"BaseColor": tmp_path / "skin.png"}


@pytest.mark.parametrize("extension", ["glb", "obj", "ply"])
def test_round_trip_of_a_trimesh_export(tmp_path, extension):
    original = trimesh.creation.icosphere(subdivisions=1)
    original.apply_translation([0.5, -1, 2])
    path = tmp_path / f"sphere.{extension}"
    original.export(path)
    scene = {"glb": gltf.load_gltf, "obj": obj.load_obj, "ply": ply.load_ply}[extension](path)
    corners = []
    for i, node in enumerate(scene.nodes):
        world = scene.world_matrix(i)
        for m in node.meshes:
            mesh = scene.meshes[m]
            p = mesh.positions.astype(np.float64) @ world[:3, :3].T + world[:3, 3]
            corners.append(p[mesh.indices.astype(np.int64)])
    imported = np.concatenate(corners)
    expected = original.vertices[original.faces]
    assert imported.shape == expected.shape
    key = lambda tris: sorted(map(tuple, np.round(tris.reshape(len(tris), 9), 5).tolist()))  # noqa: E731
    assert key(imported) == key(expected)


# ---------------------------------------------------------------------------------------------
# Error paths
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("load, name", [(gltf.load_gltf, "missing.gltf"), (obj.load_obj, "missing.obj"),
                                        (ply.load_ply, "missing.ply")])
def test_missing_file_names_file_and_search_path(tmp_path, load, name):
    with pytest.raises(falcor.ImporterError) as error:
        load(tmp_path / name)
    assert name in str(error.value) and str(tmp_path) in str(error.value)


@pytest.mark.parametrize("name, content", [
    ("broken.gltf", b'{"asset": {"version": "2.0"}, "nodes": ['),
    ("broken.glb", b"glTF\x02\x00\x00\x00\xff\x00\x00\x00\x10\x00"),
    ("v1.gltf", b'{"asset": {"version": "1.0"}}'),
    ("draco.gltf", b'{"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"]}'),
    ("broken.obj", b"this is not\x00 an obj \xff\n"),
    ("broken.ply", b"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1 2\n"),
])
def test_corrupt_file_names_the_file(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    load = {".gltf": gltf.load_gltf, ".glb": gltf.load_gltf, ".obj": obj.load_obj, ".ply": ply.load_ply}
    with pytest.raises(falcor.ImporterError, match=name.replace(".", r"\.")):
        load[path.suffix](path)


def test_gltf_bad_data_names_the_file(tmp_path):
    g = GltfDoc()
    pos = g.accessor(f32([[0, 0, 0], [1, 0, 0], [0, 1, 0]]))
    g.doc["accessors"][pos]["count"] = 30  # reads past its buffer view
    g.add("meshes", {"primitives": [{"attributes": {"POSITION": pos}}]})
    g.doc["nodes"] = [{"mesh": 0}]
    path = g.save_gltf(tmp_path / "short.gltf")
    with pytest.raises(falcor.ImporterError, match=r"short\.gltf.*too short"):
        gltf.load_gltf(path)


def test_gltf_missing_buffer_file_names_it(tmp_path):
    g = GltfDoc()
    g.accessor(f32([[0, 0, 0]]))
    path = g.save_gltf(tmp_path / "a.gltf", external_bin="a.bin")
    (tmp_path / "a.bin").unlink()
    with pytest.raises(falcor.ImporterError) as error:
        gltf.load_gltf(path)
    message = str(error.value)
    assert "a.bin" in message and "a.gltf" in message and str(tmp_path) in message


# ---------------------------------------------------------------------------------------------
# Into a SceneBuilder (through importScene and the importer registry)
# ---------------------------------------------------------------------------------------------
def half(values):
    return pytest.approx([float(np.float16(v)) for v in values])


def test_oracle_quad_through_import_scene():
    b = imported(shared_path("oracle", "falcor8", "quad.gltf"))
    (node,) = b.nodes
    np.testing.assert_allclose(node.matrix, translation(0, 0, -1), atol=1e-7)
    (mesh,) = b.meshes
    assert node.mesh_ids == [0]
    np.testing.assert_array_equal(mesh.texcoords, mesh.positions[:, :2])
    np.testing.assert_array_equal(mesh.normals, np.tile([0, 0, 1], (4, 1)))
    (m,) = b.materials
    assert mesh.material is m and m.shadingModel == ShadingModel.MetalRough
    assert list(m.baseColor) == half([0.2, 0.4, 0.8, 1.0])  # Falcor stores half floats
    assert (m.roughness, m.metallic, m.doubleSided) == (0.5, 0.0, True)
    assert (b.cameras, b.lights, b.animations) == ([], [], [])


def test_gltf_nodes_meshes_and_instances_in_builder(scene_files):
    b = imported(scene_files["gltf"])
    names = [n.name for n in b.nodes]
    assert names[:7] == ["Root", "Child", "nodes[2]", "Cam", "Spot", "Sun", "Lamp"]
    np.testing.assert_allclose(builder_world(b, 0), ROOT_WORLD, atol=1e-5)
    np.testing.assert_allclose(builder_world(b, 2), ROOT_WORLD @ CHILD_LOCAL, atol=1e-5)
    assert [len(b.nodes[i].mesh_ids) for i in range(7)] == [0, 1, 2, 0, 0, 0, 0]
    tri = b.meshes[b.nodes[1].mesh_ids[0]]
    assert tri.name == "Tri" and len(tri.triangles) == 1
    np.testing.assert_allclose(tri.texcoords, [[0, 0], [1, 0], [0, 0.2]], atol=1e-7)
    untextured = b.meshes[b.nodes[2].mesh_ids[1]]
    np.testing.assert_array_equal(untextured.texcoords, np.zeros((3, 2)))  # no TEXCOORD_0: zeros, as in Falcor


def test_gltf_materials_and_texture_slots_in_builder(scene_files, capfd):
    b = imported(scene_files["gltf"])
    textured = b.getMaterial("Textured")
    assert list(textured.baseColor) == half([0.5, 0.5, 0.5, 0.25])
    assert (textured.roughness, textured.metallic) == (0.75, 0.25)
    assert list(textured.emissiveColor) == [1, 0.5, 0]
    assert textured.indexOfRefraction == pytest.approx(1.4, abs=1e-3)
    assert textured.specularTransmission == 0.75
    assert textured.alphaThreshold == pytest.approx(0.3, abs=1e-3)
    formats = {slot: textured.getTexture(slot).format for slot in
               (MaterialTextureSlot.BaseColor, MaterialTextureSlot.Specular, MaterialTextureSlot.Normal,
                MaterialTextureSlot.Emissive)}
    # sRGB where Falcor's metal-rough slots are colours, linear for the packed specular and normal maps
    assert formats[MaterialTextureSlot.BaseColor] == falcor.ResourceFormat.RGBA8UnormSrgb
    assert formats[MaterialTextureSlot.Emissive] == falcor.ResourceFormat.RGBA8UnormSrgb
    assert formats[MaterialTextureSlot.Specular] == falcor.ResourceFormat.RGBA8Unorm
    assert formats[MaterialTextureSlot.Normal] == falcor.ResourceFormat.RGBA8Unorm
    assert b.getMaterial("Plain.doubleSided").doubleSided
    assert [m.name for m in b.materials] == ["Textured", "Plain.doubleSided", "unnamed"]
    spec_gloss = imported(scene_files["gltf"], SceneBuilderFlags.UseSpecGlossMaterials)
    assert all(m.shadingModel == ShadingModel.SpecGloss for m in spec_gloss.materials)


def test_gltf_camera_in_builder(scene_files):
    b = imported(scene_files["gltf"])
    (camera,) = b.cameras
    # rest pose: Cam at (0, 0, 5) under Root -> world (11, 2, 3); local -Z turned by Ry(90) -> (-1, 0, 0)
    assert list(camera.position) == pytest.approx([11, 2, 3])
    assert list(camera.target) == pytest.approx([10, 2, 3])
    assert list(camera.up) == pytest.approx([0, 1, 0])
    assert camera.focalLength == pytest.approx(24 / (2 * math.tan(0.25)), rel=1e-6)
    assert (camera.aspectRatio, camera.nearPlane, camera.farPlane) == \
        (pytest.approx(1.5), pytest.approx(0.1), 100.0)
    # Cam's node is animated: the camera follows it. At t = 1 its local translation is (0.5, 0, 6)
    # (see the CUBICSPLINE sample above) -> world (1, 2, 3) + Ry(90) (1, 0, 12) = (13, 2, 2).
    assert camera.hasAnimation
    follow = next(a for a in b.animations if a.name == "Cam")
    m = follow.animate(1.0)
    np.testing.assert_allclose(m[:3, 3], [13, 2, 2], atol=1e-5)
    np.testing.assert_allclose(-m[:3, 2] / np.linalg.norm(m[:3, 2]), [-1, 0, 0], atol=1e-6)


def test_gltf_lights_in_builder(scene_files):
    b = imported(scene_files["gltf"])
    lamp, spot, sun = (b.getLight(n) for n in ("Lamp", "Spot", "Sun"))
    assert type(lamp).__name__ == "PointLight" and type(sun).__name__ == "DirectionalLight"
    assert list(lamp.intensity) == [4, 2, 1] and list(lamp.position) == [0, 4, 0]
    assert lamp.openingAngle == pytest.approx(math.pi) and lamp.penumbraAngle == 0
    # Spot: local -Z turned by Rx(-90) -> (0, -1, 0), unchanged by Root's Ry(90); at Root's origin
    assert list(spot.position) == pytest.approx([1, 2, 3])
    assert list(spot.direction) == pytest.approx([0, -1, 0], abs=1e-6)
    assert (spot.openingAngle, spot.penumbraAngle) == (pytest.approx(0.5), pytest.approx(0.4))
    assert list(sun.direction) == pytest.approx([-1, 0, 0], abs=1e-6) and list(sun.intensity) == [2, 2, 2]
    assert not spot.hasAnimation and lamp.hasAnimation  # Lamp's node is animated
    follow = next(a for a in b.animations if a.name == "Lamp")
    np.testing.assert_allclose(follow.animate(0.5)[:3, 3], [0.5, 4, 0], atol=1e-6)
    np.testing.assert_allclose(follow.animate(1.5)[:3, 3], [1, 5, 0], atol=1e-6)


def test_gltf_node_animations_in_builder(scene_files):
    b = imported(scene_files["gltf"])
    by_name = {a.name: a for a in b.animations}
    lamp, leaf, cam = by_name["Lamp.0"], by_name["nodes[2].0"], by_name["Cam.0"]
    assert (lamp.nodeID, leaf.nodeID, cam.nodeID) == (6, 2, 3)
    assert lamp.duration == leaf.duration == cam.duration == 2.0
    np.testing.assert_allclose(lamp.animate(0.5), translation(0.5, 4, 0), atol=1e-6)  # LINEAR translation
    np.testing.assert_allclose(np.diag(lamp.animate(0.99))[:3], [1, 1, 1], atol=1e-6)  # STEP scale holds ...
    np.testing.assert_allclose(np.diag(lamp.animate(1.0))[:3], [2, 2, 2], atol=1e-6)  # ... then jumps
    c, s = math.cos(math.pi / 4), math.sin(math.pi / 4)
    np.testing.assert_allclose(leaf.animate(0.5), linear([[c, 0, s], [0, 1, 0], [-s, 0, c]]), atol=1e-6)
    np.testing.assert_allclose(cam.animate(1.0)[:3, 3], [0.5, 0, 6], atol=1e-6)  # CUBICSPLINE, sampled


def test_shared_mesh_is_added_once_and_instanced_twice(tmp_path):
    g = GltfDoc()
    pos = g.accessor(f32([[0, 0, 0], [1, 0, 0], [0, 1, 0]]))
    g.add("meshes", {"primitives": [{"attributes": {"POSITION": pos}}]})
    g.doc["nodes"] = [{"name": "A", "mesh": 0}, {"name": "B", "mesh": 0, "translation": [2, 0, 0]}]
    g.doc["scenes"] = [{"nodes": [0, 1]}]
    b = imported(g.save_gltf(tmp_path / "twice.gltf"))
    assert len(b.meshes) == 1 and [n.mesh_ids for n in b.nodes] == [[0], [0]]


def test_obj_through_import_scene(obj_file, capfd):
    b = imported(obj_file)
    red, white = b.getMaterial("Red"), b.getMaterial("White.doubleSided")
    assert red.shadingModel == ShadingModel.SpecGloss and white.doubleSided
    assert list(red.specularParams) == half([0.1, 0.2, 0.3, 1 - math.sqrt(2 / 52)])
    assert red.getTexture(MaterialTextureSlot.BaseColor).format == falcor.ResourceFormat.RGBA8UnormSrgb
    assert red.getTexture(MaterialTextureSlot.Specular) is None  # spec.png doesn't exist: a warning
    assert "spec.png" in capfd.readouterr().out
    assert len(b.meshes) == 2 and b.nodes[0].mesh_ids == [0, 1]
    metal_rough = imported(obj_file, SceneBuilderFlags.UseMetalRoughMaterials)
    assert metal_rough.getMaterial("Red").shadingModel == ShadingModel.MetalRough


def test_ply_through_import_scene(tmp_path):
    path = tmp_path / "quad.ply"
    path.write_text(PLY)
    b = imported(path)
    (m,) = b.materials
    assert (m.roughness, m.metallic, m.doubleSided) == (1.0, 1.0, True)
    assert m.getTexture(MaterialTextureSlot.BaseColor) is None  # skin.png missing here
    assert len(b.meshes[0].triangles) == 2


def test_import_scene_errors_name_the_file(tmp_path):
    (tmp_path / "bad.gltf").write_text("{ nope")
    with pytest.raises(falcor.ImporterError, match=r"bad\.gltf"):
        imported(tmp_path / "bad.gltf")
    with pytest.raises(falcor.ImporterError, match=r"absent\.obj"):
        imported(tmp_path / "absent.obj")


def test_formats_are_registered():
    from falcor.scene import importers
    assert importers.find_importer("glb") is importers.find_importer(".GLTF") is gltf.import_gltf
    assert (importers.find_importer("obj"), importers.find_importer("ply")) == (obj.import_obj, ply.import_ply)


def test_zero_scale_and_sheared_nodes_keep_their_matrices(tmp_path, capfd):
    """Static nodes are added with the file's matrix, as Falcor's importers add them: a Transform
    could hold neither the shear nor the zero scale's lost rotation."""
    g = GltfDoc()
    sheared = np.eye(4)
    sheared[0, 1] = 0.5  # x += 0.5 y
    g.doc["nodes"] = [{"name": "Hidden", "scale": [0, 0, 0], "translation": [1, 2, 3]},
                      {"name": "Sheared", "matrix": sheared.T.reshape(-1).tolist()}]
    b = imported(g.save_gltf(tmp_path / "odd.gltf"))
    np.testing.assert_allclose(b.nodes[0].matrix, translation(1, 2, 3) @ linear(np.zeros((3, 3))), atol=1e-7)
    np.testing.assert_array_equal(b.nodes[1].matrix, sheared)
    assert "Warning" not in capfd.readouterr().out


def test_orthographic_camera(tmp_path):
    g = GltfDoc()
    g.add("cameras", {"type": "orthographic", "orthographic": {"xmag": 2, "ymag": 1, "znear": 0.5, "zfar": 50}})
    g.doc["nodes"] = [{"name": "Ortho", "camera": 0, "translation": [0, 0, 3]}]
    (camera,) = imported(g.save_gltf(tmp_path / "ortho.gltf")).cameras
    # Falcor's orthographic camera: focal length 0, half view size = half the position-target distance
    assert camera.focalLength == 0 and list(camera.position) == [0, 0, 3] and list(camera.target) == [0, 0, 1]
    assert (camera.aspectRatio, camera.nearPlane, camera.farPlane) == (2, 0.5, 50)


def test_obj_displacement_map_goes_to_the_normal_slot_as_in_falcor(tmp_path):
    (tmp_path / "d.mtl").write_text("newmtl D\nmap_bump b.png\ndisp d.png\nmap_emissive e.png\n")
    path = tmp_path / "d.obj"
    path.write_text("mtllib d.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl D\nf 1 2 3\n")
    (m,) = obj.load_obj(path).materials
    assert m.textures == {"Normal": tmp_path / "d.png", "Emissive": tmp_path / "e.png"}


def test_import_falcor_leaves_format_libraries_to_their_first_file():
    """trimesh (with the scipy it brings) and pygltflib cost most of a second to import: `import
    falcor` leaves them to the first OBJ, PLY or glTF file, and every format is still registered."""
    code = ("import json, sys, falcor\n"
            "from falcor.scene.importers import supported_extensions\n"
            "print(json.dumps([[m for m in ('trimesh', 'scipy', 'pygltflib') if m in sys.modules], supported_extensions()]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    loaded, extensions = json.loads(out.strip().splitlines()[-1])
    assert loaded == []
    assert {"obj", "ply", "gltf", "glb"} <= set(extensions)
