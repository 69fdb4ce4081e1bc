"""A 3-mode energy on a periodic sheet whose zero set is a torus of shifted grid patterns.

An ``L × L`` sheet with hexagonal (rhombic, 60°) geometry: in index space the three wave
vectors :math:`K_1 = (m, 0)`, :math:`K_2 = (0, m)`, :math:`K_3 = (-m, -m)` have equal length
and sit at 120° (their six signs at 60°) in the sheet's metric, and
:math:`K_1 + K_2 + K_3 = 0`. With :math:`X = \\mathrm{fft2}(x)` and
:math:`X_j = X_{K_j}`, the energy

.. math::

    E(x) = \\frac1{2N}\\Big[\\lambda_0 (X_0 - c_0)^2
      + \\lambda_a \\sum_{\\pm K_j} \\frac{(|X_{\\pm K_j}|^2 - a^2)^2}{4a^2}
      + \\lambda_{hi} \\sum_{\\text{other } k} |X_k|^2\\Big]
      + \\lambda_\\phi \\frac{|X_1X_2X_3 - a^3|^2}{3Na^4}

(``N = L²``; the normalisation makes every :math:`\\lambda = 1` the energy
:math:`\\tfrac12\\lVert x - y\\rVert^2` of the nearest pattern to second order) is invariant
under both translations of the sheet, :math:`X_k \\mapsto e^{-i(k_1\\alpha_1 + k_2\\alpha_2)}X_k`
(the triad product is invariant because :math:`\\sum_j K_j = 0`), and its zero set,
:math:`X_0 = c_0`, :math:`|X_j| = a`, :math:`\\arg X_1 + \\arg X_2 + \\arg X_3 = 0`, every
other mode 0, is a two-torus of patterns
:math:`x(\\alpha) = \\frac{c_0}{N} + \\frac{2a}{N}\\sum_j \\cos(K_j\\cdot r - \\phi_j)`.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = [
    "grid_pattern",
    "init_torus_params",
    "torus_energy",
    "torus_distance",
    "torus_point",
    "torus_phases",
    "torus_tangents",
    "torus_translate",
]

_TINY = 1e-30


def _modes(side: int, m: int):
    return ((m % side, 0), (0, m % side), ((-m) % side, (-m) % side))


def _layout(side: int, m: int):
    """Static rfft2 bookkeeping: multiplicity weights, the pattern entries, the "other" mask.

    ``rfft2`` keeps columns ``0 .. L/2``; an entry of column ``0`` or ``L/2`` stands for itself,
    any other for itself and its conjugate (weight 2). The pattern's six modes
    :math:`\\pm K_j` are the entries ``(m, 0)``, ``(L - m, 0)`` (weight 1 each: :math:`\\pm K_1`),
    ``(0, m)`` (:math:`K_2` and its conjugate) and ``(m, m)`` (:math:`-K_3` and its conjugate).
    """
    half = side // 2 + 1
    w = np.full((side, half), 2.0)
    w[:, 0] = 1.0
    if side % 2 == 0:
        w[:, -1] = 1.0
    entries = ((m % side, 0), ((-m) % side, 0), (0, m % side), (m % side, m % side))
    other = w.copy()
    other[0, 0] = 0.0
    for p, q in entries:
        other[p, q] = 0.0
    return w, entries, other


def grid_pattern(side: int, m: int, alpha1=0.0, alpha2=0.0):
    """The target pattern :math:`(1.5 + \\sum_j\\cos(K_j\\cdot(r - s)))/4.5 \\in [0, 1]`, shifted by :math:`\\alpha`.

    Args:
        side: sheet side ``L``.
        m: wave number of the pattern (``m`` periods along each axis).
        alpha1: shift along axis 0 as an angle (:math:`2\\pi` is one sheet length).
        alpha2: shift along axis 1.

    Returns:
        Shape ``(L, L)``, float32.

    Example:
        >>> g = grid_pattern(16, 2)
        >>> float(g.max()), g.shape
        (1.0, (16, 16))
    """
    r = 2 * jnp.pi * jnp.arange(side) / side
    a1 = r[:, None] - jnp.asarray(alpha1, jnp.float32)
    a2 = r[None, :] - jnp.asarray(alpha2, jnp.float32)
    s = jnp.cos(m * a1) + jnp.cos(m * a2) + jnp.cos(-m * a1 - m * a2)
    return ((1.5 + s) / 4.5).astype(jnp.float32)


def init_torus_params(lam: float = 0.1, c: float = 0.1) -> dict:
    """Uninformed starting parameters (logarithms): :math:`\\lambda_{0,a,\\phi,hi} = ` ``lam``, :math:`c_0/N = a/N = ` ``c``.

    Args:
        lam: starting value of every :math:`\\lambda`.
        c: starting :math:`c_0/N` and :math:`a/N`.

    Returns:
        ``{"log_lam": (4,), "log_amp": (2,)}``.

    Example:
        >>> sorted(init_torus_params())
        ['log_amp', 'log_lam']
    """
    return {
        "log_lam": jnp.full(4, jnp.log(lam), jnp.float32),
        "log_amp": jnp.full(2, jnp.log(c), jnp.float32),
    }


def _parts(params, n):
    lam = jnp.exp(params["log_lam"])
    c0, a = n * jnp.exp(params["log_amp"])
    return lam, c0, a


def torus_energy(params: dict, x, m: int = 2):
    """The 3-mode torus energy of the module docstring.

    Args:
        params: ``{"log_lam": (4,), "log_amp": (2,)}`` (:math:`\\lambda_0, \\lambda_a,
            \\lambda_\\phi, \\lambda_{hi}` and :math:`c_0/N, a/N`).
        x: one state, shape ``(L, L)``.
        m: the pattern's wave number.

    Returns:
        The scalar energy.

    Example:
        >>> p = {"log_lam": jnp.zeros(4), "log_amp": jnp.log(jnp.array([1 / 3, 1 / 9]))}
        >>> float(torus_energy(p, grid_pattern(16, 2))) < 1e-6
        True
    """
    side = x.shape[-1]
    n = side * side
    lam, c0, a = _parts(params, n)
    w, entries, other = _layout(side, m)
    xh = jnp.fft.rfft2(x)
    power = xh.real**2 + xh.imag**2
    amp = sum(w[p, q] * (power[p, q] - a**2) ** 2 for p, q in entries) / (4 * a**2)
    (p1, q1), _, (p2, q2), (p3, q3) = entries
    triad = xh[p1, q1] * xh[p2, q2] * jnp.conj(xh[p3, q3]) - a**3
    e_triad = (triad.real**2 + triad.imag**2) / (3 * n * a**4)
    quad = lam[0] * (xh[0, 0].real - c0) ** 2 + lam[1] * amp + lam[3] * jnp.sum(jnp.asarray(other) * power)
    return quad / (2 * n) + lam[2] * e_triad


def torus_point(params: dict, side: int, m: int = 2, alpha1=0.0, alpha2=0.0):
    """The zero-set pattern at angles :math:`(\\alpha_1, \\alpha_2)`: :math:`Y_0 = c_0`, :math:`Y_{K_1} = ae^{-im\\alpha_1}`, ...

    Args:
        params: energy parameters.
        side: sheet side ``L``.
        m: the pattern's wave number.
        alpha1: angle along axis 0.
        alpha2: angle along axis 1.

    Returns:
        The pattern, shape ``(L, L)``.

    Example:
        >>> p = {"log_lam": jnp.zeros(4), "log_amp": jnp.log(jnp.array([1 / 3, 1 / 9]))}
        >>> bool(jnp.allclose(torus_point(p, 16, 2, 0.2), grid_pattern(16, 2, 0.2), atol=1e-5))
        True
    """
    n = side * side
    _, c0, a = _parts(params, n)
    phases = (m * alpha1, m * alpha2, -m * (alpha1 + alpha2))
    yh = jnp.zeros((side, side), jnp.complex64).at[0, 0].set(c0)
    for (p, q), ph in zip(_modes(side, m), phases):
        val = a * jnp.exp(-1j * ph)
        yh = yh.at[p, q].set(val).at[(-p) % side, (-q) % side].set(jnp.conj(val))
    return jnp.fft.ifft2(yh).real


def torus_phases(x, m: int = 2):
    """Decoded torus angles :math:`\\hat\\alpha_i = -\\arg X_{K_i}/m` (mod :math:`2\\pi/m`), shape ``(..., 2)``.

    Args:
        x: state(s), shape ``(..., L, L)``.
        m: the pattern's wave number.

    Returns:
        :math:`(\\hat\\alpha_1, \\hat\\alpha_2)` along the last axis.

    Example:
        >>> a = torus_phases(grid_pattern(16, 2, 0.3, -0.2))
        >>> [round(float(v), 4) for v in a]
        [0.3, -0.2]
    """
    side = x.shape[-1]
    xh = jnp.fft.rfft2(x)
    return jnp.stack([-jnp.angle(xh[..., m % side, 0]) / m, -jnp.angle(xh[..., 0, m % side]) / m], -1)


def torus_distance(params: dict, x, m: int = 2):
    """:math:`\\lVert x - y\\rVert_2` to a point ``y`` of the zero set near ``x``: an upper bound on the distance to the torus.

    ``y`` has :math:`Y_0 = c_0`, :math:`Y_j = a e^{i(\\arg X_j + \\delta)}` with the triad
    error :math:`\\delta = -\\mathrm{wrap}(\\sum_j\\arg X_j)/3` shared equally, every other
    mode 0 (computed by Parseval over the ``rfft2`` entries with their multiplicities).

    Args:
        params: energy parameters.
        x: state(s), shape ``(..., L, L)``.
        m: the pattern's wave number.

    Returns:
        The distance, shape ``(...)``.

    Example:
        >>> p = init_torus_params()
        >>> float(torus_distance(p, grid_pattern(16, 2))) > 0
        True
    """
    side = x.shape[-1]
    n = side * side
    _, c0, a = _parts(params, n)
    w, entries, other = _layout(side, m)
    xh = jnp.fft.rfft2(x)
    (p1, q1), (pm, qm), (p2, q2), (p3, q3) = entries
    x1, x1m, x2, x3c = xh[..., p1, q1], xh[..., pm, qm], xh[..., p2, q2], xh[..., p3, q3]
    args = jnp.stack([jnp.angle(x1), jnp.angle(x2), -jnp.angle(x3c)], -1)  # arg X_{K_3} = -arg X_{(m,m)}
    delta = -jnp.angle(jnp.exp(1j * jnp.sum(args, -1))) / 3
    y1 = a * jnp.exp(1j * (args[..., 0] + delta))
    y2 = a * jnp.exp(1j * (args[..., 1] + delta))
    y3c = a * jnp.exp(-1j * (args[..., 2] + delta))
    sq = (
        (xh[..., 0, 0].real - c0) ** 2
        + jnp.abs(x1 - y1) ** 2
        + jnp.abs(x1m - jnp.conj(y1)) ** 2
        + 2 * jnp.abs(x2 - y2) ** 2
        + 2 * jnp.abs(x3c - y3c) ** 2
        + jnp.sum(jnp.asarray(other) * (xh.real**2 + xh.imag**2), (-2, -1))
    )
    return jnp.sqrt(sq / n)


def torus_tangents(x):
    """The two translation generators :math:`\\hat x_k \\mapsto -ik_i\\hat x_k` (signed wave numbers, Nyquist 0).

    Args:
        x: state(s), shape ``(..., L, L)``.

    Returns:
        ``(T1(x), T2(x))``, each the shape of ``x``.

    Example:
        >>> g = grid_pattern(16, 2, 0.4, 0.1)
        >>> h = 1e-3
        >>> fd = (grid_pattern(16, 2, 0.4 + h, 0.1) - grid_pattern(16, 2, 0.4 - h, 0.1)) / (2 * h)
        >>> float(jnp.max(jnp.abs(torus_tangents(g)[0] - fd))) < 1e-3
        True
    """
    side = x.shape[-1]
    k0 = _signed(side)
    k1 = k0[: side // 2 + 1].at[side // 2].set(0.0)
    xh = jnp.fft.rfft2(x)
    t1 = jnp.fft.irfft2(-1j * k0[:, None] * xh, (side, side))
    t2 = jnp.fft.irfft2(-1j * k1[None, :] * xh, (side, side))
    return t1, t2


def _signed(side: int):
    k = jnp.fft.fftfreq(side, 1.0 / side).astype(jnp.float32)
    return k.at[side // 2].set(0.0) if side % 2 == 0 else k


def torus_translate(x, alpha1, alpha2=0.0):
    """The band-limited translation :math:`\\hat x_k \\mapsto e^{-i(k_1\\alpha_1 + k_2\\alpha_2)}\\hat x_k` (Nyquist fixed).

    Args:
        x: state(s), shape ``(..., L, L)``.
        alpha1: shift along axis 0 as an angle (:math:`2\\pi` is one sheet length).
        alpha2: shift along axis 1.

    Returns:
        The translated state, the shape of ``x``.

    Example:
        >>> g = grid_pattern(16, 2)
        >>> bool(jnp.allclose(torus_translate(g, 0.3), grid_pattern(16, 2, 0.3), atol=1e-5))
        True
    """
    side = x.shape[-1]
    k0 = _signed(side)
    k1 = k0[: side // 2 + 1].at[side // 2].set(0.0)
    ph = jnp.exp(-1j * (k0[:, None] * alpha1 + k1[None, :] * alpha2))
    return jnp.fft.irfft2(ph * jnp.fft.rfft2(x), (side, side))
