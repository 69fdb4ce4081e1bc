"""The headless-browser check on a small site built with the docs' theme, CSS and bundled
MathJax: it passes offline, and it fails on what it exists to catch (unrendered math, a
request off the machine, a claims table that does not fit).

Needs Chromium (``apt-get install chromium``) and the ``docs`` extra; skipped without.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = Path(__file__).with_name("browser_check.py")

pytestmark = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="chromium is not installed: browser check not run"
)

CONF = f"""
import sys
extensions = ["myst_parser", "sphinx.ext.mathjax", "sphinx-mathjax-offline"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
html_theme = "sphinx_book_theme"
html_static_path = [{str(ROOT / "docs" / "_static")!r}]
html_css_files = ["jaxtheory.css"]
html_context = {{"default_mode": "auto"}}
"""

# The claims table as jaxtheory/report/pages.py writes it, with long cells.
CLAIMS = """
<table class="claims">
<thead><tr><th>Claim</th><th>Verdict</th><th>Measured</th><th>95% interval</th><th>Expected</th>
<th>Source</th></tr></thead>
<tbody>
<tr class="claim-head verdict-inconclusive"><td><strong>risk-decreases-monotonically-in-the-learning-rate-below-the-edge</strong></td>
<td class="verdict">? inconclusive</td><td>0.0123456789012345</td><td>[0.0100000000001, 0.0200000000002] (n=64)</td>
<td>slope within 0.1 of -0.5 (loglog fit over steps 100..1000)</td><td>paper Table 2, arXiv:2601.00001</td></tr>
<tr class="claim-statement"><td colspan="6">The final risk decreases as the learning rate grows up to the edge of stability.</td></tr>
<tr class="claim-head verdict-pass"><td><strong>short</strong></td><td class="verdict">✔ pass</td><td>1.0</td>
<td>[0.9, 1.1]</td><td>≥ 0.5</td><td>derived</td></tr>
<tr class="claim-statement"><td colspan="6">A short one.</td></tr>
</tbody>
</table>
"""


def _png(path: Path, w: int = 4, h: int = 3) -> None:
    """A small grey PNG, written with the standard library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return len(data).to_bytes(4, "big") + body + zlib.crc32(body).to_bytes(4, "big")

    raw = b"".join(b"\0" + b"\x80" * w for _ in range(h))
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", w.to_bytes(4, "big") + h.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0]))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def _site(tmp: Path, experiment_body: str) -> Path:
    src = tmp / "src"
    gen = src / "experiments" / "_generated"
    gen.mkdir(parents=True)
    (src / "conf.py").write_text(CONF)
    (src / "index.md").write_text(
        "# Home\n\nInline $\\lambda_{\\max}$ and display:\n\n$$\\sum_i x_i^2$$\n\n"
        "```{toctree}\nexperiments/_generated/demo\n```\n"
    )
    _png(gen / "fig.png")
    (gen / "demo.md").write_text(
        "# demo\n\nThe risk $r_t = \\tfrac12 x_t^\\top H x_t$ decays.\n\n"
        + experiment_body
        + "\n\n:::{figure} fig.png\n:alt: fig\n\nA figure.\n:::\n"
    )
    out = tmp / "html"
    r = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return out


def _check(site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(CHECK), "--site", str(site)], capture_output=True, text=True, timeout=180
    )


@pytest.fixture(scope="module")
def sites(tmp_path_factory):
    pytest.importorskip("sphinx_book_theme")
    pytest.importorskip("myst_parser")
    if not _has_offline_mathjax():
        pytest.skip("sphinx-mathjax-offline is not installed (the docs extra)")
    good = _site(tmp_path_factory.mktemp("good"), CLAIMS)
    # raw TeX that MathJax is told to leave alone, an image from off the machine, and a
    # claims cell that cannot wrap
    bad = _site(
        tmp_path_factory.mktemp("bad"),
        '<p class="mathjax_ignore">Unrendered \\(x^2\\) here.</p>\n\n'
        '<img src="https://example.invalid/remote.png" alt="remote">\n\n'
        '<table class="claims"><tbody><tr><td style="white-space: nowrap">'
        + "unbreakable " * 40
        + "</td></tr></tbody></table>\n",
    )
    return good, bad


def _has_offline_mathjax() -> bool:
    import importlib.util

    return importlib.util.find_spec("sphinx-mathjax-offline") is not None


def test_offline_site_passes_with_rendered_math_and_a_fitting_claims_table(sites):
    good, _ = sites
    assert (good / "_static" / "mathjax" / "tex-chtml.js").exists()  # bundled, not a CDN
    html = (good / "experiments" / "_generated" / "demo.html").read_text()
    assert "cdn.jsdelivr" not in html and "_static/mathjax/tex-chtml.js" in html
    r = _check(good)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 claims table(s)" in r.stdout
    n = int(r.stdout.split("'demo")[1].split(" formula(s)")[0].rsplit(" ", 1)[-1])
    assert n >= 1, r.stdout  # the experiment page's formula was rendered


def test_check_fails_on_raw_tex_a_request_off_the_machine_and_an_overflowing_cell(sites):
    _, bad = sites
    r = _check(bad)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "raw TeX delimiter" in r.stdout and "\\\\(x^2" in r.stdout
    assert "external request (the site must work offline): https://example.invalid/remote.png" in r.stdout
    assert 'claims table does not fit: cell "unbreakable' in r.stdout
