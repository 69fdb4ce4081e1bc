"""Verdict snapshots: each experiment's claim verdicts on a preset, kept in the repository.

``tests/verdicts/<experiment>.<preset>.json`` maps every claim name to its verdict. A
fresh run's verdicts are compared with the snapshot (the cheap experiments in the test
suite, all of them in ``jaxtheory docs build --verdicts tests/verdicts``), so a verdict
that flips shows up as a failure until the commit that flipped it also updates the
snapshot, where the diff shows it (``--update-verdicts`` rewrites the files).

A preset too long for the docs build (``medium``) is recorded by hand, not in CI::

    jaxtheory snapshot NAME --preset medium --update

which writes ``NAME.medium.json`` and ``NAME.medium.claims.json``: every claim's
verdict, statistic and interval, with the run's id, date and devices. The experiment's
page shows that record beside the smoke run's verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "snapshot_path",
    "read_snapshot",
    "write_snapshot",
    "verdicts_of",
    "compare",
    "claims_record_path",
    "write_claims_record",
    "read_claims_record",
]


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


def claims_record_path(directory: str | Path, experiment: str, preset: str) -> Path:
    """``<directory>/<experiment>.<preset>.claims.json``: a recorded run's claims."""
    return Path(directory) / f"{experiment}.{preset}.claims.json"


def write_claims_record(path: str | Path, run: Any) -> None:
    """Write a run's claims (verdict, statistic, interval, n) with where the run came from.

    Args:
        path: the record's path (:func:`claims_record_path`).
        run: an :class:`~jaxtheory.ExperimentRun`.
    """
    m = run.manifest or {}
    record = {
        "experiment": run.experiment.name,
        "preset": run.preset,
        "run": Path(run.run_dir).name if run.run_dir is not None else None,
        "recorded": m.get("finished") or m.get("created"),
        "devices": m.get("devices"),
        "claims": [
            {
                k: v
                for k, v in c.to_json().items()
                if k in ("name", "verdict", "measured", "interval", "n", "cells", "reason", "error")
            }
            for c in run.claims
        ],
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")


def read_claims_record(path: str | Path) -> dict | None:
    """A recorded run's claims (:func:`write_claims_record`), or ``None`` when there is none."""
    path = Path(path)
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise ValueError(f"{path}: a claims record holds a 'claims' list")
    return data
