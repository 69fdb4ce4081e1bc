"""Normalized first-order methods: NSGD with momentum and normalized STORM.

Both methods move by exactly the learning rate per step (globally, or per leaf with
``per_leaf=True``), which is what makes them robust to gradient noise whose variance
grows with the distance from the start (Blum--Gladyshev BG-0 noise): after ``t`` steps
``||x_t - x_0|| <= sum_{s<t} eta_s`` deterministically.

References:
    Hashemi, Upadhyay, Fazla, *Beyond Bounded Variance: Variance-Reduced Normalized
    Methods for Nonconvex Optimization under Blum-Gladyshev Noise*, arXiv:2605.15314.
    Cutkosky and Mehta, *Momentum Improves Normalized SGD*, arXiv:2002.03305.
    Cutkosky and Orabona, *Momentum-Based Variance Reduction in Non-Convex SGD*,
    arXiv:1905.10018.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params

__all__ = [
    "NormalizedMomentumState",
    "NormalizedStormState",
    "normalized_sgd_momentum",
    "normalized_storm",
    "two_point_grad",
]

ScalarOrSchedule = float | jax.Array | Callable[[jax.Array], jax.Array]


def _value_at(hparam: ScalarOrSchedule, count: jax.Array) -> jax.Array:
    """Evaluates a scalar-or-schedule hyperparameter at the step ``count``."""
    # ``callable`` is a check on the Python type, never on a (possibly traced) value.
    return hparam(count) if callable(hparam) else hparam


def _sq_norm(x: jax.Array) -> jax.Array:
    """Squared l2 norm of one leaf (``sum |x_i|^2``), accumulated in at least float32."""
    if jnp.iscomplexobj(x):
        acc = jnp.promote_types(jnp.finfo(x.dtype).dtype, jnp.float32)
        return jnp.sum(jnp.square(x.real.astype(acc)) + jnp.square(x.imag.astype(acc)))
    acc = jnp.promote_types(x.dtype, jnp.float32)
    return jnp.sum(jnp.square(x.astype(acc)))


def _normalized_step(direction: Any, lr: jax.Array, per_leaf: bool) -> Any:
    """Returns ``-lr * direction / ||direction||`` (zero where the norm is zero).

    The norm is the global l2 norm over all leaves, or the l2 norm of each leaf when
    ``per_leaf`` is true. Each output leaf keeps its input dtype.
    """

    def scale(x: jax.Array, sq: jax.Array) -> jax.Array:
        # sqrt(0) guarded: a zero direction gives a zero step, never NaN.
        positive = sq > 0
        inv = jnp.where(positive, jax.lax.rsqrt(jnp.where(positive, sq, 1.0)), 0.0)
        if jnp.iscomplexobj(x):  # a real scale of the complex leaf
            return (-lr * inv * x.astype(jnp.promote_types(x.dtype, sq.dtype))).astype(x.dtype)
        return (-lr * inv * x.astype(sq.dtype)).astype(x.dtype)

    if per_leaf:
        return jax.tree.map(lambda x: scale(x, _sq_norm(x)), direction)
    leaves = jax.tree.leaves(direction)
    total = sum((_sq_norm(x) for x in leaves), jnp.zeros((), jnp.float32))
    return jax.tree.map(lambda x: scale(x, total), direction)


class NormalizedMomentumState(NamedTuple):
    """State of :func:`normalized_sgd_momentum`.

    Attributes:
        count: number of updates applied so far (int32).
        momentum: the exponential moving average :math:`m_{t-1}` of the gradients.
    """

    count: jax.Array
    momentum: optax.Updates


def normalized_sgd_momentum(
    learning_rate: ScalarOrSchedule,
    beta: ScalarOrSchedule = 0.9,
    *,
    per_leaf: bool = False,
) -> optax.GradientTransformationExtraArgs:
    r"""Normalized SGD with EMA momentum (NSGD-M): a step of exactly ``learning_rate``.

    With :math:`g_t` the stochastic gradient at step :math:`t`,

    .. math::

        m_0 = g_0, \qquad m_t = \beta_t m_{t-1} + (1 - \beta_t) g_t \quad (t \ge 1),
        \qquad x_{t+1} = x_t - \eta_t \frac{m_t}{\lVert m_t \rVert},

    with the step set to zero when :math:`m_t = 0`. The norm is the l2 norm over the
    whole parameter pytree (default) or over each leaf (``per_leaf=True``, each leaf then
    moves by exactly :math:`\eta_t`). Under BG-0 noise the paper's rate
    :math:`O(T^{-1/6})` for the mean gradient norm comes from the horizon-dependent
    schedule :math:`\eta = \eta_0 T^{-5/6}`, :math:`\beta = 1 - T^{-2/3}`; with bounded
    variance the classic :math:`\eta = \eta_0 T^{-3/4}`, :math:`\beta = 1 - T^{-1/2}`
    gives :math:`O(T^{-1/4})`.

    **Params.** any pytree of arrays of any shapes (scalars, size-0 and ``None`` leaves
    included) in float16, bfloat16, float32 or float64, or complex: with optax's
    convention (``updates`` the conjugate gradient) the norm is :math:`\sum_i |z_i|^2`
    and the step equals the one on the real and imaginary parts. ``update`` ignores
    unknown keyword arguments, as optax's optimizers do.

    Args:
        learning_rate: step length :math:`\eta_t`, a scalar (may be traced) or a
            schedule of the step count.
        beta: momentum :math:`\beta_t \in [0, 1)`, a scalar (may be traced) or a
            schedule of the step count. ``beta=0`` is plain normalized SGD.
        per_leaf: normalize each leaf separately instead of the whole pytree.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` whose state is a
        :class:`NormalizedMomentumState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import normalized_sgd_momentum
        >>> opt = normalized_sgd_momentum(learning_rate=0.5, beta=0.5)
        >>> params = jnp.array([3.0, 4.0])
        >>> state = opt.init(params)
        >>> updates, state = opt.update(2.0 * params, state)
        >>> print(updates)
        [-0.3 -0.4]
        >>> print(optax.apply_updates(params, updates))
        [2.7 3.6]

    References:
        Hashemi, Upadhyay, Fazla, arXiv:2605.15314 (BG-0 analysis);
        Cutkosky and Mehta, arXiv:2002.03305 (NSGD-M).
    """

    def init_fn(params: optax.Params) -> NormalizedMomentumState:
        check_float_params(params, "normalized_sgd_momentum", complex_ok=True)
        return NormalizedMomentumState(
            count=jnp.zeros([], jnp.int32),
            momentum=jax.tree.map(jnp.zeros_like, params),
        )

    def update_fn(updates, state, params=None, **extra_args):
        del params, extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        count = state.count
        lr = _value_at(learning_rate, count)
        # m_0 = g_0: the first step uses an effective momentum of zero.
        b = jnp.where(count == 0, 0.0, _value_at(beta, count))
        momentum = jax.tree.map(lambda m, g: (b * m + (1.0 - b) * g).astype(m.dtype), state.momentum, updates)
        new_updates = _normalized_step(momentum, lr, per_leaf)
        return new_updates, NormalizedMomentumState(count=optax.safe_increment(count), momentum=momentum)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


class NormalizedStormState(NamedTuple):
    """State of :func:`normalized_storm`.

    Attributes:
        count: number of updates applied so far (int32).
        estimate: the recursive-momentum gradient estimate :math:`d_{t-1}`.
    """

    count: jax.Array
    estimate: optax.Updates


def normalized_storm(
    learning_rate: ScalarOrSchedule,
    a: ScalarOrSchedule = 0.1,
    *,
    per_leaf: bool = False,
) -> optax.GradientTransformationExtraArgs:
    r"""Normalized STORM: recursive-momentum variance reduction with a normalized step.

    With :math:`g_t = \nabla f(x_t; \xi_t)` (the ``updates``) and
    :math:`\tilde g_t = \nabla f(x_{t-1}; \xi_t)`, the gradient at the *previous*
    iterate on the *same* sample (the keyword-only extra argument ``prev_grad``),

    .. math::

        d_0 = g_0, \qquad
        d_t = g_t + (1 - a_t)\,(d_{t-1} - \tilde g_t) \quad (t \ge 1), \qquad
        x_{t+1} = x_t - \eta_t \frac{d_t}{\lVert d_t \rVert},

    with the step set to zero when :math:`d_t = 0`. The first ``updates`` passed in
    becomes :math:`d_0` as is, and ``prev_grad`` is ignored at that step: **sharp
    initialization** means passing an exact or large-batch gradient at :math:`x_0` as
    the first ``updates``. This matters because the BG-0 schedule
    (:math:`a = 1/T`, :math:`\eta = \eta_0 T^{-3/4}`, rate :math:`O(T^{-1/4})`)
    barely forgets the initial error. Use :func:`two_point_grad` to compute
    :math:`g_t` and :math:`\tilde g_t` in one vmapped call.

    **Params.** as :func:`normalized_sgd_momentum`: any pytree of float16, bfloat16,
    float32, float64 or complex arrays of any shapes (complex: conjugate gradients, norm
    :math:`\sum_i |z_i|^2`).

    Args:
        learning_rate: step length :math:`\eta_t`, a scalar (may be traced) or a
            schedule of the step count.
        a: STORM's correction weight :math:`a_t \in (0, 1]`, a scalar or a schedule;
            :math:`a = 1` is normalized SGD, :math:`a \to 0` never forgets.
        per_leaf: normalize each leaf separately instead of the whole pytree.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs`; its ``update`` takes the
        keyword-only ``prev_grad`` (a pytree like the gradients, required at every
        call). Its state is a :class:`NormalizedStormState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import normalized_storm, two_point_grad
        >>> loss = lambda x, batch: 0.5 * jnp.sum((x - batch) ** 2)
        >>> opt = normalized_storm(learning_rate=0.5, a=0.5)
        >>> params = prev = jnp.array([3.0, 4.0])
        >>> state = opt.init(params)
        >>> for batch in (jnp.zeros(2), jnp.ones(2)):
        ...     g, g_prev = two_point_grad(loss)(params, prev, batch)
        ...     updates, state = opt.update(g, state, params, prev_grad=g_prev)
        ...     prev, params = params, optax.apply_updates(params, updates)
        >>> print(state.estimate)  # d_1 = g_1 + (1 - a) (d_0 - g_prev_1)
        [2.2 3.1]
        >>> print([f"{v:.2f}" for v in params])
        ['2.41', '3.19']

    References:
        Hashemi, Upadhyay, Fazla, arXiv:2605.15314 (BG-0 analysis, sharp
        initialization); Cutkosky and Orabona, arXiv:1905.10018 (STORM).
    """

    def init_fn(params: optax.Params) -> NormalizedStormState:
        check_float_params(params, "normalized_storm", complex_ok=True)
        return NormalizedStormState(
            count=jnp.zeros([], jnp.int32),
            estimate=jax.tree.map(jnp.zeros_like, params),
        )

    def update_fn(updates, state, params=None, *, prev_grad=None, **extra_args):
        del params, extra_args
        if prev_grad is None:
            raise ValueError(
                "normalized_storm.update needs the keyword argument prev_grad: the "
                "gradient at the previous iterate on the current sample (any pytree "
                "like the gradients at the first step, where it is ignored)."
            )
        count = state.count
        lr = _value_at(learning_rate, count)
        # d_0 = g_0: the first step acts as if a = 1.
        keep = jnp.where(count == 0, 0.0, 1.0 - _value_at(a, count))
        estimate = jax.tree.map(
            lambda d, g, gp: (g + keep * (d - gp)).astype(d.dtype),
            state.estimate,
            updates,
            prev_grad,
        )
        new_updates = _normalized_step(estimate, lr, per_leaf)
        return new_updates, NormalizedStormState(count=optax.safe_increment(count), estimate=estimate)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def two_point_grad(fun: Callable[..., jax.Array], *, has_aux: bool = False) -> Callable:
    r"""Gradients of ``fun`` at two iterates on the same batch, in one vmapped call.

    Returns a function ``(params, prev_params, *args, **kwargs) -> (grad, prev_grad)``
    computing

    .. math::

        \big(\nabla_x f(x_t; \xi),\ \nabla_x f(x_{t-1}; \xi)\big)

    with ``jax.vmap`` over the stacked pair of parameter pytrees, so both gradients
    come from one compiled evaluation on the same ``args`` (the sample :math:`\xi`).
    This is what :func:`normalized_storm` needs at each step.

    Args:
        fun: a scalar loss ``fun(params, *args, **kwargs)``.
        has_aux: whether ``fun`` returns ``(loss, aux)``; the aux of both points is then
            returned too, as a third element ``(aux, prev_aux)``.

    Returns:
        A function of ``(params, prev_params, *args, **kwargs)`` returning
        ``(grad, prev_grad)`` (plus ``(aux, prev_aux)`` when ``has_aux``).

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.optim import two_point_grad
        >>> loss = lambda x, c: jnp.sum(c * x ** 2)
        >>> g, g_prev = two_point_grad(loss)(jnp.array([1.0]), jnp.array([2.0]), 3.0)
        >>> print(g, g_prev)
        [6.] [12.]

    References:
        Cutkosky and Orabona, arXiv:1905.10018 (the two-point STORM estimator).
    """
    grad_fn = jax.grad(fun, has_aux=has_aux)

    def wrapped(params, prev_params, *args, **kwargs):
        stacked = jax.tree.map(lambda u, v: jnp.stack([u, v]), params, prev_params)
        out = jax.vmap(lambda p: grad_fn(p, *args, **kwargs))(stacked)
        first = lambda tree: jax.tree.map(lambda x: x[0], tree)  # noqa: E731
        second = lambda tree: jax.tree.map(lambda x: x[1], tree)  # noqa: E731
        if has_aux:
            grads, aux = out
            return first(grads), second(grads), (first(aux), second(aux))
        return first(out), second(out)

    return wrapped
