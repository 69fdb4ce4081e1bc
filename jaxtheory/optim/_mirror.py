"""Stochastic mirror descent (SMD) and its mirror maps.

References:
    Liu, *In-Expectation Convergence of Stochastic Gradient Methods under Heavy-Tailed
    Noise*, arXiv:2606.00520.
    Nemirovski and Yudin, *Problem Complexity and Method Efficiency in Optimization*,
    1983; Beck and Teboulle, *Mirror descent and nonlinear projected subgradient
    methods for convex optimization*, 2003.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params, check_simplex, is_placeholder

__all__ = [
    "MirrorMap",
    "StochasticMirrorDescentState",
    "entropic_mirror_map",
    "euclidean_mirror_map",
    "pnorm_mirror_map",
    "stochastic_mirror_descent",
]

ScalarOrSchedule = float | jax.Array | Callable[[jax.Array], jax.Array]


class MirrorMap(NamedTuple):
    r"""A mirror map given by the gradients of a Legendre function and its conjugate.

    Attributes:
        to_dual: :math:`\nabla\psi`, mapping a parameter pytree to the dual space.
        to_primal: :math:`\nabla\psi^*`, mapping a dual pytree back to parameters; the
            inverse of ``to_dual`` on the domain of :math:`\psi`.
        check: ``check(params, name)`` raises a :class:`ValueError` naming the domain of
            :math:`\psi` when ``params`` lie outside it (run by ``init``); ``None``
            accepts any real floating params.
    """

    to_dual: Callable[[Any], Any]
    to_primal: Callable[[Any], Any]
    check: Callable[[Any, str], None] | None = None


def euclidean_mirror_map() -> MirrorMap:
    r"""The Euclidean mirror map :math:`\psi(x) = \tfrac12\lVert x\rVert_2^2`.

    Both maps are the identity, so :func:`stochastic_mirror_descent` with it is SGD.

    Returns:
        A :class:`MirrorMap`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.optim import euclidean_mirror_map
        >>> print(euclidean_mirror_map().to_dual(jnp.array([1.0, -2.0])))
        [ 1. -2.]

    References:
        Nemirovski and Yudin, 1983 (mirror descent); arXiv:2606.00520.
    """
    identity = lambda tree: tree  # noqa: E731

    def check(params, name):
        check_float_params(params, name, complex_ok=True)  # linear: complex steps are exact

    return MirrorMap(to_dual=identity, to_primal=identity, check=check)


def entropic_mirror_map() -> MirrorMap:
    r"""Negative entropy on the probability simplex (exponentiated gradient).

    :math:`\psi(x) = \sum_i x_i \log x_i` restricted to the simplex, with
    :math:`\nabla\psi(x) = \log x` (up to a constant) and
    :math:`\nabla\psi^*(\theta) = \operatorname{softmax}(\theta)`. The last axis of
    every leaf is one simplex, so a mirror step is
    :math:`x^+ \propto x \odot e^{-\eta g}` along that axis. It is 1-strongly convex
    with respect to :math:`\lVert\cdot\rVert_1`.

    Returns:
        A :class:`MirrorMap`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.optim import entropic_mirror_map
        >>> m = entropic_mirror_map()
        >>> print(m.to_primal(m.to_dual(jnp.array([0.25, 0.75]))).round(4))
        [0.25 0.75]

    References:
        Beck and Teboulle, 2003; Kivinen and Warmuth, 1997 (exponentiated gradient).
    """

    def check(params, name):
        check_simplex(params, f"{name} with the entropic mirror map")

    return MirrorMap(
        to_dual=lambda tree: jax.tree.map(jnp.log, tree),
        to_primal=lambda tree: jax.tree.map(lambda t: jax.nn.softmax(t, axis=-1), tree),
        check=check,
    )


def _global_pnorm(leaves: list[jax.Array], q: jax.Array) -> jax.Array:
    """The l_q norm of all entries of ``leaves`` together, computed without overflow."""
    acc = jnp.float32
    for x in leaves:
        acc = jnp.promote_types(acc, x.dtype)
    scale = jnp.zeros((), acc)
    for x in leaves:
        if jnp.size(x):  # a size-0 leaf has no entry (and no max)
            scale = jnp.maximum(scale, jnp.max(jnp.abs(x)).astype(acc))
    safe = jnp.where(scale > 0, scale, 1.0)
    total = sum((jnp.sum((jnp.abs(x).astype(acc) / safe) ** q) for x in leaves), 0.0)
    return scale * total ** (1.0 / q)


def _pnorm_link(tree: Any, q: jax.Array) -> Any:
    r"""Gradient of :math:`\tfrac12\lVert x\rVert_q^2`:
    :math:`\operatorname{sign}(x_i)\,(|x_i|/\lVert x\rVert_q)^{q-1}\,\lVert x\rVert_q`."""
    leaves = jax.tree.leaves(tree)
    norm = _global_pnorm(leaves, q)
    safe = jnp.where(norm > 0, norm, 1.0)

    def leaf(x):
        ratio = jnp.abs(x).astype(norm.dtype) / safe
        return (jnp.sign(x) * ratio ** (q - 1.0) * norm).astype(x.dtype)

    return jax.tree.map(leaf, tree)


def pnorm_mirror_map(r: float | jax.Array | None = None) -> MirrorMap:
    r"""The p-norm mirror map :math:`\psi(x) = \tfrac12\lVert x\rVert_r^2`, :math:`r \in (1, 2]`.

    With :math:`s = r/(r-1)` the dual exponent,

    .. math::

        \nabla\psi(x)_i = \operatorname{sign}(x_i)\,
            \frac{|x_i|^{r-1}}{\lVert x\rVert_r^{r-2}}, \qquad
        \nabla\psi^*(\theta)_i = \operatorname{sign}(\theta_i)\,
            \frac{|\theta_i|^{s-1}}{\lVert\theta\rVert_s^{s-2}},

    the norms taken over all entries of the pytree together (both maps send 0 to 0).
    :math:`\psi` is :math:`(r-1)`-strongly convex with respect to
    :math:`\lVert\cdot\rVert_r`, so a step :math:`\eta` here equals a step
    :math:`\eta/(r-1)` with the 1-strongly convex :math:`\psi/(r-1)`.
    The default :math:`r = 1 + 1/\ln d` (:math:`d` the number of parameters, capped
    at 2) gives :math:`\ell_1`-like geometry at :math:`O(\log d)` cost.

    Args:
        r: the primal exponent in :math:`(1, 2]` (may be traced); ``None`` picks
            :math:`\min(2, 1 + 1/\ln d)` from the parameter count at trace time.

    Returns:
        A :class:`MirrorMap`.

    Example:
        >>> import jax.numpy as jnp
        >>> from jaxtheory.optim import pnorm_mirror_map
        >>> m = pnorm_mirror_map(r=1.5)
        >>> x = jnp.array([1.0, -8.0])
        >>> print(m.to_primal(m.to_dual(x)).round(4))
        [ 1. -8.]

    References:
        Gentile, *The robustness of the p-norm algorithms*, 2003; Ben-Tal, Margalit,
        Nemirovski, 2001; arXiv:2606.00520 (SMD under heavy-tailed noise).
    """

    def exponent(tree):
        if r is not None:
            return r
        d = sum(x.size for x in jax.tree.leaves(tree))
        return 2.0 if d < 3 else min(2.0, 1.0 + 1.0 / math.log(d))

    def to_dual(tree):
        return _pnorm_link(tree, jnp.asarray(exponent(tree)))

    def to_primal(tree):
        rr = jnp.asarray(exponent(tree))
        return _pnorm_link(tree, rr / (rr - 1.0))

    def check(params, name):
        check_float_params(params, name)

    return MirrorMap(to_dual=to_dual, to_primal=to_primal, check=check)


class StochasticMirrorDescentState(NamedTuple):
    """State of :func:`stochastic_mirror_descent`.

    Attributes:
        count: number of updates applied so far (int32).
    """

    count: jax.Array


def stochastic_mirror_descent(
    learning_rate: ScalarOrSchedule,
    mirror_map: MirrorMap | None = None,
) -> optax.GradientTransformationExtraArgs:
    r"""Stochastic mirror descent, unmodified (no clipping, no normalization).

    .. math::

        \nabla\psi(x_{t+1}) = \nabla\psi(x_t) - \eta_t g_t, \qquad
        x_{t+1} = \nabla\psi^*\big(\nabla\psi(x_t) - \eta_t g_t\big),

    returned as the update :math:`x_{t+1} - x_t` so that :func:`optax.apply_updates`
    lands on :math:`x_{t+1}`. The dual point is recomputed from the current
    parameters each step (the state holds only the step count), so the transform
    composes with anything else that moves the parameters. With the Euclidean map it
    is SGD.

    **Params.** the domain of the mirror map, checked by ``init``: any pytree of
    float16, bfloat16, float32 or float64 arrays of any shapes for the Euclidean and
    p-norm maps (the Euclidean map also takes complex params, with optax's convention of
    conjugate gradients); for the entropic map, leaves of ``ndim >= 1`` whose last axis
    is a point of the simplex (entries >= 0 with a positive sum; zeros stay 0). ``None`` and size-0 leaves are
    allowed. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: step size :math:`\eta_t`, a scalar (may be traced) or a schedule
            of the step count.
        mirror_map: a :class:`MirrorMap`; defaults to :func:`euclidean_mirror_map`.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` whose ``update`` requires
        ``params``; its state is a :class:`StochasticMirrorDescentState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import entropic_mirror_map, stochastic_mirror_descent
        >>> opt = stochastic_mirror_descent(jnp.log(2.0), entropic_mirror_map())
        >>> params = jnp.array([0.5, 0.5])
        >>> state = opt.init(params)
        >>> updates, state = opt.update(jnp.array([1.0, 0.0]), state, params)
        >>> print(optax.apply_updates(params, updates).round(4))  # x * exp(-eta g)
        [0.3333 0.6667]

    References:
        Liu, arXiv:2606.00520 (SMD under heavy-tailed noise, unbounded domains);
        Nemirovski and Yudin, 1983.
    """
    mirror = euclidean_mirror_map() if mirror_map is None else mirror_map

    def init_fn(params: optax.Params) -> StochasticMirrorDescentState:
        if not is_placeholder(params):
            (mirror.check or check_float_params)(params, "stochastic_mirror_descent")
        return StochasticMirrorDescentState(count=jnp.zeros([], jnp.int32))

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("stochastic_mirror_descent.update needs params.")
        lr = learning_rate(state.count) if callable(learning_rate) else learning_rate
        dual = mirror.to_dual(params)
        dual = jax.tree.map(lambda th, g: th - lr * g.astype(th.dtype), dual, updates)
        new_params = mirror.to_primal(dual)
        new_updates = jax.tree.map(lambda new, old: (new - old).astype(old.dtype), new_params, params)
        return new_updates, StochasticMirrorDescentState(count=optax.safe_increment(state.count))

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
