"""The documentation site: one page per experiment, the public API, and the Sphinx build.

``jaxtheory docs build`` calls :func:`build_docs`: for every registered experiment it
runs the preset (or reuses the stored run), draws the figures, and writes a Markdown
page with the paper, the description, the figures, the claims table with verdicts, the
space, the runtime and devices, and the command that reproduces it. Then it builds the
Sphinx site in ``docs/`` with warnings as errors.

:func:`public_api` lists every public symbol (a name in the ``__all__`` of a module
whose dotted path has no component starting with ``_``); the API reference is generated
from it and the docs build fails on any symbol without a docstring
(:func:`missing_docstrings`).
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import inspect
import json
import os
import pkgutil
import re
import shutil
import sys
import time
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from jaxtheory.claims import VERDICTS, describe_interval, describe_rule

__all__ = [
    "PublicSymbol",
    "PublicAPI",
    "public_api",
    "missing_docstrings",
    "ExperimentPage",
    "write_experiment_pages",
    "build_docs",
    "docs_source_dir",
]

#: A measured value longer than this (characters) is shown below the claims table.
LONG_CELL = 160
#: Where generated experiment pages go, relative to the docs source directory.
GENERATED_DIR = Path("experiments") / "_generated"


# ----------------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PublicSymbol:
    """One public symbol, at the module where the API reference documents it.

    Attributes:
        module: dotted name of the public module that documents it (the shallowest
            public module exporting it).
        name: the exported name.
        kind: ``"function"``, ``"class"``, ``"exception"`` or ``"data"``.
        doc: its docstring (for data: the ``#:`` comment or string after the
            assignment), ``None`` when it has none.
        also: other public paths under which the same object is exported.
    """

    module: str
    name: str
    kind: str
    doc: str | None
    also: tuple[str, ...] = ()

    @property
    def path(self) -> str:
        """The dotted path ``module.name``."""
        return f"{self.module}.{self.name}"


@dataclasses.dataclass
class PublicAPI:
    """The public surface of a package.

    Attributes:
        modules: public modules by dotted name, with their docstrings (``None`` when
            missing).
        symbols: every public symbol once, in module order then ``__all__`` order.
        errors: modules that failed to import, with the error.
    """

    modules: dict[str, str | None]
    symbols: list[PublicSymbol]
    errors: dict[str, str]

    def by_module(self) -> dict[str, list[PublicSymbol]]:
        """Symbols grouped by the module that documents them (every public module)."""
        out: dict[str, list[PublicSymbol]] = {m: [] for m in self.modules}
        for s in self.symbols:
            out[s.module].append(s)
        return out


def _is_public_module(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def _auto_class_doc(cls: type) -> bool:
    """True when ``cls.__doc__`` was made up by ``namedtuple`` or ``dataclass``."""
    doc = cls.__doc__ or ""
    fields = getattr(cls, "_fields", None)
    if isinstance(fields, tuple):
        args = ", ".join(fields)
        if doc in (f"{cls.__name__}({args})", f"{cls.__name__}({args},)"):
            return True
    if dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}("):
        return True
    return False


def _kind(obj: Any) -> str:
    if inspect.isclass(obj):
        return "exception" if issubclass(obj, BaseException) else "class"
    if inspect.isroutine(obj):
        return "function"
    doc = getattr(obj, "__doc__", None)
    if callable(obj) and hasattr(obj, "__wrapped__") and doc and doc != type(obj).__doc__:
        return "function"  # jax.jit / functools.wraps wrappers
    return "data"


def _attr_docs(modname: str) -> dict[str, str]:
    """``#:`` comments and strings after assignments of a module, by name."""
    try:
        from sphinx.pycode import ModuleAnalyzer
    except ImportError:  # pragma: no cover - docs extra missing
        return {}
    try:
        analyzer = ModuleAnalyzer.for_module(modname)
        docs = analyzer.find_attr_docs()
    except Exception:  # noqa: BLE001 - no source, e.g. a compiled module
        return {}
    return {name: "\n".join(lines).strip() for (ns, name), lines in docs.items() if ns == ""}


def _own_doc(obj: Any, kind: str) -> str | None:
    if kind == "data":
        return None
    doc = getattr(obj, "__doc__", None)
    if inspect.isclass(obj) and _auto_class_doc(obj):
        return None
    if not isinstance(doc, str) or not doc.strip():
        return None
    return doc


