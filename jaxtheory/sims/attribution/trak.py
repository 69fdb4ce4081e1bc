"""TRAK against approximate and exact leave-one-out on ridge GLMs (arXiv 2602.01312).

Ridge-regularised GLM :math:`\\hat\\theta = \\arg\\min_\\theta \\sum_i \\ell(y_i, x_i^\\top\\theta)
+ \\tfrac\\lambda2\\lVert\\theta\\rVert^2` (logistic or squared loss), fitted by Newton's
method with :math:`H = X^\\top W X + \\lambda I`, :math:`W = \\mathrm{diag}(\\ell''_i)`. The
influence of training point :math:`i` on a test output :math:`x_t^\\top\\theta` is
:math:`\\Delta_{ti} = x_t^\\top(\\hat\\theta_{-i} - \\hat\\theta)`, computed three ways:

* **exact leave-one-out** (:func:`exact_loo`): a warm-started Newton refit without point
  :math:`i`, ``vmap``-ped over :math:`i`;
* **ALO** (:func:`alo`): one Newton step with Sherman–Morrison,
  :math:`\\hat\\theta_{-i} - \\hat\\theta \\approx H^{-1}x_i\\,\\ell'_i/(1 - \\hat h_i)`,
  :math:`\\hat h_i = w_i x_i^\\top H^{-1} x_i` (:func:`jaxtheory.sims.matrix.linalg.leverages`);
  exact for the squared loss;
* **TRAK** (:func:`trak_scores`): the same step without the leverage factor, on random
  features :math:`\\phi = P^\\top x`, :math:`P \\in \\mathbb R^{p\\times k}`:
  :math:`\\tau_{ti} = \\phi_t^\\top(\\Phi^\\top W\\Phi + \\lambda P^\\top P)^{-1}\\phi_i\\,\\ell'_i`.
  The ridge term :math:`\\lambda P^\\top P` is ours: with it, :math:`k = p` is exactly
  the plain influence function :math:`x_t^\\top H^{-1}x_i\\ell'_i`. :math:`P` is drawn
  once at width ``k_max`` and its columns past :math:`k` are masked, so :math:`k` is a
  traced value (no compile per :math:`k`) and smaller projections are nested in larger ones.

:func:`run` draws a Gaussian logistic model (:func:`make_data`), fits it, computes the
three influences on ``n_test`` test points for the first ``n_loo`` training points and
returns error and ranking metrics (:func:`ranking_metrics`).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from jaxtheory.sims.matrix.linalg import leverages
from jaxtheory.simulator import Simulator

__all__ = [
    "LOSSES",
    "AttributionSpec",
    "DEFAULT_PARAMS",
    "make_data",
    "loss_derivatives",
    "newton_fit",
    "exact_loo",
    "alo",
    "trak_scores",
    "spearman_rows",
    "ranking_metrics",
    "run",
    "SIMULATOR",
]

#: Losses :func:`newton_fit` knows (labels 0/1 for ``logistic``, real for ``squared``).
LOSSES = ("logistic", "squared")

#: Defaults of every parameter :func:`run` reads: ridge λ and the signal scale
#: (θ* ~ N(0, signal² I), x ~ N(0, I/p), so x·θ* has variance signal², 4 by default).
DEFAULT_PARAMS = {"lam": 0.1, "signal": 2.0}


@dataclasses.dataclass(frozen=True)
class AttributionSpec:
    """Shapes of one attribution run (the compile key).

    Attributes:
        n: training points.
        p: dimension.
        n_test: test points.
        n_loo: leave-one-out indices (the first ``n_loo`` training points; data are i.i.d.).
        k_fracs: projection widths as fractions of ``p`` (``k = round(f p)``, at most ``p``).
        newton_steps: Newton steps of the full fit (from 0).
        refit_steps: Newton steps of each leave-one-out refit (warm-started at θ̂).
        loss: one of :data:`LOSSES`.
    """

    n: int = 300
    p: int = 150
    n_test: int = 20
    n_loo: int = 300
    k_fracs: tuple = (0.125, 0.25, 0.5, 1.0)
    newton_steps: int = 30
    refit_steps: int = 6
    loss: str = "logistic"

    def __post_init__(self):
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}, got {self.loss!r}")
        if not 1 <= self.n_loo <= self.n:
            raise ValueError(f"n_loo must be in [1, n={self.n}], got {self.n_loo}")
        if min(self.n, self.p, self.n_test) < 1 or not self.k_fracs:
            raise ValueError("n, p, n_test must be positive and k_fracs non-empty")
        if any(not 0 < f <= 1 for f in self.k_fracs):
            raise ValueError(f"k_fracs must lie in (0, 1], got {self.k_fracs}")

    @property
    def ks(self) -> tuple:
        """The projection widths ``k`` (at least 1)."""
        return tuple(max(1, round(f * self.p)) for f in self.k_fracs)


def make_data(key, n, p, n_test, signal, loss="logistic"):
    """Gaussian GLM data: x ~ N(0, I/p), θ* ~ N(0, signal² I).

    Logistic labels are Bernoulli(σ(x·θ*)) in {0, 1}; squared-loss labels are
    x·θ* + N(0, 1).

    Returns:
        ``(X, y, X_test)`` of shapes ``(n, p)``, ``(n,)``, ``(n_test, p)``.

    Example:
        >>> import jax
        >>> X, y, Xt = make_data(jax.random.key(0), 6, 3, 2, 2.0)
        >>> X.shape, y.shape, Xt.shape
        ((6, 3), (6,), (2, 3))
    """
    kx, kt, kth, ky = jax.random.split(key, 4)
    X = jax.random.normal(kx, (n, p)) / jnp.sqrt(p)
    X_test = jax.random.normal(kt, (n_test, p)) / jnp.sqrt(p)
    theta = signal * jax.random.normal(kth, (p,))
    z = X @ theta
    if loss == "logistic":
        y = jax.random.bernoulli(ky, jax.nn.sigmoid(z)).astype(X.dtype)
    else:
        y = z + jax.random.normal(ky, (n,))
    return X, y, X_test


def loss_derivatives(z, y, loss="logistic"):
    """First and second derivatives of ℓ(y, z) in z, elementwise.

    Logistic: ℓ = log(1 + e^z) − y z, so ℓ′ = σ(z) − y, ℓ″ = σ(z)(1 − σ(z)).
    Squared: ℓ = (z − y)²/2, so ℓ′ = z − y, ℓ″ = 1.

    Example:
        >>> import jax.numpy as jnp
        >>> d1, d2 = loss_derivatives(jnp.zeros(1), jnp.ones(1))
        >>> float(d1[0]), float(d2[0])
        (-0.5, 0.25)
    """
    if loss == "logistic":
        s = jax.nn.sigmoid(z)
        return s - y, s * (1 - s)
    if loss == "squared":
        return z - y, jnp.ones_like(z)
    raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")


def _hessian(X, d2, m, lam):
    return (X * (m * d2)[:, None]).T @ X + lam * jnp.eye(X.shape[1], dtype=X.dtype)


def newton_fit(X, y, lam, steps, *, weights=None, theta0=None, loss="logistic"):
    """Newton's method for the ridge GLM Σ_i m_i ℓ(y_i, x_iᵀθ) + λ/2 ‖θ‖².

    Args:
        X: ``(n, p)`` design.
        y: ``(n,)`` labels.
        lam: ridge λ > 0 (may be traced).
        steps: Newton steps (static).
        weights: sample weights ``m`` (``None``: ones; a zero drops a point).
        theta0: start (``None``: zeros).
        loss: one of :data:`LOSSES`.

    Returns:
        θ after ``steps`` full Newton steps.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> X, y, _ = make_data(jax.random.key(0), 40, 4, 1, 2.0)
        >>> th = newton_fit(X, y, 0.1, 20)
        >>> d1, _ = loss_derivatives(X @ th, y)
        >>> bool(jnp.linalg.norm(X.T @ d1 + 0.1 * th) < 1e-4)
        True
    """
    n, p = X.shape
    m = jnp.ones(n, X.dtype) if weights is None else jnp.asarray(weights, X.dtype)
    th = jnp.zeros(p, X.dtype) if theta0 is None else jnp.asarray(theta0, X.dtype)

    def step(th, _):
        d1, d2 = loss_derivatives(X @ th, y, loss)
        g = X.T @ (m * d1) + lam * th
        H = _hessian(X, d2, m, lam)
        return th - jax.scipy.linalg.solve(H, g, assume_a="pos"), None

    th, _ = jax.lax.scan(step, th, None, length=steps)
    return th


def exact_loo(X, y, theta_hat, lam, idx, steps, loss="logistic"):
    """θ̂₋ᵢ − θ̂ for every ``i`` in ``idx`` by warm-started Newton refits (vmapped).

    Returns:
        ``(len(idx), p)`` parameter changes.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> X, y, _ = make_data(jax.random.key(0), 40, 4, 1, 2.0)
        >>> th = newton_fit(X, y, 0.1, 20)
        >>> exact_loo(X, y, th, 0.1, jnp.arange(3), 8).shape
        (3, 4)
    """
    n = X.shape[0]

    def one(i):
        m = jnp.ones(n, X.dtype).at[i].set(0.0)
        return newton_fit(X, y, lam, steps, weights=m, theta0=theta_hat, loss=loss) - theta_hat

    return jax.vmap(one)(jnp.asarray(idx))


def alo(X, y, theta_hat, lam, idx, loss="logistic"):
    """Approximate leave-one-out θ̂₋ᵢ − θ̂ ≈ H⁻¹xᵢ ℓ′ᵢ/(1 − ĥᵢ), with the leverages.

    Returns:
        ``(delta, h)``: ``(len(idx), p)`` changes and the ``(n,)`` leverages
        ĥᵢ = wᵢ xᵢᵀH⁻¹xᵢ of every training point.

    Example:
        >>> import jax, jax.numpy as jnp
        >>> X, y, _ = make_data(jax.random.key(0), 40, 4, 1, 2.0)
        >>> th = newton_fit(X, y, 0.1, 20)
        >>> d, h = alo(X, y, th, 0.1, jnp.arange(3))
        >>> d.shape, h.shape
        ((3, 4), (40,))
    """
    d1, d2 = loss_derivatives(X @ theta_hat, y, loss)
    H = _hessian(X, d2, jnp.ones_like(d2), lam)
    h = leverages(X, d2, H)
    idx = jnp.asarray(idx)
    Xi = X[idx]
    step = jax.scipy.linalg.solve(H, Xi.T, assume_a="pos").T  # (m, p) rows H^{-1} x_i
    return step * (d1[idx] / (1 - h[idx]))[:, None], h


def trak_scores(X, y, theta_hat, lam, X_test, idx, P, k, loss="logistic"):
    """TRAK scores τ_ti = φ_tᵀ(ΦᵀWΦ + λPᵀP)⁻¹φ_i ℓ′_i on the first ``k`` columns of ``P``.

    Args:
        X: ``(n, p)`` training design.
        y: ``(n,)`` labels.
        theta_hat: the fitted θ̂.
        lam: ridge λ.
        X_test: ``(n_test, p)``.
        idx: training indices to score.
        P: ``(p, k_max)`` projection.
        k: active columns (``1 <= k <= k_max``; may be traced: columns past ``k`` are masked).
        loss: one of :data:`LOSSES`.

    Returns:
        ``(n_test, len(idx))`` scores (no leverage correction).

    Example:
        >>> import jax, jax.numpy as jnp
        >>> X, y, Xt = make_data(jax.random.key(0), 40, 4, 2, 2.0)
        >>> th = newton_fit(X, y, 0.1, 20)
        >>> trak_scores(X, y, th, 0.1, Xt, jnp.arange(3), jnp.eye(4), 4).shape
        (2, 3)
    """
    d1, d2 = loss_derivatives(X @ theta_hat, y, loss)
    kmax = P.shape[1]
    mask = (jnp.arange(kmax) < k).astype(X.dtype)
    Pm = P * mask
    Phi = X @ Pm
    G = (Phi * d2[:, None]).T @ Phi + lam * Pm.T @ Pm + jnp.diag(1 - mask)
    idx = jnp.asarray(idx)
    A = jax.scipy.linalg.solve(G, (Phi[idx] * d1[idx][:, None]).T, assume_a="pos")  # (kmax, m)
    return (X_test @ Pm) @ A


def _ranks(a):
    return jnp.argsort(jnp.argsort(a, axis=-1), axis=-1).astype(a.dtype)


def spearman_rows(a, b):
    """Spearman correlation of each row of ``a`` with the same row of ``b`` (no ties assumed).

    Example:
        >>> import jax.numpy as jnp
        >>> float(spearman_rows(jnp.array([[1.0, 2.0, 3.0]]), jnp.array([[1.0, 5.0, 9.0]]))[0])
        1.0
    """
    return _pearson_rows(_ranks(a), _ranks(b))


def _pearson_rows(a, b):
    a = a - a.mean(-1, keepdims=True)
    b = b - b.mean(-1, keepdims=True)
    return (a * b).sum(-1) / jnp.sqrt((a * a).sum(-1) * (b * b).sum(-1))


def _rel(est, true):
    return jnp.linalg.norm(est - true) / jnp.linalg.norm(true)


def ranking_metrics(est, true):
    """Agreement of estimated with true influences, per test row then averaged.

    Returns:
        A dict: ``rel_err`` (‖est − true‖_F/‖true‖_F), ``spearman`` and ``pearson``
        (row means), ``auc`` (the probability that a top-decile point by absolute true influence has a
        larger absolute estimate than a bottom-half point, row mean) and ``prec5`` (the fraction of
        the top 5 % by absolute estimate that is in the top 5 % by absolute true influence, row mean).

    Example:
        >>> import jax.numpy as jnp
        >>> t = jnp.arange(1.0, 41.0)[None]
        >>> {k: round(float(v), 3) for k, v in ranking_metrics(2 * t, t).items()}
        {'rel_err': 1.0, 'spearman': 1.0, 'pearson': 1.0, 'auc': 1.0, 'prec5': 1.0}
    """
    m = true.shape[-1]
    top, bottom, five = max(1, m // 10), max(1, m // 2), max(1, round(0.05 * m))
    at, ae = jnp.abs(true), jnp.abs(est)
    order = jnp.argsort(-at, axis=-1)
    pos = jnp.take_along_axis(ae, order[:, :top], -1)
    neg = jnp.take_along_axis(ae, order[:, m - bottom :], -1)
    auc = (pos[:, :, None] > neg[:, None, :]).mean((-1, -2))
    top_true = jnp.take_along_axis(_ranks(-at), jnp.argsort(-ae, axis=-1)[:, :five], -1) < five
    return {
        "rel_err": _rel(est, true),
        "spearman": spearman_rows(est, true).mean(),
        "pearson": _pearson_rows(est, true).mean(),
        "auc": auc.mean(),
        "prec5": top_true.mean(),
    }


def run(spec: AttributionSpec, params, key):
    """One draw: fit, exact LOO, ALO and TRAK at every k; error and ranking metrics.

    Returns:
        Scalars ``alo_*`` (ALO vs LOO, :func:`ranking_metrics`), ``trak_*`` with a last
        axis over ``spec.k_fracs``, ``trak_alo_err`` (TRAK at k = p vs ALO),
        ``trak_err_over_trak`` (‖LOO − TRAK_p‖/‖TRAK_p‖), ``mean_lev`` (mean ĥ),
        ``lev_odds`` (mean ĥ/(1 − ĥ)), ``lev_rms`` (root mean square of ĥ),
        ``lev_odds_weighted`` (‖(ĥ/(1 − ĥ)) ⊙ TRAK_p‖/‖TRAK_p‖, what ALO predicts for
        ``trak_err_over_trak``, since TRAK_p = (1 − ĥᵢ)·ALOᵢ column by column) and
        ``grad_norm`` (the fit's final gradient norm).
    """
    kd, kp = jax.random.split(key)
    lam = params["lam"]
    X, y, Xt = make_data(kd, spec.n, spec.p, spec.n_test, params["signal"], spec.loss)
    th = newton_fit(X, y, lam, spec.newton_steps, loss=spec.loss)
    d1, _ = loss_derivatives(X @ th, y, spec.loss)
    grad_norm = jnp.linalg.norm(X.T @ d1 + lam * th)
    idx = jnp.arange(spec.n_loo)
    true = Xt @ exact_loo(X, y, th, lam, idx, spec.refit_steps, spec.loss).T
    d_alo, h = alo(X, y, th, lam, idx, spec.loss)
    a = Xt @ d_alo.T
    P = jax.random.normal(kp, (spec.p, spec.p)) / jnp.sqrt(spec.p)
    ks = jnp.asarray(spec.ks)
    scores = jax.vmap(lambda k: trak_scores(X, y, th, lam, Xt, idx, P, k, spec.loss))(ks)
    tm = jax.vmap(lambda s: ranking_metrics(s, true))(scores)
    am = ranking_metrics(a, true)
    full = scores[jnp.argmax(ks)]
    out = {f"alo_{k}": v for k, v in am.items()}
    out.update({f"trak_{k}": v for k, v in tm.items()})
    out.update(
        trak_alo_err=_rel(full, a),
        trak_err_over_trak=jnp.linalg.norm(true - full) / jnp.linalg.norm(full),
        mean_lev=h.mean(),
        lev_odds=(h / (1 - h)).mean(),
        lev_rms=jnp.sqrt((h * h).mean()),
        lev_odds_weighted=jnp.linalg.norm(full * (h[idx] / (1 - h[idx]))) / jnp.linalg.norm(full),
        grad_norm=grad_norm,
    )
    return out


#: The simulator's declaration: an experiment names it instead of restating it. The
#: TRAK metrics have a last axis over the projection widths ``k`` (fractions of p).
SIMULATOR = Simulator(
    run,
    spec=AttributionSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        m: ("k",) for m in ("trak_rel_err", "trak_spearman", "trak_pearson", "trak_auc", "trak_prec5")
    },
    coords=lambda spec: {"k": list(spec.k_fracs)},
)
