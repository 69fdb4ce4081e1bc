"""The profit simulator against independent float64 numpy references.

The references do not use JAX: a bisection on the first-order condition along the
compute-optimal ray (a derived reduction), checked itself by a central-difference
gradient of the numpy profit in (log N, log D); a bisection on the N-condition when the
data cap binds; the closed form under uniform thresholds; the log-normal density
elasticity in closed form; with a serving cost, a root of the numpy central-difference
gradient (scipy) and the shifted first-order identity derived from the two conditions.
"""

import math

import jax
import numpy as np
import pytest
import scipy.optimize

from jaxtheory.sims.econ import profit as pm

SPEC = pm.ProfitSpec()
# One compiled program for every test (the parameters are traced): run eagerly, op by op,
# each call took 4-20 s; the values are the same computation (tolerances below are 1e-5 or looser).
_run = jax.jit(pm.run, static_argnums=0)


def _np_adoption(L, family, loc, width=0.1, step_width=0.03, log_scale=0.5):
    x = L - pm.E0
    if family == 0:
        return 1.0 / (1.0 + math.exp(-(loc - L) / width))
    if family == 1:
        return 0.5 * math.erfc(math.log(x / (loc - pm.E0)) / log_scale / math.sqrt(2.0))
    if family == 2:
        return 1.0 / (1.0 + math.exp(-(loc - L) / step_width))
    return min(1.0, max(0.0, 1.0 - x / (2.0 * (loc - pm.E0))))


def _np_profit(u, p):
    n, d = math.exp(u[0]), math.exp(u[1])
    L = pm.E0 + pm.A_COEF * n**-pm.ALPHA + pm.B_COEF * (p["kappa"] * d) ** -pm.BETA
    s = _np_adoption(L, p["family"], p["loc"])
    # training 6ND, serving 2N FLOP per token for serve·S tokens
    return s - (6.0 * n * d + 2.0 * n * p.get("serve", 0.0) * s) / (p["E"] * p["revenue"])


def _np_grad(u, p, h=1e-5):
    g = []
    for i in range(2):
        e = np.zeros(2)
        e[i] = h
        g.append((_np_profit(u + e, p) - _np_profit(u - e, p)) / (2 * h))
    return np.array(g)


def _bisect(f, lo, hi, iters=200):
    flo = f(lo)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if (f(mid) > 0) == (flo > 0):
            lo, flo = mid, f(mid)
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _ray_reference(p):
    """log N*, log D* by bisection on d profit / d log C along the ray (numpy float64)."""
    G, K = pm.ray_constants()
    a = pm.BETA / (pm.ALPHA + pm.BETA)

    def u_of(logc):  # logc = log of physical compute 6ND
        ln = math.log(G) + a * (math.log(p["kappa"]) + logc - math.log(6.0))
        return np.array([ln, logc - math.log(6.0) - ln])

    def dprofit(logc, h=1e-6):
        return (_np_profit(u_of(logc + h), p) - _np_profit(u_of(logc - h), p)) / (2 * h)

    lo, hi = math.log(1e20), math.log(1e30)
    assert dprofit(lo) > 0 > dprofit(hi)  # a bracket of the interior maximum
    logc = _bisect(dprofit, lo, hi)
    return u_of(logc)


@pytest.mark.parametrize("family", [0, 1, 3])
@pytest.mark.parametrize("E", [1e17, 1e20])
def test_optimum_matches_numpy_reference(family, E):
    p = dict(pm.DEFAULT_PARAMS, family=family, E=E, loc=2.2, revenue=1e8)
    out = _run(SPEC, p, None)
    ref = _ray_reference(p)
    # The reference is a stationary point of the full 2-D profit, not only of the ray:
    # central differences (h = 1e-5, truncation ~1e-10) vanish to float64 rounding/h.
    assert np.abs(_np_grad(ref, p)).max() < 1e-8
    # float32 storage of log N* ~ 25 (ulp 2e-6); bisection and the polish are exact.
    assert abs(float(out["log_n"]) - ref[0]) < 1e-5
    assert abs(float(out["log_d"]) - ref[1]) < 1e-5
    assert abs(float(out["foc_ratio"]) - 1.0) < 1e-10
    assert float(out["grad_norm"]) < 1e-12


def test_uniform_closed_form():
    for E, kappa in [(1e17, 0.5), (1e19, 1.0), (1e21, 2.0)]:
        p = dict(pm.DEFAULT_PARAMS, family=3, E=E, kappa=kappa)
        out = _run(SPEC, p, None)
        ln, ld, c = pm.uniform_optimum(E, kappa, p["loc"], p["revenue"])
        assert abs(float(out["log_n"]) - ln) < 1e-5 and abs(float(out["log_d"]) - ld) < 1e-5
        assert abs(float(out["elasticity"])) < 1e-6  # constant density


