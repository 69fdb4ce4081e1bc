"""jaxtheory.sims.discrete.boolean against independent references.

References: an explicit Hadamard matrix product and a brute-force noisy expectation in float64
numpy, ``bin(x).count('1')``, the closed form of majority's Fourier coefficients, a float64
numpy IRLS, and the exact L1 optimum of tiny problems found by enumerating LP vertices (no LP
solver). Float32 tolerances are derived beside each assertion.
"""

import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.discrete import boolean as bo

EPS32 = float(np.finfo(np.float32).eps)


def hadamard(m):
    """Sylvester's Hadamard matrix entrywise: H[x, S] = (−1)^popcount(x & S) (numpy's bit count)."""
    idx = np.arange(m)
    return 1.0 - 2.0 * (np.bitwise_count(idx[:, None] & idx[None, :]) % 2)


def test_popcount_matches_bin_count():
    rng = np.random.default_rng(0)
    xs = np.concatenate([[0, 1, 2, 3, 255, 2**31 - 1], rng.integers(0, 2**31 - 1, 500)]).astype(np.int32)
    assert bo.popcount(jnp.asarray(xs)).tolist() == [bin(int(x)).count("1") for x in xs]
    u = np.array([2**32 - 1, 2**31, 12345678], dtype=np.uint32)
    assert bo.popcount(jnp.asarray(u)).tolist() == [bin(int(x)).count("1") for x in u]
    with pytest.raises(TypeError, match="integer"):
        bo.popcount(jnp.ones(3))


@pytest.mark.parametrize("m", [1, 2, 4, 8, 64, 256])
def test_fwht_matches_hadamard_product(m):
    rng = np.random.default_rng(m)
    a = rng.standard_normal((3, m))
    ref = a @ hadamard(m)  # H is symmetric
    got = np.asarray(bo.fwht(jnp.asarray(a, jnp.float32)), float)
    # float32 input rounding plus log2(m) butterfly stages, each adding |.| ≤ Σ|a|:
    # |err| ≤ (1 + log2 m)·eps32·Σ_x |a(x)|; a factor 4 of slack
    tol = 4 * (1 + math.log2(m)) * EPS32 * np.abs(a).sum(-1, keepdims=True)
    assert np.all(np.abs(got - ref) <= tol)
    ints = rng.integers(-5, 6, (2, m)).astype(np.int32)
    # integer arithmetic: exact by construction
    np.testing.assert_array_equal(np.asarray(bo.fwht(jnp.asarray(ints))), ints @ hadamard(m).astype(np.int64))
    np.testing.assert_array_equal(np.asarray(bo.fwht(bo.fwht(jnp.asarray(ints)))), m * ints)


def test_fwht_rejects_bad_length():
    with pytest.raises(ValueError, match="power-of-two"):
        bo.fwht(jnp.ones(6))


def test_majority_closed_form_matches_brute_force():
    for n in (1, 3, 5, 7):
        x = np.asarray(bo.cube_signs(n, jnp.int32))
        f = np.sign(x.sum(1)).astype(float)
        c = f @ hadamard(2**n) / 2**n
        size = np.bitwise_count(np.arange(2**n)).astype(int)
        w = np.bincount(size, weights=c**2, minlength=n + 1)
        np.testing.assert_allclose(bo.majority_level_weights(n), w, rtol=0, atol=1e-12)  # float64 sums


def test_majority_level_weights_at_15_and_the_limit():
    coeffs = bo.fwht(bo.halfspace_values(jnp.ones(15))).astype(jnp.float32) / 2.0**15
    w = np.asarray(bo.level_weights(coeffs), float)
    exact = bo.majority_level_weights(15)
    # the coefficients are exact (integers / 2^15); squares and pairwise sums in float32: 1e-5 is 10× the
    # log2(6435)·eps32 relative error of a sum of at most C(15, 7) = 6435 terms
    np.testing.assert_allclose(w, exact, atol=1e-5)
    # independently computed level weights of Maj_15, given to three decimals
    np.testing.assert_allclose(exact[[1, 3, 5]], [0.658, 0.118, 0.058], atol=5e-4)
    assert abs(exact.sum() - 1.0) < 1e-12 and np.all(exact[::2] == 0)
    # W1(Maj_n) decreases to 2/π (O'Donnell, Thm 5.18): W1 = 2/π + O(1/n)
    w1 = [bo.majority_level_weights(n)[1] for n in (15, 51, 201, 1001)]
    assert all(a > b > 2 / np.pi for a, b in zip(w1, w1[1:]))
    assert w1[-1] - 2 / np.pi < 1e-3


