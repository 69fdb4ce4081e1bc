"""A rotation-invariant Fourier energy whose zero set is a ring of shifted bumps.

``N`` neurons with preferred angles :math:`\\varphi_n = 2\\pi n/N` hold a state
:math:`x \\in \\mathbb R^N` with Fourier coefficients
:math:`\\hat x_k = \\sum_n x_n e^{-ik\\varphi_n}` (``jnp.fft.rfft``). A rotation by
:math:`\\theta` multiplies :math:`\\hat x_k` by :math:`e^{-ik\\theta}` (the Nyquist mode is
left alone: a continuous rotation of a sampled signal is defined through its band-limited
interpolant, whose Nyquist term has no well-defined phase). The energy
(the paper's, with every mode up to Nyquist included so that the zero set is a
ring, not a ring times the free high modes)

.. math::

    E(x) = \\sum_{k=0}^{N/2} \\frac{m_k}{2N}\\,\\lambda_k\\, r_k(x),\\qquad
    r_0 = (\\hat x_0 - c_0)^2,\\quad
    r_1 = \\frac{(|\\hat x_1|^2 - c_1^2)^2}{4c_1^2},\\quad
    r_k = |\\hat x_k - c_k u^k|^2\\ (2 \\le k \\le K),\\quad
    r_k = |\\hat x_k|^2\\ (k > K),

with :math:`u = \\hat x_1/|\\hat x_1|`, :math:`m_k` the multiplicity of mode ``k`` in the
full spectrum (1 for ``k = 0`` and ``N/2``, else 2) and one shared :math:`\\lambda_k =
\\lambda_{hi}` for ``k > K``. The normalisation makes :math:`\\lambda_k = 1` the energy
:math:`\\tfrac12\\lVert x - y\\rVert^2` of the nearest ring point ``y`` to second order (the
paper's :math:`\\lambda_1(|\\hat x_1|^2 - c_1^2)^2` is the same term with
:math:`\\lambda_1` rescaled). Every term is invariant under rotations, so
:math:`\\langle\\nabla E, T\\rangle = 0` for the tangent field :func:`tangent`
(:math:`\\hat x_k \\mapsto -ik\\hat x_k`), and the zero set is
:math:`\\{x : \\hat x_0 = c_0, \\hat x_k = c_k e^{-ik\\theta}\\ (1 \\le k \\le K),
\\hat x_k = 0\\ (k > K)\\}`, one ring parameterised by :math:`\\theta`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = [
    "bump",
    "init_ring_params",
    "ring_energy",
    "ring_point",
    "ring_distance",
    "ring_phase",
    "tangent",
    "rotate",
    "circulant_kernel",
]

# |x̂_1| is computed as sqrt(|x̂_1|² + _TINY) so that the gradient at x̂_1 = 0 is finite
# (the phase u is undefined there; no state of the experiment comes near it).
_TINY = 1e-30


def bump(n: int, kappa: float, theta=0.0):
    """The von Mises bump :math:`b(\\varphi_n - \\theta) = e^{\\kappa(\\cos(\\varphi_n - \\theta) - 1)}`.

    Args:
        n: number of neurons ``N``.
        kappa: concentration :math:`\\kappa` (peak 1, width about :math:`1/\\sqrt\\kappa`).
        theta: the bump's centre (radians); an array broadcasts against the neurons
            (shape ``theta.shape + (n,)``).

    Returns:
        The bump, float32.

    Example:
        >>> x = bump(8, 4.0)
        >>> float(x[0]), x.shape
        (1.0, (8,))
    """
    phi = 2 * jnp.pi * jnp.arange(n) / n
    theta = jnp.asarray(theta, jnp.float32)[..., None]
    return jnp.exp(kappa * (jnp.cos(phi - theta) - 1.0)).astype(jnp.float32)


def _mult(n: int):
    m = jnp.full(n // 2 + 1, 2.0).at[0].set(1.0)
    return m.at[n // 2].set(1.0) if n % 2 == 0 else m


def _wavenumbers(n: int):
    k = jnp.arange(n // 2 + 1, dtype=jnp.float32)
    return k.at[n // 2].set(0.0) if n % 2 == 0 else k


def init_ring_params(k_max: int, n: int, lam: float = 0.1, c: float = 0.1) -> dict:
    """Uninformed starting parameters: every :math:`\\lambda_k = ` ``lam``, every :math:`c_k = ` ``c``·N.

    Parameters are stored as logarithms (:math:`\\lambda_k = e^{\\ell_k}`,
    :math:`c_k = N e^{\\gamma_k}`), so they stay positive under Adam.

    Args:
        k_max: the highest learned mode ``K``.
        n: number of neurons ``N``.
        lam: starting :math:`\\lambda` of every term.
        c: starting :math:`c_k/N` of every learned mode.

    Returns:
        ``{"log_lam": (K + 2,), "log_c": (K + 1,)}``: :math:`\\lambda_0 \\ldots \\lambda_K,
        \\lambda_{hi}` and :math:`c_0 \\ldots c_K`.

    Example:
        >>> p = init_ring_params(8, 64)
        >>> p["log_lam"].shape, p["log_c"].shape
        ((10,), (9,))
    """
    if not 1 <= k_max < n // 2:
        raise ValueError(f"k_max must be in [1, N/2), got {k_max} for N = {n}")
    return {
        "log_lam": jnp.full(k_max + 2, jnp.log(lam), jnp.float32),
        "log_c": jnp.full(k_max + 1, jnp.log(c), jnp.float32),
    }


def _unpack(params, n):
    lam_learned = jnp.exp(params["log_lam"])
    k_max = lam_learned.shape[0] - 2
    lam = jnp.concatenate([lam_learned[: k_max + 1], jnp.full(n // 2 - k_max, lam_learned[-1])])
    c = n * jnp.exp(params["log_c"])
    return lam, c, k_max


def ring_energy(params: dict, x):
    """The Fourier energy :math:`E(x)` of the module docstring.

    Args:
        params: ``{"log_lam", "log_c"}`` (see :func:`init_ring_params`).
        x: one state, shape ``(N,)`` (``N`` even).

    Returns:
        The scalar energy.

    Example:
        >>> p = init_ring_params(4, 32)
        >>> y = ring_point(p, 32, 0.3)
        >>> abs(float(ring_energy(p, y))) < 1e-6
        True
    """
    n = x.shape[-1]
    if n % 2:
        raise ValueError(f"the ring needs an even number of neurons, got {n}")
    lam, c, k_max = _unpack(params, n)
    xh = jnp.fft.rfft(x)
    a1sq = xh[1].real ** 2 + xh[1].imag ** 2
    u = xh[1] / jnp.sqrt(a1sq + _TINY)
    r0 = (xh[0].real - c[0]) ** 2
    r1 = (a1sq - c[1] ** 2) ** 2 / (4 * c[1] ** 2)
    ks = jnp.arange(2, k_max + 1)
    lock = xh[2 : k_max + 1] - c[2:] * u**ks
    r_lock = lock.real**2 + lock.imag**2
    hi = xh[k_max + 1 :]
    r_hi = hi.real**2 + hi.imag**2
    r = jnp.concatenate([jnp.stack([r0, r1]), r_lock, r_hi])
    return jnp.sum(_mult(n) / (2 * n) * lam * r)


def ring_point(params: dict, n: int, theta):
    """The point of the energy's zero set at phase ``theta``: :math:`\\hat y_k = c_k e^{-ik\\theta}`.

    Args:
        params: energy parameters.
        n: number of neurons.
        theta: the phase (radians), scalar.

    Returns:
        The state, shape ``(n,)``.

    Example:
        >>> p = init_ring_params(4, 32)
        >>> ring_point(p, 32, 0.0).shape
        (32,)
    """
    _, c, k_max = _unpack(params, n)
    k = jnp.arange(k_max + 1)
    yh = jnp.zeros(n // 2 + 1, jnp.complex64).at[: k_max + 1].set(c * jnp.exp(-1j * k * theta))
    return jnp.fft.irfft(yh, n)


def ring_phase(x):
    """The decoded phase :math:`\\hat\\theta = -\\arg\\hat x_1` (a bump centred at θ gives θ).

    Args:
        x: state(s), shape ``(..., N)``.

    Returns:
        The phase in :math:`(-\\pi, \\pi]`, shape ``(...)``.

    Example:
        >>> round(float(ring_phase(bump(64, 4.0, 1.0))), 5)
        1.0
    """
    return -jnp.angle(jnp.fft.rfft(x)[..., 1])


def ring_distance(params: dict, x):
    """:math:`\\lVert x - y(\\hat\\theta)\\rVert_2`: distance to the zero-set point at the decoded phase.

    An upper bound on the distance to the ring (the ring point nearest ``x`` may sit at
    another phase); it is exact in mode 1, where the nearest point of phase
    :math:`\\hat\\theta` is :math:`c_1 u`. Computed from the spectrum by Parseval,
    :math:`\\lVert z\\rVert^2 = \\frac1N\\sum_k m_k |\\hat z_k|^2`.

    Args:
        params: energy parameters.
        x: state(s), shape ``(..., N)``.

    Returns:
        The distance, shape ``(...)``.

    Example:
        >>> p = init_ring_params(4, 32)
        >>> float(ring_distance(p, ring_point(p, 32, 2.0))) < 1e-4
        True
    """
    n = x.shape[-1]
    _, c, k_max = _unpack(params, n)
    xh = jnp.fft.rfft(x)
    a1 = jnp.abs(xh[..., 1])
    u = xh[..., 1] / jnp.maximum(a1, 1e-30)
    ks = jnp.arange(k_max + 1)
    target = c * u[..., None] ** ks
    d = jnp.abs(xh[..., : k_max + 1] - target) ** 2
    d = d.at[..., 1].set((a1 - c[1]) ** 2)
    hi = jnp.abs(xh[..., k_max + 1 :]) ** 2
    m = _mult(n)
    sq = jnp.sum(m[: k_max + 1] * d, -1) + jnp.sum(m[k_max + 1 :] * hi, -1)
    return jnp.sqrt(sq / n)


def tangent(x):
    """The rotation generator :math:`T(x) = \\partial_\\theta R_\\theta x|_{\\theta=0}`: :math:`\\hat x_k \\mapsto -ik\\hat x_k`.

    For a bump :math:`x(\\theta) = b(\\varphi - \\theta)` this is
    :math:`\\partial_\\theta x(\\theta)`; the Nyquist mode is mapped to 0.

    Args:
        x: state(s), shape ``(..., N)``.

    Returns:
        :math:`T(x)`, the same shape.

    Example:
        >>> x = bump(64, 4.0, 0.5)
        >>> h = 1e-3
        >>> fd = (bump(64, 4.0, 0.5 + h) - bump(64, 4.0, 0.5 - h)) / (2 * h)
        >>> float(jnp.max(jnp.abs(tangent(x) - fd))) < 1e-3
        True
    """
    n = x.shape[-1]
    return jnp.fft.irfft(-1j * _wavenumbers(n) * jnp.fft.rfft(x), n)


def rotate(x, theta):
    """The band-limited rotation :math:`R_\\theta`: :math:`\\hat x_k \\mapsto e^{-ik\\theta}\\hat x_k` (Nyquist fixed).

    Args:
        x: state(s), shape ``(..., N)``.
        theta: the angle (radians).

    Returns:
        :math:`R_\\theta x`, the shape of ``x``.

    Example:
        >>> x = bump(64, 4.0)
        >>> bool(jnp.allclose(rotate(x, 2 * jnp.pi / 64), jnp.roll(x, 1), atol=1e-5))
        True
    """
    n = x.shape[-1]
    return jnp.fft.irfft(jnp.exp(-1j * _wavenumbers(n) * theta) * jnp.fft.rfft(x), n)


def circulant_kernel(energy, params, y):
    """The connectivity :math:`w(\\Delta)` of the linear Hopfield network whose energy has E's curvature at ``y``.

    With a linear transfer :math:`g(x) = x` the Hopfield energy
    :math:`\\tfrac12\\lVert x\\rVert^2 - \\tfrac12 x^\\top W x - I^\\top x` has Hessian
    :math:`1 - W`; matching it to the Hessian ``H`` of ``energy`` at the ring point ``y``,
    averaged over the N discrete rotations (under which E is exactly invariant, so the
    average is the circulant part of ``H``), gives
    :math:`w(\\Delta) = \\delta_{\\Delta 0} - \\frac1N\\sum_i H_{i,i+\\Delta}`.

    Args:
        energy: ``energy(params, x)``.
        params: its parameters.
        y: a point of the ring, shape ``(N,)``.

    Returns:
        ``(w, eigs)``: ``w`` for lags ``0 .. N/2`` and the eigenvalues of ``H`` (ascending).

    Example:
        >>> p = init_ring_params(4, 16, lam=1.0)
        >>> w, eigs = circulant_kernel(ring_energy, p, ring_point(p, 16, 0.0))
        >>> w.shape, eigs.shape
        ((9,), (16,))
    """
    n = y.shape[-1]
    h = jax.hessian(lambda z: energy(params, z))(y)
    h = 0.5 * (h + h.T)
    idx = jnp.arange(n)
    lags = jnp.arange(n // 2 + 1)
    hbar = jnp.mean(h[idx[None, :], (idx[None, :] + lags[:, None]) % n], axis=1)
    w = (lags == 0).astype(h.dtype) - hbar
    return w, jnp.linalg.eigvalsh(h)
