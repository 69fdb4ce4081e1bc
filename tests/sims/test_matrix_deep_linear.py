"""`jaxtheory.sims.matrix.deep_linear`: every output is finite on a healthy run, so the sweep
marks no lane diverged (Adam and Muon choose no p; their ``p_mean`` is the finite marker 0)."""

import jax
import numpy as np

from jaxtheory.sims.matrix import deep_linear as dl
from jaxtheory.sweep import Space, sweep, values

SPEC = dl.DeepLinearSpec(d=6, depth=2, n_samples=24, steps=12, interval=4)


def test_p_mean_is_finite_for_every_method():
    out = jax.jit(lambda k: dl.run(SPEC, dl.DEFAULT_PARAMS, k))(jax.random.key(3))
    p = np.asarray(out["p_mean"])
    assert p.shape == (len(SPEC.methods), SPEC.steps)
    assert np.isfinite(p).all()
    for i, m in enumerate(SPEC.methods):
        if m == "smuon":  # the selection's grid is [1.02, 10]
            assert (p[i] >= 1.02 - 1e-6).all() and (p[i] <= 10.0 + 1e-6).all(), p[i]
        else:
            assert (p[i] == 0.0).all(), (m, p[i])


def test_a_healthy_sweep_marks_no_lane_diverged():
    space = Space(lr=values(1e-3, 1e-2), seeds=2)
    ds = sweep(
        dl.run,
        SPEC,
        space,
        dl.DEFAULT_PARAMS,
        metric_dims={"loss": ("method", "step"), "p_mean": ("method", "step")},
        quiet=True,
    ).dataset
    assert np.isfinite(ds["loss"].values).all()
    assert int((ds["status"] != 0).sum()) == 0
    assert (ds["diverged_step"].values == -1).all()
