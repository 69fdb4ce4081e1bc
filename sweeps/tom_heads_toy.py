r"""``tom-heads-toy``: theory-of-mind "divergence heads", a 2-layer toy of the patching + RSA pipeline.

**The task.** Every vignette is 7 tokens, `BOS who KIND stored filler filler world`, with `KIND` a belief
("Sally thinks the ball is in ...") or a photograph ("the camera's photo shows the ball in ..."), `stored` the
location the representation holds and `world` the ball's location now (4 locations). The model answers at the
last position `FALSE` (the representation is outdated: `stored ≠ world`) or `TRUE`: exactly the divergence
between a stored representation and the current world, in both kinds, the domain-general divergence detector
the abstract describes. Minimal pairs differ only in the world token (changed → clean, unchanged → corrupted).

**The models.** A 2-layer attention-only transformer ($d = 32$, 4 heads of width 8 per layer, no MLP, no layer
norm) trained with Adam ($10^{-2}$, 300 steps of 64 fresh vignettes) vmapped over seeds, and a *planted*
model: one-hot embeddings (plus 0.02 N(0, 1) noise), head L0H0 set by hand to attend from the world token to
an earlier copy of it (or to `BOS` when there is none) and write ±1 on an answer direction, every other head
random (0.3 × the init scale).

**The pipeline** (`jaxtheory.sims.nets.interp`, arrays in, statistics out; per seed
`jaxtheory.sims.nets.tom_stats`). Activation patching: each head's output (all positions) from the clean run
replaces its output in the corrupted run; the change of
$\mathrm{logit}(\mathtt{FALSE}) - \mathrm{logit}(\mathtt{TRUE})$ over the mean total effect is the head's
normalised indirect effect. For the trained model the top mediator is chosen on half of the 128 pairs and
tested on the other half, per kind (32 pairs each), with a one-sided sign-flip permutation test. RSA: the
heads' last-position outputs are averaged over 8 conditions (kind × stored ∈ {L0, L1} × world ∈ {L0, L1}, 16
vignettes each); their Euclidean RDM is correlated (Pearson) with the divergence model RDM $|d_i - d_j|$; the
null shuffles which vignette belongs to which condition (50 shuffles per seed). A Spearman RSA against a binary
model RDM is capped well below 1 (ties: 16 of the 28 pairs differ, so a perfect separation ranks at
$\approx 0.86$), which is why the 0.8 threshold is applied to Pearson.

**What the smoke runs show beyond the verdicts.** The planted head L0H0 ranks first in every seed with
essentially all of the effect, and every trained seed learns the task. The emergent solution is distributed:
the top mediator (in layer 0 in some seeds, layer 1 in others) restores a part of the total effect on the
held-out pairs, about equally in both kinds, with p at the Monte-Carlo floor in each kind and seed. Its own
last-position RSA with the divergence RDM ranges from weak to strong: the strongest causal mediator (patched
at all positions) is not always the head whose final-position output encodes the divergence, so the two
analyses answer different questions even in the toy.

**What this does not test.** Qwen2.5-14B itself (see the banner): the toy checks that the bookkeeping recovers
a known mediator, and whether a trained toy grows one that works for both kinds.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, plots
from jaxtheory.analysis import Cells
from jaxtheory.sims.nets import tom, tom_stats
from jaxtheory.sweep import Space

LEARNED = 0.95  # a trained seed has learned the task at this test accuracy
RSA_MIN = 0.8  # ours: the planted head's RSA correlation with the divergence model RDM exceeds this
NULL_TOL = 0.1  # ours: "≈ 0", the seed-mean RSA under shuffled vignette labels lies in ±this
ALPHA = 0.01  # ours (the usual 1 %): significance of the emergent mediator's effect in each kind
_CACHE: dict = {}


def _seeds(ds, spec):
    """Per-seed host statistics of both models (:func:`tom_stats.seed_statistics`), a Dataset over
    ``seed``, computed once per results."""
    if _CACHE.get("ds") is not ds:
        rows = [tom_stats.seed_statistics(ds.isel(seed=s), spec.n_heads, s) for s in range(ds.sizes["seed"])]
        _CACHE.update(ds=ds, out=xr.concat(rows, "seed"))
    return _CACHE["out"]


def _of(key):
    return lambda ds, spec: _seeds(ds, spec)[key]


def _emergent_p(ds, spec):
    """Per kind: the largest p-value of the top mediator over the seeds that learned the task; with
    fewer than 8 such seeds, undecided, with the largest p over all seeds as the evidence shown."""
    per = _seeds(ds, spec)
    learned = per.isel(seed=np.flatnonzero((per["trained_accuracy"] >= LEARNED).values))
    n = learned.sizes["seed"]
    few = n < analysis.MIN_SAMPLE
    worst = (per if few else learned)["trained_p"].max("seed")
    undecided = {"low": float("nan"), "high": float("nan"), "method": "none"} if few else {}
    return Cells(
        ({"kind": k}, analysis.Estimate(float(worst.sel(kind=k)), n=n, **undecided)) for k in tom.KINDS
    )


def _ranked(ds, spec):
    """The trained model's per-head effects ranked within each seed (head identities are arbitrary)."""
    eff = _seeds(ds, spec)["trained_effect"]
    ranked = eff.copy(data=-np.sort(-eff.values, axis=1)).rename(head="rank")
    return ranked.assign_coords(rank=np.arange(1, ranked.sizes["rank"] + 1))


