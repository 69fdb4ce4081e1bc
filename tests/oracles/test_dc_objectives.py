"""DC objectives: closed-form directional derivatives, subproblem solvers and the d-stationarity
measure, against float64 numpy references and closed forms."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.oracles import (
    ball_direction,
    box_direction,
    d_stationarity,
    dc_sparse_least_squares,
    dc_toy_l1,
    l1_directional,
    l2_directional,
    robust_phase_retrieval,
)


def _toy64(x):
    return 0.5 * np.sum(x * x) - np.sum(np.abs(x))


def _ls64(A, b, lam):
    return lambda x: 0.5 * np.sum((A @ x - b) ** 2) + lam * (np.sum(np.abs(x)) - np.linalg.norm(x))


def _fd64(h, x, d, t=1e-7):
    # float64 one-sided difference: error O(t) = 1e-7 plus rounding 1e-16/t = 1e-9, and exact for a
    # piecewise-linear kink once t is below the distance to the next kink
    return (h(x + t * d) - h(x)) / t


def _points(rng, n, zeros):
    x = rng.uniform(-2, 2, n)
    x[rng.permutation(n)[:zeros]] = 0.0
    return x.astype(np.float32)


def test_toy_directional_matches_float64_difference():
    rng = np.random.default_rng(0)
    p = dc_toy_l1(12)
    for _ in range(20):
        x = _points(rng, 12, 5)
        d = rng.standard_normal(12).astype(np.float32)
        ref = _fd64(_toy64, x.astype(np.float64), d.astype(np.float64))
        # float32 sum of 12 products of size <= 2 * 3: rounding below 1e-5
        assert abs(float(p.directional(jnp.asarray(x), jnp.asarray(d))) - ref) < 1e-4


def test_toy_directional_closed_forms():
    p = dc_toy_l1(4)
    x = jnp.array([0.0, 1.0, -1.0, 0.0])
    # on a zero coordinate h'(x; ±e_i) = -1; at ±1 it is 0 in every direction
    assert float(p.directional(x, jnp.array([1.0, 0.0, 0.0, 0.0]))) == -1.0
    assert float(p.directional(x, jnp.array([0.0, 0.0, 0.0, -1.0]))) == -1.0
    d = jnp.array([0.0, 0.3, -0.7, 0.0])
    assert float(p.directional(x, d)) == 0.0
    star = jnp.array([1.0, -1.0, 1.0, 1.0])
    assert float(p.directional(star, jnp.array([0.1, -0.2, 0.3, 0.4]))) == 0.0


def test_finite_difference_is_wrong_in_float32_but_the_closed_form_is_not():
    # a t = 1e-6 difference near h = -25 is O(1) wrong in float32
    # (one ulp of 25 is 2e-6, so the difference quotient is quantised in steps of about 2)
    p = dc_toy_l1(50)
    x = np.random.default_rng(0).uniform(-2, 2, 50).astype(np.float32)
    d = np.random.default_rng(1).standard_normal(50).astype(np.float32)
    ref = _fd64(_toy64, x.astype(np.float64), d.astype(np.float64))
    x32, d32 = jnp.asarray(x), jnp.asarray(d)
    fd32 = float((p.value(x32 + 1e-6 * d32) - p.value(x32)) / 1e-6)
    assert abs(fd32 - ref) > 0.5
    assert abs(float(p.directional(x32, d32)) - ref) < 1e-4


def test_l1_l2_directional_against_float64_differences():
    rng = np.random.default_rng(2)
    for _ in range(10):
        x = _points(rng, 9, 4).astype(np.float64)
        d = rng.standard_normal(9)
        ref1 = _fd64(lambda v: np.sum(np.abs(v)), x, d)
        ref2 = _fd64(np.linalg.norm, x, d)
        assert (
            abs(float(l1_directional(jnp.asarray(x, jnp.float32), jnp.asarray(d, jnp.float32))) - ref1) < 1e-4
        )
        assert (
            abs(float(l2_directional(jnp.asarray(x, jnp.float32), jnp.asarray(d, jnp.float32))) - ref2) < 1e-4
        )
    d = jnp.array([3.0, -4.0])
    assert float(l2_directional(jnp.zeros(2), d)) == pytest.approx(5.0)
    assert float(l1_directional(jnp.zeros(2), d)) == 7.0


def _ls_instance(seed, m=20, n=40):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n)) / np.sqrt(m)
    x = np.zeros(n)
    x[rng.permutation(n)[:3]] = rng.standard_normal(3)
    b = A @ x + 0.01 * rng.standard_normal(m)
    return A, b


def test_sparse_ls_value_and_directional_against_float64():
    A, b = _ls_instance(3)
    lam = 0.1
    p = dc_sparse_least_squares(jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32), lam)
    h64 = _ls64(A, b, lam)
    rng = np.random.default_rng(4)
    for zeros in (0, 30, 40):  # dense, sparse, and x = 0 (where l2 is not differentiable)
        x = _points(rng, 40, zeros).astype(np.float64)
        d = rng.standard_normal(40)
        x32, d32 = jnp.asarray(x, jnp.float32), jnp.asarray(d, jnp.float32)
        assert float(p.value(x32)) == pytest.approx(h64(x), rel=1e-5, abs=1e-5)
        assert float(p.directional(x32, d32)) == pytest.approx(_fd64(h64, x, d), rel=1e-4, abs=1e-4)
        assert float(p.value(x32)) >= 0.0  # ||x||_1 >= ||x||_2


def _subproblem64(A, b, lam, xi, c, rho, iters=20000):
    """Plain proximal gradient (ISTA) in float64 on the proximal DCA subproblem."""
    L = np.linalg.norm(A, 2) ** 2 + rho
    x = c.copy()
    for _ in range(iters):
        g = A.T @ (A @ x - b) - xi + rho * (x - c)
        v = x - g / L
        x = np.sign(v) * np.maximum(np.abs(v) - lam / L, 0.0)
    return x


def test_sparse_ls_subproblem_against_float64_ista():
    A, b = _ls_instance(5)
    lam, rho = 0.1, 0.1
    rng = np.random.default_rng(6)
    c = _points(rng, 40, 30).astype(np.float64)
    xi = lam * c / np.linalg.norm(c)
    ref = _subproblem64(A, b, lam, xi, c, rho)
    p = dc_sparse_least_squares(
        jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32), lam, inner_steps=600
    )
    got = np.asarray(p.linearized_argmin(jnp.asarray(xi, jnp.float32), jnp.asarray(c, jnp.float32), rho))
    # the subproblem is (rho = 0.1)-strongly convex: FISTA converges linearly; float32 floor ~1e-5
    np.testing.assert_allclose(got, ref, atol=1e-3)


def test_sparse_ls_few_inner_steps_never_worse_than_the_centre():
    A, b = _ls_instance(7)
    lam, rho = 0.1, 0.1
    p = dc_sparse_least_squares(jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32), lam, inner_steps=2)
    rng = np.random.default_rng(8)
    base_map, value = jax.jit(p.base_map), jax.jit(p.value)
    for _ in range(10):
        c = jnp.asarray(_points(rng, 40, 20))
        x = base_map(c, rho)  # linearized_argmin(subgrad_g(c), c, rho)
        # the descent inequality with c = rho / 2 (monotone solve + convexity of g)
        lhs = float(value(x))
        rhs = float(value(c)) - 0.5 * rho * float(jnp.sum((x - c) ** 2))
        assert lhs <= rhs + 1e-5 * max(1.0, abs(float(value(c))))


def test_toy_subproblem_closed_form():
    p = dc_toy_l1(5)
    x = jnp.array([0.0, 0.3, -1.7, 0.0, 1.2])
    # rho = 0: exactly sign(x), the zero set is kept
    np.testing.assert_array_equal(np.asarray(p.linearized_argmin(p.subgrad_g(x), x, 0.0)), np.sign(x))
    rho = 0.5
    want = np.clip((np.sign(np.asarray(x)) + rho * np.asarray(x)) / (1 + rho), -2, 2)
    np.testing.assert_allclose(np.asarray(p.linearized_argmin(p.subgrad_g(x), x, rho)), want, rtol=1e-6)
    # descent with c = 1/2 + rho, an equality at rho = 0 (coordinatewise (|x| - 1)^2 / 2)
    xh = p.linearized_argmin(p.subgrad_g(x), x, 0.0)
    drop = float(p.value(x) - p.value(xh))
    assert drop == pytest.approx(0.5 * float(jnp.sum((xh - x) ** 2)), rel=1e-6)


def test_d_stationarity_on_the_toy():
    p = dc_toy_l1(10)
    key = jax.random.key(0)
    d_stationarity_ = jax.jit(lambda x, k: d_stationarity(p, x, k, num=64))
    star = jnp.asarray(np.where(np.arange(10) < 5, 1.0, -1.0), jnp.float32)
    assert float(d_stationarity_(star, key)) == 0.0
    crit = star.at[:4].set(0.0)  # a DCA fixed point with 4 zero coordinates
    psi = float(d_stationarity_(crit, key))
    # coordinate directions give -1; no unit direction beats -sqrt(#zeros) = -2 (closed form min)
    assert -2.0 - 1e-5 <= psi <= -1.0
    # on the box boundary +e_i is infeasible and -e_i feasible
    edge = jnp.full(10, 2.0)
    e0 = jnp.eye(10)[0]
    assert not bool(p.feasible(edge, e0)) and bool(p.feasible(edge, -e0))
    assert bool(p.feasible(jnp.zeros(10), e0))


def test_samplers_feasible_and_validated():
    keys = jax.random.split(jax.random.key(1), 200)
    x = jnp.array([1.9, -2.0, 0.0])
    ds = jax.jit(jax.vmap(box_direction(-2.0, 2.0), in_axes=(0, None)))(keys, x)
    assert bool(jnp.all(jnp.abs(x + ds) <= 2.0))
    db = jax.jit(jax.vmap(ball_direction(0.5), in_axes=(0, None)))(keys, jnp.zeros(4))
    norms = np.linalg.norm(np.asarray(db), axis=1)
    assert norms.max() <= 0.5 + 1e-6
    # uniform in the 4-ball: P(|d| <= r/2) = 2^-4; 200 draws, 4.5 sd = 0.077
    assert abs(np.mean(norms <= 0.25) - 1 / 16) < 0.077
    with pytest.raises(ValueError):
        box_direction(1.0, 1.0)
    with pytest.raises(ValueError):
        ball_direction(0.0)
    with pytest.raises(ValueError):
        dc_toy_l1(3, box=0.5)
    with pytest.raises(ValueError):
        dc_sparse_least_squares(jnp.ones((2, 3)), jnp.ones(3), 0.1)


def _pr_instance(seed, m=60, n=10):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n))
    x = rng.standard_normal(n)
    b = (A @ x) ** 2
    b[:6] = 10 * np.abs(rng.standard_normal(6))  # outliers
    return A, b


def test_phase_retrieval_value_and_directional_against_float64():
    A, b = _pr_instance(9)
    p = robust_phase_retrieval(jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32))
    h64 = lambda x: np.mean(np.abs((A @ x) ** 2 - b))  # noqa: E731
    rng = np.random.default_rng(10)
    for _ in range(10):
        x, d = rng.standard_normal(10), rng.standard_normal(10)
        x32, d32 = jnp.asarray(x, jnp.float32), jnp.asarray(d, jnp.float32)
        assert float(p.value(x32)) == pytest.approx(h64(x), rel=1e-5)
        # float64 difference at t = 1e-7: exact for the kinks once t is below the distance to them
        assert float(p.directional(x32, d32)) == pytest.approx(_fd64(h64, x, d), rel=1e-3, abs=1e-3)
    # the DC split |q| = 2 max(q, 0) - q: h = f + r - g
    x = jnp.asarray(rng.standard_normal(10), jnp.float32)
    assert float(p.f(x) + p.r(x) - p.g(x)) == pytest.approx(float(p.value(x)), rel=1e-5)


def _prox_linear64(A, b, x, kappa):
    """The prox-linear subproblem's optimal value in float64, from its dual (projected gradient, many steps)."""
    m = A.shape[0]
    ax = A @ x
    q = ax * ax - b
    J = 2 * ax[:, None] * A
    u = np.zeros(m)
    step = kappa / np.linalg.norm(J, 2) ** 2
    for _ in range(20000):
        u = np.clip(u + step * (q - J @ (J.T @ u) / kappa), -1 / m, 1 / m)
    return u @ q - np.sum((J.T @ u) ** 2) / (2 * kappa)  # a lower bound on the primal optimum


