"""Statistics of sweep results, with intervals: one implementation for every experiment.

Every slope, rate, crossing and tuning choice an experiment reports comes from here, so
that all claims follow one protocol (DESIGN §6):

* **Aggregate over seeds first, then choose or fit.** A log-log slope is the slope of
  the seed-mean (or seed-median) curve; a best learning rate is the argmin of the
  seed-mean loss, never the median of per-seed argmins (which is optimistic).
* **Intervals by bootstrap over the sample dimension.** The seeds (or instances) are
  resampled with replacement, jointly for every point of a curve and every method of a
  comparison (paired), and the statistic is recomputed on each resample; the interval
  is the percentile interval. The resampling RNG is fixed, so a verdict is a function
  of the results alone.
* **Ties.** In a tuning over a grid, every value whose seed-mean lies within one
  standard error of the best counts as tied with it.

The functions take :class:`xarray.DataArray` objects with named dimensions (a sample
dimension such as ``seed``, a coordinate dimension such as ``horizon``, and any number
of further dimensions, which become *cells*: one estimate each) or plain numpy arrays.
An :class:`Estimate` is a value with its interval; a statistic over several cells is a
:class:`Cells`: a dict from a cell label such as ``"p=1.5,algorithm=sgd"`` to its
:class:`Estimate` that also keeps every cell's coordinates (``cells.at(p=1.5,
algorithm="sgd")``, ``cells.coords[label]``), so nobody rebuilds or parses a label.

Only numpy and xarray are used: this module sits below ``sweeps/`` and beside
:mod:`jaxtheory.plots` in the layers (DESIGN §1) and never imports jax.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "Estimate",
    "Best",
    "bootstrap",
    "mean",
    "proportion",
    "from_se",
    "ratio_of_means",
    "loglog_slope",
    "semilog_rate",
    "linear_r2",
    "masked_line_fit",
    "slope_difference",
    "local_slopes",
    "power_law_with_floor",
    "first_crossing",
    "at_equal_cost",
    "best_over",
    "tuned",
    "ranks",
    "pearson",
    "spearman",
    "monotone_violations",
    "select",
    "cells",
    "cell_label",
    "Cells",
    "DEFAULT_BOOT",
    "DEFAULT_LEVEL",
    "MIN_SAMPLE",
]

#: Bootstrap resamples used by default: enough for a stable 95% percentile interval.
DEFAULT_BOOT = 2000
#: Default confidence level of an interval.
DEFAULT_LEVEL = 0.95
#: The smallest sample a bootstrap interval is formed from. Below it even the expanded
#: percentile interval is unreliable for skewed statistics (a mean of log-normal errors
#: at 4 seeds falsely excluded the truth in 7 of 40 trials): no interval is formed and a
#: claim resting on it is ``inconclusive``.
MIN_SAMPLE = 8


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A statistic with its interval.

    Attributes:
        value: the statistic computed on the whole sample.
        low: lower end of the interval (``None`` for an exact quantity; ``-inf`` where the
            data bound the statistic from above only, ``nan`` where no interval could
            be formed).
        high: upper end of the interval (``None`` for an exact quantity; ``inf`` where
            the data bound it from below only, e.g. a mean of right-censored times).
        n: the sample size it was computed from (seeds, instances), or ``None``.
        method: how the interval was computed (``"bootstrap"``, ``"se"``, ``"wilson"``,
            ``"exact"``).
        level: the interval's confidence level.
    """

    value: float
    low: float | None = None
    high: float | None = None
    n: int | None = None
    method: str = "exact"
    level: float | None = None

    @property
    def exact(self) -> bool:
        """True when the quantity carries no sampling interval."""
        return self.low is None or self.high is None

    @property
    def interval(self) -> tuple[float, float] | None:
        """``(low, high)``, or ``None`` for an exact quantity."""
        return None if self.exact else (self.low, self.high)

    def to_json(self) -> dict:
        """A JSON-able dict."""
        d = {
            "value": _f(self.value),
            "low": _f(self.low),
            "high": _f(self.high),
            "n": self.n,
            "method": self.method,
        }
        if self.level is not None:
            d["level"] = self.level
        return d

    def __format__(self, spec: str) -> str:
        spec = spec or ".4g"
        if self.exact:
            return format(self.value, spec)
        return f"{format(self.value, spec)} [{format(self.low, spec)}, {format(self.high, spec)}]"


