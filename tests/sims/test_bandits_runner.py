"""Episodes, δ-correctness, attacks and censoring of the Shifting-Means BAI simulator.

* Trajectories equal an independent numpy loop (``benchmarks/bandits_bai.py``) fed the
  same per-round draws, for ISM (practical and theory thresholds) and Track-and-Stop
  (float64, so that no rounding can flip a comparison).
* ``simulate`` (host loop with compaction) equals ``vmap(run)`` episode by episode.
* δ-correctness of ISM on a small grid of environments and δ: the upper 95%
  Clopper-Pearson bound of the error rate is at most δ.
* The attacks: Track-and-Stop is wrong under the targeted adaptive shift (2c > Δ), and
  censored under the untargeted one (reported as censored, never as correct); its
  stopping time is exactly invariant to a constant shift; uniform + GLRT with σ²
  assumed is overconfident under random shifts with c ≥ 2σ.
"""

import functools
import importlib.util
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.bandits import (
    ADVERSARIES,
    BAISpec,
    clopper_pearson,
    default_params,
    episode_seed,
    round_draws,
    run,
    simulate,
    summarize,
)

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bandits_bai.py"
_spec = importlib.util.spec_from_file_location("bandits_bai_reference", _BENCH)
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

ADV = {name: i for i, name in enumerate(ADVERSARIES)}

# One compiled program per spec, reused across tests (adversary and δ are dynamic).
_vrun = jax.jit(jax.vmap(run, in_axes=(None, 0, 0)), static_argnums=0)

TAS = BAISpec(policy="tas_d", adversary="param", refresh=1, chunk=64, horizon=2048)
ISM_P = BAISpec(policy="ism_practical", adversary="param", chunk=128, horizon=20_000, deltas=(0.2, 0.05))
ISM_T = BAISpec(policy="ism_theory", adversary="param", chunk=256, horizon=20_000, deltas=(0.1,))


def _keys(n, seed=0):
    return jax.vmap(lambda i: jax.random.fold_in(jax.random.key(seed), i))(jnp.arange(n))


def _lanes(n, **params):
    """Per-lane params: every value broadcast to n lanes."""
    p = default_params(**params)
    return {k: jnp.full((n,), v, jnp.int32 if k == "env" else None) for k, v in p.items()}


def _grid(envs, n, **params):
    """Lanes for every (environment, episode) pair: adversary index varies slowest."""
    p = _lanes(len(envs) * n, **params)
    p["env"] = jnp.repeat(jnp.array([ADV[e] for e in envs], jnp.int32), n)
    return p


_draw = jax.jit(jax.vmap(lambda s, t: jnp.stack(round_draws(s, t)), (None, 0)))


# One batch per spec, in float64 (so the numpy reference can match bit-for-bit
# decisions), computed once and shared by the tests below.
ISM_P_ENVS = ("none", "random", "periodic", "pulse", "drift", "targeted", "untargeted")
ISM_T_ENVS = ("random", "targeted", "pulse")
TAS_ENVS = ("none", "constant", "targeted", "untargeted")
N_ISM_P, N_ISM_T, N_TAS = 100, 50, 64
PERIOD = 2.0


@functools.cache
def _batch(name):
    spec, envs, n, gap, seed, common = {
        "ism_p": (ISM_P, ISM_P_ENVS, N_ISM_P, 0.5, 11, False),
        "ism_t": (ISM_T, ISM_T_ENVS, N_ISM_T, 1.0, 12, False),
        "tas": (TAS, TAS_ENVS, N_TAS, 0.5, 21, True),  # common keys across environments
    }[name]
    with jax.enable_x64(True):
        if common:
            keys = jnp.tile(_keys(n, seed=seed), len(envs))
        else:
            keys = _keys(len(envs) * n, seed=seed)
        out = _vrun(spec, _grid(envs, n, gap=gap, period=PERIOD), keys)
        out = {k: np.asarray(v) for k, v in out.items()}
    shaped = {k: v.reshape((len(envs), n) + v.shape[1:]) for k, v in out.items()}
    return spec, envs, n, gap, keys, shaped


# ---------------------------------------------------------------- reference trajectories


@pytest.mark.parametrize(
    "name,env,column",
    [
        ("ism_p", "random", 1),
        ("ism_p", "targeted", 0),
        ("ism_t", "pulse", 0),
        ("tas", "targeted", None),
        ("tas", "none", None),
    ],
)
def test_trajectories_match_numpy_reference(name, env, column):
    spec, envs, n, gap, keys, o = _batch(name)
    e = envs.index(env)
    delta = spec.deltas[column] if spec.deltas else 0.05
    tau, rec = o["tau"][e], o["recommendation"][e]
    if column is not None:
        tau, rec = tau[:, column], rec[:, column]
    with jax.enable_x64(True):
        for i in range(3):
            lane = e * n + i
            length = 1 << int(tau[i]).bit_length()  # a power of two > tau: few compiles
            D = np.asarray(_draw(episode_seed(keys[lane]), jnp.arange(length)))
            t_ref, r_ref = ref.np_episode(
                spec.policy,
                np.array([gap, 0.0, 0.0, 0.0]),
                delta=delta,
                sigma=1.0,
                U=1.5,
                c=-1.0,
                adversary=env,
                period=PERIOD,
                horizon=spec.horizon,
                refresh=spec.refresh,
                draws=lambda t, D=D: tuple(D[t]),
            )
            assert (int(tau[i]), int(rec[i])) == (t_ref, r_ref), i


