"""Float64 side check of the approximate leave-one-out (not the sweep's simulator).

For ridge least squares one Newton step with the Sherman–Morrison leverage factor,
:func:`jaxtheory.sims.attribution.trak.alo` with ``loss="squared"``, is the exact
leave-one-out change of the fit. :func:`linear_ridge_alo_error` measures it against
numpy refits without each point, in float64 (it enables x64 itself).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.attribution import trak

__all__ = ["LAM", "N", "P", "linear_ridge_alo_error", "ridge_solve"]

#: Training points of the check's problem.
N = 60
#: Dimension of the check's problem.
P = 30
#: Ridge λ of the check's problem.
LAM = 0.3


def ridge_solve(X: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """The ridge least-squares fit argmin ½‖y − Xθ‖² + λ/2 ‖θ‖² (numpy)."""
    return np.linalg.solve(X.T @ X + lam * np.eye(X.shape[1]), X.T @ y)


def linear_ridge_alo_error(seed: int = 20, n: int = N, p: int = P, lam: float = LAM) -> float:
    """``max |ALO - exact LOO| / max |exact LOO|`` of the fit's leave-one-out changes, float64.

    Data: ``X`` standard normal over √p, ``y = X(2z) + noise`` (``z``, noise standard
    normal), drawn by ``numpy.random.default_rng(seed)``; the exact leave-one-out refits
    by :func:`ridge_solve` without each point.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) / np.sqrt(p)
    y = X @ (2 * rng.standard_normal(p)) + rng.standard_normal(n)
    fit = ridge_solve(X, y, lam)
    exact = np.stack([ridge_solve(np.delete(X, i, 0), np.delete(y, i), lam) for i in range(n)]) - fit
    with jax.enable_x64(True):
        Xj, yj = jnp.asarray(X), jnp.asarray(y)
        th = trak.newton_fit(Xj, yj, lam, 1, loss="squared")
        delta = np.asarray(trak.alo(Xj, yj, th, lam, jnp.arange(n), loss="squared")[0])
    return float(np.abs(delta - exact).max() / np.abs(exact).max())
