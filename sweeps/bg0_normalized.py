"""``bg0-normalized``: NSGD-M and normalized STORM under Blum--Gladyshev BG-0 noise.

Checks arXiv:2605.15314 (Hashemi, Upadhyay, Fazla): with gradient noise whose variance
grows like :math:`\\sigma_0^2 + \\sigma_1^2\\lVert x - x_0\\rVert^2`, normalized methods
travel at most :math:`\\sum_t \\eta_t`, so NSGD-M reaches the rate :math:`T^{-1/6}`
with the schedule :math:`\\eta = \\eta_0 T^{-5/6}`, :math:`\\beta = 1 - T^{-2/3}` on
smooth and generalized-smooth objectives alike, and normalized STORM with a sharp
initial estimate does better at equal oracle calls. The simulator is
:mod:`jaxtheory.sims.stochastic_opt.bg0`; method, objective and noise are integer codes
(see ``ALGORITHMS``, ``OBJECTIVES``, ``NOISES`` there), so one compiled program covers a
preset on CPU.
"""

from __future__ import annotations

import math

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims.stochastic_opt import bg0
from jaxtheory.sweep import Space, static, values, zipped

NSGDM_BG, NSGDM_CLASSIC, STORM_SHARP, STORM_PLAIN, SGD = range(5)
COSINE = 0
RADIAL, MSS = 1, 2
NORMALIZED = (NSGDM_BG, NSGDM_CLASSIC, STORM_SHARP, STORM_PLAIN)

# Claim tolerances (from the digest of 2605.15314, adjusted where noted).
BG_SLOPE = -1 / 6 + 0.04
CLASSIC_SLOPE = (-0.30, -0.20)
# The travel bound holds exactly; the displacement is summed in compensated float32
# (Kahan), and each step's length is eta to a few float32 ulps: 1e-6 relative.
TRAVEL_RTOL = 1e-6
# SGD "drifts off": diverged, or went farther from x0 than 3x the start's distance to
# the minimizer (the normalized methods never need to).
DRIFT_FACTOR = 3.0
# Plateau of STORM without sharp initialization, relative to the predicted
# (1 - 1/T)^(T-1) E||d0 - grad F(x0)|| (derivation in DESCRIPTION): +-25%, which covers
# the O(eta L) oscillation of the normalized step at the smoke horizons.
PLATEAU_RTOL = 0.25


# -- helpers on the results ---------------------------------------------------------------


def _horizon_dim(ds):
    """The dimension along which the oracle budget varies: ``budget`` or ``steps``."""
    for name in ("budget", "steps"):
        if name in ds.dims and ds.sizes[name] > 1:
            return name
    raise ValueError("the results vary neither budget nor steps: no rate to fit")


def _budgets(ds, hdim):
    """The oracle budgets along ``hdim`` (budget 0 means the scan length)."""
    vals = np.asarray(ds[hdim].values, dtype=float)
    if hdim == "budget" and np.any(vals <= 0):
        raise ValueError("budget 0 (= scan length) cannot be mixed into a budget axis")
    return vals


def _sel(ds, **kw):
    """Select coordinates that exist as dims; ignore the others."""
    return ds.sel({k: v for k, v in kw.items() if k in ds.dims})


def _best_over_step(curve):
    """Minimum over the step-size axis (best-tuned eta0 per budget) when present."""
    return curve.min("step") if "step" in curve.dims else curve


def _slope(x, y):
    return float(np.polyfit(np.log(x), np.log(y), 1)[0])


def _other_dims(da, skip):
    dims = [d for d in da.dims if d not in skip]
    coords = [da[d].values for d in dims]
    return dims, coords


def _iter_configs(da, skip):
    """Yield ({dim: value}, sub-array) over every dim of ``da`` not in ``skip``."""
    import itertools

    dims, coords = _other_dims(da, skip)
    for combo in itertools.product(*coords):
        sel = dict(zip(dims, combo))
        yield sel, da.sel(sel)


def _label(sel):
    names = {"objective": bg0.OBJECTIVES, "noise": bg0.NOISES, "algorithm": bg0.ALGORITHMS}
    parts = []
    for k, v in sel.items():
        v = v.item() if hasattr(v, "item") else v
        parts.append(f"{k}={names[k][int(v)]}" if k in names else f"{k}={v:g}")
    return ",".join(parts)


