r"""``shifting-means-bai``: best-arm identification when all means shift together.

The paper (abstract only; no public preprint found): under Shifting Means a common shift $s_t$, chosen
adversarially, is added to every arm each round. GLRT stopping rules (Track-and-Stop among them) are not
δ-correct there; ISM (uniform sampling, importance-weighted gap estimates) is, with sample complexity of order
$K(\sigma^2 + U^2)\Delta_{\min}^{-2}\ln(1/\delta)$. ISM's sampler, estimator and thresholds are our
reconstruction from the abstract (the paper's algorithm could not be read): its claims are tested under that
reconstruction.

$K$ arms with means $\mu = (\Delta, 0, \dots, 0)$, Gaussian noise $\sigma$ and a common shift per round:
$X_t = \mu_{A_t} + s_t + \sigma\eta_t$, $|\mu_a + s_t| \le U$, of the largest feasible amplitude
$c = U - \max_a |\mu_a|$. Environments (categorical `env`, paired: every environment replays the same episode
keys): none; constant $-c$; i.i.d. random $\pm c$; periodic square wave, pulse ($-c$ every $P$-th round) and
sinusoidal drift; adaptive *targeted* ($+c$ when the predicted next pull is the runner-up, else $-c$) and
*untargeted* ($-c$ when it is the best arm, else $+c$). The adversary sees the learner's sampling
distribution, never its draw, so against uniform sampling both adaptive attacks are the constant shift $-c$.

Policies: ISM samples uniformly and estimates gaps with importance weights, $S^{ab}(t) = \sum_s Z^{ab}_s$,
$Z^{ab}_s = X_s (K 1\{A_s = a\} - K 1\{A_s = b\})$, whose increments have mean $\mu_a - \mu_b$ whatever the
shift; ISM-theory stops with the anytime threshold
$\sqrt{4KU^2tL_t} + \tfrac23 (K+2)UL_t + \sqrt{2K^2\sigma^2 n_{ab}L_t}$, $L_t = \ln(\pi^2K^2t^3/(3\delta))$,
ISM-practical when $(S^{\hat a b})^2 / (2\sum_s (Z^{\hat a b}_s)^2) > \ln((1+\ln t)/\delta)$. Track-and-Stop
(D-tracking, forced exploration, $w^*$ recomputed every `refresh` rounds) and uniform sampling stop with the
Gaussian GLRT at $\ln((1+\ln t)/\delta)$, assuming variance $\sigma^2$. Each lane is one episode, run until it
stops at every δ of the grid (the samplers do not read δ: one trajectory serves every δ) or reaches the
horizon cap.

**The variance law.** With $A$ uniform, $Z^2 = K^2X^2(1\{A=a\} + 1\{A=b\})$, so
$\mathbb E[Z^2] = K(2\sigma^2 + (\mu_a+s)^2 + (\mu_b+s)^2)$ averaged over the shifts:
$K(2\sigma^2 + \Delta^2)$ without shift. ISM-practical's statistic grows like
$t^2\Delta^2 / (2t\,\mathbb E[Z^2])$, so it stops near
$\tau \approx 2\,\mathbb E[Z^2] \ln((1+\ln\tau)/\delta)/\Delta^2$: the gap slope is fitted against
$\mathbb E[Z^2]/\Delta^2$ (against $1/\Delta^2$ it flattens where $\Delta$ is comparable to $\sigma$: 0.855 at
$\Delta \in \{0.4, 0.8\}$, $\sigma = 1$), and the cost ratio between environments is the ratio of
$\mathbb E[Z^2]$.

**Censoring.** Capped episodes are *censored*: never successes or errors, with $\tau$ = the cap, a lower bound
on their stopping time. Error rates carry exact Clopper–Pearson intervals (δ-correctness over the episodes
that stopped). The $\mathbb E[\tau]$ claims keep censored episodes at the cap: a cell with censored episodes
bounds its statistic from one side only, its interval is open on the other side, and it is decided only where
that bound settles it; `tau-censored` counts the censored values each $\mathbb E[\tau]$ claim rests on. The
K slope is fitted over $K \ge 8$ ($K = 2 \to 4$ is a small-$K$ transient, local slope 1.4–1.6; 1.15–1.19 from
$K = 8$ to 16), so the smoke preset, with $K \le 4$, leaves it to `medium`, whose two values of $K$ (at 256
seeds) leave its intervals straddling the bound except at the smallest $\delta$.

**Where smoke and medium differ: `ism-near-optimal`.** Its range $[1, 8]$ was proposed for $K = 4$,
$\delta = 0.05$; smoke ($K \le 4$, $\delta \le 0.05$) stays inside it. Medium adds $\delta = 0.1$ and
$K = 8, 16$: at $\delta = 0.1$, $K = 16$ and the two largest gaps the ratio lies above 8 by its whole interval. The cause is the large-$\delta$ end, not ISM: the bound's $\ln(1/(2.4\delta))$ is about
1.4 at $\delta = 0.1$, while ISM-practical stops only once its statistic exceeds $\ln((1+\ln t)/\delta)$,
about 4.5 at the stopping times there, inflating the ratio about threefold; the inflation grows with $K$
(through $\ln t$) and shrinks as $\delta$ falls: by $\delta = 0.01$ every cell is back inside, and
`ism-near-optimal-no-growth` passes. So the proposed constant 8 fails at large $\delta$ and $K = 16$, which
the smoke preset is too small to reach."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, NotApplicable, Paper, Preset, analysis, needs, plots
from jaxtheory.analysis import Cells
from jaxtheory.sims import bandits as bai
from jaxtheory.sims.bandits import shift_moments as moments
from jaxtheory.sweep import Space, values, zipped

ISM_POLICIES = ("ism_practical", "ism_theory")  # both adaptive attacks are the shift -c against them
TAS_WRONG_MIN = 0.5  # Track-and-Stop wrong at least this often under the targeted attack with 2c > Δ
TAS_CENSORED_MIN = 0.9  # Track-and-Stop censored at least this often under the untargeted attack
GLRT_DELTA = VARIANCE_DELTA = 0.05  # the δ of uniform + GLRT's overconfidence and of the variance law (ours)
SLOPE_GAP_ATOL = 0.1  # slope of E[τ] against E[Z²]/Δ² (ISM-practical, no shift): 1 ± this
SLOPE_K_MAX = 1.2  # slope of E[τ] against K at most this (the bound's 1, plus a little for ln K)
K_FIT_MIN = 8  # the K slope is fitted over K >= this (below it, a small-K transient: see the description)
R2_MIN = 0.99  # E[τ] linear in ln(1/δ): R² of the line through the seed-mean curve above this
THEORY_RTOL = 0.15  # ISM-theory's E[τ] / its own predicted crossing time: 1 ± this, judged where the
THEORY_REACH = 1.5  # horizon cap is at least this multiple of the prediction (a design rule, not data)
VARIANCE_RTOL = 0.20  # ISM-practical cost ratio between environments / ratio of E[Z²]: 1 ± this
INVARIANCE_RTOL = 0.05  # Track-and-Stop E[τ] under a constant shift / without shift: 1 ± this
NEAR_OPT = (1.0, 8.0)  # E[τ_ISM-practical] / (T* ln(1/(2.4 δ))) under random shifts lies in this range
PARAMS = ("policy", "env", "n_arms", "horizon", "gap", "sigma", "U", "period", "algo", "cell")


def _rows(ds, policy, env=None) -> list:
    """Each (algorithm, environment, gap/σ cell) of ``policy`` (a name or a tuple) in ``env``
    (likewise; all by default): the results there, dims (seed, delta), with the parameters
    :data:`PARAMS` in ``attrs``, and ``K`` (= ``n_arms``) and ``amp``, the shift amplitude
    c = U − max|μ| = U − Δ."""
    envs = ds["env"].values if env is None else np.atleast_1d(env)
    out = []
    for a in np.flatnonzero(np.isin(ds["policy"].values, np.atleast_1d(policy))):
        for e in [e for e in ds["env"].values if e in envs]:
            for c in range(ds.sizes["cell"]):
                r = ds.isel(algo=a, cell=c).sel(env=e).transpose("seed", "delta")
                p = {k: r[k].values.item() for k in PARAMS}
                r.attrs = {**p, "K": p["n_arms"], "amp": p["U"] - p["gap"]}
                out.append(r)
    return out


def _some(items: list, need: str) -> list:
    """``items``; none is :class:`NotApplicable`: the preset has no ``need``."""
    if not items:
        raise NotApplicable(f"the preset has no {need}")
    return items


def _key(r, *, env: bool = True, **extra) -> dict:
    """A claim cell's coordinates: policy, environment, K, the gap/σ cell, and ``extra``."""
    names = ("policy", "env", "K", "gap", "sigma", "U")
    return {**{k: r.attrs[k] for k in names if env or k != "env"}, **extra}


