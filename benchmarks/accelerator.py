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
finishes early leaves more to the next). Before a part starts, ``jaxtheory plan``'s
roofline model (:mod:`jaxtheory.sweep.plan`) projects the device time of its main
program at every size on the device it runs on (traced, not compiled: FLOPs with every
loop multiplied by its trip count, and the jaxpr's unfused bytes, an upper estimate); a
size's cost is then its fixed cost from :data:`SIZES` (compile, store and peers: a guess
for an H200) plus the projected time of the runs it times (cold and warm). These costs
are rescaled by how long the previous size really took against its cost, and a size
whose rescaled cost exceeds what is left of the part's share is skipped, with a line
saying so. The budget is checked between sizes, not inside one, so a run can overshoot
by one size's misestimate.

Calibration. Beside every measured warm time the section records the projection the
size started from (the program, the projected seconds, compute- or memory-bound, FLOPs
and bytes) and measured / projected, and each part ends with the median of those
ratios: a first run on a GPU calibrates the roofline model of ``jaxtheory plan`` on
that device. The device is the one the process runs on (an H100, H200, A100, TPU v5e or
v6e of the plan's table; on a CPU, the plan's measured rates of this machine), or
``--device KIND``.

Recording. The section ``accelerator: <part> (<device>)`` of ``RESULTS.md`` is written
after every size (replaced in place, so a run killed part-way keeps what finished), and
a summary section ``accelerator (<device>)`` says what finished, what was cut short and
what was skipped.

Usage: ``python benchmarks/accelerator.py [--budget-s 480] [--parts ...] [--device KIND]
[--tiny] [--no-record]``. ``--tiny`` runs every part at tiny sizes on any device (the
tests run it on CPU) and never records; on a CPU it is the dry run of the whole script,
projections included.
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
#: Per part, ``(size, guessed fixed seconds on an H200: compile, store, peers)`` from small
#: to large, at full and at tiny sizes (the projected device time is added to it). gpu_sweep sizes are ``(kind, lanes)``; moe_sweep ``(width,
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


# -- projections (jaxtheory plan's roofline model) ----------------------------------------

#: Device kinds of ``jaxtheory plan`` by a piece of the name JAX reports for the device.
PLAN_DEVICES = (
    ("h200", ("h200",)),
    ("h100", ("h100",)),
    ("a100", ("a100",)),
    ("v6e", ("v6", "trillium")),
    ("v5e", ("v5 lite", "v5e", "v5litepod")),
)


def plan_device(kind: str | None = None) -> str | None:
    """The ``jaxtheory plan`` device key of ``kind`` (default: this process's device).

    ``"cpu"`` on a CPU (the plan then measures this machine's rates); ``None`` for an
    accelerator the plan's table does not have.

    Example:
        >>> plan_device("NVIDIA H200"), plan_device("TPU v5 lite"), plan_device("cpu")
        ('h200', 'v5e', 'cpu')
    """
    name = (kind or C.device_kind()).lower()
    if name == "cpu":
        return "cpu"
    return next((key for key, parts in PLAN_DEVICES if any(x in name for x in parts)), None)


def project(fn: Callable, args: Sequence, device: str, chunks: int = 1) -> dict:
    """The roofline projection of ``jit(fn)(*args)``, run ``chunks`` times, on ``device``.

    Traced, not compiled: the FLOPs count every loop's trip count and the bytes are the
    jaxpr's unfused traffic (an upper estimate), as ``jaxtheory plan`` without compiling.

    Returns:
        ``{"device", "seconds" (all chunks), "bound", "flops", "bytes" (all chunks),
        "peak_bytes" (live-value estimate of one chunk), "chunks"}``.
    """
    import jax

    from jaxtheory.sweep import plan as P
    from jaxtheory.sweep._jaxpr_cost import jaxpr_cost

    ops = jaxpr_cost(jax.jit(fn).trace(*args).jaxpr)
    proj = P._projection(ops, None, P.device_spec(device), chunks)
    return {
        "device": device,
        "seconds": float(proj["total_s"]),
        "bound": proj["bound"],
        "flops": float(proj["flops"]) * chunks,
        "bytes": float(proj["bytes"]) * chunks,
        "peak_bytes": float(ops.peak_bytes),
        "chunks": chunks,
    }


