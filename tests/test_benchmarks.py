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


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCH.glob("*.py")))
def test_every_benchmark_has_a_tiny_mode(name):
    assert "--tiny" in (BENCH / f"{name}.py").read_text(), f"benchmarks/{name}.py has no --tiny mode"
