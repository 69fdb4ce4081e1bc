"""Load a stored run, draw its figures and summarize it."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from jaxtheory.experiment import Experiment
from jaxtheory.sweep import store

__all__ = ["LoadedRun", "load_run", "write_figures", "summarize", "spec_from_json", "code_line"]


@dataclasses.dataclass
class LoadedRun:
    """A run directory read back: its experiment, results, spec, manifest and claims."""

    run_dir: Path
    experiment: Experiment | None
    results: Any
    spec: Any
    manifest: dict
    claims: list[dict]


def spec_from_json(default: Any, d: dict) -> Any:
    """Rebuild a spec dataclass from its manifest entry, using ``default`` for its type."""
    if not dataclasses.is_dataclass(default):
        return default
    kw = {}
    for f in dataclasses.fields(default):
        if f.name in d:
            cur = getattr(default, f.name)
            v = d[f.name]
            if isinstance(cur, tuple) and isinstance(v, list):
                v = tuple(v)
            elif dataclasses.is_dataclass(cur) and isinstance(v, dict):
                v = spec_from_json(cur, v)
            kw[f.name] = v
    return dataclasses.replace(default, **kw)


def load_run(run_dir: str | Path) -> LoadedRun:
    """Read ``results.nc``, ``manifest.json`` and ``claims.json`` of a run directory.

    Raises:
        FileNotFoundError: when the directory holds no finished run.
    """
    run_dir = Path(run_dir)
    mpath = run_dir / "manifest.json"
    if not mpath.exists():
        raise FileNotFoundError(f"{run_dir} has no manifest.json: not a finished run directory")
    manifest = store.read_json(mpath)
    ds = store.open_results(run_dir)
    from jaxtheory.registry import experiment_of_run

    exp = experiment_of_run(manifest)
    spec = spec_from_json(exp.spec, manifest.get("spec", {})) if exp else manifest.get("spec")
    cpath = run_dir / "claims.json"
    claims = store.read_json(cpath) if cpath.exists() else []
    return LoadedRun(run_dir, exp, ds, spec, manifest, claims)


def write_figures(run_dir: str | Path, formats: tuple[str, ...] = ("png", "svg")) -> list[Path]:
    """Draw the experiment's figures next to the results, in ``run_dir/figures/``.

    Every figure is checked with :func:`jaxtheory.plots.check_drawn`: one that draws no
    data is not written (an old file of that name is removed), the others still are,
    and the error is raised after the last figure.

    Returns:
        The paths written.

    Raises:
        LookupError: the run's experiment cannot be loaded (neither from the file or
            module its manifest names as ``origin`` nor by its registered name).
        jaxtheory.plots.EmptyFigureError: a figure drew no data; the message names the
            experiment and every empty figure.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from jaxtheory.plots import EmptyFigureError, check_drawn

    run = load_run(run_dir)
    if run.experiment is None:
        raise LookupError(
            f"{run_dir}: its experiment {run.manifest.get('experiment')!r} cannot be loaded "
            f"(origin {run.manifest.get('origin')!r}); cannot draw figures"
        )
    out_dir = Path(run_dir) / "figures"
    written = []
    empty: list[str] = []
    for fig_def in run.experiment.figures:
        fig = plt.figure(figsize=fig_def.size, layout="constrained")
        try:
            fig_def.draw(run.results, run.spec, fig)
            try:
                check_drawn(fig, f"{run.experiment.name}/{fig_def.name}")
            except EmptyFigureError as e:
                empty.append(str(e))
                for fmt in formats:
                    (out_dir / f"{fig_def.name}.{fmt}").unlink(missing_ok=True)
                continue
            for fmt in formats:
                path = out_dir / f"{fig_def.name}.{fmt}"
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f".{path.name}.tmp")
                fig.savefig(tmp, format=fmt, dpi=120)
                tmp.replace(path)
                written.append(path)
        finally:
            plt.close(fig)
    if empty:
        raise EmptyFigureError("\n".join(empty))
    return written


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    if isinstance(x, dict):
        return ", ".join(f"{k}={_fmt(v)}" for k, v in x.items())
    if isinstance(x, list) and len(x) <= 6:
        return "[" + ", ".join(_fmt(v) for v in x) + "]"
    return str(x)


def code_line(manifest: dict) -> str:
    """Which code produced a run, in one line: fingerprint, library versions, git revision.

    Example:
        >>> code_line({"fingerprint": "0123456789abcdef",
        ...            "code": {"environment": {"jax": "0.10.2", "x64": False}},
        ...            "git": {"revision": "89abcdef0123456789", "dirty": True}})
        'fingerprint 0123456789abcdef (jax 0.10.2, x64 off); git 89abcdef0123 (uncommitted changes)'
        >>> code_line({})
        'fingerprint unknown (written before fingerprints); git unknown'
    """
    fp = manifest.get("fingerprint")
    env = (manifest.get("code") or {}).get("environment") or {}
    if fp is None:
        text = "fingerprint unknown (written before fingerprints)"
    else:
        extra = []
        if env.get("jax"):
            extra.append(f"jax {env['jax']}")
        if "x64" in env:
            extra.append(f"x64 {'on' if env['x64'] else 'off'}")
        text = f"fingerprint {fp}" + (f" ({', '.join(extra)})" if extra else "")
    g = manifest.get("git") or {}
    if g.get("revision"):
        state = {True: " (uncommitted changes)", False: " (clean)"}.get(g.get("dirty"), "")
        text += f"; git {g['revision'][:12]}{state}"
    elif "git" in manifest:
        text += "; not in a git checkout"
    else:
        text += "; git unknown"
    return text


