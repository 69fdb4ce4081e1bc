"""Decentralized optimization: agents on a graph, gossip ``W @ X``, gradient tracking.

* :mod:`~jaxtheory.sims.decentralized.graphs`: ring, torus, Erdős–Rényi and complete
  graphs with Metropolis weights, and their spectral gap.
* :mod:`~jaxtheory.sims.decentralized.minimax`: doubly smoothed decentralized stochastic
  GDA with gradient tracking and the D-SGDA-GT baseline (000_17).
"""

from jaxtheory.sims.decentralized import graphs, minimax  # noqa: F401

__all__ = ["graphs", "minimax"]
