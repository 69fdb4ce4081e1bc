"""Gaussian sensing operators and tangent least squares against numpy (float64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.matrix.linalg import SensingOperator, gaussian_sensing, tangent_lstsq


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def test_adjoint_identity_float64():
    op = gaussian_sensing(jax.random.key(0), 7, (3, 4, 2), "standard")
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((3, 4, 2)), rng.standard_normal(7)
    lhs = float(jnp.dot(op.apply(jnp.asarray(x)), jnp.asarray(y)))
    rhs = float(jnp.sum(jnp.asarray(x) * op.adjoint(jnp.asarray(y))))
    # two float64 sums of 24 products of O(1) numbers: a few ulps of their magnitude
    assert abs(lhs - rhs) <= 1e-12 * (1 + abs(lhs))
    # and both agree with numpy's dense matrix product on the C-order flattening
    a = np.asarray(op.matrix)
    np.testing.assert_allclose(
        np.asarray(op.apply(jnp.asarray(x))), a @ x.reshape(-1), rtol=1e-12, atol=1e-12
    )
    np.testing.assert_allclose(np.asarray(op.adjoint(jnp.asarray(y))), (a.T @ y).reshape(3, 4, 2), atol=1e-12)


def test_normalizations_scale_the_entries():
    key = jax.random.key(3)
    std = gaussian_sensing(key, 400, (50,), "standard")
    nrm = gaussian_sensing(key, 400, (50,), "normalized")
    assert std.matrix.dtype == jnp.float64
    # same draw, divided by sqrt(n)
    np.testing.assert_allclose(np.asarray(nrm.matrix) * 20.0, np.asarray(std.matrix), rtol=1e-14)
    # E A*A = n I (standard): the mean squared entry of 20,000 N(0,1) draws is 1 within 5 SE
    # (SE = sqrt(2/20000) = 0.01)
    assert abs(float(jnp.mean(std.matrix**2)) - 1.0) < 0.05


def test_lstsq_matches_numpy_float64():
    op = gaussian_sensing(jax.random.key(1), 30, (4, 5), "standard")
    rng = np.random.default_rng(1)
    basis = np.linalg.qr(rng.standard_normal((20, 6)))[0]
    resid = rng.standard_normal(30)
    coords, step = tangent_lstsq(op, jnp.asarray(basis), jnp.asarray(resid))
    ref = np.linalg.lstsq(np.asarray(op.matrix) @ basis, resid, rcond=None)[0]
    # a well-conditioned 30 x 6 problem: agreement to ~1e4 ulps of float64
    np.testing.assert_allclose(np.asarray(coords), ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.asarray(step), (basis @ ref).reshape(4, 5), atol=1e-12)
    # the residual of the solution is orthogonal to the design's columns (normal equations)
    j = np.asarray(op.matrix) @ basis
    assert np.abs(j.T @ (resid - j @ np.asarray(coords))).max() < 1e-10


def test_sensing_operator_is_a_pytree_that_vmaps():
    ops = jax.vmap(lambda k: gaussian_sensing(k, 5, (2, 3)))(jax.random.split(jax.random.key(2), 4))
    assert isinstance(ops, SensingOperator) and ops.matrix.shape == (4, 5, 6) and ops.shape == (2, 3)
    out = jax.vmap(lambda o: o.apply(jnp.ones((2, 3))))(ops)
    np.testing.assert_allclose(np.asarray(out), np.asarray(ops.matrix).sum(-1), atol=1e-12)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="normalization"):
        gaussian_sensing(jax.random.key(0), 3, (2,), "unit")
    with pytest.raises(ValueError, match="positive"):
        gaussian_sensing(jax.random.key(0), 0, (2,))
    op = gaussian_sensing(jax.random.key(0), 3, (2, 2))
    with pytest.raises(ValueError, match="shape"):
        op.apply(jnp.ones(4))
    with pytest.raises(ValueError, match="adjoint"):
        op.adjoint(jnp.ones(4))
    with pytest.raises(ValueError, match="residual"):
        tangent_lstsq(op, jnp.eye(4), jnp.ones(2))
