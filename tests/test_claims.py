"""Claims v2: each constructor on made-up data that passes, fails, and straddles its bound."""

import json

import numpy as np
import pytest
import xarray as xr

from jaxtheory import NotApplicable, analysis, claims
from jaxtheory.claims import SOURCES, VERDICTS, Claim, describe_interval, describe_rule


def _seeds(center, spread, n=64, seed=0):
    """n seeds with sample mean exactly `center` and sample sd `spread`."""
    z = np.random.default_rng(seed).standard_normal(n)
    z = (z - z.mean()) / z.std(ddof=1)
    return xr.Dataset({"x": ("seed", center + spread * z)})


def _m(ds, spec):
    return ds["x"]


@pytest.mark.parametrize("center,verdict", [(0.5, "pass"), (1.5, "fail"), (1.0, "inconclusive")])
def test_at_most_pass_fail_straddle(center, verdict):
    # sd 0.8 over 64 seeds: SE 0.1, so the 95% interval is about ±0.2 around the mean
    r = Claim.at_most("c", "x ≤ 1.", _m, 1.0, source="proposed").evaluate(_seeds(center, 0.8), None)
    assert r.verdict == verdict
    assert r.measured == pytest.approx(center)
    lo, hi = r.interval
    assert lo < center < hi and 0.3 < hi - lo < 0.5
    assert r.n == 64 and r.passed == (verdict == "pass")


@pytest.mark.parametrize("center,verdict", [(1.5, "pass"), (0.5, "fail"), (1.0, "inconclusive")])
def test_at_least_pass_fail_straddle(center, verdict):
    r = Claim.at_least("c", "x ≥ 1.", _m, 1.0, source="proposed").evaluate(_seeds(center, 0.8), None)
    assert r.verdict == verdict


@pytest.mark.parametrize("center,verdict", [(0.0, "pass"), (2.0, "fail"), (0.5, "inconclusive")])
def test_close_and_within(center, verdict):
    ds = _seeds(center, 0.8)
    assert (
        Claim.close("c", "x = 0.", _m, 0.0, atol=0.5, source="proposed").evaluate(ds, None).verdict == verdict
    )
    assert (
        Claim.within("w", "x in [-.5, .5].", _m, -0.5, 0.5, source="proposed").evaluate(ds, None).verdict
        == verdict
    )
    r = Claim.close("r", "x = 1 ± 10%.", _m, 1.0, rtol=0.1, source="proposed").evaluate(
        _seeds(1.0, 0.01), None
    )
    assert r.verdict == "pass" and r.tolerance == {"atol": 0.0, "rtol": 0.1}


def _curves(slopes, n, sigma, seed=0):
    T = np.array([16.0, 64.0, 256.0, 1024.0])
    rng = np.random.default_rng(seed)
    y = np.stack([T[None] ** s * np.exp(sigma * rng.standard_normal((n, T.size))) for s in slopes], -1)
    return xr.Dataset(
        {"err": (("seed", "T", "p"), y)}, coords={"T": T, "p": [1.25, 1.5, 1.75][: len(slopes)]}
    )


def test_slope_per_cell_expected_pass_fail_straddle():
    pred = lambda c: -(c["p"] - 1) / c["p"]  # noqa: E731
    meas = lambda ds, s: ds["err"]  # noqa: E731
    truth = [-0.2, -1 / 3, -3 / 7]
    claim = Claim.slope("rate", "slope −(p−1)/p.", meas, "T", expected=pred, atol=0.05, source="proposed")
    ok = claim.evaluate(_curves(truth, 256, 0.1), None)
    assert ok.verdict == "pass" and set(ok.cells.values()) == {"pass"}
    assert ok.expected == {
        "p=1.25": -0.2,
        "p=1.5": pytest.approx(-1 / 3, abs=1e-6),
        "p=1.75": pytest.approx(-3 / 7, abs=1e-6),
    }
    bad = claim.evaluate(_curves([-0.2, -1 / 3, -0.7], 256, 0.1), None)
    assert bad.verdict == "fail" and bad.cells["p=1.75"] == "fail" and bad.cells["p=1.25"] == "pass"
    # sixteen seeds of heavy noise cannot decide a ±0.05 band; four seeds form no interval
    assert claim.evaluate(_curves(truth, 16, 1.0), None).verdict == "inconclusive"
    few = claim.evaluate(_curves(truth, 4, 0.01), None)
    assert few.verdict == "inconclusive" and few.n == 4
    # a bound instead of a value
    assert (
        Claim.slope("b", "slope ≤ −0.1.", meas, "T", at_most=-0.1, source="proposed")
        .evaluate(_curves(truth, 256, 0.1), None)
        .verdict
        == "pass"
    )
    with pytest.raises(ValueError, match="exactly one"):
        Claim.slope("x", "", meas, "T", expected=-1, at_most=0, atol=0.1, source="proposed")


