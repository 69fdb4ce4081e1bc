r"""Float64 side checks of the occupancy-interpolation identities (not the sweep's simulator).

The experiment ``irl-occupancy-interp`` sweeps :mod:`jaxtheory.sims.irl.runner` in float32;
its exact identities are checked here, in float64 (each function enables x64 itself), on
random MDPs (:func:`~jaxtheory.sims.irl.mdp.random_mdp`) and bandits
(:func:`~jaxtheory.sims.irl.bandit.random_bandit`) drawn from ``keys``, one key an instance.
Each function returns per-instance errors (float64 numpy arrays); :func:`side_checks` runs them all at the
experiment's sizes. The MDP of a key comes from the first half of its split, the start
rewards from the second, so every check sees the same MDPs and experts.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import xarray as xr

from jaxtheory.optim import line_average
from jaxtheory.sims.irl import bandit as B
from jaxtheory.sims.irl import mdp as M

__all__ = [
    "BANDIT_ARMS",
    "BANDIT_ETAS",
    "CONTRACTION_STEPS",
    "DEVIATION_ETA",
    "DEVIATION_ETAS",
    "DEVIATION_GAMMAS",
    "IDENTITY_MDPS",
    "IDENTITY_SHAPE",
    "MD_STEPS",
    "NUM_INSTANCES",
    "NUM_NODES",
    "SEED",
    "VI_MAX",
    "VI_TOL",
    "bandit_checks",
    "mean_value_identity",
    "mirror_deviation",
    "side_checks",
    "soft_value_zero",
]

#: Random MDPs (and bandits) of :func:`side_checks`.
NUM_INSTANCES = 16
#: Their keys split from ``PRNGKey(SEED)``.
SEED = 2016
#: Float64 soft value iteration: relative tolerance.
VI_TOL = 1e-12
#: Float64 soft value iteration: iteration cap.
VI_MAX = 20_000
#: Gauss–Legendre nodes of the line averages.
NUM_NODES = 64
#: Bandit sizes of :func:`side_checks` (one compile each; the tests cover others).
BANDIT_ARMS = (8,)
#: Steps of the bandit recursions in :func:`side_checks`.
BANDIT_ETAS = (0.1, 0.3, 0.5, 0.9)
#: Iterations of the contraction record: (1 − 0.9)^8 = 1e-8 stays above float64 round-off.
CONTRACTION_STEPS = 8
#: Iterations of the interpolation and mirror-descent recursions compared.
MD_STEPS = 50
#: Small steps of the O(η) fit of the deviation (at the experiment's γ).
DEVIATION_ETAS = (0.01, 0.02, 0.04, 0.08)
#: Discounts of the γ → 0 fit of the deviation, made at :data:`DEVIATION_ETA`.
DEVIATION_GAMMAS = (0.01, 0.03, 0.1, 0.3)
#: The step of the γ → 0 fit.
DEVIATION_ETA = 0.1
#: MDPs of the mean-value identity (an identity: a few suffice).
IDENTITY_MDPS = 4
#: Their size (S, A).
IDENTITY_SHAPE = (8, 3)


def _vi(reward, mdp, v0=None):
    return M.soft_value_iteration(reward, mdp, v0, VI_TOL, VI_MAX)[0]


def _expert(key, num_states, num_actions, gamma):
    """The MDP of ``key`` with its hidden reward, the expert's soft value and log-policy."""
    mdp, r = M.random_mdp(jax.random.split(key)[0], num_states, num_actions, gamma, jnp.float64)
    v = _vi(r, mdp)
    return mdp, r, v, M.soft_policy(r, mdp, v)


def soft_value_zero(keys: jax.Array, num_states: int, num_actions: int, gamma: float):
    r"""The reward :math:`r = \log\pi_E` has soft value 0 and soft-optimal policy :math:`\pi_E`.

    Value iteration starts from the expert's own value (away from 0).

    Returns:
        ``(max |V|, max |π − π_E|)``, each ``(len(keys),)``: float64 round-off of the
        value iteration's fixed point, not 0.
    """
    with jax.enable_x64(True):

        @jax.jit
        def one(k):
            mdp, _, v_e, lp_e = _expert(k, num_states, num_actions, gamma)
            v = _vi(lp_e, mdp, v_e)
            return jnp.max(jnp.abs(v)), jnp.max(jnp.abs(jnp.exp(M.soft_policy(lp_e, mdp, v)) - jnp.exp(lp_e)))

        return tuple(np.asarray(x) for x in jax.vmap(one)(keys))


