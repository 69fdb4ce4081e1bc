"""The sweep engine: a space of configs × seeds as one compiled program per static group.

``sweep(run, spec, space, params)`` binds the space to the run's spec and parameters,
flattens the dynamic axes × seeds into *lanes*, compiles ``jit(vmap(run))`` once per
static group, runs the lanes in fixed-size chunks sharded over the chosen devices,
writes each finished chunk atomically, and assembles a labelled
:class:`xarray.Dataset` with one dimension per axis, ``seed``, and the metrics' own
dimensions.

Lane keys derive from the lane's config values and seed index (a hash), never from its
position, so adding a config, reordering axes, or changing the chunk size or device
count leaves every other lane's key unchanged. Each device runs one batch of
``chunk_size / device count`` lanes per chunk; its results are bitwise equal wherever
that batch has the same size (a rerun, a resume, another device or process count at the
same lanes per device, other configs at the same chunk size), and agree within float32
round-off otherwise: XLA compiles a batch of another size (or a lane alone) into another
program, which may round differently. The values of paired axes (``Space(paired=...)``)
stay out of the key; a categorical parameter's key hashes its label, while the run
receives the label's code.

Every chunk carries the fingerprint of the code that computed it
(:func:`~jaxtheory.sweep.provenance.code_provenance`: the run function's module and the
engine's, the package modules they import, library versions, the x64 flag), and so does
``manifest.json``, with the git revision and dirty flag per call. A rerun resumes a chunk
only when both its lane ids and its fingerprint match the sweep running now; a chunk
of other code is recomputed and overwritten.

A call reads top to bottom as its stages: ``_plan`` binds the space and derives
every lane's parameters, id and key and every static group's output shapes (all errors
of a bad space surface here, before anything compiles); ``_program`` compiles one
program per static group and chunk size (kept for later calls in the process);
``_run_group`` runs the chunks not stored yet, dispatching the next before storing
the previous one, and, while the first computes, ``_HostWork`` reads the git
revision; ``_gather`` and ``_assemble`` make one labelled Dataset with no work per
lane; ``_record`` writes ``results.nc`` (a copy of the last file of the same layout
with the values replaced, when this process wrote one:
:func:`~jaxtheory.sweep.store.write_dataset`) and ``manifest.json``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.compile_cache import _enable_by_default as _enable_compile_cache
from jaxtheory.sweep import store
from jaxtheory.sweep.mesh import describe_devices, lane_sharding, select_devices
from jaxtheory.sweep.provenance import code_provenance
from jaxtheory.sweep.space import BoundSpace, Categorical, Space, SpaceError

__all__ = [
    "sweep",
    "SweepResult",
    "lane_key_data",
    "lane_key_table",
    "make_key",
    "default_chunk_size",
    "clear_compile_cache",
    "compute_timings",
]

STATUS_OK = 0
STATUS_DIVERGED = 1


def _canon(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, float, np.integer, np.floating)):
        return repr(float(v))
    return str(v)


def lane_key_data(config: Mapping[str, Any], seed: int, base_seed: int = 0) -> np.ndarray:
    """The two uint32 words a lane's PRNG key is made from.

    They hash the lane's config values (by name, in sorted order), its seed index and
    the space's base seed, so they do not depend on the lane's position.

    Example:
        >>> a = lane_key_data({"lr": 0.1, "momentum": 0.9}, seed=0)
        >>> b = lane_key_data({"momentum": 0.9, "lr": 0.1}, seed=0)
        >>> bool((a == b).all()), bool((a == lane_key_data({"lr": 0.1, "momentum": 0.9}, 1)).all())
        (True, False)
    """
    payload = json.dumps(
        {
            "config": {k: _canon(v) for k, v in sorted(config.items())},
            "seed": int(seed),
            "base": int(base_seed),
        },
        sort_keys=True,
    ).encode()
    digest = hashlib.blake2b(payload, digest_size=8).digest()
    return np.frombuffer(digest, dtype="<u4").astype(np.uint32)


def lane_key_table(configs: Sequence[Mapping[str, Any]], seeds: int, base_seed: int = 0) -> np.ndarray:
    """:func:`lane_key_data` of every lane of ``configs`` × ``seeds``, config-major.

    The same words as ``np.stack([lane_key_data(c, s, base_seed) for c in configs for s
    in range(seeds)])``, with the per-config work done once per config and each value
    encoded once per distinct value, so a large sweep spends a hash per lane.

    Args:
        configs: the lanes' configs (``{name: value}``).
        seeds: seeds per config.
        base_seed: the space's base seed.

    Returns:
        ``uint32`` array of shape ``(len(configs) * seeds, 2)``.

    Example:
        >>> cfgs = [{"lr": 0.1}, {"lr": 0.2}]
        >>> t = lane_key_table(cfgs, seeds=2)
        >>> t.shape, bool((t[3] == lane_key_data({"lr": 0.2}, 1)).all())
        ((4, 2), True)
    """
    seeds = int(seeds)
    encoded: dict[str, dict[Any, str]] = {}  # name -> value -> its JSON, once per distinct value

    def enc(name: str, v: Any) -> str:
        memo = encoded.setdefault(name, {})
        try:
            return memo[v]
        except (KeyError, TypeError):  # unseen, or unhashable
            text = json.dumps(_canon(v))
            try:
                memo[v] = text
            except TypeError:
                pass
            return text

    # The payload of lane_key_data: json.dumps({"config": ..., "seed": s, "base": b},
    # sort_keys=True), spelled out: the keys sorted, json's default separators.
    head = f'{{"base": {int(base_seed)}, "config": {{'
    out = bytearray()
    for cfg in configs:
        body = ", ".join(f"{json.dumps(k)}: {enc(k, v)}" for k, v in sorted(cfg.items()))
        pre = f'{head}{body}}}, "seed": '.encode()
        for s in range(seeds):
            out += hashlib.blake2b(pre + b"%d}" % s, digest_size=8).digest()
    return np.frombuffer(bytes(out), dtype="<u4").astype(np.uint32).reshape(-1, 2)


def make_key(key_data: jax.Array) -> jax.Array:
    """A typed PRNG key from :func:`lane_key_data` words (works for any PRNG impl)."""
    return jax.random.fold_in(jax.random.key(key_data[0]), key_data[1])


def _param_dtype(default: Any, vals: np.ndarray | None):
    probe = [default] if vals is None else list(vals.ravel()) + [default]
    if all(isinstance(v, (bool, np.bool_)) for v in probe):
        return jnp.bool_
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in probe):
        return jnp.int32
    if hasattr(default, "dtype") and jnp.issubdtype(default.dtype, jnp.floating):
        return default.dtype
    return jnp.float32


def default_chunk_size(bytes_per_lane: int, num_lanes: int, devices: list[jax.Device]) -> int:
    """Lanes per chunk: all of them if they fit a memory budget, else what fits.

    The budget is a quarter of the device memory JAX reports (a GPU's ``bytes_limit``),
    or 2 GiB on a CPU; a lane is charged 16× its output size for its working state.
    The result is a multiple of the device count.
    """
    budget = 2 << 30
    try:
        stats = devices[0].memory_stats() or {}
        if "bytes_limit" in stats:
            budget = int(stats["bytes_limit"]) // 4
    except Exception:  # noqa: BLE001 - CPUs may not report memory stats
        pass
    per = max(16 * max(bytes_per_lane, 1), 1)
    fit = max(1, budget // per)
    n = min(num_lanes, fit, 1 << 16)
    nd = len(devices)
    return int(math.ceil(max(n, 1) / nd) * nd)


class _Cache:
    """A small first-in-first-out cache of this process."""

    def __init__(self, size: int):
        self.size, self.items = size, {}

    def get(self, key):
        return None if key is None else self.items.get(key)

    def put(self, key, value) -> None:
        if key is None:
            return
        if len(self.items) >= self.size:
            self.items.pop(next(iter(self.items)))
        self.items[key] = value


# Per process, so a sweep that differs from an earlier one only in dynamic values (or
# resumes it) neither traces nor compiles again: the output shapes of each run function
# and static group (``jax.eval_shape``), and the compiled programs, one per static group
# and chunk size.
_SHAPES = _Cache(256)
_HOST_CHUNKS = 32  # host mode: a sweep's lanes are stored in about this many chunks by default
_COMPILED = _Cache(64)


def _cache_key(run, spec, chunk_size, lane_params, devices):
    """A key for the caches, or ``None`` for an unhashable spec (no caching)."""
    try:
        key = (
            run,
            spec,
            chunk_size,
            tuple((k, str(v.dtype)) for k, v in sorted(lane_params.items())),
            tuple(devices),
            bool(jax.config.jax_enable_x64),  # the same run traces to another program under x64
        )
        hash(key)
    except TypeError:
        return None
    return key


def clear_compile_cache() -> None:
    """Forget the compiled programs (and output shapes) kept for reuse by later sweeps in this process."""
    _COMPILED.items.clear()
    _SHAPES.items.clear()


_HISTORY_MAX = 100
_HISTORY_KEYS = (
    "created",
    "chunks_run",
    "chunks_resumed",
    "compiles",
    "chunk_size",
    "timings",
    "fingerprint",
    "git",
)


def _previous_history(run_path: Path | None) -> list[dict]:
    """The calls recorded by earlier sweeps into this run directory, oldest first."""
    if run_path is None or not (run_path / "manifest.json").exists():
        return []
    try:
        old = store.read_json(run_path / "manifest.json")
    except Exception:  # noqa: BLE001 - a torn or foreign manifest starts a new history
        return []
    hist = old.get("history")
    if isinstance(hist, list):
        return [h for h in hist if isinstance(h, dict)]
    return [{k: old.get(k) for k in _HISTORY_KEYS}] if "timings" in old else []


def compute_timings(manifest: Mapping[str, Any]) -> dict[str, Any] | None:
    """Time spent computing a run's results, summed over every call that ran chunks.

    A run interrupted and resumed computes its chunks over several calls; a call that
    found every chunk done only reassembles them. This sums ``compile_s``, ``run_s``,
    ``store_s`` and ``total_s`` over the calls of ``manifest["history"]`` that ran at
    least one chunk.

    Args:
        manifest: a run's ``manifest.json`` as a dict.

    Returns:
        ``{"calls": n, "chunks_run": c, "compiles": k, "timings": {...}, "devices": {...}}``
        (devices of the latest computing call), or ``None`` when no recorded call ran a
        chunk.

    Example:
        >>> m = {"history": [
        ...     {"chunks_run": 3, "compiles": 1, "timings": {"run_s": 2.0, "total_s": 3.0}},
        ...     {"chunks_run": 0, "compiles": 0, "timings": {"run_s": 0.0, "total_s": 0.1}},
        ...     {"chunks_run": 1, "compiles": 1, "timings": {"run_s": 1.0, "total_s": 1.5}}]}
        >>> c = compute_timings(m)
        >>> c["calls"], c["chunks_run"], c["timings"]["run_s"], c["timings"]["total_s"]
        (2, 4, 3.0, 4.5)
    """
    hist = manifest.get("history")
    if not isinstance(hist, list):
        hist = [manifest]
    runs = [h for h in hist if (h.get("chunks_run") or 0) > 0]
    if not runs:
        return None
    keys = ("compile_s", "run_s", "store_s", "results_write_s", "total_s")
    tim = {k: float(sum((h.get("timings") or {}).get(k, 0.0) or 0.0 for h in runs)) for k in keys}
    return {
        "calls": len(runs),
        "chunks_run": int(sum(h["chunks_run"] for h in runs)),
        "compiles": int(sum(h.get("compiles") or 0 for h in runs)),
        "timings": tim,
        "devices": runs[-1].get("devices") or manifest.get("devices"),
    }


@dataclasses.dataclass
class SweepResult:
    """What :func:`sweep` returns.

    Attributes:
        dataset: the assembled results: one dim per axis, ``seed``, metric dims; data
            variables for every metric plus ``status`` (0 ok, 1 diverged) and
            ``diverged_step`` (-1 when finite).
        run_dir: where it was stored, or ``None`` for an in-memory sweep.
        manifest: space, spec, versions, devices, this call's timings, status counts,
            the code's ``fingerprint`` and ``code`` record (see
            :func:`~jaxtheory.sweep.provenance.code_provenance`), ``git`` (revision and
            dirty flag of the checkout holding the run function), and ``history``: one
            record per call that wrote this run directory (its timings, chunks run and
            resumed, devices, fingerprint, git), oldest first; see
            :func:`compute_timings`.
    """

    dataset: Any
    run_dir: Path | None
    manifest: dict


class _Progress:
    def __init__(self, total: int, quiet: bool, desc: str):
        self.bar = None
        if not quiet:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total, unit="lane", desc=desc, dynamic_ncols=True, file=sys.stderr, smoothing=0.1
            )

    def update(self, n: int, **post) -> None:
        if self.bar is not None:
            if post:
                self.bar.set_postfix(**post, refresh=False)
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _first_nonfinite_step(metrics: dict[str, np.ndarray], n: int) -> np.ndarray:
    """Per lane: first index along each metric's first own axis that is non-finite."""
    div = np.full(n, -1, dtype=np.int32)
    for v in metrics.values():
        if not np.issubdtype(v.dtype, np.inexact):
            continue
        bad = ~np.isfinite(v)
        if v.ndim == 1:
            idx = np.where(bad, 0, -1)
        else:
            bad = bad.reshape(n, v.shape[1], -1).any(axis=2)
            anyb = bad.any(axis=1)
            idx = np.where(anyb, bad.argmax(axis=1), -1)
        both = (div >= 0) & (idx >= 0)
        div = np.where(both, np.minimum(div, idx), np.maximum(div, idx)).astype(np.int32)
    return div


