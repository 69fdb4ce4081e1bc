"""Histogram-tree boosting of ``jaxtheory.sims.functional.boosting`` against independent references.

Tree growth against a brute-force numpy search (every node, feature and threshold by
explicit masks in float64), losses against autodiff, the one-round closed form on one
categorical feature in float64, and the diagnostics' exact cases.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.functional import boosting as B
from jaxtheory.sims.functional import partition as P

_fit = jax.jit(B.fit_tree, static_argnums=(3, 4))


def _np_gains(bins, g, ht, mask, num_bins):
    """Gain of every (feature, threshold) of the node ``mask``: explicit sums, float64."""
    D = bins.shape[1]
    G, H = g[mask].sum(), ht[mask].sum()
    gains = np.empty((D, num_bins))
    for f in range(D):
        for t in range(num_bins):
            left = mask & (bins[:, f] <= t)
            right = mask & (bins[:, f] > t)
            GL, HL, GR, HR = g[left].sum(), ht[left].sum(), g[right].sum(), ht[right].sum()
            gains[f, t] = GL**2 / (HL + B.EPS) + GR**2 / (HR + B.EPS) - G**2 / (H + B.EPS)
    return gains


def _check_tree(bins, g, ht, depth, num_bins):
    tree, leaf = _fit(
        jnp.asarray(bins), jnp.asarray(g, jnp.float32), jnp.asarray(ht, jnp.float32), depth, num_bins
    )
    feats, thrs = np.asarray(tree.features), np.asarray(tree.thresholds)
    g64, h64 = np.asarray(g, np.float32).astype(np.float64), np.asarray(ht, np.float32).astype(np.float64)
    node = np.zeros(len(g), int)
    unique = 0
    for lv in range(depth):
        for j in range(2**lv):
            mask = node == j
            gains = _np_gains(bins, g64, h64, mask, num_bins)
            f, t = feats[lv, j], thrs[lv, j]
            best = gains.max()
            # float32 histograms of <= 400 terms: gains agree to ~1e-5 relative of G²/H
            tol = 1e-4 * (abs(best) + (g64[mask].sum() ** 2 / (h64[mask].sum() + B.EPS)) + 1e-6)
            assert gains[f, t] >= best - tol, (lv, j, gains[f, t], best)
            order = np.sort(gains.ravel())
            if order[-1] - order[-2] > tol:  # a unique best split: the very same split
                assert (f, t) == np.unravel_index(gains.argmax(), gains.shape), (lv, j)
                unique += 1
            np.testing.assert_allclose(float(tree.gains[lv, j]), gains[f, t], rtol=1e-3, atol=tol)
        node = 2 * node + (bins[np.arange(len(g)), feats[lv, node]] > thrs[lv, node])
    np.testing.assert_array_equal(np.asarray(leaf), node)
    for c in range(2**depth):
        m = node == c
        ref = -g64[m].sum() / (h64[m].sum() + B.EPS)
        np.testing.assert_allclose(float(tree.values[c]), ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(
        np.asarray(B.predict_tree(tree, jnp.asarray(bins))), np.asarray(tree.values)[node]
    )
    return unique


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tree_splits_equal_brute_force_numpy(seed):
    rng = np.random.default_rng(seed)
    N, D, nb, depth = 300, 4, 12, 3
    x = rng.uniform(size=(N, D)).astype(np.float32)
    bins = np.asarray(P.bin_features(jnp.asarray(x), P.quantile_edges(jnp.asarray(x), nb)))
    g = (np.sin(6 * x[:, 0]) + x[:, 1] ** 2 - 0.3 + 0.3 * rng.normal(size=N)).astype(np.float32)
    ht = rng.uniform(0.1, 2.0, size=N).astype(np.float32)
    unique = _check_tree(bins, g, ht, depth, nb)
    assert unique >= 5  # most of the 7 splits are decided by a clear margin


def test_tree_ties_go_to_the_first_feature_and_bin():
    # two identical features: the first wins; bins 1 and 2 empty: threshold 0 wins
    bins = np.array([[0, 0], [0, 0], [3, 3], [3, 3]])
    tree, leaf = _fit(jnp.asarray(bins), jnp.array([1.0, 1.0, -1.0, -1.0]), jnp.ones(4), 1, 4)
    assert int(tree.features[0, 0]) == 0 and int(tree.thresholds[0, 0]) == 0
    assert leaf.tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize("loss", B.LOSSES)
def test_grad_hess_match_autodiff(loss):
    rng = np.random.default_rng(5)
    F = jnp.asarray(rng.normal(scale=3.0, size=50), jnp.float32)
    y = jnp.asarray(rng.integers(0, 2, 50) if loss == "bce" else rng.normal(size=50), jnp.float32)
    g, h = B.grad_hess(loss, y, F, 1.0)
    lf = lambda f, yy: B.loss_value(loss, yy, f, 1.0)  # noqa: E731
    g_ad = jax.vmap(jax.grad(lf))(F, y)
    h_ad = jax.vmap(jax.grad(jax.grad(lf)))(F, y)
    np.testing.assert_allclose(np.asarray(g), np.asarray(g_ad), rtol=1e-5, atol=1e-6)
    # the authors' floors (1e-5) only bite for BCE at |F| > ~11: not reached at scale 3
    np.testing.assert_allclose(np.asarray(h), np.asarray(h_ad), rtol=1e-4, atol=1e-6)


def test_loss_errors_and_initial_prediction():
    with pytest.raises(ValueError):
        B.loss_value("huber", 0.0, 0.0)
    with pytest.raises(ValueError):
        B.grad_hess("huber", 0.0, 0.0)
    y = jnp.array([0.0, 1.0, 1.0, 1.0])
    assert float(B.initial_prediction("bce", y)) == pytest.approx(np.log(3.0), rel=1e-6)
    assert float(B.initial_prediction("mse", y)) == pytest.approx(0.75)


def test_newton_direction_one_code_path():
    g = jnp.array([0.5, -1.5, 2.0])
    h = jnp.array([0.2, 1.0, 3.0])
    gn = np.sqrt(np.mean(np.square([0.5, -1.5, 2.0])))
    for l2, M in [(0.0, 0.0), (1.0, 0.0), (1e-5, 1.0), (0.5, 4.0)]:
        step, ht, lam = B.newton_direction(g, h, l2, M)
        ref_ht = np.asarray(h) + l2 + np.sqrt(M * gn)
        np.testing.assert_allclose(np.asarray(ht), ref_ht, rtol=1e-6)
        np.testing.assert_allclose(np.asarray(step), -np.asarray(g) / ref_ht, rtol=1e-6)
        assert float(lam) == pytest.approx(np.sqrt(M * gn), rel=1e-6)
    # method table: GRN (h, l2_base, M), Newton (h, l2_base, 0), Newton-l2 (h, l2, 0),
    # gradient (1, l2_base, 0), gradient-l2 (1, l2, 0)
    table = [tuple(float(v) for v in B.method_coefficients(m, 2.0, 3.0, 0.5)) for m in range(5)]
    assert table == [(1, 0.5, 2), (1, 0.5, 0), (1, 3, 0), (0, 0.5, 0), (0, 3, 0)]


def test_diagnostics_exact_cases():
    rng = np.random.default_rng(6)
    g = jnp.asarray(rng.normal(size=40), jnp.float32)
    ht = jnp.asarray(rng.uniform(0.5, 2, size=40), jnp.float32)
    exact = -g / ht
    assert float(B.theta(exact, exact, ht)) == pytest.approx(1.0, abs=1e-6)
    assert float(B.edge(exact, g, ht)) == pytest.approx(1.0, abs=1e-6)
    assert float(B.theta(-exact, exact, ht)) == pytest.approx(-1.0, abs=1e-6)
    assert float(B.edge(jnp.zeros(40), g, ht)) == 0.0
    # a tree step with leaf values -G/H has Θ = sqrt(Σ G²/H / Σ g²/h̃) > 0 (Cauchy–Schwarz)
    leaf = jnp.asarray(rng.integers(0, 4, 40))
    st = P.cell_stats(leaf, 4, g, ht)
    step = (-st.G / st.H)[leaf]
    th = float(B.theta(step, exact, ht))
    ref = np.sqrt(
        np.sum(np.asarray(st.G) ** 2 / np.asarray(st.H)) / np.sum(np.asarray(g) ** 2 / np.asarray(ht))
    )
    assert th == pytest.approx(ref, rel=1e-5) and 0 < th <= 1


def test_categorical_closed_form_float64():
    """One round on one categorical feature is F_c − ηG_c/(H_c + n_c(l2 + √(M‖g‖_N))) to 1e-6."""
    rng = np.random.default_rng(7)
    N, K = 2000, 4
    cat = rng.integers(0, K, N)
    y = np.sin(2 * np.pi * (cat + 0.5) / K) + 3 * rng.standard_t(2, N)
    with jax.enable_x64(True):
        for method in range(5):
            use_h, l2, M = (float(v) for v in B.method_coefficients(method, 1.0, 1.0, 1e-5))
            F0 = y.mean()
            g, h = (np.asarray(a) for a in B.grad_hess("charbonnier", jnp.asarray(y), jnp.full(N, F0), 1.0))
            h = h if use_h else np.ones(N)
            _, ht, _ = B.newton_direction(jnp.asarray(g), jnp.asarray(h), l2, M)
            tree, leaf = _fit(jnp.asarray(cat[:, None]), jnp.asarray(g), ht, K - 1, K)
            F1 = F0 + 1.0 * np.asarray(tree.values)[np.asarray(leaf)]
            lam = np.sqrt(M * np.sqrt(np.mean(g**2)))
            Gc = np.bincount(cat, g, K)
            Hc = np.bincount(cat, h, K)
            nc = np.bincount(cat, minlength=K)
            closed = F0 - 1.0 * (Gc / (Hc + nc * (l2 + lam)))[cat]
            assert np.abs(F1 - closed).max() <= 1e-6, method


def test_run_outputs_and_pairing():
    spec = B.BoostSpec(n_train=300, n_test=100, features=3, depth=2, num_bins=8, rounds=6, loss="mse")
    f = jax.jit(
        jax.vmap(lambda m, k: B.run(spec, dict(B.DEFAULT_PARAMS, algo=m, lr=0.5), k), in_axes=(0, None))
    )
    o = f(jnp.arange(5), jax.random.key(0))
    assert o["train_loss"].shape == (5, 7) and o["theta"].shape == (5, 6)
    assert (np.asarray(o["cost"]) == 6).all() and (np.asarray(o["hist_updates"]) == 6 * 300 * 3 * 2).all()
    assert np.isfinite(np.asarray(o["train_loss"])).all()
    # the same key gives the same data: the initial losses agree across methods exactly
    assert len(set(np.asarray(o["train_loss"][:, 0]).tolist())) == 1
    # MSE has h = 1: Newton (1) and gradient boosting (3), same l2, grow the same trees exactly
    np.testing.assert_array_equal(np.asarray(o["train_loss"][1]), np.asarray(o["train_loss"][3]))
    assert (np.diff(np.asarray(o["train_loss"]), axis=1) <= 0).all()  # MSE, η = 0.5: descent
    with pytest.raises(ValueError):
        B.run(B.BoostSpec(loss="huber"), B.DEFAULT_PARAMS, jax.random.key(0))


def test_charbonnier_loss_has_no_cancellation():
    # sqrt(r² + 1) − 1 is 0 in float32 for |r| < 3e-4; r²/(sqrt(r² + 1) + 1) keeps r²/2
    r = jnp.float32(1e-10)
    assert float(B.loss_value("charbonnier", jnp.float32(0.0), r)) == pytest.approx(5e-21, rel=1e-6)
    big = jnp.float32(30.0)
    assert float(B.loss_value("charbonnier", jnp.float32(0.0), big)) == pytest.approx(
        np.sqrt(901.0) - 1, rel=1e-6
    )


def test_diagnostics_are_scale_invariant_down_to_tiny_steps():
    rng = np.random.default_rng(8)
    g = jnp.asarray(rng.normal(size=60), jnp.float32)
    ht = jnp.asarray(rng.uniform(0.5, 2, size=60), jnp.float32)
    leaf = jnp.asarray(rng.integers(0, 4, 60))
    st = P.cell_stats(leaf, 4, g, ht)
    step = (-st.G / st.H)[leaf]
    th, ga = float(B.theta(step, -g / ht, ht)), float(B.edge(step, g, ht))
    c = jnp.float32(1e-25)  # squares of 1e-25 underflow float32; the diagnostics must not
    assert float(B.theta(c * step, -c * g / ht, ht)) == pytest.approx(th, rel=1e-5)
    assert float(B.edge(c * step, c * g, ht)) == pytest.approx(ga, rel=1e-5)


def test_theta_grows_with_depth_on_nested_partitions():
    """Level-wise growth nests: a depth-D tree's first levels are the depth-(D-1) tree, so its
    partition refines the shallower one and Θ (the H̃-norm of the projected exact step over
    its norm) cannot decrease with depth (derived; float32 slack 1e-5)."""
    rng = np.random.default_rng(9)
    x = rng.uniform(size=(400, 3)).astype(np.float32)
    bins = P.bin_features(jnp.asarray(x), P.quantile_edges(jnp.asarray(x), 16))
    y = np.sin(2 * np.pi * x[:, 0]) + x[:, 1] ** 2 + 3 * rng.standard_t(2, 400)
    g, h = B.grad_hess(
        "charbonnier", jnp.asarray(y, jnp.float32), jnp.full(400, float(y.mean()), jnp.float32)
    )
    exact, ht, _ = B.newton_direction(g, h, 1e-5, 1.0)
    thetas, prev = [], None
    for depth in range(1, 5):
        tree, leaf = _fit(bins, g, ht, depth, 16)
        if prev is not None:  # the first levels are the shallower tree's, split for split
            np.testing.assert_array_equal(np.asarray(tree.features)[: depth - 1, : 2 ** (depth - 2)], prev)
        prev = np.asarray(tree.features)
        thetas.append(float(B.theta(tree.values[leaf], exact, ht)))
    assert all(b >= a - 1e-5 for a, b in zip(thetas, thetas[1:])), thetas
    assert 0 < thetas[0] < thetas[-1] <= 1 + 1e-6
