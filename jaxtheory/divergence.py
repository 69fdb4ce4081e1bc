"""Divergence handling inside a run: freeze a lane's state when it goes non-finite.

Simulators loop with :func:`guarded_scan` instead of :func:`jax.lax.scan` so that a
lane whose state or outputs stop being finite is frozen at its last finite state and
reports the step where that happened. Outputs from that step on are NaN, so a plot
shows the blow-up as a gap, never as data. Under ``jax.vmap`` each lane freezes on
its own; its neighbours are untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["guarded_scan", "all_finite"]


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


def guarded_scan(
    step: Callable[[Any, Any], tuple[Any, Any]],
    carry: Any,
    xs: Any = None,
    length: int | None = None,
    watch: Callable[[Any, Any], Any] | None = None,
) -> tuple[Any, Any, jax.Array]:
    """``lax.scan`` that freezes the carry once it, or the step's output, is non-finite.

    .. math::
        c_{t+1} = \\begin{cases} f(c_t, x_t)_0 & \\text{if all finite and } t < t_\\dagger \\\\
        c_t & \\text{otherwise} \\end{cases}

    where :math:`t_\\dagger` is the first step whose new carry or output has a
    non-finite entry.

    Args:
        step: ``(carry, x) -> (new_carry, y)``, as for :func:`jax.lax.scan`.
        carry: initial carry (any pytree).
        xs: scanned inputs, or ``None``.
        length: number of steps when ``xs`` is ``None``.
        watch: ``watch(new_carry, y)`` selects the part of the state checked for
            finiteness (default: all of it), e.g. to leave out a NaN-filled log buffer.

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
    """

    def body(c, x):
        inner, t, div = c
        new_inner, y = step(inner, x)
        ok = all_finite(watch(new_inner, y)) if watch else all_finite(new_inner) & all_finite(y)
        alive = div < 0
        new_div = jnp.where(alive & ~ok, t, div)
        keep = alive & ok
        inner_out = jax.tree.map(lambda a, b: jnp.where(keep, a, b), new_inner, inner)
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
