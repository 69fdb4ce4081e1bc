r"""``recipe-search-power-law``: the best of K recipe ablations improves as a power law in K.

A reconstruction (the paper 000_18 was not found) of the claim that the best data recipe found by K ablation
runs improves as $P_\infty - a K^{-\gamma}$ (:mod:`jaxtheory.sims.search`). A recipe $\theta \in [-1, 1]^d$
has gap $\lVert\theta\rVert_H^2$, $H = I$ (a proposed "small multimodal term" is left out: it would break the
closed form); one ablation observes $y = \text{gap}(\theta) + \sigma\xi$, $\xi \sim N(0, 1)$. Uniform random
search spends $K \le 1024$ runs and keeps the recipe of smallest *observed* $y$; we record its true gap
(`gap`), its observed value and the smallest true gap evaluated (`oracle_gap`, the noise-free running best on
the same draws) at 20 checkpoints $K = \mathrm{round}(2^{j/2})$; the $\sigma$ lanes of a seed share their
recipes.

**Closed form.** $E[\text{gap}_K] = c^{-2/d}\,\Gamma(1 + 2/d)\,\Gamma(K+1)/\Gamma(K+1+2/d)$, $c =
V_d/(2^d\sqrt{\det H})$, exact while the sublevel ellipsoid stays inside the box (the corners make the true
mean slightly larger for d = 8 at small K). The closed-form claims pool the checkpoints $K \ge 16$: at 2000
seeds one checkpoint has a 95 % half-width of about 4.5 % in $d = 2$, too wide to decide 5 %.

**The noise floor.** The proposed scale $\sigma\sqrt{2\ln K}$ fails: the law departs when the noise-free
gap is 2–3 times *below* it. Our derivation: for large $K$ the minimiser of $g_i + \sigma\xi_i$ has $\xi
\approx -\sqrt{2\ln K}$, and the gaps near 0 (density $\propto g^{d/2-1}$) are tilted by $e^{-g\sqrt{2\ln
K}/\sigma}$, so the chosen gap is Gamma$(d/2)$ of scale $\sigma/\sqrt{2\ln K}$: the floor is about
$(d/2)\,\sigma/\sqrt{2\ln K}$, while $\sigma\sqrt{2\ln K}$ is the winner's curse (how far the *observed*
best lies below its true gap). The first-order floor is approached slowly (the exact mean is 1.52× it at
$K = 1024$, 1.23× at $K = 2^{20}$; $d = 2$, $\sigma = 0.05$). The exact mean for any $\sigma$ is
$\int\!\!\int g\,f(g)\,\sigma^{-1}\varphi((t-g)/\sigma)\,K(1-q(t))^{K-1}\,dg\,dt$, $f$ the density of the
gap and $q(t) = P(g + \sigma\xi < t)$ (`expected_selected_gap`).

**Budget split.** $g(C_f) = -A C_f^{-\alpha}$, $A = 200$, $\alpha = 0.3$, $C = K c_{proxy} + C_f = 16384$,
$c_{proxy} = 1$ (our choice). $K^\star_{num}$ maximises $g(C - K) - m(K)$ over integers $16 \le K \le 1024$,
$m$ a log-log quadratic fit of the mean curve over $K \ge 16$; $K^\star_{FOC}$ uses the log-log least-squares
power law over $K \ge 16$. The prediction fits $16 \le K \le 64$ (from $K = 1$ the fit would bend with the
small-K curvature of the Gamma ratio).

**Where smoke cannot decide.** For $d = 8$ the small-$K$ curvature moves the smooth fit's optimum a few
percent from the first-order $K^\star$, and the interval straddles the 5 % edge; for $d = 2$ five checkpoints
of a near-exponential best gap do not pin the slope for the prediction. On the closed-form curve (the
infinite-seed limit) both lie inside their tolerances for every $d$: more seeds should decide.

**Of the paper** only "improves predictably, as a power law" is tested. Not built: CMA-ES, the logistic proxy
run, the Pareto frontier. GP-UCB (`SearchSpec(policy="gp_ucb")`) is implemented and tested (a mean best gap of
0.014 after 24 runs on the $d = 2$ bowl, random search 0.051) but in no preset: its buffer per lane is too
large for 2000 vmapped lanes at $K = 1024$ on a CPU.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, plots
from jaxtheory.analysis import Cells
from jaxtheory.sims import search
from jaxtheory.sims.search import budget
from jaxtheory.sweep import Space, static, values

K_MIN = 16  # smallest budget K at which the closed forms, the slope and the budget fits are read
PREDICT_RANGE = (16, 64)  # the prediction's fit range ("K ≤ 64", proposed)
DEPART_FACTOR = 1.25  # departure: gap / noise-free running best on the same draws reaches this (ours)
BUDGET = {"A": 200.0, "alpha": 0.3, "C": 16384.0, "c_proxy": 1.0}  # ours, nothing pins g (the description)
STAND_IN = (
    "uniform random search on a noisy quadratic landscape on [−1, 1]^d in place of ablation training runs"
)
FULL_SIGMAS = (0.0, 0.01, 0.02, 0.05, 0.1)
_PAIRED = ("sigma",)  # the σ lanes of a seed share their recipes (fold_in(key, t) does not depend on σ)


def _sublevel(ds, d):
    return search.sublevel_constant(search.hessian_diag(int(d), float(ds["h_lo"]), float(ds["h_hi"])))


def _noise_free(ds):  # every preset runs σ = 0 and two σ > 0
    return ds["gap"].sel(sigma=0.0)


def _noisy_cells(ds):
    return [float(s) for s in ds["sigma"].values if s > 0]


def _over_closed_form(ds, s):
    """Per seed: the gap at σ = ``s`` over its closed form per dimension (for σ > 0 the exact noisy integral),
    averaged over K ≥ K_MIN."""
    g = ds["gap"].sel(sigma=s, K=ds["K"].values[ds["K"].values >= K_MIN])
    K, dims = np.asarray(g["K"].values, float), g["dim"].values
    args = [(K, int(d), _sublevel(ds, d)) for d in dims]
    closed = [search.expected_selected_gap(*a, s) if s > 0 else search.expected_best_gap(*a) for a in args]
    return (g / xr.DataArray(closed, dims=("dim", "K"), coords={"dim": dims, "K": K})).mean("K")


def _noisy_ratio(ds, spec):
    return xr.concat([_over_closed_form(ds, s) for s in _noisy_cells(ds)], "sigma")


def _boot(arr, fn):
    """A deferred bootstrap over seeds (axis 0 of ``arr``) of ``fn(means)``, ``means`` the (B, ...) resampled
    seed means, formed 50 resamples at a time (no (B, seeds, ...) array is held)."""

    def stat(idx):
        idx = np.asarray(idx, int)  # bootstrap hands the indices over as floats
        return np.concatenate([fn(arr[idx[i : i + 50]].mean(1)) for i in range(0, len(idx), 50)])

    return lambda level, seed: analysis.bootstrap(np.arange(arr.shape[0]), stat, level=level, seed=seed)


def _seeds_k(da):
    return np.asarray(da.transpose("seed", "K").values, float)


def _per_dim(fn):
    """``fn(K, means)`` bootstrapped over seeds, per dimension (σ = 0)."""

    def measure(ds, spec):
        g, K = _noise_free(ds), np.asarray(ds["K"].values, float)
        return Cells(
            ({"dim": int(d)}, _boot(_seeds_k(g.sel(dim=d)), lambda m: fn(K, m))) for d in g.dim.values
        )

    return measure


def _predict_stat(K, m):
    """The gap at the largest K predicted from a power law fitted on PREDICT_RANGE, over the measured one."""
    m_ = (K >= PREDICT_RANGE[0]) & (K <= PREDICT_RANGE[1])
    b, a = budget.loglog_fit(K[m_], m[..., m_])
    return np.exp(a + b * math.log(K[-1])) / m[..., -1]


def _kstar_stat(K, m):
    """K* maximising the budget split on a smooth (log-log quadratic) fit of each resampled curve, over the
    first-order K* of its least-squares power law."""
    K, m = K[K >= K_MIN], np.atleast_2d(m)[:, K >= K_MIN]
    b, a = budget.loglog_fit(K, m)
    foc = [budget.kstar_foc(math.exp(ai), -bi, **BUDGET) for ai, bi in zip(a, b)]
    return budget.kstar_smooth(K, m, **BUDGET) / np.array(foc)


def _ksat(K, gap, oracle, cap=np.nan):
    """The first K where gap/oracle reaches DEPART_FACTOR (log-interpolated); ``cap`` if never."""
    k = analysis.first_crossing(K, gap / oracle, DEPART_FACTOR, below=False)
    return k if np.isfinite(k) else cap


def _gap_oracle(ds, d, s):
    return np.stack([_seeds_k(ds[v].sel(dim=d, sigma=s)) for v in ("gap", "oracle_gap")], -1)  # seed, K, 2


def _floor_scale(K, rep, s):
    """E[oracle](K_sat) / (σ √(2 ln K_sat)) of one mean curve ``rep`` (K, (gap, oracle)); inf if it never departs."""
    if not np.isfinite(k := _ksat(K, *rep.T)):
        return np.inf
    return math.exp(np.interp(math.log(k), np.log(K), np.log(rep[:, 1]))) / (s * math.sqrt(2 * math.log(k)))


def _saturation_scale(ds, spec):
    """The floor's scale per (d, σ > 0) cell that departs within the budget."""
    K, out = np.asarray(ds["K"].values, float), Cells()
    for d in ds["dim"].values:
        for s in _noisy_cells(ds):
            arr = _gap_oracle(ds, d, s)
            if np.isfinite(_floor_scale(K, arr.mean(0), s)):
                out.add(
                    {"dim": int(d), "sigma": s},
                    _boot(arr, lambda m, s=s: np.array([_floor_scale(K, r, s) for r in m])),
                )
    if not out:
        raise NotApplicable("no noisy cell departs from the noise-free law within the budget")
    return out


