"""A small MLP on scikit-learn's digits: AdamW, Muon, Schatten-p (SMuon) and MuAdam.

The data are :func:`sklearn.datasets.load_digits` (1797 images of 8×8 pixels, ten
classes; shipped with scikit-learn, no download), scaled to :math:`[0, 1]` and centred
on the training mean, split into train and test sets by ``spec.split_seed`` (loaded once,
outside ``jit``, and closed over as constants). The model is a one-hidden-layer MLP

.. math::
    f(x) = \\tanh(x W_1 + b_1)\\, W_2 + b_2,\\qquad W_1 \\in \\mathbb R^{64\\times h},\\
    W_2 \\in \\mathbb R^{h\\times 10},

with PyTorch's default initialisation (:math:`U(-1/\\sqrt{\\text{fan-in}}, 1/\\sqrt{\\text{fan-in}})`),
trained on the mean softmax cross-entropy with a constant step, full batch or with
minibatches drawn with replacement. Optimizers (a static ``spec.optimizer``):

* ``adamw``: :func:`optax.adamw` (defaults, ``weight_decay`` from params);
* ``muon``: :func:`jaxtheory.optim.muon` (momentum 0.95, Nesterov, quintic
  Newton–Schulz); biases through its AdamW fallback;
* ``schatten``: :func:`jaxtheory.optim.schatten_p` with ``moment='none'`` (κ = 1
  pinning): a fixed :math:`p` (``spec.schatten_p``) or, when that is None, :math:`p` chosen
  every ``spec.interval`` steps by the ``'exact'`` criterion from the layer inputs;
* ``muadam``: :func:`jaxtheory.optim.muadam`.

All lanes run under the divergence guard (:func:`jaxtheory.sims._record.scan_record`):
a lane whose parameters or training loss become non-finite freezes, and its later
metrics are NaN. The metrics are evaluated only at the recorded steps.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim._lmo import muon
from jaxtheory.optim._schatten import muadam, schatten_p
from jaxtheory.sims._record import log_steps, scan_record
from jaxtheory.simulator import Simulator

__all__ = [
    "N_FEATURES",
    "N_CLASSES",
    "N_SAMPLES",
    "OPTIMIZERS",
    "DigitsSpec",
    "DEFAULT_PARAMS",
    "load_data",
    "log_steps",
    "init_params",
    "loss_fn",
    "accuracy",
    "make_optimizer",
    "run",
]

#: Input dimension of the digits images (8×8 pixels).
N_FEATURES = 64
#: Number of classes (the digits 0-9).
N_CLASSES = 10
#: Number of images in :func:`sklearn.datasets.load_digits`.
N_SAMPLES = 1797
#: Names accepted by ``DigitsSpec.optimizer``.
OPTIMIZERS = ("adamw", "muon", "schatten", "muadam")
#: Default of every parameter :func:`run` reads: step size and decoupled weight decay.
DEFAULT_PARAMS = {"lr": 0.01, "weight_decay": 0.0}


@dataclasses.dataclass(frozen=True)
class DigitsSpec:
    """Shapes and static choices of a digits run.

    Attributes:
        hidden: hidden width :math:`h`.
        steps: optimizer steps.
        batch_size: minibatch size (0: full batch).
        optimizer: one of :data:`OPTIMIZERS`.
        schatten_p: fixed :math:`p` for ``'schatten'``; None lets :math:`p` adapt.
        interval: p-selection period of the adaptive ``'schatten'``.
        split_seed: seed of the fixed train/test permutation.
        test_fraction: share of the images held out.
        num_log: about how many log-spaced steps are recorded.
    """

    hidden: int = 64
    steps: int = 1000
    batch_size: int = 0
    optimizer: str = "adamw"
    schatten_p: float | None = None
    interval: int = 10
    split_seed: int = 0
    test_fraction: float = 0.2
    num_log: int = 16


@functools.lru_cache(maxsize=8)
def _load(split_seed: int, test_fraction: float):
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    x = x.astype(np.float32) / 16.0
    perm = np.random.RandomState(split_seed).permutation(x.shape[0])
    n_test = int(round(test_fraction * x.shape[0]))
    test, train = perm[:n_test], perm[n_test:]
    mean = x[train].mean(axis=0)
    x = x - mean
    out = (x[train], y[train].astype(np.int32), x[test], y[test].astype(np.int32))
    for a in out:
        a.setflags(write=False)
    return out


def load_data(spec: DigitsSpec):
    """The train/test split of ``spec``: ``(x_train, y_train, x_test, y_test)`` (numpy).

    Cached per ``(split_seed, test_fraction)``; inputs in :math:`[0, 1]` minus the
    training mean, labels int32.

    Example:
        >>> xtr, ytr, xte, yte = load_data(DigitsSpec())
        >>> xtr.shape, xte.shape, int(ytr.max()) + 1
        ((1438, 64), (359, 64), 10)
    """
    return _load(int(spec.split_seed), float(spec.test_fraction))


def init_params(spec: DigitsSpec, key: jax.Array) -> dict:
    """PyTorch-default initialisation of the MLP: ``{'w1', 'b1', 'w2', 'b2'}``.

    Example:
        >>> import jax
        >>> p = init_params(DigitsSpec(hidden=8), jax.random.key(0))
        >>> p["w1"].shape, p["b2"].shape
        ((64, 8), (10,))
    """
    k1, k2, k3, k4 = jax.random.split(key, 4)
    b_in, b_h = 1.0 / np.sqrt(N_FEATURES), 1.0 / np.sqrt(spec.hidden)
    u = jax.random.uniform
    return {
        "w1": u(k1, (N_FEATURES, spec.hidden), minval=-b_in, maxval=b_in),
        "b1": u(k2, (spec.hidden,), minval=-b_in, maxval=b_in),
        "w2": u(k3, (spec.hidden, N_CLASSES), minval=-b_h, maxval=b_h),
        "b2": u(k4, (N_CLASSES,), minval=-b_h, maxval=b_h),
    }


def _forward(p, x):
    h = jnp.tanh(x @ p["w1"] + p["b1"])
    return h @ p["w2"] + p["b2"], h


def loss_fn(p: dict, x: jax.Array, y: jax.Array):
    """Mean softmax cross-entropy, with the layer inputs as auxiliary output.

    Returns:
        ``(loss, activations)``; ``activations`` has the params' structure (inputs of
        ``w1`` and ``w2``; scalar zeros for the biases), as :func:`schatten_p` expects.
    """
    logits, h = _forward(p, x)
    loss = optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()
    zero = jnp.zeros((), x.dtype)
    return loss, {"w1": x, "b1": zero, "w2": h, "b2": zero}


def accuracy(p: dict, x: jax.Array, y: jax.Array) -> jax.Array:
    """Share of ``x`` classified as ``y``."""
    return jnp.mean(jnp.argmax(_forward(p, x)[0], axis=-1) == y)


def make_optimizer(spec: DigitsSpec, params: dict) -> optax.GradientTransformation:
    """The optimizer named by ``spec.optimizer`` with the step size ``params['lr']``.

    Example:
        >>> tx = make_optimizer(DigitsSpec(optimizer="muon"), DEFAULT_PARAMS)
        >>> type(tx).__name__
        'GradientTransformationExtraArgs'
    """
    lr, wd = params["lr"], params["weight_decay"]
    name = spec.optimizer
    if name == "adamw":
        return optax.adamw(lr, weight_decay=wd)
    if name == "muon":
        return muon(lr, beta=0.95, weight_decay=wd)
    if name == "schatten":
        if spec.schatten_p is None:
            return schatten_p(lr, weight_decay=wd, moment="none", p_method="exact", interval=spec.interval)
        return schatten_p(lr, weight_decay=wd, moment="none", p_method=None, p_init=float(spec.schatten_p))
    if name == "muadam":
        return muadam(lr, weight_decay=wd)
    raise ValueError(f"unknown optimizer {name!r}; use one of {OPTIMIZERS}")


def run(spec: DigitsSpec, params: dict, key: jax.Array) -> dict:
    """One training run of the digits MLP; pure, jittable, vmappable.

    The key is split into ``(init, batches)``; the initialisation is
    :func:`init_params` of the first half.

    Args:
        spec: :class:`DigitsSpec`.
        params: ``lr`` and ``weight_decay`` (may be traced).
        key: PRNG key of the lane.

    Returns:
        ``train_loss`` (full training set) and ``test_acc`` at :func:`log_steps`
        (after that many updates; NaN after a divergence), ``init_loss`` (before any
        update), ``final_test_acc``, ``final_train_loss`` and ``diverged_step``
        (-1 if none).

    Example:
        >>> import jax
        >>> spec = DigitsSpec(hidden=16, steps=50, optimizer="adamw")
        >>> out = run(spec, dict(DEFAULT_PARAMS, lr=0.01), jax.random.key(0))
        >>> out["test_acc"].shape, bool(out["final_test_acc"] > 0.8)
        ((14,), True)
    """
    xtr, ytr, xte, yte = (jnp.asarray(a) for a in load_data(spec))
    n_train = xtr.shape[0]
    k_init, k_batch = jax.random.split(key)
    p0 = init_params(spec, k_init)
    opt = make_optimizer(spec, params)
    full = spec.batch_size <= 0 or spec.batch_size >= n_train
    grad = jax.value_and_grad(loss_fn, has_aux=True)

    def step(carry, t):
        p, state = carry
        if full:
            xb, yb = xtr, ytr
        else:
            idx = jax.random.randint(jax.random.fold_in(k_batch, t), (spec.batch_size,), 0, n_train)
            xb, yb = xtr[idx], ytr[idx]
        (_, acts), g = grad(p, xb, yb)
        if spec.optimizer == "schatten":
            upd, state = opt.update(g, state, p, activations=acts)
        else:
            upd, state = opt.update(g, state, p)
        return optax.apply_updates(p, upd), state

    def observe(carry):
        return loss_fn(carry[0], xtr, ytr)[0], accuracy(carry[0], xte, yte)

    _, (losses, accs), div = scan_record(
        step,
        (p0, opt.init(p0)),
        log_steps(spec.steps, spec.num_log),
        observe,
        length=spec.steps,
        guard=True,
        watch=lambda c: (c[0], loss_fn(c[0], xtr, ytr)[0]),  # the parameters and the training loss
    )
    return {
        "train_loss": losses,
        "test_acc": accs,
        "init_loss": loss_fn(p0, xtr, ytr)[0],
        "final_train_loss": losses[-1],
        "final_test_acc": accs[-1],
        "diverged_step": div,
    }


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=DigitsSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "train_loss": ("step",),
        "test_acc": ("step",),
        "init_loss": (),
        "final_train_loss": (),
        "final_test_acc": (),
        "diverged_step": (),
    },
    coords=lambda spec: {"step": log_steps(spec.steps, spec.num_log)},
)
