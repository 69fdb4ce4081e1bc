"""The linear two-view model: covariances, CCA/RRR against float64 numpy references, losses, recall."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.matrix.linalg import principal_angles
from jaxtheory.sims.multimodal import linear as mm

K, M, D = 3, 6, 12


def _model(seed=0, **kw):
    return mm.draw_model(jax.random.key(seed), K, M, D, **kw)


def _np_cca(sxx, sxy, syy, k):
    """Reference CCA: Cholesky whitening (not the symmetric root the library uses), then SVD."""
    lx, ly = np.linalg.cholesky(sxx), np.linalg.cholesky(syy)
    t = np.linalg.solve(lx, sxy) @ np.linalg.inv(ly).T
    u, r, vt = np.linalg.svd(t)
    return np.linalg.solve(lx.T, u[:, :k]), np.linalg.solve(ly.T, vt[:k].T), r[:k]


def _np_rrr(sxx, sxy, k):
    """Reference RRR: OLS coefficients, then the top right singular vectors of the fitted values' root."""
    b = np.linalg.solve(sxx, sxy)
    w, v = np.linalg.eigh(sxx)
    root = (v * np.sqrt(w)) @ v.T
    _, _, vt = np.linalg.svd(root @ b)
    vk = vt[:k].T
    return b @ vk, vk


def _cov64(rho_x, rho_y, seed=0):
    """The exact covariances computed in float64 (a float32 Σ_xy has rank k only to rounding)."""
    with jax.enable_x64(True):
        out = [np.asarray(c) for c in mm.covariances(_model(seed), rho_x, rho_y)]
    assert all(c.dtype == np.float64 for c in out)
    return out


def test_covariances_match_samples():
    mdl = _model(1)
    n = 200_000
    x, y = mm.sample(mdl, 0.4, 0.7, jax.random.key(5), n)
    sxx, sxy, syy = mm.covariances(mdl, 0.4, 0.7)
    emp = np.cov(np.hstack([x, y]).T.astype(np.float64))
    exact = np.block([[sxx, sxy], [sxy.T, syy]])
    # each entry's sampling s.d. is sqrt((S_ii S_jj + S_ij^2) / n) <= sqrt(2/n) max diag; 6 s.d.
    tol = 6 * np.sqrt(2.0 / n) * np.max(np.diag(exact))
    assert np.max(np.abs(emp - exact)) < tol


def test_correlated_nuisance_covariances_match_samples():
    """The crossover model: nuisances correlated across the views (ρ_c) and caption noise (τ)."""
    mdl = _model(2)
    n = 200_000
    x, y = mm.sample(mdl, 0.3, 0.5, jax.random.key(6), n, rho_c=0.8, caption_noise=0.7)
    sxx, sxy, syy = mm.covariances(mdl, 0.3, 0.5, 0.8, 0.7)
    emp = np.cov(np.hstack([x, y]).T.astype(np.float64))
    exact = np.block([[sxx, sxy], [sxy.T, syy]])
    tol = 6 * np.sqrt(2.0 / n) * np.max(np.diag(exact))
    assert np.max(np.abs(emp - exact)) < tol
    # the cross-covariance gains ρ_c √((1−ρ_x²)(1−ρ_y²)) B Dᵀ and its semantic part shrinks by c
    base = np.asarray(mm.covariances(mdl, 0.3, 0.5)[1])
    want = base / np.sqrt(1 + 0.49) + 0.8 * np.sqrt((1 - 0.09) * (1 - 0.25)) * np.asarray(
        mdl["B"] @ mdl["D"].T
    )
    np.testing.assert_allclose(np.asarray(sxy), want, rtol=1e-5, atol=1e-6)


