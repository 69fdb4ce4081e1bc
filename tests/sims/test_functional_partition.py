"""Partition helpers of ``jaxtheory.sims.functional.partition`` against numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.functional import partition as P


def test_quantile_edges_match_numpy():
    x = np.random.default_rng(0).normal(size=(301, 3)).astype(np.float32)
    edges = np.asarray(P.quantile_edges(jnp.asarray(x), 8))
    ref = np.quantile(x.astype(np.float64), np.arange(1, 8) / 8, axis=0).T
    assert edges.shape == (3, 7)
    # linear interpolation between float32 order statistics: a few ulps of |x| <= 5
    np.testing.assert_allclose(edges, ref, atol=5e-6)
    assert (np.diff(edges, axis=1) >= 0).all()


def test_bin_features_is_digitize():
    rng = np.random.default_rng(1)
    x = rng.uniform(size=(500, 4)).astype(np.float32)
    x[:5, 0] = 0.5  # values equal to an edge go to the bin above it
    edges = rng.uniform(size=(4, 15)).astype(np.float32)
    edges[0, 7] = 0.5
    edges = np.sort(edges, axis=1)
    bins = np.asarray(P.bin_features(jnp.asarray(x), jnp.asarray(edges)))
    ref = np.stack([np.digitize(x[:, d], edges[d]) for d in range(4)], axis=1)
    np.testing.assert_array_equal(bins, ref)
    assert bins.dtype == np.int32 and bins.min() >= 0 and bins.max() <= 15


def test_quantile_bins_are_balanced():
    x = np.random.default_rng(2).uniform(size=(1024, 2)).astype(np.float32)
    bins = np.asarray(P.bin_features(jnp.asarray(x), P.quantile_edges(jnp.asarray(x), 16)))
    counts = np.stack([np.bincount(bins[:, d], minlength=16) for d in range(2)])
    # distinct values: every quantile bin holds 1024/16 = 64 samples up to the two edge points
    assert np.abs(counts - 64).max() <= 1


def test_cell_stats_match_numpy_loops():
    rng = np.random.default_rng(3)
    cells = rng.integers(0, 6, size=400)
    cells[cells == 4] = 5  # cell 4 empty
    g = rng.normal(loc=100.0, size=400).astype(np.float32)  # a large mean: the two-pass variance
    h = rng.uniform(size=400).astype(np.float32)
    s = P.cell_stats(jnp.asarray(cells), 7, jnp.asarray(g), jnp.asarray(h))
    for c in range(7):
        m = cells == c
        n = m.sum()
        assert float(s.n[c]) == n
        # float32 sums of <= 400 terms of size <= 110: relative rounding <= 400 u
        np.testing.assert_allclose(float(s.G[c]), g[m].astype(np.float64).sum(), rtol=3e-5, atol=1e-6)
        np.testing.assert_allclose(float(s.H[c]), h[m].astype(np.float64).sum(), rtol=3e-5, atol=1e-6)
        var = g[m].astype(np.float64).var() if n else 0.0
        np.testing.assert_allclose(float(s.var[c]), var, rtol=1e-3, atol=1e-4)
        mean = g[m].astype(np.float64).mean() if n else 0.0
        np.testing.assert_allclose(float(s.mean[c]), mean, rtol=1e-5)


def test_cell_stats_counts_without_h_and_vector_values():
    cells = jnp.array([0, 2, 2])
    s = P.cell_stats(cells, 3, jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 8.0]]))
    np.testing.assert_array_equal(np.asarray(s.H), [[1, 1], [0, 0], [2, 2]])
    np.testing.assert_allclose(np.asarray(s.var), [[0, 0], [0, 0], [1, 4]])


def test_cell_stats_rejects_bad_shapes():
    with pytest.raises(ValueError):
        P.cell_stats(jnp.zeros(3, int), 2, jnp.zeros(4))
    with pytest.raises(ValueError):
        P.cell_stats(jnp.zeros(3, int), 2, jnp.zeros(3), jnp.zeros(2))
    with pytest.raises(ValueError):
        P.quantile_edges(jnp.zeros(3), 4)
    with pytest.raises(ValueError):
        P.quantile_edges(jnp.zeros((3, 1)), 1)


def test_tree_indexing():
    assert [P.num_nodes(d) for d in range(4)] == [1, 3, 7, 15]
    # heap children of (level, j) are the heap indices 2i+1, 2i+2 of i = heap_index(level, j)
    for level in range(4):
        for j in range(P.level_nodes(level)):
            i = P.heap_index(level, j)
            assert P.heap_index(level + 1, 2 * j) == 2 * i + 1
            assert P.heap_index(level + 1, 2 * j + 1) == 2 * i + 2
    assert sorted(P.heap_index(lv, j) for lv in range(4) for j in range(2**lv)) == list(range(15))


def _np_route(x, feats, thrs, active):
    node = np.zeros(len(x), int)
    for lv in range(feats.shape[0]):
        right = (x[np.arange(len(x)), feats[lv, node]] > thrs[lv, node]) & (lv < active)
        node = 2 * node + right
    return node


@pytest.mark.parametrize("active", [0, 1, 2, 3])
def test_assign_leaves_matches_numpy(active):
    rng = np.random.default_rng(4)
    x = rng.integers(0, 10, size=(200, 3))
    feats = rng.integers(0, 3, size=(3, 4))
    thrs = rng.integers(0, 10, size=(3, 4))
    leaf = np.asarray(P.assign_leaves(jnp.asarray(x), jnp.asarray(feats), jnp.asarray(thrs), active))
    np.testing.assert_array_equal(leaf, _np_route(x, feats, thrs, active))
    # a sample that stops at node (d, j) lands in leaf j * 2**(D - d)
    assert (leaf % 2 ** (3 - active) == 0).all()


def test_assign_leaves_traced_depth_and_continuous_values():
    x = jnp.array([[0.2, 0.9], [0.7, 0.1], [0.7, 0.8]])
    feats = jnp.array([[0, 0], [1, 1]])
    thrs = jnp.array([[0.5, 0.0], [0.5, 0.5]])
    f = jax.jit(lambda d: P.assign_leaves(x, feats, thrs, d))
    assert f(2).tolist() == [1, 2, 3]
    assert f(1).tolist() == [0, 2, 2]
    with pytest.raises(ValueError):
        P.assign_leaves(x, feats, thrs[:1])


def test_tree_fit_cost_and_units():
    assert P.tree_fit_cost(10, 3, 2) == 60
    assert set(P.COST_UNITS) == {"boosting", "grid", "kdtree"}


def test_grow_levels_kd_tree_mean_splits_match_numpy():
    """A kd-tree rule (feature = level mod d, threshold = the node's mean) against a numpy loop."""
    rng = np.random.default_rng(5)
    x = rng.uniform(size=(256, 2)).astype(np.float32)
    D = 3

    def rule(level, node, n_nodes):
        f = jnp.full(n_nodes, level % 2)
        st = P.cell_stats(node, n_nodes, jnp.asarray(x)[:, level % 2])
        return f, st.mean, st.n

    feats, thrs, counts, leaf = P.grow_levels(jnp.asarray(x), D, rule)
    node = np.zeros(256, int)
    for lv in range(D):
        col = x[:, lv % 2].astype(np.float64)
        for j in range(2**lv):
            m = node == j
            assert int(feats[lv, j]) == lv % 2 and float(counts[lv, j]) == m.sum()
            # float32 mean of <= 256 values in [0, 1]: a few ulps
            np.testing.assert_allclose(float(thrs[lv, j]), col[m].mean(), atol=1e-6)
        node = 2 * node + (x[np.arange(256), feats[lv, node]] > np.asarray(thrs)[lv, node])
    np.testing.assert_array_equal(np.asarray(leaf), node)
    np.testing.assert_array_equal(np.asarray(P.assign_leaves(jnp.asarray(x), feats, thrs)), node)
    assert np.asarray(thrs)[1, 2:].tolist() == [0.0, 0.0]  # padding beyond 2**level
    with pytest.raises(ValueError):
        P.grow_levels(jnp.asarray(x), 0, rule)
