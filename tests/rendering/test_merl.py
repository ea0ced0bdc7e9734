"""MERL measured BRDFs: the file loader (on tables the test writes), lookup against a known
table, sampling against pdf, rendering through a scene material, and files that do not parse."""
import math
from pathlib import Path

import numpy as np
import pytest

import falcor
from chi2 import chi2_pvalue, expected_histogram, observed_histogram

R = falcor.rendering
DIMS = (90, 90, 180)
SCALES = np.array([1 / 1500, 1.15 / 1500, 1.66 / 1500])
ALBEDO = np.array([0.3, 0.5, 0.7])


def write_merl(path, values_rgb, dims=DIMS, truncate=0):
    """A MERL .binary table: int32 dims, then the R, G and B blocks of doubles (stored unscaled)."""
    n = int(np.prod(dims))
    data = np.concatenate([np.full(n, v / s) for v, s in zip(values_rgb, SCALES)])
    raw = np.asarray(dims, "<i4").tobytes() + data.astype("<f8").tobytes()
    path.write_bytes(raw[: len(raw) - truncate])
    return path


@pytest.fixture(scope="module")
def lambert_table(tmp_path_factory):
    return write_merl(tmp_path_factory.mktemp("merl") / "lambert.binary", ALBEDO / math.pi)


def test_a_constant_table_is_lambertian(lambert_table):
    bsdf = R.MERLBSDF(lambert_table)
    rng = np.random.default_rng(2)
    wo = rng.normal(size=(500, 3))
    wo[:, 2] = np.abs(wo[:, 2]) + 0.01
    wo /= np.linalg.norm(wo, axis=1, keepdims=True)
    for wi in ((0, 0, 1), (0.6, 0.0, 0.8)):
        np.testing.assert_allclose(bsdf.eval(wi, wo.astype(np.float32)), ALBEDO / math.pi * wo[:, 2:], rtol=1e-5)
    np.testing.assert_allclose(bsdf.albedo(0.7), ALBEDO, rtol=2e-3)


def test_sampling_matches_pdf_and_estimates_the_albedo(lambert_table):
    bsdf = R.MERLBSDF(lambert_table)
    wi = np.array([0.3, 0.2, 0.93]) / np.linalg.norm([0.3, 0.2, 0.93])
    s = bsdf.sample(wi, 100_000, seed=1)
    keep = s["valid"] & (s["pdf"] > 0)
    p = chi2_pvalue(observed_histogram(s["wo"][keep], 20, 40), expected_histogram(lambda d: bsdf.pdf(wi, d), 20, 40) * len(keep))
    assert p > 1e-3
    np.testing.assert_allclose(np.where(s["valid"][:, None], s["weight"], 0).mean(axis=0), ALBEDO, rtol=1e-3)


def test_lookup_follows_the_half_angle_layout(tmp_path):
    """A table that is bright only where θh is small (sqrt-spaced bins) reflects around the mirror direction."""
    n_h, n_d, n_p = 90, 90, 180
    values = np.zeros((n_h, n_d, n_p))
    values[:3] = 1.0  # θh below (3/90)² · 90° = 0.1 degrees: the θh bins are square-root spaced.
    path = tmp_path / "glossy.binary"
    data = np.concatenate([values.ravel() / s for s in SCALES])
    path.write_bytes(np.asarray((n_h, n_d, n_p), "<i4").tobytes() + data.astype("<f8").tobytes())
    bsdf = R.MERLBSDF(path)
    wi = np.array([0.5, 0.0, math.sqrt(0.75)])
    mirror = np.array([[-0.5, 0.0, math.sqrt(0.75)]], np.float32)
    off = np.array([[0.0, 0.5, math.sqrt(0.75)]], np.float32)
    assert bsdf.eval(wi, mirror)[0].min() > 0 and not bsdf.eval(wi, off).any()


@pytest.mark.parametrize("kind", ["truncated", "dims", "empty"])
def test_files_that_do_not_parse_raise_naming_the_file(tmp_path, kind):
    path = tmp_path / f"{kind}.binary"
    if kind == "truncated":
        write_merl(path, ALBEDO, truncate=1000)
        message = "ends after"
    elif kind == "dims":
        write_merl(path, ALBEDO, dims=(10, 10, 10))
        message = "not a MERL table"
    else:
        path.write_bytes(b"")
        message = "not a MERL table"
    with pytest.raises(Exception, match=f"{kind}.binary.*{message}"):
        R.MERLBSDF(path)
    scene = tmp_path / "scene.pyscene"
    scene.write_text(f"m = MERLMaterial('Measured', {str(path)!r})\n"
                     "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q', Transform()),\n"
                     "                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))\n")
    with pytest.raises(Exception, match=f"{kind}.binary"):
        falcor.load_scene(str(scene))


