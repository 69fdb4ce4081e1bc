"""``irl-occupancy-interp``: MaxEnt-IRL reward updates preconditioned by the line-averaged Fisher.

The sweep runs :mod:`jaxtheory.sims.irl.runner` (float32) on random MDPs; the exact identities are
checked by float64 side computations (:mod:`jaxtheory.sims.irl.bandit`, :mod:`jaxtheory.sims.irl.mdp`)
inside the claims' measures."""

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

HIT_LEVEL = 1e-3  # our convergence threshold on ‖d_k − d_E‖₁ (the metric "iterations to 1e-3")
WIN_FRACTION = 0.9  # "beats on ≥ 90 % of MDPs": our threshold
#: A float32 decrease of the dual counts only beyond this: one evaluation errs by ≤ γ·vi_tol·(1 + ‖V‖∞)
#: (≈ 1e-5 at γ = 0.9, vi_tol = 1e-6, ‖V‖∞ ≲ 10) plus the rounding of θ·μ_E over S·A = 80 terms
#: (≲ 80·1.2e-7·‖θ‖∞ ≈ 1e-4 at ‖θ‖∞ ≈ 10), twice (two evaluations).
DUAL_TOL = 2e-4
CONTRACTION_ATOL = math.log(1.01)  # the contraction factor (1 − η) within 1 % (our tolerance)
BANDIT_ARMS = (8,)  # bandit sizes of the float64 checks (one compile each; tests cover others)
BANDIT_ETAS = (0.1, 0.3, 0.5, 0.9)
CONTRACTION_STEPS = 8  # (1 − 0.9)^8 = 1e-8 stays above float64 round-off
MD_STEPS = 50
#: Interpolation and mirror descent are one map but two floating-point programs: each step
#: rounds a log, an exp and a sum over A arms (≲ (A + 4)·eps relative), damped by (1 − η), so
#: |Δπ| ≲ (A + 4)·eps/η ≈ 4.4e-14 for A = 16, η = 0.1; the tolerance is 20× that (40× at A = 8).
MD_TOL = 1e-12
IDENTITY_TOL = 1e-6  # our tolerance for F̄⁺(μ_E − μ_θ) = θ* − θ up to the constant shift (float64)
SIDE_MDPS = 16  # random MDPs of the float64 side computations
SIDE_VI_TOL, SIDE_VI_MAX = 1e-12, 20_000  # float64 value iteration: relative tolerance and cap
#: |V| and |π − π_E| for r = log π_E: value iteration stops within γ/(1 − γ)·SIDE_VI_TOL·(1 + ‖V‖∞)
#: ≈ 1e-10 of the fixed point (‖V_E‖∞ ≲ 10), and π_E carries the same error.
ZERO_VALUE_TOL = 1e-9
DEVIATION_ETAS = (0.01, 0.02, 0.04, 0.08)  # small steps of the O(η) fit
DEVIATION_GAMMAS = (0.01, 0.03, 0.1, 0.3)  # discounts of the γ → 0 fit, made at DEVIATION_ETA
DEVIATION_ETA = 0.1
DEVIATION_SLOPE = 0.9  # "O(η)", "vanishes as γ → 0": log-log slopes at least this (our encoding)
GAMMA_ZERO_TOL = 1e-12  # at γ = 0 the deviation is round-off (log-ratios of O(10) over A = 4)
NUM_NODES = 64  # Gauss–Legendre nodes of the line averages
IDENTITY_MDPS, IDENTITY_SHAPE = 4, (8, 3)  # the MDP mean-value identity: an identity, small MDPs
#: 64-node quadrature of an analytic integrand is exact to round-off, the Fisher to the value
#: iteration's 1e-12; 1e-8 leaves room for the conditioning of the 80-dimensional solve.
MDP_IDENTITY_TOL = 1e-8

QUOTE_INTERPOLATION = (
    "this preconditioned gradient is just a convex interpolation of the old reward and a new target reward"
)
QUOTE_MIRROR_DESCENT = (
    "policy search over the resulting rewards induces approximate entropic MD on the policy"
)
QUOTE_CONVERGENCE = "we conclude with convergence results of such geometry-aware IRL algorithms"


