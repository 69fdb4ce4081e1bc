"""Cross-entropy in emulated low precision, and the Slingshot feedback loop it drives.

Checks the mechanism of arXiv:2605.06152 (Liu, Cao, Li, Zhou, *Grokking or Glitching?
How Low-Precision Drives Slingshot Loss Spikes*): a max-subtracted softmax computes
:math:`p_y = 1/(1 + \\sum_{j\\ne y} e^{z_j - z_y})`; once that sum is at most half an
ulp of 1 in the format, the denominator rounds to exactly 1, :math:`g_y = p_y - 1 = 0`
while the small :math:`g_j = p_j` (:math:`j \\ne y`) stay representable, and the
zero-sum identity :math:`\\sum_j g_j = 0` of the logit gradient breaks. With
:math:`b` significand bits (7 + 1 for bfloat16, 10 + 1 for float16, 23 + 1 for
float32) that happens exactly when the effective gap

.. math::

    \\Delta_\\text{eff} = -\\log\\sum_{j \\ne y} e^{z_j - z_y} \\ge b \\ln 2

(rounding to nearest, ties to even); with equal non-target logits
:math:`\\Delta_\\text{eff} = \\Delta - \\ln(K - 1)`, so the first plain gap is
:math:`b\\ln 2 + \\ln(K-1)` (for :math:`K = 2` it is :math:`b\\ln 2`: 5.5, 7.6 and 16.6 for
:math:`b` = 8, 11 and 24).

:func:`cross_entropy` is a :func:`jax.custom_vjp` that rounds with
:func:`jax.lax.reduce_precision` after every primitive (forward and backward), so a
format's semantics do not depend on whether XLA keeps excess precision between fused
operations (XLA:CPU computes bfloat16 arithmetic in float32). Reductions (the softmax
denominator, the batch mean) accumulate in the storage dtype and are rounded once, as
fused hardware reductions do. :func:`run` trains a 2-layer ReLU MLP on Gaussian clusters
with full-batch SGD and logs the quantities of the feedback loop (the mean classifier
row :math:`\\bar w`, the mean feature :math:`\\bar h`, their cosine, the sum
:math:`s` of the logit gradient, and the predicted growth rate :math:`\\sqrt{ab}`, see
:func:`nfi_rate`).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import lax

from jaxtheory.optim import center_classifier_rows
from jaxtheory.simulator import Simulator
from jaxtheory.sweep.space import categorical

__all__ = [
    "FORMATS",
    "FORMAT_NAMES",
    "DEFAULT_PARAMS",
    "PrecisionSpec",
    "significand_bits",
    "absorption_threshold",
    "thresholds",
    "round_to",
    "logit_gradient",
    "cross_entropy",
    "effective_gap",
    "nfi_rate",
    "init_mlp",
    "TASKS",
    "make_clusters",
    "make_data",
    "CLASSIFIER_MASK",
    "run",
    "SIMULATOR",
]

#: The emulated formats: name -> (exponent bits, explicit mantissa bits), as
#: :func:`jax.lax.reduce_precision` takes them. A format is given by its name, or by its
#: code (index into :data:`FORMAT_NAMES`), which may be traced.
FORMATS = {"bf16": (8, 7), "fp16": (5, 10), "f32": (8, 23)}
#: Format names in code order (the ``fmt`` parameter of :func:`run` is a code).
FORMAT_NAMES = tuple(FORMATS)

#: Default of every parameter :func:`run` reads: ``fmt`` (code into
#: :data:`FORMAT_NAMES` of the logits' and loss's format), ``lr`` (SGD step), ``fix`` (the
#: fraction of the class mean :func:`~jaxtheory.optim.center_classifier_rows` removes
#: from the classifier's gradient: 0 plain SGD, 1 the zero-sum fix), ``spread`` (scale
#: of the cluster means) and ``noise`` (within-cluster standard deviation).
DEFAULT_PARAMS = {"fmt": 2, "lr": 0.5, "fix": 0.0, "spread": 1.0, "noise": 0.5}


def _format(fmt: str) -> tuple[int, int]:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected one of {sorted(FORMATS)}")
    return FORMATS[fmt]


def significand_bits(fmt: str) -> int:
    """The significand precision :math:`b` of a format (explicit mantissa bits + 1).

    Args:
        fmt: a key of :data:`FORMATS`.

    Returns:
        :math:`b`: 8 for ``"bf16"``, 11 for ``"fp16"``, 24 for ``"f32"``.

    Example:
        >>> [significand_bits(f) for f in ("bf16", "fp16", "f32")]
        [8, 11, 24]
    """
    return _format(fmt)[1] + 1


def absorption_threshold(fmt: str) -> float:
    """The effective gap :math:`b\\ln 2` at and above which :math:`g_y` rounds to exactly 0.

    Args:
        fmt: a key of :data:`FORMATS`.

    Returns:
        :math:`b \\ln 2` in nats.

    Example:
        >>> round(absorption_threshold("bf16"), 3), round(absorption_threshold("f32"), 3)
        (5.545, 16.636)
    """
    return significand_bits(fmt) * math.log(2.0)


def thresholds(fmt) -> jax.Array:
    """:func:`absorption_threshold` of a format given by name or (traced) code.

    Args:
        fmt: a key of :data:`FORMATS` or a code into :data:`FORMAT_NAMES`.

    Returns:
        :math:`b\\ln 2` as a float32 scalar.

    Example:
        >>> round(float(thresholds(1)), 4)
        7.6246
    """
    table = jnp.asarray([absorption_threshold(f) for f in FORMAT_NAMES], jnp.float32)
    return table[_code(fmt)]


def round_to(x: jax.Array, fmt) -> jax.Array:
    """Rounds ``x`` to the format's precision and range, keeping its dtype.

    :func:`jax.lax.reduce_precision` rounds to nearest (ties to even) but flushes the
    format's subnormals to zero; IEEE formats (and accelerators' float16) underflow
    gradually, so values below the format's smallest normal are rounded here to
    multiples of its smallest subnormal (float16: :math:`2^{-24}`). bfloat16 and
    float32 share float32's exponent range, whose subnormals XLA:CPU flushes anyway.

    Args:
        x: a floating array (float32, or float64 under x64).
        fmt: a key of :data:`FORMATS`, or a code into :data:`FORMAT_NAMES` (may be traced).

    Returns:
        ``x`` rounded to nearest (ties to even) in the format, same dtype as ``x``.

    Example:
        >>> float(round_to(jnp.float32(1.0 + 2.0**-8), "bf16")), float(round_to(jnp.float32(1.01), "bf16"))
        (1.0, 1.0078125)
        >>> float(round_to(jnp.float32(3.1 * 2.0**-24), "fp16")) == 3 * 2.0**-24
        True
    """
    if not isinstance(fmt, str):
        code = jnp.asarray(fmt)
        out = _round_named(x, FORMAT_NAMES[-1])
        for i, name in enumerate(FORMAT_NAMES[:-1]):
            out = jnp.where(code == i, _round_named(x, name), out)
        return out
    return _round_named(x, fmt)


def _round_named(x: jax.Array, fmt: str) -> jax.Array:
    e, m = _format(fmt)
    r = lax.reduce_precision(x, exponent_bits=e, mantissa_bits=m)
    smallest_normal = 2.0 ** (2 - 2 ** (e - 1))
    if smallest_normal > float(jnp.finfo(x.dtype).tiny):
        quantum = smallest_normal * 2.0**-m  # the format's smallest subnormal (a power of two)
        sub = jnp.round(x / quantum) * quantum  # exact scalings; jnp.round rounds half to even
        r = jnp.where(jnp.abs(x) < smallest_normal, sub.astype(x.dtype), r)
    return r


def _softmax_parts(z: jax.Array, y: jax.Array, fmt):
    r"""Rounded max-subtracted softmax: (shifted logits d, probabilities p, log-denominator).

    The denominator is defined as :math:`1 + \sum_{j \ne j^*} e^{d_j}` (the maximum's
    term, exactly 1, added to the sum of the others): adding the terms one by one to 1
    would absorb each term below half an ulp separately, a threshold on the largest
    term rather than on their sum, and which one XLA computes depends on its reduction
    order (measured on jax 0.9.2 CPU in float32, K = 10: term by term; K = 100: neither).
    """
    r = functools.partial(round_to, fmt=fmt)
    zr = r(z)
    top = jnp.argmax(zr, axis=-1)
    d = r(zr - jnp.take_along_axis(zr, top[..., None], axis=-1))
    e = r(jnp.exp(d))
    others = jnp.where(jax.nn.one_hot(top, z.shape[-1], dtype=bool), 0.0, e)
    s = r(1.0 + r(jnp.sum(others, axis=-1, keepdims=True)))
    p = r(e / s)
    return d, p, r(jnp.log(s))


def logit_gradient(z: jax.Array, y: jax.Array, fmt, zero_sum: bool = False) -> jax.Array:
    """The per-sample logit gradient :math:`g = \\mathrm{softmax}(z) - e_y`, rounded per primitive.

    Args:
        z: logits ``(..., K)``.
        y: integer labels ``(...)``.
        fmt: a key of :data:`FORMATS`, or a code into :data:`FORMAT_NAMES` (may be traced).
        zero_sum: project onto :math:`\\sum_j g_j = 0` (the loss-side fix,
            :math:`g \\leftarrow g - \\tfrac1K\\sum_j g_j`), rounded too.

    Returns:
        ``g`` of the shape and dtype of ``z`` (not divided by the batch size).

    Example:
        >>> g = logit_gradient(jnp.array([[6.0, 0.0]]), jnp.array([0]), "bf16")
        >>> float(g[0, 0]), float(g[0, 1]) > 0
        (0.0, True)
    """
    r = functools.partial(round_to, fmt=fmt)
    _, p, _ = _softmax_parts(z, y, fmt)
    onehot = jax.nn.one_hot(y, z.shape[-1], dtype=z.dtype)
    g = r(p - onehot)
    if zero_sum:
        g = r(g - r(r(jnp.sum(g, axis=-1, keepdims=True)) / z.shape[-1]))
    return g


def _code(fmt) -> jax.Array:
    if isinstance(fmt, str):
        _format(fmt)
        return jnp.int32(FORMAT_NAMES.index(fmt))
    return jnp.asarray(fmt, jnp.int32)


def cross_entropy(z: jax.Array, y: jax.Array, fmt="f32", zero_sum: bool = False) -> jax.Array:
    """Mean cross-entropy of logits ``z`` with labels ``y``, every primitive rounded to ``fmt``.

    The gradient (a :func:`jax.custom_vjp`) is :func:`logit_gradient` (rounded per
    primitive) times the cotangent over the batch size, that scaling in the storage
    dtype (as loss scaling keeps float16 gradients from underflowing); it flows straight
    through the rounding of the logits themselves. Everything upstream of the logits
    keeps the storage dtype.

    Args:
        z: logits ``(n, K)``.
        y: integer labels ``(n,)``.
        fmt: a key of :data:`FORMATS`, or a code into :data:`FORMAT_NAMES` (may be traced).
        zero_sum: the loss-side zero-sum fix in the gradient (static), see
            :func:`logit_gradient`.

    Returns:
        The rounded mean loss, a scalar of the dtype of ``z``.

    Example:
        >>> z, y = jnp.array([[2.0, 0.0, -1.0]]), jnp.array([0])
        >>> abs(float(cross_entropy(z, y, "f32")) - math.log(1 + math.exp(-2) + math.exp(-3))) < 1e-6
        True
    """
    return _cross_entropy(z, y, _code(fmt), bool(zero_sum))


@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def _cross_entropy(z, y, code, zero_sum):
    r = functools.partial(round_to, fmt=code)
    d, _, log_s = _softmax_parts(z, y, code)
    d_y = jnp.take_along_axis(d, y[..., None].astype(jnp.int32), axis=-1)
    per = r(log_s - d_y)[..., 0]
    return r(r(jnp.sum(per)) / per.shape[0])


def _ce_fwd(z, y, code, zero_sum):
    return _cross_entropy(z, y, code, zero_sum), (z, y, code)


def _ce_bwd(zero_sum, res, ct):
    z, y, code = res
    g = logit_gradient(z, y, code, zero_sum)
    # the batch mean's 1/n (and the cotangent) scale in the storage dtype, as loss scaling
    # does in float16 training: g_j / n in float16 would underflow for n = 512
    return g * (ct.astype(z.dtype) / z.shape[0]), None, None


_cross_entropy.defvjp(_ce_fwd, _ce_bwd)


def effective_gap(z: jax.Array, y: jax.Array) -> jax.Array:
    """:math:`\\Delta_\\text{eff} = -\\log\\sum_{j\\ne y} e^{z_j - z_y}` per sample, in the dtype of ``z``.

    Args:
        z: logits ``(..., K)`` (pass the format-rounded logits to judge absorption).
        y: integer labels ``(...)``.

    Returns:
        ``(...)``; with equal non-target logits it is :math:`\\Delta - \\ln(K-1)`.

    Example:
        >>> round(float(effective_gap(jnp.array([5.0, 0.0, 0.0]), jnp.array(0))), 4)
        4.3069
    """
    z_y = jnp.take_along_axis(z, y[..., None].astype(jnp.int32), axis=-1)
    others = jnp.where(jax.nn.one_hot(y, z.shape[-1], dtype=bool), -jnp.inf, z - z_y)
    return -jax.nn.logsumexp(others, axis=-1)


def nfi_rate(x: jax.Array, pre: jax.Array, s: jax.Array, w_bar: jax.Array, lr, classes: int) -> jax.Array:
    """The linearised growth rate :math:`\\sqrt{ab}` of numerical feature inflation, per SGD step.

    For :math:`h_i = \\mathrm{relu}(V^\\top x_i + c_1)`, :math:`z_i = W^\\top h_i + c`
    and mean loss :math:`L = \\frac1n\\sum_i \\ell_i` with logit gradients :math:`g_i`,
    :math:`s_i = \\sum_j g_{ij}`: the mean classifier row moves by
    :math:`\\bar w^+ = \\bar w - a\\,\\tilde h`, :math:`a = \\eta S/K`,
    :math:`S = \\frac1n\\sum_i s_i`, :math:`\\tilde h = \\sum_i s_i h_i / \\sum_i s_i`.
    The part :math:`(s_i/n)\\bar w` of :math:`\\partial L/\\partial h_i` moves
    :math:`V, c_1` and so, to first order, :math:`\\tilde h^+ = \\tilde h - B\\bar w`
    with :math:`B = \\mathrm{diag}_j\\,\\eta(\\lVert r_j\\rVert^2 + t_j^2)/(n^2 S)`,
    :math:`r_j = \\sum_i s_i M_{ij} x_i`, :math:`t_j = \\sum_i s_i M_{ij}`,
    :math:`M_{ij} = 1[\\text{pre}_{ij} > 0]`. Along :math:`u = \\bar w/\\lVert\\bar w\\rVert`
    with :math:`b = u^\\top B u`, the pair :math:`(\\lVert\\bar w\\rVert, -u^\\top\\tilde h)`
    evolves by :math:`\\begin{pmatrix}1 & a\\\\ b & 1\\end{pmatrix}`, eigenvalues
    :math:`1 \\pm \\sqrt{ab}`: log-norm growth :math:`\\log(1 + \\sqrt{ab})` per step, with
    :math:`ab = \\eta^2 \\sum_j u_j^2(\\lVert r_j\\rVert^2 + t_j^2)/(K n^2)` (:math:`S`
    cancels).

    Args:
        x: inputs ``(n, d)``.
        pre: hidden pre-activations ``(n, m)``.
        s: per-sample sums of the logit gradient ``(n,)``.
        w_bar: the mean classifier row ``(m,)``.
        lr: the SGD step :math:`\\eta`.
        classes: :math:`K`.

    Returns:
        :math:`\\sqrt{ab}` (a scalar, 0 when :math:`s = 0`).

    Example:
        >>> x, pre = jnp.ones((2, 1)), jnp.ones((2, 1))
        >>> round(float(nfi_rate(x, pre, jnp.array([1.0, 1.0]), jnp.array([1.0]), 1.0, 1)), 4)  # sqrt(8) / 2
        1.4142
    """
    n = x.shape[0]
    sm = s[:, None] * (pre > 0).astype(x.dtype)  # (n, m)
    r2 = jnp.sum(jnp.square(x.T @ sm), axis=0) + jnp.square(jnp.sum(sm, axis=0))  # (m,)
    u2 = jnp.square(w_bar) / jnp.maximum(jnp.sum(jnp.square(w_bar)), jnp.finfo(x.dtype).tiny)
    return lr * jnp.sqrt(jnp.sum(u2 * r2) / classes) / n


#: The tasks of :class:`PrecisionSpec`: Gaussian clusters, or modular addition
#: :math:`(a + b) \\bmod p` with one-hot inputs (the Thilak et al. / grokking setting).
TASKS = ("clusters", "modadd")


@dataclasses.dataclass(frozen=True)
class PrecisionSpec:
    """What fixes the shapes of a run (the compile key).

    Attributes:
        n: training points (for ``"modadd"`` a random subset of the :math:`p^2` pairs).
        dim: input dimension (``"modadd"``: :math:`2p`).
        classes: :math:`K` (``"modadd"``: :math:`p`).
        width: hidden width :math:`m`.
        steps: full-batch SGD steps.
        log_every: steps between logged values (``steps`` must be a multiple).
        task: one of :data:`TASKS`.
        modulus: :math:`p` of ``"modadd"``.
    """

    n: int = 512
    dim: int = 32
    classes: int = 10
    width: int = 128
    steps: int = 5000
    log_every: int = 25
    task: str = "clusters"
    modulus: int = 97

    def __post_init__(self):
        if self.steps % self.log_every:
            raise ValueError(f"steps ({self.steps}) must be a multiple of log_every ({self.log_every})")
        if self.task not in TASKS:
            raise ValueError(f"unknown task {self.task!r}; expected one of {TASKS}")
        p = self.modulus
        if self.task == "modadd" and (self.dim != 2 * p or self.classes != p or self.n > p * p):
            raise ValueError(f"modadd with p = {p} needs dim = {2 * p}, classes = {p} and n <= {p * p}")


def make_data(spec: PrecisionSpec, spread, noise, key: jax.Array):
    """The training set of ``spec.task``: :func:`make_clusters`, or modular addition pairs.

    Args:
        spec: a :class:`PrecisionSpec`.
        spread, noise: the clusters' parameters (ignored by ``"modadd"``).
        key: PRNG key.

    Returns:
        ``(x (n, dim), y (n,) int32)``.

    Example:
        >>> spec = PrecisionSpec(task="modadd", modulus=5, dim=10, classes=5, n=12)
        >>> x, y = make_data(spec, 1.0, 0.5, jax.random.key(0))
        >>> x.shape, bool(jnp.all(y == (jnp.argmax(x[:, :5], 1) + jnp.argmax(x[:, 5:], 1)) % 5))
        ((12, 10), True)
    """
    if spec.task == "clusters":
        return make_clusters(spec, spread, noise, key)
    p = spec.modulus
    pairs = jax.random.permutation(key, p * p)[: spec.n]
    a, b = pairs // p, pairs % p
    x = jnp.concatenate([jax.nn.one_hot(a, p), jax.nn.one_hot(b, p)], axis=-1)
    return x, ((a + b) % p).astype(jnp.int32)


def make_clusters(spec: PrecisionSpec, spread, noise, key: jax.Array):
    """``spec.n`` points of ``spec.classes`` Gaussian clusters (balanced labels).

    Args:
        spec: a :class:`PrecisionSpec`.
        spread: scale of the cluster means (means :math:`\\sim N(0, \\text{spread}^2 I)`).
        noise: within-cluster standard deviation.
        key: PRNG key.

    Returns:
        ``(x (n, dim), y (n,) int32)``.

    Example:
        >>> x, y = make_clusters(PrecisionSpec(n=20, classes=4), 1.0, 0.1, jax.random.key(0))
        >>> x.shape, [int((y == k).sum()) for k in range(4)]
        ((20, 32), [5, 5, 5, 5])
    """
    k_mu, k_x = jax.random.split(key)
    mu = spread * jax.random.normal(k_mu, (spec.classes, spec.dim))
    y = jnp.arange(spec.n, dtype=jnp.int32) % spec.classes
    x = mu[y] + noise * jax.random.normal(k_x, (spec.n, spec.dim))
    return x, y


def init_mlp(spec: PrecisionSpec, key: jax.Array) -> dict:
    """He-initialised 2-layer ReLU MLP: ``V (dim, m)``, ``c1 (m,)``, ``W (m, K)``, ``c (K,)``.

    Args:
        spec: a :class:`PrecisionSpec`.
        key: PRNG key.

    Returns:
        The parameter dict; logits are ``relu(x V + c1) W + c`` (class axis last).

    Example:
        >>> p = init_mlp(PrecisionSpec(width=8, classes=3), jax.random.key(0))
        >>> {k: v.shape for k, v in p.items()}
        {'V': (32, 8), 'c1': (8,), 'W': (8, 3), 'c': (3,)}
    """
    kv, kw = jax.random.split(key)
    return {
        "V": jax.random.normal(kv, (spec.dim, spec.width)) * math.sqrt(2.0 / spec.dim),
        "c1": jnp.zeros((spec.width,)),
        "W": jax.random.normal(kw, (spec.width, spec.classes)) / math.sqrt(spec.width),
        "c": jnp.zeros((spec.classes,)),
    }


_UNIT_ROUNDOFF = 2.0**-24  # float32, round to nearest
_BIG = float(jnp.finfo(jnp.float32).max)  # "no such sample" (finite: the sweep flags inf as divergence)

#: Which parameters the zero-sum fix centres (the classifier: its class axis is last).
CLASSIFIER_MASK = {"V": False, "c1": False, "W": True, "c": True}


def run(spec: PrecisionSpec, params: dict, key: jax.Array) -> dict:
    """Full-batch SGD on Gaussian clusters with logits and loss in an emulated format; pure and vmappable.

    Args:
        spec: a :class:`PrecisionSpec`.
        params: ``fmt``, ``lr``, ``fix``, ``spread``, ``noise`` (see
            :data:`DEFAULT_PARAMS`); scalars, may be traced.
        key: the lane's PRNG key (data and initialisation).

    Returns:
        Per logged step (``steps // log_every`` values, after every ``log_every``
        steps): ``loss``, ``absorbed`` (fraction of samples with :math:`g_y = 0`
        exactly), ``s_mean`` (:math:`\\frac1n\\sum_i s_i`), ``wbar_norm``, ``hbar_norm``,
        ``cos_wh`` (:math:`\\cos(\\bar w, \\bar h)`), ``drift``
        (:math:`\\lVert\\bar w - \\bar w_0\\rVert`), ``rate`` (:func:`nfi_rate`),
        ``max_logit`` (largest :math:`|z|`), ``cos_drift_h``
        (:math:`\\cos(\\bar w - \\bar w_0, \\bar h)`); over the whole run, from every step:
        ``min_gap_absorbed`` (smallest :math:`\\Delta_\\text{eff}` of a sample with
        :math:`g_y = 0`; the float32 maximum if none), ``max_gap_live`` (largest
        :math:`\\Delta_\\text{eff}` of a sample with :math:`g_y \\ne 0`; minus that if none), ``n_absorbed``
        and ``n_above`` (sample-steps with :math:`g_y = 0`, and with
        :math:`\\Delta_\\text{eff} \\ge b\\ln 2 + 0.5`), ``max_drift``
        (:math:`\\max_t\\lVert\\bar w(t) - \\bar w_0\\rVert`) and ``drift_bound``: the
        float32 rounding :math:`\\bar w` may accumulate when every update sums to zero
        over the classes in exact arithmetic, :math:`u\\sum_t\\lVert\\frac1K\\sum_j
        (|W_j(t+1)| + 2(K+2)|\\Delta W_j(t)|)\\rVert + 2Ku\\lVert\\frac1K\\sum_j|W_j(0)|\\rVert`
        with :math:`u = 2^{-24}`: storing :math:`W + \\Delta W` rounds each entry by at most
        :math:`u|W_j(t+1)|`, the centred update's class sum is at most about
        :math:`2(K+2)u\\sum_j|\\Delta W_j|` (the mean, the subtraction and the step each
        round), and measuring :math:`\\bar w` rounds by :math:`Ku` of the row magnitudes.

    Example:
        >>> out = run(PrecisionSpec(n=40, steps=20, log_every=10), dict(DEFAULT_PARAMS, fmt=0), jax.random.key(0))
        >>> out["loss"].shape, bool(out["loss"][-1] < out["loss"][0])
        ((2,), True)
    """
    k_data, k_init = jax.random.split(key)
    x, y = make_data(spec, params["spread"], params["noise"], k_data)
    theta = init_mlp(spec, k_init)
    opt = optax.chain(center_classifier_rows(params["fix"], mask=CLASSIFIER_MASK), optax.sgd(params["lr"]))
    fmt, K = _code(params["fmt"]), spec.classes
    upper = thresholds(fmt) + 0.5
    w_bar0 = jnp.mean(theta["W"], axis=-1)

    def forward(th):
        pre = x @ th["V"] + th["c1"]
        h = jax.nn.relu(pre)
        return pre, h, h @ th["W"] + th["c"]

    def loss_fn(th):
        _, _, z = forward(th)
        return cross_entropy(z, y, fmt), z

    def step(carry, _):
        th, st, acc = carry
        (_, z), grads = jax.value_and_grad(loss_fn, has_aux=True)(th)
        g = logit_gradient(z, y, fmt)
        gap = effective_gap(round_to(z, fmt), y)
        absorbed = jnp.take_along_axis(g, y[:, None], axis=-1)[:, 0] == 0
        acc = {
            "min_gap_absorbed": jnp.minimum(acc["min_gap_absorbed"], jnp.min(jnp.where(absorbed, gap, _BIG))),
            "max_gap_live": jnp.maximum(acc["max_gap_live"], jnp.max(jnp.where(absorbed, -_BIG, gap))),
            "n_absorbed": acc["n_absorbed"] + jnp.sum(absorbed),
            "n_above": acc["n_above"] + jnp.sum(gap >= upper),
            "max_drift": jnp.maximum(acc["max_drift"], jnp.linalg.norm(jnp.mean(th["W"], axis=-1) - w_bar0)),
            "drift_bound": acc["drift_bound"],
        }
        upd, st = opt.update(grads, st, th)
        new = optax.apply_updates(th, upd)
        # worst-case float32 rounding of w-bar in this step (see the Returns section)
        per_coord = jnp.mean(jnp.abs(new["W"]) + 2 * (K + 2) * jnp.abs(upd["W"]), axis=-1)
        acc["drift_bound"] = acc["drift_bound"] + _UNIT_ROUNDOFF * jnp.linalg.norm(per_coord)
        return (new, st, acc), None

    def diagnostics(th):
        pre, h, z = forward(th)
        g = logit_gradient(z, y, fmt)
        w_bar, h_bar = jnp.mean(th["W"], axis=-1), jnp.mean(h, axis=0)
        wn, hn = jnp.linalg.norm(w_bar), jnp.linalg.norm(h_bar)
        s = jnp.sum(g, axis=-1)
        return {
            "loss": cross_entropy(z, y, fmt),
            "absorbed": jnp.mean(
                (jnp.take_along_axis(g, y[:, None], axis=-1)[:, 0] == 0).astype(jnp.float32)
            ),
            "s_mean": jnp.mean(s),
            "wbar_norm": wn,
            "hbar_norm": hn,
            "cos_wh": jnp.dot(w_bar, h_bar) / jnp.maximum(wn * hn, jnp.finfo(jnp.float32).tiny),
            "drift": jnp.linalg.norm(w_bar - w_bar0),
            "cos_drift_h": jnp.dot(w_bar - w_bar0, h_bar)
            / jnp.maximum(jnp.linalg.norm(w_bar - w_bar0) * hn, jnp.finfo(jnp.float32).tiny),
            "rate": nfi_rate(x, pre, s, w_bar, params["lr"], K),
            "max_logit": jnp.max(jnp.abs(round_to(z, fmt))),
        }

    def block(carry, _):
        carry, _ = lax.scan(step, carry, None, length=spec.log_every)
        return carry, diagnostics(carry[0])

    acc0 = {
        "min_gap_absorbed": jnp.float32(_BIG),
        "max_gap_live": jnp.float32(-_BIG),
        "n_absorbed": jnp.int32(0),
        "n_above": jnp.int32(0),
        "max_drift": jnp.float32(0.0),
        "drift_bound": jnp.float32(0.0),
    }
    (_, _, acc), logs = lax.scan(
        block, (theta, opt.init(theta), acc0), None, length=spec.steps // spec.log_every
    )
    # measuring w-bar (a mean of K rows) at t and at 0 rounds too
    acc["drift_bound"] = acc["drift_bound"] + 2 * K * _UNIT_ROUNDOFF * jnp.linalg.norm(
        jnp.mean(jnp.abs(theta["W"]), -1)
    )
    return {**logs, **acc}


#: The simulator's declaration: an experiment names it instead of restating it. ``fmt``
#: is categorical over :data:`FORMAT_NAMES`; the curves are logged every ``log_every`` steps.
SIMULATOR = Simulator(
    run,
    spec=PrecisionSpec(),
    params={**DEFAULT_PARAMS, "fmt": categorical(*FORMAT_NAMES)},
    metric_dims={
        k: ("step",)
        for k in (
            "loss",
            "absorbed",
            "s_mean",
            "wbar_norm",
            "hbar_norm",
            "cos_wh",
            "drift",
            "rate",
            "max_logit",
            "cos_drift_h",
        )
    },
    coords=lambda spec: {"step": np.arange(1, spec.steps // spec.log_every + 1) * spec.log_every},
)
