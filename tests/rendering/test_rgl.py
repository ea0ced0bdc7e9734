"""RGL measured BRDFs (tensor files of the RGL database, RGLMaterial): the loader on files the
test writes (and the errors of files that do not parse), eval against the closed form of
constant tables, sample() against pdf() (chi-square) for tables that vary, weights against
eval()/pdf(), the albedo table, and rendering through a scene material."""
import math
import struct

import numpy as np
import pytest

import falcor
from chi2 import chi2_pvalue, expected_histogram, observed_histogram
from test_bsdf_sampling import N_PHI, N_SAMPLES, N_THETA, SIGNIFICANCE, unit

R = falcor.rendering
FLOAT32, UINT8 = 10, 1


def write_tensor_file(path, fields, header=b"tensor_file\0", version=(1, 0), truncate=0):
    """A tensor file: header, field descriptions (name, dims, type, data offset, shape), then the
    data blocks aligned to 8 bytes."""
    fields = [(name, np.ascontiguousarray(a)) for name, a in fields.items()]
    head = header + bytes(version) + struct.pack("<I", len(fields))
    descriptions_size = sum(2 + len(n) + 2 + 1 + 8 + 8 * a.ndim for n, a in fields)
    offset = (len(head) + descriptions_size + 7) // 8 * 8
    descriptions, blocks = b"", b""
    for name, a in fields:
        kind = UINT8 if a.dtype == np.uint8 else FLOAT32
        descriptions += struct.pack("<H", len(name)) + name.encode() + struct.pack("<HBQ", a.ndim, kind, offset + len(blocks))
        descriptions += struct.pack(f"<{a.ndim}Q", *a.shape)
        data = a.astype("<f4" if kind == FLOAT32 else np.uint8).tobytes()
        blocks += data + b"\0" * ((-len(data)) % 8)
    raw = head + descriptions
    raw += b"\0" * (offset - len(raw)) + blocks
    path.write_bytes(raw[: len(raw) - truncate])
    return path


def tables(phi=1, theta=3, n=8, varying=False, rgb=(0.3, 0.5, 0.7), ndf=2.0, sigma=0.5):
    """Fields of a synthetic measurement. Constant tables give f·cos = rgb·ndf / (4 sigma)
    everywhere; `varying` makes every table a smooth non-constant function."""
    u = np.linspace(0, 1, n)
    uu, vv = np.meshgrid(u, u, indexing="ij")  # (row, column): the half vector's (φ, θ) coordinates
    bump = (1 + 0.5 * np.cos(3 * uu) * (1 + 0.5 * vv)) if varying else np.ones((n, n))  # Positive.
    # The tables parameterize half vectors by x = sqrt(2θ/π): a density uniform in solid angle is
    # x·sin θ there. Measured VNDF tables carry that factor; without it the density in solid angle
    # is singular at the pole.
    # A falloff away from the normal keeps most reflected directions above the horizon.
    solid_angle = vv * np.sin(vv**2 * math.pi / 2) * np.exp(-6 * vv**2)
    views = np.ones((phi, theta, 1, 1)) * (1 + 0.3 * np.arange(theta)[None, :, None, None] if varying else 1)
    per_view = views * bump  # (phi, theta, n, n)
    rgb_table = np.asarray(rgb)[None, None, :, None, None] * per_view[:, :, None, :, :]
    return {
        "description": np.frombuffer(b"synthetic test BRDF", np.uint8),
        "theta_i": np.linspace(0, 1.4, theta).astype(np.float32),
        "phi_i": np.linspace(0, math.pi, phi).astype(np.float32) if phi > 1 else np.zeros(1, np.float32),
        "sigma": np.full((6, 6), sigma, np.float32),
        "ndf": (np.full((n, n), ndf) * (bump if varying else 1)).astype(np.float32),
        "vndf": (views * (bump.T if varying else bump) * solid_angle).astype(np.float32),
        "luminance": (views * bump).astype(np.float32),
        "rgb": rgb_table.astype(np.float32),
    }


@pytest.fixture
def constant_file(tmp_path):
    return write_tensor_file(tmp_path / "constant.bsdf", tables())


def hemisphere(count, seed):
    d = np.random.default_rng(seed).normal(size=(count, 3))
    d[:, 2] = np.abs(d[:, 2]) + 0.05
    return (d / np.linalg.norm(d, axis=1, keepdims=True)).astype(np.float32)


def test_constant_tables_evaluate_to_their_closed_form(constant_file):
    bsdf = R.RGLBSDF(constant_file)
    assert bsdf.description == "synthetic test BRDF"
    wi = unit([0.3, 0.2, 0.9])
    f = bsdf.eval(wi, hemisphere(300, 1))
    np.testing.assert_allclose(f, np.broadcast_to(np.array([0.3, 0.5, 0.7]) * 2.0 / (4 * 0.5), f.shape), rtol=1e-5)
    # Its albedo: the constant times the hemisphere's solid angle.
    np.testing.assert_allclose(bsdf.albedo(0.7), np.array([0.3, 0.5, 0.7]) * 2 * math.pi, rtol=1e-3)


