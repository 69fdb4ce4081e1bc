"""Exact GP posterior on a finite candidate set, updated one observation at a time.

Let :math:`X = \\{x_1, \\dots, x_n\\}` be the candidate set and :math:`K` the prior
covariance on it, including a nugget :math:`c` on the diagonal
(:math:`K = K_{\\mathrm{kernel}} + cI`, which makes the noiseless problem well posed).
After observations :math:`y_D` at :math:`D = (i_1, \\dots, i_m)` with noise variance
:math:`\\sigma^2`, let :math:`L` be the Cholesky factor of :math:`K_{DD} + \\sigma^2 I`
and keep

.. math::
    V = L^{-1} K_{DX} \\in \\mathbb{R}^{m \\times n}, \\qquad
    \\alpha = L^{-1} y_D, \\qquad
    \\mu = V^\\top \\alpha, \\qquad
    \\sigma_m^2(x) = K_{xx} - \\lVert V_{:,x} \\rVert^2 .

A new point :math:`x_i` borders the factor: its row of :math:`L` is :math:`l = V_{:,i}`
with diagonal :math:`d = (\\sigma_m^2(x_i) + \\sigma^2)^{1/2}`, and the new row of
:math:`V` is :math:`v = (K_{iX} - l^\\top V)/d`, so :math:`\\sigma^2 \\leftarrow
\\sigma^2 - v^2` (:func:`add_point`, cost :math:`O(mn)`, no refactorization). The
variance needs only the location, so GP-BUCB's *hallucinated* variance is exactly this
step. When the value arrives, :math:`\\alpha_{m+1} = (y - l^\\top\\alpha)/d` and
:math:`\\mu \\leftarrow \\mu + \\alpha_{m+1} v` (:func:`add_value`).

Shapes are fixed: a buffer of ``B`` slots (one per evaluation) holds the rows; an
unused or *skipped* slot has a zero row of :math:`V`, the unit row :math:`e_j` in
:math:`L` and :math:`\\alpha_j = 0`, so it changes nothing. An observation is skipped
when :math:`\\sigma_m^2(x_i) + \\sigma^2 \\le` ``tol``: in the noiseless case that is a
point already observed exactly (its value carries no information, and the bordered
factor would divide by zero). With the nugget, an unobserved point always has
:math:`\\sigma_m^2 \\ge c`, so ``tol = c/2`` separates the two.

Posterior draws use Matheron's rule (:func:`matheron_sample`): with a prior draw
:math:`\\tilde f = S\\xi` (:math:`SS^\\top = K`) and :math:`\\tilde\\varepsilon \\sim
N(0, \\sigma^2 I)`,

.. math::
    g = \\tilde f + K_{XD}(K_{DD} + \\sigma^2 I)^{-1}(y_D - \\tilde f_D - \\tilde\\varepsilon)
      = \\tilde f + V^\\top L^{-1}(y_D - \\tilde f_D - \\tilde\\varepsilon)

is an exact draw from the posterior, jointly over the candidate set, at the cost of one
triangular solve with the :math:`B \\times B` factor.

References:
    Rasmussen and Williams (2006), *Gaussian Processes for Machine Learning*, §2.2.
    Desautels, Krause and Burdick (2014), JMLR 15:4053, GP-BUCB (hallucinated variance).
    Wilson, Borovitskiy, Terenin, Mostowsky and Deisenroth (2020), arXiv:2002.09309
    (Matheron's rule, pathwise conditioning).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["GPState", "init_state", "add_point", "add_value", "observe", "matheron_sample", "dense_posterior"]


class GPState(NamedTuple):
    """The posterior with a fixed-size buffer of ``B`` observation slots.

    Attributes:
        V: :math:`L^{-1}K_{DX}`, shape ``(B, n)``; zero rows for unused/skipped slots.
        L: Cholesky factor of :math:`K_{DD} + \\sigma^2 I`, shape ``(B, B)``; unit rows
            for unused/skipped slots.
        alpha: :math:`L^{-1} y_D`, shape ``(B,)``.
        mean: posterior mean on the candidates, shape ``(n,)`` (data fed back so far).
        var: posterior variance, shape ``(n,)`` (includes hallucinated points).
        idx: candidate index of each slot, shape ``(B,)`` (int32).
        y: observed value of each slot, shape ``(B,)``.
        used: whether a slot's observation entered the posterior, shape ``(B,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> s = init_state(jnp.ones(5), 3)
        >>> type(s).__name__, s.V.shape, s.L.shape, int(s.used.sum())
        ('GPState', (3, 5), (3, 3), 0)
    """

    V: jax.Array
    L: jax.Array
    alpha: jax.Array
    mean: jax.Array
    var: jax.Array
    idx: jax.Array
    y: jax.Array
    used: jax.Array


def init_state(prior_var, buffer: int) -> GPState:
    """The prior: zero mean, variance ``prior_var``, every slot empty.

    Args:
        prior_var: :math:`K_{xx}` on the candidates, shape ``(n,)``.
        buffer: number of slots ``B`` (the evaluation budget).

    Returns:
        A :class:`GPState`.

    Example:
        >>> import jax.numpy as jnp
        >>> s = init_state(jnp.ones(3), 2)
        >>> s.V.shape, s.L.tolist(), s.var.tolist()
        ((2, 3), [[1.0, 0.0], [0.0, 1.0]], [1.0, 1.0, 1.0])
    """
    prior_var = jnp.asarray(prior_var)
    n, dt = prior_var.shape[0], prior_var.dtype
    return GPState(
        V=jnp.zeros((buffer, n), dt),
        L=jnp.eye(buffer, dtype=dt),
        alpha=jnp.zeros((buffer,), dt),
        mean=jnp.zeros((n,), dt),
        var=prior_var,
        idx=jnp.zeros((buffer,), jnp.int32),
        y=jnp.zeros((buffer,), dt),
        used=jnp.zeros((buffer,), bool),
    )


def add_point(state: GPState, slot, i, krow, noise_var, tol) -> GPState:
    """Border the factor with candidate ``i`` in ``slot``: the variance update only.

    .. math::
        l = V_{:,i},\\quad d = (\\sigma^2(x_i) + \\sigma^2)^{1/2},\\quad
        v = (K_{iX} - l^\\top V)/d,\\quad \\sigma^2 \\leftarrow \\max(\\sigma^2 - v^2, 0).

    The mean is untouched until :func:`add_value` (GP-BUCB's hallucination). Slots must
    be filled in increasing order, and every earlier slot must be filled.

    Args:
        state: current :class:`GPState`.
        slot: slot index ``j`` (may be traced).
        i: candidate index (may be traced).
        krow: :math:`K_{iX}` (nugget included at ``i``), shape ``(n,)``.
        noise_var: :math:`\\sigma^2 \\ge 0`.
        tol: skip threshold on :math:`\\sigma^2(x_i) + \\sigma^2`.

    Returns:
        The updated :class:`GPState`.

    Example:
        >>> import jax.numpy as jnp
        >>> K = jnp.array([[1.0, 0.5], [0.5, 1.0]])
        >>> s = add_point(init_state(jnp.diag(K), 2), 0, 0, K[0], 0.0, 1e-6)
        >>> s.var.tolist()          # noiseless: x0 known, x1 keeps 1 - 0.5**2
        [0.0, 0.75]
    """
    l = state.V[:, i]
    s2 = state.var[i] + noise_var
    ok = s2 > tol
    d = jnp.sqrt(jnp.where(ok, s2, 1.0))
    v = jnp.where(ok, (krow - l @ state.V) / d, 0.0)
    B = state.L.shape[0]
    onehot = jnp.arange(B) == slot
    lrow = jnp.where(ok, jnp.where(onehot, d, l), onehot.astype(l.dtype))
    return state._replace(
        V=state.V.at[slot].set(v),
        L=state.L.at[slot].set(lrow),
        var=jnp.maximum(state.var - v * v, 0.0),
        idx=state.idx.at[slot].set(jnp.asarray(i, jnp.int32)),
        used=state.used.at[slot].set(ok),
    )


def add_value(state: GPState, slot, y) -> GPState:
    """Feed back the value of ``slot``: :math:`\\alpha_j = (y - L_{j,<j}\\alpha_{<j})/L_{jj}`.

    Then :math:`\\mu \\leftarrow \\mu + \\alpha_j V_{j,:}`. Values of a batch are fed back
    in slot order. A skipped slot stores ``y`` and leaves the posterior unchanged.

    Args:
        state: a :class:`GPState` whose ``slot`` was filled by :func:`add_point`.
        slot: slot index (may be traced).
        y: observed value.

    Returns:
        The updated :class:`GPState`.

    Example:
        >>> import jax.numpy as jnp
        >>> K = jnp.array([[1.0, 0.5], [0.5, 1.0]])
        >>> s = add_point(init_state(jnp.diag(K), 2), 0, 0, K[0], 0.0, 1e-6)
        >>> add_value(s, 0, 2.0).mean.tolist()
        [2.0, 1.0]
    """
    row = state.L[slot]
    pred = row @ state.alpha  # alpha[slot] is still 0 and row[>slot] = 0
    a = jnp.where(state.used[slot], (y - pred) / row[slot], 0.0)
    return state._replace(
        alpha=state.alpha.at[slot].set(a),
        mean=state.mean + a * state.V[slot],
        y=state.y.at[slot].set(y),
    )


def observe(state: GPState, slot, i, krow, y, noise_var, tol) -> GPState:
    """:func:`add_point` then :func:`add_value`: one sequential observation.

    Args:
        state: current :class:`GPState`.
        slot: slot index.
        i: candidate index.
        krow: :math:`K_{iX}`.
        y: observed value.
        noise_var: :math:`\\sigma^2`.
        tol: skip threshold.

    Returns:
        The updated :class:`GPState`.

    Example:
        >>> import jax.numpy as jnp
        >>> K = jnp.array([[1.0, 0.5], [0.5, 1.0]])
        >>> s = observe(init_state(jnp.diag(K), 2), 0, 1, K[1], 1.0, 1.0, 1e-6)
        >>> s.mean.round(6).tolist(), s.var.round(6).tolist()
        ([0.25, 0.5], [0.875, 0.5])
    """
    return add_value(add_point(state, slot, i, krow, noise_var, tol), slot, y)


def matheron_sample(state: GPState, prior_sqrt, xi, eps, noise_var):
    """Exact joint posterior draws on the candidate set by Matheron's rule.

    .. math::
        g = \\tilde f + V^\\top L^{-1}\\big(y_D - \\tilde f_D - \\sigma\\tilde\\varepsilon\\big),
        \\qquad \\tilde f = S\\xi,

    over the slots whose values were fed back (``used``); other slots are masked to
    zero. Only slots holding values may be ``used`` when this is called (draw before
    hallucinating a batch, as GP-BTS does).

    Args:
        state: a :class:`GPState` with every used slot's value fed back.
        prior_sqrt: :math:`S` with :math:`SS^\\top = K`, shape ``(n, n)`` (a Cholesky factor).
        xi: standard normals, shape ``(Q, n)``.
        eps: standard normals, shape ``(Q, B)``.
        noise_var: :math:`\\sigma^2`.

    Returns:
        ``Q`` posterior draws, shape ``(Q, n)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> K = jnp.array([[1.0, 0.5], [0.5, 1.0]])
        >>> s = observe(init_state(jnp.diag(K), 1), 0, 0, K[0], 2.0, 0.0, 1e-6)
        >>> g = matheron_sample(s, jnp.linalg.cholesky(K), jnp.ones((1, 2)), jnp.zeros((1, 1)), 0.0)
        >>> g[0, 0].round(5).item()    # noiseless: the draw passes through the data
        2.0
    """
    F = xi @ prior_sqrt.T  # (Q, n) prior draws
    r = state.y[None, :] - F[:, state.idx] - jnp.sqrt(noise_var) * eps
    r = jnp.where(state.used[None, :], r, 0.0)
    w = jax.scipy.linalg.solve_triangular(state.L, r.T, lower=True)  # (B, Q)
    return F + w.T @ state.V


def dense_posterior(K, idx, y, noise_var):
    """Reference posterior by a direct dense solve (numpy, float64).

    .. math::
        \\mu = K_{XD}(K_{DD} + \\sigma^2 I)^{-1} y, \\qquad
        \\Sigma = K - K_{XD}(K_{DD} + \\sigma^2 I)^{-1}K_{DX}.

    Args:
        K: prior covariance on the candidates (nugget included), shape ``(n, n)``.
        idx: observed candidate indices, shape ``(m,)``.
        y: observed values, shape ``(m,)``.
        noise_var: :math:`\\sigma^2`.

    Returns:
        ``(mean, cov)`` as float64 numpy arrays of shapes ``(n,)`` and ``(n, n)``.

    Example:
        >>> import numpy as np
        >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
        >>> mu, cov = dense_posterior(K, [1], [1.0], 1.0)
        >>> mu.tolist(), np.diag(cov).tolist()
        ([0.25, 0.5], [0.875, 0.5])
    """
    K = np.asarray(K, np.float64)
    idx = np.asarray(idx, np.int64)
    y = np.asarray(y, np.float64)
    if idx.size == 0:
        return np.zeros(K.shape[0]), K.copy()
    A = K[np.ix_(idx, idx)] + float(noise_var) * np.eye(idx.size)
    KXD = K[:, idx]
    sol = np.linalg.solve(A, np.concatenate([y[:, None], KXD.T], axis=1))
    return KXD @ sol[:, 0], K - KXD @ sol[:, 1:]
