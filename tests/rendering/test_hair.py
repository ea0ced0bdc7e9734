"""The hair BCSDF (Chiang et al. 2016, HairMaterial): sample() against pdf() (chi-square),
sample weights against eval()/pdf(), and energy: a fiber that absorbs nothing scatters all the
light it receives (its sample weights are exactly 1, the integral of eval is 1)."""
import math

import numpy as np
import pytest

import falcor
from chi2 import chi2_pvalue, expected_histogram, observed_histogram
from test_bsdf_sampling import N_PHI, N_SAMPLES, N_THETA, SIGNIFICANCE, unit

R = falcor.rendering

# (betaM, betaN, h, wi): rough to smooth fibers, views along and across the fiber (x = fiber).
CASES = [
    (0.3, 0.3, 0.2, unit([0.3, 0.5, 0.8])),
    (0.25, 0.6, -0.7, unit([-0.6, 0.7, 0.2])),
    (0.8, 0.9, 0.0, unit([0.1, -0.2, 0.95])),
    (0.5, 0.2, 0.9, unit([0.7, 0.0, -0.7])),
]


def hair(color, beta_m, beta_n, h):
    return R.HairChiang16(color, beta_m, beta_n, alpha=2.0, ior=1.55, eta=1 / 1.55, h=h)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_sample_matches_pdf_chi_square(case):
    beta_m, beta_n, h, wi = CASES[case]
    bsdf = hair((0.6, 0.4, 0.2), beta_m, beta_n, h)
    s = bsdf.sample(wi, N_SAMPLES, seed=17 + case)
    assert s["valid"].mean() > 0.999
    observed = observed_histogram(s["wo"][s["valid"]], N_THETA, N_PHI)
    expected = expected_histogram(lambda d: bsdf.pdf(wi, d), N_THETA, N_PHI) * N_SAMPLES
    p = chi2_pvalue(observed, expected)
    assert p > SIGNIFICANCE, (case, p)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_weight_is_eval_over_pdf(case):
    beta_m, beta_n, h, wi = CASES[case]
    bsdf = hair((0.6, 0.4, 0.2), beta_m, beta_n, h)
    s = bsdf.sample(wi, 2000, seed=5)
    keep = s["valid"]
    f, pdf = bsdf.eval(wi, s["wo"][keep]), bsdf.pdf(wi, s["wo"][keep])
    np.testing.assert_allclose(s["pdf"][keep], pdf, rtol=1e-4)
    np.testing.assert_allclose(s["weight"][keep], f / pdf[:, None], rtol=1e-4, atol=1e-7)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_white_fiber_loses_no_energy(case):
    """sigma_a = 0: Ap sums to 1 and the sampling pdf is f itself, so every weight is 1 (as
    pbrt's hair tests); the integral of eval over the sphere is 1 too, up to the accuracy of the
    model's lobe normalizations (the log-Bessel form of Mp for narrow lobes: pbrt allows 5 %, the
    cases here agree within 2 %)."""
    beta_m, beta_n, h, wi = CASES[case]
    bsdf = hair((1, 1, 1), beta_m, beta_n, h)
    assert R.HairChiang16.sigma_a_from_color((1, 1, 1), beta_n) == (0.0, 0.0, 0.0)
    s = bsdf.sample(wi, 20_000, seed=9)
    assert s["valid"].all()
    np.testing.assert_allclose(s["weight"], 1.0, rtol=2e-5)
    d = np.random.default_rng(case).normal(size=(400_000, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    f = bsdf.eval(wi, d.astype(np.float32)).astype(np.float64)[:, 0] * 4 * math.pi
    mean, se = f.mean(), f.std() / math.sqrt(len(f))
    assert abs(mean - 1.0) < 4 * se + 0.02, (mean, se)


def test_absorption_follows_the_base_color():
    """A colored fiber keeps less energy in the channels its color absorbs, and a darker color
    absorbs more."""
    wi = unit([0.2, 0.4, 0.9])
    albedo = {}
    for color in [(0.8, 0.5, 0.2), (0.4, 0.25, 0.1)]:
        s = hair(color, 0.3, 0.3, 0.1).sample(wi, 50_000, seed=2)
        albedo[color] = np.where(s["valid"][:, None], s["weight"].astype(np.float64), 0).mean(0)
    light, dark = albedo[(0.8, 0.5, 0.2)], albedo[(0.4, 0.25, 0.1)]
    assert light[0] > light[1] > light[2] and np.all(light < 1)
    assert np.all(dark < light)
    sigma = R.HairChiang16.sigma_a_from_color((0.8, 0.5, 0.2), 0.3)
    assert sigma[0] < sigma[1] < sigma[2]
