"""Zeroth-order optimization with function values only.

* :mod:`~jaxtheory.sims.zeroth_order.hints`: control-variate zeroth-order descent
  (CV-ZOD) and its baselines with synthetic subspace hints of controlled quality
  (paper 000_05, a reconstruction).
"""

from jaxtheory.sims.zeroth_order import hints  # noqa: F401

__all__ = ["hints"]
