"""The CV-ZOD hint simulator against numpy float64 references and its exact identities."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.quadratic import spectrum
from jaxtheory.sims.zeroth_order import hints as zh


def test_objective_and_gradient_match_numpy_and_autodiff():
    with jax.enable_x64(True):
        lam = spectrum(7, 1e-2, 1.0, xp=np)
        x = np.random.default_rng(0).standard_normal(7)
        want = 0.5 * np.sum(lam * x * x) + 0.1 * np.sum(np.sin(3 * x))
        np.testing.assert_allclose(float(zh.objective(jnp.asarray(x), lam)), want, rtol=1e-14)
        g = jax.grad(lambda z: zh.objective(z, lam))(jnp.asarray(x))
        np.testing.assert_allclose(np.asarray(zh.gradient(jnp.asarray(x), lam)), np.asarray(g), rtol=1e-13)


def test_smoothness_bounds_the_hessian():
    """L = λ_max + Aω² is the sup of |f''| (the Hessian is diagonal): attained where sin 3x = −1."""
    lam = spectrum(50, 1e-2, 1.0, xp=np)
    L = zh.smoothness(1.0)
    xs = np.random.default_rng(1).uniform(-5, 5, (200, 50))
    hess = lam - 0.9 * np.sin(3 * xs)
    assert np.abs(hess).max() <= L
    assert np.isclose(lam[0] - 0.9 * np.sin(3 * (-np.pi / 6)), L)


def test_hint_has_the_requested_quality():
    with jax.enable_x64(True):
        g = jnp.asarray(np.random.default_rng(2).standard_normal(30))
        for deg in (0.0, 18.4, 45.0, 80.0, 90.0):
            U = zh.make_hint(g, jnp.radians(deg), jax.random.key(3))
            assert U.shape == (1, 30)
            np.testing.assert_allclose(float(jnp.linalg.norm(U)), 1.0, rtol=1e-14)
            alpha = float((U[0] @ g) ** 2 / (g @ g))
            np.testing.assert_allclose(alpha, np.cos(np.radians(deg)) ** 2, atol=1e-14)


def test_coarse_hint_quality_falls_with_progress():
    """The coarse model's gradient Hx is well aligned with ∇f at the start and poorly once
    gradient descent nears a minimum of the fine objective, where Hx is cancelled by the
    ripple's gradient (float64, d = 50: α from 0.99 to about 0.01 in 10 steps of 1/L)."""
    with jax.enable_x64(True):
        lam = spectrum(50, 1e-2, 1.0, xp=np)
        x = jnp.full((50,), 0.5)

        def alpha(z):
            g = zh.gradient(z, lam)
            return float((zh.coarse_hint(z, lam)[0] @ g) ** 2 / (g @ g))

        start, f0 = alpha(x), float(zh.objective(x, lam))
        for _ in range(10):
            x = x - zh.gradient(x, lam) / zh.smoothness(1.0)
        assert float(zh.objective(x, lam)) < f0 - 5.0
        assert start > 0.9 and alpha(x) < 0.05
        np.testing.assert_allclose(float(jnp.linalg.norm(zh.coarse_hint(x, lam))), 1.0, rtol=1e-14)


def test_hint_angles_of_the_alpha_grid():
    for label, alpha in (
        ("a1", 1.0),
        ("a0.999", 0.999),
        ("a0.99", 0.99),
        ("a0.9", 0.9),
        ("a0.5", 0.5),
        ("a0", 0.0),
    ):
        a, b = zh.HINT_ANGLES[label]
        assert a == b
        np.testing.assert_allclose(np.cos(np.radians(a)) ** 2, alpha, atol=1e-12)


SMALL = zh.HintSpec(dim=20, steps=60, rate_steps=80, num_log=8)


@pytest.fixture(scope="module")
def small_runs():
    f = jax.jit(lambda code, k: zh.run(SMALL, dict(zh.DEFAULT_PARAMS, hint=code), k))
    return {
        h: f(jnp.int32(i), jax.random.key(0))
        for i, h in enumerate(zh.HINTS)
        if h in ("a1", "a0", "drift", "coarse")
    }