CASES = [(1, 3, unit([0.3, 0.2, 0.9])), (1, 4, unit([-0.7, 0.1, 0.6])), (3, 3, unit([0.2, -0.5, 0.7]))]


@pytest.mark.parametrize("phi, theta, wi", CASES, ids=["isotropic", "isotropic-oblique", "anisotropic"])
def test_sample_matches_pdf_chi_square(tmp_path, phi, theta, wi):
    bsdf = R.RGLBSDF(write_tensor_file(tmp_path / "varying.bsdf", tables(phi, theta, varying=True)))
    s = bsdf.sample(wi, N_SAMPLES, seed=41)
    keep = s["valid"]
    assert keep.mean() > 0.5
    observed = observed_histogram(s["wo"][keep], N_THETA, N_PHI)
    expected = expected_histogram(lambda d: bsdf.pdf(wi, d), N_THETA, N_PHI) * N_SAMPLES
    p = chi2_pvalue(observed, expected)
    assert p > SIGNIFICANCE, p


@pytest.mark.parametrize("phi, theta, wi", CASES, ids=["isotropic", "isotropic-oblique", "anisotropic"])
def test_weight_is_eval_over_pdf(tmp_path, phi, theta, wi):
    bsdf = R.RGLBSDF(write_tensor_file(tmp_path / "varying.bsdf", tables(phi, theta, varying=True)))
    s = bsdf.sample(wi, 3000, seed=4)
    keep = s["valid"]
    f, pdf = bsdf.eval(wi, s["wo"][keep]), bsdf.pdf(wi, s["wo"][keep])
    np.testing.assert_allclose(s["pdf"][keep], pdf, rtol=2e-3)
    np.testing.assert_allclose(s["weight"][keep], f / pdf[:, None], rtol=3e-3, atol=1e-6)
    # The sampled albedo is the albedo table's (which integrates eval at load, for views at
    # φ = 0: exact for isotropic tables, as Falcor's table).
    if phi == 1:
        big = bsdf.sample(wi, 100_000, seed=8)
        w = np.where(big["valid"][:, None], big["weight"].astype(np.float64), 0)
        np.testing.assert_allclose(w.mean(0), bsdf.albedo(wi[2]), rtol=0.03)


@pytest.mark.parametrize("problem, message", [
    ("header", "not a tensor file"),
    ("version", "unsupported tensor file version"),
    ("truncated", "ends|beyond the end"),
    ("missing", "field 'vndf' is missing"),
    ("shape", "field 'rgb' must be"),
])
def test_files_that_do_not_parse_raise_naming_the_file_and_field(tmp_path, problem, message):
    fields = tables()
    kwargs = {}
    if problem == "header":
        kwargs["header"] = b"not_a_tensor"
    elif problem == "version":
        kwargs["version"] = (2, 0)
    elif problem == "truncated":
        kwargs["truncate"] = 100
    elif problem == "missing":
        del fields["vndf"]
    else:
        fields["rgb"] = fields["rgb"][:, :, :2]
    path = write_tensor_file(tmp_path / f"{problem}.bsdf", fields, **kwargs)
    with pytest.raises(Exception, match=f"{problem}.bsdf.*({message})"):
        R.RGLBSDF(path)
    scene = tmp_path / "scene.pyscene"
    scene.write_text(f"m = RGLMaterial('Measured', {str(path)!r})\n"
                     "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q', Transform()),\n"
                     "                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))\n")
    with pytest.raises(Exception, match=f"{problem}.bsdf"):
        falcor.load_scene(str(scene))


def test_an_rgl_material_renders_in_the_bsdf_viewer(tmp_path):
    """Under the viewer's white light, constant tables show f·cos / cos θ = const / N·L."""
    path = write_tensor_file(tmp_path / "constant.bsdf", tables(rgb=(0.1, 0.2, 0.3), ndf=1.0, sigma=1.0))
    scene = tmp_path / "rgl.pyscene"
    scene.write_text(f"m = RGLMaterial('Measured', {str(path)!r})\n"
                     "sceneBuilder.addMeshInstance(sceneBuilder.addNode('Q', Transform()),\n"
                     "                             sceneBuilder.addTriangleMesh(TriangleMesh.createQuad(), m))\n")
    img = falcor.render(scene, spp=1, width=8, height=8, max_bounces=1)  # No light: the scene loads and renders black.
    assert np.isfinite(img).all()
    g = falcor.RenderGraph("Viewer")
    g.create_pass("Viewer", "BSDFViewer", {"sliceViewer": True})
    g.mark_output("Viewer.output")
    m = falcor.Renderer()
    m.addGraph(g)
    m.loadScene(str(scene))
    m.resizeFrameBuffer(32, 32)
    m.renderFrame()
    img = np.asarray(g.getOutput("Viewer.output"))[..., :3]
    assert np.isfinite(img).all() and img.max() > 0