def _engine_lanes(lanes: int) -> tuple[int, int, int]:
    """gpu_sweep's lanes (64 LRs x seeds), the engine's chunk (at most 2^16) and chunks."""
    n = 64 * max(1, lanes // 64)
    chunk = min(n, 1 << 16)
    return n, chunk, -(-n // chunk)


def programs(part: str, size, tiny: bool) -> list[tuple[str, Callable, tuple, int, int]]:
    """The programs a part times at ``size``: ``(name, fn, args, chunks, runs)``.

    ``args`` are what one chunk's ``jit(fn)`` takes (shapes suffice), ``runs`` how many
    times the part runs all chunks of it (cold and warm calls; a peer doing the same
    arithmetic counts as runs of it).
    """
    import functools

    import jax
    import jax.numpy as jnp

    from jaxtheory.sweep import make_key

    f32 = jnp.float32
    if part == "gpu_sweep":
        gs = C.script("gpu_sweep")
        kind, lanes = size
        n, chunk, chunks = _engine_lanes(lanes)
        kd = jax.ShapeDtypeStruct((chunk, 2), jnp.uint32)
        if kind == "quadratic":
            spec = gs.quad.QuadraticSpec(dim=16, steps=50 if tiny else 1000)
            p = {k: jax.ShapeDtypeStruct((chunk,), f32) for k in gs.quad.DEFAULT_PARAMS}
            fn = jax.vmap(lambda q, k: gs.quad.run(spec, q, make_key(k)))
            return [(f"noisy-quadratic {n} lanes", fn, (p, kd), chunks, 2)]
        mspec = gs.MatSpec(d=16, steps=5) if tiny else gs.MatSpec()
        p = {"scale": jax.ShapeDtypeStruct((chunk,), f32)}
        fn = jax.vmap(lambda q, k: gs.mat_run(mspec, q, make_key(k)))
        return [(f"matrix power iteration {n} lanes", fn, (p, kd), chunks, 2)]
    if part == "moe_sweep":
        ms = C.script("moe_step")
        w, steps, n_lr, n_seed, reps = size
        spec = ms.moe.MoESpec(
            width=w,
            regime="III",
            rules=("mssp",),
            steps=steps,
            batch_size=32,
            n_eval=256,
            n_probe=32,
            num_log=4,
        )
        n = n_lr * n_seed
        p = {"lr_scale": jnp.ones(n, f32), "eps": jnp.full(n, 1e-8, f32)}
        keys = jax.vmap(jax.random.key)(jnp.arange(n))
        fn = jax.vmap(lambda q, k: ms.moe.run(spec, q, k))
        # the vmapped program (1 + reps calls) and the loop of single runs (as much arithmetic)
        return [(f"jit(vmap(run)) {n} lanes", fn, (p, keys), 1, 2 * (1 + reps))]
    if part == "linreg":
        lr = C.script("linreg")
        D, T, G, mcD, mcT, mcL = lr.SIZES[size]
        spec = lr.ex.ExactSpec(dim=D, steps=T, num_log=16, algorithm="lookahead")
        base = dict(lr.ex.EXACT_DEFAULT_PARAMS, sigma2=0.1, k=4, batch=4)
        grid = {k: jax.ShapeDtypeStruct((G * G,), jnp.asarray(v).dtype) for k, v in base.items()}
        grid["lr"] = grid["alpha"] = jax.ShapeDtypeStruct((G * G,), f32)
        exact = jax.vmap(lambda q: lr.ex.run(spec, q)["final_risk"])
        mspec = lr.mc.MonteCarloSpec(
            dim=mcD, batch=4, steps=mcT, num_log=16, algorithm="lookahead", sync_period=4
        )
        mcfn = jax.vmap(
            lambda kk: lr.mc.run(mspec, dict(lr.mc.MC_DEFAULT_PARAMS, sigma2=0.1), kk)["final_risk"]
        )
        keys = jax.random.split(jax.random.key(0), mcL)
        return [
            (f"exact LA recursion D={D} T={T} grid {G}x{G}", exact, (grid,), 1, 2),
            (f"Monte Carlo LA {mcL} lanes D={mcD} T={mcT}", mcfn, (keys,), 1, 2),
        ]
    if part == "gp_bts":
        gp = C.script("gp_bandits")
        n, evals, fns = size
        R = 2 * fns * 3
        p = {k: jnp.full(R, v) for k, v in dict(gp.gpb.DEFAULT_PARAMS, noise_var=0.1, init_evals=0).items()}
        keys = jax.random.split(jax.random.key(0), R)
        out = []
        for policy, q in [("bts", 2)] if tiny else [("bts", 1), ("bts", 4), ("bts", 16)]:
            spec = gp.gpb.GPBanditSpec(
                policy=policy, q=q, budget=evals, n=n, dim=2, lengthscale=0.2, variance=1.0
            )
            fn = jax.vmap(functools.partial(gp.gpb.run, spec))
            out.append((f"GP-{policy.upper()} Q={q} {R} replicates", fn, (p, keys), 1, 2))
        return out
    raise ValueError(f"unknown part {part!r}")


def with_projections(part: str, sizes: Sequence[tuple], device: str | None, tiny: bool):
    """Each size's cost (its fixed guess plus the projected runs) and its projections.

    Returns:
        ``([(size, cost_s), ...], {size: [projection, ...] or a reason there is none})``.
    """
    costed, projections = [], {}
    for size, fixed in sizes:
        if device is None:
            projections[size] = "no projection: the plan's device table has no " + C.device_kind()
            costed.append((size, fixed))
            continue
        try:
            ps = []
            for name, fn, args, chunks, runs in programs(part, size, tiny):
                ps.append(dict(project(fn, args, device, chunks), program=name, runs=runs))
        except Exception as e:  # noqa: BLE001 - the size still runs, on its fixed guess
            projections[size] = f"no projection: {type(e).__name__}: {e}"
            costed.append((size, fixed))
            continue
        projections[size] = ps
        costed.append((size, fixed + sum(q["seconds"] * q["runs"] for q in ps)))
    return costed, projections


def _si(x: float) -> str:
    for unit, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g} "


def projection_lines(projections, measured: dict[str, float], ratios: list[float]) -> list[str]:
    """Lines putting each program's measured warm seconds beside its projection.

    ``measured`` maps a program's name to its measured warm seconds; every
    measured / projected ratio is appended to ``ratios``.
    """
    if isinstance(projections, str):
        return [f"    {projections}"]
    lines = []
    for q in projections:
        m = measured.get(q["program"])
        text = (
            f"    projection ({q['device']}, roofline): {q['program']}: {q['seconds']:.3g} s a run "
            f"({q['bound']}-bound; {_si(q['flops'])}FLOP, {_si(q['bytes'])}B"
            + (f", {q['chunks']} chunks" if q["chunks"] > 1 else "")
            + f"; live ~{_si(q['peak_bytes'])}B a chunk)"
        )
        if m is not None and q["seconds"] > 0:
            ratios.append(m / q["seconds"])
            text += f" | measured warm {m:.3g} s: measured/projected {m / q['seconds']:.3g}"
        lines.append(text)
    return lines


def calibration_line(ratios: list[float], device: str | None) -> list[str]:
    """The part's median measured / projected ratio (what a first GPU run calibrates)."""
    if not ratios:
        return []
    import statistics

    return [
        f"  calibration on {device}: measured/projected median {statistics.median(ratios):.3g} "
        f"over {len(ratios)} program(s) (min {min(ratios):.3g}, max {max(ratios):.3g})"
    ]


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


def part_gpu_sweep(
    sizes, budget: C.Budget, progress=None, tiny=False, projections=None, device=None
) -> tuple[list[str], str]:
    """The engine's sweeps: noisy-quadratic and matrix power iteration rows."""
    gs = C.script("gpu_sweep")
    steps = 50 if tiny else 1000
    mspec = gs.MatSpec(d=16, steps=5) if tiny else gs.MatSpec()
    rows: list[tuple] = []
    extra: list[str] = []
    ratios: list[float] = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)

        def one(size):
            kind, lanes = size
            row = (
                gs.bench_quadratic(lanes, steps, tmp)
                if kind == "quadratic"
                else gs.bench_matrix(lanes, mspec, tmp)
            )
            rows.append(row)
            name = f"{'noisy-quadratic' if kind == 'quadratic' else 'matrix power iteration'} {row[1]} lanes"
            extra.extend(
                [gs.format_rows([row])[1]]
                + projection_lines((projections or {}).get(size, "no projection"), {name: row[2]}, ratios)
            )
            return []

        stop, n = sizes_within(
            budget,
            sizes,
            one,
            None if progress is None else (lambda more: progress(gs.format_rows([])[:1] + extra + more)),
        )
    lines = gs.format_rows([])[:1] + extra + stop + calibration_line(ratios, device)
    if any(r[0] == "matrix power iteration" for r in rows):
        lines.append(
            "  note: the matrix sweep runs at matmul precision 'highest' (true float32) while plan "
            "charges a float32 dot at the TF32 tensor-core rate on NVIDIA GPUs: its measured/projected "
            "includes that factor (494.5 / 67 = 7.4 on an H100 or H200)"
        )
    return lines, _status(n, len(sizes))


