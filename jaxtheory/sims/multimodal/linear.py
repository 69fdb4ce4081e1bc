"""A linear two-view Gaussian model of image-text pairs, its closed forms and its objectives.

Shared semantics :math:`s \\sim N(0, I_k)`; image :math:`x = A s + B u_x + \\sigma\\xi_x`
and text :math:`y = C s + D u_y + \\sigma\\xi_y` in :math:`\\mathbb R^d`, with nuisances
:math:`u_x = \\rho_x \\Pi_x s + \\sqrt{1-\\rho_x^2}\\,\\nu_x \\in \\mathbb R^m` (likewise
:math:`u_y` with :math:`\\rho_y`): at :math:`\\rho > 0` the nuisance directions carry
part of the semantics. :math:`\\Pi_x, \\Pi_y` have orthonormal columns, so
:math:`\\mathrm{Cov}(u) \\preceq I`. With :math:`A_\\rho = A + \\rho_x B\\Pi_x` the exact
covariances are

.. math::

    \\Sigma_{xx} = A_\\rho A_\\rho^\\top + (1-\\rho_x^2)BB^\\top + \\sigma^2 I,\\quad
    \\Sigma_{xy} = A_\\rho C_\\rho^\\top,\\quad
    \\Sigma_{yy} = C_\\rho C_\\rho^\\top + (1-\\rho_y^2)DD^\\top + \\sigma^2 I.

Encoders are linear, :math:`f = Fx`, :math:`g = Gy \\in \\mathbb R^k`. Closed forms:
CCA (:func:`cca_subspace`, two-sided whitening: the spectral-contrastive, linearised
InfoNCE / SigLIP and target-normalised latent-prediction solutions) and reduced-rank
regression (:func:`rrr_subspace`, one-sided: captioning). The objectives are
:func:`spectral_contrastive` (and its exact population form), :func:`infonce`,
:func:`siglip`, :func:`jepa_latent` and :func:`caption_rrr`; :func:`recall_at_1` scores
retrieval. :func:`run` is the experiment's simulator.

A second contamination, correlated across the views: the two pure nuisances share a
part, :math:`\\mathrm{Cov}(\\nu_x, \\nu_y) = \\rho_c I` (spurious shared content, absent
from the held-out pairs retrieval is scored on), with caption noise :math:`\\tau` making
the text's semantics :math:`s_y = (s + \\tau\\eta)/\\sqrt{1+\\tau^2}` a noisy copy of the
image's (:func:`covariances`, :func:`sample`).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import optax

from jaxtheory.sims.matrix.linalg import principal_angles
from jaxtheory.simulator import Simulator

__all__ = [
    "CF_SCALARS",
    "CLOSED_FORMS",
    "DEFAULT_PARAMS",
    "LOSSES",
    "MultimodalSpec",
    "caption_rrr",
    "cca_subspace",
    "closed_form_embeddings",
    "covariances",
    "draw_model",
    "image_identity_bound",
    "infonce",
    "jepa_latent",
    "recall_at_1",
    "rrr_subspace",
    "run",
    "sample",
    "siglip",
    "spectral_contrastive",
    "spectral_contrastive_population",
    "white_identity_bound",
    "whiten_text",
    "SIMULATOR",
]

#: The objectives whose closed-form embeddings are scored (the ``objective`` metric dim).
CLOSED_FORMS = ("contrastive", "siglip", "jepa", "caption")
#: The trained losses (values of the static spec field ``loss``); closed forms are
#: computed in the lanes of the first, ``"spectral"``.
LOSSES = ("spectral", "infonce", "siglip", "jepa")

#: The closed-form outputs of :func:`run` with dims ``(rep, rho_x)`` (besides ``cf_recall``).
CF_SCALARS = (
    "cond_xx",
    "cca_relgap",
    "angle_rrr_cca_y",
    "angle_rrr_cca_x",
    "angle_rrr_cca_white",
    "angle_cca_truth_x",
)

#: Default of every parameter :func:`run` reads.
DEFAULT_PARAMS = {
    "rho_y": 0.0,
    "lr": 1e-2,
    "tau": 0.1,
    "signal": 3.0,
    "nuisance": 2.0,
    "noise": 0.3,
    "text_nuisance": 1.5,
    "caption_noise": 0.7,
}


@dataclasses.dataclass(frozen=True)
class MultimodalSpec:
    """What fixes the shapes of a run (the compile key).

    Attributes:
        k: semantic dimension (and embedding width).
        m: nuisance dimension.
        d: image and text dimension.
        rho_x_grid: image contamination values of the closed forms (a metric dim).
        rho_c_grid: cross-view nuisance correlations of the crossover model's closed
            forms (a metric dim; see :func:`_spurious_recall`).
        n_test: held-out pairs for recall@1.
        loss: the trained loss, one of :data:`LOSSES`.
        steps: Adam steps of training.
        batch: fresh pairs per step (the spectral-contrastive loss is trained on its
            exact population form instead: full-batch GD).
        train_rho_x: image contamination of the training setting.
        cf_reps: independent models per lane for the closed forms (a leading ``rep``
            metric dim): closed forms are cheap, training is not, so one lane scores
            several models' closed forms beside its one trained pair.
    """

    k: int = 4
    m: int = 16
    d: int = 64
    rho_x_grid: tuple = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    rho_c_grid: tuple = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
    n_test: int = 2000
    loss: str = "spectral"
    steps: int = 2000
    batch: int = 512
    train_rho_x: float = 0.0
    cf_reps: int = 1


def _orthonormal(key, n, p):
    q, _ = jnp.linalg.qr(jax.random.normal(key, (n, p)))
    return q


def draw_model(key, k, m, d, signal=1.0, nuisance=2.0, noise=0.3):
    """Draw the loadings of one two-view model.

    Args:
        key: PRNG key.
        k: semantic dimension.
        m: nuisance dimension.
        d: observed dimension of each view.
        signal: scale of the semantic loadings :math:`A, C` (entries
            :math:`N(0, \\text{signal}^2/d)`).
        nuisance: scale of the nuisance loadings :math:`B, D`.
        noise: isotropic noise level :math:`\\sigma`.

    Returns:
        A dict with ``A, C`` (d, k), ``B, D`` (d, m), ``Px, Py`` (m, k, orthonormal
        columns) and ``noise``.

    Example:
        >>> import jax
        >>> mdl = draw_model(jax.random.key(0), 2, 3, 5)
        >>> mdl["A"].shape, mdl["Px"].shape
        ((5, 2), (3, 2))
    """
    if not (0 < k <= m and k <= d):
        raise ValueError(f"need 0 < k <= m and k <= d, got k={k}, m={m}, d={d}")
    ka, kb, kc, kd, kp, kq = jax.random.split(key, 6)
    scale = 1.0 / jnp.sqrt(d)
    return {
        "A": signal * scale * jax.random.normal(ka, (d, k)),
        "B": nuisance * scale * jax.random.normal(kb, (d, m)),
        "C": signal * scale * jax.random.normal(kc, (d, k)),
        "D": nuisance * scale * jax.random.normal(kd, (d, m)),
        "Px": _orthonormal(kp, m, k),
        "Py": _orthonormal(kq, m, k),
        "noise": jnp.asarray(noise, jax.dtypes.canonicalize_dtype(jnp.float64)),
    }


def _is_zero(v):
    """True for a Python (or numpy) number equal to 0; a traced value is never."""
    return isinstance(v, (int, float)) and v == 0


def _effective(model, rho_x, rho_y):
    ae = model["A"] + rho_x * model["B"] @ model["Px"]
    ce = model["C"] + rho_y * model["D"] @ model["Py"]
    return ae, ce


def covariances(model, rho_x, rho_y, rho_c=0.0, caption_noise=0.0):
    """The exact covariances :math:`(\\Sigma_{xx}, \\Sigma_{xy}, \\Sigma_{yy})` of the model.

    With a cross-view nuisance correlation :math:`\\rho_c` (:math:`\\mathrm{Cov}(\\nu_x,
    \\nu_y) = \\rho_c I_m`) and caption noise :math:`\\tau` (the text's semantics are
    :math:`s_y = (s + \\tau\\eta)/\\sqrt{1+\\tau^2}`, :math:`\\eta` independent, so
    :math:`\\mathrm{Cov}(s, s_y) = cI`, :math:`c = 1/\\sqrt{1+\\tau^2}`):
    :math:`\\Sigma_{xy} = c\\,A_\\rho C_\\rho^\\top + \\rho_c\\sqrt{(1-\\rho_x^2)(1-\\rho_y^2)}\\,BD^\\top`;
    :math:`\\Sigma_{xx}` and :math:`\\Sigma_{yy}` do not depend on either.

    Args:
        model: from :func:`draw_model`.
        rho_x: image contamination in :math:`[0, 1]`.
        rho_y: text contamination in :math:`[0, 1]`.
        rho_c: correlation of the two views' pure nuisances, in :math:`[0, 1)`.
        caption_noise: :math:`\\tau \\ge 0`.

    Returns:
        The three (d, d) matrices.

    Example:
        >>> import jax
        >>> sxx, sxy, syy = covariances(draw_model(jax.random.key(0), 2, 3, 5), 0.0, 0.5)
        >>> int(jnp.linalg.matrix_rank(sxy))
        2
    """
    ae, ce = _effective(model, rho_x, rho_y)
    d = ae.shape[0]
    eye = jnp.eye(d, dtype=ae.dtype)
    s2 = model["noise"] ** 2
    sxx = ae @ ae.T + (1 - rho_x**2) * model["B"] @ model["B"].T + s2 * eye
    syy = ce @ ce.T + (1 - rho_y**2) * model["D"] @ model["D"].T + s2 * eye
    sxy = ae @ ce.T
    if not _is_zero(caption_noise):
        sxy = sxy / jnp.sqrt(1.0 + caption_noise**2)
    if not _is_zero(rho_c):
        sxy = sxy + rho_c * jnp.sqrt((1 - rho_x**2) * (1 - rho_y**2)) * (model["B"] @ model["D"].T)
    return sxx, sxy, syy


def sample(model, rho_x, rho_y, key, n, rho_c=0.0, caption_noise=0.0):
    """Draw ``n`` image-text pairs from the model.

    Args:
        model: from :func:`draw_model`.
        rho_x: image contamination.
        rho_y: text contamination.
        key: PRNG key.
        n: number of pairs.
        rho_c: cross-view nuisance correlation (see :func:`covariances`).
        caption_noise: :math:`\\tau` (see :func:`covariances`).

    Returns:
        ``(x, y)``, each of shape (n, d).

    Example:
        >>> import jax
        >>> x, y = sample(draw_model(jax.random.key(0), 2, 3, 5), 0.0, 0.0, jax.random.key(1), 7)
        >>> x.shape, y.shape
        ((7, 5), (7, 5))
    """
    ae, ce = _effective(model, rho_x, rho_y)
    d, k = ae.shape
    m = model["B"].shape[1]
    ks, kx, ky, kn, kq = jax.random.split(key, 5)
    s = jax.random.normal(ks, (n, k))
    nx = jax.random.normal(kx, (n, m))
    ny = jax.random.normal(ky, (n, m))
    ex = jax.random.normal(kn, (n, d))
    ey = jax.random.normal(kq, (n, d))
    sy = s
    if not _is_zero(rho_c):  # a literal 0 leaves the program (and its rounding) as without
        ny = rho_c * nx + jnp.sqrt(1 - rho_c**2) * ny
    if not _is_zero(caption_noise):
        eta = jax.random.normal(jax.random.fold_in(key, 7), (n, k))
        sy = (s + caption_noise * eta) / jnp.sqrt(1.0 + caption_noise**2)
    x = s @ ae.T + jnp.sqrt(1 - rho_x**2) * nx @ model["B"].T + model["noise"] * ex
    y = sy @ ce.T + jnp.sqrt(1 - rho_y**2) * ny @ model["D"].T + model["noise"] * ey
    return x, y


def _inv_sqrt(S):
    w, v = jnp.linalg.eigh(S)
    return (v / jnp.sqrt(w)) @ v.T


def whiten_text(sxx, sxy, syy):
    """The covariances after the text is whitened, :math:`y \\to \\Sigma_{yy}^{-1/2} y` (so :math:`\\Sigma_{yy} = I`).

    Example:
        >>> import jax
        >>> c = whiten_text(*covariances(draw_model(jax.random.key(0), 2, 3, 5), 0.0, 0.0))
        >>> bool(jnp.allclose(c[2], jnp.eye(5), atol=1e-5))
        True
    """
    w = _inv_sqrt(syy)
    return sxx, sxy @ w, jnp.eye(syy.shape[0], dtype=syy.dtype)


def cca_subspace(sxx, sxy, syy, k):
    """CCA: the top-``k`` singular pairs of the whitened cross-covariance :math:`\\Sigma_{xx}^{-1/2}\\Sigma_{xy}\\Sigma_{yy}^{-1/2}`.

    Args:
        sxx: (dx, dx) image covariance, positive definite.
        sxy: (dx, dy) cross-covariance.
        syy: (dy, dy) text covariance, positive definite.
        k: number of canonical pairs.

    Returns:
        ``(Wx, Wy, r)``: canonical directions ``Wx`` (dx, k) and ``Wy`` (dy, k), so the
        canonical variates are ``x @ Wx`` and ``y @ Wy`` (unit variance), and the
        canonical correlations ``r`` (k,), decreasing.

    Example:
        >>> import jax
        >>> c = covariances(draw_model(jax.random.key(0), 2, 3, 5), 0.0, 0.0)
        >>> wx, wy, r = cca_subspace(*c, 2)
        >>> bool(jnp.allclose(wx.T @ c[0] @ wx, jnp.eye(2), atol=1e-4))
        True
    """
    ix, iy = _inv_sqrt(sxx), _inv_sqrt(syy)
    u, r, vt = jnp.linalg.svd(ix @ sxy @ iy)
    return ix @ u[:, :k], iy @ vt[:k].T, r[:k]


def rrr_subspace(sxx, sxy, k):
    """Reduced-rank regression of ``y`` on ``x``: the rank-``k`` least-squares predictor.

    The predictor is :math:`\\hat y = V V^\\top \\Sigma_{yx}\\Sigma_{xx}^{-1} x` with ``V``
    the top-``k`` eigenvectors of :math:`\\Sigma_{yx}\\Sigma_{xx}^{-1}\\Sigma_{xy}`: only
    the input side is whitened.

    Args:
        sxx: (dx, dx) image covariance.
        sxy: (dx, dy) cross-covariance.
        k: rank.

    Returns:
        ``(Wx, V)``: the encoder ``Wx = Σxx⁻¹ Σxy V`` (dx, k), so the code is ``x @ Wx``,
        and the decoder's orthonormal column basis ``V`` (dy, k).

    Example:
        >>> import jax
        >>> c = covariances(draw_model(jax.random.key(0), 2, 3, 5), 0.0, 0.0)
        >>> wx, v = rrr_subspace(c[0], c[1], 2)
        >>> bool(jnp.allclose(v.T @ v, jnp.eye(2), atol=1e-5))
        True
    """
    b = jnp.linalg.solve(sxx, sxy)  # Σxx⁻¹ Σxy, (dx, dy)
    w, v = jnp.linalg.eigh(sxy.T @ b)
    v = v[:, ::-1][:, :k]
    return b @ v, v


def closed_form_embeddings(sxx, sxy, syy, k):
    """The linear encoders ``(Fx, Gy)`` (each (d, k)) of every closed form in :data:`CLOSED_FORMS`.

    * ``contrastive``: the minimiser of the spectral-contrastive population loss with the
      balanced split :math:`F^\\top = \\Sigma_{xx}^{-1/2}U\\sqrt R`,
      :math:`G^\\top = \\Sigma_{yy}^{-1/2}V\\sqrt R` (the product is what the loss fixes);
    * ``siglip``: the same (its second-order expansion is the same quadratic);
    * ``jepa``: whitened image target :math:`\\Sigma_{xx}^{-1/2}U` and the predicted
      latent :math:`E[f \\mid y]`, i.e. :math:`\\Sigma_{yy}^{-1/2}V R`;
    * ``caption``: the RRR code of ``x`` against the projection of ``y`` on the decoder.

    Returns:
        A dict by objective name of ``(Fx, Gy)``.

    Example:
        >>> import jax
        >>> c = covariances(draw_model(jax.random.key(0), 2, 3, 5), 0.0, 0.0)
        >>> sorted(closed_form_embeddings(*c, 2))
        ['caption', 'contrastive', 'jepa', 'siglip']
    """
    wx, wy, r = cca_subspace(sxx, sxy, syy, k)
    rx, v = rrr_subspace(sxx, sxy, k)
    sq = jnp.sqrt(r)
    return {
        "contrastive": (wx * sq, wy * sq),
        "siglip": (wx * sq, wy * sq),
        "jepa": (wx, wy * r),
        "caption": (rx, v),
    }


def _unit_roundoff(dtype):
    return float(jnp.finfo(dtype).eps) / 2.0


def image_identity_bound(cond_xx, relgap, d, dtype=jnp.float32):
    """First-order rounding bound on the angle between CCA's and RRR's image encoders, as computed here.

    In exact arithmetic, with :math:`\\Sigma_{xy} = A_\\rho C_\\rho^\\top` of rank
    :math:`k`, :func:`cca_subspace` returns :math:`W_x = S\\,U_k(S\\Sigma_{xy}
    \\Sigma_{yy}^{-1/2})`, whose span is :math:`S^2\\,\\mathrm{span}\\,A_\\rho`
    (:math:`S` the computed :math:`\\Sigma_{xx}^{-1/2}`), and :func:`rrr_subspace` returns
    :math:`\\Sigma_{xx}^{-1}\\Sigma_{xy}V`, of span :math:`\\Sigma_{xx}^{-1}
    \\mathrm{span}\\,A_\\rho` for any decoder :math:`V` (so its eigenvectors do not enter
    to first order). Both are :math:`(\\Sigma_{xx}+E)^{-1}\\mathrm{span}\\,A_\\rho` for a
    backward error :math:`E`, and :math:`\\sin\\theta \\le \\lVert\\Sigma_{xx}^{-1}E\\rVert
    \\le \\kappa\\lVert E\\rVert/\\lVert\\Sigma_{xx}\\rVert`. With every :math:`d\\times d`
    factorisation and product carrying a relative backward error :math:`\\le d\\,u`
    (Wilkinson's rule of thumb, the square root of the :math:`O(d^2)u` worst case of
    Householder-based eigensolvers; the tests check it for the float32 kernels used):

    * the eigendecomposition behind :math:`S = \\hat V\\hat W^{-1/2}\\hat V^\\top`: backward
      error :math:`\\beta` and loss of orthogonality :math:`\\omega = \\lVert\\hat V^\\top
      \\hat V - I\\rVert` give :math:`S^{-2} = \\Sigma_{xx} + E` with :math:`\\lVert E\\rVert
      \\le (\\beta + 3\\omega)\\lVert\\Sigma_{xx}\\rVert`: :math:`4d\\,u\\,\\kappa`;
    * the LU solve of RRR: :math:`d\\,u\\,\\kappa`;
    * forming :math:`T = S\\Sigma_{xy}\\Sigma_{yy}^{-1/2}` (including the rounding of
      :math:`\\Sigma_{xy}`, which breaks its rank) and its SVD: a relative error
      :math:`\\eta \\le 3d\\,u` of :math:`T` moves :math:`U_k` by :math:`\\eta/g` (Wedin; the
      tail singular values are 0, so the gap is :math:`r_k` and :math:`g = r_k/r_1`), and
      :math:`S` maps it back with amplification :math:`\\le\\sqrt\\kappa`: :math:`3d\\,u
      \\sqrt\\kappa/g`. This takes the rounding of :math:`T` relative to :math:`T`; the
      normwise worst case, relative to :math:`\\lVert S\\rVert\\lVert\\Sigma_{xy}\\rVert
      \\lVert\\Sigma_{yy}^{-1/2}\\rVert`, has a further :math:`\\sqrt{\\kappa\\,
      \\kappa(\\Sigma_{yy})}`; the tests measure this term alone in float32 (well below
      :math:`u\\kappa`);
    * the float32 angle itself (QR of the two bases, of condition :math:`\\le\\sqrt\\kappa`:
      :math:`W_x` is :math:`\\Sigma_{xx}`-orthonormal, :math:`R_x` is checked in the tests):
      :math:`2d\\,u\\sqrt\\kappa`.

    Args:
        cond_xx: :math:`\\kappa = \\kappa(\\Sigma_{xx})` (array or scalar).
        relgap: :math:`g = r_k/r_1` of the canonical correlations.
        d: the image dimension.
        dtype: the dtype of the computation (its unit roundoff :math:`u`).

    Returns:
        :math:`d\\,u\\,(5\\kappa + 3\\sqrt\\kappa/g + 2\\sqrt\\kappa)` in radians.

    Example:
        >>> round(float(image_identity_bound(100.0, 1.0, 64)) * 1e3, 3)  # 64·2⁻²⁴·(500 + 30 + 20)
        2.098
    """
    k, g = jnp.asarray(cond_xx), jnp.asarray(relgap)
    return d * _unit_roundoff(dtype) * (5.0 * k + 3.0 * jnp.sqrt(k) / g + 2.0 * jnp.sqrt(k))


def white_identity_bound(cond_xx, relgap, d, dtype=jnp.float32):
    """First-order rounding bound on the angle between RRR's decoder and CCA's text subspace after whitening the text.

    With :math:`P = \\Sigma_{xy}\\Sigma_{yy}^{-1/2}` (text white) CCA's text subspace is the
    top right singular subspace of :math:`SP` and RRR's decoder the top eigenspace of
    :math:`P^\\top\\Sigma_{xx}^{-1}P` (:math:`S` the computed :math:`\\Sigma_{xx}^{-1/2}`, the
    inverse by an LU solve). Both are :math:`\\mathrm{span}\\,P^\\top` for any positive
    definite middle factor when :math:`P` has rank :math:`k`, so the errors of :math:`S`
    and of the solve do not enter to first order, and a rounding of :math:`P` itself
    (common to both) changes both by the same matrix :math:`P^\\top\\Sigma_{xx}^{-1}P`.
    What remains, each step with relative backward error :math:`\\le d\\,u` and
    :math:`g = r_k/r_1`:

    * forming :math:`SP`: :math:`\\lVert S\\rVert\\lVert P\\rVert \\le \\sqrt\\kappa\\,r_1`,
      over the gap :math:`r_k`: :math:`d\\,u\\sqrt\\kappa/g`; its SVD: :math:`d\\,u/g`;
    * forming :math:`M = P^\\top(\\Sigma_{xx}^{-1}P)`: :math:`\\lVert P\\rVert
      \\lVert\\Sigma_{xx}^{-1}P\\rVert \\le \\sqrt\\kappa\\,r_1^2`, over the eigengap
      :math:`r_k^2`: :math:`d\\,u\\sqrt\\kappa/g^2`; its eigendecomposition: :math:`d\\,u/g^2`;
    * the float32 angle of two orthonormal bases: :math:`2d\\,u`.

    Args:
        cond_xx: :math:`\\kappa(\\Sigma_{xx})`.
        relgap: :math:`g = r_k/r_1` (canonical correlations do not change when the text
            is whitened).
        d: the dimension.
        dtype: the dtype of the computation.

    Returns:
        :math:`d\\,u\\,((\\sqrt\\kappa + 1)(1/g + 1/g^2) + 2)` in radians.

    Example:
        >>> round(float(white_identity_bound(100.0, 1.0, 64)) * 1e5, 3)  # 64·2⁻²⁴·(11·2 + 2)
        9.155
    """
    k, g = jnp.asarray(cond_xx), jnp.asarray(relgap)
    return d * _unit_roundoff(dtype) * ((jnp.sqrt(k) + 1.0) * (1.0 / g + 1.0 / g**2) + 2.0)


# -- objectives -----------------------------------------------------------------------------


def spectral_contrastive_population(F, G, sxx, sxy, syy):
    """Exact spectral-contrastive loss :math:`-2\\,\\mathrm{tr}(F\\Sigma_{xy}G^\\top) + \\mathrm{tr}(F\\Sigma_{xx}F^\\top G\\Sigma_{yy}G^\\top)`.

    The expectation of :func:`spectral_contrastive` over positive pairs and independent
    negatives (HaoChen et al. 2021).

    Args:
        F: (k, dx) image encoder.
        G: (k, dy) text encoder.
        sxx: image covariance.
        sxy: cross-covariance.
        syy: text covariance.

    Returns:
        The scalar loss.

    Example:
        >>> F = G = jnp.eye(2)
        >>> float(spectral_contrastive_population(F, G, jnp.eye(2), 0.5 * jnp.eye(2), jnp.eye(2)))
        0.0
    """
    return -2.0 * jnp.trace(F @ sxy @ G.T) + jnp.trace(F @ sxx @ F.T @ G @ syy @ G.T)


def spectral_contrastive(f, g):
    """Minibatch spectral-contrastive loss: :math:`-2\\,\\overline{f_i\\cdot g_i} + \\overline{(f_i\\cdot g_j)^2}_{i\\ne j}`.

    Args:
        f: (n, k) image embeddings.
        g: (n, k) text embeddings of the paired texts.

    Returns:
        The scalar loss (an unbiased estimate of the population loss).

    Example:
        >>> f = jnp.eye(2)
        >>> float(spectral_contrastive(f, f))
        -2.0
    """
    n = f.shape[0]
    s = f @ g.T
    off = (jnp.sum(s**2) - jnp.sum(jnp.diag(s) ** 2)) / (n * (n - 1))
    return -2.0 * jnp.mean(jnp.diag(s)) + off


def _unit(z):
    return z / jnp.linalg.norm(z, axis=-1, keepdims=True)


def infonce(f, g, tau):
    """Symmetric InfoNCE (CLIP) on cosine similarities at temperature ``tau``.

    Args:
        f: (n, k) image embeddings.
        g: (n, k) paired text embeddings.
        tau: temperature.

    Returns:
        The mean of the image-to-text and text-to-image cross-entropies.

    Example:
        >>> f = jnp.eye(3)
        >>> round(float(infonce(f, f, 1.0)), 4)
        0.5514
    """
    logits = _unit(f) @ _unit(g).T / tau
    i2t = jnp.mean(jax.nn.logsumexp(logits, axis=1) - jnp.diag(logits))
    t2i = jnp.mean(jax.nn.logsumexp(logits, axis=0) - jnp.diag(logits))
    return 0.5 * (i2t + t2i)


def siglip(f, g, log_t, b):
    """SigLIP pairwise sigmoid loss on cosine similarities (Zhai et al. 2023).

    :math:`-\\frac1n\\sum_{i,j}\\log\\sigma\\big(\\ell_{ij}(e^{t}\\cos(f_i, g_j) + b)\\big)`
    with :math:`\\ell_{ii} = 1` and :math:`\\ell_{ij} = -1` otherwise.

    Args:
        f: (n, k) image embeddings.
        g: (n, k) paired text embeddings.
        log_t: log of the learnable scale (SigLIP starts at ``log 10``).
        b: learnable bias (SigLIP starts at ``-10``).

    Returns:
        The scalar loss.

    Example:
        >>> f = jnp.eye(2)
        >>> round(float(siglip(f, f, jnp.log(10.0), -10.0)), 4)  # positives at logit 0: log 2
        0.6932
    """
    z = jnp.exp(log_t) * _unit(f) @ _unit(g).T + b
    n = f.shape[0]
    lab = 2.0 * jnp.eye(n, dtype=z.dtype) - 1.0
    return -jnp.sum(jax.nn.log_sigmoid(lab * z)) / n


def jepa_latent(target, pred, eps=1e-5):
    """Latent prediction with a whitened target: :math:`\\overline{\\lVert p_i - W(t_i - \\bar t)\\rVert^2}`.

    The target batch is centred and whitened by its own covariance (Cholesky), which is
    what keeps the target from collapsing; the population minimiser over linear
    encoders is the CCA pair (target side :math:`\\Sigma^{-1/2}U`, predictor
    :math:`E[\\text{target}\\mid\\text{context}]`).

    Args:
        target: (n, k) embeddings of the target modality (the query, here the image).
        pred: (n, k) predictions from the other modality.
        eps: ridge added to the batch covariance.

    Returns:
        The scalar loss.

    Example:
        >>> t = jnp.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
        >>> round(float(jepa_latent(t, jnp.sqrt(2.0) * t)), 4)
        0.0
    """
    tc = target - jnp.mean(target, axis=0)
    n, k = tc.shape
    cov = tc.T @ tc / n + eps * jnp.eye(k, dtype=tc.dtype)
    low = jnp.linalg.cholesky(cov)
    tw = jax.scipy.linalg.solve_triangular(low, tc.T, lower=True).T
    return jnp.mean(jnp.sum((pred - tw) ** 2, axis=1))


def caption_rrr(code, y, decoder):
    """Captioning as rank-k regression in token (here: text-feature) space: :math:`\\overline{\\lVert y_i - \\text{dec}\\,c_i\\rVert^2}`.

    Args:
        code: (n, k) image codes :math:`Fx`.
        y: (n, d) texts.
        decoder: (d, k) decoder.

    Returns:
        The mean squared reconstruction error; minimised over linear ``F`` and
        ``decoder`` it gives :func:`rrr_subspace`.

    Example:
        >>> y = jnp.eye(2)
        >>> float(caption_rrr(y, y, jnp.eye(2)))
        0.0
    """
    return jnp.mean(jnp.sum((y - code @ decoder.T) ** 2, axis=1))


def recall_at_1(f, g, block=250):
    """Image-to-text recall@1 on cosine similarity: the fraction of ``i`` with ``argmax_j cos(f_i, g_j) = i``.

    Args:
        f: (n, k) query (image) embeddings.
        g: (n, k) candidate (text) embeddings, ``g[i]`` paired with ``f[i]``.
        block: rows scored at a time (memory); must divide ``n``.

    Returns:
        The recall in ``[0, 1]``.

    Example:
        >>> f = jnp.eye(4)
        >>> float(recall_at_1(f, f, block=2))
        1.0
    """
    n = f.shape[0]
    if n % block:
        block = n
    fu, gu = _unit(f), _unit(g)

    def hits(i):
        rows = jax.lax.dynamic_slice_in_dim(fu, i * block, block)
        best = jnp.argmax(rows @ gu.T, axis=1)
        return jnp.sum(best == i * block + jnp.arange(block))

    return jnp.sum(jax.lax.map(hits, jnp.arange(n // block))) / n


# -- the simulator ----------------------------------------------------------------------------


def _max_angle(a, b):
    return principal_angles(a, b)[0]


def _closed_forms(spec, model, rho_y, key):
    def one(rho_x):
        sxx, sxy, syy = covariances(model, rho_x, rho_y)
        wx, wy, r = cca_subspace(sxx, sxy, syy, spec.k)
        rx, v = rrr_subspace(sxx, sxy, spec.k)
        _, swy, _ = cca_subspace(*whiten_text(sxx, sxy, syy), spec.k)
        _, sv = rrr_subspace(*whiten_text(sxx, sxy, syy)[:2], spec.k)
        x, y = sample(model, rho_x, rho_y, key, spec.n_test)
        embs = closed_form_embeddings(sxx, sxy, syy, spec.k)
        recall = jnp.stack([recall_at_1(x @ embs[o][0], y @ embs[o][1]) for o in CLOSED_FORMS])
        ev = jnp.linalg.eigvalsh(sxx)
        return {
            "cf_recall": recall,
            "cond_xx": ev[-1] / ev[0],
            "cca_relgap": r[-1] / r[0],
            "angle_rrr_cca_y": _max_angle(wy, v),
            "angle_rrr_cca_x": _max_angle(wx, rx),
            "angle_rrr_cca_white": _max_angle(swy, sv),
            "angle_cca_truth_x": _max_angle(wx, model["A"]),
        }

    return jax.vmap(one)(jnp.asarray(spec.rho_x_grid, jnp.float32))


def _spurious_recall(spec, params, model, rho_y, key):
    """Recall@1 of each closed form fit under a cross-view nuisance correlation, scored on clean pairs.

    The crossover model: the lane's model with the text nuisance loadings rescaled to
    ``params["text_nuisance"]`` and caption noise ``params["caption_noise"]``, no image
    contamination (:math:`\\rho_x = 0`). The closed forms are fit on the covariances at each
    :math:`\\rho_c` of ``spec.rho_c_grid`` (the nuisances' shared part looks like shared
    content there) and scored on held-out pairs whose nuisances are independent
    (:math:`\\rho_c = 0`: the correlation is spurious, absent where the encoders are used).

    Returns:
        ``(len(rho_c_grid), len(CLOSED_FORMS))`` recalls.
    """
    mdl = {**model, "D": model["D"] * (params["text_nuisance"] / params["nuisance"])}
    tau = params["caption_noise"]
    x, y = sample(mdl, 0.0, rho_y, key, spec.n_test, caption_noise=tau)

    def one(rho_c):
        embs = closed_form_embeddings(*covariances(mdl, 0.0, rho_y, rho_c, tau), spec.k)
        return jnp.stack([recall_at_1(x @ embs[o][0], y @ embs[o][1]) for o in CLOSED_FORMS])

    return jax.vmap(one)(jnp.asarray(spec.rho_c_grid, jnp.float32))


def _train(spec, params, model, key):
    k, d = spec.k, spec.d
    rho_x, rho_y = spec.train_rho_x, params["rho_y"]
    kf, kg, kd, kt = jax.random.split(key, 4)
    theta = {
        "F": 0.1 * jax.random.normal(kf, (k, d)) / jnp.sqrt(d),
        "G": 0.1 * jax.random.normal(kg, (k, d)) / jnp.sqrt(d),
        "log_t": jnp.log(jnp.float32(10.0)),
        "b": jnp.float32(-10.0),
    }
    cov = covariances(model, rho_x, rho_y)

    def loss_fn(th, batch_key):
        if spec.loss == "spectral":
            return spectral_contrastive_population(th["F"], th["G"], *cov)
        x, y = sample(model, rho_x, rho_y, batch_key, spec.batch)
        f, g = x @ th["F"].T, y @ th["G"].T
        if spec.loss == "infonce":
            return infonce(f, g, params["tau"])
        if spec.loss == "siglip":
            return siglip(f, g, th["log_t"], th["b"])
        if spec.loss == "jepa":
            return jepa_latent(f, g)
        raise ValueError(f"unknown loss {spec.loss!r}; one of {LOSSES}")

    sched = optax.cosine_decay_schedule(params["lr"], spec.steps)
    opt = optax.adam(sched)

    def step(carry, t):
        th, st = carry
        val, grad = jax.value_and_grad(loss_fn)(th, jax.random.fold_in(kd, t))
        upd, st = opt.update(grad, st, th)
        return (optax.apply_updates(th, upd), st), val

    (theta, _), losses = jax.lax.scan(step, (theta, opt.init(theta)), jnp.arange(spec.steps))
    wx, wy, _ = cca_subspace(*cov, k)
    x, y = sample(model, rho_x, rho_y, kt, spec.n_test)
    f = x @ theta["F"].T
    if spec.loss == "jepa":  # the query embedding is the whitened target the predictor was fit to
        low = jnp.linalg.cholesky(theta["F"] @ cov[0] @ theta["F"].T)
        f = jax.scipy.linalg.solve_triangular(low, f.T, lower=True).T
    return {
        "train_angle_x": _max_angle(theta["F"].T, wx),
        "train_angle_y": _max_angle(theta["G"].T, wy),
        "train_recall": recall_at_1(f, y @ theta["G"].T),
        "final_loss": jnp.mean(losses[-max(1, spec.steps // 20) :]),
    }


def run(spec: MultimodalSpec, params: dict, key: jax.Array) -> dict:
    """One model: closed forms over ``spec.rho_x_grid`` and one trained encoder pair; pure and vmappable.

    Args:
        spec: a :class:`MultimodalSpec`; ``spec.loss`` picks the trained loss. Closed
            forms are computed only in ``"spectral"`` runs (NaN elsewhere), so a sweep
            over the four losses computes them once.
        params: ``rho_y``, ``lr`` (Adam peak, cosine decay to 0), ``tau`` (InfoNCE),
            ``signal``, ``nuisance``, ``noise`` (model scales); scalars.
        key: PRNG key: the model, the held-out pairs and the training draws.

    Returns:
        Closed forms, each with dims ``(rep, rho_x)`` (``cf_reps`` independent models,
        none of them the trained one): ``cf_recall`` (also by ``objective``,
        :data:`CLOSED_FORMS`), the condition number ``cond_xx`` of :math:`\\Sigma_{xx}`
        and the relative gap ``cca_relgap`` :math:`r_k/r_1` of the canonical
        correlations (what :func:`image_identity_bound` and :func:`white_identity_bound`
        need), the largest principal angles
        ``angle_rrr_cca_y`` (text side, CCA against RRR's decoder),
        ``angle_rrr_cca_x`` (image encoders), ``angle_rrr_cca_white`` (text side after
        whitening the text), ``angle_cca_truth_x`` (CCA image encoder against
        :math:`\\mathrm{span}\\,A`); ``cf_recall_spurious`` with dims ``(rep, rho_c,
        objective)``, the crossover model's recalls (:func:`_spurious_recall`); and,
        trained at ``spec.train_rho_x``,
        ``train_angle_x``/``train_angle_y`` (largest angle to the CCA subspaces),
        ``train_recall`` and ``final_loss``. Angles in radians.

    Example:
        >>> import jax
        >>> spec = MultimodalSpec(k=2, m=4, d=8, rho_x_grid=(0.0, 0.5), n_test=64, steps=20, batch=32)
        >>> out = jax.jit(run, static_argnums=0)(spec, DEFAULT_PARAMS, jax.random.key(0))
        >>> out["cf_recall"].shape, out["train_angle_x"].shape
        ((1, 2, 4), ())
    """
    if spec.loss not in LOSSES:
        raise ValueError(f"unknown loss {spec.loss!r}; one of {LOSSES}")
    if spec.cf_reps < 1:
        raise ValueError(f"cf_reps must be at least 1, got {spec.cf_reps}")
    km, kc, kt = jax.random.split(key, 3)
    scales = (params["signal"], params["nuisance"], params["noise"])
    model = draw_model(km, spec.k, spec.m, spec.d, *scales)
    out = _train(spec, params, model, kt)
    g, r = len(spec.rho_x_grid), spec.cf_reps
    if spec.loss == LOSSES[0]:

        def one(rk):
            mk, dk = jax.random.split(rk)
            mdl = draw_model(mk, spec.k, spec.m, spec.d, *scales)
            out = _closed_forms(spec, mdl, params["rho_y"], dk)
            out["cf_recall_spurious"] = _spurious_recall(
                spec, params, mdl, params["rho_y"], jax.random.fold_in(dk, 11)
            )
            return out

        cf = jax.vmap(one)(jax.random.split(kc, r))
    else:
        nan = jnp.float32(jnp.nan)
        cf = {
            "cf_recall": jnp.full((r, g, len(CLOSED_FORMS)), nan),
            "cf_recall_spurious": jnp.full((r, len(spec.rho_c_grid), len(CLOSED_FORMS)), nan),
            **{n: jnp.full((r, g), nan) for n in CF_SCALARS},
        }
    return {**out, **cf}


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=MultimodalSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        "cf_recall": ("rep", "rho_x", "objective"),
        "cf_recall_spurious": ("rep", "rho_c", "objective"),
        **{name: ("rep", "rho_x") for name in CF_SCALARS},
    },
    coords=lambda spec: {
        "rep": np.arange(spec.cf_reps),
        "rho_x": np.asarray(spec.rho_x_grid, float),
        "rho_c": np.asarray(spec.rho_c_grid, float),
        "objective": list(CLOSED_FORMS),
    },
)
