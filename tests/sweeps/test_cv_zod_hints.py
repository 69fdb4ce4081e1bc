"""The cv-zod-hints experiment: each claim's check on made-up pass/fail data; the smoke run (slow)."""

import math

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory import plots
from jaxtheory.claims import SOURCES, VERDICTS
from jaxtheory.registry import experiments
from jaxtheory.sims.zeroth_order import hints as zh
from sweeps import cv_zod_hints as m
from sweeps.cv_zod_hints import EXPERIMENT

matplotlib.use("Agg")

SPEC = zh.HintSpec()
SEEDS = 16
RNG = np.random.default_rng(0)


def _claim(name):
    return next(c for c in EXPERIMENT.claims if c.name == name)


def _ds(iters=None, evals=None, final=None):
    """A made-up results dataset with the dims of the real one (hint, seed, algo)."""
    shape = (len(zh.HINTS), SEEDS, len(zh.ALGORITHMS))
    coords = {"hint": list(zh.HINTS), "seed": np.arange(SEEDS), "algo": list(zh.ALGORITHMS)}
    dims = ("hint", "seed", "algo")
    data = {}
    for name, v in (("iters_to_tol", iters), ("evals_to_zo_final", evals), ("final_loss", final)):
        data[name] = (dims, np.ones(shape) if v is None else v)
    return xr.Dataset(data, coords=coords)


def _fill(per_hint_algo):
    """(hint, seed, algo) array from {(hint, algo): per-seed values}."""
    arr = np.ones((len(zh.HINTS), SEEDS, len(zh.ALGORITHMS)))
    for (h, a), v in per_hint_algo.items():
        arr[zh.HINTS.index(h), :, zh.ALGORITHMS.index(a)] = v
    return arr


def test_registered_as_a_reconstruction():
    exp = experiments()["cv-zod-hints"]
    assert exp is EXPERIMENT or exp.name == EXPERIMENT.name
    assert EXPERIMENT.paper.found is False and EXPERIMENT.paper.unverified
    assert {c.source for c in EXPERIMENT.claims} <= set(SOURCES)


def test_rate_claim_pass_and_fail():
    claim = _claim("rate-interpolates")
    F = m._rate_x(None, SPEC)
    noise = np.exp(0.03 * RNG.standard_normal((SEEDS, F.size)))
    # an O(F/T) rate is an upper bound: a sublinear growth passes too
    for power, want in ((1.0, "pass"), (0.8, "pass"), (1.3, "fail")):
        it = {(h, "cv_zod"): 20 * F[i] ** power * noise[:, i] for i, h in enumerate(m.RATE_HINTS)}
        assert claim.evaluate(_ds(iters=_fill(it)), SPEC).verdict == want, power
    # one censored seed at α = 0 makes that point's mean infinite: no passing slope
    it = {(h, "cv_zod"): 20 * F[i] * noise[:, i] for i, h in enumerate(m.RATE_HINTS)}
    it[("a0", "cv_zod")] = np.where(np.arange(SEEDS) == 0, zh.NOT_REACHED, it[("a0", "cv_zod")])
    assert claim.evaluate(_ds(iters=_fill(it)), SPEC).verdict != "pass"
    # a preset without the α grid: not applicable
    small = _ds().sel(hint=["drift"])
    assert claim.evaluate(small, SPEC).verdict == "not-applicable"


def test_drift_claim_pass_and_fail():
    claim = _claim("robust-to-drifting-hints")
    zo = zh.EVALS_PER_ITER["zo_gd"] * SPEC.steps
    for ratio, want in ((0.5, "pass"), (2.0, "fail")):
        v = ratio * zo * np.exp(0.05 * RNG.standard_normal(SEEDS))
        ev = _fill({("drift", "cv_zod"): v, ("drift", "cv_zod_adaptive"): v})
        assert claim.evaluate(_ds(evals=ev), SPEC).verdict == want, ratio
    # a run that never reaches ZO-GD's final loss (the simulator's sentinel, read as ∞) is
    # censored at its evaluations over the horizon, 1.5× ZO-GD's: the lower bound fails
    ev = _fill({("drift", "cv_zod"): np.full(SEEDS, zh.NOT_REACHED), ("drift", "cv_zod_adaptive"): 100.0})
    assert claim.evaluate(_ds(evals=ev), SPEC).verdict == "fail"


def test_stall_claim_pass_and_fail():
    claim = _claim("hint-methods-stall")
    for gap, want in ((1.0, "pass"), (-1.0, "fail")):
        base = -12.0 + 0.1 * RNG.standard_normal(SEEDS)
        h = m.STALL_HINT
        fl = _fill({(h, "cv_zod"): base, (h, "hint_gd"): base + gap, (h, "prgf"): base + gap})
        assert claim.evaluate(_ds(final=fl), SPEC).verdict == want, gap


