"""Saddle-point test families with an exact primal function, exact value and duality gap.

A minimax problem :math:`\\min_x \\max_y f(x, y)` is judged by its primal function
:math:`\\Phi(x) = \\max_y f(x, y)` (nonconvex–concave problems: the target is a small
:math:`\\lVert\\nabla\\Phi(x)\\rVert`) or, when :math:`f` is convex–concave, by the duality
gap :math:`\\Phi(x) - \\Psi(y)` with :math:`\\Psi(y) = \\min_x f(x, y)`. The families here
have both in closed form, so a method's accuracy is exact, never estimated by an inner
solve.

References:
    Zheng, Zhu, So, Blanchet, Li, *Universal Gradient Descent Ascent Method for
    Nonconvex-Nonconcave Minimax Optimization*, arXiv:2212.12978 (DS-GDA).
    Lin, Jin, Jordan, *On Gradient Descent Ascent for Nonconvex-Concave Minimax
    Problems*, arXiv:1906.00331 (:math:`\\nabla\\Phi` as the stationarity measure).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax.numpy as jnp

from jaxtheory.oracles._objectives import Objective

__all__ = ["SaddleProblem", "cosine_ridge", "regularized_bilinear", "quadratic_saddle", "duality_gap"]


class SaddleProblem(NamedTuple):
    """A minimax problem :math:`\\min_x\\max_y f(x, y)` with its exact primal (and dual) function.

    Attributes:
        value: :math:`f(x, y)`.
        grad_x: :math:`\\nabla_x f(x, y)`.
        grad_y: :math:`\\nabla_y f(x, y)`.
        phi: the primal function :math:`\\Phi(x) = \\max_y f(x, y)`, exact.
        grad_phi: :math:`\\nabla\\Phi(x)` (Danskin: :math:`\\nabla_x f(x, y^\\star(x))`).
        best_response: :math:`y^\\star(x) = \\arg\\max_y f(x, y)`.
        psi: the dual function :math:`\\Psi(y) = \\min_x f(x, y)`, or ``None`` where it
            has no closed form (nonconvex :math:`x`).
        saddle: the saddle point ``(x*, y*)``, or ``None`` where none is known.
        constants: known constants as Python floats or arrays (``L``, ``mu``, ``kappa``...).
    """

    value: Callable
    grad_x: Callable
    grad_y: Callable
    phi: Callable
    grad_phi: Callable
    best_response: Callable
    psi: Callable | None
    saddle: tuple | None
    constants: dict


def cosine_ridge(dim: int, curvature: float = 0.1, amplitude: float = 2.0) -> Objective:
    """Nonconvex :math:`g(x) = \\tfrac{a}{2}\\lVert x\\rVert^2 + b\\sum_k \\cos x_k` (``a`` curvature, ``b`` amplitude).

    :math:`g'' = a - b\\cos x \\in [a - b, a + b]`, so :math:`L = a + b` (2.1 at the
    defaults, :math:`g = \\lVert x\\rVert^2/20 + 2\\sum_k\\cos x_k`, the primal part of the
    decentralized-minimax experiment's test family); ``amplitude=0`` is the quadratic
    :math:`\\tfrac a2\\lVert x\\rVert^2`.
    ``f_star`` is :math:`d\\min_t(\\tfrac a2 t^2 + b\\cos t)`, solved on a grid (not needed
    by the saddle families, which use only ``value`` and ``grad``; NaN for ``b < 0``).

    Args:
        dim: the number of entries of ``x``.
        curvature: :math:`a > 0`.
        amplitude: :math:`b \\ge 0`.

    Returns:
        An :class:`~jaxtheory.oracles.Objective` with ``constants`` ``L`` and ``m``
        (the smallest curvature :math:`a - b`, negative when nonconvex).

    Raises:
        ValueError: on ``curvature <= 0`` or ``amplitude < 0``.

    Example:
        >>> import jax.numpy as jnp
        >>> g = cosine_ridge(3)
        >>> print(g.value(jnp.zeros(3)), g.constants["L"])
        6.0 2.1
    """
    import numpy as np

    if not curvature > 0:
        raise ValueError(f"curvature must be positive, got {curvature!r}")
    if not amplitude >= 0:
        raise ValueError(f"amplitude must be non-negative, got {amplitude!r}")
    a, b = float(curvature), float(amplitude)
    t = np.linspace(-np.pi - b / a, np.pi + b / a, 200001)
    f_star = dim * float(np.min(0.5 * a * t**2 + b * np.cos(t)))
    return Objective(
        value=lambda x: 0.5 * a * jnp.sum(x**2) + b * jnp.sum(jnp.cos(x)),
        grad=lambda x: a * x - b * jnp.sin(x),
        f_star=f_star,
        constants={"L": a + b, "m": a - b},
    )


def regularized_bilinear(B, c, mu: float, g: Objective) -> SaddleProblem:
    """:math:`f(x, y) = g(x) + y^\\top(Bx - c) - \\tfrac{\\mu}{2}\\lVert y\\rVert^2`: nonconvex–strongly-concave.

    :math:`f` is :math:`\\mu`-strongly concave (hence :math:`\\mu`-PL) in :math:`y`, with

    .. math::

        y^\\star(x) = (Bx - c)/\\mu, \\qquad
        \\Phi(x) = g(x) + \\frac{\\lVert Bx - c\\rVert^2}{2\\mu}, \\qquad
        \\nabla\\Phi(x) = \\nabla g(x) + B^\\top(Bx - c)/\\mu

    exactly. :math:`f` is linear in :math:`(B, c)`, so the average of agents' problems
    :math:`(B_i, c_i)` is the problem of :math:`(\\bar B, \\bar c)`: the decentralized
    family of the decentralized-minimax experiment. Its smoothness is
    :math:`L = \\max(L_g, \\lVert B\\rVert_2, \\mu)` and :math:`\\kappa = L/\\mu`. Where :math:`g`
    is the quadratic :math:`\\tfrac a2\\lVert x\\rVert^2` (``g.constants["m"] == g.constants["L"]``), the
    dual :math:`\\Psi(y) = -\\lVert B^\\top y\\rVert^2/(2a) - c^\\top y - \\tfrac\\mu2\\lVert y\\rVert^2`
    and the saddle point are exact too.

    Args:
        B: ``(d_y, d_x)`` coupling matrix.
        c: ``(d_y,)`` offset.
        mu: strong concavity :math:`\\mu > 0` (a Python float, or traced).
        g: the primal part, an :class:`~jaxtheory.oracles.Objective` with constant ``L``.

    Returns:
        A :class:`SaddleProblem`.

    Example:
        >>> import jax.numpy as jnp
        >>> p = regularized_bilinear(jnp.eye(2), jnp.ones(2), 0.5, cosine_ridge(2, 1.0, 0.0))
        >>> x = jnp.array([1.0, 3.0])
        >>> print(p.phi(x), p.value(x, p.best_response(x)))
        9.0 9.0
    """
    B = jnp.asarray(B)
    c = jnp.asarray(c)
    if B.ndim != 2 or c.shape != (B.shape[0],):
        raise ValueError(f"B must be (d_y, d_x) and c (d_y,), got {B.shape} and {c.shape}")

    def value(x, y):
        return g.value(x) + y @ (B @ x - c) - 0.5 * mu * y @ y

    def best_response(x):
        return (B @ x - c) / mu

    def phi(x):
        r = B @ x - c
        return g.value(x) + r @ r / (2.0 * mu)

    def grad_phi(x):
        return g.grad(x) + B.T @ (B @ x - c) / mu

    psi = saddle = None
    consts = {"mu": mu, "L_g": g.constants["L"]}
    if g.constants.get("m") == g.constants["L"]:
        a = float(g.constants["L"])

        def psi(y):
            bty = B.T @ y
            return -(bty @ bty) / (2.0 * a) - c @ y - 0.5 * mu * y @ y

        # saddle: a x + Bᵀy = 0 and Bx − c − μy = 0  ⇒  (BBᵀ/a + μI) y = −c
        y_s = jnp.linalg.solve(B @ B.T / a + mu * jnp.eye(B.shape[0], dtype=B.dtype), -c)
        saddle = (-(B.T @ y_s) / a, y_s)
    return SaddleProblem(
        value=value,
        grad_x=lambda x, y: g.grad(x) + B.T @ y,
        grad_y=lambda x, y: B @ x - c - mu * y,
        phi=phi,
        grad_phi=grad_phi,
        best_response=best_response,
        psi=psi,
        saddle=saddle,
        constants=consts,
    )


def quadratic_saddle(A, B, C, a, b) -> SaddleProblem:
    """Strongly-convex–strongly-concave :math:`f = \\tfrac12 x^\\top Ax + x^\\top By - \\tfrac12 y^\\top Cy + a^\\top x - b^\\top y`.

    With :math:`A, C \\succ 0`, both the primal and the dual function are quadratics,

    .. math::

        \\Phi(x) = \\tfrac12 x^\\top Ax + a^\\top x + \\tfrac12 (B^\\top x - b)^\\top C^{-1}(B^\\top x - b),
        \\qquad
        \\Psi(y) = -\\tfrac12 y^\\top Cy - b^\\top y - \\tfrac12 (By + a)^\\top A^{-1}(By + a),

    and the saddle point solves :math:`Ax + By = -a`, :math:`B^\\top x - Cy = b`; the
    duality gap :math:`\\Phi(x) - \\Psi(y)` is zero exactly there.

    Args:
        A: ``(d_x, d_x)`` symmetric positive definite.
        B: ``(d_x, d_y)`` coupling.
        C: ``(d_y, d_y)`` symmetric positive definite.
        a: ``(d_x,)`` linear term in ``x``.
        b: ``(d_y,)`` linear term in ``y``.

    Returns:
        A :class:`SaddleProblem` with ``psi`` and ``saddle``.

    Example:
        >>> import jax.numpy as jnp
        >>> p = quadratic_saddle(jnp.eye(1), jnp.ones((1, 1)), jnp.eye(1), jnp.ones(1), jnp.zeros(1))
        >>> xs, ys = p.saddle
        >>> print(xs, ys, duality_gap(p, xs, ys))
        [-0.5] [-0.5] 0.0
    """
    A, B, C, a, b = (jnp.asarray(v) for v in (A, B, C, a, b))
    dx, dy = B.shape
    if A.shape != (dx, dx) or C.shape != (dy, dy) or a.shape != (dx,) or b.shape != (dy,):
        raise ValueError(
            f"shapes do not fit: A {A.shape}, B {B.shape}, C {C.shape}, a {a.shape}, b {b.shape}"
        )

    def value(x, y):
        return 0.5 * x @ A @ x + x @ B @ y - 0.5 * y @ C @ y + a @ x - b @ y

    def best_response(x):
        return jnp.linalg.solve(C, B.T @ x - b)

    def phi(x):
        r = B.T @ x - b
        return 0.5 * x @ A @ x + a @ x + 0.5 * r @ jnp.linalg.solve(C, r)

    def grad_phi(x):
        return A @ x + a + B @ jnp.linalg.solve(C, B.T @ x - b)

    def psi(y):
        s = B @ y + a
        return -0.5 * y @ C @ y - b @ y - 0.5 * s @ jnp.linalg.solve(A, s)

    K = jnp.block([[A, B], [B.T, -C]])
    sol = jnp.linalg.solve(K, jnp.concatenate([-a, b]))
    return SaddleProblem(
        value=value,
        grad_x=lambda x, y: A @ x + B @ y + a,
        grad_y=lambda x, y: B.T @ x - C @ y - b,
        phi=phi,
        grad_phi=grad_phi,
        best_response=best_response,
        psi=psi,
        saddle=(sol[:dx], sol[dx:]),
        constants={},
    )


def duality_gap(problem: SaddleProblem, x, y):
    """The duality gap :math:`\\Phi(x) - \\Psi(y) \\ge 0`, zero exactly at a saddle point.

    Args:
        problem: a :class:`SaddleProblem` with a closed-form ``psi``.
        x: the min player's point.
        y: the max player's point.

    Returns:
        :math:`\\max_{y'} f(x, y') - \\min_{x'} f(x', y)`, a scalar.

    Raises:
        ValueError: when the problem has no closed-form dual function.

    Example:
        >>> import jax.numpy as jnp
        >>> p = quadratic_saddle(jnp.eye(1), jnp.zeros((1, 1)), jnp.eye(1), jnp.zeros(1), jnp.zeros(1))
        >>> print(duality_gap(p, jnp.ones(1), jnp.ones(1)))
        1.0
    """
    if problem.psi is None:
        raise ValueError("this problem has no closed-form dual function psi: no exact duality gap")
    return problem.phi(x) - problem.psi(y)