def test_data_bound_matches_numpy_reference():
    p = dict(pm.DEFAULT_PARAMS, family=0, E=1e19, d_max=6e10, loc=2.2, revenue=1e8)
    out = _run(SPEC, p, None)
    ld = math.log(p["d_max"])

    def dn(ln, h=1e-6):
        return (_np_profit(np.array([ln + h, ld]), p) - _np_profit(np.array([ln - h, ld]), p)) / (2 * h)

    lo, hi = math.log(1e11), math.log(1e16)
    assert dn(lo) > 0 > dn(hi)  # a bracket of the interior maximum
    ref = _bisect(dn, lo, hi)
    assert float(out["bound"]) == 1.0
    assert abs(float(out["log_d"]) - ld) < 1e-5
    assert abs(float(out["log_n"]) - ref) < 1e-5
    # the cap binds: the unconstrained gradient pushes D upward
    assert _np_grad(np.array([ref, ld]), p)[1] > 0


def test_adoption_median_is_loc():
    for fam in range(4):
        assert abs(float(pm.adoption(2.3, fam, 2.3, 0.1, 0.03, 0.5)) - 0.5) < 1e-12
        assert abs(_np_adoption(2.3, fam, 2.3) - 0.5) < 1e-12


def test_lognormal_elasticity_closed_form():
    # s(L) ∝ φ(z)/x with z = log(x/x_c)/σ, x = L − E0 ∝ C^−γ: ε_s = γ(1 + z/σ).
    p = dict(pm.DEFAULT_PARAMS, family=1, E=1e18, loc=2.2, revenue=1e8)
    out = _run(SPEC, p, None)
    z = math.log((float(out["loss"]) - pm.E0) / (p["loc"] - pm.E0)) / p["log_scale"]
    expected = pm.GAMMA * (1.0 + z / p["log_scale"])
    assert abs(float(out["elasticity"]) - expected) < 1e-4


def test_gamma_and_ray_constants():
    G, K = pm.ray_constants()
    assert round(pm.GAMMA, 3) == 0.154
    # on the ray the two loss terms are in ratio β : α (αA N^−α = βB D^−β)
    C = 1e23
    a = pm.BETA / (pm.ALPHA + pm.BETA)
    n = G * (C / 6) ** a
    d = C / 6 / n
    assert abs(pm.ALPHA * pm.A_COEF * n**-pm.ALPHA / (pm.BETA * pm.B_COEF * d**-pm.BETA) - 1) < 1e-12
    assert abs(pm.A_COEF * n**-pm.ALPHA + pm.B_COEF * d**-pm.BETA - K * (C / 6) ** -pm.GAMMA) < 1e-12


@pytest.mark.parametrize("family", [0, 1, 3])
@pytest.mark.parametrize("E", [1e17, 1e20])
def test_inference_cost_matches_numpy_reference(family, E):
    serve = 1e13
    p = dict(pm.DEFAULT_PARAMS, family=family, E=E, loc=2.2, revenue=1e8, serve=serve)
    out = _run(SPEC, p, None)
    # the numpy optimum: a root of the central-difference gradient, started on the
    # compute-optimal ray of the problem without serving (scipy, no JAX)
    start = _ray_reference(dict(p, serve=0.0))
    # (hybr may stop at the noise floor of the difference quotients, ~1e-11: the gradient
    # itself is the test of the root)
    ref = scipy.optimize.root(lambda u: _np_grad(u, p), start, method="hybr", tol=1e-12).x
    assert np.abs(_np_grad(ref, p)).max() < 1e-9
    # a maximum: no better point one step away in any direction
    for d in ([1e-3, 0], [-1e-3, 0], [0, 1e-3], [0, -1e-3]):
        assert _np_profit(ref + np.array(d), p) < _np_profit(ref, p)
    assert abs(float(out["log_n"]) - ref[0]) < 1e-5
    assert abs(float(out["log_d"]) - ref[1]) < 1e-5
    # the two first-order conditions: αA N^−α / (βB D_eff^−β) = 1 + Q S(L*) / (3 D*)
    n, d = math.exp(ref[0]), math.exp(ref[1])
    L = pm.E0 + pm.A_COEF * n**-pm.ALPHA + pm.B_COEF * (p["kappa"] * d) ** -pm.BETA
    shifted = 1.0 + serve * _np_adoption(L, family, p["loc"]) / (3.0 * d)
    ratio = pm.ALPHA * pm.A_COEF * n**-pm.ALPHA / (pm.BETA * pm.B_COEF * (p["kappa"] * d) ** -pm.BETA)
    assert abs(ratio / shifted - 1.0) < 1e-6
    assert abs(float(out["foc_ratio"]) / shifted - 1.0) < 1e-4
    assert shifted > 1.0 + 1e-3  # the serving cost moves the optimum visibly off the ray
    # the cost outputs: training 6ND/E, serving 2NQ·S/E
    assert abs(float(out["inference"]) / (2.0 * n * serve * float(out["share"]) / E) - 1.0) < 1e-4


def test_zero_serving_cost_changes_nothing():
    p = dict(pm.DEFAULT_PARAMS, family=1, E=1e19)
    a = _run(SPEC, p, None)
    b = _run(SPEC, {k: v for k, v in p.items() if k != "serve"}, None)
    assert float(a["inference"]) == 0.0
    for k in ("log_n", "log_d", "profit", "foc_ratio"):
        assert float(a[k]) == float(b[k])
