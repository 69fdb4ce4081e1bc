"""The harness every benchmark script uses: machine, timing, ratios, ``RESULTS.md``.

* :func:`machine` describes the host and the device in one line (every recorded
  section starts with it);
* :func:`timed` times a call the same way everywhere: **cold** is the first call,
  compile included, **warm** the best of ``reps`` further calls (each blocks on its
  result); :func:`best_of` is the warm half alone (for peers with nothing to compile);
* :func:`ratio` is the one ratio convention: **peer time / our time**, so > 1 means
  ours is faster (a rate ratio, ours / the peer's per unit of work, is the same number);
* :func:`record` writes a script's section of ``RESULTS.md``, keyed by its title: a
  section with the same title is replaced in place (duplicates are dropped), a new
  title is appended;
* :func:`parser` gives every script the same ``--tiny`` (a smoke test that never
  records) and ``--no-record`` flags; :class:`Budget` tells a multi-part run when to
  stop; :func:`script` imports a sibling script so others can reuse its functions.

A script imports this module with its own directory on ``sys.path`` (two lines at its
top), which works both as ``python benchmarks/x.py`` and when a test loads the script
from its path.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import platform
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: The results file every script records into.
RESULTS = HERE / "RESULTS.md"
#: The sentence that states the ratio convention in every recorded section.
RATIO_CONVENTION = "Ratio = peer time / our time (> 1: ours is faster)."
_HEADER = (
    "# Benchmark results\n\nSpeed against named peers measured in the same run; each "
    "section is written by its script (`benchmarks/<name>.py`, through "
    "`benchmarks/_common.py`), which replaces its own section when run again. "
    f"{RATIO_CONVENTION} Cold = first call, compile included; warm = best of the "
    "later calls.\n"
)


def machine() -> str:
    """One line: host, cores, device kind and count, jax version, threads, load.

    Returns:
        e.g. ``"x86_64 2 cores, cpu (cpu) x1, jax 0.10.2; OMP_NUM_THREADS=1; load
        average 3.2"``.
    """
    import jax

    dev = jax.devices()[0]
    kind = getattr(dev, "device_kind", dev.platform)
    text = (
        f"{platform.machine()} {os.cpu_count()} cores, {dev.platform} ({kind}) x"
        f"{jax.device_count()}, jax {jax.__version__}; "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )
    try:
        text += f"; load average {os.getloadavg()[0]:.1f}"
    except OSError:  # pragma: no cover - no load average on this platform
        pass
    return text


def device_kind() -> str:
    """The first device's kind, e.g. ``"NVIDIA H200"`` or ``"cpu"``."""
    import jax

    dev = jax.devices()[0]
    return str(getattr(dev, "device_kind", dev.platform))


def block(x: Any) -> Any:
    """``jax.block_until_ready`` on any pytree (numpy and Python leaves pass through)."""
    import jax

    return jax.block_until_ready(x)


@dataclasses.dataclass(frozen=True)
class Timing:
    """Seconds of one timed call.

    Attributes:
        cold: The first call, compile included.
        warm: The best of the ``reps`` later calls (``nan`` when ``reps`` is 0).
        reps: How many later calls ``warm`` is the best of.
        result: What the last call returned.
    """

    cold: float
    warm: float
    reps: int
    result: Any = None


def _once(fn: Callable, args, kwargs) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = block(fn(*args, **kwargs))
    return time.perf_counter() - t0, out


def timed(fn: Callable, *args: Any, reps: int = 3, **kwargs: Any) -> Timing:
    """Time ``fn(*args, **kwargs)``: cold (first call) and warm (best of ``reps`` more).

    Every call blocks on its result (:func:`block`), so asynchronous dispatch is timed
    to completion.

    Args:
        fn: The callable; called ``1 + reps`` times with the same arguments.
        *args: Its positional arguments.
        reps: Warm calls after the first (0: cold only).
        **kwargs: Its keyword arguments.

    Returns:
        A :class:`Timing`.

    Example:
        >>> t = timed(sum, [1, 2, 3], reps=2)
        >>> t.result, t.reps, t.cold >= 0 and t.warm >= 0
        (6, 2, True)
    """
    if reps < 0:
        raise ValueError(f"reps must be >= 0, got {reps}")
    cold, out = _once(fn, args, kwargs)
    warm = float("nan")
    for _ in range(reps):
        t, out = _once(fn, args, kwargs)
        warm = t if warm != warm else min(warm, t)
    return Timing(cold=cold, warm=warm, reps=reps, result=out)


def best_of(fn: Callable, reps: int, *args: Any, **kwargs: Any) -> float:
    """The best (minimum) wall time of ``reps`` blocking calls of ``fn`` (no warm-up).

    Example:
        >>> best_of(sorted, 3, [3, 1, 2]) >= 0
        True
    """
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    return min(_once(fn, args, kwargs)[0] for _ in range(reps))


