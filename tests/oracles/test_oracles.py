"""Noise models and objectives: moments, BG-0 identities, heavy tails, known constants.

Monte Carlo checks compare a sample mean with its exact value within 4.5 standard
errors (estimated from the same sample; the moments checked have finite variance).
The heavy-tail checks use the closed form E|xi|^q = Gamma(q+1) Gamma(a-q) / Gamma(a) of
a Lomax(a) magnitude, and the growth of the sample second moment with the sample size
when a < 2 (it estimates infinity). Objective constants are checked on dense grids in
float64 with derivatives by autodiff (independent of the hand-written gradients).
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import special

from jaxtheory import oracles

D = 6
N = 20_000
Z = 4.5


def _check_mean(samples, expected, what):
    samples = np.asarray(samples, np.float64)
    se = samples.std(ddof=1) / math.sqrt(samples.size)
    # + float32 rounding slack, for samples that are deterministic (radial at x0).
    slack = 1e-6 * abs(expected) + 1e-9
    assert abs(samples.mean() - expected) <= Z * se + slack, (what, samples.mean(), expected, se)


@pytest.fixture(scope="module")
def bg0_draws():
    """N draws of each BG-0 model at x0 and at a far point, in one compiled program."""
    s0, s1 = 0.7, 1.3
    x0 = jnp.linspace(-1.0, 1.0, D, dtype=jnp.float32)
    far = x0 + jnp.arange(1.0, D + 1.0, dtype=jnp.float32)
    models = {
        "gaussian": oracles.gaussian_noise(s0),
        "isotropic": oracles.bg0_isotropic_noise(s0, s1),
        "radial": oracles.bg0_radial_noise(s0, s1),
        "mss": oracles.bg0_mss_noise(s0, s1),
    }

    @jax.jit
    def draw(keys):
        out = {}
        for name, m in models.items():
            for where, x in (("x0", x0), ("far", far)):
                out[name, where] = jax.vmap(lambda k, m=m, x=x: m.sample(x, x0, k))(keys)
            # Same key at two points: the sample is reused.
            out[name, "diff"] = jax.vmap(lambda k, m=m: m.sample(far, x0, k) - m.sample(x0 + 0.5, x0, k))(
                keys
            )
        return out

    keys = jax.random.split(jax.random.key(0), N)
    out = {k: np.asarray(v, np.float64) for k, v in draw(keys).items()}
    return models, out, x0, far, s0, s1


@pytest.mark.parametrize("name", ["gaussian", "isotropic", "radial", "mss"])
def test_noise_mean_zero_and_second_moment_identity(bg0_draws, name):
    models, out, x0, far, s0, s1 = bg0_draws
    for where, x in (("x0", x0), ("far", far)):
        n = out[name, where]
        for i in range(D):
            _check_mean(n[:, i], 0.0, f"{name} mean coordinate {i} at {where}")
        exact = float(models[name].second_moment(x, x0))
        r2 = float(np.sum((np.asarray(x) - np.asarray(x0)) ** 2))
        # The BG-0 identity E||n||^2 = s0^2 + s1^2 ||x - x0||^2 (s0^2 for the Gaussian).
        want = s0**2 + (0.0 if name == "gaussian" else s1**2 * r2)
        assert exact == pytest.approx(want, rel=1e-6)
        _check_mean((n**2).sum(1), exact, f"{name} second moment at {where}")


def test_bg0_sample_reuse_at_two_points(bg0_draws):
    """With one key at x and y: mss and radial differ by exactly s1 ||x - y|| (pathwise);
    isotropic by s1 ||x-y|| in mean square at most (its amplitude is s1-Lipschitz)."""
    models, out, x0, far, s0, s1 = bg0_draws
    dist = float(np.linalg.norm(np.asarray(far) - np.asarray(x0 + 0.5)))
    for name in ("mss", "radial"):
        norms = np.linalg.norm(out[name, "diff"], axis=1)
        np.testing.assert_allclose(norms, s1 * dist, rtol=1e-5)
    sq = (out["isotropic", "diff"] ** 2).sum(1)
    amp = lambda x: math.sqrt(s0**2 + s1**2 * float(np.sum((np.asarray(x) - np.asarray(x0)) ** 2)))  # noqa: E731,E501
    exact = (amp(far) - amp(x0 + 0.5)) ** 2  # E||(a(x) - a(y)) z / sqrt(d)||^2
    _check_mean(sq, exact, "isotropic mean-square difference")
    assert exact <= (s1 * dist) ** 2


def test_radial_noise_points_along_the_displacement():
    noise = oracles.bg0_radial_noise(0.0, 2.0)
    x0, x = jnp.zeros(3), jnp.array([1.0, -2.0, 2.0])
    keys = jax.random.split(jax.random.key(0), 8)
    n = np.asarray(jax.jit(jax.vmap(lambda k: noise.sample(x, x0, k)))(keys))
    assert np.allclose(np.abs(n), 2.0 * np.abs(np.asarray(x)), rtol=1e-6)
    signs = np.sign(n / np.asarray(x))
    assert np.all(signs == signs[:, :1])  # one sign for the whole vector


def test_gradient_oracle_adds_noise_to_the_gradient():
    f = oracles.cosine_well(D)
    noise = oracles.bg0_mss_noise(1.0, 0.5)
    oracle = oracles.gradient_oracle(f.grad, noise)
    x, x0, k = jnp.ones(D), jnp.zeros(D), jax.random.key(3)
    np.testing.assert_allclose(oracle(x, x0, k), f.grad(x) + noise.sample(x, x0, k), rtol=1e-6)


def test_lomax_moment_closed_form():
    for q, a in ((1.0, 3.0), (0.5, 1.5), (1.2, 1.4), (2.0, 4.0)):
        want = special.gamma(q + 1) * special.gamma(a - q) / special.gamma(a)
        assert float(oracles.lomax_abs_moment(q, a)) == pytest.approx(want, rel=1e-5)
        # The same value by numerical integration of q u^{q-1} P(|xi| > u) = q u^{q-1} (1+u)^-a.
        from scipy.integrate import quad

        integral = quad(lambda u, q=q, a=a: q * u ** (q - 1) * (1 + u) ** (-a), 0, np.inf, limit=200)[0]
        assert integral == pytest.approx(want, rel=1e-4)
    assert np.isinf(float(oracles.lomax_abs_moment(1.5, 1.5)))
    assert np.isinf(float(oracles.lomax_noise(1.0, 2.0).second_moment(jnp.ones(3), jnp.ones(3))))
    finite = oracles.lomax_noise(2.0, 4.5).second_moment(jnp.ones(3), jnp.ones(3))
    assert float(finite) == pytest.approx(3 * 4.0 * 2.0 / (3.5 * 2.5), rel=1e-5)


@pytest.fixture(scope="module")
def lomax_draws():
    """2e5 scalar draws for each tail index (sigma = 1), one compile."""
    tails = (1.5, 3.0, 4.5)

    @jax.jit
    def draw(key):
        x = jnp.zeros((200_000,))
        return jnp.stack(
            [
                oracles.lomax_noise(1.0, a).sample(x, x, jax.random.fold_in(key, i))
                for i, a in enumerate(tails)
            ]
        )

    return dict(zip(tails, np.asarray(draw(jax.random.key(1)), np.float64)))


def test_lomax_noise_moments(lomax_draws):
    """Mean zero (a = 3, 4.5), E|xi|^q for q with 2q < a, and E xi^2 for a = 4.5."""
    for a, q in ((1.5, 0.5), (3.0, 1.0), (4.5, 1.5), (4.5, 2.0)):
        xs = lomax_draws[a]
        _check_mean(np.abs(xs) ** q, float(oracles.lomax_abs_moment(q, a)), f"E|xi|^{q}, a={a}")
    for a in (3.0, 4.5):
        _check_mean(lomax_draws[a], 0.0, f"mean, a={a}")
    # Symmetry: P(xi > 0) = 1/2.
    _check_mean((lomax_draws[1.5] > 0).astype(float), 0.5, "sign balance")


def test_lomax_variance_grows_with_samples_only_when_infinite(lomax_draws):
    """For a = 1.5 (infinite variance) the median sample second moment grows with n like
    n^(2/a - 1) (a stable law); for a = 4.5 it does not grow."""

    def median_second_moment(xs, n):
        blocks = xs[: (xs.size // n) * n].reshape(-1, n)
        return np.median((blocks**2).mean(1))

    heavy = lomax_draws[1.5]
    growth = median_second_moment(heavy, 10_000) / median_second_moment(heavy, 100)
    assert growth > 100 ** (2 / 1.5 - 1) / 2  # theory ~4.6; at least half of it
    light = lomax_draws[4.5]
    ratio = median_second_moment(light, 10_000) / median_second_moment(light, 100)
    assert 0.7 < ratio < 1.6


# -- objectives ----------------------------------------------------------------------------

GRID = np.linspace(-6.0, 6.0, 120_001)


def _one_dim_checks(obj, grid):
    """f', f'' by autodiff of ``value``, the hand-written gradient and the values on a grid."""

    @jax.jit
    def run(g):
        value = lambda t: obj.value(t[None])  # noqa: E731
        d1 = jax.vmap(jax.grad(value))(g)
        d2 = jax.vmap(jax.grad(jax.grad(value)))(g)
        return d1, d2, obj.grad(g), jax.vmap(value)(g)

    return [np.asarray(v) for v in run(jnp.asarray(grid))]


