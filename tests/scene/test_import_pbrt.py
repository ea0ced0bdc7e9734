"""pbrt-v4 importer: the shared Cornell box (checked against values read from the file by hand, and
against the same box written by hand as a .pyscene), plus small files written here for each
directive, shape, material and light the importer maps."""
from __future__ import annotations

import math
from pathlib import Path

import falcor
import numpy as np
import pytest
from falcor.scene.importers import pbrt
from falcor.scene.importers._pbrt_envmap import (
    octahedral_to_latlong,
    sphere_to_square,
    square_to_sphere,
)
from falcor.scene.importers._pbrt_shapes import loop_subdivide_once
from falcor.scene.material import MaterialTextureSlot
from shared_files import shared_path

CORNELL = ("assets", "pbrt", "cornell-box.pbrt")


def cornell() -> Path:
    return shared_path(*CORNELL)


def _output(capfd) -> str:
    captured = capfd.readouterr()
    return captured.out + captured.err  # the Logger writes warnings to stdout


def half(expected):
    """Material parameters are stored as float16, as in Falcor."""
    return pytest.approx(expected, rel=1e-3, abs=1e-4)


def rgb(v, n=3):  # material colours are stored as float16, as in Falcor
    return [float(v[i]) for i in range(n)]


# ---------------------------------------------------------------------------------------------
# The shared Cornell box
# ---------------------------------------------------------------------------------------------
def check_cornell(scene):
    stats = scene.stats
    assert stats["meshCount"] == 8  # 5 walls, 2 boxes, the light
    assert stats["uniqueTriangleCount"] == 5 * 2 + 12 + 12 + 2
    by_name = {m.name: m for m in scene.materials}
    # the file's reflectances; Floor/Ceiling/BackWall/ShortBox/TallBox are equal and Falcor merges equal materials
    assert rgb(by_name["LeftWall"].baseColor) == half([0.63, 0.065, 0.05])
    assert rgb(by_name["RightWall"].baseColor) == half([0.14, 0.45, 0.091])
    assert rgb(by_name["Floor"].baseColor) == half([0.725, 0.71, 0.68])
    assert type(by_name["LeftWall"]).__name__ == "PBRTDiffuseMaterial"
    light = [m for m in scene.materials if m.emissive]
    assert len(light) == 1 and rgb(light[0].emissiveColor) == pytest.approx([17, 12, 4])  # AreaLightSource L
    camera = scene.camera
    # Transform [1 0 0 0  0 1 0 0  0 0 -1 0  0 -1 6.8 1] (column-major camera-from-world): eye at (0, 1, 6.8) looking down -z
    assert rgb(camera.position) == pytest.approx([0, 1, 6.8], abs=1e-6)
    forward = np.array(rgb(camera.target)) - np.array(rgb(camera.position))
    assert forward / np.linalg.norm(forward) == pytest.approx([0, 0, -1], abs=1e-6)
    fov_y = 2 * math.atan(0.5 * camera.frameHeight / camera.focalLength)
    assert math.degrees(fov_y) == pytest.approx(19.5, abs=1e-4)  # fov 19.5 on a square 1024x1024 film
    assert camera.aspectRatio == pytest.approx(1.0)


def test_cornell_box_through_load_scene():
    scene = falcor.load_scene(str(cornell()))
    check_cornell(scene)
    image = falcor.render(scene, spp=2, width=16, height=16)
    assert np.isfinite(image).all() and image.max() > 0


def test_cornell_box_through_a_pyscene(tmp_path):
    scene_file = tmp_path / "import.pyscene"
    scene_file.write_text(f"sceneBuilder.importScene(r'{cornell()}')\n")
    scene = falcor.load_scene(str(scene_file))
    check_cornell(scene)
    assert np.isfinite(falcor.render(scene, spp=1, width=8, height=8)).all()


def test_cornell_box_red_wall_is_on_the_left():
    """pbrt's image x axis is the camera's +x; here world +x, so the red wall (x = -1) is on the left."""
    image = falcor.render(str(cornell()), spp=4, width=16, height=16)
    left, right = image[4:12, 0:2].mean(axis=(0, 1)), image[4:12, 14:16].mean(axis=(0, 1))
    assert left[0] > 2 * left[1] and right[1] > right[0]


# --- the same box by hand -------------------------------------------------------------------------
WALLS = {  # name: (P, N) read from the file
    "Floor": ([-1, 1.74846e-7, -1, -1, 1.74846e-7, 1, 1, -1.74846e-7, 1, 1, -1.74846e-7, -1], [4.37114e-8, 1, 1.91069e-15]),
    "Ceiling": ([1, 2, 1, -1, 2, 1, -1, 2, -1, 1, 2, -1], [-8.74228e-8, -1, -4.37114e-8]),
    "BackWall": ([-1, 0, -1, -1, 2, -1, 1, 2, -1, 1, 0, -1], [8.74228e-8, -4.37114e-8, -1]),
    "RightWall": ([1, 0, -1, 1, 2, -1, 1, 2, 1, 1, 0, 1], [1, -4.37114e-8, 1.31134e-7]),
    "LeftWall": ([-1, 0, 1, -1, 2, 1, -1, 2, -1, -1, 0, -1], [-1, -4.37114e-8, -4.37114e-8]),
}
COLOURS = {"LeftWall": (0.63, 0.065, 0.05), "RightWall": (0.14, 0.45, 0.091), "Floor": (0.725, 0.71, 0.68),
           "Ceiling": (0.725, 0.71, 0.68), "BackWall": (0.725, 0.71, 0.68), "ShortBox": (0.725, 0.71, 0.68),
           "TallBox": (0.725, 0.71, 0.68)}
