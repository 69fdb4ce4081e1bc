"""Flow matching on a Gaussian target: exact field, irreducible loss, samplers, Bures W2, the net."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.linalg

from jaxtheory.sims.nets import flow

MU = np.array([1.0, -0.5])
SIG = np.array([[1.0, 0.3], [0.3, 0.5]])


def _c_np(t, sig):
    eye = np.eye(len(sig))
    return (t * sig - (1 - t) * eye) @ np.linalg.inv((1 - t) ** 2 * eye + t**2 * sig)


def test_exact_field_is_the_regression_of_u_on_xt():
    # (u, x_t) is jointly Gaussian, so the least-squares regression of u on (1, x_t) over
    # many draws estimates E[u | x_t] = v*(t, x_t); 4e5 draws give coefficients to ~0.005
    # (SE ≈ sd(u|x_t)/sqrt(N) ≈ 1.5/630), so 0.03 is > 5 SE.
    rng = np.random.default_rng(0)
    n = 400_000
    field = flow.exact_field(MU, SIG)
    for t in (0.1, 0.5, 0.9):
        x0 = rng.standard_normal((n, 2))
        x1 = MU + rng.standard_normal((n, 2)) @ np.linalg.cholesky(SIG).T
        xt, u = (1 - t) * x0 + t * x1, x1 - x0
        design = np.c_[np.ones(n), xt]
        coef, *_ = np.linalg.lstsq(design, u, rcond=None)
        probe = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, -1.0]])
        pred = np.c_[np.ones(4), probe] @ coef
        got = np.asarray(field(t, jnp.asarray(probe, jnp.float32)))
        np.testing.assert_allclose(got, pred, atol=0.03)
        # and the closed form of C(t) itself (float32 solve against float64 inverse)
        c = np.asarray(field(t, jnp.eye(2, dtype=jnp.float32)) - field(t, jnp.zeros((1, 2), jnp.float32)))
        np.testing.assert_allclose(c.T, _c_np(t, SIG), atol=1e-5)


def test_irreducible_loss_by_quadrature_and_monte_carlo():
    # Quadrature of tr Cov(u | x_t) = tr(Σ + I − C S Cᵀ) from the matrices (not the
    # eigenvalue simplification the closed form uses), float64, quad's own error ~1e-10.
    def trcov(t):
        eye = np.eye(2)
        s = (1 - t) ** 2 * eye + t**2 * SIG
        b = t * SIG - (1 - t) * eye
        return np.trace(SIG + eye - b @ np.linalg.inv(s) @ b.T)

    val, _ = scipy.integrate.quad(trcov, 0.0, 1.0)
    closed = flow.irreducible_loss(SIG)
    assert abs(val - closed) < 1e-8
    assert abs(closed - 0.5 * np.pi * np.trace(scipy.linalg.sqrtm(SIG).real)) < 1e-12
    # Monte Carlo of E‖u − v*(t, x_t)‖² with t ~ U[0, 1] in float64; per-sample sd ≈ 2.3,
    # N = 10⁶ gives SE ≈ 0.0023: a 5-SE tolerance of 0.012 (0.45 % of 2.62).
    rng = np.random.default_rng(1)
    n = 1_000_000
    t = rng.uniform(size=n)
    x0 = rng.standard_normal((n, 2))
    x1 = MU + rng.standard_normal((n, 2)) @ np.linalg.cholesky(SIG).T
    xt, u = (1 - t)[:, None] * x0 + t[:, None] * x1, x1 - x0
    eye = np.eye(2)
    s = (1 - t)[:, None, None] ** 2 * eye + t[:, None, None] ** 2 * SIG
    b = t[:, None, None] * SIG - (1 - t)[:, None, None] * eye
    c = b @ np.linalg.inv(s)
    v = MU + np.einsum("nij,nj->ni", c, xt - t[:, None] * MU)
    err = ((u - v) ** 2).sum(1)
    assert abs(err.mean() - closed) < 5 * err.std() / np.sqrt(n)


def test_irreducible_loss_does_not_depend_on_the_mean_and_scales_as_sqrt():
    assert flow.irreducible_loss(np.diag([4.0, 9.0])) == pytest.approx(0.5 * np.pi * 5.0, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bures_w2_against_scipy_sqrtm(seed):
    rng = np.random.default_rng(seed)
    d = 3
    a, b = rng.standard_normal((d, d)), rng.standard_normal((d, d))
    s1, s2 = a @ a.T + 0.1 * np.eye(d), b @ b.T + 0.1 * np.eye(d)
    m1, m2 = rng.standard_normal(d), rng.standard_normal(d)
    r2 = scipy.linalg.sqrtm(s2).real
    ref = np.sqrt(np.sum((m1 - m2) ** 2) + np.trace(s1 + s2 - 2 * scipy.linalg.sqrtm(r2 @ s1 @ r2).real))
    got = float(flow.bures_w2(*(jnp.asarray(x, jnp.float32) for x in (m1, s1, m2, s2))))
    # float32 eigh on O(10) entries: W2² to ~1e-5 absolute, W2 = O(1) here
    assert got == pytest.approx(ref, rel=1e-4, abs=1e-4)
    assert float(flow.bures_w2(*(jnp.asarray(x, jnp.float32) for x in (m1, s1, m1, s1)))) < 3e-3


def test_samplers_on_a_linear_field():
    a = np.array([[-0.5, 1.0], [-1.0, -0.2]])
    x0 = np.array([1.0, 0.5])
    field = lambda t, x: x @ jnp.asarray(a, jnp.float32).T  # noqa: E731
    exact = scipy.linalg.expm(a) @ x0
    errs = {}
    for n in (8, 16, 32, 64):
        h = 1.0 / n
        eu = np.linalg.matrix_power(np.eye(2) + h * a, n) @ x0
        he = np.linalg.matrix_power(np.eye(2) + h * a + 0.5 * h**2 * a @ a, n) @ x0
        got_e = np.asarray(flow.euler(field, jnp.asarray(x0, jnp.float32), n))
        got_h = np.asarray(flow.heun(field, jnp.asarray(x0, jnp.float32), n))
        # the same recursion in float32 over ≤ 64 steps: ~64 roundings of O(1) values
        np.testing.assert_allclose(got_e, eu, atol=1e-5)
        np.testing.assert_allclose(got_h, he, atol=1e-5)
        errs[n] = (np.linalg.norm(eu - exact), np.linalg.norm(he - exact))
    # orders 1 and 2: halving h halves / quarters the error (ratios within 10 %)
    for n in (8, 16, 32):
        assert errs[n][0] / errs[2 * n][0] == pytest.approx(2.0, rel=0.1)
        assert errs[n][1] / errs[2 * n][1] == pytest.approx(4.0, rel=0.1)


def test_samplers_time_dependent_field():
    # ẋ = 2t from 0: x(1) = 1; Euler gives Σ 2kh·h = 1 − 1/N, Heun is exact on linear-in-t fields
    f = lambda t, x: 2 * t * jnp.ones_like(x)  # noqa: E731
    assert float(flow.euler(f, jnp.array(0.0), 10)) == pytest.approx(0.9, abs=1e-6)
    assert float(flow.heun(f, jnp.array(0.0), 10)) == pytest.approx(1.0, abs=1e-6)


def test_gaussian_moments_after_matches_sampled_flow():
    field = flow.exact_field(MU, SIG)
    m, s = flow.gaussian_moments_after(field, jnp.zeros(2), jnp.eye(2), 8)
    x = flow.euler(field, jax.random.normal(jax.random.key(0), (200_000, 2)), 8)
    # 2e5 samples: mean and covariance entries to ~0.003 (SE ≈ 1/450): 0.02 is > 5 SE
    np.testing.assert_allclose(np.asarray(x.mean(0)), np.asarray(m), atol=0.02)
    np.testing.assert_allclose(np.cov(np.asarray(x).T), np.asarray(s), atol=0.02)
    # Euler's W2 falls as 1/N; Heun's far faster
    w = [
        float(flow.bures_w2(*flow.gaussian_moments_after(field, jnp.zeros(2), jnp.eye(2), n), MU, SIG))
        for n in (16, 32)
    ]
    assert w[0] / w[1] == pytest.approx(2.0, rel=0.1)
    wh = float(
        flow.bures_w2(*flow.gaussian_moments_after(field, jnp.zeros(2), jnp.eye(2), 16, "heun"), MU, SIG)
    )
    assert wh < 0.1 * w[0]
    with pytest.raises(ValueError, match="method"):
        flow.gaussian_moments_after(field, jnp.zeros(2), jnp.eye(2), 4, "rk4")


def test_masked_width_is_the_narrow_net():
    p = flow.init_params(jax.random.key(3), 2, 32)
    x, t = jax.random.normal(jax.random.key(4), (5, 2)), jnp.linspace(0, 1, 5)
    mask = (jnp.arange(32) < 8).astype(jnp.float32)
    wide = flow.velocity(p["w"], p["a"], t, x, mask)
    narrow = flow.velocity(p["w"][:8], p["a"][:8], t, x)
    # masked neurons contribute exact zeros; only the summation length differs
    np.testing.assert_allclose(np.asarray(wide), np.asarray(narrow), rtol=1e-6, atol=1e-6)
    assert set(np.unique(np.asarray(p["a"]))) == {-1.0, 1.0}


def test_loss_weights_mask_samples():
    x0 = jnp.zeros((4, 2))
    x1 = jnp.array([[1.0, 0.0], [1.0, 0.0], [5.0, 5.0], [5.0, 5.0]])
    t = jnp.full(4, 0.5)
    v = lambda t, x: jnp.zeros_like(x)  # noqa: E731
    w = jnp.array([1.0, 1.0, 0.0, 0.0])
    assert float(flow.flow_matching_loss(v, x0, x1, t, w)) == pytest.approx(1.0)
    assert float(flow.flow_matching_loss(v, x0, x1, t)) == pytest.approx(25.5)


def test_spec_rejects_bad_input():
    with pytest.raises(ValueError, match="symmetric"):
        flow.FlowSpec(cov=((1.0, 0.2), (0.0, 1.0)))
    with pytest.raises(ValueError, match="positive definite"):
        flow.FlowSpec(cov=((1.0, 2.0), (2.0, 1.0)))
    with pytest.raises(ValueError, match="multiple"):
        flow.FlowSpec(steps=15, log_every=10)


def test_run_small_trains_and_masks():
    spec = flow.FlowSpec(
        width=64,
        n_max=32,
        steps=40,
        log_every=10,
        n_test=4096,
        n_gen=256,
        sample_steps=10,
        euler_steps=(4, 8),
    )
    out = jax.jit(lambda k, m: flow.run(spec, {"n": 16, "m": m, "lr": 1.0}, k))(jax.random.key(0), 16)
    assert np.all(np.isfinite(np.asarray(out["train_loss"])))
    assert float(out["train_loss"][-1]) < float(out["train_loss0"])
    assert 0 < float(out["weight_move"]) < 1
    # the test loss of any net exceeds v*'s by E‖v − v*‖², up to a mean-zero cross term
    gap = float(out["test_loss"] - out["vstar_loss"])
    assert gap == pytest.approx(float(out["excess_velocity"]), abs=0.1)


def test_ntk_lmin_is_the_gram_of_the_active_points():
    """The reported eigenvalue is λ_min of Θ/(nK) over the n active points (K draws each)."""
    spec = flow.FlowSpec(
        width=64,
        n_max=8,
        draws=2,
        steps=10,
        log_every=10,
        n_test=64,
        n_mc=64,
        n_gen=16,
        sample_steps=2,
        euler_steps=(2,),
        ntk_points=8,
    )
    key = jax.random.key(3)
    out = flow.run(spec, {"n": 5, "m": 0, "lr": 1.0}, key)
    # the run's draws, rebuilt as run() makes them
    d = 2
    kdata, kinit = jax.random.split(key)
    kx1, kx0, kt, *_ = jax.random.split(kdata, 6)
    chol = jnp.linalg.cholesky(jnp.asarray(spec.cov))
    x1 = jnp.repeat(jnp.asarray(spec.mean) + jax.random.normal(kx1, (spec.n_max, d)) @ chol.T, spec.draws, 0)
    x0 = jax.random.normal(kx0, (spec.n_max * spec.draws, d))
    t = jax.random.uniform(kt, (spec.n_max * spec.draws,))
    p = flow.init_params(kinit, d, spec.width)
    k = 5 * spec.draws
    xt = (1 - t[:k])[:, None] * x0[:k] + t[:k, None] * x1[:k]
    jac = jax.jacobian(lambda w: flow.velocity(w, p["a"], t[:k], xt).T.reshape(-1))(p["w"]).reshape(k * d, -1)
    lam = np.linalg.eigvalsh(np.asarray(jac @ jac.T, np.float64) / k)[0]
    assert float(out["ntk_lmin"]) == pytest.approx(lam, rel=1e-3, abs=1e-6)
