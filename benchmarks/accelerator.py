"""One command for an accelerator: four benchmarks at accelerator sizes within a time budget.

In one process, in this order (each reuses its script's functions):

1. ``gpu_sweep``: the engine's noisy-quadratic and matrix-power-iteration sweeps
   (lanes/s, FLOP/s and fraction of peak), 10⁴ … 10⁶ lanes;
2. ``moe_sweep``: the MoE LR × seed sweep, one ``jit(vmap(run))`` against a Python loop
   of the jitted single run (``moe_step.bench_sweep``);
3. ``linreg``: the exact LA recursion over an (η, α) grid against numpy, vmap against
   a loop, and the Monte Carlo rate (``linreg.bench``), up to the issue's D = 10⁵,
   10⁴ steps, 32 × 32 grid;
4. ``gp_bts``: GP-BTS at Q ∈ {1, 4, 16} against the numpy loop
   (``gp_bandits.bench_policy``; BoTorch is left out: its replicates take minutes each).

Each part runs a list of sizes from small to large. Before a size starts, its cost is
projected from the previous size's (scaled by the work) and the size is skipped when the
projection exceeds what is left of ``--budget-s``; a part is not started with less than
its minimum left. Every part that ran is recorded at once as its own ``RESULTS.md``
section titled ``accelerator: <part> (<device>)``, and a summary section
``accelerator (<device>)`` says what finished, what was cut short and what was skipped.
The budget is checked between sizes, not inside one, so a run can overshoot by at most
one size's misprojection.

Usage: ``python benchmarks/accelerator.py [--budget-s 480] [--parts ...] [--tiny]
[--no-record]``. ``--tiny`` runs every part at tiny sizes on any device (the tests run
it on CPU) and never records.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

#: The parts in the order they run.
PARTS = ("gpu_sweep", "moe_sweep", "linreg", "gp_bts")
#: Seconds a part needs left to start (at full sizes; tiny parts always start).
MIN_S = {"gpu_sweep": 30.0, "moe_sweep": 30.0, "linreg": 30.0, "gp_bts": 30.0}
INTRO = {
    "gpu_sweep": C.script("gpu_sweep").INTRO,
    "moe_sweep": ("Peer measured in the same run: the same runs one after another (a Python loop "
                  "of the jitted single run) against one `jit(vmap(run))` program "
                  "(`moe_step.bench_sweep`); warm = best of the repetitions."),
    "linreg": C.script("linreg").INTRO,
    "gp_bts": ("GP-BTS (`gp_bandits.bench_policy`, 2-D grid, SE l = 0.2, sigma^2 in {0, 0.1}): "
               "ours `jit(vmap(run))` float32 over all R replicates at once against the "
               "numpy/scipy loop timed on 3 replicates and scaled to R. BoTorch is not run "
               "here (`benchmarks/gp_bandits.py` runs it)."),
}


def sizes_within(budget: C.Budget, sizes: Sequence, work: Callable, run_one: Callable,
                 ) -> tuple[list[str], int]:
    """Run ``run_one(size)`` for each size while its projected cost fits the budget.

    The cost of a size is projected as the previous size's wall time times the ratio of
    their ``work``; the first size always runs.

    Returns:
        The lines of the sizes that ran (and one saying why the rest did not) and how
        many ran.
    """
    lines: list[str] = []
    last = None  # (work, seconds) of the previous size
    for i, size in enumerate(sizes):
        if last is not None:
            projected = last[1] * work(size) / last[0]
            if projected > budget.left():
                lines.append(f"  stopped before {size}: projected {projected:.0f} s > "
                             f"{budget.left():.0f} s left of the budget")
                return lines, i
        t0 = time.monotonic()
        lines += run_one(size)
        last = (work(size), time.monotonic() - t0)
    return lines, len(sizes)


def part_gpu_sweep(tiny: bool, budget: C.Budget) -> tuple[list[str], str]:
    """The engine's sweeps at 10⁴ … 10⁶ lanes (matrix: 10³, 10⁴ lanes of 128 × 128)."""
    gs = C.script("gpu_sweep")
    steps = 50 if tiny else 1000
    mspec = gs.MatSpec(d=16, steps=5) if tiny else gs.MatSpec()
    qsizes = [256] if tiny else [10_000, 100_000, 1_000_000]
    msizes = [256] if tiny else [1_000, 10_000]
    rows: list[tuple] = []

    def quadratic(n):
        rows.append(gs.bench_quadratic(n, steps, tmp))
        return []

    def matrix(n):
        rows.append(gs.bench_matrix(n, mspec, tmp))
        return []

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        stop_q, nq = sizes_within(budget, qsizes, lambda n: n, quadratic)
        stop_m, nm = sizes_within(budget, msizes, lambda n: n, matrix)
    lines = gs.format_rows(rows) + stop_q + stop_m
    done = nq == len(qsizes) and nm == len(msizes)
    return lines, "done" if done else (f"cut short: {nq}/{len(qsizes)} quadratic and "
                                        f"{nm}/{len(msizes)} matrix sizes")


