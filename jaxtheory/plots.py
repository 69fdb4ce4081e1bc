"""Standard figures of the experiments, declared or drawn from labelled results.

Declared figures: a factory names what a figure shows and returns the
``draw(ds, spec, fig)`` an experiment's :class:`jaxtheory.Figure` takes (a :class:`Draw`):

* :func:`curves`: a metric against a coordinate ``x``, one line per ``hue`` value, with
  the spread over seeds (median and interquartile range, or mean ± standard error);
* :func:`heatmap`: a metric over two axes on their real coordinates (log-spaced axes on
  log scales, ticks at coordinate values), samples reduced per cell;
* :func:`slope`: points on log-log axes with the fitted power law of
  :func:`jaxtheory.analysis.loglog_slope`, its slope and interval in the legend;
* :func:`intervals`: a claim's (or a measure's) estimate and interval per cell, colored by
  verdict, over the region that agrees with the statement.

A metric is a data variable's name or a function ``(ds, spec) -> DataArray`` (a claim's
measure can be reused). Each takes ``theory=``, a function of the coordinates and the
spec drawn over the data; every dimension the figure does not map (to ``x``, ``hue``,
``y``, the samples ``over``) and that is longer than one becomes a facet, a panel per
value, so a static axis swept by one preset and not another needs no branch (a scalar
coordinate draws like a length-one dimension). A figure whose claim does not apply to the
preset (``requires=``), or whose metric raises :class:`~jaxtheory.claims.NotApplicable`,
says so on the figure by itself.

Drawn on an axes now, from a DataArray whose dimensions say what is plotted against what
(what the factories use, and what a hand-drawn figure calls):

* :func:`curves_on` (also ``curves(ax, da, x, ...)``), :func:`lr_sweep` (loss against
  log₂ learning rate, one curve per width, the μP convention), :func:`heatmap_on` (also
  ``heatmap(ax, da, x, y, ...)``), :func:`slope_fit` (points and a given power law).

:func:`check_drawn` turns a figure that draws no data into an error (the report and
the docs build call it on every experiment figure); :func:`not_applicable` is how a
figure says, on purpose, that the preset has nothing for it.

Only numpy, xarray and matplotlib are used (never ``pyplot``: figures are drawn on the
:class:`~matplotlib.figure.Figure` or :class:`~matplotlib.axes.Axes` they are given).
Statistics for claims (slopes with intervals, the tuning protocol) belong to
:mod:`jaxtheory.analysis`; the functions here draw, and :func:`slope` and
:func:`intervals` draw what analysis and the claims compute.

Example:
    >>> import numpy as np, xarray as xr
    >>> from matplotlib.figure import Figure
    >>> rng = np.random.default_rng(0)
    >>> ds = xr.Dataset({"risk": (("step", "seed"), rng.normal(size=(5, 8)) + np.arange(5)[:, None])},
    ...                 coords={"step": np.arange(5)})
    >>> draw = curves("risk", x="step", band="se")   # Figure("risk", draw, caption=...)
    >>> fig = Figure()
    >>> draw(ds, None, fig)
    >>> check_drawn(fig, "demo")
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import matplotlib
import matplotlib.axes
import matplotlib.collections
import matplotlib.ticker
import numpy as np
import xarray as xr

from jaxtheory.results import match

__all__ = [
    "curves",
    "heatmap",
    "slope",
    "intervals",
    "Draw",
    "summarize_over",
    "curves_on",
    "lr_sweep",
    "cell_edges",
    "heatmap_on",
    "slope_fit",
    "not_applicable",
    "check_drawn",
    "EmptyFigureError",
    "NOT_APPLICABLE_GID",
]

#: The ``gid`` of the note drawn by :func:`not_applicable`; :func:`check_drawn` lets an
#: axes holding it pass without data.
NOT_APPLICABLE_GID = "jaxtheory-not-applicable"

_BANDS = ("iqr", "se", None)


# -- statistics over the sample dimension ----------------------------------------------


def summarize_over(
    da: xr.DataArray, over: str = "seed", band: str | None = "iqr", skipna: bool = False
) -> tuple[xr.DataArray, xr.DataArray, xr.DataArray]:
    """The center line and band of ``da`` over its sample dimension ``over``.

    Args:
        da: the samples; ``over`` is one of its dimensions.
        over: the sample dimension (seeds, instances) reduced.
        band: ``"iqr"``: median, 25% and 75% quantiles (numpy's default linear
            interpolation); ``"se"``: mean and mean ± its standard error (sample
            standard deviation with ``ddof=1`` over ``sqrt(n)``); ``None``: the median,
            with no band (low and high are the median too).
        skipna: ``False`` (the default): a point with any NaN sample (a diverged lane) is
            NaN, so the figure shows a gap rather than the survivors' statistic;
            ``True``: NaN samples are dropped and the statistic is over the others
            (with ``"se"``, ``n`` counts the finite ones).

    Returns:
        ``(center, low, high)``, each ``da`` without ``over``.

    Raises:
        ValueError: ``over`` is not a dimension of ``da``, or ``band`` is unknown.

    Example:
        >>> import xarray as xr
        >>> da = xr.DataArray([[1.0, 2.0, 3.0, 10.0]], dims=("x", "seed"))
        >>> [float(v[0]) for v in summarize_over(da)]
        [2.5, 1.75, 4.75]
        >>> [round(float(v[0]), 3) for v in summarize_over(da, band="se")]
        [4.0, 1.959, 6.041]
    """
    _check_band(band)
    if not isinstance(da, xr.DataArray):
        raise TypeError(f"expected an xarray.DataArray, got {type(da).__name__}")
    if over not in da.dims:
        raise ValueError(
            f"the sample dimension {over!r} is not a dimension of the data "
            f"(dims {tuple(da.dims)}); pass over=<the dimension holding seeds>"
        )
    ax = da.get_axis_num(over)
    v = np.asarray(da.values, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN, as wanted
        if band == "se":
            if skipna:
                n = np.sum(np.isfinite(v), axis=ax)
                center = np.nanmean(v, axis=ax)
                sd = np.nanstd(v, axis=ax, ddof=1)  # NaN where fewer than two are finite
            else:
                n = v.shape[ax]
                center = np.mean(v, axis=ax)
                sd = np.std(v, axis=ax, ddof=1)  # NaN for a single sample
            se = sd / np.sqrt(n)
            low, high = center - se, center + se
        else:
            q = np.nanquantile if skipna else np.quantile
            center, low, high = q(v, [0.5, 0.25, 0.75], axis=ax)
            if not skipna:  # np.quantile does not propagate NaN on every numpy version
                bad = np.isnan(v).any(axis=ax)
                center, low, high = (np.where(bad, np.nan, a) for a in (center, low, high))
            if band is None:
                low = high = center
    template = da.isel({over: 0}, drop=True)
    return tuple(template.copy(data=np.asarray(a, float)) for a in (center, low, high))


def _check_band(band):
    if band not in _BANDS:
        raise ValueError(f"band must be one of {_BANDS}, got {band!r}")


def _scale(ax, which: str, log) -> None:
    if log is False or log is None:
        return
    base = 10 if log is True else float(log)
    if base <= 1:
        raise ValueError(f"a log axis needs a base > 1, got {log!r}")
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=base)


def _label(fmt, name: str, v: Any) -> str:
    if fmt is None:
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return f"{name}={v:g}"
        return str(v)
    if callable(fmt):
        return str(fmt(v))
    return fmt.format(v)


def _only_dims(da: xr.DataArray, keep: Sequence[str], what: str) -> xr.DataArray:
    """Squeeze size-one dimensions outside ``keep``; refuse any longer one."""
    for k in keep:
        if k not in da.dims:
            raise ValueError(f"{what}: {k!r} is not a dimension of the data (dims {tuple(da.dims)})")
    extra = {d: n for d, n in da.sizes.items() if d not in keep}
    long = {d: n for d, n in extra.items() if n > 1}
    if long:
        raise ValueError(
            f"{what}: the data has dimension(s) {long} besides {tuple(keep)}; "
            "select or reduce them first (e.g. da.sel(...) or da.isel(...))"
        )
    return da.isel({d: 0 for d in extra}, drop=True) if extra else da


def _coord_values(da: xr.DataArray, dim: str) -> np.ndarray:
    return np.asarray(da[dim].values) if dim in da.coords else np.arange(da.sizes[dim])


def _is_numeric(v: np.ndarray) -> bool:
    return v.dtype.kind in "iufb"


# -- curves -----------------------------------------------------------------------------


def curves_on(
    ax,
    da: xr.DataArray,
    x: str,
    *,
    over: str = "seed",
    hue: str | None = None,
    band: str | None = "iqr",
    log: tuple[Any, Any] = (False, False),
    label_fmt: str | Callable[[Any], str] | None = None,
    cmap: str | None = None,
    skipna: bool = False,
    alpha: float = 0.2,
    xpos: xr.DataArray | None = None,
    **line_kw,
) -> list:
    """A statistic against ``x`` with its spread over ``over``, one line per ``hue`` value.

    Each line is the median (``band="iqr"``, the band from the 25% to the 75% quantile)
    or the mean (``band="se"``, the band mean ± standard error) of the samples along
    ``over``; see :func:`summarize_over`.

    Args:
        ax: the :class:`matplotlib.axes.Axes` to draw on.
        da: the data, with dimensions ``x``, ``over`` and (when given) ``hue``; other
            dimensions of size one are dropped, longer ones are an error.
        x: the dimension on the horizontal axis (its coordinate values are the
            positions; a non-numeric coordinate is drawn at 0, 1, ... with its labels).
        over: the sample dimension reduced into the line and band.
        hue: the dimension with one line per value, in coordinate order (``None``: one line).
        band: ``"iqr"``, ``"se"`` or ``None`` (a median line, no band).
        log: ``(x, y)``: ``False``, ``True`` (base 10) or a base such as ``2``.
        label_fmt: legend label of a hue value: a format string (``"N={:g}"``) or a
            callable; default ``"<hue>=<value>"`` for numbers, the value for strings.
        cmap: a colormap name to color ordered hue values (e.g. ``"viridis"``);
            default the axes' color cycle.
        skipna: drop NaN samples instead of leaving a gap (see :func:`summarize_over`).
        alpha: opacity of the band.
        xpos: the abscissae of the points, when they are not ``x``'s coordinate values:
            dims ``x`` (and ``hue``, for one abscissa per line), e.g. the mean
            function evaluations after each step.
        **line_kw: passed to :meth:`~matplotlib.axes.Axes.plot` (``marker``, ``lw``, ``ls``,
            ``label`` when there is no hue, ...).

    Returns:
        The center lines (:class:`~matplotlib.lines.Line2D`), one per hue value.

    Raises:
        ValueError: a named dimension is missing or an unnamed one is longer than one.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> rng = np.random.default_rng(0)
        >>> da = xr.DataArray(rng.lognormal(size=(3, 10, 6)), dims=("width", "step", "seed"),
        ...                   coords={"width": [64, 128, 256], "step": np.arange(1, 11)})
        >>> ax = Figure().add_subplot()
        >>> lines = curves_on(ax, da, "step", hue="width", log=(True, True), label_fmt="N={}")
        >>> [ln.get_label() for ln in lines], ax.get_yscale()
        (['N=64', 'N=128', 'N=256'], 'log')
    """
    _check_band(band)
    keep = [x, over] + ([hue] if hue is not None else [])
    if len(set(keep)) != len(keep):
        raise ValueError(f"curves: x, over and hue must be different dimensions, got {keep}")
    da = _only_dims(da, keep, "curves")
    xv = _coord_values(da, x)
    categorical = not _is_numeric(xv) and xv.dtype.kind != "M"
    pos = np.arange(len(xv)) if categorical else xv
    center, low, high = summarize_over(da, over, band, skipna=skipna)
    hues = list(_coord_values(da, hue)) if hue is not None else [None]
    colors = None
    if cmap is not None:
        cm = matplotlib.colormaps[cmap]
        colors = [cm(0.1 + 0.8 * i / max(len(hues) - 1, 1)) for i in range(len(hues))]
    if xpos is not None:
        xpos = _only_dims(xpos, [x] + ([hue] if hue is not None and hue in xpos.dims else []), "curves")
        categorical = False
    lines = []
    for i, h in enumerate(hues):
        sel = {hue: i} if hue is not None else {}
        c, lo, hi = (a.isel(sel).transpose(x).values for a in (center, low, high))
        if xpos is not None:
            pos = np.asarray(
                xpos.isel({k: v for k, v in sel.items() if k in xpos.dims}).transpose(x).values, float
            )
        kw = dict(line_kw)
        if h is not None:
            kw.setdefault("label", _label(label_fmt, hue, h))
        if colors is not None:
            kw.setdefault("color", colors[i])
        (line,) = ax.plot(pos, c, **kw)
        if band is not None:
            ax.fill_between(pos, lo, hi, color=line.get_color(), alpha=alpha, lw=0)
        lines.append(line)
    if categorical:
        ax.set_xticks(pos, [str(v) for v in xv])
    _scale(ax, "x", log[0])
    _scale(ax, "y", log[1])
    if not ax.get_xlabel():
        ax.set_xlabel(x)
    return lines


def lr_sweep(
    ax,
    da: xr.DataArray,
    *,
    lr: str = "lr",
    width: str = "width",
    over: str = "seed",
    band: str | None = "iqr",
    logy: bool = True,
    minimize: bool = True,
    label_fmt: str | Callable[[Any], str] | None = "N={:g}",
    cmap: str = "viridis",
    skipna: bool = False,
    **line_kw,
) -> dict:
    """Loss against log₂ learning rate, one curve per width, each width's best marked.

    The μP convention (Yang et al. 2022, arXiv 2203.03466, Fig. 1): when learning rates
    transfer across widths, the curves' minima line up. The marker (a star) is the
    extremum of each width's center line, aggregated over seeds first; a claim about
    the best learning rate should come from :mod:`jaxtheory.analysis`, which also
    reports ties.

    Args:
        ax: the axes to draw on.
        da: the final losses, with dimensions ``lr``, ``width`` and ``over`` (other
            dimensions of size one are dropped).
        lr: the learning-rate dimension (positive values; drawn as their log₂).
        width: the dimension with one curve per value.
        over: the sample dimension (see :func:`curves`).
        band: ``"iqr"``, ``"se"`` or ``None``.
        logy: draw the loss on a log axis.
        minimize: mark the smallest center value (``False``: the largest, e.g. accuracy).
        label_fmt: legend label of a width (format string or callable).
        cmap: colormap of the widths, smallest to largest.
        skipna: drop NaN samples (default: a learning rate where a seed diverged is a gap).
        **line_kw: passed to :meth:`~matplotlib.axes.Axes.plot` (default marker ``"o"``).

    Returns:
        ``{width value: (line, best marker or None)}``; the marker is ``None`` when the
        width has no finite point.

    Raises:
        ValueError: a learning rate is not positive, or a dimension is missing.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> lrs = 2.0 ** np.arange(-6, 1)
        >>> loss = (np.log2(lrs)[None, :, None] + 3) ** 2 + 1 + 0.1 * np.ones((2, 1, 4))
        >>> da = xr.DataArray(loss, dims=("width", "lr", "seed"),
        ...                   coords={"width": [128, 512], "lr": lrs})
        >>> out = lr_sweep(Figure().add_subplot(), da)
        >>> [float(star.get_xdata()[0]) for _, star in out.values()]
        [-3.0, -3.0]
    """
    da = _only_dims(da, [lr, width, over], "lr_sweep")
    lrv = np.asarray(_coord_values(da, lr), float)
    if not np.all(lrv > 0):
        raise ValueError(f"lr_sweep: the {lr!r} values must be positive to take log₂, got {lrv}")
    da = da.assign_coords({lr: np.log2(lrv)})
    line_kw.setdefault("marker", "o")
    line_kw.setdefault("ms", 3)
    lines = curves_on(
        ax,
        da,
        lr,
        over=over,
        hue=width,
        band=band,
        log=(False, logy),
        label_fmt=label_fmt,
        cmap=cmap,
        skipna=skipna,
        **line_kw,
    )
    center, _, _ = summarize_over(da, over, band, skipna=skipna)
    out = {}
    for i, (w, line) in enumerate(zip(_coord_values(da, width), lines)):
        c = center.isel({width: i}).transpose(lr).values
        star = None
        if np.isfinite(c).any():
            b = int(np.nanargmin(c) if minimize else np.nanargmax(c))
            (star,) = ax.plot(
                [da[lr].values[b]], [c[b]], "*", ms=11, color=line.get_color(), mec="k", zorder=3
            )
        out[w.item() if hasattr(w, "item") else w] = (line, star)
    ax.set_xlabel(f"log₂ {lr}")
    return out


# -- heatmap ----------------------------------------------------------------------------


def _auto_log(v: np.ndarray) -> bool:
    """Log spacing when the values are positive and more evenly spaced in log than linearly."""
    if not _is_numeric(v) or v.size < 2 or not np.all(v > 0):
        return False
    v = np.sort(v.astype(float))
    if v.size == 2:
        return v[1] / v[0] >= 10
    d, dl = np.diff(v), np.diff(np.log(v))
    return np.std(dl) / np.mean(dl) < np.std(d) / np.mean(d)


def cell_edges(values: Sequence[float], log: bool = False) -> np.ndarray:
    """Edges of the cells centred on sorted coordinate ``values``: ``len(values) + 1`` numbers.

    Inner edges are midpoints between neighbours (geometric midpoints when ``log``); the
    outer edges mirror the nearest inner one, so each end cell is centred on its value.
    A single value gets the cell ``v ± 0.5`` (``v/√2 .. v·√2`` when ``log``).

    Args:
        values: strictly increasing numbers (positive when ``log``).
        log: midpoints in log space, for a log-spaced axis.

    Returns:
        The edges, increasing.

    Raises:
        ValueError: values not strictly increasing, or not positive with ``log``.

    Example:
        >>> cell_edges([1.0, 2.0, 4.0]).tolist()
        [0.5, 1.5, 3.0, 5.0]
        >>> cell_edges([1.0, 4.0, 16.0], log=True).round(9).tolist()
        [0.5, 2.0, 8.0, 32.0]
    """
    v = np.asarray(values, float)
    if v.ndim != 1 or v.size == 0:
        raise ValueError(f"cell_edges: expected a non-empty 1-D sequence, got shape {v.shape}")
    if v.size > 1 and not np.all(np.diff(v) > 0):
        raise ValueError(f"cell_edges: values must be strictly increasing, got {v}")
    if log:
        if not np.all(v > 0):
            raise ValueError(f"cell_edges: log-spaced values must be positive, got {v}")
        if v.size == 1:
            return v[0] * np.array([2**-0.5, 2**0.5])
        return np.exp(cell_edges(np.log(v)))
    if v.size == 1:
        return v[0] + np.array([-0.5, 0.5])
    mid = (v[:-1] + v[1:]) / 2
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def heatmap_on(
    ax,
    da: xr.DataArray,
    x: str,
    y: str,
    *,
    log: Any = "auto",
    cmap: str = "viridis",
    colorbar: bool = True,
    label: str | None = None,
    **mesh_kw,
):
    """``da`` over two axes as colored cells centred on their real coordinate values.

    Cells are drawn with :meth:`~matplotlib.axes.Axes.pcolormesh` on edges from
    :func:`cell_edges`, so a learning rate of 0.1 sits at 0.1 on the axis, whatever the
    grid; an axis whose values are log-spaced is drawn on a log scale with geometric cell
    edges. A non-numeric coordinate (method names) is drawn at 0, 1, ... with its labels.
    Coordinates need not be sorted; NaN cells are left blank.

    Args:
        ax: the axes to draw on.
        da: the values, with dimensions ``x`` and ``y`` (others of size one are dropped).
        x: the dimension along the horizontal axis.
        y: the dimension along the vertical axis.
        log: ``"auto"`` (log when the values are positive and more evenly spaced in log
            than linearly; two values: when they span a decade), a bool, or a pair
            ``(x, y)`` of those.
        cmap: the colormap.
        colorbar: add a colorbar beside ``ax`` (it is ``mesh.colorbar``).
        label: the colorbar's label (default ``da.name``).
        **mesh_kw: passed to :meth:`~matplotlib.axes.Axes.pcolormesh` (``vmin``, ``vmax``,
            ``norm=matplotlib.colors.LogNorm()``, ...).

    Returns:
        The :class:`~matplotlib.collections.QuadMesh`.

    Raises:
        ValueError: a dimension is missing, an extra one is longer than one, or a
            coordinate repeats a value.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> da = xr.DataArray(np.arange(6.0).reshape(2, 3), dims=("momentum", "lr"),
        ...                   coords={"momentum": [0.0, 0.9], "lr": [0.01, 0.1, 1.0]}, name="loss")
        >>> ax = Figure().add_subplot()
        >>> mesh = heatmap_on(ax, da, "lr", "momentum")
        >>> ax.get_xscale(), ax.get_yscale(), mesh.get_coordinates().shape
        ('log', 'linear', (3, 4, 2))
    """
    if x == y:
        raise ValueError(f"heatmap: x and y must be different dimensions, got {x!r} twice")
    da = _only_dims(da, [x, y], "heatmap")
    logs = (log, log) if not isinstance(log, (tuple, list)) else tuple(log)
    if len(logs) != 2:
        raise ValueError(f"heatmap: log must be 'auto', a bool or a pair, got {log!r}")
    edges, ticks = [], []
    for dim, lg, which in ((x, logs[0], "x"), (y, logs[1], "y")):
        v = _coord_values(da, dim)
        if not _is_numeric(v):
            edges.append(np.arange(v.size + 1) - 0.5)
            ticks.append((np.arange(v.size), [str(s) for s in v]))
            continue
        if np.unique(v).size != v.size:
            raise ValueError(f"heatmap: the {dim!r} coordinate repeats a value: {v}")
        if dim in da.coords:
            da = da.sortby(dim)
        v = np.asarray(_coord_values(da, dim), float)
        use_log = _auto_log(v) if lg == "auto" else bool(lg)
        edges.append(cell_edges(v, log=use_log))
        ticks.append(None)
        if use_log:
            (ax.set_xscale if which == "x" else ax.set_yscale)("log")
    z = np.ma.masked_invalid(np.asarray(da.transpose(y, x).values, float))
    mesh = ax.pcolormesh(edges[0], edges[1], z, cmap=cmap, **mesh_kw)
    for t, which in zip(ticks, "xy"):
        if t is not None:
            (ax.set_xticks if which == "x" else ax.set_yticks)(*t)
    if not ax.get_xlabel():
        ax.set_xlabel(x)
    if not ax.get_ylabel():
        ax.set_ylabel(y)
    if colorbar:
        ax.figure.colorbar(mesh, ax=ax, label=label if label is not None else (da.name or ""))
    return mesh


# -- fitted power law ---------------------------------------------------------------------


def slope_fit(
    ax,
    x,
    y,
    slope: Any,
    interval: tuple[float, float] | None = None,
    *,
    intercept: float | None = None,
    label: str | None = None,
    yerr: Any = None,
    theory: float | None = None,
    theory_label: str | None = None,
    color: Any = None,
    marker: str = "o",
    level: str = "95% CI",
    base: float = 10,
) -> dict:
    """Points on log-log axes and the fitted power law ``y = e^intercept · x^slope``.

    The slope comes from the caller (e.g. :func:`jaxtheory.analysis.loglog_slope`); it
    is drawn, not fitted here. The legend says ``"<label>: slope s [low, high]"``.

    Args:
        ax: the axes to draw on (both axes are set to log scale).
        x: the positive abscissae (array-like, 1-D).
        y: the values at ``x`` (same length).
        slope: the slope, either a number or an estimate object with ``value``, ``low``
            and ``high`` attributes (such as ``jaxtheory.analysis.Estimate``); an
            ``intercept`` attribute of the estimate is used when present.
        interval: ``(low, high)`` of the slope when ``slope`` is a number.
        intercept: natural-log intercept of the fitted line; default the least-squares
            intercept for the given slope, ``mean(ln y − slope · ln x)`` over the
            positive finite points.
        label: the series' name, first in its legend entry.
        yerr: error bars of the points (symmetric, or a ``(2, n)`` array).
        theory: a reference slope, drawn dashed in black through the fitted line's value
            at the smallest ``x``.
        theory_label: the reference line's legend label (default ``"slope <theory>"``).
        color: the color of points and fitted line (default: the next in the cycle).
        marker: the points' marker.
        level: how the interval is named in the legend.
        base: the base of both log axes.

    Returns:
        ``{"points": ..., "fit": Line2D, "theory": Line2D or None}``.

    Raises:
        ValueError: on lengths that differ, no positive finite point, both an estimate and
            ``interval``, or an interval that does not contain the slope.

    Example:
        >>> import numpy as np
        >>> from matplotlib.figure import Figure
        >>> n = np.array([64.0, 128, 256, 512])
        >>> ax = Figure().add_subplot()
        >>> out = slope_fit(ax, n, 3 * n ** -0.5, -0.5, (-0.55, -0.45), label="gap", theory=-0.5)
        >>> out["fit"].get_label()
        'gap: slope -0.5 (95% CI [-0.55, -0.45])'
    """
    xv = np.asarray(x, float).ravel()
    yv = np.asarray(y, float).ravel()
    if xv.shape != yv.shape:
        raise ValueError(f"slope_fit: x and y differ in length ({xv.size} vs {yv.size})")
    if hasattr(slope, "value") and hasattr(slope, "low") and hasattr(slope, "high"):
        if interval is not None:
            raise ValueError("slope_fit: pass either an estimate with .low/.high or an interval")
        interval = (float(slope.low), float(slope.high))
        if intercept is None and getattr(slope, "intercept", None) is not None:
            intercept = float(slope.intercept)
        slope = slope.value
    s = float(slope)
    ok = np.isfinite(xv) & np.isfinite(yv) & (xv > 0) & (yv > 0)
    if not ok.any():
        raise ValueError("slope_fit: no point with positive finite x and y to draw")
    text = f"slope {s:.3g}"
    if interval is not None:
        lo, hi = (float(v) for v in interval)
        if not (lo <= s <= hi):
            raise ValueError(f"slope_fit: the interval [{lo}, {hi}] does not contain the slope {s}")
        text += f" ({level} [{lo:.3g}, {hi:.3g}])"
    if intercept is None:
        intercept = float(np.mean(np.log(yv[ok]) - s * np.log(xv[ok])))
    if yerr is not None:
        points = ax.errorbar(xv, yv, yerr=yerr, fmt=marker, ms=4, capsize=2, color=color)
        color = points.lines[0].get_color()
    else:
        (points,) = ax.plot(xv, yv, marker, ls="none", ms=4, color=color)
        color = points.get_color()
    xs = np.geomspace(xv[ok].min(), xv[ok].max(), 64)
    fit_y = np.exp(intercept) * xs**s
    (fit,) = ax.plot(xs, fit_y, "-", lw=1, color=color, label=f"{label}: {text}" if label else text)
    ref = None
    if theory is not None:
        t = float(theory)
        (ref,) = ax.plot(
            xs,
            fit_y[0] * (xs / xs[0]) ** t,
            "k--",
            lw=0.8,
            label=theory_label if theory_label is not None else f"slope {t:g}",
        )
    ax.set_xscale("log", base=base)
    ax.set_yscale("log", base=base)
    return {"points": points, "fit": fit, "theory": ref}


# -- a figure must draw data ------------------------------------------------------------


class EmptyFigureError(ValueError):
    """A figure, or one of its axes, draws no data (raised by :func:`check_drawn`)."""


def not_applicable(fig, reason: str) -> None:
    """Say on ``fig`` that its preset has nothing for it, so :func:`check_drawn` accepts it.

    For a figure that is meaningless for a preset on purpose (a GP-prior figure on a run
    of test functions); a figure that merely found no matching cell should draw what the
    preset has instead.

    Args:
        fig: the :class:`matplotlib.figure.Figure` (or subfigure) to write on.
        reason: the note shown, e.g. ``"GP prior draws only: this preset runs test functions"``.

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure()
        >>> not_applicable(fig, "needs K = 4")
        >>> check_drawn(fig, "demo")
    """
    if not str(reason).strip():
        raise ValueError("not_applicable: give the reason shown on the figure")
    ax = fig.add_subplot(1, 1, 1)
    ax.axis("off")
    ax.text(
        0.5,
        0.5,
        str(reason),
        ha="center",
        va="center",
        wrap=True,
        transform=ax.transAxes,
        gid=NOT_APPLICABLE_GID,
    )


def _data_transform(tr, ax) -> bool:
    try:
        return all(tr.contains_branch_seperately(ax.transData))
    except (AttributeError, ValueError):  # a non-separable transform
        return tr.contains_branch(ax.transData)


def _finite_any(a) -> bool:
    a = np.ma.masked_invalid(np.ma.asarray(a, dtype=float))
    return a.count() > 0


def _line_has_data(line, ax) -> bool:
    if not line.get_visible() or not _data_transform(line.get_transform(), ax):
        return False
    try:
        xd = np.asarray(line.get_xdata(), float)
        yd = np.asarray(line.get_ydata(), float)
    except (TypeError, ValueError):  # dates or categories: matplotlib converted them
        xy = np.asarray(line.get_xydata(), float)
        xd, yd = xy[:, 0], xy[:, 1]
    ok = np.isfinite(xd) & np.isfinite(yd)
    if ax.get_xscale() == "log":
        ok &= xd > 0
    if ax.get_yscale() == "log":
        ok &= yd > 0
    return bool(ok.any())


def _collection_has_data(c, ax) -> bool:
    if not c.get_visible():
        return False
    arr = c.get_array() if hasattr(c, "get_array") else None
    if isinstance(c, matplotlib.collections.QuadMesh):
        return arr is not None and _finite_any(arr)
    offsets = c.get_offsets()
    if (
        len(offsets)
        and _data_transform(c.get_offset_transform(), ax)
        and len(c.get_paths())
        and _finite_any(offsets)
    ):
        return True
    if not _data_transform(c.get_transform(), ax):
        return False
    return any(len(p.vertices) and _finite_any(p.vertices) for p in c.get_paths())


def _patch_has_data(p, ax) -> bool:
    if not p.get_visible() or not _data_transform(p.get_data_transform(), ax):
        return False
    v = p.get_patch_transform().transform(p.get_path().vertices)
    return len(v) > 0 and _finite_any(v)


def _axes_has_data(ax) -> bool:
    return (
        any(_line_has_data(ln, ax) for ln in ax.lines)
        or any(_collection_has_data(c, ax) for c in ax.collections)
        or any(
            im.get_visible() and _finite_any(im.get_array()) for im in ax.images if im.get_array() is not None
        )
        or any(_patch_has_data(p, ax) for p in ax.patches)
    )


def _all_axes(fig) -> list:
    out = list(fig.axes)
    for sub in getattr(fig, "subfigs", []):
        out += [a for a in _all_axes(sub) if a not in out]
    return out


def check_drawn(fig, name: Hashable) -> None:
    """Raise when ``fig`` draws no data, or when one of its axes draws none.

    Data is a line with a finite point in data coordinates (positive on a log axis), a
    collection with finite offsets or vertices (scatter, error bars, bands), a mesh or
    image with a finite cell, or a patch in data coordinates (bars). Decorations are
    not data: reference lines and spans across the axes (``axhline``, ``axvspan``),
    text, legends, lines of no or only NaN points. Colorbars and invisible axes are
    skipped; an axes turned off (``ax.axis("off")``) holding a legend or text is layout
    and skipped too; an axes holding the note of :func:`not_applicable` passes.

    Args:
        fig: a :class:`matplotlib.figure.Figure` (its subfigures are searched too).
        name: how the figure is named in the error, e.g. ``"shifting-means-bai/tau_vs_delta"``.

    Raises:
        EmptyFigureError: a :class:`ValueError` naming the figure and the empty axes (by
            position and title).

    Example:
        >>> from matplotlib.figure import Figure
        >>> fig = Figure()
        >>> ax = fig.add_subplot()
        >>> _ = ax.plot([], [], label="nothing matched"); _ = ax.axhline(0.05)
        >>> check_drawn(fig, "demo")
        Traceback (most recent call last):
        ...
        jaxtheory.plots.EmptyFigureError: figure 'demo' draws no data: axes 1 of 1 (untitled) is empty ...
        >>> _ = ax.plot([1, 2], [0.1, 0.2])
        >>> check_drawn(fig, "demo")
    """
    axes = [
        a
        for a in _all_axes(fig)
        if a.get_visible() and a.get_label() != "<colorbar>" and getattr(a, "_colorbar", None) is None
    ]
    if not axes:
        raise EmptyFigureError(f"figure {str(name)!r} draws no data: it has no axes")
    empty, drawn, noted = [], 0, 0
    for i, ax in enumerate(axes):
        if any(t.get_gid() == NOT_APPLICABLE_GID for t in ax.texts):
            noted += 1
            continue
        if _axes_has_data(ax):
            drawn += 1
            continue
        if not ax.axison and (ax.get_legend() is not None or ax.texts):
            continue  # a legend or note panel
        title = ax.get_title() or ax.get_title("left") or ax.get_title("right")
        empty.append(
            f"axes {i + 1} of {len(axes)} ({title!r})" if title else f"axes {i + 1} of {len(axes)} (untitled)"
        )
    if empty or not (drawn or noted):
        what = (
            (", ".join(empty) + (" is" if len(empty) == 1 else " are"))
            if empty
            else "every axes is a legend or text panel, none is"
        )
        raise EmptyFigureError(
            f"figure {str(name)!r} draws no data: {what} "
            "empty (no line with a finite point, no scatter, band, mesh, image or bar; reference "
            "lines and text do not count). Draw what the preset has, or call "
            "jaxtheory.plots.not_applicable(fig, reason) when the figure does not apply to it."
        )


# -- declarative figures ----------------------------------------------------------------
#
# A factory (`curves`, `heatmap`, `slope`, `intervals`) says what a figure shows and
# returns the `draw(ds, spec, fig)` an experiment's `Figure` takes; the data decide the
# rest: which dimension is a sample dimension, which one is left over and becomes a
# facet, which axis is log-spaced.

#: The pooled sample dimension a figure reduces (seeds, with any other dims named in ``over``).
_SAMPLE = "__sample__"


class Draw:
    """A figure declared by a factory: call it as ``draw(ds, spec, fig)``.

    What :func:`curves`, :func:`heatmap`, :func:`slope` and :func:`intervals` return,
    for :class:`jaxtheory.Figure`. Before drawing it asks ``requires`` (a function
    ``(ds, spec) -> reason or None``, or a claim, whose own ``requires`` is asked); a
    reason, or a :class:`jaxtheory.claims.NotApplicable` raised while the metric is
    computed, makes the figure say ``"not applicable on this preset: <reason>"``
    (:func:`not_applicable`) instead of drawing, which :func:`check_drawn` accepts.
    ``hlines`` (every factory's keyword): reference levels ``{label: y}``, ``y`` a
    number or a function ``(ds, spec) -> number``, drawn as horizontal lines on every
    panel after the figure, each in the legend.

    Attributes:
        kind: the factory's name (``"curves"``, ...).
        options: the options it was called with (for ``repr`` and tests).
    """

    def __init__(
        self,
        kind: str,
        fn: Callable[[Any, Any, Any], None],
        options: dict,
        requires: Any = None,
        hlines: Mapping[str, Any] | None = None,
    ):
        self.kind = kind
        self.options = options
        self._fn = fn
        self._requires = requires
        self._hlines = dict(hlines or {})
        for label, y in self._hlines.items():
            if not (callable(y) or isinstance(y, (int, float, np.integer, np.floating))):
                raise TypeError(f"hlines[{label!r}]: a number or a function (ds, spec) -> number, not {y!r}")

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items() if v is not None)
        return f"plots.{self.kind}({opts})"

    def __call__(self, ds, spec, fig) -> None:
        from jaxtheory.claims import NotApplicable

        reason = _requires_reason(self._requires, ds, spec)
        if not reason:
            try:
                self._fn(ds, spec, fig)
                _draw_hlines(fig, self._hlines, ds, spec)
                return
            except NotApplicable as e:
                reason = str(e) or "the preset lacks what the figure needs"
                fig.clear()
        not_applicable(fig, f"not applicable on this preset: {reason}")


_HLINE_STYLES = ("--", ":", "-.", (0, (5, 1, 1, 1)))


def _draw_hlines(fig, hlines: Mapping[str, Any], ds, spec) -> None:
    """The reference levels ``{label: y or y(ds, spec)}`` on every data panel, in the legend."""
    if not hlines:
        return
    levels = [(label, float(y(ds, spec) if callable(y) else y)) for label, y in hlines.items()]
    axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    for ax in axes:
        for i, (label, y) in enumerate(levels):
            ls = _HLINE_STYLES[i % len(_HLINE_STYLES)]
            ax.axhline(y, color="0.25", ls=ls, lw=0.9, label=label if ax is axes[0] else "_nolegend_")
    for ax in axes:
        if ax is axes[0] or ax.get_legend() is not None:
            ax.legend(fontsize=6)


def _requires_reason(requires, ds, spec) -> str | None:
    if requires is None:
        return None
    if hasattr(requires, "measure") and hasattr(requires, "evaluate"):  # a claim
        requires = requires.requires
        if requires is None:
            return None
    reason = requires(ds, spec)
    return str(reason) if reason else None


def _is_axes(obj) -> bool:
    return isinstance(obj, matplotlib.axes.Axes)


def _metric(metric, ds, spec) -> xr.DataArray:
    """The DataArray a figure draws: a data variable of ``ds`` or ``metric(ds, spec)``."""
    if isinstance(metric, str):
        if metric not in ds.data_vars:
            raise KeyError(f"the results have no variable {metric!r}; they have {sorted(ds.data_vars)}")
        da = ds[metric]
    elif callable(metric):
        da = metric(ds, spec)
    else:
        raise TypeError(f"a figure's metric is a variable name or a function (ds, spec), not {metric!r}")
    if not isinstance(da, xr.DataArray):
        raise TypeError(f"the metric gave a {type(da).__name__}, not an xarray.DataArray")
    return da


def _as_tuple(v) -> tuple:
    if v is None:
        return ()
    return (v,) if isinstance(v, str) else tuple(v)


def _match(values: np.ndarray, want) -> np.ndarray:
    """Indices of ``values`` equal to ``want`` (a value or a list; floats to rounding)."""
    idx, missing = match(values, want)
    if missing:
        raise ValueError(f"no coordinate value {missing[0]!r} among {values.tolist()}")
    return idx


def _select(da: xr.DataArray, sel: Mapping | None) -> xr.DataArray:
    """Apply ``sel``: ``{name: value | list | function of the coordinate values}``.

    A function returns a value, a list, or a boolean mask. A name that is neither a
    dimension nor a coordinate (an axis the preset does not sweep) is ignored; a scalar
    coordinate must match.
    """
    for k, v in (sel or {}).items():
        if k in da.dims:
            vals = np.asarray(da[k].values)
            w = v(vals) if callable(v) else v
            if isinstance(w, (np.ndarray, list)) and np.asarray(w).dtype == bool:
                idx = np.flatnonzero(np.asarray(w))
                if not idx.size:
                    raise ValueError(f"the selection of {k!r} keeps none of {vals.tolist()}")
                da = da.isel({k: idx})
            elif isinstance(w, (list, tuple, np.ndarray)):
                da = da.isel({k: _match(vals, w)})
            else:
                da = da.isel({k: int(_match(vals, w)[0])})  # leaves a scalar coordinate
        elif k in da.coords:
            val = np.atleast_1d(np.asarray(da[k].values))
            w = v(val) if callable(v) else v
            try:
                ok = bool(np.asarray(w).all()) if np.asarray(w).dtype == bool else _match(val, w).size > 0
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"the selection {k}={v!r} does not match this preset's {k} = {val[0]!r}")
    return da


def _frame(da: xr.DataArray, keep: Sequence[str | None], over, facet) -> tuple[xr.DataArray, list, bool]:
    """One shape whatever the preset: ``(da, facet dims, has samples)``.

    Scalar coordinates named in ``keep`` or ``facet`` become length-one dimensions (so a
    scalar coordinate and a length-one dimension draw the same); the dimensions of
    ``over`` present are pooled into one sample dimension (dropped when it has one
    sample); a size-one dimension mapped to nothing is squeezed to a scalar coordinate;
    a longer one becomes a facet.
    """
    keep = [k for k in keep if k is not None]
    facet = list(_as_tuple(facet))
    for name in [*keep, *facet]:
        if name not in da.dims and name in da.coords:
            da = da.expand_dims(name)
    samples = [d for d in _as_tuple(over) if d in da.dims and d not in keep]
    if samples:
        da = da.stack({_SAMPLE: samples})
        da = da.drop_vars([c for c in (_SAMPLE, *samples) if c in da.coords])
        if da.sizes[_SAMPLE] == 1:
            da = da.isel({_SAMPLE: 0})
    has_samples = _SAMPLE in da.dims
    facets = [f for f in facet if f in da.dims and f not in keep]
    for d in list(da.dims):
        if d in keep or d in facets or d == _SAMPLE:
            continue
        if da.sizes[d] == 1:
            da = da.isel({d: 0})
        else:
            facets.append(d)
    return da, facets, has_samples


def _scalar_coords(da: xr.DataArray) -> dict:
    out = {}
    for k, c in da.coords.items():
        if c.ndim == 0 and k != _SAMPLE:
            v = c.values.item()
            out[str(k)] = v
    return out


def _panels(da: xr.DataArray, facets: Sequence[str]) -> list[tuple[dict, xr.DataArray]]:
    import itertools

    if not facets:
        return [({}, da)]
    out = []
    for idx in itertools.product(*(range(da.sizes[f]) for f in facets)):
        sub = da.isel(dict(zip(facets, idx)))
        out.append(({f: sub[f].values.item() for f in facets}, sub))
    return out


def _layout(fig, facets: Sequence[str], sizes: Mapping[str, int], n: int, sharex=False, sharey=False):
    """Axes for ``n`` panels: rows × columns for two facet dims, else wrapped in rows of three."""
    if len(facets) == 2:
        nrows, ncols = sizes[facets[0]], sizes[facets[1]]
    else:
        ncols = n if n <= 3 else (2 if n == 4 else 3)
        nrows = -(-n // ncols)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=sharex, sharey=sharey).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    if n > 1:
        w, h = fig.get_size_inches()
        fig.set_size_inches(max(w, 3.4 * ncols), max(h, 2.8 * nrows))
    return list(axes[:n])


def _text(v, spec) -> str | None:
    """A label or title: a string, or a function of the spec giving one."""
    return v(spec) if callable(v) else v


def _panel_title(coords: Mapping) -> str:
    return ", ".join(_label(None, k, v) if _is_number(v) else f"{k}={v}" for k, v in coords.items())


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _titles(fig, axes, panels, title) -> None:
    for ax, (coords, _) in zip(axes, panels):
        t = _panel_title(coords)
        if len(panels) == 1 and title:
            t = f"{title}, {t}" if t else title
        if t:
            ax.set_title(t, fontsize=8)
    if title and len(panels) > 1:
        fig.suptitle(title, fontsize=9)


def _legend(axes, legend) -> None:
    if not legend:
        return
    for ax in axes:  # the first panel with labelled artists (the same labels in every panel)
        handles, _ = ax.get_legend_handles_labels()
        if handles:
            ax.legend(fontsize=7, ncol=2 if len(handles) > 6 else 1)
            return


def _fine_grid(v: np.ndarray, log: bool, n: int) -> np.ndarray:
    v = np.asarray(v, float)
    v = v[np.isfinite(v)]
    lo, hi = v.min(), v.max()
    if log and lo > 0:
        return np.geomspace(lo, hi, n)
    return np.linspace(lo, hi, n)


def _is_log(log) -> bool:
    return log is not False and log is not None


def _theory_values(theory, c: dict, spec, shape) -> np.ndarray | None:
    with np.errstate(all="ignore"):
        v = np.asarray(theory(c, spec), float)
    if not np.isfinite(v).any():
        return None
    return np.broadcast_to(v, shape)


# -- curves (declarative) ---------------------------------------------------------------


def curves(metric, *args, **kwargs):
    """Curves of a metric against a coordinate, with a band over seeds: a figure declared.

    ``curves(metric, x=..., ...)`` returns the ``draw(ds, spec, fig)`` of a
    :class:`jaxtheory.Figure` (a :class:`Draw`). ``curves(ax, da, x, ...)``, with an
    axes first, draws a DataArray on it now: that is :func:`curves_on`.

    Each line is the median with the band from the 25% to the 75% quantile over the
    samples (``band="iqr"``), or the mean with the band mean ± one standard error
    (``band="se"``), or the values themselves where there is no sample dimension (a
    deterministic run, one seed); see :func:`summarize_over`.

    Keyword Args:
        x: the dimension (or scalar coordinate) on the horizontal axis.
        xvar: the abscissae, when they are not ``x``'s values: a data variable's name
            or a function ``(ds, spec) -> DataArray`` (e.g. the function evaluations
            spent by each step), averaged over the sample dimensions; the lines still
            run along ``x``, each point at its mean ``xvar``.
        hue: the dimension with one line per value (``None``: one line). A name the
            results lack (an axis this preset does not sweep) draws one line.
        over: the sample dimension(s) reduced into line and band (``"seed"``; a tuple
            pools several, e.g. ``("seed", "noise")``); those absent are ignored.
        band: ``"iqr"``, ``"se"`` or ``None`` (the center line only).
        facet: dimension(s) with one panel per value. Every other dimension longer than
            one (a static axis swept by one preset and not another) becomes a facet too,
            in its order; size-one ones are dropped, so a single value is a plain plot.
        sel: ``{name: value, list, or function of the coordinate values returning a
            value, list or boolean mask}`` applied first, e.g. ``{"noise": max,
            "lr": lambda v: v < 2}``; names the results lack are ignored.
        theory: ``theory(c, spec) -> y``: a reference drawn dotted in each line's color.
            ``c`` maps every coordinate of the line (hue and facet values, scalar
            coordinates) to its value and ``x`` to the abscissae; a scalar is a level.
        theory_points: evaluate the theory on this many points between the smallest
            and largest ``x`` (geometric on a log axis); ``None``: at the data's ``x``.
        theory_label: its legend entry (``"theory"``).
        logx, logy: ``False``, ``True`` (base 10) or a base such as ``2``.
        xlabel, ylabel, title: labels (default: ``x``; the metric's name; none), each a
            string or a function of the spec. With facets, ``title`` is the figure's and
            each panel is titled by its values.
        label_fmt: legend label of a hue value (format string or callable).
        cmap: a colormap for ordered hue values (default: the color cycle).
        skipna: drop NaN samples instead of leaving a gap.
        sharey: share the y axis between panels (default ``True``).
        legend: draw the legend (on the first panel).
        requires: ``(ds, spec) -> reason or None``, or a claim: see :class:`Draw`.
        hlines: reference levels ``{label: y or y(ds, spec)}`` on every panel: see :class:`Draw`.
        **line_kw: passed to :meth:`~matplotlib.axes.Axes.plot` (``marker``, ``ls``...).

    Returns:
        A :class:`Draw`.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> ds = xr.Dataset({"loss": (("lr", "seed", "step"), np.ones((2, 8, 5)))},
        ...                 coords={"lr": [0.1, 0.2], "step": np.arange(1, 6)})
        >>> draw = curves("loss", x="step", hue="lr", band="se", logy=True)
        >>> fig = Figure()
        >>> draw(ds, None, fig)
        >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        ['lr=0.1', 'lr=0.2']
    """
    if _is_axes(metric):
        return curves_on(metric, *args, **kwargs)
    if args:
        raise TypeError("curves(metric, x=..., ...): give the options by keyword")
    return _curves(metric, **kwargs)


def _curves(
    metric,
    *,
    x: str,
    xvar: Any = None,
    hue: str | None = None,
    over: Any = "seed",
    band: str | None = "iqr",
    facet: Any = None,
    sel: Mapping | None = None,
    theory: Callable | None = None,
    theory_points: int | None = 200,
    theory_label: str = "theory",
    logx: Any = False,
    logy: Any = False,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    label_fmt: Any = None,
    cmap: str | None = None,
    skipna: bool = False,
    sharey: bool = True,
    legend: bool = True,
    requires: Any = None,
    hlines: Mapping[str, Any] | None = None,
    **line_kw,
) -> Draw:
    _check_band(band)
    if hue is not None and hue == x:
        raise ValueError(f"curves: x and hue must be different dimensions, got {x!r} twice")

    def draw(ds, spec, fig):
        da = _select(_metric(metric, ds, spec), sel)
        pos = None
        if xvar is not None:  # framed as the metric, then averaged over the samples
            pos = _select(_metric(xvar, ds, spec), sel).astype(float).broadcast_like(da).transpose(*da.dims)
            pos, _, pos_samples = _frame(pos, [x, hue], over, facet)
            pos = pos.mean(_SAMPLE) if pos_samples else pos
        da, facets, has_samples = _frame(da, [x, hue], over, facet)
        if x not in da.dims:
            raise ValueError(f"curves: {x!r} is not a dimension or coordinate of the data (dims {da.dims})")
        h = hue if hue is not None and hue in da.dims else None
        if not has_samples:
            da = da.expand_dims({_SAMPLE: 1}, axis=-1)
        panels = _panels(da, facets)
        pos_panels = _panels(pos, facets) if pos is not None else [(None, None)] * len(panels)
        axes = _layout(fig, facets, da.sizes, len(panels), sharey=sharey)
        theory_drawn = False
        for ax, (_, sub), (_, psub) in zip(axes, panels, pos_panels):
            lines = curves_on(
                ax,
                sub,
                x,
                over=_SAMPLE,
                hue=h,
                band=band if has_samples else None,
                log=(logx, logy),
                label_fmt=label_fmt,
                cmap=cmap,
                skipna=skipna,
                xpos=psub,
                **line_kw,
            )
            if theory is None:
                continue
            xv = _coord_values(sub, x) if psub is None else np.asarray(psub.values, float).ravel()
            xv = xv[np.isfinite(xv)] if psub is not None else xv
            if not _is_numeric(xv):
                raise ValueError(f"curves: a theory overlay needs a numeric {x!r}, got {xv.dtype}")
            xs = xv.astype(float) if theory_points is None else _fine_grid(xv, _is_log(logx), theory_points)
            for i, line in enumerate(lines):
                one = sub.isel({h: i}) if h is not None else sub
                c = {**_scalar_coords(one), x: xs}
                y = _theory_values(theory, c, spec, xs.shape)
                if y is None:
                    continue
                ax.plot(
                    xs,
                    y,
                    ":",
                    lw=1,
                    color=line.get_color(),
                    label="_nolegend_" if theory_drawn else theory_label,
                )
                theory_drawn = True
        for ax in axes:
            ax.set_xlabel(_text(xlabel, spec) if xlabel is not None else x)
            ax.set_ylabel(_text(ylabel, spec) if ylabel is not None else _name(metric, da))
        _titles(fig, axes, panels, _text(title, spec))
        _legend(axes, legend and (h is not None or theory_drawn or "label" in line_kw))

    opts = dict(metric=metric, x=x, xvar=xvar, hue=hue, over=over, band=band, facet=facet, theory=theory)
    return Draw("curves", draw, opts, requires, hlines)


def _name(metric, da) -> str:
    if isinstance(metric, str):
        return metric
    return str(da.name) if da.name is not None else ""


# -- heatmap (declarative) --------------------------------------------------------------


def _value_ticks(ax, which: str, v: np.ndarray, max_ticks: int) -> None:
    """Ticks at (a thinned subset of) the coordinate values, labelled with them."""
    v = np.sort(np.asarray(v, float))
    step = max(1, -(-v.size // max_ticks))
    t = v[::step]
    axis = ax.xaxis if which == "x" else ax.yaxis
    axis.set_ticks(t, [f"{u:.3g}" for u in t])
    axis.set_minor_locator(matplotlib.ticker.NullLocator())


def heatmap(metric, *args, **kwargs):
    """A metric over two axes on their real coordinates: a figure declared.

    ``heatmap(metric, x=..., y=..., ...)`` returns a :class:`Draw`; ``heatmap(ax, da,
    x, y, ...)``, with an axes first, draws now: that is :func:`heatmap_on`.

    Cells are centred on the coordinate values (:func:`cell_edges`); an axis whose
    values are log-spaced is drawn on a log scale; the ticks are coordinate values
    (every one up to ``max_ticks``, else an evenly thinned subset), never indices. The
    samples (``over``) are reduced by ``stat`` per cell. Facets share one color scale
    and one colorbar.

    Keyword Args:
        x, y: the dimensions along the horizontal and vertical axes.
        over: sample dimension(s) reduced per cell (``"seed"``; a tuple pools several,
            e.g. ``("seed", "noise")`` for a fraction over both); absent ones are ignored.
        stat: ``"mean"``, ``"median"`` or a function ``(DataArray, dims) -> DataArray``.
        facet, sel, requires, hlines, title: as for :func:`curves`.
        theory: ``theory(c, spec) -> field``: ``c`` maps ``x`` and ``y`` to a fine grid of
            their values (2-D arrays) and the scalar coordinates to theirs; the field's
            level sets ``theory_levels`` (default 0) are drawn dashed, e.g. a stability
            boundary ``lambda c, s: c["lr"] - 2 / c["lam_max"]``.
        theory_label: the boundary's legend entry (``"theory"``).
        log: ``"auto"``, a bool, or a pair ``(x, y)`` of those (see :func:`heatmap_on`).
        cmap, vmin, vmax, norm: the color scale (``vmin``/``vmax`` default: the data's
            range over every panel).
        clabel: the colorbar's label (default the metric's name).
        xlabel, ylabel: axis labels (default the dimension names).
        max_ticks: the most tick labels per axis.

    Returns:
        A :class:`Draw`.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> ds = xr.Dataset({"loss": (("lr", "momentum"), np.arange(6.0).reshape(3, 2))},
        ...                 coords={"lr": [0.01, 0.1, 1.0], "momentum": [0.0, 0.9]})
        >>> fig = Figure()
        >>> heatmap("loss", x="lr", y="momentum")(ds, None, fig)
        >>> ax = fig.axes[0]
        >>> ax.get_xscale(), [float(t) for t in ax.get_xticks()]
        ('log', [0.01, 0.1, 1.0])
    """
    if _is_axes(metric):
        return heatmap_on(metric, *args, **kwargs)
    if args:
        raise TypeError("heatmap(metric, x=..., y=..., ...): give the options by keyword")
    return _heatmap(metric, **kwargs)


def _reduce(da: xr.DataArray, stat) -> xr.DataArray:
    if _SAMPLE not in da.dims:
        return da
    if callable(stat):
        return stat(da, _SAMPLE)
    if stat == "mean":
        return da.astype(float).mean(_SAMPLE)
    if stat == "median":
        return da.astype(float).median(_SAMPLE)
    raise ValueError(f"stat must be 'mean', 'median' or a function, got {stat!r}")


def _heatmap(
    metric,
    *,
    x: str,
    y: str,
    over: Any = "seed",
    stat: Any = "mean",
    facet: Any = None,
    sel: Mapping | None = None,
    theory: Callable | None = None,
    theory_levels: Sequence[float] = (0.0,),
    theory_label: str = "theory",
    log: Any = "auto",
    cmap: str = "viridis",
    vmin: float | None = None,
    vmax: float | None = None,
    norm: Any = None,
    clabel: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    max_ticks: int = 8,
    requires: Any = None,
    hlines: Mapping[str, Any] | None = None,
) -> Draw:
    if x == y:
        raise ValueError(f"heatmap: x and y must be different dimensions, got {x!r} twice")

    def draw(ds, spec, fig):
        da = _select(_metric(metric, ds, spec), sel)
        da, facets, _ = _frame(da, [x, y], over, facet)
        for d in (x, y):
            if d not in da.dims:
                raise ValueError(
                    f"heatmap: {d!r} is not a dimension or coordinate of the data (dims {da.dims})"
                )
        da = _reduce(da, stat)
        panels = _panels(da, facets)
        axes = _layout(fig, facets, da.sizes, len(panels), sharex=True, sharey=True)
        kw = {"norm": norm} if norm is not None else {}
        if norm is None:
            finite = np.asarray(da.values, float)
            finite = finite[np.isfinite(finite)]
            lo = vmin if vmin is not None else (finite.min() if finite.size else None)
            hi = vmax if vmax is not None else (finite.max() if finite.size else None)
            kw.update(vmin=lo, vmax=hi)
        mesh = None
        for ax, (_, sub) in zip(axes, panels):
            mesh = heatmap_on(ax, sub, x, y, log=log, cmap=cmap, colorbar=False, **kw)
            for d, which in ((x, "x"), (y, "y")):
                v = _coord_values(sub, d)
                if _is_numeric(v):
                    _value_ticks(ax, which, v, max_ticks)
            if theory is not None:
                _contour(ax, sub, x, y, theory, theory_levels, theory_label, spec)
            ax.set_xlabel(_text(xlabel, spec) if xlabel is not None else x)
            ax.set_ylabel(_text(ylabel, spec) if ylabel is not None else y)
        fig.colorbar(mesh, ax=axes, label=clabel if clabel is not None else _name(metric, da))
        _titles(fig, axes, panels, _text(title, spec))
        _legend(axes, theory is not None)

    opts = dict(metric=metric, x=x, y=y, over=over, stat=stat, facet=facet, theory=theory)
    return Draw("heatmap", draw, opts, requires, hlines)


def _contour(ax, sub, x, y, theory, levels, label, spec) -> None:
    grids = []
    for d, which in ((x, "x"), (y, "y")):
        v = _coord_values(sub, d)
        if not _is_numeric(v):
            raise ValueError(f"heatmap: a theory overlay needs numeric coordinates, {d!r} is {v.dtype}")
        scale = ax.get_xscale() if which == "x" else ax.get_yscale()
        e = cell_edges(np.sort(v.astype(float)), log=scale == "log")
        grids.append(_fine_grid(e, scale == "log", 200))
    X, Y = np.meshgrid(*grids)
    c = {**_scalar_coords(sub), x: X, y: Y}
    with np.errstate(all="ignore"):
        Z = np.asarray(theory(c, spec), float) * np.ones_like(X)
    if np.isfinite(Z).any() and np.nanmin(Z) <= max(levels) and np.nanmax(Z) >= min(levels):
        ax.contour(X, Y, Z, levels=sorted(levels), colors="k", linestyles="--", linewidths=1)
    ax.plot([], [], "k--", lw=1, label=label)  # the contour's legend entry


# -- slope (declarative) ----------------------------------------------------------------


def slope(
    metric,
    *,
    x: str,
    hue: str | None = None,
    over: Any = "seed",
    facet: Any = None,
    sel: Mapping | None = None,
    stat: str = "mean",
    xmin: float | None = None,
    xmax: float | None = None,
    theory: Any = None,
    theory_label: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
    label_fmt: Any = None,
    sharey: bool = True,
    requires: Any = None,
    hlines: Mapping[str, Any] | None = None,
) -> Draw:
    """Points on log-log axes with their fitted power law and its slope: a figure declared.

    Per line (``hue`` value, facet panel) the slope and its 95% bootstrap interval are
    :func:`jaxtheory.analysis.loglog_slope` of the data along ``x`` (the seeds
    aggregated by ``stat`` first, the whole seed resampled; exact without a sample
    dimension), fitted over ``xmin <= x <= xmax``. The points are the aggregate over
    seeds, with ± one standard error for the mean; the line is the fit, through the
    least-squares intercept over the fitted points; the legend gives the slope and its
    interval (:func:`slope_fit`).

    Keyword Args:
        x: the dimension to fit along (positive coordinates).
        hue, over, facet, sel, xlabel, ylabel, title, label_fmt, sharey, requires,
            hlines: as for :func:`curves`.
        stat: ``"mean"`` or ``"median"`` over seeds, as in the fit.
        xmin, xmax: the fitted window.
        theory: a reference slope, a number or ``theory(c, spec)`` of the line's
            coordinates ``c``; drawn dashed through the fit's value at the smallest ``x``.
        theory_label: its legend label (default ``"theory: slope <theory>"``).

    Returns:
        A :class:`Draw`.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> T = np.array([10.0, 100.0, 1000.0])
        >>> noise = np.exp(0.01 * np.random.default_rng(0).normal(size=(16, 3)))
        >>> ds = xr.Dataset({"err": (("seed", "T"), noise * T ** -0.5)}, coords={"T": T})
        >>> fig = Figure()
        >>> slope("err", x="T", theory=-0.5)(ds, None, fig)
        >>> fig.axes[0].get_legend().get_texts()[0].get_text()
        'slope -0.5 (95% CI [-0.501, -0.498])'
    """
    from jaxtheory import analysis

    if stat not in ("mean", "median"):
        raise ValueError(f"slope: stat must be 'mean' or 'median', got {stat!r}")

    def draw(ds, spec, fig):
        da = _select(_metric(metric, ds, spec), sel)
        da, facets, has_samples = _frame(da, [x, hue], over, facet)
        if x not in da.dims:
            raise ValueError(f"slope: {x!r} is not a dimension or coordinate of the data (dims {da.dims})")
        h = hue if hue is not None and hue in da.dims else None
        panels = _panels(da, facets)
        axes = _layout(fig, facets, da.sizes, len(panels), sharey=sharey)
        for ax, (_, sub) in zip(axes, panels):
            hues = list(_coord_values(sub, h)) if h is not None else [None]
            for i, hv in enumerate(hues):
                one = (sub.isel({h: i}) if h is not None else sub).transpose(
                    x, *([_SAMPLE] if has_samples else [])
                )
                est = analysis.loglog_slope(
                    one, x, _SAMPLE if has_samples else None, stat=stat, xmin=xmin, xmax=xmax
                )
                xv = np.asarray(one[x].values, float)
                if has_samples:
                    v = np.asarray(one.values, float)
                    pts = np.mean(v, axis=1) if stat == "mean" else np.median(v, axis=1)
                    n = v.shape[1]
                    yerr = np.std(v, axis=1, ddof=1) / np.sqrt(n) if stat == "mean" and n > 1 else None
                else:
                    pts, yerr = np.asarray(one.values, float), None
                s = float(est.value)
                win = analysis._x_mask(xv, xmin, xmax) & np.isfinite(pts) & (pts > 0)
                intercept = float(np.mean(np.log(pts[win]) - s * np.log(xv[win])))
                interval = est.interval
                if interval is not None and np.isfinite(interval).all():
                    tol = 1e-9 * max(abs(s), 1.0)  # identical resamples: the interval is the value
                    if interval[0] - tol <= s <= interval[1] + tol:
                        interval = (min(interval[0], s), max(interval[1], s))
                    else:
                        interval = None
                else:
                    interval = None  # fewer than MIN_SAMPLE seeds: no interval formed
                th = theory(_scalar_coords(one), spec) if callable(theory) else theory
                slope_fit(
                    ax,
                    xv,
                    pts,
                    s,
                    interval,
                    intercept=intercept,
                    label=_label(label_fmt, h, hv) if h is not None else None,
                    yerr=yerr,
                    theory=th,
                    theory_label=theory_label
                    if theory_label is not None or th is None
                    else f"theory: slope {float(th):.3g}",
                    color=f"C{i % 10}",
                )
            ax.set_xlabel(_text(xlabel, spec) if xlabel is not None else x)
            ax.set_ylabel(_text(ylabel, spec) if ylabel is not None else _name(metric, da))
        _titles(fig, axes, panels, _text(title, spec))
        for ax in axes:  # every panel: each has its own slopes
            ax.legend(fontsize=6)

    opts = dict(metric=metric, x=x, hue=hue, over=over, facet=facet, stat=stat, theory=theory)
    return Draw("slope", draw, opts, requires, hlines)


# -- intervals (declarative) ------------------------------------------------------------

_VERDICT_COLORS = {"pass": "C2", "fail": "C3", "inconclusive": "C1"}


def _experiment_name(ds) -> str:
    import json

    try:
        return str(json.loads(ds.attrs.get("manifest", "{}")).get("experiment") or "")
    except (TypeError, ValueError):
        return ""


def _per_cell(v, labels):
    """A ClaimResult field per cell label: a dict by label, or one value for every cell."""
    if isinstance(v, Mapping) and set(labels) <= set(map(str, v)):
        return [v[k] for k in labels]
    return [v] * len(labels)


def _region(rule: str, expected, tolerance) -> tuple[float, float] | None:
    inf = float("inf")
    try:
        if rule == "at_most":
            return -inf, float(expected)
        if rule == "at_least":
            return float(expected), inf
        if rule == "within":
            lo, hi = expected
            return float(lo), float(hi)
        if rule == "close":
            e = float(expected)
            if isinstance(tolerance, Mapping):
                t = float(tolerance.get("atol", 0.0)) + float(tolerance.get("rtol", 0.0)) * abs(e)
            else:
                t = float(tolerance)
            return e - t, e + t
    except (TypeError, ValueError):
        return None
    return None


def intervals(
    source,
    *,
    over: str | None = "seed",
    stat: str = "mean",
    theory: Callable | None = None,
    theory_label: str = "theory",
    logx: Any = False,
    xlabel: str | None = None,
    title: str | None = None,
    requires: Any = None,
    hlines: Mapping[str, Any] | None = None,
) -> Draw:
    """Each cell's estimate with its interval, one row per cell: a figure declared.

    ``source`` is a claim or a measure:

    * a :class:`~jaxtheory.claims.Claim`: it is evaluated on the results, and the figure
      shows what its verdict rests on: each cell's statistic and interval (the claim's
      own, family-wise split included), colored by the cell's verdict (green pass, red
      fail, orange inconclusive), over the region that agrees with the statement
      (shaded). A claim not applicable to the preset draws its reason instead; a claim
      whose measurement raised raises here.
    * a measure ``(ds, spec) -> DataArray`` (or a variable name): per cell (every
      dimension but ``over``) the ``stat`` over ``over`` with its 95% percentile
      bootstrap interval (:func:`jaxtheory.analysis.mean`; not split over cells), or
      the exact value without a sample dimension.

    Keyword Args:
        over: the sample dimension of a measure.
        stat: ``"mean"`` or ``"median"`` for a measure.
        theory: ``theory(c, spec) -> value`` per cell, drawn as a black cross; ``c`` maps
            the cell's coordinates to their values (a measure's cells only).
        theory_label: its legend entry.
        logx: a log axis for the values.
        xlabel: the value axis' label (default the claim's or metric's name).
        title: the axes' title (default the claim's verdict).
        requires, hlines: as for :func:`curves`.

    Returns:
        A :class:`Draw`.

    Example:
        >>> import numpy as np, xarray as xr
        >>> from matplotlib.figure import Figure
        >>> from jaxtheory import Claim
        >>> ds = xr.Dataset({"r": (("seed", "lr"), np.linspace(0.9, 1.1, 16).reshape(8, 2))},
        ...                 coords={"lr": [0.1, 0.2]})
        >>> claim = Claim.close("ratio", "r = 1.", lambda ds, s: ds["r"], 1.0, atol=0.2, source="derived")
        >>> fig = Figure()
        >>> intervals(claim)(ds, None, fig)
        >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
        ['lr=0.1', 'lr=0.2']
    """
    from jaxtheory import analysis

    is_claim = hasattr(source, "evaluate") and hasattr(source, "measure")

    def cells_of_claim(ds, spec):
        from jaxtheory.claims import NotApplicable

        r = source.evaluate(ds, spec, experiment=_experiment_name(ds))
        if r.verdict == "not-applicable":
            raise NotApplicable(r.reason or "the claim does not apply")
        if r.verdict == "error":
            raise RuntimeError(f"claim {r.name!r} is an error: {r.error}")
        if r.rule in ("equals",):
            raise ValueError(f"intervals: claim {r.name!r} ({r.rule}) has no numeric statistic per cell")
        labels = [str(k) for k in r.measured] if isinstance(r.measured, Mapping) else [""]
        values = _per_cell(r.measured, labels)
        ivs = _per_cell(r.interval, labels)
        if r.rule == "within":
            exp = r.expected if isinstance(r.expected, Mapping) else {k: r.expected for k in labels}
            regions = [_region("within", exp[k], None) for k in labels]
        elif r.rule == "ordering":
            regions = [(0.0, float("inf"))] * len(labels)
        else:
            regions = [
                _region(r.rule, e, t)
                for e, t in zip(_per_cell(r.expected, labels), _per_cell(r.tolerance, labels))
            ]
        verdicts = _per_cell(r.cells, labels) if r.cells else [r.verdict] * len(labels)
        rows = [
            dict(label=k, value=v, interval=iv, region=rg, verdict=vd, coords={})
            for k, v, iv, rg, vd in zip(labels, values, ivs, regions, verdicts)
        ]
        return rows, f"{r.name}: {r.verdict}", r.name

    def cells_of_measure(ds, spec):
        da = _metric(source, ds, spec)
        has = over is not None and over in da.dims
        rows = []
        for coords, sub in analysis.cells(da, [over] if has else []):
            if has:
                e = analysis.mean(sub, over, stat=stat)
                iv = e.interval
            else:
                e, iv = analysis.Estimate(float(np.asarray(sub.values, float))), None
            rows.append(
                dict(
                    label=analysis.cell_label(coords),
                    value=e.value,
                    interval=iv,
                    region=None,
                    verdict=None,
                    coords={**_scalar_coords(sub), **coords},
                )
            )
        return rows, None, _name(source, da)

    def draw(ds, spec, fig):
        rows, auto_title, name = (cells_of_claim if is_claim else cells_of_measure)(ds, spec)
        ax = fig.add_subplot(1, 1, 1)
        n = len(rows)
        pos = np.arange(n)[::-1]
        finite = []
        for r in rows:
            finite += [r["value"]] + list(r["interval"] or []) + list(r["region"] or [])
        finite = np.asarray([f for f in finite if f is not None], float)
        finite = finite[np.isfinite(finite)]
        lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 1.0)
        if _is_log(logx) and finite.size and (finite > 0).any():
            pos_f = finite[finite > 0]
            lo, hi = pos_f.min() / 1.5, pos_f.max() * 1.5
        else:
            pad = 0.08 * (hi - lo) if hi > lo else 0.5 * max(abs(lo), 1.0)
            lo, hi = lo - pad, hi + pad
        shaded = False
        for p, r in zip(pos, rows):
            if r["region"] is not None:
                a, b = (min(max(t, lo), hi) for t in r["region"])
                ax.fill_betweenx(
                    [p - 0.4, p + 0.4],
                    a,
                    b,
                    color="0.85",
                    lw=0,
                    label="_nolegend_" if shaded else "agrees with the statement",
                )
                shaded = True
            color = _VERDICT_COLORS.get(r["verdict"], "C0")
            v = r["value"]
            iv = r["interval"]
            if iv is not None and None not in iv and not np.isnan(np.asarray(iv, float)).any():
                a, b = (float(t) for t in iv)
                a = max(a, lo) if np.isfinite(a) else lo  # an open end runs to the axis' edge
                b = min(b, hi) if np.isfinite(b) else hi
                ax.errorbar(
                    [v],
                    [p],
                    xerr=[[max(v - a, 0.0)], [max(b - v, 0.0)]],
                    fmt="o",
                    ms=4,
                    capsize=2,
                    color=color,
                )
            else:
                ax.plot([v], [p], "o", ms=4, color=color)
        if theory is not None:
            drawn = False
            for p, r in zip(pos, rows):
                with np.errstate(all="ignore"):
                    t = float(np.asarray(theory(r["coords"], spec), float))
                if np.isfinite(t):
                    ax.plot([t], [p], "kx", ms=6, label="_nolegend_" if drawn else theory_label)
                    drawn = True
        ax.set_yticks(pos, [r["label"] or name for r in rows], fontsize=7 if n > 6 else 8)
        ax.set_ylim(-0.6, n - 0.4)
        _scale(ax, "x", logx)
        ax.set_xlim(lo, hi)
        ax.set_xlabel(_text(xlabel, spec) if xlabel is not None else name)
        t = _text(title, spec) if title is not None else auto_title
        if t:
            ax.set_title(t, fontsize=9)
        if shaded or theory is not None:
            ax.legend(fontsize=7)
        if n > 12:
            w, h = fig.get_size_inches()
            fig.set_size_inches(w, max(h, 0.22 * n + 1.0))

    opts = dict(source=getattr(source, "name", source), over=over, stat=stat, theory=theory)
    return Draw("intervals", draw, opts, requires, hlines)
