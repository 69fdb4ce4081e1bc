"""The docs: docstring coverage, docstring and guide examples, experiment pages, the build.

* every public symbol has a docstring (the same check the Sphinx build runs), and every
  public docstring is valid reStructuredText (what Sphinx ``-W`` would reject);
* the examples in every module's docstrings run (doctest), and so do the Python code
  blocks of the landing page and the guides;
* experiment pages are generated from the noisy-quadratic smoke run, and an experiment
  whose run or figure fails gets a page that says so;
* (slow) the whole site builds with warnings as errors, and, when Chromium is
  installed, passes the headless-browser check.
"""

from __future__ import annotations

import dataclasses
import html
import doctest
import importlib
import inspect
import pkgutil
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import jaxtheory
from jaxtheory import Claim, Experiment, Figure, Paper, Preset
from jaxtheory import docs_build as B
from jaxtheory.report import api as A
from jaxtheory.report import pages as P
from jaxtheory.sweep import Space, values

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


# -- docstring coverage ----------------------------------------------------------------


def test_every_public_symbol_has_a_docstring():
    missing = A.missing_docstrings()
    assert not missing, (
        f"{len(missing)} public module(s)/symbol(s) lack a docstring (data needs a `#:` "
        "comment above its assignment), or failed to import:\n  " + "\n  ".join(missing)
    )


def test_public_api_walk():
    api = A.public_api()
    paths = {s.path for s in api.symbols}
    # Re-exported objects are documented once, at the shallowest public module.
    assert "jaxtheory.sweep.Space" in paths and "jaxtheory.sweep.space.Space" not in paths
    assert "jaxtheory.Experiment" in paths and "jaxtheory.experiment.Experiment" not in paths
    space = next(s for s in api.symbols if s.path == "jaxtheory.sweep.Space")
    assert "jaxtheory.sweep.space.Space" in space.also and space.kind == "class"
    # A package without __all__ exports its private submodules' __all__.
    from jaxtheory.optim import _normalized

    for name in _normalized.__all__:
        assert f"jaxtheory.optim.{name}" in paths
    # Private modules are never public; the docs module documents itself.
    assert not any("._" in m for m in api.modules)
    assert "jaxtheory.docs_build.build_docs" in paths


def test_made_up_docstrings_do_not_count():
    from typing import NamedTuple

    class State(NamedTuple):
        count: int

    @dataclasses.dataclass
    class Spec:
        n: int = 1

    @dataclasses.dataclass
    class Documented:
        """Has one."""

    assert State.__doc__ and Spec.__doc__  # Python made them up
    assert A._own_doc(State, "class") is None
    assert A._own_doc(Spec, "class") is None
    assert A._own_doc(Documented, "class") == "Has one."
    assert A._kind(3) == "data" and A._own_doc({"a": 1}, "data") is None


def _rest_problems(text: str) -> str:
    """docutils' warnings for a Google-style docstring, after napoleon's conversion;
    Sphinx's own roles and directives are stand-ins that accept anything."""
    import io

    import docutils.core
    import docutils.nodes
    from docutils.parsers.rst import Directive, directives, roles
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import GoogleDocstring
    from sphinx.util.docutils import docutils_namespace

    class _Any(Directive):
        has_content, optional_arguments, final_argument_whitespace = True, 10, True
        option_spec = type(
            "Opts",
            (dict,),
            {"__getitem__": lambda self, k: directives.unchanged, "__contains__": lambda self, k: True},
        )()

        def run(self):
            node = docutils.nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    rst = str(GoogleDocstring(text, Config(napoleon_use_param=True, napoleon_use_rtype=True)))
    err = io.StringIO()
    with docutils_namespace():  # the stand-ins are undone on exit
        for r in ("func", "class", "mod", "data", "attr", "meth", "ref", "doc", "obj", "exc", "term"):
            roles.register_generic_role(r, docutils.nodes.literal)
        for d in (
            "attribute",
            "method",
            "data",
            "function",
            "class",
            "rubric",
            "seealso",
            "note",
            "warning",
            "code-block",
        ):
            directives.register_directive(d, _Any)
        docutils.core.publish_doctree(
            rst, settings_overrides={"warning_stream": err, "report_level": 2, "halt_level": 5}
        )
    return err.getvalue().strip()


