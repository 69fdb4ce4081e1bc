"""Benchmark: ISM and Track-and-Stop episodes in JAX against a plain numpy per-episode loop.

Peer: the same algorithms written as a plain Python/numpy loop over rounds, one
episode after another (the way SMPyBandits-style BAI code runs). Both sides play the
smoke environment of the shifting-means-bai experiment (K = 4, μ = (0.5, 0, 0, 0), σ = 1, U = 1.5,
c = 1, δ = 0.05, no shift) and report arm pulls per second (sum of stopping times over
wall time). JAX runs ``jaxtheory.sims.bandits.simulate`` (vmapped chunks with
compaction); its time is measured on a second, warm call with the same key (so the
same batch sizes, all compiled) and, separately, on the first call, compiles included.

The numpy functions here double as the independent reference of the tests: fed the
same per-round draws (``round_draws``), they must reproduce the JAX trajectories.

The ratio is the peer's time / ours per pull (JAX pulls/s over numpy pulls/s; > 1: ours
is faster). A full run records its section of ``benchmarks/RESULTS.md`` (replacing an
earlier one).

Usage::

    python benchmarks/bandits_bai.py            # 10^4 JAX episodes per algorithm
    python benchmarks/bandits_bai.py --tiny     # a few seconds, never records
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import scipy.optimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

ADVERSARIES = ("none", "constant", "random", "periodic", "pulse", "drift", "ramp", "targeted", "untargeted")


# ------------------------------------------------------------------ numpy reference


def np_shift(
    adversary: str, t: int, probs: np.ndarray, mu: np.ndarray, c: float, U: float, period: float, u: float
) -> float:
    """The shift of round ``t`` (same conventions as ``environments.shift``)."""
    if adversary == "none":
        s = 0.0
    elif adversary == "constant":
        s = -c
    elif adversary == "random":
        s = c if u < 0.5 else -c
    elif adversary == "periodic":
        s = c if math.fmod(t, period) < 0.5 * period else -c
    elif adversary == "pulse":
        s = -c if t % max(int(round(period)), 1) == 0 else c
    elif adversary == "drift":
        s = c * math.sin(2 * math.pi * t / period)
    elif adversary == "ramp":
        s = min(max(-c + 2 * c * t / period, -c), c)
    elif adversary == "targeted":
        s = c if int(np.argmax(probs)) == 1 else -c
    elif adversary == "untargeted":
        s = -c if int(np.argmax(probs)) == 0 else c
    else:
        raise ValueError(adversary)
    return float(min(max(s, -U - mu.min()), U - mu.max()))


def np_gaussian_weights(mu_hat: np.ndarray, sigma: float) -> np.ndarray:
    """Optimal Gaussian weights by scipy's brentq on F(u) = Σ (u/(Δ_a² − u))² − 1."""
    K = mu_hat.size
    best = int(np.argmax(mu_hat))
    gaps2 = (mu_hat[best] - mu_hat) ** 2
    others = np.arange(K) != best
    dmin2 = gaps2[others].min()
    if dmin2 <= 1e-12 * (1 + np.abs(mu_hat).max() ** 2):
        tied = mu_hat >= mu_hat[best]
        return tied / tied.sum()

    def F(u):
        return np.sum((u / (gaps2[others] - u)) ** 2) - 1.0

    u = scipy.optimize.brentq(F, 0.0, dmin2 * (1 - 1e-15), xtol=1e-300, rtol=1e-15, maxiter=500)
    x = np.ones(K)
    x[others] = u / (gaps2[others] - u)
    return x / x.sum()


