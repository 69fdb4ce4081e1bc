"""Helpers shared by simulators: log-spaced record steps, recording scans, running averages.

* :func:`log_steps`: the (static, host-side) step counts at which a curve is recorded,
  about ``num`` of them log-spaced from ``start`` to ``steps``, distinct.
* :func:`scan_record`: run a step function for ``length`` steps and keep ``observe(carry)``
  only at the given step counts (memory :math:`O(\\#\\text{records})`, not
  :math:`O(\\text{length})`), optionally under the divergence guard of
  :mod:`jaxtheory.divergence`.
* :func:`polyak_update`: the running (Polyak–Ruppert) average of an iterate, optionally
  over a tail window only.

The divergence helpers (:func:`~jaxtheory.divergence.guarded_scan`,
:func:`~jaxtheory.divergence.mask_diverged`, :func:`~jaxtheory.divergence.first_nonfinite`)
live in :mod:`jaxtheory.divergence` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.divergence import first_nonfinite, guard_update, guarded_scan, mask_diverged, within

__all__ = [
    "log_steps",
    "scan_record",
    "polyak_update",
    "guarded_scan",
    "mask_diverged",
    "first_nonfinite",
]


def log_steps(steps: int, num: int, *, start: int = 1, include_zero: bool = False) -> np.ndarray:
    """Step counts at which a curve is recorded: about ``num`` log-spaced in ``[start, steps]``.

    The values are ``round(geomspace(start, steps, num))``, deduplicated (so fewer than
    ``num`` where the early ones collide), always ending at ``steps``; with
    ``include_zero`` the initial state (step count 0) comes first. A step count ``t``
    means "after ``t`` updates", so the value recorded at ``t`` of a trajectory
    ``ys[i] = f(state after i + 1 updates)`` is ``ys[t - 1]``.

    Args:
        steps: the horizon (last recorded step count), at least ``start``.
        num: how many log-spaced points to draw before deduplication.
        start: the first step count (at least 1).
        include_zero: prepend 0 (the initial state).

    Returns:
        Sorted distinct ``int64`` step counts.

    Example:
        >>> log_steps(1000, 4).tolist()
        [1, 10, 100, 1000]
        >>> log_steps(10, 6).tolist()  # 1, 1.58, 2.51, 3.98, 6.31, 10 rounded, then deduplicated
        [1, 2, 3, 4, 6, 10]
        >>> log_steps(100, 3, include_zero=True).tolist()
        [0, 1, 10, 100]
        >>> log_steps(1000, 3, start=10).tolist()
        [10, 100, 1000]
    """
    if start < 1 or steps < start:
        raise ValueError(f"need 1 <= start <= steps, got start={start}, steps={steps}")
    if num < 1:
        raise ValueError(f"num must be at least 1, got {num}")
    t = np.unique(np.round(np.geomspace(start, steps, num)).astype(np.int64))
    if include_zero:
        t = np.concatenate([np.zeros(1, np.int64), t])
    return t


def _check_record_at(record_at: Sequence[int] | np.ndarray, length: int) -> np.ndarray:
    rec = np.asarray(record_at)
    if rec.ndim != 1 or rec.size == 0 or not np.issubdtype(rec.dtype, np.integer):
        raise ValueError(f"record_at must be a non-empty 1-d array of integers, got {record_at!r}")
    if rec[0] < 0 or rec[-1] > length or np.any(np.diff(rec) <= 0):
        raise ValueError(f"record_at must increase strictly within [0, {length}], got {rec.tolist()}")
    return rec.astype(np.int32)


def scan_record(
    step: Callable[[Any, jax.Array], Any],
    carry: Any,
    record_at: Sequence[int] | np.ndarray,
    observe: Callable[[Any], Any],
    *,
    length: int,
    guard: bool = False,
    watch: Callable[[Any], Any] | None = None,
    bound: float | None = None,
) -> tuple[Any, Any, jax.Array]:
    """Run ``carry = step(carry, t)`` for ``t = 0..length-1`` and record ``observe(carry)`` at ``record_at``.

    ``record_at`` holds static step counts (``0`` is the initial carry, ``r`` the carry
    after ``r`` steps), strictly increasing within ``[0, length]``, e.g. from
    :func:`log_steps`. The loop is one :func:`jax.lax.scan` over the records whose body
    advances the state to the next record with a :func:`jax.lax.fori_loop`, so memory
    is :math:`O(\\#\\text{records})` whatever ``length`` is, and ``observe`` is evaluated
    only at the records. The result equals running the full trajectory and indexing it
    at ``record_at`` (the step function sees the same carries and the same ``t``).

    With ``guard`` the loop is the divergence guard of
    :func:`jaxtheory.divergence.guarded_scan`: the first step whose new carry (or
    ``watch(new_carry)``) is not finite, or exceeds ``bound`` in modulus, freezes the
    carry at its last good value and is reported as ``diverged_step``; records from then
    on are NaN in their inexact leaves.

    Args:
        step: ``(carry, t) -> carry``, ``t`` the int32 0-based step index.
        carry: the initial carry (any pytree).
        record_at: static step counts to record at.
        observe: ``carry -> pytree`` of what is recorded.
        length: the number of steps.
        guard: freeze the lane at its first non-finite step (see above).
        watch: ``carry -> pytree``, the part checked by the guard (default: the whole
            carry); it may also compute a quantity from the carry that must stay finite.
        bound: with ``guard``, also a modulus bound (:func:`jaxtheory.divergence.within`).

    Returns:
        ``(final_carry, records, diverged_step)``: every leaf of ``records`` has a leading
        axis of length ``len(record_at)``; ``diverged_step`` is the int32 first
        diverging step, ``-1`` when the run stayed finite (always ``-1`` without
        ``guard``).

    Reverse-mode differentiation is not supported (the inner loop has traced bounds).

    Example:
        >>> import jax.numpy as jnp
        >>> step = lambda x, t: 0.5 * x + t
        >>> x, rec, div = scan_record(step, jnp.float32(8.0), [0, 1, 3], lambda x: x, length=5)
        >>> rec.tolist(), float(x), int(div)  # carries 8, 4, 3, 3.5, 4.75, 6.375
        ([8.0, 4.0, 3.5], 6.375, -1)
        >>> grow = lambda x, t: x * 1e20
        >>> x, rec, div = scan_record(grow, jnp.float32(1.0), [1, 2, 3], lambda x: x, length=4, guard=True)
        >>> rec.tolist(), float(x), int(div)  # the step t = 1 overflows: frozen at 1e20
        ([1.0000000200408773e+20, nan, nan], 1.0000000200408773e+20, 1)
    """
    rec = _check_record_at(record_at, length)
    lo = np.concatenate([np.zeros(1, np.int32), rec[:-1]])

    def body(t, state):
        inner, div = state
        new = step(inner, t)
        if not guard:
            return new, div
        ok = within(watch(new) if watch else new, bound)
        inner, div, _ = guard_update(inner, new, t, div, ok)
        return inner, div

    def segment(state, bounds):
        state = jax.lax.fori_loop(bounds[0], bounds[1], body, state)
        obs = observe(state[0])
        if guard:
            obs = mask_diverged(obs, state[1])
        return state, obs

    state, records = jax.lax.scan(segment, (carry, jnp.int32(-1)), (jnp.asarray(lo), jnp.asarray(rec)))
    if rec[-1] < length:
        state = jax.lax.fori_loop(np.int32(rec[-1]), np.int32(length), body, state)
    return state[0], records, state[1]


def polyak_update(avg: Any, x: Any, t: jax.Array, *, start: int | jax.Array = 0) -> Any:
    """One step of the running (Polyak–Ruppert) average of ``x_start, ..., x_t``.

    .. math::
        \\bar x_t = \\bar x_{t-1} + \\frac{x_t - \\bar x_{t-1}}{t - s + 1}
        \\quad (t \\ge s), \\qquad \\bar x_t = \\bar x_{t-1} \\quad (t < s),

    so that after the update at ``t`` the average is the mean of ``x_s, ..., x_t``
    (``s = start``; a tail average with ``start > 0``). Before ``start`` the average is
    left as it is (start it at zeros). Works on pytrees leaf by leaf; jit/vmap-safe,
    ``t`` and ``start`` may be traced.

    Example:
        >>> import jax.numpy as jnp
        >>> avg = jnp.float32(0.0)
        >>> for t, x in enumerate([4.0, 1.0, 2.0, 3.0]):
        ...     avg = polyak_update(avg, jnp.float32(x), t, start=1)
        >>> float(avg)  # mean of 1, 2, 3
        2.0
    """
    n = jnp.asarray(t) - jnp.asarray(start) + 1
    on = n >= 1

    def upd(a, v):
        a = jnp.asarray(a)
        count = jnp.maximum(n, 1).astype(a.dtype)
        return jnp.where(on, a + (v - a) / count, a)

    return jax.tree.map(upd, avg, x)
