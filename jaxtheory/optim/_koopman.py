"""Koopman acceleration of training: strided exact DMD over parameters and optimizer state.

A reconstruction (the paper was not found, only its abstract): training is a dynamical
system :math:`s_{k+1} = \\Phi(s_k, \\text{batch}_k)` on the *augmented* state
:math:`s = [\\theta; \\text{optimizer state}]`. Every :math:`\\tau` backprop steps a
snapshot of :math:`s` is stored; every ``period`` steps an exact DMD (Schmid 2010;
Tu et al. 2014) of the last ``window`` snapshot pairs, :math:`s_{k+\\tau} \\approx K s_k`
(with a constant row for an affine drift), extrapolates up to ``max_jumps`` strides
ahead, and the jump is kept only if its loss on a held-out batch is no worse than the
last backprop iterate's (:func:`~jaxtheory.optim.accept_if_decrease`).

Functions: :func:`exact_dmd` (the fit), :func:`dmd_extrapolate` (powers of the fitted
operator applied to a state) and :func:`koopman_accelerate` (the optax wrapper).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._value import accept_if_decrease

__all__ = [
    "DMDFit",
    "KoopmanState",
    "exact_dmd",
    "dmd_extrapolate",
    "koopman_accelerate",
    "NONNEGATIVE_FIELDS",
]

#: Fields of optax states that hold second moments (nonnegative by construction); after a
#: jump they are clipped at 0 (Adam's ``nu``, RMSProp's ``nu``, Adadelta's ``e_g``/``e_x``).
NONNEGATIVE_FIELDS = ("nu", "e_g", "e_x", "sum_of_squares", "grad_sqr", "v")


class DMDFit(NamedTuple):
    """An exact DMD fit of :math:`Y \\approx A X` of rank :math:`r`.

    With the truncated SVD :math:`X = U_r S_r V_r^\\top`, the exact DMD operator is
    :math:`A = B U_r^\\top` with :math:`B = Y V_r S_r^{-1}`, and its projection
    :math:`\\tilde A = U_r^\\top B` (whose nonzero eigenvalues are :math:`A`'s).

    Attributes:
        basis: :math:`U_r`, shape ``(D, r)``.
        lifted: :math:`B = Y V_r S_r^{-1}`, shape ``(D, r)`` (columns of a discarded
            singular value are zero).
        operator: :math:`\\tilde A = U_r^\\top B`, shape ``(r, r)``.
        singular_values: :math:`S_r`, shape ``(r,)``.
    """

    basis: jax.Array
    lifted: jax.Array
    operator: jax.Array
    singular_values: jax.Array


def exact_dmd(X, Y, rank: int, *, rcond: float | None = None, method: str = "svd") -> DMDFit:
    """Exact dynamic mode decomposition of snapshot pairs ``Y[:, i] ≈ A X[:, i]``.

    .. math::
        X = U_r S_r V_r^\\top,\\qquad B = Y V_r S_r^{-1},\\qquad
        \\tilde A = U_r^\\top B,\\qquad A_{\\rm exact} = B U_r^\\top,

    the rank-:math:`r` least-squares (minimum-norm) operator :math:`Y X_r^+`. Singular
    values below ``rcond`` times the largest are discarded (their inverse is set to 0), as
    a pseudo-inverse does. No eigendecomposition of :math:`\\tilde A` is formed
    (``jnp.linalg.eig`` runs on CPU only); :func:`dmd_extrapolate` applies powers of
    :math:`A_{\\rm exact}` directly.

    ``method="gram"`` takes :math:`V_r, S_r` from ``eigh`` of the small Gram matrix
    :math:`X^\\top X` (and :math:`U_r = X V_r S_r^{-1}`) instead of an SVD of :math:`X`. It
    squares the condition number (the default ``rcond`` becomes :math:`\\sqrt{\\epsilon}`
    scaled), but it avoids a batched LAPACK SVD: on XLA:CPU (jaxlib 0.10, 2 cores) a
    ``jax.vmap``-ed program with ``jnp.linalg.svd`` inside ``lax.cond`` inside ``lax.scan``
    sometimes never finishes (every thread waits on a futex; 2 of 4 runs at 9 lanes here,
    0 of 4 with ``eigh``).

    Args:
        X: snapshots, shape ``(D, m)`` (one state per column).
        Y: their successors, shape ``(D, m)``.
        rank: the truncation rank :math:`r` (static; at most ``min(D, m)``).
        rcond: relative cut-off of singular values; default ``max(D, m)`` times the
            machine epsilon of the dtype (``"svd"``), or ``10 sqrt(eps)`` (``"gram"``).
        method: ``"svd"`` (default) or ``"gram"`` (static, see above).

    Returns:
        The :class:`DMDFit`.

    Example:
        >>> import jax.numpy as jnp
        >>> A = jnp.array([[0.9, 0.1], [0.0, 0.5]])
        >>> xs = [jnp.array([1.0, 1.0])]
        >>> for _ in range(4):
        ...     xs.append(A @ xs[-1])
        >>> S = jnp.stack(xs, axis=1)
        >>> fit = exact_dmd(S[:, :-1], S[:, 1:], rank=2)
        >>> bool(jnp.allclose(fit.lifted @ fit.basis.T, A, atol=1e-5))
        True
    """
    X = jnp.asarray(X)
    Y = jnp.asarray(Y)
    if X.ndim != 2 or X.shape != Y.shape:
        raise ValueError(f"X and Y must be matrices of one shape (D, m); got {X.shape} and {Y.shape}")
    if not isinstance(rank, int) or not 1 <= rank <= min(X.shape):
        raise ValueError(f"rank must be an int in [1, min(D, m) = {min(X.shape)}], got {rank!r}")
    if method not in ("svd", "gram"):
        raise ValueError(f"method must be 'svd' or 'gram', got {method!r}")
    eps = float(jnp.finfo(X.dtype).eps)
    if method == "svd":
        rcond = max(X.shape) * eps if rcond is None else rcond
        U, S, Vt = jnp.linalg.svd(X, full_matrices=False)
        U, S, V = U[:, :rank], S[:rank], Vt[:rank].T
        keep = S > rcond * S[0]
    else:
        rcond = 10 * eps**0.5 if rcond is None else rcond
        w, V = jnp.linalg.eigh(X.T @ X)
        S, V = jnp.sqrt(jnp.maximum(w[::-1][:rank], 0.0)), V[:, ::-1][:, :rank]
        keep = S > rcond * S[0]
        U = (X @ V) / jnp.where(keep, S, 1.0) * keep
    inv = jnp.where(keep, 1.0 / jnp.where(keep, S, 1.0), 0.0)
    B = (Y @ V) * inv
    return DMDFit(U, B, U.T @ B, jnp.where(keep, S, 0.0))


def dmd_extrapolate(fit: DMDFit, state, num_steps: int):
    """Powers of the exact DMD operator applied to a state: :math:`A^j s`, ``j = 1..num_steps``.

    .. math:: A^j s = B\\,\\tilde A^{\\,j-1} U_r^\\top s,

    computed by ``lax.scan`` on the :math:`r`-dimensional coordinates (no :math:`D \\times D`
    matrix is formed).

    Args:
        fit: an :class:`DMDFit` from :func:`exact_dmd`.
        state: the state :math:`s`, shape ``(D,)``.
        num_steps: the number of strides :math:`J` (static).

    Returns:
        Array of shape ``(num_steps, D)``: row ``j - 1`` is :math:`A^j s`.

    Example:
        >>> import jax.numpy as jnp
        >>> fit = exact_dmd(jnp.eye(2), 0.5 * jnp.eye(2), rank=2)
        >>> dmd_extrapolate(fit, jnp.array([1.0, 2.0]), 3)[-1]
        Array([0.125, 0.25 ], dtype=float32)
    """
    if not isinstance(num_steps, int) or num_steps < 1:
        raise ValueError(f"num_steps must be a positive int, got {num_steps!r}")
    z0 = fit.basis.T @ jnp.asarray(state)

    def step(z, _):
        return fit.operator @ z, fit.lifted @ z

    _, out = jax.lax.scan(step, z0, None, length=num_steps)
    return out


class KoopmanState(NamedTuple):
    """State of :func:`koopman_accelerate`.

    Attributes:
        count: backprop steps taken (an unbatched ``int32`` counter under ``jax.vmap``:
            it only ever increments, so the jump's ``lax.cond`` stays a branch).
        inner_state: the inner optimizer's state.
        snapshots: the last ``window + 1`` augmented states, oldest first, shape
            ``(window + 1, D)`` (parameters first, then the inner state's float leaves).
        n_evals: held-out loss evaluations spent (a sequential horizon search's count).
        n_jumps: accepted jumps.
        skipped: backprop steps skipped by accepted jumps (:math:`\\sum j^\\star\\tau`).
        value_backprop: held-out loss at the last backprop iterate of the last attempt.
        value: held-out loss of the state kept at the last attempt (never above
            ``value_backprop``).
        horizon: :math:`j^\\star` at the last attempt (0 when it was rejected).
        error_augmented: one-stride prediction error of the parameters at the last
            attempt, operator fitted on the augmented state (a backtest: fitted on the
            first ``window`` snapshots, predicting the last), relative to the last
            stride's displacement.
        error_params: the same with the operator fitted on the parameters only.
    """

    count: jax.Array
    inner_state: Any
    snapshots: jax.Array
    n_evals: jax.Array
    n_jumps: jax.Array
    skipped: jax.Array
    value_backprop: jax.Array
    value: jax.Array
    horizon: jax.Array
    error_augmented: jax.Array
    error_params: jax.Array


def _split(tree):
    leaves, treedef = jax.tree.flatten(tree)
    floats = [i for i, x in enumerate(leaves) if jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact)]
    return leaves, treedef, floats


def _compute_dtype(p_leaves):
    """The dtype of the snapshots and of the linear algebra: the parameters' dtype, at least
    float32 (LAPACK has no bfloat16/float16 SVD or eigh; float32 and float64 are kept)."""
    if not p_leaves:  # a placeholder tree (optax.tree.map_params): no leaf, no dtype
        return jnp.dtype(jnp.float32)
    dtype = jnp.result_type(*p_leaves)
    if not jnp.issubdtype(dtype, jnp.floating):
        raise ValueError(
            "koopman_accelerate takes real floating-point params (the DMD fit and the "
            f"held-out loss comparison are over the reals); got dtype {dtype}"
        )
    return jnp.promote_types(dtype, jnp.float32)


def _pack(params, inner_state):
    """The augmented state vector: parameters, then the inner state's float leaves."""
    p_leaves = jax.tree.leaves(params)
    s_leaves, _, floats = _split(inner_state)
    parts = [jnp.ravel(x) for x in p_leaves] + [jnp.ravel(s_leaves[i]) for i in floats]
    dtype = _compute_dtype(p_leaves)
    if not parts:
        return jnp.zeros((0,), dtype), 0
    return jnp.concatenate([p.astype(dtype) for p in parts]), sum(x.size for x in p_leaves)


def _block_ids(params, inner_state):
    """Block index of each entry of the packed state (see :func:`koopman_accelerate`'s ``block_scale``).

    Block 0 is the parameters; an inner-state float leaf whose key path ends with a
    parameter's key path belongs to the block of its path prefix (Adam's ``mu`` leaves
    form one block, its ``nu`` leaves another), any other float leaf is a block of its own.
    """
    p_paths = [p for p, _ in jax.tree_util.tree_flatten_with_path(params)[0]]
    p_sizes = [jnp.size(x) for x in jax.tree.leaves(params)]
    ids = [[0] * int(n) for n in p_sizes]
    blocks: dict = {}
    for path, x in jax.tree_util.tree_flatten_with_path(inner_state)[0]:
        if not jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact):
            continue
        suffix = max(
            (len(p) for p in p_paths if len(p) <= len(path) and path[len(path) - len(p) :] == p), default=0
        )
        key = path[: len(path) - suffix]
        ids.append([blocks.setdefault(key, len(blocks) + 1)] * int(jnp.size(x)))
    return [i for part in ids for i in part], len(blocks) + 1


def _unpack(vec, params, inner_state):
    """Inverse of :func:`_pack`: (params, inner_state) with the float leaves replaced."""
    p_leaves, p_def = jax.tree.flatten(params)
    s_leaves, s_def, floats = _split(inner_state)
    i = 0
    new_p = []
    for x in p_leaves:
        new_p.append(vec[i : i + x.size].reshape(x.shape).astype(x.dtype))
        i += x.size
    new_s = list(s_leaves)
    for k in floats:
        x = s_leaves[k]
        new_s[k] = vec[i : i + x.size].reshape(jnp.shape(x)).astype(x.dtype)
        i += x.size
    return jax.tree.unflatten(p_def, new_p), jax.tree.unflatten(s_def, new_s)


def _post_process(state, steps):
    """Clip second-moment fields at 0 and advance ``count`` fields by ``steps``."""
    if isinstance(state, tuple) and hasattr(state, "_fields"):
        fields = {}
        for name in state._fields:
            v = getattr(state, name)
            if name == "count" and jnp.issubdtype(jnp.asarray(v).dtype, jnp.integer):
                v = v + jnp.asarray(steps, jnp.asarray(v).dtype)
            elif name in NONNEGATIVE_FIELDS:
                v = jax.tree.map(lambda a: jnp.maximum(a, 0), v)
            else:
                v = _post_process(v, steps)
            fields[name] = v
        return type(state)(**fields)
    if isinstance(state, (tuple, list)):
        return type(state)(_post_process(s, steps) for s in state)
    if isinstance(state, dict):
        return {k: _post_process(v, steps) for k, v in state.items()}
    return state


def _fresh(x):
    """A copy of an array leaf (a buffer of its own); other leaves unchanged."""
    return jnp.array(x, copy=True) if isinstance(x, (jax.Array, np.ndarray)) else x


def _lift(S, affine):
    """Rows are states; append a column of ones for an affine drift."""
    if not affine:
        return S
    return jnp.concatenate([S, jnp.ones((S.shape[0], 1), S.dtype)], axis=1)


def _block_scale(S, ids, n_blocks):
    """Per entry: the root mean square of its block's deviation from the block's mean over
    the snapshots ``S`` (its motion in the window; 1 for a block that does not move)."""
    dev = S - jnp.mean(S, axis=0, keepdims=True)
    sq = jax.ops.segment_sum(jnp.sum(jnp.square(dev), axis=0), ids, num_segments=n_blocks)
    count = jax.ops.segment_sum(jnp.full(ids.shape, S.shape[0], S.dtype), ids, num_segments=n_blocks)
    rms = jnp.sqrt(sq / count)
    tiny = jnp.finfo(S.dtype).tiny
    return jnp.where(rms > tiny, rms, 1.0)[ids]


def _backtest(S, mask, rank, affine, n_theta, method, scaler):
    """Fit on all snapshots but the last, predict the last one stride ahead (parameters).

    The block scales (``scaler``) are taken from the fitted snapshots only."""
    scale = scaler(S[:-1])
    L = _lift(S * mask / scale, affine)
    fit = exact_dmd(L[:-2].T, L[1:-1].T, min(rank, L.shape[0] - 2, L.shape[1]), method=method)
    pred = dmd_extrapolate(fit, L[-2], 1)[0][:n_theta] * scale[:n_theta]
    true, prev = S[-1, :n_theta], S[-2, :n_theta]
    return jnp.linalg.norm(pred - true) / jnp.linalg.norm(true - prev)


def koopman_accelerate(
    inner: optax.GradientTransformation,
    tau,
    window: int,
    rank: int,
    max_jumps: int,
    augment=True,
    affine: bool = True,
    *,
    period: int | None = None,
    enabled=True,
    dmd_method: str = "gram",
    block_scale: bool = False,
) -> optax.GradientTransformationExtraArgs:
    """Safeguarded Koopman (exact DMD) extrapolation of training, every ``period`` steps.

    Every step runs ``inner``; every :math:`\\tau` steps the augmented state
    :math:`s = [\\theta; \\text{inner float state}]` is stored (the last ``window + 1``
    are kept). At steps that are multiples of ``period`` (the default
    ``window * tau``), with :math:`X = [s_0 \\dots s_{w-1}]`, :math:`Y = [s_1 \\dots s_w]`
    (a row of ones appended when ``affine``) and :math:`A` their rank-``rank`` exact
    DMD operator (:func:`exact_dmd`):

    .. math::
        \\hat s_j = A^j s_w,\\quad L_j = f_{\\rm val}(\\hat\\theta_j),\\quad
        j^\\star = \\max\\{j \\le J : L_0 \\ge L_1 \\ge \\dots \\ge L_j\\},

    (the search stops at the first increase; :math:`L_0` is the held-out loss of the
    last backprop iterate), and :math:`\\hat s_{j^\\star}` replaces the state iff
    :math:`L_{j^\\star} \\le L_0` (:func:`~jaxtheory.optim.accept_if_decrease`) and
    :math:`j^\\star \\ge 1`. After an accepted jump the second-moment fields of the
    inner state (:data:`NONNEGATIVE_FIELDS`, e.g. Adam's :math:`\\nu`) are clipped at 0
    and its ``count`` fields (bias correction, schedules) advance by :math:`j^\\star\\tau`.
    With ``augment`` false the operator is fitted on the parameters only and the inner
    state is kept as the last backprop left it (its counters still advance).

    The jump runs under ``lax.cond`` on the wrapper's own step counter, which only ever
    increments: under ``jax.vmap`` over lanes it stays unbatched, so the SVD runs only at
    attempts. ``tau``, ``augment`` and ``enabled`` may be traced (vmapped) when
    ``period`` is given; ``period`` must then be a multiple of every :math:`\\tau` used
    and at least ``window`` :math:`\\tau` (the snapshots are then aligned with the
    attempts and all postdate the previous jump).

    Each attempt also records a *backtest* of one stride (fit on the first ``window``
    snapshots, predict the last), for the augmented and the parameters-only operator,
    relative to the last stride's displacement: ``error_augmented`` and ``error_params``.

    With ``block_scale`` each block of the stacked state (the parameters; each inner-state
    tree that mirrors them, e.g. Adam's :math:`m` and :math:`\\nu`; any other float leaf)
    is divided by the root mean square of its motion over the fitted snapshots (its
    deviation from its mean over the window) before the DMD, and the prediction
    multiplied back: a diagonal change of coordinates. On the raw state the least-squares
    fit weighs the blocks by their size (Adam's moments are orders of magnitude smaller
    than the parameters and barely enter the fit); scaled, each block's motion weighs
    alike. (Scaling by the blocks' raw size instead lets the parameters' values, not their
    motion, set their weight, and the moments' minibatch fluctuations then swamp the
    parameters' motion.) The backtests use the same scaling.

    **Params.** Any pytree of real floating-point arrays (any shapes; float32, float64,
    bfloat16 or float16). The snapshots, the DMD and the held-out loss values are kept in
    the parameters' dtype promoted to at least float32 (LAPACK has no half-precision SVD
    or eigh), and the jumped parameters and inner state are cast back to their own dtypes.
    Complex or integer parameters are refused with a ``ValueError`` (the fit and the
    safeguard's loss comparison are over the reals). ``init`` needs only the tree's
    shapes and dtypes (it runs under :func:`jax.eval_shape` and on
    :func:`optax.tree.map_params`'s placeholder), and every state field is a buffer of its
    own, so a jitted step may donate the state and the parameters. Keyword arguments of
    ``update`` other than ``value_fn`` are passed to ``inner`` (which ignores those it
    does not take).

    Args:
        inner: the optimizer to accelerate (Adam, SGD with momentum, Adadelta...).
        tau: the snapshot stride :math:`\\tau` (an int, or a traced integer with ``period``).
        window: the number of snapshot pairs :math:`w` (static).
        rank: the DMD truncation rank (static, at most ``window``).
        max_jumps: the horizon cap :math:`J` in strides (static).
        augment: fit on parameters and optimizer state (``True``) or parameters only;
            a bool or a traced 0/1 scalar.
        affine: append a constant row (an affine drift; static).
        period: steps between attempts (static); default ``window * tau``.
        enabled: ``False`` (or a traced 0) never accepts a jump: the trajectory is the
            inner optimizer's, with the attempts' diagnostics still recorded.
        dmd_method: :func:`exact_dmd`'s ``method``; ``"gram"`` by default, since a
            vmapped LAPACK SVD inside the training loop can hang XLA:CPU (see there).
        block_scale: fit the DMD on the state with each block scaled to unit root mean
            square (see above; static). ``False`` (default) fits the raw stacked state.

    Returns:
        An :class:`optax.GradientTransformationExtraArgs` with state
        :class:`KoopmanState`; ``update`` requires the keyword extra ``value_fn`` (the
        held-out loss of a parameter pytree).

    Example:
        >>> import jax, jax.numpy as jnp, optax
        >>> H = jnp.diag(jnp.array([1.0, 0.1]))
        >>> f = lambda x: 0.5 * x @ H @ x
        >>> opt = koopman_accelerate(optax.sgd(0.1, momentum=0.9), tau=2, window=6, rank=5, max_jumps=20)
        >>> x = jnp.array([1.0, 1.0]); state = opt.init(x)
        >>> for _ in range(12):
        ...     u, state = opt.update(jax.grad(f)(x), state, x, value_fn=f)
        ...     x = optax.apply_updates(x, u)
        >>> int(state.n_jumps), bool(state.value <= state.value_backprop)
        (1, True)

    References:
        Schmid, *Dynamic mode decomposition of numerical and experimental data*, JFM 2010;
        Tu et al., *On dynamic mode decomposition: theory and applications*, 2014;
        Dogra & Redman, *Optimizing neural networks via Koopman operator theory*,
        NeurIPS 2020; Tano, Portwood & Ragusa, arXiv:2006.14371.
    """
    if not isinstance(window, int) or window < 2:
        raise ValueError(f"window must be an int >= 2, got {window!r}")
    if not isinstance(rank, int) or not 1 <= rank <= window:
        raise ValueError(f"rank must be an int in [1, window = {window}], got {rank!r}")
    if not isinstance(max_jumps, int) or max_jumps < 1:
        raise ValueError(f"max_jumps must be a positive int, got {max_jumps!r}")
    concrete_tau = isinstance(tau, int) and not isinstance(tau, bool)
    if concrete_tau and tau < 1:
        raise ValueError(f"tau must be a positive int, got {tau!r}")
    if period is None:
        if not concrete_tau:
            raise ValueError("a traced tau needs a static period (a multiple of every tau >= window * tau)")
        period = window * tau
    if not isinstance(period, int) or period < 1:
        raise ValueError(f"period must be a positive int, got {period!r}")
    if concrete_tau and (period % tau or period < window * tau):
        raise ValueError(f"period = {period} must be a multiple of tau = {tau} and >= window * tau")
    inner = optax.with_extra_args_support(inner)

    def init_fn(params):
        inner_state = inner.init(params)
        s, _ = _pack(params, inner_state)
        # Every field a buffer of its own (no field shares an array with another or with
        # ``params``), so that a jitted step may donate the state and the parameters.
        inner_state = jax.tree.map(_fresh, inner_state)
        z = lambda: jnp.zeros((), s.dtype)  # noqa: E731
        i = lambda: jnp.zeros((), jnp.int32)  # noqa: E731
        snaps = jnp.tile(s[None], (window + 1, 1))
        return KoopmanState(i(), inner_state, snaps, i(), i(), i(), z(), z(), i(), z(), z())

    def update_fn(updates, state, params=None, *, value_fn=None, **extra):
        if params is None or value_fn is None:
            raise ValueError("koopman_accelerate needs params and the keyword extra value_fn (held-out loss)")
        u, inner_state = inner.update(updates, state.inner_state, params, **extra)
        theta = optax.apply_updates(params, u)
        count = state.count + 1
        t = jnp.asarray(tau, jnp.int32)
        s, n_theta = _pack(theta, inner_state)
        shifted = jnp.concatenate([state.snapshots[1:], s[None]], axis=0)
        snaps = jnp.where(count % t == 0, shifted, state.snapshots)
        dtype = s.dtype
        aug = jnp.asarray(augment, dtype)
        mask = jnp.concatenate([jnp.ones((n_theta,), dtype), jnp.full((s.size - n_theta,), aug)])
        if block_scale:
            ids, n_blocks = _block_ids(theta, inner_state)
            ids = jnp.asarray(ids, jnp.int32)
            scaler = lambda S: _block_scale(S, ids, n_blocks)  # noqa: E731
        else:
            scaler = lambda S: jnp.ones(S.shape[1], S.dtype)  # noqa: E731

        def attempt(_):
            scale = scaler(snaps)
            L = _lift(snaps * mask / scale, affine)
            fit = exact_dmd(L[:-1].T, L[1:].T, rank, method=dmd_method)
            preds = dmd_extrapolate(fit, L[-1], max_jumps)[:, : s.size] * scale
            cand = jnp.concatenate([s[None], preds], axis=0)  # row 0: the backprop iterate

            def loss_of(vec):
                th, _ = _unpack(vec, theta, inner_state)
                return value_fn(th)

            values = jax.lax.map(loss_of, cand).astype(dtype)
            ok = jnp.cumprod((values[1:] <= values[:-1]).astype(jnp.int32))
            j = jnp.sum(ok, dtype=jnp.int32)  # the first increase (or NaN) ends the search
            spent = 1 + jnp.minimum(j + 1, max_jumps)
            chosen = jnp.where(mask > 0, cand[j], s)
            v_cand = jnp.where(jnp.asarray(enabled, bool) & (j > 0), values[j], jnp.inf)
            vec, value, accepted = accept_if_decrease(chosen, s, v_cand, values[0])
            new_theta, new_inner = _unpack(vec, theta, inner_state)
            jump = jnp.where(accepted, j, 0)
            new_inner = _post_process(new_inner, jump * t)
            upd = jax.tree.map(lambda a, b, c: jnp.where(accepted, a - b, c), new_theta, params, u)
            new_snaps = snaps.at[-1].set(vec)
            e_aug = _backtest(snaps, jnp.ones_like(mask), rank, affine, n_theta, dmd_method, scaler)
            e_par = _backtest(snaps, mask.at[n_theta:].set(0), rank, affine, n_theta, dmd_method, scaler)
            return (
                upd,
                new_inner,
                new_snaps,
                state.n_evals + spent,
                state.n_jumps + accepted.astype(jnp.int32),
                state.skipped + jump * t,
                values[0],
                value,
                jump,
                e_aug.astype(dtype),
                e_par.astype(dtype),
            )

        def keep(_):
            return (
                u,
                inner_state,
                snaps,
                state.n_evals,
                state.n_jumps,
                state.skipped,
                state.value_backprop,
                state.value,
                state.horizon,
                state.error_augmented,
                state.error_params,
            )

        out = jax.lax.cond(count % period == 0, attempt, keep, None)
        return out[0], KoopmanState(count, out[1], *out[2:])

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)