def _moves_right(ds, spec):
    """log2 K_sat(σ_small) − log2 K_sat(σ_large) for neighbouring σ > 0; no departure counts as 2 K_max."""
    K, out = np.asarray(ds["K"].values, float), Cells()
    sig = sorted(_noisy_cells(ds))
    ksat = lambda rep, j: _ksat(K, *rep[..., j].T, 2.0 * K[-1])  # noqa: E731  rep: K, (gap, oracle), σ pair
    for d in ds["dim"].values:
        for s_small, s_large in zip(sig, sig[1:]):
            arr = np.stack([_gap_oracle(ds, d, s) for s in (s_small, s_large)], -1)  # seed, K, 2, 2
            if ksat(arr.mean(0), 0) == ksat(arr.mean(0), 1) == 2.0 * K[-1]:
                continue  # neither departs: nothing to order
            stat = lambda m: np.array([math.log2(ksat(r, 0) / ksat(r, 1)) for r in m])  # noqa: E731
            out.add({"dim": int(d), "sigma": f"{s_small:g}<{s_large:g}"}, _boot(arr, stat))
    if not out:
        raise NotApplicable("no noisy cell departs from the noise-free law within the budget")
    return out


def _law_theory(c, spec):  # the closed form at a figure line's coordinates
    return search.expected_best_gap(np.asarray(c["K"], float), int(c["dim"]), _sublevel(c, c["dim"]))


