"""Claims: a paper's statement, the statistic that tests it, its interval, and a verdict.

A claim is a **statistic** judged against a **region**. The statistic
(:class:`Stat`: a mean, a ratio of means, a slope, an ordering, a fraction, a count, a
residual...) turns what the claim's measure returns into one estimate, with its
interval, per *cell*; the region (:class:`Region`: at most, at least, within, close
to, equal to) gives the values that agree with the statement, per cell, built from the
paper's ``expected`` value and a tolerance: the very values the verdict is computed
from, so what the docs print is what was checked::

    Claim("rate", "The error falls as T^-1/2.", Stat.slope(err, "T"),
          Region.close(-0.5, atol=0.08), source="derived")

The constructors (:meth:`Claim.at_most`, :meth:`Claim.slope`, ...) build the common
pairs in one call. The verdict is computed, never chosen:

``pass``
    the statistic's interval lies inside the region (for every cell);
``fail``
    the interval lies outside the region (for some cell);
``inconclusive``
    the interval contains a boundary of the region: the preset is too small to decide;
``not-applicable``
    the preset lacks what the claim needs (its ``requires`` says so);
``error``
    the measurement (or ``requires``) raised, or the statistic is NaN: a bug to fix,
    never a refutation (the exception is recorded).

**Cells are coordinates.** Every dimension of the measured DataArray that is not the
sample or the fitted dimension is a cell dimension; a cell is labelled by its
coordinates, a mapping ``{dim: value}`` of Python values (``{}`` for a claim of one
cell). A per-cell ``expected``, tolerance, bound, fit window (``xmin``/``xmax``) or a
per-cell ``requires`` is a function of that mapping, always of that type. A measure
that computes its own estimates returns them as an :class:`~jaxtheory.analysis.Cells`
(what :mod:`jaxtheory.analysis` returns over several cells), which keeps each cell's
coordinates; a plain dict by label gives cells with the one coordinate ``cell`` (the
label). The record of a claim (:class:`ClaimResult`) keeps every cell's coordinates,
value, interval, region, verdict and a note.

Intervals are 95% (expanded) percentile-bootstrap intervals over the sample dimension
(``over``, ``"seed"`` by default) computed by :mod:`jaxtheory.analysis`, or what the
measure returns as an :class:`~jaxtheory.analysis.Estimate`; a sample of fewer than
:data:`~jaxtheory.analysis.MIN_SAMPLE` (8) seeds forms no interval, so a claim resting
on it is inconclusive. An interval may be open on one side (an infinite end: the data
bound the statistic from one side only, as a mean of censored times is bounded from
below); the claim can then fail on the bounded side, and is otherwise inconclusive.
A sample holding ``+inf`` (a time not reached within the horizon) is such a censored
sample: :func:`censored_estimate` turns it into a one-sided interval, so an infinity
alone never decides a claim. An exact quantity (a closed form, a residual, a count:
``deterministic``) has no interval and passes or fails on its value; an exact value
computed from fewer than eight seeds is inconclusive, as a bootstrap would be. A claim
over several cells is judged cell by cell, with the 5% error split over the cells
(Bonferroni: every statistic the framework computes is computed at level
``1 - 0.05/m`` for ``m`` cells judged, ``m`` pairs for an ordering), so that a true
claim over twelve cells is not failed by chance in one. The claim fails when any cell
fails, is inconclusive when none fails and some is undecided, and passes when every
cell passes. Cells a per-cell ``requires`` excludes are ``not-applicable`` and take no
part in the verdict (nor in the Bonferroni split); when it excludes every cell the
claim is not applicable.

Where a claim comes from (``source``, one of :data:`SOURCES`) is part of what its
verdict means. A claim that tests what the paper states carries the paper's words,
``quote=``, copied verbatim from the abstract (or from the paper, with ``where=``
saying where it was read); the encoding takes the weakest faithful reading of those
words. ``source="reconstruction"`` is such a statement tested on a model or algorithm
rebuilt without the paper; ``stand_in=`` names data that stand in for the paper's. A
threshold no sentence of the paper gives is ``proposed``.

Statistics (:class:`Stat`): :meth:`Stat.mean`, :meth:`Stat.median`,
:meth:`Stat.estimates` (the measure computed them), :meth:`Stat.ratio` (of two
seed-means, paired), :meth:`Stat.slope` (log-log or semi-log, per cell),
:meth:`Stat.ordering` (neighbouring differences, paired), :meth:`Stat.fraction`
(Wilson), :meth:`Stat.count`, :meth:`Stat.residual` (largest absolute value),
:meth:`Stat.value` (an exact value, for :meth:`Region.equals`). Regions
(:class:`Region`): :meth:`Region.at_most`, :meth:`Region.at_least`,
:meth:`Region.within`, :meth:`Region.close`, :meth:`Region.equals`.

Constructors (every one takes ``source=`` and the keywords ``quote``, ``where``,
``stand_in``, ``deterministic``):

* :meth:`Claim.at_most`, :meth:`Claim.at_least`, :meth:`Claim.within`,
  :meth:`Claim.close`: a statistic (a seed-mean by default) against a bound;
* :meth:`Claim.slope`: a log-log (or semi-log) slope along a dimension;
* :meth:`Claim.ordering`: methods ordered by a statistic, each neighbouring pair
  decided by a paired bootstrap of its difference;
* :meth:`Claim.identity`: an exact identity to a tolerance (a residual);
* :meth:`Claim.fraction`: a fraction of lanes, with a Wilson interval;
* :meth:`Claim.equals`: an exact equality of counts, labels or orderings.

A measure is ``measure(ds, spec)`` and returns a :class:`xarray.DataArray` (with the
sample dimension: the framework computes the statistic and its interval per cell; or
without: exact values per cell), an :class:`~jaxtheory.analysis.Estimate`, a
:class:`~jaxtheory.analysis.Cells` (or a dict by label) of them (or of numbers), or a
number.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from jaxtheory import analysis
from jaxtheory.analysis import Cells, Estimate

__all__ = [
    "Claim",
    "ClaimResult",
    "CellResult",
    "Stat",
    "Region",
    "NotApplicable",
    "VERDICTS",
    "SOURCES",
    "PAPER_SOURCES",
    "censored_estimate",
    "evaluate_claims",
    "describe_rule",
    "describe_interval",
    "describe_cells",
]

#: The verdicts a claim can have.
VERDICTS = ("pass", "fail", "inconclusive", "not-applicable", "error")

#: Where a claim's statement and number come from: a statement of the paper (quoted), a
#: number printed in the paper or its code, a quoted statement of the paper tested on a
#: model or algorithm rebuilt without the paper, a closed form or identity derived here,
#: classical literature, a threshold or statement proposed here with no paper sentence
#: behind it (a paper digest's thresholds included), a sanity check, a toy.
SOURCES = (
    "paper",
    "paper-number",
    "reconstruction",
    "derived",
    "lit",
    "proposed",
    "sanity",
    "toy",
)

#: Sources that speak for the paper: they carry the paper's words (``quote``) or, for a
#: printed number, where it was read (``where``).
PAPER_SOURCES = ("paper", "paper-number", "reconstruction")

_INF = math.inf


class NotApplicable(Exception):  # noqa: N818 - a verdict, not an error
    """Raised by a measure (or ``requires``) when the preset lacks what the claim needs."""


def _r(x: Any, digits: int = 6) -> Any:
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


@dataclasses.dataclass(frozen=True)
class CellResult:
    """One cell of a claim: its coordinates, statistic, interval, region and verdict.

    Attributes:
        label: the cell's label (``"p=1.5,algorithm=sgd"``; ``""`` for a single cell).
        coords: the cell's coordinates, dimension name -> Python value (``{}`` for a
            single cell).
        verdict: one of :data:`VERDICTS`.
        value: the statistic (``None`` where not measured).
        low: lower end of its interval (``None`` where exact).
        high: upper end of its interval.
        region: ``(low, high)`` of the region the statistic is judged against.
        note: why the cell is undecided, not applicable or an error.
        n: the sample size.
    """

    label: str
    coords: Mapping[str, Any]
    verdict: str
    value: Any = None
    low: float | None = None
    high: float | None = None
    region: tuple[float, float] | None = None
    note: str | None = None
    n: int | None = None

    @property
    def margin(self) -> float | None:
        """How far the interval lies inside the region (negative: outside), or ``None``.

        ``min(interval low - region low, region high - interval high)``, with the value
        standing for both ends of an exact statistic: a failing cell has a negative
        margin, a passing one a positive one, and the smallest margin is the cell
        closest to (or farthest beyond) a boundary.
        """
        if self.region is None or not isinstance(self.value, (int, float)):
            return None
        a = self.value if self.low is None else self.low
        b = self.value if self.high is None else self.high
        with np.errstate(invalid="ignore"):
            m = min(float(a) - float(self.region[0]), float(self.region[1]) - float(b))
        return None if math.isnan(m) else m

    def to_json(self) -> dict:
        """A JSON-able dict (the ``per_cell`` entries of :meth:`ClaimResult.to_json`)."""
        from jaxtheory.sweep import store

        num = isinstance(self.value, (int, float)) and not isinstance(self.value, bool)
        d = {
            "cell": self.label,
            "coords": store.to_jsonable(dict(self.coords)),
            "verdict": self.verdict,
            "value": store.to_jsonable(_r(self.value) if num else self.value),
            "low": store.to_jsonable(_r(self.low)),
            "high": store.to_jsonable(_r(self.high)),
            "region": None if self.region is None else store.to_jsonable([_r(x) for x in self.region]),
            "margin": store.to_jsonable(_r(self.margin)),
            "n": self.n,
        }
        if self.note:
            d["note"] = self.note
        return d


@dataclasses.dataclass(frozen=True)
class ClaimResult:
    """A claim's verdict on one run: what ``claims.json`` holds, one object per claim.

    Attributes:
        name: the claim's name.
        statement: the claim in words.
        source: one of :data:`SOURCES`.
        verdict: one of :data:`VERDICTS`.
        expected: the paper's value the region is built from (per cell, where it varies).
        tolerance: the tolerance around it (or ``None``).
        rule: how the region is formed (``"at_most"``, ``"close"``, ``"ordering"``...).
        measured: the statistic (a dict by cell label for several cells).
        interval: its interval ``[low, high]`` (per cell), ``None`` where exact.
        n: the sample size the statistic is computed from (smallest over cells).
        cells: per-cell verdicts by label, for a claim over several cells.
        error: the exception, when the measurement raised (verdict ``error``).
        reason: why the claim is not applicable, or why a cell is undecided.
        quote: the paper's words the claim tests (verbatim).
        where: where in the paper the quote (or the number) was read; ``None`` for the
            abstract.
        stand_in: the stand-in data the claim runs on instead of the paper's.
        per_cell: every cell's :class:`CellResult` (coordinates, statistic, interval,
            region, verdict, note), in the order of the cells.
    """

    name: str
    statement: str
    source: str
    verdict: str
    expected: Any = None
    tolerance: Any = None
    rule: str = ""
    measured: Any = None
    interval: Any = None
    n: int | None = None
    cells: Mapping[str, str] | None = None
    error: str | None = None
    reason: str | None = None
    quote: str | None = None
    where: str | None = None
    stand_in: str | None = None
    per_cell: tuple[CellResult, ...] = ()

    @property
    def passed(self) -> bool:
        """True iff the verdict is ``pass``."""
        return self.verdict == "pass"

    def worst_first(self) -> list[CellResult]:
        """The cells, failing first, then errors and undecided ones, then by margin."""
        return sorted(self.per_cell, key=_cell_order)

    def to_json(self) -> dict:
        """The JSON object written to ``claims.json``."""
        from jaxtheory.sweep import store

        d = {
            "name": self.name,
            "statement": self.statement,
            "source": self.source,
            "verdict": self.verdict,
            "passed": self.passed,
            "rule": self.rule,
            "expected": store.to_jsonable(self.expected),
            "tolerance": store.to_jsonable(self.tolerance),
            "measured": store.to_jsonable(self.measured),
            "interval": store.to_jsonable(self.interval),
            "n": self.n,
        }
        if self.cells:
            d["cells"] = dict(self.cells)
        for key in ("error", "reason", "quote", "where", "stand_in"):
            if getattr(self, key):
                d[key] = getattr(self, key)
        if self.per_cell:
            d["per_cell"] = [c.to_json() for c in self.per_cell]
        return d


#: The order cells are shown in: failing first, then errors, undecided, passing, n/a.
_RANK = {"fail": 0, "error": 1, "inconclusive": 2, "pass": 3, "not-applicable": 4}


def _cell_order(c: Any) -> tuple:
    """Sort key of a cell (a :class:`CellResult` or a stored ``per_cell`` dict): worst first."""
    if isinstance(c, Mapping):
        v, m = c.get("verdict"), c.get("margin")
        m = None if m is None else float(m)
    else:
        v, m = c.verdict, c.margin
    return (_RANK.get(v, 5), math.inf if m is None else m)


def _judge(est: Estimate, low: float, high: float) -> str:
    """Verdict of one estimate against the acceptance region ``[low, high]``.

    A NaN statistic is ``error`` (a broken measurement, never a refutation). An infinite
    statistic is a censored one (not reached within the horizon): by itself it decides
    nothing; with an interval it is judged on the interval's bounded side only.
    """
    v = est.value
    if v is None or np.isnan(v):
        return "error"
    if est.exact:
        if not np.isfinite(v):
            return "inconclusive"  # censored, and the data give no bound on it
        return "pass" if low <= v <= high else "fail"
    a, b = est.low, est.high
    if np.isnan(a) or np.isnan(b):
        return "inconclusive"  # no interval could be formed (e.g. fewer than 8 seeds)
    if v == _INF:
        b = _INF
    elif v == -_INF:
        a = -_INF
    # an infinite end is a one-sided interval (the data bound the statistic on one side
    # only, e.g. a mean of censored times): it can fail on the bounded side, never pass
    # a region bounded on the open side
    if low <= a and b <= high:
        return "pass"
    if b < low or a > high:
        return "fail"
    return "inconclusive"


def _combine(verdicts: Sequence[str]) -> str:
    for v in ("error", "fail", "inconclusive"):
        if any(x == v for x in verdicts):
            return v
    return "pass"


def censored_estimate(
    sample: Any,
    stat: str = "mean",
    *,
    level: float = analysis.DEFAULT_LEVEL,
    seed: int = 0,
    censored_at: float | None = None,
) -> Estimate:
    """The ``stat`` of a sample over axis 0 with its interval, censored values included.

    A ``+inf`` in the sample is a value censored above (a time not reached within the
    horizon): the statistic is then bounded from below only. Each ``+inf`` is replaced
    by ``censored_at`` (the horizon, when the measure knows it) or else by the sample's
    largest finite value (no censored value lies below an observed one when every run
    shares the horizon); the bootstrap interval of that sample gives the lower end, and
    the upper end is ``+inf``. ``-inf`` (censored below) is the mirror image; both at
    once leave the interval open on both sides. A NaN in the sample is no censoring:
    the statistic is NaN, which the verdict reports as an ``error``. Without infinities
    this is :func:`jaxtheory.analysis.bootstrap` of the statistic.

    Args:
        sample: array whose axis 0 is the sample (seeds or instances).
        stat: ``"mean"`` or ``"median"`` (both monotone, so a bound on each censored
            value bounds the statistic).
        level: confidence level.
        seed: bootstrap seed.
        censored_at: the value a censored entry is known to pass (the horizon).

    Returns:
        An :class:`~jaxtheory.analysis.Estimate`; ``high`` (or ``low``) is infinite
        where the sample holds censored values.

    Example:
        >>> import numpy as np
        >>> e = censored_estimate(np.r_[np.full(10, 5.0), np.full(6, np.inf)], censored_at=100.0)
        >>> e.high, bool(e.low > 5.0)
        (inf, True)
    """
    x = np.asarray(sample, dtype=float)
    n = x.shape[0] if x.ndim else 1

    def agg(s):
        return analysis._aggregate(s, stat)

    if np.isnan(x).any():
        return Estimate(float("nan"), float("nan"), float("nan"), n, "NaN in the sample", level)
    pos, neg = np.isposinf(x), np.isneginf(x)
    if not (pos.any() or neg.any()):
        return analysis.bootstrap(x, agg, level=level, seed=seed)
    if pos.any() and neg.any():
        return Estimate(_INF, -_INF, _INF, n, "censored on both sides", level)
    finite = x[np.isfinite(x)]
    if censored_at is not None:
        sub = float(censored_at)
    elif finite.size:
        sub = float(finite.max() if pos.any() else finite.min())
    else:  # every value censored and no horizon given: no bound from the data
        return Estimate(_INF if pos.any() else -_INF, float("nan"), float("nan"), n, "censored", level)
    est = analysis.bootstrap(np.where(pos | neg, sub, x), agg, level=level, seed=seed)
    if pos.any():
        return Estimate(est.value, est.low, _INF, n, "bootstrap (censored: lower bound)", level)
    return Estimate(est.value, -_INF, est.high, n, "bootstrap (censored: upper bound)", level)


def _is_dataarray(x: Any) -> bool:
    return hasattr(x, "dims") and hasattr(x, "values") and hasattr(x, "coords")


def _level(m: int, family: bool) -> float:
    """The per-cell confidence level of a family of ``m`` cells (Bonferroni when ``family``)."""
    return 1.0 - (1.0 - analysis.DEFAULT_LEVEL) / (m if family else 1)


# -- cells ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Unit:
    """One cell of a statistic before it is estimated.

    ``estimate(level, seed)`` computes the cell's :class:`Estimate` at the family's
    per-cell confidence level (estimates the measure computed itself ignore it).
    """

    label: str
    coords: Mapping[str, Any]
    estimate: Callable[[float, int], Estimate]


def _given(est: Estimate) -> Callable[[float, int], Estimate]:
    return lambda level, seed: est


def _exact(x: Any) -> Callable[[float, int], Estimate]:
    est = Estimate(float(np.asarray(x, float)))
    return lambda level, seed: est


def _mapping_units(x: Mapping) -> list[_Unit]:
    """Cells of a dict (or :class:`~jaxtheory.analysis.Cells`) of estimates or numbers."""
    out = []
    for k, v in x.items():
        coords = x.coords_of(k) if isinstance(x, Cells) else {"cell": str(k)}
        if isinstance(v, Estimate):
            est = _given(v)
        elif callable(v):  # deferred: estimated at the family's per-cell level and seed
            est = v
        else:
            est = _exact(v)
        out.append(_Unit(str(k), coords, est))
    if not out:
        raise ValueError("the measure returned no cells")
    return out


def _sample_units(x: Any, over: str | None, stat: str) -> list[_Unit]:
    """Cells of what a measure returned, each bootstrapped over ``over`` where it is a dim."""
    if isinstance(x, Estimate):
        return [_Unit("", {}, _given(x))]
    if _is_dataarray(x):
        if over is not None and over in x.dims:
            at = x.attrs.get("censored_at")
            out = []
            for coords, sub in analysis.cells(x, [over]):
                arr = np.asarray(sub.transpose(over, ...).values, float)

                def est(level, seed, arr=arr):
                    return censored_estimate(arr, stat, level=level, seed=seed, censored_at=at)

                out.append(_Unit(analysis.cell_label(coords), coords, est))
            return out
        return [_Unit(analysis.cell_label(c), c, _exact(sub.values)) for c, sub in analysis.cells(x, [])]
    if isinstance(x, Mapping):
        return _mapping_units(x)
    return [_Unit("", {}, _exact(x))]


def _per_cell_value(v: Any, unit: _Unit) -> Any:
    """A per-cell parameter: a constant, a dict by cell label, or a function of the coordinates."""
    if callable(v):
        return v(dict(unit.coords))
    if isinstance(v, Mapping):
        if unit.label not in v:
            raise KeyError(f"no value for cell {unit.label!r} in {sorted(v)}")
        return v[unit.label]
    return v


def _window(v: Any, coords: Mapping[str, Any]) -> Any:
    """A fit window end: a number, ``None``, or a function of the cell's coordinates."""
    return v(dict(coords)) if callable(v) else v


