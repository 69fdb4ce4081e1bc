"""Search policies behind one interface: ``init() / propose(state, key) / observe(state, x, y)``.

A policy is a :class:`SearchPolicy` of three pure functions; the search loop
(:func:`jaxtheory.sims.search.runner.run`) calls ``propose`` for the next recipe,
evaluates it and hands the observation to ``observe``. Only uniform random search is
implemented; a GP-BO policy over :mod:`jaxtheory.sims.gp_bandits` would plug in here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["SearchPolicy", "RandomSearchState", "random_search"]


class SearchPolicy(NamedTuple):
    """A search policy as three pure functions.

    Attributes:
        init: ``init() -> state``.
        propose: ``propose(state, key) -> x``, the next recipe (shape ``(d,)``).
        observe: ``observe(state, x, y) -> state``, after evaluating ``x`` to ``y``.
    """

    init: Callable[[], Any]
    propose: Callable[[Any, jax.Array], jax.Array]
    observe: Callable[[Any, jax.Array, jax.Array], Any]


class RandomSearchState(NamedTuple):
    """State of :func:`random_search`: only the count of evaluations.

    Attributes:
        n_evals: evaluations observed so far (int32).
    """

    n_evals: jax.Array


def random_search(dim: int, low: float = -1.0, high: float = 1.0) -> SearchPolicy:
    """Uniform random search on the box :math:`[\\text{low}, \\text{high}]^d`.

    Args:
        dim: the dimension :math:`d`.
        low: lower end of every coordinate.
        high: upper end of every coordinate.

    Returns:
        A :class:`SearchPolicy`; proposals ignore the observations.

    Example:
        >>> import jax
        >>> pol = random_search(3)
        >>> s = pol.init()
        >>> x = pol.propose(s, jax.random.key(0))
        >>> x.shape, int(pol.observe(s, x, 0.5).n_evals)
        ((3,), 1)
    """
    if dim < 1 or not high > low:
        raise ValueError(f"random_search needs dim >= 1 and high > low; got {dim}, {low}, {high}")

    def init():
        return RandomSearchState(jnp.zeros((), jnp.int32))

    def propose(state, key):
        return jax.random.uniform(key, (dim,), jnp.float32, low, high)

    def observe(state, x, y):
        return RandomSearchState(state.n_evals + 1)

    return SearchPolicy(init, propose, observe)
