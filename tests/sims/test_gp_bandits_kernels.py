"""Kernels, candidate sets and test functions of jaxtheory.sims.gp_bandits.

Kernels against scikit-learn's RBF and Matern (an independent implementation); test
functions' known maxima against scipy's optimizer; candidate sets' shapes and ranges.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.gaussian_process.kernels import RBF, Matern

from jaxtheory.sims import gp_bandits as gpb

SK = {
    "se": lambda ls: RBF(ls),
    "matern12": lambda ls: Matern(ls, nu=0.5),
    "matern32": lambda ls: Matern(ls, nu=1.5),
    "matern52": lambda ls: Matern(ls, nu=2.5),
}


@pytest.mark.parametrize("name", gpb.KERNELS)
def test_kernels_match_sklearn(name):
    rng = np.random.default_rng(0)
    x1, x2 = rng.uniform(size=(7, 3)), rng.uniform(size=(5, 3))
    for ls, v in [(0.1, 1.0), (0.4, 2.5)]:
        got = np.asarray(gpb.kernel_matrix(name, x1, x2, ls, v))
        np.testing.assert_allclose(got, v * SK[name](ls)(x1, x2), rtol=2e-5, atol=1e-6)
    K = np.asarray(gpb.kernel_matrix(name, x1, x1, 0.3, 1.0), np.float64)
    np.testing.assert_array_equal(np.diag(K), 1.0)  # exact on the diagonal
    assert np.linalg.eigvalsh(K).min() > -1e-6
    row = np.asarray(gpb.kernel_row(name, x1, 2, 0.3, 1.0))
    np.testing.assert_allclose(row, K[2], atol=1e-6)


def test_kernels_vmap_over_hyperparameters():
    x = jnp.linspace(0, 1, 4)[:, None]
    ls = jnp.array([0.1, 0.2, 0.5])
    v = jnp.array([1.0, 2.0, 0.5])
    K = jax.vmap(lambda a, b: gpb.kernel_matrix("matern32", x, x, a, b))(ls, v)
    for j in range(3):
        np.testing.assert_allclose(K[j], gpb.kernel_matrix("matern32", x, x, ls[j], v[j]), rtol=1e-6)


def test_candidate_sets():
    g = gpb.candidates("grid", 27, 3)
    assert g.shape == (27, 3) and g.min() == 0.0 and g.max() == 1.0
    assert len({tuple(r) for r in g}) == 27
    s = gpb.candidates("sobol", 64, 2)
    assert s.shape == (64, 2) and (s >= 0).all() and (s < 1).all()
    # a Sobol power-of-two set has one point in each of the 64 elementary boxes 8 x 8
    assert len({(int(a * 8), int(b * 8)) for a, b in s}) == 64
    with pytest.raises(ValueError):
        gpb.candidates("grid", 10, 2)


@pytest.mark.parametrize("name", sorted(gpb.TEST_FUNCTIONS))
def test_test_function_maxima(name):
    fn, d, fmax, argmax = gpb.TEST_FUNCTIONS[name]
    f = lambda u: float(fn(np.asarray(u, np.float64)))  # noqa: E731
    assert abs(f(argmax) - fmax) < 1e-5
    # no point of a dense random sample, nor a local optimum started from the best of
    # them, beats the stated maximum
    rng = np.random.default_rng(1)
    U = rng.uniform(size=(20_000, d))
    vals = np.asarray(fn(U))
    assert vals.max() <= fmax + 1e-6
    for u0 in U[np.argsort(vals)[-3:]]:
        r = minimize(lambda u: -f(u), u0, bounds=[(0, 1)] * d, method="L-BFGS-B")
        assert -r.fun <= fmax + 1e-5, (name, -r.fun, r.x)
