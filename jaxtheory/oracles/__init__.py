"""Stochastic-gradient oracles, noise models and test objectives with known constants."""

# Each family adds one line below: ``from jaxtheory.oracles._<family> import *``.
from jaxtheory.oracles._noise import *  # noqa: F401,F403
from jaxtheory.oracles._objectives import *  # noqa: F401,F403
from jaxtheory.oracles._directional import *  # noqa: F401,F403
from jaxtheory.oracles._saddle import *  # noqa: F401,F403
from jaxtheory.oracles._dc import *  # noqa: F401,F403
