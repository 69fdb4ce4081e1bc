r"""``linreg-compute-frontier``: risk against compute, and the compute-optimal frontier of SGD, LA and SLA.

Goes beyond arXiv:2603.26954: on streaming Gaussian linear regression with a
power-law spectrum :math:`\lambda_i \propto i^{-a}` (:math:`\operatorname{tr}K = 1`) and
a power-law target :math:`\lambda_i\theta^{*2}_i \propto i^{-b}`
(:mod:`jaxtheory.sims.linreg.problems`), the exact expected excess risk of

* SGD (step :math:`\eta`, batch :math:`B`),
* LA (lookahead; inner SGD step :math:`\eta`, outer step :math:`\alpha`, sync period
  :math:`k`),
* SLA heavy ball (LA with outer heavy-ball momentum :math:`\mu`),

is computed with the per-mode recursions of :mod:`jaxtheory.sims.linreg.exact`
(deterministic, :math:`O(D)` per gradient step). One lane is one point
:math:`(a, b, \eta)`; it runs the three algorithms and logs the risk on a log-spaced
step grid. **Compute** is the number of per-sample gradient evaluations,
:math:`C = t \cdot B` after :math:`t` gradient steps (LA and SLA spend one minibatch
gradient per inner step, like SGD; the outer step costs no gradient).

**Compute-optimal frontier.** For each algorithm and :math:`(a, b)`,
:math:`F(C) = \min_\eta R_\eta(C)` over the learning-rate grid (the lower envelope;
diverged runs are NaN and ignored; :func:`frontier`). Its log-log slope is fitted by
least squares over :math:`C \in [C_{\max}/16, C_{\max}]`
(:func:`jaxtheory.analysis.loglog_slope`, exact: no interval).

**Derivation of the SGD frontier exponent (signal-dominated regime).** Take
:math:`\sigma^2 = 0`. Without the sampling noise the mean error of mode :math:`i`
decays as :math:`(1-\eta\lambda_i)^t`, so
:math:`R(t) = \tfrac12\sum_i \lambda_i\theta^{*2}_i (1-\eta\lambda_i)^{2t}
\approx \tfrac12\sum_i i^{-b} e^{-2\eta t\lambda_i}/Z_b`. Modes with
:math:`2\eta t\lambda_i \gg 1`, i.e. :math:`i \ll i_*(t) = (2\eta t/Z_a)^{1/a}`
(:math:`\lambda_i = i^{-a}/Z_a`), are learned; the rest keep their energy. Hence, for
:math:`b > 1` and :math:`i_* \ll D`,

.. math::
    R(t) \asymp \sum_{i > i_*} i^{-b} \asymp i_*^{1-b} \propto (\eta t)^{-(b-1)/a}.

The sampling noise of SGD (batch :math:`B`, :math:`\sigma^2=0`) adds a term
:math:`\propto (\eta/B)\,(\eta t)^{-(2-1/a)}` (the Volterra analysis of Paquette et al.,
*4+3 phases of compute-optimal neural scaling laws*, arXiv:2405.15074, with their
:math:`2\alpha = a`, :math:`2\alpha + 2\beta = b`), which decays faster than the signal
term when :math:`(b-1)/a < 2 - 1/a`, i.e. :math:`b < 2a`: every :math:`(a, b)` here
satisfies it. For every stable :math:`\eta` the risk then scales like
:math:`t^{-(b-1)/a}`, and the minimum over a fixed, finite :math:`\eta` grid of such
curves has, asymptotically, the same exponent. With :math:`C = tB`:
the SGD frontier slope is :math:`-(b-1)/a`. The same argument applies to LA (the slow
modes see outer gradient descent on :math:`h(\lambda) = 1-(1-\eta\lambda)^k \approx
k\eta\lambda`, i.e. an effective step :math:`\alpha\eta` per gradient step) and to SLA
heavy ball (effective step :math:`\alpha\eta/(1-\mu)` on the slow modes): only the
constant changes, so their exponents are reported next to SGD's, but only SGD's is
asserted. Finite-size corrections (finite :math:`t`, the discrete sum, the cutoff
:math:`D`) are why the claim carries a 15% relative tolerance, fixed before measuring.

**Claims.** (1) the SGD frontier slope matches :math:`-(b-1)/a` within 15% for every
:math:`(a, b)`; (2) every frontier is non-increasing in compute (up to float32
round-off, relative :math:`10^{-5}`); (3) a measurement (a sanity check only: every
ratio is finite and positive): the ratio of the LA and SLA frontiers to SGD's at the
largest compute, per :math:`(a, b)`. The curves are exact recursions, so every
statistic is exact (no seeds, no interval).

Not covered: label noise (:math:`\sigma^2 > 0`, the variance-limited regime), tuning
of :math:`(\alpha, k, \mu)` (fixed per run), batch size as a compute axis.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis
from jaxtheory.results import as_dims, values_of
from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg.problems import log_grid
from jaxtheory.simulator import Simulator
from jaxtheory.sweep import Space, log, values

ALGOS = ("sgd", "la", "sla_heavy_ball")
FIT_DECADES = 16.0  # fit window: compute in [C_max / 16, C_max]
SLOPE_RTOL = 0.15  # finite-size tolerance of the SGD exponent claim
MONOTONE_RTOL = 1e-5  # float32 round-off allowance of the monotonicity claim


@dataclasses.dataclass(frozen=True)
class Spec:
    """Shapes of a lane.

    Attributes:
        dim: number of eigenmodes :math:`D`.
        steps: gradient steps :math:`T`.
        num_log: about this many log-spaced logged steps.
        batch: minibatch size :math:`B` (compute per step).
    """

    dim: int = 8192
    steps: int = 512
    num_log: int = 24
    batch: int = 4


PARAMS = {"lr": 0.5, "alpha": 0.5, "k": 4, "mu": 0.5, "sigma2": 0.0, "a": 1.5, "b": 1.5}


def run(spec: Spec, params, key=None):
    """One lane :math:`(a, b, \\eta)`: exact risk of SGD, LA and SLA-HB on the log step grid.

    Args:
        spec: :class:`Spec`.
        params: ``lr``, ``alpha``, ``k``, ``mu``, ``sigma2``, ``a``, ``b`` (JAX scalars).
        key: unused (the recursion is deterministic).

    Returns:
        ``risk`` of shape ``(len(ALGOS), num_logged)`` (NaN after a divergence) and
        ``diverged_step`` (always -1: a diverged algorithm is NaN, the lane stays).
    """
    p = dict(ex.EXACT_DEFAULT_PARAMS, **params, batch=spec.batch)
    mk = lambda alg, outer: ex.ExactSpec(
        dim=spec.dim,
        steps=spec.steps,  # noqa: E731
        num_log=spec.num_log,
        algorithm=alg,
        outer=outer,
    )
    sgd = ex.run(mk("sgd", "none"), p)["risk"]
    la = ex.run(mk("lookahead", "none"), dict(p, mu=0.0))["risk"]
    sla = ex.run(mk("lookahead", "heavy_ball"), p)["risk"]
    return {"risk": jnp.stack([sgd, la, sla]), "diverged_step": jnp.int32(-1)}


def _coords(spec):
    steps = log_grid(spec.steps, spec.num_log)
    return {"algo": list(ALGOS), "step": steps}


#: The simulator's declaration (its run is this module's wrapper of the exact recursions).
SIMULATOR = Simulator(run, spec=Spec(), params=PARAMS, metric_dims={"risk": ("algo", "step")}, coords=_coords)


# ---- frontier computation (numpy, public) -------------------------------------------------


def frontier(risk, axis: int = 0) -> np.ndarray:
    """Lower envelope over learning rates: the minimum risk at each compute.

    Args:
        risk: array with the learning-rate axis at ``axis``; NaN (diverged) entries are
            ignored; a position where every learning rate is NaN gives NaN.
        axis: the learning-rate axis.

    Returns:
        ``risk`` reduced over ``axis`` by a NaN-ignoring minimum.

    Example:
        >>> frontier(np.array([[1.0, np.nan], [2.0, 0.5]])).tolist()
        [1.0, 0.5]
    """
    r = np.asarray(risk, dtype=float)
    allnan = np.isnan(r).all(axis=axis)
    out = np.min(np.where(np.isnan(r), np.inf, r), axis=axis)
    return np.where(allnan, np.nan, out)


def _risk(ds):
    r = analysis.select(ds["risk"], seed=0)  # deterministic: one seed
    return as_dims(r, "a", "b", "lr").transpose("a", "b", "algo", "lr", "step")


def _compute(ds, spec):
    return np.asarray(ds["step"].values, float) * spec.batch


def frontiers(ds, spec) -> xr.DataArray:
    """The frontier of every ``(a, b, algo)``: a DataArray with dims ``(a, b, algo, step)``."""
    r = _risk(ds)
    return r.isel(lr=0, drop=True).copy(data=frontier(r.values, axis=3))


def _window(F, spec):
    """The fit window: compute in ``[C_max / FIT_DECADES, C_max]``."""
    steps = F["step"].values
    return F.sel(step=steps[steps * spec.batch >= steps[-1] * spec.batch / FIT_DECADES])


def slopes(ds, spec) -> dict:
    """Fitted frontier slope per ``(a, b, algo)`` over compute in ``[C_max/16, C_max]``.

    Returns:
        ``{cell label: Estimate}`` from :func:`jaxtheory.analysis.loglog_slope` (exact:
        the curves are deterministic recursions).
    """
    return analysis.loglog_slope(_window(frontiers(ds, spec), spec), "step", over=None)


def _theory(c):
    return -(c["b"] - 1) / c["a"]


# ---- claims -----------------------------------------------------------------------------


def _sgd_frontier(ds, spec):
    return _window(frontiers(ds, spec), spec).sel(algo="sgd", drop=True)


def _monotone(ds, spec):
    F = frontiers(ds, spec).values
    inc = np.diff(F, axis=-1) / F[..., :-1]
    return float(np.max(inc))  # NaN (every step size diverged somewhere): an error verdict


def _two_phase_vs_sgd(ds, spec):
    last = frontiers(ds, spec).isel(step=-1)
    out = {}
    for alg in ALGOS[1:]:
        r = last.sel(algo=alg, drop=True) / last.sel(algo="sgd", drop=True)
        for coords, sub in analysis.cells(r, []):
            out[f"{alg}/sgd,{analysis.cell_label(coords)}"] = float(sub)
    return out


# ---- figures ----------------------------------------------------------------------------


def _pairs(ds, n=4):
    pairs = [(i, j) for i in range(values_of(ds, "a").size) for j in range(values_of(ds, "b").size)]
    return pairs[:: max(1, len(pairs) // n)][:n]


def _draw_curves(ds, spec, fig):
    r = _risk(ds)
    c = _compute(ds, spec)
    pairs = _pairs(ds, n=2)
    lrs = values_of(ds, "lr")
    for row, (i, j) in enumerate(pairs):
        for col, alg in enumerate(ALGOS):
            ax = fig.add_subplot(len(pairs), len(ALGOS), row * len(ALGOS) + col + 1)
            for li, lr in enumerate(lrs):
                ax.plot(c, r.values[i, j, col, li], lw=0.8, color=f"C{li % 10}", label=f"η={lr:.3g}")
            ax.plot(c, frontier(r.values[i, j, col], axis=0), "k--", lw=1.2, label="frontier")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{alg}, a={values_of(ds, 'a')[i]:.3g}, b={values_of(ds, 'b')[j]:.3g}", fontsize=7)
            ax.tick_params(labelsize=6)
            if row == len(pairs) - 1:
                ax.set_xlabel("compute (gradient evaluations)", fontsize=7)
            if col == 0:
                ax.set_ylabel("excess risk", fontsize=7)
            if row == 0 and col == 0:
                ax.legend(fontsize=5)


def _draw_frontier(ds, spec, fig):
    F = frontiers(ds, spec).values
    c = _compute(ds, spec)
    pairs = _pairs(ds)
    for n, (i, j) in enumerate(pairs):
        ax = fig.add_subplot(1, len(pairs), n + 1)
        for k, alg in enumerate(ALGOS):
            ax.plot(c, F[i, j, k], marker=".", ms=3, label=alg)
        a, b = values_of(ds, "a")[i], values_of(ds, "b")[j]
        ref = F[i, j, 0, -1] * (c / c[-1]) ** (-(b - 1) / a)
        ax.plot(c, ref, "k:", lw=1, label="C^-(b-1)/a")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"a={a:.3g}, b={b:.3g}", fontsize=8)
        ax.set_xlabel("compute", fontsize=7)
        if n == 0:
            ax.set_ylabel("min over η of risk", fontsize=7)
            ax.legend(fontsize=6)


def _draw_exponents(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    fitted = slopes(ds, spec)
    for k, alg in enumerate(ALGOS):
        pts = [
            (_theory({"a": a, "b": b}), fitted[f"a={a:g},b={b:g},algo={alg}"].value)
            for a in values_of(ds, "a")
            for b in values_of(ds, "b")
        ]
        th, sl = np.asarray(pts).T
        ax.scatter(th, sl, label=alg, marker="os^"[k], alpha=0.7)
    th = [_theory({"a": a, "b": b}) for a in values_of(ds, "a") for b in values_of(ds, "b")]
    lo, hi = float(np.nanmin(th)) * 1.2, 0.0
    ax.plot([lo, hi], [lo, hi], "k-", lw=0.8, label="−(b−1)/a")
    ax.set_xlabel("theory −(b−1)/a")
    ax.set_ylabel("fitted frontier slope (exact curves)")
    ax.legend(fontsize=7)


EXPERIMENT = Experiment(
    name="linreg-compute-frontier",
    paper=Paper(
        title="High dimensional theory of two-phase optimizers", arxiv="2603.26954", authors="Atish Agarwala"
    ),
    simulator=SIMULATOR,
    presets={
        "smoke": Preset(
            Space(a=values(1.5, 2.0), b=values(1.5, 2.0), lr=log(0.25, 2.0, num=4), seeds=1),
            spec={"dim": 8192, "steps": 512, "num_log": 20, "batch": 4},
            description="CPU, seconds: 16 lanes × 3 algorithms, D = 8192, 512 steps.",
        ),
        "full": Preset(
            Space(
                a=values(1.5, 2.0, 2.5, 3.0), b=values(1.5, 2.0, 2.5), lr=log(0.0625, 4.0, num=13), seeds=1
            ),
            spec={"dim": 2**17, "steps": 10_000, "num_log": 48, "batch": 4},
            description="One accelerator: 156 lanes × 3 algorithms, D = 131072, 10⁴ steps "
            "(every (a, b) has b < 2a).",
        ),
    },
    claims=[
        Claim.slope(
            "sgd-frontier-exponent",
            "Signal-dominated regime (σ² = 0, b < 2a): the SGD compute-optimal frontier "
            "decays like C^{−(b−1)/a} (derivation in the module docstring): its log-log "
            "slope over C ∈ [C_max/16, C_max] is −(b−1)/a within 15% (relative, for "
            "finite-size corrections), for every (a, b).",
            _sgd_frontier,
            "step",
            expected=_theory,
            atol=lambda c: SLOPE_RTOL * abs(_theory(c)),
            over=None,
            source="derived",
            # the exact recursions are deterministic: no seeds to bootstrap
            deterministic=True,
        ),
        Claim.at_most(
            "frontier-monotone",
            "The compute-optimal frontier is non-increasing in compute for every "
            "algorithm and every (a, b): its largest relative increase between logged "
            f"steps is at most {MONOTONE_RTOL:g} (float32 round-off).",
            _monotone,
            MONOTONE_RTOL,
            over=None,
            source="derived",
            # the exact recursions are deterministic: no seeds to bootstrap
            deterministic=True,
        ),
        Claim.at_least(
            "two-phase-vs-sgd-frontier",
            "Measurement: the LA and SLA-HB frontiers over SGD's at the largest "
            "compute, per (a, b) (below 1: the two-phase method wins). The check is "
            "only that every ratio is a finite positive number.",
            _two_phase_vs_sgd,
            0.0,
            over=None,
            source="sanity",
            # the exact recursions are deterministic: no seeds to bootstrap
            deterministic=True,
        ),
    ],
    figures=[
        Figure(
            "risk_vs_compute",
            _draw_curves,
            "Exact excess risk against compute (gradient evaluations) for every learning "
            "rate (colours) and their lower envelope (dashed), per algorithm, for two (a, b).",
            size=(9, 5),
        ),
        Figure(
            "frontier",
            _draw_frontier,
            "Compute-optimal frontier (min over η) of SGD, LA and SLA-HB; dotted: the "
            "predicted C^{−(b−1)/a} through SGD's last point.",
            size=(12, 3.5),
        ),
        Figure(
            "frontier_exponents",
            _draw_exponents,
            "Fitted frontier slope per algorithm against the signal-dominated prediction "
            "−(b−1)/a, one point per (a, b).",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
