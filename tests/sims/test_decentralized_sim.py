"""The decentralized DS-GDA simulator against a float64 numpy implementation of its equations."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.decentralized import minimax as mm

SPEC = mm.MinimaxSpec(agents=4, dim_x=6, dim_y=3, steps=200, record_every=20)
# one compile per spec for every test (the spec is hashable; params share one structure)
run = jax.jit(mm.run, static_argnums=0)


def _params(**kw):
    return {k: jnp.asarray(v) for k, v in {**mm.DEFAULT_PARAMS, **kw}.items()}


def _numpy_reference(spec, p, key):
    """The module docstring's recursion in float64 numpy (σ = 0), ‖∇Φ(x̄)‖ every record_every."""
    inst = {
        k: np.asarray(v, float) for k, v in mm.instance(spec, p["hetero"], jax.random.fold_in(key, 0)).items()
    }
    W = spec.mixing
    B, c = inst["B"], inst["c"]
    a, amp = mm.CURVATURE, p["cos_amp"]
    L = max(a + amp, 1.0)
    mu = L / p["kappa"]
    r = p["r_scale"] * L if p["algo"] == 0 else 0.0
    beta = min(p["beta_scale"] * p["eta"] * r, 1.0)
    eta = p["eta"]

    def grads(X, Y):
        return (
            a * X - amp * np.sin(X) + np.einsum("nij,ni->nj", B, Y),
            np.einsum("nij,nj->ni", B, X) - c - mu * Y,
        )

    X = np.tile(inst["x0"], (spec.agents, 1))
    Y = np.zeros((spec.agents, spec.dim_y))
    Z, V = X.copy(), Y.copy()
    Dx, Dy = grads(X, Y)
    U, Om = Dx.copy(), Dy.copy()
    out = []
    for t in range(spec.steps):
        Z = Z + beta * (X - Z)
        V = V + beta * (Y - V)
        Xn = W @ X - eta * (U + r * (X - Z))
        Yn = W @ Y + eta * (Om - r * (Y - V))
        Gx, Gy = grads(Xn, Yn)
        U, Om = W @ U + Gx - Dx, W @ Om + Gy - Dy
        X, Y, Dx, Dy = Xn, Yn, Gx, Gy
        if (t + 1) % spec.record_every == 0:
            xb = X.mean(0)
            gphi = a * xb - amp * np.sin(xb) + inst["B_bar"].T @ (inst["B_bar"] @ xb - inst["c_bar"]) / mu
            out.append(np.linalg.norm(gphi))
    return np.array(out)


@pytest.mark.parametrize("algo", [0, 1])
def test_against_numpy_reference(algo):
    p = {**mm.DEFAULT_PARAMS, "algo": algo, "kappa": 10.0, "eta": 0.05}
    key = jax.random.key(3)
    ref = _numpy_reference(SPEC, p, key)
    got = np.asarray(run(SPEC, _params(**p), key)["grad_phi"], float)
    # float32 against float64 over 200 contracting steps; ∇Φ divides a residual by μ = L/10,
    # so the float32 rounding of x̄ (~1e-7 relative) shows up amplified ~10x
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=1e-4)
    assert ref[-1] < 0.5 * ref[0]  # the run moves: the comparison is not of two constants


def test_baseline_is_smoothing_off_bit_for_bit():
    # one compiled program, two calls: algo = d-sgda-gt, and algo = ds-gda with r = 0
    # (then β = 0 too): identical arithmetic, so identical bits by construction
    a = run(SPEC, _params(eta=0.05, algo=1), jax.random.key(0))
    b = run(SPEC, _params(eta=0.05, algo=0, r_scale=0.0), jax.random.key(0))
    for k in ("grad_phi", "consensus", "hit_step"):
        np.testing.assert_array_equal(np.asarray(a[k]), np.asarray(b[k]))
    # against D-SGDA-GT's update written out, on the same state: 0 unequal entries
    assert int(a["gt_dev"]) == 0
    smoothed = run(SPEC, _params(eta=0.05, algo=0), jax.random.key(0))
    assert int(smoothed["gt_dev"]) > 0


def test_storm_is_exact_without_noise():
    # σ = 0: d − ∇f = 0 at every step, so STORM's correction (1 − ρ)(d − ∇f) is exactly 0
    a = run(SPEC, _params(storm_rho=1.0), jax.random.key(1))
    b = run(SPEC, _params(storm_rho=0.3), jax.random.key(1))
    np.testing.assert_allclose(np.asarray(a["grad_phi"]), np.asarray(b["grad_phi"]), rtol=1e-6)


def test_instance_and_fixed_instance():
    inst = mm.instance(mm.MinimaxSpec(), 0.3, jax.random.key(5))
    np.testing.assert_allclose(np.asarray(inst["B"].mean(0)), np.asarray(inst["B_bar"]), atol=1e-6)
    np.testing.assert_allclose(np.asarray(inst["c"].mean(0)), np.asarray(inst["c_bar"]), atol=1e-6)
    assert float(jnp.linalg.norm(inst["B_bar"], 2)) == pytest.approx(1.0, abs=1e-5)
    # instance = k: the same problem whatever the lane key (only the noise differs)
    p = _params(instance=0, sigma=0.0)
    a = run(SPEC, p, jax.random.key(10))
    b = run(SPEC, p, jax.random.key(11))
    np.testing.assert_array_equal(np.asarray(a["grad_phi"]), np.asarray(b["grad_phi"]))


def test_divergence_is_recorded_not_raised():
    out = run(SPEC, _params(eta=3.0, algo=1, kappa=300.0), jax.random.key(0))
    assert int(out["diverged_step"]) >= 0
    assert bool(jnp.isnan(out["final_grad_phi"]))


def test_spec_checks_record_every():
    with pytest.raises(ValueError, match="multiple"):
        dataclasses.replace(SPEC, steps=210)
