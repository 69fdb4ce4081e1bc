"""Sample compression of binary relations on :math:`[0,1]^2` (k = 2), with exact error masses.

The high-arity (here 2-ary) setting of arXiv:2605.12465: a hypothesis is a relation
:math:`F: X \\times Y \\to \\{0, 1\\}`; the learner draws ``m`` points per coordinate,
:math:`x_1..x_m \\sim \\mu_1`, :math:`y_1..y_m \\sim \\mu_2` (both uniform on
:math:`[0,1]`), and sees the label of every one of the :math:`m^2` pairs
:math:`(x_i, y_j)`. A compression scheme keeps a few sample points from which every
label is reconstructed. Two classes:

* **products of intervals** :math:`F(x, y) = 1[x \\in I]\\,1[y \\in J]`: keep the
  smallest and largest :math:`x` and :math:`y` of the positive pairs (at most 4
  points); the reconstruction is their bounding box :math:`\\hat I \\times \\hat J`, the
  tightest consistent hypothesis;
* **half-graphs** :math:`F_a(x, y) = 1[x + y \\le a]`: keep the positive pair with the
  largest sum (2 points); the reconstruction is :math:`1[x + y \\le \\hat a]` with
  :math:`\\hat a = x_{i^*} + y_{j^*}`, again the tightest consistent one.

Points live on the grid :math:`k / 2^{30}` (int32 codes, :data:`RESOLUTION_BITS`):
labels, compression and reconstruction are integer comparisons, exact and identical on
every machine, and a sum of two codes fits int32. The error of a reconstruction is the
:math:`\\mu_1 \\times \\mu_2` mass of its symmetric difference with the target, in closed
form (rectangle areas; the triangular law of :math:`x + y`), never a second Monte Carlo.
:func:`run` draws one sample of :attr:`CompressionSpec.max_m` points per coordinate and
evaluates every prefix size in :attr:`CompressionSpec.ms` (static slices of one draw).
"""

from __future__ import annotations

import dataclasses

import math

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.simulator import Simulator

__all__ = [
    "RESOLUTION_BITS",
    "SCALE",
    "CLASSES",
    "SIZE_BOUND",
    "DEFAULT_PARAMS",
    "CompressionSpec",
    "to_grid",
    "sample",
    "box_labels",
    "box_compress",
    "box_reconstruct",
    "box_predict",
    "box_error",
    "box_size",
    "expected_range",
    "box_expected_error",
    "half_graph_labels",
    "half_graph_compress",
    "half_graph_reconstruct",
    "half_graph_predict",
    "sum_mass",
    "half_graph_error",
    "run",
]

#: Bits of the sample grid: a point is ``k / 2**RESOLUTION_BITS`` with integer
#: ``0 <= k < 2**RESOLUTION_BITS``; 30 bits keep the sum of two codes inside int32 and
#: resolve gaps ~1e-9, far below the smallest half-graph error measured (~1e-6 at m = 1024).
RESOLUTION_BITS = 30
#: ``2**RESOLUTION_BITS``: the code of the point 1.
SCALE = 1 << RESOLUTION_BITS
#: The two concept classes, in the order of the run's metrics.
CLASSES = ("intervals", "half-graph")
#: Number of sample points each scheme keeps at most (independent of m): two x's and two
#: y's for a product of intervals, one x and one y for a half-graph.
SIZE_BOUND = {"intervals": 4, "half-graph": 2}
#: Targets: the half-graph threshold ``a`` (in [0, 2]) and the intervals
#: ``I = [i_lo, i_hi]``, ``J = [j_lo, j_hi]`` (in [0, 1]).
DEFAULT_PARAMS = {"a": 0.9, "i_lo": 0.2, "i_hi": 0.7, "j_lo": 0.3, "j_hi": 0.9}

_EMPTY_BOX = (0, -1, 0, -1)  # lo > hi: the empty interval, on both coordinates


