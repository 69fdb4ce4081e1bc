"""The noisy-quadratic simulator's closed forms, against an independent Lyapunov solve."""

import numpy as np
import pytest
import scipy.linalg

from jaxtheory.sims import quadratic as quad


@pytest.mark.parametrize(
    "lr,beta,lam,sigma",
    [
        (0.1, 0.0, 1.0, 1.0),
        (1.9, 0.0, 1.0, 0.3),
        (0.5, 0.5, 0.3, 2.0),
        (3.0, 0.9, 1.0, 1.0),
        (0.05, 0.99, 0.1, 1.0),
    ],
)
def test_stationary_variance_matches_discrete_lyapunov(lr, beta, lam, sigma):
    # state (x_t, x_{t-1}); x_{t+1} = (1+β-ηλ) x_t - β x_{t-1} - ησ ξ
    A = np.array([[1 + beta - lr * lam, -beta], [1.0, 0.0]])
    B = np.array([[-lr * sigma], [0.0]])
    P = scipy.linalg.solve_discrete_lyapunov(A, B @ B.T)
    risk = 0.5 * lam * P[0, 0]
    assert float(quad.stationary_risk(lr, beta, sigma, np.array([lam]))) == pytest.approx(risk, rel=1e-10)
    rho = np.abs(np.linalg.eigvals(A)).max()
    assert float(quad.spectral_radius(lr, beta, np.array([lam]))) == pytest.approx(rho, rel=1e-12)


def test_threshold_is_where_radius_crosses_one():
    lam = np.array([1.0])
    for beta in (0.0, 0.5, 0.9):
        thr = 2 * (1 + beta)
        assert quad.spectral_radius(thr * (1 - 1e-6), beta, lam) < 1
        assert quad.spectral_radius(thr * (1 + 1e-6), beta, lam) > 1


def test_log_steps_and_spectrum():
    s = quad.log_steps(1000, 32)
    assert s[0] == 1 and s[-1] == 1000 and (np.diff(s) > 0).all()
    lam = quad.spectrum(5, 0.1, 1.0, xp=np)
    assert (
        lam[0] == 1.0 and lam[-1] == pytest.approx(0.1) and np.allclose(lam[1:] / lam[:-1], lam[1] / lam[0])
    )
