r"""DMFT of a one-hidden-layer soft-routing MoE (regime I) and its finite-width counterpart.

The smallest tractable case of the limit that arXiv 2605.14200 (Chennuru Vankadara,
Haas et al., "How to Scale Mixture-of-Experts: From μP to the Maximally Scale-Stable
Parameterization") describes by dynamical mean field theory: **regime I**, expert width
:math:`N_e = N \to \infty` with a fixed number :math:`M` of experts, **soft routing**,
**sigmoid gates** and a **zero-initialised router** (MSSP, regime I), one hidden layer
per expert, trained by **full-batch gradient descent** on :math:`P` fixed inputs in the
mean-field / μP scaling of Bordelon & Pehlevan 2022 ("Self-Consistent Dynamical Field
Theory of Kernel Evolution in Wide Neural Networks", arXiv 2205.09653).

**Model.** Inputs :math:`x_\mu \in \mathbb R^d` (:math:`\mu = 1..P`), targets
:math:`y_\mu`, input kernel :math:`K_x = X X^\top / d`. Expert :math:`m` has :math:`N`
neurons :math:`(w_{mi} \in \mathbb R^d, a_{mi} \in \mathbb R)`, the router one vector
:math:`q_m \in \mathbb R^d` per expert:

.. math::
    f(x) = \frac{1}{\gamma_0} \sum_{m=1}^M g_m(x)\, e_m(x), \qquad
    e_m(x) = \frac1N \sum_{i=1}^N a_{mi}\, \phi(h_{mi}(x)), \qquad
    h_{mi}(x) = \frac{w_{mi}\cdot x}{\sqrt d}, \qquad
    g_m(x) = \sigma\!\Big(z_m(x)\Big),\; z_m(x) = \frac{q_m \cdot x}{\sqrt d},

with :math:`w_{mi} \sim N(0, I_d)`, :math:`a_{mi} \sim N(0, 1)`, :math:`q_m = 0` (or a
*quenched* draw of standard deviation ``router_std``, the same at every width), loss
:math:`L = \frac1{2P} \sum_\mu \Delta_\mu^2`, :math:`\Delta = y - f`, and plain GD with
per-layer learning rates :math:`\eta\gamma_0^2 N` for :math:`w, a` (mean-field / μP:
every neuron's field moves :math:`\Theta(\gamma_0)`) and :math:`\eta\gamma_0^2` for the
router (its input :math:`x` has fixed dimension :math:`d`, so its logits move
:math:`\Theta(1)` with an :math:`N`-independent rate). :math:`\gamma_0` is the
feature-learning strength; :math:`\gamma_0 \to 0` is the lazy (NTK) limit.

**Field equations (exact at every N).** With :math:`r_{m,t} = \frac{\eta\gamma_0}{P}\,
\Delta_t \odot g_{m,t} \in \mathbb R^P` on the training points, one GD step is

.. math::
    a_{t+1} &= a_t + \textstyle\sum_\mu r_{m,t}(\mu)\, \phi(h_t(x_\mu)), \\
    h_{t+1}(x_\nu) &= h_t(x_\nu) + \textstyle\sum_\mu K_x(\nu,\mu)\, r_{m,t}(\mu)\,
        a_t\, \phi'(h_t(x_\mu)), \\
    z_{m,t+1}(x_\nu) &= z_{m,t}(x_\nu) + \tfrac{\eta\gamma_0}{P} \textstyle\sum_\mu
        K_x(\nu,\mu)\, \Delta_t(\mu)\, \sigma'(z_{m,t}(x_\mu))\, e_{m,t}(x_\mu).

(From :math:`\partial L/\partial a_{mi} = -\frac{1}{\gamma_0 N P}\sum_\mu \Delta_\mu
g_{m\mu}\phi(h_{mi\mu})` times the rate :math:`\eta\gamma_0^2 N`; the :math:`w` step is
:math:`\eta\gamma_0 \frac1P \sum_\mu \Delta_\mu g_{m\mu} a_{mi} \phi'(h_{mi\mu})
x_\mu/\sqrt d`, and :math:`h(x_\nu) = w\cdot x_\nu/\sqrt d` turns :math:`x_\mu \cdot
x_\nu / d` into :math:`K_x(\nu, \mu)`; likewise for :math:`q_m`.) A neuron's state
:math:`(h(x_1..x_P), a)` is a closed :math:`(P{+}1)`-vector: the neurons interact only
through the shared error :math:`\Delta_t` and the router, both functions of the
expert means :math:`e_{m,t}`.

**DMFT (N → ∞).** By the law of large numbers :math:`e_{m,t} \to
\mathbb E[a_t\,\phi(h_t)]` over the single-site process above, started from
:math:`h_0 = u \sim N(0, K_x)` (the Gaussian field on the :math:`P` points) and
:math:`a_0 \sim N(0,1)` independent; :math:`\Delta_t`, :math:`g_{m,t}`, :math:`z_{m,t}`
become deterministic, and :math:`f_0 = \mathbb E[a_0]\mathbb E[\phi(u)]/\gamma_0 = 0`.
The solver (:func:`solve`) follows Bordelon & Pehlevan's alternating Monte Carlo:

1. draw :math:`S` sites :math:`(u, a_0)` per expert (:func:`draw_sites`, eigh of
   :math:`K_x`: the data enter only through :math:`K_x` and :math:`y`);
2. given a trajectory :math:`\Delta_{0..T-1}`, evolve every site and the router over
   :math:`T` steps (:func:`evolve`) and estimate
   :math:`e_{m,t} = \widehat{\mathbb E}[a_t\phi(h_t) - a_0\phi(u)]` (the control variate
   :math:`a_0\phi(u)` has mean exactly 0 in the limit and removes the
   :math:`O(S^{-1/2}/\gamma_0)` noise of the initial output, so the estimator's error is
   :math:`O(S^{-1/2})` uniformly in :math:`\gamma_0`);
3. :math:`\Delta^{\rm new}_t = y - f_t`, damped update
   :math:`\Delta \leftarrow (1-\beta)\Delta + \beta\Delta^{\rm new}` (projected onto
   :math:`\|\Delta_t\| \le 2\|y\|`, a trust region that contains the GD solution),
   until the relative residual :math:`\|\Delta^{\rm new} - \Delta\| / \|y\|` falls
   below ``tol``; the residual and iteration count are returned, so a solve that did
   not converge says so.

The iteration starts from the lazy solution :math:`\Delta_t = (I - \eta K_0/P)^t y`.
Because the single-site map is causal, the fixed point is the trajectory obtained by
computing :math:`\Delta_t` on the fly (``closed_loop=True`` in :func:`evolve`), which
the tests check. With ``centered=False`` and the sites set to a network's own neurons
(:math:`u = X w/\sqrt d`), :func:`evolve` reproduces that width-:math:`N` network's GD
exactly: the finite network is the :math:`S = N` particle system of the same
equations, without the :math:`f_0 = 0` centering.

**Lazy limit.** As :math:`\gamma_0 \to 0` the fields move :math:`O(\gamma_0)`, the
router does not move, and :math:`f_{t+1} = f_t + \frac\eta P K_0 \Delta_t` with the
initial NTK

.. math::
    K_0 = \sum_m (g_{m,0} g_{m,0}^\top) \odot \big(\Phi_0 + G_0 \odot K_x\big), \quad
    \Phi_0 = \mathbb E[\phi(u)\phi(u)^\top], \; G_0 = \mathbb E[\phi'(u)\phi'(u)^\top]

(:func:`initial_ntk`, by Gauss–Hermite quadrature), so
:math:`\Delta_t = (I - \eta K_0/P)^t y` (:func:`lazy_loss`).

**Linear experts.** For :math:`\phi(h) = h` the step is linear in the site state,
:math:`v_{t+1} = A_{m,t} v_t` with :math:`A = \begin{pmatrix} I & K_x r \\ r^\top & 1
\end{pmatrix}`, so the second moment :math:`C_{m,t} = \mathbb E[v v^\top]` closes:
:math:`C_{t+1} = A C_t A^\top`, :math:`e_{m,t} = C_{m,t}[{:}P, P]`
(:func:`linear_dmft`): the DMFT of the linear case is algebraic, as in Bordelon &
Pehlevan's deep-linear reduction.

**Finite width** (:func:`network_run`): the same network at width :math:`N` in weight
space (``jax.grad``), the same rates and steps. At zero router init the :math:`M`
experts are exchangeable, so in the limit they follow one deterministic trajectory;
finite width breaks the symmetry by :math:`O(N^{-1/2})` fluctuations, which is also
the size of a finite-width loss curve's distance from the DMFT curve (the initial
output alone is :math:`f_0 = O(1/(\gamma_0\sqrt N))`).
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.divergence import guarded_scan
from jaxtheory.sims.nets import ntk as _ntk
from jaxtheory.sims.nets.ntk import activation, initial_ntk, lazy_loss
from jaxtheory.simulator import Simulator

#: Nonlinearities φ available by name, those of :data:`jaxtheory.sims.nets.ntk.ACTIVATIONS`
#: (the DMFT quadrature assumes a smooth φ: ``relu`` runs but its accuracy is not checked).
ACTIVATIONS = _ntk.ACTIVATIONS

__all__ = [
    "DMFT_WIDTH",
    "ACTIVATIONS",
    "MoEDMFTSpec",
    "DEFAULT_PARAMS",
    "activation",
    "make_data",
    "router_init",
    "draw_sites",
    "evolve",
    "solve",
    "network_init",
    "network_run",
    "run",
    "initial_ntk",
    "lazy_loss",
    "linear_dmft",
]

#: The ``width`` value that selects the N = ∞ DMFT solve in :func:`run`.
DMFT_WIDTH = 0


@dataclasses.dataclass(frozen=True)
class MoEDMFTSpec:
    """Shapes of a DMFT solve or a finite-width run.

    Attributes:
        num_points: number of training inputs :math:`P`.
        dim: input dimension :math:`d`.
        experts: number of experts :math:`M` (fixed: regime I).
        steps: GD steps :math:`T`; losses are recorded at :math:`t = 0..T`.
        width: expert width :math:`N`; :data:`DMFT_WIDTH` (0) means :math:`N = \\infty`
            (the DMFT solve).
        sites: Monte Carlo single sites :math:`S` per expert in the DMFT.
        max_iters: most damped fixed-point iterations of the DMFT.
        activation: expert nonlinearity φ, one of :data:`ACTIVATIONS`.
        data_seed: seed of the inputs, the teacher and the quenched router draw (the
            same for every lane, width and seed).
    """

    num_points: int = 8
    dim: int = 8
    experts: int = 2
    steps: int = 100
    width: int = DMFT_WIDTH
    sites: int = 4096
    max_iters: int = 100
    activation: str = "tanh"
    data_seed: int = 0


#: Default parameters of :func:`run`: step η, feature-learning strength γ₀, DMFT damping
#: β and relative residual tolerance, and the router's (quenched) init scale.
DEFAULT_PARAMS = {"eta": 1.0, "gamma0": 1.0, "damping": 0.7, "tol": 1e-5, "router_std": 0.0}


def _jitted(*static):
    """Compile the whole function once per static arguments (one program, not op by op
    when called eagerly; inlined when called under an outer ``jit``/``vmap``)."""

    def deco(fn):
        compiled = jax.jit(fn, static_argnames=static)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return compiled(*args, **kwargs)

        return wrapper

    return deco


def _float():
    return jnp.zeros(()).dtype  # float64 inside jax.enable_x64(True), else float32


def make_data(spec: MoEDMFTSpec):
    """Inputs, teacher targets and input kernel of the task (fixed by ``data_seed``).

    Drawn with numpy's ``default_rng(data_seed)`` (constants under ``jit``):

    .. math::
        x_\\mu \\sim N(0, I_d), \\quad y_\\mu = \\tanh(2\\, v\\cdot x_\\mu/\\sqrt d),\\;
        v \\sim N(0, I_d), \\quad K_x = X X^\\top / d.

    Args:
        spec: :class:`MoEDMFTSpec` (``num_points``, ``dim``, ``data_seed``).

    Returns:
        ``(X, y, Kx)`` of shapes ``(P, d)``, ``(P,)``, ``(P, P)``.

    Example:
        >>> X, y, Kx = make_data(MoEDMFTSpec(num_points=4, dim=3))
        >>> X.shape, y.shape, Kx.shape
        ((4, 3), (4,), (4, 4))
    """
    rng = np.random.default_rng(spec.data_seed)  # numpy: constants under jit, no PRNG to compile
    X = rng.standard_normal((spec.num_points, spec.dim))
    v = rng.standard_normal(spec.dim)
    dt = _float()
    X = jnp.asarray(X, dt)
    y = jnp.tanh(2.0 * X @ jnp.asarray(v, dt) / np.sqrt(spec.dim))
    return X, y, X @ X.T / spec.dim


def router_init(spec: MoEDMFTSpec, X, router_std):
    """Initial router logits :math:`z_{m,0}(x_\\mu) = q_m\\cdot x_\\mu/\\sqrt d` (quenched).

    :math:`q_m = \\texttt{router\\_std}\\cdot \\xi_m`, :math:`\\xi_m \\sim N(0, I_d)` from
    ``data_seed``: the same draw at every width and in the DMFT (zero for MSSP regime I).

    Args:
        spec: :class:`MoEDMFTSpec`.
        X: inputs ``(P, d)``.
        router_std: scale of the router init (0 for MSSP).

    Returns:
        ``(q, z0)`` of shapes ``(M, d)`` and ``(M, P)``.

    Example:
        >>> spec = MoEDMFTSpec(num_points=4, dim=3)
        >>> q, z0 = router_init(spec, make_data(spec)[0], 0.0)
        >>> q.shape, z0.shape, float(abs(z0).max())
        ((2, 3), (2, 4), 0.0)
    """
    xi = np.random.default_rng([spec.data_seed, 7]).standard_normal((spec.experts, spec.dim))
    xi = jnp.asarray(xi, X.dtype)
    q = router_std * xi
    return q, q @ X.T / np.sqrt(spec.dim)


@_jitted("experts", "sites")
def draw_sites(key, Kx, experts: int, sites: int):
    """Single sites of the DMFT: Gaussian fields on the P points and readout weights.

    :math:`u = V \\Lambda_+^{1/2} \\xi \\sim N(0, K_x)` (eigh of :math:`K_x`, negative
    eigenvalues clipped) and :math:`a_0 \\sim N(0,1)`, independent, per expert and site.

    Args:
        key: PRNG key.
        Kx: input kernel ``(P, P)``.
        experts: :math:`M`.
        sites: :math:`S`.

    Returns:
        ``(u, a0)`` of shapes ``(M, P, S)`` (one column per site) and ``(M, S)``.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> u, a0 = draw_sites(jax.random.key(0), jnp.eye(3), 2, 5)
        >>> u.shape, a0.shape
        ((2, 3, 5), (2, 5))
    """
    lam, V = jnp.linalg.eigh(Kx)
    root = V * jnp.sqrt(jnp.clip(lam, 0.0))[None, :]
    P = Kx.shape[0]
    # one flat draw (u-noise, a0); flat draws compile far faster than n-d ones on CPU
    xi = jax.random.normal(key, (experts * (P + 1) * sites,), Kx.dtype)
    xi = xi.reshape(experts, P + 1, sites)
    return jnp.einsum("pq,mqs->mps", root, xi[:, :P]), xi[:, P]


@_jitted("act", "centered", "closed_loop")
def evolve(
    u,
    a0,
    z0,
    Kx,
    y,
    delta,
    eta,
    gamma0,
    act: str = "tanh",
    *,
    centered: bool = True,
    closed_loop: bool = False,
):
    """Evolve the single sites and the router for T GD steps given the error trajectory.

    One step (all sites of expert :math:`m` at once, :math:`r = \\frac{\\eta\\gamma_0}{P}
    \\Delta_t \\odot \\sigma(z_{m,t})`):

    .. math::
        a \\mathrel{+}= \\phi(h)\\, r, \\quad
        h \\mathrel{+}= (a\\, \\phi'(h) \\odot r) K_x, \\quad
        z_m \\mathrel{+}= \\tfrac{\\eta\\gamma_0}{P} (\\Delta_t \\odot \\sigma'(z_m)
        \\odot e_m) K_x,

    with :math:`e_{m} = \\frac1S\\sum_s [a_s\\phi(h_s) - c\\, a_{0s}\\phi(u_s)]`
    (:math:`c = 1` when ``centered``) and :math:`f = \\frac1{\\gamma_0}\\sum_m \\sigma(z_m)
    \\odot e_m`.

    Args:
        u, a0: initial fields ``(M, P, S)`` and readouts ``(M, S)``.
        z0: initial router logits ``(M, P)``.
        Kx, y: input kernel ``(P, P)`` and targets ``(P,)``.
        delta: error trajectory ``(T, P)`` used in the updates (ignored, except for its
            length, when ``closed_loop``).
        eta, gamma0: step η and feature-learning strength γ₀.
        act: nonlinearity name (:data:`ACTIVATIONS`).
        centered: subtract the control variate :math:`a_0\\phi(u)` (the DMFT's
            :math:`f_0 = 0`); ``False`` gives the plain particle average.
        closed_loop: use :math:`\\Delta_t = y - f_t` computed on the fly instead of
            ``delta``.

    Returns:
        ``(f, z, diverged_step)``: outputs ``(T+1, P)`` at :math:`t = 0..T`, router logits
        ``(T+1, M, P)``, and the first non-finite step (-1 if none).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> Kx, y = jnp.eye(3), jnp.array([1.0, -1.0, 0.5])
        >>> u, a0 = draw_sites(jax.random.key(0), Kx, 2, 5)
        >>> f, z, div = evolve(u, a0, jnp.zeros((2, 3)), Kx, y, jnp.zeros((4, 3)), 0.5, 1.0,
        ...                    closed_loop=True)
        >>> f.shape, z.shape, int(div), bool(abs(f[0]).max() < 1e-6)   # f_0 = 0 (centred)
        ((5, 3), (5, 2, 3), -1, True)
    """
    phi, dphi = activation(act)
    P = Kx.shape[0]
    S = u.shape[-1]
    base = a0[:, None, :] * phi(u) if centered else jnp.zeros_like(u)
    c = eta * gamma0 / P

    def output(h, a, z):
        e = jnp.sum(a[:, None, :] * phi(h) - base, axis=-1) / S
        g = jax.nn.sigmoid(z)
        return jnp.sum(g * e, axis=0) / gamma0, e, g

    def step(carry, d_t):
        h, a, z = carry
        f, e, g = output(h, a, z)
        D = y - f if closed_loop else d_t
        r = c * D[None, :] * g  # (M, P)
        a_new = a + jnp.sum(phi(h) * r[:, :, None], axis=1)
        h_new = h + jnp.einsum("pq,mqs->mps", Kx, a[:, None, :] * dphi(h) * r[:, :, None])
        z_new = z + c * (D[None, :] * g * (1.0 - g) * e) @ Kx
        return (h_new, a_new, z_new), (f, z)

    (h, a, z), (fs, zs), div = guarded_scan(step, (u, a0, z0), delta)
    f_T = output(h, a, z)[0]
    return (jnp.concatenate([fs, f_T[None]], 0), jnp.concatenate([zs, z[None]], 0), div)


_RADIUS = 2.0


def _loss(y, f):
    return 0.5 * jnp.mean((y[None, :] - f) ** 2, axis=-1)


@_jitted("spec")
def solve(spec: MoEDMFTSpec, params: dict, key):
    """DMFT loss curve by damped fixed-point iteration on the error trajectory.

    Iterates :math:`\\Delta \\leftarrow (1-\\beta)\\Delta + \\beta\\,(y - f[\\Delta])`
    (:func:`evolve` with ``S`` centred sites per expert), from the lazy solution
    :math:`\\Delta_t = (I - \\eta K_0/P)^t y`, with each trial projected onto
    :math:`\\|\\Delta_t\\| \\le 2\\|y\\|` (GD keeps :math:`\\|\\Delta_t\\| \\le \\|y\\|`, so the fixed
    point is untouched, while an open-loop pass along a wrong trial cannot overflow the
    next; without it the linear-expert iteration diverges), until
    :math:`\\|y - f[\\Delta] - \\Delta\\| \\le \\texttt{tol}\\,\\|y\\|` (RMS over steps
    and points) or ``max_iters``.

    Args:
        spec: :class:`MoEDMFTSpec` (``sites``, ``max_iters``, shapes).
        params: ``eta``, ``gamma0``, ``damping``, ``tol``, ``router_std``.
        key: PRNG key of the sites.

    Returns:
        ``loss`` ``(T+1,)`` (:math:`\\frac1{2P}\\|y - f_t\\|^2`), ``final_loss``,
        ``residual`` (relative, of the last iterate), ``iterations``, ``router_spread``
        (:math:`\\max_t` RMS over points of the router logits' spread across experts),
        ``diverged_step``.

    Example:
        >>> import jax
        >>> spec = MoEDMFTSpec(num_points=4, dim=4, steps=10, sites=256)
        >>> out = solve(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["loss"].shape, bool(out["residual"] < 1e-5), int(out["diverged_step"])
        ((11,), True, -1)
    """
    X, y, Kx = make_data(spec)
    _, z0 = router_init(spec, X, params["router_std"])
    u, a0 = draw_sites(key, Kx, spec.experts, spec.sites)
    eta, gamma0, beta = params["eta"], params["gamma0"], params["damping"]
    K0 = initial_ntk(Kx, z0, spec.activation)
    A = jnp.eye(spec.num_points, dtype=Kx.dtype) - eta * K0 / spec.num_points

    def lazy(d, _):
        return A @ d, d

    _, delta0 = jax.lax.scan(lazy, y, None, length=spec.steps)
    ynorm = jnp.sqrt(jnp.mean(y**2))

    def body(c):
        k, delta, _, _, _, _ = c
        f, z, div = evolve(u, a0, z0, Kx, y, delta, eta, gamma0, spec.activation)
        new = y[None, :] - f[:-1]
        res = jnp.sqrt(jnp.mean((new - delta) ** 2)) / ynorm
        res = jnp.where(jnp.isfinite(res), res, jnp.inf)
        nxt = (1.0 - beta) * delta + beta * new
        # trust region: GD on the loss keeps ‖Δ_t‖ ≤ ‖y‖, so a trial beyond RADIUS·‖y‖ is
        # projected back; this leaves the fixed point alone and stops an open-loop pass
        # along a wrong Δ (fields growing without bound, e.g. linear experts) from
        # overflowing the next one
        norm = jnp.sqrt(jnp.sum(nxt**2, axis=1, keepdims=True))
        nxt = nxt * jnp.minimum(1.0, _RADIUS * ynorm * np.sqrt(spec.num_points) / (norm + 1e-30))
        return k + 1, nxt, res, f, z, div

    def cond(c):
        k, _, res, _, _, div = c
        return (k < spec.max_iters) & (res > params["tol"]) & (div < 0)

    f0 = jnp.zeros((spec.steps + 1, spec.num_points), Kx.dtype)
    zf = jnp.zeros((spec.steps + 1, spec.experts, spec.num_points), Kx.dtype)
    init = (jnp.int32(0), delta0, jnp.asarray(jnp.inf, Kx.dtype), f0, zf, jnp.int32(-1))
    k, _, res, f, z, div = jax.lax.while_loop(cond, body, init)
    loss = _loss(y, f)
    loss = jnp.where(div >= 0, jnp.where(jnp.arange(spec.steps + 1) >= div, jnp.nan, loss), loss)
    spread = jnp.sqrt(jnp.mean((z - z.mean(axis=1, keepdims=True)) ** 2, axis=(1, 2)))
    return {
        "loss": loss,
        "final_loss": loss[-1],
        "residual": res,
        "iterations": k,
        "router_spread": spread.max(),
        "diverged_step": div,
    }


def network_init(spec: MoEDMFTSpec, key, X, router_std):
    """Initial weights of the width-N network: :math:`w \\sim N(0, I_d)`, :math:`a \\sim N(0,1)`.

    Args:
        spec: :class:`MoEDMFTSpec` (``width`` > 0, ``experts``, ``dim``).
        key: PRNG key of the lane.
        X: inputs (for the quenched router, :func:`router_init`).
        router_std: router init scale.

    Returns:
        ``{"w": (M, N, d), "a": (M, N), "q": (M, d)}``.

    Example:
        >>> import jax
        >>> spec = MoEDMFTSpec(num_points=4, dim=3, width=5)
        >>> p = network_init(spec, jax.random.key(0), make_data(spec)[0], 0.0)
        >>> p["w"].shape, p["a"].shape, p["q"].shape
        ((2, 5, 3), (2, 5), (2, 3))
    """
    M, N, d = spec.experts, spec.width, spec.dim
    q, _ = router_init(spec, X, router_std)
    z = jax.random.normal(key, (M * N * (d + 1),), X.dtype).reshape(M, N, d + 1)  # (w, a)
    return {"w": z[..., :d], "a": z[..., d], "q": q}


def _net_forward(p, X, gamma0, phi):
    d = X.shape[1]
    h = jnp.einsum("mnd,pd->mnp", p["w"], X) / np.sqrt(d)
    e = jnp.einsum("mn,mnp->mp", p["a"], phi(h)) / p["a"].shape[1]
    g = jax.nn.sigmoid(p["q"] @ X.T / np.sqrt(d))
    return jnp.sum(g * e, axis=0) / gamma0


@_jitted("spec")
def network_run(spec: MoEDMFTSpec, params: dict, key, init=None):
    """Full-batch GD of the width-N soft-routing MoE in weight space (``jax.grad``).

    .. math::
        w, a \\leftarrow w, a - \\eta\\gamma_0^2 N\\, \\nabla_{w, a} L, \\qquad
        q \\leftarrow q - \\eta\\gamma_0^2\\, \\nabla_q L, \\qquad
        L = \\tfrac1{2P}\\textstyle\\sum_\\mu (y_\\mu - f(x_\\mu))^2.

    Args:
        spec: :class:`MoEDMFTSpec` with ``width`` = N > 0.
        params: ``eta``, ``gamma0``, ``router_std``.
        key: PRNG key of the lane (the weights).
        init: optional initial weights (:func:`network_init`), for tests.

    Returns:
        ``loss`` ``(T+1,)``, ``final_loss``, ``router_spread`` (as in :func:`solve`),
        ``diverged_step``.

    Example:
        >>> import jax
        >>> spec = MoEDMFTSpec(num_points=4, dim=4, steps=10, width=16)
        >>> out = network_run(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["loss"].shape, int(out["diverged_step"])
        ((11,), -1)
    """
    X, y, _ = make_data(spec)
    phi, _ = activation(spec.activation)
    p0 = network_init(spec, key, X, params["router_std"]) if init is None else init
    eta, gamma0 = params["eta"], params["gamma0"]
    lr_hidden = eta * gamma0**2 * spec.width
    lrs = {"w": lr_hidden, "a": lr_hidden, "q": eta * gamma0**2}

    def loss_fn(p):
        return 0.5 * jnp.mean((y - _net_forward(p, X, gamma0, phi)) ** 2)

    def step(p, _):
        loss, grads = jax.value_and_grad(loss_fn)(p)
        z = p["q"] @ X.T / np.sqrt(spec.dim)
        p = {k: p[k] - lrs[k] * grads[k] for k in p}
        return p, (loss, z)

    p, (losses, zs), div = guarded_scan(step, p0, None, length=spec.steps)
    z_T = p["q"] @ X.T / np.sqrt(spec.dim)
    zs = jnp.concatenate([zs, z_T[None]], 0)
    loss = jnp.concatenate([losses, loss_fn(p)[None]])
    loss = jnp.where(div >= 0, jnp.where(jnp.arange(spec.steps + 1) >= div, jnp.nan, loss), loss)
    spread = jnp.sqrt(jnp.mean((zs - zs.mean(axis=1, keepdims=True)) ** 2, axis=(1, 2)))
    return {"loss": loss, "final_loss": loss[-1], "router_spread": spread.max(), "diverged_step": div}


def run(spec: MoEDMFTSpec, params: dict, key):
    """One lane: the DMFT solve when ``spec.width == DMFT_WIDTH``, else a width-N network.

    Args:
        spec: :class:`MoEDMFTSpec`.
        params: :data:`DEFAULT_PARAMS` keys.
        key: PRNG key (DMFT sites, or network weights).

    Returns:
        :func:`solve`'s or :func:`network_run`'s metrics.

    Example:
        >>> import jax
        >>> spec = MoEDMFTSpec(num_points=4, dim=4, steps=10, sites=256)  # as in solve's
        >>> sorted(run(spec, DEFAULT_PARAMS, jax.random.key(0)))
        ['diverged_step', 'final_loss', 'iterations', 'loss', 'residual', 'router_spread']
    """
    if spec.width == DMFT_WIDTH:
        return solve(spec, params, key)
    return network_run(spec, params, key)


def linear_dmft(Kx, y, z0, eta, gamma0, steps: int, cov0=None):
    """Exact DMFT of linear experts (φ = identity) by the closed second-moment recursion.

    Per expert, :math:`v = (h(x_1..x_P), a)` obeys :math:`v_{t+1} = A_{m,t} v_t`, so

    .. math::
        C_{m,t+1} = A_{m,t} C_{m,t} A_{m,t}^\\top, \\quad
        A = \\begin{pmatrix} I & K_x r_m \\\\ r_m^\\top & 1 \\end{pmatrix}, \\quad
        r_m = \\tfrac{\\eta\\gamma_0}{P}\\Delta_t\\odot\\sigma(z_m), \\quad
        e_{m,t} = C_{m,t}[{:}P, P] - C_{m,0}[{:}P, P],

    with :math:`\\Delta_t = y - \\frac1{\\gamma_0}\\sum_m \\sigma(z_m)\\odot e_m` and the
    router step of :func:`evolve`; computed in numpy float64.

    Args:
        Kx, y, z0: input kernel, targets, initial router logits ``(M, P)``.
        eta, gamma0: step and feature-learning strength.
        steps: :math:`T`.
        cov0: initial second moments ``(M, P+1, P+1)``; default the population one,
            :math:`\\operatorname{blockdiag}(K_x, 1)` (an empirical one reproduces a
            sampled solve exactly).

    Returns:
        ``(T+1,)`` numpy array of losses.

    Example:
        >>> import numpy as np
        >>> L = linear_dmft(np.eye(2), np.array([1.0, -1.0]), np.zeros((1, 2)), 1.0, 1.0, 3)
        >>> L.shape, float(L[0]), bool(L[-1] < L[0])
        ((4,), 0.5, True)
    """
    Kx = np.asarray(Kx, np.float64)
    y = np.asarray(y, np.float64)
    z = np.array(z0, np.float64)
    P, M = Kx.shape[0], z.shape[0]
    if cov0 is None:
        c0 = np.zeros((P + 1, P + 1))
        c0[:P, :P] = Kx
        c0[P, P] = 1.0
        cov0 = np.broadcast_to(c0, (M, P + 1, P + 1))
    C = np.array(cov0, np.float64)
    e0 = C[:, :P, P].copy()
    c = eta * gamma0 / P
    losses = []
    for _ in range(steps + 1):
        e = C[:, :P, P] - e0
        g = 1.0 / (1.0 + np.exp(-z))
        f = np.sum(g * e, axis=0) / gamma0
        D = y - f
        losses.append(0.5 * np.mean(D**2))
        r = c * D[None, :] * g
        A = np.zeros((M, P + 1, P + 1))
        A[:, :P, :P] = np.eye(P)
        A[:, :P, P] = r @ Kx  # Kx symmetric: (Kx r)_nu
        A[:, P, :P] = r
        A[:, P, P] = 1.0
        C = A @ C @ np.swapaxes(A, 1, 2)
        z = z + c * (D[None, :] * g * (1.0 - g) * e) @ Kx
    return np.array(losses)


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=MoEDMFTSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={"loss": ("step",)},
    coords=lambda spec: {"step": np.arange(spec.steps + 1)},
)
