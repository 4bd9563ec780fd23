"""The built site in a real browser: screenshots and a layout report (``make docs-screenshots``; not in CI).

``python -m tools.site_screenshots BUILT_HTML_DIR OUT_DIR`` opens the pages that have had layout defects
(the spec's header, the wide generated tables, the command-line reference) in headless Chromium at a
laptop's and a wide screen's width. For each it writes a screenshot, ``OUT_DIR/<page>-<width>.png``, and
measures in the browser, with a script added to a copy of the page:

* every table, literal block and definition list of the content area whose right edge passes the content
  area's (content that runs off the page rather than wrapping or scrolling in its own box);
* every label of a field list whose text is laid out on more than one line (the header's "Spec versi /
  on:").

It prints one line per defect and exits 1 when there is any, 2 when no Chromium binary is found (what
``shutil.which`` finds of ``chromium``, ``chromium-browser``, ``google-chrome``, or ``$CHROMIUM``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PAGES = ("spec.html", "_generated/catalogue.html", "_generated/wg_coverage.html", "_generated/cli.html",
         "api.html", "tutorial.html")
WIDTHS = (1280, 2400)

MEASURE = r"""
<script>
(function () {
  var found = [];
  var body = document.querySelector("div.body");
  if (body) {
    var limit = body.getBoundingClientRect().right + 1;
    body.querySelectorAll("table, pre, dl, div.highlight").forEach(function (el) {
      var over = el.getBoundingClientRect().right - limit;
      if (over > 0) { found.push("runs " + Math.round(over) + " px off the page: <" + el.tagName.toLowerCase()
                                 + " class='" + el.className + "'> "
                                 + el.textContent.replace(/\s+/g, " ").trim().slice(0, 60)); }
    });
  }
  document.querySelectorAll("dl.field-list > dt").forEach(function (dt) {
    var range = document.createRange();
    range.selectNodeContents(dt);
    var tops = {};
    Array.prototype.forEach.call(range.getClientRects(), function (r) { tops[Math.round(r.top)] = true; });
    if (Object.keys(tops).length > 1) { found.push("field label broken: " + dt.textContent.trim()); }
  });
  var out = document.createElement("pre");
  out.id = "sonnx-layout-report";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
})();
</script>
"""


def chromium() -> str | None:
    for name in (os.environ.get("CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and (path := shutil.which(name)):
            return path
    return None


def _browser(binary: str, width: int, *args: str) -> str:
    argv = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--window-size={width},1200",
            *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True).stdout


def layout_report(binary: str, page: Path, width: int) -> list[str]:
    """The defects the browser measures on ``page`` at ``width`` pixels."""
    text = page.read_text(encoding="utf-8")
    with tempfile.NamedTemporaryFile("w", suffix=".html", dir=page.parent, delete=False, encoding="utf-8") as f:
        f.write(text.replace("</body>", MEASURE + "</body>"))  # beside the page: its relative assets resolve
    try:
        dom = _browser(binary, width, "--dump-dom", Path(f.name).as_uri())
    finally:
        Path(f.name).unlink()
    m = re.search(r'<pre id="sonnx-layout-report">(.*?)</pre>', dom, flags=re.DOTALL)
    if m is None:
        return ["the layout script did not run"]
    import html

    return [str(x) for x in json.loads(html.unescape(m.group(1)))]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or not Path(args[0]).is_dir():
        print("usage: python -m tools.site_screenshots BUILT_HTML_DIR OUT_DIR", file=sys.stderr)
        return 2
    binary = chromium()
    if binary is None:
        print("site screenshots: no Chromium binary found (apt-get install chromium, or set CHROMIUM)",
              file=sys.stderr)
        return 2
    root, out = Path(args[0]).resolve(), Path(args[1])
    out.mkdir(parents=True, exist_ok=True)
    problems = []
    for rel in PAGES:
        page = root / rel
        for width in WIDTHS:
            shot = out / f"{rel.replace('/', '_').removesuffix('.html')}-{width}.png"
            _browser(binary, width, f"--screenshot={shot.resolve()}", page.as_uri())
            problems += [f"{rel} at {width} px: {p}" for p in layout_report(binary, page, width)]
    for p in problems:
        print(p)
    print(f"site screenshots: {len(PAGES) * len(WIDTHS)} in {out}; {len(problems)} layout problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
