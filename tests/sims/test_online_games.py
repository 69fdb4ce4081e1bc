"""online_games: the dynamic programs against brute-force minimax written from the definitions.

The references below share nothing with the module: hypotheses are tuples of labels,
version spaces are lists, the learner's ``min`` over predictions and the adversary's
``max`` over consistent labels are spelled out, the standard adversary may repeat points,
and the transductive value is the maximum over all ``n!`` orders.
"""

import itertools
import math

import numpy as np
import pytest

from jaxtheory.sims.discrete import online_games as og


# -- independent references -------------------------------------------------------------------
def _labels(hyps, n):
    return [tuple((h >> i) & 1 for i in range(n)) for h in hyps]


def _round(V, x, rest):
    """min over the prediction of max over consistent labels of mistake + rest(V_y)."""
    worst = []
    for yhat in (0, 1):
        vals = [
            int(yhat != y) + rest([h for h in V if h[x] == y]) for y in (0, 1) if any(h[x] == y for h in V)
        ]
        worst.append(max(vals))
    return min(worst)


def brute_directed(hyps, n):
    def val(R, V):
        if not R:
            return 0
        return max(_round(V, x, lambda W, x=x: val(tuple(p for p in R if p != x), W)) for x in R)

    return val(tuple(range(n)), _labels(hyps, n))


def brute_standard(hyps, n, rounds):
    memo = {}  # plain memo on (rounds left, the version space as a sorted tuple)

    def val(t, V):
        if t == 0:
            return 0
        key = (t, tuple(sorted(V)))
        if key not in memo:
            memo[key] = max(_round(V, x, lambda W: val(t - 1, W)) for x in range(n))  # repeats allowed
        return memo[key]

    return val(rounds, _labels(hyps, n))


def brute_transductive(hyps, n):
    def val(order, V):
        if not order:
            return 0
        return _round(V, order[0], lambda W: val(order[1:], W))

    return max(val(p, _labels(hyps, n)) for p in itertools.permutations(range(n)))


def _random_classes(count, seed=0, max_n=5):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(1, max_n + 1))
        k = int(rng.integers(1, min(2**n, 10) + 1))
        out.append((sorted(rng.choice(2**n, size=k, replace=False).tolist()), n))
    return out


NAMED = [(og.hypotheses(c, n), n) for c in og.CLASSES for n in range(1, 5)]
RANDOM = _random_classes(40)


# -- classes ----------------------------------------------------------------------------------
def test_interval_unions_match_explicit_unions():
    for n in range(1, 7):
        for k in range(3):
            want = {0}  # every union of at most k intervals [a, b), built from endpoints
            intervals = [(a, b) for a in range(n) for b in range(a + 1, n + 1)]
            for j in range(1, k + 1):
                for chosen in itertools.combinations(intervals, j):
                    h = 0
                    for a, b in chosen:
                        h |= ((1 << (b - a)) - 1) << a
                    want.add(h)
            assert set(og.interval_unions(n, k)) == want, (n, k)


@pytest.mark.parametrize("cls", og.CLASSES)
def test_class_size_formula(cls):
    for n in range(1, 11):
        assert og.class_size(cls, n) == len(og.hypotheses(cls, n))


def test_thresholds_and_singletons_are_what_they_say():
    n = 5
    assert _labels(og.thresholds(n), n) == [tuple(int(x >= a) for x in range(n)) for a in range(n + 1)]
    assert _labels(og.singletons(n), n) == [tuple(int(x == i) for x in range(n)) for i in range(n)]


def test_canonical_drops_forced_points_and_keeps_order():
    # points 1 and 3 vary, 0 is always 1, 2 always 0
    r, W = og.canonical([0b0001, 0b0011, 0b1001, 0b1011], 4)
    assert r == 2 and W == frozenset({0b00, 0b01, 0b10, 0b11})
    r, W = og.canonical([0b110, 0b011], 3)  # points 0 and 2 vary, together and opposite
    assert (r, W) == (2, frozenset({0b10, 0b01}))


