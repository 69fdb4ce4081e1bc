r"""``linreg-two-phase``: LA, LA-DiLoCo and SLA on high-dimensional linear regression.

Checks the three claims of arXiv:2603.26954 with the exact per-mode risk recursions of
:mod:`jaxtheory.sims.linreg.exact`, validated in every lane against Monte Carlo runs of
the optax transforms (:mod:`jaxtheory.sims.linreg.montecarlo`).

One lane is one point :math:`(\eta, \alpha)` of the grid. It computes, deterministically,

* F1: the exact risk of LA(:math:`\eta, \alpha, k`) and of SGD at the matched
  flat-direction step :math:`\alpha\eta`, for every :math:`k` in ``spec.ks``;
* F2: LA-DiLoCo(:math:`W`, batch :math:`B`) and LA(batch :math:`WB`) for every
  :math:`(k, W)` in ``spec.ks`` × ``spec.workers`` (one vmapped recursion);
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

**Tuning.** Every tuned comparison takes the best exact final risk over the lanes' grid
(:func:`jaxtheory.analysis.best_over`; the lanes are paired, though the recursions are
deterministic) and requires the optimum to lie strictly inside the grid along every tuned
axis; otherwise the claim is not applicable (the grid does not bracket it).

**Nesterov against heavy ball.** The paper says the gain of stacking momentum is
largest for Nesterov. On noiseless quadratics with analytically tuned parameters
classical theory says the opposite (Polyak's heavy ball contracts at
:math:`(\sqrt{\kappa_h}-1)/(\sqrt{\kappa_h}+1)`, Nesterov at best at
:math:`1-2/\sqrt{3\kappa_h+1}`; per outer step at :math:`\kappa = 32\dots256`: Nesterov
0.611–0.858, heavy ball 0.487–0.778), so the paper's statement is tested where the paper
makes it: the noisy problem (:math:`\sigma^2 = 0.1`, batch 4) with every method tuned over
:math:`(\eta, \alpha, \mu)`; the noiseless result is kept as a classical claim.

**Multi-worker excess.** The paper says the extra noise of several workers "can be
ameliorated by appropriate choice of hyperparameters". This is tested tuned against
tuned: :math:`R_{\rm tuned}` = best LA-DiLoCo over best LA(WB), each over the (η, α) grid,
against :math:`R_{\rm transfer}` = LA-DiLoCo at LA(WB)'s best (η, α) over LA(WB)'s best
(the excess of a multi-worker run that keeps the single worker's hyperparameters);
ameliorated means :math:`R_{\rm tuned} < R_{\rm transfer}`. A grid search makes
:math:`R_{\rm tuned} \le R_{\rm transfer}` by construction, so the content of the claim
is that LA-DiLoCo's optimum lies elsewhere than LA(WB)'s. Both optima sit on the valley
:math:`\alpha\eta \approx 2` next to the edge of stability, and on the lanes' factor-√2
grid they fall on the same point at (k, W) = (4, 2), which says nothing about the
hyperparameters, only about the grid. Each lane therefore also computes both risks at
:math:`(\eta f, \alpha g)`, :math:`f, g \in \{1, 2^{1/4}\}`, and the claim tunes over the
resulting factor-:math:`2^{1/4}` grid, on which the two optima differ in every cell (both
inside the grid). Re-tuning lowers the excess in every cell but removes only part of
it (about a fifth at (k, W) = (2, 2), about half at W = 4); at the default
(η, α) = (0.5, 0.5), a bias-dominated point, the excess is only 1e-4 to 3e-4.

**Reconstruction.** Only the abstract of the paper could be read: the model (Gaussian
streaming linear regression, power-law spectrum :math:`\lambda_i \propto i^{-a}` and
target :math:`\lambda_i\theta_i^{\star 2} \propto i^{-b}`) and its exact per-mode risk
recursions are derived here, the algorithms from the papers that define Lookahead and
DiLoCo. The abstract's statements are tested under this reconstruction (the page says so
beside each); the Monte Carlo claim checks the recursions against the optax transforms.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, plots
from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import montecarlo as mc
from jaxtheory.results import as_dims
from jaxtheory.sims.linreg.problems import log_grid
from jaxtheory.sweep import Space, log

METHODS_F3 = ("gd", "gd_nesterov", "la", "sla_heavy_ball", "sla_nesterov")
MC_ALGOS = ("sgd", "la", "diloco", "sla_heavy_ball", "sla_nesterov")
OUTERS = ("heavy_ball", "nesterov")
EPS = 1e-6  # F3 target: risk <= EPS * initial risk
# Monte Carlo mean / exact recursion within 1 ± 3% (the digest's check 3); the interval is
# the Monte Carlo standard error's (Bonferroni over every compared step).
MC_RTOL = 0.03
# Acceleration: steps to ε grow at most like κ^(1/2 + ACCEL_TOL) (our tolerance).
ACCEL_TOL = 0.1
# float32 round-off of a risk ratio (the k = 1 identity's residual is ~3e-6)
RATIO_ROUNDOFF = 1e-5
# Monte Carlo is compared at inner steps eta <= 1 only: at larger steps the per-run risk is
# heavy-tailed (eta = 2.83, alpha = 0.5, LA: 0.1% of 131072 runs carry 21% of the mean, and
# the mean of 4096 runs is 0.72-0.90 of the exact value), so a Monte Carlo mean has no
# reliable standard error there
MC_LR_MAX = 1.0
MC_BLOCK = 1024  # Monte Carlo seeds vmapped at once inside a lane
# the excess risk at theta_0 = 0 (problems.py normalizes the target to it): a run whose
# risk never exceeds it is stable
INITIAL_RISK = 0.5

# The abstract's words that the reconstruction claims test.
Q_LA_VS_SGD = (
    "We show that the one-worker variant, LA, provides a different tradeoff between signal "
    "and noise than SGD, which is beneficial in many scenarios"
)
Q_MORE_NOISE = (
    "We also show that the multi-worker version generates more noise than the single worker version"
)
Q_AMELIORATED = "this additional noise generation can be ameliorated by appropriate choice of hyperparameters"
Q_ACCELERATION = (
    "stacking two momentum operators gives an opportunity for acceleration via a non-linear "
    "transformation of the ``effective'' Hessian spectrum"
)
Q_NESTEROV = Q_ACCELERATION + ", which is maximized for Nesterov momentum"
# The model the quoted statements are tested on was rebuilt without the paper.
_RECON = (
    "(under our reconstruction: Gaussian streaming linear regression with a power-law "
    "spectrum and exact risk recursions derived here; the paper's own model and risk "
    "formulas were not read)"
)


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


def _first(ds, name):
    """A lane-independent metric (F3): read it from the first lane."""
    return as_dims(ds[name], "lr", "alpha").isel(lr=0, alpha=0, seed=0)


def _exact_lanes(da):
    """A deterministic metric with the (size-one) seed dimension dropped."""
    return da.isel(seed=0, drop=True)


# ---- tuning over the (η, α[, μ]) grid ------------------------------------------------------


def _tuned(da, dims):
    """Best (smallest) value over the grid ``dims`` of an exact curve, interior or NotApplicable.

    Returns ``(value, at)`` with ``at`` the grid point ``{dim: value}``. The optimum must lie
    strictly inside the grid along every tuned dimension (else the grid does not bracket it
    and a comparison of tuned values would compare grid edges).
    """
    dims = list(dims)
    best = analysis.best_over(as_dims(da, *dims).stack(hp=dims), "hp", over=None)
    if best.at is None:
        raise NotApplicable("every point of the tuning grid diverged")
    at = dict(zip(dims, best.at if isinstance(best.at, tuple) else (best.at,)))
    for d, v in at.items():
        grid = np.sort(np.unique(da[d].values))
        if grid.size < 3 or v in (grid[0], grid[-1]):
            raise NotApplicable(
                f"the best {d} = {v:g} is not inside the grid "
                f"[{grid[0]:g}, {grid[-1]:g}]: the grid does not bracket the optimum"
            )
    return best.value, at


# ---- claims ----------------------------------------------------------------------------


def _identities(ds, spec):
    """Float64 side computation (the sweep runs in float32): the four identities' residuals."""
    with jax.enable_x64(True):
        base = dict(ex.EXACT_DEFAULT_PARAMS, **PARAMS, batch=spec.batch)
        T = 32
        mk = lambda a: ex.ExactSpec(dim=16, steps=T, num_log=T, algorithm=a)  # noqa: E731
        r = lambda a, **q: np.asarray(jax.jit(lambda z: ex.run(mk(a), z)["risk"])(dict(base, **q)))  # noqa: E731
        at = log_grid(T, T) % 4 == 0
        return {
            "la(k=1)-sgd(αη)": np.abs(r("lookahead", k=1) - r("sgd", lr=base["lr"] * base["alpha"])).max(),
            "la(α=1)-sgd at syncs": np.abs(r("lookahead", k=4, alpha=1.0) - r("sgd"))[at].max(),
            "diloco(W=1)-la": np.abs(r("diloco", k=3, workers=1) - r("lookahead", k=3)).max(),
            "diloco(k=1,W)-la(k=1,WB)": np.abs(
                r("diloco", k=1, workers=4) - r("lookahead", k=1, batch=4 * spec.batch)
            ).max(),
        }


