"""The seal-ring-attractor experiment: every claim's check on made-up passing and failing data,
and (slow, covered by the docs build) the smoke preset end to end."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.attractors import seal

matplotlib.use("Agg")

SEEDS, TRIALS, EULER = 8, 200, 40
V = [-1.0, -0.5, 0.0, 0.5, 1.0]


def _hat(n):
    """A Ricker-like kernel on lags 0..N/2: positive near, negative at intermediate lags."""
    d = 2 * np.pi * np.arange(n // 2 + 1) / n
    s = 0.4
    return (1 - (d / s) ** 2) * np.exp(-0.5 * (d / s) ** 2)


def _ds(**over):
    spec = seal.SealSpec()
    rng = np.random.default_rng(0)
    v = np.array(V)
    m = 2
    base = {
        "ortho": (("seed", "model", "trial"), np.full((SEEDS, m, TRIALS), 1e-8)),
        "max_rel_increase": (("seed", "model", "trial"), np.full((SEEDS, m, TRIALS), -1e-3)),
        "unstable_increase": (("seed", "model", "euler_trial"), np.full((SEEDS, m, EULER), 0.5)),
        "top_curvature": (("seed", "model"), np.full((SEEDS, m), 1.5)),
        "distance": (("seed", "model", "v", "trial"), np.full((SEEDS, m, 5, TRIALS), 1e-5)),
        "velocity": (("seed", "model", "v"), v + 1e-3 * rng.standard_normal((SEEDS, m, 5))),
        "drift": (("seed", "model", "trial"), np.full((SEEDS, m, TRIALS), 1e-7)),
        "w_kernel": (
            ("seed", "lag"),
            np.tile(_hat(spec.n), (SEEDS, 1)) + 1e-3 * rng.standard_normal((SEEDS, 33)),
        ),
        "euler_growth": (("seed", "model", "v"), np.tile([1.5, 1.2, 0.95, 1.2, 1.5], (SEEDS, m, 1))),
        "euler_distance": (
            ("seed", "model", "v", "euler_trial"),
            np.tile(np.array([np.nan, 5e3, 1e-5, 5e3, np.nan])[:, None], (SEEDS, m, 1, EULER)),
        ),
    }
    base.update(over)
    # dt and tau are not swept: scalar coordinates, as in a run's results
    coords = {"model": list(seal.MODELS), "v": v, "lag": np.arange(33), "dt": 0.05, "tau": 1.0}
    return xr.Dataset(base, coords=coords), spec


def _verdict(name, ds, spec):
    exp = get_experiment("seal-ring-attractor")
    claim = next(c for c in exp.claims if c.name == name)
    res = claim.evaluate(ds, spec)
    assert res.error is None if hasattr(res, "error") else True, res
    return res.verdict


def _replace(name, fn):
    ds, spec = _ds()
    arr = ds[name].values.copy()
    fn(arr)
    return _ds(**{name: (ds[name].dims, arr)})


FAILS = {
    "tangent-orthogonal": lambda a: a.__setitem__((0, 0, 0), 1e-3),
    "energy-descent": lambda a: a.__setitem__((3, 1, 7), 1e-4),
    "descent-lost-above-bound": lambda a: a.__setitem__(Ellipsis, -1e-3),
    "normal-attraction": lambda a: a.__setitem__((slice(None), 0, 2, slice(0, 40)), 1e-2),
    "shape-under-transport": lambda a: a.__setitem__((slice(None), 1, 4, slice(0, 60)), 1e-2),
    "phase-velocity": lambda a: a.__setitem__((slice(None), 0, slice(None)), 1.05 * np.array(V)),
    "phase-linear-in-v": lambda a: a.__setitem__(Ellipsis, np.array(V) ** 3),
    "no-drift": lambda a: a.__setitem__((slice(None), 0, 0), 1e-3),
    "mexican-hat": lambda a: a.__setitem__(Ellipsis, np.exp(-np.arange(33) / 5.0)),
    "euler-drive-stability": lambda a: a.__setitem__((slice(None), 1, 1), 0.9),
}
VARIABLE = {
    "tangent-orthogonal": "ortho",
    "energy-descent": "max_rel_increase",
    "descent-lost-above-bound": "unstable_increase",
    "normal-attraction": "distance",
    "shape-under-transport": "distance",
    "phase-velocity": "velocity",
    "phase-linear-in-v": "velocity",
    "no-drift": "drift",
    "mexican-hat": "w_kernel",
    "euler-drive-stability": "euler_growth",
}


def test_every_claim_has_made_up_cases():
    exp = get_experiment("seal-ring-attractor")
    assert sorted(c.name for c in exp.claims) == sorted(FAILS)
    assert exp.paper.found is False


@pytest.mark.parametrize("name", sorted(FAILS))
def test_claim_passes_on_good_and_fails_on_bad_data(name):
    assert _verdict(name, *_ds()) == "pass"
    assert _verdict(name, *_replace(VARIABLE[name], FAILS[name])) == "fail"


def test_energy_descent_not_applicable_above_the_bound():
    ds, spec = _replace("top_curvature", lambda a: a.__setitem__(Ellipsis, 50.0))  # η L* = 2.5
    assert _verdict("energy-descent", ds, spec) == "not-applicable"


def test_velocity_with_too_few_seeds_is_inconclusive():
    ds, spec = _ds()
    assert _verdict("phase-velocity", ds.isel(seed=slice(0, 4)), spec) == "inconclusive"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):

    exp = get_experiment("seal-ring-attractor")
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in ("tangent-orthogonal", "energy-descent", "normal-attraction", "phase-velocity", "no-drift"):
        assert by[name].verdict == "pass", by[name]
    assert np.isfinite(run.results["distance"].values).all()
