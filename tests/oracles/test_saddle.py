"""Saddle families against independent references: autodiff, float64 numpy solves, brute force."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory import oracles


@pytest.fixture(autouse=True)
def _x64():
    # float64 for the exact identities below (tolerances ~1e-10)
    with jax.enable_x64(True):
        yield


def _bilinear(seed=0, dx=5, dy=3, mu=0.3, amp=2.0):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((dy, dx))
    c = rng.standard_normal(dy)
    return oracles.regularized_bilinear(B, c, mu, oracles.cosine_ridge(dx, 0.1, amp)), B, c, rng


def test_cosine_ridge_constants():
    g = oracles.cosine_ridge(4)
    x = jnp.linspace(-3, 3, 4)
    np.testing.assert_allclose(g.grad(x), jax.grad(g.value)(x), rtol=1e-12)
    t = np.linspace(-10, 10, 100001)
    curv = 0.1 - 2.0 * np.cos(t)
    assert curv.max() == pytest.approx(g.constants["L"], abs=1e-6)
    assert curv.min() == pytest.approx(g.constants["m"], abs=1e-6)
    with pytest.raises(ValueError):
        oracles.cosine_ridge(2, curvature=0.0)


def test_regularized_bilinear_phi_is_the_max():
    p, B, c, rng = _bilinear()
    for _ in range(5):
        x = jnp.asarray(rng.standard_normal(5))
        ys = p.best_response(x)
        # grad_y vanishes at the best response, and f(x, ·) is below Φ(x) everywhere
        np.testing.assert_allclose(p.grad_y(x, ys), 0.0, atol=1e-12)
        assert float(p.value(x, ys)) == pytest.approx(float(p.phi(x)), rel=1e-12)
        for _ in range(5):
            y = ys + jnp.asarray(rng.standard_normal(3))
            assert float(p.value(x, y)) < float(p.phi(x))
        # Danskin: ∇Φ from autodiff of the closed form, and ∇_x f at the best response
        np.testing.assert_allclose(p.grad_phi(x), jax.grad(p.phi)(x), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(p.grad_phi(x), p.grad_x(x, ys), rtol=1e-10, atol=1e-12)
    assert p.psi is None and p.saddle is None
    with pytest.raises(ValueError, match="no closed-form dual"):
        oracles.duality_gap(p, jnp.zeros(5), jnp.zeros(3))


def test_average_of_agents_is_the_problem_of_averages():
    rng = np.random.default_rng(1)
    Bs, cs = rng.standard_normal((4, 3, 5)), rng.standard_normal((4, 3))
    g = oracles.cosine_ridge(5)
    parts = [oracles.regularized_bilinear(Bs[i], cs[i], 0.2, g) for i in range(4)]
    avg = oracles.regularized_bilinear(Bs.mean(0), cs.mean(0), 0.2, g)
    x, y = jnp.asarray(rng.standard_normal(5)), jnp.asarray(rng.standard_normal(3))
    assert np.mean([float(q.value(x, y)) for q in parts]) == pytest.approx(float(avg.value(x, y)), rel=1e-12)


def test_quadratic_g_dual_and_saddle_against_numpy():
    p, B, c, rng = _bilinear(amp=0.0)
    a, mu = 0.1, 0.3
    # dual by a float64 linear solve of min_x: a x + Bᵀ y = 0
    for _ in range(3):
        y = rng.standard_normal(3)
        xs = -B.T @ y / a
        ref = 0.5 * a * xs @ xs + y @ (B @ xs - c) - 0.5 * mu * y @ y
        assert float(p.psi(jnp.asarray(y))) == pytest.approx(ref, rel=1e-12)
    K = np.block([[a * np.eye(5), B.T], [B, -mu * np.eye(3)]])
    sol = np.linalg.solve(K, np.concatenate([np.zeros(5), c]))
    np.testing.assert_allclose(p.saddle[0], sol[:5], rtol=1e-10)
    np.testing.assert_allclose(p.saddle[1], sol[5:], rtol=1e-10)
    assert float(oracles.duality_gap(p, *p.saddle)) == pytest.approx(0.0, abs=1e-10)


def test_quadratic_saddle_gap_and_value():
    rng = np.random.default_rng(2)
    M = rng.standard_normal((4, 4))
    A = M @ M.T + np.eye(4)
    N = rng.standard_normal((2, 2))
    C = N @ N.T + 0.5 * np.eye(2)
    B, a, b = rng.standard_normal((4, 2)), rng.standard_normal(4), rng.standard_normal(2)
    p = oracles.quadratic_saddle(A, B, C, a, b)
    xs, ys = p.saddle
    np.testing.assert_allclose(p.grad_x(xs, ys), 0.0, atol=1e-10)
    np.testing.assert_allclose(p.grad_y(xs, ys), 0.0, atol=1e-10)
    assert float(oracles.duality_gap(p, xs, ys)) == pytest.approx(0.0, abs=1e-10)
    for _ in range(5):
        x, y = jnp.asarray(rng.standard_normal(4)), jnp.asarray(rng.standard_normal(2))
        # Φ and Ψ against f at the exact best responses (independent float64 solves)
        yb = np.linalg.solve(C, B.T @ np.asarray(x) - b)
        xb = -np.linalg.solve(A, B @ np.asarray(y) + a)
        assert float(p.phi(x)) == pytest.approx(float(p.value(x, jnp.asarray(yb))), rel=1e-10)
        assert float(p.psi(y)) == pytest.approx(float(p.value(jnp.asarray(xb), y)), rel=1e-10)
        assert float(oracles.duality_gap(p, x, y)) > 0
        np.testing.assert_allclose(p.grad_phi(x), jax.grad(p.phi)(x), rtol=1e-9)
    with pytest.raises(ValueError, match="shapes"):
        oracles.quadratic_saddle(A, B, C, a, np.zeros(3))