def sweep(
    run: Callable[[Any, dict, jax.Array], Mapping[str, jax.Array]],
    spec: Any,
    space: Space,
    params: Mapping[str, Any],
    *,
    run_dir: str | os.PathLike | None = None,
    metric_dims: Mapping[str, tuple[str, ...]] | None = None,
    coords: Callable[[Any], Mapping[str, Any]] | Mapping[str, Any] | None = None,
    chunk: int | None = None,
    devices: Any = "all",
    quiet: bool = False,
    label: str = "sweep",
    meta: Mapping[str, Any] | None = None,
    fingerprint: str | Mapping[str, Any] | None = None,
    jit: bool = True,
):
    """Run ``run(spec, params, key)`` over every lane of ``space``.

    The first call in a process turns on JAX's persistent compilation cache unless it
    is switched off (see :mod:`jaxtheory.compile_cache`).

    Args:
        run: pure, jittable, vmappable ``run(spec, params, key) -> {name: array}``.
        spec: frozen dataclass fixing shapes; static axes replace its fields.
        space: the :class:`~jaxtheory.sweep.Space` to sweep.
        params: default value of every parameter ``run`` reads; dynamic axes replace
            them per lane. Every value reaches ``run`` as a JAX scalar; a parameter
            declared :func:`~jaxtheory.sweep.categorical` reaches it as the ``int32``
            code of its label.
        run_dir: directory to store chunks, ``results.nc`` and ``manifest.json`` in;
            rerunning with the same directory resumes the chunks computed by the same
            code (same ``fingerprint``) and recomputes the others. ``None`` keeps
            everything in memory.
        metric_dims: names of each metric's own dimensions, e.g. ``{"risk": ("step",)}``;
            unnamed ones become ``<metric>_dim<i>``.
        coords: coordinates for metric dimensions, or a function of the spec giving them.
        chunk: lanes per chunk, rounded up to a multiple of the device count and capped
            at a static group's lane count (rounded likewise); by default as many as fit memory
            (:func:`default_chunk_size`). Results are bitwise reproducible at the same
            lanes per device, within float32 round-off at another.
        devices: ``"all"``, a count, or a list of devices to shard lanes over.
        quiet: no progress bar and no summary line.
        label: name shown on the progress bar and in the manifest.
        meta: extra JSON-able entries for the manifest.
        fingerprint: the code's fingerprint: a string, or the record
            :func:`~jaxtheory.sweep.provenance.code_provenance` returns. By default,
            ``code_provenance(run, sweep)``: the run function's module, this engine's,
            and the ``jaxtheory`` (and ``sweeps``) modules they import, library versions
            and the x64 flag.
        jit: ``True`` (the default) compiles ``jit(vmap(run))`` per static group.
            ``False`` is *host mode*, for computations that are naturally host-side
            (Python dynamic programs, recursion over version spaces): ``run(spec,
            params, seed)`` is a plain Python/numpy function called once per lane, with
            ``params`` a dict of Python scalars (a categorical as its ``int`` code;
            floats in float64) and ``seed`` a non-negative ``int`` below ``2**63``
            derived from the lane's key words (:func:`host_seed`), so it depends on the
            lane's config values and seed index, never on its position, and paired axes
            stay out of it. It returns a dict of numpy arrays whose shapes agree across
            the lanes of a static group. The chunk store, resume, assembly, divergence
            flags and manifest are the compiled path's; ``devices`` is ignored (the lanes
            of a chunk are split between the processes of a multi-process job).

    Returns:
        A :class:`SweepResult`.

    Raises:
        SpaceError: before anything compiles, for a malformed space or an axis that
            names nothing the run takes.

    Example:
        >>> import dataclasses, jax, jax.numpy as jnp
        >>> from jaxtheory.sweep import Space, values, sweep
        >>> @dataclasses.dataclass(frozen=True)
        ... class Spec:
        ...     n: int = 3
        >>> def run(spec, params, key):
        ...     return {"x": params["a"] * jnp.ones(spec.n)}
        >>> res = sweep(run, Spec(), Space(a=values(1.0, 2.0), seeds=2), {"a": 0.0}, quiet=True)
        >>> dict(res.dataset["x"].sizes)
        {'a': 2, 'seed': 2, 'x_dim0': 3}
    """
    t_start = time.perf_counter()
    _enable_compile_cache()  # once per process, before the first compile
    plan = _plan(
        run,
        spec,
        space,
        params,
        run_dir=run_dir,
        metric_dims=metric_dims,
        coords=coords,
        chunk=chunk,
        devices=devices,
        label=label,
        fingerprint=fingerprint,
        jit=jit,
    )
    tally = _Tally()
    host = _HostWork(plan)
    progress = _Progress(plan.n_lanes * len(plan.groups), quiet, label)
    try:
        held = [_run_group(plan, g, tally, host, progress) for g in plan.groups]
    finally:
        progress.close()
    if plan.multi:  # every process has written its parts; process 0 reads them all
        _barrier(f"jaxtheory-sweep-written-{label}")
        if jax.process_index() != 0:  # process 0 assembles; the others read its result
            _barrier(f"jaxtheory-sweep-assembled-{label}")
            ds = store.open_results(plan.run_path)
            manifest = store.read_json(plan.run_path / "manifest.json")
            manifest["process_chunks_run"] = tally.chunks_run
            return SweepResult(ds, plan.run_path, manifest)
    t0 = time.perf_counter()
    ds = _assemble(plan, [_gather(plan, g, chunks) for g, chunks in zip(plan.groups, held)])
    ds.attrs["manifest"] = plan.results_attrs
    tally.timings["assemble_s"] = time.perf_counter() - t0
    manifest = _record(plan, ds, tally, host, t_start, meta)
    if plan.multi:
        _barrier(f"jaxtheory-sweep-assembled-{label}")
    if not quiet:
        _summary(plan, manifest)
    return SweepResult(ds, plan.run_path, manifest)


