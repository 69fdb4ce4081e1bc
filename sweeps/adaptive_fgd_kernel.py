r"""``adaptive-fgd-kernel``: kernel-regression FGD on an adaptively deepened kd-tree.

Checks the kernel-regression claim of arXiv:2606.16926 (Csillag et al., Fig. 2), following the authors'
`src/kernel-regression/ours.py` (only the paper's abstract could be read), with
:mod:`jaxtheory.sims.functional.kdtree`. Data, a synthetic stand-in for cod-rna (no downloads here): $x \sim
U[0,1]^3$, $y = \mathbb 1[\sin 6x_0 + x_1x_2 > 0.3]$, 2000 training and 2000 test points per seed. Loss
$\tfrac12\,\mathrm{mean}_i (f(x_i) - y_i)^2$, kernel $k(x,x') = e^{-100\lVert x-x'\rVert^2}$, functional
gradient $\nabla L(f)(x) = \frac1n\sum_i (f(x_i) - y_i)\,k(x_i, x)$ evaluated at the centre of every leaf of a
kd-tree whose leaves are all split at the midpoint of their widest side; LR = 10, 60 epochs. The adaptive run
starts at depth 2 and deepens while $\mathrm{mean}|l'|\,\sqrt{2\gamma/e}\,\max(\text{leaf half-diagonal}) /
\max|\text{leaf value}| \ge \varepsilon/(1+\varepsilon)$, $\varepsilon = 0.5$, up to the cap; fixed depths run
without deepening. Cost: kernel evaluations, $n \times$ leaves per gradient (deepening estimates included),
the authors' work (the simulator computes the same values factorized).

**The bound cannot be met (derived).** With the *mass* $m = \max|g|/\mathrm{mean}|l'| \le 1$ (as $k \le 1$),
the bound is $\sqrt{2\gamma/e}\cdot$ half-diagonal$/m = 8.58 \times$ half-diagonal$/m$: $0.201/m$ at depth 16,
below $\varepsilon/(1+\varepsilon) = 1/3$ only when $m > 0.60$; $0.464/m > 1/3$ at depth 12 for every $m \le
1$. On data spread over the cube the mass is about the kernel's volume, $(\pi/\gamma)^{3/2} = 0.0056$, so the
adaptive run deepens to the cap in its first epoch and is the fixed-cap run thereafter (`bound-forces-cap`),
paying the finest cost from the start.

**At equal cost (a finding about the authors' rule on this stand-in).** The adaptive run's first epoch, with
the deepening estimates, costs about $n\sum_{d=2}^{12} 2^d \approx 1.6\cdot 10^7$ kernel evaluations: at the
total budgets of depths 2, 4 and 8 it has finished at most two epochs, with about ten times their test loss;
against the cap depth it is the same run one epoch behind, at the edge of the 1 % tie. Depth 8 ends a few per
cent above the cap depth's test loss at 1/16 of the cost. The paper's cod-rna result may rest on data whose
kernel mass is far from uniform; on this stand-in the bound, not adapting the representation, decides.
"""

from __future__ import annotations

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, needs, plots
from jaxtheory.sims.functional import kdtree as kd
from jaxtheory.sweep import Space, values
from sweeps.adaptive_fgd import HAS_EPS, _cost_ratios, _labels, cost_curves  # same paper, same scheme labels

TIE_RTOL = 0.01  # "equal or better at equal cost": at most 1 % worse (the tie where both run at the cap)
_PAIRED = ("scheme",)
FULL_SCHEMES = ("eps0.5", "eps3", "depth2", "depth4", "depth8", "depth12", "depth16")
COST_LABELS = ("cumulative cost (kernel evaluations), seed median", "test loss ½ mean (f − y)², seed median")
STAND_IN = "synthetic 3-D data (x uniform on the cube, y = 1[sin 6x₀ + x₁x₂ > 0.3]) in place of cod-rna"


EXPERIMENT = Experiment(
    name="adaptive-fgd-kernel",
    paper=Paper(
        title="Functional Gradient Descent with Adaptive Representations",
        arxiv="2606.16926",
        authors="Daniel Csillag, Rodrigo Schuller, Pedro Dall'Antonia, Leonidas Guibas, Luiz Velho, Tiago Novello",
        banner="Only the abstract could be read; the algorithm and settings follow the authors' public code "
        "(dccsillag/experiments-adaptive-fgd, src/kernel-regression); the data are a synthetic stand-in "
        "for cod-rna.",
        unverified=(
            "On cod-rna (first 3 features), adaptive FGD beats fixed depths 2–16 and an MLP in test loss "
            "per wall-clock second, for MSE and BCE.",
        ),
    ),
    simulator=kd.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(scheme=values("eps0.5", "depth2", "depth4", "depth8", "depth12"), seeds=8, paired=_PAIRED),
            spec={"max_depth": 12, "n_train": 2000, "n_test": 2000, "epochs": 60},
            description="CPU, seconds: one compile, 5 schemes × 8 seeds, cap depth 12 (the authors' 16).",
        ),
        "full": Preset(
            Space(scheme=values(*FULL_SCHEMES), seeds=8, paired=_PAIRED),
            spec={"max_depth": 16, "n_train": 20000, "n_test": 5000, "epochs": 60},
            description="One accelerator: the authors' cap 16 and fixed depths.",
        ),
    },
    claims=[
        Claim.equals(
            "depth-monotone",
            "The adaptive tree only deepens: the count of epochs whose depth is below the previous epoch's "
            "is 0 (it holds by construction in the authors' loop, which only subdivides).",
            lambda ds, spec: int((np.diff(ds["depth"].transpose(..., "epoch").values) < 0).sum()),
            0,
            source="sanity",
        ),
        Claim.equals(
            "bound-forces-cap",
            "The authors' bound exceeds ε/(1 + ε) at every depth up to the cap on data spread over the "
            "cube (derived in the description), so every adaptive lane is at the cap after its first "
            "epoch: the count of adaptive lanes below the cap then is 0.",
            lambda ds, spec: int(
                (analysis.select(ds["depth"], scheme=_labels(ds, "eps")).isel(epoch=0) < spec.max_depth).sum()
            ),
            0,
            source="derived",
            stand_in=STAND_IN,
            requires=needs(HAS_EPS),
        ),
        Claim.at_most(
            "kernel-adaptive-beats-fixed-at-equal-cost",
            "At the total cost of each fixed depth's run, the adaptive run's test loss is at most 1.01× the "
            "fixed depth's final test loss. The paper speaks of efficiency (its kernel-regression figure "
            "plots wall-clock time); we count kernel evaluations, the work of the authors' implementation, "
            "since our simulator computes the same values in a factorized form whose time is not theirs. "
            "The 1 % (for the tie at the cap) is ours.",
            lambda ds, spec: _cost_ratios(
                ds, _labels(ds, "eps"), _labels(ds, "depth"), loss="test_loss", loss0="loss0_test"
            ),
            1.0 + TIE_RTOL,
            source="paper",
            quote="our method consistently outperforms both FGD with fixed approximations and neural network "
            "baselines in efficiency and accuracy",
            stand_in=STAND_IN,
        ),
    ],
    figures=[
        Figure(
            "test_loss_vs_cost",
            cost_curves("test_loss", *COST_LABELS),
            "Test loss against cumulative kernel evaluations (seed medians): adaptive solid, fixed dashed.",
        ),
        Figure(
            "depth",
            plots.curves("depth", x="epoch", hue="scheme", band=None, ylabel="tree depth (seed median)"),
            "Tree depth against the epoch (seed medians).",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
