"""decentralized-minimax: each claim's check on made-up data, and the smoke run (the Lyapunov
reference is tested in tests/sims/test_decentralized_consensus.py)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment
from jaxtheory.sims.decentralized import consensus
from jaxtheory.sims.decentralized import minimax as mm
from sweeps import decentralized_minimax as dm

matplotlib.use("Agg")

KAPPAS = [10.0, 30.0, 100.0, 300.0]
ETAS = [0.025, 0.05, 0.075, 0.1]
S = 8
# a small spec: the consensus claim's Lyapunov solve is then instant; a long horizon so
# that made-up hitting times are below T unless a test censors them
SPEC = mm.MinimaxSpec(agents=3, dim_x=2, dim_y=1, steps=100_000, record_every=100_000)


def _claim(name):
    return next(c for c in dm.EXPERIMENT.claims if c.name == name)


def _fake(final=None, hit=None, gt_dev=None, ratio=1.0, seed=0):
    """A results set shaped like the smoke preset's, with the given values (the parameters and
    spec fields the preset does not sweep as scalar coordinates, as the engine writes them)."""
    rng = np.random.default_rng(seed)
    shape = (2, 2, len(KAPPAS), len(ETAS), S)
    fg = np.full(shape, 1e-5) if final is None else final
    hs = np.full(shape + (2,), 100.0) if hit is None else hit
    dev = np.zeros(shape, np.int32) if gt_dev is None else gt_dev
    th = {m: consensus.stationary_consensus_at(SPEC, m, 10.0, 0.05, 0.3, 1.0, 3.0, 0.1) for m in mm.ALGOS}
    cons = np.ones(shape)
    for a, m in enumerate(mm.ALGOS):
        cons[1, a] = th[m] * ratio * (1 + 0.01 * rng.standard_normal(shape[2:]))
    dims = ("setting", "algo", "kappa", "eta", "seed")
    return xr.Dataset(
        {
            "final_grad_phi": (dims, fg),
            "hit_step": (dims + ("eps",), hs),
            "gt_dev": (dims, dev),
            "consensus_avg": (dims, cons),
        },
        coords={
            "algo": list(mm.ALGOS),
            "kappa": KAPPAS,
            "eta": ETAS,
            "eps": [1e-2, 1e-3],
            "sigma": ("setting", [0.0, 0.1]),
            "cos_amp": ("setting", [2.0, 0.0]),
            "instance": ("setting", [-1, 0]),
            **{k: mm.DEFAULT_PARAMS[k] for k in ("r_scale", "beta_scale", "storm_rho", "hetero")},
            "graph": SPEC.graph,
        },
    )


def _verdict(name, ds):
    r = _claim(name).evaluate(ds, SPEC)
    assert r.error is None, r.error
    return r.verdict


def test_baseline_identity_check():
    assert _verdict("baseline-is-r0", _fake()) == "pass"
    dev = np.zeros((2, 2, 4, 4, S), np.int32)
    dev[:, 0] = 5  # the smoothed method differs from GDA: irrelevant to the claim
    assert _verdict("baseline-is-r0", _fake(gt_dev=dev)) == "pass"
    dev[0, 1, 2, 1, 3] = 1  # one entry of one baseline lane
    assert _verdict("baseline-is-r0", _fake(gt_dev=dev)) == "fail"


def test_same_step_check():
    fg = np.ones((2, 2, 4, 4, S))
    fg[:, 0, :, 2] = 1e-4  # DS-GDA at η = 0.075 below 1e-3 at every κ and instance
    assert _verdict("same-step-every-kappa", _fake(final=fg)) == "pass"
    fg[0, 0, 3, 2, 5] = np.nan  # one diverged instance at κ = 300: no η works everywhere
    assert _verdict("same-step-every-kappa", _fake(final=fg)) == "fail"
    fg[0, 0, 3, 1] = 1e-4  # another η works at κ = 300: η may depend on κ (η_x = η_y still)
    assert _verdict("same-step-every-kappa", _fake(final=fg)) == "pass"


def test_gda_fails_check():
    fg = np.full((2, 2, 4, 4, S), 1e-5)
    fg[0, 1, 2:] = 5.0  # D-SGDA-GT stalls at κ ≥ 100 for every η
    fg[0, 1, 3, 0] = np.nan  # or diverges
    assert _verdict("gda-fails-large-kappa", _fake(final=fg)) == "pass"
    fg[0, 1, 2, 1] = 1e-4  # one η reaches 1e-3 on every instance at κ = 100
    assert _verdict("gda-fails-large-kappa", _fake(final=fg)) == "fail"


def _hits(power, method, noise=0.05, seed=1, coef=20.0):
    rng = np.random.default_rng(seed)
    hs = np.full((2, 2, 4, 4, S, 2), 50.0)
    k = np.asarray(KAPPAS)[:, None, None]
    eta = np.asarray(ETAS)[None, :, None]
    base = coef * k**power * (0.1 / eta) * np.exp(noise * rng.standard_normal((4, 4, S)))
    hs[0, mm.ALGOS.index(method), ..., 1] = base
    return hs


def test_kappa_slope_checks():
    assert _verdict("kappa-slope", _fake(hit=_hits(1.2, "ds-gda"))) == "pass"
    assert _verdict("kappa-slope", _fake(hit=_hits(2.3, "ds-gda"))) == "fail"
    assert _verdict("baseline-kappa-slope", _fake(hit=_hits(2.3, "d-sgda-gt"))) == "pass"
    assert _verdict("baseline-kappa-slope", _fake(hit=_hits(1.0, "d-sgda-gt"))) == "fail"


def test_kappa_slope_censoring():
    spec_short = mm.MinimaxSpec(agents=3, dim_x=2, dim_y=1, steps=100_000, record_every=100_000)
    # slope 1.2, but κ = 300 never reached (censored at T, above the centre of log κ):
    # the slope is a lower bound, which cannot confirm "≤ 1.7"
    hs = _hits(1.2, "ds-gda")
    hs[0, 0, 3, ..., 1] = np.nan
    r = _claim("kappa-slope").evaluate(_fake(hit=hs), spec_short)
    assert r.verdict == "inconclusive" and r.interval[1] == np.inf
    # a steep lower bound refutes it; and confirms the baseline's "≥ 1.7"
    hs = _hits(2.0, "ds-gda", coef=2.0)  # κ = 300 would take 1.8e5 > T = 1e5 steps
    hs[0, 0, 3, ..., 1] = np.nan
    hs[0, 1] = hs[0, 0]
    assert _claim("kappa-slope").evaluate(_fake(hit=hs), spec_short).verdict == "fail"
    assert _claim("baseline-kappa-slope").evaluate(_fake(hit=hs), spec_short).verdict == "pass"
    # censoring at small κ: the direction of the bias is unknown, no interval
    hs = _hits(1.2, "ds-gda")
    hs[0, 0, 0, ..., 1] = np.nan
    assert _claim("kappa-slope").evaluate(_fake(hit=hs), spec_short).verdict == "inconclusive"


def test_consensus_check():
    assert _verdict("consensus-lyapunov", _fake(ratio=1.0)) == "pass"
    assert _verdict("consensus-lyapunov", _fake(ratio=1.3)) == "fail"
    no_noise = _fake().isel(setting=[0])
    assert _verdict("consensus-lyapunov", no_noise) == "not-applicable"


@pytest.mark.slow
def test_smoke(tmp_path):
    exp = get_experiment("decentralized-minimax")
    run = exp.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    assert by["baseline-is-r0"].verdict == "pass"
    assert by["consensus-lyapunov"].verdict == "pass"
    ds = run.results
    assert set(ds["kappa"].values) == set(KAPPAS) and list(ds["algo"].values) == list(mm.ALGOS)
    assert ds.sizes["seed"] == 8


def _by_graph(power, seed=0):
    rng = np.random.default_rng(seed)
    graphs = ["ring", "torus", "erdos_renyi"]
    spec = mm.MinimaxSpec(agents=16)
    gaps = np.array(dm._gaps(xr.Dataset(coords={"graph": graphs}), spec))
    shape = (2, 2, 3, 1, 1, S)
    cons = np.ones(shape) * (gaps[None, None, :, None, None, None] ** power)
    cons = cons * np.exp(0.05 * rng.standard_normal(shape))
    dims = ("setting", "algo", "graph", "kappa", "eta", "seed")
    ds = xr.Dataset(
        {"consensus_avg": (dims, cons)},
        coords={
            "algo": list(mm.ALGOS),
            "graph": graphs,
            "kappa": [10.0],
            "eta": [0.05],
            "sigma": ("setting", [0.0, 0.1]),
        },
    )
    return ds, spec


def test_consensus_gap_slope_check():
    c = _claim("consensus-gap-slope")
    ds, spec = _by_graph(-2.2)
    assert c.evaluate(ds, spec).verdict == "pass"
    ds, spec = _by_graph(-0.3)
    assert c.evaluate(ds, spec).verdict == "fail"
    assert c.evaluate(_fake(), SPEC).verdict == "not-applicable"  # one graph (smoke)