def bandit_checks(keys: jax.Array, arms: int, etas=BANDIT_ETAS, steps: int = MD_STEPS):
    r"""The bandit identities on one random bandit with ``arms`` arms per key.

    Returns:
        ``(identity, md_gap, contraction)``: the relative difference of the averaged-Fisher
        step :math:`\bar F^+(\mu_E - \mu_\theta)` (:data:`NUM_NODES` nodes) from the centred
        :math:`\theta^\star - \theta`, ``(seed,)``; the largest
        :math:`|\pi^{\text{interp}} - \pi^{\text{MD}}|` over ``steps`` iterations and ``etas``,
        ``(seed,)``; and the centred log-ratio error :math:`\|\log\pi_k - \log\pi_E\|` of the
        interpolation for :math:`k \le` :data:`CONTRACTION_STEPS` (``steps`` must reach it),
        ``(seed, eta, k)``.
    """
    with jax.enable_x64(True):
        th, lp = jax.vmap(lambda k: B.random_bandit(k, arms, jnp.float64))(keys)
        step = jax.jit(jax.vmap(lambda t, lp_: B.averaged_step(t, lp_, NUM_NODES)))(th, lp)
        ref = B.centered(lp - th)
        identity = jnp.linalg.norm(step - ref, axis=-1) / jnp.linalg.norm(ref, axis=-1)
        etas = jnp.asarray(etas, jnp.float64)
        inner_i = jax.vmap(lambda t, l, e: B.interp_policies(t, l, e, steps), (None, None, 0))
        inner_m = jax.vmap(lambda p, l, e: B.mirror_policies(p, l, e, steps), (None, None, 0))
        pi_i = jax.jit(jax.vmap(inner_i, (0, 0, None)))(th, lp, etas)  # (seed, eta, k, A)
        pi_m = jax.jit(jax.vmap(inner_m, (0, 0, None)))(jax.nn.softmax(th), lp, etas)
        md_gap = jnp.max(jnp.abs(pi_i - pi_m), axis=(1, 2, 3))
        log_ratio = B.centered(jnp.log(pi_i[:, :, : CONTRACTION_STEPS + 1]) - lp[:, None, None])
        return tuple(np.asarray(x) for x in (identity, md_gap, jnp.linalg.norm(log_ratio, axis=-1)))


def mirror_deviation(keys: jax.Array, num_states: int, num_actions: int, gammas, etas) -> np.ndarray:
    r"""How far one interpolation step in an MDP departs from entropic mirror descent.

    From a random reward :math:`r_k` (policy :math:`\pi_k`), the step
    :math:`r_{k+1} = (1-\eta) r_k + \eta\log\pi_E` gives :math:`\pi_{k+1}`; the deviation is
    the largest spread over actions of :math:`\log\pi_{k+1} - [(1-\eta)\log\pi_k + \eta\log\pi_E]`
    (per-state constants do not count), 0 at :math:`\gamma = 0` and at :math:`\eta = 1`.

    Returns:
        ``(seed, gamma, eta)``: the deviation per MDP, discount and step.
    """
    with jax.enable_x64(True):

        def one(k, g, eta):
            mdp, _, _, lp_e = _expert(k, num_states, num_actions, g)
            r_k = jax.random.normal(
                jax.random.split(jax.random.split(k)[1])[0], (num_states, num_actions), jnp.float64
            )
            lp_k = M.soft_policy(r_k, mdp, _vi(r_k, mdp))
            r_next = (1.0 - eta) * r_k + eta * lp_e
            c = M.soft_policy(r_next, mdp, _vi(r_next, mdp)) - ((1.0 - eta) * lp_k + eta * lp_e)
            return jnp.max(jnp.max(c, -1) - jnp.min(c, -1))

        dev = jax.jit(jax.vmap(jax.vmap(jax.vmap(one, (None, None, 0)), (None, 0, None)), (0, None, None)))
        return np.asarray(dev(keys, jnp.asarray(gammas, jnp.float64), jnp.asarray(etas, jnp.float64)))


