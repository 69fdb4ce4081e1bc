"""The lazy (γ₀ → 0) baseline of the regime-I MoE DMFT: kernel regression with the initial NTK.

As the feature-learning strength γ₀ → 0 the soft-routing MoE of :mod:`jaxtheory.sims.moe.dmft`
trains like gradient descent on the fixed kernel it starts with, its infinite-width NTK
(:func:`~jaxtheory.sims.nets.ntk.initial_ntk` with the quenched initial router gates), so its
loss curve has a closed form (:func:`~jaxtheory.sims.nets.ntk.lazy_loss`). A judgement-side
reference the ``moe-dmft`` figures draw beside the DMFT curve; not part of the sweep's simulator.
"""

from __future__ import annotations

import numpy as np

from jaxtheory.sims.moe import dmft

__all__ = ["lazy_curve"]


def lazy_curve(spec: dmft.MoEDMFTSpec, router_std: float, eta: float, steps: int) -> np.ndarray:
    """The lazy loss curve on the task of ``spec`` (its data, experts and activation).

    Args:
        spec: :class:`~jaxtheory.sims.moe.dmft.MoEDMFTSpec`.
        router_std: scale of the router init (0 for MSSP: equal gates).
        eta: step η.
        steps: number of GD steps :math:`T`.

    Returns:
        ``(T+1,)`` numpy array: the loss :math:`\\tfrac{1}{2P}\\|(I - \\eta K_0/P)^t y\\|^2`
        at steps :math:`t = 0, \\dots, T`.
    """
    X, y, Kx = dmft.make_data(spec)
    K0 = dmft.initial_ntk(Kx, dmft.router_init(spec, X, router_std)[1], spec.activation)
    return dmft.lazy_loss(Kx, y, K0, eta, steps)
