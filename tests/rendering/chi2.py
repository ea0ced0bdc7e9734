"""Chi-square goodness of fit of a direction sampler against its density (as Mitsuba's
ChiSquareTest): histogram the samples over (cos θ, φ) bins of the sphere, integrate the pdf
over the same bins, pool sparse bins, and compute the p-value of the difference."""
from __future__ import annotations

import math

import numpy as np


def gammaincc(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) (series below a + 1, continued fraction above)."""
    if x <= 0.0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        n = a
        for _ in range(10000):
            n += 1.0
            term *= x / n
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    # Lentz's continued fraction for Q.
    b, c, d = x + 1.0 - a, 1.0 / 1e-300, 1.0 / (x + 1.0 - a)
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(log_prefix) * h


def sphere_directions(cos_theta: np.ndarray, phi: np.ndarray) -> np.ndarray:
    sin_theta = np.sqrt(np.maximum(0.0, 1.0 - cos_theta**2))
    return np.stack([sin_theta * np.cos(phi), sin_theta * np.sin(phi), cos_theta], axis=-1)


def expected_histogram(pdf, n_theta: int, n_phi: int, sub_theta: int = 48, sub_phi: int = 8) -> np.ndarray:
    """∫ pdf over each (cos θ, φ) bin: midpoint rule in θ (with the sin θ of the measure) and φ.
    Integrating finely in θ rather than cos θ resolves narrow lobes peaked at the poles, such as
    glossy refraction at normal incidence."""
    z_edges = np.linspace(-1.0, 1.0, n_theta + 1)
    theta_edges = np.arccos(np.clip(z_edges, -1.0, 1.0))  # Decreasing with z.
    t = (np.arange(sub_theta) + 0.5) / sub_theta
    theta = theta_edges[:-1, None] + (theta_edges[1:] - theta_edges[:-1])[:, None] * t  # (n_theta, sub)
    dtheta = np.abs(theta_edges[:-1] - theta_edges[1:])[:, None] / sub_theta
    dphi = 2.0 * math.pi / (n_phi * sub_phi)
    phi = (np.arange(n_phi * sub_phi) + 0.5) * dphi
    tt, pp = np.meshgrid(theta.ravel(), phi, indexing="ij")
    values = np.asarray(pdf(sphere_directions(np.cos(tt), pp).reshape(-1, 3).astype(np.float32)), np.float64)
    weights = (np.sin(theta) * dtheta).ravel()[:, None] * dphi
    return (values.reshape(tt.shape) * weights).reshape(n_theta, sub_theta, n_phi, sub_phi).sum(axis=(1, 3))


def observed_histogram(directions: np.ndarray, n_theta: int, n_phi: int) -> np.ndarray:
    d = np.asarray(directions, np.float64)
    d = d / np.linalg.norm(d, axis=1, keepdims=True)
    z_bin = np.clip(((d[:, 2] + 1.0) * 0.5 * n_theta).astype(int), 0, n_theta - 1)
    phi = np.mod(np.arctan2(d[:, 1], d[:, 0]), 2.0 * math.pi)
    p_bin = np.clip((phi / (2.0 * math.pi) * n_phi).astype(int), 0, n_phi - 1)
    h = np.zeros((n_theta, n_phi))
    np.add.at(h, (z_bin, p_bin), 1.0)
    return h


def chi2_pvalue(observed: np.ndarray, expected: np.ndarray, min_expected: float = 5.0) -> float:
    """p-value of observed counts under the expected ones; bins expecting fewer than
    `min_expected` are pooled into one (Mitsuba's rule)."""
    obs, exp = observed.ravel(), expected.ravel()
    order = np.argsort(exp)
    obs, exp = obs[order], exp[order]
    sparse = exp < min_expected
    pooled_obs, pooled_exp = obs[sparse].sum(), exp[sparse].sum()
    obs, exp = list(obs[~sparse]), list(exp[~sparse])
    if pooled_exp > 0.0:
        if pooled_exp < min_expected and exp:
            obs[0] += pooled_obs
            exp[0] += pooled_exp
        else:
            obs.append(pooled_obs)
            exp.append(pooled_exp)
    elif pooled_obs > 0:
        return 0.0  # Samples where the density says there can be none.
    obs, exp = np.array(obs), np.array(exp)
    stat = float(((obs - exp) ** 2 / exp).sum())
    dof = len(exp) - 1
    return gammaincc(dof / 2.0, stat / 2.0)
