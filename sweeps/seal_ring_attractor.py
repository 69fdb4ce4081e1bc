r"""``seal-ring-attractor``: Hopfield-style Fourier energies for ring and torus attractors.

The simulator is `jaxtheory.sims.attractors.seal`; the Euler dynamics are $\tau\dot x = -\nabla E + vT$.

**Ring.** $N$ neurons at angles $\varphi_n = 2\pi n/N$, target states $x(\theta) = b(\varphi - \theta)$ with
the von Mises bump $b(\varphi) = e^{\kappa(\cos\varphi - 1)}$, $\kappa = 4$. With $\hat x_k$ the DFT of $x$
and $u = \hat x_1/|\hat x_1|$ the energy is $E = \sum_{k=0}^{N/2} \frac{m_k}{2N}\lambda_k r_k$ with $r_0 =
(\hat x_0 - c_0)^2$, $r_1 = (|\hat x_1|^2 - c_1^2)^2/4c_1^2$, $r_k = |\hat x_k - c_k u^k|^2$ for $2 \le k \le
K = 8$ and $r_k = |\hat x_k|^2$ (one shared $\lambda_{hi}$) above $K$: normalised so that $\lambda = 1$ is
$\tfrac12\lVert x - y\rVert^2$ to second order, and **extended to every mode** (with only $k \le 8$ the modes
$9 \ldots 32$ are flat directions and the zero set is not a ring). Each term is rotation invariant, so
$\langle\nabla E, T\rangle = 0$ for the tangent field $T: \hat x_k \mapsto -ik\hat x_k$. The learned zero set
is the band-limited ring $\hat y_k = c_k e^{-ik\theta}$ ($k \le K$).

**Torus.** A $16 \times 16$ sheet with rhombic (60°) geometry, wave vectors $K_1 = (2, 0)$, $K_2 = (0, 2)$,
$K_3 = (-2, -2)$ in index space (equal length, 120° apart in the sheet's metric, $\sum K_j = 0$): amplitude
terms $(|X_{K_j}|^2 - a^2)^2$, the triad lock $|X_{K_1}X_{K_2}X_{K_3} - a^3|^2$, a mean term and $|X_k|^2$ on
every other mode; its zero set is the 2-torus of patterns $c_0/N + (2a/N)\sum_j\cos(K_j\cdot r - \phi_j)$ with
$\sum\phi_j = 0$. The target is $(1.5 + \sum_j\cos K_j\cdot r)/4.5$, shifted.

**Learning.** Restoring-field matching: Adam ($10^{-2}$, 2000 steps, batch 256 for the ring and 64 for the
torus) on $\lVert\nabla E(\tilde x) - (\tilde x - x)\rVert^2$, $\tilde x = x + \sigma\xi$, $\sigma \in \{0.1,
0.3\}$ per sample, from uninformed parameters (every $\lambda = 0.1$, every $c_k/N = 0.1$; logarithms, so they
stay positive).

**Dynamics.** Euler with $\eta = dt/\tau = 0.05$ as `optax.sgd(η)` on $\nabla E$, 500 steps from 128 states
per seed perturbed by $\sigma = 0.5$ (the same states for every drive $v$). The drive is applied as the
rotation it generates ($x \leftarrow R_{\eta v}(x - \eta\nabla E)$, a Lie splitting: $R$ preserves $E$). The
explicit-Euler drive $x \leftarrow x - \eta(\nabla E - vT)$ is run too, on 32 states: on a decoupled mode $k$
it is exactly $\hat x_k \leftarrow (1 - \eta\lambda_{hi} + i\eta vk)\hat x_k$, which grows when $(1 -
\eta\lambda_{hi})^2 + (\eta vk)^2 > 1$: with $\eta = 0.05$, $\lambda_{hi} \approx 1$ the ring diverges for
$|v| \ge 0.5$ (modes up to $k = 31$) and the torus for $|v| = 1$ (through $|k| = 7$), so at this dt these
drives need the split (or a smaller dt).

**Stability bound (derived).** Linearised at the manifold, Euler is $\delta \leftarrow (I - \eta H)\delta$,
and $E(x - \eta g) - E(x) \le -\eta(1 - \eta L/2)\lVert g\rVert^2$ where $\lVert H\rVert \le L$: descent is
guaranteed near the manifold for $\eta < 2/L^*$, $L^*$ the largest Hessian eigenvalue on the learned manifold
(exact, `jax.hessian` + `eigvalsh`).

**Connectivity.** With a linear transfer the Hopfield energy $\tfrac12\lVert x\rVert^2 - \tfrac12 x^\top Wx -
I^\top x$ has Hessian $1 - W$; matching the Hessian of the learned $E$ at the ring, averaged over the $N$
rotations (its circulant part), gives $w(\Delta) = \delta_{\Delta 0} - \bar H(\Delta)$. Where every $\lambda
\approx 1$, $1 - \bar H$ is the rotation-averaged projector on the tangent $b'$, whose kernel is the
autocorrelation of $b'$, $-(b \star b)''$: a Mexican hat for any smooth bump.

**What the smoke runs show beyond the verdicts.** The ring's slowest normal mode contracts by about 1.7 % per
step, so its distance after 500 steps is the larger of the two. Where the explicit-Euler drive is stable
(torus, $|v| = 0.5$) it leaves the grid pattern far from the manifold (about $0.1$, against about $10^{-5}$
with the split drive): a shape error below $10^{-3}$ under drive holds only for the split scheme at $dt =
0.05$. $\lambda_{hi}$ is learned as $1$. Finding, not a claim: the learned ring sits $6$–$7$ % (relative
$\ell_2$) from the target von Mises ring (the torus below 1 %); presumably (not checked) because matching at
$\sigma \in \{0.1, 0.3\}$ shrinks the phase-locked $c_k$: the phase $u$ of a noisy state is itself noisy, and
the best $c_k$ under that noise is about $\hat b_k\,\mathbb E\cos(k\,\delta\phi)$.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, Region, Stat, analysis, plots
from jaxtheory.results import needs, other_dims
from jaxtheory.analysis import Cells
from jaxtheory.sims.attractors import seal
from jaxtheory.sweep import Space

#: Energy descent (ours): an increase counts when E(x_{t+1}) − E(x_t) > 1e-6·E(x_0). float32 evaluates
#: E with an absolute error of about eps·‖x‖·√(2E_t) ≈ 1.2e-7·E_0 here (‖x‖ ≈ 3–8, E_0 ≈ 8–30).
DESCENT_RTOL = 1e-6
ATTRACT_DIST, ATTRACT_FRACTION = 1e-3, 0.99  # ours: distance below 1e-3 after the run in ≥ 99 % of trials
VELOCITY_RTOL = 0.02  # ours: phase velocity within ±2 % of v/τ
R2_MIN = 0.99  # ours: R² of the phase velocity against the drive v
DRIFT_MAX = 1e-4  # ours: drift of the decoded phase at v = 0, radians per step
#: An explicit-Euler-driven trajectory "diverged" past this final distance (the perturbations start
#: at distance 4–8; a stable one ends near 1e-1 or below).
DIVERGED_DIST = 1.0


def _orthogonality(ds, spec):
    """Per model: max |cos(∇E, T)| over seeds and trials, in units of (N + 2 log2 N)·eps32."""
    worst = ds["ortho"].max(other_dims(ds["ortho"], "model"))
    n = xr.DataArray([spec.n if m == "ring" else spec.side**2 for m in worst["model"].values], dims="model")
    return worst / ((n + 2 * np.log2(n)) * np.finfo(np.float32).eps)


BELOW_BOUND = needs(
    lambda ds, spec: float(np.max(ds["dt"] / ds["tau"]) * ds["top_curvature"].max()) < 2.0,
    "η·L* is not below 2: the preset runs above the stability bound",
)


def _per_model(flags):
    """Every (seed, trial, v...) lane of a model as one sample ``lane``, per model."""
    return flags.stack(lane=other_dims(flags, "model"))


def _driven(ds, var):
    return ds[var].sel(v=[v for v in ds["v"].values if v != 0.0])


def _r2(ds, spec):
    def fit(m):  # R² of one model's velocity against v, at the family's per-cell level and the claim's seed
        return lambda level, seed: analysis.linear_r2(
            ds["velocity"].sel(model=m), "v", level=level, seed=seed
        )

    return Cells(({"model": m}, fit(m)) for m in ds["velocity"]["model"].values)


def _mexican_hat(ds, spec):
    """min(w(1), −min_{2 ≤ Δ ≤ N/4} w(Δ)) / max_{Δ ≥ 1} |w(Δ)| per seed: positive iff Mexican hat."""
    w = ds["w_kernel"].astype(float)
    inhib = -w.isel(lag=slice(2, spec.n // 4 + 1)).min("lag", skipna=False)
    scale = abs(w.isel(lag=slice(1, None))).max("lag", skipna=False)
    return np.minimum(w.isel(lag=1, drop=True), inhib) / scale


def _euler_mismatch(ds, spec):
    """Lanes × drives × models where 'diverged' (final distance > 1 or non-finite) ≠ 'growth > 1'."""
    d = ds["euler_distance"]
    diverged = (~np.isfinite(d) | (d > DIVERGED_DIST)).any("euler_trial")
    return int((diverged != (ds["euler_growth"] > 1.0)).sum())


PER_MODEL = dict(hue="model", logy=True)
EULER = dict(x="step", xlabel="Euler step")  # the figures along the Euler dynamics

EXPERIMENT = Experiment(
    name="seal-ring-attractor",
    paper=Paper(
        title="SEAL: Spatial Energy Attractor Learning (Hopfield energies for ring and torus attractors)",
        found=False,
        banner="The formulation is our derivation from the abstract and the ring/bump, grid-cell torus, "
        "Hopfield-energy and MADE literature; no paper, authors or code were found.",
        unverified=(
            "A full (non-circulant) learned W on a ring of N = 256 and a 32×32 torus, and neural-network "
            "energy families (not built here).",
            "Comparison with hand-built continuous-attractor networks.",
        ),
    ),
    simulator=seal.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(seeds=8),
            description="CPU, about a minute, one compile: 8 seeds (one learned ring and torus each); N = 64, K = 8, "
            "16×16 torus, 2000 Adam steps (ring batch 256, torus batch 64), and 128 test states per seed (1024 in "
            "all) × 5 drives × 500 steps, shrunk from batch 256 / 256 states per seed to fit a 2-core CPU.",
        ),
        "full": Preset(
            Space(seeds=64),
            spec={"n": 256, "k_max": 16, "side": 32, "grid_m": 4, "n_test": 1024, "steps": 1000},
            description="One accelerator: ring N = 256 (K = 16), 32×32 torus, 1024 test states, 64 seeds.",
        ),
    },
    claims=[
        Claim.identity(
            "tangent-orthogonal",
            "Rotation invariance: ⟨∇E, T⟩ = 0. Measured: the largest |cos(∇E(x), T(x))| over every "
            "perturbed test state, seed and (torus) tangent, in units of (N + 2 log₂N)·eps_f32 (the "
            "worst-case rounding of an N-term inner product plus two FFT round trips; 9.1e-6 for the "
            "ring, 3.2e-5 for the torus); it must be at most 1.",
            _orthogonality,
            1.0,
        ),
        Claim.at_most(
            "energy-descent",
            "Below the stability bound η = dt/τ < 2/L* E(x_t) never increases along autonomous Euler "
            "trajectories: the number of trials (all seeds) with an increase above 1e-6·E(x₀) is 0.",
            lambda ds, spec: (_per_model(ds["max_rel_increase"]) > DESCENT_RTOL).sum("lane").astype(float),
            0.0,
            source="reconstruction",
            quote="whose autonomous dynamics preserve energy descent",
            deterministic=True,
            requires=BELOW_BOUND,
        ),
        Claim(
            "descent-lost-above-bound",
            "Control: at η = 1.5·2/L* (above the bound) the energy rises (by more than 1e-6·E₀) within "
            "100 steps in at least 90 % of trials (the top Hessian direction is multiplied by "
            "1 − ηL* = −2 per step near the manifold).",
            Stat.fraction(lambda ds, spec: _per_model(ds["unstable_increase"] > DESCENT_RTOL), over="lane"),
            Region.at_least(0.9),
            source="sanity",
        ),
        Claim(
            "normal-attraction",
            "From σ = 0.5 perturbations the distance to the learned manifold (an upper bound: the "
            "distance to its point at the decoded phase) is below 1e-3 after 500 Euler steps (v = 0) "
            "in at least 99 % of trials of all seeds. The thresholds 1e-3 and 99 % are ours.",
            Stat.fraction(lambda ds, spec: _per_model(ds["distance"].sel(v=0.0) < ATTRACT_DIST), over="lane"),
            Region.at_least(ATTRACT_FRACTION),
            source="reconstruction",
            quote="the learned energies restore perturbed states to ring and torus manifolds",
        ),
        Claim(
            "shape-under-transport",
            "Under the drive (v ≠ 0, applied as the rotation it generates) the bump / grid shape is "
            "kept: distance to the manifold below 1e-3 after 500 steps in at least 99 % of trials. "
            "The thresholds are ours.",
            Stat.fraction(lambda ds, spec: _per_model(_driven(ds, "distance") < ATTRACT_DIST), over="lane"),
            Region.at_least(ATTRACT_FRACTION),
            source="reconstruction",
            quote="stabilize velocity-driven moving bumps across multiple input regimes",
        ),
        Claim.close(
            "phase-velocity",
            "Tangent transport: the decoded phase moves at v/τ (ring: −arg x̂₁; torus: −arg X_K₁/m); "
            "measured over the second half of the run as the trial-mean phase displacement per unit "
            "time, divided by v/τ: 1 ± 0.02 per drive v ≠ 0. The tolerance is ours.",
            lambda ds, spec: (v := _driven(ds, "velocity")) * ds["tau"] / v["v"],
            1.0,
            atol=VELOCITY_RTOL,
            source="reconstruction",
            quote="Fourier energy landscapes yield ring and torus attractors with learned normal "
            "attraction and input-driven tangent transport",
        ),
        Claim.at_least(
            "phase-linear-in-v",
            "The phase velocity is linear in the drive: R² of velocity against v ∈ {0, ±0.5, ±1} "
            "above 0.99 (seed-mean curve, bootstrap over seeds).",
            _r2,
            R2_MIN,
            source="proposed",
        ),
        Claim.at_most(
            "no-drift",
            "Without drive the decoded phase stays put: the largest |Δθ̂| per step over the second "
            "half of the run, over all trials of a seed, is below 1e-4 rad/step.",
            lambda ds, spec: ds["drift"].max("trial"),
            DRIFT_MAX,
            source="proposed",
        ),
        Claim.equals(
            "euler-drive-stability",
            "The explicit-Euler drive x ← x − η(∇E − vT) diverges (final distance > 1 or non-finite) "
            "exactly where its growth factor on the decoupled modes, √((1 − ηλ_hi)² + (ηvk_max)²), "
            "exceeds 1: the count of (seed, model, v) where the two disagree is 0.",
            _euler_mismatch,
            0,
            source="derived",
        ),
        Claim.at_least(
            "mexican-hat",
            "The learned connectivity (the circulant part of 1 − Hessian of E on the ring, a linear "
            "Hopfield network's W) is a Mexican hat: excitatory between neighbours, w(1) > 0, and "
            "inhibitory at intermediate distances, min over 2 ≤ Δ ≤ N/4 of w(Δ) < 0. Score per seed: "
            "min(w(1), −min w(Δ)) / max|w|, positive for a hat; its seed mean is above 0.",
            _mexican_hat,
            0.0,
            source="reconstruction",
            quote="induce continuous-attractor interactive structures with local excitation and "
            "surround inhibition",
        ),
    ],
    figures=[
        Figure(
            "training",
            plots.curves(
                "train_loss",
                x="train_step",
                **PER_MODEL,
                xlabel="Adam step",
                ylabel="restoring-field matching loss (median, IQR)",
            ),
            "Restoring-field matching loss during Adam training, median and IQR over seeds.",
        ),
        Figure(
            "attraction",
            plots.curves(
                "distance_curve",
                **PER_MODEL,
                **EULER,
                hlines={"threshold": ATTRACT_DIST},
                ylabel="trial-mean distance to the manifold, v = 0",
            ),
            "Trial-mean distance to the learned manifold along the autonomous Euler dynamics (v = 0), "
            "median and IQR over seeds, with the 1e-3 threshold.",
        ),
        Figure(
            "transport",
            plots.curves(
                "displacement",
                **EULER,
                hue="v",
                facet="model",
                label_fmt="v={:g}",
                theory=lambda c, spec: c["v"] * c["step"] * c["dt"] / c["tau"],
                theory_label="v·t/τ",
                ylabel="unwrapped phase displacement (rad)",
            ),
            "Trial-mean unwrapped phase displacement per drive v (median, IQR over seeds), with the "
            "prediction v·t/τ dotted.",
            size=(9.0, 3.6),
        ),
        Figure(
            "connectivity",
            plots.curves(
                lambda ds, spec: ds["w_kernel"].isel(lag=slice(1, None)),
                x="lag",
                marker="o",
                ms=2,
                xlabel=lambda spec: f"distance Δ between neurons (of N = {spec.n})",
                ylabel="w(Δ), Δ ≥ 1 (median, IQR over seeds)",
            ),
            "The ring's learned Hopfield connectivity w(Δ) (circulant part of 1 − Hessian), median "
            "and IQR over seeds.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
