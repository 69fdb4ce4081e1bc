"""Smoke presets of the matrix-geometry experiments: run into a temporary directory,
every claim evaluates, every figure draws."""

import matplotlib
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

from jaxtheory.registry import get_experiment  # noqa: E402


# Compile-bound: 50-80 s each on the shared 2-core CPU under load (about 15-25 s idle),
# over the default run's budget; run with -m slow.
@pytest.mark.slow
@pytest.mark.parametrize("name", ["imuon-completion", "imuon-manifolds", "smuon-deep-linear"])
def test_smoke_runs_and_claims_evaluate(name, tmp_path):
    exp = get_experiment(name)
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    assert (run.run_dir / "results.nc").exists()
    assert (run.run_dir / "claims.json").exists()
    assert len(run.claims) == len(exp.claims)
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.measured is not None
    for f in exp.figures:
        f.draw(run.results, run.spec, Figure(figsize=f.size))