@pytest.mark.parametrize(
    "make, alpha",
    [(oracles.cosine_well, 0.0), (oracles.quartic_double_well, 2 / 3), (oracles.cosh_well, 1.0)],
)
def test_generalized_smoothness_constants_float64(make, alpha):
    """Float64: grad = autodiff of value; f* is the minimum; |f''| <= L0 + L1 |f'|^alpha on
    [-6, 6]; and the alpha-symmetric inequality of Chen et al. on random pairs in d = 3:
    ||grad F(x) - grad F(y)|| <= (L0 + L1 max_theta ||grad F(theta x + (1-theta) y)||^alpha)
    ||x - y||."""
    with jax.enable_x64(True):
        one = make(1)
        c = one.constants
        assert c["alpha"] == pytest.approx(alpha)
        d1, d2, hand, values = _one_dim_checks(one, GRID)
        np.testing.assert_allclose(hand, d1, rtol=1e-10, atol=1e-10)
        assert np.all(np.abs(d2) <= c["L0"] + c["L1"] * np.abs(d1) ** alpha + 1e-9)
        assert values.min() >= one.f_star - 1e-9
        assert values.min() <= one.f_star + 1e-6
        three = make(3)
        assert three.f_star == pytest.approx(3 * one.f_star)
        rng = np.random.default_rng(0)
        x, y = rng.uniform(-4, 4, (200, 3)), rng.uniform(-4, 4, (200, 3))
        thetas = np.linspace(0.0, 1.0, 201)
        seg = thetas[None, :, None] * x[:, None] + (1 - thetas[None, :, None]) * y[:, None]
        grads = np.asarray(jax.jit(jax.vmap(jax.vmap(three.grad)))(jnp.asarray(seg)))
        gmax = np.linalg.norm(grads, axis=-1).max(axis=1)
        lhs = np.linalg.norm(grads[:, -1] - grads[:, 0], axis=-1)  # theta = 1 is x, 0 is y
        rhs = (c["L0"] + c["L1"] * gmax**alpha) * np.linalg.norm(x - y, axis=-1)
        assert np.all(lhs <= rhs * (1 + 1e-9))


