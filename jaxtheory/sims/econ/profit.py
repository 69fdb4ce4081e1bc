r"""Profit-optimal model and data size under a Chinchilla loss and threshold adoption.

A reconstruction of the model of arXiv:2605.16430 (Hao and Merrill) from its abstract
(the paper's equations were not readable): a firm picks the number of parameters
:math:`N` and training tokens :math:`D`; the pretraining loss is the Chinchilla fit

.. math:: L(N, D) = E_0 + A N^{-\alpha} + B (\kappa_D D)^{-\beta},

consumers adopt iff the loss is below their threshold :math:`\tau \sim F`, revenue is
:math:`R_0 S(L)` with :math:`S(L) = P(\tau \ge L)`, training costs :math:`6ND/E`
dollars (:math:`E` in FLOP per dollar), and serving costs :math:`2N` FLOP per token for
:math:`Q\,S(L)` tokens (``serve`` :math:`= Q`, the tokens served at full adoption: each
adopter uses the model; 0 leaves inference out). The profit

.. math:: \Pi(N, D) = R_0\,S(L(N, D)) - 6ND/E - 2NQ\,S(L(N, D))/E

is maximised over :math:`u = (\log N, \log D)` by Adam followed by
``optax.projections.projection_box`` (:math:`D \le D_{\max}`, the data-bound regime) in
a ``lax.scan``, from several starts; the best start is the optimum. ``family`` is a code
into :data:`FAMILIES`:

* 0 ``"logistic"``: :math:`S = \sigma((L_c - L)/w)`;
* 1 ``"lognormal"``: :math:`\tau - E_0` log-normal with median :math:`L_c - E_0` and
  log-scale :math:`w`: :math:`S = 1 - \Phi(\log((L - E_0)/(L_c - E_0))/w)`;
* 2 ``"step"``: a smoothed step, :math:`\sigma((L_c - L)/w_{\text{step}})` with the
  narrow width ``step_width`` (the exact step has no gradient; its optimum is the
  cheapest run reaching :math:`L_c`);
* 3 ``"uniform"``: thresholds uniform on :math:`[E_0, 2L_c - E_0]`: a constant adoption
  density, for which the optimum has a closed form (:func:`uniform_optimum`).

Everything after the parameters is computed in float64 (inside ``jax.enable_x64``): the
first-order identity is checked to :math:`10^{-4}` and the optimum is refined to
:math:`10^{-10}` in gradient norm.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import optax

from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "ALPHA",
    "A_COEF",
    "BETA",
    "B_COEF",
    "DEFAULT_PARAMS",
    "E0",
    "FAMILIES",
    "GAMMA",
    "ProfitSpec",
    "UNCAPPED",
    "adoption",
    "loss",
    "profit",
    "ray_constants",
    "run",
    "uniform_optimum",
    "SIMULATOR",
]

#: Chinchilla irreducible loss :math:`E_0` (Hoffmann et al. 2022, approach 3).
E0 = 1.69
#: Chinchilla coefficient :math:`A` of the parameter term.
A_COEF = 406.4
#: Chinchilla coefficient :math:`B` of the data term.
B_COEF = 410.7
#: Chinchilla exponent :math:`\alpha` of :math:`N`.
ALPHA = 0.34
#: Chinchilla exponent :math:`\beta` of :math:`D`.
BETA = 0.28
#: Exponent of the loss on the compute-optimal ray, :math:`\gamma = \alpha\beta/(\alpha+\beta)`.
GAMMA = ALPHA * BETA / (ALPHA + BETA)
#: Names of the ``family`` codes 0..3 (adoption models).
FAMILIES = ("logistic", "lognormal", "step", "uniform")

#: A data cap that never binds (sweep axes must be finite): D* stays below 1e16 tokens here.
UNCAPPED = 1e30

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "E": 1e18,
    "kappa": 1.0,
    "family": 0,
    "loc": 2.2,
    "width": 0.1,
    "log_scale": 0.5,
    "step_width": 0.03,
    "revenue": 1e9,
    "d_max": 1e30,
    "serve": 0.0,
    "lr": 0.1,
}


@dataclasses.dataclass(frozen=True)
class ProfitSpec:
    """What fixes the shapes of a run (the compile key).

    Attributes:
        steps: Adam steps (cosine-decayed learning rate) per start.
        newton: projected Newton steps that polish Adam's point (0 for Adam alone).
        starts: ``((log N, log D), ...)``: the starting points, natural logs.
    """

    steps: int = 300
    newton: int = 40
    starts: tuple = ((20.0, 23.0), (23.0, 26.0), (25.0, 25.0), (21.0, 28.0))


def loss(u, kappa):
    """Chinchilla loss at ``u = (log N, log D)`` with data efficiency ``kappa``.

    Example:
        >>> round(float(loss(jnp.log(jnp.array([7e10, 1.4e12])), 1.0)), 3)
        1.937
    """
    n, d = jnp.exp(u[0]), jnp.exp(u[1])
    return E0 + A_COEF * n**-ALPHA + B_COEF * (kappa * d) ** -BETA


def adoption(L, family, loc, width, step_width, log_scale=0.5):
    """Share :math:`S(L)` of consumers whose threshold the loss ``L`` meets.

    Args:
        L: loss.
        family: code into :data:`FAMILIES`.
        loc: median threshold :math:`L_c`.
        width: logistic width.
        step_width: width of the smoothed step.
        log_scale: log-normal log-scale.

    Returns:
        The share in [0, 1].

    Example:
        >>> round(float(adoption(2.2, 3, 2.2, 0.1, 0.01)), 6)
        0.5
    """
    x = jnp.maximum(L - E0, 1e-12)
    logistic = jax.nn.sigmoid((loc - L) / width)
    lognormal = jax.scipy.stats.norm.sf(jnp.log(x / (loc - E0)) / log_scale)
    step = jax.nn.sigmoid((loc - L) / step_width)
    uniform = jnp.clip(1.0 - x / (2.0 * (loc - E0)), 0.0, 1.0)
    # Nested where, not jnp.select (its argmax does not lower inside enable_x64 here).
    return jnp.where(
        family == 0, logistic, jnp.where(family == 1, lognormal, jnp.where(family == 2, step, uniform))
    )


def profit(u, params):
    """Profit in units of the revenue scale: :math:`S(L) - (6ND + 2NQ S(L))/(E R_0)`.

    ``params["serve"]`` is :math:`Q`, the tokens served at full adoption (absent: 0).

    Example:
        >>> p = dict(DEFAULT_PARAMS, family=3)
        >>> float(profit(jnp.array([20.0, 23.0]), p)) < 1.0
        True
    """
    L = loss(u, params["kappa"])
    s = adoption(
        L, params["family"], params["loc"], params["width"], params["step_width"], params["log_scale"]
    )
    serve = params.get("serve", 0.0)
    # training as before (6 e^{log N + log D}), then serving; serve = 0 adds exactly 0
    cost = 6.0 * jnp.exp(u[0] + u[1]) + 2.0 * jnp.exp(u[0]) * serve * s
    return s - cost / (params["E"] * params["revenue"])


def ray_constants():
    r"""Constants of the compute-optimal ray.

    Returns:
        ``(G, K)``: :math:`N = G (C/6)^{\beta/(\alpha+\beta)}` and
        :math:`L = E_0 + K (C/6)^{-\gamma}` along the ray, with :math:`C = 6 N \kappa_D D`.

    Example:
        >>> [round(v, 3) for v in ray_constants()]
        [1.345, 813.68]
    """
    G = (ALPHA * A_COEF / (BETA * B_COEF)) ** (1.0 / (ALPHA + BETA))
    K = A_COEF * G**-ALPHA + B_COEF * G**BETA
    return G, K


def uniform_optimum(E, kappa, loc, revenue):
    r"""Closed-form compute-bound optimum under uniform thresholds (constant density).

    With :math:`S = 1 - (L - E_0)/(2(L_c - E_0))` the profit along the ray is
    :math:`R_0(1 - K(\kappa C/6)^{-\gamma}/\Delta) - C/E`, :math:`\Delta = 2(L_c - E_0)`,
    concave in :math:`C`, with maximiser
    :math:`C^* = (R_0 \gamma K (\kappa/6)^{-\gamma} E / \Delta)^{1/(1+\gamma)}` (valid while
    :math:`L(C^*)` lies in the band).

    Args:
        E: FLOP per dollar.
        kappa: data efficiency.
        loc: median threshold :math:`L_c`.
        revenue: :math:`R_0`.

    Returns:
        ``(log N*, log D*, C*)`` in float64 Python numbers (C* = 6 N* D* in FLOP).

    Example:
        >>> ln, ld, c = uniform_optimum(1e18, 1.0, 2.2, 1e9)
        >>> round(math.log(c) - math.log(6) - ln - ld, 12)
        0.0
    """
    G, K = ray_constants()
    delta = 2.0 * (loc - E0)
    c = (revenue * GAMMA * K * (kappa / 6.0) ** -GAMMA * E / delta) ** (1.0 / (1.0 + GAMMA))
    a = BETA / (ALPHA + BETA)
    ln = math.log(G) + a * math.log(kappa * c / 6.0)
    ld = math.log(c / 6.0) - ln
    return ln, ld, c


def _solve(spec, params, u0):
    upper = jnp.stack([jnp.asarray(jnp.inf, u0.dtype), jnp.log(params["d_max"])])
    lower = jnp.full(2, -jnp.inf, u0.dtype)
    u0 = optax.projections.projection_box(u0, lower, upper)
    sched = optax.cosine_decay_schedule(params["lr"], spec.steps, alpha=1e-3)
    opt = optax.adam(sched)
    neg = lambda u: -profit(u, params)  # noqa: E731
    grad = jax.grad(neg)

    def step(carry, _):
        u, s = carry
        upd, s = opt.update(grad(u), s, u)
        u = optax.projections.projection_box(optax.apply_updates(u, upd), lower, upper)
        return (u, s), None

    (u, _), _ = jax.lax.scan(step, (u0, opt.init(u0)), None, length=spec.steps)
    adam_u = u

    def newton(u, _):
        # Projected Newton: a Newton step on the free coordinates; a coordinate at its
        # bound with the gradient pushing outward stays put (active set).
        g, H = grad(u), jax.hessian(neg)(u)
        active = (u >= upper) & (g < 0)
        free = ~active
        Hf = jnp.where(free[:, None] & free[None, :], H, jnp.eye(2))
        gf = jnp.where(free, g, 0.0)
        # Levenberg shift only where the Hessian is not positive definite (a descent
        # step); the scale is relative, the curvature is ~1e-6 where adoption saturates.
        ev = jnp.linalg.eigvalsh(Hf)
        shift = jnp.where(ev[0] > 1e-12 * ev[1], 0.0, 1e-3 * jnp.abs(ev[1]) - ev[0])
        delta = jnp.linalg.solve(Hf + shift * jnp.eye(2), gf)
        delta = jnp.where(jnp.all(jnp.isfinite(delta)), jnp.clip(delta, -0.5, 0.5), 0.0)
        return optax.projections.projection_box(u - delta, lower, upper), None

    u, _ = jax.lax.scan(newton, u, None, length=spec.newton)
    g, H = grad(u), jax.hessian(neg)(u)
    free = ~((u >= upper) & (g < 0))
    Hf = jnp.where(free[:, None] & free[None, :], H, jnp.eye(2))
    gf = jnp.where(free, g, 0.0)
    # The Newton step's length: the distance (in log N, log D) to the optimum of the
    # local quadratic, the convergence measure that does not depend on the curvature.
    nstep = jnp.linalg.norm(jnp.linalg.solve(Hf, gf))
    return u, adam_u, jnp.linalg.norm(gf), nstep


def run(spec: ProfitSpec, params: dict, key: jax.Array) -> dict:
    """Profit-optimal ``(N, D)`` for one configuration, best of ``spec.starts``.

    The key is unused: the optimisation is deterministic (the starts are fixed).

    Args:
        spec: :class:`ProfitSpec`.
        params: see :data:`DEFAULT_PARAMS`; ``family`` a code into :data:`FAMILIES`.
        key: PRNG key (unused).

    Returns:
        Scalars: ``log_n``, ``log_d`` (natural logs at the optimum), ``compute``
        (:math:`6ND` FLOP), ``spend`` (training dollars), ``inference`` (serving dollars,
        :math:`2NQ S(L^*)/E`), ``profit`` (dollars), ``share``
        :math:`S(L^*)`, ``loss``, ``foc_ratio`` :math:`\\alpha A N^{-\\alpha}/(\\beta B
        D_{\\text{eff}}^{-\\beta})` (:math:`1 + Q S(L^*)/(3D^*)` at an interior optimum:
        1, the compute-optimal ray, when ``serve`` is 0), ``grad_norm`` (of the scaled profit over the free
        coordinates), ``newton_step`` (length of the Newton step left there: the
        distance in ``u`` to the local quadratic's optimum), ``adam_grad_norm`` (before the Newton polish), ``start_spread``
        (largest distance in ``u`` of a start's optimum from the best one, over starts
        within 1e-9 of the best profit), ``bound`` (1 when ``D = D_max`` binds),
        ``elasticity`` :math:`\\varepsilon_s = d\\log s(L(C))/d\\log C` of the adoption
        density along the ray, ``d_free`` (log of the unconstrained-on-the-ray token
        count at this compute, for reference).
    """
    del key
    with jax.enable_x64(True):
        p = {k: jnp.asarray(v, jnp.float64) for k, v in params.items()}
        p["family"] = jnp.asarray(params["family"], jnp.int32)
        starts = jnp.asarray(spec.starts, jnp.float64)
        us, adam_us, gns, nsteps = jax.vmap(lambda u0: _solve(spec, p, u0))(starts)
        vals = jax.vmap(lambda u: profit(u, p))(us)
        # The best start by a fold over the (few, static) starts; jnp.argmax's variadic
        # reduce does not lower inside enable_x64 under an outer float32 trace.
        u, adam_u, g_best, v_best, ns_best = us[0], adam_us[0], gns[0], vals[0], nsteps[0]
        for i in range(1, starts.shape[0]):
            better = vals[i] > v_best
            u = jnp.where(better, us[i], u)
            adam_u = jnp.where(better, adam_us[i], adam_u)
            g_best = jnp.where(better, gns[i], g_best)
            ns_best = jnp.where(better, nsteps[i], ns_best)
            v_best = jnp.maximum(vals[i], v_best)
        near = vals >= v_best - 1e-9
        spread = jnp.max(jnp.where(near, jnp.linalg.norm(us - u, axis=1), 0.0))
        adam_g = jnp.linalg.norm(jax.grad(lambda v: -profit(v, p))(adam_u))
        n, d = jnp.exp(u[0]), jnp.exp(u[1])
        d_eff = p["kappa"] * d
        L = loss(u, p["kappa"])
        share = adoption(L, p["family"], p["loc"], p["width"], p["step_width"], p["log_scale"])

        def log_density(logc):
            _, K = ray_constants()
            Lc = E0 + K * (jnp.exp(logc) / 6.0) ** -GAMMA
            s = jax.grad(
                lambda x: -adoption(x, p["family"], p["loc"], p["width"], p["step_width"], p["log_scale"])
            )(Lc)
            return jnp.log(s)

        logc_eff = jnp.log(6.0 * n * d_eff)
        out = {
            "log_n": u[0],
            "log_d": u[1],
            "compute": 6.0 * n * d,
            "spend": 6.0 * n * d / p["E"],
            "inference": 2.0 * n * p.get("serve", 0.0) * share / p["E"],
            "profit": v_best * p["revenue"],
            "share": share,
            "loss": L,
            "foc_ratio": ALPHA * A_COEF * n**-ALPHA / (BETA * B_COEF * d_eff**-BETA),
            "grad_norm": g_best,
            "newton_step": ns_best,
            "adam_grad_norm": adam_g,
            "start_spread": spread,
            "bound": (u[1] >= jnp.log(p["d_max"]) - 1e-9).astype(jnp.float64),
            "elasticity": jax.grad(log_density)(logc_eff),
        }
        return {
            k: v.astype(jnp.float32) if k not in ("foc_ratio", "grad_norm", "newton_step") else v
            for k, v in out.items()
        }


#: The simulator's declaration: an experiment names it instead of restating it. Every
#: output is a scalar per lane; ``family`` is categorical (labels :data:`FAMILIES`).
SIMULATOR = Simulator(
    run,
    spec=ProfitSpec(),
    params={**DEFAULT_PARAMS, "family": categorical(*FAMILIES)},
)
