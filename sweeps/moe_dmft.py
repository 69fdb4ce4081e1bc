r"""``moe-dmft``: finite-width soft-routing MoE loss curves approach their DMFT limit.

A one-hidden-layer mixture of $M$ experts with soft routing and sigmoid gates,
$$f(x) = \frac{1}{\gamma_0}\sum_{m=1}^M \sigma\!\big(q_m\cdot x/\sqrt d\big)\,
\frac1N\sum_{i=1}^N a_{mi}\,\phi(w_{mi}\cdot x/\sqrt d),$$
trained by full-batch GD on $P$ fixed inputs ($x \sim N(0, I_d)$, teacher $y = \tanh(2 v\cdot x/\sqrt d)$,
loss $\frac1{2P}\sum_\mu (y_\mu - f_\mu)^2$) with the mean-field / μP rates $\eta\gamma_0^2 N$ for $w, a$ and
$\eta\gamma_0^2$ for the router, whose weights start at zero (MSSP, regime I of arXiv 2605.14200: expert width
$N_e = N \to \infty$, $M$ fixed).

As $N \to \infty$ each expert's neurons become a population of single sites: a Gaussian field $u \sim N(0,
K_x)$ on the $P$ points ($K_x = XX^\top/d$) and a readout $a_0 \sim N(0,1)$, evolved by $a \mathrel{+}=
\phi(h)\cdot r_m$, $h \mathrel{+}= K_x (a\,\phi'(h)\odot r_m)$ with $r_m =
\frac{\eta\gamma_0}{P}\Delta_t\odot\sigma(z_m)$, under a deterministic error $\Delta_t = y - f_t$ and router
logits $z_m$, where $f_t = \frac1{\gamma_0}\sum_m \sigma(z_m)\,\mathbb E[a\phi(h)]$. The DMFT solve (Bordelon
& Pehlevan 2022, arXiv 2205.09653) samples $S$ sites per expert, evolves them along a trial $\Delta$,
recomputes $\Delta$ from the population averages and damps the update to a fixed point (relative residual
below `tol`); its lanes are the `width = 0` group, one independent site draw per seed, and the DMFT curve is
their mean.

The **gap** of width $N$ is the RMS over seeds and steps of the difference between a width-$N$ loss curve and
the DMFT curve; its exponent in $N$ is fitted on log–log axes. Theory: $O(N^{-1/2})$ (fluctuations; the
seed-mean's bias is $O(1/N)$). The dotted curve in the loss figure is the lazy ($\gamma_0 \to 0$)
kernel-regression curve with the initial NTK, which the feature-learning limit leaves behind.
"""

from __future__ import annotations

import numpy as np

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, plots
from jaxtheory.sims.moe import dmft, dmft_lazy
from jaxtheory.sweep import Space, static, values

# Leading finite-width correction: a width-N loss curve fluctuates around the DMFT curve by O(N^{-1/2})
# (CLT over N neurons; the mean curve's bias is O(1/N), Bordelon & Pehlevan, arXiv 2304.03408), so the RMS
# gap's exponent is -1/2. The claim asks for at most -1/4, half the rate: loose enough for the O(1/N) bias,
# seed noise over a decade of widths and the DMFT's own Monte Carlo floor to bend the fit, tight enough to
# fail for a gap that does not vanish (exponent 0) or a wrong limit (the gap then flattens).
EXPONENT_BOUND = -0.25
FLOOR_FRACTION = 0.2  # the DMFT's Monte Carlo error (RMS over steps) is at most this part of the least gap
_CURVE = ("width", "seed", "step")


def _loss(ds):  # the loss curves of the lanes that finished
    return ds["loss"].where(ds["status"] == 0)


def _dmft(da):
    """The DMFT curve, the mean over the ``width = 0`` lanes (independent site draws), and its SE."""
    ref = da.sel(width=dmft.DMFT_WIDTH)
    n = np.maximum(np.isfinite(ref.isel(step=0)).sum("seed"), 1)
    return ref.mean("seed"), ref.std("seed") / np.sqrt(n)


def gaps(da):
    """Per network width of ``da`` (width, seed, step): the RMS over seeds and steps of (loss − DMFT
    loss), with its delta-method standard error over seeds.

    Returns:
        ``(widths, gap, gap_se, dmft_curve, dmft_se)``.
    """
    ms = _mean_squares(da)
    g = np.sqrt(ms.mean("seed"))
    se = ms.std("seed", ddof=1) / np.sqrt(np.isfinite(ms).sum("seed")) / (2 * g)
    return (ms["width"].values, g.values, se.values, *(x.values for x in _dmft(da)))


