"""Generalization of error feedback on convex logistic regression (EF-SGD and DiLoCo-EF).

Two simulations share one pure ``run(spec, params, key)``:

**EF-SGD, coupled runs** (:func:`run_ef`). A training set :math:`S` of :math:`n` samples
(synthetic Gaussian logistic model, or scikit-learn's breast-cancer data split at
random), one-sample SGD with replacement, step :math:`\\eta=c/\\sqrt T`, last iterate
:math:`w_T`. Methods: plain SGD and EF14 (:func:`jaxtheory.optim.error_feedback`) with
top-k, random-k and scaled QSGD compressors of matched contraction :math:`\\alpha`. For
:math:`P` random indices :math:`i` the same run is repeated on the neighbouring set
:math:`S^{(i)}` (sample :math:`i` replaced by a fresh draw) with **common random
numbers**: the same index sequence :math:`i_t` and the same compressor keys. Every
(method, horizon, neighbour) trajectory is one lane of a ``vmap`` inside one
``lax.scan``, so all methods see identical data. Metrics per (method, horizon):

.. math::
    \\mathrm{gap} = F_{\\text{test}}(w_T) - F_S(w_T), \\qquad
    \\varepsilon^2 = \\frac1P\\sum_{j=1}^P \\|w_T(S^{(i_j)}) - w_T(S)\\|^2
    \\;\\approx\\; \\mathbb E_i\\|A(S^{(i)}) - A(S)\\|^2 ,

the generalization gap and the :math:`\\ell_2` on-average model stability (Lei & Ying
2020).

**DiLoCo-EF** (:func:`run_diloco`). :math:`M` workers, :math:`H` local SGD steps of
size :math:`\\eta_l = c_l/(H\\sqrt T)` on fresh samples from the synthetic population,
:math:`T` rounds, averaging outer step; the pseudo-gradients are either sent exactly
(``diloco``) or top-k compressed with per-worker error feedback (``diloco_ef``,
:func:`jaxtheory.optim.diloco_ef`). The metric is the excess risk
:math:`F(w) - F(w^\\star)` on a large test set, where :math:`w^\\star` is the true
parameter (the population minimizer of a well-specified logistic model). Fresh samples
put every run before the sample-size floor (:math:`N = MHT \\ll n`).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim import (
    diloco,
    diloco_ef,
    error_feedback,
    matched_k,
    qsgd,
    rand_k,
    slow_params,
    top_k,
)
from jaxtheory.simulator import Simulator

__all__ = [
    "EFGenSpec",
    "DEFAULT_PARAMS",
    "EF_METHODS",
    "DILOCO_METHODS",
    "diloco_configs",
    "matched_compressors",
    "logistic_loss",
    "load_breast_cancer",
    "make_data",
    "run_ef",
    "run_diloco",
    "run",
]

#: Methods of the EF-SGD part, in the order of the ``method`` dimension.
EF_METHODS = ("sgd", "top_k", "rand_k", "qsgd")
#: Methods of the DiLoCo part, in the order of the ``dl_method`` dimension.
DILOCO_METHODS = ("diloco", "diloco_ef")

#: Defaults of every parameter ``run`` reads (all may be swept).
DEFAULT_PARAMS = {
    "lr_scale": 0.5,  # EF-SGD step eta = lr_scale / sqrt(T)
    "signal": 3.0,  # ||w*|| of the synthetic model (w* = signal * N(0, I/d))
    "diloco_lr_scale": 1.0,  # inner step eta_l = diloco_lr_scale / (H sqrt(T))
    "outer_lr": 1.0,  # DiLoCo outer SGD step (1 = averaging)
}


@dataclasses.dataclass(frozen=True)
class EFGenSpec:
    """Shapes of an ``ef-generalization`` run (the compile key).

    Attributes:
        dataset: ``"synthetic"`` (Gaussian logistic model) or ``"breast_cancer"``
            (scikit-learn's copy, standardized, with a constant feature: d = 31).
        d: dimension of the synthetic model (EF part when synthetic; DiLoCo part always).
        n: training-set size.
        n_test: synthetic test-set size (breast cancer: the 569 - n held-out rows).
        horizons: EF-SGD horizons :math:`T` (steps), each run with :math:`\\eta=c/\\sqrt T`.
        levels: QSGD levels :math:`s`; top-k and random-k use ``k = matched_k`` of the
            scaled QSGD's :math:`\\alpha=1/(1+\\min(d/s^2,\\sqrt d/s))`.
        num_pairs: number :math:`P` of neighbouring datasets :math:`S^{(i)}` per run.
        diloco_workers: worker counts :math:`M` of the DiLoCo part.
        diloco_local_steps: local step counts :math:`H`.
        diloco_rounds: round counts :math:`T`.
        diloco_n_test: test-set size for the DiLoCo excess risk.
    """

    dataset: str = "synthetic"
    d: int = 50
    n: int = 500
    n_test: int = 5000
    horizons: tuple[int, ...] = (500, 1000, 2000)
    levels: int = 1
    num_pairs: int = 16
    diloco_workers: tuple[int, ...] = (1, 4)
    diloco_local_steps: tuple[int, ...] = (1, 4)
    diloco_rounds: tuple[int, ...] = (16, 64, 256)
    diloco_n_test: int = 20000


def diloco_configs(spec: EFGenSpec) -> list[tuple[int, int]]:
    """The (M, H) pairs of the DiLoCo part, in the order of the ``dl_config`` dimension.

    Example:
        >>> diloco_configs(EFGenSpec(diloco_workers=(1, 2), diloco_local_steps=(3,)))
        [(1, 3), (2, 3)]
    """
    return list(itertools.product(spec.diloco_workers, spec.diloco_local_steps))


def matched_compressors(d: int, levels: int):
    """Top-k, random-k and scaled QSGD at matched contraction for dimension ``d``.

    Returns:
        ``(compressors, alphas)``: a dict ``{name: Compressor}`` over
        ``EF_METHODS[1:]`` and a dict of their documented :math:`\\alpha`.

    Example:
        >>> comps, alphas = matched_compressors(50, 1)
        >>> {k: round(v, 3) for k, v in alphas.items()}
        {'top_k': 0.12, 'rand_k': 0.12, 'qsgd': 0.124}
    """
    q = qsgd(levels)
    k = matched_k(q.alpha(d), d)
    comps = {"top_k": top_k(k), "rand_k": rand_k(k), "qsgd": q}
    return comps, {name: c.alpha(d) for name, c in comps.items()}


def logistic_loss(w, x, y):
    """Mean logistic loss :math:`\\frac1m\\sum_i \\log(1+e^{-y_i x_i^\\top w})`, labels in ±1.

    Example:
        >>> import jax.numpy as jnp
        >>> round(float(logistic_loss(jnp.zeros(2), jnp.ones((3, 2)), jnp.ones(3))), 4)
        0.6931
    """
    return jnp.mean(jax.nn.softplus(-y * (x @ w)))


def _sample_grad(w, x, y):
    """Gradient of softplus(-y x.w) in w."""
    return -y * jax.nn.sigmoid(-y * jnp.dot(x, w)) * x


@functools.lru_cache(maxsize=1)
def load_breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's breast-cancer data (569 x 30, shipped with the package, no download).

    Returns:
        ``(X, y)``: standardized features with a constant column appended (569 x 31,
        float32) and labels in ±1.
    """
    from sklearn.datasets import load_breast_cancer as _load

    data = _load()
    x = data.data.astype(np.float64)
    x = (x - x.mean(0)) / x.std(0)
    x = np.concatenate([x, np.ones((x.shape[0], 1))], axis=1)
    y = 2.0 * data.target.astype(np.float64) - 1.0
    return x.astype(np.float32), y.astype(np.float32)


class _Bulk:
    """Hands out slices of ONE uniform draw (as uniforms or, via ``ndtri``, normals).

    Every ``jax.random`` call site costs about a second of XLA compile time on CPU, so
    each part of a run draws all its randomness at once and carves it up here.
    """

    def __init__(self, key, size):
        tiny = float(np.finfo(np.float32).tiny)
        self.u = jax.random.uniform(key, (size,), minval=tiny, maxval=1.0)
        self.pos = 0

    def uniform(self, shape):
        m = int(np.prod(shape))
        out = self.u[self.pos : self.pos + m].reshape(shape)
        self.pos += m
        return out

    def normal(self, shape):
        return jax.scipy.special.ndtri(self.uniform(shape))


def _synthetic(bulk, m, w_star):
    x = bulk.normal((m, w_star.shape[0]))
    y = jnp.where(bulk.uniform((m,)) < jax.nn.sigmoid(x @ w_star), 1.0, -1.0)
    return x, y


def _ef_draws(spec: EFGenSpec) -> int:
    d, P, t_max = spec.d, spec.num_pairs, max(spec.horizons)
    n_data = (1 + spec.n + spec.n_test + P) * (d + 1) if spec.dataset == "synthetic" else 600
    return n_data + t_max + spec.n


def _ef_data(spec: EFGenSpec, params: dict, bulk: _Bulk):
    P = spec.num_pairs
    if spec.dataset == "synthetic":
        w_star = params["signal"] * bulk.normal((spec.d,)) / jnp.sqrt(spec.d)
        x, y = _synthetic(bulk, spec.n, w_star)
        xt, yt = _synthetic(bulk, spec.n_test, w_star)
        xr, yr = _synthetic(bulk, P, w_star)
        return x, y, xt, yt, xr, yr
    if spec.dataset == "breast_cancer":
        xa, ya = load_breast_cancer()
        if not (0 < spec.n and P <= xa.shape[0] - spec.n):
            raise ValueError(f"need 0 < n <= {xa.shape[0]} - num_pairs for breast_cancer")
        perm = jnp.argsort(bulk.uniform((xa.shape[0],)))
        xa, ya = jnp.asarray(xa)[perm], jnp.asarray(ya)[perm]
        x, y, xt, yt = xa[: spec.n], ya[: spec.n], xa[spec.n :], ya[spec.n :]
        return x, y, xt, yt, xt[:P], yt[:P]
    raise ValueError(f"unknown dataset {spec.dataset!r}")


def make_data(spec: EFGenSpec, params: dict, key: jax.Array):
    """The EF part's data for a key: train set, test set and replacement draws.

    Synthetic: :math:`w^\\star=\\text{signal}\\cdot N(0,I_d/d)`, :math:`x\\sim N(0,I_d)`,
    :math:`P(y=1\\mid x)=\\sigma(x^\\top w^\\star)`, :math:`y\\in\\{\\pm1\\}`. Breast cancer:
    a random split of the 569 rows into ``n`` training and ``569 - n`` held-out rows.

    Returns:
        ``(x, y, x_test, y_test, x_rep, y_rep)``; ``x_rep, y_rep`` hold ``num_pairs``
        independent draws from the population (synthetic) or held-out rows (breast
        cancer): the replaced samples :math:`z_i'`. Same values as :func:`run_ef` uses.

    Example:
        >>> import jax
        >>> x, y, xt, yt, xr, yr = make_data(EFGenSpec(d=3, n=5, n_test=7, num_pairs=2),
        ...                                  DEFAULT_PARAMS, jax.random.PRNGKey(0))
        >>> x.shape, xt.shape, xr.shape, sorted(set(y.tolist()) | {-1.0, 1.0})
        ((5, 3), (7, 3), (2, 3), [-1.0, 1.0])
    """
    _, kdata = jax.random.split(key)
    return _ef_data(spec, params, _Bulk(kdata, _ef_draws(spec)))


def run_ef(spec: EFGenSpec, params: dict, key: jax.Array) -> dict:
    """EF-SGD vs SGD with coupled neighbouring-dataset runs; see the module docstring.

    Args:
        spec: :class:`EFGenSpec`.
        params: ``lr_scale`` (and ``signal`` for synthetic data).
        key: the lane's PRNG key (data, index sequence, compressor randomness).

    Returns:
        ``train_loss``, ``test_loss``, ``gap`` and ``stability``, each of shape
        ``(len(EF_METHODS), len(spec.horizons))``.
    """
    kcomp, kdata = jax.random.split(key)
    bulk = _Bulk(kdata, _ef_draws(spec))
    x, y, xt, yt, xr, yr = _ef_data(spec, params, bulk)
    n, d = x.shape
    P = spec.num_pairs
    comps, _ = matched_compressors(d, spec.levels)
    t_max = max(spec.horizons)
    idx = jnp.minimum((bulk.uniform((t_max,)) * n).astype(jnp.int32), n - 1)  # i_t ~ U{0..n-1}
    pairs = jnp.argsort(bulk.uniform((n,)))[:P]  # P distinct replaced indices

    def trajectory(horizon, j, x_new, y_new):
        """All methods on S^(j) (j = -1: on S) for one horizon; common random numbers."""
        eta = params["lr_scale"] / jnp.sqrt(horizon.astype(jnp.float32))
        opts = [optax.sgd(eta)] + [
            error_feedback(optax.sgd(eta), comps[m], key=kcomp) for m in EF_METHODS[1:]
        ]
        w0 = jnp.zeros(d, x.dtype)

        def step(carry, t):
            i = idx[t]
            xi = jnp.where(i == j, x_new, x[i])
            yi = jnp.where(i == j, y_new, y[i])
            live = t < horizon
            new = []
            for opt, (w, s) in zip(opts, carry):
                upd, s_new = opt.update(_sample_grad(w, xi, yi), s, w)
                w_new = optax.apply_updates(w, upd)
                new.append(jax.tree.map(lambda a, b: jnp.where(live, a, b), (w_new, s_new), (w, s)))
            return tuple(new), None

        carry0 = tuple((w0, opt.init(w0)) for opt in opts)
        carry, _ = jax.lax.scan(step, carry0, jnp.arange(t_max))
        return jnp.stack([w for w, _ in carry])  # (methods, d)

    # lanes: horizon x (base run, P neighbours); j = -1 is the base run on S
    js = jnp.concatenate([jnp.array([-1]), pairs])
    x_news = jnp.concatenate([jnp.zeros((1, d), x.dtype), xr])
    y_news = jnp.concatenate([jnp.zeros((1,), y.dtype), yr])
    per_pair = jax.vmap(trajectory, in_axes=(None, 0, 0, 0))
    ws = jax.vmap(per_pair, in_axes=(0, None, None, None))(
        jnp.asarray(spec.horizons), js, x_news, y_news
    )  # (horizons, 1 + P, methods, d)
    ws = jnp.transpose(ws, (2, 0, 1, 3))  # (methods, horizons, 1 + P, d)
    w_base = ws[:, :, 0]
    train = jax.vmap(jax.vmap(lambda w: logistic_loss(w, x, y)))(w_base)
    test = jax.vmap(jax.vmap(lambda w: logistic_loss(w, xt, yt)))(w_base)
    stab = jnp.mean(jnp.sum((ws[:, :, 1:] - w_base[:, :, None]) ** 2, -1), -1)
    return {"train_loss": train, "test_loss": test, "gap": test - train, "stability": stab}


def run_diloco(spec: EFGenSpec, params: dict, key: jax.Array) -> dict:
    """DiLoCo and DiLoCo-EF excess risk on streaming synthetic data; see the module docstring.

    Every (M, H, T) run and both methods consume the same sample stream (worker m's
    sample at inner step t is the same in every run that reaches it).

    Args:
        spec: :class:`EFGenSpec` (``d``, ``levels``, ``diloco_*`` fields).
        params: ``diloco_lr_scale``, ``outer_lr``, ``signal``.
        key: the lane's PRNG key.

    Returns:
        ``dl_excess`` of shape ``(len(DILOCO_METHODS), len(diloco_configs(spec)),
        len(spec.diloco_rounds))``.
    """
    d = spec.d
    kcomp, kdata = jax.random.split(key)
    configs = diloco_configs(spec)
    r_max = max(spec.diloco_rounds)
    n_stream = max(M * H * r_max for M, H in configs)
    bulk = _Bulk(kdata, (1 + spec.diloco_n_test + n_stream) * (d + 1))
    w_star = params["signal"] * bulk.normal((d,)) / jnp.sqrt(d)
    xt, yt = _synthetic(bulk, spec.diloco_n_test, w_star)
    xs, ys = _synthetic(bulk, n_stream, w_star)
    f_star = logistic_loss(w_star, xt, yt)
    comps, _ = matched_compressors(d, spec.levels)
    rounds = jnp.asarray(spec.diloco_rounds)

    out = []
    for M, H in configs:
        steps = H * r_max
        stream = (xs[: steps * M].reshape(steps, M, d), ys[: steps * M].reshape(steps, M))

        def trajectory(T, M=M, H=H, steps=steps, stream=stream):
            eta = params["diloco_lr_scale"] / (H * jnp.sqrt(T.astype(jnp.float32)))
            outer = optax.sgd(params["outer_lr"])
            opts = [
                diloco(optax.sgd(eta), outer, H, M),
                diloco_ef(optax.sgd(eta), outer, H, M, comps["top_k"], key=kcomp),
            ]
            w0 = jnp.zeros((M, d))

            def step(carry, inp):
                t, xb, yb = inp
                live = t < H * T
                new = []
                for opt, (w, s) in zip(opts, carry):
                    g = jax.vmap(_sample_grad)(w, xb, yb)
                    upd, s_new = opt.update(g, s, w)
                    w_new = optax.apply_updates(w, upd)
                    new.append(jax.tree.map(lambda a, b: jnp.where(live, a, b), (w_new, s_new), (w, s)))
                return tuple(new), None

            carry0 = tuple((w0, opt.init(w0)) for opt in opts)
            carry, _ = jax.lax.scan(step, carry0, (jnp.arange(steps),) + stream)
            return jnp.stack([logistic_loss(slow_params(s), xt, yt) for _, s in carry]) - f_star

        out.append(jax.vmap(trajectory)(rounds).T)  # (methods, rounds)
    return {"dl_excess": jnp.stack(out, axis=1)}


def run(spec: EFGenSpec, params: dict, key: jax.Array) -> dict:
    """One lane of ``ef-generalization``: :func:`run_ef` and :func:`run_diloco`.

    Pure, jittable and vmappable; never raises on divergence (non-finite losses are
    returned as such).

    Args:
        spec: :class:`EFGenSpec`.
        params: :data:`DEFAULT_PARAMS` keys (JAX scalars).
        key: the lane's PRNG key.

    Returns:
        The union of both runs' metric dicts.

    Example:
        >>> import jax
        >>> spec = EFGenSpec(d=8, n=32, n_test=64, horizons=(8, 16), num_pairs=2,
        ...                  diloco_workers=(2,), diloco_local_steps=(2,),
        ...                  diloco_rounds=(2, 4), diloco_n_test=64)
        >>> out = jax.jit(run, static_argnums=0)(spec, DEFAULT_PARAMS, jax.random.PRNGKey(0))
        >>> {k: v.shape for k, v in sorted(out.items())}
        {'dl_excess': (2, 1, 2), 'gap': (4, 2), 'stability': (4, 2), 'test_loss': (4, 2), 'train_loss': (4, 2)}
    """
    k_ef, k_dl = jax.random.split(key)
    return {**run_ef(spec, params, k_ef), **run_diloco(spec, params, k_dl)}


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=EFGenSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "train_loss": ("method", "horizon"),
        "test_loss": ("method", "horizon"),
        "gap": ("method", "horizon"),
        "stability": ("method", "horizon"),
        "dl_excess": ("dl_method", "dl_config", "rounds"),
    },
    coords=lambda spec: {
        "method": list(EF_METHODS),
        "horizon": list(spec.horizons),
        "dl_method": list(DILOCO_METHODS),
        "dl_config": [f"M{M}H{H}" for M, H in diloco_configs(spec)],
        "rounds": list(spec.diloco_rounds),
    },
)
