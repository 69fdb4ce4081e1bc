"""Generation in the limit on the integers, with and without vanishing-frequency hallucinations.

A finite illustration of arXiv:2606.28354 (Strauss, Butoi, Cotterell: "Generating in the
Limit with Infinitely Many Hallucinations"), of which only the abstract was read; the
generators are reconstructions in the Kleinberg–Mullainathan (2024) and Kleinberg–Wei (2025)
styles, not the paper's algorithms.

**Universe and languages.** The universe is ``1..U``; the state of a run is boolean arrays
over it (what each generator has output). Every language of a collection is *eventually
periodic*: a period ``P = 4b`` (``b`` in {2, 3}), a pattern over ``(x - 1) mod P`` below a
cut and another above it (``cut = 0`` for a plain finite union of arithmetic progressions),
so membership, counts and the ``r``-th element are closed forms. A collection is, in the
order a Kleinberg–Mullainathan generator enumerates it:

* ``0``, the *broad* language ``B = {x ≡ a} ∪ {x ≡ a'} (mod b)``;
* ``1..d``, *decoys* ``D_j = (K' ∩ [1, c_j]) ∪ {x > c_j : x ≡ a' (mod b)}``: they agree
  with the data until the adversary reveals an element of ``K'`` above ``c_j``;
* ``d + 1``, the *target* ``K = {x ≡ a (mod b)}``;
* ``d + 2``, the *revealed part* ``K' ⊆ K``: the elements of ``K`` whose block
  ``((x - 1) mod P) // b`` is in a set ``R`` of ``4α`` of the four blocks, so ``K'`` has
  density ``α`` in ``K`` (the adversary withholds ``4(1 - α)`` residue classes mod ``P``).

**Adversary.** Partial enumeration: round ``t`` (0-based) reveals the element of rank ``2t``
of ``K'`` (every other element, in increasing order; the odd ranks come after the horizon).
Since ``K' ∈ C`` the data never rule ``K'`` out: an eventually valid generator must
eventually output inside ``K'``, and in any window ``[1, N]`` below the adversary's frontier
at most the half of ``K' ∩ [1, N]`` that is not in the sample is novel, so its recall is at
most ``α/2`` (the bound that arXiv:2511.05295 proves tight for partial enumeration).

**Generators** (after the round's reveal; novel = neither revealed nor output before):

* ``km``: Kleinberg–Mullainathan: the highest-index *critical* language (consistent, and a
  subset of every consistent language before it); its element at a uniformly random rank
  when that is novel, else its smallest novel element;
* ``density``: the same critical language, its smallest novel element (a Kleinberg–Wei
  style density-seeker). Under ``λ``-novelty (``lam < 1``) it may instead repeat the
  smallest revealed element it has not output yet, when that is smaller, as long as the
  novel fraction of its outputs stays at least ``λ`` (``novel ≥ λ·t``);
* ``tolerant``: with probability ``min(1, c/√t)`` (``t`` 1-based) the smallest novel
  element of the *broadest* consistent language (most elements in ``[1, U]``), otherwise
  as ``density``. Its invalid outputs have frequency ``O(1/√t) → 0`` (precision 1) but are
  infinitely many, and in the limit it outputs all of ``B``, hence all of ``K \\ K'``.

Example:
    >>> spec = GenerationSpec(universe=2400, rounds=100, windows=(16, 160), bins=4)
    >>> col = make_collection(spec, 2, 1, 0, [True, True, False, False], [50, 90, 130])
    >>> [int(language_size(col, i, 2400)) for i in (0, spec.target, spec.revealed)]  # B, K, K'
    [2400, 1200, 600]
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from jaxtheory.simulator import Simulator

__all__ = [
    "GENERATORS",
    "BLOCKS",
    "MODULI",
    "PERIOD_MAX",
    "STRUCTURE_SEED",
    "DEFAULT_PARAMS",
    "GenerationSpec",
    "Collection",
    "make_collection",
    "draw_collection",
    "member",
    "count_upto",
    "element",
    "language_size",
    "language_element",
    "language_masks",
    "subset_matrix",
    "reveal_sequence",
    "schedule",
    "draws",
    "generate",
    "recall_at",
    "invalid_stats",
    "run",
]

#: The generators, in the order of the ``generator`` dimension of every metric.
GENERATORS = ("km", "density", "tolerant")
#: Blocks per period of the target: ``α`` is a multiple of ``1/BLOCKS``.
BLOCKS = 4
#: The moduli ``b`` a collection's target ``{x ≡ a (mod b)}`` is drawn from.
MODULI = (2, 3)
#: The longest period ``BLOCKS * max(MODULI)`` (the static length of every pattern).
PERIOD_MAX = BLOCKS * max(MODULI)
#: Seed of the collections' structure: collection ``i`` is drawn from ``fold_in(key(STRUCTURE_SEED), i)``,
#: so every seed (and every α, λ) of collection ``i`` plays on the same residues and decoy cuts.
STRUCTURE_SEED = 260628354

# Ranks checked at once by the searches for the next unused element (one probe usually suffices).
_PROBE = 4

#: Default parameters: ``alpha`` the density of the revealed part in the target (a multiple
#: of 1/4 in (0, 1]), ``lam`` the required novel fraction λ, ``c`` the tolerant generator's
#: hallucination constant (probability ``c/√t``), ``collection`` the collection's index.
DEFAULT_PARAMS = {"alpha": 0.5, "lam": 1.0, "c": 0.5, "collection": 0}


@dataclasses.dataclass(frozen=True)
class GenerationSpec:
    """Shapes of a run: the universe, the horizon, the decoys, the recall windows.

    Attributes:
        universe: ``U``, the universe is ``1..U``.
        rounds: ``T``, the horizon; the adversary uses the first ``2T`` elements of ``K'``,
            so ``U·α/max(MODULI) > 2T`` keeps every generator supplied (``abstain`` counts
            rounds without a novel candidate).
        decoys: ``d``, the number of decoy languages.
        windows: the ``N`` of the recall windows ``[1, N]`` (each ``<= universe``).
        bins: the horizon is cut into this many equal bins for ``invalid_bins``
            (must divide ``rounds``).
    """

    universe: int = 100_000
    rounds: int = 4000
    decoys: int = 3
    windows: tuple[int, ...] = (16, 48, 160, 480, 1600, 4800, 16000)
    bins: int = 20

    def __post_init__(self):
        if self.universe < 2 * PERIOD_MAX:
            raise ValueError(f"universe must be at least {2 * PERIOD_MAX}, got {self.universe}")
        if self.rounds < 1 or self.decoys < 0:
            raise ValueError("rounds must be >= 1 and decoys >= 0")
        if not self.windows or any(not 1 <= int(w) <= self.universe for w in self.windows):
            raise ValueError(f"windows must be non-empty and in [1, universe], got {self.windows}")
        if self.bins < 1 or self.rounds % self.bins:
            raise ValueError(f"bins ({self.bins}) must divide rounds ({self.rounds})")

    @property
    def n_languages(self) -> int:
        """``d + 3``: broad, the decoys, target, revealed part."""
        return self.decoys + 3

    @property
    def target(self) -> int:
        """Index of the target ``K``."""
        return self.decoys + 1

    @property
    def revealed(self) -> int:
        """Index of the revealed part ``K'``."""
        return self.decoys + 2


