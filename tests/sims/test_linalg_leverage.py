"""jaxtheory.sims.matrix.linalg.leverages against a numpy float64 reference."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.matrix.linalg import leverages


def _numpy_leverages(X, w, H):
    """diag(W^½ X H⁻¹ Xᵀ W^½) with an explicit inverse (independent of the Cholesky path)."""
    Wh = np.sqrt(w)[:, None] * X
    return np.diag(Wh @ np.linalg.inv(H) @ Wh.T)


def test_matches_numpy_float64():
    rng = np.random.default_rng(0)
    n, p, lam = 40, 12, 0.3
    X = rng.standard_normal((n, p))
    w = rng.uniform(0.05, 0.25, n)
    H = (X * w[:, None]).T @ X + lam * np.eye(p)
    with jax.enable_x64(True):
        h = np.asarray(leverages(jnp.asarray(X), jnp.asarray(w), jnp.asarray(H)))
    # float64 with cond(H) ~ 1e2: agreement to ~1e-13; 1e-11 leaves room.
    np.testing.assert_allclose(h, _numpy_leverages(X, w, H), rtol=0, atol=1e-11)


def test_unregularised_leverages_sum_to_p_and_lie_in_unit_interval():
    rng = np.random.default_rng(1)
    n, p = 30, 7
    X = rng.standard_normal((n, p))
    w = rng.uniform(0.1, 1.0, n)
    with jax.enable_x64(True):
        h = np.asarray(leverages(jnp.asarray(X), jnp.asarray(w)))
    # The trace of a rank-p projection is p (exact up to float64 rounding).
    assert abs(h.sum() - p) < 1e-10
    assert (h > 0).all() and (h < 1).all()


def test_float32_and_vmap():
    X = jax.random.normal(jax.random.key(0), (3, 20, 5))
    w = jnp.ones((3, 20))
    h = jax.vmap(leverages)(X, w)
    assert h.shape == (3, 20) and h.dtype == jnp.float32
    # float32 trace of a projection: 5 ± a few ulps times n.
    np.testing.assert_allclose(np.asarray(h.sum(1)), 5.0, atol=1e-4)


@pytest.mark.parametrize(
    "X, w, H",
    [
        (np.ones(5), np.ones(5), None),
        (np.ones((5, 2)), np.ones(4), None),
        (np.ones((5, 2)), np.ones(5), np.eye(3)),
    ],
)
def test_bad_shapes_raise(X, w, H):
    with pytest.raises(ValueError, match="leverages"):
        leverages(X, w, H)
