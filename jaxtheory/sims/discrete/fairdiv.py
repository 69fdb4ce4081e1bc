"""Approximate EFkX allocations of indivisible goods: evaluator, exhaustive search, baselines.

For arXiv 2605.10371 (Filos-Ratsikas, Wang, Kalantzis, "Approximate Envy-Free
Allocations up to any k Goods"). ``n`` agents with additive valuations ``v`` (an
``(n, m)`` array, ``v[i, g] >= 0``) share ``m`` indivisible goods; an allocation is an
``(m,)`` int array ``alloc`` with ``alloc[g]`` the agent holding good ``g``.

**α-EFkX.** For agents ``i != j`` the pair *binds* when ``|A_j| > k``; it then requires
``v_i(A_i) >= α · (v_i(A_j) − s_ik(A_j))``, where ``s_ik(A_j)`` is the sum of the ``k``
goods of ``A_j`` that ``i`` values *least* (the binding choice of "for every set S of k
goods of A_j"). The evaluator returns

    α_k(A) = min over binding pairs of  min(1, v_i(A_i) / (v_i(A_j) − s_ik(A_j))),

with these conventions: a pair whose remainder ``v_i(A_j) − s_ik(A_j)`` is at most
``v_i(A_i)`` contributes 1 (so ``0/0`` is 1: nothing left to envy), a positive
remainder against ``v_i(A_i) = 0`` contributes 0, and an allocation with no binding
pair has α = 1. ``k = 0`` is envy-freeness (EF), ``k = 1`` envy-freeness up to any good
(EFX). Goods that ``i`` values at 0 count as goods of ``A_j`` (they are removed first):
this is the "EFX₀" reading, which matters for graph orientations (every edge not at
``i`` is worth 0 to ``i``) and not for the strictly positive random valuations.
The computation is sort-based: each agent's values are sorted once, and an
allocation only enters through masks and cumulative counts in that order, so it
vmaps over allocations with the sort shared.

Also here: the exhaustive best ``max_A α_k(A)`` over all ``n**m`` allocations (chunked
base-``n`` enumeration, :mod:`jaxtheory.sims.discrete.enumeration`), round-robin, the
envy-cycle elimination of Lipton et al. (2004) in the variant where the unenvied agent
takes its favourite remaining good, and graph orientations (goods are edges of a
multigraph on the agents, valued only by their two endpoints, each given to one of
them) by brute force over ``2**m`` orientations. The paper's generalised three-phase
algorithm is not implemented (its pseudocode was not retrieved).

Valuations drawn here are integers in ``[1, VALUE_SCALE]`` so that every bundle sum is
exact and the comparisons ``v_i(A_i) >= remainder`` that decide α = 1 involve no
rounding; α itself is a float32 ratio of exact integers.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxtheory.sims.discrete import enumeration as denum
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "FAMILIES",
    "VALUE_SCALE",
    "KS",
    "sample_values",
    "alpha_efkx",
    "is_envy_free",
    "is_efx",
    "best_alpha",
    "round_robin",
    "envy_cycle_elimination",
    "multigraph_values",
    "random_multigraph",
    "orientation",
    "best_orientation_alpha",
    "FairDivSpec",
    "DEFAULT_PARAMS",
    "run",
]

#: Value families of :func:`sample_values`, in code order: ``uniform`` (i.i.d. on
#: ``1..VALUE_SCALE``), ``correlated`` (a common quality per good, 80 %, plus 20 %
#: idiosyncratic noise), ``bimodal`` (each value small, ``1..100``, or large,
#: ``900..1000``, with probability ½).
FAMILIES = ("uniform", "correlated", "bimodal")
#: Valuations are integers in ``[1, VALUE_SCALE]`` (exact sums; U[0, 1] quantised to 1/1000).
VALUE_SCALE = 1000
#: The k of EFkX evaluated by :func:`run`: 0 (EF), 1 (EFX), 2, 3.
KS = (0, 1, 2, 3)


def _as_ks(k) -> tuple[tuple[int, ...], bool]:
    if isinstance(k, (tuple, list)):
        ks = tuple(k)
        scalar = False
    else:
        ks = (k,)
        scalar = True
    for x in ks:
        if isinstance(x, bool) or not isinstance(x, int) or x < 0:
            raise ValueError(f"k must be a non-negative int or a tuple of them, got {k!r}")
    if not ks:
        raise ValueError("k must name at least one value")
    return ks, scalar


def _check_values(values) -> jax.Array:
    values = jnp.asarray(values)
    if values.ndim != 2:
        raise ValueError(f"values must be an (n agents, m goods) array, got shape {values.shape}")
    return values


def sample_values(key: jax.Array, family: jax.Array | int, n: int, m: int) -> jax.Array:
    """Integer valuations of ``n`` agents for ``m`` goods from one of :data:`FAMILIES`.

    Args:
        key: PRNG key.
        family: the family's code (index in :data:`FAMILIES`); may be traced.
        n: number of agents.
        m: number of goods.

    Returns:
        int32 array ``(n, m)`` with entries in ``[1, VALUE_SCALE]``.

    Example:
        >>> v = sample_values(jax.random.key(0), 0, 3, 5)
        >>> v.shape, bool((v >= 1).all() & (v <= VALUE_SCALE).all())
        ((3, 5), True)
    """
    k1, k2, k3, k4 = jax.random.split(key, 4)
    uniform = jax.random.randint(k1, (n, m), 1, VALUE_SCALE + 1)
    # integer arithmetic only, so that every CPU draws the same values
    quality = jax.random.randint(k2, (1, m), 0, VALUE_SCALE)
    noise = jax.random.randint(k3, (n, m), 0, VALUE_SCALE)
    correlated = 1 + (4 * quality + noise) * (VALUE_SCALE - 1) // (5 * VALUE_SCALE)
    big = jax.random.bernoulli(k4, 0.5, (n, m))
    small_v = 1 + (uniform - 1) % 100  # 1..100
    large_v = VALUE_SCALE - (uniform - 1) % 101  # 900..1000
    bimodal = jnp.where(big, large_v, small_v)
    fam = jnp.asarray(family)
    return jnp.where(fam == 0, uniform, jnp.where(fam == 1, correlated, bimodal)).astype(jnp.int32)


def _pair_terms(values: jax.Array, alloc: jax.Array, ks: tuple[int, ...]):
    """own (n,), remainder (K, n, n), binding (K, n, n) for allocation ``alloc``."""
    n, m = values.shape
    order = jnp.argsort(values, axis=1, stable=True)  # each agent's goods, cheapest first
    vs = jnp.take_along_axis(values, order, axis=1)  # (i, t)
    owner = jnp.asarray(alloc)[order]  # (i, t): holder of i's t-th cheapest good
    agents = jnp.arange(n)
    mask = owner[:, None, :] == agents[None, :, None]  # (i, j, t)
    vals = jnp.where(mask, vs[:, None, :], jnp.zeros((), values.dtype))
    tot = vals.sum(-1)  # v_i(A_j)
    cnt = mask.sum(-1)  # |A_j|
    rank = jnp.cumsum(mask, axis=-1)  # position of each good of A_j in i's order, 1-based
    karr = jnp.asarray(ks, jnp.int32)[:, None, None, None]
    smallest = jnp.where(rank[None] <= karr, vals[None], jnp.zeros((), values.dtype)).sum(-1)
    rem = tot[None] - smallest  # (K, i, j)
    own = jnp.diagonal(tot)
    binding = (cnt[None] > karr[..., 0]) & ~jnp.eye(n, dtype=bool)[None]
    return own, rem, binding


def _alpha_from_terms(own, rem, binding) -> jax.Array:
    own_b = own[None, :, None]
    ok = own_b >= rem
    ratio = own_b.astype(jnp.float32) / jnp.where(ok, 1, rem).astype(jnp.float32)
    pair = jnp.where(ok | ~binding, jnp.float32(1.0), ratio)
    return pair.min(axis=(1, 2))


def alpha_efkx(values: jax.Array, alloc: jax.Array, k) -> jax.Array:
    """The α-EFkX level α_k(A) of an allocation (conventions in the module docstring).

    Args:
        values: ``(n, m)`` additive valuations, ``values[i, g] >= 0`` (ints give exact sums).
        alloc: ``(m,)`` int array, ``alloc[g]`` the agent holding good ``g``.
        k: a non-negative int, or a tuple of them.

    Returns:
        float32 scalar in ``[0, 1]`` (shape ``(len(k),)`` for a tuple ``k``): the largest
        α for which ``alloc`` is α-EFkX.

    Raises:
        ValueError: on a ``values`` array that is not 2-D or a negative ``k``.

    Example:
        >>> v = jnp.array([[1, 1, 4], [1, 1, 4]])
        >>> alpha_efkx(v, jnp.array([0, 0, 1]), (0, 1)).tolist()  # EF fails, EFX holds
        [0.5, 1.0]
    """
    values = _check_values(values)
    ks, scalar = _as_ks(k)
    out = _alpha_from_terms(*_pair_terms(values, alloc, ks))
    return out[0] if scalar else out


def _bundle_matrix(values: jax.Array, alloc: jax.Array) -> jax.Array:
    """``V[i, j] = v_i(A_j)``; goods with ``alloc < 0`` (unallocated) count for nobody."""
    n = values.shape[0]
    held = jnp.asarray(alloc)[None, :] == jnp.arange(n)[:, None]  # (j, g)
    return jnp.where(held[None, :, :], values[:, None, :], jnp.zeros((), values.dtype)).sum(-1)


def is_envy_free(values: jax.Array, alloc: jax.Array) -> jax.Array:
    """Whether ``v_i(A_i) >= v_i(A_j)`` for all agents (the textbook EF check, no sorting).

    Args:
        values: ``(n, m)`` valuations.
        alloc: ``(m,)`` allocation.

    Returns:
        bool scalar.

    Example:
        >>> bool(is_envy_free(jnp.array([[1, 2], [2, 1]]), jnp.array([1, 0])))
        True
    """
    V = _bundle_matrix(_check_values(values), alloc)
    return (jnp.diagonal(V)[:, None] >= V).all()


def is_efx(values: jax.Array, alloc: jax.Array) -> jax.Array:
    """Whether ``v_i(A_i) >= v_i(A_j) - v_i(g)`` for all ``i != j`` and every good ``g`` of ``A_j``.

    The textbook EFX check (every good of ``A_j``, zero-valued ones included), written
    without sorting: an independent check of :func:`alpha_efkx` at ``k = 1``.

    Args:
        values: ``(n, m)`` valuations.
        alloc: ``(m,)`` allocation.

    Returns:
        bool scalar.

    Example:
        >>> bool(is_efx(jnp.array([[1, 1, 4], [1, 1, 4]]), jnp.array([0, 0, 1])))
        True
    """
    values = _check_values(values)
    n = values.shape[0]
    V = _bundle_matrix(values, alloc)
    own = jnp.diagonal(V)
    holder = jnp.asarray(alloc)  # (g,)
    # for every (i, g): i's value of holder(g)'s bundle without g, where holder(g) != i
    without = V[:, holder] - values  # (i, g)
    other = holder[None, :] != jnp.arange(n)[:, None]
    return jnp.where(other, own[:, None] >= without, True).all()


def best_alpha(values: jax.Array, k=KS, chunk: int = 2048) -> dict[str, jax.Array]:
    """Exhaustive ``max_A α_k(A)`` over all ``n**m`` allocations, with EF/EFX cross-checks.

    Args:
        values: ``(n, m)`` valuations (traceable: vmap it over instances).
        k: a tuple of non-negative ints (or one int).
        chunk: allocations per chunk of the ``lax.map`` enumeration.

    Returns:
        dict with ``best`` float32 ``(K,)`` (the maxima), ``n_efkx`` int32 ``(K,)``
        (allocations with α_k = 1), ``n_ef`` and ``n_efx`` (allocations passing
        :func:`is_envy_free` / :func:`is_efx`), and ``mismatch``: allocations where
        ``α_0 = 1`` disagrees with EF or ``α_1 = 1`` with EFX (0 when the evaluator is
        right; -1 when ``k`` lacks 0 or 1).

    Example:
        >>> out = best_alpha(jnp.array([[3, 1, 1], [1, 3, 1]]), (0, 1))
        >>> out["best"].tolist(), int(out["mismatch"])
        ([1.0, 1.0], 0)
    """
    values = _check_values(values)
    ks, _ = _as_ks(k)
    n, m = values.shape

    def f(allocs, valid):
        def one(a):
            al = _alpha_from_terms(*_pair_terms(values, a, ks))
            return al, is_envy_free(values, a), is_efx(values, a)

        al, ef, efx = jax.vmap(one)(allocs)
        al = jnp.where(valid[:, None], al, -1.0)
        full = (al == 1.0) & valid[:, None]
        ef = ef & valid
        efx = efx & valid
        mis = jnp.int32(0)
        bad = False
        if 0 in ks:
            mis = mis + ((full[:, ks.index(0)] != ef) & valid).sum()
        else:
            bad = True
        if 1 in ks:
            mis = mis + ((full[:, ks.index(1)] != efx) & valid).sum()
        else:
            bad = True
        return {
            "best": al.max(0),
            "n_efkx": full.sum(0).astype(jnp.int32),
            "n_ef": ef.sum().astype(jnp.int32),
            "n_efx": efx.sum().astype(jnp.int32),
            "mismatch": jnp.where(bad, -1, mis).astype(jnp.int32),
        }

    total = denum.num_assignments(n, m)
    out = denum.map_chunks(f, n, m, min(chunk, total))
    mis = out["mismatch"]
    return {
        "best": out["best"].max(0),
        "n_efkx": out["n_efkx"].sum(0),
        "n_ef": out["n_ef"].sum(),
        "n_efx": out["n_efx"].sum(),
        "mismatch": jnp.where((mis < 0).any(), -1, mis.sum()),
    }


def _favourite(row: jax.Array, free: jax.Array) -> jax.Array:
    """Index of the most valued free good (lowest index on ties)."""
    low = jnp.asarray(jnp.iinfo(row.dtype).min if jnp.issubdtype(row.dtype, jnp.integer) else -jnp.inf)
    return jnp.argmax(jnp.where(free, row, low.astype(row.dtype)))


def round_robin(values: jax.Array) -> jax.Array:
    """Round-robin: agents 0, 1, …, n−1, 0, … each take their favourite remaining good.

    Ties go to the lowest-index good.

    Args:
        values: ``(n, m)`` valuations.

    Returns:
        int32 ``(m,)`` allocation.

    Example:
        >>> round_robin(jnp.array([[5, 4, 1], [5, 1, 4]])).tolist()
        [0, 0, 1]
    """
    values = _check_values(values)
    n, m = values.shape

    def step(t, alloc):
        g = _favourite(values[t % n], alloc < 0)
        return alloc.at[g].set(t % n)

    return jax.lax.fori_loop(0, m, step, jnp.full((m,), -1, jnp.int32))


def _envy(values, alloc):
    V = _bundle_matrix(values, alloc)
    return V > jnp.diagonal(V)[:, None]  # E[i, j]: i envies j


def _eliminate_cycles(values, alloc):
    """Rotate envy cycles until some agent is unenvied (Lipton et al. 2004)."""
    n = values.shape[0]

    def cond(a):
        return _envy(values, a).any(0).all()

    def body(a):
        E = _envy(values, a)
        pred = jnp.argmax(E, axis=0)  # pred[j]: the lowest-index agent that envies j
        x = jax.lax.fori_loop(0, n, lambda _, y: pred[y], jnp.int32(0))  # now on a cycle

        def mark(_, c):
            on, y = c
            return on.at[y].set(True), pred[y]

        on, _ = jax.lax.fori_loop(0, n, mark, (jnp.zeros((n,), bool), x))
        safe = jnp.maximum(a, 0)
        # on the cycle, pred[y] (who envies y) takes y's bundle
        return jnp.where((a >= 0) & on[safe], pred[safe], a).astype(a.dtype)

    return jax.lax.while_loop(cond, body, alloc)


def envy_cycle_elimination(values: jax.Array) -> jax.Array:
    """Envy-cycle elimination (Lipton et al. 2004), the unenvied agent taking its favourite good.

    Before each good: while every agent is envied, rotate one envy cycle (found by
    following, from agent 0, the lowest-index envier of each agent; every agent on it
    takes the bundle it envies); then the lowest-index unenvied agent takes its most
    valued remaining good (lowest index on ties). Cycles are eliminated once more at
    the end. Each rotation strictly raises its agents' values, so the loop ends.

    Args:
        values: ``(n, m)`` valuations.

    Returns:
        int32 ``(m,)`` allocation.

    Example:
        >>> envy_cycle_elimination(jnp.array([[1, 1, 100], [1, 1, 100]])).tolist()
        [1, 1, 0]
    """
    values = _check_values(values)
    n, m = values.shape

    def step(_, alloc):
        alloc = _eliminate_cycles(values, alloc)
        s = jnp.argmin(_envy(values, alloc).any(0))
        g = _favourite(values[s], alloc < 0)
        return alloc.at[g].set(s.astype(jnp.int32))

    alloc = jax.lax.fori_loop(0, m, step, jnp.full((m,), -1, jnp.int32))
    return _eliminate_cycles(values, alloc)


def multigraph_values(endpoints: jax.Array, weights: jax.Array, n: int) -> jax.Array:
    """The ``(n, m)`` valuations of a multigraph instance: edge ``e`` is worth ``weights[e, s]`` to
    its endpoint ``endpoints[e, s]`` and 0 to every other agent.

    Args:
        endpoints: int ``(m, 2)``, two distinct agents per edge (parallel edges allowed).
        weights: ``(m, 2)`` values of the edge to its two endpoints.
        n: number of agents.

    Returns:
        ``(n, m)`` array of ``weights``' dtype.

    Example:
        >>> multigraph_values(jnp.array([[0, 1], [0, 1]]), jnp.array([[2, 3], [4, 5]]), 3).tolist()
        [[2, 4], [3, 5], [0, 0]]
    """
    endpoints = jnp.asarray(endpoints)
    weights = jnp.asarray(weights)
    agents = jnp.arange(n)[:, None]
    return jnp.where(endpoints[None, :, 0] == agents, weights[None, :, 0], 0) + jnp.where(
        endpoints[None, :, 1] == agents, weights[None, :, 1], 0
    ).astype(weights.dtype)


def random_multigraph(key: jax.Array, n: int, m: int, log2_high: int = 10) -> tuple[jax.Array, jax.Array]:
    """A random multigraph: ``m`` edges between uniformly chosen distinct agents (parallel edges
    occur), each endpoint valuing its edge at an integer drawn log-uniformly (piecewise):
    an octave ``e`` uniform on ``0..log2_high``, then uniform on ``[2**e, 2**(e+1))``.

    Weights spread over three decades are where orientations without EFX were found by
    the searches made for this module's experiment (uniform weights on ``1..5`` gave
    none). Integer draws only: every CPU draws the same graphs.

    Args:
        key: PRNG key.
        n: number of agents (at least 2).
        m: number of edges.
        log2_high: largest octave (weights are integers in ``[1, 2**(log2_high + 1))``).

    Returns:
        ``(endpoints, weights)``: int32 ``(m, 2)`` each.

    Raises:
        ValueError: when ``n < 2``.

    Example:
        >>> ends, w = random_multigraph(jax.random.key(1), 3, 6)
        >>> bool((ends[:, 0] != ends[:, 1]).all()), w.shape
        (True, (6, 2))
    """
    if n < 2:
        raise ValueError(f"a multigraph needs at least 2 agents, got n = {n}")
    k1, k2, k3 = jax.random.split(key, 3)
    a = jax.random.randint(k1, (m,), 0, n)
    b = (a + jax.random.randint(k2, (m,), 1, n)) % n  # a different agent
    ends = jnp.stack([a, b], 1).astype(jnp.int32)
    k3, k4 = jax.random.split(k3)
    octave = jnp.left_shift(1, jax.random.randint(k3, (m, 2), 0, log2_high + 1))
    w = (octave + jax.random.randint(k4, (m, 2), 0, 2**30) % octave).astype(jnp.int32)
    return ends, w


def orientation(endpoints: jax.Array, bits: jax.Array) -> jax.Array:
    """The allocation that gives edge ``e`` to ``endpoints[e, bits[e]]``.

    Args:
        endpoints: int ``(m, 2)``.
        bits: int ``(m,)`` of 0/1.

    Returns:
        int32 ``(m,)`` allocation.

    Example:
        >>> orientation(jnp.array([[0, 1], [1, 2]]), jnp.array([1, 1])).tolist()
        [1, 2]
    """
    endpoints = jnp.asarray(endpoints)
    return jnp.take_along_axis(endpoints, jnp.asarray(bits)[:, None], axis=1)[:, 0].astype(jnp.int32)


def best_orientation_alpha(
    endpoints: jax.Array, weights: jax.Array, n: int, k=KS, chunk: int = 1024
) -> dict[str, jax.Array]:
    """Brute force over the ``2**m`` orientations of a multigraph: the best α_k and how many are EFkX.

    Args:
        endpoints: int ``(m, 2)``.
        weights: ``(m, 2)`` endpoint values.
        n: number of agents.
        k: a tuple of non-negative ints (or one int).
        chunk: orientations per chunk of the enumeration.

    Returns:
        dict with ``best`` float32 ``(K,)`` (max over orientations of α_k) and ``n_efkx``
        int32 ``(K,)`` (orientations with α_k = 1; 0 means no EFkX orientation exists).

    Example:
        >>> out = best_orientation_alpha(jnp.array([[0, 1], [1, 2]]), jnp.array([[1, 1], [1, 1]]), 3, (1,))
        >>> out["best"].tolist(), out["n_efkx"].tolist()  # only 1 holding both edges fails
        ([1.0], [3])
    """
    ks, _ = _as_ks(k)
    values = multigraph_values(endpoints, weights, n)
    m = values.shape[1]

    def f(bits, valid):
        al = jax.vmap(lambda b: _alpha_from_terms(*_pair_terms(values, orientation(endpoints, b), ks)))(bits)
        al = jnp.where(valid[:, None], al, -1.0)
        return {"best": al.max(0), "n_efkx": ((al == 1.0) & valid[:, None]).sum(0).astype(jnp.int32)}

    out = denum.map_chunks(f, 2, m, min(chunk, 2**m))
    return {"best": out["best"].max(0), "n_efkx": out["n_efkx"].sum(0)}


@dataclasses.dataclass(frozen=True)
class FairDivSpec:
    """Shapes of one lane of :func:`run`.

    Attributes:
        n_agents: agents of the random instance.
        n_goods: goods of the random instance (``n_agents**n_goods`` allocations).
        graph_agents: agents (vertices) of each random multigraph.
        graph_edges: edges (goods) of each multigraph (``2**graph_edges`` orientations).
        n_graphs: random multigraphs per lane.
        ks: the k of EFkX evaluated.
        chunk: allocations per chunk of the exhaustive enumeration.
    """

    n_agents: int = 3
    n_goods: int = 6
    graph_agents: int = 4
    graph_edges: int = 8
    n_graphs: int = 16
    ks: tuple[int, ...] = KS
    chunk: int = 2048


#: Parameters of :func:`run`: ``family`` is the code of a :data:`FAMILIES` label.
DEFAULT_PARAMS = {"family": 0}


def run(spec: FairDivSpec, params, key: jax.Array) -> dict[str, jax.Array]:
    """One lane: a random instance and ``n_graphs`` random multigraphs, exhaustively evaluated.

    Args:
        spec: a :class:`FairDivSpec`.
        params: ``{"family": code}``.
        key: PRNG key (the instance and the multigraph are drawn from it).

    Returns:
        dict of arrays: ``best_alpha``, ``rr_alpha``, ``ece_alpha``, ``n_efkx`` (dim
        ``k``), ``n_ef``, ``n_efx``, ``mismatch`` (scalars), ``orient_best``,
        ``orient_n_efkx`` (``graph``, ``k``), ``graph_ends``, ``graph_weights``
        (``graph``, ``edge``, ``end``). The experiment ``efkx-allocations``
        (``sweeps/efkx_allocations.py``) sweeps it.
    """
    k_inst, k_graph = jax.random.split(key)
    family = params["family"]
    values = sample_values(k_inst, family, spec.n_agents, spec.n_goods)
    best = best_alpha(values, spec.ks, spec.chunk)
    rr = alpha_efkx(values, round_robin(values), spec.ks)
    ece = alpha_efkx(values, envy_cycle_elimination(values), spec.ks)
    keys = jax.random.split(k_graph, spec.n_graphs)
    ends, w = jax.vmap(lambda k: random_multigraph(k, spec.graph_agents, spec.graph_edges))(keys)
    orient = jax.vmap(lambda e, x: best_orientation_alpha(e, x, spec.graph_agents, spec.ks, spec.chunk))(
        ends, w
    )
    return {
        "best_alpha": best["best"],
        "n_efkx": best["n_efkx"],
        "n_ef": best["n_ef"],
        "n_efx": best["n_efx"],
        "mismatch": best["mismatch"],
        "rr_alpha": rr,
        "ece_alpha": ece,
        "orient_best": orient["best"],
        "orient_n_efkx": orient["n_efkx"],
        "graph_ends": ends,
        "graph_weights": w,
    }


#: The simulator's declaration: ``family`` a categorical parameter (labels in code order).
SIMULATOR = Simulator(
    run,
    spec=FairDivSpec(),
    params={**DEFAULT_PARAMS, "family": categorical(*FAMILIES, default=FAMILIES[DEFAULT_PARAMS["family"]])},
    metric_dims={
        "best_alpha": ("k",),
        "rr_alpha": ("k",),
        "ece_alpha": ("k",),
        "n_efkx": ("k",),
        "orient_best": ("graph", "k"),
        "orient_n_efkx": ("graph", "k"),
        "graph_ends": ("graph", "edge", "end"),
        "graph_weights": ("graph", "edge", "end"),
    },
    coords=lambda spec: {"k": list(spec.ks)},
)
