"""Two-phase optimizers: exact identities (float64), optax.lookahead, numpy references.

Problem: least squares on a fixed random dataset; minibatch indices are pre-drawn so
that every optimizer sees the same data (worker m at step t uses IDX[t, m]).
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    DiLoCoEFState,
    TwoPhaseState,
    diloco,
    diloco_ef,
    identity_compressor,
    lookahead,
    replicate_workers,
    slow_params,
    top_k,
)

D, N, B, T, W = 6, 64, 4, 24, 3
_rng = np.random.default_rng(0)
A = _rng.standard_normal((N, D))
Y = A @ _rng.standard_normal(D) + 0.1 * _rng.standard_normal(N)
IDX = _rng.integers(0, N, size=(T, W, B))
X0 = _rng.standard_normal(D)


def grad_at(x, idx):
    a, y = jnp.asarray(A, x.dtype)[idx], jnp.asarray(Y, x.dtype)[idx]
    return a.T @ (a @ x - y) / idx.shape[-1]


def run(opt, x0, workers=None, steps=T):
    """Fast iterates x_t (t = 1..steps) and slow weights after each step."""

    def step(carry, idx):
        x, s = carry
        if workers is None:
            g = grad_at(x, idx[0])
        else:
            g = jax.vmap(grad_at)(x, idx[:workers])
        u, s = opt.update(g, s, x)
        x = optax.apply_updates(x, u)
        return (x, s), (x, slow_params(s))

    _, (xs, slows) = jax.lax.scan(step, (x0, opt.init(x0)), jnp.asarray(IDX[:steps]))
    return xs, slows


def run_sgd(lr, x0):
    opt = optax.sgd(lr)

    def step(carry, idx):
        x, s = carry
        u, s = opt.update(grad_at(x, idx[0]), s, x)
        x = optax.apply_updates(x, u)
        return (x, s), x

    return jax.lax.scan(step, (x0, opt.init(x0)), jnp.asarray(IDX))[1]


@pytest.mark.parametrize("eta,alpha", [(0.1, 0.3)])
def test_lookahead_k1_is_sgd_with_step_alpha_eta(eta, alpha):
    with jax.enable_x64(True):
        x0 = jnp.asarray(X0)
        xs, slows = jax.jit(lambda: run(lookahead(optax.sgd(eta), 1, alpha), x0))()
        ref = jax.jit(lambda: run_sgd(alpha * eta, x0))()
        np.testing.assert_allclose(np.asarray(xs), np.asarray(ref), rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.asarray(slows), np.asarray(ref), rtol=0, atol=1e-12)


@pytest.mark.parametrize("k", [3])
def test_lookahead_alpha1_is_sgd(k):
    with jax.enable_x64(True):
        x0 = jnp.asarray(X0)
        xs, _ = jax.jit(lambda: run(lookahead(optax.sgd(0.05), k, 1.0), x0))()
        ref = jax.jit(lambda: run_sgd(0.05, x0))()
        np.testing.assert_allclose(np.asarray(xs), np.asarray(ref), rtol=0, atol=1e-12)


INNERS = {
    "sgd": lambda: optax.sgd(0.05),
    "momentum": lambda: optax.sgd(0.05, momentum=0.8),
    "adam": lambda: optax.adam(0.02),
}


@pytest.mark.parametrize("inner,reset", [("sgd", False), ("adam", True)])
def test_lookahead_matches_optax_lookahead(inner, reset):
    k, alpha = 4, 0.6
    with jax.enable_x64(True):
        x0 = jnp.asarray(X0)
        ours = lookahead(INNERS[inner](), k, alpha, reset_inner_state=reset)
        xs, slows = jax.jit(lambda: run(ours, x0))()
        ref_opt = optax.lookahead(INNERS[inner](), k, alpha, reset_state=reset)

        def step(carry, idx):
            p, s = carry
            u, s = ref_opt.update(grad_at(p.fast, idx[0]), s, p)
            p = optax.apply_updates(p, u)
            return (p, s), (p.fast, p.slow)

        p0 = optax.LookaheadParams.init_synced(x0)
        _, (fast_ref, slow_ref) = jax.jit(
            lambda: jax.lax.scan(step, (p0, ref_opt.init(p0)), jnp.asarray(IDX))
        )()
        np.testing.assert_allclose(np.asarray(xs), np.asarray(fast_ref), rtol=0, atol=1e-12)
        np.testing.assert_allclose(np.asarray(slows), np.asarray(slow_ref), rtol=0, atol=1e-12)


OUTERS = {
    "avg": lambda: optax.sgd(0.7),
    "nesterov": lambda: optax.sgd(0.7, momentum=0.9, nesterov=True),
}


@pytest.mark.parametrize("inner,outer", [("sgd", "avg"), ("momentum", "nesterov")])
def test_diloco_one_worker_is_lookahead(inner, outer):
    # float64, 1e-13: mathematically identical programs; XLA fuses the vmapped (W = 1)
    # program differently (FMA contraction), so float32 results may differ in the last bit.
    with jax.enable_x64(True):
        x0 = jnp.asarray(X0)
        k = 3
        la = _two_phase_lookahead(INNERS[inner](), OUTERS[outer](), k)
        dl = diloco(INNERS[inner](), OUTERS[outer](), k, 1)
        xs, slows = jax.jit(lambda: run(la, x0))()
        xs1, slows1 = jax.jit(lambda: run(dl, replicate_workers(x0, 1), workers=1))()
        np.testing.assert_allclose(np.asarray(xs1)[:, 0], np.asarray(xs), rtol=0, atol=1e-13)
        np.testing.assert_allclose(np.asarray(slows1), np.asarray(slows), rtol=0, atol=1e-13)


def _two_phase_lookahead(inner, outer, k):
    """Lookahead with an arbitrary outer transform (``lookahead`` builds optax.sgd)."""
    from jaxtheory.optim._two_phase import _two_phase

    return _two_phase(inner, outer, k, None, False)


def _numpy_diloco(eta, alpha, mu, H, workers, rounds, decay_mom=True, comp=None):
    """Independent reference: W workers, H SGD steps, Nesterov outer on the mean pseudo-grad.

    comp: optional deterministic compressor (numpy) with per-worker error feedback.
    """
    theta = X0.copy()
    v = np.zeros(D)
    e = np.zeros((workers, D))
    slows = []
    t = 0
    for _ in range(rounds):
        phis = []
        for m in range(workers):
            phi = theta.copy()
            for j in range(H):
                a, y = A[IDX[t + j, m]], Y[IDX[t + j, m]]
                phi = phi - eta * a.T @ (a @ phi - y) / B
            phis.append(phi)
        deltas = theta - np.stack(phis)
        if comp is not None:
            p = e + deltas
            c = np.stack([comp(p[m]) for m in range(workers)])
            e = p - c
            deltas = c
        delta = deltas.mean(0)
        v = mu * v + delta
        theta = theta - alpha * (delta + mu * v)  # optax.sgd(nesterov=True)
        slows.append(theta.copy())
        t += H
    return np.stack(slows)


@pytest.mark.parametrize("H", [4])
def test_diloco_matches_numpy_reference(H):
    eta, alpha, mu = 0.05, 0.7, 0.9
    with jax.enable_x64(True):
        opt = diloco(optax.sgd(eta), optax.sgd(alpha, momentum=mu, nesterov=True), H, W)
        x0 = replicate_workers(jnp.asarray(X0), W)
        xs, slows = jax.jit(lambda: run(opt, x0, workers=W))()
        ref = _numpy_diloco(eta, alpha, mu, H, W, T // H)
        np.testing.assert_allclose(np.asarray(slows)[H - 1 :: H], ref, atol=1e-12)
        # after each sync every worker restarts from the slow weights
        for m in range(W):
            np.testing.assert_allclose(np.asarray(xs)[H - 1 :: H, m], ref, atol=1e-12)


def _np_top_k(v, k):
    out = np.zeros_like(v)
    idx = np.argsort(-np.abs(v), kind="stable")[:k]
    out[idx] = v[idx]
    return out


def test_diloco_ef_matches_numpy_reference_with_top_k():
    eta, alpha, mu, H = 0.05, 0.7, 0.5, 3
    with jax.enable_x64(True):
        opt = diloco_ef(optax.sgd(eta), optax.sgd(alpha, momentum=mu, nesterov=True), H, W, top_k(2))
        x0 = replicate_workers(jnp.asarray(X0), W)
        _, slows = jax.jit(lambda: run(opt, x0, workers=W))()
        ref = _numpy_diloco(eta, alpha, mu, H, W, T // H, comp=lambda v: _np_top_k(v, 2))
        np.testing.assert_allclose(np.asarray(slows)[H - 1 :: H], ref, atol=1e-12)


def test_diloco_ef_identity_compressor_is_diloco_bit_for_bit():
    # Eagerly (op by op, jit disabled): the two runs then execute exactly the same float32
    # operations, plus the error buffer's 1 * 0 + d = d and d - d = 0, which are exact. Under
    # jit they are two programs, and XLA may contract x + (-lr * g) into an FMA in one and
    # not in the other (as in test_error_feedback's identity test).
    x0 = replicate_workers(jnp.asarray(X0, jnp.float32), W)
    a = diloco(optax.sgd(0.05), optax.sgd(0.7, momentum=0.9), 4, W)
    b = diloco_ef(optax.sgd(0.05), optax.sgd(0.7, momentum=0.9), 4, W, identity_compressor())
    with jax.disable_jit():
        ra = run(a, x0, workers=W)
        rb = run(b, x0, workers=W)
    for u, v in zip(ra, rb):
        np.testing.assert_array_equal(np.asarray(u), np.asarray(v))


def test_diloco_ef_virtual_slow_iterate_follows_uncompressed_outer_sgd():
    """theta - alpha * mean_m e_m advances by -alpha * mean_m Delta_m (Delta taken at theta)."""
    eta, alpha, H = 0.05, 0.8, 2
    with jax.enable_x64(True):
        opt = diloco_ef(optax.sgd(eta), optax.sgd(alpha), H, W, top_k(2))

        def step(carry, idx):
            x, s = carry
            g = jax.vmap(grad_at)(x, idx)
            u, s_new = opt.update(g, s, x)
            fast = x - eta * g  # the fast weights after this inner step
            rec = (s.slow_params, s.error, fast, s_new.slow_params, s_new.error)
            return (optax.apply_updates(x, u), s_new), rec

        x0 = replicate_workers(jnp.asarray(X0), W)
        _, rec = jax.jit(lambda: jax.lax.scan(step, (x0, opt.init(x0)), jnp.asarray(IDX)))()
        theta, e, fast, theta_new, e_new = (np.asarray(r)[H - 1 :: H] for r in rec)
        delta = (theta[:, None] - fast).mean(1)
        virt_before = theta - alpha * e.mean(1)
        virt_after = theta_new - alpha * e_new.mean(1)
        np.testing.assert_allclose(virt_after, virt_before - alpha * delta, rtol=0, atol=1e-12)
        assert np.abs(e_new).max() > 1e-4  # compression really happened


def test_vmap_over_hyperparameters_without_recompiling():
    x0 = jnp.asarray(X0, jnp.float32)

    @jax.jit
    def final(etas, alphas, mus):
        def one(eta, alpha, mu):
            opt = lookahead(optax.sgd(eta, momentum=0.5), 3, alpha, momentum=mu, nesterov=True)
            return run(opt, x0)[1][-1]

        return jax.vmap(one)(etas, alphas, mus)

    a = final(jnp.array([0.02, 0.05]), jnp.array([0.5, 0.8]), jnp.array([0.0, 0.9]))
    b = final(jnp.array([0.03, 0.05]), jnp.array([0.6, 0.8]), jnp.array([0.1, 0.9]))
    assert final._cache_size() == 1
    np.testing.assert_allclose(a[1], b[1], rtol=1e-6)

    @jax.jit
    def final_dl(etas, alphas):
        def one(eta, alpha):
            opt = diloco_ef(optax.sgd(eta), optax.sgd(alpha), 2, W, top_k(2), key=0)
            return run(opt, replicate_workers(x0, W), workers=W)[1][-1]

        return jax.vmap(one)(etas, alphas)

    final_dl(jnp.array([0.02, 0.05]), jnp.array([0.5, 1.0]))
    final_dl(jnp.array([0.03, 0.04]), jnp.array([0.6, 1.0]))
    assert final_dl._cache_size() == 1


def test_schedules_and_inject_hyperparams():
    x0 = jnp.asarray(X0, jnp.float32)
    # the slow step-size schedule counts outer steps: alpha_0 = 1, then alpha_r = 0.5
    sched = lambda r: jnp.where(r < 1, 1.0, 0.5)  # noqa: E731
    inj = optax.inject_hyperparams(optax.sgd)(learning_rate=0.05)
    xs, slow = jax.jit(lambda: run(lookahead(inj, 2, sched), x0, steps=4))()
    phi = x0
    for t in range(4):
        phi = phi - 0.05 * grad_at(phi, jnp.asarray(IDX[t, 0]))
        if t == 1:
            theta = phi  # alpha_0 = 1: slow weights jump to the fast weights
        if t == 3:
            theta = theta + 0.5 * (phi - theta)
            phi = theta
    np.testing.assert_allclose(slow[3], theta, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xs[3], theta, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", ["lookahead", "diloco_ef"])
def test_dtype_preserved_and_chain(kind):
    params = {"w": jnp.ones((3,), jnp.bfloat16), "b": jnp.ones((), jnp.float32)}
    outer = optax.sgd(0.7, momentum=0.9, nesterov=True)
    if kind == "lookahead":
        opt = lookahead(optax.adam(0.1), 2, 0.5, momentum=0.9)
    elif kind == "diloco":
        opt = diloco(optax.adam(0.1), outer, 2, 2)
        params = replicate_workers(params, 2)
    else:
        opt = diloco_ef(optax.sgd(0.1, momentum=0.9), outer, 2, 2, top_k(2), reset_inner_state=True)
        params = replicate_workers(params, 2)
    chained = optax.chain(optax.clip_by_global_norm(1e9), opt)
    state = chained.init(params)
    upd = jax.jit(chained.update)
    for _ in range(4):
        g = jax.tree.map(lambda p: jnp.full_like(p, 0.5), params)
        u, state = upd(g, state, params)
        for a, b in zip(jax.tree.leaves(u), jax.tree.leaves(params)):
            assert a.dtype == b.dtype and a.shape == b.shape
        params = optax.apply_updates(params, u)
    for a, b in zip(jax.tree.leaves(slow_params(state)), [jnp.float32, jnp.bfloat16]):
        assert a.dtype == b
    assert isinstance(state[1], DiLoCoEFState if kind == "diloco_ef" else TwoPhaseState)
    assert int(state[1].step) == 0
    if kind == "diloco_ef":  # the per-worker inner momentum was reset at the last sync
        for t in jax.tree.leaves(state[1].inner_state):
            if jnp.issubdtype(t.dtype, jnp.floating):
                assert t.shape[0] == 2 and not np.any(np.asarray(t, np.float32))
    # after a sync the fast weights equal the slow weights
    fast0 = jax.tree.map(lambda p: p if kind == "lookahead" else p[0], params)
    for a, b in zip(jax.tree.leaves(fast0), jax.tree.leaves(slow_params(state))):
        np.testing.assert_allclose(np.asarray(a, np.float32), np.asarray(b, np.float32), rtol=1e-2)


def test_validation():
    with pytest.raises(ValueError):
        lookahead(optax.sgd(0.1), 0, 0.5)
    with pytest.raises(ValueError):
        lookahead(optax.sgd(0.1), 2.0, 0.5)
    with pytest.raises(ValueError):
        diloco(optax.sgd(0.1), optax.sgd(1.0), 2, 0)
    opt = diloco(optax.sgd(0.1), optax.sgd(1.0), 2, 3)
    with pytest.raises(ValueError):
        opt.init(jnp.zeros(4))
    with pytest.raises(ValueError):
        opt.update(jnp.zeros((3, 4)), opt.init(jnp.zeros((3, 4))), None)


def test_diloco_ef_seed_may_be_an_integer_array():
    # inject_hyperparams turns the int seed into an int32 array; vmap over seeds traces it
    x0 = replicate_workers(jnp.asarray(X0, jnp.float32), W)
    inj = optax.inject_hyperparams(diloco_ef, static_args=("sync_period", "num_workers", "compressor"))(
        optax.sgd(0.05), optax.sgd(1.0), 2, W, top_k(2), key=5
    )
    state = inj.init(x0)
    assert state.hyperparams["key"].dtype == jnp.int32
    np.testing.assert_array_equal(np.asarray(state.inner_state.key), np.asarray(jax.random.PRNGKey(5)))
    keys = jax.vmap(lambda s: diloco_ef(optax.sgd(0.05), optax.sgd(1.0), 2, W, top_k(2), key=s).init(x0).key)(
        jnp.arange(2)
    )
    np.testing.assert_array_equal(np.asarray(keys[1]), np.asarray(jax.random.PRNGKey(1)))