def test_slope_xmin_uses_asymptotic_range():
    T = np.array([10.0, 100.0, 1000.0, 10000.0])
    y = T**-1.0 + 0.1 * T**-0.5  # pre-asymptotic: the slope flattens toward -1/2
    ds = xr.Dataset({"e": ("T", y)}, coords={"T": T})
    c = lambda **kw: Claim.slope(
        "s",
        "",
        lambda ds, s: ds["e"],
        "T",
        over=None,
        expected=-0.55,  # noqa: E731
        atol=0.05,
        source="derived",
        **kw,
    )
    full, tail = c().evaluate(ds, None), c(xmin=1000).evaluate(ds, None)
    assert full.interval is None  # exact curves: no interval
    assert full.verdict == "fail" and tail.verdict == "pass" and tail.measured > full.measured


def test_ordering_paired_bootstrap():
    rng = np.random.default_rng(0)
    common = rng.standard_normal((32, 1))  # a shared per-seed effect: pairing removes it
    loss = np.array([[1.0, 1.1, 1.5]]) + common + 0.02 * rng.standard_normal((32, 3))
    ds = xr.Dataset({"loss": (("seed", "method"), loss)}, coords={"method": ["a", "b", "c"]})
    m = lambda ds, s: ds["loss"]  # noqa: E731
    r = Claim.ordering("o", "a < b < c.", m, "method", ["a", "b", "c"], source="proposed").evaluate(ds, None)
    assert r.verdict == "pass", r
    assert set(r.cells) == {"a→b", "b→c"}
    assert (
        Claim.ordering("o", "c < b.", m, "method", ["c", "b"], source="proposed").evaluate(ds, None).verdict
        == "fail"
    )
    # a margin larger than the a→b gap makes that step undecidable or failing
    r = Claim.ordering("o", "", m, "method", ["a", "b"], margin=0.1, source="proposed").evaluate(ds, None)
    assert r.verdict in ("inconclusive", "fail")
    r = Claim.ordering("o", "", m, "method", ["c", "a"], increasing=False, source="proposed").evaluate(
        ds, None
    )
    assert r.verdict == "pass"


def test_identity_fraction_equals():
    assert (
        Claim.identity("i", "", lambda ds, s: np.array([1e-12, -3e-11]), 1e-10).evaluate(None, None).verdict
        == "pass"
    )
    r = Claim.identity("i", "", lambda ds, s: {"a": 1e-3}, 1e-10).evaluate(None, None)
    assert r.verdict == "fail" and r.source == "derived" and r.measured == pytest.approx(1e-3)
    lanes = np.r_[np.ones(190, bool), np.zeros(10, bool)]
    assert (
        Claim.fraction("f", "", lambda ds, s: lanes, at_least=0.8, source="proposed")
        .evaluate(None, None)
        .verdict
        == "pass"
    )
    assert (
        Claim.fraction("f", "", lambda ds, s: lanes, at_least=0.95, source="proposed")
        .evaluate(None, None)
        .verdict
        == "inconclusive"
    )  # 0.95 measured: the bound is inside its interval
    assert (
        Claim.fraction("f", "", lambda ds, s: (10, 200), at_most=0.01, source="proposed")
        .evaluate(None, None)
        .verdict
        == "fail"
    )
    assert (
        Claim.equals("e", "", lambda ds, s: [1, 2], [1, 2], source="sanity").evaluate(None, None).verdict
        == "pass"
    )
    assert Claim.equals("e", "", lambda ds, s: 3, 0, source="sanity").evaluate(None, None).verdict == "fail"


