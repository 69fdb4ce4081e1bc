"""Stochastic mirror descent and its mirror maps, against closed forms and numpy updates.

Checks: the Euclidean map gives exactly optax.sgd; the entropic map gives the
exponentiated-gradient update x * exp(-eta g) / sum (numpy) and stays on the simplex;
the p-norm map equals the autodiff gradient of 1/2 ||x||_r^2 (and its inverse the
gradient of 1/2 ||theta||_s^2, s = r/(r-1)), round-trips, and satisfies the conjugacy
identities <x, grad psi(x)> = ||x||_r^2 and ||grad psi(x)||_s = ||x||_r (float64,
1e-10). Plus the sweep contracts: traced hyperparameters under vmap, dtypes, chain,
inject_hyperparams.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    entropic_mirror_map,
    euclidean_mirror_map,
    pnorm_mirror_map,
    stochastic_mirror_descent,
)


def _tree(rng, dtype=np.float32):
    return {
        "a": jnp.asarray(rng.standard_normal((3, 4)), dtype),
        "b": jnp.asarray(rng.standard_normal(5), dtype),
    }


def _flat(tree):
    return np.concatenate([np.asarray(x, np.float64).ravel() for x in jax.tree.leaves(tree)])


def test_euclidean_smd_is_sgd():
    rng = np.random.default_rng(0)
    params = _tree(rng)
    sched = lambda t: 0.1 / (1.0 + t)  # noqa: E731
    smd, sgd = stochastic_mirror_descent(sched), optax.sgd(sched)
    s1, s2, p1, p2 = smd.init(params), sgd.init(params), params, params
    for _ in range(4):
        g = _tree(rng)
        u1, s1 = smd.update(g, s1, p1)
        u2, s2 = sgd.update(g, s2, p2)
        p1, p2 = optax.apply_updates(p1, u1), optax.apply_updates(p2, u2)
    np.testing.assert_allclose(_flat(p1), _flat(p2), rtol=1e-6, atol=1e-7)


def test_entropic_smd_is_exponentiated_gradient():
    rng = np.random.default_rng(1)
    raw = {"rows": rng.random((2, 3)) + 0.1, "vec": rng.random(4) + 0.1}
    params = jax.tree.map(lambda x: jnp.asarray(x / x.sum(-1, keepdims=True), jnp.float32), raw)
    opt = stochastic_mirror_descent(0.7, entropic_mirror_map())
    state, ref = opt.init(params), jax.tree.map(lambda x: np.asarray(x, np.float64), params)
    update = jax.jit(opt.update)
    for _ in range(3):
        g = jax.tree.map(lambda x: jnp.asarray(rng.standard_normal(x.shape), jnp.float32), params)
        u, state = update(g, state, params)
        params = optax.apply_updates(params, u)
        ref = jax.tree.map(
            lambda r, gg: (lambda w: w / w.sum(-1, keepdims=True))(
                r * np.exp(-0.7 * np.asarray(gg, np.float64))
            ),
            ref,
            g,
        )
    for got, want in zip(jax.tree.leaves(params), jax.tree.leaves(ref)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(np.asarray(got).sum(-1), 1.0, rtol=1e-6)
        assert np.all(np.asarray(got) > 0)


def test_pnorm_map_closed_forms_float64():
    """Float64: grad psi by autodiff, conjugacy identities, round trip (1e-10)."""
    with jax.enable_x64(True):
        rng = np.random.default_rng(2)
        x = _tree(rng, np.float64)

        def half_sq(t, q):
            flat = jnp.concatenate([jnp.abs(v).ravel() for v in jax.tree.leaves(t)])
            return 0.5 * jnp.sum(flat**q) ** (2.0 / q)

        @jax.jit
        def maps(x, r):
            s = r / (r - 1.0)
            m = pnorm_mirror_map(r)
            theta = m.to_dual(x)
            return (
                theta,
                m.to_primal(theta),
                m.to_primal(x),
                jax.grad(half_sq)(x, r),
                jax.grad(half_sq)(x, s),
            )

        for r in (1.2, 1.5, 2.0):
            s = r / (r - 1.0)
            theta, back, primal_of_x, grad_r, grad_s = maps(x, r)
            np.testing.assert_allclose(_flat(theta), _flat(grad_r), rtol=1e-10)
            np.testing.assert_allclose(_flat(back), _flat(x), rtol=1e-10)
            np.testing.assert_allclose(_flat(primal_of_x), _flat(grad_s), rtol=1e-10)
            xf, tf = _flat(x), _flat(theta)
            norm_r = (np.abs(xf) ** r).sum() ** (1 / r)
            np.testing.assert_allclose(xf @ tf, norm_r**2, rtol=1e-10)
            np.testing.assert_allclose((np.abs(tf) ** s).sum() ** (1 / s), norm_r, rtol=1e-10)
        zero = jax.tree.map(jnp.zeros_like, x)
        theta0, _, primal0, _, _ = maps(zero, 1.3)
        assert np.all(_flat(theta0) == 0) and np.all(_flat(primal0) == 0)


def test_pnorm_default_exponent_and_smd_step():
    """Default r = 1 + 1/ln d; one SMD step equals the numpy formula for that r."""
    rng = np.random.default_rng(3)
    d = 1000
    x = jnp.asarray(rng.standard_normal(d), jnp.float32)
    g = jnp.asarray(rng.standard_normal(d), jnp.float32)
    r = 1.0 + 1.0 / math.log(d)
    s = r / (r - 1.0)

    def link(v, q):
        n = (np.abs(v) ** q).sum() ** (1 / q)
        return np.sign(v) * np.abs(v) ** (q - 1) * n ** (2 - q)

    xd, gd = np.asarray(x, np.float64), np.asarray(g, np.float64)
    want = link(link(xd, r) - 0.01 * gd, s)
    opt = stochastic_mirror_descent(0.01, pnorm_mirror_map())
    u, _ = jax.jit(opt.update)(g, opt.init(x), x)
    np.testing.assert_allclose(np.asarray(x + u, np.float64), want, rtol=2e-4, atol=2e-4 * np.abs(want).max())
    np.testing.assert_allclose(_flat(pnorm_mirror_map().to_dual(x)), link(xd, r), rtol=2e-4, atol=1e-6)


def test_traced_hyperparameters_vmap_without_recompiling():
    rng = np.random.default_rng(4)
    x = _tree(rng)
    grads = [_tree(rng) for _ in range(3)]

    def run(lr, r):
        opt = stochastic_mirror_descent(lr, pnorm_mirror_map(r))
        p, s = x, opt.init(x)
        for g in grads:
            u, s = opt.update(g, s, p)
            p = optax.apply_updates(p, u)
        return p

    fn = jax.jit(jax.vmap(run))
    out = fn(jnp.array([0.1, 0.2]), jnp.array([1.5, 2.0]))
    fn(jnp.array([0.3, 0.05]), jnp.array([1.2, 1.8]))
    assert fn._cache_size() == 1
    single = run(0.2, 2.0)
    np.testing.assert_allclose(_flat(jax.tree.map(lambda v: v[1], out)), _flat(single), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mirror", ["euclidean", "entropic", "pnorm"])
def test_dtype_chain_and_inject(mirror):
    maps = {
        "euclidean": euclidean_mirror_map,
        "entropic": entropic_mirror_map,
        "pnorm": lambda: pnorm_mirror_map(1.5),
    }
    rng = np.random.default_rng(5)
    p32 = jax.tree.map(lambda v: jnp.abs(v) / jnp.abs(v).sum(-1, keepdims=True) + 0.0, _tree(rng))
    g = _tree(rng)
    base = stochastic_mirror_descent(0.1, maps[mirror]())
    u_base, _ = base.update(g, base.init(p32), p32)
    # Inside a chain (after a scaling by 1) and under inject_hyperparams: same update.
    chained = optax.chain(optax.scale(1.0), stochastic_mirror_descent(0.1, maps[mirror]()))
    u_chain, _ = chained.update(g, chained.init(p32), p32)
    injected = optax.inject_hyperparams(stochastic_mirror_descent, static_args="mirror_map")(
        learning_rate=0.1, mirror_map=maps[mirror]()
    )
    u_inj, st = injected.update(g, injected.init(p32), p32)
    for other in (u_chain, u_inj):
        np.testing.assert_allclose(_flat(other), _flat(u_base), rtol=1e-6, atol=1e-7)
    assert float(st.hyperparams["learning_rate"]) == pytest.approx(0.1)
    # bfloat16 parameters stay bfloat16 (float32 learning rate).
    p16 = jax.tree.map(lambda v: v.astype(jnp.bfloat16), p32)
    u16, _ = base.update(g, base.init(p16), p16)
    assert all(u.dtype == jnp.bfloat16 for u in jax.tree.leaves(u16))


def test_smd_requires_params():
    opt = stochastic_mirror_descent(0.1)
    with pytest.raises(ValueError, match="params"):
        opt.update(jnp.ones(2), opt.init(jnp.ones(2)))
