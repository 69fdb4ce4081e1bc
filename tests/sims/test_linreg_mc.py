"""Monte Carlo simulator of jaxtheory.sims.linreg: exact identities and agreement with theory.

* Identities (float64, same batches, 1e-10): LA(k=1, α) ≡ SGD(αη); LA-DiLoCo(W=1) ≡ LA;
  LA-DiLoCo(k=1, W, B) ≡ LA(k=1, batch W·B); LA(α=1) ≡ SGD(η) at synchronizations.
* Agreement: the mean excess risk over S seeds lies within Z_TOL standard errors of the
  exact recursion at every logged step. Z_TOL = 4: with ~8 correlated logged steps per
  case and 512 seeds (the mean is close to Gaussian), a 4-sigma excursion by chance has
  probability below 1e-3 per case, while a wrong recursion (e.g. dropping the
  tr(KC) term, or the 1/W factor) is off by tens of standard errors here.
"""

import jax
import numpy as np
import pytest

from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import montecarlo as mc
from jaxtheory.sims.linreg import problems as pb

P = dict(mc.MC_DEFAULT_PARAMS, lr=0.4, alpha=0.6, mu=0.5, beta=0.3, sigma2=0.1, a=1.0, b=1.0)
Z_TOL = 4.0
S = 512


def _final(spec_kw, params, key):
    spec = mc.MonteCarloSpec(**{**dict(dim=6, batch=2, steps=12, num_log=12, return_params=True), **spec_kw})
    out = mc.run(spec, params, key)
    return out["final_error"], out["risk"]


def test_identities_same_batches_float64():
    key = jax.random.key(3)
    W, B = 3, 2
    with jax.enable_x64(True):

        @jax.jit
        def all_runs():
            return {
                "la_k1": _final(dict(algorithm="lookahead", sync_period=1), P, key),
                "sgd_ae": _final(dict(algorithm="sgd"), dict(P, lr=P["alpha"] * P["lr"]), key),
                "la_k3": _final(dict(algorithm="lookahead", sync_period=3), P, key),
                "dl_w1": _final(dict(algorithm="diloco", sync_period=3, workers=1), P, key),
                "dl_k1": _final(dict(algorithm="diloco", sync_period=1, workers=W), P, key),
                "la_wb": _final(dict(algorithm="lookahead", sync_period=1, batch=W * B), P, key),
                "la_a1": _final(dict(algorithm="lookahead", sync_period=4), dict(P, alpha=1.0), key),
                "sgd_e": _final(dict(algorithm="sgd"), P, key),
            }

        r = jax.tree.map(np.asarray, all_runs())
    for a, b in [("la_k1", "sgd_ae"), ("dl_w1", "la_k3"), ("dl_k1", "la_wb"), ("la_a1", "sgd_e")]:
        np.testing.assert_allclose(r[a][0], r[b][0], rtol=0, atol=1e-10, err_msg=f"{a} vs {b}")
    for a, b in [("la_k1", "sgd_ae"), ("dl_w1", "la_k3"), ("dl_k1", "la_wb")]:
        np.testing.assert_allclose(r[a][1], r[b][1], rtol=0, atol=1e-10, err_msg=f"{a} vs {b}")
    assert np.abs(r["la_k3"][0] - r["sgd_ae"][0]).max() > 1e-3  # the check can fail


def _z_scores(spec_kw, exact_kw, params, dim=8, batch=2, steps=24, seeds=S):
    spec = mc.MonteCarloSpec(dim=dim, batch=batch, steps=steps, num_log=10, **spec_kw)
    keys = jax.random.split(jax.random.key(11), seeds)
    risks = np.asarray(jax.jit(jax.vmap(lambda k: mc.run(spec, params, k)["risk"]))(keys))
    espec = ex.ExactSpec(
        dim=dim, steps=steps, num_log=10, algorithm=spec.algorithm, outer=spec.outer, inner=spec.inner
    )
    theory = np.asarray(
        jax.jit(lambda p: ex.run(espec, p)["risk"])(
            dict(params, k=spec.sync_period, workers=spec.workers, batch=batch)
        )
    )
    mean, se = risks.mean(0), risks.std(0, ddof=1) / np.sqrt(seeds)
    live = se > 1e-7 * mean  # before the first synchronization the slow risk is exact
    assert live.sum() >= 5
    z = (mean - theory)[live] / se[live]
    return z, theory


CASES = {
    "diloco-nesterov": (dict(algorithm="diloco", sync_period=3, workers=2, outer="nesterov"), {}),
    "sgd": (dict(algorithm="sgd"), {}),
    "lookahead": (dict(algorithm="lookahead", sync_period=4), {}),
    "diloco": (dict(algorithm="diloco", sync_period=3, workers=3), {}),
    "sla-heavy-ball": (dict(algorithm="lookahead", sync_period=3, outer="heavy_ball"), {}),
    "sgd-inner-nesterov": (dict(algorithm="sgd", inner="nesterov"), {}),
    "sla-inner-heavy-ball": (
        dict(algorithm="diloco", sync_period=3, workers=2, outer="heavy_ball", inner="heavy_ball"),
        {},
    ),
}


@pytest.mark.parametrize(
    "case", [c if c == "diloco-nesterov" else pytest.param(c, marks=pytest.mark.slow) for c in CASES]
)
def test_monte_carlo_matches_exact_recursion(case):
    spec_kw, _ = CASES[case]
    z, _ = _z_scores(spec_kw, {}, P)
    assert np.abs(z).max() <= Z_TOL, f"{case}: z = {np.round(z, 2)}"


@pytest.mark.slow
def test_monte_carlo_detects_a_wrong_recursion():
    """The same check on LA-DiLoCo(W=3) against the recursion with W = 1 fails decisively."""
    spec = mc.MonteCarloSpec(
        dim=8, batch=2, steps=24, num_log=10, algorithm="diloco", sync_period=3, workers=3
    )
    keys = jax.random.split(jax.random.key(5), S)
    risks = np.asarray(jax.jit(jax.vmap(lambda k: mc.run(spec, P, k)["risk"]))(keys))
    espec = ex.ExactSpec(dim=8, steps=24, num_log=10, algorithm="diloco")
    wrong = np.asarray(ex.run(espec, dict(P, k=3, workers=1, batch=2))["risk"])
    right = np.asarray(ex.run(espec, dict(P, k=3, workers=3, batch=2))["risk"])
    se = risks.std(0, ddof=1) / np.sqrt(S)
    z_wrong = np.abs(risks.mean(0) - wrong)[-3:] / se[-3:]
    z_right = np.abs(risks.mean(0) - right)[-3:] / se[-3:]
    assert z_wrong.min() > 6 and z_right.max() < Z_TOL


def test_full_batch_is_deterministic_and_exact():
    spec = mc.MonteCarloSpec(
        dim=8, steps=30, num_log=6, algorithm="lookahead", sync_period=3, outer="heavy_ball", full_batch=True
    )
    got = np.asarray(jax.jit(lambda: mc.run(spec, P, jax.random.key(0))["risk"])())
    espec = ex.ExactSpec(
        dim=8, steps=30, num_log=6, algorithm="lookahead", outer="heavy_ball", full_batch=True
    )
    want = np.asarray(jax.jit(lambda: ex.run(espec, dict(P, k=3))["risk"])())
    np.testing.assert_allclose(got, want, rtol=2e-5)
    assert len(pb.log_grid(30, 6)) == got.shape[0]
