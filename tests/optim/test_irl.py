"""occupancy_interp, averaged_fisher_precondition, line_average and gauss_legendre_unit
against closed forms and independent float64 numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    averaged_fisher_precondition,
    entropic_mirror_map,
    gauss_legendre_unit,
    line_average,
    occupancy_interp,
    stochastic_mirror_descent,
)


def _softmax_np(x):
    z = np.exp(x - x.max())
    return z / z.sum()


def _fisher_np(theta):
    p = _softmax_np(theta)
    return np.diag(p) - np.outer(p, p)


@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_gauss_legendre_exact_for_polynomials(n):
    t, w = gauss_legendre_unit(n)
    assert t.shape == w.shape == (n,) and np.all((t > 0) & (t < 1))
    for p in range(2 * n):  # exact up to degree 2n - 1: ∫_0^1 t^p dt = 1/(p + 1)
        assert abs(w @ t**p - 1.0 / (p + 1)) < 1e-14
    # ... and not beyond (degree 2n; the error constant is tiny for many nodes)
    if n <= 5:
        assert abs(w @ t ** (2 * n) - 1.0 / (2 * n + 1)) > 1e-8


@pytest.mark.parametrize("bad", [0, -1, 2.0, True])
def test_gauss_legendre_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match="positive integer"):
        gauss_legendre_unit(bad)


def test_line_average_closed_form():
    with jax.enable_x64(True):
        a, b = jnp.array([0.0, -1.0]), jnp.array([2.0, 3.0])
        avg = line_average(jnp.exp, a, b, 64)  # ∫_0^1 e^{a + t(b - a)} dt = (e^b - e^a)/(b - a)
        ref = (np.exp(np.asarray(b)) - np.exp(np.asarray(a))) / (np.asarray(b) - np.asarray(a))
        np.testing.assert_allclose(np.asarray(avg), ref, rtol=1e-14)
        # a pytree in, a pytree out
        out = line_average(lambda t: {"sq": t["x"] ** 2}, {"x": jnp.float64(0.0)}, {"x": jnp.float64(3.0)}, 4)
        assert abs(float(out["sq"]) - 3.0) < 1e-13
    with pytest.raises(ValueError, match="same pytree structure"):
        line_average(jnp.exp, {"x": 0.0}, [0.0])


def test_occupancy_interp_is_convex_interpolation():
    with jax.enable_x64(True):
        rng = np.random.default_rng(0)
        theta0, star = jnp.asarray(rng.normal(size=6)), jnp.asarray(rng.normal(size=6))
        eta = 0.3
        opt = occupancy_interp(star, eta)
        theta, state = theta0, opt.init(theta0)
        for k in range(1, 11):
            u, state = opt.update(jnp.zeros(6), state, theta)
            theta = optax.apply_updates(theta, u)
            # θ_k − θ* = (1 − η)^k (θ_0 − θ*): k roundings of one multiply-add each
            np.testing.assert_allclose(theta - star, (1 - eta) ** k * (theta0 - star), atol=1e-14 * k)
        assert int(state.count) == 10
        # η = 1 lands on the target (one multiply by 1.0 and one add: exact to 1 ulp)
        one = occupancy_interp(star, 1.0)
        u, _ = one.update(None, one.init(theta0), theta0)
        np.testing.assert_allclose(optax.apply_updates(theta0, u), star, rtol=0, atol=4e-16)


def test_occupancy_interp_pytree_dtype_and_errors():
    params = {"a": jnp.zeros(2, jnp.float32), "b": jnp.ones((), jnp.float32)}
    target = {"a": jnp.ones(2, jnp.float32), "b": jnp.zeros((), jnp.float32)}
    opt = occupancy_interp(target, 0.5)
    u, _ = opt.update(params, opt.init(params), params)
    assert u["a"].dtype == jnp.float32
    np.testing.assert_array_equal(u["a"], [0.5, 0.5])
    assert float(u["b"]) == -0.5
    with pytest.raises(ValueError, match="needs params"):
        opt.update(params, opt.init(params))
    with pytest.raises(ValueError, match="same pytree structure"):
        bad = occupancy_interp([jnp.zeros(2)], 0.5)
        bad.update(params, bad.init(params), params)
    with pytest.raises(TypeError, match="schedule"):
        occupancy_interp(target, lambda t: 0.1)


def test_occupancy_interp_vmaps_over_eta():
    star = jnp.array([1.0, -1.0])

    def step(e):
        opt = occupancy_interp(star, e)
        return opt.update(None, opt.init(star), jnp.zeros(2))[0]

    f = jax.vmap(step)
    np.testing.assert_allclose(f(jnp.array([0.1, 0.5])), [[0.1, -0.1], [0.5, -0.5]], rtol=1e-6)


@pytest.mark.parametrize("dtype", [jnp.float32, jnp.float64])
def test_dual_step_bit_identical_to_entropic_mirror_descent(dtype):
    """By construction: at θ = log π_k, θ + η(log π_E − θ) is the same floating-point value as
    log π_k − η(log π_k − log π_E) (a − b = −(b − a) and η·(−x) = −(η·x) exactly in IEEE
    arithmetic), so one step of either gives bitwise the same policy (eager ops, same shapes)."""
    with jax.enable_x64(dtype == jnp.float64):
        rng = np.random.default_rng(1)
        pi = jnp.asarray(rng.dirichlet(np.ones(7)), dtype)
        log_pi_e = jnp.log(jnp.asarray(rng.dirichlet(np.ones(7)), dtype))
        eta = jnp.asarray(0.3, dtype)
        theta = jnp.log(pi)
        interp = occupancy_interp(log_pi_e, eta)
        u, _ = interp.update(None, interp.init(theta), theta)
        interp_dual = theta + u
        mirror = entropic_mirror_map()
        g = jnp.log(pi) - log_pi_e
        md_dual = mirror.to_dual(pi) - eta * g
        assert bool(jnp.all(interp_dual == md_dual))
        assert bool(jnp.all(mirror.to_primal(interp_dual) == mirror.to_primal(md_dual)))
        # SMD's own update lands there up to the x + (y − x) rounding of apply_updates
        opt = stochastic_mirror_descent(eta, mirror)
        v, _ = opt.update(g, opt.init(pi), pi)
        eps = float(jnp.finfo(dtype).eps)
        np.testing.assert_allclose(
            optax.apply_updates(pi, v), jax.nn.softmax(interp_dual), rtol=0, atol=4 * eps
        )


def test_averaged_fisher_bandit_identity_against_numpy():
    """F̄⁺(μ_E − μ_θ) = centred(θ* − θ); F̄ from an independent numpy quadrature of the closed form."""
    with jax.enable_x64(True):
        rng = np.random.default_rng(2)
        for arms in (3, 8):
            theta = rng.normal(size=arms)
            star = np.log(rng.dirichlet(np.ones(arms)))
            t, w = np.polynomial.legendre.leggauss(64)
            fbar_np = sum(wi / 2 * _fisher_np(theta + (ti + 1) / 2 * (star - theta)) for ti, wi in zip(t, w))
            g = np.exp(star) - _softmax_np(theta)
            ref = np.linalg.pinv(fbar_np, rcond=1e-12, hermitian=True) @ g
            centred = (star - theta) - (star - theta).mean()
            np.testing.assert_allclose(ref, centred, atol=1e-12)  # the identity itself, in numpy
            opt = averaged_fisher_precondition(jax.jacfwd(jax.nn.softmax), 1.0, num_nodes=64)
            u, state = opt.update(
                jnp.asarray(g), opt.init(jnp.asarray(theta)), jnp.asarray(theta), target=star
            )
            np.testing.assert_allclose(np.asarray(u), centred, atol=1e-12)
            assert int(state.count) == 1


def test_averaged_fisher_local_and_damped():
    with jax.enable_x64(True):
        rng = np.random.default_rng(3)
        theta = rng.normal(size=5)
        g = rng.normal(size=5)
        g -= g.mean()  # in the range of the softmax Fisher (orthogonal to the constants)
        ref = np.linalg.pinv(_fisher_np(theta), rcond=1e-12, hermitian=True) @ g
        fisher = jax.jacfwd(jax.nn.softmax)
        local = averaged_fisher_precondition(fisher, 0.5, num_nodes=1)
        u, _ = local.update(jnp.asarray(g), local.init(jnp.asarray(theta)), jnp.asarray(theta))
        np.testing.assert_allclose(np.asarray(u), 0.5 * ref, atol=1e-12)
        # the damped solve: (F + λ tr(F)/d I)^{-1} g, closed form through numpy
        lam = 1e-3
        F = _fisher_np(theta)
        damped_ref = np.linalg.solve(F + lam * np.trace(F) / 5 * np.eye(5), g)
        damped = averaged_fisher_precondition(fisher, 1.0, num_nodes=1, damping=lam)
        u, _ = damped.update(jnp.asarray(g), damped.init(jnp.asarray(theta)), jnp.asarray(theta))
        np.testing.assert_allclose(np.asarray(u), damped_ref, rtol=1e-10)
        # no null-space component either way (relative to the step's size)
        assert abs(float(np.asarray(u).sum())) < 1e-12 * float(np.abs(np.asarray(u)).sum())


def test_averaged_fisher_pytree_params_and_errors():
    params = {"a": jnp.zeros(2), "b": jnp.zeros(1)}
    fisher = lambda p: jnp.eye(3) * 2.0  # noqa: E731
    opt = averaged_fisher_precondition(fisher, 1.0, num_nodes=2)
    grads = {"a": jnp.array([2.0, 4.0]), "b": jnp.array([6.0])}
    u, _ = opt.update(grads, opt.init(params), params)
    np.testing.assert_allclose(u["a"], [1.0, 2.0], rtol=1e-6)
    np.testing.assert_allclose(u["b"], [3.0], rtol=1e-6)
    with pytest.raises(ValueError, match="needs params"):
        opt.update(grads, opt.init(params))
    with pytest.raises(ValueError, match="positive integer"):
        averaged_fisher_precondition(fisher, 1.0, num_nodes=0)
