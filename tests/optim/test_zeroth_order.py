"""Zeroth-order transforms (CV-ZOD and baselines) against numpy float64 references and closed forms."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    cv_zod,
    guided_es,
    hint_gd,
    n_evals,
    prgf,
    sphere_directions,
    zo_gd,
    zo_gradient_estimate,
)

D = 12
LAM = np.linspace(0.2, 1.0, D)


def f_np(x):
    return 0.5 * np.sum(LAM * x * x) + 0.1 * np.sum(np.sin(3 * x))


def grad_np(x):
    return LAM * x + 0.3 * np.cos(3 * x)


def f_jax(x):
    return 0.5 * jnp.sum(jnp.asarray(LAM, x.dtype) * x * x) + 0.1 * jnp.sum(jnp.sin(3 * x))


def _point(seed=0):
    return np.random.default_rng(seed).standard_normal(D)


def _orthonormal(k, seed=1):
    q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((D, k)))
    return q.T  # (k, D)


def test_estimate_matches_numpy_reference():
    """g = c + (d/m) Σ (∇f·u − c·u) u with c = U Uᵀ ∇f, the same directions, float64."""
    with jax.enable_x64(True):
        x = _point()
        U = _orthonormal(2)
        key = jax.random.key(3)
        g, n = zo_gradient_estimate(
            f_jax, jnp.asarray(x), key, hint_basis=jnp.asarray(U), num_random=3, mode="jvp"
        )
        u = np.asarray(sphere_directions(key, 3, D, jnp.float64))
        gr = grad_np(x)
        c = U.T @ (U @ gr)
        ref = c + (D / 3) * ((u @ gr - u @ c) @ u)
        np.testing.assert_allclose(np.asarray(g), ref, rtol=1e-12, atol=1e-12)
        assert n == 5  # 2 hint + 3 random JVPs
        # an explicit reference replaces the projection (no hint evaluations)
        c2 = np.ones(D) * 0.1
        g2, n2 = zo_gradient_estimate(
            f_jax, jnp.asarray(x), key, reference=jnp.asarray(c2), num_random=3, mode="jvp"
        )
        ref2 = c2 + (D / 3) * ((u @ gr - u @ c2) @ u)
        np.testing.assert_allclose(np.asarray(g2), ref2, rtol=1e-12, atol=1e-12)
        assert n2 == 3


def test_estimate_fd_close_to_exact_and_counts():
    """Forward differences agree with the JVP to O(μ) (float64); fd counts f(x) unless given."""
    with jax.enable_x64(True):
        x = jnp.asarray(_point())
        U = jnp.asarray(_orthonormal(1))
        key = jax.random.key(0)
        ge, _ = zo_gradient_estimate(f_jax, x, key, hint_basis=U, mode="jvp")
        gf, nf = zo_gradient_estimate(f_jax, x, key, hint_basis=U, mode="fd", mu=1e-7)
        gc, nc = zo_gradient_estimate(f_jax, x, key, hint_basis=U, mode="central", mu=1e-5)
        # |error| of a forward difference <= μ L/2 per direction (L <= 1.9), times d for the
        # random term; central: O(μ²) plus rounding ~ eps/μ
        assert float(jnp.max(jnp.abs(gf - ge))) < D * 1e-6
        assert float(jnp.max(jnp.abs(gc - ge))) < D * 1e-8
        assert nf == 3 and nc == 4
        _, nv = zo_gradient_estimate(f_jax, x, key, hint_basis=U, mode="fd", fx=f_jax(x))
        assert nv == 2


def test_second_moment_closed_form_general_reference():
    """E‖g‖² = ‖∇f‖² + (d−1)/m ‖∇f − c‖² and E g = ∇f for any reference c (float64, m = 2)."""
    with jax.enable_x64(True):
        x = _point(5)
        gr = grad_np(x)
        c = 0.5 * gr + 0.2 * np.random.default_rng(9).standard_normal(D)
        N, m = 40000, 2
        gs = jax.vmap(
            lambda k: zo_gradient_estimate(
                f_jax, jnp.asarray(x), k, reference=jnp.asarray(c), num_random=m, mode="jvp"
            )[0]
        )(jax.random.split(jax.random.key(1), N))
        gs = np.asarray(gs)
        sq = np.sum(gs**2, axis=1)
        want = gr @ gr + (D - 1) / m * np.sum((gr - c) ** 2)
        # 5 standard errors of the Monte Carlo means
        assert abs(sq.mean() - want) < 5 * sq.std() / np.sqrt(N)
        se = gs.std(axis=0) / np.sqrt(N)
        assert np.all(np.abs(gs.mean(axis=0) - gr) < 5 * se)


def test_cv_zod_oracle_perfect_hint_is_gd_step():
    """α = 1: c = ∇f, the residual vanishes, and the oracle step lr/(1 + (d−1)(1−α)) = lr."""
    with jax.enable_x64(True):
        x = jnp.asarray(_point(2))
        gr = grad_np(np.asarray(x))
        U = jnp.asarray(gr / np.linalg.norm(gr))[None]
        opt = cv_zod(0.3, "oracle", mode="jvp", seed=4)
        u, s = opt.update(x, opt.init(x), x, value_fn=f_jax, hint_basis=U, hint_quality=1.0)
        np.testing.assert_allclose(np.asarray(u), -0.3 * gr, rtol=0, atol=1e-13)
        assert int(n_evals(s)) == 2 and int(s.count) == 1


def test_cv_zod_oracle_step_scaling():
    """The oracle step is lr / (1 + (d − 1)(1 − α)/m): equal to the constant-step update rescaled."""
    with jax.enable_x64(True):
        x = jnp.asarray(_point(3))
        U = jnp.asarray(_orthonormal(1))
        alpha, m = 0.7, 2
        a = cv_zod(1.0, num_random=m, mode="jvp", seed=1)
        ua, _ = a.update(x, a.init(x), x, value_fn=f_jax, hint_basis=U, hint_quality=alpha)
        ub, _ = a.update(x, a.init(x), x, value_fn=f_jax, hint_basis=U)
        np.testing.assert_allclose(
            np.asarray(ua), np.asarray(ub) / (1 + (D - 1) * (1 - alpha) / m), rtol=1e-14
        )


def test_cv_zod_adaptive_is_adagrad_norm():
    """Adaptive: x ← x − η g/√(b₀² + Σ‖g‖²), the oracle's g; the accumulator carries over."""
    with jax.enable_x64(True):
        x = jnp.asarray(_point(4))
        U = jnp.asarray(_orthonormal(1))
        ada = cv_zod(0.5, "adaptive", mode="jvp", seed=2, b0=0.3)
        ora = cv_zod(1.0, "oracle", mode="jvp", seed=2)
        s_a, s_o, xa = ada.init(x), ora.init(x), x
        acc = 0.3**2
        for _ in range(3):
            ga, s_o = ora.update(xa, s_o, xa, value_fn=f_jax, hint_basis=U)
            g = -np.asarray(ga)
            acc += g @ g
            ua, s_a = ada.update(xa, s_a, xa, value_fn=f_jax, hint_basis=U)
            np.testing.assert_allclose(np.asarray(ua), -0.5 * g / np.sqrt(acc), rtol=1e-12)
            xa = xa + ua
        np.testing.assert_allclose(float(s_a.sum_sq), acc, rtol=1e-12)


