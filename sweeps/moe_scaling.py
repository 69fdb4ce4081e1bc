"""``moe-scaling``: μP vs MSSP for a mixture-of-experts MLP across width (arXiv 2605.14200).

Issue 11, digest ``002_08``: the MLP-MoE of the authors' code (sigmoid router, M
experts, soft routing) on a teacher–student regression, trained with the per-layer
init stds, learning rates and Adam ε of μP and of MSSP (and SP where a preset asks)
in regimes I–III. Widths are a static axis; at each width every learning rate × seed
is one lane of one compiled program, and the rules run side by side inside each lane
(same init key, same batches). Claims follow the digest's §5c with its tolerances.
"""

from __future__ import annotations

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims.moe import diagnostics as dg
from jaxtheory.sims.moe import train as tr
from jaxtheory.sims.moe.param import LAYERS
from jaxtheory.sweep import Space, static, values

# Tolerances of digest 002_08 §5c.
INIT_SLOPE_MUP = -0.5  # μP regimes II/III: initial aggregate ∝ M^{-1/2} (CLT)
INIT_SLOPE_TOL = 0.1  # |slope + 0.5| < 0.1 (μP), |slope| < 0.1 (MSSP)
UPDATE_SLOPE_TOL = 0.15  # MSSP: every layer's update RMS |slope| < 0.15
TRANSFER_MAX_SHIFT = 1  # MSSP argmin moves ≤ 1 ×2-grid point, smallest → largest width
MUP_MIN_SHIFT = 2  # μP regime III: argmin moves ≥ 2 points (or loss non-monotone)
ZERO_RMS = 1e-12  # an RMS this small at every width is exactly zero (not fitted)


# -- measurements -----------------------------------------------------------------------


def _sel(da, **kw):
    """``da`` at the given coordinates, skipping any not among its dims."""
    return da.sel({k: v for k, v in kw.items() if k in da.dims})


def _groups(ds):
    """(regime, optimizer) pairs in the results."""
    regs = [str(r) for r in np.atleast_1d(ds["regime"].values)] if "regime" in ds.dims else []
    opts = [str(o) for o in np.atleast_1d(ds["optimizer"].values)] if "optimizer" in ds.dims \
        else []
    return regs, opts


def _widths(ds):
    return np.asarray(ds["width"].values, float)


def _init_slope(ds, regime, rule, metric="rms_h_agg0"):
    """Width exponent of an init RMS; every (optimizer, LR, seed) lane is an init draw."""
    da = _sel(ds[metric], regime=regime, rule=rule)
    other = [d for d in da.dims if d != "width"]
    v = da.transpose("width", *other).values.reshape(da.sizes["width"], -1)
    v = v[:, np.all(np.isfinite(v), axis=0)]
    return dg.fit_exponent(_widths(ds), v, seed_axes=1), int(v.shape[1])


def _init_claim(regime, rule, expected):
    def check(ds, spec):
        s, n = _init_slope(ds, regime, rule)
        return {"slope": round(s, 4), "init_draws": n}, bool(abs(s - expected) < INIT_SLOPE_TOL
                                                            and n >= 8)
    return check


def _router_claim(ds, spec):
    mup, n = _init_slope(ds, "I", "mup", "rms_z0")
    z = _sel(ds["rms_z0"], regime="I", rule="mssp").values
    mx = float(np.nanmax(np.abs(z)))
    return ({"mup_slope": round(mup, 4), "mssp_max_router_rms": mx, "init_draws": n},
            bool(abs(mup - INIT_SLOPE_MUP) < INIT_SLOPE_TOL and mx == 0.0))


def _fixed_lr(ds):
    """The LR scale of the coordinate check: 1 (the authors' tuned base η) if swept."""
    lrs = np.asarray(ds["lr_scale"].values, float)
    return float(lrs[np.argmin(np.abs(np.log2(lrs)))])