SHORT_BOX_P = [-0.0460751, 0.6, 0.573007, -0.0460751, -2.98023e-8, 0.573007, 0.124253, 0, 0.00310463, 0.124253, 0.6, 0.00310463,
               0.533009, 0, 0.746079, 0.533009, 0.6, 0.746079, 0.703337, 0.6, 0.176177, 0.703337, 2.98023e-8, 0.176177,
               0.533009, 0.6, 0.746079, -0.0460751, 0.6, 0.573007, 0.124253, 0.6, 0.00310463, 0.703337, 0.6, 0.176177,
               0.703337, 2.98023e-8, 0.176177, 0.124253, 0, 0.00310463, -0.0460751, -2.98023e-8, 0.573007, 0.533009, 0, 0.746079,
               0.533009, 0, 0.746079, -0.0460751, -2.98023e-8, 0.573007, -0.0460751, 0.6, 0.573007, 0.533009, 0.6, 0.746079,
               0.703337, 0.6, 0.176177, 0.124253, 0.6, 0.00310463, 0.124253, 0, 0.00310463, 0.703337, 2.98023e-8, 0.176177]
SHORT_BOX_N = [(-0.958123, -4.18809e-8, -0.286357), (0.958123, 4.18809e-8, 0.286357), (-4.37114e-8, 1, -1.91069e-15),
               (4.37114e-8, -1, 1.91069e-15), (-0.286357, -1.25171e-8, 0.958123), (0.286357, 1.25171e-8, -0.958123)]
TALL_BOX_P = [-0.720444, 1.2, -0.473882, -0.720444, 0, -0.473882, -0.146892, 0, -0.673479, -0.146892, 1.2, -0.673479,
              -0.523986, 0, 0.0906493, -0.523986, 1.2, 0.0906492, 0.0495656, 1.2, -0.108948, 0.0495656, 0, -0.108948,
              -0.523986, 1.2, 0.0906492, -0.720444, 1.2, -0.473882, -0.146892, 1.2, -0.673479, 0.0495656, 1.2, -0.108948,
              0.0495656, 0, -0.108948, -0.146892, 0, -0.673479, -0.720444, 0, -0.473882, -0.523986, 0, 0.0906493,
              -0.523986, 0, 0.0906493, -0.720444, 0, -0.473882, -0.720444, 1.2, -0.473882, -0.523986, 1.2, 0.0906492,
              0.0495656, 1.2, -0.108948, -0.146892, 1.2, -0.673479, -0.146892, 0, -0.673479, 0.0495656, 0, -0.108948]
TALL_BOX_N = [(-0.328669, -4.1283e-8, -0.944445), (0.328669, 4.1283e-8, 0.944445), (3.82137e-15, 1, -4.37114e-8),
              (-3.82137e-15, -1, 4.37114e-8), (-0.944445, 1.43666e-8, 0.328669), (0.944445, -1.43666e-8, -0.328669)]
BOX_INDICES = [0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6, 8, 10, 9, 8, 11, 10, 12, 14, 13, 12, 15, 14, 16, 18, 17, 16, 19, 18, 20, 22, 21, 20, 23, 22]
LIGHT_P = [-0.24, 1.98, -0.22, 0.23, 1.98, -0.22, 0.23, 1.98, 0.16, -0.24, 1.98, 0.16]
LIGHT_N = (-8.74228e-8, -1, 1.86006e-7)
QUAD_UV = [(0, 1), (1, 1), (1, 0), (0, 0)]  # the file's uv (0 0, 1 0, 1 1, 0 1) with v flipped to Falcor's top-left origin


def _unit(n):
    n = np.array(n, np.float64)
    return tuple(float(c) for c in n / np.linalg.norm(n))


def hand_written_cornell_pyscene(path: Path) -> Path:
    """The Cornell box through the Python scene API only (TriangleMesh, PBRT and emissive materials, camera)."""
    lines = ["import math", "root = sceneBuilder.addNode('pbrt', Transform())",
             "def mesh(name, P, N, uv, idx, material):",
             "    m = TriangleMesh()",
             "    m.name = name",
             "    for i in range(len(P) // 3):",
             "        m.addVertex(float3(P[3*i], P[3*i+1], P[3*i+2]), float3(*N[i]), float2(*uv[i]))",
             "    for t in range(len(idx) // 3):",
             "        m.addTriangle(idx[3*t], idx[3*t+1], idx[3*t+2])",
             "    sceneBuilder.addMeshInstance(root, sceneBuilder.addTriangleMesh(m, material))",
             "materials = {}"]
    for name, colour in COLOURS.items():
        lines += [f"materials[{name!r}] = PBRTDiffuseMaterial({name!r})",
                  f"materials[{name!r}].baseColor = float4({colour[0]}, {colour[1]}, {colour[2]}, 1.0)",
                  f"materials[{name!r}].doubleSided = True"]
    lines += ["light = StandardMaterial('Light_Emissive0')", "light.baseColor = float4(0, 0, 0, 1)",
              "light.metallic = 0.0", "light.roughness = 1.0", "light.emissiveColor = float3(17, 12, 4)",
              "light.emissiveFactor = 1.0", "light.doubleSided = True"]
    quad_idx = [0, 1, 2, 0, 2, 3]
    for name, (p, n) in WALLS.items():
        lines.append(f"mesh('{name}', {p}, {[_unit(n)] * 4}, {QUAD_UV}, {quad_idx}, materials['{name}'])")
    box_uv = QUAD_UV * 6
    lines.append(f"mesh('ShortBox', {SHORT_BOX_P}, {[_unit(n) for n in SHORT_BOX_N for _ in range(4)]}, {box_uv}, {BOX_INDICES}, materials['ShortBox'])")
    lines.append(f"mesh('TallBox', {TALL_BOX_P}, {[_unit(n) for n in TALL_BOX_N for _ in range(4)]}, {box_uv}, {BOX_INDICES}, materials['TallBox'])")
    lines.append(f"mesh('Light', {LIGHT_P}, {[_unit(LIGHT_N)] * 4}, {QUAD_UV}, {quad_idx}, light)")
    focal = 24.0 / (2.0 * math.tan(math.radians(19.5) / 2))
    lines += ["camera = Camera('Camera')", "camera.position = float3(0, 1, 6.8)", "camera.target = float3(0, 1, 5.8)",
              "camera.up = float3(0, 1, 0)", "camera.aspectRatio = 1.0", "camera.frameHeight = 24.0",
              f"camera.focalLength = {focal!r}", "camera.focalDistance = 1e6",  # pbrt's default focaldistance
              "sceneBuilder.addCamera(camera)"]
    path.write_text("\n".join(lines) + "\n")
    return path