def _mc_ratio(ds, spec):
    """Monte Carlo mean / exact risk per (lane, algorithm, logged step), with its standard error."""
    mean, se, exact = (_exact_lanes(ds[v]) for v in ("mc_mean", "mc_se", "mc_exact"))
    # stable runs at light-tailed steps only (MC_LR_MAX): elsewhere the Monte Carlo mean has
    # no usable error bar
    live = (exact.max("mc_step") <= INITIAL_RISK * (1 + RATIO_ROUNDOFF)) & (exact > 0)
    live = live & (live["lr"] <= MC_LR_MAX)
    dims = list(mean.dims)
    flat_r, flat_s = (mean / exact).stack(cell=dims), (se / exact).stack(cell=dims)
    # every cell of a stable run; a Monte Carlo blow-up there is a failure
    keep = live.stack(cell=dims).values
    level = 1.0 - (1.0 - analysis.DEFAULT_LEVEL) / max(int(keep.sum()), 1)
    out = {}
    for i in np.flatnonzero(keep):
        c = flat_r.isel(cell=i)
        label = analysis.cell_label({d: c[d].item() for d in dims})
        out[label] = analysis.from_se(float(c), float(flat_s.isel(cell=i)), spec.mc_seeds, level=level)
    if not out:
        raise ValueError("no lane has a finite exact risk")
    return out