def test_public_docstrings_are_valid_restructuredtext():
    """A fast stand-in for the (slow) Sphinx ``-W`` build: e.g. an inline literal glued
    to the next character (````n``²``) fails there, and here."""
    assert "Inline literal start-string" in _rest_problems("An ``n``²-point rule.")
    assert _rest_problems("An ``n``-point rule, :math:`x^2`, :func:`f`.\n\nArgs:\n    x: a.") == ""
    api = A.public_api("jaxtheory")
    docs = [(m, d) for m, d in api.modules.items() if d]
    docs += [(f"{s.module}.{s.name}", s.doc) for s in api.symbols if s.doc]
    bad = {name: p for name, doc in docs if (p := _rest_problems(inspect.cleandoc(doc)))}
    assert not bad, "\n\n".join(f"{k}:\n{v}" for k, v in bad.items())
    assert len(docs) > 300


# -- examples in docstrings and guides -------------------------------------------------


def _all_modules() -> list[str]:
    names = ["jaxtheory"]
    # A package that fails to import is reported by its own test below, not here.
    for info in pkgutil.walk_packages(jaxtheory.__path__, prefix="jaxtheory.", onerror=lambda name: None):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("modname", _all_modules())
def test_docstring_examples_run(modname, tmp_path, monkeypatch):
    """``Example:`` sections of every module, private ones too (re-exports live there)."""
    monkeypatch.chdir(tmp_path)
    mod = importlib.import_module(modname)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(mod, modname) if t.examples]
    if not tests:
        pytest.skip("no examples")
    out: list[str] = []
    for t in tests:
        runner.run(t, out=out.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, "".join(out)


GUIDES = sorted([DOCS / "index.md", *(DOCS / "guides").glob("*.md")])
FENCE = re.compile(r"^```python\n(.*?)^```", flags=re.S | re.M)


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_guide_code_blocks_run(page, tmp_path, monkeypatch):
    """A page's ```python blocks run top to bottom in one namespace, as a reader would."""
    blocks = FENCE.findall(page.read_text())
    if not blocks:
        pytest.skip("no python blocks")
    monkeypatch.chdir(tmp_path)
    mod = types.ModuleType("__guide__")  # a real module, as dataclasses look theirs up
    monkeypatch.setitem(sys.modules, mod.__name__, mod)
    for i, block in enumerate(blocks):
        code = compile(block, f"{page.relative_to(DOCS)} (python block {i + 1})", "exec")
        exec(code, mod.__dict__)  # noqa: S102 - our own docs


def test_every_guide_is_in_the_site():
    index = (DOCS / "index.md").read_text()
    for g in (DOCS / "guides").glob("*.md"):
        assert f"guides/{g.stem}" in index, f"{g.name} is not in the landing page's toctree"


# -- experiment pages ------------------------------------------------------------------


@pytest.fixture(scope="module")
def built_pages(tmp_path_factory):
    """Pages for noisy-quadratic from its smoke run, in a copy of the docs tree."""
    tmp = tmp_path_factory.mktemp("docs")
    src = tmp / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns("_build", "_generated"))
    runs = tmp / "runs"
    pages = B.write_experiment_pages(src, preset="smoke", runs=runs, only=["noisy-quadratic"])
    return src, runs, pages


