"""The moe-dmft experiment: its claims judge synthetic results correctly, and (slow) the
smoke preset runs with every claim passing and verdicts equal to the snapshot."""

import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr

from jaxtheory.sims.moe import dmft as D
from sweeps import moe_dmft as E
from sweeps.moe_dmft import EXPERIMENT

WIDTHS = [D.DMFT_WIDTH, 64, 256, 1024]
SNAPSHOT = Path(__file__).parents[1] / "verdicts" / "moe-dmft.smoke.json"


def _fake(gap_of_width, seeds=32, steps=21, residual=1e-6, dmft_noise=1e-5):
    """Results shaped like the sweep's: the DMFT curve plus seed noise of size gap(N)."""
    rng = np.random.default_rng(0)
    t = np.arange(steps)
    curve = 0.3 * np.exp(-t / 5) + 0.01
    loss = np.empty((len(WIDTHS), seeds, steps))
    for i, n in enumerate(WIDTHS):
        scale = dmft_noise if n == D.DMFT_WIDTH else gap_of_width(n)
        loss[i] = curve + scale * rng.standard_normal((seeds, steps))
    res = np.full((len(WIDTHS), seeds), np.nan)
    res[0] = residual
    its = np.where(np.isnan(res), np.nan, 12.0)
    ds = xr.Dataset(
        {
            "loss": (("width", "seed", "step"), loss),
            "residual": (("width", "seed"), res),
            "iterations": (("width", "seed"), its),
            "status": (("width", "seed"), np.zeros((len(WIDTHS), seeds), np.int8)),
        },
        coords={"width": WIDTHS, "seed": np.arange(seeds), "step": t},
    )
    return ds.assign_coords(D.DEFAULT_PARAMS)  # the parameters not swept: scalar coordinates


def _verdicts(ds):
    return {c.name: c.evaluate(ds, EXPERIMENT.spec) for c in EXPERIMENT.claims}


def test_claims_pass_on_inverse_sqrt_gaps():
    v = _verdicts(_fake(lambda n: 0.05 / np.sqrt(n)))
    assert all(c.error is None for c in v.values())
    assert all(c.verdict == "pass" for c in v.values()), {k: (c.measured, c.interval) for k, c in v.items()}
    assert v["gap-exponent"].measured == pytest.approx(-0.5, abs=0.05)
    lo, hi = v["gap-exponent"].interval
    assert lo <= v["gap-exponent"].measured <= hi and hi - lo < 0.1
    assert {c.name: c.source for c in EXPERIMENT.claims} == {
        "dmft-fixed-point": "derived",
        "gap-decreases-with-width": "reconstruction",
        "gap-exponent": "proposed",
        "dmft-reference-precise": "sanity",
    }


def test_claims_fail_on_a_gap_that_does_not_vanish_or_an_unconverged_solve():
    v = _verdicts(_fake(lambda n: 0.004 * (1 + 0.01 * np.sin(n)), residual=1e-3))
    assert v["gap-exponent"].verdict == "fail" and abs(v["gap-exponent"].measured) < 0.1
    assert v["dmft-fixed-point"].verdict == "fail"
    assert v["dmft-fixed-point"].measured == pytest.approx(1e-3 / D.DEFAULT_PARAMS["tol"])
    v = _verdicts(_fake(lambda n: 0.05 / np.sqrt(n), dmft_noise=2e-3))  # noisy reference
    assert v["dmft-reference-precise"].verdict == "fail"
    v = _verdicts(_fake(lambda n: 0.05 / np.sqrt(n) if n < 1000 else 0.05 / np.sqrt(128)))
    assert v["gap-decreases-with-width"].verdict == "fail"  # the gap grows from 256 to 1024
    assert v["gap-decreases-with-width"].cells["pair=256→1024"] == "fail"


def test_an_exponent_at_the_bound_is_inconclusive():
    v = _verdicts(_fake(lambda n: 0.05 * n**E.EXPONENT_BOUND))
    assert v["gap-exponent"].verdict == "inconclusive", (
        v["gap-exponent"].measured,
        v["gap-exponent"].interval,
    )


def test_gaps_recover_the_injected_sizes():
    widths, g, se, _, _ = E.gaps(_fake(lambda n: 0.05 / np.sqrt(n))["loss"])
    assert widths.tolist() == [64, 256, 1024]
    np.testing.assert_allclose(g, 0.05 / np.sqrt(widths), rtol=0.1)
    assert (se > 0).all() and (se < 0.1 * g).all()


def test_figures_draw_data():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from jaxtheory import plots

    ds = _fake(lambda n: 0.05 / np.sqrt(n))
    for f in EXPERIMENT.figures:
        fig = Figure()
        f.draw(ds, EXPERIMENT.spec, fig)
        plots.check_drawn(fig, f.name)  # raises on an axes without data


@pytest.mark.slow  # ~20-30 s of CPU here: 4 compiles (DMFT + 3 widths)
def test_smoke_preset_runs_and_claims_pass(tmp_path):
    res = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert [c.error for c in res.claims] == [None] * len(res.claims)
    assert res.passed, [(c.name, c.measured, c.interval) for c in res.claims]
    assert {c.name: c.verdict for c in res.claims} == json.loads(SNAPSHOT.read_text())
    ds = res.results
    assert np.isfinite(ds["loss"].values).all()
    assert (tmp_path / EXPERIMENT.name).exists()


def test_claims_are_judged_per_config_when_a_parameter_is_swept():
    # the full preset sweeps γ₀: each value is a cell of every claim
    good = _fake(lambda n: 0.05 / np.sqrt(n))
    flat = _fake(lambda n: 0.004 * (1 + 0.01 * np.sin(n)))
    ds = xr.concat([good, flat], dim="gamma0").assign_coords(gamma0=[1.0, 2.0])
    ds.attrs = good.attrs
    v = _verdicts(ds)
    assert v["gap-exponent"].cells == {"gamma0=1": "pass", "gamma0=2": "fail"}
    assert v["gap-exponent"].verdict == "fail"
    assert v["dmft-reference-precise"].error is None
