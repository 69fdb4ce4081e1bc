"""Experiment pages of the documentation site, rendered from stored runs.

A page shows an experiment's paper, description, claims table with verdicts (from the
run's ``claims.json``), figures (drawn from its ``results.nc``), the space, runtime and
devices (from its ``manifest.json``) and the command that reproduces it. This module
never runs an experiment: :mod:`jaxtheory.docs_build` runs or reuses each preset and
hands the stored run to :func:`write_page`, as a :class:`RunRecord`.
"""

from __future__ import annotations

import dataclasses
import html
import inspect
import json
import re
import shutil
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jaxtheory.claims import PAPER_SOURCES, VERDICTS, describe_cells, describe_interval, describe_rule
from jaxtheory.experiment import RECONSTRUCTION_BANNER

__all__ = [
    "RunRecord",
    "ExperimentPage",
    "draw_figures",
    "prepare_pages_dir",
    "write_page",
    "write_index",
    "GENERATED_DIR",
    "LONG_CELL",
]

#: A measured value longer than this (characters) is shown below the claims table.
LONG_CELL = 160
#: Where generated experiment pages go, relative to the docs source directory.
GENERATED_DIR = Path("experiments") / "_generated"


@dataclasses.dataclass
class RunRecord:
    """What an experiment page is rendered from: a stored run, or why there is none.

    Attributes:
        run_dir: the run directory, ``None`` when the run failed.
        manifest: its ``manifest.json`` (empty without a run).
        claims: its claims as JSON records (:meth:`jaxtheory.claims.Claim.to_json`, plus
            ``"error"`` where a check raised).
        compute: :func:`jaxtheory.sweep.compute_timings` of the manifest: the calls that
            computed the results, ``None`` when every chunk was reused from an
            unrecorded run.
        errors: what went wrong, one Markdown paragraph each (shown on the page).
        figure_errors: figures that failed to draw, with the error.
        empty_figures: figures that drew no data (:func:`jaxtheory.plots.check_drawn`).
        wall_s: seconds the run (or its reuse) took in this build.
        recorded: recorded runs of the experiment's other presets (``medium``), by
            preset (:func:`jaxtheory.report.verdicts.read_claims_record`), shown beside
            this run's verdicts.
    """

    run_dir: Path | None = None
    manifest: dict = dataclasses.field(default_factory=dict)
    claims: list[dict] = dataclasses.field(default_factory=list)
    compute: dict | None = None
    errors: list[str] = dataclasses.field(default_factory=list)
    figure_errors: dict[str, str] = dataclasses.field(default_factory=dict)
    empty_figures: list[str] = dataclasses.field(default_factory=list)
    wall_s: float | None = None
    recorded: dict[str, dict] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ExperimentPage:
    """What :func:`write_page` made of one experiment.

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
            any of them fails :func:`jaxtheory.docs_build.build_docs`.
        statements: the paper's statements the page tests (claims with a quote):
            ``{"quoted": n, "pass": n, "fail": n, "undecided": n, "reconstruction": n}``.
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
    statements: dict = dataclasses.field(default_factory=dict)


def prepare_pages_dir(source: Path, names: Sequence[str]) -> Path:
    """Create ``<source>/experiments/_generated`` and remove what is not a page of ``names``.

    Returns:
        The directory.
    """
    gen = Path(source) / GENERATED_DIR
    if gen.exists():
        keep = {f"{n}.md" for n in names} | set(names) | {"summary.md"}
        for child in gen.iterdir():
            if child.name not in keep:
                shutil.rmtree(child) if child.is_dir() else child.unlink()
    gen.mkdir(parents=True, exist_ok=True)
    return gen


def write_page(exp: Any, preset: str, rec: RunRecord, gen: Path) -> ExperimentPage:
    """Write one experiment's page, ``<gen>/<name>.md``, with its figures beside it.

    The run's figures are copied from ``<run_dir>/figures/`` into ``<gen>/<name>/``; a
    figure that should be there and is not becomes an error on the page.

    Args:
        exp: the :class:`~jaxtheory.Experiment`.
        preset: the preset the run is of.
        rec: the stored run (:class:`RunRecord`).
        gen: the generated-pages directory (:func:`prepare_pages_dir`).

    Returns:
        The :class:`ExperimentPage`.
    """
    name = exp.name
    fig_dir = gen / name
    if fig_dir.exists():
        shutil.rmtree(fig_dir)
    if rec.run_dir is not None:
        for fd in exp.figures:
            for ext in ("png", "svg"):
                f = Path(rec.run_dir) / "figures" / f"{fd.name}.{ext}"
                if f.exists() and fd.name not in rec.figure_errors:
                    _copy_if_changed(f, fig_dir / f.name)
    missing = [
        fd.name
        for fd in exp.figures
        if rec.run_dir is not None
        and not (fig_dir / f"{fd.name}.png").exists()
        and fd.name not in rec.figure_errors
    ]
    for fname in missing:
        rec.errors.append(f"Figure `{fname}` was not written.")
    text = _render_page(exp, preset, rec, fig_dir, gen)
    path = gen / f"{name}.md"
    _write_if_changed(path, text)
    claims = rec.claims
    return ExperimentPage(
        name,
        path,
        ok=not rec.errors,
        claims_passed=sum(bool(c.get("passed")) for c in claims),
        claims_total=len(claims),
        errors=list(rec.errors),
        verdicts={
            v: sum(_verdict(c) == v for c in claims)
            for v in VERDICTS
            if any(_verdict(c) == v for c in claims)
        },
        run_dir=rec.run_dir,
        empty_figures=list(rec.empty_figures),
        statements=_statement_counts(claims),
    )


def _statement_counts(claims: Sequence[dict]) -> dict:
    """How many of the paper's statements a run tests, and how many it decides."""
    paper = [c for c in claims if c.get("source") in PAPER_SOURCES]
    verdicts = [_verdict(c) for c in paper]
    return {
        "quoted": len(paper),
        "pass": verdicts.count("pass"),
        "fail": verdicts.count("fail"),
        "undecided": sum(v in ("inconclusive", "not-applicable", "error") for v in verdicts),
        "reconstruction": sum(c.get("source") == "reconstruction" for c in paper),
    }


