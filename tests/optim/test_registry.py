"""One registry of every public optimizer transform, each checked for the same properties.

Every factory in ``jaxtheory.optim.__all__`` that returns an optax transform has an entry
in :data:`REGISTRY` (small hyperparameters, the parameters and objective it needs, its
extra ``update`` arguments); every other public name is in :data:`NOT_TRANSFORMS` with
the reason. A new public transform without an entry fails
:func:`test_registry_covers_every_public_name`. For each entry:

* it works inside :func:`optax.chain` after a standard (inactive) clipping transform;
* :func:`optax.inject_hyperparams` gives the updates and inner state of the plain transform;
* :func:`jax.vmap` over a traced hyperparameter (the learning rate where there is one)
  equals a Python loop over its values;
* params/updates keep their dtype (float32, bfloat16, float64 under x64) and the state's
  dtypes and shapes do not change over steps;
* a jitted step of the ``inject_hyperparams`` transform compiles once, whatever the
  hyperparameter values and the step;
* :class:`optax.MultiSteps` wraps it: two micro-steps give zeros, then the plain update;
* it decreases a small objective: a convex quadratic where the parameters are free, the
  smooth objective of its docstring on a manifold (the geodesically convex Gaussian
  likelihood on SPD matrices, the Rayleigh quotient on Stiefel and Grassmann), a convex
  quadratic on the simplex for entropic mirror descent. Every registered transform is a
  descent method; the ascent-direction ones (``direction=True``: ``scale_by_lmo``,
  ``scale_by_muon``, ``scale_by_schatten_p``) descend once followed by
  :func:`optax.scale_by_learning_rate`.

A property that does not apply is named in the entry's ``not_applicable`` with the
reason (and the test checks that the transform then fails loudly). The pattern is
optax's ``optax/contrib/_common_test.py``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import jaxtheory.optim as jo
from jaxtheory.optim import FactorPair, replicate_workers, top_k

F32_EPS = float(jnp.finfo(jnp.float32).eps)
W = 2  # workers of the multi-worker entries

# --------------------------------------------------------------------------- problems
_rng = np.random.default_rng(0)


def _arr(*shape, scale=1.0, shift=0.0):
    return np.asarray(shift + scale * _rng.standard_normal(shape), np.float32)


# targets and curvatures of the quadratic objectives (fixed, drawn once)
_T = {"w": _arr(4, 3), "b": _arr(3), "v": _arr(3, 3), "bv": _arr(2, 3, 3)}
_C = {k: np.asarray(0.5 + 1.5 * _rng.random(v.shape), np.float32) for k, v in _T.items()}
_X0 = {"w": _arr(4, 3), "b": _arr(3), "v": _arr(3, 3), "bv": _arr(2, 3, 3)}


def _quadratic(keys):
    """A separable convex quadratic ``sum_k 0.5 * c_k * (x_k - t_k)^2`` over ``keys``."""

    def loss(p):
        return sum(
            0.5 * jnp.sum(jnp.asarray(_C[k], jnp.float32) * jnp.square(p[k].astype(jnp.float32) - _T[k]))
            for k in keys
        )

    def params(dtype):
        return {k: jnp.asarray(_X0[k], dtype) for k in keys}

    return loss, params, 0.0


MIXED = ("w", "b")  # a matrix and a vector
MATRICES = ("w", "v")  # 2-D leaves only
BATCHED = ("w", "bv")  # a matrix and a batch of matrices

# fixed-rank X = B A (4x3, rank 2): 0.5 ||BA - T||^2, T of rank 2
_FR_T = _arr(4, 2) @ _arr(2, 3)
_FR_B, _FR_A = _arr(4, 2), _arr(2, 3)


def _fixed_rank_loss(p):
    x = p.B.astype(jnp.float32) @ p.A.astype(jnp.float32)
    return 0.5 * jnp.sum(jnp.square(x - _FR_T))


def _fixed_rank_params(dtype):
    return FactorPair(B=jnp.asarray(_FR_B, dtype), A=jnp.asarray(_FR_A, dtype))


# SPD: the Gaussian negative log-likelihood tr(X^-1 S) + log det X (geodesically convex)
_SPD_S = np.diag([2.0, 1.0, 0.5]).astype(np.float32)


SPD_MIN = 3.0 + float(np.log(np.linalg.det(_SPD_S)))  # at X = S: n + log det S


def _spd_loss(x):
    x = x.astype(jnp.float32)
    return jnp.trace(jnp.linalg.solve(x, _SPD_S)) + jnp.linalg.slogdet(x)[1]


def _spd_params(dtype):
    return jnp.asarray(np.eye(3) + 0.2 * np.ones((3, 3)), dtype)


# Stiefel / Grassmann: the (generalized) Rayleigh quotient of C = diag(4, 3, 2, 1)
_RQ_C = np.diag([4.0, 3.0, 2.0, 1.0]).astype(np.float32)
_ST_X0 = np.linalg.qr(_arr(4, 2))[0].astype(np.float32)


RQ_MIN = -0.5 * (4.0 + 3.0)  # the top-2 eigenvalues of C


def _stiefel_loss(x):
    x = x.astype(jnp.float32)
    return -0.5 * jnp.trace(x.T @ _RQ_C @ x)


def _stiefel_params(dtype):
    return jnp.asarray(_ST_X0, dtype)


def _grassmann_loss(y):
    y = y.astype(jnp.float32)
    return -0.5 * jnp.trace(jnp.linalg.solve(y.T @ y, y.T @ _RQ_C @ y))


_GR_Y0 = _ST_X0 + 0.3 * _arr(4, 2)


def _grassmann_params(dtype):
    return jnp.asarray(_GR_Y0, dtype)


# probability simplex (entropic mirror descent): a convex quadratic on each row
_SIMPLEX_T = np.asarray([[0.6, 0.3, 0.1], [0.2, 0.2, 0.6]], np.float32)


def _simplex_loss(p):
    return 0.5 * jnp.sum(jnp.square(p.astype(jnp.float32) - _SIMPLEX_T))


def _simplex_params(dtype):
    return jnp.full((2, 3), 1.0 / 3.0, dtype)


# Segre manifold (rank-one tensors): 0.5 ||lam u1 (x) u2 (x) u3 - T||^2 with T rank one
def _unit(v):
    v = np.asarray(v, np.float64)
    return v / np.linalg.norm(v)


_SEG_U = [_unit(_arr(3)), _unit(_arr(4)), _unit(_arr(2))]
_SEG_T = np.asarray(2.0 * np.einsum("a,b,c->abc", *_SEG_U), np.float32)
_SEG_X0 = [_unit(u + 0.3 * _arr(u.shape[0])) for u in _SEG_U]


def _segre_loss(p):
    lam, fs = p
    t = jo.segre_tensor(lam.astype(jnp.float32), [u.astype(jnp.float32) for u in fs])
    return 0.5 * jnp.sum(jnp.square(t - _SEG_T))


def _segre_params(dtype):
    return (jnp.asarray([1.5], dtype), [jnp.asarray(u[None, :], dtype) for u in _SEG_X0])


# workers (diloco): worker m minimizes its own quadratic; params carry the worker axis
_WK_T, _WK_X0 = _arr(W, 3), _arr(3)
# after a synchronization the workers agree: the least loss is at their mean target
WORKERS_MIN = 0.5 * float(np.sum(np.square(_WK_T - _WK_T.mean(0))))


def _workers_loss(p):
    return 0.5 * jnp.sum(jnp.square(p["x"].astype(jnp.float32) - _WK_T))


def _workers_params(dtype):
    return replicate_workers({"x": jnp.asarray(_WK_X0, dtype)}, W)


def _ef_workers_grad(loss):
    """Per-worker gradients (leading worker axis) of a shared-params objective."""

    def grad(p):
        g = jax.grad(loss)(p)
        return jax.tree.map(lambda x: jnp.stack([1.5 * x, 0.5 * x]), g)  # mean is the gradient

    return grad


# layer inputs of the Schatten-p entries: (samples, fan_in) per matrix leaf
_ACTS = {k: _arr(6, _T[k].shape[0]) for k in ("w", "v")}


def _schatten_extra(params, prev_params, grad):
    """Layer inputs shaped like the params: (samples, fan_in) per matrix leaf, 0 elsewhere."""

    def act(k, x):
        if x is None:
            return None
        if jnp.ndim(x) != 2:
            return jnp.zeros((), x.dtype)
        if k in _ACTS:
            return jnp.asarray(_ACTS[k], x.dtype)
        return jnp.zeros((6, x.shape[0]), x.dtype)

    if isinstance(params, dict):
        return {"activations": {k: act(k, v) for k, v in params.items()}}
    return {"activations": act(None, params)}


# minimax (doubly_smoothed_gda): params are the pair (x, y) of f = ½‖x‖² + xᵀy − ½‖y‖²,
# the "gradient" is (∇_x f, ∇_y f) (descent in x, ascent in y) and the objective checked
# is the squared distance to the saddle point (0, 0)
_SD_X0, _SD_Y0 = _arr(3), _arr(3)


def _saddle_dist(p):
    return 0.5 * (
        jnp.sum(jnp.square(p[0].astype(jnp.float32))) + jnp.sum(jnp.square(p[1].astype(jnp.float32)))
    )


def _saddle_params(dtype):
    return (jnp.asarray(_SD_X0, dtype), jnp.asarray(_SD_Y0, dtype))


def _saddle_grad(loss):
    del loss

    def grad(p):
        x, y = p
        return (jax.tree.map(jnp.add, x, y), jax.tree.map(jnp.subtract, x, y))

    return grad


def _storm_extra(params, prev_params, grad):
    return {"prev_grad": grad(prev_params)}


# --------------------------------------------------------------------------- registry
@dataclasses.dataclass(frozen=True)
class Entry:
    """One public transform (or one variant of it) with what it needs to run.

    Attributes:
        name: the factory's name in ``jaxtheory.optim``.
        kwargs: ``hp -> keyword arguments of the factory`` (``hp``: numeric hyperparameters).
        hp: numeric hyperparameters, all of which may be traced.
        lr: the key of ``hp`` that ``jax.vmap`` sweeps (the learning rate where there is one).
        problem: ``(loss, params(dtype), minimum of the loss)``.
        grad: ``loss -> gradient function`` (default ``jax.grad``).
        extra: ``(params, prev_params, grad) -> extra update kwargs`` or ``None``.
        static_args: the factory's Python-int/static arguments for ``inject_hyperparams``.
        direction: the transform returns an ascent direction (follow it by
            ``optax.scale_by_learning_rate``).
        descent_lr: the step of ``scale_by_learning_rate`` for direction transforms.
        descent_steps: steps of the descent check.
        not_applicable: property -> why it does not apply to this transform.
        variant: label of a variant of the same factory.
        extra_of: ``loss -> extra`` for extras that depend on the objective (the checks on
            other objectives: scalar and complex params); default: ``extra`` as is.
        complex_ok: complex params are taken (optax's convention: conjugate gradients),
            with the steps of the real and imaginary parts (True) or, for the leaves that
            go to ``optax.adamw``, adamw's own complex steps (``"adamw"``); False:
            ``init`` must refuse them with a ``ValueError``.
        edges: the ``None``, size-0 and scalar leaves added beside the problem's params
            (``{kind: leaf}``; default :data:`FREE_EDGES`); a kind left out is out of the
            domain (in ``bad``) or exempt (in ``not_applicable``).
        edge_params: ``dtype -> params`` with the edge leaves, where they cannot simply
            be added beside the problem's params (pairs).
        bad: ``(params builder, regex)``: inputs outside the domain, refused by ``init``
            with a ``ValueError`` whose message matches (besides integer params, refused
            by every transform).
        mu_dtype: the factory takes ``mu_dtype``.
    """

    name: str
    kwargs: Callable[[dict], dict]
    hp: dict
    lr: str
    problem: tuple
    grad: Callable | None = None
    extra: Callable | None = None
    static_args: tuple = ()
    direction: bool = False
    descent_lr: float = 0.05
    descent_steps: int = 30
    not_applicable: dict = dataclasses.field(default_factory=dict)
    variant: str = ""
    extra_of: Callable | None = None
    complex_ok: bool = False
    edges: dict | None = None
    edge_params: Callable | None = None
    bad: tuple = ()
    mu_dtype: bool = False

    @property
    def id(self) -> str:
        return self.name + (f"[{self.variant}]" if self.variant else "")

    @property
    def factory(self):
        return getattr(jo, self.name)

    def build(self, hp=None):
        return self.factory(**self.kwargs(dict(self.hp if hp is None else hp)))

    def injected(self):
        return optax.inject_hyperparams(self.factory, static_args=self.static_args)(
            **self.kwargs(dict(self.hp))
        )

    def grad_fn(self):
        loss = self.problem[0]
        return self.grad(loss) if self.grad is not None else jax.grad(loss)

    def extra_for(self, loss):
        """The extras on another objective ``loss`` (None: no extras)."""
        if self.extra_of is not None:
            return self.extra_of(loss)
        return self.extra


def _zo_extra(loss, hinted=True):
    """Extras of the zeroth-order transforms: the objective, and a perfect hint (α = 1)."""

    def extra(params, prev_params, grad):
        out = {"value_fn": loss}
        if hinted:
            g = grad(params)
            norm = jnp.sqrt(sum(jnp.sum(jnp.square(x.astype(jnp.float32))) for x in jax.tree.leaves(g)))
            out["hint_basis"] = jax.tree.map(lambda x: (x / norm.astype(x.dtype))[None], g)
        return out

    return extra


_NS = ("ns_steps",)
_ZO_PROBLEM = _quadratic(MIXED)
REGISTRY: list[Entry] = [
    Entry(
        "normalized_sgd_momentum",
        lambda h: dict(h),
        {"learning_rate": 0.1, "beta": 0.5},
        "learning_rate",
        _quadratic(MIXED),
    ),
    Entry(
        "normalized_sgd_momentum",
        lambda h: dict(h, per_leaf=True),
        {"learning_rate": 0.1, "beta": 0.5},
        "learning_rate",
        _quadratic(MIXED),
        variant="per_leaf",
    ),
    Entry(
        "normalized_storm",
        lambda h: dict(h),
        {"learning_rate": 0.1, "a": 0.5},
        "learning_rate",
        _quadratic(MIXED),
        extra=_storm_extra,
    ),
    Entry(
        "stochastic_mirror_descent",
        lambda h: dict(h),
        {"learning_rate": 0.1},
        "learning_rate",
        _quadratic(MIXED),
    ),
    Entry(
        "stochastic_mirror_descent",
        lambda h: dict(h, mirror_map=jo.entropic_mirror_map()),
        {"learning_rate": 0.5},
        "learning_rate",
        (_simplex_loss, _simplex_params, 0.0),
        variant="entropic",
    ),
    Entry(
        "stochastic_mirror_descent",
        lambda h: dict(learning_rate=h["learning_rate"], mirror_map=jo.pnorm_mirror_map(h["r"])),
        {"learning_rate": 0.1, "r": 1.5},
        "learning_rate",
        _quadratic(MIXED),
        variant="pnorm",
    ),
    Entry(
        "scale_by_lmo",
        lambda h: dict(h),
        {"radius": 1.0, "beta": 0.5},
        "radius",
        _quadratic(BATCHED),
        static_args=_NS,
        direction=True,
    ),
    Entry(
        "scale_by_lmo",
        lambda h: dict(h, norm="nuclear"),
        {"radius": 1.0, "beta": 0.5},
        "radius",
        _quadratic(BATCHED),
        static_args=_NS,
        direction=True,
        variant="nuclear",
    ),
    Entry(
        "scale_by_muon",
        lambda h: dict(h),
        {"beta": 0.9, "eps": 1e-8},
        "beta",
        _quadratic(MATRICES),
        static_args=_NS,
        direction=True,
    ),
    Entry(
        "muon",
        lambda h: dict(h),
        {"learning_rate": 0.05, "beta": 0.9},
        "learning_rate",
        _quadratic(MIXED),
        static_args=_NS,
    ),
    Entry(
        "error_feedback",
        lambda h: dict(inner=optax.sgd(h["learning_rate"]), compressor=top_k(3)),
        {"learning_rate": 0.2},
        "learning_rate",
        _quadratic(MIXED),
        static_args=("compressor",),
    ),
    Entry(
        "error_feedback",
        lambda h: dict(
            inner=optax.sgd(h["learning_rate"]), compressor=top_k(3), variant="ef21", num_workers=W
        ),
        {"learning_rate": 0.2},
        "learning_rate",
        _quadratic(MIXED),
        grad=_ef_workers_grad,
        static_args=("compressor", "num_workers"),
        variant="ef21",
        not_applicable={
            "multisteps": "MultiSteps accumulates gradients in buffers shaped like "
            "the params; with num_workers the gradients carry an extra worker axis"
        },
    ),
    Entry(
        "lookahead",
        lambda h: dict(
            inner=optax.sgd(h["learning_rate"]),
            sync_period=2,
            slow_step_size=h["slow_step_size"],
            momentum=h["momentum"],
        ),
        {"learning_rate": 0.2, "slow_step_size": 0.5, "momentum": 0.5},
        "learning_rate",
        _quadratic(MIXED),
        static_args=("sync_period",),
    ),
    Entry(
        "diloco",
        lambda h: dict(
            inner=optax.sgd(h["learning_rate"], momentum=0.5),
            outer=optax.sgd(1.0, momentum=0.5, nesterov=True),
            sync_period=2,
            num_workers=W,
        ),
        {"learning_rate": 0.2},
        "learning_rate",
        (_workers_loss, _workers_params, WORKERS_MIN),
        static_args=("sync_period", "num_workers"),
    ),
    Entry(
        "diloco_ef",
        lambda h: dict(
            inner=optax.sgd(h["learning_rate"]),
            outer=optax.sgd(1.0),
            sync_period=2,
            num_workers=W,
            compressor=top_k(2),
            error_decay=h["error_decay"],
        ),
        {"learning_rate": 0.2, "error_decay": 0.9},
        "learning_rate",
        (_workers_loss, _workers_params, WORKERS_MIN),
        static_args=("sync_period", "num_workers", "compressor"),
    ),
    Entry(
        "imuon_fixed_rank",
        lambda h: dict(h),
        {"learning_rate": 0.05, "momentum": 0.5},
        "learning_rate",
        (_fixed_rank_loss, _fixed_rank_params, 0.0),
        static_args=_NS,
    ),
    Entry(
        "imuon_lora",
        lambda h: dict(h),
        {"learning_rate": 0.05, "momentum": 0.5},
        "learning_rate",
        (_fixed_rank_loss, _fixed_rank_params, 0.0),
        static_args=_NS,
    ),
    Entry(
        "imuon_spd",
        lambda h: dict(h),
        {"learning_rate": 0.1, "momentum": 0.0},
        "learning_rate",
        (_spd_loss, _spd_params, SPD_MIN),
    ),
    Entry(
        "imuon_stiefel",
        lambda h: dict(h),
        {"learning_rate": 0.1, "momentum": 0.0},
        "learning_rate",
        (_stiefel_loss, _stiefel_params, RQ_MIN),
        static_args=_NS,
    ),
    Entry(
        "imuon_grassmann",
        lambda h: dict(h, retraction="qr"),
        {"learning_rate": 0.1, "momentum": 0.0},
        "learning_rate",
        (_grassmann_loss, _grassmann_params, RQ_MIN),
        static_args=_NS,
    ),
    Entry(
        "scale_by_schatten_p",
        lambda h: dict(h, p_method="exact", interval=2, n_grid=16),
        {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "sv_momentum": 0.9},
        "beta1",
        _quadratic(MATRICES),
        extra=_schatten_extra,
        static_args=("interval", "n_grid"),
        direction=True,
    ),
    Entry(
        "schatten_p",
        lambda h: dict(h, interval=2, n_grid=16),
        {"learning_rate": 0.05, "beta1": 0.9},
        "learning_rate",
        _quadratic(MIXED),
        extra=_schatten_extra,
        static_args=("interval", "n_grid", "adam_b1"),
    ),
    Entry(
        "schatten_p",
        lambda h: dict(h, interval=2, n_grid=16, moment="padam"),
        {"learning_rate": 0.05, "beta1": 0.9},
        "learning_rate",
        _quadratic(MIXED),
        extra=_schatten_extra,
        static_args=("interval", "n_grid", "adam_b1"),
        variant="padam",
    ),
    Entry(
        "muadam", lambda h: dict(h), {"learning_rate": 0.05, "beta1": 0.9}, "learning_rate", _quadratic(MIXED)
    ),
    Entry(
        "ftrl_entropic",
        lambda h: dict(h),
        {"learning_rate": 0.5},
        "learning_rate",
        (_simplex_loss, _simplex_params, 0.0),
    ),
    Entry(
        "dual_averaging",
        lambda h: dict(h),
        {"radius": 10.0, "learning_rate": 0.1},
        "learning_rate",
        _quadratic(MIXED),
    ),
    Entry(
        "doubly_smoothed_gda",
        lambda h: dict(h),
        {"eta": 0.1, "r": 1.0, "beta": 0.5},
        "eta",
        (_saddle_dist, _saddle_params, 0.0),
        grad=_saddle_grad,
    ),
    # zeroth-order transforms (value_fn extra, exact JVPs; the hint is the gradient direction)
    Entry(
        "cv_zod",
        lambda h: dict(h, mode="jvp", seed=3),
        {"learning_rate": 0.4},
        "learning_rate",
        _ZO_PROBLEM,
        extra=_zo_extra(_ZO_PROBLEM[0]),
        static_args=("num_random", "seed"),
    ),
    Entry(
        "cv_zod",
        lambda h: dict(h, reference="adaptive", mode="jvp", seed=3),
        {"learning_rate": 0.5, "b0": 0.1},
        "learning_rate",
        _ZO_PROBLEM,
        extra=_zo_extra(_ZO_PROBLEM[0]),
        static_args=("num_random", "seed"),
        variant="adaptive",
    ),
    Entry(
        "zo_gd",
        lambda h: dict(h, mode="jvp", seed=3),
        {"learning_rate": 0.05},
        "learning_rate",
        _ZO_PROBLEM,
        extra=_zo_extra(_ZO_PROBLEM[0], hinted=False),
        static_args=("num_random", "seed"),
    ),
    Entry(
        "hint_gd",
        lambda h: dict(h, mode="jvp"),
        {"learning_rate": 0.4},
        "learning_rate",
        _ZO_PROBLEM,
        extra=_zo_extra(_ZO_PROBLEM[0]),
    ),
    Entry(
        "guided_es",
        lambda h: dict(h, mode="jvp", seed=3),
        {"learning_rate": 0.25, "alpha": 0.5},
        "learning_rate",
        _ZO_PROBLEM,
        extra=_zo_extra(_ZO_PROBLEM[0]),
        static_args=("num_pairs", "seed"),
    ),
    Entry(
        "prgf",
        lambda h: dict(h, mode="jvp", seed=3),
        {"learning_rate": 0.4},
        "learning_rate",
        _ZO_PROBLEM,
        extra=_zo_extra(_ZO_PROBLEM[0]),
        static_args=("num_random", "seed"),
    ),
    Entry(
        "segre_rgd",
        lambda h: dict(h),
        {"learning_rate": 0.5},
        "learning_rate",
        (_segre_loss, _segre_params, 0.0),
    ),
    Entry(
        "center_classifier_rows",
        lambda h: dict(h),
        {"scale": 1.0},
        "scale",
        _quadratic(MIXED),
        static_args=("axis",),
        direction=True,
    ),
    # Langevin at a small temperature: the noise (sqrt(2 h T) ~ 4e-4) is far below the descent
    Entry(
        "langevin",
        lambda h: dict(h, seed=3),
        {"step": 0.1, "temperature": 1e-6, "weight_decay": 1e-3},
        "step",
        _quadratic(MIXED),
        static_args=("seed",),
    ),
]

# ------------------------------------------------------------ transforms added for optax's checks
# averaged_fisher_precondition: a constant Fisher (the quadratic's curvature) makes it a
# preconditioned (Newton) step; it returns +lr F^+ g, a direction like scale_by_lmo's
_AF_KEYS = MIXED
_AF_DIAG = np.concatenate([np.ravel(_C[k]) for k in sorted(_AF_KEYS)]).astype(np.float32)


def _af_fisher(params):
    dtype = jax.tree.leaves(params)[0].dtype
    return jnp.diag(jnp.asarray(_AF_DIAG, dtype))


REGISTRY += [
    Entry(
        "averaged_fisher_precondition",
        lambda h: dict(h, fisher_fn=_af_fisher, num_nodes=1),
        {"learning_rate": 0.5},
        "learning_rate",
        _quadratic(_AF_KEYS),
        static_args=("fisher_fn", "num_nodes"),
        direction=True,
        descent_lr=1.0,
    ),
    # Koopman extrapolation around SGD: an attempt every 2 steps (window 2, tau 1)
    Entry(
        "koopman_accelerate",
        lambda h: dict(inner=optax.sgd(h["learning_rate"]), tau=1, window=2, rank=2, max_jumps=2),
        {"learning_rate": 0.2},
        "learning_rate",
        _ZO_PROBLEM,
        extra=lambda params, prev, grad: {"value_fn": _ZO_PROBLEM[0]},
        extra_of=lambda loss: lambda params, prev, grad: {"value_fn": loss},
        static_args=("tau", "window", "rank", "max_jumps"),
    ),
]

# ------------------------------------------------------------ domains and exemptions of optax's checks
#: The edge leaves added beside free params: a None leaf, a size-0 leaf, a scalar leaf.
FREE_EDGES = {"none": None, "empty": (0,), "scalar": ()}
MATRIX_EDGES = {"none": None, "empty": (0, 3)}  # matrix-only transforms: no scalar leaf
WORKER_EDGES = {"none": None, "empty": (W, 0), "scalar": (W,)}  # leading worker axis


def _ints(make):
    return lambda: jax.tree.map(lambda x: jnp.zeros(jnp.shape(x), jnp.int32), make(jnp.float32))


_VECTOR = (lambda: {"v": jnp.ones(3)}, "matri|2-D")
_BUILDING_BLOCK = (
    "a building block (no learning rate): strict about update kwargs, as optax's building "
    "blocks are; optax.with_extra_args_support (checked) makes it drop them"
)
_NO_SCHEDULE = "its step is a scalar, not a schedule (a traced scalar sweeps it)"
_PARTITION_COUNTS = "an optax.partition of two transforms: one count per branch"
_WORKER_GRADS = (
    "with num_workers the gradients carry a worker axis the params lack; {} builds its "
    "buffers (or zero updates) shaped like the gradients"
)
_ZO_MASKED = (
    "value_fn and hint_basis are functions of the whole params; optax.masked hands the "
    "transform a tree with MaskedNode leaves"
)
_SEGRE_EDGES = "a Segre point is the fixed structure (lam, [factors]): no leaf can be added beside it"
_FACTOR_EMPTY = "a FactorPair of rank r has no size-0 factor (r = 0 is no matrix at all)"


def _spd_bad():
    return -jnp.eye(3)


def _overrides() -> dict[str, dict]:
    zo = {
        "not_applicable": {"masked": _ZO_MASKED},
    }
    two_phase_count = "the two-phase state counts inner steps in `step` (reset at every synchronization)"
    return {
        "normalized_sgd_momentum": dict(complex_ok=True),
        "normalized_sgd_momentum[per_leaf]": dict(complex_ok=True),
        "normalized_storm": dict(complex_ok=True, extra_of=lambda loss: _storm_extra),
        "stochastic_mirror_descent": dict(complex_ok=True),
        "stochastic_mirror_descent[entropic]": dict(
            edges={"none": None, "empty": (0, 3)},
            bad=(
                (lambda: jnp.asarray([[-0.1, 0.6, 0.5]]), "simplex"),
                (lambda: {"p": jnp.asarray([0.5, 0.5]), "s": jnp.asarray(1.0)}, "last axis"),
            ),
            not_applicable={"scalar_params": "a scalar has no simplex axis (refused, see bad)"},
        ),
        "stochastic_mirror_descent[pnorm]": {},
        "scale_by_lmo": dict(
            edges=MATRIX_EDGES,
            bad=(_VECTOR,),
            not_applicable={
                "unknown_kwargs": _BUILDING_BLOCK,
                "scalar_params": "matrix leaves only (see bad)",
            },
        ),
        "scale_by_lmo[nuclear]": dict(
            edges=MATRIX_EDGES,
            bad=(_VECTOR,),
            not_applicable={
                "unknown_kwargs": _BUILDING_BLOCK,
                "scalar_params": "matrix leaves only (see bad)",
            },
        ),
        "scale_by_muon": dict(
            edges=MATRIX_EDGES,
            bad=(_VECTOR,),
            mu_dtype=True,
            not_applicable={
                "unknown_kwargs": _BUILDING_BLOCK,
                "scalar_params": "matrix leaves only (see bad)",
            },
        ),
        "muon": dict(complex_ok="adamw", mu_dtype=True, not_applicable={"count": _PARTITION_COUNTS}),
        "error_feedback": dict(not_applicable={"count": "neither the EF state nor optax.sgd counts steps"}),
        "error_feedback[ef21]": dict(
            not_applicable={
                "count": "neither the EF state nor optax.sgd counts steps",
                "apply_if_finite": _WORKER_GRADS.format("apply_if_finite"),
                "masked": _WORKER_GRADS.format("masked (a masked-out leaf's gradient passes as its update)"),
            }
        ),
        "lookahead": dict(complex_ok=True, not_applicable={"count": two_phase_count}),
        "diloco": dict(
            complex_ok=True,
            edges=WORKER_EDGES,
            bad=(
                (lambda: {"x": jnp.asarray([[1.0, 2.0, 3.0], [0.0, 2.0, 3.0]])}, "identical copies"),
                (lambda: {"x": jnp.ones(3)}, "worker axis"),
            ),
            not_applicable={
                "count": two_phase_count,
                "scalar_params": "every leaf carries the worker axis (a bare scalar is refused, see bad)",
            },
        ),
        "diloco_ef": dict(
            edges=WORKER_EDGES,
            bad=((lambda: {"x": jnp.asarray([[1.0, 2.0, 3.0], [0.0, 2.0, 3.0]])}, "identical copies"),),
            not_applicable={
                "count": two_phase_count,
                "scalar_params": "every leaf carries the worker axis (a bare scalar is refused)",
            },
        ),
        "imuon_fixed_rank": dict(
            edges={"none": None},
            bad=((lambda: {"w": jnp.ones((4, 3))}, "FactorPair"),),
            not_applicable={
                "empty_leaf": _FACTOR_EMPTY,
                "scalar_leaf": "FactorPair nodes only (a bare leaf is refused, see bad)",
                "scalar_params": "FactorPair nodes only",
            },
        ),
        "imuon_lora": dict(
            edges={"none": None},
            bad=((lambda: {"w": jnp.ones((4, 3))}, "FactorPair"),),
            not_applicable={
                "empty_leaf": _FACTOR_EMPTY,
                "scalar_leaf": "FactorPair nodes only (a bare leaf is refused, see bad)",
                "scalar_params": "FactorPair nodes only",
            },
        ),
        "imuon_spd": dict(
            edges={"none": None, "empty": (0, 0)},
            bad=(
                (lambda: jnp.ones((2, 3)), "symmetric positive definite"),
                (_spd_bad, "positive definite"),
                (lambda: jnp.ones(3), "matrix leaves"),
            ),
            not_applicable={
                "scalar_leaf": "SPD matrices only (see bad)",
                "scalar_params": "SPD matrices only",
            },
        ),
        "imuon_stiefel": dict(
            edges={"none": None, "empty": (3, 0)},
            bad=((lambda: jnp.zeros((4, 2)), "Stiefel"), (lambda: jnp.eye(2, 4), "n >= p")),
            not_applicable={
                "scalar_leaf": "Stiefel points only (see bad)",
                "scalar_params": "Stiefel points only",
            },
        ),
        "imuon_grassmann": dict(
            edges={"none": None, "empty": (3, 0)},
            bad=((lambda: jnp.zeros((4, 2)), "full-column-rank"),),
            not_applicable={
                "scalar_leaf": "Grassmann representatives only (see bad)",
                "scalar_params": "Grassmann representatives only",
            },
        ),
        "scale_by_schatten_p": dict(
            edges=MATRIX_EDGES,
            bad=(_VECTOR,),
            not_applicable={"scalar_params": "2-D leaves only (see bad)"},
        ),
        "schatten_p": dict(complex_ok="adamw", not_applicable={"count": _PARTITION_COUNTS}),
        "schatten_p[padam]": dict(complex_ok="adamw", not_applicable={"count": _PARTITION_COUNTS}),
        "muadam": dict(complex_ok="adamw", not_applicable={"count": _PARTITION_COUNTS}),
        "ftrl_entropic": dict(
            edges={"none": None, "empty": (0, 3)},
            bad=(
                (lambda: jnp.asarray([[-0.1, 0.6, 0.5]]), "simplex"),
                (lambda: jnp.asarray([[0.0, 0.0]]), "positive sum"),
            ),
            not_applicable={"scalar_params": "a scalar has no simplex axis"},
        ),
        "dual_averaging": {},
        "doubly_smoothed_gda": dict(
            edge_params=lambda dt: tuple(
                {
                    "a": jnp.asarray(v, dt),
                    "none": None,
                    "empty": jnp.zeros((0,), dt),
                    "scalar": jnp.asarray(0.5, dt),
                }
                for v in (_SD_X0, _SD_Y0)
            ),
            bad=((lambda: {"x": jnp.ones(3), "y": jnp.ones(3)}, "pair"),),
            not_applicable={
                "schedule": _NO_SCHEDULE,
                "scalar_params": "params are the pair (x, y) (a bare scalar is refused, see bad)",
            },
        ),
        "cv_zod": dict(zo, extra_of=lambda loss: _zo_extra(loss)),
        "cv_zod[adaptive]": dict(zo, extra_of=lambda loss: _zo_extra(loss)),
        "zo_gd": dict(zo, extra_of=lambda loss: _zo_extra(loss, hinted=False)),
        "hint_gd": dict(zo, extra_of=lambda loss: _zo_extra(loss)),
        "guided_es": dict(zo, extra_of=lambda loss: _zo_extra(loss)),
        "prgf": dict(
            zo,
            extra_of=lambda loss: _zo_extra(loss),
            bad=((lambda: jnp.asarray(1.0), "at least"),),
            not_applicable={
                **zo["not_applicable"],
                "scalar_params": "d = 1 leaves no direction orthogonal to the hint (refused, see bad)",
            },
        ),
        "segre_rgd": dict(
            edges={},
            bad=((lambda: jnp.ones(3), "Segre"), (lambda: (jnp.zeros(1), [jnp.ones((1, 2))]), "Segre")),
            not_applicable={
                "schedule": _NO_SCHEDULE + "; its state is empty (no step count)",
                "count": "its state is empty (the step needs no count)",
                "none_leaf": _SEGRE_EDGES,
                "empty_leaf": _SEGRE_EDGES,
                "scalar_leaf": _SEGRE_EDGES,
                "scalar_params": "a Segre point (refused, see bad)",
            },
        ),
        "center_classifier_rows": dict(
            complex_ok=True,
            edges={"none": None, "empty": (0,)},
            bad=((lambda: {"w": jnp.ones(3), "s": jnp.asarray(1.0)}, "class axis"),),
            not_applicable={
                "unknown_kwargs": _BUILDING_BLOCK,
                "schedule": "scale is a scalar of a stateless transform (no step count)",
                "count": "stateless (EmptyState)",
                "scalar_params": "a scalar has no class axis (refused, see bad)",
            },
        ),
        "langevin": dict(
            not_applicable={
                "schedule": _NO_SCHEDULE,
                "count": "the state holds only the PRNG key",
            }
        ),
        "averaged_fisher_precondition": dict(
            edges={"none": None, "empty": (0,)},
            bad=((lambda: {"b": jnp.ones(3)}, "flattened size"),),
            not_applicable={
                "schedule": "learning_rate must be a scalar (a schedule is refused with a TypeError)",
                "scalar_leaf": "fisher_fn fixes the flattened size d (a leaf of another size is refused, see bad)",
                "scalar_params": "fisher_fn fixes the flattened size d",
                "masked": "fisher_fn fixes the flattened size d: a masked tree is smaller (refused)",
            },
        ),
        "koopman_accelerate": dict(
            not_applicable={
                "masked": "value_fn (the held-out loss) takes the whole params; optax.masked hands the transform a tree with MaskedNode leaves"
            }
        ),
    }


_OVERRIDES = _overrides()


def _apply(entry: Entry, override: dict) -> Entry:
    override = dict(override)
    na = {**entry.not_applicable, **override.pop("not_applicable", {})}
    return dataclasses.replace(entry, not_applicable=na, **override)


REGISTRY = [_apply(e, _OVERRIDES.get(e.id, {})) for e in REGISTRY]

#: Public names of ``jaxtheory.optim`` that are not transform factories, with the reason.
NOT_TRANSFORMS: dict[str, str] = {
    "accept_if_decrease": "sufficient-decrease selection used inside value-function transforms",
    "occupancy_interp": (
        "moves the parameters toward a fixed target whatever the incoming gradient (its update "
        "is eta (theta* - theta)); the recursion and its SMD equivalence are tested in test_irl.py"
    ),
    "AveragedFisherState": "state NamedTuple of a transform",
    "OccupancyInterpState": "state NamedTuple of a transform",
    "gauss_legendre_unit": "quadrature nodes used by averaged_fisher_precondition",
    "line_average": "quadrature helper used by averaged_fisher_precondition",
    "KoopmanState": "state NamedTuple of a transform",
    "DMDFit": "result NamedTuple of exact_dmd",
    "NONNEGATIVE_FIELDS": "constant: inner-state fields clipped at 0 after a jump",
    **{
        n: "pure DMD function used by koopman_accelerate (tested in test_koopman.py)"
        for n in ("exact_dmd", "dmd_extrapolate")
    },
    "n_evals": "reads the evaluation counter of a state",
    "random_feasible_exploration": "an add-on after a base map: its incoming updates are the base "
    "step, not a gradient, so the registry's gradient-fed checks do not apply; checked in "
    "tests/optim/test_exploration.py (chain, vmap over traced sigma, counts, monotonicity)",
    "ExplorationState": "state NamedTuple of a transform",
    **{
        n: "state NamedTuple of a transform"
        for n in (
            "NormalizedMomentumState",
            "NormalizedStormState",
            "StochasticMirrorDescentState",
            "LMOState",
            "MuonState",
            "ErrorFeedbackState",
            "TwoPhaseState",
            "DiLoCoEFState",
            "IMuonState",
            "SchattenState",
            "FTRLEntropicState",
            "DualAveragingState",
            "DoublySmoothedGDAState",
            "ZerothOrderState",
        )
    },
    **{
        n: "mirror map (an argument of stochastic_mirror_descent)"
        for n in ("MirrorMap", "euclidean_mirror_map", "entropic_mirror_map", "pnorm_mirror_map")
    },
    **{
        n: "compressor or compressor helper (an argument of error_feedback/diloco_ef)"
        for n in (
            "Compressor",
            "top_k",
            "rand_k",
            "qsgd",
            "scaled_sign",
            "identity_compressor",
            "matched_k",
            "tree_size",
        )
    },
    **{
        n: "pure matrix function used by the transforms (tested in its family's file)"
        for n in (
            "polar_svd",
            "polar_newton_schulz",
            "top_singular_pair",
            "lmo_spectral",
            "lmo_frobenius",
            "lmo_nuclear",
            "fixed_rank_direction",
            "spd_direction",
            "spd_exp_retraction",
            "stiefel_direction",
            "stiefel_retraction",
            "grassmann_direction",
            "schatten_direction",
            "schatten_log_criterion",
            "schatten_log_criterion_momentum",
            "schatten_p_grid",
        )
    },
    "NS_COEFFS": "constant table of Newton-Schulz coefficients",
    "FactorPair": "parameter container of the fixed-rank transforms",
    "FixedRankDirection": "return type of fixed_rank_direction",
    "two_point_grad": "gradient helper for normalized_storm's prev_grad",
    "replicate_workers": "helper that adds the worker axis for diloco/diloco_ef",
    "slow_params": "reads the slow weights from a two-phase state",
    **{
        n: "bandit loss estimator of a game player (tested in test_simplex.py)"
        for n in ("importance_weighted_loss", "implicit_exploration_loss")
    },
    "zo_gradient_estimate": "pure estimator used by the zeroth-order transforms (tested in its family's file)",
    "sphere_directions": "random-direction helper of the zeroth-order transforms",
    "CV_ZOD_REFERENCES": "constant: the variants of cv_zod",
    **{
        n: "Segre-manifold geometry used by segre_rgd and the tensor sims (tested in test_segre.py)"
        for n in ("segre_tensor", "segre_tangent_coords", "segre_tangent_project", "segre_retract")
    },
    "LangevinState": "state NamedTuple of a transform",
}

IDS = [e.id for e in REGISTRY]


# Every property runs jitted: one compile per program is cheaper than compiling each
# operation op by op for every new shape and dtype (and an eager lax.cond recompiles at
# every call). Compiling dominates this file's time; XLA's backend optimization level 0
# takes a third off it, and nothing checked here depends on LLVM's optimizations (every
# comparison is between different programs, within a tolerance).
_jit = functools.partial(jax.jit, compiler_options={"xla_backend_optimization_level": 0})


def _scan(opt, entry: Entry, params, steps: int):
    """``steps`` updates from ``params`` in one ``lax.scan`` (one update to compile).

    Returns:
        (updates stacked over steps, initial state, states after each step stacked, final
        params). The scan itself requires the state's dtypes and shapes not to change.
    """
    grad = entry.grad_fn()

    def body(carry, _):
        params, prev, state = carry
        extra = entry.extra(params, prev, grad) if entry.extra else {}
        u, state = opt.update(grad(params), state, params, **extra)
        return (optax.apply_updates(params, u), params, state), (u, state)

    state0 = opt.init(params)
    (final, _, _), (updates, states) = jax.lax.scan(body, (params, params, state0), None, length=steps)
    return updates, state0, states, final


def _run(opt, entry: Entry, params, steps: int):
    """:func:`_scan`, jitted."""
    return _jit(lambda p: _scan(opt, entry, p, steps))(params)


def _last(tree):
    return jax.tree.map(lambda x: x[-1], tree)


STEPS = 2  # a step without and one with a synchronization (sync_period 2)
_PLAIN: dict[str, tuple] = {}
_STEPPERS: dict[str, Callable] = {}


def _plain(entry: Entry):
    """The plain transform's float32 run (shared by the tests that compare against it)."""
    if entry.id not in _PLAIN:
        _PLAIN[entry.id] = _run(entry.build(), entry, entry.problem[1](jnp.float32), STEPS)
    return _PLAIN[entry.id]


def _stepper(entry: Entry):
    """``(opt, jitted step)`` of the inject_hyperparams transform, as a descent method.

    Direction transforms are followed by ``scale_by_learning_rate(descent_lr)``. Shared by
    the no-recompile and the descent tests, which both count this step's compilations.
    """
    if entry.id not in _STEPPERS:
        opt = entry.injected()
        if entry.direction:  # an ascent direction: the step is -descent_lr * direction
            opt = optax.chain(opt, optax.scale_by_learning_rate(entry.descent_lr))
        grad = entry.grad_fn()

        @_jit
        def step(params, prev, state):
            extra = entry.extra(params, prev, grad) if entry.extra else {}
            u, state = opt.update(grad(params), state, params, **extra)
            return optax.apply_updates(params, u), params, state

        _STEPPERS[entry.id] = (opt, step)
    return _STEPPERS[entry.id]


def _inject_state(entry: Entry, state):
    return state[0] if entry.direction else state


def _leaves_close(a, b, rtol, atol, what):
    assert jax.tree.structure(a) == jax.tree.structure(b), what
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        if jax.dtypes.issubdtype(jnp.asarray(x).dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        np.testing.assert_allclose(
            np.asarray(x, np.float64), np.asarray(y, np.float64), rtol=rtol, atol=atol, err_msg=what
        )


def _signature(tree):
    return jax.tree.map(lambda x: (jnp.shape(x), jnp.asarray(x).dtype), tree)


# ---------------------------------------------------------------------------- tests
def test_registry_covers_every_public_name():
    public = set(jo.__all__)
    listed = {e.name for e in REGISTRY}
    assert not listed & set(NOT_TRANSFORMS), listed & set(NOT_TRANSFORMS)
    missing = public - listed - set(NOT_TRANSFORMS)
    assert not missing, f"public names with no registry entry (or reason): {sorted(missing)}"
    stale = (listed | set(NOT_TRANSFORMS)) - public
    assert not stale, f"registry names that are not public: {sorted(stale)}"
    assert len(set(IDS)) == len(IDS)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_entry_builds_a_gradient_transformation(entry):
    opt = entry.build()
    assert isinstance(opt, (optax.GradientTransformation, optax.GradientTransformationExtraArgs))


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_works_inside_optax_chain(entry):
    # clip_by_global_norm with a bound far above the gradient norm passes gradients through
    # unchanged (a lax.select), so the chain must give the transform's own updates; the
    # programs differ (the chain fuses differently), hence a few-ulp tolerance.
    chained, _, _, _ = _run(
        optax.chain(optax.clip_by_global_norm(1e6), entry.build()),
        entry,
        entry.problem[1](jnp.float32),
        STEPS,
    )
    tol = 64 * F32_EPS
    _leaves_close(chained, _plain(entry)[0], tol, tol, entry.id)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_inject_hyperparams_gives_the_plain_updates(entry):
    # The injected transform rebuilds the factory with its numeric hyperparameters as
    # float32 arrays instead of Python floats: the same operations, but XLA may fold
    # constants differently, hence a tolerance of a few ulps per step.
    plain_u, _, plain_s, _ = _plain(entry)
    inj_u, _, inj_s, _ = _run(entry.injected(), entry, entry.problem[1](jnp.float32), STEPS)
    tol = 64 * STEPS * F32_EPS
    _leaves_close(inj_u, plain_u, tol, tol, entry.id + " updates")
    _leaves_close(_last(inj_s).inner_state, _last(plain_s), tol, tol, entry.id + " state")
    # every float hyperparameter the factory takes directly is injected (an array in the state)
    direct = {k for k, v in entry.kwargs(entry.hp).items() if isinstance(v, float)}
    assert direct <= set(_last(inj_s).hyperparams), entry.id


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_vmap_over_a_traced_hyperparameter_equals_a_loop(entry):
    params = entry.problem[1](jnp.float32)
    values = jnp.asarray([0.5, 1.5], jnp.float32) * entry.hp[entry.lr]

    def final(v):
        return _scan(entry.build(dict(entry.hp, **{entry.lr: v})), entry, params, STEPS)[3]

    batched = _jit(jax.vmap(final))(values)
    one = _jit(final)
    # vmap turns matrix products into batched ones and may reorder reductions: a few ulps
    # per operation, compounded over the steps of an update that is Lipschitz with a
    # small constant on these problems.
    tol = 256 * STEPS * F32_EPS
    for i, v in enumerate(values):
        _leaves_close(
            jax.tree.map(lambda x, i=i: x[i], batched),
            one(v),
            tol,
            tol,
            f"{entry.id} at {entry.lr}={float(v)}",
        )
    assert one._cache_size() == 1


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_params_dtype_preserved_and_state_dtypes_stable(entry, dtype):
    with jax.enable_x64(dtype == "float64"):
        dt = jnp.dtype(dtype)
        if dtype == "float32":
            updates, state0, states, final = _plain(entry)
        else:
            updates, state0, states, final = _run(entry.build(), entry, entry.problem[1](dt), STEPS)
        for leaf in jax.tree.leaves(updates) + jax.tree.leaves(final):
            assert leaf.dtype == dt, (entry.id, leaf.dtype)
        for leaf in jax.tree.leaves(final):
            assert bool(jnp.all(jnp.isfinite(leaf.astype(jnp.float32)))), entry.id
        # (the scan already refuses a state whose dtypes or shapes change; checked here
        # with a readable message, including against the state init() returns)
        assert _signature(_last(states)) == _signature(state0), entry.id


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_no_recompile_when_only_hyperparameter_values_change(entry):
    # The jitted step of the inject_hyperparams transform compiles once: the state keeps its
    # dtypes and weak types from step to step, and new hyperparameter values are new array
    # values, not new programs.
    opt, step = _stepper(entry)
    params = entry.problem[1](jnp.float32)
    state, prev = opt.init(params), params
    for t in range(STEPS + 1):
        if t == STEPS:  # new hyperparameter values (v * 0.5, v + 1 keep dtype and weak type)
            inj = _inject_state(entry, state)
            inj = inj._replace(
                hyperparams={
                    k: v * 0.5 if jnp.issubdtype(v.dtype, jnp.floating) else v + 1
                    for k, v in inj.hyperparams.items()
                }
            )
            state = (inj, *state[1:]) if entry.direction else inj
        params, prev, state = step(params, prev, state)
    assert step._cache_size() == 1, f"{entry.id}: {step._cache_size()} compiles"


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_multisteps_wraps_it(entry):
    # Two micro-steps with the same gradient g: MultiSteps' running mean of (g, g) is g
    # exactly, so its second micro-step must give the plain transform's first update (from
    # the same params, state and extra arguments); the first gives zeros.
    params = entry.problem[1](jnp.float32)
    grad = entry.grad_fn()
    ms = optax.MultiSteps(entry.build(), every_k_schedule=2)
    g = grad(params)
    extra = entry.extra(params, params, grad) if entry.extra else {}
    if "multisteps" in entry.not_applicable:  # it must fail loudly, not silently
        with pytest.raises(ValueError):
            ms.update(g, ms.init(params), params, **extra)
        return
    # callable extras (a value_fn) are closed over: jit takes arrays, not functions
    fns = {k: v for k, v in extra.items() if callable(v)}
    arrays = {k: v for k, v in extra.items() if not callable(v)}
    update = _jit(lambda g, s, p, a: ms.update(g, s, p, **a, **fns))
    u1, state = update(g, ms.init(params), params, arrays)
    u2, state = update(g, state, params, arrays)
    assert update._cache_size() == 1, entry.id
    assert not any(np.any(np.asarray(x)) for x in jax.tree.leaves(u1)), entry.id
    # the MultiSteps program is another program than the plain one (a lax.cond around the
    # update): a few ulps
    tol = 64 * F32_EPS
    _leaves_close(u2, jax.tree.map(lambda x: x[0], _plain(entry)[0]), tol, tol, entry.id)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_decreases_a_small_objective(entry):
    # the inject_hyperparams transform (it gives the plain updates, tested above), so that
    # this test shares the compiled step of the no-recompile test
    loss, make, lo = entry.problem
    opt, step = _stepper(entry)
    params = make(jnp.float32)
    start = float(loss(params))
    state, prev = opt.init(params), params
    for _ in range(entry.descent_steps):
        params, prev, state = step(params, prev, state)
    end = float(loss(params))
    # a tenth of the way to the minimum (at least): far beyond round-off, well within
    # what every method reaches in descent_steps steps on these problems
    assert math.isfinite(end) and end - lo < 0.9 * (start - lo), (entry.id, start, end, lo)
    assert step._cache_size() == 1


# ------------------------------------------------------------------ optax's generic checks
# The checks of optax's own optimizer tests (its contrib common tests, the dtype and
# complex checks of its alias tests, the extra-args check of its base tests) and what
# optax users rely on (masked, apply_if_finite, tree.get, donation, None / size-0 /
# scalar leaves), written here for this registry. Most run in one jitted program per
# entry (:func:`_probe`, cached), so that a check costs a comparison, not a compile.


def _wrapped(entry: Entry) -> bool:
    """Whether the edge leaves go beside the problem's params in a dict ``{"main": ...}``."""
    base = entry.problem[1](jnp.float32)
    return not (isinstance(base, dict) and entry.edge_params is None)


def _edge_problem(entry: Entry):
    """``(params, grad, loss)`` with the entry's None, size-0 and scalar leaves (or None).

    The edge leaves are 0.5 everywhere (a point of every domain that takes them); the loss
    reads only the problem's own leaves, so their gradients are zeros.
    """
    if entry.edge_params is not None:
        params = entry.edge_params(jnp.float32)
        return params, entry.grad_fn(), entry.problem[0]
    edges = FREE_EDGES if entry.edges is None else entry.edges
    if not edges:
        return None
    leaves = {f"edge_{k}": None if v is None else jnp.full(v, 0.5, jnp.float32) for k, v in edges.items()}
    base = entry.problem[1](jnp.float32)
    loss = entry.problem[0]
    if _wrapped(entry):
        params = {"main": base, **leaves}
        loss = lambda p, f=loss: f(p["main"])  # noqa: E731
    else:
        params = {**base, **leaves}
    grad = entry.grad(loss) if entry.grad is not None else jax.grad(loss)
    return params, grad, loss


def _scalar_loss(x):
    return 0.5 * jnp.square(x.astype(jnp.float32) - 0.3)


def _mask(params):
    """First leaf of a dict (sorted keys) selected, the others not; a whole non-dict tree."""
    if isinstance(params, dict) and len(params) > 1:
        return {k: i == 0 for i, k in enumerate(sorted(params))}
    return True


def _with_zero_value(extra):
    # a zero gradient for the zeroth-order transforms: a constant objective
    return {k: (lambda p, f=v: 0.0 * f(p)) if k == "value_fn" else v for k, v in extra.items()}


_PROBES: dict[str, tuple] = {}
UNKNOWN = {"an_unknown_keyword": 1.0}


def _probe(entry: Entry):
    """One jitted program running every single-update check of ``entry``; cached.

    Its edge params and their eagerly initialized state are donated (the donation check):
    a state field that shares a buffer with the params, or with another field, fails.
    """
    if entry.id in _PROBES:
        return _PROBES[entry.id]
    na = entry.not_applicable
    opt = entry.build()
    grad = entry.grad_fn()
    params = entry.problem[1](jnp.float32)
    lr = entry.hp[entry.lr]
    sched = None
    if "schedule" not in na:
        sched = entry.factory(**entry.kwargs(dict(entry.hp, **{entry.lr: optax.constant_schedule(lr)})))
    aif = None if "apply_if_finite" in na else optax.apply_if_finite(opt, max_consecutive_errors=2)
    masked = None
    if "masked" not in na:
        masked = optax.masked(opt, _mask(params), mask_compatible_extra_args=True)
    edge = _edge_problem(entry)
    if edge is None:  # no edge leaves: the donation check runs on a copy of the params
        edge = (jax.tree.map(jnp.copy, params), grad, entry.problem[0])
    scalar = "scalar_params" not in na

    def extras(fn, p, g):
        return {} if fn is None else fn(p, p, g)

    def probe(params, state, edge_params, edge_state):
        g = grad(params)
        ex = extras(entry.extra, params, grad)
        out = {}
        out["u"], out["state"] = opt.update(g, state, params, **ex)
        if "unknown_kwargs" not in na:
            out["u_kw"] = opt.update(g, state, params, **ex, **UNKNOWN)[0]
        out["u_wx"] = optax.with_extra_args_support(opt).update(g, state, params, **ex, **UNKNOWN)[0]
        if sched is not None:
            # its own state: optax.sgd with a schedule counts steps where a float does not
            out["u_sched"] = sched.update(g, sched.init(params), params, **ex)[0]
        zeros = jax.tree.map(jnp.zeros_like, g)
        out["u_zero"], out["state_zero"] = opt.update(zeros, state, params, **_with_zero_value(ex))
        if aif is not None:
            s0 = aif.init(params)
            out["u_aif"] = aif.update(g, s0, params, **ex)[0]
            nan = jax.tree.map(lambda x: jnp.full_like(x, jnp.nan), g)
            out["u_aif_nan"], s_nan = aif.update(nan, s0, params, **ex)
            out["aif_notfinite"] = s_nan.notfinite_count
        if masked is not None:
            out["g"] = g
            out["u_masked"] = masked.update(g, masked.init(params), params, **ex)[0]
        e_params, e_grad, e_loss = edge
        out["u_edge"], out["s_edge"] = opt.update(
            e_grad(edge_params),
            edge_state,
            edge_params,
            **extras(entry.extra_for(e_loss), edge_params, e_grad),
        )
        if scalar:
            sp = jnp.asarray(1.5, jnp.float32)
            s_grad = entry.grad(_scalar_loss) if entry.grad is not None else jax.grad(_scalar_loss)
            out["u_scalar"] = opt.update(
                s_grad(sp), opt.init(sp), sp, **extras(entry.extra_for(_scalar_loss), sp, s_grad)
            )[0]
        return out

    e_params = edge[0]
    e_state = opt.init(e_params)  # eager: the state a user's jitted, donating step receives
    res = _jit(probe, donate_argnums=(2, 3))(params, opt.init(params), e_params, e_state)
    _PROBES[entry.id] = (res, params, e_params)
    return _PROBES[entry.id]


def _exactly_equal(a, b, what):
    assert jax.tree.structure(a) == jax.tree.structure(b), what
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=what)


def _finite(tree):
    return all(
        bool(np.all(np.isfinite(np.asarray(x, np.complex128))))
        for x in jax.tree.leaves(tree)
        if jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact)
    )


