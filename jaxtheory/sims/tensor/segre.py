"""Noisy CP tensor recovery on the Segre manifold: RGD, RGN, spectral start and CP-ALS.

Model (arXiv 2510.00569): :math:`T^\\star = \\sum_{i=1}^r \\lambda_i u_{1,i} \\otimes \\dots
\\otimes u_{d,i}` with unit factors drawn uniformly on the sphere, observed through a
Gaussian sensing operator with :math:`A_{ij} \\sim N(0, 1)` entries
(:func:`jaxtheory.sims.matrix.linalg.gaussian_sensing`, ``normalization="standard"``):
:math:`y = \\mathcal A(T^\\star) + \\sigma\\varepsilon`, :math:`\\varepsilon \\sim N(0, I_n)`.
The loss is :math:`L = \\frac1{2n}\\lVert y - \\mathcal A(\\sum_i T_i)\\rVert^2` (the
:math:`1/n` makes :math:`\\alpha = 0.5` the step of the near-isometric scale).

* **RGD**: :func:`jaxtheory.optim.segre_rgd` on the factor gradients of :math:`L`.
* **RGN**: :math:`\\xi = \\arg\\min_{\\xi \\in \\oplus_i T_{T_i}} \\lVert y - \\mathcal A(\\sum_i
  T_i + \\xi)\\rVert` in the orthonormal tangent coordinates of :func:`tangent_basis`
  (design :math:`J = \\mathcal A B_T`, :func:`jaxtheory.sims.matrix.linalg.tangent_lstsq`),
  then the factor retraction :func:`jaxtheory.optim.segre_retract`.
* **CP-ALS**: alternating least squares over the factor matrices through the sensing
  operator (each mode a linear least-squares problem in :math:`r p_l` unknowns).
* **Spectral start**: HOSVD of :math:`\\mathcal A^*(y)/n` (top-``r`` left singular vectors
  of each unfolding, paired by index, weights by least squares) refined by CP-ALS.

RGD, RGN and CP-ALS start from the same point: the truth perturbed along a random
direction of the factors and weights, scaled (by bisection) so that the relative error
is ``init_error``.
"""

from __future__ import annotations

import dataclasses
import math
import string

import jax
import jax.numpy as jnp
import optax

from jaxtheory.optim._segre import segre_retract, segre_rgd, segre_tensor
from jaxtheory.sims.matrix.linalg import SensingOperator, gaussian_sensing, tangent_lstsq
from jaxtheory.simulator import Simulator

__all__ = [
    "SegreSpec",
    "DEFAULT_PARAMS",
    "tangent_basis",
    "coords_to_factor",
    "rgn_step",
    "cp_als_sweep",
    "hosvd_init",
    "degrees_of_freedom",
    "run",
]

#: Default parameters of :func:`run`: noise level σ, relative error of the start, RGD step α.
DEFAULT_PARAMS = {"sigma": 0.0, "init_error": 0.3, "lr": 0.5}


@dataclasses.dataclass(frozen=True)
class SegreSpec:
    """Shapes of a recovery run.

    Attributes:
        d: tensor order.
        p: size of every mode.
        r: CP rank (of the truth and of the iterates).
        n: measurements.
        rgd_steps: RGD iterations.
        rgn_steps: RGN iterations.
        als_sweeps: CP-ALS sweeps (each updates every mode once).
        lam_min: the weights are ``linspace(1, lam_min, r)``.
        x64: compute in float64 (inside ``jax.enable_x64``) after float32 draws.
    """

    d: int = 3
    p: int = 10
    r: int = 1
    n: int = 600
    rgd_steps: int = 100
    rgn_steps: int = 10
    als_sweeps: int = 10
    lam_min: float = 0.5
    x64: bool = True


def degrees_of_freedom(d: int, p: int, r: int) -> int:
    """Dimension :math:`r(1 + d(p - 1))` of the tangent space of ``r`` rank-one components.

    Args:
        d: tensor order.
        p: size of every mode.
        r: CP rank.

    Returns:
        The int dimension (28 for d = 3, p = 10, r = 1).

    Example:
        >>> degrees_of_freedom(3, 10, 2)
        56
    """
    return r * (1 + d * (p - 1))


def _complement(u):
    """Orthonormal basis ``(p, p - 1)`` of the complement of the unit vector ``u`` (Householder)."""
    s = jnp.where(u[0] >= 0, 1.0, -1.0).astype(u.dtype)
    v = u.at[0].add(s)
    h = jnp.eye(u.shape[0], dtype=u.dtype) - 2.0 * jnp.outer(v, v) / jnp.dot(v, v)
    return h[:, 1:]


