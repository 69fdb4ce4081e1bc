"""The Koopman simulators: the two-moons data against sklearn, a short MLP run, the linear case."""

import jax
import jax.numpy as jnp
import numpy as np
from sklearn.datasets import make_moons as sk_make_moons

from jaxtheory.sims import koopman as kp


def test_make_moons_is_sklearns_formula():
    x, y = kp.make_moons(101, 0.0, 3)
    xs, ys = sk_make_moons(101, noise=0.0, shuffle=False)
    # the same points and labels up to the shuffle (noise 0: the formula alone)
    ours = sorted(zip(np.round(x, 5).tolist(), y.tolist()))
    ref = sorted(zip(np.round(xs.astype(np.float32), 5).tolist(), ys.tolist()))
    assert ours == ref


def test_short_run_shapes_cost_and_safeguard():
    spec = kp.MoonsSpec(optimizer="adam", steps=160, period=80, log_every=40)
    params = {k: jnp.asarray(v) for k, v in kp.DEFAULT_PARAMS.items()}
    out = jax.jit(lambda p, k: kp.run(spec, p, k))(params, jax.random.PRNGKey(0))
    assert out["test_acc"].shape == (4,) and out["horizon"].shape == (2,)
    assert bool(jnp.isfinite(out["val_loss"]).all())
    # each attempt spends 2 to 1 + max_jumps held-out evaluations; cost = backprops + evaluations
    assert 2 * 2 <= int(out["n_evals"]) <= 2 * (1 + spec.max_jumps)
    assert int(out["cost"]) == 160 + int(out["n_evals"])
    assert bool((out["value"] <= out["value_backprop"]).all())
    # skipped steps are j* tau, cumulative
    assert int(out["skipped"][-1]) == int(out["horizon"].sum()) * int(params["tau"])


def test_linear_case_augmented_exact_params_only_not():
    e = kp.heavy_ball_dmd_errors(5, 24, seed=0)
    assert e["state_augmented"] < 1e-8
    assert e["params_only"] > 100 * e["params_augmented"]


def test_heavy_ball_trajectory_is_optax_heavy_ball():
    import optax

    from jaxtheory.optim._koopman import _pack

    traj = kp.heavy_ball_trajectory(20, dim=3, seed=2)
    H, xstar, x0 = kp.linear._problem(3, 100.0, 2)
    with jax.enable_x64(True):
        opt = optax.sgd(0.05, momentum=0.9)
        x = jnp.asarray(x0)
        st = opt.init(x)
        ref = [np.asarray(_pack(x, st)[0])]
        for _ in range(20):
            u, st = opt.update(jnp.asarray(H) @ (x - jnp.asarray(xstar)), st, x)
            x = optax.apply_updates(x, u)
            ref.append(np.asarray(_pack(x, st)[0]))
    # the same float64 recursion, different evaluation order of a 3 x 3 product: roundoff only
    np.testing.assert_allclose(traj, np.stack(ref), rtol=1e-13, atol=1e-13)
