"""Claims: a paper's statement, the statistic that tests it, its interval, and a verdict.

A claim names what it tests (``statement``), where its number comes from (``source``),
the statistic measured on the results (``measure``) and the region of values that
agrees with the statement (built by a constructor from the paper's ``expected`` value
and a ``tolerance``: the very values the verdict is computed from, so what the docs
print is what was checked). The verdict is computed, never chosen:

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
computed from fewer than eight seeds is inconclusive, as a bootstrap would be. A claim over
several *cells* (every dimension of the measured DataArray that is not the sample or
the fitted dimension) is judged cell by cell, with the 5% error split over the cells
(Bonferroni), so that a true claim over twelve cells is not failed by chance in one.
The claim fails when any cell fails, is inconclusive when none fails and some is
undecided, and passes when every cell passes.

Where a claim comes from (``source``, one of :data:`SOURCES`) is part of what its
verdict means. A claim that tests what the paper states carries the paper's words,
``quote=``, copied verbatim from the abstract (or from the paper, with ``where=``
saying where it was read); the encoding takes the weakest faithful reading of those
words. ``source="reconstruction"`` is such a statement tested on a model or algorithm
rebuilt without the paper; ``stand_in=`` names data that stand in for the paper's. A
threshold no sentence of the paper gives is ``proposed``.

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
without: exact values per cell), an :class:`~jaxtheory.analysis.Estimate`, a dict of
them (or of numbers) by cell label, or a number.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from jaxtheory import analysis
from jaxtheory.analysis import Estimate

__all__ = [
    "Claim",
    "ClaimResult",
    "NotApplicable",
    "VERDICTS",
    "SOURCES",
    "PAPER_SOURCES",
    "censored_estimate",
    "evaluate_claims",
    "describe_rule",
    "describe_interval",
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
        rule: how the region is formed (``"at_most"``, ``"close"``, ``"slope"``...).
        measured: the statistic (per cell for several cells).
        interval: its interval ``[low, high]`` (per cell), ``None`` where exact.
        n: the sample size the statistic is computed from (smallest over cells).
        cells: per-cell verdicts, for a claim over several cells.
        error: the exception, when the measurement raised (verdict ``error``).
        reason: why the claim is not applicable, or why a cell is undecided.
        quote: the paper's words the claim tests (verbatim).
        where: where in the paper the quote (or the number) was read; ``None`` for the
            abstract.
        stand_in: the stand-in data the claim runs on instead of the paper's.
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

    @property
    def passed(self) -> bool:
        """True iff the verdict is ``pass``."""
        return self.verdict == "pass"

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
        return d


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


def _r(x: Any, digits: int = 6) -> Any:
    if x is None:
        return None
    x = float(x)
    if not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


def _is_dataarray(x: Any) -> bool:
    return hasattr(x, "dims") and hasattr(x, "values") and hasattr(x, "coords")


def _level(m: int, family: bool) -> float:
    return 1.0 - (1.0 - analysis.DEFAULT_LEVEL) / (m if family else 1)


@dataclasses.dataclass(frozen=True)
class _Cell:
    label: str
    coords: Mapping[str, Any]
    est: Estimate


def _to_cells(x: Any, *, over: str | None, stat: str, family: bool, seed: int) -> list[_Cell]:
    """Turn what a measure returned into cells with estimates."""
    if isinstance(x, Estimate):
        return [_Cell("", {}, x)]
    if _is_dataarray(x):
        if over is not None and over in x.dims:
            parts = analysis.cells(x, [over])
            lv = _level(len(parts), family)
            at = x.attrs.get("censored_at")
            return [
                _Cell(
                    analysis.cell_label(c),
                    c,
                    censored_estimate(
                        np.asarray(sub.transpose(over, ...).values, float),
                        stat,
                        level=lv,
                        seed=seed,
                        censored_at=at,
                    ),
                )
                for c, sub in parts
            ]
        return [
            _Cell(analysis.cell_label(c), c, Estimate(float(np.asarray(sub.values, float))))
            for c, sub in analysis.cells(x, [])
        ]
    if isinstance(x, Mapping):
        out = []
        for k, v in x.items():
            e = v if isinstance(v, Estimate) else Estimate(float(np.asarray(v, float)))
            out.append(_Cell(str(k), {}, e))
        if not out:
            raise ValueError("the measure returned no cells")
        return out
    return [_Cell("", {}, Estimate(float(np.asarray(x, float))))]


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


def _notes(cells: list[_Cell], verdicts: Mapping[str, str]) -> dict[str, str]:
    """``error`` / ``reason`` texts for cells whose verdict is an error or a seed-minimum rule."""
    out = {}
    bad = [c.label or "the statistic" for c in cells if verdicts[c.label] == "error"]
    if bad:
        out["error"] = "NaN statistic (not a censored value) in: " + ", ".join(bad)
    few = [
        c
        for c in cells
        if verdicts[c.label] == "inconclusive"
        and c.est.exact
        and c.est.value is not None
        and np.isfinite(c.est.value)
    ]
    if few:
        out["reason"] = (
            f"an exact statistic computed from fewer than {analysis.MIN_SAMPLE} seeds forms no interval"
        )
    return out


def _per_cell_value(v: Any, cell: _Cell) -> Any:
    """A per-cell parameter: a constant, a dict by cell label, or a function of the cell's coords."""
    if callable(v):
        return v(cell.coords) if cell.coords else v(cell.label)
    if isinstance(v, Mapping):
        if cell.label not in v:
            raise KeyError(f"no value for cell {cell.label!r} in {sorted(v)}")
        return v[cell.label]
    return v


