"""``irl-occupancy-interp``: MaxEnt-IRL reward updates preconditioned by the line-averaged Fisher.

A reconstruction (the paper itself was not found, only its abstract): preconditioning
the MaxEnt-IRL dual gradient :math:`\\mu_E - \\mu(\\theta)` by the Fisher averaged along the
line to the dual optimum gives the convex interpolation
:math:`\\theta_{k+1} = (1-\\eta)\\theta_k + \\eta\\theta^\\star`, with
:math:`\\theta^\\star = \\log\\pi_E` in the tabular entropy-regularised case; on policies it
is approximately entropic mirror descent. The sweep runs the simulator
:mod:`jaxtheory.sims.irl.runner` (float32) on random MDPs; the exact identities are checked
by float64 side computations (:mod:`jaxtheory.sims.irl.bandit`,
:mod:`jaxtheory.sims.irl.mdp`) inside the claims' measures.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from jaxtheory import Claim, Experiment, Figure, Paper, Preset, analysis, plots
from jaxtheory.optim import line_average
from jaxtheory.results import as_dims, values_of
from jaxtheory.sims.irl import bandit as B
from jaxtheory.sims.irl import mdp as M
from jaxtheory.sims.irl import runner as R
from jaxtheory.sweep import Space, static, values

#: Our convergence threshold on ‖d_k − d_E‖₁ (the metric "iterations to 1e-3").
HIT_LEVEL = 1e-3
#: "Beats on ≥ 90 % of MDPs": our threshold.
WIN_FRACTION = 0.9
#: A decrease of the float32 dual objective counts as a violation of monotonicity only
#: beyond this: one evaluation errs by at most γ·vi_tol·(1 + ‖V‖∞) from the stopped value
#: iteration (≈ 1e-5 at γ = 0.9, vi_tol = 1e-6, ‖V‖∞ ≲ 10) plus the float32 rounding of
#: θ·μ_E over S·A = 80 terms (≲ 80·1.2e-7·‖θ‖∞ ≈ 1e-4 at ‖θ‖∞ ≈ 10), twice (two evaluations).
DUAL_TOL = 2e-4
#: Contraction factor (1 − η) within 1 %: |slope − log(1 − η)| ≤ log(1.01) for the
#: semi-log slope of the centred log-ratio error (our tolerance).
CONTRACTION_ATOL = math.log(1.01)
#: Bandit sizes of the float64 checks (one compile each; tests cover other sizes).
BANDIT_ARMS = (8,)
#: Interpolation steps of the bandit checks.
BANDIT_ETAS = (0.1, 0.3, 0.5, 0.9)
#: Iterations of the contraction fit: (1 − 0.9)^8 = 1e-8 stays above float64 round-off.
CONTRACTION_STEPS = 8
#: Iterations of the interpolation/mirror-descent comparison.
MD_STEPS = 50
#: Interpolation and mirror descent are the same map but not the same floating-point
#: program (the reward is never normalised, while SMD carries π and adds back π_{k+1} − π_k):
#: each step rounds a log, an exp and a sum over A arms (≲ (A + 4)·eps relative) and the
#: earlier error is damped by (1 − η), so |Δπ| ≲ (A + 4)·eps/η ≈ 4.4e-14 for A = 16,
#: η = 0.1; the tolerance is 20× that (and 40× at A = 8).
MD_TOL = 1e-12
#: Our tolerance for F̄⁺(μ_E − μ_θ) = θ* − θ up to the constant shift (float64).
IDENTITY_TOL = 1e-6
#: Random MDPs of the float64 side computations.
SIDE_MDPS = 16
#: Float64 value iteration: relative tolerance and cap.
SIDE_VI_TOL = 1e-12
SIDE_VI_MAX = 20_000
#: |V| and |π − π_E| for r = log π_E: the value iteration stops within
#: γ/(1 − γ)·SIDE_VI_TOL·(1 + ‖V‖∞) ≈ 1e-10 of the fixed point (‖V_E‖∞ ≲ 10); π_E carries
#: the same error; tolerance 1e-9.
ZERO_VALUE_TOL = 1e-9
#: Small steps of the O(η) fit and discounts of the γ → 0 fit (float64 side computation).
DEVIATION_ETAS = (0.01, 0.02, 0.04, 0.08)
DEVIATION_GAMMAS = (0.01, 0.03, 0.1, 0.3)
#: The step at which the γ → 0 fit is made.
DEVIATION_ETA = 0.1
#: "O(η)" and "vanishes as γ → 0" as log-log slopes at least this (our encoding: the
#: first-order term is linear in η and in γ, see the description).
DEVIATION_SLOPE = 0.9
#: At γ = 0 every state is its own bandit: the deviation is float64 round-off (spread of
#: log-ratios of O(10) over A = 4 actions, a few hundred eps).
GAMMA_ZERO_TOL = 1e-12
#: Nodes of the Gauss–Legendre averages.
NUM_NODES = 64
#: MDPs of the float64 mean-value identity (each needs 64 Fisher matrices), and their size:
#: an identity, so small MDPs suffice.
IDENTITY_MDPS = 4
IDENTITY_SHAPE = (8, 3)
#: Relative tolerance of the MDP mean-value identity: the quadrature of an analytic
#: integrand at 64 nodes is exact to round-off; the Fisher is exact to the value
#: iteration's 1e-12; 1e-8 leaves room for the conditioning of the 80-dimensional solve.
MDP_IDENTITY_TOL = 1e-8

_PAIRED = ("algo", "eta_index", "reward")

#: The abstract's words each quoted claim tests (verbatim).
QUOTE_INTERPOLATION = (
    "this preconditioned gradient is just a convex interpolation of the old reward and a new target reward"
)
QUOTE_MIRROR_DESCENT = (
    "policy search over the resulting rewards induces approximate entropic MD on the policy"
)
QUOTE_CONVERGENCE = "we conclude with convergence results of such geometry-aware IRL algorithms"


# ---- selections ---------------------------------------------------------------------------


def _etas(ds, method):
    """The step grid of ``method`` in the results (the ``eta`` metric along ``eta_index``)."""
    e = as_dims(analysis.select(ds["eta"], algo=method), "eta_index").transpose("eta_index", ...)
    first = np.asarray(e.values, float).reshape(e.sizes["eta_index"], -1)[:, 0]  # the same in every lane
    return [float(round(v, 6)) for v in first]


def _by_eta(ds, var, method):
    """``ds[var]`` at ``method``, its ``eta_index`` relabelled by the step value ``eta``."""
    da = as_dims(analysis.select(ds[var], algo=method), "eta_index")
    return da.assign_coords(eta_index=_etas(ds, method)).rename(eta_index="eta")


def _hit_times(l1):
    """First iteration with ‖d_k − d_E‖₁ < HIT_LEVEL; ``inf`` when none within the run."""
    l1 = l1.transpose(..., "iter")
    below = l1.values < HIT_LEVEL
    first = np.where(below.any(-1), np.argmax(below, axis=-1).astype(float), np.inf)
    return l1.isel(iter=0, drop=True).copy(data=first).reset_coords(drop=True)


def _censored(t, steps):
    """Hit times with the censored ones at ``steps + 1`` (for tuning by the mean)."""
    return t.where(np.isfinite(t), steps + 1.0)


def _needs(method, *rewards):
    def check(ds, spec):
        algos = set(values_of(ds, "algo"))
        if method not in algos or "dual" not in algos:
            return f"the preset runs no {method!r} and 'dual' lanes"
        if not set(rewards) <= set(values_of(ds, "reward")):
            return f"the preset lacks the reward(s) {rewards}"
        return None

    return check


# ---- float64 side computations ----------------------------------------------------------


@functools.lru_cache(maxsize=2)
def _side(num_states: int, num_actions: int, gamma: float) -> dict:
    """Every float64 check at once (cached: several claims and a figure read it)."""
    out = {}
    with jax.enable_x64(True):
        f64 = jnp.float64
        keys = jax.random.split(jax.random.PRNGKey(2016), SIDE_MDPS)

        def vi(r, mdp, v0=None):
            return M.soft_value_iteration(r, mdp, v0, SIDE_VI_TOL, SIDE_VI_MAX)[0]

        def expert(k, g):
            # the MDP from the first half of the key; the start rewards from the second
            mdp, r = M.random_mdp(jax.random.split(k)[0], num_states, num_actions, g, f64)
            v = vi(r, mdp)
            return mdp, r, v, M.soft_policy(r, mdp, v)

        @jax.jit
        def zero_value(k):
            mdp, _, v_e, lp_e = expert(k, gamma)
            v = vi(lp_e, mdp, v_e)  # start away from 0: from the expert's own value
            return jnp.max(jnp.abs(v)), jnp.max(jnp.abs(jnp.exp(M.soft_policy(lp_e, mdp, v)) - jnp.exp(lp_e)))

        zv, zp = jax.vmap(zero_value)(keys)
        out["zero_value"] = {"max|V|": float(zv.max()), "max|pi-pi_E|": float(zp.max())}

        # the bandit: identity, contraction, mirror descent
        ident, contr, md = {}, [], {}
        for arms in BANDIT_ARMS:
            th, lp = jax.vmap(lambda k, a=arms: B.random_bandit(k, a, f64))(keys)
            step = jax.jit(jax.vmap(lambda t, lp_: B.averaged_step(t, lp_, NUM_NODES)))(th, lp)
            ref = B.centered(lp - th)
            rel = jnp.linalg.norm(step - ref, axis=-1) / jnp.linalg.norm(ref, axis=-1)
            ident[f"A={arms}"] = float(rel.max())
            etas = jnp.asarray(BANDIT_ETAS, f64)
            inner_i = jax.vmap(lambda t, l, e: B.interp_policies(t, l, e, MD_STEPS), (None, None, 0))
            inner_m = jax.vmap(lambda p, l, e: B.mirror_policies(p, l, e, MD_STEPS), (None, None, 0))
            run_i = jax.jit(jax.vmap(inner_i, (0, 0, None)))
            run_m = jax.jit(jax.vmap(inner_m, (0, 0, None)))
            pi_i = run_i(th, lp, etas)  # (seed, eta, k, A)
            pi_m = run_m(jax.nn.softmax(th), lp, etas)
            md[f"A={arms}"] = float(jnp.max(jnp.abs(pi_i - pi_m)))
            out.setdefault("md_bitwise_equal", {})[f"A={arms}"] = bool(jnp.all(pi_i == pi_m))
            err = jnp.linalg.norm(
                B.centered(jnp.log(pi_i[:, :, : CONTRACTION_STEPS + 1]) - lp[:, None, None]), axis=-1
            )
            contr.append(np.asarray(err))
        out["identity"] = ident
        out["md_gap"] = md
        out["contraction"] = xr.DataArray(
            np.stack(contr, 1),
            dims=("seed", "arms", "eta", "iter"),
            coords={
                "arms": list(BANDIT_ARMS),
                "eta": list(BANDIT_ETAS),
                "iter": np.arange(CONTRACTION_STEPS + 1),
            },
        )

        # one interpolation step in an MDP against the geometric mixture pi_k^(1-eta) pi_E^eta
        def deviation(k, g, eta):
            mdp, _, _, lp_e = expert(k, g)
            r_k = jax.random.normal(
                jax.random.split(jax.random.split(k)[1])[0], (num_states, num_actions), f64
            )
            lp_k = M.soft_policy(r_k, mdp, vi(r_k, mdp))
            r_next = (1.0 - eta) * r_k + eta * lp_e
            lp_next = M.soft_policy(r_next, mdp, vi(r_next, mdp))
            c = lp_next - ((1.0 - eta) * lp_k + eta * lp_e)
            return jnp.max(jnp.max(c, -1) - jnp.min(c, -1))

        dev = jax.jit(
            jax.vmap(jax.vmap(jax.vmap(deviation, (None, None, 0)), (None, 0, None)), (0, None, None))
        )
        gam = jnp.asarray((0.0, *DEVIATION_GAMMAS, gamma), f64)
        eta_grid = jnp.asarray((*DEVIATION_ETAS, DEVIATION_ETA, 0.3, 1.0), f64)
        out["deviation"] = xr.DataArray(
            np.asarray(dev(keys, gam, eta_grid)),
            dims=("seed", "gamma", "eta"),
            coords={"gamma": np.asarray(gam), "eta": np.asarray(eta_grid)},
        )

        # the mean-value identity in an MDP, and one averaged-Fisher step from theta_0
        def identity_mdp(k):
            ns, na = IDENTITY_SHAPE
            mdp, r = M.random_mdp(jax.random.split(k)[0], ns, na, gamma, f64)
            lp_e = M.soft_policy(r, mdp, vi(r, mdp))
            eye = jnp.eye(ns * na, dtype=f64)
            theta0 = jax.random.normal(jax.random.split(jax.random.split(k)[1])[1], (ns * na,), f64)
            star = lp_e.reshape(-1)
            mu = lambda th: M.feature_expectation(th, eye, mdp, None, SIDE_VI_TOL, SIDE_VI_MAX)  # noqa: E731
            fbar = line_average(
                lambda th: M.fisher(th, eye, mdp, None, SIDE_VI_TOL, SIDE_VI_MAX), theta0, star, NUM_NODES
            )
            g = mu(star) - mu(theta0)
            mean_value = jnp.sum(jnp.abs(fbar @ (star - theta0) - g)) / jnp.sum(jnp.abs(g))
            evals, evecs = jnp.linalg.eigh(0.5 * (fbar + fbar.T))
            keep = evals > 1e-10 * evals.max()
            step = evecs @ (jnp.where(keep, 1.0 / jnp.where(keep, evals, 1.0), 0.0) * (evecs.T @ g))
            r1 = (theta0 + step).reshape(ns, na)
            pi1 = jnp.exp(M.soft_policy(r1, mdp, vi(r1, mdp)))
            return mean_value, jnp.max(jnp.abs(pi1 - jnp.exp(lp_e))), jnp.sum(~keep)

        mv, pol, null = jax.jit(jax.vmap(identity_mdp))(keys[:IDENTITY_MDPS])
        out["mdp_identity"] = {"mean-value": float(mv.max()), "one-step policy": float(pol.max())}
        out["mdp_null_dim"] = [int(x) for x in np.asarray(null)]
    return out


def _side_of(spec):
    return _side(spec.num_states, spec.num_actions, 0.9)


# ---- claims -------------------------------------------------------------------------------


def _zero_value(ds, spec):
    return _side_of(spec)["zero_value"]


def _bandit_identity(ds, spec):
    return _side_of(spec)["identity"]


def _mdp_identity(ds, spec):
    return _side_of(spec)["mdp_identity"]


def _contraction(ds, spec):
    return _side_of(spec)["contraction"]


def _md_gap(ds, spec):
    return _side_of(spec)["md_gap"]


def _deviation_eta(ds, spec):
    dev = _side_of(spec)["deviation"]
    return dev.sel(gamma=0.9, eta=list(DEVIATION_ETAS))


def _deviation_gamma(ds, spec):
    dev = _side_of(spec)["deviation"]
    return dev.sel(gamma=list(DEVIATION_GAMMAS), eta=DEVIATION_ETA)


def _gamma_zero(ds, spec):
    return _side_of(spec)["deviation"].sel(gamma=0.0)


def _one_step(ds, spec):
    """Largest first-hit iteration of the tabular interpolation at η = 1 over the MDPs
    (a lane that never hits counts as ``steps + 1``, which fails the claim)."""
    l1 = analysis.select(_by_eta(ds, "l1", "interp"), reward="tabular", eta=1.0)
    return float(_censored(_hit_times(l1), ds.sizes["iter"] - 1).max())


def _tuned_hit_times(ds, method):
    """Tabular hit times of ``method`` at its tuned step: the step with the smallest mean
    censored hit time over MDPs (censored lanes count as ``steps + 1``), chosen before any
    per-MDP comparison."""
    steps = ds.sizes["iter"] - 1
    t = _censored(_hit_times(analysis.select(_by_eta(ds, "l1", method), reward="tabular")), steps)
    return analysis.tuned(t, "eta")


def _wins_tabular(ds, spec):
    """The fraction of MDPs where the interpolation at its tuned step hits 1e-3 strictly
    earlier than dual ascent at its tuned step (both tuned by the same protocol)."""
    steps = ds.sizes["iter"] - 1
    interp, bi = _tuned_hit_times(ds, "interp")
    dual, bd = _tuned_hit_times(ds, "dual")
    win = (interp.values <= steps) & (interp.values < dual.values)
    label = f"interp η={bi.at:g}, dual η={bd.at:g}"
    return {label: analysis.proportion(int(win.sum()), int(win.size))}


def _wins_features(ds, spec):
    """The fraction of MDPs where the interpolation's final dual objective, at its tuned
    step, is no lower (beyond the float32 tolerance DUAL_TOL) than that of dual ascent at its
    tuned step; both tuned on the mean final dual over MDPs."""
    finals = {}
    for method in ("interp", "dual"):
        final = analysis.select(_by_eta(ds, "dual", method), reward="features").isel(iter=-1)
        finals[method] = analysis.tuned(final, "eta", minimize=False)
    (interp, bi), (dual, bd) = finals["interp"], finals["dual"]
    win = interp.values >= dual.values - DUAL_TOL
    label = f"interp η={bi.at:g}, dual η={bd.at:g}"
    return {label: analysis.proportion(int(win.sum()), int(win.size))}


def _monotone(ds, spec):
    """Per reward: lanes (MDP × η ≤ 1) whose interpolation ever lowers the dual by > DUAL_TOL."""
    g = _by_eta(ds, "dual", "interp")
    g = g.sel(eta=[e for e in g["eta"].values if e <= 1.0])
    worst = (g.shift(iter=1) - g).max("iter")  # largest one-step decrease
    bad = (worst > DUAL_TOL).sum(("eta", "seed"))
    return bad.astype(float)


def _no_divergence(ds, spec):
    return int((ds["status"] != 0).sum())


# ---- figures ------------------------------------------------------------------------------


def _tuned_dual_eta(ds, reward):
    steps = ds.sizes["iter"] - 1
    if reward == "tabular":
        crit = _censored(_hit_times(analysis.select(_by_eta(ds, "l1", "dual"), reward=reward)), steps)
        return analysis.best_over(crit, "eta").at
    crit = analysis.select(_by_eta(ds, "dual", "dual"), reward=reward).isel(iter=-1)
    return analysis.best_over(crit, "eta", minimize=False).at


def _draw_methods(ax, ds, var, reward, ylabel):
    k = ds["iter"].values
    lines = [("dual", _tuned_dual_eta(ds, reward), "C0")]
    lines += [("interp", e, c) for e, c in zip((0.1, 0.3, 1.0), ("C1", "C2", "C3"))]
    lines += [("natural", e, c) for e, c in zip((0.3, 1.0), ("C4", "C5"))]
    for method, eta, color in lines:
        if method not in values_of(ds, "algo"):
            continue
        da = analysis.select(_by_eta(ds, var, method), reward=reward)
        if eta not in da["eta"].values:
            continue
        y = da.sel(eta=eta)
        if var == "l1":
            y = y.clip(min=1e-9)
        plots.curves(
            ax, y, "iter", band="iqr", log=(False, var == "l1"), color=color, label=f"{method}, η={eta:g}"
        )
    if var == "l1":
        ax.axhline(HIT_LEVEL, color="k", lw=0.6, ls=":")
    ax.set_xlim(k[0], k[-1])
    ax.set_xlabel("iteration k")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=6)


def _draw_tabular(ds, spec, fig):
    _draw_methods(fig.add_subplot(1, 1, 1), ds, "l1", "tabular", "‖d_k − d_E‖₁ (median, IQR over MDPs)")


def _draw_features(ds, spec, fig):
    _draw_methods(
        fig.add_subplot(1, 1, 1),
        ds,
        "dual",
        "features",
        "dual objective g(θ_k) (median, IQR over MDPs)",
    )


def _draw_deviation(ds, spec, fig):
    dev = _side_of(spec)["deviation"]
    ax = fig.add_subplot(1, 2, 1)
    sub = dev.sel(gamma=[0.01, 0.1, 0.3, 0.9], eta=list(DEVIATION_ETAS) + [DEVIATION_ETA, 0.3])
    plots.curves(
        ax, sub, "eta", hue="gamma", band="iqr", log=(True, True), marker="o", ms=3, label_fmt="γ={:g}"
    )
    ax.set_xlabel("η")
    ax.set_ylabel("max_s spread_a log(π_{k+1} / π_k^{1−η} π_E^η)")
    ax.legend(fontsize=6)
    ax = fig.add_subplot(1, 2, 2)
    sub = dev.sel(gamma=[g for g in dev["gamma"].values if g > 0], eta=[0.01, DEVIATION_ETA, 0.3])
    plots.curves(
        ax, sub, "gamma", hue="eta", band="iqr", log=(True, True), marker="o", ms=3, label_fmt="η={:g}"
    )
    ax.set_xlabel("γ")
    ax.legend(fontsize=6)


DESCRIPTION = r"""
**Setting (our reconstruction: the paper was not found, only its abstract).** A tabular MDP $(S, A, P, \rho_0, \gamma)$ with
Dirichlet(1) transitions and a hidden reward $r_E \sim N(0, 1)$; the expert $\pi_E$ is
soft-optimal for $r_E$ (soft value iteration, a `lax.while_loop`), with normalised
occupancy $d_E$ (one linear solve). The learner's reward is $r_\theta = \Phi\theta$ from
$\theta_0 = 0$; the MaxEnt-IRL dual is $g(\theta) = \theta\cdot\mu_E - (1-\gamma)\rho_0\cdot
V_\theta$ with gradient $\mu_E - \mu(\theta)$, and equals
$\mathbb E_{d_E}\log\pi_E - \mathbb E_{s\sim d_E}\mathrm{KL}(\pi_E\|\pi_\theta)$ for every
$\theta$. The mean-value identity $\mu(\theta^\star) - \mu(\theta) = \bar F(\theta^\star - \theta)$
with $\bar F$ the Fisher averaged along the line makes the $\bar F^+$-preconditioned step the
interpolation $\theta_{k+1} = (1-\eta)\theta_k + \eta\theta^\star$; the reward
$\log\pi_E$ has soft value $0$ and soft-optimal policy $\pi_E$, so in the tabular case
$\theta^\star = \log\pi_E$ needs no solve.

