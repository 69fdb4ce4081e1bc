r"""``langevin-ntk-stability``: L2-regularised Langevin dynamics keep the NTK well conditioned without lazy training.

A reconstruction of a seminar abstract by Tsipory & Soudry (Technion, 2026; no paper or code found). Simulator
`jaxtheory.sims.nets.langevin_ntk`, optimizer `jaxtheory.optim.langevin`.

**What is simulated.** $n = 16$ points on the sphere of radius $\sqrt d$ in $\mathbb R^8$ (so the first-layer
pre-activations are $N(0,1)$ at init: on the unit sphere tanh is nearly linear and $K_0$ nearly of rank $d = 8
< n$, with $\lambda_{\min}(K_0) \approx 0.01$), targets $y = \sin(3\langle w_0, \hat x\rangle)$, a two-layer
tanh MLP in standard parameterisation ($W_1 \sim N(0, 1/d)$, $a \sim N(0, 1/m)$, no biases), widths $m \in
\{64, 256\}$ masked inside one padded program, loss $L = \tfrac12\sum_i (f(x_i) - y_i)^2$, Euler–Maruyama
Langevin $\theta \leftarrow \theta - h(\nabla L + \lambda\theta) + \sqrt{2hT}\,\xi$ (`optim.langevin`) with
the prior-matched per-layer decay $\lambda_1 = Td$, $\lambda_2 = Tm$ (Gibbs law $p_0 e^{-L/T}/Z$). In standard
parameterisation $\lVert K_0\rVert \propto m$; every width uses the step $h = 0.5/\lVert K_0\rVert$ of the
widest net, so all widths run the same physical time $t = h \cdot 12000 \approx 11.5$ (a constant step would
run the wider net for a longer physical time). Temperature and width are paired: a seed has the same init and
noise draws at every $T$ and $m$, so the excess loss over $T = 0$ is a paired difference.

**Derived references.** Near a minimum the $n$ data-fit modes have curvature $\kappa_i$ (the eigenvalues of
$K_t = J_tJ_t^\top$); the discrete chain gives each $\mathbb E[\text{mode loss}] = (T/2)/(1 - h\kappa_i/2)$
exactly, so $\mathbb E L - L_{T=0} \approx \sum_i (T/2)/(1 - h\kappa_i/2)$ when $\lambda \ll \kappa_i$. Along
flat directions the chain is an OU process: from a prior draw, $\mathbb E\lVert\theta_k -
\theta_0\rVert^2/\mathbb E\lVert\theta_0\rVert^2 = (1-r^k)^2 + (1-r^{2k})/(1-h\lambda/2)$, $r = 1 - h\lambda$
($\to 2(1-e^{-\lambda t})$); it is checked on $W_1$ ($8m \gg n$ parameters, so the flat directions dominate),
where $\lambda_1 t \ge 0.5$ (only $T = 10^{-2}$ in the smoke preset). The output layer ($m$ weights, $n = 16$
of them constrained) runs 5–13 % above the formula (`disp_a` in the results); it is not claimed.

**Lazy scaling in standard parameterisation.** One might expect a Jacobian-change slope $\approx -1/2$ in $m$
at $T = 0$, the NTK-parameterisation lazy rate. In standard parameterisation at fixed physical time the
weights move less: $\delta w_j \sim m^{-3/2}$ and $\delta a_j \sim m^{-1}$, so $\lVert J_t - J_0\rVert/\lVert
J_0\rVert \sim m^{-1}$ (derivation), and the claim at $T = 0$ is "slope at most $-1/2$" (at least as lazy as
the NTK rate).

**What the runs show.** Equipartition is loosest at $m = 64$, $T = 10^{-2}$, where $\lambda_2 = Tm = 0.64$
is no longer small against the smallest NTK eigenvalue (about 0.75). The Jacobian change at $T = 0$ decays
close to the standard-parameterisation rate $m^{-1}$. At $T = 10^{-2}$ (not claimed) the worst $m = 64$ seed
comes down to half the initial $\lambda_{\min}$.

**Not built.** The change-of-measure bound on KL($\rho_t \Vert p_0$), the paper's sharpened
$\lambda_{\min}(K_0)$ bound and its explicit width/temperature conditions are not in the abstract, so they are
not tested; an early-phase rate claim (rate within 2× of $2\lambda_{\min}(K_0)$) is left out.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, needs, plots
from jaxtheory.results import as_dims, values_of
from jaxtheory.sims.nets import langevin_ntk as sim
from jaxtheory.sims.nets import langevin_refs as refs
from jaxtheory.sweep import Space, values

EQUI_RTOL, OU_RTOL, LAZY_RTOL = 0.2, 0.1, 0.05  # equipartition, OU displacement, lazy closed form (ours)
EARLY_FRACTION = 0.01  # "early on": the records where the lazy loss is still above this fraction of L₀
OU_MIN_LAMT = 0.5  # OU claim cells need λ₁t ≥ this, so the displacement is O(1)
SMALL_T = 1e-3  # temperatures of the NTK-stability claim ("small T"); T = 1e-2 is shown, not claimed
_PAIRED = ("width", "temperature")
QUOTE_NON_LAZY = (
    "the network Jacobian can change from initialization, departing the commonly analyzed lazy regime"
)
#: Only a seminar abstract was found: the setting is rebuilt without the paper.
RECONSTRUCTION = dict(source="reconstruction", quote=QUOTE_NON_LAZY)
TWO_WIDTHS = needs(lambda ds, spec: ds.sizes.get("width", 1) >= 2, "the preset has one width: no slope in m")


def _h(ds):
    return float(np.asarray(ds["step"].values).ravel()[0])


def _late(da, dim="t"):
    """The second half of the records (the stiff modes are equilibrated there)."""
    return da.isel({dim: slice(da.sizes[dim] // 2, None)})


def _temperatures(da, keep):
    da = as_dims(da, "temperature")
    return da.sel(temperature=keep(da["temperature"]))


def _hot(da):
    return _temperatures(da, lambda T: T > 0)


def _equipartition(ds, spec):
    """Per seed: [E L_T − E L_{T=0}] / Σ_i (T/2)/(1 − hκ_i/2) over the late records (paired seeds)."""
    L = ds["ntk_loss"]
    excess = _late(L - analysis.select(L, temperature=0.0)).mean("t")
    pred = _late((ds["temperature"] / 2) / (1 - _h(ds) * ds["kappa"] / 2)).sum("i").mean("t")
    return _hot(excess / pred)


def _lam_t(ds, spec):  # λ₁t at the last record, per temperature
    return values_of(ds, "temperature") * spec.dim * _h(ds) * float(ds["t"].values[-1])


def _ou(ds, spec):
    """Per seed: ‖W1_t − W1_0‖²/‖W1_0‖² at the last record over the OU formula, where λ₁t ≥ 0.5."""
    k = float(ds["t"].values[-1])
    ratio = ds["disp_W1"].isel(t=-1) / refs.ou_expected(ds["temperature"] * spec.dim, _h(ds), k)
    return _temperatures(ratio, lambda T: _lam_t(ds, spec) >= OU_MIN_LAMT)


def _needs_ou(ds, spec):
    top = float(_lam_t(ds, spec).max())
    return None if top >= OU_MIN_LAMT else f"no temperature reaches λ₁t ≥ {OU_MIN_LAMT} (largest {top:.2f})"


def _ntk_stable(ds, spec):
    """One boolean per lane with 0 < T ≤ 1e-3: min_t λ_min(K_t)/λ_min(K_0) ≥ 1/2."""
    return _temperatures(ds["lam_ratio"].min("t"), lambda T: (T > 0) & (T <= SMALL_T)) >= 0.5


def _jac(keep):
    return lambda ds, spec: _temperatures(ds["jac_drift"].isel(t=-1), keep)


def lazy_ratio(ds, spec):
    """Per seed at T = 0, widest m: :func:`jaxtheory.sims.nets.langevin_refs.lazy_ratio` of the
    loss against kernel GD with that seed's K₀ and residual y − f₀, over the early records."""
    sub = analysis.select(ds, temperature=0.0, width=values_of(ds, "width").max())
    args = (_h(ds), ds["tl"].values, EARLY_FRACTION)
    seeds = (sub.isel(seed=s) for s in range(sub.sizes["seed"]))
    ratios = [refs.lazy_ratio(one["K0"], one["delta0"], one["loss"], *args) for one in seeds]
    return xr.DataArray(np.array(ratios), dims=("seed",))


