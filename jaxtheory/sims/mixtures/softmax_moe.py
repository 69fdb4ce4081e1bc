r"""Softmax-gated mixture of experts: least-squares estimation rates, linear vs gated experts.

A one-level reconstruction of the estimation problem of arXiv:2602.01468 (gated attention
as a hierarchical MoE), in the style of the programme it extends (arXiv:2402.02952,
2405.13997). Data :math:`x \sim N(0, I_d)`, :math:`Y = f_{G^*}(x) + \sigma\varepsilon` with

.. math:: f_G(x) = \sum_{i=1}^k \operatorname{softmax}_i(\beta_i^\top x + b_i)\,
          h(a_i^\top x + c_i),

an atom :math:`\omega_i = (\beta_i, b_i, a_i, c_i)` per expert and the expert map
``h`` one of :data:`EXPERTS`:

* ``"linear"``: :math:`h(u) = u` (standard attention's linear value experts: the gate
  and expert parameters interact, :math:`\partial_\beta \partial_b f` and
  :math:`\partial_a f` are linearly dependent, and over-specified rates are slower than
  any polynomial);
* ``"gated"``: :math:`h(u) = \sigma(u)\,u`, a sigmoid gate times the linear map (the
  gated-attention expert; strongly identifiable, polynomial rates). The gate shares the
  linear map's parameters — a choice of ours that keeps both expert types at the same
  parameter count; the paper's gate has its own weights.

The estimator is least squares, fitted by Levenberg's method (closed-form Jacobian) in
float64 from near the truth (so that only the statistical error is measured): the truth,
split evenly for an over-specified fit, plus a small perturbation. Softmax gates are
invariant to a common shift of every :math:`(\beta_i, b_i)`; :func:`voronoi_loss`
compares the fit's :func:`canonical_shift` with the truth, so the loss does not depend
on where along that flat direction the optimiser stopped.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxtheory.sims.mixtures import samples
from jaxtheory.simulator import Simulator

__all__ = [
    "DEFAULT_PARAMS",
    "EXPERTS",
    "MixtureSpec",
    "TRUE_ATOMS",
    "canonical_shift",
    "expert_map",
    "jacobian",
    "fit",
    "forward",
    "initial_atoms",
    "lsq_loss",
    "run",
    "voronoi_loss",
]

#: Names of the expert maps :math:`h` (see the module docstring).
EXPERTS = ("linear", "gated")
#: The true mixing measure for ``x ∈ R²``: rows ``(β₁, β₂, b, a₁, a₂, c)``, two experts
#: with well-separated gates and experts (our choice: the paper fixes no numbers).
TRUE_ATOMS = ((1.0, -0.5, 0.2, 1.0, 0.5, 0.3), (-1.0, 0.5, -0.2, -0.6, 1.2, -0.4))
#: Default of every parameter :func:`run` reads: the sample size ``n`` (a dynamic axis,
#: masked: see :mod:`~jaxtheory.sims.mixtures.samples`).
DEFAULT_PARAMS = {"n": 1000.0}


@dataclasses.dataclass(frozen=True)
class MixtureSpec:
    """What fixes the shapes of a run (the compile key).

    Attributes:
        expert: one of :data:`EXPERTS`.
        fitted: number of fitted experts (2 exact, 3 over-specified for the true 2).
        n_max: padded sample count; the lane's ``n`` weights the first ``n`` rows.
        noise: noise standard deviation σ.
        init_scale: standard deviation of the perturbation of the initial atoms.
        iters: Levenberg iterations.
    """

    expert: str = "gated"
    fitted: int = 3
    n_max: int = 30000
    noise: float = 0.1
    init_scale: float = 0.1
    iters: int = 30

    def __post_init__(self):
        if self.expert not in EXPERTS:
            raise ValueError(f"expert {self.expert!r} is not one of {EXPERTS}")
        if self.fitted < len(TRUE_ATOMS):
            raise ValueError(f"fitted = {self.fitted} is fewer than the {len(TRUE_ATOMS)} true experts")


def _split(atoms, d):
    return atoms[:, :d], atoms[:, d], atoms[:, d + 1 : 2 * d + 1], atoms[:, 2 * d + 1]


def expert_map(u, expert: str):
    """The expert nonlinearity ``h(u)``: ``u`` (linear) or ``σ(u)·u`` (gated).

    Example:
        >>> float(expert_map(jnp.array(0.0), "gated")), float(expert_map(jnp.array(2.0), "linear"))
        (0.0, 2.0)
    """
    if expert == "linear":
        return u
    if expert == "gated":
        return jax.nn.sigmoid(u) * u
    raise ValueError(f"expert {expert!r} is not one of {EXPERTS}")


def forward(atoms, x, expert: str):
    """``f_G(x)`` for atoms of shape ``(k, 2d + 2)`` (rows ``(β, b, a, c)``) at ``x`` ``(n, d)``.

    Example:
        >>> f = forward(jnp.asarray(TRUE_ATOMS), jnp.zeros((1, 2)), "linear")
        >>> round(float(f[0]), 6)  # softmax(0.2, -0.2) · (0.3, -0.4)
        0.019081
    """
    d = x.shape[-1]
    if atoms.shape[-1] != 2 * d + 2:
        raise ValueError(f"atoms of width {atoms.shape[-1]} do not fit x in R^{d} (need {2 * d + 2})")
    beta, b, a, c = _split(atoms, d)
    gate = jax.nn.softmax(x @ beta.T + b, axis=-1)
    return jnp.sum(gate * expert_map(x @ a.T + c, expert), axis=-1)


def _expert_slope(u, expert):
    if expert == "linear":
        return jnp.ones_like(u)
    s = jax.nn.sigmoid(u)
    return s + u * s * (1.0 - s)


def jacobian(atoms, x, expert: str):
    """``∂f_G(x_n)/∂atoms`` in closed form, shape ``(n, k·(2d + 2))`` (rows of atoms flattened).

    With gates :math:`g = \\operatorname{softmax}(z)`: :math:`\\partial f/\\partial z_i
    = g_i(h_i - f)` gives the gate columns, :math:`g_i h'(u_i)` the expert ones.

    Example:
        >>> t, x = jnp.asarray(TRUE_ATOMS), jnp.ones((3, 2))
        >>> J = jacobian(t, x, "gated")
        >>> ref = jax.jacfwd(lambda a: forward(a.reshape(t.shape), x, "gated"))(t.reshape(-1))
        >>> bool(jnp.allclose(J, ref, atol=1e-6))
        True
    """
    n, d = x.shape
    beta, b, a, c = _split(atoms, d)
    gate = jax.nn.softmax(x @ beta.T + b, axis=-1)  # (n, k)
    u = x @ a.T + c
    h = expert_map(u, expert)
    f = jnp.sum(gate * h, axis=-1, keepdims=True)
    gz = gate * (h - f)
    ge = gate * _expert_slope(u, expert)
    cols = [gz[:, :, None] * x[:, None, :], gz[:, :, None], ge[:, :, None] * x[:, None, :], ge[:, :, None]]
    return jnp.concatenate(cols, axis=-1).reshape(n, -1)


def lsq_loss(atoms, x, y, weights, expert: str):
    """Weighted mean squared error ``Σ w (y − f)² / Σ w``: the least-squares objective.

    Args:
        atoms: ``(k, 2d + 2)`` atoms.
        x: inputs ``(n_max, d)``.
        y: responses ``(n_max,)``.
        weights: sample weights ``(n_max,)``, e.g. :func:`~jaxtheory.sims.mixtures.samples.size_mask`.
        expert: one of :data:`EXPERTS`.

    Returns:
        The scalar loss.
    """
    return samples.weighted_mean((y - forward(atoms, x, expert)) ** 2, weights)


def canonical_shift(fitted, true):
    r"""The representative of ``fitted``'s softmax-shift class that :func:`voronoi_loss` compares.

    Softmax gates are unchanged by a common shift :math:`(\beta_i, b_i) \to (\beta_i +
    t_\beta, b_i + t_b)`. The representative has :math:`\log\sum_i e^{b_i} = \log\sum_j
    e^{b^*_j}` and :math:`\sum_i \pi_i \beta_i = \sum_j \pi^*_j \beta^*_j` with
    :math:`\pi = \operatorname{softmax}(b)`: it is invariant under shifts of ``fitted``
    and is ``fitted`` itself at the truth or an even split of it.

    Example:
        >>> t = jnp.asarray(TRUE_ATOMS)
        >>> moved = t.at[:, :3].add(jnp.array([0.5, -1.0, 2.0]))
        >>> bool(jnp.allclose(canonical_shift(moved, t), t))
        True
    """
    d = (true.shape[-1] - 2) // 2
    b, bt = fitted[:, d], true[:, d]
    tb = jax.nn.logsumexp(b) - jax.nn.logsumexp(bt)
    t_beta = jax.nn.softmax(b) @ fitted[:, :d] - jax.nn.softmax(bt) @ true[:, :d]
    shift = jnp.concatenate([t_beta, tb[None], jnp.zeros(fitted.shape[-1] - d - 1, fitted.dtype)])
    return fitted - shift


def voronoi_loss(fitted, true):
    r"""Voronoi loss :math:`D(G, G^*)` of softmax-gated MoE with strongly identifiable experts.

    ``fitted`` is first moved to its :func:`canonical_shift`. Each fitted atom joins the cell :math:`A_j` of its nearest true atom in
    :math:`(\beta, a, c)`; then (arXiv:2402.02952, 2405.13997: exponent 1 in cells of one
    atom, 2 in cells of several)

    .. math:: D = \sum_j \Big|\sum_{i \in A_j} e^{b_i} - e^{b_j^*}\Big|
        + \sum_{j: |A_j| = 1} \sum_{i \in A_j} e^{b_i}(\lVert\Delta\beta_{ij}\rVert
        + \lVert\Delta a_{ij}\rVert + |\Delta c_{ij}|)
        + \sum_{j: |A_j| > 1} \sum_{i \in A_j} e^{b_i}(\lVert\Delta\beta_{ij}\rVert^2
        + \lVert\Delta a_{ij}\rVert^2 + |\Delta c_{ij}|^2).

    Args:
        fitted: ``(k, 2d + 2)`` atoms.
        true: ``(k*, 2d + 2)`` atoms.

    Returns:
        The scalar loss.

    Example:
        >>> t = jnp.asarray(TRUE_ATOMS)
        >>> float(voronoi_loss(t, t))
        0.0
    """
    d = (true.shape[-1] - 2) // 2
    fitted = canonical_shift(fitted, true)
    keep = jnp.r_[jnp.arange(d), jnp.arange(d + 1, 2 * d + 2)]
    wf, wt = fitted[:, keep], true[:, keep]
    dist = jnp.sum((wf[:, None, :] - wt[None, :, :]) ** 2, axis=-1)  # (k, k*)
    # The nearest true atom by a fold over the (few, static) true atoms; jnp.argmin's
    # variadic reduce does not lower inside enable_x64 under an outer float32 trace.
    j, best = jnp.zeros(dist.shape[0], jnp.int32), dist[:, 0]
    for t in range(1, dist.shape[1]):
        closer = dist[:, t] < best
        j, best = jnp.where(closer, t, j), jnp.where(closer, dist[:, t], best)
    cell = (j[:, None] == jnp.arange(dist.shape[1])[None, :]).astype(fitted.dtype)
    size = cell.sum(0)  # atoms per true atom
    ef = jnp.exp(fitted[:, d])
    mass = jnp.sum(jnp.abs(cell.T @ ef - jnp.exp(true[:, d])))
    beta_f, _, a_f, c_f = _split(fitted, d)
    beta_t, _, a_t, c_t = _split(true, d)
    db = jnp.linalg.norm(beta_f - beta_t[j], axis=-1)
    da = jnp.linalg.norm(a_f - a_t[j], axis=-1)
    dc = jnp.abs(c_f - c_t[j])
    single = size[j] == 1
    disc = jnp.where(single, db + da + dc, db**2 + da**2 + dc**2)
    return mass + jnp.sum(ef * disc)


def initial_atoms(fitted: int, key, scale: float, dtype=jnp.float64):
    """The truth, the last true atom split evenly over the extra atoms, plus a perturbation.

    The split keeps ``f_G = f_{G*}``: the extra atoms copy the last true atom with
    ``b − log(m)`` for ``m`` copies. The Gaussian perturbation (std ``scale``) has zero
    atom-mean in ``(β, b)`` (no component along the softmax shift).

    Example:
        >>> a = initial_atoms(3, jax.random.key(0), 0.0)
        >>> bool(jnp.allclose(jax.nn.logsumexp(a[1:, 2]), TRUE_ATOMS[1][2]))
        True
    """
    true = jnp.asarray(TRUE_ATOMS, dtype)
    k_true, width = true.shape
    d = (width - 2) // 2
    m = fitted - k_true + 1
    last = true[-1].at[d].add(-jnp.log(float(m)))
    base = jnp.concatenate([true[:-1], jnp.tile(last, (m, 1))])
    eps = scale * jax.random.normal(key, base.shape, dtype)
    gate_cols = jnp.arange(width) <= d
    eps = jnp.where(gate_cols, eps - eps.mean(0), eps)
    return base + eps


def fit(atoms0, x, y, weights, expert: str, iters: int, lam0: float = 1e-3):
    """Levenberg least squares (damping ``λ·mean diag(JᵀJ)·I``), accept-if-decrease.

    Args:
        atoms0: initial atoms ``(k, 2d + 2)``.
        x, y, weights: padded data ``(n_max, d)``, ``(n_max,)`` and sample weights.
        expert: one of :data:`EXPERTS`.
        iters: iterations (a ``lax.scan``).
        lam0: initial relative damping.

    Returns:
        ``(atoms, loss, grad_norm)``: the fitted atoms, the objective
        :func:`lsq_loss` and the Euclidean norm of its gradient there.
    """
    shape = atoms0.shape
    sw = jnp.sqrt(weights / jnp.sum(weights))

    def resid(theta):
        return sw * (y - forward(theta.reshape(shape), x, expert))

    def obj(theta):
        r = resid(theta)
        return r @ r

    def step(carry, _):
        theta, val, lam = carry
        r = resid(theta)
        J = -sw[:, None] * jacobian(theta.reshape(shape), x, expert)
        A = J.T @ J
        g = J.T @ r
        scale = jnp.trace(A) / A.shape[0]
        delta = jnp.linalg.solve(A + lam * scale * jnp.eye(A.shape[0], dtype=A.dtype), -g)
        cand = theta + delta
        vc = obj(cand)
        ok = jnp.isfinite(vc) & (vc < val)
        theta = jnp.where(ok, cand, theta)
        val = jnp.where(ok, vc, val)
        lam = jnp.clip(jnp.where(ok, lam / 3.0, lam * 4.0), 1e-15, 1e8)
        return (theta, val, lam), None

    theta0 = atoms0.reshape(-1)
    init = (theta0, obj(theta0), jnp.asarray(lam0, atoms0.dtype))
    (theta, val, _), _ = jax.lax.scan(step, init, None, length=iters)
    grad = jax.grad(obj)(theta)
    return theta.reshape(shape), val, jnp.linalg.norm(grad)


def run(spec: MixtureSpec, params: dict, key: jax.Array) -> dict:
    """Draw ``n_max`` samples, fit the first ``n`` by least squares, score the fit.

    Args:
        spec: :class:`MixtureSpec`.
        params: ``n`` (see :data:`DEFAULT_PARAMS`).
        key: PRNG key: the data and the initial perturbation.

    Returns:
        Scalars: ``voronoi`` (:func:`voronoi_loss` of the fit), ``voronoi_init`` (of the
        initial point), ``loss`` (the least-squares objective at the fit), ``grad_norm``
        (its gradient norm, float64), ``excess`` (``loss`` minus the noise-only loss
        of the truth on the same samples: negative when the fit beats the truth, as a
        least-squares fit should), ``n_used`` (the rounded sample size used).
    """
    # The draws are float32 (threefry's 64-bit path does not lower inside enable_x64
    # under an outer float32 trace); everything after them is float64.
    kx, ke, ki = jax.random.split(key, 3)
    d = (len(TRUE_ATOMS[0]) - 2) // 2
    x32 = jax.random.normal(kx, (spec.n_max, d))
    e32 = jax.random.normal(ke, (spec.n_max,))
    a32 = initial_atoms(spec.fitted, ki, spec.init_scale, jnp.float32)
    with jax.enable_x64(True):
        true = jnp.asarray(TRUE_ATOMS, jnp.float64)
        x, a0 = x32.astype(jnp.float64), a32.astype(jnp.float64)
        y = forward(true, x, spec.expert) + spec.noise * e32.astype(jnp.float64)
        w = samples.size_mask(spec.n_max, params["n"], jnp.float64)
        atoms, val, gn = fit(a0, x, y, w, spec.expert, spec.iters)
        truth_loss = lsq_loss(true, x, y, w, spec.expert)
        out = {
            "voronoi": voronoi_loss(atoms, true),
            "voronoi_init": voronoi_loss(a0, true),
            "loss": val,
            "excess": val - truth_loss,
            "n_used": jnp.sum(w),
        }
        out = {k: v.astype(jnp.float32) for k, v in out.items()}
        out["grad_norm"] = gn
        return out


#: The simulator's declaration: every metric is a scalar per lane (``n`` is a parameter).
SIMULATOR = Simulator(run, spec=MixtureSpec(), params=DEFAULT_PARAMS)
