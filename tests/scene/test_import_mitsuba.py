"""Mitsuba 3 scene importer (.xml): the shared Cornell box loaded both ways and checked against the
values its file holds (written here by hand: Mitsuba 3.9.1's own RGB values of its spectra), small
files written here for each feature, and two agreement tests: the same box written by hand as a
.pyscene, and Mitsuba's own render of cbox.xml (tests/scene/data/mitsuba_cbox_64x64.exr, made by
tests/scene/data/make_mitsuba_cbox_reference.py)."""
from __future__ import annotations

import math
from pathlib import Path

import falcor
import numpy as np
import pytest
from falcor.scene.importers.mitsuba import load_mitsuba, read_mitsuba
from falcor.scene.material import MaterialTextureSlot, MaterialType
from helpers import read_texture
from shared_files import shared_path

DATA = Path(__file__).parent / "data"
CBOX_FOV = 39.3077  # the file's fov (fov_axis "smaller" on a square film: horizontal = vertical)
# Mitsuba 3.9.1 scalar_rgb values of the file's spectra (mi.spectrum_list_to_srgb / mi.traverse)
WHITE = (0.735013, 0.735625, 0.736264)
RED = (0.49132, 0.049228, 0.0509219)
GREEN = (0.0682821, 0.39776, 0.0862908)
LIGHT = (0.776368, 0.779809, 0.776029)
RADIANCE = (20.7108, 10.8546, 2.77115)


def cbox() -> Path:
    return shared_path("assets", "mitsuba", "cbox", "cbox.xml")


def half(values):
    return pytest.approx([float(np.float16(v)) for v in values], rel=1e-6)  # Falcor stores half floats


def half1(value):
    return pytest.approx(float(np.float16(value)), rel=1e-6)


def focal_length(fov_y_degrees: float, frame_height: float = 24.0) -> float:
    return frame_height / (2.0 * math.tan(math.radians(fov_y_degrees) / 2.0))


def write(folder: Path, body: str, name: str = "scene.xml", version: str = "3.0.0") -> Path:
    """A scene file whose body starts on line 2."""
    path = folder / name
    path.write_text(f'<scene version="{version}">\n{body}\n</scene>\n')
    return path


def pyscene(folder: Path, target: Path, params: dict | None = None) -> Path:
    path = folder / "import.pyscene"
    path.write_text(f"sceneBuilder.importScene(r'{target}'{', ' + repr(params) if params else ''})\n")
    return path


def finite_render(scene, size=16, spp=2):
    image = falcor.render(scene, spp=spp, width=size, height=size, max_bounces=2)
    assert np.isfinite(image).all()
    return image


# ---------------------------------------------------------------------------------------------
# The shared Cornell box
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("way", ["load_scene", "pyscene"])
def test_cbox_loads_with_the_files_values(tmp_path, way):
    path = cbox() if way == "load_scene" else pyscene(tmp_path, cbox())
    scene = falcor.load_scene(path)
    stats = scene.stats
    # 8 OBJ shapes: luminaire, floor, ceiling, back, green wall, red wall (2 triangles each but the
    # ceiling's 4) and two boxes of 12; 'box' and 'white' are the same diffuse (the builder merges them).
    assert (stats["meshCount"], stats["meshInstanceCount"], stats["uniqueTriangleCount"]) == (8, 8, 38)
    materials = {m.name: m for m in scene.materials}
    assert sorted(materials) == ["green", "light.emitter", "red", "white"]
    assert materials["white"].type == MaterialType.PBRTDiffuse
    assert list(materials["white"].baseColor)[:3] == half(WHITE)
    assert list(materials["red"].baseColor)[:3] == half(RED)
    assert list(materials["green"].baseColor)[:3] == half(GREEN)
    lamp = materials["light.emitter"]
    assert list(lamp.emissiveColor) == pytest.approx(RADIANCE, rel=1e-4)
    assert list(lamp.baseColor)[:3] == half(LIGHT)
    camera = scene.camera
    assert camera.focalLength == pytest.approx(focal_length(CBOX_FOV), rel=1e-5)
    assert list(camera.position) == pytest.approx([278, 273, -800])
    assert list(camera.target) == pytest.approx([278, 273, -799])
    assert list(camera.up) == pytest.approx([0, 1, 0])
    assert (camera.nearPlane, camera.farPlane, camera.aspectRatio) == (10.0, 2800.0, 1.0)
    finite_render(scene)


def test_cbox_settings_and_loader_parameters():
    _, settings = read_mitsuba(cbox())
    assert (settings.width, settings.height, settings.spp, settings.max_depth) == (256, 256, 128, 6)
    assert settings.max_surface_bounces == 4  # max_depth 6 = primary hit + 4 bounces + the light's vertex
    _, settings = read_mitsuba(cbox(), {"res": "64", "spp": "8", "max_depth": "3"})
    assert (settings.width, settings.height, settings.spp, settings.max_depth, settings.max_surface_bounces) == (64, 64, 8, 3, 1)


def test_cbox_luminaire_is_translated_and_faces_down():
    scene = load_mitsuba(cbox())
    lamp = next(m for m in scene.meshes if m.name == "cbox_luminaire")
    assert np.allclose(lamp.positions[:, 1], 548.8 - 0.5)  # the file's y = 548.8, to_world translate y -0.5
    p = lamp.positions[lamp.indices[0]]
    normal = np.cross(p[1] - p[0], p[2] - p[0])
    assert normal[1] < 0 and np.allclose(lamp.normals, [0, -1, 0])


# ---------------------------------------------------------------------------------------------
# Parameters, references, includes, transforms
# ---------------------------------------------------------------------------------------------
def rectangle_positions(scene, index=0):
    return scene.meshes[index].positions


