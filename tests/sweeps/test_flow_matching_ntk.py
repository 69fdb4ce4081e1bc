"""flow-matching-ntk: each claim's check on made-up pass/fail data; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.nets import flow

matplotlib.use("Agg")

EXP = get_experiment("flow-matching-ntk")
SPEC = EXP.spec
CLAIMS = {c.name: c for c in EXP.claims}
WIDTHS = np.array([64, 256, 1024])
STEPS = np.arange(1, 51) * 10
EULER = np.asarray(SPEC.euler_steps)


def _ds(
    *, vstar_scale=1.0, excess=0.2, euler_rate=-1.0, decay="geometric", move_slope=-0.5, gap=0.1, lmin=1e-3
):
    """A made-up results set with the shapes the smoke preset gives."""
    rng = np.random.default_rng(0)
    seeds = 8
    irr = flow.irreducible_loss(SPEC.cov)
    noise = 1 + 0.002 * rng.standard_normal((seeds, 3))
    vstar = vstar_scale * irr * noise
    test = vstar + excess * (1 + 0.05 * rng.standard_normal((seeds, 3)))
    if decay == "geometric":
        curve = 5.0 * np.exp(-STEPS / 100.0)
    else:  # fast drop to a floor
        curve = irr + 3.0 / (1 + STEPS / 5.0)
    final_shift = np.array([gap, 0.0, 0.0])
    train = (
        curve[None, None, :] * (1 + 0.01 * rng.standard_normal((seeds, 3, 1))) + final_shift[None, :, None]
    )
    move = 3.0 * WIDTHS**move_slope * (1 + 0.02 * rng.standard_normal((seeds, 3)))
    w2 = np.broadcast_to(2.0 * EULER.astype(float) ** euler_rate, (seeds, 3, len(EULER)))
    coords = {
        "seed": np.arange(seeds),
        "width": WIDTHS,
        "step": STEPS,
        "euler_steps": EULER,
        "n": 128,
        "lr": 1.0,
    }
    return xr.Dataset(
        {
            "vstar_loss": (("seed", "width"), vstar),
            "vstar_loss_mc": (("seed", "width"), vstar),
            "test_loss": (("seed", "width"), test),
            "train_loss": (("seed", "width", "step"), train),
            "weight_move": (("seed", "width"), move),
            "w2_euler": (("seed", "width", "euler_steps"), w2),
            "ntk_lmin": (("seed", "width"), np.full((seeds, 3), lmin)),
        },
        coords=coords,
    )


def _verdict(name, ds):
    return CLAIMS[name].evaluate(ds, SPEC).verdict


def test_vstar_closed_form_claim():
    assert _verdict("vstar-loss-closed-form", _ds()) == "pass"
    assert _verdict("vstar-loss-closed-form", _ds(vstar_scale=1.03)) == "fail"


def test_no_net_below_claim():
    assert _verdict("no-net-below-irreducible", _ds(excess=0.2)) == "pass"
    assert _verdict("no-net-below-irreducible", _ds(excess=-0.2)) == "fail"


def test_euler_rate_claim():
    assert _verdict("euler-w2-rate", _ds(euler_rate=-1.0)) == "pass"
    assert _verdict("euler-w2-rate", _ds(euler_rate=-0.7)) == "fail"


def test_linear_rate_claim():
    # geometric decay e^(−t/100): late slope −0.01 per step, steeper than the bound
    # 2 log(1 − 2ηλ_min) ≈ −0.004 at λ_min = 1e-3 (η = 1)
    assert _verdict("lazy-loglinear-decay", _ds(decay="geometric")) == "pass"
    # the same decay is slower than a bound set by λ_min = 0.01 (≈ −0.04 per step)
    assert _verdict("lazy-loglinear-decay", _ds(decay="geometric", lmin=0.01)) == "fail"
    # a fast drop to a floor: the late slope is far above the bound
    assert _verdict("lazy-loglinear-decay", _ds(decay="floor")) == "fail"
    # only over-parameterised widths count (m = 1024 here): none left, not applicable
    narrow = _ds().sel(width=[64, 256])
    assert _verdict("lazy-loglinear-decay", narrow) == "not-applicable"


def test_weight_movement_claim():
    assert _verdict("weight-movement-width", _ds(move_slope=-0.5)) == "pass"
    assert _verdict("weight-movement-width", _ds(move_slope=-0.2)) == "fail"


def test_width_plateau_claim():
    assert _verdict("narrow-plateaus-higher", _ds(gap=0.1)) == "pass"
    assert _verdict("narrow-plateaus-higher", _ds(gap=-0.1)) == "fail"
    assert _verdict("narrow-plateaus-higher", _ds().sel(width=[256, 1024])) == "not-applicable"


def test_excess_n_slope_claim():
    def with_n(slope):
        ds = _ds().drop_vars("n")
        ns = np.array([128, 512, 2048])
        rng = np.random.default_rng(1)
        ev = 0.2 * (ns / 128.0) ** slope * (1 + 0.03 * rng.standard_normal((8, 3, 3)))
        return ds.assign(excess_velocity=(("seed", "width", "n"), ev)).assign_coords(n=ns)

    assert _verdict("excess-loss-falls-with-n", with_n(-0.5)) == "pass"
    assert _verdict("excess-loss-falls-with-n", with_n(-0.1)) == "fail"
    assert _verdict("excess-loss-falls-with-n", _ds()) == "not-applicable"


@pytest.mark.slow
def test_smoke(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in ("vstar-loss-closed-form", "no-net-below-irreducible", "euler-w2-rate"):
        assert by[name].verdict == "pass", name
