"""The benchmark scripts run in a tiny configuration, so they cannot rot; the shared
harness (``benchmarks/_common.py``) records sections without duplicating them."""

import importlib.util
import math
import sys
import time
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses in the script look their module up
    spec.loader.exec_module(mod)
    return mod


C = _load("_common")


# -- the harness -------------------------------------------------------------------------


def _headings(text):
    return [line for line in text.splitlines() if line.startswith("## ")]


def test_record_replaces_its_own_section_and_drops_duplicates(tmp_path):
    res = tmp_path / "RESULTS.md"
    C.record("alpha", ["a = 1"], results=res, intro="First.", date="2026-01-01")
    C.record("beta (cpu)", ["b = 1"], results=res, date="2026-01-01")
    assert _headings(res.read_text()) == ["## alpha (2026-01-01)", "## beta (cpu) (2026-01-01)"]
    assert res.read_text().startswith("# Benchmark results\n")
    # a hand-made duplicate of alpha after beta, with a heading-like line inside a fence
    res.write_text(res.read_text() + "\n## alpha (2025-12-31)\n\n```text\n## not a heading\n```\n")
    C.record("alpha", ["a = 2"], results=res, date="2026-01-02")
    text = res.read_text()
    assert _headings(text) == ["## alpha (2026-01-02)", "## beta (cpu) (2026-01-01)"]
    assert "a = 2" in text and "a = 1" not in text and "not a heading" not in text
    assert "b = 1" in text and text.count(C.RATIO_CONVENTION) >= 2  # header + each section
    # the same title again changes nothing but the section: no growth
    before = len(text)
    C.record("alpha", ["a = 2"], results=res, date="2026-01-02")
    assert len(res.read_text()) == before
    with pytest.raises(ValueError, match="one non-empty line"):
        C.record("two\nlines", [], results=res)


def test_record_keeps_other_sections_byte_for_byte(tmp_path):
    res = tmp_path / "RESULTS.md"
    other = "## other (2026-01-01)\n\nHand notes.\n\n```text\nx\n```\n\nMore notes.\n"
    res.write_text("# Benchmark results\n\nPreamble.\n\n" + other)
    C.record("new", ["n"], results=res)
    text = res.read_text()
    assert text.startswith("# Benchmark results\n\nPreamble.\n\n" + other)
    assert _headings(text)[-1].startswith("## new (")


def test_timed_cold_is_the_first_call_and_warm_the_best_of_the_rest(monkeypatch):
    durations = iter([5.0, 2.0, 1.0, 3.0])  # seconds each call takes on a fake clock
    clock = [0.0]
    calls = []

    def perf_counter():
        return clock[0]

    def fn(x):
        calls.append(x)
        clock[0] += next(durations)
        return x + 1

    monkeypatch.setattr(C.time, "perf_counter", perf_counter)
    t = C.timed(fn, 1, reps=3)
    assert calls == [1, 1, 1, 1] and t.result == 2 and t.reps == 3
    assert (t.cold, t.warm) == (5.0, 1.0)
    durations = iter([4.0, 2.0])
    assert C.best_of(fn, 2, 1) == 2.0
    durations = iter([4.0])
    assert math.isnan(C.timed(fn, 1, reps=0).warm)
    with pytest.raises(ValueError):
        C.timed(fn, 1, reps=-1)


def test_ratio_is_peer_over_ours():
    import numpy as np

    assert C.ratio(3.0, 1.5) == 2.0 and C.ratio(1.0, 0.0) == float("inf")
    np.testing.assert_array_equal(C.ratio(np.array([2.0, 1.0]), np.array([1.0, 2.0])), [2.0, 0.5])


def test_budget_and_sizes_within_stop_by_projection():
    acc = _load("accelerator")
    assert C.Budget(None).left() == float("inf")
    ran, recorded = [], []

    def one(size):
        ran.append(size)
        time.sleep(0.02)
        return [f"size {size}"]

    # guesses 1 s and 1000 s; the first took >= 0.02 s, so the second is projected at
    # >= 20 s: more than the 5 s left
    lines, n = acc.sizes_within(
        C.Budget(5.0), [(1, 1.0), (1000, 1000.0)], one, progress=lambda ls: recorded.append(list(ls))
    )
    assert (ran, n) == ([1], 1) and "stopped before 1000" in lines[-1]
    assert recorded == [["size 1"], lines]  # after the size, then with the reason
    lines, n = acc.sizes_within(C.Budget(0.5), [(2, 10.0)], one)  # the first guess is too big
    assert (ran, n) == ([1], 0) and "stopped before 2" in lines[0]
    lines, n = acc.sizes_within(C.Budget(None), [(1, 1.0), (2, 2.0)], one)
    assert n == 2 and lines == ["size 1", "size 2"]


# -- the scripts -------------------------------------------------------------------------


def test_sweep_overhead_tiny():
    mod = _load("sweep_overhead")
    out = mod.main(["--tiny", "--no-record", "--profile"])
    assert set(out["times"]) == {f"{w}_{k}" for w in "abcd" for k in ("cold", "warm")}
    assert all(t > 0 for t in out["times"].values())
    # the profile splits a warm sweep into its stages; the ones every sweep has are seen
    prof = out["profile"]
    assert list(prof)[: len(mod.STAGES)] == [name for name, _ in mod.STAGES]
    for stage in (
        "device compute (waiting on results)",
        "results.nc write",
        "chunk files",
        "lane keys",
        "manifest.json",
        "assemble",
    ):
        assert 0 < prof[stage] < prof["total"], stage
    assert out["engine_timings"]["total_s"] > 0


