"""exact_dmd, dmd_extrapolate and koopman_accelerate against float64 references and identities."""

import functools

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.optim import dmd_extrapolate, exact_dmd, koopman_accelerate


def _numpy_dmd(X, Y, r):
    """Reference: the rank-r exact DMD operator Y V_r S_r^-1 U_r^T from numpy's float64 SVD."""
    U, S, Vt = np.linalg.svd(X, full_matrices=False)
    return Y @ Vt[:r].T @ np.diag(1 / S[:r]) @ U[:, :r].T


@pytest.mark.parametrize("method", ["svd", "gram"])
def test_exact_dmd_matches_numpy_float64(method):
    rng = np.random.default_rng(0)
    X, Y = rng.standard_normal((12, 6)), rng.standard_normal((12, 6))
    ref = _numpy_dmd(X, Y, 4)
    with jax.enable_x64(True):
        fit = exact_dmd(jnp.asarray(X), jnp.asarray(Y), 4, method=method)
        A = np.asarray(fit.lifted @ fit.basis.T)
        s = rng.standard_normal(12)
        pred = np.asarray(dmd_extrapolate(fit, jnp.asarray(s), 3))
    # A Gaussian 12 x 6 matrix has condition number ~5: the SVD path is accurate to ~1e-15,
    # the Gram path (condition squared) to ~1e-14; 1e-10 leaves a wide margin for both.
    np.testing.assert_allclose(A, ref, atol=1e-10)
    np.testing.assert_allclose(
        pred, np.stack([np.linalg.matrix_power(ref, j) @ s for j in (1, 2, 3)]), atol=1e-9
    )


def test_exact_dmd_recovers_a_linear_system():
    rng = np.random.default_rng(1)
    Q = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    A = Q @ np.diag([0.99, 0.9, 0.8, -0.5, 0.3, 0.1]) @ Q.T + 0.05 * rng.standard_normal((6, 6))
    xs = [rng.standard_normal(6)]
    for _ in range(10):
        xs.append(A @ xs[-1])
    S = np.stack(xs, axis=1)
    with jax.enable_x64(True):
        fit = exact_dmd(jnp.asarray(S[:, :-1]), jnp.asarray(S[:, 1:]), 6)
        pred = np.asarray(dmd_extrapolate(fit, jnp.asarray(S[:, -1]), 5))
        eig = np.sort_complex(np.linalg.eigvals(np.asarray(fit.operator)))
    truth = np.stack([np.linalg.matrix_power(A, j) @ S[:, -1] for j in range(1, 6)])
    # exact dynamics, full rank, 10 pairs of a 6-dim system: roundoff only (the smallest mode
    # decays as 0.1^k, so the snapshot matrix has condition ~1e6: 1e-8 relative is loose)
    np.testing.assert_allclose(pred, truth, rtol=0, atol=1e-8 * np.abs(truth).max())
    np.testing.assert_allclose(eig, np.sort_complex(np.linalg.eigvals(A)), atol=1e-6)


def test_exact_dmd_rejects_bad_input():
    with pytest.raises(ValueError, match="rank"):
        exact_dmd(jnp.ones((4, 3)), jnp.ones((4, 3)), 4)
    with pytest.raises(ValueError, match="shape"):
        exact_dmd(jnp.ones((4, 3)), jnp.ones((4, 2)), 2)
    with pytest.raises(ValueError, match="method"):
        exact_dmd(jnp.ones((4, 3)), jnp.ones((4, 3)), 2, method="qr")


def _quadratic():
    H = jnp.diag(jnp.array([1.0, 0.3, 0.1, 0.03]))
    xs = jnp.array([1.0, -1.0, 0.5, 2.0])
    return lambda x: 0.5 * (x - xs) @ H @ (x - xs)


def _train(opt, f, steps):
    """``steps`` updates from 0 in one jitted scan (eager lax.cond would recompile every step)."""
    kw = {"value_fn": f} if isinstance(opt, optax.GradientTransformationExtraArgs) else {}

    def step(carry, _):
        x, state = carry
        u, state = opt.update(jax.grad(f)(x), state, x, **kw)
        x = optax.apply_updates(x, u)
        return (x, state), x

    x0 = jnp.zeros(4)
    (_, state), xs = jax.jit(lambda x: jax.lax.scan(step, (x, opt.init(x)), None, length=steps))(x0)
    return xs, state


def test_disabled_wrapper_is_the_inner_optimizer():
    f = _quadratic()
    inner = optax.adam(0.05)
    koop = koopman_accelerate(inner, tau=2, window=4, rank=4, max_jumps=5, enabled=False)
    a, _ = _train(inner, f, 24)
    b, state = _train(koop, f, 24)
    # where(False, jump, u) returns the inner update u itself; the two are different compiled
    # programs, so allow float32 roundoff of 24 Adam steps of size 0.05 (exact in practice)
    np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=0, atol=1e-6)
    assert int(state.n_jumps) == 0 and int(state.n_evals) > 0