def test_bounded_gradient_nonconvex_constants_float64():
    with jax.enable_x64(True):
        one = oracles.bounded_gradient_nonconvex(1)
        d1, d2, hand, values = _one_dim_checks(one, GRID * 3)
        np.testing.assert_allclose(hand, d1, rtol=1e-10, atol=1e-12)
        assert np.abs(d2).max() <= one.constants["L"] + 1e-9
        assert np.abs(d1).max() <= one.constants["G"]
        assert values.min() == pytest.approx(one.f_star, abs=1e-9)


@pytest.mark.parametrize("make", [oracles.l1_distance, oracles.huber_distance])
def test_convex_lipschitz_objectives(make):
    rng = np.random.default_rng(1)
    x_star = jnp.asarray(rng.standard_normal(7), jnp.float32)
    f = make(x_star)
    assert float(f.value(x_star)) == 0.0 == f.f_star
    G = f.constants["G"]
    for _ in range(50):
        x, y = (jnp.asarray(rng.standard_normal(7) * 3, jnp.float32) for _ in range(2))
        assert abs(float(f.value(x) - f.value(y))) <= G * float(jnp.linalg.norm(x - y)) * 1.0001
        # Subgradient inequality (convexity): F(y) >= F(x) + <g(x), y - x>.
        assert float(f.value(y)) >= float(f.value(x) + f.grad(x) @ (y - x)) - 1e-4
        assert float(jnp.linalg.norm(f.grad(x))) <= G + 1e-6
