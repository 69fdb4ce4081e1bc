"""optim.center_classifier_rows: the zero-sum fix against numpy, and its conservation."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import center_classifier_rows


def test_matches_numpy_and_respects_the_mask():
    rng = np.random.default_rng(0)
    g = {
        "W": rng.standard_normal((5, 4)).astype(np.float32),
        "V": rng.standard_normal((3, 5)).astype(np.float32),
    }
    for scale in (1.0, 0.3):
        t = center_classifier_rows(scale, mask={"W": True, "V": False})
        u, _ = t.update(jax.tree.map(jnp.asarray, g), t.init(g))
        ref = g["W"] - scale * g["W"].mean(-1, keepdims=True)
        np.testing.assert_allclose(np.asarray(u["W"]), ref, rtol=0, atol=4 * np.finfo(np.float32).eps)
        assert np.array_equal(np.asarray(u["V"]), g["V"])  # untouched: the same array
    # a callable mask and another class axis
    t = center_classifier_rows(axis=0, mask=lambda p: {"W": True, "V": False})
    u, _ = t.update(jax.tree.map(jnp.asarray, g), t.init(g))
    np.testing.assert_allclose(np.asarray(u["W"]).sum(0), 0.0, atol=1e-5)


def test_scalar_leaf_is_refused():
    t = center_classifier_rows()
    with pytest.raises(ValueError, match="scalar"):
        t.update({"a": jnp.float32(1.0)}, t.init({"a": jnp.float32(1.0)}))


def test_sgd_conserves_the_mean_row_in_float64():
    # in exact arithmetic every centred update sums to zero over the classes, so w-bar never
    # moves; in float64 each step adds at most a few ulps: (mean, subtraction, step, store)
    # ~ (2K + 4) u |W| per coordinate and step, u = 2^-53
    with jax.enable_x64(True):
        K, m, T = 7, 6, 200
        rng = np.random.default_rng(2)
        W = jnp.asarray(rng.standard_normal((m, K)))
        opt = optax.chain(center_classifier_rows(), optax.sgd(0.3))
        st = opt.init(W)
        w0 = W.mean(-1)
        bound = 0.0
        for _ in range(T):
            g = jnp.asarray(rng.standard_normal((m, K)) + 3.0)  # a large common mean to remove
            u, st = opt.update(g, st, W)
            W = optax.apply_updates(W, u)
            assert (
                float(jnp.max(jnp.abs(u.sum(-1)))) <= (2 * K + 4) * 2.0**-53 * float(jnp.max(jnp.abs(u))) * K
            )
            bound += (2 * K + 4) * 2.0**-53 * float(jnp.max(jnp.abs(W)))
        drift = float(jnp.max(jnp.abs(W.mean(-1) - w0)))
        assert drift <= bound
        # without the fix the same gradients move w-bar by about T * 0.3 * 3
        assert bound < 1e-9
