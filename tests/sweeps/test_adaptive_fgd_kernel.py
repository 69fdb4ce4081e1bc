"""The adaptive-fgd-kernel experiment: each claim's check on made-up pass/fail data; smoke (slow)."""

import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.functional import kdtree as kd
from sweeps import adaptive_fgd_kernel as ak

SPEC = kd.KernelSpec(max_depth=8, epochs=20)
SCHEMES = ("eps0.5", "depth2", "depth8")
SEEDS = 8


def _claim(name):
    return {c.name: c for c in ak.EXPERIMENT.claims}[name]


def _fake(adaptive_start=8, adaptive_scale=1.0, dip=False):
    """Results shaped like the simulator's: losses ∝ 1/(1 + epoch), costs n·2^depth per epoch."""
    T, n = SPEC.epochs, SPEC.n_train
    k = np.arange(1, T + 1)
    shape = (len(SCHEMES), SEEDS, T)
    test = np.zeros(shape)
    depth = np.zeros(shape, np.int32)
    cost = np.zeros(shape)
    for i, lab in enumerate(SCHEMES):
        if lab.startswith("eps"):
            d = np.minimum(adaptive_start + k - 1, SPEC.max_depth)
            if dip:
                d[5] = d[4] - 1
            test[i] = adaptive_scale * 0.01 / (1 + k)
        else:
            d = np.full(T, int(lab[5:]))
            test[i] = 0.02 + 0.05 / (1 + k)
        depth[i] = d
        cost[i] = np.cumsum(n * 2.0**d)
    dims = ("scheme", "seed", "epoch")
    coords = {"scheme": list(SCHEMES), "seed": np.arange(SEEDS), "epoch": k}
    return xr.Dataset(
        {
            "test_loss": (dims, test * (1 + 0.001 * np.random.default_rng(0).standard_normal(shape))),
            "depth": (dims, depth),
            "cost": (dims, cost),
            "loss0_test": (dims[:2], np.full(shape[:2], 0.25)),
        },
        coords=coords,
    )


def _verdict(name, ds):
    return _claim(name).evaluate(ds, SPEC).verdict


def test_depth_monotone_pass_and_fail():
    assert _verdict("depth-monotone", _fake()) == "pass"
    assert _verdict("depth-monotone", _fake(adaptive_start=2, dip=True)) == "fail"


def test_bound_forces_cap_pass_and_fail():
    assert _verdict("bound-forces-cap", _fake()) == "pass"
    assert _verdict("bound-forces-cap", _fake(adaptive_start=2)) == "fail"


def test_equal_cost_pass_and_fail():
    # adaptive far below both fixed depths at every cost: pass; 100× worse: fail
    assert _verdict("kernel-adaptive-beats-fixed-at-equal-cost", _fake(adaptive_start=2)) == "pass"
    assert _verdict("kernel-adaptive-beats-fixed-at-equal-cost", _fake(adaptive_scale=100.0)) == "fail"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    exp = get_experiment("adaptive-fgd-kernel")
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    assert by["depth-monotone"].verdict == "pass"
    assert by["bound-forces-cap"].verdict == "pass"
