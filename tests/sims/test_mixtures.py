"""Sample-size masks and the softmax-gated MoE against independent float64 numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.mixtures import samples, softmax_moe as sm


@pytest.fixture(autouse=True)
def _x64():
    """The references are float64; x64 only inside each test (not process-wide)."""
    with jax.enable_x64(True):
        yield


def _np_forward_grad(atoms, x, y, w, expert):
    """Loss Σw(y−f)²/Σw and its gradient in closed form, numpy float64, loops over atoms."""
    k, width = atoms.shape
    d = x.shape[1]
    z = np.stack([x @ atoms[i, :d] + atoms[i, d] for i in range(k)], 1)
    g = np.exp(z - z.max(1, keepdims=True))
    g /= g.sum(1, keepdims=True)
    u = np.stack([x @ atoms[i, d + 1 : 2 * d + 1] + atoms[i, 2 * d + 1] for i in range(k)], 1)
    if expert == "linear":
        h, hp = u, np.ones_like(u)
    else:
        s = 1.0 / (1.0 + np.exp(-u))
        h, hp = s * u, s + u * s * (1 - s)
    f = (g * h).sum(1)
    r = y - f
    loss = (w * r**2).sum() / w.sum()
    grad = np.zeros_like(atoms)
    coef = -2.0 * w * r / w.sum()
    for i in range(k):
        gz = g[:, i] * (h[:, i] - f)
        ge = g[:, i] * hp[:, i]
        grad[i, :d] = (coef * gz) @ x
        grad[i, d] = (coef * gz).sum()
        grad[i, d + 1 : 2 * d + 1] = (coef * ge) @ x
        grad[i, 2 * d + 1] = (coef * ge).sum()
    return f, loss, grad


def _np_voronoi(fitted, true):
    """The Voronoi loss with loops, after the canonical shift computed in numpy."""
    d = (true.shape[1] - 2) // 2

    def lse(v):
        return np.log(np.exp(v - v.max()).sum()) + v.max()

    b, bt = fitted[:, d], true[:, d]
    pi, pit = np.exp(b - lse(b)), np.exp(bt - lse(bt))
    f = fitted.copy()
    f[:, :d] -= pi @ fitted[:, :d] - pit @ true[:, :d]
    f[:, d] -= lse(b) - lse(bt)
    keep = [c for c in range(true.shape[1]) if c != d]
    cells = [
        int(np.argmin([np.sum((f[i, keep] - true[j, keep]) ** 2) for j in range(len(true))]))
        for i in range(len(f))
    ]
    total = 0.0
    for j in range(len(true)):
        members = [i for i in range(len(f)) if cells[i] == j]
        total += abs(sum(np.exp(f[i, d]) for i in members) - np.exp(true[j, d]))
        for i in members:
            db = np.linalg.norm(f[i, :d] - true[j, :d])
            da = np.linalg.norm(f[i, d + 1 : 2 * d + 1] - true[j, d + 1 : 2 * d + 1])
            dc = abs(f[i, -1] - true[j, -1])
            total += np.exp(f[i, d]) * ((db + da + dc) if len(members) == 1 else (db**2 + da**2 + dc**2))
    return total


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 2))
    atoms = np.asarray(sm.TRUE_ATOMS) + 0.3 * rng.standard_normal((3, 6))[:2]
    atoms3 = np.concatenate([atoms, atoms[1:] + 0.05])
    y = rng.standard_normal(64)
    w = (np.arange(64) < 40).astype(float)
    return x, y, w, atoms, atoms3


@pytest.mark.parametrize("expert", sm.EXPERTS)
def test_loss_and_gradient_match_numpy(data, expert):
    x, y, w, _, atoms3 = data
    f_ref, loss_ref, grad_ref = _np_forward_grad(atoms3, x, y, w, expert)
    f = sm.forward(jnp.asarray(atoms3), jnp.asarray(x), expert)
    loss, grad = jax.value_and_grad(sm.lsq_loss)(
        jnp.asarray(atoms3), jnp.asarray(x), jnp.asarray(y), jnp.asarray(w), expert
    )
    # Same float64 formula, different association: agreement to a few hundred ulps.
    np.testing.assert_allclose(np.asarray(f), f_ref, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(float(loss), loss_ref, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad), grad_ref, rtol=1e-10, atol=1e-13)
    # The closed-form Jacobian used by the fit agrees with autodiff.
    J = sm.jacobian(jnp.asarray(atoms3), jnp.asarray(x), expert)
    Jref = jax.jacfwd(lambda a: sm.forward(a.reshape(atoms3.shape), jnp.asarray(x), expert))(
        jnp.asarray(atoms3).reshape(-1)
    )
    np.testing.assert_allclose(np.asarray(J), np.asarray(Jref), rtol=1e-12, atol=1e-14)


def test_voronoi_matches_numpy_and_vanishes_at_truth(data):
    *_, atoms, atoms3 = data
    true = np.asarray(sm.TRUE_ATOMS)
    for fitted in (atoms, atoms3):
        np.testing.assert_allclose(
            float(sm.voronoi_loss(jnp.asarray(fitted), jnp.asarray(true))),
            _np_voronoi(fitted, true),
            rtol=1e-12,
        )
    assert float(sm.voronoi_loss(jnp.asarray(true), jnp.asarray(true))) == 0.0
    # an even split of the last true atom is the truth: the loss is zero up to rounding of log(2)
    split = np.asarray(sm.initial_atoms(3, jax.random.key(0), 0.0))
    assert abs(float(sm.voronoi_loss(jnp.asarray(split), jnp.asarray(true)))) < 1e-14
    # a shift of every gate leaves the loss unchanged (softmax invariance)
    moved = atoms3.copy()
    moved[:, :3] += np.array([0.7, -0.3, 1.5])
    np.testing.assert_allclose(
        float(sm.voronoi_loss(jnp.asarray(moved), jnp.asarray(true))), _np_voronoi(atoms3, true), rtol=1e-10
    )
    # exponent 1 for a lone atom: doubling a small displacement doubles the loss (no mass change)
    e = np.zeros_like(true)
    e[0, 4] = 1e-3
    l1 = float(sm.voronoi_loss(jnp.asarray(true + e), jnp.asarray(true)))
    l2 = float(sm.voronoi_loss(jnp.asarray(true + 2 * e), jnp.asarray(true)))
    np.testing.assert_allclose(l2 / l1, 2.0, rtol=1e-9)


def test_size_mask_and_weighted_mean():
    w = samples.size_mask(10, 4.0)
    assert w.tolist() == [1.0] * 4 + [0.0] * 6
    v = jnp.arange(10.0) ** 2
    assert float(samples.weighted_mean(v, w)) == pytest.approx(np.mean(np.arange(4.0) ** 2), rel=1e-15)
    # vmappable over n: one trace, many sizes
    means = jax.vmap(lambda n: samples.weighted_mean(v, samples.size_mask(10, n)))(jnp.arange(1.0, 11.0))
    np.testing.assert_allclose(
        np.asarray(means), [np.mean(np.arange(m) ** 2) for m in range(1, 11)], rtol=1e-14
    )
    # padding values never leak, even non-finite ones
    assert float(samples.weighted_sum(jnp.array([1.0, jnp.nan]), jnp.array([1.0, 0.0]))) == 1.0
    with pytest.raises(ValueError):
        samples.size_mask(10, 11)
    with pytest.raises(ValueError):
        samples.size_mask(0, 0)
    with pytest.raises(ValueError):
        samples.weighted_sum(jnp.ones(3), jnp.ones(4))


@pytest.mark.parametrize("expert", sm.EXPERTS)
def test_masked_fit_equals_unpadded_fit(expert):
    """A fit on the first n of n_max masked samples is the fit on those n samples alone.

    Not bitwise: the padded sums run over n_max terms (the extra ones exact zeros) in
    XLA's association, so each Levenberg iterate differs by rounding (~n·eps relative in
    JᵀJ), amplified by at most the condition number of the damped system over the
    iterations; 1e-8 relative in float64 leaves orders of magnitude for that.
    """
    rng = np.random.default_rng(1)
    n, n_max = 300, 512
    x = rng.standard_normal((n_max, 2))
    true = jnp.asarray(sm.TRUE_ATOMS)
    y = np.asarray(sm.forward(true, jnp.asarray(x), expert)) + 0.1 * rng.standard_normal(n_max)
    a0 = sm.initial_atoms(3, jax.random.key(2), 0.1)
    masked = sm.fit(a0, jnp.asarray(x), jnp.asarray(y), samples.size_mask(n_max, n, jnp.float64), expert, 25)
    plain = sm.fit(a0, jnp.asarray(x[:n]), jnp.asarray(y[:n]), jnp.ones(n), expert, 25)
    for a, b in zip(masked, plain):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-8, atol=1e-12)
    # and the padding is really ignored: changing it changes nothing
    y2 = y.copy()
    y2[n:] = 1e3
    other = sm.fit(a0, jnp.asarray(x), jnp.asarray(y2), samples.size_mask(n_max, n, jnp.float64), expert, 25)
    np.testing.assert_array_equal(np.asarray(other[0]), np.asarray(masked[0]))


def test_exact_fit_converges_and_beats_the_truth():
    """Near the truth Levenberg converges to a least-squares minimiser: tiny gradient, loss ≤ truth's."""
    spec = sm.MixtureSpec(expert="gated", fitted=2, n_max=2000, iters=40)
    out = jax.jit(lambda k: sm.run(spec, {"n": 1000.0}, k))(jax.random.key(3))
    assert float(out["grad_norm"]) < 1e-8
    assert float(out["excess"]) <= 0.0
    assert float(out["n_used"]) == 1000.0
    assert float(out["voronoi"]) < float(out["voronoi_init"])


def test_spec_rejects_bad_input():
    with pytest.raises(ValueError):
        sm.MixtureSpec(expert="relu")
    with pytest.raises(ValueError):
        sm.MixtureSpec(fitted=1)
    with pytest.raises(ValueError):
        sm.forward(jnp.asarray(sm.TRUE_ATOMS), jnp.zeros((2, 3)), "linear")
