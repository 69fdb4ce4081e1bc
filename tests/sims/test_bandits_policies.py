"""Policy building blocks, the remaining policies, and the per-round random numbers.

* ``sample_from`` inverts the CDF exactly; ``project_floor`` is the projection onto
  {w >= ε} ∩ simplex (checked against a sort-based numpy projection);
  ``glrt_statistic`` and ``ism_theory_threshold`` against hand-written formulas.
* Every policy not covered by the reference tests (LUCB, C-tracking, elimination,
  empirical Bernstein, round-robin) stops and is right on an easy instance (under
  ``-m slow``: one compile each, ~25 s in all); the δ-grid of a δ-dependent sampler
  (elimination) equals separate runs at each δ.
* ``round_draws``: uniforms pass a Kolmogorov-Smirnov test, normals have mean 0 and
  variance 1, and draws of consecutive rounds, of the three streams and of
  neighbouring episode keys are uncorrelated.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special
import scipy.stats

from jaxtheory.sims.bandits import (
    BAISpec,
    default_params,
    episode_seed,
    glrt_statistic,
    ism_theory_threshold,
    project_floor,
    round_draws,
    run,
    sample_from,
)


def test_sample_from_inverts_cdf():
    p = jnp.array([0.1, 0.0, 0.6, 0.3])
    u = jnp.linspace(0.0, 1.0, 1000, endpoint=False)
    arms = np.asarray(jax.vmap(sample_from, (None, 0))(p, u))
    counts = np.bincount(arms, minlength=4)
    np.testing.assert_array_equal(counts, [100, 0, 600, 300])


def _np_project(w, eps):
    """Euclidean projection onto {v >= eps, sum v = 1}: shift by eps and project on the
    simplex of mass 1 - K eps with the sort-based algorithm."""
    y = np.asarray(w, float) - eps
    mass = 1.0 - eps * y.size
    u = np.sort(y)[::-1]
    css = np.cumsum(u) - mass
    rho = np.nonzero(u - css / np.arange(1, y.size + 1) > 0)[0][-1]
    theta = css[rho] / (rho + 1)
    return np.maximum(y - theta, 0.0) + eps


def test_project_floor_matches_sort_projection():
    rng = np.random.default_rng(0)
    with jax.enable_x64(True):
        for _ in range(5):
            w = rng.dirichlet(np.full(6, 0.3))
            eps = 0.5 / math.sqrt(36 + rng.integers(1, 500))
            v = np.asarray(project_floor(jnp.asarray(w), eps, n_iter=60))
            np.testing.assert_allclose(v, _np_project(w, eps), atol=1e-12)
            assert v.min() >= eps - 1e-15 and abs(v.sum() - 1) < 1e-12


def test_glrt_statistic_and_ism_threshold_by_hand():
    n = jnp.array([3, 5, 2])
    s = jnp.array([3.0, 1.0, -1.0])
    Z, a = glrt_statistic(n, s, 2.0)
    m = np.array([1.0, 0.2, -0.5])
    z = [3 * 5 / 8 * (m[0] - m[1]) ** 2 / 8, 3 * 2 / 5 * (m[0] - m[2]) ** 2 / 8]
    assert int(a) == 0
    np.testing.assert_allclose(float(Z), min(z), rtol=1e-6)
    t, n_ab, delta, K, U, sig = 1000, 480, 0.01, 5, 2.0, 0.7
    L = math.log(math.pi**2 * K**2 * t**3 / (3 * delta))
    hand = math.sqrt(4 * K * U**2 * t * L) + 2 / 3 * (K + 2) * U * L + math.sqrt(2 * K**2 * sig**2 * n_ab * L)
    np.testing.assert_allclose(float(ism_theory_threshold(t, n_ab, delta, K, U, sig)), hand, rtol=1e-5)


DELTAS = (0.1, 0.01)


def _spec(policy, **kw):
    return BAISpec(policy=policy, n_arms=3, instance="staircase", chunk=64, horizon=8192, **kw)


def _check_runs(names, gap=2.0):
    n = 24
    keys = jax.vmap(lambda i: jax.random.fold_in(jax.random.key(1), i))(jnp.arange(n))
    p = default_params(gap=gap, U=gap + 1.0, delta=0.05)
    for name in names:
        spec = _spec(name)
        o = jax.tree.map(np.asarray, jax.jit(jax.vmap(lambda k, s=spec: run(s, p, k)))(keys))
        assert o["stopped"].all(), name
        assert o["correct"].mean() >= 0.9, (name, o["correct"].mean())
        assert np.all(o["frac_best"] > 0.2), name


@pytest.mark.slow
def test_lucb_and_c_tracking_stop_and_are_right():
    _check_runs(["lucb", "tas_c"])


@pytest.mark.slow
def test_other_ism_variants_and_round_robin_stop_and_are_right():
    _check_runs(["ism_eb", "rr_glrt"])
    _check_runs(["ism_elim"], gap=3.0)


def test_elimination_delta_grid_equals_separate_runs():
    """A δ-dependent sampler on a δ-grid runs one episode per δ with the same key."""
    # The grid and the separate runs are different programs (other shapes), so their
    # statistics and thresholds may differ by round-off; in float64 an outcome could flip
    # only on a tie within ~1e-15 relative, so the discrete outcomes are compared exactly.
    n = 24
    with jax.enable_x64(True):
        keys = jax.vmap(lambda i: jax.random.fold_in(jax.random.key(1), i))(jnp.arange(n))
        p = default_params(gap=2.0, U=3.0)
        grid = _spec("ism_elim_practical", deltas=DELTAS)
        single = _spec("ism_elim_practical")

        @jax.jit
        def both(keys):
            g = jax.vmap(lambda k: run(grid, p, k))(keys)
            s = jax.vmap(lambda d: jax.vmap(lambda k: run(single, {**p, "delta": d}, k))(keys))(
                jnp.asarray(DELTAS)
            )
            return g, s

        g, s = jax.tree.map(np.asarray, both(keys))
    assert g["stopped"].all() and g["correct"].mean() >= 0.9
    for j in range(len(DELTAS)):
        for k in ("tau", "recommendation", "stopped"):
            np.testing.assert_array_equal(g[k][:, j], s[k][j], err_msg=k)


def test_round_draws_quality():
    n_ep, T = 64, 512
    keys = jax.vmap(lambda i: jax.random.fold_in(jax.random.key(2), i))(jnp.arange(n_ep))
    f = jax.jit(jax.vmap(jax.vmap(lambda s, t: jnp.stack(round_draws(s, t)), (None, 0)), (0, None)))
    D = np.asarray(f(jax.vmap(episode_seed)(keys), jnp.arange(T)), np.float64)  # (E, T, 3)
    u1, z, u2 = D[..., 0].ravel(), D[..., 1].ravel(), D[..., 2].ravel()
    N = u1.size
    assert scipy.stats.kstest(u1, "uniform").pvalue > 1e-3
    assert scipy.stats.kstest(u2, "uniform").pvalue > 1e-3
    assert scipy.stats.kstest(z, "norm").pvalue > 1e-3
    assert abs(z.mean()) < 5 / math.sqrt(N) and abs(z.var() - 1) < 5 * math.sqrt(2 / N)
    lim = 5 / math.sqrt(N)
    assert abs(np.corrcoef(u1, u2)[0, 1]) < lim
    assert abs(np.corrcoef(u1, z)[0, 1]) < lim
    # consecutive rounds and neighbouring episodes
    assert abs(np.corrcoef(D[:, 1:, 0].ravel(), D[:, :-1, 0].ravel())[0, 1]) < lim
    assert abs(np.corrcoef(D[1:, :, 1].ravel(), D[:-1, :, 1].ravel())[0, 1]) < lim


def test_round_draws_normal_is_finite_and_exact_at_the_extreme_bits():
    # The normal is read at the mid-point uniform (b + 1/2) 2^-24 of a 24-bit integer b.
    # Formed in float32, b + 1/2 rounded b = 2^24 - 1 up to u = 1 and gave z = +inf once
    # in 2^24 rounds (an infinite reward: ISM-theory then stopped at every δ at once on a
    # random arm). Formed from the integer, 2u - 1 is exact in float32, so the extreme
    # draws are finite, antisymmetric (b and 2^24 - 1 - b give -z and z exactly, as
    # erfinv is odd) and agree with float64 to float32 round-off of erfinv (rtol 1e-6).
    from jaxtheory.sims.bandits.runner import _normal_from_bits

    b = np.array([0, 1, 2, 2**23 - 1, 2**23, 2**24 - 3, 2**24 - 2, 2**24 - 1], np.uint32)
    z32 = np.asarray(_normal_from_bits(jnp.asarray(b), jnp.float32))
    assert np.all(np.isfinite(z32)) and np.abs(z32).max() < 5.5
    np.testing.assert_array_equal(z32, -z32[::-1])
    with jax.enable_x64(True):
        z64 = np.asarray(_normal_from_bits(jnp.asarray(b), jnp.float64))
    ref = math.sqrt(2) * scipy.special.erfinv((2 * b.astype(np.float64) + 1 - 2**24) * 2.0**-24)
    np.testing.assert_allclose(z64, ref, rtol=1e-12)
    np.testing.assert_allclose(z32, ref, rtol=1e-6)
