"""Histogram-tree boosting: our level-wise tree growth against a numpy histogram booster.

One process, the peer measured in the same run: boosting of ``T`` depth-``D`` trees on
the squared loss (``g = F - y``, ``h = 1``) with quantile bins,

(a) ours: :func:`jaxtheory.sims.functional.boosting.fit_tree` under one ``jit`` with
    ``lax.scan`` over the rounds (histograms by ``jax.ops.segment_sum``, float32);
(b) the peer: the same algorithm in numpy, histograms of every (node, feature, bin) per
    level by one ``np.bincount`` (float64), cumulative sums, gains and ``argmax`` per
    node, a Python loop over levels and rounds: the usual vectorized numpy booster.

Both grow the same trees (the first tree's splits are compared; later ones may differ
by a near-tie in float32 against float64) and the final training losses agree. Work is
counted as histogram updates ``N · d · D · T``.

Usage: ``python benchmarks/boosting_trees.py [--tiny] [--no-record]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.functional import boosting as gb
from jaxtheory.sims.functional import partition as P

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

INTRO = (
    "Boosting T depth-D trees on the squared loss with quantile bins: (a) ours, "
    "`sims.functional.boosting.fit_tree` under one jit and lax.scan over rounds (segment_sum "
    "histograms, float32); (b) the peer, the same level-wise histogram booster in numpy (one "
    "np.bincount per level over every node, feature and bin, float64). Rate = histogram "
    "updates N·d·D·T per second."
)
#: (N, d, bins, depth, trees) by size name.
SIZES = {
    "tiny": (1000, 4, 16, 2, 3),
    "cpu": (20_000, 8, 64, 6, 20),
}
L2 = 1e-5
LR = 0.1


def numpy_boost(bins: np.ndarray, y: np.ndarray, depth: int, num_bins: int, trees: int):
    """The peer: level-wise histogram boosting in numpy; returns final F and the first tree's splits."""
    N, d = bins.shape
    F = np.full(N, y.mean())
    offs = np.arange(d) * num_bins
    rows = np.arange(N)
    first = None
    for k in range(trees):
        g = F - y
        ht = np.ones(N) + L2
        gw, hw = np.repeat(g, d), np.repeat(ht, d)
        node = np.zeros(N, np.int64)
        splits = []
        for level in range(depth):
            n_nodes = 2**level
            seg = (node[:, None] * (d * num_bins) + offs[None, :] + bins).ravel()
            size = n_nodes * d * num_bins
            GL = np.cumsum(np.bincount(seg, gw, size).reshape(n_nodes, d, num_bins), axis=2)
            HL = np.cumsum(np.bincount(seg, hw, size).reshape(n_nodes, d, num_bins), axis=2)
            Gt, Ht = GL[..., -1:], HL[..., -1:]
            gain = GL**2 / (HL + gb.EPS) + (Gt - GL) ** 2 / (Ht - HL + gb.EPS) - Gt**2 / (Ht + gb.EPS)
            best = gain.reshape(n_nodes, -1).argmax(axis=1)
            f, t = best // num_bins, best % num_bins
            splits.append((f, t))
            node = 2 * node + (bins[rows, f[node]] > t[node])
        G = np.bincount(node, g, 2**depth)
        H = np.bincount(node, ht, 2**depth)
        F = F + LR * (-G / (H + gb.EPS))[node]
        if k == 0:
            first = splits
    return F, first


def ours(depth: int, num_bins: int, trees: int):
    """Our booster as one jitted program: (bins, y) -> (final F, first tree's features and thresholds)."""

    @jax.jit
    def boost(bins, y):
        def round_(F, _):
            g = F - y
            _, ht, _ = gb.newton_direction(g, jnp.ones_like(g), L2, 0.0)
            tree, leaf = gb.fit_tree(bins, g, ht, depth, num_bins)
            return F + LR * tree.values[leaf], (tree.features, tree.thresholds)

        F, (f, t) = jax.lax.scan(round_, jnp.full(y.shape, jnp.mean(y)), None, length=trees)
        return F, f[0], t[0]

    return boost


def bench(N: int, d: int, num_bins: int, depth: int, trees: int, reps: int = 3) -> tuple[dict, list[str]]:
    """Both boosters at one size; returns the figures and the printed lines."""
    x, y = gb.synthetic_data(jax.random.key(0), N, d, "mse", 0.3, 5.0)
    bins = P.bin_features(x, P.quantile_edges(x, num_bins))
    bins_np, y_np = np.asarray(bins).astype(np.int64), np.asarray(y).astype(np.float64)
    fn = ours(depth, num_bins, trees)
    t_ours = C.timed(fn, bins, y, reps=reps)
    F, f0, t0 = (np.asarray(a) for a in t_ours.result)
    t_peer = C.best_of(numpy_boost, reps, bins_np, y_np, depth, num_bins, trees)
    F_np, first = numpy_boost(bins_np, y_np, depth, num_bins, trees)
    same = all(
        np.array_equal(f0[lv, : 2**lv], first[lv][0]) and np.array_equal(t0[lv, : 2**lv], first[lv][1])
        for lv in range(depth)
    )
    loss, loss_np = 0.5 * np.mean((F - y_np) ** 2), 0.5 * np.mean((F_np - y_np) ** 2)
    work = N * d * depth * trees
    r = C.ratio(t_peer, t_ours.warm)
    lines = [
        f"N = {N}, d = {d}, {num_bins} bins, depth {depth}, {trees} trees ({work:.3g} histogram updates)",
        f"(a) ours   cold {t_ours.cold:8.3f} s  warm {t_ours.warm:8.4f} s  {work / t_ours.warm:10.3g} updates/s",
        f"(b) numpy  best {t_peer:8.4f} s               {work / t_peer:10.3g} updates/s",
        f"ratio numpy / ours (warm): {r:.2f}x; first tree's splits equal: {same}; "
        f"final train loss {loss:.6f} (ours) vs {loss_np:.6f} (numpy)",
    ]
    return {
        "ours_warm": t_ours.warm,
        "ours_cold": t_ours.cold,
        "peer": t_peer,
        "ratio": r,
        "same": same,
    }, lines


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="N = 1000, 4 features, depth 2, 3 trees (never records)")
    args = ap.parse_args(argv)
    size = "tiny" if args.tiny else "cpu"
    res, lines = bench(*SIZES[size], reps=1 if args.tiny else 3)
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record(f"boosting_trees ({size})", lines, intro=INTRO, script="boosting_trees.py")
    return res


if __name__ == "__main__":
    main()