def _rate_slopes(ds, algorithm, metric="mean_grad_norm"):
    """Fitted log-log slope of the seed-mean metric (best eta0 per budget) vs budget."""
    hdim = _horizon_dim(ds)
    sub = _sel(ds, algorithm=algorithm, noise=MSS)
    curve = _best_over_step(sub[metric].mean("seed"))
    budgets = _budgets(ds, hdim)
    out = {}
    for sel, c in _iter_configs(curve, skip=(hdim,)):
        out[_label(sel)] = round(_slope(budgets, np.asarray(c.values)), 4)
    return out


# -- claims --------------------------------------------------------------------------------


def _travel(ds, spec):
    ratio = _sel(ds, algorithm=list(NORMALIZED))["travel_ratio"]
    worst = float(ratio.max())
    sgd = float(_sel(ds, algorithm=SGD)["travel_ratio"].max()) if SGD in ds["algorithm"] else None
    measured = {"max_ratio_normalized": worst, "max_ratio_sgd": sgd}
    return measured, bool(np.isfinite(worst) and worst <= 1.0 + TRAVEL_RTOL)


def _never_diverge(ds, spec):
    status = _sel(ds, algorithm=list(NORMALIZED))["status"]
    n = int((status != 0).sum())
    return {"diverged_lanes": n, "lanes": int(status.size)}, n == 0


def _sgd_drift(ds, spec):
    sub = _sel(ds, algorithm=SGD, noise=RADIAL, objective=COSINE)
    if "step" in sub.dims:
        sub = sub.isel(step=int(np.argmax(sub["sgd_lr"].values)))
    start_gap = bg0.DEFAULT_PARAMS["offset"] * math.sqrt(spec.dim)
    drift = (sub["status"] != 0) | (sub["max_dist"] > DRIFT_FACTOR * start_gap)
    s1 = sub["sigma1"].values
    hi = _sel(drift, sigma1=float(s1.max()))
    lo = _sel(drift, sigma1=float(s1.min()))
    measured = {
        "drift_fraction_max_sigma1": float(hi.mean()),
        "drift_fraction_min_sigma1": float(lo.mean()),
        "sigma1": [float(s1.min()), float(s1.max())],
    }
    return measured, bool(float(hi.mean()) >= 0.5 and float(lo.mean()) == 0.0)


def _bg_rate(ds, spec):
    slopes = _rate_slopes(ds, NSGDM_BG)
    worst = max(slopes.values())
    return {"worst_slope": worst, "slopes": slopes}, bool(worst <= BG_SLOPE)


def _classic_rate(ds, spec):
    zero = _sel(ds, sigma1=0.0)
    slopes = _rate_slopes(zero, NSGDM_CLASSIC)
    lo, hi = CLASSIC_SLOPE
    ok = all(lo <= v <= hi for v in slopes.values())
    return {"slopes": slopes}, ok


def _storm_vs_nsgdm(ds, spec):
    hdim = _horizon_dim(ds)
    last = ds.isel({hdim: -1})
    sub = _sel(last, noise=MSS)
    sub = sub.sel(sigma1=[v for v in sub["sigma1"].values if v > 0])
    mgn = _best_over_step(sub["mean_grad_norm"].mean("seed"))
    ratios = {}
    for sel, c in _iter_configs(mgn, skip=("algorithm",)):
        ratio = c.sel(algorithm=STORM_SHARP) / c.sel(algorithm=NSGDM_BG)
        ratios[_label(sel)] = round(float(ratio), 4)
    worst = max(ratios.values())
    return {"worst_ratio_storm_over_nsgdm": worst, "ratios": ratios}, bool(worst < 1.0)


def _expected_norm_of_gaussian(d):
    """E||z|| for z ~ N(0, I_d / d)."""
    return math.sqrt(2.0 / d) * math.exp(math.lgamma((d + 1) / 2) - math.lgamma(d / 2))


def _storm_plateau(ds, spec):
    hdim = _horizon_dim(ds)
    last = ds.isel({hdim: -1})
    budget = int(last[hdim]) if hdim == "budget" else int(last["steps"])
    sub = _sel(last, noise=MSS, objective=COSINE, sigma1=0.0)
    fgn = sub["final_grad_norm"].mean("seed")
    sigma0 = bg0.DEFAULT_PARAMS["sigma0"]
    measured = {}
    ok = True
    for sel, c in _iter_configs(fgn, skip=("algorithm",)):
        T_plain, _ = bg0.horizon(STORM_PLAIN, budget)
        T_sharp, b0 = bg0.horizon(STORM_SHARP, budget)
        e0 = sigma0 * _expected_norm_of_gaussian(spec.dim)
        pred_plain = (1 - 1 / T_plain) ** (T_plain - 1) * e0
        pred_sharp = (1 - 1 / T_sharp) ** (T_sharp - 1) * e0 / math.sqrt(b0)
        plain, sharp = float(c.sel(algorithm=STORM_PLAIN)), float(c.sel(algorithm=STORM_SHARP))
        measured[_label(sel) or "all"] = {
            "plain": round(plain, 4), "predicted_plain": round(pred_plain, 4),
            "sharp": round(sharp, 4), "predicted_sharp": round(pred_sharp, 4),
        }
        ok &= abs(plain / pred_plain - 1) <= PLATEAU_RTOL and sharp <= plain / 3
    return measured, bool(ok)