def np_episode(
    policy: str,
    mu,
    *,
    delta: float,
    sigma: float,
    U: float,
    c: float,
    adversary: str = "none",
    period: float = 4.0,
    horizon: int = 20_000,
    refresh: int = 1,
    draws=None,
    rng=None,
):
    """One episode as a plain loop over rounds. Returns ``(tau, recommendation)``.

    ``policy`` is ``"ism_practical"``, ``"ism_theory"`` or ``"tas_d"``. ``draws(t)``
    returns ``(u_act, z, u_shift)`` for round ``t``; without it, numpy's ``rng`` is used.
    A censored episode returns ``(horizon, -1)``.
    """
    mu = np.asarray(mu, float)
    K = mu.size
    if c < 0:
        c = U - np.abs(mu).max()
    n = np.zeros(K, np.int64)
    s = np.zeros(K)  # reward sums (TaS) or IW sums g (ISM)
    q = np.zeros(K)  # IW squared sums (ISM)
    w = np.full(K, 1.0 / K)
    L_const = math.log(math.pi**2 / 3.0) + 2 * math.log(K) - math.log(delta)
    if draws is None:
        block = 4096
        buf = None

    for t in range(horizon):
        if draws is not None:
            u_act, z, u_shift = draws(t)
        else:
            if t % block == 0:
                buf = (rng.random(block), rng.standard_normal(block), rng.random(block))
            i = t % block
            u_act, z, u_shift = buf[0][i], buf[1][i], buf[2][i]
        # act
        if policy.startswith("ism"):
            probs = np.full(K, 1.0 / K)
            cdf = np.cumsum(probs)
            arm = int(np.sum(cdf[:-1] <= u_act * cdf[-1]))
        elif policy == "tas_d":
            if t % refresh == 0:
                w = np_gaussian_weights(s / np.maximum(n, 1), sigma)
            if n.min() <= max(math.sqrt(t) - K / 2, 0.0):
                arm = int(np.argmin(n))
            else:
                arm = int(np.argmax(w - n / max(t, 1)))
            probs = np.zeros(K)
            probs[arm] = 1.0
        else:
            raise ValueError(policy)
        x = mu[arm] + np_shift(adversary, t, probs, mu, c, U, period, u_shift) + sigma * z
        n[arm] += 1
        tt = t + 1
        # update + stop
        if policy.startswith("ism"):
            s[arm] += x * K
            q[arm] += (x * K) ** 2
            a = int(np.argmax(s))
            S = s[a] - s
            ok = True
            for b in range(K):
                if b == a:
                    continue
                if policy == "ism_practical":
                    V = q[a] + q[b]
                    beta = math.log((1 + math.log(tt)) / delta)
                    ok = ok and S[b] > 0 and V > 0 and S[b] ** 2 / (2 * V) > beta
                else:
                    L = L_const + 3 * math.log(tt)
                    beta = (
                        math.sqrt(4 * K * U**2 * tt * L)
                        + (2 / 3) * (K + 2) * U * L
                        + math.sqrt(2 * K**2 * sigma**2 * (n[a] + n[b]) * L)
                    )
                    ok = ok and S[b] > beta
                if not ok:
                    break
            if ok:
                return tt, a
        else:
            s[arm] += x
            if n.min() >= 1:
                m = s / n
                a = int(np.argmax(m))
                Z = min(
                    n[a] * n[b] / (n[a] + n[b]) * (m[a] - m[b]) ** 2 / (2 * sigma**2)
                    for b in range(K)
                    if b != a
                )
                if Z > math.log((1 + math.log(tt)) / delta):
                    return tt, a
    return horizon, -1


# ------------------------------------------------------------------ benchmark


