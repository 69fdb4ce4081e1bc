r"""Follow-the-regularized-leader players for games: entropic FTRL, lazy dual averaging, loss estimators.

* :func:`ftrl_entropic`: anytime exponential weights from cumulative losses,
  :math:`q_{t+1} \propto q_1 \odot e^{-\eta_t L_t}`, :math:`L_t = \sum_{j \le t} g_j`;
* :func:`dual_averaging`: lazy projected (Nesterov) dual averaging on a Euclidean ball,
  :math:`w_{t+1} = \Pi_W(w_1 - \eta_t G_t)`, :math:`G_t = \sum_{j \le t} g_j`;
* :func:`importance_weighted_loss` and :func:`implicit_exploration_loss`: the bandit
  loss estimators of a player that observes only the losses of a queried set.

Both players keep the cumulative sum in their state, so with a varying step
:math:`\eta_t` they differ from the greedy (mirror-descent) updates of
:func:`~jaxtheory.optim.stochastic_mirror_descent`, which accumulate
:math:`\sum_j \eta_j g_j`; with a constant step they coincide.

References:
    Bai, Yu, Li, Luo and Zhang, *Group Distributionally Robust Optimization with Flexible
    Sample Queries*, arXiv:2505.15212 (FTRL players of the GDRO game).
    Nesterov, *Primal-dual subgradient methods for convex problems*, Math. Program.
    2009 (dual averaging); Neu, *Explore no more: improved high-probability regret
    bounds for non-stochastic bandits*, NeurIPS 2015 (implicit exploration).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params, check_simplex, is_placeholder

__all__ = [
    "FTRLEntropicState",
    "DualAveragingState",
    "ftrl_entropic",
    "dual_averaging",
    "importance_weighted_loss",
    "implicit_exploration_loss",
]

ScalarOrSchedule = float | jax.Array | Callable[[jax.Array], jax.Array]


def _lr(learning_rate: ScalarOrSchedule, count: jax.Array):
    return learning_rate(count) if callable(learning_rate) else learning_rate


class FTRLEntropicState(NamedTuple):
    """State of :func:`ftrl_entropic`.

    Attributes:
        count: number of updates applied so far (int32).
        cumulative: the sum of all losses (gradients) seen, shaped like the params.
        prior_logits: :math:`\\log q_1` of the initial params (the regularizer's center).
    """

    count: jax.Array
    cumulative: optax.Updates
    prior_logits: optax.Params


def ftrl_entropic(learning_rate: ScalarOrSchedule) -> optax.GradientTransformationExtraArgs:
    r"""Anytime exponential weights: FTRL with the negative entropy, from cumulative losses.

    .. math::

        q_{k+1} = \operatorname*{argmin}_{q \in \Delta}\;
            \eta_k \langle L_k, q\rangle + \mathrm{KL}(q \,\|\, q_1)
        \;\propto\; q_1 \odot \exp(-\eta_k L_k), \qquad L_k = \sum_{j \le k} g_j,

    along the last axis of every leaf (each last axis one simplex), where update number
    :math:`k = 1, 2, \dots` uses :math:`\eta_k` = ``learning_rate(k - 1)`` (optax's count
    before the update). It is returned as the update :math:`q_{k+1} - q_k`. With a
    constant :math:`\eta` it equals
    :func:`~jaxtheory.optim.stochastic_mirror_descent` with
    :func:`~jaxtheory.optim.entropic_mirror_map` (both give
    :math:`q_1 \odot e^{-\eta L_k}`); with a varying :math:`\eta_k` the greedy update
    gives :math:`q_1 \odot e^{-\sum_j \eta_j g_j}` instead. The state holds the
    cumulative loss, so the step may be chosen afresh every round from data (an
    adaptive :math:`\eta_t`): pass it as a traced scalar and rebuild the transform.

    **Params.** a pytree of float16, bfloat16, float32 or float64 leaves of
    ``ndim >= 1``, the last axis of each a point of the probability simplex (entries
    >= 0 with a positive sum, zeros stay 0; checked by an eager ``init``); size-0 and ``None`` leaves are
    allowed; complex params are refused. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: :math:`\eta`, a scalar (may be traced) or a schedule of the count.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` whose ``update`` takes the losses
        as ``updates`` and requires ``params`` (the current :math:`q_k`); its state is a
        :class:`FTRLEntropicState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import ftrl_entropic
        >>> opt = ftrl_entropic(jnp.log(2.0))
        >>> q = jnp.array([0.5, 0.5])
        >>> state = opt.init(q)
        >>> u, state = opt.update(jnp.array([1.0, 0.0]), state, q)
        >>> print(optax.apply_updates(q, u).round(4))  # q1 * exp(-eta L), normalized
        [0.3333 0.6667]

    References:
        arXiv:2505.15212 (the q-player of GDRO with flexible sample queries);
        Shalev-Shwartz, *Online Learning and Online Convex Optimization*, 2012, §2.7.
    """

    def init_fn(params: optax.Params) -> FTRLEntropicState:
        if not is_placeholder(params):
            check_simplex(params, "ftrl_entropic")
        return FTRLEntropicState(
            count=jnp.zeros([], jnp.int32),
            cumulative=jax.tree.map(jnp.zeros_like, params),
            prior_logits=jax.tree.map(jnp.log, params),
        )

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        lr = _lr(learning_rate, state.count)
        cum = jax.tree.map(lambda c, g: c + g.astype(c.dtype), state.cumulative, updates)
        new = jax.tree.map(
            lambda p0, c: jax.nn.softmax(p0 - jnp.asarray(lr, c.dtype) * c, axis=-1), state.prior_logits, cum
        )
        if params is None:
            raise ValueError("ftrl_entropic.update needs params (the current point q_k).")
        out = jax.tree.map(lambda n, p: (n - p).astype(p.dtype), new, params)
        return out, FTRLEntropicState(optax.safe_increment(state.count), cum, state.prior_logits)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


class DualAveragingState(NamedTuple):
    """State of :func:`dual_averaging`.

    Attributes:
        count: number of updates applied so far (int32).
        cumulative: the sum of all gradients seen, shaped like the params.
        center: the initial params :math:`w_1` (the prox center).
    """

    count: jax.Array
    cumulative: optax.Updates
    center: optax.Params


def dual_averaging(
    radius: float | jax.Array, learning_rate: ScalarOrSchedule
) -> optax.GradientTransformationExtraArgs:
    r"""Lazy projected dual averaging on the Euclidean ball :math:`W = \{\lVert w\rVert_2 \le D\}`.

    .. math::

        w_{k+1} = \operatorname*{argmin}_{w \in W}\;
            \langle G_k, w\rangle + \frac{\lVert w - w_1\rVert_2^2}{2\eta_k}
        = \Pi_W\big(w_1 - \eta_k G_k\big), \qquad G_k = \sum_{j \le k} g_j,

    with :math:`\eta_k` = ``learning_rate(k - 1)`` for update number :math:`k` and the
    norm taken over all leaves together (:func:`optax.projections.projection_l2_ball`),
    returned as the update :math:`w_{k+1} - w_k`. Unlike projected (greedy) SGD, which
    projects every step, the projection acts on the accumulated gradient only, which is
    what makes its regret bound anytime with :math:`\eta_k = D/(G\sqrt k)`:
    :math:`\mathrm{Reg}_t \le D^2/(2\eta_t) + \sum_{k \le t}\eta_k G^2/2 \le
    \tfrac32 DG\sqrt t`. Inside the ball (no projection active) it is SGD from
    :math:`w_1` with a constant step.

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any shapes
    (scalars, size-0 and ``None`` leaves included), all of them one vector for the ball;
    complex params are refused. ``update`` ignores unknown keyword arguments.

    Args:
        radius: :math:`D`, the radius of the ball (may be traced).
        learning_rate: :math:`\eta`, a scalar (may be traced) or a schedule of the count.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` whose ``update`` requires
        ``params``; its state is a :class:`DualAveragingState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import dual_averaging
        >>> opt = dual_averaging(1.0, 0.5)
        >>> w = jnp.zeros(2)
        >>> state = opt.init(w)
        >>> for g in (jnp.array([-1.0, 0.0]), jnp.array([-1.0, -4.0])):
        ...     u, state = opt.update(g, state, w)
        ...     w = optax.apply_updates(w, u)
        >>> print(w.round(4))  # Proj(-0.5 * (-2, -4)) = (1, 2) / sqrt(5)
        [0.4472 0.8944]

    References:
        Nesterov, Math. Program. 120, 2009 (dual averaging); Xiao, JMLR 11, 2010;
        arXiv:2505.15212 (the w-player of GDRO with flexible sample queries).
    """

    def init_fn(params: optax.Params) -> DualAveragingState:
        check_float_params(params, "dual_averaging")
        return DualAveragingState(
            count=jnp.zeros([], jnp.int32),
            cumulative=jax.tree.map(jnp.zeros_like, params),
            # a copy: the state never shares a buffer with the params (jit donation)
            center=jax.tree.map(lambda x: jnp.array(x, copy=True), params),
        )

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("dual_averaging.update needs params.")
        lr = _lr(learning_rate, state.count)
        cum = jax.tree.map(lambda c, g: c + g.astype(c.dtype), state.cumulative, updates)
        target = jax.tree.map(lambda w1, c: w1 - jnp.asarray(lr, c.dtype) * c, state.center, cum)
        new = optax.projections.projection_l2_ball(target, radius)
        out = jax.tree.map(lambda n, p: (n - p).astype(p.dtype), new, params)
        return out, DualAveragingState(optax.safe_increment(state.count), cum, state.center)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def importance_weighted_loss(losses: jax.Array, included: jax.Array, probs: jax.Array) -> jax.Array:
    r"""The importance-weighted (inverse-propensity) estimate :math:`\hat s_i = s_i \mathbf 1[i \in S] / o_i`.

    Unbiased, :math:`\mathbb E\hat s_i = s_i`, when :math:`o_i = P(i \in S) > 0` is the
    exact inclusion probability of the sampling scheme; losses of arms outside
    :math:`S` may be anything (they are masked out, never read into the result).

    Args:
        losses: :math:`s`, the losses of every arm (only those in :math:`S` are used).
        included: boolean (or 0/1) mask of the queried set :math:`S`.
        probs: :math:`o`, the inclusion probabilities, positive.

    Returns:
        :math:`\hat s`, shaped like ``losses``.

    Example:
        >>> import jax.numpy as jnp
        >>> print(importance_weighted_loss(jnp.array([0.5, 0.2]), jnp.array([True, False]),
        ...                                jnp.array([0.25, 0.75])))
        [2. 0.]
    """
    return jnp.where(included, losses / probs, 0.0).astype(jnp.result_type(losses))


def implicit_exploration_loss(
    losses: jax.Array, chosen: jax.Array, probs: jax.Array, gamma: float | jax.Array
) -> jax.Array:
    r"""The implicit-exploration (IX) estimate :math:`\hat s_i = s_i \mathbf 1[i = i_t] / (q_i + \gamma)`.

    Biased low: :math:`\mathbb E\hat s_i = s_i\,q_i/(q_i + \gamma)`, so the bias
    :math:`s_i\gamma/(q_i+\gamma)` satisfies :math:`q_i(s_i - \mathbb E\hat s_i) \le \gamma s_i`;
    in exchange :math:`\hat s_i \le s_i/\gamma`, which gives high-probability regret
    bounds (Neu, 2015). :math:`\gamma = 0` is the plain importance-weighted estimate of a
    single draw.

    Args:
        losses: :math:`s`, the losses of every arm (only the chosen one is used).
        chosen: boolean (or 0/1) one-hot mask of the played arm :math:`i_t`.
        probs: :math:`q`, the probabilities it was drawn with.
        gamma: :math:`\gamma \ge 0` (may be traced).

    Returns:
        :math:`\hat s`, shaped like ``losses``.

    Example:
        >>> import jax.numpy as jnp
        >>> print(implicit_exploration_loss(jnp.array([0.5, 0.2]), jnp.array([True, False]),
        ...                                 jnp.array([0.25, 0.75]), 0.25))
        [1. 0.]
    """
    return jnp.where(chosen, losses / (probs + gamma), 0.0).astype(jnp.result_type(losses))