def _verdict(c: dict) -> str:
    """A stored claim's verdict (claims.json written before verdicts existed has ``passed``)."""
    return c.get("verdict") or ("pass" if c.get("passed") else "fail")


def summarize(run_dir: str | Path) -> str:
    """A plain-text summary: code, space, devices, timings, lane statuses and claim verdicts."""
    run = load_run(run_dir)
    m = run.manifest
    lines = [f"run        {run.run_dir}"]
    if m.get("experiment"):
        lines.append(f"experiment {m['experiment']} (preset {m.get('preset')})")
        from jaxtheory.sweep.plan import planned_note

        note = planned_note(m["experiment"], m.get("preset") or "")
        if note:
            lines.append(f"planned    {note}")
    paper = m.get("paper") or {}
    if paper.get("title"):
        arx = f", arXiv {paper['arxiv']}" if paper.get("arxiv") else ""
        lines.append(f"paper      {paper['title']}{arx}")
    lines.append(f"code       {code_line(m)}")
    lines.append("space")
    params = m.get("params") or {}
    for n, ax in m["space"]["axes"].items():
        if ax["kind"] == "zip":
            desc = "zip(" + ", ".join(f"{k}={_fmt(v['values'])}" for k, v in ax["members"].items()) + ")"
        else:
            vals = ax["values"]
            desc = f"{ax['kind']}{_fmt(ax['args'])} -> {len(vals)} values"
            cat = params.get(n)
            if isinstance(cat, dict) and isinstance(cat.get("labels"), list):  # a categorical()
                desc += (
                    " (categorical, codes "
                    + ", ".join(f"{v}={cat['labels'].index(v)}" for v in vals if v in cat["labels"])
                    + ")"
                )
        lines.append(f"  {n:<16} {desc}")
    lines.append(f"  {'seeds':<16} {m['space']['seeds']}")
    if m["space"].get("paired"):
        lines.append(f"  {'paired':<16} {', '.join(m['space']['paired'])} (same keys across their values)")
    d = m["devices"]
    lines.append(
        f"devices    {d['count']} x {d['platform']} ({', '.join(d['kinds'])}); processes {d['process_count']}"
    )
    t = m["timings"]
    lines.append(
        f"timings    total {t['total_s']:.2f} s: compile {t['compile_s']:.2f} s, "
        f"run {t['run_s']:.2f} s, store {t['store_s']:.2f} s"
        + (f" + results {t['results_write_s']:.2f} s" if "results_write_s" in t else "")
        + f"; {m['compiles']} compile(s), "
        f"chunk {m['chunk_size']} lanes ({m['chunks_run']} run, {m['chunks_resumed']} resumed)"
    )
    hist = m.get("history") or []
    if len(hist) > 1:
        from jaxtheory.sweep import compute_timings

        comp = compute_timings(m)
        lines.append(
            f"history    {len(hist)} calls wrote this run"
            + (
                f"; computing took {comp['timings']['total_s']:.2f} s over {comp['calls']} "
                f"call(s), {comp['chunks_run']} chunk(s), {comp['compiles']} compile(s)"
                if comp
                else ""
            )
        )
        fps = list(dict.fromkeys(h.get("fingerprint") for h in hist if h.get("fingerprint")))
        if len(fps) > 1:
            lines.append(
                f"           {len(fps)} code fingerprints over the history (chunks of earlier "
                f"code were recomputed): {', '.join(fps)}"
            )
    sc = m["status_counts"]
    lines.append(f"lanes      {m['lanes']}: {sc['ok']} ok, {sc['diverged']} diverged")
    if run.claims:
        from jaxtheory.claims import describe_cells, describe_interval, describe_rule

        counts = {}
        for c in run.claims:
            v = _verdict(c)
            counts[v] = counts.get(v, 0) + 1
        lines.append(f"claims     {len(run.claims)}: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
        for c in run.claims:
            v = _verdict(c).upper()
            n = f", n={c['n']}" if c.get("n") else ""
            per_cell = describe_cells(c)
            if per_cell:  # every cell's interval, worst first
                lines.append(
                    f"  [{v}] {c['name']} ({c.get('source', '?')}): expected {describe_rule(c)}{n}; "
                    f"{len(per_cell)} cells, worst first:"
                )
                lines += [f"           {cell}" for cell in per_cell]
            else:
                lines.append(
                    f"  [{v}] {c['name']} ({c.get('source', '?')}): expected "
                    f"{describe_rule(c)}, measured {_fmt(c.get('measured'))}, "
                    f"interval {describe_interval(c)}" + n
                )
            if c.get("quote"):
                q = c["quote"] if len(c["quote"]) <= 100 else c["quote"][:97] + "..."
                lines.append(f"         quote ({c.get('where') or 'abstract'}): “{q}”")
            if c.get("stand_in"):
                lines.append(f"         stand-in data: {c['stand_in']}")
            if c.get("reason"):
                label = "not applicable" if _verdict(c) == "not-applicable" else "why"
                lines.append(f"         {label}: {c['reason']}")
            if c.get("error"):
                lines.append(f"         error: {c['error']}")
    return "\n".join(lines)
