"""langevin-ntk-stability: each claim's check on made-up pass/fail data, the simulator's
invariants on a tiny run, and the smoke preset (slow)."""

import dataclasses

import jax
import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.sims.nets import langevin_ntk as sim
from jaxtheory.sims.nets import langevin_refs as refs
from jaxtheory.sims.nets import ntk
from sweeps import langevin_ntk_stability as E

matplotlib.use("Agg")

SPEC = sim.LangevinNTKSpec(num_points=4, dim=3, max_width=8, steps=400, ntk_every=200, loss_every=20)
BY = {c.name: c for c in E.EXPERIMENT.claims}
rng = np.random.default_rng(0)


def _ds(seeds=12, widths=(64, 256), temps=(0.0, 1e-4, 1e-3, 1e-2), t=(0, 200, 400), n=4, h=1e-3):
    """A results-shaped Dataset filled with neutral values; tests overwrite what they probe."""
    shape = (len(widths), len(temps), seeds)
    dims = ("width", "temperature", "seed")
    coords = {
        "width": list(widths),
        "temperature": list(temps),
        "t": list(t),
        "tl": list(t),
        "seed": range(seeds),
    }
    z = lambda *extra: np.zeros(shape + extra)  # noqa: E731
    return xr.Dataset(
        {
            "step": (dims, np.full(shape, h)),
            "ntk_loss": (dims + ("t",), z(len(t))),
            "kappa": (dims + ("t", "i"), np.ones(shape + (len(t), n))),
            "lam_ratio": (dims + ("t",), np.ones(shape + (len(t),))),
            "jac_drift": (dims + ("t",), np.full(shape + (len(t),), 0.3)),
            "disp_W1": (dims + ("t",), z(len(t))),
            "loss": (dims + ("tl",), z(len(t))),
            "K0": (dims + ("i", "j"), np.broadcast_to(np.eye(n), shape + (n, n)).copy()),
            "delta0": (dims + ("i",), np.ones(shape + (n,))),
        },
        coords=coords,
    )


def _noisy(da, sd=0.01):
    """``1 + sd·N(0, 1)`` shaped like ``da`` (a DataArray, so xarray aligns it by name)."""
    return xr.DataArray(1 + sd * rng.standard_normal(da.shape), dims=da.dims)


def _verdict(name, ds, spec=None):
    return BY[name].evaluate(ds, spec or E.EXPERIMENT.spec).verdict


@pytest.mark.parametrize("scale,verdict", [(1.0, "pass"), (1.5, "fail")])
def test_equipartition_claim(scale, verdict):
    ds = _ds()
    h = 1e-3
    T = ds["temperature"]
    pred = (T / 2) / (1 - h * ds["kappa"] / 2)
    ds["ntk_loss"] = (scale * pred.sum("i") * _noisy(ds["ntk_loss"])).transpose(*ds["ntk_loss"].dims)
    assert _verdict("equipartition", ds) == verdict


@pytest.mark.parametrize("scale,verdict", [(1.0, "pass"), (1.3, "fail")])
def test_ou_claim(scale, verdict):
    ds = _ds(t=(0, 6000, 12000))
    spec = E.EXPERIMENT.spec  # dim 8: λ₁ t = 8e-2 * 12 ≥ 0.5 only at T = 1e-2
    k = ds["t"]
    exact = refs.ou_expected(ds["temperature"] * spec.dim, 1e-3, k)
    ds["disp_W1"] = (scale * exact * _noisy(ds["disp_W1"])).transpose(*ds["disp_W1"].dims)
    assert _verdict("ou-displacement", ds) == verdict
    assert BY["ou-displacement"].evaluate(ds, spec).n == 12


def test_ou_claim_needs_long_enough_time():
    assert _verdict("ou-displacement", _ds(t=(0, 10, 20))) == "not-applicable"


def test_claims_needing_cold_lanes_say_so():
    ds = _ds(temps=(1e-4, 1e-3))
    assert _verdict("equipartition", ds) == "not-applicable"
    assert _verdict("lazy-closed-form", ds) == "not-applicable"