def test_defaults_substitution_and_loader_dict(tmp_path):
    path = write(tmp_path, """<default name="s" value="2"/>
<default name="sx" value="3"/>
<shape type="rectangle"><transform name="to_world"><scale x="$sx" y="$s"/></transform></shape>""")
    p = rectangle_positions(load_mitsuba(path))
    assert p[:, 0].max() == 3 and p[:, 1].max() == 2  # "$sx" is not "$s" followed by "x"
    p = rectangle_positions(load_mitsuba(path, {"s": "5"}))
    assert p[:, 0].max() == 3 and p[:, 1].max() == 5  # the loader's dict wins over <default>
    scene = falcor.load_scene(pyscene(tmp_path, path, {"s": "7"}))  # importScene(path, dict)
    assert scene.bounds.maxPoint[1] == pytest.approx(7)


def test_undefined_parameter_names_file_and_line(tmp_path):
    path = write(tmp_path, '<shape type="rectangle">\n<float name="x" value="$nothing"/></shape>')
    with pytest.raises(falcor.ImporterError, match=r"scene\.xml:3: undefined parameter \$nothing"):
        load_mitsuba(path)


def test_references_forward_and_missing(tmp_path):
    path = write(tmp_path, """<shape type="rectangle"><ref id="red"/></shape>
<bsdf type="diffuse" id="red"><rgb name="reflectance" value="0.8, 0.1, 0.1"/></bsdf>""")
    scene = load_mitsuba(path)
    assert list(scene.materials[scene.meshes[0].material].baseColor)[:3] == half([0.8, 0.1, 0.1])
    path = write(tmp_path, '<shape type="rectangle">\n  <ref id="nope"/>\n</shape>')
    with pytest.raises(falcor.ImporterError, match=r'scene\.xml:3: <ref id="nope">: no object has this id'):
        load_mitsuba(path)


def test_include_relative_self_and_depth(tmp_path):
    (tmp_path / "parts").mkdir()
    write(tmp_path / "parts", '<bsdf type="diffuse" id="grey"><rgb name="reflectance" value="0.3"/></bsdf>', "materials.xml")
    path = write(tmp_path, '<include filename="parts/materials.xml"/>\n<shape type="cube"><ref id="grey"/></shape>')
    scene = load_mitsuba(path)
    assert list(scene.materials[0].baseColor)[:3] == half([0.3] * 3)
    own = write(tmp_path, '<shape type="cube"/>\n<include filename="self.xml"/>', "self.xml")
    with pytest.raises(falcor.ImporterError, match=r"self\.xml:3: <include> of 'self\.xml' includes a file that is already being read"):
        load_mitsuba(own)
    for k in range(20):  # a chain deeper than Mitsuba's 15
        write(tmp_path, f'<include filename="chain{k + 1}.xml"/>' if k < 19 else "", f"chain{k}.xml")
    with pytest.raises(falcor.ImporterError, match="nested more than 15 files deep"):
        load_mitsuba(tmp_path / "chain0.xml")


def test_transforms_compose_in_file_order(tmp_path):
    path = write(tmp_path, """<shape type="rectangle"><transform name="to_world">
  <scale x="2"/><rotate z="1" angle="90"/><translate x="5"/>
</transform></shape>
<shape type="rectangle"><transform name="to_world">
  <matrix value="1 0 0 10  0 1 0 0  0 0 1 0  0 0 0 1"/><rotate x="1" angle="180"/>
</transform></shape>""")
    scene = load_mitsuba(path)
    # corner (1, 1, 0): scale -> (2, 1, 0), rotate 90 about z -> (-1, 2, 0), translate -> (4, 2, 0)
    assert any(np.allclose(p, [4, 2, 0]) for p in scene.meshes[0].positions)
    assert np.allclose(scene.meshes[0].normals, [0, 0, 1])
    # matrix first, then the half-turn about x: (1, 1, 0) -> (11, 1, 0) -> (11, -1, 0); the normal turns to -z
    assert any(np.allclose(p, [11, -1, 0], atol=1e-6) for p in scene.meshes[1].positions)
    assert np.allclose(scene.meshes[1].normals, [0, 0, -1], atol=1e-6)


# ---------------------------------------------------------------------------------------------
# Sensors
# ---------------------------------------------------------------------------------------------
def sensor_file(folder, sensor_type="perspective", props="", width=200, height=100):
    return write(folder, f"""<sensor type="{sensor_type}">{props}
  <transform name="to_world"><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
  <film type="hdrfilm"><integer name="width" value="{width}"/><integer name="height" value="{height}"/></film>
</sensor>""")


@pytest.mark.parametrize("axis, fov_y", [
    ("x", 2 * math.degrees(math.atan(math.tan(math.radians(30)) / 2))),
    ("y", 60.0),
    ("diagonal", 2 * math.degrees(math.atan(math.tan(math.radians(30)) / math.sqrt(5)))),
    ("smaller", 60.0),  # the film is wider than tall: the smaller axis is y
    ("larger", 2 * math.degrees(math.atan(math.tan(math.radians(30)) / 2))),
])
def test_fov_axis(tmp_path, axis, fov_y):
    scene = load_mitsuba(sensor_file(tmp_path, props=f'<float name="fov" value="60"/><string name="fov_axis" value="{axis}"/>'))
    (camera,) = scene.cameras
    assert camera.focalLength == pytest.approx(focal_length(fov_y), rel=1e-5)
    assert camera.aspectRatio == 2.0
    assert list(camera.position) == pytest.approx([0, 0, 5]) and list(camera.target) == pytest.approx([0, 0, 4])


def test_focal_length_and_clip_planes(tmp_path):
    scene = load_mitsuba(sensor_file(tmp_path, props='<string name="focal_length" value="50mm"/>'
                                                     '<float name="near_clip" value="0.5"/><float name="far_clip" value="50"/>', width=300, height=200))
    diagonal = 2 * math.atan(math.hypot(36, 24) / 100)  # 35 mm film diagonal at 50 mm
    fov_y = 2 * math.degrees(math.atan(math.tan(diagonal / 2) / math.hypot(1.5, 1)))
    camera = scene.cameras[0]
    assert camera.focalLength == pytest.approx(focal_length(fov_y), rel=1e-5)
    assert (camera.nearPlane, camera.farPlane) == (0.5, 50.0)


