"""FTRL players and bandit loss estimators, against closed forms and float64 numpy.

Checks: ``ftrl_entropic`` is ``q1 * exp(-eta_k L_k)`` normalized (numpy, float64), equals
greedy entropic mirror descent for a constant step and differs from it, by the closed
form ``q1 * exp(-sum_j eta_j g_j)``, when the step varies; rebuilt every round with a
traced step it is still the closed form. ``dual_averaging`` is ``Proj(w1 - eta_k G_k)``
(numpy), is SGD with a constant step while inside the ball, and differs from projected
SGD once the projection acts. The IW estimator is unbiased and IX has mean
``s q / (q + gamma)``, by exact expectation over the draw.
"""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    dual_averaging,
    entropic_mirror_map,
    ftrl_entropic,
    implicit_exploration_loss,
    importance_weighted_loss,
    stochastic_mirror_descent,
)

F32 = float(np.finfo(np.float32).eps)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _run(opt, x0, grads):
    state, x, xs = opt.init(x0), x0, []
    update = jax.jit(opt.update)
    for g in grads:
        u, state = update(g, state, x)
        x = optax.apply_updates(x, u)
        xs.append(jax.tree.map(lambda a: np.asarray(a, np.float64), x))
    return xs


def test_ftrl_entropic_is_the_closed_form_float64():
    with jax.enable_x64(True):
        rng = np.random.default_rng(0)
        q1 = rng.random((2, 5)) + 0.1
        q1 /= q1.sum(-1, keepdims=True)
        grads = rng.standard_normal((6, 2, 5))
        sched = lambda k: 0.9 / jnp.sqrt(k + 1.0)  # noqa: E731
        xs = _run(ftrl_entropic(sched), jnp.asarray(q1), [jnp.asarray(g) for g in grads])
        for k, x in enumerate(xs):
            want = _softmax(np.log(q1) - 0.9 / np.sqrt(k + 1.0) * grads[: k + 1].sum(0))
            # float64: a handful of exp/log/sum operations, far below 1e-12
            np.testing.assert_allclose(x, want, rtol=1e-12, atol=1e-14)