def test_phase_retrieval_prox_linear_step_against_float64_dual_bound():
    A, b = _pr_instance(11)
    m = A.shape[0]
    p = robust_phase_retrieval(jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32), inner_steps=400)
    beta = np.linalg.norm(A, 2) ** 2 / m
    kappa = 4 * beta
    rng = np.random.default_rng(12)
    base_map = jax.jit(p.base_map)
    for _ in range(3):
        x = rng.standard_normal(10)
        xh = np.asarray(base_map(jnp.asarray(x, jnp.float32), 0.0), np.float64)
        delta = xh - x
        ax = A @ x
        primal = np.mean(np.abs(ax * ax - b + 2 * ax * (A @ delta))) + 0.5 * kappa * delta @ delta
        dual = _prox_linear64(A, b, x, kappa)
        # weak duality: primal >= dual; the float32 step is within 1e-3 (relative) of optimal
        assert dual - 1e-9 <= primal <= dual + 1e-3 * max(1.0, abs(dual))


def test_phase_retrieval_few_inner_steps_keep_the_descent_inequality():
    A, b = _pr_instance(13)
    p = robust_phase_retrieval(jnp.asarray(A, jnp.float32), jnp.asarray(b, jnp.float32), inner_steps=3)
    rng = np.random.default_rng(14)
    base_map, value = jax.jit(p.base_map), jax.jit(p.value)
    for rho in (0.0, 0.5):
        c = float(p.descent(rho))
        assert c == pytest.approx(np.linalg.norm(A, 2) ** 2 / A.shape[0] + rho / 2, rel=1e-4)
        for _ in range(5):
            x = jnp.asarray(rng.standard_normal(10), jnp.float32)
            xh = base_map(x, rho)
            lhs = float(value(xh))
            rhs = float(value(x)) - c * float(jnp.sum((xh - x) ** 2))
            assert lhs <= rhs + 1e-5 * max(1.0, float(value(x)))
