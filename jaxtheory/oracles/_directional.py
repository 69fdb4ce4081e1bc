"""Directional derivatives of a scalar function: the oracle of zeroth-order methods.

A zeroth-order method sees only function values; its building block is the directional
derivative :math:`D_u f(x) = \\langle \\nabla f(x), u\\rangle`, estimated by a finite
difference from one or two extra evaluations. ``mode="jvp"`` computes it exactly by
forward-mode differentiation (one JVP): tests use it to separate the estimator's
statistics from finite-difference bias, which in float32 is of order
:math:`\\sqrt{\\varepsilon_{32}}` at the best :math:`\\mu`.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

__all__ = ["DIRECTIONAL_MODES", "directional_derivative", "directional_evals"]

#: The modes of :func:`directional_derivative`.
DIRECTIONAL_MODES = ("fd", "central", "jvp")


def _axpy(a, x, y):
    return jax.tree.map(lambda xi, yi: yi + a * xi, x, y)


def directional_evals(mode: str) -> int:
    """Function evaluations :func:`directional_derivative` spends in ``mode``.

    ``"fd"`` costs one evaluation beyond :math:`f(x)` (which the caller usually already
    has, as the ``value`` extra), ``"central"`` two, and ``"jvp"`` one forward-mode pass,
    counted as one evaluation.

    Args:
        mode: one of :data:`DIRECTIONAL_MODES`.

    Returns:
        The number of evaluations of ``f`` (not counting :math:`f(x)` for ``"fd"``).
    """
    if mode not in DIRECTIONAL_MODES:
        raise ValueError(f"mode must be one of {DIRECTIONAL_MODES}, got {mode!r}")
    return 2 if mode == "central" else 1


def directional_derivative(
    f: Callable,
    x,
    u,
    mu=1e-4,
    mode: str = "fd",
    fx=None,
) -> jax.Array:
    """The derivative of ``f`` at ``x`` along ``u``, exactly or by a finite difference.

    .. math::
        \\texttt{fd}: \\frac{f(x + \\mu u) - f(x)}{\\mu},\\qquad
        \\texttt{central}: \\frac{f(x + \\mu u) - f(x - \\mu u)}{2\\mu},\\qquad
        \\texttt{jvp}: \\langle \\nabla f(x), u\\rangle.

    Args:
        f: a scalar function of a pytree ``x``.
        x: the point (a pytree).
        u: the direction, a pytree of ``x``'s structure (not normalised here).
        mu: the finite-difference step (ignored by ``"jvp"``); may be traced.
        mode: ``"fd"`` (forward difference), ``"central"`` or ``"jvp"`` (exact).
        fx: ``f(x)`` when the caller has it (``"fd"`` then costs one evaluation).

    Returns:
        A scalar array.

    Example:
        >>> import jax.numpy as jnp
        >>> f = lambda x: 0.5 * jnp.sum(x**2)
        >>> float(directional_derivative(f, jnp.ones(3), jnp.array([1.0, 0.0, 2.0]), mode="jvp"))
        3.0
    """
    if mode not in DIRECTIONAL_MODES:
        raise ValueError(f"mode must be one of {DIRECTIONAL_MODES}, got {mode!r}")
    if jax.tree.structure(x) != jax.tree.structure(u):
        raise ValueError("the direction u must have the structure of x")
    if mode == "jvp":
        tangent = jax.tree.map(lambda ui, xi: jnp.asarray(ui, jnp.result_type(xi)), u, x)
        return jax.jvp(f, (x,), (tangent,))[1]
    if mode == "central":
        return (f(_axpy(mu, u, x)) - f(_axpy(-mu, u, x))) / (2 * mu)
    f0 = f(x) if fx is None else fx
    return (f(_axpy(mu, u, x)) - f0) / mu
