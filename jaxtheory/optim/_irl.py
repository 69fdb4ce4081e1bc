r"""Reward updates for maximum-entropy inverse RL in occupancy space.

The MaxEnt-IRL dual :math:`g(\theta) = \theta\cdot\mu_E - (1-\gamma)\,V_\theta(\rho_0)` has
gradient :math:`\mu_E - \mu(\theta)` (expert minus learner feature expectations) and
negative Hessian the Fisher information :math:`F(\theta) = \partial\mu/\partial\theta`.
Along the straight line to any :math:`\theta^\star` the fundamental theorem of calculus
gives the mean-value identity

.. math::

    \mu(\theta^\star) - \mu(\theta) = \bar F\,(\theta^\star - \theta), \qquad
    \bar F = \int_0^1 F\big(\theta + t(\theta^\star - \theta)\big)\,dt,

so at the dual optimum (:math:`\mu(\theta^\star) = \mu_E`) preconditioning the dual
gradient by :math:`\bar F^{+}` returns :math:`\theta^\star - \theta` (up to the null space
of :math:`\bar F`: reward shaping, or the constant shift of a bandit), and a step of size
:math:`\eta` is the convex interpolation
:math:`\theta_{k+1} = (1-\eta)\theta_k + \eta\theta^\star` (:func:`occupancy_interp`). In
the entropy-regularised tabular case :math:`\theta^\star = \log\pi_E` needs no solve.
:func:`averaged_fisher_precondition` is the generic preconditioner, with :math:`\bar F`
computed by Gauss–Legendre quadrature (:func:`line_average`).

References:
    Ziebart et al., *Maximum entropy inverse reinforcement learning*, AAAI 2008; Ziebart,
    Bagnell, Dey, *Modeling interaction via the principle of maximum causal entropy*,
    ICML 2010; Amari, *Natural gradient works efficiently in learning*, 1998; Lan,
    *Policy mirror descent for reinforcement learning*, 2022. The paper this reconstructs
    ("occupancy-space reward updates in IRL") was not found.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.flatten_util import ravel_pytree

from jaxtheory.optim._domain import check_float_params, is_placeholder

__all__ = [
    "AveragedFisherState",
    "OccupancyInterpState",
    "averaged_fisher_precondition",
    "gauss_legendre_unit",
    "line_average",
    "occupancy_interp",
]


class OccupancyInterpState(NamedTuple):
    """State of :func:`occupancy_interp`.

    Attributes:
        count: number of updates applied so far (int32).
    """

    count: jax.Array


class AveragedFisherState(NamedTuple):
    """State of :func:`averaged_fisher_precondition`.

    Attributes:
        count: number of updates applied so far (int32).
    """

    count: jax.Array


def gauss_legendre_unit(num_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Gauss–Legendre nodes and weights on :math:`[0, 1]` (float64 numpy arrays).

    :math:`\int_0^1 f(t)\,dt \approx \sum_i w_i f(t_i)`, exact for polynomials of degree
    :math:`\le 2n - 1`; the weights sum to 1.

    Args:
        num_nodes: the number of nodes :math:`n \ge 1` (a Python int: it fixes shapes).

    Returns:
        ``(nodes, weights)``, each of shape ``(num_nodes,)``.

    Example:
        >>> t, w = gauss_legendre_unit(2)
        >>> print(np.round(t, 4), float(w.sum()), round(float(w @ t**3), 12))
        [0.2113 0.7887] 1.0 0.25
    """
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, (int, np.integer)) or num_nodes < 1:
        raise ValueError(f"num_nodes must be a positive integer, got {num_nodes!r}")
    x, w = np.polynomial.legendre.leggauss(int(num_nodes))
    return (x + 1.0) / 2.0, w / 2.0


def line_average(fn: Callable[[Any], Any], start: Any, end: Any, num_nodes: int = 64) -> Any:
    r"""The average of ``fn`` along the segment from ``start`` to ``end``, by Gauss–Legendre.

    .. math:: \int_0^1 f\big(x_0 + t(x_1 - x_0)\big)\,dt \approx \sum_i w_i\,f(x_0 + t_i(x_1 - x_0)),

    with ``fn`` evaluated at all nodes at once under :func:`jax.vmap`.

    Args:
        fn: a function of a pytree like ``start``, returning a pytree of arrays.
        start: the segment's start :math:`x_0`.
        end: its end :math:`x_1` (same structure).
        num_nodes: the number of quadrature nodes.

    Returns:
        The averaged pytree (in the dtype of ``fn``'s output).

    Example:
        >>> import jax.numpy as jnp
        >>> print(round(float(line_average(lambda x: x**2, jnp.float32(0.0), jnp.float32(3.0), 4)), 4))
        3.0
    """
    nodes, weights = gauss_legendre_unit(num_nodes)
    if jax.tree.structure(start) != jax.tree.structure(end):
        raise ValueError("start and end must have the same pytree structure")

    def at(t):
        return fn(jax.tree.map(lambda a, b: a + t.astype(jnp.result_type(a)) * (b - a), start, end))

    vals = jax.vmap(at)(jnp.asarray(nodes))
    return jax.tree.map(lambda v: jnp.tensordot(jnp.asarray(weights, v.dtype), v, axes=1), vals)