def test_not_applicable_declared_or_raised_and_a_raising_measurement_is_an_error():
    needs_k4 = lambda ds, s: None if 4 in ds["K"].values else "the preset has no K = 4"  # noqa: E731
    ds = xr.Dataset({"x": (("seed", "K"), np.ones((4, 2)))}, coords={"K": [2, 8]})
    r = Claim.at_most("c", "", _m, 2.0, source="proposed", requires=needs_k4).evaluate(ds, None)
    assert r.verdict == "not-applicable" and "K = 4" in r.reason and not r.passed

    def raises(ds, spec):
        raise NotApplicable("no GP prior draws on the test-function preset")

    assert (
        Claim.at_most("c", "", raises, 1.0, source="proposed").evaluate(ds, None).verdict == "not-applicable"
    )
    r = Claim.at_most("c", "", lambda ds, s: ds["missing"], 1.0, source="proposed").evaluate(ds, None)
    assert r.verdict == "error" and "missing" in r.error and not r.passed
    # a requires that raises is an error too, never a refutation
    r = Claim.at_most("c", "", _m, 1.0, source="proposed", requires=lambda ds, s: 1 / 0).evaluate(ds, None)
    assert r.verdict == "error" and "ZeroDivisionError" in r.error
    # so is a slope or an ordering whose measure raises
    boom = lambda ds, s: ds["missing"]  # noqa: E731
    assert (
        Claim.slope("s", "", boom, "T", at_most=0.0, source="derived").evaluate(ds, None).verdict == "error"
    )
    assert (
        Claim.ordering("o", "", boom, "m", ["a", "b"], source="derived").evaluate(ds, None).verdict == "error"
    )


def test_nan_statistic_is_an_error_not_a_fail():
    ds = xr.Dataset({"x": ("seed", np.r_[np.full(15, 0.1), np.nan])})
    r = Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(ds, None)
    assert r.verdict == "error" and "NaN" in r.error
    r = Claim.identity("i", "", lambda ds, s: np.array([0.0, np.nan]), 1e-9).evaluate(None, None)
    assert r.verdict == "error"
    cells = xr.Dataset(
        {"x": (("seed", "k"), np.c_[np.full(16, 0.1), np.r_[np.full(15, 0.1), np.nan]])}, coords={"k": [1, 2]}
    )
    r = Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(cells, None)
    assert r.verdict == "error" and r.cells == {"k=1": "pass", "k=2": "error"} and "k=2" in r.error


def test_censored_sample_gives_a_one_sided_interval():
    # 14 runs reach the target near t = 0.1, two never do within the horizon (+inf)
    x = np.r_[np.linspace(0.09, 0.11, 14), np.inf, np.inf]
    ds = xr.Dataset({"x": ("seed", x)})
    r = Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(ds, None)
    assert r.verdict == "inconclusive"  # the data bound the mean from below only
    lo, hi = r.interval
    assert hi == float("inf") and 0.09 <= lo <= 0.11
    assert Claim.at_most("c", "", _m, 0.05, source="proposed").evaluate(ds, None).verdict == "fail"
    assert Claim.at_least("c", "", _m, 0.05, source="proposed").evaluate(ds, None).verdict == "pass"
    # with the horizon known, each censored time is at least the horizon
    da = xr.DataArray(np.r_[x[:14], np.full(6, np.inf)], dims="seed", attrs={"censored_at": 100.0})
    r = Claim.at_most("c", "", lambda d, s: da, 1.0, source="proposed").evaluate(ds, None)
    assert r.verdict == "fail" and r.interval[0] > 1.0 and r.interval[1] == float("inf")
    # an infinity alone decides nothing: too few seeds, every value censored, or exact
    few = xr.Dataset({"x": ("seed", np.array([0.1, np.inf, 0.2]))})
    assert Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(few, None).verdict == "inconclusive"
    alle = xr.Dataset({"x": ("seed", np.full(16, np.inf))})
    assert Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(alle, None).verdict == "inconclusive"
    exact = Claim.at_most("c", "", lambda d, s: float("inf"), 1.0, source="derived").evaluate(None, None)
    assert exact.verdict == "inconclusive"
    # censored below mirrors it; both sides at once leave it open
    e = claims.censored_estimate(-x)
    assert e.low == -float("inf") and -0.11 <= e.high <= -0.09
    both = claims.censored_estimate(np.r_[x, -np.inf])
    assert (both.low, both.high) == (-float("inf"), float("inf"))


def test_exact_statistic_from_seeds_obeys_the_seed_minimum():
    few = xr.Dataset({"x": ("seed", np.full(4, 0.1))})
    seed_mean = lambda ds, s: ds["x"].mean("seed")  # noqa: E731 - reduces the seeds by hand
    r = Claim.at_most("c", "", seed_mean, 1.0, over=None, source="proposed").evaluate(few, None)
    assert r.verdict == "inconclusive" and "fewer than 8 seeds" in r.reason
    r = Claim.at_most("c", "", seed_mean, 1.0, over=None, source="proposed", deterministic=True).evaluate(
        few, None
    )
    assert r.verdict == "pass"
    # identities and exact equalities are deterministic by construction
    assert Claim.identity("i", "", lambda ds, s: 0.0, 1e-9).evaluate(few, None).verdict == "pass"
    assert Claim.equals("e", "", lambda ds, s: 0, 0, source="sanity").evaluate(few, None).verdict == "pass"
    enough = xr.Dataset({"x": ("seed", np.full(8, 0.1))})
    assert Claim.at_most("c", "", seed_mean, 1.0, over=None, source="proposed").evaluate(enough, None).passed


