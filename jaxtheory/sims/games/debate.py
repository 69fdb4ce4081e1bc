"""Debate on synthetic argument trees: recursive debate and prover–estimator debate.

An illustration of the mechanism of arXiv:2506.13609 (Brown-Cohen, Irving, Piliouras,
"Avoiding Obfuscation with Prover-Estimator Debate"), not its algorithm: the paper is
complexity theory with no experiments. A claim is a complete ``q``-ary tree of depth
``D``; its ``q^D`` leaves are facts the judge can check, and every internal node is a
threshold gate on its children (true iff at least ``k`` children are true): majority,
``k = ⌊q/2⌋ + 1`` (stable away from probability 1/2), or AND, ``k = q`` (unstable:
errors of the children add up). Node ``j`` at depth ``d`` has children
``j q, ..., j q + q − 1`` at depth ``d + 1``; leaves are indexed left to right.

* :func:`planted_tree`: a stable instance: the root's planted value is a fair coin and
  every child copies its parent's planted value, flipped with probability ``delta``
  (the stability margin is ``1/2 − delta``); the truth of every node is the gates'
  evaluation of the leaves (:func:`evaluate_tree`), not the planted value.
* :func:`flaw_tree`: the obfuscated instance: AND gates, every leaf true but one at a
  uniformly random position, so the root is false and the flaw is one leaf in ``q^D``.
* :func:`gate_flips`: the stability of one gate: children drawn ``Bernoulli(p)`` and,
  with the same uniforms, ``Bernoulli(p + eps)``; the flip probability under this
  monotone coupling is :func:`flip_probability`, a difference of binomial tails.
* :func:`search_debate`: the old recursive protocol on a flaw tree: the dishonest
  prover asserts the root and every child true; the honest challenger examines leaves
  in a uniformly random order with budget ``b`` and wins iff it finds the flaw,
  probability ``min(1, b / q^D)``.
* :func:`pe_debate`: our binary-estimate model of prover–estimator debate (see the
  function), where an agent's compute is the number of leaves it reads per child.
* :func:`run`: all of the above for ``spec.games`` games, vmapped.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.simulator import Simulator

__all__ = [
    "GATES",
    "TREES",
    "SIDES",
    "DebateSpec",
    "DEFAULT_PARAMS",
    "gate_threshold",
    "evaluate_tree",
    "planted_tree",
    "flaw_tree",
    "flip_probability",
    "gate_flips",
    "search_debate",
    "search_win_probability",
    "pe_debate",
    "obfuscated_pe_win_probability",
    "run",
    "SIMULATOR",
]

#: Gate kinds, in the order of the ``gate`` dimension of ``flip_count``.
GATES = ("majority", "and")
#: Tree kinds of the prover–estimator games: planted majority trees and AND flaw trees.
TREES = ("stable", "obfuscated")
#: The honest side of a prover–estimator game: the prover (Alice) or the estimator (Bob).
SIDES = ("prover", "estimator")
# Tie-breaking jitter added to a read fraction: below half the finest spacing 1/budget
# of fractions for every budget used here (budgets ≤ 5000), so it orders ties only.
_JITTER = 1e-4


def gate_threshold(gate: str, q: int) -> int:
    """The threshold ``k`` of a gate on ``q`` children: true iff at least ``k`` are true.

    Args:
        gate: ``"majority"`` (``k = ⌊q/2⌋ + 1``, a strict majority) or ``"and"`` (``k = q``).
        q: the number of children.

    Returns:
        ``k``.

    Example:
        >>> gate_threshold("majority", 8), gate_threshold("and", 8)
        (5, 8)
    """
    if q < 1:
        raise ValueError(f"a gate needs at least one child, got q = {q}")
    if gate == "majority":
        return q // 2 + 1
    if gate == "and":
        return q
    raise ValueError(f"unknown gate {gate!r}; gates: {', '.join(GATES)}")


@dataclasses.dataclass(frozen=True)
class DebateSpec:
    """Shapes and grids of :func:`run` (the compile key).

    Attributes:
        depth: tree depth ``D``.
        branching: children per node ``q``.
        games: games per lane (vmapped); every game draws its own trees.
        deltas: planted flip probabilities ``delta`` of the stable trees (stability margin
            ``1/2 − delta``), each ``< 1/2``.
        flip_trials: Monte Carlo trials per lane for each (gate, p, eps) of the flip test.
        flip_p: base probabilities ``p`` of the flip test.
        flip_eps: perturbations ``eps`` (``p + eps ≤ 1``).
        search_budgets: the challenger's budgets ``b`` (leaves examined) in the old protocol.
        opponent_budgets: the dishonest side's leaves read per child in a
            prover–estimator game.
        ratios: the honest side's budget over the dishonest side's (every
            ``ratio × opponent budget`` an integer ≥ 1).
    """

    depth: int = 3
    branching: int = 4
    games: int = 64
    deltas: tuple[float, ...] = (0.05, 0.1, 0.2)
    flip_trials: int = 1024
    flip_p: tuple[float, ...] = (0.5, 0.7, 0.9)
    flip_eps: tuple[float, ...] = (0.02, 0.05, 0.1)
    search_budgets: tuple[int, ...] = (1, 4, 16, 64, 256, 1024, 4096)
    opponent_budgets: tuple[int, ...] = (2, 8)
    ratios: tuple[float, ...] = (0.5, 1.0, 2.0)

    def __post_init__(self):
        for name in ("depth", "branching", "games", "flip_trials"):
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"DebateSpec.{name} must be a positive integer, got {v!r}")
        if not self.deltas or any(not 0.0 <= dl < 0.5 for dl in self.deltas):
            raise ValueError(f"DebateSpec.deltas must be probabilities below 1/2, got {self.deltas}")
        if self.branching < 2:
            raise ValueError(f"DebateSpec.branching must be at least 2, got {self.branching}")
        for p in self.flip_p:
            for e in self.flip_eps:
                if not (0.0 <= p and 0.0 <= e and p + e <= 1.0):
                    raise ValueError(f"flip test needs 0 ≤ p, 0 ≤ eps, p + eps ≤ 1; got p={p}, eps={e}")
        if any(int(b) != b or b < 1 for b in self.search_budgets):
            raise ValueError(f"search budgets must be positive integers, got {self.search_budgets}")
        for s in self.opponent_budgets:
            if int(s) != s or s < 1:
                raise ValueError(f"opponent budgets must be positive integers, got {self.opponent_budgets}")
            for r in self.ratios:
                h = r * s
                if h < 1 or abs(h - round(h)) > 1e-9:
                    raise ValueError(
                        f"honest budget ratio × opponent budget = {r} × {s} = {h} is not a positive integer"
                    )

    @property
    def leaves(self) -> int:
        """The number of leaves ``q^D``."""
        return self.branching**self.depth

    def honest_budget(self, opponent: int, ratio: float) -> int:
        """The honest side's leaves read per child: ``ratio × opponent``."""
        return int(round(ratio * opponent))