def _no_nan(tree):
    return not any(
        bool(np.any(np.isnan(np.asarray(x, np.complex128))))
        for x in jax.tree.leaves(tree)
        if jnp.issubdtype(jnp.asarray(x).dtype, jnp.inexact)
    )


def _exempt(entry: Entry, check: str):
    if check in entry.not_applicable:
        pytest.skip(f"{entry.id}: {entry.not_applicable[check]}")


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_unknown_update_kwargs_are_ignored(entry):
    # the same update, once with an extra keyword nothing consumes: the same operations on
    # the same inputs in one program, hence bit-identical
    res = _probe(entry)[0]
    _exactly_equal(res["u_wx"], res["u"], entry.id + " with_extra_args_support")
    _exempt(entry, "unknown_kwargs")
    _exactly_equal(res["u_kw"], res["u"], entry.id)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_a_constant_schedule_gives_the_constant_updates(entry):
    _exempt(entry, "schedule")
    res = _probe(entry)[0]
    # the schedule's value is the same float; optax.sgd with a schedule is another chain
    # (scale_by_schedule instead of scale): a few ulps
    tol = 16 * F32_EPS
    _leaves_close(res["u_sched"], res["u"], tol, tol, entry.id)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_zero_gradients_give_finite_updates_and_state(entry):
    res = _probe(entry)[0]
    assert _finite(res["u_zero"]), entry.id
    assert _no_nan(res["state_zero"]), entry.id  # (a state may hold an infinite p, muadam's)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_apply_if_finite_wraps_it(entry):
    _exempt(entry, "apply_if_finite")
    res = _probe(entry)[0]
    tol = 64 * F32_EPS  # the update inside a lax.cond: another program, a few ulps
    _leaves_close(res["u_aif"], res["u"], tol, tol, entry.id)
    # a non-finite gradient: zero updates (exactly), one rejection counted
    assert all(not np.any(np.asarray(x)) for x in jax.tree.leaves(res["u_aif_nan"])), entry.id
    assert int(res["aif_notfinite"]) == 1


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_masked_wraps_it(entry):
    _exempt(entry, "masked")
    res, params, _ = _probe(entry)
    mask = _mask(params)
    if mask is True:  # the whole tree selected: the plain updates (another program: ulps)
        tol = 64 * F32_EPS
        _leaves_close(res["u_masked"], res["u"], tol, tol, entry.id)
        return
    for k, selected in mask.items():
        u, g = res["u_masked"][k], res["g"][k]
        if selected:
            assert jnp.shape(u) == jnp.shape(g) and _finite(u), (entry.id, k)
        else:  # masked out: the incoming gradient passes through, untouched
            _exactly_equal(u, g, f"{entry.id}[{k}]")


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_none_size0_and_scalar_leaves_and_donation_after_eager_init(entry):
    # the probe's edge run is a jitted update that donates params and an eagerly
    # initialized state: it raises if a state field aliases a params buffer
    res, _, e_params = _probe(entry)
    edges = FREE_EDGES if entry.edges is None else entry.edges
    for kind, check in (("none", "none_leaf"), ("empty", "empty_leaf"), ("scalar", "scalar_leaf")):
        if kind not in edges and entry.edge_params is None:
            assert check in entry.not_applicable or entry.bad, (
                entry.id,
                kind,
                "needs a reason or a bad input",
            )
    u = res["u_edge"]
    assert jax.tree.structure(u, is_leaf=lambda x: x is None) == jax.tree.structure(
        e_params, is_leaf=lambda x: x is None
    ), entry.id
    assert _signature(u) == _signature(e_params), entry.id
    assert _finite(u) and _no_nan(res["s_edge"]), entry.id


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_scalar_params(entry):
    _exempt(entry, "scalar_params")
    u = _probe(entry)[0]["u_scalar"]
    assert u.shape == () and u.dtype == jnp.float32 and _finite(u), entry.id


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_tree_get_reads_the_count(entry):
    _exempt(entry, "count")
    found = optax.tree.get_all_with_path(_probe(entry)[0]["state"], "count")
    assert len(found) == 1, (entry.id, [p for p, _ in found])
    assert int(found[0][1]) == 1, entry.id


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_tree_get_reads_the_injected_hyperparameters(entry):
    params = entry.problem[1](jnp.float32)
    state = entry.injected().init(params)
    direct = {k: v for k, v in entry.kwargs(entry.hp).items() if isinstance(v, float)}
    for name, value in direct.items():
        assert float(optax.tree.get(state, name)) == pytest.approx(value, rel=F32_EPS), (entry.id, name)


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_map_params_identity(entry):
    # optax.tree.map_params calls init on a placeholder tree without leaves
    opt = entry.build()
    state = opt.init(entry.problem[1](jnp.float32))
    mapped = optax.tree.map_params(opt, lambda v: v, state)
    _exactly_equal(mapped, state, entry.id)
    # ...and maps every params-shaped tree of the state (here: to zeros, dtype kept)
    zeroed = optax.tree.map_params(opt, jnp.zeros_like, state)
    assert _signature(zeroed) == _signature(state), entry.id


