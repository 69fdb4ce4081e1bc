"""jaxtheory.analysis: intervals cover at their nominal rate, fits recover known laws."""

import numpy as np
import pytest
import xarray as xr

from jaxtheory import analysis

T = np.array([16.0, 64.0, 256.0, 1024.0, 4096.0])


def _power_law(rng, n, slope, sigma=0.5):
    """Seeds × T of T^slope with multiplicative log-normal noise: log E[y] has slope `slope`."""
    return T[None, :] ** slope * np.exp(sigma * rng.standard_normal((n, T.size)))


@pytest.mark.parametrize("n,lo,hi", [(32, 0.93, 0.97), (8, 0.92, 0.97)])
def test_loglog_slope_interval_covers_true_slope_at_nominal_rate(n, lo, hi):
    # 400 independent replications of an n-seed experiment; the 95% interval must cover
    # the true slope in 93-97% of them (binomial sd at 400 draws is 1.1%). At 8 seeds the
    # plain percentile interval undercovers (about 90%); the expanded one must not.
    b, hits = -0.4, 0
    for r in range(400):
        rng = np.random.default_rng(1000 + r)
        da = xr.DataArray(_power_law(rng, n, b), dims=["seed", "T"], coords={"T": T})
        e = analysis.loglog_slope(da, "T", n_boot=1000)
        hits += e.low <= b <= e.high
    assert lo <= hits / 400 <= hi, hits / 400


def test_loglog_slope_is_slope_of_seed_mean_curve_and_cells_split():
    rng = np.random.default_rng(0)
    slopes = [-0.2, -0.5, -1.0]
    y = np.stack([_power_law(rng, 16, s, sigma=0.1) for s in slopes], axis=-1)
    da = xr.DataArray(y, dims=["seed", "T", "p"], coords={"T": T, "p": [1.1, 1.5, 2.0]})
    out = analysis.loglog_slope(da, "T")
    assert list(out) == ["p=1.1", "p=1.5", "p=2"]
    for i, e in enumerate(out.values()):
        # an independent reference: numpy's least squares on the seed-mean curve
        ref = np.polyfit(np.log(T), np.log(y[..., i].mean(0)), 1)[0]
        assert e.value == pytest.approx(ref, abs=1e-12)
        assert e.n == 16 and e.low < e.value < e.high
    # xmin restricts the fit
    e = analysis.loglog_slope(da.sel(p=1.5), "T", xmin=256)
    ref = np.polyfit(np.log(T[2:]), np.log(y[:, 2:, 1].mean(0)), 1)[0]
    assert e.value == pytest.approx(ref, abs=1e-12)
    with pytest.raises(ValueError, match="fewer than two"):
        analysis.loglog_slope(da, "T", xmin=5000)
    with pytest.raises(ValueError, match="not among"):
        analysis.loglog_slope(da, "horizon")


def test_semilog_rate_and_local_slopes():
    t = np.arange(20.0)
    da = xr.DataArray(3.0 * 0.8**t, dims=["t"], coords={"t": t})
    assert analysis.semilog_rate(da, "t", over=None).value == pytest.approx(np.log(0.8), abs=1e-12)
    x = np.array([1.0, 10, 100, 1000])
    y = x**-1.0 + 0.01
    ls = analysis.local_slopes(x, y)
    assert ls[0] < -0.9 and ls[-1] > -0.5 and np.all(np.diff(ls) > 0)  # flattening toward the floor


def test_power_law_with_floor_recovers_parameters():
    x = np.geomspace(1, 1e4, 12)
    fit = analysis.power_law_with_floor(x, 2.0 * x**-0.7 + 0.003)
    assert fit["b"] == pytest.approx(-0.7, abs=1e-3)
    assert fit["a"] == pytest.approx(2.0, rel=1e-2)
    assert fit["c"] == pytest.approx(0.003, rel=1e-2)
    with pytest.raises(ValueError):
        analysis.power_law_with_floor(x, -x)


def test_first_crossing_and_equal_cost():
    assert analysis.first_crossing([1, 2, 4], [1.0, 0.5, 0.1], 0.5) == 2.0
    # log-linear interpolation: halfway in log between 0.5 and 0.125 is 0.25
    assert analysis.first_crossing([0, 1], [0.5, 0.125], 0.25) == pytest.approx(0.5)
    assert np.isnan(analysis.first_crossing([1, 2], [1.0, 0.9], 0.1))
    a, b = analysis.at_equal_cost([1, 100], [1.0, 0.01], [10, 1000], [1.0, 0.01], [10, 100, 5000])
    assert a[0] == pytest.approx(0.1) and b[1] == pytest.approx(0.1) and np.isnan(a[2])