def test_lookat_without_up_turns_the_camera_as_mitsuba_does(tmp_path):
    path = write(tmp_path, '<sensor type="perspective"><transform name="to_world"><lookat origin="1, 2, 3" target="1.3, 2.2, 3.9"/>'
                           '</transform></sensor>')
    camera = load_mitsuba(path).cameras[0]
    # Mitsuba 3.9.1's to_world of this sensor: columns left, up, forward (its up from coordinate_system)
    assert list(camera.up) == pytest.approx([0.950347, -0.0331019, -0.309426], abs=1e-6)
    assert list(camera.target) == pytest.approx([1 + 0.309426, 2 + 0.206284, 3 + 0.928279], abs=1e-6)


def test_thinlens(tmp_path):
    scene = load_mitsuba(sensor_file(tmp_path, "thinlens", '<float name="fov" value="45"/><float name="aperture_radius" value="0.25"/>'
                                                           '<float name="focus_distance" value="7"/>'))
    camera = scene.cameras[0]
    assert (camera.apertureRadius, camera.focalDistance) == (0.25, 7.0)


# ---------------------------------------------------------------------------------------------
# Emitters
# ---------------------------------------------------------------------------------------------
def test_point_directional_spot_and_constant(tmp_path):
    path = write(tmp_path, """<emitter type="point"><rgb name="intensity" value="1, 2, 3"/><point name="position" x="1" y="2" z="3"/></emitter>
<emitter type="point"><transform name="to_world"><translate x="4"/></transform></emitter>
<emitter type="directional"><vector name="direction" x="0" y="-1" z="0"/><rgb name="irradiance" value="5"/></emitter>
<emitter type="spot"><float name="cutoff_angle" value="30"/><float name="beam_width" value="20"/>
  <transform name="to_world"><lookat origin="0, 5, 0" target="0, 0, 0" up="0, 0, 1"/></transform></emitter>
<emitter type="constant"><rgb name="radiance" value="0.5, 0.25, 0.125"/></emitter>""")
    scene = load_mitsuba(path)
    point, moved, sun, spot = scene.lights
    assert list(point.position) == [1, 2, 3] and list(point.intensity) == [1, 2, 3]
    assert list(moved.position) == [4, 0, 0] and list(moved.intensity) == [1, 1, 1]
    assert list(sun.direction) == pytest.approx([0, -1, 0]) and list(sun.intensity) == [5, 5, 5]
    assert list(spot.position) == pytest.approx([0, 5, 0]) and list(spot.direction) == pytest.approx([0, -1, 0])
    assert spot.openingAngle == pytest.approx(math.radians(30)) and spot.penumbraAngle == pytest.approx(math.radians(10))
    texels = read_texture(scene.env_map.texture)
    assert texels.shape[:2] == (1, 1) and list(texels[0, 0, :3]) == [0.5, 0.25, 0.125]


def test_uniform_emitter_spectrum_is_mitsubas_rgb(tmp_path):
    path = write(tmp_path, '<emitter type="constant"><spectrum name="radiance" value="1"/></emitter>')
    texel = read_texture(load_mitsuba(path).env_map.texture)[0, 0, :3]
    assert list(texel) == pytest.approx([1.204794, 0.948291, 0.908916], rel=1e-5)  # mi.xyz_to_srgb((1, 1, 1))


@pytest.mark.parametrize("row, mitsuba_green", [(0, 0.1796924), (2, 0.3984481), (7, 0.9453135)])
def test_envmap_direction_matches_mitsubas_lat_long(tmp_path, row, mitsuba_green):
    """A camera looking along a direction sees what Mitsuba's envmap shows there. Mitsuba 3.9
    (src/emitters/envmap.cpp): d_local = to_world^-1 d, u = atan2(x, -z) / 2 pi (texel-centred
    columns), v = acos(y) / pi with row j at v = j / (H - 1) (rows on the poles). `mitsuba_green`
    is what Mitsuba 3.9.1 rendered (scalar_rgb) along the centre of texel (row, 3) of this 16x8
    image, whose green channel is (row + 1) / 8: a blend of two rows, as its rows sit elsewhere."""
    width, height, column = 16, 8, 3
    u, v = np.meshgrid(np.arange(width), np.arange(height))
    image = np.stack([(u + 1) / width, (v + 1) / height, np.full(u.shape, 0.5)], axis=-1).astype(np.float32)
    falcor.image_io.write_exr(tmp_path / "sky.exr", image)
    phi, theta = 2 * math.pi * (column + 0.5) / width, math.pi * (row + 0.5) / height
    local = np.array([math.sin(phi) * math.sin(theta), math.cos(theta), -math.cos(phi) * math.sin(theta)])
    d = rotation([1, 0, 0], 25) @ rotation([0, 1, 0], 70) @ local  # to_world: rotate about y first, then x
    path = write(tmp_path, f"""<emitter type="envmap"><string name="filename" value="sky.exr"/><float name="scale" value="2"/>
  <transform name="to_world"><rotate y="1" angle="70"/><rotate x="1" angle="25"/></transform></emitter>
<sensor type="perspective"><float name="fov" value="0.5"/>
  <transform name="to_world"><lookat origin="0, 0, 0" target="{d[0]}, {d[1]}, {d[2]}" up="{0.1 + d[1]}, 1, 0"/></transform>
  <film type="hdrfilm"><integer name="width" value="3"/><integer name="height" value="3"/></film></sensor>""")
    scene = falcor.load_scene(path)
    assert scene.envMap.intensity == 2
    pixel = falcor.render(scene, spp=1, width=3, height=3, max_bounces=0)[1, 1]
    position = (row + 0.5) * (height - 1) / height  # Mitsuba's row coordinate of this direction
    green = np.interp(position, np.arange(height), (np.arange(height) + 1) / height)
    assert green == pytest.approx(mitsuba_green, rel=2e-4)
    assert list(pixel) == pytest.approx([2 * (column + 1) / width, 2 * green, 1.0], rel=2e-3)