@dataclasses.dataclass(frozen=True)
class CompressionSpec:
    """Shapes of a run: the sample sizes per coordinate evaluated (prefixes of one draw).

    Attributes:
        ms: strictly increasing sample sizes ``m >= 2``; the run draws ``max(ms)``
            points per coordinate and evaluates the first ``m`` of each.

    Example:
        >>> CompressionSpec(ms=(4, 16)).max_m
        16
    """

    ms: tuple[int, ...] = (8, 16, 32, 64, 128, 256, 512)

    def __post_init__(self):
        ms = tuple(self.ms)
        if not ms or any(not isinstance(m, int) or isinstance(m, bool) or m < 2 for m in ms):
            raise ValueError(f"CompressionSpec.ms must be integers >= 2, got {self.ms!r}")
        if any(b <= a for a, b in zip(ms, ms[1:])):
            raise ValueError(f"CompressionSpec.ms must be strictly increasing, got {self.ms!r}")
        if ms[-1] > 46340:  # m**2 labelled pairs are counted in int32
            raise ValueError(f"CompressionSpec.ms must stay below 46341 (m² in int32), got {ms[-1]}")
        object.__setattr__(self, "ms", ms)

    @property
    def max_m(self) -> int:
        """The largest sample size: the number of points drawn per coordinate."""
        return self.ms[-1]


def to_grid(t):
    """The grid code ``round(t * SCALE)`` of a real ``t`` (int32, clipped to [−1, 2·SCALE − 128]).

    Args:
        t: real value(s), e.g. a threshold or an interval end (a JAX or Python float).

    Returns:
        int32 code(s); ``code / SCALE`` is the grid value actually used.

    Example:
        >>> int(to_grid(0.5)) == SCALE // 2
        True
    """
    v = jnp.round(jnp.asarray(t, jnp.float32) * SCALE)
    return jnp.clip(v, -1.0, 2.0 * SCALE - 128.0).astype(jnp.int32)


def sample(key, m: int):
    """``m`` points per coordinate, uniform on the grid of ``[0, 1)``: int32 codes ``(kx, ky)``.

    Example:
        >>> kx, ky = sample(jax.random.PRNGKey(0), 5)
        >>> kx.shape, bool((kx >= 0).all() & (ky < SCALE).all())
        ((5,), True)
    """
    k1, k2 = jax.random.split(key)
    return (
        jax.random.randint(k1, (m,), 0, SCALE, dtype=jnp.int32),
        jax.random.randint(k2, (m,), 0, SCALE, dtype=jnp.int32),
    )


# -- products of intervals -----------------------------------------------------------------
def _inside(k, lo, hi):
    return (k >= lo) & (k <= hi)


def box_labels(kx, ky, box):
    """Labels of every pair: ``labels[i, j] = 1[x_i ∈ I] 1[y_j ∈ J]`` (closed intervals).

    Args:
        kx, ky: int32 codes of the points, shapes ``(m,)`` and ``(n,)``.
        box: ``(i_lo, i_hi, j_lo, j_hi)`` codes; ``lo > hi`` is an empty interval.

    Returns:
        Boolean ``(m, n)``.

    Example:
        >>> box_labels(jnp.array([1, 5]), jnp.array([2, 9]), (0, 3, 0, 4)).tolist()
        [[True, False], [False, False]]
    """
    xl, xh, yl, yh = box
    return _inside(kx, xl, xh)[:, None] & _inside(ky, yl, yh)[None, :]


def box_compress(kx, ky, labels):
    """The kept points: indices of the extreme x's and y's among the positive pairs.

    Uses only the points and their labels. The positive pairs of a product of intervals
    are a product of rows and columns; the bounding box of their x's and y's is the
    tightest consistent product.

    Returns:
        ``(i_lo, i_hi, j_lo, j_hi, ok)``: indices into ``kx`` / ``ky`` of the smallest and
        largest positive x and y; ``ok`` is False when no pair is positive (the indices
        are then meaningless and nothing is kept).

    Example:
        >>> kx, ky = jnp.array([4, 1, 3]), jnp.array([7, 2])
        >>> [int(v) for v in box_compress(kx, ky, box_labels(kx, ky, (2, 5, 0, 9)))]
        [2, 0, 1, 0, 1]
    """
    rows, cols = labels.any(axis=1), labels.any(axis=0)
    return (
        jnp.argmin(jnp.where(rows, kx, SCALE)),
        jnp.argmax(jnp.where(rows, kx, -1)),
        jnp.argmin(jnp.where(cols, ky, SCALE)),
        jnp.argmax(jnp.where(cols, ky, -1)),
        rows.any(),
    )


