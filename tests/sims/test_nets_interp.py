"""Patching and RSA statistics against independent references and data with known answers."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.nets import interp
from jaxtheory.sims.nets import transformer as tf


def _ranks_reference(a):
    """Average ranks (1-based) by sorting and walking runs of ties: an independent implementation."""
    a = np.asarray(a, float)
    order = np.argsort(a, kind="stable")
    ranks = np.empty(a.size)
    i = 0
    while i < a.size:
        j = i
        while j + 1 < a.size and a[order[j + 1]] == a[order[i]]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _spearman_reference(x, y):
    return np.corrcoef(_ranks_reference(x), _ranks_reference(y))[0, 1]


def _sign_flip_reference(x, alternative):
    n, obs, hits = len(x), np.mean(x), 0
    for signs in itertools.product((-1.0, 1.0), repeat=n):
        m = np.dot(signs, x) / n
        if alternative == "greater":
            hits += m >= obs - 1e-12
        elif alternative == "less":
            hits += m <= obs + 1e-12
        else:
            hits += abs(m) >= abs(obs) - 1e-12
    return hits / 2**n


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_sign_flip_exact_matches_brute_force(alternative):
    x = np.random.default_rng(0).normal(0.4, 1.0, size=10)
    assert interp.sign_flip_test(x, alternative=alternative) == pytest.approx(
        _sign_flip_reference(x, alternative), abs=1e-15
    )


def test_sign_flip_known_answers():
    # ten positive values: only the identity pattern reaches the observed mean
    assert interp.sign_flip_test(np.full(10, 0.3)) == 2.0**-10
    # a sample symmetric about 0 by construction: every pattern reaches |mean| = 0
    y = np.random.default_rng(1).normal(size=20)
    assert interp.sign_flip_test(np.r_[y, -y], alternative="two-sided", exact=False, n_perm=999) == 1.0
    # Monte Carlo against the exact value at n = 12: within 4 binomial standard errors
    x = np.random.default_rng(2).normal(0.3, 1.0, size=12)
    exact = interp.sign_flip_test(x)
    mc = interp.sign_flip_test(x, exact=False, n_perm=20000, seed=3)
    assert abs(mc - exact) <= 4 * np.sqrt(exact * (1 - exact) / 20000) + 1 / 20001
    # a large shift over 40 pairs: the Monte-Carlo floor 1 / (1 + n_perm)
    z = np.random.default_rng(4).normal(2.0, 1.0, size=40)
    assert interp.sign_flip_test(z, n_perm=999) == 1 / 1000
    with pytest.raises(ValueError, match="alternative"):
        interp.sign_flip_test(z, alternative="bigger")


def test_sign_flip_is_calibrated_under_the_null():
    rng = np.random.default_rng(5)
    p = np.array([interp.sign_flip_test(rng.normal(size=30), n_perm=499, seed=i) for i in range(300)])
    # P(p <= 0.05) = 0.05 under H0; 300 draws: 15 ± 3.8, so [4, 30] is > 3.5 sigma wide
    assert 4 <= int((p <= 0.05).sum()) <= 30


def test_rankdata_and_spearman_match_reference():
    rng = np.random.default_rng(6)
    for _ in range(5):
        x = rng.integers(0, 5, size=15).astype(float)  # many ties
        y = rng.normal(size=15)
        np.testing.assert_allclose(interp.rankdata(x), _ranks_reference(x), rtol=0, atol=1e-12)
        assert float(interp.spearman(x, y)) == pytest.approx(_spearman_reference(x, y), abs=1e-12)
    # batched over a leading axis
    X = rng.normal(size=(3, 9))
    np.testing.assert_allclose(
        interp.spearman(X, X[0]), [_spearman_reference(r, X[0]) for r in X], rtol=0, atol=1e-12
    )
    assert float(interp.pearson(X[1], X[2])) == pytest.approx(np.corrcoef(X[1], X[2])[0, 1], abs=1e-12)


def _mantel_reference(a, b, method):
    corr = _spearman_reference if method == "spearman" else (lambda u, v: np.corrcoef(u, v)[0, 1])
    C = a.shape[0]
    iu = np.triu_indices(C, 1)
    obs = corr(a[iu], b[iu])
    hits, total = 0, 0
    for perm in itertools.permutations(range(C)):
        bp = b[np.ix_(perm, perm)]
        hits += corr(a[iu], bp[iu]) >= obs - 1e-12
        total += 1
    return obs, hits / total


@pytest.mark.parametrize("method", ["pearson", "spearman"])
def test_mantel_exact_matches_brute_force(method):
    rng = np.random.default_rng(7)
    pts = rng.normal(size=(5, 2))
    a = interp.rdm(pts)
    b = interp.rdm(pts + 0.5 * rng.normal(size=(5, 2)))
    r, p = interp.mantel_test(a, b, method=method)
    r_ref, p_ref = _mantel_reference(a, b, method)
    assert r == pytest.approx(r_ref, abs=1e-12)
    assert p == pytest.approx(p_ref, abs=1e-12)


def test_condition_means_rdm_and_rsa():
    reps = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 0.0], [6.0, 0.0]])
    means = interp.condition_means(reps, np.array([0, 0, 1, 1]), 2)
    np.testing.assert_array_equal(means, [[1.0, 1.0], [5.0, 0.0]])
    assert interp.rdm(means)[0, 1] == pytest.approx(np.hypot(4.0, 1.0), abs=1e-12)
    corr = interp.rdm(np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 4.0, 6.0]]), "correlation")
    np.testing.assert_allclose(corr, [[0, 2, 0], [2, 0, 2], [0, 2, 0]], atol=1e-12)
    with pytest.raises(ValueError, match="every one of the 3 conditions"):
        interp.condition_means(reps, np.array([0, 0, 1, 1]), 3)
    # a representation that is the divergence plus small noise: RSA ≈ 1; shuffled labels ≈ 0
    rng = np.random.default_rng(8)
    div = np.array([0, 1, 1, 0, 0, 1, 1, 0])
    lab = np.repeat(np.arange(8), 20)
    x = div[lab][:, None] * np.ones(4) + 0.05 * rng.normal(size=(160, 4))
    model = interp.model_rdm(div)
    assert interp.rsa(x, lab, model, method="pearson") > 0.99
    shuffled = interp.shuffled_rsa(x, lab, model, n_shuffles=200, method="pearson")
    # E r = 0 by exchangeability; 200 shuffles of r with sd ≈ 0.2: mean within ±0.06 (> 4 SE)
    assert abs(shuffled.mean()) < 0.06
    e = interp.bootstrap_rsa(x, lab, model, n_boot=100, method="pearson")
    assert e.low <= e.value <= e.high and e.low > 0.95
    assert np.isnan(interp.bootstrap_rsa(x[::4], lab[::4], model, n_boot=10).low)  # 5 per condition


def test_normalized_effects():
    eff = interp.normalized_effects(
        np.array([[1.0, 3.0], [0.0, 2.0]]), np.array([3.0, 2.0]), np.array([1.0, 0.0])
    )
    # total effect: mean(3 - 1, 2 - 0) = 2
    np.testing.assert_allclose(eff, [[0.0, 1.0], [0.0, 1.0]], rtol=0, atol=1e-15)
    with pytest.raises(ValueError, match="total effect"):
        interp.normalized_effects(np.zeros((2, 1)), np.ones(2), np.ones(2))


def test_patch_heads_identities():
    params = tf.init(jax.random.key(0), 9, 5, d_model=16, n_heads=2)
    rng = np.random.default_rng(9)
    clean = jnp.asarray(rng.integers(0, 9, size=(4, 5)))
    corrupt = clean.at[:, -1].set((clean[:, -1] + 1) % 9)

    def metric(lg):
        return lg[-1, 0] - lg[-1, 1]

    patch = jax.jit(interp.patch_heads, static_argnums=(0, 4))
    out = patch(tf.forward, params, clean, corrupt, metric)
    assert out["patched"].shape == (4, 2, 2)
    # a pair whose two runs coincide: every patch is the identity
    same = patch(tf.forward, params, clean, clean, metric)
    np.testing.assert_allclose(
        np.asarray(same["patched"]),
        np.broadcast_to(np.asarray(same["clean"])[:, None, None], (4, 2, 2)),
        atol=1e-5,
    )
    # one entry against a direct patched forward pass
    _, heads_c = tf.forward(params, clean[2])
    mask = jnp.zeros((2, 2)).at[1, 0].set(1.0)
    direct = metric(tf.forward(params, corrupt[2], (mask, heads_c))[0])
    assert float(out["patched"][2, 1, 0]) == pytest.approx(float(direct), abs=1e-5)
    # patching every head: the logits are the corrupted run's embeddings plus the clean
    # heads, read out (the residual stream is additive in an attention-only model)
    all_heads = tf.forward(params, corrupt[2], (jnp.ones((2, 2)), heads_c))[0]
    ref = heads_c.sum((0, 1)) + params["embed"][corrupt[2]] + params["pos"]
    np.testing.assert_allclose(np.asarray(all_heads), np.asarray(ref @ params["unembed"]), atol=1e-5)