def test_zero_reference_is_zo_gd_bit_for_bit():
    """A zero hint basis gives c = 0: CV-ZOD is ZO-GD on the same seed, under jit, every bit."""
    x0 = jnp.asarray(_point(6), jnp.float32)
    cv0, zo = cv_zod(0.01, mode="jvp", seed=7), zo_gd(0.01, mode="jvp", seed=7)
    Z = jnp.zeros((1, D), jnp.float32)

    def body(c, _):
        xc, sc, xz, sz = c
        uc, sc = cv0.update(xc, sc, xc, value_fn=f_jax, hint_basis=Z)
        uz, sz = zo.update(xz, sz, xz, value_fn=f_jax)
        return (xc + uc, sc, xz + uz, sz), None

    (xc, _, xz, _), _ = jax.jit(lambda c: jax.lax.scan(body, c, None, length=30))(
        (x0, cv0.init(x0), x0, zo.init(x0))
    )
    np.testing.assert_array_equal(np.asarray(xc), np.asarray(xz))


def test_zo_gd_unbiased_step_numpy():
    """ZO-GD's update is −η d (∇f·u) u with the state's split key."""
    with jax.enable_x64(True):
        x = _point(7)
        opt = zo_gd(0.2, mode="jvp", seed=11)
        s = opt.init(jnp.asarray(x))
        u, s2 = opt.update(jnp.asarray(x), s, jnp.asarray(x), value_fn=f_jax)
        dirs = np.asarray(sphere_directions(jax.random.split(s.key)[1], 1, D, jnp.float64))[0]
        np.testing.assert_allclose(np.asarray(u), -0.2 * D * (grad_np(x) @ dirs) * dirs, rtol=1e-12)
        assert int(s2.n_evals) == 1


