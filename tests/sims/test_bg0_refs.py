"""jaxtheory.sims.stochastic_opt.bg0_refs: E‖z‖ and the carried-error plateau of STORM."""

import math

import numpy as np
import pytest

from jaxtheory.sims.stochastic_opt import bg0_refs


@pytest.mark.parametrize("dim", [1, 3, 10])
def test_mean_norm_matches_monte_carlo(dim):
    z = np.random.default_rng(dim).standard_normal((400_000, dim)) / math.sqrt(dim)
    assert bg0_refs.mean_norm(dim) == pytest.approx(np.linalg.norm(z, axis=1).mean(), rel=3e-3)


def test_storm_plateau_is_the_carried_initial_error():
    # e_t = (1 − a) e_{t−1} with a = 1/T (the σ1 = 0 correction cancels the fresh noise's drift):
    # after T − 1 steps E‖e‖ = (1 − 1/T)^(T−1) σ0 E‖z‖
    T, sigma0, dim = 50, 2.0, 10
    e = sigma0 * np.random.default_rng(0).standard_normal((200_000, dim)) / math.sqrt(dim)
    for _ in range(T - 1):
        e = (1 - 1 / T) * e
    measured = np.linalg.norm(e, axis=1).mean()
    assert bg0_refs.storm_plateau(sigma0, dim, T) == pytest.approx(measured, rel=3e-3)
    assert bg0_refs.storm_plateau(sigma0, dim, 10**6) == pytest.approx(
        math.exp(-1) * sigma0 * bg0_refs.mean_norm(dim), rel=1e-5
    )
