"""Riemannian gradient descent on the Segre manifold of rank-one tensors (arXiv 2510.00569).

A point is the pytree ``(lam, factors)``: ``lam`` of shape ``(r,)`` and ``factors`` a list of
``d`` arrays of shape ``(r, p_l)`` whose rows are unit vectors; component ``i`` is the
rank-one tensor :math:`T_i = \\lambda_i\\, u_{1,i} \\otimes \\dots \\otimes u_{d,i}` and the
point represents :math:`\\sum_i T_i` (each :math:`T_i` on its own Segre manifold). A tangent
vector at :math:`T_i` in *factor coordinates* is :math:`(a, [w_1, \\dots, w_d])` with
:math:`w_l \\perp u_l`, standing for
:math:`\\xi = a \\otimes_l u_l + \\sum_l u_1 \\otimes \\dots \\otimes w_l \\otimes \\dots \\otimes u_d`.
The projection of a Euclidean gradient :math:`G` is :math:`a = \\langle G, \\otimes_l u_l\\rangle`,
:math:`w_l = (I - u_l u_l^\\top) G(u_{-l})` (:math:`G` contracted with every factor but the
``l``-th); the factor retraction maps :math:`T + \\xi` to
:math:`(\\lambda + a) \\otimes_l (u_l + w_l/\\lambda)` and renormalizes the factors.
"""

from __future__ import annotations

import string

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._domain import check_float_params, concrete, is_placeholder, value_tol

__all__ = [
    "segre_tensor",
    "segre_tangent_coords",
    "segre_tangent_project",
    "segre_retract",
    "segre_rgd",
]


def _check(lam, factors):
    if lam.ndim != 1 or not factors or any(u.ndim != 2 or u.shape[0] != lam.shape[0] for u in factors):
        raise ValueError(
            "expected lam of shape (r,) and factors a non-empty list of (r, p_l) arrays, got "
            f"{lam.shape} and {[tuple(u.shape) for u in factors]}"
        )


def _outer(factors):
    """Per-component outer products ``(r, p_1, ..., p_d)`` of the rows of ``factors``."""
    d = len(factors)
    letters = string.ascii_letters[1 : d + 1]
    spec = ",".join("a" + c for c in letters) + "->a" + letters
    return jnp.einsum(spec, *factors)


def _contract_except(g, factors, skip):
    """``G(u_{-l})`` per component: ``g`` (p_1..p_d) contracted with every factor but ``skip``."""
    d = len(factors)
    letters = string.ascii_letters[1 : d + 1]
    ops = [f"a{c}" for k, c in enumerate(letters) if k != skip]
    spec = letters + "," + ",".join(ops) + "->a" + letters[skip]
    return jnp.einsum(spec, g, *[u for k, u in enumerate(factors) if k != skip])


def segre_tensor(lam: jax.Array, factors) -> jax.Array:
    """The tensor :math:`\\sum_i \\lambda_i \\otimes_l u_{l,i}` of a point ``(lam, factors)``.

    Args:
        lam: ``(r,)`` weights.
        factors: list of ``d`` arrays ``(r, p_l)``.

    Returns:
        The ``(p_1, ..., p_d)`` tensor.

    Example:
        >>> import jax.numpy as jnp
        >>> segre_tensor(jnp.array([2.0]), [jnp.array([[1.0, 0.0]]), jnp.array([[0.0, 1.0]])]).tolist()
        [[0.0, 2.0], [0.0, 0.0]]
    """
    _check(lam, factors)
    return jnp.tensordot(lam, _outer(factors), axes=1)


def segre_tangent_coords(grad: jax.Array, factors):
    """Factor coordinates ``(a, [w_l])`` of the tangent projection of a Euclidean gradient.

    Args:
        grad: the Euclidean gradient :math:`G`, shape ``(p_1, ..., p_d)`` (shared by all
            components, as for a loss of :math:`\\sum_i T_i`).
        factors: list of ``d`` arrays ``(r, p_l)`` with unit rows.

    Returns:
        ``(a, ws)``: ``a`` of shape ``(r,)`` (:math:`\\langle G, \\otimes u\\rangle`) and ``ws``
        a list of ``(r, p_l)`` arrays orthogonal to the rows of ``factors``.

    Example:
        >>> import jax.numpy as jnp
        >>> a, ws = segre_tangent_coords(jnp.eye(2), [jnp.array([[1.0, 0.0]]), jnp.array([[1.0, 0.0]])])
        >>> a.tolist(), [w.tolist() for w in ws]
        ([1.0], [[[0.0, 0.0]], [[0.0, 0.0]]])
    """
    if grad.shape != tuple(u.shape[1] for u in factors):
        raise ValueError(
            f"gradient of shape {grad.shape} does not match factors {[u.shape for u in factors]}"
        )
    a = jnp.einsum("a...,...->a", _outer(factors), grad)
    ws = []
    for l_, u in enumerate(factors):
        g = _contract_except(grad, factors, l_)
        ws.append(g - jnp.sum(g * u, axis=1, keepdims=True) * u)
    return a, ws


