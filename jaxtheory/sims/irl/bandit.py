r"""The single-state case (a bandit): occupancy interpolation is entropic mirror descent.

With one state the occupancy is the policy, :math:`\mu(\theta) = \operatorname{softmax}(\theta)`,
the Fisher is :math:`F(\theta) = \operatorname{diag}(p) - pp^\top` (null space: the
constants) and :math:`\theta^\star = \log\pi_E`. Interpolating the reward,
:math:`\theta_{k+1} = (1-\eta)\theta_k + \eta\log\pi_E`, gives
:math:`\pi_{k+1} \propto \pi_k^{1-\eta}\pi_E^\eta`: the entropic mirror-descent step with
gradient :math:`g = \log\pi_k - \log\pi_E`, and the centred log-ratio error contracts by
exactly :math:`1 - \eta` per step. The functions here run both recursions (through
:func:`jaxtheory.optim.occupancy_interp` and
:func:`jaxtheory.optim.stochastic_mirror_descent`) and the preconditioner of
:func:`jaxtheory.optim.averaged_fisher_precondition`; call them inside
``jax.enable_x64(True)`` for float64.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim import (
    averaged_fisher_precondition,
    entropic_mirror_map,
    occupancy_interp,
    stochastic_mirror_descent,
)

__all__ = [
    "averaged_step",
    "centered",
    "interp_policies",
    "mirror_policies",
    "random_bandit",
    "softmax_fisher",
]


def random_bandit(key: jax.Array, num_arms: int, dtype=None) -> tuple[jax.Array, jax.Array]:
    """A start reward :math:`\\theta_0 \\sim N(0, I)` and an expert :math:`\\pi_E \\sim` Dirichlet(1).

    Returns:
        ``(theta0, log_pi_expert)``, each ``(num_arms,)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> th, lp = random_bandit(jax.random.PRNGKey(0), 4)
        >>> th.shape, round(float(jnp.exp(lp).sum()), 5)
        ((4,), 1.0)
    """
    dtype = jnp.zeros(()).dtype if dtype is None else dtype
    k1, k2 = jax.random.split(key)
    pi_e = jax.random.dirichlet(k2, jnp.ones(num_arms, dtype)).astype(dtype)
    return jax.random.normal(k1, (num_arms,), dtype), jnp.log(pi_e)


def centered(x: jax.Array) -> jax.Array:
    """``x`` minus its mean over the last axis (the projection off the constant shift).

    Example:
        >>> print(centered(jnp.array([1.0, 3.0])))
        [-1.  1.]
    """
    return x - jnp.mean(x, axis=-1, keepdims=True)


def softmax_fisher(theta: jax.Array) -> jax.Array:
    """The closed form :math:`\\operatorname{diag}(p) - pp^\\top`, :math:`p = \\operatorname{softmax}(\\theta)`.

    Example:
        >>> print(softmax_fisher(jnp.zeros(2)))
        [[ 0.25 -0.25]
         [-0.25  0.25]]
    """
    p = jax.nn.softmax(theta)
    return jnp.diag(p) - jnp.outer(p, p)


def averaged_step(theta: jax.Array, log_pi_expert: jax.Array, num_nodes: int = 64) -> jax.Array:
    r""":math:`\bar F^{+}(\mu_E - \mu_\theta)` with :math:`\bar F` averaged over the line to :math:`\log\pi_E`.

    Through :func:`jaxtheory.optim.averaged_fisher_precondition` (step 1), with the Fisher
    from forward-mode differentiation of the softmax (not :func:`softmax_fisher`, which
    the tests use as the reference).

    Example:
        >>> import jax.numpy as jnp
        >>> lp = jnp.log(jnp.array([0.2, 0.3, 0.5]))
        >>> bool(jnp.allclose(averaged_step(jnp.zeros(3), lp, 16), centered(lp), atol=1e-5))
        True
    """
    opt = averaged_fisher_precondition(jax.jacfwd(jax.nn.softmax), 1.0, num_nodes=num_nodes)
    grad = jnp.exp(log_pi_expert) - jax.nn.softmax(theta)
    step, _ = opt.update(grad, opt.init(theta), theta, target=log_pi_expert)
    return step


def interp_policies(theta0: jax.Array, log_pi_expert: jax.Array, eta, steps: int) -> jax.Array:
    r"""Policies :math:`\operatorname{softmax}(\theta_k)`, :math:`k = 0..\text{steps}`, of the reward interpolation.

    :math:`\theta_{k+1} = \theta_k + u_k` with :math:`u_k` from
    :func:`jaxtheory.optim.occupancy_interp` (target :math:`\log\pi_E`) and
    :func:`optax.apply_updates`; the reward is never normalised.

    Returns:
        ``(steps + 1, A)``.

    Example:
        >>> import jax.numpy as jnp
        >>> lp = jnp.log(jnp.array([0.25, 0.75]))
        >>> print(jnp.round(interp_policies(jnp.zeros(2), lp, 1.0, 1)[-1], 4))
        [0.25 0.75]
    """
    opt = occupancy_interp(log_pi_expert, eta)

    def step(carry, _):
        theta, state = carry
        grad = jnp.exp(log_pi_expert) - jax.nn.softmax(theta)
        u, state = opt.update(grad, state, theta)
        theta = optax.apply_updates(theta, u)
        return (theta, state), jax.nn.softmax(theta)

    _, pis = jax.lax.scan(step, (theta0, opt.init(theta0)), length=steps)
    return jnp.concatenate([jax.nn.softmax(theta0)[None], pis])


def mirror_policies(pi0: jax.Array, log_pi_expert: jax.Array, eta, steps: int) -> jax.Array:
    r"""Policies of entropic mirror descent on :math:`g_k = \log\pi_k - \log\pi_E`, :math:`k = 0..\text{steps}`.

    :func:`jaxtheory.optim.stochastic_mirror_descent` with
    :func:`jaxtheory.optim.entropic_mirror_map` and step :math:`\eta`:
    :math:`\pi_{k+1} \propto \pi_k\,e^{-\eta g_k} = \pi_k^{1-\eta}\pi_E^\eta`.

    Returns:
        ``(steps + 1, A)``.

    Example:
        >>> import jax.numpy as jnp
        >>> lp = jnp.log(jnp.array([0.25, 0.75]))
        >>> print(jnp.round(mirror_policies(jnp.array([0.5, 0.5]), lp, 1.0, 1)[-1], 4))
        [0.25 0.75]
    """
    opt = stochastic_mirror_descent(eta, entropic_mirror_map())

    def step(carry, _):
        pi, state = carry
        u, state = opt.update(jnp.log(pi) - log_pi_expert, state, pi)
        pi = optax.apply_updates(pi, u)
        return (pi, state), pi

    _, pis = jax.lax.scan(step, (pi0, opt.init(pi0)), length=steps)
    return jnp.concatenate([pi0[None], pis])
