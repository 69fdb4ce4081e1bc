r"""Monte Carlo simulator: SGD, LA, LA-DiLoCo and SLA on streaming Gaussian linear regression.

One run draws, at every gradient step :math:`t`, a fresh batch for every worker,
:math:`x = \sqrt{\lambda}\odot z`, :math:`z \sim N(0, I_D)`, labels with noise
:math:`\sigma\epsilon`, and applies the optax transforms of :mod:`jaxtheory.optim`:

* ``"sgd"``: ``optax.sgd(lr, momentum=beta, nesterov=...)`` (the inner optimizer alone);
* ``"lookahead"``: :func:`jaxtheory.optim.lookahead` (LA, and SLA with outer momentum);
* ``"diloco"``: :func:`jaxtheory.optim.diloco` with ``workers`` workers on a leading
  axis and outer ``optax.sgd(alpha, momentum=mu, nesterov=...)`` (LA-DiLoCo).

The parameters are the error coordinates :math:`e = \theta - \theta^*` (the gradient
:math:`\frac1B\sum_b x_b(\langle x_b, e\rangle - \sigma\epsilon_b)` depends on
:math:`\theta` only through :math:`e`), started at :math:`e_0 = -\theta^*`. The excess
risk :math:`\frac12\sum_i\lambda_i e_i^2` of the slow weights is logged on
:func:`.log_grid`.

Batches depend only on ``(key, t)`` and the total batch :math:`WB`: step :math:`t`
draws one ``(W·B, D)`` array and worker :math:`w` takes rows :math:`wB, \dots, wB+B-1`.
So runs that differ only in the optimizer see the same samples, which makes the exact
identities of arXiv:2603.26954 (LA with :math:`k=1` is SGD with step
:math:`\alpha\eta`; LA-DiLoCo with :math:`k=1` is LA with batch :math:`WB`; one-worker
DiLoCo is LA) hold trajectory by trajectory.

The inner optimizer state is re-initialized at every synchronization
(``reset_inner_state=True``), the convention of the exact recursions
(:mod:`.exact`); it only matters with inner momentum.

References:
    Agarwala, *High dimensional theory of two-phase optimizers*, arXiv:2603.26954.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim import diloco, lookahead, replicate_workers, slow_params
from jaxtheory.sims.linreg.exact import ALGORITHMS, MOMENTA
from jaxtheory.sims._record import mask_diverged, scan_record
from jaxtheory.sims.linreg.problems import SPECTRA, log_grid, problem

__all__ = ["MonteCarloSpec", "MC_DEFAULT_PARAMS", "make_optimizer", "run"]

#: Default parameters of the Monte Carlo :func:`run`.
MC_DEFAULT_PARAMS = {
    "lr": 0.5,
    "alpha": 0.5,
    "mu": 0.0,
    "beta": 0.0,
    "sigma2": 0.0,
    "a": 1.5,
    "b": 1.5,
    "gamma": 0.5,
    "kappa": 100.0,
    "frac": 0.5,
}


@dataclasses.dataclass(frozen=True)
class MonteCarloSpec:
    """Shapes and structure of a Monte Carlo run (the compile key).

    Attributes:
        dim: dimension :math:`D`.
        batch: per-worker batch :math:`B`.
        steps: gradient steps per worker :math:`T`.
        num_log: about this many log-spaced steps are logged.
        algorithm: ``"sgd"``, ``"lookahead"`` or ``"diloco"``.
        sync_period: inner steps :math:`k` per outer step.
        workers: number of workers :math:`W` (``"diloco"``; 1 otherwise).
        outer: outer momentum, ``"none"``, ``"heavy_ball"`` or ``"nesterov"``.
        inner: inner (or SGD) momentum, ``"none"``, ``"heavy_ball"`` or ``"nesterov"``.
        spectrum: see :func:`.spectrum`.
        full_batch: use the population gradient :math:`Ke` (gradient descent).
        return_params: also return the final slow error vector (``final_error``).
    """

    dim: int = 64
    batch: int = 4
    steps: int = 256
    num_log: int = 24
    algorithm: str = "lookahead"
    sync_period: int = 1
    workers: int = 1
    outer: str = "none"
    inner: str = "none"
    spectrum: str = "power_law"
    full_batch: bool = False
    return_params: bool = False

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        for f in ("outer", "inner"):
            if getattr(self, f) not in MOMENTA:
                raise ValueError(f"{f} must be one of {MOMENTA}, got {getattr(self, f)!r}")
        if self.spectrum not in SPECTRA:
            raise ValueError(f"spectrum must be one of {SPECTRA}, got {self.spectrum!r}")
        if self.algorithm != "diloco" and self.workers != 1:
            raise ValueError("workers > 1 needs algorithm='diloco'")


def make_optimizer(spec: MonteCarloSpec, params) -> optax.GradientTransformation:
    """The optax transform a run uses (float hyperparameters may be traced).

    Args:
        spec: :class:`MonteCarloSpec`.
        params: ``lr``, ``beta`` (inner momentum), ``alpha``, ``mu`` (outer momentum).

    Returns:
        ``optax.sgd`` for ``"sgd"``, :func:`jaxtheory.optim.lookahead` or
        :func:`jaxtheory.optim.diloco` otherwise.

    Example:
        >>> spec = MonteCarloSpec(algorithm="lookahead", sync_period=2, outer="nesterov")
        >>> opt = make_optimizer(spec, MC_DEFAULT_PARAMS)
        >>> type(opt.init(jnp.zeros(3))).__name__
        'TwoPhaseState'
    """
    inner_mom = None if spec.inner == "none" else params["beta"]
    inner = optax.sgd(params["lr"], momentum=inner_mom, nesterov=spec.inner == "nesterov")
    if spec.algorithm == "sgd":
        return inner
    outer_mom = None if spec.outer == "none" else params["mu"]
    nest = spec.outer == "nesterov"
    if spec.algorithm == "lookahead":
        return lookahead(
            inner,
            spec.sync_period,
            params["alpha"],
            momentum=outer_mom,
            nesterov=nest,
            reset_inner_state=True,
        )
    outer = optax.sgd(params["alpha"], momentum=outer_mom, nesterov=nest)
    return diloco(inner, outer, spec.sync_period, spec.workers, reset_inner_state=True)


def run(spec: MonteCarloSpec, params, key: jax.Array) -> dict:
    r"""One Monte Carlo run; pure, jittable, vmappable over ``params`` and ``key``.

    Args:
        spec: :class:`MonteCarloSpec`.
        params: ``lr``, ``alpha``, ``mu``, ``beta``, ``sigma2`` and the problem's
            ``a``, ``b``, ``gamma``, ``kappa``, ``frac``.
        key: PRNG key of the run (the data stream).

    Returns:
        ``risk`` of the slow weights at :func:`.log_grid` steps (NaN after a
        divergence), ``final_risk``, ``diverged_step``, and with ``return_params`` the
        final slow error ``final_error`` of shape ``(dim,)``.

    Example:
        >>> spec = MonteCarloSpec(dim=8, batch=2, steps=16, num_log=3, sync_period=4)
        >>> out = run(spec, dict(MC_DEFAULT_PARAMS, sigma2=0.1), jax.random.key(0))
        >>> out["risk"].shape, int(out["diverged_step"])
        ((3,), -1)
    """
    lam, t2 = problem(spec.spectrum, spec.dim, params)
    sqrt_lam = jnp.sqrt(lam)
    sigma = jnp.sqrt(jnp.asarray(params["sigma2"], lam.dtype))
    W, B, D = spec.workers, spec.batch, spec.dim
    e0 = -jnp.sqrt(t2)
    opt = make_optimizer(spec, params)
    multi = spec.algorithm == "diloco"
    x0 = replicate_workers(e0, W) if multi else e0

    def grad(e, t):
        if spec.full_batch:
            return lam * e
        kt = jax.random.fold_in(key, t)
        z = jax.random.normal(kt, (W * B, D), lam.dtype).reshape(W, B, D)
        eps = jax.random.normal(jax.random.fold_in(kt, 1), (W * B,), lam.dtype).reshape(W, B)
        x = z * sqrt_lam
        ew = e if multi else e[None]
        r = jnp.einsum("wbd,wd->wb", x, ew) - sigma * eps
        g = jnp.einsum("wbd,wb->wd", x, r) / B
        return g if multi else g[0]

    def slow(e, state):
        return e if spec.algorithm == "sgd" else slow_params(state)

    def step(carry, t):
        e, state = carry
        u, state = opt.update(grad(e, t), state, e)
        return optax.apply_updates(e, u), state

    def risk(carry):
        return 0.5 * jnp.sum(lam * slow(*carry) ** 2)

    log_at = log_grid(spec.steps, spec.num_log)
    (e, state), curve, div = scan_record(
        step, (x0, opt.init(x0)), log_at, risk, length=spec.steps, guard=True
    )
    s = slow(e, state)
    out = {
        "risk": curve,
        "final_risk": mask_diverged(risk((e, state)), div),
        "diverged_step": div,
    }
    if spec.return_params:
        out["final_error"] = s
    return out