def _draw_rates(ds, spec, fig):
    hdim = _horizon_dim(ds)
    budgets = _budgets(ds, hdim)
    sub = _sel(ds, noise=MSS, objective=COSINE)
    s1s = sub["sigma1"].values
    panels = [float(s1s.min()), float(s1s.max())] if s1s.size > 1 else [float(s1s[0])]
    for i, s1 in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), i + 1)
        curve = _best_over_step(_sel(sub, sigma1=s1)["mean_grad_norm"].mean("seed"))
        for m in sub["algorithm"].values:
            c = np.asarray(curve.sel(algorithm=m).values, float)
            if np.isfinite(c).any():
                ax.loglog(budgets, c, "o-", label=bg0.ALGORITHMS[int(m)])
            else:
                ax.plot([], [], "o-", label=f"{bg0.ALGORITHMS[int(m)]} (diverged)")
        ref = float(curve.sel(algorithm=NSGDM_BG).values[0])
        ax.loglog(budgets, ref * (budgets / budgets[0]) ** (-1 / 6), "k:", label="T^(-1/6)")
        ax.loglog(budgets, ref * (budgets / budgets[0]) ** (-1 / 4), "k--", label="T^(-1/4)")
        ax.set_xlabel("oracle calls")
        if i == 0:
            ax.set_ylabel("mean ‖∇F(x_t)‖ (seed mean, best η0)")
        ax.set_title(f"σ1 = {s1:g}", fontsize=9)
        ax.legend(fontsize=6)
    fig.suptitle("cosine well, mean-square-smooth BG-0 noise", fontsize=9)


def _draw_generalized(ds, spec, fig):
    hdim = _horizon_dim(ds)
    budgets = _budgets(ds, hdim)
    sub = _sel(ds, noise=MSS, algorithm=NSGDM_BG)
    curve = _best_over_step(sub["mean_grad_norm"].mean("seed"))
    ax = fig.add_subplot(1, 1, 1)
    for sel, c in _iter_configs(curve, skip=(hdim,)):
        c = np.asarray(c.values)
        ax.loglog(budgets, c / c[0], "o-", label=_label(sel))
    ax.loglog(budgets, (budgets / budgets[0]) ** (-1 / 6), "k:", lw=2, label="T^(-1/6)")
    ax.set_xlabel("oracle calls T")
    ax.set_ylabel("mean ‖∇F‖ / its value at the smallest T")
    ax.set_title("NSGD-M (BG schedule) on α = 0, 2/3, 1 objectives")
    ax.legend(fontsize=6)


def _draw_drift(ds, spec, fig):
    sub = _sel(ds, noise=RADIAL, objective=COSINE)
    if "step" in sub.dims:
        sub = sub.isel(step=-1)
    hdim = _horizon_dim(ds)
    sub = sub.isel({hdim: -1})
    ax = fig.add_subplot(1, 1, 1)
    s1s = [float(v) for v in sub["sigma1"].values]
    finite_max = float(np.nanmax(np.where(sub["status"] == 0, sub["max_dist"], np.nan)))
    ceiling = 2.0 * max(finite_max, DRIFT_FACTOR * bg0.DEFAULT_PARAMS["offset"] * 4)
    for j, (m, marker) in enumerate(((NSGDM_BG, "o"), (STORM_SHARP, "s"), (SGD, "x"))):
        if m not in sub["algorithm"].values:
            continue
        c = sub.sel(algorithm=m)
        n_div = 0
        for i, s1 in enumerate(s1s):
            d = np.asarray(c["max_dist"].sel(sigma1=s1).values, float).ravel()
            div = np.asarray((c["status"].sel(sigma1=s1) != 0).values).ravel()
            n_div += int(div.sum())
            x = i + 0.2 * (j - 1) + np.linspace(-0.05, 0.05, d.size)
            ax.semilogy(x[~div], d[~div], marker, color=f"C{j}", alpha=0.6,
                        label=bg0.ALGORITHMS[m] if i == 0 else None)
            ax.semilogy(x[div], np.full(div.sum(), ceiling), "^", color=f"C{j}", alpha=0.6)
        if n_div:
            ax.plot([], [], "^", color=f"C{j}", label=f"{bg0.ALGORITHMS[m]}: diverged ({n_div})")
    start_gap = bg0.DEFAULT_PARAMS["offset"] * np.sqrt(spec.dim)
    ax.axhline(DRIFT_FACTOR * start_gap, color="k", ls="--", lw=0.8,
               label=f"{DRIFT_FACTOR:g} ‖x0 − x*‖")
    ax.set_xticks(range(len(s1s)), [f"σ1 = {v:g}" for v in s1s])
    ax.set_ylabel("max ‖x_t − x0‖ (▲: diverged)")
    ax.set_title("radial BG-0 noise, largest budget: SGD drifts off, normalized methods cannot",
                 fontsize=9)
    ax.legend(fontsize=6)


