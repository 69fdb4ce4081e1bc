"""Error feedback: exact identities (identity compressor, virtual iterate) and numpy references.

Problem: least squares on a fixed random dataset, stochastic minibatch gradients from a
pre-drawn index sequence (so every run sees the same data).
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    error_feedback,
    identity_compressor,
    qsgd,
    rand_k,
    scaled_sign,
    top_k,
)

D, N, B, T, W = 8, 64, 4, 40, 3
_rng = np.random.default_rng(0)
A = _rng.standard_normal((N, D))
Y = A @ _rng.standard_normal(D) + 0.1 * _rng.standard_normal(N)
IDX = _rng.integers(0, N, size=(T, W, B))


def grad_at(x, idx):
    a, y = jnp.asarray(A, x.dtype)[idx], jnp.asarray(Y, x.dtype)[idx]
    return a.T @ (a @ x - y) / idx.shape[-1]


def run(opt, x0, workers=None):
    """Returns x_T and the stacked (x_t, e_t, g_t), t = 0..T-1 (e_t: buffer before step t)."""

    def step(carry, idx):
        x, s = carry
        if workers is None:
            g = grad_at(x, idx[0])
        else:
            g = jax.vmap(lambda i: grad_at(x, i))(idx)
        u, s_new = opt.update(g, s, x)
        x_new = optax.apply_updates(x, u)
        return (x_new, s_new), (x, s.error, g)

    (xT, _), (xs, es, gs) = jax.lax.scan(step, (x0, opt.init(x0)), jnp.asarray(IDX))
    return xT, xs, es, gs


def test_identity_compressor_is_sgd_bit_for_bit():
    # Run eagerly (op by op): under jit XLA may contract x + (-lr * g) into an FMA in one
    # program and not in the other, which changes the last bit of an otherwise identical
    # computation. Eagerly both runs execute exactly the same float32 operations.
    x0 = jnp.zeros(D, jnp.float32)
    for inner in [optax.sgd(0.05), optax.sgd(0.05, momentum=0.9, nesterov=True)]:
        opt = error_feedback(inner, identity_compressor())
        x, s, xr, sr = x0, opt.init(x0), x0, inner.init(x0)
        for t in range(15):
            u, s = opt.update(grad_at(x, IDX[t, 0]), s, x)
            x = optax.apply_updates(x, u)
            ur, sr = inner.update(grad_at(xr, IDX[t, 0]), sr, xr)
            xr = optax.apply_updates(xr, ur)
            np.testing.assert_array_equal(np.asarray(x), np.asarray(xr))
            assert np.all(np.asarray(s.error) == 0)
        assert np.abs(np.asarray(x)).max() > 0.1


COMPRESSORS = [top_k(2), rand_k(2), qsgd(1), scaled_sign()]


@pytest.mark.parametrize("comp", COMPRESSORS, ids=lambda c: c.name)
def test_virtual_iterate_follows_sgd(comp):
    # float64 so that the identity x_t - e_t = x0 - eta * sum_{s<t} g_s is checked tightly
    with jax.enable_x64(True):
        eta = 0.05
        x0 = jnp.asarray(_rng.standard_normal(D))
        _, xs, es, gs = jax.jit(lambda: run(error_feedback(optax.sgd(eta), comp, key=7), x0))()
        xs, es, gs = map(np.asarray, (xs, es, gs))
        virtual = xs - es  # x_t - e_t, t = 0..T-1
        ref = np.asarray(x0) - eta * np.concatenate([np.zeros((1, D)), np.cumsum(gs, 0)[:-1]])
        np.testing.assert_allclose(virtual, ref, rtol=0, atol=1e-12)
        assert np.abs(es).max() > 1e-3  # compression really happened


def test_virtual_iterate_with_workers():
    with jax.enable_x64(True):
        eta = 0.05
        x0 = jnp.zeros(D)
        opt = error_feedback(optax.sgd(eta), rand_k(2), num_workers=W, key=1)
        _, xs, es, gs = jax.jit(lambda: run(opt, x0, workers=W))()
        xs, es, gs = map(np.asarray, (xs, es, gs))
        assert es.shape == (T, W, D) and gs.shape == (T, W, D)
        virtual = xs - es.mean(1)
        gbar = gs.mean(1)
        ref = -eta * np.concatenate([np.zeros((1, D)), np.cumsum(gbar, 0)[:-1]])
        np.testing.assert_allclose(virtual, ref, atol=1e-12)
        # per-worker buffers differ (independent compressor keys)
        assert np.abs(es[-1, 0] - es[-1, 1]).max() > 1e-6


def _numpy_top_k(v, k):
    out = np.zeros_like(v)
    idx = np.argsort(-np.abs(v), kind="stable")[:k]
    out[idx] = v[idx]
    return out


def test_ef14_matches_numpy_reference_with_momentum():
    """EF-SGD (error feedback: compress the base step plus the carried error, carry what the
    compressor dropped) around heavy-ball, written independently in numpy."""
    with jax.enable_x64(True):
        eta, mu = 0.05, 0.5
        x0 = np.zeros(D)
        opt = error_feedback(optax.sgd(eta, momentum=mu), top_k(3))
        xT, xs, es, _ = jax.jit(lambda: run(opt, jnp.asarray(x0)))()
        x, e, m = x0.copy(), np.zeros(D), np.zeros(D)
        for t in range(T):
            a, y = A[IDX[t, 0]], Y[IDX[t, 0]]
            g = a.T @ (a @ x - y) / B
            m = mu * m + g
            p = e + eta * m
            c = _numpy_top_k(p, 3)
            e = p - c
            x = x - c
        np.testing.assert_allclose(np.asarray(xT), x, atol=1e-12)


def test_ef21_matches_numpy_reference_and_converges():
    """EF21 (Richtarik et al. 2021, Alg. 1 with g_i^0 = C(grad f_i(x^0))) on W quadratics."""
    with jax.enable_x64(True):
        gamma, steps = 0.1, 400
        rng = np.random.default_rng(1)
        Q = [np.diag(rng.uniform(0.5, 2.0, D)) for _ in range(W)]
        bvec = rng.standard_normal((W, D))
        Qj, bj = jnp.asarray(np.stack(Q)), jnp.asarray(bvec)
        opt = error_feedback(optax.sgd(gamma), top_k(2), variant="ef21", num_workers=W)

        def step(carry, _):
            x, s = carry
            g = jnp.einsum("wij,j->wi", Qj, x) - bj
            u, s = opt.update(g, s, x)
            return (optax.apply_updates(x, u), s), x

        x0 = jnp.zeros(D)
        (xT, _), xs = jax.jit(lambda: jax.lax.scan(step, (x0, opt.init(x0)), None, length=steps))()
        # numpy reference
        x = np.zeros(D)
        h = np.stack([_numpy_top_k(Q[m] @ x - bvec[m], 2) for m in range(W)])
        ref = [x.copy()]
        for _ in range(steps - 1):
            x = x - gamma * h.mean(0)
            ref.append(x.copy())
            h = h + np.stack([_numpy_top_k(Q[m] @ x - bvec[m] - h[m], 2) for m in range(W)])
        np.testing.assert_allclose(np.asarray(xs), np.stack(ref), atol=1e-10)
        xstar = np.linalg.solve(sum(Q), bvec.sum(0))
        np.testing.assert_allclose(np.asarray(xT), xstar, atol=1e-8)


def test_ef21_identity_compressor_is_gd():
    with jax.enable_x64(True):
        x0 = jnp.zeros(D)
        _, xs, _, _ = jax.jit(
            lambda: run(error_feedback(optax.sgd(0.05), identity_compressor(), variant="ef21"), x0)
        )()
        _, xs_ref, _, _ = jax.jit(lambda: run(error_feedback(optax.sgd(0.05), identity_compressor()), x0))()
        np.testing.assert_allclose(np.asarray(xs), np.asarray(xs_ref), atol=1e-12)


def test_vmap_over_learning_rate_without_recompiling():
    x0 = jnp.zeros(D)

    @jax.jit
    def final(lrs):
        return jax.vmap(lambda lr: run(error_feedback(optax.sgd(lr), top_k(2)), x0)[0])(lrs)

    a = final(jnp.array([0.01, 0.05]))
    b = final(jnp.array([0.02, 0.05]))
    assert final._cache_size() == 1
    np.testing.assert_allclose(a[1], b[1], rtol=1e-6)
    # inject_hyperparams works too, and a lane equals the unbatched run
    opt = error_feedback(optax.inject_hyperparams(optax.sgd)(learning_rate=0.01), top_k(2))
    np.testing.assert_allclose(jax.jit(lambda: run(opt, x0)[0])(), a[0], rtol=1e-5, atol=1e-6)


def test_dtype_preserved_and_works_in_chain():
    x = {"w": jnp.ones((3,), jnp.bfloat16), "b": jnp.ones((), jnp.float32)}
    for variant in ("ef14", "ef21"):
        opt = optax.chain(
            optax.clip_by_global_norm(1e9),
            error_feedback(optax.sgd(0.1, momentum=0.9), top_k(2), variant=variant),
        )
        state = opt.init(x)
        g = jax.tree.map(lambda p: jnp.full_like(p, 0.5), x)
        u, state = jax.jit(opt.update)(g, state, x)
        for leaf, ref in zip(jax.tree.leaves(u), jax.tree.leaves(x)):
            assert leaf.dtype == ref.dtype
        for leaf, ref in zip(jax.tree.leaves(state[1].error), jax.tree.leaves(x)):
            assert leaf.dtype == ref.dtype


def test_validation():
    with pytest.raises(ValueError):
        error_feedback(optax.sgd(0.1), top_k(1), variant="ef3")
    opt = error_feedback(optax.sgd(0.1), top_k(1), num_workers=2)
    x = jnp.zeros(3)
    with pytest.raises(ValueError):
        opt.update(jnp.zeros((3, 3)), opt.init(x), x)


def test_seed_may_be_an_integer_array_traced_or_injected():
    # An int seed given as an integer scalar array (what inject_hyperparams and a vmap over
    # seeds pass) makes the same key as the Python int (checked exactly on the state); the
    # vmapped trajectories are other programs than the looped ones: float32 round-off.
    x0 = jnp.zeros(D, jnp.float32)

    def final(seed):
        return run(error_feedback(optax.sgd(0.05), rand_k(2), key=seed), x0)[0]

    by_int = [jax.jit(lambda s=s: final(s))() for s in (3, 4)]
    by_vmap = jax.jit(jax.vmap(final))(jnp.asarray([3, 4], jnp.int32))
    for i in range(2):
        np.testing.assert_allclose(np.asarray(by_vmap[i]), np.asarray(by_int[i]), rtol=1e-6, atol=1e-7)
    assert np.abs(np.asarray(by_int[0] - by_int[1])).max() > 1e-4  # seeds matter
    inj = optax.inject_hyperparams(error_feedback, static_args=("compressor",))(
        optax.sgd(0.05), rand_k(2), key=3
    )
    assert inj.init(x0).hyperparams["key"].dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(inj.init(x0).inner_state.key), np.asarray(jax.random.PRNGKey(3)))
