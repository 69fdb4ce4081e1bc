"""The linreg-compute-frontier smoke preset runs, its claims evaluate, its figures draw;
the frontiers (lower envelopes over learning rates) match a plain-loop reference and its
fitted slope recovers a planted power law."""

import numpy as np
import xarray as xr

from jaxtheory.claims import SOURCES
from jaxtheory.report import write_figures
from sweeps.linreg_compute_frontier import ALGOS, EXPERIMENT, Spec, frontiers, slopes


def test_frontiers_match_loop_reference():
    rng = np.random.default_rng(0)
    risk = rng.lognormal(size=(5, 7))  # (lr, step)
    risk[1, 2] = np.nan  # a diverged run is ignored
    risk[:, 4] = np.nan  # every lr diverged: NaN
    ref = np.empty(7)
    for j in range(7):
        col = [risk[i, j] for i in range(5) if not np.isnan(risk[i, j])]
        ref[j] = min(col) if col else np.nan
    ds = xr.Dataset(
        {"risk": (("algo", "lr", "step"), risk[None])},
        coords={"algo": ["sgd"], "lr": np.arange(5.0), "step": np.arange(1, 8), "a": 1.5, "b": 1.5},
    )
    np.testing.assert_array_equal(frontiers(ds, None).squeeze().values, ref)


def test_slopes_recover_a_planted_frontier_exponent():
    """Risk = c_lr · t^(-(b-1)/a): the frontier is the smallest c_lr's curve, its slope the exponent."""
    steps = np.unique(np.geomspace(1, 512, 20).astype(int))
    a, b = np.array([1.5, 2.0]), np.array([1.5, 2.0])
    lr = np.array([0.5, 1.0])
    expo = -(b[None, :] - 1) / a[:, None]  # (a, b)
    c = np.array([2.0, 1.0])  # per lr
    risk = c[None, None, None, :, None] * steps[None, None, None, None, :] ** expo[:, :, None, None, None]
    risk = np.broadcast_to(risk, (2, 2, len(ALGOS), 2, steps.size)).copy()
    ds = xr.Dataset(
        {"risk": (("a", "b", "algo", "lr", "step"), risk)},
        coords={"a": a, "b": b, "algo": list(ALGOS), "lr": lr, "step": steps},
    )
    fitted = slopes(ds, Spec(steps=512, batch=4))
    for i, ai in enumerate(a):
        for j, bj in enumerate(b):
            e = fitted[f"a={ai:g},b={bj:g},algo=sgd"]
            assert e.exact and abs(e.value - expo[i, j]) < 1e-9


def test_smoke_runs_claims_evaluate_figures_draw(tmp_path):
    run = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert [c.error for c in run.claims] == [None] * len(run.claims)
    assert all(c.source in SOURCES for c in run.claims)
    ds = run.results
    assert np.isfinite(ds["risk"].values).any()
    by = {c.name: c for c in run.claims}
    assert by["frontier-monotone"].passed
    # exact curves: the slope claim has one exact value per (a, b), no interval
    sl = by["sgd-frontier-exponent"]
    assert len(sl.measured) == ds.sizes["a"] * ds.sizes["b"]
    assert all(v is None for v in sl.interval.values())
    paths = write_figures(run.run_dir, formats=("png",))
    assert {p.stem for p in paths} == {f.name for f in EXPERIMENT.figures}
    assert all(p.stat().st_size > 0 for p in paths)
