"""Exact discrete computations: enumerations, counts, closed forms and small combinatorial
programs, one module per paper of issue 25 (:mod:`.compression`: sample-compression schemes
for products of intervals and half-graphs on pairs of points).
"""

from jaxtheory.sims.discrete import compression

__all__ = ["compression"]
