"""Exact minimax mistake values of finite online learning games, and Hedge for the agnostic case.

A hypothesis class over a domain of ``n`` points is a sequence of distinct integer
bitmasks (bit ``i`` is the label of point ``i``). Three realisable games are solved
exactly by memoised dynamic programs over version spaces; every round the learner
predicts a label, the adversary reveals a label consistent with some hypothesis of the
current version space, and a mistake costs one:

* **standard** (:func:`standard_value`): for ``rounds`` rounds the adversary shows any
  point of the domain (repeats allowed). The value is the Littlestone dimension capped at
  ``rounds`` (Littlestone 1988).
* **adversary-directed** (:func:`adversary_directed_value`): the learner knows the set
  ``X`` of the ``n`` points in advance; each point is shown exactly once, in an order
  the adversary chooses adaptively round by round after seeing the learner's past
  predictions. ``Val(R, V) = max_{x in R} min_yhat max_{y: V_{x,y} != {}} [1{yhat != y}
  + Val(R \\ x, V_{x,y})]``.
* **transductive** (:func:`transductive_value`): as adversary-directed, but the order is
  fixed in advance and revealed to the learner (Hanneke, Moran and Shafer 2023;
  Ben-David, Kushilevitz and Mansour 1997): the maximum over orders of the fixed-order
  game, computed over suffix sets with Pareto frontiers of value vectors (the shared
  order couples the branches, so no per-branch recursion is exact).

Every round's inner ``min_yhat max_y`` reduces to ``g(v0, v1) = max(v0, v1) +
[v0 == v1]`` when both labels are possible and to the forced child's value otherwise;
a point whose label every hypothesis agrees on never costs a mistake, so the programs
drop such points and canonicalise a version space by relabelling its informative points
``0..r-1`` in order (:func:`canonical`): version spaces that agree up to such a
relabelling share one memo entry. The agnostic part is Hedge (exponential weights on the probability of a mistake,
learning rate ``sqrt(8 ln|H| / T)``) over the class restricted to the ``T`` points,
against an oblivious coin-flip adversary and an adaptive adversary-directed one
(:func:`hedge_regret`); its regret is at most ``sqrt((T/2) ln|H|)`` for every label
sequence (Cesa-Bianchi and Lugosi 2006, Thm. 2.2).

The paper behind this module (adversary-directed online learning and a "perfect
Littlestone dimension") was not found; the settings are reconstructed from its abstract.
:func:`run` is a host-mode simulator: plain Python/numpy, ``run(spec, params, seed)``.
"""

from __future__ import annotations

import bisect
import dataclasses
import math
from collections.abc import Iterable, Sequence
from functools import cache

import numpy as np

from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "CLASSES",
    "ADVERSARIES",
    "DEFAULT_PARAMS",
    "OnlineGameSpec",
    "singletons",
    "thresholds",
    "interval_unions",
    "all_labelings",
    "hypotheses",
    "class_size",
    "combine",
    "canonical",
    "adversary_directed_value",
    "standard_value",
    "fixed_order_value",
    "transductive_value",
    "game_values",
    "hedge_regret",
    "hedge_bound",
    "run",
    "SIMULATOR",
]

#: Names of the ``cls`` codes: 0 singletons ``{1{x = i}}``, 1 thresholds ``{1{x >= a}}``
#: (``a = 0..n``), 2 unions of at most two intervals, 3 all ``2^n`` labelings.
CLASSES = ("singletons", "thresholds", "two_intervals", "all_labelings")
#: Names of the Hedge adversaries (the ``adversary`` dimension of :func:`run`'s regret):
#: ``coin`` shows the points in a random order with fair-coin labels (oblivious);
#: ``directed`` shows the remaining point whose predicted probability of a one is
#: closest to 1/2 and labels it against the learner's majority (adaptive; ties go to the
#: smallest point and to label one, so it is deterministic and its regret is the same
#: in every seed).
ADVERSARIES = ("coin", "directed")
#: Default of every parameter :func:`run` reads: the class code, the number of points
#: ``T`` of the exact games and the Hedge horizon (points of Hedge's instance set).
DEFAULT_PARAMS = {"cls": 1, "T": 6, "horizon": 100}