#: Defaults of :func:`run`'s parameters: none (every grid is in the spec, which fixes shapes).
DEFAULT_PARAMS: dict = {}


def evaluate_tree(leaves, q: int, k):
    """Every node's truth, bottom up, for threshold-``k`` gates.

    Args:
        leaves: ``(q^D,)`` booleans.
        q: branching.
        k: gate threshold (a Python or traced integer).

    Returns:
        A tuple of ``D + 1`` boolean arrays, level ``d`` of shape ``(q^d,)``; level 0 is the root.

    Example:
        >>> import jax.numpy as jnp
        >>> lv = evaluate_tree(jnp.array([1, 1, 0, 1, 0, 0, 1, 1, 1], bool), 3, 2)
        >>> [x.tolist() for x in lv]
        [[True], [True, False, True], [True, True, False, True, False, False, True, True, True]]
    """
    x = jnp.asarray(leaves, bool)
    n = x.shape[0]
    depth = round(math.log(n, q)) if n > 1 else 0
    if q**depth != n:
        raise ValueError(f"{n} leaves is not a power of q = {q}")
    levels = [x]
    for _ in range(depth):
        x = x.reshape(-1, q).sum(-1) >= k
        levels.insert(0, x)
    return tuple(levels)


def planted_tree(key, depth: int, q: int, delta):
    """Leaves of a planted (stable) tree: each child copies its parent's value, flipped w.p. ``delta``.

    Args:
        key: PRNG key.
        depth: ``D``.
        q: branching.
        delta: flip probability per edge (traced scalar allowed).

    Returns:
        ``(q^D,)`` booleans.

    Example:
        >>> import jax
        >>> planted_tree(jax.random.key(0), 2, 3, 0.0).tolist() in ([True] * 9, [False] * 9)
        True
    """
    sizes = [q**d for d in range(depth + 1)]
    u = jax.random.uniform(key, (sum(sizes),))  # one draw: the root, then every level's edges
    x = u[:1] < 0.5
    start = 1
    for d in range(1, depth + 1):
        x = jnp.repeat(x, q) ^ (u[start : start + sizes[d]] < delta)
        start += sizes[d]
    return x


