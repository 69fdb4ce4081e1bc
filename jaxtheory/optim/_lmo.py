"""Linear-minimization-oracle (LMO) geometry for matrix parameters, and Muon.

The steepest-descent step of a matrix parameter under a norm :math:`\\|\\cdot\\|`
is the maximiser of :math:`\\langle G, D\\rangle` over the unit ball,

.. math::
  \\operatorname{lmo}(G) = \\arg\\max_{\\|D\\| \\le 1} \\langle G, D \\rangle ,

and the parameter moves by :math:`-\\eta\\,\\operatorname{lmo}(G)`. For the
spectral norm the maximiser is the polar factor :math:`UV^\\top` of
:math:`G = U\\Sigma V^\\top` (Muon), for the Frobenius norm it is
:math:`G/\\|G\\|_F` (normalized gradient descent), for the nuclear norm it is the
top singular pair :math:`u_1 v_1^\\top`.

Sign convention: the functions here return the *maximiser* (an ascent direction),
like :func:`optax.contrib.scale_by_muon`, so a transform is followed by
:func:`optax.scale_by_learning_rate`, which negates it.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._domain import check_float_params

__all__ = [
    "NS_COEFFS",
    "polar_svd",
    "polar_newton_schulz",
    "top_singular_pair",
    "lmo_spectral",
    "lmo_frobenius",
    "lmo_nuclear",
    "LMOState",
    "scale_by_lmo",
    "MuonState",
    "scale_by_muon",
    "muon",
]

#: Newton–Schulz coefficient presets ``(a, b, c)`` for the odd polynomial
#: :math:`X \\mapsto aX + b(XX^\\top)X + c(XX^\\top)^2X`. ``"quintic"`` (alias
#: ``"standard"``) is Keller Jordan's set used by Muon and ``optax.contrib.muon``;
#: it maps singular values into roughly [0.7, 1.2] rather than to 1. ``"cubic"`` is
#: the classical Newton–Schulz iteration, which converges to the exact polar
#: factor (slowly for small singular values). ``"dion"`` is the five-step table of
#: Ahn et al. (arXiv 2504.05295), one row per step.
NS_COEFFS: dict[str, Any] = {
    "quintic": (3.4445, -4.7750, 2.0315),
    "standard": (3.4445, -4.7750, 2.0315),
    "cubic": (1.5, -0.5, 0.0),
    "dion": (
        (4.0848, -6.8946, 2.9270),
        (3.9505, -6.3029, 2.6377),
        (3.7418, -5.5913, 2.3037),
        (2.8769, -3.1427, 1.2046),
        (2.8366, -3.0525, 1.2012),
    ),
}


def _t(x):
    return jnp.swapaxes(x, -1, -2)


def _eval(v, count):
    """Value of a scalar-or-schedule at ``count``."""
    return v(count) if callable(v) else v


def _svd_input(x):
    """LAPACK has no half-precision SVD/eigh: compute in float32 for bf16/f16 inputs."""
    return x.astype(jnp.float32) if jnp.dtype(x.dtype).itemsize < 4 else x


def polar_svd(x: jax.Array, *, rank_aware: bool = True, rtol: float | None = None) -> jax.Array:
    r"""Polar factor :math:`U V^\top` of a matrix by a thin SVD.

    .. math::
      x = U \Sigma V^\top, \qquad \operatorname{polar}(x) = U\,\mathbb 1[\Sigma > \tau]\,V^\top,
      \qquad \tau = \mathrm{rtol}\cdot\sigma_{\max}.

    With ``rank_aware`` the singular directions whose singular value is below
    :math:`\tau` (default ``rtol`` = machine epsilon × max(m, n)) are dropped, so the
    polar factor of a rank-deficient matrix keeps its row and column spaces (this
    is what keeps tangent and horizontal constraints in the manifold LMOs). Leading
    axes are batch axes.

    Args:
      x: array of shape ``(..., m, n)``.
      rank_aware: drop numerically zero singular directions.
      rtol: relative threshold; default ``eps(dtype) * max(m, n)``.

    Returns:
      The partial isometry of the same shape and dtype as ``x``.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import polar_svd
      >>> print(polar_svd(jnp.array([[3.0, 0.0], [0.0, 0.5]])))
      [[1. 0.]
       [0. 1.]]

    References:
      Higham, *Functions of Matrices*, SIAM 2008, ch. 8.
    """
    m, n = x.shape[-2:]
    u, s, vt = jnp.linalg.svd(_svd_input(x), full_matrices=False)
    if rank_aware:
        if rtol is None:
            rtol = float(jnp.finfo(s.dtype).eps) * max(m, n)
        tol = rtol * s[..., :1]
        u = u * (s > tol)[..., None, :].astype(u.dtype)
    return (u @ vt).astype(x.dtype)


def _ns_coeff_array(ns_coeffs, ns_steps: int, dtype) -> jax.Array:
    if isinstance(ns_coeffs, str):
        if ns_coeffs not in NS_COEFFS:
            raise ValueError(f"unknown Newton-Schulz preset {ns_coeffs!r}; known: {sorted(NS_COEFFS)}")
        ns_coeffs = NS_COEFFS[ns_coeffs]
    c = jnp.asarray(ns_coeffs)
    if c.ndim == 1:
        if c.shape[0] != 3:
            raise ValueError(f"ns_coeffs must have shape (3,) or (k, 3), got {c.shape}")
        c = jnp.broadcast_to(c, (ns_steps, 3))
    elif c.ndim != 2 or c.shape[1] != 3:
        raise ValueError(f"ns_coeffs must have shape (3,) or (k, 3), got {c.shape}")
    return c.astype(dtype)


def polar_newton_schulz(
    x: jax.Array,
    ns_coeffs: str | Any = "quintic",
    ns_steps: int = 5,
    eps: float | jax.Array = 1e-8,
) -> jax.Array:
    r"""Approximate polar factor by a Newton–Schulz iteration.

    .. math::
      X_0 = \frac{x}{\|x\|_F + \varepsilon}, \qquad
      X_{k+1} = a_k X_k + b_k (X_k X_k^\top) X_k + c_k (X_k X_k^\top)^2 X_k .

    Tall inputs are transposed so that the Gram matrix is the smaller one. The loop
    is unrolled (``ns_steps`` is a Python int). With the ``"quintic"`` preset and
    ``eps=1e-8`` this is the orthogonalization of :func:`optax.contrib.muon`
    (``preconditioning='frobenius'``); with ``"cubic"`` and enough steps it converges
    to the exact polar factor.

    Args:
      x: array of shape ``(..., m, n)``; leading axes are batch axes.
      ns_coeffs: a preset name from :data:`NS_COEFFS`, a triple ``(a, b, c)`` used
        at every step, or a ``(k, 3)`` table (one row per step; ``ns_steps`` is then
        ignored).
      ns_steps: number of iterations when ``ns_coeffs`` is one triple.
      eps: added to the Frobenius norm before scaling (may be traced).

    Returns:
      An array of the shape and dtype of ``x``.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import polar_newton_schulz
      >>> y = polar_newton_schulz(jnp.diag(jnp.array([2.0, 1.0])), "cubic", 30)
      >>> print(jnp.round(y, 4))
      [[1. 0.]
       [0. 1.]]

    References:
      Jordan, *Muon: An optimizer for hidden layers*, 2024
      (kellerjordan.github.io/posts/muon); Bernstein & Newhouse, arXiv 2409.20325.
    """
    if x.ndim < 2:
        raise ValueError(f"polar_newton_schulz needs a matrix, got shape {x.shape}")
    c = _ns_coeff_array(ns_coeffs, ns_steps, x.dtype)
    transposed = x.shape[-2] > x.shape[-1]
    if transposed:
        x = _t(x)
    norm = jnp.linalg.norm(x, ord="fro", axis=(-2, -1), keepdims=True)
    x = x / (norm + eps)
    for k in range(c.shape[0]):
        a = x @ _t(x)
        b = c[k, 1] * a + c[k, 2] * a @ a
        x = c[k, 0] * x + b @ x
    if transposed:
        x = _t(x)
    return x


def top_singular_pair(x: jax.Array) -> jax.Array:
    r"""Rank-one matrix :math:`u_1 v_1^\top` of the top singular pair (exact SVD).

    Args:
      x: array of shape ``(..., m, n)``.

    Returns:
      :math:`u_1 v_1^\top`, same shape and dtype; zero where ``x`` is zero.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import top_singular_pair
      >>> print(top_singular_pair(jnp.array([[1.0, 0.0], [0.0, 3.0]])))
      [[0. 0.]
       [0. 1.]]

    References:
      Pethick et al., *Training deep learning models with norm-constrained LMOs*,
      arXiv 2502.07529.
    """
    u, s, vt = jnp.linalg.svd(_svd_input(x), full_matrices=False)
    out = u[..., :, :1] @ vt[..., :1, :]
    return jnp.where(s[..., :1, None] > 0, out, 0).astype(x.dtype)


def lmo_spectral(
    g: jax.Array, *, method: str = "svd", ns_coeffs="quintic", ns_steps: int = 5, eps=1e-8
) -> jax.Array:
    r"""Maximiser of :math:`\langle G, D\rangle` over the spectral-norm unit ball.

    .. math::
      \arg\max_{\|D\|_2 \le 1} \langle G, D\rangle = \operatorname{polar}(G) = UV^\top,
      \qquad \langle G, UV^\top \rangle = \|G\|_* .

    Args:
      g: array ``(..., m, n)``.
      method: ``'svd'`` (exact, rank-aware) or ``'newton_schulz'``.
      ns_coeffs: Newton–Schulz coefficients (see :func:`polar_newton_schulz`).
      ns_steps: Newton–Schulz iterations.
      eps: Newton–Schulz normalisation epsilon.

    Returns:
      The polar factor of ``g``.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import lmo_spectral
      >>> print(lmo_spectral(jnp.array([[2.0, 0.0], [0.0, -1.0]])))
      [[ 1.  0.]
       [ 0. -1.]]

    References:
      Bernstein & Newhouse, *Old optimizer, new norm*, arXiv 2409.20325.
    """
    if method == "svd":
        return polar_svd(g)
    if method == "newton_schulz":
        return polar_newton_schulz(g, ns_coeffs, ns_steps, eps)
    raise ValueError(f"unknown polar method {method!r}; use 'svd' or 'newton_schulz'")


def lmo_frobenius(g: jax.Array) -> jax.Array:
    r"""Maximiser of :math:`\langle G, D\rangle` over the Frobenius unit ball.

    .. math::
      \arg\max_{\|D\|_F \le 1} \langle G, D\rangle = G / \|G\|_F \quad(0 \text{ if } G = 0).

    The norm is taken over the last two axes.

    Args:
      g: array ``(..., m, n)``.

    Returns:
      ``g`` normalised to unit Frobenius norm.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import lmo_frobenius
      >>> print(lmo_frobenius(jnp.array([[3.0, 4.0]])))
      [[0.6 0.8]]

    References:
      Pethick et al., arXiv 2502.07529.
    """
    nrm = jnp.sqrt(jnp.sum(jnp.square(g), axis=(-2, -1), keepdims=True))
    return jnp.where(nrm > 0, g / jnp.where(nrm > 0, nrm, 1), 0).astype(g.dtype)


def lmo_nuclear(g: jax.Array) -> jax.Array:
    r"""Maximiser of :math:`\langle G, D\rangle` over the nuclear-norm unit ball.

    .. math::
      \arg\max_{\|D\|_* \le 1} \langle G, D\rangle = u_1 v_1^\top,
      \qquad \langle G, u_1 v_1^\top\rangle = \|G\|_2 .

    Args:
      g: array ``(..., m, n)``.

    Returns:
      The top singular pair of ``g`` as a rank-one matrix.

    Example:
      >>> import jax.numpy as jnp
      >>> from jaxtheory.optim import lmo_nuclear
      >>> print(lmo_nuclear(jnp.array([[0.0, 2.0], [1.0, 0.0]])) + 0.0)
      [[0. 1.]
       [0. 0.]]

    References:
      Pethick et al., arXiv 2502.07529.
    """
    return top_singular_pair(g)


_NORMS = ("spectral", "frobenius", "nuclear")


def _lmo(g, norm, method, ns_coeffs, ns_steps, eps):
    if norm == "spectral":
        return lmo_spectral(g, method=method, ns_coeffs=ns_coeffs, ns_steps=ns_steps, eps=eps)
    if norm == "frobenius":
        return lmo_frobenius(g)
    if norm == "nuclear":
        return lmo_nuclear(g)
    raise ValueError(f"unknown norm {norm!r}; use one of {_NORMS}")


class LMOState(NamedTuple):
    """State of :func:`scale_by_lmo`: step count and momentum buffer."""

    count: jax.Array
    mu: optax.Updates


def scale_by_lmo(
    norm: str = "spectral",
    radius: optax.ScalarOrSchedule = 1.0,
    beta: optax.ScalarOrSchedule = 0.0,
    *,
    nesterov: bool = False,
    polar: str = "svd",
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
    eps: float = 1e-8,
) -> optax.GradientTransformation:
    r"""Replace each matrix update by the LMO of its momentum (Scion/Gluon-style step).

    .. math::
      M_t = \beta M_{t-1} + (1-\beta) G_t, \qquad
      D_t = \begin{cases} \beta M_t + (1-\beta) G_t & \text{Nesterov}\\ M_t & \text{else}\end{cases},
      \qquad U_t = \rho_t \arg\max_{\|D\| \le 1} \langle D_t, D\rangle .

    Follow it by :func:`optax.scale_by_learning_rate` (or use ``radius`` as the step
    and :func:`optax.scale` (-1)). Every leaf must have ``ndim >= 2``; leading axes
    are batch axes (one LMO per trailing matrix). Route other leaves with
    :func:`optax.partition`.

    **Params.** leaves of ``ndim >= 2`` (matrices, or batches of matrices on the last two
    axes), float16, bfloat16 (computed in float32), float32 or float64; ``None`` leaves
    allowed. Vectors, scalars and complex params are refused at ``init`` with a
    ``ValueError``. A building block (no learning rate): ``update`` takes no extra
    keyword arguments (wrap it in :func:`optax.with_extra_args_support` or a chain).

    Args:
      norm: ``'spectral'``, ``'frobenius'`` or ``'nuclear'`` (structural).
      radius: ball radius :math:`\rho`, scalar or schedule (may be traced).
      beta: momentum :math:`\beta \in [0, 1)`, scalar or schedule (may be traced).
      nesterov: use the Nesterov look-ahead direction.
      polar: ``'svd'`` (exact) or ``'newton_schulz'`` for the spectral norm.
      ns_coeffs: Newton–Schulz coefficients.
      ns_steps: Newton–Schulz iterations.
      eps: Newton–Schulz normalisation epsilon.

    Returns:
      An :class:`optax.GradientTransformation` with state :class:`LMOState`.

    Example:
      >>> import jax.numpy as jnp, optax
      >>> from jaxtheory.optim import scale_by_lmo
      >>> tx = optax.chain(scale_by_lmo("spectral"), optax.scale_by_learning_rate(0.1))
      >>> p = {"w": jnp.array([[1.0, 0.0], [0.0, 1.0]])}
      >>> u, _ = tx.update({"w": jnp.array([[4.0, 0.0], [0.0, 0.5]])}, tx.init(p), p)
      >>> print(u["w"])
      [[-0.1 -0. ]
       [-0.  -0.1]]

    References:
      Pethick et al., *Training deep learning models with norm-constrained LMOs*,
      arXiv 2502.07529; Bernstein & Newhouse, arXiv 2409.20325.
    """
    if norm not in _NORMS:
        raise ValueError(f"unknown norm {norm!r}; use one of {_NORMS}")

    def init_fn(params):
        check_float_params(params, "scale_by_lmo")
        for leaf in jax.tree.leaves(params):
            if jnp.ndim(leaf) < 2:
                raise ValueError(
                    f"scale_by_lmo needs matrix leaves (ndim >= 2), got shape {jnp.shape(leaf)}; "
                    "route vectors and scalars elsewhere with optax.partition"
                )
        return LMOState(count=jnp.zeros([], jnp.int32), mu=optax.tree.zeros_like(params))

    def update_fn(updates, state, params=None):
        del params
        b = _eval(beta, state.count)
        r = _eval(radius, state.count)
        mu = jax.tree.map(lambda g, m: b * m + (1 - b) * g.astype(m.dtype), updates, state.mu)
        if nesterov:
            d = jax.tree.map(lambda g, m: b * m + (1 - b) * g.astype(m.dtype), updates, mu)
        else:
            d = mu
        out = jax.tree.map(
            lambda x, g: (r * _lmo(x, norm, polar, ns_coeffs, ns_steps, eps)).astype(g.dtype), d, updates
        )
        return out, LMOState(count=optax.safe_increment(state.count), mu=mu)

    return optax.GradientTransformation(init_fn, update_fn)


class MuonState(NamedTuple):
    """State of :func:`scale_by_muon`: step count and first moment."""

    count: jax.Array
    mu: optax.Updates


def scale_by_muon(
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
    beta: optax.ScalarOrSchedule = 0.95,
    eps: float | jax.Array = 1e-8,
    mu_dtype: Any = None,
    *,
    nesterov: bool = True,
    adaptive: bool = False,
    polar: str = "newton_schulz",
) -> optax.GradientTransformation:
    r"""Muon's update direction: orthogonalized bias-corrected (Nesterov) momentum.

  .. math::
    \mu_t &= \beta\mu_{t-1} + (1-\beta) G_t, \\
    \hat M_t &= \beta \frac{\mu_t}{1-\beta^{t+1}} + (1-\beta)\frac{G_t}{1-\beta^{t}}
      \quad(\text{Nesterov; else } \mu_t/(1-\beta^t)), \\
    U_t &= \operatorname{polar}(\hat M_t)\quad(\text{Newton–Schulz or SVD}).

  This reproduces ``optax.contrib.scale_by_muon`` (``preconditioning='frobenius'``,
  2-D leaves) operation for operation when ``polar='newton_schulz'``.
  ``adaptive=True`` rescales by the dual norm :math:`\langle \hat M_t, U_t\rangle`.

  **Params.** matrices (2-D leaves; a leaf of ``ndim >= 2`` is orthogonalized on its
  last two axes), float16, bfloat16, float32 or float64; ``None`` leaves allowed. Complex
  params are refused at ``init``. A building block: ``update`` takes no extra keyword
  arguments (a chain or :func:`optax.with_extra_args_support` drops them).

  Args:
    ns_coeffs: Newton–Schulz coefficients (preset name, triple or table).
    ns_steps: Newton–Schulz iterations (Python int).
    beta: momentum decay, scalar or schedule (may be traced).
    eps: Newton–Schulz normalisation epsilon (may be traced).
    mu_dtype: dtype of the momentum buffer (default: the params' dtype).
    nesterov: Nesterov look-ahead.
    adaptive: multiply by the dual norm (arXiv 2409.20325).
    polar: ``'newton_schulz'`` or ``'svd'`` (exact, rank-aware).

  Returns:
    An :class:`optax.GradientTransformation` with state :class:`MuonState`.

  Example:
    >>> import jax.numpy as jnp
    >>> from jaxtheory.optim import scale_by_muon
    >>> tx = scale_by_muon(polar="svd")
    >>> p = jnp.zeros((2, 2))
    >>> u, _ = tx.update(jnp.array([[2.0, 0.0], [0.0, 3.0]]), tx.init(p))
    >>> print(jnp.round(u, 4))
    [[1. 0.]
     [0. 1.]]

  References:
    Jordan et al., *Muon*, 2024; Liu et al., arXiv 2502.16982.
  """
    mu_dtype = None if mu_dtype is None else jnp.dtype(mu_dtype)

    def init_fn(params):
        check_float_params(params, "scale_by_muon")
        for leaf in jax.tree.leaves(params):
            if jnp.ndim(leaf) < 2:
                raise ValueError(
                    f"scale_by_muon takes matrix leaves (2-D, or batches on the last two axes); got "
                    f"a leaf of shape {jnp.shape(leaf)}: route vectors and scalars elsewhere with "
                    "optax.partition (muon does, to AdamW)"
                )
        return MuonState(count=jnp.zeros([], jnp.int32), mu=optax.tree.zeros_like(params, dtype=mu_dtype))

    def orth(x):
        if polar == "newton_schulz":
            return polar_newton_schulz(x, ns_coeffs, ns_steps, eps)
        if polar == "svd":
            return polar_svd(x)
        raise ValueError(f"unknown polar method {polar!r}")

    def update_fn(updates, state, params=None):
        del params
        b = _eval(beta, state.count)
        mu = jax.tree.map(lambda g, m: (1 - b) * g + b * m, updates, state.mu)
        count_inc = optax.safe_increment(state.count)
        if nesterov:
            c1 = 1 - b ** optax.safe_increment(count_inc)
            c0 = 1 - b**count_inc
            mu_hat = jax.tree.map(
                lambda m, g: b * (m / c1.astype(m.dtype)) + (1 - b) * (g / c0.astype(g.dtype)), mu, updates
            )
        else:
            c0 = 1 - b**count_inc
            mu_hat = jax.tree.map(lambda m: m / c0.astype(m.dtype), mu)
        out = jax.tree.map(orth, mu_hat)
        if adaptive:
            out = jax.tree.map(lambda x, y: jnp.sum(x * y) * y, mu_hat, out)
        out = jax.tree.map(lambda u, g: u.astype(g.dtype), out, updates)
        mu = jax.tree.map(lambda m, m0: m.astype(m0.dtype), mu, state.mu)
        return out, MuonState(count=count_inc, mu=mu)

    return optax.GradientTransformation(init_fn, update_fn)


def _shape_scale(consistent_rms):
    """Muon's per-matrix shape factor, as a stateless transform."""

    def update_fn(updates, state, params=None):
        del params

        def f(u):
            fan_in, fan_out = u.shape[-2], u.shape[-1]
            if consistent_rms is None:
                s = math.sqrt(max(1.0, fan_out / fan_in))
                return (s * u).astype(u.dtype)
            return (jnp.sqrt(jnp.maximum(fan_in, fan_out)) * consistent_rms * u).astype(u.dtype)

        return jax.tree.map(f, updates), state

    return optax.GradientTransformation(optax.init_empty_state, update_fn)


def muon(
    learning_rate: optax.ScalarOrSchedule,
    ns_coeffs: Any = "quintic",
    ns_steps: int = 5,
    beta: optax.ScalarOrSchedule = 0.95,
    eps: float | jax.Array = 1e-8,
    weight_decay: float | jax.Array = 0.0,
    weight_decay_mask: Any = None,
    mu_dtype: Any = None,
    *,
    nesterov: bool = True,
    adaptive: bool = False,
    polar: str = "newton_schulz",
    adam_b1: float | jax.Array = 0.9,
    adam_b2: float | jax.Array = 0.999,
    adam_eps_root: float | jax.Array = 0.0,
    adam_weight_decay: float | jax.Array = 0.0,
    adam_learning_rate: optax.ScalarOrSchedule | None = None,
    consistent_rms: float | jax.Array | None = None,
) -> optax.GradientTransformation:
    r"""Muon on 2-D parameters with an AdamW fallback for every other leaf.

    For each 2-D leaf :math:`W \in \mathbb R^{m\times n}` (fan-in :math:`m`, fan-out
    :math:`n`):

    .. math::
      W \leftarrow W - \eta_t\Big(s\,\operatorname{polar}(\hat M_t) + \lambda W\Big),
      \qquad s = \sqrt{\max(1, n/m)}\ \ (\text{or } \sqrt{\max(m,n)}\,\rho_{\mathrm{rms}}),

    with :math:`\hat M_t` from :func:`scale_by_muon`; leaves with ``ndim != 2`` use
    :func:`optax.adamw` (Nesterov, ``eps`` shared). With its defaults this
    reproduces ``optax.contrib.muon`` (tested to float32 round-off).

    **Params.** any pytree of float16, bfloat16, float32 or float64 arrays: 2-D leaves
    take the Muon step, every other leaf (vectors, scalars, batches, size-0) AdamW;
    ``None`` leaves allowed. Complex 2-D leaves are refused (other complex leaves follow
    AdamW, which takes them with optax's convention). ``update`` ignores unknown keyword
    arguments.

    Args:
      learning_rate: step size, scalar or schedule (may be traced).
      ns_coeffs: Newton–Schulz coefficients.
      ns_steps: Newton–Schulz iterations (a Python int: the loop is unrolled; with
        :func:`optax.inject_hyperparams` pass ``static_args=("ns_steps",)``).
      beta: momentum decay (may be traced or a schedule).
      eps: Newton–Schulz and Adam epsilon.
      weight_decay: decoupled weight decay of the Muon leaves (multiplied by the lr).
      weight_decay_mask: mask or callable for the weight decay of the Muon leaves.
      mu_dtype: momentum dtype.
      nesterov: Nesterov momentum (both branches).
      adaptive: dual-norm scaling.
      polar: ``'newton_schulz'`` or ``'svd'``.
      adam_b1: Adam :math:`\beta_1`.
      adam_b2: Adam :math:`\beta_2`.
      adam_eps_root: Adam epsilon inside the square root.
      adam_weight_decay: Adam weight decay.
      adam_learning_rate: Adam step size (default: ``learning_rate``).
      consistent_rms: if set, scale by :math:`\sqrt{\max(m,n)}\rho_{\mathrm{rms}}`
        (Moonlight, arXiv 2502.16982) instead of :math:`\sqrt{\max(1,n/m)}`.

    Returns:
      An :class:`optax.GradientTransformation` (an :func:`optax.partition`).

    Example:
      >>> import jax, jax.numpy as jnp, optax
      >>> from jaxtheory.optim import muon
      >>> p = {"w": jnp.eye(3), "b": jnp.zeros(3)}
      >>> loss = lambda p: jnp.sum((p["w"] @ jnp.ones(3) + p["b"] - 2.0) ** 2)
      >>> tx = muon(0.05)
      >>> s = tx.init(p)
      >>> print(f"{loss(p):.3f}")
      3.000
      >>> for _ in range(20):
      ...   u, s = tx.update(jax.grad(loss)(p), s, p)
      ...   p = optax.apply_updates(p, u)
      >>> print(f"{loss(p):.3f}")
      0.394

    References:
      Jordan et al., *Muon*, 2024; Liu et al., *Muon is scalable for LLM training*,
      arXiv 2502.16982; ``optax.contrib.muon``.
    """
    if adam_learning_rate is None:
        adam_learning_rate = learning_rate

    def labels(params):
        return jax.tree.map(lambda x: "muon" if jnp.ndim(x) == 2 else "adam", params)

    return optax.partition(
        transforms={
            "muon": optax.chain(
                scale_by_muon(
                    ns_coeffs,
                    ns_steps,
                    beta,
                    eps,
                    mu_dtype,
                    nesterov=nesterov,
                    adaptive=adaptive,
                    polar=polar,
                ),
                _shape_scale(consistent_rms),
                optax.add_decayed_weights(weight_decay, weight_decay_mask),
                optax.scale_by_learning_rate(learning_rate),
            ),
            "adam": optax.adamw(
                learning_rate=adam_learning_rate,
                b1=adam_b1,
                b2=adam_b2,
                eps=eps,
                eps_root=adam_eps_root,
                weight_decay=adam_weight_decay,
                mu_dtype=mu_dtype,
                nesterov=nesterov,
            ),
        },
        param_labels=labels,
    )
