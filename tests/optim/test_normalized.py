"""NSGD-M and normalized STORM against hand-written numpy updates, and their contracts.

References are written independently in float64 numpy from the update equations of
arXiv:2605.15314 (NSGD-M: m_0 = g_0, m_t = beta m_{t-1} + (1 - beta) g_t,
x_{t+1} = x_t - eta m_t / ||m_t||; STORM: d_0 = g_0,
d_t = g_t + (1 - a)(d_{t-1} - g(x_{t-1}; xi_t)), same normalized step). Float32
transforms are compared with rtol 2e-5; float64 checks (stated per test) use 1e-12.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    NormalizedMomentumState,
    NormalizedStormState,
    normalized_sgd_momentum,
    normalized_storm,
    two_point_grad,
)

SHAPES = {"w": (3, 4), "b": (5,), "inner": {"s": ()}}
STEPS = 6


def _tree(rng, dtype=np.float32, scale=1.0):
    return jax.tree.map(
        lambda shp: jnp.asarray(scale * rng.standard_normal(shp), dtype),
        SHAPES,
        is_leaf=lambda x: isinstance(x, tuple),
    )


def _leaves64(tree):
    return [np.asarray(x, np.float64) for x in jax.tree.leaves(tree)]


def _np_normalize(vecs, lr, per_leaf):
    if per_leaf:
        out = []
        for v in vecs:
            n = np.sqrt((v**2).sum())
            out.append(-lr * v / n if n > 0 else np.zeros_like(v))
        return out
    n = np.sqrt(sum((v**2).sum() for v in vecs))
    return [-lr * v / n if n > 0 else np.zeros_like(v) for v in vecs]


def _np_nsgdm(grads, lrs, betas, per_leaf):
    """Reference NSGD-M: returns the list of update leaf-lists."""
    m, out = None, []
    for t, g in enumerate(grads):
        m = (
            [gi.copy() for gi in g]
            if t == 0
            else [betas[t] * mi + (1 - betas[t]) * gi for mi, gi in zip(m, g)]
        )
        out.append(_np_normalize(m, lrs[t], per_leaf))
    return out


def _np_storm(grads, prev_grads, lrs, a_s, per_leaf):
    d, out = None, []
    for t, (g, gp) in enumerate(zip(grads, prev_grads)):
        d = (
            [gi.copy() for gi in g]
            if t == 0
            else [gi + (1 - a_s[t]) * (di - gpi) for di, gi, gpi in zip(d, g, gp)]
        )
        out.append(_np_normalize(d, lrs[t], per_leaf))
    return out


def _assert_close(tree, ref_leaves, rtol=2e-5, atol=1e-6):
    for got, want in zip(_leaves64(tree), ref_leaves):
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("per_leaf, scheduled", [(False, False), (True, True)])
def test_nsgdm_matches_numpy_reference(per_leaf, scheduled):
    rng = np.random.default_rng(0)
    grads = [_tree(rng) for _ in range(STEPS)]
    if scheduled:
        lr = lambda t: 0.3 / (1.0 + t)  # noqa: E731
        beta = lambda t: 0.5 + 0.05 * t  # noqa: E731
    else:
        lr, beta = 0.3, 0.8
    lrs = [lr(t) if scheduled else lr for t in range(STEPS)]
    betas = [beta(t) if scheduled else beta for t in range(STEPS)]
    ref = _np_nsgdm([_leaves64(g) for g in grads], lrs, betas, per_leaf)
    opt = normalized_sgd_momentum(lr, beta, per_leaf=per_leaf)
    params = _tree(rng)
    state = opt.init(params)
    assert isinstance(state, NormalizedMomentumState)
    update = jax.jit(opt.update)
    for t in range(STEPS):
        updates, state = update(grads[t], state, params)
        _assert_close(updates, ref[t])
    assert int(state.count) == STEPS


@pytest.mark.parametrize("per_leaf", [False])
def test_storm_matches_numpy_reference(per_leaf):
    rng = np.random.default_rng(1)
    grads = [_tree(rng) for _ in range(STEPS)]
    prevs = [_tree(rng) for _ in range(STEPS)]
    a = lambda t: 1.0 / (2.0 + t)  # noqa: E731
    ref = _np_storm(
        [_leaves64(g) for g in grads],
        [_leaves64(g) for g in prevs],
        [0.2] * STEPS,
        [a(t) for t in range(STEPS)],
        per_leaf,
    )
    opt = normalized_storm(0.2, a=a, per_leaf=per_leaf)
    state = opt.init(grads[0])
    assert isinstance(state, NormalizedStormState)
    update = jax.jit(opt.update)
    for t in range(STEPS):
        updates, state = update(grads[t], state, None, prev_grad=prevs[t])
        _assert_close(updates, ref[t])


def test_step_length_and_travel_invariant_float64():
    """Float64, 1e-12: every step has length exactly eta_t (globally, or per leaf with
    per_leaf=True), so ||x_t - x_0|| <= sum_{s<t} eta_s on random gradient sequences."""
    with jax.enable_x64(True):
        rng = np.random.default_rng(3)
        lr = lambda t: 0.5 / jnp.sqrt(1.0 + t)  # noqa: E731
        opts = [
            (optax.with_extra_args_support(normalized_sgd_momentum(lr, 0.9)), False),
            (normalized_storm(lr, a=0.3), False),
            (optax.with_extra_args_support(normalized_sgd_momentum(lr, 0.9, per_leaf=True)), True),
        ]
        for opt, per_leaf in opts:
            x0 = _tree(rng, np.float64)
            x, state, budget = x0, opt.init(x0), 0.0
            update = jax.jit(opt.update)
            for t in range(12):
                g = _tree(rng, np.float64, scale=10.0)
                updates, state = update(g, state, x, prev_grad=_tree(rng, np.float64))
                eta = float(lr(t))
                leaves = _leaves64(updates)
                if per_leaf:
                    for leaf in leaves:
                        assert abs(np.sqrt((leaf**2).sum()) - eta) < 1e-12
                    continue
                assert abs(np.sqrt(sum((v**2).sum() for v in leaves)) - eta) < 1e-12
                x = optax.apply_updates(x, updates)
                budget += eta
                dist = np.sqrt(sum(((a - b) ** 2).sum() for a, b in zip(_leaves64(x), _leaves64(x0))))
                assert dist <= budget * (1 + 1e-12)


def test_zero_direction_gives_zero_step():
    zeros = jax.tree.map(jnp.zeros_like, _tree(np.random.default_rng(4)))
    for per_leaf in (False, True):
        opt = normalized_sgd_momentum(0.1, 0.5, per_leaf=per_leaf)
        updates, _ = opt.update(zeros, opt.init(zeros))
        for leaf in _leaves64(updates):
            assert np.all(leaf == 0.0)
    opt = normalized_storm(0.1, 0.5)
    updates, _ = opt.update(zeros, opt.init(zeros), prev_grad=zeros)
    assert all(np.all(leaf == 0.0) for leaf in _leaves64(updates))


def test_storm_identities():
    """Exact identities: a = 1 is normalized SGD; prev_grad = grad is NSGD-M, beta = 1 - a."""
    rng = np.random.default_rng(5)
    grads = [_tree(rng) for _ in range(4)]
    prevs = [_tree(rng) for _ in range(4)]
    pairs = [
        (normalized_storm(0.1, a=1.0), normalized_sgd_momentum(0.1, beta=0.0), prevs),
        (normalized_storm(0.1, a=0.25), normalized_sgd_momentum(0.1, beta=0.75), grads),
    ]
    for storm, nsgdm, prev_seq in pairs:
        s1, s2 = storm.init(grads[0]), nsgdm.init(grads[0])
        for g, gp in zip(grads, prev_seq):
            u1, s1 = storm.update(g, s1, prev_grad=gp)
            u2, s2 = nsgdm.update(g, s2)
            for a, b in zip(_leaves64(u1), _leaves64(u2)):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_storm_requires_prev_grad():
    opt = normalized_storm(0.1)
    p = jnp.ones(3)
    with pytest.raises(ValueError, match="prev_grad"):
        opt.update(p, opt.init(p))


def test_two_point_grad_matches_separate_grads():
    def loss(params, batch, scale=1.0):
        return scale * jnp.sum(jnp.tanh(params["w"] @ batch) ** 2) + jnp.sum(params["b"] ** 4)

    rng = np.random.default_rng(6)
    p = {
        "w": jnp.asarray(rng.standard_normal((3, 4)), jnp.float32),
        "b": jnp.asarray(rng.standard_normal(2), jnp.float32),
    }
    q = jax.tree.map(lambda x: x + 0.3, p)
    batch = jnp.asarray(rng.standard_normal(4), jnp.float32)
    g, gq = jax.jit(two_point_grad(loss))(p, q, batch, scale=2.0)
    ref = jax.jit(jax.grad(loss))
    for got, want in ((g, ref(p, batch, 2.0)), (gq, ref(q, batch, 2.0))):
        for a, b in zip(jax.tree.leaves(got), jax.tree.leaves(want)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)

    def loss_aux(params, batch):
        v = loss(params, batch)
        return v, {"loss": v}

    g2, gq2, (aux, aux_q) = jax.jit(two_point_grad(loss_aux, has_aux=True))(p, q, batch)
    np.testing.assert_allclose(aux["loss"], jax.jit(loss)(p, batch), rtol=1e-6)
    np.testing.assert_allclose(aux_q["loss"], jax.jit(loss)(q, batch), rtol=1e-6)
    np.testing.assert_allclose(g2["b"], ref(p, batch)["b"], rtol=1e-5)


def _run_three_steps(opt_fn, lr, mom, grads, storm):
    opt = opt_fn(lr, mom)
    state = opt.init(grads[0])
    out = []
    for g in grads:
        kw = {"prev_grad": jax.tree.map(lambda x: 0.5 * x, g)} if storm else {}
        u, state = opt.update(g, state, **kw)
        out.append(u)
    return out


@pytest.mark.parametrize("storm", [False, True])
def test_traced_hyperparameters_vmap_without_recompiling(storm):
    """A grid of (lr, momentum) runs in one compiled program; new values reuse it."""
    opt_fn = (lambda lr, m: normalized_storm(lr, a=m)) if storm else normalized_sgd_momentum
    grads = [_tree(np.random.default_rng(7 + i)) for i in range(3)]
    fn = jax.jit(jax.vmap(lambda lr, m: _run_three_steps(opt_fn, lr, m, grads, storm)))
    lrs, moms = jnp.array([0.1, 0.2, 0.5]), jnp.array([0.0, 0.5, 0.9])
    batched = fn(lrs, moms)
    fn(lrs * 2.0, moms * 0.5)
    assert fn._cache_size() == 1
    single = _run_three_steps(opt_fn, 0.2, 0.5, grads, storm)
    for step_b, step_s in zip(batched, single):
        for a, b in zip(jax.tree.leaves(step_b), jax.tree.leaves(step_s)):
            np.testing.assert_allclose(np.asarray(a)[1], b, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float32])
def test_dtypes_preserved(dtype):
    params = jax.tree.map(lambda x: x.astype(dtype), _tree(np.random.default_rng(8)))
    lr = jnp.float32(0.1)  # a float32 hyperparameter must not promote the updates
    for opt, kw in (
        (normalized_sgd_momentum(lr, 0.9), {}),
        (normalized_storm(lr, 0.1), {"prev_grad": params}),
    ):
        state = opt.init(params)
        for _ in range(2):
            updates, state = opt.update(params, state, params, **kw)
        for u, s, p in zip(jax.tree.leaves(updates), jax.tree.leaves(state[1]), jax.tree.leaves(params)):
            assert u.dtype == p.dtype and s.dtype == p.dtype
        assert jax.tree.map(lambda a: a.dtype, optax.apply_updates(params, updates)) == jax.tree.map(
            lambda a: a.dtype, params
        )


def test_inside_chain_and_inject_hyperparams():
    rng = np.random.default_rng(9)
    grads = [_tree(rng, scale=5.0) for _ in range(4)]
    prevs = [_tree(rng) for _ in range(4)]
    params = _tree(rng)

    def run(opt, with_prev):
        state, out = opt.init(params), []
        for g, gp in zip(grads, prevs):
            kw = {"prev_grad": gp} if with_prev else {}
            u, state = opt.update(g, state, params, **kw)
            out.append(u)
        return out, state

    def close(xs, ys):
        for a, b in zip(jax.tree.leaves(xs), jax.tree.leaves(ys)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)

    # chain: clipping the gradients first, then the normalized step.
    clip = optax.clip_by_global_norm(1.0)
    for factory, with_prev in ((normalized_sgd_momentum, False), (normalized_storm, True)):
        base, _ = run(factory(0.1, 0.5), with_prev)
        chained, _ = run(optax.chain(optax.identity(), factory(0.1, 0.5)), with_prev)
        close(base, chained)
        # Clipping before a normalized step: the step length is unchanged.
        clipped, _ = run(optax.chain(clip, factory(0.1, 0.5)), with_prev)
        for u in clipped:
            assert abs(optax.tree.norm(u) - 0.1) < 1e-5
        # inject_hyperparams: same updates, and the injected learning rate can be changed.
        injected = optax.inject_hyperparams(factory)(0.1, 0.5)
        ups, state = run(injected, with_prev)
        close(base, ups)
        state.hyperparams["learning_rate"] = jnp.float32(0.3)
        kw = {"prev_grad": prevs[0]} if with_prev else {}
        u, _ = injected.update(grads[0], state, params, **kw)
        assert abs(optax.tree.norm(u) - 0.3) < 1e-5
