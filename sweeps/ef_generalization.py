"""Generalization of error feedback: EF-SGD and DiLoCo-EF on convex logistic regression.

Checks three claims of the error-feedback generalization paper (digest 002_17; no
arXiv id found): compression changes the generalization gap only transiently, the
choice of compressor does not matter at matched contraction α, and DiLoCo-EF's excess
risk falls like (M·H·T)^(−1/2). The run function is :func:`jaxtheory.sims.logreg.run`;
everything compared inside one lane shares its data, index sequence and compressor
randomness (common random numbers), so differences between methods are resolved far
below the seed-to-seed spread.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims import logreg
from jaxtheory.sweep import Space, static, values

# Claim 1: fitted log-log slope of the compression-induced gap |gap_EF - gap_SGD| in T.
SLOPE_MAX = -0.5
# Claim 1b: gap_EF / gap_SGD after at least one epoch (T >= n), for alpha >= 0.05.
RATIO_MAX = 1.05
ALPHA_MIN = 0.05
# Claim 2: matched-alpha compressors' seed-mean gaps within 10 % or 2 standard errors.
REL_TOL = 0.10
Z_TOL = 2.0
# Claim 3: slope of DiLoCo-EF excess risk against N = M H T.
RATE = -0.5
RATE_TOL = 0.1

COMPRESSORS = logreg.EF_METHODS[1:]


def _dims(spec):
    """(n, d) of the EF part's training set."""
    if spec.dataset == "breast_cancer":
        x, _ = logreg.load_breast_cancer()
        return spec.n, x.shape[1]
    return spec.n, spec.d


def _cells(ds, spec):
    """Yield (label, sub-dataset with dims method/horizon/seed, spec) per config."""
    datasets = ds["dataset"].values if "dataset" in ds.dims else [None]
    for name in datasets:
        sub = ds.sel(dataset=name) if name is not None else ds
        spec_g = spec if name is None else dataclasses.replace(spec, dataset=str(name))
        extra = [d for d in sub["gap"].dims if d not in ("method", "horizon", "seed")]
        stacked = sub.stack(cfg=extra) if extra else sub.expand_dims(cfg=[0])
        for c in range(stacked.sizes["cfg"]):
            cell = stacked.isel(cfg=c)
            label = spec_g.dataset + ("" if not extra else f"[{c}]")
            yield label, cell, spec_g


def _slope(x, y):
    x, y = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return float(np.polyfit(x, y, 1)[0])


def _check_gap_slope(ds, spec):
    worst, per = -np.inf, {}
    for label, cell, _ in _cells(ds, spec):
        gap = cell["gap"].transpose("method", "horizon", "seed").values
        T = cell["horizon"].values
        for m, name in enumerate(logreg.EF_METHODS):
            if name == "sgd":
                continue
            delta = np.abs(gap[m] - gap[0]).mean(-1)  # seed mean of the per-seed |delta|
            s = _slope(T, delta)
            per[f"{label}/{name}"] = round(s, 3)
            worst = max(worst, s)
    return {"max_slope": round(worst, 3), "slopes": per}, bool(worst <= SLOPE_MAX)


def _check_gap_ratio(ds, spec):
    worst, per, alphas = -np.inf, {}, {}
    for label, cell, spec_g in _cells(ds, spec):
        n, d = _dims(spec_g)
        _, al = logreg.matched_compressors(d, spec_g.levels)
        gap = cell["gap"].transpose("method", "horizon", "seed").values.mean(-1)
        T = cell["horizon"].values
        for m, name in enumerate(logreg.EF_METHODS):
            if name == "sgd" or al[name] < ALPHA_MIN:
                continue
            alphas[name] = round(al[name], 4)
            r = gap[m, T >= n] / gap[0, T >= n]
            if r.size:
                per[f"{label}/{name}"] = round(float(r.max()), 4)
                worst = max(worst, float(r.max()))
    if not per:
        return {"checked": 0}, False
    return {"max_ratio": round(worst, 4), "ratios": per, "alpha": alphas}, bool(worst <= RATIO_MAX)


def _check_indifference(ds, spec):
    worst_rel, fails, checked = 0.0, [], 0
    for label, cell, spec_g in _cells(ds, spec):
        _, d = _dims(spec_g)
        _, al = logreg.matched_compressors(d, spec_g.levels)
        k = al["top_k"] * d  # top-k's alpha is k/d
        gap = cell["gap"].transpose("method", "horizon", "seed").values
        T = cell["horizon"].values
        S = gap.shape[-1]
        for ti in np.flatnonzero(T >= 10 * d / k):
            for a in range(1, len(logreg.EF_METHODS)):
                for b in range(a + 1, len(logreg.EF_METHODS)):
                    diff = gap[a, ti] - gap[b, ti]
                    mean_ab = 0.5 * (gap[a, ti].mean() + gap[b, ti].mean())
                    rel = abs(diff.mean()) / abs(mean_ab)
                    se = diff.std(ddof=1) / np.sqrt(S) if S > 1 else np.inf
                    checked += 1
                    worst_rel = max(worst_rel, rel)
                    if rel > REL_TOL and abs(diff.mean()) > Z_TOL * se:
                        fails.append(f"{label}/T={int(T[ti])}/"
                                     f"{logreg.EF_METHODS[a]}-{logreg.EF_METHODS[b]}")
    measured = {"max_rel_diff": round(worst_rel, 4), "pairs_checked": checked, "failures": fails}
    return measured, bool(checked > 0 and not fails)


