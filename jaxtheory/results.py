"""Reading results the same way whatever the preset swept.

Every parameter and spec field is a coordinate of an experiment's results: 1-D where an
axis sweeps it, a scalar coordinate where the preset leaves it at its default. A measure
reads ``ds["lr"]`` and broadcasts; where it needs a dimension to iterate or select over,
:func:`as_dims` makes one of a scalar coordinate, so the same code serves every preset.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

import numpy as np

__all__ = ["as_dims", "match", "needs", "other_dims", "values_of", "value"]


def value(ds: Any, name: str) -> Any:
    """The coordinate ``name`` of ``ds``: per cell where swept, a scalar where not.

    Raises:
        KeyError: naming the coordinates ``ds`` has, when ``name`` is none of them.

    Example:
        >>> import xarray as xr
        >>> ds = xr.Dataset({"y": ("lr", [1.0, 2.0])}, coords={"lr": [0.1, 0.2], "dim": 8})
        >>> int(value(ds, "dim")), value(ds, "lr").dims
        (8, ('lr',))
    """
    if name not in ds.coords:
        raise KeyError(
            f"the results have no coordinate {name!r}; they have: {', '.join(map(str, ds.coords))}"
        )
    return ds.coords[name]


def values_of(ds: Any, name: str) -> np.ndarray:
    """The values of coordinate ``name`` as a 1-D array (one value where it is not swept).

    Example:
        >>> import xarray as xr
        >>> ds = xr.Dataset({"y": ("lr", [1.0, 2.0])}, coords={"lr": [0.1, 0.2], "dim": 8})
        >>> values_of(ds, "dim").tolist(), values_of(ds, "lr").tolist()
        ([8], [0.1, 0.2])
    """
    return np.atleast_1d(np.asarray(value(ds, name).values))


def as_dims(obj: Any, *names: str) -> Any:
    """``obj`` with each of ``names`` a dimension: a scalar coordinate becomes a dimension of
    length one (placed first, in the order given); a dimension stays as it is.

    So code that selects, groups or iterates over ``names`` is written once, for every
    preset.

    Raises:
        KeyError: for a name that is neither a dimension nor a coordinate of ``obj``.

    Example:
        >>> import xarray as xr
        >>> da = xr.DataArray([1.0, 2.0], dims="seed", coords={"p": 1.5})
        >>> as_dims(da, "p").sel(p=1.5).dims
        ('seed',)
    """
    missing = [n for n in names if n not in obj.dims and n not in obj.coords]
    if missing:
        raise KeyError(
            f"no coordinate {', '.join(map(repr, missing))}; there are: {', '.join(map(str, obj.coords))}"
        )
    scalar = [n for n in names if n not in obj.dims]
    return obj.expand_dims(scalar) if scalar else obj


def other_dims(obj: Any, *names: str) -> tuple:
    """The dimensions of ``obj`` other than ``names``, in order: what to reduce, stack or
    fix when only ``names`` are kept, whatever else the preset swept.

    Example:
        >>> import xarray as xr
        >>> da = xr.DataArray([[1.0, 2.0]], dims=("seed", "lr"))
        >>> other_dims(da, "lr"), float(da.max(other_dims(da, "lr")).sum())
        (('seed',), 3.0)
    """
    return tuple(d for d in obj.dims if d not in names)


def match(values: Any, want: Any) -> tuple[np.ndarray, list]:
    """Where ``want`` (one value or a list of them) sits in coordinate ``values``: the indices
    of the matches, in the order of ``want``, and the values of ``want`` with no match.

    Numbers compare to a relative 1e-9 (a grid point written as a literal matches the value
    a sweep computed), anything else as strings (a label, a flag).

    Example:
        >>> idx, missing = match(np.array([0.1, 0.2, 0.30000000000000004]), [0.3, 0.5])
        >>> idx.tolist(), missing
        ([2], [0.5])
    """
    values = np.atleast_1d(np.asarray(values))
    wants = list(want) if isinstance(want, (tuple, list, np.ndarray)) else [want]
    idx, missing = [], []
    for w in wants:
        if values.dtype.kind in "iufb" and isinstance(w, (int, float, np.integer, np.floating)):
            hit = np.flatnonzero(np.isclose(values.astype(float), float(w), rtol=1e-9, atol=0.0))
        else:
            hit = np.flatnonzero(values.astype(str) == str(w))
        idx.extend(hit.tolist())
        if not hit.size:
            missing.append(w)
    return np.asarray(idx, int), missing


def _has(ds: Any, name: str, want: Any) -> list:
    """The values of ``want`` (one value or a tuple/list of them) missing from coordinate ``name``."""
    if name not in ds.coords:
        return list(want) if isinstance(want, (tuple, list)) else [want]
    return match(values_of(ds, name), want)[1]


def needs(*tests: Any, **coords: Any) -> Callable[[Any, Any], str | None]:
    """A ``requires`` for a claim or a figure: what the run must hold for it to apply.

    ``needs(hint=("drift", "coarse"), reward="tabular")`` applies where the results hold
    each listed value of each coordinate (swept or scalar); otherwise its reason names
    what is missing, e.g. ``"the preset runs no hint drift, coarse"``, and the claim is
    ``not-applicable`` (a figure says so in place of drawing). Anything else is a pair
    ``(test, reason)`` with ``test(ds, spec) -> bool`` (``needs(test, reason)`` for one);
    every condition must hold, and the first that does not gives the reason.

    Raises:
        TypeError: a positional argument that is not a ``(test, reason)`` pair.

    Example:
        >>> import xarray as xr
        >>> ds = xr.Dataset({"y": ("hint", [1.0, 2.0])}, coords={"hint": ["a", "b"], "d": 8})
        >>> needs(hint="a", d=8)(ds, None) is None
        True
        >>> needs(hint=("a", "c"))(ds, None)
        'the preset runs no hint c'
        >>> needs(lambda ds, spec: ds.sizes["hint"] > 2, "fewer than three hints")(ds, None)
        'fewer than three hints'
    """
    if len(tests) == 2 and callable(tests[0]) and isinstance(tests[1], str):
        tests = (tests,)
    for t in tests:
        if not (isinstance(t, tuple) and len(t) == 2 and callable(t[0]) and isinstance(t[1], str)):
            raise TypeError(
                f"needs: a positional condition is a pair (test(ds, spec) -> bool, reason), not {t!r}"
            )

    def requires(ds: Any, spec: Any) -> str | None:
        for name, want in coords.items():
            missing = _has(ds, name, want)
            if missing:
                return f"the preset runs no {name} {', '.join(map(str, missing))}"
        for test, reason in tests:
            if not test(ds, spec):
                return reason
        return None

    return requires
