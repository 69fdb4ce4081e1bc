"""``trak-ranking``: TRAK's influence scores against exact and approximate leave-one-out.

Checks arXiv:2602.01312 (Tong, Ghosh, Zou, Maleki): on a ridge-logistic model in the
proportional regime (n ≍ p), TRAK drops the leverage factor 1/(1 − ĥᵢ) of the
approximate leave-one-out (ALO) and adds random-projection error, so its influence
estimates keep an error that does not vanish as p grows, while their rankings stay
correlated with the true leave-one-out influence. The simulator is
:mod:`jaxtheory.sims.attribution.trak`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, plots
from jaxtheory.sims.attribution import trak
from jaxtheory.sweep import Space, static, zipped

#: Our ranking thresholds at n/p = 2, k = p (no paper number known).
SPEARMAN_MIN, AUC_MIN = 0.9, 0.95
#: Large-sample agreement: relative errors below 5 % at n/p = 50 (ours).
AGREE_MAX = 0.05
#: Tolerance of the exact identity ALO = LOO for linear ridge, float64.
IDENTITY_TOL = 1e-10


def _sizes(ds, ratio):
    """Indices along ``size`` with n = ratio · p."""
    n, p = np.atleast_1d(ds["n"].values), np.atleast_1d(ds["p"].values)
    return [i for i in range(len(p)) if n[i] == ratio * p[i]]


def _by_p(da, ds, ratio):
    """``da`` at the sizes with n/p = ratio, indexed by ``p``."""
    idx = _sizes(ds, ratio)
    if not idx:
        raise ValueError(f"the results have no size with n/p = {ratio}")
    sub = da.isel(size=idx).swap_dims(size="p").drop_vars(["size", "n", "n_loo"], errors="ignore")
    return sub.sortby("p")


def _main(ds):
    """Index of the largest size at n/p = 2 that scores every training point (the main config)."""
    idx = [i for i in _sizes(ds, 2) if ds["n_loo"].values[i] == ds["n"].values[i]]
    if not idx:
        raise ValueError("the results have no n/p = 2 size with n_loo = n")
    return max(idx, key=lambda i: ds["p"].values[i])


def _needs(ratio, count=1):
    def req(ds, spec):
        if len(_sizes(ds, ratio)) < count:
            return f"the preset has fewer than {count} size(s) with n/p = {ratio}"
        return None

    return req


# ---- the float64 identity ---------------------------------------------------------------


def _linear_identity(ds, spec):
    """max |ALO − exact LOO| / max |exact LOO| for ridge least squares, float64 (numpy reference)."""
    rng = np.random.default_rng(20)
    n, p, lam = 60, 30, 0.3
    X = rng.standard_normal((n, p)) / np.sqrt(p)
    y = X @ (2 * rng.standard_normal(p)) + rng.standard_normal(n)
    exact = np.empty((n, p))
    theta = np.linalg.solve(X.T @ X + lam * np.eye(p), X.T @ y)
    for i in range(n):
        keep = np.arange(n) != i
        Xi, yi = X[keep], y[keep]
        exact[i] = np.linalg.solve(Xi.T @ Xi + lam * np.eye(p), Xi.T @ yi) - theta
    with jax.enable_x64(True):
        th = trak.newton_fit(jnp.asarray(X), jnp.asarray(y), lam, 1, loss="squared")
        delta, _ = trak.alo(jnp.asarray(X), jnp.asarray(y), th, lam, jnp.arange(n), loss="squared")
        delta = np.asarray(delta)
    return float(np.abs(delta - exact).max() / np.abs(exact).max())


# ---- measures ---------------------------------------------------------------------------


def _alo_err(ds, spec):
    return _by_p(ds["alo_rel_err"], ds, 2)


def _trak_err(ds, spec):
    return _by_p(ds["trak_rel_err"].sel(k=1.0), ds, 2)


def _trak_full(name):
    def measure(ds, spec):
        return _by_p(ds[name].sel(k=1.0), ds, 2)

    return measure


def _spearman_k(ds, spec):
    return ds["trak_spearman"].isel(size=_main(ds)).drop_vars(["n", "p", "n_loo"], errors="ignore")


def _agreement(ds, spec):
    """Relative errors at n/p = 50 (k = p): TRAK vs LOO, ALO vs LOO, TRAK vs ALO."""
    parts = {
        "trak-loo": ds["trak_rel_err"].sel(k=1.0),
        "alo-loo": ds["alo_rel_err"],
        "trak-alo": ds["trak_alo_err"],
    }
    da = xr.concat([_by_p(v, ds, 50) for v in parts.values()], dim="pair")
    return da.assign_coords(pair=list(parts))


def _leverage_ratio(ds, spec):
    """n · mean(ĥ) / p at n/p = 50 (1 when the ridge is negligible)."""
    return _by_p(ds["mean_lev"] * ds["n"] / ds["p"], ds, 50)


def _odds_ratio(ds, spec):
    """‖LOO − TRAK_p‖/‖TRAK_p‖ over its leverage prediction ‖(ĥ/(1 − ĥ)) ⊙ TRAK_p‖/‖TRAK_p‖."""
    return _by_p(ds["trak_err_over_trak"] / ds["lev_odds_weighted"], ds, 2)


# ---- figures ----------------------------------------------------------------------------


def _draw_errors(ds, spec, fig):
    ax = fig.add_subplot(1, 1, 1)
    for name, da, c in (
        ("ALO", _alo_err(ds, spec), "C0"),
        ("TRAK, k = p", _trak_err(ds, spec), "C3"),
    ):
        plots.curves(ax, da, "p", band="se", log=(True, True), marker="o", color=c, label=name)
    p = np.asarray(_alo_err(ds, spec)["p"].values, float)
    a0 = float(_alo_err(ds, spec).isel(p=0).mean("seed"))
    ax.loglog(p, a0 * (p / p[0]) ** -0.5, ":", color="C0", lw=0.8, label="∝ p^(−1/2)")
    ax.set_xlabel("dimension p (n/p = 2)")
    ax.set_ylabel("‖est − LOO‖ / ‖LOO‖: seed mean ± SE")
    ax.legend(fontsize=7)


def _ranking(ds, spec):
    """Spearman, AUC and precision@5 of TRAK against exact LOO at the main size, by k/p."""
    names = ["spearman", "auc", "prec5"]
    da = xr.concat([ds[f"trak_{m}"].isel(size=_main(ds)) for m in names], "metric")
    return da.drop_vars(["size", "n", "p", "n_loo"], errors="ignore").assign_coords(metric=names)


DESCRIPTION = r"""
Data: $x_i \sim N(0, I/p)$, $\theta^\star \sim N(0, 4I)$ (so $x\cdot\theta^\star$ has
variance 4), $y_i \sim \mathrm{Bernoulli}(\sigma(x_i\cdot\theta^\star))$; ridge-logistic fit
$\hat\theta$ with $\lambda = 0.1$ (fixed; no tuning over $\{0.01, 0.1, 1\}$) by 30 Newton steps. The true influence of training point $i$ on 20 test outputs
is $\Delta_{ti} = x_t^\top(\hat\theta_{-i} - \hat\theta)$ from warm-started Newton refits
(6 steps, `vmap`-ped over $i$; the tests check them against a float64 numpy Newton run to
convergence). ALO is $x_t^\top H^{-1}x_i\ell'_i/(1 - \hat h_i)$ with the leverages
$\hat h_i = w_i x_i^\top H^{-1}x_i$ of the weighted hat matrix
(`jaxtheory.sims.matrix.linalg.leverages`), TRAK the same without $1/(1 - \hat h_i)$ on
features $P^\top x$ of a Gaussian projection $P \in \mathbb R^{p\times k}$, with Gram
$\Phi^\top W\Phi + \lambda P^\top P$ (so $k = p$ is exactly the plain influence function).
$P$ is drawn at width $p$ and masked past $k$: $k$ is not a compile, and the widths are
nested (paired). Errors are relative Frobenius norms over the (test, train) matrix;
Spearman and Pearson correlations are per test point over training points, then averaged;
the AUC compares |TRAK| of the top decile by |LOO| with the bottom half.

