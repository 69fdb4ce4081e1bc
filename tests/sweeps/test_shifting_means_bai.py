"""The shifting-means-bai experiment: the smoke preset runs and every claim evaluates.

The structure of the results (categorical, paired environments), the censoring
bookkeeping and the claims' cell selection are checked exactly; the censoring rule of the
E[τ] claims (a censored mean is a lower bound, which opens the interval on one side) is
checked on the smoke results with censoring injected.
"""

import math

import numpy as np
import pytest

from jaxtheory import analysis
from jaxtheory.sims import bandits as bai
from sweeps import shifting_means_bai as m
from sweeps.shifting_means_bai import EXPERIMENT, SMOKE_ALGOS, SMOKE_CELLS, SMOKE_ENVS


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return EXPERIMENT.sweep("smoke", out=tmp_path_factory.mktemp("bai"), quiet=True)


def _claim(run, name):
    return next(c for c in run.claims if c.name == name)


def _claim_of(name):
    return next(c for c in EXPERIMENT.claims if c.name == name)


@pytest.mark.slow  # the smoke preset (~20 s); CI's docs build runs it and compares its verdicts
def test_smoke_preset_runs_and_claims_evaluate(smoke):
    ds = smoke.results
    assert int((ds["status"] != 0).sum()) == 0
    assert [c.name for c in smoke.claims] == [c.name for c in EXPERIMENT.claims]
    for c in smoke.claims:
        assert c.error is None, (c.name, c.error)
        assert c.source in ("paper", "reconstruction", "derived", "proposed", "sanity"), c.name
        if c.verdict == "not-applicable":
            assert c.reason, c.name
            continue
        values = list(c.measured.values()) if isinstance(c.measured, dict) else [c.measured]
        assert values and all(math.isfinite(v) for v in values), c.name
    # the K slope needs two K >= 8: smoke has K = 2, 4 and leaves it to medium
    assert _claim(smoke, "ism-linear-in-k").verdict == "not-applicable"
    # structure: algo × env × cell × seed × delta; environments are labels
    assert ds.sizes["algo"] == len(SMOKE_ALGOS) and ds.sizes["cell"] == len(SMOKE_CELLS)
    assert list(ds["env"].values) == list(SMOKE_ENVS) and ds.sizes["delta"] == 3
    assert list(ds["policy"].values) == [a[0] for a in SMOKE_ALGOS]
    assert ds.sizes["seed"] >= analysis.MIN_SAMPLE


@pytest.mark.slow  # the smoke preset (~20 s); CI's docs build runs it and compares its verdicts
def test_censoring_bookkeeping_and_paired_environments(smoke):
    ds = smoke.results
    # every episode is exactly one of censored / correct / error, and a censored
    # episode's tau is its group's horizon
    stopped = ds["stopped"].values.astype(bool)
    censored = ds["censored"].values.astype(bool)
    correct = ds["correct"].values.astype(bool)
    error = ds["error"].values.astype(bool)
    np.testing.assert_array_equal(censored, ~stopped)
    np.testing.assert_array_equal(correct.astype(int) + error + censored, 1)
    horizon = ds["horizon"].values.reshape((-1,) + (1,) * (ds["tau"].ndim - 1))
    tau = ds["tau"].values
    assert np.all(np.where(censored, tau == horizon, tau <= horizon))
    # Track-and-Stop under the untargeted attack is censored (reported, not correct)
    tas = list(ds["policy"].values).index("tas_d")
    assert censored[tas, list(ds["env"].values).index("untargeted")].mean() > 0.5
    # paired environments: against a uniform sampler both adaptive attacks are the
    # constant shift -c, so on the same episode keys the same program gives the same
    # episodes bit for bit (it holds by construction: same keys, same shift values)
    for a, pol in enumerate(ds["policy"].values):
        if pol in ("ism_practical", "ism_theory", "uniform_glrt"):
            const = ds["tau"].isel(algo=a).sel(env="constant")
            for env in ("targeted", "untargeted"):
                np.testing.assert_array_equal(ds["tau"].isel(algo=a).sel(env=env).values, const.values)
    # ... while the seeds differ
    assert float(ds["tau"].isel(algo=0).sel(env="none").std("seed").min()) > 0


