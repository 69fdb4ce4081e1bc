r"""Tabular entropy-regularised MDPs: soft value iteration, occupancies, the MaxEnt-IRL dual.

An MDP is ``(P, rho0, gamma)`` with ``P[s, a, s']`` the transition kernel. For a reward
``r[s, a]`` the soft Bellman operator is

.. math:: (T_r V)(s) = \log\sum_a \exp\big(r(s, a) + \gamma\,(PV)(s, a)\big),

its fixed point the soft value :math:`V_r` (:func:`soft_value_iteration`, a
``lax.while_loop``), and the soft-optimal policy
:math:`\pi_r(a\mid s) = \exp(Q_r(s, a) - V_r(s))`. The normalised state-action occupancy
:math:`d_\pi = (1-\gamma)\sum_t \gamma^t \Pr(s_t, a_t)` comes from one linear solve
(:func:`occupancy`). With features :math:`\phi` (a ``(S*A, K)`` matrix) and
:math:`r_\theta = \Phi\theta`, the MaxEnt-IRL dual is
:math:`g(\theta) = \theta\cdot\mu_E - (1-\gamma)\,\rho_0\cdot V_{r_\theta}`
(:func:`dual_objective`); since :math:`r = V + \log\pi_r - \gamma PV`, it equals
:math:`\mathbb E_{d_E}\log\pi_E - \mathbb E_{s\sim d_E}\,\mathrm{KL}(\pi_E\|\pi_\theta)(s)`
(:func:`causal_kl`) for every :math:`\theta`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = [
    "MDP",
    "causal_kl",
    "dual_objective",
    "feature_expectation",
    "fisher",
    "fisher_closed_form",
    "occupancy",
    "random_mdp",
    "soft_bellman",
    "soft_policy",
    "soft_value_iteration",
]


class MDP(NamedTuple):
    """A tabular discounted MDP.

    Attributes:
        P: transitions ``P[s, a, s']``, shape ``(S, A, S)``, rows on the simplex.
        rho0: initial state distribution, shape ``(S,)``.
        gamma: discount :math:`\\gamma \\in [0, 1)` (a scalar, may be traced).
    """

    P: jax.Array
    rho0: jax.Array
    gamma: jax.Array


def random_mdp(key: jax.Array, num_states: int, num_actions: int, gamma, dtype=None) -> tuple[MDP, jax.Array]:
    """A random MDP with Dirichlet(1) transitions and a hidden N(0, 1) reward.

    Args:
        key: PRNG key.
        num_states: :math:`S`.
        num_actions: :math:`A`.
        gamma: the discount.
        dtype: float dtype (default: JAX's default float).

    Returns:
        ``(mdp, reward)``: the :class:`MDP` (uniform initial distribution) and a reward of
        shape ``(S, A)``.

    Example:
        >>> import jax
        >>> mdp, r = random_mdp(jax.random.PRNGKey(0), 3, 2, 0.9)
        >>> mdp.P.shape, r.shape, bool(abs(mdp.P.sum(-1) - 1).max() < 1e-6)
        ((3, 2, 3), (3, 2), True)
    """
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    kp, kr = jax.random.split(key)
    P = jax.random.dirichlet(kp, jnp.ones(num_states, dtype), shape=(num_states, num_actions)).astype(dtype)
    reward = jax.random.normal(kr, (num_states, num_actions), dtype)
    rho0 = jnp.full((num_states,), 1.0 / num_states, dtype)
    return MDP(P, rho0, jnp.asarray(gamma, dtype)), reward


def soft_bellman(reward: jax.Array, mdp: MDP, v: jax.Array) -> jax.Array:
    """One soft Bellman backup :math:`T_r V` (log-sum-exp over actions).

    Example:
        >>> import jax.numpy as jnp
        >>> mdp = MDP(jnp.ones((1, 2, 1)), jnp.ones(1), jnp.float32(0.0))
        >>> print(soft_bellman(jnp.zeros((1, 2)), mdp, jnp.zeros(1)).round(4))  # log 2
        [0.6931]
    """
    return jax.nn.logsumexp(reward + mdp.gamma * (mdp.P @ v), axis=-1)


def soft_value_iteration(
    reward: jax.Array, mdp: MDP, v0: jax.Array | None = None, tol: float = 1e-6, max_iter: int = 1000
) -> tuple[jax.Array, jax.Array]:
    r"""The soft value by fixed-point iteration of :func:`soft_bellman` (``lax.while_loop``).

    Stops when :math:`\lVert V_{n+1} - V_n\rVert_\infty \le \mathrm{tol}\,(1 + \lVert V_{n+1}\rVert_\infty)`
    or after ``max_iter`` backups; the error of the last iterate is then at most
    :math:`\gamma/(1-\gamma)` times the last change.

    Args:
        reward: ``(S, A)``.
        mdp: the :class:`MDP`.
        v0: the starting value (warm start), default 0.
        tol: relative stopping tolerance.
        max_iter: most backups.

    Returns:
        ``(v, iterations)``.

    Example:
        >>> import jax.numpy as jnp
        >>> mdp = MDP(jnp.ones((1, 2, 1)), jnp.ones(1), jnp.float32(0.5))
        >>> v, n = soft_value_iteration(jnp.zeros((1, 2)), mdp)  # V = log 2 / (1 - 0.5)
        >>> print(v.round(4))
        [1.3863]
    """
    v = jnp.zeros(reward.shape[0], reward.dtype) if v0 is None else v0.astype(reward.dtype)

    def cond(c):
        _, delta, scale, i = c
        return (delta > tol * (1.0 + scale)) & (i < max_iter)

    def body(c):
        v, _, _, i = c
        vn = soft_bellman(reward, mdp, v)
        return vn, jnp.max(jnp.abs(vn - v)), jnp.max(jnp.abs(vn)), i + 1

    inf = jnp.asarray(jnp.inf, reward.dtype)
    v, _, _, n = jax.lax.while_loop(cond, body, (v, inf, jnp.zeros((), reward.dtype), jnp.int32(0)))
    return v, n


def soft_policy(reward: jax.Array, mdp: MDP, v: jax.Array) -> jax.Array:
    """``log pi(a|s)`` of the soft-greedy policy for the value ``v``: ``log_softmax(r + gamma P v)``.

    Example:
        >>> import jax.numpy as jnp
        >>> mdp = MDP(jnp.ones((1, 2, 1)), jnp.ones(1), jnp.float32(0.0))
        >>> print(jnp.exp(soft_policy(jnp.array([[0.0, jnp.log(3.0)]]), mdp, jnp.zeros(1))).round(4))
        [[0.25 0.75]]
    """
    return jax.nn.log_softmax(reward + mdp.gamma * (mdp.P @ v), axis=-1)


def occupancy(pi: jax.Array, mdp: MDP) -> jax.Array:
    r"""The normalised state-action occupancy :math:`d(s, a) = d(s)\,\pi(a\mid s)`.

    :math:`d(s)` solves :math:`(I - \gamma P_\pi^\top)\,d = (1-\gamma)\rho_0` with
    :math:`P_\pi(s, s') = \sum_a \pi(a\mid s) P(s, a, s')`; :math:`\sum d = 1`.

    Args:
        pi: the policy, ``(S, A)`` (rows on the simplex).
        mdp: the :class:`MDP`.

    Returns:
        ``(S, A)``.

    Example:
        >>> import jax.numpy as jnp
        >>> mdp = MDP(jnp.ones((1, 2, 1)), jnp.ones(1), jnp.float32(0.9))
        >>> print(occupancy(jnp.array([[0.25, 0.75]]), mdp))
        [[0.25 0.75]]
    """
    S = pi.shape[0]
    p_pi = jnp.einsum("sa,sat->st", pi, mdp.P)
    ds = jnp.linalg.solve(jnp.eye(S, dtype=pi.dtype) - mdp.gamma * p_pi.T, (1.0 - mdp.gamma) * mdp.rho0)
    return ds[:, None] * pi


def dual_objective(theta: jax.Array, mu_expert: jax.Array, v: jax.Array, mdp: MDP) -> jax.Array:
    r"""The MaxEnt-IRL dual :math:`g(\theta) = \theta\cdot\mu_E - (1-\gamma)\,\rho_0\cdot V_\theta`.

    Args:
        theta: ``(K,)`` reward parameters.
        mu_expert: ``(K,)`` expert feature expectations :math:`\Phi^\top d_E`.
        v: the soft value of :math:`r_\theta`, ``(S,)``.
        mdp: the :class:`MDP`.

    Returns:
        A scalar; concave in :math:`\theta`, maximised where :math:`\mu(\theta) = \mu_E`.

    Example:
        >>> import jax.numpy as jnp
        >>> mdp = MDP(jnp.ones((1, 2, 1)), jnp.ones(1), jnp.float32(0.0))
        >>> print(round(float(dual_objective(jnp.zeros(2), jnp.array([0.5, 0.5]), jnp.log(2.0)[None], mdp)), 4))
        -0.6931
    """
    return theta @ mu_expert - (1.0 - mdp.gamma) * (mdp.rho0 @ v)


def causal_kl(d_expert: jax.Array, log_pi_expert: jax.Array, log_pi: jax.Array) -> jax.Array:
    r""":math:`\sum_s d_E(s)\,\mathrm{KL}(\pi_E(\cdot\mid s)\,\|\,\pi(\cdot\mid s))` with :math:`d_E(s, a)` given.

    Example:
        >>> import jax.numpy as jnp
        >>> lp = jnp.log(jnp.array([[0.5, 0.5]]))
        >>> float(causal_kl(jnp.array([[0.5, 0.5]]), lp, lp))
        0.0
    """
    return jnp.sum(d_expert * (log_pi_expert - log_pi))


def feature_expectation(
    theta: jax.Array,
    features: jax.Array,
    mdp: MDP,
    v_guess: jax.Array | None = None,
    tol: float = 1e-6,
    max_iter: int = 1000,
    v_star: jax.Array | None = None,
) -> jax.Array:
    r""":math:`\mu(\theta) = \Phi^\top d_{\pi_\theta}`, differentiable in :math:`\theta` (forward and reverse).

    The soft value is found by :func:`soft_value_iteration` without tangents (inputs
    under ``stop_gradient``), then refined by one Newton step
    :math:`V = V^\star + (I - \gamma P_{\pi^\star})^{-1}(T_r V^\star - V^\star)` whose
    derivative at the fixed point is the implicit-function derivative
    :math:`dV = (I - \gamma P_\pi)^{-1}\,\mathbb E_\pi[dr]`. So the Jacobian of
    :math:`\mu` (the Fisher, :func:`fisher`) is exact up to the iteration's tolerance.

    Args:
        theta: ``(K,)``.
        features: ``(S*A, K)``; ``reward = (features @ theta).reshape(S, A)``.
        mdp: the :class:`MDP`.
        v_guess: a warm start for the iteration.
        tol: its relative tolerance.
        max_iter: its most backups.
        v_star: the soft value of ``theta``'s reward when already known (then no
            iteration runs; the Newton step still corrects a small residual).

    Returns:
        ``(K,)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> mdp, _ = random_mdp(jax.random.PRNGKey(0), 3, 2, 0.5)
        >>> mu = feature_expectation(jnp.zeros(6), jnp.eye(6), mdp)
        >>> round(float(mu.sum()), 5)  # a normalised occupancy
        1.0
    """
    S, A = mdp.P.shape[:2]
    reward = (features @ theta).reshape(S, A)
    r0 = jax.lax.stop_gradient(reward)
    if v_star is None:
        guess = None if v_guess is None else jax.lax.stop_gradient(v_guess)
        v_star, _ = soft_value_iteration(r0, mdp, guess, tol, max_iter)
    v_star = jax.lax.stop_gradient(v_star)
    pi_star = jnp.exp(soft_policy(r0, mdp, v_star))
    m = jnp.eye(S, dtype=reward.dtype) - mdp.gamma * jnp.einsum("sa,sat->st", pi_star, mdp.P)
    v = v_star + jnp.linalg.solve(m, soft_bellman(reward, mdp, v_star) - v_star)
    pi = jnp.exp(soft_policy(reward, mdp, v))
    return features.T @ occupancy(pi, mdp).reshape(-1)


def fisher(
    theta: jax.Array,
    features: jax.Array,
    mdp: MDP,
    v_guess: jax.Array | None = None,
    tol: float = 1e-6,
    max_iter: int = 1000,
    v_star: jax.Array | None = None,
) -> jax.Array:
    r"""The Fisher information :math:`F(\theta) = \partial\mu/\partial\theta`, ``(K, K)``.

    The Jacobian of :func:`feature_expectation` by forward mode (``jax.jacfwd``),
    symmetrised: it is the Hessian of the convex :math:`(1-\gamma)\rho_0\cdot V_\theta`,
    i.e. minus the Hessian of the dual. Positive semi-definite; in the tabular case its
    null space is the :math:`S` reward-shaping directions
    :math:`r \mapsto r + c(s) - \gamma (Pc)(s, a)`.

    Args:
        theta: ``(K,)``.
        features: ``(S*A, K)``.
        mdp: the :class:`MDP`.
        v_guess: warm start of the value iteration.
        tol: its relative tolerance.
        max_iter: its most backups.
        v_star: the soft value of ``theta``'s reward when already known (no iteration).

    Returns:
        ``(K, K)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> mdp, _ = random_mdp(jax.random.PRNGKey(0), 3, 2, 0.5)
        >>> F = fisher(jnp.zeros(6), jnp.eye(6), mdp)
        >>> F.shape, bool(jnp.linalg.eigvalsh(F).min() > -1e-5)
        ((6, 6), True)
    """
    jac = jax.jacfwd(lambda th: feature_expectation(th, features, mdp, v_guess, tol, max_iter, v_star))(theta)
    return 0.5 * (jac + jac.T)


def fisher_closed_form(theta: jax.Array, features: jax.Array, mdp: MDP, v: jax.Array) -> jax.Array:
    r"""The Fisher :math:`\partial\mu/\partial\theta` from explicit matrices (no autodiff), ``(K, K)``.

    With :math:`\Pi` the ``(S, SA)`` policy-averaging matrix, :math:`E` the ``(SA, S)``
    state-expansion, :math:`P` as ``(SA, S)`` and :math:`d_S` the state occupancy:

    .. math::

        dV = (I - \gamma P_\pi)^{-1}\Pi\,dr, \quad dQ = dr + \gamma P\,dV, \quad
        d\log\pi = (I - E\Pi)\,dQ, \\
        d\,d_S = \gamma (I - \gamma P_\pi^\top)^{-1} P^\top (E d_S \odot \pi \odot d\log\pi), \quad
        d\,d = (E\,d\,d_S) \odot \pi + E d_S \odot \pi \odot d\log\pi,

    then :math:`F = \Phi^\top (\partial d/\partial r)\,\Phi`, symmetrised. Agrees with
    :func:`fisher` (forward-mode autodiff) to round-off; several times cheaper.

    Args:
        theta: ``(K,)``.
        features: ``(S*A, K)``.
        mdp: the :class:`MDP`.
        v: the soft value of :math:`r_\theta` (converged).

    Returns:
        ``(K, K)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> mdp, _ = random_mdp(jax.random.PRNGKey(0), 3, 2, 0.5)
        >>> v, _ = soft_value_iteration(jnp.zeros((3, 2)), mdp)
        >>> F = fisher_closed_form(jnp.zeros(6), jnp.eye(6), mdp, v)
        >>> bool(jnp.allclose(F, fisher(jnp.zeros(6), jnp.eye(6), mdp), atol=1e-5))
        True
    """
    S, A = mdp.P.shape[:2]
    dtype = features.dtype
    reward = (features @ theta).reshape(S, A)
    pi = jnp.exp(soft_policy(reward, mdp, v))
    pf = mdp.P.reshape(S * A, S)
    eye_s = jnp.eye(S, dtype=dtype)
    big_pi = (eye_s[:, :, None] * pi[None, :, :]).reshape(S, S * A)
    expand = jnp.repeat(eye_s, A, axis=0)  # (SA, S)
    p_pi = big_pi @ pf
    dv = jnp.linalg.solve(eye_s - mdp.gamma * p_pi, big_pi)  # (S, SA)
    dq = jnp.eye(S * A, dtype=dtype) + mdp.gamma * (pf @ dv)
    dlog = dq - expand @ (big_pi @ dq)
    pi_f = pi.reshape(-1)
    d_s = jnp.linalg.solve(eye_s - mdp.gamma * p_pi.T, (1.0 - mdp.gamma) * mdp.rho0)
    ds_f = expand @ d_s
    dpi_weighted = (ds_f * pi_f)[:, None] * dlog  # E d_S ⊙ dπ
    dds = mdp.gamma * jnp.linalg.solve(eye_s - mdp.gamma * p_pi.T, pf.T @ dpi_weighted)  # (S, SA)
    jac = (expand @ dds) * pi_f[:, None] + dpi_weighted
    F = features.T @ jac @ features
    return 0.5 * (F + F.T)
