"""One command for an accelerator: four benchmarks at accelerator sizes within a time budget.

In one process, in this order (each reuses its script's functions):

1. ``gpu_sweep``: the engine's noisy-quadratic and matrix-power-iteration (128 × 128,
   50 steps) sweeps at 10⁴, 10⁵, 10⁶ lanes: lanes/s, FLOP/s, fraction of peak;
2. ``moe_sweep``: the MoE LR × seed sweep, one ``jit(vmap(run))`` against a Python loop
   of the jitted single run (``moe_step.bench_sweep``);
3. ``linreg``: the exact LA recursion over an (η, α) grid against numpy, vmap against
   a loop, and the Monte Carlo rate (``linreg.bench``), at the CPU sizes and then the
   issue's D = 10⁵, 10⁴ steps, 32 × 32 grid;
4. ``gp_bts``: GP-BTS at Q ∈ {1, 4, 16} against the numpy loop
   (``gp_bandits.bench_policy``; BoTorch is left out: its replicates take minutes each).

Budget. Each part runs a list of sizes from small to large, within a share of what is
left of ``--budget-s`` (what is left divided by the parts still to run, so a part that
finishes early leaves more to the next). Every size carries a guessed cost on an H200
(compile included; :data:`SIZES`); the guesses are rescaled by how long the previous size
really took against its guess, and a size whose rescaled cost exceeds what is left of
the part's share is skipped, with a line saying so. The budget is checked between sizes,
not inside one, so a run can overshoot by one size's misestimate.

Recording. The section ``accelerator: <part> (<device>)`` of ``RESULTS.md`` is written
after every size (replaced in place, so a run killed part-way keeps what finished), and
a summary section ``accelerator (<device>)`` says what finished, what was cut short and
what was skipped.

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
#: Per part, ``(size, guessed seconds on an H200 with compile)`` from small to large, at
#: full and at tiny sizes. gpu_sweep sizes are ``(kind, lanes)``; moe_sweep ``(width,
#: steps, LRs, seeds, warm reps)``; linreg a key of ``linreg.SIZES``; gp_bts
#: ``(candidates, evaluations N, objective draws per noise level: R = 6 x draws)``.
SIZES = {
    "gpu_sweep": [
        (("quadratic", 10_000), 15.0),
        (("matrix", 10_000), 15.0),
        (("quadratic", 100_000), 20.0),
        (("matrix", 100_000), 20.0),
        (("quadratic", 1_000_000), 60.0),
        (("matrix", 1_000_000), 60.0),
    ],
    "moe_sweep": [((64, 100, 8, 4, 2), 45.0), ((128, 200, 16, 8, 1), 90.0)],
    "linreg": [("cpu", 30.0), ("full", 90.0)],
    "gp_bts": [((225, 128, 32), 45.0), ((1024, 256, 256), 90.0)],
}
TINY_SIZES = {
    "gpu_sweep": [(("quadratic", 256), 1.0), (("matrix", 256), 1.0)],
    "moe_sweep": [((16, 3, 2, 1, 1), 1.0)],
    "linreg": [("tiny", 1.0)],
    "gp_bts": [((16, 8, 2), 1.0)],
}
INTRO = {
    "gpu_sweep": C.script("gpu_sweep").INTRO,
    "moe_sweep": (
        "Peer measured in the same run: the same runs one after another (a Python loop "
        "of the jitted single run) against one `jit(vmap(run))` program "
        "(`moe_step.bench_sweep`); warm = best of the repetitions."
    ),
    "linreg": C.script("linreg").INTRO,
    "gp_bts": (
        "GP-BTS (`gp_bandits.bench_policy`, 2-D grid, SE l = 0.2, sigma^2 in {0, 0.1}): "
        "ours `jit(vmap(run))` float32 over all R replicates at once against the "
        "numpy/scipy loop timed on 3 replicates and scaled to R. BoTorch is not run "
        "here (`benchmarks/gp_bandits.py` runs it)."
    ),
}


def sizes_within(
    budget: C.Budget, sizes: Sequence[tuple], run_one: Callable, progress: Callable | None = None
) -> tuple[list[str], int]:
    """Run ``run_one(size)`` for each ``(size, guess_s)`` whose rescaled guess fits the budget.

    A size's guess is multiplied by (seconds the previous size took) / (its guess); a
    size is skipped when that exceeds ``budget.left()`` (the first one too, on its bare
    guess), and every later one with it.

    Args:
        budget: The share of the budget this list may use.
        sizes: ``(size, guessed seconds)`` pairs, small to large.
        run_one: ``size -> lines`` (the lines of that size).
        progress: Called with all lines so far after every size (to record them).

    Returns:
        The lines of the sizes that ran (and one saying why the rest did not) and how
        many ran.
    """
    lines: list[str] = []
    scale = 1.0  # measured / guessed seconds of the previous size
    for i, (size, guess) in enumerate(sizes):
        projected = guess * scale
        if projected > budget.left():
            lines.append(
                f"  stopped before {size}: projected {projected:.0f} s > "
                f"{max(budget.left(), 0):.0f} s left of this part's share of the budget"
            )
            if progress is not None:
                progress(lines)
            return lines, i
        t0 = time.monotonic()
        lines += run_one(size)
        scale = (time.monotonic() - t0) / guess
        if progress is not None:
            progress(lines)
    return lines, len(sizes)


def _status(n: int, total: int) -> str:
    return "done" if n == total else f"cut short: {n} of {total} sizes"


def part_gpu_sweep(sizes, budget: C.Budget, progress=None, tiny=False) -> tuple[list[str], str]:
    """The engine's sweeps: noisy-quadratic and matrix power iteration rows."""
    gs = C.script("gpu_sweep")
    steps = 50 if tiny else 1000
    mspec = gs.MatSpec(d=16, steps=5) if tiny else gs.MatSpec()
    rows: list[tuple] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)

        def one(size):
            kind, lanes = size
            rows.append(
                gs.bench_quadratic(lanes, steps, tmp)
                if kind == "quadratic"
                else gs.bench_matrix(lanes, mspec, tmp)
            )
            return []

        stop, n = sizes_within(
            budget,
            sizes,
            one,
            None if progress is None else (lambda extra: progress(gs.format_rows(rows) + extra)),
        )
    return gs.format_rows(rows) + stop, _status(n, len(sizes))


