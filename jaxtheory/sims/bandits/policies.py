"""Best-arm identification policies as pure ``(init, act, update, stop, refresh)`` functions.

A :class:`Policy` is a tuple of pure functions over a NamedTuple state:

* ``init(params) -> state``;
* ``act(state, params, u) -> (arm, probs)``: the sampling distribution
  :math:`p_t` of the round (one-hot for deterministic samplers) and the arm drawn from
  it with the learner's fresh uniform ``u``. The runner shows the adversary ``probs``
  only, never ``u``;
* ``update(state, arm, probs, reward, params) -> state``;
* ``stop(state, params) -> (stop, recommendation)``; when the sampler does not read δ,
  ``params["delta"]`` may be a vector (a δ-grid) and both outputs then have its shape;
* ``refresh(state, params) -> state``: expensive bookkeeping (Track-and-Stop's optimal
  weights) that the runner calls once every ``spec.refresh`` rounds;
* ``sampling_uses_delta``: whether ``act``/``update`` read δ. When they do not (ISM
  without elimination, Track-and-Stop, uniform, round-robin), one trajectory serves a
  whole grid of δ: only ``stop`` is evaluated per δ.

Policies (:data:`POLICIES`):

* ``ism_theory`` - ISM, uniform sampling, importance-weighted gap estimates
  :math:`S^{ab}(t) = \\sum_s X_s(1\\{A_s=a\\}/p_s(a) - 1\\{A_s=b\\}/p_s(b))`, stop when
  :math:`S^{\\hat a b} > \\beta_{\\hat a b}(t, \\delta)` for all :math:`b \\ne \\hat a` with
  the provably δ-correct threshold of :func:`~.thresholds.ism_theory_threshold`.
* ``ism_practical`` - ISM with the self-normalised heuristic: stop when
  :math:`S^{\\hat a b} > 0` and :math:`(S^{\\hat a b})^2 / (2 V^{\\hat a b}) > \\ln((1+\\ln t)/\\delta)`
  with :math:`V^{ab} = \\sum_s (Z^{ab}_s)^2`.
* ``ism_eb`` - ISM with an empirical-Bernstein heuristic:
  :math:`\\beta = \\sqrt{2 \\hat v_{ab} t L_t} + \\tfrac{2}{3}(K+2) U L_t` with the running
  variance :math:`\\hat v_{ab}` of :math:`Z^{ab}` in place of the worst case
  :math:`2K(\\sigma^2 + U^2)` (not covered by a proof; checked empirically).
* ``ism_elim`` - ISM with successive elimination: uniform over the active set,
  eliminate :math:`b` once :math:`S^{\\hat a b}` exceeds the δ-correct threshold
  :math:`\\sqrt{4U^2 \\sum_s k_s L'_t} + \\tfrac{2}{3}(K+2)UL'_t + \\sqrt{2\\sigma^2 Q_{ab} L'_t}`
  (:math:`k_s` active arms at round :math:`s`, :math:`Q_{ab} = \\sum_{s: A_s \\in\\{a,b\\}} k_s^2`,
  :math:`L'_t = L_t + 2\\ln K`); ``ism_elim_practical`` uses the self-normalised rule.
* ``tas_d`` / ``tas_c`` - Track-and-Stop (Gaussian) with D-tracking (forced exploration
  when :math:`\\min_a N_a \\le \\max(\\sqrt t - K/2, 0)`, else
  :math:`\\arg\\max_a (w^*_a(\\hat\\mu) - N_a/t)`) or C-tracking (cumulative weights
  projected on :math:`\\{w_a \\ge \\varepsilon_t\\}`, :math:`\\varepsilon_t = \\tfrac12 (K^2+t)^{-1/2}`),
  Chernoff / GLRT stopping
  :math:`\\min_{b \\ne \\hat a} \\frac{N_{\\hat a} N_b}{N_{\\hat a} + N_b}
  \\frac{(\\hat\\mu_{\\hat a} - \\hat\\mu_b)^2}{2\\sigma^2} > \\ln\\frac{1+\\ln t}{\\delta}`.
* ``uniform_glrt`` / ``rr_glrt`` - uniform random or round-robin sampling with the same
  GLRT stop.
* ``lucb`` - LUCB: pull the empirical best :math:`h` and the challenger
  :math:`l = \\arg\\max_{b\\ne h} \\mathrm{UCB}_b` in turn, stop when
  :math:`\\mathrm{LCB}_h > \\mathrm{UCB}_l`, radius :math:`\\sqrt{2\\sigma^2\\beta(t,\\delta)/N_a}`
  with the same exploration rate as the GLRT.

``params`` keys used: ``delta``, ``sigma``, ``U``.

References:
    Garivier and Kaufmann (2016), arXiv:1602.04589 (Track-and-Stop, GLRT stopping).
    Kalyanakrishnan, Tewari, Auer and Stone (2012), ICML (LUCB).
    Even-Dar, Mannor and Mansour (2006), JMLR (successive elimination).
    Best-arm identification under Shifting Means (ISM: importance weights).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxtheory.sims.bandits.oracle import gaussian_kl, optimal_weights, optimal_weights_gaussian
from jaxtheory.sims.bandits.thresholds import (
    glrt_threshold,
    ism_log_term,
    ism_theory_threshold,
)

__all__ = [
    "POLICIES",
    "Policy",
    "ISMState",
    "TaSState",
    "GLRTState",
    "LUCBState",
    "make_policy",
    "sample_from",
    "glrt_statistic",
    "project_floor",
]

#: Policy names accepted by :func:`make_policy` (see the module docstring).
POLICIES = (
    "ism_theory",
    "ism_practical",
    "ism_eb",
    "ism_elim",
    "ism_elim_practical",
    "tas_d",
    "tas_c",
    "uniform_glrt",
    "rr_glrt",
    "lucb",
)


class Policy(NamedTuple):
    """A best-arm identification policy as pure functions (see the module docstring).

    Example:
        >>> pol = make_policy("rr_glrt", 3)
        >>> s = pol.init({"delta": 0.1, "sigma": 1.0, "U": 1.0})
        >>> int(pol.act(s, {}, 0.5)[0])
        0
    """

    init: Callable[[dict], Any]
    act: Callable[[Any, dict, jax.Array], tuple[jax.Array, jax.Array]]
    update: Callable[[Any, jax.Array, jax.Array, jax.Array, dict], Any]
    stop: Callable[[Any, dict], tuple[jax.Array, jax.Array]]
    refresh: Callable[[Any, dict], Any]
    sampling_uses_delta: bool = False


class ISMState(NamedTuple):
    """State of the ISM family.

    Attributes:
        t: rounds played.
        n: pulls per arm.
        g: importance-weighted sums :math:`\\sum_s X_s 1\\{A_s=a\\}/p_s(a)`.
        q: :math:`\\sum_s X_s^2 1\\{A_s=a\\}/p_s(a)^2`, so :math:`V^{ab} = q_a + q_b`.
        active: arms still in play (all, without elimination).
        sum_k: :math:`\\sum_s k_s`, :math:`k_s` the number of active arms at round ``s``.
        qk: :math:`\\sum_{s: A_s = a} k_s^2`.
    """

    t: jax.Array
    n: jax.Array
    g: jax.Array
    q: jax.Array
    active: jax.Array
    sum_k: jax.Array
    qk: jax.Array


class GLRTState(NamedTuple):
    """State of the empirical-mean samplers (uniform, round-robin).

    Attributes:
        t: rounds played.
        n: pulls per arm.
        s: reward sums per arm.
    """

    t: jax.Array
    n: jax.Array
    s: jax.Array


class TaSState(NamedTuple):
    """State of Track-and-Stop.

    Attributes:
        t: rounds played.
        n: pulls per arm.
        s: reward sums per arm.
        w: optimal weights :math:`w^*(\\hat\\mu)` from the last refresh.
        sumw: C-tracking's cumulative projected weights.
    """

    t: jax.Array
    n: jax.Array
    s: jax.Array
    w: jax.Array
    sumw: jax.Array


class LUCBState(NamedTuple):
    """State of LUCB.

    Attributes:
        t: rounds played.
        n: pulls per arm.
        s: reward sums per arm.
        pending: the challenger to pull next round, or ``-1``.
    """

    t: jax.Array
    n: jax.Array
    s: jax.Array
    pending: jax.Array


def _fdtype():
    return jnp.result_type(float)


def sample_from(probs: jax.Array, u) -> jax.Array:
    """Draw an arm from ``probs`` by inverting the CDF at the uniform ``u``.

    .. math:: A = \\#\\{a < K - 1 : F(a) \\le u F(K-1)\\},\\quad F = \\mathrm{cumsum}(p),\\ u \\sim U[0,1).

    Args:
        probs: nonnegative weights, shape ``(K,)``.
        u: uniform draw in ``[0, 1)``.

    Returns:
        int32 arm index.

    Example:
        >>> int(sample_from(jnp.array([0.0, 1.0, 0.0]), 0.7))
        1
        >>> int(sample_from(jnp.array([0.5, 0.25, 0.25]), 0.6))
        1
    """
    cdf = jnp.cumsum(probs)
    return jnp.sum(cdf[:-1] <= u * cdf[-1]).astype(jnp.int32)


def glrt_statistic(n: jax.Array, s: jax.Array, sigma) -> tuple[jax.Array, jax.Array]:
    """Gaussian Chernoff / GLR statistic of the empirical best arm against its closest rival.

    .. math::
        Z(t) = \\min_{b \\ne \\hat a} \\frac{N_{\\hat a} N_b}{N_{\\hat a} + N_b}
        \\frac{(\\hat\\mu_{\\hat a} - \\hat\\mu_b)^2}{2\\sigma^2}.

    Args:
        n: pulls per arm (all positive for a meaningful value).
        s: reward sums per arm.
        sigma: assumed noise standard deviation.

    Returns:
        ``(Z, a_hat)``.

    Example:
        >>> Z, a = glrt_statistic(jnp.array([2, 2]), jnp.array([2.0, 0.0]), 1.0)
        >>> float(Z), int(a)
        (0.5, 0)
    """
    nf = jnp.maximum(n, 1).astype(s.dtype)
    mu = s / nf
    a_hat = jnp.argmax(mu)
    na = nf[a_hat]
    z = na * nf / (na + nf) * gaussian_kl(mu[a_hat], mu, sigma)
    z = jnp.where(jnp.arange(n.shape[0]) == a_hat, jnp.inf, z)
    return jnp.min(z), a_hat.astype(jnp.int32)


def project_floor(w: jax.Array, eps, n_iter: int = 40) -> jax.Array:
    """Projection of a probability vector onto :math:`\\{v \\in \\Sigma_K : v_a \\ge \\varepsilon\\}`.

    .. math:: v_a = \\max(w_a - \\lambda, \\varepsilon), \\quad \\sum_a v_a = 1,

    with :math:`\\lambda \\ge 0` found by bisection (requires :math:`K\\varepsilon \\le 1`).
    This is the Euclidean projection, and it also attains the smallest
    :math:`\\ell_\\infty` distance (the raised arms must move by
    :math:`\\varepsilon - w_a`; the mass is removed evenly from the others).

    Args:
        w: probability vector, shape ``(K,)``.
        eps: floor.
        n_iter: bisection iterations (static).

    Returns:
        the projected vector.

    Example:
        >>> [round(float(v), 4) for v in project_floor(jnp.array([1.0, 0.0, 0.0]), 0.1)]
        [0.8, 0.1, 0.1]
    """

    def body(_, lh):
        lo, hi = lh
        mid = 0.5 * (lo + hi)
        too_big = jnp.sum(jnp.maximum(w - mid, eps)) > 1.0
        return jnp.where(too_big, mid, lo), jnp.where(too_big, hi, mid)

    lo, hi = jax.lax.fori_loop(0, n_iter, body, (jnp.zeros((), w.dtype), jnp.ones((), w.dtype)))
    return jnp.maximum(w - 0.5 * (lo + hi), eps)


def _identity_refresh(state, params):
    return state


# ---------------------------------------------------------------------------- ISM


def _ism(n_arms: int, threshold: str, eliminate: bool) -> Policy:
    K = n_arms
    arange = jnp.arange(K)

    def init(params):
        f = _fdtype()
        return ISMState(
            t=jnp.zeros((), jnp.int32),
            n=jnp.zeros((K,), jnp.int32),
            g=jnp.zeros((K,), f),
            q=jnp.zeros((K,), f),
            active=jnp.ones((K,), bool),
            sum_k=jnp.zeros((), f),
            qk=jnp.zeros((K,), f),
        )

    def probs_of(state):
        a = state.active.astype(state.g.dtype)
        return a / jnp.sum(a)

    def act(state, params, u):
        p = probs_of(state)
        return sample_from(p, u), p

    def leader_and_gaps(state):
        score = jnp.where(state.active, state.g, -jnp.inf)
        a_hat = jnp.argmax(score)
        S = state.g[a_hat] - state.g
        V = state.q[a_hat] + state.q
        others = state.active & (arange != a_hat)
        return a_hat, S, V, others

    def passes(state, params, S, V, a_hat):
        # δ may be a vector (a δ-grid): a trailing arm axis makes every threshold (D, K).
        t = state.t
        tf = t.astype(S.dtype)
        delta = jnp.asarray(params["delta"], S.dtype)[..., None]
        if threshold == "practical":
            beta = glrt_threshold(t, delta)
            ratio = S**2 / (2.0 * jnp.where(V > 0, V, 1.0))
            return (S > 0) & (V > 0) & (ratio > beta)
        U = jnp.asarray(params["U"], S.dtype)
        sigma = jnp.asarray(params["sigma"], S.dtype)
        if threshold == "theory":
            if eliminate:
                Lp = ism_log_term(t, delta, K, extra_log_k=2.0)
                beta = (
                    jnp.sqrt(4.0 * U**2 * state.sum_k * Lp)
                    + (2.0 / 3.0) * (K + 2.0) * U * Lp
                    + jnp.sqrt(2.0 * sigma**2 * (state.qk[a_hat] + state.qk) * Lp)
                )
            else:
                n_ab = (state.n[a_hat] + state.n).astype(S.dtype)
                beta = ism_theory_threshold(t, n_ab, delta, K, U, sigma)
            return S > beta
        if threshold == "eb":
            L = ism_log_term(t, delta, K)
            tt = jnp.maximum(tf, 1.0)
            var = jnp.maximum(V / tt - (S / tt) ** 2, 0.0)
            beta = jnp.sqrt(2.0 * var * tt * L) + (2.0 / 3.0) * (K + 2.0) * U * L
            return S > beta
        raise ValueError(threshold)

    def update(state, arm, probs, reward, params):
        k = 1.0 / probs[arm]
        onehot = arange == arm
        new = state._replace(
            t=state.t + 1,
            n=state.n + onehot.astype(jnp.int32),
            g=state.g + jnp.where(onehot, reward * k, 0.0),
            q=state.q + jnp.where(onehot, (reward * k) ** 2, 0.0),
            sum_k=state.sum_k + k,
            qk=state.qk + jnp.where(onehot, k**2, 0.0),
        )
        if eliminate:  # (δ is a scalar here: the sampler reads it)
            a_hat, S, V, others = leader_and_gaps(new)
            out = others & passes(new, params, S, V, a_hat).reshape(-1, K)[0]
            new = new._replace(active=new.active & ~out)
        return new

    def stop(state, params):
        if eliminate:
            done = jnp.sum(state.active) == 1
            return done, jnp.argmax(state.active).astype(jnp.int32)
        a_hat, S, V, others = leader_and_gaps(state)
        ok = jnp.all(passes(state, params, S, V, a_hat) | ~others, axis=-1) & (state.t >= 1)
        return ok, jnp.broadcast_to(a_hat.astype(jnp.int32), ok.shape)

    return Policy(init, act, update, stop, _identity_refresh, sampling_uses_delta=eliminate)


# ---------------------------------------------------------------------------- GLRT family


def _glrt_stop(state, params):
    Z, a_hat = glrt_statistic(state.n, state.s, params["sigma"])
    ok = jnp.all(state.n >= 1) & (Z > glrt_threshold(state.t, params["delta"]))
    return ok, jnp.broadcast_to(a_hat, ok.shape)


def _mean_update(state, arm, reward):
    onehot = jnp.arange(state.n.shape[0]) == arm
    return state._replace(
        t=state.t + 1,
        n=state.n + onehot.astype(jnp.int32),
        s=state.s + jnp.where(onehot, reward, 0.0),
    )


def _glrt_sampler(n_arms: int, kind: str) -> Policy:
    K = n_arms

    def init(params):
        return GLRTState(
            t=jnp.zeros((), jnp.int32),
            n=jnp.zeros((K,), jnp.int32),
            s=jnp.zeros((K,), _fdtype()),
        )

    def act(state, params, u):
        if kind == "uniform":
            p = jnp.full((K,), 1.0 / K, state.s.dtype)
            return sample_from(p, u), p
        arm = jnp.mod(state.t, K).astype(jnp.int32)
        return arm, jax.nn.one_hot(arm, K, dtype=state.s.dtype)

    def update(state, arm, probs, reward, params):
        return _mean_update(state, arm, reward)

    return Policy(init, act, update, _glrt_stop, _identity_refresh)


def _track_and_stop(n_arms: int, tracking: str, oracle: str) -> Policy:
    K = n_arms

    def init(params):
        f = _fdtype()
        return TaSState(
            t=jnp.zeros((), jnp.int32),
            n=jnp.zeros((K,), jnp.int32),
            s=jnp.zeros((K,), f),
            w=jnp.full((K,), 1.0 / K, f),
            sumw=jnp.zeros((K,), f),
        )

    def refresh(state, params):
        mu_hat = state.s / jnp.maximum(state.n, 1).astype(state.s.dtype)
        sigma = jnp.asarray(params["sigma"], state.s.dtype)
        # bisection iterations: enough to resolve the dtype's precision on (0, 1)
        it = 60 if mu_hat.dtype == jnp.float64 else 32
        if oracle == "gaussian":
            w, _ = optimal_weights_gaussian(mu_hat, sigma, n_iter=it)
        elif oracle == "nested":
            w, _ = optimal_weights(mu_hat, lambda x, y: gaussian_kl(x, y, sigma), it, it)
        else:
            raise ValueError(f"unknown oracle {oracle!r}")
        return state._replace(w=w.astype(state.s.dtype))

    def projected(state):
        tf = state.t.astype(state.s.dtype)
        eps = 0.5 / jnp.sqrt(K**2 + tf)
        return project_floor(state.w, eps)

    def act(state, params, u):
        tf = state.t.astype(state.s.dtype)
        nf = state.n.astype(state.s.dtype)
        if tracking == "d":
            forced = jnp.min(state.n).astype(tf.dtype) <= jnp.maximum(jnp.sqrt(tf) - K / 2.0, 0.0)
            track = jnp.argmax(state.w - nf / jnp.maximum(tf, 1.0))
            arm = jnp.where(forced, jnp.argmin(state.n), track)
        else:
            track = jnp.argmax(state.sumw + projected(state) - nf)
            arm = jnp.where(state.t < K, state.t, track)
        arm = arm.astype(jnp.int32)
        return arm, jax.nn.one_hot(arm, K, dtype=state.s.dtype)

    def update(state, arm, probs, reward, params):
        new = _mean_update(state, arm, reward)
        if tracking == "c":
            new = new._replace(sumw=state.sumw + projected(state))
        return new

    return Policy(init, act, update, _glrt_stop, refresh)


def _lucb(n_arms: int) -> Policy:
    K = n_arms
    arange = jnp.arange(K)

    def init(params):
        return LUCBState(
            t=jnp.zeros((), jnp.int32),
            n=jnp.zeros((K,), jnp.int32),
            s=jnp.zeros((K,), _fdtype()),
            pending=-jnp.ones((), jnp.int32),
        )

    def bounds(state, params):
        nf = jnp.maximum(state.n, 1).astype(state.s.dtype)
        mu = state.s / nf
        beta = glrt_threshold(state.t, params["delta"])
        rad = jnp.sqrt(2.0 * jnp.asarray(params["sigma"], mu.dtype) ** 2 * beta / nf)
        h = jnp.argmax(mu)
        ucb = jnp.where(arange == h, -jnp.inf, mu + rad)
        l = jnp.argmax(ucb)
        return h, l, mu - rad, ucb

    def act(state, params, u):
        h, _, _, _ = bounds(state, params)
        arm = jnp.where(state.t < K, state.t, jnp.where(state.pending >= 0, state.pending, h))
        arm = arm.astype(jnp.int32)
        return arm, jax.nn.one_hot(arm, K, dtype=state.s.dtype)

    def update(state, arm, probs, reward, params):
        _, l, _, _ = bounds(state, params)
        pending = jnp.where((state.pending < 0) & (state.t >= K), l, -1).astype(jnp.int32)
        return _mean_update(state, arm, reward)._replace(pending=pending)

    def stop(state, params):
        h, l, lcb, ucb = bounds(state, params)
        ok = jnp.all(state.n >= 1) & (lcb[h] > ucb[l])
        return ok, h.astype(jnp.int32)

    return Policy(init, act, update, stop, _identity_refresh, sampling_uses_delta=True)


def make_policy(name: str, n_arms: int, oracle: str = "gaussian") -> Policy:
    """Build a policy by name.

    Args:
        name: one of :data:`POLICIES` (static).
        n_arms: number of arms ``K`` (static).
        oracle: Track-and-Stop's optimal-weight solver, ``"gaussian"`` (closed form, one
            bisection) or ``"nested"`` (Garivier-Kaufmann nested bisection).

    Returns:
        a :class:`Policy`.

    Example:
        >>> pol = make_policy("ism_practical", 4)
        >>> st = pol.init({})
        >>> arm, p = pol.act(st, {}, 0.5)
        >>> p.tolist()
        [0.25, 0.25, 0.25, 0.25]

    References:
        See the module docstring.
    """
    if name == "ism_theory":
        return _ism(n_arms, "theory", False)
    if name == "ism_practical":
        return _ism(n_arms, "practical", False)
    if name == "ism_eb":
        return _ism(n_arms, "eb", False)
    if name == "ism_elim":
        return _ism(n_arms, "theory", True)
    if name == "ism_elim_practical":
        return _ism(n_arms, "practical", True)
    if name == "tas_d":
        return _track_and_stop(n_arms, "d", oracle)
    if name == "tas_c":
        return _track_and_stop(n_arms, "c", oracle)
    if name == "uniform_glrt":
        return _glrt_sampler(n_arms, "uniform")
    if name == "rr_glrt":
        return _glrt_sampler(n_arms, "round_robin")
    if name == "lucb":
        return _lucb(n_arms)
    raise ValueError(f"unknown policy {name!r}; expected one of {POLICIES}")
