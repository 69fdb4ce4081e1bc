"""Compressors: contraction factors against closed forms, structure and dtype handling.

The contraction factor alpha of each compressor is a worst-case guarantee
E||C(x) - x||^2 <= (1 - alpha)||x||^2. Each test measures the empirical contraction
1 - mean ||C(x) - x||^2 / ||x||^2 over 10^4 random vectors and compares it, within 0.01,
with alpha on the family where alpha is attained (every vector for rand_k, flat vectors
for top_k, e_1 + eps*1 for scaled_sign), or with an exact per-vector closed form written
in numpy (top_k and scaled_sign on Gaussian vectors, QSGD's expected variance).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.optim import (
    identity_compressor,
    matched_k,
    qsgd,
    rand_k,
    scaled_sign,
    top_k,
    tree_size,
)

D, K, N = 50, 6, 10_000


def _gaussian(seed=0, n=N, d=D):
    return np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)


def _empirical_contraction(comp, xs, seed=1):
    """Per-vector 1 - ||C(x) - x||^2 / ||x||^2 with one independent key per vector."""
    keys = jax.random.split(jax.random.PRNGKey(seed), xs.shape[0])
    cx = np.asarray(jax.jit(jax.vmap(comp))(keys, jnp.asarray(xs)), np.float64)
    xs = np.asarray(xs, np.float64)
    return 1.0 - ((cx - xs) ** 2).sum(1) / (xs**2).sum(1), cx


def test_rand_k_contraction_equals_k_over_d_and_scaled_variant_is_unbiased():
    comp, scaled = rand_k(K), rand_k(K, scaled=True)
    alpha = comp.alpha(D)
    assert alpha == K / D and scaled.alpha(D) is None
    xs = _gaussian()
    keys = jax.random.split(jax.random.PRNGKey(1), N)
    both = jax.jit(jax.vmap(lambda k, x: (comp(k, x), scaled(k, x))))
    cx, cs = (np.asarray(o, np.float64) for o in both(keys, jnp.asarray(xs)))
    x = xs.astype(np.float64)
    contr = 1.0 - ((cx - x) ** 2).sum(1) / (x**2).sum(1)
    assert abs(contr.mean() - alpha) < 0.01
    # exactly k coordinates kept, kept values unchanged
    assert np.all((cx != 0).sum(1) == K)
    kept = cx != 0
    np.testing.assert_array_equal(cx[kept], x[kept])
    # each coordinate is kept with probability k/d (uniform marginals); 4.5 sigma band
    freq = kept.mean(0)
    sigma = np.sqrt(K / D * (1 - K / D) / N)
    assert np.all(np.abs(freq - K / D) < 4.5 * sigma)
    # scaled: the same mask times d/k, hence unbiased (uniform marginals) with
    # E||C(x) - x||^2 = (d/k - 1)||x||^2 > ||x||^2: not contractive
    np.testing.assert_allclose(cs, cx * (D / K), rtol=1e-6)
    err = ((cs - x) ** 2).sum(1) / (x**2).sum(1)
    assert abs(err.mean() - (D / K - 1)) < 0.05 * (D / K - 1)


def test_top_k_attains_k_over_d_on_flat_vectors_and_matches_sort_reference():
    comp = top_k(K)
    alpha = comp.alpha(D)
    signs = np.sign(_gaussian(seed=2)).astype(np.float32)  # all |x_j| equal: the worst case
    contr, _ = _empirical_contraction(comp, signs)
    assert abs(contr.mean() - alpha) < 0.01
    np.testing.assert_allclose(contr, alpha, atol=1e-6)
    # Gaussian vectors: exact per-vector value from a numpy sort, and never below alpha
    xs = _gaussian()
    contr, cx = _empirical_contraction(comp, xs)
    x2 = np.sort(xs.astype(np.float64) ** 2, axis=1)[:, ::-1]
    ref = x2[:, :K].sum(1) / x2.sum(1)
    np.testing.assert_allclose(contr, ref, atol=1e-6)
    assert contr.min() >= alpha - 1e-6
    assert np.all((cx != 0).sum(1) == K)


def test_qsgd_contraction_matches_closed_form_and_bound():
    # s = 1 and s = 3 use the sqrt(d)/s branch of omega, s = 8 the d/s^2 branch; one
    # compiled function evaluates all three on the same vectors (plus a zero vector).
    levels = (1, 3, 8)
    comps = [qsgd(s) for s in levels] + [qsgd(3, scaled=False)]
    xs = _gaussian(seed=4)
    xs[0] = 0.0  # QSGD of the zero vector is zero (no 0/0)
    xs[1:1001] = np.sign(xs[1:1001])  # flat vectors: the worst case of the sqrt(d)/s bound
    keys = jax.random.split(jax.random.PRNGKey(5), N)
    both = jax.jit(jax.vmap(lambda k, x: [c(k, x) for c in comps]))
    outs = [np.asarray(o, np.float64) for o in both(keys, jnp.asarray(xs))]
    x = xs.astype(np.float64)[1:]
    nrm = np.linalg.norm(x, axis=1, keepdims=True)
    # unscaled Q_s: the same draw times (1 + omega), and unbiased: the mean over vectors
    # of sign(x_j)(Q_j - x_j)/||x|| is 0 within 5 standard errors (always rounding down
    # would make it about -1/(2s sqrt(d)) = -0.024, hundreds of standard errors away)
    q, c3 = outs.pop(), outs[1]
    assert comps.pop().alpha(D) is None
    omega3 = min(D / 9, np.sqrt(D) / 3)
    np.testing.assert_allclose(q, c3 * (1 + omega3), rtol=1e-5, atol=1e-6)
    b = (np.sign(x) * (q[1:] - x) / nrm).mean(1)
    assert abs(b.mean()) < 5 * b.std(ddof=1) / np.sqrt(b.size)
    for s, comp, cx in zip(levels, comps, outs):
        assert np.all(cx[0] == 0)
        cx = cx[1:]
        omega = min(D / s**2, np.sqrt(D) / s)
        alpha = comp.alpha(D)
        assert abs(alpha - 1 / (1 + omega)) < 1e-12
        contr = 1.0 - ((cx - x) ** 2).sum(1) / (x**2).sum(1)
        # exact expectation: E||C-x||^2 = ||x||^2 (omega/(1+omega))^2 + sum_j var_j/(1+omega)^2,
        # var_j = (||x||/s)^2 p_j (1 - p_j), p_j = frac(s |x_j| / ||x||)
        r = s * np.abs(x) / nrm
        p = r - np.floor(r)
        var = (p * (1 - p)).sum(1) / s**2  # in units of ||x||^2
        expected = 1 - (omega / (1 + omega)) ** 2 - var / (1 + omega) ** 2
        assert abs(contr.mean() - expected.mean()) < 0.01
        assert expected.min() >= alpha  # the documented guarantee holds on every vector
        # the levels: C(x) (1 + omega) s / ||x|| is an integer vector
        lv = cx * (1 + omega) * s / nrm
        np.testing.assert_allclose(lv, np.round(lv), atol=1e-3)


def test_scaled_sign_closed_form_and_worst_case():
    comp = scaled_sign()
    assert comp.alpha(D) == 1 / D
    xs = _gaussian(seed=8)
    contr, _ = _empirical_contraction(comp, xs)
    x = xs.astype(np.float64)
    ref = np.abs(x).sum(1) ** 2 / (D * (x**2).sum(1))  # alpha(x) = ||x||_1^2 / (d ||x||_2^2)
    np.testing.assert_allclose(contr, ref, atol=1e-5)
    assert contr.min() >= 1 / D
    # e_1 + eps * 1 approaches the worst case 1/d
    bad = np.full((N, D), 1e-5, np.float32)
    bad[:, 0] = 1.0
    bad *= np.sign(_gaussian(seed=9))
    contr_bad, _ = _empirical_contraction(comp, bad)
    assert abs(contr_bad.mean() - 1 / D) < 0.01


def test_identity_and_matching():
    x = {"a": jnp.arange(3.0), "b": jnp.ones((2, 2))}
    y = identity_compressor()(jax.random.PRNGKey(0), x)
    assert y is x
    assert matched_k(qsgd(1).alpha(D), D) == 6
    assert matched_k(1e-9, D) == 1
    assert tree_size(x) == 7


@pytest.mark.parametrize(
    "comp",
    [top_k(3), rand_k(3), qsgd(2), scaled_sign(), rand_k(3, scaled=True)],
    ids=lambda c: c.name,
)
def test_pytree_structure_dtypes_and_global_flattening(comp):
    tree = {
        "w": jnp.asarray(np.random.default_rng(0).standard_normal((3, 2)), jnp.bfloat16),
        "b": jnp.asarray([10.0, -20.0], jnp.float32),
    }
    out = jax.jit(comp)(jax.random.PRNGKey(0), tree)
    assert jax.tree.structure(out) == jax.tree.structure(tree)
    for a, b in zip(jax.tree.leaves(out), jax.tree.leaves(tree)):
        assert a.shape == b.shape and a.dtype == b.dtype
    if comp.name == "top_k(3)":
        # global flattening: the two large bias entries are among the 3 kept
        np.testing.assert_array_equal(np.asarray(out["b"]), [10.0, -20.0])
        assert int((np.asarray(out["w"], np.float32) != 0).sum()) == 1


def test_k_at_least_d_is_identity_and_validation():
    x = jnp.arange(1.0, 4.0)
    np.testing.assert_array_equal(top_k(5)(jax.random.PRNGKey(0), x), x)
    np.testing.assert_array_equal(rand_k(3)(jax.random.PRNGKey(0), x), x)
    assert top_k(5).alpha(3) == 1.0
    with pytest.raises(ValueError):
        top_k(0)
    with pytest.raises(ValueError):
        qsgd(0)
