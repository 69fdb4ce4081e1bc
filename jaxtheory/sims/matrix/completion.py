"""Fixed-rank matrix completion with factored iterates :math:`X = BA` (iMuon, arXiv 2605.09238).

The target :math:`X^\\star = U\\operatorname{diag}(s)V^\\top` has Haar :math:`U, V`
(QR of Gaussians) and singular values :math:`s_i \\propto \\kappa^{-(i-1)/(r-1)}`
normalised to :math:`\\|s\\|_2 = 1`. ``n_obs`` entries are observed uniformly with
replacement, without noise, and the loss is
:math:`f(B, A) = \\frac{1}{2|\\Omega|}\\sum_{(i,j)\\in\\Omega} ((BA)_{ij} - X^\\star_{ij})^2`.
The factors start with i.i.d. :math:`N(0, (mnr)^{-1/2})` entries (so
:math:`\\mathbb E\\|B_0A_0\\|_F^2 = 1`) rescaled by the gauge :math:`B_0 \\to \\alpha B_0`,
:math:`A_0 \\to A_0/\\alpha`.

Every method is one LMO step :math:`(B, A) \\leftarrow (B, A) - \\eta_t(\\xi_B, \\xi_A)` with
:math:`\\eta_t = \\eta/\\sqrt t` (:func:`jaxtheory.optim.fixed_rank_direction`); the step is
halved (up to 12 times) while :math:`\\sigma_{\\min}(B)` or :math:`\\sigma_{\\min}(A)`
would fall to :math:`10^{-8}` or below, as in the authors' code.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.optim._imuon import fixed_rank_direction
from jaxtheory.simulator import Simulator

__all__ = ["CompletionSpec", "DEFAULT_PARAMS", "METHODS", "run", "SIMULATOR"]

#: method name -> (norm, metric) of :func:`jaxtheory.optim.fixed_rank_direction`.
METHODS = {
    "egd": ("frobenius", "euclidean"),
    "rgd": ("frobenius", "balanced"),
    "muon": ("spectral", "euclidean"),
    "imuon": ("spectral", "balanced"),
    "numuon": ("nuclear", "euclidean"),
    "imuon_nu": ("nuclear", "balanced"),
}

#: Default of every parameter ``run`` reads.
#: Default parameters of the completion :func:`run`: condition number, step size, ε
#: (0: the exact balanced metric, gauge invariant to round-off; the authors' 1e-8 is not).
DEFAULT_PARAMS = {"kappa": 10.0, "lr": 0.3, "eps": 0.0}


@dataclasses.dataclass(frozen=True)
class CompletionSpec:
    """Shapes of a completion run.

    Attributes:
        m: rows.
        n: columns.
        r: rank of the target and of the factors.
        obs_factor: observations are ``obs_factor * r * (m + n)``.
        steps: iterations.
        methods: names from :data:`METHODS`, run side by side on the same problem (a
            leading ``method`` axis of every metric).
        gauges: initial gauges :math:`\alpha`, run side by side from the same draw of
            :math:`B_0, A_0` (a second ``gauge`` axis of every metric; common random
            numbers, so runs differ only by the gauge).
        max_halvings: backtracking halvings per step.
    """

    m: int = 200
    n: int = 200
    r: int = 5
    obs_factor: int = 5
    steps: int = 300
    methods: tuple = ("muon", "imuon")
    gauges: tuple = (1.0,)
    max_halvings: int = 12


def _sigma_min(x, left):
    g = x.T @ x if left else x @ x.T
    return jnp.sqrt(jnp.maximum(jnp.linalg.eigvalsh(g)[0], 0.0))


def _rel_error(b, a, u, s, v):
    """||BA - U diag(s) V^T||_F by thin QR of the stacked factors (no m x n matrix)."""
    left = jnp.concatenate([b, -u * s], axis=1)
    right = jnp.concatenate([a.T, v], axis=1)
    rl = jnp.linalg.qr(left, mode="r")
    rr = jnp.linalg.qr(right, mode="r")
    return jnp.linalg.norm(rl @ rr.T)


def run(spec: CompletionSpec, params: dict, key: jax.Array) -> dict:
    """One completion run; pure, jittable, vmappable over ``params`` and ``key``.

    Args:
        spec: :class:`CompletionSpec`.
        params: ``kappa`` (target condition number), ``lr`` (:math:`\\eta`), ``gauge``
            (:math:`\\alpha`), ``eps`` (absolute Gram regulariser of the balanced metric,
            :func:`jaxtheory.optim.fixed_rank_direction`; 0 in :data:`DEFAULT_PARAMS`).
        key: PRNG key (target, observations and initial factors).

    Returns:
        Per method and gauge (leading axes, in ``spec`` order): ``rel_error`` (per step, :math:`\\|BA - X^\\star\\|_F/\\|X^\\star\\|_F`), ``train_mse``
        (per step), ``dual_norm`` (per step, first-order decrease
        :math:`\\langle\\nabla, \\xi\\rangle`), ``final_error``, ``min_sigma`` (smallest
        :math:`\\sigma_{\\min}` of either factor over the run), ``halvings`` (total).

    Example:
        >>> import jax
        >>> spec = CompletionSpec(m=20, n=15, r=2, steps=5)
        >>> out = run(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["rel_error"].shape, bool(out["final_error"].max() < 1.5)
        ((2, 1, 5), True)
    """
    for meth in spec.methods:
        if meth not in METHODS:
            raise ValueError(f"unknown method {meth!r}; use one of {sorted(METHODS)}")
    m, n, r = spec.m, spec.n, spec.r
    dtype = jnp.zeros(()).dtype
    ku, kv, ko, kb, ka = jax.random.split(key, 5)
    u = jnp.linalg.qr(jax.random.normal(ku, (m, r), dtype))[0]
    v = jnp.linalg.qr(jax.random.normal(kv, (n, r), dtype))[0]
    s = jnp.asarray(params["kappa"], dtype) ** (-jnp.arange(r, dtype=dtype) / max(r - 1, 1))
    s = s / jnp.linalg.norm(s)
    n_obs = spec.obs_factor * r * (m + n)
    kr, kc = jax.random.split(ko)
    rows = jax.random.randint(kr, (n_obs,), 0, m)
    cols = jax.random.randint(kc, (n_obs,), 0, n)
    y = jnp.sum(u[rows] * s * v[cols], axis=1)
    std = (m * n * r) ** -0.25
    b_init = std * jax.random.normal(kb, (m, r), dtype)
    a_init = std * jax.random.normal(ka, (r, n), dtype)

    def grads(b, a):
        e = jnp.sum(b[rows] * a[:, cols].T, axis=1) - y
        gb = jax.ops.segment_sum(e[:, None] * a[:, cols].T, rows, m) / n_obs
        ga = jax.ops.segment_sum(e[:, None] * b[rows], cols, n).T / n_obs
        return gb, ga, 0.5 * jnp.mean(e * e)

    def ok(b, a):
        sb, sa = _sigma_min(b, True), _sigma_min(a, False)
        return (sb > 1e-8) & (sa > 1e-8) & jnp.all(jnp.isfinite(b)) & jnp.all(jnp.isfinite(a))

    def one(norm, metric, alpha):
        b0, a0 = alpha * b_init, a_init / alpha

        def step(carry, t):
            b, a, halvings, smin = carry
            gb, ga, mse = grads(b, a)
            d = fixed_rank_direction(gb, ga, b, a, norm, metric=metric, eps=params["eps"])
            eta = params["lr"] / jnp.sqrt(t + 1.0)

            def cond(c):
                k, eta_k = c
                return (k < spec.max_halvings) & ~ok(b - eta_k * d.xi_B, a - eta_k * d.xi_A)

            k, eta = jax.lax.while_loop(cond, lambda c: (c[0] + 1, 0.5 * c[1]), (0, eta))
            b, a = b - eta * d.xi_B, a - eta * d.xi_A
            smin = jnp.minimum(smin, jnp.minimum(_sigma_min(b, True), _sigma_min(a, False)))
            err = _rel_error(b, a, u, s, v)
            return (b, a, halvings + k, smin), (err, mse, d.decrease)

        init = (b0, a0, jnp.int32(0), jnp.asarray(jnp.inf, dtype))
        (_, _, halvings, smin), (err, mse, dual) = jax.lax.scan(step, init, jnp.arange(spec.steps))
        return {
            "rel_error": err,
            "train_mse": mse,
            "dual_norm": dual,
            "final_error": err[-1],
            "min_sigma": smin,
            "halvings": halvings,
        }

    alphas = jnp.asarray(spec.gauges, dtype)
    outs = [jax.vmap(lambda al, nm=METHODS[meth]: one(*nm, al))(alphas) for meth in spec.methods]
    return {k: jnp.stack([o[k] for o in outs]) for k in outs[0]}


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=CompletionSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "rel_error": ("method", "gauge", "step"),
        "train_mse": ("method", "gauge", "step"),
        "dual_norm": ("method", "gauge", "step"),
        "final_error": ("method", "gauge"),
        "min_sigma": ("method", "gauge"),
        "halvings": ("method", "gauge"),
    },
    coords=lambda spec: {
        "method": list(spec.methods),
        "gauge": list(spec.gauges),
        "step": np.arange(1, spec.steps + 1),
    },
)
