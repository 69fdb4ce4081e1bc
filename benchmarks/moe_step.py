"""MoE training step and LR × seed sweeps: ours against PyTorch and against a Python loop.

(A) One Adam training step of the MLP-MoE of ``jaxtheory.sims.moe`` (MSSP, regime III,
    per-layer learning rates and ε from the tables) at a fixed size, jitted, against the
    same model and optimizer written in PyTorch on CPU (``torch.optim.Adam`` with one
    parameter group per layer). Skipped with a message when ``torch`` is not installed.
(B) An LR × seed sweep at fixed width: one ``jit(vmap(run))`` program against the same
    runs one after another (a Python loop over the jitted single run). Warm times
    (compiled programs reused); cold times include compiles.

Ratios are peer time / our time (> 1: ours is faster). Results are printed and, unless
``--tiny`` or ``--no-record``, appended to ``benchmarks/RESULTS.md``.

Usage: ``python benchmarks/moe_step.py [--tiny] [--no-record]``.
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
import optax

from jaxtheory.sims import moe

RESULTS = Path(__file__).with_name("RESULTS.md")


def machine() -> str:
    dev = jax.devices()[0]
    kind = getattr(dev, "device_kind", dev.platform)
    return f"{platform.machine()} {os.cpu_count()} cores, {dev.platform} ({kind}), jax {jax.__version__}"


def best_of(fn, reps):
    best = np.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def bench_step(width, batch, n_steps, reps):
    spec = moe.MoESpec(width=width, regime="III", rules=("mssp",), optimizer="adam")
    pz = moe.spec_parameterization(spec)
    model = moe.spec_model(spec)
    d = moe.spec_dims(spec)
    p = moe.init_params(pz, d["d_out"], jax.random.key(0))
    p["W_out"] = 0.01 * jnp.ones_like(p["W_out"])  # non-zero, so every layer gets gradients
    lr, eps = 0.16, 1e-8
    tx = moe.moe_optimizer(pz, lr, eps=eps)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, d["d_in"])).astype(np.float32)
    y = rng.normal(size=(batch, d["d_out"])).astype(np.float32)

    def loss_fn(p):
        return moe.mse(moe.moe_forward(model, p, jnp.asarray(x))[0], jnp.asarray(y))

    @jax.jit
    def steps(p, s):
        def body(c, _):
            p, s = c
            g = jax.grad(loss_fn)(p)
            u, s = tx.update(g, s, p)
            return (optax.apply_updates(p, u), s), None
        return jax.lax.scan(body, (p, s), None, length=n_steps)[0]

    @jax.jit
    def one_step(p, s):
        g = jax.grad(loss_fn)(p)
        u, s = tx.update(g, s, p)
        return optax.apply_updates(p, u), s

    s0 = tx.init(p)
    t0 = time.perf_counter()
    jax.block_until_ready(one_step(p, s0))
    cold = time.perf_counter() - t0

    def run_loop():
        q, s = p, s0
        for _ in range(n_steps):
            q, s = one_step(q, s)
        jax.block_until_ready(q)

    jax.block_until_ready(steps(p, s0))
    ours_loop = best_of(run_loop, reps) / n_steps
    ours_scan = best_of(lambda: jax.block_until_ready(steps(p, s0)), reps) / n_steps
    out = {"ours_loop": ours_loop, "ours_scan": ours_scan, "cold": cold, "dims": d}
    try:
        import torch
    except ImportError:
        print("(A) torch is not installed: PyTorch peer skipped")
        return out
    torch.set_num_threads(max(1, int(os.environ.get("OMP_NUM_THREADS", os.cpu_count()))))
    tp = {k: torch.tensor(np.asarray(v), requires_grad=True) for k, v in p.items()}
    lrs, epss = pz.per_layer("lr_mult"), pz.per_layer("eps_mult")
    opt = torch.optim.Adam([{"params": [tp[k]], "lr": lr * lrs[k], "eps": eps * epss[k]}
                            for k in moe.LAYERS], betas=(0.9, 0.999))
    tx_, ty = torch.tensor(x), torch.tensor(y)
    M, N, N_e = d["M"], d["N"], d["N_e"]
    gelu = torch.nn.GELU()

    def torch_step():
        opt.zero_grad(set_to_none=True)
        h = gelu(tx_ @ tp["W_in"])
        g = torch.sigmoid(h @ tp["Q"]) * (moe.M_BASE / M)
        e = gelu(h @ tp["W1"].permute(1, 0, 2).reshape(N, M * N_e)).reshape(-1, M, N_e)
        agg = (g[:, :, None] * e).reshape(-1, M * N_e) @ tp["W2"].reshape(M * N_e, N)
        loss = torch.mean((agg @ tp["W_out"] - ty) ** 2)
        loss.backward()
        opt.step()

    torch_step()
    peer = best_of(lambda: [torch_step() for _ in range(n_steps)], reps) / n_steps
    out["torch"] = peer
    return out


def bench_sweep(width, steps, n_lr, n_seed, reps):
    spec = moe.MoESpec(width=width, regime="III", rules=("mssp",), steps=steps, batch_size=32,
                       n_eval=256, n_probe=32, num_log=4)
    lrs = 2.0 ** np.arange(n_lr, dtype=np.float32) / 2 ** (n_lr // 2)
    lr_grid = np.repeat(lrs, n_seed)
    keys = jax.vmap(jax.random.key)(jnp.arange(n_lr * n_seed))
    params = {"lr_scale": jnp.asarray(lr_grid), "eps": jnp.full(lr_grid.shape, 1e-8)}
    vrun = jax.jit(jax.vmap(lambda p, k: moe.run(spec, p, k)))
    srun = jax.jit(lambda p, k: moe.run(spec, p, k))
    t0 = time.perf_counter()
    outv = jax.block_until_ready(vrun(params, keys))
    cold_v = time.perf_counter() - t0
    t0 = time.perf_counter()

    def loop():
        res = []
        for i in range(len(lr_grid)):
            res.append(srun({"lr_scale": params["lr_scale"][i], "eps": params["eps"][i]},
                            keys[i]))
        return jax.block_until_ready(res)

    outs = loop()
    cold_l = time.perf_counter() - t0
    diff = max(float(jnp.nanmax(jnp.abs(outv["final_loss"][i] - o["final_loss"])))
               for i, o in enumerate(outs))
    warm_v = best_of(lambda: jax.block_until_ready(vrun(params, keys)), reps)
    warm_l = best_of(loop, reps)
    return {"vmap": warm_v, "loop": warm_l, "vmap_cold": cold_v, "loop_cold": cold_l,
            "lanes": len(lr_grid), "max_diff": diff, "dims": moe.spec_dims(spec)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="tiny sizes: a smoke test (seconds)")
    ap.add_argument("--no-record", action="store_true", help="do not append to RESULTS.md")
    args = ap.parse_args(argv)
    if args.tiny:
        w_step, batch, n_steps, reps = 16, 8, 2, 1
        w_sweep, steps, n_lr, n_seed = 16, 3, 2, 1
    else:
        w_step, batch, n_steps, reps = 256, 64, 20, 5
        w_sweep, steps, n_lr, n_seed = 64, 100, 8, 4
    a = bench_step(w_step, batch, n_steps, reps)
    d = a["dims"]
    lines = [f"{machine()}; OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}; "
             f"load average {os.getloadavg()[0]:.1f} at the end (shared machine)",
             f"(A) one Adam step, MSSP regime III, N={d['N']} M={d['M']} N_e={d['N_e']} "
             f"d_in={d['d_in']} batch={batch} (ms/step, best of {reps} x {n_steps} steps)"]
    line = (f"  ours (jit step, Python loop) {1e3 * a['ours_loop']:8.3f}   ours (lax.scan) "
            f"{1e3 * a['ours_scan']:8.3f}   (cold {a['cold']:.2f} s)")
    if "torch" in a:
        line += (f"   PyTorch (eager, torch.optim.Adam) {1e3 * a['torch']:8.3f}   ->  peer/ours "
                 f"{a['torch'] / a['ours_loop']:.2f}x (loop), {a['torch'] / a['ours_scan']:.2f}x (scan)")
    else:
        line += "   PyTorch peer skipped (torch not installed)"
    lines.append(line)
    b = bench_sweep(w_sweep, steps, n_lr, n_seed, reps=max(1, reps // 2))
    db = b["dims"]
    lines.append(f"(B) LR x seed sweep, {b['lanes']} lanes ({n_lr} LRs x {n_seed} seeds), MSSP "
                 f"regime III N={db['N']} M={db['M']} N_e={db['N_e']}, {steps} steps of batch 32 "
                 f"+ diagnostics (seconds)")
    lines.append(f"  jit(vmap(run)) {b['vmap']:8.3f} (cold {b['vmap_cold']:.2f})   Python loop of "
                 f"jit(run) {b['loop']:8.3f} (cold {b['loop_cold']:.2f})   ->  loop/vmap "
                 f"{b['loop'] / b['vmap']:.2f}x warm, {b['loop_cold'] / b['vmap_cold']:.2f}x cold; "
                 f"max |final-loss diff| {b['max_diff']:.1e}")
    print("\n".join(lines))
    if not args.no_record and not args.tiny:
        with RESULTS.open("a") as f:
            f.write(
                f"\n## moe_step ({time.strftime('%Y-%m-%d')})\n\n"
                "Peers measured in the same run: (A) the same MLP-MoE and per-layer Adam in "
                "PyTorch (eager, CPU, `torch.optim.Adam` with one parameter group per layer); "
                "(B) the same runs one after another (Python loop of the jitted single run). "
                "Ratio = peer time / our time (> 1: ours is faster). Goals (issue 11): "
                "(A) ≥ 1.5×, (B) ≥ 3×.\n\n```text\n" + "\n".join(lines) + "\n```\n")
    return {"step": a, "sweep": b}


if __name__ == "__main__":
    main()
