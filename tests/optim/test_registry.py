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


def _schatten_extra(keys):
    def extra(params, prev_params, grad):
        acts = {
            k: (
                jnp.asarray(_ACTS[k], params[k].dtype)
                if params[k].ndim == 2
                else jnp.zeros((), params[k].dtype)
            )
            for k in keys
        }
        return {"activations": acts}

    return extra


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
        return (x + y, x - y)

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
        extra=_schatten_extra(MATRICES),
        static_args=("interval", "n_grid"),
        direction=True,
    ),
    Entry(
        "schatten_p",
        lambda h: dict(h, interval=2, n_grid=16),
        {"learning_rate": 0.05, "beta1": 0.9},
        "learning_rate",
        _quadratic(MIXED),
        extra=_schatten_extra(MIXED),
        static_args=("interval", "n_grid", "adam_b1"),
    ),
    Entry(
        "schatten_p",
        lambda h: dict(h, interval=2, n_grid=16, moment="padam"),
        {"learning_rate": 0.05, "beta1": 0.9},
        "learning_rate",
        _quadratic(MIXED),
        extra=_schatten_extra(MIXED),
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

#: Public names of ``jaxtheory.optim`` that are not transform factories, with the reason.
NOT_TRANSFORMS: dict[str, str] = {
    "accept_if_decrease": "sufficient-decrease selection used inside value-function transforms",
    "occupancy_interp": (
        "moves the parameters toward a fixed target whatever the incoming gradient (its update "
        "is eta (theta* - theta)); the recursion and its SMD equivalence are tested in test_irl.py"
    ),
    "averaged_fisher_precondition": (
        "needs a Fisher-matrix function of the parameters (an IRL model), which the registry's "
        "generic problems lack; tested against closed forms in test_irl.py"
    ),
    "AveragedFisherState": "state NamedTuple of a transform",
    "OccupancyInterpState": "state NamedTuple of a transform",
    "gauss_legendre_unit": "quadrature nodes used by averaged_fisher_precondition",
    "line_average": "quadrature helper used by averaged_fisher_precondition",
    "koopman_accelerate": (
        "wrapper of an inner transform with no numeric hyperparameter of its own to sweep; "
        "disabled-equals-inner, chain use and the vmapped lax.cond are tested in test_koopman.py"
    ),
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


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float64"])
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
