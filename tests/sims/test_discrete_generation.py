"""jaxtheory.sims.discrete.generation against plain-Python references on tiny universes.

The references rebuild every language as a Python set of integers from its patterns and
cuts, the adversary's reveals by sorting ``K'``, the critical language by explicit set
inclusions, and play each generator with sets; outputs must agree exactly (integers).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.discrete import generation as g

SPEC = g.GenerationSpec(universe=3000, rounds=100, decoys=3, windows=(16, 48, 300, 3000), bins=4)


def _sets(col, spec):
    lo, hi, cut, P = (np.asarray(a) for a in col)
    P = int(P)
    return [
        {x for x in range(1, spec.universe + 1) if (lo[i] if x <= cut[i] else hi[i])[(x - 1) % P]}
        for i in range(lo.shape[0])
    ]


def _reference(spec, col, lam, coins, ranks, generator):
    """Plain-Python play of one generator (sets and sorted lists)."""
    langs = _sets(col, spec)
    sorted_langs = [sorted(L) for L in langs]
    reveals = sorted(langs[spec.revealed])[0::2][: spec.rounds]
    m = len(langs)
    sample, out, outputs, novel_flags = set(), set(), [], []
    order = []  # revealed elements in reveal order
    nov = 0
    for idx in range(spec.rounds):
        x_t = reveals[idx]
        sample.add(x_t)
        order.append(x_t)
        cons = [sample <= L for L in langs]
        crit = max(n for n in range(m) if cons[n] and all(langs[n] <= langs[i] for i in range(n) if cons[i]))
        broad = max(range(m), key=lambda i: (cons[i], len(langs[i]), -i))
        used = sample | out

        def smallest(lang, used=used):
            return next((x for x in sorted_langs[lang] if x not in used), None)

        if generator == "km":
            L = sorted_langs[crit]
            x = L[int(ranks[idx]) % len(L)]
            if x in used:
                x = smallest(crit)
            is_novel = x is not None
        else:
            x_c = smallest(crit)
            echoes = [y for y in order if y not in out]
            allow = bool(echoes) and np.float32(nov) >= np.float32(lam) * np.float32(idx + 1)
            if allow and echoes[0] < (x_c if x_c is not None else np.inf):
                x, is_novel = echoes[0], False
            else:
                x, is_novel = x_c, x_c is not None
            if generator == "tolerant" and coins[idx]:
                x = smallest(broad)
                is_novel = x is not None
        if x is not None:
            out.add(x)
        nov += int(is_novel)
        outputs.append(0 if x is None else x)
        novel_flags.append(is_novel)
    return np.array(outputs), np.array(novel_flags), out


_draw = jax.jit(g.draw_collection, static_argnums=0)
_draws = jax.jit(g.draws, static_argnums=0)


def _collection(alpha, index, spec=SPEC):
    return _draw(spec, jnp.float32(alpha), jnp.int32(index))


@jax.jit
def _language_arrays(col):
    """Everything the language test compares, in one compile."""
    m = SPEC.n_languages
    idx = jnp.arange(m)
    ranks = jnp.arange(SPEC.universe)
    return {
        "masks": g.language_masks(col, SPEC),
        "size_u": jax.vmap(lambda i: g.language_size(col, i, SPEC.universe))(idx),
        "size_777": jax.vmap(lambda i: g.language_size(col, i, 777))(idx),
        "elements": jax.vmap(lambda i: jax.vmap(lambda r: g.language_element(col, i, r))(ranks))(idx),
        "subset": g.subset_matrix(col, SPEC),
        "reveals": g.reveal_sequence(col, SPEC),
        "schedule": g.schedule(col, SPEC),
    }


@jax.jit
def _all_generators(col, lam, coins, ranks):
    return tuple(g.generate(SPEC, col, lam, coins, ranks, name) for name in g.GENERATORS)


@pytest.mark.parametrize("alpha,index", [(0.25, 0), (0.5, 3), (1.0, 7)])
def test_languages_and_schedule_against_sets(alpha, index):
    col = _collection(alpha, index)
    sets = _sets(col, SPEC)
    arr = jax.tree.map(np.asarray, _language_arrays(col))
    for i, L in enumerate(sets):
        assert set(np.flatnonzero(arr["masks"][i]) + 1) == L
        assert arr["size_u"][i] == len(L)
        assert arr["size_777"][i] == len([x for x in L if x <= 777])
        assert list(arr["elements"][i, : len(L)]) == sorted(L)
        assert arr["elements"][i, len(L)] > SPEC.universe if len(L) < SPEC.universe else True
    np.testing.assert_array_equal(arr["subset"], [[a <= b for b in sets] for a in sets])
    # K' has density alpha in K (whole periods fit in U = 3000 = 250 · 12 = 375 · 8)
    assert len(sets[SPEC.revealed]) == alpha * len(sets[SPEC.target])
    assert sets[SPEC.revealed] <= sets[SPEC.target] <= sets[0]
    rev = sorted(sets[SPEC.revealed])[0::2][: SPEC.rounds]
    np.testing.assert_array_equal(arr["reveals"], rev)
    cons, crit, broad = arr["schedule"]
    for idx in (0, 5, 20, 60, 99):
        sample = set(rev[: idx + 1])
        want = [sample <= L for L in sets]
        np.testing.assert_array_equal(cons[idx], want)
        n_ref = max(
            n for n in range(len(sets)) if want[n] and all(sets[n] <= sets[i] for i in range(n) if want[i])
        )
        assert crit[idx] == n_ref
        assert broad[idx] == 0  # B contains every other language
    assert crit[-1] == SPEC.revealed  # decoys refuted by T/5: K' is critical at the end


@pytest.mark.parametrize("alpha,lam,index,seed", [(0.25, 1.0, 1, 0), (0.5, 0.75, 2, 1), (0.75, 0.9, 5, 2)])
def test_generators_match_reference(alpha, lam, index, seed):
    col = _collection(alpha, index)
    params = {**g.DEFAULT_PARAMS, "alpha": alpha, "lam": lam, "c": 2.0}  # many coin rounds
    coins, ranks = _draws(SPEC, params, jax.random.key(seed))
    results = _all_generators(col, jnp.float32(lam), coins, ranks)
    assert int(np.asarray(coins).sum()) > 10
    for name, (outputs, novel, generated) in zip(g.GENERATORS, results):
        outputs, novel, generated = np.asarray(outputs), np.asarray(novel), np.asarray(generated)
        ref_out, ref_novel, ref_set = _reference(SPEC, col, lam, np.asarray(coins), np.asarray(ranks), name)
        np.testing.assert_array_equal(outputs, ref_out, err_msg=name)
        np.testing.assert_array_equal(novel, ref_novel, err_msg=name)
        assert set(np.flatnonzero(generated)) == ref_set
        assert (outputs > 0).all()  # sized so that no generator lacks a candidate
        if name != "km" and lam < 1:
            assert (~novel).any()  # the echo rule was exercised
            assert novel.mean() >= lam
        if name == "density" and lam == 1.0:
            # Derived: below the frontier the density generator holds the odd ranks of K'
            # (each decoy costs it one round), so on [1, N] it has ⌊|K' ∩ [1, N]| / 2⌋ of K.
            sets = _sets(col, SPEC)
            K, Kp = sets[SPEC.target], sets[SPEC.revealed]
            for N in (16, 48, 300):
                got = len([x for x in ref_set if x <= N and x in K])
                assert got == len([x for x in Kp if x <= N]) // 2


def test_collections_are_nested_in_alpha():
    """Paired α: collection i keeps b, a, a' and the decoy rounds; K' grows with α."""
    sets = [_sets(_collection(a, 6), SPEC) for a in (0.25, 0.5, 0.75, 1.0)]
    for small, big in zip(sets, sets[1:]):
        assert small[SPEC.revealed] < big[SPEC.revealed]
        assert small[SPEC.target] == big[SPEC.target] and small[0] == big[0]
    assert sets[-1][SPEC.revealed] == sets[-1][SPEC.target]


def test_recall_and_invalid_against_numpy():
    rng = np.random.default_rng(0)
    U, T = 500, 40
    target = rng.random(U) < 0.3
    generated = rng.random((3, U)) < 0.4
    windows = (1, 17, 250, 500)
    got = np.asarray(g.recall_at(jnp.asarray(generated), jnp.asarray(target), windows))
    for w_i, N in enumerate(windows):
        denom = max(target[:N].sum(), 1)
        np.testing.assert_allclose(got[:, w_i], (generated[:, :N] & target[:N]).sum(1) / denom, rtol=1e-6)
    outputs = rng.integers(0, U + 1, size=(3, T))
    s = {
        k: np.asarray(v)
        for k, v in g.invalid_stats(jnp.asarray(outputs), jnp.asarray(target), bins=4).items()
    }
    inval = (outputs > 0) & ~np.concatenate([[True], target])[outputs]
    last = np.array([(np.flatnonzero(r) + 1).max() if r.any() else 0 for r in inval])
    np.testing.assert_array_equal(s["last_invalid"], last)
    np.testing.assert_allclose(s["invalid_last"], inval[:, -4:].mean(1), rtol=1e-6)
    np.testing.assert_allclose(s["invalid_bins"], inval.reshape(3, 4, 10).mean(-1), rtol=1e-6)


def test_bad_spec_and_generator():
    with pytest.raises(ValueError, match="bins"):
        g.GenerationSpec(rounds=100, bins=7)
    with pytest.raises(ValueError, match="windows"):
        g.GenerationSpec(universe=100, windows=(200,))
    col = _collection(0.5, 0)
    coins, ranks = g.draws(SPEC, g.DEFAULT_PARAMS, jax.random.key(0))
    with pytest.raises(ValueError, match="generator"):
        g.generate(SPEC, col, 1.0, coins, ranks, "oracle")
