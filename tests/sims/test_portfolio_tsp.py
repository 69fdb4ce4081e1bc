"""sims.functional.portfolio_tsp against float64 numpy references, brute force and exact identities."""

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.functional import portfolio_tsp as pt


_two_opt = jax.jit(pt.two_opt, static_argnums=2, static_argnames="eps")
_teacher = jax.jit(jax.vmap(lambda x: pt.teacher_tour(x, 64)))


@jax.jit
def _nn_and_random(x, logits):
    n = x.shape[0]
    d = pt.distance_matrix(x)
    rand = pt.greedy_tour(lambda c, v: jnp.where(v, 0.0, jax.nn.softmax(logits[c])), n)
    nn = pt.greedy_tour(lambda c, v: jnp.where(v, 0.0, jnp.exp(-d[c])), n)
    return rand, nn


def np_dist(x):
    return np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))


def np_len(d, t):
    return sum(d[t[i], t[(i + 1) % len(t)]] for i in range(len(t)))


def np_two_opt(d, tour, moves, eps):
    """Best-improvement 2-opt, first minimum in row-major (i, j) order, loops only."""
    t = list(tour)
    n = len(t)
    for _ in range(moves):
        best, bi, bj = math.inf, -1, -1
        for i in range(n):
            for j in range(i + 2, n):
                if i == 0 and j == n - 1:
                    continue
                a, b, c, e = t[i], t[i + 1], t[j], t[(j + 1) % n]
                g = d[a, c] + d[b, e] - d[a, b] - d[c, e]
                if g < best:
                    best, bi, bj = g, i, j
        if best < -eps:
            t[bi + 1 : bj + 1] = t[bi + 1 : bj + 1][::-1]
        else:
            break
    return np.array(t)


def np_nn_tour(d):
    n = d.shape[0]
    t, seen = [0], {0}
    for _ in range(n - 1):
        c = t[-1]
        j = min((k for k in range(n) if k not in seen), key=lambda k: d[c, k])
        t.append(j)
        seen.add(j)
    return np.array(t)


def np_brute_force(d):
    n = d.shape[0]
    return min(np_len(d, (0,) + p) for p in itertools.permutations(range(1, n)))


def np_scores(x, cur, visited):
    """The six programs' raw logits by explicit loops (float64)."""
    n = len(x)
    d = np_dist(x)
    cen = x.mean(0)
    ang = np.arctan2(x[:, 1] - cen[1], x[:, 0] - cen[0])
    out = np.zeros((6, n))
    for j in range(n):
        if visited[j]:
            continue
        out[0, j] = -d[cur, j]
        out[1, j] = -d[0, j]
        out[2, j] = -(((ang[j] - ang[cur]) % (2 * np.pi)) / (2 * np.pi))
        out[3, j] = min(d[k, j] for k in range(n) if visited[k])
        out[4, j] = -(d[cur, j] + d[j, 0] - d[cur, 0])
        others = sorted(d[j, k] for k in range(n) if k != j and (not visited[k] or k == cur))
        d1 = others[0]
        d2 = others[1] if len(others) > 1 else d1
        out[5, j] = (d2 - d1) - d[cur, j]
    return out


@pytest.mark.parametrize("n", [6, 9, 13])
def test_two_opt_equals_numpy_best_improvement(n):
    # float64 on both sides, random instances (no exact ties): the same sequence of moves
    rng = np.random.default_rng(n)
    with jax.enable_x64(True):
        for _ in range(4):
            x = rng.random((n, 2))
            d = np_dist(x)
            start = rng.permutation(n)
            start = np.roll(start, -int(np.argmax(start == 0)))
            ref = np_two_opt(d, start, 200, 1e-12)
            got, ok = _two_opt(jnp.asarray(d), jnp.asarray(start), 200, eps=1e-12)
            np.testing.assert_array_equal(np.asarray(got), ref)
            assert bool(ok)


def test_two_opt_against_brute_force():
    rng = np.random.default_rng(1)
    with jax.enable_x64(True):
        for n in (4, 6, 7):
            for _ in range(3):
                x = rng.random((n, 2))
                d = np_dist(x)
                opt = np_brute_force(d)
                t, ok = _two_opt(jnp.asarray(d), jnp.arange(n), 100, eps=1e-12)
                length = np_len(d, np.asarray(t))
                assert bool(ok) and bool(pt.is_permutation(t))
                assert length >= opt - 1e-12
                if n == 4:  # every tour of 4 cities is one 2-opt move from the others
                    assert abs(length - opt) < 1e-12


