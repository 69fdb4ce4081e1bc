"""Two-phase optimizers: lookahead (LA, SLA), DiLoCo and DiLoCo with error feedback.

A two-phase optimizer runs ``sync_period`` (:math:`k`, or :math:`H`) *inner* steps on
the fast weights, then one *outer* step on the slow weights driven by the
pseudo-gradient :math:`\\Delta=\\theta-\\bar\\phi_k` (slow minus the worker average of the
fast weights), and restarts the fast weights from the new slow weights.

Conventions shared by every transform here:

* **Slow weights live in the optimizer state** (field ``slow_params``), not in the
  params (unlike :func:`optax.lookahead`). The params you hold are the fast weights, at
  which gradients are taken. Right after a synchronization step the params equal the
  slow weights (up to one rounding of ``p + (s - p)``). Read the slow weights with
  :func:`slow_params`.
* **Workers** (:func:`diloco`, :func:`diloco_ef`): params and gradients carry a leading
  worker axis of size ``num_workers``; worker ``m``'s gradient must be computed at
  ``params[m]`` on its own data. Start from :func:`replicate_workers`. The inner
  transform runs on each worker through :func:`jax.vmap` (per-worker inner state).
* ``sync_period`` and ``num_workers`` are static Python ints; every float
  hyperparameter (inside ``inner``/``outer`` too) may be a traced scalar. Step-size
  schedules of the outer optimizer count outer steps (rounds); schedules of the inner
  optimizer count inner steps (reset with ``reset_inner_state=True``).
* The synchronization runs under :func:`jax.lax.cond` on the shared step counter: cheap
  when the counter is not batched (the usual case under ``jax.vmap`` over
  hyperparameters); if it is batched the outer step is computed every step and selected.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._domain import check_float_params, concrete, is_placeholder
from jaxtheory.optim._value import _as_key

__all__ = [
    "TwoPhaseState",
    "DiLoCoEFState",
    "lookahead",
    "diloco",
    "diloco_ef",
    "replicate_workers",
    "slow_params",
]


class TwoPhaseState(NamedTuple):
    """State of :func:`lookahead` and :func:`diloco`.

    Attributes:
        inner_state: inner optimizer state (stacked on a leading worker axis for
            :func:`diloco`).
        outer_state: outer optimizer state (acts on the slow weights).
        slow_params: the slow (outer) weights, no worker axis.
        step: int32 number of inner steps since the last synchronization, in
            ``[0, sync_period)``.
    """

    inner_state: Any
    outer_state: Any
    slow_params: Any
    step: jax.Array


class DiLoCoEFState(NamedTuple):
    """State of :func:`diloco_ef`: :class:`TwoPhaseState`'s fields plus EF buffers.

    Attributes:
        inner_state: per-worker inner optimizer states (leading worker axis).
        outer_state: outer optimizer state.
        slow_params: the slow (outer) weights, no worker axis.
        step: int32 inner steps since the last synchronization.
        error: per-worker error buffers :math:`e_m` on the pseudo-gradient (leading
            worker axis, model units).
        key: PRNG key of the compressor (split at every synchronization).
    """

    inner_state: Any
    outer_state: Any
    slow_params: Any
    step: jax.Array
    error: Any
    key: jax.Array


def replicate_workers(params: Any, num_workers: int) -> Any:
    """Stack ``num_workers`` identical copies of ``params`` on a new leading worker axis.

    Args:
        params: a pytree of arrays.
        num_workers: number of copies (static int).

    Returns:
        The pytree with every leaf of shape ``(num_workers, *leaf.shape)``.

    Example:
        >>> import jax.numpy as jnp
        >>> replicate_workers({"w": jnp.array([1., 2.])}, 3)["w"].shape
        (3, 2)
    """
    return jax.tree.map(lambda x: jnp.broadcast_to(x, (num_workers,) + jnp.shape(x)).copy(), params)


def slow_params(state: Any) -> Any:
    """Return the slow weights from a two-phase state (also when nested in a chain).

    Args:
        state: a :class:`TwoPhaseState`/:class:`DiLoCoEFState`, or any optax state
            (e.g. of :func:`optax.chain`) containing exactly one of them.

    Returns:
        The ``slow_params`` pytree.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> opt = optax.chain(optax.clip(1.0), lookahead(optax.sgd(0.1), 2, 0.5))
        >>> slow_params(opt.init(jnp.zeros(2)))
        Array([0., 0.], dtype=float32)
    """
    found = []

    def visit(s):
        if isinstance(s, (TwoPhaseState, DiLoCoEFState)):
            found.append(s.slow_params)
        elif isinstance(s, (tuple, list)):
            for x in s:
                visit(x)
        elif isinstance(s, dict):
            for x in s.values():
                visit(x)

    visit(state)
    if len(found) != 1:
        raise ValueError(f"expected exactly one two-phase state, found {len(found)}")
    return found[0]


def _cast_like(new, ref):
    """Cast ``new`` leaves to ``ref`` leaves' dtypes (keeps lax.cond branches identical)."""

    def cast(n, r):
        if jax.dtypes.issubdtype(jnp.asarray(r).dtype, jax.dtypes.prng_key):
            return n  # typed PRNG keys keep their type
        return jax.lax.convert_element_type(n, jnp.result_type(r))

    return jax.tree.map(cast, new, ref)