def write_index(
    gen: Path, pages: Sequence[ExperimentPage], import_errors: dict[str, str], preset: str
) -> Path:
    """Write ``<gen>/summary.md``: the table of experiments on the experiments index.

    Returns:
        Its path.
    """
    path = Path(gen) / "summary.md"
    _write_if_changed(path, _render_index(pages, import_errors, preset))
    return path


def draw_figures(exp: Any, rec: RunRecord) -> None:
    """Draw a stored run's figures (PNG and SVG in ``<run_dir>/figures/``) for its page.

    :func:`jaxtheory.report.write_figures` draws them all; when it raises, each figure
    is drawn alone, so one broken figure does not hide the others. Failures go to
    ``rec.figure_errors``, ``rec.empty_figures`` and ``rec.errors``; nothing raises.

    Args:
        exp: the :class:`~jaxtheory.Experiment`.
        rec: its stored run (nothing is drawn when ``rec.run_dir`` is ``None``).
    """
    from jaxtheory.report.runs import write_figures

    if rec.run_dir is None:
        return
    try:
        write_figures(rec.run_dir)
    except Exception:  # noqa: BLE001
        try:
            rec.figure_errors, rec.empty_figures = _draw_each_figure(exp, Path(rec.run_dir))
        except Exception:  # noqa: BLE001
            rec.figure_errors = {fd.name: traceback.format_exc(limit=4) for fd in exp.figures}
    for name, err in rec.figure_errors.items():
        rec.errors.append(f"Figure `{name}` failed: {_code(err.splitlines()[-1] if err else '')}")


def _write_if_changed(path: Path, text: str | bytes) -> None:
    data = text.encode() if isinstance(text, str) else text
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


_VERDICT_MARK = {
    "pass": "✔ pass",
    "fail": "✘ FAIL",
    "inconclusive": "? inconclusive",
    "not-applicable": "– n/a",
    "error": "⚠ ERROR",
}

#: What each source means, as the pages say it.
SOURCE_TEXT = {
    "paper": "the paper",
    "paper-number": "the paper's number",
    "reconstruction": "the paper, under our reconstruction",
    "derived": "derived here",
    "lit": "literature",
    "proposed": "our threshold",
    "sanity": "sanity check",
    "toy": "toy",
}


def _verdict(c: dict) -> str:
    return c.get("verdict") or ("pass" if c.get("passed") else "fail")


