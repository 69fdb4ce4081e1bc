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
