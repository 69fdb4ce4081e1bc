"""gated-moe-rates: each claim's check on made-up pass/fail data; the smoke preset (slow)."""

import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment

N = np.array([100.0, 300.0, 1000.0, 3000.0, 10000.0, 30000.0])


def _made_up(slopes, grad=1e-9, seeds=16):
    """Voronoi losses c·n^slope·(1 + 5 % noise) per (expert, fitted), gradient norms ``grad``."""
    rng = np.random.default_rng(0)
    experts, fitted = ["linear", "gated"], [2, 3]
    vor = np.empty((2, 2, len(N), seeds))
    for i, e in enumerate(experts):
        for j, k in enumerate(fitted):
            vor[i, j] = (N ** slopes[(e, k)])[:, None] * np.exp(0.05 * rng.standard_normal((len(N), seeds)))
    dims = ("expert", "fitted", "n", "seed")
    coords = {"expert": experts, "fitted": fitted, "n": N, "seed": np.arange(seeds)}
    g = np.broadcast_to(np.asarray(grad, float).reshape(-1, 1, 1, 1) if np.ndim(grad) else grad, vor.shape)
    return xr.Dataset({"voronoi": (dims, vor), "grad_norm": (dims, np.array(g))}, coords=coords)


PAPER = {("gated", 2): -0.5, ("gated", 3): -0.3, ("linear", 2): -0.5, ("linear", 3): -0.02}
WRONG = {("gated", 2): -0.2, ("gated", 3): -0.1, ("linear", 2): -0.5, ("linear", 3): -0.5}


@pytest.fixture(scope="module")
def exp():
    return get_experiment("gated-moe-rates")


def _verdicts(exp, ds):
    return {c.name: c.evaluate(ds, exp.spec).verdict for c in exp.claims}


def test_claims_pass_in_the_papers_world(exp):
    v = _verdicts(exp, _made_up(PAPER))
    assert v == {"gated-exact-rate": "pass", "gated-over-rate": "pass", "linear-flat-top-decade": "pass"}


def test_claims_fail_in_a_wrong_world(exp):
    v = _verdicts(exp, _made_up(WRONG))
    assert v == {"gated-exact-rate": "fail", "gated-over-rate": "fail", "linear-flat-top-decade": "fail"}
    # too steep for the exact band fails too
    assert _verdicts(exp, _made_up({**PAPER, ("gated", 2): -0.75}))["gated-exact-rate"] == "fail"


def test_linear_claim_needs_both_fits_converged(exp):
    # the linear fit not converged: a flat curve is not evidence
    grad = np.array([1e-4, 1e-9])  # by expert: linear, gated
    assert _verdicts(exp, _made_up(PAPER, grad))["linear-flat-top-decade"] == "not-applicable"
    # the gated control not converged under the same optimiser: not counted either
    grad = np.array([1e-9, 1e-4])
    v = _verdicts(exp, _made_up(PAPER, grad))
    assert v["linear-flat-top-decade"] == "not-applicable"
    assert v["gated-exact-rate"] == "pass"  # the rate claims do not depend on it
    # without over-specified lanes the claims do not apply
    ds = _made_up(PAPER).sel(fitted=[2])
    v = _verdicts(exp, ds)
    assert v["gated-over-rate"] == "not-applicable" and v["linear-flat-top-decade"] == "not-applicable"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(exp, tmp_path):
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    ds = run.results
    assert (ds["n_used"].values == ds["n"].values[None, None, :, None]).all()  # masks took n
    assert np.isfinite(ds["voronoi"]).all()
    # least squares from near the truth: every fit is at least as good as the truth
    assert float(ds["excess"].max()) <= 0.0
    from matplotlib.figure import Figure

    for f in exp.figures:
        fig = Figure()
        f.draw(ds, exp.spec, fig)
        assert fig.axes
