"""Economic models of training: profit-optimal model and data size.

* :mod:`~jaxtheory.sims.econ.profit`: profit over ``(log N, log D)`` under a Chinchilla
  loss and threshold adoption (a reconstruction of arXiv:2605.16430).
"""

from jaxtheory.sims.econ import profit  # noqa: F401

__all__ = ["profit"]
