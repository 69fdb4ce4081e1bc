"""Koopman acceleration of training (reconstruction of paper 000_07).

:mod:`jaxtheory.sims.koopman.moons` trains a small MLP on two moons with
:func:`~jaxtheory.optim.koopman_accelerate` around Adam, SGD with momentum or Adadelta;
:mod:`jaxtheory.sims.koopman.linear` is the exactly affine case (full-batch heavy ball on a
quadratic), a float64 side computation.
"""

from jaxtheory.sims.koopman.linear import heavy_ball_dmd_errors, heavy_ball_trajectory
from jaxtheory.sims.koopman.moons import (
    DEFAULT_PARAMS,
    VARIANTS,
    OPTIMIZERS,
    SIMULATOR,
    MoonsSpec,
    make_moons,
    run,
)

__all__ = [
    "DEFAULT_PARAMS",
    "VARIANTS",
    "OPTIMIZERS",
    "SIMULATOR",
    "MoonsSpec",
    "heavy_ball_dmd_errors",
    "heavy_ball_trajectory",
    "make_moons",
    "run",
]
