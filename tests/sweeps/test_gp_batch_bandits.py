"""The gp-batch-bandits experiment: the smoke preset runs, every claim evaluates, figures draw.

The verdicts are findings and are not asserted; only that each claim produced a
measurement without error, no lane went non-finite, and the figures draw.
"""

import json

import matplotlib
import matplotlib.pyplot as plt

import pytest

from jaxtheory.registry import get_experiment

matplotlib.use("Agg")


# About 40 s of CPU (3 compiles of the vmapped run, 576 lanes): over this file set's
# 60 s budget on the shared 2-core machine, so it runs with -m slow (and in the docs build).
@pytest.mark.slow
def test_smoke_preset_runs_and_claims_evaluate(tmp_path):
    exp = get_experiment("gp-batch-bandits")
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    assert int((run.results["status"] != 0).sum()) == 0  # no lane went non-finite
    assert [c.name for c in run.claims] == [c.name for c in exp.claims]
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.measured is not None
    stored = json.loads((run.run_dir / "claims.json").read_text())
    assert [c["name"] for c in stored] == [c.name for c in exp.claims]
    ds = run.results
    assert dict(ds["cum_regret"].sizes)["eval"] == 128
    assert set(ds["q"].values.tolist()) == {1, 4, 16}
    for fig in exp.figures:
        f = plt.figure(figsize=fig.size)
        fig.draw(ds, run.spec, f)
        plt.close(f)
