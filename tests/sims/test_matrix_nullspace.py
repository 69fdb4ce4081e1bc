"""The RIP estimate (jaxtheory.sims.matrix.linalg.rip_estimate) and the nullspace-surrogate
completion simulator (jaxtheory.sims.matrix.nullspace) against closed forms and float64 numpy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.matrix import linalg
from jaxtheory.sims.matrix import nullspace as ns

# float32 throughout (jax's default): sums of up to n^2 = 900 squares carry a relative
# round-off of a few 1e-7 times log2(900) ~ 10, so 1e-5 relative is a safe bound.
RTOL32 = 1e-5


def test_rip_orthogonal_operator_is_isometry():
    q = np.linalg.qr(np.random.default_rng(0).normal(size=(36, 36)))[0]
    A = jnp.asarray(q.reshape(36, 6, 6), jnp.float32)  # (A M)_k = <A_k, M>: orthogonal map
    d = linalg.rip_estimate(A, 2, jax.random.key(1), n_samples=300)
    assert abs(float(d)) < RTOL32
    d_call = linalg.rip_estimate(lambda M: 3.0 * M.ravel(), 3, jax.random.key(2), shape=(5, 4))
    assert abs(float(d_call)) < RTOL32  # a multiple of an isometry: best scale c = 9


def test_rip_coordinate_mask_is_one():
    mask = jnp.ones((7, 7)).at[2, 5].set(0.0)
    d = linalg.rip_estimate(lambda M: (mask * M).ravel(), 2, jax.random.key(0), shape=(7, 7))
    assert float(d) == 1.0  # (rho_max - 0)/(rho_max + 0): exact by construction
    # the random low-rank samples alone do not see the nullspace e_2 e_5^T
    d_random = linalg.rip_estimate(
        lambda M: (mask * M).ravel(), 2, jax.random.key(0), False, shape=(7, 7), n_samples=500
    )
    assert float(d_random) < 0.5


def test_rip_diagonal_weights_closed_form():
    # A M = sqrt(w) * M entrywise: every ratio is a w-weighted average of the entries, in
    # [min w, max w]; the unit matrices attain both ends, so delta = (max-min)/(max+min).
    w = np.random.default_rng(3).uniform(0.5, 2.0, size=(5, 6))
    sw = jnp.asarray(np.sqrt(w), jnp.float32)
    d = linalg.rip_estimate(lambda M: (sw * M).ravel(), 2, jax.random.key(0), shape=(5, 6), n_samples=100)
    ref = (w.max() - w.min()) / (w.max() + w.min())
    np.testing.assert_allclose(float(d), ref, rtol=RTOL32)
    rho = np.asarray(linalg.rip_ratios(lambda M: (sw * M).ravel(), 2, jax.random.key(0), shape=(5, 6)))
    assert rho.shape == (2000 + 30,)
    np.testing.assert_allclose(rho[2000:], w.ravel(), rtol=RTOL32)  # unit matrices, row-major
    assert rho[:2000].min() >= w.min() * (1 - RTOL32) and rho[:2000].max() <= w.max() * (1 + RTOL32)


def test_rip_array_and_callable_agree():
    A = jax.random.normal(jax.random.key(5), (20, 4, 4))
    a = linalg.rip_ratios(A, 2, jax.random.key(6), n_samples=50)
    b = linalg.rip_ratios(
        lambda M: jnp.einsum("kij,ij->k", A, M), 2, jax.random.key(6), shape=(4, 4), n_samples=50
    )
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=RTOL32)


def test_rip_bad_input():
    with pytest.raises(ValueError, match="needs shape"):
        linalg.rip_estimate(lambda M: M.ravel(), 1, jax.random.key(0))
    with pytest.raises(ValueError, match="rank must be"):
        linalg.rip_estimate(lambda M: M.ravel(), 5, jax.random.key(0), shape=(3, 3))
    with pytest.raises(ValueError, match="array"):
        linalg.rip_estimate(jnp.ones((3, 3)), 1, jax.random.key(0))
    with pytest.raises(ValueError, match="nothing to sample"):
        linalg.rip_estimate(lambda M: M.ravel(), 1, jax.random.key(0), False, shape=(3, 3), n_samples=0)


SMALL = ns.NullspaceSpec(n=8, r_star=2, ranks=(2, 5), g_rows=12, steps=40, record_every=10, rip_samples=20)


def _np_problem(p=0.4, seed=0):
    pr = ns.problem(SMALL, p, jax.random.key(seed))
    return {k: np.asarray(v, np.float64) for k, v in pr.items()}


def test_problem_draws():
    a, b = _np_problem(0.3), _np_problem(0.6)
    assert np.array_equal(a["mask"], a["mask"].T)
    assert np.all(a["mask"] <= b["mask"])  # nested masks: the same uniforms
    np.testing.assert_allclose(a["u"].T @ a["u"], np.eye(2), atol=1e-5)
    np.testing.assert_allclose(a["target"], a["u"] @ a["u"].T, atol=1e-6)
    assert np.array_equal(a["G"], b["G"])


def _np_grad(X, pr, eps, p):
    """Independent float64 gradient of (1/2p)(||P_O(XX^T - M*)||^2 + eps^2 ||G vec(P_Oc XX^T)||^2)."""
    m, G = pr["mask"], pr["G"]
    M = X @ X.T
    S = m * (M - pr["target"]) + eps**2 * (1 - m) * (G.T @ (G @ ((1 - m) * M).ravel())).reshape(M.shape)
    return (S + S.T) @ X / p


@pytest.mark.parametrize("eps", [0.0, 0.3])
def test_surrogate_loss_and_grad_match_numpy(eps):
    p = 0.4
    pr = _np_problem(p)
    X = np.random.default_rng(1).normal(size=(8, 3))
    m, G = pr["mask"], pr["G"]
    M = X @ X.T
    ref = (np.sum((m * (M - pr["target"])) ** 2) + eps**2 * np.sum((G @ ((1 - m) * M).ravel()) ** 2)) / (
        2 * p
    )
    args = [jnp.asarray(v, jnp.float32) for v in (X, pr["target"], m, G)]
    np.testing.assert_allclose(float(ns.surrogate_loss(*args, eps, p)), ref, rtol=RTOL32)
    g = np.asarray(jax.grad(ns.surrogate_loss)(*args, eps, p))
    np.testing.assert_allclose(g, _np_grad(X, pr, eps, p), rtol=1e-4, atol=1e-5)
    if eps == 0.0:
        assert float(ns.surrogate_loss(*args, 0.0, p)) == float(ns.completion_loss(args[0], args[1], m, p))


def test_run_matches_numpy_gd_and_reduces_at_eps0():
    # float64 numpy GD on the same problem and start: 40 steps of a contraction, so the
    # float32 trajectory stays within 1e-4 relative.
    params = {"p": 0.4, "eps": 0.3, "lr": 0.2, "init": 0.3}
    out = ns.run(SMALL, params, jax.random.key(7))
    kp, kx, _ = jax.random.split(jax.random.key(7), 3)
    pr = {k: np.asarray(v, np.float64) for k, v in ns.problem(SMALL, 0.4, kp).items()}
    x0 = 0.3 * np.asarray(jax.random.normal(kx, (8, 5)), np.float64)
    for i, r in enumerate(SMALL.ranks):
        X = x0[:, :r].copy()
        errs = []
        for t in range(SMALL.steps):
            X = X - 0.2 * _np_grad(X, pr, 0.3, 0.4)
            if (t + 1) % SMALL.record_every == 0:
                errs.append(np.linalg.norm(X @ X.T - pr["target"]) / np.sqrt(2))
        np.testing.assert_allclose(np.asarray(out["rel_error"][i]), errs, rtol=1e-4)
    # at eps = 0 the surrogate run is the plain completion run, bit for bit (same program:
    # the eps^2 term adds exact zeros)
    out0 = ns.run(SMALL, {**params, "eps": 0.0}, jax.random.key(7))
    assert np.array_equal(np.asarray(out0["final_error"]), np.asarray(out0["plain_error"]))
    assert float(out0["delta_hat"]) == 1.0


def test_run_rip_bound_and_bad_input():
    out = ns.run(SMALL, {**ns.DEFAULT_PARAMS, "eps": 0.5}, jax.random.key(3))
    pr = _np_problem(0.3, 0)  # only for G's scale: column norms ~ chi2_12 / 12
    c = float(out["unit_min"])
    assert 0.0 < c < 3.0 and np.isfinite(pr["G"]).all()
    bound = (1 - 0.25 * c) / (1 + 0.25 * c)
    assert float(out["delta_hat"]) >= bound - RTOL32
    assert 0.0 <= float(out["delta_random"]) <= float(out["delta_hat"])  # a subset of the ratios
    with pytest.raises(ValueError, match="multiple"):
        ns.run(ns.NullspaceSpec(steps=15, record_every=10), ns.DEFAULT_PARAMS, jax.random.key(0))
    with pytest.raises(ValueError, match="ranks"):
        ns.run(ns.NullspaceSpec(n=5, ranks=(2, 6)), ns.DEFAULT_PARAMS, jax.random.key(0))
