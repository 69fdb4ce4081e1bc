"""jaxtheory.sims.gp_bandits.run: metrics' identities, common random numbers, float32 noiseless.

Two compiles: GP-BTS (float32, record_trace) vmapped over noise, lengthscale, initial
phase and objective instance; uniform random search on Branin, whose Monte Carlo mean
must match the closed-form expectation the run reports.
"""

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims import gp_bandits as gpb


def vrun(spec, lanes, seed=0):
    p = {k: jnp.asarray([l[k] for l in lanes]) for k in gpb.DEFAULT_PARAMS}
    keys = jax.random.split(jax.random.key(seed), len(lanes))
    out = jax.jit(jax.vmap(functools.partial(gpb.run, spec)))(p, keys)
    return {k: np.asarray(v) for k, v in out.items()}


SPEC = gpb.GPBanditSpec(policy="bts", q=4, budget=32, n=64, dim=1, record_trace=True)
LANES = [
    dict(gpb.DEFAULT_PARAMS, noise_var=s2, lengthscale=0.1, init_evals=L, fn_seed=fs)
    for s2, L, fs in itertools.product([0.0, 0.01], [0, 8], [3, -1])
]


@pytest.fixture(scope="module")
def bts():
    return vrun(SPEC, LANES)


def test_metric_identities(bts):
    o = bts
    f = o["f_values"]
    fx = np.take_along_axis(f, o["x_index"], axis=1)
    np.testing.assert_allclose(o["f_max"], f.max(1), rtol=0, atol=0)  # a max selects: exact
    np.testing.assert_allclose(o["regret"], f.max(1)[:, None] - fx, atol=1e-6)
    assert (o["regret"] >= -1e-6).all()
    np.testing.assert_allclose(o["cum_regret"], np.cumsum(o["regret"], 1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        o["simple_regret"], f.max(1)[:, None] - np.maximum.accumulate(fx, 1), atol=1e-6
    )
    # a slice of the same array: exact
    np.testing.assert_array_equal(o["cum_regret_round"], o["cum_regret"][:, SPEC.q - 1 :: SPEC.q])
    np.testing.assert_allclose(o["random_regret"], f.max(1) - f.mean(1), atol=1e-5)
    # the information-gain proxy is non-decreasing; coverage is a fraction
    assert (np.diff(o["info_gain"], axis=1) >= 0).all()
    assert ((o["coverage_round"] >= 0) & (o["coverage_round"] <= 1)).all()
    # coverage recomputed from the trace
    tol = SPEC.nugget / 2
    free = o["post_var"] > tol
    inside = np.abs(f[:, None, :] - o["post_mean"]) <= 2 * np.sqrt(o["post_var"])
    cov = (inside & free).sum(-1) / np.maximum(free.sum(-1), 1)
    np.testing.assert_allclose(o["coverage_round"], cov, atol=1e-6)


def test_common_random_numbers_and_initial_phase(bts):
    o = bts
    shared = [j for j, l in enumerate(LANES) if l["fn_seed"] == 3]
    own = [j for j, l in enumerate(LANES) if l["fn_seed"] < 0]
    # same fn_seed: same objective, whatever the noise and phase; bitwise, as lanes of one
    # vmapped batch with the same inputs (fn_seed, lengthscale) run the same program
    for j in shared[1:]:
        np.testing.assert_array_equal(o["f_values"][j], o["f_values"][shared[0]])
    assert len({float(o["f_max"][j]) for j in own}) == len(own)
    # uncertainty sampling does not look at values: same points for every lane with L=8
    us = [j for j, l in enumerate(LANES) if l["init_evals"] == 8]
    for j in us[1:]:
        np.testing.assert_array_equal(o["x_index"][j, :8], o["x_index"][us[0], :8])
    assert len(set(o["x_index"][us[0], :8].tolist())) == 8  # space filling: no repeat


def test_float32_noiseless_posterior_stays_accurate(bts):
    """float32 with the default nugget against a float64 dense solve on the same data."""
    o = bts
    X = gpb.candidates("grid", SPEC.n, 1)
    for j, l in enumerate(LANES):
        K = np.asarray(gpb.kernel_matrix("se", X, X, l["lengthscale"], 1.0), np.float64)
        K += SPEC.nugget * np.eye(SPEC.n)
        used = o["used"][j].astype(bool)
        if l["noise_var"] == 0:
            assert not used.all() or len(set(o["x_index"][j].tolist())) == SPEC.budget
        mu, cov = gpb.dense_posterior(K, o["x_index"][j][used], o["y_obs"][j][used], l["noise_var"])
        assert np.isfinite(o["post_mean"][j]).all()
        np.testing.assert_allclose(o["post_mean"][j, -1], mu, atol=2e-3)
        np.testing.assert_allclose(o["post_var"][j, -1], np.diag(cov), atol=2e-4)


@pytest.mark.slow  # one more compile; the closed form is also checked by enumeration below
def test_random_search_closed_form_matches_monte_carlo():
    spec = gpb.GPBanditSpec(policy="random", q=2, budget=8, n=16, dim=2, objective="branin", domain="grid")
    lanes = [dict(gpb.DEFAULT_PARAMS, noise_var=0.0)] * 400
    o = vrun(spec, lanes, seed=1)
    # Branin is fixed: every lane reports the same expectation
    exp_simple = o["random_simple_regret"][0]
    np.testing.assert_allclose(o["random_simple_regret"], np.broadcast_to(exp_simple, (400, 8)), atol=1e-6)
    mc = o["simple_regret"].mean(0)
    se = o["simple_regret"].std(0, ddof=1) / np.sqrt(400)
    assert (np.abs(mc - exp_simple) <= 5 * se + 1e-6).all(), (mc, exp_simple, se)
    mc_inst = o["regret"].mean()
    assert abs(mc_inst - o["random_regret"][0]) <= 5 * o["regret"].std() / np.sqrt(o["regret"].size)
    # the standardized known maximum of Branin is at least the best grid value
    assert (o["f_max_domain"] >= o["f_max"] - 1e-6).all()
    assert (o["f_max_domain"] - o["f_max"] < 0.2).all()


def test_random_search_simple_regret_by_enumeration():
    f = np.array([0.3, -1.0, 2.0, 0.5])
    got = np.asarray(gpb.random_search_simple_regret(jnp.asarray(f), jnp.array([1, 2, 3])))
    for m, g in zip([1, 2, 3], got):
        best = [max(f[list(c)]) for c in itertools.product(range(4), repeat=m)]
        assert abs(g - (f.max() - np.mean(best))) < 1e-6


def test_spec_validation():
    with pytest.raises(ValueError):
        gpb.GPBanditSpec(q=3, budget=64)
    with pytest.raises(ValueError):
        gpb.GPBanditSpec(objective="hartmann6", dim=2)
    with pytest.raises(ValueError):
        gpb.GPBanditSpec(policy="ei")
