"""``noisy-quadratic``: SGD and heavy ball on a noisy quadratic, checked against closed forms.

This is the demonstration experiment and the worked example for writing one: a pure
run function (:mod:`jaxtheory.sims.quadratic`), a space per preset, claims that
compare the sweep with the closed-form stationary risk and the stability threshold,
and figures.
"""

from __future__ import annotations

import json

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, plots
from jaxtheory.sims import quadratic as quad
from jaxtheory.sweep import Space, lin, log, static, values

# A lane's mean decays like rho^t: it must fall below this over the averaging window
# for its time-averaged risk to be the stationary one (bias <= 1e-3 relative).
MIXED = 1e-3
# An unstable lane grows like rho^T from an O(1) start; past 1e25 it overflows float32
# (risk ~ x^2 > 3.4e38), so the horizon resolves its divergence.
RESOLVED = 1e25
# The time average over the second half is the stationary risk up to a bias below MIXED
# (relative), so the seed-mean ratio measured / closed form must lie within 1 ± REL_TOL;
# 5% is far above that bias and below any error of substance (a wrong factor (1+β), a
# missing ½, a wrong threshold are all > 10%). The interval over seeds decides.
REL_TOL = 0.05


def _lanes(ds, spec):
    """One row per config: its hyperparameters (swept or default), and per-seed results."""
    cfg_dims = [d for d in ds["mean_risk"].dims if d != "seed"]
    stacked = ds[["mean_risk", "status"]].stack(cfg=cfg_dims) if cfg_dims else ds.expand_dims(cfg=[0])
    defaults = {**quad.DEFAULT_PARAMS, **json.loads(ds.attrs.get("manifest", "{}")).get("params", {})}
    rows = []
    for i in range(stacked.sizes["cfg"]):
        cell = stacked.isel(cfg=i)

        def get(name, default, cell=cell):
            return cell[name].item() if name in cell.coords else default

        p = {k: float(get(k, v)) for k, v in defaults.items()}
        dim = int(get("dim", spec.dim))
        rows.append(
            dict(
                lr=p["lr"],
                momentum=p["momentum"],
                noise=p["noise"],
                dim=dim,
                lam=quad.spectrum(dim, p["lam_min"], p["lam_max"], xp=np),
                mean_risk=cell["mean_risk"].values,
                status=cell["status"].values,
            )
        )
    return rows


