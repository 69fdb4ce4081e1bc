"""Exact discrete computations: enumerations over finite sets (the Boolean cube, allocations, version
spaces) small enough to be computed exactly rather than sampled, and the transforms they need.

* :mod:`~jaxtheory.sims.discrete.boolean`: the fast Walsh–Hadamard transform, popcount, Fourier
  level weights and the noise operator on the Boolean cube, L1 polynomial regression by IRLS
  (arXiv:2605.02350, smoothed agnostic learning of halfspaces).
"""

from jaxtheory.sims.discrete import boolean  # noqa: F401

__all__ = ["boolean"]
