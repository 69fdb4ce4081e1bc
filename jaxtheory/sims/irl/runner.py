r"""MaxEnt IRL on random tabular MDPs: dual ascent, occupancy interpolation, natural gradient.

One lane is one random MDP (:func:`~jaxtheory.sims.irl.mdp.random_mdp`: Dirichlet(1)
transitions, uniform :math:`\rho_0`, hidden reward :math:`r_E \sim N(0, 1)`) with the
expert :math:`\pi_E` soft-optimal for :math:`r_E` and its occupancy :math:`d_E`. The
learner's reward is :math:`r_\theta = \Phi\theta`, from :math:`\theta_0 = 0` (the uniform
policy), with ``reward`` a code into :data:`REWARDS`:

* 0 ``"tabular"``: :math:`\Phi = I_{SA}` (realizable: :math:`\log\pi_E` is a reward);
* 1 ``"features"``: ``num_features`` random N(0, 1) columns, padded with zero columns to
  :math:`SA` so that both codes share one compiled program (the padded coordinates get
  zero gradient, zero Fisher and zero target, and never move). :math:`\pi_E` is in general
  not realizable.

Each iteration solves the soft value (warm-started :func:`soft_value_iteration`), the
occupancy and :math:`\mu(\theta) = \Phi^\top d_\theta`, then steps with ``spec.algo``
(static ``algo``: one compile per method):

* ``"dual"``: dual ascent :math:`\theta \leftarrow \theta + \eta(\mu_E - \mu(\theta))`;
* ``"interp"``: :func:`jaxtheory.optim.occupancy_interp` toward the target
  :math:`\theta_T = \arg\min_\theta \mathbb E_{d_E}(\Phi\theta - \log\pi_E)^2`, which is
  :math:`\log\pi_E` in the tabular case (the dual optimum: soft value 0, soft-optimal
  policy :math:`\pi_E`) and its :math:`d_E`-weighted projection on the features otherwise;
* ``"natural"``: the local natural gradient
  :func:`jaxtheory.optim.averaged_fisher_precondition` with the Fisher at
  :math:`\theta_k` (no target, one node), i.e. a damped Newton step on the dual.

The step is ``etas[eta_index]`` of the method's grid in the spec, so each method has its own
grid under one dynamic axis.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import optax

from jaxtheory.divergence import guarded_scan
from jaxtheory.optim import averaged_fisher_precondition, occupancy_interp
from jaxtheory.sims.irl import mdp as M
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "DEFAULT_PARAMS",
    "IRLSpec",
    "METHODS",
    "REWARDS",
    "expert",
    "features_for",
    "run",
    "target_reward",
]

#: The learner's methods (``spec.algo``).
METHODS = ("dual", "interp", "natural")
#: Names of the ``reward`` codes: 0 tabular (one-hot features), 1 random features.
REWARDS = ("tabular", "features")

#: Damping of the natural gradient's linear solve, relative to the mean eigenvalue of the
#: Fisher (float32 round-off puts the null space's eigenvalues near 1e-7 of the largest).
NATURAL_DAMPING = 1e-4
#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {"gamma": 0.9, "eta_index": 0, "reward": 0}


@dataclasses.dataclass(frozen=True)
class IRLSpec:
    """What fixes the shapes of an IRL run (the compile key).

    Attributes:
        num_states: :math:`S`.
        num_actions: :math:`A`.
        steps: iterations of the reward update.
        algo: the method, one of :data:`METHODS`.
        num_features: random features of the ``"features"`` reward (at most ``S*A``).
        dual_etas: the step grid of ``"dual"``.
        interp_etas: the step grid of ``"interp"``.
        natural_etas: the step grid of ``"natural"`` (all three grids have one length).
        vi_tol: relative tolerance of soft value iteration.
        vi_max_iter: its most backups per solve.
    """

    num_states: int = 20
    num_actions: int = 4
    steps: int = 200
    algo: str = "interp"
    num_features: int = 16
    dual_etas: tuple[float, ...] = (3.0, 10.0, 30.0, 100.0)
    interp_etas: tuple[float, ...] = (0.1, 0.3, 0.5, 1.0)
    natural_etas: tuple[float, ...] = (0.1, 0.3, 0.5, 1.0)
    vi_tol: float = 1e-6
    vi_max_iter: int = 1000

    def __post_init__(self):
        if self.algo not in METHODS:
            raise ValueError(f"algo must be one of {METHODS}, got {self.algo!r}")
        lens = {len(self.dual_etas), len(self.interp_etas), len(self.natural_etas)}
        if len(lens) != 1:
            raise ValueError("dual_etas, interp_etas and natural_etas must have the same length")
        if not 1 <= self.num_features <= self.num_states * self.num_actions:
            raise ValueError(f"num_features must be in [1, S*A], got {self.num_features}")

    @property
    def etas(self) -> tuple[float, ...]:
        """The step grid of ``algo``."""
        return {"dual": self.dual_etas, "interp": self.interp_etas, "natural": self.natural_etas}[self.algo]


def features_for(spec: IRLSpec, reward_code, key: jax.Array, dtype) -> jax.Array:
    """The ``(S*A, S*A)`` feature matrix of a ``reward`` code (identity, or padded random features).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> spec = IRLSpec(num_states=2, num_actions=2, num_features=1)
        >>> print(features_for(spec, 0, jax.random.PRNGKey(0), jnp.float32).diagonal())
        [1. 1. 1. 1.]
    """
    k = spec.num_states * spec.num_actions
    rand = jax.random.normal(key, (k, spec.num_features), dtype) / jnp.sqrt(
        jnp.asarray(spec.num_features, dtype)
    )
    padded = jnp.concatenate([rand, jnp.zeros((k, k - spec.num_features), dtype)], axis=1)
    return jnp.where(jnp.asarray(reward_code) == 0, jnp.eye(k, dtype=dtype), padded)


def expert(spec: IRLSpec, mdp: M.MDP, reward: jax.Array):
    """The expert's log-policy and occupancy for the hidden reward (soft-optimal).

    Returns:
        ``(log_pi_E, d_E)``, each ``(S, A)``.
    """
    v, _ = M.soft_value_iteration(reward, mdp, None, spec.vi_tol, spec.vi_max_iter)
    log_pi = M.soft_policy(reward, mdp, v)
    return log_pi, M.occupancy(jnp.exp(log_pi), mdp)


def target_reward(features: jax.Array, log_pi_expert: jax.Array, d_expert: jax.Array) -> jax.Array:
    r"""The interpolation target :math:`\theta_T = \arg\min_\theta \sum_{s,a} d_E(s,a)\,(\Phi\theta - \log\pi_E)^2`.

    Weighted least squares (minimum norm: zero on zero columns). With one-hot features
    it is :math:`\log\pi_E` (up to round-off; :func:`run` then uses :math:`\log\pi_E`
    itself).

    Args:
        features: ``(S*A, K)``.
        log_pi_expert: ``(S, A)``.
        d_expert: ``(S, A)``, the expert's occupancy (the weights).

    Returns:
        ``(K,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> lp = jnp.log(jnp.array([[0.25, 0.75]]))
        >>> print(target_reward(jnp.eye(2), lp, jnp.array([[0.25, 0.75]])).round(4))
        [-1.3863 -0.2877]
    """
    w = jnp.sqrt(d_expert.reshape(-1))
    return jnp.linalg.lstsq(w[:, None] * features, w * log_pi_expert.reshape(-1))[0]


def run(spec: IRLSpec, params, key: jax.Array) -> dict:
    """One random MDP, one method at one step size, ``spec.steps`` reward updates.

    Args:
        spec: an :class:`IRLSpec`.
        params: ``gamma``, ``eta_index`` (into the method's grid) and ``reward`` (code into
            :data:`REWARDS`).
        key: PRNG key (the MDP, the hidden reward and the random features).

    Returns:
        Per iteration ``k = 0..steps`` (``(steps + 1,)``): ``l1`` :math:`\\lVert d_k - d_E\\rVert_1`,
        ``kl`` :math:`\\mathbb E_{s\\sim d_E}\\mathrm{KL}(\\pi_E\\|\\pi_k)`, ``dual`` the dual objective;
        scalars ``eta`` (the step used), ``dual_star`` (:math:`\\mathbb E_{d_E}\\log\\pi_E`, the
        tabular optimum of the dual), ``vi_iters`` (most backups of one solve) and
        ``diverged_step``.

    Example:
        >>> import jax
        >>> spec = IRLSpec(num_states=4, num_actions=2, steps=3, num_features=2)
        >>> out = jax.jit(lambda k: run(spec, DEFAULT_PARAMS, k))(jax.random.PRNGKey(0))
        >>> out["l1"].shape, int(out["diverged_step"])
        ((4,), -1)
    """
    S, A = spec.num_states, spec.num_actions
    dtype = jnp.zeros(()).dtype
    k_mdp, k_feat = jax.random.split(key)
    mdp, r_hidden = M.random_mdp(k_mdp, S, A, params["gamma"], dtype)
    log_pi_e, d_e = expert(spec, mdp, r_hidden)
    tabular = jnp.asarray(params["reward"]) == 0
    phi = features_for(spec, params["reward"], k_feat, dtype)
    mu_e = phi.T @ d_e.reshape(-1)
    eta = jnp.asarray(spec.etas, dtype)[params["eta_index"]]
    theta0 = jnp.zeros(S * A, dtype)

    def evaluate(theta, v_guess):
        reward = (phi @ theta).reshape(S, A)
        v, n = M.soft_value_iteration(reward, mdp, v_guess, spec.vi_tol, spec.vi_max_iter)
        log_pi = M.soft_policy(reward, mdp, v)
        d = M.occupancy(jnp.exp(log_pi), mdp)
        row = {
            "l1": jnp.sum(jnp.abs(d - d_e)),
            "kl": M.causal_kl(d_e, log_pi_e, log_pi),
            "dual": M.dual_objective(theta, mu_e, v, mdp),
        }
        return v, phi.T @ d.reshape(-1), row, n

    if spec.algo == "dual":
        opt = optax.scale(eta)
    elif spec.algo == "interp":
        target = jnp.where(tabular, log_pi_e.reshape(-1), target_reward(phi, log_pi_e, d_e))
        opt = occupancy_interp(target, eta)
    else:
        opt = None

    v0, mu0, row0, n0 = evaluate(theta0, None)

    def step(carry, _):
        theta, state, v, mu, iters = carry
        grad = mu_e - mu
        if spec.algo == "natural":
            # the Fisher at θ_k by forward mode, the value iteration warm-started at θ_k's value.
            # (mdp.fisher_closed_form is about 2× cheaper. Under the sweep engine's compiled
            # program this group stalled XLA:CPU at 0 % CPU in 3 of 7 runs here, twice with
            # the closed form and once with this autodiff Fisher and a Cholesky solve, never
            # under plain jit; the damped solve is now an LU solve, cause not found.)
            fisher_fn = lambda th: M.fisher(th, phi, mdp, v, spec.vi_tol, spec.vi_max_iter)  # noqa: E731
            nat = averaged_fisher_precondition(fisher_fn, eta, num_nodes=1, damping=NATURAL_DAMPING)
            upd, state = nat.update(grad, state, theta)
        else:
            upd, state = opt.update(grad, state, theta)
        theta = optax.apply_updates(theta, upd)
        v, mu, row, n = evaluate(theta, v)
        return (theta, state, v, mu, jnp.maximum(iters, n)), row

    # the natural lanes build their preconditioner per step (its Fisher reads v); its state
    # is only a count, initialised here with a Fisher of the right shape
    zero_fisher = lambda th: jnp.zeros((th.size, th.size), th.dtype)  # noqa: E731
    init_opt = opt if opt is not None else averaged_fisher_precondition(zero_fisher, eta, num_nodes=1)
    carry = (theta0, init_opt.init(theta0), v0, mu0, n0)
    (_, _, _, _, iters), rows, div = guarded_scan(step, carry, length=spec.steps)
    out = {k: jnp.concatenate([row0[k][None], rows[k]]) for k in row0}
    out.update(
        eta=eta,
        dual_star=jnp.sum(d_e * log_pi_e),
        vi_iters=iters,
        diverged_step=div,
    )
    return out


#: The simulator's declaration: ``reward`` a categorical parameter (labels in code order).
SIMULATOR = Simulator(
    run,
    spec=IRLSpec(),
    params={**DEFAULT_PARAMS, "reward": categorical(*REWARDS, default=REWARDS[DEFAULT_PARAMS["reward"]])},
    metric_dims={"l1": ("iter",), "kl": ("iter",), "dual": ("iter",)},
    coords=lambda spec: {"iter": list(range(spec.steps + 1))},
)