def _check_rate(learning_rate):
    if callable(learning_rate):
        raise TypeError("learning_rate must be a scalar (a float or a traced 0-d array), not a schedule")
    return learning_rate


def occupancy_interp(target: Any, learning_rate: float | jax.Array) -> optax.GradientTransformationExtraArgs:
    r"""Convex interpolation of the reward parameters toward a target reward.

    .. math:: \theta_{k+1} = (1-\eta)\,\theta_k + \eta\,\theta^\star,

    returned as the update :math:`\eta(\theta^\star - \theta_k)`. This is the MaxEnt-IRL
    dual step :math:`\mu_E - \mu(\theta_k)` preconditioned by the Fisher averaged along the
    line to :math:`\theta^\star` (:func:`averaged_fisher_precondition`) when
    :math:`\theta^\star` is the dual optimum, computed without any Fisher; the incoming
    ``updates`` (the dual gradient) are not used. With :math:`\theta^\star = \log\pi_E` in
    a tabular entropy-regularised MDP (soft value 0, soft-optimal policy
    :math:`\pi_E`), in a bandit the policy step is exact entropic mirror descent,
    :math:`\pi_{k+1} \propto \pi_k^{1-\eta}\pi_E^\eta`.

    **Params.** a pytree of the structure of ``target`` (float16, bfloat16, float32,
    float64 or complex arrays of any shapes; the step is linear); ``init`` refuses
    another structure. ``update`` ignores its ``updates`` and unknown keyword arguments.

    Args:
        target: the target reward parameters :math:`\theta^\star` (a pytree like the
            params; may be traced).
        learning_rate: :math:`\eta` (a scalar, may be traced); :math:`\eta \in (0, 1]`
            interpolates, :math:`\eta \in (1, 2)` still contracts.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` whose ``update`` requires
        ``params``; its state is an :class:`OccupancyInterpState`.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> opt = occupancy_interp(jnp.array([1.0, -1.0]), 0.25)
        >>> theta = jnp.zeros(2)
        >>> u, _ = opt.update(jnp.zeros(2), opt.init(theta), theta)
        >>> print(optax.apply_updates(theta, u))
        [ 0.25 -0.25]

    References:
        Ziebart et al., 2008 (MaxEnt IRL); Amari, 1998 (natural gradient).
    """
    lr = _check_rate(learning_rate)

    def check_structure(params):
        if jax.tree.structure(params) != jax.tree.structure(target):
            raise ValueError(
                "occupancy_interp takes params of the same pytree structure as its target "
                f"({jax.tree.structure(target)}); got {jax.tree.structure(params)}: build the "
                "target like the params"
            )

    def init_fn(params):
        if not is_placeholder(params):
            check_float_params(params, "occupancy_interp", complex_ok=True)
            check_structure(params)
        return OccupancyInterpState(count=jnp.zeros([], jnp.int32))

    def update_fn(updates, state, params=None, **extra_args):
        del updates, extra_args  # unknown extra arguments are ignored, as optax's do
        if params is None:
            raise ValueError("occupancy_interp.update needs params.")
        check_structure(params)
        new = jax.tree.map(lambda th, ts: (lr * (ts.astype(th.dtype) - th)).astype(th.dtype), params, target)
        return new, OccupancyInterpState(count=optax.safe_increment(state.count))

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def _sym_pinv_apply(mat: jax.Array, vec: jax.Array, rtol: float | None, damping) -> jax.Array:
    """``pinv(mat) @ vec`` for a symmetric positive semi-definite ``mat`` (eigenvalues below
    ``rtol`` times the largest are dropped), or the damped solve
    ``(mat + damping * mean_eig * I)^{-1} vec`` by an LU solve."""
    mat = 0.5 * (mat + mat.T)
    if damping is not None:
        d = mat.shape[0]
        lam = damping * jnp.trace(mat) / d
        return jnp.linalg.solve(mat + lam * jnp.eye(d, dtype=mat.dtype), vec)
    evals, evecs = jnp.linalg.eigh(mat)
    tol = (10.0 * mat.shape[0] * jnp.finfo(mat.dtype).eps if rtol is None else rtol) * jnp.max(evals)
    inv = jnp.where(evals > tol, 1.0 / jnp.where(evals > tol, evals, 1.0), 0.0)
    return evecs @ (inv * (evecs.T @ vec))