# -- the games against the references ---------------------------------------------------------
@pytest.mark.parametrize("hyps,n", NAMED + RANDOM)
def test_directed_and_transductive_match_brute_force(hyps, n):
    assert og.adversary_directed_value(hyps, n) == brute_directed(hyps, n)
    assert og.transductive_value(hyps, n) == brute_transductive(hyps, n)


@pytest.mark.parametrize("hyps,n", NAMED[::3] + RANDOM[:15])
def test_standard_matches_brute_force_for_every_round_budget(hyps, n):
    for rounds in range(n + 2):
        assert og.standard_value(hyps, n, rounds) == brute_standard(hyps, n, rounds), rounds


def test_fixed_order_value_matches_brute_force():
    hyps, n = og.interval_unions(4, 1), 4
    labs = _labels(hyps, n)

    def val(o, V):  # the game with the order o fixed, from the definition
        return 0 if not o else _round(V, o[0], lambda W: val(o[1:], W))

    for order in itertools.permutations(range(n)):
        assert og.fixed_order_value(hyps, n, order) == val(order, labs)


def test_a_class_where_the_fixed_order_helps_the_learner():
    # Random classes on 5 points where the transductive value is below the
    # adversary-directed one: the gap exists, and the brute force confirms it.
    found = None
    for hyps, n in _random_classes(400, seed=1, max_n=5):
        t, a = og.transductive_value(hyps, n), og.adversary_directed_value(hyps, n)
        assert t <= a
        if t < a:
            found = (hyps, n, t, a)
            break
    assert found is not None
    hyps, n, t, a = found
    assert (brute_transductive(hyps, n), brute_directed(hyps, n)) == (t, a)
    # the example the experiment's page cites: 8 labelings of 4 points (point 0 first)
    strings = ["0000", "1010", "0110", "0001", "1101", "0011", "1011", "1111"]
    cited = [sum(int(c) << i for i, c in enumerate(s)) for s in strings]
    assert og.transductive_value(cited, 4) == brute_transductive(cited, 4)
    assert og.adversary_directed_value(cited, 4) == brute_directed(cited, 4)
    assert brute_transductive(cited, 4) < brute_directed(cited, 4)


# -- exact values -----------------------------------------------------------------------------
def test_thresholds_value_is_floor_log2():
    for n in range(1, 13):
        want = math.floor(math.log2(n + 1))
        assert og.standard_value(og.thresholds(n), n, n) == want
        assert og.adversary_directed_value(og.thresholds(n), n) == want
    # fewer rounds than the dimension cap the value; a wider domain raises it
    assert og.standard_value(og.thresholds(12), 12, 2) == 2
    assert og.game_values("thresholds", 2, domain=12)["standard_wide"] == 2


def test_singletons_at_most_one_and_all_labelings_T():
    for n in range(1, 13):
        assert og.adversary_directed_value(og.singletons(n), n) == (1 if n >= 2 else 0)
        assert og.standard_value(og.singletons(n), n, n) <= 1
    for n in range(1, 9):
        v = og.game_values("all_labelings", n)
        assert set(v.values()) == {n}


def test_singletons_transductive_to_ten_points():
    for n in (2, 6, 10):
        assert og.transductive_value(og.singletons(n), n) == 1


# -- Hedge against a naive reference ----------------------------------------------------------
def _naive_hedge(preds, adversary, rng, T):
    """Hedge with an explicit (experts × points) prediction matrix, same adversary rules."""
    m = preds.shape[0]
    eta = math.sqrt(8 * math.log(m) / T)
    if adversary == "coin":
        order, coins = rng.permutation(T), rng.integers(2, size=T)
    else:
        order, coins = np.arange(T), np.ones(T, dtype=np.int64)
    L = np.zeros(m)
    remaining = np.ones(T, dtype=bool)
    loss = 0.0
    for t in range(T):
        w = np.exp(-eta * (L - L.min()))
        q_all = w @ preds / w.sum()
        if adversary == "coin":
            x = int(order[t])
            y = int(coins[t])
        else:
            # closest to 1/2 among the remaining points; ties among points are exact only
            # at symmetric starts (odd horizons avoid them), a tie of labels goes to one
            gap = np.where(remaining, np.abs(q_all - 0.5), np.inf)
            x = int(np.argmin(gap))
            y = 1 if q_all[x] <= 0.5 else 0
        q = q_all[x]
        remaining[x] = False
        loss += (1 - q) if y == 1 else q
        L += preds[:, x] != y
    return loss - L.min()


