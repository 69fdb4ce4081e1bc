"""jaxtheory.sims.attribution: Newton fit, exact LOO, ALO and TRAK against float64 references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory import analysis
from jaxtheory.sims.attribution import trak
from jaxtheory.sims.logreg import logistic_loss


def _data(n=50, p=10, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) / np.sqrt(p)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-X @ (2 * rng.standard_normal(p))))).astype(float)
    Xt = rng.standard_normal((4, p)) / np.sqrt(p)
    return X, y, Xt


def _np_newton(X, y, lam, theta, steps=60):
    """Independent float64 numpy Newton for Σ log(1 + e^{xθ}) − y xθ + λ/2 ‖θ‖², to convergence."""
    for _ in range(steps):
        s = 1 / (1 + np.exp(-X @ theta))
        g = X.T @ (s - y) + lam * theta
        H = (X * (s * (1 - s))[:, None]).T @ X + lam * np.eye(X.shape[1])
        theta = theta - np.linalg.solve(H, g)
    return theta


def test_newton_fit_zeroes_the_gradient_of_logreg_loss():
    X, y, _ = _data()
    lam = 0.1
    with jax.enable_x64(True):
        th = trak.newton_fit(jnp.asarray(X), jnp.asarray(y), lam, 30)
        # The project's logistic loss (±1 labels, a mean): n·loss + λ/2‖θ‖² is the same objective.
        obj = lambda t: (
            X.shape[0] * logistic_loss(t, jnp.asarray(X), jnp.asarray(2 * y - 1)) + lam / 2 * t @ t
        )  # noqa: E731
        g = np.asarray(jax.grad(obj)(th))
    # Newton converges quadratically: after 30 steps the gradient is at float64 rounding.
    assert np.linalg.norm(g) < 1e-12


def test_newton_fit_squared_is_closed_form_ridge():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 6))
    y = rng.standard_normal(30)
    with jax.enable_x64(True):
        th = np.asarray(trak.newton_fit(jnp.asarray(X), jnp.asarray(y), 0.5, 1, loss="squared"))
    ref = np.linalg.solve(X.T @ X + 0.5 * np.eye(6), X.T @ y)
    np.testing.assert_allclose(th, ref, rtol=1e-12, atol=1e-13)


def test_exact_loo_matches_numpy_refits():
    X, y, _ = _data()
    lam, idx = 0.1, np.arange(0, 50, 7)
    theta = _np_newton(X, y, lam, np.zeros(X.shape[1]))
    ref = np.stack([_np_newton(np.delete(X, i, 0), np.delete(y, i), lam, theta) - theta for i in idx])
    with jax.enable_x64(True):
        th = trak.newton_fit(jnp.asarray(X), jnp.asarray(y), lam, 30)
        d = np.asarray(trak.exact_loo(jnp.asarray(X), jnp.asarray(y), th, lam, jnp.asarray(idx), 6))
    # 6 warm-started Newton steps from ‖Δ‖ ~ 0.1 reach float64 rounding (quadratic convergence).
    np.testing.assert_allclose(d, ref, rtol=0, atol=1e-12)


def test_alo_is_exact_for_ridge_least_squares():
    rng = np.random.default_rng(3)
    n, p, lam = 40, 15, 0.2
    X = rng.standard_normal((n, p)) / np.sqrt(p)
    y = rng.standard_normal(n)
    theta = np.linalg.solve(X.T @ X + lam * np.eye(p), X.T @ y)
    ref = np.stack(
        [
            np.linalg.solve(
                np.delete(X, i, 0).T @ np.delete(X, i, 0) + lam * np.eye(p),
                np.delete(X, i, 0).T @ np.delete(y, i),
            )
            - theta
            for i in range(n)
        ]
    )
    with jax.enable_x64(True):
        d, h = trak.alo(
            jnp.asarray(X), jnp.asarray(y), jnp.asarray(theta), lam, jnp.arange(n), loss="squared"
        )
    # An exact identity (Sherman–Morrison); float64 rounding with cond ~ 1e2.
    np.testing.assert_allclose(np.asarray(d), ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        np.asarray(h), np.diag(X @ np.linalg.solve(X.T @ X + lam * np.eye(p), X.T)), atol=1e-13
    )


def test_alo_is_one_newton_step_of_the_leave_one_out_objective():
    """Logistic ALO = (H − wᵢxᵢxᵢᵀ)⁻¹xᵢℓ′ᵢ: Sherman–Morrison against an explicit solve."""
    X, y, _ = _data(seed=4)
    lam = 0.1
    theta = _np_newton(X, y, lam, np.zeros(X.shape[1]))
    s = 1 / (1 + np.exp(-X @ theta))
    w, d1 = s * (1 - s), s - y
    H = (X * w[:, None]).T @ X + lam * np.eye(X.shape[1])
    ref = np.stack([np.linalg.solve(H - w[i] * np.outer(X[i], X[i]), X[i]) * d1[i] for i in range(len(y))])
    with jax.enable_x64(True):
        d, _ = trak.alo(jnp.asarray(X), jnp.asarray(y), jnp.asarray(theta), lam, jnp.arange(len(y)))
    np.testing.assert_allclose(np.asarray(d), ref, rtol=0, atol=1e-12)


def test_trak_at_full_width_is_influence_function_and_alo_times_one_minus_leverage():
    X, y, Xt = _data(seed=5)
    lam, idx = 0.1, np.arange(50)
    theta = _np_newton(X, y, lam, np.zeros(X.shape[1]))
    s = 1 / (1 + np.exp(-X @ theta))
    H = (X * (s * (1 - s))[:, None]).T @ X + lam * np.eye(X.shape[1])
    plain = Xt @ np.linalg.solve(H, X.T) * (s - y)[None, :]
    P = np.random.default_rng(6).standard_normal((10, 10))  # any invertible projection
    with jax.enable_x64(True):
        args = (jnp.asarray(X), jnp.asarray(y), jnp.asarray(theta), lam)
        tau = np.asarray(trak.trak_scores(*args, jnp.asarray(Xt), idx, jnp.asarray(P), 10))
        d, h = trak.alo(*args, idx)
    np.testing.assert_allclose(tau, plain, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        tau, (Xt @ np.asarray(d).T) * (1 - np.asarray(h))[None, :], rtol=1e-9, atol=1e-12
    )


@pytest.mark.parametrize("k", [1, 3, 7])
def test_masked_projection_equals_the_narrow_one(k):
    X, y, Xt = _data(seed=7)
    lam, idx = 0.1, np.arange(20)
    theta = _np_newton(X, y, lam, np.zeros(X.shape[1]))
    P = np.random.default_rng(8).standard_normal((10, 10)) / np.sqrt(10)
    with jax.enable_x64(True):
        args = (jnp.asarray(X), jnp.asarray(y), jnp.asarray(theta), lam, jnp.asarray(Xt), idx)
        padded = np.asarray(jax.jit(lambda kk: trak.trak_scores(*args, jnp.asarray(P), kk))(k))
        narrow = np.asarray(trak.trak_scores(*args, jnp.asarray(P[:, :k]), k))
    # Different shapes, same algebra: float64 rounding.
    np.testing.assert_allclose(padded, narrow, rtol=1e-10, atol=1e-13)


def test_ranking_metrics_against_numpy():
    rng = np.random.default_rng(9)
    true = rng.standard_normal((3, 40))
    est = true + 0.7 * rng.standard_normal((3, 40))
    m = {k: float(v) for k, v in trak.ranking_metrics(jnp.asarray(est), jnp.asarray(true)).items()}
    sp = np.mean([analysis.spearman(est[r], true[r]) for r in range(3)])
    pe = np.mean([np.corrcoef(est[r], true[r])[0, 1] for r in range(3)])
    aucs, precs = [], []
    for r in range(3):
        order = np.argsort(-np.abs(true[r]))
        pos, neg = np.abs(est[r][order[:4]]), np.abs(est[r][order[20:]])
        aucs.append(np.mean(pos[:, None] > neg[None, :]))
        precs.append(len(set(np.argsort(-np.abs(est[r]))[:2]) & set(order[:2])) / 2)
    # float32 sums of 40 terms: ~1e-6.
    assert m["spearman"] == pytest.approx(sp, abs=1e-5)
    assert m["pearson"] == pytest.approx(pe, abs=1e-5)
    assert m["auc"] == pytest.approx(np.mean(aucs), abs=1e-6)
    assert m["prec5"] == pytest.approx(np.mean(precs), abs=1e-6)
    assert m["rel_err"] == pytest.approx(np.linalg.norm(est - true) / np.linalg.norm(true), rel=1e-5)


def test_run_small_spec():
    spec = trak.AttributionSpec(n=40, p=10, n_test=3, n_loo=12)
    out = jax.jit(lambda k: trak.run(spec, trak.DEFAULT_PARAMS, k))(jax.random.key(0))
    assert out["trak_spearman"].shape == (4,)
    assert all(bool(jnp.isfinite(v).all()) for v in out.values())
    assert spec.ks == (1, 2, 5, 10)
    # k = p is the plain influence function, exactly (1 − ĥ)·ALO: its error w.r.t. ALO is
    # below the largest leverage.
    assert 0 < float(out["trak_alo_err"]) < 1


@pytest.mark.parametrize("kw", [{"loss": "hinge"}, {"n_loo": 0}, {"n_loo": 50}, {"k_fracs": (0.0,)}])
def test_bad_spec_raises(kw):
    with pytest.raises(ValueError):
        trak.AttributionSpec(n=40, p=10, **kw)