@dataclasses.dataclass(frozen=True)
class OnlineGameSpec:
    """Static settings of :func:`run`.

    Attributes:
        domain: points of the wide domain of the ``standard_wide`` game (the adversary
            may show any of them, ``T`` rounds); at least every ``T`` swept.
        hedge_classes: class codes Hedge runs for (unions of two intervals have about
            ``T^4/24`` experts at ``T = 10^4``); for the others :func:`run` reports
            ``hedge_ran = 0``.
    """

    domain: int = 12
    hedge_classes: tuple[int, ...] = (0, 1, 3)


# -- classes ----------------------------------------------------------------------------
def _check_n(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"the domain needs at least one point, got n={n!r}")
    return int(n)


def singletons(n: int) -> list[int]:
    """The singletons ``{1{x = i} : i < n}`` as bitmasks.

    Args:
        n: points of the domain.

    Returns:
        ``[1 << i for i in range(n)]``.

    Example:
        >>> singletons(3)
        [1, 2, 4]
    """
    return [1 << i for i in range(_check_n(n))]


def thresholds(n: int) -> list[int]:
    """The thresholds ``{1{x >= a} : a = 0..n}`` on points ``0..n-1`` (``n + 1`` labelings).

    Example:
        >>> [bin(h) for h in thresholds(2)]
        ['0b11', '0b10', '0b0']
    """
    full = (1 << _check_n(n)) - 1
    return [full ^ ((1 << a) - 1) for a in range(n + 1)]


def _runs(h: int) -> int:
    """Number of maximal runs of ones in the bits of ``h``."""
    return bin(h & ~(h << 1)).count("1")


def interval_unions(n: int, k: int = 2) -> list[int]:
    """Unions of at most ``k`` intervals on the line ``0..n-1``: labelings with ≤ k runs of ones.

    Args:
        n: points of the domain.
        k: the most intervals (``k >= 0``).

    Returns:
        The bitmasks in increasing order (the empty union included).

    Example:
        >>> len(interval_unions(4, 1))  # empty + 4·5/2 intervals
        11
    """
    n = _check_n(n)
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    return [h for h in range(1 << n) if _runs(h) <= k]


def all_labelings(n: int) -> list[int]:
    """All ``2^n`` labelings of ``n`` points.

    Example:
        >>> all_labelings(2)
        [0, 1, 2, 3]
    """
    n = _check_n(n)
    if n > 16:
        raise ValueError(f"all labelings of {n} > 16 points are too many to list")
    return list(range(1 << n))


def hypotheses(cls: int | str, n: int) -> list[int]:
    """The class ``cls`` (a code or a name of :data:`CLASSES`) on ``n`` points.

    Example:
        >>> hypotheses("singletons", 2)
        [1, 2]
    """
    name = CLASSES[cls] if isinstance(cls, (int, np.integer)) else cls
    if name not in CLASSES:
        raise ValueError(f"unknown class {cls!r}; known: {CLASSES}")
    return {
        "singletons": singletons,
        "thresholds": thresholds,
        "two_intervals": lambda m: interval_unions(m, 2),
        "all_labelings": all_labelings,
    }[name](n)


def class_size(cls: int | str, n: int) -> int:
    """``|H|`` restricted to ``n`` points, by formula (no enumeration).

    Example:
        >>> class_size("two_intervals", 12) == len(interval_unions(12, 2))
        True
    """
    name = CLASSES[cls] if isinstance(cls, (int, np.integer)) else cls
    n = _check_n(n)
    if name == "singletons":
        return n
    if name == "thresholds":
        return n + 1
    if name == "two_intervals":  # choose 2j run boundaries among n + 1 gaps
        return sum(math.comb(n + 1, 2 * j) for j in range(3))
    if name == "all_labelings":
        return 2**n
    raise ValueError(f"unknown class {cls!r}; known: {CLASSES}")


# -- the game's algebra -----------------------------------------------------------------
def combine(v0: int, v1: int) -> int:
    """``min_yhat max_y [1{yhat != y} + v_y]`` when both labels are possible.

    The learner predicts the label whose continuation is worth more to the adversary; a
    tie costs one more mistake.

    Example:
        >>> combine(2, 2), combine(1, 3)
        (3, 3)
    """
    return max(v0, v1) + (v0 == v1)


