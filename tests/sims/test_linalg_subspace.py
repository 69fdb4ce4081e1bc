"""Principal angles and the Grassmann distance against closed forms and scipy."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.matrix.linalg import grassmann_distance, orthonormal_basis, principal_angles


def _rotated_pair(thetas, n):
    """span(e_1..e_p) and its rotation by the angles θ_i in the planes (e_i, e_{p+i})."""
    p = len(thetas)
    a = np.eye(n)[:, :p]
    b = np.zeros((n, p))
    for i, t in enumerate(thetas):
        b[i, i], b[p + i, i] = np.cos(t), np.sin(t)
    return a, b


def test_known_rotation_angles_float64():
    thetas = [1e-7, 0.3, 1.2, np.pi / 2]
    a, b = _rotated_pair(thetas, 9)
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.standard_normal((9, 9)))  # a common rotation changes no angle
    mix = rng.standard_normal((4, 4)) + 4 * np.eye(4)  # nor does a change of basis
    with jax.enable_x64(True):
        got = np.asarray(principal_angles(q @ a @ mix, q @ b))
        dist = float(grassmann_distance(q @ a, q @ b @ mix))
    # float64 with orthonormal bases from QR: each angle to a few ulps of its sine/cosine
    # (the 1e-7 angle is exact only through the sine branch: arccos would give ~1e-8 error)
    np.testing.assert_allclose(got, sorted(thetas, reverse=True), rtol=1e-9, atol=1e-13)
    assert dist == pytest.approx(np.sqrt(np.sum(np.square(thetas))), rel=1e-12)


def test_known_rotation_float32_small_angle():
    a, b = _rotated_pair([1e-3, 0.7], 5)
    got = np.asarray(principal_angles(jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32)))
    assert got.dtype == np.float32
    # float32 sine branch: relative error a few 1e-7 of the sine, i.e. ~1e-9 absolute at 1e-3
    np.testing.assert_allclose(got, [0.7, 1e-3], rtol=1e-5)


def test_matches_scipy_subspace_angles():
    sla = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(1)
    with jax.enable_x64(True):
        for p, q in ((3, 3), (2, 5), (5, 2)):
            a = rng.standard_normal((12, p))
            b = rng.standard_normal((12, q)) + 0.5 * np.pad(a, ((0, 0), (0, max(0, q - p))))[:, :q]
            np.testing.assert_allclose(
                np.asarray(principal_angles(a, b)), sla.subspace_angles(a, b), atol=1e-12
            )


def test_identical_and_orthogonal_subspaces():
    a = np.random.default_rng(2).standard_normal((6, 2))
    with jax.enable_x64(True):
        assert np.max(np.asarray(principal_angles(a, 3.0 * a))) < 1e-14
        ortho = np.eye(6)
        np.testing.assert_allclose(np.asarray(principal_angles(ortho[:, :2], ortho[:, 2:5])), np.pi / 2)


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="same n"):
        principal_angles(np.ones((3, 1)), np.ones((4, 1)))
    with pytest.raises(ValueError, match="more columns"):
        orthonormal_basis(np.ones((2, 3)))
    with pytest.raises(ValueError, match="one shape"):
        grassmann_distance(np.eye(3)[:, :1], np.eye(3)[:, :2])