def box_reconstruct(x_lo, x_hi, y_lo, y_hi, ok):
    """The reconstructed box from the kept points' codes (the empty box when nothing is kept).

    Example:
        >>> [int(v) for v in box_reconstruct(1, 4, 2, 7, True)]
        [1, 4, 2, 7]
    """
    kept = (x_lo, x_hi, y_lo, y_hi)
    return tuple(jnp.where(ok, jnp.asarray(k, jnp.int32), e) for k, e in zip(kept, _EMPTY_BOX))


def box_predict(box, kx, ky):
    """The reconstruction's labels on every pair (the same rule as :func:`box_labels`)."""
    return box_labels(kx, ky, box)


def _length(lo, hi):
    return jnp.maximum(hi - lo, 0).astype(jnp.float32) / SCALE


def box_error(box_hat, box):
    """The uniform mass of the symmetric difference of two boxes: ``|A| + |B| − 2|A ∩ B|``.

    Lengths are differences of codes (exact integers) over :data:`SCALE`; an empty
    interval (``lo > hi``) has length 0. Exact up to float32 rounding of the result.

    Example:
        >>> s = SCALE // 4
        >>> float(box_error((0, s, 0, s), (0, 2 * s, 0, s)))
        0.0625
    """
    (al, ah, bl, bh), (cl, ch, dl, dh) = box_hat, box
    area_a = _length(al, ah) * _length(bl, bh)
    area_b = _length(cl, ch) * _length(dl, dh)
    inter = _length(jnp.maximum(al, cl), jnp.minimum(ah, ch)) * _length(
        jnp.maximum(bl, dl), jnp.minimum(bh, dh)
    )
    return area_a + area_b - 2.0 * inter


def box_size(i_lo, i_hi, j_lo, j_hi, ok):
    """Number of distinct sample points the interval scheme keeps (0 to 4).

    Example:
        >>> int(box_size(0, 2, 1, 1, True))
        3
    """
    n = 2 + (jnp.asarray(i_lo) != i_hi).astype(jnp.int32) + (jnp.asarray(j_lo) != j_hi).astype(jnp.int32)
    return jnp.where(ok, n, 0).astype(jnp.int32)


def expected_range(m: int, length: float) -> float:
    """``E|Î|``: the expected range of the sample points that fall in an interval of ``length``.

    With ``n ~ Binomial(m, length)`` points inside, uniform there, the range has mean
    ``length (n − 1)/(n + 1)`` (0 for n ≤ 1). Float64, numpy.

    Example:
        >>> round(expected_range(1, 0.5), 12), round(expected_range(2, 1.0), 12)
        (0.0, 0.333333333333)
    """
    if m < 0 or not 0.0 <= length <= 1.0:
        raise ValueError(f"expected_range needs m >= 0 and 0 <= length <= 1, got {m}, {length}")
    if length in (0.0, 1.0):
        return 0.0 if (length == 0.0 or m < 2) else float(length * (m - 1) / (m + 1))
    n = np.arange(2, m + 1, dtype=np.float64)
    logc = np.array([math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1) for k in n])
    pmf = np.exp(logc + n * math.log(length) + (m - n) * math.log1p(-length))
    return float(length * np.sum(pmf * (n - 1) / (n + 1)))


