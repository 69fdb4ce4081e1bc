"""Segre-manifold CP recovery sim: RGN, CP-ALS, HOSVD and the run against float64 numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.optim import segre_tangent_project, segre_tensor
from jaxtheory.sims.matrix.linalg import gaussian_sensing
from jaxtheory.sims.tensor import segre as sg

SHAPE = (3, 4, 2)


@pytest.fixture(autouse=True)
def _x64():
    with jax.enable_x64(True):
        yield


def _point(rng, r):
    fs = [rng.standard_normal((r, p)) for p in SHAPE]
    return rng.uniform(0.5, 2.0, r), [f / np.linalg.norm(f, axis=1, keepdims=True) for f in fs]


def _outer(vs):
    return np.einsum("a,b,c->abc", *vs)


def _np_tensor(lam, fs):
    return sum(lam[i] * _outer([f[i] for f in fs]) for i in range(len(lam)))


def _np_rgn_step(a, y, lam, fs):
    """Numpy RGN step with a *different* tangent basis (SVD null spaces): the step is basis-free."""
    cols, blocks = [], []
    for i in range(len(lam)):
        u = [f[i] for f in fs]
        cols.append(_outer(u).reshape(-1))
        nulls = []
        for l_, v in enumerate(u):
            q = np.linalg.svd(v[None, :])[2][1:].T  # orthonormal basis of v's complement
            nulls.append(q)
            for k in range(q.shape[1]):
                cols.append(_outer([q[:, k] if j == l_ else w for j, w in enumerate(u)]).reshape(-1))
        blocks.append(nulls)
    b = np.stack(cols, 1)
    x = np.linalg.lstsq(a @ b, y - a @ _np_tensor(lam, fs).reshape(-1), rcond=None)[0]
    new_lam, new_fs, off = [], [np.zeros_like(f) for f in fs], 0
    for i in range(len(lam)):
        ai = x[off]
        off += 1
        li = lam[i] + ai
        for l_, q in enumerate(blocks[i]):
            w = q @ x[off : off + q.shape[1]]
            off += q.shape[1]
            v = fs[l_][i] + w / lam[i]
            li *= np.linalg.norm(v)
            new_fs[l_][i] = v / np.linalg.norm(v)
        new_lam.append(li)
    return np.array(new_lam), new_fs


def test_tangent_basis_is_orthonormal_per_component_and_spans_the_projection():
    rng = np.random.default_rng(0)
    lam, fs = _point(rng, 2)
    jf = [jnp.asarray(f) for f in fs]
    b = np.asarray(sg.tangent_basis(jf))
    per = 1 + sum(p - 1 for p in SHAPE)
    assert b.shape == (24, 2 * per)
    g = rng.standard_normal(SHAPE)
    proj = np.asarray(segre_tangent_project(jnp.asarray(g), jnp.asarray(lam), jf))
    for i in range(2):
        bi = b[:, i * per : (i + 1) * per]
        np.testing.assert_allclose(bi.T @ bi, np.eye(per), atol=1e-13)
        np.testing.assert_allclose((bi @ (bi.T @ g.reshape(-1))).reshape(SHAPE), proj[i], atol=1e-12)


def test_rgn_step_matches_numpy_reference():
    rng = np.random.default_rng(1)
    lam, fs = _point(rng, 2)
    lt, ft = _point(rng, 2)
    op = gaussian_sensing(jax.random.key(0), 60, SHAPE, "standard")
    a = np.asarray(op.matrix)
    y = a @ _np_tensor(lt, ft).reshape(-1) + 1e-3 * rng.standard_normal(60)
    nl, nf = sg.rgn_step(op, jnp.asarray(y), jnp.asarray(lam), [jnp.asarray(f) for f in fs])
    rl, rf = _np_rgn_step(a, y, lam, fs)
    # the same least-squares step in two bases: agreement to the conditioning of the
    # 60 x 18 design times float64 eps (about 1e-12 here)
    np.testing.assert_allclose(np.asarray(nl), rl, rtol=1e-10)
    for f, r in zip(nf, rf):
        np.testing.assert_allclose(np.asarray(f), r, atol=1e-10)


def test_rgn_converges_quadratically_on_a_tiny_noiseless_case():
    rng = np.random.default_rng(2)
    lt, ft = _point(rng, 1)
    op = gaussian_sensing(jax.random.key(1), 40, SHAPE, "standard")
    t_star = _np_tensor(lt, ft)
    y = jnp.asarray(np.asarray(op.matrix) @ t_star.reshape(-1))
    fs = [f + 0.05 * rng.standard_normal(f.shape) for f in ft]
    p = (jnp.asarray(lt * 1.05), [jnp.asarray(f / np.linalg.norm(f, axis=1, keepdims=True)) for f in fs])
    errs = []
    for _ in range(4):
        p = sg.rgn_step(op, y, *p)
        errs.append(np.linalg.norm(np.asarray(segre_tensor(*p)) - t_star))
    # e_{k+1} <= C e_k^2 with a moderate C while above round-off; ends at float64 round-off
    assert errs[1] < 10 * errs[0] ** 2 and errs[2] < max(10 * errs[1] ** 2, 1e-13)
    assert errs[-1] < 1e-12


def test_cp_als_sweep_matches_numpy_reference():
    rng = np.random.default_rng(3)
    lam, fs = _point(rng, 2)
    lt, ft = _point(rng, 2)
    op = gaussian_sensing(jax.random.key(2), 50, SHAPE, "standard")
    a = np.asarray(op.matrix).reshape((50,) + SHAPE)
    y = np.einsum("nabc,abc->n", a, _np_tensor(lt, ft))
    nl, nf = sg.cp_als_sweep(op, jnp.asarray(y), jnp.asarray(lam), [jnp.asarray(f) for f in fs])
    ref = [f.copy() for f in fs]
    specs = ["nabc,zb,zc->nza", "nabc,za,zc->nzb", "nabc,za,zb->nzc"]
    for mode, spec in enumerate(specs):
        others = [ref[k] for k in range(3) if k != mode]
        d = np.einsum(spec, a, *others).reshape(50, -1)
        x = np.linalg.lstsq(d, y, rcond=None)[0].reshape(2, -1)
        ref_lam = np.linalg.norm(x, axis=1)
        ref[mode] = x / ref_lam[:, None]
    np.testing.assert_allclose(np.asarray(nl), ref_lam, rtol=1e-10)
    for f, r in zip(nf, ref):
        np.testing.assert_allclose(np.asarray(f), r, atol=1e-10)


def test_hosvd_init_matches_numpy_svd():
    rng = np.random.default_rng(4)
    lt, ft = _point(rng, 1)
    op = gaussian_sensing(jax.random.key(3), 200, SHAPE, "standard")
    a = np.asarray(op.matrix)
    y = a @ _np_tensor(lt, ft).reshape(-1)
    lam, fs = sg.hosvd_init(op, jnp.asarray(y), 1)
    x = (a.T @ y / 200).reshape(SHAPE)
    for mode, f in enumerate(fs):
        u = np.linalg.svd(np.moveaxis(x, mode, 0).reshape(SHAPE[mode], -1))[0][:, 0]
        # singular vectors are defined up to sign
        assert abs(abs(float(np.dot(np.asarray(f[0]), u))) - 1.0) < 1e-10
    assert float(lam[0]) > 0
    comp = a @ _outer([np.asarray(f[0]) for f in fs]).reshape(-1)
    np.testing.assert_allclose(float(lam[0]), float(comp @ y / (comp @ comp)), rtol=1e-10)


def test_degrees_of_freedom():
    assert sg.degrees_of_freedom(3, 10, 1) == 28
    assert sg.degrees_of_freedom(3, 10, 2) == 56


def test_run_tiny_float64():
    spec = sg.SegreSpec(d=3, p=4, r=1, n=60, rgd_steps=60, rgn_steps=6, als_sweeps=3)
    out = jax.jit(lambda k: sg.run(spec, {"sigma": 0.0, "init_error": 0.2, "lr": 0.5}, k))(jax.random.key(5))
    out = {k: np.asarray(v) for k, v in out.items()}
    assert out["rgn_error"].dtype == np.float64
    # the start is at the requested relative error (50 bisection halvings)
    assert abs(out["rgn_error"][0] - 0.2) < 1e-9 and out["rgd_error"][0] == out["rgn_error"][0]
    assert out["rgn_error"][-1] < 1e-12  # noiseless: RGN reaches float64 round-off
    assert out["rgd_error"][-1] < out["rgd_error"][10] < out["rgd_error"][0]
    assert 0 < out["gn_eig_min"] <= out["gn_eig_max"]


def test_float32_rgn_stalls_where_float64_converges():
    # why the sim computes in float64: the same noiseless RGN in float32 stops far above
    # float64 round-off (near 1e-7: float32 eps times a modest condition number)
    rng = np.random.default_rng(2)
    lt, ft = _point(rng, 1)
    fs = [f + 0.05 * rng.standard_normal(f.shape) for f in ft]
    fs = [f / np.linalg.norm(f, axis=1, keepdims=True) for f in fs]
    t_star = _np_tensor(lt, ft)
    errs = {}
    for x64 in (False, True):
        with jax.enable_x64(x64):
            dt = jnp.float64 if x64 else jnp.float32
            op = gaussian_sensing(jax.random.key(1), 40, SHAPE, "standard", jnp.float32)
            op = type(op)(op.matrix.astype(dt), op.shape)
            y = op.apply(jnp.asarray(t_star, dt))
            step = jax.jit(lambda p, op=op, y=y: sg.rgn_step(op, y, *p))
            p = (jnp.asarray(lt * 1.05, dt), [jnp.asarray(f, dt) for f in fs])
            for _ in range(5):
                p = step(p)
            errs[x64] = float(np.linalg.norm(np.asarray(segre_tensor(*p), np.float64) - t_star))
    assert 1e-9 < errs[False] < 1e-4 and errs[True] < 1e-12, errs
