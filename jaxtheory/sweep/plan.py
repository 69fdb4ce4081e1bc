"""Plan a preset before paying for a device: lanes, chunks, compiled cost and memory, and a projection.

:func:`plan_experiment` decides what a sweep decides before it runs (lanes, static groups,
chunk size, by the engine's rules but without its work per lane: the engine hashes every
lane's key, seconds per million lanes) and, for one chunk of every static group,
lowers and compiles ``jit(vmap(run))`` on the current backend without running it. It
reports, per static group:

* lanes, the chunk size and the number of chunks (the chunk the preset carries, else the
  engine's default for the named device: :func:`~jaxtheory.sweep.engine.default_chunk_size`
  with that device's memory limit);
* XLA's cost analysis of the compiled chunk (FLOPs, bytes accessed), *as XLA reports it*:
  XLA counts the body of every loop once, so a scan of 10⁴ steps is charged for one;
* operation counts of the same program with every loop multiplied by its trip count
  (:mod:`jaxtheory.sweep._jaxpr_cost`): the projection's FLOPs, by kind (matrix or
  vector) and dtype; its bytes are XLA's bytes accessed scaled by how much the loops
  repeat (the ratio of the loop-multiplied to the once-counted unfused bytes of the
  jaxpr); without compiling, the unfused bytes themselves (an upper estimate);
* XLA's memory analysis (arguments, outputs, temporaries) of the chunk, the memory per
  lane it implies, and the largest chunk that fits the device; without compiling, a
  live-value estimate from the jaxpr;
* a **roofline projection** of the time on the named device: per chunk
  ``max(matrix FLOPs / matrix peak + vector FLOPs / vector peak, bytes / bandwidth)``,
  times the chunks. It ignores kernel launch latency, so the report also gives the loop
  iterations a chunk runs one after another: a device spends a few microseconds per
  iteration whatever its size, a floor under short, narrow programs. A projection, not a
  measurement: ``measure=True`` times one chunk on this machine and prints it against
  the projection for this machine;
* the stored size of ``results.nc`` (metric shapes × dtype × lanes, plus ``status`` and
  ``diverged_step``) and the host memory assembling it needs (about three times that:
  the stored chunks, each group's concatenation, the Dataset combined across static
  groups; twice without static axes), plus the lane tables.

A host-mode experiment (``Experiment(jit=False)``) has no XLA program: its plan gives
lanes, chunks and storage (its metric shapes from one lane of the first group) and says
the cost analysis does not apply.

Device table (:data:`DEVICES`): vendors' published peak rates and memory. NVIDIA's
datasheets give tensor-core rates "with sparsity"; the dense rates used here are half
of those. A float32 matrix product is charged at the TF32 tensor-core rate on NVIDIA
GPUs (XLA's default precision for float32 dots there) and at the bfloat16 rate on TPUs
(one bfloat16 pass, the default). TPUs publish no vector-unit or float64 rate: vector
FLOPs are charged at the matrix rate there, which makes a TPU projection optimistic.

* ``h100``: NVIDIA H100 SXM5 80 GB: FP64 34, FP64 tensor 67, FP32 67, TF32 tensor 494.5,
  BF16 tensor 989.5 TFLOP/s (dense); 80 GB HBM3, 3.35 TB/s. Source: "NVIDIA H100 Tensor
  Core GPU" datasheet, https://www.nvidia.com/en-us/data-center/h100/
* ``h200``: NVIDIA H200 SXM 141 GB: the H100 SXM's compute rates; 141 GB HBM3e,
  4.8 TB/s. Source: "NVIDIA H200 Tensor Core GPU" datasheet,
  https://www.nvidia.com/en-us/data-center/h200/
* ``a100``: NVIDIA A100 80 GB SXM4: FP64 9.7, FP64 tensor 19.5, FP32 19.5, TF32 tensor 156,
  BF16 tensor 312 TFLOP/s (dense); 80 GB HBM2e, 2,039 GB/s. Source: "NVIDIA A100 Tensor
  Core GPU" datasheet,
  https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf
* ``v5e``: Google Cloud TPU v5e: 197 TFLOP/s bf16 per chip; 16 GB HBM2, 819 GB/s. Source:
  Cloud TPU documentation, "TPU v5e", https://cloud.google.com/tpu/docs/v5e
* ``v6e``: Google Cloud TPU v6e (Trillium): 918 TFLOP/s bf16 per chip; 32 GB HBM,
  1,638 GB/s. Source: Cloud TPU documentation, "TPU v6e",
  https://cloud.google.com/tpu/docs/v6e

The memory a program may use is the fraction JAX gives it by default: 75 % of a GPU's
memory (JAX preallocates that much; ``XLA_PYTHON_CLIENT_MEM_FRACTION`` changes it), and
for a TPU an assumed 95 % of its HBM. ``cpu`` is this machine: its rates are measured
when first asked for (a float32 matrix product, a long fused elementwise chain and a
large copy, each the best of three), a rough calibration for ``measure=True``.

Example:
    >>> from jaxtheory.registry import get_experiment
    >>> rep = plan_experiment(get_experiment("noisy-quadratic"), "smoke", compile=False)
    >>> rep.lanes == sum(g.lanes for g in rep.groups), rep.groups[0].chunks * rep.groups[0].chunk >= rep.groups[0].lanes
    (True, True)
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import math
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxtheory.sweep import engine, store
from jaxtheory.sweep._jaxpr_cost import JaxprCost, jaxpr_cost

__all__ = [
    "DeviceSpec",
    "DEVICES",
    "GroupPlan",
    "PlanReport",
    "plan_experiment",
    "device_spec",
    "plans_path",
    "read_plans",
    "record_plan",
    "planned_note",
    "preset_key",
]

GB = 1e9
T = 1e12


@dataclasses.dataclass(frozen=True)
class DeviceSpec:
    """A device kind: its peak rates, bandwidth and memory, and where they come from.

    Attributes:
        key: short name (``"h200"``).
        name: the product.
        vector: peak FLOP/s of elementwise arithmetic by dtype (``"float32"``, ...).
        matmul: peak FLOP/s of matrix products by input dtype.
        bandwidth: memory bandwidth, bytes/s.
        memory: memory, bytes.
        usable: the fraction of ``memory`` a JAX program gets by default.
        source: the document the numbers are from, with its address.
        note: what the numbers leave out.
    """

    key: str
    name: str
    vector: Mapping[str, float]
    matmul: Mapping[str, float]
    bandwidth: float
    memory: float
    usable: float
    source: str
    note: str = ""

    @property
    def usable_bytes(self) -> float:
        return self.memory * self.usable

    def rate(self, kind: str, dtype: str) -> float:
        """Peak FLOP/s for ``kind`` (``"matmul"`` or ``"vector"``) in ``dtype``."""
        table = self.matmul if kind == "matmul" else self.vector
        if dtype in table:
            return table[dtype]
        if dtype in ("bfloat16", "float16") and "float32" in table:
            return table["float32"]
        if dtype == "int":
            return table.get("int", table.get("float32", max(table.values())))
        return table.get("float32", max(table.values()))

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "name": self.name,
            "vector_flops": dict(self.vector),
            "matmul_flops": dict(self.matmul),
            "bandwidth": self.bandwidth,
            "memory": self.memory,
            "usable_fraction": self.usable,
            "source": self.source,
            "note": self.note,
        }


_HOPPER_VECTOR = {"float64": 34 * T, "float32": 67 * T}
_HOPPER_MATMUL = {"float64": 67 * T, "float32": 494.5 * T, "bfloat16": 989.5 * T, "float16": 989.5 * T}

#: Device kinds :func:`plan_experiment` projects onto (sources in the module docstring).
DEVICES: dict[str, DeviceSpec] = {
    "h100": DeviceSpec(
        "h100",
        "NVIDIA H100 SXM5 80 GB",
        _HOPPER_VECTOR,
        _HOPPER_MATMUL,
        3.35e12,
        80 * GB,
        0.75,
        'NVIDIA, "NVIDIA H100 Tensor Core GPU" datasheet, https://www.nvidia.com/en-us/data-center/h100/',
        "dense tensor-core rates (the datasheet's sparse rates halved)",
    ),
    "h200": DeviceSpec(
        "h200",
        "NVIDIA H200 SXM 141 GB",
        _HOPPER_VECTOR,
        _HOPPER_MATMUL,
        4.8e12,
        141 * GB,
        0.75,
        'NVIDIA, "NVIDIA H200 Tensor Core GPU" datasheet, https://www.nvidia.com/en-us/data-center/h200/',
        "dense tensor-core rates (the datasheet's sparse rates halved)",
    ),
    "a100": DeviceSpec(
        "a100",
        "NVIDIA A100 80 GB SXM4",
        {"float64": 9.7 * T, "float32": 19.5 * T},
        {"float64": 19.5 * T, "float32": 156 * T, "bfloat16": 312 * T, "float16": 312 * T},
        2.039e12,
        80 * GB,
        0.75,
        'NVIDIA, "NVIDIA A100 Tensor Core GPU" datasheet, https://www.nvidia.com/content/dam/en-zz/'
        "Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf",
        "dense tensor-core rates (the datasheet's sparse rates halved)",
    ),
    "v5e": DeviceSpec(
        "v5e",
        "Google Cloud TPU v5e (one chip)",
        {"float32": 197 * T},
        {"float32": 197 * T, "bfloat16": 197 * T},
        819e9,
        16 * GB,
        0.95,
        'Google Cloud, Cloud TPU documentation "TPU v5e", https://cloud.google.com/tpu/docs/v5e',
        "no vector-unit or float64 rate is published: every FLOP is charged at the bf16 matrix rate (optimistic)",
    ),
    "v6e": DeviceSpec(
        "v6e",
        "Google Cloud TPU v6e Trillium (one chip)",
        {"float32": 918 * T},
        {"float32": 918 * T, "bfloat16": 918 * T},
        1638e9,
        32 * GB,
        0.95,
        'Google Cloud, Cloud TPU documentation "TPU v6e", https://cloud.google.com/tpu/docs/v6e',
        "no vector-unit or float64 rate is published: every FLOP is charged at the bf16 matrix rate (optimistic)",
    ),
}


def _best_of(fn, *args, n: int = 3) -> float:
    jax.block_until_ready(fn(*args))
    best = math.inf
    for _ in range(n):
        t0 = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - t0)
    return best


@functools.cache
def _cpu_spec() -> DeviceSpec:
    """This machine's rates, measured: a rough calibration, not a datasheet."""
    n = 1024
    a = jnp.ones((n, n), jnp.float32)
    mm = 2.0 * n**3 / _best_of(jax.jit(lambda x: x @ x), a)

    def chain(x):
        for _ in range(64):
            x = x * 1.0001 + 0.5
        return x

    v = jnp.ones(1 << 20, jnp.float32)
    vec = 128.0 * v.size / _best_of(jax.jit(chain), v)
    big = jnp.ones(1 << 25, jnp.float32)  # 128 MiB read, 128 MiB written
    bw = 2.0 * big.nbytes / _best_of(jax.jit(lambda x: x + 1.0), big)
    try:
        mem = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        mem = 8 * GB
    return DeviceSpec(
        "cpu",
        f"this machine's CPU ({jax.devices('cpu')[0].device_kind})",
        {"float32": vec, "float64": vec / 2},
        {"float32": mm, "float64": mm / 2},
        bw,
        mem,
        0.5,
        "measured here: a 1024² float32 matrix product, a 128-FLOP fused elementwise chain, "
        "a 128 MiB copy (best of three each)",
        "a rough calibration on a machine other processes share",
    )