def _exported_names(mod: Any, private_children: Sequence[Any]) -> list[str]:
    """Names a public module exports: its ``__all__``, or, for a package without one,
    the ``__all__`` of its private submodules plus its own non-underscore definitions."""
    if hasattr(mod, "__all__"):
        return [str(n) for n in mod.__all__]
    names: list[str] = []
    for child in private_children:
        names += [n for n in getattr(child, "__all__", ()) if hasattr(mod, n)]
    for n, v in vars(mod).items():
        if n.startswith("_") or n in names or inspect.ismodule(v):
            continue
        if getattr(v, "__module__", None) == mod.__name__ and (
                inspect.isclass(v) or inspect.isroutine(v)):
            names.append(n)
    return names


def public_api(package: str = "jaxtheory") -> PublicAPI:
    """Import every module of ``package`` and list its public modules and symbols.

    A public module is one whose dotted name has no component starting with ``_``
    (``__main__`` is never imported). Its public symbols are the names in its
    ``__all__`` (submodules listed there count as modules, not symbols). A package
    without ``__all__`` exports what its private submodules' ``__all__`` list, as
    ``jaxtheory.optim`` does with ``from ._family import *``. An object exported by
    several public modules is documented once, at the shallowest one.

    Returns:
        A :class:`PublicAPI`; modules that fail to import are in ``errors``.

    Example:
        >>> api = public_api()
        >>> "jaxtheory.sweep" in api.modules
        True
        >>> [s.module for s in api.symbols if s.name == "Space"]
        ['jaxtheory.sweep']
    """
    errors: dict[str, str] = {}
    root = importlib.import_module(package)
    names = [package]
    if hasattr(root, "__path__"):
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}.",
                                          onerror=lambda n: errors.setdefault(n, "import failed")):
            if info.name.split(".")[-1] == "__main__":
                continue
            names.append(info.name)
    mods: dict[str, Any] = {}
    for n in sorted(set(names)):
        try:
            mods[n] = importlib.import_module(n)
        except Exception as e:  # noqa: BLE001 - reported, never hidden
            errors[n] = f"{type(e).__name__}: {e}"
    public = sorted((n for n in mods if _is_public_module(n)),
                    key=lambda n: (n.count("."), n))
    modules = {n: (mods[n].__doc__ if (mods[n].__doc__ or "").strip() else None) for n in public}

    seen: dict[tuple[int, str], int] = {}
    symbols: list[PublicSymbol] = []
    for n in public:
        mod = mods[n]
        children = [m for c, m in mods.items() if c.rsplit(".", 1)[0] == n
                    and c.rsplit(".", 1)[-1].startswith("_")]
        attr_docs: dict[str, str] | None = None
        for name in _exported_names(mod, children):
            if not hasattr(mod, name):
                errors[f"{n}.{name}"] = f"{n}.__all__ names {name!r}, which the module lacks"
                continue
            obj = getattr(mod, name)
            if inspect.ismodule(obj):
                continue
            kind = _kind(obj)
            key = (id(obj), name)
            if key in seen:
                i = seen[key]
                symbols[i] = dataclasses.replace(symbols[i], also=symbols[i].also + (f"{n}.{name}",))
                continue
            doc = _own_doc(obj, kind)
            if kind == "data":
                if attr_docs is None:
                    attr_docs = _attr_docs(n)
                    # Re-exported data keeps its comment where it is defined.
                    for c in sorted(mods, key=lambda c: -c.count(".")):
                        if c.startswith(n + "."):
                            attr_docs = {**_attr_docs(c), **attr_docs}
                doc = attr_docs.get(name) or None
            seen[key] = len(symbols)
            symbols.append(PublicSymbol(n, name, kind, doc))
    return PublicAPI(modules, symbols, errors)


def missing_docstrings(api: PublicAPI | None = None) -> list[str]:
    """Public modules and symbols without a docstring, as dotted paths (plus import errors).

    Example:
        >>> missing_docstrings() == [] or all(isinstance(p, str) for p in missing_docstrings())
        True
    """
    api = api or public_api()
    out = [f"{m} (module)" for m, doc in api.modules.items() if doc is None]
    out += [f"{s.path} ({s.kind})" for s in api.symbols if s.doc is None]
    out += [f"{m}: {err}" for m, err in api.errors.items()]
    return out


