"""``profit-optimal-llm``: profit-optimal model and data size against hardware efficiency.

Checks a reconstruction of arXiv:2605.16430 (Hao and Merrill, "A Theory of Training
Profit-Optimal LLMs"): a firm maximises revenue from threshold adoption minus training
spend over ``(log N, log D)`` under the Chinchilla loss; how do the optimal N*, D* and
spend move with the hardware efficiency E (FLOP/$), the data efficiency κ_D and a data
cap D_max? The simulator is :mod:`jaxtheory.sims.econ.profit`; the adoption family is a
categorical parameter (one compile for every lane). A second set of lanes adds the
cost of serving the adopters (``serve``: tokens served at full adoption, 2N FLOP each).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, plots
from jaxtheory.results import as_dims, values_of
from jaxtheory.sims.econ import profit as pm
from jaxtheory.sweep import Space, log, values

#: Tolerance of the first-order identity αA N^−α = βB D_eff^−β at the optimum (ours).
FOC_TOL = 1e-4
#: Tokens served at full adoption in the lanes with an inference cost: 10¹³, so that
#: serving costs from a few % to about the training spend over the E grid.
SERVE = 1e13
#: Relative tolerance of d log C*/d log E against 1/(1 + γ − ε_s) (ours). The
#: central difference on the 64-point grid (spacing 0.146 in log E) has a relative error
#: of order h²·|c'''|/6, below 1e-3 where ε_s varies slowly.
ELASTICITY_RTOL = 0.01
#: Our band for the paper's "near-linear rate": E-slopes of N* and D* in [0.85, 1.05].
LINEAR_BAND = (0.85, 1.05)
#: Data-bound: spend ∝ D²/E, slopes 2 and −1 within ±0.05 (our tolerance).
DATA_BOUND_TOL = 0.05
#: "Sub-quadratically in E": the E-slope of the compute-bound training spend below 2.
SUBQUADRATIC = 2.0
#: The abstract's words each quoted claim tests (verbatim, TeX as printed).
QUOTE_TRACKING = (
    "In the compute-bound regime, optimal model size and token budget track hardware efficiency "
    "$E$ (FLOPs/dollar) at a near-linear rate"
)
QUOTE_SUBQUADRATIC = "total training cost then scales sub-quadratically in $E$"
QUOTE_DATA_EFFICIENCY = "Data efficiency improvements incentivize larger models and training expenditure"
QUOTE_DATA_BOUND = "When we are limited to $D$ data, profit-optimal training expenditure scales as $D^2 / E$"
QUOTE_DATA_BOUND_SIGNS = "increase with data and *decreases* with hardware efficiency"
#: A converged optimum: gradient norm of the scaled profit at most this (float64).
GRAD_TOL = 1e-8
#: ... and the remaining Newton step (distance in log N, log D) at most this.
STEP_TOL = 1e-6
#: Data-bound spend exponent under a constant density: spend ∝ (D/E)^(α/(1+α)) (derived).
CAPPED_SPEND_CONSTANT_DENSITY = pm.ALPHA / (1.0 + pm.ALPHA)
_A = pm.BETA / (pm.ALPHA + pm.BETA)
#: E-slope of N* under a constant adoption density: (β/(α+β))/(1 + γ) (derived).
N_SLOPE_CONSTANT_DENSITY = _A / (1.0 + pm.GAMMA)
#: E-slope of C* under a constant adoption density: 1/(1 + γ) (derived).
C_SLOPE_CONSTANT_DENSITY = 1.0 / (1.0 + pm.GAMMA)


def _det(da):
    """Drop the size-1 seed dimension: the optimisation is deterministic."""
    return da.isel(seed=0, drop=True)


def _keep(ds, name, keep):
    """``ds`` at the values of ``name`` (a dimension, swept or not) where ``keep`` is true."""
    ds = as_dims(ds, name)
    return ds.isel({name: np.flatnonzero(keep(ds[name].values))})


def _base(ds):
    """The lanes without an inference cost (``serve = 0``)."""
    return _keep(ds, "serve", lambda v: v == 0).isel(serve=0, drop=True)


def _served(ds):
    """The compute-bound lanes with an inference cost (``serve > 0``), or ``None``."""
    s = _keep(ds, "serve", lambda v: v > 0)
    return _keep(s, "d_max", lambda v: v >= pm.UNCAPPED) if s.sizes["serve"] else None


def _needs_served(ds, spec):
    return None if _served(ds) is not None else "the preset runs no lanes with an inference cost"


def _free(ds):
    return _keep(_base(ds), "d_max", lambda v: v >= pm.UNCAPPED)


def _capped(ds):
    return _keep(_base(ds), "d_max", lambda v: v < pm.UNCAPPED)


def _uniform(ds):
    return as_dims(ds, "family").sel(family=["uniform"])


def _squeeze_free(da):
    return da.isel(d_max=0, drop=True)


def _foc(ds, spec):
    return _det(_free(ds)["foc_ratio"]) - 1.0


def _gamma(ds, spec):
    """γ against 0.154 and the loss on the ray: log(L − E0) = log K − γ log(κC/6)."""
    f = _free(ds)
    G, K = pm.ray_constants()
    L = _det(f["loss"]).astype(float)
    c_eff = _det(f["compute"]).astype(float) * f["kappa"]
    ray = np.log(K) - pm.GAMMA * np.log(c_eff / 6.0)
    # float32 storage of loss and compute: residual ~ 1e-6 relative; 1e-4 leaves margin.
    return {"gamma": round(pm.GAMMA, 3) - 0.154, "ray": float(np.abs(np.log(L - pm.E0) - ray).max())}


def _elasticity(ds, spec):
    """Relative error of the central difference d log C*/d log E against 1/(1+γ−ε_s)."""
    f = _free(ds)
    logc = np.log(_squeeze_free(_det(f["compute"])).astype(float))
    loge = np.log(f["E"].astype(float))
    d = (logc.shift(E=-1) - logc.shift(E=1)) / (loge.shift(E=-1) - loge.shift(E=1))
    eps = _squeeze_free(_det(f["elasticity"])).astype(float)
    pred = 1.0 / (1.0 + pm.GAMMA - eps)
    rel = (d / pred - 1.0).isel(E=slice(1, -1))
    return np.abs(rel).max(["E", "kappa"])


def _size_pair(f):
    n = np.exp(_squeeze_free(_det(f["log_n"])).astype(float))
    d = np.exp(_squeeze_free(_det(f["log_d"])).astype(float))
    return xr.concat([n, d], xr.DataArray(["N*", "D*"], dims="size", name="size"))


def _sizes(ds, spec):
    return _size_pair(_free(ds))


def _sizes_served(ds, spec):
    return _size_pair(_served(ds))


def _served_ray(ds, spec):
    """|αA N^−α/(βB D_eff^−β) / (1 + Q S/(3D)) − 1| at the compute-bound optima with serving."""
    f = _served(ds)
    d = np.exp(_det(f["log_d"]).astype(float))
    shifted = 1.0 + f["serve"] * _det(f["share"]).astype(float) / (3.0 * d)
    return np.abs(_det(f["foc_ratio"]) / shifted - 1.0)


def _spend_free(ds, spec):
    return _squeeze_free(_det(_free(ds)["spend"])).astype(float)


def _uniform_sizes(ds, spec):
    f = _uniform(_free(ds))
    out = {
        "N*": np.exp(_squeeze_free(_det(f["log_n"])).astype(float)),
        "C*": _squeeze_free(_det(f["compute"])).astype(float),
    }
    return xr.concat(list(out.values()), xr.DataArray(list(out), dims="size", name="size"))


def _needs_uniform(ds, spec):
    return (
        None
        if "uniform" in values_of(ds, "family")
        else "the preset runs no uniform (constant-density) lanes"
    )


def _needs_cap(ds, spec):
    c = _capped(ds)
    if c.sizes["d_max"] < 2:
        return "the preset has fewer than two finite D_max values"
    if float(_det(c["bound"]).min()) < 1:
        return "D ≤ D_max does not bind at every capped lane"
    return None


def _e_index(ds):
    n = ds.sizes["E"]
    return sorted({0, n // 3, 2 * n // 3, n - 1})


def _kappa_one(ds):
    """``ds`` at κ_D = 1 (or the first κ_D run)."""
    ds = as_dims(ds, "kappa")
    return ds.sel(kappa=1.0) if 1.0 in ds["kappa"].values else ds.isel(kappa=0)


def _spend_vs_d(ds, spec):
    return _det(_kappa_one(_capped(ds))["spend"]).isel(E=_e_index(ds)).astype(float)


def _spend_vs_e(ds, spec):
    return _det(_kappa_one(_capped(ds))["spend"]).isel(d_max=[0, -1]).astype(float)


def _kappa_diffs(metric):
    def measure(ds, spec):
        f = _free(ds)
        v = np.log(_squeeze_free(_det(f[metric])).astype(float))
        dv = v.diff("kappa")
        return dv.min(["E", "kappa"])

    return measure


def _spend_vs_d_any(ds, spec):
    """Data-bound spend against D_max at four E values, every κ_D (for the sign claims)."""
    return _det(_capped(ds)["spend"]).isel(E=_e_index(ds)).astype(float)


def _spend_vs_e_any(ds, spec):
    """Data-bound spend against E at every D_max and κ_D (for the sign claims)."""
    return _det(_capped(ds)["spend"]).astype(float)


def _grad(ds, spec):
    """Largest of grad-norm / GRAD_TOL and Newton-step / STEP_TOL over every lane where the
    firm trains (≤ 1: converged); NaN (an error verdict) if any of those is not finite.

    Where no training run is profitable (a capped lane with serving costs and small
    revenue) the best start runs to N → 0 with zero adoption: a corner, not an interior
    optimum, where the Hessian is singular and the Newton step undefined."""
    trains = np.asarray(_det(ds["share"]).values, float) > 0
    g = np.asarray(_det(ds["grad_norm"]).values, float)[trains]
    n = np.asarray(_det(ds["newton_step"]).values, float)[trains]
    if not (np.isfinite(g).all() and np.isfinite(n).all()):
        return float("nan")
    return max(float(g.max()) / GRAD_TOL, float(n.max()) / STEP_TOL)


def _uniform_capped(measure):
    def m(ds, spec):
        return measure(_uniform(ds), spec)

    return m


def _uniform_closed_form(ds, spec):
    f = _uniform(_free(ds)).isel(family=0, drop=True)
    ln = _squeeze_free(_det(f["log_n"])).astype(float)
    ref = xr.apply_ufunc(
        lambda E, k, loc, r: pm.uniform_optimum(float(E), float(k), float(loc), float(r))[0],
        *xr.broadcast(ln["E"], ln["kappa"], ln["loc"], ln["revenue"]),
        vectorize=True,
    )
    return np.abs(ln - ref)


def _pick(ds):
    """The figures' slice: κ_D = 1 (or the first), the largest L_c, the largest R0; every family."""
    ds = as_dims(_kappa_one(ds), "loc", "revenue", "family")
    return ds.isel(loc=-1, revenue=-1)


