"""LMO primitives, scale_by_lmo and muon (against optax.contrib.muon and numpy references)."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    NS_COEFFS,
    lmo_frobenius,
    lmo_nuclear,
    lmo_spectral,
    muon,
    polar_newton_schulz,
    polar_svd,
    scale_by_lmo,
    scale_by_muon,
)

SHAPES = [(5, 5), (7, 3), (3, 8)]


def _np_polar(x):
    u, _, vt = np.linalg.svd(x, full_matrices=False)
    return u @ vt


def _np_ns(x, coeffs, steps, eps=1e-8):
    """Hand-written Newton-Schulz (numpy) for the reference."""
    t = x.shape[0] > x.shape[1]
    if t:
        x = x.T
    x = x / (np.linalg.norm(x) + eps)
    c = (
        np.broadcast_to(np.asarray(coeffs, dtype=np.float64), (steps, 3))
        if np.ndim(coeffs) == 1
        else np.asarray(coeffs)
    )
    for a, b, cc in c:
        g = x @ x.T
        x = a * x + (b * g + cc * g @ g) @ x
    return x.T if t else x


@pytest.mark.parametrize("shape", SHAPES)
def test_polar_svd_matches_numpy_float64(shape):
    # float64: exact identity against numpy's SVD
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape)
    with jax.enable_x64(True):
        y = np.asarray(polar_svd(jnp.asarray(x)))
    np.testing.assert_allclose(y, _np_polar(x), atol=1e-12)


def test_polar_svd_rank_aware_keeps_subspaces():
    # rank-2 6x5 matrix: polar is U_2 V_2^T (a partial isometry), not an orthogonal completion
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
    with jax.enable_x64(True):
        y = np.asarray(polar_svd(jnp.asarray(x)))
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose(y, u[:, :2] @ vt[:2], atol=1e-10)
    assert np.linalg.matrix_rank(y, tol=1e-8) == 2


@pytest.mark.parametrize("shape", SHAPES)
def test_newton_schulz_matches_handwritten_numpy(shape):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape)
    with jax.enable_x64(True):
        for preset, steps in (("quintic", 5), ("dion", 5), ("cubic", 7)):
            y = np.asarray(polar_newton_schulz(jnp.asarray(x), preset, steps))
            np.testing.assert_allclose(y, _np_ns(x, NS_COEFFS[preset], steps), rtol=1e-10, atol=1e-12)


def test_cubic_newton_schulz_converges_to_polar():
    # well-conditioned input: classical NS converges quadratically to U V^T
    rng = np.random.default_rng(3)
    q1, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    q2, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    x = q1[:, :4] @ np.diag([1.0, 0.8, 0.6, 0.5]) @ q2
    with jax.enable_x64(True):
        y = np.asarray(polar_newton_schulz(jnp.asarray(x), "cubic", 40))
    np.testing.assert_allclose(y, _np_polar(x), atol=1e-10)


def test_quintic_singular_values_in_band():
    # Keller Jordan's coefficients: singular values land near 1 (about [0.68, 1.13]), not at 1
    x = jax.random.normal(jax.random.PRNGKey(0), (64, 32))
    s = np.linalg.svd(np.asarray(polar_newton_schulz(x)), compute_uv=False)
    assert 0.6 < s.min() and s.max() < 1.25


@pytest.mark.parametrize("shape", SHAPES)
def test_lmo_dual_norm_identities(shape):
    # <G, lmo(G)> equals the dual norm; lmo(G) lies on the unit sphere of the norm (float64)
    rng = np.random.default_rng(4)
    g = rng.standard_normal(shape)
    sv = np.linalg.svd(g, compute_uv=False)
    with jax.enable_x64(True):
        gj = jnp.asarray(g)
        ds = np.asarray(lmo_spectral(gj))
        dn = np.asarray(lmo_spectral(gj, method="newton_schulz", ns_coeffs="cubic", ns_steps=60))
        df = np.asarray(lmo_frobenius(gj))
        dnu = np.asarray(lmo_nuclear(gj))
    assert np.sum(g * ds) == pytest.approx(sv.sum(), rel=1e-12)
    assert np.linalg.norm(ds, 2) == pytest.approx(1.0, rel=1e-12)
    assert np.sum(g * dn) == pytest.approx(sv.sum(), rel=1e-8)
    assert np.sum(g * df) == pytest.approx(np.linalg.norm(g), rel=1e-12)
    assert np.sum(g * dnu) == pytest.approx(sv[0], rel=1e-12)
    assert np.linalg.svd(dnu, compute_uv=False).sum() == pytest.approx(1.0, rel=1e-12)
    # maximality against random feasible points of each ball
    for _ in range(20):
        d = rng.standard_normal(shape)
        assert np.sum(g * d / np.linalg.norm(d, 2)) <= sv.sum() + 1e-9
        assert np.sum(g * d / np.linalg.svd(d, compute_uv=False).sum()) <= sv[0] + 1e-9


def test_lmo_zero_gradient_is_zero():
    z = jnp.zeros((3, 4))
    for f in (lmo_spectral, lmo_frobenius, lmo_nuclear):
        assert np.all(np.asarray(f(z)) == 0)


@pytest.mark.parametrize("nesterov", [False, True])
def test_scale_by_lmo_matches_numpy(nesterov):
    rng = np.random.default_rng(5)
    gs = [rng.standard_normal((4, 3)) for _ in range(4)]
    beta, radius = 0.7, 0.5
    with jax.enable_x64(True):
        for norm in ("spectral", "frobenius", "nuclear"):
            tx = scale_by_lmo(norm, radius, beta, nesterov=nesterov)
            s = tx.init(jnp.zeros((4, 3)))
            m = np.zeros((4, 3))
            for g in gs:
                u, s = tx.update(jnp.asarray(g), s)
                m = beta * m + (1 - beta) * g
                d = beta * m + (1 - beta) * g if nesterov else m
                if norm == "spectral":
                    ref = _np_polar(d)
                elif norm == "frobenius":
                    ref = d / np.linalg.norm(d)
                else:
                    uu, _, vt = np.linalg.svd(d)
                    ref = np.outer(uu[:, 0], vt[0])
                np.testing.assert_allclose(np.asarray(u), radius * ref, atol=1e-10)


def test_scale_by_lmo_rejects_vectors():
    with pytest.raises(ValueError):
        scale_by_lmo().init({"b": jnp.zeros(3)})


def _tree_params():
    k = jax.random.split(jax.random.PRNGKey(1), 3)
    return {
        "w_tall": jax.random.normal(k[0], (7, 3)),
        "w_wide": jax.random.normal(k[1], (3, 8)),
        "conv": jax.random.normal(k[2], (2, 3, 4)),
    }


def _loss(p):
    return sum(jnp.sum(jnp.sin(x) ** 2 + 0.3 * x) for x in jax.tree.leaves(p))


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {
            "weight_decay": 0.01,
            "nesterov": False,
            "beta": 0.8,
            "consistent_rms": 0.2,
            "adam_learning_rate": 0.01,
        },
    ],
)
def test_muon_matches_optax_contrib_muon(kwargs):
    p0 = _tree_params()
    ours, ref = muon(0.03, **kwargs), optax.contrib.muon(0.03, **kwargs)
    sa, sb = ours.init(p0), ref.init(p0)
    step_a = jax.jit(lambda p, s: ours.update(jax.grad(_loss)(p), s, p))
    step_b = jax.jit(lambda p, s: ref.update(jax.grad(_loss)(p), s, p))
    pa = pb = p0
    for _ in range(4):
        ua, sa = step_a(pa, sa)
        ub, sb = step_b(pb, sb)
        for k in p0:
            np.testing.assert_allclose(ua[k], ub[k], rtol=2e-5, atol=2e-6)
        pa, pb = optax.apply_updates(pa, ua), optax.apply_updates(pb, ub)


def test_muon_svd_polar_is_exact_orthogonal_step():
    p = {"w": jnp.zeros((4, 6))}
    g = {"w": jax.random.normal(jax.random.PRNGKey(2), (4, 6))}
    tx = muon(1.0, polar="svd", beta=0.0, nesterov=False)
    u, _ = tx.update(g, tx.init(p), p)
    s = np.linalg.svd(-np.asarray(u["w"]), compute_uv=False)
    np.testing.assert_allclose(s, np.sqrt(6 / 4) * np.ones(4), rtol=1e-5)  # shape factor sqrt(n/m)


def test_muon_vmap_over_hyperparameters_no_recompile():
    p0 = {"w": jax.random.normal(jax.random.PRNGKey(3), (5, 4)), "b": jnp.ones(4)}

    def run(lr, beta):
        tx = muon(lr, beta=beta, weight_decay=0.1 * lr)
        s = tx.init(p0)

        def body(carry, _):
            p, s = carry
            u, s = tx.update(jax.grad(_loss)(p), s, p)
            return (optax.apply_updates(p, u), s), None

        (p, _), _ = jax.lax.scan(body, (p0, s), None, length=3)
        return p

    f = jax.jit(jax.vmap(run))
    lrs, betas = jnp.array([0.01, 0.03, 0.1]), jnp.array([0.9, 0.95, 0.5])
    out = f(lrs, betas)
    f(lrs * 2, betas * 0.5)
    assert f._cache_size() == 1
    one = run(0.03, 0.95)
    np.testing.assert_allclose(out["w"][1], one["w"], rtol=1e-5, atol=1e-6)


def test_muon_schedules_chain_inject_and_dtypes():
    p = {"w": jnp.ones((3, 4), jnp.bfloat16), "b": jnp.ones(4, jnp.bfloat16)}
    g = jax.tree.map(lambda x: 0.1 * x, p)
    tx = optax.chain(
        optax.clip_by_global_norm(1.0), muon(optax.linear_schedule(0.1, 0.0, 10), beta=lambda c: 0.9)
    )
    u, _ = jax.jit(tx.update)(g, tx.init(p), p)
    assert all(x.dtype == jnp.bfloat16 for x in jax.tree.leaves(u))
    # inject_hyperparams in float32 (optax's own adamw under inject_hyperparams gives NaN in bf16)
    p = jax.tree.map(lambda x: x.astype(jnp.float32), p)
    g = jax.tree.map(lambda x: 0.1 * x, p)
    # ns_steps is structural (a Python int): keep it static under inject_hyperparams
    inj = optax.inject_hyperparams(muon, static_args=("ns_steps",))(learning_rate=0.1)
    st = inj.init(p)
    u2, _ = jax.jit(inj.update)(g, st, p)
    u3, _ = jax.jit(muon(0.1).update)(g, muon(0.1).init(p), p)
    for a, b in zip(jax.tree.leaves(u2), jax.tree.leaves(u3)):
        np.testing.assert_allclose(a, b, rtol=1e-4)  # Adam leaf: injected eps is a float32 array


def test_scale_by_muon_state_dtype_and_traced_eps():
    tx = scale_by_muon(mu_dtype=jnp.float32)
    p = jnp.ones((3, 3), jnp.bfloat16)
    s = tx.init(p)
    assert s.mu.dtype == jnp.float32
    u, s = tx.update(p, s)
    assert u.dtype == jnp.bfloat16 and s.mu.dtype == jnp.float32
    f = jax.jit(lambda e: scale_by_muon(eps=e).update(jnp.eye(3), scale_by_muon().init(jnp.eye(3)))[0])
    f(1e-8)
    f(1e-7)
    assert f._cache_size() == 1
