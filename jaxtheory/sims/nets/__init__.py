"""Small networks and how they move during training.

* :mod:`~jaxtheory.sims.nets.precision`: cross-entropy in emulated low precision and the
  Slingshot feedback loop it drives (arXiv:2605.06152).
* :mod:`~jaxtheory.sims.nets.flow`: flow matching with an NTK-scaled ReLU velocity net on
  a Gaussian target, exact field, samplers and Bures W2 (arXiv:2606.10089).
"""

from jaxtheory.sims.nets import precision  # noqa: F401
from jaxtheory.sims.nets import flow  # noqa: F401

__all__ = ["precision", "flow"]
