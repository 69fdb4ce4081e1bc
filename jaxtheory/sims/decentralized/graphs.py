"""Communication graphs of decentralized methods: Metropolis mixing matrices and their gap.

Agents sit on the leading axis of every array: ``X`` of shape ``(n, ...)`` holds agent
``i``'s copy in ``X[i]``, and one gossip round is ``W @ X`` (:func:`gossip`).

Every graph here gets *Metropolis–Hastings* weights,

.. math::

    W_{ij} = \\frac{1}{1 + \\max(d_i, d_j)} \\ (i \\sim j), \\qquad
    W_{ii} = 1 - \\sum_{j \\ne i} W_{ij},

symmetric and doubly stochastic for any connected graph; on a regular graph of degree
:math:`d` they are :math:`1/(d+1)` on every edge and on the diagonal. The spectral gap
is :math:`1 - \\lambda` with :math:`\\lambda = \\max(|\\lambda_2(W)|, |\\lambda_n(W)|)`, the
second-largest eigenvalue magnitude (the contraction factor of one gossip round on the
disagreement :math:`X - \\mathbf 1\\bar x^\\top`).

Closed forms (used in the tests): the ring :math:`C_n` has eigenvalues
:math:`\\tfrac13 + \\tfrac23\\cos(2\\pi k/n)`, so a 16-node ring has gap
:math:`\\tfrac23(1 - \\cos(\\pi/8)) = 0.0507`; the :math:`s \\times s` torus has
:math:`\\tfrac15 + \\tfrac25(\\cos(2\\pi j/s) + \\cos(2\\pi k/s))`, so the 4×4 torus has
gap 0.4 (:math:`\\lambda_2 = 0.6 = |\\lambda_n|`): ring to torus at 16 nodes multiplies
the gap by 7.9; it does not merely double it. On both graphs
:math:`1 - \\lambda_2` and :math:`1 - \\max(|\\lambda_2|, |\\lambda_n|)` coincide; they
differ on bipartite-like graphs with a large negative eigenvalue, where this module's
definition is the one that bounds gossip's contraction.
"""

from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

__all__ = ["GRAPHS", "adjacency", "metropolis_weights", "mixing_matrix", "spectral_gap", "gossip"]

#: The graph kinds :func:`mixing_matrix` builds.
GRAPHS = ("ring", "torus", "erdos_renyi", "complete")


def _connected(adj: np.ndarray) -> bool:
    n = adj.shape[0]
    seen = np.zeros(n, bool)
    seen[0] = True
    frontier = [0]
    while frontier:
        i = frontier.pop()
        for j in np.flatnonzero(adj[i]):
            if not seen[j]:
                seen[j] = True
                frontier.append(j)
    return bool(seen.all())


def adjacency(kind: str, n: int, *, p: float = 0.3, seed: int = 0, max_tries: int = 1000) -> np.ndarray:
    """The boolean adjacency matrix (no self loops) of a named graph on ``n`` nodes.

    Args:
        kind: one of :data:`GRAPHS`: ``"ring"`` (the cycle :math:`C_n`), ``"torus"``
            (the :math:`s \\times s` periodic grid, ``n = s**2``), ``"erdos_renyi"``
            (:math:`G(n, p)`, redrawn until connected) or ``"complete"``.
        n: number of nodes (at least 2).
        p: edge probability of ``"erdos_renyi"``.
        seed: seed of ``"erdos_renyi"``'s draw (numpy ``default_rng``).
        max_tries: draws of :math:`G(n, p)` before giving up on a connected one.

    Returns:
        An ``(n, n)`` boolean numpy array, symmetric, with a zero diagonal.

    Raises:
        ValueError: on an unknown kind, ``n < 2``, a torus with ``n`` not a square of a
            side at least 3, ``p`` outside ``(0, 1]``, or no connected draw.

    Example:
        >>> adjacency("ring", 4).astype(int).tolist()
        [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0]]
    """
    if kind not in GRAPHS:
        raise ValueError(f"unknown graph kind {kind!r}; expected one of {GRAPHS}")
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 2:
        raise ValueError(f"a graph needs an integer n >= 2 nodes, got {n!r}")
    n = int(n)
    adj = np.zeros((n, n), bool)
    if kind == "ring":
        i = np.arange(n)
        adj[i, (i + 1) % n] = True
        adj[(i + 1) % n, i] = True
    elif kind == "complete":
        adj[:] = True
    elif kind == "torus":
        s = math.isqrt(n)
        if s * s != n or s < 3:
            raise ValueError(
                f"a torus needs n = s**2 with side s >= 3 (a simple 4-regular graph), got n = {n}"
            )
        for a in range(s):
            for b in range(s):
                i = a * s + b
                for j in (((a + 1) % s) * s + b, a * s + (b + 1) % s):
                    adj[i, j] = adj[j, i] = True
    else:
        if not 0.0 < p <= 1.0:
            raise ValueError(f"erdos_renyi needs an edge probability p in (0, 1], got {p!r}")
        rng = np.random.default_rng(seed)
        for _ in range(max_tries):
            upper = np.triu(rng.random((n, n)) < p, k=1)
            adj = upper | upper.T
            if _connected(adj):
                break
        else:
            raise ValueError(f"no connected G({n}, {p}) in {max_tries} draws; raise p")
    np.fill_diagonal(adj, False)
    return adj


