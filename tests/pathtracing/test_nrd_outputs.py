"""The PathTracer's NRD denoiser outputs: how they recombine into the color it renders, and the
delta reflection / transmission guide paths against scene geometry.

With demodulation each sample's radiance is split by path type and divided by the reflectance it
will be multiplied back with, so color = emission + Σ reflectance · radiance over the types.
Without demodulation the five radiance outputs simply partition the color."""
import numpy as np
import pytest

import falcor
from pt_helpers import SCENES, make_renderer, vbuffer_graph

RADIANCE = ["nrdDiffuseRadianceHitDist", "nrdSpecularRadianceHitDist", "nrdDeltaReflectionRadianceHitDist",
            "nrdDeltaTransmissionRadianceHitDist", "nrdResidualRadianceHitDist"]
PRIMARY = ["nrdEmission", "nrdDiffuseReflectance", "nrdSpecularReflectance"]
DELTA_REFLECTION = ["nrdDeltaReflectionReflectance", "nrdDeltaReflectionEmission", "nrdDeltaReflectionNormWRoughMaterialID",
                    "nrdDeltaReflectionPathLength", "nrdDeltaReflectionHitDist"]
DELTA_TRANSMISSION = ["nrdDeltaTransmissionReflectance", "nrdDeltaTransmissionEmission", "nrdDeltaTransmissionNormWRoughMaterialID",
                      "nrdDeltaTransmissionPathLength", "nrdDeltaTransmissionPosW"]
ALL = ["color", "albedo"] + RADIANCE + PRIMARY + DELTA_REFLECTION + DELTA_TRANSMISSION
INVALID_LENGTH = 65504.0  # Largest half float: Falcor's kNRDInvalidPathLength.

# A camera at z = 4 looking down -z at a quad in the plane z = 0 that fills the view, and a
# diffuse emitting wall in the plane z = 6 behind the camera (facing it). {front} is the
# quad's material; {back} optionally adds a diffuse wall at z = -2 seen through it.
SCENE = """
def standard(name, base, metallic=0.0, roughness=1.0, transmission=0.0, emission=None):
    m = StandardMaterial(name)
    m.baseColor = float4(base[0], base[1], base[2], 1)
    m.metallic = metallic
    m.roughness = roughness
    m.specularTransmission = transmission
    m.indexOfRefraction = 1.5
    if emission:
        m.emissiveColor = float3(emission[0], emission[1], emission[2])
    m.doubleSided = True
    return m

quad = TriangleMesh.createQuad()
def place(name, material, z, flip):
    node = sceneBuilder.addNode(name, Transform(scaling=float3(40, 1, 40), translation=float3(0, 0, z),
                                                 rotationEulerDeg=float3(-90 if flip else 90, 0, 0)))
    sceneBuilder.addMeshInstance(node, sceneBuilder.addTriangleMesh(quad, material))

place('Front', {front}, 0, False)
place('Wall', standard('Wall', (0.5, 0.25, 0.125), emission=(0.5, 1.0, 2.0)), 6, True)
{back}
camera = Camera()
camera.position = float3(0, 0, 4)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
camera.focalLength = 100.0
sceneBuilder.addCamera(camera)
"""
MIRROR = "standard('Mirror', (0.9, 0.8, 0.7), metallic=1.0, roughness=0.0)"
GLASS = "standard('Glass', (1, 1, 1), roughness=0.0, transmission=1.0)"
BACK_WALL = "place('Back', standard('Back', (0.25, 0.5, 0.75)), -2, False)"


def render(scene, outputs, props=None, spp=1, size=(16, 16)):
    """One frame of VBufferRT (pixel centers) -> PathTracer; {output: (H, W, 4) float64}."""
    props = {"samplesPerPixel": spp, "maxSurfaceBounces": 4, **(props or {})}
    g = vbuffer_graph("PathTracer", props, {"samplePattern": "Center"}, outputs=outputs)
    m = make_renderer(scene, *size, g)
    m.renderFrame()
    out = {}
    for name in outputs:
        a = np.array(g.getOutput(f"tracer.{name}")).astype(np.float64)
        out[name] = a if a.ndim == 3 else a[..., None]
    return out


def write_scene(tmp_path, front, back=""):
    path = tmp_path / "nrd.pyscene"
    path.write_text(SCENE.format(front=front, back=back))
    return path


