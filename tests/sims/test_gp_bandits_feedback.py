"""The feedback stand-in against independent references (numpy float64, closed forms)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.gp_bandits import feedback as fb
from jaxtheory.sims.gp_bandits.kernels import kernel_matrix


def _joint_reference(K, mask, a, idx, y, rho, tau2, sig2):
    """Condition the joint Gaussian of (f, a_M, y_D) directly (numpy float64).

    Returns the posterior mean and variance of f on the pool and log p(y_D | a_M, rho).
    """
    K = np.asarray(K, np.float64)
    M = np.flatnonzero(mask)
    D = np.asarray(idx)
    n = K.shape[0]
    # joint covariance of z = (f (n), a_M, y_D)
    Kff = K
    Kfa = rho * K[:, M]
    Kfy = K[:, D]
    Kaa = K[np.ix_(M, M)] + tau2 * np.eye(M.size)
    Kay = rho * K[np.ix_(M, D)]
    Kyy = K[np.ix_(D, D)] + sig2 * np.eye(D.size)
    Kof = np.concatenate([Kfa, Kfy], axis=1)  # cov(f, obs)
    Koo = np.block([[Kaa, Kay], [Kay.T, Kyy]])
    obs = np.concatenate([np.asarray(a)[M], np.asarray(y)])
    sol = np.linalg.solve(Koo, obs)
    mean = Kof @ sol
    var = np.diag(Kff) - np.einsum("ij,ji->i", Kof, np.linalg.solve(Koo, Kof.T))

    def logpdf(x, S):
        _, logdet = np.linalg.slogdet(S)
        return -0.5 * (x @ np.linalg.solve(S, x) + logdet + x.size * np.log(2 * np.pi))

    ll = logpdf(obs, Koo) - logpdf(np.asarray(a)[M], Kaa)
    assert n == mean.size
    return mean, var, ll


@pytest.fixture
def problem():
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(12, 2))
    K = np.asarray(kernel_matrix("se", X, X, 0.3, 1.0), np.float64) + 1e-6 * np.eye(12)
    mask = rng.uniform(size=12) < 0.7
    a = np.where(mask, rng.normal(size=12), 0.0)
    idx = np.array([1, 4, 7, 0, 0])
    used = np.array([True, True, True, False, False])
    y = np.array([0.3, -1.2, 0.8, 0.0, 0.0])
    return K, mask, a, idx, used, y


@pytest.mark.parametrize("rho", [-0.8, 0.0, 0.3, 1.0])
def test_grid_posterior_matches_joint_conditioning(problem, rho):
    K, mask, a, idx, used, y = problem
    tau2, sig2 = 0.05, 0.02
    with jax.enable_x64(True):
        m0, C = fb.feedback_moments(jnp.asarray(K), jnp.asarray(mask), jnp.asarray(a), tau2)
        w, mean, var, ll = fb.grid_posterior(
            jnp.asarray(K),
            m0,
            C,
            jnp.asarray(idx),
            jnp.asarray(y),
            jnp.asarray(used),
            sig2,
            jnp.array([rho]),
            jnp.zeros(1),
        )
    ref_mean, ref_var, ref_ll = _joint_reference(K, mask, a, idx[used], y[used], rho, tau2, sig2)
    # float64 solves of 12 × 12 systems with condition number ≲ 1e6: 1e-8 is generous
    np.testing.assert_allclose(np.asarray(mean[0]), ref_mean, atol=1e-8)
    np.testing.assert_allclose(np.asarray(var[0]), ref_var, atol=1e-8)
    assert abs(float(ll[0]) - ref_ll) < 1e-8
    assert float(w[0]) == 1.0


def test_grid_weights_are_the_normalized_likelihoods(problem):
    K, mask, a, idx, used, y = problem
    grid = fb.RHO_GRID
    with jax.enable_x64(True):
        m0, C = fb.feedback_moments(jnp.asarray(K), jnp.asarray(mask), jnp.asarray(a), 0.05)
        w, *_ = fb.grid_posterior(
            jnp.asarray(K),
            m0,
            C,
            jnp.asarray(idx),
            jnp.asarray(y),
            jnp.asarray(used),
            0.02,
            jnp.asarray(grid),
            jnp.zeros(grid.size),
        )
    lls = np.array([_joint_reference(K, mask, a, idx[used], y[used], r, 0.05, 0.02)[2] for r in grid])
    ref = np.exp(lls - lls.max())
    np.testing.assert_allclose(np.asarray(w), ref / ref.sum(), atol=1e-10)


def test_expected_improvement_closed_form_and_quadrature():
    mu, sd, best = 0.4, 0.7, 0.9
    z = (mu - best) / sd
    phi = math.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    Phi = 0.5 * (1 + math.erf(z / math.sqrt(2)))
    closed = (mu - best) * Phi + sd * phi
    # independent: E max(Y - best, 0) by the trapezoid rule on a fine grid
    yy = np.linspace(mu - 12 * sd, mu + 12 * sd, 200_001)
    dens = np.exp(-0.5 * ((yy - mu) / sd) ** 2) / (sd * math.sqrt(2 * math.pi))
    quad = np.trapezoid(np.maximum(yy - best, 0) * dens, yy)
    with jax.enable_x64(True):
        ei = float(fb.expected_improvement(jnp.array(mu), jnp.array(sd), best))
        ei0 = float(fb.expected_improvement(jnp.array(1.5), jnp.array(0.0), best))
    assert abs(ei - closed) < 1e-12 and abs(ei - quad) < 1e-8
    assert ei0 == pytest.approx(0.6)


def test_warp_is_monotone_and_identity_at_zero():
    z = jnp.linspace(-3, 3, 101)
    assert bool(jnp.all(jnp.diff(fb.warp(z, 1.5)) > 0))
    assert bool(jnp.all(fb.warp(z, 0.0) == z))


def test_mixture_cdf_matches_numpy():
    w = np.array([0.2, 0.5, 0.3])
    m = np.array([-1.0, 0.0, 2.0])
    v = np.array([0.5, 1.0, 2.0])
    y = 0.7
    ref = sum(wi * 0.5 * (1 + math.erf((y - mi) / math.sqrt(2 * vi))) for wi, mi, vi in zip(w, m, v))
    with jax.enable_x64(True):
        got = float(fb.mixture_cdf(y, jnp.asarray(w), jnp.asarray(m), jnp.asarray(v)))
    assert abs(got - ref) < 1e-12


def test_run_small_shapes_and_invariants():
    spec = fb.FeedbackSpec(n=32, steps=6, probe=3, lengthscale=0.1)
    p = dict(fb.FEEDBACK_PARAMS, access=0.5)
    out = jax.jit(lambda k: fb.run(spec, p, k))(jax.random.key(1))
    for name in ("regret_fb", "regret_nofb", "regret_greedy"):
        r = np.asarray(out[name])
        assert r.shape == (6,) and (r >= 0).all() and (np.diff(r) <= 0).all()
    pit = np.asarray(out["pit_fb"])
    assert ((pit >= 0) & (pit <= 1)).all()
    assert float(out["rho_true"]) == pytest.approx(0.9)
    # ρ from the prior: a grid value
    out2 = fb.run(spec, dict(p, rho_prior=2), jax.random.key(1))
    assert np.isclose(fb.RHO_GRID, float(out2["rho_true"]), atol=1e-6).any()


def test_spec_rejects_bad_input():
    with pytest.raises(ValueError):
        fb.FeedbackSpec(objective="hartmann6", dim=2)
    with pytest.raises(ValueError):
        fb.FeedbackSpec(steps=5, probe=5)
