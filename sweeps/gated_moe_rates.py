"""``gated-moe-rates``: least-squares rates of softmax-gated MoE, gated vs linear experts.

Checks a one-level reconstruction of arXiv:2602.01468 (Nguyen, Pham, Cao, Dinh, Nguyen,
Ho, Rinaldo, "A Statistical Theory of Gated Attention through the Lens of Hierarchical
Mixture of Experts"): gated (sigmoid × linear) experts are estimated at polynomial rates,
linear experts (standard attention's values) under a softmax gate slower than any
polynomial. The simulator is :mod:`jaxtheory.sims.mixtures.softmax_moe`; the sample
size ``n`` is a masked, dynamic axis (:mod:`jaxtheory.sims.mixtures.samples`), so the
four compiles are the expert type × the number of fitted experts.
"""

from __future__ import annotations


from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, plots
from jaxtheory.results import values_of
from jaxtheory.sims.mixtures import softmax_moe as sm
from jaxtheory.sweep import Space, static, values

#: Sample sizes of the smoke preset: six from 1e2 to 3e4.
SMOKE_N = (100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0)
#: The exact-specified gated slope band (proposed): about −1/2, in [−0.6, −0.35].
EXACT_BAND = (-0.6, -0.35)
#: Over-specified gated atoms: slope at most this (ours: a polynomial rate made concrete).
OVER_SLOPE = -0.2
#: Linear + softmax: |local slope| below this in the top decade of n (ours).
FLAT_TOL = 0.1
#: A converged fit: gradient norm of the least-squares objective at most this.
GRAD_TOL = 1e-6


def _voronoi(expert, fitted):
    def measure(ds, spec):
        if expert not in values_of(ds, "expert") or fitted not in values_of(ds, "fitted"):
            raise NotApplicable(f"the preset runs no {expert} experts fitted with {fitted}")
        return analysis.select(ds["voronoi"], expert=expert, fitted=fitted)

    return measure


def _top_decade(ds):
    n = values_of(ds, "n").astype(float)
    return n[n >= n.max() / 10.0]


def _needs_converged(ds, spec):
    """The linear claim counts only where both over-specified fits converged."""
    for expert in ("linear", "gated"):
        if expert not in values_of(ds, "expert") or 3 not in values_of(ds, "fitted"):
            return f"the preset runs no over-specified {expert} fit"
    top = _top_decade(ds)
    if len(top) < 2:
        return "fewer than two sample sizes in the top decade"
    g = analysis.select(ds["grad_norm"], fitted=3, n=top)
    worst = {e: float(analysis.select(g, expert=e).max()) for e in ("linear", "gated")}
    bad = {e: v for e, v in worst.items() if not v <= GRAD_TOL}
    if bad:
        said = ", ".join(f"{e} {v:.1e}" for e, v in bad.items())
        return (
            f"the optimiser did not converge (largest gradient norm in the top decade: {said} > "
            f"{GRAD_TOL:g}): optimisation error would fake a flat curve"
        )
    return None


