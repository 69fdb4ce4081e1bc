"""Piecewise-constant partitions: quantile bins, per-cell statistics, complete binary trees.

The piece the function-space simulators share:

* **bins**: :func:`quantile_edges` puts ``num_bins - 1`` edges per feature at the
  empirical quantiles, :func:`bin_features` maps values to bin indices in
  ``[0, num_bins)`` with the convention of :func:`numpy.digitize` (bin ``b`` holds
  ``edges[b-1] <= x < edges[b]``);
* **cells**: :func:`cell_stats` sums per cell, by :func:`jax.ops.segment_sum`, the
  gradient ``G``, the Hessian ``H``, the count ``n`` and the within-cell variance of a
  value (two passes: the mean first, then the squared deviations, so the variance does
  not cancel catastrophically);
* **trees**: a *complete* binary tree of fixed depth ``D`` stored level by level. A node
  is ``(level, j)`` with ``0 <= j < 2**level``; its children are ``(level + 1, 2j)``
  (left) and ``(level + 1, 2j + 1)`` (right), its heap index is
  ``2**level - 1 + j`` (:func:`heap_index`). A tree is two arrays of shape
  ``(D, 2**(D-1))``, ``features`` and ``thresholds``: node ``(l, j)`` sends a sample
  right when ``x[features[l, j]] > thresholds[l, j]`` (entries ``j >= 2**l`` are
  padding). Growth is level-wise (:func:`grow_levels`, with a split rule per level):
  :func:`descend` moves every sample one level down,
  :func:`assign_leaves` routes from the root to the leaves ``[0, 2**D)``. With
  ``active_depth = d < D`` a sample stops after ``d`` levels and is sent left below
  (leaf ``j * 2**(D - d)`` for the node ``(d, j)``): a kd-tree that refines its depth
  keeps one fixed-shape tree with an active-depth mask.
* **cost**: every function-space run reports a ``cost`` metric counted in the unit of
  :data:`COST_UNITS` of its family: boosting counts tree fits (one per round), grid
  and kd-tree descent count cell samples (function evaluations). A run reporting a
  finer work count adds it under its own name (boosting's ``hist_updates``,
  :func:`tree_fit_cost`).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = [
    "COST_UNITS",
    "CellStats",
    "assign_leaves",
    "bin_features",
    "cell_stats",
    "descend",
    "grow_levels",
    "heap_index",
    "level_nodes",
    "num_nodes",
    "quantile_edges",
    "tree_fit_cost",
]

#: The unit of the ``cost`` metric by family: what one unit of ``cost`` counts.
COST_UNITS = {
    "boosting": "tree fits (one regression tree per boosting round)",
    "grid": "cell samples (function evaluations at sample points of cells)",
    "kdtree": "cell samples (function evaluations at sample points of cells)",
}


def quantile_edges(x: jax.Array, num_bins: int) -> jax.Array:
    """Bin edges at the empirical quantiles ``k / num_bins``, ``k = 1..num_bins-1``, per feature.

    Args:
        x: values, shape ``(N, D)``.
        num_bins: number of bins (at least 2).

    Returns:
        Edges of shape ``(D, num_bins - 1)``, non-decreasing along the last axis
        (linear interpolation between order statistics, as :func:`numpy.quantile`).

    Example:
        >>> import jax.numpy as jnp
        >>> quantile_edges(jnp.arange(5.0)[:, None], 2).tolist()
        [[2.0]]
    """
    if num_bins < 2:
        raise ValueError(f"num_bins must be at least 2, got {num_bins}")
    x = jnp.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"x must have shape (N, D), got {x.shape}")
    q = jnp.arange(1, num_bins, dtype=x.dtype) / num_bins
    return jnp.quantile(x, q, axis=0).T


def bin_features(x: jax.Array, edges: jax.Array) -> jax.Array:
    """Bin index of every value: the number of a feature's edges that are ``<= x``.

    The convention of ``numpy.digitize(x, edges)``: bin ``b`` holds
    ``edges[b-1] <= x < edges[b]``, so values equal to an edge go to the bin above it.

    Args:
        x: values, shape ``(N, D)``.
        edges: shape ``(D, num_bins - 1)`` (from :func:`quantile_edges`).

    Returns:
        ``int32`` bins of shape ``(N, D)`` in ``[0, num_bins)``.

    Example:
        >>> import jax.numpy as jnp
        >>> bin_features(jnp.array([[0.0], [2.0], [3.0]]), jnp.array([[2.0]])).ravel().tolist()
        [0, 1, 1]
    """
    x, edges = jnp.asarray(x), jnp.asarray(edges)
    if x.ndim != 2 or edges.ndim != 2 or edges.shape[0] != x.shape[1]:
        raise ValueError(f"x (N, D) and edges (D, B-1) do not match: {x.shape}, {edges.shape}")
    per_feature = jax.vmap(lambda e, col: jnp.searchsorted(e, col, side="right"), in_axes=(0, 1), out_axes=1)
    return per_feature(edges, x).astype(jnp.int32)


class CellStats(NamedTuple):
    """Per-cell sums of a partition (each field has shape ``(num_cells, ...)``).

    Attributes:
        G: sum of the gradient (or value) over the cell's samples.
        H: sum of the Hessian (or weight) over the cell's samples.
        n: number of samples.
        mean: ``G / n`` (0 in an empty cell).
        var: within-cell (population) variance of the value, ``(1/n) Σ (g - mean)²``.
    """

    G: jax.Array
    H: jax.Array
    n: jax.Array
    mean: jax.Array
    var: jax.Array


def cell_stats(cells: jax.Array, num_cells: int, g: jax.Array, h: jax.Array | None = None) -> CellStats:
    """Sums of ``g`` and ``h``, counts and within-cell variance of ``g`` per cell.

    Args:
        cells: cell index of every sample, shape ``(N,)``, in ``[0, num_cells)``
            (out-of-range indices are dropped, as by :func:`jax.ops.segment_sum`).
        num_cells: number of cells (static).
        g: values, shape ``(N,)`` or ``(N, p)``.
        h: weights of the same shape, or ``None`` (then ``H`` is the count).

    Returns:
        A :class:`CellStats`.

    Example:
        >>> import jax.numpy as jnp
        >>> s = cell_stats(jnp.array([0, 0, 1]), 3, jnp.array([1.0, 3.0, 5.0]))
        >>> s.G.tolist(), s.n.tolist(), s.var.tolist()
        ([4.0, 5.0, 0.0], [2.0, 1.0, 0.0], [1.0, 0.0, 0.0])
    """
    cells = jnp.asarray(cells, jnp.int32)
    g = jnp.asarray(g)
    if cells.ndim != 1 or g.shape[0] != cells.shape[0]:
        raise ValueError(f"cells (N,) and g (N, ...) do not match: {cells.shape}, {g.shape}")
    if h is not None and jnp.shape(h) != g.shape:
        raise ValueError(f"h must have the shape of g {g.shape}, got {jnp.shape(h)}")
    ones = jnp.ones(cells.shape, g.dtype)
    n = jax.ops.segment_sum(ones, cells, num_cells)
    G = jax.ops.segment_sum(g, cells, num_cells)
    nb = n.reshape(n.shape + (1,) * (g.ndim - 1))
    if h is None:
        H = nb * jnp.ones_like(G)
    else:
        H = jax.ops.segment_sum(jnp.asarray(h, g.dtype), cells, num_cells)
    safe = jnp.maximum(nb, 1.0)
    mean = G / safe
    dev = g - mean[jnp.clip(cells, 0, num_cells - 1)]
    var = jax.ops.segment_sum(dev * dev, cells, num_cells) / safe
    return CellStats(G=G, H=H, n=n, mean=mean, var=var)


def num_nodes(depth: int) -> int:
    """Number of nodes of a complete binary tree with ``depth`` levels of splits and its leaves.

    Example:
        >>> num_nodes(3)
        15
    """
    if depth < 0:
        raise ValueError(f"depth must be >= 0, got {depth}")
    return 2 ** (depth + 1) - 1


def level_nodes(level: int) -> int:
    """Number of nodes at ``level`` (the root is level 0): ``2**level``.

    Example:
        >>> level_nodes(3)
        8
    """
    if level < 0:
        raise ValueError(f"level must be >= 0, got {level}")
    return 2**level


def heap_index(level, j):
    """Heap index ``2**level - 1 + j`` of node ``(level, j)`` (children of ``i``: ``2i+1``, ``2i+2``).

    Example:
        >>> [heap_index(1, 0), heap_index(1, 1), heap_index(2, 3)]
        [1, 2, 6]
    """
    return 2**level - 1 + j


def descend(node: jax.Array, go_right: jax.Array) -> jax.Array:
    """One level down: node ``j`` goes to ``2j`` (left) or ``2j + 1`` (right).

    Example:
        >>> import jax.numpy as jnp
        >>> descend(jnp.array([0, 1]), jnp.array([True, False])).tolist()
        [1, 2]
    """
    return 2 * node + go_right.astype(node.dtype)


def grow_levels(x: jax.Array, depth: int, split_fn) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """Grow a complete tree of depth ``depth`` level by level with a per-level split rule.

    At level ``l`` the rule sees where every sample is and picks one split per node; the
    samples then descend (right when ``x[:, feature] > threshold``). Histogram trees
    (:func:`jaxtheory.sims.functional.boosting.fit_tree`) and kd-trees share this driver.

    Args:
        x: ``(N, d)`` bin indices or raw values.
        depth: levels of splits ``D >= 1`` (static).
        split_fn: ``split_fn(level, node, n_nodes) -> (features, thresholds, score)``,
            each of shape ``(n_nodes,)`` with ``n_nodes = 2**level`` and ``node`` the
            ``(N,)`` node of every sample at that level; ``score`` is any per-node value to
            keep (a gain; zeros when there is none).

    Returns:
        ``(features, thresholds, scores, leaf)``: three ``(D, 2**(D-1))`` arrays (padded
        with zeros beyond ``2**l`` at level ``l``) and the ``(N,)`` leaf of every sample.

    Example:
        >>> import jax.numpy as jnp
        >>> x = jnp.array([[0.1], [0.4], [0.6], [0.9]])
        >>> rule = lambda lv, node, n: (jnp.zeros(n, int), jnp.full(n, 0.5), jnp.zeros(n))
        >>> f, t, s, leaf = grow_levels(x, 1, rule)
        >>> leaf.tolist()
        [0, 0, 1, 1]
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    x = jnp.asarray(x)
    N = x.shape[0]
    width = 2 ** (depth - 1)
    rows = jnp.arange(N)
    node = jnp.zeros(N, jnp.int32)
    feats, thrs, scores = [], [], []
    for level in range(depth):
        n_nodes = level_nodes(level)
        f, t, sc = split_fn(level, node, n_nodes)
        f = jnp.asarray(f, jnp.int32)
        t, sc = jnp.asarray(t), jnp.asarray(sc)
        node = descend(node, x[rows, f[node]] > t[node])
        pad = width - n_nodes
        feats.append(jnp.pad(f, (0, pad)))
        thrs.append(jnp.pad(t, (0, pad)))
        scores.append(jnp.pad(sc, (0, pad)))
    return jnp.stack(feats), jnp.stack(thrs), jnp.stack(scores), node


