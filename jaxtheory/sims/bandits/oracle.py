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

_TINY = 1e-12


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
    return x * jnp.log(x / y) + (1.0 - x) * jnp.log((1.0 - x) / (1.0 - y))


def _bisect_increasing(f: Callable, lo, hi, n_iter: int):
    """Root of an increasing (elementwise) function by ``n_iter`` halvings of ``[lo, hi]``."""

    def body(_, bounds):
        a, b = bounds
        mid = 0.5 * (a + b)
        above = f(mid) > 0
        return jnp.where(above, a, mid), jnp.where(above, mid, b)

    a, b = jax.lax.fori_loop(0, n_iter, body, (lo, hi))
    return 0.5 * (a + b)


def _gaps(mu):
    mu = jnp.asarray(mu)
    best = jnp.argmax(mu)
    is_best = jnp.arange(mu.shape[0]) == best
    gaps = mu[best] - mu
    return best, is_best, gaps


def optimal_weights_gaussian(mu, sigma=1.0, n_iter: int = 60):
    """Optimal weights and characteristic time for Gaussian arms (closed form, one bisection).

    With gaps :math:`\\Delta_a = \\mu_1 - \\mu_a` and :math:`u \\in (0, \\Delta_{\\min}^2)`
    solving :math:`\\sum_{a\\ne1} \\big(u / (\\Delta_a^2 - u)\\big)^2 = 1`,

    .. math::
        x_1 = 1,\\quad x_a = \\frac{u}{\\Delta_a^2 - u},\\quad
        w^*_a = \\frac{x_a}{\\sum_b x_b},\\quad T^* = \\frac{2\\sigma^2 \\sum_b x_b}{u}.

    So :math:`(w^*_1)^2 = \\sum_{a \\ne 1} (w^*_a)^2`; for two arms :math:`w^* = (1/2, 1/2)`
    and :math:`T^* = 8\\sigma^2/\\Delta^2`. When the best mean is tied the weights are
    uniform over the tied arms and :math:`T^* = \\infty`.

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
    mu = jnp.asarray(mu)
    best, is_best, gaps = _gaps(mu)
    g2 = jnp.where(is_best, jnp.inf, gaps**2)
    dmin2 = jnp.min(g2)
    degenerate = dmin2 <= _TINY * (1.0 + jnp.max(jnp.abs(mu)) ** 2)
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
    tied = mu >= mu[best]
    w = jnp.where(degenerate, tied / jnp.sum(tied), w)
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
        ``(w, T)`` as in :func:`optimal_weights_gaussian`.

    Example:
        >>> w, T = optimal_weights(jnp.array([0.0, 0.5]), gaussian_kl)
        >>> w.round(4).tolist(), round(float(T), 2)
        ([0.5, 0.5], 32.0)

    References:
        Garivier and Kaufmann (2016), arXiv:1602.04589, Thm 5 and Lemma 3.
    """
    mu = jnp.asarray(mu)
    best, is_best, gaps = _gaps(mu)
    mu1 = mu[best]
    d1a = jnp.where(is_best, jnp.inf, divergence(mu1, mu))
    dmin = jnp.min(d1a)
    degenerate = ~(dmin > _TINY)
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
    tied = mu >= mu1
    w = jnp.where(degenerate, tied / jnp.sum(tied), w)
    T = jnp.where(degenerate, jnp.inf, T)
    return w.astype(mu.dtype), T.astype(mu.dtype)