def _runs_of(keep: Sequence[int]) -> list[tuple[int, int, int]]:
    """Maximal runs of consecutive positions in ``keep``: (source shift, mask, target shift)."""
    runs, i = [], 0
    while i < len(keep):
        j = i
        while j + 1 < len(keep) and keep[j + 1] == keep[j] + 1:
            j += 1
        runs.append((keep[i], (1 << (j - i + 1)) - 1, i))
        i = j + 1
    return runs


def canonical(ws: Iterable[int], n: int) -> tuple[int, frozenset[int]]:
    """A version space with its forced points dropped and the rest relabelled ``0..r-1``.

    Args:
        ws: labelings (bitmasks over ``n`` points) of a nonempty version space.
        n: points they are labelings of.

    Returns:
        ``(r, W)``: the number ``r`` of informative points (both labels occur) and the
        labelings restricted to them, relabelled in order.

    Example:
        >>> canonical([0b101, 0b111], 3)  # points 0 and 2 are forced
        (1, frozenset({0, 1}))
    """
    ws = list(ws)
    if not ws:
        raise ValueError("an empty version space has no canonical form")
    a, o = ~0, 0
    for w in ws:
        a &= w
        o |= w
    keep = [p for p in range(n) if ((a >> p) & 1) != ((o >> p) & 1)]
    runs = _runs_of(keep)
    if len(runs) == 1:
        src, mask, _ = runs[0]
        return len(keep), frozenset((w >> src) & mask for w in ws)
    out = []
    for w in ws:
        c = 0
        for src, mask, dst in runs:
            c |= ((w >> src) & mask) << dst
        out.append(c)
    return len(keep), frozenset(out)


def _split(r: int, W: frozenset[int], x: int) -> tuple[tuple[int, frozenset[int]], ...]:
    """The canonical children of point ``x`` (informative, so both are nonempty)."""
    lo = (1 << x) - 1
    kids = []
    for y in (0, 1):
        sub = [((w >> 1) & ~lo) | (w & lo) for w in W if ((w >> x) & 1) == y]
        kids.append(canonical(sub, r - 1))
    return tuple(kids)


@cache
def _adv(r: int, W: frozenset[int]) -> int:
    # No game on W is worth more than r mistakes, nor more than log2|W| (each mistake of
    # the halving learner halves W): stop once a point reaches that bound.
    bound = min(r, len(W).bit_length() - 1)
    best = 0
    for x in range(r):
        if best >= bound:
            break
        (r0, w0), (r1, w1) = _split(r, W, x)
        best = max(best, combine(_adv(r0, w0), _adv(r1, w1)))
    return best


@cache
def _std(r: int, W: frozenset[int], rounds: int) -> int:
    bound = min(rounds, r, len(W).bit_length() - 1)
    if rounds < r:  # more rounds never hurt the adversary: the uncapped game bounds this one
        bound = min(bound, _std(r, W, r))
    best = 0
    for x in range(r):
        if best >= bound:
            break
        (r0, w0), (r1, w1) = _split(r, W, x)
        # A round beyond the r-th can split nothing (each informative round drops a
        # point), so the budget is capped at r to share memo entries.
        best = max(best, combine(_std(r0, w0, min(rounds - 1, r0)), _std(r1, w1, min(rounds - 1, r1))))
    return best


def _check_class(hyps: Sequence[int], n: int) -> list[int]:
    n = _check_n(n)
    hs = [int(h) for h in hyps]
    if not hs:
        raise ValueError("the class is empty")
    if len(set(hs)) != len(hs):
        raise ValueError("the class lists a labeling twice")
    if any(h < 0 or h >> n for h in hs):
        raise ValueError(f"a hypothesis has bits outside the {n} points")
    return hs


