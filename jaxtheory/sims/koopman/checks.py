"""Float64 side checks of the exactly affine case (not the sweep's simulator).

The experiment ``koopman-acceleration`` sweeps :mod:`jaxtheory.sims.koopman.moons`; its
linear-exactness claims read the errors of augmented and parameters-only affine DMD on
full-batch heavy ball over random quadratics
(:func:`~jaxtheory.sims.koopman.linear.heavy_ball_dmd_errors`, float64), gathered here.
"""

from __future__ import annotations

import functools

import numpy as np
import xarray as xr

from jaxtheory.sims.koopman.linear import heavy_ball_dmd_errors

__all__ = ["JUMPS", "RANK", "linear", "linear_errors"]

#: Strides predicted ahead.
JUMPS = 10
#: Rank of the augmented fit: 2d + 1 for the default dimension d = 8.
RANK = 17


@functools.cache
def linear(tau: int, window: int, seed: int) -> dict:
    """The three DMD errors of one random quadratic, ``JUMPS`` strides ahead (cached)."""
    return heavy_ball_dmd_errors(tau, window, seed=seed, jumps=JUMPS, rank=RANK)


def linear_errors(key: str, taus: tuple, windows: tuple, seeds: int) -> xr.DataArray:
    """Error ``key`` of :func:`linear` per (tau, window) over quadratics ``0 .. seeds - 1``.

    Returns a (tau, window, instance) array.
    """
    arr = [[[linear(t, w, s)[key] for s in range(seeds)] for w in windows] for t in taus]
    coords = {"tau": list(taus), "window": list(windows)}
    return xr.DataArray(np.array(arr), dims=("tau", "window", "instance"), coords=coords)
