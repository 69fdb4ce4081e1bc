"""The benchmark scripts run in a tiny configuration, so they cannot rot."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses in the script look their module up
    spec.loader.exec_module(mod)
    return mod


def test_sweep_overhead_tiny():
    out = _load("sweep_overhead").main(["--tiny", "--no-record"])
    assert set(out["times"]) == {f"{w}_{k}" for w in "abcd" for k in ("cold", "warm")}
    assert all(t > 0 for t in out["times"].values())


def test_gpu_sweep_tiny():
    out = _load("gpu_sweep").main(["--tiny", "--no-record"])
    names = [r[0] for r in out["rows"]]
    assert names == ["noisy-quadratic", "matrix power iteration"]
    assert all(r[3] > 0 for r in out["rows"])


SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py"))
COVERED = {"sweep_overhead", "gpu_sweep"}  # run above, with checks of their output


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_benchmark_runs_tiny_without_touching_results(name):
    source = (BENCH / f"{name}.py").read_text()
    assert "--tiny" in source, f"benchmarks/{name}.py has no --tiny mode"
    if name in COVERED:
        return
    results = BENCH / "RESULTS.md"
    before = results.read_text() if results.exists() else None
    argv = ["--tiny"] + (["--no-record"] if "--no-record" in source else [])
    _load(name).main(argv)
    after = results.read_text() if results.exists() else None
    assert after == before, f"benchmarks/{name}.py --tiny changed RESULTS.md"
