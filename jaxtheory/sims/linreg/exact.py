r"""Exact expected-risk recursions (deterministic equivalent) for SGD, LA, LA-DiLoCo and SLA.

**Model.** Streaming Gaussian linear regression (see :mod:`.problems`): at every inner
step each worker draws a fresh batch of :math:`B` samples :math:`x \sim N(0, K)`,
:math:`K = \mathrm{diag}(\lambda)`, and takes the minibatch gradient
:math:`g = \frac1B\sum_b x_b(\langle x_b, \theta\rangle - y_b)`. Write
:math:`e = \theta - \theta^*`. Given :math:`e`, :math:`\mathbb E[g\,|\,e] = Ke` and,
by the Gaussian fourth-moment identity
:math:`\mathbb E[xx^\top C xx^\top] = 2KCK + \operatorname{tr}(KC)K`,

.. math::
    \mathbb E[gg^\top] = KCK + \tfrac1B\big(KCK + \operatorname{tr}(KC)K + \sigma^2 K\big),
    \qquad C = \mathbb E[ee^\top].

So :math:`g = Ke + n` with :math:`\mathbb E[n \,|\, \text{past}] = 0` and, per mode,
:math:`\mathbb E[n_i^2] = N_i = \frac1B\big(\lambda_i^2 C_{ii} + \lambda_i(\sum_j
\lambda_j C_{jj} + \sigma^2)\big)`: only the *diagonal* of :math:`C` enters, so the
per-mode second moments close exactly, at every finite :math:`D`.

**One momentum step, per mode.** Every update here (inner and outer) has the form

.. math::
    m' = \beta m + g, \qquad e' = e - \eta\,u, \qquad
    u = \begin{cases} g & \text{plain}\\ m' & \text{heavy ball}\\ g + \beta m' &
    \text{Nesterov (optax convention)}\end{cases}

with a "gradient" :math:`g = h\,e + n`, :math:`n` conditionally centred with variance
:math:`N`. With :math:`A = \mathbb E e^2`, :math:`X = \mathbb E em`,
:math:`M = \mathbb E m^2` and :math:`G = \mathbb E g^2 = h^2 A + N`:

.. math::
    \mathbb E[g m'] = \beta h X + G,\quad M' = \beta^2 M + 2\beta h X + G,\quad
    \mathbb E[e m'] = hA + \beta X,

heavy ball: :math:`A' = A - 2\eta\,\mathbb E[em'] + \eta^2 M'`,
:math:`X' = \mathbb E[em'] - \eta M'`; Nesterov: :math:`\mathbb E[eu] = hA + \beta\,
\mathbb E[em']`, :math:`\mathbb E[u^2] = G + 2\beta\,\mathbb E[gm'] + \beta^2 M'`,
:math:`\mathbb E[um'] = \mathbb E[gm'] + \beta M'`,
:math:`A' = A - 2\eta\,\mathbb E[eu] + \eta^2\mathbb E[u^2]`,
:math:`X' = \mathbb E[em'] - \eta\,\mathbb E[um']`; plain:
:math:`A' = (1-\eta h)^2 A + \eta^2 N`. The means follow the same linear map without
noise (:func:`_mean_step`).

**Inner loop** (each worker, batch :math:`B`, :math:`h = \lambda`, :math:`N` as above with
:math:`C_{ii} = A_i`, learning rate :math:`\eta`, inner momentum :math:`\beta`; the inner
momentum is restarted at every synchronization). After :math:`k` steps from the slow
error :math:`e`, a worker's fast error has conditional mean :math:`P_k(\lambda) e` (the
residual polynomial: :math:`(1-\eta\lambda)^k` for plain SGD) and second moment
:math:`d^{(k)} = A_k`.

**Outer step** (slow error :math:`e`, outer momentum buffer :math:`v`). The
pseudo-gradient of :math:`W` workers is :math:`\Delta = \theta - \bar\phi_k`. Given
:math:`(e, v)` the workers are independent with common mean :math:`P_k e`, hence

.. math::
    \Delta = h\,e + \zeta,\qquad h = 1 - P_k(\lambda),\qquad
    \mathbb E\zeta^2 = \xi = \frac{d^{(k)} - P_k^2\, d}{W},\qquad d = \mathbb E e^2,

and the outer step is the same momentum step with :math:`(h, N, \eta, \beta) \to
(1-P_k, \xi, \alpha, \mu)` on :math:`(d, c = \mathbb E ev, s = \mathbb E v^2)`:
outer gradient descent with step :math:`\alpha` on the *effective Hessian*
:math:`h(\lambda) = 1-(1-\eta\lambda)^k`. Without outer momentum this is
:math:`d' = (1-\alpha h)^2 d + \alpha^2\xi`, i.e.
:math:`(1-\alpha)^2 d + 2\alpha(1-\alpha)P d + \alpha^2[P^2 d + (d^{(k)}-P^2 d)/W]`.
Closed forms that follow: :math:`k=1` is SGD with step :math:`\alpha\eta` and batch
:math:`WB`; :math:`\alpha = 1, W = 1` is SGD with step :math:`\eta`.

**Numerics.** The recursion runs per gradient step :math:`t`; the outer step is
applied when :math:`(t+1) \bmod k = 0`, so :math:`k`, :math:`W` and :math:`B` are
ordinary (vmappable) parameters. The state is stored divided by :math:`e^{\ell}` with a
running log-scale :math:`\ell` (renormalized at every outer step), so noiseless runs
can decay far below float32's range; ``log_risk`` never underflows. Cost: :math:`O(D)`
per gradient step.

References:
    Agarwala, *High dimensional theory of two-phase optimizers*, arXiv:2603.26954;
    Zhang et al., *Lookahead optimizer*, arXiv:1907.08610;
    Douillard et al., *DiLoCo*, arXiv:2311.08105.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp

from jaxtheory.sims._record import mask_diverged, scan_record
from jaxtheory.sims.linreg.problems import SPECTRA, _FT, log_grid, problem

__all__ = ["ALGORITHMS", "MOMENTA", "ExactSpec", "EXACT_DEFAULT_PARAMS", "run", "moment_step"]

#: Algorithms the exact recursion covers (the ``algorithm`` spec field).
ALGORITHMS = ("sgd", "lookahead", "diloco")
#: Momentum kinds for the inner and outer steps.
MOMENTA = ("none", "heavy_ball", "nesterov")

#: Default parameters of the exact-recursion :func:`run`.
EXACT_DEFAULT_PARAMS = {
    "lr": 0.5,
    "alpha": 0.5,
    "mu": 0.0,
    "beta": 0.0,
    "sigma2": 0.0,
    "a": 1.5,
    "b": 1.5,
    "gamma": 0.5,
    "kappa": 100.0,
    "frac": 0.5,
    "k": 1,
    "workers": 1,
    "batch": 1,
}


@dataclasses.dataclass(frozen=True)
class ExactSpec:
    """Static structure of an exact-recursion run (the compile key).

    Attributes:
        dim: number of modes :math:`D`.
        steps: gradient steps per worker :math:`T`.
        num_log: about this many log-spaced steps are logged (:func:`.log_grid`).
        algorithm: ``"sgd"``, ``"lookahead"`` (one worker) or ``"diloco"``
            (``params["workers"]`` workers).
        outer: outer momentum of the two-phase methods: ``"none"`` (LA / LA-DiLoCo),
            ``"heavy_ball"`` or ``"nesterov"`` (SLA).
        inner: inner (or SGD) momentum: ``"none"``, ``"heavy_ball"``, ``"nesterov"``.
        spectrum: ``"power_law"``, ``"marchenko_pastur"`` or ``"two_scale"``.
        full_batch: population gradients (no sampling noise): gradient descent.
    """

    dim: int = 256
    steps: int = 1000
    num_log: int = 32
    algorithm: str = "lookahead"
    outer: str = "none"
    inner: str = "none"
    spectrum: str = "power_law"
    full_batch: bool = False

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        for f in ("outer", "inner"):
            if getattr(self, f) not in MOMENTA:
                raise ValueError(f"{f} must be one of {MOMENTA}, got {getattr(self, f)!r}")
        if self.spectrum not in SPECTRA:
            raise ValueError(f"spectrum must be one of {SPECTRA}, got {self.spectrum!r}")


def moment_step(kind: str, h, lr, mom, nvar, A, X, M):
    r"""One momentum step on per-mode second moments :math:`(A, X, M) = \mathbb E(e^2, em, m^2)`.

    The update is :math:`m' = \beta m + g`, :math:`e' = e - \eta u` with
    :math:`g = h e + n`, :math:`\mathbb E n^2 = N` (``nvar``) and :math:`u = g`,
    :math:`m'` or :math:`g + \beta m'` for ``kind`` ``"none"``, ``"heavy_ball"``,
    ``"nesterov"`` (the formulas are in the module docstring).

    Args:
        kind: ``"none"``, ``"heavy_ball"`` or ``"nesterov"`` (static).
        h: curvature per mode.
        lr: step size :math:`\eta`.
        mom: momentum :math:`\beta` (ignored for ``"none"``).
        nvar: noise variance per mode.
        A, X, M: second moments (``X``, ``M`` are passed through for ``"none"``).

    Returns:
        ``(A', X', M')``.

    Example:
        >>> import jax.numpy as jnp
        >>> [round(float(v), 6) for v in moment_step("none", 1.0, 0.5, 0.0, 0.2, 1.0, 0.0, 0.0)]
        [0.3, 0.0, 0.0]
    """
    if kind == "none":
        q = 1 - lr * h
        return q * q * A + lr * lr * nvar, X, M
    G = h * h * A + nvar
    gm = mom * h * X + G  # E[g m']
    M2 = mom * mom * M + mom * h * X + gm  # beta^2 M + 2 beta h X + G
    em = h * A + mom * X  # E[e m']
    if kind == "heavy_ball":
        return A - 2 * lr * em + lr * lr * M2, em - lr * M2, M2
    if kind == "nesterov":
        eu = h * A + mom * em
        uu = G + 2 * mom * gm + mom * mom * M2
        um = gm + mom * M2
        return A - 2 * lr * eu + lr * lr * uu, em - lr * um, M2
    raise ValueError(f"unknown momentum kind {kind!r}")


def _mean_step(kind, h, lr, mom, p, q):
    """The noiseless version of :func:`moment_step` on the means (p of e, q of m)."""
    if kind == "none":
        return (1 - lr * h) * p, q
    q2 = mom * q + h * p
    if kind == "heavy_ball":
        return p - lr * q2, q2
    return p - lr * (h * p + mom * q2), q2


def run(spec: ExactSpec, params, key=None) -> dict:
    r"""Expected excess risk of SGD / LA / LA-DiLoCo / SLA, exactly, per eigenmode.

    Pure, jittable and vmappable over every entry of ``params`` (including ``k``,
    ``workers`` and ``batch``, which change no shape here); ``key`` is unused (the
    recursion is deterministic) and accepted for the sweep engine.

    Args:
        spec: :class:`ExactSpec`.
        params: ``lr`` (:math:`\eta`), ``alpha`` (:math:`\alpha`), ``mu`` (outer momentum
            :math:`\mu`), ``beta`` (inner momentum :math:`\beta`), ``sigma2``
            (:math:`\sigma^2`), ``k`` (sync period), ``workers`` (:math:`W`, ``"diloco"``
            only), ``batch`` (:math:`B`, per worker), and the problem's ``a``, ``b``,
            ``gamma``, ``kappa``, ``frac`` (see :mod:`.problems`).
        key: ignored.

    Returns:
        ``risk`` and ``log_risk`` (natural log) of the slow weights at :func:`.log_grid`
        gradient steps (NaN after a divergence), ``final_risk``, ``final_log_risk`` and
        ``diverged_step`` (-1 when finite).

    Example:
        >>> p = dict(EXACT_DEFAULT_PARAMS, k=4, alpha=0.5, batch=4, sigma2=0.1)
        >>> out = run(ExactSpec(dim=16, steps=64, num_log=4), p)
        >>> out["risk"].shape, [round(float(r), 4) for r in out["risk"]]
        ((4,), [0.5, 0.3366, 0.1676, 0.0647])

    References:
        Agarwala, arXiv:2603.26954.
    """
    lam, t2 = problem(spec.spectrum, spec.dim, params)
    ft = _FT()
    eta = jnp.asarray(params["lr"], ft)
    alpha = jnp.asarray(params["alpha"], ft)
    mu = jnp.asarray(params["mu"], ft)
    beta = jnp.asarray(params["beta"], ft)
    sigma2 = jnp.asarray(params["sigma2"], ft)
    dtype = lam.dtype
    lam, t2 = lam.astype(dtype), t2.astype(dtype)
    if spec.full_batch:
        inv_b = jnp.zeros((), dtype)
    else:
        inv_b = 1.0 / jnp.asarray(params["batch"], dtype)
    k = jnp.maximum(jnp.round(jnp.asarray(params["k"], ft)).astype(jnp.int32), 1)
    if spec.algorithm == "diloco":
        inv_w = 1.0 / jnp.asarray(params["workers"], dtype)
    else:
        inv_w = jnp.ones((), dtype)
    two_phase = spec.algorithm != "sgd"
    zeros = jnp.zeros_like(lam)

    n0 = jnp.sum(lam * t2)
    n0 = jnp.where(n0 > 0, n0, 1.0)
    d0 = t2 / n0
    ell0 = jnp.log(n0)

    def inner_step(A, X, M, pe, pm, ell):
        noise = sigma2 * jnp.exp(jnp.minimum(-ell, 80.0))  # sigma^2 in the state's units
        nvar = inv_b * (lam * lam * A + lam * (jnp.sum(lam * A) + noise))
        A, X, M = moment_step(spec.inner, lam, eta, beta, nvar, A, X, M)
        pe, pm = _mean_step(spec.inner, lam, eta, beta, pe, pm)
        return A, X, M, pe, pm

    def renorm(arrs, ell, ref):
        n = jnp.sum(lam * ref)
        n = jnp.where((n > 0) & jnp.isfinite(n), n, 1.0)
        return [a / n for a in arrs], ell + jnp.log(n)

    def step(carry, t):
        (d, c, s, A, X, M, pe, pm, ell) = carry
        A, X, M, pe, pm = inner_step(A, X, M, pe, pm, ell)
        if two_phase:
            h = 1 - pe
            xi = (A - pe * pe * d) * inv_w
            d2, c2, s2 = moment_step(spec.outer, h, alpha, mu, xi, d, c, s)
            (d2, c2, s2), ell2 = renorm([d2, c2, s2], ell, d2)
            sync = (t + 1) % k == 0
            sel = lambda a, b: jnp.where(sync, a, b)  # noqa: E731
            d, c, s, ell = sel(d2, d), sel(c2, c), sel(s2, s), sel(ell2, ell)
            A, X, M = sel(d2, A), sel(zeros, X), sel(zeros, M)
            pe, pm = sel(jnp.ones_like(pe), pe), sel(zeros, pm)
        else:
            (A, X, M), ell = renorm([A, X, M], ell, A)
        return (d, c, s, A, X, M, pe, pm, ell)

    def observe(carry):  # (risk, log risk) of the slow weights
        slow = carry[0] if two_phase else carry[3]
        lr_ = carry[8] + jnp.log(0.5 * jnp.sum(lam * slow))
        return jnp.exp(lr_), lr_

    init = (
        d0,
        zeros,
        zeros,
        d0,
        zeros,
        zeros,
        jnp.ones_like(lam),
        zeros,
        ell0,
    )
    final, (risk, log_risk), div = scan_record(
        step,
        init,
        log_grid(spec.steps, spec.num_log),
        observe,
        length=spec.steps,
        guard=True,
        watch=lambda c: (c, observe(c)[0]),  # a risk that overflows is a divergence too
    )
    final_risk, final_log_risk = mask_diverged(observe(final), div)
    return {
        "risk": risk,
        "log_risk": log_risk,
        "final_risk": final_risk,
        "final_log_risk": final_log_risk,
        "diverged_step": div,
    }