def _complex_parabola(entry: Entry):
    """``(complex params, real params, loss_c, loss_r)``: 0.5 sum |z - t|^2 and its real twin.

    The real twin stacks the real and imaginary parts on a new axis before the last (the
    worker axis stays first, a class axis last); a transform that takes complex params
    (optax's convention: conjugate gradients) and acts on them linearly or through
    :math:`\\sum_i |z_i|^2` gives on it the same steps.
    """
    shape = (W, 3) if entry.name.startswith("diloco") else (3,)
    z0 = np.broadcast_to(np.asarray([1.0 + 2.0j, -0.5 + 0.0j, 0.3 - 1.0j], np.complex64), shape)
    t = np.asarray([0.2 - 1.0j, 1.5 + 0.5j, -0.7 + 0.3j], np.complex64)
    if entry.name.startswith("diloco"):  # the workers' targets differ
        t = np.stack([t, 0.5 * t])
    t_r = np.stack([t.real, t.imag], axis=-2).astype(np.float32)
    x0 = np.stack([z0.real, z0.imag], axis=-2).astype(np.float32)

    def loss_c(p):
        return 0.5 * jnp.sum(jnp.abs(p["z"] - t) ** 2)

    def loss_r(p):
        return 0.5 * jnp.sum(jnp.square(p["z"] - t_r))

    return {"z": jnp.asarray(z0)}, {"z": jnp.asarray(x0)}, loss_c, loss_r


