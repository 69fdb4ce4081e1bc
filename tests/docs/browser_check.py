r"""Open the built docs in headless Chromium with the network blocked; fail on a broken
image, a missing figure, unrendered math, a claims table that does not fit, or a console
error.

Usage (after ``jaxtheory docs build``)::

    python tests/docs/browser_check.py [--site docs/_build/html] [--page REL ...]

By default it checks ``index.html`` and the first generated experiment page. Pages are
opened from disk (``file://`` URLs), as a reader without a network opens them, in a
1300 × 900 px window; Chromium (``/usr/bin/chromium``, Debian's package) is driven over
the DevTools protocol on a pipe (``--remote-debugging-pipe``), so only the standard
library is needed. Every request is intercepted: ``file:``, ``data:`` and ``blob:`` ones
go through, every other one is blocked and fails the check (the site must work offline;
MathJax is bundled with it).

A page fails on: an uncaught exception or a ``console.error``; a browser log entry
of level error (e.g. "Failed to load resource"); a failed request (a missing file); an
``<img>`` that does not load; a ``<figure>`` whose image is missing; an experiment page
showing fewer figures than its experiment draws (the page states the count in
``<meta name="jaxtheory:figures">``); a page quoting the paper beside a badge (a
reconstruction, stand-in data) whose quote or badge is not visible; visible text with raw TeX delimiters ``\(`` or
``\[`` outside code (math MathJax did not render), a MathJax error (``mjx-merror``), or,
on an experiment page, no rendered formula (``mjx-container``) at all; a page that
scrolls horizontally; a cell of a ``table.claims`` whose content overflows it, or such a
table wider than its column. Exit status 0 when every page passes, 1 otherwise, 2 when
Chromium cannot be started.
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--mute-audio",
    "--remote-debugging-pipe",
]
#: URL schemes a page may load; any other request is blocked and fails the check.
LOCAL_SCHEMES = ("file", "data", "blob")
#: The window the pages are laid out in (the claims table must fit at this width).
VIEWPORT = {"width": 1300, "height": 900, "deviceScaleFactor": 1, "mobile": False}

# Runs in the page after load: wait for MathJax and every image, then report.
PAGE_PROBE = r"""
(async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await MathJax.startup.promise;
  }
  await document.fonts.ready;
  const imgs = [...document.images];
  for (const i of imgs) { if (i.loading === "lazy") i.loading = "eager"; }
  await Promise.all(imgs.map(i => i.decode().catch(() => null)));
  const bad = i => !i.complete || i.naturalWidth === 0;
  const figs = [...document.querySelectorAll("figure")];
  // visible text outside code and rendered math that still holds a TeX delimiter
  const skip = "pre, code, script, style, textarea, mjx-container, .highlight";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(skip) || !el.getClientRects().length) continue;
    const k = n.data.search(/\\[(\[]/);
    if (k >= 0) raw.push(n.data.slice(Math.max(0, k - 20), k + 40).trim());
  }
  // claims tables: every cell shows its content, the table fits its column
  const overflow = [];
  for (const t of document.querySelectorAll("table.claims")) {
    const box = (t.parentElement.closest("article, main, .bd-article") || t.parentElement)
      .getBoundingClientRect();
    const r = t.getBoundingClientRect();
    if (r.left < box.left - 1 || r.right > box.right + 1) {
      overflow.push(`table ${Math.round(r.width)} px wide in a column of ${Math.round(box.width)} px`);
    }
    for (const c of t.querySelectorAll("th, td")) {
      if (c.scrollWidth > c.clientWidth + 1) {
        overflow.push(`cell "${c.textContent.trim().slice(0, 40)}" needs ${c.scrollWidth} px, has ${c.clientWidth}`);
      }
    }
  }
  return JSON.stringify({
    title: document.title,
    images: imgs.length,
    broken: imgs.filter(bad).map(i => i.getAttribute("src")),
    figures: figs.length,
    figures_without_image: figs.filter(f => { const i = f.querySelector("img");
                                               return !i || bad(i); }).length,
    expected_figures: (document.querySelector('meta[name="jaxtheory:figures"]') || {}).content,
    mathjax: !!(window.MathJax && MathJax.version),
    formulas: document.querySelectorAll("mjx-container").length,
    math_errors: document.querySelectorAll("mjx-merror").length,
    raw_tex: raw.slice(0, 5),
    raw_tex_count: raw.length,
    claims_tables: document.querySelectorAll("table.claims").length,
    quotes: [...document.querySelectorAll("blockquote.paper-quote")]
      .filter(q => q.getClientRects().length && q.textContent.trim().length > 3).length,
    badges: [...document.querySelectorAll(".badge")]
      .filter(b => { const r = b.getBoundingClientRect(); return r.width > 4 && r.height > 4; }).length,
    claims_overflow: overflow.slice(0, 5),
    page_width: document.documentElement.scrollWidth,
    window_width: window.innerWidth,
  });
})()
"""


class Browser:
    """Chromium driven over the DevTools protocol on fds 3 and 4."""

    def __init__(self, binary: str, timeout: float):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="jaxtheory-chromium-")
        self._log = open(os.path.join(self.profile, "stderr.log"), "wb")  # noqa: SIM115
        # Chromium reads commands on its fd 3 and writes replies on its fd 4. The ends
        # it gets are moved to fds >= 10 here and to 3 and 4 by a bash redirection (dash takes one-digit fds only).
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()
        cr = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 10)
        cw = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        shell = f'exec "$@" 3<&{cr} 4>&{cw} {cr}<&- {cw}>&-'
        self.proc = subprocess.Popen(
            [
                "bash",
                "-c",
                shell,
                "bash",
                binary,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            pass_fds=(cr, cw),
        )
        os.close(cr)
        os.close(cw)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def _read_one(self, deadline: float) -> dict | None:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self._r], [], [], left)
            if not ready:
                return None
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe; its log ends:\n" + self.log_tail())
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def send(
        self, method: str, params: dict | None = None, session: str | None = None, wait: bool = True
    ) -> dict:
        """Send one command; with ``wait``, return its result (events are queued)."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        if not wait:
            return {}
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_one(deadline)
            if reply is None:
                raise TimeoutError(f"no reply to {method} within {self.timeout} s")
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def next_event(self, deadline: float) -> dict | None:
        """The next queued or incoming event, or ``None`` at the deadline."""
        if self.events:
            return self.events.pop(0)
        return self._read_one(deadline)

    def log_tail(self, n: int = 2000) -> str:
        """The end of Chromium's stderr."""
        self._log.flush()
        try:
            return Path(self._log.name).read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def close(self) -> None:
        """Close the browser and remove its profile."""
        try:
            self.send("Browser.close", wait=False)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self.profile, ignore_errors=True)


