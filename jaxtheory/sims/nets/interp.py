r"""Activation patching and representational similarity analysis for any per-head model.

Two halves, both model-agnostic:

* :func:`patch_heads` (``jnp``, jit/vmap-able) runs a model ``apply(params, tokens,
  patch) -> (logits, heads)`` that exposes its per-head outputs ``(L, H, T, d)`` and
  accepts a ``(mask, values)`` patch (the contract of
  :func:`jaxtheory.sims.nets.transformer.forward`). For each minimal pair it records the
  metric on the clean run, on the corrupted run, and on the corrupted run with one head's
  output replaced by its clean output (clean → corrupted patching, all positions), for
  every head. :func:`normalized_effects` turns these into indirect effects normalised by
  the mean total effect (1: the head alone carries the whole effect).
* Statistics on plain arrays (``numpy``; arrays in, statistics out): the
  :func:`sign_flip_test` of a mean effect, representational dissimilarity matrices
  (:func:`condition_means`, :func:`rdm`, :func:`model_rdm`), :func:`pearson` and
  :func:`spearman` (average ranks for ties) between their upper triangles (:func:`rsa`),
  the :func:`mantel_test` (permuting condition labels), RSA under shuffled vignette
  labels (:func:`shuffled_rsa`) and a stratified :func:`bootstrap_rsa` interval.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory import analysis

__all__ = [
    "patch_heads",
    "normalized_effects",
    "sign_flip_test",
    "condition_means",
    "rdm",
    "model_rdm",
    "upper",
    "rankdata",
    "pearson",
    "spearman",
    "rsa",
    "mantel_test",
    "shuffled_rsa",
    "bootstrap_rsa",
    "EXACT_SIGN_FLIP_MAX",
    "EXACT_MANTEL_MAX",
]

#: Largest sample for which :func:`sign_flip_test` enumerates all 2^n sign patterns by default.
EXACT_SIGN_FLIP_MAX = 16
#: Largest number of conditions for which :func:`mantel_test` enumerates all C! permutations.
EXACT_MANTEL_MAX = 8


def patch_heads(apply: Callable, params, clean, corrupt, metric: Callable) -> dict:
    """Clean → corrupted patching of every head, one minimal pair at a time.

    Args:
        apply: ``apply(params, tokens, patch=None) -> (logits, heads)`` for one sequence,
            ``heads`` of shape ``(L, H, T, d)``; ``patch = (mask (L, H), values (L, H, T, d))``
            replaces the heads where ``mask`` is 1.
        params: the model's parameters.
        clean: ``(n, T)`` clean sequences.
        corrupt: ``(n, T)`` corrupted sequences (same length).
        metric: ``metric(logits) -> scalar`` (e.g. a logit difference).

    Returns:
        dict of ``clean (n,)``, ``corrupt (n,)`` and ``patched (n, L, H)`` metric values.
    """

    def one(c, r):
        logits_c, heads_c = apply(params, c)
        logits_r, _ = apply(params, r)
        n_layers, n_heads = heads_c.shape[:2]
        masks = jnp.eye(n_layers * n_heads, dtype=heads_c.dtype).reshape(-1, n_layers, n_heads)
        patched = jax.vmap(lambda m: metric(apply(params, r, (m, heads_c))[0]))(masks)
        return metric(logits_c), metric(logits_r), patched.reshape(n_layers, n_heads)

    c, r, pt = jax.vmap(one)(jnp.asarray(clean), jnp.asarray(corrupt))
    return {"clean": c, "corrupt": r, "patched": pt}


def normalized_effects(patched, clean, corrupt):
    """Per-pair indirect effects over the mean total effect: ``(patched − corrupt) / mean(clean − corrupt)``.

    Args:
        patched: ``(n, ...)`` metric with one component patched (any trailing dims).
        clean: ``(n,)`` clean metric.
        corrupt: ``(n,)`` corrupted metric.

    Returns:
        ``(n, ...)`` normalised effects (1: the component restores the whole effect).

    Raises:
        ValueError: when the mean total effect is zero (nothing to mediate).

    Example:
        >>> normalized_effects(np.array([[1.0, 0.0]]), np.array([2.0]), np.array([0.0])).tolist()
        [[0.5, 0.0]]
    """
    patched, clean, corrupt = (np.asarray(a, float) for a in (patched, clean, corrupt))
    total = float(np.mean(clean - corrupt))
    if total == 0.0 or not math.isfinite(total):
        raise ValueError(f"the mean total effect is {total}: nothing to normalise by")
    shape = (-1,) + (1,) * (patched.ndim - 1)
    return (patched - corrupt.reshape(shape)) / total


def sign_flip_test(
    x, *, alternative: str = "greater", n_perm: int = 9999, seed: int = 0, exact: bool | None = None
) -> float:
    """Permutation p-value of a mean against 0 by random sign flips (symmetric null).

    The null is that each ``x_i`` is symmetric about 0 (for paired differences:
    exchangeable within pairs). Exact (all 2^n patterns, the identity included) for
    ``n <= EXACT_SIGN_FLIP_MAX`` unless ``exact=False``; otherwise Monte Carlo with the
    ``(1 + #{T* >= T}) / (1 + n_perm)`` correction, so a p-value is never 0.

    Args:
        x: ``(n,)`` sample.
        alternative: ``"greater"`` (mean > 0), ``"less"`` or ``"two-sided"`` (on ``|mean|``).
        n_perm: Monte-Carlo sign patterns.
        seed: RNG seed of the patterns.
        exact: force (True) or forbid (False) enumeration.

    Returns:
        The p-value.

    Example:
        >>> sign_flip_test(np.ones(10))  # only the identity pattern reaches mean 1
        0.0009765625
    """
    x = np.asarray(x, float).ravel()
    n = x.size
    if n == 0 or not np.all(np.isfinite(x)):
        raise ValueError("sign_flip_test needs a non-empty finite sample")
    if alternative not in ("greater", "less", "two-sided"):
        raise ValueError(f"alternative must be 'greater', 'less' or 'two-sided', not {alternative!r}")
    if exact is None:
        exact = n <= EXACT_SIGN_FLIP_MAX
    if exact:
        if n > 24:
            raise ValueError(f"exact enumeration of 2^{n} sign patterns is too large")
        bits = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
        signs = 1.0 - 2.0 * bits
    else:
        signs = np.random.default_rng(seed).choice([-1.0, 1.0], size=(n_perm, n))
    stats = signs @ x / n
    obs = x.mean()
    if alternative == "less":
        stats, obs = -stats, -obs
    elif alternative == "two-sided":
        stats, obs = np.abs(stats), abs(obs)
    tol = 1e-12 * max(1.0, float(np.abs(x).max()))  # ties of the same sum computed in another order
    hits = int(np.sum(stats >= obs - tol))
    return hits / signs.shape[0] if exact else (1 + hits) / (1 + n_perm)


def condition_means(reps, labels, n_conditions: int):
    """Mean representation per condition.

    Args:
        reps: ``(n, ...)`` representations (one per vignette).
        labels: ``(n,)`` condition indices in ``0..n_conditions-1``.
        n_conditions: number of conditions ``C``.

    Returns:
        ``(C, ...)`` means.

    Raises:
        ValueError: when a condition has no vignette.

    Example:
        >>> condition_means(np.array([1.0, 3.0, 5.0]), np.array([0, 0, 1]), 2).tolist()
        [2.0, 5.0]
    """
    reps = np.asarray(reps, float)
    labels = np.asarray(labels).astype(int).ravel()
    if labels.shape[0] != reps.shape[0]:
        raise ValueError(f"{labels.shape[0]} labels for {reps.shape[0]} representations")
    counts = np.bincount(labels, minlength=n_conditions)
    if counts.size != n_conditions or np.any(counts == 0):
        raise ValueError(f"every one of the {n_conditions} conditions needs a vignette; counts {counts}")
    flat = reps.reshape(reps.shape[0], -1)
    sums = np.zeros((n_conditions, flat.shape[1]))
    np.add.at(sums, labels, flat)
    return (sums / counts[:, None]).reshape((n_conditions,) + reps.shape[1:])


def rdm(means, metric: str = "euclidean"):
    """Representational dissimilarity matrix of condition means ``(C, d)``.

    Args:
        means: ``(C, d)`` (or ``(C,)``) condition means.
        metric: ``"euclidean"`` or ``"correlation"`` (1 − Pearson across features).

    Returns:
        ``(C, C)`` symmetric matrix with zero diagonal.

    Example:
        >>> rdm(np.array([[0.0, 0.0], [3.0, 4.0]])).tolist()
        [[0.0, 5.0], [5.0, 0.0]]
    """
    m = np.asarray(means, float)
    m = m.reshape(m.shape[0], -1)
    if metric == "euclidean":
        diff = m[:, None, :] - m[None, :, :]
        return np.sqrt(np.sum(diff**2, axis=-1))
    if metric == "correlation":
        z = m - m.mean(1, keepdims=True)
        z = z / np.linalg.norm(z, axis=1, keepdims=True)
        out = 1.0 - z @ z.T
        np.fill_diagonal(out, 0.0)
        return out
    raise ValueError(f"metric must be 'euclidean' or 'correlation', not {metric!r}")


def model_rdm(features):
    """A model RDM from per-condition features: ``|f_i − f_j|`` (Euclidean for vectors).

    Example:
        >>> model_rdm([0, 1, 1]).tolist()
        [[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    return rdm(np.asarray(features, float), "euclidean")


def upper(m):
    """The strict upper triangle of a square matrix (or a stack ``(..., C, C)``), row by row.

    Example:
        >>> upper(np.arange(9.0).reshape(3, 3)).tolist()
        [1.0, 2.0, 5.0]
    """
    m = np.asarray(m)
    i, j = np.triu_indices(m.shape[-1], 1)
    return m[..., i, j]


#: Average ranks along the last axis (batched): :func:`jaxtheory.analysis.ranks`.
rankdata = analysis.ranks
#: Pearson correlation along the last axis (batched): :func:`jaxtheory.analysis.pearson`.
pearson = analysis.pearson


def spearman(x, y):
    """Spearman's rank correlation along the last axis (average ranks for ties; batched).

    Example:
        >>> float(spearman([1.0, 2.0, 3.0, 4.0], [10.0, 20.0, 25.0, 100.0]))
        1.0
    """
    return pearson(rankdata(x), rankdata(y))


def _corr(method):
    if method == "spearman":
        return spearman
    if method == "pearson":
        return pearson
    raise ValueError(f"method must be 'spearman' or 'pearson', not {method!r}")


def rsa(reps, labels, model, *, method: str = "spearman", metric: str = "euclidean"):
    """RSA: correlation of a representation's RDM over conditions with a model RDM.

    Args:
        reps: ``(n, d)`` representations.
        labels: ``(n,)`` condition indices.
        model: ``(C, C)`` model RDM.
        method: ``"spearman"`` or ``"pearson"``.
        metric: the representation RDM's metric (:func:`rdm`).

    Returns:
        The correlation of the two upper triangles.

    Example:
        >>> x = np.array([[0.0], [0.1], [5.0], [5.1]])
        >>> float(rsa(x, np.array([0, 1, 2, 3]), model_rdm([0, 0, 1, 1]), method="pearson")) > 0.99
        True
    """
    model = np.asarray(model, float)
    means = condition_means(reps, labels, model.shape[0])
    return float(_corr(method)(upper(rdm(means, metric)), upper(model)))


def mantel_test(
    rdm_a, rdm_b, *, method: str = "spearman", n_perm: int = 9999, seed: int = 0, exact: bool | None = None
) -> tuple[float, float]:
    """Mantel test: correlation of two RDMs and its p-value under permuted condition labels.

    The rows and columns of ``rdm_b`` are permuted together; the one-sided p-value is the
    fraction of permutations whose correlation reaches the observed one. Exact (all C!
    permutations, the identity included) for ``C <= EXACT_MANTEL_MAX`` unless
    ``exact=False``; otherwise Monte Carlo with the ``(1 + hits) / (1 + n_perm)`` rule.

    Returns:
        ``(r, p)``.

    Example:
        >>> m = model_rdm([0, 0, 1, 1])
        >>> r, p = mantel_test(m, m, method="pearson")
        >>> round(r, 6), round(p, 4)  # 8 of the 24 relabelings keep the 2 + 2 split
        (1.0, 0.3333)
    """
    a, b = np.asarray(rdm_a, float), np.asarray(rdm_b, float)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"mantel_test needs two square RDMs of one shape, got {a.shape} and {b.shape}")
    C = a.shape[0]
    if exact is None:
        exact = C <= EXACT_MANTEL_MAX
    if exact:
        perms = np.asarray(list(itertools.permutations(range(C))))
    else:
        rng = np.random.default_rng(seed)
        perms = np.stack([rng.permutation(C) for _ in range(n_perm)])
    _corr(method)  # validates the name
    ua, ub = upper(a), upper(b)
    if method == "spearman":
        # a relabeling of conditions permutes the pairs, so the ranks of the permuted
        # triangle are the permuted ranks: rank once, then permute (exact, and fast)
        ua, ub = rankdata(ua), rankdata(ub)
    sq = np.zeros_like(b)
    i, j = np.triu_indices(C, 1)
    sq[i, j] = sq[j, i] = ub
    obs = float(pearson(ua, ub))
    stats = pearson(ua[None], upper(sq[perms[:, :, None], perms[:, None, :]]))
    hits = int(np.sum(stats >= obs - 1e-12))
    p = hits / perms.shape[0] if exact else (1 + hits) / (1 + n_perm)
    return obs, float(p)


def shuffled_rsa(
    reps,
    labels,
    model,
    *,
    n_shuffles: int = 100,
    seed: int = 0,
    method: str = "spearman",
    metric: str = "euclidean",
):
    """RSA after shuffling which vignette belongs to which condition (a null, ≈ 0 in mean).

    Returns:
        ``(n_shuffles,)`` correlations.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> x, lab = rng.normal(size=(80, 3)), np.repeat(np.arange(4), 20)
        >>> shuffled_rsa(x, lab, model_rdm([0, 0, 1, 1]), n_shuffles=5).shape
        (5,)
    """
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    return np.asarray(
        [rsa(reps, rng.permutation(labels), model, method=method, metric=metric) for _ in range(n_shuffles)]
    )


def bootstrap_rsa(
    reps,
    labels,
    model,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    method: str = "spearman",
    metric: str = "euclidean",
    level: float = analysis.DEFAULT_LEVEL,
) -> analysis.Estimate:
    """RSA with a percentile-bootstrap interval, resampling vignettes within each condition.

    Returns:
        An :class:`~jaxtheory.analysis.Estimate` (NaN ends where a condition has fewer than
        :data:`~jaxtheory.analysis.MIN_SAMPLE` vignettes).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> lab = np.repeat(np.arange(4), 20)
        >>> x = rng.normal(size=(80, 2)) + 3 * (lab >= 2)[:, None]
        >>> e = bootstrap_rsa(x, lab, model_rdm([0, 0, 1, 1]), n_boot=200, method="pearson")
        >>> bool(e.low < e.value <= e.high)
        True
    """
    reps = np.asarray(reps, float)
    labels = np.asarray(labels).astype(int)
    value = rsa(reps, labels, model, method=method, metric=metric)
    groups = [np.flatnonzero(labels == c) for c in range(np.asarray(model).shape[0])]
    n_min = min(g.size for g in groups)
    if n_min < analysis.MIN_SAMPLE:
        return analysis.Estimate(value, float("nan"), float("nan"), n_min, "bootstrap", level)
    rng = np.random.default_rng(seed)
    reps_b = []
    for _ in range(n_boot):
        idx = np.concatenate([rng.choice(g, g.size) for g in groups])
        reps_b.append(rsa(reps[idx], labels[idx], model, method=method, metric=metric))
    lo, hi = np.nanquantile(reps_b, [(1 - level) / 2, (1 + level) / 2])
    return analysis.Estimate(value, float(lo), float(hi), n_min, "bootstrap", level)