def _check_stat(stat: str) -> None:
    if stat not in ("mean", "median"):
        raise ValueError(f"stat must be 'mean' or 'median', not {stat!r}")


# -- statistics ----------------------------------------------------------------------------


class Stat:
    """A statistic: turns a measure's output into one :class:`Estimate` per cell.

    Build one with the constructors below; each takes the ``measure(ds, spec)`` it is
    computed from. Every statistic the framework computes itself (a bootstrap, a fit,
    a Wilson interval) is computed at the claim's per-cell Bonferroni level; estimates
    a measure returns are taken as they are.

    Example:
        >>> import numpy as np, xarray as xr
        >>> ds = xr.Dataset({"loss": (("seed", "lr"), np.full((8, 2), 0.05))}, coords={"lr": [0.1, 0.2]})
        >>> c = Claim("low", "The loss is below 0.1.", Stat.mean(lambda ds, s: ds["loss"]),
        ...           Region.at_most(0.1), source="proposed")
        >>> r = c.evaluate(ds, None)
        >>> r.verdict, [cell.coords for cell in r.per_cell]
        ('pass', [{'lr': 0.1}, {'lr': 0.2}])
    """

    #: the ``measure(ds, spec)`` the statistic is computed from.
    measure: Callable[[Any, Any], Any]
    #: the record's ``rule`` when the statistic fixes it (an ordering), else the region's.
    rule: str | None = None

    def units(self, ds: Any, spec: Any) -> list[_Unit]:  # pragma: no cover - abstract
        """The cells, not yet estimated."""
        raise NotImplementedError

    def record(self, region: Region) -> tuple[Any, Any] | None:
        """``(expected, tolerance)`` for the record when the statistic fixes them."""
        return None

    # -- constructors --------------------------------------------------------------------
    @staticmethod
    def mean(measure: Callable[[Any, Any], Any], over: str | None = "seed") -> Stat:
        """The mean over the sample dimension ``over``, per cell, with a bootstrap interval.

        The measure returns a DataArray with ``over`` (censored ``±inf`` values give a
        one-sided interval, see :func:`censored_estimate`), one without it (exact values
        per cell), or estimates (see :meth:`estimates`).
        """
        return _Aggregate(measure, over, "mean")

    @staticmethod
    def median(measure: Callable[[Any, Any], Any], over: str | None = "seed") -> Stat:
        """The median over ``over``, per cell (as :meth:`mean`)."""
        return _Aggregate(measure, over, "median")

    @staticmethod
    def estimates(measure: Callable[[Any, Any], Any]) -> Stat:
        """Estimates the measure computes itself: an :class:`Estimate`, a :class:`Cells` of them.

        A plain dict by label is accepted too (its cells have the one coordinate
        ``cell``, the label); numbers are exact values. A cell's value may also be a
        function ``(level, seed) -> Estimate``: the framework calls it with the family's
        per-cell (Bonferroni) level and the claim's bootstrap seed, so a measure that
        builds its own interval (an exact binomial, a bootstrap of a derived quantity)
        never splits the level by hand.

        Example:
            >>> from jaxtheory.analysis import Cells, bootstrap
            >>> import numpy as np
            >>> x = np.random.default_rng(0).normal(1.0, 0.1, (64, 2))
            >>> m = lambda ds, s: Cells(
            ...     ({"k": k}, lambda level, seed, k=k: bootstrap(x[:, k], lambda s: s.mean(axis=1),
            ...                                                   level=level, seed=seed))
            ...     for k in range(2))
            >>> r = Claim("one", "Both means are near 1.", Stat.estimates(m), Region.close(1.0, atol=0.2),
            ...           source="proposed").evaluate(None, None)
            >>> r.verdict, [round(c.high - c.low, 2) > 0 for c in r.per_cell]
            ('pass', [True, True])
        """
        return _Aggregate(measure, None, "mean")

    @staticmethod
    def ratio(
        num: Callable[[Any, Any], Any], den: Callable[[Any, Any], Any] | None = None, over: str = "seed"
    ) -> Stat:
        """``mean(num) / mean(den)`` per cell, bootstrapped with both on the same samples (paired).

        Args:
            num: ``num(ds, spec)`` -> DataArray with ``over`` and any cell dims; or, with
                ``den`` omitted, a pair ``(num, den)`` of such DataArrays.
            den: ``den(ds, spec)`` -> DataArray broadcast against ``num``.
            over: the sample dimension.
        """
        return _Ratio(num, den, over)

    @staticmethod
    def slope(
        measure: Callable[[Any, Any], Any],
        x: str,
        over: str | None = "seed",
        *,
        stat: str = "mean",
        xmin: Any = None,
        xmax: Any = None,
        semilog: bool = False,
        xvalues: Callable[[Any, Any], Any] | None = None,
    ) -> Stat:
        """The log-log slope (``semilog``: of ``log y`` on ``x``) of the seed-aggregated curve.

        Args:
            measure: ``measure(ds, spec)`` -> DataArray with dims ``over``, ``x`` and any
                cell dims (positive values).
            x: the dimension to fit along.
            over: the sample dimension (``None`` for exact curves).
            stat: aggregate over the sample (``"mean"``/``"median"``) before fitting.
            xmin: fit over ``x >= xmin`` only: a number, or a function of the cell's
                coordinates (a per-cell asymptotic range).
            xmax: fit over ``x <= xmax`` only (likewise).
            semilog: fit ``log y`` against linear ``x`` (an exponential rate).
            xvalues: ``xvalues(ds, spec)`` -> abscissa values to fit against instead of
                the coordinate of ``x`` (log-log only).
        """
        _check_stat(stat)
        return _Slope(measure, x, over, stat, xmin, xmax, semilog, xvalues)

    @staticmethod
    def ordering(
        measure: Callable[[Any, Any], Any],
        dim: str,
        order: Sequence[Any],
        *,
        increasing: bool = True,
        over: str | None = "seed",
        stat: str = "mean",
    ) -> Stat:
        """Differences of neighbours along ``dim`` in ``order``, each a paired bootstrap.

        One cell per neighbouring pair ``(a, b)`` of ``order`` and cell of the other
        dims (its coordinates gain ``"pair": "a→b"``): ``stat(b) - stat(a)`` (``a - b``
        when ``increasing=False``), judged against a region such as
        ``Region.at_least(margin)``. The record's rule is ``"ordering"``.
        """
        _check_stat(stat)
        order = list(order)
        if len(order) < 2:
            raise ValueError("an ordering needs at least two values")
        return _Ordering(measure, dim, order, increasing, over, stat)

    @staticmethod
    def fraction(measure: Callable[[Any, Any], Any], over: str | None = None) -> Stat:
        """A fraction with its Wilson interval.

        The measure returns booleans (every element one lane) or a pair
        ``(successes, n)``. With ``over`` (a DataArray dimension), one fraction per cell
        of the other dims, over ``over``; without, every element is pooled into one.
        """
        return _Fraction(measure, over)

    @staticmethod
    def count(measure: Callable[[Any, Any], Any]) -> Stat:
        """How many elements of the measure's booleans are true: an exact count."""
        return _Count(measure)

    @staticmethod
    def residual(measure: Callable[[Any, Any], Any]) -> Stat:
        """The largest absolute value of the measure's residual(s): exact (an identity)."""
        return _Residual(measure)

    @staticmethod
    def value(measure: Callable[[Any, Any], Any]) -> Stat:
        """The measure's value as it is (a count, a label, a list), for :meth:`Region.equals`."""
        return _Value(measure)


