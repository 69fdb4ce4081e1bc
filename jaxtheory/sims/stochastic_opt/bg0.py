"""NSGD-M, normalized STORM and SGD under Blum--Gladyshev (BG-0) noise.

The oracle is :math:`g(x;\\xi) = \\nabla F(x) + n(x, x_0; \\xi)` with
:math:`\\mathbb E\\lVert n\\rVert^2 = \\sigma_0^2 + \\sigma_1^2\\lVert x - x_0\\rVert^2`
(:mod:`jaxtheory.oracles`), on a separable test objective started at
:math:`x_0 = (x^\\star_1 + \\text{offset})\\,\\mathbf 1`, with :math:`x^\\star_1` the
positive one-dimensional minimizer. A run is given an **oracle budget** of stochastic
gradients and spends it according to its method, with the horizon-dependent
schedules of the paper (:math:`T` is the number of steps; the code is ``algorithm``,
``ALGORITHMS[code]`` its name):

* 0 ``nsgdm-bg``: NSGD-M with :math:`\\eta = \\eta_0 T^{-5/6}`,
  :math:`\\beta = 1 - T^{-2/3}`; :math:`T` oracle calls.
* 1 ``nsgdm-classic``: NSGD-M with :math:`\\eta = \\eta_0 T^{-3/4}`,
  :math:`\\beta = 1 - T^{-1/2}`; :math:`T` calls.
* 2 ``storm-sharp``: normalized STORM with :math:`\\eta = \\eta_0 T^{-3/4}`,
  :math:`a = 1/T`, and :math:`d_0` from a batch of
  :math:`B_0 = \\lceil\\sqrt{\\text{budget}/2}\\rceil` samples; :math:`B_0 + 2(T-1)` calls.
* 3 ``storm``: as ``storm-sharp`` with :math:`B_0 = 1`; :math:`1 + 2(T-1)` calls.
* 4 ``sgd``: constant step :math:`\\eta` = ``sgd_lr``, no normalization; :math:`T` calls.

The objective is also a code, ``OBJECTIVES[code]``: 0 ``cosine`` (L-smooth,
:math:`\\alpha = 0`), 1 ``quartic`` (:math:`\\alpha = 2/3`), 2 ``cosh``
(:math:`\\alpha = 1`), and so is the noise, ``NOISES[code]``: 0 ``isotropic``, 1
``radial``, 2 ``mss`` (mean-square smooth). Algorithm, objective, noise and budget are
dynamic parameters, so one compiled program covers them all (compiles of vmapped PRNG
code are slow on CPU; the three noise models share one draw, so common random numbers
too): the scan runs ``spec.steps`` steps and a lane stops moving after its own horizon
:math:`T`.
STORM evaluates the oracle at :math:`x_t` and :math:`x_{t-1}` on the same sample in
one vmapped call. Its batch of :math:`B_0` samples at :math:`x_0` is drawn as
:math:`\\nabla F(x_0) + n_0/\\sqrt{B_0}`, which is exactly the batch mean in
distribution when the noise at :math:`x_0` is Gaussian (``mss`` and ``isotropic``;
for ``radial`` it matches the covariance).
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from jaxtheory import oracles
from jaxtheory.divergence import guarded_scan, mask_diverged
from jaxtheory.optim import normalized_sgd_momentum, normalized_storm
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "BG0Spec",
    "DEFAULT_PARAMS",
    "ALGORITHMS",
    "MINIMIZERS",
    "NOISES",
    "OBJECTIVES",
    "horizon",
    "make_noise",
    "run",
    "SIMULATOR",
]

#: Names of the ``algorithm`` codes 0..4.
ALGORITHMS = ("nsgdm-bg", "nsgdm-classic", "storm-sharp", "storm", "sgd")
#: Names of the ``objective`` codes 0..2 (alpha = 0, 2/3, 1).
OBJECTIVES = ("cosine", "quartic", "cosh")
#: Names of the ``noise`` codes 0..2.
NOISES = ("isotropic", "radial", "mss")
#: Positive one-dimensional minimizers of the objectives, in ``OBJECTIVES`` order.
MINIMIZERS = (1.8954942670339805, 1.0, 2.838446380048381)

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "algorithm": 0,
    "objective": 0,
    "noise": 2,
    "budget": 0,
    "sigma0": 1.0,
    "sigma1": 0.0,
    "eta0": 1.0,
    "sgd_lr": 0.05,
    "offset": 1.5,
}


@dataclasses.dataclass(frozen=True)
class BG0Spec:
    """What fixes the shapes and the code of a BG-0 run (the compile key).

    Attributes:
        dim: dimension :math:`d`.
        steps: length of the scan: the largest oracle budget of any lane (a lane with
            ``budget`` 0 uses this budget).
    """

    dim: int = 10
    steps: int = 1000


def make_noise(name: str, sigma0, sigma1) -> oracles.NoiseModel:
    """The BG-0 noise model called ``name``."""
    factories = {
        "isotropic": oracles.bg0_isotropic_noise,
        "radial": oracles.bg0_radial_noise,
        "mss": oracles.bg0_mss_noise,
    }
    if name not in factories:
        raise ValueError(f"unknown noise {name!r}; choose from {NOISES}")
    return factories[name](sigma0, sigma1)


def horizon(algorithm, budget):
    """Steps :math:`T` and initial batch :math:`B_0` of algorithm code ``algorithm`` under ``budget``.

    Works on Python ints and on traced integers alike.

    Example:
        >>> horizon(2, 1000), horizon(3, 1000), horizon(0, 1000)
        ((489, 23), (500, 1), (1000, 1))
    """
    if isinstance(algorithm, int) and isinstance(budget, int):
        b0 = math.ceil(math.sqrt(budget / 2)) if algorithm == 2 else 1
        return ((budget - b0) // 2 + 1 if algorithm in (2, 3) else budget), b0
    budget = jnp.asarray(budget, jnp.int32)
    b0 = jnp.where(algorithm == 2, jnp.ceil(jnp.sqrt(budget / 2.0)).astype(jnp.int32), 1)
    steps = jnp.where((algorithm == 2) | (algorithm == 3), (budget - b0) // 2 + 1, budget)
    return steps, b0


def _objectives(dim: int) -> tuple[oracles.Objective, ...]:
    return (oracles.cosine_well(dim), oracles.quartic_double_well(dim), oracles.cosh_well(dim))


def run(spec: BG0Spec, params: dict, key: jax.Array) -> dict:
    """One run under BG-0 noise; pure, jittable and vmappable over every parameter.

    Args:
        spec: a :class:`BG0Spec`.
        params: ``algorithm`` (code into :data:`ALGORITHMS`), ``objective`` (code into
            :data:`OBJECTIVES`), ``noise`` (code into :data:`NOISES`), ``budget``
            (oracle calls, at most ``spec.steps``; 0 means ``spec.steps``), ``sigma0``, ``sigma1`` (BG-0 noise), ``eta0`` (step
            scale of the normalized methods), ``sgd_lr`` (SGD's constant step) and
            ``offset`` (start :math:`x_0 = (x^\\star_1 + \\text{offset})\\mathbf 1`).
        key: the lane's PRNG key; the sample of step :math:`t` is drawn from
            ``fold_in(key, t)``.

    Returns:
        ``mean_grad_norm`` :math:`\\frac1T\\sum_{t<T}\\lVert\\nabla F(x_t)\\rVert` (the
        expected gradient norm at an iterate drawn uniformly, the papers' output),
        ``final_grad_norm``, ``final_gap`` :math:`F(x_T) - F^*`, ``final_dist``
        :math:`\\lVert x_T - x_0\\rVert`, ``max_dist``
        :math:`\\max_{t \\le T}\\lVert x_t - x_0\\rVert` (up to the last finite step when
        the run diverged), ``travel_ratio``
        :math:`\\max_{1\\le t\\le T}\\lVert x_t - x_0\\rVert / (t\\eta)` (at most 1 for the
        normalized methods), ``iterations`` :math:`T` (named apart from the spec field
        ``steps``, which a preset sweeps as a static axis), ``oracle_calls`` and
        ``diverged_step`` (-1 when finite). The other metrics are NaN when the run
        diverged.

        The iterate is carried as :math:`x_0 + \\Delta_t` with the displacement
        :math:`\\Delta_t` summed in compensated (Kahan) float32 arithmetic, so
        ``travel_ratio`` measures the method, not the rounding of :math:`x_t`.

    Example:
        >>> import jax
        >>> p = dict(DEFAULT_PARAMS, sigma1=2.0)
        >>> out = run(BG0Spec(steps=200), p, jax.random.key(0))
        >>> int(out["iterations"]), int(out["diverged_step"]), bool(out["travel_ratio"] <= 1.0)
        (200, -1, True)
    """
    algo = jnp.asarray(params["algorithm"], jnp.int32)
    obj = jnp.asarray(params["objective"], jnp.int32)
    budget = jnp.asarray(params["budget"], jnp.int32)
    budget = jnp.where(budget > 0, jnp.minimum(budget, spec.steps), spec.steps)
    T, b0 = horizon(algo, budget)
    Tf = T.astype(jnp.float32)

    is_storm = (algo == 2) | (algo == 3)
    is_sgd = algo == 4
    eta_exp = jnp.where(algo == 0, 5.0 / 6.0, 0.75)
    mom = jnp.where(algo == 0, Tf ** (-2.0 / 3.0), Tf ** (-0.5))  # 1 - beta of NSGD-M
    eta = jnp.where(is_sgd, params["sgd_lr"], params["eta0"] * Tf ** (-eta_exp))
    eta = eta.astype(jnp.float32)

    fs = _objectives(spec.dim)

    def grad(x):
        return jnp.select([obj == 0, obj == 1], [fs[0].grad(x), fs[1].grad(x)], fs[2].grad(x))

    def gap(x):
        vals = [f.value(x) - f.f_star for f in fs]
        return jnp.select([obj == 0, obj == 1], vals[:2], vals[2])

    noise_code = jnp.asarray(params["noise"], jnp.int32)
    models = [make_noise(n, params["sigma0"], params["sigma1"]) for n in NOISES]

    def sample(y, k):
        draws = [m.sample(y, x0, k) for m in models]
        return jnp.select([noise_code == 0, noise_code == 1], draws[:2], draws[2])

    x_star = jnp.select([obj == 0, obj == 1], list(MINIMIZERS[:2]), MINIMIZERS[2])
    x0 = jnp.full((spec.dim,), 1.0, jnp.float32) * (x_star + params["offset"])
    g_x0 = grad(x0)

    nsgdm = normalized_sgd_momentum(eta, beta=1.0 - mom)
    storm = normalized_storm(eta, a=1.0 / Tf)
    inv_sqrt_b0 = jax.lax.rsqrt(b0.astype(jnp.float32))
    zeros = jnp.zeros((spec.dim,), jnp.float32)

    def step(carry, t):
        delta, comp, prev_delta, s_nsgdm, s_storm, sum_g, max_ratio, max_dist = carry
        x, x_prev = x0 + delta, x0 + prev_delta
        k = jax.random.fold_in(key, t)
        # The oracle grad + noise at x_t and x_{t-1} on the same
        # sample, in one vmapped call; NSGD-M and SGD use the first.
        pts = jnp.stack([x, x_prev])
        true = jax.vmap(grad)(pts)
        g, g_prev = true + jax.vmap(lambda y: sample(y, k))(pts)
        # STORM's initial estimate: a batch of B0 samples at x0 (see module docstring).
        g_first = g_x0 + (g - g_x0) * inv_sqrt_b0
        u_nsgdm, s_nsgdm_new = nsgdm.update(g, s_nsgdm)
        u_storm, s_storm_new = storm.update(jnp.where(t == 0, g_first, g), s_storm, x, prev_grad=g_prev)
        u = jnp.where(is_sgd, -eta * g, jnp.where(is_storm, u_storm, u_nsgdm))
        active = t < T
        # Kahan-compensated displacement: delta + u, the lost low bits kept in comp.
        y = u - comp
        new_delta = delta + y
        new_comp = (new_delta - delta) - y
        dist = jnp.sqrt(jnp.sum(new_delta**2))
        ratio = dist / (eta * (t + 1).astype(jnp.float32))
        gnorm = jnp.sqrt(jnp.sum(true[0] ** 2))
        new = (
            new_delta,
            new_comp,
            delta,
            s_nsgdm_new,
            s_storm_new,
            sum_g + gnorm,
            jnp.maximum(max_ratio, ratio),
            jnp.maximum(max_dist, dist),
        )
        carry = jax.tree.map(lambda a, b: jnp.where(active, a, b), new, carry)
        return carry, None

    init = (
        zeros,
        zeros,
        zeros,
        nsgdm.init(zeros),
        storm.init(zeros),
        jnp.float32(0),
        jnp.float32(0),
        jnp.float32(0),
    )
    (delta, _, _, _, _, sum_g, max_ratio, max_dist), _, div = guarded_scan(step, init, jnp.arange(spec.steps))
    x = x0 + delta
    out = {
        "mean_grad_norm": sum_g / T.astype(jnp.float32),
        "final_grad_norm": jnp.sqrt(jnp.sum(grad(x) ** 2)),
        "final_gap": gap(x),
        "final_dist": jnp.sqrt(jnp.sum(delta**2)),
        "max_dist": max_dist,
        "travel_ratio": max_ratio,
    }
    return {
        **mask_diverged(out, div),
        "max_dist": max_dist,  # up to the last finite step, also when the run diverged
        "iterations": T,
        "oracle_calls": jnp.where(is_storm, b0 + 2 * (T - 1), T),
        "diverged_step": div,
    }


#: The simulator's declaration: method, objective and noise are categorical parameters
#: (their labels in code order); every metric is a scalar per lane.
SIMULATOR = Simulator(
    run,
    spec=BG0Spec(),
    params={
        **DEFAULT_PARAMS,
        "algorithm": categorical(*ALGORITHMS),
        "objective": categorical(*OBJECTIVES),
        "noise": categorical(*NOISES),
    },
)