def mean_value_identity(keys: jax.Array, num_states: int, num_actions: int, gamma: float):
    r"""The MDP mean-value identity and one averaged-Fisher step, with tabular features.

    With :math:`\bar F` the Fisher averaged (:data:`NUM_NODES` nodes) along the line from a
    random :math:`\theta_0` to :math:`\theta^\star = \log\pi_E`,
    :math:`\mu(\theta^\star) - \mu(\theta_0) = \bar F(\theta^\star - \theta_0)`, and the step
    :math:`\theta_0 + \bar F^+(\mu_E - \mu(\theta_0))` (the pseudo-inverse dropping the
    reward-shaping null space) has soft-optimal policy :math:`\pi_E`.

    Returns:
        ``(residual, policy_error)``, each ``(len(keys),)``: the relative ℓ₁ residual of the
        identity and the largest :math:`|\pi_1 - \pi_E|` after the step.
    """
    with jax.enable_x64(True):

        def one(k):
            mdp, _, _, lp_e = _expert(k, num_states, num_actions, gamma)
            size = num_states * num_actions
            eye = jnp.eye(size, dtype=jnp.float64)
            theta0 = jax.random.normal(jax.random.split(jax.random.split(k)[1])[1], (size,), jnp.float64)
            star = lp_e.reshape(-1)
            fbar = line_average(
                lambda th: M.fisher(th, eye, mdp, None, VI_TOL, VI_MAX), theta0, star, NUM_NODES
            )
            mu_star, mu_0 = (
                M.feature_expectation(th, eye, mdp, None, VI_TOL, VI_MAX) for th in (star, theta0)
            )
            g = mu_star - mu_0
            residual = jnp.sum(jnp.abs(fbar @ (star - theta0) - g)) / jnp.sum(jnp.abs(g))
            evals, evecs = jnp.linalg.eigh(0.5 * (fbar + fbar.T))
            keep = evals > 1e-10 * evals.max()
            step = evecs @ (jnp.where(keep, 1.0 / jnp.where(keep, evals, 1.0), 0.0) * (evecs.T @ g))
            r1 = (theta0 + step).reshape(num_states, num_actions)
            pi1 = jnp.exp(M.soft_policy(r1, mdp, _vi(r1, mdp)))
            return residual, jnp.max(jnp.abs(pi1 - jnp.exp(lp_e)))

        return tuple(np.asarray(x) for x in jax.jit(jax.vmap(one))(keys))


@functools.lru_cache(maxsize=2)
def side_checks(num_states: int, num_actions: int, gamma: float) -> dict:
    """Every check at the experiment's sizes (cached: several claims and a figure read it).

    :data:`NUM_INSTANCES` random instances from ``PRNGKey(SEED)``; the MDPs of
    :func:`mean_value_identity` are the first :data:`IDENTITY_MDPS` keys' at
    :data:`IDENTITY_SHAPE`.

    Returns:
        A dict. Its entries ``"zero_value"`` (keys ``"max|V|"``, ``"max|pi-pi_E|"``),
        ``"identity"`` and ``"md_gap"`` (keys ``"A=8"``, ...) and ``"mdp_identity"``
        (keys ``"mean-value"``, ``"one-step policy"``) hold the largest value over
        instances (floats); ``"contraction"`` is a DataArray over
        ``(seed, arms, eta, iter)`` and ``"deviation"`` one over ``(seed, gamma, eta)``,
        at the discounts 0, :data:`DEVIATION_GAMMAS` and ``gamma`` and the steps
        :data:`DEVIATION_ETAS`, :data:`DEVIATION_ETA`, 0.3 and 1.
    """
    with jax.enable_x64(True):
        keys = jax.random.split(jax.random.PRNGKey(SEED), NUM_INSTANCES)
        zv, zp = soft_value_zero(keys, num_states, num_actions, gamma)
        out = {"zero_value": {"max|V|": float(zv.max()), "max|pi-pi_E|": float(zp.max())}}
        bandits = {arms: bandit_checks(keys, arms) for arms in BANDIT_ARMS}
        out["identity"] = {f"A={a}": float(b[0].max()) for a, b in bandits.items()}
        out["md_gap"] = {f"A={a}": float(b[1].max()) for a, b in bandits.items()}
        out["contraction"] = xr.DataArray(
            np.stack([b[2] for b in bandits.values()], 1),
            dims=("seed", "arms", "eta", "iter"),
            coords={
                "arms": list(BANDIT_ARMS),
                "eta": list(BANDIT_ETAS),
                "iter": np.arange(CONTRACTION_STEPS + 1),
            },
        )
        gammas = jnp.asarray((0.0, *DEVIATION_GAMMAS, gamma), jnp.float64)
        etas = jnp.asarray((*DEVIATION_ETAS, DEVIATION_ETA, 0.3, 1.0), jnp.float64)
        out["deviation"] = xr.DataArray(
            mirror_deviation(keys, num_states, num_actions, gammas, etas),
            dims=("seed", "gamma", "eta"),
            coords={"gamma": np.asarray(gammas), "eta": np.asarray(etas)},
        )
        mv, pol = mean_value_identity(keys[:IDENTITY_MDPS], *IDENTITY_SHAPE, gamma)
        out["mdp_identity"] = {"mean-value": float(mv.max()), "one-step policy": float(pol.max())}
    return out
