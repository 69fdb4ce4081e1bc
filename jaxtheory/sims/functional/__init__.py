"""Descent in function space: piecewise-constant partitions, boosting, program portfolios.

* :mod:`~jaxtheory.sims.functional.partition`: quantile bins, per-cell statistics,
  fixed-capacity complete binary trees and the ``cost`` convention;
* :mod:`~jaxtheory.sims.functional.boosting`: Newton, gradient-regularized Newton and
  gradient boosting (arXiv 2605.00581);
* :mod:`~jaxtheory.sims.functional.portfolio_tsp`: distilling a TSP policy into a
  router-weighted portfolio of heuristic programs (arXiv 2606.19741).
"""

from jaxtheory.sims.functional import boosting, partition, portfolio_tsp

__all__ = ["boosting", "partition", "portfolio_tsp"]
