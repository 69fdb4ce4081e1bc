"""Pathwise posterior samples on the continuous domain :math:`[0,1]^d`: random features.

**Random Fourier features** (Rahimi and Recht 2007). A stationary kernel
:math:`k(x, x') = v\\,\\kappa((x - x')/\\ell)` is :math:`v\\,\\mathbb{E}_\\omega
\\cos(\\omega^\\top (x - x')/\\ell)` for :math:`\\omega` drawn from its normalized spectral
density: standard Gaussian for the SE kernel; for Matérn-:math:`\\nu` the multivariate
Student-t with :math:`2\\nu` degrees of freedom, the scale mixture
:math:`\\omega = z/\\sqrt{G}`, :math:`z \\sim N(0, I_d)`, :math:`G \\sim
\\mathrm{Gamma}(\\nu, \\text{rate } \\nu)`. For :math:`\\nu \\in \\{1/2, 3/2, 5/2\\}` the
degrees of freedom :math:`k = 2\\nu` are integers and :math:`G = \\chi^2_k/k` is a sum
of :math:`k` squared standard normals over :math:`k`, so every random number here is a
standard normal. With :math:`M` frequencies and paired features

.. math::
    \\tilde f(x) = \\sqrt{v/M}\\sum_{i=1}^M \\big[w_{i,1}\\cos(\\omega_i^\\top x/\\ell)
    + w_{i,2}\\sin(\\omega_i^\\top x/\\ell)\\big], \\qquad w \\sim N(0, I),

:math:`\\mathrm{Cov}(\\tilde f(x), \\tilde f(x')) = k(x, x')` exactly when the frequencies
are random too (for fixed frequencies, up to :math:`O(M^{-1/2})`).

**Pathwise conditioning** (Wilson et al. 2020, Matheron's rule). With data
:math:`(X_D, y)` and model noise :math:`s^2` (observation noise plus a jitter),

.. math::
    f^*(x) = \\tilde f(x) + k(x, X_D)(K_{DD} + s^2 I)^{-1}\\big(y - \\tilde f(X_D)
    - \\tilde\\varepsilon\\big), \\qquad \\tilde\\varepsilon \\sim N(0, s^2 I),

is a function that can be evaluated (and differentiated) anywhere at cost
:math:`O(M d + |D| d)` per point. Its mean and covariance are the exact posterior's
whenever the prior draw's covariance is :math:`k` (so: exactly, over random frequencies).

The data live in a fixed-size buffer of ``B`` slots (:class:`PathState`), as in
:mod:`~jaxtheory.sims.gp_bandits.posterior`: the Cholesky factor :math:`L` of
:math:`K_{DD} + s^2 I` is bordered one point at a time (:func:`path_add_point`,
:math:`O(B^2)`), unused slots are unit rows, and values arrive later
(:func:`path_add_value`), so a point without its value is GP-BUCB's hallucination.

References:
    Rahimi and Recht (2007), *Random features for large-scale kernel machines*, NIPS.
    Wilson, Borovitskiy, Terenin, Mostowsky and Deisenroth (2020), arXiv:2002.09309.
    Rasmussen and Williams (2006), *Gaussian Processes for Machine Learning*, §4.2
    (Matérn spectral densities).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from jaxtheory.sims.gp_bandits.kernels import KERNELS, kernel_matrix

__all__ = [
    "SPECTRAL_DOF",
    "rff_normals_per_feature",
    "RFFPrior",
    "rff_prior",
    "rff_eval",
    "PathState",
    "init_path_state",
    "path_add_point",
    "path_add_value",
    "path_posterior",
    "PathSample",
    "pathwise_sample",
    "path_eval",
    "maximize_on_cube",
]

#: Degrees of freedom :math:`2\nu` of each kernel's Student-t spectral density (``None``: Gaussian).
SPECTRAL_DOF = {"se": None, "matern12": 1, "matern32": 3, "matern52": 5}
_CHI = 5  # chi-square normals reserved per frequency (the largest dof)


def rff_normals_per_feature(dim: int) -> int:
    """Standard normals :func:`rff_prior` consumes per frequency: :math:`d + 5 + 2`.

    Args:
        dim: dimension :math:`d`.

    Returns:
        ``dim + 7`` (``dim`` for :math:`z`, 5 for the chi-square, 2 weights).

    Example:
        >>> rff_normals_per_feature(2)
        9
    """
    return dim + _CHI + 2


class RFFPrior(NamedTuple):
    """A random-feature prior draw :math:`\\tilde f`.

    Attributes:
        omega: unit-lengthscale frequencies :math:`\\omega_i`, shape ``(M, d)``.
        w: feature weights, shape ``(M, 2)`` (cosine, sine).

    Example:
        >>> import jax.numpy as jnp
        >>> p = rff_prior("se", jnp.zeros((3, rff_normals_per_feature(2))))
        >>> p.omega.shape, p.w.shape
        ((3, 2), (3, 2))
    """

    omega: jax.Array
    w: jax.Array


def rff_prior(kernel: str, normals) -> RFFPrior:
    """A prior function draw from standard normals: spectral frequencies and weights.

    .. math::
        \\omega_i = z_i \\ (\\mathrm{SE}), \\qquad
        \\omega_i = z_i\\,\\sqrt{k / \\textstyle\\sum_{j \\le k} c_{ij}^2}
        \\ (\\text{Matérn}, k = 2\\nu),

    i.e. :math:`z_i/\\sqrt{G_i}` with :math:`G_i = \\chi^2_k/k \\sim \\mathrm{Gamma}(\\nu, \\nu)`.

    Args:
        kernel: one of :data:`~jaxtheory.sims.gp_bandits.kernels.KERNELS`.
        normals: standard normals, shape ``(M, d + 7)``: columns ``[:d]`` are :math:`z`,
            ``[d:d+5]`` the chi-square normals :math:`c`, ``[d+5:]`` the weights.

    Returns:
        An :class:`RFFPrior`.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> u = jax.random.normal(jax.random.key(0), (20_000, rff_normals_per_feature(1)))
        >>> om = rff_prior("matern32", u).omega[:, 0]
        >>> abs(float(jnp.mean(jnp.cos(om * 0.5))) - 0.7849) < 0.01   # k(0.5), l = 1
        True
    """
    if kernel not in KERNELS:
        raise ValueError(f"unknown kernel {kernel!r}; expected one of {KERNELS}")
    normals = jnp.asarray(normals)
    d = normals.shape[-1] - _CHI - 2
    z, chi, w = normals[..., :d], normals[..., d : d + _CHI], normals[..., d + _CHI :]
    dof = SPECTRAL_DOF[kernel]
    if dof is None:
        return RFFPrior(z, w)
    g = jnp.sum(chi[..., :dof] ** 2, axis=-1, keepdims=True) / dof
    return RFFPrior(z / jnp.sqrt(jnp.maximum(g, jnp.finfo(normals.dtype).tiny)), w)


def rff_eval(prior: RFFPrior, x, lengthscale, variance):
    """Evaluate :math:`\\tilde f(x) = \\sqrt{v/M}\\sum_i w_{i,1}\\cos(\\omega_i^\\top x/\\ell) + w_{i,2}\\sin(\\omega_i^\\top x/\\ell)`.

    Args:
        prior: an :class:`RFFPrior` with ``M`` frequencies.
        x: points, shape ``(m, d)``.
        lengthscale: :math:`\\ell`.
        variance: :math:`v`.

    Returns:
        Shape ``(m,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> p = RFFPrior(jnp.zeros((4, 1)), jnp.ones((4, 2)))
        >>> rff_eval(p, jnp.zeros((2, 1)), 0.1, 1.0).tolist()   # sqrt(1/4) * 4 cos(0)
        [2.0, 2.0]
    """
    M = prior.omega.shape[0]
    a = (jnp.asarray(x) @ prior.omega.T) / lengthscale  # (m, M)
    s = jnp.sqrt(variance / M)
    return s * (jnp.cos(a) @ prior.w[:, 0] + jnp.sin(a) @ prior.w[:, 1])


class PathState(NamedTuple):
    """Data in a fixed-size buffer of ``B`` slots, with the bordered Cholesky factor.

    Attributes:
        X: points of the slots, shape ``(B, d)`` (zeros when unused).
        L: Cholesky factor of :math:`K_{DD} + s^2 I` over used slots, unit rows
            elsewhere, shape ``(B, B)``.
        alpha: :math:`L^{-1} y` over slots whose value arrived (0 otherwise), ``(B,)``.
        y: observed values, ``(B,)``.
        used: whether a slot holds a point, ``(B,)``.

    Example:
        >>> s = init_path_state(4, 2)
        >>> type(s).__name__, s.X.shape, s.L.shape
        ('PathState', (4, 2), (4, 4))
    """

    X: jax.Array
    L: jax.Array
    alpha: jax.Array
    y: jax.Array
    used: jax.Array


def init_path_state(buffer: int, dim: int, dtype=jnp.float32) -> PathState:
    """An empty buffer of ``buffer`` slots in dimension ``dim``.

    Args:
        buffer: number of slots ``B``.
        dim: dimension :math:`d`.
        dtype: float dtype.

    Returns:
        A :class:`PathState` holding no data.

    Example:
        >>> int(init_path_state(3, 1).used.sum())
        0
    """
    return PathState(
        X=jnp.zeros((buffer, dim), dtype),
        L=jnp.eye(buffer, dtype=dtype),
        alpha=jnp.zeros((buffer,), dtype),
        y=jnp.zeros((buffer,), dtype),
        used=jnp.zeros((buffer,), bool),
    )


def _kx(state: PathState, x, kernel, lengthscale, variance):
    """:math:`k(X_D, x)` masked to used slots, shape ``(B, m)``."""
    K = kernel_matrix(kernel, state.X, jnp.atleast_2d(x), lengthscale, variance)
    return jnp.where(state.used[:, None], K, 0.0)


def path_add_point(state: PathState, slot, x, kernel: str, lengthscale, variance, noise) -> PathState:
    """Border the factor with point ``x`` in ``slot`` (variance only; the value comes later).

    .. math::
        l = L^{-1}k(X_D, x), \\qquad L_{\\mathrm{slot},:} = (l^\\top, d),
        \\quad d = \\big(v + s^2 - \\lVert l\\rVert^2\\big)^{1/2},

    with :math:`d^2` floored at :math:`s^2/2` (it is :math:`\\ge s^2` in exact arithmetic).
    Slots are filled in increasing order.

    Args:
        state: a :class:`PathState`.
        slot: slot index (may be traced).
        x: the point, shape ``(d,)``.
        kernel: kernel name.
        lengthscale: :math:`\\ell`.
        variance: :math:`v`.
        noise: model noise :math:`s^2 > 0` (observation noise plus jitter).

    Returns:
        The updated :class:`PathState`.

    Example:
        >>> import jax.numpy as jnp
        >>> s = path_add_point(init_path_state(2, 1), 0, jnp.array([0.5]), "se", 0.2, 1.0, 0.01)
        >>> round(float(s.L[0, 0]) ** 2, 4), bool(s.used[0])
        (1.01, True)
    """
    kx = _kx(state, x, kernel, lengthscale, variance)[:, 0]
    l = jax.scipy.linalg.solve_triangular(state.L, kx, lower=True)
    d2 = variance + noise - l @ l
    d = jnp.sqrt(jnp.maximum(d2, 0.5 * noise))
    onehot = jnp.arange(state.L.shape[0]) == slot
    return state._replace(
        X=state.X.at[slot].set(x),
        L=state.L.at[slot].set(jnp.where(onehot, d, l)),
        used=state.used.at[slot].set(True),
    )


def path_add_value(state: PathState, slot, y) -> PathState:
    """Feed back the value of ``slot``: :math:`\\alpha_j = (y - L_{j,<j}\\alpha_{<j})/L_{jj}`.

    Args:
        state: a :class:`PathState` whose ``slot`` holds a point.
        slot: slot index (values arrive in slot order).
        y: observed value.

    Returns:
        The updated :class:`PathState`.

    Example:
        >>> import jax.numpy as jnp
        >>> s = path_add_point(init_path_state(2, 1), 0, jnp.array([0.5]), "se", 0.2, 1.0, 1.0)
        >>> m, v = path_posterior(path_add_value(s, 0, 2.0), jnp.array([[0.5]]), "se", 0.2, 1.0)
        >>> round(float(m[0]), 4), round(float(v[0]), 4)   # 2 * 1/(1+1), 1 - 1/2
        (1.0, 0.5)
    """
    row = state.L[slot]
    a = (y - row @ state.alpha) / row[slot]
    return state._replace(alpha=state.alpha.at[slot].set(a), y=state.y.at[slot].set(y))


def path_posterior(state: PathState, x, kernel: str, lengthscale, variance):
    """Posterior mean (values fed back so far) and variance (every used slot) at ``x``.

    .. math::
        A = L^{-1} k(X_D, x), \\qquad \\mu(x) = A^\\top \\alpha, \\qquad
        \\sigma^2(x) = v - \\lVert A_{:,x}\\rVert^2 .

    Because slots are filled in order and pending points come last, :math:`A^\\top\\alpha`
    with :math:`\\alpha = 0` on pending slots is the mean given the fed-back data only.

    Args:
        state: a :class:`PathState`.
        x: query points, shape ``(m, d)``.
        kernel: kernel name.
        lengthscale: :math:`\\ell`.
        variance: :math:`v`.

    Returns:
        ``(mean, var)``, each of shape ``(m,)`` (variance clipped at 0).

    Example:
        >>> import jax.numpy as jnp
        >>> m, v = path_posterior(init_path_state(2, 1), jnp.zeros((3, 1)), "se", 0.2, 2.0)
        >>> m.tolist(), v.tolist()
        ([0.0, 0.0, 0.0], [2.0, 2.0, 2.0])
    """
    A = jax.scipy.linalg.solve_triangular(state.L, _kx(state, x, kernel, lengthscale, variance), lower=True)
    return A.T @ state.alpha, jnp.maximum(variance - jnp.sum(A * A, axis=0), 0.0)


class PathSample(NamedTuple):
    """A pathwise posterior function draw :math:`f^*(x) = \\tilde f(x) + k(x, X_D)c`.

    Attributes:
        prior: the :class:`RFFPrior` draw :math:`\\tilde f`.
        X: the data points (the buffer), shape ``(B, d)``.
        c: :math:`(K_{DD} + s^2 I)^{-1}(y - \\tilde f(X_D) - \\tilde\\varepsilon)`, zero on
            unused slots, shape ``(B,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> s = PathSample(RFFPrior(jnp.zeros((2, 1)), jnp.zeros((2, 2))), jnp.zeros((3, 1)), jnp.zeros(3))
        >>> s.c.shape
        (3,)
    """

    prior: RFFPrior
    X: jax.Array
    c: jax.Array


def pathwise_sample(state: PathState, prior: RFFPrior, eps, lengthscale, variance, noise) -> PathSample:
    """Condition a prior draw on the data by Matheron's rule (pathwise update).

    .. math::
        c = L^{-\\top}L^{-1}\\big(y - \\tilde f(X_D) - s\\,\\tilde\\varepsilon\\big)
        \\ \\text{on used slots}, \\qquad f^*(x) = \\tilde f(x) + k(x, X_D)\\,c .

    Every used slot must have its value (draw before hallucinating a batch).

    Args:
        state: a :class:`PathState`.
        prior: an :class:`RFFPrior` draw.
        eps: standard normals, shape ``(B,)``.
        lengthscale: :math:`\\ell`.
        variance: :math:`v`.
        noise: model noise :math:`s^2` (the one the factor was built with).

    Returns:
        A :class:`PathSample`; evaluate it with :func:`path_eval`.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> st = path_add_point(init_path_state(2, 1), 0, jnp.array([0.3]), "se", 0.2, 1.0, 1e-6)
        >>> st = path_add_value(st, 0, 1.5)
        >>> pr = rff_prior("se", jax.random.normal(jax.random.key(1), (64, rff_normals_per_feature(1))))
        >>> g = pathwise_sample(st, pr, jnp.zeros(2), 0.2, 1.0, 1e-6)
        >>> round(float(path_eval(g, jnp.array([[0.3]]), "se", 0.2, 1.0)[0]), 3)  # through the data
        1.5
    """
    r = state.y - rff_eval(prior, state.X, lengthscale, variance) - jnp.sqrt(noise) * eps
    r = jnp.where(state.used, r, 0.0)
    u = jax.scipy.linalg.solve_triangular(state.L, r, lower=True)
    c = jax.scipy.linalg.solve_triangular(state.L, u, lower=True, trans=1)
    return PathSample(prior, state.X, jnp.where(state.used, c, 0.0))


def path_eval(sample: PathSample, x, kernel: str, lengthscale, variance):
    """Evaluate a :class:`PathSample` at points ``x`` (differentiable in ``x``).

    Args:
        sample: a :class:`PathSample`.
        x: points, shape ``(m, d)``.
        kernel: kernel name (the one of the data term).
        lengthscale: :math:`\\ell`.
        variance: :math:`v`.

    Returns:
        Shape ``(m,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> s = PathSample(RFFPrior(jnp.zeros((2, 1)), jnp.zeros((2, 2))), jnp.zeros((1, 1)), jnp.ones(1))
        >>> [round(v, 4) for v in path_eval(s, jnp.array([[0.0], [0.2]]), "se", 0.2, 1.0).tolist()]
        [1.0, 0.6065]
    """
    x = jnp.asarray(x)
    return (
        rff_eval(sample.prior, x, lengthscale, variance)
        + kernel_matrix(kernel, x, sample.X, lengthscale, variance) @ sample.c
    )


def maximize_on_cube(
    fn, cands, mask=None, *, starts: int = 4, steps: int = 10, step0=0.1, decay: float = 0.7
):
    """Maximize a pointwise function over :math:`[0,1]^d`: candidates, then projected ascent.

    Evaluates ``fn`` on the candidates, starts from the ``starts`` best, and takes
    ``steps`` normalized projected-gradient steps
    :math:`x \\leftarrow \\Pi_{[0,1]^d}\\big(x + \\eta_s\\, g/\\lVert g\\rVert\\big)`,
    :math:`\\eta_s = \\eta_0\\,\\mathrm{decay}^s`, keeping each start's best iterate.
    All shapes are fixed; the result is never worse than the best candidate.

    Args:
        fn: maps points ``(m, d)`` to values ``(m,)``, row by row (differentiable).
        cands: candidate points, shape ``(C, d)``, in the cube.
        mask: optional boolean ``(C,)``; masked-out candidates are ignored.
        starts: number of starting points (``<= C``).
        steps: ascent steps.
        step0: first step length :math:`\\eta_0` (may be traced).
        decay: geometric step decay.

    Returns:
        ``(x, value)``: the best point, shape ``(d,)``, and ``fn`` there.

    Example:
        >>> import jax.numpy as jnp
        >>> fn = lambda X: -jnp.sum((X - 0.3) ** 2, axis=-1)
        >>> x, v = maximize_on_cube(fn, jnp.array([[0.0, 0.0], [1.0, 1.0]]), starts=1, steps=20,
        ...                         step0=0.3)
        >>> [round(float(t), 2) for t in x], float(v) > -1e-3
        ([0.3, 0.3], True)
    """
    vals = fn(cands)
    if mask is not None:
        vals = jnp.where(mask, vals, -jnp.inf)
    v0, i0 = jax.lax.top_k(vals, starts)
    x0 = cands[i0]
    grad = jax.grad(lambda X: jnp.sum(fn(X)))

    def step(carry, s):
        x, bx, bv = carry
        g = grad(x)
        gn = jnp.sqrt(jnp.sum(g * g, axis=-1, keepdims=True))
        x = jnp.clip(x + step0 * decay**s * g / jnp.maximum(gn, 1e-30), 0.0, 1.0)
        v = fn(x)
        better = v > bv
        return (x, jnp.where(better[:, None], x, bx), jnp.where(better, v, bv)), None

    (_, bx, bv), _ = jax.lax.scan(step, (x0, x0, v0), jnp.arange(steps, dtype=cands.dtype))
    j = jnp.argmax(bv)
    return bx[j], bv[j]
