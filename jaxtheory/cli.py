"""The ``jaxtheory`` command: list, run, show and report experiments.

Examples::

    jaxtheory list
    jaxtheory run noisy-quadratic --preset smoke --set lr='log(0.01,1,8)' --set seeds=4
    jaxtheory show runs/noisy-quadratic/smoke-<hash>
    jaxtheory run noisy-quadratic --coordinator host0:1234 --num-processes 2 --process-id 0
    jaxtheory report runs/noisy-quadratic/smoke-<hash>
    jaxtheory judge runs/noisy-quadratic/smoke-<hash>     # claims and figures again, no lane
    jaxtheory new lms-averaging && jaxtheory run ./lms_averaging.py --preset smoke

Exit status: 0 on success, 1 when a run fails (an exception inside the simulator or
the engine: a short message with the failing module and line; set
``JAXTHEORY_TRACEBACK=1`` for the whole traceback) or ``run --check`` finds a failed
claim (``--strict``: a failed or inconclusive one), 2 for bad input (unknown experiment
or preset, a malformed ``--set``, a missing run directory).

``run`` and ``docs build`` keep compiled programs in JAX's persistent compilation cache
(:mod:`jaxtheory.compile_cache`): ``--cache-dir DIR`` puts it elsewhere, ``--no-cache``
(or ``JAXTHEORY_CACHE=0``) switches it off.
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
import traceback
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``jaxtheory`` command."""
    p = argparse.ArgumentParser(prog="jaxtheory", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    cache = argparse.ArgumentParser(add_help=False)
    cg = cache.add_argument_group("compilation cache")
    cx = cg.add_mutually_exclusive_group()
    cx.add_argument(
        "--cache-dir",
        default=None,
        metavar="DIR",
        help="persistent compilation cache directory (default: $JAXTHEORY_CACHE_DIR "
        "or ~/.cache/jaxtheory/jax)",
    )
    cx.add_argument(
        "--no-cache", action="store_true", help="do not read or write the persistent compilation cache"
    )

    sub.add_parser("list", help="registered experiments, their papers and presets")

    r = sub.add_parser("run", help="run an experiment preset; prints the run directory", parents=[cache])
    r.add_argument(
        "name",
        help="experiment: a registered name (see `jaxtheory list`), a file path/to/experiment.py, or module:ATTR",
    )
    r.add_argument("--preset", default=None, help="preset name (default: the experiment's, usually smoke)")
    r.add_argument("--out", default="runs", help="root directory of runs (default: runs)")
    r.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="AXIS=VALUES",
        help="replace or add an axis: lr=0.1,0.01 | lr='log(1e-4,1e-1,16)' | "
        "opt=adam,sgd | seeds=8 (repeatable)",
    )
    r.add_argument("--chunk", type=int, default=None, help="lanes per chunk (default: fit memory)")
    r.add_argument("--devices", default="all", help="'all' or a number of devices")
    r.add_argument(
        "--coordinator",
        default=None,
        metavar="HOST:PORT",
        help="join a multi-process run (jax.distributed) through this coordinator",
    )
    r.add_argument("--num-processes", type=int, default=None, help="processes in the run")
    r.add_argument("--process-id", type=int, default=None, help="this process's index")
    r.add_argument(
        "--distributed",
        action="store_true",
        help="join a multi-process run that JAX detects (SLURM, Cloud TPU)",
    )
    r.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    r.add_argument(
        "--check", action="store_true", help="exit 1 when a claim fails or errors (its measurement raised)"
    )
    r.add_argument("--strict", action="store_true", help="exit 1 when a claim fails or is inconclusive")

    s = sub.add_parser("show", help="code, space, devices, timings, lane statuses and claims of a run")
    s.add_argument("run_dir")

    rep = sub.add_parser("report", help="draw the experiment's figures (PNG and SVG) next to the results")
    rep.add_argument("run_dir")

    jd = sub.add_parser(
        "judge",
        help="evaluate a stored run's claims again and redraw its figures, computing no lane",
    )
    jd.add_argument("run_dir")
    jd.add_argument("--no-figures", action="store_true", help="rewrite claims.json only")

    nw = sub.add_parser("new", help="write a minimal experiment and its simulator that run as they are")
    nw.add_argument("name", help="experiment name (kebab-case); the files are NAME.py and NAME_sim.py")
    nw.add_argument("--dir", default=".", help="directory to write into (default: the current one)")
    nw.add_argument("--force", action="store_true", help="overwrite existing files")

    sn = sub.add_parser(
        "snapshot",
        help="run (or reuse) a preset and compare its verdicts with tests/verdicts/NAME.PRESET.json",
        parents=[cache],
    )
    sn.add_argument("name", help="experiment name (see `jaxtheory list`)")
    sn.add_argument("--preset", default="smoke", help="preset (default: smoke)")
    sn.add_argument("--runs", default="runs", help="root directory of runs to reuse or write")
    sn.add_argument("--dir", default="tests/verdicts", help="snapshot directory (default: tests/verdicts)")
    sn.add_argument(
        "--update",
        action="store_true",
        help="write the snapshot (and, for a preset other than smoke, its claims with their "
        "intervals, NAME.PRESET.claims.json, which the experiment's page shows) instead of comparing",
    )

    d = sub.add_parser("docs", help="generated documentation")
    dsub = d.add_subparsers(dest="docs_command", required=True, metavar="ACTION")
    db = dsub.add_parser(
        "build", help="run (or reuse) every experiment's preset, write pages, build the site", parents=[cache]
    )
    db.add_argument("--preset", default="smoke")
    db.add_argument("--out", default="docs/_build/html", help="HTML output directory")
    db.add_argument("--runs", default="runs", help="root directory of runs to reuse or write")
    db.add_argument(
        "--only", action="append", default=None, metavar="NAME", help="only these experiments (repeatable)"
    )
    db.add_argument("--no-sphinx", action="store_true", help="write the generated pages only")
    db.add_argument(
        "--verdicts",
        default=None,
        metavar="DIR",
        help="compare every experiment's verdicts with the snapshots in DIR "
        "(tests/verdicts); a difference fails the build",
    )
    db.add_argument(
        "--update-verdicts",
        action="store_true",
        help="rewrite the snapshots in --verdicts DIR instead of comparing",
    )
    _add_plan_parser(sub)
    return p


