"""``profit-optimal-llm``: profit-optimal model and data size against hardware efficiency.

Checks a reconstruction of arXiv:2605.16430 (Hao and Merrill, "A Theory of Training
Profit-Optimal LLMs"): a firm maximises revenue from threshold adoption minus training
spend over ``(log N, log D)`` under the Chinchilla loss; how do the optimal N*, D* and
spend move with the hardware efficiency E (FLOP/$), the data efficiency κ_D and a data
cap D_max? The simulator is :mod:`jaxtheory.sims.econ.profit`; the adoption family is a
categorical parameter (one compile for every lane).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, plots
from jaxtheory.sims.econ import profit as pm
from jaxtheory.sweep import Space, categorical, log, values

#: The ``family`` parameter: adoption models in the simulator's code order.
FAMILY = categorical(*pm.FAMILIES)
#: Tolerance of the first-order identity αA N^−α = βB D_eff^−β at the optimum (issue 24).
FOC_TOL = 1e-4
#: Relative tolerance of d log C*/d log E against 1/(1 + γ − ε_s) (issue 24). The
#: central difference on the 64-point grid (spacing 0.146 in log E) has a relative error
#: of order h²·|c'''|/6, below 1e-3 where ε_s varies slowly.
ELASTICITY_RTOL = 0.01
#: The paper's "almost linear" band for the E-slopes of N* and D* (digest, check 2).
LINEAR_BAND = (0.85, 1.05)
#: Data-bound: spend ∝ D²/E, slopes 2 and −1 within ±0.05 (digest, check 3).
DATA_BOUND_TOL = 0.05
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
    return da.isel(seed=0, drop=True) if "seed" in da.dims else da


def _free(ds):
    return ds.sel(d_max=[v for v in ds["d_max"].values if v >= pm.UNCAPPED])


def _capped(ds):
    return ds.sel(d_max=[v for v in ds["d_max"].values if v < pm.UNCAPPED])


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


def _sizes(ds, spec):
    f = _free(ds)
    n = np.exp(_squeeze_free(_det(f["log_n"])).astype(float))
    d = np.exp(_squeeze_free(_det(f["log_d"])).astype(float))
    return xr.concat([n, d], xr.DataArray(["N*", "D*"], dims="size", name="size"))


def _uniform_sizes(ds, spec):
    f = _free(ds).sel(family=["uniform"])
    out = {
        "N*": np.exp(_squeeze_free(_det(f["log_n"])).astype(float)),
        "C*": _squeeze_free(_det(f["compute"])).astype(float),
    }
    return xr.concat(list(out.values()), xr.DataArray(list(out), dims="size", name="size"))


def _needs_uniform(ds, spec):
    return None if "uniform" in ds["family"].values else "the preset runs no uniform (constant-density) lanes"


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


def _spend_vs_d(ds, spec):
    c = _capped(ds).sel(kappa=1.0) if 1.0 in ds["kappa"].values else _capped(ds).isel(kappa=0)
    return _det(c["spend"]).isel(E=_e_index(ds)).astype(float)


def _spend_vs_e(ds, spec):
    c = _capped(ds).sel(kappa=1.0) if 1.0 in ds["kappa"].values else _capped(ds).isel(kappa=0)
    return _det(c["spend"]).isel(d_max=[0, -1]).astype(float)


def _kappa_diffs(metric):
    def measure(ds, spec):
        f = _free(ds)
        v = np.log(_squeeze_free(_det(f[metric])).astype(float))
        dv = v.diff("kappa")
        return dv.min(["E", "kappa"])

    return measure


def _grad(ds, spec):
    """Largest of grad-norm / GRAD_TOL and Newton-step / STEP_TOL over every lane (≤ 1: converged)."""
    return max(float(_det(ds["grad_norm"]).max()) / GRAD_TOL, float(_det(ds["newton_step"]).max()) / STEP_TOL)


def _uniform_capped(measure):
    def m(ds, spec):
        return measure(ds.sel(family=["uniform"]), spec)

    return m


def _uniform_closed_form(ds, spec):
    f = _free(ds).sel(family="uniform")
    ln = _squeeze_free(_det(f["log_n"])).astype(float)
    ref = xr.apply_ufunc(
        lambda E, k, loc, r: pm.uniform_optimum(float(E), float(k), float(loc), float(r))[0],
        *xr.broadcast(ln["E"], ln["kappa"], ln["loc"], _coord(ln, "revenue")),
        vectorize=True,
    )
    return np.abs(ln - ref)


def _coord(da, name):
    """A swept parameter's coordinate, or its default as a scalar DataArray."""
    return da[name] if name in da.coords else xr.DataArray(pm.DEFAULT_PARAMS[name])