# ----------------------------------------------------------------------------------
# Experiment pages
# ----------------------------------------------------------------------------------


@dataclasses.dataclass
class ExperimentPage:
    """What :func:`write_experiment_pages` made of one experiment.

    Attributes:
        name: experiment name.
        path: the Markdown page written.
        ok: whether the run, the claims and every figure succeeded.
        claims_passed: claims that passed.
        claims_total: claims evaluated.
        verdicts: how many claims have each verdict.
        errors: what went wrong in the run or a figure (empty when ``ok``).
        run_dir: the run directory used.
        empty_figures: figures that drew no data (:func:`jaxtheory.plots.check_drawn`);
            any of them fails :func:`build_docs`.
    """

    name: str
    path: Path
    ok: bool
    claims_passed: int = 0
    claims_total: int = 0
    verdicts: dict = dataclasses.field(default_factory=dict)
    errors: list[str] = dataclasses.field(default_factory=list)
    run_dir: Path | None = None
    empty_figures: list[str] = dataclasses.field(default_factory=list)


def docs_source_dir() -> Path:
    """The ``docs/`` directory of the source checkout this package runs from.

    Raises:
        FileNotFoundError: when the package is not run from a source checkout.
    """
    d = Path(__file__).resolve().parents[2] / "docs"
    if not (d / "conf.py").exists():
        raise FileNotFoundError(f"no docs/conf.py at {d}: `jaxtheory docs build` needs a "
                                "source checkout of jaxtheory")
    return d


