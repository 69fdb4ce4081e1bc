"""Subspace learning on Stiefel and Grassmann, covariance estimation on SPD (iMuon, arXiv 2605.09238).

* **Stiefel** ``St(n, p)``: :math:`f(X) = -\\tfrac12\\operatorname{tr}(X^\\top C X)`, the PCA
  objective, with :math:`C = Q\\operatorname{diag}(\\lambda)Q^\\top`, Haar :math:`Q`,
  :math:`\\lambda_i = \\kappa^{-(i-1)/(n-1)}`; :math:`f^\\star = -\\tfrac12\\sum_{i\\le p}\\lambda_i`.
  Polar retraction.
* **Grassmann** (full-rank :math:`Y` modulo GL(p)): the Rayleigh quotient
  :math:`f(Y) = -\\tfrac12\\operatorname{tr}((Y^\\top Y)^{-1}Y^\\top C Y)`, same :math:`f^\\star`.
  Additive retraction from a non-orthonormal start (the horizontal step only adds
  :math:`\\eta^2\\xi^\\top\\xi` to :math:`Y^\\top Y`, so :math:`Y` keeps full rank).
* **SPD** ``n × n``: the Gaussian negative log-likelihood
  :math:`f(X) = \\operatorname{tr}(X^{-1}S) + \\log\\det X`, minimised at :math:`X = S`,
  with :math:`S = Q\\operatorname{diag}(\\kappa^{(i-1)/(n-1)})Q^\\top`, from :math:`X_0 = I`;
  exponential retraction (affine-invariant metric). Error: the Riemannian distance
  :math:`\\|\\log(S^{-1/2}XS^{-1/2})\\|_F`.

Step sizes :math:`\\eta_t = \\eta/\\sqrt t`. Methods: ``rgd`` (Frobenius LMO = normalized
Riemannian GD), ``imuon`` (spectral), ``imuon_nu`` (nuclear), and on Grassmann also
``muon`` (Euclidean Muon on the horizontal gradient).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.optim._imuon import (
    grassmann_direction,
    spd_exp_retraction,
    stiefel_direction,
    stiefel_retraction,
)
from jaxtheory.simulator import Simulator

__all__ = ["ManifoldSpec", "DEFAULT_PARAMS", "METHOD_NORMS", "run", "SIMULATOR"]

#: method name -> norm of the LMO (``'muon'`` is Euclidean Muon on Grassmann).
#: The norm each method's LMO step uses.
METHOD_NORMS = {"rgd": "frobenius", "imuon": "spectral", "imuon_nu": "nuclear", "muon": "spectral"}
#: Default of every parameter ``run`` reads.
#: Default parameters of the manifold :func:`run`.
DEFAULT_PARAMS = {"lr": 0.3, "kappa": 10.0}


@dataclasses.dataclass(frozen=True)
class ManifoldSpec:
    """Shapes of a manifold run.

    Attributes:
        manifold: ``'stiefel'``, ``'grassmann'`` or ``'spd'``.
        n: ambient dimension.
        p: subspace dimension (Stiefel, Grassmann).
        steps: iterations.
        methods: names among ``'rgd'``, ``'imuon'``, ``'imuon_nu'`` and (Grassmann only)
            ``'muon'``, run side by side (a leading ``method`` axis of every metric).
    """

    manifold: str = "stiefel"
    n: int = 20
    p: int = 4
    steps: int = 200
    methods: tuple = ("rgd", "imuon", "imuon_nu")


def _spectrum(n, kappa, dtype):
    return jnp.asarray(kappa, dtype) ** (-jnp.arange(n, dtype=dtype) / max(n - 1, 1))


def run(spec: ManifoldSpec, params: dict, key: jax.Array) -> dict:
    """One run on a matrix manifold; pure, jittable, vmappable.

    Args:
        spec: :class:`ManifoldSpec`.
        params: ``lr`` (:math:`\\eta`) and ``kappa`` (spectrum spread).
        key: PRNG key (eigenvectors, start).

    Returns:
        Per method (leading axis): ``gap`` (per step: :math:`f - f^\\star` for Stiefel/Grassmann, Riemannian distance to
        :math:`S` for SPD), ``final_gap``, and ``feasibility``: the largest
        :math:`\\|X^\\top X - I\\|_F` over the run (Stiefel), the smallest
        :math:`\\lambda_{\\min}(X)` (SPD) or the smallest :math:`\\sigma_{\\min}(Y)` (Grassmann).

    Example:
        >>> import jax
        >>> out = run(ManifoldSpec(n=8, p=2, steps=50), DEFAULT_PARAMS, jax.random.key(0))
        >>> bool(out["final_gap"].max() < 1e-2), bool(out["feasibility"].max() < 1e-5)
        (True, True)
    """
    for meth in spec.methods:
        if meth not in METHOD_NORMS:
            raise ValueError(f"unknown method {meth!r}")
        if meth == "muon" and spec.manifold != "grassmann":
            raise ValueError("method 'muon' is the Grassmann baseline only")
    outs = [_run_one(spec, params, key, meth) for meth in spec.methods]
    return {k: jnp.stack([o[k] for o in outs]) for k in outs[0]}


def _run_one(spec, params, key, method):
    norm = METHOD_NORMS[method]
    n, p = spec.n, spec.p
    dtype = jnp.zeros(()).dtype
    kq, kx = jax.random.split(key)
    q = jnp.linalg.qr(jax.random.normal(kq, (n, n), dtype))[0]
    eta = lambda t: params["lr"] / jnp.sqrt(t + 1.0)

    if spec.manifold in ("stiefel", "grassmann"):
        lam = _spectrum(n, params["kappa"], dtype)
        c = (q * lam) @ q.T
        fstar = -0.5 * jnp.sum(lam[:p])
        if spec.manifold == "stiefel":
            f = lambda x: -0.5 * jnp.trace(x.T @ c @ x)
            x0 = jnp.linalg.qr(jax.random.normal(kx, (n, p), dtype))[0]

            def update(x, t):
                xi = stiefel_direction(jax.grad(f)(x), x, norm)
                return stiefel_retraction(x - eta(t) * xi, "polar")

            feas = lambda x: jnp.linalg.norm(x.T @ x - jnp.eye(p, dtype=dtype))
            worst = jnp.maximum
            feas0 = jnp.asarray(0.0, dtype)
        else:
            f = lambda y: -0.5 * jnp.trace(jnp.linalg.solve(y.T @ y, y.T @ c @ y))
            x0 = jax.random.normal(kx, (n, p), dtype) / jnp.sqrt(n)
            metric = "euclidean" if method == "muon" else "balanced"

            def update(y, t):
                return y - eta(t) * grassmann_direction(jax.grad(f)(y), y, norm, metric=metric)

            feas = lambda y: jnp.sqrt(jnp.maximum(jnp.linalg.eigvalsh(y.T @ y)[0], 0.0))
            worst = jnp.minimum
            feas0 = jnp.asarray(jnp.inf, dtype)
        gap = lambda x: f(x) - fstar
    elif spec.manifold == "spd":
        lam = jnp.asarray(params["kappa"], dtype) ** (jnp.arange(n, dtype=dtype) / max(n - 1, 1))
        s = (q * lam) @ q.T
        s_isqrt = (q * lam**-0.5) @ q.T
        f = lambda x: jnp.trace(jnp.linalg.solve(x, s)) + jnp.linalg.slogdet(x)[1]
        x0 = jnp.eye(n, dtype=dtype)

        def update(x, t):
            return spd_exp_retraction(jax.grad(f)(x), x, eta(t), norm)

        def gap(x):
            w = jnp.linalg.eigvalsh(s_isqrt @ x @ s_isqrt)
            return jnp.sqrt(jnp.sum(jnp.log(jnp.maximum(w, 1e-30)) ** 2))

        feas = lambda x: jnp.linalg.eigvalsh(x)[0]
        worst = jnp.minimum
        feas0 = jnp.asarray(jnp.inf, dtype)
    else:
        raise ValueError(f"unknown manifold {spec.manifold!r}")

    def step(carry, t):
        x, fe = carry
        x = update(x, t)
        return (x, worst(fe, feas(x))), gap(x)

    (x, fe), gaps = jax.lax.scan(step, (x0, feas0), jnp.arange(spec.steps))
    return {"gap": gaps, "final_gap": gaps[-1], "feasibility": fe}


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=ManifoldSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={"gap": ("method", "step"), "final_gap": ("method",), "feasibility": ("method",)},
    coords=lambda spec: {"method": list(spec.methods), "step": np.arange(1, spec.steps + 1)},
)
