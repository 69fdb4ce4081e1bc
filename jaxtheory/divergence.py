"""Divergence handling inside a run: freeze a lane's state when it goes non-finite.

Simulators loop with :func:`guarded_scan` instead of :func:`jax.lax.scan` so that a
lane whose state or outputs stop being finite is frozen at its last finite state and
reports the step where that happened. Outputs from that step on are NaN, so a plot
shows the blow-up as a gap, never as data. Under ``jax.vmap`` each lane freezes on
its own; its neighbours are untouched.

Besides the scan, :func:`within` is the finiteness (and optional magnitude) test the
guard applies, :func:`guard_update` one guarded step for loops that are not a plain scan
(:func:`jaxtheory.sims._record.scan_record` uses it), :func:`mask_diverged` NaN-marks a
lane's summary metrics once it diverged, and :func:`first_nonfinite` finds the divergence
step of an unguarded trajectory after the fact.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["guarded_scan", "all_finite", "within", "guard_update", "mask_diverged", "first_nonfinite"]


def all_finite(tree: Any) -> jax.Array:
    """True when every inexact leaf of ``tree`` is finite (integer leaves always are).

    Example:
        >>> import jax.numpy as jnp
        >>> bool(all_finite({"a": jnp.ones(3), "b": jnp.array(jnp.inf)}))
        False
    """
    leaves = [x for x in jax.tree.leaves(tree) if jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact)]
    if not leaves:
        return jnp.array(True)
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(x)) for x in leaves]))


def within(tree: Any, bound: float | None = None) -> jax.Array:
    """True when every inexact leaf of ``tree`` is finite and, given ``bound``, at most ``bound`` in modulus.

    This is the test the guard applies to a lane's state: a state that fails it is a
    divergence. ``bound`` catches a lane that grows without overflowing (a run whose
    iterates reach ``1e30`` has diverged for every purpose, though it is finite).

    Example:
        >>> import jax.numpy as jnp
        >>> x = {"a": jnp.array([1.0, -5.0]), "n": jnp.array(10**6)}
        >>> bool(within(x)), bool(within(x, bound=4.0)), bool(within(x, bound=5.0))
        (True, False, True)
    """
    ok = all_finite(tree)
    if bound is None:
        return ok
    leaves = [x for x in jax.tree.leaves(tree) if jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact)]
    if not leaves:
        return ok
    small = jnp.all(jnp.stack([jnp.all(jnp.abs(x) <= bound) for x in leaves]))
    return ok & small


def guard_update(
    old: Any, new: Any, t: jax.Array, diverged_step: jax.Array, ok: jax.Array
) -> tuple[Any, jax.Array, jax.Array]:
    """One guarded step: keep ``new`` while the lane is alive and ``ok``, else freeze at ``old``.

    .. math::
        c_{t+1} = \\begin{cases} \\text{new} & \\text{if } t_\\dagger = -1 \\text{ and ok} \\\\
        c_t & \\text{otherwise,} \\end{cases} \\qquad
        t_\\dagger \\leftarrow t \\text{ at the first step that is not ok.}

    Args:
        old: the carry before the step (any pytree).
        new: the carry the step proposes (same structure).
        t: the step's index (0-based).
        diverged_step: int32, ``-1`` while the lane is alive, else its divergence step.
        ok: the step's verdict, usually :func:`within` of the new state.

    Returns:
        ``(carry, diverged_step, kept)``: ``kept`` is True when ``new`` was accepted.

    Example:
        >>> import jax.numpy as jnp
        >>> c, d, k = guard_update(jnp.float32(1.0), jnp.float32(jnp.inf), 3, jnp.int32(-1),
        ...                        within(jnp.float32(jnp.inf)))
        >>> float(c), int(d), bool(k)
        (1.0, 3, False)
        >>> c, d, k = guard_update(c, jnp.float32(2.0), 4, d, jnp.array(True))  # stays frozen
        >>> float(c), int(d), bool(k)
        (1.0, 3, False)
    """
    diverged_step = jnp.asarray(diverged_step, jnp.int32)
    alive = diverged_step < 0
    new_div = jnp.where(alive & ~ok, jnp.asarray(t, jnp.int32), diverged_step)
    keep = alive & ok
    carry = jax.tree.map(lambda a, b: jnp.where(keep, a, b), new, old)
    return carry, new_div, keep


def mask_diverged(tree: Any, diverged_step: jax.Array) -> Any:
    """NaN in every inexact leaf of ``tree`` when ``diverged_step >= 0`` (integer leaves unchanged).

    The summary metrics of a diverged lane (a final risk, a time average) are not data:
    they are reported as NaN, so that no statistic uses them by accident.

    Example:
        >>> import jax.numpy as jnp
        >>> out = mask_diverged({"risk": jnp.float32(0.5), "steps": jnp.int32(7)}, jnp.int32(3))
        >>> bool(jnp.isnan(out["risk"])), int(out["steps"])
        (True, 7)
        >>> float(mask_diverged(jnp.float32(0.5), jnp.int32(-1)))
        0.5
    """
    bad = jnp.asarray(diverged_step) >= 0

    def mask(v):
        v = jnp.asarray(v)
        if not jnp.issubdtype(v.dtype, jnp.inexact):
            return v
        return jnp.where(bad, jnp.asarray(jnp.nan, v.dtype), v)

    return jax.tree.map(mask, tree)


def first_nonfinite(ys: Any, axis: int = 0) -> jax.Array:
    """Index along ``axis`` of the first non-finite entry of a trajectory, or ``-1`` (int32).

    For a loop that is not guarded (its trajectory is already computed), this is the
    ``diverged_step`` :func:`guarded_scan` would have reported had it watched ``ys``.
    Every inexact leaf must have the step axis at ``axis``; any other axes are reduced.

    Example:
        >>> import jax.numpy as jnp
        >>> ys = jnp.array([[1.0, 2.0], [3.0, jnp.nan], [jnp.inf, 0.0]])
        >>> int(first_nonfinite(ys)), int(first_nonfinite(jnp.ones(4)))
        (1, -1)
    """
    leaves = [jnp.asarray(x) for x in jax.tree.leaves(ys)]
    leaves = [x for x in leaves if jnp.issubdtype(x.dtype, jnp.inexact)]
    if not leaves:
        return jnp.int32(-1)

    def bad_per_step(x):
        x = jnp.moveaxis(~jnp.isfinite(x), axis, 0)
        return x.reshape(x.shape[0], -1).any(1)

    bad = jnp.stack([bad_per_step(x) for x in leaves]).any(0)
    return jnp.where(bad.any(), jnp.argmax(bad), -1).astype(jnp.int32)


def guarded_scan(
    step: Callable[[Any, Any], tuple[Any, Any]],
    carry: Any,
    xs: Any = None,
    length: int | None = None,
    watch: Callable[[Any, Any], Any] | None = None,
    bound: float | None = None,
) -> tuple[Any, Any, jax.Array]:
    """``lax.scan`` that freezes the carry once it, or the step's output, is non-finite.

    .. math::
        c_{t+1} = \\begin{cases} f(c_t, x_t)_0 & \\text{if all finite and } t < t_\\dagger \\\\
        c_t & \\text{otherwise} \\end{cases}

    where :math:`t_\\dagger` is the first step whose new carry or output has a
    non-finite entry (or, given ``bound``, an entry larger than ``bound`` in modulus).

    Args:
        step: ``(carry, x) -> (new_carry, y)``, as for :func:`jax.lax.scan`.
        carry: initial carry (any pytree).
        xs: scanned inputs, or ``None``.
        length: number of steps when ``xs`` is ``None``.
        watch: ``watch(new_carry, y)`` selects the part of the state checked for
            finiteness (default: all of it), e.g. to leave out a NaN-filled log buffer.
        bound: also count as diverged a watched entry whose modulus exceeds this
            (see :func:`within`); ``None`` checks finiteness only.

    Returns:
        ``(final_carry, ys, diverged_step)``: the last finite carry, the stacked outputs
        (inexact leaves are NaN from the divergence step on) and the int32 index of the
        first non-finite step, or ``-1`` when the run stayed finite.

    Example:
        >>> import jax.numpy as jnp
        >>> def step(x, _):
        ...     x = 3.0 * x
        ...     return x, x
        >>> x, ys, t = guarded_scan(step, jnp.float32(1e36), length=8)
        >>> int(t), round(float(x) / 1e38, 2), bool(jnp.isnan(ys[5:]).all())
        (5, 2.43, True)
        >>> int(guarded_scan(step, jnp.float32(1.0), length=8, bound=100.0)[2])  # 3**5 > 100
        4
    """

    def body(c, x):
        inner, t, div = c
        new_inner, y = step(inner, x)
        ok = within(watch(new_inner, y) if watch else (new_inner, y), bound)
        inner_out, new_div, keep = guard_update(inner, new_inner, t, div, ok)
        y_out = jax.tree.map(
            lambda v: (
                jnp.where(keep, v, jnp.nan).astype(v.dtype) if jnp.issubdtype(v.dtype, jnp.inexact) else v
            ),
            y,
        )
        return (inner_out, t + 1, new_div), y_out

    init = (carry, jnp.int32(0), jnp.int32(-1))
    (final, _, div), ys = jax.lax.scan(body, init, xs, length=length)
    return final, ys, div