def _write_if_changed(path: Path, text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


_VERDICT_MARK = {"pass": "✔ pass", "fail": "✘ FAIL", "inconclusive": "? inconclusive",
                 "not-applicable": "– n/a"}


def _verdict(c: dict) -> str:
    return c.get("verdict") or ("pass" if c.get("passed") else "fail")


def _claims_table(claims: list[dict], exp_name: str, details: list[dict]) -> list[str]:
    """The claims as an HTML table: name, verdict, measured, interval, expected, source on
    one row and the statement on the row beneath (so the verdict never scrolls away)."""
    rows = ['<table class="claims">',
            "<thead><tr><th>Claim</th><th>Verdict</th><th>Measured</th><th>95% interval</th>"
            "<th>Expected</th><th>Source</th></tr></thead>", "<tbody>"]
    for c in claims:
        v = _verdict(c)
        measured = _fmt_value(c.get("measured"))
        interval = describe_interval(c)
        if c.get("error"):
            measured = f"error: {c['error']}"
        elif c.get("reason"):
            measured = f"not applicable: {c['reason']}"
        elif isinstance(c.get("measured"), dict) or len(measured) > LONG_CELL:
            details.append(c)
            n = len(c["measured"]) if isinstance(c.get("measured"), (dict, list)) else 1
            measured = f'<a href="#measured-{exp_name}-{c["name"]}">{n} cells</a>'
            interval = "per cell"
        else:
            measured = html.escape(measured)
        if c.get("n"):
            interval += f" (n={c['n']})"
        rows.append(f'<tr class="claim-head verdict-{v}"><td><strong>{html.escape(c["name"])}</strong></td>'
                    f'<td class="verdict">{_VERDICT_MARK.get(v, v)}</td><td>{measured}</td>'
                    f"<td>{html.escape(interval)}</td><td>{html.escape(describe_rule(c))}</td>"
                    f"<td>{html.escape(str(c.get('source', '')))}</td></tr>")
        rows.append(f'<tr class="claim-statement"><td colspan="6">{html.escape(c.get("statement", ""), quote=False)}'
                    "</td></tr>")
    rows += ["</tbody>", "</table>", ""]
    return rows


def _cells_text(c: dict) -> str:
    """Per-cell measured value, interval and verdict of a claim, as aligned text."""
    m = c.get("measured")
    if not isinstance(m, dict):
        return _fmt_value(m)
    iv = c.get("interval") if isinstance(c.get("interval"), dict) else {}
    ex = c.get("expected") if isinstance(c.get("expected"), dict) else {}
    cv = c.get("cells") or {}
    width = max((len(str(k)) for k in m), default=0)
    out = []
    for k, v in m.items():
        i = iv.get(k)
        line = f"{str(k):<{width}}  {_fmt_value(v):>12}"
        line += f"  [{_fmt_value(i[0])}, {_fmt_value(i[1])}]" if i else "  exact"
        if k in ex:
            line += f"  expected {_fmt_value(ex[k])}"
        if k in cv:
            line += f"  {cv[k]}"
        out.append(line)
    return "\n".join(out)


def _md_cell(text: Any) -> str:
    """Text safe inside a Markdown pipe-table cell."""
    s = str(text).replace("\r", "").replace("\n", " ").strip()
    return s.replace("|", "\\|") or " "


def _fmt_value(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, float):
        return f"{x:.4g}"
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10_000 else str(x)
    if isinstance(x, dict):
        if any(isinstance(v, dict) for v in x.values()):
            return "; ".join(f"{k}: ({_fmt_value(v)})" if isinstance(v, dict) else
                             f"{k} = {_fmt_value(v)}" for k, v in x.items())
        return ", ".join(f"{k} = {_fmt_value(v)}" for k, v in x.items()) or "{}"
    if isinstance(x, (list, tuple)):
        if len(x) > 8:
            return "[" + ", ".join(_fmt_value(v) for v in x[:3]) + f", … ({len(x)} values)]"
        return "[" + ", ".join(_fmt_value(v) for v in x) + "]"
    return str(x)


def _fmt_tolerance(t: Any) -> str:
    if t is None or t == 0 or t == 0.0:
        return "exact" if t is not None else "n/a"
    if isinstance(t, dict):
        return ", ".join(f"{k} = {_fmt_value(v)}" for k, v in t.items() if v not in (0, 0.0)) \
            or "exact"
    return _fmt_value(t)


def _code(text: str) -> str:
    """Inline code that survives backticks inside ``text``."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fence(text: str, lang: str = "") -> str:
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`{3,}", text)), default=0) + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _space_rows(manifest: dict) -> list[tuple[str, str, str, str]]:
    rows = []
    space = manifest.get("space") or {}
    for n, ax in (space.get("axes") or {}).items():
        if ax.get("kind") == "zip":
            members = ax.get("members") or {}
            desc = "zipped: " + "; ".join(f"{k} = {_fmt_value(v.get('values'))}"
                                        for k, v in members.items())
            count = len(next(iter(members.values())).get("values", [])) if members else 0
        else:
            vals = ax.get("values") or []
            args = ax.get("args")
            kind = ax.get("kind", "")
            if kind in ("lin", "log", "uniform", "loguniform") and isinstance(args, list):
                desc = f"{kind}({', '.join(_fmt_value(a) for a in args)}): {_fmt_value(vals)}"
            else:
                desc = _fmt_value(vals)
            count = len(vals)
        rows.append((n, desc, str(count), "static (one compile each)" if ax.get("static") else "vmapped"))
    if "seeds" in space:
        rows.append(("seed", f"{space['seeds']} seeds per config", str(space["seeds"]), "vmapped"))
    return rows


def _draw_each_figure(exp: Any, run_dir: Path) -> tuple[dict[str, str], list[str]]:
    """Draw figures one by one (after :func:`write_figures` failed); errors by figure,
    and the names of the figures that drew no data."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from jaxtheory.plots import EmptyFigureError, check_drawn
    from jaxtheory.report.runs import load_run

    run = load_run(run_dir)
    errs, empty = {}, []
    out = run_dir / "figures"
    out.mkdir(parents=True, exist_ok=True)
    for fd in exp.figures:
        for ext in ("png", "svg"):
            (out / f"{fd.name}.{ext}").unlink(missing_ok=True)
        fig = plt.figure(figsize=fd.size, layout="constrained")
        try:
            fd.draw(run.results, run.spec, fig)
            check_drawn(fig, f"{exp.name}/{fd.name}")
            for ext in ("png", "svg"):
                fig.savefig(out / f"{fd.name}.{ext}", format=ext, dpi=120)
        except Exception as e:  # noqa: BLE001 - reported on the page
            errs[fd.name] = f"{type(e).__name__}: {e}"
            if isinstance(e, EmptyFigureError):
                empty.append(fd.name)
            for ext in ("png", "svg"):
                (out / f"{fd.name}.{ext}").unlink(missing_ok=True)
        finally:
            plt.close(fig)
    return errs, empty


def _run_experiment(exp: Any, preset: str, runs: Path) -> dict:
    """Run or reuse the preset and draw its figures; never raises for the experiment's
    own failures (they are returned under ``"errors"``)."""
    from jaxtheory.report.runs import write_figures
    from jaxtheory.sweep import compute_timings, store

    rec: dict[str, Any] = {"errors": [], "figure_errors": {}, "empty_figures": [], "claims": [],
                           "manifest": {}, "run_dir": None, "compute": None, "wall_s": None}
    try:
        spec, params, space = exp.resolve(preset)
        run_dir = runs / exp.name / exp.run_id(preset, spec, params, space)
        t0 = time.perf_counter()
        result = exp.sweep(preset, out=runs, quiet=True)
        rec["wall_s"] = time.perf_counter() - t0
        run_dir = Path(result.run_dir)
        rec["run_dir"] = run_dir
        rec["manifest"] = store.read_json(run_dir / "manifest.json")
        rec["claims"] = [c.to_json() | ({"error": c.error} if c.error else {})
                         for c in result.claims]
        rec["compute"] = compute_timings(rec["manifest"])
    except Exception:  # noqa: BLE001 - the page says so; the site still builds
        rec["errors"].append(f"The `{preset}` run failed:\n\n" + _fence(traceback.format_exc(limit=8)))
        return rec
    try:
        write_figures(run_dir)
    except Exception:  # noqa: BLE001
        try:
            rec["figure_errors"], rec["empty_figures"] = _draw_each_figure(exp, run_dir)
        except Exception:  # noqa: BLE001
            rec["figure_errors"] = {fd.name: traceback.format_exc(limit=4) for fd in exp.figures}
    for name, err in rec["figure_errors"].items():
        rec["errors"].append(f"Figure `{name}` failed: {_code(err.splitlines()[-1] if err else '')}")
    return rec


def _copy_if_changed(src: Path, dst: Path) -> None:
    _write_if_changed(dst, src.read_bytes())


def _render_page(exp: Any, preset: str, rec: dict, fig_dir: Path, page_dir: Path) -> str:
    """The Markdown of one experiment page."""
    p = exp.paper
    # The browser check compares the figures shown with this count.
    lines: list[str] = ["---", "myst:", "  html_meta:",
                        f'    "jaxtheory:figures": "{len(exp.figures)}"', "---", "",
                        f"(experiment-{exp.name})=", f"# {exp.name}", ""]
    title = p.title.strip()
    paper = f"[{title}]({p.link})" if p.link else title
    meta = [f"**Paper.** {paper}"]
    if p.arxiv:
        meta[-1] += f" (arXiv:[{p.arxiv}](https://arxiv.org/abs/{p.arxiv}))"
    if p.authors:
        meta[-1] += f". {p.authors}"
    lines += [meta[0], ""]

    claims = rec["claims"]
    if rec["run_dir"] is None:
        lines += [":::{error}", f"This experiment's `{preset}` run failed, so its claims were "
                  "not evaluated and it has no figures.", ":::", ""]
    elif claims:
        counts = {v: sum(_verdict(c) == v for c in claims) for v in VERDICTS}
        summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        lines += [f"**Verdicts ({preset} preset).** {summary} of {len(claims)} claims. A verdict is "
                  "computed from the statistic's 95% interval: *inconclusive* means the interval "
                  "contains the decision boundary, so this preset cannot decide.", ""]
    else:
        lines += [f"**Verdict ({preset} preset).** This experiment states no claims.", ""]
    for err in rec["errors"]:
        lines += [":::{error}", err, ":::", ""]

    lines += ["## What is simulated", ""]
    desc = inspect.cleandoc(exp.description or "").strip()
    lines += [desc or "_No description given._", ""]

    lines += ["## Claims", ""]
    details: list[dict] = []  # claims whose measurement is too long for a table cell
    if claims:
        lines += _claims_table(claims, exp.name, details)
        for c in details:
            lines += [f"(measured-{exp.name}-{c['name']})=", f"### Cells: {c['name']}", ""]
            lines += [_fence(_cells_text(c), "text"), ""]
    elif exp.claims:
        lines += ["Not evaluated (the run failed). The claims:", ""]
        lines += [f"- **{c.name}**: {c.statement}" for c in exp.claims]
        lines.append("")
    else:
        lines += ["_This experiment states no claims._", ""]

    lines += ["## Figures", ""]
    shown = 0
    for fd in exp.figures:
        png = fig_dir / f"{fd.name}.png"
        if not png.exists():
            lines += [f"_Figure `{fd.name}` is missing (see the error above)._", ""]
            continue
        shown += 1
        rel = png.relative_to(page_dir).as_posix()
        svg = png.with_suffix(".svg")
        caption = fd.caption.strip() or fd.name
        lines += [f":::{{figure}} {rel}", f":name: {exp.name}-{fd.name}",
                  f":alt: {fd.name}", ":width: 100%", "", caption, ":::", ""]
        if svg.exists():
            lines += [f"{{download}}`SVG <{svg.relative_to(page_dir).as_posix()}>`", ""]
    if not exp.figures:
        lines += ["_This experiment draws no figures._", ""]

    lines += ["## The run", ""]
    m = rec["manifest"]
    if m:
        lines += ["| Axis | Values | Count | Kind |", "| --- | --- | --- | --- |"]
        lines += [f"| {_code(a)} | {_md_cell(d)} | {c} | {k} |" for a, d, c, k in _space_rows(m)]
        lines.append("")
        sc = m.get("status_counts") or {}
        facts = [f"- **Lanes:** {m.get('lanes', '?'):,} ({sc.get('ok', '?')} ok, "
                 f"{sc.get('diverged', '?')} diverged) in {len(m.get('static_groups') or [1])} "
                 "static group(s)."]
        comp = rec.get("compute")
        if comp and comp.get("timings"):
            t = comp["timings"]
            calls = comp.get("calls", 1)
            over = f" over {calls} calls (interrupted and resumed)" if calls > 1 else ""
            facts.append(f"- **Runtime:** {t.get('total_s', 0):.1f} s{over} (compile "
                         f"{t.get('compile_s', 0):.1f} s, run {t.get('run_s', 0):.1f} s, store "
                         f"{t.get('store_s', 0) + t.get('results_write_s', 0):.1f} s), "
                         f"{comp.get('compiles', '?')} compile(s), "
                         f"chunks of {m.get('chunk_size', '?')} lanes.")
            d = comp.get("devices") or m.get("devices") or {}
        else:
            t = m.get("timings") or {}
            facts.append(f"- **Runtime:** reused stored chunks ({t.get('total_s', 0):.1f} s to "
                         "reassemble); the original compute time was not recorded.")
            d = m.get("devices") or {}
        if d:
            facts.append(f"- **Devices:** {d.get('count', '?')} × {d.get('platform', '?')} "
                         f"({', '.join(d.get('kinds') or [])}), {d.get('process_count', 1)} "
                         "process(es).")
        spec = m.get("spec")
        if spec:
            facts.append("- **Spec:** " + ", ".join(f"{_code(str(k))} = {_code(json.dumps(v))}"
                                                    for k, v in spec.items()) + ".")
        v = m.get("versions") or {}
        if v:
            facts.append("- **Versions:** " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".")
        g = m.get("git") or {}
        if g.get("revision"):
            facts.append(f"- **Git:** {_code(g['revision'][:12])}"
                         + (" (uncommitted changes)" if g.get("dirty") else "") + ".")
        if m.get("fingerprint"):
            facts.append(f"- **Code fingerprint:** {_code(m['fingerprint'])} (the run function's and "
                         "the experiment's modules and the jaxtheory modules they import).")
        lines += facts + [""]
    else:
        lines += ["_No run was stored._", ""]

    lines += ["## Reproduce", "", "```bash", f"jaxtheory run {exp.name} --preset {preset}"]
    lines += ["jaxtheory show runs/" + exp.name + "/<run-id>    # the directory printed above",
              "jaxtheory report runs/" + exp.name + "/<run-id>  # figures as PNG and SVG", "```", ""]
    others = [n for n in exp.presets if n != preset]
    if others:
        descs = "; ".join(f"`{n}`" + (f": {exp.presets[n].description}"
                                      if exp.presets[n].description else "") for n in others)
        lines += [f"Other presets: {descs}", ""]
    mod = next((n for n, m in list(sys.modules.items())
                if n.startswith("sweeps.") and getattr(m, "EXPERIMENT", None) is exp), None)
    src = f"`{mod.replace('.', '/')}.py`" if mod else "the `sweeps` package"
    run_fn = f"{exp.run.__module__}.{exp.run.__qualname__}"
    lines += [f"The experiment is defined in {src}; its simulator is "
              f"{{py:func}}`{run_fn}`.", ""]
    return "\n".join(lines)


def _render_index(pages: Sequence[ExperimentPage], import_errors: dict[str, str],
                  preset: str) -> str:
    lines: list[str] = []
    if pages:
        lines += ["| Experiment | Paper | Verdicts | Status |", "| --- | --- | --- | --- |"]
        for pg in pages:
            from jaxtheory.registry import experiments

            exp = experiments()[pg.name]
            paper = _md_cell(exp.paper.title) + (f" (arXiv:{exp.paper.arxiv})" if exp.paper.arxiv else "")
            status = "ok" if pg.ok else "✘ run or figure failed"
            claims = ", ".join(f"{n} {v}" for v, n in pg.verdicts.items()) if pg.claims_total else "–"
            lines.append(f"| {{ref}}`{pg.name} <experiment-{pg.name}>` | {paper} | {claims} | {status} |")
        lines += ["", f"Every page is built from the `{preset}` preset.", ""]
    else:
        lines += ["_No experiments are registered._", ""]
    if pages:
        # Included by experiments/index.md: docnames are relative to that page.
        lines += ["```{toctree}", ":hidden:", ":maxdepth: 1", ""]
        lines += [f"{GENERATED_DIR.name}/{pg.name}" for pg in pages]
        lines += ["```", ""]
    for mod, err in sorted(import_errors.items()):
        lines += [":::{error}", f"`sweeps.{mod}` failed to import, so it has no page: "
                  f"{_code(err)}", ":::", ""]
    return "\n".join(lines)


def write_experiment_pages(source: str | os.PathLike | None = None, *, preset: str = "smoke",
                           runs: str | os.PathLike = "runs",
                           only: Iterable[str] | None = None,
                           log: Any = None, verdicts: str | os.PathLike | None = None,
                           update_verdicts: bool = False) -> list[ExperimentPage]:
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
        One :class:`ExperimentPage` per experiment.

    Raises:
        KeyError: when ``only`` names an experiment that is not registered.
    """
    from jaxtheory.registry import experiments, import_errors

    say = log or (lambda s: print(s, file=sys.stderr, flush=True))
    src = Path(source) if source is not None else docs_source_dir()
    gen = src / GENERATED_DIR
    exps = experiments()
    names = sorted(exps)
    if only:
        only = list(only)
        unknown = [n for n in only if n not in exps]
        if unknown:
            raise KeyError(f"no experiment named {', '.join(map(repr, unknown))}; "
                           f"registered: {', '.join(names) or '(none)'}")
        names = [n for n in names if n in only]
    if gen.exists():
        keep = {f"{n}.md" for n in names} | set(names) | {"summary.md"}
        for child in gen.iterdir():
            if child.name not in keep:
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    gen.mkdir(parents=True, exist_ok=True)
    runs = Path(runs)
    pages: list[ExperimentPage] = []
    for name in names:
        exp = exps[name]
        used = preset if preset in exp.presets else exp.default_preset
        say(f"docs: {name}: running or reusing preset {used!r} under {runs}/")
        rec = _run_experiment(exp, used, runs)
        if verdicts is not None and rec["run_dir"] is not None:
            from jaxtheory.report import verdicts as vsnap

            path = vsnap.snapshot_path(verdicts, name, used)
            fresh = vsnap.verdicts_of(rec["claims"])
            if update_verdicts:
                vsnap.write_snapshot(path, fresh)
            else:
                snap = vsnap.read_snapshot(path)
                diff = ["no snapshot"] if snap is None else vsnap.compare(fresh, snap)
                if diff:
                    rec["errors"].append(f"Verdicts differ from the snapshot `{path}`: "
                                         + "; ".join(diff) + ". Update the snapshot in the commit "
                                         "that changes them (`--update-verdicts`).")
        fig_dir = gen / name
        if fig_dir.exists():
            shutil.rmtree(fig_dir)
        if rec["run_dir"] is not None:
            for fd in exp.figures:
                for ext in ("png", "svg"):
                    f = Path(rec["run_dir"]) / "figures" / f"{fd.name}.{ext}"
                    if f.exists() and fd.name not in rec["figure_errors"]:
                        _copy_if_changed(f, fig_dir / f.name)
        missing = [fd.name for fd in exp.figures
                   if rec["run_dir"] is not None and not (fig_dir / f"{fd.name}.png").exists()
                   and fd.name not in rec["figure_errors"]]
        for fname in missing:
            rec["errors"].append(f"Figure `{fname}` was not written.")
        text = _render_page(exp, used, rec, fig_dir, gen)
        path = gen / f"{name}.md"
        _write_if_changed(path, text)
        claims = rec["claims"]
        page = ExperimentPage(name, path, ok=not rec["errors"],
                              claims_passed=sum(bool(c.get("passed")) for c in claims),
                              claims_total=len(claims), errors=list(rec["errors"]),
                              verdicts={v: sum(_verdict(c) == v for c in claims) for v in VERDICTS
                                        if any(_verdict(c) == v for c in claims)},
                              run_dir=rec["run_dir"],
                              empty_figures=list(rec.get("empty_figures", [])))
        pages.append(page)
        state = "ok" if page.ok else "FAILED: " + rec["errors"][0].splitlines()[0]
        say(f"docs: {name}: " + (", ".join(f"{n} {v}" for v, n in page.verdicts.items()) or "no claims")
            + f"; {state}")
    errs = import_errors()
    for mod, err in errs.items():
        say(f"docs: sweeps.{mod} failed to import: {err}")
    _write_if_changed(gen / "summary.md", _render_index(pages, errs, preset))
    return pages


def _run_sphinx(source: Path, out: Path, *, strict: bool = True) -> int:
    try:
        from sphinx.cmd.build import build_main
    except ImportError:
        print("jaxtheory: error: Sphinx is not installed; pip install -e '.[docs]'",
              file=sys.stderr)
        return 1
    args = ["-b", "html", "-q", "-d", str(out.parent / ".doctrees" / out.name)]
    if strict:
        args += ["-W", "--keep-going"]
    return build_main(args + [str(source), str(out)])


def build_docs(preset: str = "smoke", out: str | os.PathLike = "docs/_build/html",
               runs: str | os.PathLike = "runs", only: Iterable[str] | None = None,
               sphinx: bool = True, source: str | os.PathLike | None = None,
               strict: bool = True, verdicts: str | os.PathLike | None = None,
               update_verdicts: bool = False) -> int:
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
        failed or any experiment's run, claims or figures raised (its page says so and
        the rest of the site is still built).

    Raises:
        KeyError: when ``only`` names an unregistered experiment.
    """
    src = Path(source) if source is not None else docs_source_dir()
    t0 = time.perf_counter()
    pages = write_experiment_pages(src, preset=preset, runs=runs, only=only, verdicts=verdicts,
                                   update_verdicts=update_verdicts)
    failed = [p.name for p in pages if not p.ok]
    print(f"docs: wrote {len(pages)} experiment page(s) in {time.perf_counter() - t0:.1f} s"
          + (f"; with failures: {', '.join(failed)}" if failed else ""), file=sys.stderr)
    empty = [f"{p.name}/{f}" for p in pages for f in p.empty_figures]
    if empty:
        print(f"docs: FAILED: {len(empty)} figure(s) draw no data: {', '.join(empty)}",
              file=sys.stderr)
    if not sphinx:
        return 1 if failed or empty else 0
    t1 = time.perf_counter()
    out = Path(out)
    status = _run_sphinx(src, out, strict=strict)
    where = (out / "index.html").resolve()
    print(f"docs: sphinx {'succeeded' if status == 0 else 'FAILED'} in "
          f"{time.perf_counter() - t1:.1f} s" + (f": {where}" if status == 0 else ""),
          file=sys.stderr)
    if failed:
        print(f"docs: FAILED: experiment(s) whose run, claims or figures raised: {', '.join(failed)}",
              file=sys.stderr)
    return 0 if status == 0 and not failed and not empty else 1
