"""doubly_smoothed_gda against a float64 numpy loop, the GDA identity and a closed-form saddle."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory import oracles
from jaxtheory.optim import doubly_smoothed_gda


def _problem():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((3, 3))
    return oracles.quadratic_saddle(
        M @ M.T + np.eye(3),
        rng.standard_normal((3, 2)),
        np.eye(2),
        rng.standard_normal(3),
        rng.standard_normal(2),
    )


def _numpy_dsgda(p, x, y, eta, r, beta, steps):
    """The update of the docstring, written out in float64."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    z, v = x.copy(), y.copy()
    for _ in range(steps):
        z = z + beta * (x - z)
        v = v + beta * (y - v)
        gx, gy = np.asarray(p.grad_x(x, y), float), np.asarray(p.grad_y(x, y), float)
        x, y = x - eta * (gx + r * (x - z)), y + eta * (gy - r * (y - v))
    return x, y


def _run(opt, p, x, y, steps):
    xy = (jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32))
    state = opt.init(xy)
    for _ in range(steps):
        upd, state = opt.update((p.grad_x(*xy), p.grad_y(*xy)), state, xy)
        xy = optax.apply_updates(xy, upd)
    return xy


def test_against_numpy_float64():
    p = _problem()
    x0, y0 = np.ones(3), np.zeros(2)
    ref = _numpy_dsgda(p, x0, y0, 0.05, 2.0, 0.3, 60)
    got = _run(doubly_smoothed_gda(0.05, 2.0, 0.3), p, x0, y0, 60)
    # float32 against float64 over 60 contracting steps: a few ulps of O(1) values
    np.testing.assert_allclose(np.asarray(got[0]), ref[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(got[1]), ref[1], rtol=1e-5, atol=1e-5)


def test_r_beta_zero_is_gda_bit_for_bit():
    # eager, op by op: −η(g + 0·(x − z)) is −ηg exactly in IEEE arithmetic
    p = _problem()
    opt = doubly_smoothed_gda(0.07, 0.0, 0.0)
    xy = (jnp.ones(3), jnp.zeros(2))
    state = opt.init(xy)
    for _ in range(20):
        gx, gy = p.grad_x(*xy), p.grad_y(*xy)
        (dx, dy), state = opt.update((gx, gy), state, xy)
        assert np.array_equal(np.asarray(dx), np.asarray(-0.07 * gx))
        assert np.array_equal(np.asarray(dy), np.asarray(0.07 * gy))
        xy = (xy[0] + dx, xy[1] + dy)


def test_converges_to_the_closed_form_saddle():
    p = _problem()
    x, y = _run(doubly_smoothed_gda(0.1, 1.0, 0.5), p, np.ones(3), np.zeros(2), 800)
    np.testing.assert_allclose(np.asarray(x), np.asarray(p.saddle[0]), atol=1e-4)
    np.testing.assert_allclose(np.asarray(y), np.asarray(p.saddle[1]), atol=1e-4)
    assert float(oracles.duality_gap(p, x, y)) < 1e-7


def test_anchor_is_an_ema_of_the_iterates():
    opt = doubly_smoothed_gda(0.0, 1.0, 0.25)  # η = 0: iterates fixed by hand
    xs = [jnp.array([4.0]), jnp.array([0.0]), jnp.array([8.0])]
    state = opt.init((xs[0], jnp.zeros(1)))
    z = 4.0
    for x in xs:
        _, state = opt.update((jnp.zeros(1), jnp.zeros(1)), state, (x, jnp.zeros(1)))
        z = z + 0.25 * (float(x[0]) - z)
        assert float(state.z[0]) == pytest.approx(z)


def test_vmap_over_traced_hyperparameters_and_dtype():
    p = _problem()

    def final(eta, r):
        opt = doubly_smoothed_gda(eta, r, 0.5 * eta * r)
        xy = (jnp.ones(3), jnp.zeros(2))

        def step(c, _):
            xy, s = c
            u, s = opt.update((p.grad_x(*xy), p.grad_y(*xy)), s, xy)
            return (optax.apply_updates(xy, u), s), None

        (xy, _), _ = jax.lax.scan(step, (xy, opt.init(xy)), length=50)
        return xy[0]

    out = jax.vmap(final)(jnp.array([0.01, 0.05]), jnp.array([1.0, 2.0]))
    assert out.shape == (2, 3) and bool(jnp.isfinite(out).all())
    opt = doubly_smoothed_gda(0.1, 1.0, 0.1)
    xy = (jnp.ones(2, jnp.bfloat16), {"w": jnp.ones(1, jnp.float16)})
    (dx, dy), _ = opt.update((xy[0], {"w": xy[1]["w"]}), opt.init(xy), xy)
    assert dx.dtype == jnp.bfloat16 and dy["w"].dtype == jnp.float16


def test_bad_input():
    opt = doubly_smoothed_gda(0.1, 1.0, 0.1)
    with pytest.raises(ValueError, match="pair"):
        opt.init(jnp.ones(3))
    state = opt.init((jnp.ones(1), jnp.ones(1)))
    with pytest.raises(ValueError, match="params"):
        opt.update((jnp.ones(1), jnp.ones(1)), state)