def _base(ds, r):
    """The row of the same algorithm and cell without shift (the paired episodes)."""
    return ds.isel(algo=r.attrs["algo"], cell=r.attrs["cell"]).sel(env="none").transpose("seed", "delta")


def _deltas(ds) -> list[float]:
    return [float(d) for d in ds["delta"].values]


def _cp(k: int, n: int):
    """``k/n`` with its exact Clopper–Pearson interval, at the level the claim gives."""

    def est(level, seed):
        lo, hi = bai.clopper_pearson(k, n, level)
        return analysis.Estimate(k / n, float(lo), float(hi), int(n), "clopper-pearson", level)

    return est


def _open(est: analysis.Estimate, signs, censored) -> analysis.Estimate:
    """Open ``est``'s interval where a mean it grows with (sign > 0) or falls with (sign < 0)
    is only a lower bound (censored); sign 0: unknown direction, open on both sides."""
    up = any(c and s >= 0 for s, c in zip(signs, censored))
    down = any(c and s <= 0 for s, c in zip(signs, censored))
    return dataclasses.replace(est, low=-math.inf if down else est.low, high=math.inf if up else est.high)


def _ratios(items) -> Cells:
    """Per ``(coords, [(row, δ)] or [(row, δ), (row', δ')], pred)``: the seed-mean τ of the first
    (over that of the second, on the same seeds) over ``pred``, bootstrapped over the paired
    seeds; opened where a mean is censored (the ratio grows with the first, falls with the second)."""
    out = Cells()
    for coords, cols, pred in items:
        tau = np.stack([np.asarray(r["tau"].sel(delta=d).values, float) for r, d in cols], axis=1)
        cens = [bool(r["censored"].sel(delta=d).any()) for r, d in cols]

        def est(level, seed, tau=tau, cens=cens, pred=pred):
            k = tau.shape[1]
            stat = lambda s: (s[..., 0] / s[..., 1] if k == 2 else s[..., 0]) / pred  # noqa: E731
            e = analysis.bootstrap(tau, lambda s: stat(s.mean(axis=1)), level=level, seed=seed)
            return _open(e, [1, -1][:k], cens)

        out.add(coords, est)
    return out


