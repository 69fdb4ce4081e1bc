"""The segre-cp-recovery experiment: each claim's check on made-up pass/fail data, and the smoke run.

The made-up datasets have the results' layout (seed, r, sigma, init_error and the iteration
axes) with curves built by hand: quadratic (e_{k+1} = C e_k²) or linear RGN, geometric RGD
with a chosen factor, final errors at a chosen multiple of the inverse-Wishart floor. The
smoke run itself is marked slow (the docs build runs it).
"""

import json

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.claims import VERDICTS
from jaxtheory.registry import get_experiment

matplotlib.use("Agg")

EXP = get_experiment("segre-cp-recovery")
SPEC = EXP.spec
SEEDS, SIGMAS, INITS, RS = 8, (0.0, 1e-6, 1e-4, 1e-2), (0.3, 0.1), (1, 2)


def _made_up(*, quadratic=True, rgd_factor=0.65, floor_scale=1.0, sigma_power=1.0, rgd_slow=False):
    rng = np.random.default_rng(0)
    shape = (SEEDS, len(RS), len(SIGMAS), len(INITS))
    rgn = np.empty(shape + (SPEC.rgn_steps + 1,))
    rgd = np.empty(shape + (SPEC.rgd_steps + 1,))
    sq = np.empty(shape)
    for idx in np.ndindex(*shape):
        s, ri, si, ii = idx
        r, sig, e0 = RS[ri], SIGMAS[si], INITS[ii]
        df = r * (1 + SPEC.d * (SPEC.p - 1))
        floor_sq = (
            floor_scale
            * sig ** (2 * sigma_power)
            * df
            / (SPEC.n - df - 1)
            * np.exp(0.1 * rng.standard_normal())
        )
        floor = max(np.sqrt(floor_sq), 1e-16)
        e = [e0]
        for _ in range(SPEC.rgn_steps):
            e.append(max(0.5 * e[-1] ** 2 if quadratic else 0.5 * e[-1], floor))
        rgn[idx] = e
        q = rgd_factor * (1 + 0.01 * rng.standard_normal())
        k = np.arange(SPEC.rgd_steps + 1)
        rgd[idx] = np.maximum(e0 * (0.97 if rgd_slow else q) ** k, floor)
        sq[idx] = floor_sq
    dims = ("seed", "r", "sigma", "init_error")
    coords = {
        "seed": np.arange(SEEDS),
        "r": list(RS),
        "sigma": list(SIGMAS),
        "init_error": list(INITS),
        "lr": 0.5,  # a parameter the preset does not sweep: a scalar coordinate
    }
    # the spectrum that predicts the factor: max |1 - 0.5 mu| = 1 - 0.5 mu_min = rgd_factor
    mu_min = np.full(shape, 2 * (1 - rgd_factor))
    return xr.Dataset(
        {
            "rgn_error": (dims + ("rgn_iter",), rgn),
            "rgd_error": (dims + ("rgd_iter",), rgd),
            "rgn_sq_error": (dims, sq),
            "gn_eig_min": (dims, mu_min),
            "gn_eig_max": (dims, np.full(shape, 1.2)),
        },
        coords=coords,
    )


def _verdicts(ds):
    return {c.name: c.evaluate(ds, SPEC).verdict for c in EXP.claims}


def test_every_claim_passes_on_made_up_passing_data():
    v = _verdicts(_made_up())
    assert v == {c.name: "pass" for c in EXP.claims}, v


def test_linear_rgn_fails_the_quadratic_claim():
    v = _verdicts(_made_up(quadratic=False))
    assert v["rgn-quadratic"] == "fail"
    # e_{k+1} = e_k / 2 from 0.1 reaches 2x of 2.2e-7 only after ~18 iterations (censored at 11)
    assert v["rgn-few-iterations"] == "fail"


def test_slow_rgd_fails_the_factor_claim():
    v = _verdicts(_made_up(rgd_factor=0.9))
    assert v["rgd-linear-factor"] == "fail"
    assert v["rgd-linear-r2"] == "pass" and v["rgd-factor-matches-spectrum"] == "pass"


def test_rgd_off_its_spectrum_fails():
    ds = _made_up()
    ds["gn_eig_min"] = ds["gn_eig_min"] * 0.5  # predicts a factor of 0.825 where 0.65 is measured
    assert _verdicts(ds)["rgd-factor-matches-spectrum"] == "fail"


def test_wrong_floor_fails_and_wrong_power_fails():
    assert _verdicts(_made_up(floor_scale=1.6))["noise-floor"] == "fail"
    assert _verdicts(_made_up(sigma_power=0.8))["floor-linear-in-sigma"] == "fail"


def test_fast_rgd_fails_the_5x_claim():
    # RGD geometric at 0.3 per step from 0.1 reaches 4.4e-7 in about 11 iterations: 11/3 < 5
    assert _verdicts(_made_up(rgd_factor=0.3))["rgd-needs-5x-more"] == "fail"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    claims = json.loads((run.run_dir / "claims.json").read_text())
    assert [c["name"] for c in claims] == [c.name for c in EXP.claims]
    for c in claims:
        assert "error" not in c, c
        assert c["verdict"] in VERDICTS
    by = {c.name: c for c in run.claims}
    for name in (
        "rgn-quadratic",
        "rgd-linear-r2",
        "noise-floor",
        "floor-linear-in-sigma",
        "rgn-few-iterations",
    ):
        assert by[name].verdict == "pass", (name, by[name].measured)
    ds = run.results
    assert ds["rgn_error"].dtype == np.float64
    # noiseless RGN ends at float64 round-off
    assert float(ds["rgn_error"].sel(sigma=0.0).isel(rgn_iter=-1).max()) < 1e-14
    from matplotlib.figure import Figure

    from jaxtheory import plots

    for fig_spec in EXP.figures:
        fig = Figure(figsize=fig_spec.size)
        fig_spec.draw(ds, run.spec, fig)
        plots.check_drawn(fig, fig_spec.name)
