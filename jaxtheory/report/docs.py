"""Former home of the documentation tools, kept so that existing imports keep working.

They now live in three places: the public-API listing in :mod:`jaxtheory.report.api`,
the rendering of experiment pages from stored runs in :mod:`jaxtheory.report.pages`,
and running (or reusing) the experiments and building the site in
:mod:`jaxtheory.docs_build` (``report`` reads stored results; it never runs a
simulation). ``from jaxtheory.report.docs import build_docs`` and the like still work:
each old name is looked up in its new module when it is first used.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__: list[str] = []  # everything is documented where it lives now

_MOVED = {
    **dict.fromkeys(
        [
            "PublicSymbol",
            "PublicAPI",
            "public_api",
            "missing_docstrings",
            "_own_doc",
            "_kind",
            "_attr_docs",
            "_auto_class_doc",
            "_exported_names",
            "_is_public_module",
        ],
        "jaxtheory.report.api",
    ),
    **dict.fromkeys(
        [
            "ExperimentPage",
            "RunRecord",
            "GENERATED_DIR",
            "LONG_CELL",
            "_render_page",
            "_render_index",
            "_claims_table",
            "_cells_text",
            "_fmt_value",
            "_md_cell",
            "_code",
            "_fence",
            "_space_rows",
            "_draw_each_figure",
        ],
        "jaxtheory.report.pages",
    ),
    **dict.fromkeys(
        ["write_experiment_pages", "build_docs", "docs_source_dir", "_run_sphinx", "run_or_reuse"],
        "jaxtheory.docs_build",
    ),
}


def __getattr__(name: str) -> Any:
    where = _MOVED.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(where), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_MOVED])