def _two_phase(
    inner,
    outer,
    sync_period,
    num_workers,
    reset_inner_state,
    compressor=None,
    key=0,
    error_decay=1.0,
    name="lookahead",
):
    if not isinstance(sync_period, int) or isinstance(sync_period, bool) or sync_period < 1:
        raise ValueError(f"sync_period must be a static Python int >= 1, got {sync_period!r}")
    if num_workers is not None and (
        not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 1
    ):
        raise ValueError(f"num_workers must be a static Python int >= 1, got {num_workers!r}")
    inner = optax.with_extra_args_support(inner)
    W = num_workers
    use_ef = compressor is not None

    def check(tree, what):
        if W is None:
            return
        for leaf in jax.tree.leaves(tree):
            if jnp.ndim(leaf) < 1 or jnp.shape(leaf)[0] != W:
                raise ValueError(
                    f"{name}: {what} must have a leading worker axis of size {W}; got a leaf of "
                    f"shape {jnp.shape(leaf)} (use replicate_workers(params, {W}))"
                )

    def check_replicated(params):
        # the workers start from the slow weights: W identical copies. A leading axis of
        # size W that is not a worker axis (a batch of W matrices, say) shows up here,
        # when the values are known (an eager init).
        for leaf in jax.tree.leaves(params):
            value = concrete(leaf)
            if (
                value is not None
                and value.size
                and not np.array_equal(value, np.broadcast_to(value[:1], value.shape))
            ):
                raise ValueError(
                    f"{name} takes params with a leading worker axis of size {W} holding {W} "
                    f"identical copies of the model (every worker starts from the slow weights); "
                    f"got a leaf of shape {jnp.shape(leaf)} whose copies differ: build the params "
                    f"with replicate_workers(params, {W})"
                )

    def inner_init(params):
        if W is None or is_placeholder(params):  # (map_params' placeholder has no worker axis)
            return inner.init(params)
        return jax.vmap(inner.init)(params)

    def init_fn(params):
        check_float_params(params, name, complex_ok=not use_ef)
        check(params, "params")
        if W is not None:
            check_replicated(params)
        slow = params if W is None else jax.tree.map(lambda p: p[0], params)
        slow = jax.tree.map(lambda x: jnp.array(x, copy=True), slow)
        step = jnp.zeros([], jnp.int32)
        base = (inner_init(params), outer.init(slow), slow, step)
        if not use_ef:
            return TwoPhaseState(*base)
        error = jax.tree.map(jnp.zeros_like, params)
        return DiLoCoEFState(*base, error, _as_key(key))

    def update_fn(grads, state, params=None, **extra_args):
        if params is None:
            raise ValueError("two-phase optimizers need params (the fast weights)")
        check(grads, "grads")
        check(params, "params")
        if W is None:
            u, inner_state = inner.update(grads, state.inner_state, params, **extra_args)
        else:
            u, inner_state = jax.vmap(lambda g, s, p: inner.update(g, s, p, **extra_args))(
                grads, state.inner_state, params
            )
        u = _cast_like(u, params)
        error = state.error if use_ef else None
        ekey = state.key if use_ef else None
        # Only what a synchronization changes goes through lax.cond (on CPU a branch's
        # outputs are fresh buffers: passing the per-worker arrays through would copy
        # them every step).
        keep = (state.outer_state, state.slow_params, error, ekey, inner_state if reset_inner_state else None)

        def no_sync(_):
            return keep

        def do_sync(_):
            slow = state.slow_params
            fast = optax.apply_updates(params, u)
            new_error, new_ekey = error, ekey
            if W is None:
                delta = jax.tree.map(lambda s, f: s - f, slow, fast)
            else:
                # per-worker pseudo-gradients Delta_m = theta - phi^m_H
                deltas = jax.tree.map(lambda s, f: s[None] - f, slow, fast)
                if use_ef:
                    new_ekey, sub = jax.random.split(ekey)
                    pm = jax.tree.map(lambda e, d: error_decay * e + d, error, deltas)
                    cm = jax.vmap(compressor)(jax.random.split(sub, W), pm)
                    new_error = jax.tree.map(lambda a, b: a - b, pm, cm)
                    deltas = cm
                delta = jax.tree.map(lambda d: jnp.mean(d, axis=0), deltas)
            delta = _cast_like(delta, slow)
            o, outer_state = outer.update(delta, state.outer_state, slow)
            new_slow = optax.apply_updates(slow, o)
            new_inner = inner_init(_broadcast(new_slow)) if reset_inner_state else None
            return _cast_like((outer_state, new_slow, new_error, new_ekey, new_inner), keep)

        def _broadcast(slow):
            if W is None:
                return slow
            return jax.tree.map(lambda s: jnp.broadcast_to(s, (W,) + s.shape), slow)

        sync = state.step == sync_period - 1
        outer_state, slow, error, ekey, new_inner = jax.lax.cond(sync, do_sync, no_sync, None)
        if reset_inner_state:
            inner_state = new_inner
        # on a synchronization the fast weights restart from the new slow weights
        updates = jax.tree.map(lambda nf, p, v: jnp.where(sync, nf - p, v), _broadcast(slow), params, u)
        step = jnp.where(sync, jnp.zeros_like(state.step), state.step + 1)
        base = (inner_state, outer_state, slow, step)
        if use_ef:
            return updates, DiLoCoEFState(*base, error, ekey)
        return updates, TwoPhaseState(*base)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def lookahead(
    inner: optax.GradientTransformation,
    sync_period: int,
    slow_step_size: float | optax.Schedule,
    *,
    momentum: float | None = None,
    nesterov: bool = False,
    reset_inner_state: bool = False,
) -> optax.GradientTransformationExtraArgs:
    """Lookahead (LA), and with ``momentum`` stacked lookahead (SLA / SNOO); slow weights in state.

    Every call takes one inner step on the fast weights :math:`\\phi`; every
    :math:`k`-th call also takes the outer step with the pseudo-gradient
    :math:`\\Delta=\\theta-\\phi_k` and restarts :math:`\\phi\\leftarrow\\theta`:

    .. math::
        \\phi_j = \\phi_{j-1} + \\mathrm{inner}(g_j),\\quad
        v \\leftarrow \\mu v + \\Delta,\\quad
        \\theta \\leftarrow \\theta - \\alpha\\,(\\Delta + \\mu v \\text{ if Nesterov else } v),
        \\quad \\phi_0 \\leftarrow \\theta .

    Without momentum this is :math:`\\theta\\leftarrow\\theta+\\alpha(\\phi_k-\\theta)`, the
    trajectory of :func:`optax.lookahead`. With ``inner = optax.sgd(eta)``: ``k = 1`` is
    SGD with step :math:`\\alpha\\eta`, and :math:`\\alpha=1` is SGD with step
    :math:`\\eta`. It is :func:`diloco` with one worker and no worker axis.

    **Params.** whatever ``inner`` takes (any pytree of float16, bfloat16, float32,
    float64 or complex arrays for ``optax.sgd``; the outer step is linear, so complex
    params follow optax's convention of conjugate gradients). The state holds a copy of
    the params (the slow weights), so :func:`optax.tree.map_params` maps it too.

    Args:
        inner: the fast (inner) optimizer, e.g. ``optax.sgd(eta)``.
        sync_period: number of inner steps :math:`k` per outer step (static int).
        slow_step_size: outer step :math:`\\alpha` (float, traced scalar or schedule of
            the outer step count).
        momentum: outer momentum :math:`\\mu` (float or traced scalar; not a schedule),
            ``None`` for plain LA.
        nesterov: Nesterov outer momentum (static bool); best SLA in arXiv:2603.26954.
        reset_inner_state: re-initialize the inner state at each synchronization.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`TwoPhaseState`; read the slow weights with :func:`slow_params`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> opt = lookahead(optax.sgd(0.5), sync_period=2, slow_step_size=0.5)
        >>> x = jnp.array([4.0]); state = opt.init(x)
        >>> for _ in range(4):                       # loss x^2 / 2
        ...     u, state = opt.update(x, state, x)
        ...     x = optax.apply_updates(x, u)
        >>> x, slow_params(state)
        (Array([1.5625], dtype=float32), Array([1.5625], dtype=float32))

    References:
        Zhang, Lucas, Hinton & Ba, *Lookahead optimizer*, arXiv:1907.08610;
        Agarwala, *High dimensional theory of two-phase optimizers*, arXiv:2603.26954;
        Kallusky et al., *SNOO*, arXiv:2510.15830.
    """
    outer = optax.sgd(slow_step_size, momentum=momentum, nesterov=nesterov)
    return _two_phase(inner, outer, sync_period, None, reset_inner_state, name="lookahead")


