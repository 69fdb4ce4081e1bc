"""benchmarks/linreg.py runs in its tiny configuration."""

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "linreg.py"


def test_linreg_benchmark_tiny():
    spec = importlib.util.spec_from_file_location("bench_linreg", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    out = mod.main(["--tiny", "--no-record"])
    assert out["exact_vs_numpy"] > 0 and out["vmap_vs_loop"] > 0 and out["mc_rate"] > 0
