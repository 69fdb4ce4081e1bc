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
script cannot rot). On a CPU only correctness is meaningful. A full run records the
section ``gpu_sweep (<device>)`` of ``benchmarks/RESULTS.md`` (replacing an earlier one).
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp

from jaxtheory.sims import quadratic as quad
from jaxtheory.sweep import Space, log, sweep, values

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

# Peak dense float32 FLOP/s (no tensor cores) and TF32 tensor-core FLOP/s, by device kind.
PEAK_FP32 = {"NVIDIA H200": 67e12, "NVIDIA H100 80GB HBM3": 67e12, "NVIDIA A100-SXM4-80GB": 19.5e12}
PEAK_TF32 = {"NVIDIA H200": 495e12, "NVIDIA H100 80GB HBM3": 495e12, "NVIDIA A100-SXM4-80GB": 156e12}
INTRO = (
    "Sweeps through the engine (store included), warm = a second sweep of the compiled "
    "program into a fresh directory, cold = the first. Noisy-quadratic (dimension 16) is "
    "bound by random-number generation (a rate); the matrix power iteration (d x d float32, "
    "2 d^3 FLOPs a step) is reported as FLOP/s and as a fraction of the device's dense "
    "float32 peak where known. No peer: throughput only."
)


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


def timed_sweep(run, spec, space, params, run_dir: Path, **kw) -> C.Timing:
    """Cold (first sweep, compiles) and warm (a second one into a fresh directory) seconds."""
    n = itertools.count()
    return C.timed(
        lambda: sweep(run, spec, space, params, quiet=True, run_dir=run_dir / f"r{next(n)}", **kw), reps=1
    )


def bench_quadratic(lanes: int, steps: int, tmp: Path) -> tuple:
    """One noisy-quadratic sweep of about ``lanes`` lanes: a row (see :func:`format_rows`)."""
    seeds = max(1, lanes // 64)
    qspec = quad.QuadraticSpec(dim=16, steps=steps)
    qspace = Space(lr=log(0.01, 1.0, num=64), momentum=values(0.9), seeds=seeds)
    t = timed_sweep(
        quad.run, qspec, qspace, quad.DEFAULT_PARAMS, tmp / f"q{lanes}", metric_dims={"risk": ("step",)}
    )
    n = 64 * seeds
    return ("noisy-quadratic", n, t.warm, n / t.warm, n * steps / t.warm, None, None, t.cold)


def bench_matrix(lanes: int, mspec: MatSpec, tmp: Path, tf32: bool = False) -> tuple:
    """One matrix-power-iteration sweep of about ``lanes`` lanes: a row."""
    seeds = max(1, lanes // 64)
    mspace = Space(scale=log(0.5, 2.0, num=64), seeds=seeds)
    with jax.default_matmul_precision("tensorfloat32" if tf32 else "highest"):
        t = timed_sweep(mat_run, mspec, mspace, {"scale": 1.0}, tmp / f"m{lanes}")
    n = 64 * seeds
    flops = n * 2 * mspec.d**3 * mspec.steps / t.warm
    peak = (PEAK_TF32 if tf32 else PEAK_FP32).get(C.device_kind())
    return (
        "matrix power iteration",
        n,
        t.warm,
        n / t.warm,
        n * mspec.steps / t.warm,
        flops,
        flops / peak if peak else None,
        t.cold,
    )


def format_rows(rows, tf32: bool = False) -> list[str]:
    """Lines for rows ``(name, lanes, warm s, lanes/s, lane-steps/s, FLOP/s, of peak, cold s)``."""
    lines = [f"{jax.device_count()} device(s); matmul precision {'tensorfloat32' if tf32 else 'highest'}"]
    for name, lanes, t, lps, sps, flops, frac, cold in rows:
        extra = f", {flops / 1e12:.2f} TFLOP/s" if flops else ""
        extra += f" = {frac:.1%} of peak" if frac else ""
        lines.append(
            f"  {name:<24} {lanes:>9} lanes  warm {t:8.3f} s (cold {cold:7.2f} s)  "
            f"{lps:12,.0f} lanes/s  {sps:14,.0f} lane-steps/s{extra}"
        )
    return lines


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="a few hundred lanes: a smoke test (never records)")
    ap.add_argument("--lanes", type=int, nargs="*", default=None, help="lane counts to time")
    ap.add_argument("--tf32", action="store_true", help="allow TF32 tensor cores for matmuls")
    args = ap.parse_args(argv)
    lanes_list = args.lanes or ([256] if args.tiny else [10_000, 100_000, 1_000_000])
    steps = 50 if args.tiny else 1000
    mspec = MatSpec(d=16, steps=5) if args.tiny else MatSpec()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in lanes_list:
            rows.append(bench_quadratic(n, steps, Path(tmp)))
            rows.append(bench_matrix(n, mspec, Path(tmp), args.tf32))
    lines = format_rows(rows, args.tf32)
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record(f"gpu_sweep ({C.device_kind()})", lines, intro=INTRO, script="gpu_sweep.py")
    return {"rows": rows}


if __name__ == "__main__":
    main()
