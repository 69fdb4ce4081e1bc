"""Vignettes, minimal pairs and the planted divergence head."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.nets import interp, tom
from jaxtheory.sims.nets import transformer as tf


def test_vignette_layout_and_answers():
    tokens, targets = jax.jit(tom.sample_training, static_argnums=1)(jax.random.key(0), 400)
    t, y = np.asarray(tokens), np.asarray(targets)
    assert t.shape == (400, tom.SEQ_LEN)
    assert (t[:, 0] == tom.BOS).all()
    belief = t[:, 2] == tom.BELIEF
    assert set(np.unique(t[:, 2])) == {tom.BELIEF, tom.PHOTO}
    assert np.isin(t[belief, 1], tom.AGENTS).all() and np.isin(t[~belief, 1], tom.CAMERAS).all()
    assert np.isin(t[:, 3], tom.LOCATIONS).all() and np.isin(t[:, 6], tom.LOCATIONS).all()
    assert np.isin(t[:, 4:6], tom.FILLERS).all()
    # the answer is exactly the divergence of stored and world
    np.testing.assert_array_equal(y, np.where(t[:, 3] != t[:, 6], tom.FALSE, tom.TRUE))
    assert 0.4 < (y == tom.FALSE).mean() < 0.6  # changed w.p. 1/2; 400 draws: ± 0.1 is 4 SE


def test_minimal_pairs_differ_only_in_the_world_token():
    p = jax.jit(tom.minimal_pairs, static_argnums=1)(jax.random.key(1), 50)
    c, r = np.asarray(p["clean"]), np.asarray(p["corrupt"])
    np.testing.assert_array_equal(c[:, :-1], r[:, :-1])
    assert (c[:, -1] != c[:, 3]).all() and (r[:, -1] == r[:, 3]).all()
    np.testing.assert_array_equal(np.asarray(p["kind"]), np.repeat([0, 1], 50))
    np.testing.assert_array_equal(c[:, 2], np.where(np.asarray(p["kind"]) == 0, tom.BELIEF, tom.PHOTO))


def test_rsa_set_matches_condition_table():
    t, cond = jax.jit(tom.rsa_set, static_argnums=1)(jax.random.key(2), 3)
    t, cond = np.asarray(t), np.asarray(cond)
    loc = {v: i for i, v in enumerate(tom.LOCATIONS)}
    np.testing.assert_array_equal([loc[v] for v in t[:, 3]], tom.CONDITIONS["stored"][cond])
    np.testing.assert_array_equal([loc[v] for v in t[:, 6]], tom.CONDITIONS["world"][cond])
    np.testing.assert_array_equal(t[:, 2] == tom.PHOTO, tom.CONDITIONS["kind"][cond] == 1)
    np.testing.assert_array_equal(tom.CONDITIONS["divergence"], [0, 1, 1, 0, 0, 1, 1, 0])


def test_planted_head_solves_the_task_and_is_recovered():
    @jax.jit  # one compile for the whole pipeline (eager, every op would compile on its own)
    def pipeline(k1, k2):
        pairs = tom.minimal_pairs(k2, 32)
        return interp.patch_heads(
            tf.forward, tom.planted_model(k1), pairs["clean"], pairs["corrupt"], tom.logit_diff
        )

    out = pipeline(jax.random.key(3), jax.random.key(5))
    # it answers every changed vignette FALSE (> 0) and every unchanged one TRUE (< 0)
    assert (out["clean"] > 0).all() and (out["corrupt"] < 0).all()
    eff = interp.normalized_effects(out["patched"], out["clean"], out["corrupt"]).mean(0)
    assert np.unravel_index(np.argmax(eff), eff.shape) == tom.PLANTED_HEAD
    # the planted head carries (almost) the whole effect, the random heads (almost) none
    assert eff[tom.PLANTED_HEAD] > 0.9 and np.abs(np.delete(eff.ravel(), 0)).max() < 0.1
    with pytest.raises(ValueError, match="d_model"):
        tom.planted_model(jax.random.key(0), d_model=16)


def test_logit_diff():
    lg = jnp.zeros((tom.SEQ_LEN, tom.VOCAB)).at[-1, tom.TRUE].set(1.5)
    assert float(tom.logit_diff(lg)) == -1.5
