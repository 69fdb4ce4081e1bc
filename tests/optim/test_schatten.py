"""Schatten-p adaptive geometry (SMuon, arXiv 2605.19781): directions, endpoints, criterion."""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import (
    muadam,
    scale_by_schatten_p,
    schatten_direction,
    schatten_log_criterion,
    schatten_log_criterion_momentum,
    schatten_p,
    schatten_p_grid,
)

M, N = 6, 4


def np_op(x, p):
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    return (u * s ** (1.0 / p)) @ vt


def np_polar(x):
    u, _, vt = np.linalg.svd(x, full_matrices=False)
    return u @ vt


def _grads(k=3, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((M, N)) * (1 + np.arange(N)) for _ in range(k)]


def np_moments(gs, b1, b2, eps):
    """Bias-corrected Nesterov momentum N and v-hat + eps after len(gs) steps (the authors' code)."""
    b, v = np.zeros((M, N)), np.zeros((M, N))
    for t, g in enumerate(gs, 1):
        b = b1 * b + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        nest = b1 * b / (1 - b1**t) + (1 - b1) * g
    return nest, v / (1 - b2 ** len(gs)) + eps


def _run(tx, gs):
    upd = jax.jit(tx.update)
    s = tx.init(jnp.zeros((M, N)))
    for g in gs:
        u, s = upd(jnp.asarray(g), s)
    return np.asarray(u), s


def _cos(a, b):
    return np.sum(a * b) / np.linalg.norm(a) / np.linalg.norm(b)


def test_schatten_direction_matches_numpy_float64():
    x = _grads(1)[0]
    with jax.enable_x64(True):
        for p in (1.0, 1.5, 3.0, 7.0):
            np.testing.assert_allclose(
                np.asarray(schatten_direction(jnp.asarray(x), p)), np_op(x, p), atol=1e-10
            )
        np.testing.assert_allclose(
            np.asarray(schatten_direction(jnp.asarray(x), jnp.inf)), np_polar(x), atol=1e-10
        )
        # snapping: p >= 0.99 p_max is the exact polar factor; p = 1 is the identity map
        np.testing.assert_allclose(
            np.asarray(schatten_direction(jnp.asarray(x), 9.95, 10.0)), np_polar(x), atol=1e-12
        )
        assert np.array_equal(np.asarray(schatten_direction(jnp.asarray(x), 1.0)), x)


def test_claim_endpoints_moment_none():
    """Claim: p = 1 gives the normalized Nesterov-SGD direction, p = p_max gives Muon, both pinned
    to ||O||_F = sqrt(min(m, n)) (float64, rel 1e-6, exact SVD)."""
    gs = _grads()
    with jax.enable_x64(True):
        nest, _ = np_moments(gs, 0.9, 0.999, 1e-8)
        u1, _ = _run(scale_by_schatten_p(0.9, p_init=1.0), gs)
        uinf, _ = _run(scale_by_schatten_p(0.9, p_init=10.0, p_max=10.0), gs)
    target = np.sqrt(min(M, N))
    np.testing.assert_allclose(u1, nest * target / (np.linalg.norm(nest) + 1e-8), rtol=1e-6)
    np.testing.assert_allclose(uinf, np_polar(nest) * target / (target + 1e-8), rtol=1e-6, atol=1e-12)


def test_claim_endpoints_adam_and_muadam():
    """Claim: parametric moment at p = 1 is Adam's direction N / sqrt(v + eps); at p = inf it is
    Muon; fixed -1/4 moment at p = inf is MuAdam D * polar(D * N) (float64, rel 1e-6)."""
    gs = _grads(seed=1)
    b1, b2, eps = 0.9, 0.99, 1e-8
    with jax.enable_x64(True):
        nest, vh = np_moments(gs, b1, b2, eps)
        adam_dir = nest / np.sqrt(vh)
        d = vh**-0.25
        muadam_dir = d * np_polar(d * nest)
        u_pa1, _ = _run(scale_by_schatten_p(b1, b2, eps, moment="padam", p_init=1.0), gs)
        u_painf, _ = _run(scale_by_schatten_p(b1, b2, eps, moment="padam", p_init=jnp.inf), gs)
        u_a1, _ = _run(scale_by_schatten_p(b1, b2, eps, moment="adam", p_init=1.0), gs)
        u_ainf, _ = _run(scale_by_schatten_p(b1, b2, eps, moment="adam", p_init=jnp.inf), gs)
    for u, ref in ((u_pa1, adam_dir), (u_a1, adam_dir), (u_painf, np_polar(nest)), (u_ainf, muadam_dir)):
        assert _cos(u, ref) == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(u / np.linalg.norm(u), ref / np.linalg.norm(ref), rtol=1e-6, atol=1e-12)


