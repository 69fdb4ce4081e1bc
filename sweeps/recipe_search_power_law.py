"""``recipe-search-power-law``: the best of K recipe ablations improves as a power law in K.

A reconstruction (the paper 000_18 was not found) of the claim that the best data recipe
found by K ablation runs improves as :math:`P_\\infty - a K^{-\\gamma}`: uniform random
search on a quadratic landscape on :math:`[-1, 1]^d`, observed with Gaussian noise, the
running best kept by its observed value (:mod:`jaxtheory.sims.search`). The closed form
:func:`jaxtheory.sims.search.expected_best_gap` gives :math:`\\gamma = 2/d`.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, plots
from jaxtheory.sims import search
from jaxtheory.sweep import Space, static, values

#: Relative tolerance of the closed form against the measured mean gap (the brief's 5 %).
FORMULA_RTOL = 0.05
#: Smallest budget K at which the closed form, the slope and the budget fits are read.
K_MIN = 16
#: Relative tolerance of the fitted slope around −2/d (proposed: 10 %).
SLOPE_RTOL = 0.10
#: Budgets fitted to predict the gap at the largest budget (proposed: "K ≤ 64").
PREDICT_RANGE = (16, 64)
#: Relative tolerance of that prediction (proposed: 15 %).
PREDICT_RTOL = 0.15
#: The chosen recipe "departs" from the noise-free law once its mean true gap exceeds the
#: noise-free running best on the same draws by this factor (our definition).
DEPART_FACTOR = 1.25
#: "About σ√(2 ln K)": the noise-free gap at the departure lies within this factor of it.
SAT_FACTOR = 2.0
#: The budget trade-off: final score g(C_f) − a K^(−γ) with g(C_f) = −A C_f^(−α),
#: total compute C = K c_proxy + C_f (our choice: nothing pins g down).
BUDGET = {"A": 200.0, "alpha": 0.3, "C": 16384.0, "c_proxy": 1.0}
#: Relative tolerance of the numerical K* against the first-order condition (proposed: 5 %).
KSTAR_RTOL = 0.05
#: Stand-in for the paper's ablation training runs, named on the claims that read the paper.
STAND_IN = (
    "uniform random search on a noisy quadratic landscape on [−1, 1]^d in place of ablation training runs"
)
# The σ lanes of a seed share their recipes (fold_in(key, t) does not depend on σ).
_PAIRED = ("sigma",)


def _hdiag(ds, d):
    return search.hessian_diag(int(d), float(ds["h_lo"]), float(ds["h_hi"]))


def _formula(ds, d):
    """Closed-form E[gap_K] at the checkpoints for dimension ``d`` (H from the run's h_lo, h_hi)."""
    K = np.asarray(ds["K"].values, float)
    return search.expected_best_gap(K, int(d), search.sublevel_constant(_hdiag(ds, d)))


def _noise_free(ds):
    sig = np.asarray(ds["sigma"].values, float)
    if 0.0 not in sig:
        raise NotApplicable("the preset has no σ = 0 lanes")
    return ds["gap"].sel(sigma=0.0)


def _formula_ratio(ds, spec):
    """Per-seed gap / closed form, averaged over the checkpoints K ≥ K_MIN, per dimension."""
    g = _noise_free(ds).sel(K=[k for k in ds["K"].values if k >= K_MIN])
    parts = []
    for d in g["dim"].values:
        f = xr.DataArray(_formula(ds, d)[ds["K"].values >= K_MIN], dims=["K"], coords={"K": g["K"]})
        parts.append((g.sel(dim=d) / f).mean("K"))
    return xr.concat(parts, "dim")


def _slope_curve(ds, spec):
    return _noise_free(ds)


def _ls(lx, ly):
    """Least-squares slope and intercept of ``ly`` (..., n) on ``lx`` (n,)."""
    xc = lx - lx.mean()
    b = (ly - ly.mean(-1, keepdims=True)) @ xc / (xc @ xc)
    return b, ly.mean(-1) - b * lx.mean()


def _boot(arr, fn, n_boot=analysis.DEFAULT_BOOT):
    """Bootstrap over seeds (axis 0 of ``arr``) of ``fn(means)``, ``means`` the (B, ...) resampled means.

    The framework's :func:`~jaxtheory.analysis.bootstrap` resamples seed *indices* here, and
    the means are formed in chunks, so no (B, seeds, ...) array is ever held.
    """

    def stat(idx):
        idx = np.asarray(idx, int)  # bootstrap hands the indices over as floats
        out = [fn(arr[idx[i : i + 50]].mean(1)) for i in range(0, len(idx), 50)]
        return np.concatenate(out)

    return analysis.bootstrap(np.arange(arr.shape[0]), stat, n_boot=n_boot, seed=18)


def _per_dim(ds, fn):
    """``fn(K, samples)`` bootstrapped over seeds, per dimension; samples (seed, K), σ = 0."""
    g = _noise_free(ds)
    K = np.asarray(g["K"].values, float)
    out = {}
    for d in g["dim"].values:
        arr = np.asarray(g.sel(dim=d).transpose("seed", "K").values, float)
        out[f"dim={int(d)}"] = _boot(arr, lambda m, d=d: fn(K, m, int(d)))
    return out


def _predict_stat(K, m, d):
    m_ = (K >= PREDICT_RANGE[0]) & (K <= PREDICT_RANGE[1])
    b, a = _ls(np.log(K[m_]), np.log(m[..., m_]))
    return np.exp(a + b * math.log(K[-1])) / m[..., -1]


def _predict(ds, spec):
    """Gap at the largest K predicted from a power law fitted on 16 ≤ K ≤ 64, over the measured one."""
    return _per_dim(ds, _predict_stat)


def kstar_foc(a: float, gamma: float, *, A: float, alpha: float, C: float, c_proxy: float) -> float:
    """K* solving a γ K^(−γ−1) = c_proxy g′(C − K c_proxy), g(x) = −A x^(−α), by bisection.

    Example:
        >>> k = kstar_foc(1.0, 1.0, A=1.0, alpha=1.0, C=100.0, c_proxy=1.0)
        >>> round(k, 6)  # K^-2 = (100 - K)^-2
        50.0
    """
    lo, hi = 1e-9, C / c_proxy * (1 - 1e-12)

    def h(k):  # decreasing in k: marginal gain of search minus marginal cost
        return (
            math.log(a * gamma)
            - (gamma + 1) * math.log(k)
            - math.log(c_proxy * A * alpha)
            + (alpha + 1) * math.log(C - k * c_proxy)
        )

    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if h(mid) > 0 else (lo, mid)
    return math.sqrt(lo * hi)


def _kstar_stat(K, m, d):
    """K*_numerical / K*_FOC for each resample (rows of ``m``)."""
    m = np.atleast_2d(m)
    keep = K >= K_MIN
    lx, ly = np.log(K[keep]), np.log(m[:, keep])
    b, a = _ls(lx, ly)  # the power law a K^b of the FOC
    quad = np.polynomial.polynomial.polyfit(lx, ly.T, 2)  # smooth fit of the curve itself
    grid = np.arange(K_MIN, int(K[-1]) + 1, dtype=float)
    lg = np.log(grid)
    curve = np.exp(quad[0][:, None] + quad[1][:, None] * lg + quad[2][:, None] * lg**2)
    final = -BUDGET["A"] * (BUDGET["C"] - grid * BUDGET["c_proxy"]) ** (-BUDGET["alpha"])
    k_num = grid[np.argmax(final[None] - curve, axis=1)]
    k_foc = np.array([kstar_foc(math.exp(ai), -bi, **BUDGET) for ai, bi in zip(a, b)])
    return k_num / k_foc


def _kstar(ds, spec):
    """K* of the budget split maximised numerically on a smooth fit of the measured curve, over the FOC's."""
    return _per_dim(ds, _kstar_stat)


def _departure(K, gap_mean, oracle_mean):
    """The first K where gap/oracle reaches DEPART_FACTOR (log-interpolated), nan if never."""
    return analysis.first_crossing(K, gap_mean / oracle_mean, DEPART_FACTOR, below=False)


def _noisy_cells(ds):
    sig = [float(s) for s in ds["sigma"].values if s > 0]
    if not sig:
        raise NotApplicable("the preset has no σ > 0 lanes")
    return sig


def _saturation_scale(ds, spec):
    """E[oracle](K_sat) / (σ √(2 ln K_sat)) per (d, σ > 0) cell that departs within the budget."""
    K = np.asarray(ds["K"].values, float)
    out = {}
    for d in ds["dim"].values:
        for s in _noisy_cells(ds):
            g = np.asarray(ds["gap"].sel(dim=d, sigma=s).transpose("seed", "K").values, float)
            o = np.asarray(ds["oracle_gap"].sel(dim=d, sigma=s).transpose("seed", "K").values, float)
            if not np.isfinite(_departure(K, g.mean(0), o.mean(0))):
                continue
            arr = np.stack([g, o], axis=-1)

            def stat(means, s=s):
                vals = []
                for rep in means:
                    k = _departure(K, rep[:, 0], rep[:, 1])
                    if not np.isfinite(k):
                        vals.append(np.inf)
                        continue
                    o_k = math.exp(np.interp(math.log(k), np.log(K), np.log(rep[:, 1])))
                    vals.append(o_k / (s * math.sqrt(2 * math.log(k))))
                return np.array(vals)

            out[f"dim={int(d)},sigma={s:g}"] = _boot(arr, stat)
    if not out:
        raise NotApplicable("no noisy cell departs from the noise-free law within the budget")
    return out


def _noisy_ratio(ds, spec):
    """Per-seed gap / exact selected-gap integral, averaged over K ≥ K_MIN, per (d, σ > 0)."""
    keep = ds["K"].values >= K_MIN
    parts = []
    for d in ds["dim"].values:
        c = search.sublevel_constant(_hdiag(ds, d))
        for s in _noisy_cells(ds):
            e = search.expected_selected_gap(np.asarray(ds["K"].values, float)[keep], int(d), c, s)
            g = ds["gap"].sel(dim=d, sigma=s).isel(K=np.flatnonzero(keep))
            r = (g / xr.DataArray(e, dims=["K"], coords={"K": g["K"]})).mean("K")
            parts.append(
                r.drop_vars(["dim", "sigma"], errors="ignore").expand_dims(cell=[f"dim={int(d)},sigma={s:g}"])
            )
    return xr.concat(parts, "cell")


def _moves_right(ds, spec):
    """log2 K_sat(σ_small) − log2 K_sat(σ_large) for neighbouring σ > 0; no departure counts as 2 K_max."""
    K = np.asarray(ds["K"].values, float)
    sig = sorted(_noisy_cells(ds))
    if len(sig) < 2:
        raise NotApplicable("the preset has fewer than two σ > 0")
    cap = 2.0 * K[-1]
    out = {}
    for d in ds["dim"].values:
        for s_small, s_large in zip(sig, sig[1:]):
            arrs = [
                np.stack(
                    [
                        np.asarray(ds[v].sel(dim=d, sigma=s).transpose("seed", "K").values, float)
                        for v in ("gap", "oracle_gap")
                    ],
                    -1,
                )
                for s in (s_small, s_large)
            ]
            arr = np.stack(arrs, -1)  # seed, K, (gap, oracle), (small, large)

            def ksat(rep, j):
                k = _departure(K, rep[:, 0, j], rep[:, 1, j])
                return cap if not np.isfinite(k) else k

            full = arr.mean(0)
            if [ksat(full, 0), ksat(full, 1)] == [cap, cap]:
                continue  # neither departs: nothing to order

            def stat(means):
                return np.array([math.log2(ksat(rep, 0) / ksat(rep, 1)) for rep in means])

            out[f"dim={int(d)},sigma={s_small:g}<{s_large:g}"] = _boot(arr, stat)
    if not out:
        raise NotApplicable("no noisy cell departs from the noise-free law within the budget")
    return out


def _law_theory(c, spec):
    """The closed form at a figure line's coordinates (dimension, Hessian range, K)."""
    hdiag = search.hessian_diag(int(c["dim"]), float(c["h_lo"]), float(c["h_hi"]))
    return search.expected_best_gap(np.asarray(c["K"], float), int(c["dim"]), search.sublevel_constant(hdiag))


def _draw_noise(ds, spec, fig):
    dims = list(ds["dim"].values)
    for j, d in enumerate(dims):
        ax = fig.add_subplot(1, len(dims), j + 1)
        K = np.asarray(ds["K"].values, float)
        for i, s in enumerate(ds["sigma"].values):
            plots.curves(
                ax,
                ds["gap"].sel(dim=d, sigma=s),
                "K",
                band="se",
                log=(True, True),
                color=f"C{i}",
                label=f"σ={float(s):g}",
            )
            if s > 0:
                ax.loglog(K, s * np.sqrt(2 * np.log(np.maximum(K, 2))), "--", color=f"C{i}", lw=0.8)
                c = search.sublevel_constant(_hdiag(ds, d))
                ax.loglog(K, search.expected_selected_gap(K, int(d), c, float(s)), ":", color="k", lw=0.8)
        ax.set_title(f"d={int(d)}; dashed σ√(2 ln K), dotted exact", fontsize=8)
        ax.set_xlabel("K")
        if j == 0:
            ax.set_ylabel("true gap of the chosen recipe")
            ax.legend(fontsize=6)


DESCRIPTION = r"""
**Model.** A recipe $\theta \in [-1, 1]^d$ has gap $\lVert\theta - \theta^\star\rVert_H^2$
with $\theta^\star = 0$ and $H = I$ (defaults `h_lo = h_hi = 1`, `center = 0`); a proposed
"small multimodal term" is left out, since it would break the closed form. One ablation
observes $y = \text{gap}(\theta) + \sigma\xi$, $\xi \sim N(0, 1)$. Uniform random search
spends $K \le 1024$ runs in a `lax.scan` and keeps the recipe of smallest *observed* $y$;
we record its true gap (`gap`), its observed value (`observed`) and the smallest true gap
evaluated (`oracle_gap`, the noise-free running best on the same draws) at 20 checkpoints
$K = \mathrm{round}(2^{j/2})$. The $\sigma$ lanes of a seed share their recipes (paired).

**Closed form.** $E[\text{gap}_K] = c^{-2/d}\,\Gamma(1 + 2/d)\,\Gamma(K+1)/\Gamma(K+1+2/d)$,
$c = V_d/(2^d\sqrt{\det H})$, exact while the sublevel ellipsoid stays inside the box; the
box's corners make the true mean slightly larger when it does not (d = 8 at small K).

**Claims, precisely.** (1) the seed-mean over the checkpoints $K \ge 16$ of gap/formula,
per $d$, within 5 % of 1 (at 2000 seeds one checkpoint alone has a 95 % half-width of
about 4.5 % in $d = 2$, where the best gap is near-exponential, so single checkpoints
cannot decide a 5 % band; the pooled ratio can). (2) The log-log slope of the seed-mean
gap over $K \ge 16$ is $-2/d$ within 10 %. (3) The noise floor: $K_{sat}$ is the first $K$
where the mean true gap of the chosen recipe reaches 1.25 × the noise-free running best on
the same draws; the proposal is that the law holds "until the gap is about $\sigma\sqrt{2\ln K}$":
we test $E[\text{oracle}](K_{sat})/(\sigma\sqrt{2\ln K_{sat}}) \in [1/2, 2]$. It fails: the
law departs when the noise-free gap is 2–3 times *below* $\sigma\sqrt{2\ln K}$. A derivation of
ours explains the scale: for large $K$ the minimiser of $g_i + \sigma\xi_i$ has
$\xi \approx -\sqrt{2\ln K}$, and the gaps near 0 (density $\propto g^{d/2-1}$) are tilted by
$e^{-g\sqrt{2\ln K}/\sigma}$, so the chosen gap is Gamma$(d/2)$ of scale
$\sigma/\sqrt{2\ln K}$: the floor is about $(d/2)\,\sigma/\sqrt{2\ln K}$, while
$\sigma\sqrt{2\ln K}$ is the size of the winner's curse (how far the *observed* best lies
below its true gap). That first-order floor is approached slowly: the exact integral
below is 1.52× it at $K = 1024$ and 1.23× at $K = 2^{20}$ ($d = 2$, $\sigma = 0.05$).
The exact mean of the chosen gap, for any $\sigma$, is
$\int\!\!\int g\,f(g)\,\sigma^{-1}\varphi((t-g)/\sigma)\,K(1-q(t))^{K-1}\,dg\,dt$ with
$f$ the density of the gap and $q(t) = P(g + \sigma\xi < t)$
(`jaxtheory.sims.search.expected_selected_gap`); claim `noisy-mean-gap-exact` checks it
against the runs like (1). (4) $K_{sat}$ moves right as $\sigma$ shrinks: $\log_2 K_{sat}(0.01) -
\log_2 K_{sat}(0.05) > 0$ per $d$ ($K_{sat}$ taken as $2K_{max}$ when the curve never
departs; cells where neither departs are left out). (5) Budget split: final score
$g(C_f) - a K^{-\gamma}$ with $g(C_f) = -A C_f^{-\alpha}$, $A = 200$, $\alpha = 0.3$,
$C = K c_{proxy} + C_f = 16384$, $c_{proxy} = 1$ (our choice: nothing fixes $g$).
$K^\star_{num}$ maximises $g(C - K) - m(K)$ over integers $16 \le K \le 1024$, $m$ a
quadratic fit in log-log of the measured mean curve over $K \ge 16$; $K^\star_{FOC}$ solves
$a\gamma K^{-\gamma-1} = c_{proxy}\,g'(C - K c_{proxy})$ with $(a, \gamma)$ the log-log
least-squares power law over $K \ge 16$; the ratio is within 5 % of 1. (6) A power law fitted
on $16 \le K \le 64$ predicts the mean gap at $K = 1024$ within 15 % (with $K \ge 1$ the
fit would bend with the small-K curvature of the Gamma ratio).

**Where smoke cannot decide.** The budget split for $d = 8$ sits a few percent from the
first-order $K^\star$: the small-$K$ curvature of the $d = 8$ curve moves the optimum of
the smooth fit, and its interval straddles the 5 % edge. The prediction from
$16 \le K \le 64$ is loose for $d = 2$, where five checkpoints of a near-exponential best
gap at 2000 seeds do not pin the slope down. Applied to the closed-form curve itself
(the infinite-seed limit) both statistics lie inside their tolerances for every $d$, so
more seeds should decide them.

**What is tested of the paper.** The paper was not found; its statement that the best
recipe improves predictably, as a power law in the number of ablation runs, is tested
*under our reconstruction* (uniform random search on a quadratic landscape standing in
for ablation training runs) by `predict-from-small-k`: a power law fitted on few runs
predicts the best gap at many runs (the 15 % tolerance is ours). The closed form, the
exponent $-2/d$, the noisy integral and the budget split are our derivations; the noise
floor's scale $\sigma\sqrt{2\ln K}$ is a proposal with no sentence of the paper behind
it, and our derivation above says it is the wrong scale.

Not built: CMA-ES, the logistic proxy training run and the full preset's Pareto frontier.
GP-UCB (`SearchSpec(policy="gp_ucb")`, the exact posterior of `sims.gp_bandits` on a pool of
uniform candidates) is implemented and tested (its posterior against a dense float64 solve;
on the $d = 2$ bowl it reaches a mean best gap of 0.014 after 24 runs against random
search's 0.051) but is in no preset: its $B \times n$ buffer per lane is too large for
2000 vmapped lanes at $K = 1024$ on a CPU.
"""

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
            Space(
                dim=static(2, 3, 4, 6, 8, 12),
                sigma=values(0.0, 0.01, 0.02, 0.05, 0.1),
                seeds=20000,
                paired=_PAIRED,
            ),
            spec={"budget": 4096},
            description="One accelerator: 6 dimensions × 100,000 lanes, K ≤ 4096 (σ ≥ 0.01: the "
            "exact noisy integral's grid needs σ ≥ 10⁻³ of the gap scale).",
        ),
    },
    claims=[
        Claim.close(
            "closed-form-mean-gap",
            "Uniform random search: the mean best gap equals c^(−2/d) Γ(1+2/d) Γ(K+1)/Γ(K+1+2/d) "
            "within 5 %: the per-seed ratio to the formula, averaged over the checkpoints K ≥ 16, "
            "per d (σ = 0).",
            _formula_ratio,
            1.0,
            rtol=FORMULA_RTOL,
            source="derived",
        ),
        Claim.slope(
            "slope-minus-two-over-d",
            "Noise-free: the log-log slope of the seed-mean best gap against K (K ≥ 16) is −2/d within 10 %.",
            _slope_curve,
            "K",
            expected=lambda c: -2.0 / float(c["dim"]),
            atol=lambda c: SLOPE_RTOL * 2.0 / float(c["dim"]),
            xmin=K_MIN,
            source="derived",
        ),
        # Was `derived`: the scale σ√(2 ln K) and the factor 2 have no sentence of the paper
        # (nor a derivation of ours) behind them: a proposal.
        Claim.within(
            "noise-floor-scale",
            "Proposed: with σ > 0 the law holds until the gap is about σ√(2 ln K): at the departure "
            "K_sat (mean true gap of the chosen recipe 1.25 × the noise-free running best on the same "
            "draws) the noise-free mean gap is within a factor 2 of σ√(2 ln K_sat). The scale and the "
            "factor 2 are a proposal; our derivation puts the floor near (d/2)σ/√(2 ln K) instead (see "
            "the description).",
            _saturation_scale,
            1.0 / SAT_FACTOR,
            SAT_FACTOR,
            source="proposed",
            stand_in=STAND_IN,
        ),
        Claim.at_least(
            "saturation-moves-right",
            "The saturation point moves to larger K as σ shrinks: log2 K_sat(σ = 0.01) − "
            "log2 K_sat(σ = 0.05) > 0 per d (no departure within the budget counts as 2 K_max; "
            "dimensions where neither σ departs are left out).",
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
            rtol=FORMULA_RTOL,
            source="derived",
        ),
        Claim.close(
            "budget-split-first-order",
            "Splitting C = K c_proxy + C_final, the numerically optimal K* (on a smooth fit of the "
            "measured curve) matches the first-order condition a γ K^(−γ−1) = c_proxy g′(C − K c_proxy) "
            "of the fitted power law within 5 % (g and the budget in the description).",
            _kstar,
            1.0,
            rtol=KSTAR_RTOL,
            source="derived",
        ),
        # Was `derived`: it is the abstract's "improves predictably, as a power law", tested on
        # our stand-in search problem (the paper was not found).
        Claim.close(
            "predict-from-small-k",
            "Under our reconstruction, the best recipe improves predictably as a power law in the "
            "number of ablation runs: the power law fitted on 16 ≤ K ≤ 64 predicts the mean gap at "
            "K = 1024 within 15 %: the ratio predicted / measured, per d (σ = 0). The 15 % tolerance "
            "is ours.",
            _predict,
            1.0,
            rtol=PREDICT_RTOL,
            source="reconstruction",
            quote="the performance of the best-discovered recipe improves \\emph{predictably}--as a "
            "\\emph{power law}--in the number of such ablation runs",
            stand_in=STAND_IN,
        ),
    ],
    figures=[
        Figure(
            "power_law",
            plots.curves(
                lambda ds, spec: _noise_free(ds),
                x="K",
                hue="dim",
                band="se",
                logx=True,
                logy=True,
                marker="o",
                ms=3,
                theory=_law_theory,
                theory_points=None,
                theory_label="closed form",
                label_fmt="d={}",
                xlabel="ablation runs K",
                ylabel="E gap of the best recipe (σ = 0)",
                title="dotted: closed form c^(−2/d) Γ(1+2/d) Γ(K+1)/Γ(K+1+2/d)",
            ),
            "Seed-mean best gap of noise-free random search against K (band ± one standard error), "
            "with the closed form dotted.",
        ),
        Figure(
            "noise_floor",
            _draw_noise,
            "True gap of the recipe chosen by its noisy observation, per σ (band ± one standard error), "
            "with σ√(2 ln K) dashed and the exact mean (expected_selected_gap) dotted.",
        ),
    ],
    description=DESCRIPTION,
)
