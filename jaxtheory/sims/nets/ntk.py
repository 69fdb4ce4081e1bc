"""Neural tangent kernels in closed form: the initial NTK of a wide layer and kernel gradient descent.

Moved here from :mod:`jaxtheory.sims.moe.dmft` (which imports every name back), so the
lazy-training references are shared by the network experiments:

* :func:`initial_ntk`: the :math:`N \\to \\infty` NTK of a one-hidden-layer (gated) expert,
  :math:`K_0 = \\sum_m (g_m g_m^\\top) \\odot (\\Phi_0 + G_0 \\odot K_x)`, by Gauss–Hermite
  quadrature;
* :func:`lazy_loss`: the closed-form loss curve of kernel gradient descent with a fixed
  kernel, :math:`\\Delta_t = (I - \\eta K_0/P)^t y`;
* :func:`activation`: the nonlinearities by name, with their derivatives.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["ACTIVATIONS", "activation", "initial_ntk", "lazy_loss"]

#: Nonlinearities φ available by name (``relu`` is not smooth: used by the network
#: experiments, not by the DMFT quadrature, whose accuracy assumes a smooth φ).
ACTIVATIONS = ("tanh", "erf", "linear", "relu")


def activation(name: str):
    """The nonlinearity φ and its derivative φ' named ``name``.

    .. math::
        \\tanh(h),\\; 1 - \\tanh^2(h) \\qquad \\operatorname{erf}(h),\\;
        \\tfrac{2}{\\sqrt\\pi} e^{-h^2} \\qquad h,\\; 1 \\qquad \\max(h, 0),\\; 1[h > 0]

    Args:
        name: one of :data:`ACTIVATIONS`.

    Returns:
        ``(phi, dphi)``, elementwise functions.

    Example:
        >>> phi, dphi = activation("tanh")
        >>> float(phi(0.0)), float(dphi(0.0))
        (0.0, 1.0)
    """
    if name == "tanh":
        return jnp.tanh, lambda h: 1.0 - jnp.tanh(h) ** 2
    if name == "erf":
        return jax.scipy.special.erf, lambda h: (2.0 / np.sqrt(np.pi)) * jnp.exp(-h * h)
    if name == "linear":
        return (lambda h: h), (lambda h: jnp.ones_like(h))
    if name == "relu":
        return jax.nn.relu, lambda h: (h > 0).astype(jnp.result_type(h, jnp.float32))
    raise ValueError(f"unknown activation {name!r}; choose one of {ACTIVATIONS}")


def _jitted(*static):
    """Compile the whole function once per static arguments."""

    def deco(fn):
        compiled = jax.jit(fn, static_argnames=static)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return compiled(*args, **kwargs)

        return wrapper

    return deco


@_jitted("act", "order")
def initial_ntk(Kx, z0, act: str = "tanh", order: int = 40):
    """Initial NTK of the limit, by Gauss–Hermite quadrature of the two-point averages.

    .. math::
        K_0 = \\sum_m (g_{m,0} g_{m,0}^\\top) \\odot (\\Phi_0 + G_0 \\odot K_x), \\quad
        \\Phi_0(\\mu,\\nu) = \\mathbb E\\,\\phi(u_\\mu)\\phi(u_\\nu), \\;
        G_0(\\mu,\\nu) = \\mathbb E\\,\\phi'(u_\\mu)\\phi'(u_\\nu), \\; u \\sim N(0, K_x),

    with :math:`g_{m,0} = \\sigma(z_{m,0})`; each pair's 2×2 Gaussian average uses a
    tensor Gauss–Hermite rule with ``order`` points per dimension on its Cholesky factor.

    Args:
        Kx: input kernel ``(P, P)``.
        z0: initial router logits ``(M, P)``.
        act: nonlinearity name.
        order: quadrature points per dimension.

    Returns:
        ``(P, P)`` kernel.

    Example:
        >>> import jax.numpy as jnp
        >>> K = initial_ntk(jnp.eye(2), jnp.zeros((1, 2)), "linear")
        >>> [[round(float(v), 4) for v in row] for row in K]   # (1/4)(Kx + Kx)
        [[0.5, 0.0], [0.0, 0.5]]
    """
    phi, dphi = activation(act)
    t, w = np.polynomial.hermite_e.hermegauss(order)  # weight exp(-t²/2)
    w = w / w.sum()
    T1, T2 = (jnp.asarray(v, Kx.dtype) for v in np.meshgrid(t, t, indexing="ij"))
    W = jnp.asarray(np.outer(w, w), Kx.dtype)
    d = jnp.diag(Kx)
    s1 = jnp.sqrt(d)[:, None]
    s1b = jnp.broadcast_to(s1, Kx.shape)
    rho = Kx / jnp.clip(s1 * s1.T, 1e-30)
    # u_mu = s_mu t1, u_nu = s_nu (rho t1 + sqrt(1-rho^2) t2)
    c = jnp.sqrt(jnp.clip(1.0 - rho**2, 0.0))
    U1 = s1b[..., None, None] * T1
    U2 = s1b.T[..., None, None] * (rho[..., None, None] * T1 + c[..., None, None] * T2)
    Phi = jnp.sum(W * phi(U1) * phi(U2), axis=(-2, -1))
    G = jnp.sum(W * dphi(U1) * dphi(U2), axis=(-2, -1))
    g = jax.nn.sigmoid(z0)
    return jnp.einsum("mp,mq->pq", g, g) * (Phi + G * Kx)


def lazy_loss(Kx, y, K0, eta, steps: int):
    """Kernel-regression GD with a fixed kernel: the :math:`\\gamma_0 \\to 0` loss curve.

    .. math::
        \\Delta_t = (I - \\eta K_0 / P)^t y, \\qquad L_t = \\tfrac{1}{2P}\\|\\Delta_t\\|^2.

    Computed in closed form by eigendecomposition of :math:`K_0` (numpy, float64).

    Args:
        Kx: input kernel (only its size is used).
        y: targets ``(P,)``.
        K0: the fixed kernel ``(P, P)`` (e.g. :func:`initial_ntk`).
        eta: step η.
        steps: :math:`T`.

    Returns:
        ``(T+1,)`` numpy array of losses.

    Example:
        >>> import numpy as np
        >>> lazy_loss(np.eye(1), np.array([1.0]), np.array([[1.0]]), 0.5, 2).tolist()
        [0.5, 0.125, 0.03125]
    """
    P = np.asarray(Kx).shape[0]
    lam, V = np.linalg.eigh(np.asarray(K0, np.float64))
    c = V.T @ np.asarray(y, np.float64)
    t = np.arange(steps + 1)[:, None]
    return 0.5 * np.sum((c[None, :] * (1.0 - eta * lam[None, :] / P) ** t) ** 2, axis=1) / P