def test_hint_gd_is_projected_gradient():
    with jax.enable_x64(True):
        x = _point(8)
        U = _orthonormal(2)
        opt = hint_gd(0.4, mode="jvp")
        u, s = opt.update(
            jnp.asarray(x),
            opt.init(jnp.asarray(x)),
            jnp.asarray(x),
            value_fn=f_jax,
            hint_basis=jnp.asarray(U),
        )
        np.testing.assert_allclose(np.asarray(u), -0.4 * U.T @ (U @ grad_np(x)), rtol=1e-12)
        assert int(s.n_evals) == 2
        _, s = opt.update(
            jnp.asarray(x), s, jnp.asarray(x), value_fn=f_jax, hint_basis=jnp.asarray(U), value=0.0
        )
        assert int(s.n_evals) == 4  # "jvp" needs no f(x): 2 per iteration either way


def test_prgf_projects_on_hint_plus_random():
    """PRGF's g is an orthogonal projection of ∇f onto a subspace containing the hint."""
    with jax.enable_x64(True):
        x = _point(9)
        U = _orthonormal(1)
        gr = grad_np(x)
        opt = prgf(1.0, num_random=3, mode="jvp", seed=0)
        u, s = opt.update(
            jnp.asarray(x),
            opt.init(jnp.asarray(x)),
            jnp.asarray(x),
            value_fn=f_jax,
            hint_basis=jnp.asarray(U),
        )
        g = -np.asarray(u)
        np.testing.assert_allclose(g @ gr, g @ g, rtol=1e-12)  # projection: <∇f, g> = ‖g‖²
        np.testing.assert_allclose(U @ g, U @ gr, rtol=1e-12)  # the hint direction is kept exactly
        assert int(s.n_evals) == 4
        # with d - k random directions the subspace is everything: g = ∇f
        full = prgf(1.0, num_random=D - 1, mode="jvp")
        u, _ = full.update(
            jnp.asarray(x),
            full.init(jnp.asarray(x)),
            jnp.asarray(x),
            value_fn=f_jax,
            hint_basis=jnp.asarray(U),
        )
        np.testing.assert_allclose(-np.asarray(u), gr, rtol=1e-10, atol=1e-12)


def test_guided_es_mean_is_tilted_gradient():
    """E g = Σ∇f with Σ = (α/d) I + ((1−α)/k) UUᵀ (Monte Carlo, float64, 5 SE)."""
    with jax.enable_x64(True):
        x = jnp.asarray(_point(10))
        U = _orthonormal(1)
        gr = grad_np(np.asarray(x))
        alpha = 0.5
        N = 40000
        opt = guided_es(1.0, alpha, mode="jvp")

        def draw(k):
            s = opt.init(x)._replace(key=k)
            return -opt.update(x, s, x, value_fn=f_jax, hint_basis=jnp.asarray(U))[0]

        gs = np.asarray(jax.vmap(draw)(jax.random.split(jax.random.key(2), N)))
        sigma = alpha / D * np.eye(D) + (1 - alpha) * U.T @ U
        se = gs.std(axis=0) / np.sqrt(N)
        assert np.all(np.abs(gs.mean(axis=0) - sigma @ gr) < 5 * se)
        # central differences along ε agree with the JVP estimate
        k = jax.random.key(3)
        ge = draw(k)
        gc = -guided_es(1.0, alpha, sigma=1e-5).update(
            x, opt.init(x)._replace(key=k), x, value_fn=f_jax, hint_basis=jnp.asarray(U)
        )[0]
        np.testing.assert_allclose(np.asarray(gc), np.asarray(ge), atol=1e-7)