def test_jump_safeguard_and_adam_post_processing():
    f = _quadratic()
    koop = koopman_accelerate(optax.adam(0.05), tau=2, window=6, rank=6, max_jumps=10)
    xs, state = _train(koop, f, 36)
    assert int(state.n_jumps) >= 1
    assert float(state.value) <= float(state.value_backprop)
    adam = state.inner_state[0]
    # Adam's counter advanced by the skipped steps (bias correction of the extrapolated moments)
    assert int(adam.count) == int(state.count) + int(state.skipped)
    assert int(state.skipped) > 0
    assert bool((adam.nu >= 0).all())
    # the accelerated run ends nearer the minimum than plain Adam after the same backprops
    plain, _ = _train(optax.adam(0.05), f, 36)
    assert float(f(xs[-1])) < float(f(plain[-1]))


def test_jump_is_a_real_branch_under_vmap():
    f = _quadratic()
    koop = koopman_accelerate(
        optax.sgd(0.1, momentum=0.9), tau=jnp.asarray(2), window=4, rank=4, max_jumps=3, period=8
    )

    def one(x0):
        state = koop.init(x0)
        return koop.update(jax.grad(f)(x0), state, x0, value_fn=f)

    jaxpr = str(jax.make_jaxpr(jax.vmap(one))(jnp.ones((3, 4))))
    # an unbatched predicate keeps lax.cond a branch; a batched one would turn it into select_n
    assert "cond[" in jaxpr


def test_koopman_rejects_bad_input():
    with pytest.raises(ValueError, match="rank"):
        koopman_accelerate(optax.sgd(0.1), tau=1, window=4, rank=5, max_jumps=2)
    with pytest.raises(ValueError, match="period"):
        koopman_accelerate(optax.sgd(0.1), tau=jnp.asarray(2), window=4, rank=4, max_jumps=2)
    with pytest.raises(ValueError, match="multiple"):
        koopman_accelerate(optax.sgd(0.1), tau=3, window=4, rank=4, max_jumps=2, period=13)
    opt = koopman_accelerate(optax.sgd(0.1), tau=1, window=4, rank=4, max_jumps=2)
    with pytest.raises(ValueError, match="value_fn"):
        opt.update(jnp.ones(2), opt.init(jnp.ones(2)), jnp.ones(2))


# -- optax's generic contracts -----------------------------------------------------------
def _sgdm():
    return koopman_accelerate(optax.sgd(0.1, momentum=0.9), tau=2, window=4, rank=4, max_jumps=3)


def _tree_loss(p):
    return 0.5 * sum(jnp.sum(jnp.square(x.astype(jnp.float32) - 1.0)) for x in jax.tree.leaves(p))


def _tree(dtype=jnp.float32):
    return {"w": jnp.full((3, 2), 0.5, dtype), "b": jnp.zeros(2, dtype)}


def test_map_params_and_abstract_init():
    # optax.tree.map_params calls init on a placeholder tree (no leaf at all)
    opt = _sgdm()
    state = opt.init(_tree())
    mapped = optax.tree.map_params(opt, lambda x: x + 1, state)
    np.testing.assert_array_equal(mapped.inner_state[0].trace["w"], state.inner_state[0].trace["w"] + 1)
    np.testing.assert_array_equal(mapped.snapshots, state.snapshots)  # not a params tree
    # init needs shapes and dtypes only
    shapes = jax.eval_shape(opt.init, _tree())
    assert shapes.snapshots.shape == (5, 16) and shapes.snapshots.dtype == jnp.float32


@pytest.mark.parametrize("dtype", [jnp.bfloat16, jnp.float16])
def test_half_precision_params(dtype):
    # the linear algebra runs in float32 (no LAPACK half-precision SVD/eigh), jumps are cast back
    f = _quadratic()
    koop = koopman_accelerate(optax.adam(0.05), tau=2, window=6, rank=6, max_jumps=10)

    def step(carry, _):
        x, state = carry
        u, state = koop.update(jax.grad(f)(x.astype(jnp.float32)).astype(dtype), state, x, value_fn=f)
        return (optax.apply_updates(x, u), state), None

    x0 = jnp.zeros(4, dtype)
    state0 = koop.init(x0)
    (x, state), _ = jax.jit(lambda c: jax.lax.scan(step, c, None, length=36))((x0, state0))
    assert x.dtype == dtype and state.snapshots.dtype == jnp.float32
    assert jax.tree.map(lambda a: a.dtype, state) == jax.tree.map(lambda a: a.dtype, state0)
    assert int(state.n_jumps) >= 1 and float(state.value) <= float(state.value_backprop)
    assert bool(jnp.isfinite(x.astype(jnp.float32)).all())