def _by_layer(ds, spec):
    eff = _seeds(ds, spec)["planted_effect"]
    return xr.DataArray(
        eff.values.reshape(eff.sizes["seed"], spec.n_layers, -1), dims=["seed", "layer", "head"]
    )


def _rsa(ds, spec):
    per = _seeds(ds, spec)
    return xr.concat([per[f"{m}_rsa"] for m in tom.MODELS], "model").assign_coords(model=list(tom.MODELS))


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
            lambda ds, spec: int(_seeds(ds, spec)["planted_not_first"].sum()),
            0,
            source="sanity",
        ),
        Claim.at_least(
            "planted-head-rsa",
            "Pipeline validity: the planted head's RDM over the 8 conditions correlates with the "
            "divergence model RDM at Pearson r > 0.8 (our threshold; seed mean).",
            _of("planted_head_rsa"),
            RSA_MIN,
            source="sanity",
        ),
        Claim.within(
            "shuffled-labels-null",
            "Pipeline validity: with the vignettes' condition labels shuffled, the planted head's RSA "
            "correlation is ≈ 0 (seed mean of 50 shuffles within ±0.1, our tolerance).",
            _of("planted_shuffled"),
            -NULL_TOL,
            NULL_TOL,
            source="sanity",
        ),
        Claim.at_least(
            "trained-model-learns",
            "The trained toy solves the task: test accuracy ≥ 0.95 (seed mean), the precondition of "
            "the emergent claim.",
            _of("trained_accuracy"),
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
            plots.heatmap(_by_layer, x="head", y="layer", cmap="magma", clabel="normalised indirect effect"),
            "The planted model's mean normalised indirect effect per head (layer × head) under "
            "clean→corrupted patching, seed mean.",
        ),
        Figure(
            "trained_effects",
            plots.curves(
                _ranked,
                x="rank",
                band="se",
                marker="o",
                xlabel="head rank within its seed",
                ylabel="normalised indirect effect",
            ),
            "The trained model's heads ranked by effect within each seed (seed mean ± SE).",
        ),
        Figure(
            "rsa",
            plots.curves(
                _rsa,
                x="head",
                hue="model",
                band="se",
                marker="o",
                ls="none",
                ylabel="RSA r with the divergence RDM (Pearson)",
                hlines={
                    "planted head, shuffled labels": lambda ds, spec: float(
                        _seeds(ds, spec)["planted_shuffled"].mean()
                    ),
                    "0.8": RSA_MIN,
                },
            ),
            "Per-head RSA correlation (Pearson) with the divergence RDM, seed mean ± SE; dotted: 0.8; "
            "grey dashed: the planted head under shuffled condition labels (the null, seed mean).",
        ),
        Figure(
            "training_loss",
            plots.curves(
                "loss", x="step", band="iqr", logy=True, xlabel="Adam step", ylabel="batch loss (median, IQR)"
            ),
            "The trained model's training loss, median and IQR over seeds.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