def _mean_squares(da):
    """Per seed and network width (and config): mean over steps of (loss − DMFT loss)²; their
    seed-mean is the squared RMS gap of :func:`gaps`."""
    net = da.sel(width=[int(w) for w in da["width"].values if int(w) != dmft.DMFT_WIDTH])
    return ((net - _dmft(da)[0]) ** 2).mean("step").transpose("seed", "width", ...)


def _drops(ds, spec):
    """Per seed: decrease of the squared gap between neighbouring widths."""
    ms = _mean_squares(_loss(ds))
    w = ms["width"].values
    pairs = [f"{a}→{b}" for a, b in zip(w[:-1], w[1:])]
    return (-ms.diff("width")).rename(width="pair").assign_coords(pair=pairs)


def _residual_over_tol(ds, spec):
    """Largest DMFT fixed-point residual in units of the requested tolerance."""
    res = (ds["residual"].sel(width=dmft.DMFT_WIDTH) / ds["tol"]).values
    return float(np.max(res)) if np.isfinite(res).all() else float("nan")


def _floor(ds, spec):
    """Per config: the DMFT curve's standard error (RMS over steps) over the smallest gap."""
    se = _dmft(_loss(ds))[1]
    return np.sqrt((se**2).mean("step")) / np.sqrt(_mean_squares(_loss(ds)).mean("seed")).min("width")


def _draw_curves(ds, spec, fig):
    import matplotlib

    ax = fig.add_subplot(1, 1, 1)
    da = analysis.select(_loss(ds), gamma0=1.0)  # one config: γ₀ = 1 where γ₀ is swept
    widths, _, _, curve, curve_se = gaps(da)
    steps = da["step"].values
    for i, n in enumerate(widths):
        c = matplotlib.colormaps["viridis"](i / max(len(widths) - 1, 1))
        sub = da.sel(width=n)
        ax.fill_between(steps, *np.nanpercentile(sub.values, [10, 90], axis=0), color=c, alpha=0.15, lw=0)
        ax.semilogy(steps, sub.mean("seed"), color=c, lw=1.2, label=f"N={n}")
    ax.semilogy(steps, curve, color="k", lw=2.2, label="DMFT (N=∞)")
    ax.fill_between(steps, curve - 2 * curve_se, curve + 2 * curve_se, color="k", alpha=0.3, lw=0)
    lazy = dmft_lazy.lazy_curve(spec, float(da["router_std"]), float(da["eta"]), len(steps) - 1)
    ax.semilogy(steps, lazy, "k:", lw=1.2, label="lazy (γ₀→0) NTK")
    ax.set(xlabel="GD step", ylabel="training loss ½·mean(y − f)²")
    g0 = f", γ₀={float(da['gamma0']):g}" if ds["gamma0"].size > 1 else ""
    ax.set_title(
        f"MoE, M={spec.experts}, P={spec.num_points}, {spec.activation}{g0}: mean and 10–90% over seeds"
    )
    ax.legend(fontsize=7)