def _by_eta(ds, var, method):
    """``ds[var]`` at ``method``, its ``eta_index`` relabelled by the step value (the ``eta`` metric)."""
    da = as_dims(analysis.select(ds[var], algo=method), "eta_index")
    e = as_dims(analysis.select(ds["eta"], algo=method), "eta_index").transpose("eta_index", ...)
    etas = np.asarray(e.values, float).reshape(e.sizes["eta_index"], -1)[:, 0]  # the same in every lane
    return da.assign_coords(eta_index=[float(round(v, 6)) for v in etas]).rename(eta_index="eta")


def _hits(ds, method, reward):
    """First iteration with ‖d_k − d_E‖₁ < HIT_LEVEL, never-hitting lanes at ``steps + 1``."""
    l1 = analysis.select(_by_eta(ds, "l1", method), reward=reward).transpose(..., "iter")
    below = l1.values < HIT_LEVEL
    first = np.where(below.any(-1), np.argmax(below, axis=-1).astype(float), ds.sizes["iter"])
    return l1.isel(iter=0, drop=True).copy(data=first).reset_coords(drop=True)


def _tuned(ds, method, reward):
    """``method`` at its tuned step, one protocol for both: the best mean over MDPs of the censored
    hit time (tabular) or of the final dual (features), chosen before any per-MDP comparison."""
    if reward == "tabular":
        return analysis.tuned(_hits(ds, method, reward), "eta")
    final = analysis.select(_by_eta(ds, "dual", method), reward=reward).isel(iter=-1)
    return analysis.tuned(final, "eta", minimize=False)


def _needs(method, *rewards):
    def check(ds, spec):
        algos = set(values_of(ds, "algo"))
        if method not in algos or "dual" not in algos:
            return f"the preset runs no {method!r} and 'dual' lanes"
        if not set(rewards) <= set(values_of(ds, "reward")):
            return f"the preset lacks the reward(s) {rewards}"
        return None

    return check


@functools.lru_cache(maxsize=2)
def _side(num_states: int, num_actions: int, gamma: float) -> dict:
    """Every float64 check at once (cached: several claims and a figure read it)."""
    out = {}
    with jax.enable_x64(True):
        f64 = jnp.float64
        keys = jax.random.split(jax.random.PRNGKey(2016), SIDE_MDPS)

        def vi(r, mdp, v0=None):
            return M.soft_value_iteration(r, mdp, v0, SIDE_VI_TOL, SIDE_VI_MAX)[0]

        def expert(k, g):  # the MDP from the first half of the key; the start rewards from the second
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

        ident, contr, md = {}, [], {}  # the bandit: identity, contraction, mirror descent
        for arms in BANDIT_ARMS:
            th, lp = jax.vmap(lambda k, a=arms: B.random_bandit(k, a, f64))(keys)
            step = jax.jit(jax.vmap(lambda t, lp_: B.averaged_step(t, lp_, NUM_NODES)))(th, lp)
            ref = B.centered(lp - th)
            ident[f"A={arms}"] = float(
                (jnp.linalg.norm(step - ref, axis=-1) / jnp.linalg.norm(ref, axis=-1)).max()
            )
            etas = jnp.asarray(BANDIT_ETAS, f64)
            inner_i = jax.vmap(lambda t, l, e: B.interp_policies(t, l, e, MD_STEPS), (None, None, 0))
            inner_m = jax.vmap(lambda p, l, e: B.mirror_policies(p, l, e, MD_STEPS), (None, None, 0))
            pi_i = jax.jit(jax.vmap(inner_i, (0, 0, None)))(th, lp, etas)  # (seed, eta, k, A)
            pi_m = jax.jit(jax.vmap(inner_m, (0, 0, None)))(jax.nn.softmax(th), lp, etas)
            md[f"A={arms}"] = float(jnp.max(jnp.abs(pi_i - pi_m)))
            lr = B.centered(jnp.log(pi_i[:, :, : CONTRACTION_STEPS + 1]) - lp[:, None, None])
            contr.append(np.asarray(jnp.linalg.norm(lr, axis=-1)))
        out["identity"], out["md_gap"] = ident, md
        out["contraction"] = xr.DataArray(
            np.stack(contr, 1),
            dims=("seed", "arms", "eta", "iter"),
            coords={
                "arms": list(BANDIT_ARMS),
                "eta": list(BANDIT_ETAS),
                "iter": np.arange(CONTRACTION_STEPS + 1),
            },
        )

        def deviation(k, g, eta):  # one interpolation step in an MDP against pi_k^(1-eta) pi_E^eta
            mdp, _, _, lp_e = expert(k, g)
            r_k = jax.random.normal(
                jax.random.split(jax.random.split(k)[1])[0], (num_states, num_actions), f64
            )
            lp_k = M.soft_policy(r_k, mdp, vi(r_k, mdp))
            r_next = (1.0 - eta) * r_k + eta * lp_e
            c = M.soft_policy(r_next, mdp, vi(r_next, mdp)) - ((1.0 - eta) * lp_k + eta * lp_e)
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

        def identity_mdp(k):  # the mean-value identity in an MDP, and one averaged-Fisher step from theta_0
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
            return mean_value, jnp.max(jnp.abs(pi1 - jnp.exp(lp_e)))

        mv, pol = jax.jit(jax.vmap(identity_mdp))(keys[:IDENTITY_MDPS])
        out["mdp_identity"] = {"mean-value": float(mv.max()), "one-step policy": float(pol.max())}
    return out