def _outer_one(vecs):
    letters = string.ascii_letters[: len(vecs)]
    return jnp.einsum(",".join(letters) + "->" + letters, *vecs)


def tangent_basis(factors):
    """Orthonormal tangent basis of each component, stacked: ``(prod p_l, r (1 + sum(p_l - 1)))``.

    Component ``i`` contributes :math:`\\otimes_l u_{l,i}` then, for every mode ``l``, the
    tensors :math:`u_1 \\otimes \\dots q \\dots \\otimes u_d` for an orthonormal basis ``q`` of
    :math:`u_{l,i}^\\perp`. Within a component the columns are orthonormal; across
    components they are not orthogonal (the tangent spaces of different components overlap).

    Args:
        factors: list of ``d`` arrays ``(r, p_l)`` with unit rows.

    Returns:
        The basis matrix.

    Example:
        >>> import jax.numpy as jnp
        >>> tangent_basis([jnp.array([[1.0, 0.0]]), jnp.array([[0.6, 0.8]])]).shape
        (4, 3)
    """
    r = factors[0].shape[0]
    cols = []
    for i in range(r):
        us = [u[i] for u in factors]
        cols.append(_outer_one(us).reshape(-1, 1))
        for l_, u in enumerate(us):
            q = _complement(u)
            block = jax.vmap(
                lambda c, l_=l_, us=us: _outer_one([c if k == l_ else v for k, v in enumerate(us)])
            )(q.T)
            cols.append(block.reshape(q.shape[1], -1).T)
    return jnp.concatenate(cols, axis=1)


def coords_to_factor(coords, factors):
    """Tangent coordinates of :func:`tangent_basis` -> factor coordinates ``(a, [w_l])``.

    Args:
        coords: ``(r (1 + sum(p_l - 1)),)`` coordinates.
        factors: list of ``d`` arrays ``(r, p_l)`` with unit rows.

    Returns:
        ``(a, ws)`` as taken by :func:`jaxtheory.optim.segre_retract`.
    """
    r = factors[0].shape[0]
    per = 1 + sum(u.shape[1] - 1 for u in factors)
    c = coords.reshape(r, per)
    a = c[:, 0]
    ws, off = [], 1
    for u in factors:
        k = u.shape[1] - 1
        q = jax.vmap(_complement)(u)  # (r, p, p - 1)
        ws.append(jnp.einsum("rpk,rk->rp", q, c[:, off : off + k]))
        off += k
    return a, ws


def rgn_step(op: SensingOperator, y, lam, factors):
    """One Riemannian Gauss–Newton step: tangent least squares then factor retraction.

    Args:
        op: sensing operator.
        y: ``(n,)`` observations.
        lam: ``(r,)`` weights.
        factors: list of ``(r, p_l)`` unit-row factors.

    Returns:
        The new ``(lam, factors)``.
    """
    resid = y - op.apply(segre_tensor(lam, factors))
    coords, _ = tangent_lstsq(op, tangent_basis(factors), resid)
    a, ws = coords_to_factor(coords, factors)
    return segre_retract(lam, factors, a, ws)


def _mode_design(op: SensingOperator, factors, mode):
    """``(n, r p_mode)``: measurements of ``u_1 ⊗ .. e_k .. ⊗ u_d`` per component ``i`` and ``k``."""
    d = len(factors)
    a = op.matrix.reshape((op.n,) + tuple(op.shape))
    letters = string.ascii_letters[1 : d + 1]
    others = [f"z{c}" for k, c in enumerate(letters) if k != mode]
    spec = "n" + letters + "," + ",".join(others) + "->nz" + letters[mode]
    m = jnp.einsum(spec, a, *[u for k, u in enumerate(factors) if k != mode])
    return m.reshape(op.n, -1)


def cp_als_sweep(op: SensingOperator, y, lam, factors):
    """One CP-ALS sweep through the sensing operator (every mode solved once, in order).

    Args:
        op: sensing operator.
        y: ``(n,)`` observations.
        lam: ``(r,)`` weights.
        factors: list of ``(r, p_l)`` unit-row factors.

    Returns:
        The new ``(lam, factors)`` (unit rows, weights the norms of the last solve).
    """
    factors = list(factors)
    r = lam.shape[0]
    for mode in range(len(factors)):
        x = jnp.linalg.lstsq(_mode_design(op, factors, mode), y)[0].reshape(r, -1)
        nrm = jnp.linalg.norm(x, axis=1)
        lam = nrm
        factors[mode] = x / nrm[:, None]
    return lam, factors