def flaw_tree(key, depth: int, q: int):
    """Leaves of the obfuscated AND tree: all true but one uniformly placed flaw.

    Returns:
        ``(leaves, flaw)``: ``(q^D,)`` booleans and the flaw's index.

    Example:
        >>> import jax
        >>> leaves, flaw = flaw_tree(jax.random.key(0), 2, 4)
        >>> int((~leaves).sum()), bool(leaves[flaw])
        (1, False)
    """
    n = q**depth
    flaw = jax.random.randint(key, (), 0, n)
    return jnp.arange(n) != flaw, flaw


def flip_probability(q: int, k: int, p: float, eps: float) -> float:
    """Closed form of the coupled flip probability of a threshold-``k`` gate (float64).

    With children true iff ``U_i < p`` (and, perturbed, iff ``U_i < p + eps``) for
    i.i.d. uniforms, the perturbed count is never smaller, so the gate flips iff its
    output goes from false to true:
    :math:`\\rho(\\varepsilon) = T_k(p + \\varepsilon) - T_k(p)`,
    :math:`T_k(x) = \\sum_{j \\ge k} \\binom{q}{j} x^j (1 - x)^{q - j}`. This is also the
    change of the gate's acceptance probability, the quantity stability bounds.

    Args:
        q: children.
        k: threshold.
        p: base probability.
        eps: perturbation (``p + eps ≤ 1``).

    Returns:
        ``ρ``.

    Example:
        >>> round(flip_probability(1, 1, 0.3, 0.1), 12)
        0.1
    """

    def tail(x):
        return sum(math.comb(q, j) * x**j * (1 - x) ** (q - j) for j in range(k, q + 1))

    return tail(p + eps) - tail(p)


def gate_flips(key, q: int, k, p, eps, trials: int):
    """Monte Carlo count of gate flips under the monotone coupling of :func:`flip_probability`.

    Returns:
        The number of trials (of ``trials``) whose gate output differs.

    Example:
        >>> import jax
        >>> int(gate_flips(jax.random.key(0), 3, 2, 0.5, 0.0, 100))
        0
    """
    u = jax.random.uniform(key, (trials, q))
    a = (u < p).sum(-1) >= k
    b = (u < p + eps).sum(-1) >= k
    return (a != b).sum()