def check_page(
    b: Browser,
    url: str,
    *,
    experiment: bool,
    timeout: float,
    screenshot: Path | None = None,
    quoted: bool = False,
) -> list[str]:
    """Load ``url`` (a ``file:`` URL) in a fresh tab; return the problems found.

    ``experiment`` marks a generated experiment page: it must show its figures and at
    least one rendered formula. ``quoted`` marks a page that quotes the paper beside a
    badge: both must be visible. With ``screenshot``, the whole page is saved there as PNG.
    """
    problems: list[str] = []
    target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    sid = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for m in ("Runtime.enable", "Log.enable", "Page.enable", "Network.enable"):
        b.send(m, session=sid)
    b.send("Emulation.setDeviceMetricsOverride", VIEWPORT, session=sid)
    b.send("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}, session=sid)
    # No waiting for the reply: it comes only once the (intercepted) request goes on.
    b.send("Page.navigate", {"url": url}, session=sid, wait=False)
    deadline = time.monotonic() + timeout
    loaded_at = None
    while True:
        # After the load event, wait for quiet (0.5 s without events) to catch late errors.
        limit = deadline if loaded_at is None else min(deadline, time.monotonic() + 0.5)
        ev = b.next_event(limit)
        if ev is None:
            if loaded_at is None:
                problems.append(f"page did not finish loading within {timeout} s")
            break
        if ev.get("sessionId") != sid:
            continue
        method, p = ev.get("method"), ev.get("params", {})
        if method == "Fetch.requestPaused":
            req_url = p["request"]["url"]
            if urlparse(req_url).scheme in LOCAL_SCHEMES:
                b.send("Fetch.continueRequest", {"requestId": p["requestId"]}, session=sid)
            else:
                problems.append(f"external request (the site must work offline): {req_url}")
                b.send(
                    "Fetch.failRequest",
                    {"requestId": p["requestId"], "errorReason": "BlockedByClient"},
                    session=sid,
                )
        elif method == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            text = (d.get("exception") or {}).get("description") or d.get("text")
            problems.append(f"uncaught exception: {text} ({d.get('url', '')}:{d.get('lineNumber')})")
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            problems.append(f"console.{p['type']}: {args}")
        elif method == "Log.entryAdded" and p["entry"].get("level") == "error":
            e = p["entry"]
            if "BLOCKED_BY_CLIENT" in e.get("text", "").upper():
                continue  # already reported as an external request
            if e.get("url", "").endswith("/favicon.ico"):
                continue  # the browser asks for one by itself; Sphinx sites need none
            problems.append(f"browser error: {e.get('text')} {e.get('url', '')}".strip())
        elif method == "Network.responseReceived":
            r = p["response"]
            if r.get("status", 200) >= 400 and not r["url"].endswith("/favicon.ico"):
                problems.append(f"HTTP {r['status']}: {r['url']}")
        elif method == "Network.loadingFailed":
            if not str(p.get("errorText", "")).startswith("net::ERR_BLOCKED_BY_CLIENT") and not p.get(
                "canceled"
            ):
                problems.append(f"request failed: {p.get('errorText')} ({p.get('type')})")
        elif method == "Page.loadEventFired":
            loaded_at = time.monotonic()
    if loaded_at is not None:
        res = b.send(
            "Runtime.evaluate",
            {"expression": PAGE_PROBE, "awaitPromise": True, "returnByValue": True},
            session=sid,
        )
        if "exceptionDetails" in res:
            problems.append(f"probe failed: {res['exceptionDetails'].get('text')}")
        else:
            info = json.loads(res["result"]["value"])
            problems += [f"broken image: {src}" for src in info["broken"]]
            expected = info.get("expected_figures")
            if expected is not None and int(expected) != info["figures"]:
                problems.append(
                    f"the experiment draws {expected} figure(s), the page shows {info['figures']}"
                )
            elif experiment and expected is None and info["figures"] == 0:
                problems.append("experiment page has no figure")
            if info["figures_without_image"]:
                problems.append(f"{info['figures_without_image']} figure(s) without a loaded image")
            problems += math_problems(info, experiment)
            if info["page_width"] > info["window_width"]:
                problems.append(
                    f"the page scrolls horizontally: {info['page_width']} px wide in a "
                    f"{info['window_width']} px window"
                )
            problems += [f"claims table does not fit: {o}" for o in info["claims_overflow"]]
            if quoted and not (info["quotes"] and info["badges"]):
                problems.append(
                    f"the page should show a paper quote and a badge: {info['quotes']} quote(s), "
                    f"{info['badges']} badge(s) visible"
                )
            print(
                f"  {info['title']!r}: {info['images']} image(s), {info['figures']} figure(s), "
                f"{info['formulas']} formula(s), {info['claims_tables']} claims table(s), "
                f"{info['quotes']} quote(s), {info['badges']} badge(s)"
            )
        if screenshot is not None:
            shot = b.send(
                "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=sid
            )
            screenshot.write_bytes(base64.b64decode(shot["data"]))
    b.send("Target.closeTarget", {"targetId": target})
    return problems


def math_problems(info: dict, experiment: bool) -> list[str]:
    """What the page probe says is wrong with the page's math."""
    problems = []
    if info["raw_tex_count"]:
        problems.append(
            f"{info['raw_tex_count']} visible raw TeX delimiter(s) (math not rendered), "
            f"e.g. {info['raw_tex'][0]!r}"
        )
    if info["math_errors"]:
        problems.append(f"{info['math_errors']} MathJax error(s) (mjx-merror)")
    if experiment and not info["formulas"]:
        problems.append(
            "experiment page has no rendered formula (no mjx-container"
            + ("" if info["mathjax"] else "; MathJax did not load")
            + ")"
        )
    return problems


def default_pages(site: Path) -> list[str]:
    """``index.html``, the first generated experiment page, and the first one that quotes
    the paper beside a badge (a reconstruction or stand-in data), where there is one."""
    pages = ["index.html"]
    exp = sorted((site / "experiments" / "_generated").glob("*.html"))
    if exp:
        pages.append(exp[0].relative_to(site).as_posix())
    q = quoted_page(site)
    if q is not None and q not in pages:
        pages.append(q)
    return pages


def quoted_page(site: Path) -> str | None:
    """The first generated experiment page with a paper quote and a badge, or ``None``."""
    for p in sorted((site / "experiments" / "_generated").glob("*.html")):
        text = p.read_text(errors="replace")
        if 'class="paper-quote"' in text and 'class="badge ' in text:
            return p.relative_to(site).as_posix()
    return None


def main(argv: list[str] | None = None) -> int:
    """Check the pages; exit status 0 (all pass), 1 (a page fails) or 2 (no browser)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", default="docs/_build/html", help="the built HTML directory")
    ap.add_argument(
        "--page", action="append", default=None, help="page to check, relative to the site (repeatable)"
    )
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "chromium"))
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per page")
    ap.add_argument(
        "--screenshots",
        type=Path,
        default=None,
        help="directory to save a full-page PNG of every checked page in",
    )
    ap.add_argument(
        "--require-quote",
        action="store_true",
        help="fail unless some experiment page shows a paper quote and a badge (and check that page)",
    )
    a = ap.parse_args(argv)
    site = Path(a.site)
    if not (site / "index.html").exists():
        print(f"browser_check: {site}/index.html does not exist; build the docs first", file=sys.stderr)
        return 1
    binary = shutil.which(a.chromium)
    if binary is None:
        print(f"browser_check: {a.chromium!r} not found (apt-get install chromium)", file=sys.stderr)
        return 2
    pages = a.page or default_pages(site)
    if not a.page and len(pages) < 2:
        print("browser_check: no experiment page was built", file=sys.stderr)
        return 1
    quoted = quoted_page(site)
    if a.require_quote and quoted is None:
        print("browser_check: no experiment page shows a paper quote with a badge", file=sys.stderr)
        return 1
    t0 = time.monotonic()
    try:
        b = Browser(binary, timeout=a.timeout)
        b.send("Target.setDiscoverTargets", {"discover": False})
    except (OSError, RuntimeError, TimeoutError) as e:
        print(f"browser_check: cannot start {binary}: {e}", file=sys.stderr)
        return 2
    failed = 0
    try:
        for rel in pages:
            print(f"browser_check: {rel}")
            path = site / rel
            if not path.is_file():
                print(f"  FAIL no such page: {path}")
                failed += 1
                continue
            shot = None
            if a.screenshots is not None:
                a.screenshots.mkdir(parents=True, exist_ok=True)
                shot = a.screenshots / (rel.replace("/", "_").removesuffix(".html") + ".png")
            problems = check_page(
                b,
                path.resolve().as_uri(),
                timeout=a.timeout,
                screenshot=shot,
                experiment=rel.startswith("experiments/_generated/"),
                quoted=rel == quoted,
            )
            for p in problems:
                print(f"  FAIL {p}")
            failed += bool(problems)
    finally:
        b.close()
    print(
        f"browser_check: {len(pages) - failed}/{len(pages)} page(s) passed in {time.monotonic() - t0:.1f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
