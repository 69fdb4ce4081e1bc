"""Track-and-Stop's oracle: optimal weights and characteristic time.

Checked against closed forms (two Gaussian arms: T* = 8σ²/Δ², w* = (½, ½); K − 1 equal
gaps: w₁ = √(K−1)·w_b, T* = 2σ²(1 + √(K−1))²/Δ²) and against an independent
max-min solver written here (the sup-min as a convex program in (w, λ), solved by
scipy's SLSQP), for Gaussian and Bernoulli arms.
float64 (``jax.enable_x64``) where the tolerance needs it.
"""

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.optimize

from jaxtheory.sims.bandits import (
    bernoulli_kl,
    gaussian_kl,
    optimal_weights,
    optimal_weights_gaussian,
)


# ---------------------------------------------------------------- independent reference


def _np_gauss(sigma):
    return lambda x, y: (x - y) ** 2 / (2 * sigma**2)


def _np_bern(x, y, eps=1e-6):
    x = np.clip(x, eps, 1 - eps)
    y = np.clip(y, eps, 1 - eps)
    return x * np.log(x / y) + (1 - x) * np.log((1 - x) / (1 - y))


def _f(d, m1, ma, w1, wa):
    """(w1 + wa) I_{w1/(w1+wa)}(m1, ma): the cost of confusing arm a with the best."""
    m = (w1 * m1 + wa * ma) / (w1 + wa)
    return w1 * d(m1, m) + wa * d(ma, m)


def reference_weights(mu, d):
    """max_{w, λ} λ s.t. f_a(w) >= λ for every a != best, w in the simplex (scipy SLSQP).

    The constraints are concave in w, so this is a convex program; SLSQP from several
    starts, keeping the best value.
    """
    mu = np.asarray(mu, float)
    K = mu.size
    best = int(np.argmax(mu))
    others = [a for a in range(K) if a != best]

    def cons(v):
        w, lam = v[:K], v[K]
        return np.array([_f(d, mu[best], mu[a], w[best], w[a]) - lam for a in others])

    best_v = None
    for start in (np.full(K, 1.0 / K), np.eye(K)[best] * 0.5 + 0.5 / K):
        v0 = np.append(start / start.sum(), 0.0)
        res = scipy.optimize.minimize(
            lambda v: -v[K], v0, method="SLSQP",
            bounds=[(1e-12, 1.0)] * K + [(0.0, None)],
            constraints=[{"type": "ineq", "fun": cons},
                         {"type": "eq", "fun": lambda v: np.sum(v[:K]) - 1.0}],
            options={"ftol": 1e-15, "maxiter": 1000},
        )
        if best_v is None or res.x[K] > best_v[K]:
            best_v = res.x
    return best_v[:K] / best_v[:K].sum(), 1.0 / best_v[K]


_nested_jit = jax.jit(optimal_weights, static_argnums=1)
_gauss_jit = jax.jit(optimal_weights_gaussian)


def _gauss_kl_fixed(sigma):
    # a hashable divergence per sigma, so the jitted nested solver is reused
    return _GAUSS_KL.setdefault(sigma, functools.partial(gaussian_kl, sigma=sigma))


_GAUSS_KL: dict = {}


# ---------------------------------------------------------------- closed forms


@pytest.mark.parametrize("gap,sigma", [(0.5, 1.0), (1.0, 2.0), (0.1, 0.3)])
def test_two_gaussian_arms_closed_form(gap, sigma):
    with jax.enable_x64(True):
        mu = jnp.array([0.2, 0.2 - gap])
        for w, T in (_gauss_jit(mu, sigma), _nested_jit(mu, _gauss_kl_fixed(sigma))):
            np.testing.assert_allclose(np.asarray(w), [0.5, 0.5], rtol=0, atol=1e-10)
            np.testing.assert_allclose(float(T), 8 * sigma**2 / gap**2, rtol=1e-9)


