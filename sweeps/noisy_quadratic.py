r"""``noisy-quadratic``: SGD and heavy ball on a noisy quadratic, checked against closed forms.

Heavy-ball momentum (SGD at $\beta = 0$), through `optax.sgd(lr, momentum)`, on
$f(x) = \tfrac12 \sum_i \lambda_i x_i^2$, a geometric spectrum from $\lambda_{\max} = 1$ to
$\lambda_{\min} = 0.1$, $x_0 = \mathbf{1}/\sqrt d$, and gradients $g = \Lambda x + \sigma \xi$. Per eigenmode
the iteration is the AR(2) recursion $x_{t+1} = (1 + \beta - \eta\lambda) x_t - \beta x_{t-1} - \eta\sigma\xi_t$,
whose stationary variance gives the excess risk
$$\mathbb{E} f_\infty = \frac12 \sum_i \frac{(1+\beta)\,\eta\sigma^2}{(1-\beta)\,(2(1+\beta) - \eta\lambda_i)},$$
stable iff $\eta\lambda_{\max} < 2(1+\beta)$. The run records the risk at log-spaced steps and
its average over the second half of the horizon; the engine's divergence guard freezes lanes
that overflow and flags them.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, plots
from jaxtheory.results import as_dims
from jaxtheory.sims import quadratic as quad
from jaxtheory.sweep import Space, lin, log, static, values

MIXED = 1e-3  # the mean decays like ρ^t: below this over the averaging window, the average is stationary
RESOLVED = 1e25  # an unstable lane grows like ρ^T from O(1): past this it overflows float32 in the horizon
REL_TOL = 0.05  # far above the MIXED bias, below any error of substance (a wrong factor is > 10%)
CONFIG = ("steps", "dim", "lr", "momentum", "noise")  # a config: one value of each, swept or not


def _closed(lr, b, noise, dim, lam_min, lam_max):
    lam = quad.spectrum(int(dim), lam_min, lam_max, xp=np)
    return quad.spectral_radius(lr, b, lam), quad.stationary_risk(lr, b, noise, lam)


def _configs(ds, spec, heavy_ball):
    """Per config of SGD (or heavy ball): its seeds' results, spectral radius and closed form."""
    ds = as_dims(ds, *CONFIG)
    args = (ds[k] for k in ("lr", "momentum", "noise", "dim", "lam_min", "lam_max"))
    rho, theory = xr.apply_ufunc(np.vectorize(_closed), *args, output_core_dims=[[], []])
    out = xr.Dataset({"risk": ds["mean_risk"], "div": ds["status"] != 0, "rho": rho, "theory": theory})
    out = out.stack(config=CONFIG).transpose("config", "seed")
    return out.isel(config=np.flatnonzero((out["momentum"] > 0).values == heavy_ball))


