r"""``feedback-informed-bo``: black-box optimisation with an unreliable feedback source.

The claims of arXiv:2605.06187 (FICBO; abstract only) on the exact Bayesian stand-in of
:mod:`jaxtheory.sims.gp_bandits.feedback`, what the paper's prior-fitted transformer approximates.

**What is run.** The paper trains a transformer on tasks from a *structured feedback prior* (access,
relevance, distortion) and uses it in context. This experiment runs the exact Bayesian computation such a
network is trained to imitate, for one source: $f \sim \mathrm{GP}(0, k)$ on the pool,
$a^\star = \rho f + \sqrt{1-\rho^2}\,g$, $a = \varphi_w(a^\star) + \tau\varepsilon$ on a Bernoulli(0.75)
access mask, and $y = f + \sigma z$ ($\sigma^2 = \tau^2 = 0.01$, SE kernel, lengthscale 0.02 in 1-D and 0.1 in
2-D, known to the model). The model assumes $\varphi = \mathrm{id}$ and puts a uniform prior on a 21-point
grid of $\rho$; the grid posterior uses $p(y_D \mid a, \rho)$ (the marginal of $a$ does not involve $\rho$),
and the acquisition is the posterior-weighted mixture of closed-form EIs. Without feedback the same code runs
with $\rho \equiv 0$; greedy-on-feedback evaluates the accessible points by decreasing $a$. Regret ratios are
ratios of seed means of the final simple regret (not medians: on 50 tasks many final regrets are exactly 0,
which makes a median ratio undefined), bootstrapped on the same tasks (paired).

**Calibration.** Exact Bayes is calibrated *on average over the prior*, including the prior over $\rho$: the
sequential PIT values of the observations are then i.i.d. uniform, whatever the adaptive choice of $x_t$. The
coverage claim is therefore measured on the six task cells where $\rho$ is drawn from the model's grid prior
(6 × 50 independent tasks × 25 observations per dimension). At a fixed $\rho$ coverage is not guaranteed (it
is about 0.93 at $\rho = 0.9$, where the grid posterior still spreads over smaller $\rho$).

**Warp.** With $w = 1.5$ the feedback $\sinh(1.5 a^\star)/1.5$ is a monotone but strongly non-linear
distortion; the Gaussian stand-in then learns a much smaller $|\hat\rho|$ (about −0.17 instead of −0.8 after
10 observations), i.e. it discounts the source."""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, Region, Stat, analysis, plots
from jaxtheory.analysis import Cells
from jaxtheory.sims.gp_bandits import feedback as fb
from jaxtheory.sweep import Space, static, zipped

#: The task cells (ρ, warp w, ρ-prior draw): the last six draw ρ uniformly from the model's grid
#: (six independent tasks per seed), where exact Bayes is calibrated by construction; the fourth
#: is the misleading source seen through a monotone warp.
CELLS = ((0.9, 0.0, 0), (0.3, 0.0, 0), (-0.8, 0.0, 0), (-0.8, 1.5, 0), *((0.0, 0.0, k) for k in range(1, 7)))
GAIN = 0.7  # our "effectively exploits": regret at ρ = .9 at most 70 % of no feedback's
ROBUST = 1.1  # our "robust": at ρ = −.8 at most 10 % worse than no feedback
GREEDY_FAIL = 2.0  # greedy-on-feedback "fails": at least twice no feedback's regret at ρ = −.8 (ours)
SPEARMAN = 0.8  # our Spearman threshold after 10 observations
COVERAGE = (0.875, 0.925)  # the calibration band (ours): 90 % intervals cover 90 ± 2.5 %
STAND_IN = (
    "GP draws on a 256-point Sobol pool in 1-D and 2-D, with one synthetic source, in place of the "
    "paper's synthetic and real-world tasks"
)
STEPS = dict(x="step", band="se")  # the figures: against the step, task mean ± SE
_TASK = zipped(rho=[c[0] for c in CELLS], warp=[c[1] for c in CELLS], rho_prior=[c[2] for c in CELLS])


