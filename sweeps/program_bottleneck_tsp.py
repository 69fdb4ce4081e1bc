r"""``program-bottleneck-tsp``: distil a TSP policy into a router-weighted portfolio of heuristics.

TSP instances are uniform in $[0,1]^2$; tours start at city 0. The *teacher* is best-improvement 2-opt from
the nearest-neighbour tour with a budget of moves (the fraction of tours with no improving move left is
`teacher_converged`), oriented so that its second city is the nearer neighbour of city 0; its next-city policy
along its own tour is one-hot, so $\mathrm{KL}(\pi_T\|\pi_S) = -\log\pi_S(a_T\mid s)$. The *bank* (the paper's
LLM-written programs) is six step heuristics, each a softmax at temperature $\tau$ over the unvisited cities:
nearest neighbour, nearest to the start, angular sweep around the centroid, farthest from the partial tour, a
cheapest-insertion proxy $d_{cj} + d_{j0} - d_{c0}$, regret-2. The *student* is $\pi_S(a\mid s) = \sum_k
r_\psi(s)_k\,\pi_k(a\mid s)$ with a tanh MLP router over 17 state features, trained by Adam on teacher states.
*Boosting* fits a parametric program $\mathrm{softmax}(\theta\cdot \text{scores})$ on the 5 % of training
states with the largest KL, adds it and trains the router further; a *control* branch trains for the same
steps without it. *Pruning* keeps the $m$ programs of largest mean router weight and fine-tunes.

Every statistic is measured on held-out instances (teacher-forced states; greedy rollouts for tour lengths).
Agreement, gap and pruning are bootstrapped over the 512 held-out instances, each training seed a cell: the
intervals cover the instance sampling for a fixed router, the seeds show whether a verdict repeats across
trainings. The stage mutual information and the boosting drops vary more between trainings than within one, so
their sample is the training seed: the smoke's two seeds leave them inconclusive, the `medium` preset's 16
decide. The gap is against the teacher, $(L_S - L_T)/L_T$ (2-opt on TSP20 is within a few percent of optimal).

**Findings** (`medium`). Every teacher tour is 2-opt-converged. Nearest neighbour agrees best with the teacher
(about 82 % of held-out states), then regret-2 (76 %); the student on the bank of six agrees as often as
nearest neighbour, within half a point on every seed: a mixture fitted by likelihood does not raise top-1
agreement. Two boosting rounds add 1.5–3 points and pruning to three programs (nearest, regret-2, the first
boosted one) keeps them: the 10-point margin is far out of reach. Student tours are about 14 % (bank of six)
and 9 % (boosted) longer than the teacher's, nearest neighbour's 16 %. The stage MI lies in 0.15–0.22 bits
across the 16 trainings (mean near 0.18): far above the plug-in bias, below the 0.2 bits we proposed as strong
(the smoke's 0.17 and 0.22 straddle it). The first boosting round lowers the held-out KL (about 0.75 to 0.68
nats; the control does not move); the second changes it by less than its noise: the router gives the second
boosted program almost no mass, though alone it agrees with the teacher more often than any bank program.
Pruning loses nothing (fine-tuning on three programs helps), but with 16 Bonferroni cells of 512 instances
some medium intervals reach above the 10 % bound.
"""

from __future__ import annotations

import pandas as pd
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, Region, Stat, plots
from jaxtheory.sims.functional import portfolio_tsp as pt
from jaxtheory.sweep import Space

AGREEMENT_MARGIN = 0.10  # the student's top-1 agreement beats the best program by 10 points (ours)
GAP_POINTS = 0.02  # our reading of "largely match": within 2 points of the teacher's gap
MI_BITS = 0.2  # stage bin × argmax program mutual information of a strong dependence (ours)
MI_SHIFT_BITS = 0.01  # "shifts across stages": ten times the plug-in bias (about 0.001 bits)
PRUNE_LOSS = 0.10  # pruning loses less than this fraction of the fidelity gain


def _best_single(ds):
    """Per seed, the held-out agreement of the bank program with the best *training* agreement."""
    best = ds["agree_train_program"].isel(program=slice(0, len(pt.PROGRAMS))).argmax("program")
    return ds["agree_program"].isel(program=best)


def _students(ds, prefix):
    both = [ds[f"{prefix}_base"], ds[f"{prefix}_final"]]
    return xr.concat(both, pd.Index(["bank6", "boosted"], name="student"))


def _mi(ds, spec):
    """Per training seed: plug-in MI (bits) of stage bin × the router's argmax program."""
    c = ds["stage_counts"].sum("instance")
    return xr.apply_ufunc(pt.mutual_information_bits, c, input_core_dims=[["stage", "program"]])


def _kl_drop(ds, spec):
    """Per training seed: mean held-out KL before minus after each boosting round."""
    drop = -ds["kl_boost"].mean("instance").diff("round", label="lower").rename(round="rounds")
    return drop.assign_coords(rounds=[f"{i}→{i + 1}" for i in range(drop.sizes["rounds"])])


def _prune_loss(ds, spec):
    """Per instance: agree_final − agree_pruned, and agree_final − agree_best_single (their mean ratio)."""
    gain = ds["agree_final"] - _best_single(ds).drop_vars("program")
    if (none := ds["seed"].values[(gain.mean("instance") <= 0).values]).size:
        raise NotApplicable(f"seed {none[0]}: the boosted student gains nothing over the best program")
    return ds["agree_final"] - ds["agree_pruned"], gain