# -- plan: lanes, keys and output shapes, before anything compiles --------------------


@dataclasses.dataclass
class _Group:
    """One static group: a spec, and the ids and PRNG key words of its lanes."""

    index: int
    values: dict[str, Any]  # the static values
    spec: Any
    ids: np.ndarray  # (lanes, 2): hashes of every value; they tell whether a stored chunk is ours
    keys: np.ndarray  # (lanes, 2): the PRNG key words; paired axes left out
    lane_fn: Callable
    out_shape: Mapping[str, jax.ShapeDtypeStruct] | None  # None: host mode, until a lane is known
    coords: dict[str, Any]  # coordinates of the metrics' own dims


@dataclasses.dataclass
class _Plan:
    """Everything a sweep decides before it compiles."""

    run: Callable
    spec: Any
    space: Space
    params: dict[str, Any]
    bound: BoundSpace
    devices: list
    sharding: Any
    run_path: Path | None
    code: dict
    lane_params: dict[str, np.ndarray]  # each parameter's value per lane (shared by the groups)
    groups: list[_Group]
    n_lanes: int  # lanes per static group
    chunk_size: int
    metric_dims: dict[str, tuple[str, ...]]
    label: str
    multi: bool  # several processes
    jit: bool = True  # False: host mode, ``run(spec, params, seed)`` per lane in Python

    @property
    def fingerprint(self) -> str:
        return self.code["fingerprint"]

    @property
    def n_chunks(self) -> int:
        return int(math.ceil(self.n_lanes / self.chunk_size))

    @property
    def results_attrs(self) -> str:
        """The ``manifest`` attribute of ``results.nc``."""
        return json.dumps(
            store.to_jsonable(
                {
                    "label": self.label,
                    "space": self.space.describe(),
                    "spec": self.spec,
                    "params": self.params,
                    "fingerprint": self.fingerprint,
                }
            )
        )


