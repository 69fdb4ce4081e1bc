"""Gradient descent ascent with double smoothing (DS-GDA) for minimax problems.

The transform acts on the pair ``params = (x, y)`` of :math:`\\min_x\\max_y f(x, y)`:
``updates = (g_x, g_y)`` are (estimates of) :math:`\\nabla_x f` and :math:`\\nabla_y f`,
and the returned update descends in :math:`x` and ascends in :math:`y` on the smoothed
function

.. math::

    F(x, y; z, v) = f(x, y) + \\frac r2\\lVert x - z\\rVert^2 - \\frac r2\\lVert y - v\\rVert^2,

whose anchors :math:`z, v` (the transform's state) trail the iterates by an exponential
average. At :math:`r = \\beta = 0` it is plain simultaneous GDA, bit for bit: the
smoothing terms enter as exact zeros.

References:
    Zheng, Zhu, So, Blanchet, Li, *Universal Gradient Descent Ascent Method for
    Nonconvex-Nonconcave Minimax Optimization*, NeurIPS 2023, arXiv:2212.12978.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params, is_placeholder

__all__ = ["DoublySmoothedGDAState", "doubly_smoothed_gda"]


class DoublySmoothedGDAState(NamedTuple):
    """State of :func:`doubly_smoothed_gda`.

    Attributes:
        count: number of updates applied so far (int32).
        z: the primal anchor :math:`z_{t-1}` (like ``x``; :math:`x_0` at init).
        v: the dual anchor :math:`v_{t-1}` (like ``y``; :math:`y_0` at init).
    """

    count: jax.Array
    z: Any
    v: Any


def _pair(tree: Any, what: str) -> tuple[Any, Any]:
    if not (isinstance(tree, (tuple, list)) and len(tree) == 2):
        raise ValueError(
            f"doubly_smoothed_gda takes the pair (x, y) of a minimax problem min_x max_y f as "
            f"{what}: a tuple or list of two pytrees (the minimizing and the maximizing "
            f"player); got {type(tree).__name__}. Pass params=(x, y) and updates=(grad_x f, "
            "grad_y f); for a plain minimization use a descent method instead"
        )
    return tree[0], tree[1]


def doubly_smoothed_gda(
    eta: Any,
    r: Any,
    beta: Any,
    *,
    eta_y: Any = None,
    r_y: Any = None,
    beta_y: Any = None,
) -> optax.GradientTransformationExtraArgs:
    """DS-GDA: simultaneous GDA on the doubly smoothed function, anchors updated by EMA.

    With ``params = (x_t, y_t)``, ``updates = (g_x, g_y)`` and the anchors first moved
    to the current iterate (:math:`z_{-1} = x_0`, :math:`v_{-1} = y_0`, so
    :math:`z_0 = x_0`),

    .. math::

        z_t = z_{t-1} + \\beta (x_t - z_{t-1}), \\qquad v_t = v_{t-1} + \\beta_y (y_t - v_{t-1}),

        \\Delta x_t = -\\eta\\,\\big(g_x + r (x_t - z_t)\\big), \\qquad
        \\Delta y_t = +\\eta_y\\big(g_y - r_y (y_t - v_t)\\big).

    Applied as :math:`x_{t+1} = x_t + \\Delta x_t` it is the symmetric DS-GDA of
    Zheng et al. (same step, smoothing and averaging for both players) in its Jacobi
    form: both players use the gradient at :math:`(x_t, y_t)` (the paper's single-machine
    method updates :math:`y` at :math:`x_{t+1}`). The anchor update at step :math:`t`
    uses :math:`x_t`, which lets a decentralized method add its gossip to the update
    (:math:`x_{t+1} = W x_t + \\Delta x_t`) and still move the anchors to the mixed
    iterate: :math:`z_{t+1} = z_t + \\beta(x_{t+1} - z_t)` is computed at the next call.
    ``r = beta = 0`` is simultaneous GDA exactly (the smoothing terms are exact zeros).

    **Params.** the pair ``(x, y)`` (a tuple or list of two pytrees of float16,
    bfloat16, float32 or float64 arrays of any shapes; ``None`` and size-0 leaves
    allowed); ``updates`` is the pair of partial gradients. Anything else is refused with
    a ``ValueError``; so are complex params. The transform is structure-bound: under
    :func:`optax.tree.map_params` the anchors ``z``, ``v`` are shaped like ``x`` and
    ``y``, not like the pair. ``update`` ignores unknown keyword arguments.

    Args:
        eta: step size :math:`\\eta` of both players (a scalar, may be traced).
        r: smoothing :math:`r \\ge 0` of both players.
        beta: anchor averaging :math:`\\beta \\in [0, 1]` of both players.
        eta_y: the dual step, when it differs (default ``eta``).
        r_y: the dual smoothing, when it differs (default ``r``).
        beta_y: the dual averaging, when it differs (default ``beta``).

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` on pairs ``(x, y)`` (each any pytree);
        ``update`` needs ``params``. Its state is a :class:`DoublySmoothedGDAState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> from jaxtheory.optim import doubly_smoothed_gda
        >>> opt = doubly_smoothed_gda(eta=0.1, r=1.0, beta=0.5)
        >>> xy = (jnp.array([1.0]), jnp.array([0.0]))
        >>> state = opt.init(xy)
        >>> grads = (xy[0] + xy[1], xy[0] - xy[1])   # f = x²/2 + xy − y²/2
        >>> upd, state = opt.update(grads, state, xy)
        >>> print(upd[0], upd[1])
        [-0.1] [0.1]
        >>> xy = optax.apply_updates(xy, upd)
        >>> upd, state = opt.update((xy[0] + xy[1], xy[0] - xy[1]), state, xy)
        >>> print(state.z, round(float(upd[0][0]), 4))
        [0.95] -0.095

    References:
        Zheng, Zhu, So, Blanchet, Li, arXiv:2212.12978 (DS-GDA, symmetric parameters).
    """
    eta_y = eta if eta_y is None else eta_y
    r_y = r if r_y is None else r_y
    beta_y = beta if beta_y is None else beta_y

    def init_fn(params):
        count = jnp.zeros([], jnp.int32)
        if is_placeholder(params):  # optax.tree.map_params: the anchors are shaped like x, y
            return DoublySmoothedGDAState(count=count, z=params, v=params)
        x, y = _pair(params, "params")
        check_float_params(params, "doubly_smoothed_gda")
        # copies: the state never shares a buffer with the params (jit donation)
        copy = lambda t: jax.tree.map(lambda a: jnp.array(a, copy=True), t)  # noqa: E731
        return DoublySmoothedGDAState(count=count, z=copy(x), v=copy(y))

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("doubly_smoothed_gda needs params=(x, y) in update")
        gx, gy = _pair(updates, "updates")
        x, y = _pair(params, "params")
        z = jax.tree.map(lambda zz, xx: (zz + beta * (xx - zz)).astype(zz.dtype), state.z, x)
        v = jax.tree.map(lambda vv, yy: (vv + beta_y * (yy - vv)).astype(vv.dtype), state.v, y)
        dx = jax.tree.map(lambda g, xx, zz: (-eta * (g + r * (xx - zz))).astype(xx.dtype), gx, x, z)
        dy = jax.tree.map(lambda g, yy, vv: (eta_y * (g - r_y * (yy - vv))).astype(yy.dtype), gy, y, v)
        return (dx, dy), DoublySmoothedGDAState(count=optax.safe_increment(state.count), z=z, v=v)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
