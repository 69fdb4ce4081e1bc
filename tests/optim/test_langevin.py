"""``optim.langevin`` against the exact discrete-time Ornstein–Uhlenbeck law on quadratics.

For :math:`U = \\tfrac12 c (x - t)^2 + \\tfrac12 \\lambda x^2` the Euler–Maruyama chain is
the AR(1) recursion :math:`x_{k+1} = r x_k + h c t + \\sqrt{2hT}\\xi_k`, :math:`r = 1 - h(c +
\\lambda)`, so from a fixed :math:`x_0`:
:math:`\\mathbb E x_k = \\mu + r^k (x_0 - \\mu)`, :math:`\\mu = c t / (c + \\lambda)`, and
:math:`\\operatorname{Var} x_k = \\frac{2hT}{1 - r^2}(1 - r^{2k})`, exactly (no
continuous-time approximation).
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import jaxtheory.optim as jo

N = 20000  # independent chains per coordinate


def _run(opt, loss, x0, steps):
    @jax.jit
    def go(x):
        s = opt.init(x)

        def body(c, _):
            x, s = c
            u, s = opt.update(jax.grad(loss)(x), s, x)
            return (optax.apply_updates(x, u), s), None

        return jax.lax.scan(body, (x, s), None, length=steps)[0][0]

    return go(x0)


def test_stationary_law_matches_discrete_ou():
    h, T, lam, steps = 0.05, 0.3, 0.5, 400
    c = np.array([0.0, 0.5, 2.0, 8.0, 15.0])
    t = np.array([1.0, -1.0, 0.5, 2.0, -0.3])
    x0 = np.array([2.0, 0.0, -1.0, 0.3, 1.0])
    with jax.enable_x64(True):
        loss = lambda x: 0.5 * jnp.sum(jnp.asarray(c) * (x - jnp.asarray(t)) ** 2)  # noqa: E731
        X0 = jnp.asarray(np.tile(x0, (N, 1)), jnp.float64)
        x = np.asarray(_run(jo.langevin(h, T, lam, seed=1), loss, X0, steps))
    assert x.dtype == np.float64
    r = 1.0 - h * (c + lam)
    mu = c * t / (c + lam)
    mean = mu + r**steps * (x0 - mu)
    var = 2 * h * T / (1 - r**2) * (1 - r ** (2 * steps))
    # 5 standard errors of the sample mean and variance of N Gaussian draws (float64 sums)
    np.testing.assert_array_less(np.abs(x.mean(0) - mean), 5 * np.sqrt(var / N))
    np.testing.assert_array_less(np.abs(x.var(0) - var), 5 * var * np.sqrt(2 / N))
    # the discrete variance differs from the continuous T / (c + lam) by the factor 1/(1 - h a/2)
    stiff = var[-1] / (T / (c[-1] + lam))
    assert abs(stiff - 1 / (1 - h * (c[-1] + lam) / 2)) < 1e-3


def test_ou_displacement_along_flat_directions():
    """Flat loss, prior-matched λ = T/σ²: E‖θ_k−θ₀‖² = (1−r^k)²‖θ₀‖² + D·Var_k exactly, which
    tends to 2(1 − e^{−λt})·Dσ² as h → 0 (the issue's OU formula)."""
    h, T, sigma2, D = 0.02, 1e-2, 0.25, 64
    lam = T / sigma2
    steps = 2000
    theta0 = np.sqrt(sigma2) * np.random.default_rng(0).standard_normal(D)
    with jax.enable_x64(True):
        X0 = jnp.asarray(np.tile(theta0, (N // 16, 1)))
        x = np.asarray(_run(jo.langevin(h, T, lam, seed=2), lambda z: 0.0 * jnp.sum(z), X0, steps))
    r = 1 - h * lam
    var = 2 * h * T / (1 - r**2) * (1 - r ** (2 * steps))
    exact = (1 - r**steps) ** 2 + D * var / np.sum(theta0**2)
    d2 = np.sum((x - theta0) ** 2, axis=1) / np.sum(theta0**2)
    se = d2.std() / np.sqrt(len(d2))
    assert abs(d2.mean() - exact) < 5 * se
    # continuous-time limit with E‖θ₀‖² = Dσ² in place of the draw: 2(1 − e^{−λt})
    cont = (1 - np.exp(-lam * h * steps)) ** 2 + (1 - np.exp(-2 * lam * h * steps))
    assert abs(cont - 2 * (1 - np.exp(-lam * h * steps))) < 1e-12
    assert abs((1 - r**steps) ** 2 + D * var / (D * sigma2) - cont) < 5 * h * lam


def test_per_leaf_weight_decay_and_preconditioner():
    p = {"a": jnp.ones(3), "b": 2 * jnp.ones(2)}
    g = jax.tree.map(jnp.zeros_like, p)
    opt = jo.langevin(0.1, 0.0, weight_decay={"a": 1.0, "b": 0.5}, preconditioner={"a": 2.0, "b": 1.0})
    u, _ = opt.update(g, opt.init(p), p)
    np.testing.assert_allclose(u["a"], -0.1 * 2.0 * 1.0 * 1.0)  # -h M λ θ
    np.testing.assert_allclose(u["b"], -0.1 * 1.0 * 0.5 * 2.0)
    with pytest.raises(ValueError, match="params"):
        opt.update(g, opt.init(p))
    # the key lives in the state: two steps draw different noise, the same seed the same
    hot = jo.langevin(0.1, 1.0, seed=4)
    s = hot.init(p)
    u1, s = hot.update(g, s, p)
    u2, _ = hot.update(g, s, p)
    assert not np.allclose(u1["a"], u2["a"])
    np.testing.assert_array_equal(hot.update(g, hot.init(p), p)[0]["a"], u1["a"])
