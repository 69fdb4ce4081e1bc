"""The authors' deepening bound as a function of depth (not the sweep's simulator).

Side computation of the experiment ``adaptive-fgd-kernel``: the simulator
(:mod:`jaxtheory.sims.functional.kdtree`) deepens while
``mean|l'| · sqrt(2γ/e) · max half-diagonal / max|leaf value|`` is at least
``ε/(1+ε)``. Writing the largest leaf value as ``mass · mean|l'|`` (``mass ≤ 1``, as the
kernel is at most 1) leaves a function of the depth, the kernel width and the mass:
:func:`bound_at_depth`, which shows at which depths the bound can be met at all.
"""

from __future__ import annotations

import math

import numpy as np

from jaxtheory.sims.functional.kdtree import axis_splits

__all__ = ["bound_at_depth"]


def bound_at_depth(depth: int, gamma: float, mass: float) -> float:
    """The authors' bound at ``depth`` if ``max|g| = mass · mean|l'|``: sqrt(2γ/e) · leaf half-diagonal / mass.

    Args:
        depth: the tree's depth (leaves split at the midpoint of their widest side, in turn).
        gamma: the kernel's width, ``k(x, x') = exp(−γ‖x − x'‖²)``.
        mass: ``max|g| / mean|l'|``, at most 1.

    Returns:
        float.

    Example:
        >>> round(bound_at_depth(16, 100.0, 1.0), 3)
        0.201
    """
    half_diag = 0.5 * math.sqrt(float(np.sum(4.0 ** (-np.asarray(axis_splits(depth))))))
    return math.sqrt(2 * gamma / math.e) * half_diag / mass
