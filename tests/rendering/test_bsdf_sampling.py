"""Every BSDF's sample() against its pdf() (chi-square), its weights against eval()/pdf(),
white-furnace energy, and reciprocity. Fixed seeds: the outcomes are deterministic."""
import math

import numpy as np
import pytest

import falcor
from chi2 import chi2_pvalue, expected_histogram, observed_histogram, sphere_directions

R = falcor.rendering
N_SAMPLES = 200_000
N_THETA, N_PHI = 20, 40
# With ~60 fixed-seed cases, 1e-3 keeps a correct sampler from failing by chance (p ~ 6 %) while a
# wrong one fails by orders of magnitude.
SIGNIFICANCE = 1e-3


def unit(v):
    v = np.asarray(v, np.float64)
    return v / np.linalg.norm(v)


WI = [unit([0.0, 0.0, 1.0]), unit([0.4, -0.2, 0.8]), unit([0.9, 0.1, 0.15])]

BSDFS = {
    "lambert": lambda: R.LambertDiffuseBRDF((0.8, 0.5, 0.2)),
    "lambert_btdf": lambda: R.LambertDiffuseBTDF((0.7, 0.7, 0.7)),
    "frostbite_rough": lambda: R.FrostbiteDiffuseBRDF((0.8, 0.8, 0.8), 0.9),
    "ggx_rough": lambda: R.SpecularMicrofacetBRDF((0.9, 0.6, 0.3), 0.5),
    "ggx_glossy": lambda: R.SpecularMicrofacetBRDF((1.0, 1.0, 1.0), 0.15),
    "dielectric_rough_enter": lambda: R.SpecularMicrofacetBSDF((1.0, 1.0, 1.0), 0.4, 1.0 / 1.5),
    "dielectric_rough_exit": lambda: R.SpecularMicrofacetBSDF((1.0, 1.0, 1.0), 0.3, 1.5),
    "cloth": lambda: R.ClothBRDF((0.5, 0.2, 0.3), 0.6),
    "cloth_smooth_sheen": lambda: R.ClothBRDF((0.2, 0.2, 0.2), 0.05, (0.2, 0.2, 0.2)),
    "standard_plastic": lambda: R.StandardBSDF((0.6, 0.3, 0.2), (0.04, 0.04, 0.04), 0.5),
    "standard_metal": lambda: R.StandardBSDF((0, 0, 0), (0.95, 0.64, 0.54), 0.3, metallic=1.0),
    "standard_translucent": lambda: R.StandardBSDF((0.7, 0.7, 0.7), (0.04, 0.04, 0.04), 0.6, diffuse_transmission=0.5,
                                                   transmission=(0.9, 0.8, 0.7)),
    "standard_rough_glass": lambda: R.StandardBSDF((0.0, 0.0, 0.0), (0.04, 0.04, 0.04), 0.5, specular_transmission=1.0),
    "standard_mixed": lambda: R.StandardBSDF((0.5, 0.5, 0.5), (0.2, 0.2, 0.2), 0.4, metallic=0.3, specular_transmission=0.4,
                                             diffuse_transmission=0.3, transmission=(0.8, 0.9, 1.0)),
}


@pytest.mark.parametrize("name", sorted(BSDFS))
@pytest.mark.parametrize("wi_index", range(len(WI)))
def test_sample_matches_pdf_chi_square(name, wi_index):
    bsdf, wi = BSDFS[name](), WI[wi_index]
    s = bsdf.sample(wi, N_SAMPLES, seed=17 + wi_index)
    # Delta lobes (pdf 0) are not part of the density.
    keep = s["valid"] & (s["pdf"] > 0)
    observed = observed_histogram(s["wo"][keep], N_THETA, N_PHI)
    expected = expected_histogram(lambda d: bsdf.pdf(wi, d), N_THETA, N_PHI) * N_SAMPLES
    assert observed.sum() > 0.2 * N_SAMPLES
    p = chi2_pvalue(observed, expected)
    assert p > SIGNIFICANCE, (name, wi_index, p, observed.sum(), expected.sum())


@pytest.mark.parametrize("name", ["lambert", "lambert_btdf", "frostbite_rough", "cloth", "cloth_smooth_sheen", "ggx_rough", "ggx_glossy",
                                  "dielectric_rough_enter", "dielectric_rough_exit"])
def test_single_lobe_weight_is_eval_over_pdf(name):
    """For one lobe, weight = f·cos / pdf exactly (up to float rounding)."""
    bsdf, wi = BSDFS[name](), WI[1]
    s = bsdf.sample(wi, 5000, seed=3)
    keep = s["valid"] & (s["pdf"] > 0)
    f = bsdf.eval(wi, s["wo"][keep])
    pdf = bsdf.pdf(wi, s["wo"][keep])
    np.testing.assert_allclose(s["pdf"][keep], pdf, rtol=2e-3)
    np.testing.assert_allclose(s["weight"][keep], f / pdf[:, None], rtol=5e-3, atol=1e-6)


def albedo_by_sampling(bsdf, wi, n=200_000, seed=5, flux=False):
    """E[weight]: the directional albedo ∫ f cos dω (delta lobes included). With `flux`, rough
    transmission is divided by the eta² radiance scaling Falcor's GGX BSDF applies (its smooth
    transmission applies none), giving the fraction of energy scattered."""
    s = bsdf.sample(wi, n, seed=seed)
    w = np.where(s["valid"][:, None], s["weight"], 0.0).astype(np.float64)
    if flux:
        rough_transmission = (s["lobe"] == 0x20)[:, None]
        w = np.where(rough_transmission, w / bsdf.eta**2, w)
    return w.mean(axis=0), w.std(axis=0) / math.sqrt(n)


