"""One random feasible exploration step after any base map: d-stationarity from function values.

Greenstein & Hallak (arXiv:2605.22045) show that a single random-direction step,
accepted only on sufficient decrease, turns the accumulation points of any descent
method (DCA, prox-linear, projected (sub)gradient...) into *d-stationary* points almost
surely, and keeps the base method's rate, since it never increases the objective. The
paper's sampling distributions and acceptance constant could not be read; the rule
here is our reconstruction (sufficient decrease, :math:`s \\sim U(0, s_{\\max}]`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params
from jaxtheory.optim._value import _as_key, accept_if_decrease

__all__ = ["ExplorationState", "random_feasible_exploration"]


class ExplorationState(NamedTuple):
    """State of :func:`random_feasible_exploration`.

    Attributes:
        key: PRNG key of the direction and step draws (split once per step).
        n_evals: function evaluations spent so far (read by :func:`jaxtheory.optim.n_evals`).
        n_accepted: exploration steps accepted so far.
        accepted: whether the last step was accepted.
        step_size: the last step :math:`s` drawn.
        value: :math:`h` at the point the last update leads to (``inf`` before the first
            update), so a caller need not evaluate it again.
    """

    key: jax.Array
    n_evals: jax.Array
    n_accepted: jax.Array
    accepted: jax.Array
    step_size: jax.Array
    value: jax.Array


def _float_dtype(tree):
    leaves = jax.tree.leaves(tree)
    dt = jnp.result_type(*leaves) if leaves else jnp.float32
    return dt if jnp.issubdtype(dt, jnp.floating) else jnp.float32


def _sq_norm(tree):
    return sum(jnp.sum(jnp.square(leaf)) for leaf in jax.tree.leaves(tree))


def random_feasible_exploration(
    sample_direction: Callable,
    sigma=1e-4,
    s_max=1.0,
    *,
    key: int | jax.Array = 0,
) -> optax.GradientTransformationExtraArgs:
    """A random feasible exploration step, accepted on sufficient decrease.

    Placed after a base map (in :func:`optax.chain`, or called with the base step
    already applied and zero updates), it starts from :math:`x_{1/2} = x + u` (the
    params plus the incoming updates), draws a feasible direction :math:`d` and a step
    :math:`s \\sim U(0, s_{\\max}]`, and moves to :math:`z = x_{1/2} + s d` iff

    .. math:: h(z) \\le h(x_{1/2}) - \\sigma s^2 \\lVert d\\rVert^2

    (:func:`jaxtheory.optim.accept_if_decrease`), else stays at :math:`x_{1/2}`. The
    returned update is :math:`u + s d` or :math:`u`. It never increases :math:`h`, so a
    base method's descent inequality, hence its rate, is kept.

    **Params.** the feasible set's points: any pytree of float16, bfloat16, float32 or
    float64 arrays that ``sample_direction`` and ``value_fn`` take; complex params are
    refused. ``value`` may have any float dtype (it is cast to the state's). ``update``
    ignores unknown keyword arguments.

    Args:
        sample_direction: ``(key, x) -> d``, a pytree of ``x``'s structure with
            :math:`x + d \\in C` (e.g. :func:`jaxtheory.oracles.box_direction`), so that
            :math:`z \\in C` for :math:`s_{\\max} \\le 1`.
        sigma: the sufficient-decrease constant :math:`\\sigma \\ge 0` (may be traced).
        s_max: the largest step :math:`s_{\\max} \\in (0, 1]` (may be traced).
        key: seed or PRNG key of the draws (may be traced).

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`ExplorationState`. Its ``update(updates, state, params, *, value_fn,
        value=None)`` needs ``value_fn`` (:math:`h`); ``value`` is :math:`h` at
        ``params`` (optax's convention) and is used as :math:`h(x_{1/2})` when the
        updates are zero; otherwise :math:`h(x_{1/2})` is evaluated. ``n_evals`` counts
        :math:`h(z)`, and :math:`h(x_{1/2})` whenever it is evaluated here.

    Example:
        >>> import jax, jax.numpy as jnp, optax
        >>> from jaxtheory.oracles import dc_toy_l1
        >>> p = dc_toy_l1(2)
        >>> opt = random_feasible_exploration(p.sample_direction, 1e-4, 1.0, key=3)
        >>> x = jnp.array([1.0, 0.0]); state = opt.init(x)
        >>> for _ in range(5):   # from a DCA fixed point with a zero coordinate
        ...     u, state = opt.update(jnp.zeros(2), state, x, value_fn=p.value)
        ...     x = optax.apply_updates(x, u)
        >>> bool(state.n_accepted > 0), bool(p.value(x) < -0.5), int(state.n_evals)
        (True, True, 10)

    References:
        Greenstein & Hallak, *Achieving Directional-Stationarity from a Single Random
        Direction Step*, arXiv:2605.22045.
    """
    if not callable(sample_direction):
        raise TypeError("sample_direction must be a callable (key, x) -> d")
    if isinstance(sigma, (int, float)) and sigma < 0:
        raise ValueError(f"sigma must be >= 0, got {sigma}")
    if isinstance(s_max, (int, float)) and not 0 < s_max <= 1:
        raise ValueError(f"s_max must lie in (0, 1] (z must stay feasible), got {s_max}")

    def init_fn(params):
        check_float_params(params, "random_feasible_exploration")
        return ExplorationState(
            key=_as_key(key),
            n_evals=jnp.zeros((), jnp.int32),
            n_accepted=jnp.zeros((), jnp.int32),
            accepted=jnp.zeros((), bool),
            step_size=jnp.zeros((), _float_dtype(params)),
            value=jnp.full((), jnp.inf, _float_dtype(params)),
        )

    def update_fn(updates, state, params=None, *, value_fn=None, value=None, **extra):
        del extra
        if params is None:
            raise ValueError("random_feasible_exploration needs params")
        if value_fn is None:
            raise ValueError("random_feasible_exploration needs the extra argument value_fn")
        half = optax.apply_updates(params, updates)
        if value is None:
            v_half, spent = value_fn(half), 1
        else:
            moved = sum(jnp.any(leaf != 0) for leaf in jax.tree.leaves(updates))
            # both branches in the state's value dtype: value may come in another dtype
            # than value_fn's output (a Python float, a float64 loss under x64)
            dt = state.value.dtype
            v_half = jax.lax.cond(
                moved > 0, lambda: jnp.asarray(value_fn(half), dt), lambda: jnp.asarray(value, dt)
            )
            spent = (moved > 0).astype(jnp.int32)
        key_next, k_dir, k_step = jax.random.split(state.key, 3)
        d = sample_direction(k_dir, half)
        # s ~ U(0, s_max]: 1 - U[0, 1) lies in (0, 1]
        s = s_max * (1.0 - jax.random.uniform(k_step, (), state.value.dtype))
        z = jax.tree.map(lambda h, di: h + (s * di).astype(h.dtype), half, d)
        v_z = value_fn(z)
        decrease = sigma * s * s * _sq_norm(d)
        point, v_new, ok = accept_if_decrease(z, half, v_z, v_half, decrease)
        del point
        # accepted: u + s d, so that params + update is z exactly when u = 0
        new_updates = jax.tree.map(lambda u, di: jnp.where(ok, u + (s * di).astype(u.dtype), u), updates, d)
        new_state = ExplorationState(
            key=key_next,
            n_evals=state.n_evals + 1 + jnp.asarray(spent, jnp.int32),
            n_accepted=state.n_accepted + ok.astype(jnp.int32),
            accepted=ok,
            step_size=jnp.asarray(s, state.step_size.dtype),
            value=jnp.asarray(v_new, state.value.dtype),
        )
        return new_updates, new_state

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