def test_float32_params_under_x64():
    # explicit int32 counters: both lax.cond branches keep their dtypes when x64 is on
    with jax.enable_x64(True):
        H = jnp.diag(jnp.array([1.0, 0.3, 0.1, 0.03], jnp.float32))
        f = lambda x: 0.5 * x @ H @ x  # noqa: E731
        koop = koopman_accelerate(optax.adam(0.05), tau=2, window=6, rank=6, max_jumps=10)

        def step(carry, _):
            x, state = carry
            u, state = koop.update(jax.grad(f)(x), state, x, value_fn=f)
            return (optax.apply_updates(x, u), state), None

        x0 = jnp.ones(4, jnp.float32)
        (x, state), _ = jax.jit(lambda c: jax.lax.scan(step, c, None, length=36))((x0, koop.init(x0)))
        assert x.dtype == jnp.float32 and state.count.dtype == jnp.int32
        assert state.snapshots.dtype == jnp.float32 and int(state.n_jumps) >= 1


def test_init_buffers_can_be_donated():
    opt = _sgdm()
    params = _tree()
    state = opt.init(params)
    bufs = [x.unsafe_buffer_pointer() for x in jax.tree.leaves((params, state))]
    assert len(set(bufs)) == len(bufs)  # no two fields (nor a field and params) share a buffer

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def step(x, s):
        u, s = opt.update(jax.grad(_tree_loss)(x), s, x, value_fn=_tree_loss)
        return optax.apply_updates(x, u), s

    for _ in range(9):
        params, state = step(params, state)
    assert int(state.count) == 9


def test_unknown_update_kwargs_are_ignored():
    opt = _sgdm()
    params = _tree()
    g = jax.grad(_tree_loss)(params)
    u0, _ = opt.update(g, opt.init(params), params, value_fn=_tree_loss)
    u1, _ = opt.update(g, opt.init(params), params, value_fn=_tree_loss, unknown=3, step=jnp.ones(()))
    for a, b in zip(jax.tree.leaves(u0), jax.tree.leaves(u1)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", [jnp.complex64, jnp.int32])
def test_non_real_params_refused(dtype):
    with pytest.raises(ValueError, match="real floating-point"):
        _sgdm().init(jnp.ones(3, dtype))


# -- per-block scaling -------------------------------------------------------------------
def test_block_ids_follow_the_optimizer_state():
    from jaxtheory.optim._koopman import _block_ids, _block_scale

    params = [{"w": jnp.ones((2, 3)), "b": jnp.ones(3)}, {"w": jnp.ones((3, 1)), "b": jnp.ones(1)}]
    state = optax.adam(1e-3).init(params)
    ids, n = _block_ids(params, state)
    # parameters (13 entries), then mu (one block, 13) and nu (one block, 13); count is an int
    assert n == 3 and ids == [0] * 13 + [1] * 13 + [2] * 13
    rng = np.random.default_rng(0)
    S = jnp.asarray(rng.standard_normal((5, 39)) * np.repeat([10.0, 1e-2, 1e-4], 13), jnp.float32)
    S = S + 5.0  # an offset: the scale is that of the motion around the window's mean
    scaled = S / _block_scale(S, jnp.asarray(ids), n)
    dev = scaled - scaled.mean(0)
    for b in range(3):
        rms = float(jnp.sqrt(jnp.mean(dev[:, 13 * b : 13 * (b + 1)] ** 2)))
        np.testing.assert_allclose(rms, 1.0, rtol=1e-3)
    # a bare-array parameter: Adam's mu and nu are still two blocks
    ids, n = _block_ids(jnp.ones(4), optax.adam(1e-3).init(jnp.ones(4)))
    assert n == 3 and ids == [0] * 4 + [1] * 4 + [2] * 4


def test_block_scale_is_a_change_of_coordinates():
    # On the exactly affine heavy ball (float64) the scaled fit still predicts exactly, and
    # the jump passes the safeguard: scaling changes the least-squares weights, not the model.
    with jax.enable_x64(True):
        H = jnp.diag(jnp.array([1.0, 0.3, 0.1, 0.03]))
        xs = jnp.array([1.0, -1.0, 0.5, 2.0])
        f = lambda x: 0.5 * (x - xs) @ H @ (x - xs)  # noqa: E731
        koop = koopman_accelerate(
            optax.sgd(0.1, momentum=0.9),
            tau=1,
            window=10,
            rank=9,
            max_jumps=20,
            block_scale=True,
            dmd_method="svd",  # the Gram path's cut-off (10 sqrt(eps)) drops the fast modes here
        )
        x0 = jnp.zeros(4, jnp.float64)

        def step(carry, _):
            x, state = carry
            u, state = koop.update(jax.grad(f)(x), state, x, value_fn=f)
            return (optax.apply_updates(x, u), state), state.error_augmented

        (x, state), err = jax.lax.scan(step, (x0, koop.init(x0)), None, length=10)
        assert float(err[-1]) < 1e-8  # (x, m) with the affine row: dimension 9 = rank
        assert int(state.n_jumps) == 1 and float(state.value) <= float(state.value_backprop)
