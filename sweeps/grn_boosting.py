"""``grn-boosting``: gradient-regularized Newton boosting against Newton and gradient boosting.

Checks arXiv:2605.00581 (Zozoulenko, Falkowski, Cass, Gonon): adding
:math:`\\sqrt{M\\lVert g\\rVert_N}` per sample to the Hessian makes Newton boosting of trees
converge globally, where vanilla Newton boosting diverges on the Charbonnier loss at
:math:`\\eta = 1`. The simulator is :mod:`jaxtheory.sims.functional.boosting`; the
method is the categorical parameter ``algo`` (labels ``METHODS`` there). The paper's data sets
(Wine Quality, Higgs) need downloads: the presets run a synthetic stand-in.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, plots
from jaxtheory.results import as_dims, values_of
from jaxtheory.sims.functional import boosting as gb
from jaxtheory.sweep import Space, values

#: The ``algo`` parameter (the method): labels in the simulator's code order.
METHOD = gb.SIMULATOR.params["algo"]
#: float32 unit roundoff 2⁻²⁴.
F32_U = 2.0**-24
#: The one-round closed form on one categorical feature holds to this many worst-case
#: float32 summation bounds: the residual relative to |F₀| + η Σ_c|g|/H̃_c is at most
#: n·u for a recursive sum of n ≤ N terms (Higham, Thm. 4.4), so the scaled residual over
#: N·u must be ≤ 1. An absolute 1e-6 is below that bound for 500-sample cells (the smoke
#: measures up to 9e-7); float64 meets 1e-6 by far (tests/sims/test_functional_boosting.py).
CLOSED_FORM_TOL = 1.0
#: Rounds after which the regularized method's training loss must be monotone (ours).
MONOTONE_AFTER = 10
#: A relative increase of the mean training loss below this is float32 rounding, not an
#: increase (the mean of 2000 float32 losses rounds at ~1e-7 relative).
MONOTONE_RTOL = 1e-5
#: Below this mean training loss a run sits at float32's interpolation floor: predictions of
#: size up to ~30 have ulp ~2e-6, so residuals round to ~1e-6 and mean losses r²/2 to
#: ~1e-13–1e-15; rises there are rounding (the medium preset shows them at 4e-16–2e-15).
MONOTONE_FLOOR = 1e-10
#: Capacity the paper's η = 1 end point needs: leaf values (rounds × 2^depth) per training
#: sample. Wine: 1000 trees × 16 leaves / 5197 samples = 3.1; we ask for 2.
CAPACITY = 2.0
#: Diagnostics above 1 by this much are float32 rounding of a Cauchy–Schwarz bound.
DIAG_ATOL = 1e-5
#: Losses below this count as this (log scales; float32 means of r²/2 reach ~1e-30 at
#: interpolation, far below every threshold here).
LOSS_FLOOR = 1e-30
_PAIRED = ("algo", "lr")
#: The stand-in data every preset runs on, as the verdict badges name it.
STAND_IN = (
    "synthetic regression data (x uniform on the cube, y = sin 2πx₁ + x₂² + 3·t₂ noise) "
    "in place of the Wine Quality data"
)


def _lane(ds, method, lr):
    return as_dims(ds, "algo", "lr").sel(algo=method, lr=lr)


def _needs(*methods, lrs=()):
    def check(ds, spec):
        have = set(values_of(ds, "algo").tolist())
        if not set(methods) <= have:
            return f"the preset lacks the methods {sorted(set(methods) - have)}"
        if not set(lrs) <= set(values_of(ds, "lr").tolist()):
            return f"the preset lacks the learning rates {list(lrs)}"
        return None

    return check


def _newton_blowup(ds, spec):
    """Per seed: log10(final / initial training loss) of Newton (l2 = 1e-5) at η = 1."""
    tr = _lane(ds["train_loss"], "newton", 1.0)
    return np.log10(tr.isel(round=-1) / tr.isel(round=0))


def _grn_increases(ds, spec):
    """Number of seeds whose GRN training loss at η = 1 rises after round 10."""
    tr = _lane(ds["train_loss"], "grn", 1.0).isel(round=slice(MONOTONE_AFTER, None))
    prev = tr.isel(round=slice(None, -1)).values
    rel = tr.diff("round").values / np.maximum(prev, LOSS_FLOOR)
    rises = (rel > MONOTONE_RTOL) & (prev > MONOTONE_FLOOR)
    return int(rises.any(axis=tr.dims.index("round")).sum())


def _needs_capacity(ds, spec):
    reason = _needs("grn", lrs=(1.0,))(ds, spec)
    if reason:
        return reason
    cap = spec.rounds * 2**spec.depth / spec.n_train
    if cap < CAPACITY:
        return (
            f"the preset's trees hold {spec.rounds} × {2**spec.depth} = {spec.rounds * 2**spec.depth} leaf "
            f"values for {spec.n_train} samples ({cap:.2f} per sample < {CAPACITY}): they cannot "
            "interpolate, so a training loss near 0 is out of reach whatever the method "
            "(Wine: 3.1 per sample)"
        )
    return None


def _grn_final(ds, spec):
    """Per seed: log10 of GRN's final training loss at η = 1 (floored at ``LOSS_FLOOR``)."""
    return np.log10(np.maximum(_lane(ds["final_train"], "grn", 1.0), LOSS_FLOOR))


