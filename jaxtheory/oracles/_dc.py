"""Difference-of-convex (DC) objectives with closed-form directional derivatives.

A DC problem here is

.. math:: \\min_{x \\in C}\\; h(x) = f(x) + r(x) - g(x),

with :math:`f` smooth and convex (gradient :func:`DCProblem.grad_f`), :math:`r` convex with
a cheap prox (:math:`\\lambda\\lVert x\\rVert_1`, or zero), :math:`g` convex with a
subgradient *selection* (:func:`DCProblem.subgrad_g`) and :math:`C` a closed convex set
(a box, or :math:`\\mathbb R^n`). Each problem carries its directional derivative
:math:`h'(x; d)` in closed form: a one-sided finite difference at :math:`t = 10^{-6}` is
:math:`O(1)` wrong in float32 near :math:`h \\approx -25` (float32 values near 25 are
:math:`1.9\\cdot 10^{-6}` apart, so the quotient's rounding error is about
:math:`1.9\\cdot 10^{-6}/t \\approx 2`),
and the d-stationarity measure is a minimum of such derivatives.

:math:`x^\\star` is *d-stationary* when :math:`h'(x^\\star; y - x^\\star) \\ge 0` for every
:math:`y \\in C`; DCA only guarantees *criticality*, :math:`\\nabla f(x^\\star) +
\\partial r(x^\\star) \\cap \\partial g(x^\\star) \\ne \\emptyset`, which is weaker where
:math:`g` is not differentiable.

References:
    Greenstein & Hallak, *Achieving Directional-Stationarity from a Single Random
    Direction Step*, arXiv:2605.22045. Pang, Razaviyayn & Alvarado, *Computing
    B-stationary points of nonsmooth DC programs*, Math. Oper. Res. 42 (2017). Yin, Lou,
    He & Xin, *Minimization of l1-2 for compressed sensing*, SIAM J. Sci. Comput. 37 (2015).
    Duchi & Ruan, *Solving (most) of a set of quadratic equalities: composite optimization
    for robust phase retrieval*, Inf. Inference 8 (2019).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = [
    "DCProblem",
    "box_direction",
    "ball_direction",
    "l1_directional",
    "l2_directional",
    "dc_toy_l1",
    "dc_sparse_least_squares",
    "robust_phase_retrieval",
    "d_stationarity",
]


class DCProblem(NamedTuple):
    r"""A DC objective :math:`h = f + r - g` on a convex set :math:`C`, with closed forms.

    Attributes:
        value: :math:`h(x)`.
        f: the smooth convex part :math:`f(x)`.
        grad_f: :math:`\nabla f(x)`.
        r: the prox-friendly convex part :math:`r(x)` (zero where there is none).
        g: the subtracted convex part :math:`g(x)`.
        subgrad_g: a selection :math:`\xi(x) \in \partial g(x)` (at a kink the selection
            of the problem's docstring, e.g. :math:`\operatorname{sign}(0) = 0`).
        directional: :math:`h'(x; d)` in closed form.
        project: the Euclidean projection onto :math:`C`.
        sample_direction: ``(key, x) -> d`` with :math:`x + d \in C` and full support on
            :math:`C - x` (so :math:`x + s d \in C` for every :math:`s \in (0, 1]`).
        feasible: ``(x, d) -> bool``: whether :math:`x + t d \in C` for small :math:`t > 0`.
        linearized_argmin: ``(xi, center, rho) ->`` an approximate minimiser over
            :math:`C` of :math:`f(x) + r(x) - \langle \xi, x\rangle +
            \tfrac\rho2\lVert x - \text{center}\rVert^2` (the proximal DCA subproblem),
            never worse in that objective than ``center`` (``None`` where the problem's
            base map is not DCA).
        base_map: ``(x, rho) -> x_{1/2}``: the base method's step (proximal DCA,
            ``linearized_argmin(subgrad_g(x), x, rho)``, or prox-linear).
        descent: ``rho -> c``: the constant of the base map's descent inequality
            :math:`h(x_{1/2}) \le h(x) - c\lVert x_{1/2} - x\rVert^2` (a Python float, or
            a scalar array where it depends on the data).
        inf_value: a lower bound on :math:`\inf_C h` (Python float).
        inner_steps: inner iterations one base step costs (0 for a closed form).
    """

    value: Callable
    f: Callable
    grad_f: Callable
    r: Callable
    g: Callable
    subgrad_g: Callable
    directional: Callable
    project: Callable
    sample_direction: Callable
    feasible: Callable
    linearized_argmin: Callable | None
    base_map: Callable
    descent: Callable
    inf_value: float
    inner_steps: int


def l1_directional(x: jax.Array, d: jax.Array) -> jax.Array:
    r"""The directional derivative of :math:`\lVert x\rVert_1` along :math:`d`.

    .. math:: \sum_{x_i \ne 0} \operatorname{sign}(x_i)\, d_i + \sum_{x_i = 0} |d_i|.

    Args:
        x: the point.
        d: the direction.

    Returns:
        A scalar.

    Example:
        >>> import jax.numpy as jnp
        >>> float(l1_directional(jnp.array([0.0, 2.0]), jnp.array([-1.0, -1.0])))
        0.0
    """
    return jnp.sum(jnp.where(x != 0, jnp.sign(x) * d, jnp.abs(d)))


def l2_directional(x: jax.Array, d: jax.Array) -> jax.Array:
    r"""The directional derivative of :math:`\lVert x\rVert_2` along :math:`d`.

    .. math:: \langle x, d\rangle / \lVert x\rVert_2 \ (x \ne 0), \qquad \lVert d\rVert_2 \ (x = 0).

    Args:
        x: the point.
        d: the direction.

    Returns:
        A scalar.

    Example:
        >>> import jax.numpy as jnp
        >>> float(l2_directional(jnp.zeros(2), jnp.array([3.0, 4.0])))
        5.0
    """
    nx = jnp.sqrt(jnp.sum(x * x))
    safe = jnp.where(nx > 0, nx, 1.0)
    return jnp.where(nx > 0, jnp.sum(x * d) / safe, jnp.sqrt(jnp.sum(d * d)))


def box_direction(low: float, high: float) -> Callable:
    r"""A feasible-direction sampler on the box :math:`[\text{low}, \text{high}]^n`.

    Draws :math:`y` uniformly on the box and returns :math:`d = y - x`: full support on
    :math:`C - x`, and :math:`x + s d \in C` for :math:`s \in [0, 1]` by convexity.

    Args:
        low: lower end of every coordinate.
        high: upper end.

    Returns:
        ``sample(key, x) -> d``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> d = box_direction(-2.0, 2.0)(jax.random.key(0), jnp.zeros(3))
        >>> bool(jnp.all(jnp.abs(d) <= 2.0))
        True
    """
    if not low < high:
        raise ValueError(f"box_direction needs low < high, got {low}, {high}")

    def sample(key, x):
        y = jax.random.uniform(key, jnp.shape(x), jnp.result_type(x), low, high)
        return y - x

    return sample


def ball_direction(radius: float) -> Callable:
    r"""A direction sampler for :math:`C = \mathbb R^n`: :math:`d` uniform in the ball of ``radius``.

    Args:
        radius: the ball's radius :math:`R > 0` (may be traced).

    Returns:
        ``sample(key, x) -> d``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> d = ball_direction(1.0)(jax.random.key(0), jnp.zeros(5))
        >>> bool(jnp.linalg.norm(d) <= 1.0)
        True
    """
    if isinstance(radius, (int, float)) and not radius > 0:
        raise ValueError(f"ball_direction needs radius > 0, got {radius}")

    def sample(key, x):
        ku, kr = jax.random.split(key)
        n = jnp.size(x)
        u = jax.random.normal(ku, jnp.shape(x), jnp.result_type(x))
        u = u / jnp.sqrt(jnp.sum(u * u))
        rad = radius * jax.random.uniform(kr, (), jnp.result_type(x)) ** (1.0 / n)
        return rad * u

    return sample


def dc_toy_l1(dim: int, box: float = 2.0) -> DCProblem:
    r"""The toy :math:`h(x) = \tfrac12\lVert x\rVert^2 - \lVert x\rVert_1` on :math:`[-b, b]^n`.

    :math:`f = \tfrac12\lVert x\rVert^2` (1-strongly convex), :math:`r = 0`,
    :math:`g = \lVert x\rVert_1` with the selection :math:`\xi = \operatorname{sign}(x)`,
    :math:`\operatorname{sign}(0) = 0`. DCA from a point with zero coordinates is
    :math:`x_{1/2} = \operatorname{sign}(x)`: it keeps the zero set and stops at a
    critical point with :math:`h = -(\#\text{nonzeros})/2` that is not d-stationary
    (:math:`h'(x; \pm e_i) = -1` on a zero coordinate). The global minimum is
    :math:`-n/2`, at every :math:`x \in \{\pm1\}^n`, where :math:`h'(x; \cdot) \equiv 0`.

    .. math::
        h'(x; d) = \langle x, d\rangle - \sum_{x_i \ne 0}\operatorname{sign}(x_i) d_i
        - \sum_{x_i = 0} |d_i| .

    The proximal DCA subproblem has the closed form
    :math:`\operatorname{clip}\big((\xi + \rho c)/(1 + \rho), -b, b\big)`, so with
    :math:`\rho = 0` the base map is exactly :math:`\operatorname{sign}(x)` (in floats too).

    Args:
        dim: the dimension :math:`n`.
        box: the half-width :math:`b \ge 1` of the box (the minimisers :math:`\pm1` lie in it).

    Returns:
        A :class:`DCProblem` (``descent(rho) = 1/2 + rho``, ``inf_value = -dim/2``).

    Example:
        >>> import jax.numpy as jnp
        >>> p = dc_toy_l1(4)
        >>> x = jnp.array([0.0, 0.3, -2.0, 0.0])
        >>> xh = p.linearized_argmin(p.subgrad_g(x), x, 0.0)
        >>> xh.tolist(), float(p.value(xh)), float(p.directional(xh, jnp.array([1.0, 0, 0, 0])))
        ([0.0, 1.0, -1.0, 0.0], -1.0, -1.0)
    """
    if not isinstance(dim, int) or dim < 1:
        raise ValueError(f"dim must be a positive int, got {dim!r}")
    if not box >= 1.0:
        raise ValueError(f"box must be >= 1 so that the minimisers ±1 are feasible, got {box}")
    b = float(box)

    def f(x):
        return 0.5 * jnp.sum(x * x)

    def g(x):
        return jnp.sum(jnp.abs(x))

    def value(x):
        return jnp.sum(0.5 * x * x - jnp.abs(x))

    def directional(x, d):
        # one sum of per-coordinate terms: at x_i = sign(x_i) each term is exactly 0
        return jnp.sum(x * d - jnp.where(x != 0, jnp.sign(x) * d, jnp.abs(d)))

    def feasible(x, d):
        return jnp.all(((x < b) | (d <= 0)) & ((x > -b) | (d >= 0)))

    def linearized_argmin(xi, center, rho):
        return jnp.clip((xi + rho * center) / (1.0 + rho), -b, b)

    return DCProblem(
        value=value,
        f=f,
        grad_f=lambda x: x,
        r=lambda x: jnp.zeros((), jnp.result_type(x)),
        g=g,
        subgrad_g=jnp.sign,
        directional=directional,
        project=lambda x: jnp.clip(x, -b, b),
        sample_direction=box_direction(-b, b),
        feasible=feasible,
        linearized_argmin=linearized_argmin,
        base_map=lambda x, rho: linearized_argmin(jnp.sign(x), x, rho),
        descent=lambda rho: 0.5 + float(rho),
        inf_value=-dim / 2.0,
        inner_steps=0,
    )


def dc_sparse_least_squares(
    A: jax.Array, b: jax.Array, lam, *, inner_steps: int = 20, radius=1.0
) -> DCProblem:
    r"""DC-sparse least squares :math:`\tfrac12\lVert Ax - b\rVert^2 + \lambda(\lVert x\rVert_1 - \lVert x\rVert_2)` on :math:`\mathbb R^n`.

    :math:`f = \tfrac12\lVert Ax - b\rVert^2`, :math:`r = \lambda\lVert x\rVert_1`,
    :math:`g = \lambda\lVert x\rVert_2` with the selection :math:`\xi = \lambda x/\lVert
    x\rVert` (:math:`0` at :math:`x = 0`). Since :math:`\lVert x\rVert_1 \ge
    \lVert x\rVert_2`, :math:`h \ge 0`. The closed-form directional derivative is

    .. math::
        h'(x; d) = \langle A^\top(Ax - b), d\rangle + \lambda\,\ell_1'(x; d)
        - \lambda\,\ell_2'(x; d)

    (:func:`l1_directional`, :func:`l2_directional`). :math:`g` is differentiable away
    from :math:`0`, so DCA's critical points other than :math:`0` are d-stationary.

    The proximal DCA subproblem is solved by ``inner_steps`` FISTA steps (step
    :math:`1/(\lVert A\rVert_2^2 + \rho)`, soft-thresholding) warm-started at the centre,
    returning the iterate with the smallest subproblem objective seen (the centre
    included). That objective is then no larger than at the centre, which with the
    convexity of :math:`g` gives the descent inequality with
    :math:`c = \rho/2` (``descent``), however few the inner steps.

    Args:
        A: the ``(m, n)`` design.
        b: the ``(m,)`` observations.
        lam: :math:`\lambda > 0` (may be traced).
        inner_steps: FISTA steps per subproblem (static).
        radius: radius of the exploration ball (:func:`ball_direction`).

    Returns:
        A :class:`DCProblem` (``inf_value = 0``).

    Example:
        >>> import jax.numpy as jnp
        >>> p = dc_sparse_least_squares(jnp.eye(2), jnp.array([1.0, 0.0]), 0.1)
        >>> float(p.value(jnp.array([1.0, 0.0])))
        0.0
    """
    A = jnp.asarray(A)
    b = jnp.asarray(b)
    if A.ndim != 2 or b.shape != (A.shape[0],):
        raise ValueError(f"A must be (m, n) and b (m,), got {A.shape} and {b.shape}")
    if not isinstance(inner_steps, int) or inner_steps < 1:
        raise ValueError(f"inner_steps must be a positive int, got {inner_steps!r}")
    L_A = jnp.linalg.svd(A, compute_uv=False)[0] ** 2

    def f(x):
        res = A @ x - b
        return 0.5 * jnp.sum(res * res)

    def grad_f(x):
        return A.T @ (A @ x - b)

    def r(x):
        return lam * jnp.sum(jnp.abs(x))

    def g(x):
        return lam * jnp.sqrt(jnp.sum(x * x))

    def value(x):
        return f(x) + lam * (jnp.sum(jnp.abs(x)) - jnp.sqrt(jnp.sum(x * x)))

    def subgrad_g(x):
        nx = jnp.sqrt(jnp.sum(x * x))
        return jnp.where(nx > 0, lam * x / jnp.where(nx > 0, nx, 1.0), 0.0)

    def directional(x, d):
        return jnp.sum(grad_f(x) * d) + lam * (l1_directional(x, d) - l2_directional(x, d))

    def linearized_argmin(xi, center, rho):
        step = 1.0 / (L_A + rho)

        def sub(x, res):  # the subproblem objective, given the residual Ax - b
            dx = x - center
            return 0.5 * jnp.sum(res * res) - jnp.sum(xi * x) + 0.5 * rho * jnp.sum(dx * dx) + r(x)

        # FISTA carrying residuals: A y = A x_new + beta (A x_new - A x), one A and one A^T per step
        def body(carry, _):
            x, res_x, y, res_y, t, best, best_val = carry
            gy = A.T @ res_y - xi + rho * (y - center)
            v = y - step * gy
            x_new = jnp.sign(v) * jnp.maximum(jnp.abs(v) - step * lam, 0.0)
            res_new = A @ x_new - b
            t_new = 0.5 * (1.0 + jnp.sqrt(1.0 + 4.0 * t * t))
            beta = (t - 1.0) / t_new
            y_new = x_new + beta * (x_new - x)
            res_y_new = res_new + beta * (res_new - res_x)
            val = sub(x_new, res_new)
            better = val < best_val
            best = jnp.where(better, x_new, best)
            best_val = jnp.where(better, val, best_val)
            return (x_new, res_new, y_new, res_y_new, t_new, best, best_val), None

        one = jnp.ones((), jnp.result_type(center))
        res_c = A @ center - b
        init = (center, res_c, center, res_c, one, center, sub(center, res_c))
        (*_, best, _), _ = jax.lax.scan(body, init, None, length=inner_steps)
        return best

    return DCProblem(
        value=value,
        f=f,
        grad_f=grad_f,
        r=r,
        g=g,
        subgrad_g=subgrad_g,
        directional=directional,
        project=lambda x: x,
        sample_direction=ball_direction(radius),
        feasible=lambda x, d: jnp.array(True),
        linearized_argmin=linearized_argmin,
        base_map=lambda x, rho: linearized_argmin(subgrad_g(x), x, rho),
        descent=lambda rho: 0.5 * float(rho),
        inf_value=0.0,
        inner_steps=inner_steps,
    )


def robust_phase_retrieval(A: jax.Array, b: jax.Array, *, inner_steps: int = 20, radius=1.0) -> DCProblem:
    r"""Robust phase retrieval :math:`h(x) = \tfrac1m\sum_i |\langle a_i, x\rangle^2 - b_i|` on :math:`\mathbb R^n`, with prox-linear.

    With :math:`q_i(x) = \langle a_i, x\rangle^2 - b_i`, :math:`|q| = 2\max(q, 0) - q` is a
    DC split: :math:`f = 0`, :math:`r = \tfrac2m\sum_i \max(q_i, 0)` and
    :math:`g = \tfrac1m\sum_i q_i` (both convex, :math:`g` smooth). The base map is
    prox-linear (Duchi & Ruan), not DCA:

    .. math::
        x_{1/2} = x + \operatorname*{arg\,min}_\Delta\; \tfrac1m\lVert q(x) + J\Delta\rVert_1
        + \tfrac\kappa2\lVert\Delta\rVert^2, \qquad J = 2\operatorname{diag}(Ax)A,\;
        \kappa = 4\beta + \rho,\; \beta = \lVert A\rVert_2^2/m,

    solved by ``inner_steps`` FISTA steps on the dual
    :math:`\max_{\lVert u\rVert_\infty \le 1/m} \langle u, q\rangle - \lVert J^\top u\rVert^2/(2\kappa)`,
    :math:`\Delta = -J^\top u/\kappa` (step :math:`\kappa/(1.5\lVert J\rVert^2)`, the norm from
    12 power iterations), returning the primal iterate with the smallest model
    value seen (:math:`\Delta = 0` included). Since :math:`q(x + \Delta) = q + J\Delta +
    (A\Delta)^2`, :math:`h \le \text{model} + \beta\lVert\Delta\rVert^2`, so each step
    satisfies the descent inequality with :math:`c = \kappa/2 - \beta = \beta + \rho/2`
    however few the inner steps. The closed-form directional derivative is

    .. math::
        h'(x; d) = \tfrac1m\sum_{q_i \ne 0} \operatorname{sign}(q_i)\, q_i'
        + \tfrac1m\sum_{q_i = 0} |q_i'|, \qquad q_i' = 2\langle a_i, x\rangle\langle a_i, d\rangle .

    Args:
        A: the ``(m, n)`` measurement vectors :math:`a_i` as rows.
        b: the ``(m,)`` measurements (some may be outliers).
        inner_steps: dual FISTA steps per prox-linear step (static).
        radius: radius of the exploration ball (:func:`ball_direction`).

    Returns:
        A :class:`DCProblem` (``inf_value = 0``; ``linearized_argmin`` is ``None``).

    Example:
        >>> import jax.numpy as jnp
        >>> p = robust_phase_retrieval(jnp.eye(2), jnp.array([1.0, 4.0]))
        >>> float(p.value(jnp.array([1.0, -2.0]))), float(p.directional(jnp.array([1.0, 0.0]), jnp.array([1.0, 0.0])))
        (0.0, 1.0)
    """
    A = jnp.asarray(A)
    b = jnp.asarray(b)
    if A.ndim != 2 or b.shape != (A.shape[0],):
        raise ValueError(f"A must be (m, n) and b (m,), got {A.shape} and {b.shape}")
    if not isinstance(inner_steps, int) or inner_steps < 1:
        raise ValueError(f"inner_steps must be a positive int, got {inner_steps!r}")
    m = A.shape[0]
    norm_A = jnp.linalg.svd(A, compute_uv=False)[0]
    beta = norm_A**2 / m

    def q(x):
        ax = A @ x
        return ax * ax - b

    def value(x):
        return jnp.mean(jnp.abs(q(x)))

    def directional(x, d):
        qx = q(x)
        dq = 2.0 * (A @ x) * (A @ d)
        return jnp.mean(jnp.where(qx != 0, jnp.sign(qx) * dq, jnp.abs(dq)))

    def base_map(x, rho):
        kappa = 4.0 * beta + rho
        ax = A @ x
        qx = ax * ax - b

        # ||J||^2 by power iteration on J^T J (12 steps, from a fixed start), with a 1.5 safety
        # factor: a step kappa / (1.5 ||J||^2) for the dual; too large a step could only slow it,
        # never break the descent, since the best primal iterate (Delta = 0 included) is kept
        def power(v, _):
            w = 2.0 * (A.T @ (ax * ax * (A @ v))) * 2.0
            return w / jnp.maximum(jnp.sqrt(jnp.sum(w * w)), 1e-30), jnp.sqrt(jnp.sum(w * w))

        v0 = jnp.ones_like(x) / jnp.sqrt(jnp.float32(x.shape[-1]))
        _, norms = jax.lax.scan(power, v0, None, length=12)
        step = kappa / jnp.maximum(1.5 * norms[-1], 1e-30)

        def primal(delta):
            model = qx + 2.0 * ax * (A @ delta)
            return jnp.mean(jnp.abs(model)) + 0.5 * kappa * jnp.sum(delta * delta)

        def jt(u):
            return 2.0 * (A.T @ (ax * u))

        def body(carry, _):
            u, v, t, best, best_val = carry
            grad = qx - 2.0 * ax * (A @ jt(v)) / kappa  # ascent direction of the dual at v
            u_new = jnp.clip(v + step * grad, -1.0 / m, 1.0 / m)
            t_new = 0.5 * (1.0 + jnp.sqrt(1.0 + 4.0 * t * t))
            v_new = u_new + ((t - 1.0) / t_new) * (u_new - u)
            delta = -jt(u_new) / kappa
            val = primal(delta)
            better = val < best_val
            best = jnp.where(better, delta, best)
            best_val = jnp.where(better, val, best_val)
            return (u_new, v_new, t_new, best, best_val), None

        zero_u = jnp.zeros_like(b)
        zero_x = jnp.zeros_like(x)
        one = jnp.ones((), jnp.result_type(x))
        init = (zero_u, zero_u, one, zero_x, primal(zero_x))
        (*_, best, _), _ = jax.lax.scan(body, init, None, length=inner_steps)
        return x + best

    def r(x):
        return 2.0 * jnp.mean(jnp.maximum(q(x), 0.0))

    def g(x):
        return jnp.mean(q(x))

    return DCProblem(
        value=value,
        f=lambda x: jnp.zeros((), jnp.result_type(x)),
        grad_f=jnp.zeros_like,
        r=r,
        g=g,
        subgrad_g=lambda x: 2.0 * (A.T @ (A @ x)) / m,
        directional=directional,
        project=lambda x: x,
        sample_direction=ball_direction(radius),
        feasible=lambda x, d: jnp.array(True),
        linearized_argmin=None,
        base_map=base_map,
        descent=lambda rho: beta + 0.5 * rho,
        inf_value=0.0,
        inner_steps=inner_steps,
    )


def d_stationarity(problem: DCProblem, x: jax.Array, key: jax.Array, num: int = 256) -> jax.Array:
    r"""The d-stationarity measure :math:`\psi(x) = \min_{d} h'(x; d/\lVert d\rVert)` over feasible directions.

    The minimum runs over the coordinate directions :math:`\pm e_i` that are feasible at
    :math:`x` and ``num`` directions drawn by ``problem.sample_direction`` (normalised),
    with the closed-form :math:`h'` (:attr:`DCProblem.directional`). :math:`\psi(x) < 0`
    certifies that :math:`x` is not d-stationary; :math:`\psi \ge 0` over the samples is
    evidence that it is. On the toy the coordinate directions alone decide it: a zero
    coordinate gives :math:`h'(x; e_i) = -1`.

    Args:
        problem: a :class:`DCProblem`.
        x: the point, a vector.
        key: PRNG key of the sampled directions.
        num: how many sampled directions (static).

    Returns:
        A scalar.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> p = dc_toy_l1(3)
        >>> float(d_stationarity(p, jnp.array([1.0, -1.0, 0.0]), jax.random.key(0), num=8))
        -1.0
    """
    n = x.shape[-1]
    eye = jnp.eye(n, dtype=x.dtype)
    coords = jnp.concatenate([eye, -eye])
    sampled = jax.vmap(problem.sample_direction, in_axes=(0, None))(jax.random.split(key, num), x)
    norms = jnp.sqrt(jnp.sum(sampled * sampled, axis=-1, keepdims=True))
    sampled = sampled / jnp.where(norms > 0, norms, 1.0)
    dirs = jnp.concatenate([coords, sampled])
    ok = jax.vmap(problem.feasible, in_axes=(None, 0))(x, dirs) & (jnp.sum(dirs * dirs, axis=-1) > 0)
    vals = jax.vmap(problem.directional, in_axes=(None, 0))(x, dirs)
    return jnp.min(jnp.where(ok, vals, jnp.inf))
