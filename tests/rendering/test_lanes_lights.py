"""The light samplers over SIMD lanes (EmissiveLightSampler::sampleLight / evalPdf /
evalSelectionPdf for the Uniform, Power and LightBVH kinds; EnvMapSampler::sample / toUv / evalUv /
evalPdfUv; the analytic lights' sampleLight, lane by lane) give every lane the bits of the one-path functions, at every lane width this machine
runs (4, 8, 16 lanes: sse2, avx2, avx512), through the `_lanes_lights` test hook
(Rendering/Lights/LightLanesCheck.h). Masked-off lanes draw no random numbers: the number each
row's generator gives after sampling is compared too."""
import numpy as np
import pytest

import falcor

R = falcor.rendering
SCENES = __import__("pathlib").Path(__file__).resolve().parents[2] / "Scenes"
from helpers import HOST_ISAS, isa_fixture
WIDTH = {"sse2": 4, "avx2": 8, "avx512": 16}
ROWS = 12_000
LAMP_HEIGHT = 1.5

# Output words of a row (LightLanesCheck.h).
EMISSIVE_VALID, TRIANGLE, EMISSIVE_PDF_WORD, EMISSIVE_NEXT, EVAL_PDF, SELECTION_PDF = 0, 1, 15, 16, 17, 18
ENV_VALID, ENV_PDF, ENV_NEXT, PDF_UV = 19, 26, 27, 33
ANALYTIC_VALID, ANALYTIC_PDF, ANALYTIC_NEXT = 34, 48, 49
ANALYTIC_LIGHTS = 7

# A textured lamp facing down, a glowing sphere (triangles of many areas: a spread-out power
# CDF), a dim cube, the sunset sky and one analytic light of each kind.
SCENE = f"""
def place(light, transform):
    sceneBuilder.addLight(light)
    sceneBuilder.createAnimation(light, light.name + 'Placement', 1.0).addKeyframe(0.0, transform)

place(RectLight('Rect'), Transform(translation=float3(0, 2.5, 0), rotationEulerDeg=float3(90, 0, 0), scaling=float3(0.6, 0.3, 1)))
place(DiscLight('Disc'), Transform(translation=float3(0.5, 2, 0), rotationEulerDeg=float3(90, 0, 0), scaling=0.5))
place(SphereLight('Sphere'), Transform(translation=float3(-1, 2, 1), scaling=0.4))
sun = DistantLight('Sun')
sun.direction = float3(0.2, -1, 0.1)
sun.angle = 0.1
sceneBuilder.addLight(sun)
sceneBuilder.addLight(DirectionalLight('Directional'))
sceneBuilder.addLight(PointLight('Point'))
spot = PointLight('Spot')
spot.position = float3(0, 3, 0)
spot.direction = float3(0, -1, 0)
spot.openingAngle = 0.6
spot.penumbraAngle = 0.2
sceneBuilder.addLight(spot)

lamp = StandardMaterial('Lamp')
lamp.loadTexture(MaterialTextureSlot.Emissive, r'{SCENES / "Textures" / "checker.png"}')
lamp.emissiveFactor = 4.0
glow = StandardMaterial('Glow')
glow.emissiveColor = float3(1.0, 0.6, 0.2)
glow.emissiveFactor = 3.0
dim = StandardMaterial('Dim')
dim.emissiveColor = float3(0.1, 0.2, 0.3)
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Lamp', Transform(translation=float3(0, {LAMP_HEIGHT}, 0), rotationEulerDeg=float3(180, 0, 0))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), lamp))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Glow', Transform(translation=float3(1, 0.5, 0), scaling=0.3)),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createSphere(1.0, 24, 12), glow))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Dim', Transform(translation=float3(-1, 0.3, 0.5), scaling=0.4)),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createCube(), dim))
env = EnvMap(r'{SCENES / "Images" / "Sunset.exr"}')
env.rotation = float3(0, 90, 0)
env.intensity = 1.5
sceneBuilder.envMap = env
"""


@pytest.fixture(scope="module")
def scene():
    built = falcor.load_scene_from_string(SCENE)
    built.update(0.0)
    yield built.native
    del built


isa = pytest.fixture(params=HOST_ISAS)(isa_fixture)