def _delta_correct(ds, spec):
    """Per (policy, environment, K, δ), pooled over the gap/σ cells: errors among the episodes
    that stopped, with an exact interval, at the δ the pooled count resolves (see the statement)."""
    groups: dict = {}
    for r in _rows(ds, ISM_POLICIES):
        groups.setdefault(tuple(r.attrs[k] for k in ("policy", "env", "K")), []).append(r)
    lv = 1.0 - (1.0 - analysis.DEFAULT_LEVEL) / max(len(groups) * ds.sizes["delta"], 1)
    out = Cells()
    for (pol, env, K), rs in groups.items():
        pooled = xr.concat([r[["stopped", "error"]].reset_coords(drop=True) for r in rs], "seed")
        for d in _deltas(ds):
            stopped, error = (np.asarray(pooled[v].sel(delta=d).values, bool) for v in ("stopped", "error"))
            n = int(stopped.sum())
            if n and bai.clopper_pearson(0, n, lv)[1] <= d:
                out.add({"policy": pol, "env": env, "K": K, "delta": d}, _cp(int((error & stopped).sum()), n))
    if not out:
        raise NotApplicable("no (policy, environment, δ) has enough stopped ISM episodes to resolve δ")
    return out


def _rates(rows, var: str, deltas) -> Cells:
    """Per row and δ: the fraction of all episodes with ``var`` (a censored episode is no error)."""
    return Cells(
        (_key(r, env=False, delta=d), _cp(int(r[var].sel(delta=d).sum()), r.sizes["seed"]))
        for r in rows
        for d in deltas
    )


def _tas_targeted(ds):
    rows = [r for r in _rows(ds, "tas_d", "targeted") if 2 * r.attrs["amp"] > r.attrs["gap"]]
    return _some(rows, "Track-and-Stop run under the targeted attack with 2c > Δ")


def _glrt_rows(ds):
    rows = [r for r in _rows(ds, "uniform_glrt", "random") if r.attrs["amp"] >= 2 * r.attrs["sigma"] - 1e-12]
    return _some(rows, "uniform-GLRT run under random shifts with c ≥ 2σ")


def _groups(ds, by, along, fit=lambda v: True) -> dict:
    """ISM-practical without shift, grouped by the parameters ``by``, sorted along ``along``;
    the groups with at least two values of ``along`` that ``fit`` admits."""
    groups: dict = {}
    for r in _rows(ds, "ism_practical", "none"):
        groups.setdefault(tuple(r.attrs[k] for k in by), []).append(r)
    out = {k: sorted(v, key=lambda r: r.attrs[along]) for k, v in groups.items()}
    return {k: v for k, v in out.items() if sum(fit(r.attrs[along]) for r in v) >= 2}


def _gap_groups(ds):
    return _groups(ds, ("K", "sigma", "U"), "gap")


def _k_groups(ds):
    return _groups(ds, ("gap", "sigma", "U"), "K", lambda k: k >= K_FIT_MIN)


def _z(p) -> float:
    """The gap slope's abscissa E[Z²]/Δ² = K(2σ² + Δ²)/Δ² (no shift) of a row's parameters."""
    return bai.iw_second_moment(p["gap"], 0.0, p["K"], p["sigma"], [0.0]) / p["gap"] ** 2


def _slopes(ds, groups, names, dim: str, xvalues, xmin=None) -> Cells:
    """Log-log slopes of the seed-mean E[τ] per group and δ, intervals opened by censoring.

    A censored value is a lower bound on its point's mean, so the slope is bounded from
    below where such points lie right of the fitted range's mean log-abscissa, from above
    where they lie left of it.
    """
    out = Cells()
    for key, rows in groups.items():
        tau = xr.concat([r["tau"].reset_coords(drop=True) for r in rows], dim).astype(float)
        xv = np.asarray([xvalues(r.attrs) for r in rows], float)
        fit = np.ones(xv.shape, bool) if xmin is None else xv >= xmin
        lx = np.log(xv)
        sign = np.sign(np.where(fit, lx - lx[fit].mean(), 0.0))
        for d in _deltas(ds):
            cens = np.asarray([bool(r["censored"].sel(delta=d).any()) for r in rows]) & fit

            def est(level, seed, tau=tau, d=d, xv=xv, sign=sign, cens=cens):
                e = analysis.loglog_slope(
                    tau.sel(delta=d), dim, xvalues=xv, xmin=xmin, level=level, seed=seed
                )
                return _open(e, sign, cens)

            out.add({**dict(zip(names, key)), "delta": d}, est)
    return out


