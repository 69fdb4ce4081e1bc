"""`jaxtheory.sims.moe.tasks`: the teachers are what their docstring says (the MoE
teacher is the project's own MLP-MoE forward with its weights), and the digits split is
fixed, disjoint and centred on the training mean."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims import moe
from jaxtheory.sims.moe.tasks import make_task, sample_batch


def test_tanh_teacher_targets():
    t = make_task("teacher", d_in=8, d_out=3, seed=5, n_eval=64)
    c = t.consts
    want = np.tanh(t.eval_x @ c["A"]) @ c["b"] / 8.0
    np.testing.assert_allclose(t.eval_y, want, rtol=1e-4, atol=1e-6)
    assert make_task("teacher", d_in=8, d_out=3, seed=5, n_eval=64) is t  # cached, fixed
    assert not np.allclose(make_task("teacher", d_in=8, d_out=3, seed=6, n_eval=64).eval_y, t.eval_y)


def test_moe_teacher_is_the_mlp_moe_forward_with_unit_output_variance():
    t = make_task("teacher_moe", d_in=8, d_out=2, seed=1, n_eval=256)
    c = t.consts
    m = moe.MoEMLP(N=64, M=4, N_e=16, d_out=2, alpha=0.0)  # soft routing, plain sigmoid gates
    p = {k: jnp.asarray(c[k]) for k in ("W_in", "Q", "W1", "W2", "W_out")}
    f = jax.jit(lambda p: moe.moe_forward(m, p, jnp.asarray(t.eval_x))[0])(p)
    np.testing.assert_allclose(t.eval_y, np.asarray(f) * c["scale"], rtol=2e-4, atol=2e-5)
    assert abs(float(t.eval_y.std()) - 1.0) < 1e-3


def test_digits_split_and_batches():
    t = make_task("digits", seed=0)
    x_tr, y_tr = t.consts["x"], t.consts["y"]
    np.testing.assert_array_equal(y_tr.sum(-1), 1.0)  # one-hot
    assert x_tr.shape == (1438, 64) and t.eval_x.shape == (359, 64)  # 1797 images, 20% held out
    np.testing.assert_allclose(x_tr.mean(axis=0), 0.0, atol=1e-5)
    np.testing.assert_array_equal(t.eval_y.argmax(-1), t.labels)
    assert set(np.unique(t.labels)) == set(range(10))
    # no evaluation image is also a training image
    tr = {r.tobytes() for r in np.round(x_tr, 5)}
    assert sum(r.tobytes() in tr for r in np.round(t.eval_x, 5)) < 5  # digits has a few duplicates
    x, y = jax.jit(lambda k: sample_batch(t, k, 16))(jax.random.key(0))
    rows = {r.tobytes() for r in np.round(x_tr, 5)}
    assert all(r.tobytes() in rows for r in np.round(np.asarray(x), 5))