def _diloco_cells(ds):
    """Yield (label, seed-mean dl_excess with dims dl_method/dl_config/rounds) per config."""
    exc = ds["dl_excess"]
    other = [d for d in exc.dims if d not in ("dl_method", "dl_config", "rounds", "seed")]
    exc = exc.mean("seed")
    if not other:
        yield "all", exc
        return
    stacked = exc.stack(cfg=other)
    for c in range(stacked.sizes["cfg"]):
        cell = stacked.isel(cfg=c)
        label = ",".join(f"{d}={cell[d].values.item()}" for d in other)
        yield label, cell


def _diloco_points(cell, spec):
    """(M, H, T, excess per dl_method) over the DiLoCo grid of one config cell."""
    pts = []
    for ci, (M, H) in enumerate(logreg.diloco_configs(spec)):
        for ri, T in enumerate(spec.diloco_rounds):
            pts.append((M, H, T, cell.isel(dl_config=ci, rounds=ri).values))
    return pts


def _directional_slopes(pts, j):
    out = {}
    for name, idx in (("T", 2), ("M", 0), ("H", 1)):
        ss = []
        for key in {tuple(p[i] for i in range(3) if i != idx) for p in pts}:
            sel = [(p[idx], float(p[3][j])) for p in pts
                   if tuple(p[i] for i in range(3) if i != idx) == key]
            if len(sel) >= 2:
                ss.append(_slope(*zip(*sel)))
        if ss:
            out[f"slope_along_{name}"] = round(float(np.mean(ss)), 3)
    return out


def _check_diloco_rate(ds, spec):
    j = logreg.DILOCO_METHODS.index("diloco_ef")
    measured, ok = {}, True
    for label, cell in _diloco_cells(ds):
        pts = _diloco_points(cell, spec)
        N = np.array([M * H * T for M, H, T, _ in pts], float)
        e = np.array([float(p[3][j]) for p in pts])
        e0 = np.array([float(p[3][0]) for p in pts])
        if (e <= 0).any() or (e0 <= 0).any():
            measured[label] = {"nonpositive_excess": int((e <= 0).sum() + (e0 <= 0).sum())}
            ok = False
            continue
        slope = _slope(N, e)
        measured[label] = {"slope": round(slope, 3), "slope_uncompressed": round(_slope(N, e0), 3),
                           **_directional_slopes(pts, j)}
        ok = ok and abs(slope - RATE) <= RATE_TOL
    if len(measured) == 1:
        measured = next(iter(measured.values()))
    return measured, bool(ok)


# -- figures -----------------------------------------------------------------------
def _first_cell(ds, spec):
    return next(_cells(ds, spec))


def _draw_gap(ds, spec, fig):
    label, cell, _ = _first_cell(ds, spec)
    ax = fig.add_subplot(1, 1, 1)
    T = cell["horizon"].values
    for m, name in enumerate(logreg.EF_METHODS):
        g = cell["gap"].isel(method=m)
        mean = g.mean("seed")
        se = g.std("seed") / np.sqrt(g.sizes["seed"])
        ax.errorbar(T, mean, yerr=se, marker="o", ms=3, capsize=2, label=name)
    ax.set_xscale("log")
    ax.set_xlabel("horizon T (steps, η = c/√T)")
    ax.set_ylabel("generalization gap (test − train)")
    ax.set_title(f"{label}: SGD and EF-SGD at matched α")
    ax.legend(fontsize=8)


def _draw_delta(ds, spec, fig):
    label, cell, _ = _first_cell(ds, spec)
    ax = fig.add_subplot(1, 1, 1)
    T = cell["horizon"].values.astype(float)
    gap = cell["gap"].transpose("method", "horizon", "seed").values
    for m, name in enumerate(logreg.EF_METHODS[1:], start=1):
        ax.loglog(T, np.abs(gap[m] - gap[0]).mean(-1), "o-", ms=3, label=name)
    ref = np.abs(gap[1:] - gap[0]).mean(-1).max() * (T / T[0]) ** SLOPE_MAX
    ax.loglog(T, ref, "k--", lw=1, label="slope −1/2")
    ax.loglog(T, ref * (T / T[0]) ** -0.25, "k:", lw=1, label="slope −3/4")
    ax.set_xlabel("horizon T")
    ax.set_ylabel("mean |gap_EF − gap_SGD| over seeds")
    ax.set_title(f"{label}: compression-induced part of the gap")
    ax.legend(fontsize=8)


