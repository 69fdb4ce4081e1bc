"""Smoke preset of `sweeps/imuon_manifolds.py`: runs into a temporary directory, claims evaluate."""

import matplotlib
import pytest

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

from sweeps.imuon_manifolds import EXPERIMENT  # noqa: E402


# Compile-bound: 50-80 s on the shared 2-core CPU under load (about 15-25 s idle), which
# is over this file set's 90 s budget; run with -m slow.
@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    run = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert (run.run_dir / "results.nc").exists()
    assert (run.run_dir / "claims.json").exists()
    assert len(run.claims) == len(EXPERIMENT.claims)
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.measured is not None
    for f in EXPERIMENT.figures:
        f.draw(run.results, run.spec, Figure(figsize=f.size))