def _side_of(key, **sel):
    """A measure reading the float64 side computation ``key`` (at ``sel``)."""

    def measure(ds, spec):
        out = _side(spec.num_states, spec.num_actions, 0.9)[key]
        return out.sel(sel) if sel else out

    return measure


def _one_step(ds, spec):
    """Largest first-hit iteration of the tabular interpolation at η = 1 (never: steps + 1, a fail)."""
    return float(analysis.select(_hits(ds, "interp", "tabular"), eta=1.0).max())


def _wins(reward):
    """Fraction of MDPs where the tuned interpolation beats tuned dual ascent: hits 1e-3 strictly
    earlier (tabular), or ends with a dual no lower beyond DUAL_TOL (features)."""

    def measure(ds, spec):
        (interp, bi), (dual, bd) = _tuned(ds, "interp", reward), _tuned(ds, "dual", reward)
        i, d = interp.values, dual.values
        win = (i < ds.sizes["iter"]) & (i < d) if reward == "tabular" else i >= d - DUAL_TOL
        return {f"interp η={bi.at:g}, dual η={bd.at:g}": analysis.proportion(int(win.sum()), int(win.size))}

    return measure


def _monotone(ds, spec):
    """Per reward: lanes (MDP × η ≤ 1) whose interpolation ever lowers the dual by > DUAL_TOL."""
    g = _by_eta(ds, "dual", "interp")
    g = g.sel(eta=[e for e in g["eta"].values if e <= 1.0])
    return (((g.shift(iter=1) - g).max("iter") > DUAL_TOL).sum(("eta", "seed"))).astype(float)


def _lines(var, reward):
    """``var`` over MDPs for tuned dual ascent, the interpolation and the natural gradient at fixed steps."""

    def metric(ds, spec):
        picks = [("dual", _tuned(ds, "dual", reward)[1].at), ("interp", 0.1), ("interp", 0.3)]
        picks += [("interp", 1.0), ("natural", 0.3), ("natural", 1.0)]
        das, labels = [], []
        for method, eta in picks:
            if method in values_of(ds, "algo"):
                da = analysis.select(_by_eta(ds, var, method), reward=reward)
                if eta in da["eta"].values:
                    das.append(da.sel(eta=eta, drop=True).reset_coords(drop=True))
                    labels.append(f"{method}, η={eta:g}")
        da = xr.concat(das, "line").assign_coords(line=labels)
        return da.clip(min=1e-9) if var == "l1" else da

    return metric