def test_experiment_page_content(built_pages):
    from jaxtheory.registry import get_experiment

    src, runs, pages = built_pages
    exp = get_experiment("noisy-quadratic")
    (page,) = pages
    assert page.ok and page.claims_total == len(exp.claims)
    text = page.path.read_text()
    assert f'"jaxtheory:figures": "{len(exp.figures)}"' in text  # for the browser check
    assert "(experiment-noisy-quadratic)=\n# noisy-quadratic\n" in text
    assert exp.paper.title.strip() in text
    assert "## What is simulated" in text and r"\lambda_{\max}" in text  # description, math
    # the claims table: a row per claim with verdict, measured, interval, expected, source,
    # and its statement on the row beneath
    assert "<th>Claim</th><th>Verdict</th><th>Measured</th><th>95% interval</th>" in text
    for c in exp.claims:
        row = next(line for line in text.splitlines() if f"<strong>{c.name}</strong>" in line)
        assert row.count("<td") == 6 and any(m in row for m in ("✔ pass", "✘ FAIL", "? inconclusive"))
        assert f"<td>{P.SOURCE_TEXT[c.source]}</td>" in row
        assert html.escape(c.statement, quote=False) in text
    # figures copied beside the page, with captions
    for f in exp.figures:
        png = src / "experiments" / "_generated" / "noisy-quadratic" / f"{f.name}.png"
        assert png.stat().st_size > 1000
        assert f":::{{figure}} noisy-quadratic/{f.name}.png" in text
        assert f.caption in text
    # space, runtime, devices and the reproducing command
    assert "| `lr` |" in text and "static (one compile each)" in text
    assert "**Runtime:**" in text and "**Devices:** 1 × cpu" in text
    assert "jaxtheory run noisy-quadratic --preset smoke" in text
    summary = (src / "experiments" / "_generated" / "summary.md").read_text()
    assert "{ref}`noisy-quadratic <experiment-noisy-quadratic>`" in summary
    assert "_generated/noisy-quadratic" in summary  # its toctree entry
    assert f"{len(exp.claims)} pass" in summary


def test_rebuilding_pages_reuses_the_run(built_pages):
    src, runs, pages = built_pages
    before = pages[0].path.read_text()
    again = B.write_experiment_pages(src, preset="smoke", runs=runs, only=["noisy-quadratic"])
    assert again[0].run_dir == pages[0].run_dir
    # the runtime shown is the run that computed the results, not the resume
    assert again[0].path.read_text() == before


@dataclasses.dataclass(frozen=True)
class _Spec:
    n: int = 3


def _ok_run(spec, params, key):
    import jax.numpy as jnp

    return {"x": params["a"] * jnp.ones(spec.n)}


def _bad_run(spec, params, key):
    raise ValueError("the simulator is broken")


def _bad_figure(ds, spec, fig):
    raise RuntimeError("cannot draw")


def _good_figure(ds, spec, fig):
    fig.add_subplot(1, 1, 1).plot(np.arange(3), ds["x"].mean("seed").isel(a=0))


def _fake(name, run, figures=(), paper=None):
    return Experiment(
        name=name,
        paper=paper or Paper(title=f"Paper of {name}", arxiv="2601.00001"),
        run=run,
        spec=_Spec(),
        params={"a": 1.0},
        presets={"smoke": Preset(Space(a=values(1.0, 2.0), seeds=2))},
        claims=[
            Claim.at_least(
                "positive",
                "x is positive.",
                lambda ds, spec: float(ds["x"].min()),
                0.0,
                source="sanity",
                deterministic=True,  # x = a whatever the seed
            )
        ],
        figures=list(figures),
        description="A *fake* experiment with $x = a$.",
    )


def test_failing_experiments_get_pages_that_say_so(tmp_path, monkeypatch):
    import jaxtheory.registry as reg

    exps = {
        "broken-run": _fake("broken-run", _bad_run),
        "broken-figure": _fake(
            "broken-figure",
            _ok_run,
            [Figure("bad", _bad_figure), Figure("good", _good_figure, "A good one.")],
        ),
    }
    monkeypatch.setattr(reg, "experiments", lambda: exps)
    monkeypatch.setattr(reg, "import_errors", lambda: {"half_written": "SyntaxError: oops"})
    src = tmp_path / "docs"
    pages = {p.name: p for p in B.write_experiment_pages(src, runs=tmp_path / "runs", log=lambda s: None)}
    run_page = pages["broken-run"].path.read_text()
    assert not pages["broken-run"].ok
    assert "run failed" in run_page and "the simulator is broken" in run_page
    assert "- **positive**: x is positive." in run_page  # claims listed, not evaluated
    fig_page = pages["broken-figure"].path.read_text()
    assert not pages["broken-figure"].ok and pages["broken-figure"].claims_passed == 1
    assert "Figure `bad` failed" in fig_page and "cannot draw" in fig_page
    assert ":::{figure} broken-figure/good.png" in fig_page
    assert (src / "experiments" / "_generated" / "broken-figure" / "good.png").exists()
    summary = (src / "experiments" / "_generated" / "summary.md").read_text()
    assert "sweeps.half_written" in summary and summary.count("failed") >= 2


