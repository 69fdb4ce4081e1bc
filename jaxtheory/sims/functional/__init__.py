"""Descent in function space: piecewise-constant representations and the runs on them.

* :mod:`~jaxtheory.sims.functional.grid`: uniform grids stored at the finest resolution
  with an integer level (block means and variances, refinement, the cell-sample cost).
* :mod:`~jaxtheory.sims.functional.fgd`: functional gradient descent with adaptive grid
  refinement on the teaser problem (paper 002_18).
* :mod:`~jaxtheory.sims.functional.kdtree`: kernel-regression FGD on a complete kd-tree
  with an active depth (paper 002_18, Fig. 2).
"""

from jaxtheory.sims.functional import fgd, grid, kdtree  # noqa: F401

__all__ = ["fgd", "grid", "kdtree"]
