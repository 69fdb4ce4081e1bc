"""``jaxtheory docs build``: run or reuse every experiment's preset, write its page, build the site.

This is where the documentation meets the experiments: :func:`write_experiment_pages`
runs each registered experiment's preset through :meth:`jaxtheory.Experiment.sweep`
(which resumes a stored run of the same code instead of computing it again), compares
its verdicts with the snapshots in ``tests/verdicts/`` when asked, and hands the stored
run to :mod:`jaxtheory.report.pages`, which draws the figures and renders the page
from what is stored. :func:`build_docs` then builds the Sphinx site in ``docs/`` with
warnings as errors. :mod:`jaxtheory.report` itself only reads stored runs.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jaxtheory.report.pages import (
    ExperimentPage,
    RunRecord,
    _code,
    _fence,
    draw_figures,
    prepare_pages_dir,
    write_index,
    write_page,
)

__all__ = ["docs_source_dir", "run_or_reuse", "write_experiment_pages", "build_docs"]


def docs_source_dir() -> Path:
    """The ``docs/`` directory of the source checkout this package runs from.

    Raises:
        FileNotFoundError: when the package is not run from a source checkout.
    """
    d = Path(__file__).resolve().parents[1] / "docs"
    if not (d / "conf.py").exists():
        raise FileNotFoundError(
            f"no docs/conf.py at {d}: `jaxtheory docs build` needs a source checkout of jaxtheory"
        )
    return d


def run_or_reuse(exp: Any, preset: str, runs: str | os.PathLike) -> RunRecord:
    """Run an experiment's preset (or resume its stored run) and draw its figures.

    The experiment's own failures never raise: a run that fails gives a record with
    ``run_dir=None`` and the traceback in ``errors``; a figure that fails is listed in
    ``figure_errors`` (see :func:`jaxtheory.report.pages.draw_figures`).

    Args:
        exp: the :class:`~jaxtheory.Experiment`.
        preset: the preset to run.
        runs: root directory of runs (``<runs>/<name>/<run-id>/``).

    Returns:
        The :class:`~jaxtheory.report.pages.RunRecord` a page is rendered from.
    """
    from jaxtheory.sweep import compute_timings, store

    rec = RunRecord()
    try:
        t0 = time.perf_counter()
        result = exp.sweep(preset, out=Path(runs), quiet=True)
        rec.wall_s = time.perf_counter() - t0
        rec.run_dir = Path(result.run_dir)
        rec.manifest = store.read_json(rec.run_dir / "manifest.json")
        rec.claims = [c.to_json() | ({"error": c.error} if c.error else {}) for c in result.claims]
        rec.compute = compute_timings(rec.manifest)
    except Exception:  # noqa: BLE001 - the page says so; the site still builds
        rec.errors.append(f"The `{preset}` run failed:\n\n" + _fence(traceback.format_exc(limit=8)))
        return rec
    draw_figures(exp, rec)
    return rec


def _recorded_runs(exp: Any, preset: str, verdicts: str | os.PathLike | None) -> dict[str, dict]:
    """The experiment's recorded runs of other presets (``medium``), by preset, for its page.

    They are read from ``<verdicts>/<name>.<preset>.claims.json`` (written by
    ``jaxtheory snapshot NAME --preset medium --update``); without ``verdicts``, from the
    checkout's ``tests/verdicts``.
    """
    from jaxtheory.report import verdicts as vsnap

    where = (
        Path(verdicts) if verdicts is not None else Path(__file__).resolve().parents[1] / "tests" / "verdicts"
    )
    out = {}
    for other in exp.presets:
        if other == preset:
            continue
        rec = vsnap.read_claims_record(vsnap.claims_record_path(where, exp.name, other))
        if rec is not None:
            out[other] = rec
    return out


def _compare_verdicts(
    rec: RunRecord, name: str, preset: str, verdicts: str | os.PathLike, update: bool
) -> None:
    """Compare (or, with ``update``, rewrite) the verdict snapshot; a difference is an error."""
    from jaxtheory.report import verdicts as vsnap

    path = vsnap.snapshot_path(verdicts, name, preset)
    fresh = vsnap.verdicts_of(rec.claims)
    if update:
        vsnap.write_snapshot(path, fresh)
        return
    snap = vsnap.read_snapshot(path)
    diff = ["no snapshot"] if snap is None else vsnap.compare(fresh, snap)
    if diff:
        rec.errors.append(
            f"Verdicts differ from the snapshot `{path}`: "
            + "; ".join(diff)
            + ". Update the snapshot in the commit that changes them (`--update-verdicts`)."
        )


def write_experiment_pages(
    source: str | os.PathLike | None = None,
    *,
    preset: str = "smoke",
    runs: str | os.PathLike = "runs",
    only: Iterable[str] | None = None,
    log: Any = None,
    verdicts: str | os.PathLike | None = None,
    update_verdicts: bool = False,
) -> list[ExperimentPage]:
    """Run (or reuse) each registered experiment's preset and write its docs page.

    Pages go to ``<source>/experiments/_generated/<name>.md`` with the figures beside
    them in ``<name>/``, plus ``summary.md`` (the table on the experiments index). The
    directory is cleared first, so removed experiments lose their pages. An experiment
    whose run, claims or figures fail still gets a page saying so; an error in writing
    the pages themselves propagates.

    Args:
        source: the Sphinx source directory (default: the checkout's ``docs/``).
        preset: the preset to run for every experiment (an experiment lacking it is
            reported on its page).
        runs: root directory of runs to reuse or write.
        only: experiment names to include (default: all registered).
        log: a callable taking a line of progress (default: print to stderr).
        verdicts: a directory of verdict snapshots (:mod:`jaxtheory.report.verdicts`):
            an experiment whose fresh verdicts differ from its snapshot is a failure.
        update_verdicts: rewrite the snapshots in ``verdicts`` instead of comparing.

    An experiment lacking ``preset`` is built from its default preset (``smoke``), and
    its page says so: ``--preset medium`` renders medium verdicts where they exist.

    Returns:
        One :class:`~jaxtheory.report.pages.ExperimentPage` per experiment.

    Raises:
        KeyError: when ``only`` names an experiment that is not registered.
    """
    from jaxtheory.registry import experiments, import_errors

    say = log or (lambda s: print(s, file=sys.stderr, flush=True))
    src = Path(source) if source is not None else docs_source_dir()
    exps = experiments()
    names = sorted(exps)
    if only:
        only = list(only)
        unknown = [n for n in only if n not in exps]
        if unknown:
            raise KeyError(
                f"no experiment named {', '.join(map(repr, unknown))}; "
                f"registered: {', '.join(names) or '(none)'}"
            )
        names = [n for n in names if n in only]
    gen = prepare_pages_dir(src, names)
    runs = Path(runs)
    pages: list[ExperimentPage] = []
    for name in names:
        exp = exps[name]
        used = preset if preset in exp.presets else exp.default_preset
        say(f"docs: {name}: running or reusing preset {used!r} under {runs}/")
        rec = run_or_reuse(exp, used, runs)
        for c in rec.claims:
            if c.get("verdict") == "error":
                rec.errors.append(
                    f"Claim `{c['name']}` could not be measured (verdict *error*, a bug, not a "
                    f"refutation): {_code(str(c.get('error')))}"
                )
        if verdicts is not None and rec.run_dir is not None:
            _compare_verdicts(rec, name, used, verdicts, update_verdicts)
        rec.recorded = _recorded_runs(exp, used, verdicts)
        page = write_page(exp, used, rec, gen)
        pages.append(page)
        state = "ok" if page.ok else "FAILED: " + page.errors[0].splitlines()[0]
        say(
            f"docs: {name}: "
            + (", ".join(f"{n} {v}" for v, n in page.verdicts.items()) or "no claims")
            + f"; {state}"
        )
    errs = import_errors()
    for mod, err in errs.items():
        say(f"docs: sweeps.{mod} failed to import: {err}")
    write_index(gen, pages, errs, preset)
    return pages


def _run_sphinx(source: Path, out: Path, *, strict: bool = True) -> int:
    try:
        from sphinx.cmd.build import build_main
    except ImportError:
        print("jaxtheory: error: Sphinx is not installed; pip install -e '.[docs]'", file=sys.stderr)
        return 1
    args = ["-b", "html", "-q", "-d", str(out.parent / ".doctrees" / out.name)]
    if strict:
        args += ["-W", "--keep-going"]
    return build_main(args + [str(source), str(out)])


def build_docs(
    preset: str = "smoke",
    out: str | os.PathLike = "docs/_build/html",
    runs: str | os.PathLike = "runs",
    only: Iterable[str] | None = None,
    sphinx: bool = True,
    source: str | os.PathLike | None = None,
    strict: bool = True,
    verdicts: str | os.PathLike | None = None,
    update_verdicts: bool = False,
) -> int:
    """Write every experiment's page and build the Sphinx site.

    Args:
        preset: the preset each experiment page is built from.
        out: HTML output directory.
        runs: root directory of runs to reuse or write.
        only: experiment names to include (default: all).
        sphinx: build the site; ``False`` writes the generated pages only.
        source: the Sphinx source directory (default: the checkout's ``docs/``).
        strict: warnings are errors (``-W --keep-going``).
        verdicts: a directory of verdict snapshots to compare every experiment with (a
            difference fails the build).
        update_verdicts: rewrite those snapshots instead.

    Returns:
        The exit status: 0 when the site built and every experiment ran; 1 when Sphinx
        failed, an experiment module failed to import, or any experiment's run, claims
        or figures raised, a claim's verdict included (``error``: its page says so and
        the rest of the site is still built).

    Raises:
        KeyError: when ``only`` names an unregistered experiment.
    """
    src = Path(source) if source is not None else docs_source_dir()
    t0 = time.perf_counter()
    pages = write_experiment_pages(
        src, preset=preset, runs=runs, only=only, verdicts=verdicts, update_verdicts=update_verdicts
    )
    failed = [p.name for p in pages if not p.ok]
    from jaxtheory.registry import import_errors

    if not only:  # a module that fails to import has no page: the site is not whole
        failed += [f"sweeps.{m} (import)" for m in sorted(import_errors())]
    print(
        f"docs: wrote {len(pages)} experiment page(s) in {time.perf_counter() - t0:.1f} s"
        + (f"; with failures: {', '.join(failed)}" if failed else ""),
        file=sys.stderr,
    )
    empty = [f"{p.name}/{f}" for p in pages for f in p.empty_figures]
    if empty:
        print(f"docs: FAILED: {len(empty)} figure(s) draw no data: {', '.join(empty)}", file=sys.stderr)
    if not sphinx:
        return 1 if failed or empty else 0
    t1 = time.perf_counter()
    out = Path(out)
    status = _run_sphinx(src, out, strict=strict)
    where = (out / "index.html").resolve()
    print(
        f"docs: sphinx {'succeeded' if status == 0 else 'FAILED'} in "
        f"{time.perf_counter() - t1:.1f} s" + (f": {where}" if status == 0 else ""),
        file=sys.stderr,
    )
    if failed:
        print(
            f"docs: FAILED: experiment(s) whose run, claims or figures raised: {', '.join(failed)}",
            file=sys.stderr,
        )
    return 0 if status == 0 and not failed and not empty else 1