def _gap_slopes(ds, spec):
    groups = _some(_gap_groups(ds), "ISM-practical run without shift at two gaps")
    return _slopes(ds, groups, ("K", "sigma", "U"), "gap", _z)


def _pred(r, d: float) -> float:
    """ISM-theory's predicted stopping time (the crossing of tΔ and its threshold, n_ab = 2t/K)."""
    return bai.ism_theory_predicted_tau(r.attrs["gap"], r.attrs["K"], r.attrs["sigma"], r.attrs["U"], d)


def _reachable(r, deltas) -> bool:
    """ISM-theory's predicted crossing time fits the horizon with margin THEORY_REACH at every δ."""
    return all(THEORY_REACH * _pred(r, d) <= r.attrs["horizon"] for d in deltas)


def _log_delta_rows(ds):
    rows = _rows(ds, ISM_POLICIES, ("none", "random"))
    return [r for r in rows if r.attrs["policy"] != "ism_theory" or _reachable(r, _deltas(ds))]


def _linear_in_log_delta(ds, spec):
    rows = _some(_log_delta_rows(ds) if ds.sizes["delta"] >= 3 else [], "three δ and an ISM cell to fit")
    x = np.log(1 / np.asarray(_deltas(ds)))

    def est(level, seed, r):
        e = analysis.linear_r2(r["tau"].astype(float), "delta", xvalues=x, level=level, seed=seed)
        return _open(e, [0], [bool(r["censored"].any())])

    return Cells((_key(r), lambda level, seed, r=r: est(level, seed, r)) for r in rows)


def _theory_items(ds):
    rows = _rows(ds, "ism_theory", ("none", "random", "constant"))
    return [(r, d) for r in rows for d in _deltas(ds) if _reachable(r, [d])]


def _theory_prediction(ds, spec):
    items = _some(_theory_items(ds), "ISM-theory cell whose horizon reaches the predicted stopping time")
    return _ratios((_key(r, delta=d), [(r, d)], _pred(r, d)) for r, d in items)


def _variance_items(ds):
    if VARIANCE_DELTA not in _deltas(ds) or "none" not in ds["env"].values:
        return []
    return [(r, _base(ds, r)) for r in _rows(ds, "ism_practical", moments.UNIFORM_SHIFTS[1:])]


def _variance_law(ds, spec):
    """(E[τ](env)/E[τ](none)) / (E[Z²](env)/E[Z²](none)) per (env, K, cell) at δ = 0.05,
    bootstrapped over paired seeds (the environments share episode keys)."""
    pred = lambda p: moments.second_moment_ratio(
        p["env"], p["gap"], p["K"], p["sigma"], p["amp"], p["period"]
    )
    items = _some(_variance_items(ds), "ISM-practical run in a shifted environment beside no shift")
    d = VARIANCE_DELTA
    return _ratios((_key(r), [(r, d), (r0, d)], pred(r.attrs)) for r, r0 in items)


def _invariance_items(ds):
    return [(r, _base(ds, r)) for r in _rows(ds, "tas_d", "constant")] if "none" in ds["env"].values else []


def _tas_invariance(ds, spec):
    pairs = _some(_invariance_items(ds), "Track-and-Stop run under a constant shift beside no shift")
    return _ratios(
        (_key(r, env=False, delta=d), [(r, d), (r0, d)], 1.0) for r, r0 in pairs for d in _deltas(ds)
    )


def _lower_bound(r, d: float) -> float:
    return bai.lower_bound_time(r.attrs["gap"], r.attrs["K"], r.attrs["sigma"], r.attrs["amp"], d)


def _near_optimal(ds, spec):
    rows = _some(_rows(ds, "ism_practical", "random"), "ISM-practical run under random shifts")
    return _ratios(
        (_key(r, env=False, delta=d), [(r, d)], _lower_bound(r, d)) for r in rows for d in _deltas(ds)
    )


def _near_optimal_growth(ds, spec):
    """The ratio at the smallest δ over the ratio at the largest δ (the same episodes)."""
    rows = _rows(ds, "ism_practical", "random") if ds.sizes["delta"] > 1 else []
    rows = _some(rows, "two δ and ISM-practical under random shifts")
    lo, hi = min(_deltas(ds)), max(_deltas(ds))
    return _ratios(
        (_key(r, env=False), [(r, lo), (r, hi)], _lower_bound(r, lo) / _lower_bound(r, hi)) for r in rows
    )