def part_moe_sweep(
    sizes, budget: C.Budget, progress=None, tiny=False, projections=None, device=None
) -> tuple[list[str], str]:
    """The LR × seed sweep, jit(vmap) against a loop of the jitted run, by size."""
    ms = C.script("moe_step")
    ratios: list[float] = []

    def one(size):
        w, steps, n_lr, n_seed, reps = size
        b = ms.bench_sweep(w, steps, n_lr, n_seed, reps)
        measured = {f"jit(vmap(run)) {n_lr * n_seed} lanes": b["vmap"]}
        return ms.sweep_lines(b, n_lr, n_seed, steps) + projection_lines(
            (projections or {}).get(size, "no projection"), measured, ratios
        )

    lines, n = sizes_within(budget, sizes, one, progress)
    return lines + calibration_line(ratios, device), _status(n, len(sizes))


def part_linreg(
    sizes, budget: C.Budget, progress=None, tiny=False, projections=None, device=None
) -> tuple[list[str], str]:
    """The exact recursion, vmap vs loop and Monte Carlo, by size."""
    lr = C.script("linreg")
    ratios: list[float] = []

    def one(size):
        # at full size the numpy peer runs one sync period (4 steps): seconds a step on a CPU
        np_steps = {"tiny": lr.SIZES["tiny"][1], "cpu": 20}.get(size, 4)
        D, T, G, mcD, mcT, mcL = lr.SIZES[size]
        res, text = lr.bench(*lr.SIZES[size], np_steps=np_steps)
        measured = {
            f"exact LA recursion D={D} T={T} grid {G}x{G}": res["warm_s"],
            f"Monte Carlo LA {mcL} lanes D={mcD} T={mcT}": mcL * mcD * mcT / res["mc_rate"],
        }
        return (
            [f"[{size} sizes]"]
            + ["  " + x for x in text]
            + projection_lines((projections or {}).get(size, "no projection"), measured, ratios)
        )

    lines, n = sizes_within(budget, sizes, one, progress)
    return lines + calibration_line(ratios, device), _status(n, len(sizes))


