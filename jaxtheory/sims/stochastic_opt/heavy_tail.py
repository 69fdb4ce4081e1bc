"""Unmodified SGD and stochastic mirror descent under heavy-tailed gradient noise.

The oracle is :math:`g(x;\\xi) = \\nabla F(x) + \\sigma\\,\\xi` with i.i.d. symmetric
Lomax coordinates of tail index :math:`a = p + \\text{tail\\_gap}`
(:func:`jaxtheory.oracles.lomax_noise`): the :math:`p`-th moment is finite, the
variance infinite when :math:`a \\le 2`. The methods take no clipping, normalization
or batch growth, and a step :math:`\\eta = c\\,T^{-\\gamma}` that is constant over the
run and set by the horizon (:math:`\\gamma = 1/p` when ``step_exp`` is 0). ``algorithm``
is a code into :data:`ALGORITHMS`:

* 0 ``"sgd"``: :math:`x_{t+1} = x_t - \\eta g_t`;
* 1 ``"smd"``: stochastic mirror descent with the p-norm mirror map
  :math:`\\psi = \\tfrac12\\lVert x\\rVert_r^2`, :math:`r = 1 + 1/\\ln d`
  (:func:`jaxtheory.optim.pnorm_mirror_map`).

Both run through :func:`jaxtheory.optim.stochastic_mirror_descent` with the p-norm map
(:math:`r = 2` is the Euclidean map, i.e. SGD), so the method is a dynamic parameter
and one compiled program covers both. ``objective`` is a code into :data:`OBJECTIVES`;
all have bounded (sub)gradients, so function values stay integrable under
infinite-variance noise: 0 ``"l1"`` :math:`\\lVert x - x^\\star\\rVert_1` and 1
``"huber"`` (convex, :math:`x^\\star = R\\,e_1` sparse, :math:`x_0 = 0`), 2
``"nonconvex"`` (:func:`jaxtheory.oracles.bounded_gradient_nonconvex`,
:math:`x_0 = R\\,\\mathbf 1`).
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from jaxtheory import oracles
from jaxtheory.divergence import guarded_scan, mask_diverged
from jaxtheory.optim import pnorm_mirror_map, stochastic_mirror_descent
from jaxtheory.sims._record import polyak_update
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "DEFAULT_PARAMS",
    "HeavyTailSpec",
    "ALGORITHMS",
    "OBJECTIVES",
    "SIMULATOR",
    "mirror_exponent",
    "run",
]

#: Names of the ``algorithm`` codes: 0 SGD, 1 SMD with the p-norm map.
ALGORITHMS = ("sgd", "smd")
#: Names of the ``objective`` codes 0..2.
OBJECTIVES = ("l1", "huber", "nonconvex")

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "algorithm": 0,
    "objective": 0,
    "horizon": 0,
    "p": 1.5,
    "tail_gap": 0.2,
    "step_exp": 0.0,
    "step_scale": 1.0,
    "sigma": 1.0,
    "radius": 1.0,
}


@dataclasses.dataclass(frozen=True)
class HeavyTailSpec:
    """What fixes the shapes of a heavy-tailed run (the compile key).

    Attributes:
        dim: dimension :math:`d`.
        steps: length of the scan: the horizon :math:`T` of lanes whose ``horizon``
            parameter is 0, and the largest horizon any lane may have.
    """

    dim: int = 10
    steps: int = 1000


def mirror_exponent(dim: int) -> float:
    """The p-norm map's :math:`r = \\min(2, 1 + 1/\\ln d)` used by ``"smd"``.

    Example:
        >>> round(mirror_exponent(1000), 4)
        1.1448
    """
    return 2.0 if dim < 3 else min(2.0, 1.0 + 1.0 / math.log(dim))


def run(spec: HeavyTailSpec, params: dict, key: jax.Array) -> dict:
    """One run of SGD or SMD under symmetric Lomax noise; pure, jittable and vmappable.

    Args:
        spec: a :class:`HeavyTailSpec`.
        params: ``algorithm`` (code into :data:`ALGORITHMS`), ``objective`` (code into
            :data:`OBJECTIVES`), ``horizon`` (:math:`T \\le` ``spec.steps``; 0 means
            ``spec.steps``: a lane stops after its own horizon, so one program covers
            several), ``p`` (moment order assumed finite), ``tail_gap``
            (tail index :math:`a = p + \\text{gap}`), ``step_exp`` (:math:`\\gamma`; 0
            means :math:`1/p`), ``step_scale`` (:math:`c`), ``sigma`` (noise scale) and
            ``radius`` (:math:`R`); scalars, may be traced.
        key: the lane's PRNG key; the noise of step :math:`t` is drawn from
            ``fold_in(key, t)``.

    Returns:
        ``avg_gap`` :math:`F(\\bar x_T) - F^*` with :math:`\\bar x_T` the mean of the
        query points :math:`x_0, \\dots, x_{T-1}` (SMD's output for a constant step),
        ``final_gap`` :math:`F(x_T) - F^*`, ``mean_sq_grad``
        :math:`\\frac1T\\sum_{t<T}\\lVert\\nabla F(x_t)\\rVert^2`, ``max_abs_noise`` (the
        largest noise coordinate drawn) and ``diverged_step`` (-1 when finite); the
        metrics are NaN when the run diverged.

    Example:
        >>> import jax
        >>> out = run(HeavyTailSpec(steps=100), DEFAULT_PARAMS, jax.random.key(0))
        >>> sorted(out), int(out["diverged_step"])
        (['avg_gap', 'diverged_step', 'final_gap', 'max_abs_noise', 'mean_sq_grad'], -1)
    """
    d = spec.dim
    horizon = jnp.asarray(params["horizon"], jnp.int32)
    T = jnp.where(horizon > 0, jnp.minimum(horizon, spec.steps), spec.steps)
    Tf = T.astype(jnp.float32)
    algo = jnp.asarray(params["algorithm"], jnp.int32)
    obj = jnp.asarray(params["objective"], jnp.int32)
    p = params["p"]
    gamma = jnp.where(params["step_exp"] > 0, params["step_exp"], 1.0 / p)
    lr = (params["step_scale"] * Tf ** (-gamma)).astype(jnp.float32)
    radius = params["radius"]
    x_star = jnp.zeros((d,), jnp.float32).at[0].set(radius)
    fs = (
        oracles.l1_distance(x_star),
        oracles.huber_distance(x_star, 1.0),
        oracles.bounded_gradient_nonconvex(d),
    )

    def pick(vals):
        return jnp.select([obj == 0, obj == 1], list(vals[:2]), vals[2])

    def grad(x):
        return pick([f.grad(x) for f in fs])

    def gap(x):
        return pick([f.value(x) - f.f_star for f in fs])

    noise = oracles.lomax_noise(params["sigma"], p + params["tail_gap"])
    x0 = jnp.where(obj == 2, radius, 0.0) * jnp.ones((d,), jnp.float32)
    r = jnp.where(algo == 1, mirror_exponent(d), 2.0)
    opt = stochastic_mirror_descent(lr, pnorm_mirror_map(r))

    def step(carry, t):
        x, state, avg_x, avg_g2, max_n = carry
        n = noise.sample(x, x0, jax.random.fold_in(key, t))
        g = grad(x)
        upd, state = opt.update(g + n, state, x)
        new = (
            x + upd,
            state,
            *polyak_update((avg_x, avg_g2), (x, jnp.sum(g * g)), t),  # means over x_0..x_t
            jnp.maximum(max_n, jnp.max(jnp.abs(n))),
        )
        carry = jax.tree.map(lambda a, b: jnp.where(t < T, a, b), new, carry)
        return carry, None

    zero = jnp.float32(0.0)
    init = (x0, opt.init(x0), jnp.zeros_like(x0), zero, zero)
    (x, _, avg_x, avg_g2, max_n), _, div = guarded_scan(step, init, jnp.arange(spec.steps))
    return {
        **mask_diverged({"avg_gap": gap(avg_x), "final_gap": gap(x), "mean_sq_grad": avg_g2}, div),
        "max_abs_noise": max_n,
        "diverged_step": div,
    }


#: The simulator's declaration: algorithm and objective are categorical parameters (their
#: labels in code order); every metric is a scalar per lane.
SIMULATOR = Simulator(
    run,
    spec=HeavyTailSpec(),
    params={**DEFAULT_PARAMS, "algorithm": categorical(*ALGORITHMS), "objective": categorical(*OBJECTIVES)},
)