def _ratio(ds):
    return _exact_lanes(ds["final_diloco"] / ds["final_la_wb"])


def _ratio_k1(ds, spec):
    r = _ratio(ds).sel(k=1)
    return np.abs(r.values[np.isfinite(r.values)] - 1)


def _stable(ds):
    """Lanes × W where LA-DiLoCo and LA(WB) end below the initial risk at every k."""
    dl, la = _exact_lanes(ds["final_diloco"]), _exact_lanes(ds["final_la_wb"])
    return ((dl <= INITIAL_RISK) & (la <= INITIAL_RISK)).all("k")


def _ratio_violations(ds, spec):
    """Stable (lane, W) whose ratio LA-DiLoCo / LA(WB) decreases in k beyond round-off."""
    rr, ok = _ratio(ds), _stable(ds)
    bad = 0
    for coords, sub in analysis.cells(rr, ["k"]):
        if bool(ok.sel(coords)):
            bad += analysis.monotone_violations(
                sub.transpose("k").values, increasing=True, tol=RATIO_ROUNDOFF
            )
    return bad


def _ratio_below_one(ds, spec):
    """Stable (lane, W, k > 1) where LA-DiLoCo / LA(WB) is below 1 beyond round-off."""
    rr, ok = _ratio(ds), _stable(ds)
    rr = rr.sel(k=[k for k in rr["k"].values if k > 1])
    if not rr.sizes["k"]:
        raise NotApplicable("the preset has no k > 1")
    return int(((rr < 1 - RATIO_ROUNDOFF) & ok).sum())


