"""``feedback-informed-bo``: black-box optimisation with an unreliable feedback source.

Checks the claims of arXiv:2605.06187 (FICBO; only the abstract was read) on the exact
Bayesian stand-in of :mod:`jaxtheory.sims.gp_bandits.feedback`: the paper's transformer
(a prior-fitted network) is not run; the stand-in is what such a network approximates
when it is trained on the same prior. Each task (seed) draws a GP objective on a
256-point Sobol pool, one source of relevance ρ (75 % access) and the observation noise;
feedback-aware EI, GP-EI without feedback and greedy-on-feedback run on the same task.
"""

from __future__ import annotations

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, plots
from jaxtheory.sims.gp_bandits import feedback as fb
from jaxtheory.sweep import Space, static, zipped

#: The task cells: (ρ, warp w, ρ-prior draw). The last six cells draw ρ uniformly from
#: the model's grid (six independent tasks per seed), where exact Bayes is calibrated by
#: construction; the fourth is the misleading source seen through a monotone warp.
CELLS = (
    (0.9, 0.0, 0),
    (0.3, 0.0, 0),
    (-0.8, 0.0, 0),
    (-0.8, 1.5, 0),
    *((0.0, 0.0, k) for k in range(1, 7)),
)
#: Our reading of "effectively exploits": regret at ρ = .9 at most 70 % of no feedback's.
GAIN = 0.7
#: Our reading of "robust": at ρ = −.8 at most 10 % worse than no feedback.
ROBUST = 1.1
#: Greedy-on-feedback "fails": at least twice the regret of no feedback at ρ = −.8 (ours).
GREEDY_FAIL = 2.0
#: Our Spearman threshold after 10 observations.
SPEARMAN = 0.8
#: The calibration band (ours): 90 % intervals cover 90 ± 2.5 %.
COVERAGE = (0.875, 0.925)

_TASK = zipped(
    rho=[c[0] for c in CELLS],
    warp=[c[1] for c in CELLS],
    rho_prior=[c[2] for c in CELLS],
)


def _cells(ds, rho=None, warp=0.0, prior=False):
    r = ds["rho"].values
    w = ds["warp"].values
    k = ds["rho_prior"].values
    keep = (k > 0) if prior else ((k == 0) & np.isclose(w, warp))
    if rho is not None:
        keep &= np.isclose(r, rho)
    if not keep.any():
        raise ValueError(f"the preset has no task cell with rho={rho}, warp={warp}, prior={prior}")
    return ds.isel(task=np.flatnonzero(keep))


def _final(da):
    return da.isel(step=-1)


def _ratio(ds, num, rho, warp=0.0):
    sub = _cells(ds, rho, warp).squeeze("task", drop=True)
    cells = _final(sub[num]).isel(seed=0).size
    level = 1 - (1 - analysis.DEFAULT_LEVEL) / cells
    return analysis.ratio_of_means(_final(sub[num]), _final(sub["regret_nofb"]), level=level)


def _gain(ds, spec):
    return _ratio(ds, "regret_fb", 0.9)


def _robust(ds, spec):
    return _ratio(ds, "regret_fb", -0.8)


def _robust_warped(ds, spec):
    return _ratio(ds, "regret_fb", -0.8, warp=1.5)


def _greedy(ds, spec):
    return _ratio(ds, "regret_greedy", -0.8)


def _coverage(ds, spec):
    """Per seed, the fraction of covered observations over the ρ-prior cells and steps."""
    sub = _cells(ds, prior=True)
    return sub["covered_fb"].mean(("task", "step"))


def _spearman(ds, spec):
    """Spearman(ρ̂ after 10 observations, ρ) over the three fixed-ρ cells, seeds resampled."""
    sub = _cells(ds)
    sub = sub.isel(task=np.flatnonzero(np.isin(np.round(sub["rho"].values, 6), [0.9, 0.3, -0.8])))
    rhos = np.asarray(sub["rho"].values, float)
    out = {}
    groups = analysis.cells(sub["rho_hat_probe"], ["seed", "task"])
    level = 1 - (1 - analysis.DEFAULT_LEVEL) / len(groups)
    for coords, da in groups:
        arr = np.asarray(da.transpose("seed", "task").values, float)  # (seeds, 3)

        def stat(s):
            b = s.shape[0]
            x = s.reshape(b, -1)
            y = np.broadcast_to(rhos, s.shape).reshape(b, -1)
            return analysis.pearson(analysis.ranks(x), analysis.ranks(y))  # Spearman, per resample

        out[analysis.cell_label(coords)] = analysis.bootstrap(arr, stat, level=level, n_boot=400)
    return out if list(out) != [""] else out[""]


