"""MoE training step and LR × seed sweeps: ours against PyTorch and against a Python loop.

(A) One Adam training step of the MLP-MoE of ``jaxtheory.sims.moe`` (MSSP, regime III,
    per-layer learning rates and ε from the tables) at a fixed size, jitted, against the
    same model and optimizer written in PyTorch on CPU (``torch.optim.Adam`` with one
    parameter group per layer). Skipped with a message when ``torch`` is not installed.
(B) An LR × seed sweep at fixed width: one ``jit(vmap(run))`` program against the same
    runs one after another (a Python loop over the jitted single run). Warm times
    (compiled programs reused); cold times include compiles.

Ratios are peer time / our time (> 1: ours is faster). Results are printed and, unless
``--tiny`` or ``--no-record``, recorded in ``benchmarks/RESULTS.md`` (replacing the
script's earlier section).

Usage: ``python benchmarks/moe_step.py [--tiny] [--no-record]``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.sims import moe

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402
from _common import best_of  # noqa: E402

INTRO = (
    "Peers measured in the same run: (A) the same MLP-MoE and per-layer Adam in PyTorch "
    "(eager, CPU, `torch.optim.Adam` with one parameter group per layer); (B) the same "
    "runs one after another (Python loop of the jitted single run). Our goals: "
    "(A) >= 1.5x, (B) >= 3x."
)


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
    cold = C.timed(one_step, p, s0, reps=0).cold

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
    opt = torch.optim.Adam(
        [{"params": [tp[k]], "lr": lr * lrs[k], "eps": eps * epss[k]} for k in moe.LAYERS], betas=(0.9, 0.999)
    )
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
    spec = moe.MoESpec(
        width=width,
        regime="III",
        rules=("mssp",),
        steps=steps,
        batch_size=32,
        n_eval=256,
        n_probe=32,
        num_log=4,
    )
    lrs = 2.0 ** np.arange(n_lr, dtype=np.float32) / 2 ** (n_lr // 2)
    lr_grid = np.repeat(lrs, n_seed)
    keys = jax.vmap(jax.random.key)(jnp.arange(n_lr * n_seed))
    params = {"lr_scale": jnp.asarray(lr_grid), "eps": jnp.full(lr_grid.shape, 1e-8)}
    vrun = jax.jit(jax.vmap(lambda p, k: moe.run(spec, p, k)))
    srun = jax.jit(lambda p, k: moe.run(spec, p, k))

    def loop():
        res = []
        for i in range(len(lr_grid)):
            res.append(srun({"lr_scale": params["lr_scale"][i], "eps": params["eps"][i]}, keys[i]))
        return jax.block_until_ready(res)

    tv = C.timed(vrun, params, keys, reps=reps)
    tl = C.timed(loop, reps=reps)
    outv, outs = tv.result, tl.result
    cold_v, cold_l, warm_v, warm_l = tv.cold, tl.cold, tv.warm, tl.warm
    diff = max(
        float(jnp.nanmax(jnp.abs(outv["final_loss"][i] - o["final_loss"]))) for i, o in enumerate(outs)
    )
    return {
        "vmap": warm_v,
        "loop": warm_l,
        "vmap_cold": cold_v,
        "loop_cold": cold_l,
        "lanes": len(lr_grid),
        "max_diff": diff,
        "dims": moe.spec_dims(spec),
    }


def sweep_lines(b: dict, n_lr: int, n_seed: int, steps: int) -> list[str]:
    """The (B) lines for a :func:`bench_sweep` result."""
    db = b["dims"]
    return [
        f"(B) LR x seed sweep, {b['lanes']} lanes ({n_lr} LRs x {n_seed} seeds), MSSP "
        f"regime III N={db['N']} M={db['M']} N_e={db['N_e']}, {steps} steps of batch 32 "
        f"+ diagnostics (seconds)",
        f"  jit(vmap(run)) {b['vmap']:8.3f} (cold {b['vmap_cold']:.2f})   Python loop of "
        f"jit(run) {b['loop']:8.3f} (cold {b['loop_cold']:.2f})   ->  loop/vmap "
        f"{C.ratio(b['loop'], b['vmap']):.2f}x warm, {C.ratio(b['loop_cold'], b['vmap_cold']):.2f}x "
        f"cold; max |final-loss diff| {b['max_diff']:.1e}",
    ]


def main(argv=None) -> dict:
    args = C.parser(__doc__).parse_args(argv)
    if args.tiny:
        w_step, batch, n_steps, reps = 16, 8, 2, 1
        w_sweep, steps, n_lr, n_seed = 16, 3, 2, 1
    else:
        w_step, batch, n_steps, reps = 256, 64, 20, 5
        w_sweep, steps, n_lr, n_seed = 64, 100, 8, 4
    a = bench_step(w_step, batch, n_steps, reps)
    d = a["dims"]
    lines = [
        f"(A) one Adam step, MSSP regime III, N={d['N']} M={d['M']} N_e={d['N_e']} "
        f"d_in={d['d_in']} batch={batch} (ms/step, best of {reps} x {n_steps} steps)"
    ]
    line = (
        f"  ours (jit step, Python loop) {1e3 * a['ours_loop']:8.3f}   ours (lax.scan) "
        f"{1e3 * a['ours_scan']:8.3f}   (cold {a['cold']:.2f} s)"
    )
    if "torch" in a:
        line += (
            f"   PyTorch (eager, torch.optim.Adam) {1e3 * a['torch']:8.3f}   ->  peer/ours "
            f"{C.ratio(a['torch'], a['ours_loop']):.2f}x (loop), "
            f"{C.ratio(a['torch'], a['ours_scan']):.2f}x (scan)"
        )
    else:
        line += "   PyTorch peer skipped (torch not installed)"
    lines.append(line)
    b = bench_sweep(w_sweep, steps, n_lr, n_seed, reps=max(1, reps // 2))
    lines += sweep_lines(b, n_lr, n_seed, steps)
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record("moe_step", lines, intro=INTRO, script="moe_step.py")
    return {"step": a, "sweep": b}


if __name__ == "__main__":
    main()
