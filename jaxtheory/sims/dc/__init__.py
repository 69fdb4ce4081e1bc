"""Difference-of-convex programs: proximal DCA and its random-direction exploration.

* :mod:`~jaxtheory.sims.dc.dca`: proximal DCA with and without one random feasible
  exploration step per iteration (Greenstein & Hallak, arXiv:2605.22045), on the toy
  :math:`\\tfrac12\\lVert x\\rVert^2 - \\lVert x\\rVert_1` and on DC-sparse least squares.
"""

from jaxtheory.sims.dc import dca  # noqa: F401

__all__ = ["dca"]