def hosvd_init(op: SensingOperator, y, r: int):
    """Spectral start: HOSVD of :math:`\\mathcal A^*(y)/n`, weights by least squares.

    Args:
        op: sensing operator (``"standard"`` normalization, so :math:`\\mathbb E\\,\\mathcal
            A^*\\mathcal A/n = I`).
        y: ``(n,)`` observations.
        r: rank.

    Returns:
        ``(lam, factors)``: the top-``r`` left singular vectors of every unfolding paired by
        index, weights minimizing :math:`\\lVert y - \\mathcal A(\\sum_i \\lambda_i \\otimes u_i)\\rVert`.
    """
    x = op.adjoint(y) / op.n
    factors = []
    for mode in range(x.ndim):
        unf = jnp.moveaxis(x, mode, 0).reshape(x.shape[mode], -1)
        factors.append(jnp.linalg.svd(unf, full_matrices=False)[0][:, :r].T)
    ones = jnp.ones((r,), x.dtype)
    comps = jax.vmap(lambda i: op.apply(segre_tensor(ones * (jnp.arange(r) == i), factors)))(jnp.arange(r))
    lam = jnp.linalg.lstsq(comps.T, y)[0]
    # a negative weight flips the first factor instead (weights stay positive)
    sgn = jnp.where(lam < 0, -1.0, 1.0).astype(x.dtype)
    factors[0] = factors[0] * sgn[:, None]
    return lam * sgn, factors


def _truth(key, spec, dtype):
    factors = []
    for k in jax.random.split(key, spec.d):
        g = jax.random.normal(k, (spec.r, spec.p), dtype)
        factors.append(g / jnp.linalg.norm(g, axis=1, keepdims=True))
    lam = jnp.linspace(1.0, spec.lam_min, spec.r).astype(dtype)
    return lam, factors


def _perturb(dirs, lam, factors, target):
    """The truth moved along the direction ``dirs``, scaled by bisection to relative error ``target``."""
    dl, dfs = dirs
    dfs = [du / math.sqrt(u.shape[1]) for du, u in zip(dfs, factors)]
    t_star = segre_tensor(lam, factors)
    ref = jnp.linalg.norm(t_star)

    def point(s):
        fs = [u + s * du for u, du in zip(factors, dfs)]
        fs = [f / jnp.linalg.norm(f, axis=1, keepdims=True) for f in fs]
        return lam * (1.0 + s * dl / 3.0), fs

    def err(s):
        return jnp.linalg.norm(segre_tensor(*point(s)) - t_star) / ref

    def body(_, lohi):
        lo, hi = lohi
        mid = 0.5 * (lo + hi)
        up = err(mid) > target
        return jnp.where(up, lo, mid), jnp.where(up, mid, hi)

    lo, hi = jax.lax.fori_loop(0, 50, body, (jnp.zeros((), lam.dtype), jnp.ones((), lam.dtype)))
    return point(0.5 * (lo + hi))


