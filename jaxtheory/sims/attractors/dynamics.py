"""Attractor dynamics and energy learning, model-agnostic: an energy is ``energy(params, x)``.

* :func:`euler_step`: :math:`\\tau\\dot x = -\\nabla E(x) + v\\,T(x)` discretised by Euler with
  step ``dt``, as ``optax.sgd(dt/τ)`` applied to the "gradient" :math:`\\nabla E - vT`
  (at ``v = 0`` it is plain gradient descent on E with learning rate ``dt/τ``);
* :func:`matching_loss`: restoring-field matching, the mean over a batch of
  :math:`\\lVert\\nabla E(\\tilde x) - (\\tilde x - x)\\rVert^2` for clean states ``x`` on the
  target manifold and perturbed states :math:`\\tilde x = x + \\sigma\\xi`;
* :func:`train_energy`: Adam on the matching loss.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import optax

__all__ = ["euler_step", "matching_loss", "train_energy"]


def euler_step(energy, params, x, opt_state, opt, v, tangent):
    """One Euler step :math:`x \\leftarrow x - \\frac{dt}{\\tau}(\\nabla E(x) - vT(x))` through ``opt``.

    Args:
        energy: ``energy(params, x)`` for one state.
        params: the energy's parameters.
        x: one state.
        opt_state: ``opt``'s state.
        opt: ``optax.sgd(dt / tau)``.
        v: the tangent drive (scalar).
        tangent: ``tangent(x)`` the tangent field (for the torus, the first translation).

    Returns:
        ``(x_next, opt_state, E(x))``.

    Example:
        >>> import optax
        >>> opt = optax.sgd(0.1)
        >>> e = lambda p, x: 0.5 * jnp.sum(x**2)
        >>> x1, _, e0 = euler_step(e, None, jnp.ones(2), opt.init(jnp.ones(2)), opt, 0.0, lambda x: 0 * x)
        >>> [round(float(v), 6) for v in x1], float(e0)
        ([0.9, 0.9], 1.0)
    """
    e, g = jax.value_and_grad(energy, argnums=1)(params, x)
    u, opt_state = opt.update(g - v * tangent(x), opt_state, x)
    return optax.apply_updates(x, u), opt_state, e


def matching_loss(energy, params, clean, noisy):
    """Restoring-field matching: :math:`\\frac1B\\sum_b\\lVert\\nabla E(\\tilde x_b) - (\\tilde x_b - x_b)\\rVert^2`.

    Args:
        energy: ``energy(params, x)``.
        params: its parameters.
        clean: states on the target manifold, shape ``(B, ...)``.
        noisy: their perturbations, the same shape.

    Returns:
        The scalar loss.

    Example:
        >>> e = lambda p, x: 0.5 * p * jnp.sum(x**2)
        >>> float(matching_loss(e, 1.0, jnp.zeros((3, 2)), jnp.ones((3, 2))))
        0.0
    """
    g = jax.vmap(jax.grad(energy, argnums=1), in_axes=(None, 0))(params, noisy)
    r = (g - (noisy - clean)).reshape(noisy.shape[0], -1)
    return jnp.mean(jnp.sum(r * r, -1))


def train_energy(energy, params, sample, key, *, steps: int, lr: float, log_every: int):
    """Adam on :func:`matching_loss` with a fresh batch each step.

    Args:
        energy: ``energy(params, x)``.
        params: starting parameters.
        sample: ``sample(key) -> (clean, noisy)``, one batch.
        key: PRNG key.
        steps: Adam steps.
        lr: Adam's learning rate (may be traced).
        log_every: record the loss every this many steps.

    Returns:
        ``(params, losses)`` with ``losses`` of shape ``(steps // log_every,)`` (the loss of
        the batch at each recorded step, before its update).

    Example:
        >>> e = lambda p, x: 0.5 * jnp.exp(p) * jnp.sum(x**2)
        >>> def sample(k):
        ...     c = jnp.zeros((8, 2))
        ...     return c, c + jax.random.normal(k, c.shape)
        >>> p, losses = train_energy(e, jnp.array(-1.0), sample, jax.random.key(0), steps=200,
        ...                          lr=0.05, log_every=50)
        >>> round(float(p), 2), losses.shape
        (0.0, (4,))
    """
    if steps % log_every:
        raise ValueError(f"steps ({steps}) must be a multiple of log_every ({log_every})")
    opt = optax.adam(lr)
    loss_and_grad = jax.value_and_grad(lambda p, c, z: matching_loss(energy, p, c, z))

    def step(carry, k):
        p, s = carry
        clean, noisy = sample(k)
        loss, g = loss_and_grad(p, clean, noisy)
        u, s = opt.update(g, s, p)
        return (optax.apply_updates(p, u), s), loss

    keys = jax.random.split(key, steps)
    (params, _), losses = jax.lax.scan(step, (params, opt.init(params)), keys)
    return params, losses[::log_every]
