"""Intrinsic Muon on fixed-rank, SPD, Stiefel and Grassmann manifolds (arXiv 2605.09238).

Numpy references transcribe the update equations (the authors' code, as we read it),
written independently of the JAX implementation;
the invariance, dual-norm and feasibility claims are checked in float64.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
import scipy.linalg as sla

from jaxtheory.optim import (
    FactorPair,
    fixed_rank_direction,
    grassmann_direction,
    imuon_fixed_rank,
    imuon_grassmann,
    imuon_lora,
    imuon_spd,
    imuon_stiefel,
    spd_direction,
    spd_exp_retraction,
    stiefel_direction,
)

NORMS = ("spectral", "frobenius", "nuclear")


# ---------------------------------------------------------------- numpy references
def np_polar(x):
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    keep = s > np.finfo(float).eps * max(x.shape) * s[0]
    return (u * keep) @ vt


def np_top(x):
    u, _, vt = np.linalg.svd(x, full_matrices=False)
    return np.outer(u[:, 0], vt[0])


def np_lmo(h, norm):
    return {"spectral": np_polar, "nuclear": np_top, "frobenius": lambda z: z / np.linalg.norm(z)}[norm](h)


def np_psd_pow(s, power):
    w, v = np.linalg.eigh(s)
    return (v * np.maximum(w, 1e-12) ** power) @ v.T


def np_fixed_rank(gb, ga, b, a, norm, metric, eps):
    if metric == "balanced":
        pa = np_psd_pow(a @ a.T + eps * np.eye(a.shape[0]), -0.5)
        pb = np_psd_pow(b.T @ b + eps * np.eye(a.shape[0]), -0.5)
    else:
        pa = pb = np.eye(a.shape[0])
    hb, ha = gb @ pa, pb @ ga
    if norm == "frobenius":
        nu = np.sqrt(np.sum(hb**2) + np.sum(ha**2))
        zb, za = hb / nu, ha / nu
    else:
        zb, za = np_lmo(hb, norm), np_lmo(ha, norm)
    return zb @ pa, pb @ za, hb, ha


def _problem(m=9, n=7, r=3, seed=0):
    rng = np.random.default_rng(seed)
    b, a = rng.standard_normal((m, r)), rng.standard_normal((r, n))
    gx = rng.standard_normal((m, n))
    return b, a, gx


def _cond_matrix(r, cond, seed):
    rng = np.random.default_rng(seed)
    q1, _ = np.linalg.qr(rng.standard_normal((r, r)))
    q2, _ = np.linalg.qr(rng.standard_normal((r, r)))
    return q1 @ np.diag(np.logspace(0, np.log10(cond), r)) @ q2


def _ambient(b, a, gx, norm, metric, eps=0.0):
    d = fixed_rank_direction(
        jnp.asarray(gx @ a.T),
        jnp.asarray(b.T @ gx),
        jnp.asarray(b),
        jnp.asarray(a),
        norm,
        metric=metric,
        eps=eps,
    )
    return np.asarray(d.xi_B) @ a + b @ np.asarray(d.xi_A), d


# ---------------------------------------------------------------- fixed rank
@pytest.mark.parametrize("metric", ["balanced", "euclidean"])
def test_fixed_rank_direction_matches_numpy(metric):
    b, a, gx = _problem()
    with jax.enable_x64(True):
        for norm in NORMS:
            d = fixed_rank_direction(
                jnp.asarray(gx @ a.T),
                jnp.asarray(b.T @ gx),
                jnp.asarray(b),
                jnp.asarray(a),
                norm,
                metric=metric,
                eps=1e-8,
            )
            rb, ra, _, _ = np_fixed_rank(gx @ a.T, b.T @ gx, b, a, norm, metric, 1e-8)
            np.testing.assert_allclose(np.asarray(d.xi_B), rb, atol=1e-10)
            np.testing.assert_allclose(np.asarray(d.xi_A), ra, atol=1e-10)


def test_claim_gauge_invariance_single_step():
    """Claim: iMuon's ambient step is unchanged under B -> BS, A -> S^{-1}A (rel <= 1e-10,
    float64, cond(S) up to 100); Euclidean Muon on the factors changes by O(1)."""
    b, a, gx = _problem(12, 10, 4, seed=1)
    with jax.enable_x64(True):
        for cond in (1.0, 10.0, 100.0):
            s = _cond_matrix(4, cond, seed=int(cond))
            b2, a2 = b @ s, np.linalg.solve(s, a)
            for norm in NORMS:
                x1, _ = _ambient(b, a, gx, norm, "balanced")
                x2, _ = _ambient(b2, a2, gx, norm, "balanced")
                rel = np.linalg.norm(x1 - x2) / np.linalg.norm(x1)
                assert rel <= 1e-10, (norm, cond, rel)
        m1, _ = _ambient(b, a, gx, "spectral", "euclidean")
        m2, _ = _ambient(b2, a2, gx, "spectral", "euclidean")
        assert np.linalg.norm(m1 - m2) / np.linalg.norm(m1) > 0.5


def test_gauge_invariance_broken_only_at_order_eps():
    # eps > 0 (the authors' 1e-8) regularises the Gram roots; the gauge error is O(eps / lambda_min)
    b, a, gx = _problem(12, 10, 4, seed=1)
    with jax.enable_x64(True):
        s = _cond_matrix(4, 100.0, seed=3)
        x1, _ = _ambient(b, a, gx, "spectral", "balanced", eps=1e-8)
        x2, _ = _ambient(b @ s, np.linalg.solve(s, a), gx, "spectral", "balanced", eps=1e-8)
    lam_min = min(np.linalg.eigvalsh(x @ x.T).min() for x in (np.linalg.solve(s, a), a))
    assert np.linalg.norm(x1 - x2) / np.linalg.norm(x1) <= 100 * 1e-8 / lam_min


def test_claim_dual_norm_attained_fixed_rank():
    """Claim: <grad_X f, xi_B A + B xi_A> = ||H_B||_* + ||H_A||_* (spectral), ||(H_B,H_A)||_F
    (Frobenius), ||H_B||_2 + ||H_A||_2 (nuclear); per block ||Z||_2 = 1 (float64, rel 1e-10)."""
    b, a, gx = _problem(seed=2)
    with jax.enable_x64(True):
        for norm in NORMS:
            amb, d = _ambient(b, a, gx, norm, "balanced")
            _, _, hb, ha = np_fixed_rank(gx @ a.T, b.T @ gx, b, a, norm, "balanced", 0.0)
            sb, sa = np.linalg.svd(hb, compute_uv=False), np.linalg.svd(ha, compute_uv=False)
            dual = {
                "spectral": sb.sum() + sa.sum(),
                "nuclear": sb[0] + sa[0],
                "frobenius": np.sqrt(np.sum(sb**2) + np.sum(sa**2)),
            }[norm]
            assert np.sum(gx * amb) == pytest.approx(dual, rel=1e-10)
            assert float(d.decrease) == pytest.approx(dual, rel=1e-10)
            if norm == "spectral":
                zb = np.asarray(d.xi_B) @ np_psd_pow(a @ a.T, 0.5)
                za = np_psd_pow(b.T @ b, 0.5) @ np.asarray(d.xi_A)
                assert np.linalg.norm(zb, 2) == pytest.approx(1.0, rel=1e-10)
                assert np.linalg.norm(za, 2) == pytest.approx(1.0, rel=1e-10)


def test_imuon_fixed_rank_transform_momentum_dict_nodes_and_chain():
    b, a, gx = _problem(seed=3)
    with jax.enable_x64(True):
        params = {"layer": {"B": jnp.asarray(b), "A": jnp.asarray(a)}}
        g1 = {"layer": {"B": jnp.asarray(gx @ a.T), "A": jnp.asarray(b.T @ gx)}}
        g2 = jax.tree.map(lambda x: -0.5 * x + 0.1, g1)
        lr, mom = 0.3, 0.9
        tx = imuon_fixed_rank(lr, "spectral", momentum=mom, nesterov=True)
        s = tx.init(params)
        _, s = tx.update(g1, s, params)
        u, s = tx.update(g2, s, params)
        m = jax.tree.map(lambda x, y: mom * x + y, g1, g2)
        d = jax.tree.map(lambda x, y: y + mom * x, m, g2)
        rb, ra, _, _ = np_fixed_rank(
            np.asarray(d["layer"]["B"]), np.asarray(d["layer"]["A"]), b, a, "spectral", "balanced", 0.0
        )  # the default eps
        np.testing.assert_allclose(np.asarray(u["layer"]["B"]), -lr * rb, atol=1e-10)
        np.testing.assert_allclose(np.asarray(u["layer"]["A"]), -lr * ra, atol=1e-10)
        # gradient-side transforms may come before it in a chain
        ch = optax.chain(optax.scale(2.0), imuon_fixed_rank(lr))
        u2, _ = ch.update(g1, ch.init(params), params)
        u3, _ = imuon_fixed_rank(lr).update(g1, imuon_fixed_rank(lr).init(params), params)
        np.testing.assert_allclose(np.asarray(u2["layer"]["B"]), np.asarray(u3["layer"]["B"]), atol=1e-12)
    with pytest.raises(ValueError):
        imuon_fixed_rank(0.1).init({"w": jnp.ones((2, 2))})


def test_imuon_vmap_lr_no_recompile_and_dtype():
    b, a, gx = _problem(seed=4)
    p = FactorPair(jnp.asarray(b, jnp.float32), jnp.asarray(a, jnp.float32))
    g = FactorPair(jnp.asarray(gx @ a.T, jnp.float32), jnp.asarray(b.T @ gx, jnp.float32))

    def step(lr, mom, eps):
        tx = imuon_fixed_rank(lr, momentum=mom, eps=eps)
        return tx.update(g, tx.init(p), p)[0]

    f = jax.jit(jax.vmap(step))
    u = f(jnp.array([0.1, 0.2]), jnp.array([0.0, 0.5]), jnp.array([1e-8, 1e-6]))
    f(jnp.array([0.3, 0.4]), jnp.array([0.9, 0.5]), jnp.array([1e-7, 1e-6]))
    assert f._cache_size() == 1
    assert u.B.dtype == jnp.float32 and u.A.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(u.B[1]), 2 * np.asarray(u.B[0]), rtol=1e-3, atol=1e-6)


# ---------------------------------------------------------------- LoRA (V5)
def test_imuon_lora_matches_numpy_v5():
    rng = np.random.default_rng(5)
    dout, din, r, eps = 8, 6, 2, 1e-6
    b, a = rng.standard_normal((dout, r)), rng.standard_normal((r, din))
    gb, ga = rng.standard_normal((dout, r)), rng.standard_normal((r, din))
    lr, wd = 0.1, 0.01
    mt = gb @ a + b @ ga
    iaat, ibtb = np.linalg.inv(a @ a.T + eps * np.eye(r)), np.linalg.inv(b.T @ b + eps * np.eye(r))
    pa, pb = a.T @ iaat @ a, b @ ibtb @ b.T
    db = np_polar(mt @ pa) @ a.T @ iaat
    da = ibtb @ b.T @ np_polar(pb @ mt)
    with jax.enable_x64(True):
        p = FactorPair(jnp.asarray(b), jnp.asarray(a))
        g = FactorPair(jnp.asarray(gb), jnp.asarray(ga))
        for adjust in (False, True):
            tx = imuon_lora(lr, weight_decay=wd, polar="svd", adjust_lr=adjust, eps=eps)
            u, _ = tx.update(g, tx.init(p), p)
            lb = lr * 0.2 * np.sqrt(dout) if adjust else lr
            la = lr * 0.2 * np.sqrt(din) if adjust else lr
            np.testing.assert_allclose(np.asarray(u.B), -lr * wd * b - lb * db, atol=1e-9)
            np.testing.assert_allclose(np.asarray(u.A), -lr * wd * a - la * da, atol=1e-9)


def test_imuon_lora_newton_schulz_core_equals_full():
    # Newton-Schulz on the 2r x 2r core equals Newton-Schulz on the full matrix (equivariance)
    from jaxtheory.optim import polar_newton_schulz

    rng = np.random.default_rng(6)
    dout, din, r, eps = 8, 6, 2, 1e-6
    b, a = rng.standard_normal((dout, r)), rng.standard_normal((r, din))
    gb, ga = rng.standard_normal((dout, r)), rng.standard_normal((r, din))
    with jax.enable_x64(True):
        mt = gb @ a + b @ ga
        iaat = np.linalg.inv(a @ a.T + eps * np.eye(r))
        pa = a.T @ iaat @ a
        ref = np.asarray(polar_newton_schulz(jnp.asarray(mt @ pa))) @ a.T @ iaat
        tx = imuon_lora(1.0, adjust_lr=False, eps=eps)
        p = FactorPair(jnp.asarray(b), jnp.asarray(a))
        u, _ = tx.update(FactorPair(jnp.asarray(gb), jnp.asarray(ga)), tx.init(p), p)
    np.testing.assert_allclose(-np.asarray(u.B), ref, atol=1e-8)


def test_imuon_lora_zero_b_init_moves_only_b():
    p = FactorPair(jnp.zeros((5, 2)), jax.random.normal(jax.random.PRNGKey(0), (2, 4)))
    g = FactorPair(jnp.ones((5, 2)), jnp.ones((2, 4)))
    tx = imuon_lora(0.1)
    u, _ = tx.update(g, tx.init(p), p)
    assert np.all(np.isfinite(np.asarray(u.B))) and np.abs(np.asarray(u.B)).max() > 0
    np.testing.assert_allclose(np.asarray(u.A), 0.0, atol=1e-7)


# ---------------------------------------------------------------- SPD
def _spd(n, seed, cond=10.0):
    rng = np.random.default_rng(seed)
    q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return q @ np.diag(np.logspace(0, np.log10(cond), n)) @ q.T


def test_spd_direction_retraction_and_dual_norm():
    """Claim: <sym grad, xi> = ||H||_* (spectral), ||H||_F, ||H||_2; exp retraction matches
    X^{1/2} expm(-eta Z) X^{1/2} (scipy), float64."""
    n = 6
    x = _spd(n, 7)
    g = np.random.default_rng(8).standard_normal((n, n))
    xh = sla.sqrtm(x).real
    h = xh @ (0.5 * (g + g.T)) @ xh
    lam, p = np.linalg.eigh(h)
    z = {
        "spectral": np.sign(lam),
        "frobenius": lam / np.linalg.norm(lam),
        "nuclear": np.sign(lam) * (np.abs(lam) == np.abs(lam).max()),
    }
    dual = {"spectral": np.abs(lam).sum(), "frobenius": np.linalg.norm(lam), "nuclear": np.abs(lam).max()}
    with jax.enable_x64(True):
        for norm in NORMS:
            zm = (p * z[norm]) @ p.T
            xi = np.asarray(spd_direction(jnp.asarray(g), jnp.asarray(x), norm))
            np.testing.assert_allclose(xi, xh @ zm @ xh, atol=1e-10)
            assert np.sum(0.5 * (g + g.T) * xi) == pytest.approx(dual[norm], rel=1e-10)
            xn = np.asarray(spd_exp_retraction(jnp.asarray(g), jnp.asarray(x), 0.7, norm))
            np.testing.assert_allclose(xn, xh @ sla.expm(-0.7 * zm) @ xh, rtol=1e-9, atol=1e-10)


def test_claim_spd_feasibility_large_steps():
    """Claim: iterates stay positive definite for any step (exp retraction), float64."""
    n = 5
    s_target = _spd(n, 9, cond=1e3)
    f = lambda x: jnp.trace(jnp.linalg.solve(x, s_target)) + jnp.linalg.slogdet(x)[1]
    with jax.enable_x64(True):
        for norm in NORMS:
            tx = imuon_spd(3.0, norm)

            def body(carry, _, tx=tx, norm=norm):
                x, s = carry
                u, s = tx.update(jax.grad(f)(x), s, x)
                xn = optax.apply_updates(x, u)
                gap = jnp.max(jnp.abs(xn - spd_exp_retraction(jax.grad(f)(x), x, 3.0, norm)))
                return (xn, s), (jnp.linalg.eigvalsh(xn)[0], gap / jnp.max(jnp.abs(xn)))

            x0 = jnp.eye(n)
            _, (lmin, gap) = jax.jit(
                lambda x0, tx=tx, body=body: jax.lax.scan(body, (x0, tx.init(x0)), None, length=25)
            )(x0)
            assert np.all(np.asarray(lmin) > 0), norm
            assert np.asarray(gap).max() <= 1e-12


# ---------------------------------------------------------------- Stiefel
def _stiefel_point(n, p, seed):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, p)))
    return q


def test_stiefel_direction_numpy_tangent_and_dual():
    """Claim: <grad, xi> = ||Omega||_* + ||K||_* (spectral) exactly; xi is tangent."""
    n, p = 9, 4
    x = _stiefel_point(n, p, 10)
    g = np.random.default_rng(11).standard_normal((n, p))
    xtg = x.T @ g
    om, k = 0.5 * (xtg - xtg.T), g - x @ xtg
    skew = lambda m: 0.5 * (m - m.T)
    with jax.enable_x64(True):
        for norm in NORMS:
            xi = np.asarray(stiefel_direction(jnp.asarray(g), jnp.asarray(x), norm))
            if norm == "frobenius":
                rg = g - x @ (0.5 * (xtg + xtg.T))
                ref = rg / np.linalg.norm(rg)
                dual = np.linalg.norm(rg)
            else:
                ref = x @ skew(np_lmo(om, norm)) + np_lmo(k, norm)
                so, sk = np.linalg.svd(om, compute_uv=False), np.linalg.svd(k, compute_uv=False)
                dual = so.sum() + sk.sum() if norm == "spectral" else so[0] + sk[0]
            np.testing.assert_allclose(xi, ref, atol=1e-10)
            assert np.sum(g * xi) == pytest.approx(dual, rel=1e-10)
            np.testing.assert_allclose(x.T @ xi + xi.T @ x, 0.0, atol=1e-12)


@pytest.mark.parametrize("retraction", ["polar", "qr"])
def test_claim_stiefel_feasibility(retraction):
    """Claim: ||X^T X - I|| <= 1e-10 after every retraction (float64)."""
    n, p = 10, 3
    c = np.diag(np.arange(n, 0, -1.0))
    f = lambda x: -0.5 * jnp.trace(x.T @ c @ x)
    with jax.enable_x64(True):
        tx = imuon_stiefel(lambda t: 0.8 * 0.9**t, retraction=retraction)

        def body(carry, _):
            x, s = carry
            u, s = tx.update(jax.grad(f)(x), s, x)
            x = optax.apply_updates(x, u)
            return (x, s), jnp.linalg.norm(x.T @ x - jnp.eye(p))

        x0 = jnp.asarray(_stiefel_point(n, p, 12))
        (x, _), err = jax.jit(lambda x0: jax.lax.scan(body, (x0, tx.init(x0)), None, length=40))(x0)
        assert np.asarray(err).max() <= 1e-10
        assert float(f(x)) < -0.5 * (10 + 9 + 8) * 0.95


# ---------------------------------------------------------------- Grassmann
def test_grassmann_direction_numpy_equivariance_and_dual():
    """The balanced direction is equivariant (Y -> YM gives xi M), horizontal, attains ||H||_*."""
    n, p = 8, 3
    rng = np.random.default_rng(13)
    y = rng.standard_normal((n, p))
    g = rng.standard_normal((n, p))
    c = y.T @ y
    pig = g - y @ np.linalg.solve(c, y.T @ g)
    s = np_psd_pow(c, 0.5)
    m = _cond_matrix(p, 50.0, 14)
    with jax.enable_x64(True):
        for norm in NORMS:
            xi = np.asarray(grassmann_direction(jnp.asarray(g), jnp.asarray(y), norm))
            np.testing.assert_allclose(xi, np_lmo(pig @ s, norm) @ s, atol=1e-10)
            np.testing.assert_allclose(y.T @ xi, 0.0, atol=1e-10)
            # gradient of a GL(p)-invariant f at YM is grad(Y) M^{-T}
            xi2 = np.asarray(
                grassmann_direction(jnp.asarray(g @ np.linalg.inv(m).T), jnp.asarray(y @ m), norm)
            )
            np.testing.assert_allclose(xi2, xi @ m, atol=1e-9 * np.abs(xi @ m).max())
        sv = np.linalg.svd(pig @ s, compute_uv=False)
        xi = np.asarray(grassmann_direction(jnp.asarray(g), jnp.asarray(y)))
        assert np.sum(g * xi) == pytest.approx(sv.sum(), rel=1e-10)
        xe = np.asarray(grassmann_direction(jnp.asarray(g), jnp.asarray(y), metric="euclidean"))
        np.testing.assert_allclose(xe, np_polar(pig), atol=1e-10)


def test_imuon_grassmann_qr_retraction_lands_on_orthonormal_point():
    n, p = 7, 2
    c = np.diag(np.arange(n, 0, -1.0))
    f = lambda y: -0.5 * jnp.trace(jnp.linalg.solve(y.T @ y, y.T @ c @ y))
    with jax.enable_x64(True):
        tx = imuon_grassmann(lambda t: 0.5 * 0.93**t, retraction="qr")

        def body(carry, _):
            y, s = carry
            u, s = tx.update(jax.grad(f)(y), s, y)
            return (optax.apply_updates(y, u), s), None

        y0 = jnp.asarray(np.random.default_rng(15).standard_normal((n, p)))
        (y, _), _ = jax.jit(lambda y0: jax.lax.scan(body, (y0, tx.init(y0)), None, length=60))(y0)
        np.testing.assert_allclose(np.asarray(y.T @ y), np.eye(p), atol=1e-10)
        assert float(f(y)) == pytest.approx(-0.5 * (7 + 6), rel=1e-3)


# ---------------------------------------------------------------- default eps: gauge invariance
def _experiment_factors(seed=0, m=50, n=50, r=3):
    """Factors at the scale of the imuon-completion smoke preset: N(0, (mnr)^{-1/2}) entries."""
    rng = np.random.default_rng(seed)
    std = (m * n * r) ** -0.25
    b, a = std * rng.standard_normal((m, r)), std * rng.standard_normal((r, n))
    return b, a, 1e-2 * rng.standard_normal((m, n))


def _ambient_default(b, a, gx, norm, dtype, **kw):
    b, a, gx = (jnp.asarray(x, dtype) for x in (b, a, gx))
    d = fixed_rank_direction(gx @ a.T, b.T @ gx, b, a, norm, **kw)
    return np.asarray(d.xi_B @ a + b @ d.xi_A, np.float64)


@pytest.mark.parametrize("x64", [False, True], ids=["float32", "float64"])
def test_default_eps_step_is_gauge_invariant_to_round_off(x64):
    """With the default eps the ambient step is the same for (B, A) and (BS, S^-1 A), S = alpha I
    (alpha in {0.1, 10}: the experiment's gauges) and random S with cond(S) in {10, 100}, to
    round-off. Tolerance 64 eps_mach times the condition number of the gauged factors (the
    inputs are rounded per gauge; the step is stable SVDs and products), times
    sigma_1 / (sigma_1 - sigma_2) of H for the nuclear norm (its top singular pair's
    sensitivity). Measured: <= 21 eps (spectral, Frobenius), <= 101 eps (nuclear), in float32
    and float64. The authors' absolute eps = 1e-8 breaks it in float64 at 7e-7."""
    dtype = jnp.float64 if x64 else jnp.float32
    eps = float(jnp.finfo(dtype).eps)
    b, a, gx = _experiment_factors()
    gauges = [np.eye(3) * al for al in (0.1, 10.0)] + [_cond_matrix(3, c, seed=4) for c in (10.0, 100.0)]
    sv_h = np.linalg.svd(gx @ np.linalg.qr(a.T)[0], compute_uv=False)
    with jax.enable_x64(x64):
        for norm in NORMS:
            ref = _ambient_default(b, a, gx, norm, dtype)
            for s in gauges:
                b2, a2 = b @ s, np.linalg.solve(s, a)
                tol = 64 * eps * max(np.linalg.cond(x) for x in (b, a, b2, a2))
                if norm == "nuclear":
                    tol *= sv_h[0] / (sv_h[0] - sv_h[1])
                x = _ambient_default(b2, a2, gx, norm, dtype)
                rel = np.linalg.norm(x - ref) / np.linalg.norm(ref)
                assert rel <= tol, (norm, np.linalg.cond(s), rel / eps)
        if x64:
            x = _ambient_default(0.1 * b, 10.0 * a, gx, "spectral", dtype, eps=1e-8)
            ref = _ambient_default(b, a, gx, "spectral", dtype, eps=1e-8)
            assert np.linalg.norm(x - ref) / np.linalg.norm(ref) > 1e6 * eps


def test_default_params_whole_runs_gauge_invariant_float64():
    """imuon-completion at its default parameters (smoke shapes, float64): final errors from the
    gauges {0.1, 1, 10} agree to 1e6 eps (measured <= 7e-13; each step adds round-off ~eps and
    the runs amplify it ~1e3-fold over 120 steps). With eps = 1e-8 they differed by up to 3e-3."""
    from jaxtheory.sims.matrix import completion

    assert completion.DEFAULT_PARAMS["eps"] == 0.0
    spec = completion.CompletionSpec(m=50, n=50, r=3, steps=120, methods=("imuon",), gauges=(0.1, 1.0, 10.0))
    with jax.enable_x64(True):
        for kappa, lr in ((1.0, 0.1), (10.0, 0.3)):
            params = dict(completion.DEFAULT_PARAMS, kappa=kappa, lr=lr)
            out = jax.jit(lambda k, p=params: completion.run(spec, p, k))(jax.random.key(0))
            fin = np.asarray(out["final_error"])[0]
            assert (fin.max() - fin.min()) / fin.min() <= 1e6 * np.finfo(np.float64).eps, (kappa, lr, fin)


def _orth_range(x, rtol):
    """Orthonormal basis (columns) of the range of x: singular values above rtol * sigma_max."""
    u, s, _ = np.linalg.svd(x, full_matrices=False)
    return u[:, s > rtol * s[0]] if s[0] > 0 else u[:, :0]


@pytest.mark.parametrize("x64", [False, True], ids=["float32", "float64"])
@pytest.mark.parametrize("case", ["B rank 2", "A rank 2", "B = 0", "both rank 1", "B 2 x 3"])
def test_default_eps_rank_deficient_factors(case, x64):
    """Rank-deficient factors (r = 3): finite steps that do not move along the Gram's null
    directions, and the ambient step polar(g Q_A^T) Q_A + Q_B polar(Q_B^T g) (per norm) with Q_A, Q_B
    orthonormal bases of row(A), col(B) of the actual rank (the tangent-space step, as we read
    it). The tolerance is
    the rank-revealing round-off: 1e3 eps_mach relative (1e-4 float32, 2e-13 float64)."""
    dtype = jnp.float64 if x64 else jnp.float32
    rng = np.random.default_rng(7)
    m, n, r = (2 if case == "B 2 x 3" else 12), 10, 3  # B 2 x 3: fewer rows than the rank
    b, a = rng.standard_normal((m, r)), rng.standard_normal((r, n))
    g = rng.standard_normal((m, n))
    c2, c1 = rng.standard_normal((2, r)), rng.standard_normal((1, r))
    if case == "B rank 2":
        b = rng.standard_normal((m, 2)) @ c2
    elif case == "A rank 2":
        a = c2.T @ rng.standard_normal((2, n))
    elif case == "B = 0":
        b = np.zeros((m, r))
    else:
        b, a = rng.standard_normal((m, 1)) @ c1, c1.T @ rng.standard_normal((1, n))
    tol = 1e3 * float(jnp.finfo(dtype).eps)
    with jax.enable_x64(x64):
        b_, a_ = np.asarray(jnp.asarray(b, dtype), np.float64), np.asarray(jnp.asarray(a, dtype), np.float64)
        qa, qb = _orth_range(a_.T, tol).T, _orth_range(b_, tol)  # (k_A, n), (m, k_B)
        for norm in NORMS:
            d = fixed_rank_direction(
                jnp.asarray(g @ a_.T, dtype),
                jnp.asarray(b_.T @ g, dtype),
                jnp.asarray(b_, dtype),
                jnp.asarray(a_, dtype),
                norm,
            )
            xb, xa = np.asarray(d.xi_B, np.float64), np.asarray(d.xi_A, np.float64)
            assert np.all(np.isfinite(xb)) and np.all(np.isfinite(xa)), norm
            # no motion along the null directions of A A^T (columns of xi_B) and B^T B (rows of xi_A)
            scale = max(np.abs(xb).max(), np.abs(xa).max())
            null_a = np.eye(r) - np.linalg.pinv(a_.T) @ a_.T if qa.shape[0] < r else np.zeros((r, r))
            null_b = np.eye(r) - np.linalg.pinv(b_) @ b_ if qb.shape[1] < r else np.zeros((r, r))
            assert np.abs(xb @ null_a).max() <= tol * scale, norm
            assert np.abs(null_b @ xa).max() <= tol * scale, norm
            hb, ha = g @ qa.T, qb.T @ g
            if norm == "frobenius":
                nu = np.sqrt(np.sum(hb**2) + np.sum(ha**2))
                ref = (hb @ qa + qb @ ha) / nu
            else:
                ref = np_lmo(hb, norm) @ qa + (qb @ np_lmo(ha, norm) if qb.shape[1] else 0.0)
            amb = xb @ a_ + b_ @ xa
            np.testing.assert_allclose(amb, ref, rtol=0, atol=tol * np.abs(ref).max(), err_msg=norm)


def test_zero_factors_give_zero_step():
    z = FactorPair(jnp.zeros((4, 2)), jnp.zeros((2, 3)))
    g = jnp.ones((4, 3))
    for norm in NORMS:
        d = fixed_rank_direction(g @ z.A.T, z.B.T @ g, z.B, z.A, norm)
        assert float(jnp.abs(d.xi_B).max()) == 0.0 and float(jnp.abs(d.xi_A).max()) == 0.0, norm


# ---------------------------------------------------------------- half precision
def _bf16_problems():
    rng = np.random.default_rng(3)
    spd = np.eye(3) + 0.2 * np.ones((3, 3))
    q, _ = np.linalg.qr(rng.standard_normal((4, 2)))
    pair = FactorPair(B=rng.standard_normal((4, 2)), A=rng.standard_normal((2, 3)))
    return [
        pytest.param(imuon_fixed_rank(0.1), pair, id="fixed_rank"),
        pytest.param(imuon_lora(0.1, polar="svd"), pair, id="lora"),
        pytest.param(imuon_spd(0.1), spd, id="spd"),
        pytest.param(imuon_stiefel(0.1, retraction="qr"), q, id="stiefel_qr"),
        pytest.param(
            imuon_grassmann(0.1, retraction="qr"), q + 0.3 * rng.standard_normal((4, 2)), id="grassmann_qr"
        ),
    ]


@pytest.mark.parametrize("tx,x", _bf16_problems())
def test_bfloat16_params_are_computed_in_float32(tx, x):
    # LAPACK has no bfloat16 eigh/QR/solve: the step is computed in float32 from the bf16
    # values and rounded once to bf16, so it equals the float32 step on the same (rounded)
    # inputs up to that rounding (relative 2^-8 of the largest entry).
    rng = np.random.default_rng(4)
    x16 = jax.tree.map(lambda v: jnp.asarray(v, jnp.bfloat16), x)
    g16 = jax.tree.map(lambda v: jnp.asarray(rng.standard_normal(np.shape(v)), jnp.bfloat16), x)
    u16, _ = tx.update(g16, tx.init(x16), x16)
    x32, g32 = (jax.tree.map(lambda v: v.astype(jnp.float32), t) for t in (x16, g16))
    u32, _ = tx.update(g32, tx.init(x32), x32)
    for a, b in zip(jax.tree.leaves(u16), jax.tree.leaves(u32)):
        assert a.dtype == jnp.bfloat16
        scale = float(jnp.max(jnp.abs(b)))
        np.testing.assert_allclose(np.asarray(a, np.float32), np.asarray(b), rtol=0, atol=2.0**-8 * scale)