def block_means(images: np.ndarray, block: int) -> np.ndarray:
    """(K, H, W, 3) renders -> (K, H/block, W/block, 3) means of block x block regions."""
    k, h, w, c = images.shape
    return images.reshape(k, h // block, block, w // block, block, c).mean(axis=(2, 4))


def renders(scene, seeds, spp=8, size=16) -> np.ndarray:
    return np.stack([falcor.render(scene, spp=spp, width=size, height=size, seed=s) for s in seeds])


def region_means_agree(a: np.ndarray, b: np.ndarray, block: int = 4, z: float = 5.0):
    """Region means of two sets of independent-seed renders agree within z standard errors of their
    difference; each region mean's standard error comes from its spread over the seeds (the per-pixel
    sample variance, averaged over the region's pixels and samples). Returns (agree, worst ratio)."""
    ma, mb = block_means(a, block), block_means(b, block)
    se = np.sqrt(ma.var(axis=0, ddof=1) / len(ma) + mb.var(axis=0, ddof=1) / len(mb))
    diff = np.abs(ma.mean(axis=0) - mb.mean(axis=0))
    ratio = diff / np.maximum(se, 1e-7)
    return bool(np.all(diff <= z * se + 1e-7)), float(ratio.max())


def test_cornell_box_agrees_with_the_same_box_written_by_hand(tmp_path):
    hand = falcor.load_scene(str(hand_written_cornell_pyscene(tmp_path / "cornell_by_hand.pyscene")))
    imported = falcor.load_scene(str(cornell()))
    assert hand.stats["uniqueTriangleCount"] == imported.stats["uniqueTriangleCount"]
    a, b = renders(imported, range(1, 5)), renders(hand, range(1, 5))
    assert np.isfinite(a).all() and np.isfinite(b).all()
    if not np.array_equal(a, b):  # identical scenes and seeds give the same bits; else the statistics decide
        agree, worst = region_means_agree(a, b)
        assert agree, f"largest region-mean difference is {worst:.1f} standard errors"


def test_region_mean_comparison_accepts_new_seeds_and_rejects_a_changed_wall(tmp_path):
    """The agreement test's statistic: the same scene with other seeds agrees; the box with the red wall
    20 % darker does not."""
    imported = falcor.load_scene(str(cornell()))
    a = renders(imported, range(1, 5))
    assert region_means_agree(a, renders(imported, range(5, 9)))[0]
    changed = hand_written_cornell_pyscene(tmp_path / "darker_wall.pyscene")
    changed.write_text(changed.read_text().replace("float4(0.63, 0.065, 0.05, 1.0)", "float4(0.504, 0.052, 0.04, 1.0)"))
    assert "0.504" in changed.read_text()
    assert not region_means_agree(a, renders(falcor.load_scene(str(changed)), range(5, 9)))[0]


# ---------------------------------------------------------------------------------------------
# Small files
# ---------------------------------------------------------------------------------------------
TRIANGLE = 'Shape "trianglemesh" "point3 P" [0 0 0 1 0 0 0 1 0] "integer indices" [0 1 2]\n'
HEADER = 'Film "rgb" "integer xresolution" [32] "integer yresolution" [32]\nCamera "perspective" "float fov" [45]\nWorldBegin\n'


def write(tmp_path, text: str, name="scene.pbrt") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load(tmp_path, text: str):
    return pbrt.load_pbrt(write(tmp_path, text))


def world_positions(ir_scene, mesh: int = 0, node: int = 0):
    m = ir_scene.world_matrix(node)
    p = ir_scene.meshes[mesh].positions.astype(np.float64)
    return p @ m[:3, :3].T + m[:3, 3]


@pytest.mark.parametrize("transform, expected", [
    ("Translate 1 2 3", [[1, 2, 3], [2, 2, 3], [1, 3, 3]]),
    ("Scale 2 3 4", [[0, 0, 0], [2, 0, 0], [0, 3, 0]]),
    ("Rotate 90 0 0 1", [[0, 0, 0], [0, 1, 0], [-1, 0, 0]]),
    ("Transform [1 0 0 0 0 1 0 0 0 0 1 0 5 6 7 1]", [[5, 6, 7], [6, 6, 7], [5, 7, 7]]),
    ("Translate 1 0 0 ConcatTransform [2 0 0 0 0 2 0 0 0 0 2 0 0 0 0 1]", [[1, 0, 0], [3, 0, 0], [1, 2, 0]]),
    ("Translate 9 9 9 Identity Translate 0 0 1", [[0, 0, 1], [1, 0, 1], [0, 1, 1]]),
    ("Translate 0 0 5 CoordinateSystem \"a\" Identity CoordSysTransform \"a\"", [[0, 0, 5], [1, 0, 5], [0, 1, 5]]),
    ("AttributeBegin Translate 5 0 0 AttributeEnd", [[0, 0, 0], [1, 0, 0], [0, 1, 0]]),
    ("TransformBegin Translate 5 0 0 TransformEnd", [[0, 0, 0], [1, 0, 0], [0, 1, 0]]),
])
def test_transforms(tmp_path, transform, expected):
    # A LookAt-free camera at the identity with det > 0 mirrors x (see test_lookat_camera_image_is_not_mirrored);
    # a camera with det < 0 keeps the world as written, which is what these checks want.
    scene = load(tmp_path, 'Scale -1 1 1\nCamera "perspective"\nWorldBegin\n' + transform + "\n" + TRIANGLE)
    assert np.sort(world_positions(scene), axis=0) == pytest.approx(np.sort(np.array(expected, float), axis=0), abs=1e-6)


def test_lookat_camera_image_is_not_mirrored(tmp_path):
    """pbrt's image x axis is the camera's +x = cross(up, dir): looking from z = -5 toward +z with +y up
    that is world +x, so a red quad at x > 0 is on the image's right (Falcor's cross(dir, up) would put
    it on the left without the importer's mirroring)."""
    text = ('LookAt 0 0 -5  0 0 0  0 1 0\nCamera "perspective" "float fov" [40]\nFilm "rgb" "integer xresolution" [16] '
            '"integer yresolution" [16]\nWorldBegin\nLightSource "infinite" "rgb L" [1 1 1]\n'
            'Material "diffuse" "rgb reflectance" [0.8 0 0]\n'
            'Shape "trianglemesh" "point3 P" [0.2 -1 0  1.5 -1 0  1.5 1 0  0.2 1 0] "integer indices" [0 1 2 0 2 3]\n')
    image = falcor.render(str(write(tmp_path, text)), spp=2, width=16, height=16)
    assert image[:, 10:, 0].mean() > 0.3 and image[:, :6, 0].mean() > 0.9  # background white on the left
    assert image[4:12, 11:14, 1].mean() < 0.1  # the red quad (no green) on the right


def test_lookat_matches_pbrts_formula(tmp_path):
    from falcor.scene.importers._pbrt_parser import look_at
    m = look_at([1, 2, 3], [1, 2, 4], [0, 1, 0])  # camera-from-world: eye -> origin, +z toward the target
    assert (m @ [1, 2, 3, 1])[:3] == pytest.approx([0, 0, 0])
    assert (m @ [1, 2, 4, 1])[:3] == pytest.approx([0, 0, 1])
    assert (m @ [2, 2, 3, 1])[:3] == pytest.approx([1, 0, 0])  # right = cross(up, dir) = cross(y, z) = x


def test_reverse_orientation_flips_the_winding(tmp_path):
    plain = load(tmp_path, TRIANGLE)
    flipped = load(tmp_path, "ReverseOrientation\n" + TRIANGLE)

    def face_normal(s):
        p = s.meshes[0].positions.astype(float)
        return np.cross(p[1] - p[0], p[2] - p[0])
    assert np.dot(face_normal(plain), face_normal(flipped)) < 0


def test_normals_decide_the_front_face(tmp_path):
    """pbrt turns the surface normal toward N; the triangle is wound so Falcor's front face agrees."""
    s = load(tmp_path, 'Shape "trianglemesh" "point3 P" [0 0 0 1 0 0 0 1 0] "normal N" [0 0 -1 0 0 -1 0 0 -1] "integer indices" [0 1 2]\n')
    p, n = s.meshes[0].positions.astype(float), s.meshes[0].normals
    assert np.dot(np.cross(p[1] - p[0], p[2] - p[0]), n[0]) > 0 and n[0][2] < 0


def test_attribute_defaults_apply_to_later_shapes(tmp_path):
    s = load(tmp_path, 'Attribute "shape" "float radius" [2]\nShape "sphere"\n')
    assert np.linalg.norm(s.meshes[0].positions, axis=1).max() == pytest.approx(2.0, rel=1e-5)


# --- materials ----------------------------------------------------------------------------------
def material_of(tmp_path, text):
    s = load(tmp_path, text + TRIANGLE)
    return s.materials[s.meshes[0].material]


def test_named_and_anonymous_materials(tmp_path):
    m = material_of(tmp_path, 'MakeNamedMaterial "red" "string type" "diffuse" "rgb reflectance" [0.9 0.1 0.2]\n'
                              'Material "diffuse" "rgb reflectance" [0 1 0]\nNamedMaterial "red"\n')
    assert m.name == "red" and rgb(m.baseColor) == half([0.9, 0.1, 0.2])
    m = material_of(tmp_path, 'Material "diffuse" "rgb reflectance" [0 1 0]\n')
    assert rgb(m.baseColor) == half([0, 1, 0])


def test_default_material_is_pbrts_grey_diffuse(tmp_path):
    m = material_of(tmp_path, "")
    assert type(m).__name__ == "PBRTDiffuseMaterial" and rgb(m.baseColor) == half([0.5, 0.5, 0.5])


def test_conductor_named_spectra_and_roughness(tmp_path):
    m = material_of(tmp_path, 'Material "conductor" "spectrum eta" "metal-Au-eta" "spectrum k" "metal-Au-k" '
                              '"float uroughness" [0.04] "float vroughness" [0.09]\n')
    assert type(m).__name__ == "PBRTConductorMaterial"
    assert rgb(m.baseColor) == half([0.143146, 0.374935, 1.44204])
    assert rgb(m.transmissionColor) == half([3.98378, 2.3857, 1.6027])
    assert rgb(m.roughness, 2) == half([0.2, 0.3])  # remapped: sqrt
    m = material_of(tmp_path, 'Material "conductor" "float roughness" [0.04] "bool remaproughness" false\n')
    assert rgb(m.roughness, 2) == half([0.04, 0.04])
    assert rgb(m.baseColor) == half([0.200445, 0.924036, 1.10186])  # copper by default


def test_conductor_reflectance_becomes_eta_and_k(tmp_path):
    m = material_of(tmp_path, 'Material "conductor" "rgb reflectance" [0.25 0.25 0.25]\n')
    assert rgb(m.baseColor) == half([1, 1, 1])
    assert rgb(m.transmissionColor) == half([2 * 0.5 / math.sqrt(0.75)] * 3)


@pytest.mark.parametrize("text, kind", [
    ('Material "coateddiffuse" "rgb reflectance" [0.1 0.2 0.3] "float roughness" [0.25]', "PBRTCoatedDiffuseMaterial"),
    ('Material "coatedconductor" "float interface.roughness" [0.01] "float conductor.roughness" [0.16]', "PBRTCoatedConductorMaterial"),
    ('Material "dielectric" "float eta" [1.33] "float roughness" [0]', "PBRTDielectricMaterial"),
    ('Material "thindielectric" "float eta" [1.4]', "StandardMaterial"),
    ('Material "diffusetransmission" "rgb reflectance" [0.3 0.3 0.3] "rgb transmittance" [0.2 0.4 0.6]', "PBRTDiffuseTransmissionMaterial"),
    ('Material "hair" "float eumelanin" [0.3]', "HairMaterial"),
    ('Material "mix" "string materials" ["a" "b"]', "StandardMaterial"),
])
def test_material_kinds(tmp_path, text, kind):
    m = material_of(tmp_path, text + "\n")
    assert type(m).__name__ == kind
    if kind == "PBRTCoatedDiffuseMaterial":
        assert rgb(m.baseColor) == half([0.1, 0.2, 0.3]) and rgb(m.roughness, 2) == half([0.5, 0.5])
    if kind == "PBRTCoatedConductorMaterial":
        assert rgb(m.roughness, 4) == half([0.1, 0.1, 0.4, 0.4])
    if kind == "PBRTDielectricMaterial":
        assert m.indexOfRefraction == half(1.33)
    if kind == "PBRTDiffuseTransmissionMaterial":
        assert rgb(m.transmissionColor) == half([0.2, 0.4, 0.6])


def test_imagemap_texture_on_reflectance(tmp_path):
    from PIL import Image
    Image.fromarray(np.full((4, 4, 3), [255, 0, 0], np.uint8)).save(tmp_path / "red.png")
    m = material_of(tmp_path, 'Texture "tex" "spectrum" "imagemap" "string filename" "red.png"\n'
                              'Material "diffuse" "texture reflectance" "tex"\n')
    assert m.getTexture(MaterialTextureSlot.BaseColor) is not None


def test_constant_texture_and_unknown_texture_kind(tmp_path, capfd):
    m = material_of(tmp_path, 'Texture "c" "spectrum" "checkerboard"\nMaterial "diffuse" "texture reflectance" "c"\n')
    assert m.getTexture(MaterialTextureSlot.BaseColor) is None
    assert "texture 'c' of type 'checkerboard' is skipped" in _output(capfd)
    with pytest.raises(falcor.ImporterError, match="line 1"):
        material_of(tmp_path, 'Material "diffuse" "texture reflectance" "missing"\n')


# --- shapes -------------------------------------------------------------------------------------
def test_sphere_disk_bilinear_and_subdivision(tmp_path):
    s = load(tmp_path, 'Shape "sphere" "float radius" [3]\nShape "disk" "float radius" [2] "float height" [1]\n'
                       'Shape "bilinearmesh" "point3 P" [0 0 0 1 0 0 0 1 0 1 1 0] "integer indices" [0 1 2 3]\n'
                       'Shape "loopsubdiv" "integer levels" [2] "point3 P" [0 0 0 1 0 0 0 1 0 0 0 1] '
                       '"integer indices" [0 2 1 0 1 3 0 3 2 1 2 3]\n')
    sphere, disk, quad, subdiv = s.meshes
    assert np.linalg.norm(sphere.positions, axis=1) == pytest.approx(3.0, rel=1e-5)
    assert disk.positions[:, 2] == pytest.approx(1.0) and np.linalg.norm(disk.positions[:, :2], axis=1).max() == pytest.approx(2.0)
    assert len(quad.indices) == 2
    assert len(subdiv.indices) == 4 * 16  # 4 faces, 2 levels


def test_cylinder(tmp_path):
    s = load(tmp_path, 'Shape "cylinder" "float radius" [2] "float zmin" [1] "float zmax" [3]\n')
    p = s.meshes[0].positions
    assert np.linalg.norm(p[:, :2], axis=1) == pytest.approx(2.0, rel=1e-5)
    assert p[:, 2].min() == pytest.approx(1.0) and p[:, 2].max() == pytest.approx(3.0)
    n = s.meshes[0].normals
    assert np.einsum("ij,ij->i", n[:, :2], p[:, :2]).min() > 0  # outward


def test_sphere_zmax_and_phimax(tmp_path):
    s = load(tmp_path, 'Shape "sphere" "float radius" [1] "float zmin" [0] "float phimax" [180]\n')
    p = s.meshes[0].positions
    assert p[:, 2].min() >= -1e-6 and p[:, 1].min() >= -1e-6  # upper half, phi in [0, 180] keeps y >= 0


def test_loop_subdivision_of_a_closed_mesh_keeps_it_closed():
    p = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], float)
    tri = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    p1, t1 = loop_subdivide_once(p, tri)
    assert len(p1) == 4 + 6 and len(t1) == 16
    edges = np.sort(np.concatenate([t1[:, [0, 1]], t1[:, [1, 2]], t1[:, [2, 0]]]), axis=1)
    assert (np.unique(edges, axis=0, return_counts=True)[1] == 2).all()  # every edge shared by two faces
    # interior vertex rule, valence 3: beta = 3/16 -> (1 - 9/16) v0 + 3/16 (v1 + v2 + v3)
    assert p1[0] == pytest.approx(3 / 16 * (p[1] + p[2] + p[3]))


