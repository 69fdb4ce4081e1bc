"""smoothed-halfspaces-sq: every claim's check on made-up pass/fail data; the smoke preset (slow).

The made-up results are built in float64 numpy from the closed forms (majority's level weights,
the noisy tail as a sum over levels), independent of the simulator, then corrupted to fail.
"""

import dataclasses

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.discrete import boolean as bo

matplotlib.use("Agg")

EXP = get_experiment("smoothed-halfspaces-sq")
CLAIMS = {c.name: c for c in EXP.claims}
SPEC = dataclasses.replace(EXP.spec, **EXP.presets["smoke"].spec)


def _tails(W, sigmas):
    k = np.arange(W.shape[-1])
    terms = (1 - 2 * np.asarray(sigmas))[:, None] ** (2 * k) * W[None, :]
    return np.array([[terms[i, d + 1 :].sum() for d in range(W.shape[-1])] for i in range(len(sigmas))])


def fake(
    seeds=8,
    random_levels=None,
    excess=(0.0, -0.1, -0.2),
    tuned=(0.0, -0.1, -0.2),
    tail_scale=1.0,
    dstar_shift=0,
    maj_drop=0,
):
    """Results as the simulator would give them, from numpy closed forms."""
    n = SPEC.n
    maj = bo.majority_level_weights(n)
    rng = np.random.default_rng(0)
    if random_levels is None:  # odd levels, decaying weights: a plausible LTF spectrum
        base = np.zeros(n + 1)
        base[1::2] = 0.66 * np.arange(1, n + 1, 2) ** -1.8
        base /= base.sum()
        random_levels = base
    sig, eps = np.array(SPEC.sigmas), np.array(SPEC.epsilons)
    W = np.zeros((seeds, 2, n + 1))
    tail = np.zeros((seeds, 2, len(sig), n + 1))
    dstar = np.zeros((seeds, 2, 2, len(sig), len(eps)), int)
    for s in range(seeds):
        r = random_levels * (1 + 0.05 * rng.standard_normal(n + 1))
        r = np.abs(r) / np.abs(r).sum()
        for f, w in enumerate((maj, r)):
            W[s, f] = w
            t = _tails(w, sig) * tail_scale
            tail[s, f] = t
            for c, thr in enumerate((eps**2, eps)):
                dstar[s, f, c] = np.argmax(t[:, None, :] <= thr[None, :, None], axis=-1)
    dstar = dstar + dstar_shift
    dstar[:, 0, 0] -= maj_drop
    ex = np.asarray(excess)[None, :] + 0.01 * rng.standard_normal((seeds, len(excess)))
    ex_t = np.asarray(tuned)[None, :] + 0.01 * rng.standard_normal((seeds, len(tuned)))
    coords = {
        "seed": np.arange(seeds),
        "function": list(bo.FUNCTIONS),
        "criterion": list(bo.CRITERIA),
        "sigma": list(sig),
        "eps": list(eps),
        "level": np.arange(n + 1),
        "degree": np.arange(n + 1),
        "ldegree": list(SPEC.learn_degrees),
    }
    return xr.Dataset(
        {
            "level_weight": (("seed", "function", "level"), W),
            "tail": (("seed", "function", "sigma", "degree"), tail),
            "dstar": (("seed", "function", "criterion", "sigma", "eps"), dstar),
            "excess": (("seed", "ldegree"), ex),
            "excess_tuned": (("seed", "ldegree"), ex_t),
        },
        coords=coords,
    )


def verdict(name, ds):
    return CLAIMS[name].evaluate(ds, SPEC).verdict


def test_level_weights_claim():
    ds = fake()
    assert verdict("majority-level-weights", ds) == "pass"
    ds["level_weight"][:, 0, 3] += 1e-3
    assert verdict("majority-level-weights", ds) == "fail"


def test_tail_bound_claim():
    assert verdict("noisy-tail-bound", fake()) == "pass"
    # a tail above ρ^{2(d+1)} (impossible for a Boolean function: weights summing to 3)
    assert verdict("noisy-tail-bound", fake(tail_scale=3.0)) == "fail"


def test_degree_bound_claim():
    assert verdict("degree-bound", fake()) == "pass"
    assert verdict("degree-bound", fake(dstar_shift=20)) == "fail"


def test_majority_near_worst_claim():
    # majority's top-level weight makes it the worst against this decaying spectrum
    assert verdict("majority-near-worst", fake()) == "pass"
    assert verdict("majority-near-worst", fake(maj_drop=2)) == "fail"
    ds = fake().sel(eps=[0.2])
    assert verdict("majority-near-worst", ds) == "not-applicable"


def test_excess_claim():
    assert verdict("l1-excess-falls-with-degree", fake()) == "pass"
    assert verdict("l1-excess-falls-with-degree", fake(excess=(0.0, 0.1, 0.2))) == "fail"
    assert verdict("l1-excess-falls-with-degree", fake(excess=(0.0, 0.0, 0.0))) == "inconclusive"
    assert verdict("l1-excess-falls-with-degree", fake().isel(ldegree=[0])) == "not-applicable"


def test_tuned_threshold_claim():
    assert verdict("tuned-threshold-error-falls", fake()) == "pass"
    # only the tuned rounding rises: the random-threshold claim is unaffected
    ds = fake(tuned=(0.0, 0.05, -0.2))
    assert verdict("tuned-threshold-error-falls", ds) == "fail"
    assert verdict("l1-excess-falls-with-degree", ds) == "pass"


def test_cv_claim():
    ds = fake()
    assert verdict("degree-scaling-cv", ds) == "pass"
    # d* spread far from proportional to ln(1/ε)/σ within 3 ≤ d* < n
    bad = ds.copy(deep=True)
    rng = np.random.default_rng(1)
    d = bad["dstar"].values
    d[...] = rng.choice([3, 13], size=d.shape)
    assert verdict("degree-scaling-cv", bad) == "fail"


@pytest.mark.slow
def test_smoke(tmp_path):
    run = EXP.sweep("smoke", out=tmp_path, quiet=True).check()
    ds = run.results
    w = ds["level_weight"].sel(function="majority")
    assert (w == w.isel(seed=0)).all()  # majority draws nothing
    np.testing.assert_allclose(w.isel(seed=0).sel(level=[1, 3, 5]).values, [0.658, 0.118, 0.058], atol=5e-4)
    by = {c.name: c for c in run.claims}
    for name in (
        "majority-level-weights",
        "noisy-tail-bound",
        "degree-bound",
        "degree-scaling-cv",
        "l1-excess-falls-with-degree",
        "tuned-threshold-error-falls",
    ):
        assert by[name].verdict == "pass", name
    # a finding: random halfspaces need degree 5 where majority needs 3 at (σ, ε) = (0.1, 0.1)
    assert by["majority-near-worst"].verdict == "fail"
    assert by["majority-near-worst"].measured["sigma=0.1,eps=0.1"] == pytest.approx(0.6)
    from sweeps.smoothed_halfspaces_sq import whole_grid_cv

    # the whole-grid statistic, from the exact enumeration
    assert whole_grid_cv(ds, run.spec) == pytest.approx(0.35, abs=0.005)
    assert whole_grid_cv(ds, run.spec, "squared") == pytest.approx(0.49, abs=0.005)
