"""Shared pieces of transforms that use function values (the value-function convention).

Optimizers that need more than a gradient — a function value, a directional derivative,
a sufficient-decrease test — are :class:`optax.GradientTransformationExtraArgs` whose
``update`` takes the keyword extras ``value`` (:math:`f` at the current parameters) and
``value_fn`` (a callable :math:`f`), the names :func:`optax.scale_by_backtracking_linesearch`
uses. Such a transform keeps its PRNG key in its state and counts the function
evaluations it spends in an ``n_evals`` field of its state, so a run can report a
``cost`` metric and claims compare methods at equal cost, never by wall-clock.
:func:`n_evals` reads that counter from any (possibly chained) state.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["accept_if_decrease", "n_evals"]


def _as_key(key):
    """A PRNG key from a seed (a Python int or an integer scalar array, traced or not), or
    ``key`` itself when it already is a key (raw ``uint32[2]`` data or a typed key).

    An integer scalar array is what :func:`optax.inject_hyperparams` makes of an int
    argument, and what ``jax.vmap`` over seeds passes in. Shared by every transform that
    keeps its key in its state.
    """
    if isinstance(key, bool):
        raise TypeError("a seed or key must be an int or a PRNG key, got a bool")
    if isinstance(key, int):
        return jax.random.PRNGKey(key)
    dtype = getattr(key, "dtype", None)
    if dtype is not None and jnp.ndim(key) == 0 and jnp.issubdtype(dtype, jnp.integer):
        return jax.random.PRNGKey(key)
    return key


def accept_if_decrease(candidate, fallback, value_candidate, value_fallback, decrease=0.0):
    """Keep ``candidate`` when it decreases the value enough, else ``fallback``.

    The sufficient-decrease selection of exploration steps and safeguarded
    extrapolation: accept iff

    .. math:: f(\\text{candidate}) \\le f(\\text{fallback}) - \\text{decrease},

    and never accept a non-finite candidate value. Branch-free (``jnp.where`` per leaf),
    so it vectorises under ``jax.vmap``.

    Args:
        candidate: the proposed point (a pytree).
        fallback: the point kept on rejection (same structure).
        value_candidate: :math:`f` at the candidate (scalar).
        value_fallback: :math:`f` at the fallback (scalar).
        decrease: the required decrease, e.g. :math:`\\sigma s^2\\lVert d\\rVert^2`
            (``0``: no worse than the fallback).

    Returns:
        ``(point, value, accepted)``: the selected pytree, its value and a boolean scalar.

    Example:
        >>> import jax.numpy as jnp
        >>> x, v, ok = accept_if_decrease(jnp.zeros(2), jnp.ones(2), 0.5, 1.0, decrease=0.1)
        >>> bool(ok), float(v)
        (True, 0.5)
    """
    if jax.tree.structure(candidate) != jax.tree.structure(fallback):
        raise ValueError("candidate and fallback must have the same pytree structure")
    vc = jnp.asarray(value_candidate)
    vf = jnp.asarray(value_fallback)
    accepted = jnp.isfinite(vc) & (vc <= vf - decrease)
    point = jax.tree.map(lambda c, b: jnp.where(accepted, c, b), candidate, fallback)
    return point, jnp.where(accepted, vc, vf), accepted


def n_evals(state) -> jax.Array:
    """Total function evaluations counted in a transform's state.

    Sums every ``n_evals`` field found in ``state`` (a NamedTuple state or a tuple of
    states from :func:`optax.chain`); ``0`` when none counts evaluations.

    Args:
        state: an optax state.

    Returns:
        An integer scalar.
    """
    total = jnp.zeros((), jnp.int32)
    stack = [state]
    while stack:
        s = stack.pop()
        if hasattr(s, "_fields"):
            if "n_evals" in s._fields:
                total = total + jnp.asarray(s.n_evals, jnp.int32)
            stack.extend(getattr(s, f) for f in s._fields if f != "n_evals")
        elif isinstance(s, (tuple, list)):
            stack.extend(s)
        elif isinstance(s, dict):
            stack.extend(s.values())
    return total
