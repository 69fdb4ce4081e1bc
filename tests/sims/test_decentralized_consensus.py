"""The stationary consensus error from the Lyapunov equation against the simulator (float64)."""

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.decentralized import consensus
from jaxtheory.sims.decentralized import minimax as mm


def test_lyapunov_matches_the_simulator():
    """The float64 Lyapunov value against the simulator's time average, 16 noise seeds."""
    spec = mm.MinimaxSpec(agents=3, dim_x=3, dim_y=2, steps=1000, record_every=100)
    base = {**mm.DEFAULT_PARAMS, "sigma": 0.1, "cos_amp": 0.0, "instance": 0, "eta": 0.1}
    lanes = [(algo, s) for algo in (0, 1) for s in range(16)]
    p = {k: jnp.asarray([v] * len(lanes)) for k, v in base.items()}
    p["algo"] = jnp.asarray([a for a, _ in lanes], jnp.int32)
    keys = jax.random.split(jax.random.key(0), len(lanes))
    out = jax.jit(jax.vmap(lambda p, k: mm.run(spec, p, k)))(p, keys)
    inst = mm.instance(spec, 0.3, jax.random.key(0))
    for algo in (0, 1):
        mc = np.asarray(out["consensus_avg"], float)[[i for i, (a, _) in enumerate(lanes) if a == algo]]
        r = 1.0 if algo == 0 else 0.0
        th, rho = consensus.stationary_consensus(
            spec.mixing, np.asarray(inst["B"]), 0.1, 0.1, r, min(3.0 * 0.1 * r, 1.0), 0.1
        )
        assert rho < 1
        # the seed mean within 4 standard errors of the exact value, and within 3 %
        se = mc.std(ddof=1) / np.sqrt(len(mc))
        assert abs(mc.mean() - th) < 4 * se
        assert abs(mc.mean() / th - 1) < 0.03
        # the lane-parameter form builds the same instance and constants (μ = L/κ = 0.1 at κ = 10)
        at = consensus.stationary_consensus_at(spec, mm.ALGOS[algo], 10.0, 0.1, 0.3, 1.0, 3.0, 0.1)
        assert at == th


def test_quadratic_in_sigma_and_nan_when_unstable():
    spec = mm.MinimaxSpec(agents=4, dim_x=2, dim_y=2)
    B = np.asarray(mm.instance(spec, 0.3, jax.random.key(1))["B"])
    one, rho = consensus.stationary_consensus(spec.mixing, B, 0.1, 0.05, 1.0, 0.15, 1.0)
    three, _ = consensus.stationary_consensus(spec.mixing, B, 0.1, 0.05, 1.0, 0.15, 3.0)
    assert rho < 1 and one > 0
    np.testing.assert_allclose(three, 9.0 * one, rtol=1e-9)  # a linear recursion driven by σξ
    big, rho = consensus.stationary_consensus(spec.mixing, B, 0.1, 5.0, 0.0, 0.0, 1.0)
    assert rho >= 1 and np.isnan(big)
