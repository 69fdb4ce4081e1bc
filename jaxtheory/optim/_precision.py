"""The optimizer-side zero-sum fix for low-precision cross-entropy.

In exact arithmetic the logit gradient of softmax cross-entropy sums to zero over the
classes, so under SGD without weight decay the mean classifier row
:math:`\\bar w = \\frac1K\\sum_j w_j` (and the mean bias) never moves. In low precision
the target gradient :math:`g_y` rounds to 0 once the logit gap is large ("absorption")
and :math:`\\bar w` drifts: the seed of the Slingshot feedback loop.
:func:`center_classifier_rows` removes the class mean from the classifier's gradient,
restoring the conservation whatever the loss computed.

References:
    Liu, Cao, Li, Zhou, *Grokking or Glitching? How Low-Precision Drives Slingshot Loss
    Spikes*, arXiv:2605.06152.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params

__all__ = ["center_classifier_rows"]


def center_classifier_rows(scale: float | jax.Array = 1.0, axis: int = -1, mask: Any = None):
    """Removes ``scale`` times the class mean from the gradient of the classifier's leaves.

    Each selected leaf ``g`` becomes ``g - scale * mean(g, axis)``: with ``scale = 1``
    its sum along the class ``axis`` is zero (to rounding), so that plain SGD without
    weight decay conserves the mean classifier row exactly in exact arithmetic
    (adaptive methods such as Adam rescale coordinates and break the conservation
    even then). Place it before the optimizer: ``optax.chain(center_classifier_rows(),
    optax.sgd(lr))``.

    **Params.** any pytree; each selected leaf has ``ndim >= 1`` (its class ``axis``),
    float or complex (the centring is linear). A building block: ``update`` takes no
    extra keyword arguments.

    Args:
        scale: fraction of the class mean removed (1: the zero-sum fix; 0: the
            identity); may be traced.
        axis: the class axis of the selected leaves (last by default: logits
            ``h @ W + c`` with ``W`` of shape ``(m, K)``).
        mask: which leaves are centred: ``None`` (all), a pytree of booleans shaped
            like the params, or a function of the params returning one (as in
            :func:`optax.masked`). A selected leaf must have at least one dimension.

    Returns:
        An :class:`optax.GradientTransformation` (stateless); leaves keep their dtype.

    Raises:
        ValueError: a selected leaf is a scalar (it has no class axis).

    Example:
        >>> import jax.numpy as jnp
        >>> g = {"W": jnp.array([[1.0, 2.0, 6.0]]), "V": jnp.array([1.0, 2.0])}
        >>> t = center_classifier_rows(mask={"W": True, "V": False})
        >>> u, _ = t.update(g, t.init(g))
        >>> u["W"].tolist(), u["V"].tolist()
        ([[-2.0, -1.0, 3.0]], [1.0, 2.0])
    """

    def center(g):
        if jnp.ndim(g) == 0:
            raise ValueError("center_classifier_rows: a selected leaf is a scalar, it has no class axis")
        mean = jnp.mean(g, axis=axis, keepdims=True)
        return (g - jnp.asarray(scale, mean.dtype) * mean).astype(g.dtype)

    def update(updates, state, params=None):
        del params
        if mask is None:
            return jax.tree.map(center, updates), state
        sel = mask(updates) if callable(mask) else mask
        return jax.tree.map(lambda g, m: center(g) if m else g, updates, sel), state

    def init(params):
        check_float_params(params, "center_classifier_rows", complex_ok=True)
        # the selected leaves need a class axis (checked here, at init, not at the first update)
        sel = None if mask is None else (mask(params) if callable(mask) else mask)
        leaves = (
            jax.tree.leaves(params)
            if sel is None
            else jax.tree.leaves(jax.tree.map(lambda p, m: p if m else None, params, sel))
        )
        for leaf in leaves:
            if jnp.ndim(leaf) == 0:
                raise ValueError(
                    "center_classifier_rows: a selected leaf is a scalar, it has no class axis; "
                    "select only leaves with a class axis (mask=...)"
                )
        return optax.EmptyState()

    return optax.GradientTransformation(init, update)