#: What every E[τ] claim rests on: ``name -> items(ds)`` = [(row, δ or None: every δ)].
TAU_ITEMS = {
    "ism-gap-slope": lambda ds: [(r, None) for rs in _gap_groups(ds).values() for r in rs],
    "ism-linear-in-log-delta": lambda ds: [(r, None) for r in _log_delta_rows(ds)],
    "ism-linear-in-k": lambda ds: [
        (r, None) for rs in _k_groups(ds).values() for r in rs if r.attrs["K"] >= K_FIT_MIN
    ],
    "ism-theory-prediction": _theory_items,
    "variance-law": lambda ds: [(x, VARIANCE_DELTA) for p in _variance_items(ds) for x in p],
    "tas-shift-invariance": lambda ds: [(x, None) for p in _invariance_items(ds) for x in p],
    "ism-near-optimal": lambda ds: [(r, None) for r in _rows(ds, "ism_practical", "random")],
}


def _tau_censored(ds, spec):
    """Censored τ values (episode × δ) among what each E[τ] claim uses."""
    out = {
        name: sum(int((r["censored"] if d is None else r["censored"].sel(delta=d)).sum()) for r, d in its)
        for name, items in TAU_ITEMS.items()
        if (its := items(ds))
    }
    if not out:
        raise NotApplicable("no E[τ] claim applies to this preset")
    return out


def _delta0(ds) -> float:
    """The δ figures show: the largest δ <= 0.05 of the grid (else the smallest)."""
    return max([d for d in _deltas(ds) if d <= 0.05 + 1e-12], default=min(_deltas(ds)))


def _cell_tags(ds) -> list[str]:
    return [
        f"Δ = {g:g}, σ = {s:g}, U = {u:g}" for g, s, u in zip(*(ds[k].values for k in ("gap", "sigma", "U")))
    ]


def _algo_tags(ds) -> list[str]:
    return [f"{p} K={k}" for p, k in zip(ds["policy"].values, ds["n_arms"].values)]


def _draw_errors(ds, spec, fig):
    d0, n = _delta0(ds), ds.sizes["seed"]
    ax = fig.add_subplot(1, 1, 1)
    labels = [f"{a}\n{e}" for a in _algo_tags(ds) for e in ds["env"].values]
    width = 0.6 / max(ds.sizes["cell"], 1)
    for c, tag in enumerate(_cell_tags(ds)):
        err = ds["error"].isel(cell=c).sel(delta=d0).sum("seed").transpose("algo", "env").values.ravel()
        lo, hi = bai.clopper_pearson(err, n)
        x = np.arange(err.size) + (c - (ds.sizes["cell"] - 1) / 2) * width
        ax.errorbar(x, err / n, yerr=[err / n - lo, hi - err / n], fmt="o", ms=3, capsize=2, label=tag)
    ax.axhline(d0, color="r", ls="--", lw=1, label=f"δ = {d0:g}")
    ax.set_xticks(np.arange(len(labels)), labels, rotation=90, fontsize=5)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set(ylim=(0.0, 1.2), ylabel=f"error rate, {n} episodes (95% Clopper–Pearson)", title=f"δ = {d0:g}")
    ax.legend(fontsize=6)


def _by_line(da, envs):
    """``da`` (algo, env, cell, ...) as (line, cell, ...): a line per algorithm and environment
    of ``envs`` that the preset runs."""
    if not (envs := [e for e in envs if e in da["env"].values]):
        raise NotApplicable("the preset runs none of the environments drawn here")
    da = da.sel(env=envs).stack(line=("algo", "env")).transpose("line", "cell", ...)
    tags = {"line": [f"{a} / {e}" for a, e in zip(_algo_tags(da), da["env"].values)], "cell": _cell_tags(da)}
    return da.drop_vars(["line", "algo", "env"]).reset_coords(drop=True).assign_coords(tags)


def _tau_lines(ds, spec):
    return _by_line(ds["tau"].astype(float), ("none", "random"))


def _stopped_by(ds, spec):
    """The fraction of episodes stopped by τ at the figures' δ, at the commonest K."""
    Ks = list(ds["n_arms"].values)
    s = ds.isel(algo=np.flatnonzero(ds["n_arms"].values == max(set(Ks), key=Ks.count))).sel(delta=_delta0(ds))
    t = xr.DataArray(np.unique(np.geomspace(1, int(ds["horizon"].max()), 96).round()), dims="tau")
    stopped = ((s["tau"] <= t) & s["stopped"]).mean("seed")
    return _by_line(stopped, ("none", "random", "targeted")).assign_coords(tau=t.values)