def update_slopes(ds, regime, optimizer, rule, lr_scale=None):
    """Width exponents of every layer's effective and propagating update RMS and of
    :math:`\\|h_{agg,t}-h_{agg,0}\\|`, at one learning rate (seed-averaged mean squares);
    quantities that are exactly zero at every width are left out."""
    lr_scale = _fixed_lr(ds) if lr_scale is None else lr_scale
    out = {}
    w = _widths(ds)
    for metric, tag in (("rcc_effective", "eff"), ("rcc_propagating", "prop")):
        da = _sel(ds[metric], regime=regime, optimizer=optimizer, rule=rule, lr_scale=lr_scale)
        for layer in LAYERS:
            v = da.sel(layer=layer).transpose("width", "seed").values
            if np.all(np.abs(v) <= ZERO_RMS) or not np.all(np.isfinite(v)):
                if not np.all(np.isfinite(v)):
                    out[f"{tag}:{layer}"] = float("nan")
                continue
            out[f"{tag}:{layer}"] = dg.fit_exponent(w, v, seed_axes=1)
    v = _sel(ds["rms_dh_agg"], regime=regime, optimizer=optimizer, rule=rule,
             lr_scale=lr_scale).transpose("width", "seed").values
    out["dh_agg"] = dg.fit_exponent(w, v, seed_axes=1) if np.all(np.isfinite(v)) \
        else float("nan")
    return out


def _mssp_updates(ds, spec):
    regs, opts = _groups(ds)
    measured, worst = {}, 0.0
    for r in regs:
        for o in opts:
            s = update_slopes(ds, r, o, "mssp")
            measured[f"{r}/{o}"] = {k: round(v, 3) for k, v in s.items()}
            worst = max(worst, max((abs(v) if np.isfinite(v) else np.inf) for v in s.values()))
    measured["max_abs_slope"] = round(worst, 3)
    return measured, bool(worst < UPDATE_SLOPE_TOL)


def loss_table(ds, regime, optimizer, rule):
    """Final loss, mean and std over seeds: arrays ``(width, lr)`` (NaN where diverged)."""
    da = _sel(ds["final_loss"], regime=regime, optimizer=optimizer, rule=rule)
    da = da.transpose("width", "lr_scale", "seed")
    v = da.values
    return np.nanmean(np.where(np.isfinite(v), v, np.nan), -1), np.nanstd(v, -1), \
        np.all(np.isfinite(v), -1)


def best_lr_index(ds, regime, optimizer, rule):
    """Per width: index of the LR with the lowest mean final loss (diverged LRs excluded)."""
    mean, _, ok = loss_table(ds, regime, optimizer, rule)
    return np.argmin(np.where(ok, mean, np.inf), axis=1)


def _transfer_mssp(ds, spec):
    regs, opts = _groups(ds)
    measured, ok = {}, True
    for r in regs:
        for o in opts:
            idx = best_lr_index(ds, r, o, "mssp")
            shift = int(abs(idx[-1] - idx[0]))
            measured[f"{r}/{o}"] = {"best_log2_lr_scale": [float(np.log2(ds["lr_scale"].values[i]))
                                                           for i in idx], "shift": shift}
            ok &= shift <= TRANSFER_MAX_SHIFT
    return measured, bool(ok)


def _mup_breaks(ds, spec):
    regs, opts = _groups(ds)
    if "III" not in regs:
        return {"note": "no regime III in this preset"}, False
    measured, ok = {}, True
    for o in opts:
        idx = best_lr_index(ds, "III", o, "mup")
        shift = int(abs(idx[-1] - idx[0]))
        mean, _, _ = loss_table(ds, "III", o, "mup")
        at_base = mean[:, idx[0]]  # μP's best LR at the smallest width, across widths
        monotone = bool(np.all(np.diff(at_base) < 0))
        measured[o] = {"best_log2_lr_scale": [float(np.log2(ds["lr_scale"].values[i]))
                                              for i in idx], "shift": shift,
                       "loss_at_base_best_lr": [round(float(x), 5) for x in at_base],
                       "monotone": monotone}
        ok &= shift >= MUP_MIN_SHIFT or not monotone
    return measured, bool(ok)


def _monotone_mssp(ds, spec):
    regs, opts = _groups(ds)
    measured, ok = {}, True
    for r in regs:
        for o in opts:
            mean, std, okm = loss_table(ds, r, o, "mssp")
            idx = best_lr_index(ds, r, o, "mssp")
            best = np.array([mean[i, j] for i, j in enumerate(idx)])
            sd = np.array([std[i, j] for i, j in enumerate(idx)])
            drops = best[:-1] - best[1:]
            noise = np.maximum(sd[:-1], sd[1:])
            good = bool(np.all(drops > noise))
            measured[f"{r}/{o}"] = {"best_loss": [round(float(x), 5) for x in best],
                                    "seed_std": [round(float(x), 5) for x in sd],
                                    "strict_beyond_noise": good}
            ok &= good
    return measured, bool(ok)