def diloco(
    inner: optax.GradientTransformation,
    outer: optax.GradientTransformation,
    sync_period: int,
    num_workers: int,
    *,
    reset_inner_state: bool = False,
) -> optax.GradientTransformationExtraArgs:
    """DiLoCo (and LA-DiLoCo): ``num_workers`` workers on a leading axis, outer step every ``H``.

    Worker :math:`m` takes :math:`H` inner steps from the slow weights on its own data;
    the outer optimizer treats the averaged pseudo-gradient as a gradient:

    .. math::
        \\phi^m_{j} = \\phi^m_{j-1} + \\mathrm{inner}_m(g^m_j),\\quad
        \\Delta = \\frac1W\\sum_{m=1}^W(\\theta-\\phi^m_H),\\quad
        \\theta \\leftarrow \\theta + \\mathrm{outer}(\\Delta),\\quad
        \\phi^m_0\\leftarrow\\theta .

    ``outer = optax.sgd(alpha)`` is LA-DiLoCo (and :func:`lookahead` when ``W = 1``);
    ``optax.sgd(alpha, momentum=mu, nesterov=True)`` is SLA/SNOO-style Nesterov outer
    momentum (DiLoCo used lr 0.7, mu 0.9 with inner AdamW). Inner momentum is allowed
    (inner states are per worker).

    **Params.** structure-bound to workers: every leaf has a leading worker axis of
    size ``num_workers`` and, at ``init``, holds identical copies of the model
    (:func:`replicate_workers`; an eager ``init`` refuses copies that differ, which is
    how a leading axis that is not a worker axis shows). The inner optimizer sees one
    worker's slice; float16, bfloat16, float32, float64 or complex (if ``inner`` takes
    it) dtypes. Under :func:`optax.tree.map_params` the per-worker inner state and
    the slow weights are both mapped as params-shaped trees (the inner state's leaves
    keep their worker axis).

    Args:
        inner: inner optimizer, run per worker under :func:`jax.vmap`.
        outer: any optax transform, applied to :math:`\\Delta` at the slow weights.
        sync_period: inner steps :math:`H` per round (static int).
        num_workers: number of workers :math:`W` (static int): the leading axis of params
            and gradients.
        reset_inner_state: re-initialize inner states at each synchronization.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`TwoPhaseState`. Params and gradients have a leading worker axis; start
        from ``replicate_workers(params, num_workers)``.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> opt = diloco(optax.sgd(0.5), optax.sgd(1.0), sync_period=2, num_workers=2)
        >>> x = replicate_workers(jnp.array([4.0]), 2); state = opt.init(x)
        >>> targets = jnp.array([[1.0], [-1.0]])        # worker m: loss (x - t_m)^2 / 2
        >>> for _ in range(2):
        ...     u, state = opt.update(x - targets, state, x)
        ...     x = optax.apply_updates(x, u)
        >>> x[:, 0], slow_params(state)
        (Array([1., 1.], dtype=float32), Array([1.], dtype=float32))

    References:
        Douillard et al., *DiLoCo*, arXiv:2311.08105; Agarwala, arXiv:2603.26954.
    """
    return _two_phase(inner, outer, sync_period, num_workers, reset_inner_state, name="diloco")