def test_a_merl_material_renders_in_the_bsdf_viewer(tmp_path, lambert_table):
    """Under the viewer's white light a Lambertian table shows its albedo on the sphere."""
    scene = tmp_path / "merl.pyscene"
    scene.write_text(f"m = MERLMaterial('Measured', {str(lambert_table)!r})\n"
                     "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q', Transform()),\n"
                     "                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))\n")
    g = falcor.RenderGraph("Viewer")
    g.create_pass("Viewer", "BSDFViewer", {})
    g.create_pass("Acc", "AccumulatePass", {"enabled": True})
    g.add_edge("Viewer.output", "Acc.input")
    g.mark_output("Acc.output")
    m = falcor.Renderer()
    m.addGraph(g)
    m.loadScene(str(scene))
    m.resizeFrameBuffer(32, 32)
    for _ in range(256):
        m.renderFrame()
    center = np.asarray(g.getOutput("Acc.output"))[12:20, 12:20, :3].mean(axis=(0, 1))
    np.testing.assert_allclose(center, ALBEDO, rtol=0.03)


MIX_SCENE = """
envMap = EnvMap(r'{env}')
sceneBuilder.envMap = envMap
m = MERLMixMaterial('Mix', [r'{a}', r'{b}'])
m.loadTexture(MaterialTextureSlot.Index, r'{index}', False)
sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q', Transform(scaling=float3(2, 1, 2), rotationEulerDeg=float3(90, 0, 0))),
                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))
sceneBuilder.renderSettings = SceneRenderSettings(useEnvLight=True, useAnalyticLights=False)
camera = Camera('Main')
camera.position = float3(0, 0, 3)
camera.target = float3(0, 0, 0)
camera.up = float3(0, 1, 0)
sceneBuilder.addCamera(camera)
"""


def test_merl_mix_picks_the_table_of_each_texel(tmp_path, lambert_table):
    """An index map of three texels (indices 0, 1, 2 in red) over two Lambertian tables: the
    texels shade with tables 0, 1 and 0 (the index wraps). Under a uniform white sky one bounce
    returns each table's albedo exactly."""
    from PIL import Image
    from falcor.image_io import write_exr
    other = np.array([0.8, 0.2, 0.1])
    b = write_merl(tmp_path / "other.binary", other / math.pi)
    index = tmp_path / "index.png"
    Image.fromarray(np.array([[[0, 0, 0], [1, 0, 0], [2, 0, 0]]], np.uint8)).save(index)
    env = tmp_path / "white.exr"
    write_exr(env, np.ones((8, 16, 3), np.float32), half=False)
    # Copies of the tables, each with a fitted lobe that is (all but 0.1 %) Lambertian: BSDF
    # sampling then returns each table's albedo within a fraction of a percent per sample.
    a = tmp_path / "a.binary"
    a.write_bytes(Path(lambert_table).read_bytes())
    for table in (a, b):
        table.with_suffix(".json").write_text('{"base_color_srgb": [0.5, 0.5, 0.5], "roughness": 1.0, "specular": 0.0, "metallic": 0.0}')
    scene = tmp_path / "mix.pyscene"
    scene.write_text(MIX_SCENE.format(env=env, a=a, b=b, index=index))
    img = falcor.render(scene, spp=4, width=96, height=96, max_bounces=0, properties={"useNEE": False})[..., :3].astype(np.float64)
    is_a = np.all(np.abs(img - ALBEDO) < 0.01, axis=-1)
    is_b = np.all(np.abs(img - other) < 0.01, axis=-1)
    quad = is_a | is_b
    assert quad.mean() > 0.2
    # Along the texture's u axis (rows or columns, whichever it runs along on screen): A, B, A.
    for mask_axis in (0, 1):
        profile = np.where(is_b.any(axis=mask_axis), 1, np.where(is_a.any(axis=mask_axis), 0, -1))
        runs = [v for i, v in enumerate(profile) if v >= 0 and (i == 0 or profile[i - 1] != v)]
        if runs == [0, 1, 0]:
            break
    else:
        raise AssertionError("no A | B | A layout across the quad")
    assert abs(is_b.sum() / quad.sum() - 1 / 3) < 0.05


