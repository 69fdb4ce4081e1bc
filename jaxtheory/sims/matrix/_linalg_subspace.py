"""Principal angles between subspaces and the Grassmann distance.

The angles follow Björck and Golub (1973) with the small-angle fix of Knyazev and
Argentati (2002), as :func:`scipy.linalg.subspace_angles` does: with orthonormal bases
:math:`Q_A, Q_B`, the cosines are the singular values of :math:`Q_A^\\top Q_B`, and the
angles whose cosine is at least :math:`1/\\sqrt2` are taken instead from the sines, the
singular values of :math:`Q_B - Q_A Q_A^\\top Q_B`, which keeps a tiny angle accurate to
the rounding of the dtype (the arccosine of a cosine near 1 loses half the digits).
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["grassmann_distance", "orthonormal_basis", "principal_angles"]


def orthonormal_basis(A):
    """An orthonormal basis of the column span of a full-column-rank matrix (reduced QR).

    Args:
        A: array of shape ``(n, p)`` with ``p <= n`` and rank ``p``.

    Returns:
        ``Q`` of shape ``(n, p)`` with ``Q.T @ Q = I`` and the same column span.

    Example:
        >>> import jax.numpy as jnp
        >>> Q = orthonormal_basis(jnp.array([[2.0, 0.0], [0.0, 3.0], [0.0, 0.0]]))
        >>> [round(float(v), 6) for v in jnp.abs(jnp.diag(Q))]
        [1.0, 1.0]
    """
    A = jnp.asarray(A)
    if A.ndim != 2:
        raise ValueError(f"a subspace is given by a 2-d matrix of column vectors, got shape {A.shape}")
    if A.shape[1] > A.shape[0]:
        raise ValueError(f"more columns than rows ({A.shape}): the columns cannot be independent")
    q, _ = jnp.linalg.qr(A, mode="reduced")
    return q


def principal_angles(A, B):
    """Principal angles between the column spans of ``A`` and ``B``, largest first.

    Args:
        A: array ``(n, p)`` of full column rank.
        B: array ``(n, q)`` of full column rank (same ``n``).

    Returns:
        The ``min(p, q)`` angles in radians in ``[0, pi/2]``, in decreasing order (the
        order of :func:`scipy.linalg.subspace_angles`).

    Example:
        >>> import jax.numpy as jnp
        >>> t = 0.3
        >>> A = jnp.array([[1.0], [0.0]])
        >>> B = jnp.array([[jnp.cos(t)], [jnp.sin(t)]])
        >>> round(float(principal_angles(A, B)[0]), 6)
        0.3
    """
    A, B = jnp.asarray(A), jnp.asarray(B)
    if A.ndim != 2 or B.ndim != 2 or A.shape[0] != B.shape[0]:
        raise ValueError(f"A and B must be (n, p) and (n, q) with the same n, got {A.shape} and {B.shape}")
    dtype = jnp.result_type(A.dtype, B.dtype, jnp.float32)
    qa = orthonormal_basis(A.astype(dtype))
    qb = orthonormal_basis(B.astype(dtype))
    if qa.shape[1] < qb.shape[1]:
        qa, qb = qb, qa
    c = qa.T @ qb  # (p, q) with p >= q
    cos = jnp.linalg.svd(c, compute_uv=False)  # decreasing cosines: increasing angles
    residual = qb - qa @ c  # columns: the parts of B's basis outside span(A)
    sin = jnp.linalg.svd(residual, compute_uv=False)  # decreasing sines: decreasing angles
    from_cos = jnp.arccos(jnp.clip(cos[::-1], -1.0, 1.0))  # decreasing angles
    from_sin = jnp.arcsin(jnp.clip(sin, -1.0, 1.0))
    small = cos[::-1] ** 2 >= 0.5
    return jnp.where(small, from_sin, from_cos)


def grassmann_distance(A, B):
    """The geodesic (arc-length) distance on the Grassmannian: the 2-norm of the principal angles.

    Args:
        A: array ``(n, p)`` of full column rank.
        B: array ``(n, p)`` of full column rank.

    Returns:
        :math:`\\sqrt{\\sum_i \\theta_i^2}` in radians.

    Example:
        >>> import jax.numpy as jnp
        >>> A = jnp.eye(3)[:, :2]
        >>> B = jnp.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
        >>> round(float(grassmann_distance(A, B)), 6)
        1.570796
    """
    A, B = jnp.asarray(A), jnp.asarray(B)
    if A.ndim != 2 or B.ndim != 2 or A.shape != B.shape:
        raise ValueError(
            f"the Grassmann distance needs two (n, p) bases of one shape, got {A.shape}, {B.shape}"
        )
    return jnp.sqrt(jnp.sum(principal_angles(A, B) ** 2))
