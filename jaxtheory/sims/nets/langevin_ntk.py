r"""Prior-matched Langevin training of a two-layer MLP, with its NTK logged along the way.

A reconstruction of Tsipory & Soudry's seminar abstract "Global
Convergence in Neural Networks via the Second Law of Thermodynamics": continuous-time
Langevin dynamics (CLD) with an L2 term keep the NTK well conditioned without lazy
training. One lane trains :mod:`~jaxtheory.sims.nets.mlp` in standard parameterisation
(:math:`W_1 \sim N(0, 1/d)`, :math:`a \sim N(0, 1/m)`) on :math:`n` points on
:math:`S^{d-1}` with targets :math:`y = \sin(3\langle w_0, x\rangle)` and loss
:math:`L = \tfrac12\sum_i (f(x_i) - y_i)^2` by :func:`jaxtheory.optim.langevin` with the
prior-matched per-layer decay :math:`\lambda_1 = T d`, :math:`\lambda_2 = T m`, so the
Gibbs law is :math:`p_0 e^{-L/T}/Z`. The padded units (width masking) get a zero
preconditioner, so they stay exactly zero.

In standard parameterisation :math:`\|K_0\| \propto m`; the step
:math:`h = \text{step\_frac}/\|K_0\|` uses the NTK of the widest net (:func:`step_size`,
computed once from the spec), so every width runs the same physical time
:math:`t = h \cdot \text{steps}`: widths are compared at equal physical time, which a
per-width step (each width's own :math:`\|K_0\|`) would not give.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.divergence import guarded_scan
from jaxtheory.optim import langevin
from jaxtheory.sims.nets import mlp
from jaxtheory.simulator import Simulator

__all__ = ["LangevinNTKSpec", "DEFAULT_PARAMS", "make_data", "step_size", "run"]


@dataclasses.dataclass(frozen=True)
class LangevinNTKSpec:
    """Static shapes of a lane.

    Attributes:
        num_points: training points :math:`n`.
        dim: input dimension :math:`d` (points on :math:`S^{d-1}`).
        max_width: padded width :math:`m_{\\max}` (the widest swept width).
        steps: Langevin steps.
        ntk_every: steps between NTK / Jacobian / weight records.
        loss_every: steps between loss records.
        act: nonlinearity.
        step_frac: :math:`h \\|K_0\\|` for the widest net.
        radius: radius of the input sphere; 0 means :math:`\\sqrt d`, so the first-layer
            pre-activations are :math:`N(0, 1)` at init (on the unit sphere they are
            :math:`N(0, 1/d)`, tanh is nearly linear and :math:`K_0` nearly of rank
            :math:`d < n`: :math:`\\lambda_{\\min}(K_0) \\approx 0.01`).
        data_seed: seed of the points, the teacher and the reference init of :func:`step_size`.
    """

    num_points: int = 16
    dim: int = 8
    max_width: int = 256
    steps: int = 8000
    ntk_every: int = 200
    loss_every: int = 20
    act: str = "tanh"
    step_frac: float = 0.1
    radius: float = 0.0
    data_seed: int = 0


#: Default lane parameters: active width :math:`m` and temperature :math:`T`.
DEFAULT_PARAMS = {"width": 256, "temperature": 0.0}


def make_data(spec: LangevinNTKSpec):
    """Points on the sphere of radius ``radius`` and targets :math:`\\sin(3\\langle w_0, \\hat x\\rangle)` (numpy).

    Args:
        spec: the spec.

    Returns:
        ``(X (n, d), y (n,))``.

    Example:
        >>> X, y = make_data(LangevinNTKSpec(num_points=3, dim=2, radius=1.0))
        >>> X.shape, round(float((X**2).sum(1).max()), 6)
        ((3, 2), 1.0)
    """
    rng = np.random.default_rng(spec.data_seed)
    X = rng.standard_normal((spec.num_points, spec.dim))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    w0 = rng.standard_normal(spec.dim)
    w0 /= np.linalg.norm(w0)
    y = np.sin(3.0 * X @ w0)
    return X * (spec.radius or np.sqrt(spec.dim)), y


@functools.lru_cache(maxsize=32)
def step_size(spec: LangevinNTKSpec) -> float:
    """The step :math:`h = \\text{step\\_frac} / \\|K_0\\|_2` of the widest net (mean over 8 inits).

    Args:
        spec: the spec.

    Returns:
        :math:`h` (a Python float, the same for every width and temperature).

    Example:
        >>> 0 < step_size(LangevinNTKSpec(max_width=8)) < 1
        True
    """
    X, _ = make_data(spec)
    norms = []
    with jax.ensure_compile_time_eval():  # concrete even when first called under a trace
        for s in range(8):
            key = jax.random.PRNGKey(10_000 + spec.data_seed * 8 + s)
            p = mlp.init(key, spec.dim, spec.max_width, spec.max_width, "standard")
            mask = mlp.width_mask(spec.max_width, spec.max_width)
            K = mlp.ntk_closed_form(p, jnp.asarray(X, jnp.float32), mask, "standard", spec.act)
            norms.append(np.linalg.eigvalsh(np.asarray(K, np.float64))[-1])
    return float(spec.step_frac / np.mean(norms))


def run(spec: LangevinNTKSpec, params: dict, key):
    """One lane: prior-matched Langevin from a fresh init, records every ``ntk_every`` steps.

    Args:
        spec: :class:`LangevinNTKSpec`.
        params: ``width`` (:math:`m \\le m_{\\max}`) and ``temperature`` (:math:`T`).
        key: PRNG key of the init and the noise.

    Returns:
        ``loss`` (loss records, dim ``tl``); per NTK record (dim ``t``, record 0 is the
        init): ``ntk_loss``, ``kappa`` (eigenvalues of :math:`K_t`, dim ``i``),
        ``lam_ratio`` (:math:`\\lambda_{\\min}(K_t)/\\lambda_{\\min}(K_0)`), ``jac_drift``,
        ``disp_W1``, ``disp_a`` (squared relative displacement per layer); ``K0``
        (dims ``i, j``) and ``delta0`` (:math:`y - f_0`, dim ``i``) for the lazy closed
        form; ``step`` (:math:`h`) and ``diverged_step``.
    """
    X, y = (jnp.asarray(v, jnp.float32) for v in make_data(spec))
    h = step_size(spec)
    m = jnp.asarray(params["width"], jnp.float32)
    T = jnp.asarray(params["temperature"], jnp.float32)
    mask = mlp.width_mask(m, spec.max_width)
    kinit, knoise = jax.random.split(key)
    p0 = mlp.init(kinit, spec.dim, spec.max_width, m, "standard")
    f = functools.partial(mlp.apply, X=X, mask=mask, param="standard", act=spec.act)

    def loss_fn(p):
        return 0.5 * jnp.sum((f(p) - y) ** 2)

    opt = langevin(
        h,
        T,
        weight_decay={"W1": T * spec.dim, "a": T * m},
        preconditioner={"W1": mask[:, None], "a": mask},
        seed=knoise,
    )
    J0 = mlp.jacobian(p0, X, mask, "standard", spec.act)
    n0 = {k: jnp.sum(v**2) for k, v in p0.items()}

    def record(p):
        J = mlp.jacobian(p, X, mask, "standard", spec.act)
        kappa = jnp.linalg.eigvalsh(J @ J.T)
        disp = {k: jnp.sum((p[k] - p0[k]) ** 2) / n0[k] for k in p}
        return {
            "ntk_loss": loss_fn(p),
            "kappa": kappa,
            "jac_drift": mlp.jacobian_drift(J, J0),
            "disp_W1": disp["W1"],
            "disp_a": disp["a"],
        }

    def one(c, _):
        p, s = c
        L, g = jax.value_and_grad(loss_fn)(p)
        u, s = opt.update(g, s, p)
        return (optax.apply_updates(p, u), s), L

    def chunk(c, _):
        c, L = jax.lax.scan(one, c, None, length=spec.loss_every)
        return c, L[0]

    def block(c, _):
        c, L = jax.lax.scan(chunk, c, None, length=spec.ntk_every // spec.loss_every)
        return c, (L, record(c[0]))

    if spec.ntk_every % spec.loss_every or spec.steps % spec.ntk_every:
        raise ValueError("steps must be a multiple of ntk_every, and ntk_every of loss_every")
    blocks = spec.steps // spec.ntk_every
    (p, _), (L, recs), div = guarded_scan(block, (p0, opt.init(p0)), jnp.arange(blocks))
    rec0 = record(p0)
    recs = jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), rec0, recs)
    lam = recs.pop("kappa")
    K0 = J0 @ J0.T
    return {
        "loss": jnp.concatenate([L.reshape(-1), loss_fn(p)[None]]),
        **recs,
        "kappa": lam,
        "lam_ratio": lam[:, 0] / lam[0, 0],
        "K0": K0,
        "delta0": y - f(p0),
        "step": jnp.asarray(h, jnp.float32),
        "diverged_step": div,
    }


#: Names of each metric's own dimensions (for :class:`jaxtheory.Experiment`).
METRIC_DIMS = {
    "loss": ("tl",),
    "ntk_loss": ("t",),
    "kappa": ("t", "i"),
    "jac_drift": ("t",),
    "disp_W1": ("t",),
    "disp_a": ("t",),
    "lam_ratio": ("t",),
    "K0": ("i", "j"),
    "delta0": ("i",),
}


def coords(spec: LangevinNTKSpec) -> dict:
    """Coordinates of the metric dimensions: step counts of the records.

    Args:
        spec: the spec.

    Returns:
        ``{"t": NTK record steps, "tl": loss record steps}``.

    Example:
        >>> coords(LangevinNTKSpec(steps=400, ntk_every=200, loss_every=100))["t"].tolist()
        [0, 200, 400]
    """
    return {
        "t": np.arange(0, spec.steps + 1, spec.ntk_every),
        "tl": np.arange(0, spec.steps + 1, spec.loss_every),
    }


__all__ += ["METRIC_DIMS", "coords"]


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run, spec=LangevinNTKSpec(), params=DEFAULT_PARAMS, metric_dims=METRIC_DIMS, coords=coords
)
