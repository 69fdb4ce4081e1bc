"""Sweep throughput on one accelerator, as a fraction of the device's peak.

Two sweeps through the engine (store included), timed warm (compiled program reused):

* the demonstration sweep (``noisy-quadratic`` run, dimension 16): lanes/s and
  lane-steps/s; it is bound by random-number generation, so it is reported as a rate;
* a linear-algebra-bound sweep: each lane iterates ``X <- (X @ W) / ||X @ W||`` on
  ``d × d`` float32 matrices for ``T`` steps (``2 d³ T`` FLOPs per lane); reported as
  achieved FLOP/s and as a fraction of the device's peak float32 rate (dense, without
  TF32 tensor cores unless ``--tf32``), where the peak is known.

Usage: ``python benchmarks/gpu_sweep.py [--tiny] [--lanes 10000 100000 ...] [--no-record]``.
``--tiny`` runs a few hundred lanes on whatever device there is (the tests run it so the
script cannot rot). On a CPU only correctness is meaningful.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp

from jaxtheory.sims import quadratic as quad
from jaxtheory.sweep import Space, log, sweep, values

RESULTS = Path(__file__).with_name("RESULTS.md")

# Peak dense float32 FLOP/s (no tensor cores) and TF32 tensor-core FLOP/s, by device kind.
PEAK_FP32 = {"NVIDIA H200": 67e12, "NVIDIA H100 80GB HBM3": 67e12, "NVIDIA A100-SXM4-80GB": 19.5e12}
PEAK_TF32 = {"NVIDIA H200": 495e12, "NVIDIA H100 80GB HBM3": 495e12, "NVIDIA A100-SXM4-80GB": 156e12}


@dataclasses.dataclass(frozen=True)
class MatSpec:
    d: int = 128
    steps: int = 50


def mat_run(spec, params, key):
    """Normalized power iteration on a random matrix: 2 d³ FLOPs a step."""
    w = jax.random.normal(key, (spec.d, spec.d)) * params["scale"] / jnp.sqrt(spec.d)

    def step(x, _):
        y = x @ w
        return y / jnp.linalg.norm(y), None

    x, _ = jax.lax.scan(step, jnp.eye(spec.d), None, length=spec.steps)
    return {"trace": jnp.trace(x)}


def timed(run, spec, space, params, run_dir: Path, **kw) -> float:
    """Seconds for a warm sweep: a first one compiles, the second (fresh directory) is timed."""
    sweep(run, spec, space, params, quiet=True, run_dir=run_dir / "cold", **kw)
    t0 = time.perf_counter()
    sweep(run, spec, space, params, quiet=True, run_dir=run_dir / "warm", **kw)
    return time.perf_counter() - t0


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="a few hundred lanes: a smoke test")
    ap.add_argument("--lanes", type=int, nargs="*", default=None, help="lane counts to time")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 tensor cores for matmuls")
    ap.add_argument("--no-record", action="store_true")
    args = ap.parse_args(argv)
    dev = jax.devices()[0]
    kind = getattr(dev, "device_kind", dev.platform)
    lanes_list = args.lanes or ([256] if args.tiny else [10_000, 100_000, 1_000_000])
    qspec = quad.QuadraticSpec(dim=16, steps=50 if args.tiny else 1000)
    mspec = MatSpec(d=16, steps=5) if args.tiny else MatSpec()
    precision = "tensorfloat32" if args.tf32 else "highest"
    rows = []
    with tempfile.TemporaryDirectory() as tmp, jax.default_matmul_precision(precision):
        for n in lanes_list:
            seeds = max(1, n // 64)
            qspace = Space(lr=log(0.01, 1.0, num=64), momentum=values(0.9), seeds=seeds)
            t = timed(quad.run, qspec, qspace, quad.DEFAULT_PARAMS, Path(tmp) / f"q{n}",
                      metric_dims={"risk": ("step",)})
            lanes = 64 * seeds
            rows.append(("noisy-quadratic", lanes, t, lanes / t, lanes * qspec.steps / t, None, None))
            mspace = Space(scale=log(0.5, 2.0, num=64), seeds=seeds)
            t = timed(mat_run, mspec, mspace, {"scale": 1.0}, Path(tmp) / f"m{n}")
            flops = lanes * 2 * mspec.d**3 * mspec.steps / t
            peak = (PEAK_TF32 if args.tf32 else PEAK_FP32).get(kind)
            rows.append(("matrix power iteration", lanes, t, lanes / t, lanes * mspec.steps / t,
                         flops, flops / peak if peak else None))
    lines = [f"{kind} ({dev.platform}), {jax.device_count()} device(s); jax {jax.__version__}; "
             f"host {platform.machine()} {os.cpu_count()} cores; matmul precision {precision}"]
    for name, lanes, t, lps, sps, flops, frac in rows:
        extra = f", {flops / 1e12:.2f} TFLOP/s" if flops else ""
        extra += f" = {frac:.1%} of peak" if frac else ""
        lines.append(f"  {name:<24} {lanes:>9} lanes  {t:8.3f} s  {lps:12,.0f} lanes/s  "
                     f"{sps:14,.0f} lane-steps/s{extra}")
    print("\n".join(lines))
    if not args.no_record and not args.tiny:
        with RESULTS.open("a") as f:
            f.write(f"\n## gpu_sweep ({time.strftime('%Y-%m-%d')})\n\n```text\n" + "\n".join(lines) + "\n```\n")
    return {"rows": rows}


if __name__ == "__main__":
    main()
