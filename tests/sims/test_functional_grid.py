"""Grid helpers of :mod:`jaxtheory.sims.functional.grid` against float64 numpy references."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.functional import grid


def _np_blocks(x, factor):
    """(m, m, factor²) blocks of a square array, by explicit slicing (no reshape trick)."""
    n = x.shape[0]
    m = n // factor
    out = np.empty((m, m, factor * factor))
    for a in range(m):
        for b in range(m):
            out[a, b] = x[a * factor : (a + 1) * factor, b * factor : (b + 1) * factor].ravel()
    return out


@pytest.mark.parametrize("factor", [1, 2, 4, 8])
def test_block_mean_and_var_match_numpy(factor):
    x = np.random.default_rng(0).normal(size=(16, 16))
    blocks = _np_blocks(x, factor)
    # float32 on O(1) data: sums of ≤ 64 terms round at ~1e-6 relative
    np.testing.assert_allclose(
        grid.block_mean(jnp.asarray(x, jnp.float32), factor), blocks.mean(-1), atol=1e-5
    )
    np.testing.assert_allclose(grid.block_var(jnp.asarray(x, jnp.float32), factor), blocks.var(-1), atol=1e-5)


def test_block_helpers_reject_bad_shapes():
    with pytest.raises(ValueError, match="does not divide"):
        grid.block_mean(jnp.zeros((6, 6)), 4)
    with pytest.raises(ValueError, match="square"):
        grid.block_var(jnp.zeros((4, 8)), 2)
    with pytest.raises(ValueError, match="power of two"):
        grid.size_level(12)


def test_loss_identity_cell_stats_equal_direct_sum():
    # ½ mean_fine[(f − m)² + v] = ½ mean_eval (f − F)² for f constant on fine cells
    rng = np.random.default_rng(1)
    F = rng.normal(size=(32, 32))
    f = rng.normal(size=(8, 8))
    direct = 0.5 * np.mean((np.kron(f, np.ones((4, 4))) - F) ** 2)
    m = grid.block_mean(jnp.asarray(F), 4)
    v = grid.block_var(jnp.asarray(F), 4)
    via = 0.5 * float(jnp.mean((jnp.asarray(f) - m) ** 2 + v))
    assert abs(via - direct) <= 1e-5 * direct  # float32 sums of 1024 terms


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_coarsen_expand_roundtrip_and_cell_ids(level):
    size = 8
    x = np.random.default_rng(2).normal(size=(size, size))
    h = size >> level
    ref = _np_blocks(x, h).mean(-1)
    slots = jax.jit(grid.coarsen, static_argnums=2)(jnp.asarray(x, jnp.float32), level, size)
    np.testing.assert_allclose(slots[: 4**level], ref.ravel(), atol=1e-5)
    assert np.all(np.asarray(slots[4**level :]) == 0)
    fine = grid.expand(slots, level, size)
    np.testing.assert_allclose(fine, np.kron(ref, np.ones((h, h))), atol=1e-5)
    ids = np.asarray(grid.cell_ids(level, size))
    assert ids.max() == 4**level - 1
    assert np.array_equal(ids, np.kron(np.arange(4**level).reshape(2**level, 2**level), np.ones((h, h))))
    # level_means stacks the same projections
    lm = grid.level_means(jnp.asarray(x, jnp.float32))
    np.testing.assert_allclose(lm[level], fine, atol=1e-5)


def test_sample_cells_matches_numpy_loop():
    offs = np.random.default_rng(3).uniform(size=(8, 2)).astype(np.float32)

    def fn(x, y):
        return jnp.sin(7 * x) * jnp.cos(3 * y) + x * y

    level, size = 2, 8
    mean, var, valid = grid.sample_cells(fn, level, jnp.asarray(offs), size)
    n = 2**level
    ref_m, ref_v = [], []
    for a in range(n):
        for b in range(n):
            xs = (a + offs[:, 0].astype(np.float64)) / n
            ys = (b + offs[:, 1].astype(np.float64)) / n
            vals = np.sin(7 * xs) * np.cos(3 * ys) + xs * ys
            ref_m.append(vals.mean())
            ref_v.append(vals.var())
    assert int(valid.sum()) == n * n
    np.testing.assert_allclose(mean[: n * n], ref_m, atol=1e-5)
    np.testing.assert_allclose(var[: n * n], ref_v, atol=1e-5)
    assert np.all(np.asarray(mean[n * n :]) == 0)
    assert int(grid.sample_cost(level, 8)) == 8 * n * n
