"""``program-bottleneck-tsp``: distil a TSP policy into a router-weighted portfolio of heuristics.

Checks the numerical core of arXiv:2606.19741 (Duan et al., "Interpreting Neural
Combinatorial Optimization via Evolving Programmatic Bottlenecks"), reconstructed from its
abstract: the LLM that writes and revises programs and the neural teachers are out
of scope; a fixed bank of six classic step heuristics, a 2-opt teacher, an MLP router
trained on the KL to the teacher, fault-targeted boosting with a parametric program and
pruning by router mass stand in. The simulator is
:mod:`jaxtheory.sims.functional.portfolio_tsp`.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, plots
from jaxtheory.sims.functional import portfolio_tsp as pt
from jaxtheory.sweep import Space

#: Our fidelity margin: the student's top-1 agreement beats the best single program by at
#: least 10 points (the abstract gives no number).
AGREEMENT_MARGIN = 0.10
#: Our reading of "largely match": the student's optimality gap within 2 points of the teacher's.
GAP_POINTS = 0.02
#: Stage dependence: mutual information of stage bin and the router's argmax program, bits
#: (our threshold for a strong dependence).
MI_BITS = 0.2
#: The weakest reading of "shifts across stages": the stage carries information about the
#: router's choice, MI at least ten times the plug-in bias (about 0.001 bits here).
MI_SHIFT_BITS = 0.01
#: Pruning to the top m programs loses less than this fraction of the fidelity gain.
PRUNE_LOSS = 0.10

_BANK = len(pt.PROGRAMS)


def _best_single(ds):
    """Per seed, the held-out agreement of the bank program with the best *training* agreement."""
    bank = ds["agree_train_program"].isel(program=slice(0, _BANK))
    best = bank.argmax("program")
    return ds["agree_program"].isel(program=best)


def _students(ds, prefix):
    return xr.concat([ds[f"{prefix}_base"], ds[f"{prefix}_final"]], dim="student").assign_coords(
        student=["bank6", "boosted"]
    )


def _identity(ds, spec):
    return {
        "probabilities": float(np.max(np.abs(ds["identity_prob_err"].values))),
        "tour lengths": float(np.max(np.abs(ds["identity_len_err"].values))),
    }


def _agreement_gain(ds, spec):
    """Per instance: student top-1 agreement minus the best single bank program's."""
    return _students(ds, "agree") - _best_single(ds)


def _gap(ds, spec):
    """Per instance: (L_student − L_teacher) / L_teacher."""
    return (_students(ds, "len") - ds["len_teacher"]) / ds["len_teacher"]


def _mi(ds, spec):
    """Per training seed: plug-in MI (bits) of stage bin × the router's argmax program."""
    c = ds["stage_counts"].sum("instance")
    return xr.apply_ufunc(pt.mutual_information_bits, c, input_core_dims=[["stage", "program"]])


def _kl_drop(ds, spec):
    """Per training seed: mean held-out KL before minus after each boosting round."""
    kl = ds["kl_boost"].mean("instance")
    r = kl.sizes["round"]
    if r < 2:
        raise NotApplicable("the preset runs no boosting round")
    drop = kl.isel(round=slice(0, -1)).values - kl.isel(round=slice(1, None)).values
    dims = list(kl.dims)
    coords = {d: kl[d].values for d in dims if d != "round"}
    coords["round"] = [f"{i}→{i + 1}" for i in range(r - 1)]
    return xr.DataArray(drop, dims=dims, coords=coords).rename(round="rounds")


def _prune_loss(ds, spec):
    """Per seed: (agree_final − agree_pruned) / (agree_final − agree_best_single), paired bootstrap."""
    seeds = ds["seed"].values.tolist()
    level = 1 - (1 - analysis.DEFAULT_LEVEL) / len(seeds)
    best = _best_single(ds)
    out = {}
    for s in seeds:
        arr = np.stack(
            [np.asarray(ds[v].sel(seed=s).values) for v in ("agree_final", "agree_pruned")]
            + [np.asarray(best.sel(seed=s).values)],
            axis=-1,
        )
        if arr[:, 0].mean() - arr[:, 2].mean() <= 0:
            raise NotApplicable(f"seed {s}: the boosted student gains nothing over the best program")

        def stat(b):
            m = b.mean(axis=1)
            return (m[..., 0] - m[..., 1]) / (m[..., 0] - m[..., 2])

        out[f"seed={s}"] = analysis.bootstrap(arr, stat, level=level)
    return out