def albedo_by_quadrature(bsdf, wi, n_theta=4096, n_phi=256):
    """∫ f·cos dω over the sphere by the midpoint rule in θ (fine: lobes can be narrow) and φ."""
    theta = (np.arange(n_theta) + 0.5) * math.pi / n_theta
    p = (np.arange(n_phi) + 0.5) * 2.0 * math.pi / n_phi
    tt, pp = np.meshgrid(theta, p, indexing="ij")
    f = bsdf.eval(wi, sphere_directions(np.cos(tt), pp).reshape(-1, 3).astype(np.float32)).astype(np.float64)
    weights = (np.sin(tt) * (math.pi / n_theta) * (2.0 * math.pi / n_phi)).reshape(-1, 1)
    return (f * weights).sum(axis=0)


@pytest.mark.parametrize("name", sorted(BSDFS))
def test_sampling_estimates_the_albedo_eval_integrates_to(name):
    """Weights are unbiased: their mean equals the integral of eval (no delta lobes here)."""
    bsdf, wi = BSDFS[name](), WI[1]
    mean, se = albedo_by_sampling(bsdf, wi)
    reference = albedo_by_quadrature(bsdf, wi)
    assert np.all(np.abs(mean - reference) <= 5 * se + 0.01 * reference + 1e-4), (mean, reference, se)


@pytest.mark.parametrize("wi", WI, ids=["normal", "oblique", "grazing"])
def test_white_furnace(wi):
    """Energy: lossless BSDFs reflect (and transmit) exactly everything, the rest at most all."""
    lossless = [R.LambertDiffuseBRDF((1, 1, 1)), R.SpecularMicrofacetBSDF((1, 1, 1), 0.0, 1 / 1.5),
                R.SpecularMicrofacetBSDF((1, 1, 1), 0.0, 1.5), R.SpecularMicrofacetBRDF((1, 1, 1), 0.0)]
    for bsdf in lossless:
        mean, _ = albedo_by_sampling(bsdf, wi, n=20_000)
        np.testing.assert_allclose(mean, 1.0, rtol=1e-5)
    lossy = [R.FrostbiteDiffuseBRDF((1, 1, 1), r) for r in (0.0, 0.5, 1.0)] + [R.ClothBRDF((0.9, 0.9, 0.9), r) for r in (0.3, 0.9)] + [
        R.SpecularMicrofacetBRDF((1, 1, 1), a) for a in (0.1, 0.5, 1.0)]
    for bsdf in lossy:
        mean, se = albedo_by_sampling(bsdf, wi, n=100_000)
        assert np.all(mean <= 1.0 + 5 * se + 1e-6), (bsdf, mean)
    for alpha in (0.2, 0.8):
        for eta in (1 / 1.5, 1.5):
            bsdf = R.SpecularMicrofacetBSDF((1, 1, 1), alpha, eta)
            mean, se = albedo_by_sampling(bsdf, wi, n=100_000, flux=True)
            assert np.all(mean <= 1.0 + 5 * se + 1e-6), (alpha, eta, mean)


@pytest.mark.parametrize("name", ["lambert", "frostbite_rough", "cloth", "ggx_rough", "ggx_glossy", "standard_plastic", "standard_metal"])
def test_reflection_is_reciprocal(name):
    """f(wi, wo) = f(wo, wi) for reflection: eval includes cos θo, so compare f·cos / cos."""
    bsdf = BSDFS[name]()
    rng = np.random.default_rng(11)
    a = rng.normal(size=(64, 3))
    b = rng.normal(size=(64, 3))
    a[:, 2], b[:, 2] = np.abs(a[:, 2]) + 0.05, np.abs(b[:, 2]) + 0.05
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    for wi, wo in zip(a, b):
        f_io = bsdf.eval(wi, wo[None].astype(np.float32))[0] / wo[2]
        f_oi = bsdf.eval(wo, wi[None].astype(np.float32))[0] / wi[2]
        np.testing.assert_allclose(f_io, f_oi, rtol=1e-4, atol=1e-7)


def standard_from_base_color(base, metallic, roughness):
    """The standard BSDF a metal-rough StandardMaterial of this base color sets up (IoR 1.5)."""
    diffuse = base * (1.0 - metallic)
    specular = 0.04 * (1.0 - metallic) + base * metallic
    return R.StandardBSDF((diffuse,) * 3, (specular,) * 3, roughness, metallic=metallic)


@pytest.mark.parametrize("wi", WI, ids=["normal", "oblique", "grazing"])
@pytest.mark.parametrize("metallic", [0.0, 0.5, 1.0])
@pytest.mark.parametrize("roughness", [0.2, 0.8])
def test_standard_material_furnace(wi, metallic, roughness):
    """A white standard material scatters at most all light, except one known excess of
    Falcor's model: its diffuse and specular lobes simply add, so a white dielectric base at
    grazing view reflects a few percent more than it receives (measured 1.035 at cos θ = 0.16)."""
    mean, se = albedo_by_sampling(standard_from_base_color(1.0, metallic, roughness), wi, n=100_000)
    bound = 1.05 if metallic < 1.0 and wi[2] < 0.2 else 1.0
    assert np.all(mean <= bound + 5 * se), mean
    assert np.all(mean >= 0.5), mean  # And it does not lose most of it either.
