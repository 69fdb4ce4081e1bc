"""Decentralized stochastic minimax: doubly smoothed GDA with gradient tracking.

``n`` agents on a graph hold copies :math:`x_i, y_i` (agents on the leading axis,
``X`` of shape ``(n, d_x)``) of the variables of
:math:`\\min_x\\max_y \\frac1n\\sum_i f_i(x, y)` with a test family whose primal
function is exact,

.. math::

    f_i(x, y) = g(x) + y^\\top(B_i x - c_i) - \\frac\\mu2\\lVert y\\rVert^2, \\qquad
    g(x) = \\frac{a}{2}\\lVert x\\rVert^2 + b\\sum_k \\cos x_k,

so :math:`\\Phi(x) = g(x) + \\lVert\\bar Bx - \\bar c\\rVert^2/(2\\mu)` exactly
(:func:`jaxtheory.oracles.regularized_bilinear` of the agents' averages; :math:`a = 0.1`,
:math:`b` = ``cos_amp`` = 2 by default, ``cos_amp = 0`` is a quadratic :math:`g`). One
step of agent :math:`i` (gradient tracking, gossip :math:`W`, the smoothing of
:func:`jaxtheory.optim.doubly_smoothed_gda`, one step size :math:`\\eta` for both
players):

.. math::

    z_i \\leftarrow z_i + \\beta(x_i - z_i), \\quad v_i \\leftarrow v_i + \\beta(y_i - v_i),

    x_i^+ = \\textstyle\\sum_j W_{ij}x_j - \\eta\\big(u_i + r(x_i - z_i)\\big), \\qquad
    y_i^+ = \\textstyle\\sum_j W_{ij}y_j + \\eta\\big(w_i - r(y_i - v_i)\\big),

    u_i^+ = \\textstyle\\sum_j W_{ij}u_j + d^x_i(x^+, y^+) - d^x_i(x, y), \\qquad
    w_i^+ = \\textstyle\\sum_j W_{ij}w_j + d^y_i(x^+, y^+) - d^y_i(x, y),

with :math:`d_i` the local gradient estimates: :math:`\\nabla f_i + \\sigma\\xi` with fresh
:math:`\\xi \\sim N(0, I)` per agent and step, or STORM's
:math:`d^+ = \\nabla f_i(s^+) + \\sigma\\xi + (1 - \\rho)(d - \\nabla f_i(s) - \\sigma\\xi)`
(the same sample at both points; ``storm_rho = 1`` is plain). The baseline D-SGDA-GT is
the same code at :math:`r = \\beta = 0` (``algo`` 1). :math:`r` = ``r_scale`` · L and
:math:`\\beta` = ``beta_scale`` · :math:`\\eta r` (capped at 1), with
:math:`L = \\max(a + b, \\lVert\\bar B\\rVert = 1)` and :math:`\\mu = L/\\kappa`.

The instance is drawn from the lane's key: :math:`\\bar B` Gaussian scaled to spectral
norm 1, :math:`B_i = \\bar B + h E_i/\\sqrt{d_x}` with :math:`E_i` Gaussian and centred
over agents (so :math:`\\frac1n\\sum_i B_i = \\bar B` exactly), :math:`\\bar c \\sim N(0, I)`
and :math:`c_i = \\bar c + h e_i` (centred), :math:`x_0 \\sim N(0, I)` shared by all agents,
:math:`y_0 = 0`.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.divergence import guarded_scan
from jaxtheory.optim import doubly_smoothed_gda
from jaxtheory.sims.decentralized.graphs import gossip, mixing_matrix
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = ["ALGOS", "DEFAULT_PARAMS", "CURVATURE", "MinimaxSpec", "SIMULATOR", "instance", "run"]

#: Names of the ``algo`` codes: 0 DS-GDA with tracking, 1 D-SGDA-GT (r = β = 0).
ALGOS = ("ds-gda", "d-sgda-gt")
#: The quadratic part :math:`a` of :math:`g` (``‖x‖²/20``: a = 0.1).
CURVATURE = 0.1

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "algo": 0,
    "kappa": 10.0,
    "eta": 0.05,
    "r_scale": 1.0,
    "beta_scale": 3.0,
    "sigma": 0.0,
    "storm_rho": 1.0,
    "cos_amp": 2.0,
    "hetero": 0.3,
    "instance": -1,
}


@dataclasses.dataclass(frozen=True)
class MinimaxSpec:
    """What fixes the shapes of a decentralized minimax run (the compile key).

    Attributes:
        agents: number of agents :math:`n`.
        dim_x: dimension of :math:`x`.
        dim_y: dimension of :math:`y`.
        steps: horizon :math:`T` (a multiple of ``record_every``).
        record_every: the curves are recorded every this many steps.
        graph: kind of graph (:data:`~jaxtheory.sims.decentralized.graphs.GRAPHS`).
        eps: the accuracies whose first hitting steps are recorded.
    """

    agents: int = 8
    dim_x: int = 20
    dim_y: int = 10
    steps: int = 3000
    record_every: int = 25
    graph: str = "ring"
    eps: tuple = (1e-2, 1e-3)

    def __post_init__(self):
        if self.steps % self.record_every:
            raise ValueError(f"steps ({self.steps}) must be a multiple of record_every ({self.record_every})")

    @property
    def mixing(self) -> np.ndarray:
        """The Metropolis mixing matrix of ``graph`` on ``agents`` nodes (float64)."""
        return mixing_matrix(self.graph, self.agents)


def instance(spec: MinimaxSpec, hetero, key: jax.Array) -> dict:
    """The lane's problem instance: ``B`` (n, d_y, d_x), ``c`` (n, d_y), ``x0`` (d_x,).

    Args:
        spec: a :class:`MinimaxSpec`.
        hetero: heterogeneity :math:`h` (may be traced).
        key: the instance key.

    Returns:
        A dict with ``B``, ``c`` (per agent; their agent means are ``B_bar``, ``c_bar``)
        and ``x0``, float32.

    Example:
        >>> import jax
        >>> inst = instance(MinimaxSpec(), 0.3, jax.random.key(0))
        >>> inst["B"].shape, round(float(jnp.linalg.norm(inst["B_bar"], 2)), 4)
        ((8, 10, 20), 1.0)
    """
    n, dx, dy = spec.agents, spec.dim_x, spec.dim_y
    k1, k2, k3, k4, k5 = jax.random.split(key, 5)
    b = jax.random.normal(k1, (dy, dx))
    b = b / jnp.linalg.norm(b, 2)
    e = jax.random.normal(k2, (n, dy, dx)) / jnp.sqrt(float(dx))
    e = e - e.mean(0)
    c = jax.random.normal(k3, (dy,))
    ec = jax.random.normal(k4, (n, dy))
    ec = ec - ec.mean(0)
    return {
        "B": b + hetero * e,
        "c": c + hetero * ec,
        "B_bar": b,
        "c_bar": c,
        "x0": jax.random.normal(k5, (dx,)),
    }


def run(spec: MinimaxSpec, params: dict, key: jax.Array) -> dict:
    """One decentralized run of DS-GDA (or D-SGDA-GT); pure, jittable and vmappable.

    Args:
        spec: a :class:`MinimaxSpec`.
        params: ``algo`` (code into :data:`ALGOS`), ``kappa``, ``eta``, ``r_scale``,
            ``beta_scale``, ``sigma``, ``storm_rho``, ``cos_amp``, ``hetero`` (see the
            module docs) and ``instance`` (-1: the instance is drawn from the lane's key;
            ``k >= 0``: from ``jax.random.key(k)``, the same for every seed, so seeds
            vary the gradient noise only); scalars, may be traced.
        key: the lane's PRNG key: the instance from ``fold_in(key, 0)`` (unless
            ``instance`` fixes it), the noise of step :math:`t` from
            ``fold_in(fold_in(key, 1), t + 1)``.

    Returns:
        ``grad_phi`` :math:`\\lVert\\nabla\\Phi(\\bar x_t)\\rVert` and ``consensus``
        :math:`\\frac1n\\sum_i\\lVert x_i - \\bar x\\rVert^2` every ``record_every`` steps
        (dim ``step``), ``final_grad_phi`` (at :math:`T`), ``hit_step`` (dim ``eps``:
        the first step with :math:`\\lVert\\nabla\\Phi(\\bar x_t)\\rVert \\le \\varepsilon`,
        NaN if never), ``consensus_avg`` (mean of the consensus error over steps
        :math:`T/2 < t \\le T`), ``gt_dev`` (the number of entries, over the run, where
        the update differs from D-SGDA-GT's :math:`(-\\eta u, +\\eta w)` written out and fed
        the same state: 0 at :math:`r = \\beta = 0`, bit for bit) and
        ``diverged_step`` (-1 when finite).

    Example:
        >>> import jax
        >>> out = run(MinimaxSpec(steps=100), DEFAULT_PARAMS, jax.random.key(0))
        >>> out["grad_phi"].shape, out["hit_step"].shape, int(out["diverged_step"])
        ((4,), (2,), -1)
    """
    n, dx, dy = spec.agents, spec.dim_x, spec.dim_y
    W = jnp.asarray(spec.mixing, jnp.float32)
    fixed = jnp.asarray(params["instance"], jnp.int32)
    inst_key = jax.random.wrap_key_data(
        jnp.where(
            fixed >= 0,
            jax.random.key_data(jax.random.key(jnp.maximum(fixed, 0))),
            jax.random.key_data(jax.random.fold_in(key, 0)),
        )
    )
    inst = instance(spec, params["hetero"], inst_key)
    noise_key = jax.random.fold_in(key, 1)
    B, c, B_bar, c_bar = inst["B"], inst["c"], inst["B_bar"], inst["c_bar"]
    amp = params["cos_amp"]
    L = jnp.maximum(CURVATURE + amp, 1.0)
    mu = L / params["kappa"]
    smooth = (jnp.asarray(params["algo"]) == 0).astype(jnp.float32)
    eta = params["eta"]
    r = params["r_scale"] * L * smooth
    beta = jnp.minimum(params["beta_scale"] * eta * r, 1.0)
    sigma, rho = params["sigma"], params["storm_rho"]
    opt = doubly_smoothed_gda(eta, r, beta)
    eps = jnp.asarray(spec.eps, jnp.float32)

    def grads(X, Y):
        gx = CURVATURE * X - amp * jnp.sin(X) + jnp.einsum("nij,ni->nj", B, Y)
        gy = jnp.einsum("nij,nj->ni", B, X) - c - mu * Y
        return gx, gy

    def grad_phi_norm(X):
        xb = X.mean(0)
        res = B_bar @ xb - c_bar
        gphi = CURVATURE * xb - amp * jnp.sin(xb) + B_bar.T @ res / mu
        return jnp.sqrt(jnp.sum(gphi**2)), jnp.mean(jnp.sum((X - xb) ** 2, axis=1))

    X0 = jnp.broadcast_to(inst["x0"], (n, dx))
    Y0 = jnp.zeros((n, dy))
    Gx0, Gy0 = grads(X0, Y0)
    k0x, k0y = jax.random.split(jax.random.fold_in(noise_key, 0))
    Dx0 = Gx0 + sigma * jax.random.normal(k0x, (n, dx))
    Dy0 = Gy0 + sigma * jax.random.normal(k0y, (n, dy))
    half = spec.steps // 2

    def one(carry, t):
        X, Y, st, U, Om, Dx, Dy, Gx, Gy, hit, cons_sum, dev = carry
        WX, WY = gossip(W, X), gossip(W, Y)
        (dX, dY), st = opt.update((U, Om), st, (X, Y))
        Xn, Yn = WX + dX, WY + dY
        # the update against D-SGDA-GT's (−ηu, +ηw) written out, on the same state: a count
        # of unequal entries (a difference could be contracted into an FMA, which would
        # show the product's rounding error instead of comparing the rounded values)
        dev = dev + jnp.sum(dX != -eta * U) + jnp.sum(dY != eta * Om)
        Gxn, Gyn = grads(Xn, Yn)
        kx, ky = jax.random.split(jax.random.fold_in(noise_key, t + 1))
        xi_x = sigma * jax.random.normal(kx, (n, dx))
        xi_y = sigma * jax.random.normal(ky, (n, dy))
        # STORM on the same sample at both points; rho = 1 leaves the plain estimate
        Dxn = (Gxn + xi_x) + (1.0 - rho) * (Dx - (Gx + xi_x))
        Dyn = (Gyn + xi_y) + (1.0 - rho) * (Dy - (Gy + xi_y))
        Un = gossip(W, U) + Dxn - Dx
        Omn = gossip(W, Om) + Dyn - Dy
        gnorm, cons = grad_phi_norm(Xn)
        hit = jnp.where((hit < 0) & (gnorm <= eps), t + 1, hit)
        cons_sum = cons_sum + jnp.where(t + 1 > half, cons, 0.0)
        return (Xn, Yn, st, Un, Omn, Dxn, Dyn, Gxn, Gyn, hit, cons_sum, dev), (gnorm, cons)

    def block(carry, b):
        ts = b * spec.record_every + jnp.arange(spec.record_every)
        carry, (g, cs) = jax.lax.scan(one, carry, ts)
        return carry, (g[-1], cs[-1])

    init = (
        X0,
        Y0,
        opt.init((X0, Y0)),
        Dx0,
        Dy0,
        Dx0,
        Dy0,
        Gx0,
        Gy0,
        jnp.full(eps.shape, -1, jnp.int32),
        jnp.float32(0.0),
        jnp.int32(0),
    )
    nb = spec.steps // spec.record_every
    final, (gcurve, ccurve), div = guarded_scan(block, init, jnp.arange(nb))
    bad = div >= 0
    nan = jnp.float32(jnp.nan)
    return {
        "grad_phi": gcurve,
        "consensus": ccurve,
        "final_grad_phi": jnp.where(bad, nan, gcurve[-1]),
        "hit_step": jnp.where(final[9] >= 0, final[9].astype(jnp.float32), nan),
        "consensus_avg": jnp.where(bad, nan, final[10] / (spec.steps - half)),
        "gt_dev": final[11],
        "diverged_step": div,
    }


#: The simulator's declaration: ``algo`` is categorical (labels :data:`ALGOS`); the curves
#: are recorded every ``record_every`` steps, the hitting times per accuracy ``eps``.
SIMULATOR = Simulator(
    run,
    spec=MinimaxSpec(),
    params={**DEFAULT_PARAMS, "algo": categorical(*ALGOS)},
    metric_dims={"grad_phi": ("step",), "consensus": ("step",), "hit_step": ("eps",)},
    coords=lambda spec: {
        "step": np.arange(1, spec.steps // spec.record_every + 1) * spec.record_every,
        "eps": np.asarray(spec.eps, float),
    },
)
