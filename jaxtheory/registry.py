"""The registry of experiments, and loading one from anywhere.

Experiments come from three places:

* the built-in ones: every module of the ``sweeps`` package exposing ``EXPERIMENT``;
* installed packages, through the entry-point group ``jaxtheory.experiments``: an entry
  point names an :class:`~jaxtheory.Experiment`, a module exposing ``EXPERIMENT``, or a
  list of experiments. In a package's ``pyproject.toml``::

      [project.entry-points."jaxtheory.experiments"]
      lms-averaging = "my_package.lms:EXPERIMENT"

* a reference given on the command line (:func:`load_experiment`): a registered name,
  a file (``path/to/my_experiment.py``, or ``path.py:ATTR``), or ``module:ATTR``.

Every run records where its experiment came from (``origin`` in ``manifest.json``), so
``jaxtheory show``, ``report`` and ``judge`` load it again from there
(:func:`experiment_of_run`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jaxtheory.experiment import Experiment

__all__ = [
    "ENTRY_POINT_GROUP",
    "experiments",
    "get_experiment",
    "import_errors",
    "load_experiment",
    "experiment_of_run",
]

#: The entry-point group through which installed packages register experiments.
ENTRY_POINT_GROUP = "jaxtheory.experiments"

_ERRORS: dict[str, str] = {}


def _experiments_in(obj: Any, where: str) -> list[Experiment]:
    """The experiments an entry point or attribute names."""
    if isinstance(obj, Experiment):
        return [obj]
    if hasattr(obj, "EXPERIMENT"):
        return _experiments_in(obj.EXPERIMENT, where)
    if isinstance(obj, (list, tuple)) and all(isinstance(e, Experiment) for e in obj):
        return list(obj)
    raise TypeError(
        f"{where} is {type(obj).__name__}, not an Experiment, a module with EXPERIMENT, or a list"
    )


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    return sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda ep: ep.name)


@cache
def experiments() -> dict[str, Experiment]:
    """All registered experiments by name: the ``sweeps`` package and the entry points.

    A module or entry point that fails to load is listed by :func:`import_errors`
    instead of hiding the others.

    Raises:
        RuntimeError: when two modules register the same name.
    """
    import sweeps

    found: dict[str, Experiment] = {}
    where: dict[str, str] = {}

    def add(exp: Experiment, src: str) -> None:
        if exp.name in found:
            raise RuntimeError(
                f"experiment name {exp.name!r} is registered twice ({where[exp.name]} and {src})"
            )
        found[exp.name] = exp
        where[exp.name] = src

    for info in sorted(pkgutil.iter_modules(sweeps.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"sweeps.{info.name}")
        except Exception as e:  # noqa: BLE001 - one broken module must not hide the rest
            _ERRORS[info.name] = f"{type(e).__name__}: {e}"
            continue
        exp = getattr(mod, "EXPERIMENT", None)
        if isinstance(exp, Experiment):
            add(exp, f"sweeps.{info.name}")
    for ep in _entry_points():
        src = f"entry point {ep.name} ({ep.value})"
        try:
            exps = _experiments_in(ep.load(), src)
        except Exception as e:  # noqa: BLE001 - an installed package's error stays its own
            _ERRORS[f"entry point {ep.name}"] = f"{type(e).__name__}: {e}"
            continue
        for exp in exps:
            add(exp, src)
    return found


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``.

    Raises:
        KeyError: naming the registered experiments, when ``name`` is unknown.
    """
    exps = experiments()
    if name not in exps:
        known = ", ".join(sorted(exps)) or "(none)"
        raise KeyError(f"no experiment named {name!r}; registered: {known}")
    return exps[name]


def import_errors() -> dict[str, str]:
    """Modules of ``sweeps`` (and entry points) that failed to load, with their errors."""
    experiments()
    return dict(_ERRORS)