def metropolis_weights(adj: np.ndarray) -> np.ndarray:
    """Metropolis–Hastings weights of a connected undirected graph (float64).

    Args:
        adj: an ``(n, n)`` symmetric boolean adjacency matrix with a zero diagonal.

    Returns:
        The symmetric doubly stochastic ``(n, n)`` matrix :math:`W` of the module docs.

    Raises:
        ValueError: on a non-square, asymmetric or disconnected ``adj``.

    Example:
        >>> metropolis_weights(adjacency("ring", 3)).round(4).tolist()[0]
        [0.3333, 0.3333, 0.3333]
    """
    adj = np.asarray(adj, bool)
    if adj.ndim != 2 or adj.shape[0] != adj.shape[1]:
        raise ValueError(f"adjacency must be square, got shape {adj.shape}")
    if not (adj == adj.T).all():
        raise ValueError("adjacency must be symmetric (an undirected graph)")
    adj = adj.copy()
    np.fill_diagonal(adj, False)
    if not _connected(adj):
        raise ValueError("the graph is disconnected: gossip cannot reach consensus")
    deg = adj.sum(1)
    w = np.where(adj, 1.0 / (1.0 + np.maximum(deg[:, None], deg[None, :])), 0.0)
    np.fill_diagonal(w, 1.0 - w.sum(1))
    return w


def mixing_matrix(kind: str, n: int, *, p: float = 0.3, seed: int = 0) -> np.ndarray:
    """The Metropolis mixing matrix of a named graph: ``metropolis_weights(adjacency(...))``.

    Args:
        kind: one of :data:`GRAPHS` (see :func:`adjacency`).
        n: number of agents.
        p: edge probability of ``"erdos_renyi"``.
        seed: seed of ``"erdos_renyi"``'s draw.

    Returns:
        A float64 numpy ``(n, n)`` symmetric doubly stochastic matrix; pass it to
        :func:`gossip` (it is cast to the iterates' dtype there).

    Example:
        >>> W = mixing_matrix("torus", 16)
        >>> round(float(W[0, 0]), 3), round(spectral_gap(W), 3)
        (0.2, 0.4)
    """
    return metropolis_weights(adjacency(kind, n, p=p, seed=seed))


def spectral_gap(W: np.ndarray) -> float:
    """:math:`1 - \\max(|\\lambda_2(W)|, |\\lambda_n(W)|)` of a symmetric mixing matrix.

    Args:
        W: a symmetric ``(n, n)`` matrix with eigenvalue 1 on :math:`\\mathbf 1`.

    Returns:
        The spectral gap (float64 eigenvalues); 1 for the averaging matrix
        :math:`\\mathbf 1\\mathbf 1^\\top/n`.

    Raises:
        ValueError: on a non-square or asymmetric ``W``.

    Example:
        >>> round(spectral_gap(mixing_matrix("ring", 16)), 4)
        0.0507
    """
    W = np.asarray(W, float)
    if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] < 2:
        raise ValueError(f"W must be square with n >= 2, got shape {W.shape}")
    if not np.allclose(W, W.T, atol=1e-12):
        raise ValueError("W must be symmetric")
    lam = np.sort(np.abs(np.linalg.eigvalsh(W)))[::-1]
    return float(1.0 - lam[1])


def gossip(W, X):
    """One gossip round: ``W @ X`` over the leading (agent) axis of every leaf.

    Args:
        W: an ``(n, n)`` mixing matrix (numpy or jax; cast to each leaf's dtype).
        X: an array (or pytree of arrays) with agents on the leading axis, ``(n, ...)``.

    Returns:
        The mixed array(s), same shapes and dtypes: agent ``i`` gets
        :math:`\\sum_j W_{ij} X_j`.

    Example:
        >>> import jax.numpy as jnp
        >>> gossip(mixing_matrix("complete", 2), jnp.array([[0.0], [2.0]])).tolist()
        [[1.0], [1.0]]
    """
    import jax

    def mix(x):
        w = jnp.asarray(W, x.dtype)
        return jnp.tensordot(w, x, axes=(1, 0))

    return jax.tree.map(mix, X)