DESCRIPTION = r"""
The oracle returns $g(x;\xi) = \nabla F(x) + n(x;\xi)$ with BG-0 noise
$\mathbb E\lVert n\rVert^2 = \sigma_0^2 + \sigma_1^2\lVert x - x_0\rVert^2$ (exactly), in
the mean-square-smooth form $n = \sigma_0 z + \sigma_1\,\zeta\odot(x - x_0)$
($z \sim N(0, I/d)$, $\zeta$ Rademacher) and the radial form
$n = s(\sigma_0 u + \sigma_1 (x - x_0))$ that pushes along the displacement. The
objectives are separable: $\sum_i x_i^2/2 + 2\cos x_i$ ($L = 3$, $\alpha = 0$),
$\sum_i x_i^4/4 - x_i^2/2$ ($\alpha = 2/3$) and $\sum_i \cosh x_i - 1.5 x_i^2$
($\alpha = 1$), started $1.5$ per coordinate beyond a minimizer, $d = 10$.

A run gets an oracle budget $T$ and spends it by its method: NSGD-M with the BG
schedule $\eta = \eta_0 T^{-5/6}$, $\beta = 1 - T^{-2/3}$ (paper's rate $T^{-1/6}$) or
the classic one $\eta = \eta_0 T^{-3/4}$, $\beta = 1 - T^{-1/2}$ ($T^{-1/4}$ with
bounded variance); normalized STORM ($2$ calls per step) with $a = 1/T$,
$\eta = \eta_0 T^{-3/4}$ and an initial estimate from a batch of
$B_0 = \lceil\sqrt{T/2}\rceil$ samples ("sharp") or from one sample; plain SGD with a
constant step. The step sizes $\eta_0$ (normalized) and SGD's step are swept together.
Rates are fitted on the mean over seeds of $\frac1T\sum_t\lVert\nabla F(x_t)\rVert$ (the
expected gradient norm at a uniformly drawn iterate) with the best $\eta_0$ per budget.

Why sharp initialization matters: with $\sigma_1 = 0$ the mean-square-smooth noise
cancels in STORM's correction, so the estimator error obeys
$e_t = (1-a)e_{t-1} + a\,\sigma_0 z_t$ and, with $a = 1/T$,
$e_{T-1} \approx (1 - 1/T)^{T-1} e_0 \approx e^{-1} e_0$: the initial error is never
forgotten, and the normalized step settles where $\nabla F(x) \approx -e_{T-1}$. So
STORM from one sample plateaus at $\lVert\nabla F\rVert \approx e^{-1}\,\mathbb E\lVert
d_0 - \nabla F(x_0)\rVert = e^{-1}\sigma_0\,\mathbb E\lVert z\rVert$ (about $0.36\,\sigma_0$
at $d = 10$, not $\sigma_0$ as the digest guessed), while a batch of $B_0$ samples
divides that level by $\sqrt{B_0}$.
"""