def _draw_deviation(ds, spec, fig):
    dev = _side_of("deviation")(ds, spec)
    for i, (x, hue, sel) in enumerate(
        [
            ("eta", "gamma", dict(gamma=[0.01, 0.1, 0.3, 0.9], eta=[*DEVIATION_ETAS, DEVIATION_ETA, 0.3])),
            (
                "gamma",
                "eta",
                dict(gamma=[g for g in dev["gamma"].values if g > 0], eta=[0.01, DEVIATION_ETA, 0.3]),
            ),
        ]
    ):
        ax = fig.add_subplot(1, 2, i + 1)
        fmt = "γ={:g}" if hue == "gamma" else "η={:g}"
        plots.curves(
            ax, dev.sel(sel), x, hue=hue, band="iqr", log=(True, True), marker="o", ms=3, label_fmt=fmt
        )
        ax.set_xlabel("η" if x == "eta" else "γ")
        ax.legend(fontsize=6)
    fig.axes[0].set_ylabel("max_s spread_a log(π_{k+1} / π_k^{1−η} π_E^η)")


METHOD_CURVES = dict(x="iter", hue="line", band="iqr", xlabel="iteration k")
TABULAR = plots.curves(
    _lines("l1", "tabular"),
    logy=True,
    theory=lambda c, spec: HIT_LEVEL,
    theory_label="1e-3 threshold",
    ylabel="‖d_k − d_E‖₁ (median, IQR over MDPs)",
    **METHOD_CURVES,
)
FEATURES = plots.curves(
    _lines("dual", "features"), ylabel="dual objective g(θ_k) (median, IQR over MDPs)", **METHOD_CURVES
)

DESCRIPTION = r"""
**Setting (our reconstruction: the paper was not found, only its abstract).** A tabular MDP
$(S, A, P, \rho_0, \gamma)$ with Dirichlet(1) transitions and a hidden reward $r_E \sim N(0, 1)$;
the expert $\pi_E$ is soft-optimal for $r_E$, with normalised occupancy $d_E$. The learner's
reward is $r_\theta = \Phi\theta$ from $\theta_0 = 0$; the MaxEnt-IRL dual
$g(\theta) = \theta\cdot\mu_E - (1-\gamma)\rho_0\cdot V_\theta$ has gradient $\mu_E - \mu(\theta)$ and equals
$\mathbb E_{d_E}\log\pi_E - \mathbb E_{s\sim d_E}\mathrm{KL}(\pi_E\|\pi_\theta)$. The mean-value identity
$\mu(\theta^\star) - \mu(\theta) = \bar F(\theta^\star - \theta)$, with $\bar F$ the Fisher averaged along the
line, makes the $\bar F^+$-preconditioned step the interpolation
$\theta_{k+1} = (1-\eta)\theta_k + \eta\theta^\star$; as $\log\pi_E$ has soft value $0$ and soft-optimal
policy $\pi_E$, the tabular $\theta^\star = \log\pi_E$ needs no solve.

**Methods** (`jaxtheory.sims.irl.runner`, 200 iterations, float32): (A) dual ascent
$\theta \leftarrow \theta + \eta(\mu_E - \mu_\theta)$, $\eta \in \{10, 20, 40, 60, 80\}$ (the tabular
optimum, 60, is inside: 70 already fails to converge on some MDPs); (B) `optim.occupancy_interp`
toward $\theta_T$, $\eta \in \{0.1, 0.3, 0.5, 1, 1.5\}$; (C) the local natural gradient
`optim.averaged_fisher_precondition` with the Fisher at $\theta_k$ (a damped Newton step),
$\eta \in \{0.1, 0.3, 0.5, 0.7, 1\}$. Rewards: *tabular* (one-hot, realizable: $\theta_T = \log\pi_E$)
and *features*: 16 random $N(0, 1/16)$ features, where $\pi_E$ is not realizable and the target
$\theta_T$ is the $d_E$-weighted least-squares projection of $\log\pi_E$, **not** the dual optimum
(the paper's target for feature rewards is not known to us).

**Deviation from mirror descent.** One interpolation step from a random reward gives
$\log\pi_{k+1} - [(1-\eta)\log\pi_k + \eta\log\pi_E] = \gamma P\,[V_{k+1} - (1-\eta)V_k]$ up to
per-state constants: the deviation from $\pi_k^{1-\eta}\pi_E^\eta$ is first order in $\eta$ and in
$\gamma$, and $0$ at $\gamma = 0$ and at $\eta = 1$. The dual step itself, `occupancy_interp`'s
update at $\theta = \log\pi_k$, is bit-identical to $-\eta g$ by construction (tested).

**What the runs show.** The identities hold to float64 round-off; the bandit's interpolation
and mirror-descent policies agree to round-off but not bitwise; $\bar F$ of an MDP has exactly
the $S$ reward-shaping directions as null space. Tabular: tuned dual ascent's best step, 60,
sits just below the steps that fail to converge on some MDPs; at a small fixed step the
interpolation is slower (at $\eta = 0.1$ the error contracts by $0.9$ per step, about 60
iterations against dual ascent's 30), and the local natural gradient matches the
interpolation at equal $\eta$.

**Finding under our reconstruction (features).** The projected target $\theta_T$ has a *lower*
dual objective than the start $\theta_0 = 0$ (about $-1.50$ against $-1.39$, means over MDPs): the
interpolation lowers the dual on every lane, by far more than the float32 tolerance (the
tabular lanes never lower it beyond round-off), and ends below the moment-matching optimum
(about $-1.31$), which tuned dual ascent and the natural gradient both reach. Projecting
$\log\pi_E$ on the features in $d_E$-weighted least squares ignores the soft-value coupling
$\gamma PV$ of a reward that is not $\log\pi_E$ itself, so "no solve needed" holds only in the
realizable case. This refutes our choice of target, not the paper, whose target for feature
rewards we could not read.
"""


