"""JAX's persistent compilation cache, on by default for sweeps and the command line.

Smoke runs are compile-bound: a sweep spends most of its time compiling its
``jit(vmap(run))`` programs and little running them. With the persistent cache a second
process that compiles the same program (same code, shapes, JAX/XLA version and flags)
loads the executable from disk instead.

Where it is enabled: the ``jaxtheory`` command turns it on at start (``run`` and
``docs build``), and :func:`jaxtheory.sweep.sweep` (hence :meth:`jaxtheory.Experiment.sweep`)
turns it on lazily, once per process, before its first compile. Importing
:mod:`jaxtheory` changes no JAX setting but one XLA:CPU scheduler flag (a workaround for a
deadlock of jaxlib 0.9.2, see :func:`jaxtheory._jaxlib_check.avoid_scheduler_deadlock`),
so a library user who only takes the optax transforms gets JAX's defaults otherwise.

Where it lives: ``$JAXTHEORY_CACHE_DIR`` if set, else
``$XDG_CACHE_HOME/jaxtheory/jax/<cpu>``, else ``~/.cache/jaxtheory/jax/<cpu>``, where
``<cpu>`` (:func:`cpu_tag`) names the machine architecture and a hash of the CPU's
instruction-set features, so that a home directory shared between machines of different
CPUs (a cluster's NFS home, a restored CI cache) keeps one directory per CPU. A cache
directory the user already gave JAX (the ``JAX_COMPILATION_CACHE_DIR`` environment
variable or ``jax_compilation_cache_dir``), or an explicit directory, is kept as it is.

Programs compiled for another CPU: XLA:CPU compiles for the host's *target* (triple, CPU
name and feature list) and stores that target inside the compiled program. On load, its
loader compares the stored features with the host's and, for each one the host lacks,
only *logs* an error ("Target machine feature ... is not supported on the host machine
... could lead to execution errors such as SIGILL") and runs the program all the same.
On a CPU with AVX-512 it logs two such lines for every program it loads, on the very
machine that compiled it: XLA appends the LLVM tuning hints ``+prefer-no-gather`` and
``+prefer-no-scatter`` to the target of any AVX-512 host, and the host's detected
features (instruction sets only) never list a tuning hint. Those lines name no missing
instruction; they are noise, but they read as a crash about to happen.

So, once the cache is on, jaxtheory checks every program JAX reads from it for the CPU
backend before XLA loads it: the target stored in the
program must be, byte for byte, this host's target as XLA describes it (the CPU
topology JAX also hashes into its cache key). A program whose stored target differs is
refused: JAX warns ("Error reading persistent compilation cache entry ... compiled for
another CPU target"), compiles the program afresh and overwrites the entry; it never
runs. A program whose target matches is loaded with XLA's C++ error log held back for
the length of that load only, since the loader can then only report the tuning hints
the host's own target carries. Where the host's target cannot be read, or a program
stores no target of this host's triple (another JAX version), the program is loaded as
JAX loads it, log lines included.

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
        _install_cpu_read_check()
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


# -- programs read from the cache for the CPU backend ------------------------------------------
# (see the module docstring, "Programs compiled for another CPU")


class ForeignCpuProgramError(RuntimeError):
    """A cached CPU program stores another CPU target than this host's: JAX recompiles it."""


_UNREAD = object()
_host_target: object = _UNREAD  # bytes, or None where XLA gives no target; read once
_read_check_installed = False


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    out = shift = 0
    while True:
        b = buf[i]
        i += 1
        out |= (b & 0x7F) << shift
        if b < 0x80:
            return out, i
        shift += 7


