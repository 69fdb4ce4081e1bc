"""``smuon-deep-linear``: Adam, Muon and Schatten-p (SMuon) on deep linear nets, heavy-tailed teacher.

A port of the authors' ``muon_limitations.py`` (arXiv 2605.19781): a depth-L linear
student learns a teacher with singular values :math:`i^{-1}`. Claims from the digest's
reproduction plan (the paper's own numbers were not available): SMuon's best loss is
within 2× of the better baseline at every depth, and with isotropic inputs at depth 1
its criterion chooses an SGD-like geometry (p* ≤ 1.3).
"""

from __future__ import annotations

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims.matrix import deep_linear as dl
from jaxtheory.sweep import Space, static, values

WITHIN = 2.0  # digest 002_19 §4(c)3: a > 2x gap to both baselines signals a bug
P_DEPTH1 = 1.3  # digest [proto]: p* = 1.04-1.07 for the single-layer teacher regression


def _pick(da, method):
    names = [str(m) for m in da["method"].values]
    return da.isel(method=names.index(method))


def _best(ds, method):
    """Best loss over steps and learning rates, median over seeds, per depth."""
    return _pick(ds["best_loss"], method).min("lr").median("seed")


def _within(ds, spec):
    s, a, m = _best(ds, "smuon"), _best(ds, "adam"), _best(ds, "muon")
    ratio = s / np.minimum(a, m)
    measured = {f"depth{int(d)}": {"smuon": float(s.sel(depth=d)), "adam": float(a.sel(depth=d)),
                                   "muon": float(m.sel(depth=d)),
                                   "ratio": float(ratio.sel(depth=d))}
                for d in ds["depth"].values}
    return measured, bool((ratio <= WITHIN).all())


def _vs_muon(ds, spec):
    depths = [int(d) for d in ds["depth"].values]
    use = [d for d in depths if d >= 5] or depths
    s, m = _best(ds, "smuon"), _best(ds, "muon")
    measured = {"depths_checked": use,
                "smuon_over_muon": {str(d): float(s.sel(depth=d) / m.sel(depth=d)) for d in use}}
    return measured, bool(all(float(s.sel(depth=d)) <= float(m.sel(depth=d)) for d in use))


def _p_depth1(ds, spec):
    if 1 not in [int(d) for d in ds["depth"].values]:
        return {"note": "no depth-1 runs"}, False
    p = _pick(ds["p_mean"], "smuon").sel(depth=1)
    # p at the end of the run, at the best learning rate of SMuon
    best_lr = _pick(ds["best_loss"], "smuon").sel(depth=1).median("seed").argmin("lr")
    pf = float(p.isel(lr=int(best_lr), step=-1).median("seed"))
    return {"p_final_best_lr": pf, "p_final_all_lr": p.isel(step=-1).median("seed").values.tolist()}, \
        bool(pf <= P_DEPTH1)


def _draw_best(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    for meth in ds["method"].values:
        ax.semilogy(ds["depth"], _best(ds, str(meth)), "o-", label=str(meth))
    ax.set_xlabel("depth")
    ax.set_ylabel("best loss (min over η and steps)")
    ax.legend(fontsize=8)


def _draw_p(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    p = _pick(ds["p_mean"], "smuon")
    for d in ds["depth"].values:
        ax.plot(ds["step"], p.sel(depth=d).median("seed").isel(lr=-1), label=f"depth {int(d)}")
    ax.set_xlabel("step")
    ax.set_ylabel("mean p over layers (largest η)")
    ax.legend(fontsize=8)


DESCRIPTION = r"""
Teacher $W^\star = U\operatorname{diag}(i^{-1})V^\top$ ($d\times d$, Haar $U, V$), inputs
$X \sim N(0, I)$, targets $Y = XW^\star$; a depth-$L$ linear student $XW_1\cdots W_L$ of
width $d$ (PyTorch default initialisation) trained full batch on the mean-squared
error with a constant step: Adam (PyTorch defaults), Muon (momentum 0.95, Nesterov,
five Newton–Schulz steps) and SMuon (momentum 0.95, Nesterov, no second moment,
$\|O\|_F = \sqrt d$ pinning, $p \in [1.02, 10]$ re-chosen every `interval` steps by
maximising $\|G\|_{S_{1+1/p}}/\|A\|_{S_{2(p+1)/(p-1)}}$ over a 64-point grid, layer
inputs $A$). The lanes share the teacher, data and initialisation across methods.
"""

EXPERIMENT = Experiment(
    name="smuon-deep-linear",
    paper=Paper(title="From SGD to Muon: Adaptive Optimization via Schatten-p Norms",
                arxiv="2605.19781", authors="Massena, Friedrich, Serrurier"),
    run=dl.run,
    spec=dl.DeepLinearSpec(p_method="exact"),
    params=dl.DEFAULT_PARAMS,
    metric_dims={"loss": ("method", "step"), "final_loss": ("method",),
                 "best_loss": ("method",), "p_mean": ("method", "step")},
    coords=lambda spec: {"method": list(spec.methods), "step": np.arange(spec.steps)},
    presets={
        "smoke": Preset(
            Space(depth=static(1, 2), lr=values(1e-3, 3e-3, 1e-2, 3e-2), seeds=1),
            spec={"d": 32, "n_samples": 256, "steps": 150, "interval": 25},
            description="CPU: d = 32, depths 1 and 2, 4 step sizes, 150 steps.",
        ),
        "full": Preset(
            Space(depth=static(1, 2, 5, 10), lr=values(3e-4, 1e-3, 2e-3, 1e-2, 2e-2),
                  seeds=3),
            spec={"d": 100, "n_samples": 1000, "steps": 1001, "interval": 100},
            description="One accelerator: the authors' sweep (d = 100, 1001 steps, depths "
                        "1-10).",
        ),
    },
    claims=[
        Claim("smuon-within-2x-of-best-baseline",
              "SMuon's best loss (over step sizes) is within 2× of min(Adam, Muon) at every "
              "depth.", expected=f"ratio ≤ {WITHIN}", tolerance="none", check=_within),
        Claim("smuon-matches-muon-when-deep",
              "SMuon's best loss is at most Muon's at depth ≥ 5 (every depth when the preset "
              "has none that deep).", expected="ratio ≤ 1", tolerance="none", check=_vs_muon),
        Claim("p-star-sgd-like-at-depth-1",
              "With isotropic inputs at depth 1 the criterion picks an SGD-like geometry.",
              expected=f"p* ≤ {P_DEPTH1}", tolerance="none", check=_p_depth1),
    ],
    figures=[
        Figure("best_loss_vs_depth", _draw_best,
               "Best loss over step sizes and steps against depth (median over seeds)."),
        Figure("p_trace", _draw_p, "SMuon's mean p over layers during training."),
    ],
    description=DESCRIPTION,
)
