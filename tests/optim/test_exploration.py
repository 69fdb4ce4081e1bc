"""random_feasible_exploration: the acceptance rule against a float64 recomputation, monotonicity,
evaluation counts, chaining after a base map, feasibility and traced hyperparameters."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import n_evals, random_feasible_exploration
from jaxtheory.oracles import box_direction, dc_toy_l1


def _fixed_direction(d):
    return lambda key, x: jnp.asarray(d, jnp.result_type(x))


def test_acceptance_rule_matches_float64_recomputation():
    # h linear along d = -c: h(z) - h(x) = -s|c|^2, accepted iff s <= 1/sigma; sigma = 2 puts the
    # threshold s = 1/2 inside (0, 1], so both outcomes occur
    c = np.array([1.0, -2.0, 0.5])
    h = lambda x: jnp.sum(jnp.asarray(c, x.dtype) * x)  # noqa: E731
    sigma = 2.0
    opt = random_feasible_exploration(_fixed_direction(-c), sigma, 1.0, key=0)
    x = jnp.zeros(3)
    state = opt.init(x)
    seen = set()
    steps = []
    update = jax.jit(lambda x, state: opt.update(jnp.zeros(3), state, x, value_fn=h))
    for _ in range(200):
        u, state = update(x, state)
        s = float(state.step_size)
        hz = float(np.dot(c, np.asarray(x, np.float64) - s * c))
        want = hz <= float(np.dot(c, np.asarray(x, np.float64))) - sigma * s * s * np.dot(c, c)
        # away from the threshold the float32 decision is the float64 one
        if abs(s - 0.5) > 1e-5:
            assert bool(state.accepted) == want
        seen.add(bool(state.accepted))
        np.testing.assert_allclose(np.asarray(u), -s * c if state.accepted else 0.0, rtol=1e-6)
        x = optax.apply_updates(x, u)
        steps.append(s)
    assert seen == {True, False}
    steps = np.asarray(steps)
    assert steps.min() > 0.0 and steps.max() <= 1.0
    # s ~ U(0, 1]: mean 1/2, sd of the mean 0.29/sqrt(200) = 0.02; 4 sd
    assert abs(steps.mean() - 0.5) < 0.082
    assert int(state.n_accepted) == int(np.sum(steps <= 0.5))


def test_never_increases_and_escapes_the_dca_fixed_point():
    p = dc_toy_l1(20)
    opt = random_feasible_exploration(p.sample_direction, 1e-4, 1.0, key=1)
    x = jnp.asarray(np.where(np.arange(20) < 10, 0.0, 1.0), jnp.float32)  # sign(x): DCA's fixed point
    state = opt.init(x)
    values = [float(p.value(x))]

    @jax.jit
    def step(x, state):
        x_half = p.base_map(x, 0.0)
        u, state = opt.update(jnp.zeros_like(x), state, x_half, value_fn=p.value, value=p.value(x_half))
        return optax.apply_updates(x_half, u), state

    for _ in range(30):
        x, state = step(x, state)
        # the state's value is h at the new point, computed inside another jitted program:
        # XLA may fuse it differently, so equal to a few float32 ulps, not bitwise
        assert float(state.value) == pytest.approx(
            float(p.value(x)), rel=4 * float(jnp.finfo(jnp.float32).eps)
        )
        values.append(float(state.value))
        assert bool(jnp.all(jnp.abs(x) <= 2.0))  # z stays in the box
    assert all(b <= a for a, b in zip(values, values[1:]))
    assert values[-1] == -10.0  # the global minimum -n/2


def test_evaluation_counts():
    h = lambda x: jnp.sum(x * x)  # noqa: E731
    opt = random_feasible_exploration(_fixed_direction([1.0, 0.0]), 1e-4, 1.0)
    x = jnp.ones(2)
    s = opt.init(x)
    _, s = opt.update(jnp.zeros(2), s, x, value_fn=h)  # h(x_half) and h(z)
    assert int(s.n_evals) == 2
    _, s = opt.update(jnp.zeros(2), s, x, value_fn=h, value=h(x))  # value reused: h(z) only
    assert int(s.n_evals) == 3
    assert int(n_evals(s)) == 3


def test_in_a_chain_after_a_base_map_it_starts_from_the_base_step():
    # base map: one gradient step on h; a wrong optax-style `value` (h at params) must not be used
    # as h(x_half) when the base update is nonzero
    h = lambda x: 0.5 * jnp.sum(x * x)  # noqa: E731
    opt = optax.chain(optax.sgd(0.5), random_feasible_exploration(_fixed_direction([-1.0, 0.0]), 0.0, 1.0))
    x = jnp.array([2.0, 0.0])
    state = opt.init(x)
    u, state = opt.update(x, state, x, value_fn=h, value=-100.0)
    expl = state[1]
    s = float(expl.step_size)
    # x_half = x - 0.5 x = (1, 0); z = (1 - s, 0) is lower for s in (0, 1]: always accepted
    assert bool(expl.accepted)
    np.testing.assert_allclose(np.asarray(x + u), [1.0 - s, 0.0], rtol=1e-6)
    assert int(expl.n_evals) == 2  # h(x_half) evaluated, since the updates were not zero


def test_vmaps_over_traced_hyperparameters_and_keys():
    p = dc_toy_l1(6)
    x = jnp.asarray([0.0, 0.0, 0.0, 1.0, -1.0, 1.0])

    def one(sigma, key):
        opt = random_feasible_exploration(p.sample_direction, sigma, 1.0, key=key)
        u, st = opt.update(jnp.zeros(6), opt.init(x), x, value_fn=p.value)
        return st.accepted, st.value

    sig = jnp.array([0.0, 1e-4, 1e9])
    acc, val = jax.jit(jax.vmap(one))(sig, jnp.arange(3))
    assert not bool(acc[2])  # sigma = 1e9: nothing is ever accepted
    assert float(val[2]) == float(p.value(x))
    assert bool(jnp.all(val <= p.value(x)))


def test_errors():
    d = box_direction(-1.0, 1.0)
    with pytest.raises(ValueError, match="s_max"):
        random_feasible_exploration(d, 1e-4, 1.5)
    with pytest.raises(ValueError, match="sigma"):
        random_feasible_exploration(d, -1.0, 1.0)
    with pytest.raises(TypeError):
        random_feasible_exploration("not callable", 1e-4, 1.0)
    opt = random_feasible_exploration(d, 1e-4, 1.0)
    with pytest.raises(ValueError, match="value_fn"):
        opt.update(jnp.zeros(2), opt.init(jnp.zeros(2)), jnp.zeros(2))
