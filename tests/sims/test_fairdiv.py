"""Fair division (arXiv 2605.10371): the α-EFkX evaluator, exhaustive search, round-robin,
envy-cycle elimination and orientations, each against a plain-Python/numpy float64 reference
written here (subsets by itertools, no sorting)."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.discrete import fairdiv as fd

# α is a float32 ratio of two exact integers (|values| < 2**24): one rounding of the
# quotient, relative error <= 2**-24; 1e-6 leaves room and still catches a wrong subset.
RTOL = 1e-6


# -- references ----------------------------------------------------------------------
def ref_alpha(v, a, k):
    """min over pairs with |A_j| > k of min(1, v_i(A_i) / max_{|S|=k} v_i(A_j \\ S)), by subsets."""
    v = np.asarray(v, np.float64)
    a = np.asarray(a)
    n = v.shape[0]
    best = 1.0
    for i in range(n):
        own = v[i, a == i].sum()
        for j in range(n):
            goods = np.flatnonzero(a == j)
            if i == j or len(goods) <= k:
                continue
            rem = max(v[i, [g for g in goods if g not in S]].sum() for S in itertools.combinations(goods, k))
            if own >= rem:
                continue
            best = min(best, own / rem)
    return best


def ref_round_robin(v):
    v = np.asarray(v)
    n, m = v.shape
    a = [-1] * m
    for t in range(m):
        i = t % n
        free = [g for g in range(m) if a[g] < 0]
        a[max(free, key=lambda g: (v[i, g], -g))] = i
    return a


def ref_ece(v, rotations=None):
    """Envy-cycle elimination, written with Python lists (rule as documented in fairdiv).

    ``rotations``, a list, gets one entry per cycle rotated.
    """
    v = np.asarray(v)
    n, m = v.shape
    a = [-1] * m
    rotations = [] if rotations is None else rotations

    def worth(i, j):
        return sum(int(v[i, g]) for g in range(m) if a[g] == j)

    def envies(i, j):
        return i != j and worth(i, j) > worth(i, i)

    def eliminate():
        while all(any(envies(i, j) for i in range(n)) for j in range(n)):
            pred = [min(i for i in range(n) if envies(i, j)) for j in range(n)]
            x = 0
            for _ in range(n):
                x = pred[x]
            cycle, y = [], x
            while True:
                cycle.append(y)
                y = pred[y]
                if y == x:
                    break
            rotations.append(len(cycle))
            old = list(a)
            for y in cycle:
                for g in range(m):
                    if old[g] == y:
                        a[g] = pred[y]

    for _ in range(m):
        eliminate()
        s = min(j for j in range(n) if not any(envies(i, j) for i in range(n)))
        free = [g for g in range(m) if a[g] < 0]
        a[max(free, key=lambda g: (v[s, g], -g))] = s
    eliminate()
    return a


def random_instances(rng, count, n, m, high):
    v = rng.integers(0, high + 1, (count, n, m))
    a = rng.integers(0, n, (count, m))
    return v.astype(np.int32), a.astype(np.int32)


_alpha_batch = jax.jit(jax.vmap(lambda v, a: fd.alpha_efkx(v, a, (0, 1, 2, 3))))


# -- the evaluator ---------------------------------------------------------------------
@pytest.mark.parametrize("n,m,high", [(3, 6, 5), (4, 5, 1000)])
def test_alpha_matches_subset_reference(n, m, high):
    # small integer values (0..5) give ties and zero-valued goods; 0..1000 the generic case
    rng = np.random.default_rng(n * 100 + m)
    v, a = random_instances(rng, 150, n, m, high)
    got = np.asarray(_alpha_batch(v, a))
    ref = np.array([[ref_alpha(v[t], a[t], k) for k in (0, 1, 2, 3)] for t in range(len(v))])
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=0)
    assert (got == 1.0).any() and (got < 1.0).any() and (got == 0.0).any()  # all regimes seen


_alpha = jax.jit(fd.alpha_efkx, static_argnums=2)


def test_textbook_ef_and_efx():
    # two agents, goods worth (1, 1, 4) to both: {0, 1} vs {2} is EFX, not EF
    v = jnp.array([[1, 1, 4], [1, 1, 4]])
    a = jnp.array([0, 0, 1])
    assert np.asarray(_alpha(v, a, (0, 1))).tolist() == [0.5, 1.0]
    assert not bool(fd.is_envy_free(v, a)) and bool(fd.is_efx(v, a))
    # {0, 2} vs {1}: agent 1 still envies after removing good 0 (4 > 1): α_1 = 1/4
    b = jnp.array([0, 1, 0])
    assert float(_alpha(v, b, 1)) == 0.25 and not bool(fd.is_efx(v, b))
    # a bundle of k goods never binds: one good each, k = 1
    assert float(_alpha(jnp.array([[1, 9], [1, 9]]), jnp.array([0, 1]), 1)) == 1.0
    # zero-valued goods count (EFX0): 0 holds nothing and sees {worthless, worth 5}
    assert float(_alpha(jnp.array([[0, 5], [1, 1]]), jnp.array([1, 1]), 1)) == 0.0


def test_bad_k_and_shape_are_refused():
    with pytest.raises(ValueError, match="non-negative"):
        fd.alpha_efkx(jnp.ones((2, 3)), jnp.zeros(3, int), -1)
    with pytest.raises(ValueError, match="agents"):
        fd.alpha_efkx(jnp.ones(3), jnp.zeros(3, int), 1)


# -- exhaustive search -----------------------------------------------------------------
def test_best_alpha_matches_brute_force():
    rng = np.random.default_rng(7)
    v = rng.integers(0, 6, (3, 5)).astype(np.int32)  # ties and zeros
    out = jax.jit(lambda x: fd.best_alpha(x, (0, 1, 2, 3), chunk=50))(v)  # 243 = 4 chunks + padding
    allocs = list(itertools.product(range(3), repeat=5))
    al = np.array([[ref_alpha(v, a, k) for k in (0, 1, 2, 3)] for a in allocs])
    np.testing.assert_allclose(np.asarray(out["best"]), al.max(0), rtol=RTOL)
    np.testing.assert_array_equal(np.asarray(out["n_efkx"]), (al >= 1.0).sum(0))
    ef = sum(
        all(v[i, np.array(a) == i].sum() >= v[i, np.array(a) == j].sum() for i in range(3) for j in range(3))
        for a in allocs
    )
    assert int(out["n_ef"]) == ef == int((al[:, 0] >= 1).sum())
    assert int(out["n_efx"]) == int((al[:, 1] >= 1).sum())
    assert int(out["mismatch"]) == 0


# -- baselines -------------------------------------------------------------------------
def test_round_robin_and_ece_match_references():
    rng = np.random.default_rng(3)
    rr = jax.jit(jax.vmap(fd.round_robin))
    ece = jax.jit(jax.vmap(fd.envy_cycle_elimination))
    rotations = []
    # values 0..10 on 5 agents give rotations of 2- and 3-cycles; 0..1000 the generic case
    for n, m, high in [(4, 6, 1000), (5, 9, 10)]:
        v, _ = random_instances(rng, 100, n, m, high)
        got_rr, got_ece = np.asarray(rr(v)), np.asarray(ece(v))
        for t in range(len(v)):
            assert got_rr[t].tolist() == ref_round_robin(v[t])
            assert got_ece[t].tolist() == ref_ece(v[t], rotations)
        # envy-cycle elimination with favourite goods is 1/2-EFX on every instance here
        assert min(ref_alpha(v[t], got_ece[t], 1) for t in range(len(v))) >= 0.5
    # the cycle rotation was exercised, with cycles longer than two as well
    assert len(rotations) >= 5 and max(rotations) >= 3


# -- orientations ----------------------------------------------------------------------
def test_orientation_brute_force_matches_reference():
    # a triangle with parallel edges, endpoint values with ties
    ends = np.array([[0, 1], [0, 1], [1, 2], [2, 0], [2, 0], [1, 2]], np.int32)
    w = np.array([[3, 1], [2, 2], [5, 1], [1, 4], [2, 2], [1, 1]], np.int32)
    v = np.zeros((3, 6), np.int32)
    for e, (x, y) in enumerate(ends):
        v[x, e], v[y, e] = w[e]
    np.testing.assert_array_equal(np.asarray(fd.multigraph_values(ends, w, 3)), v)
    out = jax.jit(lambda e, x: fd.best_orientation_alpha(e, x, 3, (0, 1, 2), chunk=16))(ends, w)
    als = []
    for bits in itertools.product((0, 1), repeat=6):
        a = [ends[e, b] for e, b in enumerate(bits)]
        als.append([ref_alpha(v, a, k) for k in (0, 1, 2)])
    als = np.array(als)
    np.testing.assert_allclose(np.asarray(out["best"]), als.max(0), rtol=RTOL)
    np.testing.assert_array_equal(np.asarray(out["n_efkx"]), (als >= 1).sum(0))


def test_random_multigraph_and_values_are_valid():
    ends, w = jax.jit(fd.random_multigraph, static_argnums=(1, 2))(jax.random.key(0), 4, 9)
    ends, w = np.asarray(ends), np.asarray(w)
    assert ((ends >= 0) & (ends < 4)).all() and (ends[:, 0] != ends[:, 1]).all()
    assert w.min() >= 1 and w.max() < 2048
    keys = jax.random.split(jax.random.key(1), 3)
    v = np.asarray(jax.jit(jax.vmap(lambda k, f: fd.sample_values(k, f, 3, 50)))(keys, jnp.arange(3)))
    assert v.min() >= 1 and v.max() <= fd.VALUE_SCALE
    # bimodal: every value small (<= 100) or large (>= 900)
    assert ((v[2] <= 100) | (v[2] >= 900)).all()
    # correlated: agents agree on goods far more than independent draws do
    assert np.corrcoef(v[1])[0, 1] > 0.8 > abs(np.corrcoef(v[0])[0, 1])
    with pytest.raises(ValueError, match="2 agents"):
        fd.random_multigraph(jax.random.key(0), 1, 3)
