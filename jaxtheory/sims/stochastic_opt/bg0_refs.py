"""Closed-form references of the BG-0 experiment (not the sweep's simulator).

The experiment ``bg0-normalized`` sweeps :mod:`jaxtheory.sims.stochastic_opt.bg0`. With
:math:`\\sigma_1 = 0` the mean-square-smooth noise cancels in STORM's correction, so with
:math:`a = 1/T` the estimator carries its initial error almost unforgotten and the normalized
step settles where :math:`\\nabla F(x) \\approx -e_{T-1}`: :func:`storm_plateau` is that
level, from :func:`mean_norm` (the derivation is in the experiment's description).
"""

from __future__ import annotations

import math

__all__ = ["mean_norm", "storm_plateau"]


def mean_norm(dim: int) -> float:
    """:math:`\\mathbb E\\lVert z\\rVert` for :math:`z \\sim N(0, I_d/d)`:
    :math:`\\sqrt{2/d}\\,\\Gamma((d+1)/2)/\\Gamma(d/2)` (a chi distribution over :math:`\\sqrt d`).

    Example:
        >>> round(mean_norm(1), 6) == round(math.sqrt(2 / math.pi), 6), round(mean_norm(10), 4)
        (True, 0.9754)
    """
    return math.sqrt(2.0 / dim) * math.exp(math.lgamma((dim + 1) / 2) - math.lgamma(dim / 2))


def storm_plateau(sigma0: float, dim: int, steps: int) -> float:
    """The final :math:`\\lVert\\nabla F\\rVert` of normalized STORM with :math:`a = 1/T` from a
    one-sample estimate: :math:`(1 - 1/T)^{T-1}\\,\\mathbb E\\lVert d_0 - \\nabla F(x_0)\\rVert`,
    the initial error :math:`\\sigma_0 z` carried over ``steps`` = :math:`T` steps
    (:math:`\\approx e^{-1}\\sigma_0\\,` :func:`mean_norm` for large :math:`T`).

    Example:
        >>> round(storm_plateau(1.0, 10, 100_000) / (math.exp(-1) * mean_norm(10)), 4)
        1.0
    """
    return (1 - 1 / steps) ** (steps - 1) * (sigma0 * mean_norm(dim))