def test_noise_operator_is_the_noisy_expectation():
    n, sigma = 5, 0.15
    rng = np.random.default_rng(1)
    w = rng.standard_normal(n)
    x = np.asarray(bo.cube_signs(n, jnp.int32))
    h = np.where(x @ w >= 0, 1.0, -1.0)
    # brute force: T_ρh(x) = Σ_z P(z | x) h(z), bits flipped independently with probability σ
    dist = np.array([[bin(a ^ b).count("1") for b in range(2**n)] for a in range(2**n)])
    P = sigma**dist * (1 - sigma) ** (n - dist)
    ref = P @ h
    c = bo.fwht(jnp.asarray(h, jnp.float32)) / 2**n
    got = np.asarray(bo.fwht(bo.noise_operator(c, 1 - 2 * sigma)), float)
    np.testing.assert_allclose(got, ref, atol=1e-5)  # 2^n = 32 float32 terms of size ≤ 1 twice
    np.testing.assert_array_equal(np.asarray(bo.halfspace_values(jnp.asarray(w, jnp.float32))), h)


def test_noisy_tail_and_min_degree_against_loops():
    n, rho = 7, 0.8
    rng = np.random.default_rng(2)
    h = bo.halfspace_values(jnp.asarray(rng.standard_normal(n), jnp.float32))
    c = np.asarray(bo.fwht(h), float) / 2**n
    size = np.array([bin(s).count("1") for s in range(2**n)])
    ref = np.array([np.sum((rho ** (2 * size) * c**2)[size > d]) for d in range(n + 1)])
    W = bo.level_weights(jnp.asarray(c, jnp.float32))
    got = np.asarray(bo.noisy_tail(W, rho), float)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7)  # float32 sums of ≤ 8 positive terms
    assert got[-1] == 0.0 and np.all(np.diff(got) <= 0)
    assert np.all(got[:-1] <= rho ** (2 * (np.arange(n) + 1)))  # Parseval bound
    for eps in (0.3, 0.1, 0.02):
        d = int(bo.min_degree(jnp.asarray(got), eps**2))
        assert got[d] <= eps**2 and (d == 0 or got[d - 1] > eps**2)
        assert d <= bo.degree_bound(0.1, eps)


def test_degree_bound_closed_form():
    # σ = 0.1: ρ = 0.8, ln(1/0.1)/ln(1/0.8) = 10.32 → 11 − 1 = 10; squared: 5.16 → 5
    assert int(bo.degree_bound(0.1, 0.1)) == 10 and int(bo.degree_bound(0.1, 0.1, "squared")) == 5
    with pytest.raises(ValueError):
        bo.degree_bound(0.6, 0.1)
    with pytest.raises(ValueError):
        bo.degree_bound(0.1, 0.1, "l1")


def test_monomials_and_characters():
    for n, d in ((5, 2), (6, 3), (9, 5)):
        assert len(bo.monomials(n, d)) == sum(math.comb(n, k) for k in range(d + 1))
        assert len(bo.monomials(n, d, odd_only=True)) == sum(math.comb(n, k) for k in range(1, d + 1, 2))
    n = 4
    masks = bo.monomials(n, 4)
    x = np.asarray(bo.cube_signs(n, jnp.int32))
    ref = np.stack([np.prod(x[:, [i for i in range(n) if s >> i & 1]], axis=1) for s in masks], 1)
    np.testing.assert_array_equal(np.asarray(bo.characters(jnp.arange(2**n), masks, jnp.int32)), ref)


def irls_numpy(X, y, delta, iters, ridge=1e-6):
    """Float64 reference of the same IRLS iteration."""
    p = X.shape[1]

    def solve(w):
        A = (X * w[:, None]).T @ X
        A = A + ridge * np.trace(A) / p * np.eye(p)
        return np.linalg.solve(A, (X * w[:, None]).T @ y)

    beta = solve(np.ones_like(y))
    for _ in range(iters):
        beta = solve(1 / np.maximum(np.abs(y - X @ beta), delta))
    return beta


def exact_l1(X, y):
    """The L1 optimum of a tiny problem: some optimal β makes p residuals zero (an LP vertex)."""
    best = np.inf
    for rows in itertools.combinations(range(len(y)), X.shape[1]):
        A = X[list(rows)]
        if abs(np.linalg.det(A)) < 1e-9:
            continue
        beta = np.linalg.solve(A, y[list(rows)])
        best = min(best, np.mean(np.abs(y - X @ beta)))
    return best


