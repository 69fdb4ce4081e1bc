"""Newton, gradient-regularized Newton and gradient boosting of histogram trees (arXiv 2605.00581).

Boosting is descent in the space of predictions :math:`F \\in L^2(\\mu_N)` on the
:math:`N` training points. Round :math:`k` computes per-sample gradients
:math:`g_i` and diagonal Hessians :math:`h_i` of the loss at :math:`F_k`, the
regularized curvature (:func:`newton_direction`)

.. math::

    \\tilde h_i = h_i + \\ell_2 + \\sqrt{M\\,\\lVert g\\rVert_N},\\qquad
    \\lVert g\\rVert_N = \\Big(\\tfrac1N\\textstyle\\sum_i g_i^2\\Big)^{1/2},

(per sample, so a leaf with :math:`n` samples gets :math:`n(\\ell_2 + \\lambda_k)`), fits
one complete depth-:math:`D` tree level by level on quantile bins — every node takes
the (feature, bin) of largest gain
:math:`G_L^2/H_L + G_R^2/H_R - G^2/H` with :math:`G = \\sum g`,
:math:`H = \\sum \\tilde h` (+ :data:`EPS`) — with leaf values :math:`-G/H`, and
steps :math:`F_{k+1} = F_k + \\eta\\,\\mathrm{tree}_k`. :math:`M = 0` is Newton boosting,
:math:`h \\equiv 1` gradient boosting: the five methods of :data:`METHODS` are one code
path. Diagnostics per round: the :math:`\\tilde H`-weighted cosine :math:`\\Theta` between
the tree step and the exact step :math:`-g/\\tilde h`, and the edge
:math:`\\gamma = (1 - \\lVert\\tilde h f + g\\rVert^2/\\lVert g\\rVert^2)^{1/2}`
(clipped at 0), as in the authors' code.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.functional import partition as P
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "DEFAULT_PARAMS",
    "EPS",
    "HESS_FLOOR",
    "LOSSES",
    "METHODS",
    "SIMULATOR",
    "BoostSpec",
    "Tree",
    "edge",
    "fit_tree",
    "grad_hess",
    "initial_prediction",
    "loss_value",
    "method_coefficients",
    "newton_direction",
    "predict_tree",
    "run",
    "synthetic_data",
    "theta",
]

#: Loss names (``BoostSpec.loss``): squared error ½(F − y)², binary cross-entropy on logits,
#: Charbonnier √((F − y)² + ε²) − ε.
LOSSES = ("mse", "bce", "charbonnier")
#: Method codes (the ``algo`` parameter): 0 gradient-regularized Newton (M, l2_base), 1 Newton (l2_base), 2 Newton
#: with l2, 3 gradient (h ≡ 1, l2_base), 4 gradient with l2.
METHODS = ("grn", "newton", "newton_l2", "gradient", "gradient_l2")
#: Added to every H in gains and leaf values (the authors' 1e-7).
EPS = 1e-7
#: Floor of the BCE Hessian p(1 − p) and of the Charbonnier s³ (the authors' 1e-5).
HESS_FLOOR = 1e-5

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "algo": 0,
    "lr": 0.1,
    "M": 1.0,
    "l2": 1.0,
    "l2_base": 1e-5,
    "charbonnier_eps": 1.0,
    "noise_scale": 3.0,
    "noise_df": 2.0,
}


def loss_value(loss: str, y: jax.Array, F: jax.Array, eps=1.0) -> jax.Array:
    """Per-sample loss ``l(y, F)`` of ``loss`` (one of :data:`LOSSES`).

    The Charbonnier loss is computed as :math:`r^2/(\\sqrt{r^2 + \\varepsilon^2} + \\varepsilon)`,
    equal to :math:`\\sqrt{r^2 + \\varepsilon^2} - \\varepsilon` without its cancellation, so a
    run that interpolates reports its small loss rather than float32's 0.

    Example:
        >>> import jax.numpy as jnp
        >>> float(loss_value("charbonnier", jnp.array(0.0), jnp.array(0.0)))
        0.0
    """
    r = F - y
    if loss == "mse":
        return 0.5 * r * r
    if loss == "bce":
        return jax.nn.softplus(F) - y * F
    if loss == "charbonnier":
        # = sqrt(r² + ε²) − ε without the cancellation: accurate down to r² ~ 1e-38
        return r * r / (jnp.sqrt(r * r + eps * eps) + eps)
    raise ValueError(f"unknown loss {loss!r}; expected one of {LOSSES}")


def grad_hess(loss: str, y: jax.Array, F: jax.Array, eps=1.0) -> tuple[jax.Array, jax.Array]:
    """Per-sample gradient and diagonal Hessian of the loss in ``F``.

    Args:
        loss: one of :data:`LOSSES`.
        y: targets (0/1 labels for ``"bce"``).
        F: predictions (logits for ``"bce"``).
        eps: the Charbonnier ε.

    Returns:
        ``(g, h)``: for Charbonnier, with :math:`s = \\sqrt{(F - y)^2 + \\varepsilon^2}`,
        :math:`g = (F - y)/s`, :math:`h = \\varepsilon^2/\\max(s^3, 10^{-5})`; for BCE
        :math:`g = \\sigma(F) - y`, :math:`h = \\max(\\sigma(1 - \\sigma), 10^{-5})`; for MSE
        :math:`g = F - y`, :math:`h = 1`.

    Example:
        >>> import jax.numpy as jnp
        >>> g, h = grad_hess("charbonnier", jnp.array(0.0), jnp.array(0.0))
        >>> float(g), float(h)
        (0.0, 1.0)
    """
    r = F - y
    if loss == "mse":
        return r, jnp.ones_like(r)
    if loss == "bce":
        p = jax.nn.sigmoid(F)
        return p - y, jnp.maximum(p * (1 - p), HESS_FLOOR)
    if loss == "charbonnier":
        s = jnp.sqrt(r * r + eps * eps)
        return r / s, eps * eps / jnp.maximum(s**3, HESS_FLOOR)
    raise ValueError(f"unknown loss {loss!r}; expected one of {LOSSES}")


def initial_prediction(loss: str, y: jax.Array) -> jax.Array:
    """``F_0``: the mean target (regression) or the logit of the mean label (BCE).

    Example:
        >>> import jax.numpy as jnp
        >>> float(initial_prediction("bce", jnp.array([0.0, 1.0])))
        0.0
    """
    m = jnp.mean(y)
    if loss == "bce":
        return jnp.log(m) - jnp.log1p(-m)
    if loss in LOSSES:
        return m
    raise ValueError(f"unknown loss {loss!r}; expected one of {LOSSES}")


def newton_direction(g: jax.Array, h: jax.Array, l2, M) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The regularized curvature and the exact step in :math:`L^2(\\mu_N)`.

    :math:`\\tilde h = h + \\ell_2 + \\sqrt{M\\lVert g\\rVert_N}` per sample: ``M = 0`` is
    (l2-damped) Newton, ``h = 1`` gradient boosting, ``M > 0`` the gradient-regularized
    Newton step of Mishchenko (2023) / Doikov & Nesterov (2024) in function space.

    Args:
        g: per-sample gradients, shape ``(N,)``.
        h: per-sample Hessians (ones for gradient boosting), shape ``(N,)``.
        l2: per-sample ridge :math:`\\ell_2 \\ge 0`.
        M: the gradient-regularization constant :math:`M \\ge 0`.

    Returns:
        ``(step, h_tilde, lam)``: the exact step :math:`-g/\\tilde h`, :math:`\\tilde h` and
        :math:`\\lambda = \\sqrt{M\\lVert g\\rVert_N}`.

    Example:
        >>> import jax.numpy as jnp
        >>> step, ht, lam = newton_direction(jnp.array([2.0, -2.0]), jnp.ones(2), 0.0, 2.0)
        >>> step.tolist(), float(lam)
        ([-0.6666666865348816, 0.6666666865348816], 2.0)
    """
    gnorm = jnp.sqrt(jnp.mean(g * g))
    lam = jnp.sqrt(M * gnorm)
    ht = h + l2 + lam
    return -g / ht, ht, lam