def _draw_sizes(ds, spec, fig):
    f = _pick(_free(ds))
    axes = [fig.add_subplot(1, 3, i + 1) for i in range(3)]
    E = f["E"].values
    for i, fam in enumerate(f["family"].values):
        x = f.sel(family=fam)
        for ax, name, y in (
            (axes[0], "N*", np.exp(x["log_n"])),
            (axes[1], "D*", np.exp(x["log_d"])),
            (axes[2], "spend ($)", x["spend"]),
        ):
            ax.loglog(E, np.asarray(_squeeze_free(_det(y)), float), color=f"C{i}", label=fam)
            ax.set_title(name, fontsize=9)
            ax.set_xlabel("E (FLOP/$)")
    served = _served(ds)
    if served is not None:
        sv = _pick(served.isel(serve=-1, drop=True))
        for i, fam in enumerate(sv["family"].values):
            x = sv.sel(family=fam)
            for ax, y in (
                (axes[0], np.exp(x["log_n"])),
                (axes[1], np.exp(x["log_d"])),
                (axes[2], x["spend"]),
            ):
                ax.loglog(E, np.asarray(_squeeze_free(_det(y)), float), color=f"C{i}", ls="--", lw=0.8)
    axes[0].loglog(
        E,
        np.exp(np.asarray(_squeeze_free(_det(f["log_n"].isel(family=0))), float)[0]) * E / E[0],
        "k:",
        lw=0.8,
        label="∝ E (paper)",
    )
    for ax in axes:
        ax.legend(fontsize=6)