def _f(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else (None if math.isnan(x) else x)


@dataclasses.dataclass(frozen=True)
class Best:
    """The result of a tuning over a grid (:func:`best_over`).

    Attributes:
        value: the best seed-aggregated value.
        at: the grid coordinate where it is reached.
        ties: every grid coordinate whose aggregate lies within one standard error of
            the best (``at`` included), in grid order.
        se: the standard error of the best value over the sample dimension.
        curve: the aggregated value at every grid point, in grid order.
        grid: the grid coordinates, in order.
    """

    value: float
    at: Any
    ties: tuple
    se: float
    curve: tuple
    grid: tuple

    def to_json(self) -> dict:
        """A JSON-able dict."""
        return {
            "value": _f(self.value),
            "at": _py(self.at),
            "ties": [_py(t) for t in self.ties],
            "se": _f(self.se),
        }


def _py(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


# -- cells ---------------------------------------------------------------------------


def cell_label(coords: Mapping[str, Any]) -> str:
    """The label of a cell: ``"p=1.5,algorithm=sgd"``; ``""`` for a single cell.

    Example:
        >>> cell_label({"p": 1.5, "algorithm": "sgd"})
        'p=1.5,algorithm=sgd'
    """
    parts = []
    for k, v in coords.items():
        v = _py(v)
        parts.append(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}")
    return ",".join(parts)


class Cells(dict):
    """Per-cell results keyed by cell label, with each cell's coordinates.

    A :class:`dict` from the label (:func:`cell_label`) to the value (an
    :class:`Estimate`, a :class:`Best`...), so code that indexes by label keeps working;
    :attr:`coords` maps each label to the cell's coordinates (dimension name -> Python
    value), and :meth:`at` looks a cell up by coordinates. A claim whose measure returns
    a :class:`Cells` labels its cells by these coordinates (``expected``, ``requires``
    and per-cell fit windows receive them).

    Example:
        >>> c = Cells([({"p": 1.5, "alg": "sgd"}, 1.0), ({"p": 2.0, "alg": "sgd"}, 2.0)])
        >>> c["p=1.5,alg=sgd"], c.at(p=2.0, alg="sgd"), c.coords["p=2,alg=sgd"]
        (1.0, 2.0, {'p': 2.0, 'alg': 'sgd'})
    """

    def __init__(self, items: Iterable[tuple[Mapping[str, Any], Any]] = ()):
        super().__init__()
        self.coords: dict[str, dict[str, Any]] = {}
        for coords, value in items:
            self.add(coords, value)

    def add(self, coords: Mapping[str, Any], value: Any) -> None:
        """Add (or replace) the cell at ``coords``."""
        coords = {k: _py(v) for k, v in coords.items()}
        label = cell_label(coords)
        self[label] = value
        self.coords[label] = coords

    def coords_of(self, label: str) -> dict[str, Any]:
        """The coordinates of the cell ``label`` (``{"cell": label}`` for one added by label only)."""
        return dict(self.coords.get(label, {"cell": label}))

    def at(self, coords: Mapping[str, Any] | None = None, **kw: Any) -> Any:
        """The value of the cell whose coordinates are ``coords`` (and/or the keywords).

        Raises:
            KeyError: no cell has exactly these coordinates.
        """
        want = {**(coords or {}), **kw}
        want = {k: _py(v) for k, v in want.items()}
        for label, c in self.coords.items():
            if c == want and label in self:
                return self[label]
        raise KeyError(f"no cell at {want}; the cells are {list(self.coords.values())}")

    def items_by_coords(self) -> list[tuple[dict[str, Any], Any]]:
        """``(coords, value)`` for every cell, in order."""
        return [(self.coords_of(k), v) for k, v in self.items()]


def cells(da: Any, keep: Iterable[str]) -> list[tuple[dict, Any]]:
    """Split ``da`` into cells over every dimension not in ``keep``.

    Returns a list of ``(coords, sub)`` with ``coords`` the cell's coordinate values by
    dimension name (empty for one cell) and ``sub`` the DataArray of that cell, in the
    order of the dimensions and their coordinates.
    """
    keep = set(keep)
    dims = [d for d in da.dims if d not in keep]
    if not dims:
        return [({}, da)]
    stacked = da.stack(__cell=dims)
    out = []
    for i in range(stacked.sizes["__cell"]):
        sub = stacked.isel(__cell=i)
        coords = {d: _py(sub[d].values.item()) for d in dims}
        out.append((coords, sub.drop_vars(["__cell", *dims], errors="ignore")))
    return out


def select(ds: Any, **sel: Any) -> Any:
    """``ds.sel(...)`` for the dimensions ``ds`` has; the others are ignored.

    A preset that does not sweep an axis has no dimension for it; selecting the default
    value there is a no-op rather than an error.

    Example:
        >>> import xarray as xr
        >>> da = xr.DataArray([1.0, 2.0], dims=["lr"], coords={"lr": [0.1, 0.2]})
        >>> float(select(da, lr=0.2, width=64))
        2.0
    """
    return ds.sel({k: v for k, v in sel.items() if k in ds.dims})


# -- intervals -------------------------------------------------------------------------


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([0x6A78, seed]))


@functools.lru_cache(maxsize=256)
def _t_quantile(q: float, df: int) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (numpy-free quadrature)."""
    c = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)

    def cdf(t):
        x = np.linspace(0.0, t, 4001)
        f = c * (1.0 + x * x / df) ** (-(df + 1) / 2)
        return 0.5 + float(np.sum((f[1:] + f[:-1]) * np.diff(x)) / 2.0)

    lo, hi = 0.0, 1.0
    while cdf(hi) < q:
        hi *= 2.0
        if hi > 1e7:
            return hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if cdf(mid) < q else (lo, mid)
    return 0.5 * (lo + hi)


def _expanded_level(level: float, n: int) -> float:
    """The level at which a percentile bootstrap interval has about ``level`` coverage at n.

    The plain percentile interval is too narrow for small samples (about 75% instead of
    95% at n = 4). Hesterberg's expanded percentile interval reads the bootstrap
    distribution at the level whose normal quantile is ``sqrt(n/(n-1)) t_{n-1}``: the
    small-sample width of a t interval, with the bootstrap's shape.
    """
    z = math.sqrt(n / (n - 1)) * _t_quantile(0.5 + level / 2.0, n - 1)
    return math.erf(z / math.sqrt(2.0))


def _percentile(reps: np.ndarray, level: float) -> tuple[float, float]:
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return float("nan"), float("nan")
    a = (1.0 - level) / 2.0
    lo, hi = np.quantile(reps, [a, 1.0 - a])
    return float(lo), float(hi)


def bootstrap(
    sample: np.ndarray,
    stat: Callable[[np.ndarray], np.ndarray],
    *,
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
    expand: bool = True,
) -> Estimate:
    """Percentile bootstrap interval of ``stat`` over axis 0 of ``sample``.

    By default the interval is Hesterberg's *expanded* percentile interval, which keeps
    close to its nominal coverage down to a handful of seeds (the plain percentile
    interval covers about 75% at n = 4). Below :data:`MIN_SAMPLE` samples no interval
    is formed (``nan`` ends).

    Args:
        sample: array whose axis 0 is the sample (seeds or instances); other axes are
            carried along, resampled jointly (so a curve or a set of methods is resampled
            as a whole: a paired bootstrap).
        stat: maps an array of shape ``(B, n, ...)`` (``B`` resamples) to ``(B,)``; it
            must be vectorised over the leading axis.
        n_boot: resamples.
        level: confidence level.
        seed: seed of the resampling RNG (fixed, so an interval is reproducible).
        expand: use the expanded percentile interval (see above).

    Returns:
        The :class:`Estimate` with ``value = stat(sample[None])[0]``.

    Example:
        >>> x = np.arange(100.0)
        >>> e = bootstrap(x, lambda s: s.mean(axis=1))
        >>> e.value, bool(e.low < 49.5 < e.high)
        (49.5, True)
    """
    sample = np.asarray(sample, dtype=float)
    n = sample.shape[0]
    value = float(np.asarray(stat(sample[None]))[0])
    if n < MIN_SAMPLE:
        return Estimate(value, float("nan"), float("nan"), n, "bootstrap", level)
    idx = _rng(seed).integers(0, n, size=(n_boot, n))
    reps = np.asarray(stat(sample[idx]), dtype=float)
    lo, hi = _percentile(reps, _expanded_level(level, n) if expand else level)
    return Estimate(value, lo, hi, n, "bootstrap", level)


def from_se(value: float, se: float, n: int | None = None, *, level: float = DEFAULT_LEVEL) -> Estimate:
    """An :class:`Estimate` from a value and a stated standard error (normal interval).

    Example:
        >>> e = from_se(1.0, 0.1)
        >>> round(e.low, 3), round(e.high, 3)
        (0.804, 1.196)
    """
    z = _z(level)
    return Estimate(float(value), float(value - z * se), float(value + z * se), n, "se", level)


def _z(level: float) -> float:
    # inverse normal CDF by bisection on erf (numpy only)
    target = 0.5 + level / 2.0
    lo, hi = 0.0, 10.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _sample_axis(da: Any, over: str | None) -> tuple[np.ndarray, list[str]]:
    """Values of ``da`` with the sample dim first; returns (array, other dims)."""
    if over is None:
        return np.asarray(da.values, dtype=float)[None], list(da.dims)
    if over not in da.dims:
        raise ValueError(f"sample dimension {over!r} is not among {tuple(da.dims)}")
    other = [d for d in da.dims if d != over]
    return np.asarray(da.transpose(over, *other).values, dtype=float), other


def _aggregate(s: np.ndarray, how: str) -> np.ndarray:
    """Aggregate axis 1 of a ``(B, n, ...)`` resample array."""
    if how == "mean":
        return np.mean(s, axis=1)
    if how == "median":
        return np.median(s, axis=1)
    raise ValueError(f"aggregate must be 'mean' or 'median', not {how!r}")


def _per_cell(da: Any, keep: Sequence[str], fn: Callable[[dict, Any], Estimate]) -> Estimate | Cells:
    out = Cells((coords, fn(coords, sub)) for coords, sub in cells(da, keep))
    if list(out) == [""]:
        return out[""]
    return out


def mean(
    da: Any,
    over: str | None = "seed",
    *,
    stat: str = "mean",
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Estimate | Cells:
    """Seed-mean (or median) with a bootstrap interval, per cell.

    Args:
        da: a DataArray with the sample dimension ``over``; every other dimension is a
            cell.
        over: the sample dimension; ``None`` treats ``da`` as exact values.
        stat: ``"mean"`` or ``"median"``.

    Returns:
        An :class:`Estimate` (one cell) or a :class:`Cells` of them by cell.

    Example:
        >>> import xarray as xr
        >>> da = xr.DataArray(np.arange(8.0), dims=["seed"])
        >>> mean(da).value
        3.5
    """

    def one(coords, sub):
        if over is None:
            return Estimate(float(np.asarray(sub.values, dtype=float)))
        x = np.asarray(sub.values, dtype=float)
        return bootstrap(x, lambda s: _aggregate(s, stat), n_boot=n_boot, level=level, seed=seed)

    return _per_cell(da, [over] if over else [], one)


def ratio_of_means(
    num: Any,
    den: Any,
    over: str = "seed",
    *,
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Estimate | Cells:
    """Ratio of two sample means, ``mean(num) / mean(den)``, with a paired bootstrap interval.

    ``num`` and ``den`` are measured on the same samples (seeds or instances): each
    resample draws the same samples for both, so their correlation narrows the
    interval (a ratio of two regrets on the same functions, a speed-up on the same
    seeds). Every dimension other than ``over`` is a cell.

    Args:
        num: DataArray with the sample dimension ``over`` and any cell dims.
        den: DataArray of the same dims (broadcast against ``num``).
        over: the sample dimension.
        n_boot: resamples.
        level: confidence level (per cell: pass ``1 - (1 - 0.95) / cells`` for a
            Bonferroni family).
        seed: seed of the resampling RNG.

    Returns:
        An :class:`Estimate`, or a :class:`Cells` of them by cell.

    Example:
        >>> import xarray as xr
        >>> a = xr.DataArray(np.arange(1.0, 11.0), dims=["seed"])
        >>> e = ratio_of_means(a, 2 * a)
        >>> e.value, round(e.low, 12), round(e.high, 12)
        (0.5, 0.5, 0.5)
    """
    import xarray as xr

    num, den = xr.broadcast(num, den)
    if over not in num.dims:
        raise ValueError(f"sample dimension {over!r} is not among {tuple(num.dims)}")
    pair = xr.concat([num, den], dim="__ratio_part")

    def one(coords, sub):
        arr = np.asarray(sub.transpose(over, "__ratio_part").values, dtype=float)

        def stat(s):
            m = np.mean(s, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                return m[..., 0] / m[..., 1]

        return bootstrap(arr, stat, n_boot=n_boot, level=level, seed=seed)

    return _per_cell(pair, [over, "__ratio_part"], one)


def proportion(successes: int, n: int, *, level: float = DEFAULT_LEVEL) -> Estimate:
    """A fraction with its Wilson score interval.

    Example:
        >>> e = proportion(50, 100)
        >>> round(e.low, 3), round(e.high, 3)
        (0.404, 0.596)
    """
    if n <= 0:
        raise ValueError("proportion of an empty sample")
    z = _z(level)
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return Estimate(p, max(0.0, centre - half), min(1.0, centre + half), n, "wilson", level)


# -- slopes and rates ------------------------------------------------------------------


def _ls_slope(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least-squares slope of y (..., m) on x (m,), vectorised over leading axes."""
    xc = x - x.mean()
    yc = y - y.mean(axis=-1, keepdims=True)
    return (yc * xc).sum(axis=-1) / (xc * xc).sum()


def _x_mask(x: np.ndarray, xmin: float | None, xmax: float | None) -> np.ndarray:
    m = np.ones(x.shape, bool)
    if xmin is not None:
        m &= x >= xmin
    if xmax is not None:
        m &= x <= xmax
    if m.sum() < 2:
        raise ValueError(f"fewer than two points of x = {x.tolist()} lie in [{xmin}, {xmax}]")
    return m


def _slope_estimate(
    da: Any,
    x: str,
    over: str | None,
    *,
    logx: bool,
    logy: bool,
    stat: str,
    xmin,
    xmax,
    xvalues,
    n_boot,
    level,
    seed,
) -> Estimate | dict:
    if x not in da.dims:
        raise ValueError(f"dimension {x!r} to fit along is not among {tuple(da.dims)}")

    def one(coords, sub):
        xv = np.asarray(sub[x].values if xvalues is None else xvalues, dtype=float)
        m = _x_mask(xv, xmin, xmax)
        xv = np.log(xv[m]) if logx else xv[m]
        if over is None:
            y = np.asarray(sub.transpose(x).values, dtype=float)[m]
            with np.errstate(divide="ignore", invalid="ignore"):
                ly = np.log(y) if logy else y
            return Estimate(float(_ls_slope(xv, ly)))
        arr = np.asarray(sub.transpose(over, x).values, dtype=float)[:, m]

        def stat_fn(s):
            agg = _aggregate(s, stat)
            with np.errstate(divide="ignore", invalid="ignore"):
                return _ls_slope(xv, np.log(agg) if logy else agg)

        return bootstrap(arr, stat_fn, n_boot=n_boot, level=level, seed=seed)

    return _per_cell(da, [d for d in (over, x) if d], one)


def loglog_slope(
    da: Any,
    x: str,
    over: str | None = "seed",
    *,
    stat: str = "mean",
    xmin: float | None = None,
    xmax: float | None = None,
    xvalues: Any = None,
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Estimate | Cells:
    """Slope of ``log(aggregate over seeds of y)`` against ``log x``, with a bootstrap interval.

    The seeds are aggregated first (``stat``) and the aggregate curve is fitted by least
    squares on log-log axes; the interval resamples whole seeds (every point of a curve
    together) and refits.

    Args:
        da: DataArray with dims ``over``, ``x`` and any cell dims.
        x: the dimension to fit along (its coordinate is the abscissa, unless
            ``xvalues`` is given).
        over: the sample dimension (``None``: exact values, no interval).
        stat: ``"mean"`` or ``"median"`` over seeds.
        xmin, xmax: fit only over ``xmin <= x <= xmax`` (the asymptotic range).
        xvalues: abscissa values to use instead of the coordinate (e.g. ``E[Z²]/Δ²``).

    Returns:
        An :class:`Estimate`, or a :class:`Cells` of them by cell.

    Example:
        >>> import xarray as xr
        >>> T = np.array([10.0, 100.0, 1000.0])
        >>> rng = np.random.default_rng(0)
        >>> y = T ** -0.5 * np.exp(0.01 * rng.standard_normal((64, 3)))
        >>> da = xr.DataArray(y, dims=["seed", "T"], coords={"T": T})
        >>> e = loglog_slope(da, "T")
        >>> round(e.value, 2), bool(e.high - e.low < 0.01), e.n
        (-0.5, True, 64)
    """
    return _slope_estimate(
        da,
        x,
        over,
        logx=True,
        logy=True,
        stat=stat,
        xmin=xmin,
        xmax=xmax,
        xvalues=xvalues,
        n_boot=n_boot,
        level=level,
        seed=seed,
    )


def semilog_rate(
    da: Any,
    x: str,
    over: str | None = "seed",
    *,
    stat: str = "mean",
    xmin: float | None = None,
    xmax: float | None = None,
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Estimate | Cells:
    """Slope of ``log(aggregate y)`` against linear ``x``: an exponential rate per unit x.

    ``y ∝ exp(-r x)`` gives ``-r``; ``y ∝ ρ^x`` gives ``log ρ``.

    Example:
        >>> import xarray as xr
        >>> t = np.arange(10.0)
        >>> da = xr.DataArray(0.5 ** t, dims=["t"], coords={"t": t})
        >>> round(semilog_rate(da, "t", over=None).value, 4)
        -0.6931
    """
    return _slope_estimate(
        da,
        x,
        over,
        logx=False,
        logy=True,
        stat=stat,
        xmin=xmin,
        xmax=xmax,
        xvalues=None,
        n_boot=n_boot,
        level=level,
        seed=seed,
    )


def slope_difference(
    da: Any,
    x: str,
    dim: str,
    a: Any,
    b: Any,
    over: str | None = "seed",
    *,
    stat: str = "mean",
    xmin: float | None = None,
    xmax: float | None = None,
    semilog: bool = False,
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Estimate | Cells:
    """``slope(dim=b) - slope(dim=a)`` of the seed-aggregated curves along ``x``, paired bootstrap.

    Both curves are fitted as :func:`loglog_slope` (or :func:`semilog_rate`) fits them;
    the interval resamples whole seeds, the same seeds for ``a`` and ``b`` (so noise
    the two settings share, e.g. on common random numbers, cancels in the difference).
    This is how a comparison of *rates* is decided, where :meth:`Claim.ordering
    <jaxtheory.claims.Claim.ordering>` compares seed-means.

    Args:
        da: DataArray with dims ``over``, ``x``, ``dim`` and any cell dims.
        x: the dimension to fit along.
        dim: the dimension holding the two settings compared.
        a: the coordinate of ``dim`` subtracted.
        b: the coordinate of ``dim`` it is subtracted from.
        over: the sample dimension (``None``: exact values, no interval).
        stat: ``"mean"`` or ``"median"`` over seeds, before fitting.
        xmin, xmax: fit only over ``xmin <= x <= xmax``.
        semilog: fit ``log y`` against linear ``x`` instead of ``log x``.

    Returns:
        An :class:`Estimate`, or a :class:`Cells` of them by cell (cells: every dimension
        but ``over``, ``x`` and ``dim``).

    Example:
        >>> import xarray as xr
        >>> T = np.array([10.0, 100.0, 1000.0])
        >>> y = np.stack([T ** -0.5, T ** -0.2]) * np.ones((8, 1, 1))
        >>> da = xr.DataArray(y, dims=["seed", "p", "T"], coords={"p": [2.0, 1.25], "T": T})
        >>> round(slope_difference(da, "T", "p", 2.0, 1.25).value, 6)
        0.3
    """
    for d in (x, dim):
        if d not in da.dims:
            raise ValueError(f"dimension {d!r} is not among {tuple(da.dims)}")

    def one(coords, sub):
        sub = sub.sel({dim: [a, b]})
        xv = np.asarray(sub[x].values, dtype=float)
        m = _x_mask(xv, xmin, xmax)
        xv = xv[m] if semilog else np.log(xv[m])

        def diff(agg):
            with np.errstate(divide="ignore", invalid="ignore"):
                s = _ls_slope(xv, np.log(agg))
            return s[..., 1] - s[..., 0]

        if over is None:
            arr = np.asarray(sub.transpose(dim, x).values, dtype=float)[:, m]
            return Estimate(float(diff(arr)))
        arr = np.asarray(sub.transpose(over, dim, x).values, dtype=float)[:, :, m]
        return bootstrap(arr, lambda s: diff(_aggregate(s, stat)), n_boot=n_boot, level=level, seed=seed)

    return _per_cell(da, [d for d in (over, x, dim) if d], one)


def local_slopes(x: Any, y: Any) -> np.ndarray:
    """Successive log-log slopes ``Δ log y / Δ log x`` between neighbouring points.

    A power law has constant local slopes; a pre-asymptotic curve shows them drifting,
    which says over which range a global fit is meaningful.

    Example:
        >>> local_slopes([1, 10, 100], [1.0, 0.1, 0.01]).round(6).tolist()
        [-1.0, -1.0]
    """
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    return np.diff(ly, axis=-1) / np.diff(lx)


def power_law_with_floor(x: Any, y: Any, *, floors: int = 200) -> dict[str, float]:
    """Fit ``y = a x^b + c`` with ``0 <= c < min(y)`` by profile least squares in log space.

    For each candidate floor ``c`` on a grid the best ``(a, b)`` is the log-log least
    squares fit of ``y - c``; the floor with the smallest log residual wins.

    Returns:
        ``{"a": a, "b": b, "c": c, "rss": residual}``.

    Example:
        >>> x = np.array([1.0, 2, 4, 8, 16, 32, 64])
        >>> fit = power_law_with_floor(x, 3 * x ** -1.0 + 0.05)
        >>> round(fit["b"], 2), round(fit["c"], 3)
        (-1.0, 0.05)
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.shape != y.shape or x.size < 3:
        raise ValueError("power_law_with_floor needs x and y of one shape with at least 3 points")
    lx = np.log(x)
    ymin = float(np.min(y))
    if ymin <= 0:
        raise ValueError("power_law_with_floor needs positive y")

    def fit(c):
        ly = np.log(y - c)
        b = float(_ls_slope(lx, ly))
        la = float(ly.mean() - b * lx.mean())
        return {"a": math.exp(la), "b": b, "c": float(c), "rss": float(((ly - la - b * lx) ** 2).sum())}

    # a coarse grid of floors in [0, ymin), then golden-section refinement around the best
    cs = np.concatenate([[0.0], ymin * (1.0 - np.geomspace(1.0, 1e-4, floors))[1:]])
    rss = [fit(c)["rss"] for c in cs]
    i = int(np.argmin(rss))
    lo, hi = cs[max(i - 1, 0)], cs[min(i + 1, len(cs) - 1)]
    g = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(60):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        if fit(a)["rss"] < fit(b)["rss"]:
            hi = b
        else:
            lo = a
    best = min((fit(cs[i]), fit(0.5 * (lo + hi))), key=lambda f: f["rss"])
    return best


def first_crossing(x: Any, y: Any, level: float, *, below: bool = True) -> float:
    """The first abscissa where ``y`` crosses ``level`` (``nan`` if it never does).

    Between the two grid points that bracket the crossing, ``x`` is interpolated
    linearly in ``log y`` (or ``y`` where not positive).

    Example:
        >>> first_crossing([1, 2, 3, 4], [1.0, 0.5, 0.2, 0.1], 0.2)
        3.0
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    hit = y <= level if below else y >= level
    if not hit.any():
        return float("nan")
    i = int(np.argmax(hit))
    if i == 0:
        return float(x[0])
    y0, y1 = y[i - 1], y[i]
    if y0 > 0 and y1 > 0 and level > 0:
        y0, y1, lv = math.log(y0), math.log(y1), math.log(level)
    else:
        lv = level
    t = 0.0 if y1 == y0 else (lv - y0) / (y1 - y0)
    return float(x[i - 1] + t * (x[i] - x[i - 1]))


def at_equal_cost(cost_a: Any, y_a: Any, cost_b: Any, y_b: Any, at: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two curves read at the same costs: ``(y_a(at), y_b(at))``, log-log interpolated.

    Methods that spend compute differently (steps, workers, oracle calls) are compared
    at equal cost, never at equal iteration. ``at`` outside either curve's range gives
    ``nan`` there.

    Example:
        >>> a, b = at_equal_cost([1, 10], [1.0, 0.1], [2, 20], [1.0, 0.1], [10])
        >>> round(float(a[0]), 3), round(float(b[0]), 3)
        (0.1, 0.2)
    """
    at = np.asarray(at, float)

    def read(c, y):
        lc, ly = np.log(np.asarray(c, float)), np.log(np.asarray(y, float))
        out = np.exp(np.interp(np.log(at), lc, ly, left=np.nan, right=np.nan))
        return out

    return read(cost_a, y_a), read(cost_b, y_b)


# -- tuning ------------------------------------------------------------------------------


def best_over(
    da: Any, dim: str, over: str | None = "seed", *, minimize: bool = True, stat: str = "mean"
) -> Best | Cells:
    """Tune over the grid ``dim``: aggregate over seeds first, then choose.

    The protocol (DESIGN §6): the seed-mean (or median) of every grid value is
    computed; the best is its min (or max); every grid value whose aggregate is within
    one standard error of the best (the SE over seeds at the best value) is a tie.
    A grid value where any seed is non-finite (diverged) is never best.

    Args:
        da: DataArray with dims ``dim``, ``over`` and any cell dims.
        dim: the grid (a learning rate, a step size...).
        over: the sample dimension (``None``: exact values, ties only at equality).
        minimize: choose the smallest (a loss) or the largest (an accuracy).
        stat: ``"mean"`` or ``"median"`` over seeds.

    Returns:
        A :class:`Best`, or a :class:`Cells` of them by cell.

    Example:
        >>> import xarray as xr
        >>> loss = xr.DataArray([[3.0, 1.0, 1.05, 4.0], [3.2, 1.08, 1.0, 4.1]],
        ...                     dims=["seed", "lr"], coords={"lr": [0.01, 0.1, 0.3, 1.0]})
        >>> b = best_over(loss, "lr")
        >>> b.at, b.ties
        (0.3, (0.1, 0.3))
    """
    if dim not in da.dims:
        raise ValueError(f"grid dimension {dim!r} is not among {tuple(da.dims)}")

    def one(coords, sub):
        grid = tuple(_py(v) for v in sub[dim].values)
        if over is None:
            agg = np.asarray(sub.transpose(dim).values, float)
            se = np.zeros_like(agg)
        else:
            arr = np.asarray(sub.transpose(over, dim).values, float)
            # a grid value where any seed is non-finite (diverged) has a non-finite aggregate
            agg = np.mean(arr, axis=0) if stat == "mean" else np.median(arr, axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                se = (np.std(arr, axis=0, ddof=1) if arr.shape[0] > 1 else np.zeros_like(agg)) / np.sqrt(
                    arr.shape[0]
                )
        score = np.where(np.isfinite(agg), agg if minimize else -agg, np.inf)
        if not np.isfinite(score).any():
            return Best(float("nan"), None, (), float("nan"), tuple(agg.tolist()), grid)
        i = int(np.argmin(score))
        s = float(se[i]) if np.isfinite(se[i]) else 0.0
        ties = tuple(g for g, v in zip(grid, score) if v <= score[i] + s)
        return Best(float(agg[i]), grid[i], ties, s, tuple(agg.tolist()), grid)

    return _per_cell(da, [d for d in (dim, over) if d], one)


def tuned(
    da: Any, dim: str, *, by: Any = None, over: str | None = "seed", minimize: bool = True, stat: str = "mean"
) -> tuple[Any, Best | Cells]:
    """``da`` at the grid value :func:`best_over` chooses, per cell: a tuned sample.

    The grid value is chosen on ``by`` (default ``da`` itself), aggregated over seeds
    first (:func:`best_over`); ``da`` is then read at that value in each cell, every
    seed kept, so a claim can bootstrap the tuned statistic over seeds. Tune on a
    validation metric and report another (``by=``), or tune and report one metric.

    Args:
        da: DataArray with dims ``dim``, ``over``, the cell dims of ``by`` and any others
            (a ``step`` dimension is carried along).
        dim: the grid (a learning rate).
        by: the criterion the grid value is chosen on (dims ``dim``, ``over`` and cell
            dims, all of them dims of ``da``); default ``da``.
        over: the sample dimension.
        minimize: choose the smallest (a loss) or the largest (an accuracy).
        stat: ``"mean"`` or ``"median"`` over seeds.

    Returns:
        ``(sample, best)``: ``da`` without ``dim`` (the chosen value kept as a
        coordinate named ``dim`` over the cell dims; NaN in a cell where every grid
        value diverged), and :func:`best_over`'s result.

    Example:
        >>> import xarray as xr
        >>> loss = xr.DataArray([[3.0, 1.0, 4.0], [3.2, 1.2, 4.1]], dims=["seed", "lr"],
        ...                     coords={"lr": [0.01, 0.1, 1.0]})
        >>> sample, best = tuned(loss, "lr")
        >>> sample.values.tolist(), float(sample["lr"])
        ([1.0, 1.2], 0.1)
    """
    import xarray as xr

    crit = da if by is None else by
    if dim not in crit.dims or dim not in da.dims:
        raise ValueError(f"grid dimension {dim!r} must be a dimension of both the data and the criterion")
    cell_dims = [d for d in crit.dims if d not in (dim, over)]
    missing = [d for d in cell_dims if d not in da.dims]
    if missing:
        raise ValueError(f"the criterion's cell dimension(s) {missing} are not dimensions of the data")
    best = best_over(crit, dim, over, minimize=minimize, stat=stat)
    grid = [_py(v) for v in crit[dim].values]
    shape = [crit.sizes[d] for d in cell_dims]
    idx = np.zeros(shape, dtype=int)
    ok = np.ones(shape, dtype=bool)
    for k, (coords, _) in enumerate(cells(crit, [d for d in (dim, over) if d])):
        b = best if isinstance(best, Best) else best.at(coords)
        pos = np.unravel_index(k, shape) if shape else ()
        if b.at is None:
            ok[pos] = False
        else:
            idx[pos] = grid.index(b.at)
    coords = {d: crit[d].values for d in cell_dims}
    ix = xr.DataArray(idx, dims=cell_dims, coords=coords)
    out = da.sel({d: crit[d].values for d in cell_dims}).isel({dim: ix})
    if not ok.all():
        out = out.where(xr.DataArray(ok, dims=cell_dims, coords=coords))
    return out, best


# -- orderings ---------------------------------------------------------------------------


def ranks(x: Any) -> np.ndarray:
    """Ranks (1-based) along the last axis, ties given their average rank; batched.

    Sort-based (``O(n log n)`` per row), so it serves long rows as well as stacks of
    short ones (a permutation test's resamples, one per row).

    Example:
        >>> ranks([10.0, 20.0, 10.0]).tolist()
        [1.5, 3.0, 1.5]
    """
    x = np.asarray(x, float)
    n = x.shape[-1]
    order = np.argsort(x, axis=-1, kind="stable")
    xs = np.take_along_axis(x, order, -1)
    pos = np.broadcast_to(np.arange(n), x.shape)
    first = np.ones(x.shape, bool)  # the first sorted position of each group of ties
    first[..., 1:] = xs[..., 1:] != xs[..., :-1]
    last = np.ones(x.shape, bool)
    last[..., :-1] = first[..., 1:]
    start = np.maximum.accumulate(np.where(first, pos, 0), axis=-1)
    end = np.flip(np.minimum.accumulate(np.flip(np.where(last, pos, n), -1), axis=-1), -1)
    out = np.empty(x.shape, float)
    np.put_along_axis(out, order, (start + end) / 2.0 + 1.0, -1)
    return out


def pearson(x: Any, y: Any) -> np.ndarray:
    """Pearson correlation along the last axis (batched; NaN where a side is constant).

    Example:
        >>> float(pearson([1.0, 2.0, 3.0], [2.0, 4.0, 7.0])) > 0.98
        True
    """
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    xc = x - x.mean(-1, keepdims=True)
    yc = y - y.mean(-1, keepdims=True)
    den = np.sqrt((xc**2).sum(-1) * (yc**2).sum(-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (xc * yc).sum(-1) / np.where(den > 0, den, 1.0), np.nan)


def spearman(x: Any, y: Any) -> float:
    """Spearman's rank correlation of two equal-length sequences (ties averaged).

    :func:`pearson` of the :func:`ranks`; for batches of rows call those two directly.

    Example:
        >>> spearman([1, 2, 3, 4], [10, 20, 25, 100])
        1.0
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError("spearman needs two 1-d sequences of one length >= 2")
    return float(pearson(ranks(x), ranks(y)))


def monotone_violations(y: Any, *, increasing: bool = False, tol: float = 0.0) -> int:
    """How many neighbouring pairs of ``y`` break monotonicity by more than ``tol``.

    Example:
        >>> monotone_violations([3.0, 2.0, 2.5, 1.0])
        1
    """
    d = np.diff(np.asarray(y, float))
    bad = d < -tol if increasing else d > tol
    return int(np.sum(bad | ~np.isfinite(d)))


# -- goodness of a linear fit -------------------------------------------------------------


def _r2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """R² of the least-squares line of y (..., m) on x (m,), vectorised over leading axes."""
    b = _ls_slope(x, y)
    a = y.mean(axis=-1) - b * x.mean()
    resid = y - (a[..., None] + b[..., None] * x)
    yc = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return 1.0 - (resid * resid).sum(axis=-1) / (yc * yc).sum(axis=-1)


def masked_line_fit(
    x: Any, y: Any, mask: Any, *, min_points: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Least-squares line of ``y`` on ``x`` per lane, over the points a mask keeps.

    Each lane (every index of the leading axes) is fitted on its own subset of the last
    axis, in one vectorised pass instead of a Python loop of ``np.polyfit``. Values
    outside the mask may be anything (``-inf`` from a log of zero, NaN): they are not read.

    Args:
        x: abscissae, broadcastable to ``y`` (e.g. ``(m,)`` for a shared axis).
        y: ordinates, shape ``(..., m)``.
        mask: bool, broadcastable to ``y``: the points each lane's fit uses.
        min_points: lanes with fewer kept points get NaN (at least 2).

    Returns:
        ``(slope, intercept, r2)``, each of shape ``y.shape[:-1]``; ``r2`` is NaN where the
        kept ``y`` are constant.

    Example:
        >>> import numpy as np
        >>> y = np.array([[1.0, 3.0, 5.0, 100.0], [0.0, 1.0, 2.0, 3.0]])
        >>> keep = np.array([[True, True, True, False], [True, True, True, True]])
        >>> slope, icpt, r2 = masked_line_fit(np.arange(4.0), y, keep)
        >>> slope.tolist(), icpt.tolist(), r2.tolist()
        ([2.0, 1.0], [1.0, 0.0], [1.0, 1.0])
    """
    if min_points < 2:
        raise ValueError(f"min_points must be at least 2, got {min_points}")
    y = np.asarray(y, float)
    x, m = np.broadcast_arrays(np.asarray(x, float), y)[0], np.broadcast_to(np.asarray(mask, bool), y.shape)
    w = m.astype(float)
    xs, ys = np.where(m, x, 0.0), np.where(m, y, 0.0)
    n = w.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mx, my = xs.sum(axis=-1) / n, ys.sum(axis=-1) / n
        xc, yc = w * (xs - mx[..., None]), w * (ys - my[..., None])
        sxx, sxy, syy = (xc * xc).sum(axis=-1), (xc * yc).sum(axis=-1), (yc * yc).sum(axis=-1)
        slope = sxy / sxx
        icpt = my - slope * mx
        res = w * (ys - icpt[..., None] - slope[..., None] * xs)
        r2 = np.where(syy > 0, 1.0 - (res * res).sum(axis=-1) / syy, np.nan)
    few = n < min_points
    return np.where(few, np.nan, slope), np.where(few, np.nan, icpt), np.where(few, np.nan, r2)


def linear_r2(
    da: Any,
    x: str,
    over: str | None = "seed",
    *,
    stat: str = "mean",
    xmin: float | None = None,
    xmax: float | None = None,
    xvalues: Any = None,
    logx: bool = False,
    logy: bool = False,
    n_boot: int = DEFAULT_BOOT,
    level: float = DEFAULT_LEVEL,
    seed: int = 0,
) -> Estimate | Cells:
    """R² of the least-squares line through the seed-aggregated curve, with a bootstrap interval.

    How well ``aggregate over seeds of y`` is described by a straight line in ``x``
    (``log x`` / ``log y`` with ``logx`` / ``logy``): :math:`R^2 = 1 - SS_{res}/SS_{tot}`
    of that curve. The interval resamples whole seeds and refits, like
    :func:`loglog_slope`.

    Args:
        da: DataArray with dims ``over``, ``x`` and any cell dims.
        x: the dimension to fit along (its coordinate is the abscissa, unless
            ``xvalues`` is given).
        over: the sample dimension (``None``: exact values, no interval).
        stat: ``"mean"`` or ``"median"`` over seeds.
        xmin, xmax: fit only over ``xmin <= x <= xmax`` (on the abscissa as given).
        xvalues: abscissa values to use instead of the coordinate (e.g. ``ln(1/δ)``).
        logx, logy: fit on log axes.

    Returns:
        An :class:`Estimate`, or a :class:`Cells` of them by cell.

    Raises:
        ValueError: ``x`` is not a dimension, or fewer than three points are fitted
            (a line through two points always has R² = 1).

    Example:
        >>> import xarray as xr
        >>> d = np.array([1e-1, 1e-2, 1e-3, 1e-4])
        >>> rng = np.random.default_rng(0)
        >>> tau = 100 + 50 * np.log(1 / d) + rng.normal(0, 5, size=(16, 4))
        >>> da = xr.DataArray(tau, dims=["seed", "delta"], coords={"delta": d})
        >>> e = linear_r2(da, "delta", xvalues=np.log(1 / d))
        >>> bool(e.value > 0.99), e.n
        (True, 16)
    """
    if x not in da.dims:
        raise ValueError(f"dimension {x!r} to fit along is not among {tuple(da.dims)}")

    def one(coords, sub):
        xv = np.asarray(sub[x].values if xvalues is None else xvalues, dtype=float)
        m = _x_mask(xv, xmin, xmax)
        if m.sum() < 3:
            raise ValueError(f"R² needs at least three points, got {int(m.sum())}")
        xv = np.log(xv[m]) if logx else xv[m]

        def fn(y):
            with np.errstate(divide="ignore", invalid="ignore"):
                return _r2(xv, np.log(y) if logy else y)

        if over is None:
            return Estimate(float(fn(np.asarray(sub.transpose(x).values, dtype=float)[m])))
        arr = np.asarray(sub.transpose(over, x).values, dtype=float)[:, m]
        return bootstrap(arr, lambda s: fn(_aggregate(s, stat)), n_boot=n_boot, level=level, seed=seed)

    return _per_cell(da, [d for d in (over, x) if d], one)
