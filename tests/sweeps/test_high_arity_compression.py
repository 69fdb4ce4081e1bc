"""high-arity-compression: every claim's check on made-up pass/fail data; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.discrete import compression as cp

matplotlib.use("Agg")

EXP = get_experiment("high-arity-compression")
CLAIMS = {c.name: c for c in EXP.claims}
MS = np.array([8, 16, 32, 64, 128, 256, 512])
LI, LJ = 0.5, 0.6


def fake(seeds=64, ms=MS, box_slope=-1.0, half_slope=-2.0, box_scale=None, wrong=0, grow=False, big=False):
    """Made-up results: errors ∝ m^slope with 10 % log-normal noise (interval errors at their
    exact mean unless ``box_scale``), no wrong pairs unless ``wrong``, sizes 4 and 2."""
    rng = np.random.default_rng(0)
    s, k = seeds, len(ms)
    noise = lambda: np.exp(0.1 * rng.standard_normal((s, k)) - 0.005)  # noqa: E731 - mean 1
    exact = np.array([cp.box_expected_error(int(m), (0.0, LI, 0.0, LJ)) for m in ms])
    box = exact * (ms / ms[0]) ** (box_slope + 1.0) * (box_scale or 1.0) * noise()
    half = 0.02 * (ms / ms[0]) ** half_slope * noise() * (1e3 if big else 1.0)
    dis = np.zeros((s, k), int)
    dis[-1, -1] = wrong
    size_b = np.full((s, k), 4)
    size_b[:, :2] = 3  # smaller in some lanes is fine; the maximum over lanes is what counts
    size_b[0, :2] = 4
    if grow:
        size_b[0, -1] = 6
    d = ("seed", "m")
    return xr.Dataset(
        {
            "error_intervals": (d, box),
            "error_half_graph": (d, half),
            "disagreements_intervals": (d, dis),
            "disagreements_half_graph": (d, np.zeros((s, k), int)),
            "size_intervals": (d, size_b),
            "size_half_graph": (d, np.full((s, k), 2)),
            "length_i": ("seed", np.full(s, LI)),
            "length_j": ("seed", np.full(s, LJ)),
        },
        coords={"seed": np.arange(s), "m": ms},
    )


def verdict(name, ds):
    return CLAIMS[name].evaluate(ds, EXP.spec).verdict


def test_consistency_claim():
    assert verdict("reconstruction-consistent", fake()) == "pass"
    assert verdict("reconstruction-consistent", fake(wrong=1)) == "fail"


def test_size_claim():
    assert verdict("size-constant-in-m", fake()) == "pass"
    assert verdict("size-constant-in-m", fake(grow=True)) == "fail"


def test_rate_claims():
    ds = fake()
    assert verdict("intervals-rate", ds) == "pass"
    assert verdict("half-graph-rate", ds) == "pass"
    # a single slope −1 for both classes would fail the half-graph claim
    assert verdict("half-graph-rate", fake(half_slope=-1.0)) == "fail"
    assert verdict("intervals-rate", fake(box_slope=-0.5)) == "fail"
    # fewer than 3 sizes in the fit range: not applicable
    assert verdict("intervals-rate", fake(ms=np.array([8, 16, 32, 64]))) == "not-applicable"
    # too few seeds: no interval
    assert verdict("half-graph-rate", fake(seeds=4)) == "inconclusive"


def test_exact_mean_claim():
    assert verdict("intervals-exact-mean", fake()) == "pass"
    assert verdict("intervals-exact-mean", fake(box_scale=1.3)) == "fail"


def test_bound_form_claim():
    assert verdict("compression-bound-form", fake()) == "pass"
    assert verdict("compression-bound-form", fake(big=True)) == "fail"


@pytest.mark.slow
def test_smoke(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    assert {n: c.verdict for n, c in by.items()} == {n: "pass" for n in CLAIMS}
    ds = run.results
    assert list(ds["m"].values) == list(EXP.spec.ms)
    # nested samples: the kept sizes are bounded at every m, and the errors fall with m
    assert int(ds["size_intervals"].max()) == 4 and int(ds["size_half_graph"].max()) == 2
    mean = ds["error_half_graph"].mean("seed").values
    assert (np.diff(mean) < 0).all()