def _coords_to_tensor(a, ws, factors):
    out = a.reshape((-1,) + (1,) * len(factors)) * _outer(factors)
    for l_, w in enumerate(ws):
        out = out + _outer([w if k == l_ else u for k, u in enumerate(factors)])
    return out


def segre_tangent_project(grad: jax.Array, lam: jax.Array, factors) -> jax.Array:
    """Orthogonal projection of ``grad`` onto the tangent space of each component.

    :math:`P_{T_i}(G) = \\langle G, \\otimes u\\rangle \\otimes u + \\sum_l u_1 \\otimes \\dots
    (I - u_l u_l^\\top) G(u_{-l}) \\dots \\otimes u_d` (the tangent space of the Segre
    manifold does not depend on :math:`\\lambda_i \\neq 0`).

    Args:
        grad: tensor ``(p_1, ..., p_d)``.
        lam: ``(r,)`` weights (checked for shape only).
        factors: list of ``d`` arrays ``(r, p_l)`` with unit rows.

    Returns:
        ``(r, p_1, ..., p_d)``: the projection onto each component's tangent space.

    Example:
        >>> import jax.numpy as jnp
        >>> u = [jnp.array([[1.0, 0.0]]), jnp.array([[1.0, 0.0]])]
        >>> segre_tangent_project(jnp.ones((2, 2)), jnp.ones(1), u)[0].tolist()
        [[1.0, 1.0], [1.0, 0.0]]
    """
    _check(lam, factors)
    a, ws = segre_tangent_coords(grad, factors)
    return _coords_to_tensor(a, ws, factors)


def segre_retract(lam: jax.Array, factors, a: jax.Array, ws):
    """Factor retraction of :math:`T + \\xi`: :math:`(\\lambda + a) \\otimes_l (u_l + w_l/\\lambda)`.

    The factors are renormalized to unit rows and their norms folded into the weights.

    Args:
        lam: ``(r,)`` weights (nonzero).
        factors: list of ``d`` arrays ``(r, p_l)`` with unit rows.
        a: ``(r,)`` weight coordinate of the tangent vector.
        ws: list of ``(r, p_l)`` arrays, each row orthogonal to the factor's row.

    Returns:
        ``(lam', factors')``, a point of the same structure.

    Example:
        >>> import jax.numpy as jnp
        >>> lam, fs = segre_retract(jnp.array([1.0]), [jnp.array([[1.0, 0.0]])], jnp.array([1.0]),
        ...                         [jnp.array([[0.0, 0.0]])])
        >>> lam.tolist(), fs[0].tolist()
        ([2.0], [[1.0, 0.0]])
    """
    _check(lam, factors)
    if len(ws) != len(factors):
        raise ValueError(f"{len(ws)} factor directions for {len(factors)} factors")
    new_lam = lam + a
    new = []
    for u, w in zip(factors, ws):
        v = u + w / lam[:, None]
        nrm = jnp.linalg.norm(v, axis=1)
        new_lam = new_lam * nrm
        new.append(v / nrm[:, None])
    return new_lam, new


_SEGRE_DOMAIN = (
    "segre_rgd takes a point (lam, factors) of the Segre manifold: lam of shape (r,) with "
    "nonzero entries and factors a non-empty list of arrays of shapes (r, p_l) with unit rows"
)


