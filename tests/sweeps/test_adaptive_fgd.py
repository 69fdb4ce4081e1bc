"""The adaptive-fgd experiment: each claim's check on made-up pass/fail data; the smoke run (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.functional import fgd
from jaxtheory.sims.functional.fgd_plateau import plateau_formula
from sweeps import adaptive_fgd as af

matplotlib.use("Agg")

SPEC = fgd.FGDSpec(max_size=32, epochs=200, eval_size=64)
SCHEMES = ("eps0.1", "eps0.5", "eps3", "fixed8", "fixed16", "fixed32")
SEEDS = 8
LR = 0.05


def _claim(name):
    return {c.name: c for c in af.EXPERIMENT.claims}[name]


def _fake(plateau_scale=1.0, contraction=(1 - LR) ** 2, bump=0.0, adaptive_scale=0.5):
    """Results shaped like the simulator's, built from the closed forms.

    Fixed grids: loss = floor + (L0 − floor)·0.9025^k + noise term, plateau × ``plateau_scale``;
    the exact-mean run contracts by ``contraction``. Adaptive lanes: costs of a grid that
    doubles every 20 epochs up to the cap, loss ``adaptive_scale`` × the finest floor path,
    with ``bump`` added on every 10th epoch below the cap.
    """
    T = SPEC.epochs
    k = np.arange(1, T + 1)
    rng = np.random.default_rng(0)
    shape = (len(SCHEMES), 1, SEEDS, T)
    loss = np.zeros(shape)
    lexact = np.zeros(shape)
    level = np.zeros(shape, np.int32)
    cost = np.zeros(shape)
    l0 = 0.5 * np.mean(fgd.f_star_np(*np.meshgrid(*(2 * [(np.arange(64) + 0.5) / 64]), indexing="ij")) ** 2)
    floors = np.zeros((len(SCHEMES), 1, SEEDS))
    for i, lab in enumerate(SCHEMES):
        if lab.startswith("fixed"):
            s = int(lab[5:])
            total, floor, noise = plateau_formula(s, LR, SPEC)
            path = floor + (l0 - floor) * (1 - LR) ** (2 * k)
            jitter = 1 + 0.001 * rng.standard_normal((SEEDS, T))
            loss[i, 0] = (path + noise) * jitter * np.where(k > T // 2, plateau_scale, 1.0)
            lexact[i, 0] = floor + (l0 - floor) * contraction**k
            floors[i] = floor
            lv = int(np.log2(s))
            level[i, 0] = lv
            cost[i, 0] = np.cumsum(np.full(T, 8 * 4**lv))
        else:
            lv = np.minimum(3 + k // 20, 5)
            level[i, 0] = lv
            cost[i, 0] = np.cumsum(8 * 4**lv)
            _, finest, _ = plateau_formula(32, LR, SPEC)
            base = finest + (l0 - finest) * (1 - LR) ** (2 * k)
            below = (lv < 5) & (k % 10 == 0)
            loss[i, 0] = adaptive_scale * base + np.where(below, bump, 0.0)
            lexact[i, 0] = loss[i, 0]
    dims = ("scheme", "lr", "seed", "epoch")
    coords = {"scheme": list(SCHEMES), "lr": [LR], "seed": np.arange(SEEDS), "epoch": k}
    return xr.Dataset(
        {
            "loss": (dims, loss),
            "loss_exact": (dims, lexact),
            "level": (dims, level),
            "cost": (dims, cost),
            "loss0": (dims[:3], np.full(shape[:3], l0)),
            "floor_start": (dims[:3], floors),
        },
        coords=coords,
    )


def _verdict(name, ds):
    return _claim(name).evaluate(ds, SPEC).verdict


def test_plateau_claim_pass_and_fail():
    assert _verdict("fixed-grid-plateau", _fake()) == "pass"
    assert _verdict("fixed-grid-plateau", _fake(plateau_scale=1.3)) == "fail"


def test_contraction_claim_pass_and_fail():
    assert _verdict("exact-mean-contraction", _fake()) == "pass"
    assert _verdict("exact-mean-contraction", _fake(contraction=0.92)) == "fail"


def test_descent_claims_pass_and_fail():
    assert _verdict("descent-before-cap", _fake()) == "pass"
    assert _verdict("descent-every-epoch-small-eps", _fake()) == "pass"
    bumped = _fake(bump=0.05)  # 10 % of the sub-cap epochs increase
    assert _verdict("descent-before-cap", bumped) == "fail"
    assert _verdict("descent-every-epoch-small-eps", bumped) == "fail"


def test_equal_cost_claims_pass_and_fail():
    # the fake adaptive lanes sit at half the finest path's loss: below every fixed grid
    assert _verdict("adaptive-beats-fixed-at-equal-cost", _fake()) == "pass"
    assert _verdict("adaptive-beats-fixed-at-equal-cost", _fake(adaptive_scale=3.0)) == "fail"
    assert _verdict("tight-tolerance-pays-finest-cost", _fake(adaptive_scale=30.0)) == "pass"
    assert _verdict("tight-tolerance-pays-finest-cost", _fake(adaptive_scale=0.01)) == "fail"


def test_claims_not_applicable_without_their_lanes():
    ds = _fake().sel(scheme=["eps0.5", "eps3"])
    assert _verdict("fixed-grid-plateau", ds) == "not-applicable"
    assert _verdict("adaptive-beats-fixed-at-equal-cost", ds) == "not-applicable"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    exp = get_experiment("adaptive-fgd")
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    # decided with wide margins in the smoke (see the page): exact identity, ratios ~1.000
    assert by["exact-mean-contraction"].verdict == "pass"
    assert by["fixed-grid-plateau"].verdict == "pass"
    ds = run.results
    assert np.all(np.diff(ds["level"].values, axis=-1) >= 0)  # refinement only ever adds
