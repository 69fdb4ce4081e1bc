r"""A two-layer MLP in standard and NTK parameterisation, with width masking, and its NTK.

.. math::
    f(x) = s_2 \sum_{j=1}^{m_{\max}} \mathbb 1[j \le m]\, a_j\, \phi(s_1\, w_j \cdot x),

with the active width :math:`m` (a mask over :math:`m_{\max}` padded units, so widths
can be ``jax.vmap``-ed in one program):

* ``"standard"`` (SP): :math:`s_1 = s_2 = 1`, :math:`w_j \sim N(0, I_d/d)`,
  :math:`a_j \sim N(0, 1/m)`; its NTK grows like :math:`m`;
* ``"ntk"``: :math:`s_1 = 1/\sqrt d`, :math:`s_2 = 1/\sqrt m` (the *active* width),
  :math:`w_j \sim N(0, I_d)`, :math:`a_j \sim N(0, 1)`; its NTK has an
  :math:`m`-independent limit.

The parameters are ``{"W1": (m_max, d), "a": (m_max,)}``; padded units are zero at init
and receive no gradient (the mask multiplies their output). The empirical NTK is
:math:`K = J J^\top` with :math:`J = \partial f(X)/\partial\theta` (:func:`empirical_ntk`);
its exact finite-width form (:func:`ntk_closed_form`) is

.. math::
    K(x, x') = s_2^2 \sum_j \mathbb 1_j \big[\phi(u_j)\phi(u'_j)
        + a_j^2 \phi'(u_j)\phi'(u'_j)\, s_1^2\, x\cdot x'\big], \quad u_j = s_1 w_j\cdot x.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxtheory.sims.nets.ntk import activation

__all__ = [
    "PARAMETERISATIONS",
    "width_mask",
    "init",
    "apply",
    "jacobian",
    "empirical_ntk",
    "ntk_closed_form",
    "lambda_min",
    "jacobian_drift",
    "weight_drift",
    "init_variances",
]

#: Parameterisations of :func:`apply`.
PARAMETERISATIONS = ("standard", "ntk")


def _check(param):
    if param not in PARAMETERISATIONS:
        raise ValueError(f"unknown parameterisation {param!r}; choose one of {PARAMETERISATIONS}")


def width_mask(width, max_width: int, dtype=jnp.float32):
    """The mask of the first ``width`` of ``max_width`` hidden units.

    Args:
        width: active width :math:`m` (int or traced scalar), ``1 <= m <= max_width``.
        max_width: padded width :math:`m_{\\max}` (static).
        dtype: dtype of the mask.

    Returns:
        ``(max_width,)`` array of 0/1.

    Example:
        >>> width_mask(2, 4).tolist()
        [1.0, 1.0, 0.0, 0.0]
    """
    return (jnp.arange(max_width) < width).astype(dtype)


def _scales(param, mask, d):
    m = jnp.sum(mask)
    if param == "standard":
        return 1.0, 1.0
    return 1.0 / jnp.sqrt(d), 1.0 / jnp.sqrt(m)


def init_variances(param: str, width, dim: int):
    """Init variances :math:`(\\sigma_1^2, \\sigma_2^2)` of ``W1`` and ``a``.

    Args:
        param: one of :data:`PARAMETERISATIONS`.
        width: active width :math:`m`.
        dim: input dimension :math:`d`.

    Returns:
        ``(sigma1_sq, sigma2_sq)``: :math:`(1/d, 1/m)` in SP, :math:`(1, 1)` in NTK.

    Example:
        >>> init_variances("standard", 4, 8)
        (0.125, 0.25)
    """
    _check(param)
    if param == "standard":
        return 1.0 / dim, 1.0 / width
    return 1.0, 1.0


def init(key, dim: int, max_width: int, width=None, param: str = "standard", dtype=jnp.float32):
    """Draw the parameters, zero on the padded units.

    Args:
        key: PRNG key.
        dim: input dimension :math:`d`.
        max_width: padded width :math:`m_{\\max}` (static).
        width: active width :math:`m` (default ``max_width``; may be traced).
        param: one of :data:`PARAMETERISATIONS`.
        dtype: parameter dtype.

    Returns:
        ``{"W1": (max_width, dim), "a": (max_width,)}``.

    Example:
        >>> import jax
        >>> p = init(jax.random.PRNGKey(0), 3, 4, width=2)
        >>> p["W1"].shape, float(abs(p["a"][2:]).sum())
        ((4, 3), 0.0)
    """
    _check(param)
    width = max_width if width is None else width
    mask = width_mask(width, max_width, dtype)
    s1, s2 = init_variances(param, jnp.asarray(width, dtype), dim)
    k1, k2 = jax.random.split(key)
    W1 = jax.random.normal(k1, (max_width, dim), dtype) * jnp.sqrt(jnp.asarray(s1, dtype))
    a = jax.random.normal(k2, (max_width,), dtype) * jnp.sqrt(jnp.asarray(s2, dtype))
    return {"W1": W1 * mask[:, None], "a": a * mask}


def apply(params, X, mask, param: str = "standard", act: str = "tanh"):
    """Network outputs :math:`f(X)`.

    Args:
        params: ``{"W1", "a"}`` from :func:`init`.
        X: inputs ``(n, d)``.
        mask: width mask ``(max_width,)`` (:func:`width_mask`).
        param: one of :data:`PARAMETERISATIONS`.
        act: nonlinearity name (:data:`jaxtheory.sims.nets.ntk.ACTIVATIONS`).

    Returns:
        ``(n,)`` outputs.

    Example:
        >>> import jax.numpy as jnp
        >>> p = {"W1": jnp.ones((2, 1)), "a": jnp.array([1.0, 5.0])}
        >>> apply(p, jnp.array([[0.5]]), width_mask(1, 2), act="linear").tolist()
        [0.5]
    """
    _check(param)
    phi, _ = activation(act)
    s1, s2 = _scales(param, mask, X.shape[-1])
    return s2 * (phi(s1 * X @ params["W1"].T) @ (params["a"] * mask))


def jacobian(params, X, mask, param: str = "standard", act: str = "tanh"):
    """The Jacobian :math:`J = \\partial f(X)/\\partial\\theta` flattened to ``(n, P)``.

    Args:
        params, X, mask, param, act: as in :func:`apply`.

    Returns:
        ``(n, P)`` with ``P = max_width * (d + 1)`` (columns of ``W1`` then ``a``).

    Example:
        >>> import jax
        >>> p = init(jax.random.PRNGKey(0), 2, 3)
        >>> jacobian(p, jax.numpy.ones((4, 2)), width_mask(3, 3)).shape
        (4, 9)
    """
    J = jax.jacrev(lambda p: apply(p, X, mask, param, act))(params)
    n = X.shape[0]
    return jnp.concatenate([J["W1"].reshape(n, -1), J["a"].reshape(n, -1)], axis=1)


def empirical_ntk(params, X, mask, param: str = "standard", act: str = "tanh"):
    """The empirical NTK Gram matrix :math:`K = J J^\\top` on ``X``.

    Args:
        params, X, mask, param, act: as in :func:`apply`.

    Returns:
        ``(n, n)`` kernel.

    Example:
        >>> import jax
        >>> p = init(jax.random.PRNGKey(0), 2, 3)
        >>> empirical_ntk(p, jax.numpy.eye(2), width_mask(3, 3)).shape
        (2, 2)
    """
    J = jacobian(params, X, mask, param, act)
    return J @ J.T


def ntk_closed_form(params, X, mask, param: str = "standard", act: str = "tanh"):
    """The exact finite-width NTK of the two-layer net (the formula of the module docstring).

    Args:
        params, X, mask, param, act: as in :func:`apply`.

    Returns:
        ``(n, n)`` kernel, equal to :func:`empirical_ntk` up to rounding.

    Example:
        >>> import jax
        >>> p = init(jax.random.PRNGKey(1), 2, 3)
        >>> X = jax.numpy.eye(2)
        >>> bool(jax.numpy.allclose(ntk_closed_form(p, X, width_mask(3, 3)),
        ...                         empirical_ntk(p, X, width_mask(3, 3)), atol=1e-6))
        True
    """
    _check(param)
    phi, dphi = activation(act)
    s1, s2 = _scales(param, mask, X.shape[-1])
    U = s1 * X @ params["W1"].T  # (n, m)
    F = phi(U) * mask
    G = dphi(U) * (params["a"] * mask)
    return s2**2 * (F @ F.T + (G @ G.T) * (s1**2) * (X @ X.T))


def lambda_min(K):
    """Smallest eigenvalue of a symmetric kernel (``eigvalsh``; batched over leading axes).

    Args:
        K: ``(..., n, n)`` symmetric matrices.

    Returns:
        ``(...)`` smallest eigenvalues.

    Example:
        >>> import jax
        >>> float(lambda_min(jax.numpy.diag(jax.numpy.array([3.0, 0.5]))))
        0.5
    """
    return jnp.linalg.eigvalsh(K)[..., 0]


def jacobian_drift(J, J0):
    """Relative Jacobian change :math:`\\|J_t - J_0\\|_F / \\|J_0\\|_F`.

    Args:
        J: Jacobian at time t ``(..., n, P)`` (:func:`jacobian`).
        J0: Jacobian at init, same shape.

    Returns:
        ``(...)`` relative changes.

    Example:
        >>> import jax.numpy as jnp
        >>> float(jacobian_drift(2 * jnp.ones((1, 2)), jnp.ones((1, 2))))
        1.0
    """
    return jnp.linalg.norm(J - J0, axis=(-2, -1)) / jnp.linalg.norm(J0, axis=(-2, -1))


def weight_drift(params, params0, mask=None):
    """Relative weight change :math:`\\|\\theta_t - \\theta_0\\| / \\|\\theta_0\\|` over the active units.

    Args:
        params: parameters at time t (``{"W1", "a"}``).
        params0: parameters at init.
        mask: width mask; default all units.

    Returns:
        scalar relative change (the squared ratio is the OU displacement).

    Example:
        >>> import jax.numpy as jnp
        >>> p0 = {"W1": jnp.ones((2, 1)), "a": jnp.ones(2)}
        >>> p = {"W1": jnp.zeros((2, 1)), "a": jnp.ones(2)}
        >>> round(float(weight_drift(p, p0)), 4)
        0.7071
    """
    if mask is None:
        mask = jnp.ones(params0["a"].shape, params0["a"].dtype)
    num = jnp.sum(((params["W1"] - params0["W1"]) * mask[:, None]) ** 2)
    num = num + jnp.sum(((params["a"] - params0["a"]) * mask) ** 2)
    den = jnp.sum((params0["W1"] * mask[:, None]) ** 2) + jnp.sum((params0["a"] * mask) ** 2)
    return jnp.sqrt(num / den)