def test_huge_subdivision_is_capped(tmp_path):
    s = load(tmp_path, 'Shape "loopsubdiv" "integer levels" [40] "point3 P" [0 0 0 1 0 0 0 1 0] "integer indices" [0 1 2]\n')
    assert 250_000 < len(s.meshes[0].indices) <= 1_000_000


def write_ply(path: Path, positions, faces):
    positions = np.asarray(positions, "<f4")
    faces = np.asarray(faces, "<i4")
    header = (f"ply\nformat binary_little_endian 1.0\nelement vertex {len(positions)}\nproperty float x\nproperty float y\n"
              f"property float z\nelement face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n")
    body = np.empty(len(faces), dtype=[("n", "u1"), ("i", "<i4", (faces.shape[1],))])
    body["n"], body["i"] = faces.shape[1], faces
    path.write_bytes(header.encode() + positions.tobytes() + body.tobytes())


def test_plymesh(tmp_path):
    (tmp_path / "geometry").mkdir()
    write_ply(tmp_path / "geometry" / "tri.ply", [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], [[0, 1, 2], [1, 3, 2]])
    s = load(tmp_path, 'Translate 0 0 2\nShape "plymesh" "string filename" "geometry/tri.ply"\n')
    assert len(s.meshes[0].indices) == 2 and s.meshes[0].positions[:, 2] == pytest.approx(2.0)


