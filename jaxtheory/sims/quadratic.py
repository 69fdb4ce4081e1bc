"""Noisy quadratic: SGD and heavy-ball momentum with additive gradient noise.

The objective is :math:`f(x) = \\tfrac12 \\sum_i \\lambda_i x_i^2` with a geometric
spectrum from :math:`\\lambda_{\\max}` down to :math:`\\lambda_{\\min}`, and the oracle
returns :math:`g = \\Lambda x + \\sigma \\xi`, :math:`\\xi \\sim N(0, I)`. The optimizer
is ``optax.sgd(lr, momentum)`` (heavy ball, :math:`\\beta = 0` is plain SGD):

.. math::
    m_{t+1} = g_t + \\beta m_t, \\qquad x_{t+1} = x_t - \\eta m_{t+1}.

Per eigenmode this is the AR(2) recursion
:math:`x_{t+1} = (1 + \\beta - \\eta\\lambda) x_t - \\beta x_{t-1} - \\eta\\sigma\\xi_t`,
whose stationary variance gives the closed-form excess risk of
:func:`stationary_risk`, and whose companion matrix's spectral radius
(:func:`spectral_radius`) exceeds one exactly when
:math:`\\eta\\lambda > 2(1 + \\beta)`: for SGD, :math:`\\eta > 2/\\lambda_{\\max}`.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.sims._record import log_steps, mask_diverged, polyak_update, scan_record
from jaxtheory.simulator import Simulator

__all__ = [
    "QuadraticSpec",
    "DEFAULT_PARAMS",
    "spectrum",
    "log_steps",
    "run",
    "stationary_risk",
    "spectral_radius",
]


@dataclasses.dataclass(frozen=True)
class QuadraticSpec:
    """Shapes of a noisy-quadratic run.

    Attributes:
        dim: dimension :math:`d`.
        steps: horizon :math:`T`.
        num_log: number of log-spaced steps at which the risk is recorded.
    """

    dim: int = 16
    steps: int = 1000
    num_log: int = 32


#: Default parameters of :func:`run`: learning rate, momentum, noise σ and the spectrum's ends.
DEFAULT_PARAMS = {"lr": 0.1, "momentum": 0.0, "noise": 1.0, "lam_min": 0.1, "lam_max": 1.0}


def spectrum(dim: int, lam_min, lam_max, xp=jnp):
    """Geometric spectrum :math:`\\lambda_i = \\lambda_{\\max} (\\lambda_{\\min}/\\lambda_{\\max})^{i/(d-1)}`.

    Example:
        >>> import numpy as np
        >>> spectrum(3, 0.25, 1.0, xp=np).tolist()
        [1.0, 0.5, 0.25]
    """
    i = xp.arange(dim) / max(dim - 1, 1)
    return lam_max * (lam_min / lam_max) ** i


def run(spec: QuadraticSpec, params: dict, key: jax.Array) -> dict:
    """One optimization run on the noisy quadratic; pure, jittable, vmappable.

    Args:
        spec: :class:`QuadraticSpec`.
        params: ``lr``, ``momentum``, ``noise`` (σ), ``lam_min``, ``lam_max``.
        key: PRNG key of the lane.

    Returns:
        ``risk`` at :func:`log_steps` (NaN after a divergence), ``mean_risk`` (time
        average over the second half of the run), ``final_risk`` and
        ``diverged_step``.

    Example:
        >>> import jax
        >>> out = run(QuadraticSpec(dim=4, steps=200), dict(DEFAULT_PARAMS, lr=0.5),
        ...           jax.random.key(0))
        >>> sorted(out), out["risk"].shape, int(out["diverged_step"])
        (['diverged_step', 'final_risk', 'mean_risk', 'risk'], (27,), -1)
    """
    lam = spectrum(spec.dim, params["lam_min"], params["lam_max"]).astype(jnp.float32)
    opt = optax.sgd(learning_rate=params["lr"], momentum=params["momentum"])
    x0 = jnp.ones(spec.dim, jnp.float32) / jnp.sqrt(spec.dim)
    half = spec.steps // 2

    def risk(x):
        return 0.5 * jnp.sum(lam * x * x)

    def step(carry, t):
        x, state, avg = carry
        g = lam * x + params["noise"] * jax.random.normal(jax.random.fold_in(key, t), x.shape)
        upd, state = opt.update(g, state, x)
        x = optax.apply_updates(x, upd)
        return x, state, polyak_update(avg, risk(x), t, start=half)

    init = (x0, opt.init(x0), jnp.float32(0.0))
    log_at = log_steps(spec.steps, spec.num_log)
    (x, _, mean_risk), curve, div = scan_record(
        step, init, log_at, lambda c: risk(c[0]), length=spec.steps, guard=True
    )
    return {
        "risk": curve,
        **mask_diverged({"mean_risk": mean_risk, "final_risk": risk(x)}, div),
        "diverged_step": div,
    }


def stationary_risk(lr, momentum, noise, lam):
    """Closed-form stationary excess risk of heavy ball (SGD at β = 0) with additive noise.

    Per mode, the AR(2) recursion has stationary variance
    :math:`v = \\frac{(1+\\beta)\\,\\eta\\sigma^2}{(1-\\beta)\\,\\lambda\\,(2(1+\\beta) - \\eta\\lambda)}`,
    so

    .. math::
        \\mathbb{E} f_\\infty = \\frac12 \\sum_i \\lambda_i v_i
        = \\frac12 \\sum_i \\frac{(1+\\beta)\\,\\eta\\sigma^2}{(1-\\beta)(2(1+\\beta) - \\eta\\lambda_i)},

    which at :math:`\\beta = 0` is :math:`\\frac12\\sum_i \\eta\\sigma^2/(2 - \\eta\\lambda_i)`.
    Valid only where the recursion is stable (:func:`spectral_radius` < 1).

    Args:
        lr, momentum, noise: scalars or arrays that broadcast against each other.
        lam: eigenvalues (last axis).

    Example:
        >>> round(float(stationary_risk(0.1, 0.0, 1.0, np.array([1.0]))), 8)  # ½·0.1/1.9
        0.02631579
    """
    lr = np.asarray(lr, dtype=np.float64)[..., None]
    b = np.asarray(momentum, dtype=np.float64)[..., None]
    s2 = np.asarray(noise, dtype=np.float64)[..., None] ** 2
    lam = np.asarray(lam, dtype=np.float64)
    per_mode = (1 + b) * lr * s2 / ((1 - b) * (2 * (1 + b) - lr * lam))
    return 0.5 * per_mode.sum(axis=-1)


def spectral_radius(lr, momentum, lam):
    """Largest modulus of the roots of :math:`z^2 - (1+\\beta-\\eta\\lambda) z + \\beta`.

    The iterate's mean decays (or grows) like this radius to the power :math:`t`;
    maximized over the modes given on the last axis.

    Example:
        >>> float(spectral_radius(2.5, 0.0, np.array([1.0])))
        1.5
    """
    lr = np.asarray(lr, dtype=np.float64)[..., None]
    b = np.asarray(momentum, dtype=np.float64)[..., None]
    lam = np.asarray(lam, dtype=np.float64)
    a = 1 + b - lr * lam
    disc = (a * a - 4 * b).astype(np.complex128)
    r1 = np.abs((a + np.sqrt(disc)) / 2)
    r2 = np.abs((a - np.sqrt(disc)) / 2)
    return np.maximum(r1, r2).max(axis=-1)


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=QuadraticSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={"risk": ("step",)},
    coords=lambda spec: {"step": log_steps(spec.steps, spec.num_log)},
)
