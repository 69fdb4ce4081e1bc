"""The grn-boosting experiment: each claim's check on made-up pass/fail data; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.functional import boosting as gb

matplotlib.use("Agg")

EXP = get_experiment("grn-boosting")
CLAIMS = {c.name: c for c in EXP.claims}
R, S = 30, 8
#: A spec whose trees can interpolate (capacity 30 × 64 / 100 = 19 leaf values per sample).
BIG = gb.BoostSpec(n_train=100, depth=6, rounds=R)


def _fake(newton_ratio=1e3, grn_final=1e-4, grn_rise=False, spread=1.5, test_spread=1.05, gamma_zero=None):
    """A results set with the experiment's dims: geometric training curves per method and η."""
    algos, lrs = list(gb.METHODS), [1.0, 0.1]
    rng = np.random.default_rng(0)
    k = np.arange(R + 1)
    train = np.empty((5, 2, S, R + 1))
    final_test = np.empty((5, 2, S))
    for a, m in enumerate(algos):
        for b, lr in enumerate(lrs):
            end = 0.05 * (spread if m == "gradient" else 1.0)
            if lr == 1.0 and m == "grn":
                end = grn_final
            curve = 3.0 * (end / 3.0) ** (k / R)
            if lr == 1.0 and m == "newton":
                curve = 3.0 * newton_ratio ** (k / R)
            train[a, b] = curve * (1 + 0.01 * rng.uniform(size=(S, 1)))
            final_test[a, b] = (
                0.16 * (test_spread if m == "gradient_l2" else 1.0) * (1 + 0.001 * rng.uniform(size=S))
            )
    if grn_rise:
        train[0, 0, :, R // 2] = train[0, 0, :, R // 2 - 1] * 1.1
    theta = rng.uniform(0.1, 1.0, size=(5, 2, S, R))
    gamma = rng.uniform(0.1, 1.0, size=(5, 2, S, R))
    if gamma_zero is not None:
        gamma[algos.index(gamma_zero), :, :, :3] = 0.0
    dims = ("algo", "lr", "seed")
    coords = {"algo": algos, "lr": lrs, "seed": np.arange(S), "round": k, "tree": np.arange(1, R + 1)}
    return xr.Dataset(
        {
            "train_loss": (dims + ("round",), train),
            "final_train": (dims, train[..., -1]),
            "final_test": (dims, final_test),
            "theta": (dims + ("tree",), theta),
            "gamma": (dims + ("tree",), gamma),
            "cat_residual": (dims, np.full((5, 2, S), 1e-8)),
        },
        coords=coords,
    )


def _verdict(name, ds, spec=BIG):
    return CLAIMS[name].evaluate(ds, spec).verdict


def test_every_claim_passes_on_made_up_good_data():
    ds = _fake()
    for name in CLAIMS:
        assert _verdict(name, ds) == "pass", name


def test_closed_form_claim():
    ds = _fake()
    assert _verdict("categorical-closed-form", ds) == "pass"
    # one lane off by 1e-3 of its scale: far above N·u = 100 · 6e-8
    ds["cat_residual"][0, 0, 0] = 1e-3
    assert _verdict("categorical-closed-form", ds) == "fail"


def test_newton_divergence_claim():
    assert _verdict("newton-diverges-eta1", _fake(newton_ratio=1e3)) == "pass"
    assert _verdict("newton-diverges-eta1", _fake(newton_ratio=2.0)) == "fail"


def test_grn_monotone_claim():
    assert _verdict("grn-monotone-eta1", _fake()) == "pass"
    assert _verdict("grn-monotone-eta1", _fake(grn_rise=True)) == "fail"
    # rises at float32's interpolation floor (loss ~1e-15) are rounding, not a rise
    ds = _fake(grn_final=1e-16)
    ds["train_loss"][0, 0, :, -1] = ds["train_loss"][0, 0, :, -2] * 1.5
    assert float(ds["train_loss"][0, 0, 0, -2]) < 1e-10
    assert _verdict("grn-monotone-eta1", ds) == "pass"


def test_grn_final_claim_and_capacity():
    assert _verdict("grn-final-eta1", _fake(grn_final=1e-5)) == "pass"
    assert _verdict("grn-final-eta1", _fake(grn_final=0.1)) == "fail"
    small = gb.BoostSpec(n_train=2000, depth=3, rounds=200)  # 0.8 leaf values per sample
    assert _verdict("grn-final-eta1", _fake(), small) == "not-applicable"


def test_spread_claims():
    assert _verdict("eta01-train-within-x4", _fake(spread=2.0)) == "pass"
    assert _verdict("eta01-train-within-x4", _fake(spread=10.0)) == "fail"
    assert _verdict("eta01-regularized-train-within-x4", _fake(spread=10.0)) == "fail"
    assert _verdict("eta01-test-within-15pct", _fake(test_spread=1.05)) == "pass"
    assert _verdict("eta01-test-within-15pct", _fake(test_spread=1.5)) == "fail"
    assert _verdict("eta01-regularized-test-within-15pct", _fake(test_spread=1.5)) == "fail"
    without = _fake().sel(lr=[1.0])
    assert _verdict("eta01-train-within-x4", without) == "not-applicable"


def test_diagnostics_claim():
    assert _verdict("diagnostics-in-range", _fake()) == "pass"
    # after exact interpolation (loss 0, g ≡ 0) Θ and γ are 0/0: those rounds are left out
    ds = _fake()
    ds["train_loss"][0, 0, :, -6:] = 0.0
    ds["theta"][0, 0, :, -5:] = np.nan
    ds["gamma"][0, 0, :, -5:] = np.nan
    assert _verdict("diagnostics-in-range", ds) == "pass"
    ds["theta"][0, 0, :, -6] = np.nan  # a NaN from a round that started above 0 counts
    assert _verdict("diagnostics-in-range", ds) == "fail"
    res = CLAIMS["diagnostics-in-range"].evaluate(_fake(gamma_zero="newton"), BIG)
    assert res.verdict == "fail" and res.measured["newton"] == 2 * S * 3 and res.measured["grn"] == 0


def test_figures_draw_on_made_up_data():
    from matplotlib.figure import Figure

    from jaxtheory import plots

    ds = _fake()
    for f in EXP.figures:
        fig = Figure()
        f.draw(ds, BIG, fig)
        plots.check_drawn(fig, f.name)


@pytest.mark.slow
def test_smoke(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    # decided with wide margins at 8 seeds (2026-12-01): log10 blow-up ~2.7 against 1,
    # scaled closed-form residual ~0.01 of the bound, the four regularized spreads ~1.03
    assert by["newton-diverges-eta1"].verdict == "pass"
    assert by["categorical-closed-form"].verdict == "pass"
    assert by["grn-monotone-eta1"].verdict == "pass"
    assert by["grn-final-eta1"].verdict == "not-applicable"
    assert by["eta01-regularized-train-within-x4"].verdict == "pass"
    ds = run.results
    assert list(ds["algo"].values) == list(gb.METHODS)
    assert np.isfinite(ds["train_loss"]).all()