def assign_leaves(
    x: jax.Array, features: jax.Array, thresholds: jax.Array, active_depth: jax.Array | int | None = None
) -> jax.Array:
    """Leaf in ``[0, 2**D)`` of every sample in a complete tree of depth ``D``.

    Args:
        x: shape ``(N, d)``: bin indices or raw values (compared with ``>``).
        features: ``(D, 2**(D-1))`` integer split features per level.
        thresholds: ``(D, 2**(D-1))`` split thresholds per level (same kind as ``x``).
        active_depth: levels that split (``None``: all ``D``); may be traced. Below it a
            sample goes left, so node ``(d, j)`` ends in leaf ``j * 2**(D - d)``.

    Returns:
        ``int32`` leaves of shape ``(N,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> x = jnp.array([[0], [5]])
        >>> assign_leaves(x, jnp.zeros((1, 1), int), jnp.array([[2]])).tolist()
        [0, 1]
    """
    x = jnp.asarray(x)
    features, thresholds = jnp.asarray(features), jnp.asarray(thresholds)
    if features.shape != thresholds.shape or features.ndim != 2:
        raise ValueError(
            f"features and thresholds must both be (D, 2**(D-1)): {features.shape}, {thresholds.shape}"
        )
    D = features.shape[0]
    rows = jnp.arange(x.shape[0])
    act = D if active_depth is None else active_depth

    def level(node, inp):
        lv, f, t = inp
        right = (x[rows, f[node]] > t[node]) & (lv < act)
        return descend(node, right), None

    node, _ = jax.lax.scan(level, jnp.zeros(x.shape[0], jnp.int32), (jnp.arange(D), features, thresholds))
    return node


def tree_fit_cost(num_samples: int, num_features: int, depth: int) -> int:
    """Histogram updates of one level-wise tree fit: every sample on every feature at every level.

    Example:
        >>> tree_fit_cost(2000, 8, 3)
        48000
    """
    return int(num_samples) * int(num_features) * int(depth)