def _check_point(params):
    """Raises a ValueError naming the domain when ``params`` is not a Segre point."""
    if not (isinstance(params, (tuple, list)) and len(params) == 2):
        raise ValueError(
            f"{_SEGRE_DOMAIN}; got {type(params).__name__} {jax.tree.map(jnp.shape, params)}: pass "
            "params=(lam, [u_1, ..., u_d]) (see segre_tensor)"
        )
    lam, factors = params
    if not isinstance(factors, (tuple, list)) or not hasattr(lam, "shape"):
        raise ValueError(f"{_SEGRE_DOMAIN}; got {jax.tree.map(jnp.shape, params)}")
    try:
        _check(lam, list(factors))
    except ValueError as e:
        raise ValueError(f"{_SEGRE_DOMAIN}; {e}") from None
    check_float_params(params, "segre_rgd")
    lam_v = concrete(lam)
    if lam_v is not None and not np.all(lam_v != 0):
        raise ValueError(f"{_SEGRE_DOMAIN}; got lam = {lam_v} (a zero weight has no factor gradient)")
    for u in factors:
        v = concrete(u)
        if (
            v is not None
            and v.size
            and np.max(np.abs(np.linalg.norm(v, axis=1) - 1.0)) > value_tol(u, v.shape[1])
        ):
            raise ValueError(
                f"{_SEGRE_DOMAIN}; a factor of shape {v.shape} has rows of norms "
                f"{np.linalg.norm(v, axis=1)}: normalize its rows and fold the norms into lam"
            )


def segre_rgd(learning_rate) -> optax.GradientTransformationExtraArgs:
    """Riemannian gradient descent on the Segre manifold, per component, in factor form.

    ``update(grads, state, params)`` takes the factor gradients of a loss
    :math:`L(\\sum_i \\lambda_i \\otimes_l u_{l,i})` with respect to ``params = (lam,
    factors)`` (unit rows) and recovers the tangent projection of the Euclidean gradient
    :math:`G` from the chain rule :math:`\\partial L/\\partial\\lambda_i = \\langle G, \\otimes
    u_i\\rangle`, :math:`\\partial L/\\partial u_{l,i} = \\lambda_i G(u_{-l,i})`; it steps
    :math:`-\\alpha` along the Riemannian gradient and retracts with :func:`segre_retract`.
    The update is the retracted point minus the old one, so :func:`optax.apply_updates`
    lands on the retracted point (to round-off).

    **Params.** structure-bound to one point of the Segre manifold, ``(lam, factors)``:
    ``lam`` of shape ``(r,)`` with nonzero entries, ``factors`` a non-empty list of
    arrays of shapes ``(r, p_l)`` with unit rows (:func:`segre_tensor`), in float16,
    bfloat16, float32 or float64. ``init`` refuses anything else with a ``ValueError``
    naming this domain (the values when they are concrete); complex params are refused.
    ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: the step :math:`\\alpha` (a scalar, may be traced).

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` (its state is empty); ``update``
        needs ``params``.

    Example:
        >>> import jax, jax.numpy as jnp, optax
        >>> target = jnp.outer(jnp.array([0.6, 0.8]), jnp.array([1.0, 0.0]))
        >>> loss = lambda p: 0.5 * jnp.sum((segre_tensor(*p) - target) ** 2)
        >>> p = (jnp.array([0.5]), [jnp.array([[1.0, 0.0]]), jnp.array([[0.8, 0.6]])])
        >>> opt = segre_rgd(0.5)
        >>> s = opt.init(p)
        >>> for _ in range(60):
        ...     u, s = opt.update(jax.grad(loss)(p), s, p)
        ...     p = optax.apply_updates(p, u)
        >>> bool(loss(p) < 1e-6)
        True
    """

    def init_fn(params):
        if not is_placeholder(params):
            _check_point(params)
        return optax.EmptyState()

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("segre_rgd needs params (the current point) in update")
        if not (isinstance(params, (tuple, list)) and len(params) == 2):
            _check_point(params)  # raises, naming the domain
        lam, factors = params
        g_lam, g_factors = updates
        _check(lam, list(factors))
        dtype = lam.dtype
        lr = jnp.asarray(learning_rate).astype(dtype)
        ws = []
        for u, gu in zip(factors, g_factors):
            g = gu / lam[:, None]  # G(u_{-l}) by the chain rule
            ws.append(-lr * (g - jnp.sum(g * u, axis=1, keepdims=True) * u))
        new_lam, new_f = segre_retract(lam, list(factors), -lr * g_lam, ws)
        new = (new_lam, type(factors)(new_f) if isinstance(factors, (list, tuple)) else new_f)
        upd = jax.tree.map(lambda n, o: (n - o).astype(o.dtype), new, (lam, factors))
        return upd, state

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