def write_glossy_merl(path):
    """A table bright only near the half vector (θh within ~3 degrees), over a dim diffuse floor."""
    values = np.full(DIMS, 0.02)
    values[:20] += 4.0  # sqrt-spaced θh bins: the first 20 of 90 reach (20/90)² · 90° ≈ 4.4°.
    data = np.concatenate([values.ravel() / s for s in SCALES])
    path.write_bytes(np.asarray(DIMS, "<i4").tobytes() + data.astype("<f8").tobytes())
    return path


def test_the_fitted_lobe_comes_from_the_json_beside_the_table(tmp_path):
    table = write_merl(tmp_path / "fitted.binary", ALBEDO / math.pi)
    assert falcor.scene.material.merl_fit(table) == {}  # No sidecar: Falcor's default lobe (warned).
    (tmp_path / "fitted.json").write_text('{"base_color_srgb": [1.0, 0.5, 0.0], "roughness": 0.25, "specular": 0.5, '
                                          '"metallic": 0.75, "loss_value": 0.01}')
    fit = falcor.scene.material.merl_fit(table)
    np.testing.assert_allclose(fit["baseColor"], [1.0, 0.21404114, 0.0], rtol=1e-6)  # sRGB decoded
    assert (fit["roughness"], fit["specular"], fit["metallic"]) == (0.25, 0.5, 0.75)
    (tmp_path / "fitted.json").write_text('{"roughness": 0.25}')  # Incomplete: defaults, as Falcor.
    assert falcor.scene.material.merl_fit(table) == {}


FITS = {
    "default": {},
    "glossy": {"baseColor": [0.9, 0.9, 0.9], "roughness": 0.15, "specular": 0.5, "metallic": 1.0},
    "diffuse": {"baseColor": [0.4, 0.6, 0.8], "roughness": 0.8, "specular": 0.2, "metallic": 0.0},
}


@pytest.mark.parametrize("fit", FITS)
@pytest.mark.parametrize("wi", [(0.3, 0.2, 0.93), (0.8, 0.0, 0.6)])
def test_fitted_lobe_sampling_matches_its_pdf(tmp_path, fit, wi):
    """Samples follow the fitted lobe's pdf (chi-square) and the weights are table / pdf, so they
    estimate the table's albedo whatever the lobe."""
    bsdf = R.MERLBSDF(write_merl(tmp_path / "t.binary", ALBEDO / math.pi), fit=FITS[fit])
    wi = np.array(wi) / np.linalg.norm(wi)
    s = bsdf.sample(wi, 100_000, seed=3)
    keep = s["valid"] & (s["pdf"] > 0)
    p = chi2_pvalue(observed_histogram(s["wo"][keep], 20, 40), expected_histogram(lambda d: bsdf.pdf(wi, d), 20, 40) * len(keep))
    assert p > 1e-3, p
    np.testing.assert_allclose(s["pdf"][keep][:2000], bsdf.pdf(wi, s["wo"][keep][:2000]), rtol=2e-3)  # two roundings of the GGX pdf
    weights = np.where(s["valid"][:, None], s["weight"], 0.0)
    mean, se = weights.mean(axis=0), weights.std(axis=0) / math.sqrt(len(weights))
    assert np.all(np.abs(mean - bsdf.albedo(wi[2])) < 5 * se + 2e-3), (mean, se)


def test_a_glossy_fit_samples_a_glossy_table_with_less_noise(tmp_path):
    """The point of the fit: on a glossy table, a glossy lobe's weights vary far less than the
    default lobe's, for the same expectation."""
    table = write_glossy_merl(tmp_path / "glossy.binary")
    wi = np.array([0.5, 0.0, math.sqrt(0.75)])
    results = {}
    for name in ("default", "glossy"):
        fit = {"baseColor": [0.9, 0.9, 0.9], "roughness": 0.25, "specular": 0.5, "metallic": 0.8} if name == "glossy" else {}
        s = R.MERLBSDF(table, fit=fit).sample(wi, 200_000, seed=7)
        w = np.where(s["valid"][:, None], s["weight"], 0.0)[:, 0]
        results[name] = (w.mean(), w.std())
    (m_default, sd_default), (m_glossy, sd_glossy) = results["default"], results["glossy"]
    assert abs(m_default - m_glossy) < 5 * math.hypot(sd_default, sd_glossy) / math.sqrt(200_000)
    assert sd_glossy < 0.5 * sd_default, results
