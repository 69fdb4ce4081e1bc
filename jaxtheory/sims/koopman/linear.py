"""The exactly affine case: full-batch heavy ball on a quadratic, in float64.

On :math:`f(x) = \\tfrac12 (x - x^\\star)^\\top H (x - x^\\star)` the heavy ball
``optax.sgd(lr, momentum=beta)``,

.. math:: m_{k+1} = H(x_k - x^\\star) + \\beta m_k,\\qquad x_{k+1} = x_k - \\eta m_{k+1},

is an affine map of the augmented state :math:`s = (x, m) \\in \\mathbb R^{2d}`, so
:math:`s_{k+\\tau} = K_\\tau s_k + c_\\tau` exactly and an affine exact DMD of rank
:math:`2d + 1` recovers it from :math:`w \\ge 2d + 1` strided snapshot pairs, while
:math:`x` alone is not Markov (it needs the momentum). Both fits are made here with
:func:`~jaxtheory.optim.exact_dmd` on the same snapshots, inside ``jax.enable_x64``:
in float32 the roundoff of the snapshots (about 1e-7) would hide the gap.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.optim._koopman import _lift, dmd_extrapolate, exact_dmd

__all__ = ["heavy_ball_trajectory", "heavy_ball_dmd_errors"]


def _problem(dim, kappa, seed):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    H = Q @ np.diag(np.geomspace(1.0, 1.0 / kappa, dim)) @ Q.T
    return H, rng.standard_normal(dim), rng.standard_normal(dim)


def heavy_ball_trajectory(steps: int, *, dim=8, kappa=100.0, lr=0.05, beta=0.9, seed=0):
    """Augmented states :math:`(x_k, m_k)`, ``k = 0..steps``, of the heavy ball, in float64.

    :math:`H = Q\\,\\mathrm{diag}(\\text{geomspace}(1, 1/\\kappa))\\,Q^\\top` with a random
    rotation :math:`Q`, :math:`x^\\star, x_0 \\sim N(0, I)` (numpy RNG ``seed``), zero
    momentum at the start, in numpy float64 with optax's convention
    (``optax.sgd(lr, momentum=beta)``: :math:`m \\leftarrow g + \\beta m`,
    :math:`x \\leftarrow x - \\eta m`); states packed as
    :func:`~jaxtheory.optim.koopman_accelerate` packs them (parameters, then the momentum).

    Args:
        steps: number of steps.
        dim: dimension :math:`d`.
        kappa: condition number of :math:`H`.
        lr: step :math:`\\eta`.
        beta: momentum :math:`\\beta`.
        seed: numpy seed of the problem.

    Returns:
        A float64 numpy array of shape ``(steps + 1, 2 * dim)``.

    Example:
        >>> s = heavy_ball_trajectory(3, dim=2)
        >>> s.shape, s.dtype
        ((4, 4), dtype('float64'))
    """
    H, xstar, x = _problem(dim, kappa, seed)
    m = np.zeros(dim)
    out = [np.concatenate([x, m])]
    for _ in range(steps):  # optax.sgd(lr, momentum=beta): m <- g + beta m, x <- x - lr m
        m = H @ (x - xstar) + beta * m
        x = x - lr * m
        out.append(np.concatenate([x, m]))
    return np.stack(out)


@functools.partial(jax.jit, static_argnums=(1, 2))
def _fit_predict(S, rank, jumps):
    L = _lift(S, True)
    fit = exact_dmd(L[:-1].T, L[1:].T, rank)
    return dmd_extrapolate(fit, L[-1], jumps)[-1][: S.shape[1]]


def heavy_ball_dmd_errors(tau: int, window: int, *, jumps=10, rank=17, seed=0, **problem) -> dict:
    """Relative errors of augmented and parameters-only affine DMD predicting ``jumps`` strides.

    Snapshots :math:`s_0, s_\\tau, \\dots, s_{w\\tau}`; both operators are affine exact DMD
    fits (:func:`~jaxtheory.optim.exact_dmd`) of the ``window`` pairs, the augmented one of
    rank ``rank`` on :math:`(x, m)`, the parameters-only one of rank
    :math:`\\min(\\text{rank}, d + 1)` on :math:`x`; both predict
    :math:`s_{(w + J)\\tau}` from :math:`s_{w\\tau}` (:func:`~jaxtheory.optim.dmd_extrapolate`).

    Args:
        tau: stride :math:`\\tau`.
        window: snapshot pairs :math:`w`.
        jumps: strides ahead :math:`J`.
        rank: rank of the augmented fit.
        seed: the problem's seed.
        **problem: ``dim``, ``kappa``, ``lr``, ``beta`` of :func:`heavy_ball_trajectory`.

    Returns:
        ``{"state_augmented", "params_augmented", "params_only"}``: relative errors
        :math:`\\lVert\\hat s - s\\rVert / \\lVert s\\rVert` of the whole state (augmented fit)
        and of the parameters (both fits).

    Example:
        >>> e = heavy_ball_dmd_errors(1, 24)
        >>> e["state_augmented"] < 1e-8 < e["params_only"]
        True
    """
    dim = problem.get("dim", 8)
    traj = heavy_ball_trajectory((window + jumps) * tau, seed=seed, **problem)
    snaps, truth = traj[: window * tau + 1 : tau], traj[-1]
    with jax.enable_x64(True):
        out = {
            "augmented": np.asarray(_fit_predict(jnp.asarray(snaps), rank, jumps)),
            "only": np.asarray(_fit_predict(jnp.asarray(snaps[:, :dim]), min(rank, dim + 1), jumps)),
        }
        rel = lambda a, b: float(np.linalg.norm(a - b) / np.linalg.norm(b))  # noqa: E731
        return {
            "state_augmented": rel(out["augmented"], truth),
            "params_augmented": rel(out["augmented"][:dim], truth[:dim]),
            "params_only": rel(out["only"], truth[:dim]),
        }
