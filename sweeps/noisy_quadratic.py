r"""``noisy-quadratic``: SGD and heavy ball on a noisy quadratic, checked against closed forms.

Heavy-ball momentum (plain SGD at $\beta = 0$), through `optax.sgd(lr, momentum)`, on
$f(x) = \tfrac12 \sum_i \lambda_i x_i^2$ with a geometric spectrum from
$\lambda_{\max} = 1$ to $\lambda_{\min} = 0.1$, started at $x_0 = \mathbf{1}/\sqrt d$,
with gradient oracle $g = \Lambda x + \sigma \xi$, $\xi \sim N(0, I)$.

Per eigenmode the iteration is the AR(2) recursion
$x_{t+1} = (1 + \beta - \eta\lambda) x_t - \beta x_{t-1} - \eta\sigma\xi_t$. Its
stationary variance gives the excess risk
$$\mathbb{E} f_\infty = \frac12 \sum_i \frac{(1+\beta)\,\eta\sigma^2}{(1-\beta)\,(2(1+\beta) - \eta\lambda_i)},$$
which is $\frac12\sum_i \eta\sigma^2/(2 - \eta\lambda_i)$ for SGD, and it is stable iff
$\eta\lambda_{\max} < 2(1+\beta)$ (for SGD, $\eta < 2/\lambda_{\max}$).

The run records the risk at log-spaced steps and its time average over the second
half of the horizon. Lanes that overflow are frozen by the engine's divergence guard
and flagged with the step where they went non-finite.

The worked example of an experiment: a declared simulator, a space per preset, claims
against the closed forms and declared figures. Every parameter is a coordinate of the
results, so each measure is written once for every preset.
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


def _stationary_ratio(heavy_ball):
    def measure(ds, spec):  # per seed and stable, mixed config: time-averaged risk / closed form
        c = _configs(ds, spec, heavy_ball)
        c = c.isel(
            config=np.flatnonzero((~c["div"].any("seed") & (c["rho"] ** (c["steps"] // 2) <= MIXED)).values)
        )
        if not c.sizes["config"]:
            raise NotApplicable("no config of this preset with this momentum is stable and mixed")
        labels = [f"lr={lr:.4g} β={b:g} σ={s:g} d={d}" for _, d, lr, b, s in c.indexes["config"]]
        ratio = (c["risk"] / c["theory"]).drop_vars(["config", *CONFIG]).assign_coords(config=labels)
        return ratio.transpose("seed", "config")

    return measure


def _misclassified(heavy_ball):
    def measure(ds, spec):  # lanes past the threshold by a resolvable margin whose divergence disagrees
        c = _configs(ds, spec, heavy_ball)
        past = c["steps"] * np.log(c["rho"]) >= np.log(RESOLVED)
        return int((c["div"] & (c["rho"] < 1)).sum() + (~c["div"] & past).sum())

    return measure


def _both_sides(heavy_ball):
    def requires(ds, spec):
        c = _configs(ds, spec, heavy_ball)
        if not ((c["rho"] < 1).any() and (c["steps"] * np.log(c["rho"]) >= np.log(RESOLVED)).any()):
            return "the preset has no resolvable lanes on one side of the threshold"
        return None

    return requires


def _theory(c, spec):  # the closed form at a figure's coordinates; NaN past the threshold
    lam = quad.spectrum(int(c["dim"]), c["lam_min"], c["lam_max"], xp=np)
    stable = quad.spectral_radius(c["lr"], c["momentum"], lam) < 1
    return np.where(stable, quad.stationary_risk(c["lr"], c["momentum"], c["noise"], lam), np.nan)


LARGEST = {"noise": max, "dim": max}  # figures at the preset's largest noise and dimension
STABLE_SGD = {**LARGEST, "momentum": 0.0, "lr": lambda lr: lr < 2 / quad.DEFAULT_PARAMS["lam_max"]}
CURVES = dict(band="se", theory=_theory, theory_label="closed form", logx=True, logy=True)
RATIO = "the seed-mean ratio measured / closed form is 1 at every stable, mixed config."
SGD_RISK = f"SGD's stationary excess risk is ½Σᵢ ησ²/(2 − ηλᵢ) (closed form per eigenmode): {RATIO}"
HB_RISK = f"Heavy ball's stationary excess risk is ½Σᵢ (1+β)ησ²/((1−β)(2(1+β) − ηλᵢ)): {RATIO}"
SGD_STABLE = (
    "SGD diverges iff η > 2/λmax: every lane past the threshold by a margin the "
    f"horizon resolves (ρ^T ≥ {RESOLVED:g}) diverges, and none below it does."
)
HB_STABLE = (
    "Heavy ball diverges iff η > 2(1+β)/λmax: every lane past it by a resolvable "
    "margin diverges, none below it does (misclassified lanes: 0)."
)

RISK_CURVES = plots.curves("risk", x="step", hue="lr", sel=STABLE_SGD, label_fmt="η={:.3g}", **CURVES)
STATIONARY = plots.curves("mean_risk", x="lr", hue="momentum", sel=LARGEST, marker="o", ls="none", **CURVES)
DIVERGENCE = plots.heatmap(
    lambda ds, spec: ds["status"] != 0,
    x="lr",
    y="momentum",
    over=("seed", "noise", "dim"),
    cmap="Reds",
    theory=lambda c, spec: c["lr"] - 2 * (1 + c["momentum"]) / c["lam_max"],
    theory_label="η = 2(1+β)/λmax",
)

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
        Claim.close(
            "sgd-stationary-risk", SGD_RISK, _stationary_ratio(False), 1.0, atol=REL_TOL, source="lit"
        ),
        Claim.close(
            "heavy-ball-stationary-risk", HB_RISK, _stationary_ratio(True), 1.0, atol=REL_TOL, source="lit"
        ),
        Claim.equals(
            "sgd-stability-threshold",
            SGD_STABLE,
            _misclassified(False),
            0,
            source="lit",
            requires=_both_sides(False),
        ),
        Claim.equals(
            "heavy-ball-stability-threshold",
            HB_STABLE,
            _misclassified(True),
            0,
            source="lit",
            requires=_both_sides(True),
        ),
    ],
    figures=[
        Figure(
            "risk_curves",
            RISK_CURVES,
            "Excess risk of SGD against steps (seed mean ± one standard error), "
            "one curve per stable learning rate, at the largest σ and d; dotted: the closed-form stationary risks.",
        ),
        Figure(
            "stationary_risk",
            STATIONARY,
            "Time-averaged risk over the second half (seed mean ± one standard "
            "error) against the closed form (dotted), at the largest σ and d; it ends at 2(1+β)/λmax.",
        ),
        Figure(
            "divergence",
            DIVERGENCE,
            "Fraction of diverged lanes over (η, β), pooled over seeds, σ and d; "
            "dashed: the theoretical threshold η = 2(1+β)/λmax.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1].rsplit("\n\nThe worked example", 1)[0],
)