def test_bootstrap_seed_hashes_the_whole_experiment_and_claim_name():
    seed = claims._seed_of
    # names sharing their first 8 bytes draw different resamples
    assert seed("ism-near-optimal") != seed("ism-near-optimal-k2")
    assert seed("rate", "exp-a") != seed("rate", "exp-b")
    assert seed("rate", "exp-a") == seed("rate", "exp-a") and 0 <= seed("rate", "exp-a") < 2**31
    ds = _seeds(0.0, 1.0)
    a = Claim.at_most("rate", "", _m, 5.0, source="proposed")
    assert a.evaluate(ds, None, experiment="x").interval != a.evaluate(ds, None, experiment="y").interval
    assert a.evaluate(ds, None, experiment="x").interval == a.evaluate(ds, None, experiment="x").interval


def test_paper_claims_carry_the_papers_words():
    with pytest.raises(ValueError, match="quote"):
        Claim.at_most("c", "", _m, 1.0, source="paper")
    with pytest.raises(ValueError, match="quote"):
        Claim.at_most("c", "", _m, 1.0, source="reconstruction")
    with pytest.raises(ValueError, match="where"):
        Claim.close("c", "", _m, 1.0, atol=0.1, source="paper-number")
    with pytest.raises(TypeError, match="unknown argument"):
        Claim.at_most("c", "", _m, 1.0, source="proposed", qoute="typo")
    with pytest.raises(ValueError, match="non-empty"):
        Claim.at_most("c", "", _m, 1.0, source="paper", quote="  ")
    c = Claim.at_most("c", "", _m, 1.0, source="reconstruction", quote="converges", stand_in="synthetic data")
    d = c.evaluate(_seeds(0.0, 0.1), None).to_json()
    assert (d["quote"], d["stand_in"], d["source"]) == ("converges", "synthetic data", "reconstruction")
    assert "where" not in d
    n = Claim.close("n", "", _m, 1.0, atol=0.1, source="paper-number", where="Table 2")
    assert n.where == "Table 2" and "reconstruction" in SOURCES and "error" in VERDICTS


def test_too_few_seeds_are_inconclusive():
    for n in (1, analysis.MIN_SAMPLE - 1):
        few = xr.Dataset({"x": ("seed", np.full(n, 0.1))})
        assert (
            Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(few, None).verdict == "inconclusive"
        )
    enough = xr.Dataset({"x": ("seed", np.linspace(0.09, 0.11, analysis.MIN_SAMPLE))})
    assert Claim.at_most("c", "", _m, 1.0, source="proposed").evaluate(enough, None).verdict == "pass"


def test_bonferroni_widens_intervals_over_cells():
    x = np.random.default_rng(0).standard_normal((64, 10))
    ds = xr.Dataset({"x": (("seed", "cell"), x)}, coords={"cell": np.arange(10)})
    fam = Claim.at_most("c", "", _m, 5.0, source="proposed").evaluate(ds, None)
    ind = Claim.at_most("c", "", _m, 5.0, source="proposed", family=False).evaluate(ds, None)
    w = lambda r: np.mean([hi - lo for lo, hi in r.interval.values()])  # noqa: E731
    assert w(fam) > 1.2 * w(ind)


def test_claim_json_and_descriptions():
    r = Claim.close("c", "x = 0.", _m, 0.0, atol=0.5, source="proposed").evaluate(_seeds(0.0, 0.8), None)
    d = json.loads(json.dumps(r.to_json()))
    for key in ("verdict", "interval", "n", "source", "passed", "expected", "tolerance", "measured"):
        assert key in d
    assert d["passed"] is True and d["verdict"] in VERDICTS
    assert describe_rule(d) == "= 0 ± 0.5"
    assert describe_interval(d).startswith("[")
    with pytest.raises(ValueError, match="source"):
        Claim.at_most("c", "", _m, 1.0, source="folklore")
    assert "proposed" in SOURCES and isinstance(analysis.DEFAULT_LEVEL, float)


# -- one-sided intervals (added by the shifting-means-bai migration) ----------------------


