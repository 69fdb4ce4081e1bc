"""Batched GP bandits on finite candidate sets and the cube: GP-UCB, GP-BUCB, GP-BTS, uncertainty sampling.

* :mod:`~jaxtheory.sims.gp_bandits.kernels`: squared exponential and Matérn kernels.
* :mod:`~jaxtheory.sims.gp_bandits.posterior`: the exact posterior on the candidate set
  with bordered (rank-one) updates in a fixed-size buffer, hallucinated variance, and
  Matheron's-rule posterior draws.
* :mod:`~jaxtheory.sims.gp_bandits.pathwise`: random-Fourier-feature prior draws, the
  pathwise (Matheron) posterior update on the continuous cube, and a fixed-shape
  maximizer (candidates plus projected gradient ascent).
* :mod:`~jaxtheory.sims.gp_bandits.objectives`: candidate sets (grid, Sobol) and test
  functions (Branin, Hartmann-3/-6, Currin) with known maxima.
* :mod:`~jaxtheory.sims.gp_bandits.runner`: :class:`GPBanditSpec`, :func:`run` for the
  sweep engine, β rules, the randomness schedule and random search's expected regret.
* :mod:`~jaxtheory.sims.gp_bandits.feedback`: feedback-informed Bayesian optimization,
  whose simulator is ``gp_bandits.feedback.run``.

The package's one ``run`` is the batch-bandit runner's
(``gp_bandits.run is gp_bandits.runner.run``); every other public name of the
submodules is re-exported here.

References:
    Parallel GP bandits: GP-BTS regret without initial uncertainty sampling (no public
    preprint found).
    Desautels, Krause and Burdick (2014), JMLR 15:4053.
    Wilson et al. (2020), arXiv:2002.09309.
"""

from jaxtheory.sims.gp_bandits import feedback  # noqa: F401
from jaxtheory.sims.gp_bandits.kernels import *  # noqa: F401,F403

# Every public name of feedback but its ``run``: the package's ``run`` is the runner's.
from jaxtheory.sims.gp_bandits.feedback import (  # noqa: F401
    FEEDBACK_PARAMS,
    RHO_GRID,
    FeedbackSpec,
    PolicyState,
    expected_improvement,
    feedback_moments,
    grid_posterior,
    mixture_cdf,
    policy_init,
    policy_observe,
    policy_propose,
    sample_task,
    warp,
)
from jaxtheory.sims.gp_bandits.objectives import *  # noqa: F401,F403
from jaxtheory.sims.gp_bandits.pathwise import *  # noqa: F401,F403
from jaxtheory.sims.gp_bandits.posterior import *  # noqa: F401,F403
from jaxtheory.sims.gp_bandits.runner import *  # noqa: F401,F403
