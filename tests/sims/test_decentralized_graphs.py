"""Mixing matrices against the closed-form spectra of the ring and the torus (float64)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.decentralized import graphs


@pytest.mark.parametrize("n", [3, 5, 8, 16])
def test_ring_spectrum_closed_form(n):
    # Metropolis weights on C_n are 1/3 everywhere: eigenvalues 1/3 + 2/3 cos(2πk/n)
    W = graphs.mixing_matrix("ring", n)
    expected = np.sort(1 / 3 + 2 / 3 * np.cos(2 * np.pi * np.arange(n) / n))
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(W)), expected, atol=1e-12)


@pytest.mark.parametrize("s", [3, 4, 5])
def test_torus_spectrum_closed_form(s):
    W = graphs.mixing_matrix("torus", s * s)
    j, k = np.meshgrid(np.arange(s), np.arange(s))
    expected = np.sort((1 / 5 + 2 / 5 * (np.cos(2 * np.pi * j / s) + np.cos(2 * np.pi * k / s))).ravel())
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(W)), expected, atol=1e-12)


def test_gaps_of_the_16_node_ring_and_torus():
    # a 16-node ring has gap 0.051, a 4x4 torus 0.4 (closed forms below), with the
    # definition 1 − max(|λ2|, |λn|) (here equal to 1 − λ2 on both graphs)
    ring, torus = graphs.mixing_matrix("ring", 16), graphs.mixing_matrix("torus", 16)
    assert graphs.spectral_gap(ring) == pytest.approx(2 / 3 * (1 - np.cos(np.pi / 8)), abs=1e-12)
    assert round(graphs.spectral_gap(ring), 3) == 0.051
    assert graphs.spectral_gap(torus) == pytest.approx(0.4, abs=1e-12)
    for W in (ring, torus):
        lam = np.sort(np.linalg.eigvalsh(W))
        assert 1 - lam[-2] == pytest.approx(graphs.spectral_gap(W), abs=1e-12)
    assert graphs.spectral_gap(torus) / graphs.spectral_gap(ring) == pytest.approx(7.88, abs=0.01)


def test_gap_uses_the_largest_magnitude_not_lambda2():
    # a 2-node path with W = [[0, 1], [1, 0]] has λ2 = −1: no contraction, gap 0
    assert graphs.spectral_gap(np.array([[0.0, 1.0], [1.0, 0.0]])) == pytest.approx(0.0)
    assert graphs.spectral_gap(graphs.mixing_matrix("complete", 6)) == pytest.approx(1.0)


@pytest.mark.parametrize("kind,n", [("ring", 7), ("torus", 9), ("erdos_renyi", 12), ("complete", 4)])
def test_metropolis_is_symmetric_doubly_stochastic(kind, n):
    W = graphs.mixing_matrix(kind, n, p=0.3, seed=3)
    np.testing.assert_allclose(W, W.T, atol=0)
    np.testing.assert_allclose(W.sum(0), 1.0, atol=1e-12)
    np.testing.assert_allclose(W.sum(1), 1.0, atol=1e-12)
    assert (W >= 0).all()
    assert 0 < graphs.spectral_gap(W) <= 1


def test_erdos_renyi_is_connected_and_reproducible():
    a = graphs.adjacency("erdos_renyi", 20, p=0.15, seed=1)
    assert (a == graphs.adjacency("erdos_renyi", 20, p=0.15, seed=1)).all()
    assert not (a == graphs.adjacency("erdos_renyi", 20, p=0.15, seed=2)).all()
    assert graphs._connected(a)


def test_gossip_is_w_at_x_and_keeps_the_mean():
    W = graphs.mixing_matrix("ring", 5)
    X = jax.random.normal(jax.random.key(0), (5, 3))
    out = graphs.gossip(W, {"a": X, "b": X[:, :1]})
    np.testing.assert_allclose(np.asarray(out["a"]), W @ np.asarray(X, float), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(out["a"]).mean(0), np.asarray(X).mean(0), atol=1e-6)
    assert out["a"].dtype == jnp.float32 and out["b"].shape == (5, 1)


def test_bad_input():
    with pytest.raises(ValueError, match="unknown graph"):
        graphs.mixing_matrix("star", 5)
    with pytest.raises(ValueError, match="torus"):
        graphs.mixing_matrix("torus", 8)
    with pytest.raises(ValueError, match="n >= 2"):
        graphs.mixing_matrix("ring", 1)
    with pytest.raises(ValueError, match="disconnected"):
        graphs.metropolis_weights(np.zeros((3, 3), bool))
    with pytest.raises(ValueError, match="symmetric"):
        graphs.metropolis_weights(np.triu(np.ones((3, 3), bool), 1))
    with pytest.raises(ValueError, match="edge probability"):
        graphs.mixing_matrix("erdos_renyi", 5, p=0.0)