@dataclasses.dataclass(frozen=True)
class _Aggregate(Stat):
    measure: Callable[[Any, Any], Any]
    over: str | None = "seed"
    stat: str = "mean"

    def __post_init__(self):
        _check_stat(self.stat)

    def units(self, ds, spec):
        return _sample_units(self.measure(ds, spec), self.over, self.stat)


@dataclasses.dataclass(frozen=True)
class _Ratio(Stat):
    measure: Callable[[Any, Any], Any]
    den: Callable[[Any, Any], Any] | None = None
    over: str = "seed"

    def units(self, ds, spec):
        import xarray as xr

        if self.den is None:
            num, den = self.measure(ds, spec)
        else:
            num, den = self.measure(ds, spec), self.den(ds, spec)
        num, den = xr.broadcast(num, den)
        if self.over not in num.dims:
            raise ValueError(f"sample dimension {self.over!r} is not among {tuple(num.dims)}")
        pair = xr.concat([num, den], dim="__ratio_part")
        out = []
        for coords, sub in analysis.cells(pair, [self.over, "__ratio_part"]):

            def est(level, seed, sub=sub):
                return analysis.ratio_of_means(
                    sub.isel(__ratio_part=0), sub.isel(__ratio_part=1), self.over, level=level, seed=seed
                )

            out.append(_Unit(analysis.cell_label(coords), coords, est))
        return out