def _draw_gap_scaling(ds, spec, fig):
    if not (groups := _gap_groups(ds)):
        return plots.not_applicable(fig, "the preset runs ISM-practical at fewer than two gaps per (σ, U)")
    d0 = _delta0(ds)
    ax = fig.add_subplot(1, 1, 1, title=f"ISM-practical, δ = {d0:g}", ylabel="mean τ ± SE (no shift)")
    for (K, sig, _U), rows in sorted(groups.items()):
        x = np.array([_z(r.attrs) for r in rows])
        tau = xr.concat([r["tau"].sel(delta=d0).reset_coords(drop=True) for r in rows], "gap").astype(float)
        est = analysis.loglog_slope(tau, "gap", xvalues=x)
        ok = np.isfinite([est.low, est.high]).all() and est.low <= est.value <= est.high
        se = tau.std("seed", ddof=1) / math.sqrt(tau.sizes["seed"])
        first = K == min(k for k, _, _ in groups)
        kw = dict(yerr=se.values, label=f"K={K}, σ={sig:g}", theory=1.0 if first else None)
        plots.slope_fit(ax, x, tau.mean("seed").values, est if ok else est.value, **kw)
    ax.set_xlabel("E[Z²]/Δ² = K(2σ² + Δ²)/Δ²")
    ax.legend(fontsize=6)


def _k_tau(ds, spec):
    """ISM-practical's τ without shift at the figures' δ, dims (K, cell, seed): over K ≥ 8
    where the preset has two such K, else over every K."""
    algos = np.flatnonzero(ds["policy"].values == "ism_practical")
    Ks = ds["n_arms"].values[algos]
    if len(set(Ks)) < 2 or "none" not in ds["env"].values:
        raise NotApplicable("the preset runs ISM-practical at fewer than two K")
    algos = algos[Ks >= K_FIT_MIN] if (Ks >= K_FIT_MIN).sum() >= 2 else algos
    tau = ds["tau"].isel(algo=algos).sel(env="none", delta=_delta0(ds)).astype(float)
    tau = tau.assign_coords(algo=tau["n_arms"].values.astype(float), cell=_cell_tags(ds))
    return tau.reset_coords(drop=True).rename(algo="K")


#: The τ figures: a curve per algorithm and environment, a panel per gap/σ cell.
LINES = dict(hue="line", facet="cell", logx=True, lw=1)
TAU_LABELS = dict(xlabel="δ", ylabel="mean τ ± SE (censored at the cap)")


#: Smoke algorithm groups: (policy, K, horizon cap, w* refresh period).
SMOKE_ALGOS = [
    ("ism_practical", 4, 8_192, 1),
    ("ism_theory", 4, 10_240, 1),
    ("tas_d", 4, 4_096, 16),
    ("uniform_glrt", 4, 4_096, 1),
    ("ism_practical", 2, 8_192, 1),
]
SMOKE_ENVS = ("none", "random", "constant", "targeted", "untargeted")
#: Smoke (gap, sigma, U) cells: U = 1.5 gives c = U - gap; the sigma = 0.5 cell has c = 2 sigma. In the
#: smoke preset ISM-theory's horizon reaches its predicted stopping time only at gap = 0.8.
SMOKE_CELLS = [(0.4, 1.0, 1.5), (0.8, 1.0, 1.5), (0.5, 0.5, 1.5)]
#: Medium (gap, sigma, U) cells. They leave out gap 0.2: at K = 16 its shifted episodes outrun a 2^16 cap
#: (censored, so undecidable) and it alone would double the preset's cost; the gap slope against E[Z²]/Δ² is
#: fitted over Δ ∈ [0.4, 1], where E[Z²] varies most.
MEDIUM_CELLS = [(0.4, 1.0, 1.5), (0.5, 1.0, 1.5), (0.8, 1.0, 1.5), (1.0, 1.0, 1.5), (0.5, 0.5, 1.5)]
DELTAS_SMOKE = (0.05, 0.01, 0.001)  # the smoke δ grid; the medium and full one:
DELTAS_FULL = (0.1, 0.05, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6)


def _space(algos, envs, cells, seeds):
    return Space(
        algo=zipped(**dict(zip(("policy", "n_arms", "horizon", "refresh"), map(list, zip(*algos))))),
        env=values(*envs),
        cell=zipped(**dict(zip(("gap", "sigma", "U"), map(list, zip(*cells))))),
        seeds=seeds,
        paired=("env",),
    )