def _err(msg: str) -> int:
    print(f"jaxtheory: error: {msg}", file=sys.stderr)
    return 2


def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return tuple(
        str(Path(paths[k]).resolve()) for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths
    )


def _failing_frame(exc: BaseException) -> tuple[str, int, str, str] | None:
    """(file, line, function, module) of the innermost frame outside installed libraries.

    That is the simulator's (or the experiment's, or jaxtheory's) line that raised or
    called into JAX; the innermost frame of all when every frame is a library's.
    """
    frames = list(traceback.walk_tb(exc.__traceback__))
    if not frames:
        return None
    libs = _library_dirs()
    own = [f for f in frames if not str(Path(f[0].f_code.co_filename).resolve()).startswith(libs)]
    frame, line = (own or frames)[-1]
    return frame.f_code.co_filename, line, frame.f_code.co_name, frame.f_globals.get("__name__", "?")


def _run_error(exc: BaseException) -> int:
    """Report an exception raised while running: exit status 1, no usage text."""
    if os.environ.get("JAXTHEORY_TRACEBACK", "").strip() not in ("", "0"):
        traceback.print_exception(exc)
    where = _failing_frame(exc)
    loc = ""
    if where is not None:
        path, line, func, module = where
        try:
            path = os.path.relpath(path)
        except ValueError:  # another drive (Windows)
            pass
        loc = f" at {path}:{line} in {func} ({module})"
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    print(f"jaxtheory: run failed{loc}: {type(exc).__name__}: {msg}", file=sys.stderr)
    print("jaxtheory: set JAXTHEORY_TRACEBACK=1 for the whole traceback", file=sys.stderr)
    return 1


def _configure_cache(a) -> None:
    """Apply ``--cache-dir`` / ``--no-cache`` (else the default: on, see compile_cache)."""
    from jaxtheory import compile_cache

    if a.no_cache:
        compile_cache.disable_compile_cache()
    else:
        compile_cache.enable_compile_cache(a.cache_dir)


def _cmd_list() -> int:
    from jaxtheory.registry import experiments, import_errors
    from jaxtheory.sweep.plan import describe_preset

    exps = experiments()
    for name, e in sorted(exps.items()):
        arx = f" (arXiv {e.paper.arxiv})" if e.paper.arxiv else ""
        where = "" if e.origin.startswith("sweeps.") else f"  [{e.origin}]"
        print(f"{name}{where}")
        print(f"  paper:   {e.paper.title}{arx}")
        for pn, pr in e.presets.items():
            print(f"  preset:  {pn:<6} {pr.space!r}  {describe_preset(e, pn)}")
    for mod, err in sorted(import_errors().items()):
        what = mod if mod.startswith("entry point") else f"sweeps.{mod}"
        print(f"({what} failed to import: {err})", file=sys.stderr)
    return 0


