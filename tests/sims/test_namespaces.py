"""Simulator subpackages: one ``run`` per namespace, no star-export collisions."""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import jaxtheory.sims

PACKAGES = sorted(m.name for m in pkgutil.iter_modules(jaxtheory.sims.__path__) if m.ispkg)


def _star_sources(pkg: str) -> list[str]:
    init = Path(jaxtheory.sims.__path__[0]) / pkg / "__init__.py"
    return re.findall(r"^from (jaxtheory\.sims\.[\w.]+) import \*", init.read_text(), flags=re.M)


@pytest.mark.parametrize("pkg", PACKAGES)
def test_star_exports_do_not_collide(pkg):
    """A name star-exported by two submodules must be the same object (else the last import wins)."""
    seen: dict[str, tuple[str, object]] = {}
    for src in _star_sources(pkg):
        mod = importlib.import_module(src)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if name in seen:
                assert seen[name][1] is obj, f"{pkg}: {name!r} exported by {seen[name][0]} and {src}"
            seen[name] = (src, obj)


def test_gp_bandits_run_is_the_runner():
    from jaxtheory.sims import gp_bandits

    assert gp_bandits.run is gp_bandits.runner.run
    assert gp_bandits.feedback.run is not gp_bandits.run
    for name in gp_bandits.feedback.__all__:
        if name != "run":
            assert getattr(gp_bandits, name) is getattr(gp_bandits.feedback, name)