def _claims_table(
    claims: list[dict], exp_name: str, details: list[dict], recorded: dict[str, dict] | None = None
) -> list[str]:
    """The claims as an HTML table: name, verdict, measured, interval, expected, source on
    one row, the recorded verdicts of other presets beside them, and beneath, the
    paper's words (for a quoted claim) and what is tested of them (so the verdict
    never scrolls away)."""
    recorded = recorded or {}
    other = {
        p: {c["name"]: c for c in r.get("claims", []) if isinstance(c, dict) and "name" in c}
        for p, r in recorded.items()
    }
    heads = "".join(f"<th>{html.escape(p.capitalize())} preset</th>" for p in other)
    ncol = 6 + len(other)
    rows = [
        '<table class="claims">',
        "<thead><tr><th>Claim</th><th>Verdict</th><th>Measured</th><th>95% interval</th>"
        f"<th>Expected</th>{heads}<th>Source</th></tr></thead>",
        "<tbody>",
    ]
    for c in claims:
        v = _verdict(c)
        measured = _fmt_value(c.get("measured"))
        interval = describe_interval(c)
        if c.get("error"):
            measured = f"error: {html.escape(str(c['error']))}"
        elif v == "not-applicable" and c.get("reason"):
            measured = f"not applicable: {html.escape(str(c['reason']))}"
        elif isinstance(c.get("measured"), dict) or len(measured) > LONG_CELL:
            details.append(c)
            n = len(c["measured"]) if isinstance(c.get("measured"), (dict, list)) else 1
            measured = f'<a href="#measured-{exp_name}-{c["name"]}">{n} cells</a>'
            interval = "per cell"
        else:
            measured = html.escape(measured)
        if c.get("n"):
            interval += f" (n={c['n']})"
        mark = _VERDICT_MARK.get(v, v)
        src = c.get("source", "")
        if src == "reconstruction":
            mark += '<br><span class="verdict-note">of our reconstruction</span>'
        cols = ""
        for by in other.values():
            o = by.get(c["name"])
            if o is None:
                cols += "<td>–</td>"
                continue
            ov = _verdict(o)
            cols += (
                f'<td class="verdict verdict-{ov}">{_VERDICT_MARK.get(ov, ov)}<br>'
                f"{html.escape(_recorded_interval(o))}</td>"
            )
        rows.append(
            f'<tr class="claim-head verdict-{v}"><td><strong>{html.escape(c["name"])}</strong></td>'
            f'<td class="verdict">{mark}</td><td>{measured}</td>'
            f"<td>{html.escape(interval)}</td><td>{html.escape(describe_rule(c))}</td>{cols}"
            f"<td>{html.escape(SOURCE_TEXT.get(src, str(src)))}</td></tr>"
        )
        if c.get("quote"):
            where = html.escape(c.get("where") or "abstract")
            rows.append(
                f'<tr class="claim-quote"><td colspan="{ncol}"><blockquote class="paper-quote">'
                f"“{html.escape(c['quote'], quote=False)}”</blockquote>"
                f'<span class="quote-where">— {where}</span></td></tr>'
            )
        elif c.get("where"):
            rows.append(
                f'<tr class="claim-quote"><td colspan="{ncol}"><span class="quote-where">Read in the '
                f"paper: {html.escape(c['where'])}</span></td></tr>"
            )
        badges = ""
        if src == "reconstruction":
            badges += '<span class="badge badge-reconstruction">under our reconstruction</span> '
        if c.get("stand_in"):
            badges += (
                f'<span class="badge badge-stand-in">stand-in data: {html.escape(c["stand_in"])}</span> '
            )
        lead = "<em>What we test:</em> " if c.get("quote") or c.get("where") else ""
        rows.append(
            f'<tr class="claim-statement"><td colspan="{ncol}">{badges}{lead}'
            f"{html.escape(c.get('statement', ''), quote=False)}</td></tr>"
        )
    rows += ["</tbody>", "</table>", ""]
    return rows


def _recorded_interval(c: dict) -> str:
    """A recorded claim's statistic and interval, short (``0.41 [0.3, 0.5]``, ``3 cells``)."""
    iv = c.get("interval")
    m = c.get("measured")
    if isinstance(iv, dict) or isinstance(m, dict):
        n = len(iv) if isinstance(iv, dict) else len(m)
        worst = describe_cells(c, limit=1)
        return f"{n} cells; worst: {' '.join(worst[0].split())}" if worst else f"{n} cells"
    if m is None:
        return ""
    if iv is None:
        return f"{_fmt_value(m)} (exact)"
    return f"{_fmt_value(m)} [{_fmt_value(iv[0])}, {_fmt_value(iv[1])}]"


