"""Float64 side checks of the two-phase optimizers' exact identities (not the sweep's simulator).

The experiment ``linreg-two-phase`` sweeps the exact risk recursions of
:mod:`jaxtheory.sims.linreg.exact` in float32; the identities between its algorithms
(Lookahead, SGD, LA-DiLoCo) are checked here in float64 (:func:`identities` enables x64
itself) on a small problem.
"""

from __future__ import annotations

import jax
import numpy as np

from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import two_phase as tp
from jaxtheory.sims.linreg.problems import log_grid

__all__ = ["DIM", "STEPS", "identities", "risk"]

#: Dimension of the identities' problem.
DIM = 16
#: Steps of the identities' recursions (all logged).
STEPS = 32


def risk(algorithm: str, params: dict) -> np.ndarray:
    """The exact risk curve of ``algorithm`` at ``params``, ``STEPS`` steps, dimension ``DIM``.

    Float64 only inside ``jax.enable_x64(True)``.
    """
    spec = ex.ExactSpec(dim=DIM, steps=STEPS, num_log=STEPS, algorithm=algorithm)
    return np.asarray(jax.jit(lambda z: ex.run(spec, z)["risk"])(params))


def identities(batch: int) -> dict:
    """The four identities' largest absolute risk residuals, float64, at batch size ``batch``.

    LA(k=1, α) ≡ SGD(αη); LA(α=1) ≡ SGD(η) at syncs (every 4th step); LA-DiLoCo(W=1) ≡ LA;
    LA-DiLoCo(k=1, W) ≡ LA(k=1) at batch W·B.
    """
    with jax.enable_x64(True):
        base = dict(ex.EXACT_DEFAULT_PARAMS, **tp.PARAMS, batch=batch)

        def r(a, **q):
            return risk(a, dict(base, **q))

        at = log_grid(STEPS, STEPS) % 4 == 0
        return {
            "la(k=1)-sgd(αη)": np.abs(r("lookahead", k=1) - r("sgd", lr=base["lr"] * base["alpha"])).max(),
            "la(α=1)-sgd at syncs": np.abs(r("lookahead", k=4, alpha=1.0) - r("sgd"))[at].max(),
            "diloco(W=1)-la": np.abs(r("diloco", k=3, workers=1) - r("lookahead", k=3)).max(),
            "diloco(k=1,W)-la(k=1,WB)": np.abs(
                r("diloco", k=1, workers=4) - r("lookahead", k=1, batch=4 * batch)
            ).max(),
        }
