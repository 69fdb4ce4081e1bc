r"""Group DRO as a two-player game with flexible sample queries (arXiv:2505.15212).

GDRO is :math:`\min_{w \in W}\max_{q \in \Delta_m}\varphi(w, q)`,
:math:`\varphi(w, q) = \sum_i q_i R_i(w)`, :math:`R_i(w) = \mathbb E_{z \sim P_i}\,l(w; z)`.
In round :math:`t` the learner queries :math:`r_t` samples, each from a distinct group:

1. the q-player draws :math:`i_t \sim q_t`, then :math:`r_t - 1` further groups
   uniformly from the other :math:`m - 1` (:func:`sample_queries`), so that group
   :math:`i` is queried with probability
   :math:`o_{t,i} = q_{t,i} + (1 - q_{t,i})(r_t - 1)/(m - 1)` (:func:`inclusion_probabilities`;
   ``jax.random.choice(p=q, replace=False)`` has other inclusion probabilities);
2. the w-player takes :math:`g_t = \nabla_w l(w_t; z_t^{(i_t)})`, an unbiased gradient of
   :math:`\varphi(\cdot, q_t)`, and runs lazy projected dual averaging
   (:func:`jaxtheory.optim.dual_averaging`) with :math:`\eta^w_t = D/(G\sqrt t)`;
3. the q-player sees :math:`s_{t,i} = 1 - l(w_t; z_t^{(i)})` for :math:`i \in S_t` and
   runs anytime exponential weights (:func:`jaxtheory.optim.ftrl_entropic`) on the
   estimate :math:`\hat s_{t,i} = s_{t,i}\mathbf 1[i = i_t]/(q_{t,i} + \gamma_t)` (IX) when
   :math:`r_t = 1` and :math:`\hat s_{t,i} = s_{t,i}\mathbf 1[i \in S_t]/o_{t,i}` (IW) when
   :math:`r_t \ge 2`, with :math:`\eta^q_t = \sqrt{\log m / \sum_{j \le t} m/r_j}` and
   :math:`\gamma_t = \eta^q_t/2`.

The algorithm is reconstructed from the paper's abstract and its reviews (no full text
was available); the bound is :math:`\varepsilon_\varphi(\bar w_t, \bar q_t) =
O\big(\tfrac1t\sqrt{\sum_{j \le t}(m/r_j)\log m}\big)`.

**Closed-form instance.** :math:`l(w; z) = \tfrac12(1 + \langle w, z\rangle/(DR))
\in [0, 1]` on :math:`W = \{\lVert w\rVert \le D\}`, :math:`z = \mu_i + \xi`,
:math:`\lVert\mu_i\rVert \le 0.9R`, :math:`\xi` uniform on the cube
:math:`[-\rho/\sqrt d, \rho/\sqrt d]^d` (so :math:`\lVert\xi\rVert \le \rho \le R/10`
and :math:`\lVert z\rVert \le R`).
Then :math:`\max_q\varphi(\bar w, q) = \tfrac12(1 + \max_i\langle\bar w, \mu_i\rangle/(DR))`,
:math:`\min_w\varphi(w, \bar q) = \tfrac12(1 - \lVert\sum_i\bar q_i\mu_i\rVert/R)` and the
game value is :math:`\tfrac12(1 - \operatorname{dist}(0, \operatorname{conv}\mu)/R)`
(:func:`jaxtheory.sims.dro.hull.hull_distance`), so :math:`\varepsilon_\varphi`, its
primal and its dual part are exact at every round (:func:`epsilon_phi`).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.optim import dual_averaging, ftrl_entropic, implicit_exploration_loss, importance_weighted_loss
from jaxtheory.sims._record import log_steps
from jaxtheory.sims.dro.hull import min_norm_point
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "SCHEDULES",
    "DEFAULT_PARAMS",
    "GDROSpec",
    "linear_instance",
    "saddle_point",
    "checkpoints",
    "default_ix_gamma",
    "inclusion_probabilities",
    "sample_queries",
    "schedule_distribution",
    "epsilon_phi",
    "run",
    "SIMULATOR",
]

#: Names of the ``schedule`` codes: fixed :math:`r_t \in \{1, 2, \lfloor m/2\rfloor, m\}`,
#: ``random`` (:math:`r_t` uniform on :math:`\{1..m\}`, i.i.d.), ``alternating``
#: (:math:`r_t = 1` on even rounds, :math:`m` on odd ones).
SCHEDULES = ("r=1", "r=2", "r=m/2", "r=m", "random", "alternating")

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "schedule": 0,
    "radius": 1.0,
    "scale": 1.0,
    "noise": 0.1,
    "ix_gamma": 0.0,
}


@dataclasses.dataclass(frozen=True)
class GDROSpec:
    """What fixes the shapes of a GDRO run (the compile key).

    Attributes:
        groups: :math:`m`, the number of groups.
        dim: :math:`d`, the dimension of :math:`w` and :math:`z`.
        steps: :math:`T`, the rounds of the game.
        checkpoints: how many log-spaced rounds the curves are recorded at.
        first_checkpoint: the first of them.
        draws: Monte Carlo draws of the estimator check (per lane).
        draw_batch: draws per scan step of the estimator check (divides ``draws``).
        instance_seed: the numpy seed of the group means :math:`\\mu_i`
            (:func:`linear_instance`).
    """

    groups: int = 10
    dim: int = 20
    steps: int = 5000
    checkpoints: int = 20
    first_checkpoint: int = 10
    draws: int = 400_000
    draw_batch: int = 10_000
    instance_seed: int = 0


def linear_instance(groups: int, dim: int, seed: int = 0) -> np.ndarray:
    r"""The group means :math:`\mu_i` of the linear instance, in units of :math:`R` (float64).

    :math:`\mu_i = 0.9\,\rho_i\,u_i/\lVert u_i\rVert` with :math:`u_i = e_1/2 + v_i`,
    :math:`v_i \sim N(0, I_d/d)` and :math:`\rho_i` a permutation of ``linspace(0.5, 1, m)``:
    every :math:`\lVert\mu_i\rVert \le 0.9` (noise up to :math:`\rho = 0.1` keeps
    :math:`\lVert z\rVert \le 1`), and the common direction :math:`e_1` keeps :math:`0`
    away from their hull (at the default seed, :math:`m = 10`, :math:`d = 20`, the saddle
    point puts mass on 7 of 10 groups and dist(0, conv μ) = 0.287).

    Args:
        groups: :math:`m`.
        dim: :math:`d`.
        seed: numpy seed.

    Returns:
        ``(m, d)`` float64 array.

    Example:
        >>> mu = linear_instance(10, 20)
        >>> mu.shape, bool(np.linalg.norm(mu, axis=1).max() <= 0.9)
        ((10, 20), True)
    """
    if groups < 2 or dim < 1:
        raise ValueError(f"need groups >= 2 and dim >= 1, got {groups}, {dim}")
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((groups, dim)) / math.sqrt(dim)
    u = v.copy()
    u[:, 0] += 0.5
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    rho = np.linspace(0.5, 1.0, groups)[rng.permutation(groups)]
    return 0.9 * u * rho[:, None]


@functools.lru_cache(maxsize=32)
def _saddle(groups: int, dim: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    mu = linear_instance(groups, dim, seed)
    x, q = min_norm_point(mu)
    return mu, q, float(np.linalg.norm(x))


def saddle_point(spec: GDROSpec) -> dict:
    r"""The instance's exact saddle point and value (float64, units :math:`D = R = 1`).

    Returns:
        ``{"mu", "q_star", "w_star", "dist", "value"}``: the means, the minimax group
        weights (the weights of the least-norm point of :math:`\operatorname{conv}\mu`),
        :math:`w^\star = -x^\star/\lVert x^\star\rVert`, :math:`\operatorname{dist}(0,
        \operatorname{conv}\mu)` and the value :math:`\tfrac12(1 - \text{dist})`.

    Example:
        >>> s = saddle_point(GDROSpec())
        >>> round(s["value"], 4), int((s["q_star"] > 0).sum())
        (0.3567, 7)
    """
    mu, q, dist = _saddle(spec.groups, spec.dim, spec.instance_seed)
    x = q @ mu
    w = -x / dist if dist > 0 else np.zeros_like(x)
    return {"mu": mu, "q_star": q, "w_star": w, "dist": dist, "value": 0.5 * (1.0 - dist)}


def checkpoints(spec: GDROSpec) -> np.ndarray:
    """The rounds the curves are recorded at: log-spaced from ``first_checkpoint`` to ``steps``.

    Example:
        >>> checkpoints(GDROSpec(steps=1000, checkpoints=4, first_checkpoint=1)).tolist()
        [1, 10, 100, 1000]
    """
    return log_steps(spec.steps, spec.checkpoints, start=spec.first_checkpoint)


def default_ix_gamma(groups: int) -> float:
    r"""The estimator check's :math:`\gamma`: the game's :math:`\gamma_t` at :math:`t = 100`, :math:`r = 1`.

    :math:`\gamma = \tfrac12\sqrt{\log m/(100\,m)}` (0.024 at :math:`m = 10`).

    Example:
        >>> round(default_ix_gamma(10), 4)
        0.024
    """
    return 0.5 * math.sqrt(math.log(groups) / (100.0 * groups))


def inclusion_probabilities(q: jax.Array, r: jax.Array) -> jax.Array:
    r""":math:`o_i = q_i + (1 - q_i)(r - 1)/(m - 1)`: the chance that :func:`sample_queries` includes group :math:`i`.

    Args:
        q: ``(m,)`` probabilities of the first draw.
        r: the number of distinct groups queried, :math:`1 \le r \le m` (may be traced).

    Returns:
        ``(m,)`` inclusion probabilities (they sum to :math:`r`).

    Example:
        >>> print(inclusion_probabilities(jnp.array([0.5, 0.3, 0.2]), 2))
        [0.75 0.65 0.6 ]
    """
    m = q.shape[-1]
    return q + (1.0 - q) * (jnp.asarray(r, q.dtype) - 1.0) / (m - 1)


def sample_queries(key: jax.Array, q: jax.Array, r: jax.Array) -> tuple[jax.Array, jax.Array]:
    r"""The queried set :math:`S`: :math:`i \sim q`, then :math:`r - 1` others uniformly from the rest.

    The others are the :math:`r - 1` groups of smallest i.i.d. uniform keys among
    :math:`[m] \setminus \{i\}` (by rank, ties broken by index, so exactly :math:`r`
    distinct groups), a uniform subset; static shapes, so :math:`r` may be traced.

    Args:
        key: PRNG key.
        q: ``(m,)`` probabilities of the first draw.
        r: the number of groups to query, :math:`1 \le r \le m` (may be traced).

    Returns:
        ``(chosen, included)``: boolean ``(m,)`` masks of :math:`i` (one-hot) and of
        :math:`S` (:math:`r` entries, :math:`i` among them).

    Example:
        >>> c, s = sample_queries(jax.random.key(0), jnp.full(5, 0.2), 3)
        >>> int(c.sum()), int(s.sum()), bool(s[jnp.argmax(c)])
        (1, 3, True)
    """
    m = q.shape[-1]
    k1, k2 = jax.random.split(key)
    chosen = jnp.arange(m) == jax.random.categorical(k1, jnp.log(q))
    return chosen, _others(chosen, jax.random.uniform(k2, (m,)), r)


def _others(chosen: jax.Array, u: jax.Array, r: jax.Array) -> jax.Array:
    """S from the one-hot ``chosen`` and uniform keys ``u`` (last axis m): the r - 1 smallest others."""
    u = jnp.where(chosen, 2.0, u)  # the first draw ranks last among the keys
    m = u.shape[-1]
    # rank_j = #{k: u_k < u_j, or u_k = u_j and k < j}: a permutation of 0..m-1 even with ties
    before = (u[..., None, :] < u[..., :, None]) | (
        (u[..., None, :] == u[..., :, None]) & (jnp.arange(m)[None, :] < jnp.arange(m)[:, None])
    )
    rank = jnp.sum(before, axis=-1)
    return chosen | (rank < jnp.asarray(r)[..., None] - 1)


def _fixed_r(code: jax.Array, m: int) -> jax.Array:
    return jnp.asarray([1, min(2, m), max(1, m // 2), m, 0, 0], jnp.int32)[code]


def schedule_distribution(code: jax.Array, m: int) -> jax.Array:
    r"""The marginal law of :math:`r_t` of a schedule: ``p[k]`` is :math:`P(r_t = k + 1)`.

    Args:
        code: a code into :data:`SCHEDULES` (may be traced).
        m: the number of groups.

    Returns:
        ``(m,)`` probabilities.

    Example:
        >>> print(schedule_distribution(5, 4))
        [0.5 0.  0.  0.5]
    """
    r = jnp.arange(1, m + 1)
    fixed = (r == _fixed_r(code, m)).astype(jnp.float32)
    alt = ((r == 1) | (r == m)).astype(jnp.float32) / jnp.where(m == 1, 1.0, 2.0)
    return jnp.select([code <= 3, code == 4], [fixed, jnp.full((m,), 1.0 / m)], alt)


def _round_r(code: jax.Array, t: jax.Array, key: jax.Array, m: int) -> jax.Array:
    rand = jax.random.randint(key, (), 1, m + 1)
    alt = jnp.where(t % 2 == 0, 1, m)
    return jnp.select([code <= 3, code == 4], [_fixed_r(code, m), rand], alt).astype(jnp.int32)


def epsilon_phi(w_bar, q_bar, mu, radius=1.0, scale=1.0):
    r"""The exact duality gap :math:`\varepsilon_\varphi(\bar w, \bar q)` of the linear instance.

    :math:`\max_q\varphi(\bar w, q) - \min_{\lVert w\rVert \le D}\varphi(w, \bar q) =
    \max_i\frac{\langle\bar w, \mu_i\rangle}{2DR} + \frac{\lVert\sum_i\bar q_i\mu_i\rVert}{2R}`.

    Args:
        w_bar: ``(d,)`` the w-player's point, :math:`\lVert\bar w\rVert \le D`.
        q_bar: ``(m,)`` the q-player's point on the simplex.
        mu: ``(m, d)`` the group means.
        radius: :math:`D`.
        scale: :math:`R`.

    Returns:
        ``(eps, max_q phi, min_w phi)``.

    Example:
        >>> mu = jnp.array([[0.5, 0.0], [0.0, 0.5]])
        >>> eps, hi, lo = epsilon_phi(jnp.array([-0.6, -0.8]), jnp.array([0.5, 0.5]), mu)
        >>> print(round(float(hi), 4), round(float(lo), 4))
        0.35 0.3232
    """
    hi = 0.5 * (1.0 + jnp.max(mu @ w_bar) / (radius * scale))
    lo = 0.5 * (1.0 - jnp.linalg.norm(q_bar @ mu) / scale)
    return hi - lo, hi, lo


def _losses(w, z, radius, scale):
    """s_i = 1 - l(w; z_i) for every group."""
    return 0.5 * (1.0 - (z @ w) / (radius * scale))


def _estimator_check(spec: GDROSpec, params: dict, key: jax.Array, mu: jax.Array, w_ref: jax.Array):
    """Monte Carlo of the queried sets and the loss estimates at a fixed q and w."""
    m, d = spec.groups, spec.dim
    code = jnp.asarray(params["schedule"], jnp.int32)
    radius, scale = params["radius"], params["scale"]
    q = jnp.arange(m, 3 * m, 2, dtype=jnp.float32)
    q = q / q.sum()  # q_i ∝ m + 2i: skewed, with q_i ≥ 1/(2m − 1) so every o_i is well sampled
    gamma = jnp.where(params["ix_gamma"] > 0, params["ix_gamma"], default_ix_gamma(m)).astype(jnp.float32)
    p_r = schedule_distribution(code, m)
    half = params["noise"] * scale / math.sqrt(d)
    # only <w_ref, xi> enters the losses and w_ref = D e_1: one uniform coordinate per group
    base = _losses(w_ref, mu, radius, scale)

    def body(acc, k):
        kr, ki, ku, kn = jax.random.split(k, 4)
        B = spec.draw_batch
        r = jax.random.categorical(kr, jnp.log(p_r), shape=(B,)) + 1
        chosen = jnp.arange(m) == jax.random.categorical(ki, jnp.log(q), shape=(B,))[:, None]
        included = _others(chosen, jax.random.uniform(ku, (B, m)), r)
        xi1 = jax.random.uniform(kn, (B, m), minval=-half, maxval=half)
        s = base - 0.5 * w_ref[0] * xi1 / (radius * scale)
        o = inclusion_probabilities(q, r[:, None])
        est = jnp.where(
            r[:, None] == 1,
            implicit_exploration_loss(s, chosen, q, gamma),
            importance_weighted_loss(s, included, o),
        )
        return (acc[0] + included.sum(0), acc[1] + est.sum(0)), None

    if spec.draws % spec.draw_batch:
        raise ValueError(f"draw_batch {spec.draw_batch} does not divide draws {spec.draws}")
    zeros = jnp.zeros((m,), jnp.float32)
    (inc, est), _ = jax.lax.scan(body, (zeros, zeros), jax.random.split(key, spec.draws // spec.draw_batch))
    rs = jnp.arange(1, m + 1, dtype=jnp.float32)
    o_exact = jnp.einsum("k,km->m", p_r, jax.vmap(lambda r: inclusion_probabilities(q, r))(rs))
    target = base * (p_r[0] * q / (q + gamma) + (1.0 - p_r[0]))
    return {
        "incl_freq": inc / spec.draws,
        "incl_prob": o_exact,
        "est_mean": est / spec.draws,
        "est_target": target,
        "loss_mean": base,
        "check_q": q,
        "check_gamma": gamma,
    }


def run(spec: GDROSpec, params: dict, key: jax.Array) -> dict:
    r"""One GDRO game with flexible sample queries on the linear instance; pure, jittable, vmappable.

    Args:
        spec: a :class:`GDROSpec`.
        params: ``schedule`` (code into :data:`SCHEDULES`), ``radius`` (:math:`D`),
            ``scale`` (:math:`R`), ``noise`` (:math:`\rho/R \le 1/10`) and ``ix_gamma``
            (the :math:`\gamma` of the estimator check; 0 means :func:`default_ix_gamma`);
            scalars, may be traced.
        key: the lane's PRNG key (round :math:`t` draws from ``fold_in(key, t)``).

    Returns:
        Curves at :func:`checkpoints` (dim ``t``): ``eps``
        (:math:`\varepsilon_\varphi(\bar w_t, \bar q_t)`), ``primal_gap``
        (:math:`\max_q\varphi(\bar w_t, q) - V`), ``dual_gap``
        (:math:`V - \min_w\varphi(w, \bar q_t)`), ``bound``
        (:math:`\tfrac1t\sqrt{\sum_{j\le t}(m/r_j)\log m}`) and ``samples``
        (:math:`\sum_{j \le t} r_j`); ``q_final`` (dim ``group``, :math:`\bar q_T`); the
        estimator check at a fixed skewed :math:`q` and :math:`w = De_1` (dim ``group``):
        ``incl_freq`` and ``incl_prob`` (Monte Carlo and exact inclusion
        probabilities, averaged over the schedule's law of :math:`r`), ``est_mean``
        and ``est_target`` (the mean loss estimate and its closed-form expectation:
        :math:`\bar s_i` for IW, :math:`\bar s_i q_i/(q_i + \gamma)` for IX), ``loss_mean``
        (:math:`\bar s_i`), ``check_q``; scalars ``check_gamma`` and ``value``
        (:math:`V`).

    Example:
        >>> spec = GDROSpec(groups=4, dim=3, steps=50, checkpoints=3, draws=100, draw_batch=50)
        >>> out = run(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["eps"].shape, bool((out["eps"] >= 0).all())
        ((3,), True)
    """
    m, d, T = spec.groups, spec.dim, spec.steps
    sad = saddle_point(spec)
    radius = jnp.asarray(params["radius"], jnp.float32)
    scale = jnp.asarray(params["scale"], jnp.float32)
    mu = jnp.asarray(sad["mu"], jnp.float32) * scale
    value = jnp.float32(sad["value"])
    code = jnp.asarray(params["schedule"], jnp.int32)
    half = params["noise"] * scale / math.sqrt(d)
    G = 1.0 / (2.0 * radius)  # ||grad_w l|| = ||z||/(2DR) <= 1/(2D)
    w_opt = dual_averaging(radius, lambda k: radius / (G * jnp.sqrt(k + 1.0)))
    log_m = math.log(m)
    k_game, k_check = jax.random.split(key)

    def step(carry, t):
        w, ws, q, qs, sum_w, sum_q, sum_mr, sum_r = carry
        kr, kq, kz = jax.random.split(jax.random.fold_in(k_game, t), 3)
        r = _round_r(code, t, kr, m)
        sum_mr = sum_mr + m / r.astype(jnp.float32)
        eta = jnp.sqrt(log_m / sum_mr)
        gamma = eta / 2.0
        chosen, included = sample_queries(kq, q, r)
        z = mu + jax.random.uniform(kz, (m, d), minval=-half, maxval=half)
        s = _losses(w, z, radius, scale)
        o = inclusion_probabilities(q, r)
        s_hat = jnp.where(
            r == 1, implicit_exploration_loss(s, chosen, q, gamma), importance_weighted_loss(s, included, o)
        )
        g = chosen.astype(jnp.float32) @ z / (2.0 * radius * scale)
        sum_w, sum_q = sum_w + w, sum_q + q
        tf = t.astype(jnp.float32)
        eps, hi, lo = epsilon_phi(sum_w / tf, sum_q / tf, mu, radius, scale)
        sum_r = sum_r + r
        bound = jnp.sqrt(sum_mr * log_m) / tf
        u, ws = w_opt.update(g, ws, w)
        q_opt = ftrl_entropic(eta)
        v, qs = q_opt.update(s_hat, qs, q)
        carry = (w + u, ws, q + v, qs, sum_w, sum_q, sum_mr, sum_r)
        return carry, (eps, hi - value, value - lo, bound, sum_r)

    w0 = jnp.zeros((d,), jnp.float32)
    q0 = jnp.full((m,), 1.0 / m, jnp.float32)
    carry0 = (
        w0,
        w_opt.init(w0),
        q0,
        ftrl_entropic(1.0).init(q0),
        w0,
        jnp.zeros((m,), jnp.float32),
        jnp.float32(0.0),
        jnp.int32(0),
    )
    carry, (eps, primal, dual, bound, samples) = jax.lax.scan(step, carry0, jnp.arange(1, T + 1))
    idx = jnp.asarray(checkpoints(spec) - 1)
    w_ref = jnp.zeros((d,), jnp.float32).at[0].set(radius)
    out = {
        "eps": eps[idx],
        "primal_gap": primal[idx],
        "dual_gap": dual[idx],
        "bound": bound[idx],
        "samples": samples[idx].astype(jnp.float32),
        "q_final": carry[5] / T,
        "value": value,
    }
    out.update(_estimator_check(spec, params, k_check, mu, w_ref))
    return out


#: The simulator's declaration: the query schedule is categorical (labels
#: :data:`SCHEDULES`); curves at the checkpoints ``t``, per-group checks over ``group``.
SIMULATOR = Simulator(
    run,
    spec=GDROSpec(),
    params={**DEFAULT_PARAMS, "schedule": categorical(*SCHEDULES)},
    metric_dims={
        **{k: ("t",) for k in ("eps", "primal_gap", "dual_gap", "bound", "samples")},
        **{
            k: ("group",)
            for k in ("q_final", "incl_freq", "incl_prob", "est_mean", "est_target", "loss_mean", "check_q")
        },
    },
    coords=lambda spec: {"t": checkpoints(spec), "group": np.arange(spec.groups)},
)
