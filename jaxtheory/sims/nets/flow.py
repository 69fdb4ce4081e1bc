"""Flow matching with a two-layer ReLU network in NTK scaling, on a Gaussian target.

Checks the setting of arXiv:2606.10089 (He, Yin, Cao, Fan, Liu, *A Theory on Flow
Matching with Neural Networks*; only the abstract was readable, so the setting is
reconstructed). The path is linear, :math:`x_t = (1-t)x_0 + t x_1` with :math:`x_0 \\sim N(0, I_d)`, the
target velocity :math:`u = x_1 - x_0`, and the loss
:math:`L(v) = \\mathbb E_{t \\sim U[0,1]}\\lVert u - v(t, x_t)\\rVert^2`.

For :math:`x_1 \\sim N(\\mu, \\Sigma)` the pair :math:`(u, x_t)` is jointly Gaussian,
so the minimiser of :math:`L` is the conditional mean

.. math::

    v^*(t, x) = \\mu + C(t)(x - t\\mu), \\qquad
    C(t) = (t\\Sigma - (1-t)I)\\,((1-t)^2 I + t^2\\Sigma)^{-1},

and in the eigenbasis of :math:`\\Sigma` (eigenvalue :math:`s`) the conditional variance
of :math:`u` is :math:`1 + s - (ts - (1-t))^2/((1-t)^2 + t^2 s) = s/((1-t)^2 + t^2 s)`,
whose integral over :math:`t \\in [0, 1]` is :math:`\\sqrt s\\,(\\arctan\\sqrt s +
\\arctan(1/\\sqrt s)) = (\\pi/2)\\sqrt s`. The irreducible loss is therefore
:math:`L(v^*) = (\\pi/2)\\operatorname{tr}\\Sigma^{1/2}` (:func:`irreducible_loss`),
independent of :math:`\\mu`.

The network (:func:`velocity`) is
:math:`v(z) = m^{-1/2}\\sum_r a_r\\,\\sigma(w_r \\cdot z)` with :math:`z = (x, t, 1)`,
fixed output signs :math:`a_r \\in \\{\\pm 1\\}^d` (one head per output coordinate,
sharing the hidden layer), :math:`w_r(0) \\sim N(0, I)`, and a width mask: only the
first ``m`` of the ``spec.width`` neurons are active and the scale uses the active
width. :func:`run` trains :math:`W` by full-batch gradient descent on ``n`` points with
``K`` draws of :math:`(x_0, t)` each.
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
    "DEFAULT_PARAMS",
    "FlowSpec",
    "bures_w2",
    "euler",
    "exact_field",
    "flow_matching_loss",
    "gaussian_moments_after",
    "heun",
    "init_params",
    "irreducible_loss",
    "ntk_gram",
    "run",
    "velocity",
]

#: Default of every parameter :func:`run` reads: ``n`` active data points (at most
#: ``spec.n_max``), ``m`` active neurons (0 means ``spec.width``) and the GD step ``lr``.
DEFAULT_PARAMS = {"n": 128, "m": 0, "lr": 1.0}


@dataclasses.dataclass(frozen=True)
class FlowSpec:
    """What fixes the shapes of a flow-matching run (the compile key).

    Attributes:
        mean: the target mean :math:`\\mu` (its length is :math:`d`).
        cov: the target covariance :math:`\\Sigma`, rows as tuples (symmetric positive definite).
        width: the number of neurons (the largest active width).
        n_max: the largest number of data points (``n`` masks the rest).
        draws: :math:`K`, draws of :math:`(x_0, t)` per data point.
        steps: gradient-descent steps.
        log_every: the training loss is logged every this many steps.
        n_test: fresh samples for the test loss and the loss of :math:`v^*`.
        n_mc: fresh samples for a separate, larger Monte Carlo estimate of the loss of
            :math:`v^*` (no network evaluations, so it is cheap).
        n_gen: samples generated from the trained net.
        sample_steps: Euler steps of the generating ODE.
        euler_steps: step counts at which the exact Euler/Heun flows of :math:`v^*` are measured.
        ntk_points: the NTK Gram whose smallest eigenvalue :func:`run` reports is taken over
            the first ``min(n, ntk_points)`` data points (all their ``K`` draws), so that its
            size stays ``(2 ntk_points K)^2`` whatever ``n_max``.
    """

    mean: tuple = (1.0, -0.5)
    cov: tuple = ((1.0, 0.3), (0.3, 0.5))
    width: int = 1024
    n_max: int = 512
    draws: int = 4
    steps: int = 1000
    log_every: int = 10
    n_test: int = 32768
    n_mc: int = 262144
    n_gen: int = 1024
    sample_steps: int = 50
    euler_steps: tuple = (4, 8, 16, 32, 64)
    ntk_points: int = 128

    def __post_init__(self):
        cov = np.asarray(self.cov, float)
        d = len(self.mean)
        if cov.shape != (d, d) or not np.allclose(cov, cov.T):
            raise ValueError(f"cov must be a symmetric {d}x{d} matrix, got shape {cov.shape}")
        if np.linalg.eigvalsh(cov).min() <= 0:
            raise ValueError("cov must be positive definite")
        if self.steps % self.log_every:
            raise ValueError(f"steps ({self.steps}) must be a multiple of log_every ({self.log_every})")
        sizes = (self.width, self.n_max, self.draws, self.n_test, self.n_mc, self.n_gen, self.sample_steps)
        if min(*sizes, self.ntk_points) < 1:
            raise ValueError("sizes must be positive")


def _sqrtm_psd(a):
    """Symmetric PSD square root by eigendecomposition (clips tiny negative eigenvalues)."""
    w, q = jnp.linalg.eigh(a)
    return (q * jnp.sqrt(jnp.clip(w, 0.0))) @ q.T


def irreducible_loss(cov) -> float:
    """The loss of the exact field, :math:`(\\pi/2)\\operatorname{tr}\\Sigma^{1/2}`.

    Args:
        cov: the target covariance :math:`\\Sigma` (d x d, symmetric positive definite).

    Returns:
        :math:`\\mathbb E_t\\lVert u - v^*(t, x_t)\\rVert^2` for the linear path from
        :math:`N(0, I)` (float, float64).

    Example:
        >>> round(irreducible_loss([[4.0, 0.0], [0.0, 1.0]]), 6)  # (pi/2)(2 + 1)
        4.712389
    """
    w = np.linalg.eigvalsh(np.asarray(cov, float))
    return float(0.5 * math.pi * np.sqrt(np.clip(w, 0.0, None)).sum())


def exact_field(mean, cov):
    """The exact (marginal) velocity :math:`v^*(t, x) = \\mu + C(t)(x - t\\mu)`.

    Args:
        mean: :math:`\\mu`, shape (d,).
        cov: :math:`\\Sigma`, shape (d, d).

    Returns:
        A function ``field(t, x)`` of a scalar ``t`` and points ``x`` of shape (..., d).

    Example:
        >>> import jax.numpy as jnp
        >>> f = exact_field(jnp.zeros(2), jnp.eye(2))  # target = source: v*(t, x) = C(t) x
        >>> [round(float(v), 4) for v in f(1.0, jnp.array([1.0, 2.0]))]
        [1.0, 2.0]
    """
    mu = jnp.asarray(mean, jnp.float32)
    sig = jnp.asarray(cov, jnp.float32)
    eye = jnp.eye(mu.shape[0], dtype=sig.dtype)

    def field(t, x):
        s = (1 - t) ** 2 * eye + t**2 * sig
        c = jnp.linalg.solve(s, t * sig - (1 - t) * eye).T  # S symmetric: (A S^-1) = (S^-1 A^T)^T
        return mu + (x - t * mu) @ c.T

    return field


def init_params(key, dim: int, width: int) -> dict:
    """Initial weights: ``w`` (width, d + 2) i.i.d. N(0, 1) and fixed signs ``a`` (width, d).

    Args:
        key: a PRNG key.
        dim: the data dimension :math:`d`.
        width: the number of neurons.

    Returns:
        ``{"w": ..., "a": ...}``; only ``w`` is trained.

    Example:
        >>> import jax
        >>> p = init_params(jax.random.key(0), 2, 8)
        >>> p["w"].shape, p["a"].shape
        ((8, 4), (8, 2))
    """
    kw, ka = jax.random.split(key)
    w = jax.random.normal(kw, (width, dim + 2))
    a = jnp.where(jax.random.bernoulli(ka, 0.5, (width, dim)), 1.0, -1.0)
    return {"w": w, "a": a}


def velocity(w, a, t, x, mask=None):
    """The NTK-scaled ReLU velocity :math:`m^{-1/2}\\sum_r a_r\\sigma(w_r\\cdot(x, t, 1))`.

    Args:
        w: hidden weights, shape (width, d + 2).
        a: output signs, shape (width, d).
        t: times, shape (...) broadcastable against ``x[..., 0]``.
        x: points, shape (..., d).
        mask: active neurons, shape (width,) of 0/1 (``None``: all); the scale is
            :math:`1/\\sqrt{m}` with :math:`m` the number of active neurons.

    Returns:
        Velocities of shape (..., d).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> p = init_params(jax.random.key(0), 2, 16)
        >>> velocity(p["w"], p["a"], jnp.full(3, 0.5), jnp.zeros((3, 2))).shape
        (3, 2)
    """
    if mask is None:
        mask = jnp.ones(w.shape[0], w.dtype)
    t = jnp.broadcast_to(jnp.asarray(t, x.dtype), x.shape[:-1])
    z = jnp.concatenate([x, t[..., None], jnp.ones_like(t)[..., None]], axis=-1)
    h = jax.nn.relu(z @ w.T) * mask
    return (h @ a) / jnp.sqrt(jnp.sum(mask))


def ntk_gram(w, a, t, x, mask=None):
    """The NTK Gram matrix of :func:`velocity` in ``w`` at the samples ``(t, x)``.

    With :math:`z = (x, t, 1)`, :math:`\\partial v_j(z)/\\partial w_r = m^{-1/2} a_{rj}
    \\mathbf 1[w_r\\cdot z > 0]\\,z`, so the Gram of the stacked outputs is
    :math:`\\Theta_{(i,j),(i',j')} = (z_i\\cdot z_{i'})\\,m^{-1}\\sum_r a_{rj}a_{rj'}
    \\mathbf 1_{ri}\\mathbf 1_{ri'}` over the active neurons (closed form, no autodiff).

    Args:
        w: hidden weights, shape (width, d + 2).
        a: output signs, shape (width, d).
        t: times, shape (N,).
        x: points, shape (N, d).
        mask: active neurons, shape (width,) of 0/1 (``None``: all).

    Returns:
        :math:`\\Theta`, shape (N d, N d), rows ordered output-coordinate-major
        (:math:`(j, i)`).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> p = init_params(jax.random.key(0), 2, 16)
        >>> t, x = jnp.full(3, 0.5), jnp.ones((3, 2))
        >>> j = jax.jacobian(lambda w: velocity(w, p["a"], t, x).T.reshape(-1))(p["w"]).reshape(6, -1)
        >>> bool(jnp.allclose(ntk_gram(p["w"], p["a"], t, x), j @ j.T, atol=1e-5))
        True
    """
    if mask is None:
        mask = jnp.ones(w.shape[0], w.dtype)
    z = jnp.concatenate([x, t[:, None], jnp.ones_like(t)[:, None]], axis=-1)
    h = (z @ w.T > 0).astype(w.dtype) * mask
    ha = h[None] * a.T[:, None, :]  # (d, N, width)
    inner = jnp.einsum("jnr,kmr->jnkm", ha, ha) / jnp.sum(mask)
    gram = inner * (z @ z.T)[None, :, None, :]
    d, n = a.shape[1], t.shape[0]
    return gram.reshape(d * n, d * n)


def flow_matching_loss(v, x0, x1, t, weights=None):
    """The empirical flow-matching loss :math:`\\sum_i \\omega_i\\lVert (x_1 - x_0)_i - v(t_i, x_{t,i})\\rVert^2 / \\sum_i\\omega_i`.

    Args:
        v: a velocity field ``v(t, x)`` (vectorised over leading dims).
        x0: source draws, shape (N, d).
        x1: target draws, shape (N, d).
        t: times, shape (N,).
        weights: sample weights, shape (N,) (``None``: all 1; masks padded samples).

    Returns:
        The weighted mean squared velocity error (a scalar; no factor 1/2).

    Example:
        >>> import jax.numpy as jnp
        >>> x0, x1, t = jnp.zeros((4, 2)), jnp.ones((4, 2)), jnp.linspace(0, 1, 4)
        >>> float(flow_matching_loss(lambda t, x: jnp.ones_like(x), x0, x1, t))
        0.0
    """
    if weights is None:
        weights = jnp.ones(t.shape, x0.dtype)
    xt = (1 - t)[:, None] * x0 + t[:, None] * x1
    err = jnp.sum((x1 - x0 - v(t, xt)) ** 2, axis=-1)
    return jnp.sum(weights * err) / jnp.sum(weights)


def _integrate(field, x0, steps, heun_step: bool, t0=0.0, t1=1.0):
    h = (t1 - t0) / steps

    def step(x, k):
        t = t0 + k * h
        f0 = field(t, x)
        if not heun_step:
            return x + h * f0, None
        xe = x + h * f0
        return x + 0.5 * h * (f0 + field(t + h, xe)), None

    x, _ = jax.lax.scan(step, x0, jnp.arange(steps, dtype=jnp.float32))
    return x


def euler(field, x0, steps: int, t0: float = 0.0, t1: float = 1.0):
    """Explicit Euler for :math:`\\dot x = f(t, x)` from ``t0`` to ``t1`` in ``steps`` equal steps.

    Args:
        field: ``field(t, x)`` with ``x`` of the shape of ``x0``.
        x0: initial points.
        steps: number of steps (static).
        t0: start time.
        t1: end time.

    Returns:
        The points at ``t1``.

    Example:
        >>> import jax.numpy as jnp
        >>> float(euler(lambda t, x: -x, jnp.array(1.0), 2))  # (1 - 1/2)^2
        0.25
    """
    return _integrate(field, x0, steps, False, t0, t1)


def heun(field, x0, steps: int, t0: float = 0.0, t1: float = 1.0):
    """Heun's method (explicit trapezoid, order 2) for :math:`\\dot x = f(t, x)` (see :func:`euler`).

    Example:
        >>> import jax.numpy as jnp
        >>> float(heun(lambda t, x: -x, jnp.array(1.0), 2))  # (1 - 1/2 + 1/8)^2
        0.390625
    """
    return _integrate(field, x0, steps, True, t0, t1)


def bures_w2(m1, s1, m2, s2):
    """The 2-Wasserstein distance between :math:`N(m_1, S_1)` and :math:`N(m_2, S_2)` (Bures).

    :math:`W_2^2 = \\lVert m_1 - m_2\\rVert^2 + \\operatorname{tr}(S_1 + S_2 -
    2(S_2^{1/2} S_1 S_2^{1/2})^{1/2})`.

    Args:
        m1: mean, shape (d,).
        s1: covariance, shape (d, d).
        m2: mean, shape (d,).
        s2: covariance, shape (d, d).

    Returns:
        :math:`W_2` (a scalar; the square is clipped at 0 against rounding).

    Example:
        >>> import jax.numpy as jnp
        >>> float(bures_w2(jnp.zeros(2), 4 * jnp.eye(2), jnp.zeros(2), jnp.eye(2)))  # sqrt(2)*(2-1)
        1.4142135381698608
    """
    r2 = _sqrtm_psd(s2)
    cross = _sqrtm_psd(r2 @ s1 @ r2)
    w2sq = jnp.sum((m1 - m2) ** 2) + jnp.trace(s1) + jnp.trace(s2) - 2 * jnp.trace(cross)
    return jnp.sqrt(jnp.clip(w2sq, 0.0))


def gaussian_moments_after(field, mean0, cov0, steps: int, method: str = "euler"):
    """Mean and covariance after integrating an affine-in-x field from :math:`N(m_0, S_0)`.

    An Euler or Heun step of a field affine in ``x`` is an affine map, so Gaussians stay
    Gaussian: the method is applied to the mean and to the mean plus each column of a
    square root of :math:`S_0`, and the columns' displacements give the new square root.
    Exact (no sampling) for :func:`exact_field`.

    Args:
        field: ``field(t, x)``, affine in ``x``.
        mean0: :math:`m_0`, shape (d,).
        cov0: :math:`S_0`, shape (d, d).
        steps: number of steps (static).
        method: ``"euler"`` or ``"heun"``.

    Returns:
        ``(mean, cov)`` at time 1.

    Example:
        >>> import jax.numpy as jnp
        >>> m, s = gaussian_moments_after(lambda t, x: -x, jnp.zeros(1), jnp.eye(1), 2)
        >>> float(s[0, 0])  # ((1 - 1/2)^2)^2
        0.0625
    """
    if method not in ("euler", "heun"):
        raise ValueError(f"method must be 'euler' or 'heun', got {method!r}")
    root = _sqrtm_psd(jnp.asarray(cov0, jnp.float32))
    m0 = jnp.asarray(mean0, jnp.float32)
    pts = jnp.concatenate([m0[None], m0[None] + root.T], axis=0)
    out = _integrate(field, pts, steps, method == "heun")
    cols = (out[1:] - out[0]).T
    return out[0], cols @ cols.T


def run(spec: FlowSpec, params: dict, key: jax.Array) -> dict:
    """Train the NTK ReLU velocity net by full-batch GD on flow matching; pure and vmappable.

    Args:
        spec: a :class:`FlowSpec`.
        params: ``n`` (active points, at most ``spec.n_max``), ``m`` (active neurons, 0
            means ``spec.width``) and ``lr`` (the GD step :math:`\\eta`); may be traced.
        key: the lane's PRNG key. The data, the training draws of :math:`(x_0, t)` and
            the test samples come from one split of it and the initial weights from
            another, so lanes of one seed share their data whatever ``n`` and ``m``
            (point ``i`` is the same point for every ``n > i``) and the first ``m``
            neurons of a wider lane are the neurons of a narrower one.

    Returns:
        ``train_loss`` (per logged step, after the step), ``train_loss0`` (at
        initialisation), ``test_loss`` and ``vstar_loss`` (the loss of the net and of
        :math:`v^*` on the same ``n_test`` fresh samples), ``vstar_loss_mc`` (the loss
        of :math:`v^*` on ``n_mc`` further samples), ``excess_velocity``
        (:math:`\\mathbb E\\lVert v - v^*\\rVert^2` on them), ``weight_move``
        (:math:`\\lVert W_T - W_0\\rVert_F / \\lVert W_0\\rVert_F` over active neurons),
        ``w2_net`` (Bures W2 between the target and the moment-matched samples of the
        net's Euler flow), ``w2_euler`` and ``w2_heun`` (exact W2 after the Euler / Heun
        flow of :math:`v^*` for each of ``spec.euler_steps``), ``ntk_lmin`` (the smallest
        eigenvalue of :math:`\\Theta/(n'K)` at initialisation, :func:`ntk_gram` over the
        training samples of the first :math:`n' = \\min(n, \\text{ntk\\_points})` points:
        under the linearisation GD multiplies the residual by :math:`I - 2\\eta\\Theta/(nK)`,
        so for :math:`n \\le` ``ntk_points`` the loss falls at least by the factor
        :math:`(1 - 2\\eta\\,\\text{ntk\\_lmin})^2` per step).

    Example:
        >>> import jax
        >>> spec = FlowSpec(width=16, n_max=8, steps=4, log_every=2, n_test=64, n_mc=64, n_gen=32,
        ...                 sample_steps=4, euler_steps=(2, 4))
        >>> out = run(spec, {"n": 8, "m": 0, "lr": 1.0}, jax.random.key(0))
        >>> out["train_loss"].shape, out["w2_euler"].shape
        ((2,), (2,))
    """
    d = len(spec.mean)
    mu = jnp.asarray(spec.mean, jnp.float32)
    sig = jnp.asarray(spec.cov, jnp.float32)
    chol = jnp.linalg.cholesky(sig)
    vstar = exact_field(mu, sig)
    kdata, kinit = jax.random.split(key)
    kx1, kx0, kt, ktest, kgen, kmc = jax.random.split(kdata, 6)

    n = jnp.minimum(jnp.asarray(params["n"]), spec.n_max)
    m_act = jnp.where(jnp.asarray(params["m"]) > 0, params["m"], spec.width)
    mask = (jnp.arange(spec.width) < m_act).astype(jnp.float32)

    x1 = mu + jax.random.normal(kx1, (spec.n_max, d)) @ chol.T
    x1 = jnp.repeat(x1, spec.draws, axis=0)
    nk = spec.n_max * spec.draws
    x0 = jax.random.normal(kx0, (nk, d))
    t = jax.random.uniform(kt, (nk,))
    weights = (jnp.arange(nk) // spec.draws < n).astype(jnp.float32)

    p0 = init_params(kinit, d, spec.width)
    a = p0["a"]

    def loss_fn(w):
        return flow_matching_loss(lambda tt, xx: velocity(w, a, tt, xx, mask), x0, x1, t, weights)

    opt = optax.sgd(params["lr"])
    grad = jax.value_and_grad(loss_fn)

    def block(carry, _):
        def step(c, _):
            w, s = c
            _, g = grad(w)
            u, s = opt.update(g, s, w)
            return (optax.apply_updates(w, u), s), None

        carry, _ = jax.lax.scan(step, carry, None, length=spec.log_every)
        return carry, loss_fn(carry[0])

    w0 = p0["w"]
    (w, _), train_loss = jax.lax.scan(block, (w0, opt.init(w0)), None, length=spec.steps // spec.log_every)

    k1, k2, k3 = jax.random.split(ktest, 3)
    tx1 = mu + jax.random.normal(k1, (spec.n_test, d)) @ chol.T
    tx0 = jax.random.normal(k2, (spec.n_test, d))
    tt = jax.random.uniform(k3, (spec.n_test,))
    net = lambda s, x: velocity(w, a, s, x, mask)  # noqa: E731
    xt = (1 - tt)[:, None] * tx0 + tt[:, None] * tx1
    vs = jax.vmap(vstar)(tt, xt)
    vn = net(tt, xt)
    u = tx1 - tx0

    gen = euler(net, jax.random.normal(kgen, (spec.n_gen, d)), spec.sample_steps)
    gmean = gen.mean(0)
    gcov = (gen - gmean).T @ (gen - gmean) / (spec.n_gen - 1)

    def w2_after(steps, method):
        mm, ss = gaussian_moments_after(vstar, jnp.zeros(d), jnp.eye(d), steps, method)
        return bures_w2(mm, ss, mu, sig)

    m1, m2, m3 = jax.random.split(kmc, 3)
    mx1 = mu + jax.random.normal(m1, (spec.n_mc, d)) @ chol.T
    mx0 = jax.random.normal(m2, (spec.n_mc, d))
    mt = jax.random.uniform(m3, (spec.n_mc,))
    mxt = (1 - mt)[:, None] * mx0 + mt[:, None] * mx1
    vstar_mc = jnp.mean(jnp.sum((mx1 - mx0 - jax.vmap(vstar)(mt, mxt)) ** 2, -1))

    # NTK Gram at initialisation over the first min(n, ntk_points) points; the rows of
    # inactive points are decoupled with the value max(diag), which cannot be the minimum
    pk = min(spec.ntk_points, spec.n_max) * spec.draws
    xt_train = (1 - t[:pk])[:, None] * x0[:pk] + t[:pk, None] * x1[:pk]
    gram = ntk_gram(w0, a, t[:pk], xt_train, mask) / jnp.minimum(jnp.sum(weights), pk)
    act = jnp.tile(weights[:pk], d)
    fill = jnp.max(jnp.diag(gram))
    gram = gram * act[:, None] * act[None, :] + jnp.diag((1.0 - act) * fill)
    ntk_lmin = jnp.linalg.eigvalsh(gram)[0]

    rowmask = mask[:, None]
    return {
        "train_loss": train_loss,
        "train_loss0": loss_fn(w0),
        "test_loss": jnp.mean(jnp.sum((u - vn) ** 2, -1)),
        "vstar_loss": jnp.mean(jnp.sum((u - vs) ** 2, -1)),
        "vstar_loss_mc": vstar_mc,
        "excess_velocity": jnp.mean(jnp.sum((vn - vs) ** 2, -1)),
        "weight_move": jnp.linalg.norm((w - w0) * rowmask) / jnp.linalg.norm(w0 * rowmask),
        "w2_net": bures_w2(gmean, gcov, mu, sig),
        "w2_euler": jnp.stack([w2_after(s, "euler") for s in spec.euler_steps]),
        "w2_heun": jnp.stack([w2_after(s, "heun") for s in spec.euler_steps]),
        "ntk_lmin": ntk_lmin,
    }


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=FlowSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={"train_loss": ("step",), "w2_euler": ("euler_steps",), "w2_heun": ("euler_steps",)},
    coords=lambda spec: {
        "step": np.arange(1, spec.steps // spec.log_every + 1) * spec.log_every,
        "euler_steps": np.asarray(spec.euler_steps),
    },
)
