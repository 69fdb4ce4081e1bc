"""The persistent compilation cache: cold, cache-warm and in-process-warm sweep times.

Each workload runs in fresh processes with an empty temporary cache directory:

1. **first process, cold**: nothing cached; the sweep compiles and writes the cache;
2. **second process, cold, cache warm**: a new process (so JAX's in-memory caches are
   empty) loads the compiled programs from the cache directory;
3. **warm, in-process**: the same sweep again in that second process (the engine reuses
   its compiled programs; no compile at all);
4. **no cache**: a new process with ``JAXTHEORY_CACHE=0`` (what every run paid before).

Every run computes its lanes (a new run directory each time, so nothing resumes). Times
are the ``Experiment.sweep`` call (compile + run + store + claims) and the process up to
the end of that call (Python start, imports, the sweep); ``compile`` is the engine's ``compile_s`` from the
manifest; ``hits``/``misses`` count JAX's ``/jax/compilation_cache/cache_hits`` and
``cache_misses`` events.

Workloads: ``jaxtheory run noisy-quadratic --preset smoke`` (2 static groups × 2304
lanes) and a 32-replicate GP-BTS run (``gp-batch-bandits`` smoke setting, q = 4,
σ² = 0.1, no initial evaluations: one static group). ``--tiny`` runs a small
noisy-quadratic sweep only and never writes ``RESULTS.md``.

Usage: ``python benchmarks/compile_cache.py [--tiny] [--no-record]``. A full run
replaces its ``## compile_cache`` section of ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SECTION = "## compile_cache"

# Runs EXPERIMENT.sweep `calls` times in one process; prints one JSON line.
CHILD = r"""
import json, sys, time
t_proc = float(sys.argv[1])
import jax
events = {}
jax.monitoring.register_event_listener(
    lambda name, **kw: events.__setitem__(name, events.get(name, 0) + 1))
from jaxtheory.registry import get_experiment
from jaxtheory.sweep import static, values
name, preset, overrides, out, calls = json.loads(sys.argv[2])
axes = {k: (static(*v[1:]) if v[0] == "static" else values(*v[1:])) if isinstance(v, list) else v
        for k, v in overrides.items()}
exp = get_experiment(name)
rows = []
for i in range(calls):
    before = dict(events)
    t0 = time.time()
    res = exp.sweep(preset, out=f"{out}/call{i}", overrides=axes, quiet=True)
    rows.append({"sweep_s": time.time() - t0,
                 "compile_s": res.manifest["timings"]["compile_s"],
                 "compiles": res.manifest["compiles"],
                 "hits": events.get("/jax/compilation_cache/cache_hits", 0)
                         - before.get("/jax/compilation_cache/cache_hits", 0),
                 "misses": events.get("/jax/compilation_cache/cache_misses", 0)
                           - before.get("/jax/compilation_cache/cache_misses", 0),
                 "lanes": res.manifest["lanes"],
                 "process_s": time.time() - t_proc})  # Python start to the end of this call
print(json.dumps({"rows": rows}))
"""

WORKLOADS = {
    "noisy-quadratic smoke": ("noisy-quadratic", "smoke", {}),
    "GP-BTS, 32 replicates": (
        "gp-batch-bandits",
        "smoke",
        {"q": ["static", 4], "noise_var": ["values", 0.1], "init_evals": ["values", 0]},
    ),
}
TINY = {
    "noisy-quadratic tiny": (
        "noisy-quadratic",
        "smoke",
        {
            "dim": ["static", 2],
            "lr": ["values", 0.1],
            "momentum": ["values", 0.0],
            "noise": ["values", 1.0],
            "steps": 20,
            "seeds": 2,
        },
    )
}


def _child(workload, out: Path, calls: int, env: dict) -> dict:
    name, preset, overrides = workload
    ov = dict(overrides)
    if "steps" in ov:  # a spec field set through a one-value static axis
        ov["steps"] = ["static", ov["steps"]]
    arg = json.dumps([name, preset, ov, str(out), calls])
    r = subprocess.run(
        [sys.executable, "-c", CHILD, repr(time.time()), arg],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if r.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def _env(cache: Path | None) -> dict:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("JAXTHEORY_CACHE", "JAXTHEORY_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if cache is None:
        env["JAXTHEORY_CACHE"] = "0"
    else:
        env["JAXTHEORY_CACHE_DIR"] = str(cache)
    return env


def bench(workload) -> tuple[list[tuple[str, dict, float | None]], int, int]:
    """Rows (label, sweep row, process seconds or None) of the four cases, cache files, bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cache = tmp / "cache"
        first = _child(workload, tmp / "runs1", 1, _env(cache))
        second = _child(workload, tmp / "runs2", 2, _env(cache))
        off = _child(workload, tmp / "runs3", 1, _env(None))
        n_files = sum(1 for p in cache.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    rows = [
        ("first process, cold (cache empty)", first["rows"][0], first["rows"][0]["process_s"]),
        ("second process, cold (cache warm)", second["rows"][0], second["rows"][0]["process_s"]),
        ("warm, in-process (second call)", second["rows"][1], None),
        ("no cache (JAXTHEORY_CACHE=0)", off["rows"][0], off["rows"][0]["process_s"]),
    ]
    return rows, n_files, size


def main(argv=None) -> dict:
    a = C.parser(__doc__, tiny="a small sweep; never writes RESULTS.md").parse_args(argv)
    lines = [C.machine()]
    out = {}
    for label, w in (TINY if a.tiny else WORKLOADS).items():
        rows, n_files, size = bench(w)
        out[label] = rows
        lanes = rows[0][1]["lanes"]
        lines.append(f"{label} ({lanes} lanes; cache: {n_files} files, {size / 2**20:.1f} MiB)")
        for name, r, proc in rows:
            p = f"process {proc:6.2f} s" if proc is not None else " " * 16
            lines.append(
                f"  {name:36s} sweep {r['sweep_s']:6.2f} s  compile {r['compile_s']:6.2f} s  "
                f"{p}  hits {r['hits']:2d}  misses {r['misses']:2d}"
            )
        (_, cold, pc), (_, warm_cache, pw), (_, warm, _), _ = rows
        gap = warm_cache["sweep_s"] - warm["sweep_s"]
        lines.append(
            f"  -> cache warm vs cold: sweep {cold['sweep_s'] / warm_cache['sweep_s']:.1f}x, "
            f"process {pc / pw:.1f}x faster; the cache-warm sweep is {gap:.2f} s above "
            f"the in-process warm one: {warm_cache['compile_s']:.2f} s compile (tracing and "
            f"lowering, which give the cache key, and loading), {gap - warm_cache['compile_s']:.2f} s "
            "other first-call work of a fresh process"
        )
    print("\n".join(lines))
    if C.should_record(a):
        C.record(
            SECTION[3:],
            lines,
            intro="JAX's persistent compilation cache (`jaxtheory.compile_cache`, on by default) "
            "across processes; `sweep` = the `Experiment.sweep` call, `compile` = the "
            "engine's `compile_s`, `process` = Python start to the end of that sweep call.",
            script="benchmarks/compile_cache.py",
        )
    return out


if __name__ == "__main__":
    main()
