"""The stochastic-optimization simulators against hand-written numpy loops.

With the noise switched off (sigma0 = sigma1 = 0, sigma = 0) every run is deterministic,
so each algorithm of ``bg0.run`` (NSGD-M with both schedules, normalized STORM with and
without its initial batch, SGD) and of ``heavy_tail.run`` (SGD, p-norm SMD) is compared
with an independent float64 numpy implementation of the update equations, including a
lane whose budget is shorter than the scan (rtol 1e-4: float32 against float64 over at
most 60 steps). With noise on, the normalized lanes must respect the travel bound and
stay finite, and the oracle accounting must match the budget.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.stochastic_opt import bg0
from jaxtheory.sims.stochastic_opt import heavy_tail as ht

STEPS = 60


def _np_grad(obj, x):
    return {0: lambda: x - 2 * np.sin(x), 1: lambda: x**3 - x, 2: lambda: np.sinh(x) - 3 * x}[obj]()


def _np_bg0(algo, obj, budget, params, dim=10):
    """Deterministic (noise-free) reference of bg0.run in float64 numpy."""
    x0 = np.full(dim, bg0.MINIMIZERS[obj] + params["offset"])
    if algo in (2, 3):
        b0 = math.ceil(math.sqrt(budget / 2)) if algo == 2 else 1
        T = (budget - b0) // 2 + 1
    else:
        T = budget
    eta = params["sgd_lr"] if algo == 4 else params["eta0"] * T ** (-(5 / 6 if algo == 0 else 0.75))
    beta = 1 - (T ** (-2 / 3) if algo == 0 else T ** (-0.5))
    a = 1.0 / T
    x, x_prev, d, norms = x0.copy(), x0.copy(), None, []
    for t in range(T):
        g = _np_grad(obj, x)
        norms.append(np.linalg.norm(g))
        if algo == 4:
            step = -eta * g
        else:
            if t == 0:
                d = g
            elif algo in (0, 1):
                d = beta * d + (1 - beta) * g
            else:
                d = g + (1 - a) * (d - _np_grad(obj, x_prev))
            step = -eta * d / np.linalg.norm(d)
        x_prev, x = x, x + step
    return {
        "mean_grad_norm": np.mean(norms),
        "final_grad_norm": np.linalg.norm(_np_grad(obj, x)),
        "final_dist": np.linalg.norm(x - x0),
        "steps": T,
    }


@pytest.fixture(scope="module")
def bg0_run():
    spec = bg0.BG0Spec(steps=STEPS, dim=10)
    return jax.jit(lambda p, k: bg0.run(spec, p, k))


def _params(**kw):
    p = dict(bg0.DEFAULT_PARAMS, **kw)
    return {
        k: jnp.asarray(v, jnp.int32 if isinstance(bg0.DEFAULT_PARAMS[k], int) else jnp.float32)
        for k, v in p.items()
    }


@pytest.mark.parametrize(
    "algo, obj, budget",
    [
        (0, 0, STEPS),
        (1, 1, STEPS),
        (2, 0, STEPS),
        (3, 2, STEPS),
        (4, 0, STEPS),
        (0, 2, 40),
    ],
)
def test_bg0_matches_numpy_without_noise(bg0_run, algo, obj, budget):
    kw = dict(algorithm=algo, objective=obj, budget=budget, sigma0=0.0, sigma1=0.0, eta0=2.0, sgd_lr=0.05)
    out = bg0_run(_params(**kw), jax.random.key(0))
    ref = _np_bg0(algo, obj, budget, dict(bg0.DEFAULT_PARAMS, **kw))
    assert int(out["iterations"]) == ref["steps"] and int(out["diverged_step"]) == -1
    for name in ("mean_grad_norm", "final_grad_norm", "final_dist"):
        np.testing.assert_allclose(float(out[name]), ref[name], rtol=1e-4, atol=1e-5, err_msg=name)


def test_bg0_travel_bound_and_oracle_accounting_with_noise(bg0_run):
    """Radial BG-0 noise with sigma1 = 5: normalized lanes stay within sum eta_s
    (1e-6 relative: compensated float32 displacement), the oracle calls never exceed the
    budget, and STORM spends exactly B0 + 2(T - 1)."""
    for algo in range(4):
        for seed in range(2):
            out = bg0_run(_params(algorithm=algo, noise=1, sigma1=5.0, eta0=3.0), jax.random.key(seed))
            assert int(out["diverged_step"]) == -1
            assert float(out["travel_ratio"]) <= 1.0 + 1e-6
            T, b0 = bg0.horizon(algo, STEPS)
            total_travel = T * 3.0 * T ** (-(5 / 6 if algo == 0 else 0.75))
            assert float(out["max_dist"]) <= total_travel * (1 + 1e-6)
            calls = int(out["oracle_calls"])
            assert calls <= STEPS
            assert calls == (b0 + 2 * (T - 1) if algo in (2, 3) else T)


def _np_link(v, q):
    n = (np.abs(v) ** q).sum() ** (1 / q)
    return np.zeros_like(v) if n == 0 else np.sign(v) * np.abs(v) ** (q - 1) * n ** (2 - q)


def _np_heavy(algo, obj, T, dim=10, radius=1.0, p=1.5, c=1.0):
    x_star = np.zeros(dim)
    x_star[0] = radius
    x = np.full(dim, radius) if obj == 2 else np.zeros(dim)
    grad = {
        0: lambda y: np.sign(y - x_star),
        1: lambda y: np.clip(y - x_star, -1, 1),
        2: lambda y: 2 * y / (1 + y**2) ** 2 - 0.3 * np.sin(3 * y),
    }[obj]
    value = {
        0: lambda y: np.abs(y - x_star).sum(),
        1: lambda y: np.where(
            np.abs(y - x_star) <= 1, 0.5 * (y - x_star) ** 2, np.abs(y - x_star) - 0.5
        ).sum(),
        2: lambda y: (y**2 / (1 + y**2) + 0.1 * np.cos(3 * y)).sum() - 0.1 * dim,
    }[obj]
    eta = c * T ** (-1 / p)
    r = ht.mirror_exponent(dim) if algo == 1 else 2.0
    s = r / (r - 1)
    xs, g2 = [], []
    for _ in range(T):
        g = grad(x)
        xs.append(x)
        g2.append((g**2).sum())
        x = _np_link(_np_link(x, r) - eta * g, s)
    return {"avg_gap": value(np.mean(xs, 0)), "final_gap": value(x), "mean_sq_grad": np.mean(g2)}


@pytest.mark.parametrize("algo, obj, horizon", [(0, 0, STEPS), (1, 0, STEPS), (1, 1, 40), (0, 2, STEPS)])
def test_heavy_tail_matches_numpy_without_noise(algo, obj, horizon):
    run = _heavy_run()
    p = dict(ht.DEFAULT_PARAMS, algorithm=algo, objective=obj, horizon=horizon, sigma=0.0)
    p = {
        k: jnp.asarray(v, jnp.int32 if k in ("algorithm", "objective", "horizon") else jnp.float32)
        for k, v in p.items()
    }
    out = run(p, jax.random.key(0))
    ref = _np_heavy(algo, obj, horizon)
    for name in ("avg_gap", "final_gap", "mean_sq_grad"):
        np.testing.assert_allclose(float(out[name]), ref[name], rtol=1e-4, atol=1e-5, err_msg=name)


_HEAVY = {}


def _heavy_run():
    if "run" not in _HEAVY:
        spec = ht.HeavyTailSpec(steps=STEPS, dim=10)
        _HEAVY["run"] = jax.jit(lambda p, k: ht.run(spec, p, k))
    return _HEAVY["run"]


def test_heavy_tail_noise_is_heavy_and_runs_stay_finite():
    """With p = 1.25 (tail index 1.45) the largest noise coordinate over 60 x 10 draws is
    typically far beyond a Gaussian's; the run stays finite."""
    run = _heavy_run()
    p = {
        k: jnp.asarray(v, jnp.int32 if k in ("algorithm", "objective", "horizon") else jnp.float32)
        for k, v in dict(ht.DEFAULT_PARAMS, p=1.25).items()
    }
    big = [float(run(p, jax.random.key(s))["max_abs_noise"]) for s in range(4)]
    # P(max of 600 Lomax(1.45) draws < 20) = (1 - 21^-1.45)^600 ~ 1e-7.
    assert min(big) > 20.0
