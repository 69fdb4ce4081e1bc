"""Quadratic recipe landscapes on the box :math:`[-1, 1]^d` and the closed form of random search.

The gap of a recipe :math:`\\theta` is :math:`\\lVert\\theta - \\theta^\\star\\rVert_H^2 =
(\\theta - \\theta^\\star)^\\top H (\\theta - \\theta^\\star)` with :math:`H` diagonal. For
:math:`\\theta` uniform on the box, the sublevel set :math:`\\{\\text{gap} \\le g\\}` is an
ellipsoid of volume fraction :math:`p(g) = c\\,g^{d/2}`, :math:`c = V_d / (2^d\\sqrt{\\det H})`
(:math:`V_d` the volume of the unit ball), as long as it stays inside the box. The best of
:math:`K` i.i.d. draws then has
:math:`E[\\text{gap}_K] = \\int_0^\\infty (1 - c g^{d/2})_+^K\\,dg =
c^{-2/d}\\,\\Gamma(1 + 2/d)\\,\\Gamma(K + 1) / \\Gamma(K + 1 + 2/d)` (a Beta integral).
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

__all__ = [
    "hessian_diag",
    "quadratic_gap",
    "sublevel_constant",
    "box_gap",
    "expected_best_gap",
    "expected_selected_gap",
]


def hessian_diag(dim: int, lo: float = 1.0, hi: float = 1.0) -> np.ndarray:
    """The diagonal of :math:`H`: ``dim`` values evenly spaced from ``lo`` to ``hi``.

    Example:
        >>> hessian_diag(3, 1.0, 2.0).tolist()
        [1.0, 1.5, 2.0]
    """
    if dim < 1 or lo <= 0 or hi <= 0:
        raise ValueError(f"hessian_diag needs dim >= 1 and positive lo, hi; got {dim}, {lo}, {hi}")
    return np.linspace(lo, hi, dim)


def quadratic_gap(theta, center, hdiag):
    """The gap :math:`\\sum_i h_i (\\theta_i - \\theta^\\star_i)^2` (last axis is the recipe).

    Example:
        >>> float(quadratic_gap(jnp.array([1.0, 1.0]), jnp.zeros(2), jnp.array([1.0, 2.0])))
        3.0
    """
    diff = theta - center
    return jnp.sum(hdiag * diff * diff, axis=-1)


def sublevel_constant(hdiag) -> float:
    """:math:`c = V_d / (2^d \\sqrt{\\det H})`: the box fraction of :math:`\\{\\text{gap} \\le 1\\}`.

    Args:
        hdiag: the diagonal of :math:`H` (positive), length :math:`d`.

    Returns:
        The constant :math:`c`, with :math:`V_d = \\pi^{d/2}/\\Gamma(d/2 + 1)`.

    Example:
        >>> round(sublevel_constant([1.0, 1.0]), 6)  # pi / 4
        0.785398
    """
    h = np.asarray(hdiag, float)
    if h.ndim != 1 or h.size < 1 or np.any(h <= 0):
        raise ValueError("sublevel_constant needs a 1-D positive Hessian diagonal")
    d = h.size
    log_vd = 0.5 * d * math.log(math.pi) - math.lgamma(0.5 * d + 1.0)
    return math.exp(log_vd - d * math.log(2.0) - 0.5 * float(np.sum(np.log(h))))


def box_gap(center, hdiag) -> float:
    """The largest :math:`g` whose sublevel ellipsoid stays in :math:`[-1, 1]^d`.

    It is :math:`\\min_i h_i (1 - |\\theta^\\star_i|)^2` (the semi-axis along :math:`i` is
    :math:`\\sqrt{g / h_i}`).

    Example:
        >>> box_gap([0.0, 0.5], [1.0, 1.0])
        0.25
    """
    c = np.asarray(center, float)
    h = np.asarray(hdiag, float)
    if np.any(np.abs(c) >= 1):
        raise ValueError("the optimum must lie inside the open box (-1, 1)^d")
    return float(np.min(h * (1.0 - np.abs(c)) ** 2))


def expected_best_gap(K, dim: int, c: float):
    """:math:`E[\\text{gap}_K] = c^{-2/d}\\Gamma(1 + 2/d)\\Gamma(K + 1)/\\Gamma(K + 1 + 2/d)`.

    Exact for uniform random search while the sublevel ellipsoid of the relevant gaps stays
    in the box (:func:`box_gap`); where the best gap leaves it, the box's corners make
    the true mean a little larger.

    Args:
        K: number of evaluations (array-like, :math:`\\ge 1`).
        dim: the dimension :math:`d`.
        c: :func:`sublevel_constant`.

    Returns:
        A float64 numpy array of the shape of ``K``.

    Example:
        >>> round(float(expected_best_gap(1, 2, 1.0)), 6)  # Gamma(2) Gamma(2) / Gamma(3)
        0.5
    """
    K = np.asarray(K, float)
    if np.any(K < 1) or dim < 1 or c <= 0:
        raise ValueError("expected_best_gap needs K >= 1, dim >= 1 and c > 0")
    e = 2.0 / dim
    lgamma = np.vectorize(math.lgamma, otypes=[float])  # float64, exact to rounding
    log = -e * math.log(c) + math.lgamma(1.0 + e) + lgamma(K + 1.0) - lgamma(K + 1.0 + e)
    return np.exp(log)


def _trap(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Trapezoid weights of the increasing grid ``x``."""
    w = np.zeros(x.size)
    w[1:] += 0.5 * np.diff(x)
    w[:-1] += 0.5 * np.diff(x)
    return x, w


