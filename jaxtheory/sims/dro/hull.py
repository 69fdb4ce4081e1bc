r"""The point of least norm in the convex hull of finitely many points (Wolfe's algorithm).

:math:`\operatorname{dist}(0, \operatorname{conv}\{\mu_1, \dots, \mu_m\}) =
\min_{q \in \Delta_m} \lVert \sum_i q_i \mu_i\rVert_2`, computed exactly (up to float64
round-off) by Wolfe's active-set method: every iterate is the affine least-norm point
of an affinely independent subset of the points, and the method stops when no point
improves on it, i.e. when :math:`\min_i \langle x, \mu_i\rangle \ge \lVert x\rVert^2`
(the optimality certificate, checked by :func:`min_norm_point`). Numpy only: it runs
once per instance, at trace time.

References:
    Wolfe, *Finding the nearest point in a polytope*, Math. Program. 11, 1976.
"""

from __future__ import annotations

import numpy as np

__all__ = ["min_norm_point", "hull_distance"]


def _affine_min(P: np.ndarray) -> np.ndarray:
    """Weights ``a`` (sum 1) of the least-norm point of the affine hull of the rows of ``P``."""
    k = P.shape[0]
    A = np.zeros((k + 1, k + 1))
    A[:k, :k] = P @ P.T
    A[:k, k] = 1.0
    A[k, :k] = 1.0
    b = np.zeros(k + 1)
    b[k] = 1.0
    sol = np.linalg.lstsq(A, b, rcond=None)[0]
    return sol[:k]


def min_norm_point(points, *, tol: float = 1e-12, max_iter: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    r"""The least-norm point :math:`x = \sum_i q_i \mu_i` of the convex hull of the rows of ``points``.

    Args:
        points: array ``(m, d)``, one point :math:`\mu_i` per row.
        tol: relative tolerance of the stopping rule
            :math:`\lVert x\rVert^2 - \min_i\langle x, \mu_i\rangle \le \text{tol}\cdot
            \max_i\lVert\mu_i\rVert^2`.
        max_iter: cap on the major iterations (Wolfe's method is finite; the cap guards
            against cycling in degenerate float cases).

    Returns:
        ``(x, q)``: the point (float64, ``(d,)``) and weights on the simplex (``(m,)``)
        with ``x = q @ points``.

    Raises:
        ValueError: for an empty or non-finite ``points``, or when the stopping rule
            is not met within ``max_iter`` iterations.

    Example:
        >>> import numpy as np
        >>> x, q = min_norm_point(np.eye(3))  # the simplex's centroid
        >>> print(x.round(4), q.round(4))
        [0.3333 0.3333 0.3333] [0.3333 0.3333 0.3333]
    """
    P = np.asarray(points, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] == 0 or not np.all(np.isfinite(P)):
        raise ValueError(f"points must be a finite (m, d) array with m >= 1, got shape {P.shape}")
    m = P.shape[0]
    scale = max(float(np.max(np.sum(P * P, axis=1))), 1e-300)
    S = [int(np.argmin(np.sum(P * P, axis=1)))]
    lam = np.array([1.0])
    x = P[S[0]].copy()
    for _ in range(max_iter):
        j = int(np.argmin(P @ x))
        if x @ x - P[j] @ x <= tol * scale or j in S:
            break
        S.append(j)
        lam = np.append(lam, 0.0)
        while True:  # minor cycle: move to the affine least-norm point, dropping points
            alpha = _affine_min(P[S])
            if np.all(alpha > tol):
                lam = alpha
                break
            neg = alpha <= tol
            with np.errstate(divide="ignore", invalid="ignore"):
                ratios = np.where(neg, lam / (lam - alpha), np.inf)
            theta = float(np.min(ratios))
            lam = lam + theta * (alpha - lam)
            keep = lam > tol
            S = [s for s, k in zip(S, keep) if k]
            lam = lam[keep]
            lam = lam / lam.sum()
        x = lam @ P[S]
    else:
        raise ValueError(f"min_norm_point did not converge in {max_iter} iterations")
    q = np.zeros(m)
    q[S] = lam
    x = q @ P
    if x @ x - float(np.min(P @ x)) > 1e-9 * scale:  # the optimality certificate
        raise ValueError("min_norm_point: the optimality certificate failed (degenerate points?)")
    return x, q


def hull_distance(points) -> float:
    r""":math:`\operatorname{dist}(0, \operatorname{conv}\{\mu_i\})`, the norm of :func:`min_norm_point`.

    Example:
        >>> import numpy as np
        >>> round(hull_distance(np.array([[1.0, 1.0], [1.0, -1.0]])), 6)
        1.0
    """
    x, _ = min_norm_point(points)
    return float(np.linalg.norm(x))
