"""tom-heads-toy: each claim's check on made-up pass/fail results; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.nets import tom

matplotlib.use("Agg")

SEEDS, PAIRS, PER_COND, HEADS, FEAT = 8, 128, 16, 8, 4


def _fake(signal_head=0, effect=1.0, learned=True, seed=0):
    """Results shaped like the run's: one head carries the divergence and the patching effect."""
    rng = np.random.default_rng(seed)
    cond = np.repeat(np.arange(tom.N_CONDITIONS), PER_COND)
    div = tom.CONDITIONS["divergence"][cond]
    kind = np.repeat([0, 1], PAIRS // 2)
    data = {
        "pair_kind": (("seed", "pair"), np.tile(kind, (SEEDS, 1))),
        "condition": (("seed", "vignette"), np.tile(cond, (SEEDS, 1))),
    }
    for m in tom.MODELS:
        reps = 0.1 * rng.normal(size=(SEEDS, cond.size, HEADS, FEAT))
        reps[:, :, signal_head, :] += div[None, :, None]
        clean = 2.0 + 0.1 * rng.normal(size=(SEEDS, PAIRS))
        corrupt = -2.0 + 0.1 * rng.normal(size=(SEEDS, PAIRS))
        patched = corrupt[:, :, None] + 0.2 * rng.normal(size=(SEEDS, PAIRS, HEADS))
        patched[:, :, signal_head] += effect * (clean - corrupt)
        data[f"{m}_reps"] = (("seed", "vignette", "head", "feature"), reps)
        data[f"{m}_clean"] = (("seed", "pair"), clean)
        data[f"{m}_corrupt"] = (("seed", "pair"), corrupt)
        data[f"{m}_patched"] = (("seed", "pair", "head"), patched)
        data[f"{m}_accuracy"] = (("seed",), np.full(SEEDS, 1.0 if learned else 0.5))
    return xr.Dataset(data)


@pytest.fixture(scope="module")
def exp():
    return get_experiment("tom-heads-toy")


def _verdicts(exp, ds):
    return {c.name: c.evaluate(ds, exp.spec) for c in exp.claims}


def test_claims_pass_on_a_planted_signal(exp):
    v = _verdicts(exp, _fake())
    assert {k: r.verdict for k, r in v.items()} == dict.fromkeys(v, "pass")
    assert v["planted-head-rsa"].measured > 0.95
    assert abs(v["shuffled-labels-null"].measured) < 0.05
    # 32 held-out pairs per kind, all effects positive: the Monte-Carlo floor 1e-4
    assert v["emergent-mediator-both-kinds"].measured == {"kind=belief": 1e-4, "kind=photo": 1e-4}


def test_claims_fail_when_the_signal_is_elsewhere_or_absent(exp):
    v = _verdicts(exp, _fake(signal_head=3, effect=0.0))
    assert v["planted-head-ranks-first"].verdict == "fail"
    assert v["planted-head-rsa"].verdict == "fail"  # head 0 is noise: r ≈ 0
    assert v["emergent-mediator-both-kinds"].verdict == "fail"  # no effect: p ≈ 0.5
    # the null claim's region on made-up seed means far from 0
    null = next(c for c in exp.claims if c.name == "shuffled-labels-null").with_measure(
        lambda ds, spec: xr.DataArray(np.linspace(0.3, 0.5, SEEDS), dims=["seed"])
    )
    assert null.evaluate(None, exp.spec).verdict == "fail"


def test_emergent_claim_is_inconclusive_when_the_toy_does_not_learn(exp):
    v = _verdicts(exp, _fake(learned=False))
    assert v["trained-model-learns"].verdict == "fail"
    e = v["emergent-mediator-both-kinds"]
    assert e.verdict == "inconclusive" and e.n == 0
    assert e.measured == {"kind=belief": 1e-4, "kind=photo": 1e-4}  # shown as evidence


@pytest.mark.slow
def test_smoke_runs_and_claims_evaluate(exp, tmp_path):
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()
    by = {c.name: c for c in run.claims}
    assert by["planted-head-ranks-first"].verdict == "pass"
    assert by["planted-head-rsa"].verdict == "pass" and by["planted-head-rsa"].measured > 0.95
    assert by["shuffled-labels-null"].verdict == "pass"
    assert by["trained-model-learns"].verdict == "pass"
    assert by["emergent-mediator-both-kinds"].verdict == "pass"
    ds = run.results
    assert ds["trained_patched"].sizes == {"seed": 10, "pair": 128, "head": 8}
    assert ds["planted_reps"].sizes == {"seed": 10, "vignette": 128, "head": 8, "feature": 32}