def _draw_agreement(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    names = pt.program_names(spec)
    agree = ds["agree_program"].mean("instance")
    studs = {
        "student (bank 6)": ds["agree_base"].mean("instance"),
        "student (boosted)": ds["agree_final"].mean("instance"),
        f"pruned (top {spec.prune_keep})": ds["agree_pruned"].mean("instance"),
    }
    vals = [agree.sel(program=p) for p in names] + list(studs.values())
    labels = names + list(studs)
    m = np.array([float(v.mean()) for v in vals])
    lo = np.array([float(v.min()) for v in vals])
    hi = np.array([float(v.max()) for v in vals])
    xs = np.arange(len(labels))
    ax.bar(xs, m, color=["C0"] * _BANK + ["C1"] * spec.boost_rounds + ["C2"] * 3)
    ax.errorbar(xs, m, yerr=[m - lo, hi - m], fmt="none", color="k", lw=0.8)
    ax.set_xticks(xs, labels, rotation=45, ha="right", fontsize=7)
    ax.set_ylabel("top-1 agreement with the teacher")
    ax.set_ylim(0, 1)


def _kl_branches(ds, spec):
    """Mean held-out KL per round, boosting against the control branch."""
    kl = xr.concat([ds["kl_boost"], ds["kl_control"]], "branch").mean("instance")
    return kl.assign_coords(branch=["boosting", "control (same router steps, no new program)"])


def _draw_stages(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    c = ds["stage_counts"].sum(["instance", "seed"])
    c = c.isel(program=slice(0, _BANK)).transpose("stage", "program").values.astype(float)
    frac = c / np.maximum(c.sum(axis=1, keepdims=True), 1)
    im = ax.imshow(frac, aspect="auto", cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(np.arange(_BANK), list(pt.PROGRAMS), rotation=30, ha="right", fontsize=7)
    ax.set_yticks(np.arange(spec.n_stages), [f"stage {i + 1}" for i in range(spec.n_stages)], fontsize=7)
    fig.colorbar(im, ax=ax, label="fraction of states where the router's argmax is the program")


DESCRIPTION = r"""
**A toy of the paper's mechanism, not the paper's system.** Uniform TSP instances in
$[0,1]^2$; every tour starts at city 0. The *teacher* is best-improvement 2-opt from the
nearest-neighbour tour with a fixed budget of moves (the fraction of teacher tours with no
improving move left is the metric `teacher_converged`), oriented so that its second city is
the nearer neighbour of city 0; its next-city policy $\pi_T(a\mid s)$ along its own tour is
one-hot, so $\mathrm{KL}(\pi_T\|\pi_S) = -\log\pi_S(a_T\mid s)$. The paper's teacher is a
neural constructive policy (POMO-like), which we cannot load offline.

The *bank* (the paper's LLM-written programs) is six hand-written step heuristics, each a
softmax at temperature $\tau$ over the unvisited cities: nearest neighbour, nearest to the
start, counter-clockwise angular sweep around the centroid, farthest from the partial
tour, a cheapest-insertion proxy $d_{cj} + d_{j0} - d_{c0}$, and regret-2. The *student* is
$\pi_S(a\mid s) = \sum_k r_\psi(s)_k\,\pi_k(a\mid s)$ with a tanh MLP router over 17 state
features (visited fraction, coordinates of the current and start city, centroid of the
unvisited cities, distance statistics, each program's top-1/top-2 margin), trained by
Adam on minibatches of teacher states. *Boosting* (the paper's fault-targeted program
addition) fits a parametric program $\mathrm{softmax}(\theta\cdot\text{scores})$ (a product
of the bank's experts) by Adam on the 5 % of training states with the largest KL, adds it
and trains the router further; a *control* branch trains the router for the same number of
steps without new programs. *Pruning* keeps the $m$ programs of largest mean router weight
and fine-tunes. The LLM's textual revisions of programs are not modelled.

Every statistic is measured on held-out instances (teacher-forced states for agreement, KL
and the stage/argmax table; greedy `lax.scan` rollouts for tour lengths). Agreement, gap
and pruning are bootstrapped over the 512 held-out instances with each training seed a
cell (Bonferroni over seeds): those intervals cover the instance sampling for a fixed
trained router, not the training randomness, and the seeds show whether a verdict repeats
across trainings. The stage mutual information and the boosting drops vary more between
trainings than within one, so their sample is the training seed (each seed draws its own
instances and trains its own router): the smoke's two seeds leave them inconclusive, the
`medium` preset's 16 decide. The "best single program" is
the bank program with the best *training* agreement (selection on held-out data would
bias the comparison). The optimum of TSP20 is not computed: the gap is measured against
the teacher, $(L_S - L_T)/L_T$, which is the difference of optimality gaps up to the
factor $L_T/L^\star \ge 1$ (2-opt on TSP20 is within a few percent of optimal).

**Findings** (the `medium` preset: the smoke spec on 16 training seeds). Every teacher tour
is 2-opt-converged. Of the programs alone, nearest neighbour agrees best with the teacher
(about 82 % of held-out states), then regret-2 (76 %); the KL-trained student on the bank
of six agrees as often as nearest neighbour, within half a point on every seed: a mixture
fitted by likelihood does not raise the top-1 agreement. Two boosting rounds add 1.5–3
points, pruning to three programs (always nearest, regret-2 and the first boosted one)
keeps them, so the 10-point fidelity margin is far out of reach. Greedy student tours are
about 14 % (bank of six) and 9 % (boosted) longer than the teacher's, against 16 % for
nearest neighbour alone: better than any program, but not within 2 points of the teacher.

**Stage dependence, smoke against medium.** The plug-in mutual information of stage bin
and the router's argmax program is computed once per training seed, and its spread comes
from training (each seed draws its own instances and trains its own router), so the
training seed is the sample. The smoke's two seeds form no interval (fewer than 8), so
both stage claims are undecided there; the medium preset's 16 seeds decide them. The MI
lies between 0.15 and 0.22 bits across the 16 trainings, with a mean near 0.18: far
above the plug-in bias, so the router's choice does shift with the stage (the quoted
statement, under our reconstruction), but below the 0.2 bits we proposed as a strong
dependence. The smoke's two seeds (0.17 and 0.22) happen to straddle 0.2, which is why
the smoke could not see it.

**Boosting and pruning.** The first boosting round lowers the held-out KL (from about
0.75 to 0.68 nats, while the control branch without a new program does not move); the
second changes it by less than its noise: the router gives the second boosted program
almost no mass, although on its own it agrees with the teacher more often than any bank
program. Pruning loses nothing (fine-tuning on three programs helps, on every seed), but
with one Bonferroni cell of 512 instances per seed, the 16 cells of the medium preset
leave some intervals reaching above the 10 % bound.
"""

_SMOKE = {
    "n_nodes": 20,
    "n_train": 512,
    "n_test": 512,
    "hidden": 64,
    "depth": 2,
    "train_steps": 2000,
    "batch": 512,
    "boost_rounds": 2,
}

EXPERIMENT = Experiment(
    name="program-bottleneck-tsp",
    paper=Paper(
        title="Interpreting Neural Combinatorial Optimization via Evolving Programmatic Bottlenecks",
        arxiv="2606.19741",
        authors="Haocheng Duan, Yuxin Guo, Jieyi Bi, Anqi Xie, Sirui Li, Yining Ma, Cathy Wu",
        found=False,
        banner="A toy of the mechanism: a fixed bank of six hand-written heuristics "
        "stands in for the LLM-evolved programs and 2-opt tours for the neural teacher; "
        "the thresholds are ours, not numbers from the paper.",
        unverified=(
            "Distilled program portfolios largely match the neural teacher's performance on "
            "TSP and CVRP (no numbers retrieved).",
            "The teacher's behaviour shifts across construction stages and resembles a "
            "composition of classic heuristic variants.",
            "Hybrid numerical/textual gradient steps (TextGrad-style LLM revisions of the "
            "programs on high-KL states) improve the portfolio's fidelity.",
            "Fault-targeted boosting and redundancy pruning adapt the bank size without "
            "losing fidelity, for POMO-like teachers on TSP and CVRP.",
        ),
    ),
    simulator=pt.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(seeds=2),
            spec=_SMOKE,
            description="CPU, one compile: TSP20, 512 training and 512 held-out instances, bank of "
            "6, 2×64 router, 2000 Adam steps, 2 boosting rounds; 2 training seeds, each a cell "
            "of 512 held-out instances.",
        ),
        "medium": Preset(
            Space(seeds=16),
            spec=_SMOKE,
            description="CPU, a few minutes: the smoke spec on 16 training seeds, the sample the "
            "stage-dependence and boosting claims are decided on.",
        ),
        "full": Preset(
            Space(seeds=16),
            spec={
                "n_nodes": 50,
                "n_train": 4096,
                "n_test": 4096,
                "train_steps": 20000,
                "batch": 4096,
                "boost_rounds": 4,
                "round_steps": 3000,
                "boost_steps": 1000,
                "prune_keep": 4,
                "prune_steps": 3000,
                "two_opt_moves": 256,
            },
            description="One accelerator: TSP50, 4096 + 4096 instances, 20k router steps, 4 "
            "boosting rounds, 16 training seeds.",
        ),
    },
    claims=[
        Claim.identity(
            "one-hot-router-is-the-program",
            "With a one-hot router e_k the student's mixture is program k exactly (1·π_k + 0·π_j = "
            "π_k in floating point): the largest difference of action probabilities over every "
            "held-out state and bank program, and of greedy tour lengths (the same rollout code "
            "with the router replaced by e_k against program k's own rollout), is 0.",
            _identity,
            0.0,
            source="sanity",
        ),
        # Proposed: no sentence of the abstract compares the portfolio with its best single
        # program; the 10-point margin is ours.
        Claim.at_least(
            "top1-beats-best-program",
            "Fidelity: the student's held-out top-1 agreement with the teacher exceeds the best "
            "single bank program's (chosen on training agreement) by at least 10 points, per "
            "instance and bootstrapped over held-out instances, for the student on the bank "
            "of six and after boosting. The margin is ours.",
            _agreement_gain,
            AGREEMENT_MARGIN,
            source="proposed",
            over="instance",
        ),
        # Reconstruction: the abstract states the match; the bank of heuristics and the teacher
        # are ours, and so is the 2-point reading of "largely".
        Claim.at_most(
            "gap-near-teacher",
            "Under our reconstruction, the student's greedy tours largely match the teacher's: "
            "within 2 points of its optimality gap, (L_S − L_T)/L_T ≤ 0.02, mean over held-out "
            "instances. The 2-point threshold is ours.",
            _gap,
            GAP_POINTS,
            source="reconstruction",
            quote="the interpreted program portfolios largely match original performance",
            over="instance",
        ),
        # Reconstruction: the abstract's stage shift in its weakest reading (the stage carries
        # information about the router's choice); the strong form below keeps our 0.2 bits.
        Claim.at_least(
            "stage-shift",
            "Under our reconstruction, the router's behaviour shifts across construction "
            "stages: the plug-in mutual information of stage bin (4 bins of the visited "
            "fraction) and the router's argmax program on held-out teacher states is at least "
            f"{MI_SHIFT_BITS} bits, ten times the plug-in bias (I−1)(J−1)/(2N ln 2) ≈ 0.001 bits "
            "at N ≈ 9000 states; the sample is the training seed. The threshold is ours.",
            _mi,
            MI_SHIFT_BITS,
            source="reconstruction",
            quote="EPB also reveals that NCO behavior shifts across optimization stages",
        ),
        # Proposed: 0.2 bits is our threshold for a strong dependence, not the paper's.
        Claim.at_least(
            "stage-dependence",
            "The router's argmax program depends on the construction stage: the plug-in mutual "
            "information of stage bin (4 bins of the visited fraction) and argmax program on "
            "held-out teacher states exceeds 0.2 bits (the plug-in bias (I−1)(J−1)/(2N ln 2) is "
            "about 0.001 bits at N ≈ 9000 states). The sample is the training seed (each seed "
            "draws its own instances and trains its own router): the MI varies more between "
            "trainings than within one, so fewer than 8 seeds leave it undecided. The 0.2-bit "
            "threshold is ours.",
            _mi,
            MI_BITS,
            source="proposed",
        ),
        Claim.at_least(
            "boosting-lowers-kl",
            "Each boosting round lowers the held-out KL: mean held-out KL before minus after "
            "the round is positive, over training seeds (the second round's drop changes sign "
            "between trainings, so the sample is the seed). Each round also adds router steps; "
            "the control branch (same steps, no new program) is in the KL figure.",
            _kl_drop,
            0.0,
            source="proposed",
        ),
        Claim.at_most(
            "pruning-keeps-gain",
            "Pruning to the top-m programs by router mass (then fine-tuning) loses less than 10 % "
            "of the fidelity gain: (agree_boosted − agree_pruned)/(agree_boosted − agree_best_single) "
            "< 0.1, paired bootstrap over held-out instances.",
            _prune_loss,
            PRUNE_LOSS,
            source="proposed",
        ),
    ],
    figures=[
        Figure(
            "agreement",
            _draw_agreement,
            "Held-out top-1 agreement with the 2-opt teacher of every program on its own "
            "(blue: bank, orange: boosted), of the students and of the pruned student; bars "
            "are seed means, whiskers the range over seeds.",
        ),
        Figure(
            "boosting_kl",
            plots.curves(
                _kl_branches,
                x="round",
                hue="branch",
                band="se",
                marker="o",
                xlabel="boosting round",
                ylabel="held-out KL(π_T ‖ π_S) (nats)",
            ),
            "Held-out KL after each boosting round against a control that trains the router "
            "for the same steps without new programs; band: ± one standard error over seeds.",
        ),
        Figure(
            "stages",
            _draw_stages,
            "Which bank program the base router weights most, by construction stage "
            "(rows sum to 1, all seeds).",
        ),
    ],
    description=DESCRIPTION,
)
