"""The registry of experiments: every module in ``sweeps/`` exposing ``EXPERIMENT``."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from jaxtheory.experiment import Experiment

__all__ = ["experiments", "get_experiment", "import_errors"]

_ERRORS: dict[str, str] = {}


@cache
def experiments() -> dict[str, Experiment]:
    """All registered experiments by name, discovered from the ``sweeps`` package.

    Raises:
        RuntimeError: when two modules register the same name.
    """
    import sweeps

    found: dict[str, Experiment] = {}
    for info in sorted(pkgutil.iter_modules(sweeps.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        try:
            mod = importlib.import_module(f"sweeps.{info.name}")
        except Exception as e:  # noqa: BLE001 - one broken module must not hide the rest
            _ERRORS[info.name] = f"{type(e).__name__}: {e}"
            continue
        exp = getattr(mod, "EXPERIMENT", None)
        if not isinstance(exp, Experiment):
            continue
        if exp.name in found:
            raise RuntimeError(f"experiment name {exp.name!r} is registered twice (sweeps.{info.name})")
        found[exp.name] = exp
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
    """Modules of ``sweeps`` that failed to import, with their errors."""
    experiments()
    return dict(_ERRORS)