def test_ntk_stability_claim():
    ds = _ds()
    assert _verdict("ntk-stays-conditioned", ds) == "pass"  # 48 of 48 lanes
    r = ds["lam_ratio"].values
    r[:, 1:3, :6, -1] = 0.3  # half the small-T lanes drop below 1/2
    ds["lam_ratio"] = (ds["lam_ratio"].dims, r)
    assert _verdict("ntk-stays-conditioned", ds) == "fail"


def test_jacobian_claims():
    ds = _ds()
    # hot lanes: slope -0.2; cold lanes: slope -1 in m (64 → 256)
    m = ds["width"]
    slope = xr.where(ds["temperature"] > 0, -0.2, -1.0)
    jd = 0.5 * (m / 64.0) ** slope * _noisy(ds["jac_drift"])
    ds["jac_drift"] = jd.transpose(*ds["jac_drift"].dims)
    assert _verdict("jacobian-moves", ds) == "pass"
    assert _verdict("jacobian-width-slope-hot", ds) == "pass"
    assert _verdict("jacobian-width-slope-cold", ds) == "pass"
    ds["jac_drift"] = ds["jac_drift"] * 0.1 * (m / 64.0) ** -0.6  # lazy everywhere, below 0.1
    assert _verdict("jacobian-moves", ds) == "fail"
    assert _verdict("jacobian-width-slope-hot", ds) == "fail"


@pytest.mark.parametrize("scale,verdict", [(1.0, "pass"), (1.2, "fail")])
def test_lazy_claim(scale, verdict):
    ds = _ds(t=tuple(range(0, 401, 20)))
    h, n = 1e-3, 4
    K0 = np.diag([1.0, 2.0, 5.0, 10.0])
    ds["K0"] = (ds["K0"].dims, np.broadcast_to(K0, ds["K0"].shape).copy())
    lazy = n * ntk.lazy_loss(np.eye(n), np.ones(n), K0, h * n, 400)[::20]
    ds["loss"] = (
        ds["loss"].dims,
        scale * np.broadcast_to(lazy, ds["loss"].shape) * (1 + 0.01 * rng.standard_normal(ds["loss"].shape)),
    )
    assert _verdict("lazy-closed-form", ds) == verdict


def test_simulator_invariants_on_a_tiny_run():
    key = jax.random.PRNGKey(0)
    out = jax.jit(lambda k: sim.run(SPEC, {"width": 5, "temperature": 1e-3}, k))(key)
    assert int(out["diverged_step"]) == -1
    assert out["loss"].shape == (SPEC.steps // SPEC.loss_every + 1,)
    assert out["kappa"].shape == (SPEC.steps // SPEC.ntk_every + 1, SPEC.num_points)
    assert float(out["lam_ratio"][0]) == 1.0 and float(out["jac_drift"][0]) == 0.0  # record 0 is the init
    # the NTK record 0 equals the stored K0's spectrum; the loss record 0 is ½‖y − f₀‖²
    np.testing.assert_allclose(
        out["kappa"][0], np.linalg.eigvalsh(np.asarray(out["K0"], np.float64)), rtol=1e-4
    )
    np.testing.assert_allclose(out["loss"][0], 0.5 * float((out["delta0"] ** 2).sum()), rtol=1e-6)
    # the step is fixed by the widest net's NTK, whatever the lane's width
    assert float(out["step"]) == pytest.approx(sim.step_size(SPEC))
    wide = dataclasses.replace(SPEC, max_width=32)
    assert sim.step_size(wide) < sim.step_size(SPEC)  # ‖K₀‖ ∝ m in standard parameterisation


@pytest.mark.slow
def test_smoke_preset(tmp_path):
    run = E.EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    run.check()
    by = {c.name: c for c in run.claims}
    assert by["ntk-stays-conditioned"].verdict == "pass"
    assert by["lazy-closed-form"].verdict == "pass"
    assert int((run.results["diverged_step"] >= 0).sum()) == 0
