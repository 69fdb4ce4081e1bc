"""Restricted-isometry estimates of linear maps on matrices (a sampled lower estimate).

For a linear map :math:`\\mathcal A` on :math:`n_1\\times n_2` matrices the restricted
isometry constant on rank-:math:`k` matrices, with the best scale :math:`c`, is the
smallest :math:`\\delta` with :math:`(1-\\delta)c\\|M\\|_F^2 \\le \\|\\mathcal A M\\|^2 \\le
(1+\\delta)c\\|M\\|_F^2` for every rank-:math:`k` :math:`M`. With the ratios
:math:`\\rho(M) = \\|\\mathcal A M\\|^2/\\|M\\|_F^2` ranging over :math:`[\\rho_-, \\rho_+]`
the best scale is :math:`c = (\\rho_+ + \\rho_-)/2` and
:math:`\\delta = (\\rho_+ - \\rho_-)/(\\rho_+ + \\rho_-)`. Sampling matrices only shrinks
the range, so the sampled value is a lower estimate of :math:`\\delta`.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

__all__ = ["rip_estimate", "rip_ratios"]


def _as_operator(A, shape):
    if callable(A):
        if shape is None:
            raise ValueError("rip_estimate: a callable operator needs shape=(n1, n2)")
        return A, tuple(int(s) for s in shape)
    A = jnp.asarray(A)
    if A.ndim != 3:
        raise ValueError(
            f"rip_estimate: A must be a callable M -> vector or an array (m, n1, n2) of "
            f"sensing matrices, not an array of shape {A.shape}"
        )
    if shape is not None and tuple(shape) != A.shape[1:]:
        raise ValueError(f"rip_estimate: shape {tuple(shape)} disagrees with A's {A.shape[1:]}")
    return (lambda M: jnp.tensordot(A, M, axes=([1, 2], [0, 1]))), tuple(A.shape[1:])


def rip_ratios(
    A: Callable | jax.Array,
    rank: int,
    key: jax.Array,
    structured: bool = True,
    *,
    shape: tuple[int, int] | None = None,
    n_samples: int = 2000,
) -> jax.Array:
    """The ratios :math:`\\|\\mathcal A M\\|^2/\\|M\\|_F^2` over the sampled matrices.

    Args:
        A: the operator, a callable ``M -> vector`` (then ``shape`` is required) or an
            array of shape ``(m, n1, n2)`` (``(A M)_k = <A_k, M>``).
        rank: rank of the random samples :math:`M = LR^\\top` (Gaussian
            :math:`L \\in \\mathbb R^{n_1\\times k}`, :math:`R \\in \\mathbb R^{n_2\\times k}`).
        key: PRNG key of the random samples.
        structured: also include every unit matrix :math:`e_ie_j^\\top` (rank 1), the
            sparse matrices a coordinate mask annihilates.
        shape: ``(n1, n2)``, required for a callable ``A``.
        n_samples: number of random rank-``rank`` samples (0 for the unit matrices only).

    Returns:
        The ratios, ``n_samples`` random ones first, then the ``n1 * n2`` unit matrices
        (row-major) when ``structured``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> rho = rip_ratios(lambda M: 2.0 * M.ravel(), 2, jax.random.key(0), shape=(3, 3), n_samples=4)
        >>> rho.shape, bool(jnp.allclose(rho, 4.0))
        ((13,), True)
    """
    op, (n1, n2) = _as_operator(A, shape)
    rank = int(rank)
    if rank < 1 or rank > min(n1, n2):
        raise ValueError(f"rip_estimate: rank must be in [1, {min(n1, n2)}], not {rank}")
    if n_samples < 0 or (n_samples == 0 and not structured):
        raise ValueError("rip_estimate: nothing to sample (n_samples = 0 and structured = False)")

    def ratio(M):
        y = op(M)
        return jnp.sum(y * y) / jnp.sum(M * M)

    parts = []
    if n_samples:
        kl, kr = jax.random.split(key)
        L = jax.random.normal(kl, (n_samples, n1, rank))
        R = jax.random.normal(kr, (n_samples, n2, rank))
        parts.append(jax.vmap(lambda l, r: ratio(l @ r.T))(L, R))
    if structured:
        eye = jnp.eye(n1 * n2, dtype=jnp.zeros(()).dtype).reshape(n1 * n2, n1, n2)
        parts.append(jax.lax.map(ratio, eye, batch_size=64))
    return jnp.concatenate(parts)


def rip_estimate(
    A: Callable | jax.Array,
    rank: int,
    key: jax.Array,
    structured: bool = True,
    *,
    shape: tuple[int, int] | None = None,
    n_samples: int = 2000,
) -> jax.Array:
    """A lower estimate of the rank-``rank`` restricted isometry constant with the best scale.

    :math:`\\hat\\delta = (\\rho_+ - \\rho_-)/(\\rho_+ + \\rho_-)` over the ratios of
    :func:`rip_ratios`: 0 for a multiple of an isometry, 1 when a sampled matrix is in
    the nullspace (with ``structured=True`` every coordinate mask with an unobserved
    entry gives exactly 1).

    Args:
        A: a callable ``M -> vector`` (with ``shape``) or an array ``(m, n1, n2)``.
        rank: rank of the random samples.
        key: PRNG key.
        structured: include the unit matrices :math:`e_ie_j^\\top`.
        shape: ``(n1, n2)`` for a callable ``A``.
        n_samples: random samples.

    Returns:
        :math:`\\hat\\delta \\in [0, 1]` (a scalar array).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> mask = jnp.ones((4, 4)).at[0, 1].set(0.0)
        >>> float(rip_estimate(lambda M: (mask * M).ravel(), 2, jax.random.key(0), shape=(4, 4)))
        1.0
    """
    rho = rip_ratios(A, rank, key, structured, shape=shape, n_samples=n_samples)
    hi, lo = jnp.max(rho), jnp.min(rho)
    return (hi - lo) / (hi + lo)