def test_simulate_with_compaction_equals_run():
    spec, envs, n, gap, keys, o = _batch("ism_p")
    e = envs.index("none")  # lanes 0..n-1, keys fold_in(key(11), i)
    m = 8
    with jax.enable_x64(True):  # two batch sizes (8, then 4): two compiles
        out = simulate(
            spec, default_params(gap=gap, period=PERIOD), jax.random.key(11), m, min_batch=4, compact_at=0.5
        )
    # batches of 8 and 4 are other programs than the vmapped batch of 700, so the float64
    # statistics may differ by round-off: a discrete outcome flips only on a tie within
    # ~1e-15 relative, so it is compared exactly; the fraction within float64 round-off
    for k in ("tau", "stopped", "censored", "correct", "error", "recommendation"):
        np.testing.assert_array_equal(out[k], o[k][e][:m], err_msg=k)
    np.testing.assert_allclose(out["frac_best"], o["frac_best"][e][:m], rtol=1e-12)
    # compaction happened: fewer lane-rounds were computed than m × the longest episode
    assert int(out["pulls"]) < m * int(out["tau"].max())


# ---------------------------------------------------------------- δ-correctness


def test_ism_practical_delta_correct_on_small_grid():
    spec, envs, n, gap, keys, o = _batch("ism_p")
    assert not o["censored"].any()
    for j, delta in enumerate(spec.deltas):
        err = o["error"][:, :, j]  # pooled over the 7 environments: 700 episodes per δ
        _, hi = clopper_pearson(int(err.sum()), err.size)
        assert hi <= delta, (delta, int(err.sum()))


def test_ism_theory_delta_correct():
    spec, envs, n, gap, keys, o = _batch("ism_t")
    assert not o["censored"].any()
    err = o["error"]
    _, hi = clopper_pearson(int(err.sum()), err.size)
    assert hi <= spec.deltas[0]


# ---------------------------------------------------------------- attacks and censoring


def test_track_and_stop_attacks_and_censoring():
    spec, envs, n, gap, keys, o = _batch("tas")
    none, const, targ, untarg = (envs.index(e) for e in TAS_ENVS)
    # stationary: stops (the horizon 2048 is ~7 E[τ]) and is essentially always right
    assert o["stopped"][none].mean() >= 0.95 and o["error"][none].mean() <= 0.05
    # constant shift: the same trajectories (common keys, float64), the same stopping times;
    # the shift cancels in every difference of means up to float64 round-off, which flips a
    # stopping decision only on a tie within ~1e-15 relative
    np.testing.assert_array_equal(o["tau"][const], o["tau"][none])
    np.testing.assert_array_equal(o["recommendation"][const], o["recommendation"][none])
    # targeted adaptive attack with 2c = 2 > Δ = 0.5: wrong with probability >= 0.5
    assert o["error"][targ].mean() >= 0.5
    assert (o["recommendation"][targ] == 1).mean() >= 0.5
    # untargeted: never stops; censored episodes are reported, never as successes
    assert o["censored"][untarg].mean() >= 0.9
    c = o["censored"][untarg]
    assert np.all(o["tau"][untarg][c] == spec.horizon)
    assert np.all(o["recommendation"][untarg][c] == -1)
    assert not np.any(o["correct"][untarg][c]) and not np.any(o["error"][untarg][c])
    s = summarize({k: o[k][untarg] for k in ("tau", "stopped", "censored", "error")})
    assert s["n_censored"] == int(c.sum()) and s["n_stopped"] == n - int(c.sum())
    assert s["errors"] == int(o["error"][untarg].sum())


def test_uniform_glrt_overconfident_under_random_shifts():
    spec = BAISpec(policy="uniform_glrt", adversary="random", chunk=128, horizon=20_000)
    n = 200
    delta = 0.05
    # c = 1 = 4σ with σ = 0.25 (so c >= 2σ); U = 1.5 keeps |μ + s| <= U. (At c = 2σ the
    # error is about 2δ, measured by the experiment on 10^4 episodes.)
    out = _vrun(spec, _lanes(n, sigma=0.25, delta=delta), _keys(n, seed=31))
    err = np.asarray(out["error"])
    lo, _ = clopper_pearson(int(err.sum()), n)
    assert lo > delta, err.mean()
