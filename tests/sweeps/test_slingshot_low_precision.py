"""slingshot-low-precision: each claim's check on made-up pass/fail data; the smoke (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.nets import precision as pr

matplotlib.use("Agg")

EXP = get_experiment("slingshot-low-precision")
CLAIMS = {c.name: c for c in EXP.claims}
FMTS = ["bf16", "fp16", "f32", "bf16", "f32"]
FIX = [0.0, 0.0, 0.0, 1.0, 1.0]
S, T, EVERY = 8, 200, 25
STEP = np.arange(1, T + 1) * EVERY
THR = np.array([pr.absorption_threshold(f) for f in FMTS])


def made_up(**over):
    """A results Dataset shaped like the smoke's (arm × seed × step), every claim passing."""
    rng = np.random.default_rng(0)
    absorbing = np.array([1, 1, 0, 1, 0], bool)
    fix = np.asarray(FIX)
    jitter = rng.uniform(0, 0.01, (5, S))
    lam = 6e-4  # per step: 2.7 predicted e-folds over the window (steps 525 to 5000)
    onset = 20
    absorbed = np.where(np.arange(T) >= onset, 0.9, 0.0)[None, None] * absorbing[:, None, None]
    grow = 0.3 * np.exp(lam * np.clip(STEP - STEP[onset], 0, None))
    ds = xr.Dataset(
        {
            "min_gap_absorbed": (("arm", "seed"), np.where(absorbing[:, None], THR[:, None] - jitter, 3e38)),
            "max_gap_live": (("arm", "seed"), THR[:, None] + jitter - 0.02),
            "n_absorbed": (("arm", "seed"), np.where(absorbing[:, None], 1000, 0) + 0 * jitter),
            "n_above": (("arm", "seed"), np.where(absorbing[:, None], 500, 0) + 0 * jitter),
            "max_drift": (
                ("arm", "seed"),
                np.where(absorbing[:, None] & (fix == 0)[:, None], 1.0, 1e-6) + jitter * 1e-7,
            ),
            "drift_bound": (("arm", "seed"), np.full((5, S), 3e-4)),
            "cos_drift_h": (
                ("arm", "seed", "step"),
                np.full((5, S, T), -0.99) + rng.uniform(0, 0.005, (5, S, T)),
            ),
            "absorbed": (("arm", "seed", "step"), np.broadcast_to(absorbed, (5, S, T)).copy()),
            "loss": (
                ("arm", "seed", "step"),
                np.broadcast_to(np.exp(-STEP / 1000.0) * 0.5, (5, S, T)).copy(),
            ),
            "wbar_norm": (
                ("arm", "seed", "step"),
                np.broadcast_to(grow, (5, S, T)) * (1 + 1e-3 * rng.standard_normal((5, S, T))),
            ),
            "cos_wh": (("arm", "seed", "step"), np.full((5, S, T), -0.95)),
            "rate": (("arm", "seed", "step"), np.full((5, S, T), np.expm1(lam))),
        },
        coords={
            "arm": np.arange(5),
            "fmt": ("arm", FMTS),
            "fix": ("arm", FIX),
            "seed": np.arange(S),
            "step": STEP,
        },
    )
    for k, v in over.items():
        ds[k] = v(ds[k].copy()) if callable(v) else v
    return ds


SPEC = pr.PrecisionSpec(steps=T * EVERY, log_every=EVERY)
MODADD = pr.PrecisionSpec(
    task="modadd", modulus=97, dim=194, classes=97, n=4704, steps=T * EVERY, log_every=EVERY
)


def verdict(name, ds, spec=SPEC):
    return CLAIMS[name].evaluate(ds, spec).verdict


def _set(arm, value, var):
    def f(da):
        da[{"arm": arm}] = value
        return da

    return f


