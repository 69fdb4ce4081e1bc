"""PSD matrix completion through a nullspace (ε) surrogate, solved by Burer–Monteiro GD.

A reconstruction of OpenReview ejR5lXhZTT ("Using Noise to Help Reach Global Minima:
Turning Matrix Completion into Noisy Matrix Sensing"; the paper was not read). The target
is :math:`M^\\star = U^\\star U^{\\star\\top}` with Haar :math:`U^\\star \\in \\mathbb
R^{n\\times r^\\star}` (so :math:`\\|M^\\star\\| = 1`, :math:`\\|M^\\star\\|_F =
\\sqrt{r^\\star}`); each entry of the upper triangle (diagonal included) is observed with
probability :math:`p` and mirrored (a symmetric mask :math:`\\Omega`). The surrogate
operator and right-hand side are

.. math::

    \\mathcal A_\\varepsilon(M) = \\begin{bmatrix} P_\\Omega M \\\\ \\varepsilon\\,G\\,
    \\operatorname{vec}(P_{\\Omega^c} M)\\end{bmatrix},\\qquad
    b = \\begin{bmatrix} P_\\Omega M^\\star \\\\ 0\\end{bmatrix},

with :math:`G \\in \\mathbb R^{g\\times n^2}` i.i.d. :math:`N(0, 1/g)` (so
:math:`\\mathbb E\\|Gv\\|^2 = \\|v\\|^2`). :math:`b = \\mathcal A_\\varepsilon(M^\\star) + w`
with :math:`w = [0; -\\varepsilon G\\operatorname{vec}(P_{\\Omega^c}M^\\star)]`: noisy
matrix sensing with :math:`\\|w\\| = O(\\varepsilon)`. A :math:`G` with as many rows as the
:math:`|\\Omega^c|` unobserved entries would be the natural choice; we use :math:`g \\approx 200`
rows (``g_rows``) because a square :math:`G` (up to :math:`n^2` rows) makes every step
and the RIP estimate several times slower, too slow for the CPU smoke.

The loss is :math:`f(X) = \\frac{1}{2p}\\|\\mathcal A_\\varepsilon(XX^\\top) - b\\|^2` over
:math:`X \\in \\mathbb R^{n\\times r}` (over-parametrised for :math:`r > r^\\star`), the
:math:`1/p` making the expected curvature of the observed part independent of :math:`p`;
plain GD :math:`X \\leftarrow X - \\eta\\nabla f(X)` from :math:`X_0 = \\sigma_0
Z`, :math:`Z_{ij} \\sim N(0, 1)`. Every rank in ``spec.ranks`` runs on the same problem
and the same :math:`Z` (an inner ``rank`` axis): :math:`X` has ``max(ranks)`` columns and
a column mask keeps the first :math:`r`, so the rank is not a compile. Beside each run
the plain completion loss :math:`\\frac{1}{2p}\\|P_\\Omega(XX^\\top - M^\\star)\\|^2` runs from
the same start.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sims.matrix._linalg_rip import rip_ratios
from jaxtheory.sims.matrix.completion import _rel_error
from jaxtheory.simulator import Simulator

__all__ = [
    "DEFAULT_PARAMS",
    "NullspaceSpec",
    "problem",
    "surrogate_loss",
    "completion_loss",
    "run",
    "SIMULATOR",
]

#: Default parameters of :func:`run`: observation probability ``p``, surrogate weight
#: ``eps``, step size ``lr`` (of the 1/p-normalised loss) and initial scale ``init``.
DEFAULT_PARAMS = {"p": 0.3, "eps": 0.1, "lr": 0.2, "init": 1e-3}


@dataclasses.dataclass(frozen=True)
class NullspaceSpec:
    """Shapes of a nullspace-surrogate completion run.

    Attributes:
        n: side of the square PSD target.
        r_star: rank of the target.
        ranks: factor ranks run side by side (a leading ``rank`` axis of the per-rank
            metrics); padded to ``max(ranks)`` columns with a column mask.
        g_rows: rows of the Gaussian map :math:`G` on the unobserved entries.
        steps: GD steps.
        record_every: the error trajectory is recorded every this many steps.
        rip_rank: rank of the random samples of the RIP estimate (default ``2 * r_star``).
        rip_samples: random samples of the RIP estimate (the unit matrices are added).
    """

    n: int = 30
    r_star: int = 2
    ranks: tuple = (2, 4, 10)
    g_rows: int = 200
    steps: int = 3000
    record_every: int = 100
    rip_rank: int | None = None
    rip_samples: int = 200


def problem(spec: NullspaceSpec, p, key: jax.Array) -> dict:
    """Draw :math:`U^\\star`, the symmetric mask and :math:`G` (the masks are nested in ``p``).

    Args:
        spec: :class:`NullspaceSpec`.
        p: observation probability.
        key: PRNG key (the same key gives the same :math:`U^\\star`, :math:`G` and uniforms,
            so the masks of two ``p`` are nested).

    Returns:
        ``u`` (:math:`n\\times r^\\star`), ``target`` (:math:`M^\\star`), ``mask`` (1.0 on
        :math:`\\Omega`), ``G`` (:math:`g\\times n^2`).

    Example:
        >>> import jax
        >>> pr = problem(NullspaceSpec(n=6, g_rows=5), 0.5, jax.random.key(0))
        >>> pr["G"].shape, bool((pr["mask"] == pr["mask"].T).all())
        ((5, 36), True)
    """
    n = spec.n
    dtype = jnp.zeros(()).dtype
    ku, km, kg = jax.random.split(key, 3)
    u = jnp.linalg.qr(jax.random.normal(ku, (n, spec.r_star), dtype))[0]
    unif = jax.random.uniform(km, (n, n), dtype)
    unif = jnp.triu(unif) + jnp.triu(unif, 1).T
    mask = (unif < p).astype(dtype)
    G = jax.random.normal(kg, (spec.g_rows, n * n), dtype) / jnp.sqrt(jnp.asarray(spec.g_rows, dtype))
    return {"u": u, "target": u @ u.T, "mask": mask, "G": G}


def surrogate_loss(X, target, mask, G, eps, p):
    """:math:`\\frac{1}{2p}\\|\\mathcal A_\\varepsilon(XX^\\top) - b\\|^2`.

    Args:
        X: factor :math:`n\\times r`.
        target: :math:`M^\\star` (only its observed entries are read).
        mask: 1.0 on :math:`\\Omega`, 0.0 elsewhere.
        G: the map on the unobserved entries, :math:`g\\times n^2`.
        eps: surrogate weight :math:`\\varepsilon`.
        p: observation probability (the normalisation).

    Returns:
        The loss (scalar).

    Example:
        >>> import jax.numpy as jnp
        >>> X = jnp.eye(3)[:, :1]
        >>> float(surrogate_loss(X, X @ X.T, jnp.ones((3, 3)), jnp.zeros((2, 9)), 0.1, 1.0))
        0.0
    """
    M = X @ X.T
    obs = mask * (M - target)
    hid = G @ ((1.0 - mask) * M).ravel()
    return (jnp.sum(obs * obs) + eps**2 * jnp.sum(hid * hid)) / (2.0 * p)


def completion_loss(X, target, mask, p):
    """The plain completion loss :math:`\\frac{1}{2p}\\|P_\\Omega(XX^\\top - M^\\star)\\|^2`.

    Args:
        X: factor :math:`n\\times r`.
        target: :math:`M^\\star`.
        mask: 1.0 on :math:`\\Omega`.
        p: observation probability.

    Returns:
        The loss (scalar).

    Example:
        >>> import jax.numpy as jnp
        >>> float(completion_loss(jnp.ones((2, 1)), jnp.zeros((2, 2)), jnp.eye(2), 0.5))
        2.0
    """
    obs = mask * (X @ X.T - target)
    return jnp.sum(obs * obs) / (2.0 * p)


def run(spec: NullspaceSpec, params: dict, key: jax.Array) -> dict:
    """One problem, every rank of ``spec.ranks``: surrogate GD, plain completion GD, RIP estimate.

    Args:
        spec: :class:`NullspaceSpec`.
        params: ``p``, ``eps``, ``lr``, ``init`` (see :data:`DEFAULT_PARAMS`).
        key: PRNG key (problem, initial factor, RIP samples).

    Returns:
        Per rank (leading axis): ``rel_error`` (per recorded step,
        :math:`\\|XX^\\top - M^\\star\\|_F/\\|M^\\star\\|_F`), ``final_error``, ``plain_error``
        (the plain completion run's final error), ``final_loss``; per problem:
        ``delta_hat`` (the RIP estimate of :math:`\\mathcal A_\\varepsilon` on rank
        ``rip_rank`` with the unit matrices), ``delta_random`` (the same from the random
        samples alone), ``unit_min`` (:math:`\\min_{(i,j)\\in\\Omega^c}
        \\|Ge_{ij}\\|^2`, the :math:`c` of the bound :math:`\\hat\\delta \\ge
        (1-\\varepsilon^2c)/(1+\\varepsilon^2c)`; inf if every entry is observed),
        ``observed`` (:math:`|\\Omega|`).

    Example:
        >>> import jax
        >>> spec = NullspaceSpec(n=8, ranks=(2, 4), g_rows=10, steps=20, record_every=10, rip_samples=4)
        >>> out = run(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["rel_error"].shape, out["delta_hat"].shape
        ((2, 2), ())
    """
    if spec.steps % spec.record_every:
        raise ValueError(f"steps ({spec.steps}) must be a multiple of record_every ({spec.record_every})")
    if min(spec.ranks) < 1 or max(spec.ranks) > spec.n:
        raise ValueError(f"ranks must lie in [1, n = {spec.n}], not {spec.ranks}")
    p, eps, lr = params["p"], params["eps"], params["lr"]
    kp, kx, kr = jax.random.split(key, 3)
    pr = problem(spec, p, kp)
    target, mask, G, u = pr["target"], pr["mask"], pr["G"], pr["u"]
    dtype = target.dtype
    r_max = max(spec.ranks)
    x0 = params["init"] * jax.random.normal(kx, (spec.n, r_max), dtype)
    norm = jnp.sqrt(jnp.asarray(spec.r_star, dtype))
    ones = jnp.ones((spec.r_star,), dtype)

    def err(X):
        return _rel_error(X, X.T, u, ones, u) / norm

    grad_s = jax.grad(surrogate_loss)
    grad_c = jax.grad(completion_loss)

    def one(colmask):
        def block(carry, _):
            def step(c, _):
                xs, xc = c
                xs = xs - lr * grad_s(xs, target, mask, G, eps, p) * colmask
                xc = xc - lr * grad_c(xc, target, mask, p) * colmask
                return (xs, xc), None

            carry, _ = jax.lax.scan(step, carry, None, length=spec.record_every)
            return carry, err(carry[0])

        start = x0 * colmask
        (xs, xc), errs = jax.lax.scan(block, (start, start), None, length=spec.steps // spec.record_every)
        return {
            "rel_error": errs,
            "final_error": errs[-1],
            "plain_error": err(xc),
            "final_loss": surrogate_loss(xs, target, mask, G, eps, p),
        }

    colmasks = (jnp.arange(r_max)[None, :] < jnp.asarray(spec.ranks)[:, None]).astype(dtype)
    out = jax.vmap(one)(colmasks)

    def op(M):
        return jnp.concatenate([(mask * M).ravel(), eps * (G @ ((1.0 - mask) * M).ravel())])

    rip_rank = spec.rip_rank or 2 * spec.r_star
    rho = rip_ratios(op, rip_rank, kr, True, shape=(spec.n, spec.n), n_samples=spec.rip_samples)
    out["delta_hat"] = (rho.max() - rho.min()) / (rho.max() + rho.min())
    rnd = rho[: spec.rip_samples]
    out["delta_random"] = (rnd.max() - rnd.min()) / (rnd.max() + rnd.min())
    col = jnp.sum(G * G, axis=0).reshape(spec.n, spec.n)
    out["unit_min"] = jnp.min(jnp.where(mask > 0, jnp.inf, col))
    out["observed"] = jnp.sum(mask)
    return out


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=NullspaceSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "rel_error": ("rank", "checkpoint"),
        "final_error": ("rank",),
        "plain_error": ("rank",),
        "final_loss": ("rank",),
        "delta_hat": (),
        "delta_random": (),
        "unit_min": (),
        "observed": (),
    },
    coords=lambda spec: {
        "rank": list(spec.ranks),
        "checkpoint": np.arange(1, spec.steps // spec.record_every + 1) * spec.record_every,
    },
)