def test_best_over_aggregates_first_and_reports_ties():
    # per-seed argmins are lr=0.1 for seed 0 and lr=1 for seed 1: the median of per-seed
    # bests (optimistic) would differ from the best of the seed mean
    loss = xr.DataArray(
        [[1.0, 0.5, 2.0], [1.0, 3.0, 0.4]], dims=["seed", "lr"], coords={"lr": [0.01, 0.1, 1.0]}
    )
    b = analysis.best_over(loss, "lr")
    assert b.at == 0.01 and b.value == pytest.approx(1.0)
    # seed-mean 1.0, 1.75, 1.2; SE at the best is 0 -> no ties
    assert b.ties == (0.01,)
    noisy = xr.DataArray(
        [[1.0, 1.1, 5.0], [1.2, 1.05, 5.0]], dims=["seed", "lr"], coords={"lr": [0.01, 0.1, 1.0]}
    )
    b = analysis.best_over(noisy, "lr")
    assert b.at == 0.1 and b.ties == (0.01, 0.1)
    # diverged lanes are never best; maximize for accuracies; cells
    acc = xr.DataArray(
        [[[0.9, np.nan], [0.8, 0.7]]] * 3,
        dims=["seed", "width", "lr"],
        coords={"width": [64, 128], "lr": [0.1, 1.0]},
    )
    out = analysis.best_over(acc, "lr", minimize=False)
    assert out["width=64"].at == 0.1 and out["width=128"].at == 0.1


def test_spearman_monotone_select_proportion():
    assert analysis.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert analysis.spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)
    assert analysis.monotone_violations([1, 2, 3], increasing=True) == 0
    assert analysis.monotone_violations([1, 2, 3]) == 2
    assert analysis.monotone_violations([3, 2, 2.05], tol=0.1) == 0
    da = xr.DataArray([1.0, 2.0], dims=["lr"], coords={"lr": [0.1, 0.2]})
    assert float(analysis.select(da, lr=0.1, absent=3)) == 1.0
    e = analysis.proportion(0, 50)
    assert e.low == 0.0 and 0.05 < e.high < 0.1
    with pytest.raises(ValueError):
        analysis.proportion(0, 0)


def test_bootstrap_is_reproducible_and_handles_one_seed():
    x = np.random.default_rng(3).standard_normal(20)
    a = analysis.bootstrap(x, lambda s: s.mean(1))
    b = analysis.bootstrap(x, lambda s: s.mean(1))
    assert (a.low, a.high) == (b.low, b.high)  # a fixed resampling RNG: same data, same interval
    one = analysis.bootstrap(x[:1], lambda s: s.mean(1))
    assert one.n == 1 and np.isnan(one.low)
    e = analysis.from_se(2.0, 0.5)
    assert e.low == pytest.approx(2.0 - 1.959964 * 0.5, abs=1e-5)


# -- ratio_of_means (added for gp-batch-bandits) ------------------------------------------


def test_ratio_of_means_value_pairing_cells_and_coverage():
    rng = np.random.default_rng(11)
    x = xr.DataArray(rng.exponential(size=(40, 2)), dims=["seed", "q"], coords={"q": [1, 4]})
    out = analysis.ratio_of_means(x, 3.0 * x)
    assert set(out) == {"q=1", "q=4"}
    for e in out.values():  # den = 3 num on every sample: every resample gives exactly 1/3
        assert e.value == pytest.approx(1 / 3, rel=1e-12)
        assert e.low == pytest.approx(1 / 3, rel=1e-12) and e.high == pytest.approx(1 / 3, rel=1e-12)
    # unpaired-looking data with a known ratio of expectations: E[num]/E[den] = 2/4 = 0.5;
    # the interval covers it in about 95% of 200 replications (binomial sd 1.5%: >= 90%)
    hits = 0
    for r in range(200):
        g = np.random.default_rng(r)
        num = xr.DataArray(g.exponential(2.0, size=64), dims=["seed"])
        den = xr.DataArray(g.exponential(4.0, size=64), dims=["seed"])
        e = analysis.ratio_of_means(num, den, n_boot=400, seed=r)
        hits += e.low <= 0.5 <= e.high
    assert hits >= 180, hits
    with pytest.raises(ValueError):
        analysis.ratio_of_means(x, x, over="instance")
    few = analysis.ratio_of_means(x.isel(seed=slice(0, 4)), x.isel(seed=slice(0, 4)) + 1.0)
    assert np.isnan(few["q=1"].low)  # below MIN_SAMPLE: no interval


# -- slope_difference (added with the heavy-tail-sgd migration) ---------------------------


