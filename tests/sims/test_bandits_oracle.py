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
            lambda v: -v[K],
            v0,
            method="SLSQP",
            bounds=[(1e-12, 1.0)] * K + [(0.0, None)],
            constraints=[{"type": "ineq", "fun": cons}, {"type": "eq", "fun": lambda v: np.sum(v[:K]) - 1.0}],
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


# ---------------------------------------------------------------- near ties (one rule)

_SOLVERS = {
    # name: (solver(mu), limit of T* gap^2 as the two best means merge at 0.5)
    "gaussian": (lambda mu: _gauss_jit(mu, 1.0), 8.0),  # 8 sigma^2
    "nested-gaussian": (lambda mu: _nested_jit(mu, _gauss_kl_fixed(1.0)), 8.0),
    "nested-bernoulli": (lambda mu: _nested_jit(mu, bernoulli_kl), 2.0),  # 8 p (1 - p) at p = 1/2
}
_FAR = 0.3  # gap from the two near-tied arms to the nearest other arm


@pytest.mark.parametrize("x64", [False, True], ids=["float32", "float64"])
@pytest.mark.parametrize("solver", list(_SOLVERS))
@pytest.mark.parametrize("gap", [1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3])
def test_near_ties_one_rule_finite_and_continuous(gap, solver, x64):
    """Two best means a gap apart: tied (uniform on them, T* = inf) exactly by the documented rule, else
    finite and close to the gap -> 0 limit w* = (1/2, 1/2, 0, 0), T* gap^2 = 8 sigma^2 (or 8 p(1-p)).

    Before the fix a gap between the tolerance of `degenerate` and 0 gave w = (1, 0, 0, 0), T* = inf.
    """
    solve, limit = _SOLVERS[solver]
    dtype = np.float64 if x64 else np.float32
    with jax.enable_x64(x64):
        mu = jnp.asarray(np.array([0.5, 0.5 - gap, 0.5 - _FAR, 0.1], dtype))
        w, T = solve(mu)
        w, T = np.asarray(w, np.float64), float(T)
    assert w.dtype == np.float64 and np.all(np.isfinite(w)) and not np.isnan(T)
    eps = float(np.finfo(dtype).eps)
    m = np.asarray(mu, np.float64)  # the means as represented in the dtype
    g = m[0] - m[1]
    tied = g <= math.sqrt(eps) * (1.0 + np.max(np.abs(m)))  # the module's rule, restated
    np.testing.assert_allclose(w.sum(), 1.0, rtol=0, atol=4 * 4 * eps)  # 4 terms, a few roundings each
    if tied:
        assert math.isinf(T)
        np.testing.assert_array_equal(w, [0.5, 0.5, 0.0, 0.0])
        return
    assert math.isfinite(T)
    # error budget: rounding the means moves the gap by ~eps (1 + max|mu|), i.e. eps (1 + max|mu|) / g
    # relative; the limit is approached as 1 + O((g / FAR)^2) (Gaussian closed form; Bernoulli at p = 1/2).
    tol = 4 * eps * (1.0 + np.max(np.abs(m))) / g + 4 * (g / _FAR) ** 2
    np.testing.assert_allclose(T * g**2, limit, rtol=tol)
    np.testing.assert_allclose(w, [0.5, 0.5, 0.0, 0.0], rtol=0, atol=tol)


@pytest.mark.parametrize("solver", list(_SOLVERS))
@pytest.mark.parametrize("gap", [1e-3, 1e-2])
def test_near_ties_float32_matches_float64(gap, solver):
    """Where float32 resolves the gap, its weights and T* agree with the float64 solution."""
    solve, _ = _SOLVERS[solver]
    mu = np.array([0.5, 0.5 - gap, 0.5 - _FAR, 0.1])
    w32, T32 = solve(jnp.asarray(mu, jnp.float32))
    with jax.enable_x64(True):
        w64, T64 = solve(jnp.asarray(mu))
        w64, T64 = np.asarray(w64), float(T64)
    # float32 rounding of the means perturbs the gap by ~eps32 (1 + max|mu|); T* ~ 1/gap^2 doubles it
    tol = 4 * float(np.finfo(np.float32).eps) * 1.5 / gap
    np.testing.assert_allclose(float(T32), T64, rtol=tol)
    np.testing.assert_allclose(np.asarray(w32), w64, rtol=0, atol=tol)


def test_three_way_tie_uniform_and_divergence_ties():
    with jax.enable_x64(True):
        # three means within 2e-9 (< sqrt(eps64) * 1.5 = 2.2e-8): all tied with the best
        mu = jnp.array([0.5 - 1e-9, 0.5, 0.5 - 2e-9, 0.1])
        for w, T in (_gauss_jit(mu, 1.0), _nested_jit(mu, bernoulli_kl)):
            np.testing.assert_allclose(np.asarray(w), [1 / 3, 1 / 3, 1 / 3, 0.0], rtol=1e-15)
            assert math.isinf(float(T))
        # gap 5e-7 is above the tolerance, but Bernoulli means clipped to 1 - 1e-6 are one law: tied
        w, T = _nested_jit(jnp.array([1.0, 1.0 - 5e-7, 0.5]), bernoulli_kl)
        np.testing.assert_array_equal(np.asarray(w), [0.5, 0.5, 0.0])
        assert math.isinf(float(T))
        w, T = _gauss_jit(jnp.array([1.0, 1.0 - 5e-7, 0.5]), 1.0)  # Gaussian: not a tie
        assert math.isfinite(float(T)) and np.all(np.asarray(w) > 0)


def test_bad_means_raise():
    with pytest.raises(ValueError, match="shape"):
        optimal_weights_gaussian(jnp.zeros((2, 3)))
    with pytest.raises(ValueError, match="K >= 2"):
        optimal_weights(jnp.zeros((1,)), bernoulli_kl)


def _decimal_bernoulli_kl(x, y):
    """The textbook formula in 50-digit decimal arithmetic (exact inputs): an independent reference."""
    import decimal

    with decimal.localcontext() as ctx:
        ctx.prec = 50
        x, y = decimal.Decimal(float(x)), decimal.Decimal(float(y))
        one = decimal.Decimal(1)
        return float(x * (x / y).ln() + (one - x) * ((one - x) / (one - y)).ln())


@pytest.mark.parametrize("x64", [False, True], ids=["float32", "float64"])
@pytest.mark.parametrize(
    "x,gap", [(0.5, 1e-7), (0.5, 1e-4), (0.3, -2e-3), (0.9, 0.05), (0.01, 0.4), (0.999, -0.9)]
)
def test_bernoulli_kl_relative_accuracy(x, gap, x64):
    """Relative error of a few eps at any distance, near-equal means included (the textbook form
    in float32 has relative error ~eps / gap^2 there: 100% at gap 1e-4)."""
    dtype = np.float64 if x64 else np.float32
    with jax.enable_x64(x64):
        a, b = np.asarray(x, dtype), np.asarray(x + gap, dtype)
        d = float(bernoulli_kl(jnp.asarray(a), jnp.asarray(b)))
    ref = _decimal_bernoulli_kl(a, b)  # at the represented means, so only the evaluation's error counts
    assert ref > 0
    np.testing.assert_allclose(d, ref, rtol=16 * float(np.finfo(dtype).eps))
