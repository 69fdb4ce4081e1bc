"""Optimizers from recent papers as pure optax gradient transformations.

Every transform here returns an :class:`optax.GradientTransformation` (or
:class:`optax.GradientTransformationExtraArgs`) whose float hyperparameters may be
traced scalars, so a whole learning-rate grid can be ``jax.vmap``-ed.
"""

from jaxtheory.optim import (
    _compress,
    _error_feedback,
    _imuon,
    _lmo,
    _mirror,
    _normalized,
    _schatten,
    _two_phase,
    _value,
    _simplex,
    _minimax,
    _zeroth_order,
    _segre,
    _koopman,
    _exploration,
    _irl,
    _precision,
    _langevin,
)

# Each family adds one line below: ``from jaxtheory.optim._<family> import *``, and its
# module to ``__all__``.
from jaxtheory.optim._normalized import *  # noqa: F401,F403
from jaxtheory.optim._mirror import *  # noqa: F401,F403
from jaxtheory.optim._lmo import *  # noqa: F401,F403
from jaxtheory.optim._compress import *  # noqa: F401,F403
from jaxtheory.optim._error_feedback import *  # noqa: F401,F403
from jaxtheory.optim._two_phase import *  # noqa: F401,F403
from jaxtheory.optim._imuon import *  # noqa: F401,F403
from jaxtheory.optim._schatten import *  # noqa: F401,F403
from jaxtheory.optim._value import *  # noqa: F401,F403
from jaxtheory.optim._simplex import *  # noqa: F401,F403
from jaxtheory.optim._minimax import *  # noqa: F401,F403
from jaxtheory.optim._zeroth_order import *  # noqa: F401,F403
from jaxtheory.optim._segre import *  # noqa: F401,F403
from jaxtheory.optim._koopman import *  # noqa: F401,F403
from jaxtheory.optim._exploration import *  # noqa: F401,F403
from jaxtheory.optim._irl import *  # noqa: F401,F403
from jaxtheory.optim._precision import *  # noqa: F401,F403
from jaxtheory.optim._langevin import *  # noqa: F401,F403

__all__ = [
    name
    for module in (
        _normalized,
        _mirror,
        _lmo,
        _compress,
        _error_feedback,
        _two_phase,
        _imuon,
        _schatten,
        _value,
        _simplex,
        _minimax,
        _zeroth_order,
        _segre,
        _koopman,
        _exploration,
        _irl,
        _precision,
        _langevin,
    )
    for name in module.__all__
]