def test_two_opt_keeps_an_optimal_tour():
    rng = np.random.default_rng(2)
    with jax.enable_x64(True):
        x = rng.random((7, 2))
        d = np_dist(x)
        best = min(((0,) + p for p in itertools.permutations(range(1, 7))), key=lambda t: np_len(d, t))
        t, ok = _two_opt(jnp.asarray(d), jnp.asarray(best), 10, eps=1e-12)
        np.testing.assert_array_equal(np.asarray(t), np.asarray(best))
        assert bool(ok)


def test_teacher_is_oriented_valid_and_no_worse_than_nearest_neighbour():
    x = pt.random_instances(jax.random.PRNGKey(3), 16, 12)
    tours, ok = _teacher(x)
    for xi, t in zip(np.asarray(x, float), np.asarray(tours)):
        d = np_dist(xi)
        assert sorted(t.tolist()) == list(range(12)) and t[0] == 0
        assert d[0, t[1]] <= d[0, t[-1]] + 1e-7
        assert np_len(d, t) <= np_len(d, np_nn_tour(d)) + 1e-5  # float32 distances
    assert bool(jnp.all(ok))


def test_greedy_tours_are_permutations_and_nearest_neighbour_matches_numpy():
    key = jax.random.PRNGKey(4)
    n = 10
    x = pt.random_instances(key, 8, n)
    for i, xi in enumerate(x):
        rand, nn = _nn_and_random(xi, jax.random.normal(jax.random.fold_in(key, i), (n, n)))
        assert bool(pt.is_permutation(rand)) and int(rand[0]) == 0
        np.testing.assert_array_equal(np.asarray(nn), np_nn_tour(np_dist(np.asarray(xi, float))))
    assert not bool(pt.is_permutation(jnp.array([0, 1, 1, 3])))
    assert not bool(pt.is_permutation(jnp.array([0, 1, 2, 4])))


def test_base_scores_match_numpy_loops():
    rng = np.random.default_rng(5)
    n = 8
    for _ in range(10):
        x = rng.random((n, 2))
        k = rng.integers(1, n - 1)  # visited count, at least one unvisited city
        order = np.concatenate([[0], rng.permutation(np.arange(1, n))])
        visited = np.zeros(n, bool)
        visited[order[:k]] = True
        cur = int(order[k - 1])
        ref = np_scores(x, cur, visited)
        xj = jnp.asarray(x, jnp.float32)
        got = pt.base_scores(
            pt.distance_matrix(xj), pt.centroid_angles(xj), jnp.int32(cur), jnp.asarray(visited)
        )
        # float32 coordinates and distances: relative error ~1e-7 on values of order 1
        np.testing.assert_allclose(np.asarray(got), ref, atol=1e-5)


def test_program_log_probs_are_masked_distributions():
    x = pt.random_instances(jax.random.PRNGKey(6), 1, 9)[0]
    d, ang = pt.distance_matrix(x), pt.centroid_angles(x)
    visited = jnp.zeros(9, bool).at[jnp.array([0, 3, 5])].set(True)
    raw = pt.base_scores(d, ang, jnp.int32(5), visited)
    tau = 0.1
    thetas = jnp.eye(6)[:2] / tau  # boosted slots that copy nearest and near_start
    lp = pt.program_log_probs(raw, ~visited, thetas, tau)
    p = np.exp(np.asarray(lp, float))
    np.testing.assert_allclose(p.sum(-1), 1.0, atol=1e-6)
    assert np.all(p[:, np.asarray(visited)] == 0.0)  # exp(-1e30) underflows to exactly 0
    # θ = e_k / τ reproduces program k up to the rounding of raw/τ against raw·(1/τ)
    np.testing.assert_allclose(np.asarray(lp[6:]), np.asarray(lp[:2]), atol=1e-5)
    # the temperature does not move the argmax
    lp_hot = pt.program_log_probs(raw, ~visited, thetas[:0], 5.0)
    np.testing.assert_array_equal(np.argmax(lp_hot, -1), np.argmax(lp[:6], -1))