def _draw_gap(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    for j, (coords, da) in enumerate(analysis.cells(_loss(ds), _CURVE)):
        widths, g, se, _, curve_se = gaps(da)
        est = analysis.loglog_slope(_mean_squares(da), "width", "seed", xvalues=widths**2.0)
        label, theory = analysis.cell_label(coords) or "RMS gap", -0.5 if j == 0 else None
        kw = dict(label=label, color=f"C{j}", theory=theory, theory_label=r"$\propto N^{-1/2}$", base=2)
        plots.slope_fit(ax, widths, g, est, yerr=2 * se, **kw)
        ax.axhline(float(np.sqrt(np.mean(curve_se**2))), color=f"C{j}", ls=":", lw=0.8)
    ax.set(xlabel="expert width N", ylabel="RMS gap to DMFT loss curve")
    ax.set_title("finite-width gap (±2 s.e.); dotted: DMFT Monte Carlo error")
    ax.legend(fontsize=7)


EXPERIMENT = Experiment(
    name="moe-dmft",
    paper=Paper(
        title="How to Scale Mixture-of-Experts: From μP to the Maximally Scale-Stable Parameterization "
        "(regime I DMFT); DMFT solver after Bordelon & Pehlevan, Self-Consistent Dynamical Field Theory "
        "of Kernel Evolution in Wide Neural Networks (arXiv 2205.09653)",
        arxiv="2605.14200",
        authors="L. Chennuru Vankadara, M. Haas, L. Hayward, S. Bordt, A. Breccia",
    ),
    simulator=dmft.SIMULATOR,
    spec=dmft.MoEDMFTSpec(
        num_points=8, dim=8, experts=2, steps=50, sites=512, max_iters=100, activation="tanh"
    ),
    presets={
        "smoke": Preset(
            # widths ×4 apart: the expected gap ratio per step (2) stands well clear of the seed noise of
            # a 32-seed RMS gap (~15%), and 4 compiles fit the CI budget
            Space(width=static(dmft.DMFT_WIDTH, 64, 256, 1024), seeds=32),
            description="CPU, seconds: DMFT (32 draws × 512 sites/expert) and widths 64, 256, 1024 × 32 "
            "seeds, P = 8, 50 steps.",
        ),
        "full": Preset(
            Space(
                width=static(dmft.DMFT_WIDTH, *(64 * 2**k for k in range(8))),
                gamma0=values(0.5, 1.0, 2.0),
                seeds=128,
            ),
            spec={"num_points": 16, "dim": 16, "steps": 200, "sites": 4096, "max_iters": 200},
            params={"eta": 0.5},
            description="One accelerator: DMFT (128 draws × 4096 sites/expert) and widths 64–8192 × 128 "
            "seeds × γ₀ ∈ {0.5, 1, 2}, P = 16, 200 steps.",
        ),
    },
    claims=[
        Claim.identity(
            "dmft-fixed-point",
            "The damped DMFT iteration reaches its fixed point: the relative residual ‖y − f[Δ] − Δ‖/‖y‖ "
            "is below the requested tolerance in every DMFT lane (measured: the largest residual in units "
            "of the tolerance `tol`, at most 1).",
            _residual_over_tol,
            1.0,
            source="derived",
        ),
        Claim.at_least(
            "gap-decreases-with-width",
            "The gap between finite-width loss curves and the DMFT curve shrinks as width grows: every "
            "decrease of the squared gap between neighbouring widths is above 0 by its paired bootstrap "
            "interval. Under our reconstruction of the regime-I DMFT (mean-field scaling after Bordelon & "
            "Pehlevan, zero router init), so the DMFT curve is the limit of the network it describes.",
            _drops,
            0.0,
            source="reconstruction",
            quote="For each regime, we develop a novel Dynamical Mean Field Theory (DMFT) description of "
            "the limiting training dynamics of MoEs",
        ),
        Claim.slope(
            "gap-exponent",
            "The gap vanishes as a power of width, like N^{-1/2} (finite-width fluctuations around the "
            "DMFT limit, arXiv 2304.03408); the bound −1/4 is half that rate (see EXPONENT_BOUND). Fitted "
            "as the log-log slope of the seed-mean squared gap against N², which is the RMS gap's "
            "exponent in N, with a bootstrap interval over seeds.",
            lambda ds, spec: _mean_squares(_loss(ds)),
            "width",
            at_most=EXPONENT_BOUND,
            xvalues=lambda ds, spec: _mean_squares(_loss(ds))["width"].values ** 2.0,
            source="proposed",
        ),
        Claim.at_most(
            "dmft-reference-precise",
            "The DMFT curve's own Monte Carlo error is small against every measured gap, so the gaps "
            "measure finite width, not the reference's noise: its standard error (RMS over steps) over "
            f"the smallest gap is at most {FLOOR_FRACTION}.",
            _floor,
            FLOOR_FRACTION,
            source="sanity",
        ),
    ],
    figures=[
        Figure(
            "loss_curves",
            _draw_curves,
            "Training loss against GD step: mean over seeds (lines) and 10–90% band per width N, the DMFT "
            "limit (black, ±2 s.e.) and the lazy NTK curve (dotted).",
            size=(6.4, 4.4),
        ),
        Figure(
            "gap_vs_width",
            _draw_gap,
            "RMS gap between width-N loss curves and the DMFT curve against N (log–log, ±2 s.e.), with the "
            "fitted power law and an N^{-1/2} reference; dotted: the DMFT curve's own Monte Carlo error.",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