def part_moe_sweep(tiny: bool, budget: C.Budget) -> tuple[list[str], str]:
    """The LR × seed sweep: the CPU benchmark's size, then a wider and longer one."""
    ms = C.script("moe_step")
    # (width, steps, learning rates, seeds, warm repetitions)
    sizes = [(16, 3, 2, 1, 1)] if tiny else [(64, 100, 8, 4, 2), (128, 200, 16, 8, 1)]

    def one(size):
        w, steps, n_lr, n_seed, reps = size
        return ms.sweep_lines(ms.bench_sweep(w, steps, n_lr, n_seed, reps), n_lr, n_seed, steps)

    lines, n = sizes_within(budget, sizes, lambda s: s[0] ** 2 * s[1] * s[2] * s[3] * (1 + s[4]), one)
    return lines, "done" if n == len(sizes) else f"cut short: {n}/{len(sizes)} sizes"


def part_linreg(tiny: bool, budget: C.Budget) -> tuple[list[str], str]:
    """The exact recursion, vmap vs loop and Monte Carlo: CPU sizes, then the issue's."""
    lr = C.script("linreg")
    sizes = ["tiny"] if tiny else ["cpu", "full"]

    def one(size):
        # at full size the numpy peer runs one sync period (4 steps): about 2 s a step on a CPU
        np_steps = lr.SIZES[size][1] if size == "tiny" else (20 if size == "cpu" else 4)
        return [f"[{size}]"] + lr.bench(*lr.SIZES[size], np_steps=np_steps)[1]

    def work(size):
        D, T, G, mcD, mcT, mcL = lr.SIZES[size]
        return G * G * D * T + mcL * mcD * mcT

    lines, n = sizes_within(budget, sizes, work, one)
    return lines, "done" if n == len(sizes) else f"cut short: {n}/{len(sizes)} sizes"


def part_gp_bts(tiny: bool, budget: C.Budget) -> tuple[list[str], str]:
    """GP-BTS at the CPU benchmark's size (225 candidates, R = 192), then 1024 and R = 1536."""
    gp = C.script("gp_bandits")
    cases = [("bts", 2)] if tiny else [("bts", 1), ("bts", 4), ("bts", 16)]
    # (candidates, evaluations N, objective draws per noise level: R = 6 x draws)
    sizes = [(16, 8, 2)] if tiny else [(225, 128, 32), (1024, 256, 256)]

    def one(size):
        n, budget_n, fns = size
        return gp.bench_policy(tiny, n=n, budget=budget_n, cases=cases, fns=fns, botorch=False)[0]

    lines, n = sizes_within(budget, sizes, lambda s: s[2] * s[1] * s[0] * (s[0] + s[1]), one)
    return lines, "done" if n == len(sizes) else f"cut short: {n}/{len(sizes)} sizes"


RUNNERS = {"gpu_sweep": part_gpu_sweep, "moe_sweep": part_moe_sweep, "linreg": part_linreg,
           "gp_bts": part_gp_bts}


def run(tiny: bool, budget_s: float | None, parts: Sequence[str] = PARTS,
        results: Path | str | None = None) -> dict:
    """Run ``parts`` in order within ``budget_s`` seconds; record into ``results`` if given.

    Args:
        tiny: Tiny sizes (a smoke test on any device).
        budget_s: Wall-clock budget in seconds (``None``: no limit).
        parts: Names from :data:`PARTS`.
        results: The ``RESULTS.md`` to record into, or ``None`` to record nothing.

    Returns:
        ``{"status": {part: status}, "lines": {part: lines}, "elapsed": seconds}``.
    """
    unknown = [p for p in parts if p not in RUNNERS]
    if unknown:
        raise ValueError(f"unknown part(s) {unknown}; the parts are {list(PARTS)}")
    budget = C.Budget(budget_s)
    kind = C.device_kind()
    status: dict[str, str] = {}
    out: dict[str, list[str]] = {}
    for name in parts:
        need = 0.0 if tiny else MIN_S[name]
        if budget.exhausted(need):
            status[name] = f"skipped: {max(budget.left(), 0):.0f} s left, the part needs {need:.0f} s to start"
            print(f"== {name}: {status[name]}", flush=True)
            continue
        print(f"== {name} ({budget.left():.0f} s left)", flush=True)
        t0 = time.monotonic()
        lines, state = RUNNERS[name](tiny, budget)
        status[name] = f"{state} in {time.monotonic() - t0:.1f} s"
        out[name] = lines
        print("\n".join(lines), flush=True)
        if results is not None:
            C.record(f"accelerator: {name} ({kind})", lines, intro=INTRO[name],
                     notes=f"Part of `benchmarks/accelerator.py`: {status[name]}.",
                     script="accelerator.py", results=results)
    summary = [f"budget {budget_s} s, elapsed {budget.elapsed():.1f} s"]
    summary += [f"  {name:<10} {status.get(name, 'not asked for')}" for name in PARTS]
    print("\n".join(summary), flush=True)
    if results is not None:
        C.record(f"accelerator ({kind})", summary, script="accelerator.py", results=results,
                 intro="What the one-command accelerator run finished, part by part (each part "
                       "that ran has its own `accelerator: <part>` section).")
    return {"status": status, "lines": out, "elapsed": budget.elapsed()}


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="every part at tiny sizes (the tests' CPU run; never records)")
    ap.add_argument("--budget-s", type=float, default=480.0,
                    help="wall-clock budget in seconds, checked between sizes (default 480)")
    ap.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS,
                    help="parts to run, in the fixed order")
    args = ap.parse_args(argv)
    if args.budget_s < 0:
        ap.error(f"--budget-s must be >= 0, got {args.budget_s}")
    print(C.machine(), flush=True)
    parts = [p for p in PARTS if p in args.parts]
    return run(args.tiny, args.budget_s, parts, C.RESULTS if C.should_record(args) else None)


if __name__ == "__main__":
    main()
