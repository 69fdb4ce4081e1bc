"""The prover-estimator-debate experiment: each claim's check on made-up data, and the smoke run."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.games import debate as db

matplotlib.use("Agg")

SEEDS = 16
SIZES = ((3, 3), (4, 5), (4, 7))


def _fake(spec, *, flip_shift=0.0, search_shift=0.0, obf_shift=0.0, stable_rate=0.99):
    """Results with the smoke's dims whose pooled rates are the closed forms (plus shifts)."""
    n_g, n_f = spec.games, spec.flip_trials

    def spread(total, n_each):
        # split a pooled count over seeds (each at most n_each)
        base = np.full(SEEDS, total // SEEDS)
        base[: total % SEEDS] += 1
        assert base.max() <= n_each
        return base

    flip = np.zeros((len(SIZES), SEEDS, 2, len(spec.flip_p), len(spec.flip_eps)), int)
    search = np.zeros((len(SIZES), SEEDS, len(spec.search_budgets)), int)
    obf = np.zeros((len(SIZES), SEEDS, 2, len(spec.opponent_budgets), len(spec.ratios)), int)
    stable = np.zeros(
        (len(SIZES), SEEDS, len(spec.deltas), 2, len(spec.opponent_budgets), len(spec.ratios)), int
    )
    for i, (d, q) in enumerate(SIZES):
        for g, gate in enumerate(db.GATES):
            k = db.gate_threshold(gate, q)
            for a, p in enumerate(spec.flip_p):
                for b, e in enumerate(spec.flip_eps):
                    rho = min(1.0, db.flip_probability(q, k, p, e) + flip_shift)
                    flip[i, :, g, a, b] = spread(round(rho * n_f * SEEDS), n_f)
        for j, bud in enumerate(spec.search_budgets):
            w = min(1.0, db.search_win_probability(bud, q**d) + search_shift)
            search[i, :, j] = spread(round(w * n_g * SEEDS), n_g)
        for a in range(2):
            for b, s in enumerate(spec.opponent_budgets):
                for c, r in enumerate(spec.ratios):
                    w = db.obfuscated_pe_win_probability(d, q, spec.honest_budget(s, r)) + obf_shift
                    obf[i, :, a, b, c] = spread(round(min(1.0, w) * n_g * SEEDS), n_g)
                    stable[i, :, :, a, b, c] = spread(round(stable_rate * n_g * SEEDS), n_g)[:, None]
    return xr.Dataset(
        {
            "flip_count": (("size", "seed", "gate", "p", "eps"), flip),
            "search_wins": (("size", "seed", "budget"), search),
            "obfuscated_wins": (("size", "seed", "honest", "opponent", "ratio"), obf),
            "stable_wins": (("size", "seed", "delta", "honest", "opponent", "ratio"), stable),
        },
        coords={
            "size": np.arange(len(SIZES)),
            "depth": ("size", [d for d, _ in SIZES]),
            "branching": ("size", [q for _, q in SIZES]),
            "seed": np.arange(SEEDS),
            "gate": list(db.GATES),
            "p": list(spec.flip_p),
            "eps": list(spec.flip_eps),
            "budget": list(spec.search_budgets),
            "delta": list(spec.deltas),
            "honest": list(db.SIDES),
            "opponent": list(spec.opponent_budgets),
            "ratio": list(spec.ratios),
        },
    )


@pytest.fixture(scope="module")
def exp():
    return get_experiment("prover-estimator-debate")


def _claim(exp, name):
    return next(c for c in exp.claims if c.name == name)


def _verdict(exp, name, ds):
    return _claim(exp, name).evaluate(ds, exp.spec)


@pytest.mark.parametrize(
    "name, shift",
    [
        ("majority-flip-closed-form", "flip_shift"),
        ("old-protocol-uniform-search", "search_shift"),
        ("obfuscated-pe-closed-form", "obf_shift"),
    ],
)
def test_closed_form_claims_pass_on_exact_and_fail_when_off(exp, name, shift):
    res = _verdict(exp, name, _fake(exp.spec))
    assert res.verdict == "pass", res
    assert res.error is None
    off = _verdict(exp, name, _fake(exp.spec, **{shift: 0.05}))  # 0.05 beyond every tolerance
    assert off.verdict == "fail"
    # 0.002 off: the interval (half-width ≤ 0.004 for flips, ≤ 0.014 for wins) still lies
    # inside the tolerance (0.01, 0.03)
    near = _verdict(exp, name, _fake(exp.spec, **{shift: 0.002}))
    assert near.verdict == "pass"


def test_stable_claim_pass_fail_inconclusive(exp):
    name = "stable-honest-wins-at-2x"
    assert _verdict(exp, name, _fake(exp.spec, stable_rate=0.99)).verdict == "pass"
    assert _verdict(exp, name, _fake(exp.spec, stable_rate=0.90)).verdict == "fail"
    # 0.95 exactly: every interval straddles the threshold
    assert _verdict(exp, name, _fake(exp.spec, stable_rate=0.95)).verdict == "inconclusive"
    res = _verdict(exp, name, _fake(exp.spec))
    assert len(res.cells) == len(SIZES) * len(exp.spec.deltas) * 2 * len(exp.spec.opponent_budgets)


def test_collapse_claim(exp):
    name = "obfuscation-needs-exponential-compute"
    res = _verdict(exp, name, _fake(exp.spec))
    assert res.verdict == "pass"
    assert all(label.startswith(("D=4,q=5", "D=4,q=7")) for label in res.cells)  # N >= 625 only
    assert _verdict(exp, name, _fake(exp.spec, obf_shift=0.7)).verdict == "fail"
    small = _fake(exp.spec).isel(size=[0])
    assert _verdict(exp, name, small).verdict == "not-applicable"


@pytest.mark.slow
def test_smoke_runs_claims_and_figures(exp, tmp_path):

    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in ("majority-flip-closed-form", "old-protocol-uniform-search", "obfuscated-pe-closed-form"):
        assert by[name].verdict == "pass", by[name]
    assert by["obfuscation-needs-exponential-compute"].verdict == "pass"
    ds = run.results
    n = exp.spec.games * SEEDS
    # stable roots are fair coins (odd q, symmetric majority): within 5 sigma of 1/2
    frac = ds["root_true"].sum("seed") / n
    assert float(abs(frac - 0.5).max()) < 5 * 0.5 / np.sqrt(n)
