"""Piecewise-constant grids on [0, 1]² stored at the finest resolution, with a level.

A grid of level ``l`` has ``2**l × 2**l`` square cells. Every grid here is *stored* at
the finest resolution ``size × size`` (``size = 2**max_level``): a grid of level
``l < max_level`` is a fine array that is constant on blocks of ``size / 2**l`` fine
cells, and the level is an integer in the carry of a ``lax.scan``. Refinement is
``level + 1`` and leaves the stored array unchanged (a function constant on coarse cells
is constant on their children), so shapes never change and one compiled program serves
every level.

Coarse values use two layouts:

* *fine* arrays ``(size, size)``, constant on the current cells;
* *slot* arrays ``(size * size,)``: the ``4**l`` coarse values of level ``l`` in row-major
  order in the first slots, the rest zero (the padding a traced level needs).

:func:`coarsen` takes fine to slots (block means by reshape-mean, one branch per level),
:func:`expand` takes slots back to fine. :func:`sample_cells` estimates cell means and
within-cell variances of a function from the same ``k`` random offsets in every cell
(the authors' estimator) and :func:`sample_cost` counts its cell samples, the cost
every run reports.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

__all__ = [
    "block_mean",
    "block_var",
    "cell_ids",
    "coarsen",
    "expand",
    "level_means",
    "midpoints",
    "sample_cells",
    "sample_cost",
    "size_level",
]


def size_level(size: int) -> int:
    """The level of a grid of ``size × size`` cells (``size`` a power of two).

    Args:
        size: cells per side.

    Returns:
        ``log2(size)``.

    Raises:
        ValueError: if ``size`` is not a positive power of two.

    Example:
        >>> size_level(256)
        8
    """
    s = int(size)
    if s < 1 or s & (s - 1) or s != size:
        raise ValueError(f"a grid size must be a positive power of two, got {size!r}")
    return s.bit_length() - 1


def _check_factor(x, factor: int) -> tuple[int, int]:
    n = x.shape[-1]
    if x.ndim < 2 or x.shape[-2] != n:
        raise ValueError(f"expected a square grid in the last two axes, got shape {x.shape}")
    if factor < 1 or n % factor:
        raise ValueError(f"block factor {factor} does not divide the grid size {n}")
    return n, n // factor


def block_mean(x, factor: int):
    """Means over ``factor × factor`` blocks of a square grid (reshape-mean).

    Args:
        x: array ``(..., n, n)``.
        factor: block side, a divisor of ``n`` (a Python int: it fixes shapes).

    Returns:
        Array ``(..., n // factor, n // factor)``.

    Raises:
        ValueError: if ``x`` is not square in its last two axes or ``factor`` does not divide ``n``.

    Example:
        >>> block_mean(jnp.arange(16.0).reshape(4, 4), 2).tolist()
        [[2.5, 4.5], [10.5, 12.5]]
    """
    _, m = _check_factor(x, factor)
    shape = x.shape[:-2] + (m, factor, m, factor)
    return x.reshape(shape).mean(axis=(-3, -1))


def block_var(x, factor: int):
    """Within-block (population, ``ddof = 0``) variances over ``factor × factor`` blocks.

    Args:
        x: array ``(..., n, n)``.
        factor: block side, a divisor of ``n``.

    Returns:
        Array ``(..., n // factor, n // factor)``: the mean of squared deviations from
        each block's mean.

    Raises:
        ValueError: as :func:`block_mean`.

    Example:
        >>> block_var(jnp.arange(16.0).reshape(4, 4), 2).tolist()
        [[4.25, 4.25], [4.25, 4.25]]
    """
    _, m = _check_factor(x, factor)
    shape = x.shape[:-2] + (m, factor, m, factor)
    b = x.reshape(shape)
    mu = b.mean(axis=(-3, -1), keepdims=True)
    return ((b - mu) ** 2).mean(axis=(-3, -1))


def midpoints(n: int, dtype=jnp.float32):
    """Cell midpoints ``(i + ½)/n`` of ``n`` equal cells of [0, 1].

    Args:
        n: number of cells.
        dtype: result dtype.

    Returns:
        Array ``(n,)``.

    Example:
        >>> midpoints(4).tolist()
        [0.125, 0.375, 0.625, 0.875]
    """
    return (jnp.arange(n, dtype=dtype) + 0.5) / n


def cell_ids(level, size: int):
    """For every fine cell, the row-major index of the level-``level`` cell holding it.

    Args:
        level: integer level ``l`` (may be traced), ``2**l <= size``.
        size: fine cells per side (a power of two).

    Returns:
        int32 array ``(size, size)``: ``(i // h) * 2**l + j // h`` with ``h = size / 2**l``.

    Example:
        >>> cell_ids(1, 4).tolist()
        [[0, 0, 1, 1], [0, 0, 1, 1], [2, 2, 3, 3], [2, 2, 3, 3]]
    """
    lmax = size_level(size)
    level = jnp.asarray(level, jnp.int32)
    shift = lmax - level
    idx = jnp.arange(size, dtype=jnp.int32) >> shift
    return (idx[:, None] << level) + idx[None, :]


def coarsen(fine, level, size: int | None = None):
    """Block means of a fine grid at a (traced) level, in slot layout.

    One reshape-mean branch per level, chosen by ``lax.switch``.

    Args:
        fine: array ``(size, size)``.
        level: integer level ``l`` in ``[0, log2 size]``.
        size: fine cells per side; defaults to ``fine.shape[-1]``.

    Returns:
        Array ``(size * size,)``: the ``4**l`` block means in row-major order, then zeros.

    Example:
        >>> coarsen(jnp.arange(16.0).reshape(4, 4), 1)[:4].tolist()
        [2.5, 4.5, 10.5, 12.5]
    """
    size = int(fine.shape[-1]) if size is None else size
    lmax = size_level(size)

    def branch(lv):
        def f(x):
            m = block_mean(x, size >> lv).reshape(-1)
            return jnp.zeros(size * size, x.dtype).at[: m.size].set(m)

        return f

    return jax.lax.switch(jnp.clip(level, 0, lmax), [branch(lv) for lv in range(lmax + 1)], fine)


def expand(slots, level, size: int):
    """A fine grid, constant on level-``level`` cells, from slot-layout coarse values.

    Args:
        slots: array ``(size * size,)`` as returned by :func:`coarsen`.
        level: integer level.
        size: fine cells per side.

    Returns:
        Array ``(size, size)``.

    Example:
        >>> expand(jnp.arange(16.0), 1, 4).tolist()[0]
        [0.0, 0.0, 1.0, 1.0]
    """
    return slots[cell_ids(level, size)]


def level_means(fine, lmin: int = 0):
    """The projection of a fine grid onto every coarser level, each expanded to fine.

    Args:
        fine: array ``(size, size)`` (a power-of-two size).
        lmin: lowest level to include.

    Returns:
        Array ``(log2 size - lmin + 1, size, size)``: entry ``i`` is constant on the cells
        of level ``lmin + i`` and equals ``fine``'s block means there.

    Example:
        >>> level_means(jnp.arange(4.0).reshape(2, 2))[0].tolist()
        [[1.5, 1.5], [1.5, 1.5]]
    """
    size = int(fine.shape[-1])
    lmax = size_level(size)
    out = []
    for lv in range(lmin, lmax + 1):
        h = size >> lv
        m = block_mean(fine, h)
        out.append(jnp.repeat(jnp.repeat(m, h, axis=-2), h, axis=-1))
    return jnp.stack(out)


def sample_cells(fn: Callable, level, offsets, size: int):
    """Sampled cell means and within-cell variances of ``fn`` on the level-``level`` grid.

    Every cell ``c = [a/n, (a+1)/n) × [b/n, (b+1)/n)`` (``n = 2**level``) is sampled at
    the points ``((a + o_j0)/n, (b + o_j1)/n)`` for the same offsets ``o_j`` in every cell
    (the authors' estimator: ``k`` uniform offsets shared by all cells). The work is a
    fixed ``size² × k`` evaluations whatever the level (slots past ``4**level`` are
    padding); :func:`sample_cost` counts the samples that belong to cells.

    Args:
        fn: vectorized ``fn(x, y) -> values``.
        level: integer level (may be traced).
        offsets: array ``(k, 2)`` in ``[0, 1)``.
        size: slots per side (``4**level <= size**2``).

    Returns:
        ``(mean, var, valid)``, each ``(size * size,)`` in slot layout: the sample mean,
        the sample variance (``ddof = 0``, as ``jnp.var``) and whether the slot is a cell.

    Example:
        >>> offs = jnp.array([[0.25, 0.25], [0.75, 0.75]])
        >>> mean, var, valid = sample_cells(lambda x, y: x, 1, offs, 2)
        >>> mean.tolist(), var.tolist()
        ([0.25, 0.25, 0.75, 0.75], [0.015625, 0.015625, 0.015625, 0.015625])
    """
    level = jnp.asarray(level, jnp.int32)
    n = jnp.left_shift(jnp.int32(1), level)
    slot = jnp.arange(size * size, dtype=jnp.int32)
    valid = slot < n * n
    a = jnp.where(valid, slot >> level, 0)
    b = jnp.where(valid, slot & (n - 1), 0)
    nf = n.astype(offsets.dtype)
    x = (a[:, None].astype(offsets.dtype) + offsets[None, :, 0]) / nf
    y = (b[:, None].astype(offsets.dtype) + offsets[None, :, 1]) / nf
    vals = fn(x, y)
    mean = vals.mean(axis=1)
    var = ((vals - mean[:, None]) ** 2).mean(axis=1)
    zero = jnp.zeros_like(mean)
    return jnp.where(valid, mean, zero), jnp.where(valid, var, zero), valid


def sample_cost(level, k: int):
    """Cell samples of one :func:`sample_cells` call: ``4**level × k``.

    Args:
        level: integer level (may be traced).
        k: samples per cell.

    Returns:
        int32 count.

    Example:
        >>> int(sample_cost(3, 8))
        512
    """
    level = jnp.asarray(level, jnp.int32)
    return jnp.left_shift(jnp.int32(1), 2 * level) * jnp.int32(k)
