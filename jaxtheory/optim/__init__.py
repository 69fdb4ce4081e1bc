"""Optimizers from recent papers as pure optax gradient transformations.

Every transform here returns an :class:`optax.GradientTransformation` (or
:class:`optax.GradientTransformationExtraArgs`) whose float hyperparameters may be
traced scalars, so a whole learning-rate grid can be ``jax.vmap``-ed.
"""

# Each family adds one line below: ``from jaxtheory.optim._<family> import *``.
from jaxtheory.optim._normalized import *  # noqa: F401,F403
from jaxtheory.optim._mirror import *  # noqa: F401,F403
from jaxtheory.optim._lmo import *  # noqa: F401,F403
from jaxtheory.optim._compress import *  # noqa: F401,F403
from jaxtheory.optim._error_feedback import *  # noqa: F401,F403
from jaxtheory.optim._two_phase import *  # noqa: F401,F403
from jaxtheory.optim._imuon import *  # noqa: F401,F403
from jaxtheory.optim._schatten import *  # noqa: F401,F403