def adversary_directed_value(hyps: Sequence[int], n: int) -> int:
    """Minimax mistakes when the adversary orders the known ``n`` points adaptively.

    Args:
        hyps: the class, distinct bitmasks over ``n`` points.
        n: points of the instance set ``X`` (each shown exactly once).

    Returns:
        The value of the game (an int).

    Example:
        >>> adversary_directed_value(thresholds(7), 7)  # binary search: floor(log2 8)
        3
    """
    hs = _check_class(hyps, n)
    return _adv(*canonical(hs, n))


def standard_value(hyps: Sequence[int], n: int, rounds: int) -> int:
    """Minimax mistakes in ``rounds`` rounds of the standard online game on ``n`` points.

    The adversary shows any point each round (repeats allowed; a forced point costs
    nothing, so the program skips it). With ``rounds >= n`` this is the Littlestone
    dimension of the class.

    Example:
        >>> standard_value(thresholds(12), 12, 2), standard_value(thresholds(12), 12, 12)
        (2, 3)
    """
    hs = _check_class(hyps, n)
    if isinstance(rounds, bool) or rounds < 0:
        raise ValueError(f"rounds must be a non-negative int, got {rounds!r}")
    r, W = canonical(hs, n)
    return _std(r, W, min(int(rounds), r))


def fixed_order_value(hyps: Sequence[int], n: int, order: Sequence[int]) -> int:
    """Minimax mistakes when the points are shown in the fixed, known ``order``.

    Example:
        >>> fixed_order_value(thresholds(3), 3, [1, 0, 2])
        2
    """
    hs = _check_class(hyps, n)
    order = [int(x) for x in order]
    if sorted(order) != list(range(n)):
        raise ValueError(f"order must be a permutation of range({n}), got {order}")

    @cache
    def val(i: int, V: frozenset[int]) -> int:
        if i == n or len(V) <= 1:
            return 0
        x = order[i]
        kids = [frozenset(h for h in V if ((h >> x) & 1) == y) for y in (0, 1)]
        if not kids[0] or not kids[1]:
            return val(i + 1, V)
        return combine(val(i + 1, kids[0]), val(i + 1, kids[1]))

    return val(0, frozenset(hs))


def _prune(cands: np.ndarray) -> np.ndarray:
    """The Pareto-maximal rows of ``cands`` (no other row is >= everywhere and different)."""
    top = cands.max(0)
    hit = (cands == top).all(1)
    if hit.any():  # one row dominates all (the common case here)
        return cands[hit][:1]
    rows = np.unique(cands, axis=0)
    ge = (rows[:, None, :] >= rows[None, :, :]).all(-1)  # ge[i, j]: row i >= row j
    np.fill_diagonal(ge, False)
    return rows[~ge.any(0)]


def _reachable(arr: np.ndarray, S: int, full: int, table: np.ndarray):
    """Version spaces on the point set ``S`` reachable from labels of the other points.

    Returns the sorted distinct complement labelings ``keys``, the index of each one's
    version space among the distinct ones (``inv``), and one key per distinct version
    space (``reps``). Groups are matched by a 64-bit random hash of their members and
    size, and every match is then verified member by member (exact).
    """
    keys, ws = arr & (full ^ S), arr & S
    order = np.lexsort((ws, keys))
    ks, wv = keys[order], ws[order]
    starts = np.flatnonzero(np.concatenate([[True], ks[1:] != ks[:-1]]))
    sizes = np.diff(np.concatenate([starts, [len(ks)]]))
    hashes = np.add.reduceat(table[wv], starts)  # wraps mod 2**64
    sig = hashes + sizes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    _, first, inv = np.unique(sig, return_index=True, return_inverse=True)
    rep_of_group = first[inv]
    offs = np.arange(len(wv)) - np.repeat(starts, sizes)
    mate = np.repeat(starts[rep_of_group], sizes) + offs
    if not np.array_equal(wv, wv[mate]):  # a hash collision: never seen, but not assumed away
        raise RuntimeError(f"hash collision among the version spaces on {S:b}; change the table seed")
    return ks[starts], inv, ks[starts[first]]


