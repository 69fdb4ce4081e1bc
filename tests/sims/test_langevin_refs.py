"""jaxtheory.sims.nets.langevin_refs: the OU displacement's limits and the lazy-loss ratio."""

import numpy as np
import pytest

from jaxtheory.sims.nets import langevin_refs as refs
from jaxtheory.sims.nets import ntk


def test_ou_expected_limits():
    # h → 0: 2(1 − e^{−λt}); k = 0: 0; k → ∞: the prior's 1 + 1/(1 − hλ/2) (θ_k independent of θ₀)
    assert abs(refs.ou_expected(0.3, 1e-6, 2e6) - 2 * (1 - np.exp(-0.6))) < 1e-5
    assert refs.ou_expected(0.3, 1e-3, 0) == 0.0
    assert refs.ou_expected(0.3, 1e-1, 1e6) == pytest.approx(1 + 1 / (1 - 0.015))


def test_lazy_ratio_is_one_on_kernel_gd_and_scales():
    K0, d0, h = np.diag([1.0, 2.0, 5.0, 10.0]), np.ones(4), 1e-3
    records = np.arange(0, 401, 20)
    lazy = 4 * ntk.lazy_loss(np.eye(4), d0, K0, h * 4, 400)[records]
    assert refs.lazy_ratio(K0, d0, lazy, h, records, 0.01) == pytest.approx(1.0, rel=1e-12)
    assert refs.lazy_ratio(K0, d0, 1.2 * lazy, h, records, 0.01) == pytest.approx(1.2, rel=1e-12)
    # a wrong step is far from 1
    assert refs.lazy_ratio(K0, d0, lazy, 2 * h, records, 0.01) > 1.05


def test_lazy_ratio_keeps_only_early_records():
    K0, d0, h = np.diag([1.0, 100.0]), np.ones(2), 1e-2
    records = np.arange(0, 2001, 100)
    lazy = 2 * ntk.lazy_loss(np.eye(2), d0, K0, h * 2, 2000)[records]
    late = lazy < 0.3 * lazy[0]
    loss = np.where(late, 100 * lazy, lazy)  # far off only where the lazy loss has decayed
    assert refs.lazy_ratio(K0, d0, loss, h, records, 0.3) == pytest.approx(1.0)
    assert refs.lazy_ratio(K0, d0, loss, h, records, 0.01) > 2