@dataclasses.dataclass(frozen=True)
class _Slope(Stat):
    measure: Callable[[Any, Any], Any]
    x: str
    over: str | None = "seed"
    stat: str = "mean"
    xmin: Any = None
    xmax: Any = None
    semilog: bool = False
    xvalues: Callable[[Any, Any], Any] | None = None

    def units(self, ds, spec):
        da = self.measure(ds, spec)
        fit = analysis.semilog_rate if self.semilog else analysis.loglog_slope
        xv = None if self.xvalues is None else np.asarray(self.xvalues(ds, spec), float)
        kw = {} if self.semilog else {"xvalues": xv}
        out = []
        for coords, sub in analysis.cells(da, [d for d in (self.over, self.x) if d]):

            def est(level, seed, coords=coords, sub=sub):
                return fit(
                    sub,
                    self.x,
                    self.over,
                    stat=self.stat,
                    xmin=_window(self.xmin, coords),
                    xmax=_window(self.xmax, coords),
                    level=level,
                    seed=seed,
                    **kw,
                )

            out.append(_Unit(analysis.cell_label(coords), coords, est))
        return out


@dataclasses.dataclass(frozen=True)
class _Ordering(Stat):
    measure: Callable[[Any, Any], Any]
    dim: str
    order: list
    increasing: bool = True
    over: str | None = "seed"
    stat: str = "mean"
    rule: str = "ordering"

    def record(self, region):
        return {"order": [str(o) for o in self.order], "increasing": self.increasing}, region.expected

    def units(self, ds, spec):
        da = self.measure(ds, spec)
        if self.dim not in da.dims:
            raise ValueError(f"dimension {self.dim!r} is not among {tuple(da.dims)}")
        da = da.sel({self.dim: self.order})
        sign = 1.0 if self.increasing else -1.0
        out = []
        for coords, sub in analysis.cells(da, [d for d in (self.over, self.dim) if d]):
            if self.over is None:
                arr = np.asarray(sub.transpose(self.dim).values, float)[None]
            else:
                arr = np.asarray(sub.transpose(self.over, self.dim).values, float)
            for i in range(len(self.order) - 1):

                def diff(s, i=i):
                    agg = analysis._aggregate(s, self.stat)
                    return sign * (agg[..., i + 1] - agg[..., i])

                if self.over is None:
                    est = _given(Estimate(float(diff(arr[None])[0])))
                else:

                    def est(level, seed, arr=arr, diff=diff):
                        return analysis.bootstrap(arr, diff, level=level, seed=seed)

                pair = f"{self.order[i]}→{self.order[i + 1]}"
                label = ",".join(p for p in (analysis.cell_label(coords), pair) if p)
                out.append(_Unit(label, {**coords, "pair": pair}, est))
        return out


@dataclasses.dataclass(frozen=True)
class _Fraction(Stat):
    measure: Callable[[Any, Any], Any]
    over: str | None = None

    def units(self, ds, spec):
        raw = self.measure(ds, spec)
        if self.over is not None and _is_dataarray(raw) and self.over in raw.dims:
            out = []
            for coords, sub in analysis.cells(raw, [self.over]):
                a = np.asarray(sub.values).astype(bool).ravel()
                k, n = int(a.sum()), int(a.size)
                out.append(
                    _Unit(
                        analysis.cell_label(coords),
                        coords,
                        lambda level, seed, k=k, n=n: analysis.proportion(k, n, level=level),
                    )
                )
            return out
        if isinstance(raw, tuple) and len(raw) == 2:
            k, n = int(raw[0]), int(raw[1])
        else:
            a = np.asarray(raw.values if _is_dataarray(raw) else raw).astype(bool).ravel()
            k, n = int(a.sum()), int(a.size)
        return [_Unit("", {}, lambda level, seed: analysis.proportion(k, n, level=level))]


@dataclasses.dataclass(frozen=True)
class _Count(Stat):
    measure: Callable[[Any, Any], Any]

    def units(self, ds, spec):
        raw = self.measure(ds, spec)
        a = np.asarray(raw.values if _is_dataarray(raw) else raw).astype(bool)
        return [_Unit("", {}, _exact(float(a.sum())))]


@dataclasses.dataclass(frozen=True)
class _Residual(Stat):
    measure: Callable[[Any, Any], Any]

    def units(self, ds, spec):
        raw = self.measure(ds, spec)
        if _is_dataarray(raw):
            vals = np.abs(np.asarray(raw.values, float))
        elif isinstance(raw, Mapping):
            vals = np.asarray([float(np.abs(np.asarray(v, float)).max()) for v in raw.values()])
        else:
            vals = np.abs(np.asarray(raw, float))
        return [_Unit("", {}, _exact(float(np.max(vals)) if vals.size else float("nan")))]


@dataclasses.dataclass(frozen=True)
class _Value(Stat):
    measure: Callable[[Any, Any], Any]

    def units(self, ds, spec):
        raise TypeError("Stat.value is judged by Region.equals only")


# -- regions -------------------------------------------------------------------------------