def test_reconstruction_banner_and_unverified_claims(tmp_path, monkeypatch):
    import jaxtheory.registry as reg
    from jaxtheory.experiment import RECONSTRUCTION_BANNER

    paper = Paper(
        "Not found",
        found=False,
        banner="An illustration of the mechanism, not a test of it.",
        unverified=("The 14B model has heads that track beliefs.",),
    )
    exps = {
        "recon": _fake("recon", _ok_run, [Figure("good", _good_figure)], paper=paper),
        "plain": _fake("plain", _ok_run),
    }
    monkeypatch.setattr(reg, "experiments", lambda: exps)
    src = tmp_path / "docs"
    pages = {p.name: p for p in B.write_experiment_pages(src, runs=tmp_path / "runs", log=lambda s: None)}
    text = pages["recon"].path.read_text()
    assert ":::{warning}\n" + RECONSTRUCTION_BANNER in text
    assert "An illustration of the mechanism" in text
    assert "no verdict here" in text and "- The 14B model has heads that track beliefs." in text
    plain = pages["plain"].path.read_text()
    assert RECONSTRUCTION_BANNER not in plain and "no verdict here" not in plain
    with pytest.raises(TypeError, match="tuple"):
        Paper("x", unverified="one string")


def test_paper_statements_open_the_page_with_quote_badges_and_recorded_medium(tmp_path, monkeypatch):
    import jaxtheory.registry as reg
    from jaxtheory.report import verdicts as vsnap

    def x_min(ds, spec):
        return ds["x"].min()

    exp = _fake("quoted", _ok_run, [Figure("good", _good_figure)])
    exp = dataclasses.replace(
        exp,
        presets={**exp.presets, "medium": Preset(Space(a=values(1.0, 2.0, 3.0), seeds=2))},
        paper=Paper("A quoted paper", arxiv="2601.00001", reconstructed="the adoption model"),
        claims=[
            Claim.at_least(
                "positive-quoted",
                "x is positive at every a.",
                lambda ds, spec: float(ds["x"].min()),
                0.0,
                source="paper",
                quote="the iterates stay positive",
                deterministic=True,
            ),
            Claim.at_least(
                "rebuilt",
                "Under our reconstruction, x ≥ 1.",
                lambda ds, spec: float(ds["x"].min()),
                1.0,
                source="reconstruction",
                quote="never below one",
                stand_in="synthetic data in place of the survey",
                deterministic=True,
            ),
            Claim.at_most("ours", "x ≤ 5: our threshold.", lambda ds, spec: 1.0, 5.0, source="proposed"),
            Claim.at_most("broken", "Raises.", lambda ds, spec: ds["nope"], 1.0, source="sanity"),
        ],
    )
    monkeypatch.setattr(reg, "experiments", lambda: {"quoted": exp})
    monkeypatch.setattr(reg, "import_errors", lambda: {})
    verdicts = tmp_path / "verdicts"
    medium = exp.sweep("medium", out=tmp_path / "runs", quiet=True)
    vsnap.write_claims_record(vsnap.claims_record_path(verdicts, "quoted", "medium"), medium)
    src = tmp_path / "docs"
    (page,) = B.write_experiment_pages(src, runs=tmp_path / "runs", verdicts=None, log=lambda s: None)
    # the broken measurement is an error verdict, never a fail, and it fails the page
    assert not page.ok and any("`broken` could not be measured" in e for e in page.errors)
    assert page.verdicts.get("error") == 1 and "fail" not in page.verdicts
    assert page.statements == {"quoted": 2, "pass": 2, "fail": 0, "undecided": 0, "reconstruction": 1}
    text = page.path.read_text()
    states, further = text.index("## What the paper states"), text.index("## Our further checks")
    assert states < further < text.index("## What is simulated")
    paper_part, ours = text[states:further], text[further : text.index("## What is simulated")]
    assert "“the iterates stay positive”" in paper_part and "— abstract" in paper_part
    assert 'class="badge badge-reconstruction">under our reconstruction' in paper_part
    assert "stand-in data: synthetic data in place of the survey" in paper_part
    assert "of our reconstruction" in paper_part and "<em>What we test:</em>" in paper_part
    assert "<strong>ours</strong>" in ours and "<strong>ours</strong>" not in paper_part
    assert "our threshold" in ours and "⚠ ERROR" in ours
    # no recorded medium run in the default verdicts directory for this fake experiment
    assert "Medium preset</th>" not in text
    (page,) = B.write_experiment_pages(src, runs=tmp_path / "runs", verdicts=verdicts, log=lambda s: None)
    text = page.path.read_text()
    assert "<th>Medium preset</th>" in text and "jaxtheory snapshot quoted --preset medium --update" in text
    summary = (src / "experiments" / "_generated" / "summary.md").read_text()
    row = next(line for line in summary.splitlines() if line.startswith("| A quoted paper"))
    assert "| 2 | 2 (2 / 0) | 0 | the adoption model; 1 statement(s) tested on it |" in row


