r"""Langevin dynamics with per-leaf L2 regularisation (Euler–Maruyama of the CLD).

The continuous-time Langevin dynamics (CLD) of a loss :math:`L` with an L2 term,

.. math::
    d\theta_t = -\nabla U(\theta_t)\,dt + \sqrt{2T}\,dB_t, \qquad
    U(\theta) = L(\theta) + \tfrac12 \textstyle\sum_l \lambda_l \|\theta_l\|^2,

discretised by Euler–Maruyama with step :math:`h` and an optional diagonal
preconditioner :math:`M`:

.. math::
    \theta_{k+1} = \theta_k - h M\big(\nabla L(\theta_k) + \lambda \theta_k\big)
        + \sqrt{2 h T M}\,\xi_k, \qquad \xi_k \sim N(0, I).

Its stationary law approaches the Gibbs law :math:`\propto e^{-U/T}`; with the
prior-matched :math:`\lambda_l = T/\sigma_l^2` (per layer, :math:`\sigma_l^2` the
init variance) that law is :math:`p_0 e^{-L/T}/Z` (our reconstruction from
Tsipory & Soudry's seminar abstract). ``optax.add_noise`` is not this: its variance
decays with the step count and it has no drift coupling to the step size.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params
from jaxtheory.optim._value import _as_key

__all__ = ["LangevinState", "langevin"]


class LangevinState(NamedTuple):
    """State of :func:`langevin`.

    Attributes:
        key: PRNG key of the Gaussian increments (split once per step).
    """

    key: jax.Array


def _per_leaf(value, params, name):
    """Broadcast a scalar or a pytree prefix of ``params`` to one value per leaf."""
    if isinstance(value, dict | list | tuple) and not hasattr(value, "shape"):
        try:
            return jax.tree.map(lambda _, v: v, params, value)
        except ValueError:
            try:
                return jax.tree.broadcast(value, params)
            except ValueError as e:
                raise ValueError(f"{name} must be a scalar or a pytree prefix of the parameters") from e
    return jax.tree.map(lambda _: value, params)


def langevin(step, temperature, weight_decay=0.0, preconditioner=None, *, seed=0):
    r"""Euler–Maruyama Langevin step with per-leaf weight decay :math:`\lambda_l`.

    The update is :math:`-hM(g + \lambda\theta) + \sqrt{2hTM}\,\xi` (apply it with
    :func:`optax.apply_updates`); :math:`T = 0` is gradient descent with weight decay.

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any
    shapes (scalars, size-0 and ``None`` leaves included); the Gaussian increments are
    drawn in each leaf's dtype. Complex params are refused (a complex Gaussian would
    split the variance between the real and imaginary parts). ``update`` ignores
    unknown keyword arguments.

    Args:
        step: step size :math:`h > 0` (may be traced).
        temperature: :math:`T \ge 0` (may be traced).
        weight_decay: :math:`\lambda`, a scalar or a pytree prefix of the parameters (one
            value per leaf or subtree, e.g. ``{"W1": T * d, "W2": T * m}``).
        preconditioner: ``None`` (identity) or a diagonal :math:`M`: a positive scalar or a
            pytree prefix of the parameters of positive scalars/arrays.
        seed: an int seed or PRNG key of the increments (the key lives in the state).

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` whose ``update`` needs ``params``.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> opt = langevin(0.1, 0.0, weight_decay=1.0)
        >>> p = {"w": jnp.ones(2)}
        >>> u, s = opt.update({"w": jnp.zeros(2)}, opt.init(p), p)
        >>> [round(float(v), 6) for v in u["w"]]   # -h * lam * theta
        [-0.1, -0.1]
    """

    def init_fn(params):
        check_float_params(params, "langevin")
        return LangevinState(_as_key(seed))

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("langevin needs params (the weight-decay drift and the update use them)")
        lam = _per_leaf(weight_decay, params, "weight_decay")
        pre = _per_leaf(1.0 if preconditioner is None else preconditioner, params, "preconditioner")
        leaves, treedef = jax.tree.flatten(params)
        key, sub = jax.random.split(state.key)
        keys = jax.random.split(sub, max(len(leaves), 1))
        noise = treedef.unflatten(
            [jax.random.normal(k, jnp.shape(x), jnp.asarray(x).dtype) for k, x in zip(keys, leaves)]
        )

        def one(g, x, lm, m, xi):
            dt = jnp.asarray(x).dtype
            h = jnp.asarray(step, dt)
            m = jnp.asarray(m, dt)
            drift = -h * m * (g.astype(dt) + jnp.asarray(lm, dt) * x)
            diff = jnp.sqrt(2.0 * h * jnp.asarray(temperature, dt) * m) * xi
            return (drift + diff).astype(dt)

        out = jax.tree.map(one, updates, params, lam, pre, noise)
        return out, LangevinState(key)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
