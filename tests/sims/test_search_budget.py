"""The budget split of recipe search: first-order and smooth-fit optima, the power-law fit."""

import math

import numpy as np

from jaxtheory.sims.search import budget

BUDGET = dict(A=1.0, alpha=1.0, C=300.0, c_proxy=1.0)


def test_kstar_foc_exact():
    # γ = α = 1: a K^-2 = c A (C - K)^-2, so K / (C - K) = sqrt(a / (c A))
    k = budget.kstar_foc(4.0, 1.0, **BUDGET)
    assert math.isclose(k, 200.0, rel_tol=1e-9)
    # a larger gain from search (a = 9): K / (C - K) = 3
    assert math.isclose(budget.kstar_foc(9.0, 1.0, **BUDGET), 225.0, rel_tol=1e-9)


def test_loglog_fit_recovers_a_power_law_per_curve():
    K = np.array([16.0, 23.0, 32.0, 45.0, 64.0])
    curves = np.stack([2.0 * K**-0.5, 0.5 * K**-1.5])
    b, a = budget.loglog_fit(K, curves)
    np.testing.assert_allclose(b, [-0.5, -1.5], rtol=1e-12)
    np.testing.assert_allclose(np.exp(a), [2.0, 0.5], rtol=1e-12)


def test_kstar_smooth_matches_foc_on_a_power_law_and_moves_with_a_bend():
    K = np.geomspace(16.0, 280.0, 9)
    # an exact power law: the quadratic fit is the law, the integer optimum the rounded FOC
    assert budget.kstar_smooth(K, 4.0 / K, **BUDGET).tolist() == [200.0]
    # one curve per row; a curve rising at large K (bent up) pulls the optimum down
    bent = 4.0 / K * np.exp(0.5 * (np.log(K) - np.log(16.0)) ** 2)
    k = budget.kstar_smooth(K, np.stack([4.0 / K, bent]), **BUDGET)
    assert k.shape == (2,) and k[1] < k[0] - 20
