"""Convex logistic regression: generalization of error feedback (EF-SGD, DiLoCo-EF).

See :mod:`jaxtheory.sims.logreg.ef` for the run function used by the
``ef-generalization`` experiment.
"""

from jaxtheory.sims.logreg.ef import (
    DEFAULT_PARAMS,
    DILOCO_METHODS,
    EF_METHODS,
    SIMULATOR,
    EFGenSpec,
    diloco_configs,
    load_breast_cancer,
    logistic_loss,
    make_data,
    matched_compressors,
    run,
    run_diloco,
    run_ef,
)

__all__ = [
    "DEFAULT_PARAMS",
    "DILOCO_METHODS",
    "EF_METHODS",
    "SIMULATOR",
    "EFGenSpec",
    "diloco_configs",
    "load_breast_cancer",
    "logistic_loss",
    "make_data",
    "matched_compressors",
    "run",
    "run_diloco",
    "run_ef",
]
