r"""Fourier analysis on the Boolean cube and L1 polynomial regression of smoothed halfspaces.

A point :math:`x \in \{\pm 1\}^n` is the integer whose bit :math:`i` is 1 exactly when
:math:`x_i = -1`, so the :math:`2^n` points are ``0 … 2**n - 1`` and a set
:math:`S \subseteq [n]` is a bitmask too; the character is
:math:`\chi_S(x) = \prod_{i \in S} x_i = (-1)^{\mathrm{popcount}(x \,\&\, S)}`. The unnormalised
Walsh–Hadamard transform :func:`fwht` is :math:`(Ha)(S) = \sum_x a(x)\chi_S(x)`, so
:math:`\hat f(S) = 2^{-n}(Hf)(S)` and :math:`f = H\hat f`. The noise operator
:math:`T_\rho` (each bit flipped with probability :math:`\sigma`, :math:`\rho = 1 - 2\sigma`)
multiplies :math:`\hat f(S)` by :math:`\rho^{|S|}`; the level weights are
:math:`W_k = \sum_{|S| = k}\hat f(S)^2` (they sum to 1 for :math:`f` into :math:`\{\pm 1\}`:
Parseval); the noisy tail beyond degree :math:`d` is
:math:`\mathrm{tail}(d) = \sum_{|S| > d}\rho^{2|S|}\hat f(S)^2 = \lVert T_\rho f - (T_\rho f)^{\le d}\rVert_2^2`.

:func:`run` (one lane, pure, vmappable) computes for majority and for one halfspace
:math:`\mathrm{sign}(w\cdot x)` with Gaussian weights drawn from the key: the level weights,
the tails over the spec's :math:`\sigma` grid and :math:`d^*(\sigma, \varepsilon)`, the least
degree whose truncation error meets the criterion (:data:`CRITERIA`); and, on a smaller
cube, L1 polynomial regression (:func:`l1_regression`) of labels from a planted Gaussian
halfspace with the labels nearest its boundary flipped, with its exact classification
error over the whole cube and the planted halfspace's smoothed error
:math:`\Pr[h^*(z) \ne y]` as the benchmark.
"""

from __future__ import annotations

import dataclasses
import math
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.simulator import Simulator

__all__ = [
    "CRITERIA",
    "DEFAULT_PARAMS",
    "FUNCTIONS",
    "SIMULATOR",
    "BooleanSpec",
    "best_threshold",
    "characters",
    "cube_signs",
    "degree_bound",
    "fwht",
    "halfspace_values",
    "l1_loss",
    "l1_regression",
    "level_weights",
    "majority_level_weights",
    "min_degree",
    "monomials",
    "noise_operator",
    "noisy_tail",
    "popcount",
    "run",
]

#: Criteria for :math:`d^*`: ``"l2"`` the truncation's L2 error
#: :math:`\sqrt{\mathrm{tail}(d)} \le \varepsilon` ("L2 error ≤ ε", the one whose
#: closed-form bound is :math:`\lceil \ln(1/\varepsilon)/\ln(1/\rho)\rceil - 1`); ``"squared"``
#: the squared error :math:`\mathrm{tail}(d) \le \varepsilon`.
CRITERIA = ("l2", "squared")
#: The two functions of every lane, in output order: majority, then a Gaussian-weight halfspace.
FUNCTIONS = ("majority", "random")
#: Default of every parameter :func:`run` reads: the flip-bit probability σ of the learning
#: benchmark and the fraction of cube points, nearest the planted boundary, whose label is flipped.
DEFAULT_PARAMS = {"learn_sigma": 0.1, "flip_rate": 0.1}


def _check_int(x) -> jax.Array:
    x = jnp.asarray(x)
    if not jnp.issubdtype(x.dtype, jnp.integer):
        raise TypeError(f"popcount needs an integer array, got dtype {x.dtype}")
    return x


@jax.jit
def popcount(x: jax.Array) -> jax.Array:
    """The number of set bits of every element of an integer array.

    Negative signed integers are counted in two's complement (``popcount(-1)`` is the
    dtype's width).

    Args:
        x: an integer array.

    Returns:
        An array of the same shape and dtype.

    Raises:
        TypeError: for a non-integer array.

    Example:
        >>> import jax.numpy as jnp
        >>> popcount(jnp.array([0, 1, 6, 255])).tolist()
        [0, 1, 2, 8]
    """
    return jax.lax.population_count(_check_int(x))


