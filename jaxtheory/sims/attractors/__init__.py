"""Ring and torus attractors from learned Fourier energies (reconstruction of paper 000_11, SEAL).

:mod:`~jaxtheory.sims.attractors.ring` is the rotation-invariant Fourier energy of a ring
of bumps with its tangent field; :mod:`~jaxtheory.sims.attractors.torus` the 3-mode energy
of a torus of grid patterns; :mod:`~jaxtheory.sims.attractors.dynamics` the Euler dynamics
(``optax.sgd(dt/τ)`` plus the tangent drive) and restoring-field matching;
:mod:`~jaxtheory.sims.attractors.seal` the simulator ``run(spec, params, key)``.
"""

from jaxtheory.sims.attractors.dynamics import euler_step, matching_loss, train_energy
from jaxtheory.sims.attractors.ring import (
    bump,
    circulant_kernel,
    init_ring_params,
    ring_distance,
    ring_energy,
    ring_phase,
    ring_point,
    rotate,
    tangent,
)
from jaxtheory.sims.attractors.seal import DEFAULT_PARAMS, METRIC_DIMS, MODELS, SealSpec, coords, run
from jaxtheory.sims.attractors.torus import (
    grid_pattern,
    init_torus_params,
    torus_distance,
    torus_energy,
    torus_phases,
    torus_point,
    torus_tangents,
    torus_translate,
)

__all__ = [
    "DEFAULT_PARAMS",
    "METRIC_DIMS",
    "MODELS",
    "SealSpec",
    "bump",
    "circulant_kernel",
    "coords",
    "euler_step",
    "grid_pattern",
    "init_ring_params",
    "init_torus_params",
    "matching_loss",
    "ring_distance",
    "ring_energy",
    "ring_phase",
    "ring_point",
    "rotate",
    "run",
    "tangent",
    "torus_distance",
    "torus_energy",
    "torus_phases",
    "torus_point",
    "torus_tangents",
    "torus_translate",
    "train_energy",
]
