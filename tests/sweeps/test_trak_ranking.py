"""The trak-ranking experiment: each claim on made-up pass/fail data; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment

matplotlib.use("Agg")

N = (300, 100, 400, 2500)
P = (150, 50, 200, 50)
K = (0.125, 0.25, 0.5, 1.0)
SEEDS = 16


def _fake(
    alo_slope=-0.5,
    trak_slope=0.0,
    spearman_full=0.99,
    auc_full=1.0,
    k_gain=0.1,
    big_err=0.02,
    lev_ratio=0.99,
    odds_ratio=1.0,
):
    """A results set shaped like the smoke preset's, with chosen trends and 1 % seed noise."""
    rng = np.random.default_rng(0)
    p = np.asarray(P, float)
    noise = lambda *shape: 1 + 0.01 * rng.standard_normal(shape)  # noqa: E731
    big = np.asarray(N) == 50 * np.asarray(P)
    alo = 0.03 * (p / 50) ** alo_slope
    trak = 0.44 * (p / 50) ** trak_slope
    alo[big], trak[big] = big_err, big_err
    trak_k = trak[:, None] / np.sqrt(np.asarray(K))[None, :]  # error grows as k shrinks
    sp = spearman_full - k_gain * (len(K) - 1 - np.arange(4))
    auc = auc_full - 0.01 * (len(K) - 1 - np.arange(4))
    lev = 0.32 * np.ones(4)
    lev[big] = lev_ratio * p[big] / np.asarray(N)[big]
    odds_w = 0.76 * np.ones(4)
    dims3 = ("size", "seed", "k")
    data = {
        "alo_rel_err": (("size", "seed"), alo[:, None] * noise(4, SEEDS)),
        "trak_rel_err": (dims3, trak_k[:, None, :] * noise(4, SEEDS, 4)),
        "trak_spearman": (dims3, np.minimum(sp[None, None, :] * noise(4, SEEDS, 4), 1.0)),
        "trak_auc": (dims3, np.minimum(np.broadcast_to(auc, (4, SEEDS, 4)) * noise(4, SEEDS, 4), 1.0)),
        "trak_alo_err": (("size", "seed"), trak[:, None] * noise(4, SEEDS)),
        "mean_lev": (("size", "seed"), lev[:, None] * noise(4, SEEDS)),
        "lev_odds_weighted": (("size", "seed"), odds_w[:, None] * noise(4, SEEDS)),
        "trak_err_over_trak": (("size", "seed"), odds_ratio * odds_w[:, None] * noise(4, SEEDS)),
    }
    coords = {
        "size": np.arange(4),
        "n": ("size", np.asarray(N)),
        "p": ("size", np.asarray(P)),
        "n_loo": ("size", np.asarray((300, 64, 64, 64))),
        "seed": np.arange(SEEDS),
        "k": list(K),
    }
    return xr.Dataset(data, coords=coords)


def _claim(name):
    exp = get_experiment("trak-ranking")
    return next(c for c in exp.claims if c.name == name), exp.spec


CASES = [
    ("alo-error-vanishes", {}, {"alo_slope": -0.05}),
    ("trak-error-persists", {}, {"trak_slope": -0.5}),
    ("trak-spearman", {}, {"spearman_full": 0.8}),
    ("trak-top-decile-auc", {}, {"auc_full": 0.9}),
    ("spearman-monotone-in-k", {}, {"k_gain": -0.1}),
    ("large-sample-agreement", {}, {"big_err": 0.1}),
    ("mean-leverage-p-over-n", {}, {"lev_ratio": 0.7}),
    ("trak-error-from-leverages", {}, {"odds_ratio": 1.46}),
]


@pytest.mark.parametrize("name, good, bad", CASES, ids=[c[0] for c in CASES])
def test_claim_on_made_up_data(name, good, bad):
    claim, spec = _claim(name)
    assert claim.evaluate(_fake(**good), spec).verdict == "pass"
    assert claim.evaluate(_fake(**bad), spec).verdict == "fail"


def test_every_sampled_claim_has_a_case():
    exp = get_experiment("trak-ranking")
    assert {c.name for c in exp.claims} - {c[0] for c in CASES} == {"alo-exact-for-linear-ridge"}


def test_linear_ridge_identity_claim():
    claim, spec = _claim("alo-exact-for-linear-ridge")
    res = claim.evaluate(None, spec)
    assert res.verdict == "pass" and res.measured < 1e-12


def test_claims_not_applicable_without_their_sizes():
    ds = _fake().isel(size=[0])  # only the main n/p = 2 size
    for name in ("alo-error-vanishes", "large-sample-agreement", "mean-leverage-p-over-n"):
        claim, spec = _claim(name)
        assert claim.evaluate(ds, spec).verdict == "not-applicable"


@pytest.mark.slow
def test_smoke_preset(tmp_path):
    exp = get_experiment("trak-ranking")
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    ds = run.results
    assert (ds["status"] == 0).all()
    # The full fits converged (float32 gradient norm) and the metrics are finite.
    assert float(ds["grad_norm"].max()) < 1e-3
    assert all(bool(np.isfinite(ds[v]).all()) for v in ds.data_vars)