def _cells_text(c: dict) -> str:
    """Every cell of a claim, worst first: value, interval, region and verdict, as aligned text."""
    lines = describe_cells(c)
    return "\n".join(lines) if lines else _fmt_value(c.get("measured"))


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
            return "; ".join(
                f"{k}: ({_fmt_value(v)})" if isinstance(v, dict) else f"{k} = {_fmt_value(v)}"
                for k, v in x.items()
            )
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
        return ", ".join(f"{k} = {_fmt_value(v)}" for k, v in t.items() if v not in (0, 0.0)) or "exact"
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
    host = manifest.get("mode") == "host"  # a Python call per lane: nothing is vmapped or compiled
    lane, per_static = (
        ("host loop", "static (a group each)") if host else ("vmapped", "static (one compile each)")
    )
    for n, ax in (space.get("axes") or {}).items():
        if ax.get("kind") == "zip":
            members = ax.get("members") or {}
            desc = "zipped: " + "; ".join(f"{k} = {_fmt_value(v.get('values'))}" for k, v in members.items())
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
        rows.append((n, desc, str(count), per_static if ax.get("static") else lane))
    if "seeds" in space:
        rows.append(("seed", f"{space['seeds']} seeds per config", str(space["seeds"]), lane))
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


def _copy_if_changed(src: Path, dst: Path) -> None:
    _write_if_changed(dst, src.read_bytes())