**Methods** (`jaxtheory.sims.irl.runner`, 200 iterations, float32): (A) dual ascent
$\theta \leftarrow \theta + \eta(\mu_E - \mu_\theta)$, $\eta \in \{10, 20, 40, 60, 80\}$
(the tabular optimum, 60, is inside: 70 already fails to converge on some MDPs);
(B) `optim.occupancy_interp` toward $\theta_T$, $\eta \in \{0.1, 0.3, 0.5, 1, 1.5\}$;
(C) the local natural gradient `optim.averaged_fisher_precondition` with the Fisher at
$\theta_k$ (a damped Newton step), $\eta \in \{0.1, 0.3, 0.5, 0.7, 1\}$. Two rewards: *tabular* (one-hot features,
realizable: $\theta_T = \log\pi_E$, and $\eta = 1$ lands on $\pi_E$ in one step, which makes
the comparison trivial at $\eta = 1$) and *features*: 16 random $N(0, 1/16)$ features,
where $\pi_E$ is not realizable and the target is the $d_E$-weighted least-squares
projection $\theta_T$ of $\log\pi_E$, which is **not** the dual optimum (the paper's
target for feature rewards is not known to us). Dual ascent and the interpolation are
compared each at its tuned step, by one protocol: the step with the best mean over MDPs
(hit times, censored ones counted as 201, for the tabular reward; the final dual for
features), chosen per reward before the per-MDP comparison.

