"""Small networks and how they move during training.

* :mod:`~jaxtheory.sims.nets.precision`: cross-entropy in emulated low precision and the
  Slingshot feedback loop it drives (arXiv:2605.06152).
* :mod:`~jaxtheory.sims.nets.mlp`: a two-layer MLP in standard and NTK parameterisation
  with width masking, its empirical NTK, λ_min, Jacobian and weight drift.
* :mod:`~jaxtheory.sims.nets.ntk`: closed-form kernel-GD (lazy) loss curve and the initial
  NTK of a wide layer (shared with :mod:`jaxtheory.sims.moe.dmft`).
* :mod:`~jaxtheory.sims.nets.langevin_ntk`: prior-matched Langevin training of the MLP with
  its NTK logged (a reconstruction from Tsipory & Soudry's seminar abstract).
* :mod:`~jaxtheory.sims.nets.flow`: flow matching with an NTK-scaled ReLU velocity net on
  a Gaussian target, exact field, samplers and Bures W2 (arXiv:2606.10089).
* :mod:`~jaxtheory.sims.nets.transformer`: a small attention-only transformer in pure
  ``jnp`` exposing (and patching) per-head outputs, trained with Adam in a jitted scan.
* :mod:`~jaxtheory.sims.nets.tom`: false-belief / false-photo vignettes as tokens, minimal
  pairs and a planted divergence head (a toy of the probe sets of arXiv:2505.14685).
* :mod:`~jaxtheory.sims.nets.interp`: activation patching and RSA statistics (permutation
  tests, bootstrap intervals) for any model exposing per-head outputs.
"""

from jaxtheory.sims.nets import flow, langevin_ntk, mlp, ntk, precision
from jaxtheory.sims.nets import transformer
from jaxtheory.sims.nets import interp, tom

__all__ = ["precision", "mlp", "ntk", "langevin_ntk", "flow", "transformer", "interp", "tom"]