def method_coefficients(method, M, l2, l2_base):
    """``(use_hessian, l2, M)`` of a method code into :data:`METHODS` (may be traced).

    Example:
        >>> [float(v) for v in method_coefficients(0, 1.0, 1.0, 1e-5)]
        [1.0, 9.999999747378752e-06, 1.0]
    """
    m = jnp.asarray(method, jnp.int32)
    use_h = jnp.where(m <= 2, 1.0, 0.0)
    l2_eff = jnp.where((m == 2) | (m == 4), l2, l2_base)
    M_eff = jnp.where(m == 0, M, 0.0)
    return jnp.float32(use_h), jnp.float32(l2_eff), jnp.float32(M_eff)


class Tree(NamedTuple):
    """A complete depth-``D`` tree on bins (see :mod:`~jaxtheory.sims.functional.partition`).

    Attributes:
        features: ``(D, 2**(D-1))`` split feature per level and node.
        thresholds: ``(D, 2**(D-1))`` split bin: right when ``bin > threshold``.
        gains: ``(D, 2**(D-1))`` gain of each split.
        values: ``(2**D,)`` leaf values :math:`-G/(H + \\epsilon)`.
    """

    features: jax.Array
    thresholds: jax.Array
    gains: jax.Array
    values: jax.Array


def _best_splits(node, bins, g, ht, n_nodes: int, num_bins: int):
    N, D = bins.shape
    seg = (node[:, None] * D + jnp.arange(D)[None, :]) * num_bins + bins
    gh = jnp.broadcast_to(jnp.stack([g, ht], -1)[:, None, :], (N, D, 2))
    hist = jax.ops.segment_sum(gh.reshape(N * D, 2), seg.reshape(-1), n_nodes * D * num_bins)
    cum = jnp.cumsum(hist.reshape(n_nodes, D, num_bins, 2), axis=2)
    GL, HL = cum[..., 0], cum[..., 1]
    Gt, Ht = GL[..., -1:], HL[..., -1:]
    gain = GL**2 / (HL + EPS) + (Gt - GL) ** 2 / (Ht - HL + EPS) - Gt**2 / (Ht + EPS)
    flat = gain.reshape(n_nodes, D * num_bins)
    k = jnp.argmax(flat, axis=1)
    return (k // num_bins).astype(jnp.int32), (k % num_bins).astype(jnp.int32), jnp.max(flat, axis=1)


def fit_tree(
    bins: jax.Array, g: jax.Array, ht: jax.Array, depth: int, num_bins: int
) -> tuple[Tree, jax.Array]:
    """Grow one complete tree level by level: every node takes its best (feature, bin) by gain.

    Histograms of :math:`(g, \\tilde h)` per (node, feature, bin) come from one
    :func:`jax.ops.segment_sum` per level; ties go to the first feature, then the first
    bin (:func:`jax.numpy.argmax`). No pruning and no minimum child weight (as the
    authors' code); a node without a useful split still splits (gain 0).

    Args:
        bins: ``int32`` bins ``(N, d)`` in ``[0, num_bins)``.
        g: gradients ``(N,)``.
        ht: regularized Hessians ``(N,)`` (from :func:`newton_direction`).
        depth: levels of splits ``D >= 1`` (static).
        num_bins: number of bins (static).

    Returns:
        ``(tree, leaf)``: the :class:`Tree` and the leaf ``(N,)`` of every sample.

    Example:
        >>> import jax.numpy as jnp
        >>> bins = jnp.array([[0], [1], [2], [3]])
        >>> tree, leaf = fit_tree(bins, jnp.array([1.0, 1.0, -1.0, -1.0]), jnp.ones(4), 1, 4)
        >>> int(tree.thresholds[0, 0]), leaf.tolist()
        (1, [0, 0, 1, 1])
    """
    if depth < 1:
        raise ValueError(f"depth must be >= 1, got {depth}")
    bins = jnp.asarray(bins, jnp.int32)

    def rule(level, node, n_nodes):
        return _best_splits(node, bins, g, ht, n_nodes, num_bins)

    feats, thrs, gains, node = P.grow_levels(bins, depth, rule)
    st = P.cell_stats(node, 2**depth, g, ht)
    values = -st.G / (st.H + EPS)
    tree = Tree(feats, thrs, gains, values)
    return tree, node


def predict_tree(tree: Tree, bins: jax.Array) -> jax.Array:
    """The tree's value at every row of ``bins`` (routed by :func:`~jaxtheory.sims.functional.partition.assign_leaves`).

    Example:
        >>> import jax.numpy as jnp
        >>> bins = jnp.array([[0], [3]])
        >>> tree, _ = fit_tree(bins, jnp.array([1.0, -1.0]), jnp.ones(2), 1, 4)
        >>> predict_tree(tree, bins).round(3).tolist()
        [-1.0, 1.0]
    """
    return tree.values[P.assign_leaves(bins, tree.features, tree.thresholds)]


def theta(step: jax.Array, exact: jax.Array, ht: jax.Array) -> jax.Array:
    """The :math:`\\tilde H`-weighted cosine between the tree step and the exact step.

    NaN when either step is 0 everywhere (the cosine is undefined).

    Example:
        >>> import jax.numpy as jnp
        >>> float(theta(jnp.array([1.0, 0.0]), jnp.array([1.0, 1.0]), jnp.ones(2)))
        0.7071067690849304
    """
    # scale-invariant: normalize first, so tiny steps (a run near interpolation) do not underflow
    step = step / jnp.max(jnp.abs(step))
    exact = exact / jnp.max(jnp.abs(exact))
    num = jnp.mean(step * exact * ht)
    return num / jnp.sqrt(jnp.mean(step * step * ht) * jnp.mean(exact * exact * ht))


def edge(step: jax.Array, g: jax.Array, ht: jax.Array) -> jax.Array:
    """The weak gradient edge :math:`\\gamma = (1 - \\lVert\\tilde h f + g\\rVert^2/\\lVert g\\rVert^2)_+^{1/2}`.

    Example:
        >>> import jax.numpy as jnp
        >>> float(edge(jnp.array([-1.0, -1.0]), jnp.array([1.0, 1.0]), jnp.ones(2)))
        1.0
    """
    c = jnp.max(jnp.abs(g))  # invariant to scaling (step, g) together: avoid underflow
    r = (ht * step + g) / c
    gs = g / c
    return jnp.sqrt(jnp.maximum(0.0, 1.0 - jnp.mean(r * r) / jnp.mean(gs * gs)))


def synthetic_data(key: jax.Array, n: int, d: int, loss: str, noise_scale=3.0, noise_df=2.0):
    """The stand-in data set: ``x ~ U[0, 1]^d``, ``f(x) = sin 2πx₁ + x₂²``.

    Regression (MSE, Charbonnier): ``y = f(x) + noise_scale · t(noise_df)`` (heavy tails,
    so that Charbonnier Hessians collapse). BCE: ``y ~ Bernoulli(σ(2 f(x) - 2/3))``.

    Args:
        key: PRNG key.
        n: samples.
        d: features (at least 2).
        loss: one of :data:`LOSSES`.
        noise_scale: scale of the Student-t noise.
        noise_df: its degrees of freedom.

    Returns:
        ``(x, y)`` of shapes ``(n, d)``, ``(n,)``.
    """
    if d < 2:
        raise ValueError(f"the stand-in needs d >= 2 features, got {d}")
    kx, ky = jax.random.split(key)
    x = jax.random.uniform(kx, (n, d))
    f = jnp.sin(2 * jnp.pi * x[:, 0]) + x[:, 1] ** 2
    if loss == "bce":
        return x, jax.random.bernoulli(ky, jax.nn.sigmoid(2.0 * f - 2.0 / 3.0)).astype(jnp.float32)
    return x, f + noise_scale * jax.random.t(ky, noise_df, (n,))


@dataclasses.dataclass(frozen=True)
class BoostSpec:
    """What fixes the shapes of a boosting run (the compile key).

    Attributes:
        n_train: training samples :math:`N`.
        n_test: test samples.
        features: features :math:`d`.
        depth: tree depth :math:`D`.
        num_bins: quantile bins per feature.
        rounds: boosting rounds (trees).
        loss: one of :data:`LOSSES`.
        categories: categories of the one-round closed-form check (the first feature
            cut into this many equal-width categories; a tree of depth
            ``categories - 1`` isolates every category).
    """

    n_train: int = 2000
    n_test: int = 2000
    features: int = 8
    depth: int = 3
    num_bins: int = 64
    rounds: int = 200
    loss: str = "charbonnier"
    categories: int = 4


def _categorical_residual(spec, x, y, use_h, l2, M, lr, eps):
    """max |F₁ − closed form| / scale after one round on the first feature cut into categories."""
    K = spec.categories
    cat = jnp.clip(jnp.floor(x[:, 0] * K), 0, K - 1).astype(jnp.int32)
    F0 = jnp.full(y.shape, initial_prediction(spec.loss, y))
    g, h = grad_hess(spec.loss, y, F0, eps)
    h = jnp.where(use_h > 0, h, 1.0)
    _, ht, lam = newton_direction(g, h, l2, M)
    tree, leaf = fit_tree(cat[:, None], g, ht, K - 1, K)
    F1 = F0 + lr * tree.values[leaf]
    onehot = cat[:, None] == jnp.arange(K)[None, :]
    Gc = jnp.sum(jnp.where(onehot, g[:, None], 0.0), 0)
    Hc = jnp.sum(jnp.where(onehot, h[:, None], 0.0), 0)
    nc = jnp.sum(onehot, 0).astype(g.dtype)
    Hreg = Hc + nc * (l2 + lam)
    closed = F0 - lr * (Gc / Hreg)[cat]
    # float32 rounding of the sums scales with |F0| + η Σ_c |g| / H̃_c, not with |F1|
    Sc = jnp.sum(jnp.where(onehot, jnp.abs(g)[:, None], 0.0), 0)
    scale = jnp.abs(F0) + lr * (Sc / Hreg)[cat]
    return jnp.max(jnp.abs(F1 - closed) / scale)


def run(spec: BoostSpec, params: dict, key: jax.Array) -> dict:
    """One boosting run on the synthetic stand-in; pure, jittable and vmappable.

    Args:
        spec: a :class:`BoostSpec`.
        params: ``algo`` (code into :data:`METHODS`), ``lr`` (:math:`\\eta`), ``M``
            (GRN's constant), ``l2`` (the ridge of the ``*_l2`` methods), ``l2_base``
            (the others' ridge), ``charbonnier_eps``, ``noise_scale`` and ``noise_df``
            (of the data); scalars, may be traced.
        key: the lane's key: it draws the training and test data.

    Returns:
        ``train_loss`` and ``test_loss`` (``rounds + 1``: before the first tree and
        after each), ``theta``, ``gamma`` and ``lam`` (:math:`\\lambda_k`, one per tree),
        ``final_train``, ``final_test``, ``cat_residual`` (the one-round closed-form
        check on one categorical feature: :math:`\\max_i |F_1(x_i) - F^{\\rm closed}_{c(i)}|`
        over :math:`|F_0| + \\eta\\sum_{j\\in c(i)}|g_j|/\\tilde H_{c(i)}`, the scale of
        float32 rounding in the sums), ``cost`` (tree fits) and ``hist_updates``.

    Example:
        >>> import jax
        >>> out = jax.jit(run, static_argnums=0)(BoostSpec(n_train=200, n_test=50, rounds=5), DEFAULT_PARAMS, jax.random.key(0))
        >>> out["train_loss"].shape, int(out["cost"])
        ((6,), 5)
    """
    if spec.loss not in LOSSES:
        raise ValueError(f"unknown loss {spec.loss!r}; expected one of {LOSSES}")
    k_tr, k_te = jax.random.split(key)
    ns, df = params["noise_scale"], params["noise_df"]
    x, y = synthetic_data(k_tr, spec.n_train, spec.features, spec.loss, ns, df)
    xt, yt = synthetic_data(k_te, spec.n_test, spec.features, spec.loss, ns, df)
    edges = P.quantile_edges(x, spec.num_bins)
    bins, bins_t = P.bin_features(x, edges), P.bin_features(xt, edges)
    use_h, l2, M = method_coefficients(params["algo"], params["M"], params["l2"], params["l2_base"])
    lr = jnp.float32(params["lr"])
    eps = jnp.float32(params["charbonnier_eps"])
    F0 = initial_prediction(spec.loss, y)

    def mean_loss(yy, F):
        return jnp.mean(loss_value(spec.loss, yy, F, eps))

    def round_(carry, _):
        F, Ft = carry
        g, h = grad_hess(spec.loss, y, F, eps)
        h = jnp.where(use_h > 0, h, 1.0)
        exact, ht, lam = newton_direction(g, h, l2, M)
        tree, leaf = fit_tree(bins, g, ht, spec.depth, spec.num_bins)
        step = tree.values[leaf]
        F, Ft = F + lr * step, Ft + lr * predict_tree(tree, bins_t)
        out = (mean_loss(y, F), mean_loss(yt, Ft), theta(step, exact, ht), edge(step, g, ht), lam)
        return (F, Ft), out

    init = (jnp.full(y.shape, F0), jnp.full(yt.shape, F0))
    (F, Ft), (tr, te, th, ga, lam) = jax.lax.scan(round_, init, None, length=spec.rounds)
    tr = jnp.concatenate([mean_loss(y, init[0])[None], tr])
    te = jnp.concatenate([mean_loss(yt, init[1])[None], te])
    fits = spec.rounds
    return {
        "train_loss": tr,
        "test_loss": te,
        "theta": th,
        "gamma": ga,
        "lam": lam,
        "final_train": tr[-1],
        "final_test": te[-1],
        "cat_residual": _categorical_residual(spec, x, y, use_h, l2, M, lr, eps),
        "cost": jnp.float32(fits),
        "hist_updates": jnp.float32(fits * P.tree_fit_cost(spec.n_train, spec.features, spec.depth)),
    }


#: The simulator's declaration: the method ``algo`` is categorical (labels :data:`METHODS`);
#: losses are recorded at rounds 0..rounds, the per-tree diagnostics at trees 1..rounds.
SIMULATOR = Simulator(
    run,
    spec=BoostSpec(),
    params={**DEFAULT_PARAMS, "algo": categorical(*METHODS)},
    metric_dims={
        "train_loss": ("round",),
        "test_loss": ("round",),
        "theta": ("tree",),
        "gamma": ("tree",),
        "lam": ("tree",),
    },
    coords=lambda spec: {"round": np.arange(spec.rounds + 1), "tree": np.arange(1, spec.rounds + 1)},
)
