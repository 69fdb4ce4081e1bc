"""The heavy-tail-sgd experiment: the smoke preset runs, every claim evaluates, figures draw.

The verdicts are findings and are not asserted (mean-based rates under infinite-variance
noise need far more seeds than a smoke run has); only that each claim produced a
measurement without error and the results are complete and finite where they must be.
"""

import json

import matplotlib
import numpy as np
import pytest

from jaxtheory.registry import get_experiment

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    exp = get_experiment("heavy-tail-sgd")
    return exp, exp.sweep("smoke", out=tmp_path_factory.mktemp("runs"), quiet=True)


def test_smoke_runs_and_claims_evaluate(smoke):
    exp, run = smoke
    claims = json.loads((run.run_dir / "claims.json").read_text())
    assert [c["name"] for c in claims] == [c.name for c in exp.claims]
    for c in claims:
        assert "error" not in c, c
        assert c["measured"] is not None
        assert isinstance(c["passed"], bool)


def test_smoke_results_complete(smoke):
    _, run = smoke
    ds = run.results
    assert set(ds["p"].values) == {1.25, 1.5, 1.75, 2.0}
    ok = ds["status"] == 0
    for name in ("avg_gap", "final_gap", "mean_sq_grad"):
        assert np.isfinite(ds[name].where(ok)).sum() == int(ok.sum())
    # The heaviest tail draws noise far beyond any Gaussian scale.
    assert float(ds["max_abs_noise"].sel(p=1.25).max()) > 100.0


def test_figures_draw(smoke):
    from matplotlib.figure import Figure

    exp, run = smoke
    for fig_spec in exp.figures:
        fig = Figure(figsize=fig_spec.size)
        fig_spec.draw(run.results, run.spec, fig)
        assert fig.axes, fig_spec.name