@pytest.mark.parametrize(
    "make,verdict",
    [
        (lambda e: Claim.at_least("c", "", lambda ds, s: e, 3.0, source="derived"), "pass"),
        (lambda e: Claim.at_most("c", "", lambda ds, s: e, 3.0, source="derived"), "fail"),
        (lambda e: Claim.at_most("c", "", lambda ds, s: e, 4.5, source="derived"), "inconclusive"),
        (lambda e: Claim.close("c", "", lambda ds, s: e, 5.0, atol=2.0, source="derived"), "inconclusive"),
        (lambda e: Claim.close("c", "", lambda ds, s: e, 1.0, atol=2.0, source="derived"), "fail"),
    ],
)
def test_interval_open_above_is_a_lower_bound(make, verdict):
    # [4, inf): the data bound the statistic from below only (a mean of censored times):
    # it proves "≥ 3" and refutes "≤ 3" or "in [-1, 3]", and can never prove an upper bound
    r = make(analysis.Estimate(5.0, 4.0, float("inf"), 32, "bootstrap")).evaluate(None, None)
    assert r.verdict == verdict
    assert r.interval == [4.0, float("inf")]


def test_interval_open_below_and_nan_ends():
    below = analysis.Estimate(1.0, -float("inf"), 2.0, 32, "bootstrap")
    assert (
        Claim.at_most("c", "", lambda ds, s: below, 2.5, source="derived").evaluate(None, None).verdict
        == "pass"
    )
    assert (
        Claim.at_least("c", "", lambda ds, s: below, 2.5, source="derived").evaluate(None, None).verdict
        == "fail"
    )
    both = analysis.Estimate(1.0, -float("inf"), float("inf"), 32, "bootstrap")
    assert (
        Claim.at_least("c", "", lambda ds, s: both, 0.0, source="derived").evaluate(None, None).verdict
        == "inconclusive"
    )
    none = analysis.Estimate(1.0, float("nan"), float("nan"), 4, "bootstrap")
    assert (
        Claim.at_least("c", "", lambda ds, s: none, 0.0, source="derived").evaluate(None, None).verdict
        == "inconclusive"
    )
    stored = json.loads(
        json.dumps(
            Claim.at_least(
                "c",
                "",
                lambda ds, s: analysis.Estimate(5.0, 4.0, float("inf"), 32, "bootstrap"),
                3.0,
                source="derived",
            )
            .evaluate(None, None)
            .to_json()
        )
    )
    assert stored["interval"] == [4.0, "inf"] and describe_interval(stored) == "[4, inf]"


# -- the constructors reproduce the single-class implementation -----------------------------


def test_constructors_give_the_records_of_the_single_class_implementation():
    import _claims_reference_cases as cases
    from pathlib import Path

    from jaxtheory.sweep import store

    ref = json.loads((Path(__file__).parent / "claims_reference.json").read_text())
    names = []
    for name, claim, ds in cases.cases():
        got = store.to_jsonable(claim.evaluate(ds, None, experiment="reference").to_json())
        got.pop("per_cell", None)  # the per-cell records are new
        assert json.loads(json.dumps(got)) == ref[name], name
        names.append(name)
    assert sorted(names) == sorted(ref)


# -- statistics and regions, composed ---------------------------------------------------------

from jaxtheory.claims import Region, Stat  # noqa: E402


def _cells_ds(n=16):
    """x[seed, p] = p + (seed - mean seed)/10: the mean of cell p is exactly p."""
    dev = (np.arange(n) - (n - 1) / 2) / 10
    return xr.Dataset(
        {"x": (("seed", "p"), np.add.outer(dev, [1.0, 2.0, 3.0]))}, coords={"p": [1.0, 2.0, 3.0]}
    )


def _claim(stat, region, **kw):
    return Claim("c", "", stat, region, source="proposed", **kw)


def test_regions_give_their_bounds_per_cell():
    ds = _cells_ds()
    for region, bounds in [
        (Region.at_most(2.5), (-np.inf, 2.5)),
        (Region.at_least(0.5), (0.5, np.inf)),
        (Region.within(0.0, 4.0), (0.0, 4.0)),
        (Region.close(2.0, atol=0.5), (1.5, 2.5)),
        (Region.close(2.0, rtol=0.25), (1.5, 2.5)),
        (Region.close(2.0, atol=0.1, rtol=0.2), (1.5, 2.5)),
    ]:
        r = _claim(Stat.mean(_m), region).evaluate(ds, None)
        assert [c.region for c in r.per_cell] == [pytest.approx(bounds)] * 3
    # per cell: a function of the cell's coordinates
    r = _claim(Stat.mean(_m), Region.close(lambda c: c["p"], atol=lambda c: c["p"] / 2)).evaluate(ds, None)
    assert [c.region for c in r.per_cell] == [pytest.approx((0.5 * p, 1.5 * p)) for p in (1.0, 2.0, 3.0)]
    assert r.expected == {"p=1": 1.0, "p=2": 2.0, "p=3": 3.0} and r.verdict == "pass"
    with pytest.raises(ValueError, match="atol or rtol"):
        Region.close(1.0)