def _draw_stability(ds, spec, fig):
    label, cell, _ = _first_cell(ds, spec)
    ax = fig.add_subplot(1, 1, 1)
    T = cell["horizon"].values
    for m, name in enumerate(logreg.EF_METHODS):
        ax.loglog(T, cell["stability"].isel(method=m).mean("seed"), "o-", ms=3, label=name)
    ax.set_xlabel("horizon T")
    ax.set_ylabel("ℓ2 on-average model stability ε²")
    ax.set_title(f"{label}: coupled runs on neighbouring datasets")
    ax.legend(fontsize=8)


def _draw_diloco(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    label, cell = next(_diloco_cells(ds))
    pts = _diloco_points(cell, spec)
    N = np.array([M * H * T for M, H, T, _ in pts], float)
    order = np.argsort(N)
    for j, (name, mk) in enumerate(zip(logreg.DILOCO_METHODS, ("s", "o"))):
        e = np.array([float(p[3][j]) for p in pts])
        ax.loglog(N, e, mk, ms=4, mfc="none" if j == 0 else None, label=name)
    e_ef = np.array([float(p[3][1]) for p in pts])
    ax.loglog(N[order], e_ef[order][0] * (N[order] / N[order][0]) ** RATE, "k--", lw=1,
              label="(MHT)^(−1/2)")
    ax.set_xlabel("samples N = M·H·T")
    ax.set_ylabel("excess risk F(w) − F(w*)")
    ax.set_title(f"DiLoCo(-EF, top-k), η_l = c/(H√T), averaging ({label})")
    ax.legend(fontsize=8)


DESCRIPTION = r"""
**Model.** Logistic regression $\ell(w; x, y) = \log(1 + e^{-y\,x^\top w})$ (convex,
smooth, no bounded-gradient assumption), on a synthetic well-specified Gaussian model
($x \sim N(0, I_d)$, $P(y = 1) = \sigma(x^\top w^\star)$, $w^\star = 3\,N(0, I_d/d)$) or on
scikit-learn's breast-cancer data (standardized, 31 features with a constant).

**EF-SGD.** One-sample SGD with replacement, step $\eta = c/\sqrt T$, from $w_0 = 0$;
EF14 error feedback $p = e + \eta g$, $\Delta = C(p)$, $w \leftarrow w - \Delta$,
$e \leftarrow p - \Delta$ (`jaxtheory.optim.error_feedback`) with top-$k$, random-$k$
(unscaled) and scaled QSGD ($s$ levels, $C = Q_s/(1+\omega)$) at matched contraction
$\alpha$: $\alpha_{\rm QSGD} = 1/(1 + \min(d/s^2, \sqrt d/s))$ and $k = \mathrm{round}(\alpha d)$.
The gap is $F_{\rm test}(w_T) - F_S(w_T)$ of the last iterate. The $\ell_2$ on-average model
stability $\varepsilon^2 = \mathbb E_i \|A(S^{(i)}) - A(S)\|^2$ is estimated from coupled
runs on $P$ neighbouring datasets $S^{(i)}$ (sample $i$ replaced by a fresh draw) with the
same index sequence and compressor randomness, vmapped over the replaced indices.

**DiLoCo-EF.** $M$ workers take $H$ local SGD steps of size $\eta_l = c_l/(H\sqrt T)$ on fresh
samples, send their pseudo-gradient top-$k$ compressed with per-worker error feedback,
and the server averages (`jaxtheory.optim.diloco_ef` with outer `optax.sgd(1.0)`); $T$
rounds. Excess risk $F(w) - F(w^\star)$ is measured on a large test set ($w^\star$, the true
parameter, is the population minimizer). Fresh samples keep $N = MHT$ below any
sample-size floor.

**Measurements.** Claim 1 fits the log-log slope in $T$ of the seed mean of the per-seed
$|\mathrm{gap}_{\rm EF} - \mathrm{gap}_{\rm SGD}|$ (the compression-induced part; per-seed
absolute values so that sign changes cannot fake a decay) and bounds
$\overline{\mathrm{gap}}_{\rm EF}/\overline{\mathrm{gap}}_{\rm SGD}$ at every $T \ge n$.
Claim 2 compares the seed-mean gaps of every compressor pair at every $T \ge 10d/k$.
Claim 3 fits the slope of the seed-mean DiLoCo-EF excess risk against $N = MHT$ over the
whole $(M, H, T)$ grid (directional slopes are reported too).
"""

_SMOKE_SPEC = {
    "n": 250,
    "n_test": 2000,
    "horizons": (250, 500, 1000),
    "num_pairs": 8,
    "diloco_workers": (2,),
    "diloco_local_steps": (2,),
    "diloco_rounds": (16, 64, 256),
    "diloco_n_test": 5000,
}

EXPERIMENT = Experiment(
    name="ef-generalization",
    paper=Paper(
        title="Generalization of error feedback (EF-SGD and DiLoCo-EF) via on-average model "
              "stability (digest 002_17; arXiv id not found)",
        authors="unknown (reconstructed from the abstract; see the digest)",
    ),
    run=logreg.run,
    spec=logreg.EFGenSpec(),
    params=logreg.DEFAULT_PARAMS,
    metric_dims={
        "train_loss": ("method", "horizon"),
        "test_loss": ("method", "horizon"),
        "gap": ("method", "horizon"),
        "stability": ("method", "horizon"),
        "dl_excess": ("dl_method", "dl_config", "rounds"),
    },
    coords=lambda spec: {
        "method": list(logreg.EF_METHODS),
        "horizon": list(spec.horizons),
        "dl_method": list(logreg.DILOCO_METHODS),
        "dl_config": [f"M{M}H{H}" for M, H in logreg.diloco_configs(spec)],
        "rounds": list(spec.diloco_rounds),
    },
    presets={
        "smoke": Preset(
            Space(lr_scale=values(0.5), seeds=32),
            spec=_SMOKE_SPEC,
            description="CPU, seconds: d = 50, n = 250, T ∈ {250, 500, 1000}, 8 neighbours, "
                        "32 seeds; DiLoCo-EF at M = H = 2 only (slope along T).",
        ),
        "full": Preset(
            Space(dataset=static("synthetic", "breast_cancer"), lr_scale=values(0.25, 0.5, 1.0),
                  diloco_lr_scale=values(0.5, 1.0), seeds=32),
            spec={
                "n": 400,
                "n_test": 20000,
                "horizons": (400, 800, 1600, 3200, 6400, 12800),
                "num_pairs": 64,
                "diloco_workers": (1, 2, 4, 8),
                "diloco_local_steps": (1, 4, 8),
                "diloco_rounds": (16, 32, 64, 128, 256),
                "diloco_n_test": 20000,
            },
            description="One accelerator: synthetic and breast cancer (n = 400), 3 step "
                        "scales, 32 seeds × 64 neighbours, T up to 12 800; DiLoCo-EF over "
                        "M ∈ {1,2,4,8}, H ∈ {1,4,8}, T ∈ {16,…,256}, two inner-step scales.",
        ),
    },
    claims=[
        Claim("compression-gap-slope",
              "The compression-induced part of the generalization gap is transient: "
              "|gap_EF − gap_SGD| decays in T with fitted log-log slope ≤ −0.5 "
              "(theory: T^(−3/4) and T^(−1) terms).",
              expected=f"slope <= {SLOPE_MAX}", tolerance=0.0, check=_check_gap_slope),
        Claim("ef-gap-within-5pct",
              "After one epoch (T ≥ n), EF's generalization gap is within 5% of SGD's at "
              "α ≥ 0.05.",
              expected=f"gap_EF / gap_SGD <= {RATIO_MAX}", tolerance=0.0,
              check=_check_gap_ratio),
        Claim("matched-alpha-indifference",
              "Top-k, random-k and quantization at matched α give nearly indistinguishable "
              "generalization-gap curves.",
              expected="every pair, every T >= 10 d/k",
              tolerance=f"{REL_TOL:.0%} relative, or {Z_TOL:g} standard errors of the paired "
                        "seed difference", check=_check_indifference),
        Claim("diloco-ef-rate",
              "DiLoCo-EF with inner step Θ(1/(H√T)) has excess risk O(1/√(MHT)): log-log "
              "slope −0.5 against N = M·H·T before the sample-size floor.",
              expected=RATE, tolerance=RATE_TOL, check=_check_diloco_rate),
    ],
    figures=[
        Figure("gap_curves", _draw_gap,
               "Seed-mean generalization gap (± one standard error) against the horizon "
               "for SGD and EF-SGD with matched-α compressors."),
        Figure("compression_gap", _draw_delta,
               "Compression-induced part of the gap, mean over seeds of |gap_EF − gap_SGD|, "
               "with slope −1/2 and −3/4 guides."),
        Figure("stability", _draw_stability,
               "ℓ2 on-average model stability from coupled runs on neighbouring datasets."),
        Figure("diloco_rate", _draw_diloco,
               "Excess risk of DiLoCo and DiLoCo-EF against N = M·H·T; dashed: N^(−1/2)."),
    ],
    description=DESCRIPTION,
)
