"""Sphinx configuration of the jaxtheory docs (MyST Markdown, autodoc, napoleon).

Build with ``jaxtheory docs build`` (runs the experiments' smoke presets, writes their
pages, then builds with warnings as errors), or, for the guides and API only,
``python -m sphinx -W --keep-going -b html docs docs/_build/html``.
Nothing is fetched at build time or when a page is read: no intersphinx, no remote
images, and MathJax is bundled with the site.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the checkout, so `sweeps` and `jaxtheory` import

project = "jaxtheory"
author = "the jaxtheory authors"
copyright = "the jaxtheory authors"  # noqa: A001 - Sphinx's name

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    # MathJax 3 bundled with the site (_static/mathjax/, copied at the end of the build)
    # instead of its CDN, so pages render their formulas offline (PyPI: sphinx-mathjax-offline)
    "sphinx-mathjax-offline",
    "sphinx.ext.viewcode",
    "apigen",  # docs/_ext/apigen.py: API pages from every public module's __all__
    "coverage_check",  # docs/_ext/coverage_check.py: fails on an undocumented symbol
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "**/.*",
    "experiments/_generated/summary.md",  # included by experiments/index.md
    "api/_generated/toc.md",  # included by api/index.md
]

# -- MyST ------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
myst_dmath_double_inline = True

# -- autodoc / napoleon ------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # "Attributes:" as fields: no duplicates with NamedTuple fields
napoleon_use_rtype = False

# -- output ------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = "jaxtheory"
html_static_path = ["_static"]
html_css_files = ["jaxtheory.css"]
html_theme_options = {
    "show_toc_level": 2,
    "home_page_in_toc": True,
    "use_download_button": False,
}
# Without it the theme logs console.error("Got invalid theme mode") on a first visit.
html_context = {"default_mode": "auto"}
html_last_updated_fmt = None
# Math: sphinx-mathjax-offline sets mathjax_path to the bundled _static/mathjax/tex-chtml.js;
# the browser check (tests/docs/browser_check.py) blocks every non-file request and
# asserts that an experiment page's formulas render.

# -- generated experiment pages ------------------------------------------------------
# `jaxtheory docs build` writes experiments/_generated/ (git-ignored). Without it the
# site still builds, with a note where the experiment table would be.
_gen = HERE / "experiments" / "_generated"
if not (_gen / "summary.md").exists():
    _gen.mkdir(parents=True, exist_ok=True)
    (_gen / "summary.md").write_text(
        ":::{note}\nNo experiment pages were generated: build the site with "
        "`jaxtheory docs build` to run every experiment's smoke preset and add its "
        "page here.\n:::\n"
    )