def transductive_value(hyps: Sequence[int], n: int, *, return_frontier: bool = False):
    """Minimax mistakes when the adversary fixes the order in advance and reveals it.

    ``max_sigma fixed_order_value(hyps, n, sigma)``, without enumerating the ``n!``
    orders: for every suffix set ``S`` of points (by increasing size) the program keeps
    the Pareto frontier of the value vectors ``(F_sigma(W))_W`` over the version spaces
    ``W`` that can be reached on ``S`` (labelings of ``S`` consistent with the class and
    some labels of the other points), over all orders ``sigma`` of ``S``. Prepending a
    point ``x`` maps a vector on ``S`` to one on ``S + x`` through :func:`combine`,
    which is monotone in both arguments, so dominated vectors can be dropped. A
    version space is named by the labels of the points outside ``S`` that reach it, so
    the children of ``W`` at ``x`` are found by setting bit ``x`` of that name.

    Args:
        hyps: the class, distinct bitmasks over ``n <= 16`` points.
        n: points (each shown once).
        return_frontier: also return the largest frontier size met (a cost measure).

    Returns:
        The value (an int), or ``(value, largest_frontier)``.

    Example:
        >>> transductive_value(thresholds(3), 3)
        2
    """
    hs = _check_class(hyps, n)
    if n > 16:
        raise ValueError(f"the transductive program visits all 2^n suffix sets; n = {n} > 16")
    arr = np.asarray(hs, dtype=np.int64)
    full = (1 << n) - 1
    table = np.random.default_rng(20231201).integers(0, 2**63, size=1 << n, dtype=np.uint64) * 2 + 1
    keys, inv, reps = {}, {}, {}
    for S in range(1 << n):
        keys[S], inv[S], reps[S] = _reachable(arr, S, full, table)
    frontier: dict[int, np.ndarray] = {0: np.zeros((1, len(reps[0])), dtype=np.int64)}
    largest = 1
    for S in sorted(range(1, 1 << n), key=lambda s: (bin(s).count("1"), s)):
        cands = []
        for x in range(n):
            bx = 1 << x
            if not S & bx:
                continue
            sub = S ^ bx
            ks, ix = keys[sub], inv[sub]
            kids = []
            for c in (reps[S], reps[S] | bx):
                pos = np.minimum(np.searchsorted(ks, c), len(ks) - 1)
                kids.append(np.where(ks[pos] == c, ix[pos], -1))
            i0, i1 = kids
            both = (i0 >= 0) & (i1 >= 0)
            one = np.where(i0 >= 0, i0, i1)
            for vec in frontier[sub]:
                a, b = vec[np.maximum(i0, 0)], vec[np.maximum(i1, 0)]
                cands.append(np.where(both, np.maximum(a, b) + (a == b), vec[one]))
        frontier[S] = _prune(np.stack(cands))
        largest = max(largest, len(frontier[S]))
    value = int(frontier[full][:, 0].max())  # one version space on the full set: the class
    return (value, largest) if return_frontier else value


def game_values(cls: int | str, T: int, domain: int | None = None) -> dict[str, int]:
    """The four exact values of one class on ``T`` points (memoised across calls).

    Args:
        cls: a code or name of :data:`CLASSES`.
        T: points of the instance set, and rounds of the standard games.
        domain: points of the wide domain of ``standard_wide`` (default ``T``).

    Returns:
        ``{"transductive", "adversary_directed", "standard", "standard_wide"}``:
        ``standard`` plays ``T`` rounds on the ``T`` points, ``standard_wide`` ``T``
        rounds on ``domain`` points.

    Example:
        >>> game_values("thresholds", 3, domain=12)
        {'transductive': 2, 'adversary_directed': 2, 'standard': 2, 'standard_wide': 3}
    """
    name = CLASSES[cls] if isinstance(cls, (int, np.integer)) else cls
    domain = T if domain is None else domain
    if domain < T:
        raise ValueError(f"the wide domain ({domain} points) is smaller than T = {T}")
    return dict(_game_values(name, int(T), int(domain)))


@cache
def _game_values(name: str, T: int, domain: int) -> tuple[tuple[str, int], ...]:
    hs = hypotheses(name, T)
    return (
        ("transductive", transductive_value(hs, T)),
        ("adversary_directed", adversary_directed_value(hs, T)),
        ("standard", standard_value(hs, T, T)),
        ("standard_wide", standard_value(hypotheses(name, domain), domain, T)),
    )


