"""``tom-heads-toy``: theory-of-mind "divergence heads", a 2-layer toy of the patching + RSA pipeline.

The paper was not found (only its abstract was read): heads of Qwen2.5-14B-Instruct track the divergence
between a stored representation (an agent's belief, or a photograph) and the current
world, and mediate the answer in both. The 14B model cannot be run here; this experiment
builds the most faithful small model of that mechanism: a 2-layer attention-only
transformer (:mod:`jaxtheory.sims.nets.transformer`) trained on belief / photo vignettes
whose answer is that divergence (:mod:`jaxtheory.sims.nets.tom`), analysed with the
model-agnostic patching and RSA statistics of :mod:`jaxtheory.sims.nets.interp`, beside
a model with a hand-planted divergence head (the pipeline's ground truth).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, plots
from jaxtheory.sims.nets import interp, tom
from jaxtheory.sweep import Space

#: A trained seed counts as having learned the task at this test accuracy.
LEARNED = 0.95
#: The planted head's RSA correlation with the divergence model RDM must exceed this (ours).
RSA_MIN = 0.8
#: "≈ 0": the seed-mean RSA correlation under shuffled vignette labels lies in ±this (ours).
NULL_TOL = 0.1
#: Significance level of the emergent mediator's effect in each kind (the usual 1 %, ours).
ALPHA = 0.01
#: Shuffles of the vignette labels per seed for the null RSA.
N_SHUFFLES = 50
#: Monte-Carlo sign patterns of the mediator test (p is at least 1 / (1 + N_FLIPS)).
N_FLIPS = 9999

_MODEL = interp.model_rdm(tom.CONDITIONS["divergence"])
_CACHE: dict[int, tuple] = {}


def _planted_index(spec) -> int:
    layer, head = tom.PLANTED_HEAD
    return layer * spec.n_heads + head


def _seeds(ds, spec):
    """Per-seed host statistics of both models (computed once per results object)."""
    hit = _CACHE.get(id(ds))
    if hit is not None and hit[0] is ds:
        return hit[1]
    n_seeds = ds.sizes["seed"]
    planted = _planted_index(spec)
    rows = []
    for s in range(n_seeds):
        one = ds.isel(seed=s)
        kind = np.asarray(one["pair_kind"].values).astype(int)
        cond = np.asarray(one["condition"].values).astype(int)
        row = {}
        for m in tom.MODELS:
            eff = interp.normalized_effects(
                one[f"{m}_patched"].values, one[f"{m}_clean"].values, one[f"{m}_corrupt"].values
            )
            reps = np.asarray(one[f"{m}_reps"].values, float)
            row[f"{m}_effect"] = eff.mean(0)
            row[f"{m}_rsa"] = np.array(
                [interp.rsa(reps[:, h], cond, _MODEL, method="pearson") for h in range(reps.shape[1])]
            )
            row[f"{m}_accuracy"] = float(one[f"{m}_accuracy"])
            if m == "planted":
                row["planted_top"] = int(np.argmax(eff.mean(0)))
                row["planted_spearman"] = interp.rsa(reps[:, planted], cond, _MODEL, method="spearman")
                row["planted_shuffled"] = float(
                    interp.shuffled_rsa(
                        reps[:, planted], cond, _MODEL, n_shuffles=N_SHUFFLES, seed=s, method="pearson"
                    ).mean()
                )
            else:
                # select the top mediator on the even pairs, test it on the odd ones
                select = np.arange(eff.shape[0]) % 2 == 0
                top = int(np.argmax(eff[select].mean(0)))
                row["trained_top"] = top
                for k, name in enumerate(tom.KINDS):
                    x = eff[~select & (kind == k), top]
                    row[f"trained_p_{name}"] = interp.sign_flip_test(x, n_perm=N_FLIPS, seed=s)
                    row[f"trained_effect_{name}"] = float(x.mean())
        rows.append(row)
    _CACHE.clear()
    _CACHE[id(ds)] = (ds, rows)
    return rows


def _seed_da(ds, spec, key):
    return xr.DataArray([r[key] for r in _seeds(ds, spec)], dims=["seed"])


def _planted_not_first(ds, spec):
    planted = _planted_index(spec)
    return sum(int(r["planted_top"] != planted) for r in _seeds(ds, spec))


def _planted_rsa(ds, spec):
    planted = _planted_index(spec)
    return xr.DataArray([r["planted_rsa"][planted] for r in _seeds(ds, spec)], dims=["seed"])


def _shuffled(ds, spec):
    return _seed_da(ds, spec, "planted_shuffled")


def _accuracy(ds, spec):
    return _seed_da(ds, spec, "trained_accuracy")


def _emergent_p(ds, spec):
    """Per kind: the largest p-value of the top mediator over the seeds that learned the task."""
    every = _seeds(ds, spec)
    rows = [r for r in every if r["trained_accuracy"] >= LEARNED]
    out = {}
    for name in tom.KINDS:
        if len(rows) < analysis.MIN_SAMPLE:
            # too few models learned the task to speak of "the" toy's mediator: undecided,
            # with the largest p-value over all seeds as the evidence shown
            worst = max(r[f"trained_p_{name}"] for r in every)
            out[f"kind={name}"] = analysis.Estimate(worst, float("nan"), float("nan"), len(rows), "none")
        else:
            worst = max(r[f"trained_p_{name}"] for r in rows)
            out[f"kind={name}"] = analysis.Estimate(worst, n=len(rows))
    return out


def _grid(values, n_layers):
    v = np.asarray(values, float).reshape(n_layers, -1)
    return xr.DataArray(
        v, dims=["layer", "head"], coords={"layer": np.arange(n_layers), "head": np.arange(v.shape[1])}
    )


def _draw_patching(ds, spec, fig):
    rows = _seeds(ds, spec)
    ax = fig.add_subplot(1, 2, 1)
    mean = np.mean([r["planted_effect"] for r in rows], axis=0)
    plots.heatmap(
        ax, _grid(mean, spec.n_layers), "head", "layer", cmap="magma", label="normalised indirect effect"
    )
    ax.set_xticks(np.arange(spec.n_heads))
    ax.set_yticks(np.arange(spec.n_layers))
    ax.set_title("planted: clean→corrupted patching (seed mean)", fontsize=9)
    # head identities are arbitrary across trained seeds: rank the heads within each seed
    ax = fig.add_subplot(1, 2, 2)
    ranked = np.sort([r["trained_effect"] for r in rows], axis=1)[:, ::-1]
    k = np.arange(1, ranked.shape[1] + 1)
    se = ranked.std(0, ddof=1) / np.sqrt(ranked.shape[0]) if ranked.shape[0] > 1 else None
    ax.bar(k, ranked.mean(0), yerr=se, color="C1", label="all pairs")
    for j, name in enumerate(tom.KINDS):
        held = [r[f"trained_effect_{name}"] for r in rows]
        ax.plot(
            [1 + 0.15 * (2 * j - 1)] * len(held),
            held,
            "o",
            ms=3,
            color=f"C{2 + j}",
            label=f"top head, held-out {name}",
        )
    ax.set_xlabel("head rank within its seed")
    ax.set_ylabel("normalised indirect effect")
    ax.set_title("trained: heads ranked within each seed", fontsize=9)
    ax.legend(fontsize=6)


def _draw_rsa(ds, spec, fig):
    rows = _seeds(ds, spec)
    ax = fig.add_subplot(1, 2, 1)
    n = len(rows[0]["planted_rsa"])
    for j, m in enumerate(tom.MODELS):
        r = np.array([row[f"{m}_rsa"] for row in rows])
        se = r.std(0, ddof=1) / np.sqrt(r.shape[0]) if r.shape[0] > 1 else np.zeros(n)
        ax.bar(np.arange(n) + 0.4 * j - 0.2, r.mean(0), 0.4, yerr=se, label=m, color=f"C{j}")
    shuf = np.array([row["planted_shuffled"] for row in rows])
    ax.axhline(shuf.mean(), color="k", ls=":", lw=1, label="planted head, shuffled labels")
    ax.axhline(RSA_MIN, color="C3", ls="--", lw=0.8)
    ax.set_xticks(
        np.arange(n),
        [f"L{h // (n // spec.n_layers)}H{h % (n // spec.n_layers)}" for h in range(n)],
        fontsize=7,
    )
    ax.set_ylabel("RSA r with the divergence RDM (Pearson)")
    ax.legend(fontsize=6)
    ax2 = fig.add_subplot(1, 2, 2)
    plots.curves(ax2, ds["loss"], "step", band="iqr", log=(False, True), color="C1")
    ax2.set_xlabel("Adam step")
    ax2.set_ylabel("trained model's batch loss (median, IQR)")


DESCRIPTION = r"""
**The task.** Every vignette is 7 tokens, `BOS who KIND stored filler filler world`,
with `KIND` a belief ("Sally thinks the ball is in ...") or a photograph ("the camera's
photo shows the ball in ..."), `stored` the location the representation holds and
`world` the ball's location now (4 locations). The model must answer at the last
position `FALSE` (the representation is outdated: `stored ≠ world`) or `TRUE`: the answer
is exactly the divergence between a stored representation and the current world token,
in both kinds: the domain-general divergence detector the abstract describes. Minimal pairs differ
only in the world token (changed → clean, unchanged → corrupted).

**The models.** A 2-layer attention-only transformer ($d = 32$, 4 heads of width 8 per
layer, no MLP, no layer norm) trained with Adam ($10^{-2}$, 300 steps of 64 fresh
vignettes) vmapped over seeds, and a *planted* model: one-hot embeddings (plus 0.02 N(0, 1) noise), head L0H0 set
by hand to attend from the world token to an earlier copy of it (or to `BOS` when there
is none) and write ±1 on an answer direction, every other head random (0.3 × the init
scale).

**The pipeline** (`jaxtheory.sims.nets.interp`, arrays in, statistics out). Activation
patching: each head's output (all positions) from the clean run replaces its output in
the corrupted run; the change of $\mathrm{logit}(\mathtt{FALSE}) - \mathrm{logit}(\mathtt{TRUE})$
over the mean total effect is the head's normalised indirect effect. For the trained
model the top mediator is chosen on half of the 128 pairs and tested on the other half,
per kind (32 pairs each), with a one-sided sign-flip permutation test. RSA: the heads'
last-position outputs are averaged over 8 conditions (kind × stored ∈ {L0, L1} × world
∈ {L0, L1}, 16 vignettes each); their Euclidean RDM is correlated (Pearson) with the
divergence model RDM $|d_i - d_j|$; the null shuffles which vignette belongs to which
condition (50 shuffles per seed). A Spearman RSA against a binary model RDM is capped
well below 1 (ties: 16 of the 28 pairs differ, so the rank correlation of a perfect
separation is $\approx 0.86$), which is why the 0.8 threshold is applied to Pearson.

**What the smoke runs show beyond the verdicts.** The planted head L0H0 ranks first in
every seed with essentially all of the effect, and every trained seed learns the task. The
emergent solution is distributed: the top mediator (in layer 0 in some seeds, layer 1 in
others) restores a part of the total effect on the held-out pairs, about equally in both
kinds, with p at the Monte-Carlo floor in each kind and seed. Its own last-position RSA with
the divergence RDM ranges from weak to strong: the strongest causal mediator (patched at
all positions) is not always the head whose final-position output encodes the divergence,
so the two analyses answer different questions even in the toy.

**What this does not test.** Nothing here is about Qwen2.5-14B: the paper's own claims
are listed on this page without a verdict. The toy checks that the bookkeeping recovers a known
mediator, and whether a trained toy grows one that works for both kinds.
"""

EXPERIMENT = Experiment(
    name="tom-heads-toy",
    paper=Paper(
        title="Theory-of-mind heads in Qwen2.5-14B-Instruct reuse a domain-general divergence detector",
        found=False,
        banner="The paper was not found (no arXiv id, authors or code; it is reconstructed "
        "from its abstract and the related work of Prakash et al., arXiv:2505.14685). A 14B model "
        "cannot run here: every verdict on this page is about a 2-layer toy transformer "
        "(sources sanity and toy), not about Qwen.",
        unverified=(
            "Mid-layer heads of Qwen2.5-14B-Instruct track the divergence between an initial "
            "representation and the current world state, with significant indirect effects in both "
            "the belief and the photograph conditions (permutation p < 0.01).",
            "Later-layer heads retrieve the answer token.",
            "The two populations are dissociable: answer-retrieval heads keep their effect when the "
            "divergence heads are ablated.",
            "They compose: patching both populations is within 20% of the combined single-population "
            "effects in logit-difference space.",
        ),
    ),
    simulator=tom.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(seeds=10),
            description="CPU, under a minute: 10 seeds (one compile; two to spare above the 8 learned "
            "models the emergent claim needs), 300 Adam steps, 64 minimal pairs per kind, 16 vignettes "
            "per RSA condition.",
        ),
        "full": Preset(
            Space(seeds=128),
            spec={"steps": 1000, "n_pairs": 256, "n_rsa": 64},
            description="One accelerator: 128 seeds, 1000 Adam steps, 256 pairs per kind, 64 vignettes "
            "per condition.",
        ),
    },
    claims=[
        Claim.equals(
            "planted-head-ranks-first",
            "Pipeline validity: in every seed the planted divergence head L0H0 has the largest mean "
            "normalised indirect effect of all heads under clean→corrupted patching (the count of "
            "seeds where another head ranks first is 0).",
            _planted_not_first,
            0,
            source="sanity",
        ),
        Claim.at_least(
            "planted-head-rsa",
            "Pipeline validity: the planted head's RDM over the 8 conditions correlates with the "
            "divergence model RDM at Pearson r > 0.8 (our threshold; seed mean).",
            _planted_rsa,
            RSA_MIN,
            source="sanity",
        ),
        Claim.within(
            "shuffled-labels-null",
            "Pipeline validity: with the vignettes' condition labels shuffled, the planted head's RSA "
            "correlation is ≈ 0 (seed mean of 50 shuffles within ±0.1, our tolerance).",
            _shuffled,
            -NULL_TOL,
            NULL_TOL,
            source="sanity",
        ),
        Claim.at_least(
            "trained-model-learns",
            "The trained toy solves the task: test accuracy ≥ 0.95 (seed mean), the precondition of "
            "the emergent claim.",
            _accuracy,
            LEARNED,
            source="sanity",
        ),
        Claim.at_most(
            "emergent-mediator-both-kinds",
            "The top emergent mediator of the trained toy (chosen on half of the pairs) has a "
            "significant indirect effect on the held-out half in both the belief and the photo "
            "vignettes: one-sided sign-flip p < 0.01 in each kind, in every seed that learned the "
            "task (largest p over those seeds; inconclusive with fewer than 8 such seeds).",
            _emergent_p,
            ALPHA,
            source="toy",
        ),
    ],
    figures=[
        Figure(
            "patching_effects",
            _draw_patching,
            "Left: the planted model's mean normalised indirect effect per head (layer × head) "
            "under clean→corrupted patching, seed mean. Right: the trained model's heads ranked "
            "by effect within each seed (seed mean ± SE), with the top head's effect on the "
            "held-out belief and photo pairs of each seed as points.",
        ),
        Figure(
            "rsa",
            _draw_rsa,
            "Left: per-head RSA correlation (Pearson) with the divergence RDM, seed mean ± SE; "
            "dotted: the planted head under shuffled labels; dashed: 0.8. Right: the trained "
            "model's training loss.",
        ),
    ],
    description=DESCRIPTION,
)
