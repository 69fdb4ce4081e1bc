"""The IRL simulator against independent float64 numpy references and closed forms."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.irl import bandit as B
from jaxtheory.sims.irl import mdp as M
from jaxtheory.sims.irl import runner as R


def _np_mdp(key, S=6, A=3, gamma=0.8):
    with jax.enable_x64(True):
        mdp, r = M.random_mdp(key, S, A, gamma, jnp.float64)
        return mdp, np.asarray(mdp.P), np.asarray(r), gamma


def _np_soft_vi(r, P, gamma, tol=1e-14):
    """Plain numpy soft value iteration (float64), written independently of the package."""
    v = np.zeros(r.shape[0])
    for _ in range(100_000):
        q = r + gamma * P @ v
        m = q.max(1)
        vn = m + np.log(np.exp(q - m[:, None]).sum(1))
        if np.max(np.abs(vn - v)) < tol:
            v = vn
            break
        v = vn
    q = r + gamma * P @ v
    pi = np.exp(q - v[:, None])
    return v, pi / pi.sum(1, keepdims=True)


def _np_occupancy_series(pi, P, gamma, rho0, terms=2000):
    """(1 − γ) Σ_t γ^t Pr(s_t, a_t) by summing the series (no linear solve)."""
    p_pi = np.einsum("sa,sat->st", pi, P)
    ds, acc = rho0.copy(), np.zeros_like(rho0)
    for t in range(terms):
        acc += (1 - gamma) * gamma**t * ds
        ds = ds @ p_pi
    return acc[:, None] * pi


def test_random_mdp_shapes_and_simplex():
    mdp, r = M.random_mdp(jax.random.PRNGKey(0), 5, 3, 0.9)
    assert mdp.P.shape == (5, 3, 5) and r.shape == (5, 3) and mdp.rho0.shape == (5,)
    np.testing.assert_allclose(mdp.P.sum(-1), 1.0, rtol=1e-5)
    assert float(mdp.P.min()) >= 0 and abs(float(mdp.rho0.sum()) - 1) < 1e-6


def test_soft_value_iteration_and_policy_against_numpy():
    with jax.enable_x64(True):
        mdp, P, r, g = _np_mdp(jax.random.PRNGKey(1))
        v, n = M.soft_value_iteration(jnp.asarray(r), mdp, tol=1e-13, max_iter=10_000)
        v_ref, pi_ref = _np_soft_vi(r, P, g)
        # stop at relative change 1e-13: error ≤ γ/(1 − γ)·1e-13·(1 + ‖V‖) ≈ 4e-12·(1 + ‖V‖)
        np.testing.assert_allclose(np.asarray(v), v_ref, atol=1e-11 * (1 + np.abs(v_ref).max()))
        pi = np.exp(np.asarray(M.soft_policy(jnp.asarray(r), mdp, v)))
        np.testing.assert_allclose(pi, pi_ref, atol=1e-10)
        assert 0 < int(n) < 10_000


def test_value_iteration_stops_at_cap():
    mdp, r = M.random_mdp(jax.random.PRNGKey(2), 4, 2, 0.99)
    _, n = M.soft_value_iteration(r, mdp, tol=0.0, max_iter=7)
    assert int(n) == 7


def test_occupancy_against_series():
    with jax.enable_x64(True):
        mdp, P, r, g = _np_mdp(jax.random.PRNGKey(3))
        pi = np.random.default_rng(0).dirichlet(np.ones(3), size=6)
        d = np.asarray(M.occupancy(jnp.asarray(pi), mdp))
        ref = _np_occupancy_series(pi, P, g, np.asarray(mdp.rho0))
        np.testing.assert_allclose(d, ref, atol=1e-13)  # series truncated at 0.8^2000
        assert abs(d.sum() - 1) < 1e-13


def test_log_pi_e_has_zero_soft_value():
    """r = log π_E: Q = log π_E + γ P·0 and V = log Σ π_E = 0; the soft-optimal policy is π_E."""
    with jax.enable_x64(True):
        mdp, P, r, g = _np_mdp(jax.random.PRNGKey(4))
        _, pi_e = _np_soft_vi(r, P, g)
        v, _ = M.soft_value_iteration(jnp.asarray(np.log(pi_e)), mdp, jnp.asarray(r[:, 0]), 1e-14, 100_000)
        assert float(jnp.abs(v).max()) < 1e-12
        pi = np.exp(np.asarray(M.soft_policy(jnp.asarray(np.log(pi_e)), mdp, v)))
        np.testing.assert_allclose(pi, pi_e, atol=1e-12)


def test_dual_objective_equals_expert_log_likelihood_minus_causal_kl():
    """g(θ) = E_dE log π_E − Σ_s d_E(s) KL(π_E‖π_θ)(s) for every θ (from r = V + log π − γPV)."""
    with jax.enable_x64(True):
        mdp, P, r, g = _np_mdp(jax.random.PRNGKey(5))
        _, pi_e = _np_soft_vi(r, P, g)
        d_e = _np_occupancy_series(pi_e, P, g, np.asarray(mdp.rho0))
        for seed in range(3):
            theta = np.random.default_rng(seed).normal(size=18)
            v, pi = _np_soft_vi(theta.reshape(6, 3), P, g)
            dual = float(
                M.dual_objective(jnp.asarray(theta), jnp.asarray(d_e.reshape(-1)), jnp.asarray(v), mdp)
            )
            kl = float(M.causal_kl(jnp.asarray(d_e), jnp.log(jnp.asarray(pi_e)), jnp.log(jnp.asarray(pi))))
            assert abs(dual - (np.sum(d_e * np.log(pi_e)) - kl)) < 1e-11
            assert kl >= 0


def test_fisher_against_finite_differences_of_numpy_reference():
    with jax.enable_x64(True):
        mdp, P, r, g = _np_mdp(jax.random.PRNGKey(6), S=4, A=2)
        rho0 = np.asarray(mdp.rho0)
        phi = np.random.default_rng(1).normal(size=(8, 5))
        theta = np.random.default_rng(2).normal(size=5)

        def mu_np(th):
            _, pi = _np_soft_vi((phi @ th).reshape(4, 2), P, g)
            return phi.T @ _np_occupancy_series(pi, P, g, rho0).reshape(-1)

        h = 1e-5
        jac = np.stack([(mu_np(theta + h * e) - mu_np(theta - h * e)) / (2 * h) for e in np.eye(5)], 1)
        F = np.asarray(M.fisher(jnp.asarray(theta), jnp.asarray(phi), mdp, tol=1e-14, max_iter=100_000))
        # central differences: O(h²) ≈ 1e-10 truncation, plus 1e-16/h ≈ 1e-11 round-off
        np.testing.assert_allclose(F, jac, atol=1e-8)
        np.testing.assert_allclose(F, F.T, atol=1e-12)
        assert np.linalg.eigvalsh(F).min() > -1e-12
        mu = np.asarray(
            M.feature_expectation(jnp.asarray(theta), jnp.asarray(phi), mdp, tol=1e-14, max_iter=100_000)
        )
        np.testing.assert_allclose(mu, mu_np(theta), atol=1e-12)


def test_closed_form_fisher_equals_autodiff_fisher():
    with jax.enable_x64(True):
        for seed, K in ((0, 5),):
            mdp, P, r, g = _np_mdp(jax.random.PRNGKey(10 + seed), S=6, A=3)
            phi = jnp.asarray(np.random.default_rng(seed).normal(size=(18, K)))
            theta = jnp.asarray(np.random.default_rng(seed + 5).normal(size=K))
            v, _ = M.soft_value_iteration((phi @ theta).reshape(6, 3), mdp, None, 1e-14, 100_000)
            closed = np.asarray(M.fisher_closed_form(theta, phi, mdp, v))
            auto = np.asarray(M.fisher(theta, phi, mdp, tol=1e-14, max_iter=100_000))
            np.testing.assert_allclose(closed, auto, atol=1e-13)


def test_tabular_fisher_null_space_is_reward_shaping():
    with jax.enable_x64(True):
        S, A = 5, 3
        mdp, P, r, g = _np_mdp(jax.random.PRNGKey(7), S=S, A=A)
        F = np.asarray(M.fisher(jnp.asarray(r.reshape(-1)), jnp.eye(S * A), mdp, tol=1e-14, max_iter=100_000))
        shaping = np.stack([(c[:, None] - g * P @ c).reshape(-1) for c in np.eye(S)], 1)  # (SA, S)
        assert np.abs(F @ shaping).max() < 1e-12
        evals = np.linalg.eigvalsh(F)
        assert (np.abs(evals) < 1e-12).sum() == S  # exactly the S shaping directions
        assert evals[S] > 1e-6


def test_bandit_interp_closed_form_and_mirror_descent():
    """π_k ∝ π_0^{(1−η)^k} π_E^{1−(1−η)^k} in closed form; SMD gives the same policies."""
    with jax.enable_x64(True):
        theta0, lp = B.random_bandit(jax.random.PRNGKey(8), 5, jnp.float64)
        eta, K = 0.3, 12
        pis = np.asarray(B.interp_policies(theta0, lp, eta, K))
        md = np.asarray(B.mirror_policies(jax.nn.softmax(theta0), lp, eta, K))
        for k in range(K + 1):
            a = (1 - eta) ** k
            logits = a * np.asarray(theta0) + (1 - a) * np.asarray(lp)
            ref = np.exp(logits - logits.max())
            ref /= ref.sum()
            np.testing.assert_allclose(pis[k], ref, atol=1e-14)
            np.testing.assert_allclose(md[k], ref, atol=1e-14)
        ref = np.asarray(B.softmax_fisher(theta0))
        np.testing.assert_allclose(np.asarray(jax.jacfwd(jax.nn.softmax)(theta0)), ref, atol=1e-15)


def test_run_outputs_and_one_step_interpolation():
    spec = R.IRLSpec(
        num_states=6,
        num_actions=3,
        steps=4,
        algo="interp",
        num_features=4,
        interp_etas=(0.3, 1.0),
        dual_etas=(1.0, 2.0),
        natural_etas=(0.5, 1.0),
    )
    f = jax.jit(lambda p, k: R.run(spec, p, k))
    out = f({"gamma": 0.9, "eta_index": 1, "reward": 0}, jax.random.PRNGKey(0))
    assert out["l1"].shape == out["kl"].shape == out["dual"].shape == (5,)
    assert int(out["diverged_step"]) == -1 and float(out["eta"]) == 1.0
    # η = 1 from θ_0 = 0 lands on θ* = log π_E: π_1 = π_E up to the float32 value iteration
    assert float(out["l1"][1]) < 1e-4
    assert abs(float(out["dual"][1]) - float(out["dual_star"])) < 1e-4
    # the dual equals E_dE log π_E − KL along the run (the identity, float32)
    np.testing.assert_allclose(out["dual"], out["dual_star"] - out["kl"], atol=2e-4)


@pytest.mark.slow  # three full compiles of the runner; the smoke run (docs build) covers them
@pytest.mark.parametrize("algo", R.METHODS)
def test_run_each_method_increases_the_dual(algo):
    spec = R.IRLSpec(
        num_states=6,
        num_actions=3,
        steps=6,
        algo=algo,
        dual_etas=(3.0,),
        interp_etas=(0.3,),
        natural_etas=(0.3,),
    )
    # both rewards in one compiled program (the reward code is a traced parameter)
    f = jax.jit(
        jax.vmap(lambda rw: R.run(spec, {"gamma": 0.9, "eta_index": 0, "reward": rw}, jax.random.PRNGKey(1)))
    )
    out = f(jnp.arange(2))
    assert bool(jnp.all(out["dual"][:, -1] > out["dual"][:, 0]))
    assert bool(jnp.all(out["diverged_step"] == -1))


def test_features_and_target():
    spec = R.IRLSpec(num_states=3, num_actions=2, num_features=2)
    phi = np.asarray(R.features_for(spec, 1, jax.random.PRNGKey(0), jnp.float32))
    assert phi.shape == (6, 6) and np.all(phi[:, 2:] == 0) and np.any(phi[:, :2] != 0)
    with jax.enable_x64(True):
        rng = np.random.default_rng(0)
        lp = np.log(rng.dirichlet(np.ones(2), size=3))
        d = rng.dirichlet(np.ones(6)).reshape(3, 2)
        f = rng.normal(size=(6, 2))
        t = np.asarray(R.target_reward(jnp.asarray(f), jnp.asarray(lp), jnp.asarray(d)))
        w = d.reshape(-1)
        ref = np.linalg.solve(f.T @ (w[:, None] * f), f.T @ (w * lp.reshape(-1)))  # weighted normal equations
        np.testing.assert_allclose(t, ref, rtol=1e-10)
        t = np.asarray(R.target_reward(jnp.eye(6), jnp.asarray(lp), jnp.asarray(d)))
        np.testing.assert_allclose(t, lp.reshape(-1), rtol=1e-12)


def test_spec_validation():
    with pytest.raises(ValueError, match="algo"):
        R.IRLSpec(algo="sgd")
    with pytest.raises(ValueError, match="same length"):
        R.IRLSpec(dual_etas=(1.0,))
    with pytest.raises(ValueError, match="num_features"):
        R.IRLSpec(num_states=2, num_actions=2, num_features=5)