EXPERIMENT = Experiment(
    name="bg0-normalized",
    paper=Paper(
        title="Beyond Bounded Variance: Variance-Reduced Normalized Methods for Nonconvex "
              "Optimization under Blum-Gladyshev Noise",
        arxiv="2605.15314",
        authors="Abolfazl Hashemi, Antesh Upadhyay, Arda Fazla",
    ),
    run=bg0.run,
    spec=bg0.BG0Spec(),
    params=bg0.DEFAULT_PARAMS,
    presets={
        "smoke": Preset(
            Space(
                algorithm=values(*range(5)), objective=values(0, 1, 2), noise=values(RADIAL, MSS),
                budget=values(100, 300, 900), sigma1=values(0.0, 5.0), seeds=8,
            ),
            spec={"steps": 900, "dim": 10},
            params={"eta0": 3.0, "sgd_lr": 0.5},
            description="CPU, under a minute: one program, 1440 lanes of up to 900 steps; "
                        "η0 = 3 (travel η0 T^(1/6) covers the start's distance to a minimizer "
                        "at every budget), SGD step 0.5 (stable at σ1 = 0).",
        ),
        "full": Preset(
            Space(
                algorithm=values(*range(5)), objective=values(0, 1, 2),
                noise=values(0, RADIAL, MSS), sigma1=values(0.0, 0.5, 1.0, 2.0, 5.0),
                step=zipped(eta0=[0.5, 1.0, 3.0, 10.0], sgd_lr=[0.01, 0.05, 0.2, 0.5]),
                steps=static(1024, 2048, 4096, 8192, 16384, 32768, 65536), seeds=64,
            ),
            spec={"dim": 10},
            description="One accelerator: 7 static horizons × 57,600 lanes, 2^10..2^16 calls.",
        ),
    },
    claims=[
        Claim("travel-invariant",
              "Normalized methods move by exactly η per step: ‖x_t − x0‖ ≤ Σ_{s<t} η_s on "
              "every lane, whatever the noise.",
              expected="max ‖x_t − x0‖ / Σ η_s ≤ 1", tolerance=f"{TRAVEL_RTOL:g} relative",
              check=_travel),
        Claim("normalized-never-diverge",
              "NSGD-M and normalized STORM stay finite on every lane, including the radial "
              "oracle and the generalized-smooth (α = 2/3, 1) objectives.",
              expected={"diverged_lanes": 0}, tolerance="exact", check=_never_diverge),
        Claim("sgd-drifts-on-radial",
              "Plain SGD with a step that is stable at σ1 = 0 drifts off on the radial BG-0 "
              "oracle at the largest σ1 (diverges or moves 3× farther than the minimizer).",
              expected="≥ 50% of lanes at max σ1, 0% at σ1 = 0",
              tolerance=f"drift: diverged or max ‖x_t − x0‖ > {DRIFT_FACTOR:g}‖x0 − x*‖",
              check=_sgd_drift),
        Claim("nsgdm-bg-rate",
              "NSGD-M with the BG schedule converges at rate T^(-1/6) for every σ1 and every "
              "smoothness class α ∈ {0, 2/3, 1} (rate-neutral).",
              expected="slope ≤ -1/6", tolerance="+0.04 (digest)", check=_bg_rate),
        Claim("nsgdm-classic-rate",
              "With bounded variance (σ1 = 0) the classic schedule gives T^(-1/4).",
              expected=list(CLASSIC_SLOPE), tolerance="interval around -1/4 (digest)",
              check=_classic_rate),
        Claim("storm-sharp-beats-nsgdm",
              "Normalized STORM with sharp initialization ends below NSGD-M (BG schedule) at "
              "equal oracle calls, for every σ1 > 0.",
              expected="ratio < 1 at the largest budget", tolerance="strict",
              check=_storm_vs_nsgdm),
        Claim("storm-without-sharp-init-plateaus",
              "Without sharp initialization (a = 1/T, d0 from one sample) STORM plateaus at "
              "the carried initial error; a batch of B0 samples removes the plateau.",
              expected="final ‖∇F‖ ≈ (1 − 1/T)^(T−1) E‖d0 − ∇F(x0)‖ ≈ 0.36 σ0; sharp ≤ plain/3",
              tolerance=f"±{PLATEAU_RTOL:.0%} (σ1 = 0, mss oracle, cosine)",
              check=_storm_plateau),
    ],
    figures=[
        Figure("rates", _draw_rates,
               "Mean gradient norm against oracle calls for every method (cosine well, "
               "smallest and largest σ1, best η0); dotted T^(-1/6), dashed T^(-1/4).",
               size=(9.0, 4.0)),
        Figure("generalized_smoothness", _draw_generalized,
               "NSGD-M with the BG schedule on the α = 0, 2/3 and 1 objectives, each σ1: "
               "the same T^(-1/6) slope (rate-neutral)."),
        Figure("drift", _draw_drift,
               "Largest distance from x0 on the radial oracle: SGD drifts or diverges as σ1 "
               "grows; normalized methods stay within Σ η."),
    ],
    description=DESCRIPTION,
)
