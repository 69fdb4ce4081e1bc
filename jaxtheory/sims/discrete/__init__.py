"""Exact discrete computations: simulators whose numbers are exact counts, enumerations and
small dynamic programs over finite universes (integers as boolean arrays, version spaces)
rather than training curves; one module per paper of issue 25, each with its own pure
``run(spec, params, key)`` (imported here as submodules, not star-imported, since every
module has a ``run``)."""

__all__ = []

from . import generation  # noqa: E402

__all__ += ["generation"]
