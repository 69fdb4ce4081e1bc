"""Statistical leverages: the diagonal of a weighted hat matrix.

For a design :math:`X \\in \\mathbb R^{n\\times p}`, weights :math:`w \\in \\mathbb R^n_{\\ge 0}`
(a GLM's curvatures :math:`\\ell''_i`) and a positive definite :math:`H` (usually
:math:`X^\\top W X + \\lambda I`), the weighted hat matrix is
:math:`W^{1/2} X H^{-1} X^\\top W^{1/2}` and its diagonal

.. math::
    \\hat h_i = w_i\\, x_i^\\top H^{-1} x_i

is what the approximate leave-one-out correction :math:`1/(1 - \\hat h_i)` needs
(Sherman–Morrison on :math:`H - w_i x_i x_i^\\top`). With :math:`H = X^\\top W X` the
leverages sum to :math:`p`, so their mean is :math:`p/n`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["leverages"]


def leverages(X: jax.Array, w: jax.Array, H: jax.Array | None = None) -> jax.Array:
    """Leverages :math:`\\hat h_i = w_i x_i^\\top H^{-1} x_i` of the weighted hat matrix.

    Solved by a Cholesky factorisation of ``H`` (no explicit inverse); pure and vmappable.

    Args:
        X: design, shape ``(n, p)``.
        w: nonnegative weights, shape ``(n,)`` (ones for least squares).
        H: symmetric positive definite ``(p, p)``; ``None`` means :math:`X^\\top W X`
            (then it must be nonsingular, which needs ``n >= p``).

    Returns:
        The ``(n,)`` leverages, in the dtype of ``X``.

    Raises:
        ValueError: on shapes that do not match.

    Example:
        >>> import jax.numpy as jnp
        >>> X = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
        >>> h = leverages(X, jnp.ones(3))
        >>> [round(float(v), 4) for v in h], round(float(h.sum()), 4)
        ([0.6667, 0.6667, 0.6667], 2.0)
    """
    X = jnp.asarray(X)
    w = jnp.asarray(w, X.dtype)
    if X.ndim != 2:
        raise ValueError(f"leverages: X must be (n, p), got shape {X.shape}")
    n, p = X.shape
    if w.shape != (n,):
        raise ValueError(f"leverages: w must have shape ({n},), got {w.shape}")
    if H is None:
        H = (X * w[:, None]).T @ X
    H = jnp.asarray(H, X.dtype)
    if H.shape != (p, p):
        raise ValueError(f"leverages: H must have shape ({p}, {p}), got {H.shape}")
    factor = jax.scipy.linalg.cho_factor(H)
    Z = jax.scipy.linalg.cho_solve(factor, X.T)  # (p, n) = H^{-1} X^T
    return w * jnp.sum(X * Z.T, axis=1)
