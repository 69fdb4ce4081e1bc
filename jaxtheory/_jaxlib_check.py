"""Warn when the installed jaxlib can deadlock XLA:CPU on batched linear algebra.

jaxlib 0.10.0 to 0.11.0 split the batch of a LAPACK call (``getrf``, ``potrf``,
``syevd``, ``gesdd``...) into chunks on XLA:CPU's intra-op thread pool and block the
calling pool thread until they finish. When the thunk executor runs as many such calls
at once as the pool has threads (two on a 2-core machine: the vmapped lanes of a sweep
easily do), every thread waits for work queued behind it and the program stops at 0 %
CPU, forever. The native stacks show every ``tf_XLAEigen`` thread in
``jax::ParallelBatchMap`` -> ``absl::BlockingCounter::Wait``. 0.9.2 lacks that code path
and 0.11.1 compiles it out of open-source builds; ``pyproject.toml`` excludes the
affected releases. This check is for an environment that installed jax by other means.

jaxlib 0.9.2 has a deadlock of its own on XLA:CPU: with the concurrency-optimized HLO
scheduler (on by default) some programs that run several batched eigendecompositions or
SVDs side by side stop for good with every pool thread idle and the caller waiting on
the result (vlm-objectives-spectral's smoke on an idle 2-core machine, every time;
SMuon's depth-5 step). :func:`avoid_scheduler_deadlock` switches that scheduler off
through ``XLA_FLAGS`` before the CPU backend starts; importing this module (the first
thing ``import jaxtheory`` does) calls it. A value of the flag already in ``XLA_FLAGS``
is the user's and is kept.
"""

from __future__ import annotations

import os
import re
import sys
import warnings

AFFECTED = ((0, 10, 0), (0, 11, 0))  # inclusive bounds
#: The XLA:CPU flag whose default (true) lets jaxlib 0.9.2 deadlock; see the module docstring.
SCHEDULER_FLAG = "--xla_cpu_enable_concurrency_optimized_scheduler"


def _backends_started() -> bool:
    """Whether JAX has already created its backends (XLA_FLAGS is read then, once)."""
    xb = sys.modules.get("jax._src.xla_bridge")
    return bool(getattr(xb, "_backends", None))


def avoid_scheduler_deadlock(environ: dict | None = None) -> bool:
    """Add ``--xla_cpu_enable_concurrency_optimized_scheduler=false`` to ``XLA_FLAGS``.

    Nothing changes where the flag is already there (either value: the user's choice) or
    where JAX's backends already started (the flags are read once, when they start).
    Returns whether the flag was added.

    Example:
        >>> env = {"XLA_FLAGS": "--xla_force_host_platform_device_count=2"}
        >>> avoid_scheduler_deadlock(env), env["XLA_FLAGS"].split()[-1]
        (True, '--xla_cpu_enable_concurrency_optimized_scheduler=false')
        >>> avoid_scheduler_deadlock({"XLA_FLAGS": SCHEDULER_FLAG + "=true"})
        False
    """
    env = os.environ if environ is None else environ
    flags = env.get("XLA_FLAGS", "")
    if SCHEDULER_FLAG in flags or (environ is None and _backends_started()):
        return False
    env["XLA_FLAGS"] = f"{flags} {SCHEDULER_FLAG}=false".strip()
    return True


def _parse(version: str) -> tuple[int, int, int] | None:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    return tuple(int(g) for g in m.groups()) if m else None  # type: ignore[return-value]


def deadlock_prone(version: str) -> bool:
    """Whether a jaxlib ``version`` string is one of the releases with the deadlock."""
    v = _parse(version)
    return v is not None and AFFECTED[0] <= v <= AFFECTED[1]


def warn_if_deadlock_prone(version: str | None = None) -> bool:
    """Warn (``RuntimeWarning``) and return True when ``version`` (default: the installed
    jaxlib) is deadlock-prone on CPU."""
    if version is None:
        try:
            import jaxlib

            version = jaxlib.__version__
        except Exception:  # pragma: no cover - no jaxlib at all fails elsewhere
            return False
    if not deadlock_prone(version):
        return False
    warnings.warn(
        f"jaxlib {version} can deadlock XLA:CPU when batched linear algebra (eigh, svd, "
        "cholesky, solve under vmap) runs concurrently: a sweep then stops at 0 % CPU. "
        "Install jax and jaxlib 0.9.2, or 0.11.1 or later (pip install -e . does).",
        RuntimeWarning,
        stacklevel=2,
    )
    return True


avoid_scheduler_deadlock()
