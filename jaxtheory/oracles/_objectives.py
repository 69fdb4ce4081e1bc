"""Test objectives with known constants: smooth, generalized-smooth and Lipschitz.

All objectives are separable sums :math:`F(x) = \\sum_i f(x_i)` over the entries of an
array ``x`` of any shape, so a one-dimensional constant carries over to every
dimension: the Hessian is diagonal, :math:`\\lVert\\nabla^2F(x)\\rVert = \\max_i
|f''(x_i)|` and :math:`\\max_i |f'(x_i)| \\le \\lVert\\nabla F(x)\\rVert`, so
:math:`|f''| \\le L_0 + L_1|f'|^\\alpha` gives
:math:`\\lVert\\nabla^2 F\\rVert \\le L_0 + L_1\\lVert\\nabla F\\rVert^\\alpha`, which is
Chen et al.'s :math:`\\alpha`-symmetric generalized smoothness with the same constants.

References:
    Chen, Zhou, Liang, Lu, *Generalized-smooth nonconvex optimization is as efficient
    as smooth nonconvex optimization*, arXiv:2303.02854 (alpha-symmetric smoothness).
    Hashemi, Upadhyay, Fazla, arXiv:2605.15314; Liu, arXiv:2606.00520.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = [
    "Objective",
    "bounded_gradient_nonconvex",
    "cosh_well",
    "cosine_well",
    "huber_distance",
    "l1_distance",
    "quartic_double_well",
]

# Minimizers of the one-dimensional pieces (solved to float64 precision).
_COSINE_ROOT = 1.8954942670339805  # x = 2 sin x
_COSH_ROOT = 2.8384463800483810  # sinh x = 3 x


class Objective(NamedTuple):
    r"""A deterministic objective :math:`F` with its gradient and known constants.

    Attributes:
        value: :math:`F(x)`, a scalar.
        grad: :math:`\nabla F(x)` (a subgradient for nonsmooth :math:`F`).
        f_star: :math:`\inf_x F(x)` for the dimension the objective was made for.
        constants: the known constants, e.g. ``L`` (gradient Lipschitz), ``L0``, ``L1``,
            ``alpha`` (alpha-symmetric generalized smoothness) or ``G`` (l2 Lipschitz
            constant of :math:`F`), as Python floats.
    """

    value: Callable[[jax.Array], jax.Array]
    grad: Callable[[jax.Array], jax.Array]
    f_star: float
    constants: dict


def cosine_well(dim: int) -> Objective:
    r"""L-smooth nonconvex :math:`F(x) = \sum_i \big(x_i^2/2 + 2\cos x_i\big)`.

    :math:`f'' = 1 - 2\cos x \in [-1, 3]`, so :math:`L = 3` (:math:`\alpha = 0`,
    :math:`L_0 = 3`, :math:`L_1 = 0`); minimizers :math:`x_i = \pm 1.89549` (roots of
    :math:`x = 2\sin x`), :math:`F^* = 1.15840\,d`; a local maximum at 0.

    Args:
        dim: the number of entries of ``x``.

    Returns:
        An :class:`Objective`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.oracles import cosine_well
        >>> f = cosine_well(2)
        >>> print(f.grad(jnp.zeros(2)), f.constants["L"])
        [0. 0.] 3.0

    References:
        Hashemi, Upadhyay, Fazla, arXiv:2605.15314 (BG-0 noise); the test function is ours,
        as only the paper's abstract could be read.
    """
    r = _COSINE_ROOT
    return Objective(
        value=lambda x: jnp.sum(0.5 * x**2 + 2.0 * jnp.cos(x)),
        grad=lambda x: x - 2.0 * jnp.sin(x),
        f_star=dim * (0.5 * r**2 + 2.0 * math.cos(r)),
        constants={"L": 3.0, "L0": 3.0, "L1": 0.0, "alpha": 0.0},
    )


def quartic_double_well(dim: int) -> Objective:
    r"""Generalized-smooth nonconvex :math:`F(x) = \sum_i (x_i^4/4 - x_i^2/2)`, :math:`\alpha = 2/3`.

    :math:`f' = x^3 - x`, :math:`f'' = 3x^2 - 1`, and
    :math:`|f''| \le L_0 + L_1 |f'|^{2/3}` with :math:`L_1 = 3` and :math:`L_0 = 2`
    (attained at the minimizers :math:`x = \pm1`, where :math:`f' = 0`); it is not
    L-smooth for any L. :math:`F^* = -d/4`.

    Args:
        dim: the number of entries of ``x``.

    Returns:
        An :class:`Objective`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.oracles import quartic_double_well
        >>> f = quartic_double_well(3)
        >>> print(f.value(jnp.ones(3)), f.f_star)
        -0.75 -0.75

    References:
        Chen, Zhou, Liang, Lu, arXiv:2303.02854 (degree-k polynomials have
        :math:`\alpha = (k-2)/(k-1)`).
    """
    return Objective(
        value=lambda x: jnp.sum(0.25 * x**4 - 0.5 * x**2),
        grad=lambda x: x**3 - x,
        f_star=-0.25 * dim,
        constants={"L0": 2.0, "L1": 3.0, "alpha": 2.0 / 3.0},
    )


def cosh_well(dim: int) -> Objective:
    r"""Exponential-type nonconvex :math:`F(x) = \sum_i (\cosh x_i - 1.5 x_i^2)`, :math:`\alpha = 1`.

    :math:`f' = \sinh x - 3x`, :math:`f'' = \cosh x - 3`, and
    :math:`|f''| \le L_0 + L_1|f'|` with :math:`L_1 = 2`,
    :math:`L_0 = \cosh(2.83845) - 3 \approx 5.5738` (rounded up to 5.58; attained at the
    minimizers :math:`x = \pm 2.83845`, roots of :math:`\sinh x = 3x`).
    :math:`F^* = -3.51131\,d`.

    Args:
        dim: the number of entries of ``x``.

    Returns:
        An :class:`Objective`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.oracles import cosh_well
        >>> f = cosh_well(1)
        >>> print(round(f.f_star, 4), f.constants["alpha"])
        -3.5113 1.0

    References:
        Chen, Zhou, Liang, Lu, arXiv:2303.02854 (:math:`(L_0, L_1)`-smoothness,
        :math:`\alpha = 1`); Hashemi, Upadhyay, Fazla, arXiv:2605.15314.
    """
    r = _COSH_ROOT
    return Objective(
        value=lambda x: jnp.sum(jnp.cosh(x) - 1.5 * x**2),
        grad=lambda x: jnp.sinh(x) - 3.0 * x,
        f_star=dim * (math.cosh(r) - 1.5 * r**2),
        constants={"L0": 5.58, "L1": 2.0, "alpha": 1.0},
    )


def l1_distance(x_star: jax.Array) -> Objective:
    r"""Nonsmooth convex :math:`F(x) = \lVert x - x^\star\rVert_1` on an unbounded domain.

    Subgradient :math:`\operatorname{sign}(x - x^\star)`; :math:`F` is
    :math:`G = \sqrt d`-Lipschitz in :math:`\ell_2` (1-Lipschitz in
    :math:`\ell_1`); :math:`F^* = 0`. Its subgradients are bounded, so
    :math:`\mathbb E F(x_t)` stays finite under noise with only a finite
    :math:`p`-th moment, :math:`p > 1` (a quadratic would not).

    Args:
        x_star: the minimizer (its shape fixes the shape of ``x``).

    Returns:
        An :class:`Objective`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.oracles import l1_distance
        >>> f = l1_distance(jnp.ones(4))
        >>> print(f.value(jnp.zeros(4)), f.constants["G"])
        4.0 2.0

    References:
        Liu, arXiv:2606.00520 (convex Lipschitz case, unbounded domain).
    """
    x_star = jnp.asarray(x_star)
    return Objective(
        value=lambda x: jnp.sum(jnp.abs(x - x_star)),
        grad=lambda x: jnp.sign(x - x_star),
        f_star=0.0,
        constants={"G": float(x_star.size) ** 0.5},
    )


def huber_distance(x_star: jax.Array, delta: float = 1.0) -> Objective:
    r"""Smooth and Lipschitz convex :math:`F(x) = \sum_i h_\delta(x_i - x^\star_i)`.

    :math:`h_\delta(u) = u^2/(2\delta)` for :math:`|u| \le \delta`, else
    :math:`|u| - \delta/2`; gradient :math:`\operatorname{clip}(u/\delta, -1, 1)`, so
    :math:`L = 1/\delta` and :math:`G = \sqrt d`; :math:`F^* = 0`.

    Args:
        x_star: the minimizer.
        delta: the Huber threshold :math:`\delta > 0` (may be traced).

    Returns:
        An :class:`Objective` (``L`` in ``constants`` is ``1/delta``).

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.oracles import huber_distance
        >>> f = huber_distance(jnp.zeros(2), delta=1.0)
        >>> print(f.value(jnp.array([0.5, 3.0])), f.grad(jnp.array([0.5, 3.0])))
        2.625 [0.5 1. ]

    References:
        Liu, arXiv:2606.00520 (convex case).
    """
    x_star = jnp.asarray(x_star)

    def value(x):
        u = jnp.abs(x - x_star)
        return jnp.sum(jnp.where(u <= delta, 0.5 * u**2 / delta, u - 0.5 * delta))

    return Objective(
        value=value,
        grad=lambda x: jnp.clip((x - x_star) / delta, -1.0, 1.0),
        f_star=0.0,
        constants={"L": 1.0 / delta, "G": float(x_star.size) ** 0.5},
    )


def bounded_gradient_nonconvex(dim: int) -> Objective:
    r"""Smooth nonconvex with bounded gradients, :math:`F(x) = \sum_i \big(\tfrac{x_i^2}{1 + x_i^2} + 0.1\cos 3x_i\big)`.

    :math:`|f''| \le 1.1` (attained at 0), so :math:`L = 1.1`; :math:`|f'| \le 0.583`,
    so :math:`\lVert\nabla F\rVert \le 0.583\sqrt d` (:math:`G`); the global minimum is
    at 0 with :math:`F^* = 0.1\,d`, with further local minima near
    :math:`\cos 3x = -1`. Suited to SGD under heavy-tailed noise (function values stay
    integrable).

    Args:
        dim: the number of entries of ``x``.

    Returns:
        An :class:`Objective`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.oracles import bounded_gradient_nonconvex
        >>> f = bounded_gradient_nonconvex(2)
        >>> print(f.value(jnp.zeros(2)), f.f_star)
        0.2 0.2

    References:
        Liu, arXiv:2606.00520 (nonconvex SGD under heavy-tailed noise).
    """
    return Objective(
        value=lambda x: jnp.sum(x**2 / (1.0 + x**2) + 0.1 * jnp.cos(3.0 * x)),
        grad=lambda x: 2.0 * x / (1.0 + x**2) ** 2 - 0.3 * jnp.sin(3.0 * x),
        f_star=0.1 * dim,
        constants={"L": 1.1, "G": 0.583 * dim**0.5},
    )
