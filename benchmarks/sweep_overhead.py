"""Sweep overhead: the engine against three ways researchers run the same sweep.

A 1024-lane sweep of the demonstration run function (``jaxtheory.sims.quadratic.run``,
dimension 16, 1000 steps) is timed four ways in one process:

(a) through the engine, store included (chunk files, ``results.nc``, manifest);
(b) a Python loop over configs of one jitted whole-run function;
(c) a Python loop over steps calling a jitted step function (a few configs timed,
    extrapolated to all lanes);
(d) one hand-written ``jit(vmap(run))`` call with no engine around it.

Each is timed cold (compile included) and warm (the compiled program reused; for the
engine and (d) the best of three more calls with other dynamic values, the engine's
each into a fresh directory, so a burst of load on a shared machine does not decide
the ratio). The ratios are
printed and recorded, with the machine, in ``benchmarks/RESULTS.md`` (its section is
replaced on a re-run). ``--profile`` adds where a warm engine sweep spends its time
(cProfile, grouped by stage).

``--growth`` measures how the engine grows with the number of lanes: 10³, 10⁴, 10⁵ and
10⁶ lanes of the demonstration run at dimension 4 and 100 steps, against a hand-written
chunked ``jit(vmap(run))`` (the engine's chunk size, each chunk's outputs copied to host
numpy arrays and concatenated, as the engine assembles them; lane keys from the lane
index). Every size and side runs in a fresh process, so its peak resident memory
(``ru_maxrss``) is its own; each process times a cold sweep (compile included) and a warm
one (other learning rates, the compiled program reused). It records the section
"sweep_overhead: growth with lanes".

``--before DIR`` compares engines: it measures (with ``--profile``) the jaxtheory of
another checkout ``DIR`` (e.g. ``git worktree add /tmp/base <rev>``) and this one, each
in a fresh process, alternating for ``--rounds`` rounds, and records both in the
section "sweep_overhead: before/after".

Usage: ``python benchmarks/sweep_overhead.py [--tiny] [--no-record] [--profile]
[--growth] [--before DIR [--rounds N]]``.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

import jaxtheory
from jaxtheory.sims import quadratic as quad
from jaxtheory.sweep import Space, lane_key_data, log, make_key, sweep, values

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

INTRO = (
    "Peers measured in the same run: (b) Python loop over configs of a jitted run, "
    "(c) Python loop over steps of a jitted step (extrapolated from a few configs), "
    "(d) bare `jit(vmap(run))`; (a) is the engine, store included. Warm = the compiled "
    "program reused with other dynamic values, best of 3 for (a) and (d) (for the engine: "
    "sweeps into fresh directories)."
)


#: Warm calls of (a) and (d); their best is the warm time.
WARM_REPS = 3

#: Stages of a warm engine sweep in the profile: (name, functions whose cumulative time
#: it is), matched by file-name ending and function name, for this engine and older ones.
STAGES = (
    ("device compute (waiting on results)", (("engine.py", "_local_lanes"),)),
    ("results.nc write", (("store.py", "write_dataset"),)),
    ("chunk files", (("store.py", "save_chunk"),)),
    ("lane keys", (("engine.py", "lane_key_data"), ("engine.py", "lane_key_table"))),
    ("code provenance", (("provenance.py", "code_provenance"),)),
    ("git revision", (("store.py", "git_revision"),)),
    ("package versions", (("store.py", "package_versions"),)),
    ("manifest.json", (("store.py", "atomic_write_json"),)),
    ("assemble", (("engine.py", "_assemble"),)),
)


def _profile(call) -> dict[str, float]:
    """Seconds of ``call()`` per stage of :data:`STAGES` (cumulative), ``total`` and ``other``."""
    prof = cProfile.Profile()
    prof.enable()
    call()
    prof.disable()
    stats = pstats.Stats(prof).stats  # {(file, line, func): (cc, nc, tottime, cumtime, callers)}
    out = {}
    for name, funcs in STAGES:
        out[name] = sum(
            v[3]
            for (f, _, fn), v in stats.items()
            if any(f.endswith(end) and fn == want for end, want in funcs)
        )
    out["total"] = max(v[3] for (f, _, fn), v in stats.items() if fn == "sweep" and f.endswith("engine.py"))
    out["other (plan, dispatch, Python)"] = out["total"] - sum(out[name] for name, _ in STAGES)
    return out


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="16 lanes, 50 steps: a smoke test (never records)")
    ap.add_argument("--profile", action="store_true", help="profile a warm engine sweep by stage")
    ap.add_argument("--before", metavar="DIR", help="compare with the jaxtheory checked out in DIR")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds of --before (default 2)")
    ap.add_argument("--growth", action="store_true", help="engine vs chunked jit(vmap) at 1e3..1e6 lanes")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # for --before
    ap.add_argument("--growth-one", nargs=3, metavar=("SIDE", "LANES", "CHUNK"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.growth_one:
        side, lanes, chunk = args.growth_one
        out = growth_one(side, int(lanes), int(chunk))
        print("JSON " + json.dumps(out))
        return out
    if args.growth:
        return growth(args)
    if args.before:
        return compare(args)
    out = measure(args.tiny, profile=args.profile)
    if args.json:
        print("JSON " + json.dumps(out))
        return out
    print("\n".join([C.machine(), *out["lines"]]))
    if C.should_record(args):
        C.record("sweep_overhead", out["lines"], intro=INTRO, script="sweep_overhead.py")
    return out


def measure(tiny: bool, profile: bool = False) -> dict:
    """Time the four ways; ``{"times", "ratios", "lines", "engine_timings"[, "profile"]}``."""
    lanes_lr, seeds = (8, 2) if tiny else (64, 16)  # 64 lr × 16 seeds = 1024 lanes
    spec = quad.QuadraticSpec(dim=16, steps=50 if tiny else 1000)
    params = dict(quad.DEFAULT_PARAMS)
    space = Space(lr=log(0.01, 1.0, num=lanes_lr), momentum=values(0.9), seeds=seeds)
    space2 = Space(lr=log(0.02, 1.5, num=lanes_lr), momentum=values(0.9), seeds=seeds)
    n = lanes_lr * seeds
    lrs = np.repeat(np.geomspace(0.01, 1.0, lanes_lr), seeds).astype(np.float32)
    keys = np.stack(
        [
            lane_key_data({"lr": lr, "momentum": 0.9}, s)
            for lr in np.geomspace(0.01, 1.0, lanes_lr)
            for s in range(seeds)
        ]
    )
    batch = {k: np.full(n, v, np.float32) for k, v in params.items()}
    batch["lr"] = lrs
    batch["momentum"] = np.full(n, 0.9, np.float32)
    t = {}

    # (a) the engine, store included: cold with `space`, warm with `space2`
    with tempfile.TemporaryDirectory() as tmp:
        calls = itertools.count()

        recorded = []  # the manifest timings of each call

        def engine():
            i = next(calls)
            res = sweep(
                quad.run,
                spec,
                space if i == 0 else space2,
                params,
                quiet=True,
                run_dir=Path(tmp) / f"a{i}",
                metric_dims={"risk": ("step",)},
            )
            recorded.append(dict(res.manifest["timings"]))
            return res

        ta = C.timed(engine, reps=WARM_REPS)
        t["a_cold"], t["a_warm"] = ta.cold, ta.warm
        engine_timings = recorded[-1]
        # Within one call, robust to the load: the time beyond waiting for the device
        fixed = statistics.median(r["total_s"] - r["run_s"] for r in recorded[1:])
        share = statistics.median(r["run_s"] / r["total_s"] for r in recorded[1:])
        prof = _profile(engine) if profile else None

    # (d) one hand-written jit(vmap(run))
    def lane(p, kd):
        return quad.run(spec, p, make_key(kd))

    vfn = jax.jit(jax.vmap(lane))
    batch2 = dict(batch, lr=batch["lr"] * 1.5)
    calls = itertools.count()
    td = C.timed(lambda: vfn(batch if next(calls) == 0 else batch2, keys), reps=WARM_REPS)
    t["d_cold"], t["d_warm"] = td.cold, td.warm

    # (b) Python loop over configs of one jitted whole run
    one = jax.jit(lane)
    t_compile_b = C.timed(one, {k: v[0] for k, v in batch.items()}, keys[0], reps=0).cold

    def config_loop():
        for i in range(n):
            C.block(one({k: v[i] for k, v in batch.items()}, keys[i]))

    t["b_warm"] = C.best_of(config_loop, 1)
    t["b_cold"] = t["b_warm"] + t_compile_b

    # (c) Python loop over steps calling a jitted step (a few configs, extrapolated)
    lam = quad.spectrum(spec.dim, params["lam_min"], params["lam_max"]).astype(jnp.float32)

    @jax.jit
    def step(x, s, lr, mom, key, i):
        opt = optax.sgd(lr, momentum=mom)
        g = lam * x + jax.random.normal(jax.random.fold_in(key, i), x.shape)
        u, s = opt.update(g, s, x)
        return optax.apply_updates(x, u), s, 0.5 * jnp.sum(lam * x * x)

    few = 2 if tiny else 4
    x0 = jnp.ones(spec.dim) / jnp.sqrt(spec.dim)
    s0 = optax.sgd(0.1, momentum=0.9).init(x0)
    t_compile_c = C.timed(
        step, x0, s0, jnp.float32(0.1), jnp.float32(0.9), make_key(jnp.asarray(keys[0])), 0, reps=0
    ).cold

    def step_loop():
        for i in range(few):
            x, s, key = x0, s0, make_key(jnp.asarray(keys[i]))
            lr, mom = jnp.float32(lrs[i]), jnp.float32(0.9)
            for k in range(spec.steps):
                x, s, _ = step(x, s, lr, mom, key, k)
            C.block(x)

    t["c_warm"] = C.best_of(step_loop, 1) * n / few
    t["c_cold"] = t["c_warm"] + t_compile_c

    r = C.ratio
    ratios = {
        "a_vs_c_warm": r(t["c_warm"], t["a_warm"]),
        "a_vs_c_cold": r(t["c_cold"], t["a_cold"]),
        "a_vs_b_warm": r(t["b_warm"], t["a_warm"]),
        "a_vs_b_cold": r(t["b_cold"], t["a_cold"]),
        "d_over_a_warm": r(t["d_warm"], t["a_warm"]),
        "d_over_a_cold": r(t["d_cold"], t["a_cold"]),
    }
    lines = [
        f"lanes {n}, dim {spec.dim}, steps {spec.steps}",
        "seconds (cold = compile included, warm = compiled program reused):",
        *(f"  ({w}) {'cold':>5} {t[w + '_cold']:9.3f}   warm {t[w + '_warm']:9.3f}" for w in "abcd"),
        f"engine vs step loop (c):   {ratios['a_vs_c_warm']:8.1f}x warm, {ratios['a_vs_c_cold']:8.1f}x cold (target >= 500x)",
        f"engine vs config loop (b): {ratios['a_vs_b_warm']:8.1f}x warm, {ratios['a_vs_b_cold']:8.1f}x cold (target >= 4x)",
        f"bare jit(vmap) / engine:   {ratios['d_over_a_warm']:8.2f}  warm, {ratios['d_over_a_cold']:8.2f}  cold (target >= 0.8)",
    ]
    tim = engine_timings
    lines.append(
        "engine warm, manifest timings (s): "
        + ", ".join(
            f"{k} {tim[k]:.3f}"
            for k in ("run_s", "store_s", "assemble_s", "results_write_s", "total_s")
            if k in tim
        )
    )
    lines.append(
        f"engine warm, fixed cost (total_s - run_s, median of {WARM_REPS}): {fixed:.3f} s; "
        f"device share (run_s / total_s): {share:.2f}"
    )
    out = {
        "times": t,
        "ratios": ratios,
        "lines": lines,
        "engine_timings": tim,
        "fixed_s": fixed,
        "device_share": share,
        "jaxtheory": jaxtheory.__file__,
    }
    if prof is not None:
        out["profile"] = prof
        lines.append(
            "engine warm, cProfile (cumulative s; profiling slows Python code): "
            + ", ".join(f"{k} {v:.3f}" for k, v in prof.items())
        )
    return out


def _measure_in(checkout: Path, tiny: bool) -> dict:
    """:func:`measure` in a fresh process importing the jaxtheory of ``checkout``."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    cmd = [sys.executable, __file__, "--json", "--profile", *(["--tiny"] if tiny else [])]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    line = next((ln for ln in reversed(r.stdout.splitlines()) if ln.startswith("JSON ")), None)
    if r.returncode != 0 or line is None:
        raise RuntimeError(f"measuring {checkout} failed:\n{r.stderr[-4000:]}")
    out = json.loads(line[5:])
    if not out["jaxtheory"].startswith(str(checkout.resolve())):
        raise RuntimeError(f"PYTHONPATH={checkout} imports jaxtheory from {out['jaxtheory']}")
    out["load"] = os.getloadavg()[0]
    return out


