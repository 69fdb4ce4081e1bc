"""Float64 side checks of the CV-ZOD estimator and identities (not the sweep's simulator).

The experiment ``cv-zod-hints`` sweeps :mod:`jaxtheory.sims.zeroth_order.hints`; the
estimator's Monte Carlo moments (:func:`moments`) and the two exact identities
(:func:`identities`) are computed here, each function enabling x64 itself. Both are cached:
the experiment's claims read them several times per judgement.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import xarray as xr

from jaxtheory.sims.zeroth_order import hints as zh

__all__ = ["MOMENT_SEED", "identities", "moments"]

#: The moment checks' keys fold the hint quality's index into ``key(MOMENT_SEED)``.
MOMENT_SEED = 19005


@functools.lru_cache(maxsize=4)
def moments(dim: int, seeds: int, draws: int, alphas: tuple) -> xr.Dataset:
    """The estimator's Monte Carlo moments, float64, exact JVPs: (seed, alpha).

    ``z`` is ‖ḡ_N − ∇f‖ over its standard error and ``second_moment`` the mean ‖g‖²/‖∇f‖²,
    per batch of ``draws`` draws (``seeds`` batches) and hint quality α in ``alphas``.
    """
    z = np.empty((seeds, len(alphas)))
    m2 = np.empty_like(z)
    with jax.enable_x64(True):  # one compile: the batches vmapped, α traced
        fn = jax.jit(jax.vmap(lambda a, k: zh.estimator_moments(dim, a, draws, k), in_axes=(None, 0)))
        for j, a in enumerate(alphas):
            out = fn(a, jax.random.split(jax.random.fold_in(jax.random.key(MOMENT_SEED), j), seeds))
            z[:, j], m2[:, j] = np.asarray(out["z"]), np.asarray(out["second_moment"])
    coords = {"alpha": list(alphas)}
    return xr.Dataset({"z": (("seed", "alpha"), z), "second_moment": (("seed", "alpha"), m2)}, coords=coords)


@functools.lru_cache(maxsize=4)
def identities(dim: int, steps: int) -> dict:
    """The two identities' residuals: the α = 1 oracle vs GD (float64), zero reference vs ZO-GD (both).

    Returns ``{"gd": ..., "zo": ...}``; ``zo`` is the larger of the float32 (as the sweep
    runs) and float64 residuals.
    """
    with jax.enable_x64(True):
        r64 = zh.identity_residuals(dim=dim, steps=steps)
    r32 = zh.identity_residuals(dim=dim, steps=steps)  # float32, as the sweep runs
    zo = max(float(r32["zero_reference_vs_zo_gd"]), float(r64["zero_reference_vs_zo_gd"]))
    return {"gd": float(r64["oracle_alpha1_vs_gd"]), "zo": zo}