def _pick(ds):
    """The figures' slice: κ_D = 1 (or the first), the largest L_c, the largest R0."""
    sel = {}
    if "kappa" in ds.dims:
        sel["kappa"] = 1.0 if 1.0 in ds["kappa"].values else ds["kappa"].values[0]
    for name in ("loc", "revenue"):
        if name in ds.dims:
            sel[name] = ds[name].values[-1]
    return ds.sel(sel)


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
**What was reconstructed.** Only the abstract of arXiv:2605.16430 was readable. The model
here is the digest's reconstruction: the Chinchilla loss
$L = E_0 + A N^{-\alpha} + B(\kappa_D D)^{-\beta}$ ($E_0 = 1.69$, $A = 406.4$,
$B = 410.7$, $\alpha = .34$, $\beta = .28$), revenue $R_0 S(L)$ with $S$ the share of
consumers whose loss threshold is met, and spend $6ND/E$. The adoption families
(logistic of width 0.1, log-normal on the excess loss with log-scale 0.5, a step smoothed
to width 0.03, uniform = constant density), the revenue scales $R_0 \in \{10^7, 10^9\}$ \$
and the median thresholds $L_c \in \{2.2, 2.4\}$ are our choices, not the paper's.

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
0.61$ — both at once for no $\varepsilon_s$ (CORRECTIONS.md, 000_10). $\kappa_D$ enters
only as $\kappa_D E$ in the cost of effective compute, so spend $= C_{\text{eff}}^*/(\kappa_D E)$
rises with $\kappa_D$ only if $d\log C^*/d\log E > 1$, i.e. $\varepsilon_s > \gamma$.
Data-bound ($D = D_{\max}$), the condition on $N$ alone,
$R_0 s(L)\alpha A N^{-\alpha} = 6ND/E$, gives spend $\propto D^2/E$ only if $N^* \propto D$
independently of $E$; under a constant density $N^* \propto (E/D)^{1/(1+\alpha)}$ and spend
$\propto (D/E)^{\alpha/(1+\alpha)}$.

