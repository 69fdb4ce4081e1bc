"""LMO-geometry step costs against named peers, measured in one run; prints ratios.

1. ``jaxtheory.optim.muon`` update vs ``optax.contrib.muon`` (same pytree, jitted).
2. Newton–Schulz polar (5 quintic steps) vs exact SVD polar, square sizes 64 … 2048.
3. iMuon fixed-rank direction (balanced metric, exact SVD) vs Muon on the factors
   (Euclidean metric, same code path), m = n, rank r.

Usage: ``python benchmarks/lmo_step.py [--tiny]`` (``--tiny`` runs in seconds).
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim import fixed_rank_direction, muon, polar_newton_schulz, polar_svd


def timeit(fn, *args, reps=5):
    """Median wall time (s) of a jitted call after one warm-up (compile) call."""
    jax.block_until_ready(fn(*args))
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        jax.block_until_ready(fn(*args))
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def bench_muon(width, reps):
    k = jax.random.split(jax.random.key(0), 4)
    params = {"w1": jax.random.normal(k[0], (width, 4 * width)),
              "w2": jax.random.normal(k[1], (4 * width, width)),
              "b": jnp.zeros(width), "ln": jnp.ones(width)}
    grads = jax.tree.map(lambda x: 0.01 * x + 0.1, params)
    out = {}
    for name, tx in (("jaxtheory", muon(0.02)), ("optax", optax.contrib.muon(0.02))):
        state = tx.init(params)
        step = jax.jit(lambda g, s, p, tx=tx: tx.update(g, s, p))
        out[name] = timeit(step, grads, state, params, reps=reps)
    return out


def bench_polar(n, reps):
    x = jax.random.normal(jax.random.key(1), (n, n))
    ns = jax.jit(polar_newton_schulz)
    svd = jax.jit(polar_svd)
    return {"newton_schulz": timeit(ns, x, reps=reps), "svd": timeit(svd, x, reps=reps)}


def bench_fixed_rank(n, r, reps):
    k = jax.random.split(jax.random.key(2), 3)
    b, a = jax.random.normal(k[0], (n, r)), jax.random.normal(k[1], (r, n))
    gx = jax.random.normal(k[2], (n, n))
    gb, ga = gx @ a.T, b.T @ gx
    out = {}
    for name, metric in (("imuon", "balanced"), ("muon_factors", "euclidean")):
        f = jax.jit(lambda gb, ga, b, a, metric=metric: fixed_rank_direction(
            gb, ga, b, a, "spectral", metric=metric))
        out[name] = timeit(f, gb, ga, b, a, reps=reps)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiny", action="store_true", help="small sizes, a few seconds")
    args = ap.parse_args(argv)
    reps = 3 if args.tiny else 7
    widths = [32] if args.tiny else [128, 512]
    sizes = [64, 128] if args.tiny else [64, 256, 1024, 2048]
    ranks = [(128, 4)] if args.tiny else [(1000, 8), (4000, 16)]

    print(f"backend: {jax.default_backend()}, devices: {jax.devices()}")
    print("\n[1] muon update vs optax.contrib.muon (MLP block: d x 4d, 4d x d, 2 vectors)")
    for w in widths:
        t = bench_muon(w, reps)
        print(f"  d={w:5d}  jaxtheory {t['jaxtheory'] * 1e3:9.3f} ms   optax {t['optax'] * 1e3:9.3f} ms"
              f"   ratio {t['jaxtheory'] / t['optax']:.3f}")
    print("\n[2] polar factor: Newton-Schulz (5 quintic steps) vs exact SVD")
    for n in sizes:
        t = bench_polar(n, reps)
        print(f"  n={n:5d}  NS {t['newton_schulz'] * 1e3:9.3f} ms   SVD {t['svd'] * 1e3:9.3f} ms"
              f"   SVD/NS {t['svd'] / t['newton_schulz']:.2f}")
    print("\n[3] iMuon fixed-rank direction vs Muon on the factors (exact SVD polar)")
    for n, r in ranks:
        t = bench_fixed_rank(n, r, reps)
        print(f"  m=n={n:5d} r={r:3d}  iMuon {t['imuon'] * 1e3:9.3f} ms   Muon-factors "
              f"{t['muon_factors'] * 1e3:9.3f} ms   overhead {t['imuon'] / t['muon_factors']:.3f}")


if __name__ == "__main__":
    main()