def _import_file(path: Path) -> Any:
    """Import a Python file as a module, as ``python path`` would: its directory goes on
    ``sys.path`` so that the modules beside it (its simulator) import by name."""
    name = path.stem if path.stem.isidentifier() else "_"
    have = sys.modules.get(name)
    if have is not None:
        if getattr(have, "__file__", None) and Path(have.__file__).resolve() == path:
            return have
        if not name.startswith("_jaxtheory_file_"):  # the name is taken by another module
            name = f"_jaxtheory_file_{hashlib.blake2b(str(path).encode(), digest_size=4).hexdigest()}"
            if name in sys.modules:
                return sys.modules[name]
    folder = str(path.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return mod


def _split_attr(ref: str) -> tuple[str, str | None]:
    head, sep, attr = ref.rpartition(":")
    if sep and attr.isidentifier() and head and not (len(head) == 1 and head.isalpha()):  # not "C:\..."
        return head, attr
    return ref, None


def load_experiment(ref: str) -> Experiment:
    """The experiment ``ref`` names: a registered name, a file, or ``module:ATTR``.

    Args:
        ref: ``"noisy-quadratic"`` (registered, see :func:`experiments`);
            ``"path/to/my_experiment.py"`` or ``"path.py:ATTR"`` (a file; ``ATTR``
            defaults to ``EXPERIMENT``); ``"my.module:EXPERIMENT"`` or ``"my.module"``
            (an importable module).

    Returns:
        The :class:`~jaxtheory.Experiment`, its ``origin`` set so that a run of it can
        be loaded again (the file's absolute path, or ``module:ATTR``).

    Raises:
        KeyError: for a name that is neither registered nor a file or module.
        ImportError, TypeError: when the file or module does not load or names no
            experiment (with the error of the import).
    """
    target, attr = _split_attr(ref)
    is_file = target.endswith(".py") or os.sep in target or (os.altsep and os.altsep in target)
    if is_file:
        path = Path(target).expanduser().resolve()
        if not path.is_file():
            raise KeyError(f"no experiment file {target!r} (from {os.getcwd()})")
        mod = _import_file(path)
        exp = _experiments_in(getattr(mod, attr) if attr else mod, str(path))
        if len(exp) != 1:
            raise TypeError(f"{path} defines {len(exp)} experiments; name one with {target}:ATTR")
        origin = str(path) + (f":{attr}" if attr and attr != "EXPERIMENT" else "")
        object.__setattr__(exp[0], "origin", origin)
        return exp[0]
    if attr is None:
        exps = experiments()
        if ref in exps:
            return exps[ref]
        dotted = all(part.isidentifier() for part in ref.split("."))
        if not dotted or importlib.util.find_spec(ref.partition(".")[0]) is None:
            known = ", ".join(sorted(exps)) or "(none)"
            raise KeyError(
                f"no experiment named {ref!r}; registered: {known} "
                "(or give a file, path/to/experiment.py, or module:ATTR)"
            )
    mod = importlib.import_module(target)
    obj = getattr(mod, attr) if attr else mod
    found = _experiments_in(obj, ref)
    if len(found) != 1:
        raise TypeError(f"{ref} holds {len(found)} experiments; name one with module:ATTR")
    exp = found[0]
    if not exp.origin:
        object.__setattr__(exp, "origin", f"{target}:{attr or 'EXPERIMENT'}")
    return exp


def experiment_of_run(manifest: Mapping[str, Any]) -> Experiment | None:
    """The experiment a stored run was made by, loaded from where the run says it came from.

    Tries the run's ``origin`` (a file or ``module:ATTR``), then its registered name;
    ``None`` when neither loads (the run's experiment was deleted, say).
    """
    name = manifest.get("experiment")
    origin = manifest.get("origin")
    if name:
        exp = experiments().get(name)
        if exp is not None and (not origin or exp.origin == origin):
            return exp
    if origin:
        try:
            exp = load_experiment(origin)
        except Exception:  # noqa: BLE001 - moved or broken: fall back to the name
            exp = None
        if exp is not None and (not name or exp.name == name):
            return exp
    if name:
        return experiments().get(name)
    return None