class Region:
    """The values of a statistic that agree with a statement: ``(low, high)`` per cell.

    Every bound may be a number, a function of the cell's coordinates (a mapping
    ``{dim: value}``, ``{}`` for a single cell) or a dict by cell label.

    Example:
        >>> Region.close(1.0, atol=0.1).rule, Region.at_most(lambda c: 2 * c["p"]).rule
        ('close', 'at_most')
    """

    rule: str
    expected: Any = None
    tolerance: Any = None

    def bounds(self, unit: _Unit) -> tuple[float, float]:  # pragma: no cover - abstract
        """``(low, high)`` of the region in the cell ``unit``."""
        raise NotImplementedError

    def recorded(self, units: list[_Unit], bounds: Sequence[tuple[float, float]]) -> tuple[Any, Any]:
        """``(expected, tolerance)`` as the claim's record shows them."""
        e, tol = self.expected, self.tolerance

        def expected_of(i):
            return _r(_per_cell_value(e, units[i]))

        constant = not callable(e) and not isinstance(e, Mapping)
        expected = expected_of(0) if constant else _pack(units, expected_of)
        tolerance = tol if not callable(tol) else _pack(units, lambda i: _r(_per_cell_value(tol, units[i])))
        return expected, tolerance

    @staticmethod
    def at_most(bound: Any) -> Region:
        """Values ``<= bound``."""
        return _Bound("at_most", bound)

    @staticmethod
    def at_least(bound: Any) -> Region:
        """Values ``>= bound``."""
        return _Bound("at_least", bound)

    @staticmethod
    def within(low: Any, high: Any) -> Region:
        """Values in ``[low, high]``."""
        return _Within(low, high)

    @staticmethod
    def close(expected: Any, *, atol: Any = None, rtol: float | None = None) -> Region:
        """Values within ``expected ± (atol + rtol·|expected|)``.

        ``expected`` and ``atol`` may vary per cell; ``rtol`` is one number.
        """
        if atol is None and rtol is None:
            raise ValueError("close needs atol or rtol")
        tol = atol if rtol is None else {"atol": 0.0 if atol is None else atol, "rtol": rtol}
        return _Close(expected, tol)

    @staticmethod
    def equals(expected: Any) -> Region:
        """Exactly ``expected`` (compared as JSON values: counts, labels, lists); with :meth:`Stat.value`."""
        return _Equals(expected)


@dataclasses.dataclass(frozen=True)
class _Bound(Region):
    rule: str
    expected: Any

    def bounds(self, unit):
        b = float(_per_cell_value(self.expected, unit))
        return (-_INF, b) if self.rule == "at_most" else (b, _INF)


@dataclasses.dataclass(frozen=True)
class _Within(Region):
    low: Any
    high: Any
    rule: str = "within"

    def bounds(self, unit):
        return float(_per_cell_value(self.low, unit)), float(_per_cell_value(self.high, unit))

    def recorded(self, units, bounds):
        return _pack(units, lambda i: [_r(x) for x in bounds[i]]), None


@dataclasses.dataclass(frozen=True)
class _Close(Region):
    expected: Any
    tolerance: Any
    rule: str = "close"

    def bounds(self, unit):
        e = float(_per_cell_value(self.expected, unit))
        tol = self.tolerance
        if isinstance(tol, Mapping):
            t = float(tol.get("atol", 0.0)) + float(tol.get("rtol", 0.0)) * abs(e)
        else:
            t = float(_per_cell_value(tol, unit))
        return e - t, e + t


@dataclasses.dataclass(frozen=True)
class _Equals(Region):
    expected: Any
    rule: str = "equals"

    def bounds(self, unit):
        raise TypeError("Region.equals compares a Stat.value, not an estimate")


def _pack(units: list[_Unit], f: Callable[[int], Any]) -> Any:
    """One value for a single unlabelled cell, else a dict by cell label."""
    if len(units) == 1 and units[0].label == "":
        return f(0)
    return {u.label: f(i) for i, u in enumerate(units)}


_META = ("quote", "where", "stand_in", "deterministic")


def _meta(name: str, meta: Mapping[str, Any], **defaults: Any) -> dict[str, Any]:
    """The keyword arguments every constructor passes through: quote, where, stand_in, deterministic."""
    unknown = sorted(set(meta) - set(_META))
    if unknown:
        raise TypeError(f"claim {name!r}: unknown argument(s) {unknown}; a claim also takes {list(_META)}")
    return {**defaults, **meta}


def _seed_count(ds: Any) -> int | None:
    """The number of seeds of a run's dataset (``None`` when it has no seed dimension)."""
    sizes = getattr(ds, "sizes", None)
    if sizes is None or "seed" not in sizes:
        return None
    return int(sizes["seed"])


_FEW = f"an exact statistic computed from fewer than {analysis.MIN_SAMPLE} seeds forms no interval"


def _note(est: Estimate, verdict: str) -> str | None:
    """Why a cell is an error or undecided, in a few words."""
    if verdict == "error":
        return "NaN statistic (not a censored value)"
    if verdict != "inconclusive":
        return None
    if est.exact:
        if est.value is not None and np.isfinite(est.value):
            return _FEW
        return "censored: no bound from the data"
    if np.isnan(est.low) or np.isnan(est.high):
        return f"no interval (a sample of fewer than {analysis.MIN_SAMPLE})"
    if not (np.isfinite(est.low) and np.isfinite(est.high)):
        return "one-sided interval (censored values)"
    return None  # the interval contains a boundary of the region: what inconclusive says


def _notes(units: list[_Unit], ests: list[Estimate], verdicts: list[str]) -> dict[str, str]:
    """``error`` / ``reason`` texts for cells whose verdict is an error or a seed-minimum rule."""
    out = {}
    bad = [u.label or "the statistic" for u, v in zip(units, verdicts) if v == "error"]
    if bad:
        out["error"] = "NaN statistic (not a censored value) in: " + ", ".join(bad)
    few = [
        e
        for e, v in zip(ests, verdicts)
        if v == "inconclusive" and e.exact and e.value is not None and np.isfinite(e.value)
    ]
    if few:
        out["reason"] = _FEW
    return out


def _seed_of(name: str, experiment: str = "") -> int:
    """The bootstrap seed of a claim: a hash of the experiment's and the claim's whole names.

    Claims whose names share a prefix (or two experiments' claims of one name) draw
    different resamples; the same claim always draws the same ones.
    """
    h = hashlib.sha256(f"{experiment}\0{name}".encode()).digest()
    return int.from_bytes(h[:8], "little") % (2**31)


