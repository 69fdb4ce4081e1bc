"""Simulators of descent in function space: portfolios of programs, boosting, adaptive representations."""

from jaxtheory.sims.functional import portfolio_tsp

__all__ = ["portfolio_tsp"]