def _plan(
    run, spec, space, params, *, run_dir, metric_dims, coords, chunk, devices, label, fingerprint, jit=True
) -> _Plan:
    """Bind the space, derive every lane's parameters, id and key, and every static
    group's spec and output shapes; raise for a bad space before anything compiles."""
    if not isinstance(space, Space):
        raise SpaceError(f"space must be a jaxtheory.sweep.Space, got {type(space).__name__}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise SpaceError(f"chunk must be a positive integer, got {chunk!r}")
    params = dict(params)
    bound = space.bind(spec, params)
    if not isinstance(jit, bool):
        raise TypeError(f"jit must be True or False, got {jit!r}")
    devs = select_devices(devices) if jit else jax.local_devices(backend="cpu")[:1]
    run_path = Path(run_dir) if run_dir is not None else None
    code = _code_record(run, fingerprint)
    table = bound.dynamic_table()
    n_lanes = bound.num_configs * bound.seeds
    lane_params = _lane_params(params, table, bound.seeds, n_lanes, host=not jit)
    multi = jax.process_count() > 1
    if multi and run_path is None:
        raise ValueError("a sweep over several processes needs a run directory (run_dir=...)")
    if multi:
        _agree_on_code(code["fingerprint"])
    metric_dims = {k: tuple(v) for k, v in dict(metric_dims or {}).items()}
    cfg_rows = [{k: table[k][i] for k in table} for i in range(bound.num_configs)]
    groups = [
        _group(gi, gvals, run, spec, bound, cfg_rows, lane_params, devs, metric_dims, coords, jit)
        for gi, gvals in enumerate(bound.static_groups())
    ]
    nd = len(devs)
    if chunk:
        chunk_size = int(math.ceil(chunk / nd) * nd)
    elif not jit:  # no memory to fit: chunks small enough to resume from and show progress by
        chunk_size = max(1, int(math.ceil(n_lanes / _HOST_CHUNKS)))
    else:
        out = groups[0].out_shape
        bytes_per_lane = sum(int(np.prod(s.shape)) * s.dtype.itemsize for s in out.values())
        chunk_size = default_chunk_size(bytes_per_lane, n_lanes, devs)
    chunk_size = min(chunk_size, int(math.ceil(n_lanes / nd) * nd))
    return _Plan(
        run,
        spec,
        space,
        params,
        bound,
        devs,
        lane_sharding(devs),
        run_path,
        code,
        lane_params,
        groups,
        n_lanes,
        chunk_size,
        metric_dims,
        label,
        multi,
        jit,
    )


def _lane_params(params, table, seeds, n_lanes, host=False) -> dict[str, np.ndarray]:
    """Each parameter's value per lane: its axis values repeated per seed, or its default.

    ``host``: 64-bit integers and floats, for a host-mode run (its values reach Python
    as they were written, not rounded to float32).
    """
    out: dict[str, np.ndarray] = {}
    for name, default in params.items():
        vals = table.get(name)
        if isinstance(default, Categorical):  # labels -> codes; the keys hash the labels
            vals = None if vals is None else default.codes(vals)
            default = default.code(default.default)
        dt = _param_dtype(default, vals)
        if host:
            dt = {jnp.bool_: np.bool_, jnp.int32: np.int64}.get(dt, np.float64)
        if vals is None:
            out[name] = np.full(n_lanes, np.asarray(default), dtype=dt)
        else:
            out[name] = np.repeat(np.asarray(vals).astype(dt), seeds)
    return out


def _group(gi, gvals, run, spec, bound, cfg_rows, lane_params, devs, metric_dims, coords, jit=True) -> _Group:
    """Static group ``gi``: its spec, its lanes' ids and keys, its output shapes (traced once)."""
    try:
        spec_g = dataclasses.replace(spec, **gvals) if gvals else spec
    except TypeError as e:
        raise SpaceError(f"cannot set static values {gvals} on the spec: {e}") from None
    space = bound.space
    configs = [{**gvals, **row} for row in cfg_rows]
    ids = lane_key_table(configs, bound.seeds, space.base_seed)
    keys = (
        ids
        if not space.paired
        else lane_key_table([space.key_config(c) for c in configs], bound.seeds, space.base_seed)
    )

    mcoords = coords(spec_g) if callable(coords) else dict(coords or {})
    if not jit:  # host mode: shapes are learnt from the first lane computed (or stored)

        def host_fn(p, kd, _spec=spec_g):
            return run(_spec, p, host_seed(kd))

        return _Group(gi, dict(gvals), spec_g, ids, keys, host_fn, None, dict(mcoords))

    def lane_fn(p, kd, _spec=spec_g):
        return dict(run(_spec, p, make_key(kd)))

    shape_key = _cache_key(run, spec_g, 0, lane_params, devs)
    out_shape = _SHAPES.get(shape_key)
    if out_shape is None:
        one = {k: jax.ShapeDtypeStruct((), v.dtype) for k, v in lane_params.items()}
        out_shape = jax.eval_shape(lane_fn, one, jax.ShapeDtypeStruct((2,), jnp.uint32))
        _SHAPES.put(shape_key, out_shape)
    if not isinstance(out_shape, Mapping) or not out_shape:
        raise TypeError("run must return a non-empty dict of metrics")
    for name, s in out_shape.items():
        if name in metric_dims and name != "diverged_step" and len(metric_dims[name]) != len(s.shape):
            raise ValueError(
                f"metric {name!r} has shape {tuple(s.shape)} but metric_dims names {metric_dims[name]}"
            )
    return _Group(gi, dict(gvals), spec_g, ids, keys, lane_fn, out_shape, dict(mcoords))


# -- compile: one program per static group (and chunk size), per process ------------


@dataclasses.dataclass
class _Tally:
    """What this call did: timings, compiles, chunks run and resumed."""

    timings: dict[str, float] = dataclasses.field(
        default_factory=lambda: {"compile_s": 0.0, "run_s": 0.0, "store_s": 0.0}
    )
    compiles: int = 0
    chunks_run: int = 0
    chunks_resumed: int = 0


def _program(plan: _Plan, g: _Group, tally: _Tally):
    """The compiled ``jit(vmap(run))`` of a group for one chunk of lanes (cached)."""
    key = _cache_key(plan.run, g.spec, plan.chunk_size, plan.lane_params, plan.devices)
    compiled = _COMPILED.get(key)
    if compiled is None:
        t0 = time.perf_counter()
        sh, n = plan.sharding, plan.chunk_size
        vfn = jax.jit(jax.vmap(g.lane_fn), in_shardings=(sh, sh), out_shardings=sh)
        abstract_p = {
            k: jax.ShapeDtypeStruct((n,), v.dtype, sharding=sh) for k, v in plan.lane_params.items()
        }
        abstract_k = jax.ShapeDtypeStruct((n, 2), jnp.uint32, sharding=sh)
        compiled = vfn.lower(abstract_p, abstract_k).compile()
        _COMPILED.put(key, compiled)
        tally.compiles += 1
        tally.timings["compile_s"] += time.perf_counter() - t0
    return compiled


# -- run: the chunks not stored yet, one in flight while the previous one is stored --


def _run_group(plan: _Plan, g: _Group, tally: _Tally, host: _HostWork, progress) -> dict[int, dict | None]:
    """Run a group's missing chunks and store them; ``{chunk: lane-ordered arrays}``.

    Chunks already stored by this code are read back instead. The next chunk is
    dispatched before the previous one's results are read back and written, so the
    device computes while the host stores. An entry is ``None`` for a chunk other
    processes hold lanes of (it is read back from disk once all have written).
    """
    cs, n = plan.chunk_size, plan.n_lanes
    done = _done_chunks(plan.run_path, g.index, cs, plan.n_chunks, n, g.ids, plan.fingerprint)
    results: dict[int, dict | None] = {}
    program = None
    in_flight = None  # (chunk index, its outputs): dispatched, not read back yet

    def land(ci, out):
        lo, hi = ci * cs, min((ci + 1) * cs, n)
        results[ci] = _store_chunk(plan, g, ci, lo, hi, out, tally)
        progress.update(hi - lo, group=f"{g.index + 1}/{len(plan.groups)}")

    for ci in range(plan.n_chunks):
        if ci in done:
            results[ci] = done[ci]
            tally.chunks_resumed += 1
            progress.update(min((ci + 1) * cs, n) - ci * cs, group=f"{g.index + 1}/{len(plan.groups)}")
            continue
        if not plan.jit:  # host mode: compute this process's lanes here, then store them
            host.while_computing()
            lo, hi = ci * cs, min((ci + 1) * cs, n)
            local = _host_chunk(plan, g, lo, hi, tally, progress)
            results[ci] = _store_chunk(plan, g, ci, lo, hi, None, tally, local=local)
            progress.update(0, group=f"{g.index + 1}/{len(plan.groups)}")
            continue
        if program is None:
            program = _program(plan, g, tally)
        out = _dispatch(plan, g, program, ci, tally)
        if in_flight is not None:
            land(*in_flight)
        host.while_computing()
        in_flight = (ci, out)
    if in_flight is not None:
        land(*in_flight)
    return dict(sorted(results.items()))


def _dispatch(plan: _Plan, g: _Group, program, ci: int, tally: _Tally):
    """Start chunk ``ci`` on the devices (asynchronously); its outputs."""
    lo = ci * plan.chunk_size
    idx = np.arange(lo, lo + plan.chunk_size).clip(max=plan.n_lanes - 1)  # pad with the last lane
    t0 = time.perf_counter()
    out = program(
        _global({k: v[idx] for k, v in plan.lane_params.items()}, plan.sharding),
        _global(g.keys[idx], plan.sharding),
    )
    tally.timings["run_s"] += time.perf_counter() - t0
    return out


def _host_chunk(plan: _Plan, g: _Group, lo: int, hi: int, tally: _Tally, progress) -> tuple[np.ndarray, dict]:
    """Host mode: run this process's lanes of chunk ``[lo, hi)`` one by one in Python.

    The lanes of a chunk are split into contiguous blocks, one per process. Returns
    (lane indices, ``{metric: (lanes, ...)}``); the metrics' names and shapes must agree
    with the group's first lane (they become the group's ``out_shape``).
    """
    nproc, me = jax.process_count(), jax.process_index()
    lanes = np.array_split(np.arange(lo, hi, dtype=np.int64), nproc)[me]
    rows: list[dict[str, np.ndarray]] = []
    t0 = time.perf_counter()
    for i in lanes:
        p = {k: v[i].item() for k, v in plan.lane_params.items()}
        got = g.lane_fn(p, g.keys[i])
        if not isinstance(got, Mapping) or not got:
            raise TypeError(f"run must return a non-empty dict of metrics, got {type(got).__name__}")
        got = {str(k): np.asarray(v) for k, v in got.items()}
        _check_host_lane(plan, g, got, int(i))
        rows.append(got)
        progress.update(1)
    tally.timings["run_s"] += time.perf_counter() - t0
    if not rows:  # this process holds no lane of the chunk
        shapes = g.out_shape or {}
        return lanes, {k: np.zeros((0, *s.shape), s.dtype) for k, s in shapes.items()}
    return lanes, {k: np.stack([r[k] for r in rows]) for k in rows[0]}


def _check_host_lane(plan: _Plan, g: _Group, got: Mapping[str, np.ndarray], lane: int) -> None:
    """The group's output shapes from its first lane; later lanes must agree with them."""
    shapes = {k: jax.ShapeDtypeStruct(v.shape, v.dtype) for k, v in got.items()}
    if g.out_shape is None:
        for name, s in shapes.items():
            if s.dtype == object or s.dtype.kind in "USV":
                raise TypeError(f"host run: metric {name!r} is not numeric (dtype {s.dtype})")
            dims = plan.metric_dims.get(name)
            if dims is not None and name != "diverged_step" and len(dims) != len(s.shape):
                raise ValueError(f"metric {name!r} has shape {tuple(s.shape)} but metric_dims names {dims}")
        g.out_shape = shapes
        return
    if set(shapes) != set(g.out_shape) or any(shapes[k].shape != g.out_shape[k].shape for k in shapes):
        want = {k: tuple(v.shape) for k, v in g.out_shape.items()}
        have = {k: tuple(v.shape) for k, v in shapes.items()}
        raise ValueError(
            f"host run: lane {lane} returned metrics {have}, but the group's first lane returned {want}: "
            "every lane of a static group must return the same metrics with the same shapes"
        )


def host_seed(key_data: np.ndarray) -> int:
    """A host-mode lane's ``seed``: its two key words as one non-negative 63-bit ``int``.

    Args:
        key_data: the lane's two ``uint32`` key words (:func:`lane_key_data`).

    Returns:
        ``(k0 << 31) ^ k1`` below ``2**63``, for ``numpy.random.default_rng(seed)``.

    Example:
        >>> import numpy as np
        >>> host_seed(np.array([0, 7], np.uint32))
        7
    """
    k0, k1 = (int(x) for x in np.asarray(key_data, dtype=np.uint32).reshape(2))
    return ((k0 << 31) ^ k1) & ((1 << 63) - 1)


def _store_chunk(
    plan: _Plan, g: _Group, ci: int, lo: int, hi: int, out, tally: _Tally, local=None
) -> dict | None:
    """Read back this process's lanes of a chunk, flag divergence, write its part.

    ``local``: (lanes, arrays) already on the host (host mode), instead of ``out``.
    """
    t0 = time.perf_counter()
    lanes, out = _local_lanes(out, lo, hi) if local is None else local
    tally.timings["run_s"] += time.perf_counter() - t0
    t0 = time.perf_counter()
    n = lanes.size
    if "diverged_step" in out:
        div = np.asarray(out.pop("diverged_step")).astype(np.int32).reshape(n)
        div = np.where(div >= 0, div, _first_nonfinite_step(out, n)).astype(np.int32)
    else:
        div = _first_nonfinite_step(out, n)
    got = {
        **out,
        "diverged_step": div,
        "__keys": g.ids[lanes],
        "__lanes": lanes,
        "__code": np.asarray(plan.fingerprint),
    }
    if plan.run_path is not None:
        path = store.chunk_path(plan.run_path, g.index, plan.chunk_size, ci, jax.process_index())
        old = _valid_part(store.load_chunk(path), g.ids, plan.fingerprint)
        if old is None or not np.array_equal(old["__lanes"], lanes):  # never rewrite a good part
            store.save_chunk(path, got)
    tally.timings["store_s"] += time.perf_counter() - t0
    tally.chunks_run += 1
    return None if plan.multi else got  # other processes hold the rest: read it back later


class _HostWork:
    """What the record needs and no result decides, read while the device computes.

    The first time a chunk is in flight, :meth:`while_computing` reads the git revision
    and dirty flag (two ``git`` processes), the package versions and the run
    directory's earlier history; a sweep that computes nothing reads them at the end.
    """

    def __init__(self, plan: _Plan):
        self.plan = plan
        self._facts: dict | None = None

    def while_computing(self) -> None:
        if self._facts is None and jax.process_index() == 0:
            self.facts()

    def facts(self) -> dict:
        """Versions, git revision and dirty flag, the earlier calls' history."""
        if self._facts is None:
            origin = self.plan.code.get("origin")
            self._facts = {
                "versions": store.package_versions(),
                "git": store.git_revision(Path(origin).parent if origin else None),
                "history": _previous_history(self.plan.run_path),
            }
        return self._facts


# -- gather and assemble: lane-ordered arrays per group, then one labelled Dataset ----


def _gather(plan: _Plan, g: _Group, chunks: Mapping[int, dict | None]) -> dict[str, np.ndarray]:
    """A group's results in lane order: ``{metric: (lanes, ...)}`` plus ``diverged_step``."""
    parts = []
    for ci, got in chunks.items():
        if got is None:  # written in parts by several processes
            got = _done_chunks(
                plan.run_path,
                g.index,
                plan.chunk_size,
                plan.n_chunks,
                plan.n_lanes,
                g.ids,
                plan.fingerprint,
                only=ci,
                broadcast=False,
            )[ci]
        parts.append(got)
    known = g.out_shape if g.out_shape is not None else (parts[0] if parts else {})  # host mode
    names = list(dict.fromkeys([*known, "diverged_step"]))
    return {k: np.concatenate([got[k] for got in parts]) for k in names}


def _assemble(plan: _Plan, per_group: Sequence[Mapping[str, np.ndarray]]):
    """One Dataset from each group's lane-ordered arrays: dims ``[static axes...,
    dynamic axes..., seed, metric dims...]``, plus ``status``. Vectorised: every array is
    reshaped once, with no work per lane."""
    import xarray as xr

    bound, metric_dims = plan.bound, plan.metric_dims
    groups = [g.values for g in plan.groups]
    S = bound.seeds
    dyn_dims = list(bound.dynamic_axes)
    dyn_shape = bound.dynamic_shape
    base_coords: dict[str, Any] = {"seed": np.arange(S)}
    for n, ax in bound.dynamic_axes.items():
        if ax.kind == "zip":
            vals = ax.resolve()
            base_coords[n] = np.arange(len(vals))
            for j, (m, _) in enumerate(ax.members):
                base_coords[m] = (n, np.asarray([v[j] for v in vals]))
        else:
            base_coords[n] = np.asarray(ax.resolve())
    datasets = []
    for g, arrays in zip(plan.groups, per_group):
        mcoords = g.coords
        data_vars = {}
        for name, arr in arrays.items():
            if name.startswith("__"):
                continue
            own = arr.shape[1:]
            if name == "diverged_step":
                dims_own: tuple[str, ...] = ()
            else:
                dims_own = tuple(metric_dims.get(name, ()))
                if len(dims_own) != len(own):
                    if name in metric_dims:
                        raise ValueError(f"metric {name!r} has shape {own} but metric_dims names {dims_own}")
                    dims_own = tuple(f"{name}_dim{i}" for i in range(len(own)))
            full = arr.reshape(*dyn_shape, S, *own)
            data_vars[name] = ([*dyn_dims, "seed", *dims_own], full)
        div = data_vars["diverged_step"][1]
        data_vars["status"] = (
            data_vars["diverged_step"][0],
            np.where(div >= 0, STATUS_DIVERGED, STATUS_OK).astype(np.int8),
        )
        ds = xr.Dataset(data_vars, coords=base_coords)
        used = {d for v in ds.data_vars.values() for d in v.dims}
        for k, v in mcoords.items():
            if k in used:
                ds = ds.assign_coords({k: np.asarray(v)})
        for d in used:  # index every metric dim, so groups of other sizes can align
            if d not in ds.coords:
                ds = ds.assign_coords({d: np.arange(ds.sizes[d])})
        datasets.append(ds)
    if not bound.static_axes:
        out = datasets[0]
    else:
        # Nest datasets by static axis, outer-join along metric coords, then concat.
        shape = [len(a) for a in bound.static_axes.values()]
        static_names = list(bound.static_axes)

        def expand(ds, gvals, idx):
            for (n, ax), i in zip(bound.static_axes.items(), idx):
                if ax.kind == "zip":
                    ds = ds.expand_dims({n: [i]})
                    for j, (m, _) in enumerate(ax.members):
                        ds = ds.assign_coords({m: (n, [ax.resolve()[i][j]])})
                else:
                    v = gvals[n]
                    ds = ds.expand_dims({n: [str(v) if isinstance(v, tuple) else v]})
            return ds

        flat = [expand(ds, g, idx) for ds, g, idx in zip(datasets, groups, bound.static_indices())]

        def build(level: int, prefix: tuple[int, ...]):
            if level == len(shape):
                return lookup[prefix]
            return [build(level + 1, prefix + (i,)) for i in range(shape[level])]

        lookup = dict(zip(bound.static_indices(), flat))
        out = xr.combine_nested(
            build(0, ()),
            concat_dim=static_names,
            join="outer",
            combine_attrs="drop_conflicts",
            fill_value=np.nan,
        )
        # status/diverged_step filled by the outer join stay well-typed.
        if "status" in out:
            out["status"] = out["status"].fillna(STATUS_OK).astype(np.int8)
            out["diverged_step"] = out["diverged_step"].fillna(-1).astype(np.int32)
        order = static_names + dyn_dims + ["seed"]
        out = out.transpose(*order, ...)
    return _with_fixed_coords(out, plan)


def _scalar(v: Any) -> Any:
    """A value a scalar coordinate holds (a categorical as its label), or ``None``."""
    if isinstance(v, Categorical):
        return v.default
    if isinstance(v, tuple):  # as a static axis over a tuple-valued field labels it
        return str(v)
    if isinstance(v, (bool, int, float, str, np.generic)):
        return v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v.item()
    return None


def _with_fixed_coords(ds, plan: _Plan):
    """Every parameter and spec field that no axis sweeps, as a scalar coordinate.

    So results have one shape whatever the preset: ``ds["lr"]`` is the learning rate of
    every cell, a 1-D coordinate where an axis sweeps it and a scalar one where the
    preset leaves it at its default. A name already used by a dimension, a coordinate
    or a metric keeps that meaning; a field whose value is not a scalar (an array, a
    nested object, ``None``) is left to the spec.
    """
    taken = set(ds.dims) | set(ds.coords) | set(ds.data_vars)
    fixed: dict[str, Any] = {}
    for k, v in plan.params.items():
        if k not in taken:
            fixed[k] = v
    if dataclasses.is_dataclass(plan.spec):
        for f in dataclasses.fields(plan.spec):
            if f.name not in taken and f.name not in fixed:
                fixed[f.name] = getattr(plan.spec, f.name)
    coords = {k: c for k, v in fixed.items() if (c := _scalar(v)) is not None}
    return ds.assign_coords(coords) if coords else ds


# -- record: results.nc and manifest.json ---------------------------------------------


def _record(plan: _Plan, ds, tally: _Tally, host: _HostWork, t_start: float, meta) -> dict:
    """The manifest of this call; with a run directory, ``results.nc`` and ``manifest.json``
    written (atomically, results first)."""
    facts = host.facts()
    timings = tally.timings
    status_counts = {
        "ok": int((ds["status"] == STATUS_OK).sum()),
        "diverged": int((ds["status"] == STATUS_DIVERGED).sum()),
    }
    devices = describe_devices(plan.devices)
    manifest = {
        "label": plan.label,
        "space": plan.space.describe(),
        "spec": store.to_jsonable(plan.spec),
        "params": store.to_jsonable(plan.params),
        "static_groups": store.to_jsonable([g.values for g in plan.groups]),
        "lanes": plan.n_lanes * len(plan.groups),
        "lanes_per_group": plan.n_lanes,
        "chunk_size": plan.chunk_size,
        "chunks_run": tally.chunks_run,
        "chunks_resumed": tally.chunks_resumed,
        "compiles": tally.compiles,
        "mode": "jit" if plan.jit else "host",
        "status_counts": status_counts,
        "devices": devices,
        "versions": facts["versions"],
        "fingerprint": plan.fingerprint,
        "code": plan.code,
        "git": facts["git"],
        "timings": timings,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **dict(meta or {}),
    }
    history = list(facts["history"])
    history.append(
        {k: manifest[k] for k in _HISTORY_KEYS}
        | {"devices": {k: devices.get(k) for k in ("count", "platform", "kinds", "process_count")}}
    )
    manifest["history"] = history[-_HISTORY_MAX:]
    timings["total_s"] = time.perf_counter() - t_start
    if plan.run_path is not None:
        t1 = time.perf_counter()
        store.write_dataset(plan.run_path / "results.nc", ds)
        timings["results_write_s"] = time.perf_counter() - t1
        timings["total_s"] = time.perf_counter() - t_start
        store.atomic_write_json(plan.run_path / "manifest.json", manifest)
    return manifest


def _summary(plan: _Plan, manifest: dict) -> None:
    t = manifest["timings"]
    rate = manifest["lanes"] / max(t["total_s"], 1e-9)
    where = f" -> {plan.run_path}" if plan.run_path else ""
    print(
        f"{plan.label}: {manifest['lanes']} lanes in {len(plan.groups)} static group(s), "
        f"{manifest['chunks_run'] + manifest['chunks_resumed']} chunk(s) "
        f"({manifest['chunks_resumed']} resumed), {manifest['compiles']} compile(s), "
        f"{t['total_s']:.2f} s ({rate:,.0f} lanes/s); "
        f"{manifest['status_counts']['diverged']} diverged{where}",
        file=sys.stderr,
    )


# -- helpers ------------------------------------------------------------------------


def _barrier(name: str) -> None:
    from jax.experimental import multihost_utils

    multihost_utils.sync_global_devices(name)


def _global(host: Mapping[str, np.ndarray] | np.ndarray, sharding) -> Any:
    """A global array from a host array every process holds in full (lanes sharded)."""
    if isinstance(host, Mapping):
        return {k: _global(v, sharding) for k, v in host.items()}
    if jax.process_count() == 1:
        return jax.device_put(host, sharding)
    return jax.make_array_from_callback(host.shape, sharding, lambda idx: host[idx])


def _local_lanes(out: Mapping[str, jax.Array], lo: int, hi: int) -> tuple[np.ndarray, dict]:
    """This process's lanes of a chunk's outputs: (lane indices, arrays), padding dropped."""
    first = next(iter(out.values()))
    starts = sorted(
        {(sh.index[0].start or 0, sh.index[0].stop or first.shape[0]) for sh in first.addressable_shards}
    )
    pos = np.concatenate([np.arange(a, b) for a, b in starts])
    keep = lo + pos < hi
    arrays = {}
    for k, v in out.items():
        by_start = {(sh.index[0].start or 0): np.asarray(sh.data) for sh in v.addressable_shards}
        arrays[k] = np.concatenate([by_start[a] for a, _ in starts])[keep]
    return (lo + pos[keep]).astype(np.int64), arrays


def _code_record(run, fingerprint) -> dict:
    """The manifest's ``code`` entry: computed from ``run``, or the one given."""
    if fingerprint is None:  # the run's code, and the engine's own (keys, chunks, assembly)
        return code_provenance(run, sweep)
    if isinstance(fingerprint, str):
        if not fingerprint:
            raise ValueError("fingerprint must be a non-empty string")
        return {"fingerprint": fingerprint, "origin": None}
    if isinstance(fingerprint, Mapping) and isinstance(fingerprint.get("fingerprint"), str):
        return {"origin": None, **dict(fingerprint)}
    raise TypeError(f"fingerprint must be a string or a code_provenance record, got {fingerprint!r}")


def _agree_on_code(fp: str) -> None:
    """Every process runs the same code (same fingerprint), or every process raises."""
    from jax.experimental import multihost_utils

    mine = np.frombuffer(hashlib.blake2b(fp.encode(), digest_size=16).digest(), np.uint8)
    every = np.asarray(multihost_utils.process_allgather(mine)).reshape(-1, mine.size)
    if not (every == mine).all():
        raise RuntimeError(
            "the processes of this sweep run different code (their code fingerprints "
            "differ): check out the same revision on every host"
        )


def _valid_part(part: dict | None, keys: np.ndarray, code: str) -> dict | None:
    """A chunk part of this sweep's code whose lanes carry the ids this sweep gives them, else ``None``.

    The ids (config hashes) cover every config value, paired ones too, so a chunk of other
    values is never served even where the lanes' PRNG keys agree; ``code`` is the
    fingerprint of the code that must have written it.
    """
    if part is None or "__lanes" not in part or "__keys" not in part or "__code" not in part:
        return None
    if part["__code"].shape != () or str(part["__code"]) != code:
        return None
    lanes = part["__lanes"]
    if lanes.size and (lanes.max() >= len(keys) or not np.array_equal(part["__keys"], keys[lanes])):
        return None
    return part


def _done_chunks(run_path, gi, chunk_size, n_chunks, n_lanes, keys, code, only=None, broadcast=True):
    """Finished chunks of a group on disk: ``{chunk index: lane-ordered arrays}``.

    A chunk is finished when its part files (one per process that held lanes of it, from
    any earlier process count) together cover its lanes with this sweep's keys and were
    written by this sweep's code (fingerprint ``code``); parts of other code are ignored
    and overwritten when their chunk is recomputed. With
    several processes, process 0 decides and tells the others, so every process runs
    the same chunks in step.
    """
    done: dict[int, dict] = {}
    if run_path is not None and (jax.process_index() == 0 or not broadcast):
        chunk_dir = Path(run_path) / "chunks"
        for ci in [only] if only is not None else range(n_chunks):
            lo, hi = ci * chunk_size, min((ci + 1) * chunk_size, n_lanes)
            parts = [
                _valid_part(store.load_chunk(p), keys, code)
                for p in sorted(chunk_dir.glob(f"{store.chunk_stem(gi, chunk_size, ci)}_p*.npz"))
            ]
            parts = [p for p in parts if p is not None]
            if not parts:
                continue
            lanes = np.concatenate([p["__lanes"] for p in parts])
            order = np.argsort(lanes, kind="stable")
            lanes, first = np.unique(lanes[order], return_index=True)
            if not np.array_equal(lanes, np.arange(lo, hi)):
                continue
            pick = order[first]
            done[ci] = {
                k: np.concatenate([p[k] for p in parts])[pick] for k in parts[0] if not k.startswith("__")
            }
    if broadcast and jax.process_count() > 1:
        from jax.experimental import multihost_utils

        mask = np.zeros(n_chunks, np.int32)
        mask[list(done)] = 1
        mask = np.asarray(multihost_utils.broadcast_one_to_all(mask))
        done = {int(ci): (done.get(int(ci)) or {}) for ci in np.flatnonzero(mask)}
    return done