def _revision(checkout: Path) -> str:
    r = subprocess.run(
        ["git", "-C", str(checkout), "log", "-1", "--format=%h %s"],
        capture_output=True,
        text=True,
        check=False,
    )
    dirty = subprocess.run(
        ["git", "-C", str(checkout), "status", "--porcelain", "--", "jaxtheory"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return (r.stdout.strip()[:60] or "?") + (" (+ uncommitted changes)" if dirty else "")


def compare(args) -> dict:
    """Measure the checkout ``args.before`` and this one, alternating; record both."""
    here = Path(__file__).resolve().parents[1]
    sides = {"before": Path(args.before).resolve(), "after": here}
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for i in range(args.rounds):
        for side, path in sides.items():
            runs[side].append(_measure_in(path, args.tiny))
            r = runs[side][-1]
            print(
                f"round {i + 1} {side}: d/a warm {r['ratios']['d_over_a_warm']:.2f}, "
                f"cold {r['ratios']['d_over_a_cold']:.2f}; load {r['load']:.1f}",
                flush=True,
            )
    lines = [
        f"before: {_revision(sides['before'])}",
        f"after:  {_revision(here)}",
        f"{args.rounds} rounds, each side a fresh process, alternating; lanes, sizes as in "
        "`sweep_overhead` above",
        "",
    ]
    for side in sides:
        for i, r in enumerate(runs[side]):
            t, q = r["times"], r["ratios"]
            lines.append(
                f"{side:6s} round {i + 1}: (a) engine cold {t['a_cold']:7.3f} warm {t['a_warm']:6.3f}"
                f" | (d) bare cold {t['d_cold']:7.3f} warm {t['d_warm']:6.3f} | d/a warm "
                f"{q['d_over_a_warm']:.2f} cold {q['d_over_a_cold']:.2f} | a vs b warm "
                f"{q['a_vs_b_warm']:.1f}x, a vs c warm {q['a_vs_c_warm']:.0f}x | load {r['load']:.1f}"
            )
    med = {
        side: {
            k: statistics.median(r["ratios"][k] for r in runs[side])
            for k in ("d_over_a_warm", "d_over_a_cold")
        }
        for side in sides
    }
    warm = {
        side: statistics.median(r["times"]["a_warm"] - r["times"]["d_warm"] for r in runs[side])
        for side in sides
    }
    lines += [
        "",
        "median bare jit(vmap) / engine: "
        + "; ".join(
            f"{side} {med[side]['d_over_a_warm']:.2f} warm, {med[side]['d_over_a_cold']:.2f} cold"
            for side in sides
        )
        + " (target >= 0.8)",
        "median engine - bare, warm (s): " + "; ".join(f"{side} {warm[side]:.3f}" for side in sides),
        "within each engine call (robust to the load, which changes the compute time by up to 2x "
        "between calls):",
        "  median fixed cost, total_s - run_s (s): "
        + "; ".join(f"{side} {statistics.median(r['fixed_s'] for r in runs[side]):.3f}" for side in sides),
        "  median device share, run_s / total_s: "
        + "; ".join(
            f"{side} {statistics.median(r['device_share'] for r in runs[side]):.2f}" for side in sides
        )
        + " (bare jit(vmap) is 1 by this measure)",
        "",
        "engine warm, manifest timings of the last round (s):",
    ]
    for side in sides:
        tim = runs[side][-1]["engine_timings"]
        lines.append(
            f"  {side:6s} "
            + ", ".join(
                f"{k} {tim[k]:.3f}"
                for k in ("run_s", "store_s", "assemble_s", "results_write_s", "total_s")
                if k in tim
            )
        )
    lines.append(
        "engine warm, cProfile of a third sweep (cumulative s, median over rounds; profiling "
        "slows Python code):"
    )
    names = list(runs["before"][0]["profile"])
    width = max(map(len, names))
    lines.append(f"  {'stage':{width}s}  before   after")
    for n in names:
        b, a = (statistics.median(r["profile"][n] for r in runs[side]) for side in sides)
        lines.append(f"  {n:{width}s}  {b:6.3f}  {a:6.3f}")
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record(
            "sweep_overhead: before/after",
            lines,
            intro=INTRO + " Before/after: two checkouts of "
            "jaxtheory measured by this script, one after the other on the same machine.",
            notes=COMPARE_NOTES,
            script="sweep_overhead.py",
        )
    return {"runs": runs, "median": med}


#: Lane counts of ``--growth`` (``--tiny``: the first two of :data:`GROWTH_TINY`).
GROWTH_LANES = (10**3, 10**4, 10**5, 10**6)
GROWTH_TINY = (100, 400)
#: The run of ``--growth``: the demonstration run at dimension 4, 100 steps.
GROWTH_SPEC = {"dim": 4, "steps": 100}


def _growth_space(n: int, warm: bool) -> tuple[np.ndarray, int]:
    """The learning rates (one per config) and seeds per config of an ``n``-lane sweep."""
    seeds = min(100, n)
    lo, hi = (0.02, 1.5) if warm else (0.01, 1.0)
    return np.geomspace(lo, hi, n // seeds), seeds


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def growth_one(side: str, n: int, chunk: int) -> dict:
    """One side of ``--growth`` at ``n`` lanes in this process: cold and warm seconds, peak RSS.

    ``side`` is ``"engine"`` (``sweep`` into a temporary run directory, store included;
    ``chunk`` 0 lets it choose) or ``"bare"`` (chunks of ``chunk`` lanes of one
    ``jit(vmap(run))``, the last one padded, outputs gathered into numpy arrays).
    """
    import time

    spec = quad.QuadraticSpec(**GROWTH_SPEC)
    params = dict(quad.DEFAULT_PARAMS, momentum=0.9)
    rss_start = _peak_rss_mb()
    out: dict = {"side": side, "lanes": n}
    if side == "engine":
        with tempfile.TemporaryDirectory() as tmp:
            for phase in ("cold", "warm"):
                lrs, seeds = _growth_space(n, phase == "warm")
                space = Space(lr=values(*lrs.tolist()), momentum=values(0.9), seeds=seeds)
                t0 = time.perf_counter()
                res = sweep(
                    quad.run,
                    spec,
                    space,
                    params,
                    quiet=True,
                    run_dir=Path(tmp) / phase,
                    chunk=chunk or None,
                    metric_dims={"risk": ("step",)},
                )
                out[phase] = time.perf_counter() - t0
                out[f"{phase}_timings"] = dict(res.manifest.get("timings") or {})
                out["chunk"] = int(res.manifest.get("chunk_size") or 0)
                out["results_mb"] = (Path(tmp) / phase / "results.nc").stat().st_size / 2**20
                del res
    elif side == "bare":

        def lane(p, kd):
            return quad.run(spec, p, make_key(kd))

        vfn = jax.jit(jax.vmap(lane))
        idx = np.arange(chunk * -(-n // chunk), dtype=np.uint32)
        keys = np.stack([idx, idx * np.uint32(2654435761)], axis=1)  # distinct words per lane
        for phase in ("cold", "warm"):
            lrs, seeds = _growth_space(n, phase == "warm")
            lr = np.repeat(lrs, seeds).astype(np.float32)
            lr = np.concatenate([lr, np.full(len(idx) - n, lr[-1], np.float32)])  # pad the last chunk
            batch = {k: np.full(len(idx), v, np.float32) for k, v in params.items()}
            batch["lr"] = lr
            t0 = time.perf_counter()
            parts = []
            for s in range(0, len(idx), chunk):
                sl = slice(s, s + chunk)
                res = vfn({k: v[sl] for k, v in batch.items()}, keys[sl])
                parts.append(jax.tree.map(np.asarray, res))
            outs = {k: np.concatenate([p[k] for p in parts])[:n] for k in parts[0]}
            out[phase] = time.perf_counter() - t0
            assert len(outs["final_risk"]) == n
            del parts, outs
        out["chunk"] = chunk
    else:
        raise ValueError(f"side is 'engine' or 'bare', got {side!r}")
    out["rss_start_mb"] = rss_start
    out["peak_rss_mb"] = _peak_rss_mb()
    return out


def _growth_in_process(side: str, n: int, chunk: int) -> dict:
    """:func:`growth_one` in a fresh process (its own peak RSS)."""
    cmd = [sys.executable, __file__, "--growth-one", side, str(n), str(chunk)]
    env = dict(os.environ, JAXTHEORY_CACHE="0")  # every cold call compiles
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    line = next((ln for ln in reversed(r.stdout.splitlines()) if ln.startswith("JSON ")), None)
    if r.returncode != 0 or line is None:
        raise RuntimeError(f"--growth-one {side} {n} failed:\n{r.stderr[-4000:]}")
    out = json.loads(line[5:])
    out["load"] = os.getloadavg()[0]
    return out


def growth(args) -> dict:
    """Engine vs chunked bare ``jit(vmap)`` at each of :data:`GROWTH_LANES`; records a section."""
    sizes = GROWTH_TINY if args.tiny else GROWTH_LANES
    rows = []
    for n in sizes:
        eng = _growth_in_process("engine", n, 0)
        bare = _growth_in_process("bare", n, eng["chunk"] or n)
        rows.append((n, eng, bare))
        print(
            f"{n:>9,} lanes: engine warm {eng['warm']:.2f} s, bare warm {bare['warm']:.2f} s; "
            f"peak RSS {eng['peak_rss_mb']:.0f} / {bare['peak_rss_mb']:.0f} MB; load {eng['load']:.1f}",
            flush=True,
        )
    lines = [
        f"demonstration run (jaxtheory.sims.quadratic.run), dim {GROWTH_SPEC['dim']}, "
        f"steps {GROWTH_SPEC['steps']}; engine = sweep into a run directory (store included), "
        "bare = chunked jit(vmap(run)) at the engine's chunk size, outputs gathered on the host",
        "each size and side in a fresh process; cold = compile included; warm = other learning "
        "rates, the compiled program reused; lanes/s from warm; peak RSS = ru_maxrss of that process",
        "",
        f"{'lanes':>9}  {'chunk':>6}  {'engine cold':>11}  {'warm':>7}  {'lanes/s':>9}  "
        f"{'bare cold':>9}  {'warm':>7}  {'lanes/s':>9}  {'bare/engine':>11}  "
        f"{'peak RSS engine':>15}  {'bare':>6}  {'results.nc':>10}  {'load':>4}",
    ]
    for n, eng, bare in rows:
        lines.append(
            f"{n:>9,}  {eng['chunk']:>6}  {eng['cold']:>9.2f} s  {eng['warm']:>5.2f} s  "
            f"{n / eng['warm']:>9,.0f}  {bare['cold']:>7.2f} s  {bare['warm']:>5.2f} s  "
            f"{n / bare['warm']:>9,.0f}  {C.ratio(bare['warm'], eng['warm']):>10.2f}x  "
            f"{eng['peak_rss_mb']:>12.0f} MB  {bare['peak_rss_mb']:>3.0f} MB  "
            f"{eng['results_mb']:>7.1f} MB  {eng['load']:>4.1f}"
        )
    lines.append("engine warm, manifest timings (s): run_s = waiting on the device, total_s = the whole call")
    for n, eng, _ in rows:
        tim = eng.get("warm_timings") or {}
        lines.append(
            f"  {n:>9,} lanes: "
            + ", ".join(f"{k} {v:.2f}" for k, v in tim.items() if isinstance(v, (int, float)))
        )
    first, last = rows[0], rows[-1]
    scale = last[0] / first[0]
    lines.append(
        f"{first[0]:,} -> {last[0]:,} lanes ({scale:,.0f}x): engine warm time x"
        f"{last[1]['warm'] / first[1]['warm']:,.0f}, bare x{last[2]['warm'] / first[2]['warm']:,.0f}; "
        f"peak RSS at start of the process (after imports): engine {last[1]['rss_start_mb']:.0f} MB, "
        f"bare {last[2]['rss_start_mb']:.0f} MB"
    )
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record(
            "sweep_overhead: growth with lanes",
            lines,
            intro=INTRO_GROWTH,
            notes=GROWTH_NOTES,
            script="sweep_overhead.py",
        )
    return {"rows": rows, "lines": lines}


INTRO_GROWTH = (
    "Peer measured in the same run: a hand-written chunked `jit(vmap(run))` at the engine's "
    "chunk size, its outputs gathered into numpy arrays; the engine also hashes a key per "
    "lane and writes chunk files, `results.nc` and the manifest."
)

GROWTH_NOTES = (
    "Measured on the project's shared 2-core machine under the load on each line: absolute "
    "times (and lanes/s) are inflated by other work, by up to several times; the bare/engine "
    "ratio compares two processes run one after the other at each size, so it is less "
    "affected, and peak RSS does not depend on the load."
)


COMPARE_NOTES = (
    "The machine is shared with other jobs (the load average of each measurement is on its "
    "line, and the machine line gives the load when the section was written), so single "
    "timings vary by tens of percent; compare the medians, and the stages of the profile."
)


if __name__ == "__main__":
    main()
