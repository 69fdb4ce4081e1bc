"""JAX's persistent compilation cache, on by default for sweeps and the command line.

Smoke runs are compile-bound: a sweep spends most of its time compiling its
``jit(vmap(run))`` programs and little running them. With the persistent cache a second
process that compiles the same program (same code, shapes, JAX/XLA version and flags)
loads the executable from disk instead.

Where it is enabled: the ``jaxtheory`` command turns it on at start (``run`` and
``docs build``), and :func:`jaxtheory.sweep.sweep` (hence :meth:`jaxtheory.Experiment.sweep`)
turns it on lazily, once per process, before its first compile. Importing
:mod:`jaxtheory` changes no JAX setting, so a library user who only takes the optax
transforms gets JAX's defaults.

Where it lives: ``$JAXTHEORY_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/jaxtheory/jax/<cpu>``, else ``~/.cache/jaxtheory/jax/<cpu>``, where
``<cpu>`` (:func:`cpu_tag`) names the machine architecture and a hash of the CPU's
instruction-set features. XLA:CPU compiles for the host's features and, on load, only
*warns* when a cached program was compiled for features the host lacks ("Target machine
feature ... is not supported on the host machine ... could lead to execution errors such
as SIGILL"): a home directory shared between machines of different CPUs (a cluster's
NFS home, a restored CI cache) would otherwise hand one CPU's code to another. A cache
directory the user already gave JAX (the ``JAX_COMPILATION_CACHE_DIR`` environment
variable or ``jax_compilation_cache_dir``), or an explicit directory, is kept as it is:
share one only between machines of one CPU model.

Switching it off: ``JAXTHEORY_CACHE=0`` in the environment, ``--no-cache`` on the
command line, or :func:`disable_compile_cache` in a program.

Programs that compile in less than :data:`MIN_COMPILE_TIME_S` are not stored (JAX's own
default is 1 s; 0.2 s also keeps the programs of small sweeps, such as a smoke run cut
down with ``--set``); a value set through ``JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS``
wins. The cache is trusted code: do not
point it at a directory others can write to.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

__all__ = [
    "ENV_DIR",
    "ENV_SWITCH",
    "MIN_COMPILE_TIME_S",
    "compile_cache_dir",
    "cpu_tag",
    "default_cache_dir",
    "disable_compile_cache",
    "enable_compile_cache",
]

#: Environment variable naming the cache directory.
ENV_DIR = "JAXTHEORY_CACHE_DIR"
#: Environment variable that switches the cache off when set to ``0``, ``false``, ``no`` or ``off``.
ENV_SWITCH = "JAXTHEORY_CACHE"
#: Programs compiling faster than this many seconds are not written to the cache.
MIN_COMPILE_TIME_S = 0.2

_OFF = {"0", "false", "no", "off"}
_lock = threading.Lock()
# None: nothing decided yet in this process; else the directory in use, or "" when off.
_decided: str | None = None


def cpu_tag() -> str:
    """A name for this host's CPU: its architecture and a hash of its instruction-set features.

    The features are the ``flags`` (x86) or ``Features`` (Arm) line of ``/proc/cpuinfo``,
    sorted; where there is no such file, the processor's name. Two machines get the same
    tag when XLA:CPU may run one's compiled programs on the other.

    Returns:
        ``"<machine>-<12 hex digits>"``, e.g. ``"x86_64-3f0c9a1b2d4e"``.

    Example:
        >>> from jaxtheory.compile_cache import cpu_tag
        >>> import platform
        >>> cpu_tag().startswith(platform.machine() + "-") and len(cpu_tag().split("-")[-1]) == 12
        True
    """
    import hashlib
    import platform

    features = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip().lower() in ("flags", "features"):
                    features = " ".join(sorted(value.split()))
                    break
    except OSError:
        pass
    if not features:
        features = platform.processor() or platform.platform()
    digest = hashlib.blake2b(features.encode(), digest_size=6).hexdigest()
    return f"{platform.machine() or 'unknown'}-{digest}"


def default_cache_dir() -> Path:
    """The cache directory used when none is given: ``$JAXTHEORY_CACHE_DIR`` or a per-user, per-CPU one.

    Returns:
        ``$JAXTHEORY_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/jaxtheory/jax/<cpu>``,
        else ``~/.cache/jaxtheory/jax/<cpu>``, with ``<cpu>`` from :func:`cpu_tag`.

    Example:
        >>> import os
        >>> from jaxtheory.compile_cache import cpu_tag, default_cache_dir
        >>> default_cache_dir().parts[-3:] == ("jaxtheory", "jax", cpu_tag()) or "JAXTHEORY_CACHE_DIR" in os.environ
        True
    """
    env = os.environ.get(ENV_DIR)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "jaxtheory" / "jax" / cpu_tag()


def _switched_off_by_env() -> bool:
    return os.environ.get(ENV_SWITCH, "").strip().lower() in _OFF


def enable_compile_cache(cache_dir: str | os.PathLike | None = None) -> Path | None:
    """Turn on JAX's persistent compilation cache (once per process).

    With ``cache_dir=None``, a cache directory already configured in JAX is kept;
    otherwise :func:`default_cache_dir` is used. An explicit ``cache_dir`` replaces it.
    ``JAXTHEORY_CACHE=0`` in the environment, or an earlier
    :func:`disable_compile_cache`, leaves the cache off. The minimum compile time of a
    stored program is lowered to :data:`MIN_COMPILE_TIME_S` unless
    ``JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS`` is set.

    Args:
        cache_dir: where to keep compiled programs (created if missing).

    Returns:
        The cache directory in use, or ``None`` when the cache is off.

    Example:
        >>> from jaxtheory.compile_cache import enable_compile_cache
        >>> enable_compile_cache("/tmp/my-jax-cache")  # doctest: +SKIP
        PosixPath('/tmp/my-jax-cache')
    """
    global _decided
    import jax

    with _lock:
        if _decided == "" and cache_dir is None:
            return None
        if _switched_off_by_env() and cache_dir is None:
            _decided = ""
            return None
        current = jax.config.jax_compilation_cache_dir
        if cache_dir is None and current:
            path = Path(current)
        else:
            path = Path(cache_dir) if cache_dir is not None else default_cache_dir()
            path = path.expanduser()
            path.mkdir(parents=True, exist_ok=True)
        if not jax.config.jax_enable_compilation_cache or str(path) != current:
            # JAX decides once per process whether (and where) it caches: start it afresh
            _reset_jax_cache()
            jax.config.update("jax_compilation_cache_dir", str(path))
            jax.config.update("jax_enable_compilation_cache", True)
        if "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS" not in os.environ:
            jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_TIME_S)
        _decided = str(path)
        return path


def disable_compile_cache() -> None:
    """Turn the persistent compilation cache off for the rest of this process.

    Later calls of :func:`enable_compile_cache` without a directory (such as the one
    :func:`jaxtheory.sweep.sweep` makes) leave it off. Programs already loaded stay in
    memory.

    Example:
        >>> from jaxtheory.compile_cache import compile_cache_dir, disable_compile_cache
        >>> disable_compile_cache()  # doctest: +SKIP
        >>> compile_cache_dir() is None  # doctest: +SKIP
        True
    """
    global _decided
    import jax

    with _lock:
        if jax.config.jax_compilation_cache_dir:
            _reset_jax_cache()
            jax.config.update("jax_compilation_cache_dir", None)
        jax.config.update("jax_enable_compilation_cache", False)
        _decided = ""


def compile_cache_dir() -> Path | None:
    """The directory of the persistent compilation cache in use, or ``None`` when it is off.

    Returns:
        The directory JAX reads and writes compiled programs in, or ``None``.

    Example:
        >>> from jaxtheory.compile_cache import compile_cache_dir
        >>> compile_cache_dir() is None or compile_cache_dir().exists()
        True
    """
    import jax

    if not jax.config.jax_enable_compilation_cache or not jax.config.jax_compilation_cache_dir:
        return None
    return Path(jax.config.jax_compilation_cache_dir)


def _enable_by_default() -> None:
    """The sweep engine's hook: enable the cache unless this process already decided."""
    if _decided is None:
        enable_compile_cache()


def _reset_jax_cache() -> None:
    """Forget the cache object JAX built for the previous directory."""
    try:
        from jax.experimental.compilation_cache import compilation_cache

        compilation_cache.reset_cache()
    except Exception:  # noqa: BLE001 - best effort: an older/newer JAX without it
        pass