@pytest.mark.slow  # the smoke preset (~20 s); CI's docs build runs it and compares its verdicts
def test_claim_cells_follow_the_design_rules(smoke):
    ds = smoke.results
    # ISM-theory is judged where the horizon is >= 1.5x its predicted stopping time:
    # in smoke only the gap-0.8 cell (3 environments × 3 δ)
    theory = _claim(smoke, "ism-theory-prediction")
    assert len(theory.measured) == 9 and all("gap=0.8" in k for k in theory.measured)
    h = dict(zip(ds["policy"].values, ds["horizon"].values))["ism_theory"]
    assert m.THEORY_REACH * bai.ism_theory_predicted_tau(0.8, 4, 1.0, 1.5, 0.001) <= h
    assert m.THEORY_REACH * bai.ism_theory_predicted_tau(0.4, 4, 1.0, 1.5, 0.05) > h
    # the targeted-attack claim covers the cells with 2c > Δ (all three smoke cells)
    assert len(_claim(smoke, "tas-targeted-wrong").measured) == 3 * 3
    # GLRT overconfidence: only the c = 2σ cell (σ = 0.5), at δ = 0.05
    assert list(_claim(smoke, "glrt-overconfident").measured) == [
        "policy=uniform_glrt,K=4,gap=0.5,sigma=0.5,U=1.5,delta=0.05"
    ]
    # the censored count the sanity claim reports is an independent count of the cells
    # the E[τ] claims use: here ISM-practical (never censored in smoke) ...
    counts = _claim(smoke, "tau-censored").measured
    cens = ds["censored"].values.astype(bool)
    ism = [a for a, p in enumerate(ds["policy"].values) if p == "ism_practical"]
    assert counts["ism-gap-slope"] == int(cens[ism][:, list(ds["env"].values).index("none")].sum())
    # ... and the gap slope is fitted against E[Z²]/Δ² = K(2σ² + Δ²)/Δ²
    assert m._z({"gap": 0.5, "K": 4, "sigma": 1.0}) == pytest.approx(4 * (2 + 0.25) / 0.25)


@pytest.mark.slow  # the smoke preset (~20 s); CI's docs build runs it and compares its verdicts
def test_censored_cells_open_the_interval_on_the_side_the_bound_cannot_close(smoke):
    ds = smoke.results.copy(deep=True)
    a = list(ds["policy"].values).index("ism_practical")  # K = 4
    c = int(np.argmin(ds["gap"].values))  # smallest gap: largest E[Z²]/Δ²
    gap_slope = _claim_of("ism-gap-slope").measure  # per cell: a function (level, seed) -> Estimate
    before = gap_slope(ds, None)
    censored = ds["censored"].values.copy()
    censored[a, list(ds["env"].values).index("none"), c, 0, 0] = True  # one episode, δ = 0.05
    ds["censored"] = (ds["censored"].dims, censored)
    after = gap_slope(ds, None)

    def est(cells, delta):
        return cells.at(K=4, sigma=1.0, U=1.5, delta=delta)(0.95, 0)

    # the smallest gap lies right of the mean log-abscissa: its mean is a lower bound, so
    # the slope is bounded from below only
    assert est(after, 0.05).high == math.inf and est(after, 0.05).low == est(before, 0.05).low
    assert est(after, 0.05).value == est(before, 0.05).value
    # other cells are untouched
    assert est(after, 0.01) == est(before, 0.01)
    # a ratio falling with a censored mean is bounded from above only; unknown sign: both
    e = analysis.Estimate(1.0, 0.9, 1.1, 64, "bootstrap")
    assert (m._open(e, [1, -1], [False, True]).low, m._open(e, [1, -1], [False, True]).high) == (
        -math.inf,
        1.1,
    )
    assert (m._open(e, [0], [True]).low, m._open(e, [0], [True]).high) == (-math.inf, math.inf)
    assert m._open(e, [1, -1], [False, False]) == e


@pytest.mark.slow  # the smoke preset (~20 s); CI's docs build runs it and compares its verdicts
def test_figures_draw_what_the_smoke_preset_has(smoke, tmp_path):
    from matplotlib.figure import Figure

    from jaxtheory import plots

    for f in EXPERIMENT.figures:
        fig = Figure(figsize=f.size, layout="constrained")
        f.draw(smoke.results, smoke.spec, fig)
        plots.check_drawn(fig, f.name)
        assert not any(t.get_gid() == plots.NOT_APPLICABLE_GID for ax in fig.axes for t in ax.texts), f.name