def test_literal_zero_contamination_leaves_the_model_unchanged():
    """ρ_c = 0 and τ = 0 given as Python zeros are the model without them, bit for bit."""
    mdl = _model(3)
    for a, b in zip(
        mm.sample(mdl, 0.2, 0.4, jax.random.key(7), 50),
        mm.sample(mdl, 0.2, 0.4, jax.random.key(7), 50, 0.0, 0.0),
    ):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_strong_cross_view_nuisance_takes_over_cca_not_rrr():
    """With caption noise the semantic canonical correlations sit near 1/√(1+τ²); a cross-view
    nuisance correlation above them takes CCA's top directions, while RRR, ranking by text
    variance explained, keeps the semantic subspace when the text nuisance is weak."""
    with jax.enable_x64(True):
        mdl = mm.draw_model(jax.random.key(4), 4, 16, 64, 3.0, 2.0, 0.3)
        mdl = {**mdl, "D": mdl["D"] * 0.75}  # text nuisance scale 1.5
        clean = mm.covariances(mdl, 0.0, 0.0, 0.0, 0.7)
        spur = mm.covariances(mdl, 0.0, 0.0, 0.95, 0.7)
        wx0, _, r0 = mm.cca_subspace(*clean, 4)
        wx1, _, r1 = mm.cca_subspace(*spur, 4)
        rx0, _ = mm.rrr_subspace(clean[0], clean[1], 4)
        rx1, _ = mm.rrr_subspace(spur[0], spur[1], 4)
        assert float(r0[0]) < 0.85 < float(r1[-1])
        cca_move = float(principal_angles(np.asarray(wx0), np.asarray(wx1))[0])
        rrr_move = float(principal_angles(np.asarray(rx0), np.asarray(rx1))[0])
        # CCA swaps semantic directions for nuisance ones (an angle near 90°); RRR's encoder
        # only tilts (about 32° in this draw)
        assert cca_move > np.radians(80) and rrr_move < np.radians(45)


@pytest.mark.parametrize("rho", [(0.0, 0.0), (0.6, 0.3)])
def test_cca_matches_numpy_reference(rho):
    sxx, sxy, syy = _cov64(*rho)
    with jax.enable_x64(True):
        wx, wy, r = (np.asarray(a) for a in mm.cca_subspace(sxx, sxy, syy, K))
        rx, ry, rr = _np_cca(sxx, sxy, syy, K)
        np.testing.assert_allclose(r, rr, rtol=1e-9)
        # float64, condition number of Σ < 1e3: subspaces agree to ~1e-12 rad
        assert float(principal_angles(wx, rx)[0]) < 1e-9
        assert float(principal_angles(wy, ry)[0]) < 1e-9
    np.testing.assert_allclose(wx.T @ sxx @ wx, np.eye(K), atol=1e-9)
    np.testing.assert_allclose(wx.T @ sxy @ wy, np.diag(r), atol=1e-9)


def test_rrr_matches_numpy_reference_and_image_side_equals_cca():
    sxx, sxy, syy = _cov64(0.5, 0.5)
    with jax.enable_x64(True):
        ex, v = (np.asarray(a) for a in mm.rrr_subspace(sxx, sxy, K))
        rex, rv = _np_rrr(sxx, sxy, K)
        assert float(principal_angles(v, rv)[0]) < 1e-9
        assert float(principal_angles(ex, rex)[0]) < 1e-9
        # rank-k cross-covariance: CCA's and RRR's image encoders span the same subspace
        wx, wy, _ = mm.cca_subspace(sxx, sxy, syy, K)
        assert float(principal_angles(wx, ex)[0]) < 1e-9
        # ... while the text sides differ when the text carries nuisance (D u_y)
        assert float(principal_angles(wy, v)[0]) > np.radians(5)


def test_rrr_equals_cca_with_white_text_float64():
    with jax.enable_x64(True):
        sxx, sxy, syy = mm.whiten_text(*_cov64(0.3, 0.8))
        np.testing.assert_allclose(np.asarray(syy), np.eye(D))
        _, wy, _ = mm.cca_subspace(sxx, sxy, syy, K)
        _, v = mm.rrr_subspace(sxx, sxy, K)
        assert float(principal_angles(wy, v)[0]) < 1e-10  # the 1e-4 rad with room


