"""The shared network helpers: the 2-layer MLP's NTK against closed forms, and the lazy curve."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.nets import mlp, ntk


def _sphere(key, n, d, radius=1.0):
    x = jax.random.normal(key, (n, d), jnp.float64)
    return radius * x / jnp.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.parametrize("param", mlp.PARAMETERISATIONS)
@pytest.mark.parametrize("act", ["tanh", "relu"])
def test_empirical_ntk_equals_finite_width_formula(param, act):
    with jax.enable_x64(True):
        X = _sphere(jax.random.PRNGKey(0), 6, 5)
        mask = mlp.width_mask(7, 10, jnp.float64)
        p = mlp.init(jax.random.PRNGKey(1), 5, 10, 7, param, jnp.float64)
        K = mlp.empirical_ntk(p, X, mask, param, act)
        # same sums in a different order (autodiff vs the formula): float64 rounding only
        np.testing.assert_allclose(K, mlp.ntk_closed_form(p, X, mask, param, act), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("param", mlp.PARAMETERISATIONS)
def test_width_mask_equals_the_unpadded_net(param):
    with jax.enable_x64(True):
        X = _sphere(jax.random.PRNGKey(0), 4, 3)
        p = mlp.init(jax.random.PRNGKey(2), 3, 9, 5, param, jnp.float64)
        small = {"W1": p["W1"][:5], "a": p["a"][:5]}
        full, ones = mlp.width_mask(5, 9, jnp.float64), jnp.ones(5, jnp.float64)
        np.testing.assert_allclose(mlp.apply(p, X, full, param), mlp.apply(small, X, ones, param), rtol=1e-13)
        np.testing.assert_allclose(
            mlp.empirical_ntk(p, X, full, param), mlp.empirical_ntk(small, X, ones, param), rtol=1e-12
        )
        J = mlp.jacobian(p, X, full, param)
        assert float(jnp.abs(J[:, 5 * 3 : 9 * 3]).max()) == 0.0  # padded W1 rows get no gradient
        assert float(jnp.abs(J[:, 27 + 5 :]).max()) == 0.0


def test_ntk_param_relu_tends_to_arc_cosine_kernel():
    """NTK parameterisation, ReLU, |x|² = d: K → κ₁(ρ) + κ₀(ρ)ρ (arc-cosine kernels) as m → ∞."""
    d, m, n = 4, 40000, 5
    with jax.enable_x64(True):
        X = _sphere(jax.random.PRNGKey(3), n, d, radius=np.sqrt(d))
        p = mlp.init(jax.random.PRNGKey(4), d, m, param="ntk", dtype=jnp.float64)
        K = np.asarray(mlp.empirical_ntk(p, X, mlp.width_mask(m, m, jnp.float64), "ntk", "relu"))
        U = np.asarray(X @ p["W1"].T / np.sqrt(d))
        a = np.asarray(p["a"])
        Xn = np.asarray(X)
    rho = np.clip(Xn @ Xn.T / d, -1, 1)
    th = np.arccos(rho)
    k1 = (np.sin(th) + (np.pi - th) * np.cos(th)) / (2 * np.pi)
    k0 = (np.pi - th) / (2 * np.pi)
    exact = k1 + k0 * rho
    # each entry is a mean over m i.i.d. units: its standard error from the units themselves
    F, G = np.maximum(U, 0), (U > 0) * a[None]
    terms = F[:, None, :] * F[None, :, :] + G[:, None, :] * G[None, :, :] * rho[..., None]
    se = terms.std(axis=-1) / np.sqrt(m)
    assert np.all(np.abs(K - exact) < 6 * se + 1e-12), np.abs(K - exact) / se


def test_lazy_loss_equals_explicit_kernel_gd():
    rng = np.random.default_rng(0)
    P = 7
    A = rng.standard_normal((P, P))
    K0 = A @ A.T / P + 0.1 * np.eye(P)
    y = rng.standard_normal(P)
    eta, steps = 0.8 * P / np.linalg.eigvalsh(K0).max(), 50
    delta, ref = y.copy(), []
    for _ in range(steps + 1):
        ref.append(0.5 * delta @ delta / P)
        delta = delta - eta / P * K0 @ delta
    # eigendecomposition vs repeated matvecs in float64: rounding grows at most linearly in steps
    np.testing.assert_allclose(ntk.lazy_loss(np.eye(P), y, K0, eta, steps), ref, rtol=1e-10)


def test_dmft_reexports_the_moved_names():
    from jaxtheory.sims.moe import dmft

    assert dmft.initial_ntk is ntk.initial_ntk and dmft.lazy_loss is ntk.lazy_loss
    assert dmft.activation is ntk.activation and "initial_ntk" in dmft.__all__


def test_bad_parameterisation_is_rejected():
    with pytest.raises(ValueError, match="parameterisation"):
        mlp.init(jax.random.PRNGKey(0), 2, 2, param="mup")