def test_muadam_alias_matches_numpy():
    gs = _grads(seed=2)
    with jax.enable_x64(True):
        nest, vh = np_moments(gs, 0.9, 0.999, 1e-8)
        tx = muadam(0.1)
        p = {"w": jnp.zeros((M, N))}
        s = tx.init(p)
        upd = jax.jit(tx.update)
        for g in gs:
            u, s = upd({"w": jnp.asarray(g)}, s, p)
    d = vh**-0.25
    np.testing.assert_allclose(np.asarray(u["w"]), -0.1 * d * np_polar(d * nest), rtol=1e-6)


def test_claim_kappa_pinning_norm():
    """Claim: ||dW||_F / eta = sqrt(min(m, n)) kappa^{1/p} for every p (alias, padam moment)."""
    gs = _grads(seed=3)
    lr, alr, ab1 = 0.02, 1e-3, 0.9
    kappa = (alr * np.sqrt((1 - ab1) / (1 + ab1))) / (lr / np.sqrt(max(M, N)))
    for p in (1.0, 2.0, 5.0, jnp.inf):
        tx = schatten_p(lr, moment="padam", p_init=p, p_method=None, adam_learning_rate=alr, adam_b1=ab1)
        w = {"w": jnp.zeros((M, N))}
        s = tx.init(w)
        for g in gs:
            u, s = tx.update({"w": jnp.asarray(g, jnp.float32)}, s, w)
        got = np.linalg.norm(np.asarray(u["w"])) / lr
        assert got == pytest.approx(np.sqrt(min(M, N)) * kappa ** (1.0 / float(p)), rel=1e-5)


def _np_schatten(s, q):
    return np.sum(s**q) ** (1.0 / q)


def test_criterion_matches_direct_power_sums_and_limits():
    """J(p) = ||G||_{S_{1+1/p}} / ||A||_{S_{2(p+1)/(p-1)}} against direct sums (float64); exact
    endpoints p = 1 -> ||G||_F/||A||_op, p = inf -> ||G||_*/||A||_F; near-endpoints within 1e-6.
    (p = 1.0001 and 1e6 would be O(1e-4) and O(1e-6) away from the limits: the error is
    linear in the distance, so we test at 1 + 1e-9 and 1e9.)"""
    rng = np.random.default_rng(4)
    sg, sa = rng.uniform(0.1, 3, 5), rng.uniform(0.1, 3, 7)
    with jax.enable_x64(True):
        for p in (1.5, 2.0, 4.0):
            ref = _np_schatten(sg, 1 + 1 / p) / _np_schatten(sa, 2 * (p + 1) / (p - 1))
            got = float(jnp.exp(schatten_log_criterion(jnp.asarray(sg), jnp.asarray(sa), p)))
            assert got == pytest.approx(ref, rel=1e-12)
        lim1 = np.sqrt(np.sum(sg**2)) / sa.max()
        liminf = sg.sum() / np.sqrt(np.sum(sa**2))
        ps = jnp.array([1.0, 1 + 1e-9, jnp.inf, 1e9])
        got = np.exp(np.asarray(schatten_log_criterion(jnp.asarray(sg), jnp.asarray(sa), ps)))
    np.testing.assert_allclose(got[[0, 2]], [lim1, liminf], rtol=1e-13)
    np.testing.assert_allclose(got[[1, 3]], [lim1, liminf], rtol=1e-6)


def test_momentum_criterion_identity():
    """f(p) = <G, O_p(M)>^2 / (||O_p(M)||_{S_{p+1}}^2 ||A||_{S_k}^2) computed directly (float64)."""
    rng = np.random.default_rng(5)
    g, mm, a = rng.standard_normal((M, N)), rng.standard_normal((M, N)), rng.standard_normal((20, M))
    u, s, vt = np.linalg.svd(mm, full_matrices=False)
    c = np.einsum("ir,ij,rj->r", u, g, vt)
    sa = np.linalg.svd(a, compute_uv=False)
    with jax.enable_x64(True):
        for p in (1.5, 3.0, 8.0):
            o = np_op(mm, p)
            so = np.linalg.svd(o, compute_uv=False)
            ref = np.sum(g * o) ** 2 / (
                _np_schatten(so, p + 1) ** 2 * _np_schatten(sa, 2 * (p + 1) / (p - 1)) ** 2
            )
            got = float(
                jnp.exp(schatten_log_criterion_momentum(jnp.asarray(c), jnp.asarray(s), jnp.asarray(sa), p))
            )
            assert got == pytest.approx(ref, rel=1e-10)


