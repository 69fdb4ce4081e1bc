"""jaxtheory.sims.bandits.shift_moments: the shifts a uniform sampler meets, the variance law."""

import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.bandits import environments as envs
from jaxtheory.sims.bandits import shift_moments as sm


@pytest.mark.parametrize("env", [e for e in sm.UNIFORM_SHIFTS if e != "random"])
def test_shift_values_are_one_period_of_the_simulators_shifts(env):
    mu, uniform = jnp.array([0.5, 0.0, 0.0, 0.0]), jnp.full(4, 0.25)
    params = {"c": 1.0, "U": 1.5, "period": 5.0}
    sim = [float(envs.shift(env, t, uniform, mu, params, 0.3)) for t in range(10)]  # two periods
    want = sm.shift_values(env, 1.0, 5.0)
    np.testing.assert_allclose(sim, (want * 10)[:10] if len(want) > 1 else want * 10, atol=1e-6)


def test_random_shift_and_the_moment_ratio():
    mu, uniform, params = jnp.array([0.5, 0.0]), jnp.full(2, 0.5), {"c": 1.0, "U": 1.5, "period": 5.0}
    seen = {float(envs.shift("random", 0, uniform, mu, params, u)) for u in (0.1, 0.9)}
    assert seen == set(sm.shift_values("random", 1.0, 5.0))
    assert sm.second_moment_ratio("none", 0.5, 4, 1.0, 1.0, 5.0) == 1.0
    # constant -c: K(2σ² + (Δ − c)² + c²) / K(2σ² + Δ²)
    assert sm.second_moment_ratio("constant", 0.5, 4, 1.0, 1.0, 5.0) == pytest.approx(3.25 / 2.25)
    with pytest.raises(ValueError, match="ramp"):
        sm.shift_values("ramp", 1.0, 5.0)