@pytest.mark.parametrize("K", [3, 5])
def test_equal_gaps_closed_form(K):
    gap, sigma = 0.4, 1.5
    with jax.enable_x64(True):
        mu = jnp.zeros(K).at[0].set(gap)
        w, T = _gauss_jit(mu, sigma)
        r = math.sqrt(K - 1)
        w1 = r / (r + K - 1)
        np.testing.assert_allclose(np.asarray(w), [w1] + [(1 - w1) / (K - 1)] * (K - 1), atol=1e-10)
        np.testing.assert_allclose(float(T), 2 * sigma**2 * (1 + r) ** 2 / gap**2, rtol=1e-9)
        # The optimality condition of the Gaussian case: w1^2 = sum_{b != 1} w_b^2.
        np.testing.assert_allclose(float(w[0] ** 2), float(jnp.sum(w[1:] ** 2)), rtol=1e-9)


# ---------------------------------------------------------------- independent solver


@pytest.mark.parametrize("mu", [[0.1, 1.0, 0.8, 0.3, -0.5], [0.2, -0.4, 0.9, 0.35, 0.6]])
def test_gaussian_against_independent_solver(mu):
    mu = np.asarray(mu)
    sigma = 0.7
    w_ref, T_ref = reference_weights(mu, _np_gauss(sigma))
    with jax.enable_x64(True):
        w, T = _gauss_jit(jnp.asarray(mu), sigma)
        w2, T2 = _nested_jit(jnp.asarray(mu), _gauss_kl_fixed(sigma))
    np.testing.assert_allclose(np.asarray(w), w_ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(T), T_ref, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(w2), w_ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(T2), T_ref, rtol=1e-6)


@pytest.mark.parametrize("mu", [[0.5, 0.45, 0.43, 0.4], [0.3, 0.9, 0.1, 0.2]])
def test_bernoulli_nested_against_independent_solver(mu):
    w_ref, T_ref = reference_weights(mu, _np_bern)
    with jax.enable_x64(True):
        w, T = _nested_jit(jnp.asarray(mu), bernoulli_kl)
    np.testing.assert_allclose(np.asarray(w), w_ref, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(float(T), T_ref, rtol=1e-6)


# ---------------------------------------------------------------- structure


def test_shift_and_permutation_equivariance_float32():
    mu = jnp.array([0.1, 0.7, -0.3, 0.65, 0.2])
    w, T = _gauss_jit(mu, 1.0)
    w_s, T_s = _gauss_jit(mu + 3.0, 1.0)
    perm = jnp.array([3, 0, 4, 1, 2])
    w_p, T_p = _gauss_jit(mu[perm], 1.0)
    np.testing.assert_allclose(np.asarray(w_s), np.asarray(w), rtol=2e-4)
    np.testing.assert_allclose(float(T_s), float(T), rtol=2e-4)
    np.testing.assert_allclose(np.asarray(w_p), np.asarray(w)[np.asarray(perm)], rtol=1e-5)
    np.testing.assert_allclose(float(T_p), float(T), rtol=1e-5)
    with jax.enable_x64(True):
        w64, T64 = _gauss_jit(jnp.asarray(np.asarray(mu, np.float64)), 1.0)
    np.testing.assert_allclose(np.asarray(w), np.asarray(w64), rtol=1e-4)
    np.testing.assert_allclose(float(T), float(T64), rtol=1e-4)


def test_vmap_and_ties():
    mus = jnp.array([[1.0, 0.0, 0.0, -1.0, 0.2], [0.0] * 5, [0.5, 0.5, 0.0, 0.0, 0.0]])
    w, T = jax.jit(jax.vmap(optimal_weights_gaussian, (0, None)))(mus, 1.0)
    assert np.all(np.isfinite(np.asarray(w)))
    np.testing.assert_allclose(np.asarray(w).sum(1), 1.0, rtol=1e-6)
    assert np.isfinite(float(T[0])) and np.isinf(float(T[1])) and np.isinf(float(T[2]))
    np.testing.assert_allclose(np.asarray(w[1]), [0.2] * 5, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(w[2]), [0.5, 0.5, 0.0, 0.0, 0.0], atol=1e-7)