def rotation(axis, degrees):
    from falcor.scene.importers._mitsuba_xml import rotation as mitsuba_rotation

    return mitsuba_rotation(np.array(axis, float), degrees)


def test_area_emitter_on_a_rectangle_is_one_sided_and_emissive(tmp_path):
    path = write(tmp_path, """<shape type="rectangle"><emitter type="area"><rgb name="radiance" value="4, 3, 2"/></emitter></shape>
<sensor type="perspective"><float name="fov" value="30"/>
  <transform name="to_world"><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform></sensor>""")
    scene = falcor.load_scene(path)
    (material,) = scene.materials
    assert list(material.emissiveColor) == [4, 3, 2] and not material.doubleSided
    front = falcor.render(scene, spp=1, width=3, height=3, max_bounces=0)[1, 1]
    assert list(front) == pytest.approx([4, 3, 2], rel=1e-5)
    scene.camera.position, scene.camera.target = falcor.float3(0, 0, -5), falcor.float3(0, 0, 0)
    back = falcor.render(scene, spp=1, width=3, height=3, max_bounces=0)[1, 1]
    assert list(back) == [0, 0, 0]  # Mitsuba's area emitters emit on the front side only


# ---------------------------------------------------------------------------------------------
# BSDFs and textures
# ---------------------------------------------------------------------------------------------
def material_of(body: str, folder: Path):
    scene = load_mitsuba(write(folder, f'<shape type="rectangle">{body}</shape>'))
    return scene.materials[scene.meshes[0].material]


def test_conductors(tmp_path):
    gold = material_of('<bsdf type="conductor"><string name="material" value="Au"/></bsdf>', tmp_path)
    assert gold.type == MaterialType.PBRTConductor and not gold.doubleSided
    assert list(gold.baseColor)[:3] == half([0.143036, 0.375307, 1.442045])  # Mitsuba's scalar_rgb eta of Au
    assert list(gold.transmissionColor) == half([3.982997, 2.385556, 1.603359])  # and k
    assert list(gold.roughness) == [0, 0]
    mirror = material_of('<bsdf type="conductor"/>', tmp_path)  # material "none": eta 0, k 1
    assert list(mirror.baseColor)[:3] == [0, 0, 0] and list(mirror.transmissionColor) == [1, 1, 1]
    rough = material_of('<bsdf type="roughconductor"><string name="distribution" value="ggx"/>'
                        '<float name="alpha_u" value="0.1"/><float name="alpha_v" value="0.3"/>'
                        '<rgb name="eta" value="0.2, 0.9, 1.1"/><rgb name="k" value="3.9, 2.4, 2.1"/></bsdf>', tmp_path)
    assert list(rough.roughness) == half([0.1, 0.3])
    assert list(rough.transmissionColor) == half([3.9, 2.4, 2.1])
    with pytest.raises(falcor.ImporterError, match=r"scene\.xml:2: unknown conductor material 'Unobtainium'"):
        material_of('<bsdf type="conductor"><string name="material" value="Unobtainium"/></bsdf>', tmp_path)


def test_dielectrics_and_plastic(tmp_path):
    glass = material_of('<bsdf type="dielectric"/>', tmp_path)  # bk7 in air
    assert glass.type == MaterialType.PBRTDielectric
    assert glass.indexOfRefraction == half1(1.5046 / 1.000277)
    water = material_of('<bsdf type="roughdielectric"><string name="int_ior" value="water"/><float name="ext_ior" value="1"/>'
                        '<float name="alpha" value="0.2"/></bsdf>', tmp_path)
    assert water.indexOfRefraction == half1(1.333) and list(water.roughness) == half([0.2, 0.2])
    thin = material_of('<bsdf type="thindielectric"/>', tmp_path)
    assert thin.type == MaterialType.Standard and thin.thinSurface and thin.specularTransmission == 1
    plastic = material_of('<bsdf type="roughplastic"><rgb name="diffuse_reflectance" value="0.1, 0.2, 0.6"/>'
                          '<float name="alpha" value="0.05"/></bsdf>', tmp_path)
    assert plastic.type == MaterialType.PBRTCoatedDiffuse
    # Mitsuba's default plastic (nonlinear=false) reflects rho / (1 - F), F = 0.590479 its internal diffuse
    # Fresnel reflectance at eta 1.49 / 1.000277; our coat's walk gives rho' / (1 - rho' F): rho' = k / (1 + k F), k = rho / (1 - F)
    assert list(plastic.baseColor)[:3] == half([0.213416, 0.379063, 0.785537])
    nonlinear = material_of('<bsdf type="plastic"><boolean name="nonlinear" value="true"/><rgb name="diffuse_reflectance" value="0.1, 0.2, 0.6"/>'
                            '</bsdf>', tmp_path)
    assert list(nonlinear.baseColor)[:3] == half([0.1, 0.2, 0.6])
    assert plastic.indexOfRefraction == half1(1.49 / 1.000277)  # polypropylene in air
    assert list(plastic.roughness) == half([0.05, 0.05])


