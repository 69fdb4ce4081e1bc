"""Candidate sets on :math:`[0,1]^d` and closed-form test functions with known maxima.

Candidate sets are built on the host from the (static) spec: a regular grid
(:math:`g^d` points, :math:`g` per axis, endpoints included) or the first ``n`` points
of an unscrambled Sobol sequence (:class:`scipy.stats.qmc.Sobol`). They enter the
compiled program as constants.

The test functions are written for maximization on the unit cube, mapped to their
usual domains:

* Branin (:math:`d=2`): :math:`-\\big[a(x_2 - bx_1^2 + cx_1 - r)^2 + s(1-t)\\cos x_1 + s\\big]`
  on :math:`[-5,10]\\times[0,15]`, :math:`a=1, b=5.1/(4\\pi^2), c=5/\\pi, r=6, s=10,
  t=1/(8\\pi)`; maximum :math:`-0.397887` at :math:`(\\pi, 2.275)` (and two others).
* Hartmann-3 and Hartmann-6: :math:`\\sum_{i=1}^4 \\alpha_i \\exp(-\\sum_j A_{ij}(x_j -
  P_{ij})^2)` on :math:`[0,1]^d`; maxima 3.86278 and 3.32237.
* Currin exponential (:math:`d=2`): :math:`(1 - e^{-1/(2x_2)})\\,
  \\frac{2300x_1^3 + 1900x_1^2 + 2092x_1 + 60}{100x_1^3 + 500x_1^2 + 4x_1 + 20}` on
  :math:`[0,1]^2` (the first factor is 1 at :math:`x_2 = 0`); maximum 13.798722 at
  :math:`(13/60, 0)`. (The value 13.798650 quoted in some code bases is a numerical
  optimizer's result slightly below the true maximum.)

References:
    Dixon and Szegö (1978), *Towards Global Optimisation 2* (Branin, Hartmann).
    Currin, Mitchell, Morris and Ylvisaker (1991), JASA 86:953.
    Kandasamy et al. (2018), arXiv:1705.09236, constants of ``utils/syn_functions.py``.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

__all__ = ["candidates", "branin", "hartmann3", "hartmann6", "currin", "TEST_FUNCTIONS"]

_H3_A = np.array([[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]])
_H3_P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]])
_H6_A = np.array(
    [
        [10, 3, 17, 3.5, 1.7, 8],
        [0.05, 10, 17, 0.1, 8, 14],
        [3, 3.5, 1.7, 10, 17, 8],
        [17, 8, 0.05, 10, 0.1, 14],
    ]
)
_H6_P = 1e-4 * np.array(
    [
        [1312, 1696, 5569, 124, 8283, 5886],
        [2329, 4135, 8307, 3736, 1004, 9991],
        [2348, 1451, 3522, 2883, 3047, 6650],
        [4047, 8828, 8732, 5743, 1091, 381],
    ]
)
_H_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


def candidates(kind: str, n: int, dim: int) -> np.ndarray:
    """A finite candidate set in :math:`[0,1]^d` (host-side, deterministic).

    Args:
        kind: ``"grid"`` (needs :math:`n = g^d`) or ``"sobol"`` (first ``n`` unscrambled
            Sobol points; a power of two keeps the balance properties).
        n: number of points.
        dim: dimension :math:`d`.

    Returns:
        float64 array of shape ``(n, dim)``.

    Example:
        >>> candidates("grid", 9, 2)[:4].tolist()
        [[0.0, 0.0], [0.0, 0.5], [0.0, 1.0], [0.5, 0.0]]
        >>> candidates("sobol", 4, 2).tolist()
        [[0.0, 0.0], [0.5, 0.5], [0.75, 0.25], [0.25, 0.75]]
    """
    if kind == "grid":
        g = int(round(n ** (1.0 / dim)))
        if g**dim != n:
            raise ValueError(f"a grid of {n} points in dimension {dim} needs n = g**{dim}")
        axis = np.linspace(0.0, 1.0, g)
        mesh = np.meshgrid(*([axis] * dim), indexing="ij")
        return np.stack([m.ravel() for m in mesh], axis=-1)
    if kind == "sobol":
        from scipy.stats import qmc

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # balance warning for n not a power of 2
            return qmc.Sobol(dim, scramble=False).random(n)
    raise ValueError(f"unknown candidate set {kind!r}; expected 'grid' or 'sobol'")


def branin(u):
    """Negated Branin on the unit square (maximize); maximum :math:`-0.397887`.

    Args:
        u: points in :math:`[0,1]^2`, shape ``(..., 2)``; mapped to
            :math:`x_1 = 15u_1 - 5`, :math:`x_2 = 15u_2`.

    Returns:
        Values, shape ``(...)``.

    Example:
        >>> import numpy as np
        >>> round(float(branin(np.array([(np.pi + 5) / 15, 2.275 / 15]))), 6)
        -0.397887
    """
    x1 = 15.0 * u[..., 0] - 5.0
    x2 = 15.0 * u[..., 1]
    b, c, t = 5.1 / (4 * np.pi**2), 5.0 / np.pi, 1.0 / (8 * np.pi)
    return -((x2 - b * x1**2 + c * x1 - 6.0) ** 2 + 10.0 * (1 - t) * jnp.cos(x1) + 10.0)


def _hartmann(u, A, P):
    z = jnp.sum(A * (u[..., None, :] - P) ** 2, axis=-1)
    return jnp.sum(_H_ALPHA * jnp.exp(-z), axis=-1)


def hartmann3(u):
    """Hartmann-3 on :math:`[0,1]^3` (maximize); maximum 3.86278.

    Args:
        u: points, shape ``(..., 3)``.

    Returns:
        Values, shape ``(...)``.

    Example:
        >>> import numpy as np
        >>> round(float(hartmann3(np.array([0.114614, 0.555649, 0.852547]))), 5)
        3.86278
    """
    return _hartmann(u, _H3_A, _H3_P)


def hartmann6(u):
    """Hartmann-6 on :math:`[0,1]^6` (maximize); maximum 3.32237.

    Args:
        u: points, shape ``(..., 6)``.

    Returns:
        Values, shape ``(...)``.

    Example:
        >>> import numpy as np
        >>> x = np.array([0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573])
        >>> round(float(hartmann6(x)), 5)
        3.32237
    """
    return _hartmann(u, _H6_A, _H6_P)


def currin(u):
    """Currin exponential on :math:`[0,1]^2` (maximize); maximum 13.798722 at (13/60, 0).

    Args:
        u: points, shape ``(..., 2)``.

    Returns:
        Values, shape ``(...)``.

    Example:
        >>> import numpy as np
        >>> round(float(currin(np.array([13 / 60, 0.0]))), 6)
        13.798722
    """
    x1, x2 = u[..., 0], u[..., 1]
    pos = x2 > 0
    first = jnp.where(pos, 1.0 - jnp.exp(-1.0 / (2.0 * jnp.where(pos, x2, 1.0))), 1.0)
    num = 2300 * x1**3 + 1900 * x1**2 + 2092 * x1 + 60
    den = 100 * x1**3 + 500 * x1**2 + 4 * x1 + 20
    return first * num / den


#: ``name -> (function, dimension, maximum on the domain, a maximizer in [0,1]^d)``.
TEST_FUNCTIONS = {
    "branin": (branin, 2, -0.397887, ((np.pi + 5) / 15, 2.275 / 15)),
    "hartmann3": (hartmann3, 3, 3.86278, (0.114614, 0.555649, 0.852547)),
    "hartmann6": (hartmann6, 6, 3.32237, (0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573)),
    "currin": (currin, 2, 13.798722, (13 / 60, 0.0)),
}