def test_demodulated_diffuse_recombines_into_color():
    """Cornell box (Lambertian): every sample is a diffuse path, and color = diffuse
    reflectance x diffuse radiance at each pixel, with 4 samples resolved. (The light's material
    is a black mirror: its paths are delta reflection paths.)"""
    out = render(SCENES / "CornellBoxDiffuse.pyscene", ALL, {"emissiveSampler": "Power"}, spp=4, size=(48, 48))
    color = out["color"][..., :3]
    # Camera rays that miss (the box is open at the front) have reflectance 0 and no NRD radiance,
    # and every sample counts the invalid hit distance (the residual's sum is not averaged, as in Falcor).
    background = out["nrdDiffuseReflectance"][..., 0] == 0
    assert 0.1 < background.mean() < 0.5
    assert np.all(out["nrdResidualRadianceHitDist"][background] == [0, 0, 0, 4 * INVALID_LENGTH])
    assert np.all(out["nrdDiffuseRadianceHitDist"][background] == [0, 0, 0, INVALID_LENGTH])
    unlit = ~background & (out["nrdEmission"][..., :3].max(-1) == 0)
    assert unlit.mean() > 0.5
    # Reflectances are stored in half floats: relative error up to 2^-11.
    recombined = out["nrdDiffuseReflectance"][..., :3] * out["nrdDiffuseRadianceHitDist"][..., :3]
    np.testing.assert_allclose(recombined[unlit], color[unlit], rtol=2e-3, atol=1e-6)
    assert np.mean(out["nrdDiffuseRadianceHitDist"][unlit][:, :3].sum(-1) > 0) > 0.95  # A few are in shadow at 4 spp.
    for name in RADIANCE[1:]:
        assert np.all(out[name][unlit][:, :3] == 0), name
    # The diffuse reflectance is the albedo guide (8-bit) for these diffuse materials.
    np.testing.assert_allclose(out["nrdDiffuseReflectance"][unlit][:, :3], out["albedo"][unlit][:, :3] / 255, atol=1 / 255 + 1e-3)
    # The 4 second segments either end inside the box (within its diagonal, about 9.6) or leave
    # through the open front (the invalid length): their sum says how many of each.
    hit_dist = out["nrdDiffuseRadianceHitDist"][..., 3]
    sums = hit_dist[unlit] * 4
    escaped = np.floor(sums / INVALID_LENGTH + 1e-6)
    inside = sums - escaped * INVALID_LENGTH
    assert np.all((inside > -0.05) & (inside < 4 * 9.7)) and np.mean(escaped == 0) > 0.2
    np.testing.assert_array_equal(out["nrdSpecularRadianceHitDist"][..., 3], hit_dist)


@pytest.mark.parametrize("front,back", [(MIRROR, ""), (GLASS, BACK_WALL)], ids=["mirror", "glass"])
def test_without_demodulation_radiance_partitions_color(tmp_path, front, back):
    props = {"useNRDDemodulation": False}
    out = render(write_scene(tmp_path, front, back), ALL, props, spp=4)
    total = sum(out[name][..., :3] for name in RADIANCE)
    np.testing.assert_allclose(total, out["color"][..., :3], rtol=1e-5, atol=1e-7)
    assert np.all(out["nrdEmission"][..., :3] == 0)
    assert np.all(out["nrdDiffuseReflectance"][..., :3] == 1) and np.all(out["nrdSpecularReflectance"][..., :3] == 1)
    assert np.all(out["nrdDeltaReflectionReflectance"][..., :3] == 1)
    assert np.all(out["nrdDeltaReflectionEmission"][..., :3] == 0)