def device_spec(kind: str | DeviceSpec) -> DeviceSpec:
    """The :class:`DeviceSpec` named ``kind`` (a key of :data:`DEVICES`, or ``"cpu"``)."""
    if isinstance(kind, DeviceSpec):
        return kind
    k = str(kind).lower().replace("-", "").replace(" ", "")
    if k == "cpu":
        return _cpu_spec()
    if k not in DEVICES:
        raise KeyError(f"unknown device {kind!r}; known: {', '.join([*DEVICES, 'cpu'])}")
    return DEVICES[k]


class _LimitDevice:
    """Stands for a device of the target kind when the engine sizes its default chunk."""

    def __init__(self, spec: DeviceSpec):
        self.spec = spec

    def memory_stats(self):
        return {"bytes_limit": int(self.spec.usable_bytes)}


@dataclasses.dataclass
class GroupPlan:
    """The plan of one static group (see :func:`plan_experiment`).

    ``xla`` holds XLA's cost analysis as reported (loops counted once), ``memory`` XLA's
    memory analysis of one chunk, ``ops`` the loop-multiplied counts
    (:class:`~jaxtheory.sweep._jaxpr_cost.JaxprCost`), ``projection`` the roofline
    projection on the report's device; all ``None`` in host mode.
    """

    index: int
    values: dict[str, Any]
    lanes: int
    chunk: int
    chunks: int
    out_bytes_per_lane: int | None
    compiled: bool = False
    compile_s: float | None = None
    xla: dict[str, float] | None = None
    memory: dict[str, float] | None = None
    ops: dict[str, Any] | None = None
    memory_per_chunk: float | None = None
    memory_source: str | None = None
    max_chunk: int | None = None
    projection: dict[str, Any] | None = None
    measured: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return store.to_jsonable(dataclasses.asdict(self))