def test_a_broken_page_writer_fails_loudly(tmp_path, monkeypatch):
    import jaxtheory.registry as reg

    monkeypatch.setattr(reg, "experiments", lambda: {"ok": _fake("ok", _ok_run)})

    def broken(*a, **k):
        raise TypeError("bug in the page template")

    monkeypatch.setattr(P, "_render_page", broken)
    with pytest.raises(TypeError, match="page template"):
        B.write_experiment_pages(tmp_path / "docs", runs=tmp_path / "runs", log=lambda s: None)


def test_unknown_experiment_is_a_key_error(tmp_path):
    with pytest.raises(KeyError, match="no experiment named"):
        B.write_experiment_pages(tmp_path, runs=tmp_path / "runs", only=["no-such-thing"])


# -- the whole site ----------------------------------------------------------------------


@pytest.mark.slow
def test_site_builds_with_warnings_as_errors_and_passes_the_browser_check(built_pages, capfd):
    src, runs, _ = built_pages
    out = src.parent / "html"
    status = B.build_docs(preset="smoke", out=out, runs=runs, only=["noisy-quadratic"], source=src)
    assert status == 0, "sphinx -W failed:\n" + capfd.readouterr().err[-6000:]
    page = out / "experiments" / "_generated" / "noisy-quadratic.html"
    html = page.read_text()
    assert html.count("<figure") == 3 and "✔ pass" in html
    assert (out / "api" / "_generated" / "jaxtheory.sweep.html").exists()
    if shutil.which("chromium") is None:
        pytest.skip("chromium is not installed: browser check not run")
    r = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("browser_check.py")), "--site", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr


# -- module layout -------------------------------------------------------------------------


def test_old_report_docs_names_still_import_from_their_new_homes():
    from jaxtheory.report import docs as old

    assert old.build_docs is B.build_docs and old.write_experiment_pages is B.write_experiment_pages
    assert old.public_api is A.public_api and old._render_page is P._render_page
    assert old.__all__ == []  # documented once, where they live now
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        old.nothing_here  # noqa: B018


def test_report_never_runs_an_experiment():
    """DESIGN §1: report reads stored results. No module of jaxtheory.report calls a
    sweep or imports the module that runs experiments for the docs."""
    import ast

    import jaxtheory.report

    for path in Path(jaxtheory.report.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                assert name not in ("sweep", "run_or_reuse"), f"{path.name}:{node.lineno} calls {name}"
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("jaxtheory.docs_build", "jaxtheory.sweep.engine")), (
                    f"{path.name}:{node.lineno} imports {node.module}"
                )
