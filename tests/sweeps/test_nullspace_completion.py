"""The nullspace-completion experiment: each claim's check on made-up data, and the smoke run."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment

matplotlib.use("Agg")

SEEDS = 8
PS = [0.1, 0.2, 0.3]
EPS = [0.0, 0.01, 0.03, 0.1, 0.3]
RANKS = [2, 4, 10]


@pytest.fixture(scope="module")
def exp():
    return get_experiment("nullspace-completion")


def _fake(slope=1.5, plain_ok=True, gap=0.0, overparam=1.0, eps0_diff=0.0):
    """Results with the smoke's dims: error = 0.5 eps^slope in the good (p = 0.3, r = 2) cell."""
    rng = np.random.default_rng(0)
    shape = (SEEDS, len(PS), len(EPS), len(RANKS))
    eps = np.asarray(EPS)[None, None, :, None]
    noise = np.exp(0.05 * rng.normal(size=shape))
    final = np.full(shape, 0.8) * noise  # failures elsewhere
    good = 0.5 * np.where(eps > 0, eps, 1e-4) ** slope * noise
    final[:, 2, :, 0] = good[:, 2, :, 0]
    final[:, 2, 0, 0] = 1e-6  # plain completion succeeds in the (p = 0.3, r = 2) cell
    # low p: r = 2 succeeds on every seed, r = 10 on a fraction `overparam` of them
    final[:, :2, :, 0] = 0.05
    final[:, :2, :, 2] = np.where(np.arange(SEEDS)[:, None, None] < int(overparam * SEEDS), 0.05, 0.8)
    plain = np.repeat(final[:, :, :1, :], len(EPS), axis=2).copy()
    if not plain_ok:
        plain[:] = 0.8
    final[:, :, 0, :] = plain[:, :, 0, :] + eps0_diff
    c = rng.uniform(0.7, 0.8, size=shape[:3])
    x = np.asarray(EPS)[None, None, :] ** 2 * c
    dims4, dims3 = ("seed", "p", "eps", "rank"), ("seed", "p", "eps")
    coords = {"seed": np.arange(SEEDS), "p": PS, "eps": EPS, "rank": RANKS}
    return xr.Dataset(
        {
            "final_error": (dims4, final),
            "plain_error": (dims4, plain),
            "delta_hat": (dims3, (1 - x) / (1 + x) + gap),
            "unit_min": (dims3, c),
        },
        coords=coords,
    )


def _verdict(exp, name, ds):
    claim = next(c for c in exp.claims if c.name == name)
    return claim.evaluate(ds, exp.spec)


def test_eps0_claim(exp):
    assert _verdict(exp, "eps0-is-plain-completion", _fake()).verdict == "pass"
    assert _verdict(exp, "eps0-is-plain-completion", _fake(eps0_diff=1e-3)).verdict == "fail"
    assert _verdict(exp, "eps0-is-plain-completion", _fake().sel(eps=EPS[1:])).verdict == "not-applicable"


def test_rip_claims(exp):
    assert _verdict(exp, "rip-one-at-eps0", _fake()).verdict == "pass"
    assert _verdict(exp, "rip-one-at-eps0", _fake(gap=-0.01)).verdict == "fail"
    res = _verdict(exp, "rip-lower-bound", _fake())
    assert res.verdict == "pass" and len(res.cells) == len(PS) * (len(EPS) - 1)
    assert _verdict(exp, "rip-lower-bound", _fake(gap=-0.01)).verdict == "fail"


def test_slope_claim(exp):
    res = _verdict(exp, "error-over-eps-nonincreasing", _fake(slope=1.5))
    assert res.verdict == "pass"
    # only the cell where plain completion succeeds, only the pairs with eps <= 0.1
    assert sorted(res.cells) == sorted(f"eps_pair={a},setting=p=0.3,r=2" for a in ("0.01→0.03", "0.03→0.1"))
    for v in res.measured.values():
        assert abs(v - 1.5) < 0.1
    assert _verdict(exp, "error-over-eps-nonincreasing", _fake(slope=0.5)).verdict == "fail"
    assert _verdict(exp, "error-over-eps-nonincreasing", _fake(plain_ok=False)).verdict == "not-applicable"


def test_overparam_claim(exp):
    assert _verdict(exp, "overparam-succeeds-as-often", _fake(overparam=1.0)).verdict == "pass"
    # ties (r = 10 as often as r = 2) pass
    tie = _fake(overparam=1.0)
    tie["final_error"].loc[dict(p=[0.1, 0.2])] = 0.8
    assert _verdict(exp, "overparam-succeeds-as-often", tie).verdict == "pass"
    assert _verdict(exp, "overparam-succeeds-as-often", _fake(overparam=0.0)).verdict == "fail"
    better = _fake(overparam=1.0)
    better["final_error"].loc[dict(p=[0.1, 0.2], rank=2)] = 0.8
    res = _verdict(exp, "overparam-succeeds-as-often", better)
    assert res.verdict == "pass" and res.measured == pytest.approx(1.0)
    no_over = _fake().sel(rank=[2])
    assert _verdict(exp, "overparam-succeeds-as-often", no_over).verdict == "not-applicable"


@pytest.mark.slow
def test_smoke_runs_claims_and_figures(exp, tmp_path):

    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in ("eps0-is-plain-completion", "rip-one-at-eps0", "rip-lower-bound"):
        assert by[name].verdict == "pass", by[name]
    ds = run.results
    assert np.isfinite(ds["final_error"]).all() and np.isfinite(ds["plain_error"]).all()
    # paired seeds: the problem (mask size, G) does not depend on eps
    assert (ds["observed"] == ds["observed"].isel(eps=0)).all()