@dataclasses.dataclass
class PlanReport:
    """What :func:`plan_experiment` returns: a plan of every static group and the totals.

    ``projected_s`` is a roofline projection on ``device`` (``None`` in host mode), never a
    measurement; ``measured`` holds what ``measure=True`` timed on this machine.
    """

    experiment: str
    preset: str
    device: DeviceSpec
    mode: str
    backend: str
    lanes: int
    lanes_per_group: int
    chunk: int
    groups: list[GroupPlan]
    results_bytes: float | None
    host_bytes: float | None
    key: str
    notes: list[str] = dataclasses.field(default_factory=list)
    measured: dict[str, Any] | None = None

    @property
    def chunks(self) -> int:
        """Chunks per static group."""
        return int(math.ceil(self.lanes_per_group / self.chunk))

    @property
    def memory_per_chunk(self) -> float | None:
        """The largest memory one chunk needs, over the static groups (bytes)."""
        vals = [g.memory_per_chunk for g in self.groups if g.memory_per_chunk is not None]
        return max(vals) if vals else None

    @property
    def projected_s(self) -> float | None:
        """The roofline projection of the whole preset on ``device`` (seconds)."""
        if self.mode != "jit" or any(g.projection is None for g in self.groups):
            return None
        return float(sum(g.projection["total_s"] for g in self.groups))

    @property
    def fits(self) -> bool | None:
        """Whether every group's chunk fits the device's usable memory."""
        m = self.memory_per_chunk
        return None if m is None else bool(m <= self.device.usable_bytes)

    def planned_line(self) -> str:
        """One line for a preset's description: planned memory and projected time."""
        return _planned_text(
            self.mode, self.memory_per_chunk, self.chunk, self.projected_s, self.device.name, self.lanes
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict of the whole report."""
        return store.to_jsonable(
            {
                "experiment": self.experiment,
                "preset": self.preset,
                "device": self.device.to_json(),
                "mode": self.mode,
                "backend": self.backend,
                "jax": jax.__version__,
                "lanes": self.lanes,
                "lanes_per_group": self.lanes_per_group,
                "static_groups": len(self.groups),
                "chunk": self.chunk,
                "chunks_per_group": self.chunks,
                "memory_per_chunk": self.memory_per_chunk,
                "fits": self.fits,
                "projected_s": self.projected_s,
                "projection_label": "roofline projection, not a measurement",
                "results_bytes": self.results_bytes,
                "host_bytes": self.host_bytes,
                "key": self.key,
                "planned": self.planned_line(),
                "notes": self.notes,
                "measured": self.measured,
                "groups": [g.to_json() for g in self.groups],
            }
        )

    def table(self) -> str:
        """The report as a plain-text table."""
        return render_table(self)


# -- sizes and formatting ------------------------------------------------------------


def _fmt_bytes(b: float | None) -> str:
    if b is None:
        return "?"
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def _fmt_s(s: float | None) -> str:
    if s is None:
        return "?"
    if s < 1e-3:
        return f"{s * 1e6:.3g} µs"
    if s < 1:
        return f"{s * 1e3:.3g} ms"
    if s < 120:
        return f"{s:.3g} s"
    if s < 7200:
        return f"{s / 60:.3g} min"
    return f"{s / 3600:.3g} h"


def _fmt_n(x: float | None) -> str:
    if x is None:
        return "?"
    if x < 1e4:
        return f"{x:.4g}"
    e = int(math.floor(math.log10(x)))
    return f"{x / 10**e:.3g}e{e}"


def _planned_text(mode, mem, chunk, proj_s, device_name, lanes) -> str:
    if mode != "jit":
        return (
            f"planned: {lanes:,} lanes in chunks of {chunk:,}, run on the host (host mode: "
            "no compiled program to project)"
        )
    return (
        f"planned: {_fmt_bytes(mem)} per chunk of {chunk:,} lanes; projected {_fmt_s(proj_s)} "
        f"on one {device_name.split(' 1')[0].split(' 8')[0]} (roofline projection)"
    )


def _rounded(x: Any) -> Any:
    """Floats to 12 significant digits, through lists and dicts: a log-spaced grid's last
    bits differ between CPUs (libm's ``exp``/``log``), and the key must not."""
    if isinstance(x, float):
        return float(f"{x:.12g}")
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    return x


def preset_key(exp, preset: str) -> str:
    """A hash of what fixes a preset's lanes and programs: spec, params, space, chunk.

    Floats enter it at 12 significant digits, so the same preset has the same key on
    every CPU."""
    spec, params, space = exp.resolve(preset)
    text = json.dumps(
        _rounded(
            store.to_jsonable(
                {
                    "spec": spec,
                    "params": dict(params),
                    "space": space.describe(),
                    "chunk": exp.preset(preset).chunk,
                }
            )
        ),
        sort_keys=True,
    )
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


# -- the plan --------------------------------------------------------------------------


@dataclasses.dataclass
class _Group:
    index: int
    values: dict[str, Any]
    spec: Any
    out_shape: dict[str, Any] | None = None  # per lane
    lane_cost: JaxprCost | None = None  # one lane, loops multiplied


@dataclasses.dataclass
class _Skeleton:
    """What the engine's planning decides, without a value per lane: the engine hashes
    every lane's key and builds a dict per config before it compiles (seconds per million
    lanes), which a plan does not need."""

    exp: Any
    spec: Any
    params: dict[str, Any]
    bound: Any
    groups: list[_Group]
    n_lanes: int  # per static group
    dtypes: dict[str, Any]  # each parameter's dtype in a compiled lane

    def first_lanes(self, g: _Group, m: int, host: bool = False) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The parameters and key words of the group's first ``m`` lanes, as the engine
        derives them (configs in row-major order, ``seeds`` lanes each)."""
        bound, seeds = self.bound, self.bound.seeds
        m = max(1, min(m, self.n_lanes))
        k = int(math.ceil(m / seeds))
        idx = np.unravel_index(np.arange(k), bound.dynamic_shape) if bound.dynamic_axes else ()
        table: dict[str, np.ndarray] = {}
        for j, (name, ax) in enumerate(bound.dynamic_axes.items()):
            res = ax.resolve()
            pick = [res[i] for i in idx[j]]
            if ax.kind == "zip":
                for c, (mm, _) in enumerate(ax.members):
                    table[mm] = np.asarray([t[c] for t in pick])
            else:
                table[name] = np.asarray(pick)
        lane_params = engine._lane_params(self.params, table, seeds, k * seeds, host=host)
        rows = [{n: table[n][i] for n in table} for i in range(k)]
        configs = [{**g.values, **r} for r in rows]
        space = bound.space
        if space.paired:
            configs = [space.key_config(c) for c in configs]
        keys = engine.lane_key_table(configs, seeds, space.base_seed)
        return {n: v[:m] for n, v in lane_params.items()}, keys[:m]


def _skeleton(exp, spec, params, space) -> _Skeleton:
    bound = space.bind(spec, params)  # every error of a bad space surfaces here, as in a sweep
    values: dict[str, np.ndarray] = {}
    for name, ax in bound.dynamic_axes.items():
        res = ax.resolve()
        if ax.kind == "zip":
            for c, (mm, _) in enumerate(ax.members):
                values[mm] = np.asarray([t[c] for t in res])
        else:
            values[name] = np.asarray(res)
    dtypes = {k: v.dtype for k, v in engine._lane_params(params, values, 1, 1).items()}
    groups = []
    for gi, gvals in enumerate(bound.static_groups()):
        spec_g = dataclasses.replace(spec, **gvals) if gvals else spec
        groups.append(_Group(gi, dict(gvals), spec_g))
    return _Skeleton(exp, spec, dict(params), bound, groups, bound.num_configs * bound.seeds, dtypes)


def _results_size(sk: _Skeleton, groups_out: Sequence[Mapping[str, Any]]) -> float:
    """Bytes of ``results.nc``'s data: each metric over every lane (an outer join across
    static groups of other metric shapes fills the gaps, and NaN turns integers to float64)."""
    total_lanes = sk.n_lanes * len(groups_out)
    names = list(dict.fromkeys(k for o in groups_out for k in o))
    size = 0.0
    for k in names:
        shapes = [tuple(o[k].shape) for o in groups_out if k in o]
        dtypes = [np.dtype(o[k].dtype) for o in groups_out if k in o]
        item = max(d.itemsize for d in dtypes)
        if len(set(shapes)) > 1 or len(shapes) < len(groups_out):  # padded by the outer join
            shape = tuple(max(s[i] for s in shapes) for i in range(len(shapes[0])))
            item = 8 if any(d.kind in "iub" for d in dtypes) else item
        else:
            shape = shapes[0]
        size += total_lanes * float(np.prod(shape, dtype=np.float64)) * item
    return size + total_lanes * (4 + 1)  # diverged_step (int32) and status (int8)


def _host_size(sk: _Skeleton, results: float) -> float:
    """Host memory assembling results needs: chunks held, per-group concatenation, the
    combined Dataset (without static axes, no combination), plus the lane tables."""
    factor = 3.0 if sk.bound.static_axes else 2.0
    lanes = sk.n_lanes
    tables = lanes * (8 * len(sk.dtypes)) + lanes * len(sk.groups) * 16  # params; ids and keys
    return factor * results + tables


def _xla_cost(compiled) -> dict[str, float] | None:
    try:
        ca = compiled.cost_analysis()
    except Exception:  # noqa: BLE001 - a backend without cost analysis
        return None
    if isinstance(ca, (list, tuple)):
        ca = ca[0] if ca else None
    if not ca:
        return None
    return {
        "flops": float(ca.get("flops", 0.0)),
        "bytes_accessed": float(ca.get("bytes accessed", 0.0)),
        "transcendentals": float(ca.get("transcendentals", 0.0)),
    }


def _xla_memory(compiled) -> dict[str, float] | None:
    try:
        ma = compiled.memory_analysis()
    except Exception:  # noqa: BLE001 - a backend without memory analysis
        return None
    if isinstance(ma, (list, tuple)):
        ma = ma[0] if ma else None
    if ma is None:
        return None

    def get(k):
        return float(getattr(ma, k, 0) or 0)

    out = {
        "arguments": get("argument_size_in_bytes"),
        "outputs": get("output_size_in_bytes"),
        "temporaries": get("temp_size_in_bytes"),
        "aliased": get("alias_size_in_bytes"),
        "code": get("generated_code_size_in_bytes"),
    }
    out["total"] = out["arguments"] + out["outputs"] + out["temporaries"] - out["aliased"]
    return out


def _projection(ops: JaxprCost, xla: dict | None, dev: DeviceSpec, chunks: int) -> dict[str, Any]:
    """Roofline time of one chunk and of every chunk of a group."""
    compute = 0.0
    for key, n in ops.flops.items():
        kind, dt = key.split(":")
        compute += n / dev.rate(kind, dt)
    compute += ops.transcendentals / dev.rate("vector", "float32")
    if xla is not None and xla["bytes_accessed"] > 0 and ops.bytes_once > 0:
        moved = xla["bytes_accessed"] * ops.bytes / ops.bytes_once
        bytes_basis = "XLA bytes accessed × loop repetitions"
    else:
        moved = ops.bytes
        bytes_basis = "unfused bytes of the jaxpr (upper estimate)"
    memory = moved / dev.bandwidth
    chunk_s = max(compute, memory)
    return {
        "device": dev.key,
        "flops": ops.total_flops + ops.transcendentals,
        "bytes": moved,
        "bytes_basis": bytes_basis,
        "compute_s": compute,
        "memory_s": memory,
        "bound": "compute" if compute >= memory else "memory",
        "chunk_s": chunk_s,
        "total_s": chunk_s * chunks,
        "serial_iterations": ops.iterations,
    }


def _lane(run, spec, p, kd):
    """One lane of a compiled sweep, as the engine runs it."""
    return dict(run(spec, p, engine.make_key(kd)))


def _lane_trace(sk: _Skeleton, g: _Group):
    """Trace one lane of group ``g``: its output shapes and its operation counts."""
    one = {k: jax.ShapeDtypeStruct((), dt) for k, dt in sk.dtypes.items()}
    fn = functools.partial(_lane, sk.exp.run, g.spec)
    traced = jax.jit(fn).trace(one, jax.ShapeDtypeStruct((2,), jnp.uint32))
    g.out_shape = dict(traced.out_info)
    g.lane_cost = jaxpr_cost(traced.jaxpr)


def _chunk_trace(sk: _Skeleton, g: _Group, n: int):
    """Trace ``jit(vmap(lane))`` of group ``g`` for a chunk of ``n`` lanes."""
    fn = jax.jit(jax.vmap(functools.partial(_lane, sk.exp.run, g.spec)))
    p = {k: jax.ShapeDtypeStruct((n,), dt) for k, dt in sk.dtypes.items()}
    return fn.trace(p, jax.ShapeDtypeStruct((n, 2), jnp.uint32))


def _measure_group(sk: _Skeleton, g: _Group, chunk: int, cpu: DeviceSpec, budget_s: float) -> dict[str, Any]:
    """Compile and time one chunk here, sized so that its projection on this CPU is about ``budget_s``."""
    per_lane = _projection(g.lane_cost, None, cpu, 1)["chunk_s"]
    m = int(max(1, min(chunk, budget_s / max(per_lane, 1e-12))))
    traced = _chunk_trace(sk, g, m)
    ops = jaxpr_cost(traced.jaxpr)
    t0 = time.perf_counter()
    compiled = traced.lower().compile()
    compile_s = time.perf_counter() - t0
    proj = _projection(ops, _xla_cost(compiled), cpu, 1)
    lane_params, keys = sk.first_lanes(g, m)
    if len(keys) < m:  # fewer lanes than the chunk: padded with the last, as the engine pads
        pad = np.arange(m).clip(max=len(keys) - 1)
        lane_params, keys = {k: v[pad] for k, v in lane_params.items()}, keys[pad]
    p = {k: jnp.asarray(v) for k, v in lane_params.items()}
    kd = jnp.asarray(keys)
    t0 = time.perf_counter()
    jax.block_until_ready(compiled(p, kd))
    run_s = time.perf_counter() - t0
    if run_s < 2.0:  # a short chunk: time it again, without first-call allocation
        t0 = time.perf_counter()
        jax.block_until_ready(compiled(p, kd))
        run_s = min(run_s, time.perf_counter() - t0)
    return {
        "lanes": m,
        "compile_s": compile_s,
        "run_s": run_s,
        "projected_s": proj["chunk_s"],
        "ratio": run_s / proj["chunk_s"] if proj["chunk_s"] > 0 else None,
        "device": cpu.key,
    }


def _host_lane(sk: _Skeleton, g: _Group) -> tuple[dict[str, Any], float]:
    """Host mode: run the group's first lane; its metric shapes and its time."""
    lane_params, keys = sk.first_lanes(g, 1, host=True)
    p = {k: v[0].item() for k, v in lane_params.items()}
    t0 = time.perf_counter()
    got = sk.exp.run(g.spec, p, engine.host_seed(keys[0]))
    dt = time.perf_counter() - t0
    shapes = {k: jax.ShapeDtypeStruct(np.shape(v), np.asarray(v).dtype) for k, v in dict(got).items()}
    return shapes, dt


def plan_experiment(
    exp,
    preset: str = "full",
    *,
    device: str | DeviceSpec = "h200",
    measure: bool = False,
    compile: bool = True,
    chunk: int | None = None,
    groups: Sequence[int] | None = None,
    measure_budget_s: float = 10.0,
) -> PlanReport:
    """Plan ``exp``'s ``preset`` for one ``device`` without running the sweep.

    Args:
        exp: an :class:`~jaxtheory.Experiment`.
        preset: preset name.
        device: a key of :data:`DEVICES` (``"h200"``, ``"h100"``, ``"a100"``, ``"v5e"``,
            ``"v6e"``), ``"cpu"`` (this machine, measured) or a :class:`DeviceSpec`.
        measure: also compile and time one chunk on this machine (sized so that its
            projection on this CPU is about ``measure_budget_s``) and report measured
            against projected; in host mode, time the first lane of each group.
        compile: lower and compile one chunk per group on the current backend for XLA's
            cost and memory analyses. ``False`` traces one lane per group only and
            scales its counts to the chunk: the memory is then a live-value estimate
            from the jaxpr (an upper one) and the bytes its unfused traffic; a quick
            check, seconds where compiling takes minutes.
        chunk: lanes per chunk (default: the preset's, else the engine's default for
            ``device``).
        groups: only these static groups' programs are traced and compiled (default:
            all); the others get no cost, memory or projection.
        measure_budget_s: the projected seconds of the chunk ``measure`` times.

    Returns:
        A :class:`PlanReport`.
    """
    dev = device_spec(device)
    pr = exp.preset(preset)
    spec, params, space = exp.resolve(preset)
    want = chunk if chunk is not None else pr.chunk
    if want is not None and (isinstance(want, bool) or not isinstance(want, int) or want < 1):
        raise ValueError(f"chunk must be a positive integer, got {want!r}")
    sk = _skeleton(exp, spec, params, space)
    n = sk.n_lanes
    chosen = set(range(len(sk.groups)) if groups is None else groups)
    notes: list[str] = []
    outs: list[Mapping[str, Any]] = []
    out: list[GroupPlan] = []
    measured_all: dict[str, Any] | None = None
    if not exp.jit:  # host mode: the engine's default chunk; shapes from one lane
        cs = min(want, n) if want is not None else max(1, int(math.ceil(n / engine._HOST_CHUNKS)))
        chunks = int(math.ceil(n / cs))
        first, _ = _host_lane(sk, sk.groups[0])
        for g in sk.groups:
            gp = GroupPlan(g.index, g.values, n, cs, chunks, None)
            if measure and g.index in chosen:
                _, dt = _host_lane(sk, g)
                gp.measured = {"lanes": 1, "run_s": dt, "projected_lanes_s": dt * n}
            gp.out_bytes_per_lane = int(
                sum(np.prod(s.shape) * np.dtype(s.dtype).itemsize for s in first.values())
            )
            outs.append(first)
            out.append(gp)
        notes.append(
            "host mode: run(spec, params, seed) is Python, called once per lane; there is no "
            "XLA program, so the cost analysis, device memory and the projection do not apply"
        )
        notes.append("metric shapes from the first lane of group 0, taken for every group")
        if measure:
            measured_all = {
                "host_lane_s": {g.index: g.measured["run_s"] for g in out if g.measured},
                "projected_host_s": sum(g.measured["projected_lanes_s"] for g in out if g.measured),
            }
    else:
        quick = not compile and not measure
        for g in sk.groups:  # one lane traced: group 0 for the chunk size, the rest when needed
            if g.index == 0 or (g.index in chosen and (quick or measure)):
                _lane_trace(sk, g)
        g0 = sk.groups[0]
        if want is None:  # the engine's default on the target device (one device)
            per = sum(int(np.prod(s.shape)) * np.dtype(s.dtype).itemsize for s in g0.out_shape.values())
            cs = min(engine.default_chunk_size(per, n, [_LimitDevice(dev)]), n)
        else:
            cs = min(want, n)
        chunks = int(math.ceil(n / cs))
        cpu = _cpu_spec() if measure else None
        for g in sk.groups:
            gp = GroupPlan(g.index, g.values, n, cs, chunks, None)
            if g.index not in chosen:  # left out: not traced
                outs.append(None)
                out.append(gp)
                continue
            xla = mem = None
            if quick:
                ops = g.lane_cost.scaled(cs)
            else:
                traced = _chunk_trace(sk, g, cs)
                ops = jaxpr_cost(traced.jaxpr)
                if g.out_shape is None:  # a lane's shapes: the chunk's without its lane axis
                    g.out_shape = {
                        k: jax.ShapeDtypeStruct(tuple(v.shape[1:]), v.dtype)
                        for k, v in dict(traced.out_info).items()
                    }
                if compile:
                    t0 = time.perf_counter()
                    compiled = traced.lower().compile()
                    gp.compile_s = time.perf_counter() - t0
                    gp.compiled = True
                    xla, mem = _xla_cost(compiled), _xla_memory(compiled)
                    gp.xla, gp.memory = xla, mem
                    del compiled
            outs.append(g.out_shape)
            gp.out_bytes_per_lane = int(
                sum(np.prod(s.shape) * np.dtype(s.dtype).itemsize for s in g.out_shape.values())
            )
            gp.ops = ops.to_json()
            if mem is not None and mem["total"] > 0:
                gp.memory_per_chunk, gp.memory_source = mem["total"], "XLA memory analysis"
            else:
                gp.memory_per_chunk, gp.memory_source = ops.peak_bytes, "live-value estimate (jaxpr)"
            gp.max_chunk = int(dev.usable_bytes // max(gp.memory_per_chunk / cs, 1.0))
            gp.projection = _projection(ops, xla, dev, chunks)
            if measure:
                gp.measured = _measure_group(sk, g, cs, cpu, measure_budget_s)
            out.append(gp)
        used = [g for g in out if g.ops]
        notes += sorted({x for g in used for x in g.ops["notes"]})
        if quick:
            notes.append(
                "not compiled: one lane traced per group and its counts scaled to the chunk; memory "
                "is a live-value estimate (an upper one: values the lanes share are counted per "
                "lane) and bytes are unfused counts"
            )
        elif not compile:
            notes.append("not compiled: memory is a live-value estimate and bytes are unfused (upper) counts")
        if measure:
            ratios = [g.measured["ratio"] for g in used if g.measured and g.measured["ratio"]]
            measured_all = {
                "cpu": cpu.to_json(),
                "ratio_median": float(np.median(ratios)) if ratios else None,
            }
    if len(chosen) < len(sk.groups):
        notes.append(
            f"only groups {sorted(chosen)} were planned; the projection covers them only, and the "
            "size of results.nc is not computed"
        )
    results = _results_size(sk, outs) if all(o is not None for o in outs) else None
    return PlanReport(
        exp.name,
        preset,
        dev,
        "jit" if exp.jit else "host",
        jax.default_backend(),
        n * len(sk.groups),
        n,
        cs,
        out,
        results,
        None if results is None else _host_size(sk, results),
        preset_key(exp, preset),
        notes,
        measured_all,
    )


# -- rendering -------------------------------------------------------------------------


def _gvals(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "(one group)"


def render_table(rep: PlanReport) -> str:
    """A plan as text: the totals, then one row per static group."""
    d = rep.device
    lines = [
        f"plan       {rep.experiment} (preset {rep.preset}), {rep.mode} mode; compiled on {rep.backend}, jax {jax.__version__}",
        f"lanes      {rep.lanes:,} in {len(rep.groups)} static group(s) of {rep.lanes_per_group:,}; "
        f"chunk {rep.chunk:,} lanes, {rep.chunks:,} chunk(s) per group",
        f"results    results.nc about {_fmt_bytes(rep.results_bytes)}; assembling it needs about "
        f"{_fmt_bytes(rep.host_bytes)} of host memory",
    ]
    if rep.mode == "jit":
        mem = rep.memory_per_chunk
        lines.append(
            f"device     {d.name}: {_fmt_bytes(d.memory)} ({_fmt_bytes(d.usable_bytes)} usable), "
            f"{_fmt_bytes(d.bandwidth)}/s, {_fmt_n(d.rate('vector', 'float32'))} FLOP/s vector f32, "
            f"{_fmt_n(d.rate('matmul', 'float32'))} FLOP/s matrix f32"
        )
        lines.append(
            f"memory     {_fmt_bytes(mem)} per chunk at most "
            + ("(fits)" if rep.fits else "(DOES NOT FIT: lower the chunk)")
        )
        lines.append(
            f"PROJECTION {_fmt_s(rep.projected_s)} on one {d.name} "
            "(roofline: max(FLOPs / peak, bytes / bandwidth) per chunk, times chunks; not a measurement)"
        )
        head = (
            f"{'group':<34} {'lanes':>9} {'chunk':>7} {'chunks':>6} {'XLA FLOPs':>10} {'XLA bytes':>10} "
            f"{'FLOPs×loops':>11} {'bytes×loops':>11} {'mem/chunk':>10} {'max chunk':>10} "
            f"{'iters':>8} {'bound':>7} {'projected':>10}"
        )
        lines += ["", head, "-" * len(head)]
        for g in rep.groups:
            x, p = g.xla or {}, g.projection or {}
            lines.append(
                f"{_gvals(g.values)[:34]:<34} {g.lanes:>9,} {g.chunk:>7,} {g.chunks:>6,} "
                f"{_fmt_n(x.get('flops')):>10} {_fmt_bytes(x.get('bytes_accessed')):>10} "
                f"{_fmt_n(p.get('flops')):>11} {_fmt_bytes(p.get('bytes')):>11} "
                f"{_fmt_bytes(g.memory_per_chunk):>10} {_fmt_n(g.max_chunk):>10} "
                f"{_fmt_n(p.get('serial_iterations')):>8} {p.get('bound', '?'):>7} {_fmt_s(p.get('total_s')):>10}"
            )
        lines.append(
            "XLA FLOPs/bytes: XLA's cost analysis of one chunk (each loop body counted once); "
            "×loops: every loop multiplied by its trip count (the projection's basis); "
            "iters: loop iterations run in sequence per chunk; projected: all chunks of the group"
        )
        if any(g.measured for g in rep.groups):
            lines += [
                "",
                "measured on this machine against its projection (roofline with measured CPU rates):",
            ]
            cpu = rep.measured["cpu"] if rep.measured else None
            if cpu:
                lines.append(
                    f"  CPU rates measured: {_fmt_n(cpu['matmul_flops']['float32'])} FLOP/s matrix f32, "
                    f"{_fmt_n(cpu['vector_flops']['float32'])} FLOP/s vector f32, "
                    f"{_fmt_bytes(cpu['bandwidth'])}/s"
                )
            for g in rep.groups:
                if g.measured:
                    m = g.measured
                    lines.append(
                        f"  {_gvals(g.values)[:34]:<34} {m['lanes']:>7,} lanes: measured {_fmt_s(m['run_s'])}, "
                        f"projected {_fmt_s(m['projected_s'])}"
                        + (f" (measured/projected {m['ratio']:.2g})" if m.get("ratio") else "")
                    )
    else:
        lines.append(
            "device     host mode: no XLA program; cost analysis, device memory and projection do not apply"
        )
        for g in rep.groups:
            row = f"  {_gvals(g.values)[:40]:<40} {g.lanes:>9,} lanes, {g.chunks:,} chunk(s) of {g.chunk:,}"
            if g.measured:
                row += (
                    f"; first lane {_fmt_s(g.measured['run_s'])} here "
                    f"(× lanes: {_fmt_s(g.measured['projected_lanes_s'])}, an upper figure: lanes share memoised work)"
                )
            lines.append(row)
    for n in rep.notes:
        lines.append(f"note       {n}")
    return "\n".join(lines)


# -- recorded plans ---------------------------------------------------------------------


def plans_path() -> Path:
    """Where recorded plans live: ``sweeps/_plans.json`` beside the experiments."""
    import sweeps

    return Path(next(iter(sweeps.__path__))) / "_plans.json"


def read_plans(path: str | Path | None = None) -> dict[str, Any]:
    """The recorded plans (``{"experiments": {name: {...}}}``), empty when none are."""
    p = Path(path) if path is not None else plans_path()
    if not p.exists():
        return {"experiments": {}}
    return json.loads(p.read_text())


def _record_entry(rep: PlanReport) -> dict[str, Any]:
    return store.to_jsonable(
        {
            "preset": rep.preset,
            "device": rep.device.key,
            "mode": rep.mode,
            "key": rep.key,
            "lanes": rep.lanes,
            "static_groups": len(rep.groups),
            "chunk": rep.chunk,
            "chunks_per_group": rep.chunks,
            "memory_per_chunk": rep.memory_per_chunk,
            "heaviest_group": max(
                (g for g in rep.groups if g.memory_per_chunk is not None),
                key=lambda g: g.memory_per_chunk,
                default=rep.groups[0],
            ).index,
            "memory_source": sorted({g.memory_source for g in rep.groups if g.memory_source}),
            "fits": rep.fits,
            "projected_s": rep.projected_s,
            "results_bytes": rep.results_bytes,
            "host_bytes": rep.host_bytes,
            "backend": rep.backend,
            "jax": jax.__version__,
            "planned": rep.planned_line(),
        }
    )


def record_plan(rep: PlanReport, path: str | Path | None = None) -> Path:
    """Write ``rep`` into the recorded plans (one entry per experiment and preset)."""
    p = Path(path) if path is not None else plans_path()
    with _locked(p):
        return _record(rep, p)


@contextlib.contextmanager
def _locked(p: Path):
    """An exclusive lock beside ``p``, so that processes recording plans do not lose entries."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    import tempfile

    tag = hashlib.blake2b(str(p.resolve()).encode(), digest_size=6).hexdigest()
    with open(Path(tempfile.gettempdir()) / f"jaxtheory-plans-{tag}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _record(rep: PlanReport, p: Path) -> Path:
    data = read_plans(p)
    data["about"] = (
        "Generated by `jaxtheory plan NAME --record` (or `--all --record`): each full preset's "
        "planned memory per chunk and roofline projection on one H200. Do not edit by hand."
    )
    data.setdefault("experiments", {})
    data["experiments"].setdefault(rep.experiment, {})[rep.preset] = _record_entry(rep)
    data["experiments"] = {k: data["experiments"][k] for k in sorted(data["experiments"])}
    store.atomic_write_json(p, data)
    return p


def planned_note(name: str, preset: str = "full", path: str | Path | None = None) -> str | None:
    """The recorded plan line of ``name``'s ``preset``, or ``None`` when none is recorded."""
    try:
        entry = read_plans(path)["experiments"].get(name, {}).get(preset)
    except (OSError, ValueError):
        return None
    return None if not entry else entry.get("planned")


def describe_preset(exp, preset: str, path: str | Path | None = None) -> str:
    """A preset's description followed by its recorded plan line, when one is recorded.

    Example:
        >>> from jaxtheory.registry import get_experiment
        >>> describe_preset(get_experiment("noisy-quadratic"), "smoke") == get_experiment("noisy-quadratic").presets["smoke"].description
        True
    """
    desc = (exp.presets[preset].description or "").strip()
    note = planned_note(exp.name, preset, path)
    if not note:
        return desc
    note = note[0].upper() + note[1:] + "."
    return f"{desc.rstrip('.')}. {note}" if desc else note
