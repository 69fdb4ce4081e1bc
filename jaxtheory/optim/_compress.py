"""Compressors for communication-efficient optimization (top-k, random-k, QSGD, scaled sign).

A *compressor* is a pure function ``C(key, tree) -> tree`` that returns a pytree of the
same structure, shapes and dtypes as its input. Every compressor here acts on the
**whole pytree flattened into one vector** of length :math:`d` (global flattening, the
convex-model convention); wrap it in :func:`jax.tree.map` for layer-wise compression.
Deterministic compressors ignore the key.

A compressor is *contractive* with parameter :math:`\\alpha\\in(0,1]` when

.. math::
    \\mathbb{E}\\,\\|C(x) - x\\|^2 \\le (1-\\alpha)\\,\\|x\\|^2 \\qquad \\forall x\\in\\mathbb{R}^d .

Each factory returns a :class:`Compressor`, a callable whose ``alpha(d)`` gives the
guaranteed (worst-case) :math:`\\alpha` at dimension :math:`d`:

* ``top_k(k)``: :math:`\\alpha=k/d`, attained on flat vectors (all :math:`|x_j|` equal);
* ``rand_k(k)``: :math:`\\alpha=k/d`, attained in expectation on every vector;
* ``qsgd(s)``: :math:`\\alpha=1/(1+\\omega)`, :math:`\\omega=\\min(d/s^2,\\sqrt d/s)` (a bound,
  not tight);
* ``scaled_sign()``: :math:`\\alpha=1/d`, approached by :math:`e_1+\\epsilon\\mathbf 1`;
* ``identity_compressor()``: :math:`\\alpha=1`.

**Matching** :math:`\\alpha` across compressors (as in matched-contraction comparisons):
pick the QSGD level count :math:`s` first (integers), then
``k = matched_k(qsgd(s).alpha(d), d)`` so that ``top_k(k)`` and ``rand_k(k)`` have
:math:`k/d \\approx 1/(1+\\omega)`. The unbiased variants (``rand_k(k, scaled=True)``,
``qsgd(s, scaled=False)``) are **not** contractive (their ``alpha`` is ``None``) and must
not be used with error feedback.

References:
    Stich, Cordonnier & Jaggi, *Sparsified SGD with memory*, arXiv:1809.07599, 2018;
    Alistarh et al., *QSGD*, arXiv:1610.02132, 2017;
    Karimireddy et al., *Error feedback fixes SignSGD*, arXiv:1901.09847, 2019;
    Beznosikov et al., *On biased compression for distributed learning*,
    arXiv:2002.12410, 2020.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
from jax.flatten_util import ravel_pytree

__all__ = [
    "Compressor",
    "top_k",
    "rand_k",
    "qsgd",
    "scaled_sign",
    "identity_compressor",
    "matched_k",
    "tree_size",
]


@dataclasses.dataclass(frozen=True)
class Compressor:
    """A compressor ``C(key, tree) -> tree`` with its documented contraction factor.

    Attributes:
        fn: the pure function ``(key, tree) -> tree`` (same structure, shapes, dtypes).
        alpha_fn: ``d -> alpha`` (worst-case contraction factor at dimension ``d``), or
            ``None`` for a compressor that is not contractive (unbiased scaled variants).
        name: a short label, e.g. ``"top_k(6)"``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> c = top_k(2)
        >>> c(jax.random.PRNGKey(0), jnp.array([3., -1., 0.5, -4.]))
        Array([ 3.,  0.,  0., -4.], dtype=float32)
        >>> c.alpha(4)
        0.5
    """

    fn: Callable[[jax.Array, Any], Any]
    alpha_fn: Callable[[int], float] | None
    name: str

    def __call__(self, key: jax.Array, tree: Any) -> Any:
        return self.fn(key, tree)

    def alpha(self, d: int) -> float | None:
        """Guaranteed contraction factor at dimension ``d`` (``None`` if not contractive)."""
        return None if self.alpha_fn is None else float(self.alpha_fn(int(d)))

    def __repr__(self) -> str:
        return f"Compressor({self.name})"


def tree_size(tree: Any) -> int:
    """Total number of entries :math:`d` of a pytree (the dimension compressors see).

    Args:
        tree: any pytree of arrays.

    Returns:
        The Python int :math:`d=\\sum_\\ell \\mathrm{size}(\\ell)`.

    Example:
        >>> import jax.numpy as jnp
        >>> tree_size({"w": jnp.zeros((3, 2)), "b": jnp.zeros(2)})
        8
    """
    return int(sum(math.prod(jnp.shape(x)) for x in jax.tree.leaves(tree)))


def _flat_map(tree: Any, f: Callable[[jax.Array], jax.Array]) -> Any:
    """Apply ``f`` to the globally flattened tree and unflatten (dtypes restored)."""
    flat, unravel = ravel_pytree(tree)
    return unravel(f(flat).astype(flat.dtype))


def _check_k(k: int) -> int:
    if not isinstance(k, (int,)) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive Python int (static), got {k!r}")
    return int(k)


def top_k(k: int) -> Compressor:
    """Top-k sparsification: keep the ``k`` entries of largest magnitude, zero the rest.

    .. math::
        C(x)_j = x_j\\,\\mathbf 1[j \\in \\operatorname{argtop}_k |x|], \\qquad
        \\|C(x)-x\\|^2 \\le (1-k/d)\\,\\|x\\|^2 .

    Deterministic (the key is ignored) and contractive with :math:`\\alpha=k/d`, with
    equality on vectors whose entries have equal magnitude. Ties are broken by
    :func:`jax.lax.top_k` (lowest index first).

    Args:
        k: number of entries kept over the whole flattened pytree (static Python int;
            ``k >= d`` is the identity).

    Returns:
        A :class:`Compressor` with ``alpha(d) = min(k/d, 1)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> top_k(1)(jax.random.PRNGKey(0), {"a": jnp.array([1., -5.]), "b": jnp.array([2.])})
        {'a': Array([ 0., -5.], dtype=float32), 'b': Array([0.], dtype=float32)}

    References:
        Stich, Cordonnier & Jaggi, *Sparsified SGD with memory*, arXiv:1809.07599, 2018.
    """
    k = _check_k(k)

    def compress_flat(x):
        d = x.shape[0]
        if k >= d:
            return x
        _, idx = jax.lax.top_k(jnp.abs(x), k)
        return jnp.zeros_like(x).at[idx].set(x[idx])

    def fn(key, tree):
        del key
        return _flat_map(tree, compress_flat)

    return Compressor(fn, lambda d: min(k / d, 1.0), f"top_k({k})")


def rand_k(k: int, scaled: bool = False) -> Compressor:
    """Random-k sparsification: keep ``k`` coordinates drawn uniformly without replacement.

    .. math::
        C(x)_j = c\\, x_j\\,\\mathbf 1[j\\in S],\\quad S\\sim\\mathrm{Unif}\\binom{[d]}{k},
        \\qquad c = 1 \\;(\\text{contractive}) \\text{ or } d/k \\;(\\text{unbiased}).

    Unscaled (default): :math:`\\mathbb E\\|C(x)-x\\|^2 = (1-k/d)\\|x\\|^2` for **every**
    :math:`x`, so :math:`\\alpha=k/d` exactly. Scaled by :math:`d/k` it is unbiased with
    variance :math:`(d/k-1)\\|x\\|^2` and *not* contractive (``alpha`` is ``None``).

    Args:
        k: number of coordinates kept over the whole flattened pytree (static int).
        scaled: multiply the kept entries by :math:`d/k` (unbiased, not contractive).

    Returns:
        A :class:`Compressor`; ``alpha(d) = min(k/d, 1)`` unscaled, ``None`` scaled.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> y = rand_k(2)(jax.random.PRNGKey(0), jnp.arange(1., 6.))
        >>> int((y != 0).sum()), rand_k(2).alpha(5)
        (2, 0.4)

    References:
        Stich, Cordonnier & Jaggi, *Sparsified SGD with memory*, arXiv:1809.07599, 2018.
    """
    k = _check_k(k)

    def compress_flat(key, x):
        d = x.shape[0]
        if k >= d:
            return x
        # k indices uniformly without replacement: the k largest of d iid uniforms.
        _, idx = jax.lax.top_k(jax.random.uniform(key, (d,)), k)
        kept = x[idx]
        if scaled:
            kept = kept * jnp.asarray(d / k, x.dtype)
        return jnp.zeros_like(x).at[idx].set(kept)

    def fn(key, tree):
        return _flat_map(tree, lambda x: compress_flat(key, x))

    alpha_fn = None if scaled else (lambda d: min(k / d, 1.0))
    return Compressor(fn, alpha_fn, f"rand_k({k}{', scaled' if scaled else ''})")


def _qsgd_omega(d: int, levels: int) -> float:
    return min(d / levels**2, math.sqrt(d) / levels)


def qsgd(levels: int, scaled: bool = True) -> Compressor:
    """QSGD stochastic quantization to ``levels`` levels, scaled to be contractive.

    With :math:`r_j = s|x_j|/\\|x\\|_2`, :math:`\\xi_j=\\lfloor r_j\\rfloor+
    \\mathrm{Bernoulli}(r_j-\\lfloor r_j\\rfloor)`, the unbiased quantizer is
    :math:`Q_s(x)_j = \\|x\\|_2\\,\\mathrm{sign}(x_j)\\,\\xi_j/s` with
    :math:`\\mathbb E\\|Q_s(x)-x\\|^2\\le\\omega\\|x\\|^2`,
    :math:`\\omega=\\min(d/s^2,\\sqrt d/s)`. The contractive version is

    .. math::
        C(x) = \\frac{Q_s(x)}{1+\\omega},\\qquad
        \\mathbb E\\|C(x)-x\\|^2 \\le \\Big(1-\\frac{1}{1+\\omega}\\Big)\\|x\\|^2 .

    The bound is the QSGD lemma and is not tight (for ``s = 1`` the worst variance is
    :math:`(\\sqrt d-1)\\|x\\|^2`), so the measured contraction is at least ``alpha``.

    Args:
        levels: number of quantization levels :math:`s\\ge1` (static int).
        scaled: divide by :math:`1+\\omega` (contractive, default); ``False`` gives the
            unbiased :math:`Q_s`, which is not contractive.

    Returns:
        A :class:`Compressor` with ``alpha(d) = 1/(1+omega)`` (``None`` if unscaled).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> c = qsgd(1)
        >>> round(c.alpha(50), 4)
        0.1239
        >>> q = qsgd(1, scaled=False)(jax.random.PRNGKey(0), jnp.array([3., 4.]))
        >>> bool(jnp.all((q == 0) | (jnp.abs(q) == 5.)))
        True

    References:
        Alistarh et al., *QSGD: communication-efficient SGD via gradient quantization
        and encoding*, arXiv:1610.02132, 2017.
    """
    if not isinstance(levels, int) or isinstance(levels, bool) or levels < 1:
        raise ValueError(f"levels must be a positive Python int, got {levels!r}")
    s = levels

    def compress_flat(key, x):
        d = x.shape[0]
        norm = jnp.linalg.norm(x)
        safe = jnp.where(norm > 0, norm, 1.0)
        r = s * jnp.abs(x) / safe
        low = jnp.floor(r)
        u = jax.random.uniform(key, x.shape, dtype=r.dtype)
        xi = low + (u < (r - low)).astype(r.dtype)
        scale = safe / s
        if scaled:
            scale = scale / (1.0 + _qsgd_omega(d, s))
        return jnp.where(norm > 0, jnp.sign(x) * xi * scale, jnp.zeros_like(x))

    def fn(key, tree):
        return _flat_map(tree, lambda x: compress_flat(key, x))

    alpha_fn = (lambda d: 1.0 / (1.0 + _qsgd_omega(d, s))) if scaled else None
    return Compressor(fn, alpha_fn, f"qsgd({s}{'' if scaled else ', unbiased'})")


def scaled_sign() -> Compressor:
    """Scaled sign compression :math:`C(x) = (\\|x\\|_1/d)\\,\\mathrm{sign}(x)`.

    .. math::
        \\|C(x)-x\\|^2 = \\|x\\|_2^2 - \\|x\\|_1^2\\Big(\\frac2d-\\frac{\\mathrm{nnz}(x)}{d^2}\\Big)
        \\le \\Big(1-\\frac{\\|x\\|_1^2}{d\\,\\|x\\|_2^2}\\Big)\\|x\\|_2^2 .

    Deterministic; the per-vector factor :math:`\\alpha(x)=\\|x\\|_1^2/(d\\|x\\|_2^2)` (exact for
    dense :math:`x`) ranges from :math:`1/d` (approached by :math:`e_1+\\epsilon\\mathbf1`)
    to 1 (flat vectors), about :math:`2/\\pi` for Gaussian vectors, so it can only be
    matched approximately to the others.

    Returns:
        A :class:`Compressor` with ``alpha(d) = 1/d`` (the worst case).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> scaled_sign()(jax.random.PRNGKey(0), jnp.array([1., -3., 2., 0.]))
        Array([ 1.5, -1.5,  1.5,  0. ], dtype=float32)

    References:
        Karimireddy et al., *Error feedback fixes SignSGD and other gradient compression
        schemes*, arXiv:1901.09847, 2019.
    """

    def compress_flat(x):
        d = x.shape[0]
        return jnp.sign(x) * (jnp.sum(jnp.abs(x)) / d)

    def fn(key, tree):
        del key
        return _flat_map(tree, compress_flat)

    return Compressor(fn, lambda d: 1.0 / d, "scaled_sign")


def identity_compressor() -> Compressor:
    """The identity :math:`C(x)=x` (no compression, :math:`\\alpha=1`); a baseline.

    Returns:
        A :class:`Compressor` returning its input unchanged, ``alpha(d) = 1``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> identity_compressor()(jax.random.PRNGKey(0), jnp.array([1., 2.]))
        Array([1., 2.], dtype=float32)
    """

    def fn(key, tree):
        del key
        return tree

    return Compressor(fn, lambda d: 1.0, "identity")


def matched_k(alpha: float, d: int) -> int:
    """The sparsity ``k`` whose ``top_k``/``rand_k`` contraction :math:`k/d` is closest to ``alpha``.

    Args:
        alpha: target contraction factor in :math:`(0,1]` (a Python float).
        d: dimension of the flattened pytree.

    Returns:
        ``max(1, round(alpha * d))``.

    Example:
        >>> matched_k(qsgd(1).alpha(50), 50)
        6
    """
    return max(1, int(round(float(alpha) * int(d))))