def box_expected_error(m: int, box: tuple[float, float, float, float]) -> float:
    """The exact ``E[error]`` of the interval scheme at sample size ``m``: ``|I||J| − E|Î| E|Ĵ|``.

    The x- and y-samples are independent and ``Î ⊆ I``, ``Ĵ ⊆ J``, so the mean mass of
    the symmetric difference factorises (an empty reconstruction, n = 0 on either side,
    contributes the full ``|I||J|``, as the formula's zero range does). Float64, numpy.

    Args:
        m: points per coordinate.
        box: ``(i_lo, i_hi, j_lo, j_hi)`` real interval ends in [0, 1].

    Example:
        >>> round(box_expected_error(10_000, (0.0, 1.0, 0.0, 1.0)), 6)   # 1 − ((m−1)/(m+1))²
        0.0004
    """
    li, lj = box[1] - box[0], box[3] - box[2]
    return float(li * lj - expected_range(m, li) * expected_range(m, lj))


# -- half-graphs ---------------------------------------------------------------------------
def _sums(kx, ky):
    return kx[:, None] + ky[None, :]


def half_graph_labels(kx, ky, a_code):
    """Labels of every pair: ``labels[i, j] = 1[x_i + y_j ≤ a]`` (codes; exact in int32).

    Example:
        >>> half_graph_labels(jnp.array([1, 5]), jnp.array([2, 4]), 6).tolist()
        [[True, True], [False, False]]
    """
    return _sums(kx, ky) <= a_code


def half_graph_compress(kx, ky, labels):
    """The kept pair: indices ``(i, j, ok)`` of the positive pair with the largest sum.

    Uses only the points and their labels; ``ok`` is False when no pair is positive.

    Example:
        >>> kx, ky = jnp.array([1, 5]), jnp.array([2, 4])
        >>> [int(v) for v in half_graph_compress(kx, ky, half_graph_labels(kx, ky, 6))]
        [0, 1, 1]
    """
    flat = jnp.argmax(jnp.where(labels, _sums(kx, ky), -1))
    i, j = jnp.divmod(flat, ky.shape[0])
    return i, j, labels.any()


def half_graph_reconstruct(x_kept, y_kept, ok):
    """The reconstructed threshold code ``x + y`` of the kept pair (−1, the empty relation, if none)."""
    return jnp.where(ok, x_kept + y_kept, -1)


def half_graph_predict(a_hat, kx, ky):
    """The reconstruction's labels on every pair: ``1[x_i + y_j ≤ â]``."""
    return half_graph_labels(kx, ky, a_hat)


def sum_mass(lo, hi):
    """``P(lo < x + y ≤ hi)`` for ``x, y`` i.i.d. uniform on [0, 1], from codes ``lo ≤ hi``.

    The density of ``x + y`` is ``t`` on [0, 1] and ``2 − t`` on [1, 2]; the integral over
    each piece is ``(h − l)(h + l)/2`` and ``(h − l)((2 − l) + (2 − h))/2``, with the
    difference ``h − l`` taken on the integer codes so that a tiny mass keeps its
    relative precision.

    Example:
        >>> float(sum_mass(0, SCALE))   # P(x + y <= 1)
        0.5
    """
    lo, hi = jnp.asarray(lo, jnp.int32), jnp.asarray(hi, jnp.int32)
    l1, h1 = jnp.clip(lo, 0, SCALE), jnp.clip(hi, 0, SCALE)
    l2, h2 = jnp.clip(lo, SCALE, 2 * SCALE - 1), jnp.clip(hi, SCALE, 2 * SCALE - 1)
    s = jnp.float32(SCALE)
    d1 = jnp.maximum(h1 - l1, 0).astype(jnp.float32) / s
    d2 = jnp.maximum(h2 - l2, 0).astype(jnp.float32) / s
    part1 = d1 * (h1.astype(jnp.float32) / s + l1.astype(jnp.float32) / s) / 2
    part2 = d2 * ((2 - h2.astype(jnp.float32) / s) + (2 - l2.astype(jnp.float32) / s)) / 2
    return part1 + part2


