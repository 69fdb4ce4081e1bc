"""Stopping thresholds for best-arm identification under Shifting Means.

References:
    Garivier, A. and Kaufmann, E. (2016). Optimal best arm identification with fixed
    confidence. COLT. arXiv:1602.04589 (heuristic GLRT threshold, section 6).
    Freedman, D. A. (1975). On tail probabilities for martingales. Ann. Probab.
    Shifting-Means best-arm identification (its stopping threshold).
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["glrt_threshold", "ism_log_term", "ism_theory_threshold"]


def glrt_threshold(t, delta):
    """Garivier-Kaufmann heuristic exploration rate used with GLRT / Chernoff stopping.

    .. math:: \\beta(t, \\delta) = \\ln\\frac{1 + \\ln t}{\\delta}.

    Args:
        t: number of rounds played (``t >= 1``; smaller values are clipped to 1).
        delta: confidence parameter.

    Returns:
        array broadcast from the inputs.

    Example:
        >>> round(float(glrt_threshold(1, 0.1)), 4)
        2.3026

    References:
        Garivier and Kaufmann (2016), arXiv:1602.04589, section 6.
    """
    t = jnp.maximum(jnp.asarray(t, jnp.result_type(float)), 1.0)
    return jnp.log((1.0 + jnp.log(t)) / delta)


def ism_log_term(t, delta, n_arms: int, extra_log_k: float = 0.0):
    """Union-bound log term of the anytime ISM threshold.

    .. math:: L_t = \\ln\\frac{\\pi^2 K^{2 + e} t^3}{3 \\delta},

    with :math:`e = 0` for uniform sampling (union over the :math:`K(K-1)` ordered
    pairs, the two parts of the split, the :math:`\\le t` values of
    :math:`n_{ab}(t)` and all :math:`t` through :math:`\\sum_t t^{-2} = \\pi^2/6`) and
    :math:`e = 2` for successive elimination (union also over the values of the random
    variance proxies).

    Args:
        t: number of rounds played (clipped to ``>= 1``).
        delta: confidence parameter.
        n_arms: ``K`` (static).
        extra_log_k: the exponent :math:`e` above.

    Returns:
        array broadcast from the inputs.

    Example:
        >>> round(float(ism_log_term(1, jnp.pi**2 * 4 / 3, 2)), 4)
        0.0
    """
    t = jnp.maximum(jnp.asarray(t, jnp.result_type(float)), 1.0)
    k = float(n_arms)
    return jnp.log(jnp.pi**2 / 3.0) + (2.0 + extra_log_k) * jnp.log(k) + 3.0 * jnp.log(t) - jnp.log(delta)


def ism_theory_threshold(t, n_ab, delta, n_arms: int, U, sigma):
    """Provably δ-correct anytime threshold of ISM with uniform sampling.

    Split :math:`Z^{ab}_t - (\\mu_a - \\mu_b)` into a bounded part (range
    :math:`(K+2)U`, conditional variance :math:`\\le 2KU^2`, Freedman's inequality) and a
    conditionally sub-Gaussian part (proxy :math:`K^2\\sigma^2` per pull of :math:`a` or
    :math:`b`). With :math:`L_t` from :func:`ism_log_term`,

    .. math::
        \\beta_{ab}(t, \\delta) = \\sqrt{4 K U^2 t L_t} + \\tfrac{2}{3}(K + 2) U L_t
        + \\sqrt{2 K^2 \\sigma^2 n_{ab}(t) L_t}.

    Args:
        t: rounds played.
        n_ab: pulls of arm ``a`` or ``b`` so far.
        delta: confidence parameter.
        n_arms: ``K`` (static).
        U: bound on the shifted means.
        sigma: noise sub-Gaussian scale.

    Returns:
        array broadcast from the inputs.

    Example:
        >>> b = ism_theory_threshold(100, 50, 0.05, 4, 1.5, 1.0)
        >>> round(float(b), 1)
        580.4

    References:
        Shifting-Means best-arm identification, the stopping threshold (derivation
        re-checked: Freedman with
        :math:`v = 2KU^2t`, :math:`R = (K+2)U` gives
        :math:`\\sqrt{2vL} + \\tfrac{2}{3} R L`; the union bound sums to δ).
    """
    L = ism_log_term(t, delta, n_arms)
    t = jnp.maximum(jnp.asarray(t, L.dtype), 1.0)
    k = float(n_arms)
    return (
        jnp.sqrt(4.0 * k * U**2 * t * L)
        + (2.0 / 3.0) * (k + 2.0) * U * L
        + jnp.sqrt(2.0 * k**2 * sigma**2 * n_ab * L)
    )
