"""The ``jaxtheory`` command: list, run, show and report experiments.

Examples::

    jaxtheory list
    jaxtheory run noisy-quadratic --preset smoke --set lr='log(0.01,1,8)' --set seeds=4
    jaxtheory show runs/noisy-quadratic/smoke-<hash>
    jaxtheory run noisy-quadratic --coordinator host0:1234 --num-processes 2 --process-id 0
    jaxtheory report runs/noisy-quadratic/smoke-<hash>

Exit status: 0 on success, 1 when ``run --check`` finds a failed claim (``--strict``: a failed or inconclusive one), 2 for bad
input (unknown experiment or preset, a malformed ``--set``, a missing run directory).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``jaxtheory`` command."""
    p = argparse.ArgumentParser(prog="jaxtheory", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    sub.add_parser("list", help="registered experiments, their papers and presets")

    r = sub.add_parser("run", help="run an experiment preset; prints the run directory")
    r.add_argument("name", help="experiment name (see `jaxtheory list`)")
    r.add_argument("--preset", default=None, help="preset name (default: the experiment's, usually smoke)")
    r.add_argument("--out", default="runs", help="root directory of runs (default: runs)")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="AXIS=VALUES",
                   help="replace or add an axis: lr=0.1,0.01 | lr='log(1e-4,1e-1,16)' | "
                        "opt=adam,sgd | seeds=8 (repeatable)")
    r.add_argument("--chunk", type=int, default=None, help="lanes per chunk (default: fit memory)")
    r.add_argument("--devices", default="all", help="'all' or a number of devices")
    r.add_argument("--coordinator", default=None, metavar="HOST:PORT",
                   help="join a multi-process run (jax.distributed) through this coordinator")
    r.add_argument("--num-processes", type=int, default=None, help="processes in the run")
    r.add_argument("--process-id", type=int, default=None, help="this process's index")
    r.add_argument("--distributed", action="store_true",
                   help="join a multi-process run that JAX detects (SLURM, Cloud TPU)")
    r.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    r.add_argument("--check", action="store_true", help="exit 1 when a claim fails")
    r.add_argument("--strict", action="store_true",
                   help="exit 1 when a claim fails or is inconclusive")

    s = sub.add_parser("show", help="code, space, devices, timings, lane statuses and claims of a run")
    s.add_argument("run_dir")

    rep = sub.add_parser("report", help="draw the experiment's figures (PNG and SVG) next to the results")
    rep.add_argument("run_dir")

    d = sub.add_parser("docs", help="generated documentation")
    dsub = d.add_subparsers(dest="docs_command", required=True, metavar="ACTION")
    db = dsub.add_parser("build", help="run (or reuse) every experiment's preset, write pages, build the site")
    db.add_argument("--preset", default="smoke")
    db.add_argument("--out", default="docs/_build/html", help="HTML output directory")
    db.add_argument("--runs", default="runs", help="root directory of runs to reuse or write")
    db.add_argument("--only", action="append", default=None, metavar="NAME",
                    help="only these experiments (repeatable)")
    db.add_argument("--no-sphinx", action="store_true", help="write the generated pages only")
    db.add_argument("--verdicts", default=None, metavar="DIR",
                    help="compare every experiment's verdicts with the snapshots in DIR "
                         "(tests/verdicts); a difference fails the build")
    db.add_argument("--update-verdicts", action="store_true",
                    help="rewrite the snapshots in --verdicts DIR instead of comparing")
    return p


def _err(msg: str) -> int:
    print(f"jaxtheory: error: {msg}", file=sys.stderr)
    return 2


def _cmd_list() -> int:
    from jaxtheory.registry import experiments, import_errors

    exps = experiments()
    for name, e in sorted(exps.items()):
        arx = f" (arXiv {e.paper.arxiv})" if e.paper.arxiv else ""
        print(f"{name}")
        print(f"  paper:   {e.paper.title}{arx}")
        for pn, pr in e.presets.items():
            print(f"  preset:  {pn:<6} {pr.space!r}  {pr.description}")
    for mod, err in sorted(import_errors().items()):
        print(f"(sweeps.{mod} failed to import: {err})", file=sys.stderr)
    return 0


def _cmd_run(a) -> int:
    from jaxtheory.registry import get_experiment
    from jaxtheory.sweep.mesh import init_distributed
    from jaxtheory.sweep.space import SpaceError, parse_axis

    try:
        init_distributed(a.coordinator, a.num_processes, a.process_id, auto=a.distributed)
    except ValueError as e:
        return _err(str(e))

    try:
        exp = get_experiment(a.name)
        exp.preset(a.preset)
    except KeyError as e:
        return _err(e.args[0])
    overrides = {}
    try:
        for text in a.sets:
            name, ax = parse_axis(text)
            if name in overrides:
                raise SpaceError(f"--set {name} is given twice")
            overrides[name] = ax
        if a.chunk is not None and a.chunk < 1:
            raise SpaceError(f"--chunk must be a positive integer, got {a.chunk}")
        devices = a.devices if a.devices == "all" else int(a.devices)
        result = exp.sweep(a.preset, out=a.out, overrides=overrides, chunk=a.chunk,
                           devices=devices, quiet=a.quiet)
    except (SpaceError, ValueError) as e:
        return _err(str(e))
    print(result.run_dir)
    if (a.check or a.strict) and result.failed:
        print(f"jaxtheory: claims failed: {', '.join(result.failed)}", file=sys.stderr)
        return 1
    if a.strict and result.inconclusive:
        print(f"jaxtheory: claims inconclusive: {', '.join(result.inconclusive)}", file=sys.stderr)
        return 1
    return 0


def _cmd_show(a) -> int:
    from jaxtheory.report import summarize

    try:
        print(summarize(a.run_dir))
    except FileNotFoundError as e:
        return _err(str(e))
    return 0


def _cmd_report(a) -> int:
    from jaxtheory.plots import EmptyFigureError
    from jaxtheory.report import write_figures

    try:
        paths = write_figures(a.run_dir)
    except (FileNotFoundError, LookupError, EmptyFigureError) as e:
        return _err(str(e))
    for p in paths:
        print(p)
    return 0


def _cmd_docs(a) -> int:
    try:
        from jaxtheory.docs_build import build_docs
    except ImportError as e:  # pragma: no cover - docs extra missing
        return _err(f"docs support is unavailable: {e}")
    try:
        return build_docs(preset=a.preset, out=a.out, runs=a.runs, only=a.only,
                          sphinx=not a.no_sphinx, verdicts=a.verdicts,
                          update_verdicts=a.update_verdicts)
    except KeyError as e:
        return _err(e.args[0])


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``jaxtheory`` command; returns the exit status."""
    a = build_parser().parse_args(argv)
    if a.command == "list":
        return _cmd_list()
    if a.command == "run":
        return _cmd_run(a)
    if a.command == "show":
        return _cmd_show(a)
    if a.command == "report":
        return _cmd_report(a)
    if a.command == "docs":
        return _cmd_docs(a)
    return _err(f"unknown command {a.command!r}")  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