EXPERIMENT = Experiment(
    name="shifting-means-bai",
    paper=Paper(
        title="Best-arm identification under Shifting Means: importance weights (ISM) "
        "against GLRT / Track-and-Stop (abstract only; no public preprint found)",
        authors="unknown (abstract only)",
    ),
    simulator=bai.SIMULATOR,
    spec=bai.BAISpec(adversary="param", chunk=256, deltas=DELTAS_SMOKE),
    presets={
        "smoke": Preset(
            _space(SMOKE_ALGOS, SMOKE_ENVS, SMOKE_CELLS, seeds=64),
            description="CPU, about a minute: 5 static groups × 960 episodes, δ ∈ {0.05, 0.01, "
            "0.001} (64 seeds: enough for intervals; K ≤ 4, so the K slope waits for medium).",
        ),
        "medium": Preset(
            _space(
                [("ism_practical", k, 1 << 16, 1) for k in (2, 4, 8, 16)]
                + [("ism_theory", 4, 1 << 15, 1), ("tas_d", 4, 1 << 14, 16), ("uniform_glrt", 4, 1 << 14, 1)],
                ("none", "random", "constant", "periodic", "pulse", "drift", "targeted", "untargeted"),
                MEDIUM_CELLS,
                seeds=256,
            ),
            spec={"deltas": DELTAS_FULL},
            description="CPU, about ten minutes (6 min 50 s of CPU time): 7 groups × 10,240 "
            "episodes, δ from 0.1 to 1e-6, ISM-practical at K = 2 … 16 (the K slope over K ≥ 8).",
        ),
        "full": Preset(
            _space(
                [("ism_practical", k, 1 << 20, 1) for k in (2, 4, 8, 16, 32)]
                + [(p, 4, 1 << 20, 1) for p in ("ism_theory", "ism_elim_practical")]
                + [(p, 4, 1 << 17, 1) for p in ("tas_d", "tas_c", "uniform_glrt", "rr_glrt", "lucb")],
                bai.ADVERSARIES,
                [(g, 1.0, 1.5) for g in (0.1, 0.2, 0.4, 0.5, 0.8, 1.0)]
                + [(0.5, 0.5, 1.5), (0.5, 1.0, 2.5), (0.5, 1.0, 4.5)],
                seeds=10_000,
            ),
            spec={"deltas": DELTAS_FULL},
            description="One accelerator: 12 groups × 810,000 episodes (10⁴ per cell), "
            "horizon cap 2^20 (ISM) / 2^17 (GLRT family).",
        ),
    },
    claims=[
        Claim.at_most(
            "ism-delta-correct",
            "ISM (theory and practical thresholds) is δ-correct in every environment: its error "
            "rate among stopped episodes, pooled over the gap/σ cells, has an upper 95% "
            "Clopper–Pearson bound at most δ, per (policy, environment, K, δ); δ below what the "
            "pooled count can resolve (zero errors would still bound it above δ) are not judged. "
            "Under our reconstruction of ISM; ISM-practical's threshold is our heuristic.",
            _delta_correct,
            lambda c: c["delta"],
            source="reconstruction",
            quote="we show $\\mathsf{ISM}$ to be $\\delta$-correct",
        ),
        Claim.at_least(
            "tas-targeted-wrong",
            f"Under the targeted adaptive shift with 2c > Δ, Track-and-Stop is wrong with "
            f"probability at least {TAS_WRONG_MIN} (a proposed threshold; the mechanism: arm b0's "
            "mean is biased above the best arm's by 2c − Δ), per (cell, δ), over all episodes.",
            lambda ds, spec: _rates(_tas_targeted(ds), "error", _deltas(ds)),
            TAS_WRONG_MIN,
            source="proposed",
        ),
        Claim.at_least(
            "tas-untargeted-censored",
            f"Under the untargeted adaptive shift Track-and-Stop does not stop before the horizon "
            f"cap: censored fraction at least {TAS_CENSORED_MIN} per (cell, δ) (proposed: it never "
            "stops, since every suboptimal arm is biased alike).",
            lambda ds, spec: _rates(
                _some(_rows(ds, "tas_d", "untargeted"), "Track-and-Stop run under the untargeted attack"),
                "censored",
                _deltas(ds),
            ),
            TAS_CENSORED_MIN,
            source="proposed",
        ),
        Claim.at_least(
            "glrt-overconfident",
            f"Uniform sampling + GLRT assuming variance σ² is overconfident under random shifts "
            f"with c ≥ 2σ: its error rate (over all episodes, exact interval) exceeds δ = {GLRT_DELTA}. "
            "The environment and δ are ours; 'fail' is read as: not δ-correct.",
            lambda ds, spec: _rates(_glrt_rows(ds), "error", [GLRT_DELTA]),
            GLRT_DELTA,
            source="paper",
            quote="we show that algorithms employing a Generalized Likelihood Ratio Test (GLRT) "
            "stopping rule, including the popular Track-and-Stop, fail under time-varying shifts",
            requires=needs(delta=GLRT_DELTA),
        ),
        Claim.close(
            "ism-gap-slope",
            "ISM-practical's E[τ] (no shift) has log-log slope 1 against E[Z²]/Δ² = K(2σ² + Δ²)/Δ², per (K, "
            "σ, U) and δ: the variance law says the cost is E[Z²]/Δ², not 1/Δ² (see the description).",
            _gap_slopes,
            1.0,
            atol=SLOPE_GAP_ATOL,
            source="derived",
        ),
        Claim.at_least(
            "ism-linear-in-log-delta",
            f"ISM's E[τ] grows linearly in ln(1/δ): the R² of the least-squares line through the "
            f"seed-mean E[τ] against ln(1/δ) exceeds {R2_MIN} (a proposed criterion), per "
            "(policy, environment none/random, K, cell).",
            _linear_in_log_delta,
            R2_MIN,
            source="proposed",
        ),
        # paper -> reconstruction (ISM rebuilt from the abstract); within [0.9, 1.2] ->
        # at_most 1.2: the quote is an upper bound, linear in K, not an equality of slopes.
        Claim.at_most(
            "ism-linear-in-k",
            f"ISM-practical's E[τ] grows at most about linearly in K: log-log slope at most {SLOPE_K_MAX} "
            f"over K ≥ {K_FIT_MIN}, per (cell, δ); the margin 0.2 above the bound's 1 is ours (for the ln K "
            "inside the thresholds; below K = 8 a small-K transient, see the description). Under our "
            "reconstruction of ISM.",
            lambda ds, spec: _slopes(
                ds, _k_groups(ds), ("gap", "sigma", "U"), "K", lambda p: p["K"], K_FIT_MIN
            ),
            SLOPE_K_MAX,
            source="reconstruction",
            quote="enjoy a sample complexity bound of $K (\\sigma^2 + U^2) \\Delta_{\\min}^{-2} \\ln \\frac{1}{\\delta}$",
            requires=needs(
                lambda ds, spec: bool(_k_groups(ds)),
                f"the preset has no ISM-practical run without shift at two K ≥ {K_FIT_MIN} (medium has them)",
            ),
        ),
        Claim.close(
            "ism-theory-prediction",
            "ISM-theory's E[τ] matches its own predicted stopping time (the crossing of tΔ and the "
            f"threshold with n_ab = 2t/K): ratio 1 ± {THEORY_RTOL}, per (environment none/random/"
            f"constant, K, cell, δ) whose horizon is at least {THEORY_REACH}× the prediction.",
            _theory_prediction,
            1.0,
            atol=THEORY_RTOL,
            source="derived",
        ),
        Claim.close(
            "variance-law",
            "The price of robustness: ISM-practical's cost ratio between an environment and no shift "
            f"equals the ratio of E[Z²] of the binding pair (δ = {VARIANCE_DELTA}), ±{VARIANCE_RTOL:.0%}; "
            "E[Z²] rather than the IW variance V_Z = E[Z²] − Δ², since the rule self-normalises by ΣZ².",
            _variance_law,
            1.0,
            atol=VARIANCE_RTOL,
            source="derived",
        ),
        Claim.close(
            "tas-shift-invariance",
            "Track-and-Stop's E[τ] under a constant shift equals its value without shift (its GLRT "
            f"and Gaussian w* read only differences of means): ratio 1 ± {INVARIANCE_RTOL}, paired "
            "seeds, per (K, cell, δ).",
            _tas_invariance,
            1.0,
            atol=INVARIANCE_RTOL,
            source="derived",
        ),
        Claim.within(
            "ism-near-optimal",
            f"E[τ_ISM-practical] / (T* ln(1/(2.4δ))) lies in {list(NEAR_OPT)} under random shifts ±c "
            "(T* = 2(σ²+c²)(1+√(K−1))²/Δ², the Gaussian lower bound at variance σ² + c²), per "
            "(K, cell, δ). The range is proposed (the abstract's lower bound matches 'up to "
            "constant factors' and prints no constant).",
            _near_optimal,
            *NEAR_OPT,
            source="proposed",
        ),
        Claim.at_most(
            "ism-near-optimal-no-growth",
            "That ratio does not grow as δ falls: its value at the smallest δ of the grid over its "
            "value at the largest is at most 1 (the same episodes), per (K, cell).",
            _near_optimal_growth,
            1.0,
            source="proposed",
        ),
        Claim.at_most(
            "tau-censored",
            "Every E[τ] claim rests on episodes that stopped before the cap: the number of censored "
            "τ values (episode × δ) each such claim uses is 0 (where not, see the description).",
            _tau_censored,
            0,
            source="sanity",
        ),
    ],
    figures=[
        Figure(
            "error_rates",
            _draw_errors,
            "Error rate at the δ shown, with 95% Clopper–Pearson intervals, per algorithm and "
            "environment, one marker per gap/σ cell; the dashed line is δ.",
            size=(10.0, 4.8),
        ),
        Figure(
            "tau_vs_delta",
            plots.curves(
                _tau_lines, x="delta", band="se", logy=True, marker="o", ms=2, **LINES, **TAU_LABELS
            ),
            "Mean stopping time ± one standard error against δ (censored episodes at the cap), "
            "one curve per algorithm without shift (none) and under random shifts, one panel per cell.",
            size=(10.0, 6.0),
        ),
        Figure(
            "tau_distribution",
            plots.curves(_stopped_by, x="tau", band=None, ylabel="stopped by τ", **LINES),
            "Empirical distribution of the stopping time at the figures' δ (the largest δ ≤ 0.05) "
            "and the commonest K, one panel per cell; curves that end below 1 have censored episodes.",
            size=(10.0, 6.0),
        ),
        Figure(
            "gap_scaling",
            _draw_gap_scaling,
            "ISM-practical's mean stopping time (± SE) without shift against E[Z²]/Δ² (log-log), "
            "with the fitted slope and its 95% interval; dashed: slope 1.",
        ),
        Figure(
            "k_scaling",
            plots.slope(_k_tau, x="K", hue="cell", ylabel="mean τ ± SE (no shift)"),
            "ISM-practical's mean stopping time (± SE) without shift against K, with the fitted "
            "slope, over K ≥ 8 where the preset has two such K (else over all K).",
        ),
    ],
    description=__doc__.split("\n\n", 1)[1],
)
