"""jaxtheory.sims._record and the divergence helpers: exact record steps, recording scans
against full trajectories, running averages against cumulative sums, the guard."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.divergence import first_nonfinite, guarded_scan, mask_diverged, within
from jaxtheory.sims._record import log_steps, polyak_update, scan_record


def test_log_steps_exact_values():
    assert log_steps(1000, 4).tolist() == [1, 10, 100, 1000]
    assert log_steps(10, 6).tolist() == [1, 2, 3, 4, 6, 10]
    assert log_steps(1, 5).tolist() == [1]
    assert log_steps(100, 3, include_zero=True).tolist() == [0, 1, 10, 100]
    assert log_steps(1000, 3, start=10).tolist() == [10, 100, 1000]
    assert log_steps(7, 1).tolist() == [1]  # geomspace(1, 7, 1) is [1]
    assert log_steps(200, 32).dtype == np.int64


@pytest.mark.parametrize("steps,num", [(1000, 32), (200, 32), (37, 100), (5000, 16)])
def test_log_steps_properties(steps, num):
    t = log_steps(steps, num)
    assert t[0] == 1 and t[-1] == steps
    assert np.all(np.diff(t) > 0)
    assert len(t) <= num
    # the formula every simulator wrote by hand
    np.testing.assert_array_equal(t, np.unique(np.round(np.geomspace(1, steps, num)).astype(np.int64)))
    z = log_steps(steps, num, include_zero=True)
    np.testing.assert_array_equal(z, np.unique(np.concatenate([[0], t])))


def test_log_steps_rejects_bad_input():
    with pytest.raises(ValueError):
        log_steps(0, 4)
    with pytest.raises(ValueError):
        log_steps(10, 4, start=11)
    with pytest.raises(ValueError):
        log_steps(10, 0)


def _noisy_step(key):
    def step(c, t):
        x, s = c
        z = jax.random.normal(jax.random.fold_in(key, t), x.shape)
        x = 0.9 * x + 0.1 * z
        return (x, s + jnp.sum(x * x))

    return step


def _observe(c):
    return {"norm": jnp.sqrt(jnp.sum(c[0] ** 2)), "x0": c[0][0], "s": c[1]}


@pytest.mark.parametrize("record_at", [[0, 1, 2, 5, 40], [3, 17, 39], [40], [0]])
def test_scan_record_equals_full_trajectory(record_at):
    key = jax.random.key(3)
    step = _noisy_step(key)
    c0 = (jnp.ones(5, jnp.float32), jnp.float32(0.0))

    def full(c, t):
        c = step(c, t)
        return c, _observe(c)

    final_full, ys = jax.lax.scan(full, c0, jnp.arange(40))
    ys = jax.tree.map(lambda y0, y: jnp.concatenate([y0[None], y]), _observe(c0), ys)  # index = step count
    final, rec, div = jax.jit(lambda c: scan_record(step, c, record_at, _observe, length=40))(c0)
    assert int(div) == -1
    idx = np.asarray(record_at)
    for k in ys:
        np.testing.assert_allclose(rec[k], ys[k][idx], rtol=2e-6, atol=1e-7)
        assert rec[k].shape == (len(record_at),)
    jax.tree.map(lambda a, b: np.testing.assert_allclose(a, b, rtol=2e-6), final, final_full)


def test_scan_record_under_vmap_matches_per_lane():
    keys = jax.random.split(jax.random.key(0), 3)
    at = log_steps(50, 8)

    def lane(k):
        c0 = (jnp.ones(4, jnp.float32), jnp.float32(0.0))
        return scan_record(_noisy_step(k), c0, at, _observe, length=50)[1]

    batched = jax.jit(jax.vmap(lane))(keys)
    for i in range(3):
        one = lane(keys[i])
        np.testing.assert_allclose(batched["norm"][i], one["norm"], rtol=2e-6)


def test_scan_record_guard_equals_guarded_scan():
    # x grows by 10x per step from different starts: lanes overflow float32 at different steps
    def step(x, t):
        return x * 10.0 + t

    at = np.array([1, 2, 5, 20, 37, 40])
    for x0 in [1.0, 1e10, 1e30]:
        c0 = jnp.float32(x0)

        def full(c, t):
            c = step(c, t)
            return c, c

        fin_g, ys, div_g = guarded_scan(full, c0, jnp.arange(40))
        fin, rec, div = scan_record(step, c0, at, lambda c: c, length=40, guard=True)
        assert int(div) == int(div_g) and int(div) >= 0
        assert float(fin) == float(fin_g)
        np.testing.assert_array_equal(np.asarray(rec), np.asarray(ys)[at - 1])
        assert np.isnan(np.asarray(rec)[at - 1 >= int(div)]).all()
        assert np.isfinite(np.asarray(rec)[at - 1 < int(div)]).all()


def test_scan_record_guard_watch_and_bound():
    step = lambda x, t: x * 2.0  # noqa: E731
    # a bound: 2**(t+1) > 100 first at t = 6
    _, rec, div = scan_record(
        step, jnp.float32(1.0), [3, 6, 7, 10], lambda x: x, length=10, guard=True, bound=100.0
    )
    assert int(div) == 6
    np.testing.assert_array_equal(np.asarray(rec), [8.0, 64.0, np.nan, np.nan])
    # watch: a derived quantity that overflows first. After step t, x = 2**(t+1) and
    # x**4 = 2**(4t+4), which is inf in float32 from 2**128 on: first at t = 31.
    x, _, div = scan_record(
        step, jnp.float32(1.0), [10], lambda x: x, length=64, guard=True, watch=lambda x: x**4
    )
    assert int(div) == 31 and float(x) == 2.0**31
    # x itself stays finite for 64 doublings (2**64 < 3.4e38): no divergence without the watch
    x, _, div = scan_record(step, jnp.float32(1.0), [10], lambda x: x, length=64, guard=True)
    assert int(div) == -1 and float(x) == 2.0**64


def test_scan_record_rejects_bad_record_at():
    step = lambda x, t: x  # noqa: E731
    for bad in ([], [2, 2], [3, 1], [11], [-1, 2], [0.5]):
        with pytest.raises(ValueError):
            scan_record(step, jnp.float32(0.0), np.asarray(bad), lambda x: x, length=10)


def test_polyak_update_equals_cumulative_mean():
    xs = jax.random.normal(jax.random.key(1), (64, 3))

    def body(avg, tx):
        t, x = tx
        avg = polyak_update(avg, x, t)
        return avg, avg

    _, avgs = jax.lax.scan(body, jnp.zeros(3), (jnp.arange(64), xs))
    ref = np.cumsum(np.asarray(xs, np.float64), 0) / np.arange(1, 65)[:, None]
    np.testing.assert_allclose(avgs, ref, rtol=1e-5, atol=1e-6)


def test_polyak_update_tail_window_and_pytree():
    xs = np.arange(10.0, dtype=np.float32) ** 2
    avg = {"a": jnp.float32(0.0), "b": jnp.zeros(2)}
    for t in range(10):
        avg = jax.jit(polyak_update, static_argnames=())(
            avg, {"a": xs[t], "b": jnp.full(2, xs[t])}, t, start=4
        )
        if t < 4:
            assert float(avg["a"]) == 0.0
        else:
            np.testing.assert_allclose(float(avg["a"]), xs[4 : t + 1].mean(), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(avg["b"]), [xs[4:].mean()] * 2, rtol=1e-6)
    # a traced start (per-lane horizon) under vmap
    starts = jnp.array([0, 5, 9])

    def lane(s):
        def body(a, t):
            return polyak_update(a, jnp.asarray(xs)[t], t, start=s), None

        return jax.lax.scan(body, jnp.float32(0.0), jnp.arange(10))[0]

    np.testing.assert_allclose(jax.vmap(lane)(starts), [xs.mean(), xs[5:].mean(), xs[9]], rtol=1e-6)


def test_within_mask_and_first_nonfinite():
    assert bool(within({"a": jnp.ones(2), "i": jnp.int32(10**9)}, bound=1.0))
    assert not bool(within(jnp.array([0.5, -1.5]), bound=1.0))
    assert not bool(within(jnp.array([0.5, jnp.nan])))
    out = mask_diverged({"x": jnp.ones(2), "n": jnp.int32(3)}, jnp.int32(0))
    assert np.isnan(np.asarray(out["x"])).all() and int(out["n"]) == 3
    out = mask_diverged({"x": jnp.ones(2)}, jnp.int32(-1))
    np.testing.assert_array_equal(np.asarray(out["x"]), [1.0, 1.0])
    ys = {"a": jnp.array([[1.0], [2.0], [3.0], [jnp.nan]]), "b": jnp.array([0.0, 0.0, jnp.inf, 0.0])}
    assert int(first_nonfinite(ys)) == 2
    assert int(first_nonfinite(jnp.ones((3, 4)), axis=1)) == -1
    assert int(first_nonfinite(jnp.array([[1.0, jnp.nan], [1.0, 1.0]]), axis=1)) == 1
    # agrees with the guard's step on the same trajectory
    traj = jnp.float32(1e35) * 10.0 ** jnp.arange(1, 9, dtype=jnp.float32)
    _, _, div = guarded_scan(lambda c, t: (c * 10.0, c * 10.0), jnp.float32(1e35), length=8)
    assert int(first_nonfinite(traj)) == int(div) == 3
