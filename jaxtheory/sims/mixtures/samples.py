r"""Sample-size masks: a padded dataset with per-sample weights, so ``n`` is a dynamic axis.

A sweep over the sample size ``n`` would compile once per ``n`` if every array had
``n`` rows. Instead every lane draws ``n_max`` samples and weights them with
:func:`size_mask`: weight 1 on the first ``n`` rows, 0 on the rest. Statistics then use
:func:`weighted_mean` / :func:`weighted_sum`, which give exactly zero weight to the
padding, so a masked run is an unpadded run of size ``n`` up to the order of the
floating-point reduction (the sums run over ``n_max`` terms, ``n_max - n`` of them exact
zeros, in XLA's own association; the results agree to rounding, not bitwise). ``n`` is an
ordinary traced scalar: it can be vmapped over.

The first ``n`` rows of an ``n_max`` draw are the lane's dataset, so datasets of one seed
are nested across ``n`` (common random numbers along the sample-size axis).
"""

from __future__ import annotations

import jax.numpy as jnp

__all__ = ["size_mask", "weighted_mean", "weighted_sum"]


def size_mask(n_max: int, n, dtype=None):
    """Weights ``1`` on the first ``n`` of ``n_max`` rows and ``0`` on the rest.

    Args:
        n_max: the padded length (a Python int: it fixes the shape).
        n: the sample size, a scalar (traced or not); ``0 <= n <= n_max``, rounded
            to the nearest integer (sweep axes are floats).
        dtype: the weights' dtype (default: the default float dtype).

    Returns:
        An array of shape ``(n_max,)``.

    Raises:
        ValueError: when ``n_max`` is not a positive int, or a concrete ``n`` lies
            outside ``[0, n_max]``.

    Example:
        >>> size_mask(5, 3).tolist()
        [1.0, 1.0, 1.0, 0.0, 0.0]
    """
    if not isinstance(n_max, int) or isinstance(n_max, bool) or n_max < 1:
        raise ValueError(f"n_max must be a positive int, got {n_max!r}")
    try:
        nv = float(n)
    except Exception:  # a tracer: checked by the caller's shapes only
        nv = None
    if nv is not None and not 0 <= round(nv) <= n_max:
        raise ValueError(f"sample size n = {nv} is outside [0, n_max = {n_max}]")
    dtype = dtype or jnp.zeros(()).dtype
    return (jnp.arange(n_max) < jnp.round(jnp.asarray(n))).astype(dtype)


def weighted_sum(values, weights, axis=0):
    """``Σ_i w_i v_i`` along ``axis`` (zero-weight rows contribute exact zeros).

    Padding rows may hold any finite value; a non-finite value in a zero-weight row
    would still poison the sum (``0 · inf`` is nan), so it is replaced by 0 first.

    Args:
        values: array whose ``axis`` has the samples.
        weights: shape ``(values.shape[axis],)``.
        axis: the sample axis.

    Returns:
        The weighted sum, ``values`` with ``axis`` removed.

    Example:
        >>> float(weighted_sum(jnp.array([1.0, 2.0, jnp.inf]), jnp.array([1.0, 1.0, 0.0])))
        3.0
    """
    values = jnp.moveaxis(jnp.asarray(values), axis, 0)
    weights = jnp.asarray(weights, values.dtype)
    if weights.shape != values.shape[:1]:
        raise ValueError(f"weights of shape {weights.shape} do not match {values.shape[0]} samples")
    w = weights.reshape(weights.shape + (1,) * (values.ndim - 1))
    return jnp.sum(jnp.where(w > 0, values, 0.0) * w, axis=0)


def weighted_mean(values, weights, axis=0):
    """``Σ_i w_i v_i / Σ_i w_i`` along ``axis``: the mean over the unmasked samples.

    Args:
        values: array whose ``axis`` has the samples.
        weights: shape ``(values.shape[axis],)``, non-negative, not all zero.
        axis: the sample axis.

    Returns:
        The weighted mean, ``values`` with ``axis`` removed.

    Example:
        >>> x = jnp.arange(6.0)
        >>> float(weighted_mean(x, size_mask(6, 4)))
        1.5
    """
    return weighted_sum(values, weights, axis) / jnp.sum(jnp.asarray(weights, jnp.asarray(values).dtype))