def _spread(ds, metric, methods):
    v = ds[metric].sel(lr=0.1, algo=list(methods))
    return v.max("algo") / v.min("algo")


def _train_spread_all(ds, spec):
    """Per seed: max / min over the five methods of the final training loss at η = 0.1."""
    return _spread(ds, "final_train", gb.METHODS)


def _test_spread_all(ds, spec):
    """Per seed: max / min over the five methods of the final test loss at η = 0.1."""
    return _spread(ds, "final_test", gb.METHODS)


_REGULARIZED = tuple(m for m in gb.METHODS if m != "newton")


def _train_spread_reg(ds, spec):
    """Per seed: max / min over the four methods other than vanilla Newton (train, η = 0.1)."""
    return _spread(ds, "final_train", _REGULARIZED)


def _test_spread_reg(ds, spec):
    """Per seed: max / min over the four methods other than vanilla Newton (test, η = 0.1)."""
    return _spread(ds, "final_test", _REGULARIZED)


def _closed_form(ds, spec):
    """Largest scaled residual of the categorical closed form, in units of N·u (float32)."""
    return float(ds["cat_residual"].max()) / (spec.n_train * F32_U)


def _diag_violations(ds, spec):
    """Per method: (seed, η, round) triples with Θ or γ outside (0, 1].

    Rounds that start from a training loss of exactly 0 (g ≡ 0 after exact interpolation,
    where Θ and γ are 0/0) are left out; any other NaN counts as outside.
    """
    out = {}
    for m in values_of(ds, "algo"):
        sub = as_dims(ds, "algo").sel(algo=m)
        th, ga = sub["theta"], sub["gamma"]
        pre = sub["train_loss"].isel(round=slice(None, -1))
        pre = xr.DataArray(pre.values, dims=th.dims, coords=th.coords)
        bad = ~((th > 0) & (th <= 1 + DIAG_ATOL) & (ga > 0) & (ga <= 1 + DIAG_ATOL)) & (pre > 0)
        out[str(m)] = int(bad.sum())
    return out


def _runs_lr(lr):
    def requires(ds, spec):
        return None if lr in values_of(ds, "lr") else f"this preset runs no η = {lr}"

    return requires


def _draw_loss(lr):
    return plots.curves(
        "train_loss",
        x="round",
        hue="algo",
        band="iqr",
        sel={"lr": lr},
        logy=True,
        label_fmt="{}",
        xlabel="boosting round",
        ylabel="train Charbonnier loss (median, IQR over seeds)",
        title=f"η = {lr:g}",
        requires=_runs_lr(lr),
    )


def _diagnostics(ds, spec):
    """Θ and γ per tree (rolling mean over 10) at η = 0.1 (the first η where the preset has none)."""
    lrs = values_of(ds, "lr")
    lr = 0.1 if 0.1 in lrs else float(lrs[0])
    da = xr.concat([ds["theta"], ds["gamma"]], "diagnostic").assign_coords(diagnostic=["cosine Θ", "edge γ"])
    return as_dims(da, "lr").sel(lr=lr).rolling(tree=10, min_periods=1).mean()


