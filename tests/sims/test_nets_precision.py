"""sims.nets.precision: per-primitive rounded cross-entropy against a float64 numpy reference.

The reference rounds with its own round-to-nearest-even (``np.frexp`` and ``np.round``,
gradual underflow) after every primitive, in the same order as the simulator: shift by
the maximum, exp, the sum of the non-maximal terms, 1 + that sum, divide, subtract the
one-hot (and the log-loss). jax computes each primitive in float32 before rounding, the
reference in float64: the two round the same real number unless it lies within a few
float32 ulps of a rounding boundary of the format (a probability of about 2^-13 per
value for bfloat16), so values agree to one ulp of the format everywhere and exactly on
all but a small fraction.
"""

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from jaxtheory.sims.nets import precision as pr

BITS = {"bf16": (8, 7), "fp16": (5, 10)}


def np_round(x, fmt):
    """Round float64 values to the format (nearest, ties to even; gradual underflow)."""
    e_bits, m_bits = BITS[fmt]
    x = np.asarray(x, np.float64)
    _, ex = np.frexp(x)  # |x| in [2^(ex-1), 2^ex)
    e = np.maximum(ex - 1, 2 - 2 ** (e_bits - 1))
    q = np.ldexp(1.0, e - m_bits)
    return np.round(x / q) * q


def np_ulp(x, fmt):
    e_bits, m_bits = BITS[fmt]
    _, ex = np.frexp(np.asarray(x, np.float64))
    return np.ldexp(1.0, np.maximum(ex - 1, 2 - 2 ** (e_bits - 1)) - m_bits)


def np_reference(z, y, fmt):
    """(per-sample loss, logit gradient g) rounded per primitive, float64."""
    r = lambda v: np_round(v, fmt)  # noqa: E731
    z = r(np.asarray(z, np.float64))
    top = np.argmax(z, axis=-1)
    d = r(z - z[np.arange(len(z)), top][:, None])
    e = r(np.exp(d))
    rest = e.copy()
    rest[np.arange(len(z)), top] = 0.0
    s = r(1.0 + r(rest.sum(-1, keepdims=True)))
    p = r(e / s)
    onehot = np.eye(z.shape[1])[y]
    g = r(p - onehot)
    loss = r(r(np.log(s))[:, 0] - d[np.arange(len(z)), y])
    return loss, g


def _logits(n=400, k=10, scale=4.0, seed=0):
    rng = np.random.default_rng(seed)
    z = (scale * rng.standard_normal((n, k))).astype(np.float32)
    y = rng.integers(0, k, n).astype(np.int32)
    z[np.arange(n), y] += rng.uniform(0, 24, n).astype(np.float32)  # many large gaps
    return z, y


@pytest.mark.parametrize("fmt", ["bf16", "fp16"])
def test_logit_gradient_matches_the_rounded_float64_reference(fmt):
    z, y = _logits()
    _, g_ref = np_reference(z, y, fmt)
    g = np.asarray(pr.logit_gradient(jnp.asarray(z), jnp.asarray(y), fmt), np.float64)
    # one ulp of the format (a value within float32 error of a rounding boundary may round
    # the other way, and the next primitive rounds again: two ulps), exact almost everywhere
    tol = 2 * np_ulp(np.abs(g_ref), fmt)
    assert np.all(np.abs(g - g_ref) <= tol)
    assert np.mean(g == g_ref) > 0.99
    # the exact zeros (absorption) agree one for one
    assert np.array_equal(g[np.arange(len(y)), y] == 0, g_ref[np.arange(len(y)), y] == 0)
    assert 0.1 < np.mean(g_ref[np.arange(len(y)), y] == 0) < 0.9


@pytest.mark.parametrize("fmt", ["bf16", "fp16"])
def test_rounding_per_primitive_is_what_is_tested(fmt):
    # the exact softmax rounded once differs from the per-primitive reference on many
    # values: the agreement above is not an accident of coarse rounding
    z, y = _logits()
    _, g_ref = np_reference(z, y, fmt)
    zr = np_round(z, fmt)
    p = np.exp(zr - zr.max(-1, keepdims=True))
    once = np_round(p / p.sum(-1, keepdims=True) - np.eye(z.shape[1])[y], fmt)
    assert np.mean(once != g_ref) > 0.05