def test_mean_median_and_exact_values_per_cell():
    ds = _cells_ds()
    r = _claim(Stat.mean(_m), Region.at_most(10.0)).evaluate(ds, None)
    assert [c.value for c in r.per_cell] == pytest.approx([1.0, 2.0, 3.0])
    assert all(c.low < c.value < c.high for c in r.per_cell)
    assert [c.coords for c in r.per_cell] == [{"p": 1.0}, {"p": 2.0}, {"p": 3.0}]
    skew = xr.Dataset({"x": ("seed", np.r_[np.zeros(9), np.full(7, 100.0)])})
    assert _claim(Stat.median(_m), Region.at_most(1.0)).evaluate(skew, None).measured == 0.0
    assert _claim(Stat.mean(_m), Region.at_most(1.0)).evaluate(skew, None).measured == pytest.approx(43.75)
    exact = _claim(Stat.mean(_m, over=None), Region.at_most(2.5), deterministic=True).evaluate(
        ds["x"].mean("seed").to_dataset(name="x"), None
    )
    assert exact.interval == {"p=1": None, "p=2": None, "p=3": None}
    assert exact.cells == {"p=1": "pass", "p=2": "pass", "p=3": "fail"}


def test_ratio_of_means_is_paired_and_per_cell():
    den = 1.0 + np.random.default_rng(0).random((16, 2))
    ds = xr.Dataset({"d": (("seed", "k"), den), "n": (("seed", "k"), den * [2.0, 3.0])}, coords={"k": [1, 2]})
    r = _claim(Stat.ratio(lambda ds, s: ds["n"], lambda ds, s: ds["d"]), Region.at_least(1.5)).evaluate(
        ds, None
    )
    # the numerator is the denominator times 2 (or 3) on every seed: every resample gives that ratio
    assert r.measured == {"k=1": pytest.approx(2.0), "k=2": pytest.approx(3.0)}
    assert r.interval["k=1"] == pytest.approx([2.0, 2.0]) and r.verdict == "pass"
    pair = _claim(Stat.ratio(lambda ds, s: (ds["n"], ds["d"])), Region.at_least(1.5)).evaluate(ds, None)
    assert pair.measured == r.measured


def test_slope_with_a_fit_window_per_cell():
    # y = T^-1 below a cell-dependent kink T = K and T^-1 K^... flat above: the slope is -1 on T <= K
    T = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])
    kinks = [100.0, 1000.0]
    y = np.stack([np.where(T <= k, 1 / T, 1 / k) for k in kinks], -1)
    ds = xr.Dataset({"y": (("T", "K"), y)}, coords={"T": T, "K": kinks})
    meas = lambda ds, s: ds["y"]  # noqa: E731
    whole = _claim(Stat.slope(meas, "T", over=None), Region.close(-1.0, atol=0.01), deterministic=True)
    assert whole.evaluate(ds, None).verdict == "fail"
    windowed = _claim(
        Stat.slope(meas, "T", over=None, xmax=lambda c: c["K"]),
        Region.close(-1.0, atol=0.01),
        deterministic=True,
    )
    r = windowed.evaluate(ds, None)
    assert r.verdict == "pass" and r.measured == {"K=100": pytest.approx(-1.0), "K=1000": pytest.approx(-1.0)}
    # the old constructor takes the per-cell window too
    old = Claim.slope(
        "s", "", meas, "T", over=None, expected=-1.0, atol=0.01, xmax=lambda c: c["K"], source="derived"
    )
    assert old.evaluate(ds, None).verdict == "pass"