DESCRIPTION = r"""
**Synthetic stand-in, not the paper's data.** The paper's experiments use Wine Quality
(Charbonnier loss) and Higgs (BCE), which need downloads; every preset here draws
$x \sim U[0,1]^d$ and $y = \sin 2\pi x_1 + x_2^2 + 3\,t_2$ (Student-t noise with 2
degrees of freedom, so that many residuals are large and the Charbonnier Hessian
$h = \varepsilon^2/s^3$, $s = \sqrt{(F-y)^2 + \varepsilon^2}$, $\varepsilon = 1$, collapses),
with a fresh training and test set per seed. Numbers quoted from the paper are Wine's.

Each round computes $g_i, h_i$ at $F_k$, $\tilde h_i = h_i + \ell_2 + \sqrt{M\lVert g\rVert_N}$
per sample, grows one complete depth-$D$ tree level by level on quantile bins (every node
takes the feature and bin of largest gain $G_L^2/H_L + G_R^2/H_R - G^2/H$ with
$H = \sum\tilde h$), sets leaves to $-G/H$ and steps $F \leftarrow F + \eta\,\mathrm{tree}$.
The five methods, on one code path: GRN ($M = 1$, $\ell_2 = 10^{-5}$), Newton
($\ell_2 = 10^{-5}$), Newton with $\ell_2 = 1$, gradient boosting ($h \equiv 1$,
$\ell_2 = 10^{-5}$) and gradient with $\ell_2 = 1$ (the authors' code and the Wine
figure's settings). The lanes of one seed share data across methods and $\eta$. The
tree growth is checked against a brute-force numpy search over every node, feature and
threshold in `tests/sims/test_functional_boosting.py` (not a claim here). Diagnostics per
round: $\Theta$, the $\tilde H$-weighted cosine between the tree step and the exact step
$-g/\tilde h$, and the edge $\gamma = (1 - \lVert\tilde h f + g\rVert^2/\lVert g\rVert^2)_+^{1/2}$.

What the runs show, and why. Vanilla Newton diverges at $\eta = 1$ and, unlike on Wine,
also at $\eta = 0.1$: the heavy-tailed residuals of the stand-in leave leaves with
$H \approx 10^{-5} n$, so a leaf step is up to $10^5$ even at $\eta = 0.1$. The five-method
spreads at $\eta = 0.1$ (our thresholds, read off the authors' Wine numbers) therefore fail
on the stand-in through vanilla Newton alone, while the four other methods stay within
them. GRN's end point below $10^{-3}$ needs trees that can interpolate: the smoke's 200
depth-3 trees hold 1600 leaf values for 2000 samples and cannot (the claim is not
applicable there; the paper's Wine run has 3.1 leaf values per sample), the medium
preset's 1000 depth-4 trees on 500 samples hold 32 per sample, and GRN, gradient boosting
and Newton with $\ell_2 = 1$ reach training losses at or near 0 in float32 there. Newton's
edge $\gamma$ is clipped at 0 in most of its rounds: when $\tilde h$ varies widely inside a
leaf, $-\tilde h f$ fits $g$ worse than 0 does in plain $L^2$, so "$\Theta, \gamma \in (0,
1]$ in every round" fails for Newton; on the medium preset GRN's edge is also clipped at 0
in a few rounds at $\eta = 1$, at training losses well above 0 before interpolation.
"""

