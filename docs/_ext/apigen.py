"""Sphinx extension: API reference pages from every public module's ``__all__``.

On ``builder-inited`` it lists the public API with
:func:`jaxtheory.report.api.public_api` and writes one page per area into
``api/_generated/`` (git-ignored; rewritten only when its text changes): ``jaxtheory``,
``jaxtheory.sweep`` with its submodules, ``jaxtheory.optim``, ``jaxtheory.oracles``,
one per ``jaxtheory.sims.<family>``, ``jaxtheory.report``, and so on. Each symbol is
documented once, at the shallowest public module exporting it; a new module or a new
name in an ``__all__`` shows up with no edit here.
"""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

from jaxtheory.report.api import PublicAPI, PublicSymbol, public_api

OUT = Path("api") / "_generated"


def get_api(app) -> PublicAPI:
    """The public API, computed once per Sphinx run."""
    api = getattr(app, "_jaxtheory_api", None)
    if api is None:
        api = public_api("jaxtheory")
        app._jaxtheory_api = api
    return api


def area_of(module: str) -> str:
    """The page a module is documented on: ``jaxtheory.<x>`` or ``jaxtheory.sims.<x>``."""
    parts = module.split(".")
    depth = 3 if parts[:2] == ["jaxtheory", "sims"] else 2
    return ".".join(parts[:depth])


def _heading(text: str, ch: str, over: bool = False) -> list[str]:
    line = ch * len(text)
    return ([line] if over else []) + [text, line, ""]


def _value_repr(obj) -> str | None:
    try:
        r = repr(obj)
    except Exception:  # noqa: BLE001
        return None
    if "\n" in r or len(r) > 90:
        return None
    return r


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    para = []
    for line in inspect.cleandoc(doc).splitlines():
        if not line.strip():
            break
        para.append(line.strip())
    return " ".join(para)


def _summary_table(syms: list[PublicSymbol]) -> list[str]:
    """A two-column table: linked name, first paragraph of the docstring."""
    out = [".. list-table::", "   :widths: 30 70", "   :class: jaxtheory-summary", ""]
    for s in syms:
        role = {"data": "data", "class": "class", "exception": "exc"}.get(s.kind, "func")
        out += [f"   * - :py:{role}:`{s.name}`", f"     - {_first_paragraph(s.doc)}".rstrip()]
    return out + [""]


def _symbol_rst(s: PublicSymbol, obj) -> list[str]:
    if s.kind == "data":
        out = [f".. py:data:: {s.name}"]
        r = _value_repr(obj)
        if r is not None:
            out.append(f"   :value: {r}")
        out.append("")
        if s.doc:
            out += textwrap.indent(s.doc, "   ").splitlines()
            out.append("")
        return out
    directive = {"function": "autofunction", "class": "autoclass", "exception": "autoexception"}[s.kind]
    out = [f".. {directive}:: {s.name}"]
    if s.kind in ("class", "exception"):
        out.append("   :members:")
    if s.kind == "exception":
        out.append("   :show-inheritance:")
    out.append("")
    if s.also:
        also = ", ".join(f"``{a}``" for a in s.also)
        out += [f"   Also importable as {also}.", ""]
    return out


def render_area(area: str, api: PublicAPI) -> str:
    """The reStructuredText of one area page."""
    import importlib

    by_mod = api.by_module()
    mods = [m for m in api.modules if area_of(m) == area]
    mods.sort(key=lambda m: (m != area, m))
    lines = _heading(f"``{area}``", "=", over=True)
    for i, m in enumerate(mods):
        if i:
            lines += _heading(f"``{m}``", "-")
        lines += [f".. automodule:: {m}", "", f".. currentmodule:: {m}", ""]
        syms = by_mod.get(m, [])
        if not syms:
            continue
        if len(syms) > 1:
            lines += _summary_table(syms)
        mod = importlib.import_module(m)
        for s in syms:
            lines += _symbol_rst(s, getattr(mod, s.name))
    return "\n".join(lines).rstrip() + "\n"


def areas(api: PublicAPI) -> list[str]:
    """The API pages, in reading order: the root package, then alphabetically."""
    found = sorted({area_of(m) for m in api.modules})
    return sorted(found, key=lambda a: (a != "jaxtheory", a))


def _write(path: Path, text: str) -> None:
    if path.exists() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def generate(app) -> None:
    """Write ``api/_generated/*.rst`` and its toctree ``api/_generated/toc.md``."""
    api = get_api(app)
    out = Path(app.srcdir) / OUT
    out.mkdir(parents=True, exist_ok=True)
    names = areas(api)
    wanted = {f"{a}.rst" for a in names} | {"toc.md"}
    for old in out.iterdir():
        if old.name not in wanted:
            old.unlink()
    for a in names:
        _write(out / f"{a}.rst", render_area(a, api))
    toc = ["```{toctree}", ":maxdepth: 1", ""] + [f"{OUT.name}/{a}" for a in names] + ["```", ""]
    _write(out / "toc.md", "\n".join(toc))


def _skip_member(app, what, name, obj, skip, options):
    # NamedTuple fields: "Alias for field number N"; their docs are the class's
    # Attributes section already.
    doc = getattr(obj, "__doc__", None) or ""
    if what == "class" and doc.startswith("Alias for field number"):
        return True
    return None


def setup(app):
    """Register the generator."""
    app.connect("builder-inited", generate)
    app.connect("autodoc-skip-member", _skip_member)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