def expected_selected_gap(K, dim: int, c: float, sigma: float, *, n: int = 2000) -> np.ndarray:
    """E[true gap of the recipe of smallest noisy observation] after ``K`` uniform draws.

    With :math:`y_i = g_i + \\sigma\\xi_i`, :math:`P(g \\le x) = c x^{d/2}` (the ellipsoid in
    the box) and :math:`q(t) = P(y < t)`, the chosen recipe has
    :math:`E[g_{sel}] = \\int\\!\\!\\int g\\,f(g)\\,\\sigma^{-1}\\varphi((t - g)/\\sigma)\\,
    K (1 - q(t))^{K-1}\\,dg\\,dt` (exact; integrated numerically on geometric grids). At
    :math:`\\sigma = 0` it is :func:`expected_best_gap`.

    Args:
        K: budgets (array-like, :math:`\\ge 1`).
        dim: the dimension :math:`d`.
        c: :func:`sublevel_constant`.
        sigma: the noise sd (:math:`\\ge 0`).
        n: grid points below :math:`\\sigma` (geometric; above it the spacing is
            :math:`\\sigma/8`). Needs :math:`\\sigma \\ge 10^{-3} c^{-2/d}`.

    Returns:
        A float64 array of the shape of ``K``.

    Example:
        >>> k = [16, 32]  # sigma far below the best gap (about 0.08 here)
        >>> a = expected_selected_gap(k, 2, 0.785398, 0.002)
        >>> bool(np.allclose(a, expected_best_gap(k, 2, 0.785398), rtol=0.01))
        True
    """
    K = np.asarray(K, float)
    if sigma < 0:
        raise ValueError(f"sigma must be >= 0, got {sigma}")
    if sigma == 0:
        return expected_best_gap(K, dim, c)
    from math import sqrt

    from scipy.special import ndtr  # scipy comes with scikit-learn, a dependency

    g_max = c ** (-2.0 / dim)  # where c g^(d/2) = 1
    if not 1e-3 * g_max <= sigma:  # the grid spacing sigma / 8 would need > 8000 points
        raise ValueError(f"sigma = {sigma} is below the grid's resolution 1e-3 * {g_max:.3g}")
    # geometric below sigma (the density's scale near 0), spacing sigma / 8 above
    step = sigma / 8.0
    g = np.concatenate([np.geomspace(1e-9 * g_max, sigma, n // 4)[:-1], np.arange(sigma, g_max, step)])
    g = np.append(g, g_max)
    tn = np.geomspace(1e-9 * g_max, 10.0 * sigma, n // 4)
    t = np.concatenate([-tn[::-1], g, g_max + np.arange(step, 10.0 * sigma, step)])
    g, wg = _trap(g)
    t, wt = _trap(t)
    f = c * 0.5 * dim * g ** (0.5 * dim - 1.0)  # density of the gap
    z = (t[:, None] - g[None, :]) / sigma
    Phi = ndtr(z)
    phi = np.exp(-0.5 * z * z) / (sigma * sqrt(2.0 * np.pi))
    q = np.clip(Phi @ (f * wg), 0.0, 1.0)
    inner = phi @ (g * f * wg)
    logs = np.log1p(-np.minimum(q, 1.0 - 1e-16))
    dens = K[..., None] * np.exp((K[..., None] - 1.0) * logs)
    return (dens * inner * wt).sum(-1)