@pytest.mark.parametrize("bsdf, extra, mitsuba", [
    ("plastic", "", (0.23131749, 0.51995504, 0.8085922)),
    ("roughplastic", '<string name="distribution" value="ggx"/>', (0.21289058, 0.47433376, 0.73577684)),
    ("diffuse", "", (0.2, 0.5, 0.8)),
])
def test_plastic_reflects_what_mitsubas_does_in_a_furnace(tmp_path, bsdf, extra, mitsuba):
    """A sphere under uniform white light: the centre 8x8 pixels of Mitsuba 3.9.1's render (scalar_rgb,
    4096 spp, max_depth 12) of this file. Mitsuba's plastic (nonlinear=false) brightens the base as if
    internal reflections came back unabsorbed; the importer remaps the base colour of our layered coat
    to match. Within 4 %: 256 spp of noise and the models' differences (measured: plastic within 1 %,
    roughplastic within 2.4 %)."""
    name = "reflectance" if bsdf == "diffuse" else "diffuse_reflectance"
    path = write(tmp_path, f"""<integrator type="path"><integer name="max_depth" value="12"/></integrator>
<sensor type="perspective"><float name="fov" value="20"/><transform name="to_world"><lookat origin="0, 0, 5" target="0, 0, 0" up="0, 1, 0"/></transform>
  <film type="hdrfilm"><integer name="width" value="32"/><integer name="height" value="32"/><rfilter type="box"/></film></sensor>
<emitter type="constant"><rgb name="radiance" value="1"/></emitter>
<shape type="sphere"><bsdf type="{bsdf}">{extra}<rgb name="{name}" value="0.2, 0.5, 0.8"/></bsdf></shape>""")
    image = falcor.render(falcor.load_scene(path), spp=256, width=32, height=32, max_bounces=10)
    assert list(image[12:20, 12:20].mean(axis=(0, 1))) == pytest.approx(mitsuba, rel=0.04)


def test_twosided_and_one_sided(tmp_path):
    one = material_of('<bsdf type="diffuse"/>', tmp_path)
    two = material_of('<bsdf type="twosided"><bsdf type="diffuse"><rgb name="reflectance" value="0.2"/></bsdf></bsdf>', tmp_path)
    assert not one.doubleSided and two.doubleSided
    assert list(one.baseColor)[:3] == half([0.5] * 3) and list(two.baseColor)[:3] == half([0.2] * 3)


def test_bitmap_and_checkerboard_textures(tmp_path):
    from PIL import Image

    Image.fromarray(np.array([[[255, 0, 0], [0, 255, 0]], [[0, 0, 255], [255, 255, 255]]], np.uint8)).save(tmp_path / "tex.png")
    textured = material_of('<bsdf type="diffuse"><texture type="bitmap" name="reflectance"><string name="filename" value="tex.png"/>'
                           '</texture></bsdf>', tmp_path)
    texels = read_texture(textured.getTexture(MaterialTextureSlot.BaseColor))
    assert texels.shape[:2] == (2, 2) and list(texels[0, 1, :3]) == [0, 255, 0]
    Image.fromarray(np.full((2, 2, 3), 128, np.uint8)).save(tmp_path / "grey.png")
    plastic = material_of('<bsdf type="plastic"><texture type="bitmap" name="diffuse_reflectance"><string name="filename" value="grey.png"/>'
                          '</texture></bsdf>', tmp_path)
    texels = read_texture(plastic.getTexture(MaterialTextureSlot.BaseColor))
    # sRGB 128 is linear 0.2158605, remapped for Mitsuba's linear plastic (see test_dielectrics_and_plastic) to 0.401987
    assert texels.dtype == np.float32 and list(texels[1, 1, :3]) == pytest.approx([0.401987] * 3, rel=1e-4)
    checker = material_of('<bsdf type="diffuse"><texture type="checkerboard" name="reflectance">'
                          '<rgb name="color0" value="0.9"/><rgb name="color1" value="0.1"/>'
                          '<transform name="to_uv"><scale x="2" y="2"/></transform></texture></bsdf>', tmp_path)
    texels = read_texture(checker.getTexture(MaterialTextureSlot.BaseColor))[..., 0]
    size = texels.shape[0]
    # uv (0.1, 0.1) -> (0.2, 0.2): both fractions <= 1/2, so color0; uv (0.3, 0.1) -> (0.6, 0.2): color1
    assert texels[int(0.1 * size), int(0.1 * size)] == pytest.approx(0.9)
    assert texels[int(0.1 * size), int(0.3 * size)] == pytest.approx(0.1)
    assert texels[int(0.3 * size), int(0.3 * size)] == pytest.approx(0.9)


def test_bitmap_on_a_rectangle_is_oriented_as_in_mitsuba(tmp_path):
    """Mitsuba 3.9.1 renders this (16x16, 64 spp) with the image's top-left quadrant (red) at the
    rectangle's bottom left: uv = ((x + 1) / 2, (y + 1) / 2), v = 0 the image's top row."""
    image = np.zeros((8, 8, 3), np.float32)
    image[:4, :4], image[:4, 4:], image[4:, :4], image[4:, 4:] = [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]
    falcor.image_io.write_exr(tmp_path / "quad.exr", image)
    path = write(tmp_path, """<sensor type="perspective"><float name="fov" value="40"/>
  <transform name="to_world"><lookat origin="0, 0, 4" target="0, 0, 0" up="0, 1, 0"/></transform></sensor>
<emitter type="constant"><rgb name="radiance" value="1"/></emitter>
<shape type="rectangle"><bsdf type="diffuse"><texture type="bitmap" name="reflectance"><string name="filename" value="quad.exr"/>
</texture></bsdf></shape>""")
    out = falcor.render(falcor.load_scene(path), spp=16, width=16, height=16, max_bounces=0)
    dominant = {corner: int(np.argmax(out[r, c])) if out[r, c].max() - out[r, c].min() > 0.5 else "white"
                for corner, (r, c) in {"top left": (4, 4), "top right": (4, 11), "bottom left": (11, 4), "bottom right": (11, 11)}.items()}
    assert dominant == {"top left": 2, "top right": "white", "bottom left": 0, "bottom right": 1}  # blue, white, red, green


