"""jaxtheory.sims.zeroth_order.checks: the estimator's moments and the identities, small sizes."""

from jaxtheory.sims.zeroth_order import checks

ALPHAS = (0.0, 0.5, 0.9, 0.99)


def test_moments_match_the_closed_form_second_moment():
    mom = checks.moments(20, 8, 1000, ALPHAS)
    assert mom["z"].dims == ("seed", "alpha") and mom["z"].shape == (8, len(ALPHAS))
    # z ≈ 1 when unbiased; E‖g‖²/‖∇f‖² = α + d(1 − α) within a few Monte Carlo SE
    # (relative SD of one draw about √2: 8·1000 draws give about 1.6 %)
    assert float(mom["z"].max()) < 3.0
    ratio = mom["second_moment"] / (mom["alpha"] + 20 * (1 - mom["alpha"]))
    assert float(abs(ratio.mean("seed") - 1).max()) < 0.08
    # a wrong closed form (d α + (1 − α)) is rejected
    wrong = mom["second_moment"] / (20 * mom["alpha"] + (1 - mom["alpha"]))
    assert float(abs(wrong.mean("seed") - 1).max()) > 0.5


def test_identities_are_rounding_small():
    r = checks.identities(10, 5)
    assert set(r) == {"gd", "zo"}
    assert 0 <= r["gd"] < 1e-12 and 0 <= r["zo"] < 1e-5