def test_contrastive_closed_form_minimises_spectral_loss():
    sxx, sxy, syy = _cov64(0.2, 0.4)
    with jax.enable_x64(True):
        f, g = mm.closed_form_embeddings(sxx, sxy, syy, K)["contrastive"]
        _, _, r = mm.cca_subspace(sxx, sxy, syy, K)
        best = float(mm.spectral_contrastive_population(f.T, g.T, sxx, sxy, syy))
        # Eckart–Young: the minimum of ||M − PQᵀ||² − ||M||² is −Σ_{i≤k} r_i²
        assert best == pytest.approx(-float(np.sum(np.asarray(r) ** 2)), rel=1e-10)
        rng = np.random.default_rng(0)
        for _ in range(5):
            df, dg = 1e-3 * rng.standard_normal(f.shape), 1e-3 * rng.standard_normal(g.shape)
            assert float(mm.spectral_contrastive_population((f + df).T, (g + dg).T, sxx, sxy, syy)) > best


def test_minibatch_spectral_loss_is_unbiased():
    mdl = _model(2)
    F = jax.random.normal(jax.random.key(3), (K, D)) * 0.3
    G = jax.random.normal(jax.random.key(4), (K, D)) * 0.3
    exact = float(mm.spectral_contrastive_population(F, G, *mm.covariances(mdl, 0.0, 0.0)))
    vals = []
    for i in range(200):
        x, y = mm.sample(mdl, 0.0, 0.0, jax.random.key(100 + i), 64)
        vals.append(float(mm.spectral_contrastive(x @ F.T, y @ G.T)))
    vals = np.asarray(vals)
    assert abs(vals.mean() - exact) < 5 * vals.std() / np.sqrt(len(vals))  # 5 standard errors


def test_infonce_and_siglip_match_explicit_formulas():
    rng = np.random.default_rng(0)
    f, g = rng.standard_normal((5, 3)), rng.standard_normal((5, 3))
    fu = f / np.linalg.norm(f, axis=1, keepdims=True)
    gu = g / np.linalg.norm(g, axis=1, keepdims=True)
    s = fu @ gu.T
    tau = 0.1
    i2t = np.mean([np.log(np.sum(np.exp(s[i] / tau))) - s[i, i] / tau for i in range(5)])
    t2i = np.mean([np.log(np.sum(np.exp(s[:, j] / tau))) - s[j, j] / tau for j in range(5)])
    with jax.enable_x64(True):
        assert float(mm.infonce(f, g, tau)) == pytest.approx(0.5 * (i2t + t2i), rel=1e-10)
        t, b = 2.0, -1.5
        ref = 0.0
        for i in range(5):
            for j in range(5):
                lab = 1.0 if i == j else -1.0
                ref -= np.log(1.0 / (1.0 + np.exp(-lab * (np.exp(t) * s[i, j] + b))))
        assert float(mm.siglip(f, g, t, b)) == pytest.approx(ref / 5, rel=1e-10)


def test_jepa_loss_zero_at_whitened_target_and_caption_rrr():
    rng = np.random.default_rng(1)
    t = rng.standard_normal((50, 3)) @ rng.standard_normal((3, 3))
    tc = t - t.mean(0)
    low = np.linalg.cholesky(tc.T @ tc / 50)
    tw = np.linalg.solve(low, tc.T).T
    with jax.enable_x64(True):
        assert float(mm.jepa_latent(t, tw, eps=0.0)) < 1e-20
        assert float(mm.jepa_latent(t, np.zeros_like(t), eps=0.0)) == pytest.approx(3.0, rel=1e-12)
        y = rng.standard_normal((20, 4))
        dec = rng.standard_normal((4, 2))
        code = rng.standard_normal((20, 2))
        ref = np.mean(np.sum((y - code @ dec.T) ** 2, axis=1))
        assert float(mm.caption_rrr(code, y, dec)) == pytest.approx(ref, rel=1e-12)