def _agreement(ds, spec):
    """Per seed: mean held-out agreement of every program alone, of the students and of the pruned one."""
    studs = {"student (bank 6)": "agree_base", "student (boosted)": "agree_final"}
    studs[f"pruned (top {spec.prune_keep})"] = "agree_pruned"
    rows = [ds["agree_program"].rename(program="policy")]
    rows += [ds[v].expand_dims(policy=[k]) for k, v in studs.items()]
    return xr.concat(rows, "policy", coords="minimal").mean("instance")


def _kl_branches(ds, spec):
    kl = xr.concat([ds["kl_boost"], ds["kl_control"]], "branch").mean("instance")
    return kl.assign_coords(branch=["boosting", "control (same router steps, no new program)"])


def _stage_fractions(ds, spec):
    """Per stage: the fraction of states where the base router's argmax is each bank program."""
    c = ds["stage_counts"].sum(["instance", "seed"]).isel(program=slice(0, len(pt.PROGRAMS)))
    return c / c.sum("program").clip(min=1)


_SMOKE = dict(n_nodes=20, n_train=512, n_test=512, hidden=64, depth=2, train_steps=2000, batch=512)
_SMOKE.update(boost_rounds=2)
_FULL = dict(n_nodes=50, n_train=4096, n_test=4096, train_steps=20000, batch=4096, boost_rounds=4)
_FULL.update(round_steps=3000, boost_steps=1000, prune_keep=4, prune_steps=3000, two_opt_moves=256)

EXPERIMENT = Experiment(
    name="program-bottleneck-tsp",
    paper=Paper(
        title="Interpreting Neural Combinatorial Optimization via Evolving Programmatic Bottlenecks",
        arxiv="2606.19741",
        authors="Haocheng Duan, Yuxin Guo, Jieyi Bi, Anqi Xie, Sirui Li, Yining Ma, Cathy Wu",
        found=False,
        banner="A toy of the mechanism: a fixed bank of six hand-written heuristics stands in for the "
        "LLM-evolved programs and 2-opt tours for the neural teacher; the thresholds are ours.",
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
            description="CPU, a few minutes: the smoke spec on 16 training seeds.",
        ),
        "full": Preset(
            Space(seeds=16),
            spec=_FULL,
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
            lambda ds, spec: {k: ds[f"identity_{k}_err"] for k in ("prob", "len")},
            0.0,
            source="sanity",
        ),
        # no sentence of the abstract compares the portfolio with its best single program
        Claim.at_least(
            "top1-beats-best-program",
            "Fidelity: the student's held-out top-1 agreement with the teacher exceeds the best "
            "single bank program's (chosen on training agreement) by at least 10 points, per "
            "instance and bootstrapped over held-out instances, for the student on the bank "
            "of six and after boosting. The margin is ours.",
            lambda ds, spec: _students(ds, "agree") - _best_single(ds),  # per instance
            AGREEMENT_MARGIN,
            source="proposed",
            over="instance",
        ),
        Claim.at_most(
            "gap-near-teacher",
            "Under our reconstruction, the student's greedy tours largely match the teacher's: "
            "within 2 points of its optimality gap, (L_S − L_T)/L_T ≤ 0.02, mean over held-out "
            "instances. The 2-point threshold is ours.",
            lambda ds, spec: (_students(ds, "len") - ds["len_teacher"]) / ds["len_teacher"],
            GAP_POINTS,
            source="reconstruction",
            quote="the interpreted program portfolios largely match original performance",
            over="instance",
        ),
        Claim.at_least(
            "stage-shift",
            "Under our reconstruction, the router's behaviour shifts across construction stages: the "
            "plug-in mutual information of stage bin (4 bins of the visited fraction) and the router's "
            f"argmax program on held-out teacher states is at least {MI_SHIFT_BITS} bits, ten times the "
            "plug-in bias (I−1)(J−1)/(2N ln 2) ≈ 0.001 bits at N ≈ 9000 states. The threshold is ours.",
            _mi,
            MI_SHIFT_BITS,
            source="reconstruction",
            quote="EPB also reveals that NCO behavior shifts across optimization stages",
        ),
        Claim.at_least(
            "stage-dependence",
            "The router's argmax program depends on the construction stage: the plug-in mutual information "
            "of stage bin and argmax program (as in stage-shift, over training seeds) exceeds 0.2 bits. The "
            "0.2-bit threshold is ours.",
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
        Claim(
            "pruning-keeps-gain",
            "Pruning to the top-m programs by router mass (then fine-tuning) loses less than 10 % "
            "of the fidelity gain: (agree_boosted − agree_pruned)/(agree_boosted − agree_best_single) "
            "< 0.1, paired bootstrap over held-out instances.",
            Stat.ratio(_prune_loss, over="instance"),
            Region.at_most(PRUNE_LOSS),
            source="proposed",
        ),
    ],
    figures=[
        Figure(
            "agreement",
            plots.intervals(_agreement, xlabel="top-1 agreement with the teacher"),
            "Held-out top-1 agreement with the 2-opt teacher of every program on its own (bank, then "
            "boosted), of the students and of the pruned student: seed means with bootstrap intervals.",
        ),
        Figure(
            "boosting_kl",
            plots.curves(
                _kl_branches, x="round", hue="branch", band="se", marker="o", ylabel="held-out KL (nats)"
            ),
            "Held-out KL after each boosting round against a control that trains the router "
            "for the same steps without new programs; band: ± one standard error over seeds.",
        ),
        Figure(
            "stages",
            plots.heatmap(_stage_fractions, x="program", y="stage", vmin=0, vmax=1, clabel="fraction"),
            "Which bank program the base router weights most, by construction stage "
            "(rows sum to 1, all seeds).",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