@jax.jit
def fwht(a: jax.Array) -> jax.Array:
    r"""The unnormalised fast Walsh–Hadamard transform along the last axis.

    :math:`(Ha)(S) = \sum_x a(x)(-1)^{\mathrm{popcount}(x \& S)}` in :math:`m\log_2 m`
    additions (:math:`H` is Sylvester's Hadamard matrix, symmetric, :math:`H^2 = mI`), exact in
    integer dtypes while the sums fit.

    Args:
        a: array whose last axis has a power-of-two length :math:`m`; leading axes are batch.

    Returns:
        :math:`Ha`, same shape and dtype.

    Raises:
        ValueError: when the last axis is not a power of two.

    Example:
        >>> import jax.numpy as jnp
        >>> fwht(jnp.array([1, 0, 0, 0])).tolist()
        [1, 1, 1, 1]
        >>> fwht(jnp.array([1, -1, -1, 1])).tolist()
        [0, 0, 0, 4]
    """
    a = jnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("fwht needs at least one axis")
    m = a.shape[-1]
    if m < 1 or m & (m - 1):
        raise ValueError(f"fwht needs a power-of-two length on the last axis, got {m}")
    batch = a.shape[:-1]
    h = 1
    while h < m:
        b = a.reshape(batch + (m // (2 * h), 2, h))
        u, v = b[..., 0, :], b[..., 1, :]
        a = jnp.stack([u + v, u - v], axis=-2).reshape(batch + (m,))
        h *= 2
    return a


def _log2_len(m: int) -> int:
    if m < 1 or m & (m - 1):
        raise ValueError(f"expected a power-of-two length, got {m}")
    return m.bit_length() - 1


def cube_signs(n: int, dtype=jnp.float32) -> jax.Array:
    """The :math:`2^n` points of :math:`\\{\\pm 1\\}^n` as rows: row ``x`` has entry ``1 - 2·bit_i(x)``.

    Args:
        n: dimension, 1 ≤ n ≤ 30.
        dtype: dtype of the entries.

    Returns:
        Array of shape ``(2**n, n)``.

    Example:
        >>> cube_signs(2, int).tolist()
        [[1, 1], [-1, 1], [1, -1], [-1, -1]]
    """
    if not 1 <= int(n) <= 30:
        raise ValueError(f"n must be in 1..30, got {n}")
    idx = jnp.arange(2**n, dtype=jnp.int32)
    bits = (idx[:, None] >> jnp.arange(n, dtype=jnp.int32)) & 1
    return (1 - 2 * bits).astype(dtype)


@jax.jit
def halfspace_values(w: jax.Array) -> jax.Array:
    """The halfspace :math:`\\mathrm{sign}(w\\cdot x)` at every cube point (``sign(0) = +1``), int32.

    Args:
        w: weights, shape ``(n,)``.

    Returns:
        Array of shape ``(2**n,)`` with entries ±1.

    Example:
        >>> import jax.numpy as jnp
        >>> halfspace_values(jnp.ones(3)).tolist()
        [1, 1, 1, -1, 1, -1, -1, -1]
    """
    w = jnp.asarray(w)
    s = cube_signs(w.shape[-1], w.dtype) @ w
    return jnp.where(s >= 0, 1, -1).astype(jnp.int32)


@jax.jit
def level_weights(coeffs: jax.Array) -> jax.Array:
    """Level weights :math:`W_k = \\sum_{|S|=k} c(S)^2`, k = 0 … n, along the last axis.

    Args:
        coeffs: Fourier coefficients :math:`\\hat f(S)` indexed by the bitmask ``S``, length
            :math:`2^n` on the last axis.

    Returns:
        Array with last axis ``n + 1``.

    Example:
        >>> import jax.numpy as jnp
        >>> level_weights(jnp.array([0.0, 0.6, 0.0, 0.8])).tolist()  # doctest: +ELLIPSIS
        [0.0, 0.36..., 0.64...]
    """
    coeffs = jnp.asarray(coeffs)
    n = _log2_len(coeffs.shape[-1])
    k = popcount(jnp.arange(2**n, dtype=jnp.int32))
    onehot = (k[:, None] == jnp.arange(n + 1)).astype(coeffs.dtype)
    return (coeffs**2) @ onehot


@jax.jit
def noise_operator(coeffs: jax.Array, rho) -> jax.Array:
    """:math:`T_\\rho` on Fourier coefficients: :math:`c(S) \\mapsto \\rho^{|S|} c(S)`.

    Args:
        coeffs: coefficients indexed by bitmask, length :math:`2^n` on the last axis.
        rho: correlation :math:`1 - 2\\sigma` (a scalar, or broadcastable to the batch axes
            with a trailing axis of 1).

    Returns:
        The smoothed coefficients.

    Example:
        >>> import jax.numpy as jnp
        >>> noise_operator(jnp.ones(4), 0.5).tolist()
        [1.0, 0.5, 0.5, 0.25]
    """
    coeffs = jnp.asarray(coeffs)
    n = _log2_len(coeffs.shape[-1])
    k = popcount(jnp.arange(2**n, dtype=jnp.int32)).astype(coeffs.dtype)
    return coeffs * jnp.asarray(rho, coeffs.dtype) ** k


@jax.jit
def noisy_tail(weights: jax.Array, rho) -> jax.Array:
    """:math:`\\mathrm{tail}(d) = \\sum_{k>d}\\rho^{2k}W_k` for d = 0 … n (``tail[n] = 0``).

    Summed from the top level down (a reverse cumulative sum), so tiny tails carry no
    cancellation error.

    Args:
        weights: level weights, last axis ``n + 1``.
        rho: correlation; broadcast against the batch axes (give it a trailing axis of 1).

    Returns:
        Array of the broadcast shape, last axis ``n + 1``.

    Example:
        >>> import jax.numpy as jnp
        >>> noisy_tail(jnp.array([0.0, 0.5, 0.0, 0.5]), 0.5).tolist()
        [0.1328125, 0.0078125, 0.0078125, 0.0]
    """
    weights = jnp.asarray(weights)
    k = jnp.arange(weights.shape[-1], dtype=weights.dtype)
    terms = jnp.asarray(rho, weights.dtype) ** (2 * k) * weights
    from_k = jnp.cumsum(terms[..., ::-1], axis=-1)[..., ::-1]  # Σ_{j ≥ k}
    return jnp.concatenate([from_k[..., 1:], jnp.zeros_like(from_k[..., :1])], axis=-1)


@jax.jit
def min_degree(tail: jax.Array, threshold) -> jax.Array:
    """The least d with ``tail[..., d] <= threshold`` (int32; ``n`` at most since ``tail[n] = 0``).

    Args:
        tail: tails along the last axis (from :func:`noisy_tail`).
        threshold: non-negative, broadcast against the batch axes.

    Returns:
        The degrees, the batch shape.

    Example:
        >>> import jax.numpy as jnp
        >>> int(min_degree(jnp.array([0.5, 0.1, 0.01, 0.0]), 0.05))
        2
    """
    ok = jnp.asarray(tail) <= jnp.asarray(threshold)[..., None]
    return jnp.argmax(ok, axis=-1).astype(jnp.int32)


def degree_bound(sigma, eps, criterion: str = "l2") -> np.ndarray:
    """The closed-form bound on :math:`d^*` from :math:`\\mathrm{tail}(d) \\le \\rho^{2(d+1)}`.

    ``"l2"`` (:math:`\\mathrm{tail} \\le \\varepsilon^2`):
    :math:`\\lceil \\ln(1/\\varepsilon)/\\ln(1/\\rho)\\rceil - 1`; ``"squared"``
    (:math:`\\mathrm{tail} \\le \\varepsilon`): :math:`\\lceil \\ln(1/\\varepsilon)/(2\\ln(1/\\rho))\\rceil - 1`;
    at least 0. Float64 numpy.

    Args:
        sigma: flip probabilities in (0, ½).
        eps: accuracies in (0, 1).
        criterion: one of :data:`CRITERIA`.

    Returns:
        Integer array of the broadcast shape.

    Example:
        >>> int(degree_bound(0.1, 0.1))
        10
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    sigma, eps = np.asarray(sigma, float), np.asarray(eps, float)
    if np.any((sigma <= 0) | (sigma >= 0.5)) or np.any((eps <= 0) | (eps >= 1)):
        raise ValueError("degree_bound needs 0 < sigma < 1/2 and 0 < eps < 1")
    per = np.log(1 / (1 - 2 * sigma)) * (1.0 if criterion == "l2" else 2.0)
    return np.maximum(np.ceil(np.log(1 / eps) / per) - 1, 0).astype(int)


def majority_level_weights(n: int) -> np.ndarray:
    """Majority's exact level weights from the closed form of its Fourier coefficients, float64.

    For odd n and odd :math:`k = |S|`,
    :math:`\\hat{\\mathrm{Maj}}_n(S) = (-1)^{(k-1)/2}\\binom{(n-1)/2}{(k-1)/2}\\binom{n-1}{k-1}^{-1}
    2^{1-n}\\binom{n-1}{(n-1)/2}` (O'Donnell, *Analysis of Boolean Functions*, Thm 5.19), zero for
    even k; :math:`W_k = \\binom nk \\hat{\\mathrm{Maj}}_n(S)^2`. Rational arithmetic, then float.

    Args:
        n: odd number of variables.

    Returns:
        Array of shape ``(n + 1,)``.

    Example:
        >>> round(float(majority_level_weights(15)[1]), 4)
        0.6582
    """
    from fractions import Fraction

    if n < 1 or n % 2 == 0:
        raise ValueError(f"majority needs an odd n, got {n}")
    h = (n - 1) // 2
    base = Fraction(math.comb(n - 1, h), 2 ** (n - 1))
    out = np.zeros(n + 1)
    for k in range(1, n + 1, 2):
        c = Fraction(math.comb(h, (k - 1) // 2), math.comb(n - 1, k - 1)) * base
        out[k] = float(math.comb(n, k) * c * c)
    return out


def monomials(n: int, degree: int, odd_only: bool = False) -> np.ndarray:
    """Bitmasks of the sets :math:`|S| \\le` ``degree`` (only odd :math:`|S|` with ``odd_only``).

    Ordered by size, then by value. Host numpy (the feature list is static).

    Args:
        n: number of variables.
        degree: largest size.
        odd_only: keep odd sizes only.

    Returns:
        int32 array of bitmasks.

    Example:
        >>> monomials(3, 1).tolist()
        [0, 1, 2, 4]
        >>> monomials(3, 3, odd_only=True).tolist()
        [1, 2, 4, 7]
    """
    if not 1 <= n <= 30 or degree < 0:
        raise ValueError(f"need 1 <= n <= 30 and degree >= 0, got n={n}, degree={degree}")
    idx = np.arange(2**n, dtype=np.int64)
    size = np.array([bin(i).count("1") for i in range(2**n)]) if n <= 16 else _np_popcount(idx)
    keep = size <= degree
    if odd_only:
        keep &= size % 2 == 1
    sel = idx[keep]
    return sel[np.lexsort((sel, size[keep]))].astype(np.int32)


def _np_popcount(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.int64)
    c = np.zeros_like(x)
    while np.any(x):
        c += x & 1
        x >>= 1
    return c


@partial(jax.jit, static_argnames=("dtype",))
def characters(points: jax.Array, masks: jax.Array, dtype=jnp.float32) -> jax.Array:
    """The character matrix :math:`\\chi_S(x) = (-1)^{\\mathrm{popcount}(x \\& S)}`.

    Args:
        points: bitmasks of cube points, shape ``(N,)``.
        masks: bitmasks of sets, shape ``(p,)``.
        dtype: dtype of the result.

    Returns:
        Array of shape ``(N, p)`` with entries ±1.

    Example:
        >>> import jax.numpy as jnp
        >>> characters(jnp.arange(4), jnp.array([0, 1, 3]), int).tolist()
        [[1, 1, 1], [1, -1, -1], [1, 1, -1], [1, -1, 1]]
    """
    points = jnp.asarray(points, jnp.int32)
    masks = jnp.asarray(masks, jnp.int32)
    par = popcount(points[:, None] & masks[None, :]) & 1
    return (1 - 2 * par).astype(dtype)


@jax.jit
def l1_loss(X: jax.Array, y: jax.Array, beta: jax.Array) -> jax.Array:
    """The mean absolute residual :math:`\\frac1N\\sum_i |y_i - x_i^\\top\\beta|`.

    Example:
        >>> import jax.numpy as jnp
        >>> float(l1_loss(jnp.ones((2, 1)), jnp.array([0.0, 2.0]), jnp.array([1.0])))
        1.0
    """
    return jnp.mean(jnp.abs(y - X @ beta))


@partial(jax.jit, static_argnames=("iters",))
def l1_regression(X: jax.Array, y: jax.Array, delta=1e-3, iters: int = 60, ridge=1e-6) -> jax.Array:
    r"""L1 regression :math:`\min_\beta \frac1N\sum_i|y_i - x_i^\top\beta|` by IRLS on its Huber smoothing.

    Iteratively reweighted least squares with weights :math:`1/\max(|r_i|, \delta)` is the
    majorise–minimise iteration of the Huber loss :math:`H_\delta(r) = r^2/(2\delta)` for
    :math:`|r| < \delta`, :math:`|r| - \delta/2` otherwise, so the objective decreases every
    step; since :math:`|r| - \delta/2 \le H_\delta(r) \le |r|`, its minimiser is within
    :math:`\delta/2` of the L1 optimum in mean absolute residual. Starts from least squares; a
    ridge of ``ridge`` times the mean diagonal keeps the solves defined. No LP solver.

    Args:
        X: design, shape ``(N, p)``.
        y: targets, shape ``(N,)``.
        delta: Huber threshold (residual scale below which the loss is quadratic).
        iters: IRLS steps (static).
        ridge: relative ridge on the normal equations.

    Returns:
        The coefficients, shape ``(p,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> X = jnp.ones((5, 1)); y = jnp.array([0.0, 1.0, 2.0, 3.0, 100.0])
        >>> round(float(l1_regression(X, y)[0]), 2)  # the median, not the mean 21.2
        2.0
    """
    X = jnp.asarray(X)
    y = jnp.asarray(y, X.dtype)
    p = X.shape[1]
    eye = jnp.eye(p, dtype=X.dtype)

    def solve(w):
        Xw = X * w[:, None]
        A = Xw.T @ X
        A = A + ridge * jnp.trace(A) / p * eye
        return jnp.linalg.solve(A, Xw.T @ y)

    def step(_, beta):
        r = y - X @ beta
        return solve(1.0 / jnp.maximum(jnp.abs(r), delta))

    return jax.lax.fori_loop(0, iters, step, solve(jnp.ones_like(y)))


@jax.jit
def best_threshold(scores: jax.Array, y: jax.Array) -> jax.Array:
    """The threshold t minimising the errors of :math:`x \\mapsto` (+1 if score > t else −1) on (scores, y).

    Candidates are midpoints between consecutive distinct sorted scores and one point below
    and above all of them; ties go to the smallest t.

    Args:
        scores: shape ``(N,)``.
        y: labels ±1, shape ``(N,)``.

    Returns:
        The threshold (a scalar).

    Example:
        >>> import jax.numpy as jnp
        >>> float(best_threshold(jnp.array([0.1, 0.2, 0.3, 0.4]), jnp.array([-1, -1, 1, 1])))
        0.25
    """
    scores = jnp.asarray(scores)
    order = jnp.argsort(scores)
    s = scores[order]
    pos = (jnp.asarray(y)[order] > 0).astype(jnp.int32)
    n = s.shape[0]
    # cutting before position j: −1 on the first j points, +1 on the rest
    pos_before = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(pos)])
    neg_after = (n - jnp.arange(n + 1)) - (pos_before[-1] - pos_before)
    errors = pos_before + neg_after
    cut_ok = jnp.concatenate([jnp.array([True]), s[1:] > s[:-1], jnp.array([True])])
    j = jnp.argmin(jnp.where(cut_ok, errors, n + 1))
    lo = jnp.concatenate([s[:1] - 1.0, s])
    hi = jnp.concatenate([s, s[-1:] + 1.0])
    return 0.5 * (lo[j] + hi[j])


@dataclasses.dataclass(frozen=True)
class BooleanSpec:
    """Shapes of a lane of :func:`run` (the compile key).

    Attributes:
        n: odd dimension of the Fourier cube (majority needs it odd), 1 ≤ n ≤ 20.
        sigmas: flip probabilities σ of the smoothing grid (ρ = 1 − 2σ).
        epsilons: accuracies ε of the grid.
        learn_n: dimension of the cube on which L1 regression runs (the whole cube is its
            sample, so its error is exact).
        learn_degrees: degrees of the regressions (odd: the labels are odd functions, see
            :func:`run`).
        irls_iters: IRLS steps of :func:`l1_regression`.
        huber_delta: its Huber threshold.
    """

    n: int = 15
    sigmas: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3)
    epsilons: tuple[float, ...] = (0.2, 0.1, 0.05, 0.02)
    learn_n: int = 9
    learn_degrees: tuple[int, ...] = (1, 3, 5)
    irls_iters: int = 60
    huber_delta: float = 1e-3

    def __post_init__(self):
        if not 1 <= self.n <= 20 or self.n % 2 == 0:
            raise ValueError(f"n must be odd and in 1..20, got {self.n}")
        if not all(0 < s < 0.5 for s in self.sigmas) or not all(0 < e < 1 for e in self.epsilons):
            raise ValueError("sigmas must lie in (0, 1/2) and epsilons in (0, 1)")
        if not 1 <= self.learn_n <= 16:
            raise ValueError(f"learn_n must be in 1..16, got {self.learn_n}")
        if not self.learn_degrees or any(
            d % 2 == 0 or not 1 <= d <= self.learn_n for d in self.learn_degrees
        ):
            raise ValueError(f"learn_degrees must be odd and in 1..learn_n, got {self.learn_degrees}")


def _spectrum(h: jax.Array, n: int) -> jax.Array:
    """Fourier coefficients of ±1 values (int32 transform: exact for n ≤ 30)."""
    return fwht(h).astype(jnp.float32) / 2.0**n


def run(spec: BooleanSpec, params, key: jax.Array) -> dict:
    r"""One lane: exact Fourier tails of majority and a random halfspace, and L1 regression.

    Fourier part, on :math:`\{\pm1\}^n` (``spec.n``), for :data:`FUNCTIONS` (majority, and
    :math:`\mathrm{sign}(w\cdot x)` with :math:`w \sim N(0, I_n)` from the key): level weights,
    :math:`\mathrm{tail}(d)` for every σ of the grid, and :math:`d^*` per criterion, σ and ε.

    Learning part, on :math:`\{\pm1\}^m` (``spec.learn_n``): a planted halfspace
    :math:`h^* = \mathrm{sign}(w^*\cdot x)`, :math:`w^* \sim N(0, I_m)`, and labels
    :math:`y = h^*` except on the ``flip_rate`` fraction of points nearest the boundary (least
    :math:`|w^*\cdot x|`; points come in pairs :math:`\pm x`, flipped together, so :math:`y`
    is odd). L1 regression over the characters of odd degree ≤ d on the whole cube (for odd
    :math:`y` the even part of any polynomial only adds L1 loss, by convexity and the
    symmetry :math:`x \mapsto -x`), rounded by a threshold: the one minimising the errors,
    and a uniform random one (in expectation). Its error on the
    whole cube is exact, and so is the benchmark :math:`\Pr[h^*(z) \ne y] = (1 - \mathbb E[y\,T_\rho h^*])/2`
    with σ = ``learn_sigma``.

    Args:
        spec: :class:`BooleanSpec`.
        params: :data:`DEFAULT_PARAMS` keys.
        key: PRNG key.

    Returns:
        ``level_weight`` (function, level), ``tail`` (function, sigma, degree), ``dstar``
        (function, criterion, sigma, eps; int32); per regression degree (ldegree):
        ``lr_error`` the error of the tuned threshold, ``lr_round_error`` the expected error
        of Kalai et al.'s random threshold :math:`t \sim U[-1, 1]`, which is
        :math:`\tfrac12\mathbb E|y - \mathrm{clip}(p)|`, ``lr_l1`` the mean absolute
        residual, ``excess`` and ``excess_tuned`` the two errors minus the benchmark;
        ``planted_error`` (the benchmark) and ``flipped`` (the flipped fraction).

    Example:
        >>> import jax
        >>> out = run(BooleanSpec(n=5, learn_n=5, learn_degrees=(1,)), DEFAULT_PARAMS, jax.random.key(0))
        >>> out["dstar"].shape, round(float(out["level_weight"][0, 1]), 4)
        ((2, 2, 4, 4), 0.7031)
    """
    n, m = spec.n, spec.learn_n
    k_w, k_plant = jax.random.split(key)
    w = jnp.stack([jnp.ones(n), jax.random.normal(k_w, (n,))])
    coeffs = _spectrum(jax.vmap(halfspace_values)(w), n)  # (function, 2^n)
    W = level_weights(coeffs)
    rho = 1.0 - 2.0 * jnp.asarray(spec.sigmas, jnp.float32)
    tail = noisy_tail(W[:, None, :], rho[None, :, None])  # (function, sigma, degree)
    eps = jnp.asarray(spec.epsilons, jnp.float32)
    thr = jnp.stack([eps**2, eps])  # (criterion, eps)
    dstar = min_degree(tail[:, None, :, None, :], thr[None, :, None, :])

    # learning: a planted halfspace with flips at its boundary, regression on the whole cube
    w_star = jax.random.normal(k_plant, (m,))
    margin = cube_signs(m) @ w_star
    h = jnp.where(margin >= 0, 1, -1).astype(jnp.int32)
    a = jnp.abs(margin)
    n_flip = 2 * jnp.floor(params["flip_rate"] * 2 ** (m - 1)).astype(jnp.int32)
    tau = jnp.concatenate([jnp.sort(a), jnp.full((1,), jnp.inf)])[n_flip]
    flip = a < tau
    y = jnp.where(flip, -h, h)
    rho_l = 1.0 - 2.0 * params["learn_sigma"]
    smooth_h = fwht(noise_operator(_spectrum(h, m), rho_l))
    planted = 0.5 * (1.0 - jnp.mean(y * smooth_h))
    pts = jnp.arange(2**m, dtype=jnp.int32)
    yf = y.astype(jnp.float32)
    errs, rounded, l1s = [], [], []
    for d in spec.learn_degrees:
        X = characters(pts, monomials(m, d, odd_only=True))
        beta = l1_regression(X, yf, delta=spec.huber_delta, iters=spec.irls_iters)
        score = X @ beta
        t = best_threshold(score, y)
        errs.append(jnp.mean(jnp.where(score > t, 1, -1) != y))
        # sign(p − t) with t uniform on [−1, 1] errs at x with probability |y − clip(p)|/2
        rounded.append(0.5 * jnp.mean(jnp.abs(yf - jnp.clip(score, -1.0, 1.0))))
        l1s.append(l1_loss(X, yf, beta))
    errs, rounded = jnp.stack(errs), jnp.stack(rounded)
    return {
        "level_weight": W,
        "tail": tail,
        "dstar": dstar,
        "lr_error": errs,
        "lr_round_error": rounded,
        "lr_l1": jnp.stack(l1s),
        "excess": rounded - planted,
        "excess_tuned": errs - planted,
        "planted_error": planted,
        "flipped": jnp.mean(flip),
    }


def _coords(spec: BooleanSpec) -> dict:
    return {
        "function": list(FUNCTIONS),
        "criterion": list(CRITERIA),
        "sigma": list(spec.sigmas),
        "eps": list(spec.epsilons),
        "level": np.arange(spec.n + 1),
        "degree": np.arange(spec.n + 1),
        "ldegree": list(spec.learn_degrees),
    }


#: The simulator's declaration: both functions, the (σ, ε) grid and the regression degrees
#: are computed inside a lane (dimensions of the outputs).
SIMULATOR = Simulator(
    run,
    spec=BooleanSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "level_weight": ("function", "level"),
        "tail": ("function", "sigma", "degree"),
        "dstar": ("function", "criterion", "sigma", "eps"),
        "lr_error": ("ldegree",),
        "lr_round_error": ("ldegree",),
        "lr_l1": ("ldegree",),
        "excess": ("ldegree",),
        "excess_tuned": ("ldegree",),
    },
    coords=_coords,
)