def test_recall_at_1_matches_numpy():
    rng = np.random.default_rng(2)
    f = rng.standard_normal((40, 3))
    g = f + 0.8 * rng.standard_normal((40, 3))
    fu = f / np.linalg.norm(f, axis=1, keepdims=True)
    gu = g / np.linalg.norm(g, axis=1, keepdims=True)
    ref = np.mean(np.argmax(fu @ gu.T, axis=1) == np.arange(40))
    for block in (8, 40, 7):  # 7 does not divide 40: falls back to one block
        assert float(mm.recall_at_1(jnp.asarray(f), jnp.asarray(g), block=block)) == pytest.approx(ref)


def test_run_shapes_and_training_reaches_cca():
    spec = mm.MultimodalSpec(k=2, m=4, d=8, rho_x_grid=(0.0, 0.5), n_test=64, steps=1000, batch=64, cf_reps=2)
    out = jax.jit(lambda k: mm.run(spec, mm.DEFAULT_PARAMS, k))(jax.random.key(0))
    assert out["cf_recall"].shape == (2, 2, len(mm.CLOSED_FORMS))
    assert out["angle_rrr_cca_white"].shape == (2, 2)
    # population GD on a d = 8 problem for 1000 steps: at the CCA subspace to float32 rounding
    assert float(out["train_angle_x"]) < 1e-2 and float(out["train_angle_y"]) < 1e-2
    jepa = mm.MultimodalSpec(**{**spec.__dict__, "loss": "jepa", "steps": 5})
    other = jax.jit(lambda k: mm.run(jepa, mm.DEFAULT_PARAMS, k))(jax.random.key(0))  # eager: 10 s more
    assert bool(jnp.all(jnp.isnan(other["cf_recall"])))  # closed forms only in spectral lanes
    with pytest.raises(ValueError, match="unknown loss"):
        mm.run(mm.MultimodalSpec(loss="clip"), mm.DEFAULT_PARAMS, jax.random.key(0))


# -- the rounding bounds of the two identities --------------------------------------------------

U32 = 2.0**-24  # float32 unit roundoff
DB = 64  # the experiment's dimension (k = 4, m = 16), where the bounds are used
BOUND_MODELS = [(s, rho_x) for s in range(3) for rho_x in (0.0, 0.5, 0.9)]


def _big_model(seed):
    return mm.draw_model(jax.random.key(100 + seed), 4, 16, DB, 3.0, 2.0, 0.3)


def _identity_angles(sxx, sxy, syy, k=4):
    """The two identities' angles computed as the simulator does (in the dtype of the inputs)."""
    wx, _, _ = mm.cca_subspace(sxx, sxy, syy, k)
    rx, _ = mm.rrr_subspace(sxx, sxy, k)
    wsxx, wsxy, wsyy = mm.whiten_text(sxx, sxy, syy)
    _, swy, _ = mm.cca_subspace(wsxx, wsxy, wsyy, k)
    _, sv = mm.rrr_subspace(wsxx, wsxy, k)
    return float(principal_angles(wx, rx)[0]), float(principal_angles(swy, sv)[0]), wx, rx


def _kappa_gap(sxx, sxy, syy, k=4):
    ev = np.linalg.eigvalsh(sxx)
    r = np.asarray(_np_cca(sxx, sxy, syy, k)[2])
    return ev[-1] / ev[0], r[-1] / r[0]


def test_identities_hold_in_float64_within_the_float64_bound():
    # the same first-order bounds with u = 2⁻⁵³: about 1e-11 (image) and 4e-13 (white text) here
    for seed, rho_x in BOUND_MODELS:
        with jax.enable_x64(True):
            mdl = jax.tree.map(lambda a: jnp.asarray(a, jnp.float64), _big_model(seed))
            cov = [np.asarray(c) for c in mm.covariances(mdl, rho_x, 0.5)]
            ax, aw, _, _ = _identity_angles(*cov)
        kappa, gap = _kappa_gap(*cov)
        assert ax <= float(mm.image_identity_bound(kappa, gap, DB, jnp.float64)) < 1e-10, (seed, rho_x, ax)
        assert aw <= float(mm.white_identity_bound(kappa, gap, DB, jnp.float64)) < 1e-11, (seed, rho_x, aw)