def run(spec: SegreSpec, params: dict, key: jax.Array) -> dict:
    """Recover a CP tensor from Gaussian measurements with RGD, RGN and CP-ALS from one start.

    The random draws are made in float32; with ``spec.x64`` (the default) everything after
    them runs inside ``jax.enable_x64(True)`` in float64: RGN's quadratic phase needs it
    (float32 stalls near 1e-7 relative error). The draws themselves stay float32-valued
    numbers (exact in float64), which changes nothing in the model.

    Args:
        spec: shapes (:class:`SegreSpec`).
        params: ``sigma`` (noise level), ``init_error`` (relative error of the start),
            ``lr`` (RGD step α) — see :data:`DEFAULT_PARAMS`.
        key: PRNG key.

    Returns:
        Relative errors :math:`\\lVert T_k - T^\\star\\rVert_F / \\lVert T^\\star\\rVert_F` per
        iteration (``rgd_error`` ``(rgd_steps + 1,)``, ``rgn_error`` ``(rgn_steps + 1,)``,
        ``als_error`` ``(als_sweeps + 1,)``), the final squared absolute errors
        ``rgn_sq_error`` and ``rgd_sq_error``, ``truth_norm``, ``spectral_error`` (of the
        HOSVD start), ``spectral_als_error`` (after CP-ALS from it) and the extreme
        eigenvalues ``gn_eig_min``/``gn_eig_max`` of :math:`J^\\top J/n` at the truth (they
        give RGD's local factor :math:`\\max_\\mu |1 - \\alpha\\mu|`).
    """
    k_truth, k_op, k_pert, k_noise = jax.random.split(key, 4)
    f32 = jnp.float32
    lam_s, fac_s = _truth(k_truth, spec, f32)
    op = gaussian_sensing(k_op, spec.n, (spec.p,) * spec.d, "standard", f32)
    noise = jax.random.normal(k_noise, (spec.n,), f32)
    kp = jax.random.split(k_pert, spec.d + 1)
    dirs = (
        jax.random.normal(kp[0], (spec.r,), f32),
        [jax.random.normal(k, (spec.r, spec.p), f32) for k in kp[1:]],
    )
    if not spec.x64:
        return _simulate(spec, params, lam_s, fac_s, op, noise, dirs)
    with jax.enable_x64(True):
        c = lambda x: jax.tree.map(lambda a: a.astype(jnp.float64), x)  # noqa: E731
        params = {k: jnp.asarray(v).astype(jnp.float64) for k, v in params.items()}
        lam_s, fac_s = _renorm(c(lam_s), c(fac_s))
        op64 = SensingOperator(op.matrix.astype(jnp.float64), op.shape)
        return _simulate(spec, params, lam_s, fac_s, op64, c(noise), c(dirs))


def _renorm(lam, factors):
    return lam, [u / jnp.linalg.norm(u, axis=1, keepdims=True) for u in factors]


def _simulate(spec, params, lam_s, fac_s, op, noise, dirs):
    t_star = segre_tensor(lam_s, fac_s)
    ref = jnp.linalg.norm(t_star)
    y = op.apply(t_star) + params["sigma"] * noise
    start = _perturb(dirs, lam_s, fac_s, params["init_error"])

    def rel(p):
        return jnp.linalg.norm(segre_tensor(*p) - t_star) / ref

    def loss(p):
        return 0.5 * jnp.sum(jnp.square(y - op.apply(segre_tensor(*p)))) / spec.n

    opt = segre_rgd(params["lr"])

    def rgd_body(carry, _):
        p, s = carry
        u, s = opt.update(jax.grad(loss)(p), s, p)
        p = optax.apply_updates(p, u)
        return (p, s), rel(p)

    (p_rgd, _), rgd_err = jax.lax.scan(rgd_body, (start, opt.init(start)), None, length=spec.rgd_steps)

    def rgn_body(p, _):
        p = rgn_step(op, y, *p)
        return p, rel(p)

    p_rgn, rgn_err = jax.lax.scan(rgn_body, start, None, length=spec.rgn_steps)

    def als_body(p, _):
        p = cp_als_sweep(op, y, *p)
        return p, rel(p)

    _, als_err = jax.lax.scan(als_body, start, None, length=spec.als_sweeps)
    init = hosvd_init(op, y, spec.r)
    p_sp, _ = jax.lax.scan(als_body, init, None, length=spec.als_sweeps)
    j = op.design(tangent_basis(fac_s))
    eig = jnp.linalg.eigvalsh(j.T @ j / spec.n)
    e0 = rel(start)[None]
    return {
        "rgd_error": jnp.concatenate([e0, rgd_err]),
        "rgn_error": jnp.concatenate([e0, rgn_err]),
        "als_error": jnp.concatenate([e0, als_err]),
        "rgn_sq_error": jnp.sum(jnp.square(segre_tensor(*p_rgn) - t_star)),
        "rgd_sq_error": jnp.sum(jnp.square(segre_tensor(*p_rgd) - t_star)),
        "truth_norm": ref,
        "spectral_error": rel(init),
        "spectral_als_error": rel(p_sp),
        "gn_eig_min": eig[0],
        "gn_eig_max": eig[-1],
    }


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=SegreSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={"rgd_error": ("rgd_iter",), "rgn_error": ("rgn_iter",), "als_error": ("als_sweep",)},
    coords=lambda spec: {
        "rgd_iter": list(range(spec.rgd_steps + 1)),
        "rgn_iter": list(range(spec.rgn_steps + 1)),
        "als_sweep": list(range(spec.als_sweeps + 1)),
    },
)