# -- Hedge --------------------------------------------------------------------------------
def hedge_bound(cls: int | str, T: int) -> float:
    """Hedge's regret bound ``sqrt((T/2) ln|H|)`` for the class on ``T`` points.

    Example:
        >>> round(hedge_bound("thresholds", 100), 4)
        15.1907
    """
    size = class_size(cls, T)
    return math.sqrt(T / 2 * math.log(size)) if size > 1 else 0.0


def hedge_regret(
    cls: int | str, T: int, adversary: str, rng: np.random.Generator | None = None
) -> dict[str, float]:
    """Hedge over the class restricted to ``T`` points, each shown once, against ``adversary``.

    The learner's loss in a round is the weight of the experts that err on the shown
    point (the probability of a mistake of the randomised learner); the learning rate is
    ``sqrt(8 ln|H| / T)``; the regret is the learner's total loss minus the fewest
    mistakes of a hypothesis on the revealed labels. Thresholds keep one weight per
    threshold (O(T) per round), singletons one per point; for all labelings the weights
    factor over points, and since every point is shown once the prediction is exactly
    1/2 (a labeling and its flip at an unseen point weigh the same).

    Args:
        cls: ``singletons``, ``thresholds`` or ``all_labelings`` (a code or a name).
        T: points, and rounds.
        adversary: one of :data:`ADVERSARIES`.
        rng: the coin adversary's randomness (the directed one needs none).

    Returns:
        ``{"regret", "loss", "best"}``.

    Example:
        >>> r = hedge_regret("thresholds", 200, "coin", np.random.default_rng(0))
        >>> 0 <= r["regret"] <= hedge_bound("thresholds", 200)
        True
    """
    name = CLASSES[cls] if isinstance(cls, (int, np.integer)) else cls
    if adversary not in ADVERSARIES:
        raise ValueError(f"unknown adversary {adversary!r}; known: {ADVERSARIES}")
    T = _check_n(T)
    if name not in ("singletons", "thresholds", "all_labelings"):
        raise ValueError(f"Hedge is implemented for singletons, thresholds, all_labelings; not {name!r}")
    size = class_size(name, T)
    eta = math.sqrt(8 * math.log(size) / T) if size > 1 else 0.0
    decay = math.exp(-eta)
    if name == "all_labelings":
        return {"regret": T / 2, "loss": T / 2, "best": 0.0}
    if adversary == "coin":
        if rng is None:
            raise ValueError("the coin adversary needs a numpy Generator")
        order, coins = rng.permutation(T), rng.integers(2, size=T)
    else:  # deterministic: ties between points go to the smallest, a tie of labels to one
        order, coins = np.arange(T), np.ones(T, dtype=np.int64)
    labels = np.zeros(T, dtype=np.int64)
    loss = 0.0
    if name == "singletons":
        # Relative weights: a one at x costs every expert but x a mistake, which is x's
        # weight rising by 1/decay against the rest; a zero at x decays x alone. Unseen
        # points keep weight 1 and tie, so both adversaries show them in a random order.
        u = np.ones(T)
        su = float(T)
        for t in range(T):
            x = int(order[t])
            q = u[x] / su
            tie = q == 0.5
            y = int(coins[t]) if adversary == "coin" or tie else int(q < 0.5)
            labels[x] = y
            loss += (1.0 - q) if y == 1 else q
            old = u[x]
            u[x] = old / decay if y == 1 else old * decay
            su += u[x] - old
        ones = int(labels.sum())
        # L_i = ones - y_i + (1 - y_i): a singleton on a one saves that mistake
        best = float(ones - 1) if ones else 1.0
        return {"regret": loss - best, "loss": loss, "best": best}
    # thresholds: expert a predicts 1 on x iff a <= x (a = 0..T)
    w = np.ones(T + 1)
    total = float(T + 1)
    remaining = list(range(T))
    for t in range(T):
        if adversary == "coin":
            x = int(order[t])
            q = float(w[: x + 1].sum()) / total
            y = int(coins[t])
        else:
            c = np.cumsum(w[:T])
            total = float(c[-1] + w[T])
            i = bisect.bisect_left(remaining, int(np.searchsorted(c, total / 2)))
            near = [remaining[j] for j in (i - 1, i) if 0 <= j < len(remaining)]
            x = min(near, key=lambda p: (abs(c[p] / total - 0.5), p))
            q = float(c[x]) / total
            y = int(coins[t]) if q == 0.5 else int(q < 0.5)
        if adversary != "coin":
            remaining.pop(bisect.bisect_left(remaining, x))
        labels[x] = y
        loss += (1.0 - q) if y == 1 else q
        if y == 1:
            part = w[x + 1 :]
            lost = float(part.sum())
        else:
            part = w[: x + 1]
            lost = q * total
        part *= decay
        total -= lost * (1.0 - decay)
        if t % 32 == 31:  # rescale (ratios are what count) before anything underflows
            top = w.max()
            w /= top
            total = float(w.sum())
    ones_before = np.concatenate([[0], np.cumsum(labels == 1)])  # ones among x < a
    zeros_from = np.concatenate([np.cumsum((labels == 0)[::-1])[::-1], [0]])  # zeros at x >= a
    best = float((ones_before + zeros_from).min())
    return {"regret": loss - best, "loss": loss, "best": best}