def test_mirror_guide_path(tmp_path):
    """A mirror: every path is a delta reflection path ending on the emitting wall behind the
    camera, so color = wall reflectance x radiance + the emission seen in the mirror, and the
    guide path's lengths are those of the reflected ray."""
    out = render(write_scene(tmp_path, MIRROR), ALL)
    color = out["color"][..., :3]
    reflectance, emission = out["nrdDeltaReflectionReflectance"][..., :3], out["nrdDeltaReflectionEmission"][..., :3]
    np.testing.assert_allclose(reflectance * out["nrdDeltaReflectionRadianceHitDist"][..., :3] + emission, color, rtol=2e-3)
    np.testing.assert_allclose(reflectance, np.broadcast_to([0.5, 0.25, 0.125], color.shape), rtol=1e-3)
    # The emission arrives through the mirror's Fresnel reflectance (at least its base color).
    assert np.all(emission > np.array([0.5, 1.0, 2.0]) * [0.9, 0.8, 0.7] * 0.999)
    for name in ["nrdDiffuseRadianceHitDist", "nrdSpecularRadianceHitDist", "nrdDeltaTransmissionRadianceHitDist"]:
        assert np.all(out[name][..., :3] == 0), name
    # Camera 4 from the mirror, wall 6 from it: near the center the reflected ray is 6 long, the path 10.
    center = (slice(7, 9), slice(7, 9))
    np.testing.assert_allclose(out["nrdDeltaReflectionHitDist"][center][..., 0], 6.0, rtol=2e-3)
    np.testing.assert_allclose(out["nrdDeltaReflectionPathLength"][center][..., 0], 10.0, rtol=2e-3)
    assert np.all(out["nrdDeltaReflectionPathLength"][..., 0] >= 10.0 * (1 - 1e-3))
    # The wall faces -z: octahedral (1, 1); diffuse, so roughness 1.
    np.testing.assert_allclose(rgb10a2(out["nrdDeltaReflectionNormWRoughMaterialID"])[..., :3], np.broadcast_to([1, 1, 1], color.shape), atol=1e-3)
    # No delta transmission at the primary hit: the transmission guide is invalid.
    assert np.all(out["nrdDeltaTransmissionPathLength"][..., 0] == INVALID_LENGTH)
    assert np.all(out["nrdDeltaTransmissionPosW"][..., :3] == 0)


def test_glass_transmission_guide_path(tmp_path):
    """Looking through a glass pane at a diffuse wall: the transmission guide path ends on the
    wall (its position, normal and reflectance), 6 from the camera straight ahead."""
    out = render(write_scene(tmp_path, GLASS, BACK_WALL), ALL, spp=2)
    pos = out["nrdDeltaTransmissionPosW"][..., :3]
    np.testing.assert_allclose(pos[..., 2], -2.0, atol=1e-4)
    center = (slice(7, 9), slice(7, 9))
    np.testing.assert_allclose(out["nrdDeltaTransmissionPathLength"][center][..., 0], 6.0, rtol=2e-3)
    np.testing.assert_allclose(out["nrdDeltaTransmissionReflectance"][..., :3], np.broadcast_to([0.25, 0.5, 0.75], pos.shape), rtol=1e-3)
    # The back wall faces +z: octahedral (0.5, 0.5).
    np.testing.assert_allclose(rgb10a2(out["nrdDeltaTransmissionNormWRoughMaterialID"])[..., :2], 0.5, atol=2e-3)
    assert np.all(out["nrdDeltaTransmissionEmission"][..., :3] == 0)
    # Samples split into transmission and reflection paths by the Fresnel term: both occur.
    assert out["nrdDeltaTransmissionRadianceHitDist"][..., :3].sum() > 0
    assert out["nrdDeltaReflectionRadianceHitDist"][..., :3].sum() > 0


def test_outputs_do_not_change_color(tmp_path):
    """Computing the NRD data draws no random numbers: color is the same bits with or without."""
    scene = write_scene(tmp_path, GLASS, BACK_WALL)
    plain = render(scene, ["color"], spp=2)["color"]
    with_nrd = render(scene, ALL, spp=2)["color"]
    np.testing.assert_array_equal(plain, with_nrd)


def rgb10a2(packed):
    """Unpacks RGB10A2Unorm texels (read back as packed uint32) into (..., 4) floats."""
    bits = packed[..., 0].astype(np.uint32)
    return np.stack([(bits >> s) & m for s, m in [(0, 1023), (10, 1023), (20, 1023), (30, 3)]], -1) / [1023, 1023, 1023, 3]


def test_output_formats():
    g = vbuffer_graph("PathTracer", {}, outputs=ALL)
    m = make_renderer(SCENES / "CornellBoxDiffuse.pyscene", 8, 8, g)
    m.renderFrame()
    formats = {name: g.getOutput(f"tracer.{name}").format for name in ALL}
    F = falcor.ResourceFormat
    assert formats["nrdDiffuseRadianceHitDist"] == F.RGBA32Float
    assert formats["nrdDiffuseReflectance"] == F.RGBA16Float
    assert formats["nrdDeltaReflectionNormWRoughMaterialID"] == F.RGB10A2Unorm
    assert formats["nrdDeltaReflectionPathLength"] == F.R16Float
    assert formats["nrdDeltaTransmissionPosW"] == F.RGBA32Float
