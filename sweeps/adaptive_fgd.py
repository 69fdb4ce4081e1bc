r"""``adaptive-fgd``: functional gradient descent on adaptively refined grids.

The teaser of the paper: $f^\star(x, y) = \cos(20r - 3\theta)\,e^{-r^2/0.25}$ in polar coordinates of $1.5(x,
y) - 0.75$ on $[0,1]^2$, $L(f) = \tfrac12\lVert f - f^\star\rVert^2$, so $\nabla L(f) = f - f^\star$. From the
authors' code (`src/teaser/sandbox_ours.py`): $f$ is piecewise constant on a uniform $2^l \times 2^l$ grid,
first $8\times 8$; each epoch estimates the gradient in every cell from 8 points at the *same* 8 uniform
random offsets in every cell, with $\mathrm{rel\_err} = \sqrt{\sum_c \widehat{\mathrm{var}}_c / \sum_c \hat
g_c^2}$; while $\mathrm{rel\_err} > \varepsilon$ and the grid is below the cap the whole grid is refined and
the gradient re-estimated (same offsets), then $f \leftarrow f - \mathrm{LR}\,\hat g$. Fixed grids run the
same loop without refinement. The loss is exact on a $512^2$ midpoint grid every epoch (through cell means and
variances of $f^\star$ there); the cost is the number of cell samples, refinement estimates included.

**Smoke, shrunk**: cap $S_{\max} = 128^2$ (not $256^2$), fixed grids $16 \dots 128$, 8 seeds (not 4). The
sampler evaluates a fixed $8 S_{\max}^2$ points per estimate in every lane (one compiled program for every
level under `vmap`), so $256^2$ with 8 seeds costs about 4× the 60 s budget, and 4 seeds give no interval. 300
epochs, LR = 0.05, $\varepsilon \in \{0.1, 0.5, 3\}$; the methods of a seed share the offsets (paired).

**Plateau (derived here).** On a fixed grid $\hat g_c = f_c - \hat m_c$, $\hat m_c$ the 8-point mean of
$f^\star$ over cell $c$: unbiased for the cell mean $m_c$, variance $v_c/8$ ($v_c$ the within-cell variance;
fresh offsets each epoch). So $f_c - m_c \leftarrow (1-\mathrm{LR})(f_c - m_c) + \mathrm{LR}(\hat m_c - m_c)$,
an AR(1) with stationary variance $\mathrm{LR}^2 (v_c/8)/(1 - (1-\mathrm{LR})^2) =
\tfrac{\mathrm{LR}}{2-\mathrm{LR}} v_c/8$. By Pythagoras $L(f) = \tfrac12\lVert f^\star - P_s
f^\star\rVert^2 + \tfrac12\sum_c |c|(f_c - m_c)^2$, so the stationary loss is $\tfrac12\lVert f^\star - P_s
f^\star\rVert^2 + \tfrac12\,\tfrac{\mathrm{LR}}{2-\mathrm{LR}} \sum_c |c|\, v_c/8$. As $\tfrac12\sum_c |c|
v_c$ is the floor, the noise term is $\mathrm{LR}/(8(2-\mathrm{LR})) = 0.32\,\%$ of it at LR = 0.05: the 10 %
check tests the projection floor and that sampling adds no bias, not the noise term (correlated offsets make
it fluctuate by ~70 % per epoch). With exact cell means there is no noise: $L_k - L_{\mathrm{floor}} =
(1-\mathrm{LR})^{2k}(L_0 - L_{\mathrm{floor}})$.

What the runs show (beyond the claims' statements). At the coarser fixed grids' budgets the adaptive runs are
well below them; against the fixed cap grid both tie (on the same grid with the same offsets the runs forget
their pasts at rate $(1-\mathrm{LR})^k$), the adaptive run having spent less. $\varepsilon = 3$ reaches the
cap late, $\varepsilon = 0.5$ after about 20 epochs, $\varepsilon = 0.1$ at epoch 1. Not a claim: the noise
term alone (second-half mean minus floor, over the predicted term) is near 1 on the small grids and grows
towards the cap grid, where the 4×4-point quadrature of a cell's mean on the evaluation grid adds a bias of
that order.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, needs, plots
from jaxtheory.results import values_of
from jaxtheory.sims.functional import fgd
from jaxtheory.sims.functional.fgd_plateau import plateau_formula
from jaxtheory.sweep import Space, values

PLATEAU_RTOL = 0.10  # the fixed-grid plateau matches its closed form within 10 % (ours)
CONTRACTION_RTOL = 0.01  # the exact-mean contraction factor matches (1 − LR)² within 1 % (ours)
CONTRACTION_EPOCHS = 40  # the excess loss is still ≥ 1.6 % of its start (0.9025⁴⁰): far above rounding
TIE_RTOL = 0.01  # at most 1 % worse at equal cost (a tie on the finest floor fluctuates ~0.2 %)
DESCENT_FRACTION = 0.99  # sub-cap epochs whose exact loss must not increase (ours)
EQUAL_COST_EPS = ("eps0.5", "eps3")  # the paper's figure uses ε = 3; ε = 0.1 has its own claim


def _labels(ds, prefix):
    return [str(m) for m in values_of(ds, "scheme") if str(m).startswith(prefix)]


def _one(ds, label):
    """One scheme's results, its other (length-one) dims but seed and epoch dropped."""
    sub = analysis.select(ds, scheme=label)
    return sub.squeeze([d for d in sub.sizes if d not in ("seed", "epoch")], drop=True)


