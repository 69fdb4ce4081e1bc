"""Kernel-regression FGD on the kd-tree (:mod:`jaxtheory.sims.functional.kdtree`) against numpy."""

import jax
import numpy as np
import pytest

from jaxtheory.sims.functional import kdtree as kd


def test_axis_splits_match_widest_side_midpoint_splitting():
    # split a box of the unit cube at the midpoint of its widest side (ties: first axis)
    sides = np.ones(3)
    for depth in range(1, 19):
        j = int(np.argmax(sides))  # argmax returns the first of tied maxima
        sides[j] /= 2
        assert np.array_equal(2.0 ** -np.asarray(kd.axis_splits(depth)), sides), depth


def _data(spec, seed):
    kx, kt = jax.random.split(jax.random.key(seed))
    x = np.asarray(jax.random.uniform(kx, (spec.n_train, 3)), np.float64)
    xt = np.asarray(jax.random.uniform(kt, (spec.n_test, 3)), np.float64)
    lab = lambda p: (np.sin(6 * p[:, 0]) + p[:, 1] * p[:, 2] > 0.3).astype(float)  # noqa: E731
    return x, lab(x), xt, lab(xt)


@pytest.mark.parametrize("depth", [2, 5])
def test_first_step_matches_bruteforce_kernel_gradient(depth):
    spec = kd.KernelSpec(n_train=300, n_test=200, max_depth=6, epochs=1)
    lr = 10.0
    code = kd.SCHEMES.index(f"depth{depth}") if f"depth{depth}" in kd.SCHEMES else None
    if code is None:  # an odd depth: an adaptive run capped there refines from 2 to the cap
        spec = kd.KernelSpec(n_train=300, n_test=200, max_depth=depth, epochs=1)
        code = kd.SCHEMES.index("eps0.5")
    out = jax.jit(lambda k: kd.run(spec, {"lr": lr, "scheme": code}, k))(jax.random.key(3))
    assert int(out["depth"][0]) == depth
    x, y, xt, yt = _data(spec, 3)
    k = np.asarray(kd.axis_splits(depth))
    n = 2**k

    def leaf_centre(p):
        idx = np.minimum(np.floor(p * n), n - 1)
        return (idx + 0.5) / n

    def f1(p):  # f = 0 − lr · ∇L(0)(centre) with ∇L(0)(c) = (1/n) Σ_i (0 − y_i) k(x_i, c)
        c = leaf_centre(p)
        kern = np.exp(-spec.gamma * ((c[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        return lr * (kern * y[None, :]).mean(1)

    want_train = 0.5 * np.mean((f1(x) - y) ** 2)
    want_test = 0.5 * np.mean((f1(xt) - yt) ** 2)
    # float32 kernel sums over 300 points: ~1e-6 relative
    assert float(out["train_loss"][0]) == pytest.approx(want_train, rel=1e-4)
    assert float(out["test_loss"][0]) == pytest.approx(want_test, rel=1e-4)
    assert float(out["loss0_train"]) == pytest.approx(0.5 * np.mean(y**2), rel=1e-6)


def test_adaptive_depth_monotone_and_cost_counts_kernel_evaluations():
    spec = kd.KernelSpec(n_train=200, n_test=100, max_depth=8, epochs=5)
    out = jax.jit(lambda k: kd.run(spec, {"lr": 10.0, "scheme": 0}, k))(jax.random.key(0))
    depth = np.asarray(out["depth"])
    assert np.all(np.diff(depth) >= 0) and depth.max() <= 8
    inc = np.diff(np.r_[0.0, np.asarray(out["cost"], np.float64)])
    assert np.all(inc >= 200 * 2.0**depth)
    with pytest.raises(ValueError, match="unknown scheme"):
        kd.scheme_table("depth3")
    with pytest.raises(ValueError, match="max_depth"):
        kd.KernelSpec(max_depth=30)