@pytest.mark.parametrize("fmt", ["bf16", "fp16"])
def test_custom_vjp_is_the_rounded_gradient_over_n(fmt):
    z, y = _logits(n=256)
    loss_ref, g_ref = np_reference(z, y, fmt)
    val, dz = jax.value_and_grad(pr.cross_entropy)(jnp.asarray(z), jnp.asarray(y), fmt)
    # the batch size is a power of two: dividing by it is exact, so dz = g_ref / n up to
    # the same two format ulps
    dz = np.asarray(dz, np.float64)
    assert np.all(np.abs(dz - g_ref / 256) <= 2 * np_ulp(np.abs(g_ref), fmt) / 256)
    # the loss: the mean of per-sample losses, each rounded (sum rounded, then divided)
    ref = np_round(np_round(loss_ref.sum(), fmt) / 256, fmt)
    assert abs(float(val) - ref) <= 2 * np_ulp(ref, fmt)


def test_f32_gradient_equals_jax_grad():
    z, y = _logits(n=128, scale=2.0)
    z = jnp.asarray(z)

    def plain(z):
        return optax.softmax_cross_entropy_with_integer_labels(z, jnp.asarray(y)).mean()

    v0, g0 = jax.value_and_grad(plain)(z)
    v1, g1 = jax.value_and_grad(pr.cross_entropy)(z, jnp.asarray(y), "f32")
    # different float32 programs for the same real function: a few ulps of the values
    # (the gradient entries are at most 1/n, the loss O(1))
    eps = float(jnp.finfo(jnp.float32).eps)
    np.testing.assert_allclose(np.asarray(g1), np.asarray(g0), rtol=0, atol=16 * eps / 128)
    assert abs(float(v1) - float(v0)) <= 16 * eps * max(1.0, abs(float(v0)))


def test_round_to_bits_and_subnormals():
    x = jnp.asarray([1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, 1.0 + 2.0**-7, 65504.0, 3.1 * 2.0**-24], jnp.float32)
    assert np.asarray(pr.round_to(x, "bf16"))[:3].tolist() == [1.0, 1.0 + 2.0**-6, 1.0 + 2.0**-7]
    # float16 keeps its subnormals (multiples of 2^-24); reduce_precision alone flushes them
    assert float(pr.round_to(x, "fp16")[4]) == 3 * 2.0**-24
    assert float(jax.lax.reduce_precision(x[4], exponent_bits=5, mantissa_bits=10)) == 0.0
    assert float(pr.round_to(x, "fp16")[3]) == 65504.0
    # a traced format code selects the same rounding as the name
    for i, name in enumerate(pr.FORMAT_NAMES):
        assert np.array_equal(np.asarray(jax.jit(pr.round_to)(x, i)), np.asarray(pr.round_to(x, name)))
    with pytest.raises(ValueError, match="unknown format"):
        pr.round_to(x, "fp8")


@pytest.mark.parametrize("fmt", ["bf16", "fp16", "f32"])
@pytest.mark.parametrize("k", [2, 10, 100])
def test_absorption_threshold_equal_nontarget_logits(fmt, k):
    step = 0.01
    gaps = jnp.arange(0.0, 25.0, step, dtype=jnp.float32)
    z = jnp.zeros((gaps.size, k), jnp.float32).at[:, 0].set(gaps)
    y = jnp.zeros(gaps.size, jnp.int32)
    zero = np.asarray(pr.logit_gradient(z, y, fmt)[:, 0] == 0)
    first = int(np.argmax(zero))
    assert zero.any() and zero[first:].all()  # once absorbed, absorbed for every larger gap
    b = pr.significand_bits(fmt)
    expected = b * math.log(2) + math.log(k - 1)
    # the logit z_y = Δ is itself rounded to the format (half an ulp at Δ), and the grid
    # has spacing 0.01
    half_ulp = 2.0 ** (math.floor(math.log2(expected)) - (b - 1)) / 2
    assert abs(float(gaps[first]) - expected) <= step + half_ulp
    # on Δ_eff the threshold is b ln2 for every K, to the rounding of the terms e_j and
    # of their sum (relative 2^-b each: 2^(1-b) nats) and float32 logsumexp
    gap = np.asarray(pr.effective_gap(pr.round_to(z, fmt), y))
    slack = 2.0 ** (1 - b) + 1e-5
    assert gap[zero].min() >= b * math.log(2) - slack
    assert gap[~zero].max() <= b * math.log(2) + slack