# ---------------------------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------------------------
def outward(mesh) -> bool:
    p = mesh.positions[mesh.indices]
    normals = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    centre = mesh.positions.mean(axis=0)
    return bool(np.all(np.einsum("ij,ij->i", normals, p.mean(axis=1) - centre) > 0))


def test_analytic_shapes_as_mitsuba_defines_them(tmp_path):
    path = write(tmp_path, """<shape type="rectangle"/>
<shape type="disk"/>
<shape type="cube"/>
<shape type="sphere"><point name="center" x="1" y="2" z="3"/><float name="radius" value="2"/></shape>
<shape type="cube"><boolean name="flip_normals" value="true"/></shape>""")
    rect, disk, cube, sphere, inverted = load_mitsuba(path).meshes
    assert np.allclose(rect.positions.min(axis=0), [-1, -1, 0]) and np.allclose(rect.positions.max(axis=0), [1, 1, 0])
    assert np.allclose(rect.normals, [0, 0, 1])
    assert np.allclose(np.cross(*(rect.positions[rect.indices[0][1:]] - rect.positions[rect.indices[0][0]])), [0, 0, 4])
    assert np.allclose(np.linalg.norm(disk.positions[:, :2], axis=1).max(), 1) and np.allclose(disk.positions[:, 2], 0)
    assert np.allclose(cube.positions.min(axis=0), -1) and np.allclose(cube.positions.max(axis=0), 1) and outward(cube)
    assert np.allclose(np.linalg.norm(sphere.positions - [1, 2, 3], axis=1), 2, atol=1e-5) and outward(sphere)
    assert np.allclose(sphere.normals, (sphere.positions - [1, 2, 3]) / 2, atol=1e-5)
    assert not outward(inverted) and np.allclose(inverted.normals, -cube.normals)


def test_mesh_files_normals_and_instances(tmp_path):
    (tmp_path / "tent.obj").write_text("v 0 0 0\nv 1 0 0\nv 0.5 1 0\nv 0.5 0.5 -1\nvt 0 0.25\nf 1/1 2/1 3/1\nf 2/1 4/1 3/1\n")
    (tmp_path / "tri.ply").write_text("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                                      "property float u\nproperty float v\nelement face 1\nproperty list uchar int vertex_indices\n"
                                      "end_header\n0 0 0 0 0.25\n1 0 0 1 0.25\n0 1 0 0 1\n3 0 1 2\n")
    path = write(tmp_path, """<shape type="obj"><string name="filename" value="tent.obj"/></shape>
<shape type="obj"><string name="filename" value="tent.obj"/><boolean name="face_normals" value="true"/></shape>
<shape type="ply"><string name="filename" value="tri.ply"/></shape>
<shape type="shapegroup" id="group"><shape type="ply"><string name="filename" value="tri.ply"/></shape></shape>
<shape type="instance"><ref id="group"/><transform name="to_world"><translate z="10"/></transform></shape>
<shape type="instance"><ref id="group"/><transform name="to_world"><translate z="20"/></transform></shape>""")
    smooth, flat, ply, first, second = load_mitsuba(path).meshes
    assert np.allclose(smooth.texcoords[:, 1], 0.75)  # OBJ's v flipped (flip_tex_coords true by default), as Mitsuba does
    shared = [i for i, p in enumerate(smooth.positions) if np.allclose(p, [1, 0, 0])]
    # the file has no normals: Mitsuba's vertex normals blend the two faces at the shared edge
    assert all(abs(smooth.normals[i][2]) > 0.1 and abs(smooth.normals[i][0]) > 0.1 for i in shared)
    assert len(flat.positions) == 6 and {tuple(np.round(n, 5)) for n in flat.normals} == {(0, 0, 1), tuple(np.round(flat.normals[3], 5))}
    assert ply.name == "tri" and np.allclose(ply.normals, [0, 0, 1])
    assert np.allclose(ply.texcoords[:, 1], [0.25, 0.25, 1])  # Mitsuba reads PLY uv as stored (flip_tex_coords false)
    assert np.allclose(first.positions[:, 2], 10) and np.allclose(second.positions[:, 2], 20)