HAS_FIXED = (lambda ds, spec: bool(_labels(ds, "fixed")), "the preset runs no fixed grid")
HAS_EPS = (lambda ds, spec: bool(_labels(ds, "eps")), "the preset runs no adaptive method")
LONG_ENOUGH = (
    lambda ds, spec: (1 - float(np.max(values_of(ds, "lr")))) ** ds.sizes["epoch"] <= 1e-3,
    "the run is too short for the transient (1 − lr)^(2k) to die out in the first half",
)


def _tail(ds):  # the mean loss over the second half of the epochs
    return ds["loss"].isel(epoch=slice(ds.sizes["epoch"] // 2, None)).mean("epoch")


def _plateau_ratio(ds, spec):
    """Per seed and fixed grid: the second-half mean loss / the plateau formula."""
    labs, lr = _labels(ds, "fixed"), float(values_of(ds, "lr")[0])
    total = xr.DataArray([plateau_formula(int(x[5:]), lr, spec)[0] for x in labs], {"scheme": labs})
    return (_tail(ds).sel(scheme=labs) / total).rename(scheme="grid")


def _contraction(ds, spec):
    """Per fixed grid: max over epochs ≤ 40 and seeds of |ratio/(1 − lr)² − 1|, with ratio =
    (L_k − L_floor)/(L_{k−1} − L_floor) of the exact-cell-mean run."""
    res = {}
    for lab in _labels(ds, "fixed"):
        sub = analysis.select(ds, scheme=lab)
        le = np.asarray(sub["loss_exact"].transpose(..., "epoch").values, np.float64)
        le = le.reshape(-1, le.shape[-1])[:, :CONTRACTION_EPOCHS]
        l0, fl = (np.asarray(sub[k].values, np.float64).reshape(-1, 1) for k in ("loss0", "floor_start"))
        x = np.concatenate([l0, le], axis=1) - fl
        res[lab] = float(np.max(np.abs(x[:, 1:] / x[:, :-1] / (1 - float(values_of(sub, "lr")[0])) ** 2 - 1)))
    return res


def _descent(below_one=False):
    """(epochs whose exact loss did not increase, epochs) over adaptive lanes below the cap
    (``below_one``: the ε < 1 lanes, and the measure is the count of increases)."""

    def measure(ds, spec):
        labs = [m for m in _labels(ds, "eps") if not below_one or float(m[3:]) < 1]
        if not labs:
            raise NotApplicable(f"the preset runs no {'ε < 1' if below_one else 'adaptive method'}")
        loss = ds["loss"].sel(scheme=labs).transpose(..., "epoch")
        l0 = ds["loss0"].sel(scheme=labs).broadcast_like(loss.isel(epoch=0)).transpose(*loss.dims[:-1])
        d = np.diff(np.concatenate([l0.values[..., None], loss.values], -1).astype(np.float64), axis=-1)
        below = ds["level"].sel(scheme=labs).transpose(*loss.dims).values < int(np.log2(spec.max_size))
        k, n = int(((d <= 0) & below).sum()), int(below.sum())
        return n - k if below_one else (k, n)

    return measure


def _cost_ratios(ds, adaptive, fixed, loss="loss", loss0="loss0"):
    """Per seed: adaptive ``loss`` at the fixed run's total cost (its last epoch within that
    cost; ``loss0`` before any) / the fixed run's final ``loss``.

    Shared with :mod:`sweeps.adaptive_fgd_kernel` (``loss="test_loss"``, ``loss0="loss0_test"``).
    """
    if not (adaptive and fixed):
        raise NotApplicable("the preset lacks the adaptive runs or the fixed ones to compare")
    cols, names = [], []
    for a in adaptive:
        sa = _one(ds, a)
        la = np.concatenate(
            [sa[loss0].values[:, None], sa[loss].transpose("seed", "epoch").values], 1
        ).astype(np.float64)
        ca = sa["cost"].transpose("seed", "epoch").values
        for f in fixed:
            sf = _one(ds, f).transpose("seed", "epoch")
            j = (ca <= sf["cost"].values[:, -1:]).sum(1)
            cols.append(la[np.arange(len(j)), j] / sf[loss].values[:, -1].astype(np.float64))
            names.append(f"{a} vs {f}")
    return xr.DataArray(np.stack(cols, 1), dims=("seed", "pair"), coords={"pair": names})


def _smallest_below_cap(ds, spec):  # the smallest fixed grid, if it is below the cap
    smallest = sorted(_labels(ds, "fixed"), key=lambda f: int(f[5:]))[:1]
    return [f for f in smallest if int(f[5:]) < spec.max_size]


def cost_curves(loss, xlabel, ylabel, ncol=1):
    """A figure's ``draw``: seed-median ``loss`` against cumulative cost, one line per scheme
    (adaptive solid, fixed dashed). Shared with :mod:`sweeps.adaptive_fgd_kernel`."""

    def draw(ds, spec, fig):
        ax = fig.add_subplot(1, 1, 1)
        for i, lab in enumerate(map(str, values_of(ds, "scheme"))):
            sub = _one(ds, lab)
            ls = "-" if lab.startswith("eps") else "--"
            ax.loglog(sub["cost"].median("seed"), sub[loss].median("seed"), ls, color=f"C{i}", label=lab)
        ax.set(xlabel=xlabel, ylabel=ylabel)
        ax.legend(fontsize=7, ncol=ncol)

    return draw


def _plateaus(ds, spec):  # the second-half mean loss per fixed grid, against the grid size
    labs = _labels(ds, "fixed")
    sizes = [int(x[5:]) for x in labs]
    return _tail(ds).sel(scheme=labs).assign_coords(s=("scheme", sizes)).swap_dims(scheme="s")


PLATEAU_FIG = dict(
    band="se", logx=2, logy=True, marker="x", ls="none", xlabel="fixed grid size s", theory_points=None
)
PLATEAU_FIG["theory"] = lambda c, spec: [plateau_formula(int(x), float(c["lr"]), spec)[0] for x in c["s"]]
PLATEAU_FIG["theory_label"] = "formula: floor + noise term"


_SMOKE = ("eps0.1", "eps0.5", "eps3", "fixed16", "fixed32", "fixed64", "fixed128")

EXPERIMENT = Experiment(
    name="adaptive-fgd",
    paper=Paper(
        title="Functional Gradient Descent with Adaptive Representations",
        arxiv="2606.16926",
        authors="Daniel Csillag, Rodrigo Schuller, Pedro Dall'Antonia, Leonidas Guibas, Luiz Velho, Tiago "
        "Novello",
        banner="Only the abstract could be read; the algorithm and settings follow the authors' public code "
        "(dccsillag/experiments-adaptive-fgd, src/teaser).",
        unverified=(
            "Kernel regression on cod-rna with kd-tree representations (Fig. 2): adaptive depth beats every "
            "fixed depth at equal wall-clock (a synthetic 3-D stand-in runs in adaptive-fgd-kernel).",
            "Wave equation in the Fourier domain (Fig. 3) and radiance fields (Fig. 4).",
            "Adaptive FGD beats neural-network baselines per unit of wall-clock time.",
        ),
    ),
    simulator=fgd.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(scheme=values(*_SMOKE), lr=values(0.05), seeds=8, paired=("scheme",)),
            spec={"max_size": 128, "epochs": 300, "eval_size": 512},
            description="CPU, about a minute: one compile, 7 methods × 8 seeds, cap 128² (256² shrunk to "
            "fit; see the description).",
        ),
        "full": Preset(
            Space(
                scheme=values(*_SMOKE[:3], *(f"fixed{2**i}" for i in range(4, 11))),
                lr=values(0.05),
                seeds=8,
                paired=("scheme",),
            ),
            spec={"max_size": 1024, "epochs": 2000, "eval_size": 2048},
            description="One accelerator: the authors' cap 1024² and 2000 epochs, fixed grids 16…1024.",
        ),
    },
    claims=[
        Claim.close(
            "fixed-grid-plateau",
            "On a fixed s × s grid with 8-sample cell means, the loss plateaus at ½‖f* − P_s f*‖² + ½·LR/(2 − "
            "LR)·Σ area·v_cell/8 (derived in the description): the mean loss over the second half of the "
            "epochs divided by the formula (float64 numpy on the 512² grid) is 1 ± 0.1, per grid.",
            _plateau_ratio,
            1.0,
            atol=PLATEAU_RTOL,
            source="derived",
            requires=needs(LONG_ENOUGH, HAS_FIXED),
        ),
        Claim.identity(
            "exact-mean-contraction",
            "With exact cell means FGD contracts the loss above the grid's floor by (1 − LR)² = 0.9025 per "
            "epoch: max over the first 40 epochs, seeds and fixed grids of |(L_k − L_floor)/(L_{k−1} − "
            "L_floor) / (1 − LR)² − 1| ≤ 0.01 (the floor in float32 from the same evaluation grid).",
            _contraction,
            CONTRACTION_RTOL,
            source="derived",
            requires=needs(HAS_FIXED),
        ),
        Claim.fraction(
            "descent-before-cap",
            "The exact loss does not increase from one epoch to the next while the adaptive grid is below "
            "the cap, in ≥ 99 % of those epochs (pooled over ε and seeds; 8-sample estimates cannot promise "
            "every epoch), Wilson interval. Descent per epoch is our check of the mechanism behind the "
            "paper's convergence guarantee.",
            _descent(),
            at_least=DESCENT_FRACTION,
            source="proposed",
        ),
        Claim.equals(
            "descent-every-epoch-small-eps",
            "For ε < 1 (an estimated relative error of the gradient below 1, where the standard "
            "inexact-gradient argument gives descent at every step) the exact loss decreases at every epoch "
            "below the cap: the count of increases is 0 (an exact count; in the smoke the ε = 0.5 epochs, "
            "~18 a seed, as ε = 0.1 starts at the cap). The increases the pooled claim allows are ε = 3 on the "
            "8×8 grid, where the loss sits on that grid's floor.",
            _descent(below_one=True),
            0,
            source="proposed",
        ),
        Claim.at_most(
            "adaptive-beats-fixed-at-equal-cost",
            "At the total cost of each fixed grid's run, the adaptive run (ε = 0.5 and the paper's figure "
            "setting ε = 3) has a loss at most 1.01× the fixed grid's final loss. The paper speaks of "
            "efficiency (its figures plot wall-clock time); we count cell samples, the work both runs do, "
            "since the wall-clock of lanes sharing one vmapped program does not separate them. The 1 % (for "
            "the tie at the cap, where both reach the same floor) is ours.",
            lambda ds, spec: _cost_ratios(
                ds, [m for m in EQUAL_COST_EPS if m in _labels(ds, "eps")], _labels(ds, "fixed")
            ),
            1.0 + TIE_RTOL,
            source="paper",
            quote="our method consistently outperforms both FGD with fixed approximations and neural network "
            "baselines in efficiency and accuracy",
        ),
        Claim.at_least(
            "tight-tolerance-pays-finest-cost",
            "With ε = 0.1 the first estimate already fails the test on every grid below the cap, so the run "
            "is fixed-cap FGD from epoch 1 and at the budget of the smallest fixed grid it has done "
            "~4^(levels apart)× fewer epochs: its loss there exceeds that grid's final loss (ratio ≥ 1). The "
            "adaptive advantage needs a loose ε.",
            lambda ds, spec: _cost_ratios(ds, _labels(ds, "eps0.1"), _smallest_below_cap(ds, spec)),
            1.0,
            source="derived",
        ),
    ],
    figures=[
        Figure(
            "loss_vs_cost",
            cost_curves(
                "loss", "cumulative cost (cell samples), seed median", "exact loss ½‖f − f*‖², seed median", 2
            ),
            "Exact loss against cumulative cost in cell samples (seed medians): adaptive methods solid, "
            "fixed grids dashed.",
        ),
        Figure(
            "grid_size",
            plots.curves(
                lambda ds, spec: 2.0 ** ds["level"].sel(scheme=_labels(ds, "eps")),
                x="epoch",
                hue="scheme",
                band="iqr",
                logy=2,
                label_fmt="{}",
                ylabel="grid size (cells per side): median, IQR over seeds",
                requires=needs(HAS_EPS),
            ),
            "Grid size of the adaptive methods against the epoch (median and IQR over seeds).",
        ),
        Figure(
            "plateau",
            plots.curves(
                _plateaus,
                x="s",
                **PLATEAU_FIG,
                ylabel="plateau loss: 2nd-half mean (seed mean ± SE)",
                requires=needs(HAS_FIXED),
            ),
            "Fixed-grid plateau: the derived formula against the measured mean loss over the second half of "
            "the epochs.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
