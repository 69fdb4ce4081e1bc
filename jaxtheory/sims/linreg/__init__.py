"""High-dimensional linear regression: spectra, Monte Carlo runs and exact risk recursions.

Three pieces, each usable by the sweep engine as a pure ``run(spec, params, key)``:

* :mod:`.problems`: Gaussian streaming data :math:`x \\sim N(0, K)` with power-law,
  Marchenko–Pastur or two-scale spectra (trace one) and power-law targets;
* :mod:`.montecarlo`: SGD, lookahead (LA), LA-DiLoCo and SLA through the optax
  transforms of :mod:`jaxtheory.optim`, one ``lax.scan`` over gradient steps;
* :mod:`.exact`: the exact per-eigenmode second-moment recursions (deterministic
  equivalent) of the same algorithms, :math:`O(D)` per step, vmappable over every
  hyperparameter.

References:
    Agarwala, *High dimensional theory of two-phase optimizers*, arXiv:2603.26954.
"""

from jaxtheory.sims.linreg import exact, montecarlo, problems
from jaxtheory.sims.linreg.exact import EXACT_DEFAULT_PARAMS, ExactSpec
from jaxtheory.sims.linreg.montecarlo import MC_DEFAULT_PARAMS, MonteCarloSpec
from jaxtheory.sims.linreg.problems import log_grid, problem, spectrum, target_energy

__all__ = [
    "exact",
    "montecarlo",
    "problems",
    "ExactSpec",
    "EXACT_DEFAULT_PARAMS",
    "MonteCarloSpec",
    "MC_DEFAULT_PARAMS",
    "log_grid",
    "problem",
    "spectrum",
    "target_energy",
]
