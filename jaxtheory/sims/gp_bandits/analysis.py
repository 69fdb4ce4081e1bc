"""Regret summaries used by the ``gp-batch-bandits`` claims (numpy, host side).

Cumulative-regret curves are indexed by the evaluation count :math:`N = 1, 2, \\dots`
(array position ``N - 1``), averaged over seeds before these summaries are taken.

* Late-phase increment: :math:`R(2N_0) - R(N_0)`, the regret paid in the second half
  of a run of length :math:`2N_0`. An additive burn-in from the first batches cancels
  in it; a multiplicative batch factor does not.
* Growth exponent: the least-squares slope of :math:`\\ln R(N)` against :math:`\\ln N`
  over the evaluation counts :math:`N \\in [N_{lo}, N_{hi}]` that are powers of two.

References:
    Paper digest 002_06, section 4 (c).
"""

from __future__ import annotations

import numpy as np

__all__ = ["late_increment", "growth_exponent", "at_budget"]


def at_budget(cum, N: int) -> np.ndarray:
    """:math:`R(N)` from a curve over evaluations (last axis), ``N`` 1-based.

    Args:
        cum: cumulative regret, shape ``(..., N_max)``.
        N: evaluation count.

    Returns:
        ``cum[..., N - 1]``.

    Example:
        >>> at_budget(np.arange(1.0, 9.0), 4).item()
        4.0
    """
    return np.asarray(cum)[..., N - 1]


def late_increment(cum, N0: int) -> np.ndarray:
    """Late-phase increment :math:`R(2N_0) - R(N_0)`.

    Args:
        cum: cumulative regret over evaluations, shape ``(..., N_max)``, ``N_max >= 2 N0``.
        N0: half the budget considered.

    Returns:
        Shape ``(...)``.

    Example:
        >>> late_increment(np.sqrt(np.arange(1.0, 9.0)), 4).round(4).item()
        0.8284
    """
    return at_budget(cum, 2 * N0) - at_budget(cum, N0)


def growth_exponent(cum, lo: int, hi: int) -> np.ndarray:
    """Fitted exponent :math:`a` of :math:`R(N) \\propto N^a` over powers of two in ``[lo, hi]``.

    Args:
        cum: cumulative regret over evaluations, shape ``(..., N_max)``.
        lo: smallest evaluation count used.
        hi: largest evaluation count used.

    Returns:
        Shape ``(...)``.

    Example:
        >>> N = np.arange(1.0, 65.0)
        >>> growth_exponent(3 * N ** 0.5, 8, 64).round(6).item()
        0.5
    """
    Ns = [2 ** k for k in range(0, 40) if lo <= 2 ** k <= hi]
    if len(Ns) < 2:
        raise ValueError(f"need at least two powers of two in [{lo}, {hi}]")
    x = np.log(np.asarray(Ns, float))
    y = np.log(np.stack([at_budget(cum, N) for N in Ns], axis=-1))
    xc = x - x.mean()
    return ((y - y.mean(axis=-1, keepdims=True)) * xc).sum(-1) / (xc * xc).sum()