def _render_page(exp: Any, preset: str, rec: RunRecord, fig_dir: Path, page_dir: Path) -> str:
    """The Markdown of one experiment page."""
    p = exp.paper
    # The browser check compares the figures shown with this count.
    lines: list[str] = [
        "---",
        "myst:",
        "  html_meta:",
        f'    "jaxtheory:figures": "{len(exp.figures)}"',
        "---",
        "",
        f"(experiment-{exp.name})=",
        f"# {exp.name}",
        "",
    ]
    title = p.title.strip()
    paper = f"[{title}]({p.link})" if p.link else title
    meta = [f"**Paper.** {paper}"]
    if p.arxiv:
        meta[-1] += f" (arXiv:[{p.arxiv}](https://arxiv.org/abs/{p.arxiv}))"
    if p.authors:
        meta[-1] += f". {p.authors}"
    lines += [meta[0], ""]
    if not getattr(p, "found", True):
        lines += [":::{warning}", RECONSTRUCTION_BANNER, ":::", ""]
    if getattr(p, "banner", ""):
        lines += [":::{note}", p.banner.strip(), ":::", ""]

    claims = rec.claims
    if rec.run_dir is None:
        lines += [
            ":::{error}",
            f"This experiment's `{preset}` run failed, so its claims were "
            "not evaluated and it has no figures.",
            ":::",
            "",
        ]
    elif claims:
        counts = {v: sum(_verdict(c) == v for c in claims) for v in VERDICTS}
        summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        lines += [
            f"**Verdicts ({preset} preset).** {summary} of {len(claims)} claims. A verdict is "
            "computed from the statistic's 95% interval: *inconclusive* means the interval "
            "contains the decision boundary, so this preset cannot decide.",
            "",
        ]
    else:
        lines += [f"**Verdict ({preset} preset).** This experiment states no claims.", ""]
    for err in rec.errors:
        lines += [":::{error}", err, ":::", ""]

    details: list[dict] = []  # claims whose measurement is too long for a table cell
    stated = [c for c in claims if c.get("source") in PAPER_SOURCES]
    further = [c for c in claims if c.get("source") not in PAPER_SOURCES]
    lines += ["## What the paper states", ""]
    if stated:
        lines += [
            "Each statement is quoted from the paper (from its abstract unless said otherwise); "
            "beneath it, what this page tests of it, read as weakly as the words allow, and the "
            "verdict with its 95% interval. *Under our reconstruction* marks a statement tested on "
            "a model or algorithm rebuilt without the paper: its verdict speaks for the "
            "reconstruction, not for the paper. *Stand-in data* names data used in place of the "
            "paper's.",
            "",
        ]
        lines += _claims_table(stated, exp.name, details, rec.recorded)
    elif claims:
        lines += ["_No claim here quotes the paper: the checks below are ours._", ""]
    if claims:
        lines += ["## Our further checks", ""]
        if further:
            lines += [
                "Checks no sentence of the paper states: closed forms and identities derived here, "
                "classical results, thresholds we chose (*our threshold*: a failure refutes the "
                "threshold, not the paper), sanity checks and toys.",
                "",
            ]
            lines += _claims_table(further, exp.name, details, rec.recorded)
        else:
            lines += ["_None._", ""]
        for c in details:
            lines += [f"(measured-{exp.name}-{c['name']})=", f"### Cells: {c['name']}", ""]
            lines += [_fence(_cells_text(c), "text"), ""]
    elif exp.claims:
        lines += ["Not evaluated (the run failed). The claims:", ""]
        lines += [f"- **{c.name}**: {c.statement}" for c in exp.claims]
        lines.append("")
    else:
        lines += ["_This experiment states no claims._", ""]
    for other, r in rec.recorded.items():
        lines += [
            f"The *{other.capitalize()} preset* column shows the run recorded with "
            f"`jaxtheory snapshot {exp.name} --preset {other} --update`"
            + (f" (run `{r['run']}`" if r.get("run") else " (")
            + (f", {r['recorded']}" if r.get("recorded") else "")
            + f"); `jaxtheory run {exp.name} --preset {other}` reproduces it.",
            "",
        ]
    unverified = getattr(p, "unverified", ())
    if unverified:
        lines += [
            "### The paper's own claims (no verdict here)",
            "",
            "This project does not decide these: they concern systems it cannot run, or results "
            "(theorems, asymptotics) no finite computation here establishes; the claims above test "
            "what can be computed (a toy model of the mechanism, or finite instances).",
            "",
        ]
        lines += [f"- {c}" for c in unverified]
        lines.append("")

    lines += ["## What is simulated", ""]
    desc = inspect.cleandoc(exp.description or "").strip()
    lines += [desc or "_No description given._", ""]

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
        lines += [
            f":::{{figure}} {rel}",
            f":name: {exp.name}-{fd.name}",
            f":alt: {fd.name}",
            ":width: 100%",
            "",
            caption,
            ":::",
            "",
        ]
        if svg.exists():
            lines += [f"{{download}}`SVG <{svg.relative_to(page_dir).as_posix()}>`", ""]
    if not exp.figures:
        lines += ["_This experiment draws no figures._", ""]

    lines += ["## The run", ""]
    m = rec.manifest
    if m:
        lines += ["| Axis | Values | Count | Kind |", "| --- | --- | --- | --- |"]
        lines += [f"| {_code(a)} | {_md_cell(d)} | {c} | {k} |" for a, d, c, k in _space_rows(m)]
        lines.append("")
        sc = m.get("status_counts") or {}
        facts = [
            f"- **Lanes:** {m.get('lanes', '?'):,} ({sc.get('ok', '?')} ok, "
            f"{sc.get('diverged', '?')} diverged) in {len(m.get('static_groups') or [1])} "
            "static group(s)."
        ]
        comp = rec.compute
        if comp and comp.get("timings"):
            t = comp["timings"]
            calls = comp.get("calls", 1)
            over = f" over {calls} calls (interrupted and resumed)" if calls > 1 else ""
            facts.append(
                f"- **Runtime:** {t.get('total_s', 0):.1f} s{over} (compile "
                f"{t.get('compile_s', 0):.1f} s, run {t.get('run_s', 0):.1f} s, store "
                f"{t.get('store_s', 0) + t.get('results_write_s', 0):.1f} s), "
                f"{comp.get('compiles', '?')} compile(s), "
                f"chunks of {m.get('chunk_size', '?')} lanes."
            )
            d = comp.get("devices") or m.get("devices") or {}
        else:
            t = m.get("timings") or {}
            facts.append(
                f"- **Runtime:** reused stored chunks ({t.get('total_s', 0):.1f} s to "
                "reassemble); the original compute time was not recorded."
            )
            d = m.get("devices") or {}
        if d:
            facts.append(
                f"- **Devices:** {d.get('count', '?')} × {d.get('platform', '?')} "
                f"({', '.join(d.get('kinds') or [])}), {d.get('process_count', 1)} "
                "process(es)."
            )
        spec = m.get("spec")
        if spec:
            facts.append(
                "- **Spec:** "
                + ", ".join(f"{_code(str(k))} = {_code(json.dumps(v))}" for k, v in spec.items())
                + "."
            )
        v = m.get("versions") or {}
        if v:
            facts.append("- **Versions:** " + ", ".join(f"{k} {val}" for k, val in v.items()) + ".")
        g = m.get("git") or {}
        if g.get("revision"):
            facts.append(
                f"- **Git:** {_code(g['revision'][:12])}"
                + (" (uncommitted changes)" if g.get("dirty") else "")
                + "."
            )
        if m.get("fingerprint"):
            facts.append(
                f"- **Code fingerprint:** {_code(m['fingerprint'])} (the run function's and "
                "the experiment's modules and the jaxtheory modules they import)."
            )
        lines += facts + [""]
    else:
        lines += ["_No run was stored._", ""]

    lines += ["## Reproduce", "", "```bash", f"jaxtheory run {exp.name} --preset {preset}"]
    lines += [
        "jaxtheory show runs/" + exp.name + "/<run-id>    # the directory printed above",
        "jaxtheory report runs/" + exp.name + "/<run-id>  # figures as PNG and SVG",
        "```",
        "",
    ]
    others = [n for n in exp.presets if n != preset]
    if others:
        from jaxtheory.sweep.plan import describe_preset  # with the recorded plan of a full preset

        descs = "; ".join(f"`{n}`" + (f": {d}" if (d := describe_preset(exp, n)) else "") for n in others)
        lines += [f"Other presets: {descs}", ""]
    origin = exp.origin.partition(":")[0] if exp.origin else ""
    if origin.startswith("sweeps."):
        src = f"`{origin.replace('.', '/')}.py`"
    elif origin:  # an installed package's module, or a file
        src = f"`{origin}`"
    else:
        src = "a module outside this package"
    run_fn = f"{exp.run.__module__}.{exp.run.__qualname__}"
    lines += [f"The experiment is defined in {src}; its simulator is {{py:func}}`{run_fn}`.", ""]
    return "\n".join(lines)


