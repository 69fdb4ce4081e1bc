"""Descent in function space: piecewise-constant representations and the runs on them.

* :mod:`~jaxtheory.sims.functional.grid`: uniform grids stored at the finest resolution
  with an integer level (block means and variances, refinement, the cell-sample cost).
* :mod:`~jaxtheory.sims.functional.fgd`: functional gradient descent with adaptive grid
  refinement (paper 002_18).
"""

from jaxtheory.sims.functional import fgd, grid  # noqa: F401

__all__ = ["fgd", "grid"]
