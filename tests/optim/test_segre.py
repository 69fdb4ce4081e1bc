"""Segre-manifold geometry and RGD against float64 numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    segre_retract,
    segre_rgd,
    segre_tangent_coords,
    segre_tangent_project,
    segre_tensor,
)


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def _point(rng, r, shape):
    fs = [rng.standard_normal((r, p)) for p in shape]
    fs = [f / np.linalg.norm(f, axis=1, keepdims=True) for f in fs]
    return rng.uniform(0.5, 2.0, r), fs


def _np_project(g, u):
    """Numpy reference: projection onto the tangent space of one rank-one component (order 3)."""
    u1, u2, u3 = u
    c = np.einsum("abc,a,b,c->", g, u1, u2, u3)
    out = c * np.einsum("a,b,c->abc", u1, u2, u3)
    gs = [
        np.einsum("abc,b,c->a", g, u2, u3),
        np.einsum("abc,a,c->b", g, u1, u3),
        np.einsum("abc,a,b->c", g, u1, u2),
    ]
    ws = [(np.eye(len(v)) - np.outer(v, v)) @ gv for v, gv in zip(u, gs)]
    out = out + np.einsum("a,b,c->abc", ws[0], u2, u3)
    out = out + np.einsum("a,b,c->abc", u1, ws[1], u3)
    return out + np.einsum("a,b,c->abc", u1, u2, ws[2])


def test_projection_matches_numpy_and_is_idempotent():
    rng = np.random.default_rng(0)
    lam, fs = _point(rng, 2, (3, 4, 5))
    g = rng.standard_normal((3, 4, 5))
    proj = np.asarray(segre_tangent_project(jnp.asarray(g), jnp.asarray(lam), [jnp.asarray(f) for f in fs]))
    for i in range(2):
        ref = _np_project(g, [f[i] for f in fs])
        np.testing.assert_allclose(proj[i], ref, atol=1e-12)
        again = np.asarray(
            segre_tangent_project(jnp.asarray(proj[i]), jnp.asarray(lam), [jnp.asarray(f) for f in fs])
        )[i]
        # P(P(G)) = P(G) holds exactly in exact arithmetic; float64 round-off of O(1) sums
        np.testing.assert_allclose(again, proj[i], atol=1e-12)
        # the residual G - P(G) is orthogonal to the tangent space
        assert abs(np.sum((g - proj[i]) * proj[i])) < 1e-12


def test_projection_matches_the_factor_chain_rule():
    rng = np.random.default_rng(1)
    lam, fs = _point(rng, 1, (3, 4, 2))
    g = jnp.asarray(rng.standard_normal((3, 4, 2)))

    def linear(p):  # L(T) = <G, T>, whose Euclidean gradient is G
        return jnp.sum(g * segre_tensor(*p))

    dlam, dfs = jax.grad(linear)((jnp.asarray(lam), [jnp.asarray(f) for f in fs]))
    # chain rule: dL/dlam = <G, (x)u>, dL/du_l = lam G(u_{-l}); the projection rebuilt from these
    u = [f[0] for f in fs]
    rebuilt = float(dlam[0]) * np.einsum("a,b,c->abc", *u)
    for l_, df in enumerate(dfs):
        w = (np.eye(len(u[l_])) - np.outer(u[l_], u[l_])) @ (np.asarray(df[0]) / lam[0])
        rebuilt = rebuilt + np.einsum("a,b,c->abc", *[w if k == l_ else v for k, v in enumerate(u)])
    proj = np.asarray(segre_tangent_project(g, jnp.asarray(lam), [jnp.asarray(f) for f in fs]))[0]
    np.testing.assert_allclose(proj, rebuilt, atol=1e-12)
    a, ws = segre_tangent_coords(g, [jnp.asarray(f) for f in fs])
    np.testing.assert_allclose(np.asarray(a), np.asarray(dlam), atol=1e-12)


def test_retraction_is_first_order_and_stays_rank_one():
    rng = np.random.default_rng(2)
    lam, fs = _point(rng, 1, (3, 4, 5))
    jl, jf = jnp.asarray(lam), [jnp.asarray(f) for f in fs]
    a, ws = segre_tangent_coords(jnp.asarray(rng.standard_normal((3, 4, 5))), jf)
    xi = np.asarray(segre_tangent_project(jnp.asarray(rng.standard_normal((3, 4, 5))), jl, jf))[0]
    a, ws = segre_tangent_coords(jnp.asarray(xi), jf)  # coordinates of a tangent vector xi
    t0 = np.asarray(segre_tensor(jl, jf))
    errs = []
    for t in (1e-2, 1e-3):
        nl, nf = segre_retract(jl, jf, t * a, [t * w for w in ws])
        for f in nf:  # unit rows
            np.testing.assert_allclose(np.linalg.norm(np.asarray(f), axis=1), 1.0, atol=1e-14)
        errs.append(np.linalg.norm(np.asarray(segre_tensor(nl, nf)) - t0 - t * xi))
    # R(T + t xi) = T + t xi + O(t^2): the error falls 100x when t falls 10x (here 95x to 105x)
    assert 95 < errs[0] / errs[1] < 105
    # the retracted tensor is rank one: second singular values of its unfoldings vanish
    nl, nf = segre_retract(jl, jf, 0.3 * a, [0.3 * w for w in ws])
    t1 = np.asarray(segre_tensor(nl, nf))
    for mode in range(3):
        s = np.linalg.svd(np.moveaxis(t1, mode, 0).reshape(t1.shape[mode], -1), compute_uv=False)
        assert s[1] < 1e-12 * s[0]


def _np_rgd(lam, fs, target, lr, steps):
    """Numpy float64 RGD on 0.5||lam (x)u - target||^2 for one component of order 3."""
    lam, u = float(lam), [f.copy() for f in fs]
    for _ in range(steps):
        g = lam * np.einsum("a,b,c->abc", *u) - target
        c = np.einsum("abc,a,b,c->", g, *u)
        gs = [np.einsum("abc,b,c->a", g, u[1], u[2]), np.einsum("abc,a,c->b", g, u[0], u[2])]
        gs.append(np.einsum("abc,a,b->c", g, u[0], u[1]))
        new_lam = lam - lr * c
        new_u = []
        for v, gv in zip(u, gs):
            w = -lr * (gv - v * (v @ gv))
            x = v + w / lam
            new_lam *= np.linalg.norm(x)
            new_u.append(x / np.linalg.norm(x))
        lam, u = new_lam, new_u
    return lam, u


def test_rgd_matches_numpy_reference():
    rng = np.random.default_rng(3)
    lam, fs = _point(rng, 1, (3, 4, 2))
    lt, ft = _point(rng, 1, (3, 4, 2))
    target = lt[0] * np.einsum("a,b,c->abc", *[f[0] for f in ft])
    tj = jnp.asarray(target)

    def loss(p):
        return 0.5 * jnp.sum((segre_tensor(*p) - tj) ** 2)

    opt = segre_rgd(0.3)
    p = (jnp.asarray(lam), [jnp.asarray(f) for f in fs])
    s = opt.init(p)
    for _ in range(5):
        u, s = opt.update(jax.grad(loss)(p), s, p)
        p = optax.apply_updates(p, u)
    ref_lam, ref_u = _np_rgd(lam[0], [f[0] for f in fs], target, 0.3, 5)
    # apply_updates adds (new - old): one rounding per step on O(1) numbers, five steps
    np.testing.assert_allclose(float(p[0][0]), ref_lam, rtol=1e-12)
    for f, ru in zip(p[1], ref_u):
        np.testing.assert_allclose(np.asarray(f[0]), ru, atol=1e-12)


def test_rgd_requires_params_and_checks_shapes():
    opt = segre_rgd(0.1)
    p = (jnp.ones(1), [jnp.ones((1, 2)) / np.sqrt(2)])
    with pytest.raises(ValueError, match="params"):
        opt.update(p, opt.init(p), None)
    with pytest.raises(ValueError, match="expected lam"):
        segre_tensor(jnp.ones(2), [jnp.ones((1, 2))])