def _render_index(pages: Sequence[ExperimentPage], import_errors: dict[str, str], preset: str) -> str:
    from jaxtheory.registry import experiments

    exps = experiments()
    lines: list[str] = []
    if pages:
        lines += _papers_table(pages, exps, preset)
        lines += [
            "| Experiment | Paper | Verdicts | Status |",
            "| --- | --- | --- | --- |",
        ]
        for pg in pages:
            exp = exps[pg.name]
            paper = _md_cell(exp.paper.title) + (f" (arXiv:{exp.paper.arxiv})" if exp.paper.arxiv else "")
            status = "ok" if pg.ok else "✘ run, claim or figure failed"
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
        lines += [
            ":::{error}",
            f"`sweeps.{mod}` failed to import, so it has no page: {_code(err)}",
            ":::",
            "",
        ]
    return "\n".join(lines)


def _papers_table(pages: Sequence[ExperimentPage], exps: dict, preset: str) -> list[str]:
    """Per paper: statements quoted, decided (pass / fail), undecided, what was reconstructed."""
    by_paper: dict[str, list[ExperimentPage]] = {}
    for pg in pages:
        by_paper.setdefault(exps[pg.name].paper.title.strip(), []).append(pg)
    lines = [
        f"**Per paper ({preset} preset).** *Quoted*: the paper's statements the experiments test, "
        "each with the paper's words; *decided*: those with a pass or fail verdict; *undecided*: "
        "inconclusive (the preset cannot decide), not applicable, or an error. *Reconstructed*: "
        "what was rebuilt without the paper; a verdict on it speaks for the reconstruction.",
        "",
        "| Paper | Experiments | Quoted | Decided (pass / fail) | Undecided | Reconstructed |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for title, pgs in by_paper.items():
        paper = exps[pgs[0].name].paper
        tot = {k: sum(pg.statements.get(k, 0) for pg in pgs) for k in ("quoted", "pass", "fail", "undecided")}
        nrec = sum(pg.statements.get("reconstruction", 0) for pg in pgs)
        what = getattr(paper, "reconstructed", "") or (
            "the paper's algorithm (paper not found)" if not getattr(paper, "found", True) else ""
        )
        if nrec and not what:
            what = "a model or algorithm (see the page)"
        if what and nrec:
            what += f"; {nrec} statement(s) tested on it"
        refs = ", ".join(f"{{ref}}`{pg.name} <experiment-{pg.name}>`" for pg in pgs)
        decided = tot["pass"] + tot["fail"]
        lines.append(
            f"| {_md_cell(title)} | {refs} | {tot['quoted']} | {decided} ({tot['pass']} / {tot['fail']}) | "
            f"{tot['undecided']} | {_md_cell(what or '–')} |"
        )
    lines.append("")
    return lines