def test_ordering_fraction_count_residual_value():
    loss = xr.DataArray(
        [[1.0, 2.0, 4.0], [1.0, 3.0, 2.0]], dims=("d", "m"), coords={"d": [1, 2], "m": list("abc")}
    )
    r = _claim(
        Stat.ordering(lambda ds, s: loss, "m", list("abc"), over=None),
        Region.at_least(0.0),
        deterministic=True,
    )
    r = r.evaluate(None, None)
    assert r.rule == "ordering" and r.expected == {"order": ["a", "b", "c"], "increasing": True}
    assert r.measured == {"d=1,a→b": 1.0, "d=1,b→c": 2.0, "d=2,a→b": 2.0, "d=2,b→c": -1.0}
    assert r.cells["d=2,b→c"] == "fail" and r.verdict == "fail"
    assert [c.coords for c in r.per_cell][:2] == [{"d": 1, "pair": "a→b"}, {"d": 1, "pair": "b→c"}]
    lanes = np.r_[np.ones(30, bool), np.zeros(10, bool)]
    f = _claim(Stat.fraction(lambda ds, s: lanes), Region.at_least(0.5)).evaluate(None, None)
    wilson = analysis.proportion(30, 40)
    assert (f.measured, f.interval) == (0.75, [claims._r(wilson.low), claims._r(wilson.high)])
    n = _claim(Stat.count(lambda ds, s: lanes), Region.at_most(30), deterministic=True).evaluate(None, None)
    assert (n.measured, n.verdict) == (30.0, "pass")
    res = _claim(Stat.residual(lambda ds, s: {"a": [1e-3, -2e-3]}), Region.at_most(1e-2), deterministic=True)
    assert res.evaluate(None, None).measured == pytest.approx(2e-3)
    eq = _claim(Stat.value(lambda ds, s: ["a", "b"]), Region.equals(["a", "b"])).evaluate(None, None)
    assert eq.verdict == "pass" and eq.rule == "equals"
    with pytest.raises(TypeError, match="Region.equals"):
        _claim(Stat.mean(_m), Region.equals(1.0))
    with pytest.raises(TypeError, match="Stat"):
        Claim("c", "", _m, Region.at_most(1.0), source="proposed")


def test_fraction_per_cell_is_a_bonferroni_family():
    ok = xr.DataArray(
        np.arange(40)[:, None] < np.array([[20, 30, 40]]), dims=("lane", "k"), coords={"k": [1, 2, 3]}
    )
    r = _claim(Stat.fraction(lambda ds, s: ok, over="lane"), Region.at_least(0.1)).evaluate(None, None)
    assert r.measured == {"k=1": 0.5, "k=2": 0.75, "k=3": 1.0}
    w = analysis.proportion(30, 40, level=1 - 0.05 / 3)
    assert r.interval["k=2"] == [claims._r(w.low), claims._r(w.high)]


# -- cells are coordinates --------------------------------------------------------------------


def test_expected_and_requires_always_receive_a_mapping():
    seen = []

    def bound(cell):
        seen.append(cell)
        return 10.0

    _claim(Stat.mean(_m), Region.at_most(bound)).evaluate(_seeds(0.0, 1.0), None)
    _claim(Stat.mean(_m), Region.at_most(bound)).evaluate(_cells_ds(), None)
    _claim(Stat.estimates(lambda ds, s: {"u": 1.0}), Region.at_most(bound), deterministic=True).evaluate(
        None, None
    )
    cells = analysis.Cells([({"k": 2, "alg": "sgd"}, analysis.Estimate(1.0, 0.5, 1.5, 16, "bootstrap"))])
    r = _claim(Stat.estimates(lambda ds, s: cells), Region.at_most(bound)).evaluate(None, None)
    distinct = [c for i, c in enumerate(seen) if c not in seen[:i]]  # asked for the region and the record
    assert distinct == [{}, {"p": 1.0}, {"p": 2.0}, {"p": 3.0}, {"cell": "u"}, {"k": 2, "alg": "sgd"}]
    assert all(type(c) is dict for c in seen)
    assert r.cells == {"k=2,alg=sgd": "pass"} and r.per_cell[0].coords == {"k": 2, "alg": "sgd"}


def test_per_cell_requires_marks_only_those_cells_not_applicable():
    ds = _cells_ds()
    # p = 3 fails "≤ 2.5"; excluding it leaves a passing claim over two cells
    claim = lambda req: _claim(Stat.mean(_m), Region.at_most(2.5), requires=req)  # noqa: E731
    r = claim(lambda ds, s, c: None if c["p"] < 3 else "no p = 3 here").evaluate(ds, None)
    assert r.verdict == "pass" and r.cells == {"p=1": "pass", "p=2": "pass", "p=3": "not-applicable"}
    assert set(r.measured) == {"p=1", "p=2"} and "no p = 3 here" in r.reason
    assert r.per_cell[-1].verdict == "not-applicable" and r.per_cell[-1].note == "no p = 3 here"
    assert claim(lambda ds, s, c: c["p"] != 3).evaluate(ds, None).verdict == "pass"

    def raises(ds, s, c):
        if c["p"] == 1:
            raise NotApplicable("p = 1 is trivial")

    assert claim(raises).evaluate(ds, None).cells["p=1"] == "not-applicable"
    assert claim(raises).evaluate(ds, None).verdict == "fail"
    none = claim(lambda ds, s, c: "never").evaluate(ds, None)
    assert none.verdict == "not-applicable" and none.reason == "never"
    # a requires that raises anything else is an error; a two-argument requires is claim-wide
    assert claim(lambda ds, s, c: 1 / 0).evaluate(ds, None).verdict == "error"
    assert claim(lambda ds, s: "no").evaluate(ds, None).verdict == "not-applicable"