def _bench(policy: str, n_jax: int, n_np: int, horizon: int, refresh: int, min_batch: int = 8) -> dict:
    import jax

    from jaxtheory.sims.bandits import BAISpec, default_params, simulate

    params = default_params()
    spec = BAISpec(policy=policy, horizon=horizon, refresh=refresh, chunk=256)
    # same key on the warm call: the same compaction sizes, so every executable is cached
    tj = C.timed(simulate, spec, params, jax.random.key(0), n_jax, min_batch=min_batch, reps=1)
    cold, warm = tj.cold, tj.warm
    pulls_jax = float(np.sum(tj.result["tau"]))

    mu = np.array([params["gap"]] + [0.0] * (spec.n_arms - 1))
    rng = np.random.default_rng(0)
    tn = C.timed(
        lambda: [
            np_episode(
                policy,
                mu,
                delta=params["delta"],
                sigma=params["sigma"],
                U=params["U"],
                c=params["c"],
                horizon=horizon,
                refresh=refresh,
                rng=rng,
            )[0]
            for _ in range(n_np)
        ],
        reps=0,
    )
    t_np = tn.cold
    pulls_np = float(np.sum(tn.result))
    r = {
        "policy": policy,
        "episodes_jax": n_jax,
        "episodes_numpy": n_np,
        "mean_tau_jax": pulls_jax / n_jax,
        "mean_tau_numpy": pulls_np / n_np,
        "jax_pulls_per_s_warm": pulls_jax / warm,
        "jax_pulls_per_s_cold": pulls_jax / cold,
        "numpy_pulls_per_s": pulls_np / t_np,
        "jax_s_warm": warm,
        "jax_s_cold": cold,
    }
    r["speedup_warm"] = C.ratio(r["jax_pulls_per_s_warm"], r["numpy_pulls_per_s"])
    r["speedup_cold"] = C.ratio(r["jax_pulls_per_s_cold"], r["numpy_pulls_per_s"])
    return r


INTRO = (
    "Peer measured in the same run: the same algorithm as a plain Python/numpy loop over "
    "rounds, one episode after another (`np_episode` in `benchmarks/bandits_bai.py`, also "
    "the tests' independent reference). Environment: K = 4, mu = (0.5, 0, 0, 0), sigma = 1, "
    "U = 1.5, delta = 0.05, no shift. JAX: `jaxtheory.sims.bandits.simulate`, chunks of 256 "
    "rounds under `vmap` with compaction (`compact_at=0.5`); warm = second call with the "
    "same key (every batch size already compiled), cold = first call including compiles. "
    "Pulls/s = sum of tau / wall time."
)
NOTES = "Goal >= 100x (warm). Cold ratios are dominated by XLA compiles (one per compaction batch size)."


def main(argv=None) -> list[dict]:
    ap = C.parser(__doc__, tiny="a few seconds, for the tests (never records)")
    ap.add_argument("--episodes", type=int, default=10_000, help="JAX episodes per algorithm")
    ap.add_argument(
        "--numpy-episodes",
        type=int,
        default=100,
        help="numpy episodes per algorithm (pulls/s is per episode anyway)",
    )
    args = ap.parse_args(argv)
    if args.tiny:  # one batch size (no compaction): one compile per algorithm
        n_jax, n_np, horizon, min_batch = 16, 1, 2048, 16
    else:
        n_jax, n_np, horizon, min_batch = args.episodes, args.numpy_episodes, 20_000, 8
    rows, lines = [], []
    for policy, refresh in (("ism_practical", 1), ("tas_d", 16)):
        r = _bench(policy, n_jax, n_np, horizon, refresh, min_batch)
        rows.append(r)
        lines.append(
            f"{policy:14s} refresh={refresh:<3d} JAX {n_jax} eps: "
            f"{r['jax_pulls_per_s_warm']:.3e} pulls/s warm ({r['jax_s_warm']:.2f} s), "
            f"{r['jax_pulls_per_s_cold']:.3e} cold | numpy {n_np} eps: "
            f"{r['numpy_pulls_per_s']:.3e} pulls/s | ratio warm {r['speedup_warm']:.0f}x, "
            f"cold {r['speedup_cold']:.0f}x | E[tau] jax {r['mean_tau_jax']:.0f} "
            f"numpy {r['mean_tau_numpy']:.0f}"
        )
        print(lines[-1], flush=True)
    print(C.machine())
    if C.should_record(args):
        C.record("bandits_bai", lines, intro=INTRO, notes=NOTES, script="bandits_bai.py")
    return rows


if __name__ == "__main__":
    main()
