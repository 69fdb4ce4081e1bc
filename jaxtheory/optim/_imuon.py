"""Intrinsic Muon (iMuon): closed-form LMO steps on Riemannian matrix manifolds.

For a manifold point :math:`x` with metric :math:`g_x(\\xi,\\zeta) = \\langle G_x\\xi,
\\zeta\\rangle` and a unitarily invariant norm :math:`\\varphi`, the intrinsic tangent
norm is :math:`\\|\\xi\\|_{x,\\varphi} = \\varphi(G_x^{1/2}\\xi)` and its LMO is

.. math::
  H = G_x^{1/2}\\operatorname{grad} f(x) = U\\Sigma V^\\top,\\qquad
  \\xi^\\star = G_x^{-1/2}\\, U\\operatorname{diag}(z^\\star)V^\\top,\\qquad
  x^+ = R_x(-\\eta\\,\\xi^\\star),

with :math:`z^\\star = \\mathbb 1` (spectral: iMuon), :math:`\\sigma/\\|\\sigma\\|_2`
(Frobenius: normalized Riemannian GD) or :math:`e_1` (nuclear: iMuon-Nu). The
first-order decrease :math:`\\langle \\nabla f, \\xi^\\star\\rangle` equals the dual
norm :math:`\\varphi^*(H)`.

Every transform here takes the learning rate itself and returns the *whole* step:
``optax.apply_updates(params, updates)`` lands on the retracted point. For the
non-additive retractions (SPD exponential, Stiefel polar/QR, Grassmann QR) this
means that putting further transforms after them in an :func:`optax.chain`
(scaling, weight decay, clipping) breaks feasibility: the point no longer lies on
the manifold. Put gradient-side transforms *before* them only.

Half-precision (bfloat16, float16) parameters are stepped in float32 and the update
is rounded once to the parameter dtype (LAPACK has no half-precision eigh, QR or
inverse); the rounded point is then on the manifold to that precision only.

The update rules follow the authors' code (github.com/1bang118/manifold-intrinsic-muon,
commit 4f1d4b1), as we read it.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._domain import check_float_params, concrete
from jaxtheory.optim._lmo import (
    _svd_input,
    lmo_frobenius,
    polar_newton_schulz,
    polar_svd,
    top_singular_pair,
)

__all__ = [
    "FactorPair",
    "FixedRankDirection",
    "fixed_rank_direction",
    "IMuonState",
    "imuon_fixed_rank",
    "imuon_lora",
    "spd_direction",
    "spd_exp_retraction",
    "imuon_spd",
    "stiefel_direction",
    "stiefel_retraction",
    "imuon_stiefel",
    "grassmann_direction",
    "imuon_grassmann",
]

_NORMS = ("spectral", "frobenius", "nuclear")


def _t(x):
    return jnp.swapaxes(x, -1, -2)


def _sym(x):
    return 0.5 * (x + _t(x))


def _skew(x):
    return 0.5 * (x - _t(x))


def _eval(v, count):
    return v(count) if callable(v) else v


def _fro(x):
    return jnp.sqrt(jnp.sum(jnp.square(x), axis=(-2, -1), keepdims=True))


def _psd_sqrt(s):
    """``s^{1/2}`` of a symmetric PSD matrix by eigh (round-off negative eigenvalues clamped at 0)."""
    w, v = jnp.linalg.eigh(_sym(s))
    return (v * jnp.sqrt(jnp.maximum(w, 0))[..., None, :]) @ _t(v)


def _gram_inv_sqrt(y, eps):
    r"""``(yᵀy + eps I)^{-1/2}`` for ``y`` of shape (k, r), from the SVD of ``y`` (the Gram is never formed).

    The eigenvalues are :math:`\sigma_i^2 + \varepsilon`; those at or below
    :math:`(\max(k, r)\,\epsilon_{\mathrm{mach}}\,\sigma_{\max})^2` (a singular value at the
    round-off of a zero one, the rank tolerance of ``numpy.linalg.matrix_rank``, and
    :math:`\varepsilon` below it too) count as zero and get inverse root 0, a pseudo-inverse
    root. The threshold scales with ``y``: with ``eps = 0``, :math:`y \to \alpha y` multiplies
    the result by :math:`1/\alpha` to round-off.
    """
    k, r = y.shape[-2], y.shape[-1]
    _, sv, vt = jnp.linalg.svd(y, full_matrices=k < r)
    if k < r:  # r - k further null directions of yᵀy
        sv = jnp.concatenate([sv, jnp.zeros(sv.shape[:-1] + (r - k,), sv.dtype)], axis=-1)
    w = sv * sv + eps
    tol = (max(k, r) * jnp.finfo(sv.dtype).eps * jnp.max(sv, axis=-1, keepdims=True)) ** 2
    keep = w > tol
    wp = jnp.where(keep, 1.0 / jnp.sqrt(jnp.where(keep, w, 1)), 0)
    return (_t(vt) * wp[..., None, :]) @ vt


def _polar(x, polar, ns_coeffs, ns_steps):
    if polar == "svd":
        return polar_svd(x)
    if polar == "newton_schulz":
        return polar_newton_schulz(x, ns_coeffs, ns_steps)
    raise ValueError(f"unknown polar method {polar!r}; use 'svd' or 'newton_schulz'")


def _block_lmo(h, norm, polar, ns_coeffs, ns_steps):
    if norm == "spectral":
        return _polar(h, polar, ns_coeffs, ns_steps)
    if norm == "nuclear":
        return top_singular_pair(h)
    if norm == "frobenius":
        return lmo_frobenius(h)
    raise ValueError(f"unknown norm {norm!r}; use one of {_NORMS}")


def _check_norm(norm):
    if norm not in _NORMS:
        raise ValueError(f"unknown norm {norm!r}; use one of {_NORMS}")


def _check_factor_pairs(params, name):
    """Refuses params that are not a pytree of FactorPair nodes B (m, r), A (r, n)."""
    check_float_params(params, name)
    for node in jax.tree.leaves(params, is_leaf=_is_pair):
        if not _is_pair(node):
            raise ValueError(
                f"{name} takes a pytree of FactorPair (or {{'B', 'A'}} dict) nodes, the factors "
                f"B (m, r) and A (r, n) of X = B A; got a leaf of shape {jnp.shape(node)}: "
                "route other leaves elsewhere with optax.partition"
            )
        get = (lambda q, k: q[k]) if isinstance(node, dict) else getattr
        b, a = get(node, "B"), get(node, "A")
        if jnp.ndim(b) != 2 or jnp.ndim(a) != 2 or jnp.shape(b)[1] != jnp.shape(a)[0]:
            raise ValueError(
                f"{name} takes factors B of shape (m, r) and A of shape (r, n); got B "
                f"{jnp.shape(b)} and A {jnp.shape(a)}"
            )


# ----------------------------------------------------------------------------------------
# Fixed rank: X = B A
# ----------------------------------------------------------------------------------------


class FactorPair(NamedTuple):
    """Factors of a rank-r matrix :math:`X = BA`, ``B`` of shape (m, r), ``A`` (r, n).

    A ``dict`` with exactly the keys ``'A'`` and ``'B'`` is accepted in its place.
    """

    B: jax.Array
    A: jax.Array


def _is_pair(x):
    return isinstance(x, FactorPair) or (isinstance(x, dict) and set(x) == {"A", "B"})


def _make_pair(like, b, a):
    return FactorPair(b, a) if isinstance(like, FactorPair) else {"B": b, "A": a}


class FixedRankDirection(NamedTuple):
    """Ascent direction on the factors and its first-order decrease.

    ``decrease`` is :math:`\\langle\\nabla_B f,\\xi_B\\rangle + \\langle\\nabla_A f,\\xi_A\\rangle
    = \\langle \\nabla_X f, \\xi_B A + B\\xi_A\\rangle`, which equals the dual norm of the
    whitened gradient for an exact LMO.
    """

    xi_B: jax.Array
    xi_A: jax.Array
    decrease: jax.Array


def fixed_rank_direction(
    grad_B: jax.Array,
    grad_A: jax.Array,
    B: jax.Array,
    A: jax.Array,
    norm: str = "spectral",
    *,
    metric: str = "balanced",
    eps: float | jax.Array = 0.0,
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> FixedRankDirection:
    r"""iMuon direction on the factors of :math:`X = BA` (balanced metric), or a Euclidean baseline.

  .. math::
    P_A = (AA^\top + \varepsilon I)^{-1/2},\quad P_B = (B^\top B + \varepsilon I)^{-1/2},\quad
    H_B = \nabla_B P_A,\quad H_A = P_B \nabla_A,\\
    \xi_B = \operatorname{lmo}(H_B)\,P_A,\qquad \xi_A = P_B\,\operatorname{lmo}(H_A),

  per block for the spectral (polar) and nuclear (top pair) norms; for the
  Frobenius norm both blocks are divided by :math:`\nu = \|(H_B, H_A)\|_F`
  (normalized Riemannian GD). With ``eps = 0`` the ambient step
  :math:`\xi_B A + B\xi_A = \operatorname{polar}(\nabla_X Q_A^\top)Q_A +
  Q_B\operatorname{polar}(Q_B^\top\nabla_X)` depends only on the row space of
  :math:`A` and the column space of :math:`B`: it is invariant under
  :math:`B\to BS,\ A\to S^{-1}A`. ``eps > 0`` breaks this at order
  :math:`\varepsilon/\lambda_{\min}(AA^\top)` (with the authors' :math:`\varepsilon = 10^{-8}`
  and the factor scales of :mod:`jaxtheory.sims.matrix.completion`, whole float64 runs
  from gauges :math:`\alpha \in \{0.1, 1, 10\}` end up to :math:`3 \times 10^{-3}` apart
  instead of :math:`10^{-12}`), so the default is ``eps = 0``.

  The inverse roots come from the SVD of the factors (the Gram, with its squared
  condition number, is never formed) and are guarded instead of regularised: an
  eigenvalue :math:`\sigma_i^2 + \varepsilon` of :math:`AA^\top + \varepsilon I` at or below
  :math:`(\max(r, n)\,\epsilon_{\mathrm{mach}}\,\sigma_{\max}(A))^2` (a singular value at the
  round-off of a zero one; likewise for :math:`B`) gets inverse root 0, a pseudo-inverse
  root. The guard scales with the factor (:math:`A \to \alpha A` scales it by
  :math:`\alpha^2`), so it keeps the invariance; a rank-deficient factor gives a finite step
  that does not move along the null directions of its Gram (where the first-order
  decrease is zero): the ambient step is the formula above with :math:`Q_A, Q_B`
  orthonormal bases of the row space of :math:`A` and the column space of :math:`B`.

  ``metric='euclidean'`` gives the baselines on the factors: EGD (joint Frobenius
  normalisation), Muon (polar of each factor gradient), NuMuon (rank one of each).

  Args:
    grad_B: :math:`\nabla_B f = \nabla_X f\,A^\top`, shape (m, r).
    grad_A: :math:`\nabla_A f = B^\top\nabla_X f`, shape (r, n).
    B: left factor (m, r).
    A: right factor (r, n).
    norm: ``'spectral'`` (iMuon / Muon), ``'frobenius'`` (RGD / EGD), ``'nuclear'``
      (iMuon-Nu / NuMuon).
    metric: ``'balanced'`` (intrinsic) or ``'euclidean'`` (factor-wise baselines).
    eps: absolute Gram regulariser :math:`\varepsilon \ge 0` (may be traced); 0 (default)
      is the exact balanced metric, gauge invariant to round-off; the authors' code uses
      ``1e-8``, which is not (see above).
    polar: ``'svd'`` (exact, rank-aware) or ``'newton_schulz'``.
    ns_coeffs: Newton–Schulz coefficients.
    ns_steps: Newton–Schulz iterations.

  Returns:
    A :class:`FixedRankDirection` (ascent direction; the step is :math:`-\eta\xi`).

  Example:
    >>> import jax.numpy as jnp
    >>> from jaxtheory.optim import fixed_rank_direction
    >>> B = jnp.array([[1.0], [0.0]]); A = jnp.array([[2.0, 0.0]])
    >>> g = jnp.array([[1.0, 0.0], [0.0, 0.0]])          # gradient in X
    >>> d = fixed_rank_direction(g @ A.T, B.T @ g, B, A, eps=0.0)
    >>> print(jnp.round(d.xi_B, 3), jnp.round(d.xi_A, 3), jnp.round(d.decrease, 3))
    [[0.5]
     [0. ]] [[1. 0.]] 2.0

  References:
    Li et al., *Intrinsic Muon: Spectral Optimization on Riemannian Matrix
    Manifolds*, arXiv 2605.09238; Mishra et al., arXiv 1209.0430 (balanced metric).
  """
    _check_norm(norm)
    if metric == "balanced":
        pa = _gram_inv_sqrt(_t(A), eps)
        pb = _gram_inv_sqrt(B, eps)
        hb, ha = grad_B @ pa, pb @ grad_A
    elif metric == "euclidean":
        hb, ha = grad_B, grad_A
    else:
        raise ValueError(f"unknown metric {metric!r}; use 'balanced' or 'euclidean'")
    if norm == "frobenius":
        nu = jnp.sqrt(jnp.sum(jnp.square(hb)) + jnp.sum(jnp.square(ha)))
        nu = jnp.where(nu > 0, nu, 1)
        zb, za = hb / nu, ha / nu
    else:
        zb = _block_lmo(hb, norm, polar, ns_coeffs, ns_steps)
        za = _block_lmo(ha, norm, polar, ns_coeffs, ns_steps)
    if metric == "balanced":
        xb, xa = zb @ pa, pb @ za
    else:
        xb, xa = zb, za
    dec = jnp.sum(grad_B * xb) + jnp.sum(grad_A * xa)
    return FixedRankDirection(xb.astype(B.dtype), xa.astype(A.dtype), dec)


class IMuonState(NamedTuple):
    """State of the iMuon transforms: step count and heavy-ball buffer of Euclidean gradients."""

    count: jax.Array
    mu: optax.Updates


def _momentum(updates, state, momentum, nesterov):
    mom = _eval(momentum, state.count)
    mu = jax.tree.map(lambda m, g: mom * m + g.astype(m.dtype), state.mu, updates)
    if nesterov:
        d = jax.tree.map(lambda m, g: g.astype(m.dtype) + mom * m, mu, updates)
    else:
        d = mu
    return d, mu


def imuon_fixed_rank(
    learning_rate: optax.ScalarOrSchedule,
    norm: str = "spectral",
    *,
    metric: str = "balanced",
    eps: float | jax.Array = 0.0,
    momentum: optax.ScalarOrSchedule = 0.0,
    nesterov: bool = False,
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> optax.GradientTransformationExtraArgs:
    r"""Intrinsic Muon on fixed-rank matrices :math:`X = BA` (balanced metric), as an optax transform.

  .. math::
    M_t = \mu M_{t-1} + \nabla_t,\quad D_t = \nabla_t + \mu M_t \ (\text{Nesterov}) \text{ or } M_t,\\
    (B, A) \leftarrow (B, A) - \eta_t\,(\xi_B, \xi_A)(D_t),

  with :math:`(\xi_B,\xi_A)` from :func:`fixed_rank_direction`. Parameters are a
  pytree whose nodes are :class:`FactorPair` (or ``{'B':..., 'A':...}`` dicts);
  ``params`` must be passed to ``update``. The retraction is additive (no
  backtracking inside the transform; a simulator may halve :math:`\eta` to keep
  the factors full rank). ``metric='euclidean'`` gives EGD / Muon / NuMuon on the
  factors with the same code path.

  **Params.** structure-bound to factor pairs: a pytree whose nodes are
  :class:`FactorPair` (or ``{'B', 'A'}`` dicts) with ``B`` of shape ``(m, r)`` and ``A`` of
  shape ``(r, n)``, in float16, bfloat16 (computed in float32), float32 or float64; any
  other leaf, and complex params, are refused at ``init`` with a ``ValueError``.
  ``update`` ignores unknown keyword arguments.

  Args:
    learning_rate: step size :math:`\eta_t`, scalar or schedule (may be traced).
    norm: ``'spectral'`` (iMuon), ``'frobenius'`` (RGD), ``'nuclear'`` (iMuon-Nu).
    metric: ``'balanced'`` or ``'euclidean'``.
    eps: absolute Gram regulariser of :func:`fixed_rank_direction` (may be traced); 0
      (default) keeps the step gauge invariant to round-off.
    momentum: heavy-ball coefficient :math:`\mu` on the factor gradients (may be traced).
    nesterov: Nesterov direction :math:`\nabla + \mu M`.
    polar: ``'svd'`` or ``'newton_schulz'``.
    ns_coeffs: Newton–Schulz coefficients.
    ns_steps: Newton–Schulz iterations.

  Returns:
    An :class:`optax.GradientTransformationExtraArgs` with state :class:`IMuonState`.

  Example:
    >>> import jax, jax.numpy as jnp, optax
    >>> from jaxtheory.optim import FactorPair, imuon_fixed_rank
    >>> target = jnp.outer(jnp.arange(1.0, 4.0), jnp.ones(3))
    >>> p = FactorPair(B=jnp.ones((3, 1)), A=0.5 * jnp.ones((1, 3)))
    >>> loss = lambda p: 0.5 * jnp.sum((p.B @ p.A - target) ** 2)
    >>> tx = imuon_fixed_rank(optax.cosine_decay_schedule(0.5, 60))
    >>> s = tx.init(p)
    >>> for _ in range(60):
    ...   u, s = tx.update(jax.grad(loss)(p), s, p)
    ...   p = optax.apply_updates(p, u)
    >>> print(f"{loss(p):.4f}")
    0.0000

  References:
    Li et al., arXiv 2605.09238.
  """
    _check_norm(norm)

    def init_fn(params):
        _check_factor_pairs(params, "imuon_fixed_rank")
        return IMuonState(count=jnp.zeros([], jnp.int32), mu=optax.tree.zeros_like(params))

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("imuon_fixed_rank needs params in update()")
        lr = _eval(learning_rate, state.count)
        d, mu = _momentum(updates, state, momentum, nesterov)

        def step(dp, p):
            get = (lambda q, k: q[k]) if isinstance(p, dict) else getattr
            b, a = get(p, "B"), get(p, "A")
            # half precision is computed in float32 (LAPACK has no bfloat16/float16 eigh)
            out = fixed_rank_direction(
                _svd_input(get(dp, "B")),
                _svd_input(get(dp, "A")),
                _svd_input(b),
                _svd_input(a),
                norm,
                metric=metric,
                eps=eps,
                polar=polar,
                ns_coeffs=ns_coeffs,
                ns_steps=ns_steps,
            )
            return _make_pair(p, (-lr * out.xi_B).astype(b.dtype), (-lr * out.xi_A).astype(a.dtype))

        new = jax.tree.map(step, d, params, is_leaf=_is_pair)
        return new, IMuonState(count=optax.safe_increment(state.count), mu=mu)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def _lowrank_polar(x, y, polar, ns_coeffs, ns_steps):
    """Polar factor of ``x @ y`` (x: m×k, y: k×n) as ``(Qx, O, Qy)`` with polar = Qx O Qyᵀ."""
    qx, rx = jnp.linalg.qr(x)
    qy, ry = jnp.linalg.qr(_t(y))
    core = rx @ _t(ry)
    return qx, _polar(core, polar, ns_coeffs, ns_steps), qy


def imuon_lora(
    learning_rate: optax.ScalarOrSchedule,
    *,
    momentum: optax.ScalarOrSchedule = 0.0,
    nesterov: bool = False,
    eps: float | jax.Array = 1e-6,
    weight_decay: float | jax.Array = 0.0,
    adjust_lr: bool = True,
    polar: str = "newton_schulz",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> optax.GradientTransformationExtraArgs:
    r"""iMuon for LoRA factors (the authors' "V5" variant used for their GPT-2 table).

  For LoRA :math:`\Delta W = BA`, :math:`B\in\mathbb R^{d_{out}\times r}`,
  :math:`A\in\mathbb R^{r\times d_{in}}`:

  .. math::
    M_A \leftarrow \mu M_A + \nabla_A,\quad M_B \leftarrow \mu M_B + \nabla_B
    \quad(\text{Nesterov: } \nabla + \mu M),\qquad M_t = M_B A + B M_A,\\
    P_A = A^\top(AA^\top+\varepsilon I)^{-1}A,\quad P_B = B(B^\top B+\varepsilon I)^{-1}B^\top,\\
    d_B = \operatorname{polar}(M_t P_A)\,A^\top(AA^\top+\varepsilon I)^{-1},\quad
    d_A = (B^\top B+\varepsilon I)^{-1}B^\top\operatorname{polar}(P_B M_t),\\
    B \leftarrow B(1-\eta\lambda) - \eta_B d_B,\quad A \leftarrow A(1-\eta\lambda) - \eta_A d_A,

  with :math:`\eta_W = 0.2\,\eta\sqrt{\max(\text{rows}(W),\text{cols}(W))}` if
  ``adjust_lr`` (Moonlight RMS matching) else :math:`\eta`. :math:`M_t` is never
  formed: its polar factor is taken through thin QR of the rank-:math:`2r` factors
  and a :math:`2r\times 2r` core (exact for both SVD and Newton–Schulz, which are
  unitarily equivariant). With :math:`B = 0` (the usual LoRA init) :math:`d_A = 0`.

  **Params.** as :func:`imuon_fixed_rank`: a pytree of :class:`FactorPair` nodes
  (``B`` (d_out, r), ``A`` (r, d_in)) in float16, bfloat16, float32 or float64; other
  leaves and complex params are refused. ``update`` ignores unknown keyword arguments.

  Args:
    learning_rate: :math:`\eta`, scalar or schedule (may be traced).
    momentum: :math:`\mu` (may be traced).
    nesterov: Nesterov direction.
    eps: Gram damping :math:`\varepsilon` (``lora_precond_eps``; may be traced).
    weight_decay: :math:`\lambda` (may be traced).
    adjust_lr: Moonlight learning-rate adjustment per factor.
    polar: ``'newton_schulz'`` (the authors' default) or ``'svd'``.
    ns_coeffs: Newton–Schulz coefficients.
    ns_steps: Newton–Schulz iterations.

  Returns:
    An :class:`optax.GradientTransformationExtraArgs` on :class:`FactorPair` nodes; needs ``params``.

  Example:
    >>> import jax.numpy as jnp
    >>> from jaxtheory.optim import FactorPair, imuon_lora
    >>> p = FactorPair(B=jnp.zeros((4, 1)), A=jnp.ones((1, 3)))
    >>> g = FactorPair(B=jnp.ones((4, 1)), A=jnp.zeros((1, 3)))
    >>> tx = imuon_lora(0.1, adjust_lr=False, polar="svd")
    >>> u, _ = tx.update(g, tx.init(p), p)
    >>> print(jnp.round(u.B.ravel(), 4), u.A.ravel() + 0.0)
    [-0.0289 -0.0289 -0.0289 -0.0289] [0. 0. 0.]

  References:
    Li et al., arXiv 2605.09238 (code: ``imuon/swift/trainers/optimizers/muon.py``,
    variant V5); Liu et al., arXiv 2502.16982 (lr adjustment).
  """

    def init_fn(params):
        _check_factor_pairs(params, "imuon_lora")
        return IMuonState(count=jnp.zeros([], jnp.int32), mu=optax.tree.zeros_like(params))

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError("imuon_lora needs params in update()")
        lr = _eval(learning_rate, state.count)
        wd = _eval(weight_decay, state.count)
        d, mu = _momentum(updates, state, momentum, nesterov)

        def step(dp, p):
            get = (lambda q, k: q[k]) if isinstance(p, dict) else getattr
            dtype_b, dtype_a = get(p, "B").dtype, get(p, "A").dtype
            # half precision is computed in float32 (LAPACK has no bfloat16/float16 QR or inverse)
            mb, ma, b, a = (_svd_input(get(q, k)) for q, k in ((dp, "B"), (dp, "A"), (p, "B"), (p, "A")))
            eye = jnp.eye(a.shape[0], dtype=a.dtype)
            inv_aat = jnp.linalg.inv(a @ _t(a) + eps * eye)
            inv_btb = jnp.linalg.inv(_t(b) @ b + eps * eye)
            x = jnp.concatenate([mb, b], axis=1)  # (m, 2r)
            y = jnp.concatenate([a, ma], axis=0)  # (2r, n)
            # dB = polar(M_t P_A) A^T (AA^T + eps)^-1 with M_t P_A = x (y A^T inv_aat A)
            y1 = (y @ _t(a) @ inv_aat) @ a
            qx, oc, qy = _lowrank_polar(x, y1, polar, ns_coeffs, ns_steps)
            db = qx @ (oc @ (_t(qy) @ _t(a))) @ inv_aat
            # dA = (B^TB + eps)^-1 B^T polar(P_B M_t) with P_B M_t = (B inv_btb B^T x) y
            x2 = b @ (inv_btb @ (_t(b) @ x))
            qx2, oc2, qy2 = _lowrank_polar(x2, y, polar, ns_coeffs, ns_steps)
            da = inv_btb @ ((_t(b) @ qx2) @ oc2) @ _t(qy2)
            if adjust_lr:
                lr_b = lr * 0.2 * max(b.shape) ** 0.5
                lr_a = lr * 0.2 * max(a.shape) ** 0.5
            else:
                lr_b = lr_a = lr
            ub = (-lr * wd * b - lr_b * db).astype(dtype_b)
            ua = (-lr * wd * a - lr_a * da).astype(dtype_a)
            return _make_pair(p, ub, ua)

        new = jax.tree.map(step, d, params, is_leaf=_is_pair)
        return new, IMuonState(count=optax.safe_increment(state.count), mu=mu)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


# ----------------------------------------------------------------------------------------
# Per-leaf manifolds: SPD, Stiefel, Grassmann
# ----------------------------------------------------------------------------------------


def _leafwise_transform(name, step, learning_rate, momentum, nesterov, check):
    """Transform whose update is ``step(direction_grad, x, lr) - x`` per leaf.

    ``check(leaf)`` raises a ValueError naming the manifold for a leaf outside it; it
    runs at ``init`` on every leaf that is not size-0 (a size-0 leaf does not move).
    """

    def init_fn(params):
        check_float_params(params, name)
        for leaf in jax.tree.leaves(params):
            if jnp.ndim(leaf) < 2:
                raise ValueError(
                    f"{name} takes matrix leaves (ndim >= 2, a batch of points of the manifold "
                    f"on the last two axes); got a leaf of shape {jnp.shape(leaf)}: route it "
                    "elsewhere with optax.partition"
                )
            if jnp.size(leaf):
                check(leaf)
        return IMuonState(count=jnp.zeros([], jnp.int32), mu=optax.tree.zeros_like(params))

    def update_fn(updates, state, params=None, **extra_args):
        del extra_args  # unknown extra arguments are ignored, as optax's optimizers do
        if params is None:
            raise ValueError(f"{name} needs params in update()")
        lr = _eval(learning_rate, state.count)
        d, mu = _momentum(updates, state, momentum, nesterov)

        def leaf(g, x):
            if not jnp.size(x):  # a size-0 leaf has no point to move
                return jnp.zeros_like(x)
            # half precision is computed in float32 (LAPACK has no bfloat16/float16 eigh or QR)
            g32, x32 = _svd_input(g), _svd_input(x)
            return (step(g32, x32, lr) - x32).astype(x.dtype)

        new = jax.tree.map(leaf, d, params)
        return new, IMuonState(count=optax.safe_increment(state.count), mu=mu)

    return optax.GradientTransformationExtraArgs(init_fn, update_fn)


def _check_spd(x):
    n, m = jnp.shape(x)[-2:]
    if n != m:
        raise ValueError(
            f"imuon_spd takes symmetric positive definite matrices (leaves of shape (..., n, n)); "
            f"got a leaf of shape {jnp.shape(x)}: route non-square leaves elsewhere with "
            "optax.partition"
        )
    v = concrete(x)
    if v is None:
        return
    scale = float(np.max(np.abs(v))) if v.size else 0.0
    asym = float(np.max(np.abs(v - np.swapaxes(v, -1, -2))))
    least = float(np.min(np.linalg.eigvalsh(0.5 * (v + np.swapaxes(v, -1, -2)))))
    # the step symmetrizes: a loose tolerance on the asymmetry (rounding passes)
    if asym > 0.01 * scale or not least > 0:
        raise ValueError(
            f"imuon_spd takes symmetric positive definite matrices; got a leaf of shape "
            f"{jnp.shape(x)} with least eigenvalue {least:.3g} and asymmetry {asym:.3g}: start "
            "from an SPD point, e.g. the identity"
        )


def _check_tall(x, name, what):
    n, p = jnp.shape(x)[-2:]
    if n < p:
        raise ValueError(
            f"{name} takes {what} (leaves of shape (..., n, p) with n >= p); got a leaf of shape "
            f"{jnp.shape(x)}: transpose it, or route it elsewhere with optax.partition"
        )


_STIEFEL_TOL = 0.1  # max |X^T X - I| accepted at init


def _check_stiefel(x):
    _check_tall(x, "imuon_stiefel", "points of the Stiefel manifold, X^T X = I")
    v = concrete(x)
    if v is None:
        return
    p = v.shape[-1]
    dev = float(np.max(np.abs(np.swapaxes(v, -1, -2) @ v - np.eye(p))))
    # a loose tolerance: the retraction maps a nearby point back (low-precision or
    # rounded points pass); far-off ones, a zero matrix say, are refused
    if dev > _STIEFEL_TOL:
        raise ValueError(
            f"imuon_stiefel takes points of the Stiefel manifold (orthonormal columns, X^T X = I); "
            f"got a leaf of shape {v.shape} with max |X^T X - I| = {dev:.3g}: start from an "
            "orthonormal point, e.g. the Q factor of jnp.linalg.qr"
        )


def _check_grassmann(x):
    _check_tall(x, "imuon_grassmann", "full-column-rank representatives Y of subspaces")
    v = concrete(x)
    if v is None:
        return
    s = np.linalg.svd(v, compute_uv=False)
    if not np.all(s[..., -1] > max(v.shape[-2:]) * float(jnp.finfo(jnp.result_type(x)).eps) * s[..., 0]):
        raise ValueError(
            f"imuon_grassmann takes full-column-rank representatives Y (n, p) of p-dimensional "
            f"subspaces; got a leaf of shape {v.shape} with singular values {s}: start from a "
            "full-rank point, e.g. the Q factor of jnp.linalg.qr"
        )


def _spd_parts(G, X, norm):
    w, q = jnp.linalg.eigh(_sym(X))
    w = jnp.maximum(w, 1e-12)
    xh = (q * jnp.sqrt(w)[..., None, :]) @ _t(q)
    h = _sym(xh @ _sym(G) @ xh)
    lam, p = jnp.linalg.eigh(h)
    n = X.shape[-1]
    amax = jnp.max(jnp.abs(lam), axis=-1, keepdims=True)
    if norm == "spectral":
        tol = float(jnp.finfo(X.dtype).eps) * n * amax
        z = jnp.where(jnp.abs(lam) > tol, jnp.sign(lam), 0.0)
    elif norm == "frobenius":
        nrm = jnp.sqrt(jnp.sum(lam * lam, axis=-1, keepdims=True))
        z = jnp.where(nrm > 0, lam / jnp.where(nrm > 0, nrm, 1), 0.0)
    elif norm == "nuclear":
        k = jnp.argmax(jnp.abs(lam), axis=-1)
        z = jax.nn.one_hot(k, n, dtype=lam.dtype) * jnp.sign(lam)
    else:
        raise ValueError(f"unknown norm {norm!r}; use one of {_NORMS}")
    return xh, p, z.astype(X.dtype), lam


def spd_direction(G: jax.Array, X: jax.Array, norm: str = "spectral") -> jax.Array:
    r"""iMuon ascent direction on SPD matrices under the affine-invariant metric.

    .. math::
      H = X^{1/2}\operatorname{sym}(\nabla f)X^{1/2} = P\Lambda P^\top,\qquad
      \xi = X^{1/2} P\,z(\Lambda) P^\top X^{1/2},

    with :math:`z = \operatorname{sign}(\lambda)` (spectral; eigenvalues below
    :math:`\epsilon_{\mathrm{mach}} n \max|\lambda|` map to 0),
    :math:`\lambda/\|\lambda\|_2` (Frobenius: :math:`\xi = X\operatorname{sym}(\nabla f)X/\|H\|_F`)
    or :math:`\operatorname{sign}(\lambda_k)e_k`, :math:`k = \arg\max|\lambda_i|`
    (nuclear). Then :math:`\langle\operatorname{sym}\nabla f,\xi\rangle = \langle H, Z\rangle`
    = :math:`\|H\|_*`, :math:`\|H\|_F`, :math:`\|H\|_2` respectively.

    Args:
      G: Euclidean gradient (n, n).
      X: SPD point (n, n).
      norm: ``'spectral'``, ``'frobenius'`` or ``'nuclear'``.

    Returns:
      The ascent direction :math:`\xi` (n, n).

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import spd_direction
      >>> print(spd_direction(jnp.diag(jnp.array([1.0, -2.0])), 4.0 * jnp.eye(2)))
      [[ 4.  0.]
       [ 0. -4.]]

    References:
      Li et al., arXiv 2605.09238.
    """
    xh, p, z, _ = _spd_parts(G, X, norm)
    return xh @ ((p * z[..., None, :]) @ _t(p)) @ xh


def spd_exp_retraction(
    G: jax.Array, X: jax.Array, learning_rate, norm: str = "spectral", clip: float = 60.0
) -> jax.Array:
    r"""One iMuon step on SPD matrices with the exponential retraction.

    .. math::
      X^+ = X^{1/2}\exp(-\eta Z)X^{1/2},\qquad Z = P z(\Lambda) P^\top
      \ \ (\text{see } \texttt{spd\_direction}),

    with the exponent's eigenvalues clipped to :math:`\pm`\ ``clip``. :math:`X^+` is
    SPD for every :math:`\eta` (up to round-off), and symmetric by construction.

    Args:
      G: Euclidean gradient (n, n).
      X: SPD point (n, n).
      learning_rate: :math:`\eta` (may be traced).
      norm: ``'spectral'``, ``'frobenius'`` or ``'nuclear'``.
      clip: clip of the exponent.

    Returns:
      The new point :math:`X^+`.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import spd_exp_retraction
      >>> x = spd_exp_retraction(jnp.eye(2), jnp.eye(2), jnp.log(2.0))
      >>> print(jnp.round(x, 4))
      [[0.5 0. ]
       [0.  0.5]]

    References:
      Li et al., arXiv 2605.09238.
    """
    xh, p, z, _ = _spd_parts(G, X, norm)
    e = jnp.exp(jnp.clip(-learning_rate * z, -clip, clip))
    return _sym(xh @ ((p * e[..., None, :]) @ _t(p)) @ xh).astype(X.dtype)


def imuon_spd(
    learning_rate: optax.ScalarOrSchedule,
    norm: str = "spectral",
    *,
    momentum: optax.ScalarOrSchedule = 0.0,
    nesterov: bool = False,
) -> optax.GradientTransformationExtraArgs:
    r"""iMuon on SPD matrices (affine-invariant metric, exponential retraction).

    .. math::
      X_{t+1} = X_t^{1/2}\exp(-\eta_t Z_t)X_t^{1/2},\qquad
      Z_t = \operatorname{lmo}\big(X_t^{1/2}\operatorname{sym}(D_t)X_t^{1/2}\big),

    where :math:`D_t` is the (heavy-ball / Nesterov) Euclidean gradient. The
    update returned is :math:`X_{t+1} - X_t`, so ``optax.apply_updates`` lands on the
    retracted point; chaining transforms *after* this one breaks positive
    definiteness (see the module docstring). Each leaf is one SPD matrix.

    **Params.** structure-bound to the SPD manifold: leaves of shape ``(..., n, n)``
    (a batch of matrices on the last two axes), each symmetric positive definite (an eager
    ``init`` checks the values), float16, bfloat16 (computed in float32), float32 or
    float64. Size-0 and ``None`` leaves are allowed (they do not move); other shapes,
    non-SPD values and complex params are refused with a ``ValueError``. ``update``
    ignores unknown keyword arguments.

    Args:
      learning_rate: :math:`\eta_t`, scalar or schedule (may be traced).
      norm: ``'spectral'`` (iMuon), ``'frobenius'`` (RGD), ``'nuclear'`` (iMuon-Nu).
      momentum: heavy-ball coefficient on Euclidean gradients (may be traced).
      nesterov: Nesterov direction.

    Returns:
      An :class:`optax.GradientTransformationExtraArgs`; needs ``params``.

    Example:
      >>> import jax, jax.numpy as jnp, optax
      >>> from jaxtheory.optim import imuon_spd
      >>> S = jnp.diag(jnp.array([4.0, 0.25]))
      >>> f = lambda X: jnp.trace(jnp.linalg.solve(X, S)) + jnp.linalg.slogdet(X)[1]
      >>> X = jnp.eye(2); tx = imuon_spd(lambda t: 0.5 / jnp.sqrt(t + 1.0)); s = tx.init(X)
      >>> for _ in range(200):
      ...   u, s = tx.update(jax.grad(f)(X), s, X); X = optax.apply_updates(X, u)
      >>> print(jnp.round(jnp.diag(X), 2))
      [4.   0.25]

    References:
      Li et al., arXiv 2605.09238.
    """
    _check_norm(norm)
    return _leafwise_transform(
        "imuon_spd",
        lambda g, x, lr: spd_exp_retraction(g, x, lr, norm),
        learning_rate,
        momentum,
        nesterov,
        _check_spd,
    )


def stiefel_direction(
    G: jax.Array,
    X: jax.Array,
    norm: str = "spectral",
    *,
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> jax.Array:
    r"""iMuon ascent direction on the Stiefel manifold :math:`\{X^\top X = I\}`.

    .. math::
      \Omega = \operatorname{skew}(X^\top\nabla f),\qquad K = (I - XX^\top)\nabla f,\qquad
      \xi = X\operatorname{skew}(\operatorname{lmo}(\Omega)) + \operatorname{lmo}(K)

    for the spectral (polar) and nuclear (top pair) norms, so that
    :math:`\langle\nabla f,\xi\rangle = \varphi^*(\Omega) + \varphi^*(K)`; for the
    Frobenius norm :math:`\xi = (\nabla f - X\operatorname{sym}(X^\top\nabla f))/\|\cdot\|_F`
    (normalized Riemannian gradient, embedded metric).

    Args:
      G: Euclidean gradient (n, p).
      X: point with orthonormal columns (n, p).
      norm: ``'spectral'``, ``'frobenius'`` or ``'nuclear'``.
      polar: ``'svd'`` or ``'newton_schulz'`` for the spectral LMO.
      ns_coeffs: Newton–Schulz coefficients.
      ns_steps: Newton–Schulz iterations.

    Returns:
      The tangent ascent direction (n, p).

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import stiefel_direction
      >>> X = jnp.array([[1.0], [0.0]]); G = jnp.array([[5.0], [2.0]])
      >>> print(stiefel_direction(G, X))
      [[0.]
       [1.]]

    References:
      Li et al., arXiv 2605.09238.
    """
    _check_norm(norm)
    xtg = _t(X) @ G
    if norm == "frobenius":
        return lmo_frobenius(G - X @ _sym(xtg))
    omega = _skew(xtg)
    k = G - X @ xtg
    return X @ _skew(_block_lmo(omega, norm, polar, ns_coeffs, ns_steps)) + _block_lmo(
        k, norm, polar, ns_coeffs, ns_steps
    )


def stiefel_retraction(Y: jax.Array, retraction: str = "polar") -> jax.Array:
    r"""Retract a full-column-rank matrix onto the Stiefel manifold.

    .. math::
      \text{polar: } Y(Y^\top Y)^{-1/2} = \operatorname{polar}(Y),\qquad
      \text{qr: } Q\,\operatorname{diag}(\operatorname{sign} \operatorname{diag} R),\ Y = QR.

    Args:
      Y: matrix (n, p), p ≤ n.
      retraction: ``'polar'`` or ``'qr'``.

    Returns:
      A matrix with orthonormal columns.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import stiefel_retraction
      >>> print(stiefel_retraction(jnp.array([[2.0], [0.0]])))
      [[1.]
       [0.]]

    References:
      Absil, Mahony & Sepulchre, *Optimization Algorithms on Matrix Manifolds*, 2008, §4.1.
    """
    if retraction == "polar":
        return polar_svd(Y, rank_aware=False)
    if retraction == "qr":
        q, r = jnp.linalg.qr(Y)
        s = jnp.sign(jnp.diagonal(r, axis1=-2, axis2=-1))
        s = jnp.where(s == 0, 1, s)
        return q * s[..., None, :]
    raise ValueError(f"unknown retraction {retraction!r}; use 'polar' or 'qr'")


def imuon_stiefel(
    learning_rate: optax.ScalarOrSchedule,
    norm: str = "spectral",
    *,
    retraction: str = "polar",
    momentum: optax.ScalarOrSchedule = 0.0,
    nesterov: bool = False,
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> optax.GradientTransformationExtraArgs:
    r"""iMuon on the Stiefel manifold with a polar (or QR) retraction.

    .. math::
      X_{t+1} = R\big(X_t - \eta_t\,\xi(D_t, X_t)\big),

    :math:`\xi` from :func:`stiefel_direction`, :math:`R` from
    :func:`stiefel_retraction`. Returns :math:`X_{t+1} - X_t`; transforms chained
    after it break orthonormality.

    **Params.** structure-bound to the Stiefel manifold: leaves of shape
    ``(..., n, p)`` with ``n >= p`` and orthonormal columns (an eager ``init`` checks
    :math:`X^\top X = I` to within 0.1), float16, bfloat16 (computed in float32), float32 or float64.
    Size-0 and ``None`` leaves are allowed; anything else, and complex params, are refused
    with a ``ValueError``. ``update`` ignores unknown keyword arguments.

    Args:
      learning_rate: :math:`\eta_t` (may be traced or a schedule).
      norm: ``'spectral'`` (iMuon), ``'frobenius'`` (RGD), ``'nuclear'`` (iMuon-Nu).
      retraction: ``'polar'`` or ``'qr'``.
      momentum: heavy-ball coefficient on Euclidean gradients (may be traced).
      nesterov: Nesterov direction.
      polar: ``'svd'`` or ``'newton_schulz'`` (the LMO; the retraction is always exact).
      ns_coeffs: Newton–Schulz coefficients.
      ns_steps: Newton–Schulz iterations.

    Returns:
      An :class:`optax.GradientTransformationExtraArgs`; needs ``params``.

    Example:
      >>> import jax, jax.numpy as jnp, optax
      >>> from jaxtheory.optim import imuon_stiefel
      >>> C = jnp.diag(jnp.array([3.0, 2.0, 1.0]))
      >>> f = lambda X: -0.5 * jnp.trace(X.T @ C @ X)
      >>> X = jnp.array([[0.6], [0.0], [0.8]]); tx = imuon_stiefel(lambda t: 0.3 * 0.9 ** t)
      >>> s = tx.init(X)
      >>> for _ in range(50):
      ...   u, s = tx.update(jax.grad(f)(X), s, X); X = optax.apply_updates(X, u)
      >>> print(jnp.round(jnp.abs(X.ravel()), 3))
      [1. 0. 0.]

    References:
      Li et al., arXiv 2605.09238.
    """
    _check_norm(norm)

    def step(g, x, lr):
        xi = stiefel_direction(g, x, norm, polar=polar, ns_coeffs=ns_coeffs, ns_steps=ns_steps)
        return stiefel_retraction(x - lr * xi, retraction)

    return _leafwise_transform("imuon_stiefel", step, learning_rate, momentum, nesterov, _check_stiefel)


def grassmann_direction(
    G: jax.Array,
    Y: jax.Array,
    norm: str = "spectral",
    *,
    metric: str = "balanced",
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> jax.Array:
    r"""iMuon ascent direction on the Grassmann manifold (full-rank Y modulo GL(p)).

    .. math::
      \Pi(Z) = Z - Y(Y^\top Y)^{-1}Y^\top Z,\qquad S = (Y^\top Y)^{1/2},\qquad
      H = \Pi(\nabla f)S,\qquad \xi = \operatorname{lmo}(H)\,S .

    ``metric='euclidean'`` gives Euclidean Muon on the horizontal gradient,
    :math:`\xi = \operatorname{lmo}(\Pi(\nabla f))`. The balanced direction is
    equivariant: for :math:`Y\to YM` the direction becomes :math:`\xi M` (the same
    tangent vector of the subspace), and :math:`\langle\nabla f, \xi\rangle = \varphi^*(H)`.

    Args:
      G: Euclidean gradient (n, p).
      Y: full-column-rank representative (n, p).
      norm: ``'spectral'``, ``'frobenius'`` or ``'nuclear'``.
      metric: ``'balanced'`` or ``'euclidean'``.
      polar: ``'svd'`` or ``'newton_schulz'``.
      ns_coeffs: Newton–Schulz coefficients.
      ns_steps: Newton–Schulz iterations.

    Returns:
      The horizontal ascent direction (n, p).

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import grassmann_direction
      >>> Y = jnp.array([[2.0], [0.0]]); G = jnp.array([[1.0], [3.0]])
      >>> print(grassmann_direction(G, Y))
      [[0.]
       [2.]]

    References:
      Li et al., arXiv 2605.09238.
    """
    _check_norm(norm)
    c = _t(Y) @ Y
    pig = G - Y @ jnp.linalg.solve(c, _t(Y) @ G)
    if metric == "euclidean":
        return _block_lmo(pig, norm, polar, ns_coeffs, ns_steps)
    if metric != "balanced":
        raise ValueError(f"unknown metric {metric!r}; use 'balanced' or 'euclidean'")
    s = _psd_sqrt(c)
    return _block_lmo(pig @ s, norm, polar, ns_coeffs, ns_steps) @ s


def imuon_grassmann(
    learning_rate: optax.ScalarOrSchedule,
    norm: str = "spectral",
    *,
    metric: str = "balanced",
    retraction: str = "none",
    momentum: optax.ScalarOrSchedule = 0.0,
    nesterov: bool = False,
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
) -> optax.GradientTransformationExtraArgs:
    r"""iMuon on the Grassmann manifold, with the additive or QR retraction.

    .. math::
      Y_{t+1} = R\big(Y_t - \eta_t\,\xi(D_t, Y_t)\big),\qquad R = \mathrm{id}\ (\texttt{'none'})
      \text{ or the Q factor } (\texttt{'qr'}),

    :math:`\xi` from :func:`grassmann_direction`. Returns :math:`Y_{t+1} - Y_t`.

    **Params.** structure-bound to the Grassmann manifold: leaves of shape
    ``(..., n, p)`` with ``n >= p`` and full column rank (an eager ``init`` checks the
    singular values), float16, bfloat16 (computed in float32), float32 or float64.
    Size-0 and ``None`` leaves are allowed; anything else, and complex params, are refused
    with a ``ValueError``. ``update`` ignores unknown keyword arguments.

    Args:
      learning_rate: :math:`\eta_t` (may be traced or a schedule).
      norm: ``'spectral'``, ``'frobenius'`` or ``'nuclear'``.
      metric: ``'balanced'`` (iMuon) or ``'euclidean'`` (Muon on the horizontal gradient).
      retraction: ``'none'`` (additive) or ``'qr'``.
      momentum: heavy-ball coefficient (may be traced).
      nesterov: Nesterov direction.
      polar: ``'svd'`` or ``'newton_schulz'``.
      ns_coeffs: Newton–Schulz coefficients.
      ns_steps: Newton–Schulz iterations.

    Returns:
      An :class:`optax.GradientTransformationExtraArgs`; needs ``params``.

    Example:
      >>> import jax, jax.numpy as jnp, optax
      >>> from jaxtheory.optim import imuon_grassmann
      >>> C = jnp.diag(jnp.array([3.0, 1.0]))
      >>> f = lambda Y: -0.5 * jnp.trace(Y.T @ C @ Y) / jnp.sum(Y * Y)
      >>> Y = jnp.array([[1.0], [1.0]]); tx = imuon_grassmann(lambda t: 0.5 * 0.8 ** t, retraction="qr")
      >>> s = tx.init(Y)
      >>> for _ in range(40):
      ...   u, s = tx.update(jax.grad(f)(Y), s, Y); Y = optax.apply_updates(Y, u)
      >>> print(jnp.round(jnp.abs(Y.ravel()), 3))
      [1. 0.]

    References:
      Li et al., arXiv 2605.09238.
    """
    _check_norm(norm)
    if retraction not in ("none", "qr"):
        raise ValueError(f"unknown retraction {retraction!r}; use 'none' or 'qr'")

    def step(g, y, lr):
        xi = grassmann_direction(
            g, y, norm, metric=metric, polar=polar, ns_coeffs=ns_coeffs, ns_steps=ns_steps
        )
        ynew = y - lr * xi
        return ynew if retraction == "none" else stiefel_retraction(ynew, "qr")

    return _leafwise_transform("imuon_grassmann", step, learning_rate, momentum, nesterov, _check_grassmann)