def test_bonferroni_level_is_split_over_the_cells_judged():
    ds = _cells_ds(n=32)
    seed = claims._seed_of("c", "e")

    def interval(r, label):
        return r.interval[label]

    def expect(p, m):
        e = claims.censored_estimate(ds["x"].sel(p=p).values, level=1 - 0.05 / m, seed=seed)
        return [claims._r(e.low), claims._r(e.high)]

    r = _claim(Stat.mean(_m), Region.at_most(9.0)).evaluate(ds, None, experiment="e")
    assert interval(r, "p=2") == expect(2.0, 3)
    r = _claim(Stat.mean(_m), Region.at_most(9.0), requires=lambda ds, s, c: c["p"] > 1).evaluate(
        ds, None, experiment="e"
    )
    assert interval(r, "p=2") == expect(2.0, 2)
    r = _claim(Stat.mean(_m), Region.at_most(9.0), family=False).evaluate(ds, None, experiment="e")
    assert interval(r, "p=2") == expect(2.0, 1)
    # a slope is split the same way
    curves = _curves([-0.2, -1 / 3, -3 / 7], 32, 0.1)
    r = _claim(Stat.slope(lambda ds, s: ds["err"], "T"), Region.at_most(0.0)).evaluate(
        curves, None, experiment="e"
    )
    e = analysis.loglog_slope(curves["err"].sel(p=1.5), "T", level=1 - 0.05 / 3, seed=seed)
    assert r.interval["p=1.5"] == [claims._r(e.low), claims._r(e.high)]


def test_deferred_estimates_receive_the_family_level_and_the_claims_seed():
    # a measure that builds its own intervals returns functions (level, seed) -> Estimate:
    # the framework calls them at the Bonferroni level of the cells judged
    seen = []

    def cell(v):
        def est(level, seed):
            seen.append((level, seed))
            return analysis.Estimate(v, v - 0.1, v + 0.1, 10, "test", level)

        return est

    m = lambda ds, s: analysis.Cells(({"p": p}, cell(p)) for p in (1.0, 2.0, 3.0))  # noqa: E731
    r = _claim(Stat.estimates(m), Region.at_most(2.5)).evaluate(None, None, experiment="e")
    assert r.verdict == "fail" and [c.verdict for c in r.per_cell if c.coords["p"] < 3] == ["pass", "pass"]
    assert seen == [(1 - 0.05 / 3, claims._seed_of("c", "e"))] * 3
    seen.clear()
    r = _claim(Stat.estimates(m), Region.at_most(2.5), requires=lambda ds, s, c: c["p"] > 1).evaluate(
        None, None, experiment="e"
    )
    assert [lv for lv, _ in seen] == [1 - 0.05 / 2] * 2 and r.verdict == "fail"


def test_per_cell_records_in_json_worst_first():
    ds = _cells_ds()
    r = _claim(Stat.mean(_m), Region.at_most(2.05)).evaluate(ds, None)
    d = json.loads(json.dumps(r.to_json()))
    cells = d["per_cell"]
    assert [c["coords"] for c in cells] == [{"p": 1.0}, {"p": 2.0}, {"p": 3.0}]
    assert [c["verdict"] for c in cells] == ["pass", "inconclusive", "fail"]
    assert cells[0]["region"] == ["-inf", 2.05] and cells[0]["value"] == pytest.approx(1.0)
    assert cells[0]["low"] < 1.0 < cells[0]["high"] and "note" not in cells[1]
    few = _claim(Stat.mean(_m), Region.at_most(9.0)).evaluate(_cells_ds(n=4), None).to_json()
    assert "fewer than 8" in few["per_cell"][0]["note"]
    assert [c.label for c in r.worst_first()] == ["p=3", "p=2", "p=1"]
    lines = claims.describe_cells(d)
    assert [ln.split()[0] for ln in lines] == ["p=3", "p=2", "p=1"]
    assert "≤ 2.05" in lines[0] and lines[0].rstrip().endswith("fail")
    # an older record without per_cell is still shown, from its measured/interval/cells dicts
    old = {k: v for k, v in d.items() if k != "per_cell"}
    assert [ln.split()[0] for ln in claims.describe_cells(old)] == ["p=3", "p=2", "p=1"]
    single = _claim(Stat.mean(_m), Region.at_most(1.0)).evaluate(_seeds(0.0, 1.0), None).to_json()
    assert single["per_cell"][0]["coords"] == {} and claims.describe_cells(single) == []
