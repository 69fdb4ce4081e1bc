"""Episodes with random stopping times: ``run`` for the sweep engine, ``simulate`` on the host.

An episode plays rounds until the policy stops or the horizon cap ``spec.horizon`` is
reached. Rounds are played in chunks of ``spec.chunk`` (a ``lax.scan``) under a done
mask: once a lane has stopped its state is frozen. ``run`` wraps the chunks in a
``lax.while_loop``, so under ``jax.vmap`` the batch stops as soon as every lane is done
or censored. ``simulate`` drives the same chunks from the host and compacts the batch
(drops finished lanes, re-pads to a power of two) between chunks. Every round's
randomness is ``fold_in(episode_key, t)``, so neither batching nor compaction changes any
episode's trajectory.

An episode that reaches the cap without stopping is *censored*: it is reported with
``censored = True``, ``tau = horizon`` and recommendation ``-1``, and never counted as
correct.

References:
    JAX issue #2586 (vmap of while_loop runs until the slowest lane stops).
    Shifting-Means best-arm identification (its experiments).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.bandits.environments import ADVERSARIES, INSTANCES, instance_means, shift
from jaxtheory.sims.bandits.policies import POLICIES, make_policy
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "BAISpec",
    "Carry",
    "default_params",
    "episode_seed",
    "round_draws",
    "run",
    "simulate",
    "METRICS",
    "SIMULATOR",
]

#: Names of the per-episode metrics returned by :func:`run` and :func:`simulate`.
METRICS = ("tau", "stopped", "censored", "correct", "error", "recommendation", "frac_best")


@dataclasses.dataclass(frozen=True)
class BAISpec:
    """Static configuration of one best-arm identification episode (the compile key).

    Attributes:
        policy: one of :data:`~jaxtheory.sims.bandits.policies.POLICIES`.
        adversary: one of :data:`~jaxtheory.sims.bandits.environments.ADVERSARIES`.
        instance: ``"equal"`` or ``"staircase"``.
        n_arms: number of arms ``K``.
        horizon: cap on the number of rounds; episodes reaching it are censored.
        chunk: rounds per scanned chunk (a multiple of ``refresh``).
        refresh: Track-and-Stop recomputes :math:`w^*(\\hat\\mu)` every ``refresh`` rounds
            (1 = every round, as in Garivier and Kaufmann).
        oracle: ``"gaussian"`` (closed form) or ``"nested"`` (nested bisection).
        deltas: a grid of confidence levels evaluated in one episode (metrics then have a
            trailing ``delta`` dimension of this length); empty means the scalar
            ``params["delta"]``. For samplers that do not read δ the episode runs once and
            only the stopping rule is evaluated per δ (it continues until every δ has
            stopped); for the others (elimination, LUCB) one episode per δ is run with
            the same key.

    Example:
        >>> BAISpec(policy="tas_d", refresh=16, chunk=256).n_arms
        4
    """

    policy: str = "ism_practical"
    adversary: str = "none"
    instance: str = "equal"
    n_arms: int = 4
    horizon: int = 20_000
    chunk: int = 256
    refresh: int = 1
    oracle: str = "gaussian"
    deltas: tuple[float, ...] = ()

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"unknown policy {self.policy!r}; expected one of {POLICIES}")
        if self.adversary not in ADVERSARIES + ("param",):
            raise ValueError(
                f"unknown adversary {self.adversary!r}; expected one of {ADVERSARIES} or 'param'"
            )
        if self.instance not in INSTANCES:
            raise ValueError(f"unknown instance {self.instance!r}; expected {INSTANCES}")
        if self.n_arms < 2:
            raise ValueError("n_arms must be >= 2")
        if self.chunk < 1 or self.refresh < 1 or self.chunk % self.refresh:
            raise ValueError("chunk must be a positive multiple of refresh")
        if self.horizon < 1:
            raise ValueError("horizon must be >= 1")
        if not isinstance(self.deltas, tuple) or any(not 0 < d < 1 for d in self.deltas):
            raise ValueError("deltas must be a tuple of confidence levels in (0, 1)")


def default_params(**overrides) -> dict[str, float]:
    """The small test environment of the Shifting-Means experiments as a params dict.

    ``gap`` = Δ, ``delta`` = δ, ``sigma`` = σ, ``U`` bounds :math:`|\\mu_a + s_t|`, ``c`` is
    the shift amplitude (negative: the largest feasible one, :math:`U - \\max_a|\\mu_a|`),
    ``period`` the period of the periodic adversaries and ``env`` the index into
    :data:`~jaxtheory.sims.bandits.environments.ADVERSARIES` read when
    ``spec.adversary == "param"``.

    Args:
        **overrides: values replacing the defaults.

    Returns:
        dict of Python floats.

    Example:
        >>> default_params(delta=0.01)["delta"]
        0.01
    """
    p = {"gap": 0.5, "delta": 0.05, "sigma": 1.0, "U": 1.5, "c": -1.0, "period": 4.0, "env": 0}
    unknown = set(overrides) - set(p)
    if unknown:
        raise ValueError(f"unknown params {sorted(unknown)}; expected {sorted(p)}")
    p.update(overrides)
    return p


class Carry(NamedTuple):
    """Per-episode loop state (``D`` = number of confidence levels evaluated).

    Attributes:
        pstate: the policy's state.
        t: rounds played.
        done: ``(D,)`` the policy has stopped at this δ.
        rec: ``(D,)`` recommendation at stopping (``-1`` before).
        tau: ``(D,)`` stopping time (0 before).
    """

    pstate: Any
    t: jax.Array
    done: jax.Array
    rec: jax.Array
    tau: jax.Array


def _cast_params(params):
    f = jnp.result_type(float)
    return {k: (jnp.asarray(v) if k == "env" else jnp.asarray(v, f)) for k, v in params.items()}


def _delta_vector(spec: BAISpec, params) -> jax.Array:
    f = jnp.result_type(float)
    if spec.deltas:
        return jnp.asarray(spec.deltas, f)
    return jnp.reshape(jnp.asarray(params["delta"], f), (1,))


def _init(spec: BAISpec, params) -> Carry:
    policy = make_policy(spec.policy, spec.n_arms, spec.oracle)
    D = max(len(spec.deltas), 1)
    return Carry(
        pstate=policy.init(params),
        t=jnp.zeros((), jnp.int32),
        done=jnp.zeros((D,), bool),
        rec=-jnp.ones((D,), jnp.int32),
        tau=jnp.zeros((D,), jnp.int32),
    )


def _live(spec: BAISpec, carry: Carry):
    return ~jnp.all(carry.done) & (carry.t < spec.horizon)


def _mix32(x):
    """lowbias32 (C. Wellons' hash prospector): a bijective 32-bit avalanche mixer."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


def episode_seed(key) -> jax.Array:
    """Two 32-bit seed words of an episode, read from its PRNG key's raw data.

    No random-number kernel runs here: the words of the (already well mixed) key are
    hashed together, so the seed is a pure function of the key.

    Args:
        key: a typed PRNG key (any implementation) or a legacy ``uint32`` key array.

    Returns:
        ``uint32`` array of shape ``(2,)``.

    Example:
        >>> episode_seed(jax.random.key(0)).dtype
        dtype('uint32')
    """
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        key = jax.random.key_data(key)
    words = jnp.ravel(key).astype(jnp.uint32)
    s0 = jnp.uint32(0x243F6A88)
    s1 = jnp.uint32(0x85A308D3)
    for i in range(words.shape[0]):
        s0 = _mix32(s0 ^ words[i])
        s1 = _mix32(s1 + words[i] + s0)
    return jnp.stack([s0, s1])


def round_draws(seed, t):
    """The randomness of round ``t`` of an episode: ``(u_learner, z_noise, u_adversary)``.

    A counter-based generator: with the episode's seed words :math:`(s_0, s_1)`
    (:func:`episode_seed`), :math:`h_t = m(m(t \\oplus s_0) + s_1)` and stream
    :math:`j \\in \\{1,2,3\\}` gives :math:`m(m(h_t + j\\varphi) \\oplus s_0)`, where :math:`m`
    is the bijective lowbias32 mixer and :math:`\\varphi` the 32-bit golden ratio. The
    uniforms take the top 24 bits; the normal is :math:`\\sqrt2\\,\\mathrm{erf}^{-1}(2u-1)`
    at the mid-point uniform :math:`u = (b + 1/2)\\,2^{-24}` of the 24-bit integer :math:`b`,
    with :math:`2u - 1 = (2b + 1 - 2^{24})\\,2^{-24}` formed from the integer (exact in
    float32; forming :math:`b + 1/2` in float32 rounded :math:`b = 2^{24} - 1` up to
    :math:`u = 1` and gave :math:`z = +\\infty` once in :math:`2^{24}` rounds). Keyed by the
    absolute round index, so batching, chunking and compaction never change an episode's
    trajectory. (JAX's threefry is not called per
    round because its XLA compile costs seconds per function on CPU.)

    Args:
        seed: ``uint32`` seed words of shape ``(2,)``.
        t: round index (0-indexed).

    Returns:
        ``(u_act, z, u_shift)``: two uniforms on ``[0, 1)`` and one standard normal.

    Example:
        >>> u, z, v = round_draws(episode_seed(jax.random.key(0)), 3)
        >>> bool(0.0 <= u < 1.0) and bool(0.0 <= v < 1.0)
        True
    """
    f = jnp.result_type(float)
    h = _mix32(_mix32(jnp.asarray(t).astype(jnp.uint32) ^ seed[0]) + seed[1])
    streams = jnp.arange(1, 4, dtype=jnp.uint32) * jnp.uint32(0x9E3779B9)
    bits = _mix32(_mix32(h + streams) ^ seed[0])
    top = bits >> 8
    u = top.astype(f) * (2.0**-24)
    return u[0], _normal_from_bits(top[1], f), u[2]


def _normal_from_bits(b, dtype):
    """Standard normal at the mid-point uniform of the 24-bit integer ``b``: exact in float32.

    :math:`2u - 1 = (2b + 1 - 2^{24})\\,2^{-24}` is an odd integer below :math:`2^{24}` in
    magnitude times a power of two, so it lies in :math:`[-1 + 2^{-24}, 1 - 2^{-24}]`
    exactly and :math:`\\mathrm{erf}^{-1}` is finite (at most 5.42 in magnitude).
    """
    x = (b.astype(jnp.int32) * 2 + (1 - (1 << 24))).astype(dtype) * (2.0**-24)
    return jnp.sqrt(jnp.asarray(2.0, dtype)) * jax.scipy.special.erfinv(x)


def _chunk(spec: BAISpec, params, key, carry: Carry) -> Carry:
    """Play ``spec.chunk`` rounds (masked once every δ is done or the cap is reached)."""
    params = _cast_params(params)
    deltas = _delta_vector(spec, params)
    policy = make_policy(spec.policy, spec.n_arms, spec.oracle)
    mu = instance_means(spec.instance, spec.n_arms, params["gap"])
    sigma = params["sigma"]
    n_blocks = spec.chunk // spec.refresh
    # All of the chunk's randomness at once, outside the sequential loop.
    ts = carry.t + jnp.arange(spec.chunk, dtype=jnp.int32)
    draws = jax.vmap(round_draws, in_axes=(None, 0))(episode_seed(key), ts)
    draws = jax.tree.map(lambda x: x.reshape(n_blocks, spec.refresh), draws)

    def stop_all(pstate):  # the sampler does not read δ here: one stop test per δ
        stop, rec = policy.stop(pstate, {**params, "delta": deltas})
        return jnp.broadcast_to(stop, deltas.shape), jnp.broadcast_to(rec, deltas.shape)

    def one_round(c: Carry, d):
        u_act, z, u_shift = d
        live = _live(spec, c)
        arm, probs = policy.act(c.pstate, params, u_act)
        s = shift(spec.adversary, c.t, probs, mu, params, u_shift)
        x = mu[arm] + s + sigma * z
        new = policy.update(c.pstate, arm, probs, x, params)
        stop, rec = stop_all(new)
        pstate = jax.tree.map(lambda a, b: jnp.where(live, a, b), new, c.pstate)
        fire = live & stop & ~c.done
        t_new = c.t + live.astype(jnp.int32)
        return Carry(
            pstate, t_new, c.done | fire, jnp.where(fire, rec, c.rec), jnp.where(fire, t_new, c.tau)
        ), None

    def block(c: Carry, d):
        c = c._replace(pstate=policy.refresh(c.pstate, params))
        c, _ = jax.lax.scan(one_round, c, d)
        return c, None

    if spec.refresh == 1:  # one loop level: refresh, then play, every round

        def refresh_and_play(c: Carry, d):
            return one_round(c._replace(pstate=policy.refresh(c.pstate, params)), d)

        carry, _ = jax.lax.scan(refresh_and_play, carry, jax.tree.map(lambda x: x[:, 0], draws))
    else:
        carry, _ = jax.lax.scan(block, carry, draws)
    return carry


def _metrics(spec: BAISpec, carry: Carry) -> dict[str, jax.Array]:
    f = jnp.result_type(float)
    censored = ~carry.done
    out = {
        "tau": jnp.where(carry.done, carry.tau, carry.t),
        "stopped": carry.done,
        "censored": censored,
        "correct": carry.done & (carry.rec == 0),
        "error": carry.done & (carry.rec != 0),
        "recommendation": jnp.where(carry.done, carry.rec, -1),
    }
    if not spec.deltas:
        out = {k: v[0] for k, v in out.items()}
    out["frac_best"] = carry.pstate.n[0].astype(f) / jnp.maximum(carry.t, 1).astype(f)
    return out


def _run_single(spec: BAISpec, params, key) -> dict[str, jax.Array]:
    carry = _init(spec, params)
    carry = jax.lax.while_loop(lambda c: _live(spec, c), lambda c: _chunk(spec, params, key, c), carry)
    return _metrics(spec, carry)


def _per_delta(spec: BAISpec) -> bool:
    """δ-grid with a sampler that reads δ: one episode per δ."""
    return bool(spec.deltas) and make_policy(spec.policy, spec.n_arms).sampling_uses_delta


def run(spec: BAISpec, params, key) -> dict[str, jax.Array]:
    """Play one episode until the policy stops or the horizon cap; return its metrics.

    Pure, jittable and vmappable (``jax.vmap(run, (None, None, 0))`` over episode keys):
    chunks of ``spec.chunk`` rounds inside a ``lax.while_loop`` that exits once the
    episode is done (at every δ of ``spec.deltas``) or capped. Under ``vmap`` the loop
    runs until every lane is done.

    Args:
        spec: a :class:`BAISpec` (static).
        params: dict of scalars (see :func:`default_params`); any of them may be traced.
        key: the episode's PRNG key.

    Returns:
        dict with ``tau`` (stopping time; the rounds played, i.e. the cap, when
        censored), ``stopped``, ``censored``, ``correct`` (stopped on arm 0), ``error``
        (stopped on another arm), ``recommendation`` (``-1`` when censored), each with a
        trailing ``delta`` dimension when ``spec.deltas`` is set, and ``frac_best``
        (share of the episode's pulls on arm 0).

    Example:
        >>> spec = BAISpec(policy="rr_glrt", n_arms=2, horizon=512, chunk=64)
        >>> out = run(spec, default_params(gap=2.0), jax.random.key(0))
        >>> bool(out["stopped"]), int(out["recommendation"])
        (True, 0)

    References:
        Shifting-Means best-arm identification (its experiments).
    """
    if _per_delta(spec):
        one = dataclasses.replace(spec, deltas=())
        outs = jax.vmap(lambda d: _run_single(one, {**params, "delta": d}, key))(
            jnp.asarray(spec.deltas, jnp.result_type(float))
        )
        outs["frac_best"] = outs["frac_best"][-1]
        return outs
    return _run_single(spec, params, key)


@functools.lru_cache(maxsize=64)
def _batched_fns(spec: BAISpec):
    chunk = jax.jit(jax.vmap(functools.partial(_chunk, spec), in_axes=(None, 0, 0)))
    init = jax.jit(lambda params: _init(spec, params))
    metrics = jax.jit(jax.vmap(functools.partial(_metrics, spec)))
    live = jax.jit(jax.vmap(functools.partial(_live, spec)))
    return chunk, init, metrics, live


def _next_pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def simulate(
    spec: BAISpec,
    params,
    key,
    n_episodes: int,
    *,
    min_batch: int = 8,
    compact_at: float = 0.5,
) -> dict[str, np.ndarray]:
    """Run ``n_episodes`` episodes from the host with compaction of finished lanes.

    Episode ``i`` uses the key ``fold_in(key, i)`` and gives exactly the trajectory of
    ``run(spec, params, fold_in(key, i))``. After each chunk, when the live lanes are at
    most ``compact_at`` of the batch, they are gathered and re-padded to a power of two
    (at least ``min_batch``) so that finished episodes stop costing compute; padding
    lanes duplicate a live lane and are ignored.

    Args:
        spec: a :class:`BAISpec`.
        params: dict of scalars shared by all episodes.
        key: base PRNG key.
        n_episodes: number of episodes.
        min_batch: smallest batch after compaction.
        compact_at: compaction trigger (fraction of live lanes).

    Returns:
        dict of numpy arrays of length ``n_episodes`` (see :func:`run`), plus
        ``"pulls"``: total rounds computed including masked ones.

    Example:
        >>> spec = BAISpec(policy="rr_glrt", n_arms=2, horizon=512, chunk=64)
        >>> out = simulate(spec, default_params(gap=2.0), jax.random.key(0), 4)
        >>> out["stopped"].tolist()
        [True, True, True, True]
    """
    if _per_delta(spec):
        one = dataclasses.replace(spec, deltas=())
        outs = [
            simulate(one, {**params, "delta": d}, key, n_episodes, min_batch=min_batch, compact_at=compact_at)
            for d in spec.deltas
        ]
        res = {k: np.stack([o[k] for o in outs], axis=-1) for k in outs[0] if k != "pulls"}
        res["frac_best"] = outs[-1]["frac_best"]
        res["pulls"] = np.asarray(sum(int(o["pulls"]) for o in outs))
        return res
    chunk_fn, init_fn, metrics_fn, live_fn = _batched_fns(spec)
    params = {k: float(v) for k, v in params.items()}
    base = init_fn(params)
    keys = jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(n_episodes))
    carry = jax.tree.map(lambda x: jnp.broadcast_to(x, (n_episodes,) + x.shape), base)
    lane_episode = np.arange(n_episodes)
    out: dict[str, np.ndarray] | None = None
    recorded = np.zeros(n_episodes, bool)
    computed = 0
    while True:
        carry = chunk_fn(params, keys, carry)
        computed += spec.chunk * len(lane_episode)
        live = np.asarray(live_fn(carry))
        fin = (~live) & (lane_episode >= 0)
        fin_eps = lane_episode[fin]
        new_fin = ~recorded[fin_eps]
        if np.any(new_fin):
            m = {k: np.asarray(v) for k, v in metrics_fn(carry).items()}
            if out is None:
                out = {k: np.zeros((n_episodes,) + v.shape[1:], v.dtype) for k, v in m.items()}
            lanes = np.nonzero(fin)[0][new_fin]
            for k in out:
                out[k][lane_episode[lanes]] = m[k][lanes]
            recorded[lane_episode[lanes]] = True
        if recorded.all():
            break
        live_real = live & (lane_episode >= 0)
        n_live = int(live_real.sum())
        size = len(lane_episode)
        if n_live <= compact_at * size and size > min_batch:
            new_size = max(_next_pow2(n_live), min_batch)
            if new_size < size:
                sel = np.nonzero(live_real)[0]
                pad = np.full(new_size - n_live, sel[0])
                gather = jnp.asarray(np.concatenate([sel, pad]))
                carry = jax.tree.map(lambda x, g=gather: x[g], carry)
                keys = keys[gather]
                lane_episode = np.concatenate(
                    [lane_episode[sel], -np.ones(new_size - n_live, lane_episode.dtype)]
                )
    assert out is not None
    out["pulls"] = np.asarray(computed)
    return out


#: The simulator's declaration: an experiment names it instead of restating it. ``env``
#: is categorical over :data:`~jaxtheory.sims.bandits.environments.ADVERSARIES` (read
#: when ``spec.adversary == "param"``); every metric has a last axis over ``spec.deltas``.
SIMULATOR = Simulator(
    run,
    spec=BAISpec(),
    params={**default_params(), "env": categorical(*ADVERSARIES)},
    metric_dims={k: ("delta",) for k in ("tau", "stopped", "censored", "correct", "error", "recommendation")},
    coords=lambda spec: {"delta": np.asarray(spec.deltas)},
)
