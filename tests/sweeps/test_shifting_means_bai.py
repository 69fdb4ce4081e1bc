"""The shifting-means-bai experiment: the smoke preset runs and every claim evaluates.

Verdicts are not required to pass (the smoke preset has 32 episodes per cell); the
structure of the results and the censoring bookkeeping are checked exactly.
"""

import json

import numpy as np

from sweeps.shifting_means_bai import EXPERIMENT, SMOKE_ALGOS, SMOKE_CELLS, SMOKE_ENVS


def test_smoke_preset_runs_and_claims_evaluate(tmp_path):
    run = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    ds = run.results
    assert int((ds["status"] != 0).sum()) == 0
    assert len(run.claims) == len(EXPERIMENT.claims)
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.measured is not None, c.name
    stored = json.loads((run.run_dir / "claims.json").read_text())
    assert [c["name"] for c in stored] == [c.name for c in EXPERIMENT.claims]
    # structure: algo × env × cell × seed × delta
    assert ds.sizes["algo"] == len(SMOKE_ALGOS) and ds.sizes["env"] == len(SMOKE_ENVS)
    assert ds.sizes["cell"] == len(SMOKE_CELLS) and ds.sizes["delta"] == 3
    assert list(ds["policy"].values) == [a[0] for a in SMOKE_ALGOS]
    # censoring bookkeeping: every episode is exactly one of censored / correct / error,
    # and a censored episode's tau is its group's horizon
    stopped = ds["stopped"].values.astype(bool)
    censored = ds["censored"].values.astype(bool)
    correct = ds["correct"].values.astype(bool)
    error = ds["error"].values.astype(bool)
    np.testing.assert_array_equal(censored, ~stopped)
    np.testing.assert_array_equal(correct.astype(int) + error + censored, 1)
    horizon = ds["horizon"].values.reshape((-1,) + (1,) * (ds["tau"].ndim - 1))
    tau = ds["tau"].values
    assert np.all(np.where(censored, tau == horizon, tau <= horizon))
    # Track-and-Stop under the untargeted attack is censored (reported, not correct)
    tas = list(ds["policy"].values).index("tas_d")
    env = list(ds["env"].values).index(8)  # "untargeted"
    assert censored[tas, env].mean() > 0.5
