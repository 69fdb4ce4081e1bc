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
accelerator); ``--tiny`` runs in seconds (and never records). Results are recorded in
``RESULTS.md`` (replacing the section of the same size).

Usage: ``python benchmarks/linreg.py [--tiny] [--cpu] [--no-record]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import montecarlo as mc

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

INTRO = (
    "Peers measured in the same run: (a) a numpy recursion of the same per-step math, "
    "vectorized over modes and grid points (Python loop over steps, timed on a slice of the "
    "steps); (b) a Python loop of the jitted single-config run (extrapolated from a few); "
    "(c) the Monte Carlo rate, no peer. Ratios of rates are ours / the peer's per unit of "
    "work, which is the peer's time / ours."
)
#: (D, T, G, Monte Carlo D, T, lanes) by size name.
SIZES = {
    "tiny": (256, 64, 4, 64, 64, 16),
    "cpu": (4096, 1000, 8, 512, 1000, 64),
    "full": (100_000, 10_000, 32, 4096, 10_000, 1024),
}


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


def bench(
    D: int, T: int, G: int, mcD: int, mcT: int, mcL: int, np_steps: int | None = None
) -> tuple[dict, list[str]]:
    """The three measurements at one size; returns the figures and the printed lines.

    ``np_steps`` is how many steps the numpy peer runs (default 20, rounded to a multiple
    of the sync period); when it is all ``T`` steps its result is checked against ours.
    """
    k, B = 4, 4
    spec = ex.ExactSpec(dim=D, steps=T, num_log=16, algorithm="lookahead")
    base = dict(ex.EXACT_DEFAULT_PARAMS, sigma2=0.1, k=k, batch=B)
    etas = np.geomspace(0.05, 1.0, G).astype(np.float32)
    alphas = np.linspace(0.2, 1.0, G).astype(np.float32)
    ee, aa = (x.ravel() for x in np.meshgrid(etas, alphas, indexing="ij"))
    grid = {n: jnp.full(G * G, v) for n, v in base.items()}
    grid["lr"], grid["alpha"] = jnp.asarray(ee), jnp.asarray(aa)

    vrun = jax.jit(jax.vmap(lambda p: ex.run(spec, p)["final_risk"]))
    tv = C.timed(vrun, grid, reps=1)
    out, cold, warm = tv.result, tv.cold, tv.warm
    rate_jax = G * G * D * T / warm

    lam, t2 = (np.asarray(v, np.float32) for v in jax.jit(lambda: ex.problem("power_law", D, base))())
    np_steps = min(T, max(k, (20 if np_steps is None else np_steps) // k * k))
    tn = C.timed(numpy_la, lam, t2, ee, aa, k, B, 0.1, np_steps, reps=0)
    ref, np_time = tn.result, tn.cold
    rate_np = G * G * D * np_steps / np_time
    if np_steps == T:  # the numpy peer also checks the result
        np.testing.assert_allclose(np.asarray(out), ref, rtol=2e-3)

    one = jax.jit(lambda p: ex.run(spec, p)["final_risk"])
    C.block(one({n: v[0] for n, v in grid.items()}))
    n_loop = min(G * G, 4)

    def config_loop():
        for i in range(n_loop):
            C.block(one({n: v[i] for n, v in grid.items()}))

    loop = C.best_of(config_loop, 1) / n_loop * G * G

    mspec = mc.MonteCarloSpec(dim=mcD, batch=B, steps=mcT, num_log=16, algorithm="lookahead", sync_period=k)
    mrun = jax.jit(
        jax.vmap(lambda kk: mc.run(mspec, dict(mc.MC_DEFAULT_PARAMS, sigma2=0.1), kk)["final_risk"])
    )
    keys = jax.random.split(jax.random.key(0), mcL)
    mc_time = C.timed(mrun, keys, reps=1).warm
    mc_rate = mcL * mcD * mcT / mc_time

    res = {
        "exact_vs_numpy": C.ratio(rate_jax, rate_np),
        "vmap_vs_loop": C.ratio(loop, warm),
        "mc_rate": mc_rate,
        "rate_jax": rate_jax,
        "rate_np": rate_np,
        "cold_s": cold,
        "warm_s": warm,
    }
    lines = [
        f"exact LA recursion, D={D}, T={T}, grid {G}x{G}: jit(vmap) {rate_jax:.3g} mode-steps/s "
        f"(warm {warm:.3g} s, cold {cold:.3g} s); numpy {rate_np:.3g} mode-steps/s "
        f"(on {np_steps} steps) -> ratio {res['exact_vs_numpy']:.3g}x",
        f"vmapped grid vs Python loop of jitted runs (loop extrapolated from {n_loop}): "
        f"{res['vmap_vs_loop']:.3g}x",
        f"Monte Carlo LA (k={k}, B={B}), {mcL} lanes x D={mcD} x {mcT} steps: {mc_rate:.3g} lane-dim-steps/s",
    ]
    return res, lines


def main(argv=None) -> dict:
    ap = C.parser(__doc__, tiny="D = 256, 64 steps, 4 x 4 grid (never records)")
    ap.add_argument("--cpu", action="store_true", help="D = 4096, 1000 steps, 8 x 8 grid")
    args = ap.parse_args(argv)
    size = "tiny" if args.tiny else ("cpu" if args.cpu else "full")
    res, lines = bench(*SIZES[size], np_steps=SIZES[size][1] if args.tiny else None)
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record(f"linreg ({size})", lines, intro=INTRO, script="linreg.py")
    return res


if __name__ == "__main__":
    main()
