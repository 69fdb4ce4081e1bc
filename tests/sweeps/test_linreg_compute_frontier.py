"""The linreg-compute-frontier smoke preset runs, its claims evaluate, its figures draw;
the frontier (lower envelope over learning rates) matches a plain-loop reference."""

import numpy as np

from jaxtheory.report import write_figures
from sweeps.linreg_compute_frontier import EXPERIMENT, fit_slope, frontier


def test_frontier_matches_loop_reference():
    rng = np.random.default_rng(0)
    risk = rng.lognormal(size=(5, 7))            # (lr, compute)
    risk[1, 2] = np.nan                          # a diverged run is ignored
    risk[:, 4] = np.nan                          # every lr diverged: NaN
    ref = np.empty(7)
    for j in range(7):
        col = [risk[i, j] for i in range(5) if not np.isnan(risk[i, j])]
        ref[j] = min(col) if col else np.nan
    np.testing.assert_array_equal(frontier(risk, axis=0), ref)
    # the axis argument: same result on the transposed array
    np.testing.assert_array_equal(frontier(risk.T, axis=1), ref)
    # an exact power law has its exponent as fitted slope
    c = np.logspace(0, 3, 10)
    assert abs(fit_slope(c, 3.0 * c ** -0.7, 10.0, 1000.0) + 0.7) < 1e-10


def test_smoke_runs_claims_evaluate_figures_draw(tmp_path):
    run = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert [c.error for c in run.claims] == [None] * len(run.claims)
    ds = run.results
    assert np.isfinite(ds["risk"].values).any()
    by = {c.name: c for c in run.claims}
    assert by["frontier-monotone"].passed
    paths = write_figures(run.run_dir, formats=("png",))
    assert {p.stem for p in paths} == {f.name for f in EXPERIMENT.figures}
    assert all(p.stat().st_size > 0 for p in paths)
