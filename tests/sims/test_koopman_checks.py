"""jaxtheory.sims.koopman.checks: the affine DMD errors gathered per (tau, window)."""

import numpy as np

from jaxtheory.sims.koopman import checks
from jaxtheory.sims.koopman.linear import heavy_ball_dmd_errors


def test_linear_errors_shape_and_agreement():
    err = checks.linear_errors("state_augmented", (1,), (24,), 2)
    assert err.dims == ("tau", "window", "instance") and err.shape == (1, 1, 2)
    for s in range(2):
        want = heavy_ball_dmd_errors(1, 24, seed=s, jumps=checks.JUMPS, rank=checks.RANK)
        assert float(err.sel(tau=1, window=24)[s]) == want["state_augmented"]
    # the affine case is exact for the augmented fit, not for the parameters-only one
    assert float(err.max()) < 1e-8
    only = checks.linear_errors("params_only", (1,), (24,), 2)
    assert float(np.min(only / checks.linear_errors("params_augmented", (1,), (24,), 2))) > 100
