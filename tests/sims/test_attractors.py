"""jaxtheory.sims.attractors against independent references.

* the ring energy and its gradient against a float64 numpy implementation written from
  the formula over the full (signed) spectrum, with central differences;
* the rotation-invariance identity ⟨∇E, T⟩ = 0 in float64 (and a non-invariant energy
  that violates it, so the check can fail);
* the tangent fields against finite differences of an analytic rotation / translation;
* the Euler step against x − η(∇E − vT), the matching loss and the circulant kernel
  against closed forms.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.sims import attractors as A

EPS32 = float(np.finfo(np.float32).eps)


def _random_ring_params(rng, k_max, n):
    return {
        "log_lam": jnp.asarray(rng.normal(0.0, 0.5, k_max + 2), jnp.float32),
        "log_c": jnp.asarray(np.log(rng.uniform(0.02, 0.3, k_max + 1)), jnp.float32),
    }


def _numpy_ring_energy(params, x):
    """E over the full signed spectrum k = -N/2 .. N/2 - 1, float64 (see ring.py's formula)."""
    x = np.asarray(x, np.float64)
    n = x.size
    lam_l = np.exp(np.asarray(params["log_lam"], np.float64))
    c = n * np.exp(np.asarray(params["log_c"], np.float64))
    k_max = c.size - 1
    X = np.fft.fft(x)
    u = X[1] / abs(X[1])
    e = 0.0
    for j in range(n):
        k = j if j <= n // 2 else j - n  # signed wave number; j = N/2 is the Nyquist (|k| = N/2)
        a = abs(k)
        if a == 0:
            e += lam_l[0] * (X[0].real - c[0]) ** 2
        elif a == 1:
            e += lam_l[1] * (abs(X[j]) ** 2 - c[1] ** 2) ** 2 / (4 * c[1] ** 2)
        elif a <= k_max:
            uk = u**a if k > 0 else np.conj(u) ** a
            e += lam_l[a] * abs(X[j] - c[a] * uk) ** 2
        else:
            e += lam_l[-1] * abs(X[j]) ** 2
    return e / (2 * n)


def _state(rng, n, kappa=4.0, sigma=0.3):
    return np.asarray(A.bump(n, kappa, rng.uniform(0, 2 * np.pi)), np.float64) + sigma * rng.standard_normal(
        n
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ring_energy_and_gradient_match_float64_numpy(seed):
    rng = np.random.default_rng(seed)
    n, k_max = 32, 5
    params = _random_ring_params(rng, k_max, n)
    x = _state(rng, n)
    e_ref = _numpy_ring_energy(params, x)
    e = float(A.ring_energy(params, jnp.asarray(x, jnp.float32)))
    # float32 evaluation of O(N) squared Fourier residuals: relative error well below 1e-4
    assert abs(e - e_ref) <= 1e-4 * abs(e_ref)
    h = 1e-5
    g_ref = np.array(
        [
            (
                _numpy_ring_energy(params, x + h * np.eye(n)[i])
                - _numpy_ring_energy(params, x - h * np.eye(n)[i])
            )
            / (2 * h)
            for i in range(n)
        ]
    )
    g = np.asarray(jax.grad(A.ring_energy, argnums=1)(params, jnp.asarray(x, jnp.float32)))
    # central differences in float64: truncation h²·E'''/6 ~ 1e-10 and rounding 1e-16·E/h ~ 1e-11;
    # the float32 gradient through two FFTs: error ~ N·eps32·max|g| = 4e-6·max|g|: bound 1e-4·max|g|
    np.testing.assert_allclose(g, g_ref, atol=1e-4 * np.max(np.abs(g_ref)), rtol=0)


def test_ring_energy_vanishes_on_its_ring_and_is_positive_off_it():
    rng = np.random.default_rng(3)
    params = _random_ring_params(rng, 6, 64)
    for theta in (0.0, 1.3, 4.0):
        y = A.ring_point(params, 64, theta)
        assert float(A.ring_energy(params, y)) < 1e-9
        assert float(A.ring_distance(params, y)) < 1e-5
        assert abs(float(jnp.angle(jnp.exp(1j * (A.ring_phase(y) - theta))))) < 1e-5
    x = A.ring_point(params, 64, 0.5) + 0.1 * jnp.asarray(rng.standard_normal(64), jnp.float32)
    assert float(A.ring_energy(params, x)) > 1e-4
    # the distance is the Euclidean distance to the ring point at the decoded phase
    y = A.ring_point(params, 64, float(A.ring_phase(x)))
    # (Parseval over the rfft with multiplicities against the direct norm; float32)
    np.testing.assert_allclose(float(A.ring_distance(params, x)), float(jnp.linalg.norm(x - y)), rtol=1e-4)


def test_orthogonality_identity_float64_and_a_violating_control():
    rng = np.random.default_rng(4)
    with jax.enable_x64(True):
        n = 64
        params = {k: jnp.asarray(v, jnp.float64) for k, v in _random_ring_params(rng, 8, n).items()}
        tparams = {
            "log_lam": jnp.asarray(rng.normal(0, 0.5, 4)),
            "log_amp": jnp.log(jnp.array([1 / 3, 1 / 9])),
        }
        ring_grad = jax.jit(jax.grad(A.ring_energy, argnums=1))
        torus_grad = jax.jit(jax.grad(A.torus_energy, argnums=1), static_argnums=2)
        for _ in range(3):
            x = jnp.asarray(_state(rng, n, sigma=0.5))
            g = ring_grad(params, x)
            t = A.tangent(x)
            cos = float(jnp.abs(g @ t) / (jnp.linalg.norm(g) * jnp.linalg.norm(t)))
            assert cos < 1e-13  # float64: N·eps64 = 1.4e-14 per unit of |g||t| ... with margin
            z = A.grid_pattern(16, 2, *rng.uniform(0, 3, 2)).astype(jnp.float64) + 0.5 * jnp.asarray(
                rng.standard_normal((16, 16))
            )
            gz = torus_grad(tparams, z, 2)
            for tz in A.torus_tangents(z):
                cz = float(jnp.abs(jnp.sum(gz * tz)) / (jnp.linalg.norm(gz) * jnp.linalg.norm(tz)))
                assert cz < 1e-12
        # control: an energy that is not rotation invariant (a fixed linear tilt) violates it
        w = jnp.asarray(rng.standard_normal(n))
        x = jnp.asarray(_state(rng, n))
        g = jax.grad(lambda z: A.ring_energy(params, z) + w @ z)(x)
        t = A.tangent(x)
        assert float(jnp.abs(g @ t) / (jnp.linalg.norm(g) * jnp.linalg.norm(t))) > 1e-3


def test_tangent_matches_finite_differences_of_a_rotation():
    n, kappa, theta, h = 64, 4.0, 0.7, 1e-4
    phi = 2 * np.pi * np.arange(n) / n

    def b(th):  # float64 analytic rotation of the bump
        return np.exp(kappa * (np.cos(phi - th) - 1.0))

    fd = (b(theta + h) - b(theta - h)) / (2 * h)  # truncation h²/6·|b'''| ≤ 1e-8·κ³ ≈ 1e-6
    t = np.asarray(A.tangent(A.bump(n, kappa, theta)))
    # float32 through rfft/irfft: ~N·eps32·max|T| ≈ 1.5e-5; plus aliasing of modes > N/2 (~1e-20)
    np.testing.assert_allclose(t, fd, atol=16 * n * EPS32 * np.max(np.abs(fd)), rtol=0)
    # the band-limited rotation R_θ has T as its generator (float64: modes up to k = 31, so the
    # central difference's truncation h²k³/6 must be small: h = 1e-5 gives 5e-7 relative)
    with jax.enable_x64(True):
        x = jnp.asarray(
            np.asarray(A.bump(n, kappa, 0.0), np.float64) + 0.2 * np.random.default_rng(5).standard_normal(n)
        )
        hr = 1e-5
        fd_r = (A.rotate(x, hr) - A.rotate(x, -hr)) / (2 * hr)
        np.testing.assert_allclose(
            np.asarray(fd_r), np.asarray(A.tangent(x)), atol=1e-6 * float(jnp.max(jnp.abs(fd_r)))
        )


def test_torus_tangents_match_finite_differences_of_a_translation():
    h = 1e-3
    for i in range(2):
        shift = np.array([0.4, 1.1])
        up, down = shift.copy(), shift.copy()
        up[i] += h
        down[i] -= h
        fd = (
            np.asarray(A.grid_pattern(16, 2, *up), np.float64) - np.asarray(A.grid_pattern(16, 2, *down))
        ) / (2 * h)
        t = np.asarray(A.torus_tangents(A.grid_pattern(16, 2, *shift))[i])
        # float32 pattern differences: rounding eps32/h ≈ 1.2e-4 dominates the truncation (h² m³ ≈ 1e-5)
        np.testing.assert_allclose(t, fd, atol=1e-3, rtol=0)


def test_torus_zero_set_and_invariance():
    p = {"log_lam": jnp.zeros(4), "log_amp": jnp.log(jnp.array([1 / 3, 1 / 9]))}
    for a1, a2 in ((0.0, 0.0), (0.3, -0.7), (2.0, 1.0)):
        g = A.grid_pattern(16, 2, a1, a2)
        assert float(A.torus_energy(p, g)) < 1e-8
        assert float(A.torus_distance(p, g)) < 1e-4
        np.testing.assert_allclose(A.torus_point(p, 16, 2, a1, a2), g, atol=1e-5)
    rng = np.random.default_rng(6)
    x = A.grid_pattern(16, 2) + 0.3 * jnp.asarray(rng.standard_normal((16, 16)), jnp.float32)
    e = float(A.torus_energy(p, x))
    for s in ((0.37, 0.0), (0.0, 1.9), (1.0, 2.0)):
        np.testing.assert_allclose(float(A.torus_energy(p, A.torus_translate(x, *s))), e, rtol=1e-5)


def test_euler_step_is_gradient_descent_plus_drive():
    rng = np.random.default_rng(7)
    params = _random_ring_params(rng, 4, 32)
    x = jnp.asarray(_state(rng, 32), jnp.float32)
    eta, v = 0.05, 0.7
    opt = optax.sgd(eta)
    x1, _, e = A.euler_step(A.ring_energy, params, x, opt.init(x), opt, v, A.tangent)
    g = jax.grad(A.ring_energy, argnums=1)(params, x)
    np.testing.assert_allclose(x1, x - eta * (g - v * A.tangent(x)), rtol=1e-6, atol=1e-7)
    assert float(e) == float(A.ring_energy(params, x))  # the same program on the same input


def test_matching_loss_closed_form():
    # E = ½λ‖x‖² with clean states 0: loss = (λ - 1)² mean ‖x̃‖²
    rng = np.random.default_rng(8)
    noisy = jnp.asarray(rng.standard_normal((16, 5)), jnp.float32)
    for lam in (0.5, 1.0, 2.0):
        loss = A.matching_loss(lambda p, x: 0.5 * p * jnp.sum(x**2), lam, jnp.zeros_like(noisy), noisy)
        ref = (lam - 1) ** 2 * float(jnp.mean(jnp.sum(noisy**2, -1)))
        np.testing.assert_allclose(float(loss), ref, rtol=1e-5, atol=1e-7)


def test_circulant_kernel_of_a_quadratic_energy():
    # E = ½ xᵀ A x with A circulant: H = A exactly, w(Δ) = δ(Δ) − a(Δ)
    n = 16
    a = np.zeros(n)
    a[0], a[1], a[-1], a[3], a[-3] = 2.0, -0.5, -0.5, 0.25, 0.25
    mat = jnp.asarray(np.stack([np.roll(a, i) for i in range(n)]), jnp.float32)
    w, eigs = A.circulant_kernel(lambda p, x: 0.5 * x @ mat @ x, None, jnp.ones(n))
    np.testing.assert_allclose(np.asarray(w), (np.arange(n // 2 + 1) == 0) - a[: n // 2 + 1], atol=1e-6)
    np.testing.assert_allclose(np.asarray(eigs), np.sort(np.fft.fft(a).real), atol=1e-5)


@pytest.mark.slow  # ~15 s of compile; the smoke preset (docs build) runs the full-size program
def test_run_shapes_and_finiteness_tiny():
    spec = A.SealSpec(
        n=16,
        k_max=3,
        side=8,
        grid_m=1,
        train_steps=20,
        batch=8,
        log_every=10,
        n_test=4,
        steps=20,
        unstable_steps=10,
        record_every=10,
        n_euler=2,
        drives=(0.0, 0.5),
    )
    out = jax.jit(lambda k: A.run(spec, A.DEFAULT_PARAMS, k))(jax.random.key(0))
    coords = A.coords(spec)
    for name, dims in A.METRIC_DIMS.items():
        assert out[name].shape == tuple(len(coords[d]) for d in dims), name
    assert np.isfinite(np.asarray(out["distance"])).all()
    assert np.all(np.asarray(out["top_curvature"]) > 0)


def test_spec_validation():
    with pytest.raises(ValueError, match="v = 0"):
        A.SealSpec(drives=(0.5, 1.0))
    with pytest.raises(ValueError, match="even"):
        A.SealSpec(n=63)
    with pytest.raises(ValueError, match="k_max"):
        A.init_ring_params(40, 64)
