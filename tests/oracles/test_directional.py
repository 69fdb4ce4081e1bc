"""Directional derivatives against closed forms, and the finite-difference error orders."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.oracles import DIRECTIONAL_MODES, directional_derivative, directional_evals


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def _f(x):
    return 0.5 * jnp.sum(jnp.linspace(0.1, 1.0, x.size) * x**2) + jnp.sum(0.1 * jnp.sin(3 * x))


def _grad(x):
    return np.linspace(0.1, 1.0, x.size) * x + 0.3 * np.cos(3 * x)


def test_jvp_is_exact():
    rng = np.random.default_rng(0)
    x, u = rng.standard_normal(7), rng.standard_normal(7)
    got = float(directional_derivative(_f, jnp.asarray(x), jnp.asarray(u), mode="jvp"))
    assert got == pytest.approx(float(_grad(x) @ u), rel=1e-12)


def test_finite_difference_orders():
    # forward difference: error O(mu) (halving mu halves it); central: O(mu^2) (a quarter).
    rng = np.random.default_rng(1)
    x, u = jnp.asarray(rng.standard_normal(5)), jnp.asarray(rng.standard_normal(5))
    exact = float(_grad(np.asarray(x)) @ np.asarray(u))
    for mode, order in (("fd", 1), ("central", 2)):
        e1 = abs(float(directional_derivative(_f, x, u, 1e-3, mode)) - exact)
        e2 = abs(float(directional_derivative(_f, x, u, 5e-4, mode)) - exact)
        assert e1 / e2 == pytest.approx(2.0**order, rel=0.05)


def test_fd_uses_the_given_value_and_pytrees():
    x = {"a": jnp.ones(2), "b": jnp.zeros(())}
    u = {"a": jnp.array([1.0, -1.0]), "b": jnp.ones(())}

    def f(p):
        return jnp.sum(p["a"] ** 2) + 3 * p["b"]

    exact = float(directional_derivative(f, x, u, mode="jvp"))
    assert exact == pytest.approx(3.0)
    # a wrong f(x) passed as fx shifts the forward difference by (f(x) - fx) / mu
    shifted = float(directional_derivative(f, x, u, 1e-6, "fd", fx=f(x) + 1e-6))
    assert shifted == pytest.approx(exact - 1.0, abs=1e-4)


def test_bad_input():
    with pytest.raises(ValueError, match="mode"):
        directional_derivative(_f, jnp.ones(2), jnp.ones(2), mode="forward")
    with pytest.raises(ValueError, match="structure"):
        directional_derivative(lambda p: p[0].sum(), (jnp.ones(2),), jnp.ones(2))
    assert [directional_evals(m) for m in DIRECTIONAL_MODES] == [1, 2, 1]
