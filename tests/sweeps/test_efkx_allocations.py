"""efkx-allocations: every claim's check on made-up pass/fail data; the smoke preset (slow)."""

import itertools

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from sweeps import efkx_allocations as ea

matplotlib.use("Agg")

EXP = get_experiment("efkx-allocations")
CLAIMS = {c.name: c for c in EXP.claims}


class _Spec:
    graph_agents = 4


def fake(seeds=8, best=1.0, ece=0.6, mismatch=0, no_efx=0, no_orient=(1, 0), n3=True):
    """Made-up results in the experiment's layout: two sizes, two families."""
    sizes, fams, ks, graphs = 2, 2, 4, 3
    shape = (sizes, fams, seeds)
    best_alpha = np.full(shape + (ks,), 1.0, np.float32)
    best_alpha[0, 0, 0, 1:] = best  # one instance's best α_k for k >= 1
    best_alpha[0, 0, :no_efx, 1] = 0.9  # three-agent instances without EFX
    ece_alpha = np.full(shape + (ks,), 0.8, np.float32)
    ece_alpha[1, 1, 3, 1] = ece
    n_orient = np.full(shape + (graphs, ks), 5, np.int32)
    for k, c in zip((1, 2), no_orient):
        n_orient.reshape(-1, ks)[:c, k] = 0
    ends = np.tile(np.array([[0, 1], [1, 2], [2, 3]]), shape + (graphs, 1, 1))
    dims = ("size", "family", "seed")
    return xr.Dataset(
        {
            "best_alpha": (dims + ("k",), best_alpha),
            "ece_alpha": (dims + ("k",), ece_alpha),
            "rr_alpha": (dims + ("k",), ece_alpha),
            "mismatch": (dims, np.full(shape, 0, np.int32) + np.eye(1, seeds, dtype=np.int32)[0] * mismatch),
            "orient_n_efkx": (dims + ("graph", "k"), n_orient),
            "orient_best": (dims + ("graph", "k"), np.where(n_orient == 0, 0.9, 1.0)),
            "graph_ends": (dims + ("graph", "edge", "end"), ends),
            "graph_weights": (dims + ("graph", "edge", "end"), np.ones_like(ends)),
        },
        coords={
            "size": [0, 1],
            "n_agents": ("size", [3 if n3 else 5, 4]),
            "n_goods": ("size", [8, 7]),
            "family": ["uniform", "bimodal"],
            "seed": np.arange(seeds),
            "k": [0, 1, 2, 3],
        },
    )


def verdict(name, ds):
    return CLAIMS[name].evaluate(ds, _Spec()).verdict


def test_reduction_claim():
    assert verdict("k0-is-ef-k1-is-efx", fake()) == "pass"
    assert verdict("k0-is-ef-k1-is-efx", fake(mismatch=2)) == "fail"


def test_guarantee_claims():
    for name in ("efx-two-thirds", "ef2x-guarantee", "efkx-guarantee"):
        assert verdict(name, fake(best=1.0)) == "pass"
        assert verdict(name, fake(best=0.81)) == "pass"  # above 2/3, 3/4 and 4/5
    # 0.7: above 2/3 (k = 1), below 3/4 (k = 2) and 4/5 (k = 3), on one three-agent instance
    assert verdict("efx-two-thirds", fake(best=0.7)) == "pass"
    for name, k in (("ef2x-guarantee", 2), ("efkx-guarantee", 3)):
        res = CLAIMS[name].evaluate(fake(best=0.7), _Spec())
        assert res.verdict == "fail"
        assert res.cells == {f"k={k},n=3,m=8": "fail", f"k={k},n=4,m=7": "pass"}
    # an exhaustive enumeration: exact, and decided on few seeds too
    assert verdict("efkx-guarantee", fake(seeds=4, best=0.7)) == "fail"


def test_three_agent_claim():
    assert verdict("efx-three-agents", fake()) == "pass"
    assert verdict("efx-three-agents", fake(no_efx=1)) == "fail"
    assert verdict("efx-three-agents", fake(n3=False)) == "not-applicable"


def test_ece_claim():
    assert verdict("ece-half-efx", fake(ece=0.5)) == "pass"  # exactly 1/2 meets the bound
    assert verdict("ece-half-efx", fake(ece=0.49)) == "fail"


def test_orientation_claims():
    assert verdict("no-efx-orientation", fake(no_orient=(2, 0))) == "pass"
    assert verdict("no-ef2x-orientation", fake(no_orient=(2, 0))) == "inconclusive"  # a search, not a proof
    assert verdict("no-ef2x-orientation", fake(no_orient=(0, 1))) == "pass"
    assert verdict("no-efx-orientation", fake(no_orient=(0, 1))) == "inconclusive"
    ce = ea.first_counterexample(fake(no_orient=(1, 0)), 1)
    assert ce["endpoints"] == [[0, 1], [1, 2], [2, 3]] and ce["best_alpha"] == pytest.approx(0.9)
    assert ea.first_counterexample(fake(no_orient=(1, 0)), 2) is None


def _ref_best_orientation(ends, w, n, k):
    """Brute force in numpy float64 with subsets (independent of the simulator)."""
    ends, w = np.asarray(ends), np.asarray(w)
    m = len(ends)
    v = np.zeros((n, m))
    for e, (a, b) in enumerate(ends):
        v[a, e] += w[e][0]
        v[b, e] += w[e][1]
    best = 0.0
    for bits in itertools.product((0, 1), repeat=m):
        alloc = np.array([ends[e][b] for e, b in enumerate(bits)])
        al = 1.0
        for i in range(n):
            own = v[i, alloc == i].sum()
            for j in range(n):
                goods = np.flatnonzero(alloc == j)
                if i == j or len(goods) <= k:
                    continue
                rem = max(
                    v[i, [g for g in goods if g not in S]].sum() for S in itertools.combinations(goods, k)
                )
                if own < rem:
                    al = min(al, own / rem)
        best = max(best, al)
    return best


@pytest.mark.slow  # the whole smoke preset; CI's docs build runs it too
def test_smoke(tmp_path):
    from matplotlib.figure import Figure

    from jaxtheory import plots

    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    for name in (
        "k0-is-ef-k1-is-efx",
        "efkx-guarantee",
        "efx-three-agents",
        "ece-half-efx",
        "no-efx-orientation",
    ):
        assert by[name].verdict == "pass", name
    ds = run.results
    assert int(ds["mismatch"].sum()) == 0
    # the exhibited multigraph has no EFX orientation, by an independent brute force
    ce = ea.first_counterexample(ds, 1)
    assert ce is not None
    assert _ref_best_orientation(ce["endpoints"], ce["weights"], run.spec.graph_agents, 1) < 1.0
    for f in EXP.figures:
        fig = Figure()
        f.draw(ds, run.spec, fig)
        plots.check_drawn(fig, f.name)
