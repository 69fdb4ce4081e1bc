"""The attention-only transformer against a float64 numpy reference; patching identities; training."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.nets import transformer as tf


def _reference(params, tokens, patch=None):
    """Loop-by-loop float64 numpy forward pass (independent of the einsum implementation)."""
    p = {k: np.asarray(v, np.float64) for k, v in params.items()}
    n_layers, n_heads, d, dh = p["wq"].shape
    T = len(tokens)
    x = p["embed"][np.asarray(tokens)] + p["pos"][:T]
    heads = np.zeros((n_layers, n_heads, T, d))
    for layer in range(n_layers):
        new = np.zeros_like(x)
        for h in range(n_heads):
            q, k, v = (x @ p[w][layer, h] for w in ("wq", "wk", "wv"))
            out = np.zeros((T, d))
            for i in range(T):
                s = np.array([q[i] @ k[j] / np.sqrt(dh) for j in range(i + 1)])
                a = np.exp(s - s.max())
                a /= a.sum()
                out[i] = sum(a[j] * v[j] for j in range(i + 1)) @ p["wo"][layer, h]
            if patch is not None and patch[0][layer, h]:
                out = np.asarray(patch[1][layer, h], np.float64)
            heads[layer, h] = out
            new += out
        x = x + new
    return x @ p["unembed"], heads


@pytest.fixture(scope="module")
def small():
    params = tf.init(jax.random.key(0), 11, 6, d_model=16, n_layers=2, n_heads=2)
    tokens = jnp.array([0, 3, 7, 3, 10, 1])
    return params, tokens


def test_forward_matches_float64_reference(small):
    params, tokens = small
    logits, heads = tf.forward(params, tokens)
    ref_logits, ref_heads = _reference(params, tokens)
    # float32 against float64 through two layers of O(1) activations: a few ulps of
    # float32 (1.2e-7) times the depth and the sums of 16 terms, well inside 1e-4
    np.testing.assert_allclose(np.asarray(heads), ref_heads, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(logits), ref_logits, rtol=1e-4, atol=1e-4)
    # the residual stream is the embeddings plus every head's output, by construction
    x = params["embed"][tokens] + params["pos"][:6] + heads.sum((0, 1))
    np.testing.assert_allclose(np.asarray(x @ params["unembed"]), np.asarray(logits), rtol=1e-5, atol=1e-5)


def test_causal_outputs_ignore_the_future(small):
    params, tokens = small
    _, heads = tf.forward(params, tokens)
    _, heads2 = tf.forward(params, tokens.at[-1].set(5))
    # positions before the changed last token see the same prefix: the same program on
    # the same numbers up to there (masked scores are exactly -1e9 → weight exactly 0)
    np.testing.assert_allclose(np.asarray(heads[:, :, :-1]), np.asarray(heads2[:, :, :-1]), rtol=0, atol=1e-6)


def test_patching_with_own_output_is_identity(small):
    params, tokens = small
    logits, heads = tf.forward(params, tokens)
    for mask in (jnp.ones((2, 2)), jnp.eye(2), jnp.zeros((2, 2)).at[1, 0].set(1.0), jnp.ones((2, 2, 6))):
        lp, hp = tf.forward(params, tokens, (mask, heads))
        # o + m (o - o) with the same o: the identical numbers wherever the mask acts
        np.testing.assert_allclose(np.asarray(lp), np.asarray(logits), rtol=0, atol=1e-6)
        np.testing.assert_allclose(np.asarray(hp), np.asarray(heads), rtol=0, atol=1e-6)


def test_patching_matches_reference_with_foreign_values(small):
    params, tokens = small
    other = jnp.array([0, 2, 7, 4, 10, 9])
    _, heads_other = tf.forward(params, other)
    mask = np.zeros((2, 2), bool)
    mask[0, 1] = True
    lp, hp = tf.forward(params, tokens, (jnp.asarray(mask, jnp.float32), heads_other))
    ref_l, ref_h = _reference(params, tokens, (mask, np.asarray(heads_other)))
    np.testing.assert_allclose(np.asarray(lp), ref_l, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(hp), ref_h, rtol=1e-4, atol=1e-4)
    # the patched head carries the other run's output, and a later head sees it
    np.testing.assert_allclose(np.asarray(hp[0, 1]), np.asarray(heads_other[0, 1]), rtol=0, atol=0)


def test_bad_input_is_refused(small):
    params, tokens = small
    with pytest.raises(ValueError, match="one sequence"):
        tf.forward(params, tokens[None])
    with pytest.raises(ValueError, match="positional table"):
        tf.forward(params, jnp.zeros(7, int))
    with pytest.raises(ValueError, match="patch mask"):
        tf.forward(params, tokens, (jnp.ones(3), jnp.zeros((2, 2, 6, 16))))
    with pytest.raises(ValueError, match=">= 1"):
        tf.init(jax.random.key(0), 0, 4)


def test_fit_learns_a_copy_task():
    params = tf.init(jax.random.key(0), 5, 4, d_model=8, n_layers=1, n_heads=2)

    def sample(k):
        t = jax.random.randint(k, (32, 4), 0, 5)
        return t, t[:, 1]  # predict the second token at the last position

    params, losses = tf.fit(params, sample, jax.random.key(1), steps=150, learning_rate=3e-2)
    assert losses.shape == (150,)
    # chance is ln 5 = 1.61; the copy is learned well within 150 Adam steps
    assert float(losses[-10:].mean()) < 0.1 < float(losses[0])