def test_one_hot_mixture_is_the_program_exactly():
    p = jax.nn.softmax(jax.random.normal(jax.random.PRNGKey(7), (8, 11)))
    for k in range(8):
        # 1·p + 0·q = p in floating point: exact by construction (the same array of π)
        np.testing.assert_array_equal(np.asarray(pt.mixture_probs(jax.nn.one_hot(k, 8), p)), np.asarray(p[k]))
    w = jnp.array([0.25, 0.75] + [0.0] * 6)
    np.testing.assert_allclose(
        np.asarray(pt.mixture_probs(w, p)), np.asarray(0.25 * p[0] + 0.75 * p[1]), rtol=1e-6
    )


def test_mutual_information_against_entropies():
    rng = np.random.default_rng(8)
    c = rng.integers(0, 20, size=(5, 4, 6)).astype(float)
    p = c / c.sum(axis=(1, 2), keepdims=True)

    def h(q):
        q = q[q > 0]
        return -(q * np.log2(q)).sum()

    ref = [h(pi.sum(1)) + h(pi.sum(0)) - h(pi.ravel()) for pi in p]
    np.testing.assert_allclose(pt.mutual_information_bits(c), ref, atol=1e-12)
    assert abs(float(pt.mutual_information_bits(np.outer([1, 2, 3], [4, 5])))) < 1e-12
    assert float(pt.mutual_information_bits(np.eye(4) * 7)) == pytest.approx(2.0)


def test_teacher_states_follow_the_tour():
    x = pt.random_instances(jax.random.PRNGKey(9), 1, 7)[0]
    tour = jnp.array([0, 4, 2, 6, 1, 3, 5])
    raw, unv, act, feats = jax.jit(pt.teacher_states)(x, tour)
    assert raw.shape == (5, 6, 7) and feats.shape[0] == 5
    np.testing.assert_array_equal(np.asarray(act), np.asarray(tour[1:6]))
    np.testing.assert_array_equal(np.asarray(unv).sum(1), 7 - np.arange(1, 6))
    for v in range(1, 6):  # the action is always unvisited, the cities before it visited
        assert bool(unv[v - 1, tour[v]]) and not np.asarray(unv[v - 1])[np.asarray(tour[:v])].any()


def test_spec_rejects_bad_sizes():
    with pytest.raises(ValueError, match="n_nodes"):
        pt.PortfolioSpec(n_nodes=3)
    with pytest.raises(ValueError, match="prune_keep"):
        pt.PortfolioSpec(prune_keep=9, boost_rounds=2)


TINY = pt.PortfolioSpec(
    n_nodes=7,
    n_train=24,
    n_test=16,
    hidden=8,
    train_steps=30,
    batch=32,
    boost_rounds=1,
    boost_steps=10,
    round_steps=10,
    prune_keep=2,
    prune_steps=10,
    two_opt_moves=16,
    n_stages=2,
)


@pytest.mark.slow  # one compile of the whole run (~15 s); the smoke test covers the same code
def test_tiny_run_shapes_identity_and_validity():
    out = jax.jit(lambda k: pt.run(TINY, pt.DEFAULT_PARAMS, k))(jax.random.PRNGKey(0))
    assert out["agree_program"].shape == (16, 7) and out["kl_boost"].shape == (16, 2)
    assert out["stage_counts"].shape == (16, 2, 7)
    # every held-out state is counted once
    np.testing.assert_array_equal(np.asarray(out["stage_counts"]).sum((1, 2)), TINY.n_decisions)
    assert float(out["identity_prob_err"]) == 0.0 and float(out["identity_len_err"]) == 0.0
    assert bool(jnp.all(out["valid_tours"]))
    assert int(out["kept"].sum()) == 2
    np.testing.assert_allclose(float(out["mass"].sum()), 1.0, atol=1e-5)
    assert float(out["mass"][7 - 1]) > 0  # the boosted slot is active
    for name in ("len_teacher", "len_base", "len_final", "len_pruned", "kl_boost", "kl_control"):
        assert np.all(np.isfinite(np.asarray(out[name])))
    # the teacher's tours are never longer than the nearest-neighbour program's greedy tour
    assert np.all(np.asarray(out["len_teacher"]) <= np.asarray(out["len_program"][:, 0]) + 1e-5)
    # both branches start from the same base router
    assert float(out["kl_boost"][0, 0]) == float(out["kl_control"][0, 0])
