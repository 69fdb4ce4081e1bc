"""jaxtheory.sims.linreg.two_phase_checks: the exact identities hold, a wrong pairing does not."""

import jax
import numpy as np

from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import two_phase as tp
from jaxtheory.sims.linreg import two_phase_checks as tc


def test_identities_hold_in_float64():
    res = tc.identities(2)
    assert len(res) == 4
    assert all(np.isfinite(v) and 0 <= v < 1e-10 for v in res.values()), res


def test_a_wrong_pairing_is_far_from_zero():
    # LA(k=1, α) against SGD(η) rather than SGD(αη): the same curves differ when α < 1
    with jax.enable_x64(True):
        base = dict(ex.EXACT_DEFAULT_PARAMS, **tp.PARAMS, batch=2)
        assert base["alpha"] < 1
        la = tc.risk("lookahead", dict(base, k=1))
        sgd = tc.risk("sgd", base)
    assert la.shape == sgd.shape and la.ndim == 1
    assert np.abs(la - sgd).max() > 1e-6
