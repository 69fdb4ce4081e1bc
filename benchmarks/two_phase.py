"""Two-phase optimizers and compressors: DiLoCo's worker axis and compressor throughput.

(A) DiLoCo with W workers (``jaxtheory.optim.diloco``: one transform, workers on a
    leading axis, updated together under ``vmap``) against the peer a researcher would
    write first: W separate ``optax.sgd`` optimizers stepped in a Python loop (one jitted
    call per worker per step) with a jitted outer averaging step every H steps. Both run
    the same per-worker quadratic, and their final slow weights are checked to agree.
    Ours is timed two ways: a Python loop of one jitted step (same dispatch pattern as
    the peer) and one jitted ``lax.scan`` over the whole run.
(B) Compressor throughput on 10^7-element vectors (jitted ``top_k``, ``rand_k`` and
    ``qsgd`` from ``jaxtheory.optim``) against numpy peers (``np.argpartition`` top-k,
    ``Generator.choice`` random-k, numpy QSGD) and, for top-k, ``jax.lax.approx_max_k``.

Ratios are peer time / our time (> 1: ours is faster). Results are printed and, unless
``--tiny`` or ``--no-record``, recorded in ``benchmarks/RESULTS.md`` (replacing the
script's earlier section).

Usage: ``python benchmarks/two_phase.py [--tiny] [--no-record]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.optim import diloco, qsgd, rand_k, replicate_workers, slow_params, top_k

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
from _common import block  # noqa: E402

INTRO = (
    "Peers measured in the same run: (A) W separate `optax.sgd` optimizers stepped in a "
    "Python loop with a jitted outer averaging step; (B) numpy top-k (`argpartition`), "
    "random-k (`Generator.choice`), QSGD, and `jax.lax.approx_max_k`."
)


def bench_diloco(W, P, H, rounds, reps):
    eta, outer_lr = 0.05, 1.0
    rng = np.random.default_rng(0)
    a = jnp.asarray(rng.uniform(0.5, 2.0, (W, P)), jnp.float32)
    b = jnp.asarray(rng.standard_normal((W, P)), jnp.float32)
    x0 = jnp.zeros(P, jnp.float32)
    steps = H * rounds

    # ours: one transform, workers on the leading axis
    opt = diloco(optax.sgd(eta), optax.sgd(outer_lr), H, W)
    xs0 = replicate_workers(x0, W)

    @jax.jit
    def step(xs, s):
        u, s = opt.update(a * (xs - b), s, xs)
        return optax.apply_updates(xs, u), s

    @jax.jit
    def scan_run(xs, s):
        (xs, s), _ = jax.lax.scan(lambda c, _: (step(*c), None), (xs, s), None, length=steps)
        return slow_params(s)

    def ours_loop():
        xs, s = xs0, opt.init(xs0)
        for _ in range(steps):
            xs, s = step(xs, s)
        return block(slow_params(s))

    def ours_scan():
        return block(scan_run(xs0, opt.init(xs0)))

    # peer: W optax optimizers in a Python loop, jitted outer averaging every H steps
    inner = optax.sgd(eta)
    outer = optax.sgd(outer_lr)

    @jax.jit
    def worker_step(x, s, aw, bw):
        u, s = inner.update(aw * (x - bw), s, x)
        return optax.apply_updates(x, u), s

    @jax.jit
    def outer_step(slow, fast, so):
        delta = slow - jnp.mean(jnp.stack(fast), axis=0)
        u, so = outer.update(delta, so, slow)
        return optax.apply_updates(slow, u), so

    def peer():
        slow, so = x0, outer.init(x0)
        fast = [x0] * W
        states = [inner.init(x0) for _ in range(W)]
        for _r in range(rounds):
            for _ in range(H):
                for w in range(W):
                    fast[w], states[w] = worker_step(fast[w], states[w], a[w], b[w])
            slow, so = outer_step(slow, fast, so)
            fast = [slow] * W
        return block(slow)

    t = {}
    for name, fn in (("ours_loop", ours_loop), ("ours_scan", ours_scan), ("peer", peer)):
        tt = C.timed(fn, reps=reps)
        t[name + "_cold"], t[name] = tt.cold, tt.warm
        t[name + "_out"] = np.asarray(tt.result)
    np.testing.assert_allclose(t["ours_loop_out"], t["peer_out"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(t["ours_scan_out"], t["peer_out"], rtol=1e-4, atol=1e-5)
    for k in ("ours_loop_out", "ours_scan_out", "peer_out"):
        del t[k]
    return t


def np_top_k(x, k):
    idx = np.argpartition(np.abs(x), -k)[-k:]
    out = np.zeros_like(x)
    out[idx] = x[idx]
    return out


def np_rand_k(rng, x, k):
    idx = rng.choice(x.size, k, replace=False)
    out = np.zeros_like(x)
    out[idx] = x[idx]
    return out


def np_qsgd(rng, x, s):
    d = x.size
    norm = np.linalg.norm(x)
    r = s * np.abs(x) / norm
    low = np.floor(r)
    xi = low + (rng.random(d, dtype=np.float32) < r - low)
    omega = min(d / s**2, np.sqrt(d) / s)
    return np.sign(x) * xi * (norm / s / (1 + omega))


def bench_compressors(d, frac, reps):
    k = max(1, int(d * frac))
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(d).astype(np.float32)
    x = jnp.asarray(x_np)
    key = jax.random.PRNGKey(0)
    ours = {"top_k": top_k(k), "rand_k": rand_k(k), "qsgd": qsgd(1)}
    fns = {name: jax.jit(c) for name, c in ours.items()}
    approx = jax.jit(lambda v: jax.lax.approx_max_k(jnp.abs(v), k)[1])
    rows = {}
    for name, f in fns.items():
        tt = C.timed(f, key, x, reps=reps)
        rows[name] = {"ours": tt.warm, "ours_cold": tt.cold}
    # exactness of top-k against numpy (ties have probability 0 for Gaussian data)
    np.testing.assert_array_equal(np.asarray(fns["top_k"](key, x)) != 0, np_top_k(x_np, k) != 0)
    rows["top_k"]["numpy"] = C.best_of(np_top_k, reps, x_np, k)
    rows["top_k"]["approx_max_k"] = C.timed(approx, x, reps=reps).warm
    rows["rand_k"]["numpy"] = C.best_of(np_rand_k, reps, rng, x_np, k)
    rows["qsgd"]["numpy"] = C.best_of(np_qsgd, reps, rng, x_np, 1)
    return k, rows


def main(argv=None) -> dict:
    args = C.parser(__doc__).parse_args(argv)

    if args.tiny:
        sizes, H, rounds, workers, d, reps = (1000,), 2, 2, (2,), 10_000, 1
    else:
        sizes, H, rounds, workers, d, reps = (1000, 100_000), 8, 4, (4, 16), 10_000_000, 3
    lines = [
        f"(A) DiLoCo, P params, H = {H} inner steps, {rounds} rounds "
        f"(seconds, warm = best of {reps}; cold = first call incl. compile)"
    ]
    dl = {}
    for P, W in [(P, W) for P in sizes for W in workers]:
        t = bench_diloco(W, P, H, rounds, reps)
        dl[(P, W)] = t
        lines.append(
            f"  P={P:7d} W={W:3d}: ours loop {t['ours_loop']:8.4f}  ours scan {t['ours_scan']:8.4f}  "
            f"peer (W optimizers, Python loop) {t['peer']:8.4f}  ->  peer/ours "
            f"{C.ratio(t['peer'], t['ours_loop']):6.1f}x (loop), "
            f"{C.ratio(t['peer'], t['ours_scan']):6.1f}x (scan); "
            f"cold: ours loop {t['ours_loop_cold']:.2f}, scan {t['ours_scan_cold']:.2f}, "
            f"peer {t['peer_cold']:.2f}"
        )
    k, comp = bench_compressors(d, 0.01, reps)
    lines.append(
        f"(B) compressors on d = {d:,} float32, k = {k:,} (1%), qsgd s = 1 "
        f"(seconds, best of {reps}; Melem/s = d / time / 1e6)"
    )
    for name, r in comp.items():
        peers = "  ".join(
            f"{p} {v:8.4f} (ratio {C.ratio(v, r['ours']):5.2f}x)"
            for p, v in r.items()
            if p not in ("ours", "ours_cold")
        )
        lines.append(
            f"  {name:6s}: ours {r['ours']:8.4f} ({d / r['ours'] / 1e6:8.1f} Melem/s, "
            f"cold {r['ours_cold']:.2f})  {peers}"
        )
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record("two_phase", lines, intro=INTRO, script="two_phase.py")
    return {"diloco": dl, "compressors": comp, "k": k}


if __name__ == "__main__":
    main()
