"""Mixtures of experts as statistical models: estimation rates of least-squares fits.

* :mod:`~jaxtheory.sims.mixtures.samples`: sample-size masks (padded datasets with
  per-sample weights, so ``n`` is a dynamic, vmappable axis).
* :mod:`~jaxtheory.sims.mixtures.softmax_moe`: softmax-gated MoE with linear or gated
  experts, Levenberg least squares, the Voronoi loss (a reconstruction of arXiv:2602.01468).

Not :mod:`jaxtheory.sims.moe` (a sigmoid router for scaling studies).
"""

from jaxtheory.sims.mixtures import samples, softmax_moe  # noqa: F401

__all__ = ["samples", "softmax_moe"]