def _fields(buf: bytes):
    """The (field number, bytes or None) pairs of a serialized protocol buffer, top level only."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        kind = key & 7
        if kind == 0:
            _, i = _varint(buf, i)
            yield key >> 3, None
        elif kind == 2:
            n, i = _varint(buf, i)
            if i + n > len(buf):
                raise ValueError("truncated field")
            yield key >> 3, buf[i : i + n]
            i += n
        elif kind == 1:
            i += 8
            yield key >> 3, None
        elif kind == 5:
            i += 4
            yield key >> 3, None
        else:
            raise ValueError(f"wire type {kind}")


def _target_in(topology: bytes) -> tuple[bytes, bytes] | None:
    """XLA's target-machine message in a serialized CPU topology: (its bytes, the triple).

    The message has the triple (field 1), the CPU name (2) and the comma-separated feature
    list (3), e.g. ``x86_64-unknown-linux-gnu``, ``znver4``, ``+64bit,+adx,...``.
    """
    import re

    feature_list = re.compile(rb"[+-][\w.-]+(,[+-][\w.-]+)*")
    try:
        for _, value in _fields(topology):
            if not value:
                continue
            try:
                sub = dict(_fields(value))
            except (ValueError, IndexError):
                continue
            triple, cpu, features = sub.get(1), sub.get(2), sub.get(3)
            if triple and cpu is not None and features and feature_list.fullmatch(features):
                if b"-" in triple and b"+" in features:
                    return value, triple
    except (ValueError, IndexError):
        return None
    return None


def _read_host_target(backend) -> bytes | None:
    """This host's target as XLA's CPU topology serializes it, or ``None`` where it has none."""
    global _host_target
    if _host_target is _UNREAD:
        try:
            from jax._src.lib import xla_client

            topology = xla_client.get_topology_for_devices(list(backend.local_devices())).serialize()
            found = _target_in(topology)
            _host_target = None if found is None else found[0]
        except Exception:  # noqa: BLE001 - a JAX without a serializable CPU topology
            _host_target = None
    return _host_target  # type: ignore[return-value]


def _header(triple: bytes) -> bytes:
    """The bytes that open a target message of this triple: field 1, its length, the triple."""
    n, head = len(triple), bytearray(b"\n")
    while n >= 0x80:
        head.append((n & 0x7F) | 0x80)
        n >>= 7
    head.append(n)
    return bytes(head) + triple


def _cpp_log_level() -> int:
    """The minimum level of XLA's C++ log now: JAX's ``jax_logging_level`` or ``TF_CPP_MIN_LOG_LEVEL``."""
    import jax

    levels = {"DEBUG": 0, "INFO": 0, "WARN": 1, "WARNING": 1, "ERROR": 2, "CRITICAL": 3, "FATAL": 3}
    level = getattr(jax.config, "jax_logging_level", None)
    if level and level != "NOTSET" and level in levels:
        return levels[level]
    try:
        return int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "1"))
    except ValueError:
        return 1


class _CheckedCpuBackend:
    """A CPU backend whose ``deserialize_executable`` checks the program's target first."""

    def __init__(self, backend, target: bytes):
        self._backend = backend
        self._target = target
        self._header = _header(dict(_fields(target))[1])

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def deserialize_executable(self, serialized, *args, **kwargs):
        data = bytes(serialized)
        if self._target not in data:
            if self._header in data:
                raise ForeignCpuProgramError(
                    "compiled for another CPU target than this host's; recompiling it "
                    "(jaxtheory.compile_cache)"
                )
            # no target of this triple stored (another JAX's format): load as JAX does
            return self._backend.deserialize_executable(serialized, *args, **kwargs)
        from jax._src.lib import utils

        utils.absl_set_min_log_level(3)  # FATAL only, for this load
        try:
            return self._backend.deserialize_executable(serialized, *args, **kwargs)
        finally:
            utils.absl_set_min_log_level(_cpp_log_level())


def _checked_cpu_read(read):
    """Wrap JAX's cache read so CPU programs pass the target check of the module docstring."""
    import functools

    @functools.wraps(read)
    def checked(cache_key, compile_options, backend, *args, **kwargs):
        if getattr(backend, "platform", None) != "cpu":
            return read(cache_key, compile_options, backend, *args, **kwargs)
        target = _read_host_target(backend)
        if target is None:
            return read(cache_key, compile_options, backend, *args, **kwargs)
        try:
            return read(cache_key, compile_options, _CheckedCpuBackend(backend, target), *args, **kwargs)
        except ForeignCpuProgramError:
            _drop_entry(backend, cache_key)  # JAX keeps an existing entry: make room for this CPU's
            raise

    checked._jaxtheory_checked = True  # type: ignore[attr-defined]
    return checked


def _drop_entry(backend, cache_key: str) -> None:
    """Delete a refused entry from JAX's on-disk cache (best effort)."""
    try:
        from jax._src import compilation_cache

        try:
            from jax._src.lru_cache import _CACHE_SUFFIX as suffix
        except ImportError:
            suffix = "-cache"
        directory = getattr(compilation_cache._get_cache(backend), "path", None)
        if directory is not None:
            Path(str(directory), f"{cache_key}{suffix}").unlink(missing_ok=True)
    except Exception:  # noqa: BLE001 - left in place, it is refused again on the next read
        pass


def _install_cpu_read_check() -> None:
    """Route JAX's persistent-cache reads through :func:`_checked_cpu_read` (once per process)."""
    global _read_check_installed
    if _read_check_installed:
        return
    _read_check_installed = True
    try:
        from jax._src import compilation_cache
        from jax._src.lib import utils

        read = compilation_cache.get_executable_and_time
        if getattr(read, "_jaxtheory_checked", False) or not hasattr(utils, "absl_set_min_log_level"):
            return
    except Exception:  # noqa: BLE001 - another JAX layout: its cache reads stay as they are
        return
    compilation_cache.get_executable_and_time = _checked_cpu_read(read)