def test_made_up_data_passes_every_smoke_claim():
    ds = made_up()
    for name in (
        "absorption-only-above-threshold",
        "absorption-always-above-threshold",
        "fix-conserves-mean-row",
        "absorption-breaks-conservation",
        "drift-against-mean-feature",
        "nfi-exponential",
        "nfi-anti-aligned",
        "nfi-rate",
    ):
        assert verdict(name, ds) == "pass", name
    # the spike claims need modular addition
    assert verdict("fix-delays-spikes", ds) == "not-applicable"


def test_threshold_claims_fail():
    # an absorbed sample 1 nat below b ln2 (bf16), a live one 1 nat above (fp16)
    low = made_up(min_gap_absorbed=_set(0, THR[0] - 1.0, "min_gap_absorbed"))
    assert verdict("absorption-only-above-threshold", low) == "fail"
    high = made_up(max_gap_live=_set(1, THR[1] + 1.0, "max_gap_live"))
    assert verdict("absorption-always-above-threshold", high) == "fail"
    none = made_up(n_absorbed=lambda da: da * 0)
    assert verdict("absorption-only-above-threshold", none) == "not-applicable"


def test_conservation_claims_fail():
    drifting = made_up(max_drift=_set(3, 1e-2, "max_drift"))  # bf16+fix moved 30× its bound
    assert verdict("fix-conserves-mean-row", drifting) == "fail"
    still = made_up(max_drift=_set(1, 1e-3, "max_drift"))  # fp16 only 3.3× its bound
    assert verdict("absorption-breaks-conservation", still) == "fail"


def test_drift_direction_fails_when_not_against_the_feature():
    ds = made_up(
        cos_drift_h=lambda da: da * 0 - 0.5 + 0.01 * np.random.default_rng(1).standard_normal(da.shape)
    )
    assert verdict("drift-against-mean-feature", ds) == "fail"


def test_nfi_claims_fail_and_need_the_exponential_phase():
    rng = np.random.default_rng(2)
    # a wiggly, non-exponential norm: R² of log-norm low
    wig = made_up(
        wbar_norm=lambda da: 0.3 + 0.2 * np.abs(np.sin(STEP / 300.0)) + 0 * da + 1e-3 * rng.random(da.shape)
    )
    assert verdict("nfi-exponential", wig) == "fail"
    aligned = made_up(cos_wh=lambda da: da * 0 + 0.2)
    assert verdict("nfi-anti-aligned", aligned) == "fail"
    fast = made_up(wbar_norm=lambda da: da**3)  # measured growth 3× the predicted rate
    assert verdict("nfi-rate", fast) == "fail"
    slow = made_up(rate=lambda da: da / 100.0)  # 0.02 predicted e-folds over the window
    assert verdict("nfi-exponential", slow) == "not-applicable"


def _spiky(bf16_spike, fix_spike, f32_spike):
    def loss(da):
        base = np.where(STEP > 100, 1e-3, 0.5)
        out = np.broadcast_to(base, da.shape).copy()
        for arm, at in ((0, bf16_spike), (3, fix_spike), (2, f32_spike)):
            if at is not None:
                out[arm, :, STEP >= at] = 0.5
        return da * 0 + out

    return made_up(loss=loss)


def test_spike_claims():
    ok = _spiky(bf16_spike=400, fix_spike=None, f32_spike=4000)
    assert verdict("fix-delays-spikes", ok, MODADD) == "pass"  # no spike: horizon / 400 = 12.5
    assert verdict("bf16-spikes-first", ok, MODADD) == "pass"
    early = _spiky(bf16_spike=400, fix_spike=2000, f32_spike=4000)  # delayed 5×
    assert verdict("fix-delays-spikes", early, MODADD) == "fail"
    late = _spiky(bf16_spike=4000, fix_spike=None, f32_spike=1000)
    assert verdict("bf16-spikes-first", late, MODADD) == "fail"
    assert verdict("bf16-spikes-first", ok, SPEC) == "not-applicable"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in (
        "absorption-only-above-threshold",
        "fix-conserves-mean-row",
        "absorption-breaks-conservation",
    ):
        assert by[name].verdict == "pass", name
    assert (run.results["status"] == 0).all()
