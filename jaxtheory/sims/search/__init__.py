"""Black-box recipe search: landscapes, search policies and a running-best search loop.

The pieces behind the ``recipe-search-power-law`` experiment (a reconstruction of a
paper on data-recipe search): :mod:`.landscapes` holds the quadratic landscape and the
closed form of uniform random search, :mod:`.policies` the ``init / propose / observe``
policy interface (random search), :mod:`.runner` the pure ``run(spec, params, key)``.
"""

from jaxtheory.sims.search.landscapes import *  # noqa: F403
from jaxtheory.sims.search.policies import *  # noqa: F403
from jaxtheory.sims.search.runner import *  # noqa: F403
from jaxtheory.sims.search import landscapes, policies, runner

__all__ = (*landscapes.__all__, *policies.__all__, *runner.__all__)