def _on_fine_grid(da):
    """``da`` (dims lr, alpha, fine_lr, fine_alpha) as one curve over the effective grid.

    Returns the values stacked along ``hp`` with the effective coordinates η·f and α·g:
    the lanes' factor-√2 grid refined by ``spec.fine`` to factor 2^(1/4).
    """
    st = da.stack(hp=("lr", "alpha", "fine_lr", "fine_alpha"))
    eff_lr = st["lr"].values * st["fine_lr"].values
    eff_alpha = st["alpha"].values * st["fine_alpha"].values
    return st.values, eff_lr, eff_alpha


def _best_interior(values, eff_lr, eff_alpha):
    """Index of the smallest finite value; NotApplicable unless inside the grid on both axes."""
    v = np.where(np.isfinite(values), values, np.inf)
    if not np.isfinite(v).any():
        raise NotApplicable("every point of the tuning grid diverged")
    i = int(np.argmin(v))
    for name, grid in (("η", eff_lr), ("α", eff_alpha)):
        lo, hi = grid.min(), grid.max()
        if np.isclose(grid[i], lo) or np.isclose(grid[i], hi):
            raise NotApplicable(
                f"the best {name} = {grid[i]:g} is not inside the grid [{lo:g}, {hi:g}]: "
                "the grid does not bracket the optimum"
            )
    return i


def _excess_ameliorated(ds, spec):
    """Per (k > 1, W): untuned minus tuned excess ratio, R_transfer − R_tuned.

    On the factor-2^(1/4) grid (the lanes' (η, α) refined by ``spec.fine``): R_tuned is the
    best LA-DiLoCo over the best LA(WB), both optima inside the grid; R_transfer is
    LA-DiLoCo at LA(WB)'s best (η, α) over LA(WB)'s best.
    """
    dl, la = _exact_lanes(ds["fine_diloco"]), _exact_lanes(ds["fine_la_wb"])
    out = {}
    for k in dl["k"].values:
        if k == 1:
            continue  # no excess at k = 1 (the identity above)
        for w in dl["workers"].values:
            d, el, ea = _on_fine_grid(dl.sel(k=k, workers=w))
            b, _, _ = _on_fine_grid(la.sel(k=k, workers=w))
            i_dl, i_la = _best_interior(d, el, ea), _best_interior(b, el, ea)
            out[f"k={k},W={w}"] = (float(d[i_la]) - float(d[i_dl])) / float(b[i_la])
    if not out:
        raise NotApplicable("the preset has no k > 1")
    return out


def _la_vs_sgd(ds, spec):
    r = _exact_lanes(ds["final_la"] / ds["final_sgd"]).values
    r = r[np.isfinite(r)]
    if not r.size:
        raise ValueError("no lane has finite LA and SGD risks")
    return float(r.min())


def _contraction(ds, spec):
    c = _first(ds, "sla_hb_contraction")
    return c / _first(ds, "polyak_rate")


def _steps(method):
    def measure(ds, spec):
        return _first(ds, "steps_to_eps").sel(f3_method=method, drop=True)

    return measure


def _noiseless_n_over_hb(ds, spec):
    s = _first(ds, "steps_to_eps")
    return s.sel(f3_method="sla_nesterov", drop=True) / s.sel(f3_method="sla_heavy_ball", drop=True)


def _sla_tuned(ds, spec):
    """Final risk of LA, SLA-HB and SLA-Nesterov, each tuned over (η, α[, μ]), per k > 1."""
    la, sla = _exact_lanes(ds["final_la"]), _exact_lanes(ds["final_sla"])
    ks = [k for k in la["k"].values if k > 1]
    if not ks:
        raise NotApplicable("the preset has no k > 1 (SLA at k = 1 is plain momentum SGD)")
    rows = []
    for k in ks:
        rows.append(
            [_tuned(la.sel(k=k), ("lr", "alpha"))[0]]
            + [_tuned(sla.sel(k=k, outer=o), ("lr", "alpha", "outer_mu"))[0] for o in OUTERS]
        )
    return xr.DataArray(np.asarray(rows), dims=("k", "outer"), coords={"k": ks, "outer": ["none", *OUTERS]})