# -- figures ----------------------------------------------------------------------------


def _panel_rules(ds):
    return [str(r) for r in ds["rule"].values]


def _draw_lr_sweep(ds, spec, fig):
    regs, opts = _groups(ds)
    rules = _panel_rules(ds)
    rows = [(r, o) for r in regs for o in opts]
    lrs = np.log2(np.asarray(ds["lr_scale"].values, float))
    import matplotlib.cm as cm
    colors = cm.viridis(np.linspace(0.1, 0.9, ds.sizes["width"]))
    axes = fig.subplots(len(rows), len(rules), squeeze=False, sharey="row")
    for i, (r, o) in enumerate(rows):
        for j, rule in enumerate(rules):
            ax = axes[i, j]
            mean, _, ok = loss_table(ds, r, o, rule)
            for k, w in enumerate(ds["width"].values):
                y = np.where(ok[k], mean[k], np.nan)
                ax.plot(lrs, y, "o-", ms=3, color=colors[k], label=f"N={int(w)}")
                if np.any(np.isfinite(y)):
                    b = int(np.nanargmin(y))
                    ax.plot(lrs[b], y[b], "*", ms=11, color=colors[k], mec="k")
            ax.set_yscale("log")
            ax.set_title(f"{rule} — regime {r}, {o}", fontsize=9)
            if i == len(rows) - 1:
                ax.set_xlabel("log₂ LR scale (η / η_base)")
            if j == 0:
                ax.set_ylabel("final loss")
    axes[0, -1].legend(fontsize=7)