def test_l1_regression_median_and_exact_fit():
    y = np.array([0.0, 1.0, 2.0, 3.0, 100.0, -7.0, 2.5])
    beta = bo.l1_regression(jnp.ones((7, 1)), jnp.asarray(y, jnp.float32))
    assert abs(float(beta[0]) - np.median(y)) < 1e-2  # the median 2.0 (the mean is 14.5)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((40, 3))
    yy = X @ np.array([1.0, -2.0, 0.5])
    b = np.asarray(bo.l1_regression(jnp.asarray(X, jnp.float32), jnp.asarray(yy, jnp.float32)))
    np.testing.assert_allclose(b, [1.0, -2.0, 0.5], atol=1e-4)


def test_l1_regression_matches_exact_optimum_and_numpy_irls():
    rng = np.random.default_rng(4)
    delta = 1e-3
    for _ in range(3):
        X = np.column_stack([np.ones(12), rng.standard_normal(12)])
        y = X @ np.array([0.3, 1.2]) + rng.standard_t(1.5, 12)
        beta = np.asarray(
            bo.l1_regression(
                jnp.asarray(X, jnp.float32), jnp.asarray(y, jnp.float32), delta=delta, iters=200
            ),
            float,
        )
        opt = exact_l1(X, y)
        # the Huber minimiser is within δ/2 of the L1 optimum; IRLS after 200 steps and float32
        # rounding add less than another δ/2 on these 12-point problems
        assert opt - 1e-9 <= np.mean(np.abs(y - X @ beta)) <= opt + delta
        ref = irls_numpy(X, y, delta, 200)
        assert np.mean(np.abs(y - X @ ref)) <= opt + delta / 2 + 1e-9
    # on the regression run() solves (odd characters of a 7-cube), against the float64 iteration
    n = 7
    x = bo.cube_signs(n)
    y = np.asarray(jnp.where(x @ jnp.asarray(rng.standard_normal(n), jnp.float32) >= 0, 1.0, -1.0))
    X = np.asarray(bo.characters(jnp.arange(2**n), bo.monomials(n, 3, odd_only=True)), float)
    got = np.asarray(bo.l1_regression(jnp.asarray(X, jnp.float32), jnp.asarray(y, jnp.float32)), float)
    ref = irls_numpy(X, y, 1e-3, 60)
    l_got, l_ref = np.mean(np.abs(y - X @ got)), np.mean(np.abs(y - X @ ref))
    assert abs(l_got - l_ref) < 2e-3  # same iteration; float32 solves against float64 ones


def test_best_threshold_is_optimal():
    rng = np.random.default_rng(5)
    for _ in range(5):
        s = np.round(rng.standard_normal(30), 1)  # with ties
        y = np.where(rng.random(30) < 1 / (1 + np.exp(-3 * s)), 1, -1)
        t = float(bo.best_threshold(jnp.asarray(s, jnp.float32), jnp.asarray(y)))
        err = np.sum(np.where(s > t, 1, -1) != y)
        cands = np.concatenate([[s.min() - 1], s])
        best = min(np.sum(np.where(s > c, 1, -1) != y) for c in cands)
        assert err == best


def test_run_small_lane():
    # one regression degree and 20 IRLS steps: the compile dominates this test
    spec = bo.BooleanSpec(
        n=5, sigmas=(0.1, 0.3), epsilons=(0.2, 0.05), learn_n=5, learn_degrees=(1,), irls_iters=20
    )
    f = jax.jit(jax.vmap(lambda k: bo.run(spec, bo.DEFAULT_PARAMS, k)))
    out = jax.tree.map(np.asarray, f(jax.random.split(jax.random.key(0), 3)))
    assert out["dstar"].shape == (3, 2, 2, 2, 2) and out["tail"].shape == (3, 2, 2, 6)
    # majority draws nothing: identical in every lane (same program, same inputs)
    np.testing.assert_array_equal(out["level_weight"][:, 0], out["level_weight"][:1, 0].repeat(3, 0))
    np.testing.assert_allclose(out["level_weight"][0, 0], bo.majority_level_weights(5), atol=1e-6)
    np.testing.assert_allclose(out["level_weight"].sum(-1), 1.0, atol=1e-6)  # Parseval
    assert np.all(
        (out["dstar"] % 2 == 1) | (out["dstar"] == 0)
    )  # odd functions: only odd levels carry weight
    # 2⌊0.1 · 2^4⌋ = 2 of 32 points flipped
    np.testing.assert_array_equal(out["flipped"], 2 / 32)
    assert np.all(out["lr_round_error"] <= 0.5 * out["lr_l1"] + 1e-6)  # clipping only lowers |y − p|
    np.testing.assert_allclose(
        out["excess"], out["lr_round_error"] - out["planted_error"][:, None], atol=1e-7
    )
    with pytest.raises(ValueError, match="odd"):
        bo.BooleanSpec(n=4)
