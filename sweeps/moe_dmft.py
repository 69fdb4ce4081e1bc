"""``moe-dmft``: finite-width soft-routing MoE loss curves approach their DMFT limit.

The N = ∞ limit of a one-hidden-layer soft-routing MoE in regime I of arXiv 2605.14200
(expert width N → ∞, M experts fixed, sigmoid gates, zero router init as in MSSP), in
the mean-field / μP scaling of Bordelon & Pehlevan 2022 (arXiv 2205.09653), solved by
the damped fixed-point DMFT of :mod:`jaxtheory.sims.moe.dmft`, against the same network
trained by GD at widths N. The DMFT is one static group of the sweep (``width = 0``),
so the stored results hold both and the claims and figures only read them.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, plots
from jaxtheory.results import as_dims, values_of
from jaxtheory.sims.moe import dmft
from jaxtheory.sweep import Space, static, values

# Leading finite-width correction: a width-N loss curve fluctuates around the DMFT
# curve by O(N^{-1/2}) (CLT over N neurons; the mean curve's bias is O(1/N), Bordelon &
# Pehlevan, arXiv 2304.03408), so the RMS gap's exponent is -1/2. The claim asks for at
# most -1/4, half the rate: loose enough for the O(1/N) bias, seed noise over a decade
# of widths and the DMFT's own Monte Carlo floor to bend the fit, tight enough to fail
# for a gap that does not vanish (exponent 0) or a wrong limit (the gap then flattens).
EXPONENT_BOUND = -0.25
# The DMFT reference counts as exact when its Monte Carlo standard error (RMS over
# steps) is at most this fraction of the smallest measured gap.
FLOOR_FRACTION = 0.2


def _configs(ds):
    """Slices of ``loss`` per config of the swept parameters: ``(label, DataArray[width, seed,
    step])``, each with every parameter's value as a scalar coordinate."""
    da = ds["loss"].where(ds["status"] == 0)
    swept = [k for k in dmft.DEFAULT_PARAMS if values_of(ds, k).size > 1]
    single = [k for k in dmft.DEFAULT_PARAMS if k not in swept]
    da = as_dims(da, *single).squeeze(single)
    if not swept:
        return [("", da)]
    st = da.stack(cfg=swept)
    out = []
    for i in range(st.sizes["cfg"]):
        cell = st.isel(cfg=i)
        label = ",".join(f"{d}={cell[d].item():g}" for d in swept)
        out.append((label, cell.drop_vars("cfg")))
    return out


def gaps(da):
    """Per network width: RMS over seeds and steps of (loss − DMFT loss), and its error.

    The DMFT curve is the mean over the ``width = 0`` lanes (independent site draws).

    Returns:
        ``(widths, gap, gap_se, dmft_curve, dmft_se)``; ``gap_se`` is the delta-method
        standard error over seeds.
    """
    w = da["width"].values
    ref = da.sel(width=dmft.DMFT_WIDTH)
    n_ref = int(np.isfinite(ref.isel(step=0)).sum())
    curve = ref.mean("seed").values
    curve_se = ref.std("seed").values / np.sqrt(max(n_ref, 1))
    widths = np.array(sorted(int(v) for v in w if int(v) != dmft.DMFT_WIDTH))
    g, se = [], []
    for n in widths:
        sq = (da.sel(width=n).values - curve[None, :]) ** 2  # (seed, step)
        per_seed = np.nanmean(sq, axis=1)
        per_seed = per_seed[np.isfinite(per_seed)]
        m = per_seed.mean()
        g.append(np.sqrt(m))
        se.append(per_seed.std(ddof=1) / np.sqrt(per_seed.size) / (2 * np.sqrt(m)))
    return widths, np.array(g), np.array(se), curve, curve_se


def _mean_squares(da):
    """Per seed: mean over steps of (loss − DMFT loss)² at every network width.

    The seed-mean of these is the squared RMS gap of :func:`gaps`.

    Returns:
        DataArray with dims ``(seed, width)`` (DMFT width left out).
    """
    ref = da.sel(width=dmft.DMFT_WIDTH).mean("seed")
    net = da.sel(width=[int(w) for w in da["width"].values if int(w) != dmft.DMFT_WIDTH])
    return ((net - ref) ** 2).mean("step").transpose("seed", "width")


