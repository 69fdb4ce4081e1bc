"""Exact discrete computations: chunked base-n enumeration of assignments under ``lax.map``
(:mod:`~jaxtheory.sims.discrete.enumerate`) and the exhaustive fair-division evaluations
built on it (α-EFkX allocations and multigraph orientations, arXiv 2605.10371,
:mod:`~jaxtheory.sims.discrete.fairdiv`); each module is exact over the instances it is
given, with no sampling inside."""

from . import enumerate, fairdiv

__all__ = ["enumerate", "fairdiv"]