def part_moe_sweep(sizes, budget: C.Budget, progress=None, tiny=False) -> tuple[list[str], str]:
    """The LR × seed sweep, jit(vmap) against a loop of the jitted run, by size."""
    ms = C.script("moe_step")

    def one(size):
        w, steps, n_lr, n_seed, reps = size
        return ms.sweep_lines(ms.bench_sweep(w, steps, n_lr, n_seed, reps), n_lr, n_seed, steps)

    lines, n = sizes_within(budget, sizes, one, progress)
    return lines, _status(n, len(sizes))


def part_linreg(sizes, budget: C.Budget, progress=None, tiny=False) -> tuple[list[str], str]:
    """The exact recursion, vmap vs loop and Monte Carlo, by size."""
    lr = C.script("linreg")

    def one(size):
        # at full size the numpy peer runs one sync period (4 steps): seconds a step on a CPU
        np_steps = {"tiny": lr.SIZES["tiny"][1], "cpu": 20}.get(size, 4)
        return [f"[{size} sizes]"] + ["  " + x for x in lr.bench(*lr.SIZES[size], np_steps=np_steps)[1]]

    lines, n = sizes_within(budget, sizes, one, progress)
    return lines, _status(n, len(sizes))


def part_gp_bts(sizes, budget: C.Budget, progress=None, tiny=False) -> tuple[list[str], str]:
    """GP-BTS at Q = 1, 4, 16 (tiny: Q = 2) against the numpy loop, by size."""
    gp = C.script("gp_bandits")
    cases = [("bts", 2)] if tiny else [("bts", 1), ("bts", 4), ("bts", 16)]

    def one(size):
        n, evals, fns = size
        return gp.bench_policy(tiny, n=n, budget=evals, cases=cases, fns=fns, botorch=False)[0]

    lines, n = sizes_within(budget, sizes, one, progress)
    return lines, _status(n, len(sizes))


RUNNERS = {
    "gpu_sweep": part_gpu_sweep,
    "moe_sweep": part_moe_sweep,
    "linreg": part_linreg,
    "gp_bts": part_gp_bts,
}


def run(
    tiny: bool, budget_s: float | None, parts: Sequence[str] = PARTS, results: Path | str | None = None
) -> dict:
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
    for i, name in enumerate(parts):
        sizes = (TINY_SIZES if tiny else SIZES)[name]
        share = C.Budget(None if budget_s is None else budget.left() / (len(parts) - i))
        if budget.exhausted():
            status[name] = "skipped: the budget is spent"
            print(f"== {name}: {status[name]}", flush=True)
            continue
        print(f"== {name} ({share.left():.0f} s of {budget.left():.0f} s left)", flush=True)

        t0 = time.monotonic()

        def progress(lines, name=name, t0=t0):  # after every size: a kill keeps what finished
            if results is not None:
                C.record(
                    f"accelerator: {name} ({kind})",
                    lines,
                    intro=INTRO[name],
                    notes=f"Part of `benchmarks/accelerator.py`, {time.monotonic() - t0:.0f} s so far.",
                    script="accelerator.py",
                    results=results,
                )

        lines, state = RUNNERS[name](sizes, share, progress, tiny=tiny)
        status[name] = f"{state} in {time.monotonic() - t0:.1f} s"
        out[name] = lines
        print("\n".join(lines), flush=True)
        if results is not None and lines:
            C.record(
                f"accelerator: {name} ({kind})",
                lines,
                intro=INTRO[name],
                notes=f"Part of `benchmarks/accelerator.py`: {status[name]}.",
                script="accelerator.py",
                results=results,
            )
    summary = [f"budget {budget_s} s, elapsed {budget.elapsed():.1f} s"]
    summary += [f"  {name:<10} {status.get(name, 'not asked for')}" for name in PARTS]
    print("\n".join(summary), flush=True)
    if results is not None:
        C.record(
            f"accelerator ({kind})",
            summary,
            script="accelerator.py",
            results=results,
            intro="What the one-command accelerator run finished, part by part (each part "
            "that ran has its own `accelerator: <part>` section).",
        )
    return {"status": status, "lines": out, "elapsed": budget.elapsed()}


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="every part at tiny sizes (the tests' CPU run; never records)")
    ap.add_argument(
        "--budget-s",
        type=float,
        default=480.0,
        help="wall-clock budget in seconds, checked between sizes (default 480)",
    )
    ap.add_argument(
        "--parts",
        nargs="+",
        default=list(PARTS),
        choices=PARTS,
        help="parts to run (always in the fixed order)",
    )
    args = ap.parse_args(argv)
    if args.budget_s < 0:
        ap.error(f"--budget-s must be >= 0, got {args.budget_s}")
    print(C.machine(), flush=True)
    parts = [p for p in PARTS if p in args.parts]
    return run(args.tiny, args.budget_s, parts, C.RESULTS if C.should_record(args) else None)


if __name__ == "__main__":
    main()
