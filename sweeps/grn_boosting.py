r"""``grn-boosting``: gradient-regularized Newton boosting against Newton and gradient boosting.

Checks arXiv:2605.00581 (Zozoulenko, Falkowski, Cass, Gonon) with :mod:`jaxtheory.sims.functional.boosting`:
adding $\sqrt{M\lVert g\rVert_N}$ per sample to the Hessian makes Newton boosting of trees converge globally,
where vanilla Newton boosting diverges on the Charbonnier loss at $\eta = 1$.

**Synthetic stand-in data** (the paper's Wine Quality, Charbonnier loss, and Higgs, BCE, need downloads):
every preset draws $x \sim U[0,1]^d$, $y = \sin 2\pi x_1 + x_2^2 + 3\,t_2$ (Student-t noise, 2 degrees of
freedom: many residuals are large and the Charbonnier Hessian $h = \varepsilon^2/s^3$, $s = \sqrt{(F-y)^2 +
\varepsilon^2}$, $\varepsilon = 1$, collapses), fresh training and test sets per seed.

Each round computes $g_i, h_i$ at $F_k$ and $\tilde h_i = h_i + \ell_2 + \sqrt{M\lVert g\rVert_N}$, grows one
complete depth-$D$ tree level by level on quantile bins (each node takes the feature and bin of largest gain
$G_L^2/H_L + G_R^2/H_R - G^2/H$, $H = \sum\tilde h$), sets leaves to $-G/H$ and steps $F \leftarrow F +
\eta\,\mathrm{tree}$. Five methods on one code path (the authors' code and Wine settings): GRN ($M = 1$,
$\ell_2 = 10^{-5}$), Newton ($\ell_2 = 10^{-5}$), Newton with $\ell_2 = 1$, gradient boosting ($h \equiv 1$,
$\ell_2 = 10^{-5}$) and gradient with $\ell_2 = 1$; one seed's lanes share data. The tree growth is checked
against a brute-force numpy search in `tests/sims/test_functional_boosting.py`. Diagnostics per round:
$\Theta$, the $\tilde H$-weighted cosine between the tree step and $-g/\tilde h$, and the edge $\gamma = (1 -
\lVert\tilde h f + g\rVert^2/\lVert g\rVert^2)_+^{1/2}$.

**What the runs show, and why.** Vanilla Newton diverges at $\eta = 1$ and, unlike on Wine, at $\eta = 0.1$
too: the heavy-tailed residuals leave leaves with $H \approx 10^{-5} n$, so a leaf step is up to $10^5$. The
five-method spreads at $\eta = 0.1$ therefore fail through vanilla Newton alone; the four other methods stay
within them. GRN's end point below $10^{-3}$ needs trees that can interpolate (the smoke's cannot); the medium
preset's 1000 depth-4 trees on 500 samples hold 32 per sample, and GRN, gradient boosting and Newton with
$\ell_2 = 1$ reach training losses at or near 0 in float32. Newton's edge $\gamma$ is clipped at 0 in most
rounds: when $\tilde h$ varies widely inside a leaf, $-\tilde h f$ fits $g$ worse than 0 in plain $L^2$, so
`diagnostics-in-range` fails for Newton; on the medium preset GRN's edge is also clipped at 0 in a few rounds
at $\eta = 1$, at training losses well above 0.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, plots
from jaxtheory.analysis import select
from jaxtheory.results import as_dims, needs, values_of
from jaxtheory.sims.functional import boosting as gb
from jaxtheory.sweep import Space, values

F32_U = 2.0**-24  # float32 unit roundoff
#: The closed form's residual relative to |F₀| + η Σ_c|g|/H̃_c, in float32 summation bounds N·u (a sum of
#: n ≤ N terms errs by at most n·u, Higham Thm. 4.4; the smoke measures up to 9e-7 absolute).
CLOSED_FORM_TOL = 1.0
MONOTONE_AFTER = 10  # rounds after which the regularized method's training loss must be monotone (ours)
MONOTONE_RTOL = 1e-5  # a relative rise below this is float32 rounding (means of 2000 losses: ~1e-7)
#: float32's interpolation floor: predictions' ulp ~2e-6 makes mean losses ~1e-13–1e-15 (medium: rises 4e-16–2e-15)
MONOTONE_FLOOR = 1e-10
CAPACITY = 2.0  # leaf values (rounds × 2^depth) per sample the η = 1 end point needs (Wine: 16000/5197 = 3.1)
DIAG_ATOL = 1e-5  # diagnostics above 1 by this much are float32 rounding of a Cauchy–Schwarz bound
LOSS_FLOOR = 1e-30  # losses below this count as this (float32 means of r²/2 reach ~1e-30 at interpolation)
_PAIRED = ("algo", "lr")
STAND_IN = (
    "synthetic regression data (x uniform on the cube, y = sin 2πx₁ + x₂² + 3·t₂ noise) in place of the "
    "Wine Quality data"
)
_REGULARIZED = tuple(m for m in gb.METHODS if m != "newton")
#: Our own checks, on the stand-in data; the η = 0.1 spread claims also need every method run at η = 0.1.
PROPOSED = dict(source="proposed", stand_in=STAND_IN)
SPREAD = dict(PROPOSED, requires=needs(algo=gb.METHODS, lr=0.1))
_FULL_SPEC = {"n_train": 5197, "n_test": 1300, "features": 11, "depth": 4, "num_bins": 255, "rounds": 1000}


def _grn_increases(ds, spec):
    """Number of seeds whose GRN training loss at η = 1 rises after round MONOTONE_AFTER."""
    tr = select(ds["train_loss"], algo="grn", lr=1.0).isel(round=slice(MONOTONE_AFTER, None))
    prev = tr.isel(round=slice(None, -1)).values
    rises = (tr.diff("round").values / np.maximum(prev, LOSS_FLOOR) > MONOTONE_RTOL) & (prev > MONOTONE_FLOOR)
    return int(rises.any(axis=tr.dims.index("round")).sum())


def _needs_capacity(ds, spec):
    leaves = spec.rounds * 2**spec.depth
    if (reason := needs(algo="grn", lr=1.0)(ds, spec)) or leaves / spec.n_train >= CAPACITY:
        return reason
    return (
        f"the preset's trees hold {spec.rounds} × {2**spec.depth} = {leaves} leaf values for "
        f"{spec.n_train} samples ({leaves / spec.n_train:.2f} per sample < {CAPACITY}): they cannot "
        "interpolate, so a training loss near 0 is out of reach whatever the method (Wine: 3.1 per sample)"
    )


def _spread(metric, methods):
    """Per seed: max / min over ``methods`` of the final ``metric`` at η = 0.1."""

    def measure(ds, spec):
        v = ds[metric].sel(lr=0.1, algo=list(methods))
        return v.max("algo") / v.min("algo")

    return measure


def _diag_violations(ds, spec):
    """Per method: (seed, η, round) with Θ or γ outside (0, 1 + DIAG_ATOL]; rounds that start from a
    training loss of exactly 0 (g ≡ 0 after exact interpolation: Θ, γ are 0/0) are left out."""
    th, ga, pre = ds["theta"], ds["gamma"], ds["train_loss"].isel(round=slice(None, -1)).values
    bad = ~((th > 0) & (th <= 1 + DIAG_ATOL) & (ga > 0) & (ga <= 1 + DIAG_ATOL)) & (pre > 0)
    return {str(m): int(bad.sel(algo=m).sum()) for m in values_of(ds, "algo")}


LOSS_FIG = dict(x="round", hue="algo", logy=True, label_fmt="{}", xlabel="boosting round")
LOSS_FIG["ylabel"] = "train Charbonnier loss (median, IQR over seeds)"
DIAG_FIG = dict(x="tree", hue="algo", facet="diagnostic", label_fmt="{}", sharey=False, xlabel="tree")
DIAG_FIG["ylabel"] = "rolling mean over 10 (median, IQR)"


def _diagnostics(ds, spec):
    """Θ and γ per tree (rolling mean over 10) at η = 0.1."""
    da = xr.concat([ds["theta"], ds["gamma"]], "diagnostic").assign_coords(diagnostic=["cosine Θ", "edge γ"])
    return as_dims(da, "lr").sel(lr=0.1).rolling(tree=10, min_periods=1).mean()


EXPERIMENT = Experiment(
    name="grn-boosting",
    paper=Paper(
        title="Gradient Regularized Newton Boosting Trees with Global Convergence",
        arxiv="2605.00581",
        authors="Nikita Zozoulenko, Daniel Falkowski, Thomas Cass, Lukas Gonon",
        banner="Synthetic stand-in data (sin 2πx₁ + x₂² + 3·t₂ noise) in place of Wine Quality "
        "and Higgs, which need downloads; the paper's numbers are quoted for Wine.",
        unverified=(
            "Higgs (BCE, depth 2/4/6): train loss Newton < Newton-l2 < GRN < Gradient at every depth; Θ and "
            "γ decrease with depth.",
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
            spec=_FULL_SPEC,
            description="One accelerator: Wine-sized stand-in (N = 5197, 11 features, depth 4, "
            "255 bins, 1000 trees), η ∈ {1, 0.1, 0.01}, 10 seeds.",
        ),
    },
    claims=[
        Claim.identity(
            "categorical-closed-form",
            "On one categorical feature (the first feature cut into 4 categories, a depth-3 tree on 4 bins) "
            "one round equals F_c ← F_c − ηG_c/(H_c + n_c(l2 + √(M‖g‖_N))), for every method, η and seed: "
            "the largest residual relative to |F₀| + η Σ_c|g|/H̃_c, in units of the float32 summation bound "
            "N·u (u = 2⁻²⁴), is ≤ 1. An absolute 1e-6 is checked in float64 by the tests; in float32 it is "
            "below the rounding of 500-term sums.",
            lambda ds, spec: float(ds["cat_residual"].max()) / (spec.n_train * F32_U),
            CLOSED_FORM_TOL,
            requires=needs(algo="grn"),
        ),
        Claim.at_least(
            "newton-diverges-eta1",
            "At η = 1 on the Charbonnier loss, vanilla Newton boosting (l2 = 1e-5) diverges: log10(final / "
            "initial training loss) ≥ 1, i.e. a final loss > 10× the initial. The factor 10 is ours (the "
            "authors' notebook prints 386.8 from about 0.6 on Wine).",
            lambda ds, spec: np.log10(
                (tr := select(ds["train_loss"], algo="newton", lr=1.0)).isel(round=-1) / tr.isel(round=0)
            ),
            1.0,
            source="paper",
            quote="vanilla Newton boosting may diverge",
            stand_in=STAND_IN,
            requires=needs(algo="newton", lr=1.0),
        ),
        Claim.equals(
            "grn-monotone-eta1",
            f"At η = 1 the gradient-regularized method's training loss is non-increasing after "
            f"round {MONOTONE_AFTER}: the number of seeds with a relative rise > {MONOTONE_RTOL:g} "
            f"from a loss above float32's interpolation floor ({MONOTONE_FLOOR:g}) is 0. "
            "Monotone descent is our check, a stronger reading than the paper's convergence.",
            _grn_increases,
            0,
            **PROPOSED,
            requires=needs(algo="grn", lr=1.0),
        ),
        Claim.at_most(
            "grn-final-eta1",
            "At η = 1 the gradient-regularized method converges: its training loss ends below 1e-3 (log10 "
            "of the final loss ≤ −3; the infimum is 0 where the trees can interpolate). The threshold 1e-3 "
            "is ours (the authors' notebook prints 6.2e-5 on Wine).",
            lambda ds, spec: np.log10(np.maximum(select(ds["final_train"], algo="grn", lr=1.0), LOSS_FLOOR)),
            -3.0,
            source="paper",
            quote="this scheme converges while vanilla Newton boosting may diverge",
            stand_in=STAND_IN,
            requires=_needs_capacity,
        ),
        Claim.at_most(
            "eta01-train-within-x4",
            "At η = 0.1 all five methods end within a factor 4 in training loss: max / min over methods per "
            "seed ≤ 4. The factor 4 is ours (the authors' notebook prints 0.028–0.086 on Wine, ×3.1).",
            _spread("final_train", gb.METHODS),
            4.0,
            **SPREAD,
        ),
        Claim.at_most(
            "eta01-test-within-15pct",
            "At η = 0.1 all five methods end within 15 % in test loss: max / min over methods per seed ≤ "
            "1.15. The 15 % is ours (the authors' notebook prints 0.154–0.169 on Wine, ×1.10).",
            _spread("final_test", gb.METHODS),
            1.15,
            **SPREAD,
        ),
        Claim.at_most(
            "eta01-regularized-train-within-x4",
            "At η = 0.1 the four methods other than vanilla Newton (GRN, Newton l2 = 1, and both gradient "
            "methods) end within a factor 4 in training loss: max / min ≤ 4.",
            _spread("final_train", _REGULARIZED),
            4.0,
            **SPREAD,
        ),
        Claim.at_most(
            "eta01-regularized-test-within-15pct",
            "At η = 0.1 the four methods other than vanilla Newton end within 15 % in test loss: max / min "
            "≤ 1.15.",
            _spread("final_test", _REGULARIZED),
            1.15,
            **SPREAD,
        ),
        Claim.equals(
            "diagnostics-in-range",
            "The cosine Θ and the edge γ lie in (0, 1] in every round: per method, the number of (seed, η, "
            "round) with Θ or γ outside (0, 1 + 1e-5] is 0 (rounds after exact interpolation, g ≡ 0, where "
            "both are 0/0, left out). A positive cosine and edge are what the theory asks of the weak "
            "learner; that every round meets them is our check. Θ ≥ 0 holds by construction (⟨f, −g/h̃⟩_h̃ "
            "= Σ_leaves G²/H / N); γ > 0 does not when h̃ varies inside a leaf.",
            _diag_violations,
            {m: 0 for m in gb.METHODS},
            **PROPOSED,
            requires=needs(algo=gb.METHODS),
        ),
    ],
    figures=[
        *(
            Figure(
                f"train_loss_{tag}",
                plots.curves(
                    "train_loss", sel={"lr": lr}, title=f"η = {lr:g}", requires=needs(lr=lr), **LOSS_FIG
                ),
                f"Training loss against boosting rounds at η = {lr:g}, median and IQR over seeds.",
            )
            for tag, lr in (("eta1", 1.0), ("eta01", 0.1))
        ),
        Figure(
            "diagnostics",
            plots.curves(_diagnostics, requires=needs(lr=0.1), **DIAG_FIG),
            "Cosine Θ and edge γ per tree (rolling mean over 10) at η = 0.1, median and IQR over seeds.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
