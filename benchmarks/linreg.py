"""Linear-regression simulators: exact recursion vs numpy, vmapped grid vs loop, Monte Carlo rate.

Three measurements, one process, ratios against a named peer measured in the same run:

(a) the exact LA recursion (:mod:`jaxtheory.sims.linreg.exact`) over a G × G grid of
    (η, α) as one ``jit(vmap(run))`` program, against a plain numpy recursion of the same
    per-step math vectorized over modes and grid points (Python loop over steps; timed on
    a slice of the steps and extrapolated): mode-steps per second;
(b) the same vmapped program against a Python loop calling the jitted single-config
    run once per grid point;
(c) Monte Carlo LA runs (:mod:`jaxtheory.sims.linreg.montecarlo`): lanes × D × steps/s.

Default sizes are the issue's (D = 10⁵ modes, 10⁴ steps, 32 × 32 grid: meant for an
accelerator); ``--tiny`` runs in seconds. Results are appended to ``RESULTS.md``.

Usage: ``python benchmarks/linreg.py [--tiny] [--cpu] [--no-record]``.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import montecarlo as mc

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine() -> str:
    dev = jax.devices()[0]
    kind = getattr(dev, "device_kind", dev.platform)
    return f"{platform.machine()} {os.cpu_count()} cores, {dev.platform} ({kind}), jax {jax.__version__}"


def numpy_la(lam, t2, etas, alphas, k, B, s2, steps):
    """LA exact recursion in numpy, vectorized over (grid, modes); returns final risks."""
    eta, alpha = etas[:, None], alphas[:, None]
    d = np.broadcast_to(t2, (len(etas), len(lam))).copy()
    A, pe = d.copy(), np.ones_like(d)
    for t in range(steps):
        nvar = (lam**2 * A + lam * ((A @ lam)[:, None] + s2)) / B
        q = 1 - eta * lam
        A = q * q * A + eta**2 * nvar
        pe = q * pe
        if (t + 1) % k == 0:
            h = 1 - pe
            d = (1 - alpha * h) ** 2 * d + alpha**2 * (A - pe * pe * d)
            A, pe = d.copy(), np.ones_like(d)
    return 0.5 * d @ lam


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="D = 256, 64 steps, 4 × 4 grid")
    ap.add_argument("--cpu", action="store_true", help="D = 4096, 1000 steps, 8 × 8 grid")
    ap.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    args = ap.parse_args(argv)
    if args.tiny:
        D, T, G, mcD, mcT, mcL = 256, 64, 4, 64, 64, 16
    elif args.cpu:
        D, T, G, mcD, mcT, mcL = 4096, 1000, 8, 512, 1000, 64
    else:
        D, T, G, mcD, mcT, mcL = 100_000, 10_000, 32, 4096, 10_000, 1024
    k, B = 4, 4
    spec = ex.ExactSpec(dim=D, steps=T, num_log=16, algorithm="lookahead")
    base = dict(ex.EXACT_DEFAULT_PARAMS, sigma2=0.1, k=k, batch=B)
    etas = np.geomspace(0.05, 1.0, G).astype(np.float32)
    alphas = np.linspace(0.2, 1.0, G).astype(np.float32)
    ee, aa = (x.ravel() for x in np.meshgrid(etas, alphas, indexing="ij"))
    grid = {n: jnp.full(G * G, v) for n, v in base.items()}
    grid["lr"], grid["alpha"] = jnp.asarray(ee), jnp.asarray(aa)

    vrun = jax.jit(jax.vmap(lambda p: ex.run(spec, p)["final_risk"]))
    t0 = time.perf_counter(); out = jax.block_until_ready(vrun(grid)); cold = time.perf_counter() - t0
    t0 = time.perf_counter(); out = jax.block_until_ready(vrun(grid)); warm = time.perf_counter() - t0
    rate_jax = G * G * D * T / warm

    lam, t2 = (np.asarray(v, np.float32) for v in
               jax.jit(lambda: ex.problem("power_law", D, base))())
    np_steps = min(T, max(k, (20 if not args.tiny else T) // k * k))
    t0 = time.perf_counter()
    ref = numpy_la(lam, t2, ee, aa, k, B, 0.1, np_steps)
    np_time = time.perf_counter() - t0
    rate_np = G * G * D * np_steps / np_time
    if np_steps == T:  # the numpy peer also checks the result
        np.testing.assert_allclose(np.asarray(out), ref, rtol=2e-3)

    one = jax.jit(lambda p: ex.run(spec, p)["final_risk"])
    single = {n: v[0] for n, v in grid.items()}
    jax.block_until_ready(one(single))
    n_loop = min(G * G, 4)
    t0 = time.perf_counter()
    for i in range(n_loop):
        jax.block_until_ready(one({n: v[i] for n, v in grid.items()}))
    loop = (time.perf_counter() - t0) / n_loop * G * G

    mspec = mc.MonteCarloSpec(dim=mcD, batch=B, steps=mcT, num_log=16, algorithm="lookahead",
                              sync_period=k)
    mrun = jax.jit(jax.vmap(lambda kk: mc.run(mspec, dict(mc.MC_DEFAULT_PARAMS, sigma2=0.1), kk)["final_risk"]))
    keys = jax.random.split(jax.random.key(0), mcL)
    jax.block_until_ready(mrun(keys))
    t0 = time.perf_counter(); jax.block_until_ready(mrun(keys)); mc_time = time.perf_counter() - t0
    mc_rate = mcL * mcD * mcT / mc_time

    res = {"exact_vs_numpy": rate_jax / rate_np, "vmap_vs_loop": loop / warm, "mc_rate": mc_rate,
           "rate_jax": rate_jax, "rate_np": rate_np, "cold_s": cold, "warm_s": warm}
    lines = [
        f"exact LA recursion, D={D}, T={T}, grid {G}x{G}: jit(vmap) {rate_jax:.3g} mode-steps/s "
        f"(warm {warm:.3g} s, cold {cold:.3g} s); numpy {rate_np:.3g} mode-steps/s "
        f"(on {np_steps} steps) -> ratio {rate_jax / rate_np:.3g}x",
        f"vmapped grid vs Python loop of jitted runs (loop extrapolated from {n_loop}): "
        f"{loop / warm:.3g}x",
        f"Monte Carlo LA (k={k}, B={B}), {mcL} lanes x D={mcD} x {mcT} steps: "
        f"{mc_rate:.3g} lane-dim-steps/s",
    ]
    print("\n".join(lines))
    if not args.no_record:
        size = "tiny" if args.tiny else ("cpu" if args.cpu else "full")
        text = (f"\n## linreg ({size}): exact recursion vs numpy, vmap vs loop, Monte Carlo\n\n"
                f"Machine: {machine()}. Script: `benchmarks/linreg.py`.\n\n"
                + "\n".join(f"- {x}" for x in lines) + "\n")
        with open(RESULTS, "a") as f:
            f.write(text)
    return res


if __name__ == "__main__":
    main()
