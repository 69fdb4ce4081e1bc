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
    da = xr.DataArray(3.0 * 0.8 ** t, dims=["t"], coords={"t": t})
    assert analysis.semilog_rate(da, "t", over=None).value == pytest.approx(np.log(0.8), abs=1e-12)
    x = np.array([1.0, 10, 100, 1000])
    y = x ** -1.0 + 0.01
    ls = analysis.local_slopes(x, y)
    assert ls[0] < -0.9 and ls[-1] > -0.5 and np.all(np.diff(ls) > 0)  # flattening toward the floor


def test_power_law_with_floor_recovers_parameters():
    x = np.geomspace(1, 1e4, 12)
    fit = analysis.power_law_with_floor(x, 2.0 * x ** -0.7 + 0.003)
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
    loss = xr.DataArray([[1.0, 0.5, 2.0], [1.0, 3.0, 0.4]], dims=["seed", "lr"],
                        coords={"lr": [0.01, 0.1, 1.0]})
    b = analysis.best_over(loss, "lr")
    assert b.at == 0.01 and b.value == pytest.approx(1.0)
    # seed-mean 1.0, 1.75, 1.2; SE at the best is 0 -> no ties
    assert b.ties == (0.01,)
    noisy = xr.DataArray([[1.0, 1.1, 5.0], [1.2, 1.05, 5.0]], dims=["seed", "lr"],
                         coords={"lr": [0.01, 0.1, 1.0]})
    b = analysis.best_over(noisy, "lr")
    assert b.at == 0.1 and b.ties == (0.01, 0.1)
    # diverged lanes are never best; maximize for accuracies; cells
    acc = xr.DataArray([[[0.9, np.nan], [0.8, 0.7]]] * 3, dims=["seed", "width", "lr"],
                       coords={"width": [64, 128], "lr": [0.1, 1.0]})
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


# -- tuned (added with the matrix experiments' migration) ------------------------------------


def test_tuned_reads_every_seed_at_the_seed_mean_choice_per_cell():
    rng = np.random.default_rng(0)
    # seed x depth x lr x step; the best lr differs by depth, and by seed in one cell
    loss = rng.uniform(1.0, 2.0, size=(5, 2, 3, 4))
    loss[:, 0, 1, :] -= 0.8       # depth 1: lr 0.1 best for every seed
    loss[:, 1, 2, :] -= 0.5       # depth 2: lr 1.0 best on average ...
    loss[0, 1, 0, :] = 0.0        # ... though seed 0 alone prefers lr 0.01
    da = xr.DataArray(loss, dims=["seed", "depth", "lr", "step"],
                      coords={"depth": [1, 2], "lr": [0.01, 0.1, 1.0]})
    crit = da.isel(step=-1)
    sample, best = analysis.tuned(da, "lr", by=crit)
    assert sample.dims == ("seed", "depth", "step")
    assert sample["lr"].values.tolist() == [0.1, 1.0]
    np.testing.assert_array_equal(sample.sel(depth=1).values, loss[:, 0, 1, :])
    np.testing.assert_array_equal(sample.sel(depth=2).values, loss[:, 1, 2, :])
    assert best["depth=2"].at == 1.0
    # maximize, a cell where every lr diverged gives NaN, not a wrong lr
    acc = xr.DataArray([[[0.9, 0.95], [np.nan, np.nan]]] * 8, dims=["seed", "opt", "lr"],
                       coords={"opt": ["a", "b"], "lr": [0.1, 1.0]})
    s2, _ = analysis.tuned(acc, "lr", minimize=False)
    assert np.allclose(s2.sel(opt="a").values, 0.95) and np.isnan(s2.sel(opt="b").values).all()
    with pytest.raises(ValueError):
        analysis.tuned(acc, "width")
