"""GP bandits: the vmapped simulator against a numpy per-replicate loop, and the bordered
posterior update against a direct dense solve.

(A) Policy sweep. GP-BTS on the ``gp-batch-bandits`` smoke setting (2-D 15×15 grid,
SE ℓ = 0.2, N = 128 evaluations, Q ∈ {1, 4, 16}, σ² ∈ {0, 0.1}) for R replicates:
``jit(vmap(run))`` (float32) against the same policy written the usual numpy/scipy way
(float64): per replicate a Python loop over rounds that refactors
:math:`K_{DD} + \\sigma^2 I` with :func:`scipy.linalg.cho_factor` every round and draws Q
posterior samples by Matheron's rule from one prior Cholesky factor. The numpy loop's
cost is linear in R, so it is timed on a few replicates and scaled to R (said in the
output). BoTorch, the issue's peer, is not installed (and not required); this numpy
loop stands in for it.

(B) Posterior update. Feeding m observations one at a time into the posterior mean and
variance on n candidates: the bordered Cholesky update of
:mod:`jaxtheory.sims.gp_bandits.posterior` (jitted ``lax.scan``, O(mn) per step) against
a direct dense solve after every observation (numpy, O(m³ + m²n) per step).

Usage: ``python benchmarks/gp_bandits.py [--tiny] [--no-record]``. Ratios are peer time
/ our time (> 1: ours is faster) and are appended to ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg

from jaxtheory.sims import gp_bandits as gpb

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine() -> str:
    dev = jax.devices()[0]
    kind = getattr(dev, "device_kind", dev.platform)
    try:
        load = f"; load average {os.getloadavg()[0]:.1f} (shared machine)"
    except OSError:  # pragma: no cover
        load = ""
    return f"{platform.machine()} {os.cpu_count()} cores, {dev.platform} ({kind}), jax {jax.__version__}{load}"


def numpy_bts(K, f, q, budget, noise_var, rng):
    """GP-BTS, one replicate, the usual numpy way: refactor every round, Matheron draws."""
    n = K.shape[0]
    S = np.linalg.cholesky(K)
    idx, y = [], []
    for _ in range(budget // q):
        D = np.asarray(idx, int)
        if D.size:
            c = scipy.linalg.cho_factor(K[np.ix_(D, D)] + max(noise_var, 1e-10) * np.eye(D.size))
        picks = []
        for _ in range(q):
            F = S @ rng.standard_normal(n)
            g = F
            if D.size:
                r = np.asarray(y) - F[D] - np.sqrt(noise_var) * rng.standard_normal(D.size)
                g = F + K[:, D] @ scipy.linalg.cho_solve(c, r)
            picks.append(int(np.argmax(g)))
        idx += picks
        y += list(f[picks] + np.sqrt(noise_var) * rng.standard_normal(q))
    return np.cumsum(f.max() - f[np.asarray(idx)])


def bench_policy(tiny: bool) -> tuple[list[str], dict]:
    n, dim, budget = (16, 2, 16) if tiny else (225, 2, 128)
    qs = (2,) if tiny else (1, 4, 16)
    fns = 4 if tiny else 32
    noises, reps = (0.0, 0.1), 3  # 2 x 32 x 3 = 192 replicates: the smoke preset's lanes per Q
    lanes = [dict(gpb.DEFAULT_PARAMS, noise_var=s2, init_evals=0, fn_seed=fs)
             for s2 in noises for fs in range(fns) for _ in range(reps)]
    R = len(lanes)
    p = {k: jnp.asarray([l[k] for l in lanes]) for k in gpb.DEFAULT_PARAMS}
    keys = jax.random.split(jax.random.key(0), R)
    X = gpb.candidates("grid", n, dim)
    K = np.asarray(gpb.kernel_matrix("se", X, X, 0.2, 1.0), np.float64) + 1e-5 * np.eye(n)
    lines = [f"(A) GP-BTS, {n} candidates, N={budget}, R={R} replicates per Q "
             f"(σ² ∈ {noises}); peer: numpy/scipy per-replicate loop (float64), timed on "
             f"{2 if tiny else 6} replicates and scaled to R"]
    out = {}
    rng = np.random.default_rng(0)
    for q in qs:
        spec = gpb.GPBanditSpec(policy="bts", q=q, budget=budget, n=n, dim=dim,
                                lengthscale=0.2, variance=1.0)
        fn = jax.jit(jax.vmap(functools.partial(gpb.run, spec)))
        t0 = time.perf_counter()
        jax.block_until_ready(fn(p, keys))
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        jax.block_until_ready(fn(p, keys))
        warm = time.perf_counter() - t0
        few = 2 if tiny else 6
        t0 = time.perf_counter()
        for j in range(few):
            f = np.linalg.cholesky(K) @ rng.standard_normal(n)
            numpy_bts(K, f, q, budget, lanes[j % R]["noise_var"], rng)
        peer = (time.perf_counter() - t0) / few * R
        out[q] = (warm, cold, peer)
        lines.append(f"  Q={q:>2}: ours warm {warm:8.3f} s (cold {cold:6.2f} s incl. compile)   "
                     f"numpy loop {peer:8.2f} s   ->  peer/ours {peer / warm:7.1f}x warm, "
                     f"{peer / cold:6.1f}x cold   ({R * budget // q} replicate-rounds)")
    return lines, out


def bench_update(tiny: bool) -> tuple[list[str], tuple]:
    n, m = (64, 16) if tiny else (1024, 256)
    X = gpb.candidates("sobol", n, 2)
    K = np.asarray(gpb.kernel_matrix("matern52", X, X, 0.2, 1.0), np.float64) + 1e-5 * np.eye(n)
    rng = np.random.default_rng(1)
    idx = rng.integers(0, n, m)
    y = rng.standard_normal(m)
    s2 = 0.01

    @jax.jit
    def ours(K, idx, y):
        def step(st, j):
            st = gpb.observe(st, j, idx[j], K[idx[j]], y[j], s2, 5e-6)
            return st, (st.mean[0], st.var[0])
        return jax.lax.scan(step, gpb.init_state(jnp.diag(K), m), jnp.arange(m))

    Kj, ij, yj = jnp.asarray(K, jnp.float32), jnp.asarray(idx), jnp.asarray(y, jnp.float32)
    t0 = time.perf_counter()
    st, _ = jax.block_until_ready(ours(Kj, ij, yj))
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    st, _ = jax.block_until_ready(ours(Kj, ij, yj))
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    for j in range(1, m + 1):
        mu, cov = gpb.dense_posterior(K, idx[:j], y[:j], s2)
    peer = time.perf_counter() - t0
    err = float(np.abs(np.asarray(st.mean) - mu).max())
    return [f"(B) posterior update, n={n} candidates, m={m} sequential observations "
            f"(mean and variance after each); peer: numpy dense solve after each (float64)",
            f"  bordered updates (jit scan, float32) {warm:8.4f} s (cold {cold:5.2f} s)   dense solves "
            f"{peer:8.3f} s   ->  peer/ours {peer / warm:7.1f}x warm, {peer / cold:5.1f}x cold   "
            f"(max |mean diff| {err:.1e})"], (warm, cold, peer)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="tiny sizes: a smoke test")
    ap.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    args = ap.parse_args(argv)
    la, pol = bench_policy(args.tiny)
    lb, upd = bench_update(args.tiny)
    lines = [machine()] + la + lb
    print("\n".join(lines))
    if not args.no_record and not args.tiny:
        with RESULTS.open("a") as f:
            f.write(f"\n## gp_bandits ({time.strftime('%Y-%m-%d')})\n\nPeers measured in the same "
                    "run: a numpy/scipy per-replicate loop of the same GP-BTS policy (BoTorch, the "
                    "issue's peer, is not installed), and a dense numpy solve per observation for "
                    "the posterior update. Ratio = peer time / our time (> 1: ours is faster).\n\n"
                    "```text\n" + "\n".join(lines) + "\n```\n")
    return {"policy": pol, "update": upd, "lines": lines}


if __name__ == "__main__":
    main()