def _draw_capped(ds, spec, fig):
    c = _pick(_capped(ds))
    if c.sizes["d_max"] == 0:
        plots.not_applicable(fig, "this preset has no finite D_max")
        return
    ax = fig.add_subplot(1, 1, 1)
    d = c["d_max"].values
    idx = _e_index(ds)
    for i, fam in enumerate(c["family"].values):
        for j, ei in enumerate(idx):
            y = np.asarray(_det(c["spend"].sel(family=fam)).isel(E=ei), float)
            label = f"{fam}, E={float(c['E'][ei]):.0e}" if j in (0, len(idx) - 1) else None
            ax.loglog(d, y, color=f"C{i}", ls=("-", "--", ":", "-.")[j % 4], label=label)
    ax.loglog(d, float(y[0]) * (d / d[0]) ** 2, color="k", lw=0.8, label="∝ D² (paper)")
    ax.set_xlabel("D_max (tokens)")
    ax.set_ylabel("optimal spend ($)")
    ax.legend(fontsize=6, ncol=2)


DESCRIPTION = r"""
**What was reconstructed.** Only the abstract of arXiv:2605.16430 was readable; every
statement of the paper is tested here on our reconstruction of its model. The loss is
the Chinchilla fit $L = E_0 + A N^{-\alpha} + B(\kappa_D D)^{-\beta}$ ($E_0 = 1.69$,
$A = 406.4$, $B = 410.7$, $\alpha = .34$, $\beta = .28$), revenue is $R_0 S(L)$ with $S$
the share of consumers whose loss threshold is met, training costs $6ND/E$, and (in a
second set of lanes) serving the adopters costs $2NQ\,S(L)/E$: $2N$ FLOP per token for
$Q = 10^{13}$ tokens at full adoption, so serving costs from a few per cent of the training
spend at small $E$ to about as much at large $E$. The adoption families (logistic of
width 0.1, log-normal on the excess loss with log-scale 0.5, a step smoothed to width
0.03, uniform = constant density), the revenue scales $R_0 \in \{10^7, 10^9\}$ \$, the
median thresholds $L_c \in \{2.2, 2.4\}$ and $Q$ are our choices, not the paper's.

**Solver.** Adam (cosine-decayed step from 0.1, 300 steps) on $-\Pi/R_0$ over
$u = (\log N, \log D)$, each step followed by `optax.projections.projection_box`
($\log D \le \log D_{\max}$), in a `lax.scan`, from 4 fixed starts; 40 projected Newton
steps then polish the point (Adam alone stops at gradient norms $10^{-6}$–$10^{-2}$, too
coarse for a $10^{-4}$ first-order identity); the best start is the optimum. All of it
runs in float64. The optimisation is deterministic, so every claim is on exact values
(no seeds, no intervals): the "sample" of a slope is the 64-point E grid of one cell.

**Derivation.** With $C_{\text{eff}} = 6N\kappa_D D$ the first-order conditions give
$\alpha A N^{-\alpha} = \beta B D_{\text{eff}}^{-\beta}$ (the Chinchilla ray), the loss
$E_0 + K(C_{\text{eff}}/6)^{-\gamma}$ with $\gamma = \alpha\beta/(\alpha+\beta) = 0.154$,
and, differentiating $R_0 s(L)\gamma K C^{-\gamma-1}\propto 1/E$,
$d\log C^*/d\log E = 1/(1 + \gamma - \varepsilon_s)$ with
$\varepsilon_s = d\log s(L(C))/d\log C$ the elasticity of the adoption density. Then
$N^* \propto C^{*\,\beta/(\alpha+\beta)}$: under a constant density ($\varepsilon_s = 0$)
$C^* \propto E^{0.867}$, $N^* \propto E^{0.391}$, $D^* \propto E^{0.475}$. $N^*$ tracks
$E$ linearly only if $\varepsilon_s \approx 0.70$, $D^*$ only if $\varepsilon_s \approx
0.61$ — both at once for no $\varepsilon_s$. $\kappa_D$ enters
only as $\kappa_D E$ in the cost of effective compute, so spend $= C_{\text{eff}}^*/(\kappa_D E)$
rises with $\kappa_D$ only if $d\log C^*/d\log E > 1$, i.e. $\varepsilon_s > \gamma$.
Data-bound ($D = D_{\max}$), the condition on $N$ alone,
$R_0 s(L)\alpha A N^{-\alpha} = 6ND/E$, gives spend $\propto D^2/E$ only if $N^* \propto D$
independently of $E$; under a constant density $N^* \propto (E/D)^{1/(1+\alpha)}$ and spend
$\propto (D/E)^{\alpha/(1+\alpha)}$. With serving costs the two conditions become
$(R_0 - 2NQ/E)\,s\,\alpha A N^{-\alpha} = (6ND + 2NQS)/E$ and
$(R_0 - 2NQ/E)\,s\,\beta B D_{\text{eff}}^{-\beta} = 6ND/E$, whose ratio moves the optimum
off the ray toward data: $\alpha A N^{-\alpha}/(\beta B D_{\text{eff}}^{-\beta}) = 1 + QS/(3D)$.

**What the runs show.** The derived identities hold to round-off and every optimum is
converged (Adam alone stops far from it; the Newton polish closes the gap). The paper's
compute-bound tracking fails under every reconstructed adoption model: the E-slopes of
$N^*$ and $D^*$ stay well below 1, because at these optima (shares 4–100 %) the density
elasticity $\varepsilon_s$ is small and mostly negative, so $C^*$ grows slower than
$E^{0.87}$. Linear tracking of $N^*$ needs $\varepsilon_s \approx 0.70$ at the optimum: for
a log-normal that is the thin low-adoption tail $z/s_{\log} \approx 3.55$
($\varepsilon_s = \gamma(1 + z/s_{\log})$), for a power-law density
$s \propto (L - E_0)^{-k}$ it is $k \approx 4.5$ (thresholds piled near the irreducible
loss). Adding the serving cost does not supply the missing ingredient: it raises the
E-slope of $N^*$ a little and lowers that of $D^*$ (serving costs grow with $N$ alone, and
their weight against the training spend changes along the E grid), so the two move
apart rather than toward 1. Training spend grows far slower than $E^2$ (it even falls
with $E$ where $\varepsilon_s < \gamma$), so the sub-quadratic statement holds. Better data
efficiency gives a larger model, but lower spend wherever $\varepsilon_s < \gamma$, as
derived. Data-bound, $N^*$ is not proportional to $D$ independently of $E$ in this model,
so spend does not scale as $D^2/E$; whether it still rises with the data cap and falls
with $E$ (the abstract's gloss of $D^2/E$) is checked separately. On two capped lanes with
serving costs (step adoption, $R_0 = 10^7$ \$, the two smallest $E$) no training run is
profitable and the optimum is the corner $N \to 0$ with zero adoption; the convergence
check covers the lanes where the firm trains.
"""

