"""Matrix simulators (jaxtheory.sims.matrix): whole-run gauge invariance in float64."""

import jax
import numpy as np

from jaxtheory.sims.matrix import completion


def test_claim_whole_run_gauge_invariance_float64():
    """Claim (gauge invariance of intrinsic Muon, as we read the paper): iMuon runs from
    rescaled initial factors (alpha in {0.1, 1, 10}) end at the same error to >= 6 significant digits (float64, eps = 0, the
    Gram regulariser being the only gauge-dependent term); Muon on the factors does not."""
    spec = completion.CompletionSpec(
        m=20, n=16, r=2, steps=40, methods=("muon", "imuon"), gauges=(0.1, 1.0, 10.0)
    )
    with jax.enable_x64(True):
        out = jax.jit(
            lambda k: completion.run(spec, dict(completion.DEFAULT_PARAMS, kappa=10.0, lr=0.3, eps=0.0), k)
        )(jax.random.key(3))
        fin = np.asarray(out["final_error"])  # (method, gauge)
    imuon, muon = fin[1], fin[0]
    assert (imuon.max() - imuon.min()) / imuon.min() <= 1e-6, imuon
    assert (muon.max() - muon.min()) / muon.min() >= 0.5, muon
    assert np.asarray(out["min_sigma"]).min() > 0