def _criterion_cases():
    key = jax.random.PRNGKey(0)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    d, n = 64, 512
    a_iso = jax.random.normal(k1, (n, d))
    g_rank1 = jnp.outer(jax.random.normal(k2, (d,)), jax.random.normal(k3, (d,)))
    spike = jnp.ones(d).at[0].set(30.0)
    a_spiked = a_iso * spike
    g_flat = jax.random.normal(k4, (d, d))
    return (a_iso, g_rank1), (a_spiked, g_flat)


def test_claim_criterion_picks_endpoints():
    """Claim: p* = p_min (1.02) for isotropic activations with a rank-one gradient, and p_max (10)
    for one 30x spiked feature with a flat-spectrum Gaussian gradient (an independent numpy
    prototype gives the same endpoints, 1.02 and 10)."""
    grid = schatten_p_grid(1.02, 10.0, 64)
    (a_iso, g1), (a_sp, gf) = _criterion_cases()
    sv = lambda x: jnp.sqrt(jnp.maximum(jnp.linalg.eigvalsh(x.T @ x), 0.0))  # singular values
    p_iso = float(grid[jnp.argmax(schatten_log_criterion(sv(g1), sv(a_iso), grid))])
    p_sp = float(grid[jnp.argmax(schatten_log_criterion(sv(gf), sv(a_sp), grid))])
    assert p_iso == pytest.approx(1.02, rel=1e-5)
    assert p_sp == pytest.approx(10.0, rel=1e-5)


def test_selection_inside_transform_every_k_steps():
    (a_iso, g1), _ = _criterion_cases()
    for method in ("exact", "exact_momentum"):
        tx = scale_by_schatten_p(0.9, p_method=method, interval=3)
        s = tx.init(jnp.zeros((64, 64)))
        upd = jax.jit(lambda g, s, a, tx=tx: tx.update(g, s, activations=a))
        ps = []
        for _ in range(4):
            _, s = upd(g1, s, a_iso)
            ps.append(float(s.p))
        # p starts at p_max, is set at steps 0 and 3; without activations it is never touched
        assert ps[0] == pytest.approx(1.02, rel=1e-5) and ps[3] == pytest.approx(1.02, rel=1e-5)
        _, s2 = tx.update(g1, tx.init(jnp.zeros((64, 64))))
        assert float(s2.p) == 10.0


def test_vmap_hyperparameters_no_recompile_dtype_and_chain():
    g = jnp.asarray(_grads(1)[0], jnp.float32)
    a = jax.random.normal(jax.random.PRNGKey(1), (16, M))

    def step(lr, b1, p0):
        tx = optax.chain(
            optax.clip_by_global_norm(10.0),
            scale_by_schatten_p(b1, p_init=p0, p_method="exact", interval=2),
            optax.scale_by_learning_rate(lr),
        )
        s = tx.init(jnp.zeros((M, N)))
        return tx.update(g, s, activations=a)[0]

    f = jax.jit(jax.vmap(step))
    u = f(jnp.array([0.1, 0.2]), jnp.array([0.9, 0.5]), jnp.array([2.0, 5.0]))
    f(jnp.array([0.3, 0.4]), jnp.array([0.0, 0.95]), jnp.array([1.0, 3.0]))
    assert f._cache_size() == 1
    assert u.dtype == jnp.float32
    txb = scale_by_schatten_p(moment="padam")
    ub, sb = txb.update(g.astype(jnp.bfloat16), txb.init(jnp.zeros((M, N), jnp.bfloat16)))
    assert ub.dtype == jnp.bfloat16 and sb.mu.dtype == jnp.bfloat16


def test_schatten_p_alias_routes_vectors_to_adamw():
    p = {"w": jnp.ones((M, N)), "b": jnp.ones(N)}
    g = {"w": jnp.asarray(_grads(1)[0], jnp.float32), "b": jnp.arange(N, dtype=jnp.float32)}
    tx = schatten_p(0.01, p_method=None, adam_learning_rate=0.003)
    u, _ = tx.update(g, tx.init(p), p)
    ref = optax.adamw(0.003, weight_decay=0.0, nesterov=True)
    ub, _ = ref.update(g["b"], ref.init(p["b"]), p["b"])
    np.testing.assert_allclose(np.asarray(u["b"]), np.asarray(ub), rtol=1e-6)