def test_every_mapped_feature_renders_finite(tmp_path):
    (tmp_path / "tri.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    falcor.image_io.write_exr(tmp_path / "sky.exr", np.full((4, 8, 3), 0.2, np.float32))
    path = write(tmp_path, """<sensor type="thinlens"><float name="fov" value="50"/><float name="aperture_radius" value="0.02"/>
  <float name="focus_distance" value="5"/><transform name="to_world"><lookat origin="0, 1, 6" target="0, 0, 0" up="0, 1, 0"/></transform></sensor>
<emitter type="envmap"><string name="filename" value="sky.exr"/><transform name="to_world"><rotate y="1" angle="40"/></transform></emitter>
<emitter type="point"><point name="position" x="0" y="3" z="2"/><rgb name="intensity" value="10"/></emitter>
<emitter type="directional"><vector name="direction" x="1" y="-1" z="0"/><rgb name="irradiance" value="1"/></emitter>
<emitter type="spot"><transform name="to_world"><lookat origin="0, 4, 0" target="0, 0, 0" up="0, 0, 1"/></transform></emitter>
<shape type="rectangle"><transform name="to_world"><scale value="5"/><rotate x="1" angle="-90"/></transform>
  <bsdf type="diffuse"><texture type="checkerboard" name="reflectance"/></bsdf></shape>
<shape type="sphere"><point name="center" x="-1.5" y="0.5" z="0"/><float name="radius" value="0.5"/><bsdf type="dielectric"/></shape>
<shape type="sphere"><point name="center" x="0" y="0.5" z="0"/><float name="radius" value="0.5"/>
  <bsdf type="roughconductor"><string name="material" value="Cu"/></bsdf></shape>
<shape type="cube"><transform name="to_world"><scale value="0.4"/><translate x="1.5" y="0.4"/></transform>
  <bsdf type="twosided"><bsdf type="roughplastic"/></bsdf></shape>
<shape type="disk"><transform name="to_world"><translate y="3"/><rotate x="1" angle="90"/></transform>
  <emitter type="area"><rgb name="radiance" value="5"/></emitter></shape>
<shape type="obj"><string name="filename" value="tri.obj"/><bsdf type="thindielectric"/></shape>""")
    image = falcor.render(falcor.load_scene(path), spp=4, width=24, height=24, max_bounces=3)
    assert np.isfinite(image).all() and image.mean() > 0.01


# ---------------------------------------------------------------------------------------------
# Skipped features warn with file:line; bad files raise naming file:line
# ---------------------------------------------------------------------------------------------
def test_unmapped_things_warn_once_with_file_and_line(tmp_path, capfd):
    path = write(tmp_path, """<integrator type="volpath"><integer name="max_depth" value="4"/><boolean name="hide_emitters" value="true"/></integrator>
<medium type="homogeneous" id="fog"/>
<shape type="cylinder"/>
<shape type="cube"><bsdf type="principled"/></shape>
<emitter type="projector"/>
<shape type="cube"><bsdf type="roughconductor"/></shape>""")
    scene = falcor.load_scene(path)
    err = capfd.readouterr()
    text = err.out + err.err
    for line, what in [(3, '<medium type="homogeneous"> is skipped'), (4, '<shape type="cylinder"> is skipped'),
                       (5, '<bsdf type="principled"> is skipped'), (6, '<emitter type="projector"> is skipped'),
                       (7, "the beckmann microfacet distribution is approximated by GGX"),
                       (2, "the integrator's 'hide_emitters' is skipped")]:
        assert f"scene.xml:{line}: {what}" in text, (line, text)
    assert scene.stats["meshCount"] == 2


@pytest.mark.parametrize("content, message", [
    ('<shape type="cube"/>', r"scene\.xml:1: the root element is <shape>, not <scene>"),
    ('<scene version="3.0.0"><shape type="cube">', r"scene\.xml:1: not well-formed XML"),
    ('<?xml version="1.0"?>\n<!DOCTYPE s [<!ENTITY a "aaaa">]>\n<scene version="3.0.0"/>', r"scene\.xml:2: DOCTYPE and ENTITY declarations are refused"),
    ('<scene><shape type="cube"/></scene>', r"scene\.xml:1: <scene> has no version attribute"),
    ('<scene version="3.0.0">\n<shape type="sphere"><float name="radius" value="nan"/></shape></scene>', r"scene\.xml:2: 'nan' is not a number"),
    ('<scene version="3.0.0">\n<shape type="cube"><transform name="to_world"><scale x="0"/></transform></shape></scene>',
     r"scene\.xml:2: the shape's to_world is singular"),
    ('<scene version="3.0.0">\n<shape type="obj"><string name="filename" value="missing.obj"/></shape></scene>',
     r"scene\.xml:2: can't find the mesh file 'missing\.obj'"),
    ('<scene version="3.0.0">\n<bsdf type="diffuse" id="a"/>\n<bsdf type="diffuse" id="a"/></scene>', r"scene\.xml:3: the id 'a' is used twice"),
    ('<scene version="3.0.0">\n<sensor type="perspective"><float name="fov" value="200"/></sensor></scene>', r"scene\.xml:2: fov 200"),
])
def test_bad_files_raise_naming_file_and_line(tmp_path, content, message):
    path = tmp_path / "scene.xml"
    path.write_text(content)
    with pytest.raises(falcor.ImporterError, match=message):
        falcor.load_scene(path)


def test_spectrum_file_and_out_of_gamut_clamp(tmp_path, capfd):
    (tmp_path / "pure.spd").write_text("# wavelength value\n400 0\n549 0\n550 1\n551 0\n700 0\n")
    path = write(tmp_path, '<shape type="cube"><bsdf type="diffuse"><spectrum name="reflectance" filename="pure.spd"/></bsdf></shape>')
    color = list(load_mitsuba(path).materials[0].baseColor)[:3]
    # A narrow green line lies outside sRGB: Mitsuba clamps its red and blue to 0 (and warns)
    assert color[0] == 0 and color[2] == 0 and 0 < color[1] < 0.05
    assert "scene.xml:2: the spectrum 'reflectance' is out of the sRGB gamut" in capfd.readouterr().out


def test_scene_cache_sees_an_included_file_change(tmp_path):
    (tmp_path / "part.xml").write_text('<scene version="3.0.0"><shape type="cube"><transform name="to_world">'
                                       '<scale value="2"/></transform></shape></scene>')
    path = write(tmp_path, '<include filename="part.xml"/>')
    assert falcor.load_scene(path).bounds.maxPoint[0] == 2
    (tmp_path / "part.xml").write_text((tmp_path / "part.xml").read_text().replace('value="2"', 'value="5"'))
    assert falcor.load_scene(path).bounds.maxPoint[0] == 5


def test_version_1_property_names_are_upgraded(tmp_path):
    path = write(tmp_path, '<shape type="cube"><bsdf type="dielectric"><float name="intIOR" value="1.7"/></bsdf></shape>', version="0.6.0")
    scene = load_mitsuba(path)
    assert scene.materials[0].indexOfRefraction == half1(1.7 / 1.000277)


# ---------------------------------------------------------------------------------------------
# Agreement: the same box by hand, and Mitsuba's own render
# ---------------------------------------------------------------------------------------------
SIZE, BLOCK, SPP = 64, 4, 512
MITSUBA_SPP = 16384  # tests/scene/data/make_mitsuba_cbox_reference.py ... 64 16384


def block_means(image: np.ndarray) -> np.ndarray:
    n = SIZE // BLOCK
    return image.reshape(n, BLOCK, n, BLOCK, 3).mean(axis=(1, 3))


def render_with_variance(scene):
    """(block means, their standard errors) of a PathTracer render at the file's max_depth 6
    (maxSurfaceBounces 4), SPP frames of one sample each (as falcor.render renders them: each frame
    its own sub-pixel position), with the per-pixel sample variance: a block mean's variance is the
    sum of its pixels' variances of the mean over the block's pixel count squared."""
    import sys

    from falcor.renderer import Renderer

    graph = sys.modules["falcor.render"]._path_tracing_graph("PathTracer", SPP, 4, {}, 0)
    renderer = Renderer(SIZE, SIZE)
    renderer.addGraph(graph)
    renderer.set_scene(scene)
    renderer.clock.pause()
    total, squares = np.zeros((SIZE, SIZE, 3)), np.zeros((SIZE, SIZE, 3))
    for _ in range(SPP):
        renderer.renderFrame()
        sample = np.asarray(graph.get_output("PathTracer.color"), np.float64)[..., :3]
        total += sample
        squares += sample * sample
    mean = total / SPP
    variance_of_mean = np.maximum(squares / SPP - mean * mean, 0.0) * SPP / (SPP - 1) / SPP
    return block_means(mean), np.sqrt(block_means(variance_of_mean) / BLOCK ** 2), mean


HAND_WRITTEN_CBOX = """
import math
from pathlib import Path

folder = Path(r'{folder}')

def diffuse(name, rgb):
    material = PBRTDiffuseMaterial(name)
    material.baseColor = float4(*rgb, 1.0)
    return material

white, red, green = diffuse('white', {white}), diffuse('red', {red}), diffuse('green', {green})
lamp = StandardMaterial('lamp')
lamp.baseColor = float4(*{light}, 1.0)
lamp.roughness, lamp.metallic = 1.0, 0.0
lamp.emissiveColor = float3(*{radiance})
for name, material in [('luminaire', lamp), ('floor', white), ('ceiling', white), ('back', white), ('greenwall', green),
                       ('redwall', red), ('smallbox', white), ('largebox', white)]:
    mesh = TriangleMesh.createFromFile(folder / f'cbox_{{name}}.obj')
    offset = -0.5 if name == 'luminaire' else 0.0
    node = sceneBuilder.addNode(name, Transform(translation=float3(0, offset, 0)))
    sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(mesh, material))
camera = Camera('camera')
camera.position, camera.target, camera.up = float3(278, 273, -800), float3(278, 273, -799), float3(0, 1, 0)
camera.focalLength = 24.0 / (2.0 * math.tan(math.radians({fov}) / 2.0))
camera.nearPlane, camera.farPlane = 10.0, 2800.0
sceneBuilder.addCamera(camera)
"""


def test_cbox_agrees_with_the_same_box_written_by_hand(tmp_path):
    """Region means of the import and of the hand-written .pyscene agree within 5 standard errors
    of their difference (from the per-pixel sample variance), or are bitwise equal."""
    path = tmp_path / "cbox_by_hand.pyscene"
    path.write_text(HAND_WRITTEN_CBOX.format(folder=cbox().parent / "meshes", white=WHITE, red=RED, green=GREEN, light=LIGHT,
                                             radiance=RADIANCE, fov=CBOX_FOV))
    (a, sa, image_a), (b, sb, image_b) = render_with_variance(falcor.load_scene(cbox())), render_with_variance(falcor.load_scene(path))
    if np.array_equal(image_a, image_b):
        print("cbox by hand: bitwise equal")
        return
    z = np.abs(a - b) / np.maximum(np.hypot(sa, sb), 1e-7)
    print(f"cbox by hand: max |z| {z.max():.2f}, max relative {(np.abs(a - b) / np.maximum(b, 1e-3)).max():.5f}")
    assert z.max() < 5, f"largest difference {z.max():.2f} standard errors at block {np.unravel_index(z.argmax(), z.shape)}"


# The figures (this machine): max |z| and the largest relative block difference are printed by the test.
SYSTEMATIC_ALLOWANCE = 0.02  # of the reference block: half floats, Halton vs independent pixel samples, the lamp's reflection


def test_cbox_agrees_with_mitsubas_render():
    """Our render of the imported cbox.xml (PathTracer, maxSurfaceBounces 4 = the file's max_depth 6)
    against Mitsuba 3.9.1's scalar_rgb render of the same file at 64x64, 16384 spp. Each 4x4 block
    mean (per channel) must agree within 5 standard errors of the difference plus 2 % of the
    reference: our standard error from the per-pixel sample variance of 512 spp; the reference's
    estimated from ours, as the same per-sample variance over its 16384 spp."""
    reference = block_means(np.asarray(falcor.read_image(DATA / "mitsuba_cbox_64x64.exr"), np.float64)[..., :3])
    ours, error, _ = render_with_variance(falcor.load_scene(cbox()))
    reference_error = error * math.sqrt(SPP / MITSUBA_SPP)
    tolerance = 5 * np.hypot(error, reference_error) + SYSTEMATIC_ALLOWANCE * reference
    excess = np.abs(ours - reference) / tolerance
    z = np.abs(ours - reference) / np.maximum(np.hypot(error, reference_error), 1e-7)
    relative = np.abs(ours - reference) / np.maximum(reference, 1e-3)
    print(f"cbox vs Mitsuba: max |z| {z.max():.2f}, median |z| {np.median(z):.2f}, max relative {relative.max():.4f}, "
          f"image mean ours {ours.mean(axis=(0, 1))} Mitsuba {reference.mean(axis=(0, 1))}")
    assert excess.max() <= 1, f"block {np.unravel_index(excess.argmax(), excess.shape)}: {ours.flat[excess.argmax()]:.5f} vs " \
                              f"{reference.flat[excess.argmax()]:.5f} (|z| {z.flat[excess.argmax()]:.1f})"
    assert abs(ours.mean() / reference.mean() - 1) < 0.01  # the whole image within 1 %
