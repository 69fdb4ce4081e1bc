"""Problems for streaming high-dimensional linear regression: spectra, targets, log grid.

Data are Gaussian, :math:`x \\sim N(0, K)` with :math:`K = \\mathrm{diag}(\\lambda_1 \\ge
\\dots \\ge \\lambda_D)` (the eigenbasis of the covariance, without loss of generality),
labels :math:`y = \\langle x, \\theta^*\\rangle + \\epsilon`, :math:`\\epsilon \\sim N(0,
\\sigma^2)`. The excess risk of :math:`\\theta` is

.. math::
    R(\\theta) = \\tfrac12 (\\theta-\\theta^*)^\\top K (\\theta-\\theta^*)
    = \\tfrac12 \\sum_i \\lambda_i (\\theta-\\theta^*)_i^2 .

Spectra (all normalized to :math:`\\operatorname{tr} K = 1`, sorted in decreasing order):

* ``"power_law"``: :math:`\\lambda_i \\propto i^{-a}`;
* ``"marchenko_pastur"``: the :math:`(i-\\tfrac12)/D` quantiles of the Marchenko–Pastur
  law of aspect ratio :math:`\\gamma \\in (0, 1]` (support
  :math:`[(1-\\sqrt\\gamma)^2, (1+\\sqrt\\gamma)^2]`), a deterministic stand-in for the
  spectrum of a sample covariance;
* ``"two_scale"``: a fraction ``frac`` of the modes at :math:`1` and the rest at
  :math:`1/\\kappa` (condition number :math:`\\kappa`), for clean acceleration tests.

The target has power-law energy :math:`\\lambda_i \\theta^{*2}_i \\propto i^{-b}`,
normalized to :math:`\\sum_i \\lambda_i \\theta^{*2}_i = 1`, so the excess risk at
:math:`\\theta_0 = 0` is :math:`\\tfrac12`. Every float parameter (``a``, ``b``,
``gamma``, ``kappa``, ``frac``) may be a traced scalar; only the spectrum's kind and
:math:`D` are static.

References:
    Agarwala, *High dimensional theory of two-phase optimizers*, arXiv:2603.26954.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from jaxtheory.sims._record import log_steps


def _FT():
    """The default float dtype (float64 inside ``jax.enable_x64``)."""
    return jnp.result_type(float)


__all__ = ["SPECTRA", "spectrum", "target_energy", "problem", "log_grid"]

#: Spectrum families of :func:`spectrum`.
SPECTRA = ("power_law", "marchenko_pastur", "two_scale")

_MP_GRID = 2049  # grid points of the Marchenko–Pastur CDF that is inverted


def _marchenko_pastur(dim: int, gamma):
    """Descending (i - 1/2)/D quantiles of the MP law with ratio gamma in (0, 1]."""
    gamma = jnp.asarray(gamma, _FT())
    lo, hi = (1 - jnp.sqrt(gamma)) ** 2, (1 + jnp.sqrt(gamma)) ** 2
    # x = lo + (hi - lo)(1 - cos(pi u))/2 removes the square-root edges of the density
    u = jnp.linspace(0.0, 1.0, _MP_GRID)
    x = lo + (hi - lo) * (1 - jnp.cos(jnp.pi * u)) / 2
    dxdu = (hi - lo) * jnp.pi * jnp.sin(jnp.pi * u) / 2
    dens = jnp.sqrt(jnp.maximum((hi - x) * (x - lo), 0.0)) / (2 * jnp.pi * gamma * x)
    f = dens * dxdu
    cdf = jnp.concatenate([jnp.zeros(1), jnp.cumsum((f[1:] + f[:-1]) / 2) * (u[1] - u[0])])
    cdf = cdf / cdf[-1]
    q = 1.0 - (jnp.arange(dim, dtype=_FT()) + 0.5) / dim
    return jnp.interp(q, cdf, x)


def spectrum(kind: str, dim: int, params) -> jnp.ndarray:
    """Eigenvalues :math:`\\lambda_1 \\ge \\dots \\ge \\lambda_D` of :math:`K`, with trace 1.

    Args:
        kind: ``"power_law"`` (reads ``params["a"]``), ``"marchenko_pastur"`` (reads
            ``params["gamma"]``, in :math:`(0, 1]`) or ``"two_scale"`` (reads
            ``params["kappa"]`` and ``params["frac"]``; at least one stiff mode).
        dim: :math:`D` (static).
        params: a mapping of (possibly traced) scalars.

    Returns:
        A float array (float32 unless x64 is enabled) of shape ``(dim,)`` summing to one.

    Example:
        >>> import numpy as np
        >>> lam = spectrum("power_law", 3, {"a": 1.0})
        >>> [round(v, 4) for v in (np.asarray(lam, np.float64) * 11 / 6).tolist()]  # 1, 1/2, 1/3 over 11/6
        [1.0, 0.5, 0.3333]
        >>> lam = spectrum("two_scale", 4, {"kappa": 10.0, "frac": 0.5})
        >>> float(lam[0] / lam[-1])
        10.0
    """
    i = jnp.arange(1, dim + 1, dtype=_FT())
    if kind == "power_law":
        lam = i ** (-jnp.asarray(params["a"], _FT()))
    elif kind == "marchenko_pastur":
        lam = _marchenko_pastur(dim, params["gamma"])
    elif kind == "two_scale":
        n_stiff = jnp.maximum(jnp.round(jnp.asarray(params["frac"], _FT()) * dim), 1.0)
        lam = jnp.where(i <= n_stiff, 1.0, 1.0 / jnp.asarray(params["kappa"], _FT()))
    else:
        raise ValueError(f"unknown spectrum {kind!r}; expected one of {SPECTRA}")
    return lam / jnp.sum(lam)


def target_energy(dim: int, b) -> jnp.ndarray:
    """Target energy per mode, :math:`\\lambda_i\\theta^{*2}_i \\propto i^{-b}`, summing to one.

    Example:
        >>> import numpy as np
        >>> np.asarray(target_energy(2, 0.0)).tolist()
        [0.5, 0.5]
    """
    i = jnp.arange(1, dim + 1, dtype=_FT())
    e = i ** (-jnp.asarray(b, _FT()))
    return e / jnp.sum(e)


def problem(kind: str, dim: int, params):
    """The spectrum and the squared target coordinates :math:`\\theta^{*2}_i`.

    Args:
        kind: spectrum kind, see :func:`spectrum`.
        dim: :math:`D`.
        params: scalars read by :func:`spectrum` and ``params["b"]``.

    Returns:
        ``(lam, theta_star_sq)``, each of shape ``(dim,)``, with
        :math:`\\sum_i \\lambda_i \\theta^{*2}_i = 1`.

    Example:
        >>> lam, t2 = problem("power_law", 8, {"a": 1.5, "b": 1.2})
        >>> round(float((lam * t2).sum()), 6)
        1.0
    """
    lam = spectrum(kind, dim, params)
    return lam, target_energy(dim, params["b"]) / lam


def log_grid(steps: int, num_log: int) -> np.ndarray:
    """Gradient-step counts at which risks are logged: about ``num_log`` log-spaced, distinct.

    Example:
        >>> log_grid(100, 3).tolist()
        [1, 10, 100]
    """
    return log_steps(steps, num_log)
