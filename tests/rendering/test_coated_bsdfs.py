"""The coated PBRT BSDFs (a dielectric coat over a conductor or a Lambertian base, evaluated by a
random walk between the interfaces): closed forms for smooth layers, energy conservation, and
the walk's two estimators (eval and sample) against each other bin by bin.

Their evalPdf is Falcor's MIS heuristic, not the density of sample(), so there is no chi-square
test of sample() against it; what must hold is that E[weight · 1(wo in B)] equals the integral
of E[eval] over B for every set B of directions, which the binned test checks."""
import math

import numpy as np
import pytest

import falcor

R = falcor.rendering
ETA, K = (0.2, 0.924, 1.102), (3.912, 2.452, 2.142)  # Copper.


def unit(v):
    v = np.asarray(v, np.float64)
    return tuple(v / np.linalg.norm(v))


def dielectric_fresnel(cos_i, eta_i, eta_t):
    sin2_t = (eta_i / eta_t) ** 2 * (1 - cos_i * cos_i)
    cos_t = math.sqrt(1 - sin2_t)
    rs = (eta_i * cos_i - eta_t * cos_t) / (eta_i * cos_i + eta_t * cos_t)
    rp = (eta_t * cos_i - eta_i * cos_t) / (eta_t * cos_i + eta_i * cos_t)
    return 0.5 * (rs * rs + rp * rp), cos_t


def weights(bsdf, wi, n, seed):
    """Sample weights in float64, zero for invalid samples, and the sampled directions."""
    s = bsdf.sample(wi, n, seed=seed)
    w = np.where(s["valid"][:, None], s["weight"].astype(np.float64), 0.0)
    return w, s["wo"].astype(np.float64), s["valid"]


@pytest.mark.parametrize("cos_theta", [0.95, 0.6, 0.2])
def test_smooth_coat_over_mirror_conductor_matches_closed_form(cos_theta):
    """Light reflects off the coat (F) or enters, bounces between the conductor (Rc at the
    refracted angle) and the coat's inside (F again): R = F + (1-F)² Rc / (1 - F Rc)."""
    wi = (math.sqrt(1 - cos_theta**2), 0.0, cos_theta)
    F, cos_t = dielectric_fresnel(cos_theta, 1.0, 1.5)
    conductor = R.PBRTConductorBSDF(ETA, K, 0.0, 0.0)
    Rc = conductor.sample((math.sqrt(1 - cos_t**2), 0.0, cos_t), 1, 0)["weight"][0].astype(np.float64)
    expected = F + (1 - F) ** 2 * Rc / (1 - F * Rc)
    w, wo, valid = weights(R.PBRTCoatedConductorBSDF(1.5, 0.0, 0.0, ETA, K, 0.0, 0.0), wi, 200_000, seed=11)
    assert valid.mean() > 0.98  # Russian roulette ends a few long walks (weight 0).
    se = w.std(0) / math.sqrt(len(w))
    np.testing.assert_array_less(np.abs(w.mean(0) - expected), 4 * se + 1e-6)
    # Every path leaves in the mirror direction.
    np.testing.assert_allclose(wo[valid], np.broadcast_to([-wi[0], 0.0, wi[2]], wo[valid].shape), atol=1e-5)


@pytest.mark.parametrize("cos_theta", [0.9, 0.3])
def test_smooth_coat_over_white_lambertian_loses_nothing(cos_theta):
    """A white furnace: a clear coat over a white Lambertian base reflects everything."""
    wi = (math.sqrt(1 - cos_theta**2), 0.0, cos_theta)
    w, _, valid = weights(R.PBRTCoatedDiffuseBSDF(1.5, 0.0, 0.0, (1, 1, 1)), wi, 20_000, seed=5)
    assert valid.all()
    np.testing.assert_allclose(w, 1.0, rtol=1e-5)


@pytest.mark.parametrize("cos_theta", [0.9, 0.3])
def test_coat_over_colored_base_reflects_less_than_white(cos_theta):
    wi = (math.sqrt(1 - cos_theta**2), 0.0, cos_theta)
    for alpha in (0.0, 0.3):
        w, _, _ = weights(R.PBRTCoatedDiffuseBSDF(1.5, alpha, alpha, (0.8, 0.5, 0.2)), wi, 50_000, seed=7)
        mean, se = w.mean(0), w.std(0) / math.sqrt(len(w))
        assert np.all(mean < 1.0) and mean[0] > mean[1] > mean[2]
        if alpha == 0.0:  # At least the clear coat's own Fresnel reflection comes back.
            F, _ = dielectric_fresnel(cos_theta, 1.0, 1.5)
            assert np.all(mean + 4 * se > F)


