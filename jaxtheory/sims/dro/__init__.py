"""Distributionally robust optimization as games.

* :mod:`~jaxtheory.sims.dro.gdro`: group DRO with flexible sample queries, a dual-averaging
  w-player against an exponential-weights q-player with IX / importance-weighted loss
  estimates (arXiv:2505.15212), on a linear instance with an exact duality gap.
* :mod:`~jaxtheory.sims.dro.hull`: the least-norm point of a convex hull (Wolfe), which
  gives that instance's game value.
"""

from jaxtheory.sims.dro import gdro, hull  # noqa: F401

__all__ = ["gdro", "hull"]