def _draw_opt_lr(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    regs, opts = _groups(ds)
    lrs = np.log2(np.asarray(ds["lr_scale"].values, float))
    w = np.log2(_widths(ds))
    for r in regs:
        for o in opts:
            for rule, ls in zip(_panel_rules(ds), ("-", "--", ":")):
                idx = best_lr_index(ds, r, o, rule)
                ax.plot(w, lrs[idx], "o" + ls, label=f"{rule} {r}/{o}")
    ax.set_xlabel("log₂ width N")
    ax.set_ylabel("log₂ optimal LR scale")
    ax.legend(fontsize=7)


def _draw_loss_width(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    regs, opts = _groups(ds)
    lr = _fixed_lr(ds)
    j = int(np.argmin(np.abs(np.asarray(ds["lr_scale"].values) - lr)))
    for r in regs:
        for o in opts:
            for rule, ls in zip(_panel_rules(ds), ("-", "--", ":")):
                mean, std, _ = loss_table(ds, r, o, rule)
                ax.errorbar(_widths(ds), mean[:, j], yerr=std[:, j], fmt="o" + ls, ms=3,
                            capsize=2, label=f"{rule} {r}/{o}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("width N")
    ax.set_ylabel(f"final loss at LR scale {lr:g}")
    ax.legend(fontsize=7)


def _draw_exponents(ds, spec, fig):
    regs, opts = _groups(ds)
    rules = _panel_rules(ds)
    combos = [(r, o) for r in regs for o in opts]
    ax = fig.add_subplot(1, 1, 1)
    names = None
    width = 0.8 / max(1, len(combos) * len(rules))
    k = 0
    for r, o in combos:
        for rule in rules:
            s = update_slopes(ds, r, o, rule)
            init = {"init:h_agg": _init_slope(ds, r, rule)[0]}
            s = {**init, **s}
            names = names or list(s)
            x = np.arange(len(names)) + k * width
            ax.bar(x, [s.get(n, np.nan) for n in names], width, label=f"{rule} {r}/{o}")
            k += 1
    ax.axhspan(-UPDATE_SLOPE_TOL, UPDATE_SLOPE_TOL, color="0.9", zorder=0)
    ax.axhline(0, color="k", lw=0.5)
    ax.set_xticks(np.arange(len(names or [])) + 0.4 - width / 2)
    ax.set_xticklabels(names or [], rotation=60, fontsize=7)
    ax.set_ylabel("width exponent")
    ax.legend(fontsize=6, ncol=2)


def _draw_init_agg(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    regs, _ = _groups(ds)
    for r in regs:
        for rule, ls in zip(_panel_rules(ds), ("-", "--", ":")):
            metric = "rms_z0" if r == "I" else "rms_h_agg0"
            da = _sel(ds[metric], regime=r, rule=rule)
            other = [d for d in da.dims if d != "width"]
            v = da.transpose("width", *other).values.reshape(da.sizes["width"], -1)
            y = np.sqrt(np.nanmean(v ** 2, 1))
            if np.all(y > 0):
                ax.loglog(_widths(ds), y, "o" + ls, label=f"{rule} {r}: "
                          + ("router logits" if r == "I" else "h_agg"))
    ax.set_xlabel("width N")
    ax.set_ylabel("RMS at init")
    ax.legend(fontsize=7)


DESCRIPTION = r"""
The MLP-MoE of the authors' code (digest 002_08 §2.1): $h = \varphi(xW_{in})$, router
logits $z = hQ$, gates $g_m = \sigma(z_m)(M_{base}/M)^\alpha$ ($M_{base} = 8$; $\alpha = 1$
in regimes II/III, $0$ in I), experts $o_m = \varphi(hW^{(1)}_m)W^{(2)}_m$, soft routing
$h_{agg} = \sum_m g_m o_m$, output $f = h_{agg}W_{out}$, GELU, no forward multipliers.
Dimensions: regime I $M = 4$, $N_e = N$; regime II $M = N/8$, $N_e = 8$; regime III
$M = N/8$, $N_e = N$. Task: $x \sim N(0, I_{32})$, $y = \tanh(xA)b/8$ with a fixed teacher
($A$: $32\times64$, $b$: $64\times4$), MSE, fresh minibatches each step. Per-layer init
std, learning rate (base $\eta$ = 0.16 for Adam, 0.04 for SGD, times `lr_scale`) and
Adam ε (base $10^{-8}$) from the tables of digest §3 (μP: zero output init; MSSP: zero
router in I, $\sqrt M$ expert down-projection init in II, tied experts in III). Final
loss on 512 held-out points. Diagnostics on 64 probe inputs: the initial aggregate
$\|h_{agg,0}\|$, router logits, and the refined coordinate check (effective
$\|(W_t - W_0)a_t\|$ and propagating $\|W_0(a_t - a_0)\|$ update RMS per layer) at the
end, with width exponents fitted on seed-averaged mean squares. Every lane's init is an
independent draw, so the initial-aggregate exponents pool all learning rates × seeds.
"""

_RULES = ("mup", "mssp")

EXPERIMENT = Experiment(
    name="moe-scaling",
    paper=Paper(title="How to Scale Mixture-of-Experts: From μP to the Maximally "
                      "Scale-Stable Parameterization",
                arxiv="2605.14200",
                authors="Vankadara, Haas, Hayward, Bordt, Breccia"),
    run=tr.run,
    spec=tr.MoESpec(rules=_RULES),
    params=tr.DEFAULT_PARAMS,
    metric_dims=tr.METRIC_DIMS,
    coords=lambda spec: {"rule": list(spec.rules),
                         "step": tr.log_steps(spec.steps, spec.num_log),
                         "layer": list(LAYERS), "term": list(dg.AGG_TERMS)},
    presets={
        "smoke": Preset(
            Space(width=static(32, 64, 128, 256), regime=static("I", "II", "III"),
                  optimizer=static("adam"),
                  lr_scale=values(0.5, 1.0, 2.0, 4.0), seeds=2),
            spec={"steps": 30, "batch_size": 32, "n_eval": 256, "n_probe": 64,
                  "num_log": 6},
            description="CPU: N = 32…256, regimes I–III, Adam, 30 steps of batch 32, "
                        "4 LRs (×2 grid) × 2 seeds, μP and MSSP side by side.",
        ),
        "full": Preset(
            # The authors' MLP runs: M = N/16 and regime-III widths up to 1024. At N = 1024
            # regime III holds 2·M·N·N_e = 134M expert weights per rule; with three rules,
            # Adam's moments and the init copy that is ~8 GB a lane, so pass --chunk 8 on
            # one 80-140 GB accelerator (the engine sizes chunks by outputs only).
            Space(width=static(128, 256, 512, 1024), regime=static("I", "II", "III"),
                  optimizer=static("sgd", "adam"),
                  lr_scale=values(*[2.0 ** k for k in range(-6, 3)]), seeds=4),
            spec={"steps": 1000, "batch_size": 50, "n_eval": 2048, "n_probe": 128,
                  "num_log": 24, "rules": ("sp", "mup", "mssp"), "m_ratio": 16},
            description="One accelerator (run with --chunk 8): N = 128…1024, M = N/16, "
                        "regimes I–III × SGD/Adam, T = 1000, batch 50, 9 LRs (×2 grid) × 4 "
                        "seeds, SP, μP and MSSP.",
        ),
    },
    claims=[
        Claim("init-aggregate-mup-II",
              "Under μP in regime II the initial aggregated expert output shrinks like "
              "N^{-1/2} (CLT over M ∝ N independent experts).",
              expected=INIT_SLOPE_MUP, tolerance=INIT_SLOPE_TOL,
              check=_init_claim("II", "mup", INIT_SLOPE_MUP)),
        Claim("init-aggregate-mup-III",
              "Under μP in regime III the initial aggregated expert output shrinks like "
              "N^{-1/2}.", expected=INIT_SLOPE_MUP, tolerance=INIT_SLOPE_TOL,
              check=_init_claim("III", "mup", INIT_SLOPE_MUP)),
        Claim("init-aggregate-mssp-II",
              "Under MSSP in regime II (√M expert down-projection init) the initial "
              "aggregate is Θ(1).", expected=0.0, tolerance=INIT_SLOPE_TOL,
              check=_init_claim("II", "mssp", 0.0)),
        Claim("init-aggregate-mssp-III",
              "Under MSSP in regime III (tied expert init) the initial aggregate is Θ(1).",
              expected=0.0, tolerance=INIT_SLOPE_TOL, check=_init_claim("III", "mssp", 0.0)),
        Claim("router-logits-regime-I",
              "Regime I: μP's random router logits at init shrink like N^{-1/2}; MSSP's zero "
              "router gives exactly zero logits.",
              expected={"mup_slope": INIT_SLOPE_MUP, "mssp_max_router_rms": 0.0},
              tolerance=INIT_SLOPE_TOL, check=_router_claim),
        Claim("mssp-update-exponents",
              "Under MSSP every layer's effective and propagating update RMS (and "
              "‖h_agg,t − h_agg,0‖) is width-independent, at LR scale 1.",
              expected="|slope| < 0.15", tolerance=UPDATE_SLOPE_TOL, check=_mssp_updates),
        Claim("mssp-lr-transfer",
              "Under MSSP the best learning rate moves by at most one ×2 grid point from the "
              "smallest to the largest width.", expected=f"shift ≤ {TRANSFER_MAX_SHIFT}",
              tolerance="none", check=_transfer_mssp),
        Claim("mup-regime-III-no-transfer",
              "Under μP in regime III the best learning rate moves by ≥ 2 grid points, or "
              "the loss at μP's best learning rate (smallest width) is non-monotone in "
              "width.", expected=f"shift ≥ {MUP_MIN_SHIFT} or non-monotone",
              tolerance="none", check=_mup_breaks),
        Claim("mssp-monotone-improvement",
              "Under MSSP the final loss at each width's best learning rate decreases "
              "strictly with width, each drop larger than the seed std.",
              expected="strictly decreasing beyond seed noise", tolerance="seed std",
              check=_monotone_mssp),
    ],
    figures=[
        Figure("loss_vs_lr", _draw_lr_sweep,
               "Final loss against log₂ learning-rate scale, one curve per width; μP and "
               "MSSP side by side, one row per regime/optimizer; stars mark each width's "
               "best learning rate.", size=(8.0, 8.5)),
        Figure("optimal_lr_vs_width", _draw_opt_lr,
               "Best learning-rate scale against width (flat: transfer)."),
        Figure("loss_vs_width", _draw_loss_width,
               "Final loss against width at the fixed learning-rate scale 1 (mean ± std "
               "over seeds)."),
        Figure("coordinate_check_exponents", _draw_exponents,
               "Width exponents of the initial aggregate and of every layer's effective and "
               "propagating update RMS (grey band: ±0.15).", size=(9.0, 4.5)),
        Figure("initial_aggregate", _draw_init_agg,
               "RMS at init against width: h_agg (regimes II/III) and router logits "
               "(regime I; MSSP's are exactly zero and not drawn)."),
    ],
    description=DESCRIPTION,
)