def _scan_on(opt, grad, extra, params, steps):
    def body(carry, _):
        params, prev, state = carry
        ex = {} if extra is None else extra(params, prev, grad)
        u, state = opt.update(grad(params), state, params, **ex)
        return (optax.apply_updates(params, u), params, state), u

    (final, _, _), updates = jax.lax.scan(body, (params, params, opt.init(params)), None, length=steps)
    return updates, final


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_complex_params_supported_or_refused(entry):
    if not entry.complex_ok:
        params = jax.tree.map(lambda x: jnp.asarray(x, jnp.complex64), entry.problem[1](jnp.float32))
        with pytest.raises(ValueError, match="complex"):
            entry.build().init(params)
        return
    zc, zr, loss_c, loss_r = _complex_parabola(entry)
    conj_grad = lambda p: jax.tree.map(jnp.conj, jax.grad(loss_c)(p))  # noqa: E731
    grad_r = jax.grad(loss_r)
    opt = entry.build()
    if entry.direction:
        opt = optax.chain(opt, optax.scale_by_learning_rate(entry.descent_lr))

    def both(zc, zr):
        return (
            _scan_on(opt, conj_grad, entry.extra_for(loss_c), zc, STEPS),
            _scan_on(opt, grad_r, entry.extra_for(loss_r), zr, STEPS),
        )

    (uc, fc), (ur, fr) = _jit(both)(zc, zr)
    assert float(loss_c(fc)) < float(loss_c(zc)) and _finite(uc), entry.id
    if entry.complex_ok == "adamw":
        # its complex leaves go to optax.adamw, whose second moment is |g|^2 per complex
        # entry (optax's own convention): another step than on the twin's real parts
        return
    as_real = lambda t: jax.tree.map(lambda x: jnp.stack([x.real, x.imag], axis=-2), t)  # noqa: E731
    tol = 64 * STEPS * F32_EPS  # complex and real arithmetic: other programs, a few ulps
    _leaves_close(as_real(uc), ur, tol, tol, entry.id + " updates")
    _leaves_close(as_real(fc), fr, tol, tol, entry.id + " params")


