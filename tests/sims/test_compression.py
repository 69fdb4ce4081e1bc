"""Sample compression on [0,1]²: the jnp schemes against a float64 numpy reference, the error
closed forms against Monte Carlo, the exact mean interval error against simulation."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from jaxtheory.sims.discrete import compression as cp

S = float(cp.SCALE)
MS = (3, 17, 40)  # prefixes of one draw of 40 points per coordinate
SPEC = cp.CompressionSpec(ms=MS)
_RUN = jax.jit(jax.vmap(cp.run, in_axes=(None, None, 0)), static_argnums=0)


def _tri_cdf(t):
    """P(x + y <= t), x, y i.i.d. uniform on [0, 1] (float64)."""
    t = np.clip(t, 0.0, 2.0)
    return np.where(t <= 1.0, t * t / 2, 1.0 - (2.0 - t) ** 2 / 2)


def _reference(x, y, params):
    """Float64 numpy brute force over all pairs: the tightest consistent hypotheses and their errors."""
    il, ih, jl, jh = (np.round(params[k] * S) / S for k in ("i_lo", "i_hi", "j_lo", "j_hi"))
    a = np.round(params["a"] * S) / S
    lab_box = ((x >= il) & (x <= ih))[:, None] & ((y >= jl) & (y <= jh))[None, :]
    ii, jj = np.nonzero(lab_box)
    if ii.size:
        bx = (x[ii].min(), x[ii].max(), y[jj].min(), y[jj].max())
        pred = ((x >= bx[0]) & (x <= bx[1]))[:, None] & ((y >= bx[2]) & (y <= bx[3]))[None, :]
        box_err = (ih - il) * (jh - jl) - (bx[1] - bx[0]) * (bx[3] - bx[2])  # Î×Ĵ ⊆ I×J
        size_box = len({*x[ii][[x[ii].argmin(), x[ii].argmax()]]}) + len(
            {*y[jj][[y[jj].argmin(), y[jj].argmax()]]}
        )
    else:
        pred, box_err, size_box = np.zeros_like(lab_box), (ih - il) * (jh - jl), 0
    s = x[:, None] + y[None, :]
    lab_half = s <= a
    a_hat = s[lab_half].max() if lab_half.any() else -1.0
    return {
        "error_intervals": box_err,
        "disagreements_intervals": int((pred != lab_box).sum()),
        "size_intervals": size_box,
        "error_half_graph": _tri_cdf(a) - _tri_cdf(a_hat),
        "disagreements_half_graph": int(((s <= a_hat) != lab_half).sum()),
        "size_half_graph": 2 if lab_half.any() else 0,
    }


@pytest.fixture(scope="module")
def cases():
    """Random targets (some with no positive pair at small m) on 16 lanes, run once under jit/vmap."""
    rng = np.random.default_rng(1)
    out = []
    for t in range(4):
        lo, hi = np.sort(rng.uniform(0, 1, 2)), np.sort(rng.uniform(0, 1, 2))
        params = {
            "a": float(rng.uniform(0.05, 1.95)),
            "i_lo": lo[0],
            "i_hi": lo[1],
            "j_lo": hi[0],
            "j_hi": hi[1],
        }
        if t == 0:  # a narrow box and a tiny threshold: empty reconstructions occur
            params = {"a": 0.02, "i_lo": 0.40, "i_hi": 0.45, "j_lo": 0.1, "j_hi": 0.12}
        keys = jax.random.split(jax.random.PRNGKey(t), 4)
        res = _RUN(SPEC, {k: jnp.float32(v) for k, v in params.items()}, keys)
        out.append((params, keys, jax.tree.map(np.asarray, res)))
    return out


def test_run_matches_float64_reference(cases):
    empty = 0
    for params, keys, res in cases:
        for lane, key in enumerate(keys):
            kx, ky = (np.asarray(v, np.float64) / S for v in cp.sample(key, SPEC.max_m))
            for i, m in enumerate(MS):
                ref = _reference(kx[:m], ky[:m], params)
                empty += ref["size_half_graph"] == 0
                for name in (
                    "disagreements_intervals",
                    "size_intervals",
                    "disagreements_half_graph",
                    "size_half_graph",
                ):
                    assert res[name][lane, i] == ref[name], (name, params, lane, m)
                # float32 from integer code differences against float64: a few float32 ulps of
                # the result (rtol 1e-5), plus 1e-7 absolute for the rounded grid lengths.
                for name in ("error_intervals", "error_half_graph"):
                    np.testing.assert_allclose(
                        res[name][lane, i], ref[name], rtol=1e-5, atol=1e-7, err_msg=name
                    )
    assert empty > 0  # the empty reconstruction was exercised


def test_reconstruction_consistent_and_sizes_bounded(cases):
    for _, _, res in cases:
        assert (res["disagreements_intervals"] == 0).all() and (res["disagreements_half_graph"] == 0).all()
        assert res["size_intervals"].max() <= cp.SIZE_BOUND["intervals"]
        assert res["size_half_graph"].max() <= cp.SIZE_BOUND["half-graph"]


def test_compression_uses_labels_only():
    """Compressing from labels, not the target: flipping one positive label changes the kept pair."""
    kx, ky = jnp.array([10, 50, 30]), jnp.array([5, 40])
    lab = cp.half_graph_labels(kx, ky, 60)  # positives: 15, 45, 55, 35 (50 + 40 = 90 is not)
    i, j, ok = cp.half_graph_compress(kx, ky, lab)
    assert (int(i), int(j), bool(ok)) == (1, 0, True)  # 50 + 5 = 55 is the largest positive sum
    i, j, _ = cp.half_graph_compress(kx, ky, lab.at[1, 0].set(False))
    assert (int(i), int(j)) == (0, 1)  # next largest 10 + 40 = 50


def test_box_error_against_monte_carlo():
    rng = np.random.default_rng(0)
    n = 400_000
    pts = rng.random((n, 2))
    q = cp.SCALE // 20  # box ends on multiples of 1/20: overlapping, nested, disjoint, empty

    def codes(b):
        return tuple(v * q for v in b)

    boxes = [
        (codes((2, 10, 3, 15)), codes((5, 14, 1, 12))),
        (codes((4, 8, 4, 8)), codes((2, 12, 3, 16))),
        (codes((0, 3, 0, 3)), codes((10, 20, 10, 20))),
        (cp._EMPTY_BOX, codes((6, 9, 1, 19))),
    ]
    for c1, c2 in boxes:
        got = float(cp.box_error(c1, c2))
        inside = [
            (pts[:, 0] >= c[0] / S)
            & (pts[:, 0] <= c[1] / S)
            & (pts[:, 1] >= c[2] / S)
            & (pts[:, 1] <= c[3] / S)
            for c in (c1, c2)
        ]
        p = float(np.mean(inside[0] != inside[1]))
        assert abs(got - p) <= 5 * np.sqrt(max(p * (1 - p), 1e-6) / n), (c1, c2, got, p)


def test_half_graph_error_against_monte_carlo():
    rng = np.random.default_rng(1)
    n = 400_000
    s = rng.random(n) + rng.random(n)
    for a_hat, a in ((0.3, 0.7), (0.8, 1.3), (1.2, 1.9), (1.5, 0.4), (-1.0 / S, 0.6)):
        got = float(cp.half_graph_error(int(round(a_hat * S)), int(round(a * S))))
        p = float(np.mean((s <= a_hat) != (s <= a)))
        assert abs(got - p) <= 5 * np.sqrt(p * (1 - p) / n), (a_hat, a, got, p)


def test_sum_mass_keeps_precision_for_tiny_gaps():
    """A gap of 7 codes at t = 0.9: mass = 7/S · (density 0.9 ± 7/S), far below float32 eps of G(0.9)."""
    hi = int(0.9 * S)
    got = float(cp.sum_mass(hi - 7, hi))
    want = (hi / S) ** 2 / 2 - ((hi - 7) / S) ** 2 / 2
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_expected_error_closed_form():
    # the whole square: E range of m uniforms is (m − 1)/(m + 1)
    for m in (1, 2, 9):
        assert cp.box_expected_error(m, (0.0, 1.0, 0.0, 1.0)) == pytest.approx(1 - ((m - 1) / (m + 1)) ** 2)
    # against a numpy simulation of the scheme (independent of the jnp code)
    rng = np.random.default_rng(2)
    m, trials, (il, ih, jl, jh) = 6, 40_000, (0.1, 0.5, 0.2, 0.9)
    x, y = rng.random((trials, m)), rng.random((trials, m))

    def rng_in(v, lo, hi):
        inside = (v >= lo) & (v <= hi)
        return np.where(
            inside.any(1), np.where(inside, v, -np.inf).max(1) - np.where(inside, v, np.inf).min(1), 0
        )

    err = (ih - il) * (jh - jl) - rng_in(x, il, ih) * rng_in(y, jl, jh)
    want = cp.box_expected_error(m, (il, ih, jl, jh))
    assert abs(err.mean() - want) <= 5 * err.std() / np.sqrt(trials)


def test_bad_input():
    with pytest.raises(ValueError, match="increasing"):
        cp.CompressionSpec(ms=(8, 8))
    with pytest.raises(ValueError, match=">= 2"):
        cp.CompressionSpec(ms=(1, 8))
    with pytest.raises(ValueError, match="46341"):
        cp.CompressionSpec(ms=(8, 50_000))
    with pytest.raises(ValueError, match="length"):
        cp.expected_range(4, 1.5)