def _pack(cells: list[_Cell], f: Callable[[_Cell], Any]) -> Any:
    if len(cells) == 1 and cells[0].label == "":
        return f(cells[0])
    return {c.label: f(c) for c in cells}


def _seed_of(name: str, experiment: str = "") -> int:
    """The bootstrap seed of a claim: a hash of the experiment's and the claim's whole names.

    Claims whose names share a prefix (or two experiments' claims of one name) draw
    different resamples; the same claim always draws the same ones.
    """
    h = hashlib.sha256(f"{experiment}\0{name}".encode()).digest()
    return int.from_bytes(h[:8], "little") % (2**31)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Claim:
    """A named, falsifiable check of a paper's statement, with a computed verdict.

    Build claims with the constructors (:meth:`at_most`, :meth:`slope`,
    :meth:`ordering`...); the fields are what they record.

    Attributes:
        name: short identifier (kebab-case).
        statement: the claim in words, and why it is encoded this way where that is
            not obvious.
        source: one of :data:`SOURCES`.
        measure: ``measure(ds, spec)``, the statistic's sample (see the module docs).
        rule: the kind of region: ``"at_most"``, ``"at_least"``, ``"within"``,
            ``"close"``, ``"equals"``, ``"ordering"``, ``"fraction"``.
        expected: the paper's value the region is built from: a number, a dict by cell
            label, or a function of the cell's coordinates.
        tolerance: the half-width of a ``close`` region (absolute, or ``{"rtol": r}``),
            or ``None``.
        low: lower end of the region for ``within`` (per cell like ``expected``).
        high: upper end of the region for ``within``.
        over: the sample dimension the framework bootstraps over.
        stat: ``"mean"`` or ``"median"`` over the sample dimension.
        family: split the 5% error over the cells (Bonferroni); default True.
        requires: ``requires(ds, spec) -> str | None``: a reason the claim does not
            apply to this preset, or ``None`` when it does.
        evaluate_fn: a custom evaluation ``evaluate_fn(claim, ds, spec, seed)``
            returning a :class:`ClaimResult` (for :meth:`slope` and :meth:`ordering`).
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
    """

    name: str
    statement: str
    source: str
    measure: Callable[[Any, Any], Any]
    rule: str = "close"
    expected: Any = None
    tolerance: Any = None
    low: Any = None
    high: Any = None
    over: str | None = "seed"
    stat: str = "mean"
    family: bool = True
    requires: Callable[[Any, Any], str | None] | None = None
    evaluate_fn: Callable[[Claim, Any, Any, int], ClaimResult] | None = None
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
        if self.rule not in ("at_most", "at_least", "within", "close", "equals", "ordering", "fraction"):
            raise ValueError(f"claim {self.name!r}: unknown rule {self.rule!r}")
        if self.stat not in ("mean", "median"):
            raise ValueError(f"claim {self.name!r}: stat must be 'mean' or 'median'")

    # -- evaluation --------------------------------------------------------------------
    def _region(self, cell: _Cell) -> tuple[float, float]:
        if self.rule == "at_most":
            return -_INF, float(_per_cell_value(self.expected, cell))
        if self.rule == "at_least":
            return float(_per_cell_value(self.expected, cell)), _INF
        if self.rule == "within":
            return float(_per_cell_value(self.low, cell)), float(_per_cell_value(self.high, cell))
        if self.rule == "close":
            e = float(_per_cell_value(self.expected, cell))
            tol = self.tolerance
            if isinstance(tol, Mapping):
                t = float(tol.get("atol", 0.0)) + float(tol.get("rtol", 0.0)) * abs(e)
            else:
                t = float(_per_cell_value(tol, cell))
            return e - t, e + t
        raise AssertionError(self.rule)

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

    def evaluate(self, ds: Any, spec: Any, *, experiment: str = "") -> ClaimResult:
        """The verdict on ``ds``.

        A measurement (or ``requires``) that raises gives the verdict ``error`` with the
        exception: a bug, never a refutation. ``experiment`` (the experiment's name)
        seeds the bootstrap together with the claim's name.
        """
        seed = _seed_of(self.name, experiment)
        try:
            if self.requires is not None:
                reason = self.requires(ds, spec)
                if reason:
                    return self._base(
                        "not-applicable",
                        reason=str(reason),
                        expected=None if callable(self.expected) else self.expected,
                        tolerance=self.tolerance,
                    )
            if self.evaluate_fn is not None:
                return self.evaluate_fn(self, ds, spec, seed)
            raw = self.measure(ds, spec)
            if self.rule == "equals":
                from jaxtheory.sweep import store

                m = store.to_jsonable(raw)
                ok = m == store.to_jsonable(self.expected)
                return self._base("pass" if ok else "fail", expected=self.expected, measured=m)
            cells = _to_cells(raw, over=self.over, stat=self.stat, family=self.family, seed=seed)
            regions = {c.label: self._region(c) for c in cells}
            return self._result(cells, regions, self._verdicts(cells, regions, ds))
        except NotApplicable as e:
            return self._base("not-applicable", reason=str(e))
        except Exception as e:  # noqa: BLE001 - a broken measurement is reported, as an error
            return self._base(
                "error",
                error=f"{type(e).__name__}: {e}",
                expected=None if callable(self.expected) else self.expected,
                tolerance=self.tolerance,
            )

    def _verdicts(
        self, cells: list[_Cell], regions: Mapping[str, tuple[float, float]], ds: Any
    ) -> dict[str, str]:
        """Per-cell verdicts, with the seed minimum applied to exact statistics of seeded runs."""
        seeds = _seed_count(ds)
        few = seeds is not None and seeds < analysis.MIN_SAMPLE and not self.deterministic
        out = {}
        for c in cells:
            v = _judge(c.est, *regions[c.label])
            if few and c.est.exact and v in ("pass", "fail"):
                v = "inconclusive"  # an exact value computed from fewer than 8 seeds
            out[c.label] = v
        return out

    def _result(
        self, cells: list[_Cell], regions: Mapping[str, tuple[float, float]], verdicts: Mapping[str, str]
    ) -> ClaimResult:
        def expected_of(c):
            if self.rule == "within":
                return [_r(x) for x in regions[c.label]]
            return _r(_per_cell_value(self.expected, c))

        ns = [c.est.n for c in cells if c.est.n is not None]
        constant = not callable(self.expected) and not isinstance(self.expected, Mapping)
        notes = _notes(cells, verdicts)
        return self._base(
            _combine(list(verdicts.values())),
            **notes,
            expected=expected_of(cells[0])
            if constant and self.rule != "within"
            else _pack(cells, expected_of),
            tolerance=self.tolerance
            if not callable(self.tolerance)
            else _pack(cells, lambda c: _r(_per_cell_value(self.tolerance, c))),
            measured=_pack(cells, lambda c: _r(c.est.value)),
            interval=_pack(cells, lambda c: None if c.est.exact else [_r(c.est.low), _r(c.est.high)]),
            n=min(ns) if ns else None,
            cells=dict(verdicts) if len(cells) > 1 or cells[0].label else None,
        )

    # -- constructors -------------------------------------------------------------------
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

        Args:
            name: the claim's name.
            statement: the claim in words.
            measure: ``measure(ds, spec)``: a DataArray with the sample dim ``over``
                (its ``stat`` per cell is bootstrapped), an Estimate, or exact values.
            bound: the paper's bound: a number, a dict by cell label, or a function of
                the cell's coordinates.
            source: one of :data:`SOURCES`.
            over: the sample dimension.
            stat: ``"mean"`` or ``"median"``.
            family: Bonferroni over cells.
            requires: ``requires(ds, spec) -> reason or None``.
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
        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule="at_most",
            expected=bound,
            over=over,
            stat=stat,
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
        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule="at_least",
            expected=bound,
            over=over,
            stat=stat,
            family=family,
            requires=requires,
            **_meta(name, meta),
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
        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule="within",
            low=low,
            high=high,
            over=over,
            stat=stat,
            family=family,
            requires=requires,
            **_meta(name, meta),
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

        ``expected`` and ``atol`` may vary per cell (a dict by cell label or a function
        of the cell's coordinates); see :meth:`at_most` for the other arguments.

        Example:
            >>> import numpy as np, xarray as xr
            >>> ds = xr.Dataset({"r": ("seed", np.linspace(0.98, 1.02, 8))})
            >>> Claim.close("r", "r = 1.", lambda ds, s: ds["r"], 1.0, atol=0.1,
            ...             source="derived").evaluate(ds, None).verdict
            'pass'
        """
        if atol is None and rtol is None:
            raise ValueError(f"claim {name!r}: close needs atol or rtol")
        tol = atol if rtol is None else {"atol": 0.0 if atol is None else atol, "rtol": rtol}
        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule="close",
            expected=expected,
            tolerance=tol,
            over=over,
            stat=stat,
            family=family,
            requires=requires,
            **_meta(name, meta),
        )

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
        xmin: float | None = None,
        xmax: float | None = None,
        semilog: bool = False,
        xvalues: Callable[[Any, Any], Any] | None = None,
        family: bool = True,
        requires: Callable | None = None,
        **meta: Any,
    ) -> Claim:
        """A log-log slope of the seed-aggregated curve along ``x``, with a bootstrap interval.

        Give exactly one of ``expected`` (with ``atol``), ``at_most`` or ``at_least``;
        each may vary per cell (a function of the cell's coordinates, e.g.
        ``lambda c: -(c["p"] - 1) / c["p"]``).

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
            xmin: fit over ``x >= xmin`` only (the asymptotic range).
            xmax: fit over ``x <= xmax`` only.
            semilog: fit ``log y`` against linear ``x`` (an exponential rate).
            xvalues: ``xvalues(ds, spec)`` -> abscissa values to fit against instead of
                the coordinate of ``x``.
            family: Bonferroni over cells.
            requires: ``requires(ds, spec) -> reason or None``.

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
        rule = {"expected": "close", "at_most": "at_most", "at_least": "at_least"}[given[0]]
        target = {"close": expected, "at_most": at_most, "at_least": at_least}[rule]
        fit = analysis.semilog_rate if semilog else analysis.loglog_slope

        def slopes(ds, spec, seed):
            da = measure(ds, spec)
            keep = [d for d in (over, x) if d]
            parts = analysis.cells(da, keep)
            lv = _level(len(parts), family)
            xv = None if xvalues is None else np.asarray(xvalues(ds, spec), float)
            out = []
            for coords, sub in parts:
                kw = {} if semilog else {"xvalues": xv}
                est = fit(sub, x, over, stat=stat, xmin=xmin, xmax=xmax, level=lv, seed=seed, **kw)
                out.append(_Cell(analysis.cell_label(coords), coords, est))
            return out

        def evaluate(self, ds, spec, seed):
            cells = slopes(ds, spec, seed)
            regions = {c.label: self._region(c) for c in cells}
            return self._result(cells, regions, self._verdicts(cells, regions, ds))

        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule=rule,
            expected=target,
            tolerance=atol,
            over=over,
            stat=stat,
            family=family,
            requires=requires,
            evaluate_fn=evaluate,
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
        otherwise.

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
            requires: ``requires(ds, spec) -> reason or None``.

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

        def evaluate(self, ds, spec, seed):
            da = measure(ds, spec)
            if dim not in da.dims:
                raise ValueError(f"dimension {dim!r} is not among {tuple(da.dims)}")
            da = da.sel({dim: order})
            parts = analysis.cells(da, [d for d in (over, dim) if d])
            pairs = len(parts) * (len(order) - 1)
            lv = _level(pairs, family)
            cells = []
            for coords, sub in parts:
                if over is None:
                    arr = np.asarray(sub.transpose(dim).values, float)[None]
                else:
                    arr = np.asarray(sub.transpose(over, dim).values, float)
                for i in range(len(order) - 1):
                    sign = 1.0 if increasing else -1.0

                    def diff(s, i=i, sign=sign):
                        agg = analysis._aggregate(s, stat)
                        return sign * (agg[..., i + 1] - agg[..., i])

                    if over is None:
                        est = Estimate(float(diff(arr[None])[0]))
                    else:
                        est = analysis.bootstrap(arr, diff, level=lv, seed=seed)
                    pair = f"{order[i]}→{order[i + 1]}"
                    label = ",".join(p for p in (analysis.cell_label(coords), pair) if p)
                    cells.append(_Cell(label, coords, est))
            verdicts = self._verdicts(cells, {c.label: (margin, _INF) for c in cells}, ds)
            ns = [c.est.n for c in cells if c.est.n is not None]
            return self._base(
                _combine(list(verdicts.values())),
                **_notes(cells, verdicts),
                expected={"order": [str(o) for o in order], "increasing": increasing},
                tolerance=margin,
                measured={c.label: _r(c.est.value) for c in cells},
                interval={c.label: None if c.est.exact else [_r(c.est.low), _r(c.est.high)] for c in cells},
                n=min(ns) if ns else None,
                cells=dict(verdicts),
            )

        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule="ordering",
            expected={"order": [str(o) for o in order], "increasing": increasing},
            tolerance=margin,
            over=over,
            stat=stat,
            family=family,
            requires=requires,
            evaluate_fn=evaluate,
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

        Example:
            >>> Claim.identity("sum", "1 + 1 = 2.", lambda ds, s: (1.0 + 1.0) - 2.0, 1e-12).evaluate(
            ...     None, None).verdict
            'pass'
        """

        def residual(ds, spec):
            raw = measure(ds, spec)
            if _is_dataarray(raw):
                vals = np.abs(np.asarray(raw.values, float))
            elif isinstance(raw, Mapping):
                vals = np.abs(np.asarray([float(np.asarray(v, float).max()) for v in raw.values()]))
            else:
                vals = np.abs(np.asarray(raw, float))
            return float(np.max(vals)) if vals.size else float("nan")

        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=residual,
            rule="at_most",
            expected=tol,
            over=None,
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

        Example:
            >>> import numpy as np
            >>> Claim.fraction("most", "At least 90% converge.", lambda ds, s: np.ones(200, bool),
            ...                at_least=0.9, source="proposed").evaluate(None, None).verdict
            'pass'
        """
        if (at_least is None) == (at_most is None):
            raise ValueError(f"claim {name!r}: fraction needs exactly one of at_least/at_most")

        def estimate(ds, spec):
            raw = measure(ds, spec)
            if isinstance(raw, tuple) and len(raw) == 2:
                k, n = int(raw[0]), int(raw[1])
            else:
                a = np.asarray(raw.values if _is_dataarray(raw) else raw).astype(bool).ravel()
                k, n = int(a.sum()), int(a.size)
            return analysis.proportion(k, n)

        rule = "at_least" if at_least is not None else "at_most"
        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=estimate,
            rule=rule,
            expected=at_least if at_least is not None else at_most,
            over=None,
            requires=requires,
            **_meta(name, meta),
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

        Example:
            >>> Claim.equals("none", "No lane diverges.", lambda ds, s: 0, 0,
            ...              source="sanity").evaluate(None, None).verdict
            'pass'
        """
        return cls(
            name=name,
            statement=statement,
            source=source,
            measure=measure,
            rule="equals",
            expected=expected,
            over=None,
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