**Deviation from mirror descent.** One interpolation step from a random reward gives
$\log\pi_{k+1} - [(1-\eta)\log\pi_k + \eta\log\pi_E] = \gamma P\,[V_{k+1} - (1-\eta)V_k]$ up to
per-state constants, so the deviation from $\pi_k^{1-\eta}\pi_E^\eta$ (measured as the
largest spread over actions) is first order in $\eta$ and in $\gamma$ and is $0$ at
$\gamma = 0$ and at $\eta = 1$; it is computed in float64 on 16 MDPs.
In a bandit the step is exact entropic mirror descent; interpolation (reward never
normalised) and `stochastic_mirror_descent(η, entropic_mirror_map())` (carrying π) are
the same map but not the same floating-point program, so they are compared with a
float tolerance. The dual step itself, `occupancy_interp`'s update at $\theta = \log\pi_k$,
is bit-identical to $-\eta g$ by construction (tested).

**What the runs show.** The identities hold to float64 round-off, and the bandit's
interpolation and mirror-descent policies agree to round-off but not bitwise; $\bar F$ of
an MDP has exactly the $S$ reward-shaping directions as null space, and one
$\bar F^+$ step lands on $\pi_E$. Tabular: the tuned interpolation step is $\eta = 1$, which
lands on $\pi_E$ in one step, so it beats tuned dual ascent (whose best step, 60, sits
just below the steps that fail to converge on some MDPs); at a small fixed step the
interpolation is slower (at $\eta = 0.1$ the error contracts by $0.9$ per step, about 60
iterations against dual ascent's 30), and the local natural gradient matches the
interpolation at equal $\eta$.

**Finding under our reconstruction (features).** With the non-realizable 16-feature
reward, the projected target $\theta_T$ has a *lower* dual objective than the start
$\theta_0 = 0$ (about $-1.50$ against $-1.39$, means over MDPs): the interpolation lowers
the dual on every lane, by far more than the float32 tolerance (the tabular lanes never
lower it beyond round-off), and ends below the moment-matching optimum (about $-1.31$),
which tuned dual ascent and the natural gradient both reach. Projecting $\log\pi_E$ on the
features in $d_E$-weighted least squares ignores the soft-value coupling $\gamma PV$ of a
reward that is not $\log\pi_E$ itself, so "no solve needed" holds only in the realizable
case. This refutes our choice of target, not the paper, whose target for feature rewards
we could not read.
"""

EXPERIMENT = Experiment(
    name="irl-occupancy-interp",
    paper=Paper(
        title="Occupancy-space reward updates in inverse RL (Fisher along the e-geodesic)",
        found=False,
        banner="The formulation is derived from MaxEnt IRL (Ziebart et al. 2008, 2010), occupancy-measure "
        "duality and natural gradient; the nearest retrieved paper (TRIRL, arXiv 2605.11020) is a "
        "different paper.",
        unverified=(
            "Feature rewards on 64×64 gridworlds with sample-based d_E from 10 to 10⁴ demonstrations "
            "(not built).",
        ),
    ),
    simulator=R.SIMULATOR,
    spec=R.IRLSpec(
        dual_etas=(10.0, 20.0, 40.0, 60.0, 80.0),
        interp_etas=(0.1, 0.3, 0.5, 1.0, 1.5),
        natural_etas=(0.1, 0.3, 0.5, 0.7, 1.0),
    ),
    presets={
        "smoke": Preset(
            Space(
                algo=static(*R.METHODS),
                eta_index=values(0, 1, 2, 3, 4),
                reward=values("tabular", "features"),
                seeds=48,
                paired=_PAIRED,
            ),
            description="CPU: S = 20, A = 4, γ = 0.9, 200 iterations, 48 MDPs (48/48 wins is the "
            "fewest that decides ≥ 90 % at 95 % with two compared steps), all three methods.",
        ),
        "full": Preset(
            Space(
                algo=static(*R.METHODS),
                eta_index=values(0, 1, 2, 3, 4),
                reward=values("tabular", "features"),
                seeds=512,
                paired=_PAIRED,
            ),
            spec={"num_states": 64, "steps": 500, "vi_max_iter": 5000},
            description="One accelerator: S = 64, 500 iterations, 512 MDPs.",
        ),
    },
    claims=[
        Claim.identity(
            "log-pi-e-soft-value-zero",
            "The reward r = log π_E has soft value V ≡ 0 and soft-optimal policy π_E (Q = log π_E + "
            "γ·P·0, V = log Σ_a π_E = 0): max |V| and max |π − π_E| over 16 MDPs (S = 20, A = 4, "
            "γ = 0.9), float64 value iteration started from the expert's own value.",
            _zero_value,
            ZERO_VALUE_TOL,
            source="derived",
        ),
        Claim.identity(
            "bandit-averaged-fisher-identity",
            "Bandit: F̄⁺(μ_E − μ_θ) = θ* − θ up to the constant shift, with F̄ the Fisher averaged "
            "over the line to θ* = log π_E by 64-point Gauss–Legendre quadrature (vmapped over "
            "nodes): largest relative difference from the centred θ* − θ over 16 random bandits "
            "with 8 arms, float64, under our reconstruction (θ* = log π_E, the Fisher averaged "
            "along the straight line to it). The tolerance 1e-6 is ours.",
            _bandit_identity,
            IDENTITY_TOL,
            # the paper was not found: its statement is tested on the update we rebuilt
            source="reconstruction",
            quote=QUOTE_INTERPOLATION,
        ),
        Claim.identity(
            "mdp-mean-value-identity",
            "MDP (S = 8, A = 3, γ = 0.9, 4 MDPs, float64): μ_E − μ(θ₀) = F̄(θ* − θ₀) with F̄ "
            "averaged over 64 nodes (relative ℓ₁ residual), and one step θ₀ + F̄⁺(μ_E − μ(θ₀)) "
            "has soft-optimal policy π_E (max |π − π_E|; F̄⁺ drops the S reward-shaping "
            "directions, which change no policy).",
            _mdp_identity,
            MDP_IDENTITY_TOL,
            source="derived",
        ),
        Claim.slope(
            "bandit-contraction",
            "Bandit: the centred log-ratio error ‖log π_k − log π_E‖ (after centering) contracts "
            "by exactly (1 − η) per step: its semi-log slope in k (mean over 16 bandits, 8 "
            "iterations, float64) is log(1 − η) within log 1.01 (the factor within 1 %), per "
            "η and number of arms. A consequence of the interpolation identity "
            "(log π_k − log π_E = (1 − η)^k (log π_0 − log π_E) up to a constant); the 1 % "
            "tolerance is ours.",
            _contraction,
            "iter",
            expected=lambda c: math.log(1.0 - c["eta"]),
            atol=CONTRACTION_ATOL,
            semilog=True,
            # no sentence of the abstract states the rate: it follows from the identity above
            source="derived",
        ),
        Claim.identity(
            "bandit-interp-is-entropic-md",
            "Bandit: the interpolation's policies equal those of "
            "stochastic_mirror_descent(η, entropic_mirror_map()) on g = log π_k − log π_E over 50 "
            "steps, η ∈ {0.1, 0.3, 0.5, 0.9}, 16 bandits with 8 arms (float64). Not "
            "bit-identical: the two are the same map but different floating-point programs "
            "(the reward is never normalised; SMD carries π and applies π_{k+1} − π_k), so "
            "the tolerance is (A + 4)·eps/η summed round-off ×20; the dual step itself is "
            "bit-identical by construction (tested). In a bandit the induced policy step is "
            "exactly entropic mirror descent under our reconstruction; how far an MDP step "
            "departs from it is measured by the two deviation claims below.",
            _md_gap,
            MD_TOL,
            # the paper was not found: its statement is tested on the update we rebuilt
            source="reconstruction",
            quote=QUOTE_MIRROR_DESCENT,
        ),
        Claim.equals(
            "interp-one-step-exact",
            "Tabular, η = 1: the interpolation reaches ‖d − d_E‖₁ < 1e-3 at iteration 1 on every "
            "MDP (θ₁ = log π_E), which is why the tuned interpolation step is η = 1 below.",
            _one_step,
            1.0,
            source="derived",
            requires=_needs("interp", "tabular"),
        ),
        Claim.at_least(
            "interp-faster-than-dual",
            "Tabular: the interpolation at its tuned step reaches ‖d_k − d_E‖₁ < 1e-3 in fewer "
            "iterations than dual ascent at its tuned step on ≥ 90 % of MDPs (Wilson interval "
            "over 48 MDPs). Both methods are tuned by one protocol: the step with the smallest "
            "mean censored hit time over MDPs (censored lanes count as 201), chosen before the "
            "per-MDP comparison. In the realizable tabular case the tuned interpolation step is "
            "η = 1, which lands on π_E in one step. The comparison and the 90 % threshold are "
            "ours.",
            _wins_tabular,
            WIN_FRACTION,
            # no sentence of the abstract compares iteration counts with dual ascent: proposed;
            # both methods are now tuned by the same protocol (the interpolation was compared
            # at fixed steps against a tuned dual ascent before)
            source="proposed",
            over=None,
            requires=_needs("interp", "tabular"),
        ),
        Claim.at_least(
            "interp-beats-dual-features",
            "Non-realizable 16-random-feature reward, under our reconstruction: the "
            "interpolation at its tuned step ends (200 iterations) with a dual objective no "
            "lower than that of dual ascent at its tuned step (within the float32 tolerance "
            "2e-4) on ≥ 90 % of MDPs; both tuned on the mean final dual over MDPs. The "
            "reconstruction's target is the d_E-weighted least-squares projection of log π_E "
            "on the features, not the dual optimum, so the interpolation converges to that "
            "projection. The 90 % threshold is ours.",
            _wins_features,
            WIN_FRACTION,
            # reconstruction: the target reward for features is ours, not the paper's; tuned
            # dual ascent reaches the dual optimum, so "strictly higher" (the old reading) could
            # not hold in exact arithmetic: "no lower" is what convergence asks
            source="reconstruction",
            quote=QUOTE_CONVERGENCE,
            over=None,
            requires=_needs("interp", "features"),
        ),
        Claim.slope(
            "md-deviation-order-eta",
            "One interpolation step in an MDP deviates from π_k^{1−η} π_E^η by O(η): the log-log "
            "slope of the deviation (largest spread over actions of the log-ratio; mean over "
            "16 MDPs, float64, γ = 0.9) against η ∈ [0.01, 0.08] is at least 0.9. The "
            "first-order term γ·P[V_{k+1} − (1 − η)V_k] is derived in the description; the "
            "threshold 0.9 is ours.",
            _deviation_eta,
            "eta",
            at_least=DEVIATION_SLOPE,
            # the O(η) order is our derivation, not a sentence of the abstract
            source="derived",
        ),
        Claim.slope(
            "md-deviation-vanishes-gamma",
            "The deviation from π_k^{1−η} π_E^η vanishes as γ → 0: its log-log slope against "
            "γ ∈ [0.01, 0.3] at η = 0.1 (mean over 16 MDPs, float64) is at least 0.9 (the "
            "first-order term γ·P[V_{k+1} − (1 − η)V_k] is linear in γ; the threshold 0.9 is "
            "ours).",
            _deviation_gamma,
            "gamma",
            at_least=DEVIATION_SLOPE,
            # the γ → 0 limit is our derivation, not a sentence of the abstract
            source="derived",
        ),
        Claim.identity(
            "exact-md-at-gamma-zero",
            "At γ = 0 every state is a bandit and the interpolation step is exactly entropic "
            "mirror descent: the deviation is float64 round-off on 16 MDPs, every η of the grid.",
            _gamma_zero,
            GAMMA_ZERO_TOL,
            source="derived",
        ),
        Claim.at_most(
            "dual-monotone",
            "The dual objective is non-decreasing along the interpolation for η ≤ 1: per reward, "
            "the number of lanes (MDP × η ∈ {0.1, 0.3, 0.5, 1}) with a one-step decrease above the "
            "float32 tolerance 2e-4 is 0. Tabular: θ_{k+1} lies on the segment to the dual "
            "optimum of a concave g, so this is implied; features: the iterates move along one "
            "line to θ_T, on which g is concave but may peak before θ_T. Monotone ascent of "
            "the dual is what we test of the convergence results, under our reconstruction "
            "(for features the target θ_T is the d_E-weighted least-squares projection of "
            "log π_E, not the dual optimum).",
            _monotone,
            0.0,
            # reconstruction: the update and (for features) its target are rebuilt without the paper
            source="reconstruction",
            quote=QUOTE_CONVERGENCE,
            over=None,
            requires=_needs("interp", "tabular", "features"),
        ),
        Claim.equals(
            "no-divergence",
            "No lane goes non-finite (dual ascent at η = 80 and the interpolation at η = 1.5 may "
            "oscillate, but stay finite).",
            _no_divergence,
            0,
            source="sanity",
        ),
    ],
    figures=[
        Figure(
            "tabular",
            _draw_tabular,
            "Tabular reward: ‖d_k − d_E‖₁ against the iteration, median and IQR over MDPs, for "
            "dual ascent at its tuned step, the interpolation and the local natural gradient; "
            "dotted: the 1e-3 threshold.",
        ),
        Figure(
            "features",
            _draw_features,
            "Non-realizable 16-feature reward: the dual objective g(θ_k) (higher is better; "
            "E_dE log π_E − g is the d_E-weighted KL(π_E‖π_k)), median and IQR over MDPs: the "
            "interpolation toward the projected target moves down from the start.",
        ),
        Figure(
            "md_deviation",
            _draw_deviation,
            "Deviation of one interpolation step from the mirror-descent policy "
            "π_k^{1−η} π_E^η (float64, 16 MDPs, median and IQR): against η per γ (left) and "
            "against γ per η (right).",
            size=(9.0, 3.6),
        ),
    ],
    description=DESCRIPTION,
)
