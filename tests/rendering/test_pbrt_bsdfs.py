"""The PBRT materials' BSDFs (conductor, dielectric, diffuse transmission): sample() against
pdf() (chi-square), weights against eval()/pdf(), sampled albedo against the integral of
eval(), energy, and Fresnel closed forms."""
import math

import numpy as np
import pytest

import falcor
from chi2 import chi2_pvalue, expected_histogram, observed_histogram
from test_bsdf_sampling import N_PHI, N_SAMPLES, N_THETA, SIGNIFICANCE, albedo_by_quadrature, albedo_by_sampling, unit

R = falcor.rendering

# Two-sided BSDFs are also seen from below (wi.z < 0).
WI = [unit([0.0, 0.0, 1.0]), unit([0.5, -0.3, 0.7]), unit([0.85, 0.2, 0.2]), unit([-0.3, 0.4, -0.6])]
ONE_SIDED = {"conductor_iso", "conductor_aniso"}

BSDFS = {
    "conductor_iso": lambda: R.PBRTConductorBSDF((0.2, 0.9, 1.1), (3.9, 2.4, 2.2), 0.3, 0.3),
    "conductor_aniso": lambda: R.PBRTConductorBSDF((0.2, 0.9, 1.1), (3.9, 2.4, 2.2), 0.1, 0.5),
    "dielectric_rough": lambda: R.PBRTDielectricBSDF(1.0, 1.5, 0.3, 0.3),
    "dielectric_aniso_inside": lambda: R.PBRTDielectricBSDF(1.5, 1.0, 0.4, 0.15),
    "diffuse_transmission": lambda: R.PBRTDiffuseTransmissionBSDF((0.6, 0.5, 0.4), (0.3, 0.4, 0.5)),
}


def cases():
    for name in sorted(BSDFS):
        for i, wi in enumerate(WI):
            if name in ONE_SIDED and wi[2] < 0:
                continue
            yield name, i


@pytest.mark.parametrize("name, wi_index", list(cases()))
def test_sample_matches_pdf_chi_square(name, wi_index):
    bsdf, wi = BSDFS[name](), WI[wi_index]
    s = bsdf.sample(wi, N_SAMPLES, seed=31 + wi_index)
    keep = s["valid"] & (s["pdf"] > 0)
    assert keep.mean() > 0.2
    observed = observed_histogram(s["wo"][keep], N_THETA, N_PHI)
    expected = expected_histogram(lambda d: bsdf.pdf(wi, d), N_THETA, N_PHI) * N_SAMPLES
    p = chi2_pvalue(observed, expected)
    assert p > SIGNIFICANCE, (name, wi_index, p, observed.sum(), expected.sum())


@pytest.mark.parametrize("name", sorted(BSDFS))
def test_weight_is_eval_over_pdf(name):
    bsdf, wi = BSDFS[name](), WI[1]
    s = bsdf.sample(wi, 5000, seed=3)
    keep = s["valid"] & (s["pdf"] > 0)
    f, pdf = bsdf.eval(wi, s["wo"][keep]), bsdf.pdf(wi, s["wo"][keep])
    np.testing.assert_allclose(s["pdf"][keep], pdf, rtol=2e-3)
    np.testing.assert_allclose(s["weight"][keep], f / pdf[:, None], rtol=5e-3, atol=1e-6)


@pytest.mark.parametrize("name, wi_index", list(cases()))
def test_sampled_albedo_is_the_integral_of_eval(name, wi_index):
    bsdf, wi = BSDFS[name](), WI[wi_index]
    mean, se = albedo_by_sampling(bsdf, wi)
    reference = albedo_by_quadrature(bsdf, wi)
    assert np.all(np.abs(mean - reference) <= 5 * se + 0.01 * reference + 1e-4), (mean, reference, se)


@pytest.mark.parametrize("wi_index", range(len(WI)))
def test_energy(wi_index):
    """A smooth dielectric scatters everything (Falcor's PBRT dielectric carries no radiance
    scaling, so this holds for the weights themselves); rough ones and diffuse transmission with
    white albedos at most everything (single scattering loses some)."""
    wi = WI[wi_index]
    for iors in ((1.0, 1.5), (1.5, 1.0)):
        mean, _ = albedo_by_sampling(R.PBRTDielectricBSDF(*iors, 0.0, 0.0), wi, n=20_000)
        np.testing.assert_allclose(mean, 1.0, rtol=1e-6)
        for alpha in (0.2, 0.7):
            mean, se = albedo_by_sampling(R.PBRTDielectricBSDF(*iors, alpha, alpha), wi, n=50_000)
            assert np.all(mean <= 1.0 + 5 * se), (iors, alpha, mean)
    mean, se = albedo_by_sampling(R.PBRTDiffuseTransmissionBSDF((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)), wi, n=50_000)
    np.testing.assert_allclose(mean, 1.0, atol=5 * se.max() + 1e-6)


def test_smooth_conductor_reflects_the_conductor_fresnel_term():
    """At normal incidence a conductor reflects ((n-1)² + k²) / ((n+1)² + k²) of the light."""
    eta, k = np.array([0.2, 0.9, 1.1]), np.array([3.9, 2.4, 2.2])
    s = R.PBRTConductorBSDF(tuple(eta), tuple(k), 0.0, 0.0).sample((0.0, 0.0, 1.0), 4, seed=0)
    assert s["valid"].all() and (s["lobe"] == 0x04).all()  # Delta reflection.
    np.testing.assert_allclose(s["weight"][0], ((eta - 1) ** 2 + k**2) / ((eta + 1) ** 2 + k**2), rtol=1e-5)
    np.testing.assert_allclose(s["wo"][0], (0, 0, 1), atol=1e-7)


@pytest.mark.parametrize("name", ["conductor_iso", "conductor_aniso", "dielectric_rough"])
def test_reflection_is_reciprocal(name):
    bsdf = BSDFS[name]()
    rng = np.random.default_rng(5)
    for _ in range(64):
        a, b = rng.normal(size=3), rng.normal(size=3)
        a[2], b[2] = abs(a[2]) + 0.05, abs(b[2]) + 0.05
        a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
        f_ab = bsdf.eval(a, b[None].astype(np.float32))[0] / b[2]
        f_ba = bsdf.eval(b, a[None].astype(np.float32))[0] / a[2]
        np.testing.assert_allclose(f_ab, f_ba, rtol=1e-4, atol=1e-7)
