"""jaxtheory: ML-theory claims checked by computation.

Optimizers from recent papers as optax transforms (:mod:`jaxtheory.optim`), pure
simulators (:mod:`jaxtheory.sims`), a sweep engine that runs a hyperparameter × seed
grid as one compiled program per shape (:mod:`jaxtheory.sweep`), and experiments that
check a paper's claims on the results (:class:`Experiment`).
"""

# first: importing it switches off the XLA:CPU scheduler that deadlocks jaxlib 0.9.2,
# before anything starts JAX's backend (see jaxtheory._jaxlib_check)
from jaxtheory._jaxlib_check import warn_if_deadlock_prone
from jaxtheory.claims import NotApplicable, Region, Stat
from jaxtheory.experiment import (
    Claim,
    ClaimResult,
    Experiment,
    ExperimentRun,
    Figure,
    Paper,
    Preset,
    evaluate_claims,
)
from jaxtheory.results import needs
from jaxtheory.simulator import Simulator

__version__ = "0.1.0"

warn_if_deadlock_prone()

__all__ = [
    "Claim",
    "ClaimResult",
    "Experiment",
    "ExperimentRun",
    "Figure",
    "NotApplicable",
    "Paper",
    "Preset",
    "Region",
    "Simulator",
    "Stat",
    "evaluate_claims",
    "needs",
]
