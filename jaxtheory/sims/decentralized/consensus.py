"""Closed-form stationary consensus error of decentralized GDA with gradient tracking.

For a quadratic :math:`g` and plain noisy gradients the method of
:mod:`jaxtheory.sims.decentralized.minimax` is a linear recursion; its stationary
consensus error :math:`\\mathbb E\\frac1n\\sum_i\\lVert x_i - \\bar x\\rVert^2` is exact from a
discrete Lyapunov equation (float64). The recursion is assembled here from the update
equations, independently of the simulator's code, so that comparing the two checks both.
This module is not part of any simulation: the simulator does not import it.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import scipy.linalg

from jaxtheory.sims.decentralized import minimax as mm

__all__ = ["stationary_consensus", "stationary_consensus_at"]


def stationary_consensus(W, B, mu, eta, r, beta, sigma, curvature=mm.CURVATURE):
    """Exact stationary :math:`\\mathbb E\\frac1n\\sum_i\\lVert x_i - \\bar x\\rVert^2` for a quadratic g.

    The method of :mod:`jaxtheory.sims.decentralized.minimax` with :math:`g = \\tfrac a2\\lVert
    x\\rVert^2` and plain noisy gradients (``storm_rho = 1``) is the linear recursion :math:`s_{t+1} = A
    s_t + G\\xi_t` (plus a constant) in :math:`s = (X, Y, Z, V, \\tilde u, \\tilde w, D^x, D^y)`, with the
    trackers written as :math:`u = \\tilde u + D^x` where :math:`\\tilde u` lies in the disagreement
    subspace (its mean is conserved at 0, so the unit eigenvalue of tracking drops out; the anchors drop
    out at :math:`r = 0`). The stationary covariance solves :math:`P = APA^\\top + GG^\\top`
    (``scipy.linalg.solve_discrete_lyapunov``, float64); the consensus error is
    :math:`\\operatorname{tr}((\\Pi\\otimes I)P_{XX})/n`, with :math:`\\Pi = I - \\mathbf 1\\mathbf
    1^\\top/n` (the stationary mean is in consensus).

    ``W`` is the ``(n, n)`` mixing matrix, ``B`` the ``(n, d_y, d_x)`` coupling matrices, ``mu`` the
    strong concavity, ``r``, ``beta`` the smoothing and anchor averaging, ``curvature`` :math:`a`. Returns
    ``(consensus, spectral_radius)``; the consensus is NaN when the recursion is unstable (spectral radius
    ≥ 1).

    Example:
        >>> import numpy as np
        >>> W = np.full((2, 2), 0.5)  # two agents averaged completely at every step
        >>> c, rho = stationary_consensus(W, np.zeros((2, 1, 1)), 1.0, 0.1, 0.0, 0.0, 1.0)
        >>> rho < 1, c > 0
        (True, True)
    """
    W, B = np.asarray(W, float), np.asarray(B, float)
    n, dy, dx = B.shape
    Ix, Iy = np.eye(dx), np.eye(dy)
    Wx, Wy, Bb = np.kron(W, Ix), np.kron(W, Iy), scipy.linalg.block_diag(*B)
    q, _ = np.linalg.qr(np.column_stack([np.ones(n), np.eye(n)[:, : n - 1]]))
    Qx, Qy = np.kron(q[:, 1:], Ix), np.kron(q[:, 1:], Iy)
    anchors = r > 0
    nx, ny = n * dx, n * dy
    names = ["X", "Y"] + (["Z", "V"] if anchors else []) + ["u", "w", "Dx", "Dy"]
    size = {"X": nx, "Y": ny, "Z": nx, "V": ny, "u": (n - 1) * dx, "w": (n - 1) * dy, "Dx": nx, "Dy": ny}
    ends = np.cumsum([size[k] for k in names])
    off, o = {k: slice(e - size[k], e) for k, e in zip(names, ends)}, int(ends[-1])

    def sel(k):
        m = np.zeros((size[k], o))
        m[:, off[k]] = np.eye(size[k])
        return m

    X, Y, Dx, Dy = sel("X"), sel("Y"), sel("Dx"), sel("Dy")
    k = r * (1.0 - beta)  # r (x_t − z_t) with z_t = (1 − β) z_{t−1} + β x_t
    Xn = Wx @ X - eta * (Qx @ sel("u") + Dx) - eta * k * X  # the trackers u = Q ũ + D^x, w = Q w̃ + D^y
    Yn = Wy @ Y + eta * (Qy @ sel("w") + Dy) - eta * k * Y
    rows = {}
    if anchors:
        Xn = Xn + eta * k * sel("Z")
        Yn = Yn + eta * k * sel("V")
        rows["Z"] = (1.0 - beta) * sel("Z") + beta * X
        rows["V"] = (1.0 - beta) * sel("V") + beta * Y
    rows.update(
        X=Xn,
        Y=Yn,
        u=Qx.T @ (Wx @ Qx @ sel("u") + (Wx - np.eye(nx)) @ Dx),
        w=Qy.T @ (Wy @ Qy @ sel("w") + (Wy - np.eye(ny)) @ Dy),
        Dx=curvature * Xn + Bb.T @ Yn,
        Dy=Bb @ Xn - mu * Yn,
    )
    A = np.vstack([rows[k] for k in names])
    G = np.zeros((o, nx + ny))
    G[off["Dx"], :nx], G[off["Dy"], nx:] = sigma * np.eye(nx), sigma * np.eye(ny)
    rho = float(np.max(np.abs(np.linalg.eigvals(A))))
    if rho >= 1.0:
        return float("nan"), rho
    P = scipy.linalg.solve_discrete_lyapunov(A, G @ G.T)
    pi = np.kron(np.eye(n) - np.ones((n, n)) / n, Ix)
    return float(np.trace(pi @ P[off["X"], off["X"]]) / n), rho


@functools.lru_cache(maxsize=8)
def stationary_consensus_at(spec, method, kappa, eta, hetero, r_scale, beta_scale, sigma, instance=0):
    """:func:`stationary_consensus` of one lane of the simulator with quadratic g (``cos_amp = 0``).

    ``spec`` is a :class:`~jaxtheory.sims.decentralized.minimax.MinimaxSpec`, ``method`` one of
    :data:`~jaxtheory.sims.decentralized.minimax.ALGOS`, the others the lane's parameters
    (``instance`` the fixed instance's key); :math:`L = \\max(a, \\lVert\\bar B\\rVert = 1)`,
    :math:`\\mu = L/\\kappa`, :math:`r` = ``r_scale`` · L for DS-GDA (0 for the baseline) and
    :math:`\\beta = \\min(` ``beta_scale`` · :math:`\\eta r, 1)`, as the simulator sets them. Returns
    the consensus error alone (NaN where unstable); cached, as figures ask again per line.
    """
    inst = mm.instance(spec, hetero, jax.random.key(instance))
    L = max(mm.CURVATURE, 1.0)  # quadratic g: L = max(a, ‖B̄‖ = 1)
    r = r_scale * L if method == "ds-gda" else 0.0
    beta = min(beta_scale * eta * r, 1.0)
    return stationary_consensus(spec.mixing, np.asarray(inst["B"]), L / kappa, eta, r, beta, sigma)[0]