LAW_FIG = dict(x="K", hue="dim", band="se", logx=True, logy=True, marker="o", ms=3, label_fmt="d={}")
LAW_FIG |= dict(
    theory_label="closed form", xlabel="ablation runs K", ylabel="E gap of the best recipe (σ = 0)"
)
LAW_FIG["title"] = "dotted: closed form c^(−2/d) Γ(1+2/d) Γ(K+1)/Γ(K+1+2/d)"


def _draw_noise(ds, spec, fig):
    dims, K = list(ds["dim"].values), np.asarray(ds["K"].values, float)
    for j, d in enumerate(dims):
        ax = fig.add_subplot(1, len(dims), j + 1)
        for i, s in enumerate(ds["sigma"].values):
            g = ds["gap"].sel(dim=d, sigma=s)
            plots.curves(ax, g, "K", band="se", log=(True, True), color=f"C{i}", label=f"σ={float(s):g}")
            if s > 0:
                ax.loglog(K, s * np.sqrt(2 * np.log(np.maximum(K, 2))), "--", color=f"C{i}", lw=0.8)
                exact = search.expected_selected_gap(K, int(d), _sublevel(ds, d), float(s))
                ax.loglog(K, exact, ":", color="k", lw=0.8)
        ax.set_title(f"d={int(d)}; dashed σ√(2 ln K), dotted exact", fontsize=8)
        if j == 0:
            ax.set_ylabel("true gap of the chosen recipe")
            ax.legend(fontsize=6)


