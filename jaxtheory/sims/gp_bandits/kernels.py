"""Stationary covariance kernels on :math:`[0,1]^d`: squared exponential and Matérn.

With the scaled distance :math:`r = \\lVert x - x' \\rVert / \\ell` and signal variance
:math:`v`,

.. math::
    k_{\\mathrm{SE}} = v\\, e^{-r^2/2}, \\quad
    k_{1/2} = v\\, e^{-r}, \\quad
    k_{3/2} = v\\,(1 + \\sqrt3 r)\\, e^{-\\sqrt3 r}, \\quad
    k_{5/2} = v\\,(1 + \\sqrt5 r + \\tfrac53 r^2)\\, e^{-\\sqrt5 r}.

The kernel name is a Python string (it selects code); the lengthscale and variance are
array scalars, so every function here can be ``jax.vmap``-ed over them. Distances are
formed from differences (not :math:`\\lVert a\\rVert^2 + \\lVert b\\rVert^2 - 2a\\cdot b`),
so :math:`k(x, x) = v` exactly, which the noiseless posterior relies on.

References:
    Rasmussen and Williams (2006), *Gaussian Processes for Machine Learning*, §4.2.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

__all__ = ["KERNELS", "kernel_matrix", "kernel_row", "kernel_profile"]

#: Kernel names accepted by :func:`kernel_matrix`.
KERNELS = ("se", "matern12", "matern32", "matern52")


def kernel_profile(name: str, d2):
    """The unit-variance kernel as a function of the squared scaled distance :math:`r^2`.

    Args:
        name: one of :data:`KERNELS`.
        d2: squared scaled distances :math:`r^2 \\ge 0` (any shape).

    Returns:
        :math:`k/v` at each entry, same shape as ``d2``.

    Example:
        >>> import jax.numpy as jnp
        >>> [round(float(kernel_profile(k, jnp.float32(1.0))), 4) for k in KERNELS]
        [0.6065, 0.3679, 0.4834, 0.524]
    """
    if name == "se":
        return jnp.exp(-0.5 * d2)
    pos = d2 > 0
    r = jnp.where(pos, jnp.sqrt(jnp.where(pos, d2, 1.0)), 0.0)  # safe sqrt at 0
    if name == "matern12":
        return jnp.exp(-r)
    if name == "matern32":
        s = np.sqrt(3.0) * r
        return (1.0 + s) * jnp.exp(-s)
    if name == "matern52":
        s = np.sqrt(5.0) * r
        return (1.0 + s + s * s / 3.0) * jnp.exp(-s)
    raise ValueError(f"unknown kernel {name!r}; expected one of {KERNELS}")


def kernel_matrix(name: str, x1, x2, lengthscale, variance):
    """Covariance matrix :math:`K_{ij} = k(x^{(1)}_i, x^{(2)}_j)`.

    Args:
        name: one of :data:`KERNELS`.
        x1: points, shape ``(n1, d)``.
        x2: points, shape ``(n2, d)``.
        lengthscale: :math:`\\ell > 0` (scalar, may be traced).
        variance: :math:`v > 0` (scalar, may be traced).

    Returns:
        Array of shape ``(n1, n2)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> x = jnp.array([[0.0], [0.1]])
        >>> K = kernel_matrix("se", x, x, 0.1, 2.0)
        >>> [[round(float(v), 4) for v in row] for row in K]
        [[2.0, 1.2131], [1.2131, 2.0]]
        >>> ls = jnp.array([0.1, 0.2])   # vmapped over the lengthscale
        >>> k01 = jax.vmap(lambda l: kernel_matrix("matern52", x, x, l, 1.0)[0, 1])(ls)
        >>> [round(float(v), 4) for v in k01]
        [0.524, 0.8286]
    """
    x1 = jnp.asarray(x1)
    x2 = jnp.asarray(x2)
    diff = x1[:, None, :] - x2[None, :, :]
    d2 = jnp.sum(diff * diff, axis=-1) / (lengthscale * lengthscale)
    return variance * kernel_profile(name, d2)


def kernel_row(name: str, x, i, lengthscale, variance):
    """One row :math:`k(x_i, x_j)_{j}` of the kernel matrix on a candidate set.

    Costs :math:`O(nd)`, so a run never needs to store the :math:`n \\times n` matrix.

    Args:
        name: one of :data:`KERNELS`.
        x: candidate points, shape ``(n, d)``.
        i: row index (may be traced).
        lengthscale: :math:`\\ell`.
        variance: :math:`v`.

    Returns:
        Array of shape ``(n,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> x = jnp.array([[0.0], [0.1], [0.3]])
        >>> [round(float(v), 4) for v in kernel_row("matern12", x, 1, 0.1, 1.0)]
        [0.3679, 1.0, 0.1353]
    """
    x = jnp.asarray(x)
    return kernel_matrix(name, x[i][None, :], x, lengthscale, variance)[0]
