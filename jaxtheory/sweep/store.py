"""The on-disk store of a sweep: atomic chunk files, ``results.nc`` and ``manifest.json``.

Layout of a run directory::

    <run_dir>/
      chunks/g000_n00256_c00000_p000.npz   per finished chunk, one part per process
                                           holding lanes of it (numpy arrays only: the
                                           metrics, and the lanes' indices, keys and the
                                           code fingerprint as __lanes, __keys, __code)
      results.nc                     the assembled xarray Dataset (netCDF4 via h5netcdf)
      manifest.json                  space, spec, versions, code fingerprint, git revision
                                     and dirty flag, devices, timings, per-call history
      claims.json                    verdicts of the experiment's claims (experiments only)

Every file is written to a temporary name in the same directory and renamed into
place, so a killed process leaves either the old file or the new one, never half of
one. Arrays are read back with ``allow_pickle=False``: no object is ever unpickled.
"""

from __future__ import annotations

import functools
import json
import math
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "atomic_write_bytes",
    "atomic_write_json",
    "save_chunk",
    "load_chunk",
    "chunk_path",
    "chunk_stem",
    "to_jsonable",
    "read_json",
    "git_revision",
    "package_versions",
    "write_dataset",
    "LAYOUT_CACHE_BYTES",
    "open_results",
]


def _atomic_to(path: Path, write: Callable[[str], None]) -> None:
    """Run ``write(tmp)`` on a temporary name beside ``path``, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _atomic(path: Path, writer) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "wb") as f:
            writer(f)
            f.flush()
            os.fsync(f.fileno())

    _atomic_to(path, write)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    _atomic(path, lambda f: f.write(data))


def to_jsonable(x: Any) -> Any:
    """Numpy/JAX scalars and arrays, tuples, paths and dataclasses as plain JSON values.

    Non-finite floats become the strings ``"nan"``, ``"inf"`` and ``"-inf"``.
    """
    import dataclasses

    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: to_jsonable(getattr(x, f.name)) for f in dataclasses.fields(x)}
    if isinstance(x, Mapping):
        return {str(k): to_jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_jsonable(v) for v in x]
    if isinstance(x, Path):
        return str(x)
    if hasattr(x, "__array__") and not isinstance(x, (str, bytes)):
        a = np.asarray(x)
        return to_jsonable(a.tolist()) if a.ndim else to_jsonable(a.item())
    if isinstance(x, np.generic):
        return to_jsonable(x.item())
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if isinstance(x, (str, int, float, bool)) or x is None:
        return x
    return repr(x)


def atomic_write_json(path: Path, obj: Any) -> None:
    """Write ``obj`` as indented JSON, atomically."""
    text = json.dumps(to_jsonable(obj), indent=2, sort_keys=False) + "\n"
    atomic_write_bytes(path, text.encode())


def read_json(path: Path) -> Any:
    """Read a JSON file."""
    return json.loads(Path(path).read_text())


def chunk_stem(group: int, chunk_size: int, index: int) -> str:
    """The file-name stem shared by the parts of one chunk."""
    return f"g{group:03d}_n{chunk_size:05d}_c{index:05d}"


def chunk_path(run_dir: Path, group: int, chunk_size: int, index: int, process: int = 0) -> Path:
    """Where process ``process``'s part of chunk ``index`` of static group ``group`` lives."""
    return Path(run_dir) / "chunks" / f"{chunk_stem(group, chunk_size, index)}_p{process:03d}.npz"


