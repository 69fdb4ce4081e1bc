"""adversary-directed-online: every claim on a small real host-mode sweep and on doctored copies of it
(each claim must be able to fail); the whole smoke preset (slow)."""

import math

import matplotlib
import numpy as np
import pytest

from jaxtheory.registry import get_experiment
from jaxtheory.sims.discrete import online_games as og
from jaxtheory.sweep import Space, sweep, values, zipped

matplotlib.use("Agg")

EXP = get_experiment("adversary-directed-online")
CLAIMS = {c.name: c for c in EXP.claims}
# A 6-point wide domain keeps the unions of two intervals cheap (the 12-point one costs
# seconds); T = 2..6 and Hedge horizons 40..640 with 8 seeds: the interval needs ≥ 8.
SPEC = og.OnlineGameSpec(domain=6)


@pytest.fixture(scope="module")
def small():
    space = Space(
        cls=values(*og.CLASSES),
        size=zipped(T=[2, 3, 4, 5, 6], horizon=[40, 80, 160, 320, 640]),
        seeds=8,
        paired=("cls",),
    )
    res = sweep(
        EXP.run,
        SPEC,
        space,
        EXP.params,
        metric_dims=EXP.metric_dims,
        coords=EXP.coords,
        jit=False,
        quiet=True,
    )
    return res.dataset


def verdict(name, ds, spec=SPEC):
    return CLAIMS[name].evaluate(ds, spec).verdict


def _set(ds, var, value, **where):
    out = ds.copy(deep=True)
    out[var].loc[where] = value
    return out


def test_every_claim_passes_on_the_small_sweep(small):
    got = {name: verdict(name, small) for name in CLAIMS}
    assert got == {name: "pass" for name in CLAIMS}


def test_seed_free_fails_when_a_seed_differs(small):
    bad = _set(small, "transductive", 9, cls="singletons", seed=3)
    assert verdict("values-seed-free", bad) == "fail"


def test_exact_value_claims_fail_on_a_wrong_value(small):
    T3 = int(np.flatnonzero(small["T"].values == 3)[0])
    bad = _set(small, "adversary_directed", 3, cls="thresholds", size=T3)  # ⌊log2 4⌋ = 2
    assert verdict("thresholds-log2", bad) == "fail"
    assert verdict("directed-equals-standard", bad) == "fail"
    bad = _set(small, "standard_wide", 1, cls="thresholds", size=T3)  # min(3, ⌊log2 7⌋) = 2
    assert verdict("thresholds-wide-domain", bad) == "fail"
    bad = _set(small, "standard", 2, cls="singletons", size=T3)
    assert verdict("singletons-at-most-one", bad) == "fail"
    bad = _set(small, "transductive", 2, cls="all_labelings", size=T3)
    assert verdict("all-labelings-T", bad) == "fail"


def test_ordering_fails_when_a_weaker_adversary_wins(small):
    T3 = int(np.flatnonzero(small["T"].values == 3)[0])
    bad = _set(small, "transductive", 5, cls="two_intervals", size=T3)
    assert verdict("settings-ordered", bad) == "fail"


def test_hedge_claims_fail_on_doctored_regret(small):
    assert verdict("hedge-regret-bound", _set(small, "hedge_regret", 1e6, cls="thresholds")) == "fail"
    # regret ∝ T^0.9 against thresholds: far outside 0.5 ± 0.12
    h = small["horizon"].values.astype(float)
    steep = small.copy(deep=True)
    noise = 1 + 0.01 * np.random.default_rng(0).standard_normal((len(h), steep.sizes["seed"], 2))
    steep["hedge_regret"].loc[{"cls": "thresholds"}] = h[:, None, None] ** 0.9 * noise
    assert verdict("hedge-sqrt-T", steep) == "fail"
    flat = small.copy(deep=True)
    flat["hedge_regret"].loc[{"cls": "all_labelings"}] = np.sqrt(h)[:, None, None] * np.ones((1, 8, 2))
    assert verdict("all-labelings-linear-regret", flat) == "fail"


def test_hedge_claims_not_applicable_without_hedge(small):
    off = small.copy(deep=True)
    off["hedge_ran"].loc[{"cls": "thresholds"}] = 0
    assert verdict("hedge-sqrt-T", off) == "not-applicable"


def test_small_sweep_values_match_the_closed_forms(small):
    T = small["T"].values
    thr = small.sel(cls="thresholds").isel(seed=0)
    assert (thr["standard"].values == np.floor(np.log2(T + 1))).all()
    assert (thr["standard_wide"].values == np.minimum(T, math.floor(math.log2(SPEC.domain + 1)))).all()
    assert (small.sel(cls="all_labelings")["transductive"].isel(seed=0).values == T).all()
    # the coin adversary's regret varies over seeds, the directed one's does not
    reg = small["hedge_regret"].sel(cls="thresholds")
    assert float(reg.sel(adversary="coin").std("seed").min()) > 0
    assert float(reg.sel(adversary="directed").std("seed").max()) == 0


@pytest.mark.slow  # the whole smoke preset; CI's docs build runs it too
def test_smoke_preset(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    assert all(c.verdict == "pass" for c in run.claims), {c.name: c.verdict for c in run.claims}
    slope = by["hedge-sqrt-T"]
    assert slope.n == 16 and abs(slope.measured["adversary=coin"] - 0.5) < 0.06
