"""Chunked base-n enumeration: all n^m assignments of m positions to n symbols, in jnp.

Assignment number ``t`` (``0 <= t < n**m``) has the base-``n`` digits of ``t``, most
significant first, so the rows come in the order of ``itertools.product(range(n),
repeat=m)``. :func:`map_chunks` evaluates a function on the assignments chunk by
chunk under ``lax.map`` (one chunk of ``chunk`` rows in memory at a time, the chunk
body vectorised), which is how exhaustive searches over allocations or orientations
are written here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

__all__ = ["num_assignments", "digits", "all_assignments", "num_chunks", "map_chunks"]

_INT32_MAX = 2**31 - 1


def num_assignments(n: int, m: int) -> int:
    """The number ``n**m`` of assignments of ``m`` positions to ``n`` symbols.

    Args:
        n: number of symbols (a positive int).
        m: number of positions (a non-negative int).

    Returns:
        ``n**m`` as a Python int.

    Raises:
        ValueError: when ``n < 1``, ``m < 0`` or ``n**m`` does not fit an int32 index.

    Example:
        >>> num_assignments(3, 4)
        81
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    if isinstance(m, bool) or not isinstance(m, int) or m < 0:
        raise ValueError(f"m must be a non-negative int, got {m!r}")
    total = n**m
    if total > _INT32_MAX:
        raise ValueError(f"n**m = {n}**{m} = {total} assignments exceed an int32 index")
    return total


def digits(index: jax.Array, n: int, m: int) -> jax.Array:
    """Base-``n`` digits of ``index``, most significant first.

    Args:
        index: integer array of any shape, entries in ``[0, n**m)``.
        n: the base (a positive int).
        m: number of digits.

    Returns:
        int32 array of shape ``index.shape + (m,)``; entry ``[..., p]`` is digit ``p``
        (``p = 0`` the most significant), so ``sum(d[p] * n**(m-1-p)) == index``.

    Example:
        >>> digits(jnp.array([5, 7]), 2, 3).tolist()
        [[1, 0, 1], [1, 1, 1]]
    """
    num_assignments(n, m)
    index = jnp.asarray(index, jnp.int32)
    powers = jnp.asarray([n ** (m - 1 - p) for p in range(m)], jnp.int32)
    return (index[..., None] // powers) % n


def all_assignments(n: int, m: int) -> jax.Array:
    """Every assignment of ``m`` positions to ``n`` symbols, in ``itertools.product`` order.

    Args:
        n: number of symbols.
        m: number of positions.

    Returns:
        int32 array of shape ``(n**m, m)``.

    Example:
        >>> all_assignments(2, 2).tolist()
        [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    return digits(jnp.arange(num_assignments(n, m), dtype=jnp.int32), n, m)


def num_chunks(n: int, m: int, chunk: int) -> int:
    """How many chunks of ``chunk`` rows :func:`map_chunks` uses for ``n**m`` assignments.

    Args:
        n: number of symbols.
        m: number of positions.
        chunk: rows per chunk (a positive int).

    Returns:
        ``ceil(n**m / chunk)``.

    Raises:
        ValueError: when ``chunk < 1``, or as :func:`num_assignments`.

    Example:
        >>> num_chunks(3, 4, 32)
        3
    """
    total = num_assignments(n, m)
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise ValueError(f"chunk must be a positive int, got {chunk!r}")
    return -(-total // chunk)


def map_chunks(f: Callable[[jax.Array, jax.Array], Any], n: int, m: int, chunk: int) -> Any:
    """Apply ``f(assignments, valid)`` to every chunk of the ``n**m`` assignments under ``lax.map``.

    Chunk ``c`` holds assignments ``c*chunk ... c*chunk + chunk - 1``; indices past
    ``n**m - 1`` (in the last chunk) are padding: their rows are those of index 0 and
    ``valid`` is False there, so ``f`` must mask them (``jnp.where(valid, x, identity)``)
    before reducing. Traceable: call it inside ``jit``/``vmap``.

    Args:
        f: ``f(a, valid)`` with ``a`` int32 ``(chunk, m)`` and ``valid`` bool ``(chunk,)``,
            returning a pytree of arrays.
        n: number of symbols.
        m: number of positions.
        chunk: rows per chunk.

    Returns:
        The outputs of ``f`` stacked on a new leading axis of length
        :func:`num_chunks`.

    Example:
        >>> import numpy as np
        >>> out = map_chunks(lambda a, ok: jnp.where(ok, a.sum(1), 0).sum(), 3, 4, 32)
        >>> int(out.sum()) == sum(sum(t) for t in np.ndindex(3, 3, 3, 3))
        True
    """
    total = num_assignments(n, m)
    count = num_chunks(n, m, chunk)
    offsets = jnp.arange(chunk, dtype=jnp.int32)

    def body(c):
        idx = c * chunk + offsets
        valid = idx < total
        return f(digits(jnp.where(valid, idx, 0), n, m), valid)

    return jax.lax.map(body, jnp.arange(count, dtype=jnp.int32))