EXPERIMENT = Experiment(
    name="recipe-search-power-law",
    paper=Paper(
        title="The best data recipe improves as a power law in the number of ablation runs",
        found=False,
        banner="The closed form and the noise floor are our derivations; only uniform random search "
        "on a quadratic landscape is run.",
        unverified=(
            "The power law P*(K) ≈ P∞ − a K^(−γ) holds in pretraining, SFT, preference optimisation and RL.",
            "The quality–quantity Pareto frontier dominates heuristic pipelines such as DCLM.",
        ),
    ),
    simulator=search.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(dim=static(2, 4, 8), sigma=values(0.0, 0.01, 0.05), seeds=2000, paired=_PAIRED),
            spec={"budget": 1024},
            description="CPU, well under a minute: 3 static dimensions × 6000 lanes, K ≤ 1024.",
        ),
        "full": Preset(
            Space(dim=static(2, 3, 4, 6, 8, 12), sigma=values(*FULL_SIGMAS), seeds=20000, paired=_PAIRED),
            spec={"budget": 4096},
            description="One accelerator: 6 dimensions × 100,000 lanes, K ≤ 4096 (σ ≥ 0.01: the "
            "exact noisy integral's grid needs σ ≥ 10⁻³ of the gap scale).",
        ),
    },
    claims=[
        Claim.close(
            "closed-form-mean-gap",
            "Uniform random search: the mean best gap equals c^(−2/d) Γ(1+2/d) Γ(K+1)/Γ(K+1+2/d) within "
            "5 %: the per-seed ratio to the formula, averaged over the checkpoints K ≥ 16, per d (σ = 0).",
            lambda ds, spec: _over_closed_form(ds, 0.0),
            1.0,
            rtol=0.05,
            source="derived",
        ),
        Claim.slope(
            "slope-minus-two-over-d",
            "Noise-free: the log-log slope of the seed-mean best gap against K (K ≥ 16) is −2/d within 10 %.",
            lambda ds, spec: _noise_free(ds),
            "K",
            expected=lambda c: -2.0 / float(c["dim"]),
            atol=lambda c: 0.10 * 2.0 / float(c["dim"]),
            xmin=K_MIN,
            source="derived",
        ),
        Claim.within(
            "noise-floor-scale",
            "Proposed: with σ > 0 the law holds until the gap is about σ√(2 ln K): at the departure K_sat "
            "(mean true gap of the chosen recipe 1.25 × the noise-free running best on the same draws) the "
            "noise-free mean gap is within a factor 2 of σ√(2 ln K_sat). The scale and the factor 2 are a "
            "proposal; our derivation puts the floor near (d/2)σ/√(2 ln K) instead (see the description).",
            _saturation_scale,
            0.5,
            2.0,
            source="proposed",
            stand_in=STAND_IN,
        ),
        Claim.at_least(
            "saturation-moves-right",
            "The saturation point moves to larger K as σ shrinks: log2 K_sat(σ = 0.01) − "
            "log2 K_sat(σ = 0.05) > 0 per d (no departure within the budget counts as 2 K_max; dimensions where neither σ "
            "departs are left out).",
            _moves_right,
            0.0,
            source="derived",
        ),
        Claim.close(
            "noisy-mean-gap-exact",
            "Ours: with noise, the mean true gap of the recipe of smallest observation equals the exact "
            "integral ∫∫ g f(g) φ((t−g)/σ)/σ · K(1 − q(t))^(K−1) dg dt (expected_selected_gap) within 5 %: "
            "the per-seed ratio averaged over K ≥ 16, per (d, σ > 0).",
            _noisy_ratio,
            1.0,
            rtol=0.05,
            source="derived",
        ),
        Claim.close(
            "budget-split-first-order",
            "Splitting C = K c_proxy + C_final, the numerically optimal K* (on a smooth fit of the measured "
            "curve) matches the first-order condition a γ K^(−γ−1) = c_proxy g′(C − K c_proxy) of the "
            "fitted power law within 5 % (g and the budget in the description).",
            _per_dim(_kstar_stat),
            1.0,
            rtol=0.05,
            source="derived",
        ),
        Claim.close(
            "predict-from-small-k",
            "Under our reconstruction, the best recipe improves predictably as a power law in the number of "
            "ablation runs: the power law fitted on 16 ≤ K ≤ 64 predicts the mean gap at K = 1024 within "
            "15 %: the ratio predicted / measured, per d (σ = 0). The 15 % tolerance is ours.",
            _per_dim(_predict_stat),
            1.0,
            rtol=0.15,
            source="reconstruction",
            quote="the performance of the best-discovered recipe improves \\emph{predictably}--as a "
            "\\emph{power law}--in the number of such ablation runs",
            stand_in=STAND_IN,
        ),
    ],
    figures=[
        Figure(
            "power_law",
            plots.curves(lambda ds, spec: _noise_free(ds), theory=_law_theory, theory_points=None, **LAW_FIG),
            "Seed-mean best gap of noise-free random search against K (band ± one standard error), with the "
            "closed form dotted.",
        ),
        Figure(
            "noise_floor",
            _draw_noise,
            "True gap of the recipe chosen by its noisy observation, per σ (band ± one standard error), "
            "with σ√(2 ln K) dashed and the exact mean (expected_selected_gap) dotted.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
