"""Router-weighted portfolios of TSP step heuristics distilled from a 2-opt teacher.

The numerical core of arXiv:2606.19741 (Duan et al., "Interpreting Neural Combinatorial
Optimization via Evolving Programmatic Bottlenecks"), reconstructed from its abstract: a
teacher's next-node policy :math:`\\pi_T(a\\mid s)` is distilled into a student
:math:`\\pi_S(a\\mid s) = \\sum_k r_\\psi(s)_k\\,\\pi_k(a\\mid s)`, where the
:math:`\\pi_k` are hand-written step heuristics (the "programmatic bottleneck") and
:math:`r_\\psi` a router MLP over state features trained by Adam on
:math:`\\mathrm{KL}(\\pi_T\\,\\|\\,\\pi_S)`. The LLM that writes and revises programs in
the paper is replaced by a fixed bank of six classic heuristics; "fault-targeted
boosting" fits a new *parametric* program (a softmax of a learned linear combination of
the bank's scores, a product of experts) on the 5 % of training states where the student
errs most, and pruning keeps the programs with the largest router mass.

The teacher is a deterministic 2-opt tour (best improvement from the nearest-neighbour
tour, a fixed budget of moves), so :math:`\\pi_T` is one-hot and the KL is the
cross-entropy :math:`-\\log \\pi_S(a_T\\mid s)`. Every tour starts at node 0.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.simulator import Simulator

__all__ = [
    "PROGRAMS",
    "DEFAULT_PARAMS",
    "PortfolioSpec",
    "random_instances",
    "distance_matrix",
    "centroid_angles",
    "tour_length",
    "is_permutation",
    "base_scores",
    "program_log_probs",
    "state_features",
    "greedy_tour",
    "two_opt",
    "teacher_tour",
    "teacher_states",
    "router_init",
    "router_apply",
    "mixture_probs",
    "mutual_information_bits",
    "run",
    "program_names",
    "SIMULATOR",
]

#: Names of the hand-written bank, in code order (the first six program slots).
PROGRAMS = ("nearest", "near_start", "sweep", "farthest", "insertion", "regret2")
#: Default parameters: Adam step of the router, temperature of the bank's programs and Adam
#: step of the boosted program's weights.
DEFAULT_PARAMS = {"lr": 1e-3, "temperature": 0.1, "boost_lr": 0.05}

_NEG = -1e30  # a finite "minus infinity": exp underflows to exactly 0, gradients stay finite
_N_FEATURES = 11 + len(PROGRAMS)


@dataclasses.dataclass(frozen=True)
class PortfolioSpec:
    """Shapes and budgets of one distillation run (the compile key).

    Attributes:
        n_nodes: cities per instance (TSP size).
        n_train: training instances (teacher rollouts the router is fitted on).
        n_test: held-out instances every metric is measured on.
        hidden: router width.
        depth: router hidden layers.
        train_steps: Adam steps of the router on the bank of six.
        batch: training states per Adam step.
        boost_rounds: boosting rounds (each adds one parametric program).
        boost_steps: Adam steps fitting a boosted program's weights.
        round_steps: router Adam steps after each boosting round (the control branch,
            without a new program, gets the same steps).
        prune_keep: programs kept by pruning (largest router mass).
        prune_steps: router Adam steps after pruning.
        two_opt_moves: the teacher's budget of 2-opt moves.
        n_stages: construction-stage bins for the mutual information.
        top_frac: fraction of training states (largest KL) a boosted program is fitted on.
    """

    n_nodes: int = 20
    n_train: int = 512
    n_test: int = 512
    hidden: int = 64
    depth: int = 2
    train_steps: int = 2000
    batch: int = 512
    boost_rounds: int = 2
    boost_steps: int = 300
    round_steps: int = 300
    prune_keep: int = 3
    prune_steps: int = 300
    two_opt_moves: int = 64
    n_stages: int = 4
    top_frac: float = 0.05

    def __post_init__(self):
        if self.n_nodes < 4:
            raise ValueError(f"n_nodes must be >= 4 (2-opt needs two non-adjacent edges), got {self.n_nodes}")
        if self.prune_keep < 1 or self.prune_keep > len(PROGRAMS) + self.boost_rounds:
            raise ValueError(f"prune_keep must lie in [1, {len(PROGRAMS) + self.boost_rounds}]")
        for f in ("n_train", "n_test", "hidden", "depth", "train_steps", "batch", "n_stages"):
            if getattr(self, f) < 1:
                raise ValueError(f"{f} must be >= 1, got {getattr(self, f)}")

    @property
    def n_programs(self) -> int:
        """Program slots: the bank of six plus one per boosting round."""
        return len(PROGRAMS) + self.boost_rounds

    @property
    def n_decisions(self) -> int:
        """Non-forced decisions per tour (visited counts 1 … n − 2; the last step is forced)."""
        return self.n_nodes - 2


def random_instances(key, n_instances: int, n_nodes: int) -> jax.Array:
    """Uniform TSP instances in the unit square.

    Args:
        key: PRNG key.
        n_instances: number of instances.
        n_nodes: cities per instance.

    Returns:
        Coordinates, shape ``(n_instances, n_nodes, 2)``.

    Example:
        >>> random_instances(jax.random.PRNGKey(0), 3, 5).shape
        (3, 5, 2)
    """
    return jax.random.uniform(key, (n_instances, n_nodes, 2))


def distance_matrix(x: jax.Array) -> jax.Array:
    """Euclidean distances ``D[i, j] = ‖x_i − x_j‖`` of one instance, with an exact 0 diagonal.

    Args:
        x: coordinates ``(n, 2)``.

    Returns:
        ``(n, n)`` distances (the square root is guarded so gradients stay finite).
    """
    diff = x[:, None, :] - x[None, :, :]
    sq = jnp.sum(diff**2, axis=-1)
    return jnp.where(sq > 0, jnp.sqrt(jnp.where(sq > 0, sq, 1.0)), 0.0)


def centroid_angles(x: jax.Array) -> jax.Array:
    """Polar angle of every city around the instance's centroid.

    Args:
        x: coordinates ``(n, 2)``.

    Returns:
        ``(n,)`` angles in ``(−π, π]``.
    """
    c = x - jnp.mean(x, axis=0)
    return jnp.arctan2(c[:, 1], c[:, 0])


def tour_length(d: jax.Array, tour: jax.Array) -> jax.Array:
    """Length of the closed tour ``tour`` (a permutation) under distances ``d``.

    Example:
        >>> d = distance_matrix(jnp.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]))
        >>> float(tour_length(d, jnp.array([0, 1, 2, 3])))
        4.0
    """
    return jnp.sum(d[tour, jnp.roll(tour, -1)])


def is_permutation(tour: jax.Array) -> jax.Array:
    """Whether ``tour`` visits every node ``0 … n − 1`` exactly once.

    Args:
        tour: ``(n,)`` integers.

    Returns:
        A boolean scalar.

    Example:
        >>> bool(is_permutation(jnp.array([0, 2, 1]))), bool(is_permutation(jnp.array([0, 2, 2])))
        (True, False)
    """
    n = tour.shape[-1]
    counts = jnp.zeros(n, jnp.int32).at[tour].add(1, mode="drop")
    return jnp.all(counts == 1) & jnp.all((tour >= 0) & (tour < n))


def base_scores(d: jax.Array, ang: jax.Array, cur: jax.Array, visited: jax.Array) -> jax.Array:
    """Raw logits (higher = preferred) of the six programs at one state; 0 on visited nodes.

    With current city :math:`c`, start 0, unvisited set :math:`U`:
    nearest :math:`-d_{cj}`; near_start :math:`-d_{0j}`; sweep
    :math:`-((\\theta_j - \\theta_c) \\bmod 2\\pi)/2\\pi` (counter-clockwise around the
    centroid); farthest :math:`+\\min_{k \\notin U} d_{kj}` (far from the partial tour);
    insertion :math:`-(d_{cj} + d_{j0} - d_{c0})`; regret2
    :math:`(d^{(2)}_j - d^{(1)}_j) - d_{cj}`, with :math:`d^{(1)} \\le d^{(2)}` the two
    smallest distances from :math:`j` to :math:`U \\cup \\{c\\} \\setminus \\{j\\}`
    (:math:`d^{(2)} = d^{(1)}` when there is one).

    Args:
        d: distances ``(n, n)``.
        ang: centroid angles ``(n,)``.
        cur: current city (scalar int).
        visited: boolean ``(n,)``, true on the partial tour (including ``cur`` and 0).

    Returns:
        ``(6, n)`` raw logits in :data:`PROGRAMS` order.
    """
    n = d.shape[0]
    unv = ~visited
    d_c, d_s = d[cur], d[0]
    nearest = -d_c
    near_start = -d_s
    sweep = -jnp.mod(ang - ang[cur], 2 * jnp.pi) / (2 * jnp.pi)
    farthest = jnp.min(jnp.where(visited[:, None], d, jnp.inf), axis=0)
    insertion = -(d_c + d_s - d[cur, 0])
    allowed = unv.at[cur].set(True)
    dj = jnp.where(allowed[None, :] & ~jnp.eye(n, dtype=bool), d, jnp.inf)
    neg2, _ = jax.lax.top_k(-dj, 2)
    d1, d2 = -neg2[:, 0], -neg2[:, 1]
    d2 = jnp.where(jnp.isfinite(d2), d2, d1)
    regret = (d2 - d1) - d_c
    raw = jnp.stack([nearest, near_start, sweep, farthest, insertion, regret])
    return jnp.where(unv[None, :], raw, 0.0)


def program_log_probs(raw: jax.Array, unv: jax.Array, thetas: jax.Array, temperature) -> jax.Array:
    """Log action distributions of every program slot at one state.

    Slots ``0 … 5`` are the bank at ``temperature``: ``log_softmax(raw_k / τ)``; slot
    ``6 + r`` is boosted program ``r``: ``log_softmax(θ_r · raw)``; all masked to the
    unvisited nodes (``log π = −1e30`` elsewhere, so ``π`` is exactly 0 there).

    Args:
        raw: ``(6, n)`` from :func:`base_scores`.
        unv: boolean ``(n,)``, the unvisited nodes.
        thetas: ``(R, 6)`` weights of the boosted programs (``R`` may be 0).
        temperature: the bank's temperature τ > 0.

    Returns:
        ``(6 + R, n)`` log probabilities.
    """
    logits = jnp.concatenate([raw / temperature, thetas @ raw], axis=0)
    return jax.nn.log_softmax(jnp.where(unv[None, :], logits, _NEG), axis=-1)


def state_features(x, d, cur, visited, raw) -> jax.Array:
    """The router's input at one state (17 features).

    Visited fraction, current and start coordinates, centroid of the unvisited cities,
    min and mean distance from the current city to the unvisited ones, distance back to
    the start, unvisited fraction, and each program's margin (top-1 minus top-2 raw
    logit; 0 with one candidate).

    Args:
        x: coordinates ``(n, 2)``.
        d: distances ``(n, n)``.
        cur: current city.
        visited: boolean ``(n,)``.
        raw: ``(6, n)`` from :func:`base_scores` at this state.

    Returns:
        ``(17,)`` features.
    """
    n = d.shape[0]
    unv = ~visited
    m = jnp.sum(unv)
    cnt = jnp.maximum(m, 1)
    cen = jnp.sum(jnp.where(unv[:, None], x, 0.0), axis=0) / cnt
    d_c = d[cur]
    dmin = jnp.min(jnp.where(unv, d_c, jnp.inf))
    dmin = jnp.where(m > 0, dmin, 0.0)
    dmean = jnp.sum(jnp.where(unv, d_c, 0.0)) / cnt
    top2, _ = jax.lax.top_k(jnp.where(unv[None, :], raw, -jnp.inf), 2)
    margin = jnp.where(jnp.isfinite(top2[:, 1]), top2[:, 0] - top2[:, 1], 0.0)
    frac = (n - m) / n
    head = jnp.stack([frac, x[cur, 0], x[cur, 1], x[0, 0], x[0, 1], cen[0], cen[1], dmin, dmean, d[cur, 0]])
    return jnp.concatenate([head, jnp.array([m / n]), margin])


def greedy_tour(policy, n: int) -> jax.Array:
    """Greedy construction from city 0: ``lax.scan`` over ``n − 1`` steps of ``argmax policy``.

    Args:
        policy: ``policy(cur, visited) -> (n,)`` probabilities (0 on visited cities).
        n: cities.

    Returns:
        The tour, ``(n,)`` int32, starting at 0.

    Example:
        >>> x = jnp.array([[0.0, 0.0], [3.0, 0.0], [1.0, 0.0], [2.0, 0.0]])
        >>> d = distance_matrix(x)
        >>> pol = lambda c, v: jnp.where(v, 0.0, jax.nn.softmax(-d[c]))
        >>> greedy_tour(pol, 4).tolist()
        [0, 2, 3, 1]
    """
    visited0 = jnp.zeros(n, bool).at[0].set(True)

    def step(carry, _):
        cur, visited = carry
        p = policy(cur, visited)
        nxt = jnp.argmax(jnp.where(visited, -1.0, p)).astype(jnp.int32)
        return (nxt, visited.at[nxt].set(True)), nxt

    _, rest = jax.lax.scan(step, (jnp.int32(0), visited0), None, length=n - 1)
    return jnp.concatenate([jnp.zeros(1, jnp.int32), rest])


def _two_opt_gains(d, tour):
    n = tour.shape[0]
    a, b = tour, jnp.roll(tour, -1)
    # move (i, j), i < j: edges (t_i, t_{i+1}) and (t_j, t_{j+1}) -> (t_i, t_j), (t_{i+1}, t_{j+1})
    gain = d[a[:, None], a[None, :]] + d[b[:, None], b[None, :]] - d[a, b][:, None] - d[a, b][None, :]
    i = jnp.arange(n)[:, None]
    j = jnp.arange(n)[None, :]
    valid = (j >= i + 2) & ~((i == 0) & (j == n - 1))
    return jnp.where(valid, gain, jnp.inf)


def two_opt(d: jax.Array, tour: jax.Array, moves: int, eps: float = 1e-6) -> tuple[jax.Array, jax.Array]:
    """Best-improvement 2-opt with a fixed budget of moves (jittable).

    Each move takes the pair of positions ``i < j`` with the most negative change
    :math:`d_{t_i t_j} + d_{t_{i+1} t_{j+1}} - d_{t_i t_{i+1}} - d_{t_j t_{j+1}}` (first
    in row-major order on ties) and reverses ``tour[i+1 … j]`` when the change is
    below ``−eps``; otherwise the tour is kept. Position 0 never moves.

    Args:
        d: distances ``(n, n)``.
        tour: starting tour ``(n,)``.
        moves: budget of moves (static).
        eps: improvement threshold.

    Returns:
        ``(tour, converged)``: the improved tour, and whether no improving move is left.

    Example:
        >>> x = jnp.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
        >>> t, ok = two_opt(distance_matrix(x), jnp.arange(4), 8)
        >>> t.tolist(), bool(ok)
        ([0, 2, 1, 3], True)
    """
    n = tour.shape[0]
    pos = jnp.arange(n)

    def body(_, t):
        g = _two_opt_gains(d, t)
        flat = jnp.argmin(g)
        i, j = flat // n, flat % n
        rev = jnp.where((pos > i) & (pos <= j), i + 1 + j - pos, pos)
        return jnp.where(g.reshape(-1)[flat] < -eps, t[rev], t)

    out = jax.lax.fori_loop(0, moves, body, tour.astype(jnp.int32))
    return out, jnp.min(_two_opt_gains(d, out)) >= -eps


def teacher_tour(x: jax.Array, moves: int) -> tuple[jax.Array, jax.Array]:
    """The teacher: 2-opt from the nearest-neighbour tour, oriented so ``tour[1]`` is the nearer neighbour of 0.

    Args:
        x: coordinates ``(n, 2)``.
        moves: the 2-opt budget (static).

    Returns:
        ``(tour, converged)``: the tour from city 0, and whether 2-opt has no improving move left.
    """
    d = distance_matrix(x)
    n = x.shape[0]
    nn = greedy_tour(lambda c, v: jnp.where(v, 0.0, jnp.exp(-d[c] - jnp.max(-d[c]))), n)
    t, ok = two_opt(d, nn, moves)
    flipped = jnp.concatenate([t[:1], t[1:][::-1]])
    return jnp.where(d[0, t[1]] <= d[0, t[-1]], t, flipped), ok


def teacher_states(x: jax.Array, tour: jax.Array):
    """The non-forced decision states along a tour (visited counts ``1 … n − 2``).

    Args:
        x: coordinates ``(n, 2)``.
        tour: a tour from city 0, ``(n,)``.

    Returns:
        ``(raw, unv, action, features)`` with leading dimension ``n − 2``: raw logits
        ``(6, n)``, unvisited mask ``(n,)``, the tour's next city, router features.
    """
    n = x.shape[0]
    d = distance_matrix(x)
    ang = centroid_angles(x)
    posn = jnp.argsort(tour)

    def one(v):
        visited = posn < v
        cur = tour[v - 1]
        raw = base_scores(d, ang, cur, visited)
        return raw, ~visited, tour[v], state_features(x, d, cur, visited, raw)

    return jax.vmap(one)(jnp.arange(1, n - 1))


def router_init(key, n_in: int, hidden: int, depth: int, n_out: int) -> list:
    """Router MLP weights: LeCun-normal hidden layers, zero biases, a zero last layer (uniform start).

    Args:
        key: PRNG key.
        n_in: features.
        hidden: width.
        depth: hidden layers.
        n_out: program slots.

    Returns:
        A list of ``(W, b)`` pairs.
    """
    sizes = [n_in] + [hidden] * depth
    keys = jax.random.split(key, depth)
    layers = [
        (jax.random.normal(k, (a, b)) / math.sqrt(a), jnp.zeros(b)) for k, a, b in zip(keys, sizes, sizes[1:])
    ]
    return layers + [(jnp.zeros((hidden, n_out)), jnp.zeros(n_out))]


def router_apply(params: list, feats: jax.Array, active: jax.Array) -> jax.Array:
    """Log router weights ``log r_ψ(s)`` over the active program slots (``−1e30`` on inactive ones).

    Args:
        params: from :func:`router_init`.
        feats: standardized features ``(..., F)``.
        active: boolean ``(K,)``.

    Returns:
        ``(..., K)`` log weights.
    """
    h = feats
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return jax.nn.log_softmax(jnp.where(active, h @ w + b, _NEG), axis=-1)


def mixture_probs(weights: jax.Array, probs: jax.Array) -> jax.Array:
    """The student's action distribution ``Σ_k r_k π_k(·)`` from weights ``(K,)`` and programs' π ``(K, n)``.

    With one-hot weights the result is the program's row exactly (``1·p + 0·q = p``).

    Example:
        >>> p = jnp.array([[0.5, 0.5, 0.0], [0.1, 0.2, 0.7]])
        >>> mixture_probs(jnp.array([1.0, 0.0]), p).tolist()
        [0.5, 0.5, 0.0]
    """
    return jnp.einsum("k,kn->n", weights, probs)


def mutual_information_bits(counts) -> np.ndarray:
    """Plug-in mutual information (bits) of a contingency table (last two axes), batched.

    Args:
        counts: array ``(..., I, J)`` of non-negative counts.

    Returns:
        ``(...)`` mutual information in bits (0 for an empty table).

    Example:
        >>> float(mutual_information_bits(np.array([[5, 0], [0, 5]])))
        1.0
    """
    c = np.asarray(counts, float)
    tot = c.sum(axis=(-2, -1), keepdims=True)
    p = c / np.where(tot > 0, tot, 1.0)
    pi = p.sum(axis=-1, keepdims=True)
    pj = p.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(p > 0, p * np.log2(p / (pi * pj)), 0.0)
    return term.sum(axis=(-2, -1))


def _adam_loop(loss, params, opt, state, key, steps, n_states, batch):
    def step(carry, k):
        p, s = carry
        idx = jax.random.randint(k, (batch,), 0, n_states)
        val, g = jax.value_and_grad(loss)(p, idx)
        u, s = opt.update(g, s, p)
        return (optax.apply_updates(p, u), s), val

    (params, state), vals = jax.lax.scan(step, (params, state), jax.random.split(key, steps))
    return params, state, vals


def run(spec: PortfolioSpec, params, key) -> dict:
    """One distillation run: teacher, bank, router, boosting, pruning, held-out metrics.

    Args:
        spec: a :class:`PortfolioSpec`.
        params: ``lr``, ``temperature``, ``boost_lr`` (see :data:`DEFAULT_PARAMS`).
        key: PRNG key.

    Returns:
        A dict of metrics. Per held-out instance (dim ``instance``): ``agree_program``
        (``program``), ``agree_base`` / ``agree_final`` / ``agree_pruned`` (top-1
        agreement with the teacher over the non-forced decisions), ``kl_boost`` and
        ``kl_control`` (``round`` 0 … R: mean held-out KL after each boosting round, and
        after as many router steps without a new program), ``len_teacher``,
        ``len_base``, ``len_final``, ``len_pruned``, ``len_program`` (``program``),
        ``stage_counts`` (``stage``, ``program``: argmax of the base router by stage),
        ``valid_tours``. Per lane: ``agree_train_program`` (``program``), ``mass``
        (final router mass, ``program``), ``kept`` (``program``, pruning mask),
        ``identity_prob_err``, ``identity_len_err`` (one-hot router against each bank
        program), ``teacher_converged`` (fraction of 2-opt runs with no improving move
        left), ``train_loss`` (``step``), ``cost`` (router and program Adam steps).
    """
    n, k_bank, r_max, k_all = spec.n_nodes, len(PROGRAMS), spec.boost_rounds, spec.n_programs
    tau = params["temperature"]
    k_tr, k_te, k_init, k_fit, k_ctl, k_bst, k_prn = jax.random.split(key, 7)
    x_tr = random_instances(k_tr, spec.n_train, n)
    x_te = random_instances(k_te, spec.n_test, n)
    teach = jax.vmap(lambda x: teacher_tour(x, spec.two_opt_moves))
    t_tr, ok_tr = teach(x_tr)
    t_te, ok_te = teach(x_te)
    raw_tr, unv_tr, act_tr, f_tr = jax.vmap(teacher_states)(x_tr, t_tr)
    raw_te, unv_te, act_te, f_te = jax.vmap(teacher_states)(x_te, t_te)
    s_tr = spec.n_train * spec.n_decisions
    raw_tr, unv_tr, act_tr, f_tr = (a.reshape((s_tr,) + a.shape[2:]) for a in (raw_tr, unv_tr, act_tr, f_tr))
    mu, sd = jnp.mean(f_tr, axis=0), jnp.std(f_tr, axis=0) + 1e-6
    z_tr, z_te = (f_tr - mu) / sd, (f_te - mu) / sd

    def logp_all(thetas, raw, unv):  # (..., K, n) over any leading state dims
        fn = lambda r, u: program_log_probs(r, u, thetas, tau)  # noqa: E731
        for _ in range(raw.ndim - 2):
            fn = jax.vmap(fn)
        return fn(raw, unv)

    def at_action(lp, act):
        return jnp.take_along_axis(lp, act[..., None, None], axis=-1)[..., 0]

    thetas = jnp.zeros((r_max, k_bank))
    lpa_tr = at_action(logp_all(thetas, raw_tr, unv_tr), act_tr)  # (S, K)
    active0 = jnp.arange(k_all) < k_bank

    opt = optax.adam(params["lr"])

    def ce(rp, idx, lpa, active):
        lr_ = router_apply(rp, z_tr[idx], active)
        return -jnp.mean(jax.scipy.special.logsumexp(lr_ + lpa[idx], axis=-1))

    def train(rp, st, k, steps, lpa, active):
        loss = lambda p, idx: ce(p, idx, lpa, active)  # noqa: E731
        return _adam_loop(loss, rp, opt, st, k, steps, s_tr, spec.batch)

    def evaluate(rp, thetas, active):
        lp = logp_all(thetas, raw_te, unv_te)  # (Nt, T, K, n)
        lr_ = router_apply(rp, z_te, active)  # (Nt, T, K)
        mix = jnp.einsum("itk,itkn->itn", jnp.exp(lr_), jnp.exp(lp))
        agree = jnp.mean(jnp.argmax(mix, axis=-1) == act_te, axis=-1)
        kl = -jnp.mean(jax.scipy.special.logsumexp(lr_ + at_action(lp, act_te), axis=-1), axis=-1)
        return agree, kl, lr_

    # programs on their own
    lp_te0 = logp_all(thetas, raw_te, unv_te)
    agree_prog_train = jnp.mean(jnp.argmax(logp_all(thetas, raw_tr, unv_tr), -1) == act_tr[:, None], axis=0)

    # base router on the bank of six
    rp = router_init(k_init, _N_FEATURES, spec.hidden, spec.depth, k_all)
    st = opt.init(rp)
    rp, st, train_loss = train(rp, st, k_fit, spec.train_steps, lpa_tr, active0)
    agree_base, kl0, lr_base = evaluate(rp, thetas, active0)
    stage = (jnp.arange(spec.n_decisions) * spec.n_stages) // spec.n_decisions
    arg_base = jnp.argmax(lr_base, axis=-1)  # (Nt, T)
    stage_counts = jnp.zeros((spec.n_test, spec.n_stages, k_all), jnp.int32)
    inst = jnp.broadcast_to(jnp.arange(spec.n_test)[:, None], arg_base.shape)
    stage_counts = stage_counts.at[inst, jnp.broadcast_to(stage, arg_base.shape), arg_base].add(1)

    # control: the same router steps as boosting, without new programs
    ctl_kl = [kl0]
    rc, sc = rp, st
    for kc in jax.random.split(k_ctl, r_max):
        rc, sc, _ = train(rc, sc, kc, spec.round_steps, lpa_tr, active0)
        ctl_kl.append(evaluate(rc, thetas, active0)[1])

    # boosting: fit a parametric program on the top-q KL training states, add it, retrain
    q = max(1, int(math.ceil(spec.top_frac * s_tr)))
    boost_opt = optax.adam(params["boost_lr"])
    active, lpa, rb, sb = active0, lpa_tr, rp, st
    boost_kl = [kl0]
    for r, kr in enumerate(jax.random.split(k_bst, r_max)):
        per_state = -jax.scipy.special.logsumexp(router_apply(rb, z_tr, active) + lpa, axis=-1)
        _, top = jax.lax.top_k(per_state, q)
        raw_q, unv_q, act_q = raw_tr[top], unv_tr[top], act_tr[top]
        k0 = jnp.argmax(jnp.mean(lpa[top, :k_bank], axis=0))
        theta0 = jax.nn.one_hot(k0, k_bank) / tau

        def fit_loss(th, idx, raw_q=raw_q, unv_q=unv_q, act_q=act_q):
            lp = jax.vmap(lambda a, u: program_log_probs(a, u, th[None], 1.0)[-1])(raw_q, unv_q)
            return -jnp.mean(jnp.take_along_axis(lp, act_q[:, None], axis=-1))

        def fit_step(carry, _, fit_loss=fit_loss):
            th, s = carry
            g = jax.grad(fit_loss)(th, None)
            u, s = boost_opt.update(g, s, th)
            return (optax.apply_updates(th, u), s), None

        (theta, _), _ = jax.lax.scan(
            fit_step, (theta0, boost_opt.init(theta0)), None, length=spec.boost_steps
        )
        thetas = thetas.at[r].set(theta)
        active = active.at[k_bank + r].set(True)
        lpa = at_action(logp_all(thetas, raw_tr, unv_tr), act_tr)
        rb, sb, _ = train(rb, sb, kr, spec.round_steps, lpa, active)
        boost_kl.append(evaluate(rb, thetas, active)[1])
    agree_final, _, _ = evaluate(rb, thetas, active)
    mass = jnp.mean(jnp.exp(router_apply(rb, z_tr, active)), axis=0)

    # pruning: keep the prune_keep programs with the largest router mass, fine-tune
    _, keep_idx = jax.lax.top_k(mass, spec.prune_keep)
    kept = jnp.zeros(k_all, bool).at[keep_idx].set(True)
    rpr, _, _ = train(rb, sb, k_prn, spec.prune_steps, lpa, kept)
    agree_pruned, _, _ = evaluate(rpr, thetas, kept)

    # greedy rollouts on the held-out instances
    def rollout_lengths(x):
        d, ang = distance_matrix(x), centroid_angles(x)

        def parts(cur, visited):
            raw = base_scores(d, ang, cur, visited)
            z = (state_features(x, d, cur, visited, raw) - mu) / sd
            return program_log_probs(raw, ~visited, thetas, tau), z

        def student(rparams, act_mask):
            def pol(cur, visited):
                lp, z = parts(cur, visited)
                return mixture_probs(jnp.exp(router_apply(rparams, z, act_mask)), jnp.exp(lp))

            return greedy_tour(pol, n)

        def single(k):
            return greedy_tour(lambda c, v: jnp.exp(parts(c, v)[0])[k], n)

        def onehot(k):
            return greedy_tour(
                lambda c, v: mixture_probs(jax.nn.one_hot(k, k_all), jnp.exp(parts(c, v)[0])), n
            )

        tours = [student(rp, active0), student(rb, active), student(rpr, kept)]
        tours += [single(k) for k in range(k_all)] + [onehot(k) for k in range(k_bank)]
        tours = jnp.stack(tours)
        lens = jax.vmap(lambda t: tour_length(d, t))(tours)
        valid = jax.vmap(is_permutation)(tours)
        return lens, jnp.all(valid)

    lens, valid = jax.vmap(rollout_lengths)(x_te)
    len_single = lens[:, 3 : 3 + k_all]
    len_onehot = lens[:, 3 + k_all :]
    d_te = jax.vmap(distance_matrix)(x_te)
    len_teacher = jax.vmap(tour_length)(d_te, t_te)

    # one-hot router against each bank program, on every held-out state (one array of π)
    p_te0 = jnp.exp(lp_te0)
    onehot_mix = jax.vmap(lambda k: jnp.einsum("k,itkn->itn", jax.nn.one_hot(k, k_all), p_te0))(
        jnp.arange(k_bank)
    )
    prob_err = jnp.max(jnp.abs(onehot_mix - jnp.moveaxis(p_te0[:, :, :k_bank], 2, 0)))
    len_err = jnp.max(jnp.abs(len_onehot - len_single[:, :k_bank]))

    cost = spec.train_steps + r_max * (2 * spec.round_steps + spec.boost_steps) + spec.prune_steps
    return {
        "agree_program": jnp.mean(
            jnp.argmax(logp_all(thetas, raw_te, unv_te), -1) == act_te[..., None], axis=1
        ),
        "agree_train_program": agree_prog_train,
        "agree_base": agree_base,
        "agree_final": agree_final,
        "agree_pruned": agree_pruned,
        "kl_boost": jnp.stack(boost_kl, axis=-1),
        "kl_control": jnp.stack(ctl_kl, axis=-1),
        "len_teacher": len_teacher,
        "len_base": lens[:, 0],
        "len_final": lens[:, 1],
        "len_pruned": lens[:, 2],
        "len_program": len_single,
        "stage_counts": stage_counts,
        "valid_tours": valid & jax.vmap(is_permutation)(t_te),
        "mass": mass,
        "kept": kept,
        "identity_prob_err": prob_err,
        "identity_len_err": len_err,
        "teacher_converged": jnp.mean(jnp.concatenate([ok_tr, ok_te]).astype(jnp.float32)),
        "train_loss": train_loss,
        "cost": jnp.asarray(cost, jnp.float32),
    }


def program_names(spec: PortfolioSpec) -> list[str]:
    """The ``program`` coordinate: the bank, then one boosted program per round.

    Example:
        >>> program_names(PortfolioSpec(boost_rounds=1))[-2:]
        ['regret2', 'boost1']
    """
    return list(PROGRAMS) + [f"boost{r + 1}" for r in range(spec.boost_rounds)]


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=PortfolioSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "agree_program": ("instance", "program"),
        "agree_train_program": ("program",),
        "agree_base": ("instance",),
        "agree_final": ("instance",),
        "agree_pruned": ("instance",),
        "kl_boost": ("instance", "round"),
        "kl_control": ("instance", "round"),
        "len_teacher": ("instance",),
        "len_base": ("instance",),
        "len_final": ("instance",),
        "len_pruned": ("instance",),
        "len_program": ("instance", "program"),
        "stage_counts": ("instance", "stage", "program"),
        "valid_tours": ("instance",),
        "mass": ("program",),
        "kept": ("program",),
        "train_loss": ("step",),
    },
    coords=lambda spec: {
        "instance": np.arange(spec.n_test),
        "program": program_names(spec),
        "round": np.arange(spec.boost_rounds + 1),
        "stage": np.arange(spec.n_stages),
        "step": np.arange(1, spec.train_steps + 1),
    },
)
