"""jaxtheory.sims.functional.fgd_plateau: the fixed-grid plateau of functional gradient descent."""

import numpy as np
import pytest

from jaxtheory.sims.functional import fgd
from jaxtheory.sims.functional.fgd_plateau import plateau_formula

SPEC = fgd.FGDSpec(max_size=32, epochs=200, eval_size=64)
LR = 0.05


def test_noise_term_ratio():
    total, floor, noise = plateau_formula(16, LR, SPEC)
    assert noise / floor == pytest.approx(LR / (2 - LR) / SPEC.samples, rel=1e-12)  # Σ area·v = 2·floor
    assert total == floor + noise


def test_floor_is_the_projection_error():
    # ½‖f* − P_s f*‖² on the evaluation grid, computed directly; finer grids lower it, and
    # one cell per evaluation point leaves nothing
    q = (np.arange(SPEC.eval_size) + 0.5) / SPEC.eval_size
    f = fgd.f_star_np(q[:, None], q[None, :])
    s, h = 8, SPEC.eval_size // 8
    means = f.reshape(s, h, s, h).mean(axis=(1, 3))
    direct = 0.5 * np.mean((f - np.kron(means, np.ones((h, h)))) ** 2)
    assert plateau_formula(s, LR, SPEC)[1] == pytest.approx(direct, rel=1e-12)
    floors = [plateau_formula(s, LR, SPEC)[1] for s in (4, 8, 16, 32)]
    assert all(a > b for a, b in zip(floors, floors[1:]))
    assert plateau_formula(SPEC.eval_size, LR, SPEC)[1] == 0.0