def _draw_regret(ds, spec, fig):
    groups = analysis.cells(ds["regret_fb"], ["seed", "step", "task"])
    for j, (coords, _) in enumerate(groups):
        sub = ds.sel(coords)
        for k, rho in enumerate((0.9, 0.3, -0.8)):
            ax = fig.add_subplot(len(groups), 3, 3 * j + k + 1)
            c = _cells(sub, rho).squeeze("task", drop=True)
            for name, col in (("regret_fb", "C0"), ("regret_nofb", "C1"), ("regret_greedy", "C2")):
                plots.curves(ax, c[name], "step", band="se", color=col, label=name.split("_")[1])
            ax.set_yscale("symlog", linthresh=1e-2)
            ax.set_title(f"{analysis.cell_label(coords)} ρ={rho}", fontsize=8)
            ax.set_xlabel("step")
            if k == 0:
                ax.set_ylabel("simple regret")
                ax.legend(fontsize=6)


def _draw_rho(ds, spec, fig):
    sub_all = _cells(ds)
    groups = analysis.cells(sub_all["rho_hat"], ["seed", "step", "task"])
    for i, (coords, _) in enumerate(groups):  # one panel per pool (task family)
        ax = fig.add_subplot(1, len(groups), i + 1)
        sub = sub_all.sel(coords)
        for j in range(sub.sizes["task"]):
            c = sub.isel(task=j)
            plots.curves(ax, c["rho_hat"], "step", band="se", color=f"C{j}", label=f"ρ={float(c['rho']):g}")
            ax.axhline(float(c["rho"]), color=f"C{j}", ls=":", lw=0.8)
        ax.set_title(analysis.cell_label(coords), fontsize=8)
        ax.set_xlabel("observations")
        if i == 0:
            ax.set_ylabel("posterior mean ρ̂")
            ax.legend(fontsize=7)