def test_gpu_sweep_tiny():
    out = _load("gpu_sweep").main(["--tiny", "--no-record"])
    names = [r[0] for r in out["rows"]]
    assert names == ["noisy-quadratic", "matrix power iteration"]
    assert all(r[3] > 0 for r in out["rows"])


@pytest.mark.slow  # ~20 s of compiles: every accelerator part at its tiny size; run with -m slow
def test_accelerator_tiny_records_every_part_with_the_device(tmp_path):
    acc = _load("accelerator")
    res = tmp_path / "RESULTS.md"
    out = acc.run(tiny=True, budget_s=None, results=res)
    assert list(out["status"]) == list(acc.PARTS)
    assert all(s.startswith("done in") for s in out["status"].values()), out["status"]
    kind = C.device_kind()
    heads = [h.split(" (20")[0] for h in _headings(res.read_text())]  # less the date
    assert heads == [f"## accelerator: {p} ({kind})" for p in acc.PARTS] + [f"## accelerator ({kind})"]
    assert "noisy-quadratic" in out["lines"]["gpu_sweep"][1]
    assert any("jit(vmap(run))" in line for line in out["lines"]["moe_sweep"])
    assert any("exact LA recursion" in line for line in out["lines"]["linreg"])
    assert any("BTS Q= 2" in line for line in out["lines"]["gp_bts"])
    # beside every measured program, the projection it started from, and a calibration per part
    for part in acc.PARTS:
        assert any("measured/projected" in line for line in out["lines"][part]), part
        assert any("calibration on cpu" in line for line in out["lines"][part]), part


def test_accelerator_projects_every_part_with_plan():
    """Each size's cost is its fixed guess plus plan's projected runs; the device maps to plan's table."""
    acc = _load("accelerator")
    assert [
        acc.plan_device(k) for k in ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB")
    ] == [
        "h200",
        "h100",
        "a100",
    ]
    assert acc.plan_device("TPU v6 lite") == "v6e" and acc.plan_device("NVIDIA L4") is None
    for part in acc.PARTS:
        sizes = acc.TINY_SIZES[part]
        costed, proj = acc.with_projections(part, sizes, "h200", tiny=True)
        for (size, fixed), (size2, cost) in zip(sizes, costed, strict=True):
            ps = proj[size]
            assert size2 == size and isinstance(ps, list) and ps, (part, ps)
            assert all(q["seconds"] > 0 and q["flops"] > 0 and q["device"] == "h200" for q in ps)
            assert cost == pytest.approx(fixed + sum(q["seconds"] * q["runs"] for q in ps))
    # more lanes, more projected time: the quadratic sweep at 10^6 lanes against 10^4
    big = acc.with_projections("gpu_sweep", acc.SIZES["gpu_sweep"][::4], "h200", tiny=False)[1]
    (small_q,), (large_q,) = (big[s] for s, _ in acc.SIZES["gpu_sweep"][::4])
    assert large_q["chunks"] == 16 and large_q["seconds"] > 50 * small_q["seconds"]
    # an unknown accelerator: the fixed guesses, and a line saying why
    costed, proj = acc.with_projections("linreg", acc.TINY_SIZES["linreg"], None, tiny=True)
    assert costed == acc.TINY_SIZES["linreg"] and proj["tiny"].startswith("no projection")


def test_accelerator_stops_cleanly_when_the_budget_is_spent(tmp_path, monkeypatch):
    acc = _load("accelerator")
    res = tmp_path / "RESULTS.md"

    def slow_part(sizes, budget, progress=None, tiny=False, **kw):
        time.sleep(0.3)
        return ["slow line"], "done"

    monkeypatch.setitem(acc.RUNNERS, "gpu_sweep", slow_part)
    out = acc.run(tiny=True, budget_s=0.2, results=res)  # spent by the first part
    assert out["status"]["gpu_sweep"].startswith("done")
    assert all(out["status"][p].startswith("skipped") for p in acc.PARTS[1:])
    text = res.read_text()
    assert "slow line" in text and "accelerator: moe_sweep" not in text
    assert text.count("skipped") == len(acc.PARTS) - 1  # in the summary section
    with pytest.raises(ValueError, match="unknown part"):
        acc.run(tiny=True, budget_s=None, parts=["nope"])


SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py") if not p.stem.startswith("_"))
COVERED = {"sweep_overhead", "gpu_sweep", "accelerator"}  # run above, with checks of their output


#: Benchmarks whose tiny run still compiles for 10 s or more: their checks of the source run
#: in the default tests, their tiny run with -m slow.
HEAVY_TINY = {"compile_cache", "moe_step"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY_TINY else n for n in SCRIPTS]
)
def test_every_benchmark_runs_tiny_without_touching_results(name):
    source = (BENCH / f"{name}.py").read_text()
    assert "--tiny" in source, f"benchmarks/{name}.py has no --tiny mode"
    assert "import _common as C" in source, f"benchmarks/{name}.py does not use the harness"
    assert 'RESULTS.md").open' not in source and 'open("a")' not in source  # no appending
    if name in COVERED:
        return
    results = BENCH / "RESULTS.md"
    before = results.read_text() if results.exists() else None
    _load(name).main(["--tiny"])  # tiny never records
    after = results.read_text() if results.exists() else None
    assert after == before, f"benchmarks/{name}.py --tiny changed RESULTS.md"


def test_results_has_one_section_per_title():
    keys = [C._key(h) for h in _headings((BENCH / "RESULTS.md").read_text())]
    assert len(keys) == len(set(keys)), f"duplicate sections in RESULTS.md: {keys}"
