"""koopman-acceleration: each claim's check on made-up pass/fail data; the smoke run (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims import koopman as kp
from jaxtheory.sims.koopman import checks

matplotlib.use("Agg")

EXP = get_experiment("koopman-acceleration")
CLAIMS = {c.name: c for c in EXP.claims}
SPEC = kp.MoonsSpec(steps=1600)


def _fake(speed=0.5, drop=0.0, aug_ratio=0.3, excess=0.0, seeds=16):
    """Made-up results with the smoke's dims: the augmented variant reaches the target ``speed``
    times as fast, ends ``drop`` lower, and backtests ``aug_ratio`` times the params-only error."""
    rng = np.random.default_rng(0)
    opts, variants, taus = list(kp.OPTIMIZERS), list(kp.VARIANTS), [1, 5, 10]
    log = np.arange(1, SPEC.steps // SPEC.log_every + 1) * SPEC.log_every
    att = np.arange(1, SPEC.steps // SPEC.period + 1) * SPEC.period
    T0 = rng.uniform(300, 500, seeds)  # per seed time scale, shared by the variants (paired)
    shape = (len(opts), len(variants), len(taus), seeds)
    scale = np.ones(shape) * T0
    scale[:, 2] *= speed
    plateau = np.full(shape, 0.995)
    plateau[:, 2] -= drop
    acc = plateau[..., None] - 0.1 * np.exp(-log / scale[..., None])
    e_par = rng.uniform(0.5, 1.0, shape + (len(att),))
    vb = rng.uniform(0.1, 0.3, shape + (len(att),))
    v = vb - rng.uniform(0, 0.01, vb.shape)
    v[0, 2, 1, 0, 3] = vb[0, 2, 1, 0, 3] + excess
    dims = ("optimizer", "variant", "tau", "seed")
    return xr.Dataset(
        {
            "test_acc": (dims + ("log",), acc),
            "error_params": (dims + ("attempt",), e_par),
            "error_augmented": (dims + ("attempt",), aug_ratio * e_par),
            "value_backprop": (dims + ("attempt",), vb),
            "value": (dims + ("attempt",), v),
        },
        coords={"optimizer": opts, "variant": variants, "tau": taus, "log": log, "attempt": att},
    )


def _verdict(name, ds):
    return CLAIMS[name].evaluate(ds, SPEC).verdict


def test_augmentation_claims_on_made_up_data():
    assert _verdict("augmentation-halves-adam-error", _fake(aug_ratio=0.3)) == "pass"
    assert _verdict("augmentation-halves-adam-error", _fake(aug_ratio=0.9)) == "fail"
    # the quoted reading: lower than the parameters-only error (ratio below 1)
    assert _verdict("augmentation-improves-prediction", _fake(aug_ratio=0.9)) == "pass"
    assert _verdict("augmentation-improves-prediction", _fake(aug_ratio=1.2)) == "fail"


def test_paper_claims_quote_and_name_the_stand_in():
    for name in ("augmentation-improves-prediction", "safeguard", "fewer-backprops", "final-accuracy-kept"):
        claim = CLAIMS[name]
        assert claim.source == "reconstruction" and claim.quote and claim.stand_in, name


def test_safeguard_claim_on_made_up_data():
    assert _verdict("safeguard", _fake(excess=0.0)) == "pass"
    assert _verdict("safeguard", _fake(excess=1e-7)) == "fail"


def test_backprops_claim_on_made_up_data():
    assert _verdict("fewer-backprops", _fake(speed=0.5)) == "pass"
    assert _verdict("fewer-backprops", _fake(speed=1.5)) == "fail"
    # the augmented variant that never reaches the target is infinitely slow: a fail
    assert _verdict("fewer-backprops", _fake(speed=0.5, drop=0.05)) == "fail"


def test_final_accuracy_claim_on_made_up_data():
    assert _verdict("final-accuracy-kept", _fake(drop=0.0)) == "pass"
    assert _verdict("final-accuracy-kept", _fake(drop=0.02)) == "fail"


def test_claims_not_applicable_without_their_lanes():
    ds = _fake().sel(optimizer=["adadelta"])
    assert _verdict("augmentation-halves-adam-error", ds) == "not-applicable"
    assert _verdict("augmentation-improves-prediction", ds) == "not-applicable"
    assert _verdict("fewer-backprops", ds) == "not-applicable"


def test_linear_claims_on_made_up_and_real_errors(monkeypatch):
    # real side computation (float64): passes with a wide margin
    assert _verdict("linear-exactness", None) == "pass"
    assert _verdict("params-only-worse", None) == "pass"
    fake = {"state_augmented": 1e-6, "params_augmented": 1e-6, "params_only": 1e-5}
    monkeypatch.setattr(checks, "linear", lambda tau, window, seed: fake)
    assert _verdict("linear-exactness", None) == "fail"
    assert _verdict("params-only-worse", None) == "fail"


@pytest.mark.slow
def test_smoke_runs_claims_and_figures(tmp_path):

    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    assert by["linear-exactness"].verdict == "pass"
    assert by["safeguard"].verdict == "pass"
    ds = run.results
    # the baseline takes no jump, the jumping variants do
    assert int(ds["skipped"].sel(variant="baseline").max()) == 0
    assert int(ds["skipped"].sel(variant="augmented").max()) > 0