def test_float32_identity_angles_are_within_their_bounds_and_the_bounds_are_not_vacuous():
    ratios_x, ratios_w = [], []
    for seed, rho_x in BOUND_MODELS:
        cov32 = [np.asarray(c) for c in jax.jit(mm.covariances)(_big_model(seed), rho_x, 0.5)]
        assert cov32[0].dtype == np.float32
        ax, aw, _, _ = _identity_angles(*cov32)
        kappa, gap = _kappa_gap(*(c.astype(np.float64) for c in cov32))
        ratios_x.append(ax / float(mm.image_identity_bound(kappa, gap, DB)))
        ratios_w.append(aw / float(mm.white_identity_bound(kappa, gap, DB)))
    rx, rw = np.asarray(ratios_x), np.asarray(ratios_w)
    assert rx.max() <= 1.0 and rw.max() <= 1.0, (rx, rw)
    # not vacuous: the worst observed angle is within 1000x of its bound (measured: about 2 % for
    # the image side, 0.5 % with white text, at these models)
    assert rx.max() > 1e-3 and rw.max() > 1e-3, (rx, rw)


def test_backward_errors_assumed_by_the_bounds():
    """The bounds take relative backward errors <= d·u for the float32 eigh, LU solve and products."""
    for seed, rho_x in BOUND_MODELS:
        sxx, sxy, syy = (np.asarray(c) for c in jax.jit(mm.covariances)(_big_model(seed), rho_x, 0.5))
        s64 = sxx.astype(np.float64)
        norm = np.linalg.norm(s64, 2)
        w, v = (np.asarray(a, np.float64) for a in jnp.linalg.eigh(sxx))
        beta = np.linalg.norm((v * w) @ v.T - s64, 2) / norm
        omega = np.linalg.norm(v.T @ v - np.eye(DB), 2)
        b = np.asarray(jnp.linalg.solve(sxx, sxy), np.float64)
        zeta = np.linalg.norm(s64 @ b - sxy.astype(np.float64), 2) / (norm * np.linalg.norm(b, 2))
        assert max(beta, omega, zeta) <= DB * U32, (beta / U32, omega / U32, zeta / U32)
        # the angle's QR sees bases of condition <= sqrt(κ): W_x is Σ_xx-orthonormal, R_x checked here
        kappa, gap = _kappa_gap(s64, sxy.astype(np.float64), syy.astype(np.float64))
        _, _, wx, rx = _identity_angles(sxx, sxy, syy)
        for basis in (np.asarray(wx, np.float64), np.asarray(rx, np.float64)):
            assert np.linalg.cond(basis / np.linalg.norm(basis, axis=0)) <= np.sqrt(kappa)


def test_whitened_cross_covariance_term_alone_is_within_its_share_of_the_bound():
    """Forming T = S Σ_xy Σ_yy^{-1/2} and its SVD in float32 (the rest in float64) moves CCA's image side by <= 3d·u·√κ/g."""
    for seed, rho_x in BOUND_MODELS:
        cov32 = [np.asarray(c) for c in jax.jit(mm.covariances)(_big_model(seed), rho_x, 0.5)]
        sxx, sxy, syy = (c.astype(np.float64) for c in cov32)
        kappa, gap = _kappa_gap(sxx, sxy, syy)
        w, v = np.linalg.eigh(sxx)
        ix = (v / np.sqrt(w)) @ v.T
        w, v = np.linalg.eigh(syy)
        iy = (v / np.sqrt(w)) @ v.T
        t32 = jnp.asarray(ix, jnp.float32) @ jnp.asarray(cov32[1]) @ jnp.asarray(iy, jnp.float32)
        u32 = np.asarray(jnp.linalg.svd(t32)[0], np.float64)[:, :4]
        exact = np.linalg.solve(sxx, sxy @ np.linalg.svd(sxy)[2][:4].T)  # Σ_xx⁻¹ span Σ_xy (rank 4)
        with jax.enable_x64(True):
            angle = float(principal_angles(ix @ u32, exact)[0])
        assert angle <= 3 * DB * U32 * np.sqrt(kappa) / gap, (seed, rho_x, angle)