EXPERIMENT = Experiment(
    name="profit-optimal-llm",
    paper=Paper(
        title="A Theory of Training Profit-Optimal LLMs",
        arxiv="2605.16430",
        authors="Sophie Hao, William Merrill",
        found=False,
        banner="Reconstructed: the loss–adoption–cost model (Chinchilla loss, threshold adoption "
        "S(L), spend 6ND/E, serving cost 2N per token served) and the adoption families are our "
        "reconstruction from the abstract; the paper's own adoption model, constants and figures "
        "were not available.",
        unverified=(
            "Observed spending trends fit the most permissive compute-bound variants (no trend data here).",
            "Profit-optimal training is not what firms do if data-bound or if hardware gains stall.",
        ),
    ),
    simulator=pm.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(
                E=log(1e17, 1e21, num=64),
                kappa=values(0.5, 1.0, 2.0),
                family=values(*pm.FAMILIES),
                loc=values(2.2, 2.4),
                revenue=values(1e7, 1e9),
                d_max=values(pm.UNCAPPED, *np.geomspace(4e10, 1e11, 8).tolist()),
                serve=values(0.0, SERVE),
            ),
            description="CPU: one compile, 55,296 lanes (with and without serving costs) × 4 "
            "starts × (300 Adam + 40 Newton) steps.",
        ),
        "full": Preset(
            Space(
                E=log(1e17, 1e21, num=64),
                kappa=log(0.25, 4.0, num=9),
                family=values(*pm.FAMILIES),
                loc=values(1.9, 2.0, 2.1, 2.2, 2.4),
                width=values(0.05, 0.1, 0.2),
                revenue=log(1e8, 1e11, num=4),
                d_max=values(pm.UNCAPPED, *np.geomspace(1e9, 1e12, 16).tolist()),
                serve=values(0.0, 1e12, SERVE, 1e14),
            ),
            spec={"steps": 1000},
            description="One accelerator: the full product of its eight axes, 1000 steps.",
        ),
    },
    claims=[
        Claim.identity(
            "compute-optimal-ray",
            "At every compute-bound optimum (D_max = UNCAPPED = 1e30) |αA N^−α/(βB D_eff^−β) − 1| < 1e-4: "
            "the profit optimum lies on the Chinchilla compute-optimal ray.",
            _foc,
            FOC_TOL,
            source="derived",
        ),
        Claim.identity(
            "inference-shifted-ray",
            "With serving costs 2NQ·S(L)/E the two first-order conditions give "
            "αA N^−α/(βB D_eff^−β) = 1 + Q·S(L*)/(3D*): the optimum leaves the Chinchilla ray "
            "toward more data; largest relative residual over the compute-bound optima with "
            "serving (float32 storage of S and D*: 1e-4).",
            _served_ray,
            FOC_TOL,
            source="derived",
            requires=_needs_served,
        ),
        Claim.identity(
            "ray-exponent-gamma",
            "γ = αβ/(α+β) = 0.154 (to the three digits quoted), and along the optima the loss is "
            "E0 + K(κC/6)^−γ (largest |log residual|; float32 storage, so 1e-4).",
            _gamma,
            1e-4,
            source="derived",
        ),
        Claim.identity(
            "compute-elasticity",
            "d log C*/d log E = 1/(1 + γ − ε_s) within 1 % (central differences on the E grid, "
            "interior points), ε_s the elasticity of the adoption density at the optimum.",
            _elasticity,
            ELASTICITY_RTOL,
            source="derived",
        ),
        Claim.identity(
            "uniform-closed-form",
            "Under uniform thresholds the optimum has a closed form "
            "(jaxtheory.sims.econ.profit.uniform_optimum): |log N* − closed form| ≤ 1e-5 "
            "(float32 storage of log N* ~ 27: 2e-6).",
            _uniform_closed_form,
            1e-5,
            source="derived",
            requires=_needs_uniform,
        ),
        Claim.slope(
            "constant-density-exponents",
            "With a constant adoption density (uniform thresholds) N* ∝ E^0.391 and "
            "C* ∝ E^0.867 (derived in the description); fitted over the 64 E values, ±0.002.",
            _uniform_sizes,
            "E",
            expected=lambda c: N_SLOPE_CONSTANT_DENSITY if c["size"] == "N*" else C_SLOPE_CONSTANT_DENSITY,
            atol=0.002,
            over=None,
            source="derived",
            deterministic=True,
            requires=_needs_uniform,
        ),
        Claim.slope(
            "near-linear-tracking",
            "Compute-bound, under our reconstruction of the adoption model: N* and D* track E "
            "at a near-linear rate, log-log slopes against E in [0.85, 1.05] for every "
            "adoption family, median L_c and κ_D (the band is ours). In the reconstruction this "
            "needs ε_s ≈ 0.70 (N*) and 0.61 (D*) at once; a constant density gives 0.39 and "
            "0.48, so a failure points to a model ingredient we lack, not to a paper error.",
            _sizes,
            "E",
            expected=sum(LINEAR_BAND) / 2,
            atol=(LINEAR_BAND[1] - LINEAR_BAND[0]) / 2,
            over=None,
            # the adoption model is our reconstruction from the abstract, not the paper's
            source="reconstruction",
            quote=QUOTE_TRACKING,
            deterministic=True,
        ),
        Claim.slope(
            "near-linear-tracking-with-inference",
            f"The same with the cost of serving the adopters added (2N FLOP per token, "
            f"{SERVE:.0e} tokens at full adoption), under our reconstruction: log-log slopes "
            "of N* and D* against E in [0.85, 1.05] (the band is ours). Serving costs grow "
            "with N alone, so they tilt the optimum toward data.",
            _sizes_served,
            "E",
            expected=sum(LINEAR_BAND) / 2,
            atol=(LINEAR_BAND[1] - LINEAR_BAND[0]) / 2,
            over=None,
            # the inference term the abstract mentions ("costs of larger-scale training and
            # inference"), tested as the missing ingredient of the tracking claim
            source="reconstruction",
            quote=QUOTE_TRACKING,
            deterministic=True,
            requires=_needs_served,
        ),
        Claim.slope(
            "spend-subquadratic",
            "Compute-bound, under our reconstruction: total training spend 6N*D*/E grows "
            "slower than E²: its log-log slope against E is below 2, for every adoption "
            "family, L_c, R0 and κ_D.",
            _spend_free,
            "E",
            at_most=SUBQUADRATIC,
            over=None,
            # quoted statement, previously untested; the adoption model is reconstructed
            source="reconstruction",
            quote=QUOTE_SUBQUADRATIC,
            deterministic=True,
        ),
        Claim.slope(
            "data-bound-spend-vs-data",
            "Data-bound, under our reconstruction: optimal spend ∝ D²/E, slope 2 ± 0.05 against "
            "D_max at fixed E (κ_D = 1, four E values; the tolerance is ours). This holds only "
            "if N* ∝ D independently of E; under a constant density the reconstruction gives "
            "spend ∝ (D/E)^(α/(1+α)).",
            _spend_vs_d,
            "d_max",
            expected=2.0,
            atol=DATA_BOUND_TOL,
            over=None,
            # the adoption model is our reconstruction from the abstract, not the paper's
            source="reconstruction",
            quote=QUOTE_DATA_BOUND,
            deterministic=True,
            requires=_needs_cap,
        ),
        Claim.slope(
            "data-bound-spend-vs-hardware",
            "Data-bound, under our reconstruction: optimal spend ∝ D²/E, slope −1 ± 0.05 against "
            "E at fixed D_max (κ_D = 1, smallest and largest D_max; the tolerance is ours).",
            _spend_vs_e,
            "E",
            expected=-1.0,
            atol=DATA_BOUND_TOL,
            over=None,
            # the adoption model is our reconstruction from the abstract, not the paper's
            source="reconstruction",
            quote=QUOTE_DATA_BOUND,
            deterministic=True,
            requires=_needs_cap,
        ),
        Claim.slope(
            "data-bound-spend-rises-with-data",
            "Data-bound, under our reconstruction: optimal spend increases with the data cap: "
            "log-log slope against D_max at least 0, at four E values, every κ_D and family.",
            _spend_vs_d_any,
            "d_max",
            at_least=0.0,
            over=None,
            # the abstract's own gloss of D²/E, a weaker reading than the exponent
            source="reconstruction",
            quote=QUOTE_DATA_BOUND_SIGNS,
            deterministic=True,
            requires=_needs_cap,
        ),
        Claim.slope(
            "data-bound-spend-falls-with-hardware",
            "Data-bound, under our reconstruction: optimal spend decreases with hardware "
            "efficiency: log-log slope against E at most 0, at every D_max, κ_D and family.",
            _spend_vs_e_any,
            "E",
            at_most=0.0,
            over=None,
            # the abstract's own gloss of D²/E, a weaker reading than the exponent
            source="reconstruction",
            quote=QUOTE_DATA_BOUND_SIGNS,
            deterministic=True,
            requires=_needs_cap,
        ),
        Claim.slope(
            "data-bound-constant-density",
            "Data-bound under a constant adoption density (uniform thresholds), the first-order "
            "condition in N alone gives N* ∝ (E/D)^(1/(1+α)) and spend ∝ (D/E)^(α/(1+α)) = "
            "(D/E)^0.254: slope against D_max at fixed E, ±0.002.",
            _uniform_capped(_spend_vs_d),
            "d_max",
            expected=CAPPED_SPEND_CONSTANT_DENSITY,
            atol=0.002,
            over=None,
            source="derived",
            deterministic=True,
            requires=lambda ds, spec: _needs_uniform(ds, spec) or _needs_cap(ds, spec),
        ),
        Claim.at_least(
            "data-efficiency-size",
            "Compute-bound, under our reconstruction: better data efficiency gives a larger "
            "model: Δ log N* > 0 between neighbouring κ_D at every E (smallest difference per "
            "family and L_c).",
            _kappa_diffs("log_n"),
            0.0,
            over=None,
            # the adoption model is our reconstruction from the abstract, not the paper's
            source="reconstruction",
            quote=QUOTE_DATA_EFFICIENCY,
            deterministic=True,
        ),
        Claim.at_least(
            "data-efficiency-spend",
            "Compute-bound, under our reconstruction: better data efficiency gives higher "
            "training spend: Δ log spend* > 0 between neighbouring κ_D at every E. Derived: "
            "spend rises with κ_D only where ε_s > γ (d log C*/d log E > 1); a constant density "
            "gives spend ∝ κ_D^(−γ/(1+γ)).",
            _kappa_diffs("spend"),
            0.0,
            over=None,
            # the adoption model is our reconstruction from the abstract, not the paper's
            source="reconstruction",
            quote=QUOTE_DATA_EFFICIENCY,
            deterministic=True,
        ),
        Claim.identity(
            "converged",
            "Every optimum where the firm trains (adoption > 0) is converged: the gradient norm "
            "of −Π/R0 over the free coordinates "
            "is at most 1e-8 and the remaining Newton step at most 1e-6 in (log N, log D) "
            "(float64; measured: the larger of the two ratios to their tolerances, ≤ 1), so "
            "the slopes are of optima, not of the optimiser.",
            _grad,
            1.0,
            source="sanity",
        ),
    ],
    figures=[
        Figure(
            "sizes_vs_hardware",
            _draw_sizes,
            "Compute-bound optima N*, D* and spend against E (κ_D = 1, L_c = 2.4, R0 = 1e9 $), "
            "per adoption family; dotted: N* ∝ E, the paper's near-linear tracking.",
        ),
        Figure(
            "data_bound",
            _draw_capped,
            "Data-bound optima: spend against D_max at four E values (κ_D = 1, L_c = 2.4, R0 = 1e9 $); "
            "black: the paper's ∝ D² for reference.",
        ),
    ],
    description=DESCRIPTION,
)
