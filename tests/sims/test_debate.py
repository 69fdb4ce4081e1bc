"""The debate simulator against independent references: enumeration, closed forms, recursion."""

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.games import debate as db


def _mc_tol(p, n, z=5.0):
    """A 5-sigma Monte Carlo tolerance for a proportion p estimated from n trials."""
    return z * math.sqrt(max(p * (1 - p), 1e-4) / n)


@pytest.mark.parametrize("q", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("gate", db.GATES)
def test_flip_probability_matches_enumeration(q, gate):
    # Under the coupling each child is (0,0) w.p. 1-p-eps, (0,1) w.p. eps, (1,1) w.p. p;
    # enumerate all 3^q joint states (float64 sums of products: agreement to 1e-12).
    k = db.gate_threshold(gate, q)
    for p, eps in [(0.5, 0.1), (0.7, 0.05), (0.2, 0.3), (0.9, 0.1)]:
        probs = {(0, 0): 1 - p - eps, (0, 1): eps, (1, 1): p}
        exact = 0.0
        for states in itertools.product(probs, repeat=q):
            a = sum(s[0] for s in states) >= k
            b = sum(s[1] for s in states) >= k
            if a != b:
                exact += math.prod(probs[s] for s in states)
        assert db.flip_probability(q, k, p, eps) == pytest.approx(exact, abs=1e-12)


def test_gate_flips_monte_carlo_matches_closed_form():
    n = 20000
    for q, gate, p, eps in [(7, "majority", 0.5, 0.1), (5, "majority", 0.7, 0.05), (5, "and", 0.9, 0.1)]:
        k = db.gate_threshold(gate, q)
        got = int(db.gate_flips(jax.random.key(q), q, k, p, eps, n)) / n
        want = db.flip_probability(q, k, p, eps)
        assert abs(got - want) < _mc_tol(want, n)


def _evaluate_recursive(leaves, q, k, lo, size):
    if size == 1:
        return bool(leaves[lo])
    sub = size // q
    return sum(_evaluate_recursive(leaves, q, k, lo + j * sub, sub) for j in range(q)) >= k


def test_evaluate_tree_matches_recursion():
    rng = np.random.default_rng(0)
    for q, depth in [(2, 4), (3, 3), (5, 2)]:
        for gate in db.GATES:
            k = db.gate_threshold(gate, q)
            for _ in range(20):
                leaves = rng.random(q**depth) < (0.5 if gate == "majority" else 0.9)
                levels = db.evaluate_tree(jnp.asarray(leaves), q, k)
                assert [lv.shape[0] for lv in levels] == [q**d for d in range(depth + 1)]
                for d, lv in enumerate(levels):
                    size = q ** (depth - d)
                    ref = [_evaluate_recursive(leaves, q, k, j * size, size) for j in range(q**d)]
                    assert lv.tolist() == ref


def test_evaluate_tree_rejects_bad_leaf_count():
    with pytest.raises(ValueError, match="power of q"):
        db.evaluate_tree(jnp.ones(10, bool), 3, 2)


def test_planted_tree_correlation_closed_form():
    # Leaves 0 and N-1 part at the root: each is the root's value through D binary
    # symmetric channels, so P(agree) = (1 + (1 - 2 delta)^(2D)) / 2.
    depth, q, delta, n = 3, 3, 0.1, 20000
    trees = jax.vmap(lambda k: db.planted_tree(k, depth, q, delta))(jax.random.split(jax.random.key(1), n))
    agree = float(jnp.mean(trees[:, 0] == trees[:, -1]))
    want = (1 + (1 - 2 * delta) ** (2 * depth)) / 2
    assert abs(agree - want) < _mc_tol(want, n)
    assert db.planted_tree(jax.random.key(2), 2, 5, 0.0).tolist() in ([True] * 25, [False] * 25)


def test_flaw_tree_root_false_with_one_flaw():
    leaves, flaw = db.flaw_tree(jax.random.key(3), 3, 4)
    assert int((~leaves).sum()) == 1 and not bool(leaves[flaw])
    assert not bool(db.evaluate_tree(leaves, 4, db.gate_threshold("and", 4))[0][0])


def test_search_debate_win_rate_is_b_over_n_for_a_fixed_flaw():
    # The challenger's order is independent of the flaw; even with the flaw fixed its
    # position in the order is uniform (the offset c is uniform), so P(win) = min(1, b/N).
    depth, q, n_games = 2, 4, 8000
    n = q**depth
    leaves = jnp.arange(n) != 5
    budgets = (1, 3, 8, 16, 40)
    wins = jax.vmap(lambda k: db.search_debate(k, leaves, budgets, q))(
        jax.random.split(jax.random.key(4), n_games)
    )
    rate = np.asarray(wins.mean(0))
    for b, r in zip(budgets, rate):
        want = db.search_win_probability(b, n)
        assert abs(r - want) < _mc_tol(want, n_games) + (1e-12 if want in (0, 1) else 0)
    assert rate[-2] == 1.0 and rate[-1] == 1.0  # b >= N always finds the flaw


def test_pe_debate_one_round_is_exact():
    # D = 1: the children are leaves, both agents read them exactly, so the side assigned
    # the truth always wins, for every leaf configuration and gate.
    q = 3
    for gate in db.GATES:
        k = db.gate_threshold(gate, q)
        for bits in itertools.product([False, True], repeat=q):
            leaves = jnp.asarray(bits)
            truth = bool(db.evaluate_tree(leaves, q, k)[0][0])
            for seed in range(3):
                key = jax.random.key(seed)
                assert bool(db.pe_debate(key, leaves, q, k, truth, 1, 1))  # honest prover wins
                assert not bool(db.pe_debate(key, leaves, q, k, not truth, 1, 1))  # honest estimator wins


@pytest.mark.parametrize("honest", db.SIDES)
def test_pe_debate_on_flaw_tree_matches_closed_form(honest):
    depth, q, n_games = 3, 3, 6000
    for h, s in [(1, 4), (4, 1), (8, 8)]:
        keys = jax.random.split(jax.random.key(h * 10 + s), n_games)

        def game(key, h=h, s=s):
            kt, kg = jax.random.split(key)
            leaves, _ = db.flaw_tree(kt, depth, q)
            k = db.gate_threshold("and", q)
            if honest == "prover":  # Alice asserts the truth (false)
                return db.pe_debate(kg, leaves, q, k, False, h, s, max_budget=8)
            return ~db.pe_debate(kg, leaves, q, k, True, s, h, max_budget=8)

        rate = float(jax.vmap(game)(keys).mean())
        want = db.obfuscated_pe_win_probability(depth, q, h)
        assert abs(rate - want) < _mc_tol(want, n_games)


def test_pe_debate_honest_side_wins_on_noiseless_planted_tree():
    # delta = 0: every node equals the root, all reads agree, the honest side always wins.
    q, depth = 5, 3
    k = db.gate_threshold("majority", q)
    for seed in range(10):
        leaves = db.planted_tree(jax.random.key(seed), depth, q, 0.0)
        truth = bool(leaves[0])
        assert bool(db.pe_debate(jax.random.key(100 + seed), leaves, q, k, truth, 1, 3))
        assert not bool(db.pe_debate(jax.random.key(200 + seed), leaves, q, k, not truth, 3, 1))


def test_run_counts_and_shapes():
    spec = db.DebateSpec(depth=2, branching=3, games=32, flip_trials=64)
    out = jax.jit(lambda k: db.run(spec, db.DEFAULT_PARAMS, k))(jax.random.key(0))
    assert out["flip_count"].shape == (2, 3, 3) and out["search_wins"].shape == (7,)
    assert out["stable_wins"].shape == (3, 2, 2, 3) and out["obfuscated_wins"].shape == (2, 2, 3)
    assert int(out["flip_count"].max()) <= 64 and int(out["stable_wins"].max()) <= 32
    # budgets 16 and up are at least N = 9: the challenger always wins
    assert out["search_wins"].tolist()[2:] == [32] * 5


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"depth": 0}, "depth"),
        ({"branching": 1}, "branching"),
        ({"deltas": (0.6,)}, "deltas"),
        ({"flip_p": (0.95,), "flip_eps": (0.1,)}, "p \\+ eps"),
        ({"search_budgets": (0,)}, "search budgets"),
        ({"opponent_budgets": (3,), "ratios": (0.5,)}, "not a positive integer"),
    ],
)
def test_spec_rejects_bad_values(kw, match):
    with pytest.raises(ValueError, match=match):
        db.DebateSpec(**kw)


def test_gate_threshold_rejects_unknown_gate():
    with pytest.raises(ValueError, match="unknown gate"):
        db.gate_threshold("or", 3)
