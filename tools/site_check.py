"""Checks of the built documentation site (``make docs`` runs them after the Sphinx build).

``python -m tools.site_check docs/_build/html`` prints one line per problem and exits 1 when there is any:

* **links**: every internal ``href`` and ``src`` of every page names a file of the site, and its fragment,
  when it has one, an ``id`` (or ``name``) of that file; a missing file or a missing anchor is a problem
  (external URLs are not fetched);
* **cross-references**: no Python cross-reference is left unresolved (shown as code, not a link);
* **literal blocks**: no help text or tool output is highlighted as a programming language;
* **the spec**: every rule of the registry has a numbered heading in ``spec.html`` whose permalink is the rule
  ID's anchor, and the sidebar links to it; the spec's header field labels are kept from breaking and wide
  tables kept in the page by the site's stylesheet;
* **whole names**: no reference to a theorem or rule is cut short with an ellipsis;
* **the notebook**: the page "sonnx in a notebook", executed during the build, shows a report's table of verdicts
  (the HTML a ``ModelReport`` gives a notebook).

The checks read the HTML only: how a browser lays it out is left to ``make docs-screenshots``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
"""A URL with a scheme (``https:``, ``mailto:``, ``data:``...): not a file of the site."""

HIGHLIGHTED = re.compile(r'class="highlight-(?!text\b|none\b)([a-z0-9]+)')
"""A literal block highlighted in a language (``highlight-text`` and ``highlight-none`` are plain)."""

CUT = re.compile(r"\w(\.\.\.|…)(\s|\)|$)")
"""A word cut short by an ellipsis (sphinx-needs cuts a long title so: "Termination and exactly-onc...")."""

PLAIN_PAGES = ("_generated/cli.html", "_generated/proofs.html", "tutorial.html")
"""Pages of help texts and tool output only: no block of theirs may be highlighted. Elsewhere a block may
name its language (``.. code-block:: python``); only the implicit default lexer is a problem."""

EXTERNAL_PYTHON_NAMES: tuple[str, ...] = (
    "os.PathLike",
    "collections.abc.Mapping",
    "collections.abc.Callable",
    "collections.abc.Sequence",
    "collections.abc.Iterable",
    "concurrent.futures.ProcessPoolExecutor",
    "numpy.ndarray",
    "pathlib.Path",
    "onnx.onnx_ml_pb2.ModelProto",
)
"""Names of Python and NumPy in signatures: the build runs offline, without their inventories, so they stay
text (``docs/conf.py`` gives them to Sphinx's ``nitpick_ignore``)."""

NOTEBOOK_PAGE = "notebook.html"
"""The page built from docs/notebook.ipynb, with the outputs of the run made during the build."""

REPORT_TABLE = re.compile(
    r'<div class="sonnx-report"><p[^>]*>.*?</p><table[^>]*><thead><tr><th[^>]*>rule</th>', re.DOTALL
)
"""The start of a report's HTML (``sonnx.checking.report_html``): its headline, then its table of verdicts."""

INDEX_PAGES = ("py-modindex.html", "genindex.html")
"""Generated indexes, where a module group without a page of its own is shown as code by design."""

CSS_RULES: tuple[tuple[str, str], ...] = (
    ("dl.field-list > dt", "white-space: nowrap"),
    ("div.body table.docutils td", "overflow-wrap: anywhere"),
    ("div.body table.docutils.colwidths-given", "table-layout: fixed"),
    ("div.body div.highlight pre", "white-space: pre-wrap"),
)
"""(selector, declaration) pairs the site's stylesheet ``_static/sonnx.css`` must hold."""


@dataclass
class Page:
    """What the checks need of one HTML page."""

    ids: set[str] = field(default_factory=set)
    links: list[tuple[str, str]] = field(default_factory=list)  # (tag, URL)
    unresolved: list[str] = field(default_factory=list)  # text of cross-references outside any link
    headings: list[tuple[str, str, str]] = field(default_factory=list)  # (section id, text, permalink)
    sidebar_links: set[str] = field(default_factory=set)
    link_texts: list[str] = field(default_factory=list)
    stylesheets: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._anchors = 0  # depth of open <a> elements
        self._sections: list[str] = []
        self._sidebar = 0  # open <div> elements inside div.sphinxsidebar (itself included), 0 outside
        self._heading: list[str] | None = None
        self._permalink = ""
        self._xref: list[str] | None = None
        self._link_text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.page.ids.add(a[key])
        classes = a.get("class", "").split()
        if tag == "div" and (self._sidebar or "sphinxsidebar" in classes):
            self._sidebar += 1
        if tag == "section":
            self._sections.append(a.get("id", ""))
        for attr in ("href", "src"):
            if a.get(attr):
                self.page.links.append((tag, a[attr]))
        if tag == "link" and "stylesheet" in a.get("rel", ""):
            self.page.stylesheets.append(a.get("href", ""))
        if tag == "a":
            self._anchors += 1
            if self._sidebar and a.get("href"):
                self.page.sidebar_links.add(a["href"])
            if self._heading is not None and "headerlink" in classes:
                self._permalink = a.get("href", "")
            elif self._link_text is None:
                self._link_text = []
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and not self._sidebar:
            self._heading, self._permalink = [], ""
        if tag == "code" and "xref" in classes and not self._anchors:
            self._xref = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "div" and self._sidebar:
            self._sidebar -= 1
        if tag == "section" and self._sections:
            self._sections.pop()
        if tag == "a":
            self._anchors -= 1
            if self._link_text is not None and not self._anchors:
                self.page.link_texts.append("".join(self._link_text).strip())
                self._link_text = None
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6") and self._heading is not None:
            text = "".join(self._heading).replace("¶", "").strip()
            self.page.headings.append((self._sections[-1] if self._sections else "", text, self._permalink))
            self._heading = None
        if tag == "code" and self._xref is not None:
            self.page.unresolved.append("".join(self._xref).strip())
            self._xref = None

    def handle_data(self, data: str) -> None:
        for sink in (self._heading, self._xref, self._link_text):
            if sink is not None:
                sink.append(data)


def read_page(path: Path) -> Page:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    return reader.page


def check_links(root: Path, pages: dict[Path, Page]) -> list[str]:
    """Every internal link of every page names an existing file, and an existing anchor of it."""
    problems = []
    ids: dict[Path, set[str]] = {p: page.ids for p, page in pages.items()}
    for path, page in sorted(pages.items()):
        rel = path.relative_to(root).as_posix()
        for tag, url in page.links:
            if EXTERNAL.match(url) or url.startswith("//"):
                continue
            parts = urlsplit(url)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if not target.is_relative_to(root.resolve()) or not target.is_file():
                problems.append(f"{rel}: <{tag}> links to {url}: no such file in the site")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                if target not in ids:
                    ids[target] = read_page(target).ids
                if fragment not in ids[target]:
                    problems.append(f"{rel}: <{tag}> links to {url}: no anchor #{fragment} there")
    return problems


def check_pages(root: Path, pages: dict[Path, Page]) -> list[str]:
    """Cross-references that did not resolve, highlighted literal blocks, names cut short."""
    problems = []
    for path, page in sorted(pages.items()):
        rel = path.relative_to(root).as_posix()
        if rel not in INDEX_PAGES:
            problems += [f"{rel}: cross-reference {text!r} is not a link" for text in page.unresolved
                         if text not in EXTERNAL_PYTHON_NAMES]
        for m in sorted(set(HIGHLIGHTED.findall(path.read_text(encoding="utf-8")))):
            if m == "default" or rel in PLAIN_PAGES:
                problems.append(f"{rel}: a literal block is highlighted as {m!r}, not shown as plain text")
        problems += [f"{rel}: link text cut short: {t!r}" for t in page.link_texts if CUT.search(t)]
    return problems


def check_spec(root: Path, pages: dict[Path, Page], rule_ids: Iterable[str], name: str = "spec.html") -> list[str]:
    """Every rule's numbered heading on spec page ``name``, its permalink on the rule ID's anchor, and its sidebar
    entry."""
    spec = root / name
    if spec not in pages:
        return [f"{name}: missing"]
    page = pages[spec]
    problems = []
    for rule in rule_ids:
        anchor = rule.lower()
        heads = [h for h in page.headings if h[0] == anchor]
        if not heads:
            problems.append(f"{name}: rule {rule} has no heading anchored at #{anchor} (its ID)")
            continue
        _, text, permalink = heads[0]
        if not re.match(rf"^\d+(\.\d+)+ {re.escape(rule)}\b", text):
            problems.append(f"{name}: the heading of {rule} is not numbered: {text!r}")
        if permalink != f"#{anchor}":
            problems.append(f"{name}: the permalink of {rule} is {permalink!r}, not #{anchor}")
        if f"#{anchor}" not in page.sidebar_links:
            problems.append(f"{name}: the sidebar does not list {rule}")
    css = root / "_static" / "sonnx.css"
    if not any(s.split("?")[0].endswith("_static/sonnx.css") for s in page.stylesheets) or not css.is_file():
        return [*problems, "spec.html: the site's stylesheet _static/sonnx.css is not loaded"]
    problems += [f"_static/sonnx.css: no rule '{sel} {{ {decl} }}'" for sel, decl in CSS_RULES
                 if not css_has(css.read_text(encoding="utf-8"), sel, decl)]
    return problems


def css_has(css: str, selector: str, declaration: str) -> bool:
    """Whether a rule of ``css`` whose selector list names ``selector`` declares ``declaration``."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    want = "".join(declaration.split())
    for selectors, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        names = {" ".join(s.split()) for s in selectors.split(",")}
        if selector in names and want in "".join(body.split()).split(";"):
            return True
    return False


def check_notebook(root: Path) -> list[str]:
    """The notebook page exists and shows at least one report's table, as its run during the build printed it."""
    page = root / NOTEBOOK_PAGE
    if not page.is_file():
        return [f"{NOTEBOOK_PAGE}: missing"]
    if not REPORT_TABLE.search(page.read_text(encoding="utf-8")):
        return [f"{NOTEBOOK_PAGE}: no report's table of verdicts is shown (was the notebook executed?)"]
    return []


def check_site(root: Path, rule_ids: Iterable[str], operator_rule_ids: Iterable[str] = ()) -> list[str]:
    """Every problem of the site built in ``root`` (``operator_rule_ids``: the rules stated on ``operators.html``)."""
    pages = {p.resolve(): read_page(p) for p in sorted(root.rglob("*.html")) if "_sources" not in p.parts}
    root = root.resolve()
    operator_rules = list(operator_rule_ids)
    on_operators = check_spec(root, pages, operator_rules, "operators.html") if operator_rules else []
    return (check_links(root, pages) + check_pages(root, pages) + check_spec(root, pages, rule_ids) + on_operators
            + check_notebook(root))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python -m tools.site_check BUILT_HTML_DIR", file=sys.stderr)
        return 2
    from sonnx.rules.registry import RULES

    graph = [r.id for r in RULES if r.spec == "spec/graph.rst"]
    problems = check_site(Path(args[0]), graph, [r.id for r in RULES if r.spec != "spec/graph.rst"])
    for p in problems:
        print(p)
    print(f"site check: {len(problems)} problem(s) in {args[0]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