def test_adaptive_claim_pass_and_fail():
    claim = _claim("adaptive-matches-oracle")
    bound = m.ADAPTIVE_LOG_FACTOR * math.log(SPEC.steps)
    for factor, want in ((0.5 * bound, "pass"), (2.0 * bound, "fail")):
        vals = {}
        for h in m.ADAPTIVE_HINTS:
            vals[(h, "cv_zod")] = np.full(SEEDS, 100.0)
            vals[(h, "cv_zod_adaptive")] = 100.0 * factor * np.exp(0.05 * RNG.standard_normal(SEEDS))
        assert claim.evaluate(_ds(evals=_fill(vals)), SPEC).verdict == want, factor


def test_adaptive_claim_censored_times_give_a_one_sided_interval():
    """Where the adaptive run never gets there, the ratio is bounded from below only:
    inconclusive when the bound is under the factor, fail when it is over, never pass."""
    claim = _claim("adaptive-matches-oracle")
    horizon = zh.EVALS_PER_ITER["cv_zod_adaptive"] * SPEC.steps
    for oracle, want in (
        (0.5 * horizon, "inconclusive"),
        (horizon / (4 * m.ADAPTIVE_LOG_FACTOR * 8), "fail"),
    ):
        vals = {}
        for h in m.ADAPTIVE_HINTS:
            vals[(h, "cv_zod")] = np.full(SEEDS, 100.0)
            vals[(h, "cv_zod_adaptive")] = np.full(SEEDS, 150.0)
        vals[("a0.5", "cv_zod")] = oracle * np.exp(0.05 * RNG.standard_normal(SEEDS))
        vals[("a0.5", "cv_zod_adaptive")] = np.where(np.arange(SEEDS) < 4, zh.NOT_REACHED, 0.9 * horizon)
        res = claim.evaluate(_ds(evals=_fill(vals)), SPEC)
        assert res.verdict == want, oracle
        assert res.cells["hint=a0.5"] == want and res.cells["hint=a1"] == "pass"
        assert math.isinf(res.interval["hint=a0.5"][1])


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        ("estimator-unbiased", 1.0, 3.5),
        ("second-moment", 1.0, 1.1),
    ],
)
def test_estimator_claims_pass_and_fail(name, good, bad):
    """The side-computation claims' rules on made-up per-batch samples (seed × alpha)."""
    claim = _claim(name)
    for centre, want in ((good, "pass"), (bad, "fail")):
        sample = xr.DataArray(
            centre * (1 + 0.01 * RNG.standard_normal((SEEDS, len(m.MOMENT_ALPHAS)))),
            dims=("seed", "alpha"),
            coords={"alpha": list(m.MOMENT_ALPHAS)},
        )
        fake = claim.with_measure(lambda ds, spec, s=sample: s)
        assert fake.evaluate(None, SPEC).verdict == want, centre


def test_identity_claims_pass_and_fail():
    gd = _claim("oracle-alpha1-is-gd")
    for r, want in ((3e-14, "pass"), (1e-9, "fail")):
        assert gd.with_measure(lambda ds, s, r=r: r).evaluate(None, SPEC).verdict == want
    zo = _claim("zero-reference-is-zo-gd")
    for r, want in ((0.0, "pass"), (1.2e-7, "fail")):
        assert zo.with_measure(lambda ds, s, r=r: r).evaluate(None, SPEC).verdict == want


@pytest.mark.slow
def test_smoke_runs_claims_and_figures(tmp_path):
    from matplotlib.figure import Figure

    run = EXPERIMENT.sweep("smoke", out=tmp_path, quiet=True)
    assert [c.name for c in run.claims] == [c.name for c in EXPERIMENT.claims]
    for c in run.claims:
        assert c.error is None, (c.name, c.error)
        assert c.verdict in VERDICTS
    by = {c.name: c for c in run.claims}
    for name in ("oracle-alpha1-is-gd", "zero-reference-is-zo-gd", "estimator-unbiased", "second-moment"):
        assert by[name].verdict == "pass", name
    ds = run.results
    assert int((ds["status"] != 0).sum()) == 0
    # the cost metric is evaluations: per-iteration counts times the logged step
    per = np.asarray([zh.EVALS_PER_ITER[a] for a in zh.ALGORITHMS])
    np.testing.assert_array_equal(
        ds["cost"].isel(hint=0, seed=0).values, per[:, None] * ds["step"].values[None, :]
    )
    for fig_spec in EXPERIMENT.figures:
        fig = Figure(figsize=fig_spec.size)
        fig_spec.draw(ds, run.spec, fig)
        plots.check_drawn(fig, fig_spec.name)