def search_debate(key, leaves, budgets, q: int):
    """The old recursive protocol on a flaw tree, for several challenger budgets at once.

    The dishonest prover asserts the root true and, at every node, all children true
    (consistent with AND). The honest challenger has no information on the flaw and
    examines leaves in an order of its own, a random affine bijection
    ``i ↦ (a i + c) mod N`` with ``a ≡ 1 (mod q)`` (any order drawn independently of the
    flaw gives the same law, since the flaw is uniform); with budget ``b`` it examines the first ``b − 1`` and, if one is the flaw,
    steers the recursion along the flaw's path; otherwise it steers to the ``b``-th leaf
    of its order, which the judge checks at the end (the final check is the ``b``-th
    examination). The challenger wins iff the judge's leaf is false: iff the flaw is among
    the first ``b`` of its order, probability ``min(1, b / q^D)``
    (:func:`search_win_probability`).

    Args:
        key: PRNG key (the order).
        leaves: ``(N,)`` booleans with one false leaf.
        budgets: Python integers ``b ≥ 1``.
        q: branching (the order's multiplier is ``1 + q m``, a unit modulo ``q^D``).

    Returns:
        ``(len(budgets),)`` booleans: the honest challenger won.
    """
    n = leaves.shape[0]
    ka, kc = jax.random.split(key)
    a = 1 + q * jax.random.randint(ka, (), 0, max(1, n // q))
    order = (a * jnp.arange(n) + jax.random.randint(kc, (), 0, n)) % n
    seen = leaves[order]
    first_false = jnp.argmin(seen)  # the flaw's position in the order (one false leaf)
    wins = []
    for b in budgets:
        b = min(int(b), n)
        target = jnp.where(first_false < b - 1, order[first_false], order[b - 1])
        wins.append(~leaves[target])
    return jnp.stack(wins)


def search_win_probability(b: int, n: int) -> float:
    """``min(1, b / n)``: the uniform-search challenger's win probability (old protocol).

    Example:
        >>> search_win_probability(16, 64), search_win_probability(100, 64)
        (0.25, 1.0)
    """
    return min(1.0, b / n)


def _read(bits, leaves, children, size: int, budget):
    """Fraction of true leaves among ``budget`` reads (with replacement) in each child's subtree.

    ``bits`` ``(q, max_budget + 1)`` uint32: the first ``max_budget`` columns pick the
    reads (the first ``budget``, a traced integer, are counted, so one program serves
    every budget), the last breaks ties: a jitter below half the spacing ``1/budget``
    of fractions is added.
    """
    offset = (bits[:, :-1] % jnp.uint32(size)).astype(jnp.int32)
    vals = leaves[children[:, None] * size + offset]
    used = jnp.arange(bits.shape[1] - 1) < budget
    jitter = (bits[:, -1] >> 8).astype(jnp.float32) * (2.0**-24) - 0.5
    return (vals & used).sum(-1) / budget + _JITTER * jitter


def pe_debate(key, leaves, q: int, k, alice_value, alice_budget, bob_budget, max_budget: int | None = None):
    """One game of our binary-estimate model of prover–estimator debate.

    Alice (the prover) asserts that the root has value ``z = alice_value``; Bob (the
    estimator) is assigned the other value ``w = 1 − z``. Each of the ``D`` rounds is at
    a node ``v`` (first the root) where Alice asserts ``z`` and Bob ``w``:

    1. Bob reads ``bob_budget`` leaves (uniformly, with replacement) of each child's
       subtree and ranks the children by their fraction of true leaves (ties broken at
       random). He reports the fewest children on his side that make the gate agree
       with ``w`` (consistency, which the judge can check), on the children whose reads
       support ``w`` most: for ``w = 1`` the ``k`` top-ranked children true and the rest
       false; for ``w = 0`` the top ``k − 1`` true and the rest false. Reporting a child
       on his side is what exposes him to a challenge, so he commits to no more than
       the gate needs (the binary counterpart of a hedged estimate).
    2. Alice reads ``alice_budget`` leaves of each child the same way (fractions
       ``g_i``) and challenges, among the children Bob reported as ``w``, the one her
       reads support most as ``z`` (largest ``g_i`` for ``z = 1``, smallest for ``z = 0``,
       ties at random). She asserts ``z`` for it, Bob keeps ``w``, and the game recurses.

    After ``D`` rounds the node is a leaf; the judge reads it and Alice wins iff it has
    value ``z``. Each agent reads ``q × budget`` leaves per round. Whoever is assigned the
    root's true value is the honest side; stable trees let a sampling agent keep to
    true nodes; on a flaw tree both agents must find the flaw
    (:func:`obfuscated_pe_win_probability`).

    Args:
        key: PRNG key.
        leaves: ``(q^D,)`` booleans.
        q: branching.
        k: gate threshold (Python or traced integer).
        alice_value: Alice's asserted root value (boolean, may be traced).
        alice_budget: leaves Alice reads per child per round (may be traced).
        bob_budget: leaves Bob reads per child per round (may be traced).
        max_budget: the largest budget (static); default: both budgets, which must then
            be Python integers.

    Returns:
        Boolean: Alice won.
    """
    n = leaves.shape[0]
    depth = round(math.log(n, q))
    if max_budget is None:
        max_budget = max(int(alice_budget), int(bob_budget))
    z = jnp.asarray(alice_value, bool)
    w = ~z
    v = jnp.zeros((), jnp.int32)
    bits = jax.random.bits(key, (depth, 2, q, max_budget + 1), jnp.uint32)  # one draw for the game
    for d in range(depth):
        size = q ** (depth - d - 1)
        children = v * q + jnp.arange(q)
        f = _read(bits[d, 0], leaves, children, size, bob_budget)
        rank = (f[None, :] > f[:, None]).sum(-1)  # 0 = the most evidence of being true
        report = rank < jnp.where(w, k, k - 1)
        g = _read(bits[d, 1], leaves, children, size, alice_budget)
        support = jnp.where(z, g, -g)
        pick = jnp.argmax(jnp.where(report == w, support, -jnp.inf))
        v = v * q + pick.astype(jnp.int32)
    return leaves[v] == z


def obfuscated_pe_win_probability(depth: int, q: int, budget: int) -> float:
    """Closed form of the honest side's win rate in :func:`pe_debate` on a flaw tree.

    Whichever side is honest, it must steer into the flaw's child at every round: in
    round ``d`` its ``budget`` reads of the flaw child's ``q^{D−d−1}`` leaves hit the flaw
    with probability ``h_d = 1 − (1 − q^{−(D−d−1)})^{budget}`` and it then picks that
    child; otherwise all children look alike and it picks the flaw child with
    probability ``1/q`` (the dishonest side's reads do not matter). The honest side wins
    with probability :math:`\\prod_d (h_d + (1 - h_d)/q)`.

    Example:
        >>> obfuscated_pe_win_probability(1, 8, 1)
        1.0
    """
    out = 1.0
    for d in range(depth):
        size = q ** (depth - d - 1)
        h = 1.0 - (1.0 - 1.0 / size) ** budget
        out *= h + (1.0 - h) / q
    return out


def _combos(spec: DebateSpec):
    """Flat (tree, honest side, opponent budget, honest budget) table of one tree, row-major."""
    rows = [
        (i, int(s), spec.honest_budget(s, r))
        for i in range(len(SIDES))
        for s in spec.opponent_budgets
        for r in spec.ratios
    ]
    return tuple(np.asarray(c, np.int32) for c in zip(*rows))


def _max_budget(spec: DebateSpec) -> int:
    return max(max(int(s), spec.honest_budget(s, r)) for s in spec.opponent_budgets for r in spec.ratios)


def _pe_games(spec: DebateSpec, key, trees, ks, which):
    """Honest wins of every (tree, side, opponent budget, ratio), flat.

    ``trees`` stacks the leaves of several trees, ``ks`` their gate thresholds; ``which``
    lists the tree of every game (each tree is played at every side and budget).
    """
    q = spec.branching
    truth = jax.vmap(lambda x, k: evaluate_tree(x, q, k)[0][0])(trees, ks)
    side, opp, hon = (jnp.asarray(c) for c in _combos(spec))
    m = side.shape[0]
    t = jnp.repeat(jnp.asarray(which, jnp.int32), m)
    side, opp, hon = (jnp.tile(c, len(which)) for c in (side, opp, hon))
    alice_honest = side == SIDES.index("prover")

    def one(kk, t, ah, s, h):
        alice = pe_debate(
            kk,
            trees[t],
            q,
            ks[t],
            jnp.where(ah, truth[t], ~truth[t]),  # the honest side is assigned the truth
            jnp.where(ah, h, s),
            jnp.where(ah, s, h),
            max_budget=_max_budget(spec),
        )
        return alice == ah  # the honest side won

    return jax.vmap(one)(jax.random.split(key, t.shape[0]), t, alice_honest, opp, hon), truth


def _game(spec: DebateSpec, key):
    """One game of every kind (the flip trials are separate, see :func:`run`)."""
    q, depth = spec.branching, spec.depth
    k_tree, k_flaw, k_search, k_pe = jax.random.split(key, 4)
    n_d = len(spec.deltas)
    deltas = jnp.asarray(spec.deltas, jnp.float32)
    stable = jax.vmap(lambda kk, dl: planted_tree(kk, depth, q, dl))(jax.random.split(k_tree, n_d), deltas)
    flawed, _ = flaw_tree(k_flaw, depth, q)
    trees = jnp.concatenate([stable, flawed[None]])
    ks = jnp.asarray([gate_threshold("majority", q)] * n_d + [gate_threshold("and", q)], jnp.int32)
    won, truth = _pe_games(spec, k_pe, trees, ks, range(n_d + 1))
    shape = (len(SIDES), len(spec.opponent_budgets), len(spec.ratios))
    won = won.reshape(n_d + 1, *shape)
    return {
        "search_wins": search_debate(k_search, flawed, spec.search_budgets, q),
        "stable_wins": won[:n_d],
        "obfuscated_wins": won[n_d],
        "root_true": truth[:n_d],
    }


def run(spec: DebateSpec, params, key):
    """``spec.games`` debate games and the gate-stability trials, as counts.

    Args:
        spec: a :class:`DebateSpec`.
        params: unused (see :data:`DEFAULT_PARAMS`).
        key: PRNG key.

    Returns:
        A dict of ``int32`` counts: ``flip_count`` ``(gate, p, eps)`` flips out of
        ``spec.flip_trials``; ``search_wins`` ``(budget,)`` honest challenger wins in the
        old protocol out of ``spec.games``; ``stable_wins`` ``(delta, honest, opponent,
        ratio)`` and ``obfuscated_wins`` ``(honest, opponent, ratio)`` honest wins in
        prover–estimator games on planted majority trees and on flaw trees, out of
        ``spec.games``; ``root_true`` ``(delta,)`` stable games whose root is true.

    Example:
        >>> import jax
        >>> out = jax.jit(run, static_argnums=0)(DebateSpec(depth=2, branching=4, games=8, flip_trials=16), DEFAULT_PARAMS,
        ...           jax.random.key(0))
        >>> out["stable_wins"].shape, out["obfuscated_wins"].shape
        ((3, 2, 2, 3), (2, 2, 3))
    """
    k_games, k_flip = jax.random.split(key)
    games = jax.vmap(lambda kk: _game(spec, kk))(jax.random.split(k_games, spec.games))
    out = {name: v.sum(0).astype(jnp.int32) for name, v in games.items()}
    # flip trials: every (p, eps) of the grid on the same uniforms, both gates
    q = spec.branching
    u = jax.random.uniform(k_flip, (spec.flip_trials, q))
    p = jnp.asarray(spec.flip_p, jnp.float32)
    pe = p[:, None] + jnp.asarray(spec.flip_eps, jnp.float32)[None, :]
    base = (u[:, None, :] < p[None, :, None]).sum(-1)[:, :, None]  # (trials, n_p, 1)
    moved = (u[:, None, None, :] < pe[None, :, :, None]).sum(-1)  # (trials, n_p, n_eps)
    ks = jnp.asarray([gate_threshold(g, q) for g in GATES])[:, None, None, None]
    flips = ((base[None] >= ks) != (moved[None] >= ks)).sum(1)
    out["flip_count"] = flips.astype(jnp.int32)
    return out


#: The simulator's declaration: every game family runs inside a lane, over the grids of
#: the spec (dimensions of the outputs).
SIMULATOR = Simulator(
    run,
    spec=DebateSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "flip_count": ("gate", "p", "eps"),
        "search_wins": ("budget",),
        "stable_wins": ("delta", "honest", "opponent", "ratio"),
        "obfuscated_wins": ("honest", "opponent", "ratio"),
        "root_true": ("delta",),
    },
    coords=lambda spec: {
        "gate": list(GATES),
        "p": list(spec.flip_p),
        "eps": list(spec.flip_eps),
        "budget": list(spec.search_budgets),
        "delta": list(spec.deltas),
        "honest": list(SIDES),
        "opponent": list(spec.opponent_budgets),
        "ratio": list(spec.ratios),
    },
)
