"""Host-side analysis: exact Clopper-Pearson intervals, summaries that keep censored
episodes apart, and the reference values of the experiment's claims.

Clopper-Pearson is checked against scipy's independent ``binomtest(...).proportion_ci``
and against its closed forms at k = 0 and k = n; the lower bound and the IW variances
against the values their closed forms give (253 for K = 4, Δ = 0.5, σ = c = 1,
δ = 0.05; 8.75, 16.75 and 12.75 for the three environments of the variance law);
ISM-theory's predicted stopping time against the threshold it inverts.
"""

import math

import numpy as np
import pytest
import scipy.stats

from jaxtheory.sims.bandits import (
    clopper_pearson,
    ism_theory_predicted_tau,
    ism_theory_threshold,
    iw_variance,
    lower_bound_time,
    summarize,
)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (17, 2000), (0, 2000), (1, 1)])
def test_clopper_pearson_matches_scipy_binomtest(k, n):
    lo, hi = clopper_pearson(k, n)
    ci = scipy.stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    np.testing.assert_allclose([float(lo), float(hi)], [ci.low, ci.high], rtol=1e-9, atol=1e-12)


def test_clopper_pearson_closed_forms_and_vectorised():
    n = np.array([5, 50, 500])
    lo, hi = clopper_pearson(np.zeros(3), n)
    np.testing.assert_allclose(hi, 1 - 0.025 ** (1 / n), rtol=1e-10)
    np.testing.assert_array_equal(lo, 0.0)
    lo, hi = clopper_pearson(n, n)
    np.testing.assert_allclose(lo, 0.025 ** (1 / n), rtol=1e-10)
    np.testing.assert_array_equal(hi, 1.0)
    lo, hi = clopper_pearson(0, 0)
    assert np.isnan(lo) and np.isnan(hi)


def test_summarize_keeps_censored_apart():
    out = {
        "tau": np.array([10, 30, 500, 500, 20]),
        "stopped": np.array([True, True, False, False, True]),
        "censored": np.array([False, False, True, True, False]),
        "error": np.array([False, True, False, False, False]),
    }
    s = summarize(out)
    assert (s["n"], s["n_stopped"], s["n_censored"], s["errors"]) == (5, 3, 2, 1)
    assert s["error_rate"] == 0.2 and s["censored_rate"] == 0.4
    assert s["tau_mean"] == 20.0 and s["tau_mean_lower"] == 212.0
    # an error flag on a censored episode (impossible from the simulator) is not counted
    out["error"] = np.array([False, False, True, False, False])
    assert summarize(out)["errors"] == 0


def test_reference_values_of_the_closed_forms():
    assert round(lower_bound_time(0.5, 4, 1.0, 1.0, 0.05)) == 253
    assert iw_variance(0.5, 0.0, 4, 1.0, [0.0]) == 8.75
    assert iw_variance(0.5, 0.0, 4, 1.0, [-1.0, 1.0]) == 16.75
    assert iw_variance(0.5, 0.0, 4, 1.0, [-1.0]) == 12.75


def test_ism_theory_prediction_inverts_the_threshold():
    gap, K, sigma, U, delta = 0.5, 4, 1.0, 1.5, 0.05
    t = ism_theory_predicted_tau(gap, K, sigma, U, delta)
    beta = float(ism_theory_threshold(t, 2 * t / K, delta, K, U, sigma))
    np.testing.assert_allclose(t * gap, beta, rtol=1e-4)
    # leading order: (2 sqrt(K) (U + sigma))^2 L / gap^2 within the lower-order term
    L = math.log(math.pi**2 * K**2 * t**3 / (3 * delta))
    lead = (2 * math.sqrt(K) * (U + sigma)) ** 2 * L / gap**2
    assert lead < t < 1.5 * lead