def unit(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def inputs(light_count, seed=27):
    """Random shading points, normals, hemisphere flags, light hits, directions and map
    coordinates, a fifth of the rows masked off, plus edge cases: points in the lamp's plane
    (grazing), lights hit at the shading point, edge-on and from behind, triangle indices that
    are not lights, the poles and seam of the map and a zero direction."""
    rng = np.random.default_rng(seed)
    n = ROWS
    pos = rng.uniform(-2, 2, (n, 3)).astype(np.float32)
    pos[: n // 10, 1] = LAMP_HEIGHT  # In the lamp's plane.
    normal = unit(rng.normal(size=(n, 3))).astype(np.float32)
    triangle = rng.integers(0, light_count, n).astype(np.uint32)
    triangle[::7] = light_count + rng.integers(0, 3, len(triangle[::7]))
    triangle[::11] = 0xFFFFFFFF
    pos_on_light = rng.uniform(-2, 2, (n, 3)).astype(np.float32)
    pos_on_light[::13] = pos[::13]  # Zero distance.
    normal_on_light = unit(rng.normal(size=(n, 3))).astype(np.float32)
    to_light = pos_on_light[1::13] - pos[1::13]
    normal_on_light[1::13] = unit(np.cross(to_light, rng.normal(size=to_light.shape))).astype(np.float32)  # Edge-on.
    dirs = unit(rng.normal(size=(n, 3))).astype(np.float32)
    dirs[:6] = [[0, 1, 0], [0, -1, 0], [0, 0, -1], [0, 0, 1], [1, 0, 0], [0, 0, 0]]
    uv = rng.random((n, 2)).astype(np.float32)
    edges = np.array([0.0, 1.0, 0.5, np.nextafter(np.float32(1), np.float32(0)), 0.25, 1 / 3], np.float32)
    uv[6:6 + len(edges) ** 2] = np.stack(np.meshgrid(edges, edges), -1).reshape(-1, 2)
    return {"light": rng.integers(0, ANALYTIC_LIGHTS, n).astype(np.uint32), "pos": pos, "normal": normal, "upper": rng.random(n) < 0.5, "active": rng.random(n) < 0.8,
            "seed": rng.integers(0, 2**32, n, dtype=np.uint32), "triangle": triangle, "pos_on_light": pos_on_light,
            "normal_on_light": normal_on_light, "dir": dirs, "uv": uv}


def float_words(words, column):
    return words[:, column].view(np.float32)


@pytest.mark.parametrize("kind", ["Uniform", "Power", "LightBVH"])
def test_light_sampling_over_lanes_matches_the_one_path_bits(scene, isa, kind):
    light_count = R._lanes_lights(scene, kind, {k: v[:0] for k, v in inputs(1).items()}, lanes=False)["light_count"]
    assert light_count > 100
    data = inputs(light_count)
    reference = R._lanes_lights(scene, kind, data, lanes=False)
    lanes = R._lanes_lights(scene, kind, data, lanes=True)
    assert reference["lane_width"] == 1 and lanes["lane_width"] == WIDTH[isa]
    ref, got = reference["words"], lanes["words"]
    mismatched = np.flatnonzero((ref != got).any(axis=1))
    assert mismatched.size == 0, f"{mismatched.size} rows differ, first {mismatched[:5]}: {ref[mismatched[0]]} vs {got[mismatched[0]]}"

    # The inputs reach every branch: found and facing-away lights, hits on lights and not, sky
    # samples, and masked-off rows (their generators did not move).
    active = data["active"]
    found = ref[:, EMISSIVE_VALID] == 1
    assert found.sum() > ROWS // 4 and (active & ~found).sum() > ROWS // 20
    assert (float_words(ref, EMISSIVE_PDF_WORD)[found] > 0).all()
    assert len(np.unique(ref[found, TRIANGLE])) > light_count // 10
    assert (float_words(ref, EVAL_PDF) > 0).sum() > ROWS // 10 and (active & (float_words(ref, EVAL_PDF) == 0)).sum() > ROWS // 5
    assert (float_words(ref, SELECTION_PDF) > 0).sum() > ROWS // 4
    assert (ref[:, ENV_VALID] == 1).sum() == active.sum() and (float_words(ref, ENV_PDF)[active] > 0).all()
    assert (ref[~active, EMISSIVE_VALID] == 0).all() and (ref[~active, TRIANGLE] == 0xFFFFFFFF).all()
    # A masked-off row's next number is its stream's first; an active row's is a later one.
    first_numbers = R._lanes_lights(scene, kind, {**data, "active": np.zeros(ROWS, bool)}, lanes=False)["words"]
    assert np.array_equal(ref[~active, EMISSIVE_NEXT], first_numbers[~active, EMISSIVE_NEXT])
    assert (ref[active, EMISSIVE_NEXT] != first_numbers[active, EMISSIVE_NEXT]).mean() > 0.99
    assert np.array_equal(ref[~active, ENV_NEXT], first_numbers[~active, ENV_NEXT])
    analytic = ref[:, ANALYTIC_VALID] == 1
    assert (analytic == active).mean() < 1 and analytic.sum() > ROWS // 2 and (ref[~active, ANALYTIC_VALID] == 0).all()
    assert len(np.unique(data["light"][analytic & (float_words(ref, ANALYTIC_PDF) > 0)])) == 4  # The area and distant lights.
    assert np.array_equal(ref[~active, ANALYTIC_NEXT], first_numbers[~active, ANALYTIC_NEXT])
    inside = (data["uv"][:, 1] > 0) & (data["uv"][:, 1] < 1)  # sin θ > 0
    assert (float_words(ref, PDF_UV)[inside] > 0).all() and (float_words(ref, PDF_UV)[~inside] == 0).all()


def test_lanes_lights_hook_names_the_bad_input(scene):
    data = inputs(10)
    with pytest.raises(KeyError, match="inputs has no 'uv'"):
        R._lanes_lights(scene, "Uniform", {k: v for k, v in data.items() if k != "uv"}, lanes=True)
    with pytest.raises(ValueError, match=r"inputs\['normal'\] must be a \(12000, 3\) array"):
        R._lanes_lights(scene, "Uniform", {**data, "normal": data["normal"][:, :2]}, lanes=True)
    light = data["light"].copy()
    light[5] = ANALYTIC_LIGHTS
    data["active"][5] = True
    with pytest.raises(ValueError, match=r"inputs\['light'\]\[5\] = 7 is not one of the scene's 7 analytic lights"):
        R._lanes_lights(scene, "Uniform", {**data, "light": light}, lanes=True)
