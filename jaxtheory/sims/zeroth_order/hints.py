"""Zeroth-order descent with synthetic subspace hints of controlled quality (CV-ZOD, 000_05).

The objective is the nonconvex

.. math::
    f(x) = \\tfrac12 x^\\top H x + A\\sum_i \\sin(\\omega x_i), \\qquad
    H = \\mathrm{diag}(\\lambda_i),

with :math:`\\lambda_i` log-spaced in :math:`[\\lambda_{\\min}, \\lambda_{\\max}]`
(:func:`jaxtheory.sims.quadratic.spectrum`), :math:`A = 0.1`, :math:`\\omega = 3`; it is
:math:`L`-smooth with :math:`L = \\lambda_{\\max} + A\\omega^2` (the Hessian is
:math:`\\mathrm{diag}(\\lambda_i - A\\omega^2\\sin\\omega x_i)`). At every iteration a
method receives a one-dimensional hint :math:`U_t = \\cos\\theta_t\\,\\hat g_t +
\\sin\\theta_t\\,n_t` built from its own gradient direction :math:`\\hat g_t` and a fresh
random unit :math:`n_t \\perp \\hat g_t`, so the hint quality is exactly
:math:`\\alpha_t = \\cos^2\\theta_t`. :data:`HINTS` names the schedules: a constant
:math:`\\alpha` (the rate grid), a constant angle, a drift of :math:`\\theta` from
10° to 88° over the horizon, or (``coarse``) the gradient direction of the coarse model
:math:`\\tfrac12 x^\\top Hx` (:func:`coarse_hint`), whose quality falls as the method
nears the fine objective's minima.

Every lane runs all of :data:`ALGORITHMS` on common random numbers (the same hint noise
and random directions). Directional derivatives are exact (``mode="jvp"``): a forward
difference in float32 has an error of order :math:`\\varepsilon_{32}|f|/\\mu` (about
:math:`10^{-3}` here at the best :math:`\\mu`), larger than the directional derivative
at the tolerance :math:`\\lVert\\nabla f\\rVert^2 = 10^{-6}`. The ``cost`` metric counts
the evaluations a function-value implementation spends (:data:`EVALS_PER_ITER`: one per
forward difference plus :math:`f(x_t)`, two per antithetic pair), the transforms' own
``n_evals`` (one per JVP) is reported beside it.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

import optax

from jaxtheory.optim import cv_zod, guided_es, hint_gd, n_evals, prgf, zo_gd, zo_gradient_estimate
from jaxtheory.sims._record import log_steps
from jaxtheory.sims.quadratic import spectrum
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "ALGORITHMS",
    "EVALS_PER_ITER",
    "HINTS",
    "HINT_ANGLES",
    "HintSpec",
    "NOT_REACHED",
    "DEFAULT_PARAMS",
    "objective",
    "gradient",
    "smoothness",
    "make_hint",
    "coarse_hint",
    "PROGRESS_HINTS",
    "run",
    "SIMULATOR",
    "estimator_moments",
    "identity_residuals",
]

#: The methods every lane runs, in this order along the ``algo`` dimension.
ALGORITHMS = ("cv_zod", "cv_zod_adaptive", "zo_gd", "hint_gd", "guided_es", "prgf")
#: Evaluations per iteration of a function-value (forward-difference) implementation with
#: a one-dimensional hint and one random direction: CV-ZOD f(x) + hint + random; ZO-GD f(x)
#: + random; projected-hint GD f(x) + hint; Guided ES one antithetic pair; PRGF f(x) +
#: hint + one orthogonalised random direction.
EVALS_PER_ITER = {"cv_zod": 3, "cv_zod_adaptive": 3, "zo_gd": 2, "hint_gd": 2, "guided_es": 2, "prgf": 3}


def _theta(alpha):
    return float(np.degrees(np.arccos(np.sqrt(alpha))))


#: The value of ``iters_to_tol`` and ``evals_to_zo_final`` where the target is not reached.
NOT_REACHED = -1.0

#: Hint schedules: label -> (θ at the first iteration, θ at the last) in degrees. ``a<α>``
#: holds α = cos²θ constant (the rate grid), ``t<θ>`` a constant angle, ``drift`` moves θ
#: linearly from 10° to 88° over the horizon (and keeps 88° after it).
HINT_ANGLES = {
    "a1": (0.0, 0.0),
    "a0.999": (_theta(0.999),) * 2,
    "a0.99": (_theta(0.99),) * 2,
    "a0.9": (_theta(0.9),) * 2,
    "a0.5": (45.0, 45.0),
    "a0": (90.0, 90.0),
    "t80": (80.0, 80.0),
    "t89": (89.0, 89.0),
    "drift": (10.0, 88.0),
}
#: Hint schedules whose quality depends on the method's own progress rather than on the
#: iteration: ``coarse`` is the gradient of the coarse model :math:`f_c(x) =
#: \\tfrac12 x^\\top H x` (the objective without its fine-scale ripple), whose alignment
#: with :math:`\\nabla f` degrades as a method approaches the fine objective's minima
#: (:func:`coarse_hint`).
PROGRESS_HINTS = ("coarse",)
#: The hint labels, in code order (the ``hint`` parameter is categorical over these).
HINTS = tuple(HINT_ANGLES) + PROGRESS_HINTS


@dataclasses.dataclass(frozen=True)
class HintSpec:
    """Shapes of a run.

    Attributes:
        dim: dimension :math:`d`.
        steps: horizon :math:`T` of the comparison of all methods.
        rate_steps: horizon of the oracle CV-ZOD alone (it continues after ``steps``) for
            the iterations to tolerance.
        num_log: about this many log-spaced steps are logged.
        tol: the tolerance on :math:`\\lVert\\nabla f\\rVert^2` of ``iters_to_tol``.
    """

    dim: int = 200
    steps: int = 2000
    rate_steps: int = 10000
    num_log: int = 40
    tol: float = 1e-6


#: Default parameters: the spectrum's ends, the sine's amplitude and frequency, the start
#: :math:`x_0 = x_0\\mathbf 1`, the hint schedule, AdaGrad-Norm's η and b₀ (adaptive
#: CV-ZOD) and Guided ES's isotropic weight α.
DEFAULT_PARAMS = {
    "lam_min": 1e-2,
    "lam_max": 1.0,
    "amp": 0.1,
    "freq": 3.0,
    "x0": 0.5,
    "hint": HINTS[0],
    "ada_lr": 1.0,
    "ada_b0": 0.1,
    "ges_alpha": 0.5,
}


def objective(x, lam, amp=0.1, freq=3.0):
    """:math:`f(x) = \\tfrac12\\sum_i\\lambda_i x_i^2 + A\\sum_i\\sin(\\omega x_i)`.

    Example:
        >>> import jax.numpy as jnp
        >>> float(objective(jnp.zeros(3), jnp.ones(3)))
        0.0
    """
    return 0.5 * jnp.sum(lam * x * x) + amp * jnp.sum(jnp.sin(freq * x))


def gradient(x, lam, amp=0.1, freq=3.0):
    """:math:`\\nabla f(x) = \\lambda\\odot x + A\\omega\\cos(\\omega x)`.

    Example:
        >>> import jax.numpy as jnp
        >>> [round(float(v), 6) for v in gradient(jnp.zeros(2), jnp.ones(2))]
        [0.3, 0.3]
    """
    return lam * x + amp * freq * jnp.cos(freq * x)


def smoothness(lam_max, amp=0.1, freq=3.0):
    """The smoothness constant :math:`L = \\lambda_{\\max} + A\\omega^2` (sup of :math:`|f''|`).

    Example:
        >>> round(smoothness(1.0), 6)
        1.9
    """
    return lam_max + amp * freq**2


def make_hint(grad, theta, key):
    """The hint :math:`U = \\cos\\theta\\,\\hat g + \\sin\\theta\\,n`, ``(1, d)``, :math:`n\\perp\\hat g` random.

    Args:
        grad: the gradient (``(d,)``).
        theta: the angle in radians.
        key: PRNG key of :math:`n`.

    Returns:
        A unit row ``(1, d)`` with :math:`\\langle U,\\hat g\\rangle = \\cos\\theta`.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> g = jnp.array([3.0, 0.0, 4.0])
        >>> U = make_hint(g, jnp.pi / 3, jax.random.key(0))
        >>> round(float(U[0] @ g / 5.0), 5), round(float(jnp.linalg.norm(U)), 5)
        (0.5, 1.0)
    """
    tiny = jnp.finfo(grad.dtype).tiny
    gh = grad / jnp.maximum(jnp.linalg.norm(grad), tiny)
    n = jax.random.normal(key, grad.shape, grad.dtype)
    n = n - (n @ gh) * gh
    n = n - (n @ gh) * gh
    n = n / jnp.linalg.norm(n)
    return (jnp.cos(theta) * gh + jnp.sin(theta) * n)[None]


def coarse_hint(x, lam):
    """The coarse model's gradient direction :math:`H x/\\lVert Hx\\rVert`, ``(1, d)``.

    The coarse model :math:`f_c(x) = \\tfrac12 x^\\top Hx` is the objective without its
    ripple :math:`A\\sum_i\\sin\\omega x_i`, as a low-resolution simulator misses
    fine-scale structure. Far from the minima :math:`Hx` dominates :math:`\\nabla f`; near a
    minimiser of :math:`f` (where :math:`\\lambda_i x_i = -A\\omega\\cos\\omega x_i`)
    :math:`Hx` is cancelled by the ripple's gradient, so the hint carries little of
    :math:`\\nabla f`'s direction: its quality :math:`\\alpha_t` falls with the
    method's progress.

    Example:
        >>> import jax.numpy as jnp
        >>> [round(float(v), 3) for v in coarse_hint(jnp.array([3.0, 4.0]), jnp.ones(2))[0]]
        [0.6, 0.8]
    """
    h = lam * x
    return (h / jnp.maximum(jnp.linalg.norm(h), jnp.finfo(h.dtype).tiny))[None]


def _theta_at(code, t, steps):
    angles = [HINT_ANGLES.get(h, (0.0, 0.0)) for h in HINTS]  # progress hints: unused row
    table = jnp.radians(jnp.asarray(angles, jnp.float32))
    a, b = table[code, 0], table[code, 1]
    frac = jnp.clip(t / max(steps - 1, 1), 0.0, 1.0)
    return a + (b - a) * frac


def _methods(params, dim, L, seed):
    """The transforms (jvp mode) and their constant steps, in ALGORITHMS order."""
    lam_max_sigma = params["ges_alpha"] / dim + (1.0 - params["ges_alpha"])
    return [
        cv_zod(1.0 / L, "oracle", mode="jvp", seed=seed),
        cv_zod(params["ada_lr"], "adaptive", mode="jvp", seed=seed, b0=params["ada_b0"]),
        zo_gd(1.0 / (L * dim), mode="jvp", seed=seed),
        hint_gd(1.0 / L, mode="jvp"),
        guided_es(1.0 / (L * (1.0 + 2.0 * lam_max_sigma)), params["ges_alpha"], mode="jvp", seed=seed),
        prgf(1.0 / L, mode="jvp", seed=seed),
    ]


def run(spec: HintSpec, params: dict, key: jax.Array) -> dict:
    """All of :data:`ALGORITHMS` from :math:`x_0 = x_0\\mathbf 1` under one hint schedule; pure, vmappable.

    The step sizes are the descent-lemma ones: :math:`1/(LF_t)` for the oracle CV-ZOD
    (:math:`F_t = \\alpha_t + d(1-\\alpha_t)`), :math:`1/(Ld)` for ZO-GD, :math:`1/L` for
    projected-hint GD and PRGF, :math:`1/(L(1+2\\lambda_{\\max}(\\Sigma)))` for Guided
    ES; the adaptive CV-ZOD uses AdaGrad-Norm (``ada_lr``, ``ada_b0``).

    Args:
        spec: :class:`HintSpec`.
        params: see :data:`DEFAULT_PARAMS`; ``hint`` is the integer code of a label of
            :data:`HINTS`.
        key: the lane's PRNG key.

    Returns:
        ``loss``, ``grad_sq`` and ``cost`` (evaluations, :data:`EVALS_PER_ITER`) per
        ``(algo, step)`` at ``log_steps(steps, num_log)``; per ``algo``: ``final_loss``,
        ``n_evals`` (the transforms' count, one per JVP), ``iters_to_tol`` (iterations
        until :math:`\\lVert\\nabla f\\rVert^2 \\le` ``tol``; :data:`NOT_REACHED` if not within the
        horizon, ``rate_steps`` for the oracle CV-ZOD, ``steps`` for the others) and
        ``evals_to_zo_final`` (evaluations until the loss first reaches ZO-GD's final
        loss, :data:`NOT_REACHED` if never); and ``zo_final_loss``. The sentinel keeps
        the metrics finite (a non-finite metric marks a lane diverged); claims read it as
        :math:`\\infty` (a censored time).

    Example:
        >>> import jax
        >>> out = run(HintSpec(dim=8, steps=50, rate_steps=60, num_log=5),
        ...           dict(DEFAULT_PARAMS, hint=0), jax.random.key(0))
        >>> out["loss"].shape, out["iters_to_tol"].shape
        ((6, 5), (6,))
    """
    d, T = spec.dim, spec.steps
    if spec.rate_steps < T:
        raise ValueError(f"rate_steps ({spec.rate_steps}) must be at least steps ({T})")
    dtype = jnp.float32
    lam = spectrum(d, params["lam_min"], params["lam_max"]).astype(dtype)
    amp, freq = params["amp"], params["freq"]
    L = smoothness(params["lam_max"], amp, freq)

    def f(z):
        return objective(z, lam, amp, freq)

    def grad(z):
        return gradient(z, lam, amp, freq)

    seed = jax.random.fold_in(key, 1)
    opts = _methods(params, d, L, seed)
    x0 = jnp.full((d,), params["x0"], dtype)
    xs0 = [x0] * len(opts)
    states0 = [o.init(x0) for o in opts]

    coarse = jnp.asarray(params["hint"]) == HINTS.index("coarse")

    def one(i, x, s, t, hkey):
        g = grad(x)
        theta = _theta_at(params["hint"], t, T)
        Uc = coarse_hint(x, lam)
        gn2 = jnp.maximum(g @ g, jnp.finfo(dtype).tiny)
        alpha = jnp.where(coarse, (Uc[0] @ g) ** 2 / gn2, jnp.cos(theta) ** 2)
        U = jnp.where(coarse, Uc, make_hint(g, theta, hkey))
        extra = {"value_fn": f, "hint_basis": U}
        if i == 0:
            extra["hint_quality"] = alpha
        elif ALGORITHMS[i] == "zo_gd":
            extra.pop("hint_basis")
        u, s = opts[i].update(x, s, x, **extra)
        x = optax.apply_updates(x, u)
        g = grad(x)
        return x, s, (f(x), g @ g)

    def step(carry, t):
        xs, ss = carry
        hkey = jax.random.fold_in(jax.random.fold_in(key, 2), t)
        out = [one(i, xs[i], ss[i], t, hkey) for i in range(len(opts))]
        xs = [o[0] for o in out]
        ss = [o[1] for o in out]
        loss = jnp.stack([o[2][0] for o in out])
        gsq = jnp.stack([o[2][1] for o in out])
        return (xs, ss), (loss, gsq)

    (xs, ss), (loss, gsq) = jax.lax.scan(step, (xs0, states0), jnp.arange(T))
    # loss[t], gsq[t]: after t + 1 iterations
    iters = jnp.arange(1, T + 1, dtype=dtype)
    inf = jnp.asarray(jnp.inf, dtype)
    never = jnp.asarray(NOT_REACHED, dtype)

    def first(mask):
        return jnp.min(jnp.where(mask, iters[:, None], inf), axis=0)

    g0 = grad(x0) @ grad(x0)
    hit = jnp.where(g0 <= spec.tol, 0.0, first(gsq <= spec.tol))
    zo = ALGORITHMS.index("zo_gd")
    zo_final = loss[-1, zo]
    per_iter = jnp.asarray([EVALS_PER_ITER[a] for a in ALGORITHMS], dtype)
    evals_to = first(loss <= zo_final) * per_iter

    # the oracle CV-ZOD continues alone to rate_steps
    extra_steps = spec.rate_steps - T

    def rate_step(carry, t):
        x, s, found = carry
        x, s, (_, gq) = one(0, x, s, t, jax.random.fold_in(jax.random.fold_in(key, 2), t))
        found = jnp.where(jnp.isinf(found) & (gq <= spec.tol), (t + 1).astype(dtype), found)
        return (x, s, found), None

    if extra_steps > 0:
        (_, _, found), _ = jax.lax.scan(rate_step, (xs[0], ss[0], hit[0]), jnp.arange(T, spec.rate_steps))
        hit = hit.at[0].set(found)
    hit = jnp.where(jnp.isinf(hit), never, hit)
    evals_to = jnp.where(jnp.isinf(evals_to), never, evals_to)
    logged = jnp.asarray(log_steps(T, spec.num_log) - 1, jnp.int32)
    evals = jnp.stack([n_evals(s) for s in ss])
    return {
        "loss": loss[logged].T,
        "grad_sq": gsq[logged].T,
        "cost": per_iter[:, None] * (logged + 1).astype(dtype)[None, :],
        "final_loss": loss[-1],
        "n_evals": evals,
        "iters_to_tol": hit,
        "evals_to_zo_final": evals_to,
        "zo_final_loss": zo_final,
    }


def estimator_moments(dim: int, alpha: float, num_draws: int, key, x0: float = 0.5, lam=None) -> dict:
    """Monte Carlo moments of the oracle-reference CV estimate at :math:`x_0\\mathbf 1` (exact JVPs).

    One hint :math:`U` of quality :math:`\\alpha` is drawn (:func:`make_hint`), then
    ``num_draws`` estimates :math:`g = c + d(D_u f - \\langle c,u\\rangle)u` with
    :math:`c = P_U\\nabla f`. Runs in the default float dtype (float64 inside
    ``jax.enable_x64(True)``).

    Args:
        dim: :math:`d`.
        alpha: hint quality :math:`\\alpha`.
        num_draws: :math:`N`.
        key: PRNG key.
        x0: the point's constant coordinate.
        lam: the spectrum (default log-spaced in [1e-2, 1]).

    Returns:
        ``z``: :math:`\\lVert\\bar g - \\nabla f\\rVert/\\mathrm{SE}` with
        :math:`\\mathrm{SE} = \\sqrt{(d-1)(1-\\alpha)/N}\\,\\lVert\\nabla f\\rVert` (NaN at
        :math:`\\alpha = 1`), and ``second_moment``: the mean of
        :math:`\\lVert g\\rVert^2/\\lVert\\nabla f\\rVert^2`.

    Example:
        >>> import jax
        >>> m = estimator_moments(20, 0.5, 2000, jax.random.key(0))
        >>> 0.5 < float(m["z"]) < 2.0, abs(float(m["second_moment"]) / 10.5 - 1) < 0.1
        (True, True)
    """
    dtype = jnp.zeros(()).dtype
    lam = spectrum(dim, 1e-2, 1.0).astype(dtype) if lam is None else jnp.asarray(lam, dtype)
    x = jnp.full((dim,), x0, dtype)

    def f(z):
        return objective(z, lam)

    g = gradient(x, lam)
    khint, kdraw = jax.random.split(key)
    theta = jnp.arccos(jnp.sqrt(jnp.asarray(alpha, dtype)))
    U = make_hint(g, theta, khint)

    def draw(k):
        return zo_gradient_estimate(f, x, k, hint_basis=U, mode="jvp")[0]

    gs = jax.vmap(draw)(jax.random.split(kdraw, num_draws))
    gn2 = g @ g
    se = jnp.sqrt((dim - 1) * (1 - alpha) / num_draws * gn2)
    err = jnp.linalg.norm(gs.mean(0) - g)
    return {"z": err / se, "second_moment": jnp.mean(jnp.sum(gs * gs, axis=1)) / gn2}


def identity_residuals(dim: int = 50, steps: int = 50, key=None, x0: float = 0.5) -> dict:
    """Residuals of CV-ZOD's two exact identities, in the default float dtype.

    * ``oracle_alpha1_vs_gd``: the oracle CV-ZOD with a perfect hint (:math:`\\theta = 0`,
      :math:`\\alpha = 1`) and ``learning_rate`` :math:`1/L` against gradient descent
      with step :math:`1/L`: :math:`\\max_t\\lVert x_t^{cv} - x_t^{gd}\\rVert_\\infty` (a
      rounding residual; float64 inside ``jax.enable_x64(True)``);
    * ``zero_reference_vs_zo_gd``: CV-ZOD with a zero hint basis (:math:`c = 0`) against
      ZO-GD with the same step and seed: the same residual, zero by construction.

    Args:
        dim: :math:`d`.
        steps: iterations.
        key: PRNG key (default ``jax.random.key(0)``).
        x0: the start's constant coordinate.

    Returns:
        A dict of the two residuals (scalars).

    Example:
        >>> r = identity_residuals(dim=10, steps=5)
        >>> float(r["zero_reference_vs_zo_gd"])
        0.0
    """
    key = jax.random.key(0) if key is None else key
    dtype = jnp.zeros(()).dtype
    lam = spectrum(dim, 1e-2, 1.0).astype(dtype)
    L = smoothness(1.0)

    def f(z):
        return objective(z, lam)

    x = jnp.full((dim,), x0, dtype)
    oracle = cv_zod(1.0 / L, "oracle", mode="jvp", seed=key)
    cv0 = cv_zod(1.0 / (L * dim), "oracle", mode="jvp", seed=key)
    zo = zo_gd(1.0 / (L * dim), mode="jvp", seed=key)
    zeros = jnp.zeros((1, dim), dtype)

    def body(carry, t):
        xa, sa, xg, xc, sc, xz, sz = carry
        g = gradient(xa, lam)
        U = make_hint(g, jnp.zeros((), dtype), jax.random.fold_in(key, t))
        ua, sa = oracle.update(xa, sa, xa, value_fn=f, hint_basis=U, hint_quality=1.0)
        xa = xa + ua
        xg = xg - gradient(xg, lam) / L
        uc, sc = cv0.update(xc, sc, xc, value_fn=f, hint_basis=zeros)
        xc = xc + uc
        uz, sz = zo.update(xz, sz, xz, value_fn=f)
        xz = xz + uz
        return (xa, sa, xg, xc, sc, xz, sz), (jnp.max(jnp.abs(xa - xg)), jnp.max(jnp.abs(xc - xz)))

    init = (x, oracle.init(x), x, x, cv0.init(x), x, zo.init(x))
    _, (r_gd, r_zo) = jax.lax.scan(body, init, jnp.arange(steps))
    return {"oracle_alpha1_vs_gd": jnp.max(r_gd), "zero_reference_vs_zo_gd": jnp.max(r_zo)}


#: The simulator's declaration: the hint schedule is categorical (labels :data:`HINTS`);
#: every method runs inside a lane (dimension ``algo``), its curves at ``log_steps``.
SIMULATOR = Simulator(
    run,
    spec=HintSpec(),
    params={**DEFAULT_PARAMS, "hint": categorical(*HINTS)},
    metric_dims={
        "loss": ("algo", "step"),
        "grad_sq": ("algo", "step"),
        "cost": ("algo", "step"),
        "final_loss": ("algo",),
        "n_evals": ("algo",),
        "iters_to_tol": ("algo",),
        "evals_to_zo_final": ("algo",),
    },
    coords=lambda spec: {"algo": list(ALGORITHMS), "step": log_steps(spec.steps, spec.num_log)},
)
