"""The vlm-objectives-spectral experiment: each claim's check on made-up data, and the smoke run (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import experiments
from jaxtheory.sims.multimodal import linear as mm
from sweeps.vlm_objectives_spectral import EXPERIMENT

matplotlib.use("Agg")

EXP = EXPERIMENT
CLAIMS = {c.name: c for c in EXP.claims}
SPEC = EXP.spec
SEEDS, REPS = 8, 3
RHO_X = np.asarray(SPEC.rho_x_grid, float)
RHO_C = np.asarray(SPEC.rho_c_grid, float)


def _ds(
    *,
    train_deg=0.1,
    white=1e-6,
    xside=1e-6,
    y_deg=30.0,
    recall=None,
    spurious=None,
    rng_seed=0,
    cond=150.0,
    gap=0.99,
):
    """A made-up results set with the experiment's dims; ``recall(rho_x) -> (4,)`` and
    ``spurious(rho_c) -> (4,)`` per objective."""
    rng = np.random.default_rng(rng_seed)
    losses = list(mm.LOSSES)
    shape_t = (SEEDS, 2, len(losses))
    ang = np.radians(train_deg) * (1 + 0.05 * rng.standard_normal(shape_t))
    rec_fn = recall or (lambda r: np.array([0.5, 0.5, 0.55, 0.2 + 0.0 * r]))
    rec = np.stack([rec_fn(r) for r in RHO_X])  # (rho_x, objective)
    rec = rec[None, None, None, None] + 0.005 * rng.standard_normal((SEEDS, 2, len(losses), REPS) + rec.shape)
    sp_fn = spurious or (lambda r: np.array([0.5, 0.5, 0.55, 0.2 + 0.0 * r]))
    sp = np.stack([sp_fn(r) for r in RHO_C])
    sp = sp[None, None, None, None] + 0.005 * rng.standard_normal((SEEDS, 2, len(losses), REPS) + sp.shape)
    cf = (SEEDS, 2, len(losses), REPS, len(RHO_X))
    dims_t = ("seed", "rho_y", "loss")
    dims_c = dims_t + ("rep", "rho_x")
    return xr.Dataset(
        {
            "train_angle_x": (dims_t, ang),
            "train_angle_y": (dims_t, ang),
            "cond_xx": (dims_c, np.full(cf, cond)),
            "cca_relgap": (dims_c, np.full(cf, gap)),
            "angle_rrr_cca_white": (dims_c, np.full(cf, white)),
            "angle_rrr_cca_x": (dims_c, np.full(cf, xside)),
            "angle_rrr_cca_y": (dims_c, np.radians(y_deg) * (1 + 0.05 * rng.standard_normal(cf))),
            "angle_cca_truth_x": (dims_c, np.full(cf, 0.5)),
            "cf_recall": (dims_c + ("objective",), rec),
            "cf_recall_spurious": (dims_t + ("rep", "rho_c", "objective"), sp),
        },
        coords={
            "seed": np.arange(SEEDS),
            "rho_y": [0.0, 0.5],
            "loss": losses,
            "rep": np.arange(REPS),
            "rho_x": RHO_X,
            "rho_c": RHO_C,
            "objective": list(mm.CLOSED_FORMS),
        },
    )


def _verdict(name, ds):
    return CLAIMS[name].evaluate(ds, SPEC).verdict


def test_spectral_and_trained_angle_claims():
    assert _verdict("spectral-gd-reaches-cca", _ds(train_deg=0.1)) == "pass"
    assert _verdict("spectral-gd-reaches-cca", _ds(train_deg=3.0)) == "fail"
    assert _verdict("trained-objectives-reach-cca", _ds(train_deg=3.0)) == "pass"
    assert _verdict("trained-objectives-reach-cca", _ds(train_deg=8.0)) == "fail"
    # without the jepa lanes the claim does not apply
    assert (
        _verdict("trained-objectives-reach-cca", _ds().sel(loss=["spectral", "infonce"])) == "not-applicable"
    )


def test_experiment_is_registered():
    assert experiments()["vlm-objectives-spectral"].name == EXP.name


def test_identity_claims():
    # at κ = 150, g = 0.99 the float32 bounds are 3.1e-3 rad (image side) and 1.1e-4 rad (white text)
    bx = float(mm.image_identity_bound(150.0, 0.99, SPEC.d))
    bw = float(mm.white_identity_bound(150.0, 0.99, SPEC.d))
    for name, key, bound in (
        ("rrr-equals-cca-white-text", "white", bw),
        ("image-encoders-coincide", "xside", bx),
    ):
        assert _verdict(name, _ds(**{key: 1e-6})) == "pass"
        assert _verdict(name, _ds(**{key: 0.9 * bound})) == "pass"
        assert _verdict(name, _ds(**{key: 1.1 * bound})) == "fail"
    # the bound is per model: a better-conditioned Σ_xx tightens it, a smaller gap loosens it
    assert _verdict("image-encoders-coincide", _ds(xside=0.9 * bx, cond=50.0)) == "fail"
    assert _verdict("rrr-equals-cca-white-text", _ds(white=1.1 * bw, gap=0.5)) == "pass"


def test_rrr_differs_claim():
    assert _verdict("rrr-differs-from-cca", _ds(y_deg=30.0)) == "pass"
    assert _verdict("rrr-differs-from-cca", _ds(y_deg=3.0)) == "fail"


def test_crossover_claim():
    def crossing(r):  # contrastive wins at 0, captioning from rho_c = 0.5 on
        return np.array([0.5, 0.5, 0.5, 0.3 + 0.5 * r])

    res = CLAIMS["generation-crossover"].evaluate(_ds(spurious=crossing), SPEC)
    assert res.verdict == "pass", res
    assert _verdict("generation-crossover", _ds()) == "fail"  # captioning never wins
    # the crossover is read off the correlated-nuisance grid, not the ρ_x one
    assert _verdict("generation-crossover", _ds(recall=crossing)) == "fail"


def test_clean_jepa_claim():
    assert _verdict("clean-jepa-best-recall", _ds()) == "pass"
    worse = _ds(recall=lambda r: np.array([0.5, 0.5, 0.4, 0.2]))
    assert _verdict("clean-jepa-best-recall", worse) == "fail"
    tied = _ds(recall=lambda r: np.array([0.5, 0.5, 0.5, 0.2]))
    assert _verdict("clean-jepa-best-recall", tied) == "inconclusive"


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in (
        "spectral-gd-reaches-cca",
        "rrr-equals-cca-white-text",
        "image-encoders-coincide",
        "rrr-differs-from-cca",
    ):
        assert by[name].verdict == "pass", by[name]
    ds = run.results
    assert np.isfinite(ds["cf_recall"].sel(loss="spectral").values).all()
    assert np.isfinite(ds["cf_recall_spurious"].sel(loss="spectral").values).all()