def diloco_ef(
    inner: optax.GradientTransformation,
    outer: optax.GradientTransformation,
    sync_period: int,
    num_workers: int,
    compressor,
    *,
    key: int | jax.Array = 0,
    error_decay: float = 1.0,
    reset_inner_state: bool = False,
) -> optax.GradientTransformationExtraArgs:
    """DiLoCo-EF: DiLoCo whose per-worker pseudo-gradients are compressed with error feedback.

    At each synchronization every worker compresses its pseudo-gradient plus its error
    buffer and keeps what was not sent:

    .. math::
        p_m = \\beta e_m + (\\theta-\\phi^m_H),\\quad c_m = C(p_m),\\quad
        e_m \\leftarrow p_m - c_m,\\quad
        \\theta \\leftarrow \\theta + \\mathrm{outer}\\Big(\\frac1W\\sum_m c_m\\Big).

    With ``outer = optax.sgd(1.0)`` (averaging, the theory configuration),
    :math:`\\beta=1` and inner step :math:`\\eta_l=\\Theta(1/(H\\sqrt T))` the excess
    risk is :math:`O(1/\\sqrt{WHT})`. :math:`\\beta<1` is SparseLoCo's decayed buffer.
    With the identity compressor it is :func:`diloco`.

    **Params.** as :func:`diloco` (a leading worker axis of identical copies), real
    float16, bfloat16, float32 or float64 only: the compressors act on real entries, so
    complex params are refused.

    Args:
        inner: inner optimizer, run per worker.
        outer: outer optax transform on the averaged compressed pseudo-gradient.
        sync_period: inner steps :math:`H` per round (static int).
        num_workers: number of workers :math:`W` (static int).
        compressor: a callable ``(key, tree) -> tree`` such as ``top_k(k)``.
        key: seed (an int or an integer scalar array, may be traced) or PRNG key of the
            compressor's randomness.
        error_decay: buffer decay :math:`\\beta` (traced allowed); 1 is classic EF.
        reset_inner_state: re-initialize inner states at each synchronization.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`DiLoCoEFState` (``error`` has the worker axis).

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import top_k
        >>> opt = diloco_ef(optax.sgd(0.5), optax.sgd(1.0), 1, 1, top_k(1))
        >>> x = replicate_workers(jnp.array([2.0, 1.0]), 1); state = opt.init(x)
        >>> u, state = opt.update(x, state, x)
        >>> x + u, state.error
        (Array([[1., 1.]], dtype=float32), Array([[0. , 0.5]], dtype=float32))

    References:
        Douillard et al., arXiv:2311.08105; Sarfi et al., *SparseLoCo*, arXiv:2508.15706;
        Stich, Cordonnier & Jaggi, arXiv:1809.07599.
    """
    return _two_phase(
        inner,
        outer,
        sync_period,
        num_workers,
        reset_inner_state,
        compressor=compressor,
        key=key,
        error_decay=error_decay,
        name="diloco_ef",
    )
