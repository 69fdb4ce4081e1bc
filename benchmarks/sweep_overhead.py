"""Sweep overhead: the engine against three ways researchers run the same sweep.

A 1024-lane sweep of the demonstration run function (``jaxtheory.sims.quadratic.run``,
dimension 16, 1000 steps) is timed four ways in one process:

(a) through the engine, store included (chunk files, ``results.nc``, manifest);
(b) a Python loop over configs of one jitted whole-run function;
(c) a Python loop over steps calling a jitted step function (a few configs timed,
    extrapolated to all lanes);
(d) one hand-written ``jit(vmap(run))`` call with no engine around it.

Each is timed cold (compile included) and warm (the compiled program reused; for the
engine a second sweep with other dynamic values into a fresh directory). The ratios are
printed and recorded, with the machine, in ``benchmarks/RESULTS.md`` (its section is
replaced on a re-run).

Usage: ``python benchmarks/sweep_overhead.py [--tiny] [--no-record]``.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.sims import quadratic as quad
from jaxtheory.sweep import Space, lane_key_data, log, make_key, sweep, values

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

INTRO = ("Peers measured in the same run: (b) Python loop over configs of a jitted run, "
         "(c) Python loop over steps of a jitted step (extrapolated from a few configs), "
         "(d) bare `jit(vmap(run))`; (a) is the engine, store included. Warm = the compiled "
         "program reused with other dynamic values (for the engine: a second sweep into a "
         "fresh directory).")


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="16 lanes, 50 steps: a smoke test (never records)")
    args = ap.parse_args(argv)

    lanes_lr, seeds = (8, 2) if args.tiny else (64, 16)  # 64 lr × 16 seeds = 1024 lanes
    spec = quad.QuadraticSpec(dim=16, steps=50 if args.tiny else 1000)
    params = dict(quad.DEFAULT_PARAMS)
    space = Space(lr=log(0.01, 1.0, num=lanes_lr), momentum=values(0.9), seeds=seeds)
    space2 = Space(lr=log(0.02, 1.5, num=lanes_lr), momentum=values(0.9), seeds=seeds)
    n = lanes_lr * seeds
    lrs = np.repeat(np.geomspace(0.01, 1.0, lanes_lr), seeds).astype(np.float32)
    keys = np.stack([lane_key_data({"lr": lr, "momentum": 0.9}, s)
                     for lr in np.geomspace(0.01, 1.0, lanes_lr) for s in range(seeds)])
    batch = {k: np.full(n, v, np.float32) for k, v in params.items()}
    batch["lr"] = lrs
    batch["momentum"] = np.full(n, 0.9, np.float32)
    t = {}

    # (a) the engine, store included: cold with `space`, warm with `space2`
    with tempfile.TemporaryDirectory() as tmp:
        calls = itertools.count()

        def engine():
            i = next(calls)
            return sweep(quad.run, spec, space if i == 0 else space2, params, quiet=True,
                         run_dir=Path(tmp) / f"a{i}", metric_dims={"risk": ("step",)})

        ta = C.timed(engine, reps=1)
        t["a_cold"], t["a_warm"] = ta.cold, ta.warm

    # (d) one hand-written jit(vmap(run))
    def lane(p, kd):
        return quad.run(spec, p, make_key(kd))

    vfn = jax.jit(jax.vmap(lane))
    batch2 = dict(batch, lr=batch["lr"] * 1.5)
    calls = itertools.count()
    td = C.timed(lambda: vfn(batch if next(calls) == 0 else batch2, keys), reps=1)
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

    few = 2 if args.tiny else 4
    x0 = jnp.ones(spec.dim) / jnp.sqrt(spec.dim)
    s0 = optax.sgd(0.1, momentum=0.9).init(x0)
    t_compile_c = C.timed(step, x0, s0, jnp.float32(0.1), jnp.float32(0.9),
                          make_key(jnp.asarray(keys[0])), 0, reps=0).cold

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
        "a_vs_c_warm": r(t["c_warm"], t["a_warm"]), "a_vs_c_cold": r(t["c_cold"], t["a_cold"]),
        "a_vs_b_warm": r(t["b_warm"], t["a_warm"]), "a_vs_b_cold": r(t["b_cold"], t["a_cold"]),
        "d_over_a_warm": r(t["d_warm"], t["a_warm"]), "d_over_a_cold": r(t["d_cold"], t["a_cold"]),
    }
    lines = [
        f"lanes {n}, dim {spec.dim}, steps {spec.steps}",
        "seconds (cold = compile included, warm = compiled program reused):",
        *(f"  ({w}) {'cold':>5} {t[w + '_cold']:9.3f}   warm {t[w + '_warm']:9.3f}" for w in "abcd"),
        f"engine vs step loop (c):   {ratios['a_vs_c_warm']:8.1f}x warm, {ratios['a_vs_c_cold']:8.1f}x cold (target >= 500x)",
        f"engine vs config loop (b): {ratios['a_vs_b_warm']:8.1f}x warm, {ratios['a_vs_b_cold']:8.1f}x cold (target >= 4x)",
        f"bare jit(vmap) / engine:   {ratios['d_over_a_warm']:8.2f}  warm, {ratios['d_over_a_cold']:8.2f}  cold (target >= 0.8)",
    ]
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record("sweep_overhead", lines, intro=INTRO, script="sweep_overhead.py")
    return {"times": t, "ratios": ratios}


if __name__ == "__main__":
    main()