def binned_integrals(bsdf, wi, n_theta, n_phi, n_samples, seed):
    """Per (cos θ, φ) bin over the upper hemisphere: the sampled estimate E[weight · 1(bin)] and
    the integral of E[eval] by uniform hemisphere sampling, each with its standard error."""
    rng = np.random.default_rng(seed)
    w, wo, valid = weights(bsdf, wi, n_samples, seed)

    def bin_of(d):
        t = np.clip((d[:, 2] * n_theta).astype(int), 0, n_theta - 1)
        p = np.clip(((np.arctan2(d[:, 1], d[:, 0]) + math.pi) / (2 * math.pi) * n_phi).astype(int), 0, n_phi - 1)
        return t * n_phi + p

    n_bins = n_theta * n_phi
    up = valid & (wo[:, 2] > 0)
    lum = w @ [0.2126, 0.7152, 0.0722]
    sampled = np.zeros((n_bins, n_samples))
    sampled[bin_of(wo[up]), np.nonzero(up)[0]] = lum[up]
    # Uniform directions on the hemisphere: pdf 1 / 2π.
    u = rng.random((n_samples, 2))
    z, phi = u[:, 0], 2 * math.pi * u[:, 1]
    r = np.sqrt(1 - z * z)
    d = np.stack([r * np.cos(phi), r * np.sin(phi), z], -1)
    f = bsdf.eval(wi, d.astype(np.float32), seed=seed + 1).astype(np.float64) @ [0.2126, 0.7152, 0.0722]
    integral = np.zeros((n_bins, n_samples))
    integral[bin_of(d), np.arange(n_samples)] = f * 2 * math.pi

    def mean_se(x):
        return x.mean(1), x.std(1) / math.sqrt(n_samples)

    return mean_se(sampled), mean_se(integral)


@pytest.mark.parametrize("bsdf_name", ["coated_diffuse_rough", "coated_conductor_rough"])
def test_eval_and_sample_estimate_the_same_bsdf(bsdf_name):
    """Rough coats (both estimators non-zero): per bin of outgoing directions, the sampled
    reflectance and the integral of eval agree within 4.5 standard errors, as do the totals."""
    bsdf = {
        "coated_diffuse_rough": lambda: R.PBRTCoatedDiffuseBSDF(1.5, 0.3, 0.3, (0.8, 0.5, 0.2)),
        "coated_conductor_rough": lambda: R.PBRTCoatedConductorBSDF(1.5, 0.3, 0.3, ETA, K, 0.2, 0.2),
    }[bsdf_name]()
    wi = unit([0.4, 0.2, 0.8])
    (s_mean, s_se), (i_mean, i_se) = binned_integrals(bsdf, wi, 4, 4, 200_000, seed=21)
    z = (s_mean - i_mean) / np.sqrt(s_se**2 + i_se**2 + 1e-30)
    assert np.all(np.abs(z) < 4.5), (z, s_mean, i_mean)
    total_z = (s_mean.sum() - i_mean.sum()) / math.sqrt((s_se**2).sum() + (i_se**2).sum())
    assert abs(total_z) < 4.5, (s_mean.sum(), i_mean.sum())


def test_lobe_types_and_pdf_heuristic():
    """Sampled lobes: the coat's mirror reflection is delta; walks that leave through a rough
    coat are glossy. evalPdf is Falcor's heuristic: half the coat's reflection pdf plus half
    |cos θi|/π."""
    wi = unit([0.3, 0.0, 0.9])
    smooth = R.PBRTCoatedConductorBSDF(1.5, 0.0, 0.0, ETA, K, 0.0, 0.0).sample(wi, 1000, seed=2)
    assert np.all(smooth["lobe"][smooth["valid"]] == 0x04)  # DeltaReflection
    rough = R.PBRTCoatedDiffuseBSDF(1.5, 0.3, 0.3, (0.5, 0.5, 0.5))
    s = rough.sample(wi, 1000, seed=3)
    assert np.all(s["lobe"][s["valid"]] == 0x02)  # SpecularReflection
    wo = s["wo"][s["valid"]][:20]
    coat = R.PBRTDielectricBSDF(1.0, 1.5, 0.3, 0.3)
    np.testing.assert_allclose(rough.pdf(wi, wo), 0.5 * (coat.pdf(wi, wo) + wi[2] / math.pi), rtol=1e-5)
