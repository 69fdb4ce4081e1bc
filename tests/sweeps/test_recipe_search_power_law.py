"""recipe-search-power-law: each claim's check on made-up pass/fail data, and the smoke preset (slow)."""

import math

import matplotlib
import matplotlib.figure
import numpy as np
import pytest
import xarray as xr

from jaxtheory import plots
from jaxtheory.registry import get_experiment
from jaxtheory.sims import search

matplotlib.use("Agg")

EXP = get_experiment("recipe-search-power-law")
CLAIMS = {c.name: c for c in EXP.claims}
K = search.checkpoints(1024).astype(float)
DIMS = [2, 4, 8]
SIGMAS = [0.0, 0.01, 0.05]


def _ds(curve, oracle=None, seeds=64, jitter=0.02, dims=DIMS, sigmas=SIGMAS):
    """A results-like Dataset: gap = curve(d, σ) × (1 + jitter·N(0,1)), per seed (the
    parameters not swept as scalar coordinates, as the engine writes them)."""
    rng = np.random.default_rng(0)
    shape = (len(dims), len(sigmas), seeds, len(K))
    gap = np.empty(shape)
    orc = np.empty(shape)
    for i, d in enumerate(dims):
        for j, s in enumerate(sigmas):
            noise = 1.0 + jitter * rng.standard_normal((seeds, len(K)))
            gap[i, j] = curve(d, s) * noise
            orc[i, j] = (curve(d, 0.0) if oracle is None else oracle(d, s)) * noise
    dims_ = ("dim", "sigma", "seed", "K")
    coords = {
        "dim": dims,
        "sigma": sigmas,
        "K": K,
        **{k: search.DEFAULT_PARAMS[k] for k in ("h_lo", "h_hi", "center")},
    }
    return xr.Dataset(
        {"gap": (dims_, gap), "oracle_gap": (dims_, orc), "observed": (dims_, gap)}, coords=coords
    )


def _formula(d, s=0.0):
    return search.expected_best_gap(K, d, search.sublevel_constant(np.ones(d)))


def _verdict(name, ds):
    r = CLAIMS[name].evaluate(ds, None)
    assert r.error is None, r.error  # a broken measurement also fails: rule it out
    return r.verdict


def test_closed_form_claim():
    assert _verdict("closed-form-mean-gap", _ds(lambda d, s: _formula(d))) == "pass"
    assert _verdict("closed-form-mean-gap", _ds(lambda d, s: 1.1 * _formula(d))) == "fail"


def test_slope_claim():
    assert _verdict("slope-minus-two-over-d", _ds(lambda d, s: _formula(d))) == "pass"
    # the rate −1.3·(2/d) lies 30 % off
    assert _verdict("slope-minus-two-over-d", _ds(lambda d, s: K ** (-2.6 / d))) == "fail"


def test_noisy_exact_claim():
    exact = {
        (d, s): search.expected_selected_gap(K, d, search.sublevel_constant(np.ones(d)), s)
        for d in DIMS
        for s in SIGMAS
    }
    assert _verdict("noisy-mean-gap-exact", _ds(lambda d, s: exact[d, s])) == "pass"
    assert _verdict("noisy-mean-gap-exact", _ds(lambda d, s: 1.1 * exact[d, s])) == "fail"


def _departing(ratio, k_sat):
    """Curves whose gap/oracle reaches 1.25 at k_sat[σ] with oracle(k_sat) = ratio·σ√(2 ln k_sat)."""

    def oracle(d, s):
        if s == 0:
            return 1.0 / K
        return ratio * s * math.sqrt(2 * math.log(k_sat[s])) * k_sat[s] / K

    def gap(d, s):
        return oracle(d, s) * (1.0 if s == 0 else 1.0 + 0.25 * K / k_sat[s])

    return gap, oracle


def test_noise_floor_claim():
    gap, oracle = _departing(1.0, {0.01: 256.0, 0.05: 32.0})
    ds = _ds(gap, oracle, dims=[2], jitter=0.01)
    assert _verdict("noise-floor-scale", ds) == "pass"
    gap, oracle = _departing(0.2, {0.01: 256.0, 0.05: 32.0})
    assert _verdict("noise-floor-scale", _ds(gap, oracle, dims=[2], jitter=0.01)) == "fail"


def test_moves_right_claim():
    gap, oracle = _departing(1.0, {0.01: 256.0, 0.05: 32.0})
    assert _verdict("saturation-moves-right", _ds(gap, oracle, dims=[2], jitter=0.01)) == "pass"
    gap, oracle = _departing(1.0, {0.01: 32.0, 0.05: 256.0})
    assert _verdict("saturation-moves-right", _ds(gap, oracle, dims=[2], jitter=0.01)) == "fail"
    # no noisy lane departs: nothing to order
    flat = _ds(lambda d, s: 1.0 / K, dims=[2], jitter=0.01)
    assert _verdict("saturation-moves-right", flat) == "not-applicable"


def test_budget_claim():
    # an exact power law: the smooth fit is the power law, K* agrees up to integer rounding
    assert (
        _verdict("budget-split-first-order", _ds(lambda d, s: 2.0 * K ** (-2.0 / d), jitter=0.005)) == "pass"
    )
    # a strongly bent curve: the straight-line fit misplaces the optimum
    bent = _ds(
        lambda d, s: 2.0 * K ** (-2.0 / d) * np.exp(0.1 * (np.log(K) - np.log(128.0)) ** 2), jitter=0.005
    )
    assert _verdict("budget-split-first-order", bent) == "fail"


def test_predict_claim():
    assert _verdict("predict-from-small-k", _ds(lambda d, s: K ** (-2.0 / d), jitter=0.01)) == "pass"
    # the curve flattens above K = 64: the small-K law overpredicts the decrease
    floor = _ds(lambda d, s: K ** (-2.0 / d) + 0.2 * 64.0 ** (-2.0 / d), jitter=0.01)
    assert _verdict("predict-from-small-k", floor) == "fail"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in ("closed-form-mean-gap", "slope-minus-two-over-d", "noisy-mean-gap-exact"):
        assert by[name].verdict == "pass", by[name]
    ds = run.results
    assert ds["gap"].sizes["seed"] == 2000 and list(ds["dim"].values) == DIMS
    for fig in EXP.figures:
        f = matplotlib.figure.Figure()
        fig.draw(ds, EXP.spec, f)
        plots.check_drawn(f, fig.name)
