"""BSDFViewer: closed forms for a Lambertian material (sphere and slice), albedo output,
standard-material energy, properties."""
import numpy as np
import pytest

import falcor

SCENE = """
lambert = PBRTDiffuseMaterial('Lambert')
lambert.baseColor = float4(0.2, 0.5, 0.8, 1)
plastic = StandardMaterial('Plastic')
plastic.baseColor = float4(0.6, 0.6, 0.6, 1)
plastic.roughness = 0.4
quad = TriangleMesh.createQuad()
sceneBuilder.addMeshInstance(sceneBuilder.addNode('A', Transform()), sceneBuilder.addTriangleMesh(quad, lambert))
sceneBuilder.addMeshInstance(sceneBuilder.addNode('B', Transform(translation=float3(0, 0, -3))), sceneBuilder.addTriangleMesh(quad, plastic))
"""
ALBEDO = np.array([0.2, 0.5, 0.8])


def render(tmp_path, props, frames=1, size=(48, 32)):
    scene = tmp_path / "viewer.pyscene"
    scene.write_text(SCENE)
    g = falcor.RenderGraph("BSDFViewer")
    g.create_pass("Viewer", "BSDFViewer", props)
    g.mark_output("Viewer.output")
    m = falcor.Renderer()
    m.addGraph(g)
    m.loadScene(str(scene))
    m.resizeFrameBuffer(*size)
    images = []
    for _ in range(frames):
        m.renderFrame()
        images.append(np.array(g.getOutput("Viewer.output"))[..., :3].astype(np.float64))
    return np.stack(images)


def sphere_mask(width, height, margin=0.9):
    """Pixels well inside the sphere's silhouette in the centered square viewport."""
    extent = min(width, height)
    y, x = np.mgrid[0:height, 0:width]
    u = (x + 0.5 - (width - extent) // 2) / extent * 2 - 1
    v = (y + 0.5 - (height - extent) // 2) / extent * 2 - 1
    # The unit sphere seen from distance 1.5 with a 90-degree field: its silhouette subtends
    # tan α = 1/sqrt(1.5² - 1), and the viewport's half-width is tan 45° = 1.
    radius = 1.0 / np.sqrt(1.5**2 - 1.0)
    return np.hypot(u, v) < margin * radius, np.hypot(u, v) > 1.05 * radius


def test_lambertian_sphere_shows_its_albedo_under_white_light(tmp_path):
    img = render(tmp_path, {"materialID": 0})[0]
    inside, outside = sphere_mask(48, 32)
    np.testing.assert_allclose(img[inside], np.broadcast_to(ALBEDO, img[inside].shape), rtol=1e-3)  # Material colors are stored in half precision.
    np.testing.assert_allclose(img[outside], 1.0)  # The white background light.


def test_lambertian_slice_is_albedo_over_pi(tmp_path):
    img = render(tmp_path, {"materialID": 0, "viewerMode": "Slice"})[0]
    viewport = img[:, 8:40]  # The centered 32x32 square.
    valid = viewport[1:-1, 1:-1]  # Away from the grazing edges of the slice.
    np.testing.assert_allclose(valid, np.broadcast_to(ALBEDO / np.pi, valid.shape), rtol=1e-3)
    assert not img[:, :8].any() and not img[:, 40:].any()


def test_albedo_output_and_plastic_energy(tmp_path):
    img = render(tmp_path, {"materialID": 0, "outputAlbedo": 1 | 2})[0]
    inside, _ = sphere_mask(48, 32)
    np.testing.assert_allclose(img[inside], np.broadcast_to(ALBEDO, img[inside].shape), rtol=1e-3)
    plastic = render(tmp_path, {"materialID": 1}, frames=64).mean(axis=0)
    assert 0.3 < plastic[inside].mean() < 1.0  # Scatters most, never more than all of the white light.


def test_properties_clamping_and_no_scene(tmp_path):
    g = falcor.RenderGraph("g")
    p = g.create_pass("v", "BSDFViewer", {})
    assert p.properties == {"materialID": 0, "viewerMode": "Material", "useEnvMap": True}
    props = {"materialID": 1, "viewerMode": "Slice", "useEnvMap": False, "texCoords": [0.25, 0.5], "outputAlbedo": 3}
    assert g.create_pass("v2", "BSDFViewer", props).properties == props
    with pytest.raises(Exception, match="viewerMode"):
        g.create_pass("bad", "BSDFViewer", {"viewerMode": "Sphere"})
    # An out-of-range material is clamped to the last one (as Falcor, with a warning).
    clamped = render(tmp_path, {"materialID": 7})[0]
    np.testing.assert_array_equal(clamped, render(tmp_path, {"materialID": 1})[0])
    g2 = falcor.RenderGraph("empty")
    g2.create_pass("v", "BSDFViewer", {})
    g2.mark_output("v.output")
    m = falcor.Renderer()
    m.addGraph(g2)
    m.resizeFrameBuffer(8, 8)
    m.renderFrame()
    assert not np.asarray(g2.getOutput("v.output")).any()
