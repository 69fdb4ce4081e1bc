"""Functional gradient descent on adaptive piecewise-constant grids (paper 002_18).

Minimizes :math:`L(f) = \\tfrac12\\lVert f - f^\\star\\rVert_{L^2([0,1]^2)}^2`, whose functional
gradient is :math:`f - f^\\star`, over piecewise-constant functions on uniform
``2**l × 2**l`` grids, as the authors' teaser (``src/teaser/sandbox_ours.py`` of
``dccsillag/experiments-adaptive-fgd``) does:

* the gradient on the current grid is estimated cell by cell from ``k = 8`` points,
  the same ``k`` uniform random offsets in every cell (fresh offsets every epoch; the
  same offsets while refining within an epoch);
* ``rel_err = sqrt(Σ_cells within-cell sample variance / Σ_cells mean²)``;
* while ``rel_err > eps`` and the grid is smaller than the cap, the whole grid is
  refined (every cell split in four) and the gradient estimated again;
* then ``f ← f − lr · g``.

A *fixed* grid of size ``s`` is the same loop started at ``s`` with cap ``s``. Every grid
is stored at the finest resolution ``max_size`` with its level in the carry
(:mod:`jaxtheory.sims.functional.grid`), so one compiled program runs every method
and level under ``lax.scan``. The loss is evaluated every epoch *exactly on an
``eval_size²`` midpoint grid*: for ``f`` constant on the stored fine cells,
``½ mean_eval (f − f*)² = ½ mean_fine[(f − m)² + v]`` with ``m, v`` the mean and
variance of the ``f*`` samples in each fine cell (an identity, tested against the direct
sum). Alongside every lane runs the same descent with *exact* cell means of ``f*`` (on
the evaluation grid) at the lane's starting level: ``f ← f − lr (f − P f*)``.

The cost is the count of cell samples, ``4**level × k`` per gradient estimate,
refinement estimates included.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.functional import grid
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "FGDSpec",
    "DEFAULT_PARAMS",
    "METHODS",
    "SIMULATOR",
    "method_table",
    "f_star",
    "f_star_np",
    "run",
]

#: Method labels (the ``scheme`` categorical parameter): ``eps<ε>`` is the adaptive
#: method from an 8×8 grid with tolerance ε and cap ``max_size``; ``fixed<s>`` is
#: FGD on a fixed ``s × s`` grid.
METHODS = ("eps0.1", "eps0.5", "eps1", "eps3") + tuple(f"fixed{2**i}" for i in range(3, 11))


def method_table(label: str) -> tuple[float, int | None, int | None]:
    """``(eps, start_size, cap_size)`` of a method label (``None``: the spec's value).

    Args:
        label: one of :data:`METHODS`.

    Returns:
        ``(eps, start, cap)``: the adaptive methods start at the spec's ``init_size`` and
        refine up to ``max_size`` (``None``, ``None``); a fixed grid of size ``s`` has
        ``start = cap = s`` (its ``eps`` is never used).

    Raises:
        ValueError: on an unknown label.

    Example:
        >>> method_table("eps0.5"), method_table("fixed32")
        ((0.5, None, None), (inf, 32, 32))
    """
    if label not in METHODS:
        raise ValueError(f"unknown method {label!r}; known: {METHODS}")
    if label.startswith("eps"):
        return float(label[3:]), None, None
    s = int(label[5:])
    return float("inf"), s, s


@dataclasses.dataclass(frozen=True)
class FGDSpec:
    """Shapes of a run (the compile key).

    Attributes:
        max_size: the finest grid (cells per side, a power of two): the storage of
            every grid and the adaptive cap (the authors': 1024; smoke 128).
        epochs: descent steps.
        eval_size: side of the midpoint grid the loss is evaluated on (a multiple of
            ``max_size``).
        samples: points per cell in a gradient estimate (the authors': 8).
        init_size: the adaptive methods' first grid (the authors': 8).
    """

    max_size: int = 128
    epochs: int = 300
    eval_size: int = 512
    samples: int = 8
    init_size: int = 8

    def __post_init__(self):
        grid.size_level(self.max_size)
        grid.size_level(self.init_size)
        if self.init_size > self.max_size:
            raise ValueError(f"init_size {self.init_size} exceeds max_size {self.max_size}")
        if self.eval_size % self.max_size:
            raise ValueError(f"eval_size {self.eval_size} is not a multiple of max_size {self.max_size}")
        if self.epochs < 1 or self.samples < 2:
            raise ValueError("epochs must be >= 1 and samples >= 2 (a variance needs two points)")


#: Defaults: the authors' learning rate 0.05 and the adaptive ε = 0.5.
DEFAULT_PARAMS = {"lr": 0.05, "scheme": 1}


def f_star(x, y):
    """The teaser's spiral ``cos(20 r − 3θ) exp(−r²/0.25)``, ``(u, v) = 1.5 (x, y) − 0.75``.

    Evaluated without ``arctan2``: ``cos(20r − 3θ) = cos 20r · cos 3θ + sin 20r · sin 3θ``
    with ``cos 3θ = c³ − 3cs²``, ``sin 3θ = 3c²s − s³``, ``(c, s) = (u, v)/r`` (and the
    value ``cos 0 · 1`` at ``r = 0``); four times cheaper on a CPU.

    Args:
        x: first coordinate(s) in [0, 1].
        y: second coordinate(s), broadcastable with ``x``.

    Returns:
        ``f*(x, y)``.

    Example:
        >>> round(float(f_star(0.5, 0.5)), 6)
        1.0
    """
    u = 1.5 * x - 0.75
    v = 1.5 * y - 0.75
    r2 = u * u + v * v
    pos = r2 > 0
    r = jnp.sqrt(jnp.where(pos, r2, 1.0))
    c = jnp.where(pos, u / r, 1.0)
    s = jnp.where(pos, v / r, 0.0)
    r = jnp.where(pos, r, 0.0)
    c3 = c * (c * c - 3.0 * s * s)
    s3 = s * (3.0 * c * c - s * s)
    return (jnp.cos(20.0 * r) * c3 + jnp.sin(20.0 * r) * s3) * jnp.exp(-r2 / 0.25)


def f_star_np(x, y):
    """float64 numpy reference of :func:`f_star`, in the authors' polar form with ``arctan2``.

    Args:
        x: first coordinate(s).
        y: second coordinate(s).

    Returns:
        ``cos(20 r − 3 atan2(v, u)) exp(−r²/0.25)`` as float64.

    Example:
        >>> round(float(f_star_np(0.5, 0.5)), 6)
        1.0
    """
    u = 1.5 * np.asarray(x, np.float64) - 0.75
    v = 1.5 * np.asarray(y, np.float64) - 0.75
    r = np.sqrt(u**2 + v**2)
    return np.cos(20.0 * r - 3.0 * np.arctan2(v, u)) * np.exp(-(r**2) / 0.25)


def _tables(spec: FGDSpec):
    lmax = grid.size_level(spec.max_size)
    l0 = grid.size_level(spec.init_size)
    eps, start, cap = [], [], []
    for lab in METHODS:
        e, s, c = method_table(lab)
        eps.append(e)
        start.append(l0 if s is None else min(grid.size_level(s), lmax))
        cap.append(lmax if c is None else min(grid.size_level(c), lmax))
    return jnp.asarray(eps, jnp.float32), jnp.asarray(start, jnp.int32), jnp.asarray(cap, jnp.int32)


def run(spec: FGDSpec, params, key):
    """One FGD run of the scheme ``params["scheme"]`` (a code into :data:`METHODS`).

    Args:
        spec: :class:`FGDSpec`.
        params: ``{"lr": step, "scheme": code}``.
        key: PRNG key (the offsets of every epoch).

    Returns:
        Metrics, per epoch ``(epochs,)`` (after that epoch's update): ``loss`` (exact on
        the evaluation grid), ``loss_exact`` (the exact-cell-mean descent at the
        starting level), ``level``, ``cost`` (cumulative cell samples, float32: exact below 2^24), ``rel_err``
        (the last estimate's); scalars ``loss0`` (at ``f = 0``), ``floor_start`` (the loss
        of the exact projection onto the starting grid), ``final_loss``,
        ``final_level``, ``total_cost``.

    Example:
        >>> out = run(FGDSpec(max_size=16, epochs=5, eval_size=32), {"lr": 0.05, "scheme": 1},
        ...           jax.random.key(0))
        >>> bool(out["loss"][-1] < out["loss0"]), out["level"].shape
        (True, (5,))
    """
    size, k = spec.max_size, spec.samples
    eps_t, start_t, cap_t = _tables(spec)
    code = jnp.asarray(params["scheme"], jnp.int32)
    lr = jnp.asarray(params["lr"], jnp.float32)
    eps, start, cap = eps_t[code], start_t[code], cap_t[code]

    q = grid.midpoints(spec.eval_size)
    fq = f_star(q[:, None], q[None, :])
    fac = spec.eval_size // size
    m_fine = grid.block_mean(fq, fac)
    v_fine = grid.block_var(fq, fac)
    exact = grid.level_means(m_fine)  # (lmax + 1, size, size): P_l f* for every level

    def loss(f):
        return 0.5 * jnp.mean((f - m_fine) ** 2 + v_fine)

    def approx(f, level, offs):
        fc = grid.coarsen(f, level, size)
        mean, var, valid = grid.sample_cells(f_star, level, offs, size)
        g = jnp.where(valid, fc - mean, 0.0)
        rel = jnp.sqrt(jnp.sum(var) / jnp.sum(g * g))
        return g, rel

    def step(carry, ekey):
        f, level, cost, fex = carry
        offs = jax.random.uniform(ekey, (k, 2))
        g, rel = approx(f, level, offs)
        cost = cost + grid.sample_cost(level, k).astype(jnp.float32)

        def cond(c):
            _, rel, lv, _ = c
            return (rel > eps) & (lv < cap)

        def body(c):
            _, _, lv, cst = c
            lv = lv + 1
            g, rel = approx(f, lv, offs)
            return g, rel, lv, cst + grid.sample_cost(lv, k).astype(jnp.float32)

        g, rel, level, cost = jax.lax.while_loop(cond, body, (g, rel, level, cost))
        f = f - lr * grid.expand(g, level, size)
        fex = fex - lr * (fex - exact[start])
        out = {"loss": loss(f), "loss_exact": loss(fex), "level": level, "cost": cost, "rel_err": rel}
        return (f, level, cost, fex), out

    f0 = jnp.zeros((size, size), jnp.float32)
    carry0 = (f0, start, jnp.float32(0), f0)  # a float count: the full preset passes 2^31
    (_, level, cost, _), hist = jax.lax.scan(step, carry0, jax.random.split(key, spec.epochs))
    return {
        **hist,
        "loss0": loss(f0),
        "floor_start": loss(exact[start]),
        "final_loss": hist["loss"][-1],
        "final_level": level,
        "total_cost": cost,
    }


#: The simulator's declaration: ``scheme`` is categorical (labels :data:`METHODS`); the
#: curves are recorded at epochs 1..epochs.
SIMULATOR = Simulator(
    run,
    spec=FGDSpec(),
    params={**DEFAULT_PARAMS, "scheme": categorical(*METHODS)},
    metric_dims={m: ("epoch",) for m in ("loss", "loss_exact", "level", "cost", "rel_err")},
    coords=lambda spec: {"epoch": np.arange(1, spec.epochs + 1)},
)