def save_chunk(path: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Save a chunk's arrays (``.npz``) atomically."""

    def writer(f):
        np.savez(f, **{k: np.asarray(v) for k, v in arrays.items()})

    _atomic(path, writer)


def load_chunk(path: Path) -> dict[str, np.ndarray] | None:
    """Load a chunk written by :func:`save_chunk`; ``None`` if it is missing or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except (FileNotFoundError, OSError, ValueError, KeyError):
        return None


def git_revision(start: Path | None = None) -> dict:
    """The git revision of the checkout holding ``start``, and whether its tree is dirty.

    Args:
        start: a directory inside the checkout (default: this package's).

    Returns:
        ``{"revision": hex sha, "dirty": bool}``, where dirty means ``git status
        --porcelain`` lists anything (a modified, staged or untracked file that is not
        ignored); ``{"revision": None, "dirty": None}`` outside a git checkout or
        without git.
    """
    start = Path(start or Path(__file__).resolve().parent)
    none = {"revision": None, "dirty": None}
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=start, capture_output=True, text=True, timeout=5
        )
        if rev.returncode != 0:
            return none
        dirty = subprocess.run(
            ["git", "status", "--porcelain"],
            cwd=start,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return {
            "revision": rev.stdout.strip(),
            "dirty": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None,
        }
    except (OSError, subprocess.SubprocessError):
        return none


def package_versions() -> dict:
    """Versions of the packages that decide a run's numbers.

    They are read once per process: the modules a process has imported do not change
    when a package is reinstalled under it.
    """
    return dict(_package_versions())


@functools.cache
def _package_versions() -> tuple[tuple[str, str | None], ...]:
    import platform
    from importlib import metadata

    out = []
    for name in ("jaxtheory", "jax", "jaxlib", "optax", "flax", "numpy", "xarray", "h5netcdf"):
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, None))
    return (*out, ("python", platform.python_version()))


def write_dataset(path: Path, ds) -> None:
    """Write an xarray Dataset to netCDF (h5netcdf engine) atomically.

    Laying a netCDF file out (its dimension scales, variables and attributes) costs far
    more than writing a small dataset's values, so the file written is kept in memory
    (up to :data:`LAYOUT_CACHE_BYTES`) and a later dataset of the same layout (the same
    variables, coordinates, dims, shapes, dtypes, encodings, variable attributes, values
    of non-numeric coordinates and non-string attributes) is written as a copy of it
    with every numeric value and every string attribute replaced: the same file as
    xarray writes, in a few milliseconds. A dataset with a non-numeric data variable is
    always written by xarray.
    """
    path = Path(path)
    key = _layout_key(ds)
    cached = _LAYOUTS.get(key) if key is not None else None
    if cached is not None:
        try:
            _atomic_to(path, lambda tmp: _refill(tmp, cached, ds))
            return
        except _NotThisLayout:
            _LAYOUTS.pop(key, None)

    def write(tmp: str) -> None:
        _to_netcdf(ds, tmp)
        if key is not None and os.path.getsize(tmp) <= LAYOUT_CACHE_BYTES // 4:
            _remember_layout(key, Path(tmp).read_bytes())

    _atomic_to(path, write)


def _to_netcdf(ds, path: str) -> None:
    ds.to_netcdf(path, engine="h5netcdf")


#: Bytes of netCDF files :func:`write_dataset` keeps in memory as layouts to copy (a file
#: of more than a quarter of it is not kept: its values, not its layout, take the time).
LAYOUT_CACHE_BYTES = 64 << 20

# Files written by this process, by layout key, oldest first.
_LAYOUTS: dict[str, bytes] = {}


def _remember_layout(key: str, data: bytes) -> None:
    _LAYOUTS.pop(key, None)
    while _LAYOUTS and sum(map(len, _LAYOUTS.values())) + len(data) > LAYOUT_CACHE_BYTES:
        _LAYOUTS.pop(next(iter(_LAYOUTS)))
    _LAYOUTS[key] = data


class _NotThisLayout(Exception):
    pass


def _layout_key(ds) -> str | None:
    """What decides the file xarray writes for ``ds`` bar its numeric values and string
    attributes, as a string; ``None`` when a data variable is not numeric (booleans,
    strings and dates are encoded on writing: they are never refilled).

    Numeric values (integers, unsigned, floats) are stored as they are, so they can be
    replaced in a copy; everything else (names, dims, shapes, dtypes, which variables are
    coordinates, attributes and encodings, the values of non-numeric coordinates and
    non-string attributes) is in the key.
    """
    parts = []
    for name, v in ds.variables.items():
        numeric = v.dtype.kind in "fiu"
        if not numeric and name in ds.data_vars:
            return None
        parts.append(
            (
                name,
                name in ds.coords,
                v.dims,
                v.shape,
                v.dtype.str,
                _plain(v.attrs),
                _plain(v.encoding),
                None if numeric else v.values.tolist(),
            )
        )
    attrs = _plain({k: "<str>" if isinstance(v, str) else v for k, v in ds.attrs.items()})
    return repr((parts, attrs, _plain(ds.encoding)))


def _plain(mapping) -> list:
    """Items sorted, arrays as lists (whose repr is never abbreviated, unlike an array's)."""
    return sorted((str(k), v.tolist() if isinstance(v, np.ndarray) else v) for k, v in mapping.items())


def _refill(tmp: str, layout: bytes, ds) -> None:
    """Write ``layout`` (a file of the same layout) to ``tmp`` and replace its values with
    those of ``ds``; :class:`_NotThisLayout` when a variable is not stored as expected."""
    import h5py

    with open(tmp, "wb") as f:
        f.write(layout)
    with h5py.File(tmp, "r+") as f:
        stored = {name: f.get(name) for name, v in ds.variables.items() if v.dtype.kind in "fiu"}
        for name, d in stored.items():
            v = ds.variables[name]
            # each variable under its own name (h5netcdf renames a few); a data variable is
            # no dimension scale
            if (
                not isinstance(d, h5py.Dataset)
                or d.shape != v.shape
                or d.dtype != v.dtype
                or (name in ds.data_vars and "CLASS" in d.attrs)
            ):
                raise _NotThisLayout(name)
        for name, d in stored.items():
            d[...] = np.ascontiguousarray(ds.variables[name].values)
        for k, v in ds.attrs.items():
            if isinstance(v, str):
                f.attrs[k] = v  # as h5netcdf writes a string attribute (variable-length)


def open_results(run_dir: Path):
    """Load ``results.nc`` of a run directory fully into memory (the file is closed)."""
    import xarray as xr

    path = Path(run_dir) / "results.nc"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: is {run_dir} a finished run directory?")
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        return ds.load()