def _experiment(a):
    """The experiment ``a.name`` (a name, a file or ``module:ATTR``) after checking it has
    ``a.preset``; an exit status when not."""
    from jaxtheory.registry import load_experiment

    try:
        exp = load_experiment(a.name)
        exp.preset(a.preset)
    except KeyError as e:
        return _err(e.args[0])
    except Exception as e:  # noqa: BLE001 - the user's file or module failed to import
        return _run_error(e)
    return exp


def _cmd_run(a) -> int:
    from jaxtheory.sweep.mesh import init_distributed, select_devices
    from jaxtheory.sweep.space import SpaceError, parse_axis

    try:
        init_distributed(a.coordinator, a.num_processes, a.process_id, auto=a.distributed)
    except ValueError as e:
        return _err(str(e))
    _configure_cache(a)

    exp = _experiment(a)
    if isinstance(exp, int):
        return exp
    overrides = {}
    try:
        for text in a.sets:
            name, ax = parse_axis(text)
            if name in overrides:
                raise SpaceError(f"--set {name} is given twice")
            overrides[name] = ax
        if a.chunk is not None and a.chunk < 1:
            raise SpaceError(f"--chunk must be a positive integer, got {a.chunk}")
        select_devices(a.devices)  # a bad --devices is bad input, found before anything runs
        spec, params, space = exp.resolve(a.preset, overrides)  # so is an override the
        space.bind(spec, params)  # preset cannot take, or an axis the run does not read
    except (SpaceError, ValueError) as e:
        return _err(str(e))
    devices = a.devices if a.devices == "all" else int(a.devices)
    try:
        result = exp.sweep(
            a.preset, out=a.out, overrides=overrides, chunk=a.chunk, devices=devices, quiet=a.quiet
        )
    except SpaceError as e:  # raised before anything compiles: the space does not fit the run
        return _err(str(e))
    except Exception as e:  # noqa: BLE001 - the simulator (or the engine) failed
        return _run_error(e)
    print(result.run_dir)
    if (a.check or a.strict) and result.errors:
        for c in result.claims:
            if c.verdict == "error":
                print(f"jaxtheory: claim {c.name} could not be measured: {c.error}", file=sys.stderr)
    if (a.check or a.strict) and result.failed:
        print(f"jaxtheory: claims failed: {', '.join(result.failed)}", file=sys.stderr)
    if (a.check or a.strict) and (result.failed or result.errors):
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


def _cmd_judge(a) -> int:
    from jaxtheory.plots import EmptyFigureError
    from jaxtheory.registry import experiment_of_run
    from jaxtheory.report import write_figures
    from jaxtheory.sweep import store

    run_dir = Path(a.run_dir)
    if not (run_dir / "manifest.json").exists() or not (run_dir / "results.nc").exists():
        return _err(f"{run_dir} is not a finished run directory (no manifest.json and results.nc)")
    manifest = store.read_json(run_dir / "manifest.json")
    try:
        exp = experiment_of_run(manifest)
    except Exception as e:  # noqa: BLE001 - its file or module fails to import
        return _run_error(e)
    if exp is None:
        return _err(
            f"{run_dir}: its experiment {manifest.get('experiment')!r} cannot be loaded "
            f"(origin {manifest.get('origin')!r})"
        )
    if manifest.get("fingerprint") != exp.provenance()["fingerprint"]:
        print(
            "jaxtheory: note: the simulation code changed since this run; its stored results are "
            "judged as they are (`jaxtheory run` would compute them again)",
            file=sys.stderr,
        )
    run = exp.judge(run_dir)
    for c in run.claims:
        if c.verdict == "error":
            print(f"jaxtheory: claim {c.name} could not be measured: {c.error}", file=sys.stderr)
    if not a.no_figures and exp.figures:
        try:
            for p in write_figures(run_dir):
                print(p)
        except EmptyFigureError as e:
            return _err(str(e))
    print(run_dir / "claims.json")
    return 0


def _cmd_new(a) -> int:
    from jaxtheory.scaffold import write_experiment

    try:
        paths = write_experiment(a.name, a.dir, force=a.force)
    except (ValueError, FileExistsError) as e:
        return _err(str(e))
    for p in paths:
        print(p)
    return 0


