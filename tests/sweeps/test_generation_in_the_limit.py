"""generation-in-the-limit: every claim's check on made-up pass/fail data; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.discrete import generation as gen

matplotlib.use("Agg")

EXP = get_experiment("generation-in-the-limit")
CLAIMS = {c.name: c for c in EXP.claims}
SPEC = gen.GenerationSpec()
ALPHAS = [0.25, 0.5, 0.75, 1.0]
LAMS = [1.0, 0.9, 0.75]


def fake(
    collections=10,
    valid_excess=0.0,
    gain_scale=1.0,
    lam_slope=0.1,
    late_km=False,
    invalid_rate=0.005,
    tolerant_last=3990,
    novel_deficit=0.0,
    noise=0.002,
):
    """A made-up result set shaped like the smoke preset's.

    Recall is α/2 (+ ``valid_excess``) for km and density, plus ``gain_scale·(1 − α)`` on
    small windows for the tolerant one, plus ``lam_slope·(1 − λ)`` for the λ-relaxed ones.
    """
    rng = np.random.default_rng(0)
    a = np.array(ALPHAS)[:, None, None, None, None, None]
    lam = np.array(LAMS)[None, :, None, None, None, None]
    shape = (len(ALPHAS), len(LAMS), collections, 2, 3, len(SPEC.windows))
    w = np.array(SPEC.windows)
    recall = np.broadcast_to(a / 2 + valid_excess, shape).copy()
    recall[..., 0, :] -= 0.05  # km below the bound
    recall[..., 2, :] += gain_scale * (1 - a[..., 0, :]) * (w <= 48)
    recall[..., 1:, :] += lam_slope * (1 - lam)
    recall += noise * rng.standard_normal(shape)
    lanes = shape[:4]
    last = np.zeros(lanes + (3,), np.int32)
    last[..., 0] = 700
    last[..., 1] = 650
    last[..., 2] = tolerant_last
    if late_km:
        last[0, 0, 0, 0, 0] = SPEC.rounds // 2
    inv_last = np.zeros(lanes + (3,))
    inv_last[..., 2] = invalid_rate + 0.001 * rng.standard_normal(lanes)
    novel = np.ones(lanes + (3,)) * np.array(LAMS)[None, :, None, None, None]
    novel[..., 0] = 1.0
    novel[..., 1] -= novel_deficit
    dims = ("alpha", "lam", "collection", "seed")
    return xr.Dataset(
        {
            "recall": (dims + ("generator", "window"), recall),
            "last_invalid": (dims + ("generator",), last),
            "invalid_last": (dims + ("generator",), inv_last),
            "invalid_bins": (dims + ("generator", "bin"), np.zeros(lanes + (3, SPEC.bins))),
            "novel_frac": (dims + ("generator",), novel),
            "abstain": (dims + ("generator",), np.zeros(lanes + (3,), np.int32)),
        },
        coords={
            "alpha": ALPHAS,
            "lam": LAMS,
            "collection": np.arange(collections),
            "seed": np.arange(2),
            "generator": list(gen.GENERATORS),
            "window": list(SPEC.windows),
            "bin": np.arange(SPEC.bins),
        },
    )


def verdict(name, ds):
    return CLAIMS[name].evaluate(ds, SPEC).verdict


def test_eventually_valid():
    assert verdict("eventually-valid", fake()) == "pass"
    assert verdict("eventually-valid", fake(late_km=True)) == "fail"


def test_half_alpha_claims():
    assert verdict("recall-at-most-half-alpha", fake()) == "pass"
    assert verdict("recall-at-most-half-alpha", fake(valid_excess=0.1)) == "fail"
    assert verdict("density-attains-half-alpha", fake()) == "pass"
    assert verdict("density-attains-half-alpha", fake(valid_excess=-0.05)) == "fail"
    assert verdict("density-attains-half-alpha", fake(collections=4)) == "inconclusive"  # < 8: no interval
    # the bound is per α: α/2 + 0.05 at every α, not one number
    res = CLAIMS["recall-at-most-half-alpha"].evaluate(fake(), SPEC)
    assert res.expected["alpha=0.25,generator=km,window=16"] == pytest.approx(0.175)
    assert res.expected["alpha=1,generator=density,window=16000"] == pytest.approx(0.55)


def test_hallucination_claims():
    assert verdict("vanishing-hallucination-rate", fake()) == "pass"
    assert verdict("vanishing-hallucination-rate", fake(invalid_rate=0.02)) == "fail"
    assert verdict("infinitely-many-hallucinations", fake()) == "pass"
    assert verdict("infinitely-many-hallucinations", fake(tolerant_last=100)) == "fail"


def test_gain_ordering():
    assert verdict("recall-gain-grows-with-withheld-fraction", fake()) == "pass"
    assert verdict("recall-gain-grows-with-withheld-fraction", fake(gain_scale=-1.0)) == "fail"
    res = CLAIMS["recall-gain-grows-with-withheld-fraction"].evaluate(fake(), SPEC)
    assert set(res.cells) == {"0.25→0.5", "0.5→0.75", "0.75→1.0"}
    assert res.measured["0.25→0.5"] == pytest.approx(0.25, abs=0.01)


def test_tolerant_raises_recall():
    assert verdict("tolerant-raises-recall", fake()) == "pass"
    assert verdict("tolerant-raises-recall", fake(gain_scale=0.0)) == "fail"  # no gain
    res = CLAIMS["tolerant-raises-recall"].evaluate(fake(), SPEC)
    assert set(res.cells) == {"alpha=0.25", "alpha=0.5"}  # the α that withhold half or more
    assert verdict("tolerant-raises-recall", fake().sel(alpha=[0.75, 1.0])) == "not-applicable"


def test_lambda_ordering():
    assert verdict("recall-non-increasing-in-lambda", fake()) == "pass"
    # exact ties pass (the echo budget already covers the sample: the same recall, to the
    # bit); noisy ties cannot be told from a decrease
    assert verdict("recall-non-increasing-in-lambda", fake(lam_slope=0.0, noise=0.0)) == "pass"
    assert verdict("recall-non-increasing-in-lambda", fake(lam_slope=0.0)) == "inconclusive"
    assert verdict("recall-non-increasing-in-lambda", fake(lam_slope=-0.2)) == "fail"
    ds = fake().sel(lam=[1.0])
    assert verdict("recall-non-increasing-in-lambda", ds) == "not-applicable"


def test_novelty_sanity():
    assert verdict("lambda-novelty-respected", fake()) == "pass"
    assert verdict("lambda-novelty-respected", fake(novel_deficit=0.01)) == "fail"


@pytest.mark.slow  # the whole smoke preset; CI's docs build runs it too
def test_smoke(tmp_path):
    from matplotlib.figure import Figure

    from jaxtheory import plots

    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in ("eventually-valid", "lambda-novelty-respected", "recall-gain-grows-with-withheld-fraction"):
        assert by[name].verdict == "pass", name
    ds = run.results
    assert int(ds["abstain"].sum()) == 0
    assert bool((ds["final_critical"] == SPEC.revealed).all())  # every decoy refuted
    assert int(ds["last_refutation"].max()) <= SPEC.rounds // 5
    # the density generator is exactly on α/2 wherever the window holds an even |K'|
    dens = ds["recall"].sel(generator="density", lam=1.0, window=4800)
    np.testing.assert_allclose(dens.mean(["collection", "seed"]), ds["alpha"] / 2, atol=2e-3)
    for f in EXP.figures:
        fig = Figure()
        f.draw(ds, run.spec, fig)
        plots.check_drawn(fig, f.name)


def test_presets_keep_every_generator_supplied():
    """The adversary uses 2T elements of K', which has U·α/b of them: every preset must fit."""
    for name, preset in EXP.presets.items():
        spec = gen.GenerationSpec(**{**vars(EXP.spec), **preset.spec})
        alphas = preset.space.axes["alpha"].resolve()
        assert spec.universe * min(alphas) / max(gen.MODULI) > 2 * spec.rounds, name
        assert max(spec.windows) <= spec.universe