@cache
def _directed_regret(cls: int, T: int) -> float:
    return hedge_regret(cls, T, "directed")["regret"]


# -- the host-mode simulator ----------------------------------------------------------------
def run(spec: OnlineGameSpec, params: dict, seed: int) -> dict[str, np.ndarray]:
    """One lane: the four exact game values of (``cls``, ``T``) and Hedge at ``horizon``.

    A host-mode run (plain Python/numpy). The game values and the directed adversary's
    regret do not depend on ``seed`` and are memoised across the lanes of one process;
    the seed drives the coin adversary.

    Args:
        spec: an :class:`OnlineGameSpec`.
        params: ``cls`` (a code into :data:`CLASSES`), ``T``, ``horizon`` (Python ints).
        seed: a non-negative int for :func:`numpy.random.default_rng`.

    Returns:
        ``transductive``, ``adversary_directed``, ``standard``, ``standard_wide`` (int
        scalars), ``hedge_regret`` (shape ``(len(ADVERSARIES),)``), ``hedge_ran`` (1 when
        the class is in ``spec.hedge_classes``; otherwise Hedge was not run and the regret
        is 0, not NaN, which the sweep would flag as a diverged lane) and ``hedge_bound``.

    Example:
        >>> out = run(OnlineGameSpec(), {"cls": 1, "T": 3, "horizon": 50}, 0)
        >>> int(out["adversary_directed"]), out["hedge_regret"].shape
        (2, (2,))
    """
    cls, T, horizon = int(params["cls"]), int(params["T"]), int(params["horizon"])
    if not 0 <= cls < len(CLASSES):
        raise ValueError(f"cls code {cls} is not in 0..{len(CLASSES) - 1}")
    if T > spec.domain:
        raise ValueError(f"T = {T} exceeds the wide domain of {spec.domain} points")
    vals = game_values(cls, T, spec.domain)
    out = {k: np.asarray(v, dtype=np.int64) for k, v in vals.items()}
    rng = np.random.default_rng(seed)
    regret = np.zeros(len(ADVERSARIES))
    ran = cls in spec.hedge_classes
    if ran:
        regret[0] = hedge_regret(cls, horizon, "coin", rng)["regret"]
        regret[1] = _directed_regret(cls, horizon)
    out["hedge_regret"] = regret
    out["hedge_ran"] = np.asarray(ran, dtype=np.int8)
    out["hedge_bound"] = np.asarray(hedge_bound(cls, horizon))
    return out


#: The simulator's declaration: an experiment names it instead of restating it. It runs
#: in host mode (``jit=False``: exact games in Python, memoised); ``cls`` is categorical
#: over :data:`CLASSES`.
SIMULATOR = Simulator(
    run,
    spec=OnlineGameSpec(),
    params={**DEFAULT_PARAMS, "cls": categorical(*CLASSES)},
    metric_dims={"hedge_regret": ("adversary",)},
    coords={"adversary": list(ADVERSARIES)},
    jit=False,
)
