"""Closed-form references of prior-matched Langevin training (numpy, float64).

The experiment ``langevin-ntk-stability`` sweeps :mod:`jaxtheory.sims.nets.langevin_ntk`
and compares its runs with the two references here: the Euler–Maruyama OU displacement
along flat directions (:func:`ou_expected`) and, at zero temperature, kernel GD with the
seed's initial NTK (:func:`lazy_ratio`, through :func:`jaxtheory.sims.nets.ntk.lazy_loss`).
"""

from __future__ import annotations

import numpy as np

from jaxtheory.sims.nets import ntk

__all__ = ["lazy_ratio", "ou_expected"]


def ou_expected(lam, h, k):
    """E‖θ_k − θ₀‖²/E‖θ₀‖² of the Euler–Maruyama OU along flat directions, prior-matched λ:
    :math:`(1 - r^k)^2 + (1 - r^{2k})/(1 - h\\lambda/2)`, :math:`r = 1 - h\\lambda`, which tends
    to :math:`2(1 - e^{-\\lambda t})` as :math:`h \\to 0` at :math:`t = hk`.

    Example:
        >>> round(float(ou_expected(1.0, 1e-4, 1e4)), 3), round(2 * (1 - float(np.exp(-1.0))), 3)
        (1.264, 1.264)
    """
    r = 1.0 - h * lam
    return (1 - r**k) ** 2 + (1 - r ** (2 * k)) / (1 - h * lam / 2)


def lazy_ratio(K0, delta0, loss, h, records, early_fraction):
    """Mean of :math:`L_t / L_{\\rm lazy}(t)` over the early records of one run.

    :math:`L_{\\rm lazy}` is kernel GD with the fixed kernel ``K0`` on
    :math:`L = \\tfrac12\\lVert\\Delta\\rVert^2` from the residual ``delta0`` = y − f₀, step
    ``h``: :math:`P\\,` :func:`~jaxtheory.sims.nets.ntk.lazy_loss` ``(·, delta0, K0, hP, t)``
    for P points. The early records are those where :math:`L_{\\rm lazy}` is still at least
    ``early_fraction`` of its start.

    Args:
        K0: the initial NTK Gram matrix ``(P, P)``.
        delta0: the initial residual ``(P,)``.
        loss: the run's loss at ``records``.
        h: the step.
        records: the steps (integers, increasing) the loss was recorded at.
        early_fraction: the records kept.

    Example:
        >>> K0, d0 = np.diag([1.0, 2.0]), np.ones(2)
        >>> L = 2 * ntk.lazy_loss(np.eye(2), d0, K0, 0.2, 10)
        >>> round(lazy_ratio(K0, d0, 1.1 * L, 0.1, np.arange(11), 0.01), 9)
        1.1
    """
    K0, d0, L = (np.asarray(a, np.float64) for a in (K0, delta0, loss))
    records = np.asarray(records, int)
    P = K0.shape[0]
    lazy = P * ntk.lazy_loss(np.eye(P), d0, K0, h * P, int(records[-1]))[records]
    early = lazy >= early_fraction * lazy[0]
    return float(np.mean(L[early] / lazy[early]))
