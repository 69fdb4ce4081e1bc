"""jaxtheory.sims.attribution.trak_checks: ALO is exact for ridge least squares, not for other fits."""

import numpy as np

from jaxtheory.sims.attribution import trak_checks as tc


def test_alo_is_exact_for_linear_ridge_in_float64():
    err = tc.linear_ridge_alo_error()
    assert np.isfinite(err) and 0 <= err < 1e-10
    assert tc.linear_ridge_alo_error(seed=3, n=20, p=8, lam=1.0) < 1e-10


def test_ridge_solve_is_the_stationary_point():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((12, 4)), rng.standard_normal(12)
    th = tc.ridge_solve(X, y, 0.5)
    np.testing.assert_allclose(X.T @ (X @ th - y) + 0.5 * th, 0.0, atol=1e-12)
    assert np.abs(tc.ridge_solve(X, y, 0.0) - th).max() > 1e-3  # λ matters: a wrong λ is caught
