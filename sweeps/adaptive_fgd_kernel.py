"""``adaptive-fgd-kernel``: kernel-regression FGD on an adaptively deepened kd-tree.

Checks the kernel-regression claim of arXiv:2606.16926 (Csillag et al., Fig. 2) on a
synthetic 3-D stand-in for cod-rna: FGD in the RKHS of a Gaussian kernel with the
gradient represented on a kd-tree that is deepened while the authors' error bound
exceeds ε/(1 + ε), against FGD on trees of fixed depth. The simulator is
:mod:`jaxtheory.sims.functional.kdtree`; the cost is the count of kernel evaluations.
"""

from __future__ import annotations

import math

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory.sims.functional import kdtree as kd
from jaxtheory.sweep import Space, values
from sweeps.adaptive_fgd import (
    _cost_ratios,
    _draw_cost_curves,
    _labels,
    _med,
    _one,
)  # same paper, same scheme labels

#: "Equal or better at equal cost": the adaptive test loss may exceed the fixed depth's by
#: at most 1 % (the tie where both run at the cap).
TIE_RTOL = 0.01
_PAIRED = ("scheme",)
#: The stand-in data every preset runs on, as the verdict badges name it.
STAND_IN = "synthetic 3-D data (x uniform on the cube, y = 1[sin 6x₀ + x₁x₂ > 0.3]) in place of cod-rna"


def bound_at_depth(depth, gamma, mass):
    """The authors' error bound at ``depth`` when ``max|g| = mass · mean|l'|``.

    ``sqrt(2γ/e) · (half-diagonal of a depth-d leaf) / mass``.

    Args:
        depth: tree depth.
        gamma: the kernel's γ.
        mass: ``max_leaf |g| / mean_i |l'_i|`` (at most 1, since ``k ≤ 1``).

    Returns:
        The bound.

    Example:
        >>> round(bound_at_depth(16, 100.0, 1.0), 3)
        0.201
    """
    k = np.asarray(kd.axis_splits(depth))
    half_diag = 0.5 * math.sqrt(float(np.sum(4.0 ** (-k))))
    return math.sqrt(2 * gamma / math.e) * half_diag / mass


def _depth_decreases(ds, spec):
    d = np.asarray(ds["depth"].transpose(..., "epoch").values)
    return int((np.diff(d, axis=-1) < 0).sum())


def _needs_adaptive(ds, spec):
    return None if _labels(ds, "eps") else "the preset runs no adaptive scheme"


def _below_cap_after_first_epoch(ds, spec):
    """The number of adaptive lanes whose depth after the first epoch is below the cap."""
    n = 0
    for lab in _labels(ds, "eps"):
        n += int((np.asarray(_one(ds, lab)["depth"].isel(epoch=0).values) < spec.max_depth).sum())
    return n


def _equal_cost(ds, spec):
    """Per seed: adaptive test loss at each fixed depth's total cost / its final test loss."""
    return _cost_ratios(ds, _labels(ds, "eps"), _labels(ds, "depth"), loss="test_loss", loss0="loss0_test")


def _needs_pairs(ds, spec):
    if not _labels(ds, "eps") or not _labels(ds, "depth"):
        return "the preset lacks an adaptive scheme or a fixed depth"
    return None


def _draw_cost(ds, spec, fig):
    _draw_cost_curves(
        ds,
        fig,
        "test_loss",
        "cumulative cost (kernel evaluations), seed median",
        "test loss ½ mean (f − y)², seed median",
    )


