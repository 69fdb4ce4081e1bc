"""Schatten-p adaptive geometry (SMuon): per-layer steepest descent between SGD and Muon.

For a matrix update :math:`M = U\\Sigma V^\\top` the Schatten-p direction is
:math:`O_p(M) = U\\Sigma^{1/p}V^\\top`: :math:`p = 1` is the (normalized) gradient
direction, :math:`p\\to\\infty` the polar factor (Muon). It is the steepest-descent
direction for the Schatten-:math:`(p+1)` norm. The exponent :math:`p` of each layer
is chosen from a one-step random-feature surrogate (Davis & Drusvyatskiy, arXiv
2512.04299), maximising

.. math::
  J(p) = \\frac{\\|G\\|_{S_{1+1/p}}}{\\|A\\|_{S_{k(p)}}},\\qquad k(p) = \\frac{2(p+1)}{p-1},

where :math:`A` are the layer's input activations. With a diagonal second-moment
preconditioner :math:`D` the family also interpolates between Adam and Muon
(parametric moment) or Adam and MuAdam (fixed :math:`-1/4` moment).

Update rules follow the authors' code (github.com/deel-ai-papers/schatten-muon,
commit 749ba8d), as we read it.

Layout convention: a matrix parameter ``W`` has shape ``(fan_in, fan_out)`` and the
layer computes ``x @ W`` (flax ``Dense``); activations are ``(samples, fan_in)``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params
from jaxtheory.optim._lmo import _svd_input

__all__ = [
    "schatten_direction",
    "schatten_log_criterion",
    "schatten_log_criterion_momentum",
    "schatten_p_grid",
    "SchattenState",
    "scale_by_schatten_p",
    "schatten_p",
    "muadam",
]


def _t(x):
    return jnp.swapaxes(x, -1, -2)


def _eval(v, count):
    return v(count) if callable(v) else v


def _stat_dtype(x):
    return jnp.promote_types(jnp.asarray(x).dtype, jnp.float32)


def schatten_direction(g: jax.Array, p, p_max=None, *, rtol: float | None = None) -> jax.Array:
    r"""Schatten-p direction :math:`U\Sigma^{1/p}V^\top` by an exact SVD.

    .. math::
      O_p(G) = U\,\Sigma^{1/p}\,V^\top,\qquad O_1(G) = G,\qquad O_\infty(G) = UV^\top .

    As in the authors' code, :math:`p = 1` returns ``g`` itself, and with ``p_max``
    given, :math:`1/p \le 1.01/p_{\max}` snaps to the exact polar factor (Muon).
    Singular values below ``rtol``·:math:`\sigma_{\max}` are treated as zero.
    ``p`` may be traced (and may be ``inf``).

    Args:
      g: matrix ``(..., m, n)``.
      p: exponent :math:`p \ge 1` (scalar, may be traced).
      p_max: optional snapping threshold (may be traced).
      rtol: relative rank tolerance (default machine epsilon × max(m, n)).

    Returns:
      :math:`O_p(g)`, same shape and dtype.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import schatten_direction
      >>> print(schatten_direction(jnp.diag(jnp.array([4.0, 1.0])), 2.0))
      [[2. 0.]
       [0. 1.]]

    References:
      Massena, Friedrich & Serrurier, *From SGD to Muon: Adaptive Optimization via
      Schatten-p Norms*, arXiv 2605.19781.
    """
    m, n = g.shape[-2:]
    g0 = g
    g = _svd_input(g)
    if rtol is None:
        rtol = float(jnp.finfo(g.dtype).eps) * max(m, n)
    p = jnp.asarray(p, dtype=g.dtype)
    inv_p = 1.0 / p
    u, s, vt = jnp.linalg.svd(g, full_matrices=False)
    keep = s > rtol * s[..., :1]
    logs = jnp.log(jnp.where(keep, s, 1.0))
    sp = jnp.where(keep, jnp.exp(logs * inv_p), 0.0)
    if p_max is not None:
        sp = jnp.where(inv_p <= 1.01 / p_max, keep.astype(g.dtype), sp)
    out = (u * sp[..., None, :]) @ vt
    return jnp.where(p == 1, g, out).astype(g0.dtype)


def _log_schatten(logs, inv_q):
    """log of the Schatten-q norm from log singular values, with 1/q in [0, 1]; 1/q = 0 is max."""
    mx = jnp.max(logs, axis=-1)
    safe = jnp.where(inv_q > 0, inv_q, 1.0)
    lse = jnp.log(jnp.sum(jnp.exp((logs - mx[..., None]) / safe[..., None]), axis=-1))
    return jnp.where(inv_q > 0, mx + safe * lse, mx)


def _logsv(s):
    tiny = jnp.finfo(s.dtype).tiny
    return jnp.log(jnp.maximum(s, tiny))


def schatten_log_criterion(sigma_g: jax.Array, sigma_a: jax.Array, p) -> jax.Array:
    r"""Log of the one-step surrogate criterion :math:`J(p)` from singular values.

    .. math::
      \log J(p) = \log\|G\|_{S_{1+1/p}} - \log\|A\|_{S_{k(p)}},\qquad
      \frac{1}{k(p)} = \frac{1 - 1/p}{2(1 + 1/p)},

    computed with log-sum-exp so that large Schatten indices do not overflow;
    :math:`p = 1` gives :math:`\|G\|_F/\|A\|_{op}` and :math:`p = \infty` gives
    :math:`\|G\|_*/\|A\|_F` exactly.

    Args:
      sigma_g: singular values of the gradient, shape ``(r,)``.
      sigma_a: singular values of the activations, shape ``(s,)``.
      p: exponent(s), any shape (broadcast); may be traced, may be ``inf``.

    Returns:
      :math:`\log J(p)` with the shape of ``p``.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import schatten_log_criterion
      >>> sg, sa = jnp.array([3.0, 4.0]), jnp.array([2.0, 1.0])
      >>> print(jnp.round(jnp.exp(schatten_log_criterion(sg, sa, jnp.array([1.0, jnp.inf]))), 3))
      [2.5  3.13]

    References:
      Massena et al., arXiv 2605.19781; Davis & Drusvyatskiy, arXiv 2512.04299.
    """
    p = jnp.asarray(p, dtype=sigma_g.dtype)
    u = 1.0 / p
    lg = _logsv(sigma_g)
    la = _logsv(sigma_a)
    shape = p.shape
    u = u.reshape(-1)
    log_g = jax.vmap(lambda ui: _log_schatten(lg, 1.0 / (1.0 + ui)))(u)
    log_a = jax.vmap(lambda ui: _log_schatten(la, (1.0 - ui) / (2.0 * (1.0 + ui))))(u)
    return (log_g - log_a).reshape(shape)


def schatten_log_criterion_momentum(align: jax.Array, sigma_m: jax.Array, sigma_a: jax.Array, p) -> jax.Array:
    r"""Log of the momentum-aligned criterion ("exact_momentum" in the authors' code).

    .. math::
      f(p) = \frac{\big(\sum_i C_i\sigma_i^{1/p}\big)^2}
                  {\|A\|_{S_{k(p)}}^2\,\big(\sum_i \sigma_i^{(p+1)/p}\big)^{2/(p+1)}}
           = \frac{\langle G, O_p(M)\rangle^2}{\|O_p(M)\|_{S_{p+1}}^2\,\|A\|_{S_k}^2},

    with :math:`M = U\Sigma V^\top` the update direction, :math:`C_i = u_i^\top G v_i`
    the alignment of the fresh gradient with its singular pairs.

    Args:
      align: :math:`C_i`, shape ``(r,)``.
      sigma_m: singular values of the update direction, ``(r,)``.
      sigma_a: singular values of the activations.
      p: exponent(s), any shape; may be traced.

    Returns:
      :math:`\log f(p)` with the shape of ``p``.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import schatten_log_criterion_momentum
      >>> c, s, sa = jnp.array([1.0, 1.0]), jnp.array([1.0, 1.0]), jnp.array([1.0, 1.0])
      >>> print(jnp.round(jnp.exp(schatten_log_criterion_momentum(c, s, sa, 3.0)), 4))
      2.0

    References:
      Massena et al., arXiv 2605.19781.
    """
    p = jnp.asarray(p, dtype=sigma_m.dtype)
    shape = p.shape
    u = (1.0 / p).reshape(-1)
    lm = _logsv(sigma_m)
    la = _logsv(sigma_a)
    mx = jnp.max(lm)
    keep = sigma_m > float(jnp.finfo(sigma_m.dtype).eps) * sigma_m.shape[-1] * jnp.max(sigma_m)

    def one(ui):
        num = jnp.sum(jnp.where(keep, align * jnp.exp((lm - mx) * ui), 0.0))  # N / sigma_max^{1/p}
        log_num = 2.0 * (jnp.log(jnp.abs(num) + jnp.finfo(lm.dtype).tiny) + ui * mx)
        # (sum sigma^{1+1/p})^{2/(p+1)} = ||sigma||_{1+1/p}^{2/p}... in logs:
        q = 1.0 + ui
        log_sp = _log_schatten(lm, 1.0 / q)  # log ||sigma||_q
        log_den_m = 2.0 * ui * log_sp  # (sum sigma^q)^{2/(p+1)} = ||sigma||_q^{2q/(p+1)} = ^{2/p}
        log_a = _log_schatten(la, (1.0 - ui) / (2.0 * (1.0 + ui)))
        return log_num - log_den_m - 2.0 * log_a

    return jax.vmap(one)(u).reshape(shape)


def schatten_p_grid(p_min=1.02, p_max=10.0, n_grid: int = 64) -> jax.Array:
    r"""Log-spaced grid of :math:`p` on :math:`[p_{\min}, p_{\max}]` (jit-friendly argmax search).

    Args:
      p_min: lower end (may be traced).
      p_max: upper end (may be traced).
      n_grid: number of points (Python int).

    Returns:
      Array ``(n_grid,)``.

    Example:
      >>> from jaxtheory.optim import schatten_p_grid
      >>> print([round(float(v), 3) for v in schatten_p_grid(1.0, 100.0, 3)])
      [1.0, 10.0, 100.0]

    References:
      Massena et al., arXiv 2605.19781.
    """
    return jnp.exp(
        jnp.linspace(
            jnp.log(jnp.asarray(p_min, jnp.float32)), jnp.log(jnp.asarray(p_max, jnp.float32)), n_grid
        )
    )


class SchattenState(NamedTuple):
    """State of :func:`scale_by_schatten_p` (per matrix leaf unless noted).

    Attributes:
      count: step count (scalar).
      mu: first moment :math:`b`.
      nu: second moment :math:`v` (scalar zeros when ``moment='none'``).
      p: current exponent (scalar per leaf).
      stat_g: EMA of gradient statistics used by the criterion (singular values of
        :math:`G` for ``'exact'``; alignments :math:`C_i` for ``'exact_momentum'``);
        float32, or float64 for float64 params.
      stat_a: EMA of the activations' singular values (same dtype).
    """

    count: jax.Array
    mu: optax.Updates
    nu: optax.Updates
    p: optax.Updates
    stat_g: optax.Updates
    stat_a: optax.Updates


_MOMENTS = ("none", "adam", "padam")
_METHODS = (None, "exact", "exact_momentum")


def scale_by_schatten_p(
    beta1: optax.ScalarOrSchedule = 0.95,
    beta2: float | jax.Array = 0.999,
    eps: float | jax.Array = 1e-8,
    *,
    nesterov: bool = True,
    moment: str = "none",
    p_init=None,
    p_min: float | jax.Array = 1.02,
    p_max: float | jax.Array = 10.0,
    pin: bool = True,
    kappa_scale: optax.ScalarOrSchedule | None = None,
    p_method: str | None = None,
    interval: int = 10,
    sv_momentum: float | jax.Array = 0.9,
    n_grid: int = 64,
    polar_snap: bool = True,
) -> optax.GradientTransformationExtraArgs:
    r"""SMuon direction: Schatten-p map of (preconditioned) Nesterov momentum, per-layer p.

  For each matrix leaf (shape ``(m, n)``), with :math:`t` the step:

  .. math::
    b &\leftarrow \beta_1 b + (1-\beta_1)g,\quad \hat b = b/(1-\beta_1^t),\quad
    N = \beta_1\hat b + (1-\beta_1)g\ \ (\text{else } \hat b),\\
    v &\leftarrow \beta_2 v + (1-\beta_2)g^2,\quad D = (v/(1-\beta_2^t) + \varepsilon)^{e},
    \quad e = -\tfrac{1}{2(p+1)}\ (\texttt{padam}),\ -\tfrac14\ (\texttt{adam}),\\
    O &= D\odot O_p(D\odot N)\quad(D = 1 \text{ for } \texttt{none}),\qquad
    O \leftarrow O\,\frac{\sqrt{\min(m,n)}\,\kappa^{1/p}}{\|O\|_F + 10^{-8}}\ \ (\text{pin}),

  with :math:`\kappa = \texttt{kappa\_scale}\cdot\sqrt{\max(m,n)}` (:math:`\kappa = 1`
  if ``kappa_scale`` is None). Endpoints: ``none`` gives the normalized Nesterov SGD
  direction at :math:`p=1` and Muon at :math:`p=\infty`; ``padam`` gives Adam
  (:math:`N/\sqrt{\hat v+\varepsilon}`) at :math:`p=1` and Muon at :math:`p=\infty`;
  ``adam`` gives Adam at :math:`p=1` and MuAdam :math:`D\odot\operatorname{polar}(D\odot N)` at
  :math:`p=\infty`.

  **Choice of p** (``p_method`` not None): every ``interval`` steps (at steps
  0, K, 2K, ...) and when ``update`` receives ``activations=`` (a pytree with the
  params' structure, leaves of shape ``(samples, m)``), :math:`p` is set to the
  argmax over :func:`schatten_p_grid` of :func:`schatten_log_criterion`
  (``'exact'``: singular values of the fresh gradient and of the activations) or
  :func:`schatten_log_criterion_momentum` (``'exact_momentum'``, the authors' default:
  singular pairs of the expected Nesterov update
  :math:`M = \operatorname{lerp}(\operatorname{lerp}(b_{t-1}/(1-\beta_1^t), g, 1-\beta_1), g, 1-\beta_1)`
  built from the momentum *before* this step and the raw gradient, as in their
  ``svs/momentum_exact.py``, and alignments :math:`C_i = u_i^\top g v_i` of the fresh
  gradient), with the gradient statistics (:math:`\sigma(G)` or :math:`C`) and the
  activations' singular values averaged by an EMA of rate ``sv_momentum`` (the
  singular values of :math:`M` are used as they are). The selection runs
  under :func:`jax.lax.cond` (with a batched step count, e.g. vmapped lanes, both
  branches run).

  The output is an ascent direction: follow it by
  :func:`optax.scale_by_learning_rate`.

  **Params.** 2-D leaves only (matrices ``(fan_in, fan_out)``; route others with
  :func:`optax.partition`, as :func:`schatten_p` does), float16, bfloat16 (computed in
  float32), float32 or float64; ``None`` leaves and size-0 matrices are allowed.
  Complex params and leaves of another rank are refused at ``init`` with a
  ``ValueError``. A building block: ``update`` takes the keyword ``activations`` and
  ignores other keyword arguments.

  Args:
    beta1: momentum :math:`\beta_1` (may be traced or a schedule).
    beta2: second-moment decay (may be traced).
    eps: second-moment epsilon (may be traced).
    nesterov: Nesterov look-ahead.
    moment: ``'none'``, ``'adam'`` (fixed :math:`-1/4`) or ``'padam'`` (parametric).
    p_init: initial :math:`p` (default ``p_max``; may be traced, may be ``inf``).
    p_min: smallest :math:`p` of the search grid (may be traced).
    p_max: largest :math:`p`; also the snapping threshold to the exact polar factor.
    pin: fix the Frobenius norm of the step (κ-pinning).
    kappa_scale: :math:`\kappa/\sqrt{\max(m,n)}` (scalar or schedule); None means κ = 1.
    p_method: None (fixed p), ``'exact'`` or ``'exact_momentum'``.
    interval: selection period K (Python int).
    sv_momentum: EMA rate of the criterion statistics (may be traced).
    n_grid: grid size of the p search.
    polar_snap: snap :math:`p \ge 0.99\,p_{\max}` to the exact polar factor.

  Returns:
    An :class:`optax.GradientTransformationExtraArgs` with state :class:`SchattenState`.

  Example:
    >>> import jax.numpy as jnp
    >>> from jaxtheory.optim import scale_by_schatten_p
    >>> tx = scale_by_schatten_p(beta1=0.0, p_init=1.0)
    >>> w = jnp.zeros((2, 2))
    >>> u, s = tx.update(jnp.array([[3.0, 0.0], [0.0, 4.0]]), tx.init(w))
    >>> print([round(float(v), 4) for v in u.ravel()])   # p = 1: gradient direction, norm sqrt(2)
    [0.8485, 0.0, 0.0, 1.1314]

  References:
    Massena, Friedrich & Serrurier, arXiv 2605.19781; Davis & Drusvyatskiy,
    arXiv 2512.04299; Veprikov et al., arXiv 2510.10777 (MuAdam).
  """
    if moment not in _MOMENTS:
        raise ValueError(f"unknown moment {moment!r}; use one of {_MOMENTS}")
    if p_method not in _METHODS:
        raise ValueError(f"unknown p_method {p_method!r}; use one of {_METHODS}")

    def init_fn(params):
        check_float_params(params, "scale_by_schatten_p")
        for leaf in jax.tree.leaves(params):
            if jnp.ndim(leaf) != 2:
                raise ValueError(
                    "scale_by_schatten_p needs 2-D leaves; route others with optax.partition "
                    f"(or use schatten_p), got shape {jnp.shape(leaf)}"
                )
        p0 = p_max if p_init is None else p_init
        mu = optax.tree.zeros_like(params)
        if moment == "none":
            nu = jax.tree.map(lambda x: jnp.zeros([], x.dtype), params)
        else:
            nu = jax.tree.map(lambda x: jnp.zeros(x.shape, jnp.float32), params)
        pst = jax.tree.map(lambda x: jnp.asarray(p0, jnp.float32), params)
        if p_method is None:
            sg = jax.tree.map(lambda x: jnp.zeros([], jnp.float32), params)
            sa = jax.tree.map(lambda x: jnp.zeros([], jnp.float32), params)
        else:
            # criterion statistics in float32 at least (float64 for float64 params)
            sg = jax.tree.map(lambda x: jnp.zeros([min(x.shape)], _stat_dtype(x)), params)
            sa = jax.tree.map(lambda x: jnp.zeros([x.shape[0]], _stat_dtype(x)), params)  # fan_in
        return SchattenState(jnp.zeros([], jnp.int32), mu, nu, pst, sg, sa)

    def update_fn(updates, state, params=None, *, activations=None, **extra):
        del params, extra
        count = state.count
        t = optax.safe_increment(count)
        b1 = _eval(beta1, count)
        ks = None if kappa_scale is None else _eval(kappa_scale, count)

        mu = jax.tree.map(lambda g, b: b1 * b + (1 - b1) * g.astype(b.dtype), updates, state.mu)
        c1 = 1 - b1**t
        if nesterov:
            nd = jax.tree.map(lambda b, g: b1 * (b / c1) + (1 - b1) * g.astype(b.dtype), mu, updates)
        else:
            nd = jax.tree.map(lambda b: b / c1, mu)

        if moment == "none":
            nu = state.nu
            d_fn = None
        else:
            nu = jax.tree.map(
                lambda g, v: beta2 * v + (1 - beta2) * jnp.square(g.astype(jnp.float32)), updates, state.nu
            )
            c2 = 1 - beta2**t
            d_fn = jax.tree.map(lambda v: v / c2 + eps, nu)  # D = d_fn ** e, e depends on p

        def exponent(p):
            if moment == "padam":
                return -1.0 / (2.0 * (p + 1.0))
            return -0.25

        def mapped_in(n, vhat, p):
            if moment == "none":
                return n, None
            dmat = (vhat ** exponent(p)).astype(n.dtype)
            return dmat * n, dmat

        # --- choice of p ---------------------------------------------------------------------
        pst, sg, sa = state.p, state.stat_g, state.stat_a
        if p_method is not None and activations is not None:
            grid = schatten_p_grid(p_min, p_max, n_grid)

            def select(operand):
                pst, sg, sa = operand

                def one(g, b_old, a, p_old, sg_old, sa_old):
                    if not g.size:  # a size-0 matrix has no singular value to select p from
                        return p_old, sg_old, sa_old
                    dt = sg_old.dtype  # float32, or float64 for float64 params
                    a_ = a.astype(dt)
                    # singular values of the activations from their (fan_in x fan_in) Gram matrix
                    s_a = jnp.sqrt(jnp.maximum(jnp.linalg.eigvalsh(a_.T @ a_)[::-1], 0.0))
                    g_ = g.astype(dt)
                    if p_method == "exact":
                        new_g = jnp.linalg.svd(g_, compute_uv=False)
                    else:
                        # the authors' expected Nesterov update from the momentum *before* this step
                        # (svs/momentum_exact.py): mom = b/(1 - beta1^t), M_t = lerp(mom, g, 1 - beta1),
                        # M = lerp(M_t, g, 1 - beta1); raw gradient and momentum, no preconditioner
                        mom = b_old.astype(dt) / c1
                        m_t = b1 * mom + (1 - b1) * g_
                        x = b1 * m_t + (1 - b1) * g_ if nesterov else m_t
                        u, s_m, vt = jnp.linalg.svd(x, full_matrices=False)
                        new_g = jnp.einsum("ir,ij,rj->r", u, g_, vt)
                    first = count == 0
                    sg_new = jnp.where(first, new_g, sv_momentum * sg_old + (1 - sv_momentum) * new_g)
                    sa_new = jnp.where(first, s_a, sv_momentum * sa_old + (1 - sv_momentum) * s_a)
                    if p_method == "exact":
                        logj = schatten_log_criterion(sg_new, sa_new, grid)
                    else:
                        logj = schatten_log_criterion_momentum(sg_new, s_m, sa_new, grid)
                    return grid[jnp.argmax(logj)].astype(jnp.float32), sg_new.astype(dt), sa_new.astype(dt)

                res = jax.tree.map(one, updates, state.mu, activations, pst, sg, sa)
                treedef = jax.tree.structure(updates)
                flat = treedef.flatten_up_to(res)
                return (
                    treedef.unflatten([r[0] for r in flat]),
                    treedef.unflatten([r[1] for r in flat]),
                    treedef.unflatten([r[2] for r in flat]),
                )

            pst, sg, sa = jax.lax.cond(count % interval == 0, select, lambda o: o, (pst, sg, sa))

        # --- direction ---------------------------------------------------------------------
        def direction(n, vhat, p, g):
            if not g.size:  # a size-0 matrix does not move
                return jnp.zeros_like(g)
            x, dmat = mapped_in(n, vhat, p)
            o = schatten_direction(x, p, p_max if polar_snap else None)
            if dmat is not None:
                o = dmat * o
            if pin:
                m_, n_ = o.shape
                target = math.sqrt(min(m_, n_))
                if ks is not None:
                    kappa = ks * math.sqrt(max(m_, n_))
                    target = target * kappa ** (1.0 / p)
                o = o * (target / (jnp.sqrt(jnp.sum(jnp.square(o))) + 1e-8))
            return o.astype(g.dtype)

        # without a second moment each leaf gets the marker 0 (not None: a None leaf of the
        # params is an empty subtree, which tree.map skips)
        vh = d_fn if moment != "none" else jax.tree.map(lambda x: 0, updates)
        out = jax.tree.map(direction, nd, vh, pst, updates)
        return out, SchattenState(t, mu, nu, pst, sg, sa)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def _two_d_labels(params):
    return jax.tree.map(lambda x: "matrix" if jnp.ndim(x) == 2 else "adam", params)


def schatten_p(
    learning_rate: optax.ScalarOrSchedule,
    beta1: optax.ScalarOrSchedule = 0.95,
    beta2: float | jax.Array = 0.999,
    eps: float | jax.Array = 1e-8,
    weight_decay: float | jax.Array = 0.0,
    *,
    nesterov: bool = True,
    moment: str = "none",
    p_init=None,
    p_min: float | jax.Array = 1.02,
    p_max: float | jax.Array = 10.0,
    pin: bool = True,
    kappa: str | None = "noisy",
    p_method: str | None = "exact_momentum",
    interval: int = 10,
    sv_momentum: float | jax.Array = 0.9,
    n_grid: int = 64,
    adam_learning_rate: optax.ScalarOrSchedule | None = None,
    adam_b1: float = 0.9,
    adam_b2: float | jax.Array = 0.999,
    adam_weight_decay: float | jax.Array = 0.0,
) -> optax.GradientTransformationExtraArgs:
    r"""SMuon optimizer: :func:`scale_by_schatten_p` on 2-D leaves, AdamW on the rest.

    .. math::
      W \leftarrow W(1 - \eta\lambda) - \eta\,O_t,

    with :math:`O_t` from :func:`scale_by_schatten_p`. When ``moment != 'none'`` and
    ``kappa`` is ``'noisy'`` or ``'determ'``, the pinned norm uses
    :math:`\kappa = \eta_{adam}\rho_{adam}/(\eta\,\rho_{muon})` with
    :math:`\rho_{muon} = 1/\sqrt{\max(m,n)}` and
    :math:`\rho_{adam} = \sqrt{(1-\beta_1^{adam})/(1+\beta_1^{adam})}` (``'noisy'``) or 1
    (``'determ'``); so :math:`p\to\infty` takes Muon's step and :math:`p = 1` Adam's
    per-coordinate RMS. Pass ``activations=`` to ``update`` (pytree with the params'
    structure; entries for non-matrix leaves are ignored) to let :math:`p` adapt.

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays: 2-D leaves
    take the Schatten-p step, every other leaf (vectors, scalars, batches) AdamW;
    ``None`` and size-0 leaves are allowed. Complex 2-D leaves are refused (the other
    leaves follow AdamW, which takes complex). ``update`` ignores unknown keyword
    arguments.

    Args:
      learning_rate: step size of the matrix leaves (may be traced or a schedule).
      beta1: momentum (may be traced).
      beta2: second-moment decay.
      eps: second-moment epsilon (also AdamW's).
      weight_decay: decoupled weight decay of the matrix leaves.
      nesterov: Nesterov look-ahead (both groups).
      moment: ``'none'``, ``'adam'`` or ``'padam'``.
      p_init: initial p (default ``p_max``).
      p_min: smallest p.
      p_max: largest p.
      pin: κ-pinning of the step norm.
      kappa: ``'noisy'``, ``'determ'`` or None (κ = 1); used only with a moment.
      p_method: None, ``'exact'`` or ``'exact_momentum'``.
      interval: p-selection period.
      sv_momentum: EMA rate of the criterion statistics.
      n_grid: p-grid size.
      adam_learning_rate: AdamW step size (default ``learning_rate``).
      adam_b1: AdamW :math:`\beta_1` (Python float; enters κ).
      adam_b2: AdamW :math:`\beta_2`.
      adam_weight_decay: AdamW weight decay.

    Returns:
      An :class:`optax.GradientTransformationExtraArgs`.

    Example:
      >>> import jax, jax.numpy as jnp, optax
      >>> from jaxtheory.optim import schatten_p
      >>> p = {"w": jnp.eye(2), "b": jnp.zeros(2)}
      >>> x = jnp.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
      >>> loss = lambda p: jnp.mean((x @ p["w"] + p["b"] - 1.0) ** 2)
      >>> tx = schatten_p(0.05, interval=5)
      >>> s = tx.init(p)
      >>> for _ in range(10):
      ...   acts = {"w": x, "b": jnp.zeros(())}
      ...   u, s = tx.update(jax.grad(loss)(p), s, p, activations=acts)
      ...   p = optax.apply_updates(p, u)
      >>> print(f"{loss(p):.3f}")
      0.309

    References:
      Massena et al., arXiv 2605.19781.
    """
    if adam_learning_rate is None:
        adam_learning_rate = learning_rate
    kappa_scale = None
    if moment != "none" and kappa is not None:
        if kappa not in ("noisy", "determ"):
            raise ValueError(f"unknown kappa {kappa!r}; use 'noisy', 'determ' or None")
        rho = math.sqrt((1 - adam_b1) / (1 + adam_b1)) if kappa == "noisy" else 1.0

        def kappa_scale(count):
            lr = _eval(learning_rate, count)
            alr = _eval(adam_learning_rate, count)
            return alr * rho / jnp.where(lr == 0, 1.0, lr)

    inner = scale_by_schatten_p(
        beta1,
        beta2,
        eps,
        nesterov=nesterov,
        moment=moment,
        p_init=p_init,
        p_min=p_min,
        p_max=p_max,
        pin=pin,
        kappa_scale=kappa_scale,
        p_method=p_method,
        interval=interval,
        sv_momentum=sv_momentum,
        n_grid=n_grid,
    )
    return optax.partition(
        transforms={
            "matrix": optax.chain(
                inner, optax.add_decayed_weights(weight_decay), optax.scale_by_learning_rate(learning_rate)
            ),
            "adam": optax.adamw(
                adam_learning_rate,
                b1=adam_b1,
                b2=adam_b2,
                eps=eps,
                weight_decay=adam_weight_decay,
                nesterov=nesterov,
            ),
        },
        param_labels=_two_d_labels,
        mask_compatible_extra_args=True,
    )


def muadam(
    learning_rate: optax.ScalarOrSchedule,
    beta1: optax.ScalarOrSchedule = 0.9,
    beta2: float | jax.Array = 0.999,
    eps: float | jax.Array = 1e-8,
    weight_decay: float | jax.Array = 0.0,
    *,
    adam_learning_rate: optax.ScalarOrSchedule | None = None,
    adam_b1: float | jax.Array = 0.9,
    adam_b2: float | jax.Array = 0.95,
) -> optax.GradientTransformationExtraArgs:
    r"""MuAdam: Muon with a fixed :math:`-1/4` second-moment map-in/map-out (exact polar).

    .. math::
      D = (\hat v + \varepsilon)^{-1/4},\qquad W \leftarrow W(1-\eta\lambda) -
      \eta\,D\odot\operatorname{polar}(D\odot N),

    with :math:`N` the bias-corrected Nesterov momentum (the :math:`p=\infty`
    endpoint of :func:`scale_by_schatten_p` with ``moment='adam'``, no pinning);
    non-matrix leaves use AdamW.

    **Params.** as :func:`schatten_p`: 2-D leaves take the MuAdam step, every other leaf
    AdamW; float16, bfloat16, float32 or float64; ``None`` and size-0 leaves allowed;
    complex 2-D leaves refused. ``update`` ignores unknown keyword arguments.

    Args:
      learning_rate: step size (may be traced or a schedule).
      beta1: momentum.
      beta2: second-moment decay.
      eps: second-moment epsilon.
      weight_decay: decoupled weight decay of the matrix leaves.
      adam_learning_rate: AdamW step size (default ``learning_rate``).
      adam_b1: AdamW :math:`\beta_1`.
      adam_b2: AdamW :math:`\beta_2`.

    Returns:
      An :class:`optax.GradientTransformationExtraArgs`.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import muadam
      >>> tx = muadam(1.0)
      >>> w = {"w": jnp.zeros((2, 2))}
      >>> u, _ = tx.update({"w": jnp.array([[1.0, 0.0], [0.0, 4.0]])}, tx.init(w), w)
      >>> print(jnp.round(u["w"], 3))
      [[-1.  -0. ]
       [-0.  -0.5]]

    References:
      Veprikov et al., arXiv 2510.10777; Massena et al., arXiv 2605.19781.
    """
    if adam_learning_rate is None:
        adam_learning_rate = learning_rate
    inner = scale_by_schatten_p(
        beta1, beta2, eps, moment="adam", p_init=jnp.inf, pin=False, p_method=None, polar_snap=False
    )
    return optax.partition(
        transforms={
            "matrix": optax.chain(
                inner, optax.add_decayed_weights(weight_decay), optax.scale_by_learning_rate(learning_rate)
            ),
            "adam": optax.adamw(adam_learning_rate, b1=adam_b1, b2=adam_b2, eps=eps),
        },
        param_labels=_two_d_labels,
        mask_compatible_extra_args=True,
    )
