"""The linreg-two-phase experiment's smoke preset runs and its claims evaluate without error."""

import numpy as np
import pytest

from sweeps.linreg_two_phase import EXPERIMENT


@pytest.mark.slow  # ~60 s of CPU on this machine, mostly compiling one large program
def test_smoke_preset_runs_and_claims_evaluate(tmp_path):
    res = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert [c.error for c in res.claims] == [None] * len(res.claims)
    ds = res.results
    assert np.isfinite(ds["final_la"].values).all()
    assert (tmp_path / EXPERIMENT.name).exists()
    by = {c.name: c for c in res.claims}
    assert by["exact-identities"].passed and by["multiworker-ratio-one-at-k1"].passed