def test_curves_are_skipped_with_a_warning_naming_the_line(tmp_path, capfd):
    s = load(tmp_path, TRIANGLE + 'Shape "curve" "point3 P" [0 0 0 1 0 0 1 1 0 0 1 0] "float width" [0.1]\n')
    assert len(s.meshes) == 1
    assert "scene.pbrt:2: curve shapes are skipped" in _output(capfd)


# --- Include, Import, objects -------------------------------------------------------------------
def test_include_is_relative_to_the_including_file(tmp_path):
    (tmp_path / "sub").mkdir()
    write(tmp_path, 'Include "geo.pbrt"\n', "sub/part.pbrt")
    write(tmp_path, 'Translate 0 0 3\n' + TRIANGLE, "sub/geo.pbrt")
    s = load(tmp_path, 'Include "sub/part.pbrt"\n')
    assert len(s.meshes) == 1 and s.meshes[0].positions[:, 2] == pytest.approx(3.0)


def test_import_does_not_leak_its_graphics_state(tmp_path):
    write(tmp_path, 'Translate 0 0 3\nMakeNamedMaterial "m" "string type" "diffuse"\n' + TRIANGLE, "part.pbrt")
    s = load(tmp_path, 'Import "part.pbrt"\nNamedMaterial "m"\n' + TRIANGLE)
    assert s.meshes[0].positions[:, 2] == pytest.approx(3.0)
    assert s.meshes[1].positions[:, 2] == pytest.approx(0.0)  # the Translate stayed inside
    assert s.materials[s.meshes[1].material].name == "m"  # named materials come out