# ---- figures -----------------------------------------------------------------------------


def _default_lane(da):
    """``da`` (a deterministic metric, seed dropped) at the default (η, α), the nearest grid point."""
    return as_dims(da, "lr", "alpha").sel(lr=PARAMS["lr"], alpha=PARAMS["alpha"], method="nearest")


def _draw_f2(ds, spec, fig):
    ax = fig.add_subplot(1, 2, 1)
    r = _default_lane(_ratio(ds))
    for w in ds["workers"].values:
        ax.plot(ds["k"].values, r.sel(workers=w).values, marker="o", label=f"W={w}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("sync period k")
    ax.set_ylabel("risk LA-DiLoCo(W,B) / LA(WB)")
    ax.legend(fontsize=7)
    ax.set_title(f"fixed (η, α) = ({PARAMS['lr']}, {PARAMS['alpha']})", fontsize=8)
    ax2 = fig.add_subplot(1, 2, 2)
    dl, la = _exact_lanes(ds["fine_diloco"]), _exact_lanes(ds["fine_la_wb"])
    for i, w in enumerate(ds["workers"].values):
        tuned, transfer = [], []
        for k in ds["k"].values:
            d, _, _ = _on_fine_grid(dl.sel(k=k, workers=w))
            b, _, _ = _on_fine_grid(la.sel(k=k, workers=w))
            d, b = np.where(np.isfinite(d), d, np.inf), np.where(np.isfinite(b), b, np.inf)
            j = int(np.argmin(b))
            tuned.append(float(d.min() / b[j]))
            transfer.append(float(d[j] / b[j]))
        ax2.plot(ds["k"].values, tuned, marker="s", color=f"C{i}", label=f"W={w}: both tuned")
        ax2.plot(
            ds["k"].values,
            transfer,
            ls="--",
            marker=".",
            color=f"C{i}",
            label=f"W={w}: at LA(WB)'s best (η, α)",
        )
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("sync period k")
    ax2.set_title("tuned over the factor-2^(1/4) (η, α) grid", fontsize=8)
    ax2.legend(fontsize=6)


def _draw_mc(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    t = ds["mc_step"].values
    mean, se, exact = (_default_lane(_exact_lanes(ds[v])) for v in ("mc_mean", "mc_se", "mc_exact"))
    for a in MC_ALGOS:
        (ln,) = ax.plot(t, exact.sel(algo=a).values, lw=1, label=a)
        ax.errorbar(
            t, mean.sel(algo=a).values, yerr=3 * se.sel(algo=a).values, fmt=".", color=ln.get_color(), ms=3
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("gradient steps")
    ax.set_ylabel("excess risk")
    ax.legend(fontsize=7)
    ax.set_title(f"default (η, α), {spec.mc_seeds} Monte Carlo seeds: mean ± 3 SE", fontsize=8)


_SMOKE = {
    "dim": 64,
    "steps": 256,
    "batch": 4,
    "num_log": 12,
    "mc_dim": 16,
    "mc_steps": 64,
    "mc_seeds": 256,
    "ks": (1, 2, 4),
    "workers": (2, 4),
    "kappas": (32.0, 64.0, 128.0, 256.0),
    "accel_num_log": 200,
}

EXPERIMENT = Experiment(
    name="linreg-two-phase",
    paper=Paper(
        title="High dimensional theory of two-phase optimizers", arxiv="2603.26954", authors="Atish Agarwala"
    ),
    run=run,
    spec=Spec(),
    params=PARAMS,
    metric_dims=METRIC_DIMS,
    coords=_coords,
    presets={
        "smoke": Preset(
            Space(
                lr=log(2.0**-3, 8.0, num=13), alpha=log(2.0**-3, 4.0, num=11), seeds=1, paired=("lr", "alpha")
            ),
            spec=_SMOKE,
            description="CPU, about a minute: 143 lanes, η ∈ 2^{−3…3} × α ∈ 2^{−3…2} in factors "
            "of √2 (grids that bracket every tuned optimum and resolve re-tuning), "
            "paired; D = 64 exact, D = 16 Monte Carlo × 256 seeds per lane.",
        ),
        "medium": Preset(
            Space(
                lr=log(2.0**-3, 8.0, num=13), alpha=log(2.0**-3, 4.0, num=11), seeds=1, paired=("lr", "alpha")
            ),
            spec={**_SMOKE, "mc_seeds": 16384},
            description="CPU, about ten minutes: smoke with 16 384 Monte Carlo seeds per lane, so "
            "every Monte Carlo comparison resolves ±3% (4096 left 331 of 3883 "
            "comparisons, all at large effective steps, undecided).",
        ),
        "full": Preset(
            Space(
                lr=log(2.0**-4, 8.0, num=15), alpha=log(2.0**-4, 4.0, num=13), seeds=1, paired=("lr", "alpha")
            ),
            spec={
                "dim": 4096,
                "steps": 10_000,
                "num_log": 48,
                "mc_dim": 512,
                "mc_steps": 2048,
                "mc_seeds": 1024,
                "ks": (1, 2, 4, 8, 16, 32),
                "workers": (2, 4, 8, 16),
                "kappas": (64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0),
            },
            description="One accelerator: 195 lanes (factor-√2 grids), D = 4096 exact, 10⁴ steps.",
        ),
    },
    claims=[
        # The recursions are deterministic (one lane per grid point, no seeds): every exact
        # statistic below is declared deterministic, so the seed minimum does not apply.
        Claim.identity(
            "exact-identities",
            "LA(k=1, α) ≡ SGD(αη); LA(α=1) ≡ SGD(η) at syncs; LA-DiLoCo(W=1) ≡ LA; "
            "LA-DiLoCo(k=1, W, B) ≡ LA(k=1, W·B) (exact recursion, float64).",
            _identities,
            1e-10,
            deterministic=True,
        ),
        Claim.close(
            "monte-carlo-matches-recursion",
            "The recursion is the exact expected risk: the Monte Carlo mean of the optax "
            "transforms over the exact risk is 1 ± 3% at every logged step of every "
            "stable run (exact risk never above the initial ½) with η ≤ 1, lane and "
            "algorithm (SGD, LA, LA-DiLoCo, SLA-HB, SLA-Nesterov); intervals from the "
            "Monte Carlo standard error, Bonferroni over the comparisons. Larger steps "
            "are left out because there the risk is heavy-tailed (η = 2.83, α = 0.5, LA: "
            "0.1% of 131 072 runs carry 21% of the mean) and a mean has no reliable "
            "standard error.",
            _mc_ratio,
            1.0,
            atol=MC_RTOL,
            source="derived",
        ),
        Claim.identity(
            "multiworker-ratio-one-at-k1",
            "LA-DiLoCo(W, B) / LA(W·B) = 1 at k = 1 (residual |ratio − 1| ≤ 1e-5, float32 round-off).",
            _ratio_k1,
            1e-5,
            deterministic=True,
        ),
        # The abstract says "more noise than the single worker version": the weakest
        # reading is an excess ratio above 1 at every k > 1, tested here; the monotone
        # growth in k that this claim used to test is kept as our own statement below.
        Claim.equals(
            "multiworker-more-noise",
            "Multi-worker LA-DiLoCo generates more noise than the single worker "
            f"{_RECON}: LA-DiLoCo(W, B) / LA(W·B) is at least 1 at every k > 1, in every "
            "stable lane and W (both risks below the initial ½ at every k). Measured: the "
            "number of (lane, W, k > 1) where it is below 1 by more than float32 round-off "
            "(1e-5); at small steps, where the bias dominates, the excess is itself below "
            "the round-off, so 'at least' is what float32 resolves.",
            _ratio_below_one,
            0,
            source="reconstruction",
            quote=Q_MORE_NOISE,
            deterministic=True,
        ),
        # The monotone growth in k is our statement, stronger than the abstract's words.
        Claim.equals(
            "multiworker-ratio-increases-with-k",
            "The excess of multi-worker LA-DiLoCo grows with the number of local steps: "
            "LA-DiLoCo(W, B) / LA(W·B) increases with k (up to float32 round-off, 1e-5) "
            "in every stable lane and W (both risks below the initial ½ at every k). "
            "Measured: the number of decreases. The monotone form is ours; the abstract "
            'says only "more noise" (previous claim).',
            _ratio_violations,
            0,
            source="proposed",
            deterministic=True,
        ),
        # "ameliorated", not "largely removed": the tuned excess below the untuned one
        # (no share of ½), on grids that bracket both optima (renamed from
        # multiworker-excess-removed-by-tuning, which said more than the abstract does).
        Claim.at_least(
            "multiworker-excess-ameliorated-by-tuning",
            "The multi-worker excess can be ameliorated by the choice of hyperparameters "
            f"{_RECON}: LA-DiLoCo tuned over a factor-2^(1/4) (η, α) grid that brackets its "
            "optimum has a smaller excess over LA(W·B) (also tuned: tuned vs tuned) than "
            "LA-DiLoCo run at LA(W·B)'s best (η, α), the untuned multi-worker run, for every "
            "(k > 1, W). Measured: the untuned excess ratio minus the tuned one, "
            "R_transfer − R_tuned, above float32 round-off (1e-5).",
            _excess_ameliorated,
            RATIO_ROUNDOFF,
            over=None,
            source="reconstruction",
            quote=Q_AMELIORATED,
            deterministic=True,
        ),
        # The abstract says "beneficial in many scenarios"; we test the weaker "somewhere".
        Claim.at_most(
            "la-beats-sgd-somewhere",
            "LA trades signal against noise differently from SGD, favourably in some "
            f"regimes {_RECON}: the smallest final-risk ratio LA / SGD at the matched "
            'flat-direction step αη over the lanes is below 1 ("many scenarios" is '
            "read as at least one: a share would be our threshold).",
            _la_vs_sgd,
            1.0,
            over=None,
            source="reconstruction",
            quote=Q_LA_VS_SGD,
            deterministic=True,
        ),
        Claim.close(
            "sla-heavy-ball-polyak-rate",
            "SLA heavy ball at Polyak's (α, μ) for the effective spectrum contracts per "
            "outer step at (√κ_h − 1)/(√κ_h + 1): measured / predicted = 1 ± 1%, every κ.",
            _contraction,
            1.0,
            atol=0.01,
            over=None,
            source="derived",
            deterministic=True,
        ),
        Claim.slope(
            "la-steps-scale-like-kappa",
            "LA's steps to ε scale like κ^1 (exact curves, noiseless two-scale spectrum).",
            _steps("la"),
            "kappa",
            expected=1.0,
            atol=0.1,
            over=None,
            source="lit",
            deterministic=True,
        ),
        # Acceleration is an upper bound on the κ-exponent (the accelerated κ^(1/2)), not an
        # equality of slopes: tested with at_most, 1/2 + 0.1.
        Claim.slope(
            "sla-steps-scale-like-sqrt-kappa",
            f"SLA (heavy ball) accelerates {_RECON}: its steps to ε grow at most like the "
            "accelerated κ^(1/2) (analytically tuned (α, μ), noiseless two-scale spectrum): "
            "log-log slope against κ at most 1/2 + 0.1; the tolerance 0.1 is ours.",
            _steps("sla_heavy_ball"),
            "kappa",
            at_most=0.5 + ACCEL_TOL,
            over=None,
            source="reconstruction",
            quote=Q_ACCELERATION,
            deterministic=True,
        ),
        Claim.slope(
            "sla-nesterov-steps-scale-like-sqrt-kappa",
            f"SLA (Nesterov) accelerates {_RECON}: its steps to ε grow at most like the "
            "accelerated κ^(1/2) (analytically tuned (α, μ), noiseless two-scale spectrum): "
            "log-log slope against κ at most 1/2 + 0.1; the tolerance 0.1 is ours.",
            _steps("sla_nesterov"),
            "kappa",
            at_most=0.5 + ACCEL_TOL,
            over=None,
            source="reconstruction",
            quote=Q_ACCELERATION,
            deterministic=True,
        ),
        Claim.ordering(
            "sla-nesterov-at-least-as-fast-as-heavy-ball",
            "Stacking momentum on LA accelerates training, most with Nesterov "
            f"{_RECON}: in the noisy regime (σ² = 0.1, batch 4) the final risk tuned over "
            "(η, α, μ) decreases LA > SLA-HB > SLA-Nesterov at every k > 1. Tested "
            "noisy and tuned because on noiseless quadratics classical theory says the "
            "opposite (next claim).",
            _sla_tuned,
            "outer",
            ["none", "heavy_ball", "nesterov"],
            increasing=False,
            over=None,
            source="reconstruction",
            quote=Q_NESTEROV,
            deterministic=True,
        ),
        Claim.at_least(
            "noiseless-heavy-ball-beats-nesterov",
            "Noiseless quadratics, parameters tuned analytically: heavy ball contracts "
            "faster than Nesterov ((√κ_h−1)/(√κ_h+1) against 1 − 2/√(3κ_h+1); best "
            "contraction per outer step at κ = 32…256: Nesterov 0.611–0.858, heavy ball "
            "0.487–0.778), so SLA-Nesterov needs at least as many steps to ε as SLA-HB "
            "(ratio ≥ 1, every κ).",
            _noiseless_n_over_hb,
            1.0,
            over=None,
            source="lit",
            deterministic=True,
        ),
    ],
    figures=[
        Figure(
            "f1_la_vs_sgd",
            plots.heatmap(
                lambda ds, spec: np.log2(_exact_lanes(ds["final_la"] / ds["final_sgd"])).clip(-2, 2),
                x="lr",
                y="alpha",
                facet="k",
                cmap="RdBu_r",
                vmin=-2,
                vmax=2,
                clabel="log₂ LA / SGD(αη)",
                xlabel="inner learning rate η",
                ylabel="outer step α",
            ),
            "log₂ of the final exact risk of LA(η, α, k) over SGD at the matched "
            "flat-direction step αη, over the (η, α) grid, per k; blue: LA wins.",
            size=(10, 3.2),
        ),
        Figure(
            "f2_multiworker",
            _draw_f2,
            "Excess risk of LA-DiLoCo(W workers, batch B) over LA(batch W·B) against k, at the "
            "default (η, α) (left); right: both tuned over the factor-2^(1/4) (η, α) grid (solid) and "
            "LA-DiLoCo at LA(W·B)'s best (η, α) (dashed).",
            size=(8, 3.5),
        ),
        Figure(
            "f3_acceleration",
            plots.curves(
                lambda ds, spec: _first(ds, "steps_to_eps"),
                x="kappa",
                hue="f3_method",
                logx=True,
                logy=True,
                marker="o",
                xlabel="condition number κ",
                ylabel=f"gradient steps to ε = {EPS:g}",
            ),
            "Noiseless two-scale spectrum: gradient steps to ε against κ, analytically tuned "
            "(α, μ) on the effective spectrum h(λ) = 1 − (1 − ηλ)^k.",
        ),
        Figure(
            "sla_tuned",
            plots.curves(
                _sla_tuned,
                x="k",
                hue="outer",
                logx=2,
                logy=True,
                marker="o",
                label_fmt=lambda o: "LA" if o == "none" else f"SLA {o}",
                xlabel="sync period k",
                ylabel=lambda spec: f"final risk after {spec.steps} steps, tuned",
                title=f"noisy (σ² = {PARAMS['sigma2']}): best over (η, α, μ)",
            ),
            "Noisy power-law problem: final exact risk of LA, SLA-HB and SLA-Nesterov, each "
            "tuned over the (η, α, μ) grid, against k.",
        ),
        Figure(
            "monte_carlo",
            _draw_mc,
            "Monte Carlo mean (points, ± 3 SE over seeds) against the exact recursion "
            "(lines), at the default (η, α).",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
