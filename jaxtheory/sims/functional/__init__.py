"""Descent in function space: piecewise-constant representations, boosting, program portfolios.

* :mod:`~jaxtheory.sims.functional.partition`: quantile bins, per-cell statistics,
  fixed-capacity complete binary trees and the ``cost`` convention;
* :mod:`~jaxtheory.sims.functional.boosting`: Newton, gradient-regularized Newton and
  gradient boosting (arXiv 2605.00581);
* :mod:`~jaxtheory.sims.functional.grid`: uniform grids stored at the finest resolution
  with an integer level (block means and variances, refinement, the cell-sample cost);
* :mod:`~jaxtheory.sims.functional.fgd`: functional gradient descent with adaptive grid
  refinement on the teaser problem (arXiv 2606.16926);
* :mod:`~jaxtheory.sims.functional.kdtree`: kernel-regression FGD on a complete kd-tree
  with an active depth (arXiv 2606.16926, Fig. 2);
* :mod:`~jaxtheory.sims.functional.portfolio_tsp`: distilling a TSP policy into a
  router-weighted portfolio of heuristic programs (arXiv 2606.19741).
"""

from jaxtheory.sims.functional import boosting, fgd, grid, kdtree, partition, portfolio_tsp

__all__ = ["boosting", "fgd", "grid", "kdtree", "partition", "portfolio_tsp"]