def test_self_include_names_file_and_line(tmp_path):
    write(tmp_path, 'WorldBegin\n\nInclude "loop.pbrt"\n', "loop.pbrt")
    with pytest.raises(falcor.ImporterError, match=r"loop\.pbrt.*line 3.*includes itself"):
        pbrt.load_pbrt(tmp_path / "loop.pbrt")


def test_object_instances_share_one_mesh(tmp_path):
    text = ('ObjectBegin "tri"\n' + TRIANGLE + 'ObjectEnd\nObjectInstance "tri"\nTranslate 5 0 0\nObjectInstance "tri"\n'
            'Translate 5 0 0\nObjectInstance "tri"\n')
    s = load(tmp_path, HEADER + text)
    assert len(s.meshes) == 1
    instances = [i for i, n in enumerate(s.nodes) if n.meshes]
    assert len(instances) == 3
    xs = sorted(float(s.world_matrix(i)[0, 3]) for i in instances)
    assert np.abs(xs) == pytest.approx([10, 5, 0][::-1] if xs[0] >= 0 else [10, 5, 0], abs=1e-9)
    scene = falcor.load_scene(str(write(tmp_path, HEADER + text, "objects.pbrt")))
    assert scene.stats["meshCount"] == 1 and scene.stats["meshInstanceCount"] == 3


# --- lights and camera --------------------------------------------------------------------------
def test_distant_point_spot_lights(tmp_path):
    s = load(tmp_path, 'Scale -1 1 1\nCamera "perspective"\nWorldBegin\n'
                       'LightSource "distant" "rgb L" [1 2 3] "float scale" [2] "point3 from" [0 0 0] "point3 to" [0 -1 0]\n'
                       'LightSource "point" "rgb I" [4 4 4] "point3 from" [1 2 3]\n'
                       'LightSource "spot" "rgb I" [1 1 1] "float coneangle" [20] "float conedeltaangle" [5] '
                       '"point3 from" [0 5 0] "point3 to" [0 0 0] "float power" [10]\n')
    distant, point, spot = s.lights
    assert type(distant).__name__ == "DirectionalLight"
    assert rgb(distant.intensity) == pytest.approx([2, 4, 6]) and rgb(distant.direction) == pytest.approx([0, -1, 0])
    assert rgb(point.position) == pytest.approx([1, 2, 3]) and rgb(point.intensity) == pytest.approx([4, 4, 4])
    assert spot.openingAngle == pytest.approx(math.radians(20)) and spot.penumbraAngle == pytest.approx(math.radians(5))
    solid = 2 * math.pi * (1 - 0.5 * (math.cos(math.radians(15)) + math.cos(math.radians(20))))
    assert rgb(spot.intensity) == pytest.approx([10 / solid] * 3, rel=1e-5)


def test_area_light_emission_is_L_times_scale(tmp_path):
    s = load(tmp_path, 'AttributeBegin\nAreaLightSource "diffuse" "rgb L" [1 2 3] "float scale" [4]\n' + TRIANGLE +
             'AttributeEnd\n' + TRIANGLE)
    lit, unlit = (s.materials[m.material] for m in s.meshes)
    assert rgb(lit.emissiveColor) == pytest.approx([4, 8, 12]) and not unlit.emissive


def texels(env) -> np.ndarray:
    t = env.texture
    return np.asarray(t.to_numpy()).reshape(t.height, t.width, -1)


def test_infinite_light_constant(tmp_path):
    s = load(tmp_path, 'LightSource "infinite" "rgb L" [0.5 0.25 1] "float scale" [2]\n')
    env = s.env_map
    assert env.intensity == pytest.approx(2.0)
    assert texels(env)[0, 0, :3] == pytest.approx([0.5, 0.25, 1.0])


def test_camera_fov_is_on_the_shorter_axis(tmp_path):
    s = load(tmp_path, 'Film "rgb" "integer xresolution" [100] "integer yresolution" [200]\n'
                       'Camera "perspective" "float fov" [40] "float lensradius" [0.1] "float focaldistance" [7]\nWorldBegin\n')
    c = s.cameras[0]
    assert c.aspectRatio == pytest.approx(0.5)
    fov_y = 2 * math.atan(0.5 * c.frameHeight / c.focalLength)
    fov_x = 2 * math.atan(math.tan(fov_y / 2) * 0.5)
    assert math.degrees(fov_x) == pytest.approx(40, rel=1e-5)  # the shorter axis is x
    assert c.apertureRadius == pytest.approx(0.1) and c.focalDistance == pytest.approx(7)


# --- equal-area octahedral env maps -------------------------------------------------------------
def test_octahedral_mapping_of_known_directions():
    dirs = np.array([[0, 0, 1], [1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]], float)
    expected = [[0.5, 0.5], [1, 0.5], [0, 0.5], [0.5, 1], [0.5, 0]]
    assert sphere_to_square(dirs) == pytest.approx(np.array(expected))
    corner = sphere_to_square(np.array([[0, 0, -1.0]]))[0]
    assert min(corner[0], 1 - corner[0]) == pytest.approx(0) and min(corner[1], 1 - corner[1]) == pytest.approx(0)


