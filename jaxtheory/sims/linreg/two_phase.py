r"""One lane of the two-phase optimizer experiment (arXiv:2603.26954): LA, LA-DiLoCo, SLA.

One lane is one point :math:`(\eta, \alpha)` of the grid. It computes, deterministically,

* F1: the exact risk of LA(:math:`\eta, \alpha, k`) and of SGD at the matched
  flat-direction step :math:`\alpha\eta`, for every :math:`k` in ``spec.ks``;
* F2: LA-DiLoCo(:math:`W`, batch :math:`B`) and LA(batch :math:`WB`) for every
  :math:`(k, W)` in ``spec.ks`` × ``spec.workers`` (one vmapped recursion), also at
  :math:`(\eta f, \alpha g)` for :math:`f, g` in ``spec.fine`` (a finer tuning grid);
* SLA with outer heavy ball and Nesterov at ``mu``, and their final risk on the
  outer-momentum grid ``spec.mus`` (for the tuning over :math:`(\eta, \alpha, \mu)`);
* Monte Carlo at ``spec.mc_k``, ``spec.mc_workers`` (``spec.mc_seeds`` seeds, vmapped
  inside the lane) for SGD, LA, LA-DiLoCo, SLA-HB, SLA-Nesterov, next to the exact risk;
* F3 (noiseless, two-scale spectrum :math:`\{1, 1/\kappa\}`, the same in every lane):
  gradient steps to reach :math:`\varepsilon` relative risk for GD, GD+Nesterov, LA,
  SLA-HB and SLA-Nesterov with analytically tuned :math:`(\alpha, \mu)` on the effective
  spectrum :math:`h(\lambda) = 1-(1-\eta\lambda)^k` (Polyak's parameters for heavy
  ball, Lessard–Recht–Packard's for Nesterov), and the measured per-outer-step
  contraction of SLA-HB.

The exact recursions are :mod:`.exact`, the Monte Carlo runs the optax transforms of
:mod:`.montecarlo`.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.simulator import Simulator
from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import montecarlo as mc
from jaxtheory.sims.linreg.problems import log_grid

__all__ = ["Spec", "PARAMS", "METHODS_F3", "MC_ALGOS", "OUTERS", "EPS", "run", "SIMULATOR"]

#: The methods whose steps to a target risk the accelerated comparison (F3) records.
METHODS_F3 = ("gd", "gd_nesterov", "la", "sla_heavy_ball", "sla_nesterov")
#: The algorithms of the Monte Carlo runs (optax transforms, one worker or several).
MC_ALGOS = ("sgd", "la", "diloco", "sla_heavy_ball", "sla_nesterov")
#: The outer momentum rules of SLA: heavy ball and Nesterov.
OUTERS = ("heavy_ball", "nesterov")
#: The F3 target: a run has arrived when its risk is at most EPS times the initial risk.
EPS = 1e-6
MC_BLOCK = 1024  # Monte Carlo seeds vmapped at once inside a lane


@dataclasses.dataclass(frozen=True)
class Spec:
    """Shapes of a lane (see the module docstring); ``mus`` is the outer-momentum grid of
    the noisy SLA tuning (vmapped inside a lane)."""

    dim: int = 256
    batch: int = 4
    steps: int = 512
    num_log: int = 24
    ks: tuple = (1, 2, 4, 8)
    workers: tuple = (2, 4)
    mc_dim: int = 32
    mc_steps: int = 128
    mc_seeds: int = 128
    mc_k: int = 4
    mc_workers: int = 2
    kappas: tuple = (64.0, 128.0, 256.0, 512.0, 1024.0)
    accel_k: int = 4
    accel_num_log: int = 400
    mus: tuple = (0.0, 0.5, 0.75, 0.875, 0.9375, 0.96875, 0.984375)
    fine: tuple = (1.0, 2.0**0.25)


#: Defaults of the swept parameters: step size, inner interpolation α, outer momentum μ,
#: noise variance σ², the spectrum's decay λ_i ∝ i^(-a) and the target-energy exponent b.
PARAMS = {"lr": 0.5, "alpha": 0.5, "mu": 0.5, "sigma2": 0.1, "a": 1.5, "b": 1.2}


def _exact(
    spec, algorithm, outer="none", full_batch=False, dim=None, steps=None, num_log=None, spectrum="power_law"
):
    return ex.ExactSpec(
        dim=dim or spec.dim,
        steps=steps or spec.steps,
        num_log=num_log or spec.num_log,
        algorithm=algorithm,
        outer=outer,
        spectrum=spectrum,
        full_batch=full_batch,
    )


def _accel(spec):
    """F3: steps to EPS (gradient steps) and SLA-HB contraction, per kappa and method."""
    k = spec.accel_k
    T = int(4 * max(spec.kappas) + 256)
    grid = jnp.asarray(log_grid(T, spec.accel_num_log), jnp.float32)
    base = dict(ex.EXACT_DEFAULT_PARAMS, frac=0.5, b=0.0, sigma2=0.0, batch=1)

    def steps_to(log_risk):
        below = log_risk <= math.log(0.5 * EPS)  # the initial risk is 1/2
        i = jnp.argmax(below)
        j = jnp.maximum(i - 1, 0)
        # linear interpolation of log risk between the two logged steps around the crossing
        y0, y1 = log_risk[j], log_risk[i]
        frac = jnp.clip((math.log(0.5 * EPS) - y0) / jnp.where(y1 != y0, y1 - y0, 1.0), 0, 1)
        t = grid[j] + frac * (grid[i] - grid[j])
        return jnp.where(below.any(), t, jnp.inf)

    def one(kappa):
        L = 1.0 / (1.0 + 1.0 / kappa)  # two modes {1, 1/kappa} normalized to trace 1
        m = L / kappa
        p = dict(base, kappa=kappa)
        hmin = 1 - (1 - 1 / kappa) ** k  # inner eta = 1/L: h(L) = 1
        kh = 1.0 / hmin
        rho = (jnp.sqrt(kh) - 1) / (jnp.sqrt(kh) + 1)
        q3 = jnp.sqrt(3 * kh + 1)
        q3g = jnp.sqrt(3 * kappa + 1)
        cfg = {
            "gd": ("sgd", "none", "none", dict(p, lr=2 / (L + m))),
            "gd_nesterov": (
                "sgd",
                "none",
                "nesterov",
                dict(p, lr=4 / (3 * L + m), beta=(q3g - 2) / (q3g + 2)),
            ),
            "la": ("lookahead", "none", "none", dict(p, lr=1 / L, alpha=2 / (1 + hmin), k=k)),
            "sla_heavy_ball": (
                "lookahead",
                "heavy_ball",
                "none",
                dict(p, lr=1 / L, alpha=4 / (1 + jnp.sqrt(hmin)) ** 2, mu=rho**2, k=k),
            ),
            "sla_nesterov": (
                "lookahead",
                "nesterov",
                "none",
                dict(p, lr=1 / L, alpha=4 / (3 + hmin), mu=(q3 - 2) / (q3 + 2), k=k),
            ),
        }
        out, contraction = [], None
        for name in METHODS_F3:
            alg, outer, inner, q = cfg[name]
            es = ex.ExactSpec(
                dim=2,
                steps=T,
                num_log=spec.accel_num_log,
                algorithm=alg,
                outer=outer,
                inner=inner,
                spectrum="two_scale",
                full_batch=True,
            )
            lr_ = ex.run(es, q)["log_risk"]
            out.append(steps_to(lr_))
            if name == "sla_heavy_ball":
                # rounds elapsed between the logged steps at about T/2 and T
                i1 = jnp.argmin(jnp.abs(grid - T / 2))
                r1, r2 = jnp.floor(grid[i1] / k), jnp.floor(grid[-1] / k)
                contraction = jnp.exp((lr_[-1] - lr_[i1]) / (2 * (r2 - r1)))
        return jnp.stack(out), contraction, rho

    return jax.vmap(one)(jnp.asarray(spec.kappas, jnp.float32))


def run(spec: Spec, params, key):
    """One lane: F1/F2/SLA exact curves, Monte Carlo check, F3 (see module docstring)."""
    p = dict(ex.EXACT_DEFAULT_PARAMS, **params, batch=spec.batch)
    ks = jnp.asarray(spec.ks, jnp.int32)
    ws = jnp.asarray(spec.workers, jnp.int32)
    la_spec, sgd_spec, dl_spec = (_exact(spec, a) for a in ("lookahead", "sgd", "diloco"))

    sgd = ex.run(sgd_spec, dict(p, lr=p["lr"] * p["alpha"]))
    la = jax.vmap(lambda k: ex.run(la_spec, dict(p, k=k)))(ks)
    kk, ww = jnp.meshgrid(ks, ws, indexing="ij")
    dl = jax.vmap(jax.vmap(lambda k, w: ex.run(dl_spec, dict(p, k=k, workers=w))))(kk, ww)
    lawb = jax.vmap(jax.vmap(lambda k, w: ex.run(la_spec, dict(p, k=k, batch=w * spec.batch))))(kk, ww)
    # the same two risks at (η·f, α·g) for f, g in spec.fine: with the lanes' factor-√2
    # grid and fine = (1, 2^(1/4)), a factor-2^(1/4) grid for the multi-worker tuning
    fine = jnp.asarray(spec.fine, jnp.float32)

    def on_fine(sp, **q):
        def one(k, w, f, g):
            b = w * spec.batch if sp.algorithm == "lookahead" else spec.batch
            qq = dict(p, k=k, lr=p["lr"] * f, alpha=p["alpha"] * g, batch=b, **q)
            if sp.algorithm == "diloco":
                qq["workers"] = w
            return ex.run(sp, qq)["final_risk"]

        inner = jax.vmap(jax.vmap(one, (None, None, None, 0)), (None, None, 0, None))
        return jax.vmap(jax.vmap(lambda k, w: inner(k, w, fine, fine)))(kk, ww)

    fine_dl, fine_lawb = on_fine(dl_spec), on_fine(la_spec)
    sla = {o: jax.vmap(lambda k, o=o: ex.run(_exact(spec, "lookahead", o), dict(p, k=k)))(ks) for o in OUTERS}
    mus = jnp.asarray(spec.mus, jnp.float32)
    sla_mu = jnp.stack(
        [
            jax.vmap(
                lambda k, o=o: jax.vmap(
                    lambda m: ex.run(_exact(spec, "lookahead", o), dict(p, k=k, mu=m))["final_risk"]
                )(mus)
            )(ks)
            for o in OUTERS
        ]
    )  # (outer, k, outer_mu)

    # Monte Carlo, mc_seeds seeds inside the lane, and the exact risk of the same runs
    mcp = dict(mc.MC_DEFAULT_PARAMS, **params)
    cases = {
        "sgd": (dict(algorithm="sgd"), dict(mcp, lr=mcp["lr"] * mcp["alpha"])),
        "la": (dict(algorithm="lookahead", sync_period=spec.mc_k), mcp),
        "diloco": (dict(algorithm="diloco", sync_period=spec.mc_k, workers=spec.mc_workers), mcp),
        "sla_heavy_ball": (dict(algorithm="lookahead", sync_period=spec.mc_k, outer="heavy_ball"), mcp),
        "sla_nesterov": (dict(algorithm="lookahead", sync_period=spec.mc_k, outer="nesterov"), mcp),
    }
    keys = jax.random.split(key, spec.mc_seeds)
    # seeds in blocks of MC_BLOCK, one block at a time: memory stays bounded at 10^4+ seeds
    blk = MC_BLOCK if spec.mc_seeds % MC_BLOCK == 0 else spec.mc_seeds
    keys = keys.reshape(spec.mc_seeds // blk, blk, *keys.shape[1:])
    mc_mean, mc_se, mc_exact = [], [], []
    for name in MC_ALGOS:
        kw, q = cases[name]
        ms = mc.MonteCarloSpec(
            dim=spec.mc_dim, batch=spec.batch, steps=spec.mc_steps, num_log=spec.num_log, **kw
        )
        r = jax.lax.map(jax.vmap(lambda kk, ms=ms, q=q: mc.run(ms, q, kk)["risk"]), keys)
        r = r.reshape(spec.mc_seeds, -1)
        mc_mean.append(r.mean(0))
        mc_se.append(r.std(0, ddof=1) / math.sqrt(spec.mc_seeds))
        es = ex.ExactSpec(
            dim=spec.mc_dim, steps=spec.mc_steps, num_log=spec.num_log, algorithm=ms.algorithm, outer=ms.outer
        )
        mc_exact.append(
            ex.run(
                es, dict(ex.EXACT_DEFAULT_PARAMS, **q, k=ms.sync_period, workers=ms.workers, batch=spec.batch)
            )["risk"]
        )

    steps_eps, contraction, rho = _accel(spec)
    return {
        "risk_sgd": sgd["risk"],
        "risk_la": la["risk"],
        "risk_sla_heavy_ball": sla["heavy_ball"]["risk"],
        "risk_sla_nesterov": sla["nesterov"]["risk"],
        "final_sgd": sgd["final_risk"],
        "final_la": la["final_risk"],
        "final_diloco": dl["final_risk"],
        "final_la_wb": lawb["final_risk"],
        "fine_diloco": fine_dl,
        "fine_la_wb": fine_lawb,
        "final_sla": sla_mu,
        "mc_mean": jnp.stack(mc_mean),
        "mc_se": jnp.stack(mc_se),
        "mc_exact": jnp.stack(mc_exact),
        "steps_to_eps": steps_eps,
        "sla_hb_contraction": contraction,
        "polyak_rate": rho,
        "diverged_step": jnp.int32(-1),
    }


def _coords(spec):
    return {
        "step": log_grid(spec.steps, spec.num_log),
        "k": np.asarray(spec.ks),
        "workers": np.asarray(spec.workers),
        "mc_step": log_grid(spec.mc_steps, spec.num_log),
        "algo": list(MC_ALGOS),
        "kappa": np.asarray(spec.kappas),
        "f3_method": list(METHODS_F3),
        "outer": list(OUTERS),
        "outer_mu": np.asarray(spec.mus),
        "fine_lr": np.asarray(spec.fine),
        "fine_alpha": np.asarray(spec.fine),
    }


METRIC_DIMS = {
    "risk_sgd": ("step",),
    "risk_la": ("k", "step"),
    "risk_sla_heavy_ball": ("k", "step"),
    "risk_sla_nesterov": ("k", "step"),
    "final_sgd": (),
    "final_la": ("k",),
    "final_diloco": ("k", "workers"),
    "final_la_wb": ("k", "workers"),
    "fine_diloco": ("k", "workers", "fine_lr", "fine_alpha"),
    "fine_la_wb": ("k", "workers", "fine_lr", "fine_alpha"),
    "final_sla": ("outer", "k", "outer_mu"),
    "mc_mean": ("algo", "mc_step"),
    "mc_se": ("algo", "mc_step"),
    "mc_exact": ("algo", "mc_step"),
    "steps_to_eps": ("kappa", "f3_method"),
    "sla_hb_contraction": ("kappa",),
    "polyak_rate": ("kappa",),
}


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(run, spec=Spec(), params=PARAMS, metric_dims=METRIC_DIMS, coords=_coords)
