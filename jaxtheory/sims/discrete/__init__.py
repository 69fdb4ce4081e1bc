"""Exact discrete computations: enumerations, transforms and dynamic programs whose results are exact
counts and values rather than sampled statistics (issue 25), one module per paper family; e.g.
:mod:`~jaxtheory.sims.discrete.online_games` solves finite online learning games by memoised
dynamic programs over version spaces."""

from . import online_games

__all__ = ["online_games"]
