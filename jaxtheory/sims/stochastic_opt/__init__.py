"""Stochastic first-order methods on test objectives with controlled noise.

* :mod:`~jaxtheory.sims.stochastic_opt.bg0`: NSGD-M, normalized STORM and SGD under
  Blum--Gladyshev BG-0 noise (arXiv:2605.15314).
* :mod:`~jaxtheory.sims.stochastic_opt.heavy_tail`: unmodified SGD and stochastic mirror
  descent under heavy-tailed noise with a finite p-th moment (arXiv:2606.00520).
"""

from jaxtheory.sims.stochastic_opt import bg0, heavy_tail  # noqa: F401

__all__ = ["bg0", "heavy_tail"]