@pytest.mark.parametrize("entry", REGISTRY, ids=IDS)
def test_out_of_domain_params_raise_a_value_error_naming_the_domain(entry):
    opt = entry.build()
    with pytest.raises(ValueError, match="float"):
        opt.init(_ints(entry.problem[1])())
    for make, pattern in entry.bad:
        with pytest.raises(ValueError, match=pattern):
            opt.init(make())


@pytest.mark.parametrize(
    "entry", [e for e in REGISTRY if e.mu_dtype], ids=[e.id for e in REGISTRY if e.mu_dtype]
)
def test_mu_dtype(entry):
    opt = entry.factory(**entry.kwargs(dict(entry.hp)), mu_dtype=jnp.bfloat16)
    params = entry.problem[1](jnp.float32)
    state = opt.init(params)
    mus = [x for p, x in optax.tree.get_all_with_path(state, "mu") if x is not None]
    assert mus and all(leaf.dtype == jnp.bfloat16 for m in mus for leaf in jax.tree.leaves(m)), entry.id
    u, new = _jit(lambda p, s: opt.update(entry.grad_fn()(p), s, p))(params, state)
    assert all(leaf.dtype == jnp.float32 for leaf in jax.tree.leaves(u)), entry.id
    assert _signature(new) == _signature(state), entry.id


@pytest.mark.parametrize("name", sorted({e.name for e in REGISTRY}))
def test_docstring_says_what_params_it_takes(name):
    doc = getattr(jo, name).__doc__
    assert "**Params.**" in doc, f"{name}: no **Params.** paragraph (shapes, domain, dtypes, complex)"
    params = doc[doc.index("**Params.**") :].split("\n\n")[0]
    assert "complex" in params.lower() or "dtype" in params.lower(), name
