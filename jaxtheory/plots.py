"""Standard figures of the experiments, drawn from labelled results.

The few figure kinds the experiments draw, each from an :class:`xarray.DataArray` whose
dimensions say what is plotted against what and which dimension holds the samples:

* :func:`curves`: a statistic against ``x``, one line per ``hue`` value, with the spread
  over the sample dimension (median and interquartile range, or mean ± standard error);
* :func:`lr_sweep`: loss against log₂ learning rate, one curve per width (the μP
  convention), the best learning rate of each width marked;
* :func:`heatmap`: a value over two axes on their real coordinates (cell edges from the
  coordinate values; log-spaced axes drawn on log axes), with a colorbar;
* :func:`slope_fit`: points and a fitted power law with its interval in the legend.

:func:`check_drawn` turns a figure that draws no data into an error (the report and
the docs build call it on every experiment figure); :func:`not_applicable` is how a
figure says, on purpose, that the preset has nothing for it.

Only numpy, xarray and matplotlib are used (never ``pyplot``: figures are drawn on the
:class:`~matplotlib.axes.Axes` they are given). Statistics for claims (slopes with
intervals, the tuning protocol) belong to :mod:`jaxtheory.analysis`; the functions here
only draw.

Example:
    >>> import numpy as np, xarray as xr
    >>> from matplotlib.figure import Figure
    >>> da = xr.DataArray(np.random.default_rng(0).normal(size=(5, 8)) + np.arange(5)[:, None],
    ...                   dims=("step", "seed"), coords={"step": np.arange(5)})
    >>> fig = Figure()
    >>> lines = curves(fig.add_subplot(), da, "step")
    >>> check_drawn(fig, "demo")
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import matplotlib
import numpy as np
import xarray as xr

__all__ = [
    "summarize_over",
    "curves",
    "lr_sweep",
    "cell_edges",
    "heatmap",
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


def curves(
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
        >>> lines = curves(ax, da, "step", hue="width", log=(True, True), label_fmt="N={}")
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
    lines = []
    for i, h in enumerate(hues):
        sel = {hue: i} if hue is not None else {}
        c, lo, hi = (a.isel(sel).transpose(x).values for a in (center, low, high))
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
    lines = curves(
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


def heatmap(
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
        >>> mesh = heatmap(ax, da, "lr", "momentum")
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