def _by_config(ds, fn):
    """``fn(da)`` per dynamic config, stacked along a ``config`` dim when there are several."""
    parts = _configs(ds)
    if len(parts) == 1:
        return fn(parts[0][1])
    return xr.concat([fn(da) for _, da in parts], dim="config").assign_coords(
        config=[label for label, _ in parts]
    )


def _gap_sq(ds, spec):
    return _by_config(ds, _mean_squares)


def _widths_squared(ds, spec):
    """Abscissa of the exponent fit: N² (the squared gap's slope against N² is the RMS gap's
    exponent in N)."""
    return _mean_squares(_configs(ds)[0][1])["width"].values ** 2.0


def _drops(ds, spec):
    """Per seed: decrease of the squared gap between neighbouring widths."""

    def drop(da):
        ms = _mean_squares(da)
        w = ms["width"].values
        d = ms.isel(width=slice(0, -1)).values - ms.isel(width=slice(1, None)).values
        return xr.DataArray(
            d, dims=("seed", "pair"), coords={"pair": [f"{a}→{b}" for a, b in zip(w[:-1], w[1:])]}
        )

    return _by_config(ds, drop)


def _residual_over_tol(ds, spec):
    """Largest DMFT fixed-point residual in units of the requested tolerance."""
    res = (ds["residual"].sel(width=dmft.DMFT_WIDTH) / ds["tol"]).values
    return float(np.max(res)) if np.isfinite(res).all() else float("nan")


def _floor(ds, spec):
    out = {}
    for label, da in _configs(ds):
        _, g, _, _, curve_se = gaps(da)
        out[label or "dmft"] = float(np.sqrt(np.mean(curve_se**2))) / float(g.min())
    return out if len(out) > 1 else next(iter(out.values()))


def _first_config(ds):
    configs = _configs(ds)
    for lab, d in configs:  # prefer gamma0 = 1 when γ₀ is swept
        if float(d["gamma0"]) == 1.0:
            return lab, d
    return configs[0]


def _lazy_curve(da, spec, steps):
    """The lazy (kernel-regression) loss curve at the parameters of the config ``da``."""
    X, y, Kx = dmft.make_data(spec)
    _, z0 = dmft.router_init(spec, X, float(da["router_std"]))
    K0 = dmft.initial_ntk(Kx, z0, spec.activation)
    return dmft.lazy_loss(Kx, y, K0, float(da["eta"]), steps)


def _draw_curves(ds, spec, fig):
    import matplotlib

    ax = fig.add_subplot(1, 1, 1)
    label, da = _first_config(ds)
    widths, _, _, curve, curve_se = gaps(da)
    steps = da["step"].values
    cmap = matplotlib.colormaps["viridis"]
    for i, n in enumerate(widths):
        c = cmap(i / max(len(widths) - 1, 1))
        sub = da.sel(width=n)
        lo, hi = np.nanpercentile(sub.values, [10, 90], axis=0)
        ax.fill_between(steps, lo, hi, color=c, alpha=0.15, lw=0)
        ax.semilogy(steps, sub.mean("seed"), color=c, lw=1.2, label=f"N={n}")
    ax.semilogy(steps, curve, color="k", lw=2.2, label="DMFT (N=∞)")
    ax.fill_between(steps, curve - 2 * curve_se, curve + 2 * curve_se, color="k", alpha=0.3, lw=0)
    ax.semilogy(steps, _lazy_curve(da, spec, len(steps) - 1), "k:", lw=1.2, label="lazy (γ₀→0) NTK")
    ax.set_xlabel("GD step")
    ax.set_ylabel("training loss ½·mean(y − f)²")
    ax.set_title(
        f"MoE, M={spec.experts}, P={spec.num_points}, {spec.activation}"
        + (f", {label}" if label else "")
        + ": mean and 10–90% over seeds"
    )
    ax.legend(fontsize=7)