def averaged_fisher_precondition(
    fisher_fn: Callable[[Any], jax.Array],
    learning_rate: float | jax.Array,
    num_nodes: int = 64,
    rtol: float | None = None,
    damping: float | jax.Array | None = None,
) -> optax.GradientTransformationExtraArgs:
    r"""Precondition a dual gradient by the pseudo-inverse of the line-averaged Fisher.

    .. math::

        u = \eta\,\bar F^{+} g, \qquad
        \bar F = \sum_{i=1}^{n} w_i\,F\big(\theta + t_i(\theta^\star - \theta)\big),

    with Gauss–Legendre nodes :math:`t_i` and weights :math:`w_i` on :math:`[0, 1]`
    (:func:`line_average`, vmapped over nodes) and :math:`g` the incoming ``updates``
    (the ascent direction :math:`\mu_E - \mu(\theta)`). :math:`\bar F^{+}` drops the
    eigenvalues below ``rtol`` times the largest (the shaping directions of an MDP reward,
    the constant shift of a bandit). When :math:`\theta^\star` is the dual optimum the
    result is :math:`\eta` times the projection of :math:`\theta^\star - \theta` on the
    range of :math:`\bar F` (the mean-value identity, module docs), i.e.
    :func:`occupancy_interp` up to the null space. Without ``target`` the line collapses
    to the point :math:`\theta` and the update is the local natural gradient
    :math:`\eta F(\theta)^{+} g` (use ``num_nodes=1`` then: every node is the same point).

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays whose
    flattened size ``d`` matches ``fisher_fn``'s ``(d, d)`` output (checked by ``init``);
    half precision is computed in float32 and cast back. Complex params are refused.
    ``update`` ignores unknown keyword arguments.

    Args:
        fisher_fn: :math:`F`: params pytree -> a symmetric PSD ``(d, d)`` matrix in the
            coordinates of :func:`jax.flatten_util.ravel_pytree` of the params.
        learning_rate: :math:`\eta` (a scalar, may be traced).
        num_nodes: Gauss–Legendre nodes (a Python int; 64 integrates the analytic
            integrand of a softmax bandit to float64 round-off).
        rtol: relative eigenvalue cut-off of the pseudo-inverse; ``None`` uses
            ``10 * d * eps`` of the dtype.
        damping: ``None`` for the pseudo-inverse (an eigendecomposition); a number
            :math:`\lambda` for the damped solve
            :math:`(\bar F + \lambda\,\tfrac{\operatorname{tr}\bar F}{d} I)^{-1} g` by an LU solve,
            several times cheaper. A gradient orthogonal to the null space (the MaxEnt
            dual gradient is) gets no null-space component either way; the damping
            shrinks the directions of eigenvalue below about :math:`\lambda` times the
            mean eigenvalue.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs`; ``update(updates, state, params,
        target=None)`` requires ``params``; its state is an :class:`AveragedFisherState`.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> fisher = lambda th: jax.jacfwd(jax.nn.softmax)(th)  # bandit: diag(p) - p p^T
        >>> theta, star = jnp.zeros(3), jnp.log(jnp.array([0.2, 0.3, 0.5]))
        >>> opt = averaged_fisher_precondition(fisher, 1.0, num_nodes=16)
        >>> g = jax.nn.softmax(star) - jax.nn.softmax(theta)  # mu_E - mu(theta)
        >>> u, _ = opt.update(g, opt.init(theta), theta, target=star)
        >>> bool(jnp.allclose(u, (star - theta) - (star - theta).mean(), atol=1e-5))
        True

    References:
        Amari, 1998 (natural gradient); Kakade, *A natural policy gradient*, 2001.
    """
    lr = _check_rate(learning_rate)
    gauss_legendre_unit(num_nodes)  # validates

    def init_fn(params):
        if not is_placeholder(params):
            check_float_params(params, "averaged_fisher_precondition")
            d = ravel_pytree(params)[0].shape[0]
            shape = jax.eval_shape(fisher_fn, params).shape
            if shape != (d, d):
                raise ValueError(
                    "averaged_fisher_precondition takes params whose flattened size d matches "
                    f"fisher_fn's (d, d) matrix; got d = {d} and a matrix of shape {shape}: "
                    "fisher_fn must return the Fisher in the coordinates of ravel_pytree(params)"
                )
        return AveragedFisherState(count=jnp.zeros([], jnp.int32))

    def update_fn(updates, state, params=None, target=None, **extra):
        del extra
        if params is None:
            raise ValueError("averaged_fisher_precondition.update needs params.")
        flat, unravel = ravel_pytree(params)
        # half precision is computed in float32 (LAPACK has no bfloat16/float16 eigh or solve)
        acc = jnp.promote_types(flat.dtype, jnp.float32)
        flat = flat.astype(acc)
        g, _ = ravel_pytree(updates)
        end = flat if target is None else ravel_pytree(target)[0].astype(acc)
        fbar = line_average(lambda x: fisher_fn(unravel(x)).astype(acc), flat, end, num_nodes)
        step = lr * _sym_pinv_apply(fbar, g.astype(acc), rtol, damping)
        new = jax.tree.map(lambda u, p: u.astype(p.dtype), unravel(step), params)
        return new, AveragedFisherState(count=optax.safe_increment(state.count))

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
