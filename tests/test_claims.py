"""Claims v2: each constructor on made-up data that passes, fails, and straddles its bound."""

import json

import numpy as np
import pytest
import xarray as xr

from jaxtheory import NotApplicable, analysis
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
    r = Claim.at_least("c", "x ≥ 1.", _m, 1.0, source="paper").evaluate(_seeds(center, 0.8), None)
    assert r.verdict == verdict


@pytest.mark.parametrize("center,verdict", [(0.0, "pass"), (2.0, "fail"), (0.5, "inconclusive")])
def test_close_and_within(center, verdict):
    ds = _seeds(center, 0.8)
    assert Claim.close("c", "x = 0.", _m, 0.0, atol=0.5, source="paper").evaluate(ds, None).verdict == verdict
    assert (
        Claim.within("w", "x in [-.5, .5].", _m, -0.5, 0.5, source="paper").evaluate(ds, None).verdict
        == verdict
    )
    r = Claim.close("r", "x = 1 ± 10%.", _m, 1.0, rtol=0.1, source="paper").evaluate(_seeds(1.0, 0.01), None)
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
    claim = Claim.slope("rate", "slope −(p−1)/p.", meas, "T", expected=pred, atol=0.05, source="paper")
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
        Claim.slope("b", "slope ≤ −0.1.", meas, "T", at_most=-0.1, source="paper")
        .evaluate(_curves(truth, 256, 0.1), None)
        .verdict
        == "pass"
    )
    with pytest.raises(ValueError, match="exactly one"):
        Claim.slope("x", "", meas, "T", expected=-1, at_most=0, atol=0.1, source="paper")


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
    r = Claim.ordering("o", "a < b < c.", m, "method", ["a", "b", "c"], source="paper").evaluate(ds, None)
    assert r.verdict == "pass", r
    assert set(r.cells) == {"a→b", "b→c"}
    assert (
        Claim.ordering("o", "c < b.", m, "method", ["c", "b"], source="paper").evaluate(ds, None).verdict
        == "fail"
    )
    # a margin larger than the a→b gap makes that step undecidable or failing
    r = Claim.ordering("o", "", m, "method", ["a", "b"], margin=0.1, source="paper").evaluate(ds, None)
    assert r.verdict in ("inconclusive", "fail")
    r = Claim.ordering("o", "", m, "method", ["c", "a"], increasing=False, source="paper").evaluate(ds, None)
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


def test_not_applicable_declared_or_raised_and_errors_fail():
    needs_k4 = lambda ds, s: None if 4 in ds["K"].values else "the preset has no K = 4"  # noqa: E731
    ds = xr.Dataset({"x": (("seed", "K"), np.ones((4, 2)))}, coords={"K": [2, 8]})
    r = Claim.at_most("c", "", _m, 2.0, source="paper", requires=needs_k4).evaluate(ds, None)
    assert r.verdict == "not-applicable" and "K = 4" in r.reason and not r.passed

    def raises(ds, spec):
        raise NotApplicable("no GP prior draws on the test-function preset")

    assert Claim.at_most("c", "", raises, 1.0, source="paper").evaluate(ds, None).verdict == "not-applicable"
    r = Claim.at_most("c", "", lambda ds, s: ds["missing"], 1.0, source="paper").evaluate(ds, None)
    assert r.verdict == "fail" and "missing" in r.error


def test_nonfinite_statistic_fails_and_too_few_seeds_are_inconclusive():
    ds = xr.Dataset({"x": ("seed", np.array([0.1, np.inf, 0.2]))})
    assert Claim.at_most("c", "", _m, 1.0, source="paper").evaluate(ds, None).verdict == "fail"
    for n in (1, analysis.MIN_SAMPLE - 1):
        few = xr.Dataset({"x": ("seed", np.full(n, 0.1))})
        assert Claim.at_most("c", "", _m, 1.0, source="paper").evaluate(few, None).verdict == "inconclusive"
    enough = xr.Dataset({"x": ("seed", np.linspace(0.09, 0.11, analysis.MIN_SAMPLE))})
    assert Claim.at_most("c", "", _m, 1.0, source="paper").evaluate(enough, None).verdict == "pass"


def test_bonferroni_widens_intervals_over_cells():
    x = np.random.default_rng(0).standard_normal((64, 10))
    ds = xr.Dataset({"x": (("seed", "cell"), x)}, coords={"cell": np.arange(10)})
    fam = Claim.at_most("c", "", _m, 5.0, source="paper").evaluate(ds, None)
    ind = Claim.at_most("c", "", _m, 5.0, source="paper", family=False).evaluate(ds, None)
    w = lambda r: np.mean([hi - lo for lo, hi in r.interval.values()])  # noqa: E731
    assert w(fam) > 1.2 * w(ind)


def test_claim_json_and_descriptions():
    r = Claim.close("c", "x = 0.", _m, 0.0, atol=0.5, source="paper").evaluate(_seeds(0.0, 0.8), None)
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