def _claims(heavy_ball, who, name, risk, threshold):
    """The stationary-risk claim and the stability-threshold claim for SGD (or heavy ball)."""
    risk = f"{name}'s stationary excess risk is {risk}: measured / closed form is 1 at every stable, mixed config."
    stable = f"{name} diverges iff η > {threshold}: every lane past it by a margin the horizon resolves "
    stable += f"(ρ^T ≥ {RESOLVED:g}) diverges, and none below it does."

    def ratio(ds, spec):  # per seed and stable, mixed config: time-averaged risk / closed form
        c = _configs(ds, spec, heavy_ball)
        mixed = ~c["div"].any("seed") & (c["rho"] ** (c["steps"] // 2) <= MIXED)
        c = c.isel(config=np.flatnonzero(mixed.values))
        if not c.sizes["config"]:
            raise NotApplicable("no config of this preset with this momentum is stable and mixed")
        labels = [f"lr={lr:.4g} β={b:g} σ={s:g} d={d}" for _, d, lr, b, s in c.indexes["config"]]
        return (c["risk"] / c["theory"]).drop_vars(["config", *CONFIG]).assign_coords(config=labels)

    def sides(ds, spec):  # stable lanes, and lanes past the threshold by a margin the horizon resolves
        c = _configs(ds, spec, heavy_ball)
        return c, c["rho"] < 1, c["steps"] * np.log(c["rho"]) >= np.log(RESOLVED)

    def misclassified(ds, spec):
        c, below, past = sides(ds, spec)
        return int((c["div"] & below).sum() + (~c["div"] & past).sum())

    def requires(ds, spec):
        _, below, past = sides(ds, spec)
        return None if below.any() and past.any() else "no resolvable lanes on one side of the threshold"

    return [
        Claim.close(f"{who}-stationary-risk", risk, ratio, 1.0, atol=REL_TOL, source="lit"),
        Claim.equals(f"{who}-stability-threshold", stable, misclassified, 0, source="lit", requires=requires),
    ]


def _theory(c, spec):  # the closed form at a figure's coordinates; NaN past the threshold
    rho, risk = _closed(*(c[k] for k in ("lr", "momentum", "noise", "dim", "lam_min", "lam_max")))
    return np.where(rho < 1, risk, np.nan)


LARGEST = {"noise": max, "dim": max}  # figures at the preset's largest noise and dimension
STABLE_SGD = {**LARGEST, "momentum": 0.0, "lr": lambda lr: lr < 2 / quad.DEFAULT_PARAMS["lam_max"]}
CURVES = dict(band="se", theory=_theory, theory_label="closed form", logx=True, logy=True)
EXPERIMENT = Experiment(
    name="noisy-quadratic",
    paper=Paper(
        title="Closed forms for SGD and heavy-ball momentum on a noisy quadratic (classical; demonstration experiment)",
        authors="Polyak (1964); textbook stationary analysis",
    ),
    simulator=quad.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(
                lr=log(0.05, 8.0, num=12),
                momentum=values(0.0, 0.5, 0.9),
                noise=values(0.1, 1.0),
                dim=static(4, 16),
                seeds=256,
            ),
            description="CPU, under a minute: 2 static groups × 18,432 lanes, 1000 steps (256 "
            "seeds: at 32 the slow-mixing d = 4 configs cannot decide ±5%).",
        ),
        "full": Preset(
            Space(
                lr=log(0.01, 8.0, num=64),
                momentum=lin(0.0, 0.95, num=20),
                noise=values(0.01, 0.1, 1.0),
                dim=static(16, 64, 256),
                seeds=64,
            ),
            spec={"steps": 10_000, "num_log": 64},
            description="One accelerator: 3 static groups × 245,760 lanes, 10⁴ steps.",
        ),
    },
    claims=[
        *_claims(False, "sgd", "SGD", "½Σᵢ ησ²/(2 − ηλᵢ) (closed form per eigenmode)", "2/λmax"),
        *_claims(True, "heavy-ball", "Heavy ball", "½Σᵢ (1+β)ησ²/((1−β)(2(1+β) − ηλᵢ))", "2(1+β)/λmax"),
    ],
    figures=[
        Figure(
            "risk_curves",
            plots.curves("risk", x="step", hue="lr", sel=STABLE_SGD, label_fmt="η={:.3g}", **CURVES),
            "Excess risk of SGD against steps (seed mean ± one standard error) per stable learning rate, "
            "at the largest σ and d; dotted: the closed-form stationary risks.",
        ),
        Figure(
            "stationary_risk",
            plots.curves("mean_risk", x="lr", hue="momentum", sel=LARGEST, marker="o", ls="none", **CURVES),
            "Time-averaged risk over the second half (seed mean ± one standard error) against the closed "
            "form (dotted), at the largest σ and d; it ends at 2(1+β)/λmax.",
        ),
        Figure(
            "divergence",
            plots.heatmap(
                lambda ds, spec: ds["status"] != 0,
                x="lr",
                y="momentum",
                over=("seed", "noise", "dim"),
                cmap="Reds",
                theory=lambda c, spec: c["lr"] - 2 * (1 + c["momentum"]) / c["lam_max"],
                theory_label="η = 2(1+β)/λmax",
            ),
            "Fraction of diverged lanes over (η, β), pooled over seeds, σ and d; dashed: the theoretical "
            "threshold η = 2(1+β)/λmax.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