def test_run_shapes_and_costs(small_runs):
    out = small_runs["drift"]
    steps = zh.log_steps(SMALL.steps, SMALL.num_log)
    A = len(zh.ALGORITHMS)
    assert out["loss"].shape == (A, len(steps)) and out["iters_to_tol"].shape == (A,)
    per = np.asarray([zh.EVALS_PER_ITER[a] for a in zh.ALGORITHMS])
    np.testing.assert_array_equal(np.asarray(out["cost"]), per[:, None] * steps[None, :])
    # the transforms count one per JVP: cv_zod 2 (hint + random), zo_gd 1, hint_gd 1,
    # guided_es 1 (one pair, as a JVP), prgf 2 (hint + one random)
    np.testing.assert_array_equal(np.asarray(out["n_evals"]), np.array([2, 2, 1, 1, 1, 2]) * SMALL.steps)
    zo = zh.ALGORITHMS.index("zo_gd")
    assert float(out["zo_final_loss"]) == float(out["final_loss"][zo])
    # ZO-GD reaches its own final loss no later than at its last iteration
    assert float(out["evals_to_zo_final"][zo]) <= zh.EVALS_PER_ITER["zo_gd"] * SMALL.steps


def test_alpha0_hint_gd_does_not_move(small_runs):
    """A hint orthogonal to the gradient: projected-hint GD's step is rounding only."""
    out = small_runs["a0"]
    f0 = float(zh.objective(jnp.full(20, 0.5), spectrum(20, 1e-2, 1.0)))
    hg = zh.ALGORITHMS.index("hint_gd")
    # |Δf| <= steps · |∇f| · (float32 rounding of the projection ~ 1e-6 |∇f|) / L: tiny
    assert abs(float(out["final_loss"][hg]) - f0) < 1e-4 * abs(f0)


def test_oracle_at_alpha1_hits_tolerance_like_float64_gd():
    """Hint a1: the oracle CV-ZOD is GD with step 1/L; its iterations to ‖∇f‖² ≤ tol equal GD's in numpy."""
    spec = zh.HintSpec(dim=200, steps=40, rate_steps=40)
    out = jax.jit(lambda k: zh.run(spec, dict(zh.DEFAULT_PARAMS, hint=0), k))(jax.random.key(1))
    lam = spectrum(200, 1e-2, 1.0, xp=np)
    x = np.full(200, 0.5)
    L = zh.smoothness(1.0)
    gsq = []
    for _ in range(40):
        x = x - (lam * x + 0.3 * np.cos(3 * x)) / L
        g = lam * x + 0.3 * np.cos(3 * x)
        gsq.append(g @ g)
    gsq = np.asarray(gsq)
    k = int(np.argmax(gsq <= spec.tol))
    # the crossing is not within float32 rounding of the tolerance (so the count is exact)
    assert gsq[k] < 0.9 * spec.tol and gsq[k - 1] > 1.1 * spec.tol
    assert float(out["iters_to_tol"][0]) == k + 1


def test_identity_residuals():
    with jax.enable_x64(True):
        r = zh.identity_residuals(dim=40, steps=30)
        assert float(r["oracle_alpha1_vs_gd"]) <= 1e-12
        assert float(r["zero_reference_vs_zo_gd"]) == 0.0
    assert float(zh.identity_residuals(dim=40, steps=30)["zero_reference_vs_zo_gd"]) == 0.0


def test_estimator_moments_closed_form():
    """z ≈ 1 (unbiased), E‖g‖²/‖∇f‖² ≈ α + d(1 − α); d = 30, N = 20000, float64."""
    with jax.enable_x64(True):
        for alpha in (0.0, 0.6):
            m = zh.estimator_moments(30, alpha, 20000, jax.random.key(4))
            # ‖ḡ − ∇f‖²/SE² is a sum of ~d terms with mean 1: within a factor 2 for d = 30
            assert 0.5 < float(m["z"]) < 1.5
            # relative SD of one draw's ‖g‖² is about √2 (a χ²₁ times the factor): 5 SE
            np.testing.assert_allclose(
                float(m["second_moment"]), alpha + 30 * (1 - alpha), rtol=5 * np.sqrt(3 / 20000)
            )


def test_rate_steps_check():
    with pytest.raises(ValueError, match="rate_steps"):
        zh.run(zh.HintSpec(steps=10, rate_steps=5), dict(zh.DEFAULT_PARAMS, hint=0), jax.random.key(0))