def _cmd_snapshot(a) -> int:
    from jaxtheory.report import verdicts as vsnap

    _configure_cache(a)
    exp = _experiment(a)
    if isinstance(exp, int):
        return exp
    try:
        run = exp.sweep(a.preset, out=a.runs)
    except Exception as e:  # noqa: BLE001 - the simulator (or the engine) failed
        return _run_error(e)
    fresh = vsnap.verdicts_of(run.claims)
    path = vsnap.snapshot_path(a.dir, exp.name, a.preset)
    errors = [c for c in run.claims if c.verdict == "error"]
    for c in errors:
        print(f"jaxtheory: claim {c.name} could not be measured: {c.error}", file=sys.stderr)
    if a.update:
        if errors:
            return _err("no snapshot is written while a claim is an error: fix its measurement first")
        vsnap.write_snapshot(path, fresh)
        print(path)
        if a.preset != "smoke":
            rec = vsnap.claims_record_path(a.dir, exp.name, a.preset)
            vsnap.write_claims_record(rec, run)
            print(rec)
        return 0
    snap = vsnap.read_snapshot(path)
    if snap is None:
        return _err(f"no snapshot {path}; record one with --update")
    diff = vsnap.compare(fresh, snap)
    for line in diff:
        print(f"{exp.name}/{a.preset}: {line}")
    return 1 if diff or errors else 0


def _cmd_docs(a) -> int:
    try:
        from jaxtheory.docs_build import build_docs
    except ImportError as e:  # pragma: no cover - docs extra missing
        return _err(f"docs support is unavailable: {e}")
    _configure_cache(a)
    try:
        return build_docs(
            preset=a.preset,
            out=a.out,
            runs=a.runs,
            only=a.only,
            sphinx=not a.no_sphinx,
            verdicts=a.verdicts,
            update_verdicts=a.update_verdicts,
        )
    except KeyError as e:
        return _err(e.args[0])


def _add_plan_parser(sub) -> None:
    """The ``plan`` subcommand: lanes, chunks, compiled cost and memory, a projection."""
    pl = sub.add_parser(
        "plan",
        help="plan a preset without running it: lanes, chunks, XLA cost and memory of one "
        "compiled chunk, results size, and a roofline projection on a device",
    )
    pl.add_argument("name", nargs="?", default=None, help="experiment name (or --all)")
    pl.add_argument("--all", action="store_true", help="plan every registered experiment")
    pl.add_argument("--preset", default="full", help="preset (default: full)")
    pl.add_argument(
        "--device",
        default="h200",
        help="device kind to project onto: h200, h100, a100, v5e, v6e, or cpu (this machine, "
        "measured) (default: h200)",
    )
    pl.add_argument("--chunk", type=int, default=None, help="lanes per chunk (default: the preset's)")
    pl.add_argument(
        "--measure", action="store_true", help="also time one chunk here and print it against its projection"
    )
    pl.add_argument("--json", action="store_true", help="print the plan as JSON")
    pl.add_argument(
        "--no-compile",
        action="store_true",
        help="trace only: memory from a live-value estimate, no XLA cost analysis",
    )
    pl.add_argument(
        "--record",
        action="store_true",
        help="write the plan into sweeps/_plans.json (the planned line shown beside the preset)",
    )


def _cmd_plan(a) -> int:
    import json

    from jaxtheory.registry import experiments
    from jaxtheory.sweep import plan as planning

    if a.all == (a.name is not None):
        return _err("plan takes an experiment NAME or --all")
    if a.chunk is not None and (a.chunk < 1 or a.record):
        return _err("--chunk must be a positive integer, and a recorded plan uses the preset's chunk")
    try:
        dev = planning.device_spec(a.device)
    except KeyError as e:
        return _err(e.args[0])
    names = sorted(experiments()) if a.all else [a.name]
    status, reports = 0, []
    for name in names:
        exp = _experiment(argparse.Namespace(name=name, preset=a.preset))
        if isinstance(exp, int):
            if a.all:  # an experiment without this preset
                continue
            return exp
        try:
            rep = planning.plan_experiment(
                exp, a.preset, device=dev, measure=a.measure, compile=not a.no_compile, chunk=a.chunk
            )
        except Exception as e:  # noqa: BLE001 - the simulator does not trace or compile
            status = 1
            print(f"jaxtheory: plan of {name}/{a.preset} failed: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        if a.record:
            planning.record_plan(rep)
        if rep.fits is False:
            status = 1
            print(
                f"jaxtheory: {name}/{a.preset}: a chunk of {rep.chunk} lanes does not fit {dev.name}",
                file=sys.stderr,
            )
        if a.json:
            reports.append(rep.to_json())
        else:
            print(rep.table() + ("\n" if len(names) > 1 else ""), flush=True)
    if a.json:
        print(json.dumps(reports[0] if not a.all and reports else reports, indent=2))
    return status


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
    if a.command == "snapshot":
        return _cmd_snapshot(a)
    if a.command == "judge":
        return _cmd_judge(a)
    if a.command == "new":
        return _cmd_new(a)
    if a.command == "docs":
        return _cmd_docs(a)
    if a.command == "plan":
        return _cmd_plan(a)
    return _err(f"unknown command {a.command!r}")  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
