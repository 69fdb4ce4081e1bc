"""Search policies behind one interface: ``init() / propose(state, key) / observe(state, x, y)``.

A policy is a :class:`SearchPolicy` of three pure functions; the search loop
(:func:`jaxtheory.sims.search.runner.run`) calls ``propose`` for the next recipe,
evaluates it and hands the observation to ``observe``. Uniform random search is
implemented, and GP-UCB on a finite candidate pool through the exact posterior of
:mod:`jaxtheory.sims.gp_bandits` (its kernels and the bordered Cholesky update).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxtheory.sims.gp_bandits import kernels as gpk
from jaxtheory.sims.gp_bandits import posterior as gpp

__all__ = ["SearchPolicy", "RandomSearchState", "random_search", "GPUCBState", "gp_ucb"]


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


class GPUCBState(NamedTuple):
    """State of :func:`gp_ucb`.

    Attributes:
        gp: the posterior on the pool (:class:`jaxtheory.sims.gp_bandits.posterior.GPState`).
        n_evals: evaluations observed so far (int32), also the next buffer slot.
    """

    gp: gpp.GPState
    n_evals: jax.Array


def gp_ucb(
    pool,
    budget: int,
    *,
    kernel: str = "matern52",
    lengthscale: float = 0.5,
    variance: float = 1.0,
    noise_var: float = 1e-4,
    beta: float = 4.0,
    nugget: float = 1e-5,
) -> SearchPolicy:
    """GP-UCB for minimisation on a finite pool: propose :math:`\\arg\\min \\mu - \\sqrt\\beta\\,\\sigma`.

    The posterior is the exact one of :mod:`jaxtheory.sims.gp_bandits.posterior` (zero prior
    mean, prior covariance the kernel plus ``nugget`` on the diagonal, model noise
    ``noise_var``), updated in :math:`O(Bn)` per observation.

    Args:
        pool: candidate recipes, shape ``(n, d)``.
        budget: the buffer size :math:`B` (evaluations at most).
        kernel: one of :data:`jaxtheory.sims.gp_bandits.kernels.KERNELS`.
        lengthscale: the kernel's lengthscale.
        variance: the kernel's variance.
        noise_var: the model's observation noise variance.
        beta: the confidence multiplier :math:`\\beta`.
        nugget: jitter on the prior diagonal.

    Returns:
        A :class:`SearchPolicy`; ``observe`` expects ``x`` to be a row of ``pool``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> pool = jax.random.uniform(jax.random.key(0), (64, 2), minval=-1.0, maxval=1.0)
        >>> pol = gp_ucb(pool, 8)
        >>> s = pol.init()
        >>> x = pol.propose(s, jax.random.key(1))
        >>> s = pol.observe(s, x, jnp.sum(x * x))
        >>> int(s.n_evals), bool(s.gp.var.min() < 1.0)
        (1, True)
    """
    pool = jnp.asarray(pool, jnp.float32)
    if pool.ndim != 2 or budget < 1 or kernel not in gpk.KERNELS:
        raise ValueError("gp_ucb needs a (n, d) pool, budget >= 1 and a kernel of gp_bandits.KERNELS")
    n = pool.shape[0]
    prior_var = jnp.full((n,), variance + nugget, jnp.float32)
    tol = 0.5 * nugget if noise_var == 0 else 0.0

    def init():
        return GPUCBState(gpp.init_state(prior_var, budget), jnp.zeros((), jnp.int32))

    def _index(x):
        return jnp.argmin(jnp.sum((pool - x) ** 2, axis=-1))

    def propose(state, key):
        lcb = state.gp.mean - jnp.sqrt(beta * jnp.maximum(state.gp.var, 0.0))
        return pool[jnp.argmin(lcb)]

    def observe(state, x, y):
        i = _index(x)
        krow = gpk.kernel_row(kernel, pool, i, lengthscale, variance) + nugget * (jnp.arange(n) == i)
        slot = jnp.minimum(state.n_evals, budget - 1)
        gp = gpp.observe(state.gp, slot, i, krow, jnp.asarray(y, jnp.float32), noise_var, tol)
        return GPUCBState(gp, state.n_evals + 1)

    return SearchPolicy(init, propose, observe)