Sizes (each a compile): the main configuration $n = 300$, $p = 150$ with all 300
leave-one-outs, $p \in \{50, 200\}$ at $n/p = 2$ with 64 leave-one-outs each (no $p = 100$: the main
$p = 150$ stands in for it, to stay within four compiles), and $n = 2500$,
$p = 50$ ($n/p = 50$) with 64.

Because TRAK at $k = p$ is exactly $(1 - \hat h_i)\times$ALO column by column, its error
relative to itself is predicted by the leverages as
$\lVert(\hat h/(1 - \hat h))\odot\mathrm{TRAK}\rVert/\lVert\mathrm{TRAK}\rVert$, a mean of
$\hat h/(1 - \hat h)$ *weighted by the influence*, which is what the claim
`trak-error-from-leverages` tests. The plain mean over training points is smaller (0.52 against a measured 0.76 at $n/p = 2$): the points with large
leverage (curvature $w_i$ near 1/4, $p_i \approx 1/2$) also carry the large influences.
Relative to the true influence the error is $\approx\hat h$ (weighted), 0.44, not
$\hat h/(1 - \hat h)$. At $n/p = 2$ the ridge makes the mean leverage 0.32, below $p/n = 0.5$.

What the smoke runs show beyond the verdicts: the linear-ridge identity holds to float64
round-off; ALO's error halves from $p = 50$ to $p = 200$ while TRAK's stays put (about
0.44). At $k = p$ the rankings are nearly perfect although the values are about 44 % off.
The projection is what costs the ranking: at $p = 150$ the Spearman correlation falls
steeply as $k/p$ shrinks. The gradients of this model are isotropic (no low-rank
structure for a projection to keep), so $k < p$ discards a fraction $1 - k/p$ of every
gradient (a design with a decaying spectrum would lose less: not tested here).
At $n/p = 50$ TRAK, ALO and the exact leave-one-out agree to a few percent and
$n\,\overline{h}/p$ is close to 1.
"""

_SMOKE_SIZES = zipped(
    n=static(300, 100, 400, 2500), p=static(150, 50, 200, 50), n_loo=static(300, 64, 64, 64)
)

EXPERIMENT = Experiment(
    name="trak-ranking",
    paper=Paper(
        title="Imperfect Influence, Preserved Rankings: A Theory of TRAK for Data Attribution",
        arxiv="2602.01312",
        authors="Han Tong, Shubhangi Ghosh, Haolin Zou, Arian Maleki",
        banner="Read from the abstract and introduction only: the theorems' constants are not "
        "known here, so every threshold is ours, not the paper's.",
        unverified=(
            "TRAK's rankings stay correlated with retraining-based ground truth (LDS) for a "
            "2-layer MLP on fixed features, ensembles of M ∈ {1, 5, 20} models (not built here).",
            "The error bounds' constants under sub-Gaussian designs and strongly convex losses.",
        ),
    ),
    simulator=trak.SIMULATOR,
    presets={
        "smoke": Preset(
            Space(size=_SMOKE_SIZES, seeds=8),
            description="CPU, about a minute: 4 static sizes × 8 seeds (n/p = 2 at p = 50, 150, 200; "
            "n/p = 50 at p = 50).",
        ),
        "full": Preset(
            Space(
                size=zipped(
                    n=static(200, 400, 800, 1600, 5000),
                    p=static(100, 200, 400, 800, 100),
                    n_loo=static(200, 128, 128, 128, 128),
                ),
                seeds=32,
            ),
            description="One accelerator: n/p = 2 up to p = 800 and n/p = 50, 32 seeds.",
        ),
    },
    claims=[
        Claim.identity(
            "alo-exact-for-linear-ridge",
            "For ridge least squares one Newton step with the Sherman–Morrison leverage factor "
            "is the exact leave-one-out: max |ALO − LOO| / max |LOO| ≤ 1e-10 in float64 "
            "(n = 60, p = 30, λ = 0.3; the reference refits by numpy solves without each point).",
            _linear_identity,
            IDENTITY_TOL,
            source="derived",
        ),
        Claim.slope(
            "alo-error-vanishes",
            "ALO's relative error vanishes in the proportional regime: at n/p = 2 the log-log "
            "slope of ‖ALO − LOO‖/‖LOO‖ against p is −1/2 ± 0.2 (the ALO theory of Rad & Maleki, "
            "2020; the tolerance is ours).",
            _alo_err,
            "p",
            expected=-0.5,
            atol=0.2,
            source="lit",
            requires=_needs(2, 2),
        ),
        Claim.slope(
            "trak-error-persists",
            "TRAK's relative error (k = p: the dropped leverage factor alone) does not vanish: "
            'at n/p = 2 its log-log slope against p is above −0.15. We read "significant" as an '
            "error that does not vanish as p grows in the proportional regime; the threshold −0.15 "
            "is ours.",
            _trak_err,
            "p",
            at_least=-0.15,
            # paper: the abstract's words, read as a non-vanishing error
            source="paper",
            quote="although the approximations can incur significant errors",
            requires=_needs(2, 2),
        ),
        Claim.at_least(
            "trak-spearman",
            "Rankings are preserved: at n/p = 2, k = p the Spearman correlation of TRAK with the "
            "exact leave-one-out influence (per test point, averaged) is at least 0.9.",
            _trak_full("trak_spearman"),
            SPEARMAN_MIN,
            source="proposed",
            requires=_needs(2),
        ),
        Claim.at_least(
            "trak-top-decile-auc",
            "At n/p = 2, k = p TRAK separates the top decile of |LOO influence| from the bottom "
            'half: AUC at least 0.95. The threshold 0.95 ("preserves": nearly every highly '
            "influential point is ranked above every weakly influential one) is ours.",
            _trak_full("trak_auc"),
            AUC_MIN,
            # proposed -> paper: the AUC of top against bottom is the abstract's "separation"
            source="paper",
            quote="TRAK preserves the separation between highly influential and weakly influential "
            "data points",
            requires=_needs(2),
        ),
        Claim.ordering(
            "spearman-monotone-in-k",
            "The projection costs correlation: TRAK's Spearman correlation increases with k/p "
            "over 1/8, 1/4, 1/2, 1 (main configuration, nested projections, paired over seeds).",
            _spearman_k,
            "k",
            [0.125, 0.25, 0.5, 1.0],
            # proposed, not paper: the abstract says nothing of the projection width
            source="proposed",
        ),
        Claim.at_most(
            "large-sample-agreement",
            "At n/p = 50 TRAK (k = p), ALO and exact LOO agree: each pair's relative error is below 5 %.",
            _agreement,
            AGREE_MAX,
            # proposed, not paper: no sentence of the abstract; statement and 5 % are ours
            source="proposed",
            requires=_needs(50),
        ),
        Claim.close(
            "mean-leverage-p-over-n",
            "At n/p = 50 the mean leverage is ≈ p/n (the leverages sum to the effective degrees "
            "of freedom, p less the ridge's shrinkage): n·mean(ĥ)/p = 1 ± 0.1.",
            _leverage_ratio,
            1.0,
            atol=0.1,
            source="derived",
            requires=_needs(50),
        ),
        Claim.close(
            "trak-error-from-leverages",
            "TRAK's error is the dropped leverage factor: at n/p = 2, k = p, ‖LOO − TRAK‖/‖TRAK‖ "
            "equals its prediction from the leverages, the influence-weighted mean of ĥ/(1 − ĥ) "
            "(not the plain mean, see the description), within ±10 % (the rest is ALO's own error).",
            _odds_ratio,
            1.0,
            atol=0.1,
            source="derived",
            requires=_needs(2),
        ),
    ],
    figures=[
        Figure(
            "errors_vs_p",
            _draw_errors,
            "Relative error of ALO and TRAK (k = p) against exact leave-one-out at n/p = 2, seed "
            "mean ± one standard error; dotted: slope −1/2.",
        ),
        Figure(
            "ranking_vs_k",
            plots.curves(
                _ranking,
                x="k",
                hue="metric",
                band="se",
                logx=True,
                marker="o",
                xlabel="projection width k / p",
                ylabel="agreement with exact LOO: seed mean ± SE",
                title="the main size: n/p = 2, every training point scored",
            ),
            "Agreement of TRAK's ranking with exact leave-one-out against the projection width "
            "k/p (main configuration): Spearman, top-decile AUC and top-5 % precision, seed "
            "mean ± one standard error.",
        ),
    ],
    description=DESCRIPTION,
)
