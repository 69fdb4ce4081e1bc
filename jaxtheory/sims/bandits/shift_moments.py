"""What a uniform sampler sees of each shift adversary: the variance law's prediction.

Side computations of the experiment ``shifting-means-bai`` (not the sweep's simulator).
Against uniform sampling the adversaries of
:func:`~jaxtheory.sims.bandits.environments.shift` read nothing of the learner (its most
likely arm is arm 0), so each visits a fixed set of shift values with equal weight: both
adaptive attacks are the constant shift :math:`-c`, and the periodic ones repeat one
period. The second moment of the importance-weighted gap increment
(:func:`~jaxtheory.sims.bandits.analysis.iw_second_moment`) averages over those values,
and ISM-practical's cost between an environment and no shift is predicted to scale like
its ratio.
"""

from __future__ import annotations

import math

from jaxtheory.sims.bandits.analysis import iw_second_moment

__all__ = ["UNIFORM_SHIFTS", "shift_values", "second_moment_ratio"]

#: The adversaries whose shifts against a uniform sampler :func:`shift_values` gives, ``none``
#: first (``ramp`` is left out: it is not periodic).
UNIFORM_SHIFTS = ("none", "constant", "random", "periodic", "pulse", "drift", "targeted", "untargeted")


def shift_values(env: str, c: float, period: float) -> list[float]:
    """The shift values adversary ``env`` visits with equal weight against a uniform sampler.

    Args:
        env: one of :data:`UNIFORM_SHIFTS`.
        c: the shift amplitude.
        period: the period :math:`P` of ``periodic``, ``pulse`` and ``drift`` (one period
            of :math:`\\operatorname{round}(P)` rounds is listed).

    Returns:
        The values, one per round of a period (one value for the others).

    Raises:
        ValueError: ``env`` is not in :data:`UNIFORM_SHIFTS`.

    Example:
        >>> shift_values("random", 1.0, 4.0), shift_values("pulse", 1.0, 4.0)
        ([-1.0, 1.0], [-1.0, 1.0, 1.0, 1.0])
    """
    P = max(int(round(period)), 1)
    values = {
        "none": [0.0],
        "constant": [-c],
        "targeted": [-c],
        "untargeted": [-c],
        "random": [-c, c],
        "periodic": [c if t % period < 0.5 * period else -c for t in range(P)],
        "pulse": [-c if t % P == 0 else c for t in range(P)],
        "drift": [c * math.sin(2 * math.pi * t / period) for t in range(P)],
    }
    if env not in values:
        raise ValueError(f"no fixed shift values for {env!r}; expected one of {UNIFORM_SHIFTS}")
    return values[env]


def second_moment_ratio(env: str, gap: float, n_arms: int, sigma: float, c: float, period: float) -> float:
    """:math:`\\mathbb E[Z^2]` of the binding pair (the best arm, mean ``gap``, against a
    runner-up of mean 0) under ``env`` over its value without shift.

    Args:
        env: one of :data:`UNIFORM_SHIFTS`.
        gap: the gap :math:`\\Delta`.
        n_arms: ``K``.
        sigma: noise standard deviation.
        c: the shift amplitude.
        period: the adversary's period (see :func:`shift_values`).

    Returns:
        float; 1 for ``none``.

    Example:
        >>> round(second_moment_ratio("random", 0.5, 4, 1.0, 1.0, 4.0), 4)
        1.8889
    """
    shifted = iw_second_moment(gap, 0.0, n_arms, sigma, shift_values(env, c, period))
    return shifted / iw_second_moment(gap, 0.0, n_arms, sigma, [0.0])