def test_evaluation_counts_fd():
    """n_evals in "fd" mode: f(x) once per iteration unless the caller passes `value`."""
    x = jnp.asarray(_point(11), jnp.float32)
    U = jnp.asarray(_orthonormal(1), jnp.float32)
    cases = [  # (transform, uses a hint, evals without `value`, with `value`)
        (cv_zod(0.1), True, 3, 2),
        (zo_gd(0.1), False, 2, 1),
        (hint_gd(0.1), True, 2, 1),
        (prgf(0.1), True, 3, 2),
        (guided_es(0.1), True, 2, 2),  # one antithetic pair: central differences need no f(x)
    ]
    for opt, hinted, without, with_value in cases:
        extra = {"value_fn": f_jax, **({"hint_basis": U} if hinted else {})}
        s = opt.init(x)
        _, s = opt.update(x, s, x, **extra)
        assert int(n_evals(s)) == without
        _, s = opt.update(x, s, x, **extra, value=f_jax(x))
        assert int(n_evals(s)) == without + with_value


def test_pytree_params_and_chain():
    """Pytrees are flattened consistently; the transform works inside optax.chain."""
    with jax.enable_x64(True):
        x = _point(12)
        tree = {"a": jnp.asarray(x[:5]), "b": jnp.asarray(x[5:])}
        U = _orthonormal(1)
        Ut = {"a": jnp.asarray(U[:, :5]), "b": jnp.asarray(U[:, 5:])}

        def f_tree(t):
            return f_jax(jnp.concatenate([t["a"], t["b"]]))

        opt = optax.chain(cv_zod(0.1, mode="jvp", seed=3), optax.scale(1.0))
        u, s = opt.update(tree, opt.init(tree), tree, value_fn=f_tree, hint_basis=Ut)
        flat = cv_zod(0.1, mode="jvp", seed=3)
        uf, _ = flat.update(
            jnp.asarray(x),
            flat.init(jnp.asarray(x)),
            jnp.asarray(x),
            value_fn=f_jax,
            hint_basis=jnp.asarray(U),
        )
        np.testing.assert_allclose(np.concatenate([u["a"], u["b"]]), np.asarray(uf), rtol=1e-13)
        assert int(n_evals(s)) == 2


def test_traced_learning_rate_vmaps():
    x = jnp.asarray(_point(13), jnp.float32)
    U = jnp.asarray(_orthonormal(1), jnp.float32)

    def step(lr):
        opt = cv_zod(lr, mode="jvp", seed=0)
        return opt.update(x, opt.init(x), x, value_fn=f_jax, hint_basis=U)[0]

    us = jax.vmap(step)(jnp.asarray([0.1, 0.2]))
    np.testing.assert_allclose(np.asarray(us[1]), 2 * np.asarray(us[0]), rtol=1e-6)


def test_clear_errors():
    x = jnp.ones(D)
    opt = cv_zod(0.1)
    with pytest.raises(ValueError, match="value_fn"):
        opt.update(x, opt.init(x), x, hint_basis=jnp.eye(D)[:1])
    with pytest.raises(ValueError, match="hint_basis"):
        opt.update(x, opt.init(x), x, value_fn=f_jax)
    with pytest.raises(ValueError, match="leading axis"):
        opt.update(x, opt.init(x), x, value_fn=f_jax, hint_basis=jnp.ones(()))
    with pytest.raises(ValueError, match="entries"):
        opt.update(x, opt.init(x), x, value_fn=f_jax, hint_basis=jnp.ones((1, D + 1)))
    with pytest.raises(ValueError, match="reference"):
        cv_zod(0.1, reference="best")
    with pytest.raises(ValueError, match="mode"):
        zo_gd(0.1, mode="forward")
    with pytest.raises(ValueError, match="num_random"):
        prgf(0.1, num_random=0)