EXPERIMENT = Experiment(
    name="grn-boosting",
    paper=Paper(
        title="Gradient Regularized Newton Boosting Trees with Global Convergence",
        arxiv="2605.00581",
        authors="Nikita Zozoulenko, Daniel Falkowski, Thomas Cass, Lukas Gonon",
        banner="Synthetic stand-in data (sin 2πx₁ + x₂² + 3·t₂ noise) in place of Wine Quality "
        "and Higgs, which need downloads; the paper's numbers are quoted for Wine.",
        unverified=(
            "Higgs (BCE, depth 2/4/6): train loss Newton < Newton-l2 < GRN < Gradient at every "
            "depth; Θ and γ decrease with depth.",
            "O(1/k²) global rate of GRN for convex losses with Lipschitz Hessian.",
        ),
    ),
    simulator=gb.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(algo=values(*gb.METHODS), lr=values(1.0, 0.1), seeds=8, paired=_PAIRED),
            description="CPU, seconds: N = 2000, 8 features, depth 3, 64 bins, "
            "200 trees), 5 methods × 2 η × 8 seeds in one program.",
        ),
        "medium": Preset(
            Space(algo=values(*gb.METHODS), lr=values(1.0, 0.1), seeds=8, paired=_PAIRED),
            spec={"n_train": 500, "n_test": 500, "depth": 4, "rounds": 1000},
            description="CPU, under a minute: N = 500, depth 4, 1000 trees (32 leaf values per "
            "sample: the trees can interpolate, as on Wine), 5 methods × 2 η × 8 seeds.",
        ),
        "full": Preset(
            Space(algo=values(*gb.METHODS), lr=values(1.0, 0.1, 0.01), seeds=10, paired=_PAIRED),
            spec={
                "n_train": 5197,
                "n_test": 1300,
                "features": 11,
                "depth": 4,
                "num_bins": 255,
                "rounds": 1000,
            },
            description="One accelerator: Wine-sized stand-in (N = 5197, 11 features, depth 4, "
            "255 bins, 1000 trees), η ∈ {1, 0.1, 0.01}, 10 seeds.",
        ),
    },
    claims=[
        Claim.identity(
            "categorical-closed-form",
            "On one categorical feature (the first feature cut into 4 categories, a depth-3 "
            "tree on 4 bins) one round equals F_c ← F_c − ηG_c/(H_c + n_c(l2 + √(M‖g‖_N))), "
            "for every method, η and seed: the largest residual relative to "
            "|F₀| + η Σ_c|g|/H̃_c, in units of the float32 summation bound N·u "
            "(u = 2⁻²⁴), is ≤ 1. An absolute 1e-6 is checked in float64 by the "
            "tests; in float32 it is below the rounding of 500-term sums.",
            _closed_form,
            CLOSED_FORM_TOL,
            source="derived",
            requires=_needs("grn"),
        ),
        # the abstract says vanilla Newton boosting "may diverge"; the factor 10 is ours
        Claim.at_least(
            "newton-diverges-eta1",
            "At η = 1 on the Charbonnier loss, vanilla Newton boosting (l2 = 1e-5) diverges: "
            "log10(final / initial training loss) ≥ 1, i.e. a final loss > 10× the initial. "
            "The factor 10 is ours (the authors' notebook prints 386.8 from about 0.6 on Wine).",
            _newton_blowup,
            1.0,
            source="paper",
            quote="vanilla Newton boosting may diverge",
            stand_in=STAND_IN,
            requires=_needs("newton", lrs=(1.0,)),
        ),
        # no sentence of the abstract promises a monotone loss: the round and the reading are ours
        Claim.equals(
            "grn-monotone-eta1",
            f"At η = 1 the gradient-regularized method's training loss is non-increasing after "
            f"round {MONOTONE_AFTER}: the number of seeds with a relative rise > {MONOTONE_RTOL:g} "
            f"from a loss above float32's interpolation floor ({MONOTONE_FLOOR:g}) is 0. "
            "Monotone descent is our check, a stronger reading than the paper's convergence.",
            _grn_increases,
            0,
            source="proposed",
            stand_in=STAND_IN,
            requires=_needs("grn", lrs=(1.0,)),
        ),
        # the abstract's "this scheme converges", read as reaching the empirical risk's
        # infimum 0 where the trees can interpolate; the 1e-3 is ours
        Claim.at_most(
            "grn-final-eta1",
            "At η = 1 the gradient-regularized method converges: its training loss ends below "
            "1e-3 (log10 of the final loss ≤ −3; the infimum is 0 where the trees can "
            "interpolate). The threshold 1e-3 is ours (the authors' notebook prints 6.2e-5 on "
            f"Wine). Needs trees that can interpolate (≥ {CAPACITY:g} leaf values per training "
            "sample).",
            _grn_final,
            -3.0,
            source="paper",
            quote="this scheme converges while vanilla Newton boosting may diverge",
            stand_in=STAND_IN,
            requires=_needs_capacity,
        ),
        # the factor 4 is ours, not a number the paper prints: proposed
        Claim.at_most(
            "eta01-train-within-x4",
            "At η = 0.1 all five methods end within a factor 4 in training loss: max / min "
            "over methods per seed ≤ 4. The factor 4 is ours (the authors' notebook prints "
            "0.028–0.086 on Wine, ×3.1).",
            _train_spread_all,
            4.0,
            source="proposed",
            stand_in=STAND_IN,
            requires=_needs(*gb.METHODS, lrs=(0.1,)),
        ),
        # the 15 % is ours, not a number the paper prints: proposed
        Claim.at_most(
            "eta01-test-within-15pct",
            "At η = 0.1 all five methods end within 15 % in test loss: max / min over methods "
            "per seed ≤ 1.15. The 15 % is ours (the authors' notebook prints 0.154–0.169 on "
            "Wine, ×1.10).",
            _test_spread_all,
            1.15,
            source="proposed",
            stand_in=STAND_IN,
            requires=_needs(*gb.METHODS, lrs=(0.1,)),
        ),
        Claim.at_most(
            "eta01-regularized-train-within-x4",
            "At η = 0.1 the four methods other than vanilla Newton (GRN, Newton l2 = 1, and "
            "both gradient methods) end within a factor 4 in training loss: max / min ≤ 4.",
            _train_spread_reg,
            4.0,
            source="proposed",
            stand_in=STAND_IN,
            requires=_needs(*gb.METHODS, lrs=(0.1,)),
        ),
        Claim.at_most(
            "eta01-regularized-test-within-15pct",
            "At η = 0.1 the four methods other than vanilla Newton end within 15 % in test "
            "loss: max / min ≤ 1.15.",
            _test_spread_reg,
            1.15,
            source="proposed",
            stand_in=STAND_IN,
            requires=_needs(*gb.METHODS, lrs=(0.1,)),
        ),
        # the abstract names the cosine angle and the edge but states no range they keep in
        # every round: that every round has both in (0, 1] is our check
        Claim.equals(
            "diagnostics-in-range",
            "The cosine Θ and the edge γ lie in (0, 1] in every round: per method, the number "
            "of (seed, η, round) with Θ or γ outside (0, 1 + 1e-5] is 0 (rounds after exact "
            "interpolation, g ≡ 0, where both are 0/0, left out). A positive cosine and edge "
            "are what the theory asks of the weak learner; that every round meets them is our "
            "check. Θ ≥ 0 holds by construction (⟨f, −g/h̃⟩_h̃ = Σ_leaves G²/H / N); γ > 0 "
            "does not when h̃ varies inside a leaf.",
            _diag_violations,
            {m: 0 for m in gb.METHODS},
            source="proposed",
            stand_in=STAND_IN,
            requires=_needs(*gb.METHODS),
        ),
    ],
    figures=[
        Figure(
            "train_loss_eta1",
            _draw_loss(1.0),
            "Training loss against boosting rounds at η = 1: median over seeds, band the "
            "interquartile range.",
        ),
        Figure(
            "train_loss_eta01",
            _draw_loss(0.1),
            "Training loss against boosting rounds at η = 0.1: median over seeds, band the "
            "interquartile range.",
        ),
        Figure(
            "diagnostics",
            plots.curves(
                _diagnostics,
                x="tree",
                hue="algo",
                facet="diagnostic",
                band="iqr",
                label_fmt="{}",
                sharey=False,
                xlabel="tree",
                ylabel="rolling mean over 10 (median, IQR)",
            ),
            "Cosine Θ and edge γ per tree (rolling mean over 10), η = 0.1: median over "
            "seeds, band the interquartile range.",
        ),
    ],
    description=DESCRIPTION,
)

__all__ = ["EXPERIMENT", "METHOD"]