def _space(seeds):
    return Space(
        algo=static(*R.METHODS),
        eta_index=values(0, 1, 2, 3, 4),
        reward=values("tabular", "features"),
        seeds=seeds,
        paired=("algo", "eta_index", "reward"),
    )


EXPERIMENT = Experiment(
    name="irl-occupancy-interp",
    paper=Paper(
        title="Occupancy-space reward updates in inverse RL (Fisher along the e-geodesic)",
        found=False,
        banner="The formulation is derived from MaxEnt IRL (Ziebart et al. 2008, 2010), occupancy-measure "
        "duality and natural gradient; the nearest retrieved paper (TRIRL, arXiv 2605.11020) is a different "
        "paper.",
        unverified=(
            "Feature rewards on 64×64 gridworlds with sample-based d_E from 10 to 10⁴ demonstrations (not "
            "built).",
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
            _space(48),
            description="CPU: S = 20, A = 4, γ = 0.9, 200 iterations, 48 MDPs (48/48 wins is the "
            "fewest that decides ≥ 90 % at 95 % with two compared steps), all three methods.",
        ),
        "full": Preset(
            _space(512),
            spec={"num_states": 64, "steps": 500, "vi_max_iter": 5000},
            description="One accelerator: S = 64, 500 iterations, 512 MDPs.",
        ),
    },
    claims=[
        Claim.identity(
            "log-pi-e-soft-value-zero",
            "The reward r = log π_E has soft value V ≡ 0 and soft-optimal policy π_E (Q = log π_E + γ·P·0, V "
            "= log Σ_a π_E = 0): max |V| and max |π − π_E| over 16 MDPs (S = 20, A = 4, γ = 0.9), float64 "
            "value iteration started from the expert's own value.",
            _side_of("zero_value"),
            ZERO_VALUE_TOL,
            source="derived",
        ),
        Claim.identity(
            "bandit-averaged-fisher-identity",
            "Bandit: F̄⁺(μ_E − μ_θ) = θ* − θ up to the constant shift, with F̄ the Fisher averaged along the "
            "straight line to θ* = log π_E (our reconstruction) by 64-point Gauss–Legendre quadrature: "
            "largest relative difference from the centred θ* − θ over 16 random bandits with 8 arms, float64. "
            "The tolerance 1e-6 is ours.",
            _side_of("identity"),
            IDENTITY_TOL,
            source="reconstruction",
            quote=QUOTE_INTERPOLATION,
        ),
        Claim.identity(
            "mdp-mean-value-identity",
            "MDP (S = 8, A = 3, γ = 0.9, 4 MDPs, float64): μ_E − μ(θ₀) = F̄(θ* − θ₀) with F̄ averaged over 64 "
            "nodes (relative ℓ₁ residual), and one step θ₀ + F̄⁺(μ_E − μ(θ₀)) has soft-optimal policy π_E "
            "(max |π − π_E|; F̄⁺ drops the S reward-shaping directions, which change no policy).",
            _side_of("mdp_identity"),
            MDP_IDENTITY_TOL,
            source="derived",
        ),
        Claim.slope(
            "bandit-contraction",
            "Bandit: the centred log-ratio error ‖log π_k − log π_E‖ contracts by exactly (1 − η) per step "
            "(log π_k − log π_E = (1 − η)^k (log π_0 − log π_E) up to a constant, by the interpolation "
            "identity): its semi-log slope in k (mean over 16 bandits, 8 iterations, float64) is log(1 − η) "
            "within log 1.01 (our tolerance), per η and number of arms.",
            _side_of("contraction"),
            "iter",
            expected=lambda c: math.log(1.0 - c["eta"]),
            atol=CONTRACTION_ATOL,
            semilog=True,
            source="derived",
        ),
        Claim.identity(
            "bandit-interp-is-entropic-md",
            "Bandit: the interpolation's policies equal those of stochastic_mirror_descent(η, "
            "entropic_mirror_map()) on g = log π_k − log π_E over 50 steps, η ∈ {0.1, 0.3, 0.5, 0.9}, 16 "
            "bandits with 8 arms (float64), to (A + 4)·eps/η summed round-off ×20: the same map, but "
            "different floating-point programs (the reward is never normalised; SMD carries π). How far an "
            "MDP step departs from it is measured by the deviation claims below.",
            _side_of("md_gap"),
            MD_TOL,
            source="reconstruction",
            quote=QUOTE_MIRROR_DESCENT,
        ),
        Claim.equals(
            "interp-one-step-exact",
            "Tabular, η = 1: the interpolation reaches ‖d − d_E‖₁ < 1e-3 at iteration 1 on every MDP (θ₁ = "
            "log π_E), which is why the tuned interpolation step is η = 1 below.",
            _one_step,
            1.0,
            source="derived",
            requires=_needs("interp", "tabular"),
        ),
        Claim.at_least(
            "interp-faster-than-dual",
            "Tabular: the interpolation at its tuned step reaches ‖d_k − d_E‖₁ < 1e-3 in fewer iterations "
            "than dual ascent at its tuned step on ≥ 90 % of MDPs (Wilson interval over 48 MDPs). One "
            "protocol tunes both: the step with the smallest mean censored hit time over MDPs (censored lanes"
            " count as 201), chosen before the per-MDP comparison; it is η = 1 for the interpolation, which "
            "lands on π_E in one step. The comparison and the 90 % threshold are ours.",
            _wins("tabular"),
            WIN_FRACTION,
            source="proposed",
            over=None,
            requires=_needs("interp", "tabular"),
        ),
        Claim.at_least(
            "interp-beats-dual-features",
            "Non-realizable 16-random-feature reward, under our reconstruction: the interpolation at its "
            "tuned step ends (200 iterations) with a dual objective no lower than that of dual ascent at its "
            "tuned step (within the float32 tolerance 2e-4) on ≥ 90 % of MDPs; both tuned on the mean final "
            "dual over MDPs. The reconstruction's target is the d_E-weighted least-squares projection of log "
            "π_E, not the dual optimum. The 90 % threshold is ours.",
            _wins("features"),
            WIN_FRACTION,
            source="reconstruction",
            quote=QUOTE_CONVERGENCE,
            over=None,
            requires=_needs("interp", "features"),
        ),
        Claim.slope(
            "md-deviation-order-eta",
            "One interpolation step in an MDP deviates from π_k^{1−η} π_E^η by O(η): the log-log slope of the "
            "deviation (largest spread over actions of the log-ratio; mean over 16 MDPs, float64, γ = 0.9) "
            "against η ∈ [0.01, 0.08] is at least 0.9. The first-order term γ·P[V_{k+1} − (1 − η)V_k] is "
            "derived in the description; the threshold 0.9 is ours.",
            _side_of("deviation", gamma=0.9, eta=list(DEVIATION_ETAS)),
            "eta",
            at_least=DEVIATION_SLOPE,
            source="derived",
        ),
        Claim.slope(
            "md-deviation-vanishes-gamma",
            "The deviation from π_k^{1−η} π_E^η vanishes as γ → 0: its log-log slope against γ ∈ [0.01, 0.3] "
            "at η = 0.1 (mean over 16 MDPs, float64) is at least 0.9 (the first-order term γ·P[V_{k+1} − (1 − "
            "η)V_k] is linear in γ; the threshold 0.9 is ours).",
            _side_of("deviation", gamma=list(DEVIATION_GAMMAS), eta=DEVIATION_ETA),
            "gamma",
            at_least=DEVIATION_SLOPE,
            source="derived",
        ),
        Claim.identity(
            "exact-md-at-gamma-zero",
            "At γ = 0 every state is a bandit and the interpolation step is exactly entropic mirror descent: "
            "the deviation is float64 round-off on 16 MDPs, every η of the grid.",
            _side_of("deviation", gamma=0.0),
            GAMMA_ZERO_TOL,
            source="derived",
        ),
        Claim.at_most(
            "dual-monotone",
            "The dual objective is non-decreasing along the interpolation for η ≤ 1 (what we test of the "
            "convergence results, under our reconstruction): per reward, no lane (MDP × η ∈ {0.1, 0.3, 0.5, "
            "1}) has a one-step decrease above the float32 tolerance 2e-4. Tabular: θ_{k+1} lies on the "
            "segment to the optimum of a concave g, so this is implied; features: the iterates move along one"
            " line to θ_T, on which g is concave but may peak before θ_T.",
            _monotone,
            0.0,
            source="reconstruction",
            quote=QUOTE_CONVERGENCE,
            over=None,
            requires=_needs("interp", "tabular", "features"),
        ),
        Claim.equals(
            "no-divergence",
            "No lane goes non-finite (dual ascent at η = 80 and the interpolation at η = 1.5 may oscillate, "
            "but stay finite).",
            lambda ds, spec: int((ds["status"] != 0).sum()),
            0,
            source="sanity",
        ),
    ],
    figures=[
        Figure(
            "tabular",
            TABULAR,
            "Tabular reward: ‖d_k − d_E‖₁ against the iteration, median and IQR over MDPs, for dual ascent at "
            "its tuned step, the interpolation and the local natural gradient; dotted: the 1e-3 threshold.",
        ),
        Figure(
            "features",
            FEATURES,
            "Non-realizable 16-feature reward: the dual objective g(θ_k) (higher is better; E_dE log π_E − g "
            "is the d_E-weighted KL(π_E‖π_k)), median and IQR over MDPs: the interpolation toward the "
            "projected target moves down from the start.",
        ),
        Figure(
            "md_deviation",
            _draw_deviation,
            "Deviation of one interpolation step from the mirror-descent policy π_k^{1−η} π_E^η (float64, 16 "
            "MDPs, median and IQR): against η per γ (left) and against γ per η (right).",
            size=(9.0, 3.6),
        ),
    ],
    description=DESCRIPTION,
)
