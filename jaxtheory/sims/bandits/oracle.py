"""Optimal allocation and characteristic time of best-arm identification.

For a one-parameter exponential family with divergence :math:`d` and best arm
:math:`1`, the characteristic time and the optimal weights are

.. math::
    T^*(\\mu)^{-1} = \\sup_{w \\in \\Sigma_K} \\min_{a \\ne 1}
    \\Big[ w_1 d(\\mu_1, m_a) + w_a d(\\mu_a, m_a) \\Big],
    \\qquad m_a = \\frac{w_1 \\mu_1 + w_a \\mu_a}{w_1 + w_a},

and every :math:`\\delta`-correct algorithm has
:math:`\\mathbb E[\\tau_\\delta] \\ge T^*(\\mu) \\ln(1/(2.4\\delta))`. Garivier and Kaufmann
(2016, Thm 5) reduce the sup-min to nested one-dimensional root finding: with
:math:`g_a(x) = d(\\mu_1, m_a(x)) + x\\, d(\\mu_a, m_a(x))`,
:math:`m_a(x) = (\\mu_1 + x \\mu_a)/(1 + x)` and :math:`x_a(y) = g_a^{-1}(y)`, solve

.. math::
    F(y) = \\sum_{a \\ne 1} \\frac{d(\\mu_1, m_a(x_a(y)))}{d(\\mu_a, m_a(x_a(y)))} = 1,
    \\qquad y \\in (0, d(\\mu_1, \\mu_2)),

then :math:`x_1 = 1`, :math:`w^*_a = x_a(y^*) / \\sum_b x_b(y^*)` and
:math:`T^* = \\sum_b x_b(y^*) / y^*`. Here both levels are bisections with a fixed
number of iterations (``lax.fori_loop``) so that the oracle is jittable and vmappable.
For Gaussian arms :math:`x_a(u) = u / (\\Delta_a^2 - u)` with :math:`u = 2\\sigma^2 y`, so
:math:`F(u) = \\sum_{a\\ne1} x_a(u)^2` and one bisection suffices
(:func:`optimal_weights_gaussian`).

Ties. Both solvers share one rule for when the best mean is tied: arm :math:`a` is tied
with the best when

.. math::
    \\mu_{\\max} - \\mu_a \\le \\sqrt{\\varepsilon}\\,(1 + \\max_b |\\mu_b|),

with :math:`\\varepsilon` the machine epsilon of the means' dtype (:math:`\\sqrt{\\varepsilon}` is
:math:`3.5 \\times 10^{-4}` in float32 and :math:`1.5 \\times 10^{-8}` in float64), or
when the divergence cannot separate it from the best (:math:`d(\\mu_{\\max}, \\mu_a) \\le 0`,
e.g. two Bernoulli means clipped to the same value). Rounding the means perturbs
a gap by about :math:`\\varepsilon (1 + \\max|\\mu|)`, so below the tolerance the gap, and with
it :math:`T^* \\propto 1/\\Delta^2`, is known to worse than :math:`\\sqrt{\\varepsilon}` relative
precision. When two or more arms are tied the problem is degenerate: the weights are
uniform over the tied arms and :math:`T^* = \\infty`. That is the limit as the gap between
the two best arms closes (the weights tend to :math:`1/2` on each and :math:`0` elsewhere;
for Gaussian arms :math:`T^* \\Delta^2 \\to 8\\sigma^2`), and the convention of the
Garivier-Kaufmann reference code for exact ties; for three or more tied arms the limit
depends on how the gaps close, and uniform weights are a convention. So for finite means the
weights are finite and sum to one, and :math:`T^*` is infinite exactly when the means are tied.

References:
    Garivier, A. and Kaufmann, E. (2016). Optimal best arm identification with fixed
    confidence. COLT. arXiv:1602.04589.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

__all__ = [
    "gaussian_kl",
    "bernoulli_kl",
    "optimal_weights_gaussian",
    "optimal_weights",
]


def gaussian_kl(x, y, sigma=1.0):
    """Kullback-Leibler divergence between Gaussians of equal variance, by means.

    .. math:: d(x, y) = \\frac{(x - y)^2}{2 \\sigma^2}.

    Args:
        x: first mean.
        y: second mean.
        sigma: common standard deviation.

    Returns:
        array broadcast from the inputs.

    Example:
        >>> float(gaussian_kl(1.0, 0.0, 0.5))
        2.0
    """
    return (jnp.asarray(x) - jnp.asarray(y)) ** 2 / (2.0 * jnp.asarray(sigma) ** 2)


def bernoulli_kl(x, y, eps=1e-6):
    """Kullback-Leibler divergence between Bernoulli laws, by means (clipped to ``[eps, 1-eps]``).

    .. math:: d(x, y) = x \\ln\\frac{x}{y} + (1 - x) \\ln\\frac{1 - x}{1 - y}.

    Evaluated as :math:`y\\, h\\big(\\tfrac{x - y}{y}\\big) + (1 - y)\\, h\\big(\\tfrac{y - x}{1 - y}\\big)`
    with :math:`h(t) = (1 + t)\\ln(1 + t) - t \\ge 0`: two non-negative terms, each accurate to
    round-off, so :math:`d \\approx (x - y)^2 / (2y(1-y))` keeps its relative precision as
    :math:`x \\to y` (the textbook form loses it to cancellation: relative error
    :math:`\\sim \\varepsilon / (x - y)^2`).

    Args:
        x: first mean.
        y: second mean.
        eps: clipping of both means away from 0 and 1.

    Returns:
        array broadcast from the inputs.

    Example:
        >>> round(float(bernoulli_kl(0.5, 0.25)), 6)
        0.143841
    """
    x = jnp.clip(jnp.asarray(x), eps, 1.0 - eps)
    y = jnp.clip(jnp.asarray(y), eps, 1.0 - eps)
    diff = x - y
    return y * _xlogx_excess(diff / y) + (1.0 - y) * _xlogx_excess(-diff / (1.0 - y))


def _xlogx_excess(t):
    """:math:`h(t) = (1 + t)\\ln(1 + t) - t \\ge 0` for :math:`t > -1`, accurate to round-off near 0.

    Near :math:`t = 0` the two terms cancel to :math:`t^2/2`, so there the Taylor series
    :math:`h(t) = \\sum_{n \\ge 2} (-t)^n / (n(n-1))` is used (to :math:`t^8`; the remainder is
    below :math:`t^7/36 < 3 \\times 10^{-16}` relative at :math:`|t| < 10^{-2}`).
    """
    small = jnp.abs(t) < 1e-2
    ts = jnp.where(small, t, 0.0)
    series = (
        ts
        * ts
        * (
            1 / 2
            + ts * (-1 / 6 + ts * (1 / 12 + ts * (-1 / 20 + ts * (1 / 30 + ts * (-1 / 42 + ts * (1 / 56))))))
        )
    )
    tl = jnp.where(small, 1.0, t)
    direct = (1.0 + tl) * jnp.log1p(tl) - tl
    return jnp.where(small, series, direct)


def _bisect_increasing(f: Callable, lo, hi, n_iter: int):
    """Root of an increasing (elementwise) function by ``n_iter`` halvings of ``[lo, hi]``."""

    def body(_, bounds):
        a, b = bounds
        mid = 0.5 * (a + b)
        above = f(mid) > 0
        return jnp.where(above, a, mid), jnp.where(above, mid, b)

    a, b = jax.lax.fori_loop(0, n_iter, body, (lo, hi))
    return 0.5 * (a + b)


def _best_and_ties(mu, d_best=None):
    """The best arm and the arms tied with it, by the module's one tie rule (see the module docstring).

    Args:
        mu: arm means, shape ``(K,)``, floating.
        d_best: optional divergences :math:`d(\\mu_{\\max}, \\mu_a)`, shape ``(K,)``; an arm
            whose divergence from the best is zero or negative counts as tied
            (a NaN divergence does not, so NaN propagates to the weights).

    Returns:
        ``(best, is_best, gaps, tied, degenerate)``: the index of ``argmax mu``, its one-hot
        mask, the gaps :math:`\\mu_{\\max} - \\mu_a`, the mask of arms tied with the best
        (the best included) and whether two or more arms are tied.
    """
    best = jnp.argmax(mu)
    is_best = jnp.arange(mu.shape[0]) == best
    gaps = mu[best] - mu
    tol = jnp.sqrt(jnp.finfo(mu.dtype).eps) * (1.0 + jnp.max(jnp.abs(mu)))
    tied = is_best | (gaps <= tol)
    if d_best is not None:
        tied = tied | (d_best <= 0)
    degenerate = jnp.sum(tied) > 1
    return best, is_best, gaps, tied, degenerate


def _as_means(mu):
    mu = jnp.asarray(mu)
    if mu.ndim != 1 or mu.shape[0] < 2:
        raise ValueError(f"mu must have shape (K,) with K >= 2 arms, got shape {mu.shape}")
    if not jnp.issubdtype(mu.dtype, jnp.floating):
        mu = mu.astype(jnp.result_type(float))
    return mu


def _tied_uniform(tied, dtype):
    return tied.astype(dtype) / jnp.sum(tied).astype(dtype)


def optimal_weights_gaussian(mu, sigma=1.0, n_iter: int = 60):
    """Optimal weights and characteristic time for Gaussian arms (closed form, one bisection).

    With gaps :math:`\\Delta_a = \\mu_1 - \\mu_a` and :math:`u \\in (0, \\Delta_{\\min}^2)`
    solving :math:`\\sum_{a\\ne1} \\big(u / (\\Delta_a^2 - u)\\big)^2 = 1`,

    .. math::
        x_1 = 1,\\quad x_a = \\frac{u}{\\Delta_a^2 - u},\\quad
        w^*_a = \\frac{x_a}{\\sum_b x_b},\\quad T^* = \\frac{2\\sigma^2 \\sum_b x_b}{u}.

    So :math:`(w^*_1)^2 = \\sum_{a \\ne 1} (w^*_a)^2`; for two arms :math:`w^* = (1/2, 1/2)`
    and :math:`T^* = 8\\sigma^2/\\Delta^2`. When the best mean is tied (gap at most
    :math:`\\sqrt{\\varepsilon}\\,(1 + \\max|\\mu|)`, the rule of the module docstring) the weights
    are uniform over the tied arms and :math:`T^* = \\infty`.

    Args:
        mu: arm means, shape ``(K,)`` (any order; the best arm is ``argmax mu``).
        sigma: noise standard deviation.
        n_iter: bisection iterations (static).

    Returns:
        ``(w, T)``: weights of shape ``(K,)`` summing to one, and :math:`T^*(\\mu)`.

    Example:
        >>> w, T = optimal_weights_gaussian(jnp.array([0.5, 0.0]), 1.0)
        >>> w.round(4).tolist(), round(float(T), 3)
        ([0.5, 0.5], 32.0)

    References:
        Garivier and Kaufmann (2016), arXiv:1602.04589, Thm 5 and section 3.
    """
    mu = _as_means(mu)
    # gaps above the tie tolerance (>= sqrt(eps)) have positive squares: no divergence check needed
    _, is_best, gaps, tied, degenerate = _best_and_ties(mu)
    g2 = jnp.where(is_best, jnp.inf, gaps**2)
    dmin2 = jnp.min(g2)
    dmin2_safe = jnp.where(degenerate, 1.0, dmin2)

    def x_of(r):  # r = u / dmin2 in (0, 1)
        u = r * dmin2_safe
        return jnp.where(is_best, 0.0, u / (jnp.where(is_best, 1.0, g2) - u))

    def F(r):
        return jnp.sum(x_of(r) ** 2) - 1.0

    zero = jnp.zeros((), mu.dtype)
    r = _bisect_increasing(F, zero, jnp.ones((), mu.dtype), n_iter)
    x = jnp.where(is_best, 1.0, x_of(r))
    w = x / jnp.sum(x)
    T = 2.0 * jnp.asarray(sigma, mu.dtype) ** 2 * jnp.sum(x) / (r * dmin2_safe)
    w = jnp.where(degenerate, _tied_uniform(tied, mu.dtype), w)
    T = jnp.where(degenerate, jnp.inf, T)
    return w.astype(mu.dtype), T.astype(mu.dtype)


def optimal_weights(mu, divergence: Callable, n_outer: int = 50, n_inner: int = 50):
    """Optimal weights and characteristic time by Garivier-Kaufmann nested bisection.

    Inner level: for each arm :math:`a \\ne 1`, solve :math:`g_a(x) = y` on
    :math:`z = x / (1 + x) \\in [0, 1)`, where
    :math:`g_a = d(\\mu_1, m) + \\tfrac{z}{1-z} d(\\mu_a, m)` and
    :math:`m = (1 - z)\\mu_1 + z \\mu_a`. Outer level: solve :math:`F(y) = 1` on
    :math:`y = r\\, d(\\mu_1, \\mu_2)`, :math:`r \\in (0, 1)`. Both are bisections with
    a fixed number of iterations, vectorised over arms.

    Args:
        mu: arm means, shape ``(K,)``.
        divergence: elementwise :math:`d(x, y)`, e.g. :func:`bernoulli_kl` or
            ``functools.partial(gaussian_kl, sigma=...)``.
        n_outer: outer bisection iterations (static).
        n_inner: inner bisection iterations per outer step (static).

    Returns:
        ``(w, T)`` as in :func:`optimal_weights_gaussian`; ties (the rule of the module
        docstring, which here also counts an arm with :math:`d(\\mu_1, \\mu_a) \\le 0` as tied)
        give uniform weights over the tied arms and :math:`T^* = \\infty`.

    Example:
        >>> w, T = optimal_weights(jnp.array([0.0, 0.5]), gaussian_kl)
        >>> w.round(4).tolist(), round(float(T), 2)
        ([0.5, 0.5], 32.0)

    References:
        Garivier and Kaufmann (2016), arXiv:1602.04589, Thm 5 and Lemma 3.
    """
    mu = _as_means(mu)
    best = jnp.argmax(mu)
    mu1 = mu[best]
    d1a = divergence(mu1, mu)
    _, is_best, _, tied, degenerate = _best_and_ties(mu, d1a)
    d1a = jnp.where(is_best, jnp.inf, d1a)
    dmin = jnp.min(d1a)
    dmin_safe = jnp.where(degenerate, 1.0, dmin)
    one = jnp.ones((), mu.dtype)
    zero = jnp.zeros((), mu.dtype)

    def z_of(y):
        def g_minus_y(z):
            m = (1.0 - z) * mu1 + z * mu
            x = z / (1.0 - z)
            return divergence(mu1, m) + x * divergence(mu, m) - y

        lo = jnp.zeros_like(mu)
        hi = jnp.ones_like(mu)
        return _bisect_increasing(g_minus_y, lo, hi, n_inner)

    def F(r):
        z = z_of(r * dmin_safe)
        m = (1.0 - z) * mu1 + z * mu
        ratio = divergence(mu1, m) / jnp.maximum(divergence(mu, m), 1e-30)
        return jnp.sum(jnp.where(is_best, 0.0, ratio)) - 1.0

    r = _bisect_increasing(F, zero, one, n_outer)
    y = r * dmin_safe
    z = z_of(y)
    x = jnp.where(is_best, 1.0, z / (1.0 - z))
    w = x / jnp.sum(x)
    T = jnp.sum(x) / y
    w = jnp.where(degenerate, _tied_uniform(tied, mu.dtype), w)
    T = jnp.where(degenerate, jnp.inf, T)
    return w.astype(mu.dtype), T.astype(mu.dtype)
