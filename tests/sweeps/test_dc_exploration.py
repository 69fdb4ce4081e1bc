"""The dc-exploration experiment: every claim's check on made-up passing and failing results, and
(slow) the smoke preset, its verdicts against the snapshot, and its figures."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory import plots
from jaxtheory.registry import get_experiment
from jaxtheory.report import verdicts as vsnap
from jaxtheory.sims.dc import dca

matplotlib.use("Agg")

EXP = get_experiment("dc-exploration")
SPEC = dca.DCSpec(zeros=25)
S, R, T = 100, 8, 6  # seeds, toy chains per seed, steps in the made-up traces


def _fake():
    """Results shaped like the smoke preset's, where every claim holds."""
    shape = (2, 2, S)  # setting (toy, sparse_ls), algo (dca, explore), seed
    nan = np.nan
    h_final = np.empty(shape)
    h_final[0, 0], h_final[0, 1], h_final[1] = -12.5, -25.0, 0.1
    h_final_r = np.full(shape + (R,), nan)
    h_final_r[0] = h_final[0][..., None]
    h_final_r[1, :, :, 0] = h_final[1]
    psi = np.empty(shape)
    psi[0, 0], psi[0, 1], psi[1] = -1.0, 0.0, -1e-5
    psi_r = np.full(shape + (R,), nan)
    psi_r[0] = psi[0][..., None]
    psi_r[1, :, :, 0] = psi[1]
    steps = np.array([200, 500])
    n_evals = np.zeros(shape)
    n_evals[:, 1] = 2 * steps[:, None]
    h = np.broadcast_to(h_final[..., None], shape + (T,)).copy()
    data = {
        "h": (("setting", "algo", "seed", "step"), h),
        "h_final": (("setting", "algo", "seed"), h_final),
        "psi": (("setting", "algo", "seed"), psi),
        "h_final_r": (("setting", "algo", "seed", "replica"), h_final_r),
        "psi_r": (("setting", "algo", "seed", "replica"), psi_r),
        "zero_set_kept": (("setting", "algo", "seed"), np.ones(shape, bool)),
        "n_evals": (("setting", "algo", "seed"), n_evals),
        "max_rise": (("setting", "algo", "seed"), np.zeros(shape)),
        "descent_slack": (("setting", "algo", "seed"), np.full(shape, -0.1)),
        "rate_ratio": (("setting", "algo", "seed"), np.full(shape, 0.5)),
    }
    coords = {
        "setting": [0, 1],
        "problem": ("setting", ["toy", "sparse_ls"]),
        "dim": ("setting", [50, 200]),
        "steps": ("setting", steps),
        "algo": ["dca", "explore"],
        "seed": np.arange(S),
        "step": np.arange(1, T + 1),
        "replica": np.arange(R),
    }
    return xr.Dataset(data, coords=coords)


def _verdict(name, ds):
    claim = next(c for c in EXP.claims if c.name == name)
    return claim.evaluate(ds, SPEC)


def test_every_claim_passes_on_passing_data():
    ds = _fake()
    for c in EXP.claims:
        r = c.evaluate(ds, SPEC)
        want = "not-applicable" if c.name == "ls-lower-where-dca-not-d-stationary" else "pass"
        assert r.verdict == want, (c.name, r)


@pytest.mark.parametrize(
    "name, edit",
    [
        ("dca-keeps-zero-set", lambda ds: ds["zero_set_kept"][0, 0, 3].__setitem__((), False)),
        ("dca-stalls-at-critical-value", lambda ds: ds["h_final_r"][0, 0, 5, 2].__setitem__((), -12.0)),
        # 20 of 800 chains stuck: 0.975 with a Wilson interval wholly below 0.99
        ("exploration-reaches-global-min", lambda ds: ds["h_final_r"][0, 1, :20, 0].__setitem__((), -12.5)),
        ("exploration-d-stationary", lambda ds: ds["psi_r"][0, 1, :20, 0].__setitem__((), -1.0)),
        ("monotone", lambda ds: ds["max_rise"][1, 1, 7].__setitem__((), 1e-3)),
        ("descent-inequality", lambda ds: ds["descent_slack"][0, 0, 0].__setitem__((), 1e-3)),
        ("rate-preserved", lambda ds: ds["rate_ratio"][1, 1, 0].__setitem__((), 1.5)),
        # exploration worse on 20 of 100 seeds
        ("ls-no-worse-than-dca", lambda ds: ds["h_final"][1, 1, :20].__setitem__((), 0.2)),
        ("exploration-cost", lambda ds: ds["n_evals"][0, 1, 9].__setitem__((), 399)),
    ],
)
def test_each_claim_fails_on_failing_data(name, edit):
    ds = _fake()
    assert _verdict(name, ds).verdict == "pass"
    edit(ds)
    assert _verdict(name, ds).verdict == "fail"


def test_lower_where_not_d_stationary_decides_only_where_dca_is_not_d_stationary():
    ds = _fake()
    ds["psi"][1, 0, :3] = -0.01  # DCA not d-stationary on three seeds
    r = _verdict("ls-lower-where-dca-not-d-stationary", ds)
    assert r.verdict == "fail" and r.measured == 3  # exploration equal there, not lower
    ds["h_final"][1, 1, :3] = 0.05
    assert _verdict("ls-lower-where-dca-not-d-stationary", ds).verdict == "pass"
    ds["psi"][1, 0, :3] = -1e-4  # inside the float32 floor: not counted as non-stationary
    assert _verdict("ls-lower-where-dca-not-d-stationary", ds).verdict == "not-applicable"


def test_a_preset_without_one_problem_is_not_applicable():
    ds = _fake().isel(setting=[0])
    assert _verdict("ls-no-worse-than-dca", ds).verdict == "not-applicable"
    assert _verdict("exploration-reaches-global-min", ds).verdict == "pass"


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    return EXP.sweep("smoke", out=tmp_path_factory.mktemp("runs"), quiet=True)


@pytest.mark.slow  # ~40 s of CPU: two compiles, 256 toy lanes (x 8 chains) and 256 least-squares lanes
def test_smoke_verdicts_equal_snapshot_and_figures_draw(smoke, tmp_path):
    from matplotlib.figure import Figure

    by = {c.name: c for c in smoke.claims}
    for c in smoke.claims:
        assert c.error is None, c
    assert by["dca-stalls-at-critical-value"].measured == 0.0
    assert by["exploration-reaches-global-min"].n == 1024  # 64 seeds x 2 lam x 8 chains
    snap = vsnap.read_snapshot(vsnap.snapshot_path("tests/verdicts", "dc-exploration", "smoke"))
    assert not vsnap.compare(vsnap.verdicts_of(smoke.claims), snap)
    for fig_spec in EXP.figures:
        fig = Figure(figsize=fig_spec.size)
        fig_spec.draw(smoke.results, smoke.spec, fig)
        plots.check_drawn(fig, fig_spec.name)


def test_full_preset_binds_three_problems():
    spec, params, space = EXP.resolve("full")
    bound = space.bind(spec, params)
    groups = bound.static_groups()
    assert [g["problem"] for g in groups] == ["toy", "sparse_ls", "phase_retrieval"]
    assert [g["m"] for g in groups] == [50, 200, 400]
