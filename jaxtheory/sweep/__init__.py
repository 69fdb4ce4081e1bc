"""The sweep engine: spaces of hyperparameters × seeds run as one compiled program.

See :func:`sweep` and :class:`Space`; the guide "Launch a vmapped sweep" walks through
both.
"""

from jaxtheory.sweep.engine import (
    SweepResult,
    clear_compile_cache,
    compute_timings,
    default_chunk_size,
    host_seed,
    lane_key_data,
    lane_key_table,
    make_key,
    sweep,
)
from jaxtheory.sweep.mesh import select_devices
from jaxtheory.sweep.provenance import code_fingerprint, code_provenance
from jaxtheory.sweep.space import (
    Axis,
    BoundSpace,
    Categorical,
    Space,
    SpaceError,
    categorical,
    lin,
    log,
    loguniform,
    parse_axis,
    static,
    uniform,
    values,
    zipped,
)
from jaxtheory.sweep.store import open_results

__all__ = [
    "Axis",
    "BoundSpace",
    "Categorical",
    "Space",
    "SpaceError",
    "SweepResult",
    "categorical",
    "clear_compile_cache",
    "code_fingerprint",
    "code_provenance",
    "compute_timings",
    "default_chunk_size",
    "host_seed",
    "lane_key_data",
    "lane_key_table",
    "lin",
    "log",
    "loguniform",
    "make_key",
    "open_results",
    "parse_axis",
    "select_devices",
    "static",
    "sweep",
    "uniform",
    "values",
    "zipped",
]