**Smoke verdicts (2026-12-01, 64 E values × 3 κ_D × 4 families × 2 L_c × 2 R0 × 9 D_max,
10 s on 2 cores).** The derived identities pass: the first-order ratio is 1 to
$7\cdot10^{-15}$, the central-difference $d\log C^*/d\log E$ matches
$1/(1+\gamma-\varepsilon_s)$ to $7\cdot10^{-5}$ (relative), the uniform optimum equals its
closed form to $10^{-6}$ in $\log N^*$, the constant-density slopes are 0.3915 (N*) and
0.8669 (C*), and data-bound spend under a constant density has slope 0.2537 against
$D_{\max}$. Every optimum is converged (gradient $\le 1.3\cdot10^{-15}$, Newton step
$\le 3\cdot10^{-10}$; Adam alone stops at gradient norms up to 1.2). The paper's claims
fail under every reconstructed adoption model: `near-linear-tracking` gives E-slopes of
N* 0.13–0.34 (step, log-normal, logistic) and 0.39 (uniform), of D* 0.16–0.48; at these
optima (shares 4–100 %) the density elasticity $\varepsilon_s$ is $\le 0.14$ and mostly
negative, so $C^*$ grows slower than $E^{0.87}$. Linear tracking of N* needs
$\varepsilon_s \approx 0.70$ at the optimum: for a log-normal that is the thin
low-adoption tail $z/s_{\log} \approx 3.55$ ($\varepsilon_s = \gamma(1 + z/s_{\log})$),
for a power-law density $s \propto (L - E_0)^{-k}$ it is $k \approx 4.5$ (thresholds
piled near the irreducible loss). `data-efficiency-size` passes (Δ log N* 0.004–0.010
per doubling of κ_D), `data-efficiency-spend` fails (Δ log spend −0.09 for uniform,
$= -\ln 2\cdot\gamma/(1+\gamma)$, to −0.51 for the step), as derived for $\varepsilon_s < \gamma$.
Data-bound spend has slopes −2.2 to 0.34 against $D_{\max}$ and −0.25 to −0.61 against E,
not 2 and −1: $N^*$ is not proportional to $D$ independently of $E$ in this model.
"""

EXPERIMENT = Experiment(
    name="profit-optimal-llm",
    paper=Paper(
        title="A Theory of Training Profit-Optimal LLMs",
        arxiv="2605.16430",
        authors="Sophie Hao, William Merrill",
        found=False,
        banner="Reconstructed: the loss–adoption–cost model (Chinchilla loss, threshold adoption "
        "S(L), spend 6ND/E) and the adoption families are the digest's reconstruction from the "
        "abstract; the paper's own adoption model, constants and figures were not available.",
        unverified=(
            "Observed spending trends fit the most permissive compute-bound variants (no trend data here).",
            "Profit-optimal training is not what firms do if data-bound or if hardware gains stall.",
        ),
    ),
    run=pm.run,
    spec=pm.ProfitSpec(),
    params={**pm.DEFAULT_PARAMS, "family": FAMILY},
    presets={
        "smoke": Preset(
            Space(
                E=log(1e17, 1e21, num=64),
                kappa=values(0.5, 1.0, 2.0),
                family=values(*pm.FAMILIES),
                loc=values(2.2, 2.4),
                revenue=values(1e7, 1e9),
                d_max=values(pm.UNCAPPED, *np.geomspace(4e10, 1e11, 8).tolist()),
            ),
            description="CPU: one compile, 13,824 lanes × 4 starts × (300 Adam + 8 Newton) steps.",
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
            ),
            spec={"steps": 1000},
            description="One accelerator: about 3.5 million lanes.",
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
            "C* ∝ E^0.867 (CORRECTIONS.md 000_10); fitted over the 64 E values, ±0.002.",
            _uniform_sizes,
            "E",
            expected=lambda c: N_SLOPE_CONSTANT_DENSITY if c["size"] == "N*" else C_SLOPE_CONSTANT_DENSITY,
            atol=0.002,
            over=None,
            source="derived",
            requires=_needs_uniform,
        ),
        Claim.slope(
            "near-linear-tracking",
            "Compute-bound, N* and D* track E almost linearly: log-log slopes against E in "
            "[0.85, 1.05] for every adoption family, median L_c and κ_D. Under the "
            "reconstruction this needs ε_s ≈ 0.70 (N*) and 0.61 (D*) at once; a constant "
            "density gives 0.39 and 0.48, so a failure is a missing model ingredient, not a "
            "paper error.",
            _sizes,
            "E",
            expected=sum(LINEAR_BAND) / 2,
            atol=(LINEAR_BAND[1] - LINEAR_BAND[0]) / 2,
            over=None,
            source="paper",
        ),
        Claim.slope(
            "data-bound-spend-vs-data",
            "Data-bound, optimal spend ∝ D²/E: slope 2 ± 0.05 against D_max at fixed E "
            "(κ_D = 1, four E values). This holds only if N* ∝ D independently of E; under "
            "a constant density the reconstruction gives spend ∝ (D/E)^(α/(1+α)).",
            _spend_vs_d,
            "d_max",
            expected=2.0,
            atol=DATA_BOUND_TOL,
            over=None,
            source="paper",
            requires=_needs_cap,
        ),
        Claim.slope(
            "data-bound-spend-vs-hardware",
            "Data-bound, optimal spend ∝ D²/E: slope −1 ± 0.05 against E at fixed D_max "
            "(κ_D = 1, smallest and largest D_max).",
            _spend_vs_e,
            "E",
            expected=-1.0,
            atol=DATA_BOUND_TOL,
            over=None,
            source="paper",
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
            requires=lambda ds, spec: _needs_uniform(ds, spec) or _needs_cap(ds, spec),
        ),
        Claim.at_least(
            "data-efficiency-size",
            "Better data efficiency gives a larger model: Δ log N* > 0 between neighbouring "
            "κ_D at every E (smallest difference per family and L_c).",
            _kappa_diffs("log_n"),
            0.0,
            over=None,
            source="paper",
        ),
        Claim.at_least(
            "data-efficiency-spend",
            "Better data efficiency gives higher spend: Δ log spend* > 0 between neighbouring "
            "κ_D at every E. Derived: spend rises with κ_D only where ε_s > γ "
            "(d log C*/d log E > 1); a constant density gives spend ∝ κ_D^(−γ/(1+γ)).",
            _kappa_diffs("spend"),
            0.0,
            over=None,
            source="paper",
        ),
        Claim.identity(
            "converged",
            "Every optimum is converged: the gradient norm of −Π/R0 over the free coordinates "
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