def test_slope_difference_is_difference_of_slopes_and_covers_truth():
    # The value is the difference of the two loglog_slope values (same seed-mean fits).
    rng = np.random.default_rng(3)
    y = np.stack([_power_law(rng, 32, -0.2, 0.3), _power_law(rng, 32, -0.5, 0.3)], axis=1)
    da = xr.DataArray(y, dims=["seed", "p", "T"], coords={"p": [1.25, 2.0], "T": T})
    d = analysis.slope_difference(da, "T", "p", 2.0, 1.25)
    s = analysis.loglog_slope(da, "T")
    assert d.value == pytest.approx(s["p=1.25"].value - s["p=2"].value, abs=1e-12)
    assert d.n == 32 and d.low < d.value < d.high
    # 400 replications of a 32-seed experiment: the 95% interval covers the true
    # difference 0.3 in 92-98% of them (95% +- 2.7 binomial sd of 1.1% at 400 draws).
    hits = 0
    for r in range(400):
        rng = np.random.default_rng(5000 + r)
        y = np.stack([_power_law(rng, 32, -0.2), _power_law(rng, 32, -0.5)], axis=1)
        da = xr.DataArray(y, dims=["seed", "p", "T"], coords={"p": [1.25, 2.0], "T": T})
        e = analysis.slope_difference(da, "T", "p", 2.0, 1.25, n_boot=1000)
        hits += e.low <= 0.3 <= e.high
    assert 0.92 <= hits / 400 <= 0.98, hits / 400


def test_slope_difference_is_paired_and_splits_cells():
    # Common noise in both settings cancels: the paired interval is far narrower than the
    # one for independent noise of the same size.
    rng = np.random.default_rng(4)
    common = np.exp(0.5 * rng.standard_normal((32, T.size)))
    own = np.exp(0.5 * rng.standard_normal((32, T.size)))
    paired = np.stack([T**-0.2 * common, T**-0.5 * common], axis=1)
    indep = np.stack([T**-0.2 * common, T**-0.5 * own], axis=1)
    wid = {}
    for name, y in (("paired", paired), ("indep", indep)):
        da = xr.DataArray(y, dims=["seed", "p", "T"], coords={"p": [1.25, 2.0], "T": T})
        e = analysis.slope_difference(da, "T", "p", 2.0, 1.25)
        wid[name] = e.high - e.low
    assert wid["paired"] < 1e-6 < wid["indep"]  # exact cancellation: the same factor on both curves
    # cells over the remaining dims; exact values with over=None; semilog fits
    y = np.stack([paired, paired * T**-0.1], axis=-1)
    da = xr.DataArray(
        y, dims=["seed", "p", "T", "algo"], coords={"p": [1.25, 2.0], "T": T, "algo": ["sgd", "smd"]}
    )
    out = analysis.slope_difference(da, "T", "p", 2.0, 1.25)
    assert list(out) == ["algo=sgd", "algo=smd"]
    assert out["algo=smd"].value == pytest.approx(0.3, abs=1e-9)
    exact = analysis.slope_difference(da.isel(seed=0), "T", "p", 2.0, 1.25, over=None)
    assert exact["algo=sgd"].exact and exact["algo=sgd"].value == pytest.approx(0.3, abs=1e-9)
    t = np.arange(5.0)
    lin = xr.DataArray(np.stack([0.5**t, 0.25**t]), dims=["rule", "t"], coords={"rule": ["a", "b"], "t": t})
    e = analysis.slope_difference(lin, "t", "rule", "a", "b", over=None, semilog=True)
    assert e.value == pytest.approx(np.log(0.25) - np.log(0.5), abs=1e-12)
    with pytest.raises(ValueError, match="not among"):
        analysis.slope_difference(lin, "t", "p", "a", "b", over=None)


# -- linear_r2 (added by the shifting-means-bai migration) ---------------------------------


