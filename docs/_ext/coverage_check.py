"""Sphinx extension: fail the build on a public symbol without a docstring.

As optax's ``docs/ext/coverage_check.py``, but at build time and over docstrings too.
A public symbol is a name in the ``__all__`` of a module whose dotted path has no
component starting with ``_`` (see :func:`jaxtheory.report.api.public_api`). The
build warns (an error under ``-W``), once per offender, when:

* a public module or symbol has no docstring (data needs a ``#:`` comment or a string
  after its assignment);
* a module fails to import, or its ``__all__`` names something it lacks;
* a public symbol did not make it into the API reference.
"""

from __future__ import annotations

from sphinx.util import logging

from apigen import get_api

logger = logging.getLogger(__name__)


def check_docstrings(app) -> None:
    """Warn for every public module or symbol without a docstring."""
    api = get_api(app)
    for m, err in sorted(api.errors.items()):
        logger.warning("coverage: %s: %s", m, err, type="jaxtheory", subtype="coverage")
    for m, doc in api.modules.items():
        if doc is None:
            logger.warning(
                "coverage: public module %s has no docstring", m, type="jaxtheory", subtype="coverage"
            )
    for s in api.symbols:
        if s.doc is None:
            logger.warning(
                "coverage: public %s %s has no docstring",
                s.kind,
                s.path,
                type="jaxtheory",
                subtype="coverage",
            )


def check_documented(app, env) -> None:
    """Warn for every public symbol that the API reference does not document."""
    objects = env.get_domain("py").objects
    for s in get_api(app).symbols:
        if s.path not in objects:
            logger.warning(
                "coverage: public %s %s is not in the API reference",
                s.kind,
                s.path,
                type="jaxtheory",
                subtype="coverage",
            )
    for m in get_api(app).modules:
        if m not in objects:
            logger.warning(
                "coverage: public module %s is not in the API reference",
                m,
                type="jaxtheory",
                subtype="coverage",
            )


def setup(app):
    """Register the checks (after ``apigen``)."""
    app.setup_extension("apigen")
    app.connect("builder-inited", check_docstrings)
    app.connect("env-check-consistency", check_documented)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
