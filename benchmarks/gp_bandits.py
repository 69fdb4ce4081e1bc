"""GP bandits: the vmapped simulator against BoTorch and a numpy loop; the bordered
posterior update against tinygp and a dense solve.

(A) Policy sweep. The ``gp-batch-bandits`` smoke setting (2-D 15×15 grid, SE ℓ = 0.2,
N = 128 evaluations, σ² ∈ {0, 0.1}, R = 192 replicates per case): GP-BTS at
Q ∈ {1, 4, 16} (the smoke grid), GP-UCB (Q = 1) and GP-BUCB (Q = 4). Ours:
``jit(vmap(run))`` (float32), all R replicates in one call. Peers, one replicate after
another:

* **BoTorch** (float64, its default practice; fixed kernel hyperparameters, no
  fitting, as ours): each round a ``SingleTaskGP`` with ``ScaleKernel(RBFKernel())``
  (ℓ = 0.2, outputscale 1), fixed noise ``train_Yvar = σ² + 1e-5`` and no outcome
  transform, on all data so far. GP-BTS: ``MaxPosteriorSampling(model,
  replacement=True)(X_cand, num_samples=Q)`` (Q independent exact joint posterior draws
  on the candidates, argmax of each). GP-UCB / GP-BUCB: the round-start posterior mean
  plus :math:`\\beta_e^{1/2}` times the standard deviation of the model conditioned on
  the pending points (``condition_on_observations``: GPyTorch fantasies, whose
  variance does not depend on the fantasized values), greedily. The first round draws
  from the prior (Cholesky of the candidate covariance).
* **numpy/scipy** (GP-BTS only, float64): refactor :math:`K_{DD} + \\sigma^2 I` every
  round, Matheron draws from one prior Cholesky factor.

A peer's cost is linear in R, so it is timed on a few replicates and scaled to R (said
in the output). BoTorch is skipped, with a message, when torch/botorch are not
installed (the optional ``bench`` extra).

(B) Posterior update, n candidates, m observations, mean and variance on all
candidates: one bordered update of :mod:`jaxtheory.sims.gp_bandits.posterior`
(adding the m-th observation, jitted, O(mn)) and the whole sequence of m updates (jitted
``lax.scan``) against **tinygp** (``GaussianProcess(Matern52, X_D, diag=σ²)
.condition(y, X_cand)``, jitted, float32: one conditioning on the m points, O(m³ + m²n))
and against a numpy dense solve after every observation (float64).

Usage: ``python benchmarks/gp_bandits.py [--tiny] [--no-record]``. Ratios are peer time
/ our time (> 1: ours is faster). A full run writes its section of
``benchmarks/RESULTS.md`` (replacing an earlier ``## gp_bandits`` section); ``--tiny``
never writes.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import scipy.linalg

from jaxtheory.sims import gp_bandits as gpb

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _common as C  # noqa: E402

INTRO = (
    "Peers measured in the same run: (A) the same policies written with BoTorch/GPyTorch "
    "(exact GP posterior, fixed hyperparameters, `MaxPosteriorSampling` for GP-BTS, fantasy "
    "models for GP-BUCB's hallucinated variance) and, for GP-BTS, a numpy/scipy loop; (B) "
    "tinygp's jitted `condition` and a dense numpy solve per observation."
)
NOTES = (
    "Goal >= 10x against BoTorch for R replicates x T rounds. BoTorch is timed on a few "
    "replicates per case and scaled to R (its cost is linear in R); its mean R(N) on those "
    "is printed as a sanity check of the port (same policy, different functions, so only "
    "roughly comparable). tinygp's Matern kernel defaults to the L1 distance; the script "
    "passes `L2Distance()` so both compute the same posterior. Run with "
    "`OMP_NUM_THREADS=1` (torch then uses 1 thread; XLA's CPU client is not limited by it)."
)


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


def torch_peers():
    """``(modules, None)`` when torch, gpytorch and botorch import, else ``(None, why)``."""
    try:
        import warnings

        import torch
        from botorch.generation.sampling import MaxPosteriorSampling
        from botorch.models import SingleTaskGP
        from gpytorch.kernels import RBFKernel, ScaleKernel
    except ImportError as e:  # the optional `bench` extra is not installed
        return None, f"{type(e).__name__}: {e}"
    warnings.filterwarnings("ignore", module="botorch")
    warnings.filterwarnings("ignore", module="gpytorch")
    warnings.filterwarnings("ignore", module="linear_operator")
    return {
        "torch": torch,
        "SingleTaskGP": SingleTaskGP,
        "MaxPosteriorSampling": MaxPosteriorSampling,
        "RBFKernel": RBFKernel,
        "ScaleKernel": ScaleKernel,
    }, None


def botorch_replicate(tm, policy, Xc, f, q, budget, noise_var, gen, ls=0.2, nugget=1e-5):
    """One replicate of GP-BTS / GP-(B)UCB written with BoTorch; returns cumulative regret."""
    torch = tm["torch"]
    f64 = torch.float64
    n = Xc.shape[0]
    yvar = noise_var + nugget

    def model(idx, y):
        k = tm["ScaleKernel"](tm["RBFKernel"]())
        k.base_kernel.lengthscale = ls
        k.outputscale = 1.0
        Y = torch.as_tensor(y, dtype=torch.float64)[:, None]
        m = tm["SingleTaskGP"](
            Xc[idx], Y, train_Yvar=torch.full_like(Y, yvar), covar_module=k, outcome_transform=None
        )
        return m.eval()

    prior = None
    idx, ys = [], []
    with torch.no_grad():
        for t in range(budget // q):
            m = model(idx, ys) if idx else None
            picks = []
            if policy == "bts":
                if m is None:  # prior draws on the candidates
                    if prior is None:
                        k0 = tm["ScaleKernel"](tm["RBFKernel"]())
                        k0.base_kernel.lengthscale = ls
                        k0.outputscale = 1.0
                        prior = torch.linalg.cholesky(k0(Xc).to_dense() + nugget * torch.eye(n, dtype=f64))
                    draws = prior @ torch.randn(n, q, generator=gen, dtype=f64)
                    picks = draws.argmax(0).tolist()
                else:
                    Xn = tm["MaxPosteriorSampling"](m, replacement=True)(Xc, num_samples=q)
                    picks = (Xn[:, None, :] == Xc[None]).all(-1).double().argmax(-1).tolist()
            else:
                post = m.posterior(Xc) if m is not None else None
                mu = post.mean.squeeze(-1) if post is not None else torch.zeros(n, dtype=f64)
                for j in range(q):
                    e = t * q + j
                    if j == 0 and post is not None:
                        var = post.variance.squeeze(-1)
                    elif j == 0:
                        var = torch.ones(n, dtype=f64)
                    elif m is None:  # only pending points: a model on them (zero values)
                        var = model(picks, [0.0] * j).posterior(Xc).variance.squeeze(-1)
                    else:
                        P = Xc[picks]
                        fm = m.condition_on_observations(
                            P, torch.zeros(j, 1, dtype=f64), noise=torch.full((j, 1), yvar, dtype=f64)
                        )
                        var = fm.posterior(Xc).variance.squeeze(-1)
                    beta = float(gpb.beta_t("scaled", e + 1, n, gpb.DEFAULT_PARAMS))
                    picks.append(int(torch.argmax(mu + beta**0.5 * var.clamp_min(0).sqrt())))
            idx += picks
            ys += (f[picks] + noise_var**0.5 * torch.randn(q, generator=gen, dtype=f64).numpy()).tolist()
    return np.cumsum(f.max() - f[np.asarray(idx)])


def bench_policy(
    tiny: bool,
    *,
    n: int | None = None,
    budget: int | None = None,
    cases: list[tuple[str, int]] | None = None,
    fns: int | None = None,
    botorch: bool = True,
) -> tuple[list[str], dict]:
    """(A): our vmapped policies against the numpy loop and (when installed) BoTorch.

    Args:
        tiny: Tiny sizes (a smoke test).
        n: Candidates (a square: a 2-D grid); default 16 tiny, 225 otherwise.
        budget: Evaluations N per replicate; default 8 tiny, 128 otherwise.
        cases: ``(policy, Q)`` pairs; default the smoke grid plus GP-UCB and GP-BUCB.
        fns: Objective draws per noise level (R = 2 x fns x 3 replicates); default 2 / 32.
        botorch: Time the BoTorch peer when it is installed.

    Returns:
        The printed lines and the figures by ``(policy, Q)``.
    """
    dim = 2
    n = n or (16 if tiny else 225)
    budget = budget or (8 if tiny else 128)
    # tiny: one compile of ours (the BoTorch warm-up below runs its BTS and BUCB code)
    cases = cases or (
        [("bts", 2)] if tiny else [("bts", 1), ("bts", 4), ("bts", 16), ("ucb", 1), ("bucb", 4)]
    )
    fns = fns or (2 if tiny else 32)
    noises, reps = (0.0, 0.1), 3  # 2 x 32 x 3 = 192 replicates: the smoke preset's lanes per Q
    few = 1 if tiny else 3
    lanes = [
        dict(gpb.DEFAULT_PARAMS, noise_var=s2, init_evals=0, fn_seed=fs)
        for s2 in noises
        for fs in range(fns)
        for _ in range(reps)
    ]
    R = len(lanes)
    p = {k: jnp.asarray([l[k] for l in lanes]) for k in gpb.DEFAULT_PARAMS}
    keys = jax.random.split(jax.random.key(0), R)
    X = gpb.candidates("grid", n, dim)
    K = np.asarray(gpb.kernel_matrix("se", X, X, 0.2, 1.0), np.float64) + 1e-5 * np.eye(n)
    Lk = np.linalg.cholesky(K)
    tm, why = torch_peers() if botorch else (None, None)
    lines = [
        f"(A) {n} candidates, N={budget}, R={R} replicates per case (σ² ∈ {noises}); "
        f"ours: jit(vmap(run)) float32, all R at once; peers one replicate after another, "
        f"timed on {few} replicate(s) (σ² alternating) and scaled to R"
    ]
    if not botorch:
        lines.append("  BoTorch peer not run here (benchmarks/gp_bandits.py runs it)")
    elif tm is None:
        lines.append(f"  BoTorch peer skipped: {why} (pip install -e '.[bench]')")
    else:
        import botorch
        import gpytorch

        torch = tm["torch"]
        lines.append(
            f"  BoTorch {botorch.__version__}, GPyTorch {gpytorch.__version__}, torch "
            f"{torch.__version__} ({torch.get_num_threads()} threads), float64"
        )
        Xc = torch.as_tensor(X, dtype=torch.float64)
        gen = torch.Generator().manual_seed(0)
        f0 = Lk @ np.random.default_rng(9).standard_normal(n)
        botorch_replicate(tm, "bts", Xc, f0, 2, 4, 0.1, gen)  # warm-up: imports, caches
        botorch_replicate(tm, "bucb", Xc, f0, 2, 4, 0.1, gen)
    out = {}
    rng = np.random.default_rng(0)
    for policy, q in cases:
        spec = gpb.GPBanditSpec(
            policy=policy, q=q, budget=budget, n=n, dim=dim, lengthscale=0.2, variance=1.0
        )
        fn = jax.jit(jax.vmap(functools.partial(gpb.run, spec)))
        t = C.timed(fn, p, keys, reps=1)
        cold, warm = t.cold, t.warm
        ours_R = float(np.asarray(t.result["cum_regret"])[:, -1].mean())
        row = {"ours_warm": warm, "ours_cold": cold, "ours_R(N)": ours_R}
        text = (
            f"  {policy.upper():>4} Q={q:>2}: ours warm {warm:7.3f} s (cold {cold:6.2f} s incl. "
            f"compile), mean R(N) {ours_R:6.1f}"
        )
        if policy == "bts":

            def numpy_few(q=q):
                for j in range(few):
                    f = Lk @ rng.standard_normal(n)
                    numpy_bts(K, f, q, budget, noises[j % 2], rng)

            peer = C.best_of(numpy_few, 1) / few * R
            row["numpy"] = peer
            text += (
                f" | numpy loop {peer:8.1f} s -> {C.ratio(peer, warm):6.1f}x warm, "
                f"{C.ratio(peer, cold):5.1f}x cold"
            )
        if tm is not None:

            def botorch_few(policy=policy, q=q):
                return [
                    botorch_replicate(
                        tm, policy, Xc, Lk @ rng.standard_normal(n), q, budget, noises[j % 2], gen
                    )[-1]
                    for j in range(few)
                ]

            tb = C.timed(botorch_few, reps=0)
            peer, Rb = tb.cold / few * R, tb.result
            row["botorch"] = peer
            row["botorch_R(N)"] = float(np.mean(Rb))
            text += (
                f" | BoTorch {peer:8.1f} s -> {C.ratio(peer, warm):6.1f}x warm, "
                f"{C.ratio(peer, cold):5.1f}x cold (its R(N) on {few}: {np.mean(Rb):.1f})"
            )
        out[(policy, q)] = row
        lines.append(text + f"  [{R * budget // q} replicate-rounds]")
    return lines, out


def bench_update(tiny: bool) -> tuple[list[str], dict]:
    n, m = (64, 16) if tiny else (1024, 256)
    X = gpb.candidates("sobol", n, 2)
    K = np.asarray(gpb.kernel_matrix("matern52", X, X, 0.2, 1.0), np.float64) + 1e-5 * np.eye(n)
    rng = np.random.default_rng(1)
    idx = rng.choice(n, m, replace=False)
    y = rng.standard_normal(m)
    s2 = 0.01
    reps = 3 if tiny else 20

    def best(fn, *args):  # warm: the best of `reps` after a compiling call
        return C.timed(fn, *args, reps=reps).warm

    @jax.jit
    def ours(K, idx, y):
        def step(st, j):
            st = gpb.observe(st, j, idx[j], K[idx[j]], y[j], s2, 5e-6)
            return st, None

        return jax.lax.scan(step, gpb.init_state(jnp.diag(K), m), jnp.arange(m))[0]

    @jax.jit
    def ours_one(st, K, i, yv):  # the m-th observation: one bordered update
        st = gpb.observe(st, m - 1, i, K[i], yv, s2, 5e-6)
        return st.mean, st.var

    Kj, ij, yj = jnp.asarray(K, jnp.float32), jnp.asarray(idx), jnp.asarray(y, jnp.float32)
    t = C.timed(ours, Kj, ij, yj, reps=reps)
    cold, warm = t.cold, t.warm
    # the state after m - 1 observations (slot m - 1 still empty)
    st_m1 = jax.block_until_ready(ours(Kj, ij, yj.at[m - 1].set(0.0)))
    st_m1 = st_m1._replace(
        V=st_m1.V.at[m - 1].set(0.0),
        L=st_m1.L.at[m - 1].set(jnp.eye(m)[m - 1]),
        alpha=st_m1.alpha.at[m - 1].set(0.0),
        used=st_m1.used.at[m - 1].set(False),
    )
    st_m1 = st_m1._replace(
        mean=st_m1.V.T @ st_m1.alpha, var=jnp.maximum(jnp.diag(Kj) - jnp.sum(st_m1.V**2, 0), 0)
    )
    one = best(ours_one, st_m1, Kj, ij[m - 1], yj[m - 1])
    lines = [
        f"(B) posterior update, n={n} candidates, m={m} observations (Matérn-5/2, σ²={s2}); "
        f"mean and variance on all candidates; best of {reps}"
    ]
    mean_one = np.asarray(ours_one(st_m1, Kj, ij[m - 1], yj[m - 1])[0])
    out = {"ours_scan": warm, "ours_scan_cold": cold, "ours_one": one}
    lines.append(
        f"  ours: one bordered update (the m-th) {one * 1e3:8.3f} ms; all m updates (jit scan) "
        f"{warm * 1e3:8.2f} ms (cold {cold:5.2f} s)"
    )
    try:
        from tinygp import GaussianProcess, kernels
        import tinygp
    except ImportError as e:
        lines.append(f"  tinygp peer skipped: {type(e).__name__}: {e} (pip install -e '.[bench]')")
    else:

        @jax.jit
        def tg(XD, yv, Xc):
            # tinygp's stationary kernels default to the L1 distance; ours is Euclidean
            kern = kernels.Matern52(scale=0.2, distance=kernels.distance.L2Distance())
            gp = GaussianProcess(kern, XD, diag=s2 + 1e-5)
            cond = gp.condition(yv, Xc).gp
            return cond.loc, cond.variance

        Xj = jnp.asarray(X, jnp.float32)
        tt = C.timed(tg, Xj[ij], yj, Xj, reps=reps)
        tcold, tgt = tt.cold, tt.warm
        err = float(np.abs(np.asarray(tg(Xj[ij], yj, Xj)[0]) - mean_one).max())
        out.update(tinygp=tgt, tinygp_cold=tcold)
        lines.append(
            f"  tinygp {tinygp.__version__} condition on m points (jit, float32) {tgt * 1e3:8.3f} ms "
            f"(cold {tcold:5.2f} s) -> per-update ratio tinygp/ours-one {C.ratio(tgt, one):7.1f}x; "
            f"m updates by tinygp would be ~m conditionings (one compile per size), ours "
            f"all m in the time of {warm / tgt:5.2f} tinygp conditionings (max |mean diff| "
            f"{err:.1e})"
        )

    def dense_all():
        for j in range(1, m + 1):
            gpb.dense_posterior(K, idx[:j], y[:j], s2)

    peer = C.best_of(dense_all, 1)
    out["numpy_dense"] = peer
    lines.append(
        f"  numpy dense solve after each of the m observations (float64) {peer:8.3f} s -> "
        f"peer/ours-scan {C.ratio(peer, warm):7.1f}x warm, {C.ratio(peer, cold):5.1f}x cold"
    )
    return lines, out


def main(argv=None) -> dict:
    args = C.parser(__doc__).parse_args(argv)
    la, pol = bench_policy(args.tiny)
    lb, upd = bench_update(args.tiny)
    lines = la + lb
    print("\n".join([C.machine(), *lines]))
    if C.should_record(args):
        C.record("gp_bandits", lines, intro=INTRO, notes=NOTES, script="gp_bandits.py")
    return {"policy": pol, "update": upd, "lines": lines}


if __name__ == "__main__":
    main()