def _fixed(ds):
    """The unwarped fixed-ρ task cells, with ``rho`` as their dimension."""
    keep = (ds["rho_prior"] == 0) & (ds["warp"] == 0)
    return ds.isel(task=np.flatnonzero(keep.values)).swap_dims(task="rho")


def _ratio(num, rho, warp=0.0):
    """Final regret of ``num`` over that without feedback at the task cell (ρ, warp), paired per task."""

    def measure(ds, spec):
        keep = (ds["rho_prior"] == 0) & np.isclose(ds["rho"], rho) & np.isclose(ds["warp"], warp)
        t = ds.isel(task=np.flatnonzero(keep.values), step=-1).squeeze("task", drop=True)
        return t[num], t["regret_nofb"]

    return measure


def _spearman(ds, spec):
    """Spearman(ρ̂ after 10 observations, ρ) over the three fixed-ρ cells, tasks resampled."""
    sub = _fixed(ds)["rho_hat_probe"].sel(rho=[0.9, 0.3, -0.8], method="nearest")

    def est(arr, level, seed):  # arr: (seeds, 3)
        def stat(s):
            b = s.shape[0]
            y = np.broadcast_to(sub["rho"].values, s.shape).reshape(b, -1)
            return analysis.pearson(analysis.ranks(s.reshape(b, -1)), analysis.ranks(y))

        return analysis.bootstrap(arr, stat, level=level, seed=seed, n_boot=400)

    return Cells(
        (c, lambda level, seed, a=da: est(a.transpose("seed", "rho").values, level, seed))
        for c, da in analysis.cells(sub, ["seed", "rho"])
    )


def _regrets(ds, spec):
    names = {"fb": "feedback-aware EI", "nofb": "no feedback", "greedy": "greedy on feedback"}
    return xr.concat([_fixed(ds)[f"regret_{m}"] for m in names], "method").assign_coords(
        method=list(names.values())
    )


def _space(dims, lengthscales, seeds):  # a GP pool per (dim, lengthscale), every task cell, paired
    pool = zipped(dim=static(*dims), lengthscale=static(*lengthscales))
    return Space(pool=pool, task=_TASK, seeds=seeds, paired=("task", "pool"))


