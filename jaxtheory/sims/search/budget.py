"""Splitting a compute budget between recipe search and the final run (numpy, not simulated).

A budget ``C = K c_proxy + C_f`` pays for ``K`` search runs of cost ``c_proxy`` each and a
final run of compute ``C_f`` whose objective is ``g(C_f) = -A C_f^(-alpha)``; the best
recipe of ``K`` runs lies ``m(K)`` short of the best possible. The optimal ``K`` maximises
``g(C - K c_proxy) - m(K)``. :func:`kstar_foc` solves the first-order condition for a power
law ``m = a K^(-gamma)``, :func:`kstar_smooth` maximises over integers for a smooth fit of
measured curves, and :func:`loglog_fit` fits the power law. The experiment
``recipe-search-power-law`` compares the two optima on the curves of
:mod:`jaxtheory.sims.search.runner`.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["kstar_foc", "kstar_smooth", "loglog_fit"]


def loglog_fit(K: np.ndarray, curves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares power law of each curve: slope and intercept of ``log curves`` on ``log K``.

    Args:
        K: the budgets, shape ``(n,)``.
        curves: positive values at ``K``, shape ``(..., n)``.

    Returns:
        ``(slope, intercept)``, each of shape ``(...)``: ``curves ≈ exp(intercept) K^slope``.

    Example:
        >>> b, a = loglog_fit(np.array([1.0, 2.0, 4.0]), 3.0 * np.array([1.0, 2.0, 4.0]) ** -0.5)
        >>> round(float(b), 12), round(float(np.exp(a)), 12)
        (-0.5, 3.0)
    """
    lx, ly = np.log(K), np.log(curves)
    xc = lx - lx.mean()
    b = (ly - ly.mean(-1, keepdims=True)) @ xc / (xc @ xc)
    return b, ly.mean(-1) - b * lx.mean()


def kstar_foc(a: float, gamma: float, *, A: float, alpha: float, C: float, c_proxy: float) -> float:
    """K* solving a γ K^(−γ−1) = c_proxy g′(C − K c_proxy), g(x) = −A x^(−α), by bisection.

    Example:
        >>> k = kstar_foc(1.0, 1.0, A=1.0, alpha=1.0, C=100.0, c_proxy=1.0)
        >>> round(k, 6)  # K^-2 = (100 - K)^-2
        50.0
    """
    lo, hi = 1e-9, C / c_proxy * (1 - 1e-12)
    gain, cost = math.log(a * gamma), math.log(c_proxy * A * alpha)

    def h(k):  # decreasing in k: marginal gain of search minus marginal cost
        return gain - (gamma + 1) * math.log(k) - cost + (alpha + 1) * math.log(C - k * c_proxy)

    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if h(mid) > 0 else (lo, mid)
    return math.sqrt(lo * hi)


def kstar_smooth(K: np.ndarray, curves: np.ndarray, *, A: float, alpha: float, C: float, c_proxy: float):
    """The integer K* in ``[K[0], K[-1]]`` maximising g(C − K c_proxy) − m(K), per curve.

    ``m`` is the least-squares quadratic in ``log K`` of ``log curves`` (a smooth fit that
    follows a measured curve's bend, where a power law would not), evaluated on every
    integer of the range.

    Args:
        K: the budgets of the curves, shape ``(n,)``, increasing.
        curves: positive values at ``K``, shape ``(n,)`` or ``(r, n)`` (one curve per row).
        A, alpha, C, c_proxy: the final run's ``g(x) = −A x^(−α)`` and the budget split.

    Returns:
        K* per curve, shape ``(r,)`` (``(1,)`` for one curve).

    Example:
        >>> K = np.array([1.0, 10.0, 100.0, 250.0])
        >>> kstar_smooth(K, 4.0 / K, A=1.0, alpha=1.0, C=300.0, c_proxy=1.0).tolist()  # 4 K^-2 = (300 - K)^-2
        [200.0]
    """
    lx, ly = np.log(K), np.log(np.atleast_2d(curves))
    quad = np.polynomial.polynomial.polyfit(lx, ly.T, 2)
    grid = np.arange(int(K[0]), int(K[-1]) + 1, dtype=float)
    lg = np.log(grid)
    curve = np.exp(quad[0][:, None] + quad[1][:, None] * lg + quad[2][:, None] * lg**2)
    final = -A * (C - grid * c_proxy) ** (-alpha)
    return grid[np.argmax(final[None] - curve, axis=1)]