def test_nfi_rate_against_the_double_sum():
    rng = np.random.default_rng(1)
    n, d, m, k, lr = 12, 3, 5, 4, 0.7
    x = rng.standard_normal((n, d))
    pre = rng.standard_normal((n, m))
    s = rng.uniform(0, 0.01, n)
    w = rng.standard_normal(m)
    M = (pre > 0).astype(float)
    S = s.mean()
    G = x @ x.T + 1.0
    B = np.array(
        [
            lr
            / (n**2 * S)
            * sum(s[i] * s[j] * G[i, j] * M[i, c] * M[j, c] for i in range(n) for j in range(n))
            for c in range(m)
        ]
    )
    u = w / np.linalg.norm(w)
    a = lr * S / k
    expected = math.sqrt(a * float(np.sum(u**2 * B)))
    got = float(pr.nfi_rate(*(jnp.asarray(v, jnp.float32) for v in (x, pre, s, w)), lr, k))
    assert got == pytest.approx(expected, rel=1e-5)


def test_run_smoke_shapes_and_no_absorption_in_f32():
    spec = pr.PrecisionSpec(n=64, steps=200, log_every=50)
    out = jax.jit(lambda k: pr.run(spec, dict(pr.DEFAULT_PARAMS, fmt=2), k))(jax.random.key(0))
    assert out["loss"].shape == (4,) and float(out["loss"][-1]) < float(out["loss"][0])
    assert int(out["n_absorbed"]) == 0 and float(out["min_gap_absorbed"]) == float(np.finfo(np.float32).max)
    assert float(out["max_drift"]) <= float(out["drift_bound"])
    spec_bad = dict(n=64, steps=200, log_every=30)
    with pytest.raises(ValueError, match="multiple"):
        pr.PrecisionSpec(**spec_bad)
    with pytest.raises(ValueError, match="modadd"):
        pr.PrecisionSpec(task="modadd", modulus=7)


def test_loss_side_zero_sum_fix():
    # absorbed samples: g_y = 0 exactly and the class sum s > 0; the projected gradient's
    # sum is zero to the rounding of the mean and the subtraction (K values of at most
    # one ulp of the format each, the largest |g| below 2^-b here)
    z, y = _logits()
    zj, yj = jnp.asarray(z), jnp.asarray(y)
    g = np.asarray(pr.logit_gradient(zj, yj, "bf16"), np.float64)
    absorbed = g[np.arange(len(y)), y] == 0
    assert np.all(g[absorbed].sum(-1) > 0)
    gf = np.asarray(pr.logit_gradient(zj, yj, "bf16", zero_sum=True), np.float64)
    resid = np.abs(gf[absorbed].sum(-1))
    assert np.all(resid <= z.shape[1] * np_ulp(np.abs(g[absorbed]).max(-1), "bf16"))
    assert np.median(resid / g[absorbed].sum(-1)) < 0.1


def test_jaxpr_rounds_explicitly_and_never_casts_to_the_format():
    # the format is emulated in the storage dtype: every rounding is a reduce_precision
    # and no array is ever bfloat16 or float16 (so XLA cannot keep excess precision)
    z, y = _logits(n=8)
    fn = jax.value_and_grad(lambda z: pr.cross_entropy(z, jnp.asarray(y), "bf16"))
    text = str(jax.make_jaxpr(fn)(jnp.asarray(z)))
    assert text.count("reduce_precision") >= 10
    assert "bf16" not in text and "f16" not in text
