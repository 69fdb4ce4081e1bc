"""`sweeps/smuon_digits.py` and `jaxtheory.sims.matrix.digits`: smoke preset, data, and `run`
against independent checks (lr = 0 leaves the model unchanged; the AdamW lane equals a
hand-written `optax.adamw` loop)."""

import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import optax
import pytest
import xarray as xr

matplotlib.use("Agg")

from matplotlib.figure import Figure  # noqa: E402

from jaxtheory import plots  # noqa: E402
from jaxtheory.report import verdicts as vsnap  # noqa: E402
from jaxtheory.sims.matrix import digits as dg  # noqa: E402
from sweeps.smuon_digits import EXPERIMENT  # noqa: E402

MEASURE = {c.name: c.measure for c in EXPERIMENT.claims}
_best_acc, _loss_ratio = MEASURE["every-optimizer-reaches-0.9"], MEASURE["training-loss-falls-10x"]
_untunable = MEASURE["optimizer-ranking"]

SNAPSHOTS = __import__("pathlib").Path(__file__).parents[1] / "verdicts"


def test_dataset_dims():
    xtr, ytr, xte, yte = dg.load_data(dg.DigitsSpec())
    assert xtr.shape[1] == xte.shape[1] == dg.N_FEATURES
    assert xtr.shape[0] + xte.shape[0] == dg.N_SAMPLES
    assert xte.shape[0] == round(0.2 * dg.N_SAMPLES)
    assert set(np.unique(ytr)) == set(range(dg.N_CLASSES))
    assert abs(float(xtr.mean())) < 1e-5  # centred on the training mean
    # the split is fixed by split_seed
    assert np.array_equal(dg.load_data(dg.DigitsSpec(split_seed=0))[3], yte)
    assert not np.array_equal(dg.load_data(dg.DigitsSpec(split_seed=1))[3], yte)


# One optimizer only (each compiles for 10-20 s on the loaded CPU): Schatten-p, whose
# κ-pinning rescales the step, so lr = 0 must still leave the parameters untouched.
def test_zero_lr_keeps_initial_model():
    spec = dg.DigitsSpec(hidden=8, steps=5, optimizer="schatten", batch_size=64, num_log=3)
    key = jax.random.key(3)
    out = jax.jit(lambda k: dg.run(spec, {"lr": 0.0, "weight_decay": 0.0}, k))(key)
    xtr, ytr, xte, yte = (jnp.asarray(a) for a in dg.load_data(spec))
    p0 = dg.init_params(spec, jax.random.split(key)[0])
    loss0 = float(dg.loss_fn(p0, xtr, ytr)[0])
    acc0 = float(dg.accuracy(p0, xte, yte))
    np.testing.assert_allclose(np.asarray(out["train_loss"]), loss0, rtol=1e-6)
    np.testing.assert_allclose(float(out["init_loss"]), loss0, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(out["test_acc"]), acc0)
    assert int(out["diverged_step"]) == -1


def test_adamw_lane_matches_handwritten_optax_loop():
    spec = dg.DigitsSpec(hidden=16, steps=6, optimizer="adamw", batch_size=0, num_log=6)
    params = {"lr": 0.02, "weight_decay": 1e-3}
    key = jax.random.key(7)
    out = dg.run(spec, params, key)
    xtr, ytr, xte, yte = (jnp.asarray(a) for a in dg.load_data(spec))
    w = dg.init_params(spec, jax.random.split(key)[0])

    def loss(w):  # written out again, independently of dg.loss_fn
        logits = jnp.tanh(xtr @ w["w1"] + w["b1"]) @ w["w2"] + w["b2"]
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, ytr[:, None], axis=1))

    tx = optax.adamw(params["lr"], weight_decay=params["weight_decay"])
    state = tx.init(w)
    losses = []
    for _ in range(spec.steps):
        u, state = tx.update(jax.grad(loss)(w), state, w)
        w = optax.apply_updates(w, u)
        losses.append(float(loss(w)))
    at = dg.log_steps(spec.steps, spec.num_log) - 1
    np.testing.assert_allclose(np.asarray(out["train_loss"]), np.asarray(losses)[at], rtol=1e-5)
    assert losses[-1] < float(out["init_loss"])


def test_claim_measures_tune_each_optimizer_on_seed_mean_accuracy():
    acc = np.full((8, 2, 3), 0.5)  # seed, optimizer, lr
    acc[:, 0, 1] = 0.95
    acc[:, 1, 2] = np.linspace(0.90, 0.96, 8)
    acc[0, 1, 0] = 1.0  # one seed alone prefers lr[0]: not chosen
    loss = np.where(acc > 0.8, 0.05, 1.0)
    dims = ("seed", "optimizer", "lr")
    ds = xr.Dataset(
        {
            "final_test_acc": (dims, acc),
            "final_train_loss": (dims, loss),
            "init_loss": (dims, np.full(acc.shape, 2.0)),
        },
        coords={"optimizer": ["adamw", "muon"], "lr": [0.01, 0.1, 1.0]},
    )
    best = _best_acc(ds, None)
    np.testing.assert_allclose(best.sel(optimizer="muon").values, acc[:, 1, 2])
    assert best["lr"].values.tolist() == [0.1, 1.0]
    np.testing.assert_allclose(_loss_ratio(ds, None).values, 0.025)
    assert _untunable(ds, None) == 0
    ds["final_test_acc"][:, 1, :] = np.nan
    assert _untunable(ds, None) == 1


# Compile-bound: four optimizers compiled separately, 2-4 min on the shared 2-core CPU under
# load (the same reason the matrix experiments' smoke tests are slow); run with -m slow.
@pytest.mark.slow
def test_smoke_verdicts_equal_snapshot_and_figures_draw(tmp_path):
    run = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert (run.run_dir / "results.nc").exists()
    assert (run.run_dir / "claims.json").exists()
    assert len(run.claims) == len(EXPERIMENT.claims)
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.measured is not None
    snap = vsnap.read_snapshot(vsnap.snapshot_path(SNAPSHOTS, EXPERIMENT.name, "smoke"))
    assert not vsnap.compare(vsnap.verdicts_of(run.claims), snap)
    ds = run.results
    assert ds["final_test_acc"].sizes == {"optimizer": 4, "lr": 4, "seed": 8}
    assert ds["test_acc"].sizes["step"] == len(dg.log_steps(run.spec.steps, run.spec.num_log))
    # paired optimizers and step sizes: one initialisation per seed, so the initial loss is
    # the same in every lane of a seed (one program; float32 round-off across lanes)
    init = ds["init_loss"]
    first = np.broadcast_to(init.isel(optimizer=[0], lr=[0]).values, init.shape)
    np.testing.assert_allclose(init.values, first, rtol=1e-6)
    for f in EXPERIMENT.figures:
        fig = Figure(figsize=f.size)
        f.draw(ds, run.spec, fig)
        plots.check_drawn(fig, f.name)
