"""Maximum-entropy inverse RL on tabular MDPs (occupancy-space reward updates).

:mod:`~jaxtheory.sims.irl.mdp` holds the MDP tools (soft value iteration, occupancies,
the dual, the Fisher), :mod:`~jaxtheory.sims.irl.runner` the sweepable ``run``, and
:mod:`~jaxtheory.sims.irl.bandit` the single-state checks (exact entropic mirror descent).
"""

from jaxtheory.sims.irl import bandit, mdp, runner
from jaxtheory.sims.irl.runner import DEFAULT_PARAMS, METHODS, REWARDS, SIMULATOR, IRLSpec, run

__all__ = ["DEFAULT_PARAMS", "IRLSpec", "METHODS", "REWARDS", "SIMULATOR", "bandit", "mdp", "run", "runner"]