def _draw_depth(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    for i, lab in enumerate(np.atleast_1d(ds["scheme"].values)):
        sub = _one(ds, str(lab))
        ax.plot(np.asarray(ds["epoch"].values), _med(sub["depth"]), color=f"C{i}", label=str(lab))
    ax.set_xlabel("epoch")
    ax.set_ylabel("tree depth (seed median)")
    ax.legend(fontsize=7)


DESCRIPTION = r"""
From the authors' `src/kernel-regression/ours.py` (only the paper's abstract could be
read). Data: a synthetic stand-in for cod-rna (no downloads here): $x \sim U[0,1]^3$,
$y = \mathbb 1[\sin 6x_0 + x_1x_2 > 0.3]$, 2000 training and 2000 test points per seed. Loss
$\tfrac12\,\mathrm{mean}_i (f(x_i) - y_i)^2$, kernel $k(x,x') = e^{-100\lVert x-x'\rVert^2}$,
functional gradient $\nabla L(f)(x) = \frac1n\sum_i (f(x_i) - y_i)\,k(x_i, x)$, evaluated
at the centre of every leaf of a kd-tree whose leaves are all split at the midpoint of
their widest side; LR = 10, 60 epochs. The adaptive run starts at depth 2 and deepens
while $\mathrm{mean}|l'|\,\sqrt{2\gamma/e}\,\max(\text{leaf half-diagonal}) / \max|\text{leaf
value}| \ge \varepsilon/(1+\varepsilon)$, $\varepsilon = 0.5$, up to the cap; fixed depths run
without deepening. Cost: kernel evaluations, $n \times$ leaves per gradient (deepening
estimates included), the authors' work; the simulator evaluates the same values in a
factorized form.

**Smoke, shrunk**: the cap is depth 12 (the authors' 16) and the fixed depths are
2, 4, 8, 12 (the authors' 2, 4, 8, 12, 16), 8 seeds.

**The bound cannot be met (derived).** With $m = \max|g|/\mathrm{mean}|l'|$, the
*mass* ($m \le 1$ since $k \le 1$), the bound is $\sqrt{2\gamma/e}\cdot$ half-diagonal$/m
= 8.58 \times$ half-diagonal$/m$: at depth 16 that is $0.201/m$, below
$\varepsilon/(1+\varepsilon) = 1/3$ only when $m > 0.60$; at depth 12 it is $0.464/m > 1/3$
for every $m \le 1$. On data spread over the cube the mass is about the kernel's volume,
$(\pi/\gamma)^{3/2} = 0.0056$, so the adaptive run deepens to the cap in its first epoch
and is the fixed-cap run thereafter (`bound-forces-cap`), paying the finest cost from
the start.

**What follows for the comparison at equal cost (a finding about the authors' rule on
this stand-in).** The adaptive run pays the finest tree from its first epoch, and its
first epoch, with the deepening estimates, costs about $n\sum_{d=2}^{12} 2^d \approx
1.6\cdot 10^7$ kernel evaluations. At the total budgets of depths 2, 4 and 8 it has
therefore finished at most two epochs, and its test loss is about ten times theirs; against
the cap depth it is the same run one epoch behind, at the edge of the 1 % tie. Depth 8
ends with a test loss a few per cent above the cap depth's at 1/16 of the cost. The
paper's cod-rna result may rest on data whose kernel mass is far from uniform; on this
stand-in the bound, not the idea of adapting the representation, decides.
"""

EXPERIMENT = Experiment(
    name="adaptive-fgd-kernel",
    paper=Paper(
        title="Functional Gradient Descent with Adaptive Representations",
        arxiv="2606.16926",
        authors="Daniel Csillag, Rodrigo Schuller, Pedro Dall'Antonia, Leonidas Guibas, Luiz Velho, "
        "Tiago Novello",
        banner="Only the abstract could be read; the algorithm and settings follow the authors' public "
        "code (dccsillag/experiments-adaptive-fgd, src/kernel-regression); the data are a synthetic "
        "stand-in for cod-rna.",
        unverified=(
            "On cod-rna (first 3 features), adaptive FGD beats fixed depths 2–16 and an MLP in test "
            "loss per wall-clock second, for MSE and BCE.",
        ),
    ),
    simulator=kd.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(scheme=values("eps0.5", "depth2", "depth4", "depth8", "depth12"), seeds=8, paired=_PAIRED),
            spec={"max_depth": 12, "n_train": 2000, "n_test": 2000, "epochs": 60},
            description="CPU, seconds: one compile, 5 schemes × 8 seeds, cap depth 12.",
        ),
        "full": Preset(
            Space(
                scheme=values("eps0.5", "eps3", "depth2", "depth4", "depth8", "depth12", "depth16"),
                seeds=8,
                paired=_PAIRED,
            ),
            spec={"max_depth": 16, "n_train": 20000, "n_test": 5000, "epochs": 60},
            description="One accelerator: the authors' cap 16 and fixed depths.",
        ),
    },
    claims=[
        # the paper's figure was not read: the tree only deepening is the authors' loop, by construction
        Claim.equals(
            "depth-monotone",
            "The adaptive tree only deepens: the count of epochs whose depth is below the "
            "previous epoch's is 0 (it holds by construction in the authors' loop, which only "
            "subdivides).",
            _depth_decreases,
            0,
            source="sanity",
        ),
        Claim.equals(
            "bound-forces-cap",
            "The authors' bound exceeds ε/(1 + ε) at every depth up to the cap on data spread "
            "over the cube (derived in the description), so every adaptive lane is at the cap "
            "after its first epoch: the count of adaptive lanes below the cap then is 0.",
            _below_cap_after_first_epoch,
            0,
            source="derived",
            stand_in=STAND_IN,
            requires=_needs_adaptive,
        ),
        # the abstract's "outperforms ... FGD with fixed approximations in efficiency and
        # accuracy", read as "no worse at equal cost"; the cost is counted, not timed
        Claim.at_most(
            "kernel-adaptive-beats-fixed-at-equal-cost",
            "At the total cost of each fixed depth's run, the adaptive run's test loss is at "
            "most 1.01× the fixed depth's final test loss. The paper speaks of efficiency (its "
            "kernel-regression figure plots wall-clock time); we count kernel evaluations, the "
            "work of the authors' implementation, since our simulator computes the same values "
            "in a factorized form whose time is not theirs. The 1 % (for the tie at the cap) "
            "is ours.",
            _equal_cost,
            1.0 + TIE_RTOL,
            source="paper",
            quote="our method consistently outperforms both FGD with fixed approximations and "
            "neural network baselines in efficiency and accuracy",
            stand_in=STAND_IN,
            requires=_needs_pairs,
        ),
    ],
    figures=[
        Figure(
            "test_loss_vs_cost",
            _draw_cost,
            "Test loss against cumulative kernel evaluations (seed medians): adaptive solid, "
            "fixed depths dashed.",
        ),
        Figure("depth", _draw_depth, "Tree depth against the epoch (seed medians)."),
    ],
    description=DESCRIPTION,
)
