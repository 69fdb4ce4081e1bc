"""The search loop: ``K`` noisy evaluations of a quadratic landscape, running best in a scan.

Each step proposes a recipe, observes :math:`y = \\text{gap}(\\theta) + \\sigma\\xi`
(:math:`\\xi` standard normal, independent per evaluation) and keeps the recipe with the
smallest *observed* value, as a practitioner would. The run reports, at the
:func:`checkpoints`, the true gap of that recipe (``gap``), its observed value
(``observed``) and the smallest true gap among the evaluated recipes (``oracle_gap``: the
noise-free running best on the same draws).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.search import landscapes
from jaxtheory.sims.search.policies import gp_ucb, random_search
from jaxtheory.simulator import Simulator

__all__ = ["POLICIES", "DEFAULT_PARAMS", "SIMULATOR", "SearchSpec", "checkpoints", "run"]

#: Names of the search policies :func:`run` knows (a spec field: static): uniform random
#: search and GP-UCB on a pool of ``spec.pool`` uniform candidates.
POLICIES = ("random", "gp_ucb")

#: Default of every parameter :func:`run` reads: noise sd ``sigma``, the Hessian diagonal
#: evenly spaced from ``h_lo`` to ``h_hi``, and the optimum ``center``·(1, ..., 1).
DEFAULT_PARAMS = {"sigma": 0.0, "h_lo": 1.0, "h_hi": 1.0, "center": 0.0}


@dataclasses.dataclass(frozen=True)
class SearchSpec:
    """What fixes the shapes of a search run (the compile key).

    Attributes:
        dim: dimension :math:`d` of the recipe.
        budget: the largest number of evaluations :math:`K`.
        policy: one of :data:`POLICIES`.
        pool: GP-UCB's candidate pool size (drawn uniformly per lane).
        gp_lengthscale: GP-UCB's Matérn-5/2 lengthscale.
        gp_noise_var: GP-UCB's model noise variance.
        gp_beta: GP-UCB's confidence multiplier.
    """

    dim: int = 2
    budget: int = 1024
    policy: str = "random"
    pool: int = 256
    gp_lengthscale: float = 0.5
    gp_noise_var: float = 1e-4
    gp_beta: float = 4.0


def checkpoints(budget: int) -> np.ndarray:
    """Budgets reported: :math:`\\mathrm{round}(2^{j/2}) \\le` ``budget``, deduplicated, and ``budget``.

    Example:
        >>> checkpoints(16).tolist()
        [1, 2, 3, 4, 6, 8, 11, 16]
    """
    if budget < 1:
        raise ValueError(f"budget must be >= 1, got {budget}")
    j = np.arange(0, int(2 * np.log2(budget)) + 2)
    ks = np.unique(np.round(2.0 ** (j / 2.0)).astype(int))
    return np.unique(np.append(ks[ks <= budget], budget))


def run(spec: SearchSpec, params: dict, key: jax.Array) -> dict:
    """One search of ``spec.budget`` noisy evaluations; pure, jittable and vmappable.

    Args:
        spec: a :class:`SearchSpec`.
        params: ``sigma`` (noise sd), ``h_lo``, ``h_hi`` (Hessian diagonal), ``center``
            (optimum :math:`\\theta^\\star = \\text{center}\\cdot\\mathbf 1`); may be traced.
        key: the lane's PRNG key; evaluation ``t`` draws its recipe and its noise from
            ``fold_in(key, t)`` (so lanes of one seed share recipes whatever ``sigma``);
            GP-UCB's pool from ``fold_in(key, budget)``.

    Returns:
        ``gap``, ``observed`` and ``oracle_gap``, each of shape ``(len(checkpoints),)``
        (see the module docs).

    Example:
        >>> import jax
        >>> out = run(SearchSpec(dim=2, budget=8), DEFAULT_PARAMS, jax.random.key(0))
        >>> out["gap"].shape, bool((out["gap"] == out["oracle_gap"]).all())
        ((6,), True)
    """
    if spec.policy not in POLICIES:
        raise ValueError(f"unknown policy {spec.policy!r}; known: {POLICIES}")
    d = spec.dim
    if spec.policy == "gp_ucb":
        pool = jax.random.uniform(
            jax.random.fold_in(key, spec.budget), (spec.pool, d), jnp.float32, -1.0, 1.0
        )
        policy = gp_ucb(
            pool, spec.budget, lengthscale=spec.gp_lengthscale, noise_var=spec.gp_noise_var, beta=spec.gp_beta
        )
    else:
        policy = random_search(d)
    t_idx = jnp.linspace(0.0, 1.0, d) if d > 1 else jnp.zeros((1,))
    hdiag = (params["h_lo"] + (params["h_hi"] - params["h_lo"]) * t_idx).astype(jnp.float32)
    center = jnp.full((d,), params["center"], jnp.float32)
    sigma = jnp.asarray(params["sigma"], jnp.float32)
    inf = jnp.float32(jnp.inf)

    def step(carry, t):
        pstate, best_y, best_gap, oracle = carry
        k_x, k_n = jax.random.split(jax.random.fold_in(key, t))
        x = policy.propose(pstate, k_x)
        g = landscapes.quadratic_gap(x, center, hdiag)
        y = g + sigma * jax.random.normal(k_n, (), jnp.float32)
        pstate = policy.observe(pstate, x, y)
        better = y < best_y
        best_y = jnp.where(better, y, best_y)
        best_gap = jnp.where(better, g, best_gap)
        oracle = jnp.minimum(oracle, g)
        return (pstate, best_y, best_gap, oracle), (best_gap, best_y, oracle)

    init = (policy.init(), inf, inf, inf)
    _, (gaps, ys, oracles) = jax.lax.scan(step, init, jnp.arange(spec.budget))
    idx = jnp.asarray(checkpoints(spec.budget) - 1)
    return {"gap": gaps[idx], "observed": ys[idx], "oracle_gap": oracles[idx]}


#: The simulator's declaration: curves at the budget checkpoints ``K``.
SIMULATOR = Simulator(
    run,
    spec=SearchSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={"gap": ("K",), "observed": ("K",), "oracle_gap": ("K",)},
    coords=lambda spec: {"K": checkpoints(spec.budget)},
)
