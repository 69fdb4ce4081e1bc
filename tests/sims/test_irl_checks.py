"""The float64 side checks of jaxtheory.sims.irl.checks on tiny cases: each identity holds to
round-off, and the mirror-descent deviation is zero exactly where the derivation says (γ = 0,
η = 1) and not elsewhere (float64 throughout: the functions enable x64 themselves)."""

import jax
import numpy as np

from jaxtheory.sims.irl import checks

KEYS = jax.random.split(jax.random.PRNGKey(3), 3)


def test_log_pi_expert_has_soft_value_zero():
    v, pi = checks.soft_value_zero(KEYS, 4, 2, 0.8)
    assert v.shape == pi.shape == (3,)
    assert v.max() < 1e-9 and pi.max() < 1e-9


def test_bandit_identity_md_and_contraction():
    etas = (0.2, 0.5)
    identity, md_gap, contraction = checks.bandit_checks(KEYS, 3, etas, steps=checks.CONTRACTION_STEPS)
    assert identity.max() < 1e-10
    assert md_gap.max() < 1e-12
    assert contraction.shape == (3, 2, checks.CONTRACTION_STEPS + 1)
    # the centred log-ratio error contracts by exactly 1 − η per step
    ratio = contraction[..., 1:] / contraction[..., :-1]
    np.testing.assert_allclose(
        ratio, np.broadcast_to((1 - np.asarray(etas))[:, None], ratio.shape), rtol=1e-9
    )


def test_mirror_deviation_zero_only_at_gamma_zero_or_eta_one():
    dev = checks.mirror_deviation(KEYS, 4, 2, (0.0, 0.5), (0.3, 1.0))
    assert dev.shape == (3, 2, 2)
    assert dev[:, 0, :].max() < 1e-12  # γ = 0: every state is a bandit
    assert dev[:, 1, 1].max() < 1e-9  # η = 1: θ₁ = log π_E, up to the value iteration's tolerance
    assert dev[:, 1, 0].min() > 1e-4  # γ = 0.5, η = 0.3: first order in both, far from round-off


def test_mdp_mean_value_identity():
    residual, policy = checks.mean_value_identity(KEYS[:2], 3, 2, 0.8)
    assert residual.max() < 1e-8
    assert policy.max() < 1e-8