@pytest.mark.parametrize("adversary", og.ADVERSARIES)
@pytest.mark.parametrize("cls", ["thresholds", "singletons"])
def test_hedge_matches_naive_reference(cls, adversary):
    T = 41  # odd: no exact tie between two points in the directed adversary's first rounds
    preds = np.array(_labels(og.hypotheses(cls, T), T), dtype=float)
    for seed in range(3):
        got = og.hedge_regret(cls, T, adversary, np.random.default_rng(seed))["regret"]
        want = _naive_hedge(preds, adversary, np.random.default_rng(seed), T)
        # float64 sums over ≤ 42 experts and 41 rounds: agreement to ~1e-12, 1e-9 leaves room
        assert got == pytest.approx(want, abs=1e-9), seed


@pytest.mark.parametrize("adversary", og.ADVERSARIES)
def test_hedge_all_labelings_is_half_per_round(adversary):
    T = 8
    preds = np.array(_labels(og.all_labelings(T), T), dtype=float)
    want = _naive_hedge(preds, adversary, np.random.default_rng(0), T)
    assert want == pytest.approx(T / 2, abs=1e-12)  # exact 1/2 in every round, best 0
    assert og.hedge_regret("all_labelings", T, adversary, np.random.default_rng(0))["regret"] == T / 2


def test_hedge_regret_within_bound():
    for cls in ("thresholds", "singletons", "all_labelings"):
        for T in (10, 100, 500):
            for seed in range(3):
                r = og.hedge_regret(cls, T, "coin", np.random.default_rng(seed))["regret"]
                assert r <= og.hedge_bound(cls, T)
            assert og.hedge_regret(cls, T, "directed")["regret"] <= og.hedge_bound(cls, T)


# -- run and input checks ---------------------------------------------------------------------
def test_run_outputs_and_seed_independence():
    spec = og.OnlineGameSpec()
    a = og.run(spec, {"cls": 1, "T": 5, "horizon": 60}, 1)
    b = og.run(spec, {"cls": 1, "T": 5, "horizon": 60}, 2)
    assert set(a) == {*og.game_values("thresholds", 5, 12), "hedge_regret", "hedge_ran", "hedge_bound"}
    for k in ("transductive", "adversary_directed", "standard", "standard_wide", "hedge_bound"):
        assert a[k] == b[k]
    assert a["hedge_regret"][1] == b["hedge_regret"][1]  # the directed adversary is deterministic
    assert a["hedge_regret"][0] != b["hedge_regret"][0]  # the coin one is not
    c = og.run(og.OnlineGameSpec(domain=6), {"cls": 2, "T": 5, "horizon": 60}, 1)
    assert int(c["hedge_ran"]) == 0 and (c["hedge_regret"] == 0).all()


def test_bad_input_raises():
    with pytest.raises(ValueError, match="twice"):
        og.adversary_directed_value([1, 1], 2)
    with pytest.raises(ValueError, match="outside"):
        og.standard_value([4], 2, 1)
    with pytest.raises(ValueError, match="permutation"):
        og.fixed_order_value([0, 1], 2, [0, 0])
    with pytest.raises(ValueError, match="unknown class"):
        og.hypotheses("halfspaces", 3)
    with pytest.raises(ValueError, match="exceeds"):
        og.run(og.OnlineGameSpec(domain=4), {"cls": 1, "T": 5, "horizon": 10}, 0)
    with pytest.raises(ValueError, match="Hedge"):
        og.hedge_regret("two_intervals", 10, "coin", np.random.default_rng(0))
