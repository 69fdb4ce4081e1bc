"""Exact risk recursions of jaxtheory.sims.linreg: closed forms, identities, a numpy reference.

float64 (stated per test) where an identity is checked to 1e-10.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.linreg import exact as ex
from jaxtheory.sims.linreg import problems as pb

D, T = 12, 48
BASE = dict(ex.EXACT_DEFAULT_PARAMS, lr=0.6, alpha=0.7, mu=0.4, beta=0.3, sigma2=0.2, a=1.3, b=0.8, batch=3)


def _risk(spec_kw, *plist, **p):
    """Risk curves of one spec at one or several parameter sets (one vmapped compile)."""
    spec = ex.ExactSpec(dim=D, steps=T, num_log=T, **spec_kw)
    ps = [dict(BASE, **q) for q in plist] if plist else [dict(BASE, **p)]
    stacked = {k: jnp.asarray([q[k] for q in ps]) for k in ps[0]}
    out = np.asarray(jax.jit(jax.vmap(lambda q: ex.run(spec, q)["risk"]))(stacked))
    return out if plist else out[0]


def test_identities_float64():
    """LA(k=1, α) ≡ SGD(αη); LA(α=1) ≡ SGD(η); DiLoCo(W=1) ≡ LA; DiLoCo(k=1,W,B) ≡ LA(k=1,WB)."""
    WB = 4 * BASE["batch"]
    with jax.enable_x64(True):
        la_k1, la_a1, la_k3, la_wb1, la_wb4 = _risk(
            dict(algorithm="lookahead"),
            dict(k=1),
            dict(k=4, alpha=1.0),
            dict(k=3),
            dict(k=1, batch=WB),
            dict(k=4, batch=WB),
        )
        sgd_ae, sgd_e = _risk(dict(algorithm="sgd"), dict(lr=BASE["alpha"] * BASE["lr"]), {})
        dl_w1, dl_k1, dl_k4 = _risk(
            dict(algorithm="diloco"), dict(k=3, workers=1), dict(k=1, workers=4), dict(k=4, workers=4)
        )
    np.testing.assert_allclose(la_k1, sgd_ae, rtol=0, atol=1e-12)
    # slow weights equal SGD's iterate at every synchronization (steps 4, 8, ...)
    at = pb.log_grid(T, T) % 4 == 0
    np.testing.assert_allclose(la_a1[at], sgd_e[at], rtol=0, atol=1e-12)
    np.testing.assert_allclose(dl_w1, la_k3, rtol=0, atol=1e-12)
    np.testing.assert_allclose(dl_k1, la_wb1, rtol=0, atol=1e-12)
    # k > 1: several workers at batch B are noisier than one at batch W·B
    assert (dl_k4[8:] > la_wb4[8:]).all()


@pytest.mark.slow
def test_zero_momentum_is_plain_float64():
    with jax.enable_x64(True):
        plain = _risk(dict(algorithm="diloco"), k=3, workers=2)
        for kind in ("heavy_ball", "nesterov"):
            got = _risk(dict(algorithm="diloco", outer=kind, inner=kind), k=3, workers=2, mu=0.0, beta=0.0)
            np.testing.assert_allclose(got, plain, rtol=1e-12, atol=0)


def _numpy_reference(lam, t2, eta, alpha, mu, k, W, B, s2, rounds, outer):
    """The per-round formulas (our reading of the paper), written independently in numpy."""
    d = t2.copy()
    c = np.zeros_like(d)
    s = np.zeros_like(d)
    p = (1 - eta * lam) ** k
    h = 1 - p
    out = []
    for _ in range(rounds):
        m = d.copy()
        for _ in range(k):
            m = (1 - eta * lam) ** 2 * m + eta**2 / B * (lam**2 * m + lam * (lam @ m + s2))
        xi = (m - p**2 * d) / W
        if outer == "none":
            d = (1 - alpha) ** 2 * d + 2 * alpha * (1 - alpha) * p * d + alpha**2 * (p**2 * d + xi)
        else:
            s_new = mu**2 * s + 2 * mu * h * c + h**2 * d + xi
            a = mu * c + h * d
            if outer == "heavy_ball":
                d, c, s = d - 2 * alpha * a + alpha**2 * s_new, a - alpha * s_new, s_new
            else:
                uu = (1 + mu) ** 2 * (h**2 * d + xi) + 2 * (1 + mu) * mu**2 * h * c + mu**4 * s
                eu = (1 + mu) * h * d + mu**2 * c
                uv = (1 + mu) * (mu * h * c + h**2 * d + xi) + mu**2 * (mu * s + h * c)
                d, c, s = d - 2 * alpha * eu + alpha**2 * uu, a - alpha * uv, s_new
        out.append(0.5 * lam @ d)
    return np.array(out)


@pytest.mark.parametrize(
    "outer",
    [
        pytest.param("none", marks=pytest.mark.slow),
        pytest.param("heavy_ball", marks=pytest.mark.slow),
        "nesterov",
    ],
)
def test_matches_independent_numpy_reference_float64(outer):
    k, W = 4, 3
    with jax.enable_x64(True):
        got = _risk(dict(algorithm="diloco", outer=outer), k=k, workers=W)
        lam, t2 = (np.asarray(v, np.float64) for v in pb.problem("power_law", D, BASE))
        # recompute the problem in float64 the same way (the spectrum is built in float32)
        ref = _numpy_reference(
            lam, t2, BASE["lr"], BASE["alpha"], BASE["mu"], k, W, BASE["batch"], BASE["sigma2"], T // k, outer
        )
    steps = pb.log_grid(T, T)
    np.testing.assert_allclose(got[steps % k == 0], ref[steps[steps % k == 0] // k - 1], rtol=1e-6)


def test_sgd_stationary_risk_closed_form():
    """Fixed point of d = (1-ηλ)²d + η²/B(λ²d + λ(Σλd + σ²)): S = Σλd = σ²κ/(1-κ)."""
    eta, B, s2 = 0.8, 2, 0.3
    spec = ex.ExactSpec(dim=D, steps=4000, num_log=4, algorithm="sgd")
    p = dict(BASE, lr=eta, batch=B, sigma2=s2)
    with jax.enable_x64(True):
        got = float(jax.jit(lambda q: ex.run(spec, q)["final_risk"])(p))
        lam = np.asarray(pb.spectrum("power_law", D, p), np.float64)
    a = (1 - eta * lam) ** 2 + eta**2 * lam**2 / B
    kap = np.sum(eta**2 * lam**2 / B / (1 - a))
    assert got == pytest.approx(0.5 * s2 * kap / (1 - kap), rel=1e-8)


def test_noiseless_la_contracts_like_effective_hessian():
    """Full batch, one mode class: each round multiplies the risk by (1 - α h)², h = 1-(1-ηλ)^k."""
    eta, alpha, k = 0.3, 0.8, 5
    spec = ex.ExactSpec(
        dim=4, steps=60, num_log=60, algorithm="lookahead", spectrum="two_scale", full_batch=True
    )
    p = dict(BASE, lr=eta, alpha=alpha, k=k, kappa=1.0, frac=1.0)  # λ_i = 1/4
    with jax.enable_x64(True):
        lr_ = np.asarray(jax.jit(lambda q: ex.run(spec, q)["log_risk"])(p))
    h = 1 - (1 - eta * 0.25) ** k
    steps = pb.log_grid(60, 60)
    at = (steps % k == 0) & (np.diff(steps, prepend=0) == 1)
    np.testing.assert_allclose(
        np.diff(lr_[at]) / np.diff(steps[at] // k), 2 * np.log(1 - alpha * h), rtol=1e-10
    )


def test_log_risk_survives_float32_underflow():
    spec = ex.ExactSpec(
        dim=4,
        steps=400,
        num_log=8,
        algorithm="lookahead",
        outer="heavy_ball",
        spectrum="two_scale",
        full_batch=True,
    )
    out = jax.jit(lambda q: ex.run(spec, q))(dict(BASE, lr=3.0, alpha=1.0, mu=0.3, k=2, kappa=4.0))
    assert float(out["final_log_risk"]) < -150 and np.isfinite(out["log_risk"]).all()
    assert int(out["diverged_step"]) == -1


@pytest.mark.slow
def test_divergence_is_flagged_not_raised():
    spec = ex.ExactSpec(dim=D, steps=200, num_log=8, algorithm="lookahead")
    out = jax.jit(jax.vmap(lambda lr: ex.run(spec, dict(BASE, lr=lr, k=2))))(jnp.array([0.5, 40.0]))
    assert int(out["diverged_step"][0]) == -1 and int(out["diverged_step"][1]) >= 0
    assert np.isfinite(out["final_risk"][0]) and np.isnan(out["final_risk"][1])


def test_spectra_and_targets():
    spectrum = jax.jit(pb.spectrum, static_argnums=(0, 1))
    lam = np.asarray(spectrum("power_law", 50, {"a": 2.0}))
    assert lam.sum() == pytest.approx(1, rel=1e-5) and (np.diff(lam) < 0).all()
    np.testing.assert_allclose(lam[0] / lam[1:4], [4.0, 9.0, 16.0], rtol=1e-5)
    # Marchenko–Pastur quantiles: edges and second moment E x² = 1 + γ (unit mean)
    g = 0.25
    mp = np.asarray(spectrum("marchenko_pastur", 2000, {"gamma": g})) * 2000
    assert mp.mean() == pytest.approx(1.0, rel=1e-5)
    assert (mp**2).mean() == pytest.approx(1 + g, rel=2e-3)
    assert mp.max() == pytest.approx((1 + g**0.5) ** 2, rel=1e-2)
    assert mp.min() == pytest.approx((1 - g**0.5) ** 2, rel=2e-2)
    two = np.asarray(spectrum("two_scale", 10, {"kappa": 50.0, "frac": 0.3}))
    assert two[0] / two[-1] == pytest.approx(50.0) and (two == two[0]).sum() == 3
    lam2, t2 = jax.jit(pb.problem, static_argnums=(0, 1))("power_law", 20, {"a": 1.5, "b": 2.5})
    en = np.asarray(lam2 * t2)
    assert en.sum() == pytest.approx(1, rel=1e-5)
    np.testing.assert_allclose(en[0] / en[1], 2**2.5, rtol=1e-5)
    with pytest.raises(ValueError):
        ex.ExactSpec(spectrum="nope")
