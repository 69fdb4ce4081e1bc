"""The stationary loss of functional gradient descent on a fixed grid (numpy, float64).

The experiment ``adaptive-fgd`` sweeps :mod:`jaxtheory.sims.functional.fgd`; on a fixed
s × s grid with ``k``-point cell means its loss settles at the projection floor
½‖f* − P_s f*‖² plus the stationary variance of an AR(1) noise term (the derivation is in
the experiment's description). :func:`plateau_formula` evaluates both on the spec's
midpoint evaluation grid.
"""

from __future__ import annotations

import numpy as np

from jaxtheory.sims.functional import fgd

__all__ = ["plateau_formula"]


def plateau_formula(s, lr, spec):
    """``(total, floor, noise)``: the derived stationary loss of FGD with ``spec.samples``-point
    cell means on a fixed s × s grid, ``½‖f* − P_s f*‖² + ½ · lr/(2 − lr) · Σ area · v_cell / k``
    (float64 on the spec's evaluation grid; ``v_cell`` the within-cell variance of ``f*``).

    Example:
        >>> t, fl, nz = plateau_formula(16, 0.05, fgd.FGDSpec())
        >>> round(fl, 4), round(nz / fl, 4)
        (0.0167, 0.0032)
    """
    q = (np.arange(spec.eval_size) + 0.5) / spec.eval_size
    h = spec.eval_size // s
    v = float(fgd.f_star_np(q[:, None], q[None, :]).reshape(s, h, s, h).var(axis=(1, 3)).mean())
    floor, noise = 0.5 * v, 0.5 * lr / (2 - lr) * v / spec.samples
    return floor + noise, floor, noise
