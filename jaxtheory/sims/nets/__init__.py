"""Small networks and how they move during training.

* :mod:`~jaxtheory.sims.nets.precision`: cross-entropy in emulated low precision and the
  Slingshot feedback loop it drives (arXiv:2605.06152).
"""

from jaxtheory.sims.nets import precision  # noqa: F401

__all__ = ["precision"]
