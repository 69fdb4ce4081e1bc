"""Best-arm identification under Shifting Means: environments, policies, episodes.

A K-armed bandit whose means move together, :math:`X_t = \\mu_{A_t} + s_t + \\sigma\\eta_t`,
with a common shift :math:`s_t` chosen by an adversary every round and
:math:`|\\mu_a + s_t| \\le U`. Only the gaps are stable, so statistics built on per-arm
empirical means (GLRT, Track-and-Stop, LUCB) can be fooled, while ISM (importance
weights for shifting means: uniform sampling and importance-weighted gap estimates) is
δ-correct with sample complexity of order :math:`K(\\sigma^2 + U^2)\\Delta_{\\min}^{-2}\\ln(1/\\delta)`.

* :mod:`~jaxtheory.sims.bandits.environments`: instances and shift adversaries.
* :mod:`~jaxtheory.sims.bandits.oracle`: Track-and-Stop's optimal weights and
  characteristic time (closed form and nested bisection).
* :mod:`~jaxtheory.sims.bandits.thresholds`: GLRT and ISM stopping thresholds.
* :mod:`~jaxtheory.sims.bandits.policies`: policies as pure functions.
* :mod:`~jaxtheory.sims.bandits.runner`: :class:`BAISpec`, :func:`run` (pure, for the
  sweep engine) and :func:`simulate` (host loop with compaction).
* :mod:`~jaxtheory.sims.bandits.analysis`: Clopper-Pearson intervals, summaries and the
  reference values of the claims (numpy / scipy).

References:
    Best-arm identification under Shifting Means (no public preprint found).
    Garivier and Kaufmann (2016), arXiv:1602.04589.
"""

from jaxtheory.sims.bandits.analysis import *  # noqa: F401,F403
from jaxtheory.sims.bandits.environments import *  # noqa: F401,F403
from jaxtheory.sims.bandits.oracle import *  # noqa: F401,F403
from jaxtheory.sims.bandits.policies import *  # noqa: F401,F403
from jaxtheory.sims.bandits.runner import *  # noqa: F401,F403
from jaxtheory.sims.bandits.thresholds import *  # noqa: F401,F403
