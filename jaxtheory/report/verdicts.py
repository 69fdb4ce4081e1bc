"""Verdict snapshots: each experiment's claim verdicts on a preset, kept in the repository.

``tests/verdicts/<experiment>.<preset>.json`` maps every claim name to its verdict. A
fresh run's verdicts are compared with the snapshot (the cheap experiments in the test
suite, all of them in ``jaxtheory docs build --verdicts tests/verdicts``), so a verdict
that flips shows up as a failure until the commit that flipped it also updates the
snapshot, where the diff shows it (``--update-verdicts`` rewrites the files).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["snapshot_path", "read_snapshot", "write_snapshot", "verdicts_of", "compare"]


def snapshot_path(directory: str | Path, experiment: str, preset: str) -> Path:
    """``<directory>/<experiment>.<preset>.json``."""
    return Path(directory) / f"{experiment}.{preset}.json"


def verdicts_of(claims: Iterable[Any]) -> dict[str, str]:
    """``{claim name: verdict}`` of claim results (objects or ``claims.json`` dicts)."""
    out = {}
    for c in claims:
        d = c if isinstance(c, Mapping) else c.to_json()
        out[d["name"]] = d.get("verdict") or ("pass" if d.get("passed") else "fail")
    return out


def read_snapshot(path: str | Path) -> dict[str, str] | None:
    """The snapshot at ``path``, or ``None`` when there is none."""
    path = Path(path)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{path}: a verdict snapshot maps claim names to verdict strings")
    return data


def write_snapshot(path: str | Path, verdicts: Mapping[str, str]) -> None:
    """Write a snapshot (sorted keys, one claim a line, so diffs read well)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(dict(sorted(verdicts.items())), indent=1) + "\n")


def compare(fresh: Mapping[str, str], snapshot: Mapping[str, str]) -> list[str]:
    """Differences between fresh verdicts and a snapshot, one line each (empty: equal).

    Example:
        >>> compare({"a": "pass", "b": "fail"}, {"a": "pass", "b": "inconclusive", "c": "pass"})
        ['b: inconclusive -> fail', 'c: in the snapshot, not evaluated']
    """
    out = []
    for name in sorted(set(fresh) | set(snapshot)):
        if name not in snapshot:
            out.append(f"{name}: {fresh[name]}, not in the snapshot")
        elif name not in fresh:
            out.append(f"{name}: in the snapshot, not evaluated")
        elif fresh[name] != snapshot[name]:
            out.append(f"{name}: {snapshot[name]} -> {fresh[name]}")
    return out
