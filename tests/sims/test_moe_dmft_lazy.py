"""jaxtheory.sims.moe.dmft_lazy: the lazy curve starts at ½·mean(y²), falls, and sees the router."""

import numpy as np

from jaxtheory.sims.moe import dmft
from jaxtheory.sims.moe.dmft_lazy import lazy_curve

SPEC = dmft.MoEDMFTSpec(num_points=8, dim=8, experts=2, activation="tanh")


def test_starts_at_the_targets_loss_and_decreases():
    curve = lazy_curve(SPEC, 0.0, 0.5, 20)
    y = np.asarray(dmft.make_data(SPEC)[1], float)
    assert curve.shape == (21,)
    np.testing.assert_allclose(curve[0], 0.5 * np.mean(y**2), rtol=1e-6)
    assert np.all(np.diff(curve) <= 1e-12) and curve[-1] < 0.9 * curve[0]


def test_the_router_init_and_the_step_change_the_curve():
    base = lazy_curve(SPEC, 0.0, 0.5, 10)
    assert np.abs(lazy_curve(SPEC, 1.0, 0.5, 10) - base).max() > 1e-6  # gates differ
    assert np.abs(lazy_curve(SPEC, 0.0, 0.25, 10) - base).max() > 1e-6
