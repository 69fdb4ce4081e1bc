"""A 2-16-16-2 MLP on two moons, trained with or without Koopman acceleration.

One make_moons draw (:func:`make_moons`, the formula of ``sklearn.datasets.make_moons``)
gives the training set (``n_train`` points), a held-out validation set (``n_val``: the
safeguard's loss, :func:`~jaxtheory.optim.koopman_accelerate`'s ``value_fn``) and a test
set (``n_test``: the accuracy curve); a seed fixes the network's initialization and the
minibatch order. The optimizer is a static spec field (Adam, SGD with momentum and
Adadelta have different state trees); the variant is a parameter (``variant``):

``baseline``
    the inner optimizer alone (:func:`~jaxtheory.optim.koopman_accelerate` with
    ``enabled=False``: the attempts' backtest diagnostics are recorded, no jump is taken);
``params``
    Koopman jumps fitted on the parameters only;
``augmented``
    Koopman jumps fitted on parameters and optimizer state (the paper's method).

Every run reports ``cost``: backprops plus held-out evaluations (none for the baseline).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._koopman import koopman_accelerate
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = ["MoonsSpec", "DEFAULT_PARAMS", "VARIANTS", "OPTIMIZERS", "make_moons", "run"]

#: The ``variant`` parameter's labels, in code order.
VARIANTS = ("baseline", "params", "augmented")
#: The ``optimizer`` spec field's values.
OPTIMIZERS = ("adam", "sgdm", "adadelta")

#: Default parameters of :func:`run`: the stride τ, the variant's code, each optimizer's step
#: (Adam 1e-3, SGD-momentum 0.05 with β = 0.9, Adadelta 1.0, as first proposed).
DEFAULT_PARAMS = {
    "tau": 5,
    "variant": 2,
    "lr_adam": 1e-3,
    "lr_sgdm": 0.05,
    "momentum": 0.9,
    "lr_adadelta": 1.0,
}


@dataclasses.dataclass(frozen=True)
class MoonsSpec:
    """Shapes of a two-moons run (the compile key).

    Attributes:
        optimizer: ``"adam"``, ``"sgdm"`` or ``"adadelta"``.
        steps: backprop steps (a multiple of ``period``).
        period: steps between extrapolation attempts (a multiple of ``log_every`` and of
            every τ, at least ``window`` τ).
        log_every: steps between test-accuracy records.
        window: DMD snapshot pairs :math:`w`.
        rank: DMD rank.
        max_jumps: horizon cap :math:`J` in strides.
        hidden: width of both hidden layers.
        n_train: training points.
        n_val: held-out (safeguard) points.
        n_test: test points.
        batch: minibatch size.
        noise: make_moons noise.
        data_seed: the numpy seed of the data draw.
        block_scale: fit the DMD on the stacked state with each block (parameters, each
            optimizer-state tree) scaled to unit root mean square
            (:func:`~jaxtheory.optim.koopman_accelerate`'s ``block_scale``).
    """

    optimizer: str = "adam"
    steps: int = 2400
    period: int = 80
    log_every: int = 20
    window: int = 8
    rank: int = 8
    max_jumps: int = 20
    hidden: int = 16
    n_train: int = 1024
    n_val: int = 256
    n_test: int = 1024
    batch: int = 64
    noise: float = 0.1
    data_seed: int = 0
    block_scale: bool = False


def make_moons(n: int, noise: float, seed: int):
    """Two interleaved half circles, the formula of ``sklearn.datasets.make_moons``.

    Outer moon :math:`(\\cos t, \\sin t)`, inner moon :math:`(1 - \\cos t, 1/2 - \\sin t)`,
    :math:`t` evenly spaced in :math:`[0, \\pi]` (``n // 2`` and ``n - n // 2`` points),
    plus :math:`N(0, \\text{noise}^2)` per coordinate, shuffled (numpy RNG ``seed``).

    Args:
        n: number of points.
        noise: standard deviation of the Gaussian noise.
        seed: numpy seed.

    Returns:
        ``(x, y)``: float32 ``(n, 2)`` points and int32 ``(n,)`` labels (0 outer, 1 inner).

    Example:
        >>> x, y = make_moons(8, 0.0, 0)
        >>> x.shape, int(y.sum())
        ((8, 2), 4)
    """
    n_out, n_in = n // 2, n - n // 2
    rng = np.random.default_rng(seed)
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    x = np.concatenate(
        [np.stack([np.cos(t_out), np.sin(t_out)], 1), np.stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)], 1)]
    )
    y = np.concatenate([np.zeros(n_out, np.int32), np.ones(n_in, np.int32)])
    x = x + noise * rng.standard_normal(x.shape)
    perm = rng.permutation(n)
    return x[perm].astype(np.float32), y[perm]


def _data(spec):
    x, y = make_moons(spec.n_train + spec.n_val + spec.n_test, spec.noise, spec.data_seed)
    a, b = spec.n_train, spec.n_train + spec.n_val
    return (x[:a], y[:a]), (x[a:b], y[a:b]), (x[b:], y[b:])


def _init(key, hidden):
    sizes = [2, hidden, hidden, 2]
    keys = jax.random.split(key, len(sizes) - 1)
    return [
        {"w": jax.random.normal(k, (m, n)) * jnp.sqrt(1.0 / m), "b": jnp.zeros(n)}
        for k, m, n in zip(keys, sizes[:-1], sizes[1:])
    ]


def _logits(params, x):
    for layer in params[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def _loss(params, x, y):
    return optax.softmax_cross_entropy_with_integer_labels(_logits(params, x), y).mean()


def _inner(spec, params):
    if spec.optimizer == "adam":
        return optax.adam(params["lr_adam"])
    if spec.optimizer == "sgdm":
        return optax.sgd(params["lr_sgdm"], momentum=params["momentum"])
    if spec.optimizer == "adadelta":
        return optax.adadelta(params["lr_adadelta"])
    raise ValueError(f"optimizer must be one of {OPTIMIZERS}, got {spec.optimizer!r}")


def run(spec: MoonsSpec, params, key):
    """Train the MLP for ``spec.steps`` backprops; test accuracy, attempts and cost.

    Args:
        spec: a :class:`MoonsSpec`.
        params: ``tau`` (stride; may be traced), ``variant`` (code of :data:`VARIANTS`) and
            the optimizers' hyperparameters (:data:`DEFAULT_PARAMS`).
        key: PRNG key (initialization and minibatches).

    Returns:
        ``test_acc`` and ``val_loss`` per record (``log``), per attempt (``attempt``):
        ``horizon`` (accepted :math:`j^\\star`, 0 when rejected), ``value_backprop``,
        ``value`` (held-out losses before and after the safeguard), ``error_augmented``,
        ``error_params`` (one-stride backtest errors), ``skipped`` (cumulative skipped
        steps); scalars ``backprops``, ``n_evals``, ``cost`` and ``final_acc``.
    """
    if spec.steps % spec.period or spec.period % spec.log_every:
        raise ValueError("steps must be a multiple of period, and period of log_every")
    (xtr, ytr), (xva, yva), (xte, yte) = _data(spec)
    xtr, ytr, xva, yva, xte, yte = map(jnp.asarray, (xtr, ytr, xva, yva, xte, yte))
    variant = jnp.asarray(params["variant"])
    opt = koopman_accelerate(
        _inner(spec, params),
        jnp.asarray(params["tau"], jnp.int32),
        spec.window,
        spec.rank,
        spec.max_jumps,
        augment=variant == 2,
        period=spec.period,
        enabled=variant > 0,
        block_scale=spec.block_scale,
    )
    k_init, k_data = jax.random.split(key)
    theta = _init(k_init, spec.hidden)
    state = opt.init(theta)
    value_fn = lambda p: _loss(p, xva, yva)  # noqa: E731

    def step(carry, k):
        theta, state = carry
        idx = jax.random.randint(k, (spec.batch,), 0, spec.n_train)
        g = jax.grad(_loss)(theta, xtr[idx], ytr[idx])
        u, state = opt.update(g, state, theta, value_fn=value_fn)
        return (optax.apply_updates(theta, u), state), None

    def log_block(carry, keys):
        carry, _ = jax.lax.scan(step, carry, keys)
        acc = jnp.mean(jnp.argmax(_logits(carry[0], xte), -1) == yte)
        return carry, (acc, value_fn(carry[0]))

    def attempt_block(carry, keys):
        carry, logs = jax.lax.scan(log_block, carry, keys)
        s = carry[1]
        rec = (s.horizon, s.value_backprop, s.value, s.error_augmented, s.error_params, s.skipped)
        return carry, (logs, rec)

    n_att, n_log = spec.steps // spec.period, spec.period // spec.log_every
    keys = jax.random.split(k_data, (n_att, n_log, spec.log_every))
    (theta, state), ((acc, vloss), rec) = jax.lax.scan(attempt_block, (theta, state), keys)
    n_evals = jnp.where(variant > 0, state.n_evals, 0)
    names = ("horizon", "value_backprop", "value", "error_augmented", "error_params", "skipped")
    out = {n: r for n, r in zip(names, rec)}
    out.update(
        test_acc=acc.reshape(-1),
        val_loss=vloss.reshape(-1),
        backprops=jnp.asarray(spec.steps, jnp.int32),
        n_evals=n_evals,
        cost=spec.steps + n_evals,
        final_acc=acc.reshape(-1)[-1],
    )
    return out


#: The simulator's declaration: ``variant`` a categorical parameter (labels in code order,
#: the default that of :data:`DEFAULT_PARAMS`).
SIMULATOR = Simulator(
    run,
    spec=MoonsSpec(),
    params={**DEFAULT_PARAMS, "variant": categorical(*VARIANTS, default=VARIANTS[DEFAULT_PARAMS["variant"]])},
    metric_dims={
        "test_acc": ("log",),
        "val_loss": ("log",),
        **{
            k: ("attempt",)
            for k in ("horizon", "value_backprop", "value", "error_augmented", "error_params", "skipped")
        },
    },
    coords=lambda spec: {
        "log": np.arange(1, spec.steps // spec.log_every + 1) * spec.log_every,
        "attempt": np.arange(1, spec.steps // spec.period + 1) * spec.period,
    },
)
