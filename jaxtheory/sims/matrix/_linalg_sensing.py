"""Gaussian sensing operators with their adjoints, and least squares in tangent coordinates.

A sensing operator :math:`\\mathcal A: \\mathbb R^{p_1 \\times \\dots \\times p_d} \\to \\mathbb R^n`
is stored as its dense matrix (``n`` rows, one per measurement) together with the input
shape; :meth:`SensingOperator.apply` is :math:`X \\mapsto \\mathcal A(X)` and
:meth:`SensingOperator.adjoint` is :math:`y \\mapsto \\mathcal A^*(y)`, so that
:math:`\\langle \\mathcal A(X), y\\rangle = \\langle X, \\mathcal A^*(y)\\rangle`.
:func:`tangent_lstsq` is one Gauss–Newton step written in tangent coordinates: given an
orthonormal (or any full-column-rank) basis :math:`B` of a tangent space and a residual
:math:`r`, it returns :math:`\\xi = \\arg\\min_x \\lVert \\mathcal A(Bx) - r\\rVert_2` with
the design matrix :math:`J = \\mathcal A B`.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

__all__ = ["SensingOperator", "gaussian_sensing", "tangent_lstsq"]

#: Entry scales of :func:`gaussian_sensing`: ``"standard"`` draws :math:`A_{ij} \sim N(0, 1)`
#: (:math:`\mathbb E\,\mathcal A^*\mathcal A = nI`); ``"normalized"`` draws
#: :math:`N(0, 1/n)` (:math:`\mathbb E\,\mathcal A^*\mathcal A = I`, a near-isometry).
NORMALIZATIONS = ("standard", "normalized")


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class SensingOperator:
    """A linear map from tensors of ``shape`` to :math:`\\mathbb R^n`, stored densely.

    Attributes:
        matrix: ``(n, prod(shape))`` array; row ``i`` is the ``i``-th measurement tensor,
            flattened in C order.
        shape: the input tensor shape (static: not a pytree leaf, so operators vmap).
    """

    matrix: jax.Array
    shape: tuple = dataclasses.field(metadata=dict(static=True))

    @property
    def n(self) -> int:
        """Number of measurements."""
        return self.matrix.shape[-2]

    def apply(self, x: jax.Array) -> jax.Array:
        """:math:`\\mathcal A(X)`: the ``n`` inner products of ``x`` (of ``shape``) with the rows."""
        if tuple(x.shape) != tuple(self.shape):
            raise ValueError(f"input of shape {tuple(x.shape)}, the operator takes {tuple(self.shape)}")
        return self.matrix @ x.reshape(-1)

    def adjoint(self, y: jax.Array) -> jax.Array:
        """:math:`\\mathcal A^*(y) = \\sum_i y_i A_i`, a tensor of ``shape``."""
        if y.shape != (self.n,):
            raise ValueError(f"adjoint takes a vector of shape ({self.n},), got {tuple(y.shape)}")
        return (self.matrix.T @ y).reshape(self.shape)

    def design(self, basis: jax.Array) -> jax.Array:
        """:math:`J = \\mathcal A B` for ``basis`` of shape ``(prod(shape), k)``: ``(n, k)``."""
        if basis.ndim != 2 or basis.shape[0] != self.matrix.shape[-1]:
            raise ValueError(f"basis must be ({self.matrix.shape[-1]}, k), got {tuple(basis.shape)}")
        return self.matrix @ basis


def gaussian_sensing(key: jax.Array, n: int, shape, normalization: str = "standard", dtype=None):
    """A Gaussian sensing operator with i.i.d. entries.

    Args:
        key: PRNG key.
        n: number of measurements (rows).
        shape: the input tensor shape, a tuple of positive ints.
        normalization: ``"standard"`` (:math:`A_{ij}\\sim N(0,1)`) or ``"normalized"``
            (:math:`N(0, 1/n)`) (the module constant ``NORMALIZATIONS``).
        dtype: float dtype (default: JAX's default float, float64 under x64).

    Returns:
        A :class:`SensingOperator`.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> op = gaussian_sensing(jax.random.key(0), 5, (2, 3))
        >>> op.apply(jnp.ones((2, 3))).shape, op.adjoint(jnp.ones(5)).shape
        ((5,), (2, 3))
    """
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}")
    shape = tuple(int(s) for s in shape)
    if int(n) < 1 or not shape or min(shape) < 1:
        raise ValueError(f"need n >= 1 and a non-empty shape of positive sizes, got n={n}, shape={shape}")
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    a = jax.random.normal(key, (int(n), math.prod(shape)), dtype)
    if normalization == "normalized":
        a = a / jnp.sqrt(jnp.asarray(n, dtype))
    return SensingOperator(a, shape)


def tangent_lstsq(operator: SensingOperator, basis: jax.Array, residual: jax.Array, rcond=None):
    """Gauss–Newton step in tangent coordinates: :math:`\\arg\\min_x \\lVert \\mathcal A(Bx) - r\\rVert_2`.

    Args:
        operator: the sensing operator :math:`\\mathcal A`.
        basis: ``(prod(shape), k)`` tangent basis :math:`B` (columns: flattened tangent tensors).
        residual: ``(n,)`` target :math:`r` (for Gauss–Newton, :math:`y - \\mathcal A(T)`).
        rcond: cut-off for small singular values of :math:`J = \\mathcal A B`
            (``jnp.linalg.lstsq``'s default when ``None``).

    Returns:
        ``(coords, step)``: the ``k`` least-squares coordinates and the tangent tensor
        :math:`Bx` reshaped to the operator's input shape.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> op = gaussian_sensing(jax.random.key(1), 6, (3,))
        >>> x, step = tangent_lstsq(op, jnp.eye(3), op.apply(jnp.array([1.0, 2.0, 3.0])))
        >>> bool(jnp.allclose(x, jnp.array([1.0, 2.0, 3.0]), atol=1e-4))
        True
    """
    if residual.shape != (operator.n,):
        raise ValueError(f"residual must have shape ({operator.n},), got {tuple(residual.shape)}")
    j = operator.design(basis)
    coords = jnp.linalg.lstsq(j, residual, rcond=rcond)[0]
    return coords, (basis @ coords).reshape(operator.shape)
