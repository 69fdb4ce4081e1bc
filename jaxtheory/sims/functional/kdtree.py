"""Kernel-regression FGD on an adaptive kd-tree of [0, 1]³ (paper 002_18, Fig. 2).

From the authors' ``src/kernel-regression/ours.py`` (``dccsillag/experiments-adaptive-fgd``):
the functional gradient of ``L(f) = ½ mean_i (f(x_i) − y_i)²`` in the RKHS of
``k(x, x') = exp(−γ‖x − x'‖²)`` is ``∇L(f)(x) = (1/n) Σ_i (f(x_i) − y_i) k(x_i, x)``. ``f``
is piecewise constant on the leaves of a kd-tree; every subdivision splits *every* leaf
at the midpoint of its widest side; a leaf's value is ``∇L(f)`` at the leaf's centre; the
error bound ``mean|l'| · sqrt(2γ/e) · max half-diagonal / max|leaf value|`` must fall
below ``ε/(1 + ε)``, else the tree is subdivided (from depth 2 up to the cap) and the
gradient evaluated again; then ``f ← f − lr · g``.

On the unit cube, splitting every leaf at the midpoint of its widest side (ties: the
first axis) cycles the axes 0, 1, 2, 0, ...: the leaves at depth ``d`` are the cells of a
uniform grid with ``2**k_j(d)`` cells along axis ``j``, ``k_j(d) = ⌈(d − j)/3⌉⁺``. The tree
is therefore stored complete, as its depth-``max_depth`` leaves in grid layout, with the
active depth ``d`` in the carry: an active leaf is the block of finest leaves sharing the
top ``k_j(d)`` bits of their index along every axis. The Gaussian kernel factorizes over
axes, so the gradient at all leaf centres is one contraction of three ``n × 2**k_j``
factor matrices (exact, not an approximation). The reported cost is the authors' work,
``n × (number of leaves)`` kernel evaluations per gradient.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "KernelSpec",
    "DEFAULT_PARAMS",
    "SCHEMES",
    "scheme_table",
    "axis_splits",
    "target",
    "run",
    "SIMULATOR",
]

#: Scheme labels (the ``scheme`` categorical parameter): ``eps<ε>`` refines adaptively
#: from depth 2 up to ``max_depth``; ``depth<d>`` is FGD on the fixed tree of depth d.
SCHEMES = ("eps0.5", "eps1", "eps3") + tuple(f"depth{d}" for d in (2, 4, 6, 8, 10, 12, 14, 16))


def scheme_table(label: str) -> tuple[float, int | None, int | None]:
    """``(eps, start_depth, cap_depth)`` of a label (``None``: 2 and the spec's cap).

    Args:
        label: one of :data:`SCHEMES`.

    Returns:
        ``(eps, start, cap)``.

    Raises:
        ValueError: on an unknown label.

    Example:
        >>> scheme_table("eps0.5"), scheme_table("depth8")
        ((0.5, None, None), (inf, 8, 8))
    """
    if label not in SCHEMES:
        raise ValueError(f"unknown scheme {label!r}; known: {SCHEMES}")
    if label.startswith("eps"):
        return float(label[3:]), None, None
    d = int(label[5:])
    return float("inf"), d, d


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    """Shapes of a run (the compile key).

    Attributes:
        n_train: training points (the authors' cod-rna: ~47k; smoke 2000).
        n_test: held-out points.
        max_depth: the deepest tree (the authors': 16).
        epochs: descent steps (the authors': 60).
        gamma: the kernel's ``γ`` (the authors': 100).
        start_depth: the adaptive runs' first depth (the authors': 2).
    """

    n_train: int = 2000
    n_test: int = 2000
    max_depth: int = 12
    epochs: int = 60
    gamma: float = 100.0
    start_depth: int = 2

    def __post_init__(self):
        if not 1 <= self.start_depth <= self.max_depth <= 24:
            raise ValueError(
                f"need 1 <= start_depth <= max_depth <= 24, got {self.start_depth}, {self.max_depth}"
            )
        if self.n_train < 1 or self.n_test < 1 or self.epochs < 1 or self.gamma <= 0:
            raise ValueError("n_train, n_test, epochs must be >= 1 and gamma > 0")


#: Defaults: the authors' MSE step ``lr = 10`` and ε = 0.5.
DEFAULT_PARAMS = {"lr": 10.0, "scheme": 0}


def axis_splits(depth):
    """Splits along each axis after ``depth`` cycles of widest-side midpoint splits.

    Args:
        depth: integer depth (may be traced).

    Returns:
        int32 array ``(3,)``: ``max(⌈(depth − j)/3⌉, 0)`` for ``j = 0, 1, 2``.

    Example:
        >>> axis_splits(7).tolist()
        [3, 2, 2]
    """
    d = jnp.asarray(depth, jnp.int32)
    return jnp.maximum((d - jnp.arange(3, dtype=jnp.int32) + 2) // 3, 0)


def target(x):
    """The synthetic stand-in for cod-rna's labels: ``1[sin(6 x₀) + x₁ x₂ > 0.3]``.

    Args:
        x: points ``(..., 3)`` in [0, 1]³.

    Returns:
        float labels in {0, 1}.

    Example:
        >>> target(jnp.array([[0.25, 0.5, 0.5], [0.0, 0.0, 0.0]])).tolist()
        [1.0, 0.0]
    """
    return (jnp.sin(6.0 * x[..., 0]) + x[..., 1] * x[..., 2] > 0.3).astype(jnp.float32)


def _tables(spec: KernelSpec):
    eps, start, cap = [], [], []
    for lab in SCHEMES:
        e, s, c = scheme_table(lab)
        eps.append(e)
        start.append(spec.start_depth if s is None else min(s, spec.max_depth))
        cap.append(spec.max_depth if c is None else min(c, spec.max_depth))
    return jnp.asarray(eps, jnp.float32), jnp.asarray(start, jnp.int32), jnp.asarray(cap, jnp.int32)


def run(spec: KernelSpec, params, key):
    """One kernel-regression FGD run of the scheme ``params["scheme"]`` (a code into :data:`SCHEMES`).

    Args:
        spec: :class:`KernelSpec`.
        params: ``{"lr": step, "scheme": code}``.
        key: PRNG key (the data of this lane).

    Returns:
        Per epoch ``(epochs,)``: ``train_loss``, ``test_loss`` (½ mean squared error,
        after the update), ``depth``, ``cost`` (cumulative kernel evaluations);
        scalars ``loss0_train``, ``loss0_test`` (at ``f = 0``), ``total_cost``.

    Example:
        >>> out = run(KernelSpec(n_train=200, n_test=100, max_depth=6, epochs=4),
        ...           DEFAULT_PARAMS, jax.random.key(0))
        >>> bool(out["train_loss"][-1] < out["loss0_train"]), out["depth"].shape
        (True, (4,))
    """
    eps_t, start_t, cap_t = _tables(spec)
    code = jnp.asarray(params["scheme"], jnp.int32)
    lr = jnp.asarray(params["lr"], jnp.float32)
    eps, start, cap = eps_t[code], start_t[code], cap_t[code]
    kx, kt = jax.random.split(key)
    x = jax.random.uniform(kx, (spec.n_train, 3))
    xt = jax.random.uniform(kt, (spec.n_test, 3))
    y, yt = target(x), target(xt)
    kmax = [max((spec.max_depth - j + 2) // 3, 0) for j in range(3)]
    shape = tuple(2**k for k in kmax)

    def cell(p):
        return tuple(
            jnp.clip(jnp.floor(p[:, j] * shape[j]).astype(jnp.int32), 0, shape[j] - 1) for j in range(3)
        )

    ci, cti = cell(x), cell(xt)
    fine = jnp.meshgrid(*(jnp.arange(s, dtype=jnp.int32) for s in shape), indexing="ij")
    gam = jnp.float32(spec.gamma)
    bound_c = math.sqrt(2 * spec.gamma / math.e)

    def gradient(f, depth):
        r = f[ci] - y  # l'(f(x_i), y_i) for ½(f − y)²
        k = axis_splits(depth)
        facs = []
        for j in range(3):
            nj = jnp.left_shift(jnp.int32(1), k[j])
            a = jnp.arange(shape[j], dtype=jnp.int32)
            c = (a.astype(jnp.float32) + 0.5) / nj.astype(jnp.float32)
            kj = jnp.exp(-gam * (x[:, j : j + 1] - c[None, :]) ** 2)
            facs.append(jnp.where(a[None, :] < nj, kj, 0.0))
        t = jnp.einsum("i,ia,ib,ic->abc", r, *facs) / spec.n_train
        s = jnp.asarray(kmax, jnp.int32) - k
        g = t[fine[0] >> s[0], fine[1] >> s[1], fine[2] >> s[2]]
        half_diag = 0.5 * jnp.sqrt(jnp.sum(4.0 ** (-k.astype(jnp.float32))))
        bound = jnp.mean(jnp.abs(r)) * bound_c * half_diag / jnp.max(jnp.abs(t))
        return g, bound

    def n_leaves(depth):
        return jnp.left_shift(jnp.int32(1), depth)

    def loss(f, idx, lab):
        return 0.5 * jnp.mean((f[idx] - lab) ** 2)

    def step(carry, _):
        f, depth, cost = carry
        g, bound = gradient(f, depth)
        cost = cost + spec.n_train * n_leaves(depth).astype(jnp.float32)
        tol = eps / (1 + eps)

        def cond(c):
            _, b, d, _ = c
            return (b >= tol) & (d < cap)

        def body(c):
            _, _, d, cst = c
            d = d + 1
            g, b = gradient(f, d)
            return g, b, d, cst + spec.n_train * n_leaves(d).astype(jnp.float32)

        g, bound, depth, cost = jax.lax.while_loop(cond, body, (g, bound, depth, cost))
        f = f - lr * g
        out = {"train_loss": loss(f, ci, y), "test_loss": loss(f, cti, yt), "depth": depth, "cost": cost}
        return (f, depth, cost), out

    f0 = jnp.zeros(shape, jnp.float32)
    (_, _, cost), hist = jax.lax.scan(step, (f0, start, jnp.float32(0)), None, length=spec.epochs)
    return {
        **hist,
        "loss0_train": loss(f0, ci, y),
        "loss0_test": loss(f0, cti, yt),
        "total_cost": cost,
    }


#: The simulator's declaration: an experiment names it instead of restating it.
#: ``scheme`` is categorical over :data:`SCHEMES`.
SIMULATOR = Simulator(
    run,
    spec=KernelSpec(),
    params={**DEFAULT_PARAMS, "scheme": categorical(*SCHEMES)},
    metric_dims={m: ("epoch",) for m in ("train_loss", "test_loss", "depth", "cost")},
    coords=lambda spec: {"epoch": np.arange(1, spec.epochs + 1)},
)
