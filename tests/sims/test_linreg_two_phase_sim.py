"""jaxtheory.sims.linreg.two_phase: the declared simulator matches what its run function returns."""

import dataclasses

import jax

from jaxtheory.sims.linreg import two_phase as tp


def test_declared_metrics_have_the_shapes_the_run_returns():
    """Traced only (no compile): every declared metric has the shape its dims' coordinates give."""
    spec = dataclasses.replace(
        tp.SIMULATOR.spec, dim=8, steps=16, num_log=4, mc_dim=4, mc_steps=8, mc_seeds=8, kappas=(4.0, 8.0)
    )
    out = jax.eval_shape(lambda key: tp.run(spec, tp.PARAMS, key), jax.random.key(0))
    coords = tp.SIMULATOR.coords(spec)
    assert set(tp.SIMULATOR.metric_dims) <= set(out)
    for name, dims in tp.SIMULATOR.metric_dims.items():
        assert out[name].shape == tuple(len(coords[d]) for d in dims), name
    assert set(tp.SIMULATOR.params) == set(tp.PARAMS)
