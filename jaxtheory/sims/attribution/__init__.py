"""Data attribution on ridge GLMs: exact leave-one-out, ALO and TRAK (arXiv 2602.01312).

See :mod:`jaxtheory.sims.attribution.trak` for the run function of the ``trak-ranking``
experiment.
"""

from jaxtheory.sims.attribution.trak import (
    DEFAULT_PARAMS,
    LOSSES,
    AttributionSpec,
    alo,
    exact_loo,
    loss_derivatives,
    make_data,
    newton_fit,
    ranking_metrics,
    run,
    spearman_rows,
    trak_scores,
)

__all__ = [
    "DEFAULT_PARAMS",
    "LOSSES",
    "AttributionSpec",
    "alo",
    "exact_loo",
    "loss_derivatives",
    "make_data",
    "newton_fit",
    "ranking_metrics",
    "run",
    "spearman_rows",
    "trak_scores",
]
