"""Host-side analysis of best-arm identification runs (numpy / scipy, never inside jit).

Exact Clopper-Pearson intervals for error rates, summaries that keep censored episodes
apart from successes, and the theoretical reference values the experiment's claims
compare against: the Shifting-Means lower bound, ISM-theory's own predicted stopping
time, and the importance-weighted variance of the binding pair. Fits (slopes, R²) and
bootstrap intervals come from :mod:`jaxtheory.analysis`.

References:
    Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial limits
    illustrated in the case of the binomial. Biometrika.
    Garivier and Kaufmann (2016), arXiv:1602.04589 (lower bound).
    Shifting-Means best-arm identification (lower bound and sample complexity).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.optimize
import scipy.stats

__all__ = [
    "clopper_pearson",
    "summarize",
    "lower_bound_time",
    "ism_theory_predicted_tau",
    "iw_second_moment",
    "iw_variance",
]


def clopper_pearson(k, n, level: float = 0.95):
    """Exact two-sided Clopper-Pearson interval for a binomial proportion.

    .. math::
        \\underline p = B^{-1}\\big(\\tfrac{\\alpha}{2}; k, n - k + 1\\big),\\qquad
        \\overline p = B^{-1}\\big(1 - \\tfrac{\\alpha}{2}; k + 1, n - k\\big),

    with :math:`B^{-1}` the Beta quantile, :math:`\\underline p = 0` when :math:`k = 0`
    and :math:`\\overline p = 1` when :math:`k = n`.

    Args:
        k: number of successes (array-like of ints).
        n: number of trials (array-like of ints, broadcast with ``k``).
        level: confidence level :math:`1 - \\alpha`.

    Returns:
        ``(lo, hi)`` as float arrays (NaN where ``n == 0``).

    Example:
        >>> lo, hi = clopper_pearson(0, 100)
        >>> float(lo), round(float(hi), 5)
        (0.0, 0.03622)
    """
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    alpha = 1.0 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, scipy.stats.beta.ppf(alpha / 2, k, n - k + 1), 0.0)
        hi = np.where(k < n, scipy.stats.beta.ppf(1 - alpha / 2, k + 1, n - k), 1.0)
    bad = n <= 0
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def summarize(out: dict, level: float = 0.95) -> dict[str, float]:
    """Summary of a batch of episodes, censored episodes reported on their own.

    The error rate is over *all* episodes (a censored episode is not an error and not a
    success): :math:`\\hat p = \\#\\{\\text{stopped and wrong}\\} / n`, with its exact
    Clopper-Pearson interval. :math:`\\mathbb E[\\tau]` is over stopped episodes only
    (``tau_mean``), and ``tau_mean_lower`` counts censored episodes at the cap (a lower
    bound on the true mean).

    Args:
        out: per-episode arrays with ``tau``, ``stopped``, ``censored``, ``error``.
        level: confidence level of the interval.

    Returns:
        dict with ``n``, ``n_stopped``, ``n_censored``, ``censored_rate``, ``errors``,
        ``error_rate``, ``error_lo``, ``error_hi``, ``tau_mean``, ``tau_sem``,
        ``tau_mean_lower``, ``tau_median``, ``tau_q90``.

    Example:
        >>> import numpy as np
        >>> out = {"tau": np.array([10, 20, 100]), "stopped": np.array([True, True, False]),
        ...        "censored": np.array([False, False, True]),
        ...        "error": np.array([False, True, False])}
        >>> s = summarize(out)
        >>> s["n_censored"], s["errors"], s["tau_mean"]
        (1, 1, 15.0)
    """
    tau = np.asarray(out["tau"], float).ravel()
    stopped = np.asarray(out["stopped"], bool).ravel()
    censored = np.asarray(out["censored"], bool).ravel()
    error = np.asarray(out["error"], bool).ravel()
    n = tau.size
    errors = int(np.sum(error & stopped))
    lo, hi = clopper_pearson(errors, n, level)
    ts = tau[stopped]
    nan = float("nan")
    return {
        "n": int(n),
        "n_stopped": int(stopped.sum()),
        "n_censored": int(censored.sum()),
        "censored_rate": float(censored.mean()) if n else nan,
        "errors": errors,
        "error_rate": errors / n if n else nan,
        "error_lo": float(lo),
        "error_hi": float(hi),
        "tau_mean": float(ts.mean()) if ts.size else nan,
        "tau_sem": float(ts.std(ddof=1) / math.sqrt(ts.size)) if ts.size > 1 else nan,
        "tau_mean_lower": float(tau.mean()) if n else nan,
        "tau_median": float(np.median(ts)) if ts.size else nan,
        "tau_q90": float(np.quantile(ts, 0.9)) if ts.size else nan,
    }


def lower_bound_time(gap: float, n_arms: int, sigma: float, c: float, delta: float) -> float:
    """Shifting-Means lower bound on :math:`\\mathbb E[\\tau]` for equal gaps.

    Under i.i.d. shifts :math:`\\pm c` every arm looks stationary with variance
    :math:`V = \\sigma^2 + c^2`; the Gaussian bound with :math:`K - 1` arms at gap
    :math:`\\Delta` (optimal :math:`w_1 = \\sqrt{K-1}\\,w_b`) gives

    .. math::
        T^* = \\frac{2V(1 + \\sqrt{K - 1})^2}{\\Delta^2},\\qquad
        \\mathbb E[\\tau] \\ge T^* \\ln\\frac{1}{2.4\\delta}.

    Approximate: the shift mixture is not Gaussian.

    Args:
        gap: :math:`\\Delta`.
        n_arms: ``K``.
        sigma: noise standard deviation.
        c: shift amplitude.
        delta: confidence.

    Returns:
        the bound (float).

    Example:
        >>> round(lower_bound_time(0.5, 4, 1.0, 1.0, 0.05), 1)
        253.2

    References:
        Shifting-Means best-arm identification (lower bound); Garivier and Kaufmann (2016).
    """
    V = sigma**2 + c**2
    T = 2.0 * V * (1.0 + math.sqrt(n_arms - 1)) ** 2 / gap**2
    return T * math.log(1.0 / (2.4 * delta))


def ism_theory_predicted_tau(gap: float, n_arms: int, sigma: float, U: float, delta: float) -> float:
    """ISM-theory's predicted stopping time: where the mean gap estimate meets the threshold.

    With :math:`n_{ab}(t) = 2t/K` (uniform sampling) the predicted :math:`\\tau` solves

    .. math::
        t\\Delta = \\sqrt{4KU^2 t L_t} + \\tfrac{2}{3}(K+2) U L_t + \\sqrt{4K\\sigma^2 t L_t},
        \\qquad L_t = \\ln\\frac{\\pi^2 K^2 t^3}{3\\delta},

    i.e. :math:`\\tau \\approx (2\\sqrt K (U + \\sigma)\\sqrt{L_\\tau} + \\dots)^2 / \\Delta^2`.

    Args:
        gap: :math:`\\Delta_{\\min}` (the binding pair's gap).
        n_arms: ``K``.
        sigma: noise standard deviation.
        U: bound on the shifted means.
        delta: confidence.

    Returns:
        the crossing time (float).

    Example:
        >>> round(ism_theory_predicted_tau(0.5, 4, 1.0, 1.5, 0.05))
        15185

    References:
        Shifting-Means best-arm identification (sample complexity of the rule).
    """
    K = float(n_arms)

    def excess(log_t):
        t = math.exp(log_t)
        L = math.log(math.pi**2 * K**2 * t**3 / (3.0 * delta))
        beta = (
            math.sqrt(4 * K * U**2 * t * L)
            + (2.0 / 3.0) * (K + 2) * U * L
            + math.sqrt(2 * K**2 * sigma**2 * (2 * t / K) * L)
        )
        return t * gap - beta

    return float(math.exp(scipy.optimize.brentq(excess, math.log(1.0 + 1e-9), 60.0)))


def iw_second_moment(mu_a: float, mu_b: float, n_arms: int, sigma: float, shifts) -> float:
    """Second moment of the importance-weighted gap increment under uniform sampling.

    .. math::
        \\mathbb E[(Z^{ab})^2] = K\\,\\mathbb E_s\\big[2\\sigma^2 + (\\mu_a + s)^2 + (\\mu_b + s)^2\\big],

    averaged over the empirical distribution of the shifts ``shifts``.

    Args:
        mu_a: mean of arm ``a``.
        mu_b: mean of arm ``b``.
        n_arms: ``K``.
        sigma: noise standard deviation.
        shifts: shift values with equal weight (e.g. ``[-1, 1]`` for random :math:`\\pm 1`).

    Returns:
        float.

    Example:
        >>> iw_second_moment(0.5, 0.0, 4, 1.0, [0.0])
        9.0
    """
    s = np.asarray(shifts, float)
    return float(n_arms * np.mean(2 * sigma**2 + (mu_a + s) ** 2 + (mu_b + s) ** 2))


def iw_variance(mu_a: float, mu_b: float, n_arms: int, sigma: float, shifts) -> float:
    """Variance of the importance-weighted gap increment (the paper's :math:`V_Z`).

    .. math:: V_Z = \\mathbb E[(Z^{ab})^2] - (\\mu_a - \\mu_b)^2.

    Args:
        mu_a: mean of arm ``a``.
        mu_b: mean of arm ``b``.
        n_arms: ``K``.
        sigma: noise standard deviation.
        shifts: shift values with equal weight.

    Returns:
        float.

    Example:
        >>> iw_variance(0.5, 0.0, 4, 1.0, [-1.0, 1.0])
        16.75
    """
    return iw_second_moment(mu_a, mu_b, n_arms, sigma, shifts) - (mu_a - mu_b) ** 2
