"""Descent in function space: piecewise-constant partitions, boosting of histogram trees.

* :mod:`~jaxtheory.sims.functional.partition`: quantile bins, per-cell statistics,
  fixed-capacity complete binary trees and the ``cost`` convention;
* :mod:`~jaxtheory.sims.functional.boosting`: Newton, gradient-regularized Newton and
  gradient boosting (arXiv 2605.00581).
"""

from jaxtheory.sims.functional import boosting, partition

__all__ = ["boosting", "partition"]