def ratio(peer, ours):
    """The ratio convention of every script: peer time / our time (> 1: ours is faster).

    For rates (work per second) pass them swapped: ``ratio(our_rate, peer_rate)``.
    Works elementwise on arrays; a zero time of ours gives ``inf``.

    Example:
        >>> ratio(3.0, 1.5)
        2.0
    """
    import numpy as np

    with np.errstate(divide="ignore"):
        out = np.divide(peer, ours)
    return float(out) if np.ndim(out) == 0 else out


def parser(
    doc: str | None, *, tiny: str = "tiny sizes: a smoke test (never records)"
) -> argparse.ArgumentParser:
    """An argument parser with the common ``--tiny`` and ``--no-record`` flags.

    Args:
        doc: The script's module docstring; its first paragraph is the description.
        tiny: The help text of ``--tiny``.

    Returns:
        The parser; scripts add their own options.
    """
    ap = argparse.ArgumentParser(description=(doc or "").split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help=tiny)
    ap.add_argument("--no-record", action="store_true", help="do not write RESULTS.md")
    return ap


def should_record(args: argparse.Namespace) -> bool:
    """A full run records; ``--tiny`` and ``--no-record`` never do."""
    return not (getattr(args, "tiny", False) or getattr(args, "no_record", False))


def section(
    title: str,
    lines: Sequence[str],
    *,
    intro: str = "",
    notes: str = "",
    script: str | None = None,
    date: str | None = None,
) -> str:
    """The Markdown text of one section: heading, intro, machine line and text block.

    Args:
        title: The key of the section (its heading without the date).
        lines: The measured lines (put in a ``text`` block after :func:`machine`).
        intro: What was measured and against which peers (the ratio convention is added).
        notes: Text after the block (fixed remarks; measured values belong in ``lines``).
        script: The script's file name, named in the intro.
        date: The date in the heading (default today).

    Returns:
        The section, ending in one newline.
    """
    date = date or time.strftime("%Y-%m-%d")
    head = " ".join(
        x for x in (intro.strip(), RATIO_CONVENTION, f"Script: `benchmarks/{script}`." if script else "") if x
    )
    body = f"## {title} ({date})\n\n{head}\n\n```text\n" + "\n".join([machine(), *lines]) + "\n```\n"
    if notes.strip():
        body += "\n" + notes.strip() + "\n"
    return body


def _split(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first ``## `` heading and the (heading, body) sections.

    Headings inside fenced code blocks do not count.
    """
    pre: list[str] = []
    secs: list[tuple[str, list[str]]] = []
    fence = False
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and line.startswith("## "):
            secs.append((line.rstrip("\n"), [line]))
        elif secs:
            secs[-1][1].append(line)
        else:
            pre.append(line)
    return "".join(pre), [(h, "".join(b)) for h, b in secs]


def _key(heading: str) -> str:
    """A section's key: its heading less ``## `` and a trailing ``(YYYY-MM-DD)``."""
    return re.sub(r"\s*\(\d{4}-\d{2}-\d{2}\)\s*$", "", heading[3:]).strip()


def record(title: str, lines: Sequence[str], *, results: Path | str = RESULTS, **kw: Any) -> str:
    """Write the section titled ``title`` into ``results``, replacing any with that title.

    A section whose heading (less its date) equals ``title`` is replaced where it
    stands and any further ones with the same title are removed; otherwise the section
    is appended. Other sections are kept byte for byte.

    Args:
        title: The key (e.g. ``"gpu_sweep (NVIDIA H200)"``); must not contain a newline.
        lines: The measured lines.
        results: The file (created with a header when missing).
        **kw: ``intro``, ``notes``, ``script``, ``date`` for :func:`section`.

    Returns:
        The section written.
    """
    if not title.strip() or "\n" in title:
        raise ValueError(f"a section title is one non-empty line, got {title!r}")
    path = Path(results)
    new = section(title.strip(), lines, **kw)
    text = path.read_text() if path.exists() else _HEADER
    pre, secs = _split(text)
    out, placed = [pre.rstrip("\n") + "\n"], False
    for heading, body in secs:
        if _key(heading) == title.strip():
            if not placed:
                out.append(new)
                placed = True
        else:
            out.append(body.rstrip("\n") + "\n")
    if not placed:
        out.append(new)
    path.write_text("\n".join(out))
    return new


class Budget:
    """Wall-clock budget of a multi-part run: check it between parts.

    Args:
        seconds: The budget; ``None`` for none.

    Example:
        >>> b = Budget(None)
        >>> b.left() == float("inf") and not b.exhausted()
        True
    """

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.start = time.monotonic()

    def elapsed(self) -> float:
        """Seconds since the budget started."""
        return time.monotonic() - self.start

    def left(self) -> float:
        """Seconds left (``inf`` without a budget)."""
        return float("inf") if self.seconds is None else self.seconds - self.elapsed()

    def exhausted(self, need: float = 0.0) -> bool:
        """Whether fewer than ``need`` seconds (default: none) are left."""
        return self.left() <= need


def script(name: str):
    """Import the sibling benchmark script ``benchmarks/<name>.py`` as a module.

    Example:
        >>> script("gpu_sweep").__name__
        'gpu_sweep'
    """
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return importlib.import_module(name)
