"""Proximal DCA with and without one random feasible exploration step per iteration.

Each iteration applies the base map, proximal DCA,

.. math::
    x_{1/2} = \\operatorname*{arg\\,min}_{x \\in C}\\; f(x) + r(x) - \\langle \\xi_k, x\\rangle
    + \\tfrac\\rho2\\lVert x - x_k\\rVert^2, \\qquad \\xi_k \\in \\partial g(x_k),

and then, for ``algo = "explore"``, :func:`jaxtheory.optim.random_feasible_exploration`
(accept :math:`z = x_{1/2} + s d` iff :math:`h(z) \\le h(x_{1/2}) - \\sigma s^2\\lVert
d\\rVert^2`, :math:`s \\sim U(0, s_{\\max}]`); ``algo = "dca"`` keeps :math:`x_{1/2}`.
Both methods of one lane see the same instance and initial point. ``problem`` is
:data:`PROBLEMS` (a static spec field, since it fixes shapes):

* ``"toy"``: :func:`jaxtheory.oracles.dc_toy_l1`, :math:`\\tfrac12\\lVert x\\rVert^2 -
  \\lVert x\\rVert_1` on :math:`[-2, 2]^n`, from :math:`x_0` with ``zeros`` coordinates
  exactly 0 and the others uniform on :math:`[-2, 2]`;
* ``"sparse_ls"``: :func:`jaxtheory.oracles.dc_sparse_least_squares` with Gaussian
  :math:`A \\in \\mathbb R^{m \\times n}` (entries :math:`N(0, 1/m)`), an ``nnz``-sparse
  :math:`x^\\natural` with :math:`N(0, 1)` entries, :math:`b = Ax^\\natural + \\text{noise}`,
  from :math:`x_0 = 0`;
* ``"phase_retrieval"``: :func:`jaxtheory.oracles.robust_phase_retrieval`,
  :math:`\\tfrac1m\\sum_i|\\langle a_i, x\\rangle^2 - b_i|` with Gaussian :math:`a_i`, a unit
  :math:`x^\\natural`, :math:`b_i = \\langle a_i, x^\\natural\\rangle^2` except a fraction
  ``outliers`` replaced by :math:`10|N(0, 1)|`, from :math:`x_0 \\sim N(0, I/n)`; its base
  map is prox-linear instead of DCA (:math:`\\rho` adds to the prox weight).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory import oracles
from jaxtheory.divergence import guarded_scan
from jaxtheory.optim import random_feasible_exploration
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "DCSpec",
    "DEFAULT_PARAMS",
    "METHODS",
    "PROBLEMS",
    "SIMULATOR",
    "chain_instance",
    "make_problem",
    "run",
]

#: The ``algo`` codes: 0 plain proximal DCA, 1 DCA followed by one exploration step.
METHODS = ("dca", "explore")
#: The values of :attr:`DCSpec.problem`.
PROBLEMS = ("toy", "sparse_ls", "phase_retrieval")

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "algo": 1,
    "sigma": 1e-4,
    "s_max": 1.0,
    "lam": 0.1,
    "noise": 0.01,
    "radius": 1.0,
    "outliers": 0.1,
}


@dataclasses.dataclass(frozen=True)
class DCSpec:
    """What fixes the shapes of a DC run (the compile key).

    Attributes:
        problem: one of :data:`PROBLEMS`.
        dim: the dimension :math:`n`.
        steps: outer iterations :math:`K`.
        rho: the proximal weight :math:`\\rho \\ge 0` of the DCA subproblem.
        zeros: toy: coordinates of :math:`x_0` that are exactly 0.
        m: sparse_ls, phase_retrieval: rows of :math:`A`.
        nnz: sparse_ls: nonzeros of :math:`x^\\natural`.
        inner_steps: sparse_ls, phase_retrieval: FISTA steps per subproblem.
        replicas: independent chains per lane (own instance and :math:`x_0`); full
            metrics are those of chain 0, the ``*_r`` metrics hold every chain's.
        psi_dirs: sampled directions of the d-stationarity measure (beside
            :math:`\\pm e_i`).
    """

    problem: str = "toy"
    dim: int = 50
    steps: int = 200
    rho: float = 0.0
    zeros: int = 25
    m: int = 50
    nnz: int = 5
    inner_steps: int = 10
    replicas: int = 1
    psi_dirs: int = 256

    def __post_init__(self):
        if self.problem not in PROBLEMS:
            raise ValueError(f"problem must be one of {PROBLEMS}, got {self.problem!r}")
        if self.rho < 0:
            raise ValueError(f"rho must be >= 0, got {self.rho}")
        if self.problem == "toy" and not 0 <= self.zeros <= self.dim:
            raise ValueError(f"zeros must lie in [0, dim], got {self.zeros}")
        if self.problem == "sparse_ls" and not 0 < self.nnz <= self.dim:
            raise ValueError(f"nnz must lie in (0, dim], got {self.nnz}")
        for name in ("dim", "steps", "replicas", "m", "inner_steps", "psi_dirs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")


def make_problem(spec: DCSpec, params: dict, key: jax.Array):
    """The instance of one chain: ``(problem, x0, x_true)`` (``x_true`` is ``x0`` for the toy).

    Args:
        spec: a :class:`DCSpec`.
        params: ``lam``, ``noise`` and ``radius`` (sparse_ls), ``outliers`` and ``radius``
            (phase_retrieval).
        key: the chain's PRNG key.

    Returns:
        A :class:`jaxtheory.oracles.DCProblem`, the initial point and the planted signal.

    Example:
        >>> import jax
        >>> p, x0, _ = make_problem(DCSpec(dim=6, zeros=3), DEFAULT_PARAMS, jax.random.key(0))
        >>> int((x0 == 0).sum())
        3
    """
    n = spec.dim
    if spec.problem == "toy":
        kp, kv = jax.random.split(key)
        vals = jax.random.uniform(kv, (n,), jnp.float32, -2.0, 2.0)
        perm = jax.random.permutation(kp, n)
        x0 = jnp.where(perm < spec.zeros, 0.0, vals)
        return oracles.dc_toy_l1(n), x0, x0
    if spec.problem == "phase_retrieval":
        ka, ks, ko, kx = jax.random.split(key, 4)
        A = jax.random.normal(ka, (spec.m, n), jnp.float32)
        x_true = jax.random.normal(ks, (n,), jnp.float32)
        x_true = x_true / jnp.sqrt(jnp.sum(x_true * x_true))
        b = (A @ x_true) ** 2
        ko1, ko2 = jax.random.split(ko)
        outlier = jax.random.uniform(ko1, (spec.m,)) < params["outliers"]
        b = jnp.where(outlier, 10.0 * jnp.abs(jax.random.normal(ko2, (spec.m,))), b)
        x0 = jax.random.normal(kx, (n,), jnp.float32) / jnp.sqrt(jnp.float32(n))
        problem = oracles.robust_phase_retrieval(A, b, inner_steps=spec.inner_steps, radius=params["radius"])
        return problem, x0, x_true
    ka, ks, kv, ke = jax.random.split(key, 4)
    A = jax.random.normal(ka, (spec.m, n), jnp.float32) / jnp.sqrt(jnp.float32(spec.m))
    support = jax.random.permutation(ks, n) < spec.nnz
    x_true = jnp.where(support, jax.random.normal(kv, (n,), jnp.float32), 0.0)
    b = A @ x_true + params["noise"] * jax.random.normal(ke, (spec.m,), jnp.float32)
    problem = oracles.dc_sparse_least_squares(
        A, b, params["lam"], inner_steps=spec.inner_steps, radius=params["radius"]
    )
    return problem, jnp.zeros((n,), jnp.float32), x_true


def chain_instance(spec: DCSpec, params: dict, key: jax.Array, replica: int = 0):
    """The instance chain ``replica`` of the lane with ``key`` runs on: :func:`make_problem`'s triple.

    Args:
        spec: a :class:`DCSpec`.
        params: the lane's parameters.
        key: the lane's PRNG key (as :func:`run` receives it).
        replica: the chain.

    Returns:
        ``(problem, x0, x_true)``.
    """
    return make_problem(spec, params, _chain_keys(jax.random.fold_in(key, replica))[0])


def _chain_keys(key):
    return jax.random.split(key, 3)


def _chain(spec: DCSpec, params: dict, key: jax.Array) -> dict:
    k_inst, k_explore, k_psi = _chain_keys(key)
    problem, x0, x_true = make_problem(spec, params, k_inst)
    explore = jnp.asarray(params["algo"], jnp.int32) == METHODS.index("explore")
    opt = random_feasible_exploration(
        problem.sample_direction, params["sigma"], params["s_max"], key=k_explore
    )
    rho = jnp.float32(spec.rho)
    zeros = jnp.zeros_like(x0)

    def step(carry, _):
        x, h, state = carry
        x_half = problem.base_map(x, rho)
        h_half = problem.value(x_half)
        u, state = opt.update(zeros, state, x_half, value_fn=problem.value, value=h_half)
        x_new = jnp.where(explore, x_half + u, x_half)
        h_new = jnp.where(explore, state.value, h_half)
        scale = jnp.maximum(1.0, jnp.abs(h))
        rise = jnp.maximum(h_half - h, h_new - h_half) / scale
        dx = x_half - x
        out = {"h": h_new, "step_sq": jnp.sum(dx * dx), "rise": rise, "accepted": explore & state.accepted}
        return (x_new, h_new, state), out

    h0 = problem.value(x0)
    carry = (x0, h0, opt.init(x0))
    (x, h, state), ys, div = guarded_scan(
        step, carry, length=spec.steps, watch=lambda c, y: (c[0], c[1], y["h"])
    )
    K = spec.steps
    per_step = 1 if problem.inner_steps == 0 else 1 + 2 * problem.inner_steps
    cost = K * per_step + jnp.where(explore, state.n_evals + K, 0)  # + h(x_1/2) the sim hands in
    c = jnp.asarray(problem.descent(spec.rho), jnp.float32)
    min_sq = jnp.min(ys["step_sq"])
    gap = h0 - problem.inf_value
    # the bound at every horizon k = 1..K: c k min_{j<k} ||x_1/2^j - x^j||^2 / (h0 - inf h)
    running = jax.lax.cummin(ys["step_sq"]) * jnp.arange(1, K + 1, dtype=jnp.float32)
    rate_ratio = jnp.where(c > 0, jnp.max(running) * c / jnp.where(gap > 0, gap, 1.0), jnp.nan)
    accepted = jnp.where(explore, state.n_accepted, 0)
    nrm = jnp.sqrt(jnp.sum(x_true * x_true))
    return {
        "h": ys["h"],
        "step_sq": ys["step_sq"],
        "h0": h0,
        "h_final": h,
        "psi": oracles.d_stationarity(problem, x, k_psi, num=spec.psi_dirs),
        "n_accepted": accepted,
        "n_evals": jnp.where(explore, state.n_evals + K, 0),
        "cost": cost,
        "min_step_sq": min_sq,
        "rate_ratio": rate_ratio,
        "descent_slack": (c * jnp.sum(ys["step_sq"]) - (h0 - h)) / jnp.maximum(1.0, jnp.abs(h0)),
        "max_rise": jnp.max(ys["rise"]),
        "n_zero": jnp.sum(x == 0).astype(jnp.int32),
        "n_zero0": jnp.sum(x0 == 0).astype(jnp.int32),
        "zero_set_kept": jnp.all((x == 0) == (x0 == 0)),
        "rel_error": jnp.sqrt(jnp.sum((x - x_true) ** 2)) / jnp.where(nrm > 0, nrm, 1.0),
        "diverged_step": div,
    }


def run(spec: DCSpec, params: dict, key: jax.Array) -> dict:
    """One lane: ``spec.replicas`` chains of proximal DCA with or without exploration; pure, vmappable.

    Args:
        spec: a :class:`DCSpec`.
        params: ``algo`` (code into :data:`METHODS`), ``sigma`` and ``s_max`` (the
            exploration), ``lam``, ``noise`` and ``radius`` (sparse_ls), ``outliers``
            (phase_retrieval); scalars, may be traced.
        key: the lane's PRNG key; chain ``r`` uses ``fold_in(key, r)``.

    Returns:
        Chain 0's ``h`` (:math:`h(x_k)`, :math:`k = 1..K`), ``step_sq``
        (:math:`\\lVert x_{1/2}^k - x^k\\rVert^2`), ``h0``, ``h_final``, ``psi``
        (:func:`jaxtheory.oracles.d_stationarity` at :math:`x_K`), ``n_accepted``,
        ``n_evals`` (evaluations of :math:`h` the exploration spends, 0 for DCA), ``cost`` (oracle calls: one per DCA step for the
        toy's closed form, :math:`1 + 2\\,\\text{inner\\_steps}` for FISTA (a gradient and
        a subproblem value per inner step), plus ``n_evals``), ``min_step_sq``,
        ``descent_slack``
        (:math:`(c\\sum_k\\lVert x_{1/2}^k - x^k\\rVert^2 - (h_0 - h_K))/\\max(1, |h_0|)`,
        :math:`\\le 0` by the descent inequality), ``rate_ratio``
        (:math:`\\max_{k \\le K} ck\\min_{j<k}\\lVert x_{1/2}^j - x^j\\rVert^2/(h_0 - \\inf h)`:
        the rate bound at every horizon, :math:`c` the base map's descent constant; NaN
        when :math:`c = 0`), ``max_rise``
        (the largest :math:`h(x_{1/2}^k) - h(x^k)` or :math:`h(x^{k+1}) - h(x_{1/2}^k)`
        over :math:`\\max(1, |h(x^k)|)`), ``n_zero``, ``n_zero0``, ``zero_set_kept``,
        ``rel_error`` (:math:`\\lVert x_K - x^\\natural\\rVert/\\lVert x^\\natural\\rVert`),
        ``diverged_step``; and every chain's ``h_final_r``, ``psi_r``. ``max_rise``,
        ``descent_slack`` and ``rate_ratio`` are the largest over the chains.

    Example:
        >>> import jax
        >>> out = jax.jit(run, static_argnums=0)(DCSpec(dim=10, zeros=5, steps=20), {**DEFAULT_PARAMS, "algo": 0}, jax.random.key(0))
        >>> float(out["h_final"]), bool(out["zero_set_kept"])
        (-2.5, True)
    """
    keys = jax.vmap(lambda r: jax.random.fold_in(key, r))(jnp.arange(spec.replicas))
    outs = jax.vmap(lambda k: _chain(spec, params, k))(keys)
    first = jax.tree.map(lambda a: a[0], outs)
    first["h_final_r"] = outs["h_final"]
    first["psi_r"] = outs["psi"]
    first["diverged_step"] = jnp.max(outs["diverged_step"])
    for name in ("max_rise", "descent_slack", "rate_ratio"):  # worst chain
        first[name] = jnp.max(outs[name])
    return first


#: The simulator's declaration: ``algo`` is categorical (labels :data:`METHODS`); the
#: curves run over the iterations 1..steps, the per-chain outputs over the replicas.
SIMULATOR = Simulator(
    run,
    spec=DCSpec(),
    params={**DEFAULT_PARAMS, "algo": categorical(*METHODS)},
    metric_dims={"h": ("step",), "step_sq": ("step",), "h_final_r": ("replica",), "psi_r": ("replica",)},
    coords=lambda spec: {"step": np.arange(1, spec.steps + 1), "replica": np.arange(spec.replicas)},
)
