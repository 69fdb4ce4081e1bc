"""Black-box optimisation with one unreliable feedback source: the exact Bayesian stand-in.

A task draws an objective :math:`f` on a pool :math:`X` of :math:`n` candidates and one
auxiliary source :math:`a` that scores some of them (the
*structured feedback prior*, reconstructed from the abstract of arXiv 2605.06187):

.. math::
    f = L z_1, \\qquad g = L z_2, \\qquad a^\\star = \\rho f + \\sqrt{1-\\rho^2}\\, g, \\qquad
    a = \\varphi_w(a^\\star) + \\tau \\varepsilon \\ \\text{ on } \\{x : m(x) = 1\\},

with :math:`LL^\\top = K = k(X, X) + cI`, :math:`m(x) \\sim \\mathrm{Bernoulli}(q)` the
*access* mask, :math:`\\rho \\in [-1, 1]` the *relevance* (:math:`\\rho < 0`: a misleading
source) and :math:`\\varphi_w(z) = \\sinh(wz)/w` (:math:`\\varphi_0 = \\mathrm{id}`) a
monotone *distortion*. So :math:`\\mathrm{Cov}(f, a^\\star) = \\rho K` and
:math:`\\mathrm{Var}(a^\\star) = K` whatever :math:`\\rho`. Observations are
:math:`y_t = f(x_t) + \\sigma z_t`.

**The stand-in** (:func:`run`) is the exact posterior of this prior with
:math:`\\varphi = \\mathrm{id}` and :math:`\\rho` unknown on a grid :math:`G` (21 points on
:math:`[-1, 1]`, uniform prior). With :math:`M` the accessible points and
:math:`A = K_{MM} + \\tau^2 I`, the feedback gives (:func:`feedback_moments`)

.. math::
    m_0 = K_{XM} A^{-1} a_M, \\qquad C = K_{XM} A^{-1} K_{MX}, \\qquad
    f \\mid a, \\rho \\sim N(\\rho m_0,\\ \\Sigma_\\rho = K - \\rho^2 C).

The marginal of :math:`a` does not depend on :math:`\\rho`, so the posterior over the grid
is :math:`w_\\rho \\propto p(y_D \\mid a, \\rho) = N(y_D;\\ \\rho m_{0,D},\\ \\Sigma_{\\rho,DD} +
\\sigma^2 I)` (:func:`grid_posterior`), and the predictive of :math:`f` at the pool is the
mixture :math:`\\sum_\\rho w_\\rho N(\\mu_\\rho, s^2_\\rho)` of the Gaussian posteriors given
:math:`(a, y_D, \\rho)`. Expected improvement is linear in the predictive distribution, so
the acquisition is :math:`\\sum_\\rho w_\\rho \\mathrm{EI}(\\mu_\\rho, s_\\rho; y^\\star)` with
:math:`y^\\star` the best observation so far (:func:`expected_improvement`); already
evaluated points are excluded. Without feedback the same code runs on the grid
:math:`\\{0\\}` (plain GP-EI); greedy-on-feedback evaluates the accessible points in
decreasing order of :math:`a` (then the rest in random order). Every step is a
``lax.scan`` iteration that refactorizes the :math:`T \\times T` buffer (unused slots are
unit rows), :math:`O(|G|\\, T^2 n)` per step.

The search-policy shape ``init / propose(state, key) / observe(state, x, y)`` of :mod:`jaxtheory.sims.search` is
kept here as :func:`policy_init`, :func:`policy_propose`, :func:`policy_observe` (the
loop of :func:`run` is made of them).

References:
    Blumer, Martinelli and Kaski (2026), arXiv:2605.06187 (FICBO; abstract only).
    Rasmussen and Williams (2006), *Gaussian Processes for Machine Learning*, §2.2.
    Jones, Schonlau and Welch (1998), J. Global Optim. 13:455 (expected improvement).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.gp_bandits.kernels import KERNELS, kernel_matrix
from jaxtheory.sims.gp_bandits.objectives import TEST_FUNCTIONS, candidates
from jaxtheory.simulator import Simulator

__all__ = [
    "FeedbackSpec",
    "FEEDBACK_PARAMS",
    "RHO_GRID",
    "PolicyState",
    "warp",
    "sample_task",
    "feedback_moments",
    "grid_posterior",
    "expected_improvement",
    "mixture_cdf",
    "policy_init",
    "policy_propose",
    "policy_observe",
    "run",
]

#: The grid of relevances :math:`\\rho` the stand-in's posterior lives on (21 points).
RHO_GRID = np.linspace(-1.0, 1.0, 21)

#: Defaults of every parameter :func:`run` reads (all may be vmapped).
FEEDBACK_PARAMS = {
    "rho": 0.9,  # true relevance ρ of the source
    "access": 1.0,  # q: probability that the source scores a candidate
    "warp": 0.0,  # w of the monotone distortion sinh(w z)/w (0 = identity)
    "noise_var": 0.01,  # σ² of the observations y
    "feedback_var": 0.01,  # τ² of the feedback noise
    "rho_prior": 0,  # k > 0: ρ is drawn uniformly from RHO_GRID (draw k), ignoring "rho"
}


@dataclasses.dataclass(frozen=True)
class FeedbackSpec:
    """Static configuration of a feedback-informed BO run (the compile key).

    Attributes:
        n: pool size.
        dim: dimension of the pool (Sobol points in :math:`[0,1]^d`).
        steps: evaluation budget :math:`T`.
        kernel: one of :data:`~jaxtheory.sims.gp_bandits.kernels.KERNELS`.
        lengthscale: kernel lengthscale (known to the model).
        objective: ``"gp"`` (a prior draw; the model is then well specified) or a key
            of :data:`~jaxtheory.sims.gp_bandits.objectives.TEST_FUNCTIONS` of
            dimension ``dim`` (standardized over the pool; the feedback's own part
            :math:`g` is still a GP draw).
        probe: the step whose :math:`\\hat\\rho` (grid-posterior mean) is reported as
            ``rho_hat_probe`` (10: after 10 observations).
        nugget: :math:`c` on the prior covariance's diagonal.
        dtype: ``"float32"`` or ``"float64"`` (float64 needs ``jax.enable_x64``).

    Example:
        >>> FeedbackSpec(dim=2, lengthscale=0.15).steps
        25
    """

    n: int = 256
    dim: int = 1
    steps: int = 25
    kernel: str = "se"
    lengthscale: float = 0.05
    objective: str = "gp"
    probe: int = 10
    nugget: float = 1e-5
    dtype: str = "float32"

    def __post_init__(self):
        if self.kernel not in KERNELS:
            raise ValueError(f"unknown kernel {self.kernel!r}; expected one of {KERNELS}")
        if self.objective != "gp":
            if self.objective not in TEST_FUNCTIONS:
                raise ValueError(
                    f"unknown objective {self.objective!r}; expected 'gp' or one of {tuple(TEST_FUNCTIONS)}"
                )
            if TEST_FUNCTIONS[self.objective][1] != self.dim:
                raise ValueError(f"{self.objective} needs dim={TEST_FUNCTIONS[self.objective][1]}")
        if not 1 <= self.steps <= self.n:
            raise ValueError(f"need 1 <= steps <= n, got steps={self.steps}, n={self.n}")
        if not 0 <= self.probe < self.steps:
            raise ValueError(f"probe must lie in [0, steps), got {self.probe}")
        if not self.lengthscale > 0 or not self.nugget > 0:
            raise ValueError("lengthscale and nugget must be positive")
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")


def warp(z, w):
    """The monotone distortion :math:`\\varphi_w(z) = \\sinh(wz)/w`, :math:`\\varphi_0(z) = z`.

    Args:
        z: latent scores.
        w: warp strength :math:`w \\ge 0` (may be traced).

    Returns:
        :math:`\\varphi_w(z)`, same shape as ``z``; strictly increasing in ``z``.

    Example:
        >>> import jax.numpy as jnp
        >>> [round(float(v), 4) for v in warp(jnp.array([-1.0, 0.0, 1.0]), 1.0)]
        [-1.1752, 0.0, 1.1752]
    """
    w = jnp.asarray(w)
    small = jnp.abs(w) < 1e-6
    ws = jnp.where(small, 1.0, w)
    return jnp.where(small, z, jnp.sinh(ws * z) / ws)


def sample_task(spec: FeedbackSpec, params: dict, key):
    """Draw one task: pool, prior covariance, objective, access mask and feedback.

    Args:
        spec: :class:`FeedbackSpec`.
        params: see :data:`FEEDBACK_PARAMS`.
        key: PRNG key.

    Returns:
        dict with ``X`` (n, d), ``K`` (n, n, nugget included), ``f`` (n,), ``rho`` (the
        true relevance: ``params["rho"]``, or a uniform draw from :data:`RHO_GRID` when
        ``params["rho_prior"] > 0``), ``mask``
        (n,) bool, ``a`` (n,) feedback (0 where not accessible), ``z_obs`` (T,) standard
        normals of the observation noise and ``u_order`` (n,) uniforms for tie-breaking.

    Example:
        >>> import jax
        >>> t = sample_task(FeedbackSpec(n=16, steps=4, probe=2), dict(FEEDBACK_PARAMS),
        ...                 jax.random.key(0))
        >>> t["K"].shape, t["a"].shape, bool(t["mask"].all())
        ((16, 16), (16,), True)
    """
    dt = jnp.float64 if spec.dtype == "float64" else jnp.float32
    p = {k: jnp.asarray(v, dt) for k, v in params.items()}
    X = jnp.asarray(candidates("sobol", spec.n, spec.dim), dt)
    n = spec.n
    K = kernel_matrix(spec.kernel, X, X, jnp.asarray(spec.lengthscale, dt), jnp.asarray(1.0, dt))
    K = K + spec.nugget * jnp.eye(n, dtype=dt)
    L = jnp.linalg.cholesky(K)
    # a ρ-prior task (rho_prior = k > 0) is its own task: a key of its own
    key = jax.random.fold_in(key, jnp.asarray(params["rho_prior"], jnp.int32))
    z = jax.random.normal(key, (4 * n + spec.steps,), dt)
    k2 = jax.random.fold_in(key, 1)
    u_mask, u_order = jax.random.uniform(k2, (2, n), dt)
    if spec.objective == "gp":
        f = L @ z[:n]
    else:
        raw = TEST_FUNCTIONS[spec.objective][0](X).astype(dt)
        f = (raw - jnp.mean(raw)) / jnp.std(raw)
    g = L @ z[n : 2 * n]
    k_rho = jax.random.fold_in(key, 100 + jnp.asarray(params["rho_prior"], jnp.int32))
    rho_drawn = jnp.asarray(RHO_GRID, dt)[jax.random.randint(k_rho, (), 0, RHO_GRID.size)]
    rho = jnp.where(p["rho_prior"] > 0, rho_drawn, jnp.clip(p["rho"], -1.0, 1.0))
    a_star = rho * f + jnp.sqrt(1.0 - rho * rho) * g
    mask = u_mask < p["access"]
    a = warp(a_star, p["warp"]) + jnp.sqrt(p["feedback_var"]) * z[2 * n : 3 * n]
    a = jnp.where(mask, a, 0.0)
    return {
        "X": X,
        "K": K,
        "f": f,
        "rho": rho,
        "mask": mask,
        "a": a,
        "z_obs": z[4 * n :],
        "u_order": u_order,
    }


def feedback_moments(K, mask, a, feedback_var):
    """The feedback's contribution: :math:`m_0 = K_{XM}A^{-1}a_M`, :math:`C = K_{XM}A^{-1}K_{MX}`.

    Fixed shapes: inaccessible points get a unit row and column in :math:`A` and zero
    feedback, so they change nothing.

    Args:
        K: prior covariance on the pool, shape ``(n, n)``.
        mask: accessible points, shape ``(n,)`` bool.
        a: feedback values (ignored where ``mask`` is False), shape ``(n,)``.
        feedback_var: :math:`\\tau^2 > 0`.

    Returns:
        ``(m0, C)``, shapes ``(n,)`` and ``(n, n)``; given :math:`a` and :math:`\\rho`,
        :math:`f \\sim N(\\rho m_0, K - \\rho^2 C)`.

    Example:
        >>> import jax.numpy as jnp
        >>> m0, C = feedback_moments(jnp.eye(2), jnp.array([True, False]),
        ...                          jnp.array([2.0, 5.0]), 1.0)
        >>> m0.round(5).tolist(), C.round(5).tolist()
        ([1.0, 0.0], [[0.5, 0.0], [0.0, 0.0]])
    """
    m = mask.astype(K.dtype)
    A = K * (m[:, None] * m[None, :]) + jnp.diag(jnp.where(mask, feedback_var, 1.0))
    La = jnp.linalg.cholesky(A)
    KM = K * m[None, :]  # K_{XM}, zero columns outside M
    W = jax.scipy.linalg.solve_triangular(La, KM.T, lower=True)  # (n, n) = La^{-1} K_{MX}
    b = jax.scipy.linalg.solve_triangular(La, m * a, lower=True)
    return W.T @ b, W.T @ W


def _buffer_cov(M, idx, used):
    """``M[idx][:, idx]`` with unused slots replaced by unit rows and columns."""
    sub = M[idx][:, idx]
    both = used[:, None] & used[None, :]
    return jnp.where(both, sub, jnp.diag(jnp.where(used, 0.0, 1.0)).astype(M.dtype))


def grid_posterior(K, m0, C, idx, y, used, noise_var, grid, log_prior):
    """Posterior over the grid of :math:`\\rho` and the Gaussian posterior of :math:`f` at each.

    Args:
        K: prior covariance, ``(n, n)``.
        m0: feedback mean term, ``(n,)``.
        C: feedback covariance term, ``(n, n)``.
        idx: evaluated pool indices in a buffer, ``(B,)`` int.
        y: observations, ``(B,)``.
        used: which buffer slots hold data, ``(B,)`` bool.
        noise_var: :math:`\\sigma^2`.
        grid: values of :math:`\\rho`, ``(G,)``.
        log_prior: log prior weights on the grid, ``(G,)`` (``-inf`` excludes a point).

    Returns:
        ``(w, mean, var, loglik)``: posterior weights ``(G,)``, posterior means and
        variances of :math:`f` on the pool given each :math:`\\rho`, ``(G, n)``, and the
        log marginal likelihoods :math:`\\log p(y_D \\mid a, \\rho)`, ``(G,)``.

    Example:
        >>> import jax.numpy as jnp
        >>> K = jnp.eye(2); m0 = jnp.array([1.0, 0.0]); C = jnp.diag(jnp.array([0.5, 0.0]))
        >>> w, mu, var, _ = grid_posterior(K, m0, C, jnp.array([0]), jnp.array([1.0]),
        ...                                jnp.array([True]), 0.5, jnp.array([0.0, 1.0]), jnp.zeros(2))
        >>> [round(float(v), 4) for v in mu[:, 0]]
        [0.6667, 1.0]
    """
    dt = K.dtype
    eye = jnp.eye(idx.shape[0], dtype=dt)
    KDD, CDD = _buffer_cov(K, idx, used), _buffer_cov(C, idx, used)
    KDX = jnp.where(used[:, None], K[idx], 0.0)
    CDX = jnp.where(used[:, None], C[idx], 0.0)
    noise = jnp.where(used, noise_var, 0.0)

    def one(rho):
        r2 = rho * rho
        S = KDD - r2 * CDD + jnp.diag(noise)
        S = jnp.where(used[:, None] & used[None, :], S, eye)
        L = jnp.linalg.cholesky(S)
        r = jnp.where(used, y - rho * m0[idx], 0.0)
        alpha = jax.scipy.linalg.solve_triangular(L, r, lower=True)
        V = jax.scipy.linalg.solve_triangular(L, KDX - r2 * CDX, lower=True)
        ll = -0.5 * alpha @ alpha - jnp.sum(jnp.log(jnp.diag(L))) - 0.5 * jnp.sum(used) * np.log(2 * np.pi)
        mean = rho * m0 + V.T @ alpha
        var = jnp.maximum(jnp.diag(K) - r2 * jnp.diag(C) - jnp.sum(V * V, axis=0), 0.0)
        return mean, var, ll

    mean, var, ll = jax.vmap(one)(jnp.asarray(grid, dt))
    w = jax.nn.softmax(ll + log_prior)
    return w, mean, var, ll


def expected_improvement(mean, sd, best):
    """Closed-form EI for maximization: :math:`(\\mu - y^\\star)\\Phi(z) + s\\,\\phi(z)`, :math:`z = (\\mu - y^\\star)/s`.

    Args:
        mean: predictive means.
        sd: predictive standard deviations (``0`` gives :math:`\\max(\\mu - y^\\star, 0)`).
        best: incumbent :math:`y^\\star`.

    Returns:
        EI, broadcast shape.

    Example:
        >>> import jax.numpy as jnp
        >>> round(float(expected_improvement(jnp.array(0.0), jnp.array(1.0), 0.0)), 5)  # 1/sqrt(2 pi)
        0.39894
    """
    pos = sd > 0
    s = jnp.where(pos, sd, 1.0)
    z = (mean - best) / s
    ei = (mean - best) * jax.scipy.stats.norm.cdf(z) + s * jax.scipy.stats.norm.pdf(z)
    return jnp.where(pos, jnp.maximum(ei, 0.0), jnp.maximum(mean - best, 0.0))


def mixture_cdf(y, w, mean, var):
    """CDF at ``y`` of the mixture :math:`\\sum_g w_g N(\\mu_g, v_g)`.

    Args:
        y: a value.
        w: weights, ``(G,)``.
        mean: means, ``(G,)``.
        var: variances, ``(G,)`` (positive).

    Returns:
        :math:`F(y) \\in [0, 1]`.

    Example:
        >>> import jax.numpy as jnp
        >>> float(mixture_cdf(0.0, jnp.array([0.5, 0.5]), jnp.array([-1.0, 1.0]), jnp.ones(2)))
        0.5
    """
    return jnp.sum(w * jax.scipy.stats.norm.cdf((y - mean) / jnp.sqrt(var)))


class PolicyState(NamedTuple):
    """State of the stand-in policy: the task's moments and a buffer of evaluations.

    Attributes:
        K: prior covariance ``(n, n)``.
        m0: feedback mean term ``(n,)``.
        C: feedback covariance term ``(n, n)``.
        idx: evaluated indices ``(T,)``.
        y: observations ``(T,)``.
        used: filled slots ``(T,)``.
        seen: evaluated pool points ``(n,)`` bool.
        t: number of observations.
    """

    K: jax.Array
    m0: jax.Array
    C: jax.Array
    idx: jax.Array
    y: jax.Array
    used: jax.Array
    seen: jax.Array
    t: jax.Array


def policy_init(K, m0, C, steps: int) -> PolicyState:
    """An empty buffer of ``steps`` slots for the task with moments ``(K, m0, C)``.

    Args:
        K: prior covariance.
        m0: feedback mean term (zeros for no feedback).
        C: feedback covariance term (zeros for no feedback).
        steps: buffer size :math:`T`.

    Returns:
        A :class:`PolicyState`.

    Example:
        >>> import jax.numpy as jnp
        >>> policy_init(jnp.eye(3), jnp.zeros(3), jnp.zeros((3, 3)), 2).idx.shape
        (2,)
    """
    n = K.shape[0]
    return PolicyState(
        K=K,
        m0=m0,
        C=C,
        idx=jnp.zeros((steps,), jnp.int32),
        y=jnp.zeros((steps,), K.dtype),
        used=jnp.zeros((steps,), bool),
        seen=jnp.zeros((n,), bool),
        t=jnp.asarray(0, jnp.int32),
    )


def policy_propose(state: PolicyState, key, noise_var, grid, log_prior):
    """Maximize the mixture EI over the unevaluated pool points.

    Args:
        state: a :class:`PolicyState`.
        key: PRNG key (unused: the policy is deterministic; kept for the interface).
        noise_var: :math:`\\sigma^2`.
        grid: the :math:`\\rho` grid.
        log_prior: log prior weights on the grid.

    Returns:
        ``(i, info)``: the chosen index and a dict with the grid weights ``w`` and the
        predictive means and variances of :math:`y` at ``i`` per grid point
        (``mean_i``, ``var_i``).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> s = policy_init(jnp.eye(3), jnp.array([0.0, 1.0, 0.0]), jnp.zeros((3, 3)), 2)
        >>> int(policy_propose(s, None, 0.01, jnp.array([1.0]), jnp.zeros(1))[0])
        1
    """
    del key
    w, mean, var, _ = grid_posterior(
        state.K, state.m0, state.C, state.idx, state.y, state.used, noise_var, grid, log_prior
    )
    best = jnp.where(state.t > 0, jnp.max(jnp.where(state.used, state.y, -jnp.inf)), jnp.max(w @ mean))
    ei = w @ expected_improvement(mean, jnp.sqrt(var), best)
    i = jnp.argmax(jnp.where(state.seen, -jnp.inf, ei))
    return i, {"w": w, "mean_i": mean[:, i], "var_i": var[:, i] + noise_var}


def policy_observe(state: PolicyState, i, y) -> PolicyState:
    """Record the observation ``y`` at pool index ``i`` in the next slot.

    Args:
        state: a :class:`PolicyState`.
        i: pool index.
        y: observed value.

    Returns:
        The updated :class:`PolicyState`.

    Example:
        >>> import jax.numpy as jnp
        >>> s = policy_observe(policy_init(jnp.eye(3), jnp.zeros(3), jnp.zeros((3, 3)), 2), 2, 1.5)
        >>> int(s.t), s.y.tolist(), s.seen.tolist()
        (1, [1.5, 0.0], [False, False, True])
    """
    return state._replace(
        idx=state.idx.at[state.t].set(jnp.asarray(i, jnp.int32)),
        y=state.y.at[state.t].set(y),
        used=state.used.at[state.t].set(True),
        seen=state.seen.at[i].set(True),
        t=state.t + 1,
    )


def _bo_loop(state, f, z_obs, noise_var, grid, log_prior):
    sd = jnp.sqrt(noise_var)

    def step(st, z):
        i, info = policy_propose(st, None, noise_var, grid, log_prior)
        y = f[i] + sd * z
        u = mixture_cdf(y, info["w"], info["mean_i"], info["var_i"])
        rho_hat = info["w"] @ grid
        return policy_observe(st, i, y), (i, u, rho_hat)

    _, (i, u, rho_hat) = jax.lax.scan(step, state, z_obs)
    return i, u, rho_hat


def run(spec: FeedbackSpec, params: dict, key) -> dict:
    """One task: feedback-aware EI, GP-EI without feedback and greedy-on-feedback, paired.

    Args:
        spec: :class:`FeedbackSpec`.
        params: see :data:`FEEDBACK_PARAMS`.
        key: the lane's PRNG key (the task).

    Returns:
        Per step (dim ``step``, length :math:`T`): ``regret_fb``, ``regret_nofb``,
        ``regret_greedy`` (simple regret :math:`\\max f - \\max_{j \\le t} f(x_j)` of the
        three policies), ``pit_fb`` and ``pit_nofb`` (the predictive CDF of each
        observation before it is made; a 90 % central interval covers it when it lies in
        [0.05, 0.95]), ``covered_fb`` / ``covered_nofb`` (that indicator) and ``rho_hat``
        (grid-posterior mean of :math:`\\rho` before step ``t``, i.e. after ``t``
        observations). Scalars: ``rho_hat_probe`` (``rho_hat`` at ``spec.probe``),
        ``coverage_fb`` / ``coverage_nofb`` (fractions over the steps), ``f_max``, ``rho_true``.

    Example:
        >>> import jax
        >>> out = jax.jit(run, static_argnums=0)(FeedbackSpec(n=32, steps=5, probe=2), dict(FEEDBACK_PARAMS), jax.random.key(0))
        >>> out["regret_fb"].shape, bool((out["regret_fb"][1:] <= out["regret_fb"][:-1]).all())
        ((5,), True)
    """
    dt = jnp.float64 if spec.dtype == "float64" else jnp.float32
    p = {k: jnp.asarray(v, dt) for k, v in params.items()}
    task = sample_task(spec, params, key)
    K, f, T = task["K"], task["f"], spec.steps
    noise = jnp.maximum(p["noise_var"], 1e-8)
    m0, C = feedback_moments(K, task["mask"], task["a"], p["feedback_var"])
    grid = jnp.asarray(RHO_GRID, dt)

    i_fb, u_fb, rho_hat = _bo_loop(
        policy_init(K, m0, C, T), f, task["z_obs"], noise, grid, jnp.zeros_like(grid)
    )
    i_no, u_no, _ = _bo_loop(
        policy_init(K, jnp.zeros_like(m0), jnp.zeros_like(C), T),
        f,
        task["z_obs"],
        noise,
        jnp.zeros((1,), dt),
        jnp.zeros((1,), dt),
    )
    lo = jnp.min(jnp.where(task["mask"], task["a"], jnp.inf))
    lo = jnp.where(jnp.any(task["mask"]), lo, 0.0)
    score = jnp.where(task["mask"], task["a"], lo - 1.0 - task["u_order"])
    order = jnp.argsort(-score)[:T]
    f_max = jnp.max(f)

    def simple(ix):
        return f_max - jax.lax.cummax(f[ix])

    def cov(u):
        return ((u >= 0.05) & (u <= 0.95)).astype(dt)

    return {
        "regret_fb": simple(i_fb),
        "regret_nofb": simple(i_no),
        "regret_greedy": simple(order),
        "pit_fb": u_fb,
        "pit_nofb": u_no,
        "covered_fb": cov(u_fb),
        "covered_nofb": cov(u_no),
        "rho_hat": rho_hat,
        "rho_hat_probe": rho_hat[spec.probe],
        "coverage_fb": jnp.mean(cov(u_fb)),
        "coverage_nofb": jnp.mean(cov(u_no)),
        "f_max": f_max,
        "rho_true": task["rho"],
    }


#: The simulator's declaration: an experiment names it instead of restating it. It is
#: not in ``__all__``: ``gp_bandits.SIMULATOR`` is the batch-bandit runner's, this one is
#: ``gp_bandits.feedback.SIMULATOR``.
SIMULATOR = Simulator(
    run,
    spec=FeedbackSpec(),
    params=FEEDBACK_PARAMS,
    metric_dims={
        m: ("step",)
        for m in (
            "regret_fb",
            "regret_nofb",
            "regret_greedy",
            "pit_fb",
            "pit_nofb",
            "covered_fb",
            "covered_nofb",
            "rho_hat",
        )
    },
)