DESCRIPTION = r"""
**Model (a reconstruction).** $x \sim N(0, I_2)$,
$Y = \sum_{i} \mathrm{softmax}_i(\beta_i^\top x + b_i)\, h(a_i^\top x + c_i) + 0.1\,\varepsilon$
with two true experts (`TRUE_ATOMS` of the simulator) and $h(u) = u$ (linear, standard
attention's value experts) or $h(u) = \sigma(u)\,u$ (gated: a sigmoid gate times the
linear map, sharing its parameters — our choice; the paper's gate has its own weights).
The least-squares estimator is fitted by Levenberg's method in float64 from the truth
plus a perturbation (std 0.1; an over-specified fit starts from the last true atom split
in two), so what is measured is the statistical error of the local minimiser, not a
search. The Voronoi loss (arXiv:2402.02952 / 2405.13997: exponent 1 in cells with one
fitted atom, 2 in cells with several, weights $e^{b_i}$) compares the fit's canonical
softmax-shift representative with the truth.

**Sample sizes as a dynamic axis.** Each lane draws $n_{\max} = 3\cdot 10^4$ samples and
weights the first $n$ (a sample-size mask): $n$ is vmapped, not compiled, and datasets
of one seed are nested across $n$.

**Convergence.** Over-specified fits are singular (the split atoms can trade weight and
position along a near-flat valley), and Levenberg's method converges slowly there: with
the smoke's 40 iterations their gradient norms stay near $10^{-4}$–$10^{-3}$, above the
$10^{-6}$ the linear claim requires, so that claim is not applicable in the smoke
(optimisation error would fake a flat curve). Short probes with 300 iterations brought
most gated over-specified lanes below $10^{-6}$ but left linear ones at
$10^{-6}$–$10^{-5}$. The `full` preset (1000 iterations, $n$ to $3\cdot10^5$, 32 seeds)
is defined for an accelerator and has not been run.

**What the smoke run shows.** The exactly specified gated fit falls at close to
$n^{-1/2}$, centred in the proposed band; with 8 seeds its interval ends just inside the
band's steep end (the $n = 100$ lanes, 12 parameters from 100 samples, are the noisiest
and some stop before converging), so `gated-exact-rate` passes narrowly: another
bootstrap draw can leave it undecided. The over-specified
gated fit falls polynomially, but on fits that are not converged, so that verdict
includes optimisation error. The linear claim is not applicable: in the top decade the
over-specified fits stop with gradient norms far above $10^{-6}$. Linear experts,
exactly specified (no claim: the slow rates need over-specification), fall at about
$n^{-0.6}$ over the whole range, and the unconverged over-specified linear curve falls
steadily, with no sign of the flattening the paper predicts at these sizes and with
this optimiser; since those fits are not converged, this is not evidence against it.

**Not built.** The two-level HMoE of one attention entry (heads × tokens, quadratic
gating) and the gate positions (query/key vs SDPA output/value) are not
implemented: the `full` preset runs the same one-level model at larger sizes, and the
gate-position claim is listed without a verdict. Check 3 (the sample-size gap
$n_{\mathrm{linear}}(\varepsilon)/n_{\mathrm{gated}}(\varepsilon)$) is not computed.
"""