EXPERIMENT = Experiment(
    name="feedback-informed-bo",
    paper=Paper(
        title="In-Context Black-Box Optimization with Unreliable Feedback",
        arxiv="2605.06187",
        authors="Nicolas S. Blumer, Julien Martinelli, Samuel Kaski",
        found=False,
        banner="The paper's transformer (a prior-fitted network) is not run: the claims are "
        "checked on the exact Bayesian stand-in it approximates.",
        unverified=(
            "The pretrained transformer (4 layers, d = 128, prior-fitted-network loss) matches the exact "
            "posterior on prior tasks.",
            "FICBO beats GP-EI, a GP with feedback inputs and feedback-free in-context optimisers on Branin "
            "/ Hartmann-6 with synthetic sources at T ∈ {10, 25, 50}.",
            "A linear probe on attention outputs recovers the sources' reliabilities in context.",
        ),
    ),
    simulator=fb.SIMULATOR,
    params={"access": 0.75},
    presets={
        "smoke": Preset(
            _space((1, 2), (0.02, 0.1), seeds=50),
            spec={"n": 256, "steps": 25, "probe": 10},
            description="CPU: 1-D and 2-D GP tasks (2 compiles), pool 256, T = 25, 10 task cells × 50 tasks.",
        ),
        "full": Preset(
            _space((1, 2, 4), (0.02, 0.1, 0.25), seeds=1000),
            spec={"n": 256, "steps": 50, "probe": 10},
            description="One accelerator: 1-, 2- and 4-D GP tasks, T = 50, 1000 tasks per cell.",
        ),
    },
    claims=[
        Claim.within(
            "calibrated-intervals",
            "90 % posterior predictive intervals cover 90 ± 2.5 % of the observations (exact Bayes: a "
            "calibration check), on tasks whose ρ is drawn from the model's grid prior; per task the "
            "fraction over its 25 observations, mean over tasks, per dimension.",
            lambda ds, spec: (
                ds["covered_fb"].isel(task=np.flatnonzero(ds["rho_prior"].values > 0)).mean(("task", "step"))
            ),
            *COVERAGE,
            source="derived",
        ),
        Claim(
            "informative-feedback-helps",
            "With an informative source (ρ = 0.9) the final simple regret (T = 25) is at least 30 % lower "
            "than without feedback: ratio of mean regrets ≤ 0.7. The threshold 0.7 is ours.",
            Stat.ratio(_ratio("regret_fb", 0.9)),
            Region.at_most(GAIN),
            source="reconstruction",
            quote="FICBO effectively exploits informative feedback",
            stand_in=STAND_IN,
        ),
        Claim(
            "robust-to-misleading",
            "With a misleading source (ρ = −0.8) the regret is at most 10 % worse than without feedback: "
            "ratio ≤ 1.1. The margin 10 % is ours.",
            Stat.ratio(_ratio("regret_fb", -0.8)),
            Region.at_most(ROBUST),
            source="reconstruction",
            quote="while remaining robust to weak or misleading sources",
            stand_in=STAND_IN,
        ),
        # proposed: the abstract does not mention greedy-on-feedback; statement and 2x are ours.
        Claim(
            "greedy-on-feedback-fails",
            "At ρ = −0.8 greedy-on-feedback has at least twice the regret of no feedback (a baseline and a "
            "threshold of ours: what robustness is measured against).",
            Stat.ratio(_ratio("regret_greedy", -0.8)),
            Region.at_least(GREEDY_FAIL),
            source="proposed",
        ),
        # proposed: nothing derives robustness to an unknown warp; ours, towards "distortion".
        Claim(
            "robust-under-monotone-warp",
            "At ρ = −0.8 seen through the monotone warp sinh(1.5 z)/1.5 (which the Gaussian model does not "
            "know) the regret is still at most 10 % worse than without feedback.",
            Stat.ratio(_ratio("regret_fb", -0.8, warp=1.5)),
            Region.at_most(ROBUST),
            source="proposed",
        ),
        # reconstruction: in-context reliability, as the stand-in's posterior mean of ρ.
        Claim.at_least(
            "reliability-in-context",
            "After 10 observations the posterior mean ρ̂ has Spearman correlation > 0.8 with the true ρ over "
            "the cells ρ ∈ {0.9, 0.3, −0.8} (pooled over tasks, tasks resampled). The threshold 0.8 is ours.",
            _spearman,
            SPEARMAN,
            source="reconstruction",
            quote="the model estimates source reliability in context by comparing observed objective "
            "values with auxiliary signals",
            stand_in=STAND_IN,
            over=None,
        ),
    ],
    figures=[
        Figure(
            "regret",
            plots.curves(_regrets, hue="method", facet=("pool", "rho"), ylabel="simple regret", **STEPS),
            "Simple regret against the step for feedback-aware EI, GP-EI without feedback and "
            "greedy-on-feedback, task mean ± one standard error, per dimension and ρ.",
        ),
        Figure(
            "rho_hat",
            plots.curves(
                lambda ds, spec: _fixed(ds)["rho_hat"],
                hue="rho",
                facet="pool",
                theory=lambda c, spec: c["rho"],
                theory_label="true ρ",
                xlabel="observations",
                ylabel="posterior mean ρ̂",
                label_fmt="ρ={:g}",
                **STEPS,
            ),
            "Posterior mean ρ̂ against the number of observations (mean ± SE over tasks), one panel per task "
            "family; dotted: the true ρ.",
            size=(9.0, 3.6),
        ),
    ],
    description=__doc__.split("\n\n", 2)[2],
)