class Collection(NamedTuple):
    """A collection of eventually periodic languages over ``1..U``.

    ``x`` belongs to language ``i`` iff ``lo[i, (x-1) % period]`` when ``x <= cut[i]``, else
    ``hi[i, (x-1) % period]``. Patterns have length :data:`PERIOD_MAX`; entries at and
    beyond ``period`` are False.

    Attributes:
        lo: ``(M, PERIOD_MAX)`` bool, the pattern up to the cut.
        hi: ``(M, PERIOD_MAX)`` bool, the pattern above the cut.
        cut: ``(M,)`` int32.
        period: scalar int32.
    """

    lo: Any
    hi: Any
    cut: Any
    period: Any


def make_collection(spec, modulus, target_class, other_class, revealed_blocks, cuts) -> Collection:
    """The collection (broad, decoys, target, revealed part) described in the module docs.

    Args:
        spec: a :class:`GenerationSpec` (its ``decoys``).
        modulus: ``b`` (2 or 3).
        target_class: ``a`` in ``[0, b)``: the target is ``{x : x mod b = a}``.
        other_class: ``a' ≠ a``: the broad language adds ``{x : x mod b = a'}``.
        revealed_blocks: ``(BLOCKS,)`` bool, the blocks ``R`` of the revealed part.
        cuts: ``(decoys,)`` int, the decoys' cuts ``c_j``.

    Returns:
        The :class:`Collection` (jnp arrays; traceable in every argument).
    """
    b = jnp.asarray(modulus, jnp.int32)
    period = BLOCKS * b
    s = jnp.arange(PERIOD_MAX)
    valid = s < period
    cls = (s + 1) % b
    target = valid & (cls == target_class)
    other = valid & (cls == other_class)
    blocks = jnp.asarray(revealed_blocks, bool)[jnp.clip(s // b, 0, BLOCKS - 1)]
    revealed = target & blocks
    broad = target | other
    d = spec.decoys
    lo = jnp.stack([broad, *([revealed] * d), target, revealed])
    hi = jnp.stack([broad, *([other] * d), target, revealed])
    cut = jnp.concatenate(
        [jnp.zeros(1, jnp.int32), jnp.asarray(cuts, jnp.int32).reshape(d), jnp.zeros(2, jnp.int32)]
    )
    return Collection(lo, hi, cut, period.astype(jnp.int32))


def count_upto(pattern, period, n):
    """How many ``x`` in ``[1, n]`` have ``pattern[(x - 1) % period]`` (``n >= 0``, broadcasts).

    Example:
        >>> import jax.numpy as jnp
        >>> int(count_upto(jnp.array([True, False, False, True]), 4, 10))  # 1, 4, 5, 8, 9
        5
    """
    pattern = jnp.asarray(pattern, jnp.int32)
    prefix = jnp.concatenate([jnp.zeros(1, jnp.int32), jnp.cumsum(pattern)])
    n = jnp.asarray(n, jnp.int32)
    return (n // period) * prefix[-1] + prefix[n % period]


def element(pattern, period, r):
    """The element of rank ``r`` (0-based) of the periodic set ``pattern`` (non-empty).

    Example:
        >>> import jax.numpy as jnp
        >>> int(element(jnp.array([True, False, False, True]), 4, 3))  # 1, 4, 5, 8
        8
    """
    pattern = jnp.asarray(pattern, bool)
    k = jnp.maximum(pattern.sum().astype(jnp.int32), 1)
    offs = jnp.nonzero(pattern, size=pattern.shape[-1], fill_value=0)[0].astype(jnp.int32)
    r = jnp.asarray(r, jnp.int32)
    return (r // k) * period + offs[r % k] + 1


def member(col: Collection, x):
    """Membership of ``x`` in every language of ``col``.

    Args:
        col: the collection.
        x: an int array (any shape) of universe elements.

    Returns:
        bool array of shape ``(M,) + x.shape``.
    """
    x = jnp.asarray(x, jnp.int32)
    s = (x - 1) % col.period
    cut = col.cut.reshape((-1,) + (1,) * x.ndim)
    return jnp.where(x <= cut, col.lo[:, s], col.hi[:, s])


def language_size(col: Collection, i, n):
    """``|L_i ∩ [1, n]|`` in closed form.

    Args:
        col: the collection.
        i: the language's index (may be traced).
        n: the window end (``>= 0``).

    Returns:
        int32 count.
    """
    lo, hi, c = col.lo[i], col.hi[i], col.cut[i]
    m = jnp.minimum(n, c)
    above = count_upto(hi, col.period, jnp.maximum(n, c)) - count_upto(hi, col.period, c)
    return count_upto(lo, col.period, m) + jnp.where(n > c, above, 0)


def language_element(col: Collection, i, r):
    """The element of rank ``r`` (0-based) of ``L_i``, in closed form.

    Args:
        col: the collection.
        i: the language's index (may be traced).
        r: the rank (broadcasts).

    Returns:
        int32 element(s); ranks beyond ``|L_i ∩ [1, U]|`` give elements above ``U``.
    """
    lo, hi, c = col.lo[i], col.hi[i], col.cut[i]
    n_lo = count_upto(lo, col.period, c)
    return jnp.where(
        r < n_lo,
        element(lo, col.period, r),
        element(hi, col.period, r - n_lo + count_upto(hi, col.period, c)),
    )


def language_masks(col: Collection, spec: GenerationSpec):
    """Membership of every element of the universe in every language.

    Args:
        col: the collection.
        spec: the spec (its ``universe``).

    Returns:
        ``(M, U)`` bool; column ``x - 1`` is element ``x``.
    """
    return member(col, jnp.arange(1, spec.universe + 1))


def subset_matrix(col: Collection, spec: GenerationSpec):
    """Which languages contain which, on the universe ``[1, U]``, exactly.

    Between consecutive cuts every language is periodic, so a segment is checked on its
    first ``min(P, length)`` positions: at most ``(M + 1)·PERIOD_MAX`` positions in all.

    Args:
        col: the collection.
        spec: the spec.

    Returns:
        ``(M, M)`` bool, ``S[i, j] = (L_i ∩ [1, U] ⊆ L_j ∩ [1, U])``.
    """
    ends = jnp.sort(
        jnp.clip(jnp.concatenate([col.cut, jnp.array([spec.universe], jnp.int32)]), 0, spec.universe)
    )
    starts = jnp.concatenate([jnp.zeros(1, jnp.int32), ends[:-1]]) + 1
    x = starts[:, None] + jnp.arange(PERIOD_MAX)[None, :]
    ok = (x <= ends[:, None]).ravel()
    m = member(col, x.ravel())
    bad = m[:, None, :] & ~m[None, :, :] & ok[None, None, :]
    return ~bad.any(-1)


def draw_collection(spec: GenerationSpec, alpha, collection) -> Collection:
    """Collection number ``collection`` of the smoke/full presets, with revealed density ``alpha``.

    ``b``, ``a``, ``a'``, the (rotated) order in which blocks join ``R`` (``R`` for α = 1/4
    ⊂ R for 1/2 ⊂ ...) and the decoys' refutation rounds ``t_j`` (uniform in ``[T/50, T/5]``; the
    cut is the element of ``K'`` revealed at round ``t_j``) depend on ``collection`` only.

    Args:
        spec: the spec.
        alpha: the density of ``K'`` in ``K``, rounded to a multiple of ``1/BLOCKS``
            (may be traced).
        collection: the collection's index (may be traced).

    Returns:
        The :class:`Collection`.
    """
    key = jax.random.fold_in(jax.random.key(STRUCTURE_SEED), collection)
    kb, kc = jax.random.split(key)
    u = jax.random.randint(kb, (4,), 0, 2**20)
    b = jnp.asarray(MODULI, jnp.int32)[u[0] % len(MODULI)]
    a = u[1] % b
    other = (a + 1 + u[2] % (b - 1)) % b
    k = jnp.round(jnp.asarray(alpha, jnp.float32) * BLOCKS).astype(jnp.int32)
    blocks = (jnp.arange(BLOCKS) + u[3]) % BLOCKS < k  # R grows with α by a rotated order
    lo_t = max(1, spec.rounds // 50)
    t_j = jax.random.randint(kc, (spec.decoys,), lo_t, max(lo_t + 1, spec.rounds // 5))
    base = make_collection(spec, b, a, other, blocks, jnp.zeros(spec.decoys, jnp.int32))
    cuts = element(base.lo[spec.revealed], base.period, 2 * t_j)
    return make_collection(spec, b, a, other, blocks, cuts)


def reveal_sequence(col: Collection, spec: GenerationSpec):
    """The adversary's reveals: the elements of rank ``0, 2, 4, ...`` of ``K'``.

    Args:
        col: the collection.
        spec: the spec (its ``rounds``).

    Returns:
        ``(T,)`` int32, increasing.
    """
    return element(col.lo[spec.revealed], col.period, 2 * jnp.arange(spec.rounds))


def schedule(col: Collection, spec: GenerationSpec, reveals=None):
    """What every round's sample allows: consistency, the critical and the broadest language.

    Args:
        col: the collection.
        spec: the spec.
        reveals: the reveal sequence (default :func:`reveal_sequence`).

    Returns:
        ``(consistent (T, M) bool, critical (T,) int32, broadest (T,) int32)``: after the
        reveal of round ``t``, which languages contain the whole sample; the highest index
        ``n`` with ``L_n`` consistent and ``L_n ⊆ L_i`` for every consistent ``i < n``; the
        consistent language with most elements in ``[1, U]`` (lowest index on ties).
    """
    rev = reveal_sequence(col, spec) if reveals is None else reveals
    m = spec.n_languages
    cons = jnp.cumprod(member(col, rev).T.astype(jnp.int32), axis=0).astype(bool)
    sub = subset_matrix(col, spec)
    before = jnp.arange(m)[None, :] < jnp.arange(m)[:, None]  # [n, i]: i < n
    viol = before[None] & cons[:, None, :] & ~sub[None]
    ok = cons & ~viol.any(-1)
    critical = (m - 1 - jnp.argmax(ok[:, ::-1], axis=1)).astype(jnp.int32)
    sizes = jax.vmap(lambda i: language_size(col, i, spec.universe))(jnp.arange(m))
    broadest = jnp.argmax(jnp.where(cons, sizes[None], -1), axis=1).astype(jnp.int32)
    return cons, critical, broadest


def draws(spec: GenerationSpec, params, key):
    """The randomness of a run: the tolerant generator's coins and the ``km`` generator's ranks.

    Returns:
        ``(coins (T,) bool, ranks (T,) int32)``: ``coins[t]`` is ``u_t < c/√(t+1)`` with
        ``u_t`` uniform; ``ranks`` are uniform in ``[0, 2^31 - 1)`` (``km`` takes them modulo
        the size of its language).
    """
    kc, kr = jax.random.split(key)
    t = jnp.arange(1, spec.rounds + 1, dtype=jnp.float32)
    coins = jax.random.uniform(kc, (spec.rounds,)) < jnp.asarray(params["c"], jnp.float32) / jnp.sqrt(t)
    ranks = jax.random.randint(kr, (spec.rounds,), 0, 2**31 - 1, dtype=jnp.int32)
    return coins, ranks


class _Tables(NamedTuple):
    offs_lo: Any  # (M, PERIOD_MAX) int32 sorted offsets of lo's members
    offs_hi: Any
    k_lo: Any  # (M,) members per period
    k_hi: Any
    n_lo: Any  # (M,) |lo ∩ [1, cut]|
    n_hi: Any  # (M,) |hi ∩ [1, cut]|
    prefix: Any  # (M, PERIOD_MAX + 1) prefix counts of lo
    prefix_hi: Any


def _tables(col: Collection) -> _Tables:
    def offs(p):
        return jnp.nonzero(p, size=PERIOD_MAX, fill_value=0)[0].astype(jnp.int32)

    def pre(p):
        return jnp.concatenate([jnp.zeros((p.shape[0], 1), jnp.int32), jnp.cumsum(p.astype(jnp.int32), 1)], 1)

    n_lo = jax.vmap(lambda p, c: count_upto(p, col.period, c))(col.lo, col.cut)
    n_hi = jax.vmap(lambda p, c: count_upto(p, col.period, c))(col.hi, col.cut)
    return _Tables(
        jax.vmap(offs)(col.lo),
        jax.vmap(offs)(col.hi),
        jnp.maximum(col.lo.sum(1).astype(jnp.int32), 1),
        jnp.maximum(col.hi.sum(1).astype(jnp.int32), 1),
        n_lo,
        n_hi,
        pre(col.lo),
        pre(col.hi),
    )


def _fast_element(tab: _Tables, period, i, r):
    """:func:`language_element` from precomputed tables."""
    below = r < tab.n_lo[i]
    rr = jnp.where(below, r, r - tab.n_lo[i] + tab.n_hi[i])
    k = jnp.where(below, tab.k_lo[i], tab.k_hi[i])
    off = jnp.where(below, tab.offs_lo[i, rr % k], tab.offs_hi[i, rr % k])
    return (rr // k) * period + off + 1


def generate(spec: GenerationSpec, col: Collection, lam, coins, ranks, generator: str, sched=None):
    """Play one generator against the partial-enumeration adversary for ``T`` rounds.

    Args:
        spec: the spec.
        col: the collection.
        lam: the required novel fraction λ (compared as ``novel >= float32(λ)·float32(t)``).
        coins: ``(T,)`` bool, the tolerant generator's hallucination coins.
        ranks: ``(T,)`` int32, the ``km`` generator's random ranks.
        generator: one of :data:`GENERATORS`.
        sched: ``(reveals, critical, broadest)`` when already computed (by :func:`run`).

    Returns:
        ``(outputs (T,) int32, novel (T,) bool, generated (U + 2,) bool)``: the output of
        every round (0: no candidate, an abstention), whether it was novel, and the set of
        generated elements as a mask indexed by ``x``.
    """
    if generator not in GENERATORS:
        raise ValueError(f"generator must be one of {GENERATORS}, got {generator!r}")
    U, T, rv = spec.universe, spec.rounds, spec.revealed
    if sched is None:
        rev = reveal_sequence(col, spec)
        sched = (rev, *schedule(col, spec, rev)[1:])
    rev, critical, broadest = sched
    lam = jnp.asarray(lam, jnp.float32)
    tab = _tables(col)
    P = col.period
    sizes = jax.vmap(lambda i: language_size(col, i, U))(jnp.arange(spec.n_languages))

    def seen(x, idx):
        n = jnp.maximum(x - 1, 0)
        rank = (n // P) * tab.prefix[rv, -1] + tab.prefix[rv, n % P]
        return col.lo[rv, (x - 1) % P] & (rank % 2 == 0) & (rank <= 2 * idx)

    def used(out, x, idx):
        return out[jnp.clip(x, 0, U + 1)] | seen(x, idx)

    def first(ok, start, width=_PROBE):
        """The smallest ``r >= start`` with ``ok(r)``, probing ``width`` ranks at a time."""

        def probe(base):
            hit = ok(base + jnp.arange(width, dtype=jnp.int32))
            return hit.any(), base + jnp.argmax(hit).astype(jnp.int32)

        found, r = probe(start)

        def body(s):
            base = s[0] + width
            return (base, *probe(base))

        return jax.lax.while_loop(lambda s: ~s[1], body, (start, found, r))[2]

    def smallest_unused(out, r, lang, idx, need=None):
        def ok(rs):
            x = _fast_element(tab, P, lang, rs)
            hit = (x > U) | ~used(out, x, idx)
            return hit if need is None else hit | ~need

        r = first(ok, r)
        return r, _fast_element(tab, P, lang, r)

    def step(carry, xs):
        out, ptr, e, nov = carry
        idx, crit, broad, coin, rank = xs
        t = (idx + 1).astype(jnp.float32)
        if generator == "km":
            x_r = _fast_element(tab, P, crit, rank % jnp.maximum(sizes[crit], 1))
            need = used(out, x_r, idx)  # the random-rank element is not novel: the smallest novel one
            r_c, x_c = smallest_unused(out, ptr[crit], crit, idx, need)
            ptr = ptr.at[crit].set(jnp.where(need, r_c, ptr[crit]))
            x = jnp.where(need, x_c, x_r)
            x = jnp.where(x <= U, x, 0)
            novel = x > 0
        else:
            r_c, x_c = smallest_unused(out, ptr[crit], crit, idx)
            ptr = ptr.at[crit].set(r_c)
            e = first(lambda es: (es > idx) | ~out[rev[jnp.minimum(es, T - 1)]], e)
            has_echo = e <= idx
            x_e = jnp.where(has_echo, rev[jnp.minimum(e, T - 1)], U + 1)
            allow = has_echo & (nov.astype(jnp.float32) >= lam * t)
            echo = allow & (x_e < x_c)
            x = jnp.where(echo, x_e, jnp.where(x_c <= U, x_c, 0))
            novel = ~echo & (x > 0)
            if generator == "tolerant":
                r_b, x_b = smallest_unused(out, ptr[broad], broad, idx)
                ptr = ptr.at[broad].set(r_b)
                x = jnp.where(coin, jnp.where(x_b <= U, x_b, 0), x)
                novel = jnp.where(coin, x > 0, novel)
        out = out.at[x].set(x > 0)
        return (out, ptr, e, nov + novel.astype(jnp.int32)), (x, novel)

    init = (
        jnp.zeros(U + 2, bool),
        jnp.zeros(spec.n_languages, jnp.int32),
        jnp.zeros((), jnp.int32),
        jnp.zeros((), jnp.int32),
    )
    xs = (
        jnp.arange(T, dtype=jnp.int32),
        critical,
        broadest,
        jnp.asarray(coins, bool),
        jnp.asarray(ranks, jnp.int32),
    )
    (out, _, _, _), (outputs, novel) = jax.lax.scan(step, init, xs)
    return outputs, novel, out


def recall_at(generated, target_mask, windows):
    """``|O ∩ K ∩ [1, N]| / |K ∩ [1, N]|`` for every ``N`` in ``windows``.

    Args:
        generated: ``(..., U)`` bool, the generated set over ``1..U``.
        target_mask: ``(U,)`` bool, the target over ``1..U``.
        windows: the window ends ``N``.

    Returns:
        ``(..., len(windows))`` float32.

    Example:
        >>> import jax.numpy as jnp
        >>> [round(float(v), 3) for v in recall_at(jnp.array([1, 0, 1, 0], bool), jnp.ones(4, bool), (2, 4))]
        [0.5, 0.5]
    """
    hits = jnp.cumsum(generated & target_mask, axis=-1)
    size = jnp.cumsum(target_mask)
    w = jnp.asarray(windows, jnp.int32) - 1
    return hits[..., w] / jnp.maximum(size[w], 1)


def invalid_stats(outputs, target_mask, bins: int):
    """Invalid outputs (``x >= 1`` outside the target) of each round, summarised.

    Args:
        outputs: ``(..., T)`` int, outputs (0 = abstention, neither valid nor invalid).
        target_mask: ``(U,)`` bool over ``1..U`` (outputs are at most ``U``).
        bins: number of equal bins of the horizon (divides ``T``).

    Returns:
        A dict: ``last_invalid``, the last round (1-based) with an invalid output, 0 if
        none; ``invalid_last``, the invalid fraction over the last ``max(1, T // 10)``
        rounds; ``invalid_bins``, the invalid fraction per bin.

    Example:
        >>> import jax.numpy as jnp
        >>> s = invalid_stats(jnp.array([2, 1, 3, 2]), jnp.array([True, False, True]), bins=2)
        >>> int(s["last_invalid"]), [float(v) for v in s["invalid_bins"]]
        (4, [0.5, 0.5])
    """
    outputs = jnp.asarray(outputs, jnp.int32)
    T = outputs.shape[-1]
    padded = jnp.concatenate([jnp.ones(1, bool), jnp.asarray(target_mask, bool)])
    inval = (outputs > 0) & ~padded[jnp.clip(outputs, 0, padded.shape[0] - 1)]
    t = jnp.arange(1, T + 1, dtype=jnp.int32)
    n_last = max(1, T // 10)
    return {
        "last_invalid": jnp.max(jnp.where(inval, t, 0), axis=-1).astype(jnp.int32),
        "invalid_last": inval[..., T - n_last :].mean(-1),
        "invalid_bins": inval.reshape(inval.shape[:-1] + (bins, T // bins)).mean(-1),
    }


def run(spec: GenerationSpec, params, key):
    """All three generators on collection ``params["collection"]`` at density ``params["alpha"]``.

    Args:
        spec: a :class:`GenerationSpec`.
        params: ``alpha``, ``lam``, ``c``, ``collection`` (see :data:`DEFAULT_PARAMS`).
        key: PRNG key (the coins and ranks; the collection depends on ``collection`` only).

    Returns:
        Metrics with a leading ``generator`` dimension (:data:`GENERATORS`): ``recall``
        ``(3, windows)``, ``last_invalid``, ``invalid_last``, ``invalid_bins`` ``(3, bins)``,
        ``novel_frac``, ``abstain``; and ``broad_outputs`` (the tolerant generator's coin
        rounds), ``frontier`` (the last revealed element), ``final_critical`` (the critical
        language's index at the horizon; ``d + 2`` is ``K'``), ``last_refutation`` (the last
        round, 1-based, at which a decoy was consistent).
    """
    col = draw_collection(spec, params["alpha"], params["collection"])
    coins, ranks = draws(spec, params, key)
    target = col.hi[spec.target, jnp.arange(spec.universe) % col.period]  # cut 0: the hi pattern
    rev = reveal_sequence(col, spec)
    cons, critical, broadest = schedule(col, spec, rev)
    outs, novs, gens = [], [], []
    for g in GENERATORS:
        o, n, gen = generate(spec, col, params["lam"], coins, ranks, g, (rev, critical, broadest))
        outs.append(o)
        novs.append(n)
        gens.append(gen[1 : spec.universe + 1])
    outputs, novel, generated = jnp.stack(outs), jnp.stack(novs), jnp.stack(gens)
    stats = invalid_stats(outputs, target, spec.bins)
    decoy_alive = cons[:, 1 : spec.decoys + 1].any(-1) if spec.decoys else jnp.zeros(spec.rounds, bool)
    t = jnp.arange(1, spec.rounds + 1, dtype=jnp.int32)
    return {
        "recall": recall_at(generated, target, spec.windows).astype(jnp.float32),
        **stats,
        "novel_frac": novel.mean(-1),
        "abstain": (outputs == 0).sum(-1).astype(jnp.int32),
        "broad_outputs": coins.sum().astype(jnp.int32),
        "frontier": rev[-1],
        "final_critical": critical[-1],
        "last_refutation": jnp.max(jnp.where(decoy_alive, t, 0)).astype(jnp.int32),
    }


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=GenerationSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "recall": ("generator", "window"),
        "last_invalid": ("generator",),
        "invalid_last": ("generator",),
        "invalid_bins": ("generator", "bin"),
        "novel_frac": ("generator",),
        "abstain": ("generator",),
    },
    coords=lambda spec: {
        "generator": list(GENERATORS),
        "window": list(spec.windows),
        "bin": list(range(spec.bins)),
    },
)
