"""program-bottleneck-tsp: every claim's check on made-up pass/fail data; the smoke preset (slow)."""

import matplotlib
import numpy as np
import pytest
import xarray as xr

from jaxtheory.registry import get_experiment

matplotlib.use("Agg")

EXP = get_experiment("program-bottleneck-tsp")
CLAIMS = {c.name: c for c in EXP.claims}
PROGRAMS = ["nearest", "near_start", "sweep", "farthest", "insertion", "regret2", "boost1", "boost2"]


class _Spec:
    boost_rounds = 2
    prune_keep = 3
    n_stages = 4


def fake(
    seeds=8,
    n=400,
    gain=0.2,
    gap=0.01,
    mi_strength=1.0,
    kl_drops=(0.05, 0.05),
    pruned_loss=0.02,
    err=0.0,
):
    """A made-up result set: agreement ~0.6 for the best bank program (nearest, picked on training)."""
    rng = np.random.default_rng(0)
    s, k = seeds, len(PROGRAMS)
    base_agree = np.clip(0.6 + 0.05 * rng.standard_normal((s, n)), 0, 1)
    agree_prog = np.repeat(base_agree[..., None], k, -1) - np.linspace(0, 0.4, k)
    train_prog = np.tile(np.linspace(0.6, 0.2, k), (s, 1))
    agree_base = base_agree + gain + 0.02 * rng.standard_normal((s, n))
    agree_final = agree_base + 0.01
    full_gain = agree_final - base_agree
    agree_pruned = agree_final - pruned_loss * full_gain
    len_t = 4.0 + 0.1 * rng.standard_normal((s, n))
    len_b = len_t * (1 + gap + 0.01 * rng.standard_normal((s, n)))
    kl0 = 0.7 + 0.05 * rng.standard_normal((s, n))
    kl = np.stack([kl0, kl0 - kl_drops[0], kl0 - kl_drops[0] - kl_drops[1]], -1)
    kl = kl + 0.001 * rng.standard_normal((s, 1, 3))
    # stage counts: program = stage (deterministic) mixed with uniform noise
    counts = np.zeros((s, n, 4, k), int)
    for st in range(4):
        det = int(round(18 * mi_strength))
        counts[:, :, st, st] += det // 4
        counts[:, :, st, :6] += (18 - det) // 24
        counts[:, :, st, 0] += 1
    dims = ("seed", "instance")
    return xr.Dataset(
        {
            "agree_program": (dims + ("program",), agree_prog),
            "agree_train_program": (("seed", "program"), train_prog),
            "agree_base": (dims, agree_base),
            "agree_final": (dims, agree_final),
            "agree_pruned": (dims, agree_pruned),
            "len_teacher": (dims, len_t),
            "len_base": (dims, len_b),
            "len_final": (dims, len_b),
            "kl_boost": (dims + ("round",), kl),
            "stage_counts": (dims + ("stage", "program"), counts),
            "identity_prob_err": ("seed", np.full(s, err)),
            "identity_len_err": ("seed", np.zeros(s)),
        },
        coords={"seed": np.arange(s), "instance": np.arange(n), "program": PROGRAMS, "round": np.arange(3)},
    )


def verdict(name, ds):
    return CLAIMS[name].evaluate(ds, _Spec()).verdict


def test_identity_claim():
    assert verdict("one-hot-router-is-the-program", fake()) == "pass"
    assert verdict("one-hot-router-is-the-program", fake(err=1e-8)) == "fail"


def test_top1_claim():
    assert verdict("top1-beats-best-program", fake(gain=0.2)) == "pass"
    assert verdict("top1-beats-best-program", fake(gain=0.02)) == "fail"
    # the best program is chosen on training agreement: with training ranks reversed the
    # reference is the worst held-out program, and a small gain passes
    ds = fake(gain=0.0)
    ds["agree_train_program"] = ds["agree_train_program"][:, ::-1].assign_coords(program=PROGRAMS)
    assert verdict("top1-beats-best-program", ds) == "pass"


def test_gap_claim():
    assert verdict("gap-near-teacher", fake(gap=0.005)) == "pass"
    assert verdict("gap-near-teacher", fake(gap=0.08)) == "fail"


def test_stage_claim():
    assert verdict("stage-dependence", fake(mi_strength=1.0)) == "pass"  # 2 bits
    assert verdict("stage-dependence", fake(mi_strength=0.0)) == "fail"  # stage-independent
    assert verdict("stage-dependence", fake(seeds=2)) == "inconclusive"  # < 8 seeds: no interval
    # the weak reading: any dependence well above the plug-in bias
    assert verdict("stage-shift", fake(mi_strength=1.0)) == "pass"
    assert verdict("stage-shift", fake(mi_strength=0.0)) == "fail"
    assert verdict("stage-shift", fake(seeds=2)) == "inconclusive"


def test_boosting_claim():
    assert verdict("boosting-lowers-kl", fake(kl_drops=(0.05, 0.03))) == "pass"
    assert verdict("boosting-lowers-kl", fake(kl_drops=(0.05, -0.02))) == "fail"
    res = CLAIMS["boosting-lowers-kl"].evaluate(fake(), _Spec())
    assert set(res.cells) == {"rounds=0→1", "rounds=1→2"} and res.n == 8  # the sample is the seed


def test_pruning_claim():
    assert verdict("pruning-keeps-gain", fake(pruned_loss=0.0)) == "pass"
    assert verdict("pruning-keeps-gain", fake(pruned_loss=0.3)) == "fail"
    assert verdict("pruning-keeps-gain", fake(gain=-0.05)) == "not-applicable"


@pytest.mark.slow  # the whole smoke preset; CI's docs build runs it too
def test_smoke(tmp_path):
    from matplotlib.figure import Figure

    from jaxtheory import plots

    run = EXP.sweep("smoke", out=tmp_path, quiet=True)
    run.check()  # claims evaluated, valid verdicts and sources, figures drawn
    by = {c.name: c for c in run.claims}
    assert by["one-hot-router-is-the-program"].verdict == "pass"
    ds = run.results
    assert bool(ds["valid_tours"].all())
    assert float(ds["teacher_converged"].min()) > 0.99
    # the teacher's 2-opt tours beat every program's greedy tour on average
    assert float((ds["len_program"] - ds["len_teacher"]).mean("instance").min()) > 0
    for f in EXP.figures:
        fig = Figure()
        f.draw(ds, run.spec, fig)
        plots.check_drawn(fig, f.name)