def _np_authors_exact_momentum(gs, acts, b1, sv_mom, interval, grid, nesterov=True):
    """float64 numpy transcription of the authors' ``exact_momentum`` p-selection.

    ``smuon/optimizers/adaptive.py`` (``update_p_state`` before ``step``) and
    ``smuon/svs/momentum_exact.py`` (commit 749ba8d): at every ``interval``-th step,
    mom = b / (1 - b1^(t+1)) with b the momentum buffer *before* the step and t the steps
    done, M_t = lerp(mom, g, 1 - b1), M = lerp(M_t, g, 1 - b1); C_i = u_i^T g v_i from the
    SVD of M; EMA (lerp, first value as is) on C and on sigma(A); p* maximises
    f(p) = (sum C_i s_i^(1/p))^2 / (||A||_{S_k}^2 (sum s_i^((p+1)/p))^(2/(p+1))), here over
    ``grid`` instead of Brent. Returns the p* and the C-EMA of every selection step.
    """
    b = np.zeros_like(gs[0])
    c_ema = sa_ema = None
    out = []
    for t, (g, a) in enumerate(zip(gs, acts)):
        if t % interval == 0:
            mom = b / (1 - b1 ** (t + 1))
            m_t = mom + (1 - b1) * (g - mom)
            mm = m_t + (1 - b1) * (g - m_t) if nesterov else m_t
            u, s_m, vt = np.linalg.svd(mm, full_matrices=False)
            c = np.einsum("ir,ij,rj->r", u, g, vt)
            s_a = np.linalg.svd(a, compute_uv=False)
            if c_ema is None:
                c_ema, sa_ema = c.copy(), s_a.copy()
            else:
                c_ema = c_ema + (1 - sv_mom) * (c - c_ema)
                sa_ema = sa_ema + (1 - sv_mom) * (s_a - sa_ema)
            f = []
            for p in grid:
                k = 2 * (p + 1) / (p - 1)
                norm_a = np.sum(sa_ema**k) ** (1 / k)
                num = np.sum(c_ema * s_m ** (1 / p)) ** 2
                den = norm_a**2 * np.sum(s_m ** ((p + 1) / p)) ** (2 / (p + 1))
                f.append(num / den)
            f = np.asarray(f)
            out.append((t, f, c_ema.copy()))
        b = b1 * b + (1 - b1) * g  # the optimizer step's momentum update
    return out


def test_exact_momentum_selection_matches_authors_reference_float64():
    """The ``exact_momentum`` statistics and p* equal a float64 transcription of the authors'
    code over three selections, including the bias-corrected momentum before the step
    (the alignments C depend on the singular vectors of M, so a different M fails here)."""
    rng = np.random.default_rng(11)
    d_in, d_out, n, steps, k = 7, 5, 40, 9, 4
    scales = np.geomspace(1.0, 0.05, d_out)
    gs = [
        rng.standard_normal((d_in, d_out)) * scales + 0.3 * rng.standard_normal((d_in, 1))
        for _ in range(steps)
    ]
    acts = [rng.standard_normal((n, d_in)) * np.geomspace(1.5, 0.5, d_in) / np.sqrt(n) for _ in range(steps)]
    with jax.enable_x64(True):
        grid = np.asarray(schatten_p_grid(1.02, 10.0, 64), np.float64)
        tx = scale_by_schatten_p(0.95, nesterov=True, p_method="exact_momentum", interval=k, sv_momentum=0.9)
        s = tx.init(jnp.zeros((d_in, d_out), jnp.float64))
        upd = jax.jit(lambda g, s, a: tx.update(g, s, activations=a))
        ours = {}
        for t in range(steps):
            _, s = upd(jnp.asarray(gs[t]), s, jnp.asarray(acts[t]))
            ours[t] = (float(s.p), np.asarray(s.stat_g))
        assert s.stat_g.dtype == jnp.float64
    ref = _np_authors_exact_momentum(gs, acts, 0.95, 0.9, k, grid)
    assert [t for t, _, _ in ref] == [0, 4, 8]
    for t, f, c_ema in ref:
        p_ours, c_ours = ours[t]
        # float64 SVDs of 7x5 matrices agree to ~1e-15 relative; 1e-10 leaves room for the
        # conditioning of the smallest singular pairs
        np.testing.assert_allclose(c_ours, c_ema, rtol=1e-10, atol=1e-12 * np.abs(c_ema).max())
        # our p* maximises the authors' objective on the grid (up to float64 round-off)
        i = int(np.argmin(np.abs(grid - p_ours)))
        assert abs(grid[i] - p_ours) <= 1e-6 * p_ours  # p is stored in float32
        assert f[i] >= f.max() * (1 - 1e-10), (t, p_ours, grid[int(np.argmax(f))])