def part_gp_bts(
    sizes, budget: C.Budget, progress=None, tiny=False, projections=None, device=None
) -> tuple[list[str], str]:
    """GP-BTS at Q = 1, 4, 16 (tiny: Q = 2) against the numpy loop, by size."""
    gp = C.script("gp_bandits")
    cases = [("bts", 2)] if tiny else [("bts", 1), ("bts", 4), ("bts", 16)]
    ratios: list[float] = []

    def one(size):
        n, evals, fns = size
        text, rows = gp.bench_policy(tiny, n=n, budget=evals, cases=cases, fns=fns, botorch=False)
        R = 2 * fns * 3
        measured = {
            f"GP-{pol.upper()} Q={q} {R} replicates": row["ours_warm"] for (pol, q), row in rows.items()
        }
        return text + projection_lines((projections or {}).get(size, "no projection"), measured, ratios)

    lines, n = sizes_within(budget, sizes, one, progress)
    return lines + calibration_line(ratios, device), _status(n, len(sizes))


RUNNERS = {
    "gpu_sweep": part_gpu_sweep,
    "moe_sweep": part_moe_sweep,
    "linreg": part_linreg,
    "gp_bts": part_gp_bts,
}


def run(
    tiny: bool,
    budget_s: float | None,
    parts: Sequence[str] = PARTS,
    results: Path | str | None = None,
    device: str | None = None,
) -> dict:
    """Run ``parts`` in order within ``budget_s`` seconds; record into ``results`` if given.

    Args:
        tiny: Tiny sizes (a smoke test on any device).
        budget_s: Wall-clock budget in seconds (``None``: no limit).
        parts: Names from :data:`PARTS`.
        results: The ``RESULTS.md`` to record into, or ``None`` to record nothing.
        device: The ``jaxtheory plan`` device to project onto (default: :func:`plan_device`).

    Returns:
        ``{"status": {part: status}, "lines": {part: lines}, "elapsed": seconds,
        "projections": {part: {size: projections}}, "device": device}``.
    """
    unknown = [p for p in parts if p not in RUNNERS]
    if unknown:
        raise ValueError(f"unknown part(s) {unknown}; the parts are {list(PARTS)}")
    budget = C.Budget(budget_s)
    kind = C.device_kind()
    device = device or plan_device()
    planned: dict[str, dict] = {}
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

        sizes, planned[name] = with_projections(name, sizes, device, tiny)
        lines, state = RUNNERS[name](
            sizes, share, progress, tiny=tiny, projections=planned[name], device=device
        )
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
    summary = [
        f"budget {budget_s} s, elapsed {budget.elapsed():.1f} s; sizes chosen with jaxtheory plan's "
        f"roofline projection on {device or 'no device of its table'}"
    ]
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
    return {
        "status": status,
        "lines": out,
        "elapsed": budget.elapsed(),
        "projections": planned,
        "device": device,
    }


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
    ap.add_argument(
        "--device",
        default=None,
        choices=[k for k, _ in PLAN_DEVICES] + ["cpu"],
        help="jaxtheory plan device to project onto (default: the one this process runs on)",
    )
    args = ap.parse_args(argv)
    if args.budget_s < 0:
        ap.error(f"--budget-s must be >= 0, got {args.budget_s}")
    print(C.machine(), flush=True)
    parts = [p for p in PARTS if p in args.parts]
    return run(args.tiny, args.budget_s, parts, C.RESULTS if C.should_record(args) else None, args.device)


if __name__ == "__main__":
    main()