def test_ftrl_equals_smd_for_a_constant_step_and_differs_when_it_varies():
    rng = np.random.default_rng(1)
    q1 = jnp.full((4,), 0.25, jnp.float32)
    grads = [jnp.asarray(rng.standard_normal(4), jnp.float32) for _ in range(20)]
    ftrl = _run(ftrl_entropic(0.3), q1, grads)
    smd = _run(stochastic_mirror_descent(0.3, entropic_mirror_map()), q1, grads)
    # the same point q1 * exp(-eta L_k) by two float32 programs: SMD takes log q_k and
    # renormalizes every step, so round-off grows about linearly in k: 20 steps * 16 ulp
    for a, b in zip(ftrl, smd):
        np.testing.assert_allclose(a, b, rtol=20 * 16 * F32, atol=20 * 16 * F32)
    sched = lambda k: 1.0 / jnp.sqrt(k + 1.0)  # noqa: E731
    ftrl = _run(ftrl_entropic(sched), q1, grads)[-1]
    smd = _run(stochastic_mirror_descent(sched, entropic_mirror_map()), q1, grads)[-1]
    G = np.asarray(grads, np.float64)
    eta = 1.0 / np.sqrt(np.arange(1, 21))
    np.testing.assert_allclose(ftrl, _softmax(-eta[-1] * G.sum(0)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(smd, _softmax(-(eta[:, None] * G).sum(0)), rtol=1e-5, atol=1e-6)
    assert np.abs(ftrl - smd).max() > 0.05  # the two rules are far apart, not round-off


def test_ftrl_with_a_traced_step_rebuilt_each_round():
    rng = np.random.default_rng(2)
    grads = jnp.asarray(rng.random((8, 3)), jnp.float32)
    etas = jnp.asarray(rng.random(8) + 0.1, jnp.float32)
    q1 = jnp.full((3,), 1.0 / 3.0, jnp.float32)

    def body(carry, ge):
        q, s = carry
        u, s = ftrl_entropic(ge[1]).update(ge[0], s, q)
        return (q + u, s), q + u

    _, qs = jax.jit(lambda: jax.lax.scan(body, (q1, ftrl_entropic(1.0).init(q1)), (grads, etas)))()
    G = np.cumsum(np.asarray(grads, np.float64), 0)
    want = _softmax(-np.asarray(etas, np.float64)[:, None] * G)
    np.testing.assert_allclose(np.asarray(qs), want, rtol=1e-5, atol=1e-6)


def test_ftrl_keeps_a_zero_weight_at_zero_and_needs_params():
    opt = ftrl_entropic(1.0)
    q = jnp.asarray([0.0, 0.5, 0.5])
    u, state = opt.update(jnp.asarray([-5.0, 1.0, 0.0]), opt.init(q), q)
    new = np.asarray(q + u)
    assert new[0] == 0.0 and abs(new.sum() - 1.0) < 1e-6
    with pytest.raises(ValueError, match="needs params"):
        opt.update(jnp.zeros(3), state)


def test_dual_averaging_is_the_lazy_projection_float64():
    with jax.enable_x64(True):
        rng = np.random.default_rng(3)
        w1 = {"a": rng.standard_normal(3) * 0.1, "b": rng.standard_normal((2, 2)) * 0.1}
        grads = [jax.tree.map(lambda x: rng.standard_normal(x.shape), w1) for _ in range(7)]
        D = 0.7
        sched = lambda k: 0.5 / jnp.sqrt(k + 1.0)  # noqa: E731
        xs = _run(dual_averaging(D, sched), jax.tree.map(jnp.asarray, w1), grads)
        flat = lambda t: np.concatenate([np.ravel(t["a"]), np.ravel(t["b"])])  # noqa: E731
        G = np.zeros(7)
        for k, x in enumerate(xs):
            G = G + flat(grads[k])
            y = flat(w1) - 0.5 / np.sqrt(k + 1.0) * G
            want = y * min(1.0, D / np.linalg.norm(y))  # projection onto the ball, numpy
            np.testing.assert_allclose(flat(x), want, rtol=1e-12, atol=1e-14)


def _flat_run(opt, w, grads):
    state, xs = opt.init(w), []
    for g in grads:
        u, state = opt.update(g, state, w)
        w = optax.apply_updates(w, u)
        xs.append(np.asarray(w, np.float64))
    return xs


def test_dual_averaging_is_sgd_inside_the_ball_and_not_projected_sgd_outside():
    rng = np.random.default_rng(4)
    grads = [jnp.asarray(rng.standard_normal(4) * 0.01, jnp.float32) for _ in range(10)]
    w0 = jnp.zeros(4, jnp.float32)
    da = _flat_run(dual_averaging(100.0, 0.1), w0, grads)
    sgd = _flat_run(optax.sgd(0.1), w0, grads)
    # the same sums w0 - 0.1 sum g in float32: a few ulps of the iterate per step
    np.testing.assert_allclose(da, sgd, rtol=1e-5, atol=1e-7)
    # outside: a constant push along e1, then a push along e2 (projected SGD forgets the
    # e1 history at the boundary, dual averaging remembers it)
    g = [jnp.asarray([-1.0, 0.0, 0, 0])] * 5 + [jnp.asarray([0.0, -1.0, 0, 0])] * 2
    da = _flat_run(dual_averaging(1.0, 1.0), w0, g)[-1]
    np.testing.assert_allclose(da, np.array([5.0, 2.0, 0, 0]) / np.sqrt(29.0), rtol=1e-6)
    w = w0
    for gg in g:
        w = optax.projections.projection_l2_ball(w - gg, 1.0)
    assert np.abs(da - np.asarray(w)).max() > 0.3


def test_importance_weighted_loss_is_unbiased_exactly():
    # exact expectation over independent inclusions with P(i in S) = o_i (any scheme with
    # these marginals): sum over all 2^m inclusion patterns
    rng = np.random.default_rng(5)
    m = 4
    s, o = rng.random(m), rng.random(m) * 0.8 + 0.1
    mean = np.zeros(m)
    for pattern in itertools.product([False, True], repeat=m):
        inc = np.asarray(pattern)
        p = np.prod(np.where(inc, o, 1 - o))
        mean += p * np.asarray(importance_weighted_loss(jnp.asarray(s), jnp.asarray(inc), jnp.asarray(o)))
    np.testing.assert_allclose(mean, s, rtol=1e-6)  # float32 estimates, float64 weights


def test_implicit_exploration_mean_and_bias():
    rng = np.random.default_rng(6)
    m, gamma = 5, 0.05
    s = rng.random(m)
    q = rng.random(m) + 0.05
    q /= q.sum()
    mean = sum(
        q[i]
        * np.asarray(implicit_exploration_loss(jnp.asarray(s), jnp.arange(m) == i, jnp.asarray(q), gamma))
        for i in range(m)
    )
    np.testing.assert_allclose(mean, s * q / (q + gamma), rtol=1e-6)
    bias = s - mean
    assert np.all(bias > 0) and np.all(q * bias <= gamma * s + 1e-7)
    # gamma = 0 is the plain importance weight of one draw: unbiased
    mean0 = sum(
        q[i] * np.asarray(implicit_exploration_loss(jnp.asarray(s), jnp.arange(m) == i, jnp.asarray(q), 0.0))
        for i in range(m)
    )
    np.testing.assert_allclose(mean0, s, rtol=1e-6)