def _per_cell_requires(f: Callable | None) -> bool:
    """True when ``requires`` takes the cell too: ``requires(ds, spec, cell)``."""
    if f is None:
        return False
    try:
        params = inspect.signature(f).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [
        p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    return len(positional) >= 3


def _cell_reason(r: Any) -> str | None:
    """What a per-cell ``requires`` returned, as the reason a cell is not applicable (or ``None``)."""
    if r is None or r is True:
        return None
    if r is False:
        return "requires() is False for this cell"
    return str(r) if r else None


@dataclasses.dataclass(frozen=True)
class Claim:
    """A named, falsifiable check of a paper's statement: a statistic judged against a region.

    ``Claim(name, statement, statistic, region, source=..., ...)`` composes a
    :class:`Stat` and a :class:`Region`; the constructors (:meth:`at_most`,
    :meth:`slope`, :meth:`ordering`...) build the common pairs.

    Attributes:
        name: short identifier (kebab-case).
        statement: the claim in words, and why it is encoded this way where that is
            not obvious.
        statistic: the :class:`Stat` measured, per cell.
        region: the :class:`Region` of values that agree with the statement.
        source: one of :data:`SOURCES`.
        requires: ``requires(ds, spec) -> str | None``: a reason the claim does not
            apply to this preset, or ``None`` when it does. A ``requires(ds, spec,
            cell)`` (three arguments) is asked per cell, with the cell's coordinates:
            ``None`` or ``True`` when the cell applies, a reason or ``False`` (or a raised
            :class:`NotApplicable`) when it does not; such cells are
            ``not-applicable`` and the verdict combines the others.
        family: split the 5% error over the cells (Bonferroni); default True.
        quote: the paper's words the claim tests, copied verbatim (whitespace aside)
            from its abstract, or from the paper itself with ``where``. Required for
            the sources ``paper`` and ``reconstruction``; ``paper-number`` takes a
            quote or a ``where``.
        where: where in the paper the quote was read (section, theorem, figure), or
            for a ``paper-number`` the authors' code location; ``None``: the abstract.
        stand_in: the stand-in data the claim runs on instead of the paper's, named
            (the page shows it beside the verdict).
        deterministic: the statistic is a deterministic function of the
            configuration (a count, an enumeration, a closed form), so an exact value
            needs no interval. An exact statistic of a run with fewer than
            :data:`~jaxtheory.analysis.MIN_SAMPLE` seeds that is not declared
            deterministic is ``inconclusive``: a statistic computed from seeds obeys
            the seed minimum whatever the constructor.

    Example:
        >>> import numpy as np, xarray as xr
        >>> T = np.array([10.0, 100.0, 1000.0])
        >>> y = np.stack([T ** -0.5, T ** -1.0], -1) * np.ones((8, 1, 1))
        >>> ds = xr.Dataset({"err": (("seed", "T", "p"), y)}, coords={"T": T, "p": [2.0, 1.0]})
        >>> c = Claim("rate", "err ∝ T^(-1/p).", Stat.slope(lambda ds, s: ds["err"], "T"),
        ...           Region.close(lambda cell: -1 / cell["p"], atol=0.05), source="derived")
        >>> r = c.evaluate(ds, None)
        >>> r.verdict, r.expected
        ('pass', {'p=2': -0.5, 'p=1': -1.0})
    """

    name: str
    statement: str
    statistic: Stat
    region: Region
    _: dataclasses.KW_ONLY
    source: str
    requires: Callable[..., Any] | None = None
    family: bool = True
    quote: str | None = None
    where: str | None = None
    stand_in: str | None = None
    deterministic: bool = False

    def __post_init__(self):
        if self.source not in SOURCES:
            raise ValueError(f"claim {self.name!r}: source must be one of {SOURCES}, not {self.source!r}")
        for key in ("quote", "where", "stand_in"):
            v = getattr(self, key)
            if v is not None and (not isinstance(v, str) or not v.strip()):
                raise ValueError(f"claim {self.name!r}: {key} must be a non-empty string or None")
        if self.source in ("paper", "reconstruction") and not self.quote:
            raise ValueError(
                f"claim {self.name!r}: source={self.source!r} tests a statement of the paper and "
                "needs quote= (its words, copied verbatim from the abstract, or from the paper "
                "with where=); a statement no sentence of the paper makes is source='proposed'"
            )
        if self.source == "paper-number" and not (self.quote or self.where):
            raise ValueError(
                f"claim {self.name!r}: source='paper-number' needs quote= (the number as printed) "
                "or where= (where in the paper or the authors' code it is)"
            )
        if not isinstance(self.statistic, Stat):
            raise TypeError(f"claim {self.name!r}: statistic must be a Stat (Stat.mean(measure), ...)")
        if not isinstance(self.region, Region):
            raise TypeError(f"claim {self.name!r}: region must be a Region (Region.at_most(x), ...)")
        if isinstance(self.region, _Equals) != isinstance(self.statistic, _Value):
            raise TypeError(f"claim {self.name!r}: Region.equals goes with Stat.value, and only with it")

    # -- what the claim records ------------------------------------------------------------
    @property
    def measure(self) -> Callable[[Any, Any], Any]:
        """The statistic's ``measure(ds, spec)``."""
        return self.statistic.measure

    def with_measure(self, measure: Callable[[Any, Any], Any]) -> Claim:
        """The same claim computed from another ``measure(ds, spec)`` (a test feeds it made-up data).

        Example:
            >>> c = Claim.at_most("low", "The loss is below 0.1.", lambda ds, s: ds["loss"], 0.1, source="proposed")
            >>> c.with_measure(lambda ds, s: 0.05).evaluate(None, None).verdict  # a number: exact
            'pass'
        """
        return dataclasses.replace(self, statistic=dataclasses.replace(self.statistic, measure=measure))

    @property
    def rule(self) -> str:
        """The kind of region, as records show it (``"at_most"``, ``"close"``, ``"ordering"``...)."""
        return self.statistic.rule or self.region.rule

    def _recorded(self) -> tuple[Any, Any]:
        """``(expected, tolerance)`` recorded where no cell was judged."""
        fixed = self.statistic.record(self.region)
        if fixed is not None:
            return fixed
        e = self.region.expected
        return (None if callable(e) else e), (
            None if callable(self.region.tolerance) else self.region.tolerance
        )

    def _base(self, verdict: str, **kw) -> ClaimResult:
        return ClaimResult(
            self.name,
            self.statement,
            self.source,
            verdict,
            rule=self.rule,
            quote=self.quote,
            where=self.where,
            stand_in=self.stand_in,
            **kw,
        )

    def _without_cells(self, verdict: str, **kw) -> ClaimResult:
        expected, tolerance = self._recorded()
        return self._base(verdict, expected=expected, tolerance=tolerance, **kw)

    # -- evaluation ----------------------------------------------------------------------------
    def evaluate(self, ds: Any, spec: Any, *, experiment: str = "") -> ClaimResult:
        """The verdict on ``ds``.

        A measurement (or ``requires``) that raises gives the verdict ``error`` with the
        exception: a bug, never a refutation. ``experiment`` (the experiment's name)
        seeds the bootstrap together with the claim's name.
        """
        seed = _seed_of(self.name, experiment)
        per_cell = _per_cell_requires(self.requires)
        try:
            if self.requires is not None and not per_cell:
                reason = self.requires(ds, spec)
                if reason:
                    return self._without_cells("not-applicable", reason=str(reason))
            if isinstance(self.region, _Equals):
                return self._equals(ds, spec)
            units = self.statistic.units(ds, spec)
            if not units:
                raise ValueError("the measure returned no cells")
            skipped = {}
            if per_cell:
                for i, u in enumerate(units):
                    try:
                        r = _cell_reason(self.requires(ds, spec, dict(u.coords)))
                    except NotApplicable as e:
                        r = str(e) or "not applicable"
                    if r is not None:
                        skipped[i] = r
            live = [u for i, u in enumerate(units) if i not in skipped]
            na = [
                CellResult(units[i].label, dict(units[i].coords), "not-applicable", note=r)
                for i, r in skipped.items()
            ]
            if not live:
                reasons = list(dict.fromkeys(skipped.values()))
                return self._without_cells("not-applicable", reason="; ".join(reasons), per_cell=tuple(na))
            level = _level(len(live), self.family)
            ests = [u.estimate(level, seed) for u in live]
            bounds = [self.region.bounds(u) for u in live]
            return self._result(
                live, ests, bounds, ds, skipped={units[i].label: r for i, r in skipped.items()}, na=na
            )
        except NotApplicable as e:
            return self._base("not-applicable", reason=str(e))
        except Exception as e:  # noqa: BLE001 - a broken measurement is reported, as an error
            return self._without_cells("error", error=f"{type(e).__name__}: {e}")

    def _equals(self, ds: Any, spec: Any) -> ClaimResult:
        from jaxtheory.sweep import store

        m = store.to_jsonable(self.statistic.measure(ds, spec))
        verdict = "pass" if m == store.to_jsonable(self.region.expected) else "fail"
        cell = CellResult("", {}, verdict, value=m)
        return self._base(verdict, expected=self.region.expected, measured=m, per_cell=(cell,))

    def _verdicts(self, ests: list[Estimate], bounds: list[tuple[float, float]], ds: Any) -> list[str]:
        """Per-cell verdicts, with the seed minimum applied to exact statistics of seeded runs."""
        seeds = _seed_count(ds)
        few = seeds is not None and seeds < analysis.MIN_SAMPLE and not self.deterministic
        out = []
        for est, (low, high) in zip(ests, bounds):
            v = _judge(est, low, high)
            if few and est.exact and v in ("pass", "fail"):
                v = "inconclusive"  # an exact value computed from fewer than 8 seeds
            out.append(v)
        return out

    def _result(
        self,
        units: list[_Unit],
        ests: list[Estimate],
        bounds: list[tuple[float, float]],
        ds: Any,
        *,
        skipped: Mapping[str, str],
        na: list[CellResult],
    ) -> ClaimResult:
        verdicts = self._verdicts(ests, bounds, ds)
        fixed = self.statistic.record(self.region)
        expected, tolerance = fixed if fixed is not None else self.region.recorded(units, bounds)
        ns = [e.n for e in ests if e.n is not None]
        notes = _notes(units, ests, verdicts)
        if skipped and "reason" not in notes:
            notes["reason"] = (
                f"not applicable in {len(skipped)} of {len(skipped) + len(units)} cells: "
                + "; ".join(f"{k or 'the statistic'} ({r})" for k, r in skipped.items())
            )
        labelled = len(units) > 1 or units[0].label or skipped
        cells = {u.label: v for u, v in zip(units, verdicts)}
        if skipped:
            cells.update({k: "not-applicable" for k in skipped})
        per_cell = tuple(
            CellResult(
                u.label,
                dict(u.coords),
                v,
                value=e.value,
                low=None if e.exact else e.low,
                high=None if e.exact else e.high,
                region=b,
                note=_note(e, v),
                n=e.n,
            )
            for u, e, b, v in zip(units, ests, bounds, verdicts)
        ) + tuple(na)
        return self._base(
            _combine(verdicts),
            **notes,
            expected=expected,
            tolerance=tolerance,
            measured=_pack(units, lambda i: _r(ests[i].value)),
            interval=_pack(units, lambda i: None if ests[i].exact else [_r(ests[i].low), _r(ests[i].high)]),
            n=min(ns) if ns else None,
            cells=cells if labelled else None,
            per_cell=per_cell,
        )

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def at_most(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        bound: Any,
        *,
        source: str,
        over: str | None = "seed",
        stat: str = "mean",
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """Passes when the statistic's interval lies at or below ``bound``.

        ``Claim(name, statement, Stat.mean(measure, over), Region.at_most(bound), ...)``
        (``Stat.median`` with ``stat="median"``).

        Args:
            name: the claim's name.
            statement: the claim in words.
            measure: ``measure(ds, spec)``: a DataArray with the sample dim ``over``
                (its ``stat`` per cell is bootstrapped), an Estimate, or exact values.
            bound: the paper's bound: a number, a function of the cell's coordinates,
                or a dict by cell label.
            source: one of :data:`SOURCES`.
            over: the sample dimension.
            stat: ``"mean"`` or ``"median"``.
            family: Bonferroni over cells.
            requires: ``requires(ds, spec) -> reason or None`` (or per cell,
                ``requires(ds, spec, cell)``; see :class:`Claim`).
            **meta: ``quote``, ``where``, ``stand_in``, ``deterministic`` (every
                constructor takes them; see :class:`Claim`).

        Returns:
            The :class:`Claim`.

        Example:
            >>> import numpy as np, xarray as xr
            >>> ds = xr.Dataset({"loss": ("seed", np.full(8, 0.05))})
            >>> c = Claim.at_most("low-loss", "The loss is below 0.1.", lambda ds, spec: ds["loss"],
            ...                   0.1, source="proposed")
            >>> c.evaluate(ds, None).verdict
            'pass'
        """
        return cls._aggregate(
            name, statement, measure, Region.at_most(bound), source, over, stat, family, requires, meta
        )

    @classmethod
    def _aggregate(
        cls, name, statement, measure, region, source, over, stat, family, requires, meta
    ) -> Claim:
        if stat not in ("mean", "median"):
            raise ValueError(f"claim {name!r}: stat must be 'mean' or 'median'")
        return cls(
            name,
            statement,
            _Aggregate(measure, over, stat),
            region,
            source=source,
            family=family,
            requires=requires,
            **_meta(name, meta),
        )

    @classmethod
    def at_least(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        bound: Any,
        *,
        source: str,
        over: str | None = "seed",
        stat: str = "mean",
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """Passes when the statistic's interval lies at or above ``bound`` (see :meth:`at_most`)."""
        return cls._aggregate(
            name, statement, measure, Region.at_least(bound), source, over, stat, family, requires, meta
        )

    @classmethod
    def within(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        low: Any,
        high: Any,
        *,
        source: str,
        over: str | None = "seed",
        stat: str = "mean",
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """Passes when the statistic's interval lies inside ``[low, high]`` (see :meth:`at_most`)."""
        return cls._aggregate(
            name, statement, measure, Region.within(low, high), source, over, stat, family, requires, meta
        )

    @classmethod
    def close(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        expected: Any,
        *,
        source: str,
        atol: Any = None,
        rtol: float | None = None,
        over: str | None = "seed",
        stat: str = "mean",
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """Passes when the interval lies within ``expected ± (atol + rtol·|expected|)``.

        ``expected`` and ``atol`` may vary per cell (a function of the cell's
        coordinates, or a dict by cell label); see :meth:`at_most` for the other
        arguments.

        Example:
            >>> import numpy as np, xarray as xr
            >>> ds = xr.Dataset({"r": ("seed", np.linspace(0.98, 1.02, 8))})
            >>> Claim.close("r", "r = 1.", lambda ds, s: ds["r"], 1.0, atol=0.1,
            ...             source="derived").evaluate(ds, None).verdict
            'pass'
        """
        if atol is None and rtol is None:
            raise ValueError(f"claim {name!r}: close needs atol or rtol")
        region = Region.close(expected, atol=atol, rtol=rtol)
        return cls._aggregate(name, statement, measure, region, source, over, stat, family, requires, meta)

    @classmethod
    def slope(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        x: str,
        *,
        source: str,
        expected: Any = None,
        atol: Any = None,
        at_most: Any = None,
        at_least: Any = None,
        over: str | None = "seed",
        stat: str = "mean",
        xmin: Any = None,
        xmax: Any = None,
        semilog: bool = False,
        xvalues: Callable[[Any, Any], Any] | None = None,
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """A log-log slope of the seed-aggregated curve along ``x``, with a bootstrap interval.

        Give exactly one of ``expected`` (with ``atol``), ``at_most`` or ``at_least``;
        each may vary per cell (a function of the cell's coordinates, e.g.
        ``lambda c: -(c["p"] - 1) / c["p"]``). ``Claim(name, statement,
        Stat.slope(measure, x, ...), Region.close(expected, atol=atol), ...)``.

        Args:
            name: the claim's name.
            statement: the claim in words.
            measure: ``measure(ds, spec)`` -> DataArray with dims ``over``, ``x`` and any
                cell dims (positive values).
            x: the dimension to fit along.
            source: one of :data:`SOURCES`.
            expected: the predicted slope.
            atol: the tolerance around ``expected``.
            at_most: the slope is at most this.
            at_least: the slope is at least this.
            over: the sample dimension (``None`` for exact curves).
            stat: aggregate over the sample (``"mean"``/``"median"``) before fitting.
            xmin: fit over ``x >= xmin`` only (the asymptotic range): a number or a
                function of the cell's coordinates.
            xmax: fit over ``x <= xmax`` only (likewise).
            semilog: fit ``log y`` against linear ``x`` (an exponential rate).
            xvalues: ``xvalues(ds, spec)`` -> abscissa values to fit against instead of
                the coordinate of ``x``.
            family: Bonferroni over cells.
            requires: ``requires(ds, spec) -> reason or None`` (or per cell).

        Returns:
            The :class:`Claim`.

        Example:
            >>> import numpy as np, xarray as xr
            >>> T = np.array([10.0, 100.0, 1000.0])
            >>> y = T ** -0.5 * np.exp(0.05 * np.random.default_rng(0).standard_normal((32, 3)))
            >>> ds = xr.Dataset({"err": (("seed", "T"), y)}, coords={"T": T})
            >>> Claim.slope("rate", "err ∝ T^-1/2.", lambda ds, s: ds["err"], "T", expected=-0.5,
            ...             atol=0.1, source="derived").evaluate(ds, None).verdict
            'pass'
        """
        given = [
            k
            for k, v in (("expected", expected), ("at_most", at_most), ("at_least", at_least))
            if v is not None
        ]
        if len(given) != 1:
            raise ValueError(f"claim {name!r}: slope needs exactly one of expected/at_most/at_least")
        if expected is not None and atol is None:
            raise ValueError(f"claim {name!r}: slope with expected needs atol")
        if stat not in ("mean", "median"):
            raise ValueError(f"claim {name!r}: stat must be 'mean' or 'median'")
        if expected is not None:
            region = _Close(expected, atol)
        elif at_most is not None:
            region = Region.at_most(at_most)
        else:
            region = Region.at_least(at_least)
        statistic = _Slope(measure, x, over, stat, xmin, xmax, semilog, xvalues)
        return cls(
            name,
            statement,
            statistic,
            region,
            source=source,
            family=family,
            requires=requires,
            **_meta(name, meta),
        )

    @classmethod
    def ordering(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        dim: str,
        order: Sequence[Any],
        *,
        source: str,
        increasing: bool = True,
        margin: float = 0.0,
        over: str | None = "seed",
        stat: str = "mean",
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """The statistic is ordered along ``dim`` as ``order`` says, each step decided by interval.

        For every neighbouring pair ``(a, b)`` of ``order`` the difference
        ``stat(b) - stat(a)`` (``a - b`` when ``increasing=False``) is bootstrapped
        over the sample with both methods resampled together (paired: they share seeds,
        see :class:`~jaxtheory.sweep.Space`'s ``paired``); the pair passes when its
        interval lies above ``margin``, fails when it lies below, and is undecided
        otherwise. ``Claim(name, statement, Stat.ordering(measure, dim, order),
        Region.at_least(margin), ...)``.

        Args:
            name: the claim's name.
            statement: the claim in words.
            measure: ``measure(ds, spec)`` -> DataArray with dims ``over``, ``dim`` and any
                cell dims.
            dim: the dimension holding the methods (or values) to order.
            order: its coordinate values, in the stated order.
            source: one of :data:`SOURCES`.
            increasing: the statistic increases along ``order`` (else it decreases).
            margin: the smallest difference that counts as ordered.
            over: the sample dimension.
            stat: ``"mean"`` or ``"median"``.
            family: Bonferroni over every pair of every cell.
            requires: ``requires(ds, spec) -> reason or None`` (or per cell).

        Returns:
            The :class:`Claim`.

        Example:
            >>> import numpy as np, xarray as xr
            >>> loss = np.array([[1.0, 2.0, 3.0]]) + 0.1 * np.random.default_rng(0).standard_normal((16, 3))
            >>> ds = xr.Dataset({"loss": (("seed", "method"), loss)}, coords={"method": ["a", "b", "c"]})
            >>> Claim.ordering("abc", "a < b < c.", lambda ds, s: ds["loss"], "method", ["a", "b", "c"],
            ...                source="proposed").evaluate(ds, None).verdict
            'pass'
        """
        order = list(order)
        if len(order) < 2:
            raise ValueError(f"claim {name!r}: an ordering needs at least two values")
        if stat not in ("mean", "median"):
            raise ValueError(f"claim {name!r}: stat must be 'mean' or 'median'")
        statistic = _Ordering(measure, dim, order, increasing, over, stat)
        return cls(
            name,
            statement,
            statistic,
            Region.at_least(margin),
            source=source,
            family=family,
            requires=requires,
            **_meta(name, meta),
        )

    @classmethod
    def identity(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        tol: float,
        *,
        source: str = "derived",
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """An exact identity holds to ``tol``: ``|residual| <= tol`` in every cell.

        ``measure`` returns the residual(s): exact values (a number, a DataArray without
        a sample dimension, a dict); the largest absolute residual decides.
        ``Claim(name, statement, Stat.residual(measure), Region.at_most(tol),
        deterministic=True, ...)``.

        Example:
            >>> Claim.identity("sum", "1 + 1 = 2.", lambda ds, s: (1.0 + 1.0) - 2.0, 1e-12).evaluate(
            ...     None, None).verdict
            'pass'
        """
        return cls(
            name,
            statement,
            _Residual(measure),
            Region.at_most(tol),
            source=source,
            requires=requires,
            **_meta(name, meta, deterministic=True),
        )

    @classmethod
    def fraction(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        *,
        source: str,
        at_least: float | None = None,
        at_most: float | None = None,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """The fraction of lanes (or instances) where a condition holds, with a Wilson interval.

        ``measure`` returns a boolean array (every element one lane) or a pair
        ``(successes, n)``. Give ``at_least`` or ``at_most``.
        ``Claim(name, statement, Stat.fraction(measure), Region.at_least(x), ...)``.

        Example:
            >>> import numpy as np
            >>> Claim.fraction("most", "At least 90% converge.", lambda ds, s: np.ones(200, bool),
            ...                at_least=0.9, source="proposed").evaluate(None, None).verdict
            'pass'
        """
        if (at_least is None) == (at_most is None):
            raise ValueError(f"claim {name!r}: fraction needs exactly one of at_least/at_most")
        region = Region.at_least(at_least) if at_least is not None else Region.at_most(at_most)
        return cls(
            name, statement, _Fraction(measure), region, source=source, requires=requires, **_meta(name, meta)
        )

    @classmethod
    def equals(
        cls,
        name: str,
        statement: str,
        measure: Callable[[Any, Any], Any],
        expected: Any,
        *,
        source: str,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """Passes when ``measure == expected`` exactly (counts, labels, orderings: no sampling).

        ``Claim(name, statement, Stat.value(measure), Region.equals(expected), ...)``.

        Example:
            >>> Claim.equals("none", "No lane diverges.", lambda ds, s: 0, 0,
            ...              source="sanity").evaluate(None, None).verdict
            'pass'
        """
        return cls(
            name,
            statement,
            _Value(measure),
            Region.equals(expected),
            source=source,
            requires=requires,
            **_meta(name, meta, deterministic=True),
        )


def _fmt_num(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def describe_rule(c: Mapping[str, Any]) -> str:
    """What a stored claim (a ``claims.json`` object) checks, in a few symbols.

    Example:
        >>> describe_rule({"rule": "close", "expected": -0.5, "tolerance": 0.08})
        '= -0.5 ± 0.08'
    """
    rule, e, t = c.get("rule"), c.get("expected"), c.get("tolerance")
    if isinstance(e, Mapping) and rule not in ("ordering",):
        e = "per cell"
    if rule == "at_most":
        return f"≤ {_fmt_num(e)}"
    if rule == "at_least":
        return f"≥ {_fmt_num(e)}"
    if rule == "within":
        return f"in {e}" if not isinstance(e, list) else f"in [{_fmt_num(e[0])}, {_fmt_num(e[1])}]"
    if rule == "close":
        if isinstance(t, Mapping):
            parts = [f"{k} {_fmt_num(v)}" for k, v in t.items() if v]
            return f"= {_fmt_num(e)} ({', '.join(parts)})"
        return f"= {_fmt_num(e)} ± {_fmt_num(t if not isinstance(t, Mapping) else t)}"
    if rule == "ordering" and isinstance(e, Mapping):
        sym = " < " if e.get("increasing", True) else " > "
        return sym.join(str(o) for o in e.get("order", []))
    if rule == "equals":
        return f"== {e}"
    return str(e)


def _fmt_end(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return x
    return _fmt_num(float(x))


def _region_text(region: Any) -> str:
    if not region:
        return ""
    lo, hi = region
    lo_open = lo in (None, "-inf") or (isinstance(lo, float) and lo == -_INF)
    hi_open = hi in (None, "inf") or (isinstance(hi, float) and hi == _INF)
    if lo_open and hi_open:
        return "any"
    if lo_open:
        return f"≤ {_fmt_end(hi)}"
    if hi_open:
        return f"≥ {_fmt_end(lo)}"
    return f"in [{_fmt_end(lo)}, {_fmt_end(hi)}]"


def _stored_cells(c: Mapping[str, Any]) -> list[dict]:
    """A stored claim's cells as ``per_cell`` records (rebuilt from older records)."""
    if c.get("per_cell"):
        return list(c["per_cell"])
    m = c.get("measured")
    if not isinstance(m, Mapping):
        return []
    iv = c.get("interval") if isinstance(c.get("interval"), Mapping) else {}
    cv = c.get("cells") if isinstance(c.get("cells"), Mapping) else {}
    out = []
    for k, v in m.items():
        i = iv.get(k)
        out.append(
            {
                "cell": k,
                "value": v,
                "low": i[0] if i else None,
                "high": i[1] if i else None,
                "verdict": cv.get(k, c.get("verdict")),
            }
        )
    return out


def describe_cells(c: Mapping[str, Any], limit: int | None = None) -> list[str]:
    """Every cell of a stored claim (a ``claims.json`` object), one line each, worst first.

    Failing cells come first, then errors, undecided cells, passing ones (the smallest
    margin to the region's boundary first) and cells that are not applicable. A line
    reads ``label  value [low, high]  region  verdict  (note)``. A claim of one
    unlabelled cell gives no lines.

    Example:
        >>> describe_cells({"per_cell": [
        ...     {"cell": "p=1", "value": 0.5, "low": 0.4, "high": 0.6, "region": [None, 1.0],
        ...      "margin": 0.4, "verdict": "pass"},
        ...     {"cell": "p=2", "value": 1.5, "low": 1.2, "high": 1.8, "region": [None, 1.0],
        ...      "margin": -0.8, "verdict": "fail"}]})
        ['p=2  1.5 [1.2, 1.8]  ≤ 1  fail', 'p=1  0.5 [0.4, 0.6]  ≤ 1  pass']
    """
    cells = _stored_cells(c)
    if not cells or (len(cells) == 1 and not cells[0].get("cell")):
        return []
    cells = sorted(cells, key=_cell_order)
    if limit is not None:
        cells = cells[:limit]
    rows = []
    for d in cells:
        v = d.get("value")
        if d.get("verdict") == "not-applicable" and v is None:
            stat = "–"
        elif d.get("low") is None and d.get("high") is None:
            stat = f"{_fmt_end(v) if not isinstance(v, (list, dict)) else v} (exact)"
        else:
            stat = f"{_fmt_end(v)} [{_fmt_end(d.get('low'))}, {_fmt_end(d.get('high'))}]"
        rows.append(
            (str(d.get("cell", "")), stat, _region_text(d.get("region")), d.get("verdict", ""), d.get("note"))
        )
    w = [max(len(r[j]) for r in rows) for j in range(3)]
    out = []
    for label, stat, region, verdict, note in rows:
        parts = [label.ljust(w[0]), stat.ljust(w[1])]
        if w[2]:
            parts.append(region.ljust(w[2]))
        parts.append(verdict + (f" ({note})" if note else ""))
        out.append("  ".join(parts).rstrip())
    return out


def describe_interval(c: Mapping[str, Any]) -> str:
    """The stored claim's interval as text: ``[lo, hi]``, ``exact``, or ``k cells``."""
    iv = c.get("interval")
    if iv is None:
        return "exact" if c.get("measured") is not None else "–"
    if isinstance(iv, Mapping):
        return f"{len(iv)} cells"
    return f"[{_fmt_num(iv[0])}, {_fmt_num(iv[1])}]"


def evaluate_claims(
    claims: Sequence[Claim], ds: Any, spec: Any, *, experiment: str = ""
) -> list[ClaimResult]:
    """Evaluate every claim on ``ds`` (``experiment`` seeds the bootstrap with each claim's name)."""
    return [c.evaluate(ds, spec, experiment=experiment) for c in claims]