def half_graph_error(a_hat, a_code):
    """The uniform mass of ``{x + y ≤ â} Δ {x + y ≤ a}`` (nested sets: the mass between).

    Example:
        >>> float(half_graph_error(SCALE // 2, SCALE))   # P(1/2 < x + y <= 1)
        0.375
    """
    return sum_mass(jnp.minimum(a_hat, a_code), jnp.maximum(a_hat, a_code))


# -- the simulator -------------------------------------------------------------------------
def _one_size(kx, ky, box, a_code):
    labels = box_labels(kx, ky, box)
    i_lo, i_hi, j_lo, j_hi, ok = box_compress(kx, ky, labels)
    box_hat = box_reconstruct(kx[i_lo], kx[i_hi], ky[j_lo], ky[j_hi], ok)
    box_wrong = jnp.sum(box_predict(box_hat, kx, ky) != labels, dtype=jnp.int32)

    hlabels = half_graph_labels(kx, ky, a_code)
    i, j, hok = half_graph_compress(kx, ky, hlabels)
    a_hat = half_graph_reconstruct(kx[i], ky[j], hok)
    half_wrong = jnp.sum(half_graph_predict(a_hat, kx, ky) != hlabels, dtype=jnp.int32)
    return {
        "error_intervals": box_error(box_hat, box),
        "disagreements_intervals": box_wrong,
        "size_intervals": box_size(i_lo, i_hi, j_lo, j_hi, ok),
        "error_half_graph": half_graph_error(a_hat, a_code),
        "disagreements_half_graph": half_wrong,
        "size_half_graph": jnp.where(hok, 2, 0).astype(jnp.int32),
    }


def run(spec: CompressionSpec, params, key):
    """Compress and reconstruct both classes at every sample size of ``spec.ms``.

    One draw of ``spec.max_m`` points per coordinate; the sample of size ``m`` is its
    first ``m`` points on each coordinate (so the curves over m of one seed are nested
    samples). At each ``m``: label the ``m²`` pairs by the target, compress from points
    and labels only, reconstruct from the kept points, and count the labelled pairs the
    reconstruction gets wrong.

    Args:
        spec: a :class:`CompressionSpec`.
        params: ``a``, ``i_lo``, ``i_hi``, ``j_lo``, ``j_hi`` (see :data:`DEFAULT_PARAMS`).
        key: a PRNG key.

    Returns:
        Arrays of shape ``(len(spec.ms),)``: ``error_<class>`` (mass of the symmetric
        difference, float32), ``disagreements_<class>`` (wrong labelled pairs, int32) and
        ``size_<class>`` (kept sample points, int32), for ``intervals`` and ``half_graph``;
        and scalars ``length_i``, ``length_j``: the target intervals' lengths on the grid.

    Example:
        >>> out = jax.jit(run, static_argnums=0)(CompressionSpec(ms=(8, 64)), DEFAULT_PARAMS,
        ...                                      jax.random.PRNGKey(0))
        >>> out["disagreements_half_graph"].tolist(), out["size_intervals"].shape
        ([0, 0], (2,))
    """
    kx, ky = sample(key, spec.max_m)
    box = tuple(to_grid(params[k]) for k in ("i_lo", "i_hi", "j_lo", "j_hi"))
    a_code = to_grid(params["a"])
    per_m = [_one_size(kx[:m], ky[:m], box, a_code) for m in spec.ms]
    out = {k: jnp.stack([d[k] for d in per_m]) for k in per_m[0]}
    out["length_i"], out["length_j"] = _length(box[0], box[1]), _length(box[2], box[3])
    return out


#: The simulator's declaration: an experiment names it instead of restating it.
SIMULATOR = Simulator(
    run,
    spec=CompressionSpec(),
    params=DEFAULT_PARAMS,
    metric_dims={
        f"{w}_{c}": ("m",) for w in ("error", "disagreements", "size") for c in ("intervals", "half_graph")
    },
    coords=lambda spec: {"m": np.asarray(spec.ms)},
)
