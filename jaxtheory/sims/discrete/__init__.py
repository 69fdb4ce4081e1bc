"""Exact discrete computations: enumerations over finite sets (the Boolean cube, allocations, version
spaces) small enough to be computed exactly rather than sampled, closed forms, and the transforms and
small combinatorial programs they need; one module per paper.

* :mod:`~jaxtheory.sims.discrete.boolean`: the fast Walsh–Hadamard transform, popcount, Fourier
  level weights and the noise operator on the Boolean cube, L1 polynomial regression by IRLS
  (arXiv:2605.02350, smoothed agnostic learning of halfspaces).
* :mod:`~jaxtheory.sims.discrete.compression`: sample-compression schemes for products of intervals
  and half-graphs on pairs of points (arXiv:2605.12465).
* :mod:`~jaxtheory.sims.discrete.enumeration`: chunked base-n enumeration of all ``n**m``
  assignments under ``lax.map``, with a validity mask for the padding.
* :mod:`~jaxtheory.sims.discrete.fairdiv`: exhaustive α-EFkX evaluation of allocations,
  round-robin and envy-cycle elimination, multigraph orientations (arXiv:2605.10371).
* :mod:`~jaxtheory.sims.discrete.generation`: generation in the limit over the universe 1…U as
  boolean arrays, with the Kleinberg–Mullainathan, density and hallucination-tolerant generators as
  scans (arXiv:2606.28354).
* :mod:`~jaxtheory.sims.discrete.online_games`: memoised game dynamic programs for the minimax
  mistake value of online learning over version spaces (standard, adversary-directed and
  transductive settings) and Hedge; a host-mode simulator.
"""

from jaxtheory.sims.discrete import boolean, compression, enumeration, fairdiv, generation, online_games

__all__ = ["boolean", "compression", "enumeration", "fairdiv", "generation", "online_games"]
