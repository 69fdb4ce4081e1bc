"""``smuon-digits``: AdamW, Muon, Schatten-p (SMuon) and MuAdam on a small MLP, scikit-learn digits.

The small-classifier piece of issue 6 (arXiv 2605.19781, digest ``002_19``): a
64 → h → 10 tanh MLP on :func:`sklearn.datasets.load_digits` (shipped with the
package), over optimizer and step size. The paper's own numbers were not available, so
the claims are sanity checks with stated thresholds; which optimizer is best is
measured and reported, not asserted. The endpoint identities of Schatten-p (Muon at
p = ∞, normalized SGD at p = 1) are tested in ``tests/optim``, not here.
"""

from __future__ import annotations

import math

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims.matrix import digits as dg
from jaxtheory.sweep import Space, log, static, values

ACC_MIN = 0.9  # sanity: a 64-h-10 MLP reaches ~0.97 on digits with a tuned optimizer
LOSS_DROP = 0.1  # sanity: final training loss at most 10% of the initial one


def _names(ds):
    return [str(m) for m in ds["optimizer"].values]


def _best_acc(ds):
    """Per optimizer: best learning rate (by median final test accuracy) and its accuracy."""
    med = ds["final_test_acc"].median("seed")
    out = {}
    for i, name in enumerate(_names(ds)):
        row = med.isel(optimizer=i).values
        row = np.where(np.isfinite(row), row, -np.inf)
        j = int(np.argmax(row))
        out[name] = {"lr": float(ds["lr"].values[j]), "acc": float(row[j])}
    return out


def _min_best_acc(ds, spec):
    return min(v["acc"] for v in _best_acc(ds).values())


def _loss_drop(ds, spec):
    best = _best_acc(ds)
    ratios = []
    for i, name in enumerate(_names(ds)):
        sel = ds.isel(optimizer=i).sel(lr=best[name]["lr"])
        ratios.append(float((sel["final_train_loss"] / sel["init_loss"]).median("seed")))
    return max(ratios)


def _ranking(ds, spec):
    best = _best_acc(ds)
    order = sorted(best, key=lambda k: -best[k]["acc"])
    measured = {"ranking": order, "best": order[0], "per_optimizer": best}
    return measured, all(math.isfinite(v["acc"]) for v in best.values())


def _draw_curves(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    best = _best_acc(ds)
    for i, name in enumerate(_names(ds)):
        acc = ds["test_acc"].isel(optimizer=i).sel(lr=best[name]["lr"]).median("seed")
        ax.semilogx(ds["step"], acc, "o-", ms=3, label=f"{name} (η={best[name]['lr']:.2g})")
    ax.set_xlabel("step")
    ax.set_ylabel("test accuracy (median over seeds)")
    ax.set_ylim(0.0, 1.0)
    ax.legend(fontsize=8)


def _draw_lr(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    for i, name in enumerate(_names(ds)):
        ax.semilogx(ds["lr"], ds["final_test_acc"].isel(optimizer=i).median("seed"), "o-",
                    label=name)
    ax.set_xlabel("learning rate η")
    ax.set_ylabel("final test accuracy (median over seeds)")
    ax.set_ylim(0.0, 1.0)
    ax.legend(fontsize=8)


DESCRIPTION = r"""
scikit-learn's digits (1797 images $8\times8$, ten classes), a fixed 80/20 train/test
split, pixels scaled to $[0,1]$ and centred on the training mean. Model
$f(x) = \tanh(xW_1 + b_1)W_2 + b_2$ with hidden width $h$ (PyTorch default
initialisation), mean cross-entropy, minibatches drawn with replacement, constant step
$\eta$. Optimizers: AdamW (optax defaults), Muon (momentum 0.95, Nesterov, quintic
Newton–Schulz), SMuon (`schatten_p`, momentum 0.95, Nesterov, no second moment,
$\|O\|_F = \sqrt{\min(m,n)}$ pinning, $p\in[1.02, 10]$ re-chosen every `interval` steps
by the exact criterion from the layer inputs) and MuAdam
($D\odot\operatorname{polar}(D\odot N)$, $D = (\hat v+\varepsilon)^{-1/4}$); biases use
each optimizer's AdamW fallback. Each lane draws its own initialisation and batch order
from its key. Divergent lanes freeze (`guarded_scan`).
"""

EXPERIMENT = Experiment(
    name="smuon-digits",
    paper=Paper(title="From SGD to Muon: Adaptive Optimization via Schatten-p Norms",
                arxiv="2605.19781", authors="Massena, Friedrich, Serrurier"),
    run=dg.run,
    spec=dg.DigitsSpec(),
    params=dg.DEFAULT_PARAMS,
    metric_dims={"train_loss": ("step",), "test_acc": ("step",), "init_loss": (),
                 "final_train_loss": (), "final_test_acc": (), "diverged_step": ()},
    coords=lambda spec: {"step": dg.log_steps(spec.steps, spec.num_log)},
    presets={
        "smoke": Preset(
            Space(optimizer=static(*dg.OPTIMIZERS), lr=values(3e-3, 1e-2, 3e-2, 1e-1),
                  seeds=2),
            spec={"hidden": 32, "steps": 200, "batch_size": 128, "interval": 10},
            description="CPU: h = 32, 200 steps of batch 128, 4 step sizes, 2 seeds.",
        ),
        "full": Preset(
            Space(optimizer=static(*dg.OPTIMIZERS), lr=log(1e-4, 1.0, num=17), seeds=8),
            spec={"hidden": 256, "steps": 3000, "batch_size": 128, "interval": 25,
                  "num_log": 32},
            description="One accelerator: h = 256, 3000 steps, 17 step sizes, 8 seeds.",
        ),
    },
    claims=[
        Claim.at_least("every-optimizer-reaches-0.9",
                       "At its best step size (median final test accuracy over seeds), every "
                       "optimizer reaches test accuracy ≥ 0.9; measured: the worst of the "
                       "four.", _min_best_acc, bound=ACC_MIN),
        Claim.at_most("training-loss-falls-10x",
                      "At its best step size every optimizer ends with a training loss at "
                      "most 10% of the initial one (median over seeds); measured: the "
                      "largest ratio.", _loss_drop, bound=LOSS_DROP),
        Claim("optimizer-ranking",
              "Measurement, not an assertion: the optimizers ranked by best median final "
              "test accuracy, with each one's best step size. Passes when every best "
              "accuracy is finite.",
              expected="reported", tolerance="none (measurement)", check=_ranking),
    ],
    figures=[
        Figure("test_acc_vs_step", _draw_curves,
               "Test accuracy against steps, each optimizer at its best step size."),
        Figure("final_acc_vs_lr", _draw_lr, "Final test accuracy against the step size."),
    ],
    description=DESCRIPTION,
)
