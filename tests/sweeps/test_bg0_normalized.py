"""The bg0-normalized experiment: the smoke preset runs, every claim evaluates, figures draw.

The verdicts are findings and are not asserted; only that each claim produced a
measurement without error, and the invariants of the simulator hold on every lane of
the smoke results (oracle calls within the budget, the normalized methods' travel bound
up to float32 rounding of the compensated displacement).
"""

import json

import matplotlib
import numpy as np
import pytest

from jaxtheory.registry import get_experiment

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    exp = get_experiment("bg0-normalized")
    return exp, exp.sweep("smoke", out=tmp_path_factory.mktemp("runs"), quiet=True)


def test_smoke_runs_and_claims_evaluate(smoke):
    exp, run = smoke
    claims = json.loads((run.run_dir / "claims.json").read_text())
    assert [c["name"] for c in claims] == [c.name for c in exp.claims]
    for c in claims:
        assert "error" not in c, c
        assert c["measured"] is not None
        assert isinstance(c["passed"], bool)


def test_smoke_results_invariants(smoke):
    _, run = smoke
    ds = run.results
    assert (ds["oracle_calls"] <= ds["budget"]).all()
    normalized = ds.sel({"algorithm": [0, 1, 2, 3]})
    assert (normalized["status"] == 0).all()
    assert float(normalized["travel_ratio"].max()) <= 1.0 + 1e-6
    assert np.isfinite(normalized["mean_grad_norm"]).all()


def test_figures_draw(smoke):
    from matplotlib.figure import Figure

    exp, run = smoke
    for fig_spec in exp.figures:
        fig = Figure(figsize=fig_spec.size)
        fig_spec.draw(run.results, run.spec, fig)
        assert fig.axes, fig_spec.name
