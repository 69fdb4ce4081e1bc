"""The GDRO simulator and its helpers, against exact enumeration and closed forms.

Checks: Wolfe's least-norm point against closed forms (simplex vertices, a segment, 0
inside the hull) and against brute-force enumeration of every face (float64); the
inclusion probabilities of the query sampler against exact enumeration of its law, its
sets (exactly r distinct, the first draw in them) and Monte Carlo frequencies, and that
``jax.random.choice(p=q, replace=False)`` has other inclusion probabilities; the exact
duality gap of the linear instance (zero at the saddle point, its two parts against a
numerical minimization over the ball); and one small run (shapes, eps = primal + dual,
both >= 0, samples and bound in closed form for a fixed r).
"""

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.dro import gdro
from jaxtheory.sims.dro.hull import hull_distance, min_norm_point


# ------------------------------------------------------------------------------ hull
def _brute_distance(P):
    """min over faces of the affine least-norm point with nonnegative weights (exact)."""
    best = np.inf
    m = len(P)
    for k in range(1, m + 1):
        for S in itertools.combinations(range(m), k):
            Q = P[list(S)]
            A = np.block([[Q @ Q.T, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
            if np.linalg.matrix_rank(A) < k + 1:
                continue
            a = np.linalg.solve(A, np.r_[np.zeros(k), 1.0])[:k]
            if np.all(a >= -1e-12):
                best = min(best, float(np.linalg.norm(a @ Q)))
    return best


def test_hull_closed_forms():
    for m in (2, 3, 7):
        x, q = min_norm_point(2.0 * np.eye(m))
        np.testing.assert_allclose(np.linalg.norm(x), 2.0 / math.sqrt(m), rtol=1e-12)
        np.testing.assert_allclose(q, np.full(m, 1.0 / m), atol=1e-12)
    # the segment from (1, 1) to (1, -3): nearest point (1, 0), weights (3/4, 1/4)
    x, q = min_norm_point(np.array([[1.0, 1.0], [1.0, -3.0]]))
    np.testing.assert_allclose(x, [1.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(q, [0.75, 0.25], atol=1e-12)
    # a far vertex does not move the answer: (3, 0) next to the segment
    assert abs(hull_distance(np.array([[1.0, 1.0], [1.0, -3.0], [3.0, 0.0]])) - 1.0) < 1e-12
    # 0 inside the hull
    assert hull_distance(np.array([[1.0, 0.0], [-1.0, 0.5], [0.0, -1.0]])) < 1e-12


def test_hull_against_brute_force_and_certificate():
    rng = np.random.default_rng(0)
    for _ in range(60):
        m, d = int(rng.integers(1, 7)), int(rng.integers(1, 6))
        P = rng.standard_normal((m, d)) + 2.0 * rng.random() * rng.standard_normal(d)
        x, q = min_norm_point(P)
        assert np.all(q >= 0) and abs(q.sum() - 1.0) < 1e-12
        np.testing.assert_allclose(x, q @ P, atol=1e-12)
        # float64, a few linear solves: agreement to 1e-10
        assert abs(np.linalg.norm(x) - _brute_distance(P)) < 1e-10
        # optimality: no point of the hull has a smaller inner product with x than |x|^2
        assert np.min(P @ x) >= x @ x - 1e-10


def test_hull_rejects_bad_input():
    with pytest.raises(ValueError):
        min_norm_point(np.zeros((0, 3)))
    with pytest.raises(ValueError):
        min_norm_point(np.array([[np.nan, 1.0]]))


# --------------------------------------------------------------------------- queries
def _exact_inclusion(q, r):
    """P(i in S) by enumeration of the sampler's law: P(S) = sum_{i in S} q_i / C(m-1, r-1)."""
    m = len(q)
    o = np.zeros(m)
    for S in itertools.combinations(range(m), r):
        p = sum(q[i] for i in S) / math.comb(m - 1, r - 1)
        o[list(S)] += p
    return o


def test_inclusion_probabilities_match_exact_enumeration():
    q = np.array([0.4, 0.25, 0.15, 0.1, 0.07, 0.03])
    for r in range(1, 7):
        o = np.asarray(gdro.inclusion_probabilities(jnp.asarray(q), r), np.float64)
        np.testing.assert_allclose(o, _exact_inclusion(q, r), rtol=1e-6)
        assert abs(o.sum() - r) < 1e-5


def test_sample_queries_law():
    q = jnp.asarray([0.4, 0.25, 0.15, 0.1, 0.07, 0.03])
    n = 40_000
    keys = jax.random.split(jax.random.key(0), n)
    draw = jax.jit(jax.vmap(lambda k, r: gdro.sample_queries(k, q, r), in_axes=(0, None)))  # r traced
    for r in (1, 2, 4):
        chosen, inc = draw(keys, r)
        chosen, inc = np.asarray(chosen), np.asarray(inc)
        assert np.all(chosen.sum(1) == 1) and np.all(inc.sum(1) == r) and np.all(inc[chosen])
        o = _exact_inclusion(np.asarray(q, np.float64), r)
        se = np.sqrt(o * (1 - o) / n)
        # 4.5 SE per group: with 6 groups and 3 values of r a false alarm has chance < 1e-4
        assert np.all(np.abs(inc.mean(0) - o) <= 4.5 * se + 1e-12), (r, inc.mean(0), o)
        np.testing.assert_allclose(chosen.mean(0), np.asarray(q), atol=4.5 * 0.0025)


def test_jax_random_choice_has_other_inclusion_probabilities():
    # successive sampling without replacement: P(i in S) for r = 2 is
    # q_i + sum_{j != i} q_j q_i / (1 - q_j), not q_i + (1 - q_i)/(m - 1)
    q = np.array([0.4, 0.25, 0.15, 0.1, 0.07, 0.03])
    succ = q + np.array([sum(q[j] * q[i] / (1 - q[j]) for j in range(6) if j != i) for i in range(6)])
    o = _exact_inclusion(q, 2)
    assert np.max(np.abs(succ - o)) > 0.1
    n = 20_000
    draws = jax.vmap(lambda k: jax.random.choice(k, 6, (2,), replace=False, p=jnp.asarray(q)))(
        jax.random.split(jax.random.key(1), n)
    )
    freq = np.bincount(np.asarray(draws).ravel(), minlength=6) / n
    np.testing.assert_allclose(freq, succ, atol=4.5 * 0.0036)  # SE <= sqrt(1/4 / n)
    assert np.max(np.abs(freq - o)) > 0.1


def test_schedule_distribution():
    m = 10
    for code, want in ((0, 1), (1, 2), (2, 5), (3, 10)):
        p = np.asarray(gdro.schedule_distribution(code, m))
        assert p[want - 1] == 1.0 and p.sum() == 1.0
    np.testing.assert_allclose(gdro.schedule_distribution(4, m), np.full(m, 0.1), rtol=1e-6)
    p = np.asarray(gdro.schedule_distribution(5, m))
    assert p[0] == p[-1] == 0.5


# ------------------------------------------------------------------------------- gap
def test_saddle_point_has_zero_gap_and_the_value():
    spec = gdro.GDROSpec()
    s = gdro.saddle_point(spec)
    with jax.enable_x64(True):
        eps, hi, lo = gdro.epsilon_phi(
            jnp.asarray(s["w_star"]), jnp.asarray(s["q_star"]), jnp.asarray(s["mu"])
        )
        # float64 least-norm point and gap: round-off only
        assert abs(float(eps)) < 1e-12
        assert abs(float(hi) - s["value"]) < 1e-12 and abs(float(lo) - s["value"]) < 1e-12
    # every group with positive weight is a worst group at w*: <w*, mu_i> = -dist
    act = s["q_star"] > 0
    np.testing.assert_allclose(s["mu"][act] @ s["w_star"], -s["dist"], atol=1e-12)
    assert np.all(s["mu"] @ s["w_star"] <= -s["dist"] + 1e-12)


def test_epsilon_phi_parts_against_numerical_optimization():
    rng = np.random.default_rng(2)
    mu = rng.standard_normal((5, 3)) * 0.3
    D, R = 2.0, 1.5
    q = rng.random(5)
    q /= q.sum()
    w = rng.standard_normal(3)
    w *= 0.8 * D / np.linalg.norm(w)
    with jax.enable_x64(True):
        eps, hi, lo = (
            float(x) for x in gdro.epsilon_phi(jnp.asarray(w), jnp.asarray(q), jnp.asarray(mu), D, R)
        )
    phi = lambda ww, qq: 0.5 * (1 + (qq @ mu) @ ww / (D * R))  # noqa: E731
    # max over q of a linear function: at a vertex of the simplex
    assert abs(hi - max(phi(w, np.eye(5)[i]) for i in range(5))) < 1e-12
    # min over the ball: projected gradient descent in numpy (a linear function on a ball)
    v = np.zeros(3)
    for _ in range(200):
        v = v - 0.5 * (q @ mu)
        v *= min(1.0, D / np.linalg.norm(v))
    assert abs(lo - phi(v, q)) < 1e-10
    assert abs(eps - (hi - lo)) < 1e-12


# ------------------------------------------------------------------------------- run
def test_run_small():
    spec = gdro.GDROSpec(groups=5, dim=4, steps=300, checkpoints=5, draws=2_000, draw_batch=1_000)
    runs = jax.jit(jax.vmap(lambda c, k: gdro.run(spec, dict(gdro.DEFAULT_PARAMS, schedule=c), k)))
    codes = jnp.asarray([0, 1, 2, 3, 4, 5])
    out = jax.tree.map(np.asarray, runs(codes, jax.random.split(jax.random.key(0), 6)))
    t = gdro.checkpoints(spec)
    assert out["eps"].shape == (6, len(t)) and out["incl_freq"].shape == (6, 5)
    # eps = primal + dual exactly up to float32 round-off of values near 0.5
    np.testing.assert_allclose(out["eps"], out["primal_gap"] + out["dual_gap"], atol=1e-6)
    assert out["primal_gap"].min() > -1e-6 and out["dual_gap"].min() > -1e-6
    for i, r in enumerate((1, 2, 2, 5)):  # r=1, r=2, r=m/2 = 2, r=m = 5
        np.testing.assert_array_equal(out["samples"][i], r * t)
        np.testing.assert_allclose(out["bound"][i], np.sqrt(t * 5 / r * math.log(5)) / t, rtol=1e-5)
    assert np.all((out["samples"][4] >= t) & (out["samples"][4] <= 5 * t))
    np.testing.assert_array_equal(out["samples"][5], [3 * k + 2 * (k % 2) for k in t])  # 5, 1, 5, 1 ...
    np.testing.assert_allclose(out["q_final"].sum(1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(out["value"], gdro.saddle_point(spec)["value"], rtol=1e-6)
