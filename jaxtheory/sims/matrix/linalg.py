"""Shared linear algebra for the structured-matrix simulators (tensors, low-rank, subspaces, leverages).

One module per piece, re-exported here: Gaussian sensing operators with their adjoints
and tangent-space least squares (:mod:`._linalg_sensing`), restricted-isometry estimates
(:mod:`._linalg_rip`), principal angles between subspaces (:mod:`._linalg_subspace`) and
statistical leverages (:mod:`._linalg_leverage`).
"""

from jaxtheory.sims.matrix import _linalg_leverage, _linalg_rip, _linalg_sensing, _linalg_subspace
from jaxtheory.sims.matrix._linalg_leverage import *  # noqa: F401,F403
from jaxtheory.sims.matrix._linalg_rip import *  # noqa: F401,F403
from jaxtheory.sims.matrix._linalg_sensing import *  # noqa: F401,F403
from jaxtheory.sims.matrix._linalg_subspace import *  # noqa: F401,F403

__all__ = [
    name
    for module in (_linalg_sensing, _linalg_rip, _linalg_subspace, _linalg_leverage)
    for name in module.__all__
]