DESCRIPTION = r"""
**What is run.** The paper trains a transformer on tasks from a *structured feedback
prior* (access, relevance, distortion) and uses it in context. This experiment runs the
exact Bayesian computation such a network is trained to imitate, for one source:
$f \sim \mathrm{GP}(0, k)$ on the pool, $a^\star = \rho f + \sqrt{1-\rho^2}\,g$,
$a = \varphi_w(a^\star) + \tau\varepsilon$ on a Bernoulli(0.75) access mask, and
$y = f + \sigma z$ ($\sigma^2 = \tau^2 = 0.01$, SE kernel, lengthscale 0.02 in 1-D and
0.1 in 2-D, known to the model). The model assumes $\varphi = \mathrm{id}$ and puts a
uniform prior on a 21-point grid of $\rho$; the grid posterior uses
$p(y_D \mid a, \rho)$ (the marginal of $a$ does not involve $\rho$), and the acquisition
is the posterior-weighted mixture of closed-form EIs. Without feedback the same code
runs with $\rho \equiv 0$; greedy-on-feedback evaluates the accessible points by
decreasing $a$. Regret ratios are ratios of seed means of the final simple regret
(not medians: on 50 tasks many final regrets are exactly 0, which makes a median ratio
undefined), bootstrapped on the same tasks (paired).

**Calibration.** Exact Bayes is calibrated *on average over the prior*, including the
prior over $\rho$: the sequential PIT values of the observations are then i.i.d.
uniform, whatever the adaptive choice of $x_t$. The coverage claim is therefore measured
on the six task cells where $\rho$ is drawn from the model's grid prior (6 × 50 independent
tasks × 25 observations per dimension). At a fixed $\rho$ coverage is not guaranteed (it is
about 0.93 at $\rho = 0.9$, where the grid posterior still spreads over smaller $\rho$).

**Warp.** With $w = 1.5$ the feedback $\sinh(1.5 a^\star)/1.5$ is a monotone but strongly
non-linear distortion; the Gaussian stand-in then learns a much smaller $|\hat\rho|$
(about −0.17 instead of −0.8 after 10 observations), i.e. it discounts the source.
"""

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
            "The pretrained transformer (4 layers, d = 128, prior-fitted-network loss) matches the "
            "exact posterior on prior tasks.",
            "FICBO beats GP-EI, a GP with feedback inputs and feedback-free in-context optimisers on "
            "Branin / Hartmann-6 with synthetic sources at T ∈ {10, 25, 50}.",
            "A linear probe on attention outputs recovers the sources' reliabilities in context.",
        ),
    ),
    simulator=fb.SIMULATOR,
    params={"access": 0.75},
    presets={
        "smoke": Preset(
            Space(
                pool=zipped(dim=static(1, 2), lengthscale=static(0.02, 0.1)),
                task=_TASK,
                seeds=50,
                paired=("task", "pool"),
            ),
            spec={"n": 256, "steps": 25, "probe": 10},
            description="CPU: 1-D and 2-D GP tasks (2 compiles), pool 256, T = 25, 10 task cells × 50 tasks.",
        ),
        "full": Preset(
            Space(
                pool=zipped(dim=static(1, 2, 4), lengthscale=static(0.02, 0.1, 0.25)),
                task=_TASK,
                seeds=1000,
                paired=("task", "pool"),
            ),
            spec={"n": 256, "steps": 50, "probe": 10},
            description="One accelerator: 1-, 2- and 4-D GP tasks, T = 50, 1000 tasks per cell.",
        ),
    },
    claims=[
        Claim.within(
            "calibrated-intervals",
            "90 % posterior predictive intervals cover 90 ± 2.5 % of the observations (exact Bayes: "
            "a calibration check), on tasks whose ρ is drawn from the model's grid prior; per task "
            "the fraction over its 25 observations, mean over tasks, per dimension.",
            _coverage,
            *COVERAGE,
            source="derived",
        ),
        # reconstruction: the abstract's statement, on the exact-Bayes stand-in for the
        # transformer; "effectively" is read as a 30 % lower regret, a threshold of ours.
        Claim.at_most(
            "informative-feedback-helps",
            "With an informative source (ρ = 0.9) the final simple regret (T = 25) is at least 30 % "
            "lower than without feedback: ratio of mean regrets ≤ 0.7. The threshold 0.7 is ours.",
            _gain,
            GAIN,
            source="reconstruction",
            quote="FICBO effectively exploits informative feedback",
            stand_in="GP draws on a 256-point Sobol pool in 1-D and 2-D, with one synthetic source, in place of the paper's synthetic and real-world tasks",
            over=None,
        ),
        # reconstruction: "robust" quoted from the abstract; the 10 % margin is ours.
        Claim.at_most(
            "robust-to-misleading",
            "With a misleading source (ρ = −0.8) the regret is at most 10 % worse than without "
            "feedback: ratio ≤ 1.1. The margin 10 % is ours.",
            _robust,
            ROBUST,
            source="reconstruction",
            quote="while remaining robust to weak or misleading sources",
            stand_in="GP draws on a 256-point Sobol pool in 1-D and 2-D, with one synthetic source, in place of the paper's synthetic and real-world tasks",
            over=None,
        ),
        # proposed: the abstract does not mention greedy-on-feedback; statement and 2x are ours.
        Claim.at_least(
            "greedy-on-feedback-fails",
            "At ρ = −0.8 greedy-on-feedback has at least twice the regret of no feedback (a "
            "baseline and a threshold of ours: what robustness is measured against).",
            _greedy,
            GREEDY_FAIL,
            source="proposed",
            over=None,
        ),
        # proposed, not derived: nothing derives robustness to a warp the model does not know;
        # an extension of ours towards the abstract's "distortion".
        Claim.at_most(
            "robust-under-monotone-warp",
            "At ρ = −0.8 seen through the monotone warp sinh(1.5 z)/1.5 (which the Gaussian model "
            "does not know) the regret is still at most 10 % worse than without feedback.",
            _robust_warped,
            ROBUST,
            source="proposed",
            over=None,
        ),
        # reconstruction: the abstract's in-context reliability estimate, on the stand-in's
        # posterior mean of ρ; the Spearman threshold 0.8 is ours.
        Claim.at_least(
            "reliability-in-context",
            "After 10 observations the posterior mean ρ̂ has Spearman correlation > 0.8 with the "
            "true ρ over the cells ρ ∈ {0.9, 0.3, −0.8} (pooled over tasks, tasks resampled). The "
            "threshold 0.8 is ours.",
            _spearman,
            SPEARMAN,
            source="reconstruction",
            quote="the model estimates source reliability in context by comparing observed objective "
            "values with auxiliary signals",
            stand_in="GP draws on a 256-point Sobol pool in 1-D and 2-D, with one synthetic source, in "
            "place of the paper's synthetic and real-world tasks",
            over=None,
        ),
    ],
    figures=[
        Figure(
            "regret",
            _draw_regret,
            "Simple regret against the step for feedback-aware EI, GP-EI without feedback and "
            "greedy-on-feedback, task mean ± one standard error, per dimension and ρ.",
        ),
        Figure(
            "rho_hat",
            _draw_rho,
            "Posterior mean ρ̂ against the number of observations (mean ± SE over tasks), one panel per "
            "task family; dotted: the true ρ.",
            size=(9.0, 3.6),
        ),
    ],
    description=DESCRIPTION,
)