def _kernel(ds, spec):
    """The worst seed's λ_min(K_t)/λ_min(K_0) and the seed-mean Jacobian change, against physical time."""
    both = [ds["lam_ratio"].min("seed"), ds["jac_drift"].mean("seed")]
    names = ["worst λ_min(K_t)/λ_min(K_0)", "mean ‖J_t − J_0‖/‖J_0‖"]
    return xr.concat(both, xr.DataArray(names, dims="quantity")).assign_coords(t=ds["t"] * _h(ds))


def _physical(name, time="t"):
    """``name`` against physical time (the step ``h`` a coordinate)."""
    return lambda ds, spec: ds[name].rename({time: "t"}).assign_coords(t=ds[time].values * _h(ds), h=_h(ds))


#: Every figure: one line per temperature against physical time, on a log scale.
ALONG_T = dict(x="t", hue="temperature", logy=True, label_fmt="T={:g}")
#: The seed-mean figures (displacement, loss): mean ± SE, one panel per width.
PER_WIDTH = dict(ALONG_T, facet="width", band="se", xlabel="physical time t")


EXPERIMENT = Experiment(
    name="langevin-ntk-stability",
    paper=Paper(
        title="Global Convergence in Neural Networks via the Second Law of Thermodynamics",
        authors="Matan Tsipory, Daniel Soudry (seminar talk, Technion ECE, 6 Jul 2026)",
        found=False,
        banner="Only a seminar abstract was found; the mechanism (prior-matched CLD, Fokker–Planck "
        "free energy, change of measure) is reconstructed from classical references.",
        unverified=(
            "A change-of-measure inequality ('second law') controls training quantities under the time-t law.",
            "A sharpened lower bound on λ_min of the NTK Gram matrix at initialization.",
            "A non-asymptotic bound on E[L] with explicit width and temperature conditions and a finite loss "
            "floor.",
        ),
    ),
    simulator=sim.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(
                width=values(64, 256),
                temperature=values(0.0, 1e-4, 1e-3, 1e-2),
                seeds=12,
                paired=_PAIRED,
            ),
            spec={"steps": 12000, "ntk_every": 200, "loss_every": 20, "step_frac": 0.5},
            description="CPU, one compile: 96 lanes (12 seeds) × 12,000 Langevin steps, NTK every 200 "
            "steps; 12 seeds, so that 48 small-T lanes can decide a ≥ 90 % fraction.",
        ),
        "full": Preset(
            Space(
                width=values(64, 256, 1024, 4096),
                temperature=values(0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2),
                seeds=64,
                paired=_PAIRED,
            ),
            spec={"max_width": 4096, "steps": 48000, "ntk_every": 400, "loss_every": 40, "step_frac": 0.5},
            description="One accelerator: 1536 lanes, widths to 4096, four times the physical time.",
        ),
    },
    claims=[
        Claim.close(
            "equipartition",
            "Each of the n data-fit modes carries T/2 of loss at stationarity, with the exact discrete-time "
            "factor: E[L_T] − E[L_{T=0}] = Σ_i (T/2)/(1 − hκ_i/2) within 20 %, κ_i the eigenvalues of K_t, "
            "averaged over the second half of the run (paired seeds), per (m, T > 0).",
            _equipartition,
            1.0,
            rtol=EQUI_RTOL,
            source="derived",
            requires=needs(temperature=0.0),
        ),
        Claim.close(
            "ou-displacement",
            "Along the flat directions the weights diffuse as an OU process: the squared relative "
            "displacement of W1 at the end equals (1 − r^k)² + (1 − r^{2k})/(1 − hλ₁/2), r = 1 − hλ₁ "
            "(→ 2(1 − e^{−λ₁t})), within 10 %, where λ₁t ≥ 0.5.",
            _ou,
            1.0,
            rtol=OU_RTOL,
            source="derived",
            requires=_needs_ou,
        ),
        Claim.fraction(
            "ntk-stays-conditioned",
            "λ_min(K_t) ≥ ½ λ_min(K_0) at every record in at least 90 % of the lanes with 0 < T ≤ 1e-3, both "
            "widths pooled (prior-matched Langevin dynamics on a two-layer tanh net). The factor ½ and the "
            "90 % threshold are ours; the weights meanwhile diffuse far from their initialization "
            "(ou-displacement).",
            _ntk_stable,
            at_least=0.9,
            source="reconstruction",
            quote="injected noise helps preserve NTK stability with high probability without confining the "
            "weights to a small neighborhood of their initialization",
        ),
        Claim.at_least(
            "jacobian-moves",
            "Non-lazy: at T > 0 the relative Jacobian change ‖J_t − J_0‖_F/‖J_0‖_F at the end exceeds 0.1, "
            "per (m, T). The threshold 0.1 is ours.",
            _jac(lambda T: T > 0),
            0.1,
            **RECONSTRUCTION,
        ),
        Claim.slope(
            "jacobian-width-slope-hot",
            "At T > 0 the end-of-run Jacobian change decays in m more slowly than the lazy m^(−1/2): log-log "
            "slope in m above −0.5, per T. The threshold −0.5 (the NTK-parameterisation lazy rate) is ours.",
            _jac(lambda T: T > 0),
            "width",
            at_least=-0.5,
            **RECONSTRUCTION,
            requires=TWO_WIDTHS,
        ),
        Claim.slope(
            "jacobian-width-slope-cold",
            "At T = 0 training is lazy: the Jacobian-change slope in m is at most −0.5 (the "
            "NTK-parameterisation rate; standard parameterisation at fixed physical time gives m^(−1), see "
            "the description).",
            _jac(lambda T: T == 0),
            "width",
            at_most=-0.5,
            source="derived",
            requires=TWO_WIDTHS,
        ),
        Claim.close(
            "lazy-closed-form",
            "At T = 0 and the widest m the loss follows kernel GD with the seed's K_0 early on: the mean of "
            "L_t / L_lazy(t) over the records with L_lazy ≥ 1 % of L_0 is 1 within 5 %.",
            lazy_ratio,
            1.0,
            rtol=LAZY_RTOL,
            source="derived",
            requires=needs(temperature=0.0),
        ),
    ],
    figures=[
        Figure(
            "kernel",
            plots.curves(
                _kernel,
                **ALONG_T,
                facet=("quantity", "width"),
                over=(),
                theory=lambda c, spec: 0.5 if c["quantity"].startswith("worst") else np.nan,
                theory_label="½",
                sharey=False,
                xlabel="physical time t = h·steps",
                ylabel="",
            ),
            "Top: the worst seed's λ_min(K_t)/λ_min(K_0) against physical time (dotted: ½); bottom: "
            "seed-mean relative Jacobian change; one column per width.",
        ),
        Figure(
            "displacement",
            plots.curves(
                lambda ds, spec: _hot(_physical("disp_W1")(ds, spec)),
                **PER_WIDTH,
                theory=lambda c, spec: refs.ou_expected(c["temperature"] * spec.dim, c["h"], c["t"] / c["h"]),
                theory_label="OU",
                ylabel="‖W1_t − W1_0‖²/‖W1_0‖²",
            ),
            "Seed-mean squared relative displacement of W1 (± SE) against physical time, one panel per "
            "width, with the OU formula dotted.",
        ),
        Figure(
            "loss",
            plots.curves(
                _physical("loss", "tl"),
                **PER_WIDTH,
                theory=lambda c, spec: spec.num_points * c["temperature"] / 2,
                theory_label="nT/2",
                ylabel="L_t (seed mean ± SE)",
            ),
            "Seed-mean training loss ± SE against physical time, one panel per width; dotted: the "
            "equipartition level nT/2.",
        ),
    ],
    description=__doc__.split("\n\n", 2)[2],
)
