"""`sweeps/moe_scaling.py`: the claims' measurements on synthetic results with known
exponents and optima (they must pass, and fail when the property is broken), the
figures, and (slow) the smoke preset end to end."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

from jaxtheory.sims.moe import AGG_TERMS, LAYERS  # noqa: E402
from sweeps import moe_scaling as ms  # noqa: E402

WIDTHS = np.array([32, 64, 128, 256])
LRS = np.array([0.25, 0.5, 1.0, 2.0, 4.0])


def synthetic(mssp_best=(2, 2, 2, 3), mup_best=(1, 2, 3, 4), mssp_update_slope=0.0, seed=0):
    """Results with exact exponents: μP h_agg0 ∝ N^-1/2, MSSP ∝ N^0; loss bowls in log LR."""
    rng = np.random.default_rng(seed)
    regs, opts, rules = ["I", "II", "III"], ["adam"], ["mup", "mssp"]
    shape = (len(WIDTHS), len(regs), len(opts), len(LRS), 4, len(rules))
    W = WIDTHS[:, None, None, None, None, None].astype(float)
    noise = 1 + 0.01 * rng.standard_normal(shape)
    mup_slope = np.array([-0.5, 0.0])[None, None, None, None, None, :]
    h0 = W ** mup_slope * noise
    z0 = np.where(np.arange(2) == 0, (W ** -0.5) * noise, 0.0)
    final = np.empty(shape)
    for r, best in enumerate((mup_best, mssp_best)):
        for i, b in enumerate(best):
            bowl = 0.1 / (1 + i) + 0.01 * (np.arange(len(LRS)) - b) ** 2
            final[i, :, :, :, :, r] = bowl[None, None, :, None]
    final = final * (1 + 1e-4 * rng.standard_normal(shape))
    upd = np.where(np.arange(2) == 1, W ** mssp_update_slope, W ** 0.3)[..., None] \
        * np.ones(len(LAYERS)) * noise[..., None]
    dims = ("width", "regime", "optimizer", "lr_scale", "seed", "rule")
    coords = {"width": WIDTHS, "regime": regs, "optimizer": opts, "lr_scale": LRS,
              "seed": np.arange(4), "rule": rules, "layer": list(LAYERS),
              "term": list(AGG_TERMS)}
    return xr.Dataset({
        "rms_h_agg0": (dims, h0), "rms_z0": (dims, z0), "final_loss": (dims, final),
        "rcc_effective": ((*dims, "layer"), upd.copy()),
        "rcc_propagating": ((*dims, "layer"), upd.copy()),
        "rms_dh_agg": (dims, upd[..., 0].copy()),
        "agg_terms": ((*dims, "term"), np.ones(shape + (4,))),
    }, coords=coords)


def claims(ds):
    return {c.name: c.evaluate(ds, None) for c in ms.EXPERIMENT.claims}


def test_claims_pass_on_data_with_the_papers_properties():
    res = claims(synthetic())
    for name, r in res.items():
        assert r.error is None, (name, r.error)
        assert r.passed, (name, r.measured)
    assert res["init-aggregate-mup-II"].measured["slope"] == pytest.approx(-0.5, abs=0.02)
    assert res["mssp-lr-transfer"].measured["III/adam"]["shift"] == 1


def test_claims_fail_when_the_property_is_broken():
    res = claims(synthetic(mssp_best=(0, 1, 2, 4), mup_best=(2, 2, 2, 2),
                           mssp_update_slope=0.3))
    assert not res["mssp-lr-transfer"].passed  # MSSP optimum drifts by 4 points
    assert not res["mssp-update-exponents"].passed
    assert res["mssp-update-exponents"].measured["max_abs_slope"] == pytest.approx(0.3, abs=0.02)
    # μP with a fixed optimum and a monotone loss: the "no transfer" claim must fail
    assert not res["mup-regime-III-no-transfer"].passed
    ds = synthetic()
    ds["final_loss"][{"rule": 1, "width": 3}] = ds["final_loss"][{"rule": 1, "width": 2}] + 0.01
    assert not claims(ds)["mssp-monotone-improvement"].passed
    ds = synthetic()
    ds["rms_h_agg0"][{"rule": 1}] = ds["rms_h_agg0"][{"rule": 0}]
    r = claims(ds)
    assert not r["init-aggregate-mssp-II"].passed and not r["init-aggregate-mssp-III"].passed


def test_update_slopes_skip_exact_zeros():
    ds = synthetic()
    ds["rcc_propagating"][{"layer": 0}] = 0.0  # W_in's input never changes
    s = ms.update_slopes(ds, "II", "adam", "mssp", lr_scale=1.0)
    assert "prop:W_in" not in s and "eff:W_in" in s


def test_figures_draw():
    ds = synthetic()
    for f in ms.EXPERIMENT.figures:
        f.draw(ds, None, Figure(figsize=f.size))


# Twelve compiles (widths × regimes); about 2 min on the shared 2-core CPU.
@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    run = ms.EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert (run.run_dir / "claims.json").exists()
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.measured is not None
    for name in ("init-aggregate-mup-II", "init-aggregate-mup-III", "init-aggregate-mssp-II",
                 "init-aggregate-mssp-III", "router-logits-regime-I"):
        assert next(c for c in run.claims if c.name == name).passed, name
    ds = run.results
    assert int((ds["status"] != 0).sum()) == 0
    for f in ms.EXPERIMENT.figures:
        f.draw(ds, run.spec, Figure(figsize=f.size))