def _draw_gap(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    for j, (label, da) in enumerate(_configs(ds)):
        widths, g, se, _, curve_se = gaps(da)
        est = analysis.loglog_slope(_mean_squares(da), "width", "seed", xvalues=widths**2.0)
        c = f"C{j}"
        plots.slope_fit(
            ax,
            widths,
            g,
            est,
            yerr=2 * se,
            label=label or "RMS gap",
            color=c,
            theory=-0.5 if j == 0 else None,
            theory_label=r"$\propto N^{-1/2}$",
            base=2,
        )
        ax.axhline(float(np.sqrt(np.mean(curve_se**2))), color=c, ls=":", lw=0.8)
    ax.set_xlabel("expert width N")
    ax.set_ylabel("RMS gap to DMFT loss curve")
    ax.set_title("finite-width gap (±2 s.e.); dotted: DMFT Monte Carlo error")
    ax.legend(fontsize=7)


DESCRIPTION = r"""
A one-hidden-layer mixture of $M$ experts with soft routing and sigmoid gates,
$$f(x) = \frac{1}{\gamma_0}\sum_{m=1}^M \sigma\!\big(q_m\cdot x/\sqrt d\big)\,
\frac1N\sum_{i=1}^N a_{mi}\,\phi(w_{mi}\cdot x/\sqrt d),$$
trained by full-batch GD on $P$ fixed inputs ($x \sim N(0, I_d)$, teacher
$y = \tanh(2 v\cdot x/\sqrt d)$, loss $\frac1{2P}\sum_\mu (y_\mu - f_\mu)^2$) with the
mean-field / μP rates $\eta\gamma_0^2 N$ for $w, a$ and $\eta\gamma_0^2$ for the router,
whose weights start at zero (MSSP, regime I of arXiv 2605.14200: expert width
$N_e = N \to \infty$, $M$ fixed).

As $N \to \infty$ each expert's neurons become a population of single sites: a Gaussian
field $u \sim N(0, K_x)$ on the $P$ points ($K_x = XX^\top/d$) and a readout
$a_0 \sim N(0,1)$, evolved by
$a \mathrel{+}= \phi(h)\cdot r_m$, $h \mathrel{+}= K_x (a\,\phi'(h)\odot r_m)$ with
$r_m = \frac{\eta\gamma_0}{P}\Delta_t\odot\sigma(z_m)$, under a deterministic error
$\Delta_t = y - f_t$ and router logits $z_m$, where $f_t = \frac1{\gamma_0}\sum_m
\sigma(z_m)\,\mathbb E[a\phi(h)]$. The DMFT solve (Bordelon & Pehlevan 2022,
arXiv 2205.09653) samples $S$ sites per expert, evolves them along a trial $\Delta$,
recomputes $\Delta$ from the population averages and damps the update to a fixed
point (relative residual below `tol`); its lanes are the `width = 0` group, one
independent site draw per seed, and the DMFT curve is their mean.

The **gap** of width $N$ is the RMS over seeds and steps of the difference between a
width-$N$ loss curve and the DMFT curve; its exponent in $N$ is fitted on log–log
axes. Theory: $O(N^{-1/2})$ (fluctuations; the seed-mean's bias is $O(1/N)$). The
dotted curve in the loss figure is the lazy ($\gamma_0 \to 0$) kernel-regression curve
with the initial NTK, which the feature-learning limit leaves behind.
"""

EXPERIMENT = Experiment(
    name="moe-dmft",
    paper=Paper(
        title="How to Scale Mixture-of-Experts: From μP to the Maximally Scale-Stable "
        "Parameterization (regime I DMFT); DMFT solver after Bordelon & Pehlevan, "
        "Self-Consistent Dynamical Field Theory of Kernel Evolution in Wide Neural "
        "Networks (arXiv 2205.09653)",
        arxiv="2605.14200",
        authors="L. Chennuru Vankadara, M. Haas, L. Hayward, S. Bordt, A. Breccia",
    ),
    simulator=dmft.SIMULATOR,
    spec=dmft.MoEDMFTSpec(
        num_points=8, dim=8, experts=2, steps=50, sites=512, max_iters=100, activation="tanh"
    ),
    presets={
        "smoke": Preset(
            # widths ×4 apart: the expected gap ratio per step (2) stands well clear of
            # the seed noise of a 32-seed RMS gap (~15%), and 4 compiles fit the CI budget
            Space(width=static(dmft.DMFT_WIDTH, 64, 256, 1024), seeds=32),
            description="CPU, seconds: DMFT (32 draws × 512 sites/expert) and widths "
            "64, 256, 1024 × 32 seeds, P = 8, 50 steps.",
        ),
        "full": Preset(
            Space(
                width=static(dmft.DMFT_WIDTH, 64, 128, 256, 512, 1024, 2048, 4096, 8192),
                gamma0=values(0.5, 1.0, 2.0),
                seeds=128,
            ),
            spec={"num_points": 16, "dim": 16, "steps": 200, "sites": 4096, "max_iters": 200},
            params={"eta": 0.5},
            description="One accelerator: DMFT (128 draws × 4096 sites/expert) and widths "
            "64–8192 × 128 seeds × γ₀ ∈ {0.5, 1, 2}, P = 16, 200 steps.",
        ),
    },
    claims=[
        Claim.identity(
            "dmft-fixed-point",
            "The damped DMFT iteration reaches its fixed point: the relative residual "
            "‖y − f[Δ] − Δ‖/‖y‖ is below the requested tolerance in every DMFT lane "
            "(measured: the largest residual in units of the tolerance `tol`, at most "
            "1).",
            _residual_over_tol,
            1.0,
            source="derived",
        ),
        # lit -> reconstruction, quoted: the paper's regime-I DMFT is rebuilt here (its
        # equations were not read), and this claim is what "describes the limiting
        # dynamics" means for it: finite-width curves approach the DMFT curve.
        Claim.at_least(
            "gap-decreases-with-width",
            "The gap between finite-width loss curves and the DMFT curve shrinks as "
            "width grows: strictly decreasing over the widths of the sweep, each "
            "neighbouring decrease of the squared gap (mean over seeds of the per-seed "
            "mean square over steps) above 0 by its paired bootstrap interval. Under our "
            "reconstruction of the regime-I DMFT (mean-field scaling after Bordelon & "
            "Pehlevan, zero router init), so the DMFT curve is the limit of the network "
            "it describes.",
            _drops,
            0.0,
            source="reconstruction",
            quote="For each regime, we develop a novel Dynamical Mean Field Theory (DMFT) "
            "description of the limiting training dynamics of MoEs",
        ),
        Claim.slope(
            "gap-exponent",
            "The gap vanishes as a power of width, like N^{-1/2} (finite-width "
            "fluctuations around the DMFT limit, arXiv 2304.03408); the bound −1/4 is half "
            "that rate (see EXPONENT_BOUND). Fitted as the log-log slope of the seed-mean "
            "squared gap against N², which is the RMS gap's exponent in N, with a "
            "bootstrap interval over seeds.",
            _gap_sq,
            "width",
            at_most=EXPONENT_BOUND,
            xvalues=_widths_squared,
            source="proposed",
        ),
        Claim.at_most(
            "dmft-reference-precise",
            "The DMFT curve's own Monte Carlo error is small against every measured "
            "gap, so the gaps measure finite width, not the reference's noise: its "
            "standard error (RMS over steps) over the smallest gap is at most "
            f"{FLOOR_FRACTION}.",
            _floor,
            FLOOR_FRACTION,
            over=None,
            source="sanity",
        ),
    ],
    figures=[
        Figure(
            "loss_curves",
            _draw_curves,
            "Training loss against GD step: mean over seeds (lines) and 10–90% band per "
            "width N, the DMFT limit (black, ±2 s.e.) and the lazy NTK curve (dotted).",
            size=(6.4, 4.4),
        ),
        Figure(
            "gap_vs_width",
            _draw_gap,
            "RMS gap between width-N loss curves and the DMFT curve against N (log–log, "
            "±2 s.e.), with the fitted power law and an N^{-1/2} reference; dotted: the "
            "DMFT curve's own Monte Carlo error.",
        ),
    ],
    description=DESCRIPTION,
)