def _stationary_ratio(momentum_filter):
    """Per seed and mixed config: time-averaged risk / closed-form stationary risk."""

    def measure(ds, spec):
        cols, labels = [], []
        for r in _lanes(ds, spec):
            if not momentum_filter(r["momentum"]) or (r["status"] != 0).any():
                continue
            rho = quad.spectral_radius(r["lr"], r["momentum"], r["lam"])
            if rho ** (spec.steps // 2) > MIXED:
                continue
            theory = float(quad.stationary_risk(r["lr"], r["momentum"], r["noise"], r["lam"]))
            cols.append(r["mean_risk"] / theory)
            labels.append(f"lr={r['lr']:.4g} β={r['momentum']:g} σ={r['noise']:g} d={r['dim']}")
        if not cols:
            raise NotApplicable("no config of this preset with this momentum is stable and mixed")
        return xr.DataArray(np.stack(cols, axis=1), dims=("seed", "config"), coords={"config": labels})

    return measure


def _misclassified(momentum_filter):
    """Lanes whose divergence disagrees with the threshold (past it by a resolvable margin)."""

    def measure(ds, spec):
        wrong = 0
        for r in _lanes(ds, spec):
            if not momentum_filter(r["momentum"]):
                continue
            rho = quad.spectral_radius(r["lr"], r["momentum"], r["lam"])
            div = r["status"] != 0
            if rho < 1.0:
                wrong += int(div.sum())
            elif spec.steps * np.log(rho) >= np.log(RESOLVED):
                wrong += int((~div).sum())
        return wrong

    return measure


def _both_sides(momentum_filter):
    """``requires``: the preset has lanes on both sides of the threshold."""

    def requires(ds, spec):
        above = below = 0
        for r in _lanes(ds, spec):
            if momentum_filter(r["momentum"]):
                rho = quad.spectral_radius(r["lr"], r["momentum"], r["lam"])
                below += rho < 1.0
                above += spec.steps * np.log(rho) >= np.log(RESOLVED)
        if not (above and below):
            return "the preset has no resolvable lanes on one side of the threshold"
        return None

    return requires


def _sgd(b):
    return b == 0.0


def _hb(b):
    return b > 0.0


def _theory(c, spec):
    """Closed-form stationary risk at a figure's coordinates; NaN past the stability threshold."""
    dim = int(c.get("dim", spec.dim))
    lam = quad.spectrum(dim, quad.DEFAULT_PARAMS["lam_min"], quad.DEFAULT_PARAMS["lam_max"], xp=np)
    stable = quad.spectral_radius(c["lr"], c["momentum"], lam) < 1
    return np.where(stable, quad.stationary_risk(c["lr"], c["momentum"], c["noise"], lam), np.nan)


# every figure at the largest noise and dimension of the preset
_LARGEST = {"noise": max, "dim": max}
_STABLE_SGD = {**_LARGEST, "momentum": 0.0, "lr": lambda lr: lr < 2 / quad.DEFAULT_PARAMS["lam_max"]}


DESCRIPTION = r"""
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
"""

EXPERIMENT = Experiment(
    name="noisy-quadratic",
    paper=Paper(
        title="Closed forms for SGD and heavy-ball momentum on a noisy quadratic "
        "(classical; demonstration experiment)",
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
            "sgd-stationary-risk",
            "SGD's stationary excess risk is ½Σᵢ ησ²/(2 − ηλᵢ) (closed form per eigenmode): "
            "the seed-mean ratio measured / closed form is 1 at every stable, mixed config.",
            _stationary_ratio(_sgd),
            1.0,
            atol=REL_TOL,
            source="lit",
        ),
        Claim.close(
            "heavy-ball-stationary-risk",
            "Heavy ball's stationary excess risk is ½Σᵢ (1+β)ησ²/((1−β)(2(1+β) − ηλᵢ)): the "
            "seed-mean ratio measured / closed form is 1 at every stable, mixed config.",
            _stationary_ratio(_hb),
            1.0,
            atol=REL_TOL,
            source="lit",
        ),
        Claim.equals(
            "sgd-stability-threshold",
            "SGD diverges iff η > 2/λmax: every lane past the threshold by a margin the "
            f"horizon resolves (ρ^T ≥ {RESOLVED:g}) diverges, and none below it does.",
            _misclassified(_sgd),
            0,
            source="lit",
            requires=_both_sides(_sgd),
        ),
        Claim.equals(
            "heavy-ball-stability-threshold",
            "Heavy ball diverges iff η > 2(1+β)/λmax: every lane past it by a resolvable "
            "margin diverges, none below it does (misclassified lanes: 0).",
            _misclassified(_hb),
            0,
            source="lit",
            requires=_both_sides(_hb),
        ),
    ],
    figures=[
        Figure(
            "risk_curves",
            plots.curves(
                "risk",
                x="step",
                hue="lr",
                band="se",
                sel=_STABLE_SGD,
                theory=_theory,
                theory_label="closed form",
                logx=True,
                logy=True,
                label_fmt="η={:.3g}",
                cmap="viridis",
                ylabel="excess risk",
            ),
            "Excess risk of SGD against steps (seed mean ± one standard error), one curve per stable "
            "learning rate, at the largest σ and d; dotted lines are the closed-form stationary risks.",
        ),
        Figure(
            "stationary_risk",
            plots.curves(
                "mean_risk",
                x="lr",
                hue="momentum",
                band="se",
                sel=_LARGEST,
                theory=_theory,
                theory_label="closed form",
                logx=True,
                logy=True,
                marker="o",
                ms=3,
                ls="none",
                label_fmt="β={:g}",
                xlabel="learning rate η",
                ylabel="time-averaged risk, 2nd half",
            ),
            "Time-averaged risk over the second half (points, seed mean ± one standard error) against the "
            "closed form (dotted), at the largest σ and d; the closed form ends at 2(1+β)/λmax.",
        ),
        Figure(
            "divergence",
            plots.heatmap(
                lambda ds, spec: ds["status"] != 0,
                x="lr",
                y="momentum",
                over=("seed", "noise", "dim"),
                cmap="Reds",
                vmin=0,
                vmax=1,
                clabel="fraction diverged",
                theory=lambda c, spec: c["lr"] - 2 * (1 + c["momentum"]) / quad.DEFAULT_PARAMS["lam_max"],
                theory_label="η = 2(1+β)/λmax",
                xlabel="learning rate η",
                ylabel="momentum β",
            ),
            "Fraction of diverged lanes over (η, β), pooled over seeds, σ and d; the dashed line is the "
            "theoretical threshold η = 2(1+β)/λmax.",
        ),
    ],
    description=DESCRIPTION,
)