def test_octahedral_mapping_round_trip_and_equal_area():
    rng = np.random.default_rng(1)
    d = rng.normal(size=(1000, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    assert square_to_sphere(sphere_to_square(d)) == pytest.approx(d, abs=1e-6)
    # equal area: uniform square samples give uniform directions (mean z ~ 0, mean z^2 ~ 1/3)
    z = square_to_sphere(rng.random((200000, 2)))[:, 2]
    assert abs(z.mean()) < 0.01 and (z * z).mean() == pytest.approx(1 / 3, abs=0.01)


def test_octahedral_image_converted_to_latlong():
    """An octahedral image bright only near +z (light space) lands where Falcor's lat-long map looks along
    the world direction the light's transform sends +z to."""
    n = 64
    uv = (np.stack(np.meshgrid(np.arange(n), np.arange(n), indexing="xy"), -1) + 0.5) / n
    image = np.repeat((square_to_sphere(uv)[..., 2:3] > 0.9).astype(np.float32), 3, axis=-1)
    out = octahedral_to_latlong(image, np.eye(3))
    h, w = out.shape[:2]
    # Falcor direction +z is u = 0.5 +- 0.5 ... (sin t sin p, cos t, -sin t cos p) = (0,0,1) at t = pi/2, p = pi: u = 1 (and 0)
    assert out[h // 2, w - 1, 0] == pytest.approx(1.0) and out[h // 2, 0, 0] == pytest.approx(1.0)
    assert out[h // 2, w // 2, 0] == pytest.approx(0.0)  # -z
    assert out[0, :, 0].max() == 0.0  # +y


def test_infinite_light_image_file(tmp_path):
    from falcor.image_io import write_exr
    n = 32
    uv = (np.stack(np.meshgrid(np.arange(n), np.arange(n), indexing="xy"), -1) + 0.5) / n
    up = (square_to_sphere(uv)[..., 2] > 0.5).astype(np.float32)
    image = np.stack([up, up, up, np.ones_like(up)], -1)
    write_exr(tmp_path / "sky.exr", image, half=False)
    # Rotate -90 about x takes light +z to world +y (pbrt's usual z-up sky)
    s = load(tmp_path, 'Scale -1 1 1\nCamera "perspective"\nWorldBegin\nRotate -90 1 0 0\n'
                       'LightSource "infinite" "string filename" "sky.exr"\n')
    red = texels(s.env_map)[..., 0]
    assert red[0].mean() > 0.99 and red[-1].mean() < 0.01  # bright at the top (+y), dark at the bottom


# --- errors and warnings ------------------------------------------------------------------------
@pytest.mark.parametrize("text, line", [
    ('WorldBegin\nShape "trianglemesh" "point3 P" [0 0 0 1 0 0 0 1 0] "integer indices" [0 1 5]\n', 2),
    ('WorldBegin\n\nfrobnicate 1 2\n', 3),
    ('WorldBegin\nShape "sphere" "float radius" [nan]\n', 2),
    ('WorldBegin\nShape "sphere" "float radius" [1\n', 2),
    ('WorldBegin\nAttributeEnd\n', 2),
    ('WorldBegin\nShape "sphere" "float radius" "x\n', 2),
    ('WorldBegin\nNamedMaterial "nope"\n' + TRIANGLE, 2),
])
def test_errors_name_file_and_line(tmp_path, text, line):
    path = write(tmp_path, text, "bad.pbrt")
    with pytest.raises(falcor.ImporterError, match=rf"bad\.pbrt.*(line {line}|:{line}:)"):
        pbrt.load_pbrt(path)


def test_unknown_things_warn_once_naming_file_and_line(tmp_path, capfd):
    s = load(tmp_path, 'WorldBegin\nMakeNamedMedium "fog" "string type" "homogeneous"\nMediumInterface "fog" ""\n'
                       'LightSource "goniometric"\nShape "hyperboloid"\nFrobnicate "x" [1 2] 3\n' + TRIANGLE)
    assert len(s.meshes) == 1  # the triangle after the unknown directive
    err = _output(capfd)
    for expected in (":2: MakeNamedMedium", ":3: MediumInterface", ":4: light 'goniometric'", ":5: shape 'hyperboloid'",
                     ":6: unknown directive 'Frobnicate' is skipped"):
        assert expected in err


def test_render_small_files_have_finite_pixels(tmp_path):
    text = (HEADER + 'LightSource "distant" "rgb L" [3 3 3]\nLightSource "infinite" "rgb L" [0.2 0.2 0.2]\n'
            'AttributeBegin\nTranslate 0 0 5\nMaterial "conductor"\nShape "sphere"\nAttributeEnd\n'
            'AttributeBegin\nTranslate 2 0 6\nMaterial "dielectric"\nShape "disk"\nAttributeEnd\n'
            'AttributeBegin\nTranslate -2 0 6\nMaterial "coateddiffuse"\nShape "loopsubdiv" "integer levels" [2] '
            '"point3 P" [0 0 0 1 0 0 0 1 0 0 0 1] "integer indices" [0 2 1 0 1 3 0 3 2 1 2 3]\nAttributeEnd\n')
    image = falcor.render(str(write(tmp_path, text)), spp=2, width=16, height=16)
    assert np.isfinite(image).all() and image.max() > 0


# ---------------------------------------------------------------------------------------------
# For the load-time benchmark
# ---------------------------------------------------------------------------------------------
def write_benchmark_scene(folder: Path, triangles: int = 1_000_000) -> Path:
    """A pbrt scene of one plymesh (a binary PLY height-field grid of about `triangles` triangles)
    with a camera, a diffuse material and a distant light; returns the .pbrt path."""
    folder = Path(folder)
    side = max(1, int(math.sqrt(triangles / 2)))
    x, y = np.meshgrid(np.linspace(-1, 1, side + 1), np.linspace(-1, 1, side + 1))
    z = 0.1 * np.sin(6 * x) * np.cos(6 * y)
    positions = np.stack([x, y, z], -1).reshape(-1, 3)
    r, c = np.meshgrid(np.arange(side), np.arange(side), indexing="ij")
    i00 = r * (side + 1) + c
    faces = np.stack([i00, i00 + 1, i00 + side + 2, i00, i00 + side + 2, i00 + side + 1], -1).reshape(-1, 3)
    write_ply(folder / "grid.ply", positions, faces)
    path = folder / "benchmark.pbrt"
    path.write_text('LookAt 0 -3 3  0 0 0  0 0 1\nCamera "perspective" "float fov" [40]\n'
                    'Film "rgb" "integer xresolution" [64] "integer yresolution" [64]\nWorldBegin\n'
                    'LightSource "distant" "point3 from" [0 0 1] "point3 to" [0 0 0] "rgb L" [3 3 3]\n'
                    'Material "diffuse" "rgb reflectance" [0.5 0.5 0.5]\nShape "plymesh" "string filename" "grid.ply"\n')
    return path


def test_benchmark_scene_writer(tmp_path):
    path = write_benchmark_scene(tmp_path, triangles=2000)
    s = pbrt.load_pbrt(path)
    assert 1800 <= len(s.meshes[0].indices) <= 2000


def test_image_texture_is_upright_as_in_pbrt(tmp_path):
    """pbrt looks images up at (u, 1 - v): with v growing upward on the quad, the image's top row is at the
    top of the quad (Falcor 8 passes uv unflipped and shows it upside down)."""
    from PIL import Image
    pixels = np.zeros((8, 8, 3), np.uint8)
    pixels[:4] = [255, 0, 0]  # top half red
    pixels[4:] = [0, 0, 255]  # bottom half blue
    Image.fromarray(pixels).save(tmp_path / "halves.png")
    text = ('LookAt 0 0 -3  0 0 0  0 1 0\nCamera "perspective" "float fov" [50]\nWorldBegin\n'
            'LightSource "infinite" "rgb L" [1 1 1]\n'
            'Texture "halves" "spectrum" "imagemap" "string filename" "halves.png" "string filter" "point"\n'
            'Material "diffuse" "texture reflectance" "halves"\n'
            'Shape "trianglemesh" "point3 P" [-1 -1 0  1 -1 0  1 1 0  -1 1 0] "point2 uv" [0 0 1 0 1 1 0 1] '
            '"integer indices" [0 1 2 0 2 3]\n')
    image = falcor.render(str(write(tmp_path, text)), spp=4, width=16, height=16)
    top, bottom = image[4:7, 6:10].mean(axis=(0, 1)), image[9:12, 6:10].mean(axis=(0, 1))
    assert top[0] > 4 * top[2] and bottom[2] > 4 * bottom[0]


def test_include_depth_is_bounded(tmp_path):
    for k in range(40):
        write(tmp_path, f'Include "f{k + 1}.pbrt"\n', f"f{k}.pbrt")
    write(tmp_path, TRIANGLE, "f40.pbrt")
    with pytest.raises(falcor.ImporterError, match="deeper than 32"):
        pbrt.load_pbrt(tmp_path / "f0.pbrt")


def test_every_file_read_is_recorded(tmp_path):
    """Included files, PLY meshes, image textures and environment images are recorded for the scene cache."""
    from falcor.image_io import write_exr
    from falcor.scene.asset_log import recording_assets
    from PIL import Image
    Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / "tex.png")
    write_exr(tmp_path / "sky.exr", np.ones((8, 8, 4), np.float32), half=False)
    write_ply(tmp_path / "mesh.ply", [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
    write(tmp_path, TRIANGLE, "part.pbrt")
    main = write(tmp_path, 'WorldBegin\nInclude "part.pbrt"\nShape "plymesh" "string filename" "mesh.ply"\n'
                           'LightSource "infinite" "string filename" "sky.exr"\n'
                           'Texture "t" "spectrum" "imagemap" "string filename" "tex.png"\n'
                           'Material "diffuse" "texture reflectance" "t"\n' + TRIANGLE)
    with recording_assets() as files:
        pbrt.load_pbrt(main)
    recorded = {Path(f).resolve() for f in files}
    for name in ("scene.pbrt", "part.pbrt", "mesh.ply", "sky.exr", "tex.png"):
        assert (tmp_path / name).resolve() in recorded, name


def test_plymesh_normals_and_texture_coordinates(tmp_path):
    (tmp_path / "n.ply").write_text(
        "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
        "property float nx\nproperty float ny\nproperty float nz\nproperty float u\nproperty float v\n"
        "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
        "0 0 0 0 0 -1 0 0.25\n1 0 0 0 0 -1 1 0.25\n0 1 0 0 0 -1 0 1\n3 0 1 2\n")
    s = load(tmp_path, 'Shape "plymesh" "string filename" "n.ply"\n')
    mesh = s.meshes[0]
    assert len(mesh.positions) == 3  # smooth: no flat-shading expansion
    assert mesh.texcoords[:, 1] == pytest.approx([0.75, 0.75, 0.0])  # v -> 1 - v
    p = mesh.positions.astype(float)
    assert np.dot(np.cross(p[1] - p[0], p[2] - p[0]), mesh.normals[0]) > 0  # rewound to face N = -z


@pytest.mark.parametrize("instanced", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_one_sided_area_light_emits_on_pbrts_side(tmp_path, instanced, reverse):
    """The quad's N faces the camera, so pbrt shows it lit; ReverseOrientation turns it away (dark). Also
    through an object instance, whose node carries the handedness mirror of the LookAt camera."""
    shape = ('AreaLightSource "diffuse" "rgb L" [1 1 1]\n'
             'Shape "trianglemesh" "point3 P" [-1 -1 0  1 -1 0  1 1 0  -1 1 0] "normal N" [0 0 -1 0 0 -1 0 0 -1 0 0 -1] '
             '"integer indices" [0 1 2 0 2 3]\n')
    shape = ("ReverseOrientation\n" if reverse else "") + shape
    body = f'ObjectBegin "q"\n{shape}ObjectEnd\nObjectInstance "q"\n' if instanced else shape
    text = 'LookAt 0 0 -3  0 0 0  0 1 0\nCamera "perspective" "float fov" [50]\nWorldBegin\n' + body
    centre = falcor.render(str(write(tmp_path, text)), spp=2, width=8, height=8)[3:5, 3:5].mean()
    assert centre == pytest.approx(0.0 if reverse else 1.0, abs=1e-6)