EXPERIMENT = Experiment(
    name="gated-moe-rates",
    paper=Paper(
        title="A Statistical Theory of Gated Attention through the Lens of Hierarchical Mixture of Experts",
        arxiv="2602.01468",
        authors="Viet Nguyen, Tuan Minh Pham, Thinh Cao, Tan Dinh, Huy Nguyen, Nhat Ho, Alessandro Rinaldo",
        found=False,
        banner="A one-level softmax-gated MoE stands in for the paper's hierarchical MoE of gated "
        "attention; the model, true parameters, expert gate and loss exponents are our "
        "reconstruction in the style of arXiv:2405.13997, not the paper's setup.",
        unverified=(
            "A gate on the query or key behaves like linear experts (slow rates); a gate on the SDPA "
            "output or the values gives polynomial rates (needs the two-level HMoE, not built).",
            "Reaching error ε needs exp(ε^(−1/λ)) samples with linear experts and poly(1/ε) with gated ones.",
        ),
    ),
    simulator=sm.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(
                expert=static("linear", "gated"),
                fitted=static(2, 3),
                n=values(*SMOKE_N),
                seeds=8,
            ),
            spec={"n_max": 30000, "iters": 40},
            description="CPU, about a minute: 4 compiles (expert × fitted) × 48 lanes "
            "(6 masked sample sizes × 8 seeds), 40 Levenberg iterations each.",
        ),
        "full": Preset(
            Space(
                expert=static("linear", "gated"),
                fitted=static(2, 3),
                n=values(100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0, 100000.0, 300000.0),
                seeds=32,
            ),
            spec={"n_max": 300000, "iters": 1000},
            description="One accelerator: n to 3e5, 32 seeds, 1000 iterations so "
            "that over-specified fits can converge. Same one-level model: the HMoE and the gate "
            "positions of the paper are not built.",
        ),
    },
    claims=[
        # paper -> proposed: the abstract says "polynomial", not n^(−1/2); the band around
        # the parametric rate of the reconstruction's literature is ours.
        Claim.slope(
            "gated-exact-rate",
            "Gated experts, exactly specified (2 fitted for 2 true): the Voronoi loss falls "
            "at about the parametric rate n^(−1/2): log-log slope of the seed mean in "
            "[−0.6, −0.35]. The rate and the band are proposed (the rate of exactly "
            "specified, strongly identifiable experts in arXiv:2405.13997), not the paper's.",
            _voronoi("gated", 2),
            "n",
            expected=sum(EXACT_BAND) / 2,
            atol=(EXACT_BAND[1] - EXACT_BAND[0]) / 2,
            source="proposed",
        ),
        # paper -> reconstruction, quoted: the model is our one-level stand-in for the
        # paper's hierarchical MoE; the bound −0.2 is ours and said so.
        Claim.slope(
            "gated-over-rate",
            "Gated experts, over-specified (3 fitted for 2 true): still polynomial, "
            "log-log slope of the seed-mean Voronoi loss at most −0.2: polynomial read as "
            "a slope bounded away from 0; the bound −0.2 is ours. Under our reconstruction "
            "(a one-level softmax-gated MoE for the paper's hierarchical one). (Fits with "
            "few iterations are not converged here; see the convergence figure.)",
            _voronoi("gated", 3),
            "n",
            at_most=OVER_SLOPE,
            source="reconstruction",
            quote="while the former needs only a polynomial number of data points to estimate an expert",
        ),
        # paper -> reconstruction, quoted; |slope| < 0.1 -> slope ≥ −0.1: "slower than any
        # polynomial" bounds the decay from one side (a consistent fit cannot rise).
        Claim.slope(
            "linear-flat-top-decade",
            "Linear experts with a softmax gate, over-specified: slower than any polynomial, "
            "local slope of the seed-mean Voronoi loss over the top decade of n at least "
            "−0.1 (no polynomial decay faster than n^(−0.1) there); counted only when the "
            "linear and the gated over-specified fits converged (gradient norm ≤ 1e-6) "
            "there. Exponentially many samples for an error read as a flattening log-log "
            "curve; the bound −0.1 is ours. Under our reconstruction (linear experts under "
            "a softmax gate stand for multi-head self-attention).",
            _voronoi("linear", 3),
            "n",
            at_least=-FLAT_TOL,
            xmin=3000.0,
            source="reconstruction",
            quote="the latter requires exponentially many data points to achieve the same estimation error",
            requires=_needs_converged,
        ),
    ],
    figures=[
        Figure(
            "voronoi",
            plots.slope(
                "voronoi",
                x="n",
                hue="fitted",
                facet="expert",
                theory=-0.5,
                theory_label="n^(−1/2)",
                label_fmt="{} fitted",
                xlabel="sample size n",
                ylabel="Voronoi loss: seed mean ± SE",
                title="D(Ĝ_n, G*) against n",
            ),
            "Seed-mean Voronoi loss against the sample size (± one standard error), one panel per "
            "expert type, exactly specified (2 fitted) and over-specified (3), with the fitted "
            "log-log slope and n^(−1/2) dashed.",
        ),
        Figure(
            "convergence",
            plots.curves(
                "grad_norm",
                x="n",
                hue="fitted",
                facet="expert",
                band="se",
                logx=True,
                logy=True,
                marker="o",
                ms=3,
                label_fmt="{} fitted",
                xlabel="sample size n",
                ylabel="‖∇ loss‖ at the fit: seed mean ± SE",
                title="convergence of the fits",
            ),
            "Gradient norm of the least-squares objective at the returned fit: the linear "
            "claim needs ≤ 1e-6.",
        ),
    ],
    description=DESCRIPTION,
)
