"""FGD on adaptive grids (:mod:`jaxtheory.sims.functional.fgd`): references and identities."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.functional import fgd, grid

SPEC = fgd.FGDSpec(max_size=16, epochs=30, eval_size=64)


def _run(label, spec=SPEC, lr=0.05, seed=0):
    code = fgd.METHODS.index(label)
    f = jax.jit(lambda k: fgd.run(spec, {"lr": lr, "scheme": code}, k))
    return {k: np.asarray(v) for k, v in f(jax.random.key(seed)).items()}


def test_f_star_matches_polar_form():
    x = np.random.default_rng(0).uniform(size=(4096, 2))
    got = np.asarray(fgd.f_star(jnp.asarray(x[:, 0], jnp.float32), jnp.asarray(x[:, 1], jnp.float32)))
    # the arctan2-free form in float32: arguments up to 20·1.06, so ~1e-6 absolute
    np.testing.assert_allclose(got, fgd.f_star_np(x[:, 0], x[:, 1]), atol=2e-5)
    assert float(fgd.f_star(0.5, 0.5)) == pytest.approx(1.0)


def test_exact_mean_contraction_identity():
    # f ← f − lr (f − P f*): L_k − L_floor = (1 − lr)^(2k) (L_0 − L_floor)
    out = _run("fixed8", lr=0.1)
    x = np.r_[out["loss0"], out["loss_exact"]].astype(np.float64) - float(out["floor_start"])
    ratio = x[1:21] / x[:20]
    np.testing.assert_allclose(ratio, 0.81, rtol=1e-3)  # float32 losses, excess ≥ 1.5 % of start


def test_fixed_grid_step_matches_numpy_reference():
    # one epoch on a fixed 4×4 grid: f1 = lr · (8-sample cell means of f*), from the same offsets
    spec = fgd.FGDSpec(max_size=4, epochs=1, eval_size=16, init_size=4)
    out = _run("fixed8", spec=spec, lr=0.3, seed=0)  # capped at 4 by max_size
    assert out["level"][0] == 2 and out["cost"][0] == 16 * 8
    ekey = jax.random.split(jax.random.key(0), 1)[0]
    offs = np.asarray(jax.random.uniform(ekey, (8, 2)), np.float64)
    f1 = np.empty((4, 4))
    for a in range(4):
        for b in range(4):
            f1[a, b] = 0.3 * fgd.f_star_np((a + offs[:, 0]) / 4, (b + offs[:, 1]) / 4).mean()
    q = (np.arange(16) + 0.5) / 16
    F = fgd.f_star_np(q[:, None], q[None, :])
    loss = 0.5 * np.mean((np.kron(f1, np.ones((4, 4))) - F) ** 2)
    assert abs(out["loss"][0] - loss) <= 1e-5 * loss  # float32


def test_adaptive_refines_monotonically_and_counts_cost():
    out = _run("eps0.5")
    lev = out["level"]
    assert lev[0] >= 3 and np.all(np.diff(lev) >= 0) and lev.max() <= 4
    # the cost grows by at least one estimate at the current level per epoch
    inc = np.diff(np.r_[0, out["cost"]])
    assert np.all(inc >= 8 * 4 ** lev.astype(np.int64))
    assert out["total_cost"] == out["cost"][-1]


def test_fixed_grid_never_refines():
    out = _run("fixed8")
    assert np.all(out["level"] == 3)
    assert np.all(np.diff(np.r_[0, out["cost"]]) == 8 * 64)


def test_spec_validation():
    with pytest.raises(ValueError, match="multiple"):
        fgd.FGDSpec(max_size=64, eval_size=96)
    with pytest.raises(ValueError, match="power of two"):
        fgd.FGDSpec(max_size=48, eval_size=96)
    with pytest.raises(ValueError, match="unknown method"):
        fgd.method_table("eps7")
    assert grid.size_level(fgd.FGDSpec().max_size) == 7
