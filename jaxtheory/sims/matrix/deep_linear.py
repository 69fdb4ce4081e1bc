"""Deep linear student of a heavy-tailed teacher: Adam, Muon and Schatten-p (arXiv 2605.19781).

A port of the authors' ``experiments/muon_limitations.py``: teacher
:math:`W^\\star = U\\operatorname{diag}(i^{-\\alpha})V^\\top` (Haar :math:`U, V`, size
:math:`d\\times d`), inputs :math:`X \\sim N(0, I)` (``n`` samples), targets
:math:`Y = XW^\\star`; a depth-:math:`L` linear student :math:`XW_1\\cdots W_L` of width
:math:`d` with PyTorch's default initialisation (:math:`U(-1/\\sqrt d, 1/\\sqrt d)`),
full-batch mean-squared error. Optimizers:

* ``adam``: :func:`optax.adam` (PyTorch defaults);
* ``muon``: :func:`jaxtheory.optim.muon` (momentum 0.95, Nesterov, five quintic
  Newton–Schulz steps; bias-corrected momentum as in optax, where the authors' baseline
  has none);
* ``smuon``: :func:`jaxtheory.optim.scale_by_schatten_p` (momentum 0.95, Nesterov, no
  second moment, κ = 1 pinning, :math:`p\\in[1.02, 10]` from ``p_init = 10``, chosen
  every ``interval`` steps from the layer inputs by ``p_method``).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._lmo import muon
from jaxtheory.optim._schatten import scale_by_schatten_p
from jaxtheory.simulator import Simulator

__all__ = ["DeepLinearSpec", "DEFAULT_PARAMS", "run", "SIMULATOR"]

#: Default of every parameter ``run`` reads.
#: Default parameters of the deep-linear :func:`run`.
DEFAULT_PARAMS = {"lr": 0.01, "alpha": 1.0, "sv_momentum": 0.9}


@dataclasses.dataclass(frozen=True)
class DeepLinearSpec:
    """Shapes of a deep-linear run.

    Attributes:
        d: input, width and output dimension.
        depth: number of layers :math:`L`.
        n_samples: training samples.
        steps: full-batch steps.
        methods: names among ``'adam'``, ``'muon'`` and ``'smuon'``, run side by side
            from the same student initialisation (a leading ``method`` axis).
        interval: p-selection period (``smuon``).
        p_method: ``'exact_momentum'`` or ``'exact'`` (``smuon``).
    """

    d: int = 100
    depth: int = 2
    n_samples: int = 1000
    steps: int = 300
    methods: tuple = ("adam", "muon", "smuon")
    interval: int = 50
    p_method: str = "exact_momentum"


def _optimizer(spec, params, method):
    lr = params["lr"]
    if method == "adam":
        return optax.adam(lr)
    if method == "muon":
        return muon(lr, beta=0.95)
    if method == "smuon":
        return optax.chain(
            scale_by_schatten_p(
                0.95,
                nesterov=True,
                moment="none",
                p_min=1.02,
                p_max=10.0,
                p_method=spec.p_method,
                interval=spec.interval,
                sv_momentum=params["sv_momentum"],
            ),
            optax.scale_by_learning_rate(lr),
        )
    raise ValueError(f"unknown method {method!r}")


def run(spec: DeepLinearSpec, params: dict, key: jax.Array) -> dict:
    """One deep-linear training run; pure, jittable, vmappable.

    Args:
        spec: :class:`DeepLinearSpec`.
        params: ``lr``, ``alpha`` (teacher decay exponent), ``sv_momentum``.
        key: PRNG key (teacher, data, student).

    Returns:
        Per method (leading axis): ``loss`` (per step, before the update), ``final_loss``, ``best_loss`` (minimum
        over steps, the authors' summary), ``p_mean`` (per step, mean :math:`p` over
        layers; ``0`` for Adam and Muon, which choose no :math:`p`: a finite marker,
        since the sweep marks a lane with any non-finite output as diverged).

    Example:
        >>> import jax
        >>> spec = DeepLinearSpec(d=8, depth=2, n_samples=32, steps=20, interval=5)
        >>> out = run(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["loss"].shape, bool((out["best_loss"] < out["loss"][:, 0]).all())
        ((3, 20), True)
    """
    d, depth = spec.d, spec.depth
    kt, kx, kw = jax.random.split(key, 3)
    ku, kv = jax.random.split(kt)
    u = jnp.linalg.qr(jax.random.normal(ku, (d, d)))[0]
    v = jnp.linalg.qr(jax.random.normal(kv, (d, d)))[0]
    s = jnp.arange(1, d + 1, dtype=jnp.float32) ** (-jnp.asarray(params["alpha"], jnp.float32))
    w_star = (u * s) @ v.T
    x = jax.random.normal(kx, (spec.n_samples, d))
    y = x @ w_star
    bound = 1.0 / jnp.sqrt(d)
    ws = [jax.random.uniform(k, (d, d), minval=-bound, maxval=bound) for k in jax.random.split(kw, depth)]

    def forward(ws):
        h, inputs = x, []
        for w in ws:
            inputs.append(h)
            h = h @ w
        return h, inputs

    def loss_fn(ws):
        out, inputs = forward(ws)
        return jnp.mean((out - y) ** 2), inputs

    def one(method):
        opt = _optimizer(spec, params, method)

        def step(carry, _):
            ws, state = carry
            (loss, inputs), g = jax.value_and_grad(loss_fn, has_aux=True)(ws)
            if method == "smuon":
                upd, state = opt.update(g, state, ws, activations=inputs)
                p_mean = jnp.mean(jnp.stack(state[0].p))
            else:
                upd, state = opt.update(g, state, ws)
                p_mean = jnp.float32(0.0)  # no p; not NaN, which would mark the lane diverged
            return (optax.apply_updates(ws, upd), state), (loss, p_mean)

        _, (losses, p_mean) = jax.lax.scan(step, (ws, opt.init(ws)), None, length=spec.steps)
        finite = jnp.where(jnp.isfinite(losses), losses, jnp.inf)
        return {"loss": losses, "final_loss": losses[-1], "best_loss": jnp.min(finite), "p_mean": p_mean}

    outs = [one(m) for m in spec.methods]
    return {k: jnp.stack([o[k] for o in outs]) for k in outs[0]}


#: The simulator's declaration: an experiment names it instead of restating it. Every
#: optimizer of ``spec.methods`` runs in each lane (dimension ``method``).
SIMULATOR = Simulator(
    run,
    spec=DeepLinearSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "loss": ("method", "step"),
        "final_loss": ("method",),
        "best_loss": ("method",),
        "p_mean": ("method", "step"),
    },
    coords=lambda spec: {"method": list(spec.methods), "step": np.arange(spec.steps)},
)
