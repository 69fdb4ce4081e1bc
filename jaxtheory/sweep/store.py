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
one. ``results.nc`` of a small sweep is laid out ahead of its values
(:func:`prepare_dataset`, a ``.results.nc.prep-<host>-<pid>.*.tmp`` file while the
device computes) and renamed into place once they are written. Arrays are read back
with ``allow_pickle=False``: no object is ever unpickled.
"""

from __future__ import annotations

import functools
import json
import math
import os
import socket
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
    "PreparedDataset",
    "prepare_dataset",
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
            ["git", "status", "--porcelain"], cwd=start, capture_output=True, text=True, timeout=10,
        )
        return {"revision": rev.stdout.strip(),
                "dirty": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None}
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
    """Write an xarray Dataset to netCDF (h5netcdf engine) atomically."""
    _atomic_to(path, lambda tmp: ds.to_netcdf(tmp, engine="h5netcdf"))


#: Largest dataset (bytes of data variables) :func:`prepare_dataset` lays out ahead of its
#: values; a larger one is written in one go at the end, where its size dwarfs the layout.
PREPARE_MAX_BYTES = 64 << 20


class PreparedDataset:
    """A netCDF file laid out ahead of its values: written with placeholder values to a
    temporary name beside its destination, it waits for :meth:`commit`.

    Writing a small dataset's layout (dimension scales, coordinates, attributes) costs
    more than its values; the sweep engine lays out ``results.nc`` while the device
    computes and writes the values when they arrive. See :func:`prepare_dataset`.

    Attributes:
        path: the destination.
    """

    def __init__(self, path: Path, template, tmp: str):
        self.path = Path(path)
        self._template = template
        self._tmp: str | None = tmp

    def matches(self, ds) -> bool:
        """Whether ``ds`` has the template's layout: the same coordinates and attributes,
        and data variables of the same names, dims, dtypes and attributes (numbers only,
        which are stored as they are)."""
        t = self._template
        if self._tmp is None or list(ds.data_vars) != list(t.data_vars) or ds.attrs != t.attrs:
            return False
        for name, v in ds.data_vars.items():
            w = t[name]
            if (v.dims != w.dims or v.shape != w.shape or v.dtype != w.dtype or v.attrs != w.attrs
                    or v.dtype.kind not in "fiu"):
                return False
        return ds.drop_vars(list(ds.data_vars)).identical(t.drop_vars(list(t.data_vars)))

    def commit(self, ds) -> bool:
        """Write the values of ``ds`` into the laid-out file and rename it into place.

        Returns:
            True when done; False, with nothing written and the temporary file removed,
            when ``ds`` does not have the template's layout (:meth:`matches`): write it
            with :func:`write_dataset` instead.
        """
        if not self.matches(ds):
            self.discard()
            return False
        import h5py

        tmp, self._tmp = self._tmp, None
        try:
            with h5py.File(tmp, "r+") as f:
                stored = {name: f.get(name) for name in ds.data_vars}
                # each variable under its own name (h5netcdf renames a few), not a dimension scale
                ok = all(isinstance(d, h5py.Dataset) and d.shape == v.shape and d.dtype == v.dtype
                         and "CLASS" not in d.attrs for d, v in zip(stored.values(), ds.data_vars.values()))
                if ok:
                    for name, v in ds.data_vars.items():
                        stored[name][...] = np.ascontiguousarray(v.values)
            if not ok:
                _unlink(tmp)
                return False
            os.replace(tmp, self.path)
        except BaseException:
            _unlink(tmp)
            raise
        return True

    def discard(self) -> None:
        """Remove the temporary file (the destination is untouched)."""
        if self._tmp is not None:
            _unlink(self._tmp)
            self._tmp = None


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def _orphan_prefix(path: Path) -> str:
    return f".{path.name}.prep-"


def _remove_orphans(path: Path) -> None:
    """Remove layouts left beside ``path`` by processes of this host that have died."""
    prefix, host = _orphan_prefix(path), socket.gethostname()
    for f in path.parent.glob(f"{prefix}*.tmp"):
        h, _, rest = f.name[len(prefix):].rpartition("-")
        pid = rest.partition(".")[0]
        if h != host or not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            _unlink(str(f))
        except OSError:  # alive, under another user
            pass


def prepare_dataset(path: Path, template) -> PreparedDataset | None:
    """Lay out the netCDF file ``path`` will hold, ahead of its values.

    ``template`` is the dataset to come with placeholder values (zeros): the same
    coordinates, attributes, data variables, dims and dtypes. It is written (h5netcdf
    engine) to a temporary file beside ``path``, which
    :meth:`PreparedDataset.commit` fills with the real values and renames into place,
    so ``path`` holds the old file or the new one, never half of one, as with
    :func:`write_dataset`. Layouts left by killed processes of this host are removed.

    Args:
        path: the destination, e.g. a run's ``results.nc``.
        template: an xarray Dataset with placeholder values.

    Returns:
        A :class:`PreparedDataset`, or ``None`` when the template's data variables
        exceed :data:`PREPARE_MAX_BYTES` or are not all numbers (write those with
        :func:`write_dataset`).
    """
    path = Path(path)
    if (sum(v.nbytes for v in template.data_vars.values()) > PREPARE_MAX_BYTES
            or any(v.dtype.kind not in "fiu" for v in template.data_vars.values())):
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
    fd, tmp = tempfile.mkstemp(prefix=f"{_orphan_prefix(path)}{socket.gethostname()}-{os.getpid()}.",
                               suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        template.to_netcdf(tmp, engine="h5netcdf")
    except BaseException:
        _unlink(tmp)
        raise
    return PreparedDataset(path, template, tmp)


def open_results(run_dir: Path):
    """Load ``results.nc`` of a run directory fully into memory (the file is closed)."""
    import xarray as xr

    path = Path(run_dir) / "results.nc"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: is {run_dir} a finished run directory?")
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        return ds.load()
