"""Zeroth-order descent with subspace hints: CV-ZOD and its baselines.

Every transform here sees only function values (or exact directional derivatives with
``mode="jvp"``) and follows the value-function convention of
:mod:`jaxtheory.optim._value`: it is an :class:`optax.GradientTransformationExtraArgs`
whose ``update`` takes the keyword extras ``value_fn`` (the objective :math:`f`),
``value`` (:math:`f` at the current parameters, when the caller has it) and, for the
hint-guided methods, ``hint_basis``: :math:`k` orthonormal directions spanning the hint
subspace :math:`S_t`, as a pytree of the parameters' structure with a leading axis of
size :math:`k` on every leaf (for a flat vector of size :math:`d`, an array ``(k, d)``).
The incoming ``updates`` are ignored (the gradient is what these methods estimate);
the returned update is the descent step :math:`-\\eta_t g_t`, as :func:`optax.sgd`
returns. The PRNG key lives in the state, and the state counts the evaluations spent
(``n_evals``, read by :func:`jaxtheory.optim.n_evals`): one per directional derivative
in ``"fd"`` and ``"jvp"`` mode, two in ``"central"`` mode
(:func:`jaxtheory.oracles.directional_evals`), plus one for :math:`f(x)` in ``"fd"``
mode when ``value`` is not given.

CV-ZOD is our reconstruction from an abstract (the paper itself was not found): the estimator
:math:`g = c + d\\,(D_u f - \\langle c, u\\rangle)\\,u` with a reference :math:`c` in
the hint subspace and :math:`u` uniform on the unit sphere is unbiased, and with the
oracle reference :math:`c = P_S\\nabla f` its second moment is
:math:`(\\alpha + d(1-\\alpha))\\lVert\\nabla f\\rVert^2`,
:math:`\\alpha = \\lVert P_S\\nabla f\\rVert^2/\\lVert\\nabla f\\rVert^2`.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jax.flatten_util import ravel_pytree

from jaxtheory.optim._domain import check_float_params
from jaxtheory.optim._value import _as_key

from jaxtheory.oracles import directional_derivative, directional_evals
from jaxtheory.oracles._directional import DIRECTIONAL_MODES

__all__ = [
    "CV_ZOD_REFERENCES",
    "ZerothOrderState",
    "zo_gradient_estimate",
    "sphere_directions",
    "cv_zod",
    "zo_gd",
    "hint_gd",
    "guided_es",
    "prgf",
]

#: The variants of :func:`cv_zod`.
CV_ZOD_REFERENCES = ("oracle", "adaptive")


class ZerothOrderState(NamedTuple):
    """State of the transforms of this module.

    Attributes:
        count: iterations done (``int32``).
        key: the PRNG key, split once per iteration.
        n_evals: function evaluations spent so far (``int32``).
        sum_sq: :math:`b_0^2 + \\sum_s\\lVert g_s\\rVert^2`, the AdaGrad-Norm
            accumulator of the adaptive CV-ZOD (unused elsewhere).
    """

    count: jax.Array
    key: jax.Array
    n_evals: jax.Array
    sum_sq: jax.Array


def _check_mode(mode):
    if mode not in DIRECTIONAL_MODES:
        raise ValueError(f"mode must be one of {DIRECTIONAL_MODES}, got {mode!r}")


def _check_count(name, v):
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise ValueError(f"{name} must be a positive int, got {v!r}")


def _flat_basis(hint_basis, x_flat, unravel_like):
    """``hint_basis`` (leading axis k on every leaf) as a ``(k, d)`` array."""
    leaves = jax.tree.leaves(hint_basis)
    if not leaves:
        raise ValueError("hint_basis is empty")
    k = jnp.shape(leaves[0])[0] if jnp.ndim(leaves[0]) else None
    if k is None or any(jnp.ndim(v) < 1 or jnp.shape(v)[0] != k for v in leaves):
        raise ValueError("hint_basis needs a leading axis of size k on every leaf")
    if jax.tree.structure(hint_basis) != jax.tree.structure(unravel_like):
        raise ValueError("hint_basis must have the structure of the parameters (with a leading axis k)")
    rows = jax.vmap(lambda t: ravel_pytree(t)[0])(hint_basis)
    if rows.shape[1] != x_flat.shape[0]:
        raise ValueError(f"hint_basis rows have {rows.shape[1]} entries, the parameters {x_flat.shape[0]}")
    return rows.astype(x_flat.dtype)


def sphere_directions(key, num: int, dim: int, dtype=jnp.float32) -> jax.Array:
    """``num`` independent directions uniform on the unit sphere of :math:`\\mathbb R^{d}`.

    Normalised Gaussians, so that :math:`\\mathbb E[d\\,uu^\\top] = I`.

    Args:
        key: PRNG key.
        num: number of directions.
        dim: the dimension :math:`d`.
        dtype: float dtype.

    Returns:
        An array ``(num, dim)`` of unit rows.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> u = sphere_directions(jax.random.key(0), 3, 5)
        >>> u.shape, bool(jnp.allclose(jnp.linalg.norm(u, axis=1), 1.0))
        ((3, 5), True)
    """
    z = jax.random.normal(key, (num, dim), dtype)
    return z / jnp.linalg.norm(z, axis=1, keepdims=True)


def _dd_flat(f_flat, x, rows, mu, mode, fx):
    """Directional derivatives of ``f_flat`` at ``x`` along each row (vmapped)."""
    return jax.vmap(lambda u: directional_derivative(f_flat, x, u, mu, mode, fx=fx))(rows)


def _estimate_flat(f_flat, x, key, basis, reference, num_random, mu, mode, fx):
    """Flat CV estimate: returns (g, directional derivatives spent)."""
    d = x.shape[0]
    spent = 0
    if reference is None and basis is not None:
        coef = _dd_flat(f_flat, x, basis, mu, mode, fx)
        reference = coef @ basis
        spent += basis.shape[0]
    u = sphere_directions(key, num_random, d, x.dtype)
    du = _dd_flat(f_flat, x, u, mu, mode, fx)
    spent += num_random
    if reference is None:
        # c = 0 through the same arithmetic as a reference, so that CV-ZOD with a zero
        # hint and ZO-GD are one program (a constant 0 would let XLA fold the sum and
        # reassociate the scalings, changing the last bit)
        reference = 0.0 * x
    resid = du - u @ reference
    g = reference + (d / num_random) * (resid @ u)
    return g, spent


def zo_gradient_estimate(
    f,
    x,
    key,
    *,
    hint_basis=None,
    reference=None,
    num_random: int = 1,
    mu=1e-4,
    mode: str = "fd",
    fx=None,
):
    """The control-variate random-direction estimate of :math:`\\nabla f(x)`.

    With :math:`m` directions :math:`u_j` uniform on the unit sphere and a reference
    vector :math:`c`,

    .. math::
        g = c + \\frac{d}{m}\\sum_{j=1}^m \\big(D_{u_j} f(x) - \\langle c, u_j\\rangle\\big)\\,u_j,

    unbiased for :math:`\\nabla f` (exactly with ``mode="jvp"``, up to the
    finite-difference bias otherwise) since :math:`\\mathbb E[d\\,uu^\\top] = I`, with

    .. math::
        \\mathbb E\\lVert g\\rVert^2 = \\lVert\\nabla f\\rVert^2
        + \\frac{d-1}{m}\\lVert\\nabla f - c\\rVert^2 .

    ``reference=None`` with a ``hint_basis`` :math:`U` uses the oracle reference
    :math:`c = P_S\\nabla f = \\sum_i D_{U_i} f(x)\\,U_i` (``k`` more directional
    derivatives); with neither, :math:`c = 0` (plain ZO-GD: :math:`g = \\frac dm\\sum_j
    D_{u_j} f\\,u_j`).

    Args:
        f: the scalar objective of a pytree.
        x: the point (a pytree).
        key: PRNG key of the random directions.
        hint_basis: orthonormal hint directions: ``x``'s structure with a leading axis
            ``k`` on every leaf, or ``None``.
        reference: the reference :math:`c` (``x``'s structure), or ``None``.
        num_random: the number :math:`m` of random directions (static).
        mu: finite-difference step (ignored by ``"jvp"``).
        mode: ``"fd"``, ``"central"`` or ``"jvp"`` (see
            :func:`jaxtheory.oracles.directional_derivative`).
        fx: :math:`f(x)`, when the caller has it.

    Returns:
        ``(g, n_evals)``: the estimate (``x``'s structure) and the evaluations spent
        (a Python int; :math:`f(x)` counts once in ``"fd"`` mode when ``fx`` is not given).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> f = lambda x: 0.5 * jnp.sum(x**2)
        >>> x = jnp.array([1.0, 2.0, 0.0])
        >>> U = jnp.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # the hint contains the gradient
        >>> g, n = zo_gradient_estimate(f, x, jax.random.key(0), hint_basis=U, mode="jvp")
        >>> g.round(5).tolist(), n
        ([1.0, 2.0, 0.0], 3)
    """
    _check_mode(mode)
    _check_count("num_random", num_random)
    x_flat, unravel = ravel_pytree(x)

    def f_flat(z):
        return f(unravel(z))

    basis = None if hint_basis is None else _flat_basis(hint_basis, x_flat, x)
    ref = None if reference is None else ravel_pytree(reference)[0].astype(x_flat.dtype)
    if mode == "fd" and fx is None:
        fx = f_flat(x_flat)
        base = 1
    else:
        base = 0
    g, spent = _estimate_flat(f_flat, x_flat, key, basis, ref, num_random, mu, mode, fx)
    return unravel(g), base + spent * directional_evals(mode)


def _value_fn_of(extra):
    f = extra.get("value_fn")
    if f is None or not callable(f):
        raise ValueError("this transform needs the keyword extra value_fn (the objective, a callable)")
    return f


def _lr(learning_rate, count):
    return learning_rate(count) if callable(learning_rate) else learning_rate


def _init(name, seed, b0=0.0):
    def init_fn(params):
        # real params only: the estimators sample real directions (on complex params they
        # would be biased, and a real-valued objective has no complex directional derivative)
        check_float_params(params, name)
        # the accumulator in at least float32 (float64 with float64 params)
        dtype = jnp.promote_types(ravel_pytree(params)[0].dtype, jnp.float32)
        return ZerothOrderState(
            jnp.zeros((), jnp.int32), _as_key(seed), jnp.zeros((), jnp.int32), jnp.asarray(b0, dtype) ** 2
        )

    return init_fn


def _finish(params, g_flat, step, unravel, state, key, spent, sum_sq=None):
    upd = unravel(-step * g_flat)
    upd = jax.tree.map(lambda v, p: v.astype(jnp.asarray(p).dtype), upd, params)
    new = ZerothOrderState(
        state.count + 1, key, state.n_evals + spent, state.sum_sq if sum_sq is None else sum_sq
    )
    return upd, new


def _prepare(params, extra, mode):
    f = _value_fn_of(extra)
    x_flat, unravel = ravel_pytree(params)

    def f_flat(z):
        return f(unravel(z))

    fx = extra.get("value")
    base = 0
    if mode == "fd" and fx is None:
        fx = f_flat(x_flat)
        base = 1
    return f_flat, x_flat, unravel, fx, base


def cv_zod(
    learning_rate,
    reference: str = "oracle",
    num_random: int = 1,
    mu=1e-4,
    *,
    mode: str = "fd",
    seed=0,
    b0=1e-2,
) -> optax.GradientTransformationExtraArgs:
    """Control-variate zeroth-order descent with subspace hints (CV-ZOD, a reconstruction).

    At :math:`x_t` with hint basis :math:`U_t` (``k`` orthonormal directions, the extra
    ``hint_basis``), the reference is the projection of the gradient on the hint,
    :math:`c_t = P_{S_t}\\nabla f = \\sum_i D_{U_i} f\\,U_i` (``k`` directional
    derivatives), and

    .. math::
        g_t = c_t + \\frac dm\\sum_j\\big(D_{u_j} f - \\langle c_t, u_j\\rangle\\big)u_j,
        \\qquad x_{t+1} = x_t - \\eta_t g_t,

    with :math:`\\mathbb E\\lVert g_t\\rVert^2 = F_t\\lVert\\nabla f\\rVert^2`,
    :math:`F_t = 1 + (d-1)(1-\\alpha_t)/m` (:math:`=\\alpha_t + d(1-\\alpha_t)` at
    :math:`m = 1`). The reference :math:`\\beta c_t` with the exact projection minimises
    :math:`\\mathbb E\\lVert g\\rVert^2` at :math:`\\beta = 1` whatever the hint's
    quality, so the variants differ in the step only:

    * ``reference="oracle"``: :math:`\\eta_t = \\eta/F_t` with the hint quality
      :math:`\\alpha_t = \\lVert P_{S_t}\\nabla f\\rVert^2/\\lVert\\nabla f\\rVert^2` given
      by the oracle as the extra ``hint_quality`` (``learning_rate`` :math:`= 1/L`
      gives the descent-lemma step :math:`1/(LF_t)`); without ``hint_quality`` the
      step is ``learning_rate``.
    * ``reference="adaptive"``: AdaGrad-Norm, knowing neither :math:`\\alpha_t` nor
      :math:`L`: :math:`\\eta_t = \\eta/\\sqrt{b_0^2 + \\sum_{s\\le t}\\lVert g_s\\rVert^2}`.

    Each iteration spends ``k + num_random`` directional derivatives, plus :math:`f(x_t)`
    in ``"fd"`` mode when the extra ``value`` is not given.

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any
    shapes (flattened into one vector of size ``d``; ``None`` and size-0 leaves
    allowed) that ``value_fn`` takes. Complex params are refused: the estimator samples
    real directions. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: :math:`\\eta` (a scalar, possibly traced, or a schedule of the
            iteration count).
        reference: ``"oracle"`` or ``"adaptive"`` (static).
        num_random: random directions per iteration :math:`m` (static).
        mu: finite-difference step (ignored by ``"jvp"``).
        mode: ``"fd"``, ``"central"`` or ``"jvp"`` (exact directional derivatives).
        seed: an int seed or PRNG key of the random directions (the key lives in the state).
        b0: AdaGrad-Norm's :math:`b_0` (adaptive variant).

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`ZerothOrderState`; ``update(updates, state, params, *, value_fn,
        hint_basis, value=None, hint_quality=None)`` ignores ``updates``.

    Example:
        >>> import jax.numpy as jnp, optax
        >>> f = lambda x: 0.5 * jnp.sum(x**2)
        >>> opt = cv_zod(1.0, mode="jvp")
        >>> x = jnp.array([1.0, 2.0]); state = opt.init(x)
        >>> U = (x / jnp.linalg.norm(x))[None]      # a perfect hint: alpha = 1
        >>> u, state = opt.update(x, state, x, value_fn=f, hint_basis=U, hint_quality=1.0)
        >>> optax.apply_updates(x, u).round(5).tolist(), int(state.n_evals)
        ([0.0, 0.0], 2)

    References:
        Our reconstruction of CV-ZOD ("control-variate zeroth-order descent with
        directional (subspace) hints") from its abstract, the paper not found; Nesterov &
        Spokoiny 2017 (random gradient-free methods); Ward, Wu & Bottou 2019
        (AdaGrad-Norm).
    """
    if reference not in CV_ZOD_REFERENCES:
        raise ValueError(f"reference must be one of {CV_ZOD_REFERENCES}, got {reference!r}")
    _check_mode(mode)
    _check_count("num_random", num_random)
    m = num_random

    def update_fn(updates, state, params=None, **extra):
        del updates
        if params is None:
            raise ValueError("cv_zod needs params")
        if extra.get("hint_basis") is None:
            raise ValueError("cv_zod needs the keyword extra hint_basis")
        f_flat, x, unravel, fx, base = _prepare(params, extra, mode)
        basis = _flat_basis(extra["hint_basis"], x, params)
        key, sub = jax.random.split(state.key)
        g, spent = _estimate_flat(f_flat, x, sub, basis, None, m, mu, mode, fx)
        spent = base + spent * directional_evals(mode)
        lr = _lr(learning_rate, state.count)
        if reference == "oracle":
            alpha = extra.get("hint_quality")
            step = lr if alpha is None else lr / (1 + (x.shape[0] - 1) * (1 - alpha) / m)
            return _finish(params, g, step, unravel, state, key, spent)
        sum_sq = state.sum_sq + jnp.sum(g.astype(state.sum_sq.dtype) ** 2)
        step = (lr / jnp.sqrt(sum_sq)).astype(g.dtype)
        return _finish(params, g, step, unravel, state, key, spent, sum_sq)

    return optax.GradientTransformationExtraArgs(_init("cv_zod", seed, b0), update_fn)


def zo_gd(learning_rate, num_random: int = 1, mu=1e-4, *, mode: str = "fd", seed=0):
    """Plain zeroth-order gradient descent (random directions, no hint).

    .. math:: g_t = \\frac dm\\sum_{j=1}^m D_{u_j} f(x_t)\\,u_j,\\qquad x_{t+1} = x_t - \\eta g_t,

    :math:`u_j` uniform on the unit sphere: unbiased with
    :math:`\\mathbb E\\lVert g\\rVert^2 = (1 + (d-1)/m)\\lVert\\nabla f\\rVert^2`, so the
    descent-lemma step is :math:`1/(L(1 + (d-1)/m))`. It is CV-ZOD with the reference
    :math:`c = 0`. Spends ``num_random`` directional derivatives per iteration (plus
    :math:`f(x_t)` in ``"fd"`` mode without the extra ``value``).

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any
    shapes (flattened into one vector of size ``d``; ``None`` and size-0 leaves
    allowed) that ``value_fn`` takes. Complex params are refused: the estimator samples
    real directions. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: :math:`\\eta` (scalar or schedule).
        num_random: :math:`m` (static).
        mu: finite-difference step.
        mode: ``"fd"``, ``"central"`` or ``"jvp"``.
        seed: int seed or PRNG key.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` (extras ``value_fn``, ``value``).

    Example:
        >>> import jax.numpy as jnp
        >>> opt = zo_gd(0.1, mode="jvp"); x = jnp.ones(4); s = opt.init(x)
        >>> u, s = opt.update(x, s, x, value_fn=lambda z: jnp.sum(z**2))
        >>> u.shape, int(s.n_evals)
        ((4,), 1)

    References:
        Nesterov & Spokoiny, *Random gradient-free minimization of convex functions*, 2017.
    """
    _check_mode(mode)
    _check_count("num_random", num_random)

    def update_fn(updates, state, params=None, **extra):
        del updates
        if params is None:
            raise ValueError("zo_gd needs params")
        f_flat, x, unravel, fx, base = _prepare(params, extra, mode)
        key, sub = jax.random.split(state.key)
        g, spent = _estimate_flat(f_flat, x, sub, None, None, num_random, mu, mode, fx)
        spent = base + spent * directional_evals(mode)
        return _finish(params, g, _lr(learning_rate, state.count), unravel, state, key, spent)

    return optax.GradientTransformationExtraArgs(_init("zo_gd", seed), update_fn)


def hint_gd(learning_rate, mu=1e-4, *, mode: str = "fd"):
    """Projected-hint gradient descent: follow the gradient's projection on the hint.

    .. math:: g_t = P_{S_t}\\nabla f(x_t) = \\sum_{i=1}^k D_{U_i} f(x_t)\\,U_i,
        \\qquad x_{t+1} = x_t - \\eta g_t .

    :math:`\\langle\\nabla f, g\\rangle = \\lVert g\\rVert^2`, so the step :math:`1/L`
    decreases :math:`f` by at least :math:`\\alpha_t\\lVert\\nabla f\\rVert^2/(2L)`: it
    stalls when the hints lose the gradient (:math:`\\alpha_t \\to 0`). Spends ``k``
    directional derivatives per iteration (plus :math:`f(x_t)` in ``"fd"`` mode).

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any
    shapes (flattened into one vector of size ``d``; ``None`` and size-0 leaves
    allowed) that ``value_fn`` takes. Complex params are refused: the estimator samples
    real directions. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: :math:`\\eta` (scalar or schedule).
        mu: finite-difference step.
        mode: ``"fd"``, ``"central"`` or ``"jvp"``.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` (extras ``value_fn``,
        ``hint_basis``, ``value``).

    Example:
        >>> import jax.numpy as jnp
        >>> opt = hint_gd(1.0, mode="jvp"); x = jnp.array([1.0, 1.0]); s = opt.init(x)
        >>> u, s = opt.update(x, s, x, value_fn=lambda z: 0.5 * jnp.sum(z**2),
        ...                   hint_basis=jnp.array([[1.0, 0.0]]))
        >>> (u + 0.0).tolist()
        [-1.0, 0.0]
    """
    _check_mode(mode)

    def update_fn(updates, state, params=None, **extra):
        del updates
        if params is None or extra.get("hint_basis") is None:
            raise ValueError("hint_gd needs params and the keyword extra hint_basis")
        f_flat, x, unravel, fx, base = _prepare(params, extra, mode)
        basis = _flat_basis(extra["hint_basis"], x, params)
        g = _dd_flat(f_flat, x, basis, mu, mode, fx) @ basis
        spent = base + basis.shape[0] * directional_evals(mode)
        return _finish(params, g, _lr(learning_rate, state.count), unravel, state, state.key, spent)

    return optax.GradientTransformationExtraArgs(_init("hint_gd", 0), update_fn)


def guided_es(learning_rate, alpha=0.5, sigma=1e-4, num_pairs: int = 1, *, mode: str = "central", seed=0):
    """Guided evolution strategies: antithetic Gaussian search in a hint-tilted covariance.

    .. math::
        \\varepsilon_i \\sim N\\Big(0, \\tfrac{\\alpha}{d} I + \\tfrac{1-\\alpha}{k} UU^\\top\\Big),
        \\quad g_t = \\frac1P\\sum_{i=1}^P \\varepsilon_i\\,
        \\frac{f(x + \\sigma\\varepsilon_i) - f(x - \\sigma\\varepsilon_i)}{2\\sigma},
        \\quad x_{t+1} = x_t - \\eta g_t .

    :math:`\\mathbb E g = \\Sigma\\nabla f` (a tilted, not an unbiased, gradient), and for
    Gaussian :math:`\\varepsilon` (trace :math:`\\Sigma = 1`)
    :math:`\\mathbb E\\lVert g\\rVert^2 \\le (1 + 2\\lambda_{\\max}(\\Sigma))\\,
    \\nabla f^\\top\\Sigma\\nabla f` at :math:`P = 1`, so
    :math:`\\eta = 1/(L(1 + 2\\lambda_{\\max}))` is the descent-lemma step. The
    estimator is Maheswaranathan et al.'s with :math:`\\beta/\\sigma^2` folded into
    :math:`\\eta`. Spends ``2 num_pairs`` evaluations per iteration in ``"central"``
    mode (``num_pairs`` in ``"jvp"`` mode).

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any
    shapes (flattened into one vector of size ``d``; ``None`` and size-0 leaves
    allowed) that ``value_fn`` takes. Complex params are refused: the estimator samples
    real directions. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: :math:`\\eta` (scalar or schedule).
        alpha: the weight of the isotropic part (0.5 in the paper's experiments); may be traced.
        sigma: the smoothing scale :math:`\\sigma` (the finite-difference step).
        num_pairs: antithetic pairs :math:`P` (static).
        mode: ``"central"`` (antithetic, default), ``"fd"`` or ``"jvp"``.
        seed: int seed or PRNG key.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` (extras ``value_fn``,
        ``hint_basis``, ``value``).

    Example:
        >>> import jax.numpy as jnp
        >>> opt = guided_es(0.1, mode="jvp"); x = jnp.ones(3); s = opt.init(x)
        >>> u, s = opt.update(x, s, x, value_fn=lambda z: jnp.sum(z**2),
        ...                   hint_basis=jnp.eye(3)[:1])
        >>> u.shape, int(s.n_evals)
        ((3,), 1)

    References:
        Maheswaranathan, Metz, Tucker, Choi & Sohl-Dickstein, *Guided evolutionary
        strategies*, ICML 2019.
    """
    _check_mode(mode)
    _check_count("num_pairs", num_pairs)

    def update_fn(updates, state, params=None, **extra):
        del updates
        if params is None or extra.get("hint_basis") is None:
            raise ValueError("guided_es needs params and the keyword extra hint_basis")
        f_flat, x, unravel, fx, base = _prepare(params, extra, mode)
        basis = _flat_basis(extra["hint_basis"], x, params)
        d, k = x.shape[0], basis.shape[0]
        key, sub = jax.random.split(state.key)
        k1, k2 = jax.random.split(sub)
        z1 = jax.random.normal(k1, (num_pairs, d), x.dtype)
        z2 = jax.random.normal(k2, (num_pairs, k), x.dtype)
        eps = jnp.sqrt(alpha / d) * z1 + jnp.sqrt((1 - alpha) / k) * (z2 @ basis)
        de = _dd_flat(f_flat, x, eps, sigma, mode, fx)
        g = (de @ eps) / num_pairs
        spent = base + num_pairs * directional_evals(mode)
        return _finish(params, g, _lr(learning_rate, state.count), unravel, state, key, spent)

    return optax.GradientTransformationExtraArgs(_init("guided_es", seed), update_fn)


def prgf(learning_rate, num_random: int = 1, mu=1e-4, *, mode: str = "fd", seed=0):
    """Prior-guided random gradient-free descent (PRGF): project on the hint plus random directions.

    The hint directions :math:`U` (the prior) and :math:`q` random directions,
    Gram–Schmidt-orthonormalised against :math:`U` and each other, form an orthonormal
    :math:`B`; the estimate is the gradient's projection on :math:`\\mathrm{span}\\,B`,

    .. math:: g_t = \\sum_{b\\in B} D_b f(x_t)\\, b,\\qquad x_{t+1} = x_t - \\eta g_t,

    biased, but :math:`\\langle\\nabla f, g\\rangle = \\lVert g\\rVert^2`, so
    :math:`\\eta = 1/L` decreases :math:`f` by :math:`\\lVert g\\rVert^2/(2L)`, with
    :math:`\\mathbb E\\lVert g\\rVert^2 = (\\alpha + q(1-\\alpha)/(d-k))\\lVert\\nabla
    f\\rVert^2` for a one-dimensional hint. Spends ``k + num_random`` directional
    derivatives per iteration (plus :math:`f(x_t)` in ``"fd"`` mode).

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays of any
    shapes (flattened into one vector of size ``d >= k + num_random``; ``None`` and
    size-0 leaves allowed) that ``value_fn`` takes. Complex params are refused: the
    estimator samples real directions. ``update`` ignores unknown keyword arguments.

    Args:
        learning_rate: :math:`\\eta` (scalar or schedule).
        num_random: :math:`q` (static).
        mu: finite-difference step.
        mode: ``"fd"``, ``"central"`` or ``"jvp"``.
        seed: int seed or PRNG key.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` (extras ``value_fn``,
        ``hint_basis``, ``value``).

    Example:
        >>> import jax.numpy as jnp
        >>> opt = prgf(1.0, mode="jvp"); x = jnp.array([1.0, 0.0]); s = opt.init(x)
        >>> u, s = opt.update(x, s, x, value_fn=lambda z: 0.5 * jnp.sum(z**2),
        ...                   hint_basis=jnp.array([[0.0, 1.0]]))
        >>> (u.round(5) + 0.0).tolist(), int(s.n_evals)      # span(hint, random) = R^2
        ([-1.0, 0.0], 2)

    References:
        Cheng, Dong, Pang, Su & Zhu, *On the convergence of prior-guided zeroth-order
        optimization algorithms*, NeurIPS 2021.
    """
    _check_mode(mode)
    _check_count("num_random", num_random)

    def check_size(d, k=1):
        if k + num_random > d:
            raise ValueError(
                f"prgf takes params with at least k + num_random = {k + num_random} entries in all "
                f"(the k hint directions and num_random random ones are orthonormal in R^d); got "
                f"d = {d}: lower num_random, or use zo_gd / cv_zod"
            )

    base_init = _init("prgf", seed)

    def init_fn(params):
        state = base_init(params)
        if jax.tree.leaves(params):  # (not map_params' placeholder)
            check_size(ravel_pytree(params)[0].shape[0])
        return state

    def update_fn(updates, state, params=None, **extra):
        del updates
        if params is None or extra.get("hint_basis") is None:
            raise ValueError("prgf needs params and the keyword extra hint_basis")
        f_flat, x, unravel, fx, base = _prepare(params, extra, mode)
        basis = _flat_basis(extra["hint_basis"], x, params)
        check_size(x.shape[0], basis.shape[0])
        key, sub = jax.random.split(state.key)
        z = jax.random.normal(sub, (num_random, x.shape[0]), x.dtype)
        rows = [basis]
        for j in range(num_random):  # Gram-Schmidt, twice for stability
            v = z[j]
            for _ in range(2):
                prev = jnp.concatenate(rows, axis=0)
                v = v - (prev @ v) @ prev
            rows.append((v / jnp.linalg.norm(v))[None])
        full = jnp.concatenate(rows, axis=0)
        g = _dd_flat(f_flat, x, full, mu, mode, fx) @ full
        spent = base + full.shape[0] * directional_evals(mode)
        return _finish(params, g, _lr(learning_rate, state.count), unravel, state, key, spent)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
