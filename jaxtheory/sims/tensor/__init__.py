"""Tensor simulators: noisy CP recovery on the Segre manifold (:mod:`.segre`)."""

from jaxtheory.sims.tensor import segre

__all__ = ["segre"]