def test_linear_r2_matches_least_squares_reference_and_bootstraps_over_seeds():
    rng = np.random.default_rng(3)
    d = np.array([1e-1, 1e-2, 1e-3, 1e-4, 1e-5])
    lx = np.log(1 / d)
    y = 200 + 40 * lx + 30 * np.sqrt(lx) * rng.standard_normal((24, d.size))
    da = xr.DataArray(y, dims=["seed", "delta"], coords={"delta": d})
    e = analysis.linear_r2(da, "delta", xvalues=lx)
    # an independent reference: numpy's polyfit line through the seed-mean curve
    m = y.mean(0)
    fit = np.polyval(np.polyfit(lx, m, 1), lx)
    ref = 1 - np.sum((m - fit) ** 2) / np.sum((m - m.mean()) ** 2)
    assert e.value == pytest.approx(ref, abs=1e-12)
    assert e.n == 24 and e.low <= e.value <= e.high <= 1.0
    # an exact line has R² = 1 (to round-off in float64 sums of squares), a parabola less
    exact = xr.DataArray(3 + 2 * lx, dims=["delta"], coords={"delta": d})
    assert analysis.linear_r2(exact, "delta", over=None, xvalues=lx).value == pytest.approx(1.0, abs=1e-12)
    bent = xr.DataArray(lx**2, dims=["delta"], coords={"delta": d})
    assert analysis.linear_r2(bent, "delta", over=None, xvalues=lx).value < 0.97
    # log axes: a power law is a line in log-log
    pw = xr.DataArray(5 * T**-0.7, dims=["T"], coords={"T": T})
    assert analysis.linear_r2(pw, "T", over=None, logx=True, logy=True).value == pytest.approx(1.0, abs=1e-12)
    # cells split, and a line needs three points to be tested
    two = xr.DataArray(
        np.stack([y, 2 * y], -1), dims=["seed", "delta", "k"], coords={"delta": d, "k": [1, 2]}
    )
    assert list(analysis.linear_r2(two, "delta", xvalues=lx)) == ["k=1", "k=2"]
    with pytest.raises(ValueError, match="three points"):
        analysis.linear_r2(da, "delta", xvalues=lx, xmin=lx[-2])


# -- tuned (added with the matrix experiments' migration) ------------------------------------


def test_tuned_reads_every_seed_at_the_seed_mean_choice_per_cell():
    rng = np.random.default_rng(0)
    # seed x depth x lr x step; the best lr differs by depth, and by seed in one cell
    loss = rng.uniform(1.0, 2.0, size=(5, 2, 3, 4))
    loss[:, 0, 1, :] -= 0.8  # depth 1: lr 0.1 best for every seed
    loss[:, 1, 2, :] -= 0.5  # depth 2: lr 1.0 best on average ...
    loss[0, 1, 0, :] = 0.0  # ... though seed 0 alone prefers lr 0.01
    da = xr.DataArray(
        loss, dims=["seed", "depth", "lr", "step"], coords={"depth": [1, 2], "lr": [0.01, 0.1, 1.0]}
    )
    crit = da.isel(step=-1)
    sample, best = analysis.tuned(da, "lr", by=crit)
    assert sample.dims == ("seed", "depth", "step")
    assert sample["lr"].values.tolist() == [0.1, 1.0]
    np.testing.assert_array_equal(sample.sel(depth=1).values, loss[:, 0, 1, :])
    np.testing.assert_array_equal(sample.sel(depth=2).values, loss[:, 1, 2, :])
    assert best["depth=2"].at == 1.0
    # maximize, a cell where every lr diverged gives NaN, not a wrong lr
    acc = xr.DataArray(
        [[[0.9, 0.95], [np.nan, np.nan]]] * 8,
        dims=["seed", "opt", "lr"],
        coords={"opt": ["a", "b"], "lr": [0.1, 1.0]},
    )
    s2, _ = analysis.tuned(acc, "lr", minimize=False)
    assert np.allclose(s2.sel(opt="a").values, 0.95) and np.isnan(s2.sel(opt="b").values).all()
    with pytest.raises(ValueError):
        analysis.tuned(acc, "width")


def test_masked_line_fit_matches_polyfit_lane_by_lane():
    rng = np.random.default_rng(3)
    x = np.arange(12.0)
    y = rng.normal(size=(4, 5, 12)) + 0.7 * x
    keep = rng.random((4, 5, 12)) > 0.5
    y = np.where(keep, y, -np.inf)  # masked-out values are never read
    slope, icpt, r2 = analysis.masked_line_fit(x, y, keep, min_points=4)
    for idx in np.ndindex(4, 5):
        m = keep[idx]
        if m.sum() < 4:
            assert np.isnan(slope[idx]) and np.isnan(icpt[idx]) and np.isnan(r2[idx])
            continue
        b, a = np.polyfit(x[m], y[idx][m], 1)
        res = y[idx][m] - (a + b * x[m])
        ref_r2 = 1 - (res**2).sum() / ((y[idx][m] - y[idx][m].mean()) ** 2).sum()
        np.testing.assert_allclose([slope[idx], icpt[idx], r2[idx]], [b, a, ref_r2], rtol=1e-9, atol=1e-12)


def test_masked_line_fit_rejects_too_few_points():
    with pytest.raises(ValueError, match="min_points"):
        analysis.masked_line_fit(np.arange(3.0), np.arange(3.0), np.ones(3, bool), min_points=1)
